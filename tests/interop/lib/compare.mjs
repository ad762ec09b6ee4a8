// compare.mjs — type-aware, strict comparison of floe's JSON-lines rows with rows from DuckDB
// (@duckdb/node-api getRowsJson) and arrow-rs (parquet-wasm + lib/arrow-values.mjs).
//
// floe's file-tool conventions (src/cli/output.h; `floe parquet cat` and friends): INT64 and DECIMAL as exact strings, floats as the shortest repr in their own
// width (float32 0.1f prints 0.1), NaN/Infinity as strings, dates "YYYY-MM-DD", times "HH:MM:SS.ffffff", timestamps
// "YYYY-MM-DD HH:MM:SS.ffffff[fff]" (+00 for UTC-adjusted), binary "\\x<hex>", uuid canonical, struct objects, lists
// arrays, maps [{key, value}]. Table and query output (`floe table cat`, `floe sql`) is the SQL formatter's JSON:
// read it with parseJsonExact (below); maps there are objects, which the map comparisons accept too.
//
// Each comparison returns null when equal, else a short description of the difference. Floats compare exactly by
// value (float32 after rounding both sides to float32); timestamps compare as instants with trailing zeros of the
// fraction ignored; decimals compare as exact scaled integers; bytes compare byte for byte.
import { spawnSync } from 'node:child_process';
import { DuckDBTypeId } from '@duckdb/node-api';

// ---- canonical forms ----
export function bytesFromFloe(s) {
  if (typeof s !== 'string') return null;
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s)) return s.replaceAll('-', '').toLowerCase(); // uuid
  if (!s.startsWith('\\x')) return null;
  return s.slice(2).toLowerCase();
}
// DuckDB prints BLOB as text: printable ASCII kept (a backslash too, unescaped), "\xHH" (upper hex) for other
// bytes, so "\x" + two hex digits is always an escape and any other backslash is itself.
export function bytesFromDuck(s) {
  if (typeof s !== 'string') return null;
  const out = [];
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\' && s[i + 1] === 'x' && /^[0-9a-fA-F]{2}$/.test(s.slice(i + 2, i + 4))) {
      out.push(parseInt(s.slice(i + 2, i + 4), 16)); i += 3;
    } else for (const b of Buffer.from(s[i], 'utf8')) out.push(b);
  }
  return Buffer.from(out).toString('hex');
}
const utf8hex = (s) => Buffer.from(s, 'utf8').toString('hex');

// "2024-01-01 00:00:01.500000+00" / "2024-01-01T00:00:01.5Z" -> {body:"2024-01-01 00:00:01.5", zone:"+00"|""}
export function canonTimestamp(s) {
  if (typeof s !== 'string') return null;
  let zone = '';
  let t = s.replace('T', ' ');
  const m = t.match(/(Z|[+-]\d\d(:?\d\d)?)$/);
  if (m && t.length > 10 && /\d\d:\d\d/.test(t)) {
    zone = '+00'; // every zoned value in these outputs is UTC
    if (m[1] !== 'Z' && !/^[+-]00(:?00)?$/.test(m[1])) zone = m[1];
    t = t.slice(0, t.length - m[1].length);
  }
  if (!t.includes(' ')) t += ' 00:00:00';
  t = t.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');
  return { body: t, zone };
}
export function canonTime(s) {
  if (typeof s !== 'string') return null;
  return s.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '');
}
export function canonDecimal(s) {
  // exact: "-12.50" -> {neg, digits without leading zeros, scale-normalized} compared as BigInt pairs
  if (typeof s === 'number') s = String(s);
  if (typeof s !== 'string' || !/^[+-]?\d*(\.\d*)?$/.test(s)) return null;
  let neg = s.startsWith('-'); s = s.replace(/^[+-]/, '');
  let [ip, fp = ''] = s.split('.');
  fp = fp.replace(/0+$/, '');
  const v = BigInt((ip || '0') + fp);
  if (v === 0n) neg = false;
  return `${neg ? '-' : ''}${v}e-${fp.length}`;
}
function floatEq(a, b, f32) {
  const na = typeof a === 'string' ? Number(a) : a;
  const nb = typeof b === 'string' ? Number(b) : b;
  if (typeof na !== 'number' || typeof nb !== 'number') return false;
  if (Number.isNaN(na) || Number.isNaN(nb)) return Number.isNaN(na) && Number.isNaN(nb);
  return f32 ? Math.fround(na) === Math.fround(nb) : na === nb;
}
const show = (v) => JSON.stringify(v);

