#!/usr/bin/env node
// mcp-metrics-sdk.mjs — floe's MCP metric tools (docs/mcp.md, "Metric tools") driven by the official TypeScript
// SDK client over stdio (`floe mcp --models`) and Streamable HTTP (`floe serve --models`, bearer tokens): the six
// metric tools are listed and called and each structuredContent validates against its outputSchema (ajv); the seed
// scenario (net revenue by month for 2024 in region EU) equals the rows test_mcp_metrics.sh got from `floe semantic
// query` and hand-written SQL (--want), with a receipt; the full result is read back through its resource_link;
// "revenue" answers with candidates, a filter value that does not exist with the closest values; an unknown metric is a tool error naming it; principals with different row
// filters get different numbers (--want_c8 for the one whose orders are filtered to customer ids divisible by 8).
// Used by test_mcp_metrics.sh. Exit 0 when every check holds; each failure prints "FAIL: ...".
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import Ajv from 'ajv';

const o = Object.fromEntries(process.argv.slice(2).map(a => { const i = a.indexOf('='); return [a.slice(2, i), a.slice(i + 1)]; }));
let failures = 0;
function check(name, fn) {
  return Promise.resolve().then(fn).then(() => console.log(`ok   ${name}`),
    e => { failures++; console.log(`FAIL: ${name}: ${e && e.stack ? e.stack : e}`); });
}
const ajv = new Ajv({ strict: false, allErrors: true });
function validate(tool, r) {
  assert.equal(r.isError, false, `${tool.name} isError: ${JSON.stringify(r.content)}`);
  const v = ajv.compile(tool.outputSchema);
  assert.ok(v(r.structuredContent), `${tool.name}: ${ajv.errorsText(v.errors)}`);
  const text = r.content.find(c => c.type === 'text');
  assert.deepEqual(JSON.parse(text.text), r.structuredContent, `${tool.name}: text block differs`);
  assert.equal(typeof r.structuredContent.receipt.principal, 'string');
  assert.match(r.structuredContent.receipt.model_version, /^sha256:[0-9a-f]{64}$/);
}

const seed = {
  metrics: ['net_revenue'], group_by: ['metric_time__month'], order_by: ['metric_time__month'],
  where: ["{{ Dimension('customer__region') }} = 'EU'", "{{ TimeDimension('metric_time', 'day') }} >= '2024-01-01'",
    "{{ TimeDimension('metric_time', 'day') }} < '2025-01-01'"],
};
const calls = {
  list_metrics: { search: 'revenue', max_items: 5 },
  get_dimensions: { metrics: ['net_revenue', 'order_total'] },
  get_entities: { metrics: ['net_revenue'] },
  get_dimension_values: { dimension: 'customer__region', metrics: ['net_revenue'] },
  query_metrics: { ...seed, max_rows: 3 },
  compile_sql: seed,
};
const rowsText = sc => sc.rows.map(r => r.join(',')).join('\n');

