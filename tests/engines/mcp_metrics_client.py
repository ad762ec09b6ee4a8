"""floe's MCP metric tools (`--models`) driven by the official Python SDK (`mcp`, pinned in requirements-mcp.txt)
over stdio (`floe mcp --models`) and Streamable HTTP (`floe serve --models`, bearer tokens): every metric tool (and
propose_metric) is called and its structuredContent validated against its outputSchema with jsonschema; the seed scenario (net revenue
by month for 2024 in region EU) equals the rows of `floe semantic query` and hand-written SQL (--want, --want_c8
for the row-filtered principal); "revenue" answers with candidates, a filter value that does not exist with the closest values; an unknown
metric is a tool error naming it.
Used by test_mcp_metrics_python.sh; prints "ok ..." per check, "FAIL: ..." and exits 1 on the first failure."""
import asyncio
import json
import sys

import jsonschema
import mcp_types
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

args = dict(a[2:].split("=", 1) for a in sys.argv[1:])
SEED = {
    "metrics": ["net_revenue"], "group_by": ["metric_time__month"], "order_by": ["metric_time__month"],
    "where": ["{{ Dimension('customer__region') }} = 'EU'", "{{ TimeDimension('metric_time', 'day') }} >= '2024-01-01'",
              "{{ TimeDimension('metric_time', 'day') }} < '2025-01-01'"],
    "max_rows": 100,
}
CALLS = {
    "list_metrics": {"search": "revenue"},
    "get_dimensions": {"metrics": ["net_revenue"]},
    "get_entities": {"metrics": ["net_revenue"]},
    "get_dimension_values": {"dimension": "order__status"},
    "query_metrics": SEED,
    "compile_sql": {k: v for k, v in SEED.items() if k != "max_rows"},
    "propose_metric": {"name": "completed_gross", "description": "Gross of completed orders.", "type": "simple",
                       "measure": "gross_amount", "filter": "{{ Dimension('order__status') }} = 'completed'"},
}


def ok(cond, what):
    if not cond:
        print(f"FAIL: {what}")
        sys.exit(1)
    print(f"ok   {what}")


def rows_text(sc):
    return "\n".join(",".join(str(v) for v in row) for row in sc["rows"])


async def metric_tools(client, label, want):
    tools = {t.name: t for t in (await client.list_tools()).tools}
    ok(all(n in tools for n in CALLS), f"{label}: tools/list has the metric tools and propose_metric")
    ok(tools["propose_metric"].annotations.read_only_hint is False, f"{label}: propose_metric is not read-only")
    for name, arguments in CALLS.items():
        r = await client.call_tool(name, arguments)
        ok(not r.is_error, f"{label}: {name} succeeds")
        jsonschema.validate(r.structured_content, tools[name].output_schema)
        text = next(c for c in r.content if c.type == "text").text
        ok(json.loads(text) == r.structured_content, f"{label}: {name} matches its outputSchema and text")
        if name == "query_metrics":
            ok(rows_text(r.structured_content) == want, f"{label}: query_metrics = floe semantic query = SQL")
            ok("FOR VERSION AS OF" in r.structured_content["receipt"]["replay_sql"], f"{label}: with a receipt")
        if name == "propose_metric":
            ok(r.structured_content["status"] == "pending" and "/.pending/" in r.structured_content["file"],
               f"{label}: propose_metric files a pending proposal")
    r = await client.call_tool("query_metrics", {"metrics": ["revenue"]})
    jsonschema.validate(r.structured_content, tools["query_metrics"].output_schema)
    names = [m["name"] for m in r.structured_content["candidates"][0]["matches"]]
    ok(not r.is_error and "gross_revenue" in names and "net_revenue" in names, f"{label}: 'revenue' gives candidates")
    r = await client.call_tool("query_metrics", {"metrics": ["net_revenue"],
                                                 "where": ["{{ Dimension('customer__region') }} = 'eu'"]})
    jsonschema.validate(r.structured_content, tools["query_metrics"].output_schema)
    vc = r.structured_content.get("value_candidates", [{}])[0]
    ok(not r.is_error and vc.get("asked") == "eu" and vc.get("matches") == ["EU"],
       f"{label}: a filter value that does not exist gives the closest values")
    r = await client.call_tool("query_metrics", {"metrics": ["shoe_sizes"]})
    ok(r.is_error and "unknown metric 'shoe_sizes'" in r.content[0].text, f"{label}: an unknown metric is named")


async def main():
    stdio = StdioServerParameters(command=args["floe"], args=["mcp", f"--catalog={args['catalog']}",
                                                            f"--warehouse={args['warehouse']}",
                                                            f"--models={args['models']}"])
    async with Client(stdio) as client:
        await metric_tools(client, "stdio", args["want"])

    # 2026-07-28 elicitation: an ambiguous name comes back input_required; the SDK asks this callback and retries
    asked = []

    async def choose(context, params):
        asked.append(dict(params.requested_schema)["properties"]["metric"]["enum"])
        return mcp_types.ElicitResult(action="accept", content={"metric": "net_revenue"})

    async with Client(stdio, elicitation_callback=choose) as client:
        r = await client.call_tool("query_metrics", {"metrics": ["revenue"], "group_by": ["metric_time__month"]})
        ok(asked and "gross_revenue" in asked[0] and "net_revenue" in asked[0] and not r.is_error
           and r.structured_content["metrics"] == ["net_revenue"] and r.structured_content["row_count"] > 0,
           "stdio: 'revenue' is elicited (input_required) and the user's choice computed")

    async def http(token):
        hc = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
        return Client(streamable_http_client(f"{args['http']}/mcp", http_client=hc))

    async with await http(args["analyst"]) as client:
        await metric_tools(client, "http analyst", args["want"])
    async with await http(args["c8_only"]) as client:
        r = await client.call_tool("query_metrics", SEED)
        ok(rows_text(r.structured_content) == args["want_c8"] != args["want"],
           "http: the row-filtered principal gets the filtered numbers")


asyncio.run(main())
