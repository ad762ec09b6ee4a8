/*
 * metadata_write.c - serializes fl_ice_metadata to table metadata JSON, and
 * compares two parsed metadata structs (round-trip tests).
 *
 * Keys come out in the order Java's TableMetadataParser writes them:
 *   format-version, table-uuid, location, last-sequence-number (v2+),
 *   last-updated-ms, last-column-id, [schema (v1)], current-schema-id, schemas,
 *   [partition-spec (v1)], default-spec-id, partition-specs, last-partition-id,
 *   default-sort-order-id, sort-orders, properties, current-snapshot-id,
 *   next-row-id (v3), [encryption-keys], refs, snapshots, statistics,
 *   partition-statistics, snapshot-log, metadata-log.
 * "No current snapshot" is -1 up to v2 and null in v3. Fields a file had
 * beyond its version (a v1 snapshot's sequence-number, a v2 next-row-id, both
 * manifests and manifest-list) are written back so nothing read is lost. The output is compact
 * JSON (no spaces), malloc'd by jansson's json_dumps; the caller frees it.
 */
#include <stdlib.h>
#include <string.h>

#include "iceberg/ice_internal.h"

static json_t *sources_into(json_t *o, bool multi, const int32_t *ids, uint32_t n, int32_t first)
{
    if (!o)
        return NULL;
    bool ok = multi ? ice_set(o, "source-ids", ice_i32_array_to_json(ids, n))
                    : ice_set(o, "source-id", json_integer(first));
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *spec_fields_to_json(const fl_ice_partition_spec *s)
{
    json_t *arr = json_array();
    for (uint32_t i = 0; arr && i < s->nfields; i++) {
        const fl_ice_partition_field *f = &s->fields[i];
        json_t *o = json_object();
        bool ok = o && ice_set(o, "name", json_string(f->name)) &&
                  ice_set(o, "transform", json_string(f->transform));
        o = ok ? sources_into(o, f->multi_arg, f->source_ids, f->nsource_ids, f->source_id)
               : (json_decref(o), NULL);
        if (!o || !ice_set(o, "field-id", json_integer(f->field_id)) ||
            json_array_append_new(arr, o) != 0) {
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

static json_t *specs_to_json(const fl_ice_metadata *m)
{
    json_t *arr = json_array();
    for (uint32_t i = 0; arr && i < m->nspecs; i++) {
        json_t *o = json_object();
        if (!o || !ice_set(o, "spec-id", json_integer(m->specs[i].spec_id)) ||
            !ice_set(o, "fields", spec_fields_to_json(&m->specs[i])) ||
            json_array_append_new(arr, o) != 0) {
            json_decref(o);
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

static json_t *sort_field_to_json(const fl_ice_sort_field *f)
{
    json_t *o = json_object();
    if (!o || !ice_set(o, "transform", json_string(f->transform))) {
        json_decref(o);
        return NULL;
    }
    o = sources_into(o, f->multi_arg, f->source_ids, f->nsource_ids, f->source_id);
    if (!o || !ice_set(o, "direction", json_string(f->descending ? "desc" : "asc")) ||
        !ice_set(o, "null-order", json_string(f->nulls_first ? "nulls-first" : "nulls-last"))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *sort_orders_to_json(const fl_ice_metadata *m)
{
    json_t *arr = json_array();
    for (uint32_t i = 0; arr && i < m->nsort_orders; i++) {
        const fl_ice_sort_order *so = &m->sort_orders[i];
        json_t *o = json_object(), *fields = json_array();
        bool ok = o && fields && ice_set(o, "order-id", json_integer(so->order_id));
        for (uint32_t k = 0; ok && k < so->nfields; k++)
            ok = json_array_append_new(fields, sort_field_to_json(&so->fields[k])) == 0;
        if (!ok || !ice_set(o, "fields", fields) || json_array_append_new(arr, o) != 0) {
            if (!ok)
                json_decref(fields);
            json_decref(o);
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

static json_t *schemas_to_json(const fl_ice_metadata *m)
{
    json_t *arr = json_array();
    for (uint32_t i = 0; arr && i < m->nschemas; i++) {
        if (json_array_append_new(arr, ice_schema_to_json(&m->schemas[i])) != 0) {
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

static json_t *summary_to_json(const fl_ice_snapshot *s)
{
    json_t *o = json_object();
    if (!o || !ice_set(o, "operation", json_string(s->operation))) {
        json_decref(o);
        return NULL;
    }
    for (uint32_t i = 0; i < s->summary.n; i++) {
        if (!ice_set(o, s->summary.items[i].key, json_string(s->summary.items[i].value))) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

static json_t *manifests_to_json(const fl_ice_snapshot *s)
{
    json_t *arr = json_array();
    for (uint32_t i = 0; arr && i < s->nmanifests; i++) {
        if (json_array_append_new(arr, json_string(s->manifests[i])) != 0) {
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

static json_t *snapshot_to_json(const fl_ice_snapshot *s, int version)
{
    /* Java writes sequence-number first, and only when it is not 0 (the
     * default readers assume). */
    json_t *o = json_object();
    bool ok = o != NULL;
    if (ok && s->sequence_number != 0)
        ok = ice_set(o, "sequence-number", json_integer(s->sequence_number));
    ok = ok && ice_set(o, "snapshot-id", json_integer(s->snapshot_id));
    if (ok && s->has_parent)
        ok = ice_set(o, "parent-snapshot-id", json_integer(s->parent_snapshot_id));
    ok = ok && ice_set(o, "timestamp-ms", json_integer(s->timestamp_ms));
    if (ok && (s->has_summary || version >= 2))
        ok = ice_set(o, "summary", summary_to_json(s));
    if (ok && s->manifest_list)
        ok = ice_set(o, "manifest-list", json_string(s->manifest_list));
    if (ok && s->has_manifests)
        ok = ice_set(o, "manifests", manifests_to_json(s));
    if (ok && s->has_schema_id)
        ok = ice_set(o, "schema-id", json_integer(s->schema_id));
    if (ok && s->has_first_row_id)
        ok = ice_set(o, "first-row-id", json_integer(s->first_row_id));
    if (ok && s->has_added_rows)
        ok = ice_set(o, "added-rows", json_integer(s->added_rows));
    if (ok && s->key_id)
        ok = ice_set(o, "key-id", json_string(s->key_id));
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *snapshots_to_json(const fl_ice_metadata *m, int version)
{
    json_t *arr = json_array();
    for (uint32_t i = 0; arr && i < m->nsnapshots; i++) {
        if (json_array_append_new(arr, snapshot_to_json(&m->snapshots[i], version)) != 0) {
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

static json_t *ref_to_json(const fl_ice_ref *r)
{
    json_t *o = json_object();
    bool ok = o && ice_set(o, "snapshot-id", json_integer(r->snapshot_id)) &&
              ice_set(o, "type", json_string(r->is_tag ? "tag" : "branch"));
    if (ok && r->has_min_snapshots_to_keep)
        ok = ice_set(o, "min-snapshots-to-keep", json_integer(r->min_snapshots_to_keep));
    if (ok && r->has_max_snapshot_age_ms)
        ok = ice_set(o, "max-snapshot-age-ms", json_integer(r->max_snapshot_age_ms));
    if (ok && r->has_max_ref_age_ms)
        ok = ice_set(o, "max-ref-age-ms", json_integer(r->max_ref_age_ms));
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *refs_to_json(const fl_ice_metadata *m)
{
    json_t *o = json_object();
    for (uint32_t i = 0; o && i < m->nrefs; i++) {
        if (!ice_set(o, m->refs[i].name, ref_to_json(&m->refs[i]))) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

static json_t *blob_to_json(const fl_ice_blob_metadata *b)
{
    json_t *o = json_object();
    bool ok = o && ice_set(o, "type", json_string(b->type)) &&
              ice_set(o, "snapshot-id", json_integer(b->snapshot_id)) &&
              ice_set(o, "sequence-number", json_integer(b->sequence_number)) &&
              ice_set(o, "fields", ice_i32_array_to_json(b->fields, b->nfields));
    if (ok && b->has_properties)
        ok = ice_set(o, "properties", ice_map_to_json(&b->properties));
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *statistics_file_to_json(const fl_ice_statistics_file *s)
{
    json_t *o = json_object(), *blobs = json_array();
    bool ok = o && blobs && ice_set(o, "snapshot-id", json_integer(s->snapshot_id)) &&
              ice_set(o, "statistics-path", json_string(s->statistics_path)) &&
              ice_set(o, "file-size-in-bytes", json_integer(s->file_size_in_bytes)) &&
              ice_set(o, "file-footer-size-in-bytes", json_integer(s->file_footer_size_in_bytes));
    if (ok && s->key_metadata)
        ok = ice_set(o, "key-metadata", json_string(s->key_metadata));
    for (uint32_t i = 0; ok && i < s->nblobs; i++)
        ok = json_array_append_new(blobs, blob_to_json(&s->blobs[i])) == 0;
    if (ok) {
        ok = ice_set(o, "blob-metadata", blobs);
        blobs = NULL;
    }
    json_decref(blobs);
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *statistics_to_json(const fl_ice_metadata *m)
{
    json_t *arr = json_array();
    for (uint32_t i = 0; arr && i < m->nstatistics; i++) {
        if (json_array_append_new(arr, statistics_file_to_json(&m->statistics[i])) != 0) {
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

json_t *ice_partition_statistics_json(const fl_ice_partition_statistics_file *f)
{
    json_t *o = json_object();
    if (!o || !ice_set(o, "snapshot-id", json_integer(f->snapshot_id)) ||
        !ice_set(o, "statistics-path", json_string(f->statistics_path)) ||
        !ice_set(o, "file-size-in-bytes", json_integer(f->file_size_in_bytes))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *partition_statistics_to_json(const fl_ice_metadata *m)
{
    json_t *arr = json_array();
    for (uint32_t i = 0; arr && i < m->npartition_statistics; i++) {
        json_t *o = ice_partition_statistics_json(&m->partition_statistics[i]);
        if (!o || json_array_append_new(arr, o) != 0) {
            json_decref(o);
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

json_t *ice_encryption_key_json(const fl_ice_encryption_key *k)
{
    json_t *o = json_object();
    bool ok = o && ice_set(o, "key-id", json_string(k->key_id)) &&
              ice_set(o, "encrypted-key-metadata", json_string(k->encrypted_key_metadata));
    if (ok && k->encrypted_by_id)
        ok = ice_set(o, "encrypted-by-id", json_string(k->encrypted_by_id));
    if (ok && k->has_properties)
        ok = ice_set(o, "properties", ice_map_to_json(&k->properties));
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *encryption_keys_to_json(const fl_ice_metadata *m)
{
    json_t *arr = json_array();
    for (uint32_t i = 0; arr && i < m->nencryption_keys; i++) {
        json_t *o = ice_encryption_key_json(&m->encryption_keys[i]);
        if (!o || json_array_append_new(arr, o) != 0) {
            json_decref(o);
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

static json_t *logs_snapshot_to_json(const fl_ice_metadata *m)
{
    json_t *arr = json_array();
    for (uint32_t i = 0; arr && i < m->nsnapshot_log; i++) {
        json_t *o = json_object();
        if (!o || !ice_set(o, "timestamp-ms", json_integer(m->snapshot_log[i].timestamp_ms)) ||
            !ice_set(o, "snapshot-id", json_integer(m->snapshot_log[i].snapshot_id)) ||
            json_array_append_new(arr, o) != 0) {
            json_decref(o);
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

static json_t *logs_metadata_to_json(const fl_ice_metadata *m)
{
    json_t *arr = json_array();
    for (uint32_t i = 0; arr && i < m->nmetadata_log; i++) {
        json_t *o = json_object();
        if (!o || !ice_set(o, "timestamp-ms", json_integer(m->metadata_log[i].timestamp_ms)) ||
            !ice_set(o, "metadata-file", json_string(m->metadata_log[i].metadata_file)) ||
            json_array_append_new(arr, o) != 0) {
            json_decref(o);
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

/* Everything up to and including last-column-id. */
static bool write_head(json_t *o, const fl_ice_metadata *m, int version)
{
    bool ok = ice_set(o, "format-version", json_integer(version));
    if (ok && m->table_uuid)
        ok = ice_set(o, "table-uuid", json_string(m->table_uuid));
    ok = ok && ice_set(o, "location", json_string(m->location));
    if (ok && (version >= 2 || m->last_sequence_number != 0))
        ok = ice_set(o, "last-sequence-number", json_integer(m->last_sequence_number));
    return ok && ice_set(o, "last-updated-ms", json_integer(m->last_updated_ms)) &&
           ice_set(o, "last-column-id", json_integer(m->last_column_id));
}

static bool write_layout(json_t *o, const fl_ice_metadata *m, int version)
{
    bool ok = true;
    const fl_ice_schema *cur = fl_ice_metadata_current_schema(m);
    if (version == 1 && cur)
        ok = ice_set(o, "schema", ice_schema_to_json(cur));
    ok = ok && ice_set(o, "current-schema-id", json_integer(m->current_schema_id)) &&
         ice_set(o, "schemas", schemas_to_json(m));
    const fl_ice_partition_spec *spec = fl_ice_metadata_spec(m, m->default_spec_id);
    if (ok && version == 1 && spec)
        ok = ice_set(o, "partition-spec", spec_fields_to_json(spec));
    return ok && ice_set(o, "default-spec-id", json_integer(m->default_spec_id)) &&
           ice_set(o, "partition-specs", specs_to_json(m)) &&
           ice_set(o, "last-partition-id", json_integer(m->last_partition_id)) &&
           ice_set(o, "default-sort-order-id", json_integer(m->default_sort_order_id)) &&
           ice_set(o, "sort-orders", sort_orders_to_json(m));
}

static bool write_tail(json_t *o, const fl_ice_metadata *m, int version)
{
    bool ok = ice_set(o, "properties", ice_map_to_json(&m->properties));
    if (ok && m->current_snapshot_id == FL_ICE_NO_SNAPSHOT && version >= 3)
        ok = ice_set(o, "current-snapshot-id", json_null());
    else if (ok)
        ok = ice_set(o, "current-snapshot-id", json_integer(m->current_snapshot_id));
    if (ok && (version >= 3 || m->has_next_row_id))
        ok = ice_set(o, "next-row-id", json_integer(m->has_next_row_id ? m->next_row_id : 0));
    if (ok && m->nencryption_keys)
        ok = ice_set(o, "encryption-keys", encryption_keys_to_json(m));
    return ok && ice_set(o, "refs", refs_to_json(m)) &&
           ice_set(o, "snapshots", snapshots_to_json(m, version)) &&
           ice_set(o, "statistics", statistics_to_json(m)) &&
           ice_set(o, "partition-statistics", partition_statistics_to_json(m)) &&
           ice_set(o, "snapshot-log", logs_snapshot_to_json(m)) &&
           ice_set(o, "metadata-log", logs_metadata_to_json(m));
}

fl_status fl_ice_metadata_write(const fl_ice_metadata *m, int format_version, char **out,
                                size_t *out_len, fl_error *err)
{
    int version = format_version ? format_version : m->format_version;
    *out = NULL;
    *out_len = 0;
    if (version < 1 || version > FL_ICE_MAX_FORMAT_VERSION)
        return fl_errorf(err, FL_EINVAL, "table metadata: cannot write format-version %d", version);
    if (version >= 2 && !m->table_uuid)
        return fl_errorf(err, FL_EINVAL, "table metadata: table-uuid is required for v%d", version);
    if (!m->location)
        return fl_errorf(err, FL_EINVAL, "table metadata: location is required");
    json_t *o = json_object();
    bool ok =
        o && write_head(o, m, version) && write_layout(o, m, version) && write_tail(o, m, version);
    char *txt = ok ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    if (!txt)
        return fl_errorf(err, FL_ENOMEM, "table metadata: out of memory while writing");
    *out = txt;
    *out_len = strlen(txt);
    return FL_OK;
}

/* ---- equality ------------------------------------------------------------ */

static bool str_eq(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool map_eq(const fl_ice_map *a, const fl_ice_map *b)
{
    if (a->n != b->n)
        return false;
    for (uint32_t i = 0; i < a->n; i++)
        if (!str_eq(a->items[i].key, b->items[i].key) ||
            !str_eq(a->items[i].value, b->items[i].value))
            return false;
    return true;
}

static bool ids_eq(const int32_t *a, const int32_t *b, uint32_t n)
{
    return n == 0 || memcmp(a, b, n * sizeof *a) == 0;
}

static bool specs_eq(const fl_ice_metadata *a, const fl_ice_metadata *b)
{
    if (a->nspecs != b->nspecs)
        return false;
    for (uint32_t i = 0; i < a->nspecs; i++) {
        const fl_ice_partition_spec *x = &a->specs[i], *y = &b->specs[i];
        if (x->spec_id != y->spec_id || x->nfields != y->nfields)
            return false;
        for (uint32_t k = 0; k < x->nfields; k++) {
            const fl_ice_partition_field *f = &x->fields[k], *g = &y->fields[k];
            if (!str_eq(f->name, g->name) || !str_eq(f->transform, g->transform) ||
                f->field_id != g->field_id || f->nsource_ids != g->nsource_ids ||
                f->multi_arg != g->multi_arg ||
                !ids_eq(f->source_ids, g->source_ids, f->nsource_ids))
                return false;
        }
    }
    return true;
}

static bool sort_orders_eq(const fl_ice_metadata *a, const fl_ice_metadata *b)
{
    if (a->nsort_orders != b->nsort_orders)
        return false;
    for (uint32_t i = 0; i < a->nsort_orders; i++) {
        const fl_ice_sort_order *x = &a->sort_orders[i], *y = &b->sort_orders[i];
        if (x->order_id != y->order_id || x->nfields != y->nfields)
            return false;
        for (uint32_t k = 0; k < x->nfields; k++) {
            const fl_ice_sort_field *f = &x->fields[k], *g = &y->fields[k];
            if (!str_eq(f->transform, g->transform) || f->nsource_ids != g->nsource_ids ||
                !ids_eq(f->source_ids, g->source_ids, f->nsource_ids) ||
                f->descending != g->descending || f->nulls_first != g->nulls_first)
                return false;
        }
    }
    return true;
}

static bool snapshot_eq(const fl_ice_snapshot *x, const fl_ice_snapshot *y)
{
    if (x->snapshot_id != y->snapshot_id || x->has_parent != y->has_parent ||
        (x->has_parent && x->parent_snapshot_id != y->parent_snapshot_id) ||
        x->sequence_number != y->sequence_number || x->timestamp_ms != y->timestamp_ms ||
        !str_eq(x->manifest_list, y->manifest_list) || x->nmanifests != y->nmanifests ||
        !str_eq(x->operation, y->operation) || !map_eq(&x->summary, &y->summary) ||
        x->has_schema_id != y->has_schema_id ||
        (x->has_schema_id && x->schema_id != y->schema_id) ||
        x->has_first_row_id != y->has_first_row_id || x->first_row_id != y->first_row_id ||
        x->has_added_rows != y->has_added_rows || x->added_rows != y->added_rows ||
        !str_eq(x->key_id, y->key_id))
        return false;
    for (uint32_t i = 0; i < x->nmanifests; i++)
        if (!str_eq(x->manifests[i], y->manifests[i]))
            return false;
    return true;
}

static bool ref_eq(const fl_ice_ref *x, const fl_ice_ref *y)
{
    return str_eq(x->name, y->name) && x->snapshot_id == y->snapshot_id && x->is_tag == y->is_tag &&
           x->has_min_snapshots_to_keep == y->has_min_snapshots_to_keep &&
           x->min_snapshots_to_keep == y->min_snapshots_to_keep &&
           x->has_max_snapshot_age_ms == y->has_max_snapshot_age_ms &&
           x->max_snapshot_age_ms == y->max_snapshot_age_ms &&
           x->has_max_ref_age_ms == y->has_max_ref_age_ms && x->max_ref_age_ms == y->max_ref_age_ms;
}

static bool statistics_eq(const fl_ice_metadata *a, const fl_ice_metadata *b)
{
    if (a->nstatistics != b->nstatistics || a->npartition_statistics != b->npartition_statistics)
        return false;
    for (uint32_t i = 0; i < a->nstatistics; i++) {
        const fl_ice_statistics_file *x = &a->statistics[i], *y = &b->statistics[i];
        if (x->snapshot_id != y->snapshot_id || !str_eq(x->statistics_path, y->statistics_path) ||
            x->file_size_in_bytes != y->file_size_in_bytes ||
            x->file_footer_size_in_bytes != y->file_footer_size_in_bytes ||
            !str_eq(x->key_metadata, y->key_metadata) || x->nblobs != y->nblobs)
            return false;
        for (uint32_t k = 0; k < x->nblobs; k++) {
            const fl_ice_blob_metadata *p = &x->blobs[k], *q = &y->blobs[k];
            if (!str_eq(p->type, q->type) || p->snapshot_id != q->snapshot_id ||
                p->sequence_number != q->sequence_number || p->nfields != q->nfields ||
                !ids_eq(p->fields, q->fields, p->nfields) ||
                p->has_properties != q->has_properties || !map_eq(&p->properties, &q->properties))
                return false;
        }
    }
    for (uint32_t i = 0; i < a->npartition_statistics; i++) {
        const fl_ice_partition_statistics_file *x = &a->partition_statistics[i],
                                               *y = &b->partition_statistics[i];
        if (x->snapshot_id != y->snapshot_id || !str_eq(x->statistics_path, y->statistics_path) ||
            x->file_size_in_bytes != y->file_size_in_bytes)
            return false;
    }
    return true;
}

static bool keys_eq(const fl_ice_metadata *a, const fl_ice_metadata *b)
{
    if (a->nencryption_keys != b->nencryption_keys)
        return false;
    for (uint32_t i = 0; i < a->nencryption_keys; i++) {
        const fl_ice_encryption_key *x = &a->encryption_keys[i], *y = &b->encryption_keys[i];
        if (!str_eq(x->key_id, y->key_id) ||
            !str_eq(x->encrypted_key_metadata, y->encrypted_key_metadata) ||
            !str_eq(x->encrypted_by_id, y->encrypted_by_id) ||
            x->has_properties != y->has_properties || !map_eq(&x->properties, &y->properties))
            return false;
    }
    return true;
}

static bool lists_eq(const fl_ice_metadata *a, const fl_ice_metadata *b)
{
    if (a->nschemas != b->nschemas || a->nsnapshots != b->nsnapshots || a->nrefs != b->nrefs ||
        a->nsnapshot_log != b->nsnapshot_log || a->nmetadata_log != b->nmetadata_log)
        return false;
    for (uint32_t i = 0; i < a->nschemas; i++)
        if (!ice_schema_equal(&a->schemas[i], &b->schemas[i]))
            return false;
    for (uint32_t i = 0; i < a->nsnapshots; i++)
        if (!snapshot_eq(&a->snapshots[i], &b->snapshots[i]))
            return false;
    for (uint32_t i = 0; i < a->nrefs; i++) {
        const fl_ice_ref *r = fl_ice_metadata_ref(b, a->refs[i].name);
        if (!r || !ref_eq(&a->refs[i], r))
            return false;
    }
    for (uint32_t i = 0; i < a->nsnapshot_log; i++)
        if (a->snapshot_log[i].timestamp_ms != b->snapshot_log[i].timestamp_ms ||
            a->snapshot_log[i].snapshot_id != b->snapshot_log[i].snapshot_id)
            return false;
    for (uint32_t i = 0; i < a->nmetadata_log; i++)
        if (a->metadata_log[i].timestamp_ms != b->metadata_log[i].timestamp_ms ||
            !str_eq(a->metadata_log[i].metadata_file, b->metadata_log[i].metadata_file))
            return false;
    return true;
}

bool fl_ice_metadata_equal(const fl_ice_metadata *a, const fl_ice_metadata *b)
{
    return a->format_version == b->format_version && str_eq(a->table_uuid, b->table_uuid) &&
           str_eq(a->location, b->location) && a->last_sequence_number == b->last_sequence_number &&
           a->last_updated_ms == b->last_updated_ms && a->last_column_id == b->last_column_id &&
           a->current_schema_id == b->current_schema_id &&
           a->default_spec_id == b->default_spec_id &&
           a->last_partition_id == b->last_partition_id &&
           a->default_sort_order_id == b->default_sort_order_id &&
           map_eq(&a->properties, &b->properties) &&
           a->current_snapshot_id == b->current_snapshot_id &&
           a->has_next_row_id == b->has_next_row_id && a->next_row_id == b->next_row_id &&
           specs_eq(a, b) && sort_orders_eq(a, b) && statistics_eq(a, b) && keys_eq(a, b) &&
           lists_eq(a, b);
}
