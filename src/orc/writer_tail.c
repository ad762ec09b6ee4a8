/*
 * writer_tail.c - the end of an ORC file (Metadata, Footer, PostScript and
 * its length byte) and the per-column facts of the written file that
 * Iceberg's data-file metrics need (fl_parquet_file_result: the same facts
 * the Parquet writer reports, so metrics are computed one way).
 *
 * Types carry Iceberg's ORC attributes (as Iceberg's ORCSchemaUtil writes
 * them): iceberg.id, iceberg.required, iceberg.long-type=TIME,
 * iceberg.binary-type=UUID|FIXED with iceberg.length, and
 * iceberg.timestamp-unit=MICROS|NANOS, so floe's and Iceberg's readers get
 * the exact floe type back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orc/orc_write.h"

static fl_status attr(orc_buf *t, const char *k, const char *v, fl_error *err)
{
    orc_buf p = {0};
    fl_status rc = orc_pbw_bytes(&p, 1, k, strlen(k), err);
    if (rc == FL_OK)
        rc = orc_pbw_bytes(&p, 2, v, strlen(v), err);
    if (rc == FL_OK)
        rc = orc_pbw_msg(t, 7, &p, err);
    orc_buf_free(&p);
    return rc;
}

static fl_status type_attrs(const fl_field *f, orc_buf *t, fl_error *err)
{
    char num[24];
    if (f->field_id > 0) {
        snprintf(num, sizeof num, "%d", f->field_id);
        FL_TRY(attr(t, "iceberg.id", num, err));
        FL_TRY(attr(t, "iceberg.required", f->nullable ? "false" : "true", err));
    }
    switch (f->type.id) {
    case FL_TYPE_TIME: return attr(t, "iceberg.long-type", "TIME", err);
    case FL_TYPE_UUID: return attr(t, "iceberg.binary-type", "UUID", err);
    case FL_TYPE_FIXED:
        snprintf(num, sizeof num, "%d", f->type.fixed_len);
        FL_TRY(attr(t, "iceberg.binary-type", "FIXED", err));
        return attr(t, "iceberg.length", num, err);
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ: return attr(t, "iceberg.timestamp-unit", "MICROS", err);
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS: return attr(t, "iceberg.timestamp-unit", "NANOS", err);
    default: return FL_OK;
    }
}

/* Footer.types in pre-order. */
static fl_status types(const orc_colw *c, orc_buf *footer, fl_error *err)
{
    orc_buf t = {0}, subs = {0};
    fl_status rc = orc_pbw_varint(&t, 1, c->kind, err);
    for (uint32_t i = 0; i < c->nchildren && rc == FL_OK; i++)
        rc = orc_buf_uvarint(&subs, c->children[i].id, err);
    if (rc == FL_OK && c->nchildren)
        rc = orc_pbw_msg(&t, 2, &subs, err);
    for (uint32_t i = 0; c->kind == FL_ORC_STRUCT && i < c->nchildren && rc == FL_OK; i++) {
        const char *name = c->children[i].field->name;
        rc = orc_pbw_bytes(&t, 3, name, strlen(name), err);
    }
    if (rc == FL_OK && c->kind == FL_ORC_DECIMAL) {
        rc = orc_pbw_varint(&t, 5, (uint64_t)c->field->type.precision, err);
        if (rc == FL_OK)
            rc = orc_pbw_varint(&t, 6, (uint64_t)c->field->type.scale, err);
    }
    if (rc == FL_OK && c->field)
        rc = type_attrs(c->field, &t, err);
    if (rc == FL_OK)
        rc = orc_pbw_msg(footer, 4, &t, err);
    orc_buf_free(&t);
    orc_buf_free(&subs);
    for (uint32_t i = 0; i < c->nchildren && rc == FL_OK; i++)
        rc = types(&c->children[i], footer, err);
    return rc;
}

static fl_status file_statistics(const fl_orc_writer *w, const orc_colw *c, orc_buf *footer,
                                 fl_error *err)
{
    orc_buf cs = {0};
    orc_wstats s = c->file;
    if (c == w->root)
        s.values = w->nrows;
    fl_status rc = orc_wstats_encode(&s, c->field ? &c->field->type : NULL, c->kind, &cs, err);
    if (rc == FL_OK)
        rc = orc_pbw_msg(footer, 7, &cs, err);
    orc_buf_free(&cs);
    for (uint32_t i = 0; i < c->nchildren && rc == FL_OK; i++)
        rc = file_statistics(w, &c->children[i], footer, err);
    return rc;
}

