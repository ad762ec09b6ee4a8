/*
 * data_writer.c - batches in the table schema become Parquet data files (ORC
 * ones when write.format.default=orc, write.orc.* settings), split by
 * partition and sorted by the table's sort order (ice_table.h "3. writers").
 *
 * Flow. Every live row's partition tuple is derived from its source
 * columns with the spec's transforms (hidden partitioning); the tuple's
 * serialized bytes key a hash table of partitions. A row is copied into its
 * partition's buffer (FLAT batches of up to FL_BATCH_CAP rows, in the table
 * schema, so field ids are the table's whatever the input's are).
 *
 *   Unsorted tables stream: a partition's full buffer batch goes straight
 *   to that partition's open Parquet writer. At most max_open_files writers
 *   are open; opening one more finishes the least recently used file.
 *   Unpartitioned unsorted writes skip the copy and hand the input batch to
 *   the writer directly.
 *   Sorted tables (default sort order with fields) buffer a partition's rows
 *   until they reach the target file size (in memory bytes) or all buffers
 *   reach max_buffer_bytes (then the largest is flushed); a flush sorts the
 *   buffered rows by the sort fields (transforms applied, direction and null
 *   order honoured, stable) and writes them as one file (rolling if needed).
 *
 * Files roll when the output passes write.target-file-size-bytes; Parquet
 * row groups are capped at that size too, so the output grows as rows come.
 * Each file is <data dir>/<partition path>/<writer uuid>-<NNNNN>.parquet,
 * carries Parquet field ids from the table schema and the key-value entry
 * "iceberg.schema" (the schema JSON, which icebird and Java readers use),
 * and becomes an fl_ice_data_file (partition tuple, counts, size, split
 * offsets, sort order id, metrics from cfg->metrics) in cfg->out_arena.
 *
 * Errors: a batch whose columns do not match the schema's shape, or a null
 * in a required column, fails naming the column. After a failure only
 * fl_ice_data_writer_abort is valid; it deletes every file written.
 *
 * Ownership: the writer owns its buffers (malloc) and private arena; the
 * metadata and FileIO are borrowed; finished data-file structs live in
 * cfg->out_arena and survive the writer.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <xxhash.h>

#include "iceberg/data_writer_int.h"
#include "iceberg/ice_internal.h"

/* ---- helpers ---- */

static void random_uuid(char buf[37])
{
    uint8_t b[16] = {0};
    if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) {
        uint64_t x = (uint64_t)(uintptr_t)buf ^ 0x9e3779b97f4a7c15ull;
        for (int i = 0; i < 16; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            b[i] ^= (uint8_t)(x >> 56);
        }
    }
    b[6] = (uint8_t)((b[6] & 0x0f) | 0x40);
    b[8] = (uint8_t)((b[8] & 0x3f) | 0x80);
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            buf[o++] = '-';
        buf[o++] = hex[b[i] >> 4];
        buf[o++] = hex[b[i] & 15];
    }
    buf[o] = '\0';
}

static uint64_t vec_bytes(const fl_vector *v)
{
    uint64_t n = (uint64_t)v->len * fl_type_width(v->type) + v->heap_len + (v->len + 7) / 8;
    if (v->offsets)
        n += (uint64_t)v->len * 8;
    for (uint32_t i = 0; i < v->nchildren; i++)
        n += vec_bytes(&v->children[i]);
    return n;
}

uint64_t ice_batch_bytes(const fl_batch *b)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < b->ncols; i++)
        n += vec_bytes(&b->cols[i]);
    return n;
}

/* Resolves field id to a path of struct child indices from the top level. */
static bool find_source(const fl_field *f, uint32_t n, int32_t id, src_path *p, uint32_t depth)
{
    if (depth >= ICE_MAX_SRC_DEPTH)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        p->idx[depth] = i;
        if (f[i].field_id == id) {
            p->depth = depth + 1;
            return true;
        }
        if (f[i].type.id == FL_TYPE_STRUCT &&
            find_source(f[i].type.children, f[i].type.nchildren, id, p, depth + 1))
            return true;
    }
    return false;
}

