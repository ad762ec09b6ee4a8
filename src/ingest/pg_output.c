/*
 * pg_output.c - the decoder of PostgreSQL's pgoutput logical-replication
 * messages, protocol versions 1 and 2 (streamed transactions). Written from
 * the "Logical Replication Message Formats" chapter of the PostgreSQL manual;
 * see pg_cdc.h for the interface and README.md ("Postgres CDC") for the design.
 *
 * Wire layout (all integers big-endian; String = NUL-terminated bytes):
 *   'B' Begin      final_lsn:8 commit_ts:8 xid:4
 *   'C' Commit     flags:1 commit_lsn:8 end_lsn:8 commit_ts:8
 *   'O' Origin     origin_lsn:8 name:String
 *   'R' Relation   [xid:4] oid:4 nspname:String relname:String replident:1
 *                  ncols:2 { flags:1 name:String type_oid:4 typmod:4 }*
 *   'Y' Type       [xid:4] oid:4 nspname:String typname:String
 *   'I' Insert     [xid:4] oid:4 'N' TupleData
 *   'U' Update     [xid:4] oid:4 [('K'|'O') TupleData] 'N' TupleData
 *   'D' Delete     [xid:4] oid:4 ('K'|'O') TupleData
 *   'T' Truncate   [xid:4] nrels:4 flags:1 oid:4*nrels
 *   'M' Message    [xid:4] flags:1 lsn:8 prefix:String len:4 bytes
 *   'S' Stream Start   xid:4 first_segment:1            (protocol 2)
 *   'E' Stream Stop                                      (protocol 2)
 *   'c' Stream Commit  xid:4 flags:1 commit_lsn:8 end_lsn:8 commit_ts:8
 *   'A' Stream Abort   xid:4 subxid:4
 *   TupleData      ncols:2 { 'n' | 'u' | ('t'|'b') len:4 bytes }*
 * [xid:4] is present only inside a stream block (between 'S' and 'E').
 *
 * The reader (struct rd) never reads past the message: every accessor checks
 * the bytes left first and fails with the message type and byte offset.
 * Per-message allocations (tuple arrays, truncate lists) come from a scratch
 * arena reset at every message; relations live in one arena each, so a
 * schema change frees exactly the description it replaces.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/pg_cdc.h"

/* One relation description and the arena that holds its strings. */
typedef struct rel_slot {
    pgcdc_rel rel;
    fl_arena arena;
} rel_slot;

typedef enum txn_state {
    TXN_IDLE,   /* between transactions */
    TXN_OPEN,   /* after Begin, before Commit */
    TXN_STREAM, /* inside a stream block (protocol 2) */
} txn_state;

struct pgcdc_decoder {
    uint32_t proto;
    pgcdc_callbacks cb;
    txn_state state;
    uint32_t xid; /* of the open transaction or stream block */
    /* OID -> relation, open addressing with linear probing; cap is a power of two */
    rel_slot **rels;
    size_t nrels, cap;
    fl_arena scratch;
};

/* ---- the bounds-checked reader ---- */

typedef struct rd {
    const uint8_t *p;
    size_t n, off;
    uint8_t type;
    pgcdc_lsn lsn;
    fl_error *err;
} rd;

