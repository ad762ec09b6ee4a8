"""A throwaway PostgreSQL source and `floe ingest postgres` into the catalog of a harness's
floe serve, shared by the engines' CDC scenarios (spark, trino, pyiceberg).

    with PgSource() as pg:                       # wal_level=logical, stopped even on failure
        want = orders_workload(floe, pg, "cdc")  # copy, then updates/deletes/key change/re-inserts
        same_rows(want, engine_rows("SELECT ... FROM cdc.orders ORDER BY id"), ordered=True)

The server is tests/interop/oracle/pg-tmp-server.sh (run as the postgres OS user when root),
as in tests/interop/test_pg_cdc_pipeline.sh. The pipeline runs with --catalog/--warehouse of
the served catalog (floe.env), so the engine reads its tables through floe serve. Missing
server binaries are a failure with the reason: scripts/install-deps.sh installs postgresql.
"""
import glob
import json
import os
import random
import shutil
import subprocess
import tempfile

from floe_engine import FLOE_BIN

HERE = os.path.dirname(os.path.abspath(__file__))
PG_TMP_SERVER = os.path.join(HERE, "..", "..", "interop", "oracle", "pg-tmp-server.sh")


class PgSource:
    """A PostgreSQL cluster in its own folder (readable by the postgres OS user), with
    wal_level=logical, on a free port of 56000-59999; psycopg2 in autocommit."""

    def __init__(self):
        if not glob.glob("/usr/lib/postgresql/*/bin"):
            raise RuntimeError("PostgreSQL server binaries missing (/usr/lib/postgresql/*/bin): "
                               "apt-get install postgresql (scripts/install-deps.sh)")
        if os.getuid() == 0 and subprocess.run(["id", "postgres"], capture_output=True).returncode != 0:
            raise RuntimeError("no 'postgres' OS user to run PostgreSQL as")
        self.dir = tempfile.mkdtemp(prefix="floe-pgsrc.")
        os.chmod(self.dir, 0o755)
        self.data = os.path.join(self.dir, "data")
        self.url = None
        self._con = None

    def __enter__(self):
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc):
        self.stop()

    def _srv(self, *args):
        return subprocess.run(["sh", PG_TMP_SERVER, *args], capture_output=True, text=True)

    def start(self):
        port = None
        for _ in range(5):  # initdb once, then a free port
            port = str(random.randrange(56000, 60000))
            if self._srv("start", self.data, port).returncode == 0:
                break
            port = None
        if port is None:
            log = self.data + ".initdb.log"
            raise RuntimeError("could not start PostgreSQL: %s" % (open(log).read()[-1000:] if os.path.exists(log) else ""))
        self._srv("stop", self.data)
        with open(os.path.join(self.data, "postgresql.conf"), "a") as f:
            f.write("\nwal_level = logical\nmax_replication_slots = 8\nmax_wal_senders = 8\n")
        out = self._srv("start", self.data, port)
        if out.returncode != 0:
            log = os.path.join(self.data, "server.log")
            raise RuntimeError("PostgreSQL restart with wal_level=logical failed: %s%s"
                               % (out.stderr, open(log).read()[-1000:] if os.path.exists(log) else ""))
        self.url = out.stdout.strip()
        import psycopg2
        self._con = psycopg2.connect(self.url)
        self._con.autocommit = True

    def execute(self, sql):
        cur = self._con.cursor()
        try:
            cur.execute(sql)
        finally:
            cur.close()

    def rows(self, sql):
        cur = self._con.cursor()
        try:
            cur.execute(sql)
            return [tuple(r) for r in cur.fetchall()]
        finally:
            cur.close()

    def stop(self):
        if self._con is not None:
            try:
                self._con.close()
            except Exception:
                pass
            self._con = None
        if os.path.exists(os.path.join(self.data, "postmaster.pid")):
            self._srv("stop", self.data)
        shutil.rmtree(self.dir, ignore_errors=True)
        try:
            os.unlink(self.data + ".initdb.log")
        except OSError:
            pass


