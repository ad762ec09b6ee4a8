#!/usr/bin/env node
// tpch_duck.mjs — the DuckDB side of bench/tpch.sh and tests/interop/test_tpch_sf.sh: runs TPC-H queries in native
// DuckDB (@duckdb/node-api, pinned in tests/interop) over the Parquet files DIR/<table>.parquet (views named after
// the tables), in one process.
// usage: node tpch_duck.mjs --data=DIR --queries=DIR [--only=01,06] [--csv=OUTDIR] [--threads=N] [--runs=1]
//                           [--memory-limit=16GB]
//   --csv     write each query's result as OUTDIR/qNN.csv (header row; values in PostgreSQL's text style:
//             decimals exact, NULL empty) for tpch-compare.mjs
//   prints one JSON line per query and run: {"query":"q01","run":1,"seconds":0.123,"rows":4}
//   and at the end {"maxrss_kb": N} (the process's peak RSS, node included).
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(new URL('../tests/interop/package.json', import.meta.url));
const { DuckDBInstance } = await import(require.resolve('@duckdb/node-api'));

const opt = Object.fromEntries(process.argv.slice(2).map(a => { const [k, ...v] = a.replace(/^--/, '').split('='); return [k, v.join('=')]; }));
if (!opt.data || !opt.queries) { console.error('usage: tpch_duck.mjs --data=DIR --queries=DIR [--only=01,06] [--csv=OUTDIR] [--threads=N] [--runs=N]'); process.exit(2); }
const lit = (s) => `'${String(s).replaceAll("'", "''")}'`;
const config = { threads: String(opt.threads ?? 2) };
if (opt['memory-limit']) config.memory_limit = opt['memory-limit'];
const inst = await DuckDBInstance.create(':memory:', config);
const con = await inst.connect();
for (const t of ['nation', 'region', 'part', 'supplier', 'partsupp', 'customer', 'orders', 'lineitem']) {
  const f = `${opt.data}/${t}.parquet`;
  if (existsSync(f)) await con.run(`CREATE VIEW ${t} AS SELECT * FROM read_parquet(${lit(f)})`);
}
const text = (v) => {
  if (v === null || v === undefined) return null;
  if (typeof v === 'boolean') return v ? 't' : 'f';
  if (typeof v === 'bigint') return v.toString();
  return typeof v === 'object' ? v.toString() : String(v);
};
const csvCell = (s) => (s === null ? '' : (s === '' || /[",\r\n]/.test(s)) ? `"${s.replaceAll('"', '""')}"` : s);
const only = opt.only ? opt.only.split(',').map(s => s.padStart(2, '0')) : null;
const runs = Number(opt.runs ?? 1);
for (let q = 1; q <= 22; q++) {
  const id = String(q).padStart(2, '0');
  if (only && !only.includes(id)) continue;
  const sql = readFileSync(`${opt.queries}/q${id}.sql`, 'utf8');
  for (let run = 1; run <= runs; run++) {
    const t0 = process.hrtime.bigint();
    const r = await con.runAndReadAll(sql);
    const secs = Number(process.hrtime.bigint() - t0) / 1e9;
    const rows = r.getRows();
    console.log(JSON.stringify({ query: `q${id}`, run, seconds: Number(secs.toFixed(4)), rows: rows.length }));
    if (opt.csv && run === 1) {
      const lines = [r.columnNames().map(csvCell).join(',')];
      for (const row of rows) lines.push(row.map(v => csvCell(text(v))).join(','));
      writeFileSync(`${opt.csv}/q${id}.csv`, lines.join('\n') + '\n');
    }
  }
}
console.log(JSON.stringify({ maxrss_kb: process.resourceUsage().maxRSS }));
