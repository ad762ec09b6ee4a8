// iceberg-interop.mjs - independent checks of Iceberg manifests and manifest
// lists written by floe.
//
//   node iceberg-interop.mjs avro DIR...   every *.avro under DIR (recursive)
//   node iceberg-interop.mjs table METADATA.json [--icebird]
//
// table: (a) the avro checks below on every manifest and list of the table;
// (b) DuckDB reads every live data file, with the manifest's record_count;
// (c) an independent recomputation of the current snapshot's rows: manifest
// lists and manifests decoded with avsc, entry status and sequence-number
// inheritance per spec, position deletes / deletion vectors (data seq <=
// delete seq) and equality deletes (data seq < delete seq, same partition or
// unpartitioned delete), data read with DuckDB read_parquet and matched to
// the current schema by Parquet field id; compared with `floe table cat`;
// (d) with --icebird, icebird 0.3.1 (oracle/iceberg-read.mjs) returns the
// same number of rows and the same ids.
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
import { readdirSync, statSync, readFileSync, openSync, readSync, closeSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as losslessParse } from 'lossless-json';
import { DuckDBInstance } from '@duckdb/node-api';
import { cmpDuck, compareRows, parseJsonExact } from './lib/compare.mjs';

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

// ---- tables ---------------------------------------------------------------

const localPath = (p) => (p.startsWith('file://') ? p.slice(7) : p.startsWith('file:') ? p.slice(5) : p);
const avscRecords = (file) => parseExact(run('node', [join(here, 'oracle/avro-dump.mjs'), file, '--records=all'])).records;

// Roaring "portable" 64-bit positions of a deletion-vector blob (Puffin
// deletion-vector-v1: u32 BE length, magic D1D33964, bitmap, CRC).
function dvPositions(buf) {
  const magic = buf.readUInt32BE(4);
  if (magic !== 0xd1d33964) throw new Error(`deletion vector magic ${magic.toString(16)}`);
  let o = 8;
  const out = [];
  const nmaps = Number(buf.readBigUInt64LE(o)); o += 8;
  for (let m = 0; m < nmaps; m++) {
    const high = BigInt(buf.readUInt32LE(o)); o += 4;
    const cookie = buf.readUInt32LE(o); o += 4;
    let size, runBits = null;
    if ((cookie & 0xffff) === 12347) {
      size = (cookie >>> 16) + 1;
      runBits = buf.subarray(o, o + Math.ceil(size / 8)); o += Math.ceil(size / 8);
    } else if (cookie === 12346) {
      size = buf.readUInt32LE(o); o += 4;
    } else throw new Error(`roaring cookie ${cookie}`);
    const keys = [], cards = [];
    for (let i = 0; i < size; i++) { keys.push(buf.readUInt16LE(o)); cards.push(buf.readUInt16LE(o + 2) + 1); o += 4; }
    if (!runBits || size >= 4) o += 4 * size; // offset header
    for (let i = 0; i < size; i++) {
      const base = (high << 32n) | (BigInt(keys[i]) << 16n);
      const isRun = runBits && (runBits[i >> 3] >> (i & 7)) & 1;
      if (isRun) {
        const nruns = buf.readUInt16LE(o); o += 2;
        for (let r = 0; r < nruns; r++) {
          const start = buf.readUInt16LE(o), len = buf.readUInt16LE(o + 2); o += 4;
          for (let v = start; v <= start + len; v++) out.push(base | BigInt(v));
        }
      } else if (cards[i] <= 4096) {
        for (let k = 0; k < cards[i]; k++) { out.push(base | BigInt(buf.readUInt16LE(o))); o += 2; }
      } else {
        for (let w = 0; w < 1024; w++) {
          const word = buf.readBigUInt64LE(o + 8 * w);
          for (let b = 0; b < 64; b++) if ((word >> BigInt(b)) & 1n) out.push(base | BigInt(w * 64 + b));
        }
        o += 8192;
      }
    }
  }
  return out.map(String);
}

function readRange(path, off, len) {
  const fd = openSync(path, 'r');
  const b = Buffer.alloc(len);
  readSync(fd, b, 0, len, off);
  closeSync(fd);
  return b;
}

