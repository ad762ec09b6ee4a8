"""The floe Python package against a real warehouse and a real `floe serve` (run by
tests/interop/test_python.sh, which builds the semantic tests' world and passes it in the environment):
embedded SQL as Arrow, pandas and polars; parameters; errors with SQLSTATE and position; DB-API 2.0;
the semantic layer; and the same answers from the server, with its authorization.
Prints "N passed, N failed" and exits 1 on any failure."""
import datetime
import decimal
import os
import sys
import threading

import pyarrow as pa

import floe
from floe import dbapi

env = os.environ
passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)


def raises(fn, cls, sqlstate=None):
    try:
        fn()
    except cls as e:
        return e if sqlstate is None or e.sqlstate == sqlstate else None
    except Exception as e:  # noqa: BLE001 (report the wrong class)
        print("  (raised", type(e).__name__, e, ")")
        return None
    return None


con = floe.connect(catalog=env["FLOE_CATALOG"], warehouse=env["FLOE_WAREHOUSE"], models=env["FLOE_MODELS"])

# ---- SQL as Arrow, pandas, polars ----
t = con.sql("SELECT order_id, customer_id, order_date, status, gross_amount FROM orders ORDER BY order_id").arrow()
check(t.num_rows == 600, f"600 orders, got {t.num_rows}")
check(t.schema.field("order_id").type == pa.int32(), f"order_id int32: {t.schema.field('order_id').type}")
check(t.schema.field("gross_amount").type == pa.decimal128(10, 2), "gross_amount decimal(10,2)")
check(t.schema.field("order_date").type == pa.date32(), "order_date date32")
first = t.slice(0, 1).to_pylist()[0]
# seed.sh: order 1 is customer 8, 2024-01-14, placed, 47.25
check(first == {"order_id": 1, "customer_id": 8, "order_date": datetime.date(2024, 1, 14), "status": "placed",
                "gross_amount": decimal.Decimal("47.25")}, f"order 1: {first}")
df = con.sql("SELECT status, count(*) AS n FROM orders GROUP BY status ORDER BY status").df()
check(list(df["status"]) == ["cancelled", "completed", "placed"] and list(df["n"]) == [100, 400, 100],
      f"pandas by status: {df.to_dict('list')}")
pl = con.sql("SELECT region, count(*) AS n FROM customers GROUP BY region ORDER BY region NULLS LAST").pl()
check(pl.shape == (4, 2) and pl["n"].to_list() == [10, 10, 10, 10], f"polars regions: {pl}")
check(pl["region"].to_list() == ["APAC", "EU", "US", None], f"polars region values: {pl['region'].to_list()}")
# nested values and booleans (converted from floe's byte booleans)
# (a list from array_agg: floe types a scalar ARRAY[...] literal as PostgreSQL's array text, README)
lst = con.sql("SELECT array_agg(x ORDER BY x NULLS LAST) AS a FROM (VALUES (1), (2), (NULL)) t(x)").fetchall()
check(lst == [([1, 2, None],)], f"a list with a NULL: {lst}")
nested = con.sql("SELECT ROW(1, 'x') AS r, true AS b, NULL::boolean AS nb, MAP(ARRAY['k'], ARRAY[2]) AS m").fetchall()
check(nested[0][0] == {"f1": 1, "f2": "x"} and nested[0][1] is True and nested[0][2] is None,
      f"struct and booleans: {nested}")
check(nested[0][3] == [("k", 2)], f"map: {nested[0][3]}")
# pyarrow adopts the stream directly (the Arrow PyCapsule interface)
reader = pa.RecordBatchReader.from_stream(con.sql("SELECT * FROM generate_series(1, 100000) AS g(i)"))
total = sum(b.num_rows for b in reader)
check(total == 100000, f"streamed 100000 rows, got {total}")

# ---- parameters, tags, receipts ----
r = con.sql("SELECT count(*) FROM orders WHERE order_date >= $1 AND status = $2",
            [datetime.date(2024, 5, 1), "completed"])
n = r.fetchall()[0][0]
hand = con.sql("SELECT count(*) FROM orders WHERE order_date >= DATE '2024-05-01' AND status = 'completed'").fetchall()[0][0]
check(n == hand and n > 0, f"date and text parameters: {n} vs {hand}")
check(r.tag == "SELECT 1", f"tag {r.tag!r}")
check(len(r.reads) == 1 and r.reads[0][0].endswith("orders") and r.reads[0][1] > 0, f"reads {r.reads}")
snap = r.reads[0][1]
check(con.sql(f"SELECT count(*) FROM orders FOR VERSION AS OF {snap}").fetchall() == [(600,)], "time travel")
check(con.sql("SELECT $1::decimal(10,2) * 2", [decimal.Decimal("1.25")]).fetchall() == [(decimal.Decimal("2.50"),)],
      "decimal parameter")

# ---- errors: class by SQLSTATE, message, position ----
e = raises(lambda: con.sql("SELECT nope FROM orders"), dbapi.ProgrammingError, "42703")
check(e is not None and e.position == 8 and "nope" in str(e), f"undefined column: {e and (e.sqlstate, e.position)}")
e = raises(lambda: con.sql("SELECT 1/0").fetchall(), floe.Error, "22012")
check(e is not None and isinstance(e, dbapi.DataError), "division by zero is a DataError")
e = raises(lambda: con.sql("SELECT * FROM missing_table"), dbapi.ProgrammingError, "42P01")
check(e is not None, "undefined table 42P01")
check(raises(lambda: con.sql("SELECT $1", [object()]), TypeError) is not None, "an unbindable parameter")
check(raises(lambda: con.sql("SELECT $1, $2", [1]), floe.Error) is not None, "wrong parameter count")

