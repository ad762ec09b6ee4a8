"""semantic/oracle.py - floe semantic query answers against hand-written SQL run by DuckDB.

usage: oracle.py FLOE_BIN MODELS WORKDIR PHASE
  WORKDIR holds the floe catalog (cat.db, wh/) and the tables exported as CSV (csv/<table>.csv).
  PHASE "before" / "after": which numbers the cases are checked against (the CSVs are re-exported
  by the caller after the second insert). Every case runs `floe semantic query --format csv` and the
  same question as plain SQL in DuckDB over the CSVs; rows are compared cell by cell (numbers with a
  relative tolerance of 1e-9, NULL = empty cell). Exits 1 naming each case that differs.
"""
import csv
import io
import math
import subprocess
import sys

import duckdb

NET = "(gross_amount - discount_applied - return_amount)"
MONTH = "CAST(date_trunc('month', order_date) AS date)"

# name: (semantic query args, DuckDB SQL)
CASES = {
    "net_revenue by month (the seed's example)": (
        ["--metrics", "net_revenue", "--group-by", "metric_time__month"],
        f"SELECT {MONTH} m, sum{NET} FROM orders GROUP BY 1 ORDER BY 1"),
    "net revenue as measure expr and as derived metric agree": (
        ["--metrics", "net_revenue,net_revenue_simple", "--group-by", "metric_time__quarter"],
        f"SELECT CAST(date_trunc('quarter', order_date) AS date), sum{NET}, sum{NET} FROM orders "
        "GROUP BY 1 ORDER BY 1"),
    "join: net revenue by customer region": (
        ["--metrics", "net_revenue", "--group-by", "customer__region"],
        f"SELECT c.region, sum{NET} FROM orders o LEFT JOIN customers c USING (customer_id) "
        "GROUP BY 1 ORDER BY 1 NULLS LAST"),
    "multi-hop join with a where filter": (
        ["--metrics", "gross_revenue,order_total", "--group-by", "country__continent",
         "--where", "{{ Dimension('order__status') }} <> 'cancelled'"],
        "SELECT n.continent, sum(o.gross_amount), count(o.order_id) FROM orders o "
        "LEFT JOIN customers c USING (customer_id) LEFT JOIN countries n USING (country_code) "
        "WHERE o.status <> 'cancelled' GROUP BY 1 ORDER BY 1 NULLS LAST"),
    "ratio metrics": (
        ["--metrics", "return_rate,revenue_per_order", "--group-by", "metric_time__month"],
        f"SELECT {MONTH}, sum(return_amount)::double / NULLIF(sum(gross_amount)::double, 0), "
        f"sum{NET}::double / NULLIF(count(CASE WHEN status <> 'cancelled' THEN order_id END)::double, 0) "
        "FROM orders GROUP BY 1 ORDER BY 1"),
    "derived month-over-month offset": (
        ["--metrics", "net_revenue,net_revenue_mom_change", "--group-by", "metric_time__month"],
        f"WITH m AS (SELECT {MONTH} mo, sum{NET} v FROM orders GROUP BY 1) "
        "SELECT a.mo, a.v, a.v - p.v FROM m a LEFT JOIN m p ON p.mo = CAST(a.mo - INTERVAL 1 MONTH AS date) "
        "ORDER BY 1"),
    "offset by a joined dimension with a filter on another (MetricFlow 0.213 differs: see docs)": (
        ["--metrics", "net_revenue_mom_delta", "--group-by", "metric_time__month,customer__region",
         "--where", "{{ Dimension('order__status') }} <> 'cancelled'"],
        f"WITH m AS (SELECT {MONTH} mo, c.region r, sum{NET} v FROM orders o LEFT JOIN customers c "
        "USING (customer_id) WHERE o.status <> 'cancelled' GROUP BY 1, 2) "
        "SELECT a.mo, a.r, a.v - p.v FROM m a LEFT JOIN m p ON p.mo = CAST(a.mo - INTERVAL 1 MONTH AS date) "
        "AND p.r IS NOT DISTINCT FROM a.r ORDER BY 1, 2 NULLS LAST"),
    "cumulative: running (as of the first day) and a 2-month window (as of the last)": (
        ["--metrics", "cumulative_net_revenue,net_revenue_trailing_2_months", "--group-by",
         "metric_time__month"],
        f"WITH m AS (SELECT {MONTH} mo, sum{NET} v FROM orders GROUP BY 1) "
        "SELECT mo, (SELECT sum(gross_amount - discount_applied - return_amount) FROM orders o "
        "WHERE o.order_date <= m.mo), "  # period_agg first (default): as of the month's first day
        "(SELECT sum(x.v) FROM m x WHERE x.mo > m.mo - INTERVAL 2 MONTH AND x.mo <= m.mo) "  # last
        "FROM m ORDER BY 1"),
    "cumulative: month to date by day": (
        ["--metrics", "net_revenue_mtd", "--group-by", "metric_time__day"],
        f"SELECT d, sum(v) OVER (PARTITION BY date_trunc('month', d) ORDER BY d) FROM "
        f"(SELECT order_date d, sum{NET} v FROM orders GROUP BY 1) ORDER BY 1"),
    "semi-additive closing balance by month": (
        ["--metrics", "closing_balance", "--group-by", "metric_time__month"],
        "SELECT CAST(date_trunc('month', balance_date) AS date) mo, sum(balance) FROM account_balances b "
        "WHERE balance_date = (SELECT max(balance_date) FROM account_balances x "
        "WHERE date_trunc('month', x.balance_date) = date_trunc('month', b.balance_date)) GROUP BY 1 ORDER BY 1"),
    "two semantic models side by side (no fan-out)": (
        ["--metrics", "customer_total,net_revenue", "--group-by", "customer__region"],
        f"SELECT coalesce(a.region, b.region) r, a.n, b.v FROM (SELECT region, count(DISTINCT customer_id) n "
        f"FROM customers GROUP BY 1) a FULL JOIN (SELECT c.region, sum{NET} v FROM orders o "
        "LEFT JOIN customers c USING (customer_id) GROUP BY 1) b ON a.region IS NOT DISTINCT FROM b.region "
        "ORDER BY 1 NULLS LAST"),
    "conversion: visit then order within 7 days": (
        ["--metrics", "visit_to_order_rate,visit_to_order_conversions", "--group-by",
         "metric_time__month,visit__channel"],
        "WITH matched AS (SELECT o.order_id, o.customer_id, max(v.visit_date) AS vd FROM orders o "
        "JOIN visits v ON v.customer_id = o.customer_id AND v.visit_date <= o.order_date "
        "AND v.visit_date > o.order_date - INTERVAL 7 DAY GROUP BY 1, 2), "
        "conv AS (SELECT CAST(date_trunc('month', v.visit_date) AS date) mo, v.channel, count(*) n "
        "FROM matched m JOIN visits v ON v.customer_id = m.customer_id AND v.visit_date = m.vd GROUP BY 1, 2), "
        "base AS (SELECT CAST(date_trunc('month', visit_date) AS date) mo, channel, count(*) n FROM visits "
        "GROUP BY 1, 2) "
        "SELECT base.mo, base.channel, conv.n::double / base.n, coalesce(conv.n, 0) FROM base "
        "LEFT JOIN conv ON conv.mo = base.mo AND conv.channel = base.channel ORDER BY 1, 2"),
    "order by a metric, limit": (
        ["--metrics", "order_total,largest_order,average_order_gross", "--group-by", "order__status",
         "--order-by", "-order_total,order__status", "--limit", "2"],
        "SELECT status, count(order_id), max(gross_amount), avg(gross_amount) FROM orders GROUP BY 1 "
        "ORDER BY 2 DESC, 1 LIMIT 2"),  # 'cancelled' and 'placed' tie on 100 orders: the status breaks it
}


