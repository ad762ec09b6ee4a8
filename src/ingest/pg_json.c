/*
 * pg_json.c - fl_pgcdc_decode (floe/pgcdc.h): a replication slot's events
 * as JSON lines, for `floe pg-decode`. It is the protocol layer end to end
 * without a sink: connect, optionally create the slot and print the initial
 * snapshot, START_REPLICATION, then every decoded event as one line. Values
 * are printed as PostgreSQL sent them (text), so what the decoder saw can be
 * compared with the source byte for byte.
 *
 * Each line is built in one buffer and written whole. With `confirm`, a
 * commit's end LSN is confirmed only after its line was written and flushed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "floe/buf.h"
#include "floe/calendar.h"
#include "floe/pgcdc.h"
#include "ingest/pg_cdc.h"

typedef struct dump {
    const fl_pgcdc_decode_options *o;
    FILE *out;
    fl_buf line;
    pgcdc_repl *repl;
    long commits;
    bool snapshot_phase;
    bool done; /* max_txns reached: later events are not printed */
} dump;

static fl_status js_str(fl_buf *b, const char *s, size_t n, fl_error *err)
{
    FL_TRY(fl_buf_putc(b, '"', err));
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            FL_TRY(fl_buf_appendf(b, err, "\\%c", c));
        else if (c < 0x20)
            FL_TRY(fl_buf_appendf(b, err, "\\u%04x", c));
        else
            FL_TRY(fl_buf_putc(b, (char)c, err));
    }
    return fl_buf_putc(b, '"', err);
}

static fl_status js_cstr(fl_buf *b, const char *s, fl_error *err)
{
    return js_str(b, s, strlen(s), err);
}

static fl_status js_lsn(fl_buf *b, const char *key, pgcdc_lsn lsn, fl_error *err)
{
    char t[24];
    return fl_buf_appendf(b, err, ",\"%s\":\"%s\"", key, pgcdc_lsn_format(lsn, t));
}

/* "schema.table", quoted as one JSON string. */
static fl_status js_table(fl_buf *b, const pgcdc_rel *rel, fl_error *err)
{
    fl_buf name;
    fl_buf_init(&name, 0);
    fl_status rc = fl_buf_appendf(&name, err, "%s.%s", rel->nspname, rel->relname);
    if (rc == FL_OK)
        rc = js_str(b, name.data, name.len, err);
    fl_buf_free(&name);
    return rc;
}

/* Writes the line and starts the next one. */
static fl_status emit(dump *d, fl_error *err)
{
    FL_TRY(fl_buf_puts(&d->line, "}\n", err));
    if (fwrite(d->line.data, 1, d->line.len, d->out) != d->line.len)
        return fl_errorf(err, FL_EIO, "pg-decode: writing the output failed");
    fl_buf_reset(&d->line);
    return FL_OK;
}

static fl_status start(dump *d, const char *event, fl_error *err)
{
    fl_buf_reset(&d->line);
    return fl_buf_appendf(&d->line, err, "{\"event\":\"%s\"", event);
}

static fl_status js_tuple(fl_buf *b, const pgcdc_rel *rel, const pgcdc_tuple *t, fl_error *err)
{
    FL_TRY(fl_buf_putc(b, '{', err));
    for (uint16_t i = 0; i < t->ncols; i++) {
        const pgcdc_datum *v = &t->cols[i];
        if (i)
            FL_TRY(fl_buf_putc(b, ',', err));
        FL_TRY(js_cstr(b, rel->cols[i].name, err));
        FL_TRY(fl_buf_putc(b, ':', err));
        if (v->kind == PGCDC_NULL) {
            FL_TRY(fl_buf_puts(b, "null", err));
        } else if (v->kind == PGCDC_UNCHANGED) {
            FL_TRY(fl_buf_puts(b, "{\"unchanged\":true}", err));
        } else if (v->kind == PGCDC_TEXT) {
            FL_TRY(js_str(b, (const char *)v->data, v->len, err));
        } else {
            FL_TRY(fl_buf_puts(b, "{\"binary_hex\":\"", err));
            for (uint32_t k = 0; k < v->len; k++)
                FL_TRY(fl_buf_appendf(b, err, "%02x", v->data[k]));
            FL_TRY(fl_buf_puts(b, "\"}", err));
        }
    }
    return fl_buf_putc(b, '}', err);
}

