// pg-client-node.mjs - issue 5 acceptance with node `pg` 8.23 (pure JS
// protocol, SCRAM-SHA-256) against the server in PGHOST/PGPORT/PGUSER/
// PGPASSWORD/PGDATABASE; needs lake.big (tests/pgclients/setup.sql).
// Checks: DDL; DML with $n parameters through the extended protocol and their
// row counts; typed results (int8/numeric as strings, dates, bytea, uuid);
// a named prepared statement executed 12 times; binary result format; a
// 100,000-row result read as a portal in pages of 4,000 rows (Execute with a
// row limit, PortalSuspended); DECLARE/FETCH in a transaction; two portals
// interleaved; multi-statement simple queries; errors with SQLSTATE and
// position; the connection usable after each error.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { PagedPortal, installRawMode, rawBytes } from './paged-portal.mjs';
const require = createRequire(process.env.PGC_NODE_MODULES + '/');
const pg = require('pg');
installRawMode(require);

let checks = 0;
const ok = (label) => { checks++; console.log('ok   ' + label); };
const eq = (label, a, b) => { assert.deepStrictEqual(a, b, label); ok(label); };

const cfg = { host: process.env.PGHOST, port: +process.env.PGPORT, user: process.env.PGUSER,
              password: process.env.PGPASSWORD, database: process.env.PGDATABASE, ssl: false,
              application_name: 'pgc-node' };
const c = new pg.Client(cfg);
await c.connect();
ok('connect (SCRAM)');
await c.query("SET TIME ZONE 'UTC'");

// ---- DDL + DML with parameters
let r = await c.query('CREATE TABLE lake.nd (id bigint PRIMARY KEY, name text, amount numeric(18,3), ts timestamptz, n integer, b bytea, u uuid)');
eq('create table command', r.command, 'CREATE');
r = await c.query('INSERT INTO lake.nd VALUES ($1, $2, $3, $4, $5, $6, $7), ($8, $9, $10, $11, $12, $13, $14)',
  [1, 'one', '123456789012345.678', '2024-05-06T07:08:09.123456Z', 2147483647, Buffer.from([0, 1, 254, 255]), 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
   2, 'två', '-0.001', '1969-12-31T23:59:59.999999Z', -2147483648, Buffer.alloc(0), '00000000-0000-0000-0000-000000000001']);
