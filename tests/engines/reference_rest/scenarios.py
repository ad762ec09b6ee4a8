"""floe as a client of Apache Iceberg's reference REST catalog server, with Spark on the same
server. Run by tests/engines/test_reference_rest.sh, which starts the server
(org.apache.iceberg.rest.RESTCatalogServer, iceberg-open-api 1.11.0 test-fixtures: JdbcCatalog on
SQLite, no authentication, a file:/// warehouse) and stops it on every exit.

floe is `floe sql --catalog http://127.0.0.1:PORT` (src/catalog/rest*.c), one process per
statement list, with no floe serve and no floe catalog of its own: everything it knows about
the tables comes from the reference server. Its answers are read as Parquet (`--format
parquet`), so every cell keeps its type (decimal, date, timestamptz) for the cell-by-cell
comparison with a Python model of the table and with Spark's rows.

  1. floe creates a namespace and a partitioned v2 table (identity, bucket, day), INSERTs (a
     generated batch, then literal rows with NULLs), reads back exactly, a filter on the
     partition columns too; the reference server's loadTable shows the spec and the snapshots.
  2. floe DELETEs and UPDATEs: position deletes on the v2 table, deletion vectors on a v3 table
     (and a MERGE there); reads back exactly; $files lists the delete files / DVs.
  3. Spark (catalog `ref` of type rest on the same server, no credentials, catalog cache off)
     reads floe's tables: rows equal to floe's cell by cell, and its files metadata table sees
     floe's delete files.
  4. Spark INSERTs into floe's table and CREATEs + INSERTs its own partitioned table; floe reads
     both exactly.
  5. floe's time travel (FOR VERSION AS OF every snapshot, FOR TIMESTAMP AS OF) and
     "t$snapshots" through the reference server: ids, parents and operations equal to the
     server's table metadata and to Spark's snapshots table; each snapshot's rows equal to the
     model's state after that commit, and Spark's VERSION AS OF agrees.
  6. A two-level namespace made by Spark (lvl1.lvl2): floe reads it, INSERTs, DELETEs and
     CTASes there, Spark reads floe's rows. The server's config sets namespace-separator to
     %2E (its Jetty answers 400 to the spec's %1F in a path): floe joins levels with it.
"""
import datetime
import decimal
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from floe_engine import Scorecard, same_rows

D = decimal.Decimal
FLOE_BIN = os.environ.get("FLOE_BIN", "floe")
URI = os.environ["FLOE_REFREST_URI"]
WAREHOUSE = os.environ["FLOE_REFREST_WAREHOUSE"]
TMP = os.environ["FLOE_REFREST_TMP"]
UTC = datetime.timezone.utc

COLS = "id, cat, amt, day, ts, name, v"


# ---------------------------------------------------------------- the reference server

def server_json(path):
    with urllib.request.urlopen(URI + path, timeout=10) as r:
        return json.loads(r.read().decode())


def wait_for_server():
    deadline = time.time() + 90
    pid = int(os.environ.get("FLOE_REFREST_PID", "0"))
    last = None
    while time.time() < deadline:
        try:
            return server_json("/v1/config")
        except (urllib.error.URLError, OSError, ValueError) as e:
            last = e
        if pid:
            try:
                os.kill(pid, 0)
            except OSError:
                break
        time.sleep(0.2)
    log = os.environ.get("FLOE_REFREST_LOG")
    tail = open(log, errors="replace").read()[-3000:] if log and os.path.exists(log) else ""
    raise RuntimeError("the reference REST server did not start (%s):\n%s" % (last, tail))


def table_metadata(ns, name):
    return server_json("/v1/namespaces/%s/tables/%s" % (ns, name))["metadata"]


# ---------------------------------------------------------------- floe, the client

