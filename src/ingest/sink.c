/*
 * sink.c - the pipeline sink (include/floe/ingest.h): buffered rows and
 * source positions committed together, fenced by an epoch.
 *
 * Life of a sink:
 *   open        load the table; claim epoch E = property + 1 (a properties
 *               commit whose validator insists the property is still what
 *               was read, retried on races); read the committed positions
 *               (state.c); begin a txn and a data writer.
 *   write       rows go to the data writer (in memory, then Parquet files
 *               under data/ that nothing references yet).
 *   checkpoint  close the writer; one txn: append the files + set the table
 *               property floe.pipeline.<name>.checkpoint; the snapshot
 *               summary carries name, epoch, checkpoint and positions. The
 *               validator (run on every attempt's refreshed base) refuses
 *               when the property epoch is above E (fenced) or the newest
 *               pipeline checkpoint on main is not the one this sink last
 *               saw (someone else committed positions).
 *   close       abort the open txn (its files are deleted).
 *
 * Crash anywhere: before the catalog swap nothing is visible (files are
 * orphans); after it, the positions are in the table and reopen returns them.
 *
 * Ownership: the sink owns t, x, w and its position map; c is borrowed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ingest/ingest_int.h"

struct fl_ingest_sink {
    fl_catalog *cat; /* borrowed */
    fl_ice_table *t;
    char *name;
    int64_t epoch;
    fl_ingest_options opt;
    ing_posmap pos;
    int64_t last_snapshot_id; /* the newest pipeline checkpoint on main as we know it, -1 none */
    int64_t checkpoint;       /* its number, 0 = none */
    char *pos_file;           /* its side file, or NULL */
    fl_ice_txn *x;            /* the open checkpoint txn */
    fl_ice_data_writer *w;
    /* the batch schema handed out: a copy, replaced only when the table's
     * current schema id changes, so batches outlive checkpoints */
    fl_arena schema_arena;
    fl_schema schema;
    int32_t schema_id;
    bool has_schema;
    ing_deltas del;       /* equality-delete keys, truncation (deltas.c) */
    uint64_t rows, bytes; /* buffered since the last checkpoint */
    int64_t newest_source_ms; /* fl_ingest_sink_note_source_time since then, INT64_MIN none */
    int64_t last_ms;      /* last checkpoint (or open) */
    bool broken;
};

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool valid_name(const char *s)
{
    size_t n = strlen(s);
    if (!n || n > 128)
        return false;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '_' || *p == '-' || *p == '.'))
            return false;
    return true;
}

/* ---- claiming an epoch ---- */

typedef struct claim_ctx {
    const char *name;
    int64_t expect; /* the property value the claim was computed from */
    bool raced;
} claim_ctx;

static fl_status claim_validate(void *ctx, const fl_ice_metadata *base, uint32_t attempt,
                                fl_error *err)
{
    claim_ctx *c = ctx;
    int64_t e = ing_prop_i64(base, c->name, "epoch");
    if (e == c->expect)
        return FL_OK;
    c->raced = true;
    return fl_errorf(err, FL_ECONFLICT, "pipeline %s: epoch %lld was claimed concurrently", c->name,
                     (long long)e);
}

static fl_status claim_epoch(fl_ingest_sink *s, fl_error *err)
{
    for (int tries = 0; tries < 32; tries++) {
        if (tries)
            FL_TRY(fl_ice_table_refresh(s->t, err));
        claim_ctx cc = {.name = s->name, .expect = ing_prop_i64(&s->t->meta, s->name, "epoch")};
        char key[256], val[32];
        snprintf(val, sizeof val, "%" PRId64, cc.expect + 1);
        fl_ice_kv kv = {.key = ing_prop_key(key, sizeof key, s->name, "epoch"), .value = val};
        fl_ice_map set = {.n = 1, .items = &kv};
        fl_ice_txn *x = NULL;
        FL_TRY(fl_ice_txn_begin(s->t, &x, err));
        fl_status rc = fl_ice_txn_set_properties(x, &set, NULL, 0, err);
        if (rc != FL_OK) {
            fl_ice_txn_abort(x);
            return rc;
        }
        fl_ice_txn_set_validator(x, claim_validate, &cc);
        rc = fl_ice_txn_commit(x, NULL, err);
        if (rc == FL_OK) {
            s->epoch = cc.expect + 1;
            return FL_OK;
        }
        if (!cc.raced)
            return fl_error_prefix(err, "pipeline %s: claiming epoch %lld", s->name,
                                   (long long)cc.expect + 1);
    }
    return fl_errorf(err, FL_ECONFLICT, "pipeline %s: could not claim an epoch (32 races lost)",
                     s->name);
}

