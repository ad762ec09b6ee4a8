/*
 * scan_plan.c - fl_ice_scan_plan_files: snapshot -> manifests -> pruned data
 * files with their deletes attached (spec "Scan Planning"; digest 6.4/6.5).
 *
 * Steps:
 *   1. select the snapshot and the scan schema; build the output schema
 *      (requested columns, or all; _file/_pos by their reserved ids);
 *      resolve the filter against the scan schema;
 *   2. read the manifest list; drop data manifests whose partition summaries
 *      cannot match (inclusive projection through the manifest's own spec);
 *   3. read every delete manifest; index live delete files by referenced
 *      data file (DVs, file-scoped position deletes), by (spec, partition)
 *      and globally (equality deletes of unpartitioned specs);
 *   4. read the surviving data manifests (through the cache when given);
 *      keep live DATA entries whose partition tuple and metrics may match;
 *   5. attach deletes: DV (same path, dseq <= dv) supersedes position files;
 *      position files: same path or same spec+partition, dseq <= del;
 *      equality files: dseq < del, and same spec+partition or global.
 * Tasks keep manifest order (stable). Everything lives in the plan's arena,
 * except cached manifests, which the plan holds references to.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "iceberg/manifest_cache.h"
#include "iceberg/scan_internal.h"

typedef struct del_ref {
    const fl_ice_data_file *f;
    int64_t seq; /* data sequence number */
    bool dv, global;
    const uint8_t *key; /* (spec, partition) key */
    size_t key_len;
} del_ref;

typedef struct plan_ctx {
    ice_plan *ip;
    fl_fileio *io;
    fl_ice_manifest_cache *cache;
    ice_cached_manifest **held;
    uint32_t nheld, cap_held;
    del_ref *dels;
    uint32_t ndels, cap_dels;
    del_ref **by_path; /* sorted by referenced file path */
    uint32_t nby_path;
    del_ref **by_key; /* sorted by key */
    uint32_t nby_key;
    del_ref **global;
    uint32_t nglobal;
} plan_ctx;

/* The plan's held cache references sit after the tasks in the arena. */
typedef struct held_list {
    fl_ice_manifest_cache *cache;
    ice_cached_manifest **held;
    uint32_t n;
} held_list;

static fl_status oom(fl_error *err)
{
    return fl_errorf(err, FL_ENOMEM, "out of memory");
}

/* ---- output schema ---- */

static const fl_field k_meta_columns[] = {
    {.name = "_file", .field_id = FL_ICE_FIELD_ID_FILE_PATH, .type = {.id = FL_TYPE_STRING}},
    {.name = "_pos", .field_id = FL_ICE_FIELD_ID_ROW_POS, .type = {.id = FL_TYPE_INT64}},
    {.name = "_spec_id", .field_id = FL_ICE_FIELD_ID_SPEC_ID, .type = {.id = FL_TYPE_INT32}},
    {.name = "_row_id",
     .field_id = FL_ICE_FIELD_ID_ROW_ID,
     .nullable = true,
     .type = {.id = FL_TYPE_INT64}},
    {.name = "_last_updated_sequence_number",
     .field_id = FL_ICE_FIELD_ID_LAST_UPDATED_SEQ,
     .nullable = true,
     .type = {.id = FL_TYPE_INT64}},
    {.name = "$path", .field_id = FL_ICE_FIELD_ID_TRINO_PATH, .type = {.id = FL_TYPE_STRING}},
    {.name = "$file_size",
     .field_id = FL_ICE_FIELD_ID_TRINO_FILE_SIZE,
     .type = {.id = FL_TYPE_INT64}},
    {.name = "$partition",
     .field_id = FL_ICE_FIELD_ID_TRINO_PARTITION,
     .type = {.id = FL_TYPE_STRING}},
    {.name = "$file_modified_time",
     .field_id = FL_ICE_FIELD_ID_TRINO_FILE_MTIME,
     .nullable = true,
     .type = {.id = FL_TYPE_TIMESTAMPTZ}},
};

