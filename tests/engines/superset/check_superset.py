"""Apache Superset against floe's Postgres wire port, through its own REST API (Flask test client, logged in as
its admin): add floe as a PostgreSQL database (Superset tests the connection), list the schemas and the
semantic views `floe semantic publish` made, create a dataset on semantic.net_revenue_by_month (Superset
reflects its columns), and ask for a bar chart's data: SUM(net_revenue) by metric_time__month. The rows must
equal the answer of floe's own API, MCP query_metrics over HTTP. Usage:
  check_superset.py PG_URI HTTP_URL TOKEN        prints "N passed, N failed"; exit 1 on a failure"""
import json
import sys
import urllib.request
from decimal import Decimal

from superset.app import create_app

pg_uri, http, token = sys.argv[1:4]
passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)


def mcp(method, params, session=None, notify=False):
    msg = {"jsonrpc": "2.0", "method": method, "params": params}
    if not notify:
        msg["id"] = 1
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "Authorization": "Bearer " + token, "MCP-Protocol-Version": "2025-06-18"}
    if session:
        headers["Mcp-Session-Id"] = session
    req = urllib.request.Request(http + "/mcp", data=json.dumps(msg).encode(), headers=headers, method="POST")
    with urllib.request.urlopen(req) as resp:
        sid = resp.headers.get("Mcp-Session-Id") or session
        body = resp.read()
    return sid, (json.loads(body) if body and not notify else None)


def api_answer():
    """net_revenue by month from floe's MCP endpoint (query_metrics)."""
    sid, _ = mcp("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                "clientInfo": {"name": "superset-check", "version": "1"}})
    mcp("notifications/initialized", {}, sid, notify=True)
    _, res = mcp("tools/call", {"name": "query_metrics", "arguments": {
        "metrics": ["net_revenue"], "group_by": ["metric_time__month"], "order_by": ["metric_time__month"],
        "max_rows": 1000}}, sid)
    sc = res["result"]["structuredContent"]
    names = [c["name"] for c in sc["columns"]]
    m, v = names.index("metric_time__month"), names.index("net_revenue")
    return [(str(r[m])[:10], Decimal(str(r[v]))) for r in sc["rows"]]


app = create_app()
with app.app_context():
    c = app.test_client()
    r = c.post("/login/", data={"username": "admin", "password": "admin"})
    check(r.status_code in (200, 302), f"login: {r.status_code}")
    r = c.post("/api/v1/database/test_connection/", json={"sqlalchemy_uri": pg_uri, "database_name": "floe"})
    check(r.status_code == 200, f"test_connection: {r.status_code} {r.get_data(as_text=True)[:300]}")
    r = c.post("/api/v1/database/", json={"database_name": "floe", "sqlalchemy_uri": pg_uri,
                                          "expose_in_sqllab": True})
    check(r.status_code == 201, f"add database: {r.status_code} {r.get_data(as_text=True)[:300]}")
    dbid = r.get_json()["id"]
    r = c.get(f"/api/v1/database/{dbid}/schemas/")
    schemas = r.get_json().get("result", [])
    check("default" in schemas and "semantic" in schemas, f"schemas: {schemas}")
    r = c.get(f"/api/v1/database/{dbid}/tables/?q=(schema_name:default)")
    tables = {t["value"]: t["type"] for t in r.get_json().get("result", [])}
    check(tables.get("orders") == "table" and tables.get("customers") == "table", f"tables: {tables}")
    r = c.get(f"/api/v1/database/{dbid}/tables/?q=(schema_name:semantic)")
    views = {t["value"]: t["type"] for t in r.get_json().get("result", [])}
    check(views.get("net_revenue_by_month") == "view" and
          views.get("monthly_net_revenue_by_region") == "view", f"semantic views: {sorted(views)[:6]}")
    r = c.post("/api/v1/dataset/", json={"database": dbid, "schema": "semantic",
                                         "table_name": "net_revenue_by_month"})
    check(r.status_code == 201, f"dataset: {r.status_code} {r.get_data(as_text=True)[:300]}")
    dsid = r.get_json()["id"]
    cols = [col["column_name"] for col in r.get_json()["data"]["columns"]]
    check(cols == ["metric_time__month", "net_revenue"], f"reflected columns: {cols}")
    qc = {"datasource": {"id": dsid, "type": "table"}, "force": True, "result_format": "json",
          "result_type": "full",
          "queries": [{"columns": ["metric_time__month"],
                       "metrics": [{"expressionType": "SIMPLE", "column": {"column_name": "net_revenue"},
                                    "aggregate": "SUM", "label": "net_revenue"}],
                       "orderby": [["metric_time__month", True]], "row_limit": 1000}]}
    r = c.post("/api/v1/chart/data", json=qc)
    check(r.status_code == 200, f"chart data: {r.status_code} {r.get_data(as_text=True)[:300]}")
    res = r.get_json()["result"][0]
    check(res["status"] == "success" and "semantic.net_revenue_by_month" in res["query"],
          f"chart query: {res.get('status')} {res.get('query')}")
    chart = []
    for row in res["data"]:
        month = row["metric_time__month"]
        if isinstance(month, (int, float)):  # epoch milliseconds, Superset's temporal format
            import datetime
            month = datetime.datetime.utcfromtimestamp(month / 1000).strftime("%Y-%m-%d")
        chart.append((str(month)[:10], Decimal(str(row["net_revenue"])).quantize(Decimal("0.01"))))
    want = [(m, v.quantize(Decimal("0.01"))) for m, v in api_answer()]
    check(len(chart) >= 6 and chart == want, f"chart data equals query_metrics:\n{chart}\n{want}")
    # SQL Lab: Superset's own SQL editor runs a query on floe
    r = c.post("/api/v1/sqllab/execute/", json={"database_id": dbid, "sql":
               "SELECT status, count(*) AS n FROM \"default\".orders GROUP BY status ORDER BY status",
               "runAsync": False, "schema": "default"})
    body = r.get_json() or {}
    rows = [(d.get("status"), d.get("n")) for d in body.get("data", [])]
    check(r.status_code == 200 and rows == [("cancelled", 100), ("completed", 400), ("placed", 100)],
          f"SQL Lab: {r.status_code} {rows or r.get_data(as_text=True)[:300]}")

print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
