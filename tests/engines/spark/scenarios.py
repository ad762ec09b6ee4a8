"""Spark (pyspark 4.1 + iceberg-spark-runtime 1.11) against floe serve, both directions, rows
compared cell by cell with floe's own answers (floe.rows over pgwire).

One SparkSession per run (local[2], 2g driver, 2 shuffle partitions, no UI), with the local jars
of tests/engines/jvm/spark.pom in spark.jars (never spark.jars.packages: that goes to the
network). Catalog `floe` is Iceberg's SparkCatalog of type rest on floe's endpoint with OAuth2
client credentials; the warehouse is a file:/// URI read through HadoopFileIO. The session time
zone and the Python process are both UTC, so timestamps collect as UTC wall clock.

floe writes, Spark reads: scalar types, a partitioned table (identity/bucket/day/truncate) with
filters, v2 position deletes and v3 deletion vectors after floe's DELETE/UPDATE/MERGE, time
travel (VERSION AS OF), the snapshots and files metadata tables, floe's _file/_pos against
Spark's.
Spark writes, floe reads: CREATE TABLE v2 and v3 partitioned by days()/bucket(), INSERT, CTAS,
DELETE / UPDATE / MERGE INTO in merge-on-read and in the default copy-on-write, ALTER TABLE ADD
COLUMN, CALL floe.system.rewrite_data_files and expire_snapshots. Interleaved commits.
"""
import datetime
import decimal
import os
import shutil
import signal
import sys
import tempfile
import time

from floe_engine import FloeServer, Scorecard, Unsupported, same_rows

D = decimal.Decimal


def spark_session(floe, jars):
    """The settings docs/engines.md tells users to paste."""
    from pyspark.sql import SparkSession
    c = "spark.sql.catalog.floe"
    b = (SparkSession.builder.master("local[2]").appName("floe-engines")
         .config("spark.driver.memory", "2g")
         .config("spark.sql.shuffle.partitions", "2")
         .config("spark.ui.enabled", "false")
         .config("spark.sql.session.timeZone", "UTC")
         .config("spark.jars", ",".join(jars))
         .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
         .config(c, "org.apache.iceberg.spark.SparkCatalog")
         .config(c + ".type", "rest")
         .config(c + ".uri", floe.rest_uri)
         .config(c + ".warehouse", floe.warehouse)
         .config(c + ".credential", floe.credential)
         .config(c + ".oauth2-server-uri", floe.token_uri)
         .config(c + ".scope", "catalog")
         # Spark's CachingCatalog keeps a loaded table until it expires (30 s): another
         # writer's commits (floe's, here) stay invisible to reads until then.
         .config(c + ".cache-enabled", "false"))
    spark = b.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def floe_setup(floe):
    ex = floe.execute
    ex("CREATE SCHEMA fl")
    ex("CREATE TABLE fl.types (id int, big bigint, f real, d double precision, flag boolean, s varchar, "
       "amt decimal(10,2), wide decimal(38,6), day date, ts timestamp, tstz timestamptz, bin bytea, u uuid, "
       "l int[])")
    ex("INSERT INTO fl.types VALUES "
       "(1, 9007199254740993, 1.5, -2.5e-300, true, 'ünï \"q\"', 12.34, -12345678901234567890123456789012.123456, "
       "DATE '2024-02-29', TIMESTAMP '2024-01-02 03:04:05.678901', "
       "TIMESTAMPTZ '2024-01-02 03:04:05.000001+00', '\\x00ff'::bytea, '12345678-1234-5678-1234-567812345678', "
       "ARRAY[1, NULL, 3]), "
       "(2, -1, -0.0, 1e300, false, '', -0.01, 0, DATE '1969-12-31', TIMESTAMP '1900-01-01 00:00:00', "
       "TIMESTAMPTZ '1970-01-01 00:00:00+00', '\\x'::bytea, '00000000-0000-0000-0000-0000000000ff', ARRAY[]::int[]), "
       "(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)")
    ex("CREATE TABLE fl.part (id bigint, cat varchar, ts timestamptz, name varchar, v double precision) "
       "WITH (partitioning = ARRAY['cat', 'bucket(8, id)', 'day(ts)', 'truncate(3, name)'])")
    ex("INSERT INTO fl.part SELECT g, CASE WHEN g % 2 = 0 THEN 'a' ELSE 'b' END, "
       "TIMESTAMPTZ '2024-03-01 12:00:00+00' + g * INTERVAL '7 hours', "
       "CASE WHEN g % 5 = 0 THEN NULL ELSE 'name' || g END, g * 0.5 FROM generate_series(0, 59) g")
    for version in (2, 3):
        t = "fl.del_v%d" % version
        ex("CREATE TABLE %s (id int, cat varchar, v bigint) WITH (format_version = %d, partitioning = ARRAY['cat'])"
           % (t, version))
        ex("INSERT INTO %s SELECT g, CASE WHEN g %% 3 = 0 THEN 'x' ELSE 'y' END, g * 100 FROM generate_series(1, 300) g" % t)
        ex("DELETE FROM %s WHERE id %% 7 = 0" % t)
        ex("UPDATE %s SET v = -v WHERE id BETWEEN 10 AND 20" % t)
        ex("MERGE INTO %s t USING (VALUES (5, 5), (14, 14), (1000, 1000)) s(id, v) ON t.id = s.id "
           "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT VALUES (s.id, 'z', s.v)" % t)
    ex("CREATE TABLE fl.inter (id bigint, who varchar)")


