/*
 * pgcat_rows.c - building a catalog relation's rows: a grid of fl_values
 * (arena) filled row by row with per-type defaults, then turned into FLAT
 * vectors whose buffers are also arena memory, so the FL_SCAN_ROWS source
 * is freed with the statement's arena and nobody has to destroy batches.
 * Batches hold at most FL_BATCH_CAP rows.
 */
#include <string.h>

#include "sql/pgcat/pgcat.h"

fl_status fl_pgcat_rows_init(fl_pgcat_rows *r, fl_arena *a, const fl_pgcat_def *d, fl_error *err)
{
    memset(r, 0, sizeof *r);
    r->a = a;
    return fl_pgcat_def_schema(a, d, &r->schema, &r->pgoids, err);
}

fl_status fl_pgcat_rows_add(fl_pgcat_rows *r, fl_error *err)
{
    uint32_t nc = r->schema.nfields;
    if (r->nrows >= 10000000u)
        return fl_errorf(err, FL_ELIMIT, "pg catalog relation has too many rows");
    if (r->nrows == r->cap) {
        uint32_t ncap = r->cap ? r->cap * 2 : 64;
        fl_value *c = fl_arena_alloc(r->a, (size_t)ncap * nc * sizeof(fl_value) + 1);
        if (!c)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        if (r->nrows)
            memcpy(c, r->cells, (size_t)r->nrows * nc * sizeof(fl_value));
        r->cells = c;
        r->cap = ncap;
    }
    fl_value *row = &r->cells[(size_t)r->nrows * nc];
    for (uint32_t i = 0; i < nc; i++) {
        fl_value *v = &row[i];
        memset(v, 0, sizeof *v);
        v->type = r->schema.fields[i].type;
        uint32_t po = r->pgoids[i];
        switch (v->type.id) {
        case FL_TYPE_BOOLEAN:
        case FL_TYPE_INT32:
        case FL_TYPE_INT64:
        case FL_TYPE_FLOAT32:
        case FL_TYPE_FLOAT64: break; /* false / 0 */
        case FL_TYPE_STRING:
            if (po == 18) { /* "char": '' */
                v->v.bytes.ptr = (const uint8_t *)"";
                v->v.bytes.len = 0;
            } else {
                v->is_null = true;
            }
            break;
        default: v->is_null = true; break;
        }
    }
    r->nrows++;
    return FL_OK;
}

static fl_value *cell(fl_pgcat_rows *r, const char *col)
{
    if (!r->nrows)
        return NULL;
    for (uint32_t i = 0; i < r->schema.nfields; i++)
        if (strcmp(r->schema.fields[i].name, col) == 0)
            return &r->cells[(size_t)(r->nrows - 1) * r->schema.nfields + i];
    return NULL;
}

void fl_pgcat_set_str(fl_pgcat_rows *r, const char *col, const char *s)
{
    fl_value *v = cell(r, col);
    if (!v)
        return;
    if (!s) {
        v->is_null = true;
        return;
    }
    if (v->type.id != FL_TYPE_STRING)
        return;
    v->is_null = false;
    v->v.bytes.ptr = (const uint8_t *)s;
    v->v.bytes.len = strlen(s);
}

void fl_pgcat_set_int(fl_pgcat_rows *r, const char *col, int64_t x)
{
    fl_value *v = cell(r, col);
    if (!v)
        return;
    v->is_null = false;
    switch (v->type.id) {
    case FL_TYPE_INT32: v->v.i32 = (int32_t)x; break;
    case FL_TYPE_INT64: v->v.i64 = x; break;
    case FL_TYPE_FLOAT32: v->v.f32 = (float)x; break;
    case FL_TYPE_FLOAT64: v->v.f64 = (double)x; break;
    case FL_TYPE_BOOLEAN: v->v.b = x != 0; break;
    case FL_TYPE_STRING: {
        char *s = fl_arena_sprintf(r->a, "%lld", (long long)x);
        v->v.bytes.ptr = (const uint8_t *)(s ? s : "");
        v->v.bytes.len = s ? strlen(s) : 0;
        break;
    }
    default: v->is_null = true; break;
    }
}

void fl_pgcat_set_bool(fl_pgcat_rows *r, const char *col, bool b)
{
    fl_value *v = cell(r, col);
    if (v && v->type.id == FL_TYPE_BOOLEAN) {
        v->is_null = false;
        v->v.b = b;
    } else if (v && v->type.id == FL_TYPE_STRING) { /* yes_or_no */
        fl_pgcat_set_str(r, col, b ? "YES" : "NO");
    }
}

