/*
 * create_meta.c - the metadata of a new, empty table, built the way Java's
 * TableMetadata.newTableMetadata builds it:
 *
 *   - the schema gets fresh field ids from fl_ice_fresh_schema_ids
 *     (fresh_ids.c, the one assignment the REST server's create uses too),
 *     schema id 0;
 *   - the partition spec (id 0) gets field ids from 1000 in order and Java's
 *     default names; last-partition-id = 999 + number of fields;
 *   - the sort order is 0 (unsorted) or 1 with the given fields;
 *   - properties: the caller's, minus the reserved "format-version" (which
 *     selects the format: 1, 2 or 3; default 2), plus
 *     write.parquet.compression-codec=zstd when unset (Java >= 1.4 persists it).
 *
 * Everything is allocated in the caller's arena. No I/O (create.c does it).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "iceberg/write_internal.h"

/* ---- pieces ---- */

static fl_status format_version_of(const fl_ice_map *props, int32_t *v, fl_error *err)
{
    *v = 2;
    const char *s = props ? fl_ice_map_get(props, "format-version") : NULL;
    if (!s)
        return FL_OK;
    if (!strcmp(s, "1"))
        *v = 1;
    else if (!strcmp(s, "2"))
        *v = 2;
    else if (!strcmp(s, "3"))
        *v = 3;
    else
        return fl_errorf(err, FL_EINVAL, "format-version '%s': expected 1, 2 or 3", s);
    return FL_OK;
}

/* The first column of a type only format version 3 has (geometry,
 * geography, variant), or NULL. (Nanosecond timestamps are v3 types too, but floe has
 * written them on v2 tables since before it checked; they stay allowed.) */
static const char *v3_only_column(const fl_type *t, const char *name)
{
    if (fl_type_is_geo(t) || fl_type_is_variant(t))
        return name;
    for (uint32_t i = 0; i < t->nchildren; i++) {
        const char *c = v3_only_column(&t->children[i].type, t->children[i].name);
        if (c)
            return c;
    }
    return NULL;
}

/* A table of v3 types is a v3 table: by default, and refused when the
 * properties ask for an older version (Java's readers would refuse it). */
static fl_status version_for_types(const fl_ice_map *props, const fl_schema *schema, int32_t *v,
                                   fl_error *err)
{
    const char *col = NULL;
    for (uint32_t i = 0; i < schema->nfields && !col; i++)
        col = v3_only_column(&schema->fields[i].type, schema->fields[i].name);
    if (!col || *v >= 3)
        return FL_OK;
    if (props && fl_ice_map_get(props, "format-version"))
        return fl_errorf(err, FL_EINVAL,
                         "create table: column '%s' has a type that needs format version 3 "
                         "(the table asks for %d)",
                         col, (int)*v);
    *v = 3;
    return FL_OK;
}

static fl_status build_properties(const fl_ice_map *in, fl_arena *a, fl_ice_map *out, fl_error *err)
{
    uint32_t n = in ? in->n : 0;
    out->items = fl_arena_calloc(a, n + 1, sizeof *out->items);
    if (!out->items)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    out->n = 0;
    bool has_codec = false;
    for (uint32_t i = 0; i < n; i++) {
        if (!strcmp(in->items[i].key, "format-version"))
            continue;
        if (!strcmp(in->items[i].key, "write.parquet.compression-codec"))
            has_codec = true;
        out->items[out->n].key = fl_arena_strdup(a, in->items[i].key);
        out->items[out->n].value = fl_arena_strdup(a, in->items[i].value);
        if (!out->items[out->n].key || !out->items[out->n].value)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        out->n++;
    }
    if (!has_codec) {
        out->items[out->n].key = "write.parquet.compression-codec";
        out->items[out->n].value = "zstd";
        out->n++;
    }
    return FL_OK;
}

/* Java's PartitionSpec.Builder.checkAndAddPartitionName: unique names, and a
 * name may equal a schema column only for identity of that column. */