void ice_source_value(const fl_batch *b, const src_path *p, uint32_t row, fl_value *out)
{
    const fl_vector *v = &b->cols[p->idx[0]];
    for (uint32_t k = 1; k < p->depth; k++) {
        fl_unified u;
        fl_vector_unify(v, &u);
        if (!fl_unified_is_valid(&u, row)) {
            memset(out, 0, sizeof *out);
            out->is_null = true;
            return;
        }
        row = fl_unified_row(&u, row);
        v = &u.base->children[p->idx[k]];
    }
    ice_vector_value(v, row, out);
}

static fl_status copy_value(fl_arena *a, const fl_value *in, fl_value *out, fl_error *err)
{
    *out = *in;
    if (!in->is_null && (in->type.id == FL_TYPE_STRING || in->type.id == FL_TYPE_BINARY ||
                         in->type.id == FL_TYPE_FIXED || in->type.id == FL_TYPE_UUID)) {
        uint8_t *p = fl_arena_alloc(a, in->v.bytes.len + 1);
        if (!p)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        if (in->v.bytes.len)
            memcpy(p, in->v.bytes.ptr, in->v.bytes.len);
        out->v.bytes.ptr = p;
    }
    return FL_OK;
}

/* ---- setup ---- */

static fl_status setup_spec(fl_ice_data_writer *w, fl_error *err)
{
    const fl_ice_metadata *m = w->m;
    w->spec = fl_ice_metadata_spec(m, m->default_spec_id);
    if (!w->spec)
        return fl_errorf(err, FL_ECORRUPT, "table metadata: no default partition spec %d",
                         (int)m->default_spec_id);
    w->npf = w->spec->nfields;
    w->pf = fl_arena_calloc(&w->arena, w->npf + 1, sizeof *w->pf);
    if (!w->pf)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < w->npf; i++) {
        const fl_ice_partition_field *f = &w->spec->fields[i];
        pfield *p = &w->pf[i];
        FL_TRY(fl_ice_transform_parse(f->transform, &p->t, err));
        if (p->t.kind == FL_ICE_TRANSFORM_UNKNOWN)
            return fl_errorf(err, FL_EUNSUPPORTED, "partition field '%s': unknown transform '%s'",
                             f->name, f->transform);
        if (f->nsource_ids > 1)
            return fl_errorf(err, FL_EUNSUPPORTED,
                             "partition field '%s': multi-argument transforms", f->name);
        if (!find_source(w->schema.fields, w->schema.nfields, f->source_id, &p->path, 0))
            return fl_errorf(err, FL_EINVAL,
                             "partition field '%s': source column %d is not in the schema", f->name,
                             (int)f->source_id);
    }
    return FL_OK;
}

static fl_status setup_order(fl_ice_data_writer *w, fl_error *err)
{
    const fl_ice_metadata *m = w->m;
    const fl_ice_sort_order *o = NULL;
    for (uint32_t i = 0; i < m->nsort_orders; i++)
        if (m->sort_orders[i].order_id == m->default_sort_order_id)
            o = &m->sort_orders[i];
    w->sort_order_id = m->default_sort_order_id;
    if (!o || !o->nfields)
        return FL_OK;
    w->sf = fl_arena_calloc(&w->arena, o->nfields, sizeof *w->sf);
    if (!w->sf)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    w->nsf = o->nfields;
    for (uint32_t i = 0; i < o->nfields; i++) {
        sfield *s = &w->sf[i];
        FL_TRY(fl_ice_transform_parse(o->fields[i].transform, &s->t, err));
        if (s->t.kind == FL_ICE_TRANSFORM_UNKNOWN || o->fields[i].nsource_ids > 1)
            return fl_errorf(err, FL_EUNSUPPORTED, "sort field %u: transform '%s'", i,
                             o->fields[i].transform);
        if (!find_source(w->schema.fields, w->schema.nfields, o->fields[i].source_id, &s->path, 0))
            return fl_errorf(err, FL_EINVAL, "sort field %u: source column %d is not in the schema",
                             i, (int)o->fields[i].source_id);
        s->desc = o->fields[i].descending;
        s->nulls_first = o->fields[i].nulls_first;
    }
    return FL_OK;
}

