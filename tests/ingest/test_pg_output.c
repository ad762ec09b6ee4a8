/*
 * test_pg_output.c - the pgoutput decoder (src/ingest/pg_output.c) and the
 * value mapping (pg_types.c) on hand-built messages: every message kind of
 * protocols 1 and 2 decodes to the expected events (rendered as text lines),
 * and malformed input - every valid message cut at every byte, bad counts,
 * huge lengths, messages out of sequence - gives FL_ECORRUPT (or
 * FL_EUNSUPPORTED) with a message naming the message type and byte offset.
 */
#include <stdarg.h>

#include "floe/calendar.h"
#include "ingest/pg_cdc.h"
#include "ingest/pg_conn.h"
#include "test.h"

/* ---- message builder ---- */

typedef struct mb {
    uint8_t b[1024];
    size_t n;
} mb;

static void put(mb *m, uint64_t v, int k)
{
    for (int i = k - 1; i >= 0; i--)
        m->b[m->n++] = (uint8_t)(v >> (8 * i));
}
static void u8(mb *m, uint64_t v)
{
    put(m, v, 1);
}
static void u16(mb *m, uint64_t v)
{
    put(m, v, 2);
}
static void u32(mb *m, uint64_t v)
{
    put(m, v, 4);
}
static void u64(mb *m, uint64_t v)
{
    put(m, v, 8);
}
static void str(mb *m, const char *s)
{
    size_t k = strlen(s) + 1;
    memcpy(m->b + m->n, s, k);
    m->n += k;
}
static void col_t(mb *m, const char *s)
{
    u8(m, 't');
    u32(m, strlen(s));
    memcpy(m->b + m->n, s, strlen(s));
    m->n += strlen(s);
}

static mb msg_begin(uint32_t xid)
{
    mb m = {.n = 0};
    u8(&m, 'B');
    u64(&m, 0x1000 + xid);
    u64(&m, 789);
    u32(&m, xid);
    return m;
}
static mb msg_commit(void)
{
    mb m = {.n = 0};
    u8(&m, 'C');
    u8(&m, 0);
    u64(&m, 0x2000);
    u64(&m, 0x2010);
    u64(&m, 790);
    return m;
}
/* public.t (id int4 key, name text, doc text, amt numeric(10,2)) */
static mb msg_rel_t(int stream_xid, char ident)
{
    mb m = {.n = 0};
    u8(&m, 'R');
    if (stream_xid)
        u32(&m, (uint32_t)stream_xid);
    u32(&m, 16384);
    str(&m, "public");
    str(&m, "t");
    u8(&m, (uint8_t)ident);
    u16(&m, 4);
    u8(&m, 1), str(&m, "id"), u32(&m, 23), u32(&m, 0xffffffff);
    u8(&m, 0), str(&m, "name"), u32(&m, 25), u32(&m, 0xffffffff);
    u8(&m, 0), str(&m, "doc"), u32(&m, 25), u32(&m, 0xffffffff);
    u8(&m, 0), str(&m, "amt"), u32(&m, 1700), u32(&m, ((10 << 16) | 2) + 4);
    return m;
}
/* empty-namespace (pg_catalog) relation u with one column */
static mb msg_rel_u(void)
{
    mb m = {.n = 0};
    u8(&m, 'R');
    u32(&m, 16390);
    str(&m, "");
    str(&m, "u");
    u8(&m, 'f');
    u16(&m, 1);
    u8(&m, 1), str(&m, "k"), u32(&m, 20), u32(&m, 0xffffffff);
    return m;
}
static mb msg_insert(int stream_xid)
{
    mb m = {.n = 0};
    u8(&m, 'I');
    if (stream_xid)
        u32(&m, (uint32_t)stream_xid);
    u32(&m, 16384);
    u8(&m, 'N');
    u16(&m, 4);
    col_t(&m, "1");
    col_t(&m, "alice");
    u8(&m, 'n');
    col_t(&m, "12.50");
    return m;
}
/* Update with old key K, old tuple O, or none (0); doc unchanged TOAST */
static mb msg_update(char old)
{
    mb m = {.n = 0};
    u8(&m, 'U');
    u32(&m, 16384);
    if (old) {
        u8(&m, (uint8_t)old);
        u16(&m, 4);
        col_t(&m, "1");
        if (old == 'O') {
            col_t(&m, "alice"), u8(&m, 'u'), col_t(&m, "12.50");
        } else {
            u8(&m, 'n'), u8(&m, 'n'), u8(&m, 'n');
        }
    }
    u8(&m, 'N');
    u16(&m, 4);
    col_t(&m, "2");
    col_t(&m, "bob");
    u8(&m, 'u');
    u8(&m, 'b');
    u32(&m, 2);
    u8(&m, 0xde), u8(&m, 0xad);
    return m;
}
static mb msg_delete(char old)
{
    mb m = {.n = 0};
    u8(&m, 'D');
    u32(&m, 16384);
    u8(&m, (uint8_t)old);
    u16(&m, 4);
    col_t(&m, "2");
    u8(&m, 'n'), u8(&m, 'n'), u8(&m, 'n');
    return m;
}
static mb msg_truncate(void)
{
    mb m = {.n = 0};
    u8(&m, 'T');
    u32(&m, 2);
    u8(&m, 3);
    u32(&m, 16384);
    u32(&m, 16390);
    return m;
}
static mb msg_origin(void)
{
    mb m = {.n = 0};
    u8(&m, 'O');
    u64(&m, 0xABCDEF);
    str(&m, "upstream");
    return m;
}
static mb msg_type(void)
{
    mb m = {.n = 0};
    u8(&m, 'Y');
    u32(&m, 70000);
    str(&m, "public");
    str(&m, "mood");
    return m;
}
static mb msg_message(void)
{
    mb m = {.n = 0};
    u8(&m, 'M');
    u8(&m, 1);
    u64(&m, 0x3000);
    str(&m, "floe");
    u32(&m, 3);
    u8(&m, 'a'), u8(&m, 'b'), u8(&m, 'c');
    return m;
}

