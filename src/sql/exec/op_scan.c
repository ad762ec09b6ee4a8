/*
 * op_scan.c - SCAN for every source kind (plan.h fl_scan_kind).
 *
 * Morsels (claimed through one atomic cursor per scan node):
 *   ICEBERG       one scan task (a data file with its deletes) from
 *                 fl_ice_scan_plan_files, planned at prepare with the prune
 *                 predicate (partition + metrics pruning); when there are
 *                 fewer tasks than ICE_SPLIT_PER_THREAD x threads, one row
 *                 group of a task (split planning, iceberg/scan_task.h: the
 *                 footers are read at prepare through the shared cache), and
 *                 with fewer row groups than that, one row range of a row
 *                 group (>= ICE_SPLIT_MIN_ROWS rows; the offset index lets
 *                 each range skip the pages of the others unread), so a
 *                 table written as one big file of 128 MiB row groups still
 *                 spreads over the threads. A thread keeps its task reader (file, footer,
 *                 decoded deletes) while consecutive morsels it claims
 *                 belong to the same task and only seeks to the next slice;
 *   PARQUET       one row group when there are few files (so a single big
 *                 file still spreads over the threads), else one file; the
 *                 Parquet reader prunes row groups and pages with the
 *                 predicate and filters rows (late materialization);
 *   CSV, JSON     one file (src/text readers);
 *   ORC           one stripe when there are few files, else one file (src/orc;
 *                 the projected top-level columns only; stripes pruned by their
 *                 statistics, counted as row groups);
 *   ICEBERG_META  the whole metadata table (one morsel);
 *   ROWS          one in-memory batch.
 * Each thread keeps its reader for the morsel it works on; a Parquet thread
 * keeps the last file open, so consecutive row groups of a file reuse its
 * footer. The exact filter runs on every batch (it only narrows the
 * selection). A scan with a row limit stops claiming morsels once that many
 * rows came out. Counters (files, row groups, pages, bytes, rows, time) go
 * to plan->stats. Pruning uses the plan's prune terms plus, at prepare, the
 * filter's `column op $n` comparisons with the statement's parameter values
 * (prune_params.c), so prepared point queries prune like literal ones.
 *
 * Progress (exec.h fl_exec_progress, the session's counters): a file scan
 * adds its files at prepare (the tasks left after pruning for ICEBERG), the
 * rows of every source batch it reads, the bytes its readers report, and a
 * file as done when the last of its morsels reached its end: a file split
 * into row groups is read by several threads, so each file keeps an atomic
 * count of its morsels still to finish (morsels_left).
 */
#include <stdlib.h>
#include <string.h>

#include "floe/ice_scan.h"
#include "floe/orc.h"
#include "floe/parquet.h"
#include "floe/text.h"
#include "sql/session/cache.h"
#include "sql/exec/exec_internal.h"
#include "sql/plan/prune_params.h"

typedef struct pq_morsel {
    uint32_t file;
    int32_t rg; /* -1 = every row group of the file */
} pq_morsel;

/* An Iceberg morsel: a slice of a task (row groups, or rows of one row
 * group). */
typedef struct ice_morsel {
    uint32_t task;
    fl_ice_slice slice;
} ice_morsel;

/* Split tasks into row groups while tasks < this many per thread, and row
 * groups into row ranges while there are still fewer morsels. */
#define ICE_SPLIT_PER_THREAD 4
/* A row range of a split row group has at least this many rows: each range
 * opens every projected column (dictionary, first page) again. */
#define ICE_SPLIT_MIN_ROWS 131072

typedef struct scan_state {
    fl_fileio *io;
    bool own_io;
    fl_ice_scan_plan *ice;
    ice_morsel *im; /* ICEBERG morsels */
    pq_morsel *pq;
    uint32_t npq;
    uint32_t nmorsels;
    atomic_uint next;
    atomic_llong produced;
    const char **names; /* PARQUET projection by name */
    fl_arena arena;     /* prune: parameter terms */
    fl_predicate prune; /* plan's prune terms + `column op $n` ones (prune_params.c) */
    fl_exec_progress *progress; /* the statement's counters, NULL = not counted */
    atomic_uint *morsels_left;  /* per file (ICEBERG: per task): morsels not yet read out */
} scan_state;

static uint32_t proj_count(const fl_plan_scan *s, const fl_schema *full)
{
    return s->ncolumns ? s->ncolumns : (full ? full->nfields : 0);
}

/* ORC morsels: one stripe each when there are few files (so one big file
 * spreads over the threads; each morsel reopens the file's tail), else one
 * file each (pq_morsel with rg = -1). */
