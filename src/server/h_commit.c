/*
 * h_commit.c - server-side commits:
 *   POST /v1/{prefix}/namespaces/{namespace}/tables/{table}   CommitTableRequest
 *   POST /v1/{prefix}/transactions/commit                     CommitTransactionRequest
 *
 * One table (srv_commit_prepare + swap):
 *   1. load the current metadata (404 unless assert-create; assert-create on
 *      an existing table is 409);
 *   2. check the requirements against it (fl_ice_requirements_check): stale
 *      -> 409 CommitFailedException, except a pure append that lost its race
 *      to main, which is rebased onto the new head (rebase.c);
 *   3. apply the updates (fl_ice_metadata_apply: 400 when invalid), check
 *      confinement (403): the table location stays inside the warehouse; a
 *      new location overlaps no other table (fl_ice_change_check);
 *      write.*.path properties lie inside it; every file a new snapshot
 *      brings in (manifest list, manifests not in its parent, their data and
 *      delete files, statistics files) lies inside it, so a later purge or
 *      expiry cannot be aimed elsewhere (fl_ice_new_files_check: reads the
 *      new lists and manifests; 400 when they cannot be read);
 *   4. write the new metadata file (exclusive create), then compare-and-swap
 *      the catalog pointer. If the swap loses (someone committed between 1
 *      and 4), the written file is deleted and the loop starts over at 1, so
 *      requirements are always checked against the state actually replaced.
 *
 * Outcome codes (documented in src/server/README.md):
 *   200        the commit landed (the response names the new metadata file);
 *   400/403/404/409  it did not land and nothing changed;
 *   503        it did not land: a failure before the swap (reading metadata,
 *              writing the new file, the swap refused by the database);
 *   500 CommitStateUnknownException  the swap itself failed in a way that
 *              may or may not have committed (connection lost mid-commit).
 * Only a swap that returned FL_OK is ever reported as success.
 *
 * Multi-table: every table is prepared as above (requirements checked,
 * metadata files written), then all pointers swap in one database
 * transaction through the catalog's commit_tables (SQLite/PostgreSQL); a
 * conflict on any table re-runs the whole transaction, at most 5 times,
 * then 409. Catalogs without commit_tables (filesystem) answer 406.
 *
 * Fault injection for tests: FLOE_SERVE_FAULT=sleep-before-swap:<ms> sleeps
 * after the metadata files are written and before the swap, and
 * sleep-after-swap:<ms> (transactions) after the swap and before the
 * response, so a test can SIGKILL the server mid-commit.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "server/server_internal.h"

#define MAX_ATTEMPTS 64

static void fault_point(const char *name)
{
    const char *f = getenv("FLOE_SERVE_FAULT");
    size_t n = strlen(name);
    if (!f || strncmp(f, name, n) != 0 || f[n] != ':')
        return;
    long ms = strtol(f + n + 1, NULL, 10);
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static bool only_ref_conflict(const fl_ice_metadata *base, const srv_commit_req *cr)
{
    /* every requirement except assert-ref-snapshot-id main must still hold */
    for (uint32_t i = 0; i < cr->nreq; i++) {
        if (cr->req[i].kind == FL_ICE_REQ_ASSERT_REF_SNAPSHOT_ID)
            continue;
        fl_error e = {0};
        if (fl_ice_requirements_check(base, &cr->req[i], 1, &e) != FL_OK)
            return false;
    }
    return true;
}

