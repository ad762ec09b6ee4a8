// pgwire-node.mjs - drives floe's PostgreSQL listener with node `pg` (extended
// protocol): parameters (text and binary), binary results, paged portals
// inside a transaction, cancel, SCRAM login, wrong password, 42501.
// usage: node pgwire-node.mjs PORT ADMIN_SECRET READER_SECRET
import pg from 'pg';
import assert from 'node:assert/strict';

const [port, adminSecret, readerSecret] = process.argv.slice(2);
const cfg = (user, password) => ({ host: '127.0.0.1', port: Number(port), user, password, database: 'floe' });
let failures = 0;
async function step(name, fn) {
  try { await fn(); console.log('ok -', name); }
  catch (e) { failures++; console.log('FAIL -', name, e.stack || e); }
}

const admin = new pg.Client(cfg('admin1', adminSecret));
await admin.connect();

await step('DDL and DML with parameters', async () => {
  await admin.query('CREATE SCHEMA IF NOT EXISTS nodes');
  await admin.query('CREATE TABLE nodes.t (id bigint, name varchar, amt decimal(38,10), d date, ts timestamptz, u uuid, b bytea, f double precision, ok boolean)');
  const r = await admin.query('INSERT INTO nodes.t VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)',
    ['9223372036854775807', 'héllo', '1234567890123456789012345678.0123456789', '2024-02-29',
     '2024-01-02T03:04:05.123456Z', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', Buffer.from([0, 1, 255]), 1.5, true]);
  assert.equal(r.rowCount, 1);
  await admin.query('INSERT INTO nodes.t (id) VALUES ($1)', ['-9223372036854775808']);
  const d = '(VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9))';
  await admin.query('CREATE TABLE nodes.big (v integer)');
  await admin.query(`INSERT INTO nodes.big SELECT a.x * 100 + b.x * 10 + c.x FROM ${d} a(x), ${d} b(x), ${d} c(x)`);
  assert.equal((await admin.query('SELECT count(*) AS n FROM nodes.big')).rows[0].n, '1000');
});

await step('text results through prepared statements', async () => {
  const r = await admin.query({ name: 'q1', text: 'SELECT id, name, amt, d, u, b, f, ok FROM nodes.t WHERE id = $1', values: ['9223372036854775807'] });
  assert.equal(r.rows.length, 1);
  const row = r.rows[0];
  assert.equal(row.id, '9223372036854775807');
  assert.equal(row.name, 'héllo');
  assert.equal(row.amt, '1234567890123456789012345678.0123456789');
  assert.equal(row.u, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11');
  assert.deepEqual([...row.b], [0, 1, 255]);
  assert.equal(row.f, 1.5);
  assert.equal(row.ok, true);
  for (let i = 0; i < 6; i++) // re-execute the named statement
    assert.equal((await admin.query({ name: 'q1', text: 'SELECT id, name, amt, d, u, b, f, ok FROM nodes.t WHERE id = $1', values: ['9223372036854775807'] })).rows.length, 1);
});

await step('binary results', async () => {
  // node pg decodes binary DataRow values as UTF-8 strings (pg-protocol), so
  // only values whose bytes are valid UTF-8 can be compared here; the exact
  // bytes of every type are checked in tests/pgwire/test_binfmt.c.
  const r = await admin.query({ text: 'SELECT CAST(id - 9223372036854775800 AS integer) AS i, ok, name FROM nodes.t WHERE id > $1',
    values: ['0'], binary: true, types: { getTypeParser: () => (v) => Buffer.from(v, 'utf8') } });
  assert.equal(r.fields[0].format, 'binary');
  const row = r.rows[0];
  assert.deepEqual([...row.i], [0, 0, 0, 7]);
  assert.deepEqual([...row.ok], [1]);
  assert.equal(row.name.toString('utf8'), 'héllo');
});

await step('errors carry SQLSTATE and position; pipeline recovers', async () => {
  await assert.rejects(admin.query('SELECT nope FROM nodes.t'), (e) => e.code === '42703' && Number(e.position) > 0);
  await assert.rejects(admin.query('SELECT 1/$1::int', ['0']), (e) => e.code === '22012');
  assert.equal((await admin.query('SELECT 2 AS x')).rows[0].x, 2);
});

await step('paged portal inside a transaction (fetch size)', async () => {
  await admin.query('BEGIN');
  await admin.query('DECLARE cur CURSOR FOR SELECT a.v * 10 + b.v + 1 AS x FROM nodes.big a, nodes.big b WHERE b.v < 10 ORDER BY x');
  let total = 0, pages = 0, last = 0;
  for (;;) {
    const r = await admin.query('FETCH 3000 FROM cur');
    if (!r.rows.length) break;
    total += r.rows.length; pages++; last = Number(r.rows[r.rows.length - 1].x);
  }
  await admin.query('COMMIT');
  assert.equal(total, 10000); assert.equal(pages, 4); assert.equal(last, 10000);
});

await step('cancel a long query', async () => {
  const c2 = new pg.Client(cfg('admin1', adminSecret));
  await c2.connect();
  const q = c2.query('SELECT count(*) FROM nodes.big a, nodes.big b, nodes.big c WHERE a.v + b.v + c.v >= 0');
  await new Promise((r) => setTimeout(r, 300));
  const cancelViaProtocol = new pg.Client(cfg('admin1', adminSecret));
  const con = cancelViaProtocol.connection;
  await new Promise((res, rej) => {
    con.once('connect', () => { con.cancel(c2.processID, c2.secretKey); res(); });
    con.once('error', rej);
    con.connect(Number(port), '127.0.0.1');
  });
  await assert.rejects(q, (e) => e.code === '57014');
  assert.equal((await c2.query('SELECT 1 AS one')).rows[0].one, 1);
  await c2.end();
});

await step('wrong password is rejected with 28P01', async () => {
  const bad = new pg.Client(cfg('admin1', 'not-the-secret'));
  await assert.rejects(bad.connect(), (e) => e.code === '28P01');
  const ghost = new pg.Client(cfg('nobody', 'x'));
  await assert.rejects(ghost.connect(), (e) => e.code === '28P01');
});

await step('missing grant is 42501; reads allowed by grant', async () => {
  const rd = new pg.Client(cfg('reader1', readerSecret));
  await rd.connect();
  assert.equal((await rd.query('SELECT count(*) AS n FROM nodes.t')).rows[0].n, '2');
  await assert.rejects(rd.query('INSERT INTO nodes.t (id) VALUES (5)'), (e) => e.code === '42501');
  await assert.rejects(rd.query('DROP TABLE nodes.t'), (e) => e.code === '42501');
  await assert.rejects(rd.query({ text: 'DELETE FROM nodes.t WHERE id = $1', values: ['1'] }), (e) => e.code === '42501');
  await rd.end();
  assert.equal((await admin.query('SELECT count(*) AS n FROM nodes.t')).rows[0].n, '2');
});

await admin.end();
if (failures) { console.log(`${failures} failure(s)`); process.exit(1); }
console.log('all passed');
