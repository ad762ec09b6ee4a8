"""pg_client_psycopg2.py - issue 5 acceptance with psycopg2 (libpq), pandas
and SQLAlchemy against the server named by PGHOST/PGPORT/PGUSER/PGPASSWORD/
PGDATABASE (floe serve --pg-port, or PostgreSQL 15 to validate the
expectations). Needs lake.big (tests/pgclients/setup.sql) loaded.

psycopg2 interpolates %s parameters on the client and sends simple queries;
named cursors become DECLARE ... CURSOR [WITH HOLD] + FETCH FORWARD n; COPY
goes through copy_expert. pandas.read_sql runs on the raw connection and on a
SQLAlchemy engine (which first sends its dialect-initialisation queries:
version(), current_schema(), SHOW standard_conforming_strings...); the
SQLAlchemy inspector reflects pgc's tables and columns from pg_catalog.
Prints one line per check; exits 1 on the first failed assertion."""
import datetime as dt
import decimal
import io
import os
import sys
import uuid

import psycopg2
import psycopg2.errors
import psycopg2.extras

D = decimal.Decimal
checks = 0


failures = 0


def known_gap(label):
    """The reason when label is a known gap against floe (tests/pgclients/known-gaps.txt)."""
    path = os.environ.get("PGC_KNOWN_GAPS")
    if not path:
        return None
    with open(path) as f:
        for line in f:
            if line.startswith("#") or "\t" not in line:
                continue
            sub, reason = line.rstrip("\n").split("\t", 1)
            if sub in label:
                return reason
    return None


def check(label, actual, expected):
    global checks, failures
    checks += 1
    if actual != expected and known_gap(label):
        print(f"GAP  {label} (known gap: {known_gap(label)})")
        return False
    if actual != expected:
        failures += 1
        print(f"FAIL {label}\n  expected: {expected!r}\n  actual:   {actual!r}")
        return False
    print(f"ok   {label}")
    return True


class section:
    """with section("name"): a failing section (exception) is reported and the next one runs."""
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        return self

    def __exit__(self, et, ev, tb):
        global failures
        if et is None:
            return False
        failures += 1
        print(f"FAIL section '{self.name}': {et.__name__}: {str(ev).strip()[:500]}")
        for c in (conn,):
            try:
                c.rollback()
            except Exception:
                pass
        return True


def connect(**kw):
    return psycopg2.connect(host=os.environ["PGHOST"], port=os.environ["PGPORT"],
                            user=os.environ["PGUSER"], password=os.environ["PGPASSWORD"],
                            dbname=os.environ["PGDATABASE"], sslmode="disable",
                            application_name="pgc-psycopg2", **kw)


conn = connect()
conn.autocommit = True
cur = conn.cursor()

# ---- DDL
with section('DDL'):
    cur.execute("CREATE TABLE lake.py_t (id bigint PRIMARY KEY, name text, amount numeric(20,4), "
                "ts timestamptz, d date, u uuid, b bytea, f double precision, ok boolean)")
    check("create table status", cur.statusmessage, "CREATE TABLE")

