"""floe's MCP server driven by the official Python SDK (`mcp`, pinned in requirements-mcp.txt) over stdio
(`floe mcp`) and Streamable HTTP (`floe serve` with bearer tokens): the SDK's auto mode probes
server/discover and, floe being dual-era, speaks the stateless 2026-07-28 revision over both (HTTP with its
MCP-Protocol-Version, Mcp-Method and Mcp-Name headers, which floe checks); every tool is
listed and called, each structuredContent validated against its outputSchema with jsonschema, the
resource_link read back, a row-filtered principal gets a different answer and one without READ is refused.
Used by test_mcp_python.sh; prints "ok ..." per check, "FAIL: ..." and exits 1 on the first failure."""
import asyncio
import json
import sys

import jsonschema
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

args = dict(a[2:].split("=", 1) for a in sys.argv[1:])
CALLS = {
    "list_tables": {"search": "orders"},
    "describe_table": {"table": "sales.orders"},
    "table_history": {"table": "sales.orders"},
    "run_sql": {"sql": "SELECT id, country, amount FROM sales.orders ORDER BY id", "max_rows": 2},
    "estimate_cost": {"table": "sales.orders", "filter": "country = 'DE'"},
}


def ok(cond, what):
    if not cond:
        print(f"FAIL: {what}")
        sys.exit(1)
    print(f"ok   {what}")


async def every_tool(client, label, rows):
    tools = (await client.list_tools()).tools
    ok(sorted(t.name for t in tools) == sorted(CALLS), f"{label}: tools/list has the five tools")
    for t in tools:
        r = await client.call_tool(t.name, CALLS[t.name])
        ok(not r.is_error, f"{label}: {t.name} succeeds")
        jsonschema.validate(r.structured_content, t.output_schema)
        text = next(c for c in r.content if c.type == "text").text
        ok(json.loads(text) == r.structured_content, f"{label}: {t.name} matches its outputSchema and text")
        if t.name == "run_sql":
            sc = r.structured_content
            ok(sc["row_count"] == rows and len(sc["rows"]) == min(2, rows), f"{label}: run_sql preview")
            link = next(c for c in r.content if c.type == "resource_link")
            rr = await client.read_resource(str(link.uri))
            lines = rr.contents[0].text.rstrip("\r\n").split("\r\n")
            ok(lines[0] == "id,country,amount" and len(lines) == rows + 1, f"{label}: resource_link reads the CSV")
    r = await client.call_tool("run_sql", {"sql": "DELETE FROM sales.orders"})
    ok(r.is_error and "read-only" in r.content[0].text, f"{label}: DML refused")


async def main():
    stdio = StdioServerParameters(command=args["floe"], args=["mcp", f"--catalog={args['catalog']}",
                                                            f"--warehouse={args['warehouse']}"])
    async with Client(stdio) as client:
        ok(client.server_info.name == "floe", f"stdio: connected ({client.protocol_version})")
        # the SDK probes with server/discover and, floe being dual-era, speaks the stateless 2026-07-28
        ok(client.protocol_version == "2026-07-28", "stdio: the stateless revision (server/discover, _meta)")
        await every_tool(client, "stdio", 5)

    async def http(token):
        hc = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
        return Client(streamable_http_client(f"{args['http']}/mcp", http_client=hc))

    async with await http(args["analyst"]) as client:
        ok(client.server_info.name == "floe", f"http: connected ({client.protocol_version})")
        ok(client.protocol_version == "2026-07-28", "http: the stateless revision (headers checked by floe)")
        await every_tool(client, "http analyst", 5)
    async with await http(args["de_only"]) as client:
        r = await client.call_tool("run_sql", CALLS["run_sql"])
        ok(r.structured_content["row_count"] == 2, "http: the row-filtered principal sees 2 rows")
    async with await http(args["nobody"]) as client:
        r = await client.call_tool("run_sql", CALLS["run_sql"])
        ok(r.is_error and "42501" in r.content[0].text, "http: a principal without READ is refused")


asyncio.run(main())
