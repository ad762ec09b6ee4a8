#!/usr/bin/env node
// tpch-compare.mjs — compares a query's CSV output with the expected CSV (both with a header row, RFC 4180,
// NULL as an empty unquoted field) under the TPC-H answer rules used by test_tpch*.sh:
//   - same number of rows, in the same order (every TPC-H query orders its output completely);
//   - column names equal (case-insensitive) unless --no-header-check;
//   - strings, dates and integers: exact;
//   - numbers whose expected text has at most 2 fractional digits (money, quantities): |actual - expected| <= 0.01;
//   - other numbers (averages, ratios, products of decimals): |actual - expected| <= 1e-6 + 1e-9 * |expected|.
//     (TPC-H's own validation rule, clause 2.1.3.5, is looser: 1% for ratios and averages, $100 for sums.)
// usage: node tpch-compare.mjs ACTUAL.csv EXPECTED.csv [--no-header-check]
// Exit 0 when equal; else prints the first differences (at most 5) and exits 1.
import { readFileSync } from 'node:fs';

export function parseCsv(text) {
  const rows = [];
  let row = [], cell = '', quoted = false, wasQuoted = false, i = 0;
  const endCell = () => { row.push(wasQuoted || cell !== '' ? cell : null); cell = ''; wasQuoted = false; };
  while (i < text.length) {
    const c = text[i];
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') { cell += '"'; i += 2; continue; }
        quoted = false; i++; continue;
      }
      cell += c; i++; continue;
    }
    if (c === '"') { quoted = true; wasQuoted = true; i++; continue; }
    if (c === ',') { endCell(); i++; continue; }
    if (c === '\r' && text[i + 1] === '\n') { i++; continue; }
    if (c === '\n') { endCell(); rows.push(row); row = []; i++; continue; }
    cell += c; i++;
  }
  if (cell !== '' || wasQuoted || row.length) { endCell(); rows.push(row); }
  return rows;
}

const NUM = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
const fracDigits = (s) => { const m = /\.(\d*)/.exec(s); return m && !/[eE]/.test(s) ? m[1].length : (/[eE]/.test(s) ? 99 : 0); };

export function cellsEqual(a, e) {
  if (a === null || e === null) return a === e;
  if (a === e) return true;
  if (NUM.test(a) && NUM.test(e)) {
    const isInt = (s) => /^[-+]?\d+$/.test(s);
    if (isInt(e) && isInt(a)) return BigInt(a) === BigInt(e);
    const av = Number(a), ev = Number(e);
    if (fracDigits(e) <= 2) return Math.abs(av - ev) <= 0.01 + 1e-12 * Math.abs(ev);
    return Math.abs(av - ev) <= 1e-6 + 1e-9 * Math.abs(ev);
  }
  return false;
}

export function compareCsv(actualText, expectedText, { headerCheck = true } = {}) {
  const act = parseCsv(actualText), exp = parseCsv(expectedText);
  const diffs = [];
  if (!act.length) return ['no output (not even a header row)'];
  const [ah, ...ar] = act, [eh, ...er] = exp;
  if (ah.length !== eh.length) diffs.push(`columns: ${ah.length} vs expected ${eh.length} (${ah.join(',')} / ${eh.join(',')})`);
  else if (headerCheck && ah.some((h, k) => String(h).toLowerCase() !== String(eh[k]).toLowerCase()))
    diffs.push(`header: ${ah.join(',')} vs expected ${eh.join(',')}`);
  if (ar.length !== er.length) diffs.push(`rows: ${ar.length} vs expected ${er.length}`);
  const n = Math.min(ar.length, er.length);
  for (let r = 0; r < n && diffs.length < 5; r++) {
    for (let c = 0; c < Math.max(ar[r].length, er[r].length); c++) {
      if (!cellsEqual(ar[r][c] ?? null, er[r][c] ?? null)) {
        diffs.push(`row ${r + 1} column ${c + 1} (${eh[c] ?? '?'}): ${JSON.stringify(ar[r][c])} vs expected ${JSON.stringify(er[r][c])}`);
        break;
      }
    }
  }
  return diffs;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [actual, expected, ...flags] = process.argv.slice(2);
  if (!actual || !expected) { console.error('usage: tpch-compare.mjs ACTUAL.csv EXPECTED.csv [--no-header-check]'); process.exit(2); }
  const diffs = compareCsv(readFileSync(actual, 'utf8'), readFileSync(expected, 'utf8'),
    { headerCheck: !flags.includes('--no-header-check') });
  if (diffs.length) { for (const d of diffs) console.log(`  ${d}`); process.exit(1); }
}
