/*
 * txn_copy.c - deep copy of table metadata into one arena.
 *
 * After a commit the table must own its new metadata, which points into the
 * attempt's arena, the txn's arena and the old table arena. Copying the
 * structs is several times cheaper than parsing the JSON just written (the
 * metadata grows with every snapshot, so this is on every commit's path).
 */
#include <string.h>

#include "iceberg/txn_internal.h"

typedef struct cp {
    fl_arena *a;
    bool oom;
} cp;

static const char *s(cp *c, const char *x)
{
    if (!x)
        return NULL;
    const char *r = fl_arena_strdup(c->a, x);
    c->oom |= r == NULL;
    return r;
}

static void *arr(cp *c, const void *src, size_t n, size_t size)
{
    if (!src || !n)
        return NULL;
    void *r = fl_arena_alloc(c->a, n * size);
    if (!r) {
        c->oom = true;
        return NULL;
    }
    memcpy(r, src, n * size);
    return r;
}

static fl_ice_map map(cp *c, const fl_ice_map *m)
{
    fl_ice_map o = {.n = m->n, .items = arr(c, m->items, m->n, sizeof *m->items)};
    for (uint32_t i = 0; o.items && i < o.n; i++) {
        o.items[i].key = s(c, m->items[i].key);
        o.items[i].value = s(c, m->items[i].value);
    }
    return o;
}

static void schema(cp *c, fl_ice_schema *o)
{
    fl_schema sc;
    if (fl_schema_copy(c->a, &o->schema, &sc) != FL_OK)
        c->oom = true;
    else
        o->schema = sc;
    o->identifier_field_ids =
        arr(c, o->identifier_field_ids, o->nidentifier, sizeof *o->identifier_field_ids);
    fl_ice_field_extra *ex = arr(c, o->extras, o->nextras, sizeof *o->extras);
    for (uint32_t i = 0; ex && i < o->nextras; i++) {
        ex[i].initial_default = s(c, ex[i].initial_default);
        ex[i].write_default = s(c, ex[i].write_default);
        ex[i].type_str = s(c, ex[i].type_str);
    }
    o->extras = ex;
}

static void snapshot(cp *c, fl_ice_snapshot *o)
{
    o->manifest_list = s(c, o->manifest_list);
    const char **mf = arr(c, o->manifests, o->nmanifests, sizeof *o->manifests);
    for (uint32_t i = 0; mf && i < o->nmanifests; i++)
        mf[i] = s(c, mf[i]);
    o->manifests = mf;
    o->operation = s(c, o->operation);
    o->summary = map(c, &o->summary);
    o->key_id = s(c, o->key_id);
}

static void statistics(cp *c, fl_ice_statistics_file *o)
{
    o->statistics_path = s(c, o->statistics_path);
    o->key_metadata = s(c, o->key_metadata);
    fl_ice_blob_metadata *b = arr(c, o->blobs, o->nblobs, sizeof *o->blobs);
    for (uint32_t i = 0; b && i < o->nblobs; i++) {
        b[i].type = s(c, b[i].type);
        b[i].fields = arr(c, b[i].fields, b[i].nfields, sizeof *b[i].fields);
        b[i].properties = map(c, &b[i].properties);
    }
    o->blobs = b;
}

