/*
 * fresh_ids.c - the one fresh-id assignment of a new table (ice_table.h,
 * fl_ice_fresh_schema_ids / fl_ice_fresh_table_ids), as Java's
 * TableMetadata.newTableMetadata assigns them:
 *
 *   - field ids in TypeUtil.assignFreshIds order: a struct's own fields take
 *     consecutive ids first, then each field's type is visited (list element;
 *     map key then value: an fl_type keeps them as its children);
 *   - schema id 0; extras (defaults, preserved type strings) and
 *     identifier-field-ids follow their fields through the old -> new map;
 *   - partition spec 0 with field ids 1000.. in order, source ids mapped;
 *   - sort order 1 when it has fields, else the unsorted order 0.
 *
 * The map is built by walking the request's schema and its renumbered copy
 * side by side (same shape); a duplicated old id maps as its first field.
 * Everything is allocated in the caller's arena.
 */
#include <string.h>

#include "iceberg/write_internal.h"

static void renumber_type(fl_type *t, int32_t *last_id);

static void renumber_fields(fl_field *f, uint32_t n, int32_t *last_id)
{
    for (uint32_t i = 0; i < n; i++)
        f[i].field_id = ++*last_id;
    for (uint32_t i = 0; i < n; i++)
        renumber_type(&f[i].type, last_id);
}

static void renumber_type(fl_type *t, int32_t *last_id)
{
    if (fl_type_is_nested(t))
        renumber_fields(t->children, t->nchildren, last_id);
}

fl_status fl_ice_fresh_schema_ids(const fl_schema *in, int32_t *last_id, fl_arena *a,
                                  fl_schema *out, fl_error *err)
{
    if (fl_schema_copy(a, in, out) != FL_OK)
        return fl_errorf(err, FL_ENOMEM, "schema: out of memory");
    renumber_fields(out->fields, out->nfields, last_id);
    return FL_OK;
}

fl_status ice_assign_fresh_type_ids(const fl_type *in, int32_t *last_id, fl_arena *a, fl_type *out,
                                    fl_error *err)
{
    if (fl_type_copy(a, in, out) != FL_OK)
        return fl_errorf(err, FL_ENOMEM, "schema: out of memory");
    renumber_type(out, last_id);
    return FL_OK;
}

/* ---- old -> new ---- */

typedef struct idmap {
    int32_t *from, *to;
    uint32_t n;
} idmap;

static void map_fields(idmap *m, const fl_field *old, const fl_field *new, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        m->from[m->n] = old[i].field_id;
        m->to[m->n++] = new[i].field_id;
        if (fl_type_is_nested(&old[i].type))
            map_fields(m, old[i].type.children, new[i].type.children, old[i].type.nchildren);
    }
}

static bool map_get(const idmap *m, int32_t from, int32_t *to)
{
    for (uint32_t i = 0; i < m->n; i++)
        if (m->from[i] == from) {
            *to = m->to[i];
            return true;
        }
    return false;
}

static fl_status map_schema(const fl_ice_schema *in, const idmap *m, fl_arena *a,
                            fl_ice_schema *out, fl_error *err)
{
    out->nextras = in->nextras;
    out->extras = fl_arena_calloc(a, in->nextras + 1, sizeof *out->extras);
    out->nidentifier = in->nidentifier;
    out->identifier_field_ids = fl_arena_calloc(a, in->nidentifier + 1, sizeof(int32_t));
    if (!out->extras || !out->identifier_field_ids)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < in->nextras; i++) {
        out->extras[i] = in->extras[i];
        if (!map_get(m, in->extras[i].field_id, &out->extras[i].field_id))
            return fl_errorf(err, FL_EINVAL, "schema: field %d has extras but is not a field",
                             (int)in->extras[i].field_id);
    }
    for (uint32_t i = 0; i < in->nidentifier; i++)
        if (!map_get(m, in->identifier_field_ids[i], &out->identifier_field_ids[i]))
            return fl_errorf(err, FL_EINVAL, "schema.identifier-field-ids[%u]: not a field", i);
    return FL_OK;
}

