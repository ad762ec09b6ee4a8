#!/usr/bin/env node
// tpch_scaling.mjs — issue 23 item 2: how each TPC-H query's time and peak memory grow with the scale factor, floe
// against DuckDB, from bench/tpch.sh cold results (a fresh process per query, so peak RSS is the query's own).
// usage: node bench/tpch_scaling.mjs OUT.svg SF=RESULTS.jsonl [SF=RESULTS.jsonl ...]
//   e.g. node bench/tpch_scaling.mjs bench/tpch-scaling.svg 1=bench/results/tpch-sf1-cold-X.jsonl \
//        3=bench/results/tpch-sf3-cold-Y.jsonl 10=bench/results/tpch-sf10-cold-Z.jsonl
// Prints per query and engine the median seconds and peak MB at each scale factor and the growth exponent from the
// smallest to the largest (log(t_max / t_min) / log(sf_max / sf_min): 1 = linear, below 1 = better than linear);
// writes an SVG with two log-log panels (time, peak RSS): one line per query and engine (floe solid, DuckDB
// dashed), the total over all queries in bold, and a slope-1 reference.
import { readFileSync, writeFileSync } from 'node:fs';

const [outSvg, ...specs] = process.argv.slice(2);
if (!outSvg || specs.length < 2) {
  console.error('usage: tpch_scaling.mjs OUT.svg SF=RESULTS.jsonl SF=RESULTS.jsonl [...]');
  process.exit(2);
}
const median = (a) => { const s = [...a].sort((x, y) => x - y); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const engines = ['floe', 'duckdb'];
const data = {}; // data[engine][query][sf] = {s, mb}
const sfs = [];
for (const spec of specs) {
  const [sfText, file] = spec.split('=');
  const sf = Number(sfText);
  sfs.push(sf);
  const acc = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const r = JSON.parse(line);
    if (r.error || r.query === 'all' || r.mode !== 'cold') continue;
    const k = ((acc[r.engine] ??= {})[r.query] ??= { s: [], kb: 0 });
    k.s.push(r.seconds);
    k.kb = Math.max(k.kb, r.maxrss_kb ?? 0);
  }
  for (const e of engines)
    for (const [q, k] of Object.entries(acc[e] ?? {}))
      (((data[e] ??= {})[q] ??= {})[sf] = { s: median(k.s), mb: k.kb / 1024 });
}
sfs.sort((a, b) => a - b);
const lo = sfs[0], hi = sfs[sfs.length - 1];
const queries = Object.keys(data.floe ?? {}).filter(q => sfs.every(sf => data.floe[q][sf] && data.duckdb?.[q]?.[sf])).sort();
const growth = (pts, key) => Math.log(pts[hi][key] / pts[lo][key]) / Math.log(hi / lo);

const head = ['query', ...engines.flatMap(e => sfs.map(sf => `${e}_s@${sf}`)), 'floe_exp', 'duck_exp', ...engines.flatMap(e => sfs.map(sf => `${e}_MB@${sf}`)), 'floe_mexp', 'duck_mexp'];
console.log(head.join('\t'));
const total = { floe: {}, duckdb: {} };
for (const q of queries) {
  const row = [q];
  for (const e of engines) for (const sf of sfs) row.push(data[e][q][sf].s.toFixed(3));
  row.push(growth(data.floe[q], 's').toFixed(2), growth(data.duckdb[q], 's').toFixed(2));
  for (const e of engines) for (const sf of sfs) row.push(data[e][q][sf].mb.toFixed(0));
  row.push(growth(data.floe[q], 'mb').toFixed(2), growth(data.duckdb[q], 'mb').toFixed(2));
  console.log(row.join('\t'));
  for (const e of engines)
    for (const sf of sfs) {
      const t = (total[e][sf] ??= { s: 0, mb: 0 });
      t.s += data[e][q][sf].s;
      t.mb = Math.max(t.mb, data[e][q][sf].mb);
    }
}
const trow = ['total'];
for (const e of engines) for (const sf of sfs) trow.push(total[e][sf].s.toFixed(3));
trow.push(growth(total.floe, 's').toFixed(2), growth(total.duckdb, 's').toFixed(2));
for (const e of engines) for (const sf of sfs) trow.push(total[e][sf].mb.toFixed(0));
trow.push(growth(total.floe, 'mb').toFixed(2), growth(total.duckdb, 'mb').toFixed(2));
console.log(trow.join('\t'));

