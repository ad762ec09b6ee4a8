/*
 * produce_ops.c - the snapshot-producing transaction operations:
 *
 *   fl_ice_txn_append            "append": new manifests + the parent's, merged
 *   fl_ice_txn_row_delta         "overwrite" / "delete" / "replace": new data
 *                                and delete manifests; manifests holding
 *                                removed files are rewritten with those
 *                                entries DELETED (this snapshot's id, their
 *                                sequence numbers kept) and the rest EXISTING;
 *                                validated against concurrent snapshots
 *   fl_ice_txn_delete_files_where "delete": files whose rows all match the
 *                                filter (strict metrics evaluation, re-done
 *                                on every attempt) are removed as above
 *   fl_ice_txn_rewrite_manifests "replace": data manifests regrouped by
 *                                partition into ~target-size manifests
 *
 * Data-file structs passed in are deep-copied into the txn arena. Each
 * operation's snapshot id is drawn once, so manifests written for it stay
 * valid across retries.
 */
#include <stdlib.h>
#include <string.h>

#include "iceberg/produce_internal.h"

#define OOM(err) fl_errorf((err), FL_ENOMEM, "transaction: out of memory")

/* ---- copying caller data into the txn arena ---------------------------------------- */

static bool dup_bytes(fl_arena *a, const uint8_t **p, uint32_t len)
{
    if (!*p)
        return true;
    uint8_t *c = fl_arena_alloc(a, len ? len : 1);
    if (!c)
        return false;
    memcpy(c, *p, len);
    *p = c;
    return true;
}

static bool dup_str(fl_arena *a, const char **s)
{
    if (!*s)
        return true;
    *s = fl_arena_strdup(a, *s);
    return *s != NULL;
}

static bool dup_value(fl_arena *a, fl_value *v)
{
    if (v->is_null)
        return true;
    if (v->type.id == FL_TYPE_STRING || v->type.id == FL_TYPE_BINARY ||
        v->type.id == FL_TYPE_FIXED || v->type.id == FL_TYPE_UUID) {
        const uint8_t *p = v->v.bytes.ptr;
        if (p && !dup_bytes(a, &p, (uint32_t)v->v.bytes.len))
            return false;
        v->v.bytes.ptr = p;
    }
    v->type.children = NULL;
    v->type.nchildren = 0;
    return true;
}

static bool copy_file(fl_arena *a, const fl_ice_data_file *in, fl_ice_data_file *out)
{
    *out = *in;
    if (!dup_str(a, &out->file_path) || !dup_str(a, &out->file_format) ||
        !dup_str(a, &out->referenced_data_file) ||
        !dup_bytes(a, &out->key_metadata, in->key_metadata_len))
        return false;
    if (in->npartition) {
        out->partition = fl_arena_alloc(a, in->npartition * sizeof *out->partition);
        if (!out->partition)
            return false;
        for (uint32_t i = 0; i < in->npartition; i++) {
            out->partition[i] = in->partition[i];
            if (!dup_value(a, &out->partition[i]))
                return false;
        }
    }
    if (in->nmetrics) {
        out->metrics = fl_arena_alloc(a, in->nmetrics * sizeof *out->metrics);
        if (!out->metrics)
            return false;
        for (uint32_t i = 0; i < in->nmetrics; i++) {
            out->metrics[i] = in->metrics[i];
            if (!dup_bytes(a, &out->metrics[i].lower, in->metrics[i].lower_len) ||
                !dup_bytes(a, &out->metrics[i].upper, in->metrics[i].upper_len))
                return false;
        }
    }
    if (in->nsplit_offsets) {
        out->split_offsets = fl_arena_alloc(a, in->nsplit_offsets * sizeof(int64_t));
        if (!out->split_offsets)
            return false;
        memcpy(out->split_offsets, in->split_offsets, in->nsplit_offsets * sizeof(int64_t));
    }
    if (in->nequality_ids) {
        out->equality_ids = fl_arena_alloc(a, in->nequality_ids * sizeof(int32_t));
        if (!out->equality_ids)
            return false;
        memcpy(out->equality_ids, in->equality_ids, in->nequality_ids * sizeof(int32_t));
    }
    return true;
}

