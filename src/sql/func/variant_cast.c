/*
 * variant_cast.c - variants to SQL values and SQL values to variants: the
 * casts (CAST(v AS int), CAST('{"a":1}' AS variant)) and variant_get's
 * typed results.
 *
 * A variant converts to a SQL type as Spark's variant_get does: a variant
 * null is SQL NULL; numbers convert between the numeric types with range
 * checks (22003); a string converts as text would (CAST('12' AS int)); to
 * text, a string is its characters and anything else its JSON; objects and
 * arrays convert only to text (JSON) or variant. The common cases (numbers,
 * booleans, strings) are written directly; the rest go through the text
 * and temporal casts of cast.c by way of a one-row vector of the value's
 * natural type, so their rules are PostgreSQL's, stated once.
 *
 * Into a variant: text is parsed as JSON (like PostgreSQL's ::json), bytea
 * must already be a variant (checked), other scalars become the variant
 * kind of their type.
 */
#include <stdio.h>

#include "floe/variant.h"
#include "sql/func/func_internal.h"

/* NULL for try_ forms (lenient), else the error "<what> <target type>". */
static fl_status conv_fail(fl_vconv *c, uint32_t row, fl_status code, const char *state,
                           const char *what)
{
    char tn[64];
    if (c->lenient)
        return fl_out_null(c->out, row, c->err);
    return fl_error_state(c->err, code, state, "%s %s", what,
                          fl_sql_type_name(c->to, tn, sizeof tn));
}

static fl_status not_convertible(fl_vconv *c, uint32_t row, fl_variant_kind k)
{
    char what[64];
    snprintf(what, sizeof what, "cannot convert a variant %s to", fl_variant_kind_name(k));
    return conv_fail(c, row, FL_ETYPE, "22P02", what);
}

static fl_status out_of_range(fl_vconv *c, uint32_t row)
{
    return conv_fail(c, row, FL_EOVERFLOW, "22003", "variant value out of range for");
}

/* The floe type a primitive kind reads as; false for objects and arrays. */
static bool natural_type(const fl_variant_scalar *s, fl_type *t)
{
    switch (s->kind) {
    case FL_VK_TRUE:
    case FL_VK_FALSE: *t = fl_mk(FL_TYPE_BOOLEAN); return true;
    case FL_VK_INT8:
    case FL_VK_INT16:
    case FL_VK_INT32: *t = fl_mk(FL_TYPE_INT32); return true;
    case FL_VK_INT64: *t = fl_mk(FL_TYPE_INT64); return true;
    case FL_VK_DOUBLE: *t = fl_mk(FL_TYPE_FLOAT64); return true;
    case FL_VK_FLOAT: *t = fl_mk(FL_TYPE_FLOAT32); return true;
    case FL_VK_DECIMAL4:
    case FL_VK_DECIMAL8:
    case FL_VK_DECIMAL16: *t = fl_mk_dec(38, s->scale); return true;
    case FL_VK_DATE: *t = fl_mk(FL_TYPE_DATE); return true;
    case FL_VK_TIMESTAMP: *t = fl_mk(FL_TYPE_TIMESTAMPTZ); return true;
    case FL_VK_TIMESTAMP_NTZ: *t = fl_mk(FL_TYPE_TIMESTAMP); return true;
    case FL_VK_TIMESTAMP_NS: *t = fl_mk(FL_TYPE_TIMESTAMPTZ_NS); return true;
    case FL_VK_TIMESTAMP_NTZ_NS: *t = fl_mk(FL_TYPE_TIMESTAMP_NS); return true;
    case FL_VK_TIME: *t = fl_mk(FL_TYPE_TIME); return true;
    case FL_VK_BINARY: *t = fl_mk(FL_TYPE_BINARY); return true;
    case FL_VK_STRING: *t = fl_mk(FL_TYPE_STRING); return true;
    case FL_VK_UUID:
        *t = fl_mk(FL_TYPE_UUID);
        t->fixed_len = 16;
        return true;
    default: return false;
    }
}

