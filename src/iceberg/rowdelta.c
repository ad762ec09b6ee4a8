/*
 * rowdelta.c - row-level changes: DELETE WHERE, deleting given row
 * positions, overwrite by filter, and compaction (ice_table.h, "3. writers").
 *
 * Finding rows. The current snapshot is planned with the filter and the
 * metadata columns _file/_pos (fl_ice_scan_plan_files): a data file whose
 * partition values and metrics say every row matches (fl_ice_file_match ALL)
 * and that has no delete files is removed whole, from metadata alone; the
 * other planned files are read (existing deletes applied, the filter as
 * residual) and the positions of the matching rows collected.
 *
 * Applying. write.delete.mode (write.update.mode for updates):
 *   merge-on-read (default) writes one position delete file per
 *     partition touched (delete_writer.c) and adds it;
 *   copy-on-write re-reads each partly matching file (all columns + _pos,
 *     existing deletes applied), writes the surviving rows through the data
 *     writer (default spec and sort order) and replaces the file.
 * On format v3 merge-on-read writes deletion vectors instead (dv_writer.c):
 * one Puffin file per commit, one DV per touched data file holding the
 * file's earlier deletes (its old DV and position delete files) and the new
 * ones, so there is at most one DV per data file; the old DV is replaced
 * (remove_dvs_of) and file-scoped position delete files are removed.
 * v1 has no delete files and uses copy-on-write.
 * Everything lands as one fl_ice_txn_row_delta ("delete" when nothing is
 * added, else "overwrite") with the filter as conflict filter, so
 * serializable validation sees what was read.
 *
 * fl_ice_delete_positions_append adds the caller's new files to that same
 * row delta (UPDATE/MERGE: one snapshot, as Java's RowDelta).
 *
 * Compaction (fl_ice_rewrite_data_files) reads the chosen files with their
 * deletes applied and writes them again at write.target-file-size-bytes,
 * committed as "replace". A delete file goes with the data files it
 * applied to when every one of them is rewritten (whether it names one file,
 * referenced_data_file, or covers a partition): it would no longer apply to
 * anything (the new files' sequence number is above it), and engines that
 * count or rewrite delete files (Trino's $files, Spark's rewrite procedures)
 * should not see dead ones. One still applying to a file that is not
 * rewritten stays. DVs are never removed by path (their Puffin file may
 * hold other files' DVs): they go with their data file (produce_ops.c).
 * fl_ice_rewrite_data_files_ex reports each data file rewritten (done of
 * total, rows written) to the caller's callback, so a CLI can draw a
 * progress line; the files are read one at a time on the caller's thread.
 *
 * Memory: positions are collected per file in malloc'd arrays (8 bytes per
 * deleted row); plans are freed before returning; every struct handed to
 * the transaction lives in its arena.
 */
#include <stdlib.h>
#include <string.h>

#include "floe/ice_scan.h"
#include "floe/ice_table.h"
#include "iceberg/scan_internal.h"
#include "iceberg/txn_internal.h"
#include "iceberg/write_internal.h"

typedef struct target {
    const fl_ice_data_file *file; /* in the plan's arena */
    const fl_ice_scan_task *task; /* its task (existing deletes), same plan */
    int64_t *pos;                 /* malloc, sorted at the end */
    uint64_t npos, cap;
    bool whole;
} target;

typedef struct targets {
    target *t;
    uint32_t n, cap;
} targets;

static void targets_free(targets *ts)
{
    for (uint32_t i = 0; i < ts->n; i++)
        free(ts->t[i].pos);
    free(ts->t);
    memset(ts, 0, sizeof *ts);
}

static target *targets_add(targets *ts, const fl_ice_scan_task *task, fl_error *err)
{
    if (ts->n == ts->cap) {
        uint32_t cap = ts->cap ? ts->cap * 2 : 16;
        target *n = realloc(ts->t, cap * sizeof *n);
        if (!n) {
            fl_errorf(err, FL_ENOMEM, "out of memory");
            return NULL;
        }
        ts->t = n;
        ts->cap = cap;
    }
    target *t = &ts->t[ts->n++];
    memset(t, 0, sizeof *t);
    t->file = task->file;
    t->task = task;
    return t;
}

