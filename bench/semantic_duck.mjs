#!/usr/bin/env node
// semantic_duck.mjs - the DuckDB side of bench/semantic.sh: runs one hand-written SQL query RUNS times in one
// native DuckDB (@duckdb/node-api, pinned in tests/interop) process over Parquet files, one view per table.
// usage: node semantic_duck.mjs --view=NAME=GLOB... --sql=TEXT [--runs=N] [--threads=N] [--csv=FILE]
//   --csv writes the first run's rows (no header; NULL empty) for the answer check;
//   prints one JSON line per run {"run":1,"seconds":0.123,"rows":7}, then {"maxrss_kb":N} (node included).
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(new URL('../tests/interop/package.json', import.meta.url));
const { DuckDBInstance } = await import(require.resolve('@duckdb/node-api'));

const views = [];
const opt = {};
for (const a of process.argv.slice(2)) {
  const [k, ...v] = a.replace(/^--/, '').split('=');
  if (k === 'view') views.push([v[0], v.slice(1).join('=')]);
  else opt[k] = v.join('=');
}
if (!opt.sql || !views.length) { console.error('usage: semantic_duck.mjs --view=NAME=GLOB... --sql=TEXT [--runs=N] [--threads=N]'); process.exit(2); }
const lit = (s) => `'${String(s).replaceAll("'", "''")}'`;
const inst = await DuckDBInstance.create(':memory:', { threads: String(opt.threads ?? 2) });
const con = await inst.connect();
for (const [name, glob] of views) await con.run(`CREATE VIEW ${name} AS SELECT * FROM read_parquet(${lit(glob)})`);
for (let run = 1; run <= Number(opt.runs ?? 1); run++) {
  const t0 = process.hrtime.bigint();
  const r = await con.runAndReadAll(opt.sql);
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  const rows = r.getRows();
  console.log(JSON.stringify({ run, seconds: Number(secs.toFixed(4)), rows: rows.length }));
  if (opt.csv && run === 1)
    writeFileSync(opt.csv, rows.map((row) => row.map((v) => (v === null ? '' : String(v))).join(',')).join('\n') + '\n');
}
console.log(JSON.stringify({ maxrss_kb: process.resourceUsage().maxRSS }));
