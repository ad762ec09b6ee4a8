"""JdbcCatalog scenarios (tests/engines/test_jdbc_catalog.sh).

For each catalog database floe serve can use (SQLite, PostgreSQL), with floe serving it:
  1. floe creates a namespace and a table, inserts, deletes a row (a delete file); Java's
     JdbcCatalog lists the table and reads exactly floe's rows (deletes applied);
  2. Java creates a table and commits a Parquet data file; floe reads exactly those rows;
  3. Java evolves the schema (adds a column) and commits more rows; floe reads them, the new
     column NULL in the old rows;
  4. floe inserts, updates and deletes in Java's table; Java reads exactly floe's answer;
  5. floe commits again after Java's commits (its catalog row moved under it) and Java sees
     the whole history: the snapshot count floe reports grew by each side's commits.
"""
import datetime
import decimal
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from floe_engine import FloeServer, Scorecard, same_rows  # noqa: E402

CLASSPATH = os.environ["JDBC_CLASSPATH"]
PG_URL = os.environ.get("PG_URL", "")
TMP = os.environ.get("JDBC_TMP") or tempfile.mkdtemp()
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)


def canon(v):
    """floe's value in JdbcCatalogCheck's printed form."""
    if v is None or isinstance(v, (int, str)) and not isinstance(v, bool):
        return v
    if isinstance(v, decimal.Decimal):
        return "dec:" + format(v, "f")
    if isinstance(v, datetime.datetime):
        d = v - EPOCH
        return "tstz:%d" % (d.days * 86400 * 10**6 + d.seconds * 10**6 + d.microseconds)
    if isinstance(v, datetime.date):
        return "date:" + v.isoformat()
    return repr(v)


class Java:
    def __init__(self, jdbc_url, warehouse, user=None):
        self.jdbc_url = jdbc_url
        self.warehouse = warehouse
        self.env = dict(os.environ)
        if user:
            self.env["JDBC_USER"] = user
            self.env["JDBC_PASSWORD"] = ""

    def run(self, *args):
        out = subprocess.run(["java", "-cp", CLASSPATH, "JdbcCatalogCheck", self.jdbc_url, self.warehouse,
                              *args], env=self.env, capture_output=True, text=True, timeout=300)
        if out.returncode != 0:
            raise AssertionError("java %s failed: %s" % (" ".join(args), (out.stderr or out.stdout)[-1500:]))
        return out.stdout

    def rows(self, table):
        return [tuple(json.loads(l)) for l in self.run("read", table).splitlines() if l.strip()]


def floe_rows(floe, table, cols="id, name, amount, day, ts"):
    return [tuple(canon(v) for v in r) for r in floe.rows("SELECT %s FROM %s" % (cols, table))]


def java_expected(ids, note=False):
    rows = []
    for i in ids:
        r = [i, "n%d" % i, "dec:%d.25" % i, "date:" + (datetime.date(2026, 1, 1) + datetime.timedelta(days=i % 28)).isoformat(),
             canon(datetime.datetime(2026, 1, 1, 12, i % 60, tzinfo=datetime.timezone.utc))]
        if note is not None:
            r.append(("j%d" % i) if note else None)
        rows.append(tuple(r))
    return rows


