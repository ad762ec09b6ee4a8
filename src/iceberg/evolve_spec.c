/*
 * evolve_spec.c - partition spec and sort order evolution as pure functions
 * (Java's BaseUpdatePartitionSpec and ReplaceSortOrder semantics):
 *
 *   add partition field: parsed against the current schema; rejected when
 *     the default spec already has the same source+transform, when another
 *     time transform of the same source exists (redundant: day(ts) next to
 *     month(ts)), or when the name is taken. In v2+ a field that an older
 *     spec had with the same source and transform gets its old field id back
 *     (so its partition values stay comparable); otherwise last-partition-id
 *     + 1.
 *   remove partition field (by name, or by the text that adds it): v2+ drops
 *     it; v1 keeps the slot with the void transform (v1 field ids are
 *     positional), as Java does.
 *   sort order: the parsed fields; order id 0 is the unsorted order.
 *
 * The result carries spec_id / order_id -1 (assigned by the metadata
 * update) unless an identical spec / order already exists: then *existing
 * gives its id and only the default needs to change.
 */
#include <string.h>

#include "iceberg/write_internal.h"

static bool is_time(const char *transform)
{
    return !strcmp(transform, "year") || !strcmp(transform, "month") || !strcmp(transform, "day") ||
           !strcmp(transform, "hour");
}

static bool fields_equal(const fl_ice_partition_field *a, const fl_ice_partition_field *b)
{
    return a->field_id == b->field_id && a->source_id == b->source_id &&
           !strcmp(a->name, b->name) && !strcmp(a->transform, b->transform);
}

static int32_t find_equal_spec(const fl_ice_metadata *m, const fl_ice_partition_spec *s)
{
    for (uint32_t i = 0; i < m->nspecs; i++) {
        const fl_ice_partition_spec *o = &m->specs[i];
        if (o->nfields != s->nfields)
            continue;
        bool eq = true;
        for (uint32_t k = 0; k < s->nfields && eq; k++)
            eq = fields_equal(&o->fields[k], &s->fields[k]);
        if (eq)
            return o->spec_id;
    }
    return -1;
}

static fl_status copy_default_spec(const fl_ice_metadata *m, uint32_t extra, fl_arena *a,
                                   fl_ice_partition_spec *out, fl_error *err)
{
    const fl_ice_partition_spec *cur = fl_ice_metadata_spec(m, m->default_spec_id);
    if (!cur)
        return fl_errorf(err, FL_ECORRUPT, "table metadata: no default partition spec");
    out->spec_id = -1;
    out->nfields = cur->nfields;
    out->fields = fl_arena_calloc(a, cur->nfields + extra + 1, sizeof *out->fields);
    if (!out->fields)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    if (cur->nfields)
        memcpy(out->fields, cur->fields, cur->nfields * sizeof *out->fields);
    return FL_OK;
}