const fl_field *fl_ice_metadata_column(const char *name, int32_t id)
{
    for (size_t i = 0; i < sizeof k_meta_columns / sizeof k_meta_columns[0]; i++)
        if (name ? !strcmp(k_meta_columns[i].name, name) : k_meta_columns[i].field_id == id)
            return &k_meta_columns[i];
    return NULL;
}

/* A metadata column by name or id (name NULL); _partition is built for the
 * table in the plan's arena (its type is the table's partitioning). */
static const fl_field *meta_column(ice_plan *ip, const char *name, int32_t id)
{
    if (name ? strcmp(name, "_partition") != 0 : id != FL_ICE_FIELD_ID_PARTITION)
        return fl_ice_metadata_column(name, id);
    fl_field *f = fl_arena_calloc(&ip->pub.arena, 1, sizeof *f);
    fl_error e2;
    if (!f || fl_ice_partition_column(ip->pub.meta, &ip->pub.arena, f, &e2) != FL_OK)
        return NULL;
    return f;
}

static fl_status build_output(ice_plan *ip, const fl_ice_scan_options *opt, fl_error *err)
{
    fl_ice_scan_plan *p = &ip->pub;
    const fl_schema *ts = &p->table_schema->schema;
    uint32_t n = opt && opt->ncolumns     ? opt->ncolumns
                 : opt && opt->nfield_ids ? opt->nfield_ids
                                          : ts->nfields;
    p->schema.fields = fl_arena_calloc(&p->arena, n + 1, sizeof(fl_field));
    ip->out_ids = fl_arena_calloc(&p->arena, n + 1, sizeof *ip->out_ids);
    ip->out_fields = fl_arena_calloc(&p->arena, n + 1, sizeof *ip->out_fields);
    if (!p->schema.fields || !ip->out_ids || !ip->out_fields)
        return oom(err);
    p->schema.nfields = n;
    p->schema.schema_id = ts->schema_id;
    for (uint32_t i = 0; i < n; i++) {
        const fl_field *f = NULL;
        if (opt && opt->ncolumns) {
            const char *name = opt->columns[i];
            for (uint32_t k = 0; k < ts->nfields && !f; k++)
                if (opt->case_insensitive ? !strcasecmp(ts->fields[k].name, name)
                                          : !strcmp(ts->fields[k].name, name))
                    f = &ts->fields[k];
            if (!f)
                f = meta_column(ip, name, 0);
            else
                ip->out_fields[i] = f;
            if (!f)
                return fl_errorf(err, FL_ENOTFOUND, "no column '%s' in schema %d", name,
                                 ts->schema_id);
        } else if (opt && opt->nfield_ids) {
            int32_t id = opt->field_ids[i];
            if ((f = meta_column(ip, NULL, id)) == NULL) {
                for (uint32_t k = 0; k < ts->nfields && !f; k++)
                    if (ts->fields[k].field_id == id)
                        f = &ts->fields[k];
                if (!f)
                    return fl_errorf(err, FL_ENOTFOUND,
                                     "no top-level column with field id %d in schema %d", id,
                                     ts->schema_id);
                ip->out_fields[i] = f;
            }
        } else {
            f = &ts->fields[i];
            ip->out_fields[i] = f;
        }
        if (!f)
            return oom(err);
        if (f->type.id == 0)
            return fl_errorf(err, FL_EUNSUPPORTED, "column '%s': type %s is not supported", f->name,
                             fl_ice_schema_extra(p->table_schema, f->field_id)
                                 ? fl_ice_schema_extra(p->table_schema, f->field_id)->type_str
                                 : "?");
        for (uint32_t k = 0; k < i; k++)
            if (ip->out_ids[k] == f->field_id)
                return fl_errorf(err, FL_EINVAL, "column '%s' requested twice", f->name);
        p->schema.fields[i] = *f;
        ip->out_ids[i] = f->field_id;
    }
    return FL_OK;
}

