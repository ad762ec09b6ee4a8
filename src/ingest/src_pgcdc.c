/*
 * src_pgcdc.c - the Postgres CDC pipeline (fl_ingest_pg_*, floe/ingest.h):
 * a replication slot's changes into one Iceberg table per published table,
 * exactly once, with upserts and deletes by primary key.
 *
 * Open:
 *   1. list the publication's tables; open each target's sink (pg_target.c),
 *      reading its position "pg:<slot>";
 *   2. resume when the slot exists and every table has a position: stream
 *      from the slot's confirmed LSN;
 *   3. otherwise (first run, or a run that died before every table had its
 *      copy) drop the slot if it exists, create it with an exported snapshot,
 *      copy every table through that snapshot and commit each copy as a
 *      replacement of the table's contents (so a copy repeated after a crash
 *      is harmless), with the slot's consistent point as position; stream
 *      from there.
 *
 * Streaming: changes fold into each target's map; a transaction that ended
 * at or before a table's position (its final LSN is below it) is skipped
 * for that table. A checkpoint, between transactions only, commits every
 * target with pending changes at the end LSN of the last transaction, then
 * confirms that LSN to the slot: a table with nothing pending lost nothing
 * up to there, and one that committed holds it. If a commit fails the slot
 * is not confirmed and the next run re-reads from the slot; tables that did
 * commit skip what they hold.
 *
 * Protocol 1 (no streamed in-progress transactions): the server decodes a
 * transaction only once it commits, so changes arrive whole.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ingest/ingest_int.h"
#include "ingest/pg_target.h"

struct fl_ingest_pg {
    fl_arena arena; /* names, namespace levels */
    pgt_config cfg;
    fl_namespace ns;
    const char *conninfo, *slot, *publication;
    pg_target **t;
    uint32_t nt, cap;
    pgcdc_repl *repl;
    pgcdc_decoder *dec;
    bool in_txn;
    pgcdc_lsn cur_final;  /* the transaction being decoded: its commit LSN */
    pgcdc_lsn last_end;   /* end LSN of the last whole transaction */
    pgcdc_lsn confirmed;  /* what the slot was told */
    int64_t last_commit_ms; /* that transaction's commit time (Unix ms), 0 before one */
    int64_t last_ckpt_ms; /* last checkpoint (or open) */
    fl_ingest_pg_stats st;
    fl_error cb_err; /* a snapshot callback's own error */
};

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static fl_status add_target(fl_ingest_pg *p, const char *nsp, const char *rel, pg_target **out,
                            fl_error *err)
{
    if (p->nt == p->cap) {
        uint32_t nc = p->cap ? p->cap * 2 : 8;
        pg_target **nv = realloc(p->t, nc * sizeof *nv);
        if (!nv)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        p->t = nv;
        p->cap = nc;
    }
    pg_target *t = pgt_new(&p->ns, nsp, rel);
    if (!t)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < p->nt; i++)
        if (!strcmp(p->t[i]->id.name, t->id.name)) {
            fl_status rc = fl_errorf(err, FL_EINVAL, "%s.%s and %s.%s would both land in table %s",
                                     nsp, rel, p->t[i]->nsp, p->t[i]->rel, t->id.name);
            pgt_free(t);
            return rc;
        }
    p->t[p->nt++] = t;
    *out = t;
    return FL_OK;
}

static pg_target *by_name(fl_ingest_pg *p, const char *nsp, const char *rel)
{
    for (uint32_t i = 0; i < p->nt; i++)
        if (!strcmp(p->t[i]->nsp, nsp) && !strcmp(p->t[i]->rel, rel))
            return p->t[i];
    return NULL;
}

static pg_target *by_oid(fl_ingest_pg *p, uint32_t oid)
{
    for (uint32_t i = 0; i < p->nt; i++)
        if (p->t[i]->oid == oid)
            return p->t[i];
    return NULL;
}

/* ---- the stream's callbacks ---- */