static fl_status copy_files(fl_ice_txn *x, const fl_ice_data_file *in, uint32_t n, bool deletes,
                            fl_ice_data_file **out, fl_error *err)
{
    *out = NULL;
    if (!n)
        return FL_OK;
    if (!in)
        return fl_errorf(err, FL_EINVAL, "transaction: NULL file list");
    const fl_ice_metadata *m = fl_ice_txn_metadata(x);
    fl_ice_data_file *v = fl_arena_alloc(&x->arena, n * sizeof *v);
    if (!v)
        return OOM(err);
    for (uint32_t i = 0; i < n; i++) {
        const fl_ice_data_file *f = &in[i];
        if (!f->file_path || !*f->file_path)
            return fl_errorf(err, FL_EINVAL, "transaction: file %u has no path", i);
        if (deletes ? f->content == FL_ICE_CONTENT_DATA : f->content != FL_ICE_CONTENT_DATA)
            return fl_errorf(err, FL_EINVAL, "transaction: %s: content %d where %s files belong",
                             f->file_path, (int)f->content, deletes ? "delete" : "data");
        if (f->record_count < 0 || f->file_size_in_bytes < 0)
            return fl_errorf(err, FL_EINVAL, "transaction: %s: negative record count or size",
                             f->file_path);
        const fl_ice_partition_spec *spec = fl_ice_metadata_spec(m, f->spec_id);
        if (!spec)
            return fl_errorf(err, FL_EINVAL, "transaction: %s: unknown partition spec %d",
                             f->file_path, (int)f->spec_id);
        if (spec->nfields != f->npartition)
            return fl_errorf(err, FL_EINVAL,
                             "transaction: %s: %u partition values for spec %d of %u fields",
                             f->file_path, f->npartition, (int)f->spec_id, spec->nfields);
        if (!f->file_format)
            return fl_errorf(err, FL_EINVAL, "transaction: %s: no file format", f->file_path);
        if (!copy_file(&x->arena, f, &v[i]))
            return OOM(err);
    }
    *out = v;
    return FL_OK;
}

static fl_status copy_predicate(fl_arena *a, const fl_predicate *in, fl_predicate *out)
{
    *out = (fl_predicate){0};
    if (!in || !in->nterms)
        return FL_OK;
    fl_col_pred *t = fl_arena_alloc(a, in->nterms * sizeof *t);
    if (!t)
        return FL_ENOMEM;
    for (uint32_t i = 0; i < in->nterms; i++) {
        t[i] = in->terms[i];
        if (!dup_str(a, &t[i].column) || !dup_value(a, &t[i].value))
            return FL_ENOMEM;
        if (in->terms[i].nin) {
            fl_value *v = fl_arena_alloc(a, in->terms[i].nin * sizeof *v);
            if (!v)
                return FL_ENOMEM;
            for (uint32_t j = 0; j < in->terms[i].nin; j++) {
                v[j] = in->terms[i].in_values[j];
                if (!dup_value(a, &v[j]))
                    return FL_ENOMEM;
            }
            t[i].in_values = v;
        }
    }
    out->terms = t;
    out->nterms = in->nterms;
    return FL_OK;
}

/* ---- the parent's manifests ----------------------------------------------------------- */

static fl_status parent_manifests(fl_ice_txn *x, txn_attempt *at, fl_ice_manifest_file **out,
                                  uint32_t *n, fl_error *err)
{
    *out = NULL;
    *n = 0;
    const fl_ice_snapshot *parent = txn_branch_head(x, &at->cur);
    if (!parent)
        return FL_OK;
    return fl_ice_snapshot_manifests(x->t->io, &at->cur, parent, &at->arena, out, n, err);
}

