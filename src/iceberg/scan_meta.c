/*
 * scan_meta.c - the partition metadata columns of a scan: Spark's
 * _partition (a struct of the row's partition values) and Trino's
 * "$partition" (the partition path), both constant per data file.
 *
 * _partition's type is the union of every partition spec's fields (by
 * partition field id, in id order, named and typed as the specs give them),
 * as Spark's Partitioning.partitionType: a file of an older spec reads NULL
 * in the fields its spec lacks. An unpartitioned table has no fields; floe
 * cannot show an empty struct, so _partition is then a struct<> whose rows
 * are NULL (Spark shows {}).
 */
#include <stdlib.h>
#include <string.h>

#include "iceberg/manifest_int.h"
#include "iceberg/scan_colmap.h"
#include "iceberg/scan_internal.h"
#include "iceberg/write_internal.h"

/* Does fields[0..n) hold partition field id? */
static bool has_field(const fl_field *fields, uint32_t n, int32_t id)
{
    for (uint32_t i = 0; i < n; i++)
        if (fields[i].field_id == id)
            return true;
    return false;
}

static int by_field_id(const void *x, const void *y)
{
    const fl_field *a = x, *b = y;
    return a->field_id < b->field_id ? -1 : a->field_id > b->field_id;
}

fl_status fl_ice_partition_column(const fl_ice_metadata *m, fl_arena *a, fl_field *out,
                                  fl_error *err)
{
    memset(out, 0, sizeof *out);
    out->name = "_partition";
    out->field_id = FL_ICE_FIELD_ID_PARTITION;
    out->nullable = true;
    out->type.id = FL_TYPE_STRUCT;
    uint32_t cap = 0, n = 0;
    for (uint32_t s = 0; s < m->nspecs; s++)
        cap += m->specs[s].nfields;
    fl_field *fs = fl_arena_calloc(a, cap + 1, sizeof *fs);
    if (!fs)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t s = 0; s < m->nspecs; s++)
        for (uint32_t i = 0; i < m->specs[s].nfields; i++) {
            const fl_ice_partition_field *pf = &m->specs[s].fields[i];
            if (has_field(fs, n, pf->field_id))
                continue;
            fs[n].name = pf->name ? pf->name : "";
            fs[n].field_id = pf->field_id;
            fs[n].nullable = true;
            FL_TRY(ice_partition_field_type(m, pf, &fs[n].type, err));
            n++;
        }
    qsort(fs, n, sizeof *fs, by_field_id);
    out->type.nchildren = n;
    out->type.children = fs;
    return FL_OK;
}

void ice_partition_value(const fl_ice_metadata *m, const fl_ice_data_file *df, int32_t id,
                         const fl_type *t, fl_value *out)
{
    const fl_ice_partition_spec *spec = fl_ice_metadata_spec(m, df->spec_id);
    for (uint32_t k = 0; spec && k < spec->nfields && k < df->npartition; k++)
        if (spec->fields[k].field_id == id && ice_literal_cast(&df->partition[k], t, out))
            return;
    memset(out, 0, sizeof *out);
    out->type = *t;
    out->type.nchildren = 0;
    out->type.children = NULL;
    out->is_null = true;
}

fl_status ice_partition_values(const fl_ice_metadata *m, const fl_ice_data_file *df,
                               const fl_type *st, fl_arena *a, fl_value **out, fl_error *err)
{
    *out = fl_arena_calloc(a, st->nchildren + 1, sizeof **out);
    FL_CHECK(*out != NULL, err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < st->nchildren; i++)
        ice_partition_value(m, df, st->children[i].field_id, &st->children[i].type, &(*out)[i]);
    return FL_OK;
}

const char *ice_partition_text(const fl_ice_metadata *m, const fl_ice_data_file *df, fl_arena *a)
{
    const fl_ice_partition_spec *spec = fl_ice_metadata_spec(m, df->spec_id);
    if (!spec || spec->nfields == 0)
        return "";
    if (df->npartition < spec->nfields)
        return NULL; /* a tuple shorter than its spec: no path to show */
    return ice_partition_path(m, spec, df->partition, a);
}

/* One row of scalar c appended to v (a FLAT child vector). */
static fl_status append_scalar(fl_vector *v, const fl_value *c, fl_error *err)
{
    if (c->is_null)
        return fl_vector_append_null(v, err);
    switch (v->type->id) {
    case FL_TYPE_STRING:
    case FL_TYPE_BINARY: return fl_vector_append_bytes(v, c->v.bytes.ptr, c->v.bytes.len, err);
    case FL_TYPE_FIXED:
    case FL_TYPE_UUID: return fl_vector_append_fixed(v, c->v.bytes.ptr, err);
    case FL_TYPE_BOOLEAN: {
        uint8_t b = c->v.b;
        return fl_vector_append_fixed(v, &b, err);
    }
    default: return fl_vector_append_fixed(v, &c->v, err);
    }
}

fl_status ice_fill_struct_const(fl_vector *v, const fl_value *vals, uint32_t n, fl_error *err)
{
    fl_vector_reset(v);
    if (n == 0)
        return FL_OK;
    if (v->nchildren == 0) /* struct<>: rows are NULL (see the top) */
        return fl_vector_append_nulls(v, n, err);
    for (uint32_t r = 0; r < n; r++) {
        for (uint32_t i = 0; i < v->nchildren; i++)
            FL_TRY(append_scalar(&v->children[i], &vals[i], err));
        FL_TRY(fl_vector_append_nested(v, 0, err));
    }
    return FL_OK;
}
