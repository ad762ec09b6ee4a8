#!/usr/bin/env node
// fixtures-compare.mjs — every unencrypted Parquet fixture read by `floe parquet cat --format=jsonl` and compared
// row by row, column by column with DuckDB (native, @duckdb/node-api); files DuckDB cannot read are compared with
// arrow-rs (parquet-wasm). bad_data/ files and encrypted files must make floe fail cleanly (exit 1, a
// "floe parquet: ..." message, no sanitizer report, no signal). `floe parquet schema` and `meta` must succeed on
// every readable file.
//
// usage: node fixtures-compare.mjs --floe=BIN --shared=DIR [--only=SUBSTR] [--verbose]
// Prints one line per file (PASS/FAIL/... with the reason), then "N passed, N failed"; exit 1 on any failure.
import { readdirSync, statSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync, spawn } from 'node:child_process';
import { DuckDBInstance } from '@duckdb/node-api';
import * as pw from 'parquet-wasm';
import { tableFromIPC } from 'apache-arrow';
import { tableRows } from './oracle/lib/arrow-values.mjs';
import { parseArgs, die } from './oracle/lib/plain.mjs';
import { cmpDuck, cmpArrow, compareRows, setTimestampZoneLenient } from './lib/compare.mjs';

const { opts } = parseArgs(process.argv.slice(2), { booleans: ['verbose'] });
if (!opts.floe || !opts.shared) die('usage: node fixtures-compare.mjs --floe=BIN --shared=DIR [--only=SUBSTR]');
const fixtures = join(opts.shared, 'fixtures');

// ---- the files that need special handling, each with its reason ----
// oracle: 'duckdb' (default) | 'arrow' (compare with arrow-rs instead) | 'none' (no oracle reads it; floe must fail
// cleanly or the note says what is checked). floe: 'ok' (default) | 'error' (floe must refuse it cleanly).
const SPECIAL = {
  // DuckDB reads GEOMETRY/GEOGRAPHY columns as its GEOMETRY type (rendered as WKT text); floe returns the stored WKB
  // bytes as binary. arrow-rs returns the same bytes.
  'parquet-testing/data/geospatial/crs-default.parquet': { oracle: 'arrow', reason: 'GEOMETRY: DuckDB renders WKT, floe/arrow give WKB bytes' },
  'parquet-testing/data/geospatial/crs-geography.parquet': { oracle: 'arrow', reason: 'GEOGRAPHY: as above' },
  'parquet-testing/data/geospatial/crs-projjson.parquet': { oracle: 'arrow', reason: 'GEOMETRY: as above' },
  'parquet-testing/data/geospatial/crs-srid.parquet': { oracle: 'arrow', reason: 'GEOMETRY: as above' },
  'parquet-testing/data/geospatial/geography-lines.parquet': { oracle: 'arrow', reason: 'GEOGRAPHY: as above' },
  'parquet-testing/data/geospatial/geography-polygons.parquet': { oracle: 'arrow', reason: 'GEOGRAPHY: as above' },
  'parquet-testing/data/geospatial/geospatial.parquet': { oracle: 'arrow', reason: 'GEOMETRY: as above' },
  // A 1 GiB string value x2 (uncompressed chunk > 2 GB): no reader here should materialize it in a test.
  'parquet-testing/data/large_string_map.brotli.parquet': { oracle: 'none', floe: 'error', reason: 'values of 1 GiB: floe must refuse (page size limit), not allocate' },
  // Malformed dictionary page: an error case by design.
  'parquet-testing/data/nation.dict-malformed.parquet': { oracle: 'none', floe: 'error', reason: 'malformed dictionary page (negative test)' },
  // In bad_data/ but a valid file: it crashed an old Arrow C++ (GH-43605); DuckDB and arrow-rs both read it.
  'parquet-testing/bad_data/ARROW-GH-43605.parquet': { valid: true, reason: 'valid file that crashed Arrow C++ once' },
  // Legacy converted type TIMESTAMP_MICROS (UTC-adjusted per spec; DuckDB shows a naive TIMESTAMP).
  'parquet-testing/data/nested_structs.rust.parquet': { zoneLenient: true, reason: 'legacy TIMESTAMP_MICROS: floe timestamptz vs DuckDB naive, same instants' },
  // INT96 legacy timestamps: DuckDB converts them to TIMESTAMP (µs); floe keeps nanoseconds. Compared by instant.
};
// Directories whose files are compared with arrow-rs (none at present).
const ARROW_DIRS = [];
// The shredded_variant cases read as floe variants now (one column of variant values, not arrow-rs's struct of
// binaries): tests/parquet/test_variant_cases.c checks every case against its expected variant (cases.json), and
// tests/interop/test_parquet_variant.sh against DuckDB's VARIANT reading, so they are not repeated here.
const VARIANT_CASES = 'parquet-testing/shredded_variant/';