def scenarios(card, label, floe, java):
    def floe_table_to_java():
        floe.execute("CREATE SCHEMA jdbc")
        floe.execute("CREATE TABLE jdbc.floe_t (id BIGINT, name VARCHAR, amount DECIMAL(10,2), day DATE, "
                     "ts TIMESTAMPTZ)")
        floe.execute("INSERT INTO jdbc.floe_t SELECT i, 'f' || i, CAST(i AS DECIMAL(10,2)) / 4, "
                     "DATE '2026-02-01' + CAST(i AS INTEGER), TIMESTAMPTZ '2026-02-01 00:00:00+00' "
                     "+ i * INTERVAL '1 hour' FROM generate_series(1, 40) AS g(i)")
        floe.execute("DELETE FROM jdbc.floe_t WHERE id % 7 = 0")
        listed = java.run("tables", "jdbc").split()
        assert "jdbc.floe_t" in listed, listed
        same_rows(floe_rows(floe, "jdbc.floe_t"), java.rows("jdbc.floe_t"), what="Java reads floe's table")
        assert len(java.rows("jdbc.floe_t")) == 35

    def java_table_to_floe():
        java.run("create", "jdbc.java_t")
        java.run("append", "jdbc.java_t", "1", "10")
        same_rows([r[:5] for r in java_expected(range(1, 11))], floe_rows(floe, "jdbc.java_t"),
                  what="floe reads Java's commit")

    def java_evolves():
        java.run("add-column", "jdbc.java_t", "note")
        java.run("append-note", "jdbc.java_t", "11", "15")
        exp = java_expected(range(1, 11), note=False) + java_expected(range(11, 16), note=True)
        same_rows(exp, floe_rows(floe, "jdbc.java_t", "id, name, amount, day, ts, note"),
                  what="floe reads Java's evolved table")

    def floe_writes_java_reads():
        floe.execute("INSERT INTO jdbc.java_t VALUES (100, 'floe', 1.50, DATE '2026-03-01', "
                     "TIMESTAMPTZ '2026-03-01 08:00:00+00', 'from floe')")
        floe.execute("UPDATE jdbc.java_t SET note = 'updated' WHERE id = 3")
        floe.execute("DELETE FROM jdbc.java_t WHERE id IN (5, 12)")
        same_rows(floe_rows(floe, "jdbc.java_t", "id, name, amount, day, ts, note"), java.rows("jdbc.java_t"),
                  what="Java reads floe's insert, update and delete")
        ids = sorted(r[0] for r in java.rows("jdbc.java_t"))
        assert ids == [i for i in range(1, 16) if i not in (5, 12)] + [100], ids

    def both_histories():
        snaps = 'SELECT count(*) FROM jdbc."java_t$snapshots"'
        before = floe.rows(snaps)[0][0]
        java.run("append-note", "jdbc.java_t", "20", "21")
        floe.execute("INSERT INTO jdbc.java_t (id, name) VALUES (30, 'after java')")
        java.run("append-note", "jdbc.java_t", "22", "22")
        same_rows(floe_rows(floe, "jdbc.java_t", "id, name, amount, day, ts, note"), java.rows("jdbc.java_t"),
                  what="after interleaved commits")
        after = floe.rows(snaps)[0][0]
        assert after == before + 3, "snapshots before %d, after %d: expected 3 more" % (before, after)

    card.run("%s: Java lists and reads floe's table (with deletes)" % label, floe_table_to_java)
    card.run("%s: floe reads Java's create and append" % label, java_table_to_floe)
    card.run("%s: floe reads Java's schema evolution" % label, java_evolves)
    card.run("%s: Java reads floe's insert, update, delete" % label, floe_writes_java_reads)
    card.run("%s: interleaved commits from both sides" % label, both_histories)


card = Scorecard("jdbc-catalog")
# SQLite: floe serve on tmp/sqlite/catalog.db, Java opens the same file
d = os.path.join(TMP, "sqlite")
os.makedirs(d, exist_ok=True)
floe = FloeServer.start(d)
try:
    scenarios(card, "sqlite", floe, Java("jdbc:sqlite:" + os.path.join(d, "catalog.db"), floe.warehouse))
finally:
    floe.stop()

# PostgreSQL: floe serve on a throwaway server's database, Java through pgJDBC
if PG_URL:
    d = os.path.join(TMP, "postgres")
    os.makedirs(d, exist_ok=True)
    floe = FloeServer.start(d, catalog=PG_URL)
    hostpart = PG_URL.split("@", 1)[1]
    try:
        scenarios(card, "postgresql", floe, Java("jdbc:postgresql://" + hostpart, floe.warehouse, user="postgres"))
    finally:
        floe.stop()
else:
    card.failed.append(("postgresql", "no PostgreSQL server"))
    print("FAIL postgresql: the throwaway PostgreSQL server did not start")
sys.exit(card.finish())
