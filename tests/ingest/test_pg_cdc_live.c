/*
 * test_pg_cdc_live.c - the CDC protocol layer against a real PostgreSQL
 * (wal_level=logical) named by FLOE_TEST_PG_URL; tests/interop/
 * test_pg_cdc_live.sh starts a throwaway Debian PostgreSQL 15 for it.
 * Without the variable: exit 77 (skipped).
 *
 * One scenario, each step checked against the exact event stream expected:
 *   1. three tables (a primary key, a wide one with every mapped type, a
 *      REPLICA IDENTITY FULL one without a key) in one publication;
 *   2. a slot created through pgcdc_repl with an exported snapshot; a row
 *      inserted right after the slot was created must be in the stream and
 *      not in the snapshot, which is read through pgcdc_snapshot;
 *   3. inserts, updates (key kept, key changed, a 10 kB TOASTed column left
 *      unchanged: 'u'), deletes (old key 'K', old tuple 'O'), ALTER TABLE ADD
 *      COLUMN (a second Relation message), TRUNCATE; every value goes through
 *      pgcdc_datum_value;
 *   4. the end_lsn of the 4th transaction is confirmed, the connection
 *      closed: the slot's confirmed_flush_lsn is exactly that, and a restart
 *      from it re-delivers exactly transactions 5.. (same xids, same changes).
 * Then protocol 2 with streaming: a transaction larger than
 * logical_decoding_work_mem (set to 64 kB) arrives in stream blocks before
 * its Stream Commit, a rolled-back one ends in Stream Abort.
 */
#include <inttypes.h>
#include <libpq-fe.h>
#include <poll.h>
#include <time.h>

#include "floe/buf.h"
#include "ingest/pg_cdc.h"
#include "test.h"

#define SLOT "floe_test_slot"
#define PUB "floe_pub"
#define MAX_TXNS 64

typedef struct txn {
    uint32_t xid;
    pgcdc_lsn end_lsn;
    char *changes; /* the change lines of the transaction */
} txn;

typedef struct rec {
    fl_buf log; /* every event, relation descriptions included */
    fl_buf cur; /* changes of the open transaction */
    txn txns[MAX_TXNS];
    int ntxn;
    bool marker_seen, marker_committed;
    fl_arena vals;
} rec;

static void rec_init(rec *r)
{
    memset(r, 0, sizeof *r);
    fl_arena_init(&r->vals, 0);
}

static void rec_free(rec *r)
{
    for (int i = 0; i < r->ntxn; i++)
        free(r->txns[i].changes);
    fl_buf_free(&r->log);
    fl_buf_free(&r->cur);
    fl_arena_free(&r->vals);
}

static fl_status render_value(fl_buf *b, const pgcdc_column *col, const pgcdc_datum *d, fl_arena *a,
                              fl_error *err)
{
    if (d->kind == PGCDC_UNCHANGED)
        return fl_buf_puts(b, "unchanged", err);
    fl_value v;
    FL_TRY(pgcdc_datum_value(col, d, a, &v, err));
    if (v.is_null)
        return fl_buf_puts(b, "null", err);
    switch (v.type.id) {
    case FL_TYPE_BOOLEAN: return fl_buf_puts(b, v.v.b ? "true" : "false", err);
    case FL_TYPE_INT32:
    case FL_TYPE_DATE: return fl_buf_appendf(b, err, "%d", v.v.i32);
    case FL_TYPE_INT64:
    case FL_TYPE_TIME:
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ: return fl_buf_appendf(b, err, "%" PRId64, v.v.i64);
    case FL_TYPE_FLOAT32: return fl_buf_appendf(b, err, "%g", (double)v.v.f32);
    case FL_TYPE_FLOAT64: return fl_buf_appendf(b, err, "%g", v.v.f64);
    case FL_TYPE_DECIMAL: {
        char digits[48];
        int k = sizeof digits;
        digits[--k] = 0;
        unsigned __int128 u =
            v.v.dec < 0 ? -(unsigned __int128)v.v.dec : (unsigned __int128)v.v.dec;
        do {
            digits[--k] = (char)('0' + (int)(u % 10));
            u /= 10;
        } while (u);
        return fl_buf_appendf(b, err, "%s%se-%d", v.v.dec < 0 ? "-" : "", digits + k, v.type.scale);
    }
    case FL_TYPE_STRING:
        if (v.v.bytes.len > 40)
            return fl_buf_appendf(b, err, "<%zu bytes>", v.v.bytes.len);
        return fl_buf_appendf(b, err, "'%.*s'", (int)v.v.bytes.len, (const char *)v.v.bytes.ptr);
    default:
        FL_TRY(fl_buf_puts(b, "x", err));
        for (size_t i = 0; i < v.v.bytes.len; i++)
            FL_TRY(fl_buf_appendf(b, err, "%02x", v.v.bytes.ptr[i]));
        return FL_OK;
    }
}

