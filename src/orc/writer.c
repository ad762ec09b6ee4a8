/*
 * writer.c - fl_orc_writer: batches of a floe schema become an ORC file
 * (ORCv1, file version 0.12), the inverse of the reader's type table in
 * include/floe/orc.h.
 *
 * Layout: "ORC", then stripes, each its data streams (no row index:
 * rowIndexStride 0) and its stripe footer (streams, encodings, writer time
 * zone "UTC"); then the Metadata (stripe statistics), the Footer (stripes,
 * types with Iceberg attributes, user metadata, file statistics, row count),
 * the PostScript and its length byte. Footer, Metadata and stripe footers are
 * compressed like the streams.
 *
 * A stripe is cut when its encoded streams pass stripe_bytes (estimated
 * before compression); streams are compressed chunk by chunk when the stripe
 * is written, so memory holds one stripe's encoded streams at a time.
 *
 * The footer names no registered writer (writer id 10, unknown to Java and
 * C++ readers, which then assume the newest writer version and apply no
 * workaround) and writer version 9 (ORC-14) in the PostScript.
 *
 * Ownership: the writer borrows the output (closed by the caller after
 * fl_orc_writer_close) and copies the schema.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orc/orc_write.h"

#define ORC_DEFAULT_STRIPE ((uint64_t)64 << 20)
#define ORC_DEFAULT_BLOCK (256u << 10)

static fl_status emit(fl_orc_writer *w, const void *p, size_t n, fl_error *err)
{
    if (n == 0) /* empty streams: nothing to write (and p may be NULL) */
        return FL_OK;
    FL_TRY(fl_output_write(w->out, p, n, err));
    w->offset += n;
    return FL_OK;
}

/* Compresses m and writes it; *len gets the bytes written. */
fl_status orc_emit_compressed(fl_orc_writer *w, const orc_buf *m, uint64_t *len, fl_error *err)
{
    w->zbuf.len = 0;
    FL_TRY(orc_compress_into(w->compression, w->level, w->block, m->p, m->len, &w->zbuf,
                             &w->scratch, err));
    *len = w->zbuf.len;
    return emit(w, w->zbuf.p, w->zbuf.len, err);
}

fl_status orc_emit(fl_orc_writer *w, const void *p, size_t n, fl_error *err)
{
    return emit(w, p, n, err);
}

fl_status fl_orc_writer_open(fl_output *out, const fl_schema *schema,
                             const fl_orc_write_options *opt, fl_orc_writer **wp, fl_error *err)
{
    *wp = NULL;
    fl_orc_write_options none = {0};
    opt = opt ? opt : &none;
    if (opt->compression == FL_ORC_LZO)
        return fl_errorf(err, FL_EUNSUPPORTED, "ORC: LZO compression is not supported");
    fl_orc_writer *w = calloc(1, sizeof *w);
    if (!w)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_arena_init(&w->arena, 0);
    w->out = out;
    w->compression = opt->compression_set ? opt->compression : FL_ORC_ZSTD;
    w->level = opt->compression_level;
    w->stripe_bytes = opt->stripe_bytes ? opt->stripe_bytes : ORC_DEFAULT_STRIPE;
    w->stripe_row_limit = opt->stripe_rows;
    w->block = opt->block_bytes ? opt->block_bytes : ORC_DEFAULT_BLOCK;
    if (w->block > (1u << 22))
        w->block = 1u << 22; /* the chunk header holds 23 bits */
    w->meta = opt->metadata;
    w->nmeta = opt->nmetadata;
    fl_status rc = fl_schema_copy(&w->arena, schema, &w->schema);
    if (rc == FL_OK)
        rc = orc_colw_build(&w->schema, &w->root, &w->ncols, err);
    else
        fl_errorf(err, FL_ENOMEM, "out of memory");
    if (rc == FL_OK)
        rc = emit(w, "ORC", 3, err);
    if (rc != FL_OK) {
        fl_orc_writer_abort(w);
        return rc;
    }
    *wp = w;
    return FL_OK;
}

/* ---- stripes ---- */

typedef struct stream_list {
    orc_buf footer; /* StripeFooter.streams entries */
    uint64_t data_len;
} stream_list;