static fl_status pos_push(target *t, int64_t p, fl_error *err)
{
    if (t->npos == t->cap) {
        uint64_t cap = t->cap ? t->cap * 2 : 256;
        int64_t *n = realloc(t->pos, cap * sizeof *n);
        if (!n)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        t->pos = n;
        t->cap = cap;
    }
    t->pos[t->npos++] = p;
    return FL_OK;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_target_path(const void *a, const void *b)
{
    return strcmp(((const target *)a)->file->file_path, ((const target *)b)->file->file_path);
}

static target *find_target(targets *ts, const char *path)
{
    size_t lo = 0, hi = ts->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(ts->t[mid].file->file_path, path);
        if (!c)
            return &ts->t[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static bool has_pos(const target *t, int64_t p)
{
    return t->npos && bsearch(&p, t->pos, t->npos, sizeof p, cmp_i64) != NULL;
}

static fl_status plan(fl_ice_txn *x, const fl_predicate *filter, bool all_columns,
                      fl_ice_scan_plan **out, fl_error *err)
{
    const fl_ice_metadata *m = fl_ice_txn_metadata(x);
    const fl_ice_schema *s = fl_ice_metadata_current_schema(m);
    if (!s)
        return fl_errorf(err, FL_ECORRUPT, "table metadata: no current schema");
    uint32_t n = all_columns ? s->schema.nfields : 0;
    int32_t *ids = malloc((n + 2) * sizeof *ids);
    if (!ids)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < n; i++)
        ids[i] = s->schema.fields[i].field_id;
    if (!all_columns)
        ids[n++] = FL_ICE_FIELD_ID_FILE_PATH;
    ids[n++] = FL_ICE_FIELD_ID_ROW_POS;
    fl_ice_scan_options opt = {
        .select = FL_ICE_SNAP_CURRENT, .field_ids = ids, .nfield_ids = n, .filter = filter};
    fl_status rc = fl_ice_scan_plan_files(x->t->io, m, &opt, out, err);
    free(ids);
    return rc;
}

/* Reads task i of p, calling fn for every live row with its _pos (last column). */
typedef fl_status (*row_fn)(void *ctx, fl_batch *b, fl_sel *live, fl_error *err);

static fl_status read_task(fl_ice_txn *x, const fl_ice_scan_plan *p, uint32_t i, row_fn fn,
                           void *ctx, fl_error *err)
{
    fl_ice_task_reader *r = NULL;
    FL_TRY(fl_ice_task_reader_open(x->t->io, p, i, &r, err));
    fl_batch b;
    fl_status rc = fl_batch_init(&b, &p->schema, err);
    if (rc != FL_OK) {
        fl_ice_task_reader_close(r);
        return rc;
    }
    fl_sel live = {0};
    live.idx = malloc(FL_BATCH_CAP * sizeof *live.idx);
    live.cap = FL_BATCH_CAP;
    if (!live.idx)
        rc = fl_errorf(err, FL_ENOMEM, "out of memory");
    while (rc == FL_OK) {
        bool eof;
        rc = fl_ice_task_reader_next(r, &b, &eof, err);
        if (rc != FL_OK || eof)
            break;
        if (b.nrows > live.cap) {
            uint32_t *n = realloc(live.idx, b.nrows * sizeof *n);
            if (!n) {
                rc = fl_errorf(err, FL_ENOMEM, "out of memory");
                break;
            }
            live.idx = n;
            live.cap = b.nrows;
        }
        live.count = fl_batch_live_rows(&b);
        for (uint32_t k = 0; k < live.count; k++)
            live.idx[k] = b.sel ? b.sel->idx[k] : k;
        rc = fn(ctx, &b, &live, err);
    }
    free(live.idx);
    fl_batch_destroy(&b);
    fl_ice_task_reader_close(r);
    if (rc != FL_OK)
        fl_error_prefix(err, "%s", p->tasks[i].file->file_path);
    return rc;
}

static fl_status collect_pos(void *ctx, fl_batch *b, fl_sel *live, fl_error *err)
{
    target *t = ctx;
    const fl_vector *pv = &b->cols[b->ncols - 1];
    for (uint32_t k = 0; k < live->count; k++) {
        fl_value v;
        ice_vector_value(pv, live->idx[k], &v);
        FL_TRY(pos_push(t, v.v.i64, err));
    }
    return FL_OK;
}

static bool no_filter(const fl_predicate *f)
{
    return !f || f->nterms == 0;
}

/* Targets of the rows matching filter; *deleted counts them. */
static fl_status collect(fl_ice_txn *x, const fl_ice_scan_plan *p, const fl_predicate *filter,
                         targets *ts, int64_t *deleted, fl_error *err)
{
    const fl_ice_metadata *m = fl_ice_txn_metadata(x);
    for (uint32_t i = 0; i < p->ntasks; i++) {
        const fl_ice_scan_task *task = &p->tasks[i];
        bool whole = no_filter(filter) ||
                     (task->ndeletes == 0 && fl_ice_file_match(m, p->table_schema, filter,
                                                               task->file) == FL_ICE_MATCH_ALL);
        target *t = targets_add(ts, task, err);
        if (!t)
            return FL_ENOMEM;
        if (whole && task->ndeletes == 0) {
            t->whole = true;
            *deleted += task->file->record_count;
            continue;
        }
        FL_TRY(read_task(x, p, i, collect_pos, t, err));
        *deleted += (int64_t)t->npos;
        if (whole)
            t->whole = true;
        else if (!t->npos)
            ts->n--; /* nothing to delete in this file */
    }
    for (uint32_t i = 0; i < ts->n; i++)
        if (ts->t[i].npos > 1)
            qsort(ts->t[i].pos, ts->t[i].npos, sizeof(int64_t), cmp_i64);
    if (ts->n > 1)
        qsort(ts->t, ts->n, sizeof *ts->t, cmp_target_path);
    return FL_OK;
}

/* ---- applying ---- */

typedef struct delta {
    const char **remove_data;
    uint32_t nremove_data;
    fl_ice_data_file *add_data;
    uint32_t nadd_data;
    fl_ice_data_file *add_deletes;
    uint32_t nadd_deletes;
    const char **remove_deletes;
    uint32_t nremove_deletes;
    const char **dvs_of; /* data files whose old DV is replaced */
    uint32_t ndvs_of;
} delta;

static bool same_partition(const fl_ice_data_file *a, const fl_ice_data_file *b)
{
    if (a->spec_id != b->spec_id || a->npartition != b->npartition)
        return false;
    for (uint32_t i = 0; i < a->npartition; i++) {
        const fl_value *x = &a->partition[i], *y = &b->partition[i];
        if (x->is_null != y->is_null)
            return false;
        if (!x->is_null && (x->type.id != y->type.id || fl_value_compare(x, y) != 0))
            return false;
    }
    return true;
}

static fl_status merge_on_read(fl_ice_txn *x, targets *ts, delta *d, fl_error *err)
{
    fl_arena *a = fl_ice_txn_arena(x);
    const fl_ice_metadata *m = fl_ice_txn_metadata(x);
    d->add_deletes = fl_arena_calloc(a, ts->n + 1, sizeof *d->add_deletes);
    fl_ice_file_positions *fp = malloc((ts->n + 1) * sizeof *fp);
    bool *done = calloc(ts->n + 1, 1);
    fl_status rc =
        d->add_deletes && fp && done ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < ts->n && rc == FL_OK; i++) {
        if (ts->t[i].whole || done[i])
            continue;
        uint32_t n = 0;
        for (uint32_t k = i; k < ts->n; k++)
            if (!ts->t[k].whole && !done[k] && same_partition(ts->t[i].file, ts->t[k].file)) {
                done[k] = true;
                fp[n++] =
                    (fl_ice_file_positions){ts->t[k].file->file_path, ts->t[k].pos, ts->t[k].npos};
            }
        fl_ice_data_file *df = &d->add_deletes[d->nadd_deletes];
        rc = ice_write_position_deletes(x->t->io, m, ts->t[i].file->spec_id,
                                        ts->t[i].file->partition, ts->t[i].file->npartition, fp, n,
                                        fl_ice_metrics_from_parquet, a, df, err);
        if (rc == FL_OK) {
            d->nadd_deletes++;
            rc = fl_ice_txn_own_file(x, df->file_path, err);
        }
    }
    free(fp);
    free(done);
    return rc;
}

/* The full deleted set of target t: its earlier deletes and the new ones. */
static fl_status full_set(fl_ice_txn *x, const target *t, fl_ice_position_set *out, fl_error *err)
{
    fl_ice_position_set old = {0}, add = {0};
    FL_TRY(ice_task_deleted_positions(x->t->io, t->task, false, &old, err));
    uint64_t *pos = malloc((t->npos + 1) * sizeof *pos);
    fl_status rc = pos ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint64_t i = 0; i < t->npos && rc == FL_OK; i++) {
        if (t->pos[i] < 0)
            rc = fl_errorf(err, FL_EINVAL, "%s: negative position %lld", t->file->file_path,
                           (long long)t->pos[i]);
        else
            pos[i] = (uint64_t)t->pos[i];
    }
    if (rc == FL_OK)
        rc = ice_pos_from_array(pos, t->npos, &add, err);
    if (rc == FL_OK)
        rc = ice_pos_union(&old, &add, out, err);
    free(pos);
    fl_ice_position_set_free(&old);
    fl_ice_position_set_free(&add);
    return rc;
}

