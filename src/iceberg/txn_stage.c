/*
 * txn_stage.c - transactions spanning several statements (ice_table.h,
 * "2b. staging"): adopting a statement's operations into a combined txn,
 * marks and truncation for savepoints, and previews.
 *
 * A preview is exactly a commit attempt (txn_commit.c) minus the catalog
 * swap: the operations from_op.. are built in order against the given base
 * (txn_attempt.cur starts at base), their updates are applied to base with
 * fl_ice_metadata_apply, and the result is serialized to a private metadata
 * file "<metadata dir>/floe-staged-<uuid>.metadata.json" (the metadata dir
 * honours write.metadata.path). The operations keep what a real commit
 * reuses (their snapshot ids and new-file manifests, op-owned); every
 * attempt-owned file (manifest lists, merged manifests) and the metadata
 * file are reported through on_file, since no commit will ever reference
 * them.
 *
 * Adoption moves operations (vt, state, snapshot id, owned files) and the
 * txn-owned files of a statement's txn into the combined txn; the states
 * stay in the statement txn's arena, so the combined txn keeps the
 * statement txn in x->adopted and frees it in txn_free.
 *
 * Ownership: x owns the adopted txns; the preview's metadata and strings are
 * deep-copied into the caller's arena; attempt memory is freed here.
 */
#include <stdlib.h>
#include <string.h>

#include "iceberg/txn_internal.h"

static fl_status oom(fl_error *err)
{
    return fl_errorf(err, FL_ENOMEM, "transaction: out of memory");
}

uint32_t fl_ice_txn_nops(const fl_ice_txn *x)
{
    return x ? x->nops : 0;
}

fl_status fl_ice_txn_begin_like(fl_ice_table *t, const fl_ice_txn *like, fl_ice_txn **out,
                                fl_error *err)
{
    *out = NULL;
    fl_ice_txn *x = NULL;
    FL_TRY(fl_ice_txn_begin(t, &x, err));
    if (strcmp(like->branch, "main") != 0) {
        const char *b = fl_arena_strdup(&x->arena, like->branch);
        if (!b) {
            txn_free(x);
            return oom(err);
        }
        x->branch = b;
    }
    x->start_snapshot_id = like->start_snapshot_id;
    x->start_last_column_id = like->start_last_column_id;
    x->start_schema_id = like->start_schema_id;
    x->start_last_partition_id = like->start_last_partition_id;
    x->start_spec_id = like->start_spec_id;
    x->start_order_id = like->start_order_id;
    *out = x;
    return FL_OK;
}

fl_status fl_ice_txn_adopt(fl_ice_txn *x, fl_ice_txn *from, fl_error *err)
{
    if (x->nadopted == x->capadopted) {
        uint32_t nc = x->capadopted ? x->capadopted * 2 : 8;
        fl_ice_txn **v = realloc(x->adopted, (size_t)nc * sizeof *v);
        if (!v) {
            fl_ice_txn_abort(from);
            return oom(err);
        }
        x->adopted = v;
        x->capadopted = nc;
    }
    /* from's owned files first: on failure from still owns every one of them
     * (x's copies of the paths pushed so far are dropped again) */
    uint32_t nowned = x->owned.n;
    for (uint32_t i = 0; i < from->owned.n; i++)
        if (!txn_paths_push(&x->owned, &x->arena, from->owned.v[i])) {
            x->owned.n = nowned;
            fl_ice_txn_abort(from);
            return oom(err);
        }
    from->owned.n = 0;
    x->adopted[x->nadopted++] = from;
    fl_status rc = FL_OK;
    uint32_t moved = 0;
    while (moved < from->nops) {
        txn_op *op = &from->ops[moved], *nop = NULL;
        if ((rc = txn_add_op(x, op->vt, op->state, &nop, err)) != FL_OK)
            break;
        nop->snapshot_id = op->snapshot_id;
        nop->owned = op->owned; /* paths in from's arena, which lives as long as x */
        op->owned.n = 0;
        moved++;
    }
    /* after a failure the ops not moved are dropped; unbuilt ops own no files */
    for (uint32_t i = moved; i < from->nops; i++)
        txn_delete_paths(x->t->io, &from->ops[i].owned);
    from->nops = 0;
    return rc;
}