static fl_status setup_kv(fl_ice_data_writer *w, const fl_ice_schema *s, fl_error *err)
{
    json_t *j = ice_schema_to_json(s);
    char *txt = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    if (!txt)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    w->kv[0].key = "iceberg.schema";
    w->kv[0].value = fl_arena_strdup(&w->arena, txt);
    free(txt);
    if (!w->kv[0].value)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    w->popt.kv = w->kv;
    w->popt.nkv = 1;
    return FL_OK;
}

fl_status ice_data_writer_open_cfg(const ice_writer_config *cfg, fl_ice_data_writer **out,
                                   fl_error *err)
{
    *out = NULL;
    fl_ice_data_writer *w = calloc(1, sizeof *w);
    if (!w)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_arena_init(&w->arena, 0);
    w->cfg = *cfg;
    w->m = cfg->meta;
    if (!w->cfg.max_open_files)
        w->cfg.max_open_files = 32;
    if (!w->cfg.max_buffer_bytes)
        w->cfg.max_buffer_bytes = 256ull << 20;
    if (!w->cfg.target_file_bytes) {
        int64_t t = ice_prop_i64(w->m, "write.target-file-size-bytes", 512ll << 20);
        w->cfg.target_file_bytes = t > 0 ? (uint64_t)t : 512ull << 20;
    }
    random_uuid(w->uuid);
    fl_status rc = FL_OK;
    const fl_ice_schema *s = fl_ice_metadata_current_schema(w->m);
    if (!s)
        rc = fl_errorf(err, FL_ECORRUPT, "table metadata: no current schema");
    if (rc == FL_OK)
        rc = fl_ice_schema_to_fl(s, &w->arena, &w->schema, err);
    if (rc == FL_OK)
        rc = setup_spec(w, err);
    if (rc == FL_OK)
        rc = setup_order(w, err);
    ice_parquet_options(w->m, &w->popt);
    if (w->popt.row_group_bytes > w->cfg.target_file_bytes)
        w->popt.row_group_bytes = w->cfg.target_file_bytes;
    w->orc = ice_writes_orc(w->m);
    ice_orc_options(w->m, &w->oopt);
    if (w->oopt.stripe_bytes > w->cfg.target_file_bytes)
        w->oopt.stripe_bytes = w->cfg.target_file_bytes;
    if (rc == FL_OK)
        rc = setup_kv(w, s, err);
    if (rc == FL_OK) {
        w->data_dir = ice_data_dir(w->m, &w->arena);
        if (!w->data_dir)
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    if (rc != FL_OK) {
        fl_arena_free(&w->arena);
        free(w);
        return rc;
    }
    *out = w;
    return FL_OK;
}

uint64_t ice_part_bytes(const part *p)
{
    return p->nchunks ? p->bytes + ice_batch_bytes(&p->chunks[p->nchunks - 1]) : 0;
}

const fl_schema *fl_ice_data_writer_schema(const fl_ice_data_writer *w)
{
    return &w->schema;
}

/* ---- partitions ---- */

static fl_status key_put(fl_ice_data_writer *w, const void *p, size_t n, fl_error *err)
{
    if (w->keylen + n > w->keycap) {
        size_t cap = (w->keycap ? w->keycap * 2 : 256) + n;
        uint8_t *k = realloc(w->key, cap);
        if (!k)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        w->key = k;
        w->keycap = cap;
    }
    memcpy(w->key + w->keylen, p, n);
    w->keylen += n;
    return FL_OK;
}

/* Partition tuple of row i of b into w->vals and its key into w->key. */
static fl_status row_key(fl_ice_data_writer *w, const fl_batch *b, uint32_t i, fl_error *err)
{
    w->keylen = 0;
    for (uint32_t f = 0; f < w->npf; f++) {
        fl_value src;
        ice_source_value(b, &w->pf[f].path, i, &src);
        FL_TRY(fl_ice_transform_apply(&w->pf[f].t, &src, &w->vals[f], err));
        uint8_t tag = w->vals[f].is_null ? 0 : 1;
        FL_TRY(key_put(w, &tag, 1, err));
        if (tag) {
            uint8_t buf[32];
            const uint8_t *bytes;
            size_t len;
            FL_TRY(fl_ice_value_to_bytes(&w->vals[f], buf, sizeof buf, &bytes, &len, err));
            uint32_t l32 = (uint32_t)len;
            FL_TRY(key_put(w, &l32, 4, err));
            FL_TRY(key_put(w, bytes, len, err));
        }
    }
    return FL_OK;
}

static fl_status grow_table(fl_ice_data_writer *w, fl_error *err)
{
    uint32_t cap = w->tcap ? w->tcap * 2 : 64;
    uint32_t *t = malloc(cap * sizeof *t);
    if (!t)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < cap; i++)
        t[i] = UINT32_MAX;
    for (uint32_t p = 0; p < w->nparts; p++) {
        uint32_t h = (uint32_t)w->parts[p]->hash & (cap - 1);
        while (t[h] != UINT32_MAX)
            h = (h + 1) & (cap - 1);
        t[h] = p;
    }
    free(w->table);
    w->table = t;
    w->tcap = cap;
    return FL_OK;
}