static fl_status on_relation(void *ctx, const pgcdc_rel *rel, const pgcdc_rel *old, fl_error *err)
{
    dump *d = ctx;
    if (d->done)
        return FL_OK;
    fl_buf *b = &d->line;
    FL_TRY(start(d, "relation", err));
    FL_TRY(fl_buf_appendf(b, err, ",\"oid\":%u,\"schema\":", rel->oid));
    FL_TRY(js_cstr(b, rel->nspname, err));
    FL_TRY(fl_buf_puts(b, ",\"table\":", err));
    FL_TRY(js_cstr(b, rel->relname, err));
    FL_TRY(fl_buf_appendf(b, err, ",\"replica_identity\":\"%c\",\"version\":%u,\"columns\":[",
                          rel->replident, rel->version));
    for (uint16_t i = 0; i < rel->ncols; i++) {
        char tn[64];
        fl_type_format(&rel->cols[i].type, tn, sizeof tn);
        FL_TRY(fl_buf_puts(b, i ? ",{\"name\":" : "{\"name\":", err));
        FL_TRY(js_cstr(b, rel->cols[i].name, err));
        FL_TRY(fl_buf_appendf(b, err, ",\"type_oid\":%u,\"typmod\":%d,\"type\":\"%s\",\"key\":%s}",
                              rel->cols[i].type_oid, rel->cols[i].typmod, tn,
                              rel->cols[i].key ? "true" : "false"));
    }
    FL_TRY(fl_buf_putc(b, ']', err));
    return emit(d, err);
}

static fl_status on_change(void *ctx, const pgcdc_change *c, fl_error *err)
{
    dump *d = ctx;
    if (d->done)
        return FL_OK;
    fl_buf *b = &d->line;
    const char *kind = c->kind == PGCDC_INSERT   ? "insert"
                       : c->kind == PGCDC_UPDATE ? "update"
                                                 : "delete";
    FL_TRY(start(d, kind, err));
    FL_TRY(fl_buf_appendf(b, err, ",\"xid\":%u", c->xid));
    if (d->snapshot_phase)
        FL_TRY(fl_buf_puts(b, ",\"snapshot\":true", err));
    else
        FL_TRY(js_lsn(b, "lsn", c->lsn, err));
    FL_TRY(fl_buf_puts(b, ",\"table\":", err));
    FL_TRY(js_table(b, c->rel, err));
    if (c->old_tuple) {
        FL_TRY(fl_buf_appendf(b, err, ",\"old_kind\":\"%c\",\"old\":", c->old_kind));
        FL_TRY(js_tuple(b, c->rel, c->old_tuple, err));
    }
    if (c->new_tuple) {
        FL_TRY(fl_buf_puts(b, ",\"new\":", err));
        FL_TRY(js_tuple(b, c->rel, c->new_tuple, err));
    }
    return emit(d, err);
}

static fl_status on_begin(void *ctx, const pgcdc_begin *bg, fl_error *err)
{
    dump *d = ctx;
    if (d->done)
        return FL_OK;
    FL_TRY(start(d, "begin", err));
    FL_TRY(fl_buf_appendf(&d->line, err, ",\"xid\":%u", bg->xid));
    FL_TRY(js_lsn(&d->line, "final_lsn", bg->final_lsn, err));
    FL_TRY(fl_buf_appendf(&d->line, err, ",\"commit_time_us\":%lld",
                          (long long)(bg->commit_ts + FL_PG_EPOCH_US)));
    return emit(d, err);
}