static fl_status plan_orc_morsels(scan_state *st, const fl_plan_scan *s, uint32_t threads,
                                  fl_error *err)
{
    bool split = s->nfiles < 2 * threads && threads > 1;
    uint32_t cap = s->nfiles, cnt = 0;
    st->pq = calloc(cap ? cap : 1, sizeof *st->pq);
    if (!st->pq)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t f = 0; f < s->nfiles; f++) {
        uint32_t ns = 1;
        if (split) {
            fl_file *fh = NULL;
            fl_orc_reader *r = NULL;
            fl_status rc = fl_fileio_open(st->io, s->files[f], &fh, err);
            if (rc != FL_OK)
                return fl_error_prefix(err, "%s", s->files[f]);
            rc = fl_orc_open(fh, &r, err);
            ns = rc == FL_OK ? fl_orc_num_stripes(r) : 0;
            fl_orc_close(r);
            fl_file_close(fh);
            FL_TRY(rc);
        }
        if (cnt + ns > cap) {
            cap = (cnt + ns) * 2;
            pq_morsel *np = realloc(st->pq, cap * sizeof *np);
            if (!np)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            st->pq = np;
        }
        for (uint32_t k = 0; k < ns; k++)
            st->pq[cnt++] = (pq_morsel){f, split ? (int32_t)k : -1};
    }
    st->npq = st->nmorsels = cnt;
    return FL_OK;
}

/* Opens a Parquet file; its footer comes from the session's read cache when
 * io carries one (*footer then holds the entry: pq_close_file releases it). */
static fl_status pq_open_file(fl_fileio *io, const char *path, fl_file **f, fl_parquet_reader **r,
                              fl_ice_cache_entry **footer, fl_error *err)
{
    FL_TRY(fl_fileio_open(io, path, f, err));
    fl_status rc = fl_ice_cache_open_parquet(fl_sql_cache_of_io(io), *f, footer, r, err);
    if (rc) {
        fl_file_close(*f);
        *f = NULL;
    }
    return rc;
}

static void pq_close_file(fl_fileio *io, fl_file *f, fl_parquet_reader *r, fl_ice_cache_entry *footer)
{
    fl_parquet_close(r);
    fl_ice_cache_release(footer, fl_sql_cache_of_io(io));
    fl_file_close(f);
}

static fl_status push_ice_morsel(scan_state *st, uint32_t *cap, ice_morsel m, fl_error *err)
{
    if (st->nmorsels == *cap) {
        FL_CHECK(*cap < UINT32_MAX / 4, err, FL_EINVAL, "too many row groups to plan");
        uint32_t nc = *cap ? *cap * 2 : 16;
        ice_morsel *m2 = realloc(st->im, nc * sizeof *m2);
        if (!m2)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        st->im = m2;
        *cap = nc;
    }
    st->im[st->nmorsels++] = m;
    return FL_OK;
}

/* The morsels of task t's row groups, split into `pieces` row ranges each
 * where the row group has an offset index and rows enough. */
static fl_status split_task(scan_state *st, uint32_t t, uint32_t nrg, const int64_t *rows,
                            uint32_t pieces, uint32_t *cap, fl_error *err)
{
    for (uint32_t g = 0; g < nrg; g++) {
        int64_t n = rows ? rows[g] : 0;
        uint32_t k = pieces;
        if (n / ICE_SPLIT_MIN_ROWS < k)
            k = (uint32_t)(n / ICE_SPLIT_MIN_ROWS);
        if (k < 2) { /* one row group: the whole file (also an ORC file's stripes) */
            fl_ice_slice whole = nrg == 1 ? (fl_ice_slice){0, 0, 0, 0} : (fl_ice_slice){g, 1, 0, 0};
            FL_TRY(push_ice_morsel(st, cap, (ice_morsel){t, whole}, err));
            continue;
        }
        for (uint32_t i = 0; i < k; i++) {
            int64_t lo = n * i / k, hi = n * (i + 1) / k;
            FL_TRY(push_ice_morsel(st, cap, (ice_morsel){t, {g, 1, lo, hi}}, err));
        }
    }
    return FL_OK;
}

/* One morsel per task, or with few tasks and several threads one per row
 * group, and with few row groups one per row range of a row group, so that
 * one big file (floe load, Spark and Trino write 128 MiB row groups) keeps
 * every thread busy. The footer of each file is read here, through the
 * shared cache, and reused by the task readers. */