static fl_status rd_fail(rd *r, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static fl_status rd_fail(rd *r, size_t at, const char *fmt, ...)
{
    char what[512], lsn[24];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return fl_errorf(r->err, FL_ECORRUPT, "pgoutput %s message at byte %zu (WAL %s): %s",
                     pgcdc_msg_name(r->type), at, pgcdc_lsn_format(r->lsn, lsn), what);
}

static fl_status rd_need(rd *r, size_t k, const char *what)
{
    if (r->n - r->off >= k)
        return FL_OK;
    return rd_fail(r, r->off, "%s needs %zu bytes, %zu left", what, k, r->n - r->off);
}

static fl_status rd_u8(rd *r, const char *what, uint8_t *out)
{
    FL_TRY(rd_need(r, 1, what));
    *out = r->p[r->off++];
    return FL_OK;
}

static uint64_t be(const uint8_t *p, int k)
{
    uint64_t v = 0;
    for (int i = 0; i < k; i++)
        v = v << 8 | p[i];
    return v;
}

static fl_status rd_u16(rd *r, const char *what, uint16_t *out)
{
    FL_TRY(rd_need(r, 2, what));
    *out = (uint16_t)be(r->p + r->off, 2);
    r->off += 2;
    return FL_OK;
}

static fl_status rd_u32(rd *r, const char *what, uint32_t *out)
{
    FL_TRY(rd_need(r, 4, what));
    *out = (uint32_t)be(r->p + r->off, 4);
    r->off += 4;
    return FL_OK;
}

static fl_status rd_u64(rd *r, const char *what, uint64_t *out)
{
    FL_TRY(rd_need(r, 8, what));
    *out = be(r->p + r->off, 8);
    r->off += 8;
    return FL_OK;
}

/* A NUL-terminated string inside the message; *out points into it. */
static fl_status rd_str(rd *r, const char *what, const char **out)
{
    const uint8_t *nul = memchr(r->p + r->off, 0, r->n - r->off);
    if (!nul)
        return rd_fail(r, r->off, "%s: no terminating NUL in the %zu bytes left", what,
                       r->n - r->off);
    *out = (const char *)(r->p + r->off);
    r->off = (size_t)(nul - r->p) + 1;
    return FL_OK;
}

static fl_status rd_end(rd *r)
{
    if (r->off == r->n)
        return FL_OK;
    return rd_fail(r, r->off, "%zu unexpected bytes after the message", r->n - r->off);
}

/* ---- relation map ---- */

static size_t slot_of(const pgcdc_decoder *d, uint32_t oid)
{
    size_t i = (oid * 2654435761u) & (d->cap - 1);
    while (d->rels[i] && d->rels[i]->rel.oid != oid)
        i = (i + 1) & (d->cap - 1);
    return i;
}

static bool map_grow(pgcdc_decoder *d)
{
    size_t ncap = d->cap ? d->cap * 2 : 16;
    rel_slot **old = d->rels;
    size_t ocap = d->cap;
    d->rels = calloc(ncap, sizeof *d->rels);
    if (!d->rels) {
        d->rels = old;
        return false;
    }
    d->cap = ncap;
    for (size_t i = 0; i < ocap; i++)
        if (old[i])
            d->rels[slot_of(d, old[i]->rel.oid)] = old[i];
    free(old);
    return true;
}

static void slot_free(rel_slot *s)
{
    if (s) {
        fl_arena_free(&s->arena);
        free(s);
    }
}

const pgcdc_rel *pgcdc_decoder_rel(const pgcdc_decoder *d, uint32_t oid)
{
    if (!d->cap)
        return NULL;
    rel_slot *s = d->rels[slot_of(d, oid)];
    return s ? &s->rel : NULL;
}

bool pgcdc_decoder_in_txn(const pgcdc_decoder *d)
{
    return d->state != TXN_IDLE;
}

pgcdc_decoder *pgcdc_decoder_new(uint32_t proto_version, const pgcdc_callbacks *cb)
{
    pgcdc_decoder *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->proto = proto_version;
    if (cb)
        d->cb = *cb;
    fl_arena_init(&d->scratch, 0);
    return d;
}

void pgcdc_decoder_free(pgcdc_decoder *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->cap; i++)
        slot_free(d->rels[i]);
    free(d->rels);
    fl_arena_free(&d->scratch);
    free(d);
}

const char *pgcdc_msg_name(uint8_t type)
{
    switch (type) {
    case 'B': return "Begin";
    case 'C': return "Commit";
    case 'O': return "Origin";
    case 'R': return "Relation";
    case 'Y': return "Type";
    case 'I': return "Insert";
    case 'U': return "Update";
    case 'D': return "Delete";
    case 'T': return "Truncate";
    case 'M': return "Message";
    case 'S': return "Stream Start";
    case 'E': return "Stream Stop";
    case 'c': return "Stream Commit";
    case 'A': return "Stream Abort";
    case 'b': return "Begin Prepare";
    case 'P': return "Prepare";
    case 'K': return "Commit Prepared";
    case 'r': return "Rollback Prepared";
    case 'p': return "Stream Prepare";
    default: return "unknown";
    }
}

char *pgcdc_lsn_format(pgcdc_lsn lsn, char *buf)
{
    snprintf(buf, 24, "%X/%X", (unsigned)(lsn >> 32), (unsigned)lsn);
    return buf;
}

bool pgcdc_lsn_parse(const char *s, pgcdc_lsn *out)
{
    unsigned hi, lo;
    int used = 0;
    if (!s || sscanf(s, "%8X/%8X%n", &hi, &lo, &used) != 2 || s[used] != '\0')
        return false;
    *out = (pgcdc_lsn)hi << 32 | lo;
    return true;
}

