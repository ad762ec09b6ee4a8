/*
 * txn_commit.c - the optimistic commit loop (spec "Commit Conflict
 * Resolution and Retry").
 *
 * One attempt:
 *   0. the caller's validator (fl_ice_txn_set_validator), if any, checks the
 *      attempt's base; its error ends the commit (no retry);
 *   1. every operation builds its updates against the latest metadata
 *      (txn_internal.h); a failed validation ends the commit (FL_ECONFLICT,
 *      no retry, the message names the conflicting file or snapshot);
 *   2. the updates are applied to the base with fl_ice_metadata_apply (base
 *      location into the metadata log), serialized, and written as a new
 *      metadata file at the path the catalog names (exclusive create);
 *   3. the catalog swaps its pointer from the base location to the new file
 *      (commit_table, compare-and-swap); a staged table is registered with
 *      create_table instead.
 * A CAS conflict (or an existing metadata path) deletes the attempt's files,
 * waits min(min-wait * 2^attempt, max-wait) plus up to 10% jitter, reloads
 * the table and tries again, up to commit.retry.num-retries retries (default
 * 4) within commit.retry.total-timeout-ms. Any other catalog error leaves
 * the commit state unknown: nothing the attempt wrote is deleted (the swap
 * may have happened), and the error is returned.
 *
 * Catalogs whose server writes the metadata (REST, commit_updates set)
 * replace steps 2-3: the updates go to the server with requirements derived
 * from them (txn_server.c); a failed requirement (409) is a CAS conflict as
 * above, an unknown outcome (5xx, timeout) keeps every file.
 *
 * After success: operations' after_commit hooks run (expire's deletions),
 * metadata files that fell out of the metadata log are deleted when
 * write.metadata.delete-after-commit.enabled is true, and the table gets the
 * new metadata (deep-copied into its own arena).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "iceberg/txn_internal.h"

/* ---- table refresh ---------------------------------------------------------------- */

static fl_status copy_ident(const fl_table_ident *in, fl_arena *a, fl_table_ident *out)
{
    const char **levels = NULL;
    if (in->ns.nlevels) {
        levels = fl_arena_alloc(a, in->ns.nlevels * sizeof *levels);
        if (!levels)
            return FL_ENOMEM;
        for (uint32_t i = 0; i < in->ns.nlevels; i++)
            if (!(levels[i] = fl_arena_strdup(a, in->ns.levels[i])))
                return FL_ENOMEM;
    }
    out->ns.nlevels = in->ns.nlevels;
    out->ns.levels = levels;
    out->name = fl_arena_strdup(a, in->name);
    return out->name ? FL_OK : FL_ENOMEM;
}

/* Gives t the metadata m (in arena na, which t takes over) read from loc. */
static fl_status install(fl_ice_table *t, fl_arena *na, const fl_ice_metadata *m, const char *loc,
                         fl_error *err)
{
    fl_table_ident id;
    const char *l = fl_arena_strdup(na, loc);
    if (!l || copy_ident(&t->ident, na, &id) != FL_OK) {
        fl_arena_free(na);
        return fl_errorf(err, FL_ENOMEM, "table refresh: out of memory");
    }
    fl_arena_free(&t->arena);
    t->arena = *na;
    t->meta = *m;
    t->metadata_location = l;
    t->ident = id;
    t->staged = false;
    return FL_OK;
}

static fl_status refresh(fl_ice_table *t, fl_error *err)
{
    fl_arena tmp;
    fl_arena_init(&tmp, 0);
    const char *loc = NULL;
    fl_status rc;
    if (t->catalog->ops->load_table_metadata) { /* the server sends the metadata (REST) */
        fl_ice_metadata m;
        rc = t->catalog->ops->load_table_metadata(t->catalog, &t->ident, &tmp, &loc, &m, err);
        if (rc == FL_OK)
            rc = install(t, &tmp, &m, loc, err); /* takes over tmp */
        else
            fl_arena_free(&tmp);
        return rc;
    }
    rc = t->catalog->ops->load_table(t->catalog, &t->ident, &tmp, &loc, err);
    if (rc == FL_OK && t->metadata_location && strcmp(loc, t->metadata_location) == 0) {
        fl_arena_free(&tmp);
        return FL_OK;
    }
    if (rc != FL_OK) {
        fl_arena_free(&tmp);
        return rc;
    }
    fl_arena na;
    fl_arena_init(&na, 0);
    fl_ice_metadata m;
    rc = fl_ice_metadata_read(t->io, loc, &na, &m, err);
    if (rc == FL_OK)
        rc = install(t, &na, &m, loc, err);
    else
        fl_arena_free(&na);
    fl_arena_free(&tmp);
    return rc;
}

/* ---- one attempt -------------------------------------------------------------------- */

typedef struct attempt_result {
    bool no_change;       /* nothing to commit */
    bool cas_conflict;    /* retryable */
    bool maybe_committed; /* unknown state: keep every file */
    bool server_side;     /* the catalog's server wrote the metadata (commit_updates) */
    const char *location; /* the new metadata file */
    char *json;           /* malloc'd */
    size_t json_len;
    fl_ice_metadata final;
} attempt_result;

