/*
 * rows.c - RowDescription and DataRow.
 *
 * RowDescription ('T'): int16 nfields, then per field: name\0, int32 table
 * OID (0), int16 column number (0), int32 type OID, int16 type size, int32
 * typmod, int16 format (0 text, 1 binary) - OIDs/sizes/typmods from
 * pgtypes.h. DataRow ('D'): int16 ncols, per column int32 length (-1 =
 * NULL) and the value bytes. Text values are rendered straight into the
 * output buffer with the connection's fl_sql_formatter; binary ones by
 * binfmt.c. Result format codes follow Bind: none = all text, one = all
 * columns, else one per column.
 *
 * Streaming: pgw_send_rows pulls batches from the portal's open result one
 * at a time and flushes the output buffer as it fills, so a result of any
 * size costs one batch plus the output buffer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/pgtypes.h"
#include "pgwire/pgw.h"

static int16_t fmt_of(const int16_t *formats, uint32_t n, uint32_t i)
{
    if (n == 0)
        return 0;
    return n == 1 ? formats[0] : (i < n ? formats[i] : 0);
}

void pgw_send_rowdesc(pgw_conn *c, const fl_schema *sch, const int16_t *formats,
                      uint32_t nformats)
{
    pgw_begin(c, 'T');
    pgw_put_i16(c, (int16_t)sch->nfields);
    for (uint32_t i = 0; i < sch->nfields; i++) {
        const fl_field *f = &sch->fields[i];
        pgw_put_str(c, f->name ? f->name : "?column?");
        pgw_put_i32(c, 0);
        pgw_put_i16(c, 0);
        pgw_put_i32(c, (int32_t)fl_pg_type_oid(&f->type));
        pgw_put_i16(c, fl_pg_type_len(&f->type));
        pgw_put_i32(c, fl_pg_type_typmod(&f->type));
        pgw_put_i16(c, fmt_of(formats, nformats, i));
    }
    pgw_end(c);
}

static void put_len_at(pgw_conn *c, size_t at, int32_t len)
{
    uint32_t u = (uint32_t)len;
    uint8_t *b = c->out + at;
    b[0] = (uint8_t)(u >> 24);
    b[1] = (uint8_t)(u >> 16);
    b[2] = (uint8_t)(u >> 8);
    b[3] = (uint8_t)u;
}

static void put_text(pgw_conn *c, const fl_vector *v, uint32_t row)
{
    size_t at = c->out_len;
    pgw_put_i32(c, 0);
    size_t cap = 64;
    for (;;) {
        uint8_t *dst = pgw_reserve(c, cap);
        if (!dst)
            return;
        size_t need = fl_sql_formatter_value(c->fmt, v, row, (char *)dst, cap);
        if (need < cap) {
            c->out_len += need;
            put_len_at(c, at, (int32_t)need);
            return;
        }
        cap = need + 1;
    }
}

static void put_binary(pgw_conn *c, const fl_vector *v, uint32_t row, pgw_buf *tmp)
{
    tmp->len = 0;
    if (!pgw_bin_encode(v, row, tmp) || tmp->oom) {
        pgw_put_i32(c, -1);
        return;
    }
    pgw_put_i32(c, (int32_t)tmp->len);
    pgw_put(c, tmp->p, tmp->len);
}

static void send_row(pgw_conn *c, const fl_batch *b, const fl_unified *u, uint32_t row,
                     const pgw_portal *p, pgw_buf *tmp)
{
    pgw_begin(c, 'D');
    pgw_put_i16(c, (int16_t)b->ncols);
    for (uint32_t i = 0; i < b->ncols; i++) {
        if (!fl_unified_is_valid(&u[i], row)) {
            pgw_put_i32(c, -1);
            continue;
        }
        if (fmt_of(p->formats, p->nformats, i) == 1 || p->binary_all)
            put_binary(c, &b->cols[i], row, tmp);
        else
            put_text(c, &b->cols[i], row);
    }
    pgw_end(c);
}

int pgw_send_rows(pgw_conn *c, pgw_portal *p, int64_t max, bool count_only)
{
    pgw_conn_reset_formatter(c);
    if (!c->fmt) {
        pgw_send_error(c, "ERROR", "XX000", 0, "cannot load the time zone for output");
        return -1;
    }
    pgw_buf tmp = {0};
    fl_unified *u = NULL;
    uint32_t ucap = 0;
    int64_t sent = 0;
    int ret = 1;
    for (;;) {
        if (p->eof) {
            ret = 1;
            break;
        }
        if (max > 0 && sent >= max) {
            ret = 0;
            break;
        }
        if (!p->batch || p->row >= p->batch->nrows) {
            const fl_batch *b = NULL;
            bool eof = false;
            fl_error err = {0};
            fl_status rc = fl_sql_result_next(p->res, &b, &eof, &err);
            if (rc != FL_OK) {
                pgw_send_sql_error(c, rc, &err);
                ret = -1;
                break;
            }
            p->batch = b;
            p->row = 0;
            if (eof || !b) {
                p->eof = true;
                p->batch = NULL;
                continue;
            }
            continue;
        }
        const fl_batch *b = p->batch;
        if (!count_only) {
            if (b->ncols > ucap) {
                free(u);
                u = malloc(b->ncols * sizeof *u);
                ucap = u ? b->ncols : 0;
                if (!u) {
                    pgw_send_error(c, "ERROR", "53200", 0, "out of memory");
                    ret = -1;
                    break;
                }
            }
            for (uint32_t i = 0; i < b->ncols; i++)
                fl_vector_unify(&b->cols[i], &u[i]);
        }
        while (p->row < b->nrows && !(max > 0 && sent >= max) && !c->io_failed) {
            if (!count_only)
                send_row(c, b, u, p->row, p, &tmp);
            p->row++;
            sent++;
            p->sent++;
        }
        if (c->io_failed) {
            ret = -1;
            break;
        }
    }
    free(u);
    pgw_buf_free(&tmp);
    return ret;
}

void pgw_send_rows_tag(pgw_conn *c, pgw_portal *p, const char *verb)
{
    char tag[64];
    snprintf(tag, sizeof tag, "%s %lld", verb, (long long)p->sent);
    pgw_send_complete(c, tag);
}