static fl_status render_tuple(fl_buf *b, const pgcdc_rel *rel, const pgcdc_tuple *t, fl_arena *a,
                              fl_error *err)
{
    for (uint16_t i = 0; i < t->ncols; i++) {
        if (t->cols[i].kind == PGCDC_NULL && i > 0)
            continue; /* keep lines short: nulls after the first column are left out */
        FL_TRY(fl_buf_appendf(b, err, " %s=", rel->cols[i].name));
        FL_TRY(render_value(b, &rel->cols[i], &t->cols[i], a, err));
    }
    return FL_OK;
}

static fl_status on_change(void *ctx, const pgcdc_change *c, fl_error *err)
{
    rec *r = ctx;
    fl_buf line;
    fl_buf_init(&line, 0);
    fl_status rc = fl_buf_appendf(&line, err, "%c %s", (char)c->kind, c->rel->relname);
    if (rc == FL_OK && c->old_tuple) {
        rc = fl_buf_appendf(&line, err, " %c:", c->old_kind);
        if (rc == FL_OK)
            rc = render_tuple(&line, c->rel, c->old_tuple, &r->vals, err);
    }
    if (rc == FL_OK && c->new_tuple) {
        rc = fl_buf_puts(&line, " N:", err);
        if (rc == FL_OK)
            rc = render_tuple(&line, c->rel, c->new_tuple, &r->vals, err);
    }
    if (rc == FL_OK)
        rc = fl_buf_putc(&line, '\n', err);
    if (rc == FL_OK)
        rc = fl_buf_puts(&r->cur, line.data, err);
    if (rc == FL_OK)
        rc = fl_buf_puts(&r->log, line.data, err);
    if (rc == FL_OK && strcmp(line.data, "I evt N: id=999\n") == 0)
        r->marker_seen = true;
    fl_buf_free(&line);
    fl_arena_reset(&r->vals);
    return rc;
}

static fl_status on_relation(void *ctx, const pgcdc_rel *rel, const pgcdc_rel *old, fl_error *err)
{
    rec *r = ctx;
    FL_TRY(fl_buf_appendf(&r->log, err, "relation %s.%s %c v%u", rel->nspname, rel->relname,
                          rel->replident, rel->version));
    for (uint16_t i = 0; i < rel->ncols; i++) {
        char tn[64];
        fl_type_format(&rel->cols[i].type, tn, sizeof tn);
        FL_TRY(fl_buf_appendf(&r->log, err, " %s:%s%s", rel->cols[i].name, tn,
                              rel->cols[i].key ? ":key" : ""));
    }
    return fl_buf_putc(&r->log, '\n', err);
}

static fl_status on_begin(void *ctx, const pgcdc_begin *b, fl_error *err)
{
    rec *r = ctx;
    fl_buf_reset(&r->cur);
    FL_TRY(fl_buf_puts(&r->cur, "", err));
    return fl_buf_puts(&r->log, "begin\n", err);
}

static fl_status on_commit(void *ctx, const pgcdc_commit *c, fl_error *err)
{
    rec *r = ctx;
    if (r->ntxn == MAX_TXNS)
        return fl_errorf(err, FL_ELIMIT, "test: more than %d transactions", MAX_TXNS);
    txn *t = &r->txns[r->ntxn++];
    t->xid = c->xid;
    t->end_lsn = c->end_lsn;
    t->changes = strdup(r->cur.data ? r->cur.data : "");
    if (r->marker_seen)
        r->marker_committed = true;
    return fl_buf_puts(&r->log, "commit\n", err);
}