static fl_status footer(fl_orc_writer *w, orc_buf *f, fl_error *err)
{
    FL_TRY(orc_pbw_varint(f, 1, 3, err));
    FL_TRY(orc_pbw_varint(f, 2, w->offset - 3, err));
    FL_TRY(orc_buf_put(f, w->stripes.p, w->stripes.len, err));
    FL_TRY(types(w->root, f, err));
    for (uint32_t i = 0; i < w->nmeta; i++) {
        orc_buf m = {0};
        const fl_orc_attr *kv = &w->meta[i];
        fl_status rc = orc_pbw_bytes(&m, 1, kv->key, strlen(kv->key), err);
        if (rc == FL_OK)
            rc = orc_pbw_bytes(&m, 2, kv->value, strlen(kv->value), err);
        if (rc == FL_OK)
            rc = orc_pbw_msg(f, 5, &m, err);
        orc_buf_free(&m);
        FL_TRY(rc);
    }
    FL_TRY(orc_pbw_varint(f, 6, w->nrows, err));
    FL_TRY(file_statistics(w, w->root, f, err));
    FL_TRY(orc_pbw_varint(f, 8, 0, err));
    FL_TRY(orc_pbw_varint(f, 9, ORC_WRITER_ID, err));
    const char *sw = "floe " FLOE_VERSION;
    return orc_pbw_bytes(f, 12, sw, strlen(sw), err);
}

static fl_status postscript(fl_orc_writer *w, uint64_t footer_len, uint64_t meta_len, orc_buf *ps,
                            fl_error *err)
{
    orc_buf ver = {0};
    FL_TRY(orc_pbw_varint(ps, 1, footer_len, err));
    FL_TRY(orc_pbw_varint(ps, 2, w->compression, err));
    if (w->compression != FL_ORC_NONE)
        FL_TRY(orc_pbw_varint(ps, 3, w->block, err));
    fl_status rc = orc_buf_uvarint(&ver, 0, err);
    if (rc == FL_OK)
        rc = orc_buf_uvarint(&ver, 12, err);
    if (rc == FL_OK)
        rc = orc_pbw_msg(ps, 4, &ver, err);
    orc_buf_free(&ver);
    FL_TRY(rc);
    FL_TRY(orc_pbw_varint(ps, 5, meta_len, err));
    FL_TRY(orc_pbw_varint(ps, 6, ORC_WRITER_VERSION, err));
    return orc_pbw_bytes(ps, 8000, "ORC", 3, err);
}

/* ---- the result ---- */

static fl_status leaf_result(const orc_colw *c, const char *path, fl_arena *a,
                             fl_parquet_column_result *r, fl_error *err)
{
    const orc_wstats *s = &c->file;
    const fl_type *t = &c->field->type;
    r->field_id = c->field->field_id;
    r->path = path;
    r->null_count = (int64_t)(c->file_entries - s->values);
    r->value_count = (int64_t)c->file_entries;
    r->nan_count =
        t->id == FL_TYPE_FLOAT32 || t->id == FL_TYPE_FLOAT64 ? (int64_t)s->nan_count : -1;
    r->compressed_size = (int64_t)c->file_bytes;
    if (!s->has_minmax || s->values == 0 || t->id == FL_TYPE_BOOLEAN)
        return FL_OK;
    r->has_bounds = true;
    r->lower.type = r->upper.type = *t;
    r->lower.type.children = r->upper.type.children = NULL;
    r->lower.type.nchildren = r->upper.type.nchildren = 0;
    switch (t->id) {
    case FL_TYPE_INT32:
    case FL_TYPE_DATE:
        r->lower.v.i32 = (int32_t)s->imin;
        r->upper.v.i32 = (int32_t)s->imax;
        break;
    case FL_TYPE_FLOAT32:
    case FL_TYPE_FLOAT64:
        if (t->id == FL_TYPE_FLOAT32) {
            r->lower.v.f32 = (float)s->dmin;
            r->upper.v.f32 = (float)s->dmax;
        } else {
            r->lower.v.f64 = s->dmin;
            r->upper.v.f64 = s->dmax;
        }
        break;
    case FL_TYPE_DECIMAL:
        r->lower.v.dec = s->decmin;
        r->upper.v.dec = s->decmax;
        break;
    case FL_TYPE_STRING:
    case FL_TYPE_BINARY:
    case FL_TYPE_UUID:
    case FL_TYPE_FIXED: {
        uint8_t *lo = fl_arena_alloc(a, s->smin_len + 1), *hi = fl_arena_alloc(a, s->smax_len + 1);
        if (!lo || !hi)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        memcpy(lo, s->smin, s->smin_len);
        memcpy(hi, s->smax, s->smax_len);
        r->lower.v.bytes.ptr = lo;
        r->lower.v.bytes.len = s->smin_len;
        r->upper.v.bytes.ptr = hi;
        r->upper.v.bytes.len = s->smax_len;
        break;
    }
    default: /* INT64, TIME, timestamps */
        r->lower.v.i64 = s->imin;
        r->upper.v.i64 = s->imax;
        break;
    }
    return FL_OK;
}

