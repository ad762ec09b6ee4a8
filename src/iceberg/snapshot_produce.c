/*
 * snapshot_produce.c - what every snapshot-producing operation shares
 * (Java's SnapshotProducer / MergingSnapshotProducer / ManifestMergeManager):
 *
 *   - new-file manifests: one per (content, partition spec), entries ADDED
 *     with null sequence numbers (inherited from the manifest-list entry,
 *     spec "Sequence Number Inheritance"), written on the first attempt and
 *     reused by every retry because the snapshot id is fixed for the txn;
 *   - manifest merging: per (content, spec) group, manifests are packed from
 *     the end into bins of commit.manifest.target-size-bytes (8 MB, lookback
 *     1); a bin of several manifests is rewritten as one, except the bin
 *     holding the group's newest manifest while it has fewer than
 *     commit.manifest.min-count-to-merge (100) manifests. Merged entries:
 *     this snapshot's ADDED/DELETED stay, older ADDED become EXISTING (with
 *     their sequence numbers written out), older DELETED are dropped.
 *     commit.manifest-merge.enabled=false turns merging off (fast append);
 *   - the manifest list (snap-<id>-<attempt>-<uuid>.avro) and the snapshot:
 *     sequence number last-sequence-number + 1 (v2+; 0 in v1), parent = the
 *     branch head, schema id, v3 first-row-id/added-rows, and the summary with
 *     Java's keys and order: added/removed counters (only when non-zero),
 *     changed-partition-count, then totals carried from the parent summary.
 *
 * Ownership: new-file manifests live in the txn arena and are op-owned
 * files; merged manifests and the list live in the attempt arena and are
 * attempt-owned files (deleted when the attempt loses the CAS).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iceberg/produce_internal.h"

#define OOM(err) fl_errorf((err), FL_ENOMEM, "commit: out of memory")

bool prod_list_push(prod_list *l, fl_arena *a, const prod_manifest *m)
{
    if (l->n == l->cap) {
        uint32_t nc = l->cap ? l->cap * 2 : 16;
        prod_manifest *v = fl_arena_alloc(a, nc * sizeof *v);
        if (!v)
            return false;
        if (l->n)
            memcpy(v, l->v, l->n * sizeof *v);
        l->v = v;
        l->cap = nc;
    }
    l->v[l->n++] = *m;
    return true;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void prod_sort_paths(const char **v, uint32_t n)
{
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_str);
}

bool prod_has_path(const char *const *v, uint32_t n, const char *path)
{
    return n && bsearch(&path, v, n, sizeof *v, cmp_str) != NULL;
}

int64_t prod_path_index(const char *const *v, uint32_t n, const char *path)
{
    const char *const *hit = n ? bsearch(&path, v, n, sizeof *v, cmp_str) : NULL;
    return hit ? (int64_t)(hit - v) : -1;
}

/* ---- summary metrics ---------------------------------------------------------------- */

static const char *partition_key(fl_arena *a, const fl_ice_data_file *f)
{
    size_t cap = 32 + (size_t)f->npartition * 8;
    for (uint32_t i = 0; i < f->npartition; i++)
        if (!f->partition[i].is_null &&
            (f->partition[i].type.id == FL_TYPE_STRING ||
             f->partition[i].type.id == FL_TYPE_BINARY || f->partition[i].type.id == FL_TYPE_FIXED))
            cap += f->partition[i].v.bytes.len * 2;
        else
            cap += 40;
    char *k = fl_arena_alloc(a, cap);
    if (!k)
        return NULL;
    size_t o = (size_t)snprintf(k, cap, "%d", (int)f->spec_id);
    for (uint32_t i = 0; i < f->npartition; i++) {
        const fl_value *v = &f->partition[i];
        k[o++] = '|';
        if (v->is_null) {
            k[o++] = 'N';
            continue;
        }
        uint8_t buf[16];
        const uint8_t *p = NULL;
        size_t len = 0;
        fl_error e = {0};
        if (fl_ice_value_to_bytes(v, buf, sizeof buf, &p, &len, &e) != FL_OK) {
            k[o++] = '?';
            continue;
        }
        for (size_t j = 0; j < len && o + 3 < cap; j++)
            o += (size_t)snprintf(k + o, cap - o, "%02x", p[j]);
    }
    k[o] = 0;
    return k;
}

