#!/usr/bin/env node
// rest-json-validate.mjs SPEC.yaml FILE.json - validates a CommitTableRequest (as floe's REST client
// serializes it) against the Iceberg REST OpenAPI spec with Ajv (oracle/lib/openapi.mjs): the whole
// body as the commitTable request schema, then each update as a TableUpdate and each requirement as
// a TableRequirement, so a wrong field in any one of them is named. Prints one line per element,
// exit 1 on any failure.
import { readFileSync } from 'node:fs';
import { loadSpec, formatErrors } from './oracle/lib/openapi.mjs';

const [specFile, file] = process.argv.slice(2);
const spec = loadSpec(specFile);
const body = JSON.parse(readFileSync(file, 'utf8'));
let bad = 0;
const check = (what, v, value) => {
  if (v(value)) { console.log(`ok   ${what}`); return; }
  bad++; console.log(`FAIL ${what}: ${formatErrors(v.errors, 5)}`);
};
check('CommitTableRequest', spec.request('POST', '/v1/{prefix}/namespaces/{namespace}/tables/{table}'), body);
// TableRequirement is only {type} plus a discriminator (which Ajv cannot use), so each element is
// checked against the component its discriminator value maps to, as the spec's mapping says.
const mapping = (name, key) => spec.doc.components.schemas[name].discriminator.mapping[key]?.split('/').pop();
const named = (name) => (name ? spec.named(name) : null);
body.updates.forEach((u, i) => {
  const v = named(mapping('BaseUpdate', u.action));
  if (!v) { bad++; console.log(`FAIL updates[${i}]: unknown action ${u.action}`); return; }
  check(`updates[${i}] ${u.action}`, spec.named('TableUpdate'), u);
  check(`updates[${i}] ${u.action} as ${mapping('BaseUpdate', u.action)}`, v, u);
});
body.requirements.forEach((r, i) => {
  const v = named(mapping('TableRequirement', r.type));
  if (!v) { bad++; console.log(`FAIL requirements[${i}]: unknown type ${r.type}`); return; }
  check(`requirements[${i}] ${r.type} as ${mapping('TableRequirement', r.type)}`, v, r);
});
const actions = new Set(body.updates.map(u => u.action));
console.log(`${actions.size} update actions, ${new Set(body.requirements.map(r => r.type)).size} requirement types`);
process.exitCode = bad ? 1 : 0;
