// catalog.js - the catalog browser: namespaces -> tables (REST listings, so only what the principal may
// see) -> one table's metadata from the REST table load: schema with field ids (nested fields flattened),
// partition spec, sort order, properties, current snapshot. Also tableRef()/allTables(), which the other
// pages use to name and pick tables.
import { listNamespaces, listTables, loadTable } from './api.js';
import { go } from './app.js';
import { clear, dotted, errorBox, grid, h, show } from './dom.js';

// A table in the URL: JSON of [namespace levels..., name].
export const tableParam = (ns, name) => JSON.stringify([...ns, name]);
export function tableRef(param) {
  if (!param) return null;
  const a = JSON.parse(param);
  return { ns: a.slice(0, -1), name: a[a.length - 1] };
}

// Every table the principal can list, through nested namespaces (depth <= 4).
export async function allTables(parent = null, depth = 0) {
  const out = [];
  for (const ns of await listNamespaces(parent)) {
    for (const t of await listTables(ns)) out.push({ ns: t.namespace, name: t.name });
    if (depth < 3) out.push(...(await allTables(ns, depth + 1)));
  }
  return out;
}

// A <select> of allTables() that navigates to page with the chosen table.
export async function tablePicker(page, current) {
  const tables = await allTables();
  const sel = h('select', { id: 'table-pick' },
    h('option', { value: '' }, '\u2014 choose a table \u2014'),
    tables.map((t) => h('option', { value: tableParam(t.ns, t.name),
      selected: current && dotted(current.ns, current.name) === dotted(t.ns, t.name) }, dotted(t.ns, t.name))));
  sel.addEventListener('change', () => sel.value && go(page, { t: sel.value }));
  return h('label', { for: 'table-pick' }, 'Table', sel);
}

function typeName(t) {
  if (typeof t === 'string') return t;
  if (t.type === 'list') return `list<${typeName(t.element)}>`;
  if (t.type === 'map') return `map<${typeName(t.key)}, ${typeName(t.value)}>`;
  return t.type;
}

// Schema fields flattened: [id, name (dotted path), type, required, doc].
function flatten(fields, prefix = '', out = []) {
  for (const f of fields) {
    const name = prefix + f.name;
    out.push([f.id, name, typeName(f.type), f.required ? 'yes' : 'no', f.doc || '']);
    nested(f.type, name, out);
  }
  return out;
}

function nested(t, name, out) {
  if (typeof t !== 'object') return;
  if (t.type === 'struct') flatten(t.fields, `${name}.`, out);
  if (t.type === 'list') {
    out.push([t['element-id'], `${name}.element`, typeName(t.element), t['element-required'] ? 'yes' : 'no', '']);
    nested(t.element, `${name}.element`, out);
  }
  if (t.type === 'map') {
    out.push([t['key-id'], `${name}.key`, typeName(t.key), 'yes', '']);
    out.push([t['value-id'], `${name}.value`, typeName(t.value), t['value-required'] ? 'yes' : 'no', '']);
    nested(t.value, `${name}.value`, out);
  }
}

