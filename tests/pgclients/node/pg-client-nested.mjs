// pg-client-nested.mjs - issue 17: node `pg` decodes every column of every
// demo table (tests/pgclients/nested/make-demo.sh), nested ones included:
// json (structs, maps, lists of lists) to objects, text[] to arrays with
// quoting and NULL elements intact, json[] (lists of structs) to arrays of
// objects. Connection from PGHOST/PGPORT/PGUSER/PGPASSWORD/PGDATABASE;
// node_modules from PGC_NODE_MODULES. Exits 1 on the first failure.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
const require = createRequire(process.env.PGC_NODE_MODULES + '/');
const pg = require('pg');

let checks = 0;
const eq = (label, a, b) => { assert.deepStrictEqual(a, b, label); checks++; console.log('ok   ' + label); };
const c = new pg.Client({ host: process.env.PGHOST, port: +process.env.PGPORT, user: process.env.PGUSER,
                          password: process.env.PGPASSWORD, database: process.env.PGDATABASE, ssl: false });
await c.connect();
await c.query("SET TIME ZONE 'UTC'");
try {
  let r = await c.query('SELECT * FROM demo.customers ORDER BY name');
  eq('customers rows', r.rows.length, 10);
  eq('customers alice', [r.rows[0].name, r.rows[0].address, r.rows[0].tags, r.rows[0].limits],
     ['alice', { city: 'Lima', zip: '01234' }, ['t1', 'vip'], { daily: 100, monthly: 1000 }]);
  eq('customers type oids', r.fields.map((f) => f.dataTypeID), [25, 1082, 114, 1009, 114]);
  // the extended protocol (a prepared statement with a parameter)
  r = await c.query({ text: 'SELECT address, tags FROM demo.customers WHERE name = $1', values: ['bob'] });
  eq('extended protocol', r.rows, [{ address: { city: 'Kyoto', zip: '02468' }, tags: ['t2', 'vip'] }]);
  r = await c.query({ text: "SELECT tags[2] AS t, address.city AS city FROM demo.customers WHERE $1 = ANY(tags) ORDER BY name LIMIT 1",
                      values: ['vip'] });
  eq('nested forms with a parameter', r.rows, [{ t: 'vip', city: 'Lima' }]);
  r = await c.query('SELECT * FROM demo.nested ORDER BY id');
  const n = r.rows[0];
  eq('nested map', n.m, { a: 1, b: null });
  eq('nested list of structs', n.ls, [{ f1: 'Lima', f2: '01' }, { f1: 'Oslo', f2: null }]);
  eq('nested deep struct', n.deep, { f1: 1, f2: { f1: 'x', f2: [1, 2] } });
  eq('nested text list quoting', n.tricky, ['a,b', 'q"t', null, 'back\\slash', '{}', '', 'NULL']);
  eq('nested list of lists', n.ll, [[1, 2], [3]]);
  eq('nested NULL row', Object.values(r.rows[1]), [2, null, null, null, null, null]);
  eq('nested type oids', r.fields.map((f) => f.dataTypeID), [23, 114, 199, 114, 1009, 114]);
  r = await c.query('SELECT * FROM demo.orders ORDER BY order_id');
  eq('orders rows', r.rows.length, 200);
  eq('orders columns', r.fields.length, 8);
  eq('orders first id', r.rows[0].order_id, '1001'); // bigint: node pg gives a string
} finally {
  await c.end();
}
console.log(`node pg nested: ${checks} passed, 0 failed`);