/* Commit and Stream Commit: print, flush, then (with confirm) confirm. */
static fl_status committed(dump *d, const char *event, const pgcdc_commit *c, fl_error *err)
{
    if (d->done)
        return FL_OK;
    FL_TRY(start(d, event, err));
    FL_TRY(fl_buf_appendf(&d->line, err, ",\"xid\":%u", c->xid));
    FL_TRY(js_lsn(&d->line, "commit_lsn", c->commit_lsn, err));
    FL_TRY(js_lsn(&d->line, "end_lsn", c->end_lsn, err));
    FL_TRY(emit(d, err));
    if (fflush(d->out) != 0)
        return fl_errorf(err, FL_EIO, "pg-decode: writing the output failed");
    if (d->o->confirm)
        FL_TRY(pgcdc_repl_confirm(d->repl, c->end_lsn, err));
    if (d->o->max_txns > 0 && ++d->commits >= d->o->max_txns)
        d->done = true;
    return FL_OK;
}

static fl_status on_commit(void *ctx, const pgcdc_commit *c, fl_error *err)
{
    return committed(ctx, "commit", c, err);
}

static fl_status on_stream_commit(void *ctx, const pgcdc_commit *c, fl_error *err)
{
    return committed(ctx, "stream_commit", c, err);
}

static fl_status on_truncate(void *ctx, const pgcdc_truncate *t, fl_error *err)
{
    dump *d = ctx;
    if (d->done)
        return FL_OK;
    FL_TRY(start(d, "truncate", err));
    FL_TRY(fl_buf_appendf(&d->line, err, ",\"xid\":%u,\"tables\":[", t->xid));
    for (uint32_t i = 0; i < t->nrels; i++) {
        if (i)
            FL_TRY(fl_buf_putc(&d->line, ',', err));
        FL_TRY(js_table(&d->line, t->rels[i], err));
    }
    FL_TRY(fl_buf_appendf(&d->line, err, "],\"cascade\":%s,\"restart_identity\":%s",
                          t->flags & PGCDC_TRUNCATE_CASCADE ? "true" : "false",
                          t->flags & PGCDC_TRUNCATE_RESTART_IDENTITY ? "true" : "false"));
    return emit(d, err);
}

static fl_status on_origin(void *ctx, const pgcdc_origin *o, fl_error *err)
{
    dump *d = ctx;
    if (d->done)
        return FL_OK;
    FL_TRY(start(d, "origin", err));
    FL_TRY(fl_buf_puts(&d->line, ",\"name\":", err));
    FL_TRY(js_cstr(&d->line, o->name, err));
    FL_TRY(js_lsn(&d->line, "origin_lsn", o->origin_lsn, err));
    return emit(d, err);
}

static fl_status on_type(void *ctx, const pgcdc_typeinfo *t, fl_error *err)
{
    dump *d = ctx;
    if (d->done)
        return FL_OK;
    FL_TRY(start(d, "type", err));
    FL_TRY(fl_buf_appendf(&d->line, err, ",\"oid\":%u,\"schema\":", t->oid));
    FL_TRY(js_cstr(&d->line, t->nspname, err));
    FL_TRY(fl_buf_puts(&d->line, ",\"name\":", err));
    FL_TRY(js_cstr(&d->line, t->typname, err));
    return emit(d, err);
}

static fl_status on_message(void *ctx, const pgcdc_message *m, fl_error *err)
{
    dump *d = ctx;
    if (d->done)
        return FL_OK;
    FL_TRY(start(d, "message", err));
    FL_TRY(fl_buf_appendf(&d->line, err, ",\"xid\":%u,\"transactional\":%s,\"prefix\":", m->xid,
                          m->transactional ? "true" : "false"));
    FL_TRY(js_cstr(&d->line, m->prefix, err));
    FL_TRY(fl_buf_puts(&d->line, ",\"content\":", err));
    FL_TRY(js_str(&d->line, (const char *)m->data, m->len, err));
    return emit(d, err);
}

static fl_status on_stream_start(void *ctx, uint32_t xid, bool first, fl_error *err)
{
    dump *d = ctx;
    if (d->done)
        return FL_OK;
    FL_TRY(start(d, "stream_start", err));
    FL_TRY(fl_buf_appendf(&d->line, err, ",\"xid\":%u,\"first_segment\":%s", xid,
                          first ? "true" : "false"));
    return emit(d, err);
}