static fl_status new_part(fl_ice_data_writer *w, uint64_t hash, part **out, fl_error *err)
{
    if (w->nparts == w->capparts) {
        uint32_t cap = w->capparts ? w->capparts * 2 : 16;
        part **np = realloc(w->parts, cap * sizeof *np);
        if (!np)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        w->parts = np;
        w->capparts = cap;
    }
    part *p = fl_arena_calloc(&w->arena, 1, sizeof *p);
    if (!p)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    p->hash = hash;
    p->key = fl_arena_alloc(&w->arena, w->keylen + 1);
    p->values = fl_arena_calloc(&w->arena, w->npf + 1, sizeof *p->values);
    if (!p->key || !p->values)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    if (w->keylen)
        memcpy(p->key, w->key, w->keylen);
    p->keylen = w->keylen;
    for (uint32_t f = 0; f < w->npf; f++)
        FL_TRY(copy_value(&w->arena, &w->vals[f], &p->values[f], err));
    const char *pp = ice_partition_path(w->m, w->spec, p->values, &w->arena);
    if (!pp)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    p->dir = *pp ? fl_arena_sprintf(&w->arena, "%s/%s", w->data_dir, pp) : w->data_dir;
    if (!p->dir)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    p->id = w->nparts;
    w->parts[w->nparts++] = p;
    *out = p;
    return FL_OK;
}

/* The partition of the tuple in w->vals / w->key (created when new). */
static fl_status lookup_part(fl_ice_data_writer *w, part **out, fl_error *err)
{
    if ((w->nparts + 1) * 2 > w->tcap)
        FL_TRY(grow_table(w, err));
    uint64_t hash = XXH3_64bits(w->key, w->keylen);
    uint32_t h = (uint32_t)hash & (w->tcap - 1);
    while (w->table[h] != UINT32_MAX) {
        part *p = w->parts[w->table[h]];
        if (p->hash == hash && p->keylen == w->keylen &&
            (!w->keylen || !memcmp(p->key, w->key, w->keylen))) {
            *out = p;
            return FL_OK;
        }
        h = (h + 1) & (w->tcap - 1);
    }
    FL_TRY(new_part(w, hash, out, err));
    w->table[h] = w->nparts - 1;
    return FL_OK;
}

