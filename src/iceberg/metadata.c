/*
 * metadata.c - parses Iceberg table metadata JSON (format/spec.md "Table
 * Metadata" and Appendix C) into fl_ice_metadata, for format v1, v2 and v3.
 *
 * Input: one UTF-8 JSON object, optionally gzip-compressed (sniffed by the
 * 1f 8b magic; files named *.gz.metadata.json). Integers are read as jansson
 * long long, so 64-bit snapshot ids are exact; reals where integers belong
 * are rejected.
 *
 * Reading rules (those of the Java reference, TableMetadataParser):
 *  - format-version above FL_ICE_MAX_FORMAT_VERSION: FL_EUNSUPPORTED.
 *  - v2+: table-uuid, last-sequence-number, schemas, current-schema-id,
 *    partition-specs, default-spec-id, last-partition-id, sort-orders and
 *    default-sort-order-id are required.
 *  - v1: "schemas" falls back to "schema" (current = its schema-id, 0 when
 *    absent); "partition-specs" falls back to "partition-spec" as spec 0 with
 *    field ids 1000+position; a missing default-spec-id is the largest spec id;
 *    a missing last-partition-id is the largest partition field id (999 when
 *    none); missing sort-orders means unsorted order 0.
 *  - current-snapshot-id: -1, null and absent all mean "none".
 *  - integer literals in (INT64_MAX, UINT64_MAX] (hand-written snapshot ids)
 *    read as their wrapped 64-bit pattern, as DuckDB does; the writer then
 *    emits the signed value.
 *  - refs: when main is absent and there is a current snapshot, a main branch
 *    pointing at it is synthesized.
 *  - current-schema-id, default-spec-id, default-sort-order-id and
 *    current-snapshot-id must name an existing entry; refs.main must agree with
 *    current-snapshot-id (Java's TableMetadata checks).
 * Unknown keys are ignored. All output memory comes from the caller's arena;
 * the jansson tree is freed before returning.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "floe/compress.h"
#include "iceberg/ice_internal.h"

/* ---- partition specs and sort orders ------------------------------------- */

/* Reads "source-id" or the v3 multi-argument "source-ids". */
static fl_status parse_sources(ice_ctx *c, json_t *o, const char *path, int32_t *source_id,
                               int32_t **ids, uint32_t *n, bool *multi)
{
    bool has_multi = false, has_single = false;
    FL_TRY(ice_get_i32_array(c, o, path, "source-ids", false, &has_multi, ids, n));
    FL_TRY(ice_get_i32(c, o, path, "source-id", !has_multi, &has_single, source_id));
    *multi = has_multi;
    if (has_multi) {
        if (*n == 0)
            return ice_fail(c, path, "source-ids", "empty");
        *source_id = (*ids)[0];
        return FL_OK;
    }
    *ids = ice_alloc_array(c, 1, sizeof **ids);
    if (!*ids)
        return FL_ENOMEM;
    (*ids)[0] = *source_id;
    *n = 1;
    return FL_OK;
}

static fl_status parse_spec_fields(ice_ctx *c, json_t *arr, const char *path, const char *key,
                                   fl_ice_partition_spec *spec)
{
    size_t n = json_array_size(arr);
    spec->fields = ice_alloc_array(c, n, sizeof *spec->fields);
    if (!spec->fields)
        return FL_ENOMEM;
    spec->nfields = (uint32_t)n;
    for (size_t i = 0; i < n; i++) {
        json_t *o;
        FL_TRY(ice_array_object(c, arr, i, path, key, &o));
        const char *fp = ice_path_idx(c, path, key, i);
        if (!fp)
            return FL_ENOMEM;
        fl_ice_partition_field *f = &spec->fields[i];
        bool has_id = false;
        FL_TRY(ice_get_str(c, o, fp, "name", true, &f->name));
        FL_TRY(ice_get_str(c, o, fp, "transform", true, &f->transform));
        FL_TRY(
            parse_sources(c, o, fp, &f->source_id, &f->source_ids, &f->nsource_ids, &f->multi_arg));
        FL_TRY(ice_get_i32(c, o, fp, "field-id", c->format_version >= 2, &has_id, &f->field_id));
        if (!has_id)
            f->field_id = FL_ICE_PARTITION_FIELD_ID_BASE + (int32_t)i;
    }
    return FL_OK;
}

static fl_status parse_specs(ice_ctx *c, json_t *root, fl_ice_metadata *m)
{
    json_t *arr;
    FL_TRY(ice_get_array(c, root, "", "partition-specs", c->format_version >= 2, &arr));
    if (!arr) {
        json_t *legacy;
        FL_TRY(ice_get_array(c, root, "", "partition-spec", true, &legacy));
        m->specs = ice_alloc_array(c, 1, sizeof *m->specs);
        if (!m->specs)
            return FL_ENOMEM;
        m->nspecs = 1;
        m->specs[0].spec_id = 0;
        return parse_spec_fields(c, legacy, "", "partition-spec", &m->specs[0]);
    }
    size_t n = json_array_size(arr);
    m->specs = ice_alloc_array(c, n, sizeof *m->specs);
    if (!m->specs)
        return FL_ENOMEM;
    m->nspecs = (uint32_t)n;
    for (size_t i = 0; i < n; i++) {
        json_t *o, *fields;
        FL_TRY(ice_array_object(c, arr, i, "", "partition-specs", &o));
        const char *p = ice_path_idx(c, "", "partition-specs", i);
        if (!p)
            return FL_ENOMEM;
        FL_TRY(ice_get_i32(c, o, p, "spec-id", true, NULL, &m->specs[i].spec_id));
        for (size_t k = 0; k < i; k++)
            if (m->specs[k].spec_id == m->specs[i].spec_id)
                return ice_fail(c, p, "spec-id", "duplicate spec id %d", (int)m->specs[i].spec_id);
        FL_TRY(ice_get_array(c, o, p, "fields", true, &fields));
        FL_TRY(parse_spec_fields(c, fields, p, "fields", &m->specs[i]));
    }
    return FL_OK;
}