static fl_status on_truncate(void *ctx, const pgcdc_truncate *t, fl_error *err)
{
    rec *r = ctx;
    for (uint32_t i = 0; i < t->nrels; i++) {
        FL_TRY(fl_buf_appendf(&r->cur, err, "T %s flags=%u\n", t->rels[i]->relname, t->flags));
        FL_TRY(fl_buf_appendf(&r->log, err, "T %s flags=%u\n", t->rels[i]->relname, t->flags));
    }
    return FL_OK;
}

static pgcdc_callbacks callbacks(rec *r)
{
    pgcdc_callbacks cb = {0};
    cb.ctx = r;
    cb.on_begin = on_begin;
    cb.on_commit = on_commit;
    cb.on_relation = on_relation;
    cb.on_change = on_change;
    cb.on_truncate = on_truncate;
    return cb;
}

/* ---- the source database ---- */

static PGconn *db;

static bool sql(const char *q)
{
    PGresult *r = PQexec(db, q);
    ExecStatusType st = PQresultStatus(r);
    bool ok = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
    if (!ok)
        fprintf(stderr, "%s: %s\n", q, PQerrorMessage(db));
    PQclear(r);
    return ok;
}

static const char *setup_sql[] = {
    "CREATE TABLE acct (id int PRIMARY KEY, name text, big text, amt numeric(12,2), "
    "ts timestamptz, flag bool)",
    "ALTER TABLE acct ALTER COLUMN big SET STORAGE EXTERNAL", /* out of line, uncompressed */
    "CREATE TABLE evt (id bigint PRIMARY KEY, payload jsonb, d date, u uuid, b bytea, "
    "f float8, r real, s smallint, v varchar(10), c char(3), t time, tsn timestamp, n numeric)",
    "CREATE TABLE full_t (k int, v text)",
    "ALTER TABLE full_t REPLICA IDENTITY FULL",
    "INSERT INTO acct VALUES (1, 'alice', repeat('abcdefghij', 1000), 12.50, NULL, true), "
    "(2, 'bob', NULL, 5.00, '2024-01-02 03:04:05.5+02', false), (3, 'carol', 'short', -0.01, "
    "NULL, NULL)",
    "INSERT INTO full_t VALUES (1, 'one'), (2, 'two')",
    "CREATE PUBLICATION " PUB " FOR TABLE acct, evt, full_t",
};

/* The transactions after the snapshot; the first runs before the snapshot
 * is read. One statement per transaction unless it says BEGIN. */
static const char *workload_sql[] = {
    "INSERT INTO acct VALUES (4, 'dave', NULL, 1.5, NULL, true)",
    "UPDATE acct SET amt = amt + 1 WHERE id = 1",
    "UPDATE acct SET id = 10 WHERE id = 2",
    "DELETE FROM acct WHERE id = 3",
    "BEGIN; UPDATE full_t SET v = 'uno' WHERE k = 1; DELETE FROM full_t WHERE k = 2; COMMIT",
    "INSERT INTO evt VALUES (1, '{\"a\": [1, 2]}', '2024-01-02', "
    "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '\\x00ff', 1.5, 0.25, -7, 'hi', 'ab', "
    "'01:02:03.5', '2024-01-02 03:04:05', 123.456789)",
    "ALTER TABLE acct ADD COLUMN note text",
    "INSERT INTO acct (id, name, note) VALUES (5, 'eve', 'added')",
    "UPDATE acct SET note = 'n1' WHERE id = 1",
    "TRUNCATE full_t",
    "INSERT INTO evt (id) VALUES (999)",
};

