#!/usr/bin/env node
// mcp-sdk.mjs — floe's MCP server driven by the official TypeScript SDK client (@modelcontextprotocol/sdk) over
// stdio (StdioClientTransport spawning `floe mcp`) and Streamable HTTP (StreamableHTTPClientTransport against
// `floe serve` with bearer tokens). Every tool is listed and called; each structuredContent is validated against
// its outputSchema with ajv; the run_sql resource_link is read back as CSV; principals with different grants get
// different answers (one refused); a missing or expired token gets 401 with WWW-Authenticate. Used by
// test_mcp.sh. Exit 0 when every check holds; each failure prints "FAIL: ...".
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import Ajv from 'ajv';
import { tableFromIPC } from 'apache-arrow';

const o = Object.fromEntries(process.argv.slice(2).map(a => { const i = a.indexOf('='); return [a.slice(2, i), a.slice(i + 1)]; }));
let failures = 0, checks = 0;
function check(name, fn) {
  return Promise.resolve().then(fn).then(() => { checks++; console.log(`ok   ${name}`); },
    e => { failures++; console.log(`FAIL: ${name}: ${e && e.stack ? e.stack : e}`); });
}

const ajv = new Ajv({ strict: false, allErrors: true });
function validateOutput(tool, result) {
  assert.equal(result.isError, false, `${tool.name} isError: ${JSON.stringify(result.content)}`);
  const v = ajv.compile(tool.outputSchema);
  assert.ok(v(result.structuredContent), `${tool.name}: ${ajv.errorsText(v.errors)}`);
  const text = result.content.find(c => c.type === 'text');
  assert.deepEqual(JSON.parse(text.text), result.structuredContent, `${tool.name}: text block differs`);
  assert.equal(typeof result.structuredContent.receipt.principal, 'string');
}

const calls = {
  list_tables: { search: 'orders' },
  describe_table: { table: 'sales.orders' },
  table_history: { table: 'sales.orders' },
  run_sql: { sql: 'SELECT id, country, amount FROM sales.orders ORDER BY id', max_rows: 2 },
  estimate_cost: { table: 'sales.orders', filter: "country = 'DE'" },
};

async function everyTool(client, label, expectRows) {
  const { tools } = await client.listTools();
  await check(`${label}: tools/list has the five tools with schemas`, () => {
    assert.deepEqual(tools.map(t => t.name).sort(), Object.keys(calls).sort());
    for (const t of tools) {
      assert.equal(t.inputSchema.type, 'object');
      assert.equal(t.outputSchema.type, 'object');
      assert.equal(t.annotations.readOnlyHint, true);
    }
  });
  const out = {};
  for (const t of tools) {
    await check(`${label}: ${t.name} validates against its outputSchema`, async () => {
      const r = await client.callTool({ name: t.name, arguments: calls[t.name] });
      validateOutput(t, r);
      out[t.name] = r;
    });
  }
  await check(`${label}: run_sql preview, stats, receipt, resource_link (CSV) and the Arrow form (apache-arrow reads it)`, async () => {
    const r = out.run_sql;
    const sc = r.structuredContent;
    assert.equal(sc.row_count, expectRows);
    assert.equal(sc.rows.length, Math.min(2, expectRows));
    assert.equal(sc.truncated, expectRows > 2);
    assert.equal(sc.receipt.tables[0].table, 'sales.orders');
    assert.ok(Number.isInteger(sc.receipt.tables[0].snapshot_id));
    const link = r.content.find(c => c.type === 'resource_link');
    assert.equal(link.uri, sc.result_uri);
    const rr = await client.readResource({ uri: link.uri });
    const lines = rr.contents[0].text.trimEnd().split('\r\n');
    assert.equal(lines[0], 'id,country,amount');
    assert.equal(lines.length, expectRows + 1);
    assert.equal(rr.contents[0].mimeType, 'text/csv');
    const ar = await client.readResource({ uri: sc.result_arrow_uri });
    assert.equal(ar.contents[0].mimeType, 'application/vnd.apache.arrow.stream');
    const table = tableFromIPC(Buffer.from(ar.contents[0].blob, 'base64'));
    assert.equal(table.numRows, expectRows);
    assert.deepEqual(table.schema.fields.map(f => f.name), ['id', 'country', 'amount']);
    assert.deepEqual([...table.getChild('id')].map(Number), lines.slice(1).map(l => Number(l.split(',')[0])));
  });
  await check(`${label}: DDL and DML are refused as tool errors`, async () => {
    for (const sql of ['DROP TABLE sales.orders', "INSERT INTO sales.orders VALUES (9, 'X', 1, now())"]) {
      const r = await client.callTool({ name: 'run_sql', arguments: { sql } });
      assert.equal(r.isError, true);
      assert.match(r.content[0].text, /read-only/);
    }
  });
  await check(`${label}: resources, templates and prompts`, async () => {
    const rl = await client.listResources();
    assert.ok(rl.resources.some(x => x.uri === out.run_sql.structuredContent.result_uri));
    const tl = await client.listResourceTemplates();
    assert.ok(tl.resourceTemplates.some(x => x.uriTemplate === 'floe://results/{id}'));
    const pl = await client.listPrompts();
    assert.ok(pl.prompts.length >= 1);
    const p = await client.getPrompt({ name: 'explore_table', arguments: { table: 'sales.orders' } });
    assert.match(p.messages[0].content.text, /sales\.orders/);
    await client.ping();
  });
  return out;
}