def main():
    t0 = time.time()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    jars = [os.path.join(d, f) for d in [os.environ["FLOE_SPARK_JARS"]] for f in sorted(os.listdir(d))
            if f.endswith(".jar")]
    tmp = tempfile.mkdtemp(prefix="floe-spark.")
    os.makedirs(os.path.join(tmp, "wh"))
    floe = FloeServer.start(tmp, warehouse="file://" + os.path.join(tmp, "wh"))
    card = Scorecard("spark")
    spark = None
    try:
        floe_setup(floe)
        spark = spark_session(floe, jars)
        print("spark ready after %.0fs" % (time.time() - t0), flush=True)
        scenarios(card, floe, spark, tmp)
    finally:
        if spark is not None:
            spark.stop()
        floe.stop()
    print("wall time %.0fs" % (time.time() - t0))
    rc = card.finish()
    if rc == 0:
        shutil.rmtree(tmp, ignore_errors=True)
    return rc


def scenarios(card, floe, spark, tmp):
    ex = floe.execute

    def sp(sql):
        return [tuple(r) for r in spark.sql(sql).collect()]

    def same(sql_floe, sql_spark, what=None):
        same_rows(floe.rows(sql_floe), sp(sql_spark), what=what or sql_spark[:90])

    # ---------------- floe writes, Spark reads ----------------

    def listing():
        ns = [r[0] for r in sp("SHOW NAMESPACES IN floe")]
        assert "fl" in ns, ns
        tables = sorted(r[1] for r in sp("SHOW TABLES IN floe.fl"))
        same_rows(floe.rows("SELECT table_name FROM information_schema.tables WHERE table_schema = 'fl'"),
                  [(t,) for t in tables], what="tables of fl")
    card.run("Spark lists floe's namespaces and tables", listing)

    def types():
        cols = "id, big, f, d, flag, s, amt, wide, day, ts, tstz, bin"
        same("SELECT %s, CAST(u AS varchar) FROM fl.types" % cols,
             "SELECT %s, CAST(u AS string) FROM floe.fl.types" % cols)
        got = sp("SELECT id, l FROM floe.fl.types")
        same_rows([(1, [1, None, 3]), (2, []), (3, None)], got, what="int[] column")
    card.run("Spark reads floe's types (ints, strings, decimals, dates, timestamps, booleans, binary, uuid, int[])",
             types)

    def partitioned():
        filters = [("true", "true"), ("cat = 'a'", "cat = 'a'"), ("id = 13", "id = 13"),
                   ("ts >= TIMESTAMPTZ '2024-03-05 00:00:00+00' AND ts < TIMESTAMPTZ '2024-03-07 00:00:00+00'",
                    "ts >= TIMESTAMP '2024-03-05 00:00:00' AND ts < TIMESTAMP '2024-03-07 00:00:00'"),
                   ("name = 'name7'", "name = 'name7'"), ("name IS NULL", "name IS NULL")]
        for f_floe, f_spark in filters:
            same("SELECT id, cat, ts, name, v FROM fl.part WHERE " + f_floe,
                 "SELECT id, cat, ts, name, v FROM floe.fl.part WHERE " + f_spark)
        assert len(floe.rows("SELECT id FROM fl.part")) == 60
    card.run("Spark reads floe's partitioned table (identity/bucket/day/truncate) with filters", partitioned)

    def deletes(version):
        t = "fl.del_v%d" % version
        files = dict(floe.rows('SELECT content, count(*) FROM fl."del_v%d$files" GROUP BY content' % version))
        assert files.get(1), "floe wrote no delete files: %r" % files
        same("SELECT id, cat, v FROM %s" % t, "SELECT id, cat, v FROM floe.%s" % t)
        same("SELECT cat, count(*), sum(v) FROM %s GROUP BY cat" % t,
             "SELECT cat, count(*), sum(v) FROM floe.%s GROUP BY cat" % t)
    card.run("Spark reads floe's DELETE/UPDATE/MERGE (v2 position deletes)", deletes, 2)
    card.run("Spark reads floe's DELETE/UPDATE/MERGE (v3 deletion vectors)", deletes, 3)

    def time_travel():
        snaps = floe.rows('SELECT snapshot_id FROM fl."del_v2$snapshots" ORDER BY committed_at')
        assert len(snaps) >= 4, snaps
        for (sid,) in snaps[:3]:
            same("SELECT id, v FROM fl.del_v2 FOR VERSION AS OF %d WHERE id < 30" % sid,
                 "SELECT id, v FROM floe.fl.del_v2 VERSION AS OF %d WHERE id < 30" % sid)
    card.run("Spark time travel to floe's snapshots (VERSION AS OF)", time_travel)

    def metadata_tables():
        same('SELECT snapshot_id, parent_id, operation FROM fl."del_v2$snapshots"',
             "SELECT snapshot_id, parent_id, operation FROM floe.fl.del_v2.snapshots")
        same('SELECT content, file_path, record_count, file_size_in_bytes FROM fl."del_v2$files"',
             "SELECT content, file_path, record_count, file_size_in_bytes FROM floe.fl.del_v2.files")
        same('SELECT content, file_path, record_count FROM fl."del_v3$files"',
             "SELECT content, file_path, record_count FROM floe.fl.del_v3.files")
    card.run("Spark's snapshots/files metadata tables of floe's tables agree with floe's", metadata_tables)

    def metadata_columns():
        for t in ("fl.types", "fl.del_v2", "fl.del_v3"):
            same("SELECT id, _file, _pos FROM %s" % t, "SELECT id, _file, _pos FROM floe.%s" % t)
    card.run("floe's _file/_pos metadata columns agree with Spark's (incl. tables with deletes)", metadata_columns)

    # ---------------- Spark writes, floe reads ----------------

    def spark_create():
        sp("CREATE NAMESPACE floe.sp")
        got = floe.rows("SELECT schema_name FROM information_schema.schemata WHERE schema_name = 'sp'")
        assert got == [("sp",)], got
        sp("CREATE TABLE floe.sp.t (id bigint, s string, amt decimal(12,2), d date, ts timestamp_ntz, "
           "tstz timestamp, flag boolean, f float, x double, b binary) USING iceberg")
        sp("INSERT INTO floe.sp.t VALUES (1, 'a', 1.25, DATE '2024-01-01', TIMESTAMP_NTZ '2024-01-01 01:02:03.456789', "
           "TIMESTAMP '2024-01-01 01:02:03.000001', true, 1.5, -2.5e-300, X'00ff'), "
           "(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), "
           "(3, 'ünï', -99999999.99, DATE '1969-12-31', TIMESTAMP_NTZ '1900-01-01 00:00:00', "
           "TIMESTAMP '2262-04-11 23:47:16.854775', false, -0.0, 1e300, X'')")
        cols = "id, s, amt, d, ts, tstz, flag, f, x, b"
        same("SELECT %s FROM sp.t" % cols, "SELECT %s FROM floe.sp.t" % cols)
        assert len(floe.rows("SELECT id FROM sp.t")) == 3
        sp("CREATE TABLE floe.sp.ctas USING iceberg AS SELECT id, s, amt * 2 AS amt2 FROM floe.sp.t WHERE id <> 2")
        same_rows([(1, "a", D("2.50")), (3, "ünï", D("-199999999.98"))],
                  floe.rows("SELECT id, s, amt2 FROM sp.ctas"), what="floe reads Spark's CTAS")
    card.run("Spark CREATE NAMESPACE, CREATE TABLE, INSERT, CTAS; floe reads", spark_create)

    def spark_dml(version, mode):
        t = "floe.sp.dml_v%d_%s" % (version, mode[:3])
        props = "'format-version'='%d'" % version
        if mode == "merge-on-read":
            props += ", 'write.delete.mode'='merge-on-read', 'write.update.mode'='merge-on-read', " \
                     "'write.merge.mode'='merge-on-read'"
        sp("CREATE TABLE %s (id bigint, s string, amt decimal(12,2), ts timestamp) USING iceberg "
           "PARTITIONED BY (days(ts), bucket(4, id)) TBLPROPERTIES (%s)" % (t, props))
        sp("INSERT INTO %s SELECT id, concat('s', id), CAST(id AS decimal(12,2)) / 4, "
           "TIMESTAMP '2024-01-01 00:00:00' + make_interval(0, 0, 0, 0, CAST(id * 5 AS int)) "
           "FROM range(1, 61)" % t)
        base = datetime.datetime(2024, 1, 1)
        model = {x: ["s%d" % x, D(x) / 4, base + datetime.timedelta(hours=5 * x)] for x in range(1, 61)}
        ft = t[len("floe."):]

        def check(what):
            same_rows([(k, *v) for k, v in model.items()], floe.rows("SELECT id, s, amt, ts FROM " + ft), what=what)
            same("SELECT id, s, amt, ts FROM " + ft, "SELECT id, s, amt, ts FROM " + t, what=what + " (vs Spark)")

        check("floe reads Spark's partitioned insert")
        sp("DELETE FROM %s WHERE id %% 7 = 0" % t)
        for k in [k for k in model if k % 7 == 0]:
            del model[k]
        check("floe reads Spark's DELETE")
        sp("UPDATE %s SET s = 'upd', amt = amt + 1 WHERE id < 10" % t)
        for k in model:
            if k < 10:
                model[k][0], model[k][1] = "upd", model[k][1] + 1
        check("floe reads Spark's UPDATE")
        sp("MERGE INTO %s t USING (SELECT * FROM VALUES (3, 'm3'), (15, 'm15'), (100, 'm100') AS s(id, s)) s "
           "ON t.id = s.id WHEN MATCHED AND t.id = 3 THEN DELETE WHEN MATCHED THEN UPDATE SET t.s = s.s "
           "WHEN NOT MATCHED THEN INSERT (id, s) VALUES (s.id, s.s)" % t)
        del model[3]
        model[15][0] = "m15"
        model[100] = ["m100", None, None]
        check("floe reads Spark's MERGE")
        files = dict(floe.rows('SELECT content, count(*) FROM sp."%s$files" GROUP BY content' % ft.split(".")[1]))
        if mode == "merge-on-read":
            assert files.get(1), "Spark wrote no delete files in merge-on-read: %r" % files
        else:
            assert not files.get(1) and not files.get(2), "copy-on-write left delete files: %r" % files
        # floe writes over Spark's deletes, Spark reads
        ex("DELETE FROM %s WHERE id BETWEEN 20 AND 25" % ft)
        for k in range(20, 26):
            model.pop(k, None)
        check("Spark reads floe's DELETE over Spark's table")
    for version in (2, 3):
        for mode in ("merge-on-read", "copy-on-write"):
            card.run("Spark v%d days()/bucket() table, DELETE / UPDATE / MERGE (%s); floe reads" % (version, mode),
                     spark_dml, version, mode)

    def spark_add_column():
        sp("ALTER TABLE floe.sp.t ADD COLUMN extra string")
        sp("INSERT INTO floe.sp.t (id, s, amt, d, ts, tstz, flag, f, x, b, extra) "
           "VALUES (4, 'd', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'new')")
        same_rows([(1, None), (2, None), (3, None), (4, "new")], floe.rows("SELECT id, extra FROM sp.t"),
                  what="added column")
        ex("INSERT INTO sp.t (id, extra) VALUES (5, 'from floe')")
        same_rows([(4, "new"), (5, "from floe")], sp("SELECT id, extra FROM floe.sp.t WHERE extra IS NOT NULL"),
                  what="Spark reads floe's row in the new column")
    card.run("Spark ALTER TABLE ADD COLUMN; floe reads and writes the new column", spark_add_column)

    def rewrite_data_files():
        t = "sp.dml_v2_mer"
        before = floe.rows("SELECT id, s, amt, ts FROM " + t)
        try:
            sp("CALL floe.system.rewrite_data_files(table => '%s', options => map('min-input-files', '1', "
               "'delete-file-threshold', '1'))" % t)
        except Exception as e:
            raise Unsupported("rewrite_data_files: %s" % e)
        same_rows(before, floe.rows("SELECT id, s, amt, ts FROM " + t), what="floe after Spark's rewrite_data_files")
        op = floe.rows('SELECT operation FROM sp."dml_v2_mer$snapshots" ORDER BY committed_at DESC LIMIT 1')
        assert op == [("replace",)], op
    card.run("CALL floe.system.rewrite_data_files on Spark's merge-on-read table; floe reads the same rows",
             rewrite_data_files)

    def expire_snapshots():
        t = "sp.dml_v2_cop"
        before = floe.rows("SELECT id, s FROM " + t)
        n_before = floe.rows('SELECT count(*) FROM sp."dml_v2_cop$snapshots"')[0][0]
        assert n_before > 1, n_before
        try:
            sp("CALL floe.system.expire_snapshots(table => '%s', older_than => TIMESTAMP '2999-01-01 00:00:00', "
               "retain_last => 1)" % t)
        except Exception as e:
            raise Unsupported("expire_snapshots: %s" % e)
        n_after = floe.rows('SELECT count(*) FROM sp."dml_v2_cop$snapshots"')[0][0]
        assert n_after == 1, (n_before, n_after)
        same_rows(before, floe.rows("SELECT id, s FROM " + t), what="floe after Spark's expire_snapshots")
    card.run("CALL floe.system.expire_snapshots; floe sees one snapshot and the same rows", expire_snapshots)

    def interleaved():
        expected = []
        for i in range(3):
            ex("INSERT INTO fl.inter VALUES (%d, 'floe'), (%d, 'floe')" % (10 * i, 10 * i + 1))
            expected += [(10 * i, "floe"), (10 * i + 1, "floe")]
            same_rows(expected, sp("SELECT id, who FROM floe.fl.inter"), what="Spark sees floe's append %d" % i)
            sp("INSERT INTO floe.fl.inter VALUES (%d, 'spark')" % (10 * i + 5))
            expected.append((10 * i + 5, "spark"))
            same_rows(expected, floe.rows("SELECT id, who FROM fl.inter"), what="floe sees Spark's append %d" % i)
        same('SELECT snapshot_id, parent_id, operation FROM fl."inter$snapshots"',
             "SELECT snapshot_id, parent_id, operation FROM floe.fl.inter.snapshots")
        n = sp("SELECT count(*) FROM floe.fl.inter.snapshots")[0][0]
        assert n == 6, n
    card.run("interleaved commits: floe and Spark append in turn; snapshots agree", interleaved)


if __name__ == "__main__":
    sys.exit(main())
