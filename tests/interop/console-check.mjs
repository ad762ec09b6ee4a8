#!/usr/bin/env node
// console-check.mjs - the web console (docs/console.md) end to end in headless Chromium (Debian's chromium,
// driven by playwright-core with executablePath; no browser download): log in with a principal's client
// credentials; browse to default.orders and read a field id that the REST table load confirms; open its
// snapshots, count the older one (= `floe table count --snapshot`, --old_count) and time-travel to it through
// the SQL editor; run queries (Ctrl+Enter, grid equal to POST /v1/sql called from Node, paging, completion,
// EXPLAIN ANALYZE, cancel, CSV download); plot net_revenue by month in the metrics explorer and compare the
// chart's and grid's numbers with query_metrics called from Node through the MCP SDK and with hand-written SQL
// (--want); keyboard: Tab reaches Run and Enter runs; a principal without grants sees 403 errors and no data;
// a principal without WRITE is refused a rollback, one with WRITE rolls back; a server with --insecure-no-auth
// (--noauth_url) shows its data without a login page. No CSP violation may occur.
// Screenshots go to --shots. Used by test_console.sh; exit 0 when every check holds, each failure "FAIL: ...".
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { isLosslessNumber, parse as losslessParse } from 'lossless-json';
import { chromium } from 'playwright-core';
import { parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';

const o = Object.fromEntries(process.argv.slice(2).map((a) => { const i = a.indexOf('='); return [a.slice(2, i), a.slice(i + 1)]; }));
const url = o.url;
let failures = 0;
let step = 0;
async function check(name, fn) {
  try {
    await fn();
    console.log(`ok   ${name}`);
  } catch (e) {
    failures++;
    console.log(`FAIL: ${name}: ${e && e.stack ? e.stack : e}`);
  }
  await page.screenshot({ path: join(o.shots, `${String(++step).padStart(2, '0')}-${name.replace(/[^a-z0-9]+/gi, '-').slice(0, 40)}.png`), fullPage: true });
}

// ---- direct API calls from Node, as the oracle ----
async function token(id, secret) {
  const r = await fetch(`${url}/v1/oauth/tokens`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: id, client_secret: secret }) });
  assert.equal(r.status, 200, `token for ${id}`);
  return (await r.json()).access_token;
}
async function restTable(tok) {
  const r = await fetch(`${url}/v1/namespaces/default/tables/orders`, { headers: { Authorization: `Bearer ${tok}` } });
  assert.equal(r.status, 200);
  const text = await r.text();
  const cur = /"current-snapshot-id"\s*:\s*(-?\d+)/.exec(text)[1]; // 64-bit: read as text
  return { meta: JSON.parse(text).metadata, current: cur };
}
async function sqlRows(tok, sql) {
  const r = await fetch(`${url}/v1/sql`, { method: 'POST', body: sql, headers: { Authorization: `Bearer ${tok}`, Accept: 'application/x-ndjson' } });
  assert.equal(r.status, 200, sql);
  const lines = (await r.text()).trim().split('\n');
  const done = JSON.parse(lines.pop()).$done;
  assert.ok(done, `no $done for ${sql}`);
  // cells as the NDJSON source text (lossless-json): numbers keep their digits ("10.00")
  return lines.map((l) => done.columns.map((c) => {
    const v = losslessParse(l)[c.name];
    return v === null ? 'NULL' : isLosslessNumber(v) ? v.value : String(v);
  }));
}
async function mcpQuery(tok, args) {
  const client = new Client({ name: 'console-check', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${tok}` } } }));
  const r = await client.callTool({ name: 'query_metrics', arguments: args });
  await client.close();
  assert.equal(r.isError, false, JSON.stringify(r.content));
  return r.structuredContent;
}

// ---- the browser ----
const profile = mkdtempSync(join(tmpdir(), 'floe-console-chromium-'));
const ctx = await chromium.launchPersistentContext(profile, {
  executablePath: o.chromium || '/usr/bin/chromium', headless: true, acceptDownloads: true, viewport: { width: 1280, height: 900 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
});
const page = ctx.pages()[0] || (await ctx.newPage());
page.setDefaultTimeout(20000);
const consoleErrors = [];
page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
page.on('pageerror', (e) => consoleErrors.push(`pageerror: ${e.message}`));
await page.addInitScript(() => {
  window.__csp = [];
  document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
});
let dialogs = 0;
page.on('dialog', (d) => { dialogs++; d.accept(); });

const text = (sel) => page.locator(sel).innerText();
async function login(id, secret) {
  await page.goto(`${url}/console/`);
  await page.locator('#login-id').fill(id);
  await page.locator('#login-secret').fill(secret);
  await page.locator('#login-secret').press('Enter');
  await page.locator('#who').filter({ hasText: `Signed in as ${id}` }).waitFor();
}
// Every visible control has an accessible name: a <label> for inputs, text or aria-label for buttons.
async function assertLabelled(where) {
  const bad = await page.evaluate(() => [...document.querySelectorAll('input, select, textarea, button')]
    .filter((el) => !el.closest('[hidden]'))
    .filter((el) => !(el.tagName === 'BUTTON' ? el.getAttribute('aria-label') || el.textContent.trim()
      : [...(el.labels || [])].map((l) => l.textContent).join('').trim() || el.getAttribute('aria-label')))
    .map((el) => el.outerHTML.slice(0, 100)));
  assert.deepEqual(bad, [], `unlabelled controls on ${where}`);
}
async function gridCells(sel) {
  return page.locator(`${sel} tbody tr`).evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent)));
}
async function runSql(sqlText) {
  const before = await page.locator('#result-meta').innerText();
  await page.locator('#sql-input').fill(sqlText);
  await page.locator('#sql-input').press('Escape');
  await page.locator('#sql-input').press('Control+Enter');
  await page.waitForFunction((b) => { const m = document.querySelector('#result-meta'); return m && !m.textContent.startsWith('Running') && (m.textContent !== b || document.querySelector('#results .error')); }, before);
  await page.waitForFunction(() => !document.querySelector('#result-meta').textContent.startsWith('Running'));
}

const analystTok = await token(o.analyst_id, o.analyst_secret);
const { meta } = await restTable(analystTok);

await check('login page, then sign in as the analyst', async () => {
  await page.goto(`${url}/`); // GET / redirects to the console
  assert.match(page.url(), /\/console\/$/);
  await page.locator('#login-id').waitFor();
  assert.equal(await page.locator('label[for="login-id"]').count(), 1);
  await page.locator('#login-id').fill(o.analyst_id);
  await page.locator('#login-secret').fill('wrong-secret');
  await page.locator('#login-submit').click();
  await page.locator('form.login .error').waitFor();
  assert.match(await text('form.login .error'), /401/);
  await assertLabelled('the login page');
  await login(o.analyst_id, o.analyst_secret);
  assert.ok(await page.evaluate(() => sessionStorage.getItem('floe.token')), 'token kept in sessionStorage');
});

await check('catalog: default.orders schema with field ids', async () => {
  await page.locator('a[data-table="default.orders"]').click();
  await page.locator('#schema').waitFor();
  const rows = await gridCells('#schema');
  const want = meta.schemas.find((s) => s['schema-id'] === meta['current-schema-id']).fields;
  assert.deepEqual(rows.map((r) => [r[0], r[1], r[2]]), want.map((f) => [String(f.id), f.name, f.type]));
  assert.ok(rows.some((r) => r[1] === 'order_id' && r[0] === String(want.find((f) => f.name === 'order_id').id)));
  await page.locator('#partition-spec').waitFor();
  await page.locator('#properties').waitFor();
  await assertLabelled('the catalog');
});

await check('catalog: nested fields, partition spec and sort order of default.events', async () => {
  await page.locator('a[data-table="default.events"]').click();
  // the orders page had a #partition-spec too: wait for the events page itself
  await page.locator('#table-title').filter({ hasText: 'default.events' }).waitFor();
  await page.locator('#schema').filter({ hasText: 'tags.a' }).waitFor();
  await page.locator('#partition-spec').waitFor();
  const r = await fetch(`${url}/v1/namespaces/default/tables/events`, { headers: { Authorization: `Bearer ${analystTok}` } });
  const m = (await r.json()).metadata;
  const fields = m.schemas.find((s) => s['schema-id'] === m['current-schema-id']).fields;
  const rows = await gridCells('#schema');
  const byName = Object.fromEntries(rows.map((x) => [x[1], x]));
  const tags = fields.find((f) => f.name === 'tags');
  for (const sub of tags.type.fields) assert.equal(byName[`tags.${sub.name}`][0], String(sub.id), `tags.${sub.name}`);
  const labels = fields.find((f) => f.name === 'labels');
  assert.equal(byName['labels.element'][0], String(labels.type['element-id']));
  assert.equal(byName.labels[2], `list<${labels.type.element}>`);
  const spec = m['partition-specs'].find((s) => s['spec-id'] === m['default-spec-id']).fields;
  const name = (id) => fields.find((f) => f.id === id).name;
  assert.deepEqual(await gridCells('#partition-spec'), spec.map((f) => [String(f['field-id']), f.name, name(f['source-id']), f.transform]));
  assert.deepEqual((await gridCells('#partition-spec')).map((x) => x[3]), ['day', 'bucket[4]']);
  const order = m['sort-orders'].find((s) => s['order-id'] === m['default-sort-order-id']).fields;
  assert.deepEqual(await gridCells('#sort-order'), order.map((f) => [name(f['source-id']), f.transform, f.direction, f['null-order']]));
  assert.equal(await page.locator('.tree a[aria-current="true"]').innerText(), 'events');
  await page.locator('a[data-table="default.orders"]').click();
  await page.locator('#table-title').filter({ hasText: 'default.orders' }).waitFor();
});

await check('snapshots: timeline, charts, count of the older snapshot', async () => {
  await page.getByRole('link', { name: 'Snapshots', exact: true }).last().click();
  await page.locator('#snapshots').waitFor();
  const ids = await page.locator('#snapshots tbody tr').evaluateAll((trs) => trs.map((tr) => tr.dataset.snapshot));
  assert.deepEqual(ids, [o.old_snapshot, o.new_snapshot]);
  assert.equal(await page.locator('svg.chart circle').count(), 4, 'two points on each of the two charts');
  const pts = await page.locator('svg.chart circle').evaluateAll((cs) => cs.map((c) => [c.dataset.x, c.dataset.y, c.getAttribute('cx')]));
  assert.deepEqual(pts.slice(0, 2).map((p) => p.slice(0, 2)), [[o.old_snapshot, o.old_count], [o.new_snapshot, o.new_count]], 'total-records chart');
  assert.notEqual(pts[0][2], pts[1][2], 'two snapshots, two places on the time axis (even within one second)');
  await page.getByRole('button', { name: `Count rows at snapshot ${o.old_snapshot}` }).click();
  await page.locator(`td[data-count-of="${o.old_snapshot}"]`).filter({ hasText: /^\d+$/ }).waitFor();
  assert.equal(await text(`td[data-count-of="${o.old_snapshot}"]`), o.old_count);
  assert.equal(await text(`td[data-total-records="${o.old_snapshot}"]`), o.old_count);
  await assertLabelled('the snapshots page');
});

await check('snapshots: a rollback without WRITE is refused (403) after the confirm dialog', async () => {
  const d0 = dialogs;
  await page.locator(`button[data-rollback="${o.old_snapshot}"]`).click();
  await page.locator('#snapshot-msg .error').waitFor();
  assert.equal(dialogs, d0 + 1, 'a confirm() dialog was shown');
  assert.match(await text('#snapshot-msg .error'), /403.*(42501|lacks privilege)/s);
  assert.equal(await page.locator('#snapshots tbody tr').count(), 2, 'the timeline stays');
  assert.equal((await restTable(analystTok)).current, o.new_snapshot, 'nothing changed');
});

await check('time travel: the older snapshot in the SQL editor', async () => {
  await page.locator(`button[data-travel="${o.old_snapshot}"]`).click();
  await page.locator('#result').waitFor();
  assert.match(await page.locator('#sql-input').inputValue(), new RegExp(`FOR VERSION AS OF ${o.old_snapshot} LIMIT 100`));
  assert.match(await text('#result-meta'), new RegExp(`SELECT ${Math.min(100, Number(o.old_count))}: `));
  assert.match(await text('#result-meta'), new RegExp(`default\\.orders@${o.old_snapshot}`));
  assert.match(await text('#page-info'), new RegExp(`of ${Math.min(100, Number(o.old_count))}$`));
  // every row of the older snapshot: order ids 1..old_count (the later insert added ids above)
  const ids = (await gridCells('#result')).map((r) => Number(r[0]));
  assert.ok(ids.every((i) => i >= 1 && i <= Number(o.old_count)), `ids ${ids}`);
});

await check('SQL editor: Ctrl+Enter runs, grid equals POST /v1/sql, paging', async () => {
  const q = 'SELECT status, count(*) AS n, sum(gross_amount) AS gross FROM "default"."orders" GROUP BY status ORDER BY status';
  await runSql(q);
  assert.deepEqual(await gridCells('#result'), await sqlRows(analystTok, q));
  await runSql('SELECT order_id FROM "default"."orders" ORDER BY order_id');
  assert.equal(await text('#page-info'), `rows 1\u201350 of ${o.new_count}`);
  await page.locator('#next-page').click();
  assert.equal(await text('#page-info'), `rows 51\u2013100 of ${o.new_count}`);
  assert.equal((await gridCells('#result'))[0][0], '51');
  await page.locator('#page-size').selectOption('100');
  assert.equal(await text('#page-info'), `rows 1\u2013100 of ${o.new_count}`);
  await assertLabelled('the SQL editor');
});

await check('SQL editor: highlighting, completion of table and column names', async () => {
  await page.locator('#sql-input').fill('');
  await page.locator('#sql-input').pressSequentially('SELECT gross_am');
  await page.locator('#completions li').filter({ hasText: 'gross_amount' }).first().waitFor();
  await page.locator('#sql-input[aria-expanded="true"]').waitFor();
  assert.match(await text('#completions'), /gross_amount/);
  await page.locator('#sql-input').press('Enter');
  assert.equal(await page.locator('#sql-input').inputValue(), 'SELECT gross_amount');
  await page.locator('#sql-input').pressSequentially(' FROM "default".ord');
  await page.locator('#completions li').first().waitFor();
  assert.match(await text('#completions'), /"default"\.orders/);
  await page.locator('#sql-input').press('Escape');
  assert.equal(await page.locator('#completions').isHidden(), true);
  assert.ok(await page.locator('.editor pre .tok-kw').count() >= 2, 'keywords highlighted');
  assert.ok(await page.locator('.editor pre .tok-id').count() >= 1, 'quoted identifier highlighted');
});

await check('keyboard: Tab from the editor reaches Run, Enter runs', async () => {
  await page.locator('#sql-input').fill('SELECT 42 AS answer');
  await page.locator('#sql-input').press('Escape');
  await page.locator('#sql-input').focus();
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'run');
  const outline = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
  assert.notEqual(outline, 'none', 'visible focus');
  await page.keyboard.press('Enter');
  await page.locator('#result td').filter({ hasText: '42' }).waitFor();
  // the nav links are reachable by keyboard too, and Enter follows them
  await page.locator('#nav a[href="#/catalog"]').focus();
  await page.keyboard.press('Enter');
  await page.waitForURL(/#\/catalog$/);
  await page.goBack();
  await page.locator('#sql-input').waitFor();
});

await check('SQL editor: EXPLAIN ANALYZE tree, CSV and Parquet download, cancel', async () => {
  await page.locator('#sql-input').fill('SELECT count(*) FROM "default"."orders" WHERE status = \'placed\'');
  await page.locator('#explain').click();
  await page.locator('#plan').waitFor();
  assert.match(await text('#plan'), /rows=\d+/);
  assert.match(await text('#plan'), /\n\s+\S/, 'indented children');
  await runSql('SELECT order_id, status FROM "default"."orders" ORDER BY order_id LIMIT 3');
  const [dl] = await Promise.all([page.waitForEvent('download'), page.locator('#csv').click()]);
  const csv = readFileSync(await dl.path(), 'utf8');
  const want = await sqlRows(analystTok, 'SELECT order_id, status FROM "default"."orders" ORDER BY order_id LIMIT 3');
  assert.equal(csv, `order_id,status\r\n${want.map((r) => r.join(',')).join('\r\n')}\r\n`);
  // Parquet: the server writes the file; hyparquet reads it back
  const [pdl] = await Promise.all([page.waitForEvent('download'), page.locator('#parquet:not([disabled])').click()]);
  assert.equal(pdl.suggestedFilename(), 'result.parquet');
  const pbuf = readFileSync(await pdl.path());
  assert.equal(pbuf.subarray(0, 4).toString(), 'PAR1');
  const prows = await parquetReadObjects({ file: pbuf.buffer.slice(pbuf.byteOffset, pbuf.byteOffset + pbuf.length), compressors });
  assert.deepEqual(prows.map((r) => [String(r.order_id), r.status]), want.map((r) => [String(r[0]), r[1]]));
  await page.locator('#sql-input').fill('SELECT count(*) FROM generate_series(1, 4000000000) AS g(i) WHERE i % 7 = 3');
  await page.locator('#run').click();
  await page.locator('#cancel:not([disabled])').waitFor();
  await page.locator('#cancel').click();
  await page.locator('#results .error').waitFor({ timeout: 60000 });
  assert.match(await text('#results .error'), /cancel/i);
});

await check('metrics explorer: net_revenue by month equals query_metrics and SQL', async () => {
  await page.locator('#nav a[href="#/metrics"]').click();
  await page.locator('input[name="metric"][value="net_revenue"]').check();
  await page.locator('#dimension option[value="metric_time__month"]').waitFor({ state: 'attached' });
  await page.locator('#dimension').selectOption('metric_time__month');
  await page.locator('#metric-run').click();
  await page.locator('#metric-chart circle').first().waitFor();
  const points = await page.locator('#metric-chart circle').evaluateAll((cs) => cs.map((c) => [c.dataset.x, c.dataset.y]));
  const cells = await gridCells('#metric-rows');
  // the arguments the explorer sends (its row limit defaults to 1000)
  const direct = await mcpQuery(analystTok, { metrics: ['net_revenue'], group_by: ['metric_time__month'],
    order_by: ['metric_time__month'], limit: 1000, max_rows: 10000, max_bytes: 1000000 });
  assert.ok(direct.rows.length >= 6, 'months');
  assert.deepEqual(points, direct.rows.map((r) => r.map(String)));
  assert.deepEqual(cells, direct.rows.map((r) => r.map(String)));
  assert.deepEqual(cells.map((r) => r.join(',')).join('\n'), o.want, 'hand-written SQL');
  assert.equal(await text('#compiled-sql'), direct.receipt.sql);
  assert.match(await text('#receipt'), /"principal": "analyst"/);
  assert.match(await text('#receipt'), new RegExp(`"snapshot_id": "?${o.new_snapshot}`));
  await assertLabelled('the metrics explorer');
  // a filter: EU only, against query_metrics with the same where
  const eu = "{{ Dimension('customer__region') }} = 'EU'";
  await page.locator('#metric-where').fill(eu);
  await page.locator('#metric-run').click();
  await page.locator('#metric-rows').filter({ hasNotText: cells[0][1] }).waitFor();
  const euDirect = await mcpQuery(analystTok, { metrics: ['net_revenue'], group_by: ['metric_time__month'],
    order_by: ['metric_time__month'], limit: 1000, max_rows: 10000, max_bytes: 1000000, where: [eu] });
  assert.deepEqual(await gridCells('#metric-rows'), euDirect.rows.map((r) => r.map(String)));
  assert.notDeepEqual(euDirect.rows, direct.rows);
  await page.locator('#metric-where').fill('');
  await page.locator('#chart-kind').selectOption('bar');
  await page.locator('#metric-run').click();
  await page.locator('#metric-chart rect').first().waitFor();
  const bars = await page.locator('#metric-chart rect').evaluateAll((rs) => rs.map((r) => r.dataset.y));
  assert.deepEqual(bars, direct.rows.map((r) => String(r[1])));
});

await check('files view: histogram and small-files alert', async () => {
  await page.goto(`${url}/console/#/files?${new URLSearchParams({ t: JSON.stringify(['default', 'orders']) })}`);
  await page.locator('#files').waitFor();
  assert.equal(await page.locator('#files tbody tr').count(), Number(o.files));
  assert.equal(await page.locator('svg.chart rect').evaluateAll((rs) => rs.reduce((a, r) => a + Number(r.dataset.y), 0)), Number(o.files));
  assert.match(await text('#small-files'), new RegExp(`${o.files} of ${o.files} data files are smaller`));
  assert.match(await text('#compaction'), /never compacted/);
  await assertLabelled('the files view');
});

await check('pipelines: SHOW PIPELINES list, throughput and lag per commit, dead letters', async () => {
  await page.locator('#nav a[href="#/pipelines"]').click();
  await page.locator('#pipelines').waitFor();
  const list = await text('#pipelines');
  assert.match(list, /default\.clicks\s+files-clicks/);
  await page.locator('#pipeline-pick').selectOption({ label: 'default.clicks \u2190 files-clicks' });
  await page.locator('#freshness').waitFor();
  assert.match(await text('#freshness'), /checkpoint 2\b/);
  const bars = await page.locator('svg.chart rect').evaluateAll((rs) => rs.map((r) => r.dataset.y));
  assert.deepEqual(bars, ['3', '2']);
  // the landing files' source lag (commit time minus the newest file's mtime), one point per commit
  assert.match(await text('#freshness'), /Source lag at that commit: \d+\.\d{3} s/);
  const lags = await page.locator('#lag svg circle').evaluateAll((cs) => cs.map((c) => Number(c.dataset.y)));
  assert.equal(lags.length, 2);
  assert.ok(lags.every((v) => v >= 0 && v < 3600), `lags ${lags}`);
  await page.locator('#dead-letters').waitFor();
  assert.equal(await page.locator('#dead-letters tbody tr').count(), 1);
  assert.match(await text('#dead-letters'), /3\.jsonl/);
  await assertLabelled('the pipelines page');
});

await check('an expired or bad token brings the login page back', async () => {
  await page.evaluate(() => sessionStorage.setItem('floe.token', 'not-a-token'));
  await page.goto(`${url}/console/#/catalog`);
  await page.locator('#login-id').waitFor();
  assert.match(await text('form.login .error'), /session has ended/);
  // also from a page whose render fails as a whole on the 401 (the table picker)
  await page.evaluate(() => sessionStorage.setItem('floe.token', 'not-a-token'));
  await page.goto(`${url}/console/#/snapshots`);
  await page.locator('#login-id').waitFor();
  await page.waitForLoadState('networkidle');
  assert.equal(await page.locator('#login-id').count(), 1, 'the login page stays');
  await login(o.analyst_id, o.analyst_secret);
});

await check('a principal without grants sees 403 errors, not data', async () => {
  await page.locator('#logout').click();
  await page.locator('#login-id').waitFor();
  assert.equal(await page.evaluate(() => sessionStorage.getItem('floe.token')), null, 'logout drops the token');
  await login(o.nobody_id, o.nobody_secret);
  await page.goto(`${url}/console/#/catalog`);
  await page.locator('.tree .error').waitFor();
  assert.match(await text('.tree .error'), /403/);
  await page.goto(`${url}/console/#/catalog?${new URLSearchParams({ t: JSON.stringify(['default', 'orders']) })}`);
  await page.locator('main .error').last().waitFor();
  assert.match(await page.locator('main .error').last().innerText(), /403/);
  assert.equal(await page.locator('#schema').count(), 0, 'no schema shown');
  await page.goto(`${url}/console/#/sql?${new URLSearchParams({ q: 'SELECT * FROM "default"."orders"' })}`);
  await page.locator('#run').click();
  await page.locator('#results .error').waitFor();
  assert.match(await text('#results .error'), /^403 .*lacks privilege.*\(SQLSTATE 42501\)$/s);
  assert.equal(await page.locator('#result').count(), 0, 'no rows shown');
  await page.locator('#nav a[href="#/metrics"]').click();
  await page.locator('input[name="metric"][value="net_revenue"]').check();
  await page.locator('#metric-run').click();
  await page.locator('#metric-out .error').waitFor();
  assert.match(await text('#metric-out .error'), /403/);
  assert.equal(await page.locator('#metric-rows').count(), 0, 'no metric rows shown');
});

await check('a principal with WRITE rolls back to the older snapshot', async () => {
  await page.locator('#logout').click();
  await login(o.editor_id, o.editor_secret);
  await page.goto(`${url}/console/#/snapshots?${new URLSearchParams({ t: JSON.stringify(['default', 'orders']) })}`);
  await page.locator(`button[data-rollback="${o.old_snapshot}"]`).click();
  await page.locator(`tr.current[data-snapshot="${o.old_snapshot}"]`).waitFor();
  assert.equal((await restTable(analystTok)).current, o.old_snapshot);
});

await check('insecure-no-auth: no login page, data shown, no model', async () => {
  await page.goto(`${o.noauth_url}/console/#/catalog`);
  await page.locator('a[data-table="default.orders"]').waitFor();
  assert.equal(await page.locator('#login-id').count(), 0, 'no login form');
  assert.match(await text('#who'), /anonymous/);
  assert.equal(await page.locator('#logout').isHidden(), true, 'nothing to log out of');
  // a link with ?q= fills the editor but does not run it
  await page.goto(`${o.noauth_url}/console/#/sql?${new URLSearchParams({ q: 'SELECT count(*) AS n FROM "default"."orders"' })}`);
  await page.locator('#sql-input').waitFor();
  await page.waitForLoadState('networkidle');
  assert.equal(await page.locator('#result').count(), 0, 'nothing ran from the URL');
  assert.match(await page.locator('#sql-input').inputValue(), /^SELECT count/);
  await page.locator('#run').click();
  await page.locator('#result td').first().waitFor();
  assert.match(await text('#result td'), /^\d+$/);
  // that server has no semantic model: the metrics page says so
  await page.locator('#nav a[href="#/metrics"]').click();
  await page.locator('#no-model').waitFor();
});

await check('no CSP violations, no script errors', async () => {
  assert.deepEqual(await page.evaluate(() => window.__csp), []);
  const bad = consoleErrors.filter((e) => !/status of (401|403|409)|Failed to load resource/.test(e));
  assert.deepEqual(bad, []);
});

await ctx.close();
rmSync(profile, { recursive: true, force: true });
console.log(failures ? `${failures} console check(s) failed` : 'all console checks passed');
process.exit(failures ? 1 : 0);
