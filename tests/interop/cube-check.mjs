// cube-check.mjs - Cube's official JavaScript client (@cubejs-client/core, pinned in cube-client/) against floe
// serve's Cube REST API (src/server/h_cube.c), run by test_cube_api.sh:
//   node cube-check.mjs URL TOKEN_ANALYST TOKEN_C8 TOKEN_NOBODY EXPECTED_CSV EXPECTED_C8_CSV
// meta() lists net_revenue and the dimensions; load() of "net revenue by month for 2024 in region EU" through
// ResultSet.tablePivot() and chartPivot() equals `floe semantic query` (EXPECTED_CSV: month,value lines), and the
// row-filtered principal gets its filtered numbers; sql() returns the compiled SQL; bad queries, a principal
// without grants and a bad token are errors with Cube's error body. Prints "N passed, N failed".
import { createRequire } from 'node:module';

const require = createRequire(new URL('./cube-client/package.json', import.meta.url));
const core = require('@cubejs-client/core');

const [url, tokAnalyst, tokC8, tokNobody, wantCsv, wantC8Csv] = process.argv.slice(2);
let passed = 0, failed = 0;
const check = (cond, what) => { if (cond) passed++; else { failed++; console.log('FAIL:', what); } };
const api = (token) => (core.default || core.cube)(token, { apiUrl: `${url}/cubejs-api/v1` });
const rows = (csv) => csv.trim().split('\n').map((l) => l.split(','));

const seed = {
  measures: ['metrics.net_revenue'],
  timeDimensions: [{ dimension: 'metrics.metric_time', granularity: 'month', dateRange: ['2024-01-01', '2024-12-31'] }],
  filters: [{ member: 'metrics.customer__region', operator: 'equals', values: ['EU'] }],
  order: { 'metrics.metric_time': 'asc' },
};
const monthly = (rs) => rs.tablePivot({ fillMissingDates: false }).map((r) => [String(r['metrics.metric_time.month']).slice(0, 10), r['metrics.net_revenue']]);

