// metrics.js - the metrics explorer over the semantic layer, through MCP tools on POST /mcp (docs/mcp.md):
// list_metrics for the metric list, get_dimensions for the dimensions (and grains) the chosen metrics share,
// query_metrics (with an optional where filter) for the numbers, shown as rows, a line or bar chart, the compiled SQL and the receipt. The
// numbers are read as the signed-in principal (row filters apply; without READ the engine refuses, 42501).
import { mcpTool } from './api.js';
import { barChart, legend, lineChart } from './charts.js';
import { clear, errorBox, h } from './dom.js';

function dimensionOptions(dims) {
  const out = [];
  for (const d of dims) {
    if (d.grains && d.grains.length) for (const g of d.grains) out.push({ value: `${d.name}__${g}`, label: `${d.name} by ${g}` });
    else out.push({ value: d.name, label: d.name });
  }
  return out;
}

function chartOf(answer, metrics, dim, kind) {
  const col = (name) => answer.columns.findIndex((c) => c.name === name);
  const xi = col(dim);
  const series = metrics.map((m) => ({ name: m, points: answer.rows.map((r) => ({ x: String(r[xi] ?? 'NULL'), y: r[col(m)] })) }));
  const label = `${metrics.join(', ')} by ${dim}`;
  return h('figure', { id: 'metric-chart' }, (kind === 'bar' ? barChart : lineChart)(series, label), legend(series),
    h('figcaption', {}, label));
}

export async function render(view, params) {
  const out = h('div', { id: 'metric-out' });
  const form = h('form', { id: 'metrics-form' });
  clear(view, h('h1', {}, 'Metrics'), form, out);
  let listed;
  try {
    listed = await mcpTool('list_metrics', { max_items: 1000, max_bytes: 200000 });
  } catch (e) {
    // without --models the metric tools do not exist (JSON-RPC -32602 "unknown tool")
    const noModel = e.detail && e.detail.code === -32602 && /unknown tool/.test(e.detail.message || '');
    form.append(noModel ? h('p', { id: 'no-model' }, 'No semantic model is loaded: start floe serve with --models DIR (docs/semantic.md).') : errorBox(e));
    return;
  }
  if (!listed.metrics.length) {
    form.append(h('p', {}, 'No semantic model is loaded (floe serve --models DIR).'));
    return;
  }
  const boxes = listed.metrics.map((m, i) => h('label', { for: `metric-${i}`, title: m.description || '' },
    h('input', { type: 'checkbox', id: `metric-${i}`, name: 'metric', value: m.name }), m.name));
  const dim = h('select', { id: 'dimension', name: 'dimension' }, h('option', { value: '' }, '\u2014 pick metrics first \u2014'));
  const kind = h('select', { id: 'chart-kind' }, h('option', { value: 'line' }, 'line'), h('option', { value: 'bar' }, 'bar'));
  const limit = h('input', { id: 'metric-limit', type: 'number', min: 1, max: 10000, value: 1000 });
  const where = h('input', { id: 'metric-where', size: 48, spellcheck: 'false',
    placeholder: "{{ Dimension('customer__region') }} = 'EU'" });
  const run = h('button', { type: 'submit', id: 'metric-run' }, 'Query');
  const dimMsg = h('span', { class: 'muted', 'aria-live': 'polite' });
  form.append(h('fieldset', {}, h('legend', {}, `Metrics (model ${listed.model_version || ''})`), h('div', { class: 'row' }, boxes)),
    h('div', { class: 'row' }, h('label', { for: 'dimension' }, 'Group by', dim), h('label', { for: 'chart-kind' }, 'Chart', kind),
      h('label', { for: 'metric-limit' }, 'Row limit', limit), run, dimMsg),
    h('div', { class: 'row' }, h('label', { for: 'metric-where' }, 'Filter (optional, the model\u2019s Jinja)', where)));
  const chosen = () => boxes.map((b) => b.querySelector('input')).filter((i) => i.checked).map((i) => i.value);

  const refreshDims = async () => {
    const ms = chosen();
    const keep = dim.value;
    if (!ms.length) return clear(dim, h('option', { value: '' }, '\u2014 pick metrics first \u2014'));
    clear(dimMsg, 'loading dimensions\u2026');
    try {
      const d = await mcpTool('get_dimensions', { metrics: ms });
      const opts = dimensionOptions(d.dimensions || []);
      clear(dim, h('option', { value: '' }, '(none: totals)'), opts.map((o) => h('option', { value: o.value, selected: o.value === keep }, o.label)));
      clear(dimMsg, '');
    } catch (e) {
      clear(dimMsg, errorBox(e));
    }
  };
  for (const b of boxes) b.querySelector('input').addEventListener('change', refreshDims);

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const ms = chosen();
    if (!ms.length) return clear(out, errorBox('Pick at least one metric.'));
    const args = { metrics: ms, limit: Number(limit.value) || 1000, max_rows: 10000, max_bytes: 1000000 };
    if (dim.value) Object.assign(args, { group_by: [dim.value], order_by: [dim.value] });
    if (where.value.trim()) args.where = [where.value.trim()];
    clear(out, h('p', { class: 'muted' }, 'Querying\u2026'));
    run.disabled = true;
    try {
      const a = await mcpTool('query_metrics', args);
      if (a.ambiguous) {
        clear(out, h('div', { class: 'alert', role: 'alert' }, a.message || 'ambiguous metric names'));
        return;
      }
      const cols = a.columns.map((c) => ({ name: c.name, type: c.type }));
      const table = h('table', { class: 'grid', id: 'metric-rows' },
        h('caption', { class: 'muted' }, `${a.row_count} rows${a.truncated ? ' (preview cut)' : ''}`),
        h('thead', {}, h('tr', {}, cols.map((c) => h('th', { scope: 'col', title: c.type }, c.name)))),
        h('tbody', {}, a.rows.map((r) => h('tr', {}, r.map((v, i) => h('td', { class: i ? 'num' : null, 'data-col': cols[i].name }, v ?? 'NULL'))))));
      clear(out,
        dim.value ? chartOf(a, ms, dim.value, kind.value) : null,
        h('h2', {}, 'Rows'), h('div', { class: 'scroll' }, table),
        h('h2', {}, 'Compiled SQL'), h('pre', { id: 'compiled-sql' }, a.receipt?.sql || ''),
        h('h2', {}, 'Receipt'), h('pre', { id: 'receipt' }, JSON.stringify({ ...a.receipt, sql: undefined }, null, 2)));
    } catch (e) {
      clear(out, errorBox(e));
    } finally {
      run.disabled = false;
    }
  });
  if (params.metrics) {
    for (const b of boxes) { const i = b.querySelector('input'); i.checked = params.metrics.split(',').includes(i.value); }
    await refreshDims();
    if (params.group_by) dim.value = params.group_by;
  }
}