static fl_status on_begin(void *ctx, const pgcdc_begin *b, fl_error *err)
{
    (void)err;
    fl_ingest_pg *p = ctx;
    p->in_txn = true;
    p->cur_final = b->final_lsn;
    return FL_OK;
}

static fl_status on_commit(void *ctx, const pgcdc_commit *c, fl_error *err)
{
    (void)err;
    fl_ingest_pg *p = ctx;
    p->in_txn = false;
    p->last_end = c->end_lsn;
    p->last_commit_ms = c->commit_ts / 1000 + 946684800000LL; /* from PostgreSQL's 2000 epoch */
    p->st.txns++;
    return FL_OK;
}

static fl_status on_relation(void *ctx, const pgcdc_rel *rel, const pgcdc_rel *old, fl_error *err)
{
    (void)old;
    fl_ingest_pg *p = ctx;
    const char *nsp = *rel->nspname ? rel->nspname : "pg_catalog";
    pg_target *t = by_name(p, nsp, rel->relname);
    if (!t) { /* added to the publication since the open: changes from now on */
        bool exists;
        FL_TRY(add_target(p, nsp, rel->relname, &t, err));
        FL_TRY(pgt_open(t, &p->cfg, &exists, err));
    }
    return pgt_bind(t, &p->cfg, rel, err);
}

/* The target of rel, or NULL when the transaction is one the table holds. */
static fl_status target_of(fl_ingest_pg *p, const pgcdc_rel *rel, pg_target **out, fl_error *err)
{
    pg_target *t = by_oid(p, rel->oid);
    if (!t)
        return fl_errorf(err, FL_ECORRUPT, "a change of %s.%s before its relation message",
                         rel->nspname, rel->relname);
    *out = t->has_pos && p->cur_final < t->pos ? NULL : t;
    return FL_OK;
}

static fl_status on_change(void *ctx, const pgcdc_change *c, fl_error *err)
{
    fl_ingest_pg *p = ctx;
    pg_target *t = NULL;
    FL_TRY(target_of(p, c->rel, &t, err));
    if (!t) {
        p->st.skipped++;
        return FL_OK;
    }
    p->st.changes++;
    return pgt_change(t, c, err);
}

static fl_status on_truncate(void *ctx, const pgcdc_truncate *tr, fl_error *err)
{
    fl_ingest_pg *p = ctx;
    for (uint32_t i = 0; i < tr->nrels; i++) {
        pg_target *t = NULL;
        FL_TRY(target_of(p, tr->rels[i], &t, err));
        if (t)
            pgt_truncate(t);
    }
    return FL_OK;
}

/* ---- the initial copy ---- */

typedef struct snap_ctx {
    fl_ingest_pg *p;
    pg_target *t;
} snap_ctx;

static fl_status snap_relation(void *ctx, const pgcdc_rel *rel, const pgcdc_rel *old, fl_error *err)
{
    (void)old;
    snap_ctx *s = ctx;
    return pgt_bind(s->t, &s->p->cfg, rel, err);
}

static fl_status snap_change(void *ctx, const pgcdc_change *c, fl_error *err)
{
    snap_ctx *s = ctx;
    s->p->st.snapshot_rows++;
    return pgt_snapshot_row(s->t, c->new_tuple, err);
}

static fl_status copy_tables(fl_ingest_pg *p, bool slot_exists, pgcdc_lsn *start, fl_error *err)
{
    if (slot_exists)
        FL_TRY(pgcdc_repl_drop_slot(p->repl, err));
    pgcdc_slot slot;
    FL_TRY(pgcdc_repl_create_slot(p->repl, false, &slot, err));
    pgcdc_snapshot *snap = NULL;
    FL_TRY(pgcdc_snapshot_open(p->conninfo, slot.snapshot, &snap, err));
    fl_status rc = FL_OK;
    for (uint32_t i = 0; i < p->nt && rc == FL_OK; i++) {
        pg_target *t = p->t[i];
        snap_ctx sc = {p, t};
        pgcdc_callbacks cb = {.ctx = &sc, .on_relation = snap_relation, .on_change = snap_change};
        pgt_truncate(t); /* the copy replaces whatever the table held */
        rc = pgcdc_snapshot_read(snap, t->nsp, t->rel, &cb, err);
        uint64_t rows = 0;
        if (rc == FL_OK)
            rc = pgt_commit(t, &p->cfg, slot.consistent_point, &rows, err);
        if (rc != FL_OK)
            fl_error_prefix(err, "copying %s.%s", t->nsp, t->rel);
        t->oid = 0; /* the stream announces its own relations */
    }
    pgcdc_snapshot_close(snap);
    p->st.snapshot = true;
    *start = slot.consistent_point;
    return rc;
}