static fl_status parse_sort_field(ice_ctx *c, json_t *o, const char *p, fl_ice_sort_field *f)
{
    const char *dir, *nulls;
    FL_TRY(ice_get_str(c, o, p, "transform", true, &f->transform));
    FL_TRY(parse_sources(c, o, p, &f->source_id, &f->source_ids, &f->nsource_ids, &f->multi_arg));
    FL_TRY(ice_get_str(c, o, p, "direction", true, &dir));
    FL_TRY(ice_get_str(c, o, p, "null-order", true, &nulls));
    if (strcmp(dir, "asc") != 0 && strcmp(dir, "desc") != 0)
        return ice_fail(c, p, "direction", "expected asc or desc, got '%.40s'", dir);
    if (strcmp(nulls, "nulls-first") != 0 && strcmp(nulls, "nulls-last") != 0)
        return ice_fail(c, p, "null-order", "expected nulls-first or nulls-last, got '%.40s'",
                        nulls);
    f->descending = strcmp(dir, "desc") == 0;
    f->nulls_first = strcmp(nulls, "nulls-first") == 0;
    return FL_OK;
}

static fl_status parse_sort_orders(ice_ctx *c, json_t *root, fl_ice_metadata *m)
{
    json_t *arr;
    FL_TRY(ice_get_array(c, root, "", "sort-orders", c->format_version >= 2, &arr));
    if (!arr) { /* v1: unsorted */
        m->sort_orders = ice_alloc_array(c, 1, sizeof *m->sort_orders);
        if (!m->sort_orders)
            return FL_ENOMEM;
        m->nsort_orders = 1;
        m->default_sort_order_id = 0;
        return FL_OK;
    }
    size_t n = json_array_size(arr);
    m->sort_orders = ice_alloc_array(c, n, sizeof *m->sort_orders);
    if (!m->sort_orders)
        return FL_ENOMEM;
    m->nsort_orders = (uint32_t)n;
    for (size_t i = 0; i < n; i++) {
        json_t *o, *fields;
        FL_TRY(ice_array_object(c, arr, i, "", "sort-orders", &o));
        const char *p = ice_path_idx(c, "", "sort-orders", i);
        if (!p)
            return FL_ENOMEM;
        fl_ice_sort_order *so = &m->sort_orders[i];
        FL_TRY(ice_get_i32(c, o, p, "order-id", true, NULL, &so->order_id));
        for (size_t k = 0; k < i; k++)
            if (m->sort_orders[k].order_id == so->order_id)
                return ice_fail(c, p, "order-id", "duplicate sort order id %d", (int)so->order_id);
        FL_TRY(ice_get_array(c, o, p, "fields", true, &fields));
        size_t nf = json_array_size(fields);
        so->fields = ice_alloc_array(c, nf, sizeof *so->fields);
        if (!so->fields)
            return FL_ENOMEM;
        so->nfields = (uint32_t)nf;
        for (size_t k = 0; k < nf; k++) {
            json_t *fo;
            FL_TRY(ice_array_object(c, fields, k, p, "fields", &fo));
            const char *fp = ice_path_idx(c, p, "fields", k);
            if (!fp)
                return FL_ENOMEM;
            FL_TRY(parse_sort_field(c, fo, fp, &so->fields[k]));
        }
    }
    bool has_default = false;
    FL_TRY(ice_get_i32(c, root, "", "default-sort-order-id", c->format_version >= 2, &has_default,
                       &m->default_sort_order_id));
    if (!has_default)
        m->default_sort_order_id = n ? m->sort_orders[0].order_id : 0;
    return FL_OK;
}

/* ---- schemas ------------------------------------------------------------- */

static fl_status parse_schemas(ice_ctx *c, json_t *root, fl_ice_metadata *m)
{
    json_t *arr, *legacy;
    bool v2 = c->format_version >= 2;
    FL_TRY(ice_get_array(c, root, "", "schemas", v2, &arr));
    FL_TRY(ice_get_object(c, root, "", "schema", false, &legacy));
    if (!arr) {
        if (!legacy)
            return ice_fail(c, "", "schema", "missing (and no schemas)");
        m->schemas = ice_alloc_array(c, 1, sizeof *m->schemas);
        if (!m->schemas)
            return FL_ENOMEM;
        m->nschemas = 1;
        FL_TRY(ice_parse_schema(c, legacy, "schema", false, &m->schemas[0]));
        m->current_schema_id = m->schemas[0].schema_id;
        return FL_OK;
    }
    size_t n = json_array_size(arr);
    m->schemas = ice_alloc_array(c, n, sizeof *m->schemas);
    if (!m->schemas)
        return FL_ENOMEM;
    m->nschemas = (uint32_t)n;
    for (size_t i = 0; i < n; i++) {
        json_t *o;
        FL_TRY(ice_array_object(c, arr, i, "", "schemas", &o));
        const char *p = ice_path_idx(c, "", "schemas", i);
        if (!p)
            return FL_ENOMEM;
        FL_TRY(ice_parse_schema(c, o, p, v2, &m->schemas[i]));
        for (size_t k = 0; k < i; k++)
            if (m->schemas[k].schema_id == m->schemas[i].schema_id)
                return ice_fail(c, p, "schema-id", "duplicate schema id %d",
                                (int)m->schemas[i].schema_id);
    }
    bool has_current = false;
    FL_TRY(ice_get_i32(c, root, "", "current-schema-id", v2, &has_current, &m->current_schema_id));
    if (!has_current) { /* v1: the id of "schema", else the only schema */
        if (legacy) {
            m->current_schema_id = 0;
            FL_TRY(
                ice_get_i32(c, legacy, "schema", "schema-id", false, NULL, &m->current_schema_id));
        } else if (n == 1) {
            m->current_schema_id = m->schemas[0].schema_id;
        } else {
            return ice_fail(c, "", "current-schema-id", "missing");
        }
    }
    return FL_OK;
}