// Legacy TIMESTAMP_MILLIS/MICROS converted types (no logical type) mean "UTC-adjusted" in the Parquet spec, and floe
// reads them as timestamptz; DuckDB reads them as naive TIMESTAMP. For files listed as such, a "+00" on one side
// and none on the other is accepted (the instant must still be identical).
let zoneLenient = false;
export function setTimestampZoneLenient(on) { zoneLenient = on; }
function tsEq(a, b) {
  return a && b && a.body === b.body && (a.zone === b.zone || (zoneLenient && (a.zone === '' || b.zone === '') && (a.zone || b.zone) === '+00'));
}

// ---- against DuckDB (type objects from @duckdb/node-api) ----
export function cmpDuck(f, d, t) {
  if (d === null || d === undefined) return f === null ? null : `floe ${show(f)}, duckdb null`;
  if (f === null || f === undefined) return `floe null, duckdb ${show(d)}`;
  const name = String(t);
  const kind = DuckDBTypeId[t.typeId];
  const diff = () => `floe ${show(f)}, duckdb ${show(d)} (${name})`;
  switch (kind) {
    case 'BOOLEAN':
      return f === d ? null : diff();
    case 'TINYINT': case 'SMALLINT': case 'INTEGER': case 'BIGINT': case 'UTINYINT': case 'USMALLINT':
    case 'UINTEGER': case 'UBIGINT': case 'HUGEINT': case 'UHUGEINT':
      try { if (typeof f !== 'boolean' && BigInt(f) === BigInt(d)) return null; } catch { /* not an integer */ }
      return diff();
    case 'FLOAT':
      return floatEq(f, d, true) ? null : diff();
    case 'DOUBLE':
      return floatEq(f, d, false) ? null : diff();
    case 'DECIMAL': {
      const a = canonDecimal(f), b = canonDecimal(d);
      return a !== null && a === b ? null : diff();
    }
    case 'DATE':
      return f === d ? null : diff();
    case 'TIMESTAMP': case 'TIMESTAMP_S': case 'TIMESTAMP_MS': case 'TIMESTAMP_NS': case 'TIMESTAMP_TZ': {
      const a = canonTimestamp(f), b = canonTimestamp(d);
      return tsEq(a, b) ? null : diff();
    }
    case 'TIME': case 'TIME_TZ': case 'TIME_NS':
      return canonTime(f) === canonTime(d) ? null : diff();
    case 'BLOB': {
      const a = bytesFromFloe(f) ?? (typeof f === 'string' ? utf8hex(f) : null);
      const b = bytesFromDuck(d);
      return a !== null && a === b ? null : `${diff()} [duckdb bytes ${b}]`;
    }
    case 'VARCHAR': case 'ENUM': {
      if ((typeof f === 'string' || typeof f === 'number') && String(f) === d) return null;
      // an unannotated BYTE_ARRAY that DuckDB shows as text: compare the bytes
      const a = bytesFromFloe(f);
      if (a !== null && typeof d === 'string' && a === utf8hex(d)) return null;
      return diff();
    }
    case 'UUID':
      return typeof f === 'string' && f.toLowerCase() === String(d).toLowerCase() ? null : diff();
    case 'LIST': case 'ARRAY': {
      if (!Array.isArray(f) || !Array.isArray(d)) return diff();
      if (f.length !== d.length) return `list length ${f.length} vs ${d.length}: ${diff()}`;
      for (let i = 0; i < f.length; i++) { const e = cmpDuck(f[i], d[i], t.valueType); if (e) return `[${i}]: ${e}`; }
      return null;
    }
    case 'STRUCT': {
      if (typeof f !== 'object' || Array.isArray(f)) return diff();
      const fk = Object.keys(f), dk = t.entryNames;
      if (fk.length !== dk.length || fk.some((k, i) => k !== dk[i])) return `struct fields ${show(fk)} vs ${show(dk)}`;
      for (let i = 0; i < dk.length; i++) { const e = cmpDuck(f[dk[i]], d[dk[i]], t.entryTypes[i]); if (e) return `.${dk[i]}: ${e}`; }
      return null;
    }
    case 'MAP': {
      f = mapEntries(f);
      if (!Array.isArray(f) || !Array.isArray(d) || f.length !== d.length) return diff();
      for (let i = 0; i < f.length; i++) {
        const ek = cmpDuck(f[i]?.key, d[i].key, t.keyType); if (ek) return `{${i}}.key: ${ek}`;
        const ev = cmpDuck(f[i]?.value ?? null, d[i].value, t.valueType); if (ev) return `{${i}}.value: ${ev}`;
      }
      return null;
    }
    default: // INTERVAL, UNION, BIT, GEOMETRY, VARIANT ...: floe has no such type; only identical JSON passes
      return show(f) === show(d) ? null : `${diff()} [no floe counterpart for ${kind}]`;
  }
}