static const char *expected_snapshot =
    "relation public.acct d v1 id:int:key name:string big:string amt:decimal(12, 2) "
    "ts:timestamptz flag:boolean\n"
    "I acct N: id=1 name='alice' big=<10000 bytes> amt=1250e-2 flag=true\n"
    "I acct N: id=2 name='bob' amt=500e-2 ts=1704157445500000 flag=false\n"
    "I acct N: id=3 name='carol' big='short' amt=-1e-2\n"
    "relation public.evt d v1 id:long:key payload:string d:date u:uuid b:binary f:double "
    "r:float s:int v:string c:string t:time tsn:timestamp n:decimal(38, 18)\n"
    "relation public.full_t f v1 k:int:key v:string:key\n"
    "I full_t N: k=1 v='one'\n"
    "I full_t N: k=2 v='two'\n";

/* Transactions as they come: their change lines. */
static const char *expected_txns[] = {
    "I acct N: id=4 name='dave' amt=150e-2 flag=true\n",
    "U acct N: id=1 name='alice' big=unchanged amt=1350e-2 flag=true\n",
    "U acct K: id=2 N: id=10 name='bob' amt=500e-2 ts=1704157445500000 flag=false\n",
    "D acct K: id=3\n",
    "U full_t O: k=1 v='one' N: k=1 v='uno'\n"
    "D full_t O: k=2 v='two'\n",
    "I evt N: id=1 payload='{\"a\": [1, 2]}' d=19724 u=xa0eebc999c0b4ef8bb6d6bb9bd380a11 b=x00ff "
    "f=1.5 r=0.25 s=-7 v='hi' c='ab ' t=3723500000 tsn=1704164645000000 "
    "n=123456789000000000000e-18\n",
    "I acct N: id=5 name='eve' note='added'\n",
    "U acct N: id=1 name='alice' big=unchanged amt=1350e-2 flag=true note='n1'\n",
    "T full_t flags=0\n",
    "I evt N: id=999\n",
};
#define NTXNS (sizeof expected_txns / sizeof expected_txns[0])

/* Milliseconds on the monotonic clock. Waiting loops end at a deadline, not
 * after a number of polls: a poll returns as soon as any message arrives, so
 * a large transaction can take thousands of them. */
static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Polls until the marker's transaction has committed (at most ~60 s of
 * waiting, so a broken server fails the test instead of hanging it). */
static bool stream_until_marker(pgcdc_repl *r, rec *log, int timeout_ms)
{
    for (int64_t end = now_ms() + 60000; !log->marker_committed && now_ms() < end;) {
        size_t n;
        fl_error err;
        if (timeout_ms == 0) /* the caller's own wait between non-blocking polls */
            poll(NULL, 0, 100);
        if (pgcdc_repl_poll(r, timeout_ms, &n, &err) != FL_OK) {
            fprintf(stderr, "poll: %s\n", err.msg);
            return false;
        }
    }
    return log->marker_committed;
}

static pgcdc_repl_options repl_options(const char *url)
{
    pgcdc_repl_options o = {0};
    o.conninfo = url;
    o.slot = SLOT;
    o.publications = PUB;
    o.proto_version = 1;
    o.status_interval_ms = 1000;
    return o;
}

static void read_snapshot(const char *url, const char *name, rec *snap)
{
    pgcdc_snapshot *s = NULL;
    fl_error err;
    CHECK_OK(pgcdc_snapshot_open(url, name, &s, &err), &err);
    if (!s)
        return;
    const pgcdc_table *tables = NULL;
    size_t n = 0;
    CHECK_OK(pgcdc_snapshot_tables(s, PUB, &tables, &n, &err), &err);
    CHECK_EQ_INT(n, 3);
    pgcdc_callbacks cb = callbacks(snap);
    for (size_t i = 0; i < n; i++)
        CHECK_OK(pgcdc_snapshot_read(s, tables[i].nspname, tables[i].relname, &cb, &err), &err);
    pgcdc_snapshot_close(s);
    CHECK_EQ_STR(snap->log.data, expected_snapshot);
}

static void check_txns(const rec *got, size_t from)
{
    CHECK_EQ_INT(got->ntxn, NTXNS - from);
    for (int i = 0; i < got->ntxn && from + (size_t)i < NTXNS; i++)
        CHECK_EQ_STR(got->txns[i].changes, expected_txns[from + (size_t)i]);
}