static fl_status push_new(prod_state *ps, txn_attempt *at, prod_list *l, prod_metrics *pm,
                          fl_error *err)
{
    for (uint32_t i = 0; i < ps->nnew; i++)
        if (!prod_list_push(l, &at->arena, &ps->new_manifests[i]))
            return OOM(err);
    for (uint32_t i = 0; i < ps->nadd_data; i++)
        FL_TRY(prod_metrics_add(pm, &at->arena, &ps->add_data[i], true, err));
    for (uint32_t i = 0; i < ps->nadd_deletes; i++)
        FL_TRY(prod_metrics_add(pm, &at->arena, &ps->add_deletes[i], true, err));
    return FL_OK;
}

/* ---- append ------------------------------------------------------------------------------ */

static fl_status append_build(fl_ice_txn *x, txn_op *op, txn_attempt *at, fl_error *err)
{
    prod_state *ps = op->state;
    FL_TRY(prod_write_new(x, op, ps, at, err));
    prod_list l = {0};
    prod_metrics pm = {0};
    FL_TRY(push_new(ps, at, &l, &pm, err));
    fl_ice_manifest_file *old = NULL;
    uint32_t nold = 0;
    FL_TRY(parent_manifests(x, at, &old, &nold, err));
    for (uint32_t i = 0; i < nold; i++) {
        prod_manifest p = {.mf = old[i]};
        if (!prod_list_push(&l, &at->arena, &p))
            return OOM(err);
    }
    FL_TRY(prod_merge(x, at, op->snapshot_id, &l, err));
    return prod_commit_snapshot(x, at, op->snapshot_id, ps->operation, &l, &pm, NULL, err);
}

static const txn_op_vt APPEND_VT = {.name = "append", .build = append_build};

static fl_status new_producer(fl_ice_txn *x, const txn_op_vt *vt, size_t state_size,
                              prod_state **ps_out, fl_error *err)
{
    void *st = fl_arena_calloc(&x->arena, 1, state_size);
    if (!st)
        return OOM(err);
    txn_op *op = NULL;
    FL_TRY(txn_add_op(x, vt, st, &op, err));
    op->snapshot_id = fl_ice_new_snapshot_id();
    *ps_out = st; /* prod_state is the first member of every state */
    return FL_OK;
}

fl_status fl_ice_txn_append(fl_ice_txn *x, const fl_ice_data_file *files, uint32_t n, fl_error *err)
{
    fl_ice_data_file *copy = NULL;
    FL_TRY(copy_files(x, files, n, false, &copy, err));
    prod_state *ps = NULL;
    FL_TRY(new_producer(x, &APPEND_VT, sizeof(prod_state), &ps, err));
    ps->operation = "append";
    ps->add_data = copy;
    ps->nadd_data = n;
    return FL_OK;
}

/* ---- removals (row delta, delete-files-where) ------------------------------------------- */

typedef struct delta_state {
    prod_state ps;       /* first */
    const char **remove; /* sorted data + delete paths */
    uint32_t nremove;
    uint32_t nremove_data, nremove_deletes;
    fl_predicate filter;
    bool has_filter;
    bool where; /* delete-files-where: removals found per attempt */
    const char **referenced;
    uint32_t nreferenced;
    const char **dvs_of; /* data files whose DV this delta replaces (sorted) */
    uint32_t ndvs_of;
} delta_state;

/* What a row delta removes: paths (sorted data + delete files) and the
 * data files whose deletion vector is replaced (sorted). A DV is never
 * matched by its path, which the other DVs of its Puffin file share: it goes
 * when its referenced data file is removed (the spec requires that) or is
 * listed in dvs_of. */
typedef struct removal {
    const char *const *remove;
    uint32_t nremove;
    const char *const *dvs_of;
    uint32_t ndvs_of;
    bool *found, *found_dv;
} removal;

static bool is_dv(const fl_ice_data_file *f)
{
    return f->content == FL_ICE_CONTENT_POSITION_DELETES && f->has_content_offset &&
           f->referenced_data_file;
}