# ---- cancel from another thread ----
slow = "SELECT count(*) FROM generate_series(1, 2000000000) a"
timer = threading.Timer(0.3, con.cancel)
timer.start()
e = raises(lambda: con.sql(slow).fetchall(), floe.Error)
timer.join()
check(e is not None and e.sqlstate == "57014", f"cancel: {e and e.sqlstate}")
check(con.sql("SELECT 1").fetchall() == [(1,)], "the session works after a cancel")

# ---- DB-API 2.0 ----
check(dbapi.apilevel == "2.0" and dbapi.paramstyle == "qmark", "DB-API globals")
with dbapi.connect(catalog=env["FLOE_CATALOG"], warehouse=env["FLOE_WAREHOUSE"]) as dconn:
    cur = dconn.cursor()
    cur.execute("SELECT order_id, status FROM orders WHERE status = ? AND order_id < ? ORDER BY order_id",
                ["placed", 20])
    check([d[0] for d in cur.description] == ["order_id", "status"], f"description {cur.description}")
    rows = cur.fetchmany(2)
    check(rows == [(1, "placed"), (7, "placed")], f"fetchmany {rows}")
    check(cur.fetchone() == (13, "placed") and cur.fetchone() == (19, "placed") and cur.fetchone() is None,
          "fetchone to the end")
    check(cur.rowcount == 4, f"rowcount after the end {cur.rowcount}")
    cur.execute("SELECT '?' AS q, 'it''s' AS s WHERE 1 = ?", [1])
    check(cur.fetchall() == [("?", "it's")], "? inside a string is not a placeholder")
    cur.execute("CREATE TABLE py_scratch (id int, note varchar)")
    cur.executemany("INSERT INTO py_scratch VALUES (?, ?)", [(1, "a"), (2, None), (3, "c")])
    check(cur.rowcount == 3, f"executemany rowcount {cur.rowcount}")
    cur.execute("SELECT id, note FROM py_scratch ORDER BY id")
    check(cur.fetchall() == [(1, "a"), (2, None), (3, "c")], "rows inserted through DB-API")
    cur.execute("DROP TABLE py_scratch")
    check(raises(dconn.rollback, dbapi.NotSupportedError) is not None, "rollback is refused")

# ---- the semantic layer ----
ans = con.metrics.query(metrics=["net_revenue"], dimensions=["metric_time__month"],
                        where=["{{ Dimension('customer__region') }} = 'EU'",
                               "{{ TimeDimension('metric_time', 'day') }} >= '2024-01-01'",
                               "{{ TimeDimension('metric_time', 'day') }} < '2025-01-01'"],
                        order_by=["metric_time__month"])
got = "\n".join(f"{m},{v}" for m, v in ans.fetchall())
check(got == env["SEM_CSV"].strip(), f"net_revenue by month (EU, 2024):\n{got}\nwant\n{env['SEM_CSV']}")
check(ans.receipt.get("model_version") and "SELECT" in ans.sql.upper(), f"receipt {ans.receipt}")
check(any(p.get("table", "").endswith("orders") for p in ans.receipt.get("tables", [])), "receipt tables")
compiled = con.metrics.compile(["net_revenue"], ["metric_time__month"])
check("gross_amount" in compiled and compiled.lstrip().upper().startswith(("SELECT", "WITH")),
      f"compile: {compiled[:200]}")
e = raises(lambda: con.metrics.query(metrics=["no_such_metric"]), floe.Error)
check(e is not None and "no_such_metric" in str(e), f"unknown metric: {e}")

# ---- the same through `floe serve` ----
url = env["FLOE_HTTP"]
rc = floe.connect(url, token=env["TOK_ANALYST"])
rt = rc.sql("SELECT order_id, gross_amount FROM orders ORDER BY order_id").arrow()
et = con.sql("SELECT order_id, gross_amount FROM orders ORDER BY order_id").arrow()
check(rt.num_rows == 600 and rt.column(1).to_pylist() == et.column(1).to_pylist(), "remote rows equal embedded")
check(rc.sql("SELECT $1::int + 1", [41]).fetchall() == [(42,)], "remote parameter")
e = raises(lambda: rc.sql("SELECT nope FROM orders"), dbapi.ProgrammingError, "42703")
check(e is not None and e.position == 8, f"remote SQL error: {e and (e.sqlstate, e.position)}")
rans = rc.metrics.query(metrics=["net_revenue"], dimensions=["metric_time__month"],
                        where=["{{ Dimension('customer__region') }} = 'EU'",
                               "{{ TimeDimension('metric_time', 'day') }} >= '2024-01-01'",
                               "{{ TimeDimension('metric_time', 'day') }} < '2025-01-01'"],
                        order_by=["metric_time__month"])
rgot = "\n".join(f"{m},{v}" for m, v in rans.fetchall())
check(rgot == got, f"the server's query_metrics equals the embedded answer:\n{rgot}")
check(rans.receipt.get("sql"), "server receipt has the SQL")
nobody = floe.connect(url, token=env["TOK_NOBODY"])
e = raises(lambda: nobody.sql("SELECT count(*) FROM orders"), dbapi.ProgrammingError, "42501")
check(e is not None, "a principal without grants is refused (42501)")
e = raises(lambda: floe.connect(url, token="not-a-token").sql("SELECT 1"), floe.Error)
check(e is not None, "a bad token is refused")
e = raises(lambda: floe.connect(url, client_id="analyst", client_secret="wrong"), dbapi.OperationalError)
check(e is not None and "refused" in str(e), f"a wrong secret: {e}")
dconn = dbapi.connect(url, token=env["TOK_ANALYST"])
cur = dconn.cursor()
cur.execute("SELECT count(*) FROM orders WHERE status = ?", ["cancelled"])
check(cur.fetchall() == [(100,)], "DB-API over the server")

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
