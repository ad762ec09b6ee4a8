"""Spark (pyspark 4.1 + iceberg-spark-runtime 1.11) against floe serve, both directions, rows
compared cell by cell with floe's own answers (floe.rows over pgwire). Run by
tests/engines/test_spark.sh.

One SparkSession per run (local[2], 2g driver, 2 shuffle partitions, no UI), with the local jars
of tests/engines/jvm/spark.pom in spark.jars (never spark.jars.packages: that goes to the
network). Catalog `floe` is Iceberg's SparkCatalog of type rest on floe's endpoint with OAuth2
client credentials and the catalog cache off (another writer's commits are seen at once); the
warehouse is a file:/// URI read through HadoopFileIO. The session time zone and the Python
process are both UTC, so timestamps collect as UTC wall clock. docs/engines.md copies
spark_session()'s settings.

floe writes, Spark reads: scalar types, a partitioned table (identity/bucket/day/truncate) with
filters, v2 position deletes and v3 deletion vectors after floe's DELETE/UPDATE/MERGE, time
travel (VERSION AS OF, TIMESTAMP AS OF), the snapshots/files/history metadata tables, floe's
_file/_pos against Spark's, nested columns (struct, list, map, list of struct), floe's optimize,
expire_snapshots and rewrite_manifests, floe's schema evolution (add/rename/drop/promote) and
partition evolution, a view floe created; `floe ingest postgres`'s replica of a throwaway
PostgreSQL table (lib/pg_cdc.py: the copy, then updates, deletes, a key-changing update and
re-inserts written as equality deletes) equal to PostgreSQL's rows, and Spark's files metadata
table counting its equality delete files.
Spark writes, floe reads: CREATE NAMESPACE/TABLE, INSERT, CTAS, v2 and v3 tables partitioned by
days()/bucket() with DELETE / UPDATE / MERGE INTO in merge-on-read (position deletes; deletion
vectors on v3) and copy-on-write, INSERT OVERWRITE (dynamic, static), ALTER TABLE ADD / RENAME /
DROP / ALTER COLUMN TYPE, ADD PARTITION FIELD, branches and tags, CALL floe.system.
rewrite_data_files (v2 and v3), rewrite_manifests and expire_snapshots, a Spark view, floe's time
travel over Spark's snapshots. Interleaved commits from both sides on one table.
S3: a second floe serve on the strict fake S3 of tests/interop (real SigV4 checks; floe holds its
only keys) as catalog floes3; Spark's S3FileIO asks for remote signing and holds no keys: floe's
table with deletes read, Spark's merge-on-read table read back by floe, floe's append read.
"""
import datetime
import decimal
import os
import shutil
import signal
import sys
import tempfile
import time

from floe_engine import FakeS3, FloeServer, Scorecard, Unsupported, norm, same_rows
from pg_cdc import ORDERS_COLUMNS, PgSource, file_contents, orders_workload

D = decimal.Decimal


