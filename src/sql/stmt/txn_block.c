/*
 * txn_block.c - staged Iceberg commits of a transaction block (design in
 * txn_block.h).
 *
 * This file works on the transaction internals (iceberg/txn_internal.h):
 * it moves recorded operations from a statement's txn into the table's
 * combined txn, and runs their build step against a base metadata without
 * swapping any catalog pointer (a *preview*). A preview is exactly a commit
 * attempt minus steps 2-3 of txn_commit.c (no catalog swap): the metadata
 * is written to a private file "<metadata dir>/floe-staged-<uuid>.metadata.json"
 * that only this session's wrapping catalog (txn_catalog.c) answers.
 *
 * Previews are incremental: statement k's new operations are built on top
 * of preview k-1 (the earlier operations' snapshots are part of that base,
 * and validation skips them as the txn's own), so a block of n statements
 * writes n metadata files, not n^2 snapshots. ROLLBACK TO rebuilds from the
 * committed base. Files: operations keep their own (new-file manifests,
 * reused by the real commit, deleted by an abort); each preview's attempt
 * files (manifest lists, merged manifests) and metadata file are listed in
 * the block and deleted when it ends, never referenced by a real commit.
 *
 * Ownership: everything here is malloc'd or in arenas the block owns.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iceberg/txn_internal.h"
#include "sql/stmt/txn_block.h"

typedef struct blk_table {
    char *key;          /* "ns.t" (malloc) */
    fl_ice_table *real; /* loaded from the inner catalog */
    fl_ice_txn *x;      /* the combined txn on real */
    fl_ice_txn **stmts; /* statement txns whose op states x uses (malloc'd array) */
    uint32_t nstmts, capstmts;
    uint32_t nbuilt;  /* ops of x built into prev */
    fl_arena parena;  /* prev lives here */
    fl_ice_metadata prev;
    char *prev_loc; /* malloc; NULL = no preview yet */
} blk_table;

typedef struct blk_savepoint {
    char *name;
    uint32_t ntables;
    uint32_t *nops, *nowned, *nstmts; /* per table, malloc'd */
} blk_savepoint;

struct fl_txn_block {
    fl_catalog *inner;
    fl_catalog *wrap;
    bool read_only, failed;
    blk_table **t;
    uint32_t nt, capt;
    char **files; /* preview files to delete at the end */
    uint32_t nfiles, capfiles;
    blk_savepoint *sp;
    uint32_t nsp, capsp;
};

static fl_status oom(fl_error *err)
{
    return fl_errorf(err, FL_ENOMEM, "transaction block: out of memory");
}

static bool grow(void **v, uint32_t *cap, uint32_t n, size_t elem)
{
    if (n < *cap)
        return true;
    uint32_t nc = *cap ? *cap * 2 : 8;
    void *p = realloc(*v, (size_t)nc * elem);
    if (!p)
        return false;
    *v = p;
    *cap = nc;
    return true;
}

fl_status fl_txn_block_open(fl_catalog *inner, bool read_only, fl_txn_block **out, fl_error *err)
{
    *out = NULL;
    fl_txn_block *b = calloc(1, sizeof *b);
    if (!b)
        return oom(err);
    b->inner = inner;
    b->read_only = read_only;
    fl_status rc = inner ? fl_txn_catalog_new(inner, b, &b->wrap, err) : FL_OK;
    if (rc != FL_OK) {
        free(b);
        return rc;
    }
    *out = b;
    return FL_OK;
}

fl_catalog *fl_txn_block_catalog(fl_txn_block *b)
{
    return b->wrap;
}

bool fl_txn_block_read_only(const fl_txn_block *b)
{
    return b->read_only;
}

bool fl_txn_block_failed(const fl_txn_block *b)
{
    return b->failed;
}

void fl_txn_block_set_failed(fl_txn_block *b)
{
    b->failed = true;
}

uint32_t fl_txn_block_ntables(const fl_txn_block *b)
{
    return b ? b->nt : 0;
}