// ---- against arrow-rs (apache-arrow JS type objects; values from lib/arrow-values.mjs) ----
export function cmpArrow(f, a, type) {
  if (a === null || a === undefined) return f === null ? null : `floe ${show(f)}, arrow null`;
  if (f === null || f === undefined) return `floe null, arrow ${show(a)}`;
  const tn = String(type);
  if (/^(Float16|Float32)/.test(tn)) return floatEq(f, a, true) ? null : `floe ${show(f)}, arrow ${show(a)} (${tn})`;
  if (/^Float64/.test(tn)) return floatEq(f, a, false) ? null : `floe ${show(f)}, arrow ${show(a)} (${tn})`;
  if (/^U?Int/.test(tn)) { try { if (BigInt(f) === BigInt(a)) return null; } catch { /* */ } return `floe ${show(f)}, arrow ${show(a)} (${tn})`; }
  if (/^Decimal/.test(tn)) return canonDecimal(f) === canonDecimal(a) ? null : `floe ${show(f)}, arrow ${show(a)} (${tn})`;
  if (/^Timestamp/.test(tn)) {
    const x = canonTimestamp(f), y = canonTimestamp(a);
    return tsEq(x, y) ? null : `floe ${show(f)}, arrow ${show(a)} (${tn})`;
  }
  if (/^Time/.test(tn)) return canonTime(f) === canonTime(a) ? null : `floe ${show(f)}, arrow ${show(a)} (${tn})`;
  if (/^(Binary|LargeBinary|FixedSizeBinary)/.test(tn)) {
    const x = bytesFromFloe(f) ?? (typeof f === 'string' ? utf8hex(f) : null);
    return x !== null && x === bytesFromFloe(a) ? null : `floe ${show(f)}, arrow ${show(a)} (${tn})`;
  }
  if (/^(Utf8|LargeUtf8)/.test(tn)) {
    if (f === a) return null;
    const x = bytesFromFloe(f);
    return x !== null && x === utf8hex(a) ? null : `floe ${show(f)}, arrow ${show(a)} (${tn})`;
  }
  if (/^Map/.test(tn)) {
    const entry = type.children[0].type;
    f = mapEntries(f);
    if (!Array.isArray(f) || !Array.isArray(a) || f.length !== a.length) return `floe ${show(f)}, arrow ${show(a)} (${tn})`;
    for (let i = 0; i < f.length; i++) {
      const ek = cmpArrow(f[i]?.key, a[i][0], entry.children[0].type); if (ek) return `{${i}}.key: ${ek}`;
      const ev = cmpArrow(f[i]?.value ?? null, a[i][1], entry.children[1].type); if (ev) return `{${i}}.value: ${ev}`;
    }
    return null;
  }
  if (/^(List|LargeList|FixedSizeList)/.test(tn)) {
    if (!Array.isArray(f) || !Array.isArray(a) || f.length !== a.length) return `floe ${show(f)}, arrow ${show(a)} (${tn})`;
    for (let i = 0; i < f.length; i++) { const e = cmpArrow(f[i], a[i], type.children[0].type); if (e) return `[${i}]: ${e}`; }
    return null;
  }
  if (/^Struct/.test(tn)) {
    for (const ch of type.children) { const e = cmpArrow(f[ch.name] ?? null, a[ch.name], ch.type); if (e) return `.${ch.name}: ${e}`; }
    return null;
  }
  if (/^Date/.test(tn)) return f === a ? null : `floe ${show(f)}, arrow ${show(a)} (${tn})`;
  if (/^Bool/.test(tn)) return f === a ? null : `floe ${show(f)}, arrow ${show(a)} (${tn})`;
  return show(f) === show(a) ? null : `floe ${show(f)}, arrow ${show(a)} (${tn})`;
}