fl_status prod_metrics_add(prod_metrics *pm, fl_arena *a, const fl_ice_data_file *f, bool added,
                           fl_error *err)
{
    int64_t rc = f->record_count, sz = f->file_size_in_bytes;
    bool dv = f->file_format && strcmp(f->file_format, "PUFFIN") == 0;
    if (added)
        pm->added_size += sz;
    else
        pm->removed_size += sz;
    switch (f->content) {
    case FL_ICE_CONTENT_DATA:
        if (added) {
            pm->added_files++;
            pm->added_records += rc;
        } else {
            pm->removed_files++;
            pm->deleted_records += rc;
        }
        break;
    case FL_ICE_CONTENT_POSITION_DELETES:
        if (added) {
            pm->added_delete_files++;
            pm->added_pos_deletes += rc;
            if (dv)
                pm->added_dvs++;
            else
                pm->added_pos_delete_files++;
        } else {
            pm->removed_delete_files++;
            pm->removed_pos_deletes += rc;
            if (dv)
                pm->removed_dvs++;
            else
                pm->removed_pos_delete_files++;
        }
        break;
    case FL_ICE_CONTENT_EQUALITY_DELETES:
        if (added) {
            pm->added_delete_files++;
            pm->added_eq_delete_files++;
            pm->added_eq_deletes += rc;
        } else {
            pm->removed_delete_files++;
            pm->removed_eq_delete_files++;
            pm->removed_eq_deletes += rc;
        }
        break;
    }
    if (pm->npartitions == pm->cappartitions) {
        uint32_t nc = pm->cappartitions ? pm->cappartitions * 2 : 64;
        const char **v = fl_arena_alloc(a, nc * sizeof *v);
        if (!v)
            return OOM(err);
        if (pm->npartitions)
            memcpy(v, pm->partitions, pm->npartitions * sizeof *v);
        pm->partitions = v;
        pm->cappartitions = nc;
    }
    const char *k = partition_key(a, f);
    if (!k)
        return OOM(err);
    pm->partitions[pm->npartitions++] = k;
    return FL_OK;
}

static uint32_t distinct_partitions(prod_metrics *pm)
{
    prod_sort_paths(pm->partitions, pm->npartitions);
    uint32_t n = 0;
    for (uint32_t i = 0; i < pm->npartitions; i++)
        if (i == 0 || strcmp(pm->partitions[i], pm->partitions[i - 1]) != 0)
            n++;
    return n;
}

typedef struct kvbuf {
    fl_ice_kv *items;
    uint32_t n, cap;
    fl_arena *a;
    bool oom;
} kvbuf;

static void kv_put(kvbuf *b, const char *key, int64_t v)
{
    if (b->n == b->cap) {
        uint32_t nc = b->cap ? b->cap * 2 : 32;
        fl_ice_kv *it = fl_arena_alloc(b->a, nc * sizeof *it);
        if (!it) {
            b->oom = true;
            return;
        }
        if (b->n)
            memcpy(it, b->items, b->n * sizeof *it);
        b->items = it;
        b->cap = nc;
    }
    const char *val = fl_arena_sprintf(b->a, "%lld", (long long)v);
    if (!val) {
        b->oom = true;
        return;
    }
    b->items[b->n++] = (fl_ice_kv){key, val};
}

static void kv_put_if(kvbuf *b, const char *key, int64_t v)
{
    if (v > 0)
        kv_put(b, key, v);
}

static void put_total(kvbuf *b, const fl_ice_snapshot *parent, const char *key, int64_t added,
                      int64_t removed)
{
    int64_t prev = 0;
    if (parent) {
        const char *p = parent->has_summary ? fl_ice_map_get(&parent->summary, key) : NULL;
        if (!p)
            return;
        char *end;
        long long x = strtoll(p, &end, 10);
        if (*end || end == p)
            return;
        prev = x;
    }
    kv_put(b, key, prev + added - removed);
}