/* ---- message bodies ---- */

/* The transaction id of a change-like message: read inside a stream block,
 * else the open transaction's. Such messages need a transaction. */
static fl_status rd_xid(pgcdc_decoder *d, rd *r, uint32_t *xid)
{
    if (d->state == TXN_STREAM)
        return rd_u32(r, "transaction id", xid);
    if (d->state != TXN_OPEN)
        return rd_fail(r, 0, "outside a transaction (no Begin or Stream Start before it)");
    *xid = d->xid;
    return FL_OK;
}

static fl_status rd_rel(pgcdc_decoder *d, rd *r, const pgcdc_rel **out)
{
    size_t at = r->off;
    uint32_t oid;
    FL_TRY(rd_u32(r, "relation OID", &oid));
    *out = pgcdc_decoder_rel(d, oid);
    if (!*out)
        return rd_fail(r, at, "relation OID %u was not described by a Relation message", oid);
    return FL_OK;
}

static fl_status rd_tuple(pgcdc_decoder *d, rd *r, const pgcdc_rel *rel, pgcdc_tuple *t)
{
    size_t at = r->off;
    uint16_t n;
    FL_TRY(rd_u16(r, "tuple column count", &n));
    if (n != rel->ncols)
        return rd_fail(r, at, "tuple has %u columns, relation %s.%s has %u", n, rel->nspname,
                       rel->relname, rel->ncols);
    pgcdc_datum *cols = fl_arena_calloc(&d->scratch, n ? n : 1, sizeof *cols);
    if (!cols)
        return fl_errorf(r->err, FL_ENOMEM, "out of memory");
    for (uint16_t i = 0; i < n; i++) {
        size_t cat = r->off;
        uint8_t kind;
        FL_TRY(rd_u8(r, "column kind", &kind));
        cols[i].kind = (pgcdc_datum_kind)kind;
        if (kind == 'n' || kind == 'u')
            continue;
        if (kind != 't' && kind != 'b')
            return rd_fail(r, cat, "column %u ('%s'): unknown kind 0x%02x", i, rel->cols[i].name,
                           kind);
        FL_TRY(rd_u32(r, "column length", &cols[i].len));
        if (cols[i].len > r->n - r->off)
            return rd_fail(r, r->off - 4, "column %u ('%s'): length %u exceeds the %zu bytes left",
                           i, rel->cols[i].name, cols[i].len, r->n - r->off);
        cols[i].data = r->p + r->off;
        r->off += cols[i].len;
    }
    t->ncols = n;
    t->cols = cols;
    return FL_OK;
}

static fl_status msg_begin(pgcdc_decoder *d, rd *r)
{
    pgcdc_begin b;
    uint64_t ts;
    if (d->state != TXN_IDLE)
        return rd_fail(r, 0, "inside a transaction (Begin without Commit before it)");
    FL_TRY(rd_u64(r, "final LSN", &b.final_lsn));
    FL_TRY(rd_u64(r, "commit timestamp", &ts));
    FL_TRY(rd_u32(r, "transaction id", &b.xid));
    FL_TRY(rd_end(r));
    b.commit_ts = (int64_t)ts;
    d->state = TXN_OPEN;
    d->xid = b.xid;
    return d->cb.on_begin ? d->cb.on_begin(d->cb.ctx, &b, r->err) : FL_OK;
}

static fl_status rd_commit_body(rd *r, pgcdc_commit *c)
{
    uint64_t ts;
    size_t at = r->off;
    FL_TRY(rd_u8(r, "flags", &c->flags));
    if (c->flags != 0)
        return rd_fail(r, at, "unknown flags 0x%02x", c->flags);
    FL_TRY(rd_u64(r, "commit LSN", &c->commit_lsn));
    FL_TRY(rd_u64(r, "end LSN", &c->end_lsn));
    FL_TRY(rd_u64(r, "commit timestamp", &ts));
    c->commit_ts = (int64_t)ts;
    return rd_end(r);
}

static fl_status msg_commit(pgcdc_decoder *d, rd *r)
{
    pgcdc_commit c;
    if (d->state != TXN_OPEN)
        return rd_fail(r, 0, "outside a transaction (no Begin before it)");
    FL_TRY(rd_commit_body(r, &c));
    c.xid = d->xid;
    d->state = TXN_IDLE;
    return d->cb.on_commit ? d->cb.on_commit(d->cb.ctx, &c, r->err) : FL_OK;
}