/* Earlier deletes of t that its new DV replaces: its DV (by data file) and
 * position delete files scoped to it alone (by path). */
static fl_status replaced_deletes(fl_arena *a, const target *t, delta *d, fl_error *err)
{
    for (uint32_t k = 0; k < t->task->ndeletes; k++) {
        const fl_ice_data_file *df = t->task->deletes[k];
        if (df->content != FL_ICE_CONTENT_POSITION_DELETES || !df->referenced_data_file ||
            strcmp(df->referenced_data_file, t->file->file_path) != 0)
            continue;
        bool dv = df->has_content_offset;
        const char *p = fl_arena_strdup(a, dv ? t->file->file_path : df->file_path);
        if (!p)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        if (dv)
            d->dvs_of[d->ndvs_of++] = p;
        else
            d->remove_deletes[d->nremove_deletes++] = p;
    }
    return FL_OK;
}

static fl_status write_dvs(fl_ice_txn *x, targets *ts, delta *d, fl_error *err)
{
    fl_arena *a = fl_ice_txn_arena(x);
    uint32_t n = 0, ndel = 0;
    for (uint32_t i = 0; i < ts->n; i++)
        if (!ts->t[i].whole) {
            n++;
            ndel += ts->t[i].task->ndeletes;
        }
    if (!n)
        return FL_OK;
    fl_ice_position_set *sets = calloc(n, sizeof *sets);
    ice_dv_input *in = calloc(n, sizeof *in);
    d->add_deletes = fl_arena_calloc(a, n, sizeof *d->add_deletes);
    d->remove_deletes = fl_arena_calloc(a, ndel + 1, sizeof *d->remove_deletes);
    d->dvs_of = fl_arena_calloc(a, ndel + 1, sizeof *d->dvs_of);
    fl_status rc = sets && in && d->add_deletes && d->remove_deletes && d->dvs_of
                       ? FL_OK
                       : fl_errorf(err, FL_ENOMEM, "out of memory");
    uint32_t k = 0;
    for (uint32_t i = 0; i < ts->n && rc == FL_OK; i++) {
        if (ts->t[i].whole)
            continue;
        rc = full_set(x, &ts->t[i], &sets[k], err);
        if (rc == FL_OK)
            rc = replaced_deletes(a, &ts->t[i], d, err);
        in[k] = (ice_dv_input){ts->t[i].file, &sets[k]};
        k++;
    }
    if (rc == FL_OK)
        rc = ice_write_dvs(x->t->io, fl_ice_txn_metadata(x), in, n, a, d->add_deletes, err);
    if (rc == FL_OK) {
        d->nadd_deletes = n;
        rc = fl_ice_txn_own_file(x, d->add_deletes[0].file_path, err);
    }
    for (uint32_t i = 0; sets && i < n; i++)
        fl_ice_position_set_free(&sets[i]);
    free(sets);
    free(in);
    return rc;
}

