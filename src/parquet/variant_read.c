/*
 * variant_read.c - Parquet VARIANT groups back into variant values
 * (parquet-format VariantShredding.md).
 *
 * A VARIANT group holds a required binary `metadata` and an optional binary
 * `value` (an unshredded variant), and may hold a `typed_value`: the same
 * value stored as a Parquet column of its own type (shredded). typed_value
 * is a primitive column, a group of fields (an object, each field again a
 * {value, typed_value} group) or a LIST of {value, typed_value} elements
 * (an array). Per row:
 *
 *   value   typed_value  meaning
 *   null    null         missing: an absent object field (a variant null
 *                        where a value is required: the top level, arrays)
 *   set     null         the value, as encoded
 *   null    set          the typed value
 *   set     set          a partially shredded object: typed_value's fields
 *                        plus value's, which must be an object
 *
 * The scan has already assembled the group's rows into a STRUCT vector (the
 * node's `phys` type); here each row becomes one floe variant (metadata then
 * value, floe/variant.h) through a builder seeded with the row's metadata,
 * so unshredded parts are copied byte for byte. Shredded primitive types
 * follow the spec's table; others (unsigned ints, fixed bytes other than a
 * UUID, millisecond times) are refused naming the column, never guessed.
 */
#include <stdio.h>
#include <string.h>

#include "floe/variant.h"
#include "parquet/reader_int.h"

typedef struct unshred {
    fl_variant_builder vb;
    fl_variant_meta meta;
    const char *column; /* the variant column's name, for errors */
} unshred;

static const fl_pq_node *child_named(const fl_pq_node *n, const char *name, uint32_t *idx)
{
    for (uint32_t c = 0; c < n->nchildren; c++) {
        if (strcmp(n->children[c].field->name, name) == 0) {
            *idx = c;
            return &n->children[c];
        }
    }
    return NULL;
}

static bool is_binary_leaf(const fl_pq_node *n)
{
    return n->kind == FL_PQN_LEAF && n->leaf->physical == FL_PQ_BYTE_ARRAY &&
           n->field->type.id == FL_TYPE_BINARY;
}

/* A {value, typed_value} group (the variant itself, an object field, an
 * array element): at least one of the two, nothing else but metadata. */
static fl_status check_value_group(fl_pq_node *n, bool top, fl_error *err)
{
    uint32_t k;
    const fl_pq_node *v = child_named(n, "value", &k);
    n->var_value = v ? (int16_t)k : -1;
    fl_pq_node *t = (fl_pq_node *)child_named(n, "typed_value", &k);
    n->var_typed = t ? (int16_t)k : -1;
    const fl_pq_node *m = child_named(n, "metadata", &k);
    const char *name = n->field->name;
    FL_CHECK(v || t, err, FL_EUNSUPPORTED,
             "schema: variant group '%s' has neither 'value' nor 'typed_value'", name);
    FL_CHECK(!v || is_binary_leaf(v), err, FL_EUNSUPPORTED,
             "schema: variant group '%s': 'value' is not a binary column", name);
    FL_CHECK(n->nchildren == (uint32_t)(v != NULL) + (t != NULL) + (top && m), err, FL_EUNSUPPORTED,
             "schema: variant group '%s' has fields other than %s", name,
             top ? "metadata, value and typed_value" : "value and typed_value");
    if (!t || t->kind == FL_PQN_LEAF)
        return FL_OK;
    if (t->kind == FL_PQN_STRUCT) {
        for (uint32_t c = 0; c < t->nchildren; c++) {
            FL_CHECK(t->children[c].kind == FL_PQN_STRUCT, err, FL_EUNSUPPORTED,
                     "schema: variant group '%s': shredded field '%s' is not a group", name,
                     t->children[c].field->name);
            FL_TRY(check_value_group(&t->children[c], false, err));
        }
        return FL_OK;
    }
    FL_CHECK(t->kind == FL_PQN_LIST && t->children[0].kind == FL_PQN_STRUCT, err, FL_EUNSUPPORTED,
             "schema: variant group '%s': typed_value is neither a primitive, a group of fields "
             "nor a list of groups",
             name);
    return check_value_group(&t->children[0], false, err);
}

