/*
 * column_write.c - the ORC writer's column tree: one orc_colw per ORC
 * column (pre-order ids, 0 the root struct), each encoding its streams into
 * memory for the current stripe:
 *   PRESENT    booleans, 1 = a value; dropped at stripe end when the stripe
 *              has no null in the column
 *   DATA       integer RLE v2 (ints, dates, time micros, timestamp seconds
 *              since 2015-01-01 UTC), booleans, IEEE-754 little-endian
 *              floats, bytes of strings and binaries, zigzag base-128
 *              varints of decimals
 *   LENGTH     unsigned RLE v2: string/binary byte lengths, list/map sizes
 *   SECONDARY  timestamp nanoseconds (trailing zeros folded into the low 3
 *              bits, as Java writes them), decimal scales (signed)
 * Encodings are DIRECT_V2 throughout (dictionaries are not written).
 *
 * Nulls: a null struct, list or map row has no entry in its children's
 * streams, and a list/map's children get exactly the elements of its
 * non-null rows, as the reader (column.c) expects.
 *
 * Timestamps: t nanoseconds split into floor seconds and nanos in
 * 0..999999999; before 1970 with nanos > 999999 the seconds are written one
 * higher, because Java and C++ readers subtract a second there. The last
 * second before 1970 has no such form; it is written with negative nanos
 * (pyarrow's form), which C++ readers and floe read exactly.
 */
#include <stdlib.h>
#include <string.h>

#include "orc/orc_write.h"

#define ORC_EPOCH_2015 1420070400LL

static fl_orc_kind kind_of(const fl_type *t)
{
    switch (t->id) {
    case FL_TYPE_BOOLEAN: return FL_ORC_BOOLEAN;
    case FL_TYPE_INT32: return FL_ORC_INT;
    case FL_TYPE_INT64:
    case FL_TYPE_TIME: return FL_ORC_LONG;
    case FL_TYPE_FLOAT32: return FL_ORC_FLOAT;
    case FL_TYPE_FLOAT64: return FL_ORC_DOUBLE;
    case FL_TYPE_DECIMAL: return FL_ORC_DECIMAL;
    case FL_TYPE_DATE: return FL_ORC_DATE;
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMP_NS: return FL_ORC_TIMESTAMP;
    case FL_TYPE_TIMESTAMPTZ:
    case FL_TYPE_TIMESTAMPTZ_NS: return FL_ORC_TIMESTAMP_INSTANT;
    case FL_TYPE_STRING: return FL_ORC_STRING;
    case FL_TYPE_UUID:
    case FL_TYPE_FIXED:
    case FL_TYPE_BINARY: return FL_ORC_BINARY;
    case FL_TYPE_STRUCT: return FL_ORC_STRUCT;
    case FL_TYPE_LIST: return FL_ORC_LIST;
    default: return FL_ORC_MAP;
    }
}

static void wire(orc_colw *c)
{
    c->present.r.out = &c->present_buf;
    c->bools.r.out = &c->data_buf;
    c->ints.out = &c->data_buf;
    c->ints.is_signed = true;
    c->lengths.out = &c->length_buf;
    c->secondary.out = &c->secondary_buf;
    c->secondary.is_signed = c->kind == FL_ORC_DECIMAL;
    orc_wstats_reset(&c->stripe);
    orc_wstats_reset(&c->file);
}

static fl_status build(orc_colw *c, const fl_field *f, const fl_type *t, uint32_t *next,
                       fl_error *err)
{
    c->field = f;
    c->kind = kind_of(t);
    c->id = (*next)++;
    wire(c);
    if (!fl_type_is_nested(t))
        return FL_OK;
    c->nchildren = t->nchildren;
    c->children = calloc(t->nchildren ? t->nchildren : 1, sizeof *c->children);
    if (!c->children)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < t->nchildren; i++)
        FL_TRY(build(&c->children[i], &t->children[i], &t->children[i].type, next, err));
    return FL_OK;
}

