// api.js - every call the console makes to floe serve: fetch with the user's bearer token (kept in
// sessionStorage, so it dies with the tab), errors as ApiError with the server's message and status, JSON
// read without losing digits (snapshot ids are 64-bit; decimals keep their scale), the REST catalog, POST
// /v1/sql (NDJSON), and MCP tools over Streamable HTTP. Authorization is the server's: this file only
// carries the token.
const TOKEN_KEY = 'floe.token';
const USER_KEY = 'floe.user';

export class ApiError extends Error {
  constructor(status, message, detail = {}) {
    super(message);
    this.status = status;
    this.detail = detail;
  }
}

export const session = {
  token: () => sessionStorage.getItem(TOKEN_KEY),
  user: () => sessionStorage.getItem(USER_KEY),
  set(token, user) {
    if (token) sessionStorage.setItem(TOKEN_KEY, token);
    else sessionStorage.removeItem(TOKEN_KEY);
    sessionStorage.setItem(USER_KEY, user);
  },
  clear() {
    sessionStorage.removeItem(TOKEN_KEY);
    sessionStorage.removeItem(USER_KEY);
  },
};

// JSON.parse that keeps numbers JS cannot hold exactly (ids past 2^53, decimals such as 10.00, floats)
// as their source text: such literals are quoted before parsing. Strings are skipped whole (escapes too).
export function parseJSON(text) {
  let out = '';
  let last = 0;
  const num = /-?\d+(\.\d+)?([eE][-+]?\d+)?/y;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      num.lastIndex = i;
      const m = num.exec(text);
      if (!m) break; // not a number: JSON.parse below reports the error
      const lit = m[0];
      if (m[1] || m[2] || !Number.isSafeInteger(Number(lit))) {
        out += `${text.slice(last, i)}"${lit}"`;
        last = i + lit.length;
      }
      i += lit.length - 1;
    }
  }
  return JSON.parse(out + text.slice(last));
}

function authHeaders(headers = {}) {
  const t = session.token();
  return t ? { ...headers, Authorization: `Bearer ${t}` } : headers;
}

async function errorOf(res) {
  const text = await res.text();
  let msg = text || res.statusText;
  let detail = {};
  try {
    const j = parseJSON(text);
    const e = j.error;
    if (e && typeof e === 'object') {
      msg = e.message || msg;
      if (e.sqlstate) msg += ` (SQLSTATE ${e.sqlstate})`;
      detail = e;
    } else if (typeof e === 'string') {
      msg = j.error_description || e;
      detail = j;
    }
  } catch (_) {
    /* not JSON: the text itself */
  }
  return new ApiError(res.status, `${res.status} ${res.statusText}: ${msg}`, detail);
}

export async function request(method, path, { body, headers = {}, signal, auth = true } = {}) {
  const res = await fetch(path, {
    method,
    body,
    signal,
    headers: auth ? authHeaders(headers) : headers,
    cache: 'no-store',
  });
  if (res.status === 401 && auth && session.token()) {
    session.clear();
    window.dispatchEvent(new CustomEvent('floe:unauthorized'));
  }
  if (!res.ok) throw await errorOf(res);
  return res;
}

export async function getJSON(path) {
  const res = await request('GET', path);
  return parseJSON(await res.text());
}

// ---- login ----
// Does the server want a token? /v1/config without one answers 200 only under --insecure-no-auth.
export async function authRequired() {
  const res = await fetch('/v1/config', { cache: 'no-store' });
  return res.status === 401;
}

export async function login(clientId, clientSecret) {
  const body = new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId,
    client_secret: clientSecret });
  const res = await request('POST', '/v1/oauth/tokens', {
    body, auth: false, headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  });
  const j = await res.json();
  session.set(j.access_token, clientId);
}

// ---- REST catalog ----
export const nsPath = (levels) => levels.map(encodeURIComponent).join('%1F');

export async function listNamespaces(parent) {
  const q = parent ? `?parent=${nsPath(parent)}` : '';
  return (await getJSON(`/v1/namespaces${q}`)).namespaces || [];
}

export async function listTables(ns) {
  const out = [];
  let page = '';
  for (;;) {
    const j = await getJSON(`/v1/namespaces/${nsPath(ns)}/tables${page}`);
    out.push(...(j.identifiers || []));
    if (!j['next-page-token']) return out;
    page = `?pageToken=${encodeURIComponent(j['next-page-token'])}`;
  }
}

export async function loadTable(ns, name) {
  return getJSON(`/v1/namespaces/${nsPath(ns)}/tables/${encodeURIComponent(name)}`);
}