static void test_cdc(const char *url)
{
    fl_error err;
    for (size_t i = 0; i < sizeof setup_sql / sizeof setup_sql[0]; i++)
        CHECK(sql(setup_sql[i]));
    pgcdc_repl *r = NULL;
    pgcdc_repl_options o = repl_options(url);
    CHECK_OK(pgcdc_repl_connect(&o, &r, &err), &err);
    if (!r)
        return;
    CHECK(strlen(pgcdc_repl_system(r)->systemid) > 0 && pgcdc_repl_system(r)->timeline >= 1);
    CHECK_EQ_STR(pgcdc_repl_system(r)->dbname, "postgres");
    pgcdc_slot slot;
    CHECK_OK(pgcdc_repl_create_slot(r, false, &slot, &err), &err);
    CHECK_EQ_STR(slot.name, SLOT);
    CHECK(slot.consistent_point > 0 && slot.snapshot[0]);
    CHECK(sql(workload_sql[0])); /* after the slot's snapshot: in the stream only */
    rec snap;
    rec_init(&snap);
    read_snapshot(url, slot.snapshot, &snap);
    rec_free(&snap);

    rec first;
    rec_init(&first);
    pgcdc_callbacks cb = callbacks(&first);
    pgcdc_decoder *dec = pgcdc_decoder_new(1, &cb);
    CHECK_OK(pgcdc_repl_start(r, slot.consistent_point, dec, &err), &err);
    for (size_t i = 1; i < sizeof workload_sql / sizeof workload_sql[0]; i++)
        CHECK(sql(workload_sql[i]));
    if (!stream_until_marker(r, &first, 100)) {
        fprintf(stderr, "stream so far:\n%s", first.log.data);
        CHECK(false);
    }
    check_txns(&first, 0);
    /* the schema change shows as a second description of acct before its first use */
    CHECK(strstr(first.log.data, "relation public.acct d v2 id:int:key name:string big:string "
                                 "amt:decimal(12, 2) ts:timestamptz flag:boolean note:string\n"
                                 "I acct N: id=5") != NULL);
    /* confirm the 4th transaction only, as a sink would after its Iceberg commit */
    pgcdc_lsn confirmed = first.ntxn >= 4 ? first.txns[3].end_lsn : 0;
    CHECK_OK(pgcdc_repl_confirm(r, confirmed, &err), &err);
    CHECK(pgcdc_repl_confirmed(r) == confirmed);
    CHECK(pgcdc_repl_received(r) >= first.txns[first.ntxn - 1].end_lsn);
    pgcdc_repl_close(r);
    pgcdc_decoder_free(dec);

    /* restart from the confirmed LSN: exactly the unconfirmed transactions again */
    r = NULL;
    CHECK_OK(pgcdc_repl_connect(&o, &r, &err), &err);
    if (!r) {
        rec_free(&first);
        return;
    }
    pgcdc_lsn on_server = 0;
    CHECK_OK(pgcdc_repl_slot_confirmed(r, &on_server, &err), &err);
    char a[24], b[24];
    if (on_server != confirmed)
        fprintf(stderr, "slot confirmed %s, expected %s\n", pgcdc_lsn_format(on_server, a),
                pgcdc_lsn_format(confirmed, b));
    CHECK(on_server == confirmed);
    rec again;
    rec_init(&again);
    cb = callbacks(&again);
    dec = pgcdc_decoder_new(1, &cb);
    CHECK_OK(pgcdc_repl_start(r, confirmed, dec, &err), &err);
    CHECK(stream_until_marker(r, &again, 0)); /* non-blocking polls */
    check_txns(&again, 4);
    for (int i = 0; i < again.ntxn && 4 + i < first.ntxn; i++) {
        CHECK_EQ_INT(again.txns[i].xid, first.txns[4 + i].xid);
        CHECK(again.txns[i].end_lsn == first.txns[4 + i].end_lsn);
    }
    /* nothing more is pending: a poll returns with no message */
    size_t n = 1;
    CHECK_OK(pgcdc_repl_poll(r, 200, &n, &err), &err);
    CHECK_EQ_INT(n, 0);
    pgcdc_repl_close(r);
    pgcdc_decoder_free(dec);
    rec_free(&again);
    rec_free(&first);

    /* commands on a streaming connection are refused; the slot can be dropped */
    r = NULL;
    CHECK_OK(pgcdc_repl_connect(&o, &r, &err), &err);
    if (r) {
        CHECK_OK(pgcdc_repl_drop_slot(r, &err), &err);
        CHECK_EQ_INT(pgcdc_repl_slot_confirmed(r, &on_server, &err), FL_ENOTFOUND);
        pgcdc_repl_close(r);
    }
}