typedef struct cow_ctx {
    fl_ice_data_writer *w;
    const target *t;
    uint32_t ncols;
    uint64_t rows; /* rows written (compaction's progress) */
} cow_ctx;

static fl_status cow_rows(void *vctx, fl_batch *b, fl_sel *live, fl_error *err)
{
    cow_ctx *c = vctx;
    const fl_vector *pv = &b->cols[b->ncols - 1];
    uint32_t keep = 0;
    for (uint32_t k = 0; k < live->count; k++) {
        fl_value v;
        ice_vector_value(pv, live->idx[k], &v);
        if (!c->t || !has_pos(c->t, v.v.i64))
            live->idx[keep++] = live->idx[k];
    }
    live->count = keep;
    c->rows += keep;
    fl_batch view = *b;
    view.ncols = c->ncols;
    view.sel = live;
    return fl_ice_data_writer_write(c->w, &view, err);
}

/* Compaction's reports to its caller (fl_ice_rewrite_options.progress). */
typedef struct rewrite_report {
    const fl_ice_rewrite_options *opt; /* NULL: nobody listens (copy-on-write) */
    fl_ice_rewrite_progress state;
} rewrite_report;

static void report(const rewrite_report *r)
{
    if (r && r->opt && r->opt->progress)
        r->opt->progress(r->opt->progress_ctx, &r->state);
}

