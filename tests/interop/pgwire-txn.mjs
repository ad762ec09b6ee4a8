// pgwire-txn.mjs - transaction blocks through node `pg` (extended protocol):
// parameters inside BEGIN ... ROLLBACK leave the table unchanged, COMMIT
// publishes at once, two connections inserting concurrently inside blocks
// both land (the second COMMIT is rebased on the first).
// usage: node pgwire-txn.mjs PORT SECRET   (user alice, table s.t exists)
import pg from 'pg';
import assert from 'node:assert/strict';

const [port, secret] = process.argv.slice(2);
const cfg = { host: '127.0.0.1', port: Number(port), user: 'alice', password: secret, database: 'floe' };
let failures = 0;
async function step(name, fn) {
  try { await fn(); console.log('ok   node:', name); }
  catch (e) { failures++; console.log('FAIL node:', name, e.stack || e); }
}
const a = new pg.Client(cfg), b = new pg.Client(cfg);
await a.connect();
await b.connect();
const count = async (c) => Number((await c.query('SELECT count(*) AS n FROM s.t')).rows[0].n);
const head = async (c) => (await c.query('SELECT snapshot_id FROM s."t$snapshots" ORDER BY committed_at DESC, snapshot_id LIMIT 1')).rows[0].snapshot_id;

await step('rollback with parameters leaves the table unchanged', async () => {
  const n0 = await count(b), h0 = await head(b);
  await a.query('BEGIN');
  await a.query('INSERT INTO s.t VALUES ($1, $2)', [100, 'n']);
  await a.query('UPDATE s.t SET v = $1 WHERE id = $2', ['changed', 1]);
  assert.equal(await count(a), n0 + 1);
  assert.equal(await count(b), n0);
  await a.query('ROLLBACK');
  assert.equal(await count(b), n0);
  assert.equal(await head(b), h0);
  assert.equal((await b.query('SELECT v FROM s.t WHERE id = 1')).rows[0].v, 'a');
});

await step('commit publishes every statement at once', async () => {
  const n0 = await count(b);
  await a.query('BEGIN');
  for (let i = 0; i < 5; i++) await a.query('INSERT INTO s.t VALUES ($1, $2)', [200 + i, 'm']);
  assert.equal(await count(b), n0);
  await a.query('COMMIT');
  assert.equal(await count(b), n0 + 5);
});

await step('concurrent blocks on two connections both land', async () => {
  const n0 = await count(a);
  await a.query('BEGIN');
  await b.query('BEGIN');
  await a.query('INSERT INTO s.t VALUES ($1, $2)', [300, 'a']);
  await b.query('INSERT INTO s.t VALUES ($1, $2)', [301, 'b']);
  await Promise.all([a.query('COMMIT'), b.query('COMMIT')]);
  assert.equal(await count(a), n0 + 2);
  const ids = (await b.query('SELECT id FROM s.t WHERE id >= 300 ORDER BY id')).rows.map((r) => Number(r.id));
  assert.deepEqual(ids, [300, 301]);
});

await step('error inside a block: 25P02 until ROLLBACK', async () => {
  await a.query('BEGIN');
  await a.query('INSERT INTO s.t VALUES ($1, $2)', [400, 'e']);
  await assert.rejects(a.query('SELECT 1/0'), (e) => e.code === '22012');
  await assert.rejects(a.query('SELECT 1'), (e) => e.code === '25P02');
  await a.query('ROLLBACK');
  assert.equal((await a.query('SELECT count(*) AS n FROM s.t WHERE id = 400')).rows[0].n, '0');
});

await a.end();
await b.end();
process.exit(failures ? 1 : 0);
