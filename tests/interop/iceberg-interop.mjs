// iceberg-interop.mjs - independent checks of Iceberg manifests and manifest
// lists written by floe.
//
//   node iceberg-interop.mjs avro DIR...   every *.avro under DIR (recursive)
//
// For each file: avsc (oracle/avro-dump.mjs) and Debian python3-avro
// (oracle/avro-dump-py.py) must decode every record; the Avro schema must have
// the shape of the spec / Java (record names manifest_entry, r2, r102,
// k<key>_v<value>, manifest_file, r508; every required field with its
// field-id, element-ids on lists; the fields of the file's format version);
// the header must carry the spec's keys; and the records decoded by avsc,
// python3-avro and `floe avro cat` must be equal (bytes as hex, longs exact).
// Prints one line per failure and "N files checked, M failed"; exit 1 on any
// failure. Env: FLOE_BIN.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as losslessParse } from 'lossless-json';

const here = dirname(fileURLToPath(import.meta.url));
const FLOE = process.env.FLOE_BIN || join(here, '../../build/floe');
let failures = 0;
let checked = 0;

function fail(file, msg) {
  failures++;
  console.log(`FAIL ${file}: ${msg}`);
}

function run(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 256 << 20 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: exit ${r.status}: ${(r.stderr || '').slice(0, 400)}`);
  return r.stdout;
}

// numbers as exact strings (lossless)
const parseExact = (text) => losslessParse(text, null, (s) => s);

// Canonical form of a decoded value: longs/ints as decimal strings, bytes as
// "hex:..", NaN as "NaN"; "*" matches anything (python's repr of uuid bytes).
function canon(v) {
  if (v === null || v === undefined) return null;
  if (Array.isArray(v)) return v.map(canon);
  if (typeof v === 'object') {
    if ('$bytes' in v && Object.keys(v).length === 1) return 'hex:' + v.$bytes.toLowerCase();
    const o = {};
    for (const k of Object.keys(v)) o[k] = canon(v[k]);
    return o;
  }
  if (typeof v === 'boolean') return v;
  const s = String(v);
  if (s.startsWith('\\x')) return 'hex:' + s.slice(2).toLowerCase();
  if (s.startsWith("b'") || s.startsWith('b"')) return '*';
  if (s === 'nan' || s === 'NaN') return 'NaN';
  if (/^-?\d+$/.test(s)) return BigInt(s).toString();
  if (typeof v === 'number' || /^-?[\d.]+(e[-+]?\d+)?$/i.test(s)) return String(Number(s));
  return s;
}

function equal(a, b, path, out) {
  if (a === '*' || b === '*') return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') {
    if (a !== b) {
      out.push(`${path}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`);
      return false;
    }
    return true;
  }
  if (Array.isArray(a) !== Array.isArray(b)) {
    out.push(`${path}: array vs object`);
    return false;
  }
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  let ok = true;
  for (const k of keys) ok = equal(a[k] ?? null, b[k] ?? null, `${path}.${k}`, out) && ok;
  return ok;
}

// ---- schema shape -------------------------------------------------------

const unwrap = (t) => (Array.isArray(t) ? t.find((b) => b !== 'null') : t);

function fieldById(rec, id) {
  return (rec.fields || []).find((f) => f['field-id'] !== undefined && Number(f['field-id']) === id);
}

function expectFields(file, rec, ids, what, required = true) {
  for (const id of ids) {
    const f = fieldById(rec, id);
    if (!f) fail(file, `${what}: no field with field-id ${id}`);
    else if (required && Array.isArray(f.type)) fail(file, `${what}: field ${f.name} (id ${id}) must be required`);
  }
}

const MAPS = { 108: 117, 109: 119, 110: 121, 137: 138, 125: 126, 128: 129 };

function checkManifestSchema(file, s, fv) {
  if (s.name !== 'manifest_entry') fail(file, `record name ${s.name}, want manifest_entry`);
  expectFields(file, s, [0, 2], 'manifest_entry');
  expectFields(file, s, fv >= 2 ? [1, 3, 4] : [1], 'manifest_entry', false);
  const df = unwrap(fieldById(s, 2)?.type);
  if (!df || df.name !== 'r2') return fail(file, 'data_file record r2 missing');
  const req = fv === 1 ? [100, 101, 102, 103, 104, 105] : [134, 100, 101, 102, 103, 104];
  expectFields(file, df, req, 'data_file');
  const opt = [108, 109, 110, 137, 125, 128, 131, 132, 140]
    .concat(fv >= 2 ? [135, 143] : [])
    .concat(fv >= 3 ? [142, 144, 145] : []);
  expectFields(file, df, opt, 'data_file', false);
  const part = fieldById(df, 102)?.type;
  if (!part || part.name !== 'r102') fail(file, 'partition record r102 missing');
  else for (const f of part.fields) if (f['field-id'] === undefined || !(Number(f['field-id']) >= 1000)) fail(file, `partition field ${f.name} without a partition field id`);
  for (const [id, kid] of Object.entries(MAPS)) {
    const t = unwrap(fieldById(df, Number(id))?.type);
    if (!t) continue;
    if (t.type !== 'array' || t.logicalType !== 'map') fail(file, `field ${id}: not an array with logicalType map`);
    const it = t.items;
    if (!it || it.name !== `k${kid}_v${kid + 1}`) fail(file, `field ${id}: items record ${it?.name}, want k${kid}_v${kid + 1}`);
    else expectFields(file, it, [kid, kid + 1], `field ${id} items`);
  }
  const so = unwrap(fieldById(df, 132)?.type);
  if (so && Number(so['element-id']) !== 133) fail(file, 'split_offsets without element-id 133');
  const eq = unwrap(fieldById(df, 135)?.type);
  if (eq && Number(eq['element-id']) !== 136) fail(file, 'equality_ids without element-id 136');
}

function checkListSchema(file, s, fv) {
  if (s.name !== 'manifest_file') fail(file, `record name ${s.name}, want manifest_file`);
  expectFields(file, s, fv === 1 ? [500, 501, 502, 503] : [500, 501, 502, 517, 515, 516, 503, 504, 505, 506, 512, 513, 514], 'manifest_file');
  expectFields(file, s, [507, 519].concat(fv >= 3 ? [520] : []), 'manifest_file', false);
  const p = unwrap(fieldById(s, 507)?.type);
  if (!p || p.type !== 'array' || Number(p['element-id']) !== 508) fail(file, 'partitions: not an array with element-id 508');
  else if (p.items.name !== 'r508') fail(file, `field_summary record ${p.items.name}, want r508`);
  else {
    expectFields(file, p.items, [509], 'field_summary');
    expectFields(file, p.items, [518, 510, 511], 'field_summary', false);
  }
}

function checkFile(file) {
  checked++;
  let avsc, py, floeRecs;
  try {
    avsc = parseExact(run('node', [join(here, 'oracle/avro-dump.mjs'), file, '--records=all']));
    py = parseExact(run('/usr/bin/python3', [join(here, 'oracle/avro-dump-py.py'), file, '--records=1000000']));
    floeRecs = run(FLOE, ['avro', 'cat', file]).split('\n').filter((l) => l.trim()).map(parseExact);
  } catch (e) {
    return fail(file, e.message);
  }
  const meta = avsc.metadata;
  const s = avsc.schema;
  const fv = Number(meta['format-version'] ?? '1');
  if (s.name === 'manifest_entry') {
    for (const k of ['schema', 'partition-spec', 'partition-spec-id', 'format-version'].concat(fv >= 2 ? ['content'] : []))
      if (!(k in meta)) fail(file, `header key ${k} missing`);
    try {
      if (!Array.isArray(JSON.parse(meta['partition-spec']))) fail(file, 'partition-spec is not a JSON array of fields');
      if (JSON.parse(meta.schema).type !== 'struct') fail(file, 'schema is not an Iceberg struct');
    } catch (e) {
      fail(file, `header JSON: ${e.message}`);
    }
    checkManifestSchema(file, s, fv);
  } else if (s.name === 'manifest_file') {
    for (const k of ['snapshot-id', 'parent-snapshot-id', 'format-version'].concat(fv >= 2 ? ['sequence-number'] : []))
      if (!(k in meta)) fail(file, `header key ${k} missing`);
    checkListSchema(file, s, fv);
  } else {
    return fail(file, `not a manifest or manifest list: record ${s.name}`);
  }
  const n = avsc.records.length;
  if (py.records.length !== n || floeRecs.length !== n)
    return fail(file, `record counts: avsc ${n}, python3-avro ${py.records.length}, floe ${floeRecs.length}`);
  for (let i = 0; i < n; i++) {
    const diffs = [];
    equal(canon(avsc.records[i]), canon(floeRecs[i]), `record ${i} (avsc vs floe)`, diffs);
    equal(canon(avsc.records[i]), canon(py.records[i]), `record ${i} (avsc vs python3-avro)`, diffs);
    for (const d of diffs.slice(0, 5)) fail(file, d);
  }
}

function walk(dir, out) {
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (p.endsWith('.avro')) out.push(p);
  }
  return out;
}

const [cmd, ...args] = process.argv.slice(2);
if (cmd === 'avro') {
  const files = args.flatMap((d) => walk(d, [])).sort();
  if (files.length === 0) {
    console.log('FAIL: no .avro files found');
    process.exit(1);
  }
  for (const f of files) checkFile(f);
  console.log(`${checked} files checked, ${failures} failures`);
  process.exit(failures ? 1 : 0);
} else {
  console.error('usage: node iceberg-interop.mjs avro DIR...');
  process.exit(2);
}