/* Rewrites the tasks of p chosen by `pick` (targets: rows minus positions),
 * reporting each file done to rep (NULL = no reports). */
static fl_status rewrite(fl_ice_txn *x, const fl_ice_scan_plan *p, targets *ts, const bool *pick,
                         rewrite_report *rep, fl_ice_data_file **files, uint32_t *nfiles,
                         fl_error *err)
{
    fl_ice_data_writer *w = NULL;
    FL_TRY(fl_ice_data_writer_open(x, &w, err));
    fl_status rc = FL_OK;
    report(rep);
    for (uint32_t i = 0; i < p->ntasks && rc == FL_OK; i++) {
        cow_ctx c = {w, NULL, p->schema.nfields - 1, 0};
        if (ts) {
            target *t = find_target(ts, p->tasks[i].file->file_path);
            if (!t || t->whole)
                continue;
            c.t = t;
        } else if (!pick[i])
            continue;
        rc = read_task(x, p, i, cow_rows, &c, err);
        if (rc == FL_OK && rep) {
            rep->state.files_done++;
            rep->state.rows_written += c.rows;
            report(rep);
        }
    }
    if (rc != FL_OK) {
        fl_ice_data_writer_abort(w);
        return rc;
    }
    return fl_ice_data_writer_close(w, files, nfiles, err);
}

static fl_status copy_on_write(fl_ice_txn *x, targets *ts, delta *d, fl_error *err)
{
    bool any = false;
    for (uint32_t i = 0; i < ts->n; i++)
        any |= !ts->t[i].whole;
    if (!any)
        return FL_OK;
    fl_ice_scan_plan *p = NULL;
    FL_TRY(plan(x, NULL, true, &p, err));
    fl_status rc = rewrite(x, p, ts, NULL, NULL, &d->add_data, &d->nadd_data, err);
    fl_ice_scan_plan_free(p);
    return rc;
}