static fl_status plan_ice_morsels(scan_state *st, uint32_t threads, fl_error *err)
{
    const fl_ice_scan_plan *p = st->ice;
    uint32_t want = threads * ICE_SPLIT_PER_THREAD;
    bool split = threads > 1 && p->ntasks < want;
    uint32_t cap = 0;
    st->nmorsels = 0;
    if (!split) {
        for (uint32_t t = 0; t < p->ntasks; t++)
            FL_TRY(push_ice_morsel(st, &cap, (ice_morsel){t, {0, 0, 0, 0}}, err));
        return FL_OK;
    }
    uint32_t *nrg = calloc(p->ntasks + 1, sizeof *nrg);
    int64_t **rows = calloc(p->ntasks + 1, sizeof *rows);
    fl_status rc = nrg && rows ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
    uint64_t total = 0;
    for (uint32_t t = 0; t < p->ntasks && rc == FL_OK; t++) {
        /* one footer read per task unless the file has more row groups than guessed */
        uint32_t cap = 64;
        for (int pass = 0; pass < 2 && rc == FL_OK; pass++) {
            free(rows[t]);
            if (!(rows[t] = calloc(cap, sizeof **rows)))
                rc = fl_errorf(err, FL_ENOMEM, "out of memory");
            if (rc == FL_OK)
                rc = fl_ice_task_row_groups(st->io, p, t, &nrg[t], rows[t], cap, err);
            if (rc != FL_OK || nrg[t] <= cap)
                break;
            cap = nrg[t];
        }
        total += nrg[t] ? nrg[t] : 1;
    }
    uint32_t pieces = total && total < want ? (uint32_t)((want + total - 1) / total) : 1;
    for (uint32_t t = 0; t < p->ntasks && rc == FL_OK; t++) {
        if (nrg[t] == 0) /* a file without row groups: one (empty) morsel */
            rc = push_ice_morsel(st, &cap, (ice_morsel){t, {0, 0, 0, 0}}, err);
        else if (nrg[t] == 1 && pieces == 1)
            rc = push_ice_morsel(st, &cap, (ice_morsel){t, {0, 0, 0, 0}}, err);
        else
            rc = split_task(st, t, nrg[t], rows[t], pieces, &cap, err);
    }
    for (uint32_t t = 0; rows && t < p->ntasks; t++)
        free(rows[t]);
    free(rows);
    free(nrg);
    return rc;
}

/* ---- progress ---- */

static bool is_file_scan(fl_scan_kind k)
{
    return k == FL_SCAN_ICEBERG || k == FL_SCAN_PARQUET || k == FL_SCAN_ORC || k == FL_SCAN_CSV ||
           k == FL_SCAN_JSON;
}

/* The file (ICEBERG: task) morsel m reads. */
static uint32_t morsel_file(const scan_state *st, fl_scan_kind k, uint32_t m)
{
    switch (k) {
    case FL_SCAN_ICEBERG: return st->im[m].task;
    case FL_SCAN_PARQUET:
    case FL_SCAN_ORC: return st->pq[m].file;
    default: return m; /* CSV, JSON: one morsel per file */
    }
}

/* Counts the scan's files into the statement's progress once its morsels
 * are planned; a file without morsels (no row groups) is done already. */
static fl_status progress_plan(scan_state *st, const fl_plan_scan *s, fl_error *err)
{
    if (!st->progress || !is_file_scan(s->kind))
        return FL_OK;
    uint32_t nfiles = s->kind == FL_SCAN_ICEBERG ? (st->ice ? st->ice->ntasks : 0) : s->nfiles;
    st->morsels_left = calloc(nfiles ? nfiles : 1, sizeof *st->morsels_left);
    if (!st->morsels_left)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t m = 0; m < st->nmorsels; m++)
        atomic_fetch_add(&st->morsels_left[morsel_file(st, s->kind, m)], 1);
    uint64_t empty = 0;
    for (uint32_t f = 0; f < nfiles; f++)
        empty += atomic_load(&st->morsels_left[f]) == 0;
    atomic_fetch_add(&st->progress->files_total, nfiles);
    atomic_fetch_add(&st->progress->files_done, empty);
    return FL_OK;
}

static void progress_bytes(const scan_state *st, uint64_t bytes)
{
    if (st->progress && bytes)
        atomic_fetch_add(&st->progress->bytes_read, bytes);
}

static void progress_rows(const scan_state *st, const fl_batch *b)
{
    if (st->progress)
        atomic_fetch_add(&st->progress->rows_scanned, fl_batch_live_rows(b));
}