def spark_session(floe, jars, floe_s3=None):
    """The settings docs/engines.md tells users to paste. floe_s3: a second floe serve whose
    warehouse is on the fake S3, as catalog floes3 where Spark holds no storage keys and has
    floe sign its S3 requests (remote signing)."""
    from pyspark.sql import SparkSession
    c = "spark.sql.catalog.floe"
    b = (SparkSession.builder.master("local[2]").appName("floe-engines")
         .config("spark.driver.memory", "2g")
         # a short run on 2 shared cores: the C1 compiler only, and the serial collector, spend
         # less CPU on the JVM itself than C2 and G1 would
         .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
         .config("spark.sql.shuffle.partitions", "2")
         .config("spark.ui.enabled", "false")
         .config("spark.ui.showConsoleProgress", "false")
         .config("spark.sql.session.timeZone", "UTC")
         .config("spark.jars", ",".join(jars))
         .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
         .config(c, "org.apache.iceberg.spark.SparkCatalog")
         .config(c + ".type", "rest")
         .config(c + ".uri", floe.rest_uri)
         .config(c + ".warehouse", floe.warehouse)
         .config(c + ".io-impl", "org.apache.iceberg.hadoop.HadoopFileIO")
         .config(c + ".credential", floe.credential)
         .config(c + ".oauth2-server-uri", floe.token_uri)
         .config(c + ".scope", "catalog")
         # Spark's CachingCatalog keeps a loaded table until it expires (30 s): another
         # writer's commits (floe's, here) stay invisible to reads until then.
         .config(c + ".cache-enabled", "false"))
    if floe_s3 is not None:
        c3 = "spark.sql.catalog.floes3"
        b = (b.config(c3, "org.apache.iceberg.spark.SparkCatalog")
             .config(c3 + ".type", "rest")
             .config(c3 + ".uri", floe_s3.rest_uri)
             .config(c3 + ".warehouse", floe_s3.warehouse)
             .config(c3 + ".credential", floe_s3.credential)
             .config(c3 + ".oauth2-server-uri", floe_s3.token_uri)
             .config(c3 + ".scope", "catalog")
             .config(c3 + ".io-impl", "org.apache.iceberg.aws.s3.S3FileIO")
             .config(c3 + ".header.X-Iceberg-Access-Delegation", "remote-signing")
             .config(c3 + ".cache-enabled", "false"))
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
    ex("CREATE TABLE fl.nested AS SELECT g AS id, ROW(g, 'n' || g) AS st, "
       "CASE WHEN g = 3 THEN NULL ELSE ARRAY[g, g + 1] END AS l, "
       "map(ARRAY['a', 'b'], ARRAY[g, g * 10]) AS m, "
       "ARRAY[ROW(g, 'x'), ROW(g + 1, 'y')] AS ls FROM generate_series(1, 4) g")
    ex("CREATE TABLE fl.maint (id int, s varchar) WITH (format_version = 2)")
    for i in range(4):
        ex("INSERT INTO fl.maint SELECT g, 'm' || g FROM generate_series(%d, %d) g" % (i * 20, i * 20 + 19))
    ex("DELETE FROM fl.maint WHERE id % 6 = 0")
    ex("CREATE TABLE fl.orc (id bigint, s varchar, amt decimal(10,2), day date, ts timestamp, tstz timestamptz, "
       "st ROW(a int, b varchar), l bigint[], m map(varchar, int)) "
       "WITH (format_version = 2, partitioning = ARRAY['bucket(4, id)'], \"write.format.default\" = 'orc')")
    ex("INSERT INTO fl.orc SELECT g, CASE WHEN g % 4 = 0 THEN NULL ELSE 's' || g END, g * 0.25, "
       "DATE '2024-01-01' + g, TIMESTAMP '2024-01-01 00:00:00.000001' + g * INTERVAL '1 hour', "
       "TIMESTAMPTZ '1969-12-31 23:59:59.5+00' + g * INTERVAL '1 second', ROW(g % 3, 'b' || g), "
       "CASE WHEN g % 5 = 0 THEN NULL ELSE ARRAY[g, -g] END, map(ARRAY['k'], ARRAY[g]) FROM generate_series(1, 200) g")
    ex("DELETE FROM fl.orc WHERE id % 7 = 0")
    ex("CREATE TABLE fl.evo (id int, day date, s varchar, gone varchar)")
    ex("INSERT INTO fl.evo SELECT g, DATE '2024-01-01' + g, 's' || g, 'x' FROM generate_series(1, 20) g")


