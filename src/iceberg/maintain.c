/*
 * maintain.c - one maintenance pass over a table (fl_ice_maintain_table,
 * ice_table.h): the policy read from the table's properties, then each step
 * in a commit of its own, so a step that loses a race (a writer committed
 * first) costs only itself:
 *
 *   compact    when at least floe.maintenance.min-input-files (default 5)
 *              data files are below the compaction's small-file size, or a
 *              delete file applies (floe.maintenance.rewrite-deletes, default
 *              true): fl_ice_rewrite_data_files, validated like every
 *              "replace" (a concurrent delete conflicts: no deleted row comes
 *              back);
 *   expire     snapshots beyond history.expire.max-snapshot-age-ms (default
 *              5 days), keeping history.expire.min-snapshots-to-keep and each
 *              pipeline's newest checkpoint (expire.c); a commit that expires
 *              nothing writes no metadata;
 *   manifests  rewritten when the current snapshot has more than
 *              floe.maintenance.max-manifests (default 100);
 *   orphans    only when the caller asks (listing is the costly step):
 *              unreferenced files older than floe.maintenance.orphan-age-ms
 *              (default 3 days), confined to the table's own folders.
 *
 * floe.maintenance.enabled=false leaves a table alone. A step's conflict
 * (FL_ECONFLICT) is reported in the result, not returned: the next pass
 * tries again. Other errors end the pass with the step named.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "floe/ice_manifest.h"
#include "floe/ice_scan.h"
#include "floe/ice_table.h"
#include "iceberg/write_internal.h"

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void fl_ice_maintain_policy_of(const fl_ice_metadata *m, fl_ice_maintain_policy *p)
{
    const char *en = fl_ice_map_get(&m->properties, "floe.maintenance.enabled");
    const char *rd = fl_ice_map_get(&m->properties, "floe.maintenance.rewrite-deletes");
    p->enabled = !en || strcasecmp(en, "false") != 0;
    p->rewrite_deletes = !rd || strcasecmp(rd, "false") != 0;
    int64_t n = ice_prop_i64(m, "floe.maintenance.min-input-files", 5);
    p->min_input_files = n < 2 ? 2 : (uint32_t)n;
    n = ice_prop_i64(m, "floe.maintenance.max-manifests", 100);
    p->max_manifests = n < 1 ? 1 : (uint32_t)n;
    p->orphan_age_ms = ice_prop_i64(m, "floe.maintenance.orphan-age-ms", 3 * 86400000LL);
}

/* Small data files and files with deletes in the current snapshot, by the
 * compaction's own rule (min-file-size-bytes, default 3/4 of the target). */
static fl_status count_candidates(fl_ice_table *t, uint32_t *small, uint32_t *with_deletes,
                                  fl_error *err)
{
    *small = *with_deletes = 0;
    const fl_ice_metadata *m = &t->meta;
    if (!fl_ice_metadata_current_snapshot(m))
        return FL_OK;
    int64_t target = ice_prop_i64(m, "write.target-file-size-bytes", 512ll << 20);
    int64_t min_size = ice_prop_i64(m, "min-file-size-bytes", target / 4 * 3);
    fl_ice_scan_options o = {0};
    fl_ice_scan_plan *p = NULL;
    FL_TRY(fl_ice_scan_plan_files(t->io, m, &o, &p, err));
    for (uint32_t i = 0; i < p->ntasks; i++) {
        *small += p->tasks[i].file->file_size_in_bytes < min_size;
        *with_deletes += p->tasks[i].ndeletes > 0;
    }
    fl_ice_scan_plan_free(p);
    return FL_OK;
}

/* Commits x; a lost race goes to r->conflict (first one kept). */
static fl_status commit_step(fl_ice_txn *x, const char *step, fl_ice_maintain_result *r,
                             bool *landed, fl_error *err)
{
    *landed = false;
    fl_status rc = fl_ice_txn_commit(x, NULL, err);
    if (rc == FL_ECONFLICT) {
        if (!r->conflict[0])
            snprintf(r->conflict, sizeof r->conflict, "%s: %.480s", step, err->msg);
        fl_error_clear(err);
        return FL_OK;
    }
    *landed = rc == FL_OK;
    return rc == FL_OK ? FL_OK : fl_error_prefix(err, "%s", step);
}

static fl_status step_compact(fl_ice_table *t, const fl_ice_maintain_policy *p,
                              fl_ice_maintain_result *r, fl_error *err)
{
    uint32_t small, dels;
    FL_TRY(count_candidates(t, &small, &dels, err));
    if (small < p->min_input_files && !(p->rewrite_deletes && dels))
        return FL_OK;
    fl_ice_txn *x = NULL;
    FL_TRY(fl_ice_txn_begin(t, &x, err));
    uint64_t rewritten = 0, added = 0;
    fl_status rc = fl_ice_rewrite_data_files(x, false, &rewritten, &added, err);
    if (rc != FL_OK || !rewritten) {
        fl_ice_txn_abort(x);
        return rc == FL_OK ? FL_OK : fl_error_prefix(err, "compaction");
    }
    bool landed;
    FL_TRY(commit_step(x, "compaction", r, &landed, err));
    if (landed) {
        r->files_rewritten += rewritten;
        r->files_added += added;
    }
    return FL_OK;
}