fl_status srv_commit_prepare(fl_server_request *r, fl_catalog *c, const fl_table_ident *id,
                             const srv_commit_req *cr, bool allow_rebase, fl_arena *a,
                             srv_prepared *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    out->id = *id;
    const char *loc = NULL;
    fl_ice_metadata cur, *base = NULL;
    fl_status rc = c->ops->load_table(c, id, a, &loc, err);
    if (rc == FL_ENOTFOUND && !cr->assert_create)
        return rc;
    if (rc == FL_OK) {
        if (cr->assert_create)
            return fl_errorf(err, FL_ECONFLICT, "Requirement failed: table already exists: %s",
                             id->name);
        FL_TRY(fl_ice_metadata_read(c->io, loc, a, &cur, err));
        base = &cur;
    } else if (rc != FL_ENOTFOUND) {
        return rc;
    }
    const srv_commit_req *use = cr;
    srv_commit_req rebased;
    rc = fl_ice_requirements_check(base, cr->req, cr->nreq, err);
    if (rc == FL_ECONFLICT && base && allow_rebase && srv_commit_is_append(cr) &&
        only_ref_conflict(base, cr)) {
        fl_error rerr = {0};
        fl_status rr = srv_rebase_append(c->io, base, cr, a, &rebased, &rerr);
        if (rr == FL_OK) {
            use = &rebased;
            atomic_fetch_add(&r->srv->metrics->rebases, 1);
            rc = fl_ice_requirements_check(base, use->req, use->nreq, err);
        } else {
            /* not rebasable (unreadable list, merged manifests...): the
             * original 409 stands */
            srv_log("info", "rebase", "append to %s not rebased: %s", id->name, rerr.msg);
        }
    }
    if (rc != FL_OK)
        return rc;
    out->base_location = loc;
    out->create = base == NULL;
    if (base && use->nupd == 0) {
        out->unchanged = true;
        out->new_location = loc;
        out->meta = cur;
        return FL_OK;
    }
    rc = fl_ice_metadata_apply(base, loc, use->upd, use->nupd, srv_now_ms(), a, &out->meta, err);
    if (rc != FL_OK)
        return rc == FL_ECONFLICT ? rc : (rc == FL_ENOMEM ? rc : FL_EINVAL);
    if (!out->meta.location) {
        fl_catalog tmp = {.warehouse = r->srv->warehouse};
        out->meta.location =
            fl_catalog_table_location(&tmp, id, srv_ns_location(r, &id->ns), a);
    }
    FL_TRY(srv_location_check(r->srv, out->meta.location, err));
    FL_TRY(fl_ice_change_check(c, id, base, &out->meta, err));
    rc = fl_ice_new_files_check(c->io, base, &out->meta, err);
    if (rc != FL_OK && rc != FL_EFORBIDDEN && rc != FL_ENOMEM)
        rc = FL_EINVAL; /* a manifest list or manifest the commit names cannot be read */
    FL_TRY(rc);
    rc = srv_write_metadata(c, id, &out->meta, loc, a, &out->new_location, err);
    if (rc != FL_OK)
        return fl_error_prefix(err, "writing metadata") == FL_OK ? FL_EIO : FL_EIO;
    return FL_OK;
}

static void discard(fl_catalog *c, const srv_prepared *p)
{
    if (!p->unchanged && p->new_location) {
        fl_error e = {0};
        fl_fileio_remove(c->io, p->new_location, &e);
    }
}

/* Responds for a failed prepare/swap. */
static void commit_failed(fl_server_request *r, const fl_table_ident *id, fl_status rc,
                          const fl_error *err, bool swap_phase)
{
    srv_metrics *m = r->srv->metrics;
    if (rc == FL_ECONFLICT) {
        atomic_fetch_add(&m->conflicts, 1);
        fl_server_respond_error(r, 409, "CommitFailedException", "%s", err->msg);
    } else if (rc == FL_ENOTFOUND) {
        if (srv_ns_must_exist(r, &id->ns))
            fl_server_respond_error(r, 404, "NoSuchTableException", "Table does not exist: %s.%s",
                                    srv_ns_dotted(&id->ns, &r->arena), id->name);
    } else if (rc == FL_EINVAL || rc == FL_EFORBIDDEN || rc == FL_EUNSUPPORTED || rc == FL_ELIMIT) {
        srv_respond_status(r, rc, err, NULL);
    } else if (swap_phase) {
        atomic_fetch_add(&m->commit_errors, 1);
        fl_server_respond_error(r, 500, "CommitStateUnknownException",
                                "the catalog swap failed; the commit may or may not have "
                                "landed: %s",
                                err->msg);
    } else {
        atomic_fetch_add(&m->commit_errors, 1);
        fl_server_respond_error(r, 503, "ServiceUnavailableException",
                                "commit did not land: %s", err->msg);
    }
}

