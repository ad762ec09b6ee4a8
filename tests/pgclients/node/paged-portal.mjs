// paged-portal.mjs - a portal read in pages through node `pg`'s extended
// protocol, the way pg-cursor does it (pg-cursor is not installed): Parse
// (unnamed statement) + Bind (named portal) + Describe + Execute(rows = n) +
// Flush, then one more Execute(n) + Flush per page after each PortalSuspended,
// then Close + Sync. It is a pg "submittable": client.query(portal) hands it the
// connection and routes the backend's messages to the handle* methods.
// binary = true asks for every result column in binary format; rows are then
// arrays of Buffers (or null), else arrays of strings (or null): raw wire values.
export class PagedPortal {
  constructor(text, values = [], pageSize = 1000, { binary = false, name = 'pgc_portal' } = {}) {
    Object.assign(this, { text, values, pageSize, binary, portal: name });
    this.fields = null; this.page = []; this.done = false; this.waiter = null; this.error = null;
    this.commandTag = null;
  }
  submit(con) {
    this.con = con;
    con.parse({ text: this.text, types: [] });
    con.bind({ portal: this.portal, statement: '', values: this.values.map(v => v === null ? null : String(v)),
               binary: this.binary, valueMapper: v => v });
    con.describe({ type: 'P', name: this.portal });
    con.execute({ portal: this.portal, rows: this.pageSize });
    con.flush();
  }
  // next page: a Promise of an array of raw rows; [] once the portal is exhausted
  read() {
    if (this.error) return Promise.reject(this.error);
    if (this.done && this.page.length === 0) return Promise.resolve([]);
    return new Promise((resolve, reject) => { this.waiter = { resolve, reject }; if (this.ready) this._deliver(); });
  }
  _deliver() {
    if (!this.waiter) return;
    const w = this.waiter; this.waiter = null; this.ready = false;
    if (this.error) return w.reject(this.error);
    const rows = this.page; this.page = [];
    w.resolve(rows);
    if (!this.done) { this.con.execute({ portal: this.portal, rows: this.pageSize }); this.con.flush(); }
  }
  handleRowDescription(msg) { this.fields = msg.fields; }
  handleDataRow(msg) { this.page.push(msg.fields); }
  handlePortalSuspended() { this.ready = true; this._deliver(); }
  handleCommandComplete(msg, con) {
    this.commandTag = msg.text; this.done = true; this.ready = true;
    con.close({ type: 'P', name: this.portal }); con.sync(); this._deliver();
  }
  handleEmptyQuery(con) { this.done = true; this.ready = true; con.sync(); this._deliver(); }
  handleError(err, con) {
    this.error = err; this.done = true; this.ready = true;
    if (con) con.sync();
    this._deliver();
  }
  handleReadyForQuery() { this.finished = true; if (this.onFinished) this.onFinished(); }
  handleCopyInResponse() {}
  handleCopyData() {}
  // read every remaining page; returns all rows
  async readAll() { const all = []; for (;;) { const r = await this.read(); if (!r.length) return all; all.push(...r); } }
  // wait until the server's ReadyForQuery (the portal closed and synced)
  finish() { return new Promise(r => { if (this.finished) r(); else this.onFinished = r; }); }
}

// Raw wire values. pg-protocol decodes every DataRow field as a UTF-8 string,
// which is lossy for binary-format values (and pg's Result then re-encodes it).
// installRawMode(require) patches its BufferReader so that, while
// globalThis.PGC_RAW is true, fields are decoded as latin1 (one char per
// byte, lossless). rawBytes(v, format) then gives the exact bytes the server
// sent, for values that went through a query with an identity type parser
// ({ types: { getTypeParser: () => v => v } }).
export function installRawMode(require) {
  const { BufferReader } = require('pg-protocol/dist/buffer-reader.js');
  const orig = BufferReader.prototype.string;
  BufferReader.prototype.string = function (length) {
    if (!globalThis.PGC_RAW) return orig.call(this, length);
    const s = this.buffer.toString('latin1', this.offset, this.offset + length);
    this.offset += length;
    return s;
  };
}
export function rawBytes(v, format) {
  if (v === null) return null;
  if (Buffer.isBuffer(v)) return Buffer.from(v.toString('utf8'), 'latin1'); // binary: Result did Buffer.from(str)
  return Buffer.from(v, format === 'latin1' ? 'latin1' : 'latin1');
}
