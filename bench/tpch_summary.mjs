#!/usr/bin/env node
// tpch_summary.mjs — summarizes a bench/tpch.sh results file: per query the median time of floe and DuckDB (warm:
// iterations after the first of each process), the ratio floe/DuckDB, the geometric mean of the ratios (over the
// queries both engines answered), the worst ratio, and peak RSS per query (cold: the query's process; warm: the
// whole process; DuckDB's includes node's ~50 MB).
// usage: node tpch_summary.mjs RESULTS.jsonl SF THREADS MODE ROWGROUP
import { readFileSync } from 'node:fs';

const [file, sf, threads, mode = 'cold', rowgroup = 'default'] = process.argv.slice(2);
const rows = readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map(JSON.parse);
const median = (a) => { const s = [...a].sort((x, y) => x - y); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const by = {};
let warmErr = null;
for (const r of rows) {
  if (r.query === 'all') { warmErr = r.error; continue; }
  const k = (by[r.query] ??= { floe: [], duckdb: [], err: null, rss: {} });
  if (r.error) { k.err = r.error; continue; }
  k.rss[r.engine] = Math.max(k.rss[r.engine] ?? 0, r.maxrss_kb ?? 0);
  if (r.mode === 'warm' && r.iter === 1) continue;
  k[r.engine].push(r.seconds);
}
const mb = (kb) => (kb ? (kb / 1024).toFixed(0) : '-').padStart(7);
console.log(`TPC-H SF${sf} ${mode}, ${threads} threads, row groups: ${rowgroup}: median seconds (floe over Iceberg, DuckDB over Parquet)`);
if (warmErr) console.log(`floe's warm process failed: ${String(warmErr).slice(-200)}`);
console.log('query    floe_s   duckdb_s   ratio  floe_MB duck_MB');
const ratios = [];
let worst = null;
for (const q of Object.keys(by).sort()) {
  const k = by[q];
  const d = k.duckdb.length ? median(k.duckdb) : NaN;
  if (!k.floe.length) { console.log(`${q}   error     ${d.toFixed(3).padStart(8)}   -   (${String(k.err).slice(0, 80)})`); continue; }
  const f = median(k.floe), r = f / d;
  ratios.push(r);
  if (!worst || r > worst.r) worst = { q, r };
  console.log(`${q}  ${f.toFixed(3).padStart(8)}  ${d.toFixed(3).padStart(8)}  ${r.toFixed(2).padStart(6)}  ${mb(k.rss.floe)} ${mb(k.rss.duckdb)}`);
}
if (ratios.length) {
  const g = Math.exp(ratios.reduce((s, r) => s + Math.log(r), 0) / ratios.length);
  console.log(`geometric mean of ${ratios.length} ratios: ${g.toFixed(2)}; worst ${worst.q} ${worst.r.toFixed(2)}`);
}