static fl_status build_summary(fl_arena *a, prod_metrics *pm, const fl_ice_snapshot *parent,
                               const fl_ice_map *extra, fl_ice_map *out, fl_error *err)
{
    kvbuf b = {.a = a};
    kv_put_if(&b, "added-data-files", pm->added_files);
    kv_put_if(&b, "deleted-data-files", pm->removed_files);
    kv_put_if(&b, "added-equality-delete-files", pm->added_eq_delete_files);
    kv_put_if(&b, "removed-equality-delete-files", pm->removed_eq_delete_files);
    kv_put_if(&b, "added-position-delete-files", pm->added_pos_delete_files);
    kv_put_if(&b, "removed-position-delete-files", pm->removed_pos_delete_files);
    kv_put_if(&b, "added-dvs", pm->added_dvs);
    kv_put_if(&b, "removed-dvs", pm->removed_dvs);
    kv_put_if(&b, "added-delete-files", pm->added_delete_files);
    kv_put_if(&b, "removed-delete-files", pm->removed_delete_files);
    kv_put_if(&b, "added-records", pm->added_records);
    kv_put_if(&b, "deleted-records", pm->deleted_records);
    kv_put_if(&b, "added-files-size", pm->added_size);
    kv_put_if(&b, "removed-files-size", pm->removed_size);
    kv_put_if(&b, "added-position-deletes", pm->added_pos_deletes);
    kv_put_if(&b, "removed-position-deletes", pm->removed_pos_deletes);
    kv_put_if(&b, "added-equality-deletes", pm->added_eq_deletes);
    kv_put_if(&b, "removed-equality-deletes", pm->removed_eq_deletes);
    for (uint32_t i = 0; extra && i < extra->n; i++) {
        kv_put(&b, extra->items[i].key, 0);
        if (!b.oom)
            b.items[b.n - 1].value = extra->items[i].value;
    }
    kv_put(&b, "changed-partition-count", distinct_partitions(pm));
    put_total(&b, parent, "total-records", pm->added_records, pm->deleted_records);
    put_total(&b, parent, "total-files-size", pm->added_size, pm->removed_size);
    put_total(&b, parent, "total-data-files", pm->added_files, pm->removed_files);
    put_total(&b, parent, "total-delete-files", pm->added_delete_files, pm->removed_delete_files);
    put_total(&b, parent, "total-position-deletes", pm->added_pos_deletes, pm->removed_pos_deletes);
    put_total(&b, parent, "total-equality-deletes", pm->added_eq_deletes, pm->removed_eq_deletes);
    if (b.oom)
        return OOM(err);
    *out = (fl_ice_map){.n = b.n, .items = b.items};
    return FL_OK;
}

/* ---- writing manifests ---------------------------------------------------------------- */

const char *prod_manifest_path(const fl_ice_metadata *m, fl_arena *a, const char *suffix)
{
    char uuid[37];
    fl_ice_uuid4(uuid);
    const char *dir = txn_metadata_dir(m, a);
    return dir ? fl_arena_sprintf(a, "%s/%s-%s.avro", dir, uuid, suffix) : NULL;
}

static fl_status write_entries(fl_fileio *io, const char *path, const fl_ice_metadata *m,
                               int64_t snapshot_id, int32_t spec_id,
                               fl_ice_manifest_content content,
                               const fl_ice_manifest_entry *const *entries, uint32_t n, fl_arena *a,
                               fl_ice_manifest_file *out, fl_error *err)
{
    if (!fl_ice_metadata_spec(m, spec_id))
        return fl_errorf(err, FL_EINVAL, "manifest %s: the table has no partition spec %d", path,
                         (int)spec_id);
    fl_ice_manifest_writer *w = NULL;
    FL_TRY(fl_ice_manifest_writer_open(io, path, m, spec_id, content, m->format_version,
                                       snapshot_id, &w, err));
    for (uint32_t i = 0; i < n; i++) {
        fl_status rc = fl_ice_manifest_writer_add(w, entries[i], err);
        if (rc != FL_OK) {
            fl_ice_manifest_writer_abort(w);
            return rc;
        }
    }
    return fl_ice_manifest_writer_close(w, a, out, err);
}