/* ---- open / poll / checkpoint ---- */

static fl_status list_targets(fl_ingest_pg *p, fl_error *err)
{
    pgcdc_snapshot *snap = NULL;
    FL_TRY(pgcdc_snapshot_open(p->conninfo, NULL, &snap, err));
    const pgcdc_table *tabs = NULL;
    size_t n = 0;
    fl_status rc = pgcdc_snapshot_tables(snap, p->publication, &tabs, &n, err);
    if (rc == FL_OK && !n)
        rc = fl_errorf(err, FL_EINVAL, "publication %s has no tables", p->publication);
    for (size_t i = 0; rc == FL_OK && i < n; i++) {
        pg_target *t = NULL;
        bool exists;
        rc = add_target(p, tabs[i].nspname, tabs[i].relname, &t, err);
        if (rc == FL_OK)
            rc = pgt_open(t, &p->cfg, &exists, err);
    }
    pgcdc_snapshot_close(snap);
    return rc;
}

static fl_status setup(fl_ingest_pg *p, fl_catalog *c, const fl_ingest_pg_options *o, fl_error *err)
{
    fl_arena *a = &p->arena;
    const char **lv = fl_arena_calloc(a, o->ns.nlevels ? o->ns.nlevels : 1, sizeof *lv);
    if (!lv)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < o->ns.nlevels; i++)
        if (!(lv[i] = fl_arena_strdup(a, o->ns.levels[i])))
            return fl_errorf(err, FL_ENOMEM, "out of memory");
    p->ns = (fl_namespace){.nlevels = o->ns.nlevels, .levels = lv};
    p->conninfo = fl_arena_strdup(a, o->conninfo);
    p->slot = fl_arena_strdup(a, o->slot);
    p->publication = fl_arena_strdup(a, o->publication);
    p->cfg = (pgt_config){.cat = c,
                          .pipeline = o->pipeline ? fl_arena_strdup(a, o->pipeline)
                                                  : fl_arena_sprintf(a, "pg-%s", o->slot),
                          .slot_key = fl_arena_sprintf(a, "pg:%s", o->slot),
                          .sink = o->sink};
    if (!p->conninfo || !p->slot || !p->publication || !p->cfg.pipeline || !p->cfg.slot_key)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    return FL_OK;
}

fl_status fl_ingest_pg_open(fl_catalog *c, const fl_ingest_pg_options *o, fl_ingest_pg **out,
                            fl_error *err)
{
    *out = NULL;
    if (!o->conninfo || !o->slot || !o->publication)
        return fl_errorf(err, FL_EINVAL,
                         "postgres: a connection, a slot and a publication are "
                         "required");
    fl_ingest_pg *p = calloc(1, sizeof *p);
    if (!p)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_arena_init(&p->arena, 0);
    fl_status rc = setup(p, c, o, err);
    if (rc == FL_OK)
        rc = list_targets(p, err);
    pgcdc_repl_options ro = {.conninfo = p->conninfo,
                             .slot = p->slot,
                             .publications = p->publication,
                             .proto_version = 1};
    if (rc == FL_OK)
        rc = pgcdc_repl_connect(&ro, &p->repl, err);
    pgcdc_lsn confirmed = 0, start = 0;
    bool slot_exists = false, resume = false;
    if (rc == FL_OK) {
        fl_error e2 = {0};
        fl_status s2 = pgcdc_repl_slot_confirmed(p->repl, &confirmed, &e2);
        slot_exists = s2 == FL_OK;
        if (s2 != FL_OK && s2 != FL_ENOTFOUND) {
            *err = e2;
            rc = s2;
        }
        resume = slot_exists;
        for (uint32_t i = 0; i < p->nt; i++)
            resume = resume && p->t[i]->sink && p->t[i]->has_pos;
    }
    if (rc == FL_OK && !resume)
        rc = copy_tables(p, slot_exists, &start, err);
    pgcdc_callbacks cb = {.ctx = p,
                          .on_begin = on_begin,
                          .on_commit = on_commit,
                          .on_relation = on_relation,
                          .on_change = on_change,
                          .on_truncate = on_truncate};
    if (rc == FL_OK && !(p->dec = pgcdc_decoder_new(1, &cb)))
        rc = fl_errorf(err, FL_ENOMEM, "out of memory");
    if (rc == FL_OK)
        rc = pgcdc_repl_start(p->repl, start, p->dec, err);
    if (rc != FL_OK) {
        fl_ingest_pg_close(p);
        return rc;
    }
    p->last_end = p->confirmed = resume ? confirmed : start;
    p->last_ckpt_ms = now_ms();
    *out = p;
    return FL_OK;
}

