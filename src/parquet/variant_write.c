/*
 * variant_write.c - variant columns into Parquet VARIANT groups, unshredded
 * (parquet-format VariantEncoding.md, "Parquet representation").
 *
 * floe holds a variant as one byte string, metadata then value
 * (floe/variant.h); the file stores them as two required BYTE_ARRAY columns
 * of a group annotated VARIANT:
 *
 *   optional group v (VARIANT) { required binary metadata; required binary value; }
 *
 * The writer swaps each top-level variant field for that group (a STRUCT
 * with ext FL_EXT_VARIANT) and each batch's variant vector for the two
 * split columns. Every value is validated first, so a file floe writes
 * never holds a variant other readers would refuse. Shredding
 * (typed_value) is not written: readers treat an unshredded group as
 * complete, and the statistics of the two binary columns stay plain byte
 * bounds, which Iceberg does not turn into field bounds (they carry no
 * field id).
 */
#include <string.h>

#include "floe/variant.h"
#include "parquet/writer_int.h"

static bool has_variant(const fl_type *t)
{
    if (fl_type_is_variant(t))
        return true;
    for (uint32_t i = 0; i < t->nchildren; i++)
        if (has_variant(&t->children[i].type))
            return true;
    return false;
}

static fl_status group_type(fl_arena *a, fl_type *t, fl_error *err)
{
    fl_field *ch = fl_arena_calloc(a, 2, sizeof *ch);
    if (!ch)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    ch[0].name = "metadata";
    ch[1].name = "value";
    ch[0].type.id = ch[1].type.id = FL_TYPE_BINARY;
    memset(t, 0, sizeof *t);
    t->id = FL_TYPE_STRUCT;
    t->ext = FL_EXT_VARIANT;
    t->nchildren = 2;
    t->children = ch;
    return FL_OK;
}

fl_status fl_pqw_variant_schema(fl_arena *a, const fl_schema *schema, const fl_schema **phys,
                                fl_error *err)
{
    *phys = schema;
    bool any = false;
    for (uint32_t i = 0; i < schema->nfields; i++) {
        const fl_field *f = &schema->fields[i];
        if (fl_type_is_variant(&f->type)) {
            any = true;
            continue;
        }
        FL_CHECK(!has_variant(&f->type), err, FL_EUNSUPPORTED,
                 "column '%s': a variant inside a struct, list or map cannot be written to "
                 "Parquet yet (only top-level variant columns)",
                 f->name);
    }
    if (!any)
        return FL_OK;
    fl_schema *s = fl_arena_calloc(a, 1, sizeof *s);
    fl_field *fs = fl_arena_calloc(a, schema->nfields, sizeof *fs);
    if (!s || !fs)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    *s = *schema;
    s->fields = fs;
    for (uint32_t i = 0; i < schema->nfields; i++) {
        fs[i] = schema->fields[i];
        if (fl_type_is_variant(&fs[i].type))
            FL_TRY(group_type(a, &fs[i].type, err));
    }
    *phys = s;
    return FL_OK;
}

fl_status fl_pqw_variant_split(const fl_vector *src, uint32_t nrows, const char *column,
                               fl_vector *dst, fl_error *err)
{
    fl_vector_reset(dst);
    fl_vector *mv = &dst->children[0], *vv = &dst->children[1];
    fl_unified u;
    fl_vector_unify(src, &u);
    FL_TRY(fl_vector_reserve(dst, nrows ? nrows : 1, err));
    for (uint32_t i = 0; i < nrows; i++) {
        if (!fl_unified_is_valid(&u, i)) {
            FL_TRY(fl_vector_append_null(dst, err)); /* and to both children */
            continue;
        }
        size_t n;
        const uint8_t *p = fl_vector_bytes(u.base, fl_unified_row(&u, i), &n);
        fl_variant_meta m;
        fl_variant v;
        fl_status st = fl_variant_open(p, n, &m, &v, err);
        if (st == FL_OK)
            st = fl_variant_validate(&v, err);
        if (st != FL_OK)
            return fl_error_prefix(err, "column '%s': row %u", column, i);
        FL_TRY(fl_vector_append_bytes(mv, p, m.len, err));
        FL_TRY(fl_vector_append_bytes(vv, v.p, n - m.len, err));
        FL_TRY(fl_vector_append_nested(dst, 0, err));
    }
    return FL_OK;
}