async function main() {
  const analyst = api(tokAnalyst);
  const meta = await analyst.meta();
  const members = meta.membersForQuery(null, 'measures').map((m) => m.name);
  check(members.includes('metrics.net_revenue'), `meta measures: ${members.slice(0, 5)}`);
  const dims = meta.membersForQuery(null, 'dimensions').map((m) => m.name);
  check(dims.includes('metrics.customer__region') && dims.includes('metrics.metric_time'), `meta dimensions: ${dims.slice(0, 6)}`);
  check(meta.resolveMember('metrics.net_revenue', 'measures').title === 'Metrics Net Revenue', 'resolveMember title');

  const rs = await analyst.load(seed);
  const got = monthly(rs);
  const want = rows(wantCsv);
  check(JSON.stringify(got) === JSON.stringify(want), `EU 2024 net_revenue by month:\n${JSON.stringify(got)}\nwant ${JSON.stringify(want)}`);
  const chart = rs.chartPivot({ fillMissingDates: false });
  check(chart.length === want.length && chart.every((p, i) => Math.abs(p['metrics.net_revenue'] - Number(want[i][1])) < 1e-6),
    `chartPivot: ${JSON.stringify(chart.slice(0, 2))}`);
  check(rs.seriesNames().some((s) => s.key === 'metrics.net_revenue'), 'seriesNames');
  check(rs.loadResponse.results[0].annotation.measures['metrics.net_revenue'].type === 'number', 'annotation');
  const receipt = rs.loadResponse.results[0].receipt || rs.loadResponse.receipt;
  check(!receipt || receipt.model_version, 'receipt carried through');

  const c8 = monthly(await api(tokC8).load(seed));
  check(JSON.stringify(c8) === JSON.stringify(rows(wantC8Csv)), `row-filtered principal:\n${JSON.stringify(c8)}\nwant ${wantC8Csv}`);

  const byRegion = await analyst.load({ measures: ['metrics.net_revenue', 'metrics.order_total'], dimensions: ['metrics.customer__region'],
    order: [['metrics.net_revenue', 'desc']], limit: 2 });
  const top = byRegion.tablePivot();
  check(top.length === 2 && Number(top[0]['metrics.net_revenue']) >= Number(top[1]['metrics.net_revenue']), `order and limit: ${JSON.stringify(top)}`);
  const paged = (await analyst.load({ measures: ['metrics.net_revenue'], dimensions: ['metrics.customer__region'],
    order: [['metrics.net_revenue', 'desc']], limit: 1, offset: 1 })).tablePivot();
  check(paged.length === 1 && paged[0]['metrics.customer__region'] === top[1]['metrics.customer__region'], `offset: ${JSON.stringify(paged)}`);
  const ored = (await analyst.load({ measures: ['metrics.order_total'], dimensions: ['metrics.customer__region'],
    filters: [{ or: [{ member: 'metrics.customer__region', operator: 'equals', values: ['EU'] },
      { member: 'metrics.customer__region', operator: 'startsWith', values: ['U'] }] }] })).tablePivot();
  check(ored.map((r) => r['metrics.customer__region']).sort().join() === 'EU,US', `or filter: ${JSON.stringify(ored)}`);
  const notSet = (await analyst.load({ measures: ['metrics.order_total'], dimensions: ['metrics.customer__region'],
    filters: [{ member: 'metrics.customer__region', operator: 'notSet' }] })).tablePivot();
  check(notSet.length === 1 && notSet[0]['metrics.customer__region'] === null, `notSet: ${JSON.stringify(notSet)}`);
  const quoted = (await analyst.load({ measures: ['metrics.order_total'], dimensions: ['metrics.customer__region'],
    filters: [{ member: 'metrics.customer__region', operator: 'equals', values: ["x' OR '1'='1"] }] })).tablePivot();
  check(quoted.length === 0, `a quote in a value is data: ${JSON.stringify(quoted)}`);

  const sql = await analyst.sql(seed);
  const text = sql.rawQuery().sql[0];
  check(/SELECT/i.test(text) && text.includes('gross_amount'), `sql(): ${String(text).slice(0, 120)}`);

  // relative date ranges, resolved to dates in the query's time zone (UTC here) when the query is parsed
  const ymd = (d) => d.toISOString().slice(0, 10);
  const now = new Date();
  const day = (offset) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + offset));
  const month0 = (dm) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + dm, 1));
  const q0 = Math.floor(now.getUTCMonth() / 3) * 3;
  const weekday = (now.getUTCDay() + 6) % 7; // Monday = 0
  const relative = {
    'today': [ymd(day(0)), ymd(day(0))],
    'yesterday': [ymd(day(-1)), ymd(day(-1))],
    'last 7 days': [ymd(day(-7)), ymd(day(-1))],
    'this week': [ymd(day(-weekday)), ymd(day(6 - weekday))],
    'Last Month': [ymd(month0(-1)), ymd(new Date(month0(0) - 86400000))],
    'this quarter': [ymd(new Date(Date.UTC(now.getUTCFullYear(), q0, 1))), ymd(new Date(Date.UTC(now.getUTCFullYear(), q0 + 3, 0)))],
    'next 2 months': [ymd(month0(1)), ymd(new Date(month0(3) - 86400000))],
    'this year': [`${now.getUTCFullYear()}-01-01`, `${now.getUTCFullYear()}-12-31`],
    'from 3 years ago to now': [ymd(new Date(Date.UTC(now.getUTCFullYear() - 3, now.getUTCMonth(), now.getUTCDate()))), ymd(day(0))],
  };
  for (const [text, [from, to]] of Object.entries(relative)) {
    const q = { measures: ['metrics.net_revenue'], timeDimensions: [{ dimension: 'metrics.metric_time', dateRange: text }] };
    const compiled = (await analyst.sql(q)).rawQuery().sql[0];
    check(compiled.includes(`'${from}'`) && compiled.includes(`'${to}'`), `dateRange '${text}': want ${from}..${to} in ${compiled.slice(-300)}`);
  }
  // the data (2024) lies within the last 10 years: the same months as the absolute range
  const rel = monthly(await analyst.load({ ...seed, timeDimensions: [{ ...seed.timeDimensions[0], dateRange: 'from 10 years ago to now' }] }));
  check(JSON.stringify(rel) === JSON.stringify(want), `'from 10 years ago to now' by month: ${JSON.stringify(rel)}`);

  const fails = async (what, fn, re) => {
    try { await fn(); check(false, `${what}: no error`); } catch (e) { check(re.test(String(e.message || e)), `${what}: ${e.message || e}`); }
  };
  await fails('unknown measure', () => analyst.load({ measures: ['metrics.nope'] }), /nope/);
  await fails('other cube', () => analyst.load({ measures: ['orders.count'] }), /not a member/);
  await fails('bad relative date range', () => analyst.load({ measures: ['metrics.net_revenue'],
    timeDimensions: [{ dimension: 'metrics.metric_time', dateRange: 'last fortnight' }] }), /not a date range/);
  await fails('template syntax in a value', () => analyst.load({ measures: ['metrics.net_revenue'],
    filters: [{ member: 'metrics.customer__region', operator: 'equals', values: ["{{ Entity('customer') }}"] }] }), /template/);
  await fails('a principal without grants', () => api(tokNobody).load(seed), /permission denied|lacks privilege/);
  await fails('a bad token', () => api('not-a-token').meta(), /./);
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}
main().catch((e) => { console.log('FAIL:', e.stack || e); process.exit(1); });