/* Swap errors that certainly changed nothing. */
static bool swap_refused(fl_status rc)
{
    return rc == FL_ECONFLICT || rc == FL_ENOTFOUND || rc == FL_EEXIST;
}

static void commit_loop(fl_server_request *r, fl_catalog *c, const fl_table_ident *idp,
                        const srv_commit_req *crp, const char *target, fl_arena *a,
                        srv_prepared *pp);

static void h_commit(fl_server_request *r, void *ctx)
{
    (void)ctx;
    fl_table_ident id;
    if (!srv_ns_param(r, "namespace", &id.ns))
        return;
    id.name = fl_server_req_param(r, "table");
    json_t *b = srv_body_json(r);
    if (!b)
        return;
    srv_commit_req cr;
    fl_error err = {0};
    fl_status rc = srv_parse_commit(b, &r->arena, &cr, &err);
    json_decref(b);
    if (rc != FL_OK) {
        srv_respond_status(r, rc, &err, NULL);
        return;
    }
    if (!srv_authorize(r, cr.assert_create ? FL_PRIV_CREATE : FL_PRIV_WRITE, &id.ns,
                       cr.assert_create ? NULL : id.name))
        return;
    const char *target = fl_arena_sprintf(&r->arena, "%s.%s", srv_ns_dotted(&id.ns, &r->arena),
                                          id.name);
    if (cr.assert_create && !srv_ns_must_exist(r, &id.ns))
        return;
    fl_catalog *c = srv_cat(r);
    const char *vloc;
    fl_error verr = {0};
    if (cr.assert_create && c->ops->load_view &&
        c->ops->load_view(c, &id, &r->arena, &vloc, &verr) == FL_OK && srv_name_taken(r, &id, false))
        return;
    srv_prepared p;
    fl_arena a;
    fl_arena_init(&a, 65536);
    uint32_t stripe = srv_stripe_of(&id);
    srv_stripe_lock(r->srv->cache, stripe);
    commit_loop(r, c, &id, &cr, target, &a, &p);
    srv_stripe_unlock(r->srv->cache, stripe);
    fl_arena_free(&a);
}

