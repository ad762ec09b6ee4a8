/*
 * update_apply.c - fl_ice_metadata_apply(): base table metadata + a list of
 * metadata updates (the REST catalog's commit vocabulary) -> new metadata,
 * with the semantics of the Java reference's TableMetadata.Builder.
 *
 * Rules (spec "Table Metadata", "Snapshots", "Sequence numbers"; Java builder):
 *   - assign-uuid: a table's uuid never changes once set.
 *   - upgrade-format-version: 1..3, never a downgrade; equal is a no-op.
 *     Upgrading to v3 starts next-row-id at 0.
 *   - add-schema reuses the id of an identical existing schema (same fields,
 *     identifier ids and defaults); a new one gets max(id)+1. last-column-id
 *     may only grow. set-current-schema -1 = the schema added last in this
 *     list. add-spec / add-sort-order likewise (a spec is "the same" when its
 *     fields have the same source ids, transforms and names; the unsorted
 *     order is always id 0); unset partition field ids (<= 0) are assigned
 *     from last-partition-id + 1.
 *   - add-snapshot: unique id; in v2+ its sequence number must be above
 *     last-sequence-number (unless it has no parent), which it then becomes;
 *     last-updated-ms becomes its timestamp. In v3 its first-row-id must be
 *     at least next-row-id, which then advances by its added-rows.
 *   - set-snapshot-ref: the snapshot must exist; for "main" the current
 *     snapshot id follows and the snapshot-log gets an entry. Snapshots
 *     added and set as main in this same list but superseded by a later one
 *     ("intermediate" snapshots of a transaction) are dropped from the log.
 *   - remove-snapshots also drops refs to them and their statistics; the
 *     snapshot-log loses every entry up to the last one naming a removed
 *     snapshot (so time travel never skips a gap).
 *   - base_location (the file base was read from) is appended to the
 *     metadata-log with base's last-updated-ms, keeping at most
 *     write.metadata.previous-versions-max (default 100) entries.
 *   - last-updated-ms is the last added snapshot's timestamp, else now_ms.
 *
 * Memory: the result lives in arena a but may point at memory of base and of
 * the updates (schemas, snapshots, strings are shared, never modified); both
 * must outlive *out. Arrays that change are fresh arena copies.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "floe/ice_table.h"
#include "ice_internal.h"

typedef struct apply_st {
    fl_ice_metadata m;
    fl_arena *a;
    fl_error *err;
    uint32_t idx; /* index of the update being applied, for messages */
    fl_ice_update_kind kind;
    bool is_new; /* base == NULL */
    uint32_t cap_schemas, cap_specs, cap_orders, cap_props, cap_refs, cap_snaps, cap_stats,
        cap_pstats, cap_slog, cap_keys;
    bool has_last_schema, has_last_spec, has_last_order;
    int32_t last_schema, last_spec, last_order;
    bool updated_set; /* last_updated_ms came from an added snapshot */
    int64_t *added;   /* snapshot ids added by this list */
    uint32_t nadded, cap_added;
    bool removed_snapshots;
} apply_st;

