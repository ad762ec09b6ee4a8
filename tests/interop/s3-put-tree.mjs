#!/usr/bin/env node
// s3-put-tree.mjs — upload a local folder to an S3 endpoint with an independent SigV4 signer (aws4), so floe's S3
// reads are checked against bytes it did not write itself.
// usage: node s3-put-tree.mjs --endpoint=URL DIR s3://bucket/prefix   (path-style, key/secret S3RVER, us-east-1)
// Prints the number of files uploaded; exits 1 on any non-200 answer.
import aws4 from 'aws4';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const args = process.argv.slice(2);
const ep = new URL(args.find(a => a.startsWith('--endpoint='))?.slice(11) ?? 'http://127.0.0.1:4568');
const [dir, dest] = args.filter(a => !a.startsWith('--'));
const m = /^s3a?:\/\/([^/]+)\/?(.*)$/.exec(dest ?? '');
if (!dir || !m) { console.error('usage: s3-put-tree.mjs --endpoint=URL DIR s3://bucket/prefix'); process.exit(2); }
const [, bucket, prefix] = m;
const enc = (k) => k.split('/').map(s => encodeURIComponent(s).replace(/[!'()*]/g, c => '%' + c.charCodeAt(0).toString(16).toUpperCase())).join('/');
const walk = (d) => readdirSync(d).flatMap(n => (statSync(join(d, n)).isDirectory() ? walk(join(d, n)) : [join(d, n)]));
let n = 0;
for (const file of walk(dir)) {
  const key = (prefix ? prefix.replace(/\/$/, '') + '/' : '') + relative(dir, file);
  const body = readFileSync(file);
  const req = { host: ep.host, path: `/${bucket}/${enc(key)}`, method: 'PUT', service: 's3', region: 'us-east-1', headers: {}, body };
  aws4.sign(req, { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' });
  const res = await fetch(new URL(req.path, ep), { method: 'PUT', headers: req.headers, body });
  if (res.status !== 200) { console.error(`PUT ${key}: HTTP ${res.status} ${await res.text()}`); process.exit(1); }
  n++;
}
console.log(n);