/* ---- files ---- */

static fl_status open_file(fl_ice_data_writer *w, part *p, fl_error *err);

static fl_status close_lru(fl_ice_data_writer *w, part *keep, fl_error *err)
{
    part *lru = NULL;
    for (uint32_t i = 0; i < w->nparts; i++) {
        part *q = w->parts[i];
        if (q != keep && ice_part_open(q) && (!lru || q->last_use < lru->last_use))
            lru = q;
    }
    return lru ? ice_finish_file(w, lru, err) : FL_OK;
}

static fl_status open_file(fl_ice_data_writer *w, part *p, fl_error *err)
{
    if (w->open_files >= w->cfg.max_open_files)
        FL_TRY(close_lru(w, p, err));
    p->path = fl_arena_sprintf(&w->arena, "%s/%s-%05u.%s", p->dir, w->uuid, ++w->file_seq,
                               w->orc ? "orc" : "parquet");
    if (!p->path)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    FL_TRY(fl_fileio_create(w->cfg.io, p->path, 0, &p->out, err));
    if (w->cfg.own_file) {
        fl_status rc = w->cfg.own_file(w->cfg.own_ctx, p->path, err);
        if (rc != FL_OK) {
            fl_output_abort(p->out);
            p->out = NULL;
            return rc;
        }
    }
    fl_status rc = w->orc ? fl_orc_writer_open(p->out, &w->schema, &w->oopt, &p->ow, err)
                          : fl_parquet_writer_open(p->out, &w->schema, &w->popt, &p->pw, err);
    if (rc != FL_OK) {
        fl_output_abort(p->out);
        p->out = NULL;
        return fl_error_prefix(err, "%s", p->path);
    }
    w->open_files++;
    return FL_OK;
}

static fl_status add_file(fl_ice_data_writer *w, const fl_ice_data_file *df, fl_error *err)
{
    if (w->nfiles == w->capfiles) {
        uint32_t cap = w->capfiles ? w->capfiles * 2 : 8;
        fl_ice_data_file *nf = realloc(w->files, cap * sizeof *nf);
        if (!nf)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        w->files = nf;
        w->capfiles = cap;
    }
    w->files[w->nfiles++] = *df;
    return FL_OK;
}

static fl_status describe(fl_ice_data_writer *w, part *p, fl_parquet_file_result *res,
                          fl_ice_data_file *df, fl_error *err)
{
    fl_arena *a = w->cfg.out_arena;
    memset(df, 0, sizeof *df);
    df->content = FL_ICE_CONTENT_DATA;
    df->file_path = fl_arena_strdup(a, p->path);
    df->file_format = w->orc ? "ORC" : "PARQUET";
    df->spec_id = w->spec->spec_id;
    df->npartition = w->npf;
    df->partition = fl_arena_calloc(a, w->npf + 1, sizeof *df->partition);
    if (!df->file_path || !df->partition)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t f = 0; f < w->npf; f++)
        FL_TRY(copy_value(a, &p->values[f], &df->partition[f], err));
    df->record_count = res->num_rows;
    df->file_size_in_bytes = (int64_t)res->file_size;
    if (res->nsplit_offsets) {
        df->split_offsets = fl_arena_alloc(a, res->nsplit_offsets * sizeof(int64_t));
        if (!df->split_offsets)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        memcpy(df->split_offsets, res->split_offsets, res->nsplit_offsets * sizeof(int64_t));
        df->nsplit_offsets = res->nsplit_offsets;
    }
    df->has_sort_order_id = true;
    df->sort_order_id = w->sort_order_id;
    if (w->cfg.metrics)
        FL_TRY(w->cfg.metrics(res, &w->schema, &w->m->properties, a, &df->metrics, &df->nmetrics,
                              err));
    return FL_OK;
}

