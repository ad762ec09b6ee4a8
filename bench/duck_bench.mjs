#!/usr/bin/env node
// duck_bench.mjs — the DuckDB side of bench/run.sh: runs one benchmark task in native DuckDB (@duckdb/node-api, the
// pinned copy under tests/interop/node_modules) and times it inside the process.
// usage: node duck_bench.mjs TASK --src=FILE [--out=FILE] [--threads=N] [--lo=DATE --hi=DATE]
//   write-parquet  COPY (select * from read_parquet(src)) TO out (ZSTD)
//   write-csv      COPY (select * from read_csv(src, typed columns)) TO out (ZSTD)
//   scan           aggregate every column of src (forces decoding every value)
//   filter         three columns, l_shipdate between lo and hi (row-group stats can prune)
// Prints one JSON line: {"seconds", "rows", "maxrss_kb", "result"}.
import { createRequire } from 'node:module';
const require = createRequire(new URL('../tests/interop/package.json', import.meta.url));
const { DuckDBInstance } = await import(require.resolve('@duckdb/node-api'));

const [task, ...rest] = process.argv.slice(2);
const opt = Object.fromEntries(rest.map(a => a.replace(/^--/, '').split('=')));
const lit = (s) => `'${String(s).replaceAll("'", "''")}'`;
const COLS = `{'l_orderkey': 'BIGINT', 'l_partkey': 'BIGINT', 'l_suppkey': 'BIGINT', 'l_linenumber': 'INTEGER',
  'l_quantity': 'DECIMAL(15,2)', 'l_extendedprice': 'DECIMAL(15,2)', 'l_discount': 'DECIMAL(15,2)', 'l_tax': 'DECIMAL(15,2)',
  'l_returnflag': 'VARCHAR', 'l_linestatus': 'VARCHAR', 'l_shipdate': 'DATE', 'l_commitdate': 'DATE', 'l_receiptdate': 'DATE',
  'l_shipinstruct': 'VARCHAR', 'l_shipmode': 'VARCHAR', 'l_comment': 'VARCHAR'}`;
const SQL = {
  'write-parquet': () => `copy (select * from read_parquet(${lit(opt.src)})) to ${lit(opt.out)} (format parquet, compression zstd)`,
  'write-csv': () => `copy (select * from read_csv(${lit(opt.src)}, header = true, columns = ${COLS})) to ${lit(opt.out)} (format parquet, compression zstd)`,
  scan: () => `select count(*), sum(l_orderkey), sum(l_partkey), sum(l_suppkey), sum(l_linenumber), sum(l_quantity),
    sum(l_extendedprice), sum(l_discount), sum(l_tax), max(l_returnflag), max(l_linestatus), max(l_shipdate),
    max(l_commitdate), max(l_receiptdate), max(l_shipinstruct), max(l_shipmode), sum(length(l_comment))
    from read_parquet(${lit(opt.src)})`,
  filter: () => `select count(*), sum(l_orderkey), sum(l_extendedprice), max(l_shipdate) from read_parquet(${lit(opt.src)})
    where l_shipdate between date ${lit(opt.lo)} and date ${lit(opt.hi)}`,
};
if (!SQL[task]) { console.error(`unknown task ${task}`); process.exit(2); }
const con = await (await DuckDBInstance.create(':memory:', { threads: String(opt.threads ?? 1) })).connect();
const t0 = process.hrtime.bigint();
const r = await con.runAndReadAll(SQL[task]());
const secs = Number(process.hrtime.bigint() - t0) / 1e9;
const rows = r.getRowsJson();
const first = rows[0]?.[0];
console.log(JSON.stringify({ seconds: Number(secs.toFixed(4)), rows: first === undefined ? null : String(first), maxrss_kb: process.resourceUsage().maxRSS, result: rows[0] }));
