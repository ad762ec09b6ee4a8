#!/usr/bin/env node
// write-interop.mjs — floe's Parquet writer against three independent readers, and floe's reader against three
// independent writers.
//
// Forward: a deterministic table covering every floe type (long, int, boolean, float, double, decimal(10,2),
// decimal(38,6), date, time, timestamp, timestamptz, timestamp_ns, string, binary, uuid, fixed[4], list<string>,
// struct<x: double, y: long>, map<string, long>), with nulls in every nullable column, NaN/±Infinity, extreme longs,
// empty strings/binaries/lists, unicode, quotes and newlines, is written as JSON lines (and its primitive part as
// CSV) and converted by `floe convert` with every codec and with small row groups / pages / v2 pages / no
// dictionary. Each file is then read by DuckDB, arrow-rs (parquet-wasm) and hyparquet, and by floe itself:
//   - every value must equal the source value (type-aware, exact: lib/compare.mjs);
//   - the field ids DuckDB, arrow-rs and hyparquet see must be the ones assigned by --schema;
//   - per row group and column, the statistics DuckDB and hyparquet decode (min, max, null_count) must equal the
//     min/max/null count computed here from the data (NaN excluded from min/max).
// Reverse: files written by DuckDB (COPY ... FIELD_IDS, nested types, several codecs), arrow-rs and
// hyparquet-writer (oracle/parquet-write.mjs) are read by floe and must equal DuckDB's reading of the same file;
// floe must report their field ids; and `floe convert` Parquet -> Parquet must keep values, types and field ids.
//
// usage: node write-interop.mjs --floe=BIN --tmp=DIR
// Output: one PASS/FAIL line per check with file, row, column and both values; last line "N passed, N failed".
import { writeFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import * as pw from 'parquet-wasm';
import { tableFromIPC } from 'apache-arrow';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { tableRows, schemaJson } from './oracle/lib/arrow-values.mjs';
import { parseArgs, die } from './oracle/lib/plain.mjs';
import { cmpDuck, cmpArrow, floeRows, compareRows, canonDecimal, canonTimestamp, canonTime, bytesFromDuck } from './lib/compare.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const { opts } = parseArgs(process.argv.slice(2));
if (!opts.floe || !opts.tmp) die('usage: node write-interop.mjs --floe=BIN --tmp=DIR');
const FLOE = opts.floe;
const TMP = opts.tmp;
mkdirSync(TMP, { recursive: true });

let pass = 0, fail = 0;
function check(name, problems) {
  const list = (Array.isArray(problems) ? problems : [problems]).filter(Boolean);
  if (list.length) { fail++; console.log(`FAIL ${name}:\n    ${list.slice(0, 8).join('\n    ')}${list.length > 8 ? `\n    ... ${list.length - 8} more` : ''}`); }
  else { pass++; console.log(`PASS ${name}`); }
}
function run(args, what) {
  const r = spawnSync(FLOE, args, { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.error) return { ok: false, msg: `${what}: cannot run ${FLOE}: ${r.error.message}` };
  const crashed = r.signal !== null || r.status > 2 || /AddressSanitizer|runtime error:|LeakSanitizer/.test(r.stderr ?? '');
  if (r.status !== 0 || crashed) return { ok: false, msg: `${what}: status ${r.status}${r.signal ? ' ' + r.signal : ''}: ${(r.stderr ?? '').trim().slice(0, 600)}\n      (floe ${args.join(' ').slice(0, 300)})` };
  return { ok: true, stdout: r.stdout, stderr: r.stderr };
}

// ---------------------------------------------------------------------------------------------------------------
// The source table, in floe's JSON conventions (what `floe parquet cat --format=jsonl` prints).
const N = 2500;
const pad = (n, w) => String(n).padStart(w, '0');
function ymd(days) { const d = new Date(days * 86400000); return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}-${pad(d.getUTCDate(), 2)}`; }
function tsText(units, digits) { // units: BigInt of 10^-digits s
  const div = 10n ** BigInt(digits);
  let secs = units / div, frac = units % div;
  if (frac < 0n) { frac += div; secs -= 1n; }
  let days = secs / 86400n, sod = secs % 86400n;
  if (sod < 0n) { sod += 86400n; days -= 1n; }
  return `${ymd(Number(days))} ${pad(sod / 3600n, 2)}:${pad((sod / 60n) % 60n, 2)}:${pad(sod % 60n, 2)}.${pad(frac, digits)}`;
}
function decText(unscaled, scale) {
  const neg = unscaled < 0n; let s = (neg ? -unscaled : unscaled).toString().padStart(scale + 1, '0');
  return (neg ? '-' : '') + s.slice(0, s.length - scale) + '.' + s.slice(s.length - scale);
}
const hex = (bytes) => '\\x' + Buffer.from(bytes).toString('hex');
function mix(i, k) { let x = BigInt.asUintN(64, BigInt(i) * 0x9E3779B97F4A7C15n + BigInt(k) * 0xC2B2AE3D27D4EB4Fn); x ^= x >> 29n; x = BigInt.asUintN(64, x * 0xBF58476D1CE4E5B9n); x ^= x >> 32n; return x; }
function uuidOf(i) { const h = (mix(i, 1).toString(16).padStart(16, '0') + mix(i, 2).toString(16).padStart(16, '0')); return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`; }
const STRS = ['héllo', 'a,b', 'say "hi"', 'line\nbreak', 'ünïcödé ✓', 'plain', '日本語', 'tab\there'];

const COLUMNS = [ // name, --schema type, DuckDB-side expectation helpers
  ['id', 'long not null'], ['i32', 'int'], ['b', 'boolean'], ['f32', 'float'], ['f64', 'double'],
  ['dec', 'decimal(10,2)'], ['dec38', 'decimal(38,6)'], ['d', 'date'], ['t', 'time'], ['ts', 'timestamp'],
  ['tstz', 'timestamptz'], ['tsns', 'timestamp_ns'], ['s', 'string'], ['bin', 'binary'], ['u', 'uuid'],
  ['fx', 'fixed[4]'], ['tags', 'list<string>'], ['pt', 'struct<x:double,y:long>'], ['m', 'map<string,long>'],
];
const PRIMITIVE = COLUMNS.slice(0, 16);
const SPEC = COLUMNS.map(([n, t]) => `${n}:${t}`).join(',');
const PRIM_SPEC = PRIMITIVE.map(([n, t]) => `${n}:${t}`).join(',');
// field ids as the --schema parser assigns them: top level 1..19, nested after, in order
const EXPECTED_IDS = [...COLUMNS.map(([n], i) => [n, i + 1]), ['element', 20], ['x', 21], ['y', 22], ['key', 23], ['value', 24]];

function makeRow(i) {
  const nul = (m, r) => i % m === r;
  const f64 = i === 2 ? 'NaN' : i === 3 ? 'Infinity' : i === 4 ? '-Infinity' : i === 6 ? 1e300 : Number((i * 1.1 - 99.5).toPrecision(15));
  return {
    id: i === 0 ? '-9223372036854775808' : i === 1 ? '9223372036854775807' : String(BigInt(i) * 7919n - 100000n),
    i32: nul(7, 3) ? null : i === 0 ? -2147483648 : i === 1 ? 2147483647 : Number(mix(i, 3) % 2000000n) - 1000000,
    b: nul(11, 5) ? null : i % 3 === 0,
    f32: nul(13, 1) ? null : (i - 1000) / 4,
    f64: nul(17, 9) ? null : f64,
    dec: nul(19, 4) ? null : decText(BigInt(Number(mix(i, 4) % 100000000n)) - 50000000n, 2),
    dec38: nul(29, 6) ? null : decText((i % 2 ? -1n : 1n) * (BigInt(i) * 10n ** 30n + mix(i, 5) % 10n ** 12n), 6),
    d: nul(23, 7) ? null : ymd(19723 + i * 37 - 60000),
    t: nul(31, 8) ? null : tsText(BigInt(i) * 33123457n % 86400000000n, 6).slice(11),
    ts: nul(37, 10) ? null : tsText(1704067200000000n + BigInt(i) * 3600000001n - 5000000000000n, 6),
    tstz: nul(41, 11) ? null : tsText(1000000000000000n + BigInt(i) * 86400000123n, 6) + '+00',
    tsns: nul(43, 12) ? null : tsText(1704067200123456789n + BigInt(i) * 1000000007n, 9),
    s: nul(5, 0) ? null : i === 1 ? '' : `${STRS[i % STRS.length]}_${i % 97}`,
    bin: nul(9, 0) ? null : i === 4 ? hex([]) : hex([i & 255, (i * 7) & 255, 0, Number(mix(i, 6) & 255n)]),
    u: nul(47, 13) ? null : uuidOf(i),
    fx: nul(53, 14) ? null : hex([(i >> 8) & 255, i & 255, 0xff, 0x00]),
    tags: i % 4 === 0 ? null : i % 4 === 1 ? [] : [`t${i % 10}`, ...(i % 8 === 2 ? [null] : []), ...(i % 3 ? [`u${i % 13}`] : [])],
    pt: i % 10 === 9 ? null : { x: i / 2, y: i % 3 === 0 ? null : String(i * 1000003) },
    m: i % 12 === 11 ? null : [{ key: `k${i % 3}`, value: String(i) }, ...(i % 2 ? [{ key: 'z', value: null }] : [])],
  };
}
const ROWS = Array.from({ length: N }, (_, i) => makeRow(i));

// Source files. JSON lines: exactly the rows. CSV: the primitive columns, null = empty unquoted field.
writeFileSync(join(TMP, 'all.jsonl'), ROWS.map(r => JSON.stringify(r)).join('\n') + '\n');
const csvField = (v) => {
  if (v === null) return '';
  const s = String(v);
  return s === '' || /[",\n\r]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
};
writeFileSync(join(TMP, 'prim.csv'), [PRIMITIVE.map(c => c[0]).join(','), ...ROWS.map(r => PRIMITIVE.map(([n]) => csvField(r[n])).join(','))].join('\n') + '\n');
const PRIM_ROWS = ROWS.map(r => Object.fromEntries(PRIMITIVE.map(([n]) => [n, r[n]])));

// ---------------------------------------------------------------------------------------------------------------
const con = await (await DuckDBInstance.create(':memory:')).connect();
await con.run("SET TimeZone='UTC'");
const q = async (sql) => { const r = await con.runAndReadAll(sql); return { names: r.columnNames(), types: r.columnTypes(), rows: r.getRowsJson(), objs: r.getRowObjectsJson() }; };
const lit = (f) => `'${f.replaceAll("'", "''")}'`;

// min / max / null count of one column over rows[lo, hi), in floe's text forms; null when no non-null non-NaN value.
function statsOf(rows, col, type) {
  let mn = null, mx = null, nulls = 0;
  const key = (v) => {
    if (/^(long|int)/.test(type)) return BigInt(v);
    if (/^decimal/.test(type)) return BigInt(canonDecimal(v).split('e-')[0]) * 10n ** BigInt(40 - Number(canonDecimal(v).split('e-')[1]));
    if (/^(float|double)/.test(type)) return Number(v);
    if (/^(string)/.test(type)) return Buffer.from(v, 'utf8');
    if (/^(binary|fixed)/.test(type)) return Buffer.from(v.slice(2), 'hex');
    if (type === 'uuid') return Buffer.from(v.replaceAll('-', ''), 'hex');
    if (type === 'boolean') return v ? 1 : 0;
    return v; // date/time/timestamp text in fixed-width format: text order = time order (years 1000..9999)
  };
  const cmp = (a, b) => (Buffer.isBuffer(a) ? Buffer.compare(a, b) : a < b ? -1 : a > b ? 1 : 0);
  for (const r of rows) {
    const v = r[col];
    if (v === null) { nulls++; continue; }
    if (/^(float|double)/.test(type) && Number.isNaN(Number(v))) continue;
    const k = key(v);
    if (mn === null || cmp(k, mn.k) < 0) mn = { k, v };
    if (mx === null || cmp(k, mx.k) > 0) mx = { k, v };
  }
  return { min: mn?.v ?? null, max: mx?.v ?? null, nulls };
}

// DuckDB's view of a file: values, field ids, per-chunk statistics.
async function checkWithDuckDB(label, file, expectRows, columns) {
  let d;
  try { d = await q(`select * from read_parquet(${lit(file)})`); } catch (e) { check(`${label}: DuckDB reads it`, `duckdb error: ${e.message}`); return; }
  check(`${label}: DuckDB values`, compareRows(`${label} (duckdb)`, expectRows, d.rows, d.names, d.types, cmpDuck, 8));
  const schema = await q(`select name, field_id from parquet_schema(${lit(file)}) where field_id is not null`);
  const ids = schema.objs.map(o => [o.name, Number(o.field_id)]).sort((a, b) => a[1] - b[1]);
  const want = columns.length === COLUMNS.length ? EXPECTED_IDS : EXPECTED_IDS.slice(0, columns.length);
  check(`${label}: DuckDB sees field ids`, JSON.stringify(ids) === JSON.stringify(want) ? null : `duckdb ${JSON.stringify(ids)}, expected ${JSON.stringify(want)}`);
  // statistics of every top-level primitive column chunk
  const md = await q(`select row_group_id, row_group_num_rows, path_in_schema, stats_min_value, stats_max_value, stats_null_count from parquet_metadata(${lit(file)}) order by row_group_id, column_id`);
  const problems = [];
  let start = 0, lastGroup = -1;
  const groupStart = {};
  for (const o of md.objs) {
    if (Number(o.row_group_id) !== lastGroup) { lastGroup = Number(o.row_group_id); groupStart[lastGroup] = start; start += Number(o.row_group_num_rows); }
  }
  for (const o of md.objs) {
    const col = columns.find(([n]) => n === o.path_in_schema);
    if (!col) continue;
    const g = Number(o.row_group_id);
    const slice = expectRows.slice(groupStart[g], groupStart[g] + Number(o.row_group_num_rows));
    const type = col[1].replace(' not null', '');
    const st = statsOf(slice, col[0], type);
    const dt = d.types[d.names.indexOf(col[0])];
    const where = `row group ${g}, column '${col[0]}'`;
    if (o.stats_null_count === null || Number(o.stats_null_count) !== st.nulls) problems.push(`${where}: null_count ${o.stats_null_count}, expected ${st.nulls}`);
    for (const [which, got] of [['min', o.stats_min_value], ['max', o.stats_max_value]]) {
      const want = st[which];
      if (want === null) { if (got !== null) problems.push(`${where}: ${which} ${JSON.stringify(got)} for an all-null chunk`); continue; }
      // DuckDB's parquet_metadata() shows no float min/max when a bound is infinite (hyparquet checks those)
      if (got === null && /Infinity/.test(String(want))) continue;
      if (got === null) { problems.push(`${where}: no ${which} statistic (expected ${JSON.stringify(want)})`); continue; }
      const e = type === 'boolean' ? (String(want) === got ? null : `${want} vs ${got}`) : cmpDuck(want, got, dt);
      if (e) problems.push(`${where}: ${which}: ${e}`);
    }
  }
  check(`${label}: DuckDB decodes statistics equal to the data (${md.objs.length} chunks)`, problems);
}

// arrow-rs: values and field ids (Arrow field metadata PARQUET:field_id).
function checkWithArrow(label, file, expectRows) {
  let table;
  try { table = tableFromIPC(pw.readParquet(new Uint8Array(readFileSync(file)), {}).intoIPCStream()); } catch (e) { check(`${label}: arrow-rs reads it`, String(e?.message ?? e)); return; }
  const names = table.schema.fields.map(f => f.name);
  const rows = tableRows(table).map(o => names.map(n => o[n]));
  check(`${label}: arrow-rs values`, compareRows(`${label} (arrow-rs)`, expectRows, rows, names, table.schema.fields.map(f => f.type), cmpArrow, 8));
  const ids = [];
  const walkF = (f) => { const id = f.metadata?.['PARQUET:field_id']; if (id !== undefined) ids.push([f.name, Number(id)]); (f.children ?? []).forEach(walkF); };
  schemaJson(table.schema).fields.forEach(walkF);
  ids.sort((a, b) => a[1] - b[1]);
  const want = names.length === COLUMNS.length ? EXPECTED_IDS : EXPECTED_IDS.slice(0, names.length);
  // arrow-rs names list elements "element", map entries "key"/"value": compare the id set by id
  check(`${label}: arrow-rs sees field ids`, JSON.stringify(ids.map(x => x[1])) === JSON.stringify(want.map(x => x[1])) && ids.every(([n, id]) => want.find(w => w[1] === id)[0] === n)
    ? null : `arrow-rs ${JSON.stringify(ids)}, expected ${JSON.stringify(want)}`);
}

// hyparquet: values (decimals are doubles there: compared by value where exact), field ids, statistics.
async function checkWithHyparquet(label, file, expectRows, columns) {
  const parsers = {
    timestampFromMilliseconds: (v) => tsText(BigInt(v), 3), timestampFromMicroseconds: (v) => tsText(BigInt(v), 6),
    timestampFromNanoseconds: (v) => tsText(BigInt(v), 9), dateFromDays: (d) => ymd(d),
  };
  let md, rows;
  try {
    const f = await asyncBufferFromFile(file);
    md = await parquetMetadataAsync(f);
    rows = await parquetReadObjects({ file: f, compressors, parsers, utf8: false });
  } catch (e) { check(`${label}: hyparquet reads it`, String(e?.message ?? e)); return; }
  const problems = [];
  if (rows.length !== expectRows.length) problems.push(`${rows.length} rows, expected ${expectRows.length}`);
  const typeOf = Object.fromEntries(columns.map(([n, t]) => [n, t.replace(' not null', '')]));
  const norm = (v, t) => { // hyparquet value -> floe text form
    if (v === null || v === undefined) return null;
    if (/^(long)/.test(t)) return String(v);
    if (/^(binary|fixed)/.test(t)) return v instanceof Uint8Array ? hex(v) : v;
    if (t === 'time') return typeof v === 'bigint' ? tsText(v, 6).slice(11) : v;
    if (t === 'timestamptz') return typeof v === 'string' ? v + '+00' : v;
    if (/^list<string>/.test(t)) return v.map(x => x ?? null);
    if (/^struct/.test(t)) return { x: v.x ?? null, y: v.y === null || v.y === undefined ? null : String(v.y) };
    if (/^map/.test(t)) { const e = v instanceof Map ? [...v.entries()] : Object.entries(v); return e.map(([key, value]) => ({ key, value: value === null || value === undefined ? null : String(value) })); }
    return v;
  };
  for (let r = 0; r < Math.min(rows.length, expectRows.length) && problems.length < 8; r++) {
    for (const [n] of columns) {
      const t = typeOf[n];
      const want = expectRows[r][n], got = norm(rows[r][n], t);
      let ok;
      if (want === null || got === null) ok = want === got;
      else if (/^decimal/.test(t)) ok = t === 'decimal(38,6)' ? true /* hyparquet: doubles, inexact at 38 digits */ : Number(want) === got;
      else if (/^(float|double)/.test(t)) ok = typeof want === 'string' ? String(got) === want : (t === 'float' ? Math.fround(want) === Math.fround(got) : want === got);
      else if (t === 'int') ok = want === got;
      else if (/^(timestamp)/.test(t)) { const a = canonTimestamp(want), b = canonTimestamp(got); ok = a && b && a.body === b.body; }
      else ok = JSON.stringify(want) === JSON.stringify(got);
      if (!ok) problems.push(`row ${r}, column '${n}': expected ${JSON.stringify(want)}, hyparquet ${JSON.stringify(got, (k, v) => typeof v === 'bigint' ? String(v) : v)}`);
    }
  }
  check(`${label}: hyparquet values`, problems);
  const ids = md.schema.filter(e => e.field_id !== undefined).map(e => [e.name, e.field_id]).sort((a, b) => a[1] - b[1]);
  const want = columns.length === COLUMNS.length ? EXPECTED_IDS : EXPECTED_IDS.slice(0, columns.length);
  check(`${label}: hyparquet sees field ids`, JSON.stringify(ids) === JSON.stringify(want) ? null : `hyparquet ${JSON.stringify(ids)}, expected ${JSON.stringify(want)}`);
  // statistics: null counts everywhere; min/max for the types hyparquet decodes exactly
  const sp = [];
  let start = 0;
  md.row_groups.forEach((rg, g) => {
    const slice = expectRows.slice(start, start + Number(rg.num_rows));
    start += Number(rg.num_rows);
    for (const c of rg.columns) {
      const path = c.meta_data.path_in_schema.join('.');
      const t = typeOf[path];
      if (!t) continue;
      const st = statsOf(slice, path, t);
      const s = c.meta_data.statistics;
      if (!s) { sp.push(`row group ${g}, '${path}': no statistics`); continue; }
      if (s.null_count === undefined || Number(s.null_count) !== st.nulls) sp.push(`row group ${g}, '${path}': null_count ${s.null_count}, expected ${st.nulls}`);
      if (['long', 'int', 'double', 'string'].includes(t) && st.min !== null) {
        const conv = (v) => (t === 'long' ? String(v) : v);
        if (String(conv(s.min_value)) !== String(st.min)) sp.push(`row group ${g}, '${path}': min_value ${String(s.min_value)}, expected ${st.min}`);
        if (String(conv(s.max_value)) !== String(st.max)) sp.push(`row group ${g}, '${path}': max_value ${String(s.max_value)}, expected ${st.max}`);
      }
    }
  });
  check(`${label}: hyparquet statistics match the data`, sp);
}

// floe reading its own file back.
function checkWithFloe(label, file, expectRows) {
  const fr = floeRows(FLOE, file);
  if (!fr.ok) { check(`${label}: floe reads it back`, `status ${fr.status}: ${fr.stderr}`); return; }
  const problems = [];
  if (fr.rows.length !== expectRows.length) problems.push(`${fr.rows.length} rows, expected ${expectRows.length}`);
  for (let r = 0; r < Math.min(fr.rows.length, expectRows.length) && problems.length < 8; r++)
    if (JSON.stringify(fr.rows[r]) !== JSON.stringify(expectRows[r])) problems.push(`row ${r}: floe ${JSON.stringify(fr.rows[r])}\n      expected ${JSON.stringify(expectRows[r])}`);
  check(`${label}: floe reads back exactly the source rows`, problems);
}

// ---------------------------------------------------------------------------------------------------------------
// Forward: floe writes.
const VARIANTS = [
  ['zstd', ['--codec', 'zstd']], ['snappy', ['--codec', 'snappy']], ['gzip', ['--codec', 'gzip']],
  ['lz4_raw', ['--codec', 'lz4_raw']], ['brotli', ['--codec', 'brotli']], ['none', ['--codec', 'none']],
  ['small-groups-v2-plain', ['--codec', 'zstd', '--row-group-rows', '700', '--page-rows', '256', '--no-dictionary', '--page-v2']],
];
for (const [name, args] of VARIANTS) {
  const out = join(TMP, `floe-${name}.parquet`);
  const r = run(['convert', join(TMP, 'all.jsonl'), out, '--schema', SPEC, '--quiet', ...args], `convert ${name}`);
  check(`floe convert all.jsonl -> ${name}`, r.ok ? null : r.msg);
  if (!r.ok) continue;
  const label = `floe-${name}.parquet`;
  checkWithFloe(label, out, ROWS);
  await checkWithDuckDB(label, out, ROWS, COLUMNS);
  checkWithArrow(label, out, ROWS);
  await checkWithHyparquet(label, out, ROWS, COLUMNS);
}
{ // CSV with an explicit schema
  const out = join(TMP, 'floe-csv.parquet');
  const r = run(['convert', join(TMP, 'prim.csv'), out, '--schema', PRIM_SPEC, '--quiet'], 'convert csv');
  check('floe convert prim.csv -> parquet (--schema)', r.ok ? null : r.msg);
  if (r.ok) {
    checkWithFloe('floe-csv.parquet', out, PRIM_ROWS);
    await checkWithDuckDB('floe-csv.parquet', out, PRIM_ROWS, PRIMITIVE);
    checkWithArrow('floe-csv.parquet', out, PRIM_ROWS);
  }
}
{ // CSV type inference: long, double, boolean, date, timestamp, string
  const csv = 'n,x,flag,day,at,name\n1,1.5,true,2024-01-01,2024-01-01 10:00:00,a\n-7,2,false,1999-12-31,2024-01-01T10:00:00.25,"b, c"\n,,,,,\n';
  writeFileSync(join(TMP, 'infer.csv'), csv);
  const out = join(TMP, 'floe-infer.parquet');
  const r = run(['convert', join(TMP, 'infer.csv'), out, '--quiet'], 'convert infer.csv');
  check('floe convert infer.csv (inferred types)', r.ok ? null : r.msg);
  if (r.ok) {
    const d = await q(`select * from read_parquet(${lit(out)})`);
    const types = d.types.map(String);
    check('inferred CSV types as DuckDB sees them', JSON.stringify(types) === JSON.stringify(['BIGINT', 'DOUBLE', 'BOOLEAN', 'DATE', 'TIMESTAMP', 'VARCHAR']) ? null : `got ${JSON.stringify(types)}`);
    check('inferred CSV values', JSON.stringify(d.rows) === JSON.stringify([["1", 1.5, true, '2024-01-01', '2024-01-01 10:00:00', 'a'], ["-7", 2, false, '1999-12-31', '2024-01-01 10:00:00.25', 'b, c'], [null, null, null, null, null, null]]) ? null : `got ${JSON.stringify(d.rows)}`);
  }
}
{ // JSON lines inference: nested objects/arrays -> struct/list
  writeFileSync(join(TMP, 'infer.jsonl'), '{"a":1,"o":{"p":"x","q":[1,2]},"l":[1.5,null]}\n{"a":null,"o":{"p":null,"q":[]},"l":[],"extra":true}\n');
  const out = join(TMP, 'floe-infer-json.parquet');
  const r = run(['convert', join(TMP, 'infer.jsonl'), out, '--quiet'], 'convert infer.jsonl');
  check('floe convert infer.jsonl (inferred nested types)', r.ok ? null : r.msg);
  if (r.ok) {
    const d = await q(`select * from read_parquet(${lit(out)})`);
    check('inferred JSON types as DuckDB sees them', JSON.stringify(d.types.map(String)) === JSON.stringify(['BIGINT', 'STRUCT("p" VARCHAR, "q" BIGINT[])', 'DOUBLE[]', 'BOOLEAN']) ? null : `got ${JSON.stringify(d.types.map(String))}`);
    check('inferred JSON values', JSON.stringify(d.rows) === JSON.stringify([["1", { p: 'x', q: ["1", "2"] }, [1.5, null], null], [null, { p: null, q: [] }, [], true]]) ? null : `got ${JSON.stringify(d.rows)}`);
  }
}
{ // Parquet -> CSV / JSONL round trips
  const src = join(TMP, 'floe-zstd.parquet');
  const jl = join(TMP, 'back.jsonl');
  const r = run(['convert', src, jl, '--quiet'], 'parquet -> jsonl');
  check('floe convert parquet -> jsonl', r.ok ? null : r.msg);
  if (r.ok) {
    const back = readFileSync(jl, 'utf8').trim().split('\n').map(l => JSON.parse(l));
    check('parquet -> jsonl gives the source rows', JSON.stringify(back) === JSON.stringify(ROWS) ? null : 'rows differ: ' + back.findIndex((b, i) => JSON.stringify(b) !== JSON.stringify(ROWS[i])));
  }
  const cv = join(TMP, 'back.csv');
  const r2 = run(['convert', join(TMP, 'floe-csv.parquet'), cv, '--quiet'], 'parquet -> csv');
  check('floe convert parquet -> csv', r2.ok ? null : r2.msg);
  if (r2.ok) {
    const d = await q(`select * from read_csv(${lit(cv)}, header=true, all_varchar=true)`);
    const orig = await q(`select * from read_csv(${lit(join(TMP, 'prim.csv'))}, header=true, all_varchar=true)`);
    const bad = d.rows.findIndex((r, i) => JSON.stringify(r) !== JSON.stringify(orig.rows[i]));
    check('parquet -> csv equals the source CSV as DuckDB parses both', bad < 0 && d.rows.length === orig.rows.length ? null : `row ${bad}: ${JSON.stringify(d.rows[bad])}\n      source ${JSON.stringify(orig.rows[bad])}`);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Reverse: other writers, floe reads.
async function floeVsDuck(label, file, { ids } = {}) {
  const fr = floeRows(FLOE, file);
  if (!fr.ok) { check(`${label}: floe reads it`, `status ${fr.status}: ${fr.stderr}`); return; }
  const d = await q(`select * from read_parquet(${lit(file)})`);
  check(`${label}: floe values equal DuckDB's`, compareRows(label, fr.rows, d.rows, d.names, d.types, cmpDuck, 8));
  if (ids) {
    const r = run(['parquet', 'schema', file], 'schema');
    const got = r.ok ? [...r.stdout.matchAll(/^\s+(\S+): .*\(id (\d+)\)$/gm)].map(m => [m[1], Number(m[2])]) : [];
    check(`${label}: floe sees field ids`, r.ok && ids.every(([n, id]) => got.some(([gn, gid]) => gn === n && gid === id)) ? null : `floe schema ids ${JSON.stringify(got)}, expected ${JSON.stringify(ids)}${r.ok ? '' : ' ' + r.msg}`);
  }
}
const DUCK_SELECT = `select i::bigint id, (i * 37 % 1000)::int i32, i % 3 = 0 b, (i / 4)::float f32, i * 1.1 f64,
  ((i * 12345 % 1000000 - 500000) / 100)::decimal(10,2) "dec", (i::hugeint * 1000000000000 + 7)::decimal(38,6) dec38,
  date '2020-01-01' + i::int d, time '00:00:00' + to_seconds(i * 37) t, timestamp '2024-01-01 00:00:00' + to_microseconds(i * 1000001) ts,
  timestamptz '2024-01-01 00:00:00+00' + to_seconds(i) tstz, ('s' || i)::varchar s, ('\\x00' || i::varchar)::blob bin,
  uuid '12345678-1234-5678-1234-567812345678' u, [i, i + 1] l, {'x': i, 'y': 's' || i} st, map {'k' || (i % 5): i} m
  from range(3000) r(i)`;
const DUCK_IDS = 'FIELD_IDS {id: 1, i32: 2, b: 3, f32: 4, f64: 5, dec: 6, dec38: 7, d: 8, t: 9, ts: 10, tstz: 11, s: 12, bin: 13, u: 14, l: {__duckdb_field_id: 15, element: 16}, st: {__duckdb_field_id: 17, x: 18, y: 19}, m: {__duckdb_field_id: 20, key: 21, value: 22}}';
for (const codec of ['zstd', 'snappy', 'gzip', 'uncompressed']) {
  const f = join(TMP, `duck-${codec}.parquet`);
  try {
    await con.run(`copy (${DUCK_SELECT}) to ${lit(f)} (format parquet, compression ${codec}, row_group_size 1000, ${DUCK_IDS})`);
  } catch (e) { check(`DuckDB writes duck-${codec}.parquet`, e.message); continue; }
  await floeVsDuck(`duck-${codec}.parquet`, f, { ids: [['id', 1], ['i32', 2], ['dec38', 7], ['l', 15], ['element', 16], ['st', 17], ['x', 18], ['m', 20], ['key', 21], ['value', 22]] });
}
for (const [writer, codecs] of [['hyparquet', ['SNAPPY', 'GZIP', 'UNCOMPRESSED', 'BROTLI']], ['arrow-rs', ['ZSTD', 'SNAPPY', 'LZ4_RAW', 'GZIP', 'BROTLI', 'UNCOMPRESSED']]]) {
  for (const codec of codecs) {
    const f = join(TMP, `${writer}-${codec}.parquet`);
    const r = spawnSync('node', [join(here, 'oracle', 'parquet-write.mjs'), f, `--writer=${writer}`, `--codec=${codec}`, '--rows=3000', '--row-group-size=1000'], { encoding: 'utf8' });
    if (r.status !== 0) { check(`${writer} writes ${codec}`, r.stderr); continue; }
    await floeVsDuck(`${writer}-${codec}.parquet`, f, { ids: [['id', 1], ['name', 2], ['price', 3], ['ts', 4], ['day', 5], ['flag', 6], ['payload', 7]] });
  }
}
{ // Parquet -> Parquet keeps values, types and field ids
  const src = join(TMP, 'duck-zstd.parquet');
  const out = join(TMP, 'duck-rewritten.parquet');
  const r = run(['convert', src, out, '--quiet', '--codec', 'snappy'], 'parquet -> parquet');
  check('floe convert parquet -> parquet', r.ok ? null : r.msg);
  if (r.ok) {
    const a = await q(`select * from read_parquet(${lit(src)})`);
    const b = await q(`select * from read_parquet(${lit(out)})`);
    check('rewritten file: same DuckDB types', JSON.stringify(a.types.map(String)) === JSON.stringify(b.types.map(String)) ? null : `${JSON.stringify(a.types.map(String))} vs ${JSON.stringify(b.types.map(String))}`);
    check('rewritten file: same values', JSON.stringify(a.rows) === JSON.stringify(b.rows) ? null : 'values differ');
    const ia = await q(`select name, field_id from parquet_schema(${lit(src)}) where field_id is not null`);
    const ib = await q(`select name, field_id from parquet_schema(${lit(out)}) where field_id is not null`);
    check('rewritten file: same field ids', JSON.stringify(ia.rows) === JSON.stringify(ib.rows) ? null : `${JSON.stringify(ia.rows)} vs ${JSON.stringify(ib.rows)}`);
  }
}
console.log(`${pass} passed, ${fail} failed`);
process.exitCode = fail ? 1 : 0;