/* ---- event recorder ---- */

typedef struct rec {
    char out[8192];
    size_t n;
} rec;

static void emit(rec *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    r->n += (size_t)vsnprintf(r->out + r->n, sizeof r->out - r->n, fmt, ap);
    va_end(ap);
}

static void emit_tuple(rec *r, const pgcdc_tuple *t)
{
    emit(r, "(");
    for (uint16_t i = 0; i < t->ncols; i++) {
        const pgcdc_datum *d = &t->cols[i];
        if (i)
            emit(r, ",");
        if (d->kind == PGCDC_TEXT)
            emit(r, "'%.*s'", (int)d->len, (const char *)d->data);
        else if (d->kind == PGCDC_BINARY)
            emit(r, "b%u", d->len);
        else
            emit(r, "%c", (char)d->kind);
    }
    emit(r, ")");
}

static fl_status on_begin(void *ctx, const pgcdc_begin *b, fl_error *err)
{
    emit(ctx, "begin xid=%u final=%llx ts=%lld\n", b->xid, (unsigned long long)b->final_lsn,
         (long long)b->commit_ts);
    return FL_OK;
}
static fl_status on_commit(void *ctx, const pgcdc_commit *c, fl_error *err)
{
    emit(ctx, "commit xid=%u lsn=%llx end=%llx\n", c->xid, (unsigned long long)c->commit_lsn,
         (unsigned long long)c->end_lsn);
    return FL_OK;
}
static fl_status on_relation(void *ctx, const pgcdc_rel *rel, const pgcdc_rel *old, fl_error *err)
{
    emit(ctx, "rel %u %s.%s %c v%u%s", rel->oid, rel->nspname, rel->relname, rel->replident,
         rel->version, old ? " replaces" : "");
    for (uint16_t i = 0; i < rel->ncols; i++) {
        char tn[64];
        fl_type_format(&rel->cols[i].type, tn, sizeof tn);
        emit(ctx, " %s:%u:%s%s", rel->cols[i].name, rel->cols[i].type_oid, tn,
             rel->cols[i].key ? ":key" : "");
    }
    emit(ctx, "\n");
    return FL_OK;
}
static fl_status on_change(void *ctx, const pgcdc_change *c, fl_error *err)
{
    emit(ctx, "%c xid=%u %s", (char)c->kind, c->xid, c->rel->relname);
    if (c->old_tuple) {
        emit(ctx, " %c", c->old_kind);
        emit_tuple(ctx, c->old_tuple);
    }
    if (c->new_tuple) {
        emit(ctx, " N");
        emit_tuple(ctx, c->new_tuple);
    }
    emit(ctx, "\n");
    return FL_OK;
}
static fl_status on_truncate(void *ctx, const pgcdc_truncate *t, fl_error *err)
{
    emit(ctx, "truncate xid=%u flags=%u", t->xid, t->flags);
    for (uint32_t i = 0; i < t->nrels; i++)
        emit(ctx, " %s", t->rels[i]->relname);
    emit(ctx, "\n");
    return FL_OK;
}
static fl_status on_origin(void *ctx, const pgcdc_origin *o, fl_error *err)
{
    emit(ctx, "origin %s %llx\n", o->name, (unsigned long long)o->origin_lsn);
    return FL_OK;
}
static fl_status on_type(void *ctx, const pgcdc_typeinfo *t, fl_error *err)
{
    emit(ctx, "type %u %s.%s\n", t->oid, t->nspname, t->typname);
    return FL_OK;
}
static fl_status on_message(void *ctx, const pgcdc_message *m, fl_error *err)
{
    emit(ctx, "message xid=%u %s %d %.*s\n", m->xid, m->prefix, m->transactional, (int)m->len,
         (const char *)m->data);
    return FL_OK;
}
static fl_status on_stream_start(void *ctx, uint32_t xid, bool first, fl_error *err)
{
    emit(ctx, "stream start %u %d\n", xid, first);
    return FL_OK;
}
static fl_status on_stream_stop(void *ctx, fl_error *err)
{
    emit(ctx, "stream stop\n");
    return FL_OK;
}
static fl_status on_stream_commit(void *ctx, const pgcdc_commit *c, fl_error *err)
{
    emit(ctx, "stream commit %u end=%llx\n", c->xid, (unsigned long long)c->end_lsn);
    return FL_OK;
}
static fl_status on_stream_abort(void *ctx, uint32_t xid, uint32_t subxid, fl_error *err)
{
    emit(ctx, "stream abort %u %u\n", xid, subxid);
    return FL_OK;
}