// ---- exact JSON ----
// floe's SQL formatter (`floe sql`, `floe table cat`, /v1/sql) writes bigints and decimals as JSON numbers with
// every digit; JSON.parse would round them to doubles (and drop a decimal's trailing zeros). This parses one JSON
// text keeping a number as a JS number only when that prints back to the same text, else as its source text (a
// string), which the comparisons above accept for integers, decimals and floats alike.
export function parseJsonExact(text) {
  let out = '', i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      let j = i + 1;
      while (j < text.length && /[0-9.eE+-]/.test(text[j])) j++;
      const t = text.slice(i, j);
      out += String(Number(t)) === t ? t : `"${t}"`;
      i = j;
    } else {
      out += c;
      i++;
    }
  }
  return JSON.parse(out);
}
// A map in floe's SQL JSON ({"k": v}, keys as text) as the entry list the comparisons use.
export function mapEntries(m) {
  if (m === null || m === undefined || Array.isArray(m)) return m;
  return Object.entries(m).map(([key, value]) => ({ key, value }));
}

// ---- running floe ----
export function floeRows(floe, file, extra = []) {
  const r = spawnSync(floe, ['parquet', 'cat', file, '--format=jsonl', ...extra], { maxBuffer: 1 << 30, encoding: 'utf8' });
  if (r.error) throw r.error;
  const crashed = r.signal !== null || r.status > 1 || /AddressSanitizer|UndefinedBehaviorSanitizer|runtime error:/.test(r.stderr);
  if (r.status !== 0) return { ok: false, status: r.status, signal: r.signal, stderr: r.stderr.trim(), crashed };
  const rows = [];
  const lines = r.stdout.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]) continue;
    try { rows.push(JSON.parse(lines[i])); } catch (e) { return { ok: false, status: 0, stderr: `invalid JSON on output line ${i + 1}: ${e.message}: ${lines[i].slice(0, 200)}`, crashed: false }; }
  }
  return { ok: true, rows, stderr: r.stderr, crashed };
}

// Compares row arrays; returns a list of failure strings (at most `max`).
export function compareRows(label, floeRowsArr, otherRows, names, types, cmp, max = 5) {
  const fails = [];
  if (floeRowsArr.length !== otherRows.length) fails.push(`${label}: ${floeRowsArr.length} rows from floe, ${otherRows.length} from the oracle`);
  const n = Math.min(floeRowsArr.length, otherRows.length);
  for (let r = 0; r < n && fails.length < max; r++) {
    const fr = floeRowsArr[r];
    const fk = Object.keys(fr);
    if (fk.length !== names.length || fk.some((k, i) => k !== names[i])) {
      fails.push(`${label}: row ${r}: columns ${show(fk)} vs oracle ${show(names)}`);
      break;
    }
    for (let c = 0; c < names.length && fails.length < max; c++) {
      const e = cmp(fr[names[c]], otherRows[r][c], types[c]);
      if (e) fails.push(`${label}: row ${r}, column '${names[c]}': ${e}`);
    }
  }
  return fails;
}