static fl_status write_stream(fl_orc_writer *w, stream_list *sl, uint32_t kind, orc_colw *c,
                              const orc_buf *b, fl_error *err)
{
    uint64_t len = 0;
    FL_TRY(orc_emit_compressed(w, b, &len, err));
    sl->data_len += len;
    c->file_bytes += len;
    orc_buf s = {0};
    fl_status rc = orc_pbw_varint(&s, 1, kind, err);
    if (rc == FL_OK)
        rc = orc_pbw_varint(&s, 2, c->id, err);
    if (rc == FL_OK)
        rc = orc_pbw_varint(&s, 3, len, err);
    if (rc == FL_OK)
        rc = orc_pbw_msg(&sl->footer, 1, &s, err);
    orc_buf_free(&s);
    return rc;
}

enum { S_PRESENT = 0, S_DATA = 1, S_LENGTH = 2, S_SECONDARY = 5 };

static bool has_length(fl_orc_kind k)
{
    return k == FL_ORC_STRING || k == FL_ORC_BINARY || k == FL_ORC_LIST || k == FL_ORC_MAP;
}

static bool has_data(fl_orc_kind k)
{
    return k != FL_ORC_STRUCT && k != FL_ORC_LIST && k != FL_ORC_MAP;
}

static fl_status write_streams(fl_orc_writer *w, orc_colw *c, stream_list *sl, fl_error *err)
{
    if (c->stripe_nulls)
        FL_TRY(write_stream(w, sl, S_PRESENT, c, &c->present_buf, err));
    if (has_data(c->kind))
        FL_TRY(write_stream(w, sl, S_DATA, c, &c->data_buf, err));
    if (has_length(c->kind))
        FL_TRY(write_stream(w, sl, S_LENGTH, c, &c->length_buf, err));
    if (c->kind == FL_ORC_DECIMAL || c->kind == FL_ORC_TIMESTAMP ||
        c->kind == FL_ORC_TIMESTAMP_INSTANT)
        FL_TRY(write_stream(w, sl, S_SECONDARY, c, &c->secondary_buf, err));
    for (uint32_t i = 0; i < c->nchildren; i++)
        FL_TRY(write_streams(w, &c->children[i], sl, err));
    return FL_OK;
}

/* ColumnEncoding: DIRECT_V2 where the column has integer streams. */
static fl_status encodings(orc_colw *c, orc_buf *footer, fl_error *err)
{
    bool v2 = !(c->kind == FL_ORC_BOOLEAN || c->kind == FL_ORC_FLOAT || c->kind == FL_ORC_DOUBLE ||
                c->kind == FL_ORC_STRUCT);
    orc_buf e = {0};
    fl_status rc = orc_pbw_varint(&e, 1, v2 ? 2 : 0, err);
    if (rc == FL_OK)
        rc = orc_pbw_msg(footer, 2, &e, err);
    orc_buf_free(&e);
    for (uint32_t i = 0; i < c->nchildren && rc == FL_OK; i++)
        rc = encodings(&c->children[i], footer, err);
    return rc;
}

static const fl_type *type_of(const orc_colw *c)
{
    return c->field ? &c->field->type : NULL;
}

/* Stripe statistics of every column, then merged into the file's. */
static fl_status stripe_statistics(fl_orc_writer *w, orc_colw *c, orc_buf *ss, fl_error *err)
{
    if (c == w->root)
        c->stripe.values = c->stripe_rows = w->stripe_rows;
    c->file_entries += c->stripe_rows;
    orc_buf cs = {0};
    fl_status rc = orc_wstats_encode(&c->stripe, type_of(c), c->kind, &cs, err);
    if (rc == FL_OK)
        rc = orc_pbw_msg(ss, 1, &cs, err);
    orc_buf_free(&cs);
    if (rc == FL_OK)
        rc = orc_wstats_merge(&c->file, &c->stripe, err);
    for (uint32_t i = 0; i < c->nchildren && rc == FL_OK; i++)
        rc = stripe_statistics(w, &c->children[i], ss, err);
    return rc;
}

static fl_status add_split(fl_orc_writer *w, uint64_t off, fl_error *err)
{
    if (w->nsplits == w->splits_cap) {
        uint32_t cap = w->splits_cap ? w->splits_cap * 2 : 8;
        int64_t *n = realloc(w->split_offsets, cap * sizeof *n);
        if (!n)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        w->split_offsets = n;
        w->splits_cap = cap;
    }
    w->split_offsets[w->nsplits++] = (int64_t)off;
    return FL_OK;
}