static fl_status msg_origin(pgcdc_decoder *d, rd *r)
{
    pgcdc_origin o;
    if (d->state != TXN_OPEN)
        return rd_fail(r, 0, "outside a transaction (no Begin before it)");
    FL_TRY(rd_u64(r, "origin LSN", &o.origin_lsn));
    FL_TRY(rd_str(r, "origin name", &o.name));
    FL_TRY(rd_end(r));
    return d->cb.on_origin ? d->cb.on_origin(d->cb.ctx, &o, r->err) : FL_OK;
}

/* Reads the columns of a Relation message into s (strings copied to its arena). */
static fl_status rd_columns(rd *r, rel_slot *s)
{
    size_t at = r->off;
    uint16_t n;
    FL_TRY(rd_u16(r, "column count", &n));
    if (n > PGCDC_MAX_COLUMNS)
        return rd_fail(r, at, "%u columns, more than PostgreSQL's %d", n, PGCDC_MAX_COLUMNS);
    /* each column takes at least 10 bytes: flags, an empty name's NUL, OID, typmod */
    if ((size_t)n * 10 > r->n - r->off)
        return rd_fail(r, at, "%u columns cannot fit in the %zu bytes left", n, r->n - r->off);
    s->rel.ncols = n;
    s->rel.cols = fl_arena_calloc(&s->arena, n ? n : 1, sizeof *s->rel.cols);
    if (!s->rel.cols)
        return fl_errorf(r->err, FL_ENOMEM, "out of memory");
    for (uint16_t i = 0; i < n; i++) {
        pgcdc_column *c = &s->rel.cols[i];
        uint8_t flags;
        const char *name = NULL;
        uint32_t typmod;
        FL_TRY(rd_u8(r, "column flags", &flags));
        FL_TRY(rd_str(r, "column name", &name));
        FL_TRY(rd_u32(r, "column type OID", &c->type_oid));
        FL_TRY(rd_u32(r, "column type modifier", &typmod));
        c->key = (flags & 1) != 0;
        c->typmod = (int32_t)typmod;
        c->name = fl_arena_strdup(&s->arena, name);
        if (!c->name)
            return fl_errorf(r->err, FL_ENOMEM, "out of memory");
        pgcdc_type_for(c->type_oid, c->typmod, &c->type, &c->exact);
    }
    return FL_OK;
}

static fl_status rd_relation(rd *r, rel_slot *s)
{
    const char *nsp = NULL, *name = NULL;
    size_t at = r->off;
    FL_TRY(rd_u32(r, "relation OID", &s->rel.oid));
    if (s->rel.oid == 0)
        return rd_fail(r, at, "relation OID 0");
    FL_TRY(rd_str(r, "namespace", &nsp));
    FL_TRY(rd_str(r, "relation name", &name));
    uint8_t ident;
    at = r->off;
    FL_TRY(rd_u8(r, "replica identity", &ident));
    if (ident != 'd' && ident != 'n' && ident != 'f' && ident != 'i')
        return rd_fail(r, at, "unknown replica identity 0x%02x", ident);
    s->rel.replident = (char)ident;
    s->rel.nspname = fl_arena_strdup(&s->arena, *nsp ? nsp : "pg_catalog");
    s->rel.relname = fl_arena_strdup(&s->arena, name);
    if (!s->rel.nspname || !s->rel.relname)
        return fl_errorf(r->err, FL_ENOMEM, "out of memory");
    FL_TRY(rd_columns(r, s));
    return rd_end(r);
}

static fl_status msg_relation(pgcdc_decoder *d, rd *r)
{
    uint32_t xid;
    FL_TRY(rd_xid(d, r, &xid));
    rel_slot *s = calloc(1, sizeof *s);
    if (!s)
        return fl_errorf(r->err, FL_ENOMEM, "out of memory");
    fl_arena_init(&s->arena, 1024);
    fl_status rc = rd_relation(r, s);
    if (rc == FL_OK && (d->nrels + 1) * 2 > d->cap && !map_grow(d))
        rc = fl_errorf(r->err, FL_ENOMEM, "out of memory");
    if (rc != FL_OK) {
        slot_free(s);
        return rc;
    }
    size_t i = slot_of(d, s->rel.oid);
    rel_slot *old = d->rels[i];
    s->rel.version = old ? old->rel.version + 1 : 1;
    d->rels[i] = s;
    if (!old)
        d->nrels++;
    rc = d->cb.on_relation ? d->cb.on_relation(d->cb.ctx, &s->rel, old ? &old->rel : NULL, r->err)
                           : FL_OK;
    slot_free(old);
    return rc;
}

