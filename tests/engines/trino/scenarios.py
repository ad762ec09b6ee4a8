"""Trino (476, single node, from the unpacked trino-server) against floe serve, both
directions, rows compared cell by cell with floe's own answers (floe.rows over pgwire).

One Trino server per run (start-up is the slow part on 2 cores): only the iceberg plugin is
loaded (plugin.dir holds a link to it), its catalog is floe's REST endpoint with OAuth2 client
credentials, and files go through Trino's native local file system (the warehouse is a
file:/// URI). Trino starts while floe writes its tables, then every scenario runs against it.
Checks are batched (UNION ALL of tagged filters) to keep the number of Trino queries small.

floe writes, Trino reads: namespaces and tables listed; ints, strings, decimals, dates, times,
timestamps, booleans, floats, binary, uuid; an int[] column (checked against the inserted
values: floe's pgwire answer for nested columns is not compared here); a partitioned table
(identity, bucket, day, truncate) with filters; position deletes (v2) and deletion vectors (v3)
after floe's DELETE/UPDATE/MERGE; floe's OPTIMIZE (delete files dropped with the data files
they covered); floe's partition evolution (ALTER TABLE SET (partitioning = ARRAY[...])); time
travel to floe's snapshots; `floe ingest postgres`'s replica of a throwaway PostgreSQL table
(lib/pg_cdc.py: the copy, then updates, deletes, a key-changing update and re-inserts written as
equality deletes) equal to PostgreSQL's rows, and Trino's $files counting its equality delete files.
Trino writes, floe reads: CREATE SCHEMA (with and without location), CREATE TABLE, INSERT,
CTAS, a bucket(id, 4) table, DELETE / UPDATE / MERGE (position deletes), ALTER TABLE ADD
COLUMN, EXECUTE optimize on a floe table with deletes, row/array/map columns (floe reads them
through field access, subscripts and map keys, and appends nested rows Trino reads back). Interleaved commits: each sees the
other's rows, and Trino's "$snapshots"/"$history" agree with floe's.
"""
import datetime
import decimal
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

import trino

from floe_engine import FloeServer, Scorecard, Unsupported, same_rows
from pg_cdc import ORDERS_COLUMNS, PgSource, file_contents, orders_workload