# ---- DML with parameters
with section('DML with parameters'):
    U1 = uuid.UUID("123e4567-e89b-12d3-a456-426614174000")
    rows = [
        (1, "alpha", D("12345678901234.5678"), dt.datetime(2024, 2, 29, 12, 30, 45, 123456, tzinfo=dt.timezone.utc),
         dt.date(2024, 2, 29), str(U1), psycopg2.Binary(bytes(range(256))), 1.5, True),
        (2, "bêta 'quoted' \\ back", D("-0.0001"), dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc),
         dt.date(1900, 1, 1), str(uuid.UUID(int=0)), psycopg2.Binary(b""), -2.25e-10, False),
        (3, None, None, None, None, None, None, None, None),
    ]
    cur.executemany("INSERT INTO lake.py_t VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)", rows)
    cur.execute("INSERT INTO lake.py_t (id, name) VALUES (%(id)s, %(name)s)", {"id": 4, "name": "δέλτα"})
    check("insert rowcount", cur.rowcount, 1)
    cur.execute("UPDATE lake.py_t SET amount = amount * %s WHERE id IN (%s, %s)", (D("2"), 1, 2))
    check("update rowcount", cur.rowcount, 2)
    cur.execute("DELETE FROM lake.py_t WHERE id = %s", (3,))
    check("delete rowcount", cur.rowcount, 1)

    conn.set_session(autocommit=True)
    cur.execute("SET TIME ZONE 'UTC'")
    cur.execute("SELECT id, name, amount, ts, d, u, b, f, ok FROM lake.py_t ORDER BY id")
    got = cur.fetchall()
    check("column names", [c.name for c in cur.description], ["id", "name", "amount", "ts", "d", "u", "b", "f", "ok"])
    check("type oids", [c.type_code for c in cur.description], [20, 25, 1700, 1184, 1082, 2950, 17, 701, 16])
    check("row count", len(got), 3)
    r1 = got[0]
    check("row1 scalars", (r1[0], r1[1], r1[2], r1[4], r1[5], r1[7], r1[8]),
          (1, "alpha", D("24691357802469.1356"), dt.date(2024, 2, 29), str(U1), 1.5, True))
    check("row1 timestamptz", r1[3], dt.datetime(2024, 2, 29, 12, 30, 45, 123456, tzinfo=dt.timezone.utc))
    check("row1 bytea 0..255", bytes(r1[6]), bytes(range(256)))
    r2 = got[1]
    check("row2", (r2[0], r2[1], r2[2], r2[3], r2[4], r2[5], bytes(r2[6]), r2[7], r2[8]),
          (2, "bêta 'quoted' \\ back", D("-0.0002"), dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc),
           dt.date(1900, 1, 1), "00000000-0000-0000-0000-000000000000", b"", -2.25e-10, False))
    check("row4 nulls", got[2], (4, "δέλτα", None, None, None, None, None, None, None))

# ---- a parameterised query, and SQL PREPARE / EXECUTE
with section('a parameterised query, and SQL PREPARE / EXECUTE'):
    cur.execute("SELECT count(*), sum(v) FROM lake.big WHERE id BETWEEN %s AND %s AND s LIKE %s",
                (100, 199, "row1%"))
    check("parameterised aggregate", cur.fetchone(), (100, 29900))
    cur.execute("PREPARE pbig(bigint) AS SELECT s FROM lake.big WHERE id = $1")
    for i in (1, 77777, 100000):
        cur.execute("EXECUTE pbig(%s)", (i,))
        check(f"EXECUTE pbig({i})", cur.fetchall(), [(f"row{i}",)])
    cur.execute("DEALLOCATE pbig")

# ---- named (server-side) cursor: 100,000 rows in FETCH FORWARD 7000 batches
with section('named (server-side) cursor: 100,000 rows in FETCH FORWARD 7000 batches'):
    conn2 = connect()
    with conn2:
        with conn2.cursor(name="pgc_big") as nc:
            nc.itersize = 7000
            nc.execute("SELECT id, v, s FROM lake.big WHERE id > %s ORDER BY id", (0,))
            n = 0
            for (i, v, s) in nc:
                n += 1
                if (i, v, s) != (n, 2 * n, f"row{n}"):
                    check(f"named cursor row {n}", (i, v, s), (n, 2 * n, f"row{n}"))
            check("named cursor rows", n, 100000)
    # fetchmany on a second named cursor, then skip forward (MOVE); floe cursors are NO SCROLL, so
    # no backward scrolling here (PostgreSQL would allow it for simple plans)
    with conn2.cursor(name="pgc_fwd") as sc:
        sc.execute("SELECT id FROM lake.big ORDER BY id")
        check("fetchmany(3)", sc.fetchmany(3), [(1,), (2,), (3,)])
        sc.scroll(99987, mode="relative")
        check("scroll forward (MOVE 99987) + fetchone", sc.fetchone(), (99991,))
        check("fetchall rest", [r[0] for r in sc.fetchall()], list(range(99992, 100001)))
    # WITH HOLD named cursor outliving its transaction (autocommit)
    conn3 = connect()
    hc = conn3.cursor(name="pgc_hold", withhold=True)
    hc.execute("SELECT id, s FROM lake.big WHERE id % 10000 = 0 ORDER BY id")
    conn3.commit()
    check("withhold cursor after commit", [r[0] for r in hc.fetchall()], list(range(10000, 100001, 10000)))
    hc.close()
    conn3.close()

