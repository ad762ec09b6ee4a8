// sql-http-check.mjs URL ADMIN_TOKEN READER_TOKEN PARQUET_DIR
// Checks floe serve's HTTP SQL endpoint (POST /v1/sql, DELETE /v1/sql/{id})
// with independent readers: JSON.parse for NDJSON, apache-arrow's
// tableFromIPC for the Arrow IPC stream and hyparquet for Parquet. Every value of every type the
// engine emits is compared with the expected value in both formats.
import { tableFromIPC } from 'apache-arrow';
import { parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';

const [URL, ADMIN, READER, PQ] = process.argv.slice(2);
let failures = 0, checks = 0;
function expect(ok, msg) {
  checks++;
  if (!ok) { failures++; console.log('FAIL: ' + msg); }
}
const show = (v) => JSON.stringify(v, (k, x) => (typeof x === 'bigint' ? x.toString() + 'n' : x));

async function post(sql, { token = ADMIN, arrow = false, json = null, headers = {}, signal } = {}) {
  const h = { Authorization: 'Bearer ' + token, ...headers };
  if (arrow) h.Accept = 'application/vnd.apache.arrow.stream';
  let body = sql;
  if (json) { h['Content-Type'] = 'application/json'; body = JSON.stringify(json); }
  return fetch(URL + '/v1/sql', { method: 'POST', headers: h, body, signal });
}

async function ndjson(sql, opts) {
  const r = await post(sql, opts);
  const text = await r.text();
  if (r.status !== 200) return { status: r.status, error: JSON.parse(text).error };
  const lines = text.trim().split('\n').map((l) => JSON.parse(l));
  const last = lines.pop();
  return { status: 200, rows: lines, done: last.$done, error: last.$error, id: r.headers.get('x-floe-query-id') };
}

async function arrow(sql, opts = {}) {
  const r = await post(sql, { ...opts, arrow: true });
  const buf = new Uint8Array(await r.arrayBuffer());
  if (r.status !== 200) return { status: r.status, error: JSON.parse(new TextDecoder().decode(buf)).error };
  expect(r.headers.get('content-type') === 'application/vnd.apache.arrow.stream', 'arrow content type');
  // the stream ends with the end-of-stream marker
  const tail = buf.slice(buf.length - 8);
  expect(show([...tail]) === show([255, 255, 255, 255, 0, 0, 0, 0]), `EOS marker at the end of ${sql}`);
  return { status: 200, table: tableFromIPC(buf) };
}

// ---- scalar types: table default.t (made by the shell script) ----
// row 1 values, as NDJSON gives them and as apache-arrow decodes them
const scalarCases = [
  // column, arrow type, ndjson value, arrow value (normalized by norm())
  ['i', 'Int32', 1, 1],
  ['b', 'Int64', 10000000000, 10000000000n],
  ['s', 'Utf8', 'héllo "x"\n\t', 'héllo "x"\n\t'],
  ['d', 'Date32<DAY>', '2024-01-02', Date.UTC(2024, 0, 2)],
  ['ts', 'Timestamp<MICROSECOND, UTC>', '2024-01-02 03:04:05.123456+00', Date.UTC(2024, 0, 2, 3, 4, 5) + 123.456],
  ['tn', 'Timestamp<MICROSECOND>', '2024-01-02 03:04:05', Date.UTC(2024, 0, 2, 3, 4, 5)],
  ['n', 'Decimal[10e+2]', 1.5, 150n],
  ['f', 'Float64', 2.5, 2.5],
  ['r', 'Float32', 0.5, 0.5],
  ['bo', 'Bool', true, true],
  ['u', 'FixedSizeBinary[16]', '123e4567-e89b-12d3-a456-426614174000', '123e4567e89b12d3a456426614174000'],
  ['by', 'Binary', '\\x0a0bff', '0a0bff'],
  ['tm', 'Time64<MICROSECOND>', '12:34:56.5', 45296500000n],
];

function hex(u8) { return [...u8].map((x) => x.toString(16).padStart(2, '0')).join(''); }
function norm(type, v) {
  if (v === null || v === undefined) return null;
  if (type.startsWith('Decimal')) return BigInt(v.toString()); // unscaled
  if (type.startsWith('FixedSizeBinary') || type === 'Binary') return hex(v);
  if (type.startsWith('Timestamp') || type.startsWith('Date')) return Number(v);
  return v;
}

{
  const sql = 'SELECT ' + scalarCases.map((c) => c[0]).join(', ') + ' FROM t ORDER BY i NULLS LAST';
  const nd = await ndjson(sql);
  expect(nd.status === 200 && nd.rows.length === 2, `scalar NDJSON: ${show(nd).slice(0, 300)}`);
  const ar = await arrow(sql);
  expect(ar.status === 200 && ar.table.numRows === 2, `scalar Arrow rows: ${ar.table?.numRows}`);
  for (const [col, atype, nv, av] of scalarCases) {
    expect(show(nd.rows[0][col]) === show(nv), `NDJSON ${col}: got ${show(nd.rows[0][col])}, want ${show(nv)}`);
    expect(nd.rows[1][col] === null, `NDJSON ${col} null row: ${show(nd.rows[1][col])}`);
    const field = ar.table.schema.fields.find((f) => f.name === col);
    expect(field && String(field.type) === atype, `Arrow type of ${col}: ${field && String(field.type)}, want ${atype}`);
    const vec = ar.table.getChild(col);
    const got = norm(atype, vec.get(0));
    const ok = typeof av === 'number' && typeof got === 'number' ? Math.abs(got - av) < 1e-6 : show(got) === show(av);
    expect(ok, `Arrow ${col}: got ${show(got)}, want ${show(av)}`);
    expect(vec.get(1) === null, `Arrow ${col} null row: ${show(vec.get(1))}`);
    expect(vec.nullCount === 1, `Arrow ${col} null count ${vec.nullCount}`);
  }
  const cols = nd.done.columns.map((c) => c.name + ':' + c.type).join(',');
  expect(cols.startsWith('i:integer,b:bigint,s:text,d:date,ts:timestamp with time zone'), `columns ${cols}`);
  expect(nd.done.tag === 'SELECT 2', `tag ${nd.done.tag}`);
  expect(nd.done.reads.length === 1 && nd.done.reads[0].table === 'default.t' && nd.done.reads[0].written === false,
    `receipts ${show(nd.done.reads)}`);
  expect(nd.id && nd.id === nd.done.query_id, 'X-Floe-Query-Id header equals the trailer query_id');
}

// special floats, interval, many rows across several batches
{
  const nd = await ndjson("SELECT 'NaN'::float8 AS a, 'Infinity'::float8 AS b, INTERVAL '1 day 2 hours' AS iv");
  expect(show(nd.rows[0]) === show({ a: 'NaN', b: 'Infinity', iv: '1 day 02:00:00' }), `special floats ${show(nd.rows)}`);
  const ar = await arrow("SELECT 'NaN'::float8 AS a, INTERVAL '1 day 2 hours' AS iv");
  expect(Number.isNaN(ar.table.getChild('a').get(0)), 'Arrow NaN');
  expect(String(ar.table.schema.fields[1].type) === 'Interval<MONTH_DAY_NANO>', `interval type ${ar.table.schema.fields[1].type}`);
  const iv = ar.table.getChild('iv').get(0); // months, days, nanos (lo, hi)
  expect(iv[0] === 0 && iv[1] === 1 && (BigInt(iv[3]) << 32n) + BigInt(iv[2] >>> 0) === 7200n * 1000000000n, `interval ${show([...iv])}`);
  const big = await ndjson('SELECT i FROM many ORDER BY i');
  expect(big.rows.length === 5000 && big.rows[4999].i === 4999, `5000 rows: ${big.rows.length}`);
  const bigA = await arrow('SELECT i FROM many ORDER BY i');
  expect(bigA.table.numRows === 5000 && bigA.table.batches.length >= 2, `Arrow 5000 rows in ${bigA.table.batches.length} batches`);
  let sum = 0n;
  for (const v of bigA.table.getChild('i')) sum += BigInt(v);
  expect(sum === 4999n * 5000n / 2n, `Arrow sum ${sum}`);
}

// nested types: an Iceberg table with lists and Parquet files with maps and structs
{
  const nd = await ndjson('SELECT * FROM nest2');
  const want = [{ int64_list: [1, 2, 3], utf8_list: ['abc', 'efg', 'hij'] }, { int64_list: [null, 1], utf8_list: null },
    { int64_list: [4], utf8_list: ['efg', null, 'hij', 'xyz'] }];
  expect(show(nd.rows) === show(want), `NDJSON lists ${show(nd.rows)}`);
  const ar = await arrow('SELECT * FROM nest2');
  const got = ar.table.toArray().map((r) => ({
    int64_list: r.int64_list ? [...r.int64_list].map((x) => (x === null ? null : Number(x))) : null,
    utf8_list: r.utf8_list ? [...r.utf8_list] : null,
  }));
  expect(show(got) === show(want), `Arrow lists ${show(got)}`);
  const q = `SELECT * FROM read_parquet('${PQ}/nonnullable.impala.parquet')`;
  const n2 = await ndjson(q);
  expect(show(n2.rows[0]) === show({ ID: 8, Int_Array: [-1], int_array_array: [[-1, -2], []], Int_Map: { k1: -1 },
    int_map_array: [{}, { k1: 1 }, {}, {}],
    nested_Struct: { a: -1, B: [-1], c: { D: [[{ e: -1, f: 'nonnullable' }]] }, G: {} } }), `NDJSON nested ${show(n2.rows)}`);
  const a2 = await arrow(q);
  const r = a2.table.get(0).toJSON();
  const js = JSON.parse(show(r));
  expect(js.ID === '8n' && show(js.Int_Array) === '[-1]' && show(js.int_array_array) === '[[-1,-2],[]]', `Arrow nested lists ${show(js)}`);
  expect(show(js.Int_Map) === '{"k1":-1}' && show(js.int_map_array) === '[{},{"k1":1},{},{}]', `Arrow maps ${show(js)}`);
  expect(show(js.nested_Struct) === '{"a":-1,"B":[-1],"c":{"D":[[{"e":-1,"f":"nonnullable"}]]},"G":{}}', `Arrow struct ${show(js.nested_Struct)}`);
  expect(String(a2.table.schema.fields[3].type) === 'Map<{key:Utf8, value:Int32}>', `map type ${a2.table.schema.fields[3].type}`);
}

// parameters, DML receipts, errors
{
  const p = await ndjson(null, { json: { sql: 'SELECT $1::int + 1 AS x, $2 AS y, $3::text AS z', params: [41, 'hi', null] } });
  expect(show(p.rows) === '[{"x":42,"y":"hi","z":null}]', `params ${show(p)}`);
  const ins = await ndjson("INSERT INTO t (i, s) VALUES (7, 'seven')");
  expect(ins.done && ins.done.tag === 'INSERT 0 1' && ins.done.reads.some((x) => x.written), `insert ${show(ins)}`);
  const syn = await ndjson('SELEC 1');
  expect(syn.status === 400 && syn.error.sqlstate === '42601' && syn.error.position === 1, `syntax ${show(syn)}`);
  const nt = await ndjson('SELECT * FROM nope');
  expect(nt.status === 404 && nt.error.sqlstate === '42P01', `no table ${show(nt)}`);
  const dz = await ndjson('SELECT 1 / (i - i) FROM t WHERE i = 1');
  expect((dz.status === 400 && dz.error.sqlstate === '22012') || (dz.error && dz.error.sqlstate === '22012'), `division by zero ${show(dz)}`);
}

// ---- grants: the reader principal holds READ on default.t only ----
{
  const ok = await ndjson('SELECT count(*) AS n FROM t', { token: READER });
  expect(ok.status === 200 && ok.rows[0].n === 3, `reader select ${show(ok)}`);
  const no = await ndjson('SELECT * FROM many', { token: READER });
  expect(no.status === 403 && no.error.sqlstate === '42501', `reader select other table ${show(no)}`);
  const w = await ndjson("INSERT INTO t (i) VALUES (99)", { token: READER });
  expect(w.status === 403 && w.error.sqlstate === '42501', `reader insert ${show(w)}`);
  const sub = await ndjson('SELECT * FROM t WHERE i IN (SELECT i FROM many)', { token: READER });
  expect(sub.status === 403, `reader subquery on another table ${show(sub)}`);
  const cte = await ndjson('WITH many AS (SELECT i FROM t) SELECT count(*) AS n FROM many', { token: READER });
  expect(cte.status === 200, `a CTE named like a table is not a table ${show(cte)}`);
  const tf = await ndjson(`SELECT * FROM read_parquet('${PQ}/list_columns.parquet')`, { token: READER });
  expect(tf.status === 403, `reader table function ${show(tf)}`);
  const ddl = await ndjson('CREATE TABLE x (a int)', { token: READER });
  expect(ddl.status === 403, `reader create ${show(ddl)}`);
  const after = await ndjson('SELECT count(*) AS n FROM t');
  expect(after.rows[0].n === 3, `nothing was written by the refused insert: ${show(after.rows)}`);
  const anon = await fetch(URL + '/v1/sql', { method: 'POST', body: 'SELECT 1' });
  expect(anon.status === 401, `no token: ${anon.status}`);
}

// ---- cancel: DELETE /v1/sql/{id}, and a client that disconnects ----
const LONG = (() => {
  const v = Array.from({ length: 200 }, (_, i) => `(${i})`).join(',');
  return `WITH v(x) AS (VALUES ${v}) SELECT count(*) AS n FROM v a, v b, v c, v d`;
})();
// ---- Parquet: ?format=parquet and Accept, read back by hyparquet ----
async function parquetRows(sql, how) {
  const h = { Authorization: 'Bearer ' + ADMIN };
  if (how === 'accept') h.Accept = 'application/vnd.apache.parquet';
  const r = await fetch(URL + '/v1/sql' + (how === 'query' ? '?format=parquet' : ''), { method: 'POST', headers: h, body: sql });
  const buf = await r.arrayBuffer();
  expect(r.status === 200 && r.headers.get('content-type') === 'application/vnd.apache.parquet',
    `parquet ${how}: ${r.status} ${r.headers.get('content-type')}`);
  const b = new Uint8Array(buf);
  const magic = (o) => new TextDecoder().decode(b.slice(o, o + 4));
  expect(b.length > 12 && magic(0) === 'PAR1' && magic(b.length - 4) === 'PAR1', `parquet ${how}: PAR1 at both ends`);
  return parquetReadObjects({ file: buf, compressors });
}
{
  const rows = await parquetRows('SELECT i, b, s, bo FROM t WHERE i = 1', 'query');
  expect(show(rows) === show([{ i: 1, b: 10000000000n, s: 'héllo "x"\n\t', bo: true }]), `parquet rows ${show(rows)}`);
  const many = await parquetRows('SELECT i FROM many ORDER BY i', 'accept');
  expect(many.length === 5000 && many[0].i === 0n && many[4999].i === 4999n, `parquet 5000 rows: ${many.length}`);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
{
  const pending = ndjson(LONG, { headers: { 'X-Floe-Query-Id': 'long-1' } });
  await sleep(300);
  const other = await fetch(URL + '/v1/sql/long-1', { method: 'DELETE', headers: { Authorization: 'Bearer ' + READER } });
  expect(other.status === 403, `another principal cannot cancel: ${other.status}`);
  const del = await fetch(URL + '/v1/sql/long-1', { method: 'DELETE', headers: { Authorization: 'Bearer ' + ADMIN } });
  expect(del.status === 202, `cancel: ${del.status}`);
  const res = await pending;
  expect(res.status === 200 && res.rows.length === 0 && res.error && res.error.sqlstate === '57014', `cancelled stream ${show(res)}`);
  const gone = await fetch(URL + '/v1/sql/long-1', { method: 'DELETE', headers: { Authorization: 'Bearer ' + ADMIN } });
  expect(gone.status === 404, `finished statement is gone: ${gone.status}`);

  const ac = new AbortController();
  const r = await post(LONG, { headers: { 'X-Floe-Query-Id': 'long-2' }, signal: ac.signal, arrow: true });
  expect(r.status === 200 && r.headers.get('x-floe-query-id') === 'long-2', 'long-2 started');
  ac.abort();
  let status = 0;
  // polled as the reader: 403 while it runs (not the reader's), 404 once gone
  for (let i = 0; i < 200; i++) { // the server notices the disconnect and cancels
    await sleep(50);
    status = (await fetch(URL + '/v1/sql/long-2', { method: 'DELETE', headers: { Authorization: 'Bearer ' + READER } })).status;
    if (status === 404) break;
  }
  expect(status === 404, `a disconnected client's statement is cancelled (DELETE says ${status})`);
}

console.log(`${checks} checks, ${failures} failures`);
process.exit(failures ? 1 : 0);