async function metricTools(client, label, want) {
  const { tools } = await client.listTools();
  const byName = Object.fromEntries(tools.map(t => [t.name, t]));
  await check(`${label}: tools/list has the six metric tools with schemas, read-only`, () => {
    for (const n of Object.keys(calls)) {
      assert.ok(byName[n], `no ${n}`);
      assert.equal(byName[n].outputSchema.type, 'object');
      assert.equal(byName[n].annotations.readOnlyHint, true);
    }
  });
  const out = {};
  for (const n of Object.keys(calls)) {
    await check(`${label}: ${n} validates against its outputSchema`, async () => {
      out[n] = await client.callTool({ name: n, arguments: calls[n] });
      validate(byName[n], out[n]);
    });
  }
  await check(`${label}: the seed scenario equals floe semantic query and SQL, with a receipt and the full result`, async () => {
    const sc = out.query_metrics.structuredContent;
    assert.equal(sc.row_count, want.split('\n').length);
    assert.equal(sc.rows.length, 3);
    assert.equal(sc.truncated, true);
    assert.ok(want.startsWith(rowsText(sc) + '\n'), `preview ${rowsText(sc)} is not the start of ${want}`);
    const link = out.query_metrics.content.find(c => c.type === 'resource_link');
    const res = await client.readResource({ uri: link.uri });
    const csv = res.contents[0].text.trim().split(/\r?\n/).slice(1).join('\n');
    assert.equal(csv, want);
    assert.match(sc.receipt.replay_sql, /FOR VERSION AS OF/);
    assert.deepEqual(sc.receipt.tables.map(t => t.table).sort(), ['default.customers', 'default.orders']);
    assert.ok(sc.receipt.tables.every(t => Number.isInteger(t.snapshot_id) && t.committed_at));
    assert.equal(out.compile_sql.structuredContent.sql, sc.receipt.sql.replace(/\nLIMIT \d+$/, ''));
    assert.match(sc.receipt.sql, /LIMIT \d+$/);
  });
  await check(`${label}: get_dimensions / get_entities / get_dimension_values answers`, () => {
    const dims = out.get_dimensions.structuredContent.dimensions.map(d => d.name);
    assert.ok(dims.includes('metric_time') && dims.includes('customer__region') && dims.includes('order__status'));
    assert.ok(!dims.includes('visit__channel'));
    const ents = out.get_entities.structuredContent.entities.map(e => e.name);
    assert.ok(ents.includes('customer') && ents.includes('order') && !ents.includes('visit'));
    assert.deepEqual(out.get_dimension_values.structuredContent.values, ['APAC', 'EU', 'US', null]);
  });
  await check(`${label}: "revenue" answers with candidates (gross, net) and their descriptions, validated`, async () => {
    const r = await client.callTool({ name: 'query_metrics', arguments: { metrics: ['revenue'] } });
    validate(byName.query_metrics, r);
    const sc = r.structuredContent;
    assert.equal(sc.ambiguous, true);
    const m = sc.candidates[0].matches;
    assert.ok(m.some(c => c.name === 'gross_revenue') && m.some(c => c.name === 'net_revenue'));
    assert.match(m.find(c => c.name === 'net_revenue').description, /Certified by finance/);
    assert.equal(sc.rows, undefined);
  });
  await check(`${label}: a filter value that does not exist ('eu') answers with the closest existing values, validated`, async () => {
    const r = await client.callTool({ name: 'query_metrics', arguments: { metrics: ['net_revenue'], where: ["{{ Dimension('customer__region') }} = 'eu'"] } });
    validate(byName.query_metrics, r);
    const sc = r.structuredContent;
    assert.equal(sc.ambiguous, true);
    assert.deepEqual(sc.value_candidates[0], { dimension: 'customer__region', asked: 'eu', matches: ['EU'], values: 3 });
    assert.equal(sc.rows, undefined);
  });
  await check(`${label}: a saved query (listed by list_metrics), adjusted by where and limit, validates`, async () => {
    assert.ok(out.list_metrics.structuredContent.saved_queries.some(q => q.name === 'monthly_net_revenue_by_region'));
    const r = await client.callTool({ name: 'query_metrics', arguments: { saved_query: 'monthly_net_revenue_by_region', where: [seed.where[0]], limit: 3 } });
    validate(byName.query_metrics, r);
    assert.deepEqual(r.structuredContent.metrics, ['net_revenue', 'return_rate']);
    assert.equal(r.structuredContent.row_count, 3);
    assert.ok(r.structuredContent.rows.every(row => row.includes('EU')));
  });
  await check(`${label}: propose_metric (not read-only) compares a draft with the certified metrics and files it, validated`, async () => {
    assert.equal(byName.propose_metric.annotations.readOnlyHint, false);
    const r = await client.callTool({ name: 'propose_metric', arguments: {
      name: 'completed_gross', description: 'Gross of completed orders.', type: 'simple', measure: 'gross_amount',
      filter: "{{ Dimension('order__status') }} = 'completed'" } });
    validate(byName.propose_metric, r);
    const sc = r.structuredContent;
    assert.equal(sc.status, 'pending');
    const same = sc.comparison.related.find(m => m.name === 'completed_revenue');
    assert.equal(Number(same.value), Number(sc.comparison.draft.value));
    assert.equal(same.ratio, 1);
    assert.match(sc.file, /\/\.pending\/completed_gross-/);
    const bad = await client.callTool({ name: 'propose_metric', arguments: { name: 'x', description: 'd', type: 'simple' } });
    assert.equal(bad.isError, true);
    assert.match(bad.content[0].text, /"measure"/);
  });
  await check(`${label}: an unknown metric is a tool error naming it`, async () => {
    const r = await client.callTool({ name: 'query_metrics', arguments: { metrics: ['shoe_sizes'] } });
    assert.equal(r.isError, true);
    assert.match(r.content[0].text, /unknown metric 'shoe_sizes'/);
  });
  return out;
}

async function http(token) {
  const client = new Client({ name: 'floe-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${o.http}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

const want = o.want.trim(), wantC8 = o.want_c8.trim();
{
  const client = new Client({ name: 'floe-test', version: '1' });
  await client.connect(new StdioClientTransport({ command: o.floe, args: ['mcp', `--catalog=${o.catalog}`, `--warehouse=${o.warehouse}`, `--models=${o.models}`], stderr: 'inherit' }));
  await metricTools(client, 'stdio', want);
  await client.close();
}
{
  const analyst = await http(o.analyst);
  await metricTools(analyst, 'http analyst', want);
  const c8 = await http(o.c8_only);
  await check('http: two principals with different row filters get different numbers from query_metrics', async () => {
    const a = await analyst.callTool({ name: 'query_metrics', arguments: { ...seed, max_rows: 100 } });
    const e = await c8.callTool({ name: 'query_metrics', arguments: { ...seed, max_rows: 100 } });
    assert.equal(rowsText(a.structuredContent), want);
    assert.equal(rowsText(e.structuredContent), wantC8);
    assert.notEqual(want, wantC8);
    assert.equal(e.structuredContent.receipt.principal, 'c8_only');
  });
  const nobody = await http(o.nobody);
  await check('http: a principal without grants gets no numbers (42501) but may list the metrics', async () => {
    const r = await nobody.callTool({ name: 'query_metrics', arguments: seed });
    assert.equal(r.isError, true);
    assert.match(r.content[0].text, /42501/);
    const l = await nobody.callTool({ name: 'list_metrics', arguments: {} });
    assert.equal(l.isError, false);
    const p = await nobody.callTool({ name: 'propose_metric', arguments: { name: 'nobodys', description: 'd', type: 'simple', measure: 'gross_amount' } });
    assert.equal(p.isError, true);
    assert.match(p.content[0].text, /42501/);
  });
  await Promise.all([analyst.close(), c8.close(), nobody.close()]);
}
{
  const client = new Client({ name: 'floe-test', version: '1' });
  await client.connect(new StdioClientTransport({ command: o.floe, args: ['mcp', `--catalog=${o.catalog}`, `--warehouse=${o.warehouse}`], stderr: 'inherit' }));
  await check('stdio without --models: no metric tools', async () => {
    const { tools } = await client.listTools();
    assert.ok(!tools.some(t => t.name === 'query_metrics' || t.name === 'list_metrics'));
    assert.ok(tools.some(t => t.name === 'run_sql'));
  });
  await client.close();
}
process.exit(failures ? 1 : 0);