static bool use_merge_on_read(const fl_ice_metadata *m, bool for_update)
{
    if (m->format_version < 2)
        return false; /* v1: no delete files */
    const char *mode =
        fl_ice_map_get(&m->properties, for_update ? "write.update.mode" : "write.delete.mode");
    return !mode || strcmp(mode, "copy-on-write") != 0;
}

static fl_status apply(fl_ice_txn *x, targets *ts, const fl_ice_data_file *adds, uint32_t nadds,
                       const fl_predicate *filter, bool for_update, bool overwrite, fl_error *err)
{
    fl_arena *a = fl_ice_txn_arena(x);
    const fl_ice_metadata *m = fl_ice_txn_metadata(x);
    delta d = {0};
    bool mor = use_merge_on_read(m, for_update);
    d.remove_data = fl_arena_calloc(a, ts->n + 1, sizeof *d.remove_data);
    if (!d.remove_data)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < ts->n; i++)
        if (ts->t[i].whole || !mor)
            if (!(d.remove_data[d.nremove_data++] = fl_arena_strdup(a, ts->t[i].file->file_path)))
                return fl_errorf(err, FL_ENOMEM, "out of memory");
    if (mor && m->format_version >= 3)
        FL_TRY(write_dvs(x, ts, &d, err));
    else
        FL_TRY(mor ? merge_on_read(x, ts, &d, err) : copy_on_write(x, ts, &d, err));
    uint32_t nall = d.nadd_data + nadds;
    fl_ice_data_file *all = fl_arena_calloc(a, nall + 1, sizeof *all);
    if (!all)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    if (d.nadd_data)
        memcpy(all, d.add_data, d.nadd_data * sizeof *all);
    if (nadds)
        memcpy(all + d.nadd_data, adds, nadds * sizeof *all);
    if (!nall && !d.nremove_data && !d.nadd_deletes)
        return FL_OK; /* nothing matched and nothing to add: no snapshot */
    fl_ice_row_delta rd = {.operation = (nall || overwrite) ? "overwrite" : "delete",
                           .add_data = all,
                           .nadd_data = nall,
                           .add_deletes = d.add_deletes,
                           .nadd_deletes = d.nadd_deletes,
                           .remove_data = d.remove_data,
                           .nremove_data = d.nremove_data,
                           .remove_deletes = d.remove_deletes,
                           .nremove_deletes = d.nremove_deletes,
                           .remove_dvs_of = d.dvs_of,
                           .nremove_dvs_of = d.ndvs_of,
                           .conflict_filter = filter};
    return fl_ice_txn_row_delta(x, &rd, err);
}

static fl_status delete_where(fl_ice_txn *x, const fl_predicate *filter,
                              const fl_ice_data_file *adds, uint32_t nadds, bool overwrite,
                              int64_t *deleted, fl_error *err)
{
    int64_t dummy;
    if (!deleted)
        deleted = &dummy;
    *deleted = 0;
    const fl_ice_metadata *m = fl_ice_txn_metadata(x);
    targets ts = {0};
    fl_ice_scan_plan *p = NULL;
    fl_status rc = FL_OK;
    if (fl_ice_metadata_current_snapshot(m)) {
        rc = plan(x, filter, false, &p, err);
        if (rc == FL_OK)
            rc = collect(x, p, filter, &ts, deleted, err);
    }
    if (rc == FL_OK)
        rc = apply(x, &ts, adds, nadds, filter, false, overwrite, err);
    targets_free(&ts);
    fl_ice_scan_plan_free(p);
    return rc;
}

fl_status fl_ice_delete_where(fl_ice_txn *x, const fl_predicate *filter, int64_t *deleted,
                              fl_error *err)
{
    return delete_where(x, filter, NULL, 0, false, deleted, err);
}

fl_status fl_ice_overwrite_where(fl_ice_txn *x, const fl_predicate *filter,
                                 const fl_ice_data_file *files, uint32_t n, fl_error *err)
{
    return delete_where(x, filter, files, n, true, NULL, err);
}