D = decimal.Decimal


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class TrinoServer:
    """A single-node Trino (coordinator that also runs tasks) with one catalog, `iceberg`,
    on floe's REST endpoint. These are the settings docs/engines.md tells users to paste."""

    def __init__(self, tmp, floe):
        self.home = os.environ["FLOE_TRINO_HOME"]
        self.java = os.environ["FLOE_JAVA25"]
        self.dir = os.path.join(tmp, "trino")
        self.port = free_port()
        etc = os.path.join(self.dir, "etc")
        plugins = os.path.join(self.dir, "plugin")
        for d in (os.path.join(etc, "catalog"), plugins, os.path.join(self.dir, "data")):
            os.makedirs(d, exist_ok=True)
        os.symlink(os.path.join(self.home, "plugin", "iceberg"), os.path.join(plugins, "iceberg"))
        self._write(etc, "node.properties", ["node.environment=floe_test", "node.id=floe-trino-1",
                                             "node.data-dir=" + os.path.join(self.dir, "data")])
        self._write(etc, "jvm.config", ["-server", "-Xmx1500m", "-XX:+UseG1GC",
                                        "-XX:+ExitOnOutOfMemoryError", "-XX:TieredStopAtLevel=1",
                                        "-Djdk.attach.allowAttachSelf=true"])
        self._write(etc, "config.properties", [
            "coordinator=true", "node-scheduler.include-coordinator=true",
            "http-server.http.port=%d" % self.port, "discovery.uri=http://127.0.0.1:%d" % self.port,
            "plugin.dir=" + plugins, "query.max-memory=1GB", "query.max-memory-per-node=1GB"])
        self._write(os.path.join(etc, "catalog"), "iceberg.properties", [
            "connector.name=iceberg",
            "iceberg.catalog.type=rest",
            "iceberg.rest-catalog.uri=" + floe.rest_uri,
            "iceberg.rest-catalog.warehouse=" + floe.warehouse,
            "iceberg.rest-catalog.security=OAUTH2",
            "iceberg.rest-catalog.oauth2.credential=" + floe.credential,
            "iceberg.rest-catalog.oauth2.server-uri=" + floe.token_uri,
            "iceberg.rest-catalog.oauth2.scope=catalog",
            "fs.native-local.enabled=true",
            "local.location=/"])
        self.log = os.path.join(self.dir, "server.log")
        env = dict(os.environ, JAVA_HOME=self.java, PATH=os.path.join(self.java, "bin") + ":" + os.environ["PATH"])
        self.proc = subprocess.Popen([os.path.join(self.home, "bin", "launcher"), "run", "--etc-dir=" + etc,
                                      "--data-dir=" + os.path.join(self.dir, "data")],
                                     env=env, stdout=open(self.log, "ab"), stderr=subprocess.STDOUT)
        self.con = None

    @staticmethod
    def _write(d, name, lines):
        with open(os.path.join(d, name), "w") as f:
            f.write("\n".join(lines) + "\n")

    def wait_ready(self, probe, timeout=240):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("trino exited: " + open(self.log).read()[-3000:])
            try:
                with urllib.request.urlopen("http://127.0.0.1:%d/v1/info" % self.port, timeout=2) as r:
                    if not json.load(r).get("starting", True):
                        break
            except OSError:
                pass
            time.sleep(0.5)
        else:
            raise RuntimeError("trino did not start in %ds: %s" % (timeout, open(self.log).read()[-3000:]))
        self.con = trino.dbapi.connect(host="127.0.0.1", port=self.port, user="floe", catalog="iceberg",
                                       schema="fl")
        # started is not ready: until the node announces itself, scans of a table (unlike
        # system tables) fail with NO_NODES_AVAILABLE
        while True:
            try:
                return self.rows(probe)
            except trino.exceptions.TrinoQueryError as e:
                if e.error_name != "NO_NODES_AVAILABLE" or time.time() > deadline:
                    raise
                time.sleep(0.5)

    def rows(self, sql):
        cur = self.con.cursor()
        try:
            cur.execute(sql)
            return [tuple(r) for r in cur.fetchall()]
        finally:
            cur.close()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def tagged(sql_fmt, filters):
    """One query for many filters: SELECT <i>, ... WHERE f_i UNION ALL ..."""
    return " UNION ALL ".join(sql_fmt.format(tag=i, where=f) for i, f in enumerate(filters))


def floe_setup(floe):
    """floe's tables, written while Trino starts."""
    ex = floe.execute
    ex("CREATE SCHEMA fl")
    ex("CREATE TABLE fl.types (id int, big bigint, f real, d double precision, flag boolean, s varchar, "
       "amt decimal(10,2), wide decimal(38,6), day date, t time, ts timestamp, tstz timestamptz, bin bytea, "
       "u uuid, l int[])")
    ex("INSERT INTO fl.types VALUES "
       "(1, 9007199254740993, 1.5, -2.5e-300, true, 'ünï \"q\"', 12.34, -12345678901234567890123456789012.123456, "
       "DATE '2024-02-29', TIME '12:34:56.789012', TIMESTAMP '2024-01-02 03:04:05.678901', "
       "TIMESTAMPTZ '2024-01-02 03:04:05.000001+00', '\\x00ff'::bytea, '12345678-1234-5678-1234-567812345678', "
       "ARRAY[1, NULL, 3]), "
       "(2, -1, -0.0, 1e300, false, '', -0.01, 0, DATE '1969-12-31', TIME '00:00:00', TIMESTAMP '1900-01-01 00:00:00', "
       "TIMESTAMPTZ '1970-01-01 00:00:00+00', '\\x'::bytea, '00000000-0000-0000-0000-0000000000ff', ARRAY[]::int[]), "
       "(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)")
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
    # for Trino's optimize: small files and position deletes
    ex("CREATE TABLE fl.opt_t (id int, s varchar)")
    for i in range(4):
        ex("INSERT INTO fl.opt_t SELECT g, 'r' || g FROM generate_series(%d, %d) g" % (i * 25, i * 25 + 24))
    ex("DELETE FROM fl.opt_t WHERE id % 6 = 0")
    # for floe's optimize
    ex("CREATE TABLE fl.opt_f (id int, s varchar) WITH (format_version = 2)")
    for i in range(4):
        ex("INSERT INTO fl.opt_f SELECT g, 'f' || g FROM generate_series(%d, %d) g" % (i * 25, i * 25 + 24))
    ex("DELETE FROM fl.opt_f WHERE id % 5 = 0")
    ex("UPDATE fl.opt_f SET s = 'u' || s WHERE id < 30")
    ex("CREATE TABLE fl.evo (id int, day date, s varchar)")
    ex("INSERT INTO fl.evo SELECT g, DATE '2024-01-01' + g, 's' || g FROM generate_series(1, 20) g")
    ex("CREATE TABLE fl.inter (id bigint, who varchar)")