async function stdio() {
  const client = new Client({ name: 'floe-test', version: '1' });
  const transport = new StdioClientTransport({ command: o.floe, args: ['mcp', `--catalog=${o.catalog}`, `--warehouse=${o.warehouse}`], stderr: 'inherit' });
  await client.connect(transport);
  await check('stdio: initialize negotiates the SDK version, serverInfo floe', () => {
    assert.equal(client.getServerVersion().name, 'floe');
    assert.ok(client.getServerCapabilities().tools);
    assert.ok(['2025-06-18', '2025-11-25'].includes(transport.protocolVersion ?? client._negotiatedProtocolVersion ?? '2025-11-25'));
  });
  await everyTool(client, 'stdio', 5);
  await client.close();

  const tight = new Client({ name: 'floe-test', version: '1' });
  await tight.connect(new StdioClientTransport({ command: o.floe, args: ['mcp', `--catalog=${o.catalog}`, `--warehouse=${o.warehouse}`, '--max-scan-bytes=1'], stderr: 'inherit' }));
  await check('stdio: a query over the scan budget is refused with a narrower query to try', async () => {
    const r = await tight.callTool({ name: 'run_sql', arguments: calls.run_sql });
    assert.equal(r.isError, true);
    assert.match(r.content[0].text, /over budget.*partitioned by country/);
    const v = await tight.callTool({ name: 'run_sql', arguments: { sql: 'VALUES (1)' } });
    assert.equal(v.isError, false);
  });
  await tight.close();
}