static pgcdc_decoder *new_decoder(uint32_t proto, rec *r)
{
    pgcdc_callbacks cb = {r,
                          on_begin,
                          on_commit,
                          on_relation,
                          on_change,
                          on_truncate,
                          on_origin,
                          on_type,
                          on_message,
                          on_stream_start,
                          on_stream_stop,
                          on_stream_commit,
                          on_stream_abort};
    memset(r, 0, sizeof *r);
    return pgcdc_decoder_new(proto, &cb);
}

static fl_status feed(pgcdc_decoder *d, mb m, fl_error *err)
{
    return pgcdc_decode(d, m.b, m.n, 0x42, err);
}

#define FEED_OK(d, m)                                                                              \
    do {                                                                                           \
        fl_error e_;                                                                               \
        CHECK_OK(feed((d), (m), &e_), &e_);                                                        \
    } while (0)

/* ---- decoding ---- */

static void test_protocol1_events(void)
{
    rec r;
    pgcdc_decoder *d = new_decoder(1, &r);
    FEED_OK(d, msg_begin(7));
    FEED_OK(d, msg_origin());
    FEED_OK(d, msg_type());
    FEED_OK(d, msg_rel_t(0, 'd'));
    FEED_OK(d, msg_rel_u());
    FEED_OK(d, msg_insert(0));
    FEED_OK(d, msg_update(0));
    FEED_OK(d, msg_update('K'));
    FEED_OK(d, msg_update('O'));
    FEED_OK(d, msg_delete('K'));
    FEED_OK(d, msg_delete('O'));
    FEED_OK(d, msg_truncate());
    FEED_OK(d, msg_message());
    CHECK(pgcdc_decoder_in_txn(d));
    FEED_OK(d, msg_commit());
    CHECK(!pgcdc_decoder_in_txn(d));
    CHECK_EQ_STR(r.out, "begin xid=7 final=1007 ts=789\n"
                        "origin upstream abcdef\n"
                        "type 70000 public.mood\n"
                        "rel 16384 public.t d v1 id:23:int:key name:25:string doc:25:string "
                        "amt:1700:decimal(10, 2)\n"
                        "rel 16390 pg_catalog.u f v1 k:20:long:key\n"
                        "I xid=7 t N('1','alice',n,'12.50')\n"
                        "U xid=7 t N('2','bob',u,b2)\n"
                        "U xid=7 t K('1',n,n,n) N('2','bob',u,b2)\n"
                        "U xid=7 t O('1','alice',u,'12.50') N('2','bob',u,b2)\n"
                        "D xid=7 t K('2',n,n,n)\n"
                        "D xid=7 t O('2',n,n,n)\n"
                        "truncate xid=7 flags=3 t u\n"
                        "message xid=7 floe 1 abc\n"
                        "commit xid=7 lsn=2000 end=2010\n");
    const pgcdc_rel *t = pgcdc_decoder_rel(d, 16384);
    CHECK(t && t->ncols == 4 && t->cols[0].key && !t->cols[1].key);
    CHECK(pgcdc_decoder_rel(d, 99) == NULL);
    pgcdc_decoder_free(d);
}

/* A schema change: a second Relation message for the same OID replaces the
 * first (version 2), and later tuples must have the new column count. */
static void test_relation_replaced(void)
{
    rec r;
    fl_error err;
    pgcdc_decoder *d = new_decoder(1, &r);
    FEED_OK(d, msg_begin(8));
    FEED_OK(d, msg_rel_u());
    mb m = {.n = 0};
    u8(&m, 'R'), u32(&m, 16390), str(&m, "s"), str(&m, "u"), u8(&m, 'd'), u16(&m, 2);
    u8(&m, 1), str(&m, "k"), u32(&m, 20), u32(&m, 0xffffffff);
    u8(&m, 0), str(&m, "added"), u32(&m, 1043), u32(&m, 24);
    FEED_OK(d, m);
    const pgcdc_rel *u = pgcdc_decoder_rel(d, 16390);
    CHECK(u && u->version == 2 && u->ncols == 2 && strcmp(u->nspname, "s") == 0);
    mb ins = {.n = 0};
    u8(&ins, 'I'), u32(&ins, 16390), u8(&ins, 'N'), u16(&ins, 1), col_t(&ins, "5");
    CHECK_EQ_INT(feed(d, ins, &err), FL_ECORRUPT);
    CHECK(strstr(err.msg, "tuple has 1 columns, relation s.u has 2") != NULL);
    CHECK(strstr(r.out, "rel 16390 s.u d v2 replaces k:20:long:key added:1043:string\n") != NULL);
    pgcdc_decoder_free(d);
}