/* ---- snapshots, logs, refs ----------------------------------------------- */

static fl_status parse_summary(ice_ctx *c, json_t *o, const char *p, fl_ice_snapshot *s)
{
    fl_ice_map all;
    FL_TRY(ice_get_map(c, o, p, "summary", c->format_version >= 2, &s->has_summary, &all));
    s->operation = "overwrite";
    s->summary.items = all.items;
    s->summary.n = 0;
    for (uint32_t i = 0; i < all.n; i++) {
        if (strcmp(all.items[i].key, "operation") == 0)
            s->operation = all.items[i].value;
        else
            s->summary.items[s->summary.n++] = all.items[i];
    }
    return FL_OK;
}

static fl_status parse_snapshot(ice_ctx *c, json_t *o, const char *p, fl_ice_snapshot *s)
{
    bool v2 = c->format_version >= 2;
    FL_TRY(ice_get_i64(c, o, p, "snapshot-id", true, NULL, &s->snapshot_id));
    FL_TRY(
        ice_get_i64(c, o, p, "parent-snapshot-id", false, &s->has_parent, &s->parent_snapshot_id));
    FL_TRY(ice_get_i64(c, o, p, "sequence-number", false, NULL, &s->sequence_number));
    FL_TRY(ice_get_i64(c, o, p, "timestamp-ms", true, NULL, &s->timestamp_ms));
    FL_TRY(parse_summary(c, o, p, s));
    json_t *manifests;
    FL_TRY(ice_get_str(c, o, p, "manifest-list", false, &s->manifest_list));
    FL_TRY(ice_get_array(c, o, p, "manifests", false, &manifests));
    if (!s->manifest_list && (v2 || !manifests))
        return ice_fail(c, p, "manifest-list", "missing");
    if (manifests) {
        size_t n = json_array_size(manifests);
        s->manifests = ice_alloc_array(c, n, sizeof *s->manifests);
        if (!s->manifests)
            return FL_ENOMEM;
        for (size_t i = 0; i < n; i++) {
            json_t *e = json_array_get(manifests, i);
            if (!json_is_string(e))
                return ice_fail(c, p, "manifests", "entry %zu is not a string", i);
            s->manifests[i] = fl_arena_strdup(c->a, json_string_value(e));
            if (!s->manifests[i])
                return fl_errorf(c->err, FL_ENOMEM, "table metadata: out of memory");
        }
        s->nmanifests = (uint32_t)n;
        s->has_manifests = true;
    }
    FL_TRY(ice_get_i32(c, o, p, "schema-id", false, &s->has_schema_id, &s->schema_id));
    FL_TRY(ice_get_i64(c, o, p, "first-row-id", false, &s->has_first_row_id, &s->first_row_id));
    FL_TRY(ice_get_i64(c, o, p, "added-rows", false, &s->has_added_rows, &s->added_rows));
    return ice_get_str(c, o, p, "key-id", false, &s->key_id);
}

static fl_status parse_snapshots(ice_ctx *c, json_t *root, fl_ice_metadata *m)
{
    json_t *arr;
    FL_TRY(ice_get_array(c, root, "", "snapshots", false, &arr));
    size_t n = arr ? json_array_size(arr) : 0;
    m->snapshots = ice_alloc_array(c, n, sizeof *m->snapshots);
    if (!m->snapshots)
        return FL_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        json_t *o;
        FL_TRY(ice_array_object(c, arr, i, "", "snapshots", &o));
        const char *p = ice_path_idx(c, "", "snapshots", i);
        if (!p)
            return FL_ENOMEM;
        FL_TRY(parse_snapshot(c, o, p, &m->snapshots[i]));
        m->nsnapshots++;
    }
    return FL_OK;
}

