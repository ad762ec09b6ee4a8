#!/usr/bin/env node
// dashboard_duck.mjs — the DuckDB side of bench/dashboard.sh: one DuckDB process (@duckdb/node-api, views over the
// TPC-H Parquet files) answering the dashboard mix (bench/dashboard/*.sql: pgbench scripts, their `\set x random(a,
// b)` lines drawn the same way) on one connection per client for SECONDS, plus one connection running SELECT 1 in a
// loop. Prints one JSON line: {"clients":C,"queries":N,"errors":E,"qps":..,"p50_ms":..,"p95_ms":..,"p99_ms":..,
// "select1_max_ms":..,"select1_p99_ms":..,"maxrss_kb":..}.
// usage: node dashboard_duck.mjs --data=DIR --scripts=DIR --clients=C --seconds=S --threads=T --scale=SF
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(new URL('../tests/interop/package.json', import.meta.url));
const { DuckDBInstance } = await import(require.resolve('@duckdb/node-api'));
const opt = Object.fromEntries(process.argv.slice(2).map(a => { const [k, ...v] = a.replace(/^--/, '').split('='); return [k, v.join('=')]; }));
const clients = Number(opt.clients ?? 1), seconds = Number(opt.seconds ?? 60), scale = Number(opt.scale ?? 1);
const inst = await DuckDBInstance.create(':memory:', { threads: String(opt.threads ?? 2) });
const setup = await inst.connect();
for (const t of ['nation', 'region', 'part', 'supplier', 'partsupp', 'customer', 'orders', 'lineitem']) {
  const f = `${opt.data}/${t}.parquet`;
  if (existsSync(f)) await setup.run(`CREATE VIEW ${t} AS SELECT * FROM read_parquet('${f.replaceAll("'", "''")}')`);
}
// a pgbench script: `\set name random(lo, hi)` lines (lo/hi may use :scale), then one statement using :name
const scripts = readdirSync(opt.scripts).filter(f => f.endsWith('.sql') && f !== 'select1.sql').sort().map(f => {
  const lines = readFileSync(`${opt.scripts}/${f}`, 'utf8').split('\n');
  const sets = [], sql = [];
  for (const l of lines) {
    const m = l.match(/^\\set\s+(\w+)\s+random\((.+),\s*(.+)\)\s*$/);
    if (m) sets.push([m[1], m[2], m[3]]); else if (l.trim()) sql.push(l);
  }
  return { name: f, sets, sql: sql.join('\n') };
});
const evalBound = (s, vars) => Function(...Object.keys(vars), `return (${s.replace(/:(\w+)/g, '$1')});`)(...Object.values(vars));
const instantiate = (sc) => {
  const vars = { scale };
  for (const [n, lo, hi] of sc.sets) {
    const a = Math.round(evalBound(lo, vars)), b = Math.round(evalBound(hi, vars));
    vars[n] = a + Math.floor(Math.random() * (b - a + 1));
  }
  return sc.sql.replace(/:(\w+)/g, (m, n) => (n in vars ? String(vars[n]) : m));
};
const lat = [], probe = [];
let errors = 0, firstError = null;
const deadline = Date.now() + seconds * 1000;
const worker = async () => {
  const con = await inst.connect();
  while (Date.now() < deadline) {
    const sql = instantiate(scripts[Math.floor(Math.random() * scripts.length)]);
    const t0 = process.hrtime.bigint();
    try { await con.runAndReadAll(sql); } catch (e) { errors++; firstError ??= String(e).slice(0, 200); continue; }
    lat.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
};
const prober = async () => {
  const con = await inst.connect();
  while (Date.now() < deadline) {
    const t0 = process.hrtime.bigint();
    await con.runAndReadAll('SELECT 1');
    probe.push(Number(process.hrtime.bigint() - t0) / 1e6);
    await new Promise(r => setTimeout(r, 100));
  }
};
await Promise.all([...Array.from({ length: clients }, worker), prober()]);
const pct = (a, p) => { const s = [...a].sort((x, y) => x - y); return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : NaN; };
console.log(JSON.stringify({
  engine: 'duckdb', clients, queries: lat.length, errors, first_error: firstError, qps: lat.length / seconds,
  p50_ms: pct(lat, 0.5), p95_ms: pct(lat, 0.95), p99_ms: pct(lat, 0.99),
  select1_p99_ms: pct(probe, 0.99), select1_max_ms: probe.reduce((m, x) => (x > m ? x : m), 0), maxrss_kb: process.resourceUsage().maxRSS,
}));