static fl_status append_natural(const fl_variant_scalar *s, fl_vector *v, fl_error *err)
{
    switch (v->type->id) {
    case FL_TYPE_BOOLEAN: {
        uint8_t b = s->kind == FL_VK_TRUE;
        return fl_vector_append_fixed(v, &b, err);
    }
    case FL_TYPE_INT32:
    case FL_TYPE_DATE: {
        int32_t x = (int32_t)s->v.i;
        return fl_vector_append_fixed(v, &x, err);
    }
    case FL_TYPE_FLOAT64: return fl_vector_append_fixed(v, &s->v.d, err);
    case FL_TYPE_FLOAT32: return fl_vector_append_fixed(v, &s->v.f, err);
    case FL_TYPE_DECIMAL: return fl_vector_append_fixed(v, &s->v.dec, err);
    case FL_TYPE_STRING:
    case FL_TYPE_BINARY: return fl_vector_append_bytes(v, s->v.bytes, s->len, err);
    case FL_TYPE_UUID: return fl_vector_append_fixed(v, s->v.bytes, err);
    default: return fl_vector_append_fixed(v, &s->v.i, err); /* int64, times */
    }
}

/* Row 0 of one-row vector src into row `row` of the output. */
static fl_status put_row0(fl_vconv *c, uint32_t row, const fl_vector *src)
{
    if (!fl_vector_is_valid(src, 0))
        return fl_out_null(c->out, row, c->err);
    if (fl_type_is_varlen(c->to)) {
        size_t n;
        const uint8_t *p = fl_vector_bytes(src, 0, &n);
        return strout_put(c->so, row, p, n, c->err);
    }
    size_t w = fl_type_width(c->to);
    memcpy(c->out->data + (size_t)row * w, src->data, w);
    return FL_OK;
}

/* Anything the direct paths do not take: through cast.c's casts. */
static fl_status via_cast(fl_vconv *c, uint32_t row, const fl_variant_scalar *s, const fl_type *nt)
{
    fl_vector vi, vo;
    fl_type tin = *nt;
    FL_TRY(fl_vector_init(&vi, &tin, c->err));
    fl_status rc = fl_vector_init(&vo, c->to, c->err);
    if (rc != FL_OK) {
        fl_vector_destroy(&vi);
        return rc;
    }
    rc = append_natural(s, &vi, c->err);
    if (rc == FL_OK)
        rc = fl_cast_vector_tz(&vi, NULL, 1, c->to, c->lenient, c->tz, &vo, c->err);
    if (rc == FL_OK)
        rc = put_row0(c, row, &vo);
    fl_vector_destroy(&vo);
    fl_vector_destroy(&vi);
    return rc;
}

static bool is_int_kind(fl_variant_kind k)
{
    return k >= FL_VK_INT8 && k <= FL_VK_INT64;
}

static fl_status put_integer(fl_vconv *c, uint32_t row, int64_t x)
{
    if (c->to->id == FL_TYPE_INT32) {
        if (x < INT32_MIN || x > INT32_MAX)
            return out_of_range(c, row);
        OUTV(c->out, int32_t)[row] = (int32_t)x;
    } else if (c->to->id == FL_TYPE_INT64) {
        OUTV(c->out, int64_t)[row] = x;
    } else if (c->to->id == FL_TYPE_FLOAT64) {
        OUTV(c->out, double)[row] = (double)x;
    } else {
        OUTV(c->out, float)[row] = (float)x;
    }
    return FL_OK;
}

/* Text of any value: a string's characters, else its JSON. */
static fl_status put_text(fl_vconv *c, uint32_t row, const fl_variant *x, fl_variant_kind k)
{
    if (k == FL_VK_STRING) {
        fl_variant_scalar s;
        FL_TRY(fl_variant_scalar_of(x, &s, c->err));
        return strout_put(c->so, row, s.v.bytes, s.len, c->err);
    }
    c->tmp.len = 0;
    FL_TRY(fl_variant_to_json(x, &c->tmp, c->err));
    return strout_put(c->so, row, c->tmp.bytes, c->tmp.len, c->err);
}

/* A variant output: the value as a variant of its own (the whole metadata
 * with the sub-value: unused keys in a dictionary are allowed). */