static fl_status delete_positions(fl_ice_txn *x, const fl_ice_file_positions *d, uint32_t n,
                                  bool for_update, const fl_ice_data_file *adds, uint32_t nadds,
                                  fl_error *err)
{
    fl_ice_scan_plan *p = NULL;
    FL_TRY(plan(x, NULL, false, &p, err));
    targets ts = {0};
    fl_status rc = FL_OK;
    for (uint32_t i = 0; i < n && rc == FL_OK; i++) {
        const fl_ice_scan_task *f = NULL;
        for (uint32_t k = 0; k < p->ntasks && !f; k++)
            if (!strcmp(p->tasks[k].file->file_path, d[i].file_path))
                f = &p->tasks[k];
        if (!f) {
            rc = fl_errorf(err, FL_ENOTFOUND,
                           "delete positions: %s is not a data file of the "
                           "current snapshot",
                           d[i].file_path);
            break;
        }
        target *t = targets_add(&ts, f, err);
        if (!t) {
            rc = FL_ENOMEM;
            break;
        }
        for (uint64_t k = 0; k < d[i].npositions && rc == FL_OK; k++)
            rc = pos_push(t, d[i].positions[k], err);
        if (rc == FL_OK && t->npos > 1)
            qsort(t->pos, t->npos, sizeof(int64_t), cmp_i64);
    }
    if (rc == FL_OK) {
        if (ts.n > 1)
            qsort(ts.t, ts.n, sizeof *ts.t, cmp_target_path);
        for (uint32_t i = 1; i < ts.n && rc == FL_OK; i++)
            if (!strcmp(ts.t[i].file->file_path, ts.t[i - 1].file->file_path))
                rc = fl_errorf(err, FL_EINVAL, "delete positions: %s given twice",
                               ts.t[i].file->file_path);
    }
    if (rc == FL_OK)
        rc = apply(x, &ts, adds, nadds, NULL, for_update, false, err);
    targets_free(&ts);
    fl_ice_scan_plan_free(p);
    return rc;
}

fl_status fl_ice_delete_positions(fl_ice_txn *x, const fl_ice_file_positions *d, uint32_t n,
                                  bool for_update, fl_error *err)
{
    return n ? delete_positions(x, d, n, for_update, NULL, 0, err) : FL_OK;
}

fl_status fl_ice_delete_positions_append(fl_ice_txn *x, const fl_ice_file_positions *d, uint32_t n,
                                         bool for_update, const fl_ice_data_file *files,
                                         uint32_t nfiles, fl_error *err)
{
    if (!n)
        return nfiles ? fl_ice_txn_append(x, files, nfiles, err) : FL_OK;
    return delete_positions(x, d, n, for_update, files, nfiles, err);
}

