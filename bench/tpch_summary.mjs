#!/usr/bin/env node
// tpch_summary.mjs — summarizes a bench/tpch.sh results file: per query the median time of floe and DuckDB, the
// ratio floe/DuckDB, the geometric mean of the ratios (over queries both engines answered), and the peak RSS of
// Q1 and Q9 for both (DuckDB's includes the node process, ~50 MB).
// usage: node tpch_summary.mjs RESULTS.jsonl SF THREADS
import { readFileSync } from 'node:fs';

const [file, sf, threads] = process.argv.slice(2);
const rows = readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map(JSON.parse);
const median = (a) => { const s = [...a].sort((x, y) => x - y); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const by = {};
for (const r of rows) {
  const k = (by[r.query] ??= { floe: [], duckdb: [], err: null, rss: {} });
  if (r.error) { k.err = r.error; continue; }
  k[r.engine].push(r.seconds);
  k.rss[r.engine] = Math.max(k.rss[r.engine] ?? 0, r.maxrss_kb ?? 0);
}
console.log(`TPC-H SF${sf}, ${threads} threads: median seconds per query (floe over Iceberg, DuckDB over Parquet)`);
console.log('query    floe_s   duckdb_s   ratio');
const ratios = [];
for (const q of Object.keys(by).sort()) {
  const k = by[q];
  const d = k.duckdb.length ? median(k.duckdb) : NaN;
  if (!k.floe.length) { console.log(`${q}   error     ${d.toFixed(3).padStart(8)}   -   (${String(k.err).slice(0, 80)})`); continue; }
  const f = median(k.floe), r = f / d;
  ratios.push(r);
  console.log(`${q}  ${f.toFixed(3).padStart(8)}  ${d.toFixed(3).padStart(8)}  ${r.toFixed(2).padStart(6)}`);
}
if (ratios.length) {
  const g = Math.exp(ratios.reduce((s, r) => s + Math.log(r), 0) / ratios.length);
  console.log(`geometric mean of ${ratios.length} ratios: ${g.toFixed(2)}`);
}
for (const q of ['q01', 'q09']) {
  const k = by[q];
  if (k) console.log(`peak RSS ${q}: floe ${((k.rss.floe ?? 0) / 1024).toFixed(0)} MB, DuckDB ${((k.rss.duckdb ?? 0) / 1024).toFixed(0)} MB (node included)`);
}