/* ---- delete index ---- */

/* (spec id, partition tuple) as bytes: spec id, then per value a null flag
 * and its single-value serialization (floats by bit pattern). */
static fl_status part_key(fl_arena *a, const fl_ice_data_file *f, const uint8_t **out, size_t *len,
                          fl_error *err)
{
    size_t cap = 4;
    for (uint32_t i = 0; i < f->npartition; i++)
        cap += 5 + 16 + (f->partition[i].is_null ? 0 : f->partition[i].v.bytes.len + 16);
    uint8_t *k = fl_arena_alloc(a, cap);
    if (!k)
        return oom(err);
    memcpy(k, &f->spec_id, 4);
    size_t o = 4;
    for (uint32_t i = 0; i < f->npartition; i++) {
        const fl_value *v = &f->partition[i];
        if (v->is_null || v->type.id == 0) {
            k[o++] = 0;
            continue;
        }
        k[o++] = 1;
        uint8_t buf[32];
        const uint8_t *b;
        size_t bl;
        fl_error e2;
        if (fl_ice_value_to_bytes(v, buf, sizeof buf, &b, &bl, &e2) != FL_OK) {
            k[o++] = 2; /* unserializable: compare by type id only */
            continue;
        }
        uint32_t l = (uint32_t)bl;
        memcpy(k + o, &l, 4);
        memcpy(k + o + 4, b, bl);
        o += 4 + bl;
    }
    *out = k;
    *len = o;
    return FL_OK;
}

static int cmp_key(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
    int c = memcmp(a, b, al < bl ? al : bl);
    return c ? c : (al < bl ? -1 : al > bl);
}

static int cmp_by_key(const void *x, const void *y)
{
    const del_ref *a = *(del_ref *const *)x, *b = *(del_ref *const *)y;
    return cmp_key(a->key, a->key_len, b->key, b->key_len);
}

static int cmp_by_path(const void *x, const void *y)
{
    const del_ref *a = *(del_ref *const *)x, *b = *(del_ref *const *)y;
    return strcmp(a->f->referenced_data_file, b->f->referenced_data_file);
}

static fl_status hold(plan_ctx *c, ice_cached_manifest *e, fl_error *err)
{
    if (c->nheld == c->cap_held) {
        uint32_t nc = c->cap_held ? c->cap_held * 2 : 16;
        ice_cached_manifest **h = realloc(c->held, nc * sizeof *h);
        if (!h) {
            fl_ice_cache_release(e, c->cache);
            return oom(err);
        }
        c->held = h;
        c->cap_held = nc;
    }
    c->held[c->nheld++] = e;
    return FL_OK;
}

static fl_status read_manifest(plan_ctx *c, const fl_ice_manifest_file *mf,
                               const fl_ice_manifest_entry **ents, uint32_t *n, fl_error *err)
{
    ice_cached_manifest *e;
    FL_TRY(ice_cache_get(c->cache, c->io, c->ip->pub.meta, mf, &e, err));
    FL_TRY(hold(c, e, err));
    *ents = ice_cached_entries(e, n);
    return FL_OK;
}