/* ---- the open txn ---- */

static fl_status begin_txn(fl_ingest_sink *s, fl_error *err)
{
    FL_TRY(fl_ice_txn_begin(s->t, &s->x, err));
    FL_TRY(fl_ice_data_writer_open(s->x, &s->w, err));
    int32_t sid = s->t->meta.current_schema_id;
    if (s->has_schema && sid == s->schema_id)
        return FL_OK;
    fl_arena_free(&s->schema_arena);
    fl_arena_init(&s->schema_arena, 0);
    s->has_schema = false;
    if (fl_schema_copy(&s->schema_arena, fl_ice_data_writer_schema(s->w), &s->schema) != FL_OK)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    s->schema_id = sid;
    s->has_schema = true;
    return FL_OK;
}

static fl_status load_state(fl_ingest_sink *s, fl_error *err)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_ingest_state st;
    fl_status rc = fl_ingest_state_read(s->t->io, &s->t->meta, s->name, &a, &st, err);
    for (uint32_t i = 0; rc == FL_OK && i < st.positions.n; i++)
        rc = ing_posmap_set(&s->pos, st.positions.items[i].key, st.positions.items[i].value, false,
                            err);
    if (rc == FL_OK && st.has_checkpoint) {
        s->last_snapshot_id = st.snapshot_id;
        s->checkpoint = st.checkpoint;
        const fl_ice_snapshot *snap = fl_ice_metadata_snapshot(&s->t->meta, st.snapshot_id);
        const char *f = snap ? fl_ice_map_get(&snap->summary, FL_INGEST_SUM_POS_FILE) : NULL;
        if (f && !(s->pos_file = strdup(f)))
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    fl_arena_free(&a);
    return rc;
}

fl_status fl_ingest_sink_open(fl_catalog *c, const fl_table_ident *table, const char *pipeline,
                              const fl_ingest_options *opt, fl_ingest_sink **out, fl_error *err)
{
    *out = NULL;
    if (!pipeline || !valid_name(pipeline))
        return fl_errorf(err, FL_EINVAL,
                         "pipeline name '%s': use 1-128 letters, digits, '_', '-' or '.'",
                         pipeline ? pipeline : "");
    fl_ingest_sink *s = calloc(1, sizeof *s);
    if (!s || !(s->name = strdup(pipeline))) {
        free(s);
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    s->cat = c;
    s->last_snapshot_id = -1;
    s->newest_source_ms = INT64_MIN;
    fl_arena_init(&s->schema_arena, 0);
    if (opt)
        s->opt = *opt;
    if (s->opt.checkpoint_interval_ms <= 0)
        s->opt.checkpoint_interval_ms = 30000;
    if (!s->opt.checkpoint_rows)
        s->opt.checkpoint_rows = 1000000;
    if (!s->opt.checkpoint_bytes)
        s->opt.checkpoint_bytes = 256u << 20;
    fl_status rc = fl_ice_table_load(c, table, &s->t, err);
    if (rc == FL_OK)
        rc = claim_epoch(s, err);
    if (rc == FL_OK)
        rc = load_state(s, err);
    if (rc == FL_OK)
        rc = begin_txn(s, err);
    if (rc != FL_OK) {
        fl_ingest_sink_close(s);
        return rc;
    }
    s->last_ms = now_ms();
    *out = s;
    return FL_OK;
}

void fl_ingest_sink_close(fl_ingest_sink *s)
{
    if (!s)
        return;
    fl_ice_data_writer_abort(s->w);
    fl_ice_txn_abort(s->x);
    fl_ice_table_free(s->t);
    fl_arena_free(&s->schema_arena);
    ing_posmap_free(&s->pos);
    ing_deltas_free(&s->del);
    free(s->pos_file);
    free(s->name);
    free(s);
}

const fl_schema *fl_ingest_sink_schema(const fl_ingest_sink *s)
{
    return s->has_schema ? &s->schema : NULL;
}

const fl_ice_schema *fl_ingest_sink_ice_schema(const fl_ingest_sink *s)
{
    return fl_ice_metadata_current_schema(&s->t->meta);
}

const fl_ice_table *fl_ingest_sink_table(const fl_ingest_sink *s)
{
    return s->t;
}

const char *fl_ingest_sink_name(const fl_ingest_sink *s)
{
    return s->name;
}

int64_t fl_ingest_sink_epoch(const fl_ingest_sink *s)
{
    return s->epoch;
}

/* ---- buffering ---- */

static uint64_t batch_bytes(const fl_batch *b)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < b->ncols; i++) {
        size_t w = fl_type_width(b->cols[i].type);
        n += (uint64_t)b->nrows * (w ? w : 8) + b->cols[i].heap_len;
    }
    return n;
}

