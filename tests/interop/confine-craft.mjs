#!/usr/bin/env node
// confine-craft.mjs - crafts the hostile Iceberg files test_confinement.sh needs from files floe
// wrote, with floe's own Avro tools ($FLOE_BIN avro schema | meta --json | cat | write: schema
// and header kept verbatim, so floe reads the result by field id as it reads its own files):
//   manifest IN OUT PATH...    copy of manifest IN whose entries name PATH... (entry 0 cloned)
//   list IN OUT MANIFEST       copy of manifest list IN whose every entry names MANIFEST
//   metadata IN OUT LIST       copy of table metadata IN whose current snapshot uses LIST
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const floe = process.env.FLOE_BIN || 'floe';
const [mode, input, output, ...rest] = process.argv.slice(2);
const run = (...a) => execFileSync(floe, a, { maxBuffer: 1 << 28 }).toString();

function rewrite(fn) {
  const tmp = mkdtempSync(join(tmpdir(), 'craft-'));
  writeFileSync(join(tmp, 'schema.json'), run('avro', 'schema', input));
  const recs = run('avro', 'cat', input, '--format=jsonl').split('\n').filter(l => l.trim()).map(l => JSON.parse(l));
  writeFileSync(join(tmp, 'records.jsonl'), fn(recs).map(r => JSON.stringify(r)).join('\n') + '\n');
  const args = ['avro', 'write', join(tmp, 'schema.json'), join(tmp, 'records.jsonl'), output];
  const meta = JSON.parse(run('avro', 'meta', input, '--json')).metadata;
  meta.forEach(({ key, value }, i) => {
    if (key === 'avro.schema' || key === 'avro.codec') return;
    const f = join(tmp, `meta-${i}`);
    writeFileSync(f, value);
    args.push('--meta-file', `${key}=${f}`);
  });
  run(...args);
  rmSync(tmp, { recursive: true });
}

if (mode === 'manifest') {
  rewrite(recs => rest.map(p => {
    const r = structuredClone(recs[0]);
    r.data_file.file_path = p;
    return r;
  }));
} else if (mode === 'list') {
  const len = statSync(rest[0]).size;
  rewrite(recs => recs.map(r => ({ ...r, manifest_path: rest[0], manifest_length: len })));
} else if (mode === 'metadata') {
  const m = JSON.parse(readFileSync(input, 'utf8'));
  const s = m.snapshots.find(x => x['snapshot-id'] === m['current-snapshot-id']);
  s['manifest-list'] = rest[0];
  writeFileSync(output, JSON.stringify(m));
} else {
  console.error('usage: confine-craft.mjs manifest|list|metadata IN OUT ARG...');
  process.exit(2);
}