static fl_status parse_logs(ice_ctx *c, json_t *root, fl_ice_metadata *m)
{
    json_t *sl, *ml;
    FL_TRY(ice_get_array(c, root, "", "snapshot-log", false, &sl));
    FL_TRY(ice_get_array(c, root, "", "metadata-log", false, &ml));
    size_t ns = sl ? json_array_size(sl) : 0, nm = ml ? json_array_size(ml) : 0;
    m->snapshot_log = ice_alloc_array(c, ns, sizeof *m->snapshot_log);
    m->metadata_log = ice_alloc_array(c, nm, sizeof *m->metadata_log);
    if (!m->snapshot_log || !m->metadata_log)
        return FL_ENOMEM;
    for (size_t i = 0; i < ns; i++) {
        json_t *o;
        FL_TRY(ice_array_object(c, sl, i, "", "snapshot-log", &o));
        const char *p = ice_path_idx(c, "", "snapshot-log", i);
        if (!p)
            return FL_ENOMEM;
        FL_TRY(ice_get_i64(c, o, p, "timestamp-ms", true, NULL, &m->snapshot_log[i].timestamp_ms));
        FL_TRY(ice_get_i64(c, o, p, "snapshot-id", true, NULL, &m->snapshot_log[i].snapshot_id));
        m->nsnapshot_log++;
    }
    for (size_t i = 0; i < nm; i++) {
        json_t *o;
        FL_TRY(ice_array_object(c, ml, i, "", "metadata-log", &o));
        const char *p = ice_path_idx(c, "", "metadata-log", i);
        if (!p)
            return FL_ENOMEM;
        FL_TRY(ice_get_i64(c, o, p, "timestamp-ms", true, NULL, &m->metadata_log[i].timestamp_ms));
        FL_TRY(ice_get_str(c, o, p, "metadata-file", true, &m->metadata_log[i].metadata_file));
        m->nmetadata_log++;
    }
    return FL_OK;
}

static fl_status parse_ref(ice_ctx *c, json_t *o, const char *p, fl_ice_ref *r)
{
    const char *type;
    FL_TRY(ice_get_i64(c, o, p, "snapshot-id", true, NULL, &r->snapshot_id));
    FL_TRY(ice_get_str(c, o, p, "type", true, &type));
    if (strcmp(type, "branch") != 0 && strcmp(type, "tag") != 0)
        return ice_fail(c, p, "type", "expected branch or tag, got '%.40s'", type);
    r->is_tag = strcmp(type, "tag") == 0;
    FL_TRY(ice_get_i32(c, o, p, "min-snapshots-to-keep", false, &r->has_min_snapshots_to_keep,
                       &r->min_snapshots_to_keep));
    FL_TRY(ice_get_i64(c, o, p, "max-snapshot-age-ms", false, &r->has_max_snapshot_age_ms,
                       &r->max_snapshot_age_ms));
    FL_TRY(
        ice_get_i64(c, o, p, "max-ref-age-ms", false, &r->has_max_ref_age_ms, &r->max_ref_age_ms));
    if (r->is_tag && (r->has_min_snapshots_to_keep || r->has_max_snapshot_age_ms))
        return ice_fail(c, p, NULL, "tags cannot have branch retention settings");
    return FL_OK;
}

static fl_status parse_refs(ice_ctx *c, json_t *root, fl_ice_metadata *m)
{
    json_t *refs;
    FL_TRY(ice_get_object(c, root, "", "refs", false, &refs));
    size_t n = refs ? json_object_size(refs) : 0;
    m->refs = ice_alloc_array(c, n + 1, sizeof *m->refs); /* +1: synthesized main */
    if (!m->refs)
        return FL_ENOMEM;
    const char *name;
    json_t *o;
    bool has_main = false;
    if (refs) {
        json_object_foreach(refs, name, o)
        {
            const char *p = ice_path(c, "refs", name);
            if (!p)
                return FL_ENOMEM;
            if (!json_is_object(o))
                return ice_fail(c, p, NULL, "expected an object");
            fl_ice_ref *r = &m->refs[m->nrefs];
            FL_TRY(parse_ref(c, o, p, r));
            r->name = fl_arena_strdup(c->a, name);
            if (!r->name)
                return fl_errorf(c->err, FL_ENOMEM, "table metadata: out of memory");
            if (strcmp(name, "main") == 0) {
                has_main = true;
                if (r->is_tag)
                    return ice_fail(c, p, "type", "main must be a branch");
            }
            m->nrefs++;
        }
    }
    if (!has_main && m->current_snapshot_id != FL_ICE_NO_SNAPSHOT) {
        fl_ice_ref *r = &m->refs[m->nrefs++];
        r->name = "main";
        r->snapshot_id = m->current_snapshot_id;
    }
    return FL_OK;
}

/* ---- statistics and encryption keys -------------------------------------- */

static fl_status parse_blob(ice_ctx *c, json_t *o, const char *p, fl_ice_blob_metadata *b)
{
    FL_TRY(ice_get_str(c, o, p, "type", true, &b->type));
    FL_TRY(ice_get_i64(c, o, p, "snapshot-id", true, NULL, &b->snapshot_id));
    FL_TRY(ice_get_i64(c, o, p, "sequence-number", true, NULL, &b->sequence_number));
    FL_TRY(ice_get_i32_array(c, o, p, "fields", true, NULL, &b->fields, &b->nfields));
    return ice_get_map(c, o, p, "properties", false, &b->has_properties, &b->properties);
}