static void test_bad_options(const char *url)
{
    pgcdc_repl_options o = repl_options(url);
    pgcdc_repl *r = NULL;
    fl_error err;
    o.slot = "Bad-Name";
    CHECK_EQ_INT(pgcdc_repl_connect(&o, &r, &err), FL_EINVAL);
    CHECK(strstr(err.msg, "replication slot name 'Bad-Name'") != NULL);
    o = repl_options(url);
    o.proto_version = 3;
    CHECK_EQ_INT(pgcdc_repl_connect(&o, &r, &err), FL_EINVAL);
    o = repl_options(url);
    o.slot = "no_such_slot";
    CHECK_OK(pgcdc_repl_connect(&o, &r, &err), &err);
    if (r) {
        pgcdc_decoder *dec = pgcdc_decoder_new(1, NULL);
        CHECK_EQ_INT(pgcdc_repl_start(r, 0, dec, &err), FL_EIO);
        CHECK(strstr(err.msg, "no_such_slot") != NULL);
        pgcdc_repl_close(r);
        pgcdc_decoder_free(dec);
    }
    o = repl_options("host=127.0.0.1 port=1 connect_timeout=2");
    CHECK_EQ_INT(pgcdc_repl_connect(&o, &r, &err), FL_EIO);
    CHECK(strstr(err.msg, "postgres: connect:") != NULL);
}

/* ---- protocol 2: a transaction larger than logical_decoding_work_mem is
 * streamed before it commits ---- */

typedef struct stream_rec {
    uint32_t stream_xid; /* of the open block */
    int blocks, streamed_inserts, other_inserts, commits, stream_commits, stream_aborts;
    uint32_t committed_xid, aborted_xid;
    bool bad_xid;
} stream_rec;

static fl_status s_start(void *ctx, uint32_t xid, bool first, fl_error *err)
{
    stream_rec *r = ctx;
    r->stream_xid = xid;
    r->blocks++;
    return FL_OK;
}
static fl_status s_stop(void *ctx, fl_error *err)
{
    ((stream_rec *)ctx)->stream_xid = 0;
    return FL_OK;
}
static fl_status s_change(void *ctx, const pgcdc_change *c, fl_error *err)
{
    stream_rec *r = ctx;
    if (r->stream_xid) {
        r->streamed_inserts += c->kind == PGCDC_INSERT;
        r->bad_xid |= c->xid != r->stream_xid; /* no subtransactions here */
    } else {
        r->other_inserts += c->kind == PGCDC_INSERT;
    }
    return FL_OK;
}
static fl_status s_commit(void *ctx, const pgcdc_commit *c, fl_error *err)
{
    ((stream_rec *)ctx)->commits++;
    return FL_OK;
}
static fl_status s_stream_commit(void *ctx, const pgcdc_commit *c, fl_error *err)
{
    stream_rec *r = ctx;
    r->stream_commits++;
    r->committed_xid = c->xid;
    return FL_OK;
}
static fl_status s_stream_abort(void *ctx, uint32_t xid, uint32_t subxid, fl_error *err)
{
    stream_rec *r = ctx;
    r->stream_aborts++;
    r->aborted_xid = xid;
    return FL_OK;
}