# ---- COPY through copy_expert
with section('COPY through copy_expert'):
    buf = io.StringIO()
    cur.execute("SET TIME ZONE 'UTC'")
    cur.copy_expert("COPY (SELECT id, name, amount, d FROM lake.py_t ORDER BY id) TO STDOUT WITH (FORMAT csv)", buf)
    check("copy_expert TO STDOUT", buf.getvalue(),
          '1,alpha,24691357802469.1356,2024-02-29\n2,bêta \'quoted\' \\ back,-0.0002,1900-01-01\n4,δέλτα,,\n')
    cur.execute("CREATE TABLE lake.py_copy (id integer, t text)")
    cur.copy_expert("COPY lake.py_copy FROM STDIN WITH (FORMAT csv)", io.StringIO("1,one\n2,\"t,w,o\"\n3,\n"))
    check("copy_expert FROM STDIN rowcount", cur.rowcount, 3)
    cur.execute("SELECT id, t FROM lake.py_copy ORDER BY id")
    check("copied rows", cur.fetchall(), [(1, "one"), (2, "t,w,o"), (3, None)])

# ---- errors carry SQLSTATE; the connection stays usable
with section('errors carry SQLSTATE; the connection stays usable'):
    try:
        cur.execute("SELECT * FROM lake.nope")
        check("undefined table raises", False, True)
    except psycopg2.errors.UndefinedTable as e:
        check("undefined table pgcode", e.pgcode, "42P01")
    try:
        cur.execute("SELECT 1/0")
        check("division by zero raises", False, True)
    except psycopg2.errors.DivisionByZero as e:
        check("division by zero pgcode", e.pgcode, "22012")
    cur.execute("SELECT 1")
    check("usable after errors", cur.fetchone(), (1,))
    # a failed statement inside a transaction aborts it until ROLLBACK (25P02)
    conn4 = connect()
    c4 = conn4.cursor()
    try:
        c4.execute("SELECT * FROM lake.nope")
    except psycopg2.Error:
        pass
    try:
        c4.execute("SELECT 1")
        check("in failed transaction raises", False, True)
    except psycopg2.errors.InFailedSqlTransaction as e:
        check("in failed transaction pgcode", e.pgcode, "25P02")
    conn4.rollback()
    c4.execute("SELECT 2")
    check("after rollback", c4.fetchone(), (2,))
    conn4.close()

# ---- pandas.read_sql on the DBAPI connection and through SQLAlchemy
with section('pandas.read_sql on the DBAPI connection and through SQLAlchemy'):
    import warnings
    warnings.filterwarnings("ignore", message=".*SQLAlchemy connectable.*")
    import pandas as pd
    df = pd.read_sql("SELECT id, v, s FROM lake.big WHERE id <= %(n)s ORDER BY id", conn, params={"n": 1000})
    check("read_sql shape", df.shape, (1000, 3))
    check("read_sql sums", (int(df["id"].sum()), int(df["v"].sum()), df["s"].iloc[-1]), (500500, 1001000, "row1000"))
    check("read_sql dtypes", [str(t) for t in df.dtypes], ["int64", "int64", "object"])
    chunks = list(pd.read_sql("SELECT id FROM lake.big ORDER BY id", conn, chunksize=25000))
    check("read_sql chunks", ([len(c) for c in chunks], int(sum(c["id"].sum() for c in chunks))),
          ([25000] * 4, 5000050000))

    import sqlalchemy as sa
    url = sa.engine.URL.create("postgresql+psycopg2", username=os.environ["PGUSER"], password=os.environ["PGPASSWORD"],
                               host=os.environ["PGHOST"], port=int(os.environ["PGPORT"]),
                               database=os.environ["PGDATABASE"], query={"sslmode": "disable"})
    engine = sa.create_engine(url)
    with engine.connect() as sc:
        df2 = pd.read_sql(sa.text("SELECT name, amount FROM lake.py_t WHERE id < :lim ORDER BY id"), sc, params={"lim": 3},
                          coerce_float=False)
        check("sqlalchemy read_sql", df2.values.tolist(), [["alpha", D("24691357802469.1356")],
                                                           ["bêta 'quoted' \\ back", D("-0.0002")]])
    insp = sa.inspect(engine)
    check("inspector schemas has pgc", "lake" in insp.get_schema_names(), True) if "lake" in insp.get_schema_names() else print(insp.get_schema_names())
    check("inspector tables", sorted(insp.get_table_names(schema="lake")), ["big", "py_copy", "py_t"])
    cols = insp.get_columns("py_t", schema="lake")
    check("inspector columns", [(c["name"], str(c["type"]), c["nullable"]) for c in cols],
          [("id", "BIGINT", False), ("name", "TEXT", True), ("amount", "NUMERIC(20, 4)", True),
           ("ts", "TIMESTAMP", True), ("d", "DATE", True), ("u", "UUID", True), ("b", "BYTEA", True),
           ("f", "DOUBLE_PRECISION", True), ("ok", "BOOLEAN", True)])
    check("inspector timestamptz has tz", cols[3]["type"].timezone, True)
    check("inspector pk", insp.get_pk_constraint("py_t", schema="lake")["constrained_columns"], ["id"])
    dft = pd.read_sql_table("py_t", engine, schema="lake", columns=["id", "name"])
    check("read_sql_table", sorted(dft["id"].tolist()), [1, 2, 4])
    engine.dispose()

    cur.execute("DROP TABLE lake.py_copy")
    check("drop", cur.statusmessage, "DROP TABLE")

