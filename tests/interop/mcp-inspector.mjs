#!/usr/bin/env node
// mcp-inspector.mjs — runs the official MCP Inspector CLI (@modelcontextprotocol/inspector-cli, pinned in
// package.json) non-interactively from this folder's node_modules, with the inspector's own arguments:
//   node mcp-inspector.mjs /path/to/floe mcp --catalog=... --method tools/list
//   node mcp-inspector.mjs http://127.0.0.1:PORT/mcp --transport http --header "Authorization: Bearer T" --method ...
// inspector-cli 1.0.3 checks fs.existsSync('../package.json') relative to the current directory but imports it
// relative to its module, so from most directories it dies; this makes that one check pass (the same trick as
// ../shared/oracle/mcp-inspector.mjs).
import fs from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const index = join(dirname(require.resolve('@modelcontextprotocol/inspector-cli/package.json')), 'build', 'index.js');
const orig = fs.existsSync;
fs.existsSync = (p) => (p === '../package.json' ? true : orig(p));
syncBuiltinESMExports();
process.argv = [process.argv[0], index, ...process.argv.slice(2)];
await import(index);
