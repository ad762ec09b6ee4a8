// snapshots.js - a table's snapshot timeline (from the REST table load): a table of every snapshot with its
// summary, charts of total records and total file size over time, time travel (the SQL editor runs
// SELECT ... FOR VERSION AS OF <id>), an exact row count at any snapshot (SQL count(*) FOR VERSION AS OF), and
// rollback (ALTER TABLE ... EXECUTE rollback_to_snapshot(<id>), after a confirm(); needs WRITE, which the
// engine checks).
import { loadTable, sql } from './api.js';
import { go, status } from './app.js';
import { tablePicker, tableRef } from './catalog.js';
import { runInEditor } from './sql.js';
import { lineChart } from './charts.js';
import { clear, dotted, errorBox, formatBytes, h, qualified } from './dom.js';

const when = (ms) => new Date(Number(ms)).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');

function chartOf(snaps, key, label, fmt = (v) => v) {
  const points = snaps.filter((s) => s.summary && s.summary[key] !== undefined)
    .map((s) => ({ x: String(s['snapshot-id']), label: when(s['timestamp-ms']).slice(5, 19), y: Number(s.summary[key]) }));
  if (!points.length) return h('p', { class: 'muted' }, `No ${label.toLowerCase()} in the snapshot summaries.`);
  const svg = lineChart([{ name: label, points }], `${label} over time, last ${fmt(points[points.length - 1].y)}`);
  return h('figure', {}, svg, h('figcaption', {}, label));
}

async function countAt(t, id, cell, btn) {
  btn.disabled = true;
  clear(cell, '\u2026');
  try {
    const r = await sql(`SELECT count(*) AS n FROM ${qualified(t.ns, t.name)} FOR VERSION AS OF ${id}`);
    clear(cell, String(r.rows[0][0]));
  } catch (e) {
    clear(cell, errorBox(e));
  }
  btn.disabled = false;
}

async function rollback(t, id, msg, view, params) {
  if (!window.confirm(`Roll ${dotted(t.ns, t.name)} back to snapshot ${id}?\n\nThe current snapshot stays in the history; readers see snapshot ${id} from now on.`)) return;
  try {
    await sql(`ALTER TABLE ${qualified(t.ns, t.name)} EXECUTE rollback_to_snapshot(${id})`);
    status(`rolled back to ${id}`);
    await render(view, params);
  } catch (e) {
    clear(msg, errorBox(e));
  }
}

export async function render(view, params) {
  const t = tableRef(params.t);
  const out = h('div', {});
  const msg = h('div', { id: 'snapshot-msg', 'aria-live': 'polite' });
  clear(view, h('h1', {}, t ? `Snapshots of ${dotted(t.ns, t.name)}` : 'Snapshots'), await tablePicker('snapshots', t), msg, out);
  if (!t) return;
  let res;
  try {
    res = await loadTable(t.ns, t.name);
  } catch (e) {
    return out.append(errorBox(e));
  }
  const m = res.metadata;
  const cur = String(m['current-snapshot-id']);
  const snaps = [...(m.snapshots || [])].sort((a, b) => Number(a['timestamp-ms']) - Number(b['timestamp-ms']));
  if (!snaps.length) return out.append(h('p', {}, 'The table has no snapshots yet.'));
  out.append(h('div', { class: 'row' },
    chartOf(snaps, 'total-records', 'Total records'),
    chartOf(snaps, 'total-files-size', 'Total file size (bytes)', formatBytes)));
  const rows = snaps.map((s) => {
    const id = String(s['snapshot-id']);
    const sum = s.summary || {};
    const cell = h('td', { class: 'num', 'data-count-of': id });
    const countBtn = h('button', { type: 'button', class: 'secondary', 'aria-label': `Count rows at snapshot ${id}` }, 'Count');
    countBtn.addEventListener('click', () => countAt(t, id, cell, countBtn));
    const travel = h('button', { type: 'button', 'data-travel': id, 'aria-label': `Query snapshot ${id}` }, 'Query');
    travel.addEventListener('click', () => {
      const q = `SELECT * FROM ${qualified(t.ns, t.name)} FOR VERSION AS OF ${id} LIMIT 100`;
      runInEditor(q);
      go('sql', { q });
    });
    const back = id === cur ? h('span', { class: 'muted' }, 'current')
      : h('button', { type: 'button', class: 'danger', 'data-rollback': id, 'aria-label': `Roll back to snapshot ${id}` }, 'Roll back');
    if (id !== cur) back.addEventListener('click', () => rollback(t, id, msg, view, params));
    return h('tr', { class: id === cur ? 'current' : null, 'data-snapshot': id },
      h('td', {}, id), h('td', {}, when(s['timestamp-ms'])), h('td', {}, sum.operation || ''),
      h('td', { class: 'num' }, sum['added-records'] ?? ''), h('td', { class: 'num', 'data-total-records': id }, sum['total-records'] ?? ''),
      h('td', { class: 'num' }, sum['total-data-files'] ?? ''),
      h('td', { class: 'num' }, sum['total-files-size'] !== undefined ? formatBytes(sum['total-files-size']) : ''),
      cell, h('td', {}, h('div', { class: 'row' }, countBtn, travel, back)));
  });
  const heads = ['snapshot id', 'committed', 'operation', 'added rows', 'total rows', 'data files', 'size', 'count(*)', 'actions'];
  out.append(h('h2', {}, 'Timeline'), h('div', { class: 'scroll' }, h('table', { class: 'grid', id: 'snapshots' },
    h('caption', { class: 'muted' }, `${snaps.length} snapshots, oldest first; the highlighted one is current`),
    h('thead', {}, h('tr', {}, heads.map((x) => h('th', { scope: 'col' }, x)))), h('tbody', {}, rows))));
}