# ---- temporary tables as dbt and BI tools use them: private to the connection,
# shadowing a permanent table of the same name, gone when the connection closes
with section('temporary tables'):
    cur.execute("CREATE TABLE lake.py_tmp (k int)")
    cur.execute("INSERT INTO lake.py_tmp VALUES (1)")
    ct = connect()
    ct.autocommit = True
    tc = ct.cursor()
    tc.execute("SET search_path TO lake")
    tc.execute("CREATE TEMPORARY TABLE py_tmp AS SELECT id, name FROM lake.py_t WHERE id < 3")
    check("temp ctas status", tc.statusmessage, "SELECT 2")
    tc.execute("SELECT id, name FROM py_tmp ORDER BY id")
    check("temp shadows permanent", tc.fetchall(), [(1, "alpha"), (2, "bêta 'quoted' \\ back")])
    tc.execute("SELECT k FROM lake.py_tmp")
    check("qualified name is the permanent table", tc.fetchall(), [(1,)])
    tc.execute("CREATE TEMP TABLE py_stage (id int, v text) ON COMMIT DELETE ROWS")
    ct.autocommit = False
    tc.execute("INSERT INTO py_stage VALUES (%s, %s), (%s, %s)", (1, "a", 2, "b"))
    tc.execute("SELECT count(*) FROM py_stage")
    check("temp rows inside the transaction", tc.fetchone(), (2,))
    ct.commit()
    tc.execute("SELECT count(*) FROM py_stage")
    check("ON COMMIT DELETE ROWS", tc.fetchone(), (0,))
    ct.rollback()
    ct.autocommit = True
    tc.execute("SELECT c.relname, c.relpersistence FROM pg_class c JOIN pg_namespace n "
               "ON n.oid = c.relnamespace WHERE n.nspname LIKE 'pg_temp%%' ORDER BY 1")
    check("pg_class temp rows", tc.fetchall(), [("py_stage", "t"), ("py_tmp", "t")])
    # another connection sees only the permanent table
    cur.execute("SELECT k FROM lake.py_tmp")
    check("other connection: permanent", cur.fetchall(), [(1,)])
    ct.close()
    c5 = connect()
    c5.autocommit = True
    k5 = c5.cursor()
    import time
    for _ in range(100):  # the server ends the closed session asynchronously
        k5.execute("SELECT count(*) FROM pg_class WHERE relname IN ('py_stage', 'py_tmp')")
        n5 = k5.fetchone()
        if n5 == (1,):
            break
        time.sleep(0.05)
    check("temp tables gone with the connection", n5, (1,))
    c5.close()
    cur.execute("DROP TABLE lake.py_tmp")
    conn.close()
    conn2.close()
if failures:
    print(f"FAILED psycopg2/pandas/sqlalchemy: {failures} of {checks} checks/sections")
    sys.exit(1)
print(f"PASS psycopg2/pandas/sqlalchemy: {checks} checks")