fl_status orc_colw_build(const fl_schema *s, orc_colw **root, uint32_t *ncols, fl_error *err)
{
    orc_colw *r = calloc(1, sizeof *r);
    if (!r)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_type rt = {.id = FL_TYPE_STRUCT, .nchildren = s->nfields, .children = s->fields};
    uint32_t next = 0;
    fl_status rc = build(r, NULL, &rt, &next, err);
    if (rc != FL_OK) {
        orc_colw_free(r);
        return rc;
    }
    *root = r;
    *ncols = next;
    return FL_OK;
}

static void free_tree(orc_colw *c)
{
    for (uint32_t i = 0; i < c->nchildren; i++)
        free_tree(&c->children[i]);
    free(c->children);
    orc_buf_free(&c->present_buf);
    orc_buf_free(&c->data_buf);
    orc_buf_free(&c->length_buf);
    orc_buf_free(&c->secondary_buf);
    orc_wstats_reset(&c->stripe);
    orc_wstats_reset(&c->file);
    free(c->rows);
    free(c->dec);
}

void orc_colw_free(orc_colw *c)
{
    if (!c)
        return;
    free_tree(c);
    free(c);
}

orc_colw *orc_colw_at(orc_colw *root, uint32_t id)
{
    if (root->id == id)
        return root;
    for (uint32_t i = 0; i < root->nchildren; i++) {
        orc_colw *k = &root->children[i];
        uint32_t end = i + 1 < root->nchildren ? root->children[i + 1].id : UINT32_MAX;
        if (id >= k->id && id < end)
            return orc_colw_at(k, id);
    }
    return NULL;
}

/* ---- values ---- */

static void int_stats(orc_wstats *s, int64_t x)
{
    if (!s->has_minmax || x < s->imin)
        s->imin = x;
    if (!s->has_minmax || x > s->imax)
        s->imax = x;
    s->has_minmax = true;
    s->isum += x;
    if (s->isum > INT64_MAX || s->isum < INT64_MIN)
        s->sum_ok = false;
}

static void double_stats(orc_wstats *s, double x)
{
    if (x != x) {
        s->nan_count++;
        return;
    }
    if (!s->has_minmax || x < s->dmin)
        s->dmin = x;
    if (!s->has_minmax || x > s->dmax)
        s->dmax = x;
    s->has_minmax = true;
    s->dsum += x;
}

static uint64_t nanos_code(int64_t n)
{
    if (n == 0)
        return 0;
    if (n % 100 != 0)
        return (uint64_t)n << 3;
    n /= 100;
    uint64_t zeros = 1;
    while (n % 10 == 0 && zeros < 7) {
        n /= 10;
        zeros++;
    }
    return (uint64_t)n << 3 | zeros;
}

static fl_status put_timestamp(orc_colw *c, int64_t v, bool nanos, fl_error *err)
{
    __int128 t = nanos ? (__int128)v : (__int128)v * 1000;
    __int128 sec = t / 1000000000, ns = t % 1000000000;
    if (ns < 0) {
        sec--;
        ns += 1000000000;
    }
    int64_t abs = (int64_t)sec, n = (int64_t)ns;
    if (abs < -1 && n > 999999)
        abs++;
    else if (abs == -1 && n > 999999) {
        abs = 0;
        n -= 1000000000;
    }
    int64_t rel = abs - ORC_EPOCH_2015;
    FL_TRY(orc_irle_put(&c->ints, rel, err));
    return orc_irle_put(&c->secondary, (int64_t)nanos_code(n), err);
}

static fl_status put_decimal(orc_colw *c, fl_i128 x, fl_error *err)
{
    unsigned __int128 u = ((unsigned __int128)x << 1) ^ (unsigned __int128)(x >> 127);
    uint8_t b[20];
    size_t n = 0;
    while (u >= 0x80) {
        b[n++] = (uint8_t)(u | 0x80);
        u >>= 7;
    }
    b[n++] = (uint8_t)u;
    FL_TRY(orc_buf_put(&c->data_buf, b, n, err));
    return orc_irle_put(&c->secondary, c->field->type.scale, err);
}

