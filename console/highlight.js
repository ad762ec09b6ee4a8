// highlight.js - SQL syntax highlighting for the editor: a tokenizer (keywords, 'strings', "identifiers",
// numbers, -- and /* */ comments) and the overlay technique: a <pre> behind a transparent <textarea> shows
// the same text in colour, kept in step on every input and scroll.
const KEYWORDS = new Set(`select from where group by order having limit offset join left right full inner outer cross on
using as and or not in is null like ilike between case when then else end distinct union all intersect except with
insert into values update set delete merge matched create table view schema drop alter execute explain analyze
describe show for version timestamp of asc desc nulls first last true false cast over partition window
count sum avg min max exists any lateral returning truncate call begin commit rollback interval date`.split(/\s+/));

export const RESERVED = new Set(['default', 'user', 'order', 'group', 'table', 'select', 'from', 'where', 'limit',
  'offset', 'all', 'end', 'case', 'when', 'desc', 'asc', 'window', 'partition', 'values', 'column', 'check']);

const TOKEN = /(--[^\n]*|\/\*[\s\S]*?(?:\*\/|$))|('(?:[^']|'')*'?)|("(?:[^"]|"")*"?)|(\b\d+(?:\.\d+)?(?:[eE][-+]?\d+)?\b)|([A-Za-z_][A-Za-z0-9_$]*)/g;

// [{text, kind}] covering the whole input; kind is '', 'com', 'str', 'id', 'num' or 'kw'.
export function tokenize(text) {
  const out = [];
  let last = 0;
  for (const m of text.matchAll(TOKEN)) {
    if (m.index > last) out.push({ text: text.slice(last, m.index), kind: '' });
    const kind = m[1] ? 'com' : m[2] ? 'str' : m[3] ? 'id' : m[4] ? 'num'
      : KEYWORDS.has(m[5].toLowerCase()) ? 'kw' : '';
    out.push({ text: m[0], kind });
    last = m.index + m[0].length;
  }
  if (last < text.length) out.push({ text: text.slice(last), kind: '' });
  return out;
}

export function paint(pre, text) {
  pre.replaceChildren();
  for (const t of tokenize(text)) {
    if (!t.kind) {
      pre.append(document.createTextNode(t.text));
      continue;
    }
    const span = document.createElement('span');
    span.className = `tok-${t.kind}`;
    span.textContent = t.text;
    pre.append(span);
  }
  pre.append(document.createTextNode('\n')); // a trailing newline keeps the heights equal
}

// Wires a textarea over a pre: repaint on input, follow its scrolling.
export function overlay(textarea, pre) {
  const sync = () => {
    paint(pre, textarea.value);
    pre.scrollTop = textarea.scrollTop;
    pre.scrollLeft = textarea.scrollLeft;
  };
  textarea.addEventListener('input', sync);
  textarea.addEventListener('scroll', () => {
    pre.scrollTop = textarea.scrollTop;
    pre.scrollLeft = textarea.scrollLeft;
  });
  sync();
  return sync;
}