/* Whether entry file f goes; marks what matched. */
static bool removes(const removal *r, const fl_ice_data_file *f, bool mark)
{
    if (is_dv(f)) {
        int64_t k = prod_path_index(r->dvs_of, r->ndvs_of, f->referenced_data_file);
        if (k >= 0 && mark)
            r->found_dv[k] = true;
        return k >= 0 || prod_has_path(r->remove, r->nremove, f->referenced_data_file);
    }
    int64_t k = prod_path_index(r->remove, r->nremove, f->file_path);
    if (k >= 0 && mark)
        r->found[k] = true;
    return k >= 0;
}

static fl_status rewrite_removing(fl_ice_txn *x, txn_op *op, txn_attempt *at,
                                  const fl_ice_manifest_file *mf, const fl_ice_manifest_entry *e,
                                  uint32_t n, const removal *rm, prod_metrics *pm, prod_list *l,
                                  fl_error *err)
{
    const fl_ice_manifest_entry **ptrs = fl_arena_alloc(&at->arena, (n ? n : 1) * sizeof *ptrs);
    fl_ice_manifest_entry *ents = fl_arena_alloc(&at->arena, (n ? n : 1) * sizeof *ents);
    if (!ptrs || !ents)
        return OOM(err);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (e[i].status == FL_ICE_STATUS_DELETED)
            continue;
        ents[k] = e[i];
        if (removes(rm, &e[i].file, true)) {
            ents[k].status = FL_ICE_STATUS_DELETED;
            ents[k].snapshot_id = op->snapshot_id;
            FL_TRY(prod_metrics_add(pm, &at->arena, &e[i].file, false, err));
        } else {
            ents[k].status = FL_ICE_STATUS_EXISTING;
        }
        ptrs[k] = &ents[k];
        k++;
    }
    prod_manifest out;
    FL_TRY(prod_write_manifest(x, at, op->snapshot_id, mf->partition_spec_id, mf->content, ptrs, k,
                               &out, err));
    if (!prod_list_push(l, &at->arena, &out))
        return OOM(err);
    return FL_OK;
}

/* Keeps or rewrites each parent manifest; every path in remove (and every
 * replaced DV) must be found. Delete manifests are read when delete files
 * are removed, or on v3 when data files are (their DVs go with them). */
static fl_status apply_removals(fl_ice_txn *x, txn_op *op, txn_attempt *at, removal *rm, bool data,
                                bool deletes, prod_metrics *pm, prod_list *l, fl_error *err)
{
    fl_ice_manifest_file *old = NULL;
    uint32_t nold = 0;
    FL_TRY(parent_manifests(x, at, &old, &nold, err));
    rm->found = fl_arena_calloc(&at->arena, rm->nremove + 1, sizeof *rm->found);
    rm->found_dv = fl_arena_calloc(&at->arena, rm->ndvs_of + 1, sizeof *rm->found_dv);
    if (!rm->found || !rm->found_dv)
        return OOM(err);
    bool dvs = rm->ndvs_of || (data && rm->nremove && at->cur.format_version >= 3);
    for (uint32_t i = 0; i < nold; i++) {
        const fl_ice_manifest_file *mf = &old[i];
        bool relevant = (rm->nremove || rm->ndvs_of) &&
                        ((mf->content == FL_ICE_MANIFEST_DATA && data) ||
                         (mf->content == FL_ICE_MANIFEST_DELETES && (deletes || dvs)));
        if (relevant && mf->added_files_count == 0 && mf->existing_files_count == 0)
            relevant = false;
        if (relevant) {
            fl_ice_manifest_entry *e = NULL;
            uint32_t n = 0;
            FL_TRY(fl_ice_manifest_read(x->t->io, &at->cur, mf, &at->arena, &e, &n, err));
            bool any = false;
            for (uint32_t j = 0; j < n && !any; j++)
                any = e[j].status != FL_ICE_STATUS_DELETED && removes(rm, &e[j].file, false);
            if (any) {
                FL_TRY(rewrite_removing(x, op, at, mf, e, n, rm, pm, l, err));
                continue;
            }
        }
        prod_manifest p = {.mf = *mf};
        if (!prod_list_push(l, &at->arena, &p))
            return OOM(err);
    }
    const fl_ice_snapshot *parent = txn_branch_head(x, &at->cur);
    for (uint32_t j = 0; j < rm->nremove; j++)
        if (!rm->found[j])
            return fl_errorf(err, FL_ECONFLICT,
                             "cannot remove %s: it is not in the table at snapshot %lld (removed "
                             "by a concurrent commit?)",
                             rm->remove[j], parent ? (long long)parent->snapshot_id : -1LL);
    for (uint32_t j = 0; j < rm->ndvs_of; j++)
        if (!rm->found_dv[j])
            return fl_errorf(err, FL_ECONFLICT,
                             "cannot replace the deletion vector of %s: it is not in the table at "
                             "snapshot %lld (replaced by a concurrent commit?)",
                             rm->dvs_of[j], parent ? (long long)parent->snapshot_id : -1LL);
    return FL_OK;
}