static fl_status put_bytes(orc_colw *c, const uint8_t *p, size_t n, fl_error *err)
{
    FL_TRY(orc_buf_put(&c->data_buf, p, n, err));
    FL_TRY(orc_irle_put(&c->lengths, (int64_t)n, err));
    c->stripe.total_len += n;
    return orc_wstats_string(&c->stripe, p, n, err);
}

/* One non-null primitive value: base row br of the flat vector b. */
static fl_status put_value(orc_colw *c, const fl_vector *b, uint32_t br, fl_error *err)
{
    const fl_type *t = b->type;
    const uint8_t *d = b->data;
    orc_wstats *s = &c->stripe;
    switch (t->id) {
    case FL_TYPE_BOOLEAN: {
        bool x = d[br] != 0;
        s->true_count += x;
        int_stats(s, x);
        return orc_bool_put(&c->bools, x, err);
    }
    case FL_TYPE_INT32:
    case FL_TYPE_DATE: {
        int32_t x;
        memcpy(&x, d + 4 * (size_t)br, 4);
        int_stats(s, x);
        return orc_irle_put(&c->ints, x, err);
    }
    case FL_TYPE_INT64:
    case FL_TYPE_TIME: {
        int64_t x;
        memcpy(&x, d + 8 * (size_t)br, 8);
        int_stats(s, x);
        return orc_irle_put(&c->ints, x, err);
    }
    case FL_TYPE_FLOAT32: {
        float x;
        memcpy(&x, d + 4 * (size_t)br, 4);
        double_stats(s, x);
        return orc_buf_put(&c->data_buf, &x, 4, err);
    }
    case FL_TYPE_FLOAT64: {
        double x;
        memcpy(&x, d + 8 * (size_t)br, 8);
        double_stats(s, x);
        return orc_buf_put(&c->data_buf, &x, 8, err);
    }
    case FL_TYPE_DECIMAL: {
        fl_i128 x;
        memcpy(&x, d + 16 * (size_t)br, 16);
        if (!s->has_minmax || x < s->decmin)
            s->decmin = x;
        if (!s->has_minmax || x > s->decmax)
            s->decmax = x;
        s->has_minmax = true;
        return put_decimal(c, x, err);
    }
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ:
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS: {
        int64_t x;
        memcpy(&x, d + 8 * (size_t)br, 8);
        if (!s->has_minmax || x < s->imin)
            s->imin = x;
        if (!s->has_minmax || x > s->imax)
            s->imax = x;
        s->has_minmax = true;
        bool ns = t->id == FL_TYPE_TIMESTAMP_NS || t->id == FL_TYPE_TIMESTAMPTZ_NS;
        return put_timestamp(c, x, ns, err);
    }
    case FL_TYPE_UUID:
    case FL_TYPE_FIXED:
        return put_bytes(c, d + (size_t)t->fixed_len * br, (size_t)t->fixed_len, err);
    default: { /* STRING, BINARY */
        const uint8_t *p = b->heap + b->offsets[br];
        return put_bytes(c, p, (size_t)(b->offsets[br + 1] - b->offsets[br]), err);
    }
    }
}

static fl_status grow_rows(orc_colw *c, uint64_t n, fl_error *err)
{
    if (n <= c->rows_cap)
        return FL_OK;
    if (n > UINT32_MAX)
        return fl_errorf(err, FL_ELIMIT, "more than 2^32 nested values in one batch");
    uint64_t cap = c->rows_cap ? c->rows_cap : 1024;
    while (cap < n)
        cap *= 2;
    cap = cap > UINT32_MAX ? UINT32_MAX : cap;
    uint32_t *r = realloc(c->rows, cap * sizeof *r);
    if (!r)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    c->rows = r;
    c->rows_cap = (uint32_t)cap;
    return FL_OK;
}

