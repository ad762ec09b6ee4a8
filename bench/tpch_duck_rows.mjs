#!/usr/bin/env node
// tpch_duck_rows.mjs — turns tpch_duck.mjs's output (a line per query and run, then the process's peak RSS) into
// bench/tpch.sh's result lines: {"engine":"duckdb","mode":M,"query":Q,"run":R,"iter":I,"seconds":S,"maxrss_kb":K}.
// usage: node tpch_duck_rows.mjs DUCK.jsonl MODE RUN
import { readFileSync } from 'node:fs';

const [file, mode, run] = process.argv.slice(2);
const lines = readFileSync(file, 'utf8').trim().split('\n').filter(Boolean).map(JSON.parse);
const rss = lines.find(l => l.maxrss_kb)?.maxrss_kb ?? 0;
for (const l of lines.filter(l => l.query))
  console.log(JSON.stringify({ engine: 'duckdb', mode, query: l.query, run: Number(run), iter: l.run, seconds: l.seconds, maxrss_kb: rss }));