static int64_t next_version(const fl_ice_metadata *base, const char *base_location)
{
    if (!base_location)
        return 0;
    const char *b = strrchr(base_location, '/');
    b = b ? b + 1 : base_location;
    if (*b == 'v')
        b++;
    int64_t v = 0;
    int digits = 0;
    while (*b >= '0' && *b <= '9' && digits < 18) {
        v = v * 10 + (*b++ - '0');
        digits++;
    }
    if (digits && (*b == '-' || *b == '.'))
        return v + 1;
    return (int64_t)base->nmetadata_log + 1;
}

fl_status txn_write_file(fl_fileio *io, const char *path, const char *buf, size_t len,
                         fl_error *err)
{
    fl_output *o = NULL;
    FL_TRY(fl_fileio_create(io, path, 0, &o, err));
    fl_status rc = fl_output_write(o, buf, len, err);
    if (rc != FL_OK) {
        fl_output_abort(o);
        return rc;
    }
    return fl_output_close(o, err);
}

static fl_status run_attempt(fl_ice_txn *x, txn_attempt *at, attempt_result *res, fl_error *err)
{
    fl_ice_table *t = x->t;
    fl_catalog *c = t->catalog;
    if (x->validator)
        FL_TRY(x->validator(x->validator_ctx, at->base, at->number, err));
    for (uint32_t i = 0; i < x->nops; i++) {
        fl_status rc = x->ops[i].vt->build(x, &x->ops[i], at, err);
        if (rc != FL_OK)
            return fl_error_prefix(err, "commit: %s", x->ops[i].vt->name);
    }
    if (at->nupdates == 0 && !t->staged) {
        res->no_change = true;
        return FL_OK;
    }
    if (c->ops->commit_updates) { /* the server checks, applies and writes (REST) */
        res->server_side = true;
        return txn_server_commit(x, at, &res->location, &res->final, &res->cas_conflict,
                                 &res->maybe_committed, err);
    }
    const char *base_loc = t->staged ? NULL : t->metadata_location;
    FL_TRY(fl_ice_metadata_apply(at->base, base_loc, at->updates, at->nupdates, at->now_ms,
                                 &at->arena, &res->final, err));
    /* confinement: a staged table's location was checked when it was made
     * (and may be a private one), its properties are checked here */
    FL_TRY(t->staged ? fl_ice_write_paths_check(&res->final, err)
                     : fl_ice_change_check(c, &t->ident, at->base, &res->final, err));
    FL_TRY(fl_ice_metadata_write(&res->final, 0, &res->json, &res->json_len, err));
    const char *loc = NULL;
    FL_TRY(c->ops->new_metadata_path(c, &t->ident, res->final.location, base_loc,
                                     next_version(at->base, base_loc), &at->arena, &loc, err));
    fl_status rc = txn_write_file(t->io, loc, res->json, res->json_len, err);
    if (rc == FL_EEXIST) {
        res->cas_conflict = true; /* another writer took this version */
        return fl_errorf(err, FL_ECONFLICT, "commit: metadata file %s already exists", loc);
    }
    FL_TRY(rc);
    if (!txn_paths_push(&at->files, &at->arena, loc))
        return fl_errorf(err, FL_ENOMEM, "commit: out of memory");
    res->location = loc;
    if (t->staged) {
        rc = c->ops->create_table(c, &t->ident, loc, err);
        if (rc != FL_OK && rc != FL_EEXIST && rc != FL_ENOTFOUND)
            res->maybe_committed = true;
        return rc;
    }
    rc = c->ops->commit_table(c, &t->ident, t->metadata_location, loc, err);
    if (rc == FL_ECONFLICT)
        res->cas_conflict = true;
    else if (rc != FL_OK && rc != FL_ENOTFOUND)
        res->maybe_committed = true;
    return rc;
}

/* ---- after success ------------------------------------------------------------------- */

static bool in_log(const fl_ice_metadata *m, const char *path)
{
    for (uint32_t i = 0; i < m->nmetadata_log; i++)
        if (strcmp(m->metadata_log[i].metadata_file, path) == 0)
            return true;
    return false;
}

static void delete_old_metadata(const fl_catalog *c, fl_fileio *io, const fl_ice_metadata *base,
                                const fl_ice_metadata *final)
{
    if (!txn_prop_bool(final, "write.metadata.delete-after-commit.enabled", false))
        return;
    for (uint32_t i = 0; i < base->nmetadata_log; i++) {
        const char *p = base->metadata_log[i].metadata_file;
        /* a metadata log may name anything (a registered file): only files
         * under the table's own location are ours to delete */
        if (!in_log(final, p) && fl_location_within(p, final->location) &&
            !fl_location_within(final->location, p) && !fl_catalog_path_protected(c, p)) {
            fl_error e = {0};
            fl_fileio_remove(io, p, &e);
        }
    }
}