static fl_status results(const orc_colw *c, const char *prefix, fl_arena *a,
                         fl_parquet_file_result *res, fl_error *err)
{
    for (uint32_t i = 0; i < c->nchildren; i++) {
        const orc_colw *k = &c->children[i];
        size_t n = strlen(prefix) + strlen(k->field->name) + 2;
        char *path = fl_arena_alloc(a, n);
        if (!path)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        snprintf(path, n, "%s%s%s", prefix, *prefix ? "." : "", k->field->name);
        if (k->nchildren) {
            FL_TRY(results(k, path, a, res, err));
            continue;
        }
        FL_TRY(leaf_result(k, path, a, &res->columns[res->ncolumns++], err));
    }
    return FL_OK;
}

static fl_status fill_result(fl_orc_writer *w, uint64_t size, fl_parquet_file_result *res,
                             fl_error *err)
{
    memset(res, 0, sizeof *res);
    fl_arena_init(&res->arena, 0);
    res->num_rows = (int64_t)w->nrows;
    res->file_size = size;
    res->columns = fl_arena_calloc(&res->arena, w->ncols + 1, sizeof *res->columns);
    res->split_offsets = fl_arena_calloc(&res->arena, w->nsplits + 1, sizeof(int64_t));
    if (!res->columns || !res->split_offsets)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    memcpy(res->split_offsets, w->split_offsets, w->nsplits * sizeof(int64_t));
    res->nsplit_offsets = w->nsplits;
    return results(w->root, "", &res->arena, res, err);
}

fl_status fl_orc_writer_close(fl_orc_writer *w, fl_parquet_file_result *result, fl_error *err)
{
    orc_buf meta = {0}, foot = {0}, ps = {0};
    uint64_t meta_len = 0, foot_len = 0;
    fl_status rc = orc_flush_stripe(w, err);
    if (rc == FL_OK)
        rc = orc_emit_compressed(w, &w->stripe_stats, &meta_len, err);
    if (rc == FL_OK)
        rc = footer(w, &foot, err);
    if (rc == FL_OK)
        rc = orc_emit_compressed(w, &foot, &foot_len, err);
    if (rc == FL_OK)
        rc = postscript(w, foot_len, meta_len, &ps, err);
    if (rc == FL_OK && ps.len > 255)
        rc = fl_errorf(err, FL_ELIMIT, "ORC PostScript of %zu bytes", ps.len);
    if (rc == FL_OK)
        rc = orc_emit(w, ps.p, ps.len, err);
    uint8_t pslen = (uint8_t)ps.len;
    if (rc == FL_OK)
        rc = orc_emit(w, &pslen, 1, err);
    if (rc == FL_OK && result)
        rc = fill_result(w, w->offset, result, err);
    orc_buf_free(&meta);
    orc_buf_free(&foot);
    orc_buf_free(&ps);
    fl_orc_writer_abort(w);
    return rc;
}

void fl_orc_writer_abort(fl_orc_writer *w)
{
    if (!w)
        return;
    orc_colw_free(w->root);
    orc_buf_free(&w->stripes);
    orc_buf_free(&w->stripe_stats);
    orc_buf_free(&w->scratch);
    orc_buf_free(&w->zbuf);
    free(w->split_offsets);
    fl_arena_free(&w->arena);
    free(w);
}