/* Maps a partition or sort field's source-id and source-ids (which hold
 * source-id first, also for single-argument transforms). */
static fl_status map_sources(const idmap *m, int32_t *source_id, bool multi, int32_t *ids,
                             uint32_t nids, const char *what, uint32_t i, fl_error *err)
{
    if (!multi && !map_get(m, *source_id, source_id))
        return fl_errorf(err, FL_EINVAL, "%s.fields[%u]: source-id %d is not a schema field", what,
                         i, (int)*source_id);
    for (uint32_t k = 0; k < nids; k++)
        if (!map_get(m, ids[k], &ids[k]))
            return fl_errorf(err, FL_EINVAL, "%s.fields[%u]: bad source-ids", what, i);
    if (multi && nids)
        *source_id = ids[0];
    return FL_OK;
}

static int32_t *copy_ids(fl_arena *a, const int32_t *v, uint32_t n)
{
    int32_t *c = fl_arena_calloc(a, n + 1, sizeof *c);
    if (c && n)
        memcpy(c, v, n * sizeof *c);
    return c;
}

static fl_status map_spec(const fl_ice_partition_spec *in, const idmap *m, fl_arena *a,
                          fl_ice_partition_spec *out, fl_error *err)
{
    uint32_t n = in ? in->nfields : 0;
    out->spec_id = 0;
    out->nfields = n;
    out->fields = fl_arena_calloc(a, n + 1, sizeof *out->fields);
    if (!out->fields)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        fl_ice_partition_field *f = &out->fields[i];
        *f = in->fields[i];
        if (!(f->source_ids = copy_ids(a, in->fields[i].source_ids, f->nsource_ids)))
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        FL_TRY(map_sources(m, &f->source_id, f->multi_arg, f->source_ids, f->nsource_ids,
                           "partition-spec", i, err));
        f->field_id = FL_ICE_PARTITION_FIELD_ID_BASE + (int32_t)i;
    }
    return FL_OK;
}

static fl_status map_order(const fl_ice_sort_order *in, const idmap *m, fl_arena *a,
                           fl_ice_sort_order *out, fl_error *err)
{
    uint32_t n = in ? in->nfields : 0;
    out->order_id = n ? 1 : 0;
    out->nfields = n;
    out->fields = fl_arena_calloc(a, n + 1, sizeof *out->fields);
    if (!out->fields)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        fl_ice_sort_field *f = &out->fields[i];
        *f = in->fields[i];
        if (!(f->source_ids = copy_ids(a, in->fields[i].source_ids, f->nsource_ids)))
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        FL_TRY(map_sources(m, &f->source_id, f->multi_arg, f->source_ids, f->nsource_ids,
                           "write-order", i, err));
    }
    return FL_OK;
}

static uint32_t count_fields(const fl_field *f, uint32_t n)
{
    uint32_t c = n;
    for (uint32_t i = 0; i < n; i++)
        if (fl_type_is_nested(&f[i].type))
            c += count_fields(f[i].type.children, f[i].type.nchildren);
    return c;
}

fl_status fl_ice_fresh_table_ids(const fl_ice_schema *schema, const fl_ice_partition_spec *spec,
                                 const fl_ice_sort_order *order, fl_arena *a,
                                 fl_ice_fresh_table *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    if (!schema)
        return fl_errorf(err, FL_EINVAL, "schema: missing");
    const fl_schema *in = &schema->schema;
    FL_TRY(fl_ice_fresh_schema_ids(in, &out->last_column_id, a, &out->schema.schema, err));
    out->schema.schema_id = 0;
    out->schema.schema.schema_id = 0;
    uint32_t n = count_fields(in->fields, in->nfields);
    idmap m = {fl_arena_calloc(a, n + 1, sizeof(int32_t)),
               fl_arena_calloc(a, n + 1, sizeof(int32_t)), 0};
    if (!m.from || !m.to)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    map_fields(&m, in->fields, out->schema.schema.fields, in->nfields);
    FL_TRY(map_schema(schema, &m, a, &out->schema, err));
    FL_TRY(map_spec(spec, &m, a, &out->spec, err));
    return map_order(order, &m, a, &out->order, err);
}