static fl_status find_where(fl_ice_txn *x, const fl_ice_metadata *m, const fl_ice_snapshot *head,
                            const fl_predicate *filter, fl_arena *a, const char ***out,
                            uint32_t *nout, uint64_t *partial, fl_error *err)
{
    *out = NULL;
    *nout = 0;
    if (partial)
        *partial = 0;
    if (!head)
        return FL_OK;
    const fl_ice_schema *s = fl_ice_metadata_current_schema(m);
    fl_ice_manifest_file *mfs = NULL;
    uint32_t nmf = 0;
    FL_TRY(fl_ice_snapshot_manifests(x->t->io, m, head, a, &mfs, &nmf, err));
    txn_paths p = {0};
    for (uint32_t i = 0; i < nmf; i++) {
        if (mfs[i].content != FL_ICE_MANIFEST_DATA)
            continue;
        fl_ice_manifest_entry *e = NULL;
        uint32_t n = 0;
        FL_TRY(fl_ice_manifest_read(x->t->io, m, &mfs[i], a, &e, &n, err));
        for (uint32_t j = 0; j < n; j++) {
            if (e[j].status == FL_ICE_STATUS_DELETED)
                continue;
            fl_ice_match mt = fl_ice_file_match(m, s, filter, &e[j].file);
            if (mt == FL_ICE_MATCH_ALL) {
                if (!txn_paths_push(&p, a, e[j].file.file_path))
                    return OOM(err);
            } else if (mt == FL_ICE_MATCH_SOME && partial) {
                (*partial)++;
            }
        }
    }
    prod_sort_paths(p.v, p.n);
    *out = p.v;
    *nout = p.n;
    return FL_OK;
}

static const char *isolation_key(const char *operation)
{
    return strcmp(operation, "delete") == 0 ? "write.delete.isolation-level"
                                            : "write.update.isolation-level";
}

static fl_status delta_build(fl_ice_txn *x, txn_op *op, txn_attempt *at, fl_error *err)
{
    delta_state *ds = op->state;
    prod_state *ps = &ds->ps;
    const char *const *remove = ds->remove;
    uint32_t nremove = ds->nremove;
    if (ds->where) {
        const char **found = NULL;
        FL_TRY(find_where(x, &at->cur, txn_branch_head(x, &at->cur),
                          ds->has_filter ? &ds->filter : NULL, &at->arena, &found, &nremove, NULL,
                          err));
        remove = found;
        if (nremove == 0)
            return FL_OK; /* nothing matches any more: no snapshot */
    } else {
        const char *lvl = fl_ice_map_get(&at->cur.properties, isolation_key(ps->operation));
        bool serializable = !lvl || strcasecmp(lvl, "snapshot") != 0;
        bool replace = strcmp(ps->operation, "replace") == 0;
        bool changes_rows = ds->nremove_data || ps->nadd_deletes;
        prod_validation v = {.check_added_data = serializable && !replace && changes_rows,
                             .check_added_deletes = replace ? ds->nremove_data > 0 : changes_rows,
                             .filter = ds->has_filter ? &ds->filter : NULL,
                             .removed = ds->remove,
                             .nremoved = ds->nremove,
                             .referenced = ds->referenced,
                             .nreferenced = ds->nreferenced};
        FL_TRY(prod_validate(x, at, &v, err));
    }
    FL_TRY(prod_write_new(x, op, ps, at, err));
    prod_list l = {0};
    prod_metrics pm = {0};
    FL_TRY(push_new(ps, at, &l, &pm, err));
    bool data = ds->where || ds->nremove_data, dels = !ds->where && ds->nremove_deletes;
    removal rm = {.remove = remove,
                  .nremove = nremove,
                  .dvs_of = ds->where ? NULL : ds->dvs_of,
                  .ndvs_of = ds->where ? 0 : ds->ndvs_of};
    FL_TRY(apply_removals(x, op, at, &rm, data, dels, &pm, &l, err));
    FL_TRY(prod_merge(x, at, op->snapshot_id, &l, err));
    return prod_commit_snapshot(x, at, op->snapshot_id, ps->operation, &l, &pm, NULL, err);
}