static fl_status msg_type(pgcdc_decoder *d, rd *r)
{
    pgcdc_typeinfo t;
    uint32_t xid;
    FL_TRY(rd_xid(d, r, &xid));
    FL_TRY(rd_u32(r, "type OID", &t.oid));
    FL_TRY(rd_str(r, "namespace", &t.nspname));
    FL_TRY(rd_str(r, "type name", &t.typname));
    FL_TRY(rd_end(r));
    if (!*t.nspname)
        t.nspname = "pg_catalog";
    return d->cb.on_type ? d->cb.on_type(d->cb.ctx, &t, r->err) : FL_OK;
}

/* Update and Delete: an optional 'K'/'O' old tuple, then (Update) 'N'. */
static fl_status msg_change(pgcdc_decoder *d, rd *r)
{
    pgcdc_change c;
    pgcdc_tuple oldt, newt;
    memset(&c, 0, sizeof c);
    c.kind = (pgcdc_change_kind)r->type;
    c.lsn = r->lsn;
    FL_TRY(rd_xid(d, r, &c.xid));
    FL_TRY(rd_rel(d, r, &c.rel));
    size_t at = r->off;
    uint8_t tag;
    FL_TRY(rd_u8(r, "tuple tag", &tag));
    if ((tag == 'K' || tag == 'O') && c.kind != PGCDC_INSERT) {
        c.old_kind = (char)tag;
        FL_TRY(rd_tuple(d, r, c.rel, &oldt));
        c.old_tuple = &oldt;
        if (c.kind == PGCDC_UPDATE) {
            at = r->off;
            FL_TRY(rd_u8(r, "tuple tag", &tag));
        }
    } else if (c.kind == PGCDC_DELETE) {
        return rd_fail(r, at, "tuple tag 0x%02x, expected 'K' or 'O'", tag);
    }
    if (c.kind != PGCDC_DELETE) {
        if (tag != 'N')
            return rd_fail(r, at, "tuple tag 0x%02x, expected 'N'", tag);
        FL_TRY(rd_tuple(d, r, c.rel, &newt));
        c.new_tuple = &newt;
    }
    FL_TRY(rd_end(r));
    return d->cb.on_change ? d->cb.on_change(d->cb.ctx, &c, r->err) : FL_OK;
}

static fl_status msg_truncate(pgcdc_decoder *d, rd *r)
{
    pgcdc_truncate t;
    FL_TRY(rd_xid(d, r, &t.xid));
    size_t at = r->off;
    FL_TRY(rd_u32(r, "relation count", &t.nrels));
    FL_TRY(rd_u8(r, "flags", &t.flags));
    if (t.nrels > (r->n - r->off) / 4)
        return rd_fail(r, at, "%u relations cannot fit in the %zu bytes left", t.nrels,
                       r->n - r->off);
    const pgcdc_rel **rels = fl_arena_calloc(&d->scratch, t.nrels ? t.nrels : 1, sizeof *rels);
    if (!rels)
        return fl_errorf(r->err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < t.nrels; i++)
        FL_TRY(rd_rel(d, r, &rels[i]));
    FL_TRY(rd_end(r));
    t.rels = rels;
    return d->cb.on_truncate ? d->cb.on_truncate(d->cb.ctx, &t, r->err) : FL_OK;
}

static fl_status msg_message(pgcdc_decoder *d, rd *r)
{
    pgcdc_message m;
    uint8_t flags;
    m.xid = 0;
    if (d->state == TXN_STREAM)
        FL_TRY(rd_u32(r, "transaction id", &m.xid));
    else if (d->state == TXN_OPEN)
        m.xid = d->xid;
    FL_TRY(rd_u8(r, "flags", &flags));
    m.transactional = (flags & 1) != 0;
    if (m.transactional && d->state == TXN_IDLE)
        return rd_fail(r, 0, "transactional message outside a transaction");
    FL_TRY(rd_u64(r, "message LSN", &m.lsn));
    FL_TRY(rd_str(r, "prefix", &m.prefix));
    size_t at = r->off;
    FL_TRY(rd_u32(r, "content length", &m.len));
    if (m.len > r->n - r->off)
        return rd_fail(r, at, "content length %u exceeds the %zu bytes left", m.len, r->n - r->off);
    m.data = r->p + r->off;
    r->off += m.len;
    FL_TRY(rd_end(r));
    return d->cb.on_message ? d->cb.on_message(d->cb.ctx, &m, r->err) : FL_OK;
}

