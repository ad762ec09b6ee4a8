// files.js - a table's data files (the "t$files" metadata table through SQL, so READ on the table is checked
// by the engine): a file-size histogram (powers of two), a small-files alert, the compaction status (the last
// "replace" snapshot of the table's history), and the files themselves.
import { loadTable, sql } from './api.js';
import { tablePicker, tableRef } from './catalog.js';
import { barChart } from './charts.js';
import { clear, dotted, errorBox, formatBytes, grid, h, qualified } from './dom.js';

export const SMALL_FILE_BYTES = 16 * 1024 * 1024;

function histogram(sizes) {
  const bins = new Map();
  for (const s of sizes) {
    const k = s > 0 ? Math.floor(Math.log2(s)) : 0;
    bins.set(k, (bins.get(k) || 0) + 1);
  }
  const ks = [...bins.keys()].sort((a, b) => a - b);
  const points = [];
  for (let k = ks[0]; k <= ks[ks.length - 1]; k++) points.push({ x: `${formatBytes(2 ** k)}+`, y: bins.get(k) || 0 });
  return barChart([{ name: 'files', points }], `Data files by size: ${sizes.length} files`);
}

function compaction(m) {
  const replaces = (m.snapshots || []).filter((s) => s.summary && s.summary.operation === 'replace')
    .sort((a, b) => Number(b['timestamp-ms']) - Number(a['timestamp-ms']));
  if (!replaces.length) return h('p', { id: 'compaction' }, 'Compaction: this table was never compacted (no replace snapshot).');
  const s = replaces[0];
  return h('p', { id: 'compaction' }, `Compaction: last at ${new Date(Number(s['timestamp-ms'])).toISOString()} (snapshot ${s['snapshot-id']}, `
    + `${s.summary['deleted-data-files'] ?? '?'} files rewritten into ${s.summary['added-data-files'] ?? '?'}).`);
}

export async function render(view, params) {
  const t = tableRef(params.t);
  const out = h('div', {});
  clear(view, h('h1', {}, t ? `Files of ${dotted(t.ns, t.name)}` : 'Files'), await tablePicker('files', t), out);
  if (!t) return;
  const meta = qualified(t.ns, `${t.name}$files`);
  try {
    const [res, r] = await Promise.all([loadTable(t.ns, t.name),
      sql(`SELECT content, file_path, file_format, record_count, file_size_in_bytes, partition FROM ${meta} ORDER BY file_size_in_bytes`)]);
    const data = r.rows.filter((row) => Number(row[0]) === 0);
    const sizes = data.map((row) => Number(row[4]));
    const small = sizes.filter((s) => s < SMALL_FILE_BYTES).length;
    const total = sizes.reduce((a, b) => a + b, 0);
    out.append(h('p', {}, `${data.length} data files, ${r.rows.length - data.length} delete files, ${formatBytes(total)} in all.`));
    if (small >= 2 && small * 2 > data.length) {
      out.append(h('div', { class: 'alert', role: 'alert', id: 'small-files' },
        `${small} of ${data.length} data files are smaller than ${formatBytes(SMALL_FILE_BYTES)}: compaction would merge them `
        + `(ALTER TABLE ${qualified(t.ns, t.name)} EXECUTE optimize).`));
    }
    out.append(compaction(res.metadata));
    if (sizes.length) out.append(h('figure', {}, histogram(sizes), h('figcaption', {}, 'File-size histogram')));
    out.append(h('h2', {}, 'Files'), h('div', { class: 'scroll' }, grid(r.columns, r.rows, `from ${meta}`, { id: 'files' })));
  } catch (e) {
    out.append(errorBox(e));
  }
}
