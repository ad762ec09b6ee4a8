#!/usr/bin/env node
// rest-client-check.mjs - looks at a REST catalog directly over HTTP (no floe code), for
// test_rest_client.sh: what floe's REST client wrote must be visible through the REST API.
//   node rest-client-check.mjs tables ROOT NS [TOKEN]         sorted table names, one a line
//   node rest-client-check.mjs namespaces ROOT [TOKEN]        sorted top-level namespaces
//   node rest-client-check.mjs table ROOT NS NAME OUT [TOKEN] summary JSON on stdout; the table's
//        metadata (int64 exact) written to OUT so icebird can read it
//   node rest-client-check.mjs token URL ID SECRET            an OAuth2 client-credentials token
// ROOT = http://host:port/v1[/prefix]. Summary: {"snapshots":N,"current":"ID","operations":[...],
// "columns":[...],"format-version":N,"location":L,"metadata-location":M,"refs":[...]}
import { writeFileSync } from 'node:fs';
import { parse, stringify, isSafeNumber } from 'lossless-json';

const [cmd, ...a] = process.argv.slice(2);
const num = (s) => (isSafeNumber(s) ? Number(s) : BigInt(s));
const hdr = (tok) => (tok ? { authorization: `Bearer ${tok}` } : {});
async function get(url, tok) {
  const r = await fetch(url, { headers: hdr(tok) });
  const text = await r.text();
  if (r.status !== 200) throw new Error(`GET ${url}: HTTP ${r.status} ${text}`);
  return parse(text, null, num);
}
const enc = (ns) => encodeURIComponent(ns.split('.').join('\x1f'));

try {
  if (cmd === 'tables') {
    const [root, ns, tok] = a;
    const r = await get(`${root}/namespaces/${enc(ns)}/tables`, tok);
    for (const n of r.identifiers.map(i => i.name).sort()) console.log(n);
  } else if (cmd === 'namespaces') {
    const [root, tok] = a;
    const r = await get(`${root}/namespaces`, tok);
    for (const n of r.namespaces.map(l => l.join('.')).sort()) console.log(n);
  } else if (cmd === 'table') {
    const [root, ns, name, out, tok] = a;
    const r = await get(`${root}/namespaces/${enc(ns)}/tables/${encodeURIComponent(name)}`, tok);
    const md = r.metadata;
    writeFileSync(out, stringify(md));
    const cur = md.schemas.find(s => Number(s['schema-id']) === Number(md['current-schema-id']));
    console.log(JSON.stringify({
      snapshots: md.snapshots?.length ?? 0,
      current: String(md['current-snapshot-id']),
      operations: (md.snapshots ?? []).map(s => s.summary.operation),
      columns: cur.fields.map(f => f.name),
      'format-version': Number(md['format-version']),
      location: md.location,
      'metadata-location': r['metadata-location'],
      refs: Object.keys(md.refs ?? {}).sort(),
      properties: md.properties ?? {},
    }));
  } else if (cmd === 'token') {
    const [url, id, secret] = a;
    const body = new URLSearchParams({ grant_type: 'client_credentials', client_id: id, client_secret: secret, scope: 'catalog' });
    const r = await fetch(`${url}/v1/oauth/tokens`, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    const j = await r.json();
    if (!j.access_token) throw new Error(`token: HTTP ${r.status} ${JSON.stringify(j)}`);
    console.log(j.access_token);
  } else {
    throw new Error(`unknown command ${cmd}`);
  }
} catch (e) {
  console.error(String(e?.message ?? e));
  process.exitCode = 1;
}
