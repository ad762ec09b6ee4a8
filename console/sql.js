// sql.js - the SQL editor: highlighted textarea (highlight.js), completion of catalog names (complete.js),
// Ctrl+Enter to run, POST /v1/sql with a client-chosen X-Floe-Query-Id so Cancel can DELETE /v1/sql/{id},
// a results grid with paging, EXPLAIN [ANALYZE] plans as an indented tree, and download as CSV (the rows
// read) or Parquet (the server runs a query again and writes every row). Errors are the engine's (a
// missing grant is 403 with SQLSTATE 42501).
import { cancelSql, sql, sqlParquet } from './api.js';
import { status } from './app.js';
import { tableRef } from './catalog.js';
import { attachCompletion, catalogNames } from './complete.js';
import { clear, errorBox, grid, h, qualified, show } from './dom.js';
import { overlay } from './highlight.js';

const MAX_ROWS = 10000;
const TEXT_KEY = 'floe.sql';
const RUN_KEY = 'floe.sql.run';

// Asks the editor to run q when it opens next with ?q=<the same text>. Only the console's own pages do
// this: a link with ?q= fills the editor but never runs it, so a crafted URL cannot run a statement
// with the user's token.
export function runInEditor(q) {
  sessionStorage.setItem(RUN_KEY, q);
}

function newQueryId() {
  const b = crypto.getRandomValues(new Uint8Array(12));
  return `console-${[...b].map((x) => x.toString(16).padStart(2, '0')).join('')}`;
}