static fl_status parse_statistics_file(ice_ctx *c, json_t *o, const char *p,
                                       fl_ice_statistics_file *s)
{
    json_t *blobs;
    FL_TRY(ice_get_i64(c, o, p, "snapshot-id", true, NULL, &s->snapshot_id));
    FL_TRY(ice_get_str(c, o, p, "statistics-path", true, &s->statistics_path));
    FL_TRY(ice_get_i64(c, o, p, "file-size-in-bytes", true, NULL, &s->file_size_in_bytes));
    FL_TRY(ice_get_i64(c, o, p, "file-footer-size-in-bytes", true, NULL,
                       &s->file_footer_size_in_bytes));
    FL_TRY(ice_get_str(c, o, p, "key-metadata", false, &s->key_metadata));
    FL_TRY(ice_get_array(c, o, p, "blob-metadata", true, &blobs));
    size_t n = json_array_size(blobs);
    s->blobs = ice_alloc_array(c, n, sizeof *s->blobs);
    if (!s->blobs)
        return FL_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        json_t *bo;
        FL_TRY(ice_array_object(c, blobs, i, p, "blob-metadata", &bo));
        const char *bp = ice_path_idx(c, p, "blob-metadata", i);
        if (!bp)
            return FL_ENOMEM;
        FL_TRY(parse_blob(c, bo, bp, &s->blobs[i]));
        s->nblobs++;
    }
    return FL_OK;
}

static fl_status parse_partition_statistics_file(ice_ctx *c, json_t *o, const char *p,
                                                 fl_ice_partition_statistics_file *f)
{
    FL_TRY(ice_get_i64(c, o, p, "snapshot-id", true, NULL, &f->snapshot_id));
    FL_TRY(ice_get_str(c, o, p, "statistics-path", true, &f->statistics_path));
    return ice_get_i64(c, o, p, "file-size-in-bytes", true, NULL, &f->file_size_in_bytes);
}

static fl_status parse_encryption_key(ice_ctx *c, json_t *o, const char *p,
                                      fl_ice_encryption_key *k)
{
    FL_TRY(ice_get_str(c, o, p, "key-id", true, &k->key_id));
    FL_TRY(ice_get_str(c, o, p, "encrypted-key-metadata", true, &k->encrypted_key_metadata));
    FL_TRY(ice_get_str(c, o, p, "encrypted-by-id", false, &k->encrypted_by_id));
    return ice_get_map(c, o, p, "properties", false, &k->has_properties, &k->properties);
}

static fl_status parse_statistics(ice_ctx *c, json_t *root, fl_ice_metadata *m)
{
    json_t *st, *ps;
    FL_TRY(ice_get_array(c, root, "", "statistics", false, &st));
    FL_TRY(ice_get_array(c, root, "", "partition-statistics", false, &ps));
    size_t ns = st ? json_array_size(st) : 0, np = ps ? json_array_size(ps) : 0;
    m->statistics = ice_alloc_array(c, ns, sizeof *m->statistics);
    m->partition_statistics = ice_alloc_array(c, np, sizeof *m->partition_statistics);
    if (!m->statistics || !m->partition_statistics)
        return FL_ENOMEM;
    for (size_t i = 0; i < ns; i++) {
        json_t *o;
        FL_TRY(ice_array_object(c, st, i, "", "statistics", &o));
        const char *p = ice_path_idx(c, "", "statistics", i);
        if (!p)
            return FL_ENOMEM;
        FL_TRY(parse_statistics_file(c, o, p, &m->statistics[i]));
        m->nstatistics++;
    }
    for (size_t i = 0; i < np; i++) {
        json_t *o;
        FL_TRY(ice_array_object(c, ps, i, "", "partition-statistics", &o));
        const char *p = ice_path_idx(c, "", "partition-statistics", i);
        if (!p)
            return FL_ENOMEM;
        FL_TRY(parse_partition_statistics_file(c, o, p, &m->partition_statistics[i]));
        m->npartition_statistics++;
    }
    return FL_OK;
}

static fl_status parse_encryption_keys(ice_ctx *c, json_t *root, fl_ice_metadata *m)
{
    json_t *arr;
    FL_TRY(ice_get_array(c, root, "", "encryption-keys", false, &arr));
    size_t n = arr ? json_array_size(arr) : 0;
    m->encryption_keys = ice_alloc_array(c, n, sizeof *m->encryption_keys);
    if (!m->encryption_keys)
        return FL_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        json_t *o;
        FL_TRY(ice_array_object(c, arr, i, "", "encryption-keys", &o));
        const char *p = ice_path_idx(c, "", "encryption-keys", i);
        if (!p)
            return FL_ENOMEM;
        FL_TRY(parse_encryption_key(c, o, p, &m->encryption_keys[i]));
        m->nencryption_keys++;
    }
    return FL_OK;
}

/* ---- top level ----------------------------------------------------------- */

static fl_status parse_header(ice_ctx *c, json_t *root, fl_ice_metadata *m)
{
    bool v2 = c->format_version >= 2;
    FL_TRY(ice_get_str(c, root, "", "table-uuid", v2, &m->table_uuid));
    FL_TRY(ice_get_str(c, root, "", "location", true, &m->location));
    FL_TRY(ice_get_i64(c, root, "", "last-sequence-number", v2, NULL, &m->last_sequence_number));
    FL_TRY(ice_get_i64(c, root, "", "last-updated-ms", true, NULL, &m->last_updated_ms));
    FL_TRY(ice_get_i32(c, root, "", "last-column-id", true, NULL, &m->last_column_id));
    FL_TRY(ice_get_map(c, root, "", "properties", false, NULL, &m->properties));
    m->current_snapshot_id = FL_ICE_NO_SNAPSHOT;
    FL_TRY(ice_get_i64(c, root, "", "current-snapshot-id", false, NULL, &m->current_snapshot_id));
    /* Optional even in v3: some writers omit it (Java requires it). When
     * absent, derive_next_row_id() rebuilds it from the snapshots. */
    FL_TRY(ice_get_i64(c, root, "", "next-row-id", false, &m->has_next_row_id, &m->next_row_id));
    return FL_OK;
}