static void backoff(const fl_ice_metadata *m, uint32_t attempt)
{
    int64_t min_wait = txn_prop_i64(m, "commit.retry.min-wait-ms", 100);
    int64_t max_wait = txn_prop_i64(m, "commit.retry.max-wait-ms", 60000);
    if (min_wait < 0)
        min_wait = 0;
    int64_t d = min_wait;
    for (uint32_t i = 0; i < attempt && d < max_wait; i++)
        d *= 2;
    if (d > max_wait)
        d = max_wait;
    uint32_t r = 0;
    if (getrandom(&r, sizeof r, 0) != sizeof r)
        r = (uint32_t)clock();
    int64_t span = d / 10 > 1 ? d / 10 : 1;
    d += (int64_t)(r % (uint64_t)span);
    struct timespec ts = {.tv_sec = d / 1000, .tv_nsec = (long)(d % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static fl_status finish(fl_ice_txn *x, txn_attempt *at, attempt_result *res, int64_t *snapshot_id,
                        fl_error *err)
{
    fl_ice_table *t = x->t;
    fl_status rc = FL_OK;
    for (uint32_t i = 0; i < x->nops && rc == FL_OK; i++)
        if (x->ops[i].vt->after_commit)
            rc = x->ops[i].vt->after_commit(x, &x->ops[i], at->base, &res->final, err);
    if (!res->server_side) /* a server keeps its own metadata files */
        delete_old_metadata(t->catalog, t->io, at->base, &res->final);
    if (snapshot_id) {
        const fl_ice_snapshot *h = txn_branch_head(x, &res->final);
        *snapshot_id = at->last_snapshot_id ? at->last_snapshot_id : h ? h->snapshot_id : -1;
    }
    fl_arena na;
    fl_arena_init(&na, 0);
    fl_ice_metadata m;
    fl_error e2 = {0};
    fl_status rc2 = txn_metadata_copy(&res->final, &na, &m);
    if (rc2 == FL_OK)
        rc2 = install(t, &na, &m, res->location, &e2);
    else
        fl_arena_free(&na), fl_errorf(&e2, rc2, "out of memory");
    if (rc == FL_OK && rc2 != FL_OK) {
        *err = e2;
        fl_error_prefix(err, "commit landed at %s, but reloading it failed", res->location);
        rc = rc2;
    }
    return rc;
}

fl_status fl_ice_txn_commit(fl_ice_txn *x, int64_t *snapshot_id, fl_error *err)
{
    if (!x)
        return fl_errorf(err, FL_EINVAL, "commit: no transaction");
    fl_ice_table *t = x->t;
    const char *uuid0 = t->meta.table_uuid ? fl_arena_strdup(&x->arena, t->meta.table_uuid) : NULL;
    int64_t retries = txn_prop_i64(&t->meta, "commit.retry.num-retries", 4);
    int64_t timeout = txn_prop_i64(&t->meta, "commit.retry.total-timeout-ms", 1800000);
    int64_t start = txn_now_ms();
    for (uint32_t attempt = 0;; attempt++) {
        txn_attempt at = {
            .base = &t->meta, .cur = t->meta, .number = attempt, .now_ms = txn_now_ms()};
        fl_arena_init(&at.arena, 0);
        attempt_result res = {0};
        fl_status rc = run_attempt(x, &at, &res, err);
        if (rc == FL_OK) {
            if (res.no_change) {
                if (snapshot_id) {
                    const fl_ice_snapshot *h = txn_branch_head(x, &t->meta);
                    *snapshot_id = h ? h->snapshot_id : -1;
                }
            } else {
                rc = finish(x, &at, &res, snapshot_id, err);
            }
            free(res.json);
            fl_arena_free(&at.arena);
            txn_free(x);
            return rc;
        }
        free(res.json);
        if (!res.maybe_committed)
            txn_delete_paths(t->io, &at.files);
        fl_arena_free(&at.arena);
        bool retry = res.cas_conflict && attempt < retries && txn_now_ms() - start < timeout;
        if (retry) {
            backoff(&t->meta, attempt);
            fl_error rerr = {0};
            fl_status r2 = refresh(t, &rerr);
            if (r2 != FL_OK) {
                *err = rerr;
                fl_error_prefix(err, "commit: reloading the table after a conflict");
                rc = r2;
                retry = false;
            } else if (uuid0 && t->meta.table_uuid && strcmp(uuid0, t->meta.table_uuid) != 0) {
                rc = fl_errorf(err, FL_ECONFLICT,
                               "commit: the table was replaced concurrently (uuid %s, was %s)",
                               t->meta.table_uuid, uuid0);
                retry = false;
            }
        } else if (res.cas_conflict) {
            fl_error_prefix(err, "commit: gave up after %u attempts", attempt + 1);
        }
        if (!retry) {
            if (!res.maybe_committed)
                fl_ice_txn_abort(x);
            else
                txn_free(x);
            return rc;
        }
    }
}