// ---- the SVG: two log-log panels ----
const W = 460, H = 380, M = { l: 60, r: 20, t: 40, b: 50 };
const colors = { floe: '#1f6fb4', duckdb: '#e07b00' };
function panel(x0, key, title, unit) {
  const vals = [];
  for (const e of engines) for (const q of queries) for (const sf of sfs) vals.push(data[e][q][sf][key]);
  for (const e of engines) for (const sf of sfs) vals.push(total[e][sf][key]);
  const ymin = Math.max(Math.min(...vals) * 0.8, 1e-3), ymax = Math.max(...vals) * 1.25;
  const lx = (sf) => x0 + M.l + (Math.log(sf / lo) / Math.log(hi / lo)) * (W - M.l - M.r);
  const ly = (v) => M.t + (1 - Math.log(v / ymin) / Math.log(ymax / ymin)) * (H - M.t - M.b);
  const out = [];
  out.push(`<text x="${x0 + W / 2}" y="22" text-anchor="middle" font-size="14">${title}</text>`);
  out.push(`<line x1="${x0 + M.l}" y1="${H - M.b}" x2="${x0 + W - M.r}" y2="${H - M.b}" stroke="#333"/>`);
  out.push(`<line x1="${x0 + M.l}" y1="${M.t}" x2="${x0 + M.l}" y2="${H - M.b}" stroke="#333"/>`);
  for (const sf of sfs)
    out.push(`<text x="${lx(sf)}" y="${H - M.b + 16}" text-anchor="middle" font-size="11">SF${sf}</text>`);
  for (let d = Math.pow(10, Math.floor(Math.log10(ymin))); d <= ymax; d *= 10)
    for (const m of [1, 2, 5]) {
      const v = d * m;
      if (v < ymin || v > ymax) continue;
      out.push(`<line x1="${x0 + M.l - 4}" y1="${ly(v)}" x2="${x0 + W - M.r}" y2="${ly(v)}" stroke="#eee"/>`);
      out.push(`<text x="${x0 + M.l - 6}" y="${ly(v) + 4}" text-anchor="end" font-size="10">${v >= 1 ? v : v.toPrecision(1)}</text>`);
    }
  out.push(`<text x="${x0 + 14}" y="${H / 2}" font-size="11" transform="rotate(-90 ${x0 + 14} ${H / 2})" text-anchor="middle">${unit} (log)</text>`);
  const line = (pts, e, width, dash, tip) =>
    `<polyline fill="none" stroke="${colors[e]}" stroke-width="${width}"${dash ? ' stroke-dasharray="5,3"' : ''} points="${sfs.map(sf => `${lx(sf).toFixed(1)},${ly(pts[sf][key]).toFixed(1)}`).join(' ')}"><title>${tip}</title></polyline>`;
  for (const e of engines)
    for (const q of queries) out.push(line(data[e][q], e, 0.8, e === 'duckdb', `${e} ${q}`));
  for (const e of engines) out.push(line(total[e], e, 3, e === 'duckdb', `${e} ${key === 's' ? 'sum of all queries' : 'largest query'}`));
  // slope 1 from the floe total's smallest point
  const base = total.floe[lo][key];
  out.push(`<line x1="${lx(lo)}" y1="${ly(base)}" x2="${lx(hi)}" y2="${ly(base * hi / lo)}" stroke="#888" stroke-dasharray="2,3"><title>linear growth</title></line>`);
  return out.join('\n');
}
const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${2 * W}" height="${H + 40}" font-family="sans-serif">
<rect width="100%" height="100%" fill="white"/>
${panel(0, 's', 'TPC-H time per query vs scale factor (cold)', 'seconds')}
${panel(W, 'mb', 'Peak RSS per query vs scale factor (cold)', 'MB')}
<g font-size="12" transform="translate(${M.l}, ${H + 18})">
<line x1="0" y1="0" x2="24" y2="0" stroke="${colors.floe}" stroke-width="3"/><text x="30" y="4">floe (Iceberg tables)</text>
<line x1="190" y1="0" x2="214" y2="0" stroke="${colors.duckdb}" stroke-width="3" stroke-dasharray="5,3"/><text x="220" y="4">DuckDB (Parquet files)</text>
<line x1="400" y1="0" x2="424" y2="0" stroke="#888" stroke-dasharray="2,3"/><text x="430" y="4">linear growth</text>
<text x="560" y="4">thin: a query; bold: all (time summed, peak max)</text>
</g>
</svg>
`;
writeFileSync(outSvg, svg);
console.log(`wrote ${outSvg} (${queries.length} queries, SF ${sfs.join(', ')})`);