static fl_status on_stream_stop(void *ctx, fl_error *err)
{
    dump *d = ctx;
    if (d->done)
        return FL_OK;
    FL_TRY(start(d, "stream_stop", err));
    return emit(d, err);
}

static fl_status on_stream_abort(void *ctx, uint32_t xid, uint32_t subxid, fl_error *err)
{
    dump *d = ctx;
    if (d->done)
        return FL_OK;
    FL_TRY(start(d, "stream_abort", err));
    FL_TRY(fl_buf_appendf(&d->line, err, ",\"xid\":%u,\"subxid\":%u", xid, subxid));
    return emit(d, err);
}

static pgcdc_callbacks callbacks(dump *d)
{
    pgcdc_callbacks cb = {d,
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
    return cb;
}

static fl_status print_snapshot(dump *d, const char *snapshot, fl_error *err)
{
    pgcdc_snapshot *s = NULL;
    FL_TRY(pgcdc_snapshot_open(d->o->conninfo, snapshot, &s, err));
    const pgcdc_table *tables = NULL;
    size_t n = 0;
    pgcdc_callbacks cb = callbacks(d);
    d->snapshot_phase = true;
    fl_status rc = pgcdc_snapshot_tables(s, d->o->publications, &tables, &n, err);
    for (size_t i = 0; rc == FL_OK && i < n; i++)
        rc = pgcdc_snapshot_read(s, tables[i].nspname, tables[i].relname, &cb, err);
    d->snapshot_phase = false;
    pgcdc_snapshot_close(s);
    return rc;
}

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static fl_status stream(dump *d, pgcdc_lsn from, fl_error *err)
{
    pgcdc_callbacks cb = callbacks(d);
    pgcdc_decoder *dec = pgcdc_decoder_new(d->o->proto_version ? d->o->proto_version : 1, &cb);
    if (!dec)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_status rc = pgcdc_repl_start(d->repl, from, dec, err);
    int64_t last = mono_ms();
    while (rc == FL_OK && !d->done) {
        size_t n = 0;
        rc = pgcdc_repl_poll(d->repl, 200, &n, err);
        int64_t now = mono_ms();
        if (n)
            last = now;
        else if (d->o->idle_ms > 0 && now - last >= d->o->idle_ms)
            break;
    }
    pgcdc_repl_close(d->repl); /* ends the stream while dec is still alive */
    d->repl = NULL;
    pgcdc_decoder_free(dec);
    return rc;
}

fl_status fl_pgcdc_decode(const fl_pgcdc_decode_options *o, FILE *out, fl_error *err)
{
    pgcdc_lsn from = 0;
    if (o->start_lsn && !pgcdc_lsn_parse(o->start_lsn, &from))
        return fl_errorf(err, FL_EINVAL, "start LSN '%s': expected X/Y in hex", o->start_lsn);
    if (o->snapshot && !o->create_slot)
        return fl_errorf(err, FL_EINVAL, "the initial snapshot needs a new slot (create_slot)");
    pgcdc_repl_options ro = {o->conninfo,      o->slot,      o->publications,
                             o->proto_version, o->streaming, 0};
    dump d;
    memset(&d, 0, sizeof d);
    d.o = o;
    d.out = out;
    fl_buf_init(&d.line, 0);
    fl_status rc = pgcdc_repl_connect(&ro, &d.repl, err);
    pgcdc_slot slot;
    if (rc == FL_OK && o->create_slot) {
        rc = pgcdc_repl_create_slot(d.repl, o->temporary, &slot, err);
        if (rc == FL_OK && !o->start_lsn)
            from = slot.consistent_point;
        if (rc == FL_OK && o->snapshot)
            rc = print_snapshot(&d, slot.snapshot, err);
    }
    if (rc == FL_OK)
        rc = stream(&d, from, err);
    pgcdc_repl_close(d.repl);
    fl_buf_free(&d.line);
    return rc;
}