def main():
    t0 = time.time()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    jars = [os.path.join(d, f) for d in [os.environ["FLOE_SPARK_JARS"]] for f in sorted(os.listdir(d))
            if f.endswith(".jar")]
    tmp = tempfile.mkdtemp(prefix="floe-spark.")
    os.makedirs(os.path.join(tmp, "wh"))
    floe = FloeServer.start(tmp, warehouse="file://" + os.path.join(tmp, "wh"))
    card = Scorecard("spark")
    spark = s3 = floe_s3 = None
    try:
        floe_setup(floe)
        s3dir = os.path.join(tmp, "s3side")
        os.makedirs(s3dir)
        s3_error = None
        try:  # node and tests/interop/node_modules (scripts/install-deps.sh)
            s3 = FakeS3(s3dir)
            floe_s3 = FloeServer.start(s3dir, warehouse="s3://wh/lake", env=s3.server_env(),
                                       args=["--log-requests", "true"])
        except Exception as e:  # the S3 scenario fails with this; the others still run
            s3_error = e
        for k in list(os.environ):  # Spark's JVM inherits this environment: no storage keys in it
            if k.startswith("AWS_"):
                del os.environ[k]
        spark = spark_session(floe, jars, floe_s3)
        print("spark ready after %.0fs" % (time.time() - t0), flush=True)
        scenarios(card, floe, spark, tmp)
        s3_scenarios(card, floe_s3, spark, s3_error)
    finally:
        if spark is not None:
            spark.stop()
        floe.stop()
        if floe_s3 is not None:
            floe_s3.stop()
        if s3 is not None:
            s3.stop()
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

    def nested():
        rows = sp("SELECT id, st, l, m, ls FROM floe.fl.nested")
        want = []
        for g in range(1, 5):
            want.append((g, (g, "n%d" % g), None if g == 3 else [g, g + 1], {"a": g, "b": g * 10},
                         [(g, "x"), (g + 1, "y")]))
        same_rows(want, rows, what="Spark reads floe's struct/list/map/list-of-struct columns")
        same("SELECT id, (st).f1, (st).f2, l[1], m['b'], (ls[2]).f1 FROM fl.nested",
             "SELECT id, st.f1, st.f2, l[0], m['b'], ls[1].f1 FROM floe.fl.nested",
             what="nested fields, floe vs Spark")
    card.run("Spark reads floe's nested columns (struct, list, map, list of struct)", nested)

    def orc_tables():
        cols = "id, s, amt, day, ts, tstz"
        same("SELECT %s, (st).a, (st).b, l, m['k'] FROM fl.orc" % cols,
             "SELECT %s, st.a, st.b, l, m['k'] FROM floe.fl.orc" % cols, what="Spark reads floe's ORC table")
        fmts = sp("SELECT DISTINCT file_format FROM floe.fl.orc.files WHERE content = 0")
        assert fmts == [("ORC",)], fmts
        sp("CREATE TABLE floe.fl.sp_orc (id bigint, s string, amt decimal(10,2), ts timestamp_ntz, "
           "tstz timestamp, st struct<a: int, b: string>, l array<bigint>) USING iceberg "
           "TBLPROPERTIES ('write.format.default'='orc', 'format-version'='2')")
        sp("INSERT INTO floe.fl.sp_orc SELECT id, s, amt, CAST(ts AS timestamp_ntz), tstz, "
           "named_struct('a', CAST(id % 3 AS int), 'b', s), array(id, -id) FROM floe.fl.orc")
        fmts = sp("SELECT DISTINCT file_format FROM floe.fl.sp_orc.files")
        assert fmts == [("ORC",)], fmts
        same("SELECT id, s, amt, ts, tstz, (st).a, (st).b, l FROM fl.sp_orc",
             "SELECT id, s, amt, ts, tstz, st.a, st.b, l FROM floe.fl.sp_orc", what="floe reads Spark's ORC table")
        ex("INSERT INTO fl.sp_orc (id, s) VALUES (100000, 'floe')")
        same("SELECT id, s FROM fl.sp_orc WHERE id > 99999", "SELECT id, s FROM floe.fl.sp_orc WHERE id > 99999")
    card.run("ORC data files both ways: Spark reads floe's ORC table (with position deletes), floe reads Spark's",
             orc_tables)

    def floe_maintenance():
        t = "fl.maint"
        before = floe.rows("SELECT id, s FROM " + t)
        ex("ALTER TABLE %s EXECUTE optimize" % t)
        files = dict(floe.rows('SELECT content, count(*) FROM fl."maint$files" GROUP BY content'))
        assert not files.get(1), "optimize left delete files: %r" % files
        same_rows(before, sp("SELECT id, s FROM floe." + t), what="Spark reads floe's compacted table")
        ex("ALTER TABLE %s EXECUTE expire_snapshots(older_than => TIMESTAMP '2999-01-01 00:00:00', retain_last => 1)"
           % t)
        n = sp("SELECT count(*) FROM floe.fl.maint.snapshots")[0][0]
        assert n == 1, "Spark sees %d snapshots after floe's expiry" % n
        same_rows(before, sp("SELECT id, s FROM floe." + t), what="Spark reads floe's table after expiry")
        ex("ALTER TABLE %s EXECUTE rewrite_manifests" % t)
        same_rows(before, sp("SELECT id, s FROM floe." + t), what="Spark reads after floe's rewrite_manifests")
        same('SELECT content, file_path, record_count FROM fl."maint$files"',
             "SELECT content, file_path, record_count FROM floe.fl.maint.files")
    card.run("Spark reads floe's table after optimize, expire_snapshots, rewrite_manifests", floe_maintenance)

    def floe_evolution():
        t = "fl.evo"
        ex("ALTER TABLE %s ADD COLUMN extra bigint" % t)
        ex("ALTER TABLE %s RENAME COLUMN s TO label" % t)
        ex("ALTER TABLE %s DROP COLUMN gone" % t)
        ex("ALTER TABLE %s ALTER COLUMN id TYPE bigint" % t)
        ex("ALTER TABLE %s SET (partitioning = ARRAY['bucket(4, id)', 'month(day)'])" % t)
        ex("INSERT INTO %s SELECT g, DATE '2024-01-01' + g, 'l' || g, g * 7 FROM generate_series(21, 40) g" % t)
        cols = [r[0] for r in sp("DESCRIBE TABLE floe.fl.evo") if r[0] and not r[0].startswith("#")]
        assert cols[:4] == ["id", "day", "label", "extra"], cols
        same("SELECT id, day, label, extra FROM " + t, "SELECT id, day, label, extra FROM floe." + t)
        same("SELECT id, label FROM %s WHERE id = 33" % t, "SELECT id, label FROM floe.%s WHERE id = 33" % t)
        same("SELECT id FROM %s WHERE day >= DATE '2024-02-01'" % t,
             "SELECT id FROM floe.%s WHERE day >= DATE '2024-02-01'" % t)
        specs = sp("SELECT DISTINCT spec_id FROM floe.fl.evo.files ORDER BY spec_id")
        assert len(specs) == 2, specs
    card.run("Spark reads floe's schema evolution (add/rename/drop/promote) and partition evolution",
             floe_evolution)

    def floe_column_defaults():
        ex("CREATE TABLE fl.dflt (id int, k varchar DEFAULT 'w') WITH (format_version = 3)")
        ex("INSERT INTO fl.dflt VALUES (1, 'a'), (2, 'b')")
        ex("ALTER TABLE fl.dflt ADD COLUMN n int DEFAULT 42")
        ex("INSERT INTO fl.dflt (id) VALUES (3)")
        want = [(1, "a", 42), (2, "b", 42), (3, "w", 42)]
        same_rows(want, floe.rows("SELECT id, k, n FROM fl.dflt"), what="floe")
        same_rows(want, sp("SELECT id, k, n FROM floe.fl.dflt"), what="spark (initial-default of old rows)")
    card.run("Spark reads floe's ADD COLUMN ... DEFAULT (v3 initial-default on older files)",
             floe_column_defaults)

    def timestamp_travel():
        hist = floe.rows('SELECT made_current_at, snapshot_id FROM fl."del_v2$history" ORDER BY made_current_at')
        same('SELECT made_current_at, snapshot_id, parent_id, is_current_ancestor FROM fl."del_v2$history"',
             "SELECT made_current_at, snapshot_id, parent_id, is_current_ancestor FROM floe.fl.del_v2.history")
        for at, _sid in hist[:3]:
            stamp = norm(at).strftime("%Y-%m-%d %H:%M:%S.%f")
            same("SELECT id, v FROM fl.del_v2 FOR TIMESTAMP AS OF TIMESTAMPTZ '%s+00' WHERE id < 30" % stamp,
                 "SELECT id, v FROM floe.fl.del_v2 TIMESTAMP AS OF '%s' WHERE id < 30" % stamp)
    card.run("Spark TIMESTAMP AS OF and the history metadata table on floe's table", timestamp_travel)

    def pg_cdc():
        with PgSource() as pg:
            want = orders_workload(floe, pg, "cdc")
            same_rows(want, floe.rows("SELECT %s FROM cdc.orders ORDER BY id" % ORDERS_COLUMNS), ordered=True,
                      what="floe reads its replica")
            same_rows(want, sp("SELECT %s FROM floe.cdc.orders ORDER BY id" % ORDERS_COLUMNS), ordered=True,
                      what="Spark reads floe's replica (equality deletes) as PostgreSQL's rows")
            same_rows(sorted(file_contents(floe, "cdc.orders").items()),
                      sp("SELECT content, count(*) FROM floe.cdc.orders.files GROUP BY content ORDER BY content"),
                      ordered=True, what="Spark's files metadata table (content 2: equality deletes)")
    card.run("Spark reads floe ingest postgres's replica (copy, then upserts, deletes, a key change as equality "
             "deletes) as PostgreSQL's rows", pg_cdc)

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

        def check(what, spark_too=False):
            same_rows([(k, *v) for k, v in model.items()], floe.rows("SELECT id, s, amt, ts FROM " + ft), what=what)
            if spark_too:  # Spark reading its own writes is Spark's business; once is enough
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
        check("floe reads Spark's MERGE", spark_too=True)
        files = dict(floe.rows('SELECT content, count(*) FROM sp."%s$files" GROUP BY content' % ft.split(".")[1]))
        if mode == "merge-on-read":
            assert files.get(1), "Spark wrote no delete files in merge-on-read: %r" % files
        else:
            assert not files.get(1) and not files.get(2), "copy-on-write left delete files: %r" % files
        # floe writes over Spark's deletes, Spark reads
        ex("DELETE FROM %s WHERE id BETWEEN 20 AND 25" % ft)
        for k in range(20, 26):
            model.pop(k, None)
        check("Spark reads floe's DELETE over Spark's table", spark_too=True)
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
        sp("CALL floe.system.rewrite_data_files(table => '%s', options => map('min-input-files', '1', "
           "'delete-file-threshold', '1'))" % t)
        same_rows(before, floe.rows("SELECT id, s, amt, ts FROM " + t), what="floe after Spark's rewrite_data_files")
        op = floe.rows('SELECT operation FROM sp."dml_v2_mer$snapshots" ORDER BY committed_at DESC LIMIT 1')
        assert op == [("replace",)], op
    card.run("CALL floe.system.rewrite_data_files on Spark's merge-on-read table; floe reads the same rows",
             rewrite_data_files)

    def rewrite_v3_and_manifests():
        t = "sp.dml_v3_mer"
        before = floe.rows("SELECT id, s, amt, ts FROM " + t)
        files = dict(floe.rows('SELECT content, count(*) FROM sp."dml_v3_mer$files" GROUP BY content'))
        assert files.get(1), "no deletion vectors to rewrite: %r" % files
        sp("CALL floe.system.rewrite_data_files(table => '%s', options => map('min-input-files', '1', "
           "'delete-file-threshold', '1'))" % t)
        same_rows(before, floe.rows("SELECT id, s, amt, ts FROM " + t), what="floe after rewrite of a v3 table")
        files = dict(floe.rows('SELECT content, count(*) FROM sp."dml_v3_mer$files" GROUP BY content'))
        assert not files.get(1), "DVs left after the rewrite: %r" % files
        sp("CALL floe.system.rewrite_manifests(table => '%s')" % t)
        op = floe.rows('SELECT operation FROM sp."dml_v3_mer$snapshots" ORDER BY committed_at DESC LIMIT 1')
        assert op == [("replace",)], op
        same_rows(before, floe.rows("SELECT id, s, amt, ts FROM " + t), what="floe after rewrite_manifests")
        same('SELECT content, file_path, record_count FROM sp."dml_v3_mer$files"',
             "SELECT content, file_path, record_count FROM floe.%s.files" % t)
    card.run("CALL rewrite_data_files on Spark's v3 table with deletion vectors, then rewrite_manifests; floe reads",
             rewrite_v3_and_manifests)

    def insert_overwrite():
        t = "floe.sp.ow"
        sp("CREATE TABLE %s (id bigint, cat string, v int) USING iceberg PARTITIONED BY (cat)" % t)
        sp("INSERT INTO %s VALUES (1, 'a', 1), (2, 'a', 2), (3, 'b', 3), (4, 'c', 4)" % t)
        spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
        sp("INSERT OVERWRITE %s VALUES (5, 'a', 50), (6, 'b', 60)" % t)
        same_rows([(5, "a", 50), (6, "b", 60), (4, "c", 4)], floe.rows("SELECT id, cat, v FROM sp.ow"),
                  what="floe reads Spark's dynamic INSERT OVERWRITE")
        spark.conf.set("spark.sql.sources.partitionOverwriteMode", "static")
        sp("INSERT OVERWRITE %s SELECT 7, 'z', 70" % t)
        same_rows([(7, "z", 70)], floe.rows("SELECT id, cat, v FROM sp.ow"), what="floe reads static INSERT OVERWRITE")
        ex("INSERT INTO sp.ow VALUES (8, 'y', 80)")
        same("SELECT id, cat, v FROM sp.ow", "SELECT id, cat, v FROM " + t)
    card.run("Spark INSERT OVERWRITE (dynamic and static); floe reads", insert_overwrite)

    def spark_transforms():
        t = "floe.sp.tr"
        sp("CREATE TABLE %s (id bigint, name string, d date, ts timestamp) USING iceberg "
           "PARTITIONED BY (truncate(2, name), months(d), hours(ts))" % t)
        sp("INSERT INTO %s SELECT id, concat(substr('abcdef', CAST(id %% 4 AS int) + 1, 3), id), "
           "date_add(DATE '2023-11-20', CAST(id * 9 AS int)), "
           "TIMESTAMP '2024-01-01 00:00:00' + make_interval(0, 0, 0, 0, CAST(id * 3 AS int)) FROM range(1, 41)" % t)
        for where in ("true", "name LIKE 'bc%'", "d >= DATE '2024-03-01'",
                      "ts < TIMESTAMP '2024-01-02 00:00:00'", "name = 'cde10'"):
            same("SELECT id, name, d, ts FROM sp.tr WHERE " + where, "SELECT id, name, d, ts FROM %s WHERE %s" % (t, where),
                 what="floe reads Spark's truncate/months/hours table: " + where)
        parts = floe.rows('SELECT count(DISTINCT file_path) FROM sp."tr$files"')[0][0]
        assert parts > 10, parts
    card.run("Spark truncate / months / hours partitions; floe reads with filters", spark_transforms)

    def spark_evolution():
        t = "floe.sp.evo"
        sp("CREATE TABLE %s (id bigint, a string, b int, gone string) USING iceberg" % t)
        sp("INSERT INTO %s VALUES (1, 'x', 10, 'g'), (2, 'y', 20, 'g')" % t)
        sp("ALTER TABLE %s RENAME COLUMN a TO label" % t)
        sp("ALTER TABLE %s DROP COLUMN gone" % t)
        sp("ALTER TABLE %s ALTER COLUMN b TYPE bigint" % t)
        sp("ALTER TABLE %s ADD PARTITION FIELD bucket(2, id)" % t)
        sp("INSERT INTO %s VALUES (3, 'z', 30000000000)" % t)
        same_rows([(1, "x", 10), (2, "y", 20), (3, "z", 30000000000)],
                  floe.rows("SELECT id, label, b FROM sp.evo"), what="floe reads after Spark's rename/drop/promote")
        cols = floe.rows("SELECT column_name, data_type FROM information_schema.columns "
                         "WHERE table_schema = 'sp' AND table_name = 'evo' ORDER BY ordinal_position")
        assert [c for c, _ in cols] == ["id", "label", "b"], cols
        assert cols[2][1] == "bigint", cols
        same_rows([(3, "z")], floe.rows("SELECT id, label FROM sp.evo WHERE id = 3"), what="filter after spec change")
        ex("INSERT INTO sp.evo VALUES (4, 'w', 4)")
        same("SELECT id, label, b FROM sp.evo", "SELECT id, label, b FROM " + t)
        n = floe.rows('SELECT count(DISTINCT spec_id) FROM sp."evo$files"')[0][0]
        assert n == 2, n
    card.run("Spark RENAME/DROP/ALTER COLUMN TYPE and ADD PARTITION FIELD; floe reads and writes", spark_evolution)

    def branches_tags():
        t = "floe.sp.br"
        sp("CREATE TABLE %s (id bigint, s string) USING iceberg" % t)
        sp("INSERT INTO %s VALUES (1, 'main')" % t)
        sp("ALTER TABLE %s CREATE TAG v1" % t)
        sp("ALTER TABLE %s CREATE BRANCH dev" % t)
        sp("INSERT INTO %s.branch_dev VALUES (2, 'dev')" % t)
        sp("INSERT INTO %s VALUES (3, 'main')" % t)
        same_rows([(1, "main"), (3, "main")], floe.rows("SELECT id, s FROM sp.br"), what="main")
        same_rows([(1, "main"), (2, "dev")], floe.rows("SELECT id, s FROM sp.br FOR VERSION AS OF 'dev'"),
                  what="floe reads Spark's branch")
        same_rows([(1, "main")], floe.rows("SELECT id, s FROM sp.br FOR VERSION AS OF 'v1'"),
                  what="floe reads Spark's tag")
        same('SELECT name, type, snapshot_id FROM sp."br$refs"', "SELECT name, type, snapshot_id FROM %s.refs" % t)
    card.run("Spark CREATE BRANCH / TAG and writes to a branch; floe reads them (FOR VERSION AS OF 'ref')",
             branches_tags)

    def spark_time_travel():
        t = "sp.dml_v2_cop"
        snaps = sp("SELECT snapshot_id, committed_at FROM floe.%s.snapshots ORDER BY committed_at" % t)
        same('SELECT made_current_at, snapshot_id, parent_id, is_current_ancestor FROM sp."dml_v2_cop$history"',
             "SELECT made_current_at, snapshot_id, parent_id, is_current_ancestor FROM floe.%s.history" % t)
        for sid, at in snaps:
            same("SELECT id, s FROM %s FOR VERSION AS OF %d" % (t, sid),
                 "SELECT id, s FROM floe.%s VERSION AS OF %d" % (t, sid))
            stamp = at.strftime("%Y-%m-%d %H:%M:%S.%f")
            same("SELECT id, s FROM %s FOR TIMESTAMP AS OF TIMESTAMPTZ '%s+00'" % (t, stamp),
                 "SELECT id, s FROM floe.%s TIMESTAMP AS OF '%s'" % (t, stamp))
    card.run("floe time travel (VERSION/TIMESTAMP AS OF) over Spark's snapshots; history agrees", spark_time_travel)

    def views():
        try:
            sp("CREATE VIEW floe.sp.v AS SELECT id, s FROM floe.sp.t WHERE id < 3")
        except Exception as e:
            raise Unsupported("CREATE VIEW: %s" % str(e).splitlines()[0])
        same_rows([(1, "a"), (2, None)], sp("SELECT id, s FROM floe.sp.v"), what="Spark reads its view")
        names = [r[0] for r in floe.rows("SHOW TABLES FROM sp")]
        assert "v" in names, names
        same_rows([(1, "a"), (2, None)], floe.rows("SELECT id, s FROM sp.v"), what="floe reads Spark's view")
    card.run("Spark CREATE VIEW in floe's catalog; floe lists it and reads it", views)

    def floe_view():
        ex("CREATE VIEW fl.fv AS SELECT id, s FROM fl.types WHERE id < 3")
        try:
            got = sp("SELECT id, s FROM floe.fl.fv")
        except Exception as e:
            raise Unsupported("Spark reading floe's view: %s" % str(e).splitlines()[0])
        same_rows(floe.rows("SELECT id, s FROM fl.fv"), got, what="Spark reads floe's view")
    card.run("Spark reads a view floe created", floe_view)

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