static fl_status add_deletes(plan_ctx *c, const fl_ice_manifest_file *mf, fl_error *err)
{
    const fl_ice_manifest_entry *ents;
    uint32_t n;
    FL_TRY(read_manifest(c, mf, &ents, &n, err));
    fl_arena *a = &c->ip->pub.arena;
    const fl_ice_metadata *m = c->ip->pub.meta;
    for (uint32_t i = 0; i < n; i++) {
        const fl_ice_manifest_entry *e = &ents[i];
        if (e->status == FL_ICE_STATUS_DELETED || e->file.content == FL_ICE_CONTENT_DATA)
            continue;
        if (c->ndels == c->cap_dels) {
            uint32_t nc = c->cap_dels ? c->cap_dels * 2 : 64;
            del_ref *d = realloc(c->dels, nc * sizeof *d);
            if (!d)
                return oom(err);
            c->dels = d;
            c->cap_dels = nc;
        }
        del_ref *d = &c->dels[c->ndels++];
        memset(d, 0, sizeof *d);
        d->f = &e->file;
        d->seq = e->sequence_number;
        d->dv = e->file.content == FL_ICE_CONTENT_POSITION_DELETES &&
                !strcasecmp(e->file.file_format, "PUFFIN");
        const fl_ice_partition_spec *spec = fl_ice_metadata_spec(m, e->file.spec_id);
        d->global =
            e->file.content == FL_ICE_CONTENT_EQUALITY_DELETES && (!spec || spec->nfields == 0);
        FL_TRY(part_key(a, &e->file, &d->key, &d->key_len, err));
        c->ip->pub.metrics.delete_files++;
    }
    return FL_OK;
}

static fl_status index_deletes(plan_ctx *c, fl_error *err)
{
    uint32_t n = c->ndels;
    c->by_path = calloc(n + 1, sizeof *c->by_path);
    c->by_key = calloc(n + 1, sizeof *c->by_key);
    c->global = calloc(n + 1, sizeof *c->global);
    if (!c->by_path || !c->by_key || !c->global)
        return oom(err);
    for (uint32_t i = 0; i < n; i++) {
        del_ref *d = &c->dels[i];
        if (d->f->referenced_data_file)
            c->by_path[c->nby_path++] = d;
        else if (d->global)
            c->global[c->nglobal++] = d;
        else
            c->by_key[c->nby_key++] = d;
        /* equality deletes with a referenced file (never written) are
         * treated as path-scoped; DVs always have one */
    }
    qsort(c->by_path, c->nby_path, sizeof *c->by_path, cmp_by_path);
    qsort(c->by_key, c->nby_key, sizeof *c->by_key, cmp_by_key);
    return FL_OK;
}

static bool applies(const del_ref *d, int64_t dseq)
{
    if (d->f->content == FL_ICE_CONTENT_EQUALITY_DELETES)
        return dseq < d->seq;
    return dseq <= d->seq;
}