static const txn_op_vt DELTA_VT = {.name = "row delta", .build = delta_build};

fl_status fl_ice_txn_row_delta(fl_ice_txn *x, const fl_ice_row_delta *d, fl_error *err)
{
    if (!d || !d->operation)
        return fl_errorf(err, FL_EINVAL, "row delta: no operation");
    if (strcmp(d->operation, "overwrite") != 0 && strcmp(d->operation, "delete") != 0 &&
        strcmp(d->operation, "replace") != 0)
        return fl_errorf(err, FL_EINVAL,
                         "row delta: operation '%s' is not overwrite, delete or replace",
                         d->operation);
    if (fl_ice_txn_metadata(x)->format_version < 2 && d->nadd_deletes)
        return fl_errorf(err, FL_EINVAL, "row delta: delete files need format version 2");
    fl_ice_data_file *data = NULL, *dels = NULL;
    FL_TRY(copy_files(x, d->add_data, d->nadd_data, false, &data, err));
    FL_TRY(copy_files(x, d->add_deletes, d->nadd_deletes, true, &dels, err));
    uint32_t nrm = d->nremove_data + d->nremove_deletes;
    const char **rm = fl_arena_alloc(&x->arena, (nrm ? nrm : 1) * sizeof *rm);
    if (!rm)
        return OOM(err);
    for (uint32_t i = 0; i < nrm; i++) {
        const char *p = i < d->nremove_data
                            ? (d->remove_data ? d->remove_data[i] : NULL)
                            : (d->remove_deletes ? d->remove_deletes[i - d->nremove_data] : NULL);
        if (!p)
            return fl_errorf(err, FL_EINVAL, "row delta: NULL path to remove");
        if (!(rm[i] = fl_arena_strdup(&x->arena, p)))
            return OOM(err);
    }
    prod_sort_paths(rm, nrm);
    uint32_t k = 0;
    for (uint32_t i = 0; i < nrm; i++)
        if (k == 0 || strcmp(rm[i], rm[k - 1]) != 0)
            rm[k++] = rm[i];
    const char **refs = NULL;
    uint32_t nrefs = 0;
    for (uint32_t i = 0; i < d->nadd_deletes; i++)
        if (dels[i].referenced_data_file) {
            if (!refs && !(refs = fl_arena_alloc(&x->arena, d->nadd_deletes * sizeof *refs)))
                return OOM(err);
            refs[nrefs++] = dels[i].referenced_data_file;
        }
    prod_sort_paths(refs, nrefs);
    const char **dvs_of = fl_arena_alloc(&x->arena, (d->nremove_dvs_of + 1) * sizeof *dvs_of);
    if (!dvs_of)
        return OOM(err);
    for (uint32_t i = 0; i < d->nremove_dvs_of; i++)
        if (!(dvs_of[i] = fl_arena_strdup(&x->arena, d->remove_dvs_of[i])))
            return OOM(err);
    prod_sort_paths(dvs_of, d->nremove_dvs_of);
    prod_state *ps = NULL;
    FL_TRY(new_producer(x, &DELTA_VT, sizeof(delta_state), &ps, err));
    delta_state *ds = (delta_state *)ps;
    ps->operation = strcmp(d->operation, "overwrite") == 0 ? "overwrite"
                    : strcmp(d->operation, "delete") == 0  ? "delete"
                                                           : "replace";
    ps->add_data = data;
    ps->nadd_data = d->nadd_data;
    ps->add_deletes = dels;
    ps->nadd_deletes = d->nadd_deletes;
    ds->remove = rm;
    ds->nremove = k;
    ds->nremove_data = d->nremove_data;
    ds->nremove_deletes = d->nremove_deletes;
    ds->referenced = refs;
    ds->nreferenced = nrefs;
    ds->dvs_of = dvs_of;
    ds->ndvs_of = d->nremove_dvs_of;
    if (d->conflict_filter) {
        if (copy_predicate(&x->arena, d->conflict_filter, &ds->filter) != FL_OK)
            return OOM(err);
        ds->has_filter = true;
    }
    return FL_OK;
}