function httpClient(token) {
  const client = new Client({ name: 'floe-test', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(`${o.http}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  return { client, transport };
}

async function http() {
  const { client, transport } = httpClient(o.analyst);
  await client.connect(transport);
  await check('http: a session id was issued', () => assert.match(transport.sessionId, /^[0-9a-f]{32}$/));
  await everyTool(client, 'http analyst', 5);

  const de = httpClient(o.de_only);
  await de.client.connect(de.transport);
  await check('http: a row-filtered principal gets a different answer from the same call', async () => {
    const r = await de.client.callTool({ name: 'run_sql', arguments: calls.run_sql });
    assert.equal(r.isError, false);
    assert.equal(r.structuredContent.row_count, 2);
    assert.deepEqual(r.structuredContent.rows.map(x => x[1]), ['DE', 'DE']);
    assert.equal(r.structuredContent.receipt.principal, 'de_only');
  });
  await check("http: another principal's result link is not found", async () => {
    const { result_uri } = (await client.callTool({ name: 'run_sql', arguments: { sql: 'SELECT 1 AS x' } })).structuredContent;
    await assert.rejects(de.client.readResource({ uri: result_uri }), /not found/);
  });
  await de.client.close();

  const nb = httpClient(o.nobody);
  await nb.client.connect(nb.transport);
  await check('http: a principal without READ is refused (isError, 42501)', async () => {
    const r = await nb.client.callTool({ name: 'run_sql', arguments: calls.run_sql });
    assert.equal(r.isError, true);
    assert.match(r.content[0].text, /42501/);
    const d = await nb.client.callTool({ name: 'describe_table', arguments: calls.describe_table });
    assert.equal(d.isError, true);
  });
  await nb.client.close();

  await check('http: DELETE ends the session; the id is then 404', async () => {
    const sid = transport.sessionId;
    await transport.terminateSession();
    const r = await fetch(`${o.http}/mcp`, { method: 'POST', headers: { Authorization: `Bearer ${o.analyst}`, 'Content-Type': 'application/json', 'Mcp-Session-Id': sid }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) });
    assert.equal(r.status, 404);
  });
  await client.close();
}

async function raw() {
  const post = (headers, body) => fetch(`${o.http}/mcp`, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body) });
  const init = v => ({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: v, capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
  for (const [label, headers] of [['missing', {}], ['expired', { Authorization: `Bearer ${o.expired}` }], ['garbage', { Authorization: 'Bearer abc.def.ghi' }]]) {
    await check(`http: a ${label} token gets 401 with WWW-Authenticate resource_metadata`, async () => {
      const r = await post(headers, init('2025-06-18'));
      assert.equal(r.status, 401);
      const www = r.headers.get('www-authenticate');
      assert.match(www, /^Bearer resource_metadata="http:\/\/[^"]+\/\.well-known\/oauth-protected-resource"/);
    });
  }
  await check('http: RFC 9728 protected resource metadata', async () => {
    const r = await fetch(`${o.http}/.well-known/oauth-protected-resource`);
    const j = await r.json();
    assert.equal(j.resource, `${o.http}/mcp`);
    assert.deepEqual(j.authorization_servers, [o.http]);
    assert.deepEqual(j.bearer_methods_supported, ['header']);
  });
  const auth = { Authorization: `Bearer ${o.analyst}` };
  await check('http: version negotiation (known version kept, unknown answered with the newest)', async () => {
    let j = await (await post(auth, init('2025-06-18'))).json();
    assert.equal(j.result.protocolVersion, '2025-06-18');
    j = await (await post(auth, init('1999-01-01'))).json();
    assert.equal(j.result.protocolVersion, '2025-11-25');
  });
  await check('http: session, MCP-Protocol-Version and Origin rules', async () => {
    const r0 = await post(auth, init('2025-06-18'));
    const sid = r0.headers.get('mcp-session-id');
    assert.match(sid, /^[0-9a-f]{32}$/);
    const ping = { jsonrpc: '2.0', id: 2, method: 'ping' };
    assert.equal((await post(auth, ping)).status, 400);
    assert.equal((await post({ ...auth, 'Mcp-Session-Id': 'deadbeef' }, ping)).status, 404);
    assert.equal((await post({ ...auth, 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '2025-11-25' }, ping)).status, 400);
    assert.equal((await post({ ...auth, 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': '2025-06-18' }, ping)).status, 200);
    const n = await post({ ...auth, 'Mcp-Session-Id': sid }, { jsonrpc: '2.0', method: 'notifications/initialized' });
    assert.equal(n.status, 202);
    const bad = await (await post({ ...auth, 'Mcp-Session-Id': sid }, [ping])).json();
    assert.equal(bad.error.code, -32600);
    const evil = await post({ ...auth, 'Mcp-Session-Id': sid, Origin: 'http://evil.example' }, ping);
    assert.equal(evil.status, 403);
    const same = await post({ ...auth, 'Mcp-Session-Id': sid, Origin: o.http }, ping);
    assert.equal(same.status, 200);
    const g = await fetch(`${o.http}/mcp`, { headers: { ...auth, Accept: 'text/event-stream', 'Mcp-Session-Id': sid } });
    assert.equal(g.status, 405);
  });
}

await stdio();
await http();
await raw();
console.log(`${checks} checks, ${failures} failed`);
process.exit(failures ? 1 : 0);
