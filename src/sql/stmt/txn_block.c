/*
 * txn_block.c - staged Iceberg commits of a transaction block (design in
 * txn_block.h).
 *
 * It uses the staging API of ice_table.h ("2b. staging"): a statement's
 * txn is adopted by the table's combined txn (fl_ice_txn_adopt), and the
 * combined txn's new operations are built against a base metadata without
 * swapping any catalog pointer (fl_ice_txn_preview: a commit attempt minus
 * the catalog swap): the metadata is written to a private file
 * "<metadata dir>/floe-staged-<uuid>.metadata.json" that only this
 * session's wrapping catalog (txn_catalog.c) answers.
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
 * Savepoints record a fl_ice_txn_mark per staged table; ROLLBACK TO
 * truncates the combined txn to it (fl_ice_txn_truncate).
 *
 * Ownership: everything here is malloc'd or in arenas the block owns; the
 * statement txns belong to the combined txn that adopted them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql/stmt/txn_block.h"

typedef struct blk_table {
    char *key;          /* "ns.t" (malloc) */
    fl_ice_table *real; /* loaded from the inner catalog */
    fl_ice_txn *x;      /* the combined txn on real (owns the statement txns) */
    uint32_t nbuilt;    /* ops of x built into prev */
    fl_arena parena;    /* prev and prev_loc live here */
    fl_ice_metadata prev;
    const char *prev_loc; /* NULL = no preview yet */
} blk_table;

typedef struct blk_savepoint {
    char *name;
    uint32_t ntables;
    fl_ice_txn_mark *marks; /* per table, malloc'd */
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

static fl_status note_file(void *ctx, const char *path, fl_error *err)
{
    fl_txn_block *b = ctx;
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

/* ---- previews ---- */

/* Builds ops nbuilt.. of bt->x on top of the previous preview (or the
 * committed base) and writes the result as the new preview. *snap gets the
 * newest snapshot built (-1: none). */
static fl_status preview(fl_txn_block *b, blk_table *bt, int64_t *snap, fl_error *err)
{
    const fl_ice_metadata *base = bt->prev_loc ? &bt->prev : &bt->real->meta;
    const char *base_loc = bt->prev_loc ? bt->prev_loc : bt->real->metadata_location;
    fl_arena na;
    fl_arena_init(&na, 0);
    fl_ice_preview pv;
    fl_status rc =
        fl_ice_txn_preview(bt->x, bt->nbuilt, base, base_loc, note_file, b, &na, &pv, err);
    *snap = pv.snapshot_id;
    if (rc != FL_OK || !pv.location) {
        if (rc == FL_OK)
            bt->nbuilt = fl_ice_txn_nops(bt->x);
        fl_arena_free(&na);
        return rc;
    }
    fl_arena_free(&bt->parena);
    bt->parena = na;
    bt->prev = pv.meta;
    bt->prev_loc = pv.location;
    bt->nbuilt = fl_ice_txn_nops(bt->x);
    return FL_OK;
}

/* Forgets the preview: the next one is built from the committed base. */
static void reset_preview(blk_table *bt)
{
    fl_arena_free(&bt->parena);
    fl_arena_init(&bt->parena, 0);
    memset(&bt->prev, 0, sizeof bt->prev);
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
    /* validation starts where the first statement read the table */
    fl_status rc = fl_ice_table_load(inner, id, &bt->real, err);
    if (rc == FL_OK)
        rc = fl_ice_txn_begin_like(bt->real, sx, &bt->x, err);
    if (rc != FL_OK) {
        fl_ice_table_free(bt->real);
        fl_arena_free(&bt->parena);
        free(bt->key);
        free(bt);
        return rc;
    }
    b->t[b->nt++] = bt;
    *out = bt;
    return FL_OK;
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
    if (fl_ice_txn_nops(sx) == 0) {
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
    rc = fl_ice_txn_adopt(bt->x, sx, err);
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
        fl_ice_txn_abort(bt->x); /* frees the statement txns it adopted */
    fl_ice_table_free(bt->real);
    fl_arena_free(&bt->parena);
    free(bt->key);
    free(bt);
}

static void free_savepoint(blk_savepoint *sp)
{
    free(sp->name);
    free(sp->marks);
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
    sp.marks = calloc(n, sizeof *sp.marks);
    if (!sp.name || !sp.marks) {
        free_savepoint(&sp);
        return oom(err);
    }
    for (uint32_t i = 0; i < b->nt; i++)
        sp.marks[i] = fl_ice_txn_get_mark(b->t[i]->x);
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
        fl_ice_txn_mark now = fl_ice_txn_get_mark(bt->x);
        if (!memcmp(&now, &sp->marks[i], sizeof now))
            continue;
        fl_ice_txn_truncate(bt->x, sp->marks[i]);
        reset_preview(bt);
        int64_t snap;
        if (rc == FL_OK && fl_ice_txn_nops(bt->x))
            rc = preview(b, bt, &snap, err);
    }
    /* the savepoint stays (PostgreSQL keeps it after ROLLBACK TO); later ones go */
    for (uint32_t i = (uint32_t)k + 1; i < b->nsp; i++)
        free_savepoint(&b->sp[i]);
    b->nsp = (uint32_t)k + 1;
    b->failed = rc != FL_OK;
    return rc;
}