/* The children's rows of the valid rows of a LIST/MAP (lengths written). */
static fl_status nested_rows(orc_colw *c, const fl_vector *b, const uint32_t *valid, uint32_t nv,
                             uint32_t *nchild, fl_error *err)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < nv; i++)
        total += (uint64_t)(b->offsets[valid[i] + 1] - b->offsets[valid[i]]);
    FL_TRY(grow_rows(c, total + nv, err));
    uint32_t k = 0;
    for (uint32_t i = 0; i < nv; i++) {
        int64_t lo = b->offsets[valid[i]], hi = b->offsets[valid[i] + 1];
        FL_TRY(orc_irle_put(&c->lengths, hi - lo, err));
        for (int64_t j = lo; j < hi; j++)
            c->rows[k++] = (uint32_t)j;
    }
    *nchild = k;
    return FL_OK;
}

fl_status orc_colw_write(orc_colw *c, const fl_vector *v, const uint32_t *rows, uint32_t n,
                         fl_error *err)
{
    fl_unified u;
    fl_vector_unify(v, &u);
    const fl_vector *b = u.base;
    bool nested = c->nchildren > 0;
    uint32_t *valid = NULL, nv = 0;
    if (nested) { /* base rows of the valid entries, for the children */
        valid = malloc(((size_t)n + 1) * sizeof *valid);
        if (!valid)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    fl_status rc = FL_OK;
    for (uint32_t i = 0; i < n && rc == FL_OK; i++) {
        uint32_t r = rows ? rows[i] : i;
        bool ok = fl_unified_is_valid(&u, r);
        rc = orc_bool_put(&c->present, ok, err);
        c->stripe_rows++;
        if (!ok) {
            c->stripe_nulls = c->stripe.has_null = true;
            continue;
        }
        c->stripe.values++;
        if (nested)
            valid[nv++] = fl_unified_row(&u, r);
        else if (rc == FL_OK)
            rc = put_value(c, b, fl_unified_row(&u, r), err);
    }
    if (rc == FL_OK && c->kind == FL_ORC_STRUCT) {
        for (uint32_t k = 0; k < c->nchildren && rc == FL_OK; k++)
            rc = orc_colw_write(&c->children[k], &b->children[k], valid, nv, err);
    } else if (rc == FL_OK && nested) {
        uint32_t nchild = 0;
        rc = nested_rows(c, b, valid, nv, &nchild, err);
        for (uint32_t k = 0; k < c->nchildren && rc == FL_OK; k++)
            rc = orc_colw_write(&c->children[k], &b->children[k], c->rows, nchild, err);
    }
    free(valid);
    return rc;
}

fl_status orc_colw_finish(orc_colw *c, fl_error *err)
{
    FL_TRY(orc_bool_flush(&c->present, err));
    FL_TRY(orc_bool_flush(&c->bools, err));
    FL_TRY(orc_irle_flush(&c->ints, err));
    FL_TRY(orc_irle_flush(&c->lengths, err));
    FL_TRY(orc_irle_flush(&c->secondary, err));
    for (uint32_t i = 0; i < c->nchildren; i++)
        FL_TRY(orc_colw_finish(&c->children[i], err));
    return FL_OK;
}

void orc_colw_next_stripe(orc_colw *c)
{
    c->present_buf.len = c->data_buf.len = c->length_buf.len = c->secondary_buf.len = 0;
    c->stripe_nulls = false;
    c->stripe_rows = 0;
    orc_wstats_reset(&c->stripe);
    for (uint32_t i = 0; i < c->nchildren; i++)
        orc_colw_next_stripe(&c->children[i]);
}

uint64_t orc_colw_bytes(const orc_colw *c)
{
    uint64_t n = c->present_buf.len + c->data_buf.len + c->length_buf.len + c->secondary_buf.len;
    n += (uint64_t)(c->ints.n + c->lengths.n + c->secondary.n) * 8;
    for (uint32_t i = 0; i < c->nchildren; i++)
        n += orc_colw_bytes(&c->children[i]);
    return n;
}