fl_status fl_ice_txn_delete_files_where(fl_ice_txn *x, const fl_predicate *filter,
                                        uint64_t *removed, uint64_t *partial, fl_error *err)
{
    const fl_ice_metadata *m = fl_ice_txn_metadata(x);
    fl_arena tmp;
    fl_arena_init(&tmp, 0);
    const char **found = NULL;
    uint32_t n = 0;
    uint64_t part = 0;
    fl_status rc = find_where(x, m, txn_branch_head(x, m), filter, &tmp, &found, &n, &part, err);
    fl_arena_free(&tmp);
    FL_TRY(rc);
    if (removed)
        *removed = n;
    if (partial)
        *partial = part;
    prod_state *ps = NULL;
    FL_TRY(new_producer(x, &DELTA_VT, sizeof(delta_state), &ps, err));
    delta_state *ds = (delta_state *)ps;
    ps->operation = "delete";
    ds->where = true;
    if (filter) {
        if (copy_predicate(&x->arena, filter, &ds->filter) != FL_OK)
            return OOM(err);
        ds->has_filter = true;
    }
    return FL_OK;
}

/* ---- rewrite manifests -------------------------------------------------------------------- */

typedef struct keyed_entry {
    const char *key;
    const fl_ice_manifest_entry *e;
} keyed_entry;

static int cmp_keyed(const void *a, const void *b)
{
    return strcmp(((const keyed_entry *)a)->key, ((const keyed_entry *)b)->key);
}

static fl_status rewrite_group(fl_ice_txn *x, txn_op *op, txn_attempt *at,
                               fl_ice_manifest_file *const *g, uint32_t ng, prod_list *l,
                               uint32_t *created, uint64_t *entries, fl_error *err)
{
    int64_t target = txn_prop_i64(&at->cur, "commit.manifest.target-size-bytes", 8LL << 20);
    uint32_t total = 0;
    int64_t bytes = 0;
    fl_ice_manifest_entry **lists = fl_arena_alloc(&at->arena, ng * sizeof *lists);
    uint32_t *counts = fl_arena_alloc(&at->arena, ng * sizeof *counts);
    if (!lists || !counts)
        return OOM(err);
    for (uint32_t i = 0; i < ng; i++) {
        FL_TRY(
            fl_ice_manifest_read(x->t->io, &at->cur, g[i], &at->arena, &lists[i], &counts[i], err));
        total += counts[i];
        bytes += g[i]->manifest_length;
    }
    keyed_entry *ke = fl_arena_alloc(&at->arena, (total ? total : 1) * sizeof *ke);
    if (!ke)
        return OOM(err);
    uint32_t k = 0;
    prod_metrics scratch = {0};
    for (uint32_t i = 0; i < ng; i++)
        for (uint32_t j = 0; j < counts[i]; j++) {
            fl_ice_manifest_entry *e = &lists[i][j];
            if (e->status == FL_ICE_STATUS_DELETED)
                continue;
            e->status = FL_ICE_STATUS_EXISTING;
            FL_TRY(prod_metrics_add(&scratch, &at->arena, &e->file, true, err));
            ke[k++] = (keyed_entry){scratch.partitions[scratch.npartitions - 1], e};
        }
    *entries += k;
    if (k > 1)
        qsort(ke, k, sizeof *ke, cmp_keyed);
    int64_t per = total ? bytes / total : 1;
    uint64_t chunk = (uint64_t)(target / (per > 0 ? per : 1));
    if (chunk < 1)
        chunk = 1;
    const fl_ice_manifest_entry **ptrs = fl_arena_alloc(&at->arena, (k ? k : 1) * sizeof *ptrs);
    if (!ptrs)
        return OOM(err);
    for (uint32_t i = 0; i < k; i++)
        ptrs[i] = ke[i].e;
    for (uint32_t i = 0; i < k; i += (uint32_t)chunk) {
        uint32_t n = k - i < chunk ? k - i : (uint32_t)chunk;
        prod_manifest out;
        FL_TRY(prod_write_manifest(x, at, op->snapshot_id, g[0]->partition_spec_id, g[0]->content,
                                   ptrs + i, n, &out, err));
        if (!prod_list_push(l, &at->arena, &out))
            return OOM(err);
        (*created)++;
    }
    return FL_OK;
}