static void test_protocol2_stream(void)
{
    rec r;
    pgcdc_decoder *d = new_decoder(2, &r);
    mb s = {.n = 0};
    u8(&s, 'S'), u32(&s, 900), u8(&s, 1);
    FEED_OK(d, s);
    FEED_OK(d, msg_rel_t(901, 'd'));
    FEED_OK(d, msg_insert(901));
    mb e = {.n = 0};
    u8(&e, 'E');
    FEED_OK(d, e);
    /* a normal transaction between stream blocks: no xid prefix */
    FEED_OK(d, msg_begin(5));
    FEED_OK(d, msg_insert(0));
    FEED_OK(d, msg_commit());
    mb c = {.n = 0};
    u8(&c, 'c'), u32(&c, 900), u8(&c, 0), u64(&c, 0x5000), u64(&c, 0x5008), u64(&c, 1);
    FEED_OK(d, c);
    mb a = {.n = 0};
    u8(&a, 'A'), u32(&a, 910), u32(&a, 911);
    FEED_OK(d, a);
    CHECK_EQ_STR(r.out, "stream start 900 1\n"
                        "rel 16384 public.t d v1 id:23:int:key name:25:string doc:25:string "
                        "amt:1700:decimal(10, 2)\n"
                        "I xid=901 t N('1','alice',n,'12.50')\n"
                        "stream stop\n"
                        "begin xid=5 final=1005 ts=789\n"
                        "I xid=5 t N('1','alice',n,'12.50')\n"
                        "commit xid=5 lsn=2000 end=2010\n"
                        "stream commit 900 end=5008\n"
                        "stream abort 910 911\n");
    pgcdc_decoder_free(d);
}

/* ---- malformed input ---- */

typedef struct setup {
    uint32_t proto;
    int nprefix;
    mb prefix[4];
    mb msg;
} setup;

/* Cutting a valid message anywhere must fail cleanly: the message layout has
 * no optional tail, so no proper prefix is itself a valid message. */
static void check_truncations(const setup *s)
{
    for (size_t k = 0; k < s->msg.n; k++) {
        rec r;
        fl_error err;
        pgcdc_decoder *d = new_decoder(s->proto, &r);
        for (int i = 0; i < s->nprefix; i++)
            FEED_OK(d, s->prefix[i]);
        fl_status rc = pgcdc_decode(d, s->msg.b, k, 0x16B3748, &err);
        CHECK_EQ_INT(rc, FL_ECORRUPT);
        if (k > 0) {
            CHECK(strstr(err.msg, pgcdc_msg_name(s->msg.b[0])) != NULL);
            CHECK(strstr(err.msg, "at byte ") != NULL);
            CHECK(strstr(err.msg, "WAL 0/16B3748") != NULL);
        }
        pgcdc_decoder_free(d);
    }
    rec r;
    fl_error err;
    pgcdc_decoder *d = new_decoder(s->proto, &r);
    for (int i = 0; i < s->nprefix; i++)
        FEED_OK(d, s->prefix[i]);
    CHECK_OK(pgcdc_decode(d, s->msg.b, s->msg.n, 1, &err), &err);
    pgcdc_decoder_free(d);
}