static fl_status scan_prepare(ex_node *n, fl_error *err)
{
    scan_state *st = n->state;
    const fl_plan_scan *s = &n->p->u.scan;
    fl_plan_stats *ps = &n->p->stats;
    int64_t t0 = ex_now_ns();
    st->prune = fl_prune_with_params(&st->arena, n->p, &n->x->env);
    switch (s->kind) {
    case FL_SCAN_ICEBERG: {
        if (!s->meta)
            return fl_errorf(err, FL_EINVAL, "%s: Iceberg scan without table metadata",
                             s->name ? s->name : "scan");
        ps->snapshot_id_read = s->snapshot_id;
        if (s->snapshot_id == FL_ICE_NO_SNAPSHOT) {
            st->nmorsels = 0;
            break;
        }
        fl_ice_scan_options o = {.select = FL_ICE_SNAP_ID,
                                 .snapshot_id = s->snapshot_id,
                                 .has_schema_id = true,
                                 .schema_id = s->schema_id,
                                 .field_ids = s->columns,
                                 .nfield_ids = s->ncolumns,
                                 .filter = st->prune.nterms ? &st->prune : NULL,
                                 .cache = fl_sql_cache_of_io(st->io),
                                 .prune_nested = true}; /* s->filter has the rows */
        fl_status rc = fl_ice_scan_plan_files(st->io, s->meta, &o, &st->ice, err);
        if (rc)
            return fl_error_prefix(err, "%s", s->name ? s->name : "scan");
        FL_TRY(plan_ice_morsels(st, n->x->threads, err));
        const fl_ice_scan_metrics *m = &st->ice->metrics;
        atomic_fetch_add(&ps->files_total, (long long)m->files_total);
        atomic_fetch_add(&ps->files_pruned,
                         (long long)(m->files_pruned_partition + m->files_pruned_metrics));
        atomic_fetch_add(&ps->files_pruned_partition, (long long)m->files_pruned_partition);
        atomic_fetch_add(&ps->files_pruned_metrics, (long long)m->files_pruned_metrics);
        break;
    }
    case FL_SCAN_PARQUET: {
        const fl_schema *fs = s->file_schema;
        uint32_t np = proj_count(s, fs);
        if (np && !fs)
            return fl_errorf(err, FL_EINVAL, "%s: Parquet scan without a file schema",
                             s->name ? s->name : "scan");
        st->names = calloc(np ? np : 1, sizeof *st->names);
        if (!st->names)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (uint32_t i = 0; i < np; i++) {
            uint32_t c = s->ncolumns ? (uint32_t)s->columns[i] : i;
            if (c >= fs->nfields)
                return fl_errorf(err, FL_EINVAL, "%s: projected column %u out of range",
                                 s->name ? s->name : "scan", c);
            st->names[i] = fs->fields[c].name;
        }
        atomic_fetch_add(&ps->files_total, (long long)s->nfiles);
        bool split = s->nfiles < 2 * n->x->threads && n->x->threads > 1;
        uint32_t cap = s->nfiles, cnt = 0;
        st->pq = calloc(cap ? cap : 1, sizeof *st->pq);
        if (!st->pq)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (uint32_t f = 0; f < s->nfiles; f++) {
            uint32_t nrg = 1;
            if (split) {
                fl_file *fh = NULL;
                fl_parquet_reader *r = NULL;
                fl_ice_cache_entry *fe = NULL;
                FL_TRY(pq_open_file(st->io, s->files[f], &fh, &r, &fe, err));
                nrg = fl_parquet_num_row_groups(r);
                pq_close_file(st->io, fh, r, fe);
            }
            if (cnt + nrg > cap) {
                cap = (cnt + nrg) * 2;
                pq_morsel *np2 = realloc(st->pq, cap * sizeof *np2);
                if (!np2)
                    return fl_errorf(err, FL_ENOMEM, "out of memory");
                st->pq = np2;
            }
            for (uint32_t g = 0; g < nrg; g++)
                st->pq[cnt++] = (pq_morsel){f, split ? (int32_t)g : -1};
        }
        st->npq = st->nmorsels = cnt;
        break;
    }
    case FL_SCAN_ORC:
        FL_TRY(plan_orc_morsels(st, s, n->x->threads, err));
        atomic_fetch_add(&ps->files_total, (long long)s->nfiles);
        break;
    case FL_SCAN_CSV:
    case FL_SCAN_JSON:
        st->nmorsels = s->nfiles;
        atomic_fetch_add(&ps->files_total, (long long)s->nfiles);
        break;
    case FL_SCAN_ICEBERG_META: st->nmorsels = 1; break;
    case FL_SCAN_ROWS: st->nmorsels = s->rows ? s->rows->nbatches : 0; break;
    default: return fl_errorf(err, FL_EUNSUPPORTED, "scan kind %d", (int)s->kind);
    }
    FL_TRY(progress_plan(st, s, err));
    atomic_fetch_add(&ps->time_ns, ex_now_ns() - t0);
    return FL_OK;
}

/* ---- per-thread reading ---- */

typedef struct scan_op {
    ex_op base;
    scan_state *st;
    const fl_plan_scan *s;
    bool active;
    /* readers (one kind active at a time) */
    fl_ice_task_reader *ice;          /* kept open across morsels of its task */
    fl_parquet_scan_stats ice_rep;    /* ice's stats already added to the plan */
    fl_file *pq_file;
    fl_parquet_reader *pq_reader;
    fl_ice_cache_entry *pq_footer; /* read cache entry of pq_reader's footer, or NULL */
    int64_t pq_file_idx;
    fl_parquet_scan *pq_scan;
    fl_source *text;
    fl_file *orc_file;
    fl_orc_reader *orc_reader;
    fl_orc_scan *orc_scan;
    fl_ice_metatable *meta;
    fl_batch raw;
    bool raw_inited;
    const fl_schema *raw_schema;
    /* projection view + filter */
    uint32_t *proj; /* raw column of each output column; NULL = identity */
    fl_batch view;
    fl_sel sel;
    uint32_t morsel; /* the active morsel (progress) */
} scan_op;