fl_ice_txn_mark fl_ice_txn_get_mark(const fl_ice_txn *x)
{
    return (fl_ice_txn_mark){.nops = x->nops, .nowned = x->owned.n, .nadopted = x->nadopted};
}

void fl_ice_txn_truncate(fl_ice_txn *x, fl_ice_txn_mark m)
{
    fl_fileio *io = x->t->io;
    for (uint32_t i = m.nops; i < x->nops; i++)
        txn_delete_paths(io, &x->ops[i].owned);
    if (m.nops < x->nops)
        x->nops = m.nops;
    for (uint32_t i = m.nowned; i < x->owned.n; i++) {
        fl_error e = {0};
        fl_fileio_remove(io, x->owned.v[i], &e);
    }
    if (m.nowned < x->owned.n)
        x->owned.n = m.nowned;
    for (uint32_t i = m.nadopted; i < x->nadopted; i++)
        txn_free(x->adopted[i]);
    if (m.nadopted < x->nadopted)
        x->nadopted = m.nadopted;
    x->view_valid = false;
}

/* Applies at's updates to base, writes the metadata file and copies the
 * result into a. */
static fl_status write_preview(fl_ice_txn *x, txn_attempt *at, const char *base_location,
                               fl_ice_file_fn on_file, void *ctx, fl_arena *a,
                               fl_ice_preview *out, fl_error *err)
{
    char uuid[37];
    fl_ice_uuid4(uuid);
    const char *dir = txn_metadata_dir(at->base, &at->arena);
    const char *loc =
        dir ? fl_arena_sprintf(&at->arena, "%s/floe-staged-%s.metadata.json", dir, uuid) : NULL;
    if (!loc)
        return oom(err);
    fl_ice_metadata final;
    FL_TRY(fl_ice_metadata_apply(at->base, base_location, at->updates, at->nupdates, at->now_ms,
                                 &at->arena, &final, err));
    char *json = NULL;
    size_t len = 0;
    FL_TRY(fl_ice_metadata_write(&final, 0, &json, &len, err));
    fl_status rc = on_file(ctx, loc, err);
    if (rc == FL_OK)
        rc = txn_write_file(x->t->io, loc, json, len, err);
    free(json);
    FL_TRY(rc);
    if (txn_metadata_copy(&final, a, &out->meta) != FL_OK ||
        !(out->location = fl_arena_strdup(a, loc)))
        return oom(err);
    return FL_OK;
}

fl_status fl_ice_txn_preview(fl_ice_txn *x, uint32_t from_op, const fl_ice_metadata *base,
                             const char *base_location, fl_ice_file_fn on_file, void *ctx,
                             fl_arena *a, fl_ice_preview *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    out->snapshot_id = -1;
    txn_attempt at = {.base = base, .cur = *base, .number = 0, .now_ms = txn_now_ms()};
    fl_arena_init(&at.arena, 0);
    fl_status rc = FL_OK;
    for (uint32_t i = from_op; i < x->nops && rc == FL_OK; i++) {
        rc = x->ops[i].vt->build(x, &x->ops[i], &at, err);
        if (rc != FL_OK)
            fl_error_prefix(err, "%s", x->ops[i].vt->name);
    }
    /* the attempt's files exist now whatever happens next */
    fl_status frc = FL_OK;
    for (uint32_t i = 0; i < at.files.n && frc == FL_OK; i++)
        frc = on_file(ctx, at.files.v[i], rc == FL_OK ? err : &(fl_error){0});
    if (rc == FL_OK)
        rc = frc;
    if (at.last_snapshot_id)
        out->snapshot_id = at.last_snapshot_id;
    if (rc == FL_OK && at.nupdates) {
        rc = write_preview(x, &at, base_location, on_file, ctx, a, out, err);
        if (rc != FL_OK)
            fl_error_prefix(err, "staging the transaction's changes");
    }
    fl_arena_free(&at.arena);
    return rc;
}
