/*
 * session_arrow.c - a result's rows through the Arrow C Data Interface
 * (fl_sql_result_next_arrow, include/floe/sql.h): what language bindings
 * (the Python package) read.
 *
 * Operators hand their output batches around by shallow copies (a
 * projection's output columns are its expressions' vectors), so a batch from
 * fl_sql_result_next() must not have its buffers moved out: another vector
 * still points at them. Each batch is therefore first copied into the
 * result's own batch, buffer by buffer with memcpy for flat columns (a
 * selection, DICT/CONSTANT encodings and nested columns row by row), and the
 * Arrow arrays then adopt that batch's buffers (fl_arrow_export_batch).
 * The bytes are copied once per batch and never converted per value.
 */
#include "session_internal.h"

#include "floe/arrow.h"

#include <string.h>

/* dst (FLAT, same type, reset) = the rows of src. */
static fl_status copy_flat(fl_vector *dst, const fl_vector *src, fl_error *err)
{
    uint32_t n = src->len;
    FL_TRY(fl_vector_reserve(dst, n, err));
    if (src->validity) {
        FL_TRY(fl_vector_ensure_validity(dst, err));
        memcpy(dst->validity, src->validity, ((size_t)n + 7) / 8);
    }
    if (fl_type_is_varlen(src->type)) {
        size_t bytes = n ? (size_t)(src->offsets[n] - src->offsets[0]) : 0;
        FL_TRY(fl_vector_reserve_heap(dst, bytes, err));
        for (uint32_t i = 0; i <= n; i++)
            dst->offsets[i] = src->offsets[i] - src->offsets[0];
        if (bytes)
            memcpy(dst->heap, src->heap + src->offsets[0], bytes);
        dst->heap_len = bytes;
    } else if (n) {
        memcpy(dst->data, src->data, (size_t)n * fl_type_width(src->type));
    }
    dst->len = n;
    return FL_OK;
}

static fl_status copy_vector(fl_vector *dst, const fl_vector *src, fl_error *err)
{
    fl_vector_reset(dst);
    if (src->encoding == FL_VEC_FLAT && !fl_type_is_nested(src->type))
        return copy_flat(dst, src, err);
    FL_TRY(fl_vector_reserve(dst, src->len, err));
    for (uint32_t i = 0; i < src->len; i++)
        FL_TRY(fl_vector_append_from(dst, src, i, err));
    return FL_OK;
}

static fl_status own_batch(fl_sql_result *r, const fl_batch *b, fl_error *err)
{
    if (!r->compact_init) {
        FL_TRY(fl_batch_init(&r->compact, &r->schema, err));
        r->compact_init = true;
    }
    fl_batch *c = &r->compact;
    if (b == c)
        return FL_OK; /* a compacted selection: already the result's own */
    fl_batch_reset(c);
    for (uint32_t k = 0; k < b->ncols && k < c->ncols; k++) {
        fl_status rc = copy_vector(&c->cols[k], &b->cols[k], err);
        if (rc != FL_OK)
            return fl_error_prefix(err, "column '%s'", r->schema.fields[k].name);
    }
    c->nrows = b->nrows;
    return FL_OK;
}

fl_status fl_sql_result_next_arrow(fl_sql_result *r, struct ArrowArray *out, bool *eof,
                                   fl_error *err)
{
    memset(out, 0, sizeof *out);
    const fl_batch *b = NULL;
    FL_TRY(fl_sql_result_next(r, &b, eof, err));
    if (*eof)
        return FL_OK;
    FL_TRY(own_batch(r, b, err));
    return fl_arrow_export_batch(&r->compact, out, err);
}

fl_status fl_sql_result_arrow_schema(const fl_sql_result *r, struct ArrowSchema *out, fl_error *err)
{
    return fl_arrow_export_schema(&r->schema, out, err);
}
