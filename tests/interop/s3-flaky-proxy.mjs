#!/usr/bin/env node
// s3-flaky-proxy.mjs — an HTTP proxy in front of an S3 endpoint that fails requests on purpose, to test client
// retries. usage: node s3-flaky-proxy.mjs --target=http://127.0.0.1:PORT
// Request n (1-based) is answered, before anything reaches the target, with: 503 SlowDown when n % 3 == 1,
// 500 InternalError when n % 5 == 2, a dropped connection when n % 7 == 3; otherwise it is forwarded unchanged (the
// Host header too, so SigV4 signatures still verify). Those failures happen before forwarding. One more, a "lost
// answer": every other conditional (If-None-Match) single-object PUT and every 4th other one is forwarded and executed, then the connection is
// dropped instead of answering, so a retried conditional PUT meets its own object (412) and the client must
// recognise it (ETag check). Prints {"endpoint", ...} when ready and a JSON summary on SIGTERM (stderr).
import http from 'node:http';

const target = new URL(process.argv.find(a => a.startsWith('--target='))?.slice(9) ?? 'http://127.0.0.1:4568');
let n = 0;
const stats = { forwarded: 0, slowDown: 0, internal: 0, dropped: 0, lostAnswers: 0, lostConditional: 0 };
let puts = 0; let condPuts = 0;
const xmlError = (code, msg) => `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${msg}</Message></Error>`;

const server = http.createServer((req, res) => {
  n += 1;
  const fail = n % 3 === 1 ? 'slow' : n % 5 === 2 ? 'internal' : n % 7 === 3 ? 'drop' : null;
  if (fail) {
    req.resume();
    req.on('end', () => {
      if (fail === 'drop') { stats.dropped++; req.socket.destroy(); return; }
      const [status, code] = fail === 'slow' ? [503, 'SlowDown'] : [500, 'InternalError'];
      stats[fail === 'slow' ? 'slowDown' : 'internal']++;
      res.writeHead(status, { 'content-type': 'application/xml' });
      res.end(xmlError(code, `injected failure of request ${n}`));
    });
    return;
  }
  stats.forwarded++;
  const singlePut = req.method === 'PUT' && !req.url.includes('uploadId');
  const conditional = singlePut && !!req.headers['if-none-match'];
  const loseAnswer = conditional ? ++condPuts % 2 === 1 : singlePut && ++puts % 4 === 2;
  if (loseAnswer && conditional) stats.lostConditional++;
  const up = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
    (ur) => {
      if (loseAnswer) { stats.lostAnswers++; ur.resume(); ur.on('end', () => req.socket.destroy()); return; }
      res.writeHead(ur.statusCode, ur.headers); ur.pipe(res);
    });
  up.on('error', () => req.socket.destroy());
  req.pipe(up);
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ endpoint: `http://127.0.0.1:${server.address().port}`, target: target.href }) + '\n');
});
process.on('SIGTERM', () => { process.stderr.write(JSON.stringify(stats) + '\n'); process.exit(0); });