static void add_scan_stats(fl_plan_stats *ps, const fl_parquet_scan_stats *ss)
{
    atomic_fetch_add(&ps->row_groups_total, ss->row_groups_total);
    atomic_fetch_add(&ps->row_groups_pruned, ss->row_groups_pruned);
    atomic_fetch_add(&ps->pages_pruned, (long long)ss->pages_pruned);
    atomic_fetch_add(&ps->bytes_read, (long long)ss->bytes_read);
}

/* Adds what the task reader counted since the last report to the plan. */
static void report_ice_stats(scan_op *o)
{
    if (!o->ice)
        return;
    fl_parquet_scan_stats ss, d;
    fl_ice_task_reader_stats(o->ice, &ss);
    memset(&d, 0, sizeof d);
    d.row_groups_total = ss.row_groups_total - o->ice_rep.row_groups_total;
    d.row_groups_pruned = ss.row_groups_pruned - o->ice_rep.row_groups_pruned;
    d.pages_pruned = ss.pages_pruned - o->ice_rep.pages_pruned;
    d.bytes_read = ss.bytes_read - o->ice_rep.bytes_read;
    add_scan_stats(&o->base.node->p->stats, &d);
    progress_bytes(o->st, d.bytes_read);
    o->ice_rep = ss;
}

static void close_ice(scan_op *o)
{
    report_ice_stats(o);
    fl_ice_task_reader_close(o->ice);
    o->ice = NULL;
    memset(&o->ice_rep, 0, sizeof o->ice_rep);
}

/* Ends the active morsel; keep_ice keeps the Iceberg task reader open for
 * a next slice of the same task (its stats are reported now). */
static void close_reader(scan_op *o, bool keep_ice)
{
    /* o->raw's vectors point at the types of the closing reader's schema:
     * the next reader's schema may be a new allocation at the same address,
     * so init_raw must not take pointer equality for "same schema" */
    if (o->pq_scan || o->text || o->meta || o->orc_scan)
        o->raw_schema = NULL;
    if (keep_ice)
        report_ice_stats(o);
    else
        close_ice(o);
    if (o->pq_scan) {
        fl_parquet_scan_stats ss;
        fl_parquet_scan_get_stats(o->pq_scan, &ss);
        fl_plan_stats *ps = &o->base.node->p->stats;
        atomic_fetch_add(&ps->row_groups_total, ss.row_groups_total);
        atomic_fetch_add(&ps->row_groups_pruned, ss.row_groups_pruned);
        atomic_fetch_add(&ps->pages_pruned, (long long)ss.pages_pruned);
        atomic_fetch_add(&ps->bytes_read, (long long)ss.bytes_read);
        progress_bytes(o->st, ss.bytes_read);
        fl_parquet_scan_close(o->pq_scan);
        o->pq_scan = NULL;
    }
    if (o->text) { /* a text file's bytes, once (one morsel per file) */
        uint64_t done = 0, total = 0;
        fl_source_progress(o->text, &done, &total);
        progress_bytes(o->st, done);
    }
    fl_source_close(o->text);
    o->text = NULL;
    fl_orc_scan_close(o->orc_scan);
    fl_orc_close(o->orc_reader);
    fl_file_close(o->orc_file);
    o->orc_scan = NULL;
    o->orc_reader = NULL;
    o->orc_file = NULL;
    fl_ice_metatable_close(o->meta);
    o->meta = NULL;
    o->active = false;
}

static fl_status init_raw(scan_op *o, const fl_schema *schema, fl_error *err)
{
    if (o->raw_inited && o->raw_schema && o->raw_schema == schema)
        return FL_OK;
    if (o->raw_inited)
        fl_batch_destroy(&o->raw);
    o->raw_inited = false;
    FL_TRY(fl_batch_init(&o->raw, schema, err));
    o->raw_inited = true;
    o->raw_schema = schema;
    return FL_OK;
}

/* Sets o->proj for a source whose schema is the full schema (indexes). */
static fl_status set_index_proj(scan_op *o, const fl_schema *full, fl_error *err)
{
    uint32_t np = proj_count(o->s, full);
    free(o->proj);
    o->proj = NULL;
    if (!o->s->ncolumns)
        return FL_OK;
    o->proj = calloc(np, sizeof *o->proj);
    if (!o->proj)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < np; i++) {
        if (o->s->columns[i] < 0 || (uint32_t)o->s->columns[i] >= full->nfields)
            return fl_errorf(err, FL_EINVAL, "%s: projected column %d out of range",
                             o->s->name ? o->s->name : "scan", o->s->columns[i]);
        o->proj[i] = (uint32_t)o->s->columns[i];
    }
    return FL_OK;
}

