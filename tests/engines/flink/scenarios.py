"""Flink (PyFlink 2.1 + iceberg-flink-runtime 1.11) against floe serve: a smoke test, both
directions, rows compared cell by cell with floe's own answers (floe.rows over pgwire). Run by
tests/engines/test_flink.sh.

One TableEnvironment per mode in one Python process (PyFlink starts one JVM; jobs run on an
in-process mini-cluster, parallelism 1). The jars of tests/engines/jvm/flink.pom are handed over
as pipeline.jars (local files), Hadoop's client jars as HADOOP_CLASSPATH. Catalog `floe` is Iceberg's FlinkCatalog of catalog-type rest on
floe's endpoint with OAuth2 client credentials, the warehouse a file:/// URI.

floe writes, Flink reads (batch): a table with deletes (v2 position deletes).
Flink writes, floe reads: a batch INSERT; a streaming job with checkpoints (the Iceberg sink
commits on each checkpoint, the last one when the bounded source ends) appending, and upserting
into a table with a primary key (Flink writes equality deletes), which floe reads exactly.
"""
import os
import shutil
import signal
import sys
import tempfile
import time

from floe_engine import FloeServer, Scorecard, same_rows


def catalog_ddl(floe):
    """The settings docs/engines.md tells users to paste."""
    return ("CREATE CATALOG floe WITH ('type'='iceberg', 'catalog-type'='rest', 'uri'='%s', "
            "'warehouse'='%s', 'credential'='%s', 'oauth2-server-uri'='%s', 'scope'='catalog', "
            "'io-impl'='org.apache.iceberg.hadoop.HadoopFileIO')"
            % (floe.rest_uri, floe.warehouse, floe.credential, floe.token_uri))


def table_env(streaming, jars, floe):
    from pyflink.table import EnvironmentSettings, TableEnvironment
    settings = (EnvironmentSettings.in_streaming_mode() if streaming
                else EnvironmentSettings.in_batch_mode())
    env = TableEnvironment.create(settings)
    conf = env.get_config()
    conf.set("pipeline.jars", ";".join("file://" + j for j in jars))
    conf.set("parallelism.default", "1")
    conf.set("table.local-time-zone", "UTC")
    if streaming:
        conf.set("execution.checkpointing.interval", "1 s")
    env.execute_sql(catalog_ddl(floe)).wait()
    return env


def rows(env, sql):
    with env.execute_sql(sql).collect() as it:
        return [tuple(r) for r in it]


def main():
    t0 = time.time()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    d = os.environ["FLOE_FLINK_JARS"]
    jars = [os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith(".jar")]
    # The catalog is made in PyFlink's own JVM (the gateway), whose classpath pipeline.jars does
    # not reach: Hadoop goes there the way Flink documents it, through HADOOP_CLASSPATH.
    hadoop = [j for j in jars if os.path.basename(j).startswith("hadoop-client-")]
    os.environ["HADOOP_CLASSPATH"] = os.pathsep.join(hadoop)
    jars = [j for j in jars if j not in hadoop]
    tmp = tempfile.mkdtemp(prefix="floe-flink.")
    os.makedirs(os.path.join(tmp, "wh"))
    floe = FloeServer.start(tmp, warehouse="file://" + os.path.join(tmp, "wh"))
    card = Scorecard("flink")
    try:
        scenarios(card, floe, jars)
    finally:
        floe.stop()
    print("wall time %.0fs" % (time.time() - t0))
    rc = card.finish()
    if rc == 0:
        shutil.rmtree(tmp, ignore_errors=True)
    return rc


def scenarios(card, floe, jars):
    ex = floe.execute
    ex("CREATE SCHEMA fk")
    ex("CREATE TABLE fk.src (id bigint, s varchar, v double precision) WITH (format_version = 2)")
    ex("INSERT INTO fk.src SELECT g, 's' || g, g * 0.5 FROM generate_series(1, 50) g")
    ex("DELETE FROM fk.src WHERE id % 7 = 0")
    batch = table_env(False, jars, floe)

    def flink_reads():
        same_rows(floe.rows("SELECT id, s, v FROM fk.src"), rows(batch, "SELECT id, s, v FROM floe.fk.src"),
                  what="Flink reads floe's table with position deletes")
        same_rows(floe.rows("SELECT id, s FROM fk.src WHERE id > 40"),
                  rows(batch, "SELECT id, s FROM floe.fk.src WHERE id > 40"), what="with a filter")
    card.run("Flink (batch) reads floe's v2 table with position deletes", flink_reads)

    def flink_batch_insert():
        batch.execute_sql("CREATE TABLE floe.fk.b (id BIGINT, s STRING)").wait()
        batch.execute_sql("INSERT INTO floe.fk.b VALUES (1, 'a'), (2, CAST(NULL AS STRING)), (3, 'c')").wait()
        same_rows([(1, "a"), (2, None), (3, "c")], floe.rows("SELECT id, s FROM fk.b"), what="floe reads Flink's insert")
        ex("INSERT INTO fk.b VALUES (4, 'floe')")
        same_rows(floe.rows("SELECT id, s FROM fk.b"), rows(batch, "SELECT id, s FROM floe.fk.b"),
                  what="Flink reads floe's append")
    card.run("Flink batch INSERT; floe reads; Flink reads floe's append", flink_batch_insert)

    stream = table_env(True, jars, floe)

    def streaming_append():
        stream.execute_sql("CREATE TABLE floe.fk.st (id BIGINT, s STRING)").wait()
        stream.execute_sql("INSERT INTO floe.fk.st SELECT CAST(id AS BIGINT), CONCAT('r', CAST(id AS STRING)) "
                           "FROM (VALUES (1), (2), (3), (4), (5)) AS t(id)").wait()
        same_rows([(i, "r%d" % i) for i in range(1, 6)], floe.rows("SELECT id, s FROM fk.st"),
                  what="floe reads the streaming job's committed rows")
        n = floe.rows('SELECT count(*) FROM fk."st$snapshots"')[0][0]
        assert n >= 1, n
    card.run("Flink streaming job with checkpoints appends; floe reads the committed rows", streaming_append)

    def streaming_upsert():
        stream.execute_sql("CREATE TABLE floe.fk.up (id BIGINT, s STRING, PRIMARY KEY (id) NOT ENFORCED) "
                           "WITH ('format-version'='2', 'write.upsert.enabled'='true')").wait()
        stream.execute_sql("INSERT INTO floe.fk.up VALUES (1, 'a'), (2, 'b'), (3, 'c')").wait()
        stream.execute_sql("INSERT INTO floe.fk.up VALUES (2, 'B'), (4, 'd')").wait()
        same_rows([(1, "a"), (2, "B"), (3, "c"), (4, "d")], floe.rows("SELECT id, s FROM fk.up"),
                  what="floe reads Flink's upserts")
        files = dict(floe.rows('SELECT content, count(*) FROM fk."up$files" GROUP BY content'))
        assert files.get(2), "Flink wrote no equality delete files: %r" % files
        same_rows(floe.rows("SELECT id, s FROM fk.up"), rows(batch, "SELECT id, s FROM floe.fk.up"),
                  what="Flink (batch) reads the same rows")
    card.run("Flink streaming upsert (equality deletes) into a primary-key table; floe reads exactly",
             streaming_upsert)


if __name__ == "__main__":
    sys.exit(main())