fl_status fl_pq_variant_check_group(fl_pq_node *n, fl_error *err)
{
    uint32_t k;
    const fl_pq_node *m = child_named(n, "metadata", &k);
    FL_CHECK(m && is_binary_leaf(m) && !m->field->nullable, err, FL_EUNSUPPORTED,
             "schema: variant group '%s' has no required binary 'metadata'", n->field->name);
    return check_value_group(n, true, err);
}

/* ---- reading one row ---- */

/* Row access for any encoding; the scan's column vectors are FLAT, which
 * skips the unify. */
static bool vvalid(const fl_vector *v, uint32_t row)
{
    if (v->encoding == FL_VEC_FLAT)
        return fl_vector_is_valid(v, row);
    fl_unified u;
    fl_vector_unify(v, &u);
    return fl_unified_is_valid(&u, row);
}

static const uint8_t *vbytes(const fl_vector *v, uint32_t row, size_t *len)
{
    if (v->encoding == FL_VEC_FLAT)
        return fl_vector_bytes(v, row, len);
    fl_unified u;
    fl_vector_unify(v, &u);
    return fl_vector_bytes(u.base, fl_unified_row(&u, row), len);
}

static const void *vfixed(const fl_vector *v, uint32_t row)
{
    if (v->encoding == FL_VEC_FLAT)
        return v->data + (size_t)row * fl_type_width(v->type);
    fl_unified u;
    fl_vector_unify(v, &u);
    return u.base->data + (size_t)fl_unified_row(&u, row) * fl_type_width(v->type);
}

static fl_status unsupported(const fl_pq_leaf *leaf, const char *what, fl_error *err)
{
    return fl_errorf(err, FL_EUNSUPPORTED, "column '%s': unsupported shredded value type %s",
                     leaf->path, what);
}

/* The variant kind a shredded primitive column holds (the spec's table). */
static fl_status leaf_kind(const fl_pq_leaf *leaf, fl_variant_kind *k, fl_error *err)
{
    const fl_pq_logical *lt = leaf->info.logical;
    const fl_type *t = leaf->type;
    if (lt && lt->kind == FL_PQ_LT_INTEGER) {
        if (!lt->int_is_signed) {
            char what[32];
            snprintf(what, sizeof what, "INTEGER(%d,false)", lt->int_bit_width);
            return unsupported(leaf, what, err);
        }
        *k = lt->int_bit_width == 8    ? FL_VK_INT8
             : lt->int_bit_width == 16 ? FL_VK_INT16
             : lt->int_bit_width == 32 ? FL_VK_INT32
                                       : FL_VK_INT64;
        return FL_OK;
    }
    if (leaf->info.converted >= FL_PQ_CT_UINT_8 && leaf->info.converted <= FL_PQ_CT_UINT_64)
        return unsupported(leaf, "unsigned integer", err);
    if (leaf->info.converted == FL_PQ_CT_INT_8 || leaf->info.converted == FL_PQ_CT_INT_16) {
        *k = leaf->info.converted == FL_PQ_CT_INT_8 ? FL_VK_INT8 : FL_VK_INT16;
        return FL_OK;
    }
    bool micros = lt && lt->unit == FL_PQ_MICROS, nanos = lt && lt->unit == FL_PQ_NANOS;
    switch (t->id) {
    case FL_TYPE_BOOLEAN: *k = FL_VK_TRUE; return FL_OK;
    case FL_TYPE_INT32: *k = FL_VK_INT32; return FL_OK;
    case FL_TYPE_INT64: *k = FL_VK_INT64; return FL_OK;
    case FL_TYPE_FLOAT32: *k = FL_VK_FLOAT; return FL_OK;
    case FL_TYPE_FLOAT64: *k = FL_VK_DOUBLE; return FL_OK;
    case FL_TYPE_DATE: *k = FL_VK_DATE; return FL_OK;
    case FL_TYPE_STRING: *k = FL_VK_STRING; return FL_OK;
    case FL_TYPE_UUID: *k = FL_VK_UUID; return FL_OK;
    case FL_TYPE_DECIMAL:
        *k = t->precision <= 9    ? FL_VK_DECIMAL4
             : t->precision <= 18 ? FL_VK_DECIMAL8
                                  : FL_VK_DECIMAL16;
        return FL_OK;
    case FL_TYPE_BINARY:
        if (t->ext != FL_EXT_NONE)
            return unsupported(leaf, "geometry/geography", err);
        *k = FL_VK_BINARY;
        return FL_OK;
    case FL_TYPE_TIME:
        if (!micros)
            return unsupported(leaf, "TIME other than microseconds", err);
        *k = FL_VK_TIME;
        return FL_OK;
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ:
        if (!micros)
            return unsupported(leaf, "TIMESTAMP(MILLIS)", err);
        *k = t->id == FL_TYPE_TIMESTAMPTZ ? FL_VK_TIMESTAMP : FL_VK_TIMESTAMP_NTZ;
        return FL_OK;
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS:
        if (!nanos)
            return unsupported(leaf, "INT96", err);
        *k = t->id == FL_TYPE_TIMESTAMPTZ_NS ? FL_VK_TIMESTAMP_NS : FL_VK_TIMESTAMP_NTZ_NS;
        return FL_OK;
    default: break;
    }
    char what[64];
    if (leaf->physical == FL_PQ_FIXED_LEN_BYTE_ARRAY)
        snprintf(what, sizeof what, "fixed_len_byte_array(%d)", (int)leaf->type_length);
    else
        fl_type_format(t, what, sizeof what);
    return unsupported(leaf, what, err);
}