/* Opens ORC file m, scanning each projected column once (the scan refuses
 * duplicates); o->proj maps the output columns to the scan's. */
static fl_status open_orc(scan_op *o, uint32_t m, fl_error *err)
{
    const fl_plan_scan *s = o->s;
    pq_morsel pm = o->st->pq[m];
    uint32_t stripe = pm.rg >= 0 ? (uint32_t)pm.rg : 0;
    const char *path = s->files[pm.file];
    fl_status rc = fl_fileio_open(o->st->io, path, &o->orc_file, err);
    if (rc)
        return fl_error_prefix(err, "%s", path);
    FL_TRY(fl_orc_open(o->orc_file, &o->orc_reader, err)); /* messages name the file */
    const fl_schema *fs = fl_orc_schema(o->orc_reader);
    uint32_t np = proj_count(s, fs);
    uint32_t *fields = calloc(np + 1, sizeof *fields), nf = 0;
    free(o->proj);
    o->proj = s->ncolumns ? calloc(np + 1, sizeof *o->proj) : NULL;
    if (!fields || (s->ncolumns && !o->proj)) {
        free(fields);
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    for (uint32_t i = 0; i < s->ncolumns; i++) {
        int32_t c = s->columns[i];
        if (c < 0 || (uint32_t)c >= fs->nfields) {
            free(fields);
            return fl_errorf(err, FL_EINVAL,
                             "%s: projected column %d out of range (the file "
                             "has %u columns; every file of read_orc must share the first's)",
                             path, c, fs->nfields);
        }
        uint32_t k = 0;
        while (k < nf && fields[k] != (uint32_t)c)
            k++;
        if (k == nf)
            fields[nf++] = (uint32_t)c;
        o->proj[i] = k;
    }
    fl_orc_scan_options so = {.fields = s->ncolumns ? fields : NULL,
                              .nfields = nf,
                              .stripes = pm.rg >= 0 ? &stripe : NULL,
                              .nstripes = pm.rg >= 0 ? 1 : 0,
                              .predicate = o->st->prune.nterms ? &o->st->prune : NULL};
    rc = fl_orc_scan_open(o->orc_reader, &so, &o->orc_scan, err);
    free(fields);
    if (rc)
        return fl_error_prefix(err, "%s", path);
    uint32_t stripes = 0, pruned = 0; /* reported as row groups */
    fl_orc_scan_counts(o->orc_scan, &stripes, &pruned);
    atomic_fetch_add(&o->base.node->p->stats.row_groups_total, stripes);
    atomic_fetch_add(&o->base.node->p->stats.row_groups_pruned, pruned);
    return init_raw(o, fl_orc_scan_schema(o->orc_scan), err);
}

static fl_status open_morsel(scan_op *o, uint32_t m, fl_error *err)
{
    scan_state *st = o->st;
    const fl_plan_scan *s = o->s;
    switch (s->kind) {
    case FL_SCAN_ICEBERG: {
        ice_morsel im = st->im[m];
        if (o->ice && fl_ice_task_reader_task(o->ice) == &st->ice->tasks[im.task]) {
            FL_TRY(fl_ice_task_reader_seek(o->ice, &im.slice, err));
        } else {
            close_ice(o);
            FL_TRY(fl_ice_task_reader_open_slice(st->io, st->ice, im.task, &im.slice, &o->ice, err));
        }
        FL_TRY(init_raw(o, &st->ice->schema, err));
        if (st->ice->tasks[im.task].file && im.slice.rg_first == 0 &&
            im.slice.row_lo == 0) /* once per file */
            atomic_fetch_add(&o->base.node->p->stats.bytes_read,
                             (long long)st->ice->tasks[im.task].file->file_size_in_bytes);
        break;
    }
    case FL_SCAN_PARQUET: {
        pq_morsel pm = st->pq[m];
        if (o->pq_file_idx != (int64_t)pm.file) {
            pq_close_file(st->io, o->pq_file, o->pq_reader, o->pq_footer);
            o->pq_reader = NULL;
            o->pq_file = NULL;
            o->pq_footer = NULL;
            o->pq_file_idx = -1;
            FL_TRY(pq_open_file(st->io, s->files[pm.file], &o->pq_file, &o->pq_reader,
                                &o->pq_footer, err));
            o->pq_file_idx = pm.file;
        }
        uint32_t rg = pm.rg >= 0 ? (uint32_t)pm.rg : 0;
        fl_parquet_scan_options so = {.columns = st->names,
                                      .ncolumns = proj_count(s, s->file_schema),
                                      .predicate = st->prune.nterms ? &st->prune : NULL,
                                      .filter_rows = st->prune.nterms > 0,
                                      .row_groups = pm.rg >= 0 ? &rg : NULL,
                                      .nrow_groups = pm.rg >= 0 ? 1 : 0};
        fl_status rc = fl_parquet_scan_open(o->pq_reader, &so, &o->pq_scan, err);
        const char *path = s->files[pm.file];
        if (rc && strncmp(err->msg, path, strlen(path)) == 0)
            return rc; /* the reader named the file already */
        if (rc)
            return fl_error_prefix(err, "%s", path);
        FL_TRY(init_raw(o, fl_parquet_scan_schema(o->pq_scan), err));
        break;
    }
    case FL_SCAN_ORC: {
        fl_status rc = open_orc(o, m, err);
        if (rc)
            return rc;
        if (o->st->pq[m].rg <= 0) { /* once per file */
            atomic_fetch_add(&o->base.node->p->stats.bytes_read, (long long)o->orc_file->size);
            progress_bytes(o->st, o->orc_file->size);
        }
        break;
    }
    case FL_SCAN_CSV:
    case FL_SCAN_JSON: {
        fl_source_options so = {.schema = s->file_schema,
                                .delimiter = s->csv_delim,
                                .no_header = s->kind == FL_SCAN_CSV && !s->csv_header,
                                .io = st->io};
        if (s->kind == FL_SCAN_CSV)
            FL_TRY(fl_csv_source_open(s->files[m], &so, &o->text, err));
        else
            FL_TRY(fl_jsonl_source_open(s->files[m], &so, &o->text, err));
        const fl_schema *fs = fl_source_schema(o->text);
        FL_TRY(init_raw(o, fs, err));
        FL_TRY(set_index_proj(o, fs, err));
        break;
    }
    case FL_SCAN_ICEBERG_META: {
        if (!s->meta || !s->metatable)
            return fl_errorf(err, FL_EINVAL, "metadata table scan without table or name");
        fl_ice_scan_options io = {0};
        if (s->snapshot_id != FL_ICE_NO_SNAPSHOT) {
            io.select = FL_ICE_SNAP_ID;
            io.snapshot_id = s->snapshot_id;
        }
        FL_TRY(fl_ice_metatable_open(st->io, s->meta, s->metatable, &io, &o->meta, err));
        const fl_schema *ms = fl_ice_metatable_schema(o->meta);
        FL_TRY(init_raw(o, ms, err));
        FL_TRY(set_index_proj(o, ms, err));
        break;
    }
    default: break;
    }
    o->active = true;
    return FL_OK;
}

/* Reads the next raw batch of the active morsel; *eof at its end. */
static fl_status read_raw(scan_op *o, const fl_batch **b, bool *eof, fl_error *err)
{
    *b = &o->raw;
    switch (o->s->kind) {
    case FL_SCAN_ICEBERG: return fl_ice_task_reader_next(o->ice, &o->raw, eof, err);
    case FL_SCAN_PARQUET: return fl_parquet_scan_next(o->pq_scan, &o->raw, eof, err);
    case FL_SCAN_ORC: return fl_orc_scan_next(o->orc_scan, &o->raw, eof, err);
    case FL_SCAN_CSV:
    case FL_SCAN_JSON: return fl_source_next(o->text, &o->raw, eof, err);
    case FL_SCAN_ICEBERG_META: return fl_ice_metatable_next(o->meta, &o->raw, eof, err);
    default: *eof = true; return FL_OK;
    }
}

/* The active morsel was read to its end and its reader closed (so its
 * bytes are counted): its file is done once every morsel of it is. */
static void morsel_done(scan_op *o)
{
    scan_state *st = o->st;
    if (!st->morsels_left)
        return;
    uint32_t f = morsel_file(st, o->s->kind, o->morsel);
    if (atomic_fetch_sub(&st->morsels_left[f], 1) == 1)
        atomic_fetch_add(&st->progress->files_done, 1);
}

static fl_status scan_next(ex_op *op, const fl_batch **out, fl_error *err)
{
    scan_op *o = (scan_op *)op;
    ex_node *n = op->node;
    const fl_plan_scan *s = o->s;
    *out = NULL;
    for (;;) {
        FL_TRY(ex_check(n->x, err));
        const fl_batch *b = NULL;
        int64_t t0 = ex_now_ns();
        if (s->kind == FL_SCAN_ROWS) {
            if (s->limit >= 0 && atomic_load(&o->st->produced) >= s->limit)
                return FL_OK;
            unsigned m = atomic_fetch_add(&o->st->next, 1);
            if (m >= o->st->nmorsels)
                return FL_OK;
            b = s->rows->batches[m];
            FL_TRY(set_index_proj(o, b->schema ? b->schema : s->file_schema, err));
        } else {
            if (!o->active) {
                if (s->limit >= 0 && atomic_load(&o->st->produced) >= s->limit)
                    return FL_OK;
                unsigned m = atomic_fetch_add(&o->st->next, 1);
                if (m >= o->st->nmorsels) {
                    /* no morsel left: free the kept task reader's buffers now
                     * (column windows, pages, dictionaries: MBs) so later scans
                     * of the statement reuse that memory instead of faulting
                     * in fresh pages */
                    close_ice(o);
                    return FL_OK;
                }
                fl_status rc = open_morsel(o, m, err);
                if (rc) {
                    close_reader(o, false);
                    return rc;
                }
                o->morsel = m;
            }
            bool eof = false;
            fl_status rc = read_raw(o, &b, &eof, err);
            const char *what = s->name ? s->name : "scan";
            if (rc) /* (a reader's message may already start with the file's name) */
                return strncmp(err->msg, what, strlen(what)) == 0
                           ? rc
                           : fl_error_prefix(err, "%s", what);
            if (eof) {
                close_reader(o, true);
                morsel_done(o);
                continue;
            }
            progress_rows(o->st, b);
        }
        if (!b || fl_batch_live_rows(b) == 0)
            continue;
        /* projection: a view with the selected columns */
        uint32_t ncol = n->p->schema.nfields;
        if (o->view.cols == NULL) {
            o->view.cols = calloc(ncol ? ncol : 1, sizeof *o->view.cols);
            if (!o->view.cols)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
        }
        for (uint32_t i = 0; i < ncol; i++) {
            uint32_t c = o->proj ? o->proj[i] : i;
            if (c >= b->ncols)
                return fl_errorf(err, FL_EINVAL, "%s: source batch has %u columns, needs %u",
                                 s->name ? s->name : "scan", b->ncols, c + 1);
            o->view.cols[i] = b->cols[c];
        }
        o->view.schema = &n->p->schema;
        o->view.ncols = ncol;
        o->view.nrows = b->nrows;
        o->view.sel = b->sel;
        if (s->filter) {
            FL_TRY(ex_select(op->th, s->filter, &o->view, b->sel, &o->sel, err));
            if (o->sel.count == 0) {
                atomic_fetch_add(&n->p->stats.time_ns, ex_now_ns() - t0);
                continue;
            }
            o->view.sel = &o->sel;
        }
        atomic_fetch_add(&n->p->stats.time_ns, ex_now_ns() - t0);
        atomic_fetch_add(&o->st->produced, (long long)fl_batch_live_rows(&o->view));
        *out = &o->view;
        ex_stats_out(n, *out);
        return FL_OK;
    }
}

static void scan_free(ex_op *op)
{
    scan_op *o = (scan_op *)op;
    close_reader(o, false);
    pq_close_file(o->st->io, o->pq_file, o->pq_reader, o->pq_footer);
    if (o->raw_inited)
        fl_batch_destroy(&o->raw);
    free(o->proj);
    free(o->view.cols);
    ex_sel_free(&o->sel);
    free(o);
}

static fl_status scan_open(ex_node *n, ex_thread *th, ex_op **out, fl_error *err)
{
    (void)th;
    scan_op *o = calloc(1, sizeof *o);
    if (!o)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    o->base.next = scan_next;
    o->base.free = scan_free;
    o->base.node = n;
    o->st = n->state;
    o->s = &n->p->u.scan;
    o->pq_file_idx = -1;
    *out = &o->base;
    return FL_OK;
}

static void scan_destroy(ex_node *n)
{
    scan_state *st = n->state;
    if (!st)
        return;
    fl_ice_scan_plan_free(st->ice);
    free(st->im);
    free(st->pq);
    free(st->names);
    free(st->morsels_left);
    fl_arena_free(&st->arena);
    if (st->own_io)
        fl_fileio_destroy(st->io);
    free(st);
}

fl_status ex_scan_node(ex_node *n, fl_error *err)
{
    if (n->p->u.scan.kind == FL_SCAN_SERIES)
        return ex_series_node(n, err); /* op_basic.c */
    scan_state *st = calloc(1, sizeof *st);
    if (!st)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_arena_init(&st->arena, 4096);
    n->state = st;
    n->destroy = scan_destroy;
    n->prepare = scan_prepare;
    n->open = scan_open;
    st->io = n->p->u.scan.io;
    st->progress = n->x->opt.progress;
    if (!st->io && n->p->u.scan.kind != FL_SCAN_ROWS) {
        st->io = fl_fileio_local();
        st->own_io = true;
        if (!st->io)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    if (n->p->u.scan.kind == FL_SCAN_ROWS && !n->p->u.scan.rows)
        return fl_errorf(err, FL_EINVAL, "ROWS scan without rows");
    return FL_OK;
}