/* Groups files (in order) by spec id and writes one manifest per spec. */
static fl_status write_new_group(fl_ice_txn *x, txn_op *op, prod_state *ps, txn_attempt *at,
                                 fl_ice_data_file *files, uint32_t n,
                                 fl_ice_manifest_content content, prod_manifest *out,
                                 uint32_t *nout, fl_error *err)
{
    fl_arena *a = &x->arena;
    bool *done = fl_arena_calloc(a, n ? n : 1, sizeof *done);
    fl_ice_manifest_entry *ents = fl_arena_calloc(a, n ? n : 1, sizeof *ents);
    const fl_ice_manifest_entry **ptrs = fl_arena_calloc(a, n ? n : 1, sizeof *ptrs);
    if (!done || !ents || !ptrs)
        return OOM(err);
    for (uint32_t i = 0; i < n; i++) {
        if (done[i])
            continue;
        int32_t spec = files[i].spec_id;
        uint32_t k = 0;
        fl_ice_manifest_entry *first = &ents[i];
        (void)first;
        for (uint32_t j = i; j < n; j++) {
            if (done[j] || files[j].spec_id != spec)
                continue;
            done[j] = true;
            ents[j] = (fl_ice_manifest_entry){.status = FL_ICE_STATUS_ADDED,
                                              .snapshot_id = op->snapshot_id,
                                              .sequence_number = FL_ICE_UNASSIGNED_SEQ,
                                              .file_sequence_number = FL_ICE_UNASSIGNED_SEQ,
                                              .file = files[j]};
            ptrs[k++] = &ents[j];
        }
        const char *path = prod_manifest_path(&at->cur, a, "m0");
        if (!path)
            return OOM(err);
        prod_manifest *pm = &out[(*nout)++];
        *pm = (prod_manifest){.is_new = true};
        FL_TRY(write_entries(x->t->io, path, &at->cur, op->snapshot_id, spec, content, ptrs, k, a,
                             &pm->mf, err));
        if (!txn_paths_push(&op->owned, a, path))
            return OOM(err);
        /* the entries stay in the txn arena (ptrs points into ents) */
        fl_ice_manifest_entry *copy = fl_arena_alloc(a, k * sizeof *copy);
        if (!copy)
            return OOM(err);
        for (uint32_t j = 0; j < k; j++)
            copy[j] = *ptrs[j];
        pm->entries = copy;
        pm->nentries = k;
    }
    (void)ps;
    return FL_OK;
}

fl_status prod_write_new(fl_ice_txn *x, txn_op *op, prod_state *ps, txn_attempt *at, fl_error *err)
{
    if (ps->written)
        return FL_OK;
    uint32_t n = ps->nadd_data + ps->nadd_deletes;
    ps->new_manifests = fl_arena_calloc(&x->arena, n ? n : 1, sizeof *ps->new_manifests);
    if (!ps->new_manifests)
        return OOM(err);
    ps->nnew = 0;
    FL_TRY(write_new_group(x, op, ps, at, ps->add_data, ps->nadd_data, FL_ICE_MANIFEST_DATA,
                           ps->new_manifests, &ps->nnew, err));
    FL_TRY(write_new_group(x, op, ps, at, ps->add_deletes, ps->nadd_deletes,
                           FL_ICE_MANIFEST_DELETES, ps->new_manifests, &ps->nnew, err));
    ps->written = true;
    return FL_OK;
}

fl_status prod_write_manifest(fl_ice_txn *x, txn_attempt *at, int64_t snapshot_id, int32_t spec_id,
                              fl_ice_manifest_content content,
                              const fl_ice_manifest_entry *const *entries, uint32_t n,
                              prod_manifest *out, fl_error *err)
{
    const char *path = prod_manifest_path(&at->cur, &at->arena, "m1");
    if (!path)
        return OOM(err);
    *out = (prod_manifest){0};
    FL_TRY(write_entries(x->t->io, path, &at->cur, snapshot_id, spec_id, content, entries, n,
                         &at->arena, &out->mf, err));
    if (!txn_paths_push(&at->files, &at->arena, path))
        return OOM(err);
    return FL_OK;
}

fl_status prod_entries(fl_fileio *io, const fl_ice_metadata *m, const prod_manifest *pm,
                       fl_arena *a, const fl_ice_manifest_entry **out, uint32_t *n, fl_error *err)
{
    if (pm->entries || pm->is_new) {
        *out = pm->entries;
        *n = pm->nentries;
        return FL_OK;
    }
    fl_ice_manifest_entry *e = NULL;
    FL_TRY(fl_ice_manifest_read(io, m, &pm->mf, a, &e, n, err));
    *out = e;
    return FL_OK;
}