fl_status ice_finish_file(fl_ice_data_writer *w, part *p, fl_error *err)
{
    fl_parquet_file_result res;
    memset(&res, 0, sizeof res);
    fl_parquet_writer *pw = p->pw;
    fl_orc_writer *ow = p->ow;
    p->pw = NULL;
    p->ow = NULL;
    w->open_files--;
    fl_status rc = ow ? fl_orc_writer_close(ow, &res, err) : fl_parquet_writer_close(pw, &res, err);
    if (rc == FL_OK) {
        fl_output *o = p->out;
        p->out = NULL;
        rc = fl_output_close(o, err);
    }
    if (rc != FL_OK) {
        fl_output_abort(p->out);
        p->out = NULL;
        fl_parquet_file_result_free(&res);
        return fl_error_prefix(err, "%s", p->path);
    }
    fl_ice_data_file df;
    rc = describe(w, p, &res, &df, err);
    /* the file exists now: remember it for abort even if describing failed */
    fl_status rc2 = add_file(w, &df, err);
    if (rc2 != FL_OK && rc == FL_OK)
        rc = rc2;
    if (rc2 != FL_OK) /* not tracked: delete it now */
        fl_fileio_remove(w->cfg.io, p->path, NULL);
    fl_parquet_file_result_free(&res);
    return rc;
}

/* Writes b to p's open file (opening one), rolling at the target size. */
fl_status ice_write_to_file(fl_ice_data_writer *w, part *p, const fl_batch *b, fl_error *err)
{
    if (!fl_batch_live_rows(b))
        return FL_OK;
    if (!ice_part_open(p))
        FL_TRY(open_file(w, p, err));
    p->last_use = ++w->tick;
    fl_status rc = p->ow ? fl_orc_writer_write(p->ow, b, err) : fl_parquet_writer_write(p->pw, b, err);
    if (rc != FL_OK)
        return fl_error_prefix(err, "%s", p->path);
    if (p->out->written >= w->cfg.target_file_bytes)
        FL_TRY(ice_finish_file(w, p, err));
    return FL_OK;
}

/* ---- buffering ---- */

static fl_status current_chunk(fl_ice_data_writer *w, part *p, fl_batch **out, fl_error *err)
{
    if (p->nchunks && p->chunks[p->nchunks - 1].nrows < FL_BATCH_CAP) {
        *out = &p->chunks[p->nchunks - 1];
        return FL_OK;
    }
    if (p->nchunks)
        p->bytes += ice_batch_bytes(&p->chunks[p->nchunks - 1]);
    if (p->nchunks == p->capchunks) {
        uint32_t cap = p->capchunks ? p->capchunks * 2 : 1;
        fl_batch *nc = realloc(p->chunks, cap * sizeof *nc);
        if (!nc)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        p->chunks = nc;
        p->capchunks = cap;
    }
    FL_TRY(fl_batch_init(&p->chunks[p->nchunks], &w->schema, err));
    *out = &p->chunks[p->nchunks++];
    return FL_OK;
}

void ice_part_drop_chunks(part *p)
{
    for (uint32_t i = 0; i < p->nchunks; i++)
        fl_batch_destroy(&p->chunks[i]);
    free(p->chunks);
    p->chunks = NULL;
    p->nchunks = p->capchunks = 0;
    p->bytes = 0;
    p->rows = 0;
}

/* Rows rows[0..n) of b into p's buffer, a column at a time: chunks fill
 * up to FL_BATCH_CAP rows; a streaming (unsorted) write hands each full
 * chunk to the file and reuses it. */
static fl_status append_rows(fl_ice_data_writer *w, part *p, const fl_batch *b,
                             const uint32_t *rows, uint32_t n, fl_error *err)
{
    while (n) {
        fl_batch *c = NULL;
        FL_TRY(current_chunk(w, p, &c, err));
        uint32_t m = FL_BATCH_CAP - c->nrows < n ? FL_BATCH_CAP - c->nrows : n;
        for (uint32_t col = 0; col < b->ncols; col++)
            FL_TRY(fl_vector_append_rows(&c->cols[col], &b->cols[col], rows, m, err));
        c->nrows += m;
        p->rows += m;
        rows += m;
        n -= m;
        if (!w->nsf && c->nrows == FL_BATCH_CAP) {
            FL_TRY(ice_write_to_file(w, p, c, err));
            fl_batch_reset(c);
        }
    }
    return FL_OK;
}