/* A v3 table whose metadata omits next-row-id still has a well-defined one:
 * the row-id range a snapshot assigns is [first-row-id, first-row-id +
 * added-rows), so the next id is the end of the highest range (0 when no
 * snapshot assigned any). Only reached for v3 metadata without the field. */
static void derive_next_row_id(fl_ice_metadata *m)
{
    if (m->format_version < 3 || m->has_next_row_id)
        return;
    int64_t next = 0;
    for (uint32_t i = 0; i < m->nsnapshots; i++) {
        const fl_ice_snapshot *s = &m->snapshots[i];
        if (!s->has_first_row_id)
            continue;
        int64_t end = s->first_row_id;
        if (s->has_added_rows && s->added_rows > 0 && end <= INT64_MAX - s->added_rows)
            end += s->added_rows;
        if (end > next)
            next = end;
    }
    m->has_next_row_id = true;
    m->next_row_id = next;
}

static fl_status parse_partitioning(ice_ctx *c, json_t *root, fl_ice_metadata *m)
{
    bool v2 = c->format_version >= 2;
    FL_TRY(parse_specs(c, root, m));
    bool has_default = false, has_last = false;
    FL_TRY(ice_get_i32(c, root, "", "default-spec-id", v2, &has_default, &m->default_spec_id));
    int32_t max_spec = 0, max_field = FL_ICE_UNPARTITIONED_LAST_ID;
    for (uint32_t i = 0; i < m->nspecs; i++) {
        if (i == 0 || m->specs[i].spec_id > max_spec)
            max_spec = m->specs[i].spec_id;
        for (uint32_t k = 0; k < m->specs[i].nfields; k++)
            if (m->specs[i].fields[k].field_id > max_field)
                max_field = m->specs[i].fields[k].field_id;
    }
    if (!has_default)
        m->default_spec_id = max_spec;
    FL_TRY(ice_get_i32(c, root, "", "last-partition-id", v2, &has_last, &m->last_partition_id));
    if (!has_last)
        m->last_partition_id = max_field;
    return FL_OK;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Snapshot ids are unique (sorted copy: long histories stay O(n log n)). */
static fl_status check_snapshot_ids(ice_ctx *c, const fl_ice_metadata *m)
{
    int64_t *ids = ice_alloc_array(c, m->nsnapshots, sizeof *ids);
    if (!ids)
        return FL_ENOMEM;
    for (uint32_t i = 0; i < m->nsnapshots; i++)
        ids[i] = m->snapshots[i].snapshot_id;
    qsort(ids, m->nsnapshots, sizeof *ids, cmp_i64);
    for (uint32_t i = 1; i < m->nsnapshots; i++)
        if (ids[i] == ids[i - 1])
            return ice_fail(c, "", "snapshots", "duplicate snapshot id %lld", (long long)ids[i]);
    return FL_OK;
}

/* Cross-references that must resolve. */
static fl_status validate(ice_ctx *c, const fl_ice_metadata *m)
{
    if (!fl_ice_metadata_current_schema(m))
        return ice_fail(c, "", "current-schema-id", "schema %d not found",
                        (int)m->current_schema_id);
    if (!fl_ice_metadata_spec(m, m->default_spec_id))
        return ice_fail(c, "", "default-spec-id", "partition spec %d not found",
                        (int)m->default_spec_id);
    bool found = false;
    for (uint32_t i = 0; i < m->nsort_orders; i++)
        found |= m->sort_orders[i].order_id == m->default_sort_order_id;
    if (!found && !(m->default_sort_order_id == 0 && m->nsort_orders == 0))
        return ice_fail(c, "", "default-sort-order-id", "sort order %d not found",
                        (int)m->default_sort_order_id);
    if (m->current_snapshot_id != FL_ICE_NO_SNAPSHOT && !fl_ice_metadata_current_snapshot(m))
        return ice_fail(c, "", "current-snapshot-id", "snapshot %lld not found",
                        (long long)m->current_snapshot_id);
    const fl_ice_ref *main_ref = fl_ice_metadata_ref(m, "main");
    if (main_ref && main_ref->snapshot_id != m->current_snapshot_id)
        return ice_fail(c, "", "refs.main", "snapshot %lld does not match current-snapshot-id %lld",
                        (long long)main_ref->snapshot_id, (long long)m->current_snapshot_id);
    return check_snapshot_ids(c, m);
}

static fl_status parse_root(ice_ctx *c, json_t *root, fl_ice_metadata *m)
{
    if (!json_is_object(root))
        return ice_fail(c, "", NULL, "expected a JSON object");
    FL_TRY(ice_get_i32(c, root, "", "format-version", true, NULL, &m->format_version));
    if (m->format_version > FL_ICE_MAX_FORMAT_VERSION)
        return fl_errorf(c->err, FL_EUNSUPPORTED,
                         "table metadata: format-version %d is not supported (max %d)",
                         (int)m->format_version, FL_ICE_MAX_FORMAT_VERSION);
    if (m->format_version < 1)
        return ice_fail(c, "", "format-version", "invalid version %d", (int)m->format_version);
    c->format_version = m->format_version;
    FL_TRY(parse_header(c, root, m));
    FL_TRY(parse_schemas(c, root, m));
    FL_TRY(parse_partitioning(c, root, m));
    FL_TRY(parse_sort_orders(c, root, m));
    FL_TRY(parse_snapshots(c, root, m));
    FL_TRY(parse_logs(c, root, m));
    FL_TRY(parse_refs(c, root, m));
    FL_TRY(parse_statistics(c, root, m));
    FL_TRY(parse_encryption_keys(c, root, m));
    derive_next_row_id(m);
    return validate(c, m);
}

/* Value of the unsigned decimal literal s[0..n) if it lies in
 * (INT64_MAX, UINT64_MAX]; false otherwise. */
static bool unsigned_beyond_int64(const uint8_t *s, size_t n, uint64_t *out)
{
    if (n < 19 || n > 20)
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t d = (uint64_t)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return v > (uint64_t)INT64_MAX;
}

/*
 * Hand-written metadata sometimes carries snapshot ids above INT64_MAX (the
 * duckdb-iceberg equality_delete_cross_partition fixture), which jansson
 * rejects. Lenient readers (DuckDB) take such literals as the 64-bit pattern,
 * i.e. the wrapped signed value; this copies buf with every integer literal in
 * (INT64_MAX, UINT64_MAX] outside strings rewritten that way. Each rewrite needs
 * at least 19 input digits and grows by at most one byte. *out is malloc'd.
 * UINT64_MAX is refused: wrapped it is -1, the "no snapshot" sentinel, and a
 * table would silently read as empty. Every other wrapped id is an ordinary
 * (negative) snapshot id: only FL_ICE_NO_SNAPSHOT means none, never a sign.
 */
static fl_status wrap_unsigned_literals(const uint8_t *buf, size_t len, char **out, size_t *out_len,
                                        fl_error *err)
{
    char *dst = malloc(len + len / 19 + 2);
    if (!dst)
        return fl_errorf(err, FL_ENOMEM, "table metadata: out of memory");
    size_t o = 0, i = 0;
    bool in_str = false;
    while (i < len) {
        uint8_t ch = buf[i];
        if (in_str) {
            dst[o++] = (char)ch;
            if (ch == '\\' && i + 1 < len)
                dst[o++] = (char)buf[++i];
            else if (ch == '"')
                in_str = false;
            i++;
            continue;
        }
        bool starts_number =
            ch >= '0' && ch <= '9' && (i == 0 || !strchr("-+.eE0123456789", buf[i - 1]));
        if (!starts_number) {
            in_str = ch == '"';
            dst[o++] = (char)ch;
            i++;
            continue;
        }
        size_t j = i;
        while (j < len && buf[j] >= '0' && buf[j] <= '9')
            j++;
        uint64_t v;
        bool integer = j == len || !strchr(".eE", buf[j]);
        if (integer && unsigned_beyond_int64(buf + i, j - i, &v)) {
            if (v == UINT64_MAX) { /* would read as -1: "no snapshot" */
                free(dst);
                return fl_errorf(err, FL_ECORRUPT,
                                 "table metadata: integer %" PRIu64 " at byte %zu is beyond the "
                                 "64-bit range and would wrap to -1, which means \"none\"",
                                 v, i);
            }
            o += (size_t)sprintf(dst + o, "%lld", (long long)(int64_t)v);
        } else {
            memcpy(dst + o, buf + i, j - i);
            o += j - i;
        }
        i = j;
    }
    *out = dst;
    *out_len = o;
    return FL_OK;
}

static fl_status parse_json(const uint8_t *buf, size_t len, fl_arena *a, fl_ice_metadata *out,
                            fl_error *err)
{
    json_error_t jerr;
    json_t *root = json_loadb((const char *)buf, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root && strstr(jerr.text, "too big integer")) {
        char *wrapped = NULL;
        size_t wlen = 0;
        FL_TRY(wrap_unsigned_literals(buf, len, &wrapped, &wlen, err));
        root = json_loadb(wrapped, wlen, JSON_REJECT_DUPLICATES, &jerr);
        free(wrapped);
    }
    if (!root)
        return fl_errorf(err, FL_ESYNTAX, "table metadata: JSON error at byte %d (line %d): %s",
                         jerr.position, jerr.line, jerr.text);
    ice_ctx c = {.a = a, .err = err};
    fl_status rc = parse_root(&c, root, out);
    json_decref(root);
    return rc;
}

fl_status fl_ice_metadata_parse(const uint8_t *buf, size_t len, const char *name, fl_arena *a,
                                fl_ice_metadata *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    fl_status rc;
    if (len >= 2 && buf[0] == 0x1f && buf[1] == 0x8b) {
        uint8_t *plain = NULL;
        size_t cap = 0, plain_len = 0;
        rc = fl_decompress_alloc(FL_CODEC_GZIP, buf, len, &plain, &cap, &plain_len,
                                 FL_ICE_METADATA_MAX_BYTES, err);
        if (rc == FL_OK)
            rc = parse_json(plain, plain_len, a, out, err);
        else
            fl_error_prefix(err, "table metadata: gzip");
        free(plain);
    } else {
        rc = parse_json(buf, len, a, out, err);
    }
    if (rc != FL_OK && name)
        fl_error_prefix(err, "%s", name);
    return rc;
}

fl_status fl_ice_metadata_read(fl_fileio *io, const char *path, fl_arena *a, fl_ice_metadata *out,
                               fl_error *err)
{
    fl_file *f = NULL;
    FL_TRY(fl_fileio_open(io, path, &f, err));
    if (f->size > FL_ICE_METADATA_MAX_BYTES) {
        fl_file_close(f);
        return fl_errorf(err, FL_ELIMIT, "%s: metadata file of %llu bytes exceeds the limit", path,
                         (unsigned long long)f->size);
    }
    uint8_t *buf = malloc(f->size ? f->size : 1);
    if (!buf) {
        fl_file_close(f);
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory", path);
    }
    fl_status rc = fl_file_read_at(f, 0, buf, f->size, err);
    size_t size = f->size;
    fl_file_close(f);
    if (rc == FL_OK)
        rc = fl_ice_metadata_parse(buf, size, path, a, out, err);
    free(buf);
    return rc;
}

/* ---- lookups ------------------------------------------------------------- */

const char *fl_ice_map_get(const fl_ice_map *m, const char *key)
{
    for (uint32_t i = 0; i < m->n; i++)
        if (strcmp(m->items[i].key, key) == 0)
            return m->items[i].value;
    return NULL;
}

const fl_ice_schema *fl_ice_metadata_schema(const fl_ice_metadata *m, int32_t schema_id)
{
    for (uint32_t i = 0; i < m->nschemas; i++)
        if (m->schemas[i].schema_id == schema_id)
            return &m->schemas[i];
    return NULL;
}

const fl_ice_schema *fl_ice_metadata_current_schema(const fl_ice_metadata *m)
{
    return fl_ice_metadata_schema(m, m->current_schema_id);
}

const fl_ice_partition_spec *fl_ice_metadata_spec(const fl_ice_metadata *m, int32_t spec_id)
{
    for (uint32_t i = 0; i < m->nspecs; i++)
        if (m->specs[i].spec_id == spec_id)
            return &m->specs[i];
    return NULL;
}

const fl_ice_snapshot *fl_ice_metadata_snapshot(const fl_ice_metadata *m, int64_t snapshot_id)
{
    for (uint32_t i = 0; i < m->nsnapshots; i++)
        if (m->snapshots[i].snapshot_id == snapshot_id)
            return &m->snapshots[i];
    return NULL;
}

const fl_ice_snapshot *fl_ice_metadata_current_snapshot(const fl_ice_metadata *m)
{
    if (m->current_snapshot_id == FL_ICE_NO_SNAPSHOT)
        return NULL;
    return fl_ice_metadata_snapshot(m, m->current_snapshot_id);
}

const fl_ice_ref *fl_ice_metadata_ref(const fl_ice_metadata *m, const char *name)
{
    for (uint32_t i = 0; i < m->nrefs; i++)
        if (strcmp(m->refs[i].name, name) == 0)
            return &m->refs[i];
    return NULL;
}

/* ---- pieces for REST requests (ice_internal.h; used by src/server) ------- */

fl_status ice_parse_spec_object(ice_ctx *c, json_t *o, const char *p, fl_ice_partition_spec *out)
{
    json_t *fields;
    bool has_id = false;
    out->spec_id = -1;
    FL_TRY(ice_get_i32(c, o, p, "spec-id", false, &has_id, &out->spec_id));
    FL_TRY(ice_get_array(c, o, p, "fields", true, &fields));
    int saved = c->format_version;
    c->format_version = 1; /* field-id optional: unset ids are assigned by the builder */
    fl_status rc = parse_spec_fields(c, fields, p, "fields", out);
    c->format_version = saved;
    FL_TRY(rc);
    for (uint32_t i = 0; i < out->nfields; i++)
        if (!json_object_get(json_array_get(fields, i), "field-id"))
            out->fields[i].field_id = 0;
    return FL_OK;
}

fl_status ice_parse_sort_order_object(ice_ctx *c, json_t *o, const char *p, fl_ice_sort_order *out)
{
    json_t *fields;
    bool has_id = false;
    out->order_id = -1;
    FL_TRY(ice_get_i32(c, o, p, "order-id", false, &has_id, &out->order_id));
    FL_TRY(ice_get_array(c, o, p, "fields", true, &fields));
    size_t nf = json_array_size(fields);
    out->fields = ice_alloc_array(c, nf, sizeof *out->fields);
    if (!out->fields)
        return FL_ENOMEM;
    out->nfields = (uint32_t)nf;
    for (size_t k = 0; k < nf; k++) {
        json_t *fo;
        FL_TRY(ice_array_object(c, fields, k, p, "fields", &fo));
        const char *fp = ice_path_idx(c, p, "fields", k);
        if (!fp)
            return FL_ENOMEM;
        FL_TRY(parse_sort_field(c, fo, fp, &out->fields[k]));
    }
    return FL_OK;
}

fl_status ice_parse_snapshot_object(ice_ctx *c, json_t *o, const char *p, fl_ice_snapshot *out)
{
    return parse_snapshot(c, o, p, out);
}

fl_status ice_parse_ref_object(ice_ctx *c, json_t *o, const char *p, fl_ice_ref *out)
{
    return parse_ref(c, o, p, out);
}

fl_status ice_parse_statistics_object(ice_ctx *c, json_t *o, const char *p,
                                      fl_ice_statistics_file *out)
{
    return parse_statistics_file(c, o, p, out);
}

fl_status ice_parse_partition_statistics_object(ice_ctx *c, json_t *o, const char *p,
                                                fl_ice_partition_statistics_file *out)
{
    return parse_partition_statistics_file(c, o, p, out);
}

fl_status ice_parse_encryption_key_object(ice_ctx *c, json_t *o, const char *p,
                                          fl_ice_encryption_key *out)
{
    return parse_encryption_key(c, o, p, out);
}