async function checkTable(metaPath, withIcebird) {
  const label = metaPath;
  const meta = JSON.parse(readFileSync(metaPath, 'utf8'));
  // (a) every manifest and list of the table
  for (const f of walk(dirname(metaPath), []).sort()) checkFile(f);
  const snapId = String(losslessParse(readFileSync(metaPath, 'utf8'))['current-snapshot-id'] ?? '-1');
  const snaps = losslessParse(readFileSync(metaPath, 'utf8')).snapshots ?? [];
  const snap = snaps.find((x) => String(x['snapshot-id']) === snapId);
  const schema = meta.schemas.find((x) => x['schema-id'] === meta['current-schema-id']);
  const cols = schema.fields.map((f) => ({ id: f.id, name: f.name }));
  const live = [], deletes = [];
  if (snap) {
    for (const mf of avscRecords(localPath(String(snap['manifest-list'])))) {
      const mseq = BigInt(mf.sequence_number ?? 0);
      for (const e of avscRecords(localPath(mf.manifest_path))) {
        if (Number(e.status) === 2) continue;
        const seq = e.sequence_number !== null && e.sequence_number !== undefined ? BigInt(e.sequence_number)
          : Number(e.status) === 1 ? mseq : null;
        if (seq === null) { fail(label, `${mf.manifest_path}: EXISTING entry without sequence number`); continue; }
        const df = e.data_file;
        const item = { path: localPath(df.file_path), content: Number(df.content ?? 0), seq, spec: Number(mf.partition_spec_id),
          partition: JSON.stringify(canon(df.partition)), unpartitioned: Object.keys(df.partition ?? {}).length === 0,
          records: BigInt(df.record_count), equality_ids: (df.equality_ids ?? []).map(Number),
          referenced: df.referenced_data_file ? localPath(df.referenced_data_file) : null,
          offset: df.content_offset, size: df.content_size_in_bytes, format: String(df.file_format).toUpperCase() };
        (item.content === 0 ? live : deletes).push(item);
      }
    }
  }
  const con = await (await DuckDBInstance.create(':memory:')).connect();
  await con.run("SET TimeZone='UTC'");
  const q = async (sql) => { const r = await con.runAndReadAll(sql); return { names: r.columnNames(), types: r.columnTypes(), rows: r.getRowsJson() }; };
  const lit = (p) => `'${p.replace(/'/g, "''")}'`;
  const fileCols = async (p) => (await q(`select name, field_id from parquet_schema(${lit(p)})`)).rows;
  // position deletes and DVs: file -> [{seq, positions:Set}]
  const posDel = new Map();
  const addPos = (file, seq, positions) => {
    if (!posDel.has(file)) posDel.set(file, []);
    posDel.get(file).push({ seq, set: new Set(positions.map(String)) });
  };
  const eqDel = [];
  for (const d of deletes) {
    if (d.format === 'PUFFIN') {
      addPos(d.referenced, d.seq, dvPositions(readRange(d.path, Number(d.offset), Number(d.size))));
    } else if (d.content === 1) {
      const r = await q(`select file_path, pos from read_parquet(${lit(d.path)})`);
      const by = new Map();
      for (const [fp, pos] of r.rows) {
        const k = localPath(fp);
        if (!by.has(k)) by.set(k, []);
        by.get(k).push(pos);
      }
      for (const [k, v] of by) addPos(k, d.seq, v);
    } else {
      const fc = await fileCols(d.path);
      const sel = d.equality_ids.map((id) => {
        const c = fc.find((x) => Number(x[1]) === id);
        return c ? `"${c[0]}"` : 'NULL';
      });
      const r = await q(`select ${sel.join(', ')} from read_parquet(${lit(d.path)})`);
      eqDel.push({ ...d, keys: new Set(r.rows.map((row) => JSON.stringify(row))) });
    }
  }
  const expect = [];
  let names = cols.map((c) => c.name), types = null;
  for (const f of live) {
    const fc = await fileCols(f.path);
    const sel = cols.map((c) => {
      const m = fc.find((x) => Number(x[1]) === c.id);
      return m ? `"${m[0]}" as "${c.name}"` : `NULL as "${c.name}"`;
    });
    const r = await q(`select ${sel.join(', ')}, file_row_number from read_parquet(${lit(f.path)}, file_row_number=true) order by file_row_number`);
    // (b) DuckDB reads the file and agrees with record_count
    if (BigInt(r.rows.length) !== f.records) fail(label, `${f.path}: DuckDB reads ${r.rows.length} rows, manifest says ${f.records}`);
    if (!types || types.some((t) => String(t) === 'NULL')) types = r.types;
    const dels = (posDel.get(f.path) ?? []).filter((d) => f.seq <= d.seq);
    const eqs = eqDel.filter((d) => f.seq < d.seq && (d.unpartitioned || (d.spec === f.spec && d.partition === f.partition)));
    for (const row of r.rows) {
      const pos = String(row[row.length - 1]);
      if (dels.some((d) => d.set.has(pos))) continue;
      const vals = row.slice(0, -1);
      if (eqs.some((d) => d.keys.has(JSON.stringify(d.equality_ids.map((id) => vals[cols.findIndex((c) => c.id === id)] ?? null))))) continue;
      expect.push(vals);
    }
  }
  // (c) floe table cat
  const out = run(FLOE, ['table', 'cat', metaPath, '--format=jsonl']);
  const floe = out.split('\n').filter((l) => l.trim()).map((l) => parseJsonExact(l));
  const idIdx = names.indexOf('id');
  const key = (v) => (v === null || v === undefined ? '' : String(v));
  const cmpId = (a, b) => { try { const x = BigInt(a), y = BigInt(b); return x < y ? -1 : x > y ? 1 : 0; } catch { return key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0; } };
  if (idIdx >= 0) {
    expect.sort((a, b) => cmpId(a[idIdx], b[idIdx]));
    floe.sort((a, b) => cmpId(a.id, b.id));
  }
  if (types) for (const e of compareRows(`${label} rows`, floe, expect, names, types.slice(0, names.length), cmpDuck, 8)) fail(label, e);
  else if (floe.length) fail(label, `floe returned ${floe.length} rows, the table has no data files`);
  console.log(`${label}: ${live.length} data files, ${deletes.length} delete files, ${expect.length} rows`);
  // (d) icebird
  if (withIcebird) {
    try {
      const ib = JSON.parse(run('node', [join(here, 'oracle/iceberg-read.mjs'), metaPath, '--rows=all']));
      const ids = ib.rows.map((r) => String(r.id)).sort();
      const want = expect.map((r) => String(r[idIdx])).sort();
      if (ib.rows.length !== expect.length) fail(label, `icebird reads ${ib.rows.length} rows, expected ${expect.length}`);
      else if (idIdx >= 0 && ids.join() !== want.join()) fail(label, 'icebird returns other ids');
    } catch (e) {
      fail(label, `icebird: ${e.message}`);
    }
  }
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
} else if (cmd === 'table') {
  await checkTable(args[0], args.includes('--icebird'));
  console.log(`${checked} Avro files checked, ${failures} failures`);
  process.exit(failures ? 1 : 0);
} else {
  console.error('usage: node iceberg-interop.mjs avro DIR... | table METADATA.json [--icebird]');
  process.exit(2);
}