static fl_status put_variant(fl_vconv *c, uint32_t row, const fl_variant *x)
{
    size_t size;
    FL_TRY(fl_variant_size(x, &size, c->err));
    uint8_t *dst;
    size_t mlen = x->meta->len;
    FL_TRY(strout_reserve(c->so, mlen + size, &dst, c->err));
    memcpy(dst, x->meta->bytes, mlen);
    memcpy(dst + mlen, x->p, size);
    strout_commit(c->so, row, mlen + size);
    return FL_OK;
}

fl_status fl_variant_put(fl_vconv *c, uint32_t row, const fl_variant *x)
{
    if (fl_type_is_variant(c->to))
        return put_variant(c, row, x);
    fl_variant_kind k;
    FL_TRY(fl_variant_kind_of(x, &k, c->err));
    if (k == FL_VK_NULL)
        return fl_out_null(c->out, row, c->err);
    if (c->to->id == FL_TYPE_STRING)
        return put_text(c, row, x, k);
    if (k == FL_VK_OBJECT || k == FL_VK_ARRAY)
        return not_convertible(c, row, k);
    fl_variant_scalar s;
    FL_TRY(fl_variant_scalar_of(x, &s, c->err));
    fl_type_id to = c->to->id;
    bool to_num = to == FL_TYPE_INT32 || to == FL_TYPE_INT64 || to == FL_TYPE_FLOAT64 ||
                  to == FL_TYPE_FLOAT32;
    if (to_num && is_int_kind(s.kind))
        return put_integer(c, row, s.v.i);
    if (to == FL_TYPE_FLOAT64 && s.kind == FL_VK_DOUBLE) {
        OUTV(c->out, double)[row] = s.v.d;
        return FL_OK;
    }
    if (to == FL_TYPE_BOOLEAN && (s.kind == FL_VK_TRUE || s.kind == FL_VK_FALSE)) {
        c->out->data[row] = s.kind == FL_VK_TRUE;
        return FL_OK;
    }
    fl_type nt;
    if (!natural_type(&s, &nt))
        return not_convertible(c, row, k);
    if (!fl_cast_allowed(&nt, c->to, false))
        return not_convertible(c, row, k);
    return via_cast(c, row, &s, &nt);
}

/* ---- other types into variants ---- */

static fl_status scalar_of_row(const fl_vector *b, uint32_t r, fl_variant_scalar *s, bool *ok)
{
    const fl_type *t = b->type;
    const uint8_t *d = b->data;
    memset(s, 0, sizeof *s);
    *ok = true;
    switch (t->id) {
    case FL_TYPE_BOOLEAN: s->kind = d[r] ? FL_VK_TRUE : FL_VK_FALSE; break;
    case FL_TYPE_INT32:
        s->kind = FL_VK_INT32;
        s->v.i = ((const int32_t *)(const void *)d)[r];
        break;
    case FL_TYPE_DATE:
        s->kind = FL_VK_DATE;
        s->v.i = ((const int32_t *)(const void *)d)[r];
        break;
    case FL_TYPE_INT64:
    case FL_TYPE_TIME:
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ:
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS:
        s->kind = t->id == FL_TYPE_INT64          ? FL_VK_INT64
                  : t->id == FL_TYPE_TIME         ? FL_VK_TIME
                  : t->id == FL_TYPE_TIMESTAMP    ? FL_VK_TIMESTAMP_NTZ
                  : t->id == FL_TYPE_TIMESTAMPTZ  ? FL_VK_TIMESTAMP
                  : t->id == FL_TYPE_TIMESTAMP_NS ? FL_VK_TIMESTAMP_NTZ_NS
                                                  : FL_VK_TIMESTAMP_NS;
        s->v.i = ((const int64_t *)(const void *)d)[r];
        break;
    case FL_TYPE_FLOAT32:
        s->kind = FL_VK_FLOAT;
        s->v.f = ((const float *)(const void *)d)[r];
        break;
    case FL_TYPE_FLOAT64:
        s->kind = FL_VK_DOUBLE;
        s->v.d = ((const double *)(const void *)d)[r];
        break;
    case FL_TYPE_DECIMAL:
        s->kind = t->precision <= 9    ? FL_VK_DECIMAL4
                  : t->precision <= 18 ? FL_VK_DECIMAL8
                                       : FL_VK_DECIMAL16;
        memcpy(&s->v.dec, d + (size_t)r * 16, 16);
        s->scale = t->scale;
        break;
    case FL_TYPE_UUID:
        s->kind = FL_VK_UUID;
        s->v.bytes = d + (size_t)r * 16;
        s->len = 16;
        break;
    case FL_TYPE_BINARY:
        s->kind = FL_VK_BINARY;
        s->v.bytes = fl_vector_bytes(b, r, &s->len);
        break;
    default: *ok = false; break;
    }
    return FL_OK;
}

