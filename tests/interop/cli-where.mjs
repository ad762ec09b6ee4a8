#!/usr/bin/env node
// cli-where.mjs — `floe parquet cat --where/--columns/--limit` against DuckDB's WHERE on the same files: files with
// many row groups and pages (sorted and unsorted columns, so row-group and page-index pruning both happen), written
// by DuckDB and by floe, plus the page-index fixtures. Any row lost by a wrong pruning decision, or kept by a wrong
// comparison, shows as a difference. Also checks the CLI's error handling (exit codes and messages).
// usage: node cli-where.mjs --floe=BIN --tmp=DIR [--shared=DIR]
import { join } from 'node:path';
import { existsSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { DuckDBInstance } from '@duckdb/node-api';
import { parseArgs, die } from './oracle/lib/plain.mjs';
import { cmpDuck, floeRows, compareRows } from './lib/compare.mjs';

const { opts } = parseArgs(process.argv.slice(2));
if (!opts.floe || !opts.tmp) die('usage: node cli-where.mjs --floe=BIN --tmp=DIR [--shared=DIR]');
const con = await (await DuckDBInstance.create(':memory:')).connect();
await con.run("SET TimeZone='UTC'");
const lit = (f) => `'${f.replaceAll("'", "''")}'`;
let pass = 0, fail = 0;
const check = (name, problems) => {
  const l = (Array.isArray(problems) ? problems : [problems]).filter(Boolean);
  if (l.length) { fail++; console.log(`FAIL ${name}:\n    ${l.slice(0, 6).join('\n    ')}`); } else { pass++; console.log(`PASS ${name}`); }
};

// a table sorted by k (row groups of 1000, pages of a few hundred rows) with unsorted and nullable columns
const duckFile = join(opts.tmp, 'where-duck.parquet');
await con.run(`copy (select i as k, (i * 7919 % 1000)::int as r, case when i % 7 = 0 then null else 'v' || (i % 50)::varchar end as s,
  date '2000-01-01' + (i // 10)::int as d, (i / 3.0)::double as x, ((i % 1000) / 100)::decimal(9,2) as m,
  timestamp '2020-01-01' + to_seconds(i * 60) as ts from range(20000) t(i) order by i)
  to ${lit(duckFile)} (format parquet, row_group_size 1000)`);
// the same data written by floe (its writer emits column + offset indexes): via JSON lines
const floeFile = join(opts.tmp, 'where-floe.parquet');
{
  const r = await con.runAndReadAll(`select * from read_parquet(${lit(duckFile)})`);
  const names = r.columnNames();
  const lines = r.getRowsJson().map(row => JSON.stringify(Object.fromEntries(names.map((n, i) => [n, row[i]]))));
  writeFileSync(join(opts.tmp, 'where.jsonl'), lines.join('\n') + '\n');
  const c = spawnSync(opts.floe, ['convert', join(opts.tmp, 'where.jsonl'), floeFile, '--quiet', '--row-group-rows', '3000', '--page-rows', '250',
    '--schema', 'k:long,r:int,s:string,d:date,x:double,m:decimal(9,2),ts:timestamp'], { encoding: 'utf8' });
  check('floe writes the filter test file', c.status === 0 ? null : c.stderr);
}
const CASES = [ // floe --where terms, the DuckDB WHERE, optional --columns
  [['k >= 12345'], 'k >= 12345'],
  [['k < 100'], 'k < 100'],
  [['k = 5000'], 'k = 5000'],
  [['k != 3'], 'k <> 3'],
  [['k > 4000', 'k <= 4100'], 'k > 4000 and k <= 4100'],
  [['r = 17'], 'r = 17'],
  [['r < 0'], 'r < 0'],
  [['s = v7'], "s = 'v7'"],
  [["s >= 'v45'"], "s >= 'v45'"],
  [['s is null'], 's is null'],
  [['s is not null', 'k < 50'], 's is not null and k < 50'],
  [['d between'], null], // syntax error case, below
  [['d >= 2001-06-01', 'd < 2001-06-05'], "d >= date '2001-06-01' and d < date '2001-06-05'"],
  [['x > 6000.5'], 'x > 6000.5'],
  [['m = 9.99'], 'm = 9.99'],
  [['ts >= 2020-01-10 00:00:00', 'ts < 2020-01-10 01:00:00'], "ts >= timestamp '2020-01-10 00:00:00' and ts < timestamp '2020-01-10 01:00:00'"],
  [['k >= 19990'], 'k >= 19990', 's,k'],
];
for (const file of [duckFile, floeFile]) {
  if (!existsSync(file)) continue;
  const tag = file.endsWith('duck.parquet') ? 'duckdb-written' : 'floe-written';
  for (const [terms, where, cols] of CASES) {
    if (!where) continue;
    const args = terms.flatMap(t => ['--where', t]).concat(cols ? ['--columns', cols] : []);
    const fr = floeRows(opts.floe, file, args);
    if (!fr.ok) { check(`${tag}: --where ${terms.join(' AND ')}`, `floe failed: ${fr.stderr}`); continue; }
    const r = await con.runAndReadAll(`select ${cols ?? '*'} from read_parquet(${lit(file)}) where ${where}`);
    check(`${tag}: --where ${terms.join(' AND ')}${cols ? ' --columns ' + cols : ''} (${r.getRowsJson().length} rows)`,
      compareRows(tag, fr.rows, r.getRowsJson(), r.columnNames(), r.columnTypes(), cmpDuck, 6));
  }
}
// page-index fixtures
if (opts.shared) {
  for (const [rel, terms, where] of [
    ['parquet-testing/data/alltypes_tiny_pages.parquet', ['id >= 7000'], 'id >= 7000'],
    ['parquet-testing/data/alltypes_tiny_pages.parquet', ['int_col = 3', 'id < 500'], 'int_col = 3 and id < 500'],
    ['parquet-testing/data/alltypes_tiny_pages_plain.parquet', ['bigint_col > 60', 'id <= 2000'], 'bigint_col > 60 and id <= 2000'],
    ['parquet-testing/data/fixed_length_byte_array.parquet', ['flba_field is null'], 'flba_field is null'],
  ]) {
    const f = join(opts.shared, 'fixtures', rel);
    if (!existsSync(f)) continue;
    const fr = floeRows(opts.floe, f, terms.flatMap(t => ['--where', t]));
    if (!fr.ok) { check(`${rel}: --where ${terms.join(' AND ')}`, `floe failed: ${fr.stderr}`); continue; }
    const r = await con.runAndReadAll(`select * from read_parquet(${lit(f)}) where ${where}`);
    check(`${rel}: --where ${terms.join(' AND ')} (${r.getRowsJson().length} rows)`, compareRows(rel, fr.rows, r.getRowsJson(), r.columnNames(), r.columnTypes(), cmpDuck, 6));
  }
}
// --limit and --columns order
{
  const fr = floeRows(opts.floe, duckFile, ['--columns', 'd,k', '--limit', '3']);
  check('--columns d,k --limit 3', fr.ok && JSON.stringify(fr.rows) === JSON.stringify([{ d: '2000-01-01', k: '0' }, { d: '2000-01-01', k: '1' }, { d: '2000-01-01', k: '2' }]) ? null : JSON.stringify(fr.rows ?? fr.stderr));
}
// errors: exit 1 (runtime) or 2 (usage), one "floe <cmd>: ..." line, never a crash
const ERRS = [
  [['parquet', 'cat', join(opts.tmp, 'missing.parquet')], 1, /^floe parquet: .*missing\.parquet/],
  [['parquet', 'cat', duckFile, '--columns', 'nope'], 1, /^floe parquet: .*no column 'nope'/],
  [['parquet', 'cat', duckFile, '--where', 'nope = 1'], 1, /^floe parquet: --where: no column 'nope'/],
  [['parquet', 'cat', duckFile, '--where', 'k ~ 1'], 1, /^floe parquet: --where 'k ~ 1': unknown operator/],
  [['parquet', 'cat', duckFile, '--where', 'k = abc'], 1, /^floe parquet: --where 'k = abc': cannot parse 'abc' as long/],
  [['parquet', 'cat', duckFile, '--where', 'd between'], 1, /^floe parquet: --where 'd between': unknown operator/],
  [['parquet', 'cat', duckFile, '--format', 'xml'], 2, /^floe parquet cat: unknown format 'xml'/],
  [['parquet', 'meta', join(opts.tmp, 'where.jsonl')], 1, /^floe parquet: /],
  [['parquet', 'frobnicate', duckFile], 2, /^floe parquet: unknown subcommand/],
  [['convert', join(opts.tmp, 'where.jsonl'), join(opts.tmp, 'x.parquet'), '--schema', 'k:long,r:nosuchtype'], 1, /^floe convert: --schema: unknown type 'nosuchtype'/],
  [['convert', join(opts.tmp, 'where.jsonl'), join(opts.tmp, 'x.unknown')], 2, /^floe convert: cannot tell the format/],
  [['convert', join(opts.tmp, 'where.jsonl'), join(opts.tmp, 'x.parquet'), '--codec', 'lzo'], 2, /^floe convert: unknown codec 'lzo'/],
];
for (const [args, code, re] of ERRS) {
  const r = spawnSync(opts.floe, args, { encoding: 'utf8' });
  const crashed = r.signal !== null || /Sanitizer|runtime error/.test(r.stderr);
  check(`error: floe ${args.map(a => a.replace(opts.tmp + '/', '')).join(' ')}`,
    crashed ? `crashed: ${r.stderr.slice(0, 400)}` : r.status !== code ? `exit ${r.status}, expected ${code}: ${r.stderr}` : re.test(r.stderr) ? null : `message ${JSON.stringify(r.stderr.slice(0, 300))} does not match ${re}`);
}
// a failed conversion leaves nothing behind
check('failed convert leaves no output file', existsSync(join(opts.tmp, 'x.parquet')) ? 'x.parquet exists' : null);
console.log(`${pass} passed, ${fail} failed`);
process.exitCode = fail ? 1 : 0;