static blk_table *find(const fl_txn_block *b, const char *key)
{
    for (uint32_t i = 0; i < b->nt; i++)
        if (!strcmp(b->t[i]->key, key))
            return b->t[i];
    return NULL;
}

const char *fl_txn_block_preview(const fl_txn_block *b, const fl_table_ident *id)
{
    if (!b || !b->nt)
        return NULL;
    fl_arena a;
    fl_arena_init(&a, 256);
    const char *key = fl_table_ident_str(id, &a);
    blk_table *bt = key ? find(b, key) : NULL;
    fl_arena_free(&a);
    return bt ? bt->prev_loc : NULL;
}

/* ---- files ---- */

static fl_status note_file(fl_txn_block *b, const char *path, fl_error *err)
{
    if (!grow((void **)&b->files, &b->capfiles, b->nfiles, sizeof *b->files))
        return oom(err);
    if (!(b->files[b->nfiles] = strdup(path)))
        return oom(err);
    b->nfiles++;
    return FL_OK;
}

static void delete_files(fl_txn_block *b)
{
    for (uint32_t i = 0; i < b->nfiles; i++) {
        fl_error e = {0};
        fl_fileio_remove(b->inner->io, b->files[i], &e);
        free(b->files[i]);
    }
    free(b->files);
    b->files = NULL;
    b->nfiles = b->capfiles = 0;
}

