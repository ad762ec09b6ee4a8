/*
 * scan_colmap.c - from file columns to table columns, per batch (see
 * scan_colmap.h and the design comment of scan_task.c).
 *
 * Same-layout columns move without copying: the vector structs of the
 * Parquet batch and the output batch are swapped and their type pointers
 * re-pointed (recursively); the Parquet batch reuses the swapped-in buffers
 * on its next batch. Promotions convert in one tight loop per batch over a
 * unified view of the source (FLAT/DICT/CONSTANT). Structs with changed
 * fields are rebuilt field by field (children swapped or converted, missing
 * ones filled with their default), reusing the parent's validity bits.
 */
#include <stdlib.h>
#include <string.h>

#include "iceberg/scan_colmap.h"

static bool same_layout(const fl_type *a, const fl_type *b)
{
    fl_type_id x = a->id, y = b->id;
    if (fl_type_is_nested(a) || fl_type_is_nested(b)) {
        if (x != y || a->nchildren != b->nchildren)
            return false;
        for (uint32_t i = 0; i < a->nchildren; i++)
            if (!same_layout(&a->children[i].type, &b->children[i].type))
                return false;
        return true;
    }
    if (x == y)
        return x != FL_TYPE_FIXED || a->fixed_len == b->fixed_len;
    if (fl_type_is_varlen(a) && fl_type_is_varlen(b))
        return true;
    if ((x == FL_TYPE_TIMESTAMP || x == FL_TYPE_TIMESTAMPTZ) &&
        (y == FL_TYPE_TIMESTAMP || y == FL_TYPE_TIMESTAMPTZ))
        return true;
    if ((x == FL_TYPE_TIMESTAMP_NS || x == FL_TYPE_TIMESTAMPTZ_NS) &&
        (y == FL_TYPE_TIMESTAMP_NS || y == FL_TYPE_TIMESTAMPTZ_NS))
        return true;
    if ((x == FL_TYPE_UUID || x == FL_TYPE_FIXED) && (y == FL_TYPE_UUID || y == FL_TYPE_FIXED))
        return fl_type_width(a) == fl_type_width(b);
    return false;
}

static bool is_us(fl_type_id t)
{
    return t == FL_TYPE_TIMESTAMP || t == FL_TYPE_TIMESTAMPTZ;
}
static bool is_ns(fl_type_id t)
{
    return t == FL_TYPE_TIMESTAMP_NS || t == FL_TYPE_TIMESTAMPTZ_NS;
}

static fl_status type_error(const fl_type *file, const fl_field *target, fl_error *err)
{
    char a[256], b[256];
    fl_type_format(file, a, sizeof a);
    fl_type_format(&target->type, b, sizeof b);
    return fl_errorf(err, FL_ETYPE, "column '%s' (id %d): file type %s cannot be read as %s",
                     target->name, target->field_id, a, b);
}

/* True when the nested types also agree on field ids (ids absent in the
 * file count as agreeing: such files are matched by position). */
static bool same_ids(const fl_type *a, const fl_type *b)
{
    if (!fl_type_is_nested(a))
        return true;
    for (uint32_t i = 0; i < a->nchildren && i < b->nchildren; i++) {
        int32_t x = a->children[i].field_id;
        if ((x > 0 && x != b->children[i].field_id) ||
            !same_ids(&a->children[i].type, &b->children[i].type))
            return false;
    }
    return true;
}

/* Builds the map from file type `file` to table field `target`. Struct
 * fields are matched by field id: missing ones read as their initial-default
 * (schema extras of s) or null, extra file fields are dropped, promoted ones
 * convert. Lists and maps must have the same shape. */