fl_status fl_ingest_sink_write(fl_ingest_sink *s, const fl_batch *b, fl_error *err)
{
    if (s->broken || !s->w)
        return fl_errorf(err, FL_EINVAL, "pipeline %s: the sink failed earlier", s->name);
    fl_status rc = fl_ice_data_writer_write(s->w, b, err);
    if (rc != FL_OK) {
        s->broken = true;
        return fl_error_prefix(err, "pipeline %s", s->name);
    }
    s->rows += fl_batch_live_rows(b);
    s->bytes += batch_bytes(b);
    return FL_OK;
}

fl_status fl_ingest_sink_delete(fl_ingest_sink *s, const fl_batch *keys, fl_error *err)
{
    if (s->broken || !s->w)
        return fl_errorf(err, FL_EINVAL, "pipeline %s: the sink failed earlier", s->name);
    if (s->del.truncate) /* nothing committed before survives anyway */
        return FL_OK;
    fl_status rc = ing_deltas_add_keys(&s->del, s->name, &s->t->meta, keys, err);
    if (rc != FL_OK)
        s->broken = true;
    return rc;
}

fl_status fl_ingest_sink_truncate(fl_ingest_sink *s, fl_error *err)
{
    if (s->broken || !s->w)
        return fl_errorf(err, FL_EINVAL, "pipeline %s: the sink failed earlier", s->name);
    ing_deltas_reset(&s->del);
    s->del.truncate = true;
    return FL_OK;
}