/* Every shredded primitive column below a {value, typed_value} group has a
 * type the spec allows (checked when a scan reads the column, so a file
 * whose other columns are fine still opens). */
fl_status fl_pq_variant_check_types(fl_pq_node *g, fl_error *err)
{
    if (g->var_typed < 0)
        return FL_OK;
    fl_pq_node *t = &g->children[g->var_typed];
    if (t->kind == FL_PQN_LEAF) {
        fl_variant_kind kind = FL_VK_NULL;
        FL_TRY(leaf_kind(t->leaf, &kind, err));
        t->var_kind = (int8_t)kind; /* once here; emit_leaf reads it per row */
        return FL_OK;
    }
    if (t->kind == FL_PQN_LIST)
        return fl_pq_variant_check_types(&t->children[0], err);
    for (uint32_t c = 0; c < t->nchildren; c++)
        FL_TRY(fl_pq_variant_check_types(&t->children[c], err));
    return FL_OK;
}

static fl_status emit_leaf(unshred *u, const fl_pq_node *n, const fl_vector *v, uint32_t row,
                           fl_error *err)
{
    fl_variant_scalar sc;
    memset(&sc, 0, sizeof sc);
    sc.kind = (fl_variant_kind)n->var_kind;
    switch (sc.kind) {
    case FL_VK_TRUE: sc.kind = *(const uint8_t *)vfixed(v, row) ? FL_VK_TRUE : FL_VK_FALSE; break;
    case FL_VK_INT8:
    case FL_VK_INT16:
    case FL_VK_INT32:
    case FL_VK_DATE: sc.v.i = *(const int32_t *)vfixed(v, row); break;
    case FL_VK_FLOAT: memcpy(&sc.v.f, vfixed(v, row), sizeof sc.v.f); break;
    case FL_VK_DOUBLE: memcpy(&sc.v.d, vfixed(v, row), sizeof sc.v.d); break;
    case FL_VK_DECIMAL4:
    case FL_VK_DECIMAL8:
    case FL_VK_DECIMAL16:
        memcpy(&sc.v.dec, vfixed(v, row), sizeof sc.v.dec);
        sc.scale = v->type->scale;
        break;
    case FL_VK_STRING:
    case FL_VK_BINARY: sc.v.bytes = vbytes(v, row, &sc.len); break;
    case FL_VK_UUID:
        sc.v.bytes = vfixed(v, row);
        sc.len = 16;
        break;
    default: memcpy(&sc.v.i, vfixed(v, row), sizeof sc.v.i); break;
    }
    return fl_vb_scalar(&u->vb, &sc, err);
}