/* ---- merging --------------------------------------------------------------------------- */

static fl_status merge_bin(fl_ice_txn *x, txn_attempt *at, int64_t sid, prod_manifest *const *bin,
                           uint32_t nbin, prod_manifest *out, fl_error *err)
{
    uint32_t total = 0;
    const fl_ice_manifest_entry **lists = fl_arena_alloc(&at->arena, nbin * sizeof *lists);
    uint32_t *counts = fl_arena_alloc(&at->arena, nbin * sizeof *counts);
    if (!lists || !counts)
        return OOM(err);
    for (uint32_t i = 0; i < nbin; i++) {
        FL_TRY(prod_entries(x->t->io, &at->cur, bin[i], &at->arena, &lists[i], &counts[i], err));
        total += counts[i];
    }
    fl_ice_manifest_entry *ents = fl_arena_alloc(&at->arena, (total ? total : 1) * sizeof *ents);
    const fl_ice_manifest_entry **ptrs =
        fl_arena_alloc(&at->arena, (total ? total : 1) * sizeof *ptrs);
    if (!ents || !ptrs)
        return OOM(err);
    uint32_t k = 0;
    for (uint32_t i = 0; i < nbin; i++)
        for (uint32_t j = 0; j < counts[i]; j++) {
            fl_ice_manifest_entry e = lists[i][j];
            bool mine = e.snapshot_id == sid;
            if (e.status == FL_ICE_STATUS_DELETED && !mine)
                continue;
            if (e.status == FL_ICE_STATUS_ADDED && !mine)
                e.status = FL_ICE_STATUS_EXISTING;
            ents[k] = e;
            ptrs[k] = &ents[k];
            k++;
        }
    return prod_write_manifest(x, at, sid, bin[0]->mf.partition_spec_id, bin[0]->mf.content, ptrs,
                               k, out, err);
}

fl_status prod_merge(fl_ice_txn *x, txn_attempt *at, int64_t sid, prod_list *l, fl_error *err)
{
    const fl_ice_metadata *m = &at->cur;
    if (!txn_prop_bool(m, "commit.manifest-merge.enabled", true) || l->n < 2)
        return FL_OK;
    int64_t min_count = txn_prop_i64(m, "commit.manifest.min-count-to-merge", 100);
    int64_t target = txn_prop_i64(m, "commit.manifest.target-size-bytes", 8LL << 20);
    if (min_count < 2)
        min_count = 2;
    bool *used = fl_arena_calloc(&at->arena, l->n, sizeof *used);
    prod_manifest **group = fl_arena_alloc(&at->arena, l->n * sizeof *group);
    uint32_t *binof = fl_arena_alloc(&at->arena, l->n * sizeof *binof);
    if (!used || !group || !binof)
        return OOM(err);
    prod_list outl = {0};
    for (uint32_t i = 0; i < l->n; i++) {
        if (used[i])
            continue;
        uint32_t g = 0;
        for (uint32_t j = i; j < l->n; j++)
            if (!used[j] && l->v[j].mf.content == l->v[i].mf.content &&
                l->v[j].mf.partition_spec_id == l->v[i].mf.partition_spec_id) {
                used[j] = true;
                group[g++] = &l->v[j];
            }
        /* pack from the end: bins numbered from the last manifest backwards */
        uint32_t nbins = 0;
        int64_t fill = 0;
        for (uint32_t j = g; j-- > 0;) {
            int64_t len = group[j]->mf.manifest_length;
            if (nbins == 0 || fill + len > target) {
                nbins++;
                fill = 0;
            }
            fill += len;
            binof[j] = nbins - 1;
        }
        /* bins in list order: highest bin number first (it holds group[0]) */
        for (uint32_t b = nbins; b-- > 0;) {
            prod_manifest **bin = fl_arena_alloc(&at->arena, g * sizeof *bin);
            if (!bin)
                return OOM(err);
            uint32_t nb = 0;
            bool has_first = false;
            for (uint32_t j = 0; j < g; j++)
                if (binof[j] == b) {
                    bin[nb++] = group[j];
                    has_first |= j == 0;
                }
            if (nb == 1 || (has_first && nb < (uint64_t)min_count)) {
                for (uint32_t j = 0; j < nb; j++)
                    if (!prod_list_push(&outl, &at->arena, bin[j]))
                        return OOM(err);
                continue;
            }
            prod_manifest merged;
            FL_TRY(merge_bin(x, at, sid, bin, nb, &merged, err));
            if (!prod_list_push(&outl, &at->arena, &merged))
                return OOM(err);
        }
    }
    *l = outl;
    return FL_OK;
}