fl_status orc_flush_stripe(fl_orc_writer *w, fl_error *err)
{
    if (w->stripe_rows == 0)
        return FL_OK;
    FL_TRY(orc_colw_finish(w->root, err));
    uint64_t start = w->offset, footer_len = 0;
    FL_TRY(add_split(w, start, err));
    stream_list sl = {0};
    orc_buf ss = {0}, info = {0};
    fl_status rc = write_streams(w, w->root, &sl, err);
    if (rc == FL_OK)
        rc = encodings(w->root, &sl.footer, err);
    if (rc == FL_OK)
        rc = orc_pbw_bytes(&sl.footer, 3, "UTC", 3, err);
    if (rc == FL_OK)
        rc = orc_emit_compressed(w, &sl.footer, &footer_len, err);
    if (rc == FL_OK)
        rc = stripe_statistics(w, w->root, &ss, err);
    if (rc == FL_OK)
        rc = orc_pbw_msg(&w->stripe_stats, 1, &ss, err);
    const uint64_t fields[5] = {start, 0, sl.data_len, footer_len, w->stripe_rows};
    for (uint32_t i = 0; i < 5 && rc == FL_OK; i++)
        rc = orc_pbw_varint(&info, i + 1, fields[i], err);
    if (rc == FL_OK)
        rc = orc_pbw_msg(&w->stripes, 3, &info, err);
    orc_buf_free(&sl.footer);
    orc_buf_free(&ss);
    orc_buf_free(&info);
    w->nrows += w->stripe_rows;
    w->stripe_rows = 0;
    orc_colw_next_stripe(w->root);
    return rc;
}

static fl_status write_rows(fl_orc_writer *w, const fl_batch *b, const uint32_t *rows, uint32_t n,
                            fl_error *err);

fl_status fl_orc_writer_write(fl_orc_writer *w, const fl_batch *b, fl_error *err)
{
    if (b->ncols != w->schema.nfields)
        return fl_errorf(err, FL_EINVAL, "ORC writer: batch has %u columns, the schema %u",
                         b->ncols, w->schema.nfields);
    uint32_t n = b->sel ? b->sel->count : b->nrows;
    const uint32_t *rows = b->sel ? b->sel->idx : NULL;
    uint64_t room = w->stripe_row_limit ? w->stripe_row_limit - w->stripe_rows : n;
    if (room < n) { /* the rest of the batch goes to the next stripe */
        FL_TRY(write_rows(w, b, rows, (uint32_t)room, err));
        FL_TRY(orc_flush_stripe(w, err));
        fl_batch rest = *b;
        fl_sel sel = {0};
        uint32_t *idx = malloc(((size_t)n - room) * sizeof *idx);
        if (!idx)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (uint32_t i = 0; i < n - room; i++)
            idx[i] = rows ? rows[room + i] : (uint32_t)(room + i);
        sel.idx = idx;
        sel.count = sel.cap = (uint32_t)(n - room);
        rest.sel = &sel;
        fl_status rc = fl_orc_writer_write(w, &rest, err);
        free(idx);
        return rc;
    }
    FL_TRY(write_rows(w, b, rows, n, err));
    if (orc_colw_bytes(w->root) >= w->stripe_bytes ||
        (w->stripe_row_limit && w->stripe_rows >= w->stripe_row_limit))
        FL_TRY(orc_flush_stripe(w, err));
    return FL_OK;
}

static fl_status write_rows(fl_orc_writer *w, const fl_batch *b, const uint32_t *rows, uint32_t n,
                            fl_error *err)
{
    for (uint32_t i = 0; i < w->schema.nfields; i++) {
        const fl_field *f = &w->schema.fields[i];
        if (!fl_type_same_shape(&f->type, b->cols[i].type))
            return fl_errorf(err, FL_EINVAL, "ORC writer: column %s does not match the schema",
                             f->name);
        FL_TRY(orc_colw_write(&w->root->children[i], &b->cols[i], rows, n, err));
        if (!f->nullable && w->root->children[i].stripe.has_null)
            return fl_errorf(err, FL_EINVAL, "ORC writer: null in required column %s", f->name);
    }
    w->stripe_rows += n;
    return FL_OK;
}

uint64_t fl_orc_writer_bytes(const fl_orc_writer *w)
{
    return w->offset + orc_colw_bytes(w->root) / 4;
}