static fl_status emit_group(unshred *u, const fl_pq_node *g, const fl_vector *gv, uint32_t row,
                            bool *missing, fl_error *err);

/* Both value and typed_value null: an absent field. */
static bool group_missing(const fl_pq_node *g, const fl_vector *gv, uint32_t row)
{
    if (!vvalid(gv, row))
        return true;
    for (uint32_t c = 0; c < g->nchildren; c++)
        if (vvalid(&gv->children[c], row))
            return false;
    return true;
}

/* The fields of a partially shredded object's `value` that typed_value does
 * not hold. */
static fl_status emit_rest(unshred *u, const fl_pq_node *t, const fl_variant *rest,
                           const char *path, fl_error *err)
{
    fl_variant_kind kind;
    FL_TRY(fl_variant_kind_of(rest, &kind, err));
    FL_CHECK(kind == FL_VK_OBJECT, err, FL_ECORRUPT,
             "column '%s': invalid variant: a %s value with shredded fields (only an object may "
             "be partially shredded)",
             path, fl_variant_kind_name(kind));
    uint32_t nf;
    FL_TRY(fl_variant_count(rest, &nf, err));
    for (uint32_t i = 0; i < nf; i++) {
        const char *key;
        size_t klen;
        fl_variant fv;
        FL_TRY(fl_variant_object_at(rest, i, &key, &klen, &fv, err));
        for (uint32_t c = 0; c < t->nchildren; c++) {
            const char *name = t->children[c].field->name;
            FL_CHECK(strlen(name) != klen || memcmp(name, key, klen) != 0, err, FL_ECORRUPT,
                     "column '%s': invalid variant: field '%s' is both shredded and in value", path,
                     name);
        }
        FL_TRY(fl_vb_key(&u->vb, key, klen, err));
        FL_TRY(fl_vb_copy(&u->vb, &fv, err));
    }
    return FL_OK;
}

static fl_status emit_object(unshred *u, const fl_pq_node *t, const fl_vector *tv, uint32_t row,
                             const fl_variant *rest, const char *path, fl_error *err)
{
    FL_TRY(fl_vb_begin_object(&u->vb, err));
    for (uint32_t c = 0; c < t->nchildren; c++) {
        const fl_pq_node *f = &t->children[c];
        const char *name = f->field->name;
        if (group_missing(f, &tv->children[c], row))
            continue;
        FL_TRY(fl_vb_key(&u->vb, name, strlen(name), err));
        bool missing = false;
        FL_TRY(emit_group(u, f, &tv->children[c], row, &missing, err));
    }
    if (rest)
        FL_TRY(emit_rest(u, t, rest, path, err));
    return fl_vb_end_object(&u->vb, err);
}

static fl_status emit_array(unshred *u, const fl_pq_node *t, const fl_vector *tv, uint32_t row,
                            fl_error *err)
{
    const fl_pq_node *el = &t->children[0];
    const fl_vector *ev = &tv->children[0];
    fl_unified uo;
    fl_vector_unify(tv, &uo);
    uint32_t r = fl_unified_row(&uo, row);
    int64_t lo = uo.base->offsets[r], hi = uo.base->offsets[r + 1];
    FL_TRY(fl_vb_begin_array(&u->vb, err));
    for (int64_t j = lo; j < hi; j++) {
        bool missing = false;
        FL_TRY(emit_group(u, el, ev, (uint32_t)j, &missing, err));
        if (missing) {
            fl_variant_scalar null = {.kind = FL_VK_NULL};
            FL_TRY(fl_vb_scalar(&u->vb, &null, err));
        }
    }
    return fl_vb_end_array(&u->vb, err);
}