/* ---- the manifest list and the snapshot ------------------------------------------------ */

/* The operation's own extra entries, then the txn's (fl_ice_txn_set_snapshot_summary). */
static fl_status merge_extra(fl_arena *a, const fl_ice_map *op, const fl_ice_map *txn,
                             fl_ice_map *out, fl_error *err)
{
    uint32_t n = (op ? op->n : 0) + txn->n;
    if (!n)
        return FL_OK;
    fl_ice_kv *kv = fl_arena_alloc(a, n * sizeof *kv);
    if (!kv)
        return OOM(err);
    uint32_t k = 0;
    for (uint32_t i = 0; op && i < op->n; i++)
        kv[k++] = op->items[i];
    for (uint32_t i = 0; i < txn->n; i++)
        kv[k++] = txn->items[i];
    *out = (fl_ice_map){.n = k, .items = kv};
    return FL_OK;
}

fl_status prod_commit_snapshot(fl_ice_txn *x, txn_attempt *at, int64_t sid, const char *operation,
                               const prod_list *l, const prod_metrics *pmc,
                               const fl_ice_map *extra_summary, fl_error *err)
{
    const fl_ice_metadata *m = &at->cur;
    const fl_ice_snapshot *parent = txn_branch_head(x, m);
    int64_t seq = m->format_version >= 2 ? m->last_sequence_number + 1 : 0;
    char uuid[37];
    fl_ice_uuid4(uuid);
    const char *dir = txn_metadata_dir(m, &at->arena);
    const char *path = dir ? fl_arena_sprintf(&at->arena, "%s/snap-%lld-%u-%s.avro", dir,
                                              (long long)sid, at->number + 1, uuid)
                           : NULL;
    fl_ice_manifest_file *files = fl_arena_alloc(&at->arena, (l->n ? l->n : 1) * sizeof *files);
    if (!path || !files)
        return OOM(err);
    for (uint32_t i = 0; i < l->n; i++)
        files[i] = l->v[i].mf;
    fl_ice_manifest_list_info info = {.format_version = m->format_version,
                                      .snapshot_id = sid,
                                      .has_parent = parent != NULL,
                                      .parent_snapshot_id = parent ? parent->snapshot_id : 0,
                                      .sequence_number = seq,
                                      .first_row_id = m->has_next_row_id ? m->next_row_id : 0};
    int64_t next_row_id = info.first_row_id;
    if (!txn_paths_push(&at->files, &at->arena, path))
        return OOM(err);
    FL_TRY(fl_ice_manifest_list_write(x->t->io, path, &info, files, l->n,
                                      m->format_version >= 3 ? &next_row_id : NULL, err));
    prod_metrics pm = *pmc;
    fl_ice_snapshot s = {.snapshot_id = sid,
                         .has_parent = parent != NULL,
                         .parent_snapshot_id = parent ? parent->snapshot_id : 0,
                         .sequence_number = seq,
                         .timestamp_ms = at->now_ms,
                         .manifest_list = path,
                         .operation = operation,
                         .has_summary = true,
                         .has_schema_id = true,
                         .schema_id = m->current_schema_id};
    if (parent && parent->timestamp_ms > s.timestamp_ms)
        s.timestamp_ms = parent->timestamp_ms; /* clocks of writers may disagree a little */
    if (m->format_version >= 3) {
        s.has_first_row_id = true;
        s.first_row_id = info.first_row_id;
        s.has_added_rows = true;
        s.added_rows = next_row_id - info.first_row_id;
    }
    fl_ice_map extra = {0};
    FL_TRY(merge_extra(&at->arena, extra_summary, &x->snapshot_summary, &extra, err));
    FL_TRY(build_summary(&at->arena, &pm, parent, &extra, &s.summary, err));
    return txn_emit_snapshot(x, at, &s, err);
}