fl_status ice_colmap_build(const fl_type *file, const fl_field *target, const fl_ice_schema *s,
                           fl_arena *a, colmap *out, fl_error *err)
{
    const fl_type *t = &target->type;
    memset(out, 0, sizeof *out);
    if (same_layout(file, t) && same_ids(file, t)) {
        if (file->id == FL_TYPE_DECIMAL && file->scale != t->scale)
            return type_error(file, target, err);
        out->conv = CONV_SWAP;
        return FL_OK;
    }
    if (file->id == FL_TYPE_STRUCT && t->id == FL_TYPE_STRUCT) {
        out->conv = CONV_STRUCT;
        out->nchildren = t->nchildren;
        out->src_child = fl_arena_calloc(a, t->nchildren + 1, sizeof *out->src_child);
        out->children = fl_arena_calloc(a, t->nchildren + 1, sizeof *out->children);
        out->missing = fl_arena_calloc(a, t->nchildren + 1, sizeof *out->missing);
        FL_CHECK(out->src_child && out->children && out->missing, err, FL_ENOMEM, "out of memory");
        for (uint32_t i = 0; i < t->nchildren; i++) {
            const fl_field *tf = &t->children[i];
            int k = -1;
            for (uint32_t j = 0; j < file->nchildren && k < 0; j++)
                if (file->children[j].field_id == tf->field_id)
                    k = (int)j;
            out->src_child[i] = k;
            if (k >= 0) {
                FL_TRY(ice_colmap_build(&file->children[k].type, tf, s, a, &out->children[i], err));
                continue;
            }
            fl_value *mv = &out->missing[i];
            const fl_ice_field_extra *x = fl_ice_schema_extra(s, tf->field_id);
            if (x && x->initial_default && !fl_type_is_nested(&tf->type)) {
                fl_status rc = ice_default_parse(&tf->type, x->initial_default, a, mv, err);
                if (rc != FL_OK)
                    return fl_error_prefix(err, "column '%s'", tf->name);
            } else {
                mv->type = tf->type;
                mv->type.nchildren = 0;
                mv->type.children = NULL;
                mv->is_null = true;
            }
        }
        return FL_OK;
    }
    if (file->id == FL_TYPE_INT32 && t->id == FL_TYPE_INT64)
        out->conv = CONV_I32_I64;
    else if (file->id == FL_TYPE_FLOAT32 && t->id == FL_TYPE_FLOAT64)
        out->conv = CONV_F32_F64;
    else if (file->id == FL_TYPE_DATE && is_us(t->id))
        out->conv = CONV_DATE_TS_US;
    else if (file->id == FL_TYPE_DATE && is_ns(t->id))
        out->conv = CONV_DATE_TS_NS;
    else if (is_ns(file->id) && is_us(t->id))
        out->conv = CONV_NS_US;
    else if (is_us(file->id) && is_ns(t->id))
        out->conv = CONV_US_NS;
    else
        return type_error(file, target, err);
    return FL_OK;
}

static void retype(fl_vector *v, const fl_type *t)
{
    v->type = t;
    for (uint32_t i = 0; i < v->nchildren && i < t->nchildren; i++)
        retype(&v->children[i], &t->children[i].type);
    if (v->encoding == FL_VEC_DICT && v->dict && v->owns_dict)
        retype(v->dict, t);
}

fl_status ice_fill_const(fl_vector *v, const fl_value *c, uint32_t n, fl_error *err)
{
    fl_vector_reset(v);
    if (n == 0)
        return FL_OK;
    if (c->is_null) {
        FL_TRY(fl_vector_append_null(v, err));
    } else {
        switch (v->type->id) {
        case FL_TYPE_STRING:
        case FL_TYPE_BINARY:
            FL_TRY(fl_vector_append_bytes(v, c->v.bytes.ptr, c->v.bytes.len, err));
            break;
        case FL_TYPE_FIXED:
        case FL_TYPE_UUID: FL_TRY(fl_vector_append_fixed(v, c->v.bytes.ptr, err)); break;
        case FL_TYPE_BOOLEAN: {
            uint8_t b = c->v.b;
            FL_TRY(fl_vector_append_fixed(v, &b, err));
            break;
        }
        default: FL_TRY(fl_vector_append_fixed(v, &c->v, err)); break;
        }
    }
    v->encoding = FL_VEC_CONSTANT;
    v->len = n;
    if (fl_type_is_nested(v->type)) /* nested readers expect FLAT vectors */
        FL_TRY(fl_vector_flatten(v, err));
    return FL_OK;
}