fl_status ice_evolve_add_partition(const fl_ice_metadata *m, const char *text, fl_arena *a,
                                   fl_ice_partition_spec *out, int32_t *existing, fl_error *err)
{
    *existing = -1;
    const fl_ice_schema *s = fl_ice_metadata_current_schema(m);
    if (!s)
        return fl_errorf(err, FL_ECORRUPT, "table metadata: no current schema");
    fl_ice_partition_field nf;
    FL_TRY(fl_ice_parse_partition_field(text, s, a, &nf, err));
    FL_TRY(copy_default_spec(m, 1, a, out, err));
    for (uint32_t i = 0; i < out->nfields; i++) {
        fl_ice_partition_field *f = &out->fields[i];
        if (!strcmp(f->transform, "void"))
            continue;
        if (f->source_id == nf.source_id && !strcmp(f->transform, nf.transform))
            return fl_errorf(err, FL_EEXIST,
                             "partition field '%s': the table is already "
                             "partitioned by it ('%s')",
                             text, f->name);
        if (f->source_id == nf.source_id && is_time(f->transform) && is_time(nf.transform))
            return fl_errorf(err, FL_EINVAL, "partition field '%s' is redundant with '%s'", text,
                             f->name);
    }
    const fl_field *col = ice_find_path_c(&s->schema, nf.name);
    if (col && !(col->field_id == nf.source_id && !strcmp(nf.transform, "identity")))
        return fl_errorf(err, FL_EINVAL, "partition field name '%s' conflicts with a column",
                         nf.name);
    nf.field_id = m->last_partition_id + 1;
    if (m->format_version >= 2) {
        for (uint32_t i = 0; i < m->nspecs; i++)
            for (uint32_t k = 0; k < m->specs[i].nfields; k++) {
                const fl_ice_partition_field *o = &m->specs[i].fields[k];
                if (o->source_id == nf.source_id && !strcmp(o->transform, nf.transform))
                    nf.field_id = o->field_id;
            }
    }
    for (uint32_t i = 0; i < out->nfields; i++) {
        fl_ice_partition_field *f = &out->fields[i];
        if (strcmp(f->name, nf.name) != 0)
            continue;
        if (strcmp(f->transform, "void") != 0)
            return fl_errorf(err, FL_EEXIST, "partition field name '%s' is taken", nf.name);
        /* a v1 void placeholder keeps its id under a new name */
        f->name = fl_arena_sprintf(a, "%s_%d", f->name, (int)f->field_id);
        if (!f->name)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    out->fields[out->nfields++] = nf;
    *existing = find_equal_spec(m, out);
    return FL_OK;
}

fl_status ice_evolve_remove_partition(const fl_ice_metadata *m, const char *name_or_text,
                                      fl_arena *a, fl_ice_partition_spec *out, int32_t *existing,
                                      fl_error *err)
{
    *existing = -1;
    FL_TRY(copy_default_spec(m, 0, a, out, err));
    int64_t idx = -1;
    for (uint32_t i = 0; i < out->nfields && idx < 0; i++)
        if (!strcmp(out->fields[i].name, name_or_text) &&
            strcmp(out->fields[i].transform, "void") != 0)
            idx = i;
    if (idx < 0) {
        const fl_ice_schema *s = fl_ice_metadata_current_schema(m);
        fl_ice_partition_field pf;
        fl_error e2;
        if (s && fl_ice_parse_partition_field(name_or_text, s, a, &pf, &e2) == FL_OK)
            for (uint32_t i = 0; i < out->nfields && idx < 0; i++)
                if (out->fields[i].source_id == pf.source_id &&
                    !strcmp(out->fields[i].transform, pf.transform))
                    idx = i;
    }
    if (idx < 0)
        return fl_errorf(err, FL_ENOTFOUND, "no partition field '%s'", name_or_text);
    if (m->format_version == 1) {
        out->fields[idx].transform = "void";
    } else {
        memmove(&out->fields[idx], &out->fields[idx + 1],
                (out->nfields - (uint32_t)idx - 1) * sizeof *out->fields);
        out->nfields--;
    }
    *existing = find_equal_spec(m, out);
    return FL_OK;
}

static bool sort_fields_equal(const fl_ice_sort_field *a, const fl_ice_sort_field *b)
{
    return a->source_id == b->source_id && !strcmp(a->transform, b->transform) &&
           a->descending == b->descending && a->nulls_first == b->nulls_first;
}

fl_status ice_evolve_sort_order(const fl_ice_metadata *m, const char *const *sort_by, uint32_t n,
                                fl_arena *a, fl_ice_sort_order *out, int32_t *existing,
                                fl_error *err)
{
    *existing = -1;
    const fl_ice_schema *s = fl_ice_metadata_current_schema(m);
    if (!s)
        return fl_errorf(err, FL_ECORRUPT, "table metadata: no current schema");
    out->order_id = n ? -1 : 0;
    out->nfields = n;
    out->fields = fl_arena_calloc(a, n + 1, sizeof *out->fields);
    if (!out->fields)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < n; i++)
        FL_TRY(fl_ice_parse_sort_field(sort_by[i], s, a, &out->fields[i], err));
    for (uint32_t i = 0; i < m->nsort_orders; i++) {
        const fl_ice_sort_order *o = &m->sort_orders[i];
        if (o->nfields != n)
            continue;
        bool eq = true;
        for (uint32_t k = 0; k < n && eq; k++)
            eq = sort_fields_equal(&o->fields[k], &out->fields[k]);
        if (eq) {
            *existing = o->order_id;
            break;
        }
    }
    return FL_OK;
}
