// dom.js - building DOM nodes without innerHTML (so no markup is ever parsed from data): h(tag, attrs,
// ...children), a results table, error boxes, and the SQL quoting the pages share.
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

export function clear(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

export const show = (v) => (v === null || v === undefined ? 'NULL'
  : typeof v === 'object' ? JSON.stringify(v) : String(v));

const numeric = /^(tinyint|smallint|integer|int|bigint|real|double|numeric|decimal|float)/i;

// A table of columns [{name, type}] and rows [[...]]; caption names it for screen readers.
export function grid(columns, rows, caption, attrs = {}) {
  const nums = columns.map((c) => numeric.test(c.type || ''));
  return h('table', { class: 'grid', ...attrs },
    h('caption', { class: 'muted' }, caption),
    h('thead', {}, h('tr', {}, columns.map((c) => h('th', { scope: 'col', title: c.type || '' }, c.name)))),
    h('tbody', {}, rows.map((r) => h('tr', {}, r.map((v, i) => h('td', { class: nums[i] ? 'num' : null }, show(v)))))));
}

export function errorBox(e) {
  return h('div', { class: 'error', role: 'alert' }, e && e.message ? e.message : String(e));
}

export const quoteIdent = (s) => `"${String(s).replace(/"/g, '""')}"`;
export const qualified = (ns, name) => [...ns, name].map(quoteIdent).join('.');
export const dotted = (ns, name) => [...ns, name].join('.');

export function formatBytes(n) {
  const v = Number(n);
  if (!Number.isFinite(v)) return String(n);
  const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  let x = v;
  while (x >= 1024 && i < u.length - 1) x /= 1024, i++;
  return `${i ? x.toFixed(1) : x} ${u[i]}`;
}