def s3_scenarios(card, floe, spark, s3_error):
    """Catalog floes3: the warehouse on the strict fake S3, whose only keys floe serve holds;
    every S3 request of Spark's S3FileIO is signed by floe (remote signing)."""
    name = "S3 warehouse, Spark holding only the catalog token (remote signing): both directions"
    if s3_error is not None:
        def no_s3():
            raise RuntimeError("the fake S3 or its floe serve did not start: %s" % str(s3_error)[-300:])
        card.run(name, no_s3)
        return
    ex = floe.execute

    def sp(sql):
        return [tuple(r) for r in spark.sql(sql).collect()]

    def both_ways():
        ex("CREATE SCHEMA s3f")
        ex("CREATE TABLE s3f.t (id bigint, s varchar, d date) WITH (format_version = 2, partitioning = ARRAY['bucket(2, id)'])")
        ex("INSERT INTO s3f.t SELECT g, 'f' || g, DATE '2024-01-01' + g FROM generate_series(1, 30) g")
        ex("DELETE FROM s3f.t WHERE id % 5 = 0")
        same_rows(floe.rows("SELECT id, s, d FROM s3f.t"), sp("SELECT id, s, d FROM floes3.s3f.t"),
                  what="Spark reads floe's S3 table (position deletes) through signed requests")
        sp("CREATE NAMESPACE floes3.s3s")
        sp("CREATE TABLE floes3.s3s.t (id bigint, s string) USING iceberg PARTITIONED BY (bucket(2, id)) "
           "TBLPROPERTIES ('format-version'='2', 'write.delete.mode'='merge-on-read')")
        sp("INSERT INTO floes3.s3s.t SELECT id, concat('p', id) FROM range(1, 21)")
        sp("DELETE FROM floes3.s3s.t WHERE id % 4 = 0")
        want = [(i, "p%d" % i) for i in range(1, 21) if i % 4]
        same_rows(want, floe.rows("SELECT id, s FROM s3s.t"), what="floe reads Spark's S3 writes")
        ex("INSERT INTO s3s.t VALUES (100, 'floe')")
        same_rows(want + [(100, "floe")], sp("SELECT id, s FROM floes3.s3s.t"), what="Spark reads floe's append")
        signed = sum(1 for line in open(floe.log) if "/sign" in line and '"status":200' in line)
        assert signed > 10, "floe signed only %d of Spark's S3 requests" % signed
    card.run(name, both_ways)


if __name__ == "__main__":
    sys.exit(main())