static fl_status attach(plan_ctx *c, fl_ice_scan_task *t, fl_error *err)
{
    fl_arena *a = &c->ip->pub.arena;
    const fl_ice_data_file *f = t->file;
    const del_ref *found[512];
    uint32_t nf = 0;
    bool has_dv = false;
    /* by path */
    uint32_t lo = 0, hi = c->nby_path;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (strcmp(c->by_path[mid]->f->referenced_data_file, f->file_path) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (uint32_t i = lo;
         i < c->nby_path && !strcmp(c->by_path[i]->f->referenced_data_file, f->file_path); i++) {
        const del_ref *d = c->by_path[i];
        if (!applies(d, t->data_sequence_number))
            continue;
        has_dv |= d->dv;
        if (nf < 512)
            found[nf++] = d;
    }
    /* by (spec, partition) */
    if (c->nby_key) {
        const uint8_t *k;
        size_t kl;
        FL_TRY(part_key(a, f, &k, &kl, err));
        lo = 0, hi = c->nby_key;
        while (lo < hi) {
            uint32_t mid = (lo + hi) / 2;
            if (cmp_key(c->by_key[mid]->key, c->by_key[mid]->key_len, k, kl) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (uint32_t i = lo;
             i < c->nby_key && !cmp_key(c->by_key[i]->key, c->by_key[i]->key_len, k, kl); i++)
            if (applies(c->by_key[i], t->data_sequence_number) && nf < 512)
                found[nf++] = c->by_key[i];
    }
    for (uint32_t i = 0; i < c->nglobal; i++)
        if (applies(c->global[i], t->data_sequence_number) && nf < 512)
            found[nf++] = c->global[i];
    if (nf == 512)
        return fl_errorf(err, FL_ELIMIT, "%s: more than 511 delete files apply", f->file_path);
    t->deletes = fl_arena_calloc(a, nf + 1, sizeof *t->deletes);
    if (!t->deletes)
        return oom(err);
    for (uint32_t i = 0; i < nf; i++) {
        const del_ref *d = found[i];
        /* a DV supersedes position delete files of the same data file */
        if (has_dv && !d->dv && d->f->content == FL_ICE_CONTENT_POSITION_DELETES)
            continue;
        t->deletes[t->ndeletes++] = d->f;
    }
    return FL_OK;
}

/* ---- planning ---- */

static fl_status plan_data(plan_ctx *c, const fl_ice_manifest_file *mfs, uint32_t nm, fl_error *err)
{
    fl_ice_scan_plan *p = &c->ip->pub;
    const fl_ice_metadata *m = p->meta;
    uint32_t cap = 0;
    for (uint32_t i = 0; i < nm; i++) {
        const fl_ice_manifest_file *mf = &mfs[i];
        if (mf->content != FL_ICE_MANIFEST_DATA)
            continue;
        p->metrics.manifests_total++;
        const fl_ice_partition_spec *spec = fl_ice_metadata_spec(m, mf->partition_spec_id);
        if (c->ip->filter.nterms && !ice_eval_manifest(m, spec, &c->ip->filter, mf)) {
            p->metrics.manifests_pruned++;
            continue;
        }
        const fl_ice_manifest_entry *ents;
        uint32_t n;
        fl_status rc = read_manifest(c, mf, &ents, &n, err);
        if (rc != FL_OK)
            return rc;
        for (uint32_t k = 0; k < n; k++) {
            const fl_ice_manifest_entry *e = &ents[k];
            if (e->status == FL_ICE_STATUS_DELETED || e->file.content != FL_ICE_CONTENT_DATA)
                continue;
            p->metrics.files_total++;
            if (c->ip->filter.nterms) {
                const fl_ice_partition_spec *fs = fl_ice_metadata_spec(m, e->file.spec_id);
                if (ice_eval_partition(m, fs, &c->ip->filter, e->file.partition,
                                       e->file.npartition) == FL_ICE_MATCH_NONE) {
                    p->metrics.files_pruned_partition++;
                    continue;
                }
                if (ice_eval_metrics(&c->ip->filter, &e->file) == FL_ICE_MATCH_NONE) {
                    p->metrics.files_pruned_metrics++;
                    continue;
                }
            }
            if (p->ntasks == cap) {
                uint32_t nc = cap ? cap * 2 : 64;
                fl_ice_scan_task *t = fl_arena_alloc(&p->arena, nc * sizeof *t);
                if (!t)
                    return oom(err);
                if (p->ntasks)
                    memcpy(t, p->tasks, p->ntasks * sizeof *t);
                p->tasks = t;
                cap = nc;
            }
            fl_ice_scan_task *t = &p->tasks[p->ntasks];
            memset(t, 0, sizeof *t);
            t->file = &e->file;
            t->data_sequence_number = e->sequence_number;
            t->data_file_ordinal = p->ntasks;
            p->ntasks++;
            p->metrics.planned_bytes +=
                (uint64_t)(e->file.file_size_in_bytes > 0 ? e->file.file_size_in_bytes : 0);
        }
    }
    return FL_OK;
}

fl_status fl_ice_scan_plan_files(fl_fileio *io, const fl_ice_metadata *m,
                                 const fl_ice_scan_options *opt, fl_ice_scan_plan **out,
                                 fl_error *err)
{
    *out = NULL;
    ice_plan *ip = calloc(1, sizeof *ip);
    if (!ip)
        return oom(err);
    fl_ice_scan_plan *p = &ip->pub;
    fl_arena_init(&p->arena, 0);
    p->meta = m;
    plan_ctx c = {.ip = ip, .io = io, .cache = opt ? opt->cache : NULL};
    fl_status rc = fl_ice_select_snapshot(m, opt, &p->snapshot, err);
    if (rc == FL_OK) {
        p->table_schema = ice_scan_schema(m, p->snapshot, opt);
        if (!p->table_schema)
            rc = fl_errorf(err, FL_ECORRUPT, "table has no current schema");
    }
    if (rc == FL_OK)
        rc = build_output(ip, opt, err);
    if (rc == FL_OK)
        rc = ice_filter_resolve(opt ? opt->filter : NULL, &p->table_schema->schema,
                                opt && opt->case_insensitive, m, &p->arena, &ip->filter, err);
    ip->filter.meta = m; /* "$partition" and "$file_modified_time" prune per file */
    ip->filter.io = io;
    for (uint32_t t = 0; rc == FL_OK && t < ip->filter.nterms; t++) {
        const fl_field *tf = ip->filter.terms[t].field;
        bool top = tf == fl_ice_metadata_column(NULL, tf->field_id);
        for (uint32_t k = 0; k < p->table_schema->schema.nfields; k++)
            top |= &p->table_schema->schema.fields[k] == tf;
        ip->filter.terms[t].nested = !top;
        if (!top && !(opt && opt->prune_nested))
            rc = fl_errorf(err, FL_EUNSUPPORTED, "filter on nested column '%s'",
                           ip->filter.terms[t].field->name);
    }
    ip->name_mapping = fl_ice_map_get(&m->properties, "schema.name-mapping.default");
    ip->lenient_dv = opt && opt->lenient_dv;
    ip->cache = c.cache;
    const fl_ice_manifest_file *mfs = NULL;
    uint32_t nm = 0;
    if (rc == FL_OK && p->snapshot) {
        fl_ice_cache_entry *le = NULL;
        rc = ice_cache_get_list(c.cache, io, m, p->snapshot, &le, &mfs, &nm, err);
        if (rc == FL_OK)
            rc = hold(&c, le, err);
    }
    for (uint32_t i = 0; rc == FL_OK && i < nm; i++)
        if (mfs[i].content == FL_ICE_MANIFEST_DELETES) {
            p->metrics.delete_manifests++;
            rc = add_deletes(&c, &mfs[i], err);
        }
    if (rc == FL_OK)
        rc = index_deletes(&c, err);
    if (rc == FL_OK)
        rc = plan_data(&c, mfs, nm, err);
    for (uint32_t i = 0; rc == FL_OK && i < p->ntasks; i++)
        if (c.ndels)
            rc = attach(&c, &p->tasks[i], err);
    /* the plan keeps its cache references until freed */
    held_list *hl = rc == FL_OK ? fl_arena_calloc(&p->arena, 1, sizeof *hl) : NULL;
    if (rc == FL_OK && !hl)
        rc = oom(err);
    if (hl) {
        hl->cache = c.cache;
        hl->held = c.held;
        hl->n = c.nheld;
        ip->held = hl;
        c.held = NULL;
    }
    for (uint32_t i = 0; c.held && i < c.nheld; i++)
        fl_ice_cache_release(c.held[i], c.cache);
    free(c.held);
    free(c.dels);
    free(c.by_path);
    free(c.by_key);
    free(c.global);
    if (rc != FL_OK) {
        fl_ice_scan_plan_free(p);
        return rc;
    }
    if (!p->tasks)
        p->tasks = fl_arena_calloc(&p->arena, 1, sizeof *p->tasks);
    *out = p;
    return FL_OK;
}

void fl_ice_scan_plan_free(fl_ice_scan_plan *p)
{
    if (!p)
        return;
    ice_plan *ip = (ice_plan *)p;
    held_list *hl = ip->held;
    if (hl) {
        for (uint32_t i = 0; i < hl->n; i++)
            fl_ice_cache_release(hl->held[i], hl->cache);
        free(hl->held);
    }
    fl_arena_free(&p->arena);
    free(ip);
}