static fl_status convert(fl_vector *dst, const fl_vector *src, conv_kind k, uint32_t n,
                         fl_error *err)
{
    fl_vector_reset(dst);
    FL_TRY(fl_vector_reserve(dst, n, err));
    fl_unified u;
    fl_vector_unify(src, &u);
    const uint8_t *sd = u.base->data;
    bool nulls = false;
    for (uint32_t i = 0; i < n && !nulls; i++)
        nulls = !fl_unified_is_valid(&u, i);
    if (nulls) {
        FL_TRY(fl_vector_ensure_validity(dst, err));
        for (uint32_t i = 0; i < n; i++)
            fl_bitmap_set(dst->validity, i, fl_unified_is_valid(&u, i));
    }
    switch (k) {
    case CONV_I32_I64:
    case CONV_DATE_TS_US:
    case CONV_DATE_TS_NS: {
        int64_t mul = k == CONV_I32_I64      ? 1
                      : k == CONV_DATE_TS_US ? 86400000000LL
                                             : 86400000000000LL;
        int64_t *o = (int64_t *)dst->data;
        const int32_t *s = (const int32_t *)sd;
        for (uint32_t i = 0; i < n; i++)
            o[i] = (int64_t)s[fl_unified_row(&u, i)] * mul;
        break;
    }
    case CONV_F32_F64: {
        double *o = (double *)dst->data;
        const float *s = (const float *)sd;
        for (uint32_t i = 0; i < n; i++)
            o[i] = s[fl_unified_row(&u, i)];
        break;
    }
    case CONV_NS_US:
    case CONV_US_NS: {
        int64_t *o = (int64_t *)dst->data;
        const int64_t *s = (const int64_t *)sd;
        for (uint32_t i = 0; i < n; i++) {
            int64_t x = s[fl_unified_row(&u, i)];
            o[i] = k == CONV_US_NS ? x * 1000 : x / 1000 - (x % 1000 < 0);
        }
        break;
    }
    case CONV_SWAP:
    case CONV_STRUCT: break;
    }
    dst->len = n;
    return FL_OK;
}

/* Fills dst (table type t) with n rows from src (a Parquet batch column)
 * per map m. */
fl_status ice_colmap_fill(fl_vector *dst, const fl_type *t, fl_vector *src, const colmap *m,
                          uint32_t n, fl_error *err)
{
    if (m->conv == CONV_SWAP) {
        if (src->encoding == FL_VEC_DICT && src->dict && !src->owns_dict &&
            src->dict->type->id != t->id)
            FL_TRY(fl_vector_flatten(src, err));
        const fl_type *st = src->type;
        fl_vector tmp = *dst;
        *dst = *src;
        *src = tmp;
        retype(dst, t);
        retype(src, st);
        return FL_OK;
    }
    if (m->conv != CONV_STRUCT)
        return convert(dst, src, m->conv, n, err);
    if (src->encoding != FL_VEC_FLAT)
        FL_TRY(fl_vector_flatten(src, err));
    fl_vector_reset(dst);
    FL_TRY(fl_vector_reserve(dst, n, err));
    if (src->validity) {
        FL_TRY(fl_vector_ensure_validity(dst, err));
        memcpy(dst->validity, src->validity, (n + 7) / 8);
    }
    for (uint32_t i = 0; i < m->nchildren; i++) {
        fl_vector *dc = &dst->children[i];
        const fl_type *ct = &t->children[i].type;
        if (m->src_child[i] >= 0) {
            FL_TRY(
                ice_colmap_fill(dc, ct, &src->children[m->src_child[i]], &m->children[i], n, err));
        } else {
            FL_TRY(ice_fill_const(dc, &m->missing[i], n, err));
            FL_TRY(fl_vector_flatten(dc, err)); /* struct children stay FLAT */
        }
    }
    dst->len = n;
    return FL_OK;
}