fl_status fl_ingest_sink_set_position(fl_ingest_sink *s, const char *key, const char *value,
                                      fl_error *err)
{
    size_t n = key ? strlen(key) : 0;
    if (!n || n > 1024 || !value)
        return fl_errorf(err, FL_EINVAL, "pipeline %s: position key must be 1-1024 bytes", s->name);
    for (const unsigned char *p = (const unsigned char *)key; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return fl_errorf(err, FL_EINVAL, "pipeline %s: position key has a control character",
                             s->name);
    if (!ing_utf8_valid(key) || !ing_utf8_valid(value))
        return fl_errorf(err, FL_EINVAL, "pipeline %s: position '%.200s' is not UTF-8", s->name,
                         key);
    return ing_posmap_set(&s->pos, key, value, true, err);
}

void fl_ingest_sink_note_source_time(fl_ingest_sink *s, int64_t unix_ms)
{
    if (unix_ms > s->newest_source_ms)
        s->newest_source_ms = unix_ms;
}

const char *fl_ingest_sink_position(const fl_ingest_sink *s, const char *key)
{
    const ing_pos *p = ing_posmap_find(&s->pos, key);
    return p ? p->value : NULL;
}

uint64_t fl_ingest_sink_pending_rows(const fl_ingest_sink *s)
{
    return s->rows;
}

uint64_t fl_ingest_sink_pending_deletes(const fl_ingest_sink *s)
{
    return s->del.nkeys;
}

static bool pending(const fl_ingest_sink *s)
{
    return s->rows || s->pos.ndirty || s->del.nkeys || s->del.truncate;
}

uint32_t fl_ingest_sink_pending_positions(const fl_ingest_sink *s)
{
    return s->pos.ndirty;
}

bool fl_ingest_sink_due(const fl_ingest_sink *s, int64_t now)
{
    if (!pending(s))
        return false;
    return now - s->last_ms >= s->opt.checkpoint_interval_ms ||
           s->rows + s->del.nkeys >= s->opt.checkpoint_rows ||
           s->bytes >= s->opt.checkpoint_bytes;
}

/* ---- the checkpoint commit ---- */

static fl_status ckpt_validate(void *ctx, const fl_ice_metadata *base, uint32_t attempt,
                               fl_error *err)
{
    fl_ingest_sink *s = ctx;
    int64_t e = ing_prop_i64(base, s->name, "epoch");
    if (e > s->epoch)
        return fl_errorf(err, FL_ECONFLICT,
                         "pipeline %s: fenced by epoch %lld (this writer has %lld)", s->name,
                         (long long)e, (long long)s->epoch);
    const fl_ice_snapshot *h = ing_newest_checkpoint(base, s->name);
    int64_t id = h ? h->snapshot_id : -1;
    if (id != s->last_snapshot_id)
        return fl_errorf(
            err, FL_ECONFLICT,
            "pipeline %s: the table holds checkpoint %lld (snapshot %lld, epoch %lld) "
            "that this writer (epoch %lld) did not start from",
            s->name, h ? (long long)ing_summary_i64(h, FL_INGEST_SUM_CHECKPOINT, 0) : 0LL,
            (long long)id, h ? (long long)ing_summary_i64(h, FL_INGEST_SUM_EPOCH, 0) : 0LL,
            (long long)s->epoch);
    return FL_OK;
}

/* Summary entries: pipeline, epoch, checkpoint, positions (inline or side file). */
static fl_status build_summary(fl_ingest_sink *s, int64_t ckpt, fl_arena *a, fl_ice_map *out,
                               const char **side_file, fl_error *err)
{
    bool inline_all = s->pos.n <= FL_INGEST_INLINE_POSITIONS;
    uint32_t cap = 6 + (inline_all ? s->pos.n : s->pos.ndirty);
    fl_ice_kv *kv = fl_arena_alloc(a, cap * sizeof *kv);
    if (!kv)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    uint32_t k = 0;
    kv[k++] = (fl_ice_kv){FL_INGEST_SUM_PIPELINE, s->name};
    kv[k++] = (fl_ice_kv){FL_INGEST_SUM_EPOCH, fl_arena_sprintf(a, "%" PRId64, s->epoch)};
    kv[k++] = (fl_ice_kv){FL_INGEST_SUM_CHECKPOINT, fl_arena_sprintf(a, "%" PRId64, ckpt)};
    if (s->newest_source_ms != INT64_MIN) {
        int64_t lag = now_ms() - s->newest_source_ms;
        kv[k++] = (fl_ice_kv){FL_INGEST_SUM_SOURCE_LAG_MS,
                              fl_arena_sprintf(a, "%" PRId64, lag > 0 ? lag : 0)};
    }
    *side_file = NULL;
    if (!inline_all) {
        const char *dir = fl_ice_map_get(&s->t->meta.properties, "write.metadata.path");
        char uuid[37];
        fl_ice_uuid4(uuid);
        const char *path =
            dir ? fl_arena_sprintf(a, "%s/floe-pipeline-%s-%" PRId64 "-%s.positions.json", dir,
                                   s->name, ckpt, uuid)
                : fl_arena_sprintf(a, "%s/metadata/floe-pipeline-%s-%" PRId64 "-%s.positions.json",
                                   s->t->meta.location, s->name, ckpt, uuid);
        kv[k++] = (fl_ice_kv){FL_INGEST_SUM_POS_FILE, path};
        kv[k++] = (fl_ice_kv){FL_INGEST_SUM_POS_COUNT, fl_arena_sprintf(a, "%u", s->pos.n)};
        *side_file = path;
    }
    for (uint32_t i = 0; i < s->pos.n; i++)
        if (inline_all || s->pos.v[i].dirty)
            kv[k++] =
                (fl_ice_kv){fl_arena_sprintf(a, FL_INGEST_SUM_POS_PREFIX "%s", s->pos.v[i].key),
                            s->pos.v[i].value};
    for (uint32_t i = 0; i < k; i++)
        if (!kv[i].key || !kv[i].value)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
    *out = (fl_ice_map){.n = k, .items = kv};
    return FL_OK;
}

/* The checkpoint's rows, plus what it removes: an append, or one row delta
 * with the equality deletes (keys) or the removal of every live file
 * (truncation). */
static fl_status add_changes(fl_ingest_sink *s, fl_ice_txn *x, const fl_ice_data_file *files,
                             uint32_t nfiles, fl_error *err)
{
    fl_arena *a = fl_ice_txn_arena(x);
    const fl_ice_metadata *m = fl_ice_txn_metadata(x);
    fl_ice_row_delta d = {.operation = "overwrite", .add_data = files, .nadd_data = nfiles};
    fl_ice_data_file eq;
    ing_file_list data = {0}, dels = {0};
    if (s->del.truncate) {
        FL_TRY(ing_deltas_live_files(s->t->io, m, a, &data, &dels, err));
        d.remove_data = data.paths;
        d.nremove_data = data.n;
        d.remove_deletes = dels.paths;
        d.nremove_deletes = dels.n;
        if (!nfiles)
            d.operation = "delete";
    } else if (s->del.nkeys) {
        FL_TRY(ing_deltas_write_keys(&s->del, s->t->io, m, a, &eq, err));
        FL_TRY(fl_ice_txn_own_file(x, eq.file_path, err)); /* deleted if the commit fails */
        d.add_deletes = &eq;
        d.nadd_deletes = 1;
    }
    if (!d.nremove_data && !d.nremove_deletes && !d.nadd_deletes)
        return fl_ice_txn_append(x, files, nfiles, err);
    return fl_ice_txn_row_delta(x, &d, err);
}

static fl_status commit_checkpoint(fl_ingest_sink *s, fl_ingest_commit *info, fl_error *err)
{
    fl_ice_data_file *files = NULL;
    uint32_t nfiles = 0;
    fl_ice_data_writer *w = s->w;
    s->w = NULL;
    FL_TRY(fl_ice_data_writer_close(w, &files, &nfiles, err));
    fl_ice_txn *x = s->x;
    fl_arena *a = fl_ice_txn_arena(x);
    int64_t ckpt = s->checkpoint + 1;
    fl_ice_map sum;
    const char *side = NULL;
    FL_TRY(add_changes(s, x, files, nfiles, err));
    FL_TRY(build_summary(s, ckpt, a, &sum, &side, err));
    FL_TRY(fl_ice_txn_set_snapshot_summary(x, &sum, err));
    char key[256], val[32];
    snprintf(val, sizeof val, "%" PRId64, ckpt);
    fl_ice_kv kv = {.key = ing_prop_key(key, sizeof key, s->name, "checkpoint"), .value = val};
    fl_ice_map props = {.n = 1, .items = &kv};
    FL_TRY(fl_ice_txn_set_properties(x, &props, NULL, 0, err));
    if (side) {
        FL_TRY(fl_ice_txn_own_file(x, side, err)); /* deleted if the commit fails */
        FL_TRY(ing_positions_file_write(s->t->io, side, s->name, s->epoch, ckpt, &s->pos, err));
    }
    fl_ice_txn_set_validator(x, ckpt_validate, s);
    /* the txn arena (side's storage) dies with the commit */
    char *side_copy = side ? strdup(side) : NULL;
    if (side && !side_copy)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    int64_t snap = -1;
    s->x = NULL;
    fl_status rc = fl_ice_txn_commit(x, &snap, err);
    if (rc != FL_OK) {
        free(side_copy);
        return rc;
    }
    if (s->pos_file) { /* superseded: only the newest checkpoint's side file is read */
        fl_error e2 = {0};
        fl_fileio_remove(s->t->io, s->pos_file, &e2);
    }
    free(s->pos_file);
    s->pos_file = side_copy;
    if (info)
        *info = (fl_ingest_commit){.committed = true,
                                   .snapshot_id = snap,
                                   .rows = s->rows,
                                   .data_files = nfiles,
                                   .checkpoint = ckpt};
    s->last_snapshot_id = snap;
    s->checkpoint = ckpt;
    return FL_OK;
}

fl_status fl_ingest_sink_evolve(fl_ingest_sink *s, const fl_ingest_evolution *ev, fl_error *err)
{
    if (s->broken || !s->w || !s->x)
        return fl_errorf(err, FL_EINVAL, "pipeline %s: the sink failed earlier", s->name);
    if (s->rows || s->del.nkeys || s->del.truncate)
        return fl_errorf(err, FL_EINVAL,
                         "pipeline %s: the table's schema can change only between checkpoints",
                         s->name);
    /* the open txn holds nothing: it is begun again on the new schema */
    fl_ice_data_writer_abort(s->w);
    fl_ice_txn_abort(s->x);
    s->w = NULL;
    s->x = NULL;
    fl_ice_txn *x = NULL;
    fl_status rc = fl_ice_txn_begin(s->t, &x, err);
    for (uint32_t i = 0; rc == FL_OK && i < ev->nadd; i++)
        rc = fl_ice_txn_add_column(x, NULL, ev->add[i].name, &ev->add[i].type, true, NULL, NULL,
                                   err);
    for (uint32_t i = 0; rc == FL_OK && i < ev->npromote; i++)
        rc = fl_ice_txn_update_column_type(x, ev->promote[i].name, &ev->promote[i].type, err);
    if (rc == FL_OK) {
        fl_ice_txn_set_validator(x, ckpt_validate, s); /* a fenced writer changes nothing */
        fl_ice_txn *c = x;
        x = NULL;
        rc = fl_ice_txn_commit(c, NULL, err);
    }
    fl_ice_txn_abort(x);
    if (rc == FL_OK)
        rc = begin_txn(s, err);
    if (rc != FL_OK) {
        s->broken = true;
        return fl_error_prefix(err, "pipeline %s: evolving the table's schema", s->name);
    }
    return FL_OK;
}

fl_status fl_ingest_sink_checkpoint(fl_ingest_sink *s, fl_ingest_commit *info, fl_error *err)
{
    if (info)
        memset(info, 0, sizeof *info);
    if (s->broken || !s->w || !s->x)
        return fl_errorf(err, FL_EINVAL, "pipeline %s: the sink failed earlier", s->name);
    if (!pending(s)) {
        s->last_ms = now_ms();
        return FL_OK;
    }
    fl_status rc = commit_checkpoint(s, info, err);
    if (rc != FL_OK) {
        s->broken = true;
        char own[160];
        snprintf(own, sizeof own, "pipeline %s:", s->name);
        if (!strncmp(err->msg, own, strlen(own))) /* the validator's: already names it */
            return rc;
        return fl_error_prefix(err, "pipeline %s: checkpoint %lld", s->name,
                               (long long)s->checkpoint + 1);
    }
    ing_posmap_clear_dirty(&s->pos);
    ing_deltas_reset(&s->del);
    s->rows = s->bytes = 0;
    s->newest_source_ms = INT64_MIN;
    s->last_ms = now_ms();
    rc = begin_txn(s, err);
    if (rc != FL_OK)
        s->broken = true;
    return rc;
}
