#!/usr/bin/env node
// summarize.mjs — the report of bench/run.sh: per-run times, medians, floe/DuckDB ratio, peak RSS, and a check that
// both engines agree on the row counts of the scan and filter tasks.
// usage: node summarize.mjs RESULTS.jsonl ROWS DUCK_THREADS
import { readFileSync } from 'node:fs';
const [file, rows, threads] = process.argv.slice(2);
const recs = readFileSync(file, 'utf8').trim().split('\n').map(l => JSON.parse(l));
const med = (a) => { const s = [...a].sort((x, y) => x - y); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
console.log(`\nfloe vs DuckDB, ${rows} rows, DuckDB threads=${threads} (results: ${file})`);
console.log('task            engine   runs (s)                    median (s)  peak RSS (MB)');
let mismatch = false;
for (const task of ['write-parquet', 'write-csv', 'scan', 'filter']) {
  const m = {};
  for (const engine of ['floe', 'duckdb']) {
    const rs = recs.filter(r => r.task === task && r.engine === engine);
    if (!rs.length) continue;
    const t = rs.map(r => r.data.seconds), rss = Math.max(...rs.map(r => r.data.maxrss_kb)) / 1024;
    m[engine] = { med: med(t), rows: rs[0].data.rows };
    console.log(`${task.padEnd(15)} ${engine.padEnd(8)} ${t.map(x => x.toFixed(3)).join(' ').padEnd(27)} ${med(t).toFixed(3).padStart(10)}  ${rss.toFixed(0).padStart(13)}`);
  }
  if (m.floe && m.duckdb) {
    console.log(`${''.padEnd(15)} ratio floe/DuckDB: ${(m.floe.med / m.duckdb.med).toFixed(2)}`);
    if ((task === 'scan' || task === 'filter') && String(m.floe.rows) !== String(m.duckdb.rows)) {
      console.log(`  ROW COUNT MISMATCH in ${task}: floe ${m.floe.rows}, duckdb ${m.duckdb.rows}`); mismatch = true;
    }
  }
}
const pr = recs.find(r => r.task === 'filter' && r.engine === 'floe');
if (pr) console.log(`filter: floe pruned ${pr.data.row_groups_pruned} of ${pr.data.row_groups} row groups, read ${(pr.data.bytes_read / 1048576).toFixed(1)} MB`);
process.exitCode = mismatch ? 1 : 0;