def ingest(floe, pg, namespace, slot="floe_s", publication="floe_pub"):
    """One run of the pipeline into floe serve's catalog and warehouse: copies on the first
    run, applies the slot's changes on later ones, exits 2 s after the last transaction."""
    args = [FLOE_BIN, "ingest", "postgres", "--dsn", pg.url, "--slot", slot, "--publication", publication,
            "--namespace", namespace, "--checkpoint-interval", "1s", "--once-idle", "2s",
            "--catalog", floe.env["FLOE_CATALOG"], "--warehouse", floe.env["FLOE_WAREHOUSE"]]
    out = subprocess.run(args, env=floe.env, capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        raise RuntimeError("floe ingest postgres failed (%d): %s%s" % (out.returncode, out.stdout, out.stderr[-2000:]))
    return out.stderr


def file_contents(floe, table):
    """{content: count} of the table's live files, from `floe table files NS.T --format jsonl`
    (0 data, 1 position deletes, 2 equality deletes)."""
    counts = {}
    for line in floe.cli("table", "files", table, "--format", "jsonl").splitlines():
        if line.strip():
            c = json.loads(line)["content"]
            counts[c] = counts.get(c, 0) + 1
    return counts


ORDERS_COLUMNS = "id, customer, qty, price, placed, seen, paid, note"


def orders_workload(floe, pg, namespace):
    """PostgreSQL table `orders` (primary key id) replicated into NAMESPACE.orders: the copy,
    then updates, deletes, a key-changing update, re-inserts of deleted keys (one in the same
    transaction as its delete) and a value set to NULL, applied by a second run as equality
    deletes. Returns PostgreSQL's rows (ORDERS_COLUMNS, ORDER BY id) after the second run."""
    pg.execute("CREATE TABLE orders (id int PRIMARY KEY, customer text NOT NULL, qty int, price numeric(10,2), "
               "placed date, seen timestamptz, paid boolean, note text)")
    pg.execute("INSERT INTO orders SELECT g, 'c' || (g % 17), g % 9, g * 1.25, DATE '2024-01-01' + g, "
               "TIMESTAMPTZ '2024-01-01 00:00:00.123456+00' + g * INTERVAL '77 minutes', g % 2 = 0, "
               "CASE WHEN g % 5 = 0 THEN NULL ELSE 'n' || g END FROM generate_series(1, 200) g")
    pg.execute("CREATE PUBLICATION floe_pub FOR TABLE orders")
    ingest(floe, pg, namespace)
    t = "%s.orders" % namespace
    got = floe.rows("SELECT count(*) FROM " + t)
    assert got == [(200,)], "the copy: %r rows in %s" % (got, t)
    files = file_contents(floe, t)
    assert not files.get(2), "equality deletes after the copy alone: %r" % files
    pg.execute("UPDATE orders SET qty = qty + 100, note = 'upd' WHERE id % 10 = 0")
    pg.execute("DELETE FROM orders WHERE id BETWEEN 50 AND 69")
    pg.execute("UPDATE orders SET id = 1000 + id WHERE id IN (3, 4)")  # key changes
    pg.execute("BEGIN; DELETE FROM orders WHERE id = 7; "
               "INSERT INTO orders (id, customer, qty) VALUES (7, 'again', 70); COMMIT")
    pg.execute("INSERT INTO orders VALUES (55, 'back', 1, 0.01, DATE '1999-12-31', "
               "TIMESTAMPTZ '1969-12-31 23:59:59.999999+00', NULL, 'back')")  # a deleted key re-inserted
    pg.execute("INSERT INTO orders (id, customer) VALUES (3, 'new 3')")  # the old key of a key change
    pg.execute("UPDATE orders SET price = NULL, seen = NULL, note = NULL WHERE id = 1")
    pg.execute("BEGIN; INSERT INTO orders (id, customer) VALUES (9000, 'tmp'); "
               "UPDATE orders SET customer = 'tmp2' WHERE id = 9000; DELETE FROM orders WHERE id = 9000; COMMIT")
    ingest(floe, pg, namespace)
    files = file_contents(floe, t)
    assert files.get(2), "no equality delete files in %s after the changes: %r" % (t, files)
    want = pg.rows("SELECT %s FROM orders ORDER BY id" % ORDERS_COLUMNS)
    assert len(want) == 200 - 20 + 1 + 1, len(want)
    return want