static fl_status check_partition_names(const fl_ice_partition_spec *spec, const fl_ice_schema *s,
                                       fl_error *err)
{
    for (uint32_t i = 0; i < spec->nfields; i++) {
        const fl_ice_partition_field *f = &spec->fields[i];
        if (!*f->name)
            return fl_errorf(err, FL_EINVAL, "partition field %u: empty name", i);
        for (uint32_t j = 0; j < i; j++)
            if (!strcmp(spec->fields[j].name, f->name))
                return fl_errorf(err, FL_EINVAL, "partition field name '%s' is used twice",
                                 f->name);
        const fl_field *col = ice_find_path_c(&s->schema, f->name);
        if (col && !(col->field_id == f->source_id && !strcmp(f->transform, "identity")))
            return fl_errorf(err, FL_EINVAL,
                             "partition field name '%s' conflicts with a column of the schema",
                             f->name);
        for (uint32_t j = 0; j < i; j++)
            if (spec->fields[j].source_id == f->source_id &&
                !strcmp(spec->fields[j].transform, f->transform))
                return fl_errorf(err, FL_EINVAL, "partition field '%s' duplicates '%s'", f->name,
                                 spec->fields[j].name);
    }
    return FL_OK;
}

static fl_status build_spec(const fl_ice_create_options *opt, const fl_ice_schema *s, fl_arena *a,
                            fl_ice_partition_spec *spec, fl_error *err)
{
    spec->spec_id = 0;
    spec->nfields = opt->npartition_by;
    spec->fields = fl_arena_calloc(a, opt->npartition_by + 1, sizeof *spec->fields);
    if (!spec->fields)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < opt->npartition_by; i++) {
        FL_TRY(fl_ice_parse_partition_field(opt->partition_by[i], s, a, &spec->fields[i], err));
        spec->fields[i].field_id = FL_ICE_PARTITION_FIELD_ID_BASE + (int32_t)i;
    }
    return check_partition_names(spec, s, err);
}

static fl_status build_order(const fl_ice_create_options *opt, const fl_ice_schema *s, fl_arena *a,
                             fl_ice_sort_order *o, fl_error *err)
{
    o->order_id = opt->nsort_by ? 1 : 0;
    o->nfields = opt->nsort_by;
    o->fields = fl_arena_calloc(a, opt->nsort_by + 1, sizeof *o->fields);
    if (!o->fields)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < opt->nsort_by; i++)
        FL_TRY(fl_ice_parse_sort_field(opt->sort_by[i], s, a, &o->fields[i], err));
    return FL_OK;
}

/* Identifier fields: required primitives (not float/double) reachable
 * through structs only (spec "Identifier Field IDs"). */
fl_status ice_identifier_ids(const fl_ice_schema *s, const char *const *names, uint32_t n,
                             fl_arena *a, int32_t **ids, fl_error *err)
{
    *ids = fl_arena_calloc(a, n + 1, sizeof **ids);
    if (!*ids)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        const fl_field *f = ice_find_path_c(&s->schema, names[i]);
        if (!f)
            return fl_errorf(err, FL_ENOTFOUND, "identifier field '%s': no such column", names[i]);
        /* reject paths through lists and maps: the path must be struct steps */
        const char *p = names[i];
        const fl_field *cur = NULL;
        const fl_field *fields = s->schema.fields;
        uint32_t nf = s->schema.nfields;
        while (p && *p) {
            const char *dot = strchr(p, '.');
            size_t len = dot ? (size_t)(dot - p) : strlen(p);
            cur = NULL;
            for (uint32_t k = 0; k < nf; k++)
                if (strlen(fields[k].name) == len && !strncasecmp(fields[k].name, p, len))
                    cur = &fields[k];
            if (!cur)
                return fl_errorf(err, FL_EINVAL,
                                 "identifier field '%s' must not be nested in a list or map",
                                 names[i]);
            if (dot && cur->type.id != FL_TYPE_STRUCT)
                return fl_errorf(err, FL_EINVAL,
                                 "identifier field '%s' must not be nested in a list or map",
                                 names[i]);
            if (dot) {
                if (cur->nullable)
                    return fl_errorf(err, FL_EINVAL,
                                     "identifier field '%s' is nested in an optional struct",
                                     names[i]);
                fields = cur->type.children;
                nf = cur->type.nchildren;
            }
            p = dot ? dot + 1 : NULL;
        }
        if (fl_type_is_nested(&f->type) || f->type.id == 0)
            return fl_errorf(err, FL_EINVAL, "identifier field '%s' is not a primitive", names[i]);
        if (f->type.id == FL_TYPE_FLOAT32 || f->type.id == FL_TYPE_FLOAT64)
            return fl_errorf(err, FL_EINVAL, "identifier field '%s' cannot be float or double",
                             names[i]);
        if (f->nullable)
            return fl_errorf(err, FL_EINVAL, "identifier field '%s' must be required", names[i]);
        for (uint32_t k = 0; k < i; k++)
            if ((*ids)[k] == f->field_id)
                return fl_errorf(err, FL_EINVAL, "identifier field '%s' given twice", names[i]);
        (*ids)[i] = f->field_id;
    }
    return FL_OK;
}

