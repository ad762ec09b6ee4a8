#!/usr/bin/env node
// semantic_check.mjs - bench/semantic.sh's answer check: two CSV files (no header) hold the same rows, numbers
// equal to 1e-9 relative (decimal vs double renderings differ), text and NULLs (empty) exactly.
// usage: node semantic_check.mjs FLOE.csv DUCK.csv  (exit 1 and the first difference when they differ)
import { readFileSync } from 'node:fs';

const rows = (f) => readFileSync(f, 'utf8').trim().split('\n').map((l) => l.split(','));
const [a, b] = process.argv.slice(2).map(rows);
const same = (x, y) => {
  if (x === y) return true;
  const nx = Number(x), ny = Number(y);
  if (x === '' || y === '' || Number.isNaN(nx) || Number.isNaN(ny)) return false;
  return Math.abs(nx - ny) <= 1e-9 * Math.max(1, Math.abs(nx), Math.abs(ny));
};
if (a.length !== b.length) { console.log(`rows: floe ${a.length}, duckdb ${b.length}`); process.exit(1); }
for (let i = 0; i < a.length; i++)
  if (a[i].length !== b[i].length || a[i].some((v, k) => !same(v, b[i][k]))) {
    console.log(`row ${i + 1}: floe ${a[i].join(',')} | duckdb ${b[i].join(',')}`);
    process.exit(1);
  }