fl_status txn_metadata_copy(const fl_ice_metadata *m, fl_arena *a, fl_ice_metadata *out)
{
    cp c = {.a = a};
    fl_ice_metadata o = *m;
    o.table_uuid = s(&c, m->table_uuid);
    o.location = s(&c, m->location);
    o.schemas = arr(&c, m->schemas, m->nschemas, sizeof *m->schemas);
    for (uint32_t i = 0; o.schemas && i < o.nschemas; i++)
        schema(&c, &o.schemas[i]);
    o.specs = arr(&c, m->specs, m->nspecs, sizeof *m->specs);
    for (uint32_t i = 0; o.specs && i < o.nspecs; i++) {
        fl_ice_partition_spec *sp = &o.specs[i];
        sp->fields = arr(&c, sp->fields, sp->nfields, sizeof *sp->fields);
        for (uint32_t j = 0; sp->fields && j < sp->nfields; j++) {
            fl_ice_partition_field *f = &sp->fields[j];
            f->name = s(&c, f->name);
            f->transform = s(&c, f->transform);
            f->source_ids = arr(&c, f->source_ids, f->nsource_ids, sizeof *f->source_ids);
        }
    }
    o.sort_orders = arr(&c, m->sort_orders, m->nsort_orders, sizeof *m->sort_orders);
    for (uint32_t i = 0; o.sort_orders && i < o.nsort_orders; i++) {
        fl_ice_sort_order *so = &o.sort_orders[i];
        so->fields = arr(&c, so->fields, so->nfields, sizeof *so->fields);
        for (uint32_t j = 0; so->fields && j < so->nfields; j++) {
            fl_ice_sort_field *f = &so->fields[j];
            f->transform = s(&c, f->transform);
            f->source_ids = arr(&c, f->source_ids, f->nsource_ids, sizeof *f->source_ids);
        }
    }
    o.properties = map(&c, &m->properties);
    o.encryption_keys =
        arr(&c, m->encryption_keys, m->nencryption_keys, sizeof *m->encryption_keys);
    for (uint32_t i = 0; o.encryption_keys && i < o.nencryption_keys; i++) {
        fl_ice_encryption_key *k = &o.encryption_keys[i];
        k->key_id = s(&c, k->key_id);
        k->encrypted_key_metadata = s(&c, k->encrypted_key_metadata);
        k->encrypted_by_id = s(&c, k->encrypted_by_id);
        k->properties = map(&c, &k->properties);
    }
    o.refs = arr(&c, m->refs, m->nrefs, sizeof *m->refs);
    for (uint32_t i = 0; o.refs && i < o.nrefs; i++)
        o.refs[i].name = s(&c, o.refs[i].name);
    o.snapshots = arr(&c, m->snapshots, m->nsnapshots, sizeof *m->snapshots);
    for (uint32_t i = 0; o.snapshots && i < o.nsnapshots; i++)
        snapshot(&c, &o.snapshots[i]);
    o.statistics = arr(&c, m->statistics, m->nstatistics, sizeof *m->statistics);
    for (uint32_t i = 0; o.statistics && i < o.nstatistics; i++)
        statistics(&c, &o.statistics[i]);
    o.partition_statistics =
        arr(&c, m->partition_statistics, m->npartition_statistics, sizeof *m->partition_statistics);
    for (uint32_t i = 0; o.partition_statistics && i < o.npartition_statistics; i++)
        o.partition_statistics[i].statistics_path =
            s(&c, o.partition_statistics[i].statistics_path);
    o.snapshot_log = arr(&c, m->snapshot_log, m->nsnapshot_log, sizeof *m->snapshot_log);
    o.metadata_log = arr(&c, m->metadata_log, m->nmetadata_log, sizeof *m->metadata_log);
    for (uint32_t i = 0; o.metadata_log && i < o.nmetadata_log; i++)
        o.metadata_log[i].metadata_file = s(&c, o.metadata_log[i].metadata_file);
    if (c.oom)
        return FL_ENOMEM;
    *out = o;
    return FL_OK;
}

/* ---- updates ------------------------------------------------------------------------ */

fl_status txn_update_copy(const fl_ice_update *in, fl_arena *a, fl_ice_update *out)
{
    cp c = {.a = a};
    fl_ice_update u = *in;
    u.uuid = s(&c, in->uuid);
    u.ref_name = s(&c, in->ref_name);
    u.location = s(&c, in->location);
    if (in->schema) {
        fl_ice_schema *sc = arr(&c, in->schema, 1, sizeof *sc);
        if (sc)
            schema(&c, sc);
        u.schema = sc;
    }
    if (in->spec) {
        fl_ice_partition_spec *sp = arr(&c, in->spec, 1, sizeof *sp);
        if (sp) {
            sp->fields = arr(&c, sp->fields, sp->nfields, sizeof *sp->fields);
            for (uint32_t j = 0; sp->fields && j < sp->nfields; j++) {
                fl_ice_partition_field *f = &sp->fields[j];
                f->name = s(&c, f->name);
                f->transform = s(&c, f->transform);
                f->source_ids = arr(&c, f->source_ids, f->nsource_ids, sizeof *f->source_ids);
            }
        }
        u.spec = sp;
    }
    if (in->order) {
        fl_ice_sort_order *so = arr(&c, in->order, 1, sizeof *so);
        if (so) {
            so->fields = arr(&c, so->fields, so->nfields, sizeof *so->fields);
            for (uint32_t j = 0; so->fields && j < so->nfields; j++) {
                fl_ice_sort_field *f = &so->fields[j];
                f->transform = s(&c, f->transform);
                f->source_ids = arr(&c, f->source_ids, f->nsource_ids, sizeof *f->source_ids);
            }
        }
        u.order = so;
    }
    if (in->snapshot) {
        fl_ice_snapshot *sn = arr(&c, in->snapshot, 1, sizeof *sn);
        if (sn)
            snapshot(&c, sn);
        u.snapshot = sn;
    }
    if (in->ref) {
        fl_ice_ref *r = arr(&c, in->ref, 1, sizeof *r);
        if (r)
            r->name = s(&c, r->name);
        u.ref = r;
    }
    u.ids = arr(&c, in->ids, in->nids, sizeof *in->ids);
    u.properties = map(&c, &in->properties);
    if (in->nremovals && in->removals) {
        const char **rm = arr(&c, in->removals, in->nremovals, sizeof *rm);
        for (uint32_t i = 0; rm && i < in->nremovals; i++)
            rm[i] = s(&c, rm[i]);
        u.removals = rm;
    }
    if (in->statistics) {
        fl_ice_statistics_file *st = arr(&c, in->statistics, 1, sizeof *st);
        if (st)
            statistics(&c, st);
        u.statistics = st;
    }
    if (c.oom)
        return FL_ENOMEM;
    *out = u;
    return FL_OK;
}