function walk(dir, out = []) {
  let entries;
  try { entries = readdirSync(dir); } catch { return out; }
  for (const e of entries.sort()) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

const files = [...walk(join(fixtures, 'parquet-testing')), ...walk(join(fixtures, 'parquet-iceberg-java'))]
  .filter(f => /\.parquet(\.encrypted)?$/.test(f))
  .filter(f => !opts.only || f.includes(opts.only))
  .filter(f => !relative(fixtures, f).startsWith(VARIANT_CASES));

const con = await (await DuckDBInstance.create(':memory:')).connect();
await con.run("SET TimeZone='UTC'");

async function duckRows(file) {
  const r = await con.runAndReadAll(`select * from read_parquet('${file.replaceAll("'", "''")}')`);
  return { names: r.columnNames(), types: r.columnTypes(), rows: r.getRowsJson() };
}
function arrowRows(file) {
  const buf = new Uint8Array(readFileSync(file));
  const table = tableFromIPC(pw.readParquet(buf, {}).intoIPCStream());
  const names = table.schema.fields.map(f => f.name);
  const types = table.schema.fields.map(f => f.type);
  const rows = tableRows(table).map(o => names.map(n => o[n]));
  return { names, types, rows };
}

// floe runs are started up front, several at a time (they dominate the test's time), and cached by arguments.
const cache = new Map();
function spawnAsync(args) {
  return new Promise((resolve) => {
    const p = spawn(opts.floe, args);
    const out = [], err = [];
    p.stdout.on('data', (d) => out.push(d));
    p.stderr.on('data', (d) => err.push(d));
    p.on('error', (e) => resolve({ status: null, signal: null, stdout: '', stderr: String(e) }));
    p.on('close', (status, signal) => resolve({ status, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') }));
  });
}
async function prefetch(jobs, width) {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < jobs.length) { const a = jobs[next++]; cache.set(a.join('\0'), await spawnAsync(a)); }
  }));
}
function floeCat(file) {
  const r = runFloe(['parquet', 'cat', file, '--format=jsonl']);
  if (r.status !== 0 || r.crashed) return { ok: false, status: r.status, stderr: r.stderr, crashed: r.crashed };
  const rows = [];
  const lines = r.stdout.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!lines[i]) continue;
    try { rows.push(JSON.parse(lines[i])); } catch (e) { return { ok: false, status: 0, stderr: `invalid JSON on output line ${i + 1}: ${e.message}: ${lines[i].slice(0, 200)}`, crashed: false }; }
  }
  return { ok: true, rows };
}

function runFloe(args) {
  const r = cache.get(args.join('\0')) ?? spawnSync(opts.floe, args, { maxBuffer: 1 << 28, encoding: 'utf8' });
  const crashed = r.signal !== null || r.status > 2 || /AddressSanitizer|UndefinedBehaviorSanitizer|runtime error:|LeakSanitizer/.test(r.stderr ?? '');
  return { status: r.status, signal: r.signal, stderr: (r.stderr ?? '').trim(), stdout: r.stdout ?? '', crashed };
}