/* The create options' write-defaults as extras of the new schema. */
static fl_status write_defaults(const fl_ice_create_options *opt, int format_version,
                                fl_ice_schema *s, fl_arena *a, fl_error *err)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->schema.nfields; i++)
        n += opt->write_defaults[i] != NULL;
    if (!n)
        return FL_OK;
    if (format_version < 3)
        return fl_errorf(err, FL_EINVAL, "create table: default values need format version 3");
    s->extras = fl_arena_calloc(a, n, sizeof *s->extras);
    if (!s->extras)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < s->schema.nfields; i++) {
        const fl_field *f = &s->schema.fields[i];
        const char *j = opt->write_defaults[i];
        if (!j)
            continue;
        fl_value v;
        if (fl_type_is_nested(&f->type) || fl_ice_value_from_json(&f->type, j, a, &v, err) != FL_OK)
            return fl_errorf(err, FL_EINVAL, "create table: bad default %s for column '%s'", j,
                             f->name);
        fl_ice_field_extra *e = &s->extras[s->nextras++];
        e->field_id = f->field_id;
        e->write_default = fl_arena_strdup(a, j);
        if (!e->write_default)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    return FL_OK;
}

fl_status ice_new_table_metadata(const fl_ice_create_options *opt, const char *location,
                                 const char *uuid, int64_t now_ms, fl_arena *a,
                                 fl_ice_metadata *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    if (!opt || !opt->schema)
        return fl_errorf(err, FL_EINVAL, "create table: no schema");
    if (!location || !*location)
        return fl_errorf(err, FL_EINVAL, "create table: no location");
    FL_TRY(format_version_of(opt->properties, &out->format_version, err));
    FL_TRY(version_for_types(opt->properties, opt->schema, &out->format_version, err));
    size_t ll = strlen(location);
    while (ll > 1 && location[ll - 1] == '/')
        ll--;
    out->location = fl_arena_strndup(a, location, ll);
    out->table_uuid = fl_arena_strdup(a, uuid);
    out->schemas = fl_arena_calloc(a, 1, sizeof *out->schemas);
    out->specs = fl_arena_calloc(a, 1, sizeof *out->specs);
    out->sort_orders = fl_arena_calloc(a, 1, sizeof *out->sort_orders);
    if (!out->location || !out->table_uuid || !out->schemas || !out->specs || !out->sort_orders)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    out->last_updated_ms = now_ms;
    out->current_snapshot_id = FL_ICE_NO_SNAPSHOT;

    int32_t last_id = 0;
    fl_schema fresh;
    FL_TRY(fl_ice_fresh_schema_ids(opt->schema, &last_id, a, &fresh, err));
    FL_TRY(fl_ice_schema_from_fl(&fresh, 0, a, &out->schemas[0], err));
    out->nschemas = 1;
    out->last_column_id = last_id;
    out->current_schema_id = 0;
    fl_ice_schema *s = &out->schemas[0];
    if (opt->nidentifier_fields) {
        FL_TRY(ice_identifier_ids(s, opt->identifier_fields, opt->nidentifier_fields, a,
                                  &s->identifier_field_ids, err));
        s->nidentifier = opt->nidentifier_fields;
    }

    if (opt->write_defaults)
        FL_TRY(write_defaults(opt, out->format_version, s, a, err));

    FL_TRY(build_spec(opt, s, a, &out->specs[0], err));
    out->nspecs = 1;
    out->default_spec_id = 0;
    out->last_partition_id = FL_ICE_UNPARTITIONED_LAST_ID + (int32_t)out->specs[0].nfields;

    FL_TRY(build_order(opt, s, a, &out->sort_orders[0], err));
    out->nsort_orders = 1;
    out->default_sort_order_id = out->sort_orders[0].order_id;

    FL_TRY(build_properties(opt->properties, a, &out->properties, err));
    if (out->format_version >= 3) {
        out->has_next_row_id = true;
        out->next_row_id = 0;
    }
    return FL_OK;
}