fl_status fl_ingest_pg_poll(fl_ingest_pg *p, int timeout_ms, fl_ingest_pg_stats *st, fl_error *err)
{
    size_t n = 0;
    fl_status rc = pgcdc_repl_poll(p->repl, timeout_ms, &n, err);
    if (st)
        *st = p->st;
    return rc;
}

bool fl_ingest_pg_due(const fl_ingest_pg *p, int64_t now)
{
    if (p->in_txn)
        return false;
    bool pending = p->last_end > p->confirmed;
    for (uint32_t i = 0; i < p->nt; i++) {
        if (pgt_pending_changes(p->t[i]) >= p->cfg.sink.checkpoint_rows &&
            p->cfg.sink.checkpoint_rows)
            return true;
        pending = pending || pgt_pending(p->t[i]);
    }
    int64_t every =
        p->cfg.sink.checkpoint_interval_ms > 0 ? p->cfg.sink.checkpoint_interval_ms : 30000;
    return pending && now - p->last_ckpt_ms >= every;
}

fl_status fl_ingest_pg_checkpoint(fl_ingest_pg *p, uint32_t *tables, fl_error *err)
{
    if (tables)
        *tables = 0;
    if (p->in_txn)
        return fl_errorf(err, FL_EINVAL, "postgres: a checkpoint inside a source transaction");
    for (uint32_t i = 0; i < p->nt; i++) {
        pg_target *t = p->t[i];
        if (!pgt_pending(t))
            continue;
        uint64_t rows;
        if (p->last_commit_ms) /* the lag the commit records */
            fl_ingest_sink_note_source_time(t->sink, p->last_commit_ms);
        fl_status rc = pgt_commit(t, &p->cfg, p->last_end, &rows, err);
        if (rc != FL_OK)
            return fl_error_prefix(err, "table %s (from %s.%s)", t->id.name, t->nsp, t->rel);
        if (tables)
            (*tables)++;
    }
    if (p->last_end > p->confirmed) {
        FL_TRY(pgcdc_repl_confirm(p->repl, p->last_end, err));
        p->confirmed = p->last_end;
    }
    p->last_ckpt_ms = now_ms();
    return FL_OK;
}

void fl_ingest_pg_close(fl_ingest_pg *p)
{
    if (!p)
        return;
    pgcdc_repl_close(p->repl);
    pgcdc_decoder_free(p->dec);
    for (uint32_t i = 0; i < p->nt; i++)
        pgt_free(p->t[i]);
    free(p->t);
    fl_arena_free(&p->arena);
    free(p);
}

const char *fl_ingest_pg_name(const fl_ingest_pg *p)
{
    return p->cfg.pipeline;
}

uint32_t fl_ingest_pg_ntables(const fl_ingest_pg *p)
{
    return p->nt;
}

bool fl_ingest_pg_in_txn(const fl_ingest_pg *p)
{
    return p->in_txn;
}
