// pipelines.js - the ingestion pipelines writing the catalog's tables. The list is SHOW PIPELINES over every
// namespace that has tables (the engine shows only tables the principal may read). For one pipeline
// (?t=[ns..., table]&p=name) the page draws its commits from the table's snapshots (summary floe.pipeline):
// throughput (rows each commit added), freshness (seconds since the commit before, and since the last one),
// lag (how far each commit's newest data was behind its source, floe.pipeline.source-lag-ms, which the
// Postgres CDC, Kafka and landing-files sources record), and its dead-letter rows (<table>__dead_letter).
import { loadTable, sql } from './api.js';
import { go } from './app.js';
import { allTables, tableParam, tableRef } from './catalog.js';
import { barChart, lineChart } from './charts.js';
import { clear, dotted, errorBox, grid, h, qualified, quoteIdent } from './dom.js';

const when = (ms) => new Date(Number(ms)).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
const key = (r) => `${tableParam(r.ns, r.table)}|${r.pipeline}`;

// Every pipeline the principal may see: [{ns, table, pipeline, cells}] with the SHOW PIPELINES row.
async function allPipelines() {
  const spaces = new Map();
  for (const t of await allTables()) spaces.set(JSON.stringify(t.ns), t.ns);
  const out = [];
  let columns = [];
  for (const ns of spaces.values()) {
    const r = await sql(`SHOW PIPELINES FROM ${ns.map(quoteIdent).join('.')}`);
    columns = r.columns;
    for (const row of r.rows) out.push({ ns, table: row[0], pipeline: row[1], cells: [dotted(ns, row[0]), ...row.slice(1)] });
  }
  return { columns: [{ name: 'table', type: 'varchar' }, ...columns.slice(1)], rows: out };
}

function picker(list, current) {
  const sel = h('select', { id: 'pipeline-pick' },
    h('option', { value: '' }, '\u2014 choose a pipeline \u2014'),
    list.map((r) => h('option', { value: key(r), selected: current === key(r) }, `${dotted(r.ns, r.table)} \u2190 ${r.pipeline}`)));
  sel.addEventListener('change', () => {
    if (!sel.value) return;
    const [t, p] = sel.value.split('|');
    go('pipelines', { t, p });
  });
  return h('label', { for: 'pipeline-pick' }, 'Pipeline', sel);
}

// The pipeline's snapshots, oldest first.
function commitsOf(meta, pipeline) {
  return (meta.snapshots || []).filter((s) => s.summary && s.summary['floe.pipeline'] === pipeline)
    .sort((a, b) => Number(a['timestamp-ms']) - Number(b['timestamp-ms']));
}

function charts(commits) {
  if (!commits.length) return [h('p', { id: 'pipeline-none', class: 'muted' }, 'No commits of this pipeline in the table\u2019s snapshots yet.')];
  const pt = (s, y) => ({ x: String(s['snapshot-id']), label: when(s['timestamp-ms']).slice(5, 19), y });
  const rows = commits.map((s) => pt(s, Number(s.summary['added-records'] || 0)));
  const gaps = commits.slice(1).map((s, i) => pt(s, (Number(s['timestamp-ms']) - Number(commits[i]['timestamp-ms'])) / 1000));
  const lags = commits.filter((s) => s.summary['floe.pipeline.source-lag-ms'] !== undefined)
    .map((s) => pt(s, Number(s.summary['floe.pipeline.source-lag-ms']) / 1000));
  const last = commits[commits.length - 1];
  const age = ((Date.now() - Number(last['timestamp-ms'])) / 1000).toFixed(1);
  return [
    h('p', { id: 'freshness' }, `Last commit ${when(last['timestamp-ms'])} (checkpoint ${last.summary['floe.pipeline.checkpoint'] ?? '?'}), ${age} s ago. `
      + (lags.length ? `Source lag at that commit: ${lags[lags.length - 1].y.toFixed(3)} s.`
        : 'This pipeline\u2019s source records no time, so no lag.')),
    h('figure', {}, barChart([{ name: 'rows', points: rows }], `Rows per commit, ${commits.length} commits`),
      h('figcaption', {}, 'Throughput: rows each commit added')),
    gaps.length ? h('figure', {}, lineChart([{ name: 'seconds', points: gaps }], 'Seconds between commits'),
      h('figcaption', {}, 'Freshness: seconds since the commit before')) : h('p', { class: 'muted' }, 'One commit: no interval yet.'),
    lags.length ? h('figure', { id: 'lag' }, lineChart([{ name: 'seconds', points: lags }], 'Source lag at each commit (s)'),
      h('figcaption', {}, 'Lag: seconds from the newest source record to its commit')) : h('p', { class: 'muted' }, 'No lag recorded.'),
  ];
}

async function deadLetters(t, rows) {
  if (rows === null || rows === undefined) return h('p', { class: 'muted' }, 'No dead-letter table.');
  const dl = qualified(t.ns, `${t.name}__dead_letter`);
  const r = await sql(`SELECT failed_at, pipeline, source, error FROM ${dl} ORDER BY failed_at DESC LIMIT 20`);
  return h('div', { class: 'scroll' }, grid(r.columns, r.rows, `dead letters in ${dotted(t.ns, `${t.name}__dead_letter`)}`, { id: 'dead-letters' }));
}

export async function render(view, params) {
  const t = tableRef(params.t);
  const out = h('div', {});
  const list = await allPipelines();
  const current = t && params.p ? key({ ns: t.ns, table: t.name, pipeline: params.p }) : '';
  clear(view, h('h1', {}, t && params.p ? `Pipeline ${params.p} into ${dotted(t.ns, t.name)}` : 'Pipelines'),
    h('div', { class: 'scroll' }, grid(list.columns, list.rows.map((r) => r.cells), 'ingestion pipelines (SHOW PIPELINES)', { id: 'pipelines' })),
    picker(list.rows, current), out);
  const row = list.rows.find((r) => key(r) === current);
  if (!row) return;
  try {
    const res = await loadTable(t.ns, t.name);
    const dl = list.columns.findIndex((c) => c.name === 'dead_letter_rows');
    out.append(...charts(commitsOf(res.metadata, params.p)), h('h2', {}, 'Dead letters'), await deadLetters(t, row.cells[dl]));
  } catch (e) {
    out.append(errorBox(e));
  }
}