static fl_status scratch_rows(fl_ice_data_writer *w, uint32_t n, fl_error *err)
{
    if (n <= w->cap_rows && w->row_part)
        return FL_OK;
    uint32_t *a = realloc(w->row_part, (size_t)n * sizeof *a);
    if (a)
        w->row_part = a;
    uint32_t *g = a ? realloc(w->grouped, (size_t)n * sizeof *g) : NULL;
    if (g)
        w->grouped = g;
    if (!a || !g)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    w->cap_rows = n;
    return FL_OK;
}

static fl_status scratch_parts(fl_ice_data_writer *w, fl_error *err)
{
    if (w->nparts <= w->cap_parts && w->per_part)
        return FL_OK;
    uint32_t cap = w->nparts * 2;
    uint32_t *c = realloc(w->per_part, (size_t)cap * sizeof *c);
    if (!c)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    w->per_part = c;
    w->cap_parts = cap;
    return FL_OK;
}

/* A partitioned write: each live row's partition (transforms, key,
 * lookup), then the rows grouped by partition (a counting sort, order kept
 * within a partition) and appended a partition at a time. */
static fl_status write_partitioned(fl_ice_data_writer *w, const fl_batch *b, fl_error *err)
{
    uint32_t n = fl_batch_live_rows(b);
    FL_TRY(scratch_rows(w, n, err));
    for (uint32_t k = 0; k < n; k++) {
        uint32_t r = b->sel ? b->sel->idx[k] : k;
        part *p = NULL;
        FL_TRY(row_key(w, b, r, err));
        FL_TRY(lookup_part(w, &p, err));
        w->row_part[k] = p->id;
    }
    FL_TRY(scratch_parts(w, err));
    memset(w->per_part, 0, (size_t)w->nparts * sizeof *w->per_part);
    for (uint32_t k = 0; k < n; k++)
        w->per_part[w->row_part[k]]++;
    uint32_t at = 0;
    for (uint32_t i = 0; i < w->nparts; i++) { /* counts -> start offsets */
        uint32_t c = w->per_part[i];
        w->per_part[i] = at;
        at += c;
    }
    for (uint32_t k = 0; k < n; k++)
        w->grouped[w->per_part[w->row_part[k]]++] = b->sel ? b->sel->idx[k] : k;
    uint32_t from = 0; /* per_part[i] is now the end of partition i's rows */
    for (uint32_t i = 0; i < w->nparts; i++) {
        uint32_t to = w->per_part[i];
        if (to > from)
            FL_TRY(append_rows(w, w->parts[i], b, w->grouped + from, to - from, err));
        from = to;
    }
    return FL_OK;
}

static fl_status check_batch(fl_ice_data_writer *w, const fl_batch *b, fl_error *err)
{
    if (b->ncols != w->schema.nfields)
        return fl_errorf(err, FL_EINVAL, "batch has %u columns, the table has %u", b->ncols,
                         w->schema.nfields);
    for (uint32_t c = 0; c < b->ncols; c++) {
        const fl_field *f = &w->schema.fields[c];
        if (!fl_type_same_shape(b->cols[c].type, &f->type)) {
            char have[64], want[64];
            fl_type_format(b->cols[c].type, have, sizeof have);
            fl_type_format(&f->type, want, sizeof want);
            return fl_errorf(err, FL_ETYPE, "column '%s': batch has %s, the table has %s", f->name,
                             have, want);
        }
        if (f->nullable)
            continue;
        fl_unified u;
        fl_vector_unify(&b->cols[c], &u);
        uint32_t n = fl_batch_live_rows(b);
        for (uint32_t k = 0; k < n; k++) {
            uint32_t r = b->sel ? b->sel->idx[k] : k;
            if (!fl_unified_is_valid(&u, r))
                return fl_error_state(err, FL_EINVAL, "23502",
                                      "column '%s' is required but row %u is null", f->name, r);
        }
    }
    return FL_OK;
}