static fl_status rewrite_build(fl_ice_txn *x, txn_op *op, txn_attempt *at, fl_error *err)
{
    fl_ice_manifest_file *old = NULL;
    uint32_t nold = 0;
    FL_TRY(parent_manifests(x, at, &old, &nold, err));
    if (!txn_branch_head(x, &at->cur))
        return FL_OK;
    bool *used = fl_arena_calloc(&at->arena, nold ? nold : 1, sizeof *used);
    fl_ice_manifest_file **g = fl_arena_alloc(&at->arena, (nold ? nold : 1) * sizeof *g);
    if (!used || !g)
        return OOM(err);
    prod_list l = {0};
    uint32_t created = 0, replaced = 0, kept = 0;
    uint64_t entries = 0;
    for (uint32_t i = 0; i < nold; i++) {
        if (used[i])
            continue;
        if (old[i].content != FL_ICE_MANIFEST_DATA) {
            used[i] = true;
            kept++;
            prod_manifest p = {.mf = old[i]};
            if (!prod_list_push(&l, &at->arena, &p))
                return OOM(err);
            continue;
        }
        uint32_t ng = 0;
        for (uint32_t j = i; j < nold; j++)
            if (!used[j] && old[j].content == FL_ICE_MANIFEST_DATA &&
                old[j].partition_spec_id == old[i].partition_spec_id) {
                used[j] = true;
                g[ng++] = &old[j];
            }
        replaced += ng;
        FL_TRY(rewrite_group(x, op, at, g, ng, &l, &created, &entries, err));
    }
    fl_ice_kv kv[4] = {
        {"manifests-created", fl_arena_sprintf(&at->arena, "%u", created)},
        {"manifests-kept", fl_arena_sprintf(&at->arena, "%u", kept)},
        {"manifests-replaced", fl_arena_sprintf(&at->arena, "%u", replaced)},
        {"entries-processed", fl_arena_sprintf(&at->arena, "%llu", (unsigned long long)entries)}};
    for (int i = 0; i < 4; i++)
        if (!kv[i].value)
            return OOM(err);
    fl_ice_map extra = {4, kv};
    prod_metrics pm = {0};
    return prod_commit_snapshot(x, at, op->snapshot_id, "replace", &l, &pm, &extra, err);
}

static const txn_op_vt REWRITE_VT = {.name = "rewrite manifests", .build = rewrite_build};

fl_status fl_ice_txn_rewrite_manifests(fl_ice_txn *x, fl_error *err)
{
    prod_state *ps = NULL;
    FL_TRY(new_producer(x, &REWRITE_VT, sizeof(prod_state), &ps, err));
    ps->operation = "replace";
    return FL_OK;
}