/* ---- protocol 2: streamed transactions ---- */

static fl_status need_v2(pgcdc_decoder *d, rd *r)
{
    if (d->proto >= 2)
        return FL_OK;
    return rd_fail(r, 0, "streamed transactions need protocol version 2, the stream uses %u",
                   d->proto);
}

static fl_status msg_stream_start(pgcdc_decoder *d, rd *r)
{
    uint8_t first;
    FL_TRY(need_v2(d, r));
    if (d->state != TXN_IDLE)
        return rd_fail(r, 0, "inside a transaction or stream block");
    FL_TRY(rd_u32(r, "transaction id", &d->xid));
    FL_TRY(rd_u8(r, "first segment", &first));
    FL_TRY(rd_end(r));
    d->state = TXN_STREAM;
    return d->cb.on_stream_start ? d->cb.on_stream_start(d->cb.ctx, d->xid, first == 1, r->err)
                                 : FL_OK;
}

static fl_status msg_stream_stop(pgcdc_decoder *d, rd *r)
{
    FL_TRY(need_v2(d, r));
    if (d->state != TXN_STREAM)
        return rd_fail(r, 0, "no stream block is open");
    FL_TRY(rd_end(r));
    d->state = TXN_IDLE;
    return d->cb.on_stream_stop ? d->cb.on_stream_stop(d->cb.ctx, r->err) : FL_OK;
}

static fl_status msg_stream_commit(pgcdc_decoder *d, rd *r)
{
    pgcdc_commit c;
    FL_TRY(need_v2(d, r));
    if (d->state != TXN_IDLE)
        return rd_fail(r, 0, "inside a transaction or stream block");
    FL_TRY(rd_u32(r, "transaction id", &c.xid));
    FL_TRY(rd_commit_body(r, &c));
    return d->cb.on_stream_commit ? d->cb.on_stream_commit(d->cb.ctx, &c, r->err) : FL_OK;
}

static fl_status msg_stream_abort(pgcdc_decoder *d, rd *r)
{
    uint32_t xid, subxid;
    FL_TRY(need_v2(d, r));
    if (d->state != TXN_IDLE)
        return rd_fail(r, 0, "inside a transaction or stream block");
    FL_TRY(rd_u32(r, "transaction id", &xid));
    FL_TRY(rd_u32(r, "subtransaction id", &subxid));
    FL_TRY(rd_end(r));
    return d->cb.on_stream_abort ? d->cb.on_stream_abort(d->cb.ctx, xid, subxid, r->err) : FL_OK;
}

fl_status pgcdc_decode(pgcdc_decoder *d, const uint8_t *msg, size_t len, pgcdc_lsn lsn,
                       fl_error *err)
{
    rd r = {msg, len, 1, 0, lsn, err};
    if (len == 0)
        return fl_errorf(err, FL_ECORRUPT, "pgoutput message at byte 0: empty message");
    r.type = msg[0];
    fl_arena_reset(&d->scratch);
    switch (r.type) {
    case 'B': return msg_begin(d, &r);
    case 'C': return msg_commit(d, &r);
    case 'O': return msg_origin(d, &r);
    case 'R': return msg_relation(d, &r);
    case 'Y': return msg_type(d, &r);
    case 'I':
    case 'U':
    case 'D': return msg_change(d, &r);
    case 'T': return msg_truncate(d, &r);
    case 'M': return msg_message(d, &r);
    case 'S': return msg_stream_start(d, &r);
    case 'E': return msg_stream_stop(d, &r);
    case 'c': return msg_stream_commit(d, &r);
    case 'A': return msg_stream_abort(d, &r);
    case 'b':
    case 'P':
    case 'K':
    case 'r':
    case 'p':
        return fl_errorf(err, FL_EUNSUPPORTED,
                         "pgoutput %s message at byte 0: two-phase commit (protocol 3) is not "
                         "supported",
                         pgcdc_msg_name(r.type));
    default:
        return fl_errorf(err, FL_ECORRUPT, "pgoutput message at byte 0: unknown type 0x%02x",
                         r.type);
    }
}
