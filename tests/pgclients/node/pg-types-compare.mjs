// pg-types-compare.mjs - exact type round trips: the same values are stored
// in (and selected from) the server under test (PG* env: floe serve) and a
// real PostgreSQL 15 (REF_* env), in text and in binary result format, and
// the raw bytes of every value, the RowDescription type OID / typmod / size,
// are compared byte for byte. Values also go through binary parameters
// (Bind with format 1), and timestamptz text output is compared in several
// session time zones.
//
// Type mapping that differs by design (floe has no int2): a smallint column
// is an integer column in floe; its values are compared with PostgreSQL's
// `v::integer` (text and binary), and floe's column must report OID 23.
// Everything else must be identical.
import { createRequire } from 'node:module';
import { installRawMode, rawBytes } from './paged-portal.mjs';
const require = createRequire(process.env.PGC_NODE_MODULES + '/');
const pg = require('pg');
installRawMode(require);
globalThis.PGC_RAW = true; // every value as the exact bytes on the wire

// [name, column type, [literals...]] - a literal NULL is added to each
const TYPES = [
  ['bool', 'boolean', ['true', 'false']],
  ['int2', 'smallint', ['-32768', '32767', '0', '-1']],
  ['int4', 'integer', ['-2147483648', '2147483647', '0', '-1', '42']],
  ['int8', 'bigint', ['-9223372036854775808', '9223372036854775807', '0', '-1', '4294967296']],
  ['num38_0', 'numeric(38,0)', ['99999999999999999999999999999999999999', '-99999999999999999999999999999999999999', '0', '1', '-10000000000000000000000000000000000000', '12345678901234567890']],
  ['num38_10', 'numeric(38,10)', ['1234567890123456789012345678.0123456789', '-1234567890123456789012345678.0123456789', '-0.0000000001', '0', '0.5', '10000', '-99999999.9999999999', '0.0000100000']],
  ['num38_38', 'numeric(38,38)', ['0.12345678901234567890123456789012345678', '-0.00000000000000000000000000000000000001', '0']],
  ['num10_2', 'numeric(10,2)', ['0', '-12345678.90', '1.5', '0.01', '99999999.99', '-0.01', '100']],
  ['num18_4', 'numeric(18,4)', ['12345678901234.5678', '-1.0001', '0.0001', '1000000']],
  ['float4', 'real', ['1.5', '-0', "'NaN'", "'Infinity'", "'-Infinity'", '3.4028235e38', '1e-45', '0.1', '-123.456', '16777217']],
  ['float8', 'double precision', ['0.1', '-0', "'NaN'", "'Infinity'", "'-Infinity'", '1.7976931348623157e308', '5e-324', '123456789.123456789', '-2.5e-10', '1e22', '9007199254740993']],
  ['date', 'date', ["'2000-02-29'", "'1970-01-01'", "'1969-12-31'", "'0001-01-01'", "'9999-12-31'", "'1000-06-15'", "'0044-03-15 BC'", "'12345-06-07'", "'1582-10-04'"]],
  ['time', 'time', ["'00:00:00'", "'23:59:59.999999'", "'12:34:56.789'", "'00:00:00.000001'"]],
  ['timestamp', 'timestamp', ["'2024-02-29 23:59:59.999999'", "'1970-01-01 00:00:00'", "'1969-12-31 23:59:59.000001'", "'0001-01-01 00:00:00'", "'9999-12-31 23:59:59.999999'", "'2000-01-01 00:00:00.5'", "'1900-03-01 12:00:00.000010'", "'0100-02-28 01:02:03 BC'"]],
  ['timestamptz', 'timestamptz', ["'2024-06-01 12:00:00.123456+00'", "'1999-12-31 23:59:59.999999-08'", "'1970-01-01 00:00:00+00'", "'1900-01-01 00:00:00+00'", "'2024-03-10 07:30:00+00'", "'2024-11-03 05:59:59.999999+00'", "'2038-01-19 03:14:08+00'", "'0001-01-01 00:00:00+00'", "'9999-12-31 23:59:59.999999+00'"]],
  ['uuid', 'uuid', ["'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'", "'00000000-0000-0000-0000-000000000000'", "'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF'", "'{12345678-1234-5678-1234-567812345678}'"]],
  ['bytea', 'bytea', ["'\\x" + Buffer.from(Array.from({ length: 256 }, (_, i) => i)).toString('hex') + "'", "''", "'\\x00'", "'\\xff00ff'", "'abc\\\\def'"]],
  ['text', 'text', ["''", "'héllo wörld'", "'😀 emoji 𝄞'", "'中文 日本語 한국어'", "'e\u0301 combining'", "'quote '' back\\ tab\t nl\n end'", "'" + 'x'.repeat(10000) + "'"]],
];
const ZONES = ['UTC', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe', 'Europe/Amsterdam', 'Pacific/Chatham'];

const cfg = (p) => ({ host: process.env[p + 'HOST'], port: +process.env[p + 'PORT'], user: process.env[p + 'USER'],
  password: process.env[p + 'PASSWORD'], database: process.env[p + 'DATABASE'] ?? process.env[p + 'DB'], ssl: false });
const floe = new pg.Client(cfg('PG')), ref = new pg.Client(cfg('REF_'));
await floe.connect(); await ref.connect();
const RAW = { getTypeParser: () => v => v };
let compared = 0, mismatches = [];
const hex = (v) => v === null ? 'NULL' : rawBytes(v).toString('hex');
const show = (v) => { if (v === null) return 'NULL'; const b = rawBytes(v); const s = b.toString('utf8');
  return (/^[\x20-\x7e]*$/.test(s) && s.length < 120 ? JSON.stringify(s) + ' ' : '') + '0x' + b.toString('hex').slice(0, 160); };

async function both(sql, opts = {}) {
  const q = (c) => c.query({ text: sql, types: RAW, queryMode: 'extended', ...opts }).then(r => ({ r }), e => ({ e }));
  return [await q(floe), await q(ref)];
}
function cmp(label, a, b) {
  compared++;
  if (a !== b) mismatches.push(`${label}\n    floe: ${a}\n    pg15: ${b}`);
}
async function exec(sql) {
  for (const [name, c] of [['floe', floe], ['pg15', ref]]) {
    try { await c.query(sql); } catch (e) { mismatches.push(`${name}: ${sql.slice(0, 200)}: ${e.code} ${e.message}`); }
  }
}

await exec('CREATE SCHEMA IF NOT EXISTS lake');
for (const [name, type, lits] of TYPES) {
  const all = [...lits, 'NULL'];
  await exec(`CREATE TABLE lake.ty_${name} (id integer, v ${type})`);
  await exec(`INSERT INTO lake.ty_${name} VALUES ` + all.map((l, i) => `(${i}, (${l})::${type})`).join(', '));
  const refExpr = name === 'int2' ? 'v::integer AS v' : 'v';
  const floeExpr = process.env.PGC_TARGET === 'postgres' ? refExpr : 'v';
  // simple-query text, extended text, extended binary
  for (const [fmt, binary, queryMode] of [['simple-text', false, undefined], ['text', false, 'extended'], ['binary', true, 'extended']]) {
    const [f, p] = [
      await floe.query({ text: `SELECT id, ${floeExpr} FROM lake.ty_${name} ORDER BY id`, types: RAW, binary, queryMode }).then(r => ({ r }), e => ({ e })),
      await ref.query({ text: `SELECT id, ${refExpr} FROM lake.ty_${name} ORDER BY id`, types: RAW, binary, queryMode }).then(r => ({ r }), e => ({ e })),
    ];
    if (f.e || p.e) { mismatches.push(`${name} ${fmt}: floe ${f.e?.code} ${f.e?.message ?? 'ok'} / pg15 ${p.e?.code} ${p.e?.message ?? 'ok'}`); continue; }
    const fd = f.r.fields[1], pd = p.r.fields[1];
    cmp(`${name} ${fmt} result format`, fd.format, binary ? 'binary' : 'text');
    cmp(`${name} ${fmt} RowDescription (oid/typmod/len/format)`,
      [fd.dataTypeID, fd.dataTypeModifier, fd.dataTypeSize, fd.format].join('/'), [pd.dataTypeID, name === 'int2' ? -1 : pd.dataTypeModifier, pd.dataTypeSize, pd.format].join('/'));
    cmp(`${name} ${fmt} row count`, f.r.rows.length, p.r.rows.length);
    for (let i = 0; i < Math.min(f.r.rows.length, p.r.rows.length); i++) {
      const fv = f.r.rows[i].v, pv = p.r.rows[i].v;
      if (hex(fv) !== hex(pv)) cmp(`${name} ${fmt} value ${all[i].slice(0, 60)}`, show(fv), show(pv)); else compared++;
    }
  }
  // constants: the same literal cast in a SELECT list, text and binary
  for (const binary of [false, true]) {
    const sel = all.map((l, i) => `(${l})::${type}${name === 'int2' ? '::integer' : ''} AS c${i}`).join(', ');
    const [f, p] = await both(`SELECT ${sel}`, { binary });
    if (f.e || p.e) { mismatches.push(`${name} constants ${binary ? 'binary' : 'text'}: floe ${f.e?.code} ${f.e?.message ?? 'ok'} / pg15 ${p.e?.code} ${p.e?.message ?? 'ok'}`); continue; }
    all.forEach((l, i) => {
      const fv = f.r.rows[0]['c' + i], pv = p.r.rows[0]['c' + i];
      if (hex(fv) !== hex(pv)) cmp(`${name} constant ${binary ? 'binary' : 'text'} ${l.slice(0, 60)}`, show(fv), show(pv)); else compared++;
    });
  }
}
// binary parameters: Bind with format 1 for int8/int4/float8/bytea/uuid, echoed back in binary and text
const params = [
  ['int8', Buffer.from('8000000000000000', 'hex')], ['int8', Buffer.from('7fffffffffffffff', 'hex')],
  ['int4', Buffer.from('80000000', 'hex')], ['float8', Buffer.from('7ff8000000000000', 'hex')],
  ['float8', Buffer.from('8000000000000000', 'hex')], ['bytea', Buffer.from(Array.from({ length: 256 }, (_, i) => 255 - i))],
  ['uuid', Buffer.from('0123456789abcdeffedcba9876543210', 'hex')], ['numeric', Buffer.from('0002000040000002000104b0', 'hex')],
  ['date', Buffer.from('fffffd5a', 'hex')], ['timestamp', Buffer.from('fffc7d2b1f4f4000', 'hex')],
];
for (const [t, buf] of params) {
  for (const binary of [false, true]) {
    const [f, p] = await both(`SELECT $1::${t} AS v`, { values: [buf], binary });
    if (f.e || p.e) { mismatches.push(`binary parameter ${t} ${buf.toString('hex')}: floe ${f.e?.code} ${f.e?.message ?? 'ok'} / pg15 ${p.e?.code} ${p.e?.message ?? 'ok'}`); continue; }
    cmp(`binary parameter ${t} 0x${buf.toString('hex').slice(0, 40)} -> ${binary ? 'binary' : 'text'}`, show(f.r.rows[0].v), show(p.r.rows[0].v));
  }
}
// timestamptz / timestamp text output in several session time zones
for (const z of ZONES) {
  await exec(`SET TIME ZONE '${z}'`);
  for (const binary of [false, true]) {
    const [f, p] = await both('SELECT id, v FROM lake.ty_timestamptz ORDER BY id', { binary });
    if (f.e || p.e) { mismatches.push(`timestamptz in ${z}: floe ${f.e?.code} ${f.e?.message ?? 'ok'} / pg15 ${p.e?.code} ${p.e?.message ?? 'ok'}`); continue; }
    f.r.rows.forEach((row, i) => cmp(`timestamptz ${binary ? 'binary' : 'text'} in ${z} row ${i}`, show(row.v), show(p.r.rows[i]?.v ?? null)));
  }
  const [f, p] = await both("SELECT '2024-07-04 12:34:56.789'::timestamptz AS v, current_setting('TimeZone') AS z");
  if (!f.e && !p.e) { cmp(`timestamptz literal without offset in ${z}`, show(f.r.rows[0].v), show(p.r.rows[0].v));
                      cmp(`current_setting('TimeZone') = ${z}`, show(f.r.rows[0].z), show(p.r.rows[0].z)); }
  else mismatches.push(`tz literal in ${z}: floe ${f.e?.message ?? 'ok'} / pg15 ${p.e?.message ?? 'ok'}`);
}
await exec("SET TIME ZONE 'UTC'");
for (const [name] of TYPES) await exec(`DROP TABLE lake.ty_${name}`);
await floe.end(); await ref.end();
// known gaps against floe (tests/pgclients/known-gaps.txt) are reported, not failed
if (process.env.PGC_KNOWN_GAPS) {
  const gaps = (await import('node:fs')).readFileSync(process.env.PGC_KNOWN_GAPS, 'utf8').split('\n')
    .filter((l) => l && !l.startsWith('#') && l.includes('\t')).map((l) => l.split('\t'));
  mismatches = mismatches.filter((m) => {
    const g = gaps.find(([sub]) => m.includes(sub));
    if (g) console.log(`GAP  ${m.split('\n')[0]} (known gap: ${g[1]})`);
    return !g;
  });
}
console.log(`compared ${compared} values/descriptions; ${mismatches.length} mismatch(es)`);
if (mismatches.length) { console.log('MISMATCHES:\n  ' + mismatches.join('\n  ')); process.exit(1); }
console.log('PASS exact types: floe = PostgreSQL 15, byte for byte (int2 as int4 by design)');
