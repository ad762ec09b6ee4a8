#!/usr/bin/env node
// dashboard_stats.mjs — bench/dashboard.sh's figures from pgbench per-transaction logs (-l): queries/s and latency
// percentiles of the mix, and of the SELECT 1 probe run beside it. Log lines: client transaction latency_us
// script epoch epoch_us [schedule_lag_us]. The probe runs at a fixed rate (-R), and pgbench then measures latency
// from each transaction's scheduled start, so its latency includes pgbench's own lag in starting it (its thread
// waiting for a core on the loaded machine); select1_server_* leave that lag out: the time from sending the query
// to its answer.
// usage: node dashboard_stats.mjs CLIENTS SECONDS MIX_LOG_PREFIX PROBE_LOG_PREFIX FAILED MAXRSS_KB
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, basename } from 'node:path';

const [clients, seconds, mixPrefix, probePrefix, failed, rss] = process.argv.slice(2);
const lines = (prefix) => readdirSync(dirname(prefix)).filter(f => f.startsWith(basename(prefix) + '.'))
  .flatMap(f => readFileSync(`${dirname(prefix)}/${f}`, 'utf8').trim().split('\n').filter(Boolean))
  .map(l => l.split(/\s+/));
const read = (prefix) => lines(prefix).map(f => Number(f[2]) / 1000);
const readNoLag = (prefix) => lines(prefix).map(f => (Number(f[2]) - Number(f[6] ?? 0)) / 1000);
const pct = (a, p) => { const s = [...a].sort((x, y) => x - y); return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : NaN; };
const mix = read(mixPrefix), probe = read(probePrefix), probeServer = readNoLag(probePrefix);
const max = (a) => a.reduce((m, x) => (x > m ? x : m), 0);
console.log(JSON.stringify({
  engine: 'floe', clients: Number(clients), queries: mix.length, errors: Number(failed), qps: mix.length / Number(seconds),
  p50_ms: pct(mix, 0.5), p95_ms: pct(mix, 0.95), p99_ms: pct(mix, 0.99),
  select1_p99_ms: pct(probe, 0.99), select1_max_ms: max(probe),
  select1_server_p99_ms: pct(probeServer, 0.99), select1_server_max_ms: max(probeServer), maxrss_kb: Number(rss),
}));
