// Shared helpers: turn values from any reader into stable, JSON-safe values so
// that outputs of different tools can be diffed.
//   bigint            -> decimal string           (e.g. "9000000000")
//   Uint8Array/Buffer -> "\\x" + lowercase hex     (Postgres bytea style)
//   Date              -> ISO-8601 string (UTC)     (e.g. "2024-01-01T00:00:00.000Z")
//   NaN/±Infinity     -> "NaN" / "Infinity" / "-Infinity"
//   Map               -> plain object if all keys are strings, else [[k, v], ...]
//   typed arrays      -> plain arrays
//   undefined         -> null
export function plain(v) {
  if (v === undefined || v === null) return null;
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') {
    if (Number.isNaN(v)) return 'NaN';
    if (v === Infinity) return 'Infinity';
    if (v === -Infinity) return '-Infinity';
    if (Object.is(v, -0)) return 0;
    return v;
  }
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? 'Invalid Date' : v.toISOString();
  if (v instanceof Uint8Array) return '\\x' + Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex');
  if (v instanceof ArrayBuffer) return '\\x' + Buffer.from(v).toString('hex');
  if (ArrayBuffer.isView(v)) return Array.from(v, plain);
  if (v instanceof Map) {
    const entries = [...v.entries()];
    if (entries.every(([k]) => typeof k === 'string')) return Object.fromEntries(entries.map(([k, x]) => [k, plain(x)]));
    return entries.map(([k, x]) => [plain(k), plain(x)]);
  }
  if (Array.isArray(v)) return v.map(plain);
  if (typeof v === 'object') {
    if (typeof v.toJSON === 'function' && !(Symbol.iterator in v)) return plain(v.toJSON());
    if (Symbol.iterator in v && typeof v.length === 'number') return Array.from(v, plain); // e.g. Arrow Vector
    const out = {};
    for (const k of Object.keys(v)) out[k] = plain(v[k]);
    return out;
  }
  return String(v);
}

// JSON with object keys in insertion order (schema order) and 2-space indent.
export function dump(obj, compact = false) {
  return JSON.stringify(plain(obj), null, compact ? 0 : 2);
}

// Tiny argv parser: --key=value, --flag, positional args.
export function parseArgs(argv, { booleans = [] } = {}) {
  const opts = {}; const pos = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') { pos.push(...argv.slice(i + 1)); break; }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      if (eq > 0) opts[a.slice(2, eq)] = a.slice(eq + 1);
      else if (booleans.includes(a.slice(2))) opts[a.slice(2)] = true;
      else if (i + 1 < argv.length) opts[a.slice(2)] = argv[++i];
      else opts[a.slice(2)] = true;
    } else pos.push(a);
  }
  return { opts, pos };
}

export function die(msg, code = 2) { process.stderr.write(msg.endsWith('\n') ? msg : msg + '\n'); process.exit(code); }

// Version of an installed package (for provenance lines in outputs).
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
const here = dirname(fileURLToPath(import.meta.url));
export function pkgVersion(name) {
  try { return JSON.parse(readFileSync(join(here, '..', '..', 'node_modules', name, 'package.json'), 'utf8')).version; }
  catch { try { return createRequire(import.meta.url)(`${name}/package.json`).version; } catch { return null; } }
}

// Exit quietly when stdout is closed early (e.g. `| head`).
process.stdout.on('error', (e) => { if (e.code === 'EPIPE') process.exit(0); throw e; });