def floe_rows(floe, models, work, args):
    cmd = [floe, "semantic", "query", "--models", models, "--catalog", f"sqlite:{work}/cat.db",
           "--warehouse", f"{work}/wh", "--format", "csv"] + args
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"floe failed ({p.returncode}): {p.stderr.strip()}")
    rows = list(csv.reader(io.StringIO(p.stdout)))
    return rows[1:]  # header


def duck_rows(con, sql):
    out = []
    for r in con.execute(sql).fetchall():
        out.append(["" if v is None else str(v) for v in r])
    return out


def same_cell(a, b):
    if a == b:
        return True
    try:
        x, y = float(a), float(b)
    except ValueError:
        return False
    return math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-9)


def main():
    floe, models, work, phase = sys.argv[1:5]
    con = duckdb.connect()
    for t in ("orders", "customers", "countries", "account_balances", "visits"):
        con.execute(f"CREATE TABLE {t} AS SELECT * FROM read_csv('{work}/csv/{t}.csv', header=true)")
    fails = 0
    for name, (args, sql) in CASES.items():
        try:
            got = floe_rows(floe, models, work, args)
        except RuntimeError as e:
            print(f"FAIL [{phase}] {name}: {e}")
            fails += 1
            continue
        want = duck_rows(con, sql)
        ok = len(got) == len(want) and len(want) > 0 and all(
            len(g) == len(w) and all(same_cell(x, y) for x, y in zip(g, w)) for g, w in zip(got, want))
        if not ok:
            print(f"FAIL [{phase}] {name}\n  floe:   {got}\n  duckdb: {want}")
            fails += 1
        else:
            print(f"ok [{phase}] {name} ({len(got)} rows)")
    sys.exit(1 if fails else 0)


if __name__ == "__main__":
    main()