// floe must fail cleanly: exit 1 with one "floe parquet: ..." line, no crash.
function expectCleanError(args) {
  const r = runFloe(args);
  if (r.crashed) return `crashed (status ${r.status}, signal ${r.signal}): ${r.stderr.slice(0, 600)}`;
  if (r.status !== 1) return `expected exit 1, got ${r.status}`;
  if (!/^floe parquet: \S/.test(r.stderr)) return `expected a 'floe parquet: <message>' error, got: ${r.stderr.slice(0, 300)}`;
  return null;
}

await prefetch(files.flatMap(f => [['parquet', 'cat', f, '--format=jsonl'], ['parquet', 'schema', f], ['parquet', 'meta', f]]),
  Math.max(1, Number(process.env.FLOE_TEST_JOBS ?? 4)));

let pass = 0, fail = 0;
const report = (ok, rel, msg) => {
  if (ok) pass++; else fail++;
  console.log(`${ok ? 'PASS' : 'FAIL'} ${rel}${msg ? ': ' + msg : ''}`);
};

for (const file of files) {
  const rel = relative(fixtures, file);
  const special = SPECIAL[rel] ?? {};
  setTimestampZoneLenient(!!special.zoneLenient);
  if ((rel.includes('/bad_data/') && !special.valid) || rel.endsWith('.encrypted')) {
    // negative tests: every subcommand must fail cleanly or (schema/meta of a readable footer) succeed, never crash
    const why = expectCleanError(['parquet', 'cat', file, '--format=jsonl']);
    const others = ['schema', 'meta'].map(sub => {
      const r = runFloe(['parquet', sub, file]);
      return r.crashed ? `${sub} crashed: ${r.stderr.slice(0, 300)}` : null;
    }).filter(Boolean);
    report(!why && !others.length, rel, why ?? others[0] ?? 'fails cleanly: ' + runFloe(['parquet', 'cat', file, '--format=jsonl']).stderr.split('\n')[0]);
    continue;
  }
  if (special.floe === 'error') {
    const why = expectCleanError(['parquet', 'cat', file, '--format=jsonl']);
    report(!why, rel, why ?? `refused cleanly (${special.reason})`);
    continue;
  }
  const fr = floeCat(file);
  if (!fr.ok) {
    report(false, rel, `floe failed (status ${fr.status}${fr.crashed ? ', CRASH' : ''}): ${fr.stderr.slice(0, 600)}`);
    continue;
  }
  const meta = ['schema', 'meta'].map(sub => ({ sub, r: runFloe(['parquet', sub, file]) })).filter(x => x.r.status !== 0);
  if (meta.length) {
    report(false, rel, `floe parquet ${meta[0].sub} failed (status ${meta[0].r.status}): ${meta[0].r.stderr.slice(0, 400)}`);
    continue;
  }
  let oracle = special.oracle ?? (ARROW_DIRS.some(d => rel.startsWith(d)) ? 'arrow' : 'duckdb');
  let o, fails, note = '';
  if (oracle === 'duckdb') {
    try { o = await duckRows(file); } catch (e) { note = `duckdb cannot read it (${String(e.message).split('\n')[0].slice(0, 120)}); `; oracle = 'arrow'; }
  }
  if (oracle === 'arrow') {
    try { o = arrowRows(file); } catch (e) {
      report(false, rel, `${note}arrow-rs cannot read it either (${String(e?.message ?? e).slice(0, 160)}); add it to SPECIAL with a reason`);
      continue;
    }
  }
  fails = compareRows(rel, fr.rows, o.rows, o.names, o.types, oracle === 'duckdb' ? cmpDuck : cmpArrow);
  if (fails.length) report(false, rel, `${note}vs ${oracle}:\n    ${fails.join('\n    ')}`);
  else report(true, rel, `${note}${fr.rows.length} rows x ${o.names.length} columns equal ${oracle}${special.reason ? ' (' + special.reason + ')' : ''}`);
}
console.log(`${pass} passed, ${fail} failed`);
process.exitCode = fail ? 1 : 0;