def main():
    t0 = time.time()
    # ctest's timeout sends SIGTERM: exit through the finally below, which stops Trino and floe
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    tmp = tempfile.mkdtemp(prefix="floe-trino.")
    os.makedirs(os.path.join(tmp, "wh"))
    # Trino's file systems need a scheme: the warehouse (and so every location floe writes) is file:///
    floe = FloeServer.start(tmp, warehouse="file://" + os.path.join(tmp, "wh"))
    card = Scorecard("trino")
    tr = TrinoServer(tmp, floe)
    try:
        floe_setup(floe)
        tr.wait_ready("SELECT count(*) FROM iceberg.fl.types")
        print("trino ready after %.0fs (floe's tables written meanwhile)" % (time.time() - t0), flush=True)
        scenarios(card, floe, tr, tmp)
    finally:
        tr.stop()
        floe.stop()
    print("wall time %.0fs" % (time.time() - t0))
    rc = card.finish()
    if rc == 0:  # a failure's files stay for a look
        shutil.rmtree(tmp, ignore_errors=True)
    return rc


def scenarios(card, floe, tr, tmp):
    ex = floe.execute

    def same(sql_floe, sql_trino=None, what=None):
        same_rows(floe.rows(sql_floe), tr.rows(sql_trino or sql_floe), what=what or sql_floe[:90])

    # ---------------- floe writes, Trino reads ----------------

    def listing():
        schemas = [r[0] for r in tr.rows("SHOW SCHEMAS")]
        assert "fl" in schemas, schemas
        same("SELECT table_name FROM information_schema.tables WHERE table_schema = 'fl'",
             "SELECT table_name FROM information_schema.tables WHERE table_schema = 'fl'")
    card.run("Trino lists floe's namespaces and tables", listing)

    def types():
        cols = "id, big, f, d, flag, s, amt, wide, day, t, ts, tstz, bin, CAST(u AS varchar)"
        same("SELECT %s FROM fl.types" % cols)
        # the int[] column against the values floe inserted (subscripts through element_at)
        got = tr.rows("SELECT id, l, cardinality(l), element_at(l, 1), element_at(l, 3) FROM fl.types")
        same_rows([(1, [1, None, 3], 3, 1, 3), (2, [], 0, None, None), (3, None, None, None, None)], got,
                  what="int[] column")
    card.run("Trino reads floe's types (ints, strings, decimals, dates, times, timestamps, booleans, binary, uuid, int[])",
             types)

    def partitioned():
        filters = ["true", "cat = 'a'", "id = 13",
                   "ts >= TIMESTAMP '2024-03-05 00:00:00 UTC' AND ts < TIMESTAMP '2024-03-07 00:00:00 UTC'",
                   "name = 'name7'", "name IS NULL"]
        q = "SELECT {tag} AS q, id, cat, ts, name, v FROM fl.part WHERE {where}"
        floe_filters = [f.replace("TIMESTAMP '2024-03-05 00:00:00 UTC'", "TIMESTAMPTZ '2024-03-05 00:00:00+00'")
                        .replace("TIMESTAMP '2024-03-07 00:00:00 UTC'", "TIMESTAMPTZ '2024-03-07 00:00:00+00'")
                        for f in filters]
        same(tagged(q, floe_filters), tagged(q, filters), what="fl.part with filters")
        assert len(floe.rows("SELECT id FROM fl.part")) == 60
    card.run("Trino reads floe's partitioned table (identity/bucket/day/truncate) with filters", partitioned)

    def deletes(version):
        t = "fl.del_v%d" % version
        try:
            same("SELECT id, cat, v FROM %s" % t)
        except trino.exceptions.TrinoQueryError as e:
            # Trino 476 reads no deletion vectors at all (v3 support came later), whoever wrote them
            if version == 3 and "PUFFIN" in (e.message or ""):
                raise Unsupported("reading deletion vectors: %s" % e.message)
            raise
        same("SELECT cat, count(*), sum(v) FROM %s GROUP BY cat" % t)
    card.run("Trino reads floe's DELETE/UPDATE/MERGE (v2 position deletes)", deletes, 2)
    card.run("Trino reads floe's DELETE/UPDATE/MERGE (v3 deletion vectors)", deletes, 3)

    def time_travel():
        snaps = floe.rows('SELECT snapshot_id FROM fl."del_v2$snapshots" ORDER BY committed_at')
        first, second = snaps[0][0], snaps[1][0]
        q = ("SELECT 1, id, v FROM fl.del_v2 FOR VERSION AS OF %d WHERE id < 30 UNION ALL "
             "SELECT 2, id, v FROM fl.del_v2 FOR VERSION AS OF %d WHERE id < 30" % (first, second))
        same(q)
    card.run("Trino time travel to floe's snapshots (FOR VERSION AS OF)", time_travel)

    def floe_optimize():
        before = floe.rows("SELECT id, s FROM fl.opt_f")
        files = floe.rows('SELECT content, count(*) FROM fl."opt_f$files" GROUP BY content')
        assert dict(files).get(1), "floe's DELETE wrote no position delete file: %r" % files
        ex("ALTER TABLE fl.opt_f EXECUTE optimize")
        after = floe.rows("SELECT id, s FROM fl.opt_f")
        same_rows(before, after, what="floe after its own optimize")
        files = floe.rows('SELECT content, count(*) FROM fl."opt_f$files" GROUP BY content')
        assert files == [(0, 1)], "after optimize: %r (the delete files of rewritten data files stay?)" % files
        same_rows(files, tr.rows('SELECT content, count(*) FROM fl."opt_f$files" GROUP BY content'),
                  what="Trino's $files after floe's optimize")
        same_rows(after, tr.rows("SELECT id, s FROM fl.opt_f"), what="Trino after floe's optimize")
    card.run("floe OPTIMIZE drops the delete files it applied; Trino reads the same rows and files", floe_optimize)

    def floe_partition_evolution():
        # what a Trino user types, on floe: Trino's SET PROPERTIES, then floe's SET (...)
        ex("ALTER TABLE fl.evo SET PROPERTIES partitioning = ARRAY['bucket(id, 4)']")
        ex("INSERT INTO fl.evo VALUES (0, DATE '2023-12-31', 's0')")
        ex("ALTER TABLE fl.evo SET (partitioning = ARRAY['bucket(id, 4)', 'month(day)'])")
        ex("INSERT INTO fl.evo SELECT g, DATE '2024-01-01' + g, 's' || g FROM generate_series(21, 60) g")
        ddl = tr.rows("SHOW CREATE TABLE fl.evo")[0][0]
        assert "partitioning = ARRAY['bucket(id, 4)','month(day)']" in ddl, ddl
        same("SELECT id, day, s FROM fl.evo")
        same(tagged("SELECT {tag}, id FROM fl.evo WHERE {where}",
                    ["day >= DATE '2024-02-01' AND day < DATE '2024-02-10'", "id = 33", "id IN (3, 40)"]))
        got = tr.rows('SELECT count(*) FROM fl."evo$partitions"')
        assert got[0][0] >= 2, got
    card.run("floe ALTER TABLE SET PROPERTIES / SET (partitioning = ARRAY[...]); Trino reads the new specs",
             floe_partition_evolution)

    def metadata_tables():
        # Trino's metadata tables on a floe table with deletes, against floe's own
        same('SELECT snapshot_id, parent_id, operation FROM fl."del_v2$snapshots"')
        same('SELECT snapshot_id, parent_id, is_current_ancestor FROM fl."del_v2$history"')
        same('SELECT name, type, snapshot_id FROM fl."del_v2$refs"')
        same('SELECT content, file_path, record_count, file_size_in_bytes FROM fl."del_v2$files"')
        # Trino's added_data_files_count counts the added files of delete manifests too; floe's
        # (Iceberg Java's ManifestsTable) splits data and delete files in two columns
        same('SELECT path, added_snapshot_id, added_data_files_count + added_delete_files_count FROM fl."del_v2$manifests"',
             'SELECT path, added_snapshot_id, added_data_files_count FROM fl."del_v2$manifests"')
    card.run("Trino's $snapshots/$history/$refs/$files/$manifests of a floe table agree with floe's", metadata_tables)

    def pg_cdc():
        with PgSource() as pg:
            want = orders_workload(floe, pg, "cdc")
            q = "SELECT %s FROM cdc.orders ORDER BY id" % ORDERS_COLUMNS
            same_rows(want, floe.rows(q), ordered=True, what="floe reads its replica")
            same_rows(want, tr.rows(q), ordered=True,
                      what="Trino reads floe's replica (equality deletes) as PostgreSQL's rows")
            same_rows(sorted(file_contents(floe, "cdc.orders").items()),
                      tr.rows('SELECT content, count(*) FROM cdc."orders$files" GROUP BY content ORDER BY content'),
                      ordered=True, what="Trino's $files (content 2: equality deletes)")
    card.run("Trino reads floe ingest postgres's replica (copy, then upserts, deletes, a key change as equality "
             "deletes) as PostgreSQL's rows", pg_cdc)

    def trino_dml_on_floe(version):
        t = "fl.del_v%d" % version
        try:
            tr.rows("DELETE FROM %s WHERE id %% 11 = 0" % t)
        except trino.exceptions.TrinoQueryError as e:
            if version == 3:  # Trino 476 writes no deletion vectors
                raise Unsupported("DELETE on a v3 table: %s" % e.message)
            raise
        tr.rows("UPDATE %s SET v = v + 1 WHERE cat = 'x' AND id < 100" % t)
        tr.rows("MERGE INTO %s t USING (VALUES (1, 111), (2000, 2000)) s(id, v) ON t.id = s.id "
                "WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT VALUES (s.id, 'w', s.v)" % t)
        same("SELECT id, cat, v FROM %s" % t)
        got = floe.rows("SELECT id FROM %s WHERE id %% 11 = 0 OR id %% 7 = 0" % t)
        assert got == [(14,)], got  # only 14, which floe's MERGE inserted again
    card.run("Trino DELETE/UPDATE/MERGE on floe's v2 table (over floe's own deletes); floe reads", trino_dml_on_floe, 2)
    card.run("Trino DELETE/UPDATE/MERGE on floe's v3 table (over floe's deletion vectors); floe reads",
             trino_dml_on_floe, 3)

    # ---------------- Trino writes, floe reads ----------------

    def trino_create():
        loc = "file://" + os.path.join(tmp, "wh", "placed_by_trino")
        tr.rows("CREATE SCHEMA tr WITH (location = '%s')" % loc)
        tr.rows("CREATE SCHEMA tr_default")  # no location: floe's default folder (returned over REST)
        got = floe.rows("SELECT schema_name FROM information_schema.schemata WHERE schema_name LIKE 'tr%'")
        same_rows([("tr",), ("tr_default",)], got, what="floe lists Trino's schemas")
        tr.rows("CREATE TABLE tr.t (id bigint, s varchar, amt decimal(12,2), d date, ts timestamp(6), "
                "tstz timestamp(6) with time zone, flag boolean, f real, x double, b varbinary)")
        tr.rows("INSERT INTO tr.t VALUES (1, 'a', 1.25, DATE '2024-01-01', TIMESTAMP '2024-01-01 01:02:03.456789', "
                "TIMESTAMP '2024-01-01 01:02:03.000001 UTC', true, 1.5, -2.5e-300, X'00ff'), "
                "(2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), "
                "(3, 'ünï', -99999999.99, DATE '1969-12-31', TIMESTAMP '1900-01-01 00:00:00', "
                "TIMESTAMP '2262-04-11 23:47:16.854775 UTC', false, -0.0, 1e300, X'')")
        cols = "id, s, amt, d, ts, tstz, flag, f, x, b"
        same("SELECT %s FROM tr.t" % cols)
        tr.rows("CREATE TABLE tr.ctas AS SELECT id, s, amt * 2 AS amt2 FROM tr.t WHERE id <> 2")
        tr.rows("CREATE TABLE tr_default.ctas AS SELECT id, upper(s) AS s FROM tr.t")
        same("SELECT id, s, amt2 FROM tr.ctas")
        same_rows([(1, D("2.50"), "a"), (3, D("-199999999.98"), "ünï")],
                  floe.rows("SELECT id, amt2, s FROM tr.ctas"), what="CTAS against the expected rows")
        same("SELECT id, s FROM tr_default.ctas")
        # the table went under the folder floe returned as tr_default's location
        ddl = tr.rows("SHOW CREATE TABLE tr_default.ctas")[0][0]
        assert "location = 'file://%s/wh/tr_default/ctas" % tmp in ddl, ddl
        # and floe puts its own new tables under the location Trino gave schema tr
        ex("CREATE TABLE tr.by_floe (id int)")
        ddl = tr.rows("SHOW CREATE TABLE tr.by_floe")[0][0]
        assert "location = '%s/by_floe'" % loc in ddl, ddl
    card.run("Trino CREATE SCHEMA (with/without location), CREATE TABLE, INSERT, CTAS; floe reads", trino_create)

    def trino_partitioned_dml():
        tr.rows("CREATE TABLE tr.p (id bigint, s varchar, amt decimal(12,2), d date) "
                "WITH (partitioning = ARRAY['bucket(id, 4)'])")
        tr.rows("INSERT INTO tr.p SELECT x, 's' || CAST(x AS varchar), CAST(x AS decimal(12,2)) / 4, "
                "DATE '2024-01-01' + x * INTERVAL '1' DAY FROM UNNEST(sequence(1, 60)) t(x)")
        model = {x: ["s%d" % x, D(x) / 4, datetime.date(2024, 1, 1) + datetime.timedelta(days=x)] for x in range(1, 61)}

        def check(what):
            same_rows([(k, *v) for k, v in model.items()], floe.rows("SELECT id, s, amt, d FROM tr.p"), what=what)

        check("floe reads Trino's bucketed insert")
        tr.rows("DELETE FROM tr.p WHERE id % 7 = 0")
        for k in [k for k in model if k % 7 == 0]:
            del model[k]
        check("floe reads Trino's DELETE")
        tr.rows("UPDATE tr.p SET s = 'upd', amt = amt + 1 WHERE id < 10")
        for k in model:
            if k < 10:
                model[k][0], model[k][1] = "upd", model[k][1] + 1
        check("floe reads Trino's UPDATE")
        tr.rows("MERGE INTO tr.p t USING (VALUES (3, 'm3'), (14, 'm14'), (100, 'm100')) s(id, s) ON t.id = s.id "
                "WHEN MATCHED AND t.id = 3 THEN DELETE WHEN MATCHED THEN UPDATE SET s = s.s "
                "WHEN NOT MATCHED THEN INSERT (id, s) VALUES (s.id, s.s)")
        del model[3]
        model[14] = ["m14", None, None] if 14 not in model else model[14]
        model[100] = ["m100", None, None]
        check("floe reads Trino's MERGE")
        files = tr.rows('SELECT content, count(*) FROM tr."p$files" GROUP BY content')
        assert dict(files).get(1), "Trino wrote no position delete files: %r" % files
        same('SELECT content, count(*), sum(record_count) FROM tr."p$files" GROUP BY content')
        same("SELECT id, s, amt, d FROM tr.p WHERE id BETWEEN 10 AND 20",
             "SELECT id, s, amt, d FROM tr.p WHERE id BETWEEN 10 AND 20")
    card.run("Trino bucket(id, 4) table, DELETE / UPDATE / MERGE (position deletes); floe reads", trino_partitioned_dml)

    def trino_add_column():
        tr.rows("ALTER TABLE tr.t ADD COLUMN extra varchar")
        tr.rows("INSERT INTO tr.t (id, s, extra) VALUES (4, 'd', 'new')")
        same("SELECT id, s, extra FROM tr.t")
        same_rows([(1, None), (2, None), (3, None), (4, "new")], floe.rows("SELECT id, extra FROM tr.t"),
                  what="added column")
        ex("INSERT INTO tr.t (id, extra) VALUES (5, 'from floe')")
        same_rows([(4, "new"), (5, "from floe")], tr.rows("SELECT id, extra FROM tr.t WHERE extra IS NOT NULL"),
                  what="Trino reads floe's row in the new column")
    card.run("Trino ALTER TABLE ADD COLUMN; floe reads and writes the new column", trino_add_column)

    def trino_nested():
        # Trino writes row/array/map columns (nested Parquet with Trino's field ids); floe reads them
        # through its own subscripts and field access, and appends rows Trino reads back
        tr.rows("CREATE TABLE tr.nest (id integer, r row(a integer, b varchar), l array(bigint), "
                "m map(varchar, integer), lr array(row(x double, y varchar)))")
        tr.rows("INSERT INTO tr.nest VALUES "
                "(1, ROW(7, 'x'), ARRAY[10, 20, NULL], MAP(ARRAY['k', 'j'], ARRAY[1, 2]), "
                "ARRAY[ROW(1.5, 'p'), ROW(-2.0, NULL)]), "
                "(2, NULL, ARRAY[], MAP(), NULL), "
                "(3, ROW(NULL, 'z'), NULL, NULL, ARRAY[])")
        want = [(1, 7, "x", 3, 10, None, 1, 2, 2, 2, 1.5, None),
                (2, None, None, 0, None, None, None, None, 0, None, None, None),
                (3, None, "z", None, None, None, None, None, None, 0, None, None)]
        same_rows(want, floe.rows("SELECT id, (r).a, (r).b, cardinality(l), l[1], l[3], m['k'], m['j'], "
                                  "cardinality(m), cardinality(lr), (lr[1]).x, (lr[2]).y FROM tr.nest"),
                  what="floe reads Trino's nested columns")
        same_rows(want, tr.rows("SELECT id, r.a, r.b, cardinality(l), element_at(l, 1), element_at(l, 3), "
                                "element_at(m, 'k'), element_at(m, 'j'), cardinality(m), cardinality(lr), "
                                "element_at(lr, 1).x, element_at(lr, 2).y FROM tr.nest"),
                  what="Trino's own answer")
        same_rows([(1,), (3,)], floe.rows("SELECT id FROM tr.nest WHERE (r).b IN ('x', 'z')"),
                  what="floe filters on a field of Trino's struct")
        ex("INSERT INTO tr.nest VALUES (4, ROW(8, 'w'), ARRAY[5], MAP(ARRAY['q'], ARRAY[9]), "
           "ARRAY[ROW(0.25, 'r')])")
        same_rows([(8, "w", 5, 9, 0.25, "r")],
                  tr.rows("SELECT r.a, r.b, element_at(l, 1), element_at(m, 'q'), element_at(lr, 1).x, "
                          "element_at(lr, 1).y FROM tr.nest WHERE id = 4"),
                  what="Trino reads floe's nested row in its table")
    card.run("Trino writes row/array/map columns; floe reads them (fields, subscripts, map keys) and appends",
             trino_nested)

    def interleaved():
        expected = []
        for i in range(3):
            ex("INSERT INTO fl.inter VALUES (%d, 'floe'), (%d, 'floe')" % (10 * i, 10 * i + 1))
            expected += [(10 * i, "floe"), (10 * i + 1, "floe")]
            same_rows(expected, tr.rows("SELECT id, who FROM fl.inter"), what="Trino sees floe's append %d" % i)
            tr.rows("INSERT INTO fl.inter VALUES (%d, 'trino')" % (10 * i + 5))
            expected.append((10 * i + 5, "trino"))
            same_rows(expected, floe.rows("SELECT id, who FROM fl.inter"), what="floe sees Trino's append %d" % i)
        same('SELECT snapshot_id, parent_id, operation FROM fl."inter$snapshots"')
        same('SELECT snapshot_id, parent_id, is_current_ancestor FROM fl."inter$history"')
        n = tr.rows('SELECT count(*) FROM fl."inter$snapshots"')[0][0]
        assert n == 6, n
    card.run("interleaved commits: floe and Trino append in turn; $snapshots and $history agree", interleaved)

    def trino_optimize():
        before = floe.rows("SELECT id, s FROM fl.opt_t")
        assert len(before) == 83, len(before)
        tr.rows("ALTER TABLE fl.opt_t EXECUTE optimize")
        same_rows(before, floe.rows("SELECT id, s FROM fl.opt_t"), what="floe after Trino's optimize")
        same('SELECT content, count(*), sum(record_count) FROM fl."opt_t$files" GROUP BY content')
        op = floe.rows('SELECT operation FROM fl."opt_t$snapshots" ORDER BY committed_at DESC LIMIT 1')
        assert op == [("replace",)], op
    card.run("Trino EXECUTE optimize on floe's table with deletes; floe reads the same rows", trino_optimize)

    def floe_analyze_trino_stats():
        # floe's ANALYZE (Puffin theta sketches, set-statistics): Trino's SHOW STATS has the NDV
        ex("CREATE TABLE fl.st (id bigint, s varchar, n int, l int[])")
        ex("INSERT INTO fl.st SELECT g, 'v' || (g % 40), g % 7, ARRAY[g] FROM generate_series(1, 3000) g")
        ex("ANALYZE fl.st")
        got = {r[0]: r[2] for r in tr.rows("SHOW STATS FOR fl.st") if r[0] in ("id", "s", "n")}
        assert got == {"id": 3000.0, "s": 40.0, "n": 7.0}, got
    card.run("floe ANALYZE; Trino SHOW STATS reads floe's NDV", floe_analyze_trino_stats)

    def trino_analyze_floe_plans():
        # Trino's ANALYZE (its statistics file, committed through floe serve): floe's join estimate uses it
        for t in ("sa", "sb"):
            ex("CREATE TABLE fl.%s (k varchar, v int)" % t)
            ex("INSERT INTO fl.%s SELECT 'k' || (g %% 10), g FROM generate_series(1, 1000) g" % t)
        q = "EXPLAIN SELECT count(*) FROM fl.sa JOIN fl.sb ON sa.k = sb.k"
        before = "\n".join(r[0] for r in floe.rows(q))
        assert "build=right  (est. rows=1000)" in before, before
        tr.rows("ANALYZE fl.sa")
        tr.rows("ANALYZE fl.sb")
        st = floe.rows('SELECT count(*) FROM fl."sa$snapshots"')
        assert st == [(1,)], st  # statistics are no snapshot
        after = "\n".join(r[0] for r in floe.rows(q))
        assert "build=right  (est. rows=100000)" in after, after
    card.run("Trino ANALYZE of floe's tables; floe's join estimate uses Trino's NDV", trino_analyze_floe_plans)


if __name__ == "__main__":
    sys.exit(main())
