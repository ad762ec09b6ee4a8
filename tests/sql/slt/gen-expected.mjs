#!/usr/bin/env node
// gen-expected.mjs — fills in the expected results of sqllogictest files (tests/sql/slt/*.slt) by running every
// record on PostgreSQL 15 and on DuckDB and keeping only the records where both engines agree:
//   statement ok       both succeed
//   statement error    both fail; the expectation written is PostgreSQL's SQLSTATE ("statement error 22003")
//   query TYPES [sort] both return the same rows (after the normalization below); PostgreSQL's text is written
// A record preceded by a comment line "# standard: pg (reason)" (or "# standard: duckdb") is one where only that
// engine follows the SQL standard: it is kept with that engine's result when that engine meets the expectation, and
// the comment stays as the record of who agreed. Any other record where they disagree is turned into comment lines starting with "# dropped (engines disagree: ...)" so it
// stays visible for review but is not run. The file's "# expected:" line records the engines and versions that
// agreed on every remaining record. Run through gen-expected.sh (it starts a throwaway PostgreSQL).
//
// Cell normalization (the C runner tests/sql/test_slt.c applies the same to floe's output):
//   NULL -> "NULL"; empty string -> "(empty)"; tab/newline -> "\t"/"\n";
//   column type R: the number rounded to 3 decimals ("%.3f"); I and T: the text as is.
//   sort mode rowsort: rows sorted by their tab-joined text (byte order); nosort (default): engine order.
// Each file runs in a fresh schema (PostgreSQL) / fresh in-memory database (DuckDB) with TimeZone 'UTC'.
// usage: node gen-expected.mjs PG_URL FILE.slt...
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(new URL('../../interop/package.json', import.meta.url));
const pg = require('pg');
const { DuckDBInstance } = await import(require.resolve('@duckdb/node-api'));
const duckVersion = require('@duckdb/node-api/package.json').version;

export function parseSlt(text) {
  const lines = text.split('\n');
  const items = []; // {kind:'comment', lines} | {kind:'statement'|'query', header, sql, expected}
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line.trim() === '') { i++; continue; }
    if (line.startsWith('#')) {
      const c = [];
      while (i < lines.length && lines[i].startsWith('#')) c.push(lines[i++]);
      items.push({ kind: 'comment', lines: c });
      continue;
    }
    const header = line.trim();
    const kind = header.startsWith('statement') ? 'statement' : header.startsWith('query') ? 'query' : null;
    if (!kind) throw new Error(`line ${i + 1}: expected a record, got: ${line}`);
    i++;
    const sql = [];
    while (i < lines.length && lines[i].trim() !== '' && lines[i] !== '----') sql.push(lines[i++]);
    const expected = [];
    if (lines[i] === '----') {
      i++;
      while (i < lines.length && lines[i].trim() !== '') expected.push(lines[i++]);
    }
    items.push({ kind, header, sql: sql.join('\n'), expected });
  }
  return items;
}

const esc = (s) => s.replaceAll('\t', '\\t').replaceAll('\n', '\\n');
export function normCell(v, type) {
  if (v === null || v === undefined) return 'NULL';
  let s = String(v);
  if (type === 'R') {
    const n = Number(s);
    if (s.trim() !== '' && Number.isFinite(n)) { s = n.toFixed(3); if (s === '-0.000') s = '0.000'; }
    return s;
  }
  if (s === '') return '(empty)';
  return esc(s);
}

function normRows(rows, types, sort) {
  const out = rows.map(r => r.map((v, k) => normCell(v, types[k] ?? 'T')).join('\t'));
  if (sort === 'rowsort') out.sort((a, b) => (Buffer.compare(Buffer.from(a), Buffer.from(b))));
  return out;
}

function duckText(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === 'boolean') return v ? 't' : 'f';
  if (typeof v === 'number') {
    if (Number.isInteger(v)) return String(v);
    return String(v).replace(/e([+-])(\d)$/, 'e$10$2');
  }
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'string') return v;
  return v.toString();
}

async function runPg(client, sql) {
  try {
    const r = await client.query({ text: sql, types: { getTypeParser: () => (x) => x }, rowMode: 'array' });
    const res = Array.isArray(r) ? r[r.length - 1] : r;
    return { ok: true, rows: res.rows ?? [], ncols: res.fields?.length ?? 0 };
  } catch (e) {
    return { ok: false, code: e.code ?? 'XX000', msg: e.message };
  }
}