static void commit_loop(fl_server_request *r, fl_catalog *c, const fl_table_ident *idp,
                        const srv_commit_req *crp, const char *target, fl_arena *a,
                        srv_prepared *pp)
{
    fl_table_ident id = *idp;
    const srv_commit_req cr = *crp;
    srv_prepared p;
    fl_error err = {0};
    fl_status rc = FL_OK;
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        fl_arena_reset(a);
        rc = srv_commit_prepare(r, c, &id, &cr, true, a, &p, &err);
        if (rc != FL_OK) {
            srv_audit(r, "commit-table", target, rc == FL_ECONFLICT ? "conflict" : "error",
                      err.msg);
            commit_failed(r, &id, rc, &err, false);
            return;
        }
        if (p.unchanged)
            break;
        fault_point("sleep-before-swap");
        rc = p.create ? c->ops->create_table(c, &id, p.new_location, &err)
                      : c->ops->commit_table(c, &id, p.base_location, p.new_location, &err);
        if (rc == FL_OK)
            break;
        discard(c, &p);
        if (rc == FL_ECONFLICT || (rc == FL_EEXIST && p.create)) {
            if (p.create) { /* assert-create lost: the table exists now */
                fl_errorf(&err, FL_ECONFLICT, "Requirement failed: table already exists: %s",
                          target);
                rc = FL_ECONFLICT;
            } else {
                continue;
            }
        }
        srv_audit(r, "commit-table", target, rc == FL_ECONFLICT ? "conflict" : "error", err.msg);
        commit_failed(r, &id, rc, &err, !swap_refused(rc));
        return;
    }
    if (rc != FL_OK) {
        fl_errorf(&err, FL_ECONFLICT, "commit lost the race %d times; retry", MAX_ATTEMPTS);
        commit_failed(r, &id, FL_ECONFLICT, &err, false);
        return;
    }
    if (!p.unchanged)
        atomic_fetch_add(&r->srv->metrics->commits, 1);
    srv_audit(r, "commit-table", target, "ok", p.new_location);
    size_t len = 0;
    char *body = srv_table_result_text(p.new_location, &p.meta, &len, &err);
    if (!body) { /* landed, but the response cannot be built: say so, never 5xx-as-failure */
        fl_server_respond_error(r, 500, "CommitStateUnknownException",
                                "commit landed at %s but the response failed: %s",
                                p.new_location, err.msg);
        return;
    }
    /* the next loadTable of this version is served from the cache */
    char *key = fl_arena_sprintf(a, "all\n%s", p.new_location);
    if (key)
        srv_cache_put(r->srv->cache, key, body, len);
    r->responded = true;
    r->status = 200;
    r->content_type = "application/json";
    r->resp_body = body;
    r->resp_len = len;
    *pp = p;
}

/* ---- multi-table transactions ---- */

static void txn_commit(fl_server_request *r, fl_catalog *c, const fl_table_ident *ids,
                       const srv_commit_req *crs, size_t n);

static void h_transaction(fl_server_request *r, void *ctx)
{
    (void)ctx;
    json_t *b = srv_body_json(r);
    if (!b)
        return;
    json_t *changes = json_object_get(b, "table-changes");
    if (!json_is_array(changes) || json_array_size(changes) == 0 ||
        json_array_size(changes) > 1000) {
        json_decref(b);
        fl_server_respond_error(r, 400, "BadRequestException",
                                "table-changes must be a non-empty array (at most 1000)");
        return;
    }
    size_t n = json_array_size(changes);
    fl_table_ident *ids = fl_arena_calloc(&r->arena, n, sizeof *ids);
    srv_commit_req *crs = fl_arena_calloc(&r->arena, n, sizeof *crs);
    fl_error err = {0};
    for (size_t i = 0; i < n; i++) {
        json_t *ch = json_array_get(changes, i);
        json_t *ident = json_object_get(ch, "identifier");
        const char *name = json_string_value(json_object_get(ident, "name"));
        if (!json_is_object(ident) || !name ||
            !srv_ns_from_json(r, json_object_get(ident, "namespace"), "identifier.namespace",
                              &ids[i].ns)) {
            json_decref(b);
            if (!r->responded)
                fl_server_respond_error(r, 400, "BadRequestException",
                                        "table-changes[%zu].identifier: missing or invalid", i);
            return;
        }
        ids[i].name = fl_arena_strdup(&r->arena, name);
        fl_status rc = srv_parse_commit(ch, &r->arena, &crs[i], &err);
        if (rc == FL_OK && crs[i].assert_create)
            rc = fl_errorf(&err, FL_EINVAL, "assert-create is not allowed in a transaction");
        for (size_t k = 0; rc == FL_OK && k < i; k++)
            if (!strcmp(ids[k].name, ids[i].name) &&
                !strcmp(srv_ns_dotted(&ids[k].ns, &r->arena), srv_ns_dotted(&ids[i].ns, &r->arena)))
                rc = fl_errorf(&err, FL_EINVAL, "table %s appears twice in the transaction",
                               name);
        if (rc != FL_OK) {
            json_decref(b);
            fl_error_prefix(&err, "table-changes[%zu]", i);
            srv_respond_status(r, rc, &err, NULL);
            return;
        }
    }
    json_decref(b);
    for (size_t i = 0; i < n; i++)
        if (!srv_authorize(r, FL_PRIV_WRITE, &ids[i].ns, ids[i].name))
            return;
    fl_catalog *c = srv_cat(r);
    if (!c->ops->commit_tables) {
        fl_server_respond_error(r, 406, "UnsupportedOperationException",
                                "this catalog (%s) cannot commit several tables atomically",
                                r->srv->catalog_uri);
        return;
    }
    bool held[SRV_COMMIT_STRIPES] = {false};
    for (size_t i = 0; i < n; i++)
        held[srv_stripe_of(&ids[i])] = true;
    for (uint32_t k = 0; k < SRV_COMMIT_STRIPES; k++) /* ascending: no deadlock */
        if (held[k])
            srv_stripe_lock(r->srv->cache, k);
    txn_commit(r, c, ids, crs, n);
    for (uint32_t k = SRV_COMMIT_STRIPES; k-- > 0;)
        if (held[k])
            srv_stripe_unlock(r->srv->cache, k);
}