fl_status fl_variant_cast_in(const fl_unified *u, const fl_sel *sel, uint32_t nrows, bool lenient,
                             fl_vector *out, fl_error *err)
{
    const fl_type *from = u->base->type;
    strout so;
    strout_init(&so, out);
    fl_buf buf;
    fl_buf_init(&buf, 0);
    fl_variant_builder vb;
    fl_vb_init(&vb);
    fl_status rc = FL_OK;
    FOR_ROWS(sel, nrows, i, {
        if (rc != FL_OK || !fl_unified_is_valid(u, i))
            continue;
        uint32_t r = fl_unified_row(u, i);
        fl_error e = {0};
        fl_status st = FL_OK;
        buf.len = 0;
        if (from->id == FL_TYPE_STRING) {
            size_t n;
            const uint8_t *p = fl_vector_bytes(u->base, r, &n);
            st = fl_variant_from_json((const char *)p, n, &buf, &e);
        } else if (from->id == FL_TYPE_BINARY && !fl_type_is_variant(from)) {
            size_t n;
            const uint8_t *p = fl_vector_bytes(u->base, r, &n);
            st = fl_variant_check(p, n, &e);
            if (st == FL_OK)
                st = fl_buf_append(&buf, p, n, &e);
        } else {
            fl_variant_scalar s;
            bool ok;
            scalar_of_row(u->base, r, &s, &ok);
            char tn[64];
            if (!ok)
                st = fl_errorf(&e, FL_ETYPE, "cannot cast type %s to variant",
                               fl_sql_type_name(from, tn, sizeof tn));
            if (st == FL_OK)
                st = fl_vb_scalar(&vb, &s, &e);
            if (st == FL_OK)
                st = fl_vb_finish(&vb, &buf, &e);
        }
        if (st == FL_ENOMEM)
            rc = fl_errorf(err, FL_ENOMEM, "%s", e.msg);
        else if (st != FL_OK && lenient)
            rc = fl_out_null(out, i, err);
        else if (st != FL_OK)
            rc =
                fl_error_state(err, FL_ETYPE, "22P02", "invalid input for type variant: %s", e.msg);
        else
            rc = strout_put(&so, i, buf.bytes, buf.len, err);
    });
    strout_finish(&so, nrows);
    fl_vb_free(&vb);
    fl_buf_free(&buf);
    return rc;
}

fl_status fl_variant_cast_out(const fl_unified *u, const fl_sel *sel, uint32_t nrows,
                              const fl_type *to, bool lenient, const fl_tz *tz, fl_vector *out,
                              fl_error *err)
{
    strout so;
    if (fl_type_is_varlen(to))
        strout_init(&so, out);
    fl_vconv c = {.to = to, .lenient = lenient, .tz = tz, .out = out, .so = &so, .err = err};
    fl_buf_init(&c.tmp, 0);
    fl_status rc = FL_OK;
    FOR_ROWS(sel, nrows, i, {
        if (rc != FL_OK || !fl_unified_is_valid(u, i))
            continue;
        size_t n;
        const uint8_t *p = fl_vector_bytes(u->base, fl_unified_row(u, i), &n);
        fl_variant_meta m;
        fl_variant x;
        rc = fl_variant_open(p, n, &m, &x, err);
        if (rc == FL_OK)
            rc = fl_variant_put(&c, i, &x);
    });
    if (fl_type_is_varlen(to))
        strout_finish(&so, nrows);
    fl_buf_free(&c.tmp);
    return rc;
}
