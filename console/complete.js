// complete.js - completion of table and column names in the SQL editor: names come from the catalog (the
// tables the principal may list and their current schemas), a listbox popup under the editor offers those
// starting with the word before the caret; Arrow keys move, Enter or Tab accept, Escape closes.
import { loadTable } from './api.js';
import { allTables } from './catalog.js';
import { h } from './dom.js';
import { RESERVED } from './highlight.js';

const simple = (s) => /^[a-z_][a-z0-9_]*$/.test(s) && !RESERVED.has(s);
const ident = (s) => (simple(s) ? s : `"${s.replace(/"/g, '""')}"`);

// Names to offer: qualified and bare table names, then column names. At most 50 tables are loaded.
export async function catalogNames() {
  const names = new Map();
  const tables = await allTables();
  await Promise.all(tables.slice(0, 50).map(async (t) => {
    names.set([...t.ns, t.name].map(ident).join('.'), 'table');
    if (!names.has(ident(t.name))) names.set(ident(t.name), 'table');
    try {
      const m = (await loadTable(t.ns, t.name)).metadata;
      const schema = (m.schemas || []).find((s) => s['schema-id'] === m['current-schema-id']) || m.schema;
      for (const f of schema.fields) if (!names.has(ident(f.name))) names.set(ident(f.name), 'column');
    } catch (_) {
      /* a table we may list but not load: offer its name only */
    }
  }));
  return [...names.entries()].map(([name, kind]) => ({ name, kind }));
}

export function attachCompletion(textarea, namesPromise) {
  const list = h('ul', { class: 'complete', id: 'completions', role: 'listbox', 'aria-label': 'Completions', hidden: true });
  textarea.setAttribute('aria-autocomplete', 'list');
  textarea.setAttribute('aria-controls', 'completions');
  let items = [];
  let sel = 0;
  let names = [];
  namesPromise.then((n) => { names = n; }, () => {});

  const word = () => {
    const before = textarea.value.slice(0, textarea.selectionStart);
    const m = /"?[A-Za-z_][\w$."]*$/.exec(before);
    return m ? m[0] : '';
  };
  const close = () => {
    list.hidden = true;
    items = [];
    textarea.removeAttribute('aria-activedescendant');
    textarea.setAttribute('aria-expanded', 'false');
  };
  const mark = () => {
    [...list.children].forEach((li, i) => li.setAttribute('aria-selected', String(i === sel)));
    textarea.setAttribute('aria-activedescendant', `completion-${sel}`);
  };
  const accept = (i) => {
    const w = word();
    const start = textarea.selectionStart - w.length;
    textarea.setRangeText(items[i].name, start, textarea.selectionStart, 'end');
    close();
    textarea.dispatchEvent(new Event('input'));
    textarea.focus();
  };
  const open = () => {
    const w = word().toLowerCase();
    if (w.length < 2) return close();
    items = names.filter((n) => n.name.toLowerCase().startsWith(w) && n.name.toLowerCase() !== w).slice(0, 8);
    if (!items.length) return close();
    sel = 0;
    list.replaceChildren(...items.map((it, i) => {
      const li = h('li', { role: 'option', id: `completion-${i}` }, it.name, h('span', { class: 'muted' }, ` ${it.kind}`));
      li.addEventListener('mousedown', (ev) => { ev.preventDefault(); accept(i); });
      return li;
    }));
    list.hidden = false;
    textarea.setAttribute('aria-expanded', 'true');
    mark();
  };
  textarea.addEventListener('input', (ev) => { if (ev.isTrusted || ev.inputType) open(); });
  // close a moment after focus leaves (a click on an item lands first), unless focus came back: a late
  // timer from an earlier blur must not close a list opened since
  textarea.addEventListener('blur', () => setTimeout(() => { if (document.activeElement !== textarea) close(); }, 100));
  textarea.addEventListener('keydown', (ev) => {
    if (list.hidden) return;
    if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') {
      ev.preventDefault();
      sel = (sel + (ev.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length;
      mark();
    } else if ((ev.key === 'Enter' && !ev.ctrlKey && !ev.metaKey) || ev.key === 'Tab') {
      ev.preventDefault();
      accept(sel);
    } else if (ev.key === 'Escape') {
      ev.preventDefault();
      close();
    }
  });
  return list;
}