static void txn_commit(fl_server_request *r, fl_catalog *c, const fl_table_ident *ids,
                       const srv_commit_req *crs, size_t n)
{
    fl_error err = {0};
    srv_prepared *p = fl_arena_calloc(&r->arena, n, sizeof *p);
    fl_catalog_commit *cc = fl_arena_calloc(&r->arena, n, sizeof *cc);
    fl_arena a;
    fl_arena_init(&a, 65536);
    fl_status rc = FL_ECONFLICT;
    size_t bad = 0;
    for (int attempt = 0; attempt < 5 && rc == FL_ECONFLICT; attempt++) {
        fl_arena_reset(&a);
        size_t done = 0;
        rc = FL_OK;
        for (size_t i = 0; i < n && rc == FL_OK; i++, done++) {
            rc = srv_commit_prepare(r, c, &ids[i], &crs[i], false, &a, &p[i], &err);
            bad = i;
        }
        if (rc != FL_OK) {
            for (size_t i = 0; i + 1 < done; i++)
                discard(c, &p[i]);
            break; /* stale requirements: 409 without retry */
        }
        uint32_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (!p[i].unchanged)
                cc[k++] = (fl_catalog_commit){ids[i], p[i].base_location, p[i].new_location};
        fault_point("sleep-before-swap");
        rc = k ? c->ops->commit_tables(c, cc, k, &err) : FL_OK;
        if (rc == FL_OK)
            fault_point("sleep-after-swap");
        if (rc != FL_OK) {
            for (size_t i = 0; i < n; i++)
                discard(c, &p[i]);
            if (rc == FL_ECONFLICT)
                continue;
        }
        break;
    }
    fl_arena_free(&a);
    const char *target = fl_arena_sprintf(&r->arena, "%zu tables", n);
    if (rc != FL_OK) {
        srv_audit(r, "commit-transaction", target, rc == FL_ECONFLICT ? "conflict" : "error",
                  err.msg);
        commit_failed(r, &ids[bad], rc, &err, !swap_refused(rc) && rc != FL_EINVAL);
        return;
    }
    atomic_fetch_add(&r->srv->metrics->commits, n);
    srv_audit(r, "commit-transaction", target, "ok", NULL);
    fl_server_respond(r, 204, NULL, NULL, 0);
}

fl_status srv_routes_commit(fl_server *s, fl_error *err)
{
    FL_TRY(srv_router_add(&s->router, "POST", "/v1/{prefix}/namespaces/{namespace}/tables/{table}",
                          h_commit, NULL, FL_ROUTE_MUTATION, err));
    return srv_router_add(&s->router, "POST", "/v1/{prefix}/transactions/commit", h_transaction,
                          NULL, FL_ROUTE_MUTATION, err);
}