/* One {value, typed_value} group's row; *missing when both are null. */
static fl_status emit_group(unshred *u, const fl_pq_node *g, const fl_vector *gv, uint32_t row,
                            bool *missing, fl_error *err)
{
    uint32_t vi = g->var_value >= 0 ? (uint32_t)g->var_value : 0;
    uint32_t ti = g->var_typed >= 0 ? (uint32_t)g->var_typed : 0;
    const fl_pq_node *vn = g->var_value >= 0 ? &g->children[vi] : NULL;
    const fl_pq_node *tn = g->var_typed >= 0 ? &g->children[ti] : NULL;
    bool has_v = vvalid(gv, row) && vn && vvalid(&gv->children[vi], row);
    bool has_t = vvalid(gv, row) && tn && vvalid(&gv->children[ti], row);
    fl_variant val = {.meta = &u->meta};
    if (has_v)
        val.p = vbytes(&gv->children[vi], row, &val.len);
    *missing = !has_v && !has_t;
    if (*missing)
        return FL_OK;
    if (!has_t)
        return fl_vb_copy(&u->vb, &val, err);
    const fl_vector *tv = &gv->children[ti];
    const char *path = tn->kind == FL_PQN_LEAF ? tn->leaf->path : u->column;
    if (tn->kind == FL_PQN_STRUCT)
        return emit_object(u, tn, tv, row, has_v ? &val : NULL, path, err);
    FL_CHECK(!has_v, err, FL_ECORRUPT,
             "column '%s': invalid variant: both value and typed_value are set for a %s", path,
             tn->kind == FL_PQN_LIST ? "list" : "primitive");
    if (tn->kind == FL_PQN_LIST)
        return emit_array(u, tn, tv, row, err);
    return emit_leaf(u, tn, tv, row, err);
}

static fl_status unshred_row(unshred *u, const fl_pq_node *n, const fl_vector *phys, uint32_t row,
                             uint32_t mi, fl_buf *out, fl_error *err)
{
    const fl_vector *mv = &phys->children[mi];
    FL_CHECK(vvalid(mv, row), err, FL_ECORRUPT, "column '%s.metadata': row %u: null metadata",
             n->field->name, row);
    size_t mlen;
    const uint8_t *mp = vbytes(mv, row, &mlen);
    fl_status st = fl_variant_meta_open(mp, mlen, &u->meta, err);
    if (st != FL_OK)
        return fl_error_prefix(err, "column '%s.metadata': row %u", n->field->name, row);
    FL_CHECK(u->meta.len == mlen, err, FL_ECORRUPT,
             "column '%s.metadata': row %u: %zu bytes after the dictionary", n->field->name, row,
             mlen - u->meta.len);
    fl_vb_reset(&u->vb);
    FL_TRY(fl_vb_seed_meta(&u->vb, &u->meta, err));
    bool missing = false;
    FL_TRY(emit_group(u, n, phys, row, &missing, err));
    if (missing) {
        fl_variant_scalar null = {.kind = FL_VK_NULL};
        FL_TRY(fl_vb_scalar(&u->vb, &null, err));
    }
    /* valid by construction: fl_vb_copy validates every `value` it copies,
     * fl_vb_seed_meta the dictionary's keys */
    return fl_vb_finish(&u->vb, out, err);
}

fl_status fl_pq_variant_unshred(const fl_pq_node *n, const fl_vector *phys, fl_vector *out,
                                fl_error *err)
{
    uint32_t mi = 0;
    child_named(n, "metadata", &mi);
    unshred u;
    fl_vb_init(&u.vb);
    u.column = n->field->name;
    fl_buf one;
    fl_buf_init(&one, 0);
    fl_vector_reset(out);
    fl_status st = fl_vector_reserve(out, phys->len ? phys->len : 1, err);
    for (uint32_t row = 0; st == FL_OK && row < phys->len; row++) {
        if (!vvalid(phys, row)) {
            st = fl_vector_append_null(out, err);
            continue;
        }
        fl_buf_reset(&one);
        st = unshred_row(&u, n, phys, row, mi, &one, err);
        if (st == FL_OK)
            st = fl_vector_append_bytes(out, one.data, one.len, err);
    }
    fl_buf_free(&one);
    fl_vb_free(&u.vb);
    return st;
}