fl_status fl_ice_data_writer_write(fl_ice_data_writer *w, const fl_batch *b, fl_error *err)
{
    if (w->failed)
        return fl_errorf(err, FL_EINVAL, "data writer: used after an error");
    fl_status rc = check_batch(w, b, err);
    if (rc != FL_OK) {
        w->failed = true;
        return rc;
    }
    if (!w->vals) {
        w->vals = fl_arena_calloc(&w->arena, w->npf + 1, sizeof *w->vals);
        if (!w->vals)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    part *p = NULL;
    if (!w->npf) {
        w->keylen = 0;
        rc = lookup_part(w, &p, err);
        if (rc == FL_OK && !w->nsf)
            rc = ice_write_to_file(w, p, b, err); /* fast path: no copy */
        else if (rc == FL_OK) {
            uint32_t n = fl_batch_live_rows(b);
            rc = scratch_rows(w, n, err);
            for (uint32_t k = 0; rc == FL_OK && k < n; k++)
                w->grouped[k] = b->sel ? b->sel->idx[k] : k;
            if (rc == FL_OK)
                rc = append_rows(w, p, b, w->grouped, n, err);
        }
    } else {
        rc = write_partitioned(w, b, err);
    }
    if (rc == FL_OK && w->nsf)
        rc = ice_sorted_maybe_flush(w, err);
    if (rc != FL_OK)
        w->failed = true;
    return rc;
}

static fl_status finish_all(fl_ice_data_writer *w, fl_error *err)
{
    for (uint32_t i = 0; i < w->nparts; i++) {
        part *p = w->parts[i];
        if (w->nsf) {
            FL_TRY(ice_sorted_flush(w, p, err));
            continue;
        }
        for (uint32_t c = 0; c < p->nchunks; c++)
            FL_TRY(ice_write_to_file(w, p, &p->chunks[c], err));
        ice_part_drop_chunks(p);
        if (ice_part_open(p))
            FL_TRY(ice_finish_file(w, p, err));
    }
    return FL_OK;
}

static void release(fl_ice_data_writer *w, bool remove_files)
{
    for (uint32_t i = 0; i < w->nparts; i++) {
        part *p = w->parts[i];
        ice_part_drop_chunks(p);
        fl_parquet_writer_abort(p->pw);
        fl_orc_writer_abort(p->ow);
        if (p->out)
            fl_output_abort(p->out);
    }
    if (remove_files)
        for (uint32_t i = 0; i < w->nfiles; i++)
            fl_fileio_remove(w->cfg.io, w->files[i].file_path, NULL);
    free(w->parts);
    free(w->table);
    free(w->key);
    free(w->row_part);
    free(w->grouped);
    free(w->per_part);
    free(w->files);
    fl_arena_free(&w->arena);
    free(w);
}

fl_status fl_ice_data_writer_close(fl_ice_data_writer *w, fl_ice_data_file **files, uint32_t *n,
                                   fl_error *err)
{
    *files = NULL;
    *n = 0;
    fl_status rc = w->failed ? fl_errorf(err, FL_EINVAL, "data writer: used after an error")
                             : finish_all(w, err);
    if (rc == FL_OK && w->nfiles) {
        *files = fl_arena_alloc(w->cfg.out_arena, w->nfiles * sizeof **files);
        if (!*files)
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
        else {
            memcpy(*files, w->files, w->nfiles * sizeof **files);
            *n = w->nfiles;
        }
    }
    release(w, rc != FL_OK);
    return rc;
}

void fl_ice_data_writer_abort(fl_ice_data_writer *w)
{
    if (w)
        release(w, true);
}