static void test_truncated_everywhere(void)
{
    mb b = msg_begin(1), rt = msg_rel_t(0, 'd'), ru = msg_rel_u();
    mb ss = {.n = 0};
    u8(&ss, 'S'), u32(&ss, 3), u8(&ss, 0);
    mb sc = {.n = 0};
    u8(&sc, 'c'), u32(&sc, 3), u8(&sc, 0), u64(&sc, 1), u64(&sc, 2), u64(&sc, 3);
    mb sa = {.n = 0};
    u8(&sa, 'A'), u32(&sa, 3), u32(&sa, 3);
    setup cases[] = {
        {1, 0, {{.n = 0}}, msg_begin(1)}, {1, 1, {b}, msg_commit()},
        {1, 1, {b}, msg_origin()},        {1, 1, {b}, msg_type()},
        {1, 1, {b}, msg_rel_t(0, 'd')},   {1, 2, {b, rt}, msg_insert(0)},
        {1, 2, {b, rt}, msg_update(0)},   {1, 2, {b, rt}, msg_update('K')},
        {1, 2, {b, rt}, msg_update('O')}, {1, 2, {b, rt}, msg_delete('K')},
        {1, 2, {b, rt}, msg_delete('O')}, {1, 3, {b, rt, ru}, msg_truncate()},
        {1, 1, {b}, msg_message()},       {2, 0, {{.n = 0}}, ss},
        {2, 1, {ss}, msg_rel_t(3, 'f')},  {2, 2, {ss, msg_rel_t(3, 'f')}, msg_insert(3)},
        {2, 0, {{.n = 0}}, sc},           {2, 0, {{.n = 0}}, sa},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_truncations(&cases[i]);
}

static fl_status decode_after(uint32_t proto, int nprefix, const mb *prefix, mb m, fl_error *err)
{
    rec r;
    pgcdc_decoder *d = new_decoder(proto, &r);
    for (int i = 0; i < nprefix; i++)
        FEED_OK(d, prefix[i]);
    fl_status rc = feed(d, m, err);
    pgcdc_decoder_free(d);
    return rc;
}

#define EXPECT_ERR(proto, np, pre, m, code, text)                                                  \
    do {                                                                                           \
        fl_error e_;                                                                               \
        CHECK_EQ_INT(decode_after((proto), (np), (pre), (m), &e_), (code));                        \
        if (!strstr(e_.msg, (text))) {                                                             \
            fprintf(stderr, "%s:%d: error '%s' lacks '%s'\n", __FILE__, __LINE__, e_.msg, text);   \
            test_case_failed_ = 1;                                                                 \
        }                                                                                          \
    } while (0)

static void test_bad_counts_and_lengths(void)
{
    mb pre[2] = {msg_begin(1), msg_rel_t(0, 'd')};
    /* a column length of 4 GiB */
    mb m = {.n = 0};
    u8(&m, 'I'), u32(&m, 16384), u8(&m, 'N'), u16(&m, 4);
    col_t(&m, "1");
    u8(&m, 't'), u32(&m, 0xffffffff);
    EXPECT_ERR(1, 2, pre, m, FL_ECORRUPT,
               "pgoutput Insert message at byte 15 (WAL 0/42): column 1 ('name'): length "
               "4294967295 exceeds the 0 bytes left");
    /* 65535 columns in a tuple of a 4-column relation */
    m.n = 0;
    u8(&m, 'I'), u32(&m, 16384), u8(&m, 'N'), u16(&m, 65535);
    EXPECT_ERR(1, 2, pre, m, FL_ECORRUPT, "at byte 6 (WAL 0/42): tuple has 65535 columns");
    /* a relation announcing 65535 columns */
    m.n = 0;
    u8(&m, 'R'), u32(&m, 5), str(&m, "p"), str(&m, "r"), u8(&m, 'd'), u16(&m, 65535);
    EXPECT_ERR(1, 1, pre, m, FL_ECORRUPT, "65535 columns, more than PostgreSQL's 1664");
    m.n = 0;
    u8(&m, 'R'), u32(&m, 5), str(&m, "p"), str(&m, "r"), u8(&m, 'd'), u16(&m, 1000);
    EXPECT_ERR(1, 1, pre, m, FL_ECORRUPT, "1000 columns cannot fit in the 0 bytes left");
    /* a truncate of 2^32-1 relations */
    m.n = 0;
    u8(&m, 'T'), u32(&m, 0xffffffff), u8(&m, 0), u32(&m, 16384);
    EXPECT_ERR(1, 2, pre, m, FL_ECORRUPT, "4294967295 relations cannot fit in the 4 bytes left");
    /* a message with a 4 GiB content length */
    m.n = 0;
    u8(&m, 'M'), u8(&m, 0), u64(&m, 1), str(&m, "x"), u32(&m, 0xfffffff0);
    EXPECT_ERR(1, 0, pre, m, FL_ECORRUPT, "content length 4294967280 exceeds the 0 bytes left");
    /* an unknown datum kind */
    m.n = 0;
    u8(&m, 'I'), u32(&m, 16384), u8(&m, 'N'), u16(&m, 4), u8(&m, 'x');
    EXPECT_ERR(1, 2, pre, m, FL_ECORRUPT,
               "at byte 8 (WAL 0/42): column 0 ('id'): unknown kind 0x78");
    /* trailing bytes */
    m = msg_commit();
    u8(&m, 0);
    EXPECT_ERR(1, 1, pre, m, FL_ECORRUPT,
               "Commit message at byte 26 (WAL 0/42): 1 unexpected bytes");
    /* a string without its NUL */
    m.n = 0;
    u8(&m, 'O'), u64(&m, 1), u8(&m, 'a'), u8(&m, 'b');
    EXPECT_ERR(1, 1, pre, m, FL_ECORRUPT,
               "Origin message at byte 9 (WAL 0/42): origin name: no "
               "terminating NUL");
    /* bad tags and identities */
    m.n = 0;
    u8(&m, 'D'), u32(&m, 16384), u8(&m, 'N');
    EXPECT_ERR(1, 2, pre, m, FL_ECORRUPT,
               "Delete message at byte 5 (WAL 0/42): tuple tag 0x4e, "
               "expected 'K' or 'O'");
    m.n = 0;
    u8(&m, 'I'), u32(&m, 16384), u8(&m, 'K');
    EXPECT_ERR(1, 2, pre, m, FL_ECORRUPT, "expected 'N'");
    m.n = 0;
    u8(&m, 'R'), u32(&m, 5), str(&m, "p"), str(&m, "r"), u8(&m, 'z'), u16(&m, 0);
    EXPECT_ERR(1, 1, pre, m, FL_ECORRUPT, "unknown replica identity 0x7a");
    m.n = 0;
    u8(&m, 'R'), u32(&m, 0), str(&m, "p"), str(&m, "r"), u8(&m, 'd'), u16(&m, 0);
    EXPECT_ERR(1, 1, pre, m, FL_ECORRUPT, "relation OID 0");
    m = msg_commit();
    m.b[1] = 4;
    EXPECT_ERR(1, 1, pre, m, FL_ECORRUPT, "unknown flags 0x04");
    m.n = 0;
    EXPECT_ERR(1, 0, pre, m, FL_ECORRUPT, "empty message");
    m.n = 0;
    u8(&m, 'Z');
    EXPECT_ERR(1, 0, pre, m, FL_ECORRUPT, "unknown type 0x5a");
    m.n = 0;
    u8(&m, 'P');
    EXPECT_ERR(1, 0, pre, m, FL_EUNSUPPORTED, "Prepare message at byte 0: two-phase commit");
}

static void test_out_of_sequence(void)
{
    mb b = msg_begin(1);
    mb pre[2] = {b, msg_rel_t(0, 'd')};
    EXPECT_ERR(1, 1, pre, msg_insert(0), FL_ECORRUPT,
               "Insert message at byte 1 (WAL 0/42): relation OID 16384 was not described");
    EXPECT_ERR(1, 0, pre, msg_insert(0), FL_ECORRUPT,
               "Insert message at byte 0 (WAL 0/42): outside "
               "a transaction");
    EXPECT_ERR(1, 0, pre, msg_commit(), FL_ECORRUPT, "Commit message at byte 0");
    EXPECT_ERR(1, 1, pre, b, FL_ECORRUPT, "Begin without Commit");
    mb s = {.n = 0};
    u8(&s, 'S'), u32(&s, 3), u8(&s, 1);
    EXPECT_ERR(1, 0, pre, s, FL_ECORRUPT, "streamed transactions need protocol version 2");
    mb e = {.n = 0};
    u8(&e, 'E');
    EXPECT_ERR(2, 0, pre, e, FL_ECORRUPT,
               "Stream Stop message at byte 0 (WAL 0/42): no stream block");
    EXPECT_ERR(2, 1, pre, s, FL_ECORRUPT, "inside a transaction or stream block");
    mb m = msg_message();
    EXPECT_ERR(1, 0, pre, m, FL_ECORRUPT, "transactional message outside a transaction");
    m.b[1] = 0; /* non-transactional messages may come outside transactions */
    fl_error err;
    CHECK_OK(decode_after(1, 0, pre, m, &err), &err);
}

static fl_status fail_change(void *ctx, const pgcdc_change *c, fl_error *err)
{
    return fl_errorf(err, FL_EIO, "sink full");
}

static void test_callback_error_stops(void)
{
    pgcdc_callbacks cb = {0};
    cb.on_change = fail_change;
    pgcdc_decoder *d = pgcdc_decoder_new(1, &cb);
    fl_error err;
    CHECK_OK(feed(d, msg_begin(1), &err), &err);
    CHECK_OK(feed(d, msg_rel_t(0, 'd'), &err), &err);
    CHECK_EQ_INT(feed(d, msg_insert(0), &err), FL_EIO);
    CHECK_EQ_STR(err.msg, "sink full");
    pgcdc_decoder_free(d);
}

/* ---- types and values ---- */

static fl_status value_of(uint32_t oid, int32_t typmod, char kind, const char *text, size_t len,
                          fl_arena *a, fl_value *v, fl_error *err)
{
    pgcdc_column col = {"c", oid, typmod, false, {0}, false};
    pgcdc_type_for(oid, typmod, &col.type, &col.exact);
    pgcdc_datum d = {(pgcdc_datum_kind)kind, (const uint8_t *)text, (uint32_t)len};
    return pgcdc_datum_value(&col, &d, a, v, err);
}

#define TEXT_VALUE(oid, typmod, s, v)                                                              \
    CHECK_OK(value_of((oid), (typmod), 't', (s), strlen(s), &a, (v), &err), &err)

static void test_types(void)
{
    struct {
        uint32_t oid;
        int32_t typmod;
        const char *name;
        bool exact;
    } cases[] = {
        {16, -1, "boolean", true},
        {21, -1, "int", true},
        {23, -1, "int", true},
        {20, -1, "long", true},
        {700, -1, "float", true},
        {701, -1, "double", true},
        {1700, (12 << 16 | 3) + 4, "decimal(12, 3)", true},
        {1700, -1, "decimal(38, 18)", false},
        {1700, (40 << 16 | 3) + 4, "string", false},
        {1700, (5 << 16 | 0x7fe) + 4, "string", false}, /* numeric(5,-2) */
        {25, -1, "string", true},
        {1043, 14, "string", true},
        {1042, 9, "string", true},
        {114, -1, "string", true},
        {3802, -1, "string", true},
        {17, -1, "binary", true},
        {1082, -1, "date", true},
        {1083, -1, "time", true},
        {1114, -1, "timestamp", true},
        {1184, -1, "timestamptz", true},
        {2950, -1, "uuid", true},
        {1007, -1, "string", false},
        {600, -1, "string", false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fl_type t;
        bool exact;
        char tn[64];
        pgcdc_type_for(cases[i].oid, cases[i].typmod, &t, &exact);
        fl_type_format(&t, tn, sizeof tn);
        CHECK_EQ_STR(tn, cases[i].name);
        CHECK_EQ_INT(exact, cases[i].exact);
    }
}

static void test_text_values(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_value v;
    TEXT_VALUE(16, -1, "t", &v);
    CHECK(v.v.b == true && !v.is_null);
    TEXT_VALUE(21, -1, "-32768", &v);
    CHECK_EQ_INT(v.v.i32, -32768);
    TEXT_VALUE(20, -1, "9223372036854775807", &v);
    CHECK(v.v.i64 == INT64_MAX);
    TEXT_VALUE(701, -1, "1.5e-300", &v);
    CHECK(v.v.f64 == 1.5e-300);
    TEXT_VALUE(700, -1, "0.1", &v);
    CHECK(v.v.f32 == 0.1f);
    TEXT_VALUE(1700, (10 << 16 | 2) + 4, "-12.50", &v);
    CHECK(v.v.dec == -1250);
    TEXT_VALUE(1700, -1, "1.000000000000000001", &v);
    CHECK(v.v.dec == (fl_i128)1000000000000000001LL);
    CHECK_EQ_INT(value_of(1700, -1, 't', "1.0000000000000000001", 21, &a, &v, &err), FL_EOVERFLOW);
    CHECK(strstr(err.msg, "column 'c': '1.0000000000000000001' has more than 18 fraction digits"));
    CHECK(value_of(1700, -1, 't', "NaN", 3, &a, &v, &err) != FL_OK);
    TEXT_VALUE(25, -1, "héllo", &v);
    CHECK(v.v.bytes.len == 6 && memcmp(v.v.bytes.ptr, "héllo", 6) == 0);
    TEXT_VALUE(17, -1, "\\x00ff", &v);
    CHECK(v.v.bytes.len == 2 && v.v.bytes.ptr[0] == 0 && v.v.bytes.ptr[1] == 0xff);
    TEXT_VALUE(1082, -1, "2000-01-02", &v);
    CHECK_EQ_INT(v.v.i32, 10958);
    TEXT_VALUE(1083, -1, "01:02:03.5", &v);
    CHECK(v.v.i64 == 3723500000LL);
    TEXT_VALUE(1114, -1, "1970-01-01 00:00:01.000001", &v);
    CHECK(v.v.i64 == 1000001);
    TEXT_VALUE(1184, -1, "1970-01-01 01:00:00+01", &v);
    CHECK(v.v.i64 == 0);
    TEXT_VALUE(2950, -1, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", &v);
    CHECK(v.v.bytes.len == 16 && v.v.bytes.ptr[0] == 0xa0 && v.v.bytes.ptr[15] == 0x11);
    TEXT_VALUE(3802, -1, "{\"a\": 1}", &v);
    CHECK(v.v.bytes.len == 8);
    TEXT_VALUE(1007, -1, "{1,2}", &v); /* int4[]: its text */
    CHECK(v.type.id == FL_TYPE_STRING && v.v.bytes.len == 5);
    CHECK_EQ_INT(value_of(23, -1, 't', "2147483648", 10, &a, &v, &err), FL_EOVERFLOW);
    CHECK(strstr(err.msg, "column 'c'") != NULL);
    CHECK_EQ_INT(value_of(1082, -1, 't', "infinity", 8, &a, &v, &err), FL_ESYNTAX);
    CHECK_OK(value_of(23, -1, 'n', NULL, 0, &a, &v, &err), &err);
    CHECK(v.is_null && v.type.id == FL_TYPE_INT32);
    CHECK_EQ_INT(value_of(25, -1, 'u', NULL, 0, &a, &v, &err), FL_EINVAL);
    CHECK(strstr(err.msg, "column 'c': unchanged TOAST") != NULL);
    fl_arena_free(&a);
}

static void test_binary_values(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_value v;
    const char i4[] = {0, 0, 1, 2};
    CHECK_OK(value_of(23, -1, 'b', i4, 4, &a, &v, &err), &err);
    CHECK_EQ_INT(v.v.i32, 258);
    const char i2[] = {(char)0xff, (char)0xfe};
    CHECK_OK(value_of(21, -1, 'b', i2, 2, &a, &v, &err), &err);
    CHECK_EQ_INT(v.v.i32, -2);
    const char ts[] = {0, 0, 0, 0, 0, 0, 0, 1}; /* 2000-01-01 00:00:00.000001 */
    CHECK_OK(value_of(1184, -1, 'b', ts, 8, &a, &v, &err), &err);
    CHECK(v.v.i64 == FL_PG_EPOCH_US + 1);
    const char dt[] = {(char)0xff, (char)0xff, (char)0xff, (char)0xff};
    CHECK_OK(value_of(1082, -1, 'b', dt, 4, &a, &v, &err), &err);
    CHECK_EQ_INT(v.v.i32, 10956);
    const char jb[] = {1, '[', ']'};
    CHECK_OK(value_of(3802, -1, 'b', jb, 3, &a, &v, &err), &err);
    CHECK(v.v.bytes.len == 2 && v.v.bytes.ptr[0] == '[');
    CHECK_EQ_INT(value_of(23, -1, 'b', i4, 3, &a, &v, &err), FL_ECORRUPT);
    CHECK_EQ_INT(value_of(1700, -1, 'b', i4, 4, &a, &v, &err), FL_EUNSUPPORTED);
    fl_arena_free(&a);
}

static void test_lsn(void)
{
    char buf[24];
    pgcdc_lsn l;
    CHECK_EQ_STR(pgcdc_lsn_format(0x16B3748ULL | (3ULL << 32), buf), "3/16B3748");
    CHECK(pgcdc_lsn_parse("3/16B3748", &l) && l == (0x16B3748ULL | (3ULL << 32)));
    CHECK(pgcdc_lsn_parse("0/0", &l) && l == 0);
    CHECK(!pgcdc_lsn_parse("3/16B3748x", &l));
    CHECK(!pgcdc_lsn_parse("316B3748", &l));
    CHECK(!pgcdc_lsn_parse(NULL, &l));
}

/* publication_names: a list of quoted identifiers, whatever the names hold */
static void test_publication_list(void)
{
    fl_buf b;
    fl_error err;
    fl_buf_init(&b, 0);
    CHECK_OK(pgcdc_pq_publications(" a , b\"c,Mixed'q", &b, &err), &err);
    CHECK_EQ_STR(b.data, "\"a\",\"b\"\"c\",\"Mixed'q\"");
    fl_buf_reset(&b);
    CHECK_EQ_INT(pgcdc_pq_publications("a,,b", &b, &err), FL_EINVAL);
    CHECK(strstr(err.msg, "empty publication name") != NULL);
    CHECK_EQ_INT(pgcdc_pq_publications("", &b, &err), FL_EINVAL);
    CHECK_EQ_INT(pgcdc_pq_publications(NULL, &b, &err), FL_EINVAL);
    fl_buf_free(&b);
}

/* With FLOE_PGOUTPUT_SEED_DIR set, writes the fuzz target's seeds
 * (fuzz/seeds/fuzz_pgoutput/ holds their output): message sequences in
 * its input format, byte 0 the protocol, then 2-byte lengths. */
static void write_seed(const char *dir, const char *name, uint8_t proto, const mb *msgs, int n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        return;
    fputc(proto, f);
    for (int i = 0; i < n; i++) {
        fputc((int)(msgs[i].n >> 8), f);
        fputc((int)(msgs[i].n & 0xff), f);
        fwrite(msgs[i].b, 1, msgs[i].n, f);
    }
    fclose(f);
}

static void write_seeds(void)
{
    const char *dir = getenv("FLOE_PGOUTPUT_SEED_DIR");
    if (!dir || !*dir)
        return;
    mb v1[] = {msg_begin(7),    msg_origin(),   msg_type(),      msg_rel_t(0, 'd'), msg_rel_u(),
               msg_insert(0),   msg_update(0),  msg_update('K'), msg_update('O'),   msg_delete('K'),
               msg_delete('O'), msg_truncate(), msg_message(),   msg_commit()};
    write_seed(dir, "v1_all_kinds", 0, v1, (int)(sizeof v1 / sizeof v1[0]));
    mb s = {.n = 0}, e = {.n = 0}, c = {.n = 0}, a = {.n = 0};
    u8(&s, 'S'), u32(&s, 900), u8(&s, 1);
    u8(&e, 'E');
    u8(&c, 'c'), u32(&c, 900), u8(&c, 0), u64(&c, 0x5000), u64(&c, 0x5008), u64(&c, 1);
    u8(&a, 'A'), u32(&a, 910), u32(&a, 911);
    mb v2[] = {
        s, msg_rel_t(901, 'd'), msg_insert(901), e, msg_begin(5), msg_insert(0), msg_commit(), c,
        a};
    write_seed(dir, "v2_stream", 1, v2, (int)(sizeof v2 / sizeof v2[0]));
    fprintf(stderr, "seeds written to %s\n", dir);
}

int main(void)
{
    write_seeds();
    TEST_RUN(test_protocol1_events);
    TEST_RUN(test_relation_replaced);
    TEST_RUN(test_protocol2_stream);
    TEST_RUN(test_truncated_everywhere);
    TEST_RUN(test_bad_counts_and_lengths);
    TEST_RUN(test_out_of_sequence);
    TEST_RUN(test_callback_error_stops);
    TEST_RUN(test_types);
    TEST_RUN(test_text_values);
    TEST_RUN(test_binary_values);
    TEST_RUN(test_lsn);
    TEST_RUN(test_publication_list);
    return TEST_EXIT();
}