static fl_status step_expire(fl_ice_table *t, fl_ice_maintain_result *r, fl_error *err)
{
    fl_ice_txn *x = NULL;
    FL_TRY(fl_ice_txn_begin(t, &x, err));
    fl_ice_expire_result er = {0}; /* filled by the commit (what expires is decided there) */
    fl_status rc = fl_ice_txn_expire_snapshots(x, -1, 0, &er, err);
    if (rc != FL_OK) {
        fl_ice_txn_abort(x);
        return fl_error_prefix(err, "snapshot expiry");
    }
    bool landed; /* a commit that expires nothing writes no metadata */
    FL_TRY(commit_step(x, "snapshot expiry", r, &landed, err));
    if (landed)
        r->snapshots_expired += er.snapshots_expired;
    return FL_OK;
}

static fl_status step_manifests(fl_ice_table *t, const fl_ice_maintain_policy *p,
                                fl_ice_maintain_result *r, fl_error *err)
{
    const fl_ice_snapshot *s = fl_ice_metadata_current_snapshot(&t->meta);
    if (!s)
        return FL_OK;
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_ice_manifest_file *mfs = NULL;
    uint32_t n = 0;
    fl_status rc = fl_ice_snapshot_manifests(t->io, &t->meta, s, &a, &mfs, &n, err);
    fl_arena_free(&a);
    if (rc != FL_OK || n <= p->max_manifests)
        return rc;
    fl_ice_txn *x = NULL;
    FL_TRY(fl_ice_txn_begin(t, &x, err));
    rc = fl_ice_txn_rewrite_manifests(x, err);
    if (rc != FL_OK) {
        fl_ice_txn_abort(x);
        return fl_error_prefix(err, "manifest rewrite");
    }
    bool landed;
    FL_TRY(commit_step(x, "manifest rewrite", r, &landed, err));
    r->manifests_rewritten = landed;
    return FL_OK;
}

fl_status fl_ice_maintain_table(fl_catalog *c, const fl_table_ident *id, bool orphans,
                                fl_ice_maintain_result *r, fl_error *err)
{
    memset(r, 0, sizeof *r);
    fl_ice_table *t = NULL;
    FL_TRY(fl_ice_table_load(c, id, &t, err));
    fl_ice_maintain_policy p;
    fl_ice_maintain_policy_of(&t->meta, &p);
    fl_status rc = FL_OK;
    if (!p.enabled) {
        r->disabled = true;
    } else {
        rc = step_compact(t, &p, r, err);
        if (rc == FL_OK)
            rc = step_expire(t, r, err);
        if (rc == FL_OK)
            rc = step_manifests(t, &p, r, err);
        if (rc == FL_OK && orphans && p.orphan_age_ms > 0)
            rc = fl_ice_remove_orphan_files(t, wall_ms() - p.orphan_age_ms, false, NULL, NULL,
                                            &r->orphans_removed, err);
    }
    fl_ice_table_free(t);
    return rc;
}

/* ---- every table of a catalog ---- */

typedef struct walk {
    fl_catalog *c;
    bool orphans;
    fl_ice_maintain_report_fn report;
    void *ctx;
    uint32_t depth;
} walk;

static fl_status walk_ns(walk *w, const fl_namespace *ns, fl_error *err)
{
    if (w->depth > 16) /* deeper nesting than any catalog we write */
        return FL_OK;
    fl_arena a;
    fl_arena_init(&a, 0);
    const char **tables = NULL;
    uint32_t nt = 0;
    fl_status rc = ns->nlevels ? w->c->ops->list_tables(w->c, ns, &a, &tables, &nt, err) : FL_OK;
    for (uint32_t i = 0; rc == FL_OK && i < nt; i++) {
        fl_table_ident id = {*ns, tables[i]};
        fl_ice_maintain_result r;
        fl_error e;
        fl_error_clear(&e);
        fl_status st = fl_ice_maintain_table(w->c, &id, w->orphans, &r, &e);
        if (st == FL_ENOTFOUND) /* dropped since the listing */
            continue;
        if (w->report)
            w->report(w->ctx, &id, st == FL_OK ? &r : NULL, st == FL_OK ? NULL : &e);
    }
    fl_namespace *kids = NULL;
    uint32_t nk = 0;
    if (rc == FL_OK)
        rc = w->c->ops->list_namespaces(w->c, ns->nlevels ? ns : NULL, &a, &kids, &nk, err);
    w->depth++;
    for (uint32_t i = 0; rc == FL_OK && i < nk; i++)
        rc = walk_ns(w, &kids[i], err);
    w->depth--;
    fl_arena_free(&a);
    return rc;
}

fl_status fl_ice_maintain_catalog(fl_catalog *c, bool orphans, fl_ice_maintain_report_fn report,
                                  void *ctx, fl_error *err)
{
    walk w = {.c = c, .orphans = orphans, .report = report, .ctx = ctx};
    fl_namespace root = {0};
    return walk_ns(&w, &root, err);
}