static int cmp_path(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* paths[0..n) = the delete files of the picked tasks, with repeats: sorts
 * them and keeps each once, as an arena copy, when no task left out of the
 * rewrite uses it; *kept_out = how many are kept. */
static fl_status dead_deletes(const fl_ice_scan_plan *p, const bool *pick, const char **paths,
                              uint32_t n, fl_arena *a, uint32_t *kept_out, fl_error *err)
{
    uint32_t nlive = 0;
    for (uint32_t t = 0; t < p->ntasks; t++)
        nlive += pick[t] ? 0 : p->tasks[t].ndeletes;
    const char **live = nlive ? malloc(nlive * sizeof *live) : NULL;
    if (nlive && !live)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    nlive = 0;
    for (uint32_t t = 0; t < p->ntasks; t++)
        for (uint32_t k = 0; !pick[t] && k < p->tasks[t].ndeletes; k++)
            live[nlive++] = p->tasks[t].deletes[k]->file_path;
    if (nlive > 1)
        qsort(live, nlive, sizeof *live, cmp_path);
    if (n > 1)
        qsort(paths, n, sizeof *paths, cmp_path);
    uint32_t kept = 0;
    const char *prev = NULL;
    fl_status rc = FL_OK;
    for (uint32_t i = 0; i < n && rc == FL_OK; i++) {
        const char *path = paths[i];
        if (prev && !strcmp(prev, path))
            continue;
        prev = path;
        if (nlive && bsearch(&path, live, nlive, sizeof *live, cmp_path))
            continue;
        if (!(paths[kept++] = fl_arena_strdup(a, path)))
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    free(live);
    *kept_out = kept;
    return rc;
}

fl_status fl_ice_rewrite_data_files(fl_ice_txn *x, bool force, uint64_t *rewritten, uint64_t *added,
                                    fl_error *err)
{
    fl_ice_rewrite_options o = {.force = force};
    return fl_ice_rewrite_data_files_ex(x, &o, rewritten, added, err);
}

fl_status fl_ice_rewrite_data_files_ex(fl_ice_txn *x, const fl_ice_rewrite_options *opt,
                                       uint64_t *rewritten, uint64_t *added, fl_error *err)
{
    *rewritten = *added = 0;
    bool force = opt && opt->force;
    const fl_ice_metadata *m = fl_ice_txn_metadata(x);
    if (!fl_ice_metadata_current_snapshot(m))
        return FL_OK;
    int64_t target = ice_prop_i64(m, "write.target-file-size-bytes", 512ll << 20);
    int64_t min_size = ice_prop_i64(m, "min-file-size-bytes", target / 4 * 3);
    fl_ice_scan_plan *p = NULL;
    FL_TRY(plan(x, NULL, true, &p, err));
    bool *pick = calloc(p->ntasks + 1, 1);
    fl_status rc = pick ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
    uint32_t npick = 0, nwith_deletes = 0;
    for (uint32_t i = 0; i < p->ntasks && rc == FL_OK; i++) {
        const fl_ice_scan_task *t = &p->tasks[i];
        if (force || t->ndeletes || t->file->file_size_in_bytes < min_size) {
            pick[i] = true;
            npick++;
            nwith_deletes += t->ndeletes > 0;
        }
    }
    if (rc == FL_OK && (npick >= 2 || nwith_deletes || (force && npick))) {
        fl_arena *a = fl_ice_txn_arena(x);
        fl_ice_row_delta rd = {.operation = "replace"};
        const char **rm = fl_arena_calloc(a, npick + 1, sizeof *rm);
        uint32_t ndel = 0;
        for (uint32_t i = 0; i < p->ntasks; i++)
            if (pick[i])
                ndel += p->tasks[i].ndeletes;
        const char **rmd = fl_arena_calloc(a, ndel + 1, sizeof *rmd);
        if (!rm || !rmd)
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
        for (uint32_t i = 0; i < p->ntasks && rc == FL_OK; i++) {
            if (!pick[i])
                continue;
            const fl_ice_scan_task *t = &p->tasks[i];
            rm[rd.nremove_data++] = fl_arena_strdup(a, t->file->file_path);
            for (uint32_t k = 0; k < t->ndeletes; k++)
                if (!t->deletes[k]->has_content_offset) /* DVs go with the data file */
                    rmd[rd.nremove_deletes++] = t->deletes[k]->file_path;
        }
        if (rc == FL_OK)
            rc = dead_deletes(p, pick, rmd, rd.nremove_deletes, a, &rd.nremove_deletes, err);
        fl_ice_data_file *files = NULL;
        uint32_t nfiles = 0;
        rewrite_report rep = {.opt = opt, .state = {.files_total = npick}};
        if (rc == FL_OK)
            rc = rewrite(x, p, NULL, pick, &rep, &files, &nfiles, err);
        if (rc == FL_OK) {
            rd.remove_data = rm;
            rd.remove_deletes = rmd;
            rd.add_data = files;
            rd.nadd_data = nfiles;
            rc = fl_ice_txn_row_delta(x, &rd, err);
        }
        if (rc == FL_OK) {
            *rewritten = npick;
            *added = nfiles;
        }
    }
    free(pick);
    fl_ice_scan_plan_free(p);
    return rc;
}