static fl_status write_file(fl_fileio *io, const char *path, const char *buf, size_t len,
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

/* ---- previews ---- */

/* Builds ops nbuilt.. of bt->x on top of the previous preview (or the
 * committed base) and writes the result as the new preview. *snap gets the
 * newest snapshot built (-1: none). */
static fl_status preview(fl_txn_block *b, blk_table *bt, int64_t *snap, fl_error *err)
{
    fl_ice_txn *x = bt->x;
    const fl_ice_metadata *base = bt->prev_loc ? &bt->prev : &bt->real->meta;
    const char *base_loc = bt->prev_loc ? bt->prev_loc : bt->real->metadata_location;
    txn_attempt at = {.base = base, .cur = *base, .number = 0, .now_ms = txn_now_ms()};
    fl_arena_init(&at.arena, 0);
    fl_status rc = FL_OK;
    for (uint32_t i = bt->nbuilt; i < x->nops && rc == FL_OK; i++) {
        rc = x->ops[i].vt->build(x, &x->ops[i], &at, err);
        if (rc != FL_OK)
            fl_error_prefix(err, "%s", x->ops[i].vt->name);
    }
    /* attempt files exist now whatever happens next: delete them with the block */
    for (uint32_t i = 0; i < at.files.n && rc == FL_OK; i++)
        rc = note_file(b, at.files.v[i], err);
    *snap = at.last_snapshot_id ? at.last_snapshot_id : -1;
    if (rc != FL_OK || at.nupdates == 0) {
        if (rc == FL_OK)
            bt->nbuilt = x->nops;
        fl_arena_free(&at.arena);
        return rc;
    }
    fl_ice_metadata final;
    char *json = NULL;
    size_t len = 0;
    char uuid[37];
    fl_ice_uuid4(uuid);
    const char *dir = txn_metadata_dir(base, &at.arena);
    const char *loc = dir ? fl_arena_sprintf(&at.arena, "%s/floe-staged-%s.metadata.json", dir,
                                             uuid)
                          : NULL;
    rc = loc ? fl_ice_metadata_apply(base, base_loc, at.updates, at.nupdates, at.now_ms,
                                     &at.arena, &final, err)
             : oom(err);
    if (rc == FL_OK)
        rc = fl_ice_metadata_write(&final, 0, &json, &len, err);
    if (rc == FL_OK)
        rc = note_file(b, loc, err);
    if (rc == FL_OK)
        rc = write_file(bt->real->io, loc, json, len, err);
    free(json);
    fl_arena na;
    fl_arena_init(&na, 0);
    fl_ice_metadata copy;
    char *nloc = NULL;
    if (rc == FL_OK && (txn_metadata_copy(&final, &na, &copy) != FL_OK || !(nloc = strdup(loc))))
        rc = oom(err);
    fl_arena_free(&at.arena);
    if (rc != FL_OK) {
        fl_arena_free(&na);
        return fl_error_prefix(err, "staging the transaction's changes");
    }
    fl_arena_free(&bt->parena);
    bt->parena = na;
    bt->prev = copy;
    free(bt->prev_loc);
    bt->prev_loc = nloc;
    bt->nbuilt = x->nops;
    return FL_OK;
}

/* Forgets the preview: the next one is built from the committed base. */
static void reset_preview(blk_table *bt)
{
    fl_arena_free(&bt->parena);
    fl_arena_init(&bt->parena, 0);
    memset(&bt->prev, 0, sizeof bt->prev);
    free(bt->prev_loc);
    bt->prev_loc = NULL;
    bt->nbuilt = 0;
}

/* ---- staging a statement ---- */

static fl_status new_table(fl_txn_block *b, fl_catalog *inner, const fl_table_ident *id,
                           const char *key, const fl_ice_txn *sx, blk_table **out, fl_error *err)
{
    if (!grow((void **)&b->t, &b->capt, b->nt, sizeof *b->t))
        return oom(err);
    blk_table *bt = calloc(1, sizeof *bt);
    if (!bt || !(bt->key = strdup(key))) {
        free(bt);
        return oom(err);
    }
    fl_arena_init(&bt->parena, 0);
    fl_status rc = fl_ice_table_load(inner, id, &bt->real, err);
    if (rc == FL_OK)
        rc = fl_ice_txn_begin(bt->real, &bt->x, err);
    if (rc == FL_OK && strcmp(sx->branch, "main") != 0)
        rc = fl_ice_txn_set_branch(bt->x, sx->branch, err);
    if (rc != FL_OK) {
        fl_ice_txn_abort(bt->x);
        fl_ice_table_free(bt->real);
        fl_arena_free(&bt->parena);
        free(bt->key);
        free(bt);
        return rc;
    }
    /* validation starts where the first statement read the table */
    bt->x->start_snapshot_id = sx->start_snapshot_id;
    bt->x->start_last_column_id = sx->start_last_column_id;
    bt->x->start_schema_id = sx->start_schema_id;
    bt->x->start_last_partition_id = sx->start_last_partition_id;
    bt->x->start_spec_id = sx->start_spec_id;
    bt->x->start_order_id = sx->start_order_id;
    b->t[b->nt++] = bt;
    *out = bt;
    return FL_OK;
}

/* Moves sx's files and operations into bt->x (sx stays alive in bt->stmts:
 * the operation states live in its arena). */
static fl_status adopt(blk_table *bt, fl_ice_txn *sx, fl_error *err)
{
    if (!grow((void **)&bt->stmts, &bt->capstmts, bt->nstmts, sizeof *bt->stmts)) {
        fl_ice_txn_abort(sx);
        return oom(err);
    }
    bt->stmts[bt->nstmts++] = sx;
    fl_ice_txn *x = bt->x;
    for (uint32_t i = 0; i < sx->owned.n; i++)
        if (!txn_paths_push(&x->owned, &x->arena, sx->owned.v[i])) {
            fl_ice_txn_abort(sx); /* deletes what x does not own yet */
            bt->stmts[--bt->nstmts] = NULL;
            return oom(err);
        }
    sx->owned.n = 0;
    uint32_t moved = 0;
    fl_status rc = FL_OK;
    for (; moved < sx->nops && rc == FL_OK; moved++) {
        txn_op *op = &sx->ops[moved], *nop = NULL;
        rc = txn_add_op(x, op->vt, op->state, &nop, err);
        if (rc == FL_OK) {
            nop->snapshot_id = op->snapshot_id;
            nop->owned = op->owned;
            op->owned.n = 0;
        }
    }
    sx->nops = 0; /* the ops not moved (only after a failure) own nothing yet */
    return rc;
}

fl_status fl_txn_block_stage(fl_txn_block *b, fl_catalog *inner, const fl_table_ident *id,
                             fl_ice_txn *sx, int64_t *snapshot_id, fl_error *err)
{
    *snapshot_id = -1;
    if (b->read_only) {
        fl_ice_txn_abort(sx);
        b->failed = true;
        return fl_errorf(err, FL_EINVAL, "cannot write in a read-only transaction");
    }
    if (sx->nops == 0) {
        fl_ice_txn_abort(sx);
        return FL_OK;
    }
    fl_arena a;
    fl_arena_init(&a, 256);
    const char *key = fl_table_ident_str(id, &a);
    blk_table *bt = key ? find(b, key) : NULL;
    fl_status rc = key ? FL_OK : oom(err);
    if (rc == FL_OK && !bt)
        rc = new_table(b, inner, id, key, sx, &bt, err);
    fl_arena_free(&a);
    if (rc != FL_OK) {
        fl_ice_txn_abort(sx);
        b->failed = true;
        return rc;
    }
    rc = adopt(bt, sx, err);
    if (rc == FL_OK)
        rc = preview(b, bt, snapshot_id, err);
    if (rc != FL_OK)
        b->failed = true;
    return rc;
}

/* ---- ending the block ---- */

static void free_table(blk_table *bt, bool abort_x)
{
    if (abort_x)
        fl_ice_txn_abort(bt->x);
    for (uint32_t i = 0; i < bt->nstmts; i++)
        txn_free(bt->stmts[i]); /* owns no files any more; its table is gone */
    free(bt->stmts);
    fl_ice_table_free(bt->real);
    fl_arena_free(&bt->parena);
    free(bt->prev_loc);
    free(bt->key);
    free(bt);
}

static void free_savepoint(blk_savepoint *sp)
{
    free(sp->name);
    free(sp->nops);
    free(sp->nowned);
    free(sp->nstmts);
}

static void free_block(fl_txn_block *b)
{
    delete_files(b);
    for (uint32_t i = 0; i < b->nsp; i++)
        free_savepoint(&b->sp[i]);
    free(b->sp);
    free(b->t);
    fl_txn_catalog_free(b->wrap);
    free(b);
}

fl_status fl_txn_block_commit(fl_txn_block *b, fl_error *err)
{
    fl_status rc = FL_OK;
    const char *done = NULL; /* the first table committed, for the message */
    uint32_t ndone = 0;
    fl_arena a;
    fl_arena_init(&a, 0);
    for (uint32_t i = 0; i < b->nt; i++) {
        blk_table *bt = b->t[i];
        if (rc != FL_OK) {
            free_table(bt, true);
            continue;
        }
        fl_ice_txn *x = bt->x;
        bt->x = NULL;
        int64_t snap = -1;
        rc = fl_ice_txn_commit(x, &snap, err); /* frees x (aborting it on failure) */
        if (rc != FL_OK) {
            fl_error_prefix(err, "COMMIT of table %s", bt->key);
            if (ndone)
                fl_error_prefix(err, "%u table(s) of this block (%s...) were committed before",
                                ndone, done);
        } else {
            ndone++;
            if (!done)
                done = fl_arena_strdup(&a, bt->key);
        }
        free_table(bt, false);
    }
    b->nt = 0;
    free_block(b);
    fl_arena_free(&a);
    return rc;
}

void fl_txn_block_rollback(fl_txn_block *b)
{
    if (!b)
        return;
    for (uint32_t i = 0; i < b->nt; i++)
        free_table(b->t[i], true);
    b->nt = 0;
    free_block(b);
}

/* ---- savepoints ---- */

static int32_t find_sp(const fl_txn_block *b, const char *name)
{
    for (uint32_t i = b->nsp; i-- > 0;)
        if (!strcmp(b->sp[i].name, name))
            return (int32_t)i;
    return -1;
}

fl_status fl_txn_block_savepoint(fl_txn_block *b, const char *name, fl_error *err)
{
    if (!grow((void **)&b->sp, &b->capsp, b->nsp, sizeof *b->sp))
        return oom(err);
    blk_savepoint sp = {.name = strdup(name ? name : ""), .ntables = b->nt};
    uint32_t n = b->nt ? b->nt : 1;
    sp.nops = calloc(n, sizeof *sp.nops);
    sp.nowned = calloc(n, sizeof *sp.nowned);
    sp.nstmts = calloc(n, sizeof *sp.nstmts);
    if (!sp.name || !sp.nops || !sp.nowned || !sp.nstmts) {
        free_savepoint(&sp);
        return oom(err);
    }
    for (uint32_t i = 0; i < b->nt; i++) {
        sp.nops[i] = b->t[i]->x->nops;
        sp.nowned[i] = b->t[i]->x->owned.n;
        sp.nstmts[i] = b->t[i]->nstmts;
    }
    b->sp[b->nsp++] = sp;
    return FL_OK;
}

static fl_status no_savepoint(const char *name, fl_error *err)
{
    return fl_errorf(err, FL_ENOTFOUND, "savepoint \"%s\" does not exist", name ? name : "");
}

fl_status fl_txn_block_release(fl_txn_block *b, const char *name, fl_error *err)
{
    int32_t k = find_sp(b, name ? name : "");
    if (k < 0)
        return no_savepoint(name, err);
    for (uint32_t i = (uint32_t)k; i < b->nsp; i++)
        free_savepoint(&b->sp[i]);
    b->nsp = (uint32_t)k;
    return FL_OK;
}

/* Drops the operations, owned files and statements of bt after the counts. */
static void truncate_table(fl_txn_block *b, blk_table *bt, uint32_t nops, uint32_t nowned,
                           uint32_t nstmts)
{
    fl_ice_txn *x = bt->x;
    fl_fileio *io = b->inner->io;
    for (uint32_t i = nops; i < x->nops; i++)
        txn_delete_paths(io, &x->ops[i].owned);
    x->nops = nops;
    for (uint32_t i = nowned; i < x->owned.n; i++) {
        fl_error e = {0};
        fl_fileio_remove(io, x->owned.v[i], &e);
    }
    x->owned.n = nowned;
    x->view_valid = false;
    for (uint32_t i = nstmts; i < bt->nstmts; i++)
        txn_free(bt->stmts[i]);
    bt->nstmts = nstmts;
    reset_preview(bt);
}

fl_status fl_txn_block_rollback_to(fl_txn_block *b, const char *name, fl_error *err)
{
    int32_t k = find_sp(b, name ? name : "");
    if (k < 0)
        return no_savepoint(name, err);
    blk_savepoint *sp = &b->sp[k];
    while (b->nt > sp->ntables)
        free_table(b->t[--b->nt], true);
    fl_status rc = FL_OK;
    for (uint32_t i = 0; i < b->nt; i++) {
        blk_table *bt = b->t[i];
        if (bt->x->nops == sp->nops[i] && bt->nstmts == sp->nstmts[i])
            continue;
        truncate_table(b, bt, sp->nops[i], sp->nowned[i], sp->nstmts[i]);
        int64_t snap;
        if (rc == FL_OK && bt->x->nops)
            rc = preview(b, bt, &snap, err);
    }
    /* the savepoint stays (PostgreSQL keeps it after ROLLBACK TO); later ones go */
    for (uint32_t i = (uint32_t)k + 1; i < b->nsp; i++)
        free_savepoint(&b->sp[i]);
    b->nsp = (uint32_t)k + 1;
    b->failed = rc != FL_OK;
    return rc;
}