static void test_streaming(const char *url)
{
    fl_error err;
    CHECK(sql("ALTER SYSTEM SET logical_decoding_work_mem = '64kB'"));
    CHECK(sql("SELECT pg_reload_conf()"));
    /* the reload is asynchronous: wait until new backends (the walsender
     * will be one) start with the setting */
    bool set = false;
    for (int i = 0; i < 100 && !set; i++) {
        PGconn *c = PQconnectdb(url);
        PGresult *r = PQexec(c, "SHOW logical_decoding_work_mem");
        set = PQresultStatus(r) == PGRES_TUPLES_OK && strcmp(PQgetvalue(r, 0, 0), "64kB") == 0;
        PQclear(r);
        PQfinish(c);
        if (!set)
            poll(NULL, 0, 50);
    }
    CHECK(set);
    CHECK(sql("CREATE TABLE big (id int PRIMARY KEY, pad text)"));
    CHECK(sql("CREATE PUBLICATION big_pub FOR TABLE big"));
    pgcdc_repl_options o = repl_options(url);
    o.slot = "floe_test_stream";
    o.publications = "big_pub";
    o.proto_version = 2;
    o.streaming = true;
    pgcdc_repl *r = NULL;
    CHECK_OK(pgcdc_repl_connect(&o, &r, &err), &err);
    if (!r)
        return;
    pgcdc_slot slot;
    CHECK_OK(pgcdc_repl_create_slot(r, true, &slot, &err), &err);
    stream_rec rec = {0};
    pgcdc_callbacks cb = {0};
    cb.ctx = &rec;
    cb.on_stream_start = s_start;
    cb.on_stream_stop = s_stop;
    cb.on_change = s_change;
    cb.on_commit = s_commit;
    cb.on_stream_commit = s_stream_commit;
    cb.on_stream_abort = s_stream_abort;
    pgcdc_decoder *dec = pgcdc_decoder_new(2, &cb);
    CHECK_OK(pgcdc_repl_start(r, slot.consistent_point, dec, &err), &err);
    /* 3000 rows of ~100 bytes: several times the 64 kB budget */
    CHECK(sql("INSERT INTO big SELECT g, repeat('p', 100) FROM generate_series(1, 3000) g"));
    CHECK(sql("BEGIN; INSERT INTO big SELECT g, repeat('q', 100) FROM generate_series(5001, "
              "8000) g; ROLLBACK"));
    CHECK(sql("INSERT INTO big VALUES (0, 'small')")); /* not streamed */
    for (int64_t end = now_ms() + 60000; rec.commits < 1 && now_ms() < end;) {
        size_t n;
        if (pgcdc_repl_poll(r, 100, &n, &err) != FL_OK) {
            fprintf(stderr, "poll: %s\n", err.msg);
            break;
        }
    }
    CHECK_EQ_INT(rec.stream_commits, 1);
    CHECK_EQ_INT(rec.commits, 1);
    CHECK_EQ_INT(rec.other_inserts, 1);
    CHECK(rec.blocks >= 2);
    CHECK(!rec.bad_xid);
    CHECK(rec.committed_xid != 0);
    /* The rolled-back transaction: PostgreSQL streams it and then sends a
     * stream abort, unless the decoder already saw its abort when the memory
     * limit was reached, in which case it drops it unstreamed (a race with the
     * walsender; seen under load). Either way none of its rows commit. */
    CHECK(rec.stream_aborts == 0 || rec.stream_aborts == 1);
    if (rec.stream_aborts == 1) {
        CHECK(rec.aborted_xid != 0 && rec.committed_xid != rec.aborted_xid);
        /* every committed row came streamed; the aborted ones may have been streamed in part */
        CHECK(rec.streamed_inserts >= 3000 && rec.streamed_inserts <= 6000);
    } else {
        CHECK_EQ_INT(rec.streamed_inserts, 3000);
    }
    pgcdc_repl_close(r);
    pgcdc_decoder_free(dec);
}

/* A partitioned table published through its root: the snapshot reads the
 * rows of every partition under the root's name, and the stream reports a
 * change in a partition as a change of the root. */