static const char *kind_name(fl_ice_update_kind k)
{
    static const char *const names[] = {"?",
                                        "assign-uuid",
                                        "upgrade-format-version",
                                        "add-schema",
                                        "set-current-schema",
                                        "add-spec",
                                        "set-default-spec",
                                        "add-sort-order",
                                        "set-default-sort-order",
                                        "add-snapshot",
                                        "set-snapshot-ref",
                                        "remove-snapshots",
                                        "remove-snapshot-ref",
                                        "set-location",
                                        "set-properties",
                                        "remove-properties",
                                        "set-statistics",
                                        "remove-statistics",
                                        "remove-partition-specs",
                                        "remove-schemas"};
    return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

static fl_status fail(apply_st *st, fl_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static fl_status fail(apply_st *st, fl_status code, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return fl_errorf(st->err, code, "metadata update %u (%s): %s", st->idx, kind_name(st->kind),
                     msg);
}

static fl_status nomem(apply_st *st)
{
    return fl_errorf(st->err, FL_ENOMEM, "metadata update %u: out of memory", st->idx);
}

/* Makes *arr an arena array with room for n+1 elements (copying the first n
 * when it is still shared with base, i.e. *cap == 0). */
static bool grow(fl_arena *a, void **arr, uint32_t n, uint32_t *cap, size_t sz)
{
    if (n < *cap)
        return true;
    uint32_t nc = *cap ? *cap * 2 : n + 8;
    void *p = fl_arena_alloc(a, (size_t)nc * sz);
    if (!p)
        return false;
    if (n)
        memcpy(p, *arr, (size_t)n * sz);
    *arr = p;
    *cap = nc;
    return true;
}
#define GROW(st, arr, n, cap) grow((st)->a, (void **)&(arr), (n), &(cap), sizeof *(arr))

/* ---- schemas --------------------------------------------------------------- */

static int32_t max_field_id(const fl_field *f, uint32_t n)
{
    int32_t mx = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (f[i].field_id > mx)
            mx = f[i].field_id;
        int32_t c = max_field_id(f[i].type.children, f[i].type.nchildren);
        if (c > mx)
            mx = c;
    }
    return mx;
}

static bool same_schema(const fl_ice_schema *x, const fl_ice_schema *y)
{
    fl_ice_schema t = *y;
    t.schema_id = x->schema_id;
    t.schema.schema_id = x->schema.schema_id;
    return ice_schema_equal(x, &t);
}

static fl_status add_schema(apply_st *st, const fl_ice_update *u)
{
    if (!u->schema)
        return fail(st, FL_EINVAL, "no schema");
    int32_t derived = max_field_id(u->schema->schema.fields, u->schema->schema.nfields);
    /* The request's last-column-id is deprecated (REST spec): Java 1.11 sends
     * the schema's highest field id, which is below the table's after a
     * column was dropped. As in the Java reference, the table's last column
     * id only grows: max(table's, schema's, the request's). */
    int32_t last = derived > st->m.last_column_id ? derived : st->m.last_column_id;
    if (u->last_column_id > last)
        last = u->last_column_id;
    int32_t id = 0;
    for (uint32_t i = 0; i < st->m.nschemas; i++) {
        const fl_ice_schema *s = &st->m.schemas[i];
        if (same_schema(s, u->schema)) {
            st->m.last_column_id = last;
            st->has_last_schema = true;
            st->last_schema = s->schema_id;
            return FL_OK;
        }
        if (s->schema_id >= id)
            id = s->schema_id + 1;
    }
    if (!GROW(st, st->m.schemas, st->m.nschemas, st->cap_schemas))
        return nomem(st);
    fl_ice_schema *ns = &st->m.schemas[st->m.nschemas++];
    *ns = *u->schema;
    ns->schema_id = id;
    ns->schema.schema_id = id;
    st->m.last_column_id = last;
    st->has_last_schema = true;
    st->last_schema = id;
    return FL_OK;
}

static fl_status resolve_last(apply_st *st, int32_t id, bool has, int32_t last, const char *what,
                              int32_t *out)
{
    if (id != -1) {
        *out = id;
        return FL_OK;
    }
    if (!has)
        return fail(st, FL_EINVAL, "id -1 (last added) but no %s was added", what);
    *out = last;
    return FL_OK;
}

static fl_status set_current_schema(apply_st *st, const fl_ice_update *u)
{
    int32_t id = 0;
    FL_TRY(resolve_last(st, u->id, st->has_last_schema, st->last_schema, "schema", &id));
    if (!fl_ice_metadata_schema(&st->m, id))
        return fail(st, FL_EINVAL, "unknown schema id %d", (int)id);
    st->m.current_schema_id = id;
    return FL_OK;
}

/* ---- partition specs and sort orders --------------------------------------- */

static bool same_spec(const fl_ice_partition_spec *x, const fl_ice_partition_spec *y)
{
    if (x->nfields != y->nfields)
        return false;
    for (uint32_t i = 0; i < x->nfields; i++) {
        const fl_ice_partition_field *f = &x->fields[i], *g = &y->fields[i];
        if (f->source_id != g->source_id || strcmp(f->transform, g->transform) != 0 ||
            strcmp(f->name, g->name) != 0 || f->nsource_ids != g->nsource_ids)
            return false;
        for (uint32_t k = 0; k < f->nsource_ids; k++)
            if (f->source_ids[k] != g->source_ids[k])
                return false;
    }
    return true;
}

static fl_status add_spec(apply_st *st, const fl_ice_update *u)
{
    const fl_ice_partition_spec *in = u->spec;
    if (!in)
        return fail(st, FL_EINVAL, "no partition spec");
    int32_t id = 0;
    for (uint32_t i = 0; i < st->m.nspecs; i++) {
        const fl_ice_partition_spec *s = &st->m.specs[i];
        if (same_spec(s, in)) {
            st->has_last_spec = true;
            st->last_spec = s->spec_id;
            return FL_OK;
        }
        if (s->spec_id >= id)
            id = s->spec_id + 1;
    }
    fl_ice_partition_field *fields = NULL;
    if (in->nfields) {
        fields = fl_arena_calloc(st->a, in->nfields, sizeof *fields);
        if (!fields)
            return nomem(st);
    }
    int32_t last = st->m.last_partition_id;
    for (uint32_t i = 0; i < in->nfields; i++) {
        fields[i] = in->fields[i];
        if (!fields[i].name || !fields[i].transform)
            return fail(st, FL_EINVAL, "partition field %u lacks a name or transform", i);
        if (fields[i].field_id <= 0)
            fields[i].field_id = ++last;
        else if (fields[i].field_id > last)
            last = fields[i].field_id;
        if (st->m.format_version == 1 &&
            fields[i].field_id != FL_ICE_PARTITION_FIELD_ID_BASE + (int32_t)i)
            return fail(st, FL_EINVAL, "v1 partition specs need sequential field ids from 1000");
    }
    if (!GROW(st, st->m.specs, st->m.nspecs, st->cap_specs))
        return nomem(st);
    st->m.specs[st->m.nspecs++] =
        (fl_ice_partition_spec){.spec_id = id, .nfields = in->nfields, .fields = fields};
    st->m.last_partition_id = last;
    st->has_last_spec = true;
    st->last_spec = id;
    return FL_OK;
}

static fl_status set_default_spec(apply_st *st, const fl_ice_update *u)
{
    int32_t id = 0;
    FL_TRY(resolve_last(st, u->id, st->has_last_spec, st->last_spec, "partition spec", &id));
    if (!fl_ice_metadata_spec(&st->m, id))
        return fail(st, FL_EINVAL, "unknown partition spec id %d", (int)id);
    st->m.default_spec_id = id;
    return FL_OK;
}

static bool same_order(const fl_ice_sort_order *x, const fl_ice_sort_order *y)
{
    if (x->nfields != y->nfields)
        return false;
    for (uint32_t i = 0; i < x->nfields; i++) {
        const fl_ice_sort_field *f = &x->fields[i], *g = &y->fields[i];
        if (f->source_id != g->source_id || strcmp(f->transform, g->transform) != 0 ||
            f->descending != g->descending || f->nulls_first != g->nulls_first)
            return false;
    }
    return true;
}

static fl_status add_sort_order(apply_st *st, const fl_ice_update *u)
{
    const fl_ice_sort_order *in = u->order;
    if (!in)
        return fail(st, FL_EINVAL, "no sort order");
    int32_t id = in->nfields == 0 ? 0 : 1;
    for (uint32_t i = 0; i < st->m.nsort_orders; i++) {
        const fl_ice_sort_order *s = &st->m.sort_orders[i];
        if (same_order(s, in)) {
            st->has_last_order = true;
            st->last_order = s->order_id;
            return FL_OK;
        }
        if (in->nfields && s->order_id >= id)
            id = s->order_id + 1;
    }
    for (uint32_t i = 0; i < in->nfields; i++)
        if (!in->fields[i].transform)
            return fail(st, FL_EINVAL, "sort field %u lacks a transform", i);
    if (!GROW(st, st->m.sort_orders, st->m.nsort_orders, st->cap_orders))
        return nomem(st);
    fl_ice_sort_order *o = &st->m.sort_orders[st->m.nsort_orders++];
    *o = *in;
    o->order_id = id;
    st->has_last_order = true;
    st->last_order = id;
    return FL_OK;
}

static fl_status set_default_order(apply_st *st, const fl_ice_update *u)
{
    int32_t id = 0;
    FL_TRY(resolve_last(st, u->id, st->has_last_order, st->last_order, "sort order", &id));
    for (uint32_t i = 0; i < st->m.nsort_orders; i++)
        if (st->m.sort_orders[i].order_id == id) {
            st->m.default_sort_order_id = id;
            return FL_OK;
        }
    return fail(st, FL_EINVAL, "unknown sort order id %d", (int)id);
}

/* ---- snapshots and refs ---------------------------------------------------- */

static bool was_added(const apply_st *st, int64_t id)
{
    for (uint32_t i = 0; i < st->nadded; i++)
        if (st->added[i] == id)
            return true;
    return false;
}

static fl_status add_snapshot(apply_st *st, const fl_ice_update *u)
{
    const fl_ice_snapshot *s = u->snapshot;
    if (!s)
        return fail(st, FL_EINVAL, "no snapshot");
    if (fl_ice_metadata_snapshot(&st->m, s->snapshot_id))
        return fail(st, FL_EINVAL, "snapshot %lld already exists", (long long)s->snapshot_id);
    if (!s->manifest_list && !s->has_manifests)
        return fail(st, FL_EINVAL, "snapshot %lld has no manifest list", (long long)s->snapshot_id);
    if (st->m.format_version >= 2 && s->has_parent &&
        s->sequence_number <= st->m.last_sequence_number)
        return fail(st, FL_EINVAL,
                    "snapshot %lld has sequence number %lld, not above last-sequence-number %lld",
                    (long long)s->snapshot_id, (long long)s->sequence_number,
                    (long long)st->m.last_sequence_number);
    if (s->has_parent && !fl_ice_metadata_snapshot(&st->m, s->parent_snapshot_id) &&
        !was_added(st, s->parent_snapshot_id)) {
        /* Java allows parents that were expired; only reject impossible ids. */
        if (s->parent_snapshot_id == s->snapshot_id)
            return fail(st, FL_EINVAL, "snapshot %lld is its own parent",
                        (long long)s->snapshot_id);
    }
    if (st->m.format_version >= 3) {
        if (!s->has_first_row_id || !s->has_added_rows)
            return fail(st, FL_EINVAL, "v3 snapshot %lld lacks first-row-id or added-rows",
                        (long long)s->snapshot_id);
        if (s->first_row_id < st->m.next_row_id)
            return fail(st, FL_EINVAL, "snapshot %lld first-row-id %lld is behind next-row-id %lld",
                        (long long)s->snapshot_id, (long long)s->first_row_id,
                        (long long)st->m.next_row_id);
        if (s->added_rows < 0)
            return fail(st, FL_EINVAL, "snapshot %lld has negative added-rows",
                        (long long)s->snapshot_id);
        st->m.next_row_id += s->added_rows;
        st->m.has_next_row_id = true;
    }
    if (!GROW(st, st->m.snapshots, st->m.nsnapshots, st->cap_snaps) ||
        !GROW(st, st->added, st->nadded, st->cap_added))
        return nomem(st);
    st->m.snapshots[st->m.nsnapshots++] = *s;
    st->added[st->nadded++] = s->snapshot_id;
    if (s->sequence_number > st->m.last_sequence_number)
        st->m.last_sequence_number = s->sequence_number;
    st->m.last_updated_ms = s->timestamp_ms;
    st->updated_set = true;
    return FL_OK;
}

static fl_ice_ref *find_ref(apply_st *st, const char *name, uint32_t *idx)
{
    for (uint32_t i = 0; i < st->m.nrefs; i++)
        if (strcmp(st->m.refs[i].name, name) == 0) {
            if (idx)
                *idx = i;
            return &st->m.refs[i];
        }
    return NULL;
}

static bool ref_equal(const fl_ice_ref *x, const fl_ice_ref *y)
{
    return x->snapshot_id == y->snapshot_id && x->is_tag == y->is_tag &&
           x->has_min_snapshots_to_keep == y->has_min_snapshots_to_keep &&
           (!x->has_min_snapshots_to_keep ||
            x->min_snapshots_to_keep == y->min_snapshots_to_keep) &&
           x->has_max_snapshot_age_ms == y->has_max_snapshot_age_ms &&
           (!x->has_max_snapshot_age_ms || x->max_snapshot_age_ms == y->max_snapshot_age_ms) &&
           x->has_max_ref_age_ms == y->has_max_ref_age_ms &&
           (!x->has_max_ref_age_ms || x->max_ref_age_ms == y->max_ref_age_ms);
}

static fl_status set_ref(apply_st *st, const fl_ice_update *u, int64_t now_ms)
{
    const fl_ice_ref *r = u->ref;
    if (!r || !r->name || !*r->name)
        return fail(st, FL_EINVAL, "no ref name");
    if (strcmp(r->name, "main") == 0 && r->is_tag)
        return fail(st, FL_EINVAL, "main must be a branch");
    uint32_t idx;
    fl_ice_ref *old = find_ref(st, r->name, &idx);
    if (old && ref_equal(old, r))
        return FL_OK;
    const fl_ice_snapshot *s = fl_ice_metadata_snapshot(&st->m, r->snapshot_id);
    if (!s)
        return fail(st, FL_EINVAL, "cannot set %s to unknown snapshot %lld", r->name,
                    (long long)r->snapshot_id);
    if (was_added(st, r->snapshot_id)) {
        st->m.last_updated_ms = s->timestamp_ms;
        st->updated_set = true;
    }
    if (strcmp(r->name, "main") == 0) {
        st->m.current_snapshot_id = r->snapshot_id;
        if (!GROW(st, st->m.snapshot_log, st->m.nsnapshot_log, st->cap_slog))
            return nomem(st);
        st->m.snapshot_log[st->m.nsnapshot_log++] = (fl_ice_snapshot_log_entry){
            .timestamp_ms = st->updated_set ? st->m.last_updated_ms : now_ms,
            .snapshot_id = r->snapshot_id};
    }
    if (!GROW(st, st->m.refs, st->m.nrefs, st->cap_refs))
        return nomem(st);
    if (old)
        st->m.refs[idx] = *r;
    else
        st->m.refs[st->m.nrefs++] = *r;
    return FL_OK;
}

/* Requires st->m.refs to be an own copy (GROW called). */
static void remove_ref_named(apply_st *st, const char *name)
{
    uint32_t idx;
    if (!find_ref(st, name, &idx))
        return;
    if (strcmp(name, "main") == 0)
        st->m.current_snapshot_id = FL_ICE_NO_SNAPSHOT;
    /* callers made refs our own copy (cap_refs > 0) */
    memmove(&st->m.refs[idx], &st->m.refs[idx + 1],
            (size_t)(st->m.nrefs - idx - 1) * sizeof st->m.refs[0]);
    st->m.nrefs--;
}

static fl_status remove_ref(apply_st *st, const fl_ice_update *u)
{
    if (!u->ref_name)
        return fail(st, FL_EINVAL, "no ref name");
    if (st->cap_refs == 0 && !GROW(st, st->m.refs, st->m.nrefs, st->cap_refs))
        return nomem(st);
    remove_ref_named(st, u->ref_name);
    return FL_OK;
}

static bool id_in(const int64_t *ids, uint32_t n, int64_t id)
{
    for (uint32_t i = 0; i < n; i++)
        if (ids[i] == id)
            return true;
    return false;
}

static fl_status remove_snapshots(apply_st *st, const fl_ice_update *u)
{
    if (u->nids && !u->ids)
        return fail(st, FL_EINVAL, "no snapshot ids");
    if (!GROW(st, st->m.snapshots, st->m.nsnapshots, st->cap_snaps) ||
        !GROW(st, st->m.refs, st->m.nrefs, st->cap_refs) ||
        !GROW(st, st->m.statistics, st->m.nstatistics, st->cap_stats) ||
        !GROW(st, st->m.partition_statistics, st->m.npartition_statistics, st->cap_pstats))
        return nomem(st);
    uint32_t k = 0;
    for (uint32_t i = 0; i < st->m.nsnapshots; i++) {
        if (id_in(u->ids, u->nids, st->m.snapshots[i].snapshot_id)) {
            st->removed_snapshots = true;
            continue;
        }
        st->m.snapshots[k++] = st->m.snapshots[i];
    }
    st->m.nsnapshots = k;
    k = 0;
    for (uint32_t i = 0; i < st->m.nstatistics; i++)
        if (!id_in(u->ids, u->nids, st->m.statistics[i].snapshot_id))
            st->m.statistics[k++] = st->m.statistics[i];
    st->m.nstatistics = k;
    k = 0;
    for (uint32_t i = 0; i < st->m.npartition_statistics; i++)
        if (!id_in(u->ids, u->nids, st->m.partition_statistics[i].snapshot_id))
            st->m.partition_statistics[k++] = st->m.partition_statistics[i];
    st->m.npartition_statistics = k;
    /* refs left dangling go too */
    for (uint32_t i = 0; i < st->m.nrefs;) {
        if (!fl_ice_metadata_snapshot(&st->m, st->m.refs[i].snapshot_id))
            remove_ref_named(st, st->m.refs[i].name);
        else
            i++;
    }
    return FL_OK;
}

/* ---- properties, statistics, removals -------------------------------------- */

static fl_status set_properties(apply_st *st, const fl_ice_update *u)
{
    for (uint32_t i = 0; i < u->properties.n; i++) {
        const fl_ice_kv *kv = &u->properties.items[i];
        if (!kv->key || !kv->value)
            return fail(st, FL_EINVAL, "property %u has no key or value", i);
        if (!GROW(st, st->m.properties.items, st->m.properties.n, st->cap_props))
            return nomem(st);
        uint32_t j = 0;
        while (j < st->m.properties.n && strcmp(st->m.properties.items[j].key, kv->key) != 0)
            j++;
        st->m.properties.items[j] = *kv;
        if (j == st->m.properties.n)
            st->m.properties.n++;
    }
    return FL_OK;
}

static fl_status remove_properties(apply_st *st, const fl_ice_update *u)
{
    if (u->nremovals && !u->removals)
        return fail(st, FL_EINVAL, "no property names");
    if (!GROW(st, st->m.properties.items, st->m.properties.n, st->cap_props))
        return nomem(st);
    uint32_t k = 0;
    for (uint32_t i = 0; i < st->m.properties.n; i++) {
        bool drop = false;
        for (uint32_t j = 0; j < u->nremovals && !drop; j++)
            drop = u->removals[j] && strcmp(u->removals[j], st->m.properties.items[i].key) == 0;
        if (!drop)
            st->m.properties.items[k++] = st->m.properties.items[i];
    }
    st->m.properties.n = k;
    return FL_OK;
}

static fl_status set_statistics(apply_st *st, const fl_ice_update *u)
{
    if (!u->statistics || !u->statistics->statistics_path)
        return fail(st, FL_EINVAL, "no statistics file");
    if (!GROW(st, st->m.statistics, st->m.nstatistics, st->cap_stats))
        return nomem(st);
    uint32_t j = 0;
    while (j < st->m.nstatistics && st->m.statistics[j].snapshot_id != u->statistics->snapshot_id)
        j++;
    st->m.statistics[j] = *u->statistics;
    if (j == st->m.nstatistics)
        st->m.nstatistics++;
    return FL_OK;
}

static fl_status remove_statistics(apply_st *st, const fl_ice_update *u)
{
    if (!GROW(st, st->m.statistics, st->m.nstatistics, st->cap_stats))
        return nomem(st);
    uint32_t k = 0;
    for (uint32_t i = 0; i < st->m.nstatistics; i++)
        if (st->m.statistics[i].snapshot_id != u->snapshot_id)
            st->m.statistics[k++] = st->m.statistics[i];
    st->m.nstatistics = k;
    return FL_OK;
}

/* Partition statistics: at most one file per snapshot, as for statistics. */
static fl_status set_partition_statistics(apply_st *st, const fl_ice_update *u)
{
    const fl_ice_partition_statistics_file *ps = u->partition_statistics;
    if (!ps || !ps->statistics_path)
        return fail(st, FL_EINVAL, "no partition statistics file");
    if (!GROW(st, st->m.partition_statistics, st->m.npartition_statistics, st->cap_pstats))
        return nomem(st);
    uint32_t j = 0;
    while (j < st->m.npartition_statistics &&
           st->m.partition_statistics[j].snapshot_id != ps->snapshot_id)
        j++;
    st->m.partition_statistics[j] = *ps;
    if (j == st->m.npartition_statistics)
        st->m.npartition_statistics++;
    return FL_OK;
}

static fl_status remove_partition_statistics(apply_st *st, const fl_ice_update *u)
{
    if (!GROW(st, st->m.partition_statistics, st->m.npartition_statistics, st->cap_pstats))
        return nomem(st);
    uint32_t k = 0;
    for (uint32_t i = 0; i < st->m.npartition_statistics; i++)
        if (st->m.partition_statistics[i].snapshot_id != u->snapshot_id)
            st->m.partition_statistics[k++] = st->m.partition_statistics[i];
    st->m.npartition_statistics = k;
    return FL_OK;
}

/* Encryption keys (v3): added keys replace a key with the same id. */
static fl_status add_encryption_key(apply_st *st, const fl_ice_update *u)
{
    const fl_ice_encryption_key *key = u->encryption_key;
    if (!key || !key->key_id || !key->encrypted_key_metadata)
        return fail(st, FL_EINVAL, "encryption key without key-id or encrypted-key-metadata");
    if (!GROW(st, st->m.encryption_keys, st->m.nencryption_keys, st->cap_keys))
        return nomem(st);
    uint32_t j = 0;
    while (j < st->m.nencryption_keys && strcmp(st->m.encryption_keys[j].key_id, key->key_id) != 0)
        j++;
    st->m.encryption_keys[j] = *key;
    if (j == st->m.nencryption_keys)
        st->m.nencryption_keys++;
    return FL_OK;
}

static fl_status remove_encryption_key(apply_st *st, const fl_ice_update *u)
{
    if (!u->key_id)
        return fail(st, FL_EINVAL, "remove-encryption-key without key-id");
    if (!GROW(st, st->m.encryption_keys, st->m.nencryption_keys, st->cap_keys))
        return nomem(st);
    uint32_t k = 0;
    for (uint32_t i = 0; i < st->m.nencryption_keys; i++)
        if (strcmp(st->m.encryption_keys[i].key_id, u->key_id) != 0)
            st->m.encryption_keys[k++] = st->m.encryption_keys[i];
    st->m.nencryption_keys = k;
    return FL_OK;
}

static fl_status remove_specs(apply_st *st, const fl_ice_update *u)
{
    if (!GROW(st, st->m.specs, st->m.nspecs, st->cap_specs))
        return nomem(st);
    for (uint32_t j = 0; j < u->nids; j++)
        if (u->ids[j] == st->m.default_spec_id)
            return fail(st, FL_EINVAL, "cannot remove the default partition spec %lld",
                        (long long)u->ids[j]);
    uint32_t k = 0;
    for (uint32_t i = 0; i < st->m.nspecs; i++)
        if (!id_in(u->ids, u->nids, st->m.specs[i].spec_id))
            st->m.specs[k++] = st->m.specs[i];
    st->m.nspecs = k;
    return FL_OK;
}

static fl_status remove_schemas(apply_st *st, const fl_ice_update *u)
{
    if (!GROW(st, st->m.schemas, st->m.nschemas, st->cap_schemas))
        return nomem(st);
    for (uint32_t j = 0; j < u->nids; j++)
        if (u->ids[j] == st->m.current_schema_id)
            return fail(st, FL_EINVAL, "cannot remove the current schema %lld",
                        (long long)u->ids[j]);
    uint32_t k = 0;
    for (uint32_t i = 0; i < st->m.nschemas; i++)
        if (!id_in(u->ids, u->nids, st->m.schemas[i].schema_id))
            st->m.schemas[k++] = st->m.schemas[i];
    st->m.nschemas = k;
    return FL_OK;
}

static fl_status upgrade(apply_st *st, const fl_ice_update *u)
{
    int32_t v = u->format_version;
    if (v < 1 || v > FL_ICE_MAX_FORMAT_VERSION)
        return fail(st, FL_EINVAL, "unsupported format version %d", (int)v);
    if (st->is_new && st->m.nsnapshots == 0 && st->m.nschemas == 0) {
        st->m.format_version = v; /* a new table picks its version */
    } else if (v < st->m.format_version) {
        return fail(st, FL_EINVAL, "cannot downgrade a v%d table to v%d", (int)st->m.format_version,
                    (int)v);
    } else {
        st->m.format_version = v;
    }
    if (v >= 3 && !st->m.has_next_row_id) {
        st->m.has_next_row_id = true;
        st->m.next_row_id = 0;
    }
    return FL_OK;
}

static fl_status assign_uuid(apply_st *st, const fl_ice_update *u)
{
    if (!u->uuid || !*u->uuid)
        return fail(st, FL_EINVAL, "no uuid");
    if (st->m.table_uuid && strcmp(st->m.table_uuid, u->uuid) != 0)
        return fail(st, FL_EINVAL, "cannot reassign uuid %s to %s", st->m.table_uuid, u->uuid);
    st->m.table_uuid = u->uuid;
    return FL_OK;
}

static fl_status apply_one(apply_st *st, const fl_ice_update *u, int64_t now_ms)
{
    switch (u->kind) {
    case FL_ICE_UPD_ASSIGN_UUID: return assign_uuid(st, u);
    case FL_ICE_UPD_UPGRADE_FORMAT_VERSION: return upgrade(st, u);
    case FL_ICE_UPD_ADD_SCHEMA: return add_schema(st, u);
    case FL_ICE_UPD_SET_CURRENT_SCHEMA: return set_current_schema(st, u);
    case FL_ICE_UPD_ADD_SPEC: return add_spec(st, u);
    case FL_ICE_UPD_SET_DEFAULT_SPEC: return set_default_spec(st, u);
    case FL_ICE_UPD_ADD_SORT_ORDER: return add_sort_order(st, u);
    case FL_ICE_UPD_SET_DEFAULT_SORT_ORDER: return set_default_order(st, u);
    case FL_ICE_UPD_ADD_SNAPSHOT: return add_snapshot(st, u);
    case FL_ICE_UPD_SET_SNAPSHOT_REF: return set_ref(st, u, now_ms);
    case FL_ICE_UPD_REMOVE_SNAPSHOTS: return remove_snapshots(st, u);
    case FL_ICE_UPD_REMOVE_SNAPSHOT_REF: return remove_ref(st, u);
    case FL_ICE_UPD_SET_LOCATION:
        if (!u->location || !*u->location)
            return fail(st, FL_EINVAL, "no location");
        st->m.location = u->location;
        return FL_OK;
    case FL_ICE_UPD_SET_PROPERTIES: return set_properties(st, u);
    case FL_ICE_UPD_REMOVE_PROPERTIES: return remove_properties(st, u);
    case FL_ICE_UPD_SET_STATISTICS: return set_statistics(st, u);
    case FL_ICE_UPD_REMOVE_STATISTICS: return remove_statistics(st, u);
    case FL_ICE_UPD_REMOVE_PARTITION_SPECS: return remove_specs(st, u);
    case FL_ICE_UPD_REMOVE_SCHEMAS: return remove_schemas(st, u);
    case FL_ICE_UPD_SET_PARTITION_STATISTICS: return set_partition_statistics(st, u);
    case FL_ICE_UPD_REMOVE_PARTITION_STATISTICS: return remove_partition_statistics(st, u);
    case FL_ICE_UPD_ADD_ENCRYPTION_KEY: return add_encryption_key(st, u);
    case FL_ICE_UPD_REMOVE_ENCRYPTION_KEY: return remove_encryption_key(st, u);
    }
    return fail(st, FL_EINVAL, "unknown update kind %d", (int)u->kind);
}

/* ---- finishing --------------------------------------------------------------- */

/* Drops snapshot-log entries of snapshots added here that main moved past,
 * and, after removals, everything up to the last entry of a removed snapshot. */
static fl_status fix_snapshot_log(apply_st *st)
{
    bool intermediate = false;
    for (uint32_t i = 0; i < st->nadded && !intermediate; i++)
        intermediate = st->added[i] != st->m.current_snapshot_id;
    if (!intermediate && !st->removed_snapshots)
        return FL_OK;
    if (!GROW(st, st->m.snapshot_log, st->m.nsnapshot_log, st->cap_slog))
        return nomem(st);
    uint32_t k = 0;
    for (uint32_t i = 0; i < st->m.nsnapshot_log; i++) {
        fl_ice_snapshot_log_entry e = st->m.snapshot_log[i];
        if (fl_ice_metadata_snapshot(&st->m, e.snapshot_id)) {
            if (!(was_added(st, e.snapshot_id) && e.snapshot_id != st->m.current_snapshot_id))
                st->m.snapshot_log[k++] = e;
        } else if (st->removed_snapshots) {
            k = 0;
        }
    }
    st->m.nsnapshot_log = k;
    return FL_OK;
}

static fl_status add_metadata_log(apply_st *st, const fl_ice_metadata *base, const char *loc)
{
    const char *p = fl_ice_map_get(&st->m.properties, "write.metadata.previous-versions-max");
    long max = 100;
    if (p) {
        char *end;
        max = strtol(p, &end, 10);
        if (*end || end == p)
            max = 100;
    }
    if (max < 1)
        max = 1;
    uint32_t n = base->nmetadata_log + 1;
    uint32_t skip = n > (uint32_t)max ? n - (uint32_t)max : 0;
    fl_ice_metadata_log_entry *log = fl_arena_alloc(st->a, (size_t)(n - skip) * sizeof *log);
    if (!log)
        return nomem(st);
    uint32_t k = 0;
    for (uint32_t i = skip; i < base->nmetadata_log; i++)
        log[k++] = base->metadata_log[i];
    log[k++] =
        (fl_ice_metadata_log_entry){.timestamp_ms = base->last_updated_ms, .metadata_file = loc};
    st->m.metadata_log = log;
    st->m.nmetadata_log = k;
    return FL_OK;
}

static void random_uuid(char buf[37])
{
    uint8_t b[16];
    size_t got = 0;
    while (got < sizeof b) {
        ssize_t r = getrandom(b + got, sizeof b - got, 0);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    b[6] = (uint8_t)((b[6] & 0x0F) | 0x40);
    b[8] = (uint8_t)((b[8] & 0x3F) | 0x80);
    static const char hex[] = "0123456789abcdef";
    int k = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            buf[k++] = '-';
        buf[k++] = hex[b[i] >> 4];
        buf[k++] = hex[b[i] & 15];
    }
    buf[k] = 0;
}

static fl_status finish_new(apply_st *st)
{
    if (st->m.format_version == 0)
        st->m.format_version = 2;
    if (st->m.format_version >= 3 && !st->m.has_next_row_id) {
        st->m.has_next_row_id = true;
        st->m.next_row_id = 0;
    }
    if (!st->m.location)
        return fl_errorf(st->err, FL_EINVAL, "new table metadata: no location (set-location)");
    if (st->m.nschemas == 0)
        return fl_errorf(st->err, FL_EINVAL, "new table metadata: no schema (add-schema)");
    if (!fl_ice_metadata_schema(&st->m, st->m.current_schema_id))
        st->m.current_schema_id = st->m.schemas[st->m.nschemas - 1].schema_id;
    if (st->m.nspecs == 0) {
        if (!GROW(st, st->m.specs, 0, st->cap_specs))
            return nomem(st);
        st->m.specs[st->m.nspecs++] = (fl_ice_partition_spec){.spec_id = 0};
    }
    if (!fl_ice_metadata_spec(&st->m, st->m.default_spec_id))
        st->m.default_spec_id = st->m.specs[st->m.nspecs - 1].spec_id;
    if (st->m.nsort_orders == 0) {
        if (!GROW(st, st->m.sort_orders, 0, st->cap_orders))
            return nomem(st);
        st->m.sort_orders[st->m.nsort_orders++] = (fl_ice_sort_order){.order_id = 0};
    }
    bool found = false;
    for (uint32_t i = 0; i < st->m.nsort_orders; i++)
        found |= st->m.sort_orders[i].order_id == st->m.default_sort_order_id;
    if (!found)
        st->m.default_sort_order_id = st->m.sort_orders[st->m.nsort_orders - 1].order_id;
    return FL_OK;
}

fl_status fl_ice_metadata_apply(const fl_ice_metadata *base, const char *base_location,
                                const fl_ice_update *u, uint32_t n, int64_t now_ms, fl_arena *a,
                                fl_ice_metadata *out, fl_error *err)
{
    apply_st st = {.a = a, .err = err, .is_new = base == NULL};
    if (base) {
        st.m = *base;
    } else {
        st.m.format_version = 0;
        st.m.current_schema_id = -1;
        st.m.default_spec_id = -1;
        st.m.default_sort_order_id = -1;
        st.m.last_partition_id = FL_ICE_UNPARTITIONED_LAST_ID;
        st.m.current_snapshot_id = FL_ICE_NO_SNAPSHOT;
    }
    if (n && !u)
        return fl_errorf(err, FL_EINVAL, "metadata updates: NULL list");
    for (uint32_t i = 0; i < n; i++) {
        st.idx = i;
        st.kind = u[i].kind;
        FL_TRY(apply_one(&st, &u[i], now_ms));
    }
    if (st.is_new)
        FL_TRY(finish_new(&st));
    if (st.m.format_version >= 2 && !st.m.table_uuid) {
        char *b = fl_arena_alloc(a, 37);
        if (!b)
            return fl_errorf(err, FL_ENOMEM, "metadata updates: out of memory");
        random_uuid(b);
        st.m.table_uuid = b;
    }
    FL_TRY(fix_snapshot_log(&st));
    if (base && base_location)
        FL_TRY(add_metadata_log(&st, base, base_location));
    if (!st.updated_set)
        st.m.last_updated_ms = now_ms;
    *out = st.m;
    return FL_OK;
}