void fl_pgcat_set_float(fl_pgcat_rows *r, const char *col, double x)
{
    fl_value *v = cell(r, col);
    if (!v)
        return;
    v->is_null = false;
    if (v->type.id == FL_TYPE_FLOAT32)
        v->v.f32 = (float)x;
    else if (v->type.id == FL_TYPE_FLOAT64)
        v->v.f64 = x;
    else
        fl_pgcat_set_int(r, col, (int64_t)x);
}

void fl_pgcat_set_null(fl_pgcat_rows *r, const char *col)
{
    fl_value *v = cell(r, col);
    if (v)
        v->is_null = true;
}

/* One column of rows [from, from+n) as a FLAT vector in the arena. */
static fl_status column(fl_pgcat_rows *r, uint32_t c, uint32_t from, uint32_t n, fl_vector *out,
                        fl_error *err)
{
    const fl_type *t = &r->schema.fields[c].type;
    uint32_t nc = r->schema.nfields;
    memset(out, 0, sizeof *out);
    out->type = t;
    out->encoding = FL_VEC_FLAT;
    out->len = n;
    out->cap = n;
    size_t w = fl_type_width(t);
    size_t dw = w < 4 ? 4 : w;
    out->data = fl_arena_calloc(r->a, (size_t)n + 1, dw);
    out->validity = fl_arena_calloc(r->a, ((size_t)n + 7) / 8 + 1, 1);
    if (!out->data || !out->validity)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    bool varlen = fl_type_is_varlen(t);
    size_t heap = 0;
    if (varlen) {
        out->offsets = fl_arena_calloc(r->a, (size_t)n + 1, sizeof(int64_t));
        if (!out->offsets)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (uint32_t i = 0; i < n; i++) {
            const fl_value *v = &r->cells[(size_t)(from + i) * nc + c];
            if (!v->is_null)
                heap += v->v.bytes.len;
        }
        out->heap = fl_arena_alloc(r->a, heap + 1);
        if (!out->heap)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        out->heap_cap = heap + 1;
    }
    size_t pos = 0;
    for (uint32_t i = 0; i < n; i++) {
        const fl_value *v = &r->cells[(size_t)(from + i) * nc + c];
        if (!v->is_null)
            fl_bitmap_set(out->validity, i, true);
        if (varlen) {
            if (!v->is_null && v->v.bytes.len) {
                memcpy(out->heap + pos, v->v.bytes.ptr, v->v.bytes.len);
                pos += v->v.bytes.len;
            }
            out->offsets[i + 1] = (int64_t)pos;
        } else if (!v->is_null) {
            switch (t->id) {
            case FL_TYPE_BOOLEAN: out->data[i] = v->v.b; break;
            case FL_TYPE_INT32: memcpy(out->data + i * w, &v->v.i32, 4); break;
            case FL_TYPE_FLOAT32: memcpy(out->data + i * w, &v->v.f32, 4); break;
            case FL_TYPE_FLOAT64: memcpy(out->data + i * w, &v->v.f64, 8); break;
            case FL_TYPE_FIXED: memcpy(out->data + i * w, v->v.bytes.ptr, w); break;
            default: memcpy(out->data + i * w, &v->v.i64, 8); break;
            }
        }
    }
    out->heap_len = pos;
    return FL_OK;
}

fl_status fl_pgcat_rows_source(fl_pgcat_rows *r, fl_row_source **out, fl_error *err)
{
    uint32_t nb = (r->nrows + FL_BATCH_CAP - 1) / FL_BATCH_CAP;
    fl_row_source *src = fl_arena_calloc(r->a, 1, sizeof *src);
    fl_batch **bs = fl_arena_calloc(r->a, nb + 1, sizeof *bs);
    fl_schema *schema = fl_arena_alloc(r->a, sizeof *schema); /* r itself may be on the stack */
    if (!src || !bs || !schema)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    *schema = r->schema;
    for (uint32_t bi = 0; bi < nb; bi++) {
        uint32_t from = bi * FL_BATCH_CAP;
        uint32_t n = r->nrows - from < FL_BATCH_CAP ? r->nrows - from : FL_BATCH_CAP;
        fl_batch *b = fl_arena_calloc(r->a, 1, sizeof *b);
        fl_vector *cols = fl_arena_calloc(r->a, r->schema.nfields + 1, sizeof *cols);
        if (!b || !cols)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (uint32_t c = 0; c < r->schema.nfields; c++)
            FL_TRY(column(r, c, from, n, &cols[c], err));
        b->schema = schema;
        b->ncols = r->schema.nfields;
        b->cols = cols;
        b->nrows = n;
        bs[bi] = b;
    }
    src->batches = (const fl_batch *const *)bs;
    src->nbatches = nb;
    *out = src;
    return FL_OK;
}