def floe_sql(*stmts):
    """Runs statements with `floe sql` on the reference server; raises on any error."""
    args = [FLOE_BIN, "sql", "--catalog", URI, "-q"]
    for s in stmts:
        args += ["-c", s]
    out = subprocess.run(args, capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        raise AssertionError("floe sql failed (%d): %s\n%s%s" % (out.returncode, stmts, out.stdout, out.stderr))
    return out.stdout


_n = [0]


def floe_rows(sql):
    """floe's answer to one query, typed: written by floe as Parquet, read with pyarrow."""
    import pyarrow.parquet as pq
    _n[0] += 1
    path = os.path.join(TMP, "floe-out-%d.parquet" % _n[0])
    out = subprocess.run([FLOE_BIN, "sql", "--catalog", URI, "-q", "--format", "parquet", "-o", path, "-c", sql],
                         capture_output=True, text=True, timeout=300)
    if out.returncode != 0:
        raise AssertionError("floe sql failed (%d): %s\n%s%s" % (out.returncode, sql, out.stdout, out.stderr))
    t = pq.read_table(path)
    os.unlink(path)
    cols = t.column_names
    return [tuple(r[c] for c in cols) for r in t.to_pylist()]


def floe_snapshot_id(ns, name):
    return table_metadata(ns, name).get("current-snapshot-id")


# ---------------------------------------------------------------- the model

def gen_rows(lo, hi):
    """What floe's INSERT ... SELECT FROM generate_series(lo, hi) writes (see scenario 1)."""
    rows = []
    for g in range(lo, hi + 1):
        rows.append((g, "a" if g % 2 == 0 else "b", (D(g) * D("1.25")).quantize(D("0.01")),
                     datetime.date(2024, 1, 1) + datetime.timedelta(days=g),
                     datetime.datetime(2024, 3, 1, tzinfo=UTC) + datetime.timedelta(hours=7 * g),
                     None if g % 5 == 0 else "n%d" % g, g * 0.5))
    return rows


LITERAL_ROWS = [
    (100, "c", D("-0.01"), datetime.date(1969, 12, 31), datetime.datetime(1970, 1, 1, tzinfo=UTC), "ünï 'q'", -0.0),
    (101, None, None, None, None, None, None),
    (102, "c", D("99999999.99"), datetime.date(2024, 2, 29),
     datetime.datetime(2024, 2, 29, 23, 59, 59, 999999, tzinfo=UTC), "", 1e300),
]


def sql_lit(v):
    if v is None:
        return "NULL"
    if isinstance(v, str):
        return "'" + v.replace("'", "''") + "'"
    if isinstance(v, D):
        return "CAST(%s AS decimal(10,2))" % v
    if isinstance(v, datetime.datetime):
        return "TIMESTAMPTZ '%s+00'" % v.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
    if isinstance(v, datetime.date):
        return "DATE '%s'" % v.isoformat()
    if isinstance(v, float):
        return "CAST(%r AS double precision)" % v
    return str(v)


class World:
    def __init__(self):
        self.events = []      # the model of rr.events
        self.dv = []          # the model of rr.dv
        self.history = []     # (snapshot id of rr.events, model rows at it)
        self.spark = None

    def record(self):
        self.history.append((floe_snapshot_id("rr", "events"), list(self.events)))


# ---------------------------------------------------------------- scenarios

def s1_create_insert(w):
    floe_sql("CREATE SCHEMA rr",
             "CREATE TABLE rr.events (id bigint, cat varchar, amt decimal(10,2), day date, ts timestamptz, "
             "name varchar, v double precision) WITH (format_version = 2, "
             "partitioning = ARRAY['cat', 'bucket(4, id)', 'day(ts)'])")
    ns = server_json("/v1/namespaces")["namespaces"]
    assert ["rr"] in ns, "the reference server lists namespaces %r" % ns
    tables = server_json("/v1/namespaces/rr/tables")["identifiers"]
    assert {"namespace": ["rr"], "name": "events"} in tables, tables
    md = table_metadata("rr", "events")
    assert md["format-version"] == 2, md["format-version"]
    spec = [s for s in md["partition-specs"] if s["spec-id"] == md["default-spec-id"]][0]
    got = [f["transform"] for f in spec["fields"]]
    assert got == ["identity", "bucket[4]", "day"], "partition spec on the server: %r" % got

    floe_sql("INSERT INTO rr.events SELECT g, CASE WHEN g % 2 = 0 THEN 'a' ELSE 'b' END, g * 1.25, "
             "DATE '2024-01-01' + g, TIMESTAMPTZ '2024-03-01 00:00:00+00' + g * INTERVAL '7 hours', "
             "CASE WHEN g % 5 = 0 THEN NULL ELSE 'n' || g END, g * 0.5 FROM generate_series(1, 60) g")
    w.events = gen_rows(1, 60)
    w.record()
    floe_sql("INSERT INTO rr.events VALUES " + ", ".join("(%s)" % ", ".join(sql_lit(v) for v in r)
                                                          for r in LITERAL_ROWS))
    w.events += LITERAL_ROWS
    w.record()
    same_rows(w.events, floe_rows("SELECT %s FROM rr.events" % COLS), what="floe reads rr.events")
    cut = datetime.datetime(2024, 3, 5, tzinfo=UTC)
    same_rows([r for r in w.events if r[1] == "a" and r[4] is not None and r[4] < cut],
              floe_rows("SELECT %s FROM rr.events WHERE cat = 'a' AND ts < TIMESTAMPTZ '2024-03-05 00:00:00+00'"
                        % COLS), what="floe's partition filter")
    same_rows([(len(w.events), sum(r[2] for r in w.events if r[2] is not None))],
              floe_rows("SELECT count(*), sum(amt) FROM rr.events"), what="count and sum")
    md = table_metadata("rr", "events")
    assert len(md["snapshots"]) == 2, "server has %d snapshots" % len(md["snapshots"])
    summary = md["snapshots"][-1]["summary"]
    assert summary.get("total-records") == str(len(w.events)), summary


def s2_delete_update(w):
    floe_sql("DELETE FROM rr.events WHERE id % 7 = 0")
    w.events = [r for r in w.events if r[0] % 7 != 0]
    w.record()
    floe_sql("UPDATE rr.events SET v = -v, name = 'upd' WHERE id BETWEEN 10 AND 20 OR id = 101")
    w.events = [r[:5] + ("upd", -r[6] if r[6] is not None else None) if 10 <= r[0] <= 20 or r[0] == 101 else r
                for r in w.events]
    w.record()
    same_rows(w.events, floe_rows("SELECT %s FROM rr.events" % COLS), what="floe reads rr.events after DML")
    files = floe_rows('SELECT content, file_format FROM rr."events$files"')
    assert (1, "PARQUET") in files, "no position delete files in events$files: %r" % files
    summary = table_metadata("rr", "events")["snapshots"][-1]["summary"]
    assert int(summary.get("total-position-deletes", "0")) > 0, summary

    floe_sql("CREATE TABLE rr.dv (id int, s varchar, k bigint) WITH (format_version = 3, "
             "partitioning = ARRAY['bucket(4, id)'])",
             "INSERT INTO rr.dv SELECT g, 's' || g, g * 100 FROM generate_series(1, 200) g",
             "DELETE FROM rr.dv WHERE id % 5 = 0",
             "UPDATE rr.dv SET s = 'u' || id, k = -k WHERE id < 30",
             "MERGE INTO rr.dv t USING (VALUES (7, 7), (10, 10), (1000, 1000)) src(id, k) ON t.id = src.id "
             "WHEN MATCHED THEN UPDATE SET k = src.k WHEN NOT MATCHED THEN INSERT VALUES (src.id, 'm', src.k)")
    dv = {g: (g, "s%d" % g, g * 100) for g in range(1, 201) if g % 5 != 0}
    for g in list(dv):
        if g < 30:
            dv[g] = (g, "u%d" % g, -g * 100)
    for g, k in ((7, 7), (10, 10), (1000, 1000)):  # the MERGE: 10 was deleted, so it is inserted
        dv[g] = (g, dv[g][1], k) if g in dv else (g, "m", k)
    w.dv = sorted(dv.values())
    md = table_metadata("rr", "dv")
    assert md["format-version"] == 3, md["format-version"]
    same_rows(w.dv, floe_rows("SELECT id, s, k FROM rr.dv"), what="floe reads rr.dv (v3)")
    files = floe_rows('SELECT content, file_format FROM rr."dv$files"')
    assert (1, "PUFFIN") in files, "no deletion vectors in dv$files: %r" % files


def spark_session():
    from pyspark.sql import SparkSession
    jars_dir = os.environ["FLOE_SPARK_JARS"]
    jars = [os.path.join(jars_dir, f) for f in sorted(os.listdir(jars_dir)) if f.endswith(".jar")]
    c = "spark.sql.catalog.ref"
    spark = (SparkSession.builder.master("local[2]").appName("floe-reference-rest")
             .config("spark.driver.memory", "1g")
             .config("spark.driver.extraJavaOptions", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
             .config("spark.sql.shuffle.partitions", "2")
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.session.timeZone", "UTC")
             .config("spark.jars", ",".join(jars))
             .config("spark.sql.extensions", "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
             .config(c, "org.apache.iceberg.spark.SparkCatalog")
             .config(c + ".type", "rest")
             .config(c + ".uri", URI)
             .config(c + ".warehouse", WAREHOUSE)
             .config(c + ".io-impl", "org.apache.iceberg.hadoop.HadoopFileIO")
             .config(c + ".cache-enabled", "false")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def srows(w, sql):
    return [tuple(r) for r in w.spark.sql(sql).collect()]


def s3_spark_reads(w):
    w.spark = spark_session()
    floe_events = floe_rows("SELECT %s FROM rr.events" % COLS)
    same_rows(floe_events, srows(w, "SELECT %s FROM ref.rr.events" % COLS), what="Spark reads floe's rr.events")
    same_rows(w.events, floe_events, what="floe's rr.events against the model")
    same_rows(floe_rows("SELECT id, s, k FROM rr.dv"), srows(w, "SELECT id, s, k FROM ref.rr.dv"),
              what="Spark reads floe's rr.dv (DVs)")
    same_rows(floe_rows("SELECT %s FROM rr.events WHERE cat = 'b' AND id > 30" % COLS),
              srows(w, "SELECT %s FROM ref.rr.events WHERE cat = 'b' AND id > 30" % COLS),
              what="a filtered read")
    sp_del = srows(w, "SELECT content, count(*) FROM ref.rr.events.delete_files GROUP BY content")
    fl_del = floe_rows('SELECT content, count(*) FROM rr."events$files" WHERE content <> 0 GROUP BY content')
    same_rows(fl_del, sp_del, what="delete files: floe's events$files against Spark's delete_files")
    sp_fmt = srows(w, "SELECT DISTINCT file_format FROM ref.rr.dv.delete_files")
    assert sp_fmt == [("PUFFIN",)], "Spark sees delete files of rr.dv as %r" % sp_fmt


def s4_spark_writes(w):
    if w.spark is None:
        w.spark = spark_session()
    w.spark.sql("INSERT INTO ref.rr.events VALUES "
                "(500, 'a', 5.55, DATE '2025-01-01', TIMESTAMP '2025-01-01 12:34:56.789012', 'spark', 2.25), "
                "(501, 'd', NULL, DATE '2025-01-02', NULL, NULL, -1.0E10)")
    w.events += [(500, "a", D("5.55"), datetime.date(2025, 1, 1),
                  datetime.datetime(2025, 1, 1, 12, 34, 56, 789012, tzinfo=UTC), "spark", 2.25),
                 (501, "d", None, datetime.date(2025, 1, 2), None, None, -1e10)]
    w.record()
    same_rows(w.events, floe_rows("SELECT %s FROM rr.events" % COLS), what="floe reads Spark's INSERT")
    same_rows(srows(w, "SELECT %s FROM ref.rr.events" % COLS), floe_rows("SELECT %s FROM rr.events" % COLS),
              what="floe and Spark after Spark's INSERT")

    w.spark.sql("CREATE TABLE ref.rr.sp (id bigint, ts timestamp, s string, d decimal(12,3)) USING iceberg "
                "PARTITIONED BY (days(ts), bucket(3, id)) TBLPROPERTIES ('format-version' = '2')")
    w.spark.sql("INSERT INTO ref.rr.sp SELECT id, TIMESTAMP '2024-06-01 00:00:00' + make_interval(0, 0, 0, 0, "
                "CAST(id * 5 AS INT), 0, 0), CASE WHEN id % 4 = 0 THEN NULL ELSE concat('s', id) END, "
                "CAST(CAST(id AS DECIMAL(12,3)) / 8 AS DECIMAL(12,3)) FROM range(1, 41)")
    exp = [(i, datetime.datetime(2024, 6, 1, tzinfo=UTC) + datetime.timedelta(hours=5 * i),
            None if i % 4 == 0 else "s%d" % i, (D(i) / D(8)).quantize(D("0.001"))) for i in range(1, 41)]
    same_rows(exp, floe_rows("SELECT id, ts, s, d FROM rr.sp"), what="floe reads Spark's rr.sp")
    same_rows(srows(w, "SELECT id, ts, s, d FROM ref.rr.sp"), floe_rows("SELECT id, ts, s, d FROM rr.sp"),
              what="floe and Spark on rr.sp")


def s5_time_travel(w):
    md = table_metadata("rr", "events")
    server = [(s["snapshot-id"], s.get("parent-snapshot-id"), s["summary"]["operation"]) for s in md["snapshots"]]
    fl = floe_rows('SELECT snapshot_id, parent_id, operation FROM rr."events$snapshots"')
    same_rows(server, fl, what="floe's events$snapshots against the server's metadata")
    if w.spark is not None:
        same_rows(server, srows(w, "SELECT snapshot_id, parent_id, operation FROM ref.rr.events.snapshots"),
                  what="Spark's snapshots table")
    ids = [h[0] for h in w.history]
    assert ids == [s[0] for s in server], "snapshots recorded %r, server has %r" % (ids, server)
    assert md["current-snapshot-id"] == ids[-1]
    for sid, rows in w.history:
        same_rows(rows, floe_rows("SELECT %s FROM rr.events FOR VERSION AS OF %d" % (COLS, sid)),
                  what="floe FOR VERSION AS OF %d" % sid)
    # FOR TIMESTAMP AS OF: each snapshot's commit time (timestamp-ms) selects that snapshot
    for s in md["snapshots"]:
        rows = dict(w.history)[s["snapshot-id"]]
        at = datetime.datetime.fromtimestamp(s["timestamp-ms"] / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
        same_rows(rows, floe_rows("SELECT %s FROM rr.events FOR TIMESTAMP AS OF TIMESTAMPTZ '%s+00'" % (COLS, at)),
                  what="floe FOR TIMESTAMP AS OF %s" % at)
    if w.spark is not None:
        first, before_dml = w.history[0], w.history[1]
        same_rows(first[1], srows(w, "SELECT %s FROM ref.rr.events VERSION AS OF %d" % (COLS, first[0])),
                  what="Spark VERSION AS OF floe's first snapshot")
        same_rows(before_dml[1], srows(w, "SELECT %s FROM ref.rr.events VERSION AS OF %d" % (COLS, before_dml[0])),
                  what="Spark VERSION AS OF floe's second snapshot")


def s6_nested_namespace(w):
    """A two-level namespace: the reference server's config says namespace-separator %2E (its
    Jetty refuses the spec's %1F in a path with 400 "Suspicious Path Character"), so floe must
    join the levels as the config says."""
    if w.spark is None:
        w.spark = spark_session()
    w.spark.sql("CREATE NAMESPACE ref.lvl1")
    w.spark.sql("CREATE NAMESPACE ref.lvl1.lvl2")
    w.spark.sql("CREATE TABLE ref.lvl1.lvl2.nt (id bigint, s string) USING iceberg PARTITIONED BY (bucket(2, id)) "
                "TBLPROPERTIES ('format-version' = '2')")
    w.spark.sql("INSERT INTO ref.lvl1.lvl2.nt VALUES (1, 'one'), (2, 'two'), (3, NULL)")
    model = [(1, "one"), (2, "two"), (3, None)]
    same_rows(model, floe_rows("SELECT id, s FROM lvl1.lvl2.nt"), what="floe reads Spark's lvl1.lvl2.nt")
    schemas = [r[0] for r in floe_rows("SHOW SCHEMAS")]
    assert "lvl1.lvl2" in schemas and "rr" in schemas, "floe's SHOW SCHEMAS: %r" % schemas
    floe_sql("INSERT INTO lvl1.lvl2.nt VALUES (10, 'floe')", "DELETE FROM lvl1.lvl2.nt WHERE id = 1",
             "CREATE TABLE lvl1.lvl2.ft AS SELECT id * 2 AS id2, s FROM lvl1.lvl2.nt")
    model = [(2, "two"), (3, None), (10, "floe")]
    same_rows(model, floe_rows("SELECT id, s FROM lvl1.lvl2.nt"), what="floe after its DML on lvl1.lvl2.nt")
    same_rows(model, srows(w, "SELECT id, s FROM ref.lvl1.lvl2.nt"), what="Spark reads floe's DML on lvl1.lvl2.nt")
    same_rows([(2 * i, x) for i, x in model], srows(w, "SELECT id2, s FROM ref.lvl1.lvl2.ft"),
              what="Spark reads floe's CTAS lvl1.lvl2.ft")
    tables = server_json("/v1/namespaces/lvl1%2Elvl2/tables")["identifiers"]
    assert sorted(t["name"] for t in tables) == ["ft", "nt"], tables


def main():
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    t0 = time.time()
    card = Scorecard("reference-rest")
    w = World()
    try:
        cfg = wait_for_server()
        print("reference REST server at %s (config %s) after %.1fs" % (URI, json.dumps(cfg.get("overrides")),
                                                                        time.time() - t0), flush=True)
        card.run("floe creates a namespace and a partitioned table, INSERTs, reads exactly", s1_create_insert, w)
        card.run("floe DELETE / UPDATE / MERGE (position deletes, DVs), reads exactly", s2_delete_update, w)
        card.run("Spark reads floe's tables cell by cell", s3_spark_reads, w)
        card.run("Spark INSERTs and creates a table, floe reads exactly", s4_spark_writes, w)
        card.run("floe time travel and $snapshots through the reference server", s5_time_travel, w)
        card.run("a two-level namespace (the server's namespace-separator) both ways", s6_nested_namespace, w)
    except Exception as e:
        card.failed.append(("setup", e))
        print("FAIL setup: %s" % e, flush=True)
    finally:
        if w.spark is not None:
            try:
                w.spark.stop()
            except Exception:
                pass
    print("elapsed %.0fs" % (time.time() - t0))
    sys.exit(card.finish())


if __name__ == "__main__":
    main()