function details(ns, name, res) {
  const m = res.metadata;
  const schema = (m.schemas || []).find((s) => s['schema-id'] === m['current-schema-id']) || m.schema;
  const cols = new Map(flatten(schema.fields).map((r) => [String(r[0]), r[1]]));
  const spec = (m['partition-specs'] || []).find((s) => s['spec-id'] === m['default-spec-id']) || { fields: [] };
  const order = (m['sort-orders'] || []).find((s) => s['order-id'] === m['default-sort-order-id']) || { fields: [] };
  const cur = m['current-snapshot-id'];
  const snap = (m.snapshots || []).find((s) => String(s['snapshot-id']) === String(cur));
  const t = tableParam(ns, name);
  const c = (k) => ({ name: k });
  return h('section', { 'aria-labelledby': 'table-title' },
    h('h1', { id: 'table-title' }, dotted(ns, name)),
    h('div', { class: 'row' },
      h('a', { href: `#/snapshots?${new URLSearchParams({ t })}` }, 'Snapshots'),
      h('a', { href: `#/files?${new URLSearchParams({ t })}` }, 'Files'),
      h('a', { href: `#/sql?${new URLSearchParams({ t })}` }, 'Query in SQL editor')),
    grid([c('property'), c('value')], [
      ['format version', m['format-version']], ['table uuid', m['table-uuid']], ['location', m.location],
      ['metadata file', res['metadata-location']], ['current snapshot', cur === -1 || cur == null ? 'none' : cur],
      ['rows (current snapshot)', snap && snap.summary ? snap.summary['total-records'] : ''],
      ['last updated', m['last-updated-ms'] ? new Date(Number(m['last-updated-ms'])).toISOString() : ''],
    ], 'Overview', { id: 'overview' }),
    h('h2', {}, `Schema (id ${schema['schema-id']})`),
    grid([{ name: 'field id', type: 'int' }, c('name'), c('type'), c('required'), c('doc')],
      flatten(schema.fields), 'Schema fields with their Iceberg field ids', { id: 'schema' }),
    h('h2', {}, `Partition spec (id ${spec['spec-id'] ?? 0})`),
    spec.fields.length
      ? grid([c('field id'), c('name'), c('source column'), c('transform')],
        spec.fields.map((f) => [f['field-id'], f.name, cols.get(String(f['source-id'])) || f['source-id'], f.transform]),
        'Partition fields', { id: 'partition-spec' })
      : h('p', { id: 'partition-spec' }, 'Unpartitioned.'),
    h('h2', {}, `Sort order (id ${order['order-id'] ?? 0})`),
    order.fields.length
      ? grid([c('source column'), c('transform'), c('direction'), c('nulls')],
        order.fields.map((f) => [cols.get(String(f['source-id'])) || f['source-id'], f.transform, f.direction, f['null-order']]),
        'Sort fields', { id: 'sort-order' })
      : h('p', { id: 'sort-order' }, 'Unsorted.'),
    h('h2', {}, 'Properties'),
    grid([c('key'), c('value')], Object.entries(m.properties || {}).map(([k, v]) => [k, show(v)]),
      'Table properties', { id: 'properties' }));
}

async function nsNode(ns, selected) {
  const label = ns[ns.length - 1];
  const list = h('ul', { role: 'group' });
  const toggle = h('button', { type: 'button', class: 'link', 'aria-expanded': 'false' }, `\u25B8 ${label}`);
  const li = h('li', {}, toggle, list);
  let loaded = false;
  const expand = async () => {
    const open = toggle.getAttribute('aria-expanded') === 'true';
    toggle.setAttribute('aria-expanded', String(!open));
    toggle.textContent = `${open ? '\u25B8' : '\u25BE'} ${label}`;
    list.hidden = open;
    if (open || loaded) return;
    loaded = true;
    try {
      for (const child of await listNamespaces(ns)) list.append(await nsNode(child, selected));
      for (const t of await listTables(ns)) {
        const isSel = selected && dotted(selected.ns, selected.name) === dotted(t.namespace, t.name);
        list.append(h('li', {}, h('a', { href: `#/catalog?${new URLSearchParams({ t: tableParam(t.namespace, t.name) })}`,
          'aria-current': isSel ? 'true' : null, 'data-table': dotted(t.namespace, t.name) }, t.name)));
      }
      if (!list.children.length) list.append(h('li', { class: 'muted' }, 'empty'));
    } catch (e) {
      list.append(h('li', {}, errorBox(e)));
    }
  };
  toggle.addEventListener('click', expand);
  const onPath = selected && selected.ns.slice(0, ns.length).join('\x1f') === ns.join('\x1f');
  if (onPath || !selected) await expand();
  return li;
}

export async function render(view, params) {
  const selected = tableRef(params.t);
  const tree = h('nav', { class: 'tree panel', 'aria-label': 'Namespaces and tables' }, h('h2', {}, 'Namespaces'));
  const main = h('div', {});
  clear(view, h('div', { class: 'cols' }, tree, main));
  try {
    const ul = h('ul', {});
    for (const ns of await listNamespaces()) ul.append(await nsNode(ns, selected));
    if (!ul.children.length) ul.append(h('li', { class: 'muted' }, 'No namespaces visible to you.'));
    tree.append(ul);
  } catch (e) {
    tree.append(errorBox(e));
  }
  if (!selected) {
    main.append(h('h1', {}, 'Catalog'), h('p', { class: 'muted' }, 'Pick a table on the left to see its schema, partition spec and properties.'));
    return;
  }
  try {
    main.append(details(selected.ns, selected.name, await loadTable(selected.ns, selected.name)));
  } catch (e) {
    main.append(h('h1', {}, dotted(selected.ns, selected.name)), errorBox(e));
  }
}