export function toCSV(columns, rows) {
  const cell = (v) => {
    if (v === null || v === undefined) return '';
    const s = show(v);
    return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  return [columns.map((c) => cell(c.name)), ...rows.map((r) => r.map(cell))].map((r) => r.join(',')).join('\r\n') + '\r\n';
}

function download(name, data) {
  const url = URL.createObjectURL(data instanceof Blob ? data : new Blob([data], { type: 'text/csv' }));
  const a = h('a', { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function planTree(rows) {
  return h('pre', { id: 'plan', 'aria-label': 'Query plan' }, rows.map((r) => show(r[0])).join('\n'));
}

// The results area: paging over rows already read.
function results(out, r, pageSize) {
  let page = 0;
  const pages = Math.max(1, Math.ceil(r.rows.length / pageSize));
  const body = h('div', { class: 'scroll' });
  const info = h('span', { id: 'page-info', 'aria-live': 'polite' });
  const prev = h('button', { type: 'button', class: 'secondary', id: 'prev-page' }, 'Previous page');
  const next = h('button', { type: 'button', class: 'secondary', id: 'next-page' }, 'Next page');
  const draw = () => {
    const a = page * pageSize;
    const rows = r.rows.slice(a, a + pageSize);
    clear(body, grid(r.columns, rows, `${r.done ? r.done.tag : 'result'}`, { id: 'result' }));
    clear(info, r.rows.length ? `rows ${a + 1}\u2013${a + rows.length} of ${r.rows.length}${r.truncated ? ` (first ${MAX_ROWS} only)` : ''}` : 'no rows');
    prev.disabled = page === 0;
    next.disabled = page >= pages - 1;
  };
  prev.addEventListener('click', () => { page--; draw(); });
  next.addEventListener('click', () => { page++; draw(); });
  clear(out, h('div', { class: 'row' }, prev, next, info), body);
  draw();
}

export async function render(view, params) {
  const t = tableRef(params.t);
  const initial = params.q || (t ? `SELECT * FROM ${qualified(t.ns, t.name)} LIMIT 100` : sessionStorage.getItem(TEXT_KEY) || 'SELECT 1');
  const ta = h('textarea', { id: 'sql-input', spellcheck: 'false', autocapitalize: 'off', autocomplete: 'off',
    'aria-describedby': 'sql-help', rows: 8 });
  ta.value = initial;
  const pre = h('pre', { 'aria-hidden': 'true' });
  const run = h('button', { type: 'button', id: 'run' }, 'Run');
  const explain = h('button', { type: 'button', id: 'explain', class: 'secondary' }, 'Explain analyze');
  const cancel = h('button', { type: 'button', id: 'cancel', class: 'danger', disabled: true }, 'Cancel');
  const csv = h('button', { type: 'button', id: 'csv', class: 'secondary', disabled: true }, 'Download CSV');
  const parquet = h('button', { type: 'button', id: 'parquet', class: 'secondary', disabled: true }, 'Download Parquet');
  const size = h('select', { id: 'page-size' }, [25, 50, 100, 500].map((n) => h('option', { value: n, selected: n === 50 }, n)));
  const meta = h('p', { id: 'result-meta', class: 'muted', 'aria-live': 'polite' });
  const out = h('div', { id: 'results' });
  const popup = attachCompletion(ta, catalogNames());
  clear(view, h('h1', {}, 'SQL'),
    h('label', { for: 'sql-input' }, 'SQL statement'),
    h('div', { class: 'editor' }, pre, ta, popup),
    h('p', { id: 'sql-help', class: 'muted' }, 'Ctrl+Enter runs. Names of tables and columns are completed as you type (Enter or Tab accepts, Escape closes).'),
    h('div', { class: 'row' }, run, explain, cancel, csv, parquet, h('label', { for: 'page-size' }, 'Rows per page', size)),
    meta, out);
  overlay(ta, pre);
  let last = null;
  let lastText = null; /* the statement behind `last`, run again for the Parquet download */
  let running = null;

  const exec = async (text) => {
    if (running) return;
    sessionStorage.setItem(TEXT_KEY, ta.value);
    const id = newQueryId();
    running = id;
    run.disabled = explain.disabled = true;
    cancel.disabled = false;
    clear(meta, `Running (query id ${id})\u2026`);
    clear(out);
    const t0 = performance.now();
    try {
      const r = await sql(text, { queryId: id, maxRows: MAX_ROWS, onProgress: (n) => status(`${n} rows read`) });
      last = r;
      lastText = text;
      const ms = Math.round(performance.now() - t0);
      const reads = r.done && r.done.reads ? r.done.reads.map((x) => `${x.table}@${x.snapshot_id}`).join(', ') : '';
      clear(meta, `${r.done ? r.done.tag : ''}: ${r.rows.length} rows in ${ms} ms${reads ? `; read ${reads}` : ''}`);
      if (r.columns.length === 1 && r.columns[0].name === 'QUERY PLAN') clear(out, planTree(r.rows));
      else results(out, r, Number(size.value));
      csv.disabled = false;
      // only a query is run again for the file: never a statement that writes
      parquet.disabled = r.columns.length === 0 || !/^\s*(select|with|values|table)\b/i.test(text);
    } catch (e) {
      last = null;
      csv.disabled = parquet.disabled = true;
      clear(meta, '');
      clear(out, errorBox(e));
    } finally {
      running = null;
      run.disabled = explain.disabled = false;
      cancel.disabled = true;
      status('');
    }
  };
  run.addEventListener('click', () => exec(ta.value));
  explain.addEventListener('click', () => exec(`EXPLAIN ANALYZE ${ta.value.trim().replace(/;\s*$/, '')}`));
  // A click right after Run may reach the server before the statement is registered (404): retry
  // while it is still ours and running.
  cancel.addEventListener('click', async () => {
    const id = running;
    for (let i = 0; id && running === id && i < 20; i++) {
      try {
        await cancelSql(id);
        status('cancel sent');
        return;
      } catch (e) {
        if (e.status !== 404) return clear(out, errorBox(e));
        await new Promise((res) => setTimeout(res, 100));
      }
    }
  });
  csv.addEventListener('click', () => last && download('result.csv', toCSV(last.columns, last.rows)));
  // The server writes the file (every row, the column types kept): the statement runs again, so a
  // table that changed since shows its new rows.
  parquet.addEventListener('click', async () => {
    if (!lastText) return;
    parquet.disabled = true;
    status('writing Parquet\u2026');
    try {
      download('result.parquet', await sqlParquet(lastText));
      status('');
    } catch (e) {
      clear(out, errorBox(e));
    } finally {
      parquet.disabled = false;
    }
  });
  size.addEventListener('change', () => last && last.columns[0]?.name !== 'QUERY PLAN' && results(out, last, Number(size.value)));
  ta.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) {
      ev.preventDefault();
      exec(ta.value);
    }
  });
  const pending = sessionStorage.getItem(RUN_KEY);
  sessionStorage.removeItem(RUN_KEY);
  if (pending !== null && pending === params.q) await exec(ta.value);
}
