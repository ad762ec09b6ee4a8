#!/usr/bin/env node
// writes_duck.mjs — the DuckDB side of bench/writes.sh: runs one statement (a COPY ... TO) in native DuckDB
// (@duckdb/node-api, pinned in tests/interop), in a fresh process, and prints
//   {"seconds": S, "maxrss_kb": N}
// usage: node writes_duck.mjs --threads=N [--memory-limit=SIZE] --sql='COPY ...'
import { createRequire } from 'node:module';

const require = createRequire(new URL('../tests/interop/package.json', import.meta.url));
const { DuckDBInstance } = await import(require.resolve('@duckdb/node-api'));
const opt = Object.fromEntries(process.argv.slice(2).map(a => { const [k, ...v] = a.replace(/^--/, '').split('='); return [k, v.join('=')]; }));
if (!opt.sql) { console.error('usage: writes_duck.mjs --threads=N [--memory-limit=SIZE] --sql=STATEMENT'); process.exit(2); }
const config = { threads: String(opt.threads ?? 2) };
if (opt['memory-limit']) config.memory_limit = opt['memory-limit'];
const inst = await DuckDBInstance.create(':memory:', config);
const con = await inst.connect();
const t0 = process.hrtime.bigint();
await con.run(opt.sql);
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
console.log(JSON.stringify({ seconds: Number(seconds.toFixed(4)), maxrss_kb: process.resourceUsage().maxRSS }));