static void test_partitioned(const char *url)
{
    fl_error err;
    CHECK(sql("CREATE TABLE part (id int PRIMARY KEY, v text) PARTITION BY RANGE (id)"));
    CHECK(sql("CREATE TABLE part_1 PARTITION OF part FOR VALUES FROM (0) TO (100)"));
    CHECK(sql("CREATE TABLE part_2 PARTITION OF part FOR VALUES FROM (100) TO (200)"));
    CHECK(sql("INSERT INTO part VALUES (1, 'a'), (150, 'b')"));
    CHECK(sql("CREATE PUBLICATION part_pub FOR TABLE part WITH (publish_via_partition_root)"));
    pgcdc_repl_options o = repl_options(url);
    o.slot = "floe_test_part";
    o.publications = "part_pub";
    pgcdc_repl *r = NULL;
    CHECK_OK(pgcdc_repl_connect(&o, &r, &err), &err);
    if (!r)
        return;
    pgcdc_slot slot;
    CHECK_OK(pgcdc_repl_create_slot(r, true, &slot, &err), &err);
    rec snap;
    rec_init(&snap);
    pgcdc_snapshot *s = NULL;
    CHECK_OK(pgcdc_snapshot_open(url, slot.snapshot, &s, &err), &err);
    const pgcdc_table *tables = NULL;
    size_t n = 0;
    if (s) {
        CHECK_OK(pgcdc_snapshot_tables(s, "part_pub", &tables, &n, &err), &err);
        CHECK(n == 1 && strcmp(tables[0].relname, "part") == 0);
        pgcdc_callbacks cb = callbacks(&snap);
        if (n == 1)
            CHECK_OK(pgcdc_snapshot_read(s, tables[0].nspname, tables[0].relname, &cb, &err), &err);
        pgcdc_snapshot_close(s);
    }
    CHECK_EQ_STR(snap.log.data, "relation public.part d v1 id:int:key v:string\n"
                                "I part N: id=1 v='a'\n"
                                "I part N: id=150 v='b'\n");
    rec_free(&snap);
    rec got;
    rec_init(&got);
    pgcdc_callbacks cb = callbacks(&got);
    pgcdc_decoder *dec = pgcdc_decoder_new(1, &cb);
    CHECK_OK(pgcdc_repl_start(r, slot.consistent_point, dec, &err), &err);
    CHECK(sql("INSERT INTO part VALUES (160, 'c')"));
    CHECK(sql("INSERT INTO evt (id) VALUES (998)")); /* not in part_pub: no event */
    CHECK(sql("UPDATE part SET v = 'd' WHERE id = 1"));
    for (int64_t end = now_ms() + 60000; got.ntxn < 2 && now_ms() < end;) {
        size_t k;
        if (pgcdc_repl_poll(r, 100, &k, &err) != FL_OK)
            break;
    }
    CHECK_EQ_INT(got.ntxn, 2);
    if (got.ntxn == 2) {
        CHECK_EQ_STR(got.txns[0].changes, "I part N: id=160 v='c'\n");
        CHECK_EQ_STR(got.txns[1].changes, "U part N: id=1 v='d'\n");
    }
    pgcdc_repl_close(r);
    pgcdc_decoder_free(dec);
    rec_free(&got);
}

static const char *test_url;
static void run_partitioned(void)
{
    test_partitioned(test_url);
}
static void run_streaming(void)
{
    test_streaming(test_url);
}
static void run_cdc(void)
{
    test_cdc(test_url);
}
static void run_bad_options(void)
{
    test_bad_options(test_url);
}

int main(void)
{
    test_url = getenv("FLOE_TEST_PG_URL");
    if (!test_url || !*test_url) {
        fprintf(stderr, "skipped: FLOE_TEST_PG_URL not set (tests/interop/test_pg_cdc_live.sh)\n");
        return 77;
    }
    db = PQconnectdb(test_url);
    if (PQstatus(db) != CONNECTION_OK) {
        fprintf(stderr, "connect %s: %s\n", test_url, PQerrorMessage(db));
        return 1;
    }
    TEST_RUN(run_cdc);
    TEST_RUN(run_bad_options);
    TEST_RUN(run_streaming);
    TEST_RUN(run_partitioned);
    PQfinish(db);
    return TEST_EXIT();
}
