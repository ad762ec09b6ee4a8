/*
 * fuzz_pgoutput.c - the pgoutput decoder (src/ingest/pg_output.c) over a
 * sequence of arbitrary messages, and the value mapping (pg_types.c) over
 * every datum it reports.
 *
 * Input: byte 0 picks the protocol version (bit 0: 1 or 2); then messages,
 * each a 2-byte big-endian length and that many bytes (a short last one is
 * taken as it is). Every message is decoded by one decoder, so relations,
 * transactions and stream blocks carry over; an error does not stop the run.
 *
 * Properties besides "no crash, leak or UB": every tuple has its relation's
 * column count, every datum's bytes lie inside the message being decoded,
 * a failed decode always carries a message, and a change's relation is the
 * one the decoder has for its OID.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/pg_cdc.h"

typedef struct fz {
    const uint8_t *msg;
    size_t len;
    pgcdc_decoder *d;
    fl_arena arena;
} fz;

static void check_tuple(fz *f, const pgcdc_rel *rel, const pgcdc_tuple *t)
{
    if (t->ncols != rel->ncols)
        abort();
    for (uint16_t i = 0; i < t->ncols; i++) {
        const pgcdc_datum *d = &t->cols[i];
        if (d->kind == PGCDC_TEXT || d->kind == PGCDC_BINARY) {
            if (d->data < f->msg || d->data + d->len > f->msg + f->len)
                abort();
        }
        fl_value v;
        fl_error err;
        if (pgcdc_datum_value(&rel->cols[i], d, &f->arena, &v, &err) != FL_OK && !err.msg[0])
            abort();
    }
}

static fl_status on_change(void *ctx, const pgcdc_change *c, fl_error *err)
{
    fz *f = ctx;
    if (pgcdc_decoder_rel(f->d, c->rel->oid) != c->rel)
        abort();
    if (c->old_tuple)
        check_tuple(f, c->rel, c->old_tuple);
    if (c->new_tuple)
        check_tuple(f, c->rel, c->new_tuple);
    if ((c->kind == PGCDC_DELETE) != (c->new_tuple == NULL))
        abort();
    fl_arena_reset(&f->arena);
    return FL_OK;
}

static fl_status on_relation(void *ctx, const pgcdc_rel *rel, const pgcdc_rel *old, fl_error *err)
{
    if (rel->ncols > PGCDC_MAX_COLUMNS || (old && old->oid != rel->oid))
        abort();
    for (uint16_t i = 0; i < rel->ncols; i++)
        if (!rel->cols[i].name)
            abort();
    return FL_OK;
}

static fl_status on_truncate(void *ctx, const pgcdc_truncate *t, fl_error *err)
{
    for (uint32_t i = 0; i < t->nrels; i++)
        if (!t->rels[i] || !t->rels[i]->relname)
            abort();
    return FL_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    fz f = {0};
    pgcdc_callbacks cb = {0};
    cb.ctx = &f;
    cb.on_change = on_change;
    cb.on_relation = on_relation;
    cb.on_truncate = on_truncate;
    f.d = pgcdc_decoder_new((data[0] & 1) + 1, &cb);
    if (!f.d)
        return 0;
    fl_arena_init(&f.arena, 0);
    size_t off = 1;
    while (off < size) {
        size_t n = size - off >= 2 ? (size_t)(data[off] << 8 | data[off + 1]) : 0;
        off += size - off >= 2 ? 2 : size - off;
        if (n > size - off)
            n = size - off;
        /* a copy of exactly n bytes, so ASan sees any read past the message */
        uint8_t *m = malloc(n ? n : 1);
        if (!m)
            break;
        memcpy(m, data + off, n);
        f.msg = m;
        f.len = n;
        fl_error err;
        err.msg[0] = 0;
        if (pgcdc_decode(f.d, m, n, off, &err) != FL_OK && !err.msg[0])
            abort();
        free(m);
        off += n;
    }
    fl_arena_free(&f.arena);
    pgcdc_decoder_free(f.d);
    return 0;
}