eq('insert rowCount', [r.command, r.rowCount], ['INSERT', 2]);
r = await c.query('INSERT INTO lake.nd (id, name) VALUES ($1, $2)', [3, null]);
eq('insert nulls', r.rowCount, 1);
r = await c.query('UPDATE lake.nd SET amount = amount + $1, n = n / $2 WHERE id < $3', ['1.5', 2, 3]);
eq('update rowCount', [r.command, r.rowCount], ['UPDATE', 2]);
r = await c.query('DELETE FROM lake.nd WHERE name IS NULL');
eq('delete rowCount', [r.command, r.rowCount], ['DELETE', 1]);
r = await c.query({ text: 'SELECT id, name, amount, ts, n, b, u FROM lake.nd ORDER BY id', types: { getTypeParser: () => v => v } });
eq('text-format rows', r.rows.map(x => Object.values(x)), [
  ['1', 'one', '123456789012347.178', '2024-05-06 07:08:09.123456+00', '1073741823', '\\x0001feff', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'],
  ['2', 'två', '1.499', '1969-12-31 23:59:59.999999+00', '-1073741824', '\\x', '00000000-0000-0000-0000-000000000001']]);
eq('field type oids', r.fields.map(f => f.dataTypeID), [20, 25, 1700, 1184, 23, 17, 2950]);
r = await c.query('SELECT b, ts FROM lake.nd WHERE id = $1', [1]);
eq('parsed bytea', r.rows[0].b, Buffer.from([0, 1, 254, 255]));
eq('parsed timestamptz', r.rows[0].ts.toISOString(), '2024-05-06T07:08:09.123Z');

// ---- binary result format (raw wire bytes)
globalThis.PGC_RAW = true;
r = await c.query({ text: 'SELECT id, n, amount, u, b, name FROM lake.nd WHERE id = $1', values: [2], binary: true,
                    types: { getTypeParser: () => v => v } });
globalThis.PGC_RAW = false;
const row = Object.fromEntries(Object.entries(r.rows[0]).map(([k, v]) => [k, rawBytes(v).toString('hex')]));
eq('binary result formats', r.fields.map(f => f.format), Array(6).fill('binary'));
eq('binary int8', row.id, '0000000000000002');
eq('binary int4', row.n, 'c0000000');
// numeric 1.499: ndigits 2, weight 0, sign +, dscale 3; digits 1 4990
eq('binary numeric', row.amount, '00020000000000030001137e');
eq('binary uuid', row.u, '00000000000000000000000000000001');
eq('binary bytea (empty)', row.b, '');
eq('binary text (utf-8)', row.name, Buffer.from('två').toString('hex'));

// ---- a named prepared statement, 12 executions
for (let i = 1; i <= 12; i++) {
  const id = i * 8000 + 3;
  r = await c.query({ name: 'pgc_byid', text: 'SELECT id, v, s FROM lake.big WHERE id = $1', values: [id] });
  assert.deepStrictEqual(r.rows, [{ id: String(id), v: String(2 * id), s: 'row' + id }]);
}
ok('named prepared statement x12');
r = await c.query({ name: 'pgc_agg', text: 'SELECT count(*)::int AS n, sum(v) AS s, avg(id) AS a FROM lake.big WHERE id <= $1', values: [1000] });
eq('prepared aggregate', r.rows[0], { n: 1000, s: '1001000', a: '500.5000000000000000' });

// ---- 100k rows through a paged portal (Execute row limit)
let portal = c.query(new PagedPortal('SELECT id, v, s FROM lake.big WHERE id >= $1 ORDER BY id', [1], 4000));
let n = 0, pages = 0;
for (;;) {
  const rows = await portal.read();
  if (!rows.length) break;
  pages++;
  assert.ok(rows.length <= 4000, 'page larger than the row limit: ' + rows.length);
  for (const [id, v, s] of rows) {
    n++;
    if (id !== String(n) || v !== String(2 * n) || s !== 'row' + n) assert.fail(`row ${n}: ${id},${v},${s}`);
  }
}
await portal.finish();
eq('paged portal rows', n, 100000);
eq('paged portal pages', pages, 25);
// PostgreSQL counts the rows of the last Execute only (here 0: 100000 is a multiple of 4000)
eq('paged portal command tag', portal.commandTag, 'SELECT 0');
// binary portal of the same rows: int8 big-endian
globalThis.PGC_RAW = true;
portal = c.query(new PagedPortal('SELECT id FROM lake.big ORDER BY id', [], 30000, { binary: true, name: 'bin' }));
const bin = (await portal.readAll()).map(x => Buffer.from(x[0], 'latin1')); await portal.finish();
globalThis.PGC_RAW = false;
eq('binary portal rows', bin.length, 100000);
eq('binary portal values', bin.every((b, i) => b.length === 8 && b.readBigInt64BE() === BigInt(i + 1)), true);

// ---- DECLARE / FETCH in a transaction, two cursors interleaved
await c.query('BEGIN');
await c.query('DECLARE ca CURSOR FOR SELECT id FROM lake.big ORDER BY id');
await c.query('DECLARE cb CURSOR FOR SELECT id FROM lake.big ORDER BY id DESC');
const a1 = await c.query('FETCH 2 FROM ca'), b1 = await c.query('FETCH 2 FROM cb'), a2 = await c.query('FETCH 2 FROM ca');
eq('interleaved cursors', [a1.rows, b1.rows, a2.rows].map(x => x.map(y => +y.id)), [[1, 2], [100000, 99999], [3, 4]]);
eq('FETCH command', [a1.command, a1.rowCount], ['FETCH', 2]);
r = await c.query('FETCH FORWARD $1 FROM ca'.replace('$1', '99990'));
eq('FETCH FORWARD 99990', [r.rowCount, +r.rows[0].id, +r.rows.at(-1).id], [99990, 5, 99994]);
r = await c.query('FETCH ALL FROM ca');
eq('FETCH ALL rest', r.rows.map(x => +x.id), [99995, 99996, 99997, 99998, 99999, 100000]);
await c.query('CLOSE ca'); await c.query('CLOSE cb'); await c.query('COMMIT');
ok('close + commit');

// ---- multi-statement simple query
r = await c.query("SELECT 1 AS a; SELECT 'x' AS b, 2 AS c");
eq('multi-statement', r.map(x => x.rows), [[{ a: 1 }], [{ b: 'x', c: 2 }]]);

// ---- errors
await assert.rejects(c.query('SELECT * FROM lake.missing'), e => e.code === '42P01' && e.position === '15');
ok('42P01 with position');
await assert.rejects(c.query('SELECT 1/0'), e => e.code === '22012');
ok('22012');
await assert.rejects(c.query('SELEC 1'), e => e.code === '42601');
ok('42601 syntax error');
await assert.rejects(c.query('SELECT $1::int', ['abc']), e => e.code === '22P02');
ok('22P02 bad parameter');
r = await c.query('SELECT count(*)::int AS n FROM lake.nd');
eq('usable after errors', r.rows[0].n, 2);

// ---- wrong password
const bad = new pg.Client({ ...cfg, password: 'wrong' });
await assert.rejects(bad.connect(), e => e.code === '28P01');
ok('wrong password 28P01');

await c.query('DROP TABLE lake.nd');
await c.end();
console.log(`PASS node pg: ${checks} checks`);