async function runDuck(con, sql) {
  try {
    const r = await con.runAndReadAll(sql);
    const rows = r.getRows().map(row => row.map(duckText));
    return { ok: true, rows, ncols: r.columnCount };
  } catch (e) {
    return { ok: false, msg: String(e.message).split('\n')[0] };
  }
}

async function genFile(path, pgUrl, pgVersion) {
  const items = parseSlt(readFileSync(path, 'utf8'));
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  await client.query("DROP SCHEMA IF EXISTS slt CASCADE; CREATE SCHEMA slt; SET search_path = slt; SET TimeZone = 'UTC'");
  const con = await (await DuckDBInstance.create(':memory:')).connect();
  await con.run("SET TimeZone = 'UTC'");
  const out = [];
  let kept = 0, dropped = 0, pgOnly = 0, standard = null;
  for (const it of items) {
    if (it.kind === 'comment') {
      const m = /^# standard: (pg|duckdb)\b/.exec(it.lines[it.lines.length - 1]);
      standard = m ? m[1] : null;
      const lines = it.lines.filter(l => !l.startsWith('# expected:'));
      if (lines.length) out.push(lines.join('\n'));
      continue;
    }
    const p = await runPg(client, it.sql);
    let d = await runDuck(con, it.sql);
    if (standard === 'pg') d = p.ok ? { ...p } : { ok: false, msg: p.msg };
    const only = standard;
    standard = null;
    if (only === 'pg') pgOnly++;
    if (only === 'duckdb') throw new Error(`${path}: "# standard: duckdb" is not supported (expected text is PostgreSQL's)`);
    const drop = (why) => {
      dropped++;
      out.push([`# dropped (engines disagree: ${why.replaceAll('\n', ' ')})`, `# ${it.header}`,
        ...it.sql.split('\n').map(l => `# ${l}`)].join('\n'));
    };
    if (it.kind === 'statement') {
      const wantErr = it.header.startsWith('statement error');
      if (wantErr) {
        if (!p.ok && !d.ok) { kept++; out.push(`statement error ${p.code}\n${it.sql}`); }
        else drop(`expected an error; pg ${p.ok ? 'succeeded' : p.code}, duckdb ${d.ok ? 'succeeded' : 'failed'}`);
      } else if (p.ok && d.ok) { kept++; out.push(`statement ok\n${it.sql}`); }
      else drop(`pg ${p.ok ? 'ok' : p.msg}; duckdb ${d.ok ? 'ok' : d.msg}`);
      continue;
    }
    const [, types = '', sort = 'nosort'] = it.header.split(/\s+/);
    if (!p.ok || !d.ok) { drop(`pg ${p.ok ? 'ok' : p.msg}; duckdb ${d.ok ? 'ok' : d.msg}`); continue; }
    if (p.ncols !== types.length) throw new Error(`${path}: ${it.header}: ${p.ncols} columns, types say ${types.length}\n${it.sql}`);
    const pr = normRows(p.rows, types, sort), dr = normRows(d.rows, types, sort);
    if (pr.length !== dr.length || pr.some((r, k) => r !== dr[k])) {
      drop(`pg ${JSON.stringify(pr.slice(0, 4))}; duckdb ${JSON.stringify(dr.slice(0, 4))}`);
      continue;
    }
    kept++;
    out.push(`${it.header}\n${it.sql}\n----${pr.length ? '\n' + pr.join('\n') : ''}`);
  }
  await client.end();
  const head = `# expected: generated by gen-expected.sh; PostgreSQL ${pgVersion} and DuckDB ${duckVersion} agree on ${kept - pgOnly} of the ${kept} records below` +
    (pgOnly ? `; ${pgOnly} marked "# standard: pg" follow PostgreSQL, which alone follows the standard there` : '') +
    (dropped ? ` (${dropped} dropped where they disagree)` : '');
  const firstComment = out.length && out[0].startsWith('#') && !out[0].startsWith('# dropped') ? out.shift() : null;
  writeFileSync(path, [firstComment, head, ...out].filter(x => x !== null).join('\n\n').replace(/\n\n# expected:/, '\n# expected:') + '\n');
  console.log(`${path}: ${kept} kept, ${dropped} dropped`);
}

const [pgUrl, ...files] = process.argv.slice(2);
if (!pgUrl || !files.length) { console.error('usage: gen-expected.mjs PG_URL FILE.slt...'); process.exit(2); }
const c = new pg.Client({ connectionString: pgUrl });
await c.connect();
const pgVersion = (await c.query('SHOW server_version')).rows[0].server_version.split(' ')[0];
await c.end();
for (const f of files) await genFile(f, pgUrl, pgVersion);