// ---- SQL: POST /v1/sql, NDJSON ----
// Returns {columns: [{name, type}], rows: [[...]], done, truncated}. onProgress(count) reports rows read;
// past maxRows the body is dropped (the server cancels a statement whose client left) and truncated is set.
export async function sql(text, { queryId, signal, onProgress, maxRows = Infinity } = {}) {
  const headers = { 'Content-Type': 'text/plain; charset=utf-8', Accept: 'application/x-ndjson' };
  if (queryId) headers['X-Floe-Query-Id'] = queryId;
  const res = await request('POST', '/v1/sql', { body: text, headers, signal });
  const reader = res.body.getReader();
  const dec = new TextDecoder();
  const objs = [];
  let buf = '';
  let done = null;
  const take = (line) => {
    if (!line.trim()) return;
    const o = parseJSON(line);
    if (o.$error) throw new ApiError(409, `${o.$error.sqlstate || ''} ${o.$error.message}`.trim(), o.$error);
    if (o.$done) done = o.$done;
    else objs.push(o);
  };
  for (;;) {
    const { value, done: end } = await reader.read();
    if (end) break;
    buf += dec.decode(value, { stream: true });
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      take(buf.slice(0, nl));
      buf = buf.slice(nl + 1);
    }
    if (onProgress) onProgress(objs.length);
    if (objs.length > maxRows) {
      await reader.cancel();
      const columns = Object.keys(objs[0]).map((name) => ({ name, type: '' }));
      const rows = objs.slice(0, maxRows).map((o) => columns.map((c) => o[c.name]));
      return { columns, rows, done: null, truncated: true };
    }
  }
  take(buf);
  if (!done) throw new ApiError(0, 'the result ended early (connection cut)');
  const columns = done.columns || [];
  const rows = objs.map((o) => columns.map((c) => o[c.name]));
  return { columns, rows, done, truncated: false };
}

// The whole result of a statement as one Parquet file (POST /v1/sql, Accept parquet), for downloads. A body
// cut short by a failure has no footer: it is refused here rather than saved as a broken file.
export async function sqlParquet(text, { signal } = {}) {
  const headers = { 'Content-Type': 'text/plain; charset=utf-8', Accept: 'application/vnd.apache.parquet' };
  const res = await request('POST', '/v1/sql', { body: text, headers, signal });
  const blob = await res.blob();
  const tail = new TextDecoder().decode(await blob.slice(Math.max(0, blob.size - 4)).arrayBuffer());
  if (blob.size < 12 || tail !== 'PAR1') throw new ApiError(0, 'the Parquet result ended early (connection cut or statement failed)');
  return blob;
}

export async function cancelSql(queryId) {
  await request('DELETE', `/v1/sql/${encodeURIComponent(queryId)}`);
}

// ---- MCP: one session per page load, initialized on first use ----
let mcpSession = null;
let mcpId = 0;

async function mcpPost(message, sessionId) {
  const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
  if (sessionId) headers['Mcp-Session-Id'] = sessionId;
  return request('POST', '/mcp', { body: JSON.stringify(message), headers });
}

async function mcpOpen() {
  const res = await mcpPost({ jsonrpc: '2.0', id: ++mcpId, method: 'initialize', params: {
    protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'floe-console', version: '1' } } });
  const sid = res.headers.get('Mcp-Session-Id');
  await mcpPost({ jsonrpc: '2.0', method: 'notifications/initialized' }, sid);
  return sid;
}

// Calls an MCP tool; resolves to its structuredContent, throws ApiError on a tool or protocol error.
export async function mcpTool(name, args = {}) {
  if (!mcpSession) mcpSession = mcpOpen();
  let sid;
  try {
    sid = await mcpSession;
  } catch (e) {
    mcpSession = null;
    throw e;
  }
  let res;
  try {
    res = await mcpPost({ jsonrpc: '2.0', id: ++mcpId, method: 'tools/call', params: { name, arguments: args } }, sid);
  } catch (e) {
    if (e.status === 404) mcpSession = null; // the session ended (server restart): open a new one next time
    throw e;
  }
  const j = parseJSON(await res.text());
  if (j.error) throw new ApiError(400, `MCP error ${j.error.code}: ${j.error.message}`, j.error);
  const r = j.result;
  if (r.isError) {
    const text = (r.content || []).map((c) => c.text || '').join(' ');
    const forbidden = /42501|permission denied|lacks privilege/.test(text);
    throw new ApiError(forbidden ? 403 : 400, `${forbidden ? '403 Forbidden: ' : ''}${text}`, r);
  }
  return r.structuredContent;
}

export function resetMcp() {
  mcpSession = null;
}
