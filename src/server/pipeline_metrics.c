/*
 * pipeline_metrics.c - the ingestion pipelines in /metrics: per pipeline
 * and table, the numbers SHOW PIPELINES shows, computed by the same code
 * (fl_ingest_pipelines, include/floe/ingest.h) from what each table records
 * in its metadata (properties floe.pipeline.<name>.epoch, the snapshot
 * summaries floe.pipeline...):
 *
 *   floe_pipeline_rows_total{pipeline,table}          rows_committed
 *   floe_pipeline_commits_total                       commits
 *   floe_pipeline_rows_last_hour                      rows_last_hour
 *   floe_pipeline_epoch, floe_pipeline_checkpoint     epoch, checkpoint
 *   floe_pipeline_last_commit_timestamp_seconds       last_commit
 *   floe_pipeline_source_lag_seconds                  source_lag_ms / 1000
 *   floe_pipeline_positions                           positions
 *   floe_pipeline_dead_letter_rows                    dead_letter_rows
 *
 * (seconds_since_commit is time() - last_commit in PromQL; a sample of it
 * would only be as fresh as the cache below.) A sample is absent where SHOW
 * PIPELINES shows NULL. Commits and rows count the pipeline's snapshots
 * still in the metadata, so expiring snapshots lowers them: Prometheus
 * takes that for a counter reset, rate() stays right between expiries.
 *
 * Cost: pipelines are known only from each table's metadata, so a refresh
 * loads the current metadata of every table (no manifest, no data; a
 * positions side file only for a pipeline with more than 32 positions; a
 * dead-letter table only when it is listed next to a pipeline's table).
 * To keep a scrape cheap that is bounded: the result is cached for
 * PIPE_TTL_MS and shared by every scraper (one refresh at a time, under
 * the cache's mutex: concurrent scrapers wait for it instead of walking the
 * catalog too), and a refresh looks at most PIPE_MAX_TABLES tables
 * (floe_pipeline_scan_truncated says when it stopped short).
 *
 * Authorization: /metrics is a public route (scrapers often carry no
 * credentials) and its other families name no table; these do, and the
 * positions behind them are the source's. So a scrape without valid
 * credentials gets none of them; one with a bearer token (validated as on
 * any route) gets the tables its principal may read: visible and READ, as
 * SHOW PIPELINES asks, the dead-letter rows only when it may read that
 * table too. --insecure-no-auth: all of them (every check passes there).
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/ice_table.h"
#include "floe/ingest.h"
#include "server/server_internal.h"

#define PIPE_TTL_MS 5000
#define PIPE_MAX_TABLES 2000
#define PIPE_MAX_DEPTH 16 /* deeper nesting than any catalog we write */

/* One pipeline of one table, as of the last refresh. Strings in the
 * cache's arena; names already escaped for a label value. */
typedef struct pipe_entry {
    fl_namespace ns;
    const char *table, *dl_table; /* dl_table NULL: no dead-letter table listed */
    const char *label_table, *label_pipeline;
    bool has_checkpoint;
    int64_t rows, commits, rows_hour, epoch, checkpoint, last_ms, lag_ms, positions;
    int64_t dl_rows; /* -1: none */
} pipe_entry;

struct srv_pipe_cache {
    pthread_mutex_t mu;
    fl_arena arena; /* the entries' strings */
    pipe_entry *v;  /* malloc'd */
    uint32_t n;
    uint32_t tables; /* looked at by the last refresh */
    bool truncated;  /* it stopped at PIPE_MAX_TABLES */
    int64_t expires_ms;
};

/* A refresh in progress: everything goes to a new arena and array, swapped
 * in only when complete. */
typedef struct collect {
    fl_catalog *cat;
    fl_arena *a;
    pipe_entry *v;
    uint32_t n, cap, tables;
    bool truncated;
    int64_t now;
} collect;

srv_pipe_cache *srv_pipe_cache_new(void)
{
    srv_pipe_cache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    pthread_mutex_init(&c->mu, NULL);
    fl_arena_init(&c->arena, 0);
    return c;
}

void srv_pipe_cache_free(srv_pipe_cache *c)
{
    if (!c)
        return;
    fl_arena_free(&c->arena);
    free(c->v);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

/* s as a label value: backslash, double quote and newline escaped. */
static const char *label_escape(fl_arena *a, const char *s)
{
    size_t n = strlen(s);
    char *o = fl_arena_alloc(a, 2 * n + 1);
    if (!o)
        return NULL;
    char *p = o;
    for (; *s; s++) {
        if (*s == '\\' || *s == '"' || *s == '\n')
            *p++ = '\\';
        *p++ = *s == '\n' ? 'n' : *s;
    }
    *p = '\0';
    return o;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

/* The dead-letter table of table i if the listing has one, else NULL. */
static const char *dead_letter_of(fl_arena *a, const char **tables, uint32_t nt, uint32_t i)
{
    const char *want = fl_arena_sprintf(a, "%s%s", tables[i], FL_INGEST_DEAD_LETTER_SUFFIX);
    for (uint32_t j = 0; want && j < nt; j++)
        if (!strcmp(tables[j], want))
            return tables[j];
    return NULL;
}

/* Current total-records of ns.name, -1 when it cannot be read. */
static int64_t total_records(fl_catalog *cat, const fl_namespace *ns, const char *name)
{
    fl_table_ident id = {*ns, name};
    fl_ice_table *t = NULL;
    fl_error e;
    fl_error_clear(&e);
    if (fl_ice_table_load(cat, &id, &t, &e) != FL_OK)
        return -1;
    const fl_ice_snapshot *s = fl_ice_metadata_current_snapshot(&t->meta);
    const char *total = s ? fl_ice_map_get(&s->summary, "total-records") : NULL;
    int64_t n = total ? strtoll(total, NULL, 10) : 0;
    fl_ice_table_free(t);
    return n;
}

static fl_status add_entry(collect *c, const pipe_entry *e, fl_error *err)
{
    if (c->n == c->cap) {
        uint32_t nc = c->cap ? 2 * c->cap : 16;
        pipe_entry *nv = realloc(c->v, nc * sizeof *nv);
        if (!nv)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        c->v = nv;
        c->cap = nc;
    }
    c->v[c->n++] = *e;
    return FL_OK;
}

static fl_status add_pipelines(collect *c, const fl_namespace *ns, const char *table,
                               const char *dl_table, const fl_ingest_pipeline_stats *ps,
                               uint32_t np, fl_error *err)
{
    const char *nsname = fl_namespace_str(ns, c->a);
    const char *label =
        nsname ? label_escape(c->a, fl_arena_sprintf(c->a, "%s.%s", nsname, table)) : NULL;
    int64_t dl_rows = np && dl_table ? total_records(c->cat, ns, dl_table) : -1;
    for (uint32_t i = 0; i < np; i++) {
        const fl_ingest_state *st = &ps[i].state;
        pipe_entry e = {
            .ns = *ns,
            .table = table,
            .dl_table = dl_rows >= 0 ? dl_table : NULL,
            .label_table = label,
            .label_pipeline = label_escape(c->a, ps[i].pipeline),
            .has_checkpoint = st->has_checkpoint,
            .rows = ps[i].rows,
            .commits = ps[i].commits,
            .rows_hour = ps[i].rows_last_hour,
            .epoch = st->epoch,
            .checkpoint = st->checkpoint,
            .last_ms = st->timestamp_ms,
            .lag_ms = st->source_lag_ms,
            .positions = st->positions.n,
            .dl_rows = dl_rows,
        };
        if (!e.label_table || !e.label_pipeline)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        FL_TRY(add_entry(c, &e, err));
    }
    return FL_OK;
}

/* Table i of a listing. A table that cannot be read (dropped since the
 * listing, a pipeline state that cannot be read) is left out and logged:
 * one bad table must not blank every pipeline's metrics. */
static fl_status add_table(collect *c, const fl_namespace *ns, const char **tables, uint32_t nt,
                           uint32_t i, fl_error *err)
{
    fl_table_ident id = {*ns, tables[i]};
    fl_ice_table *t = NULL;
    fl_error e;
    fl_error_clear(&e);
    fl_status rc = fl_ice_table_load(c->cat, &id, &t, &e);
    fl_ingest_pipeline_stats *ps = NULL;
    uint32_t np = 0;
    if (rc == FL_OK)
        rc = fl_ingest_pipelines(t->io, &t->meta, c->now, c->a, &ps, &np, &e);
    fl_ice_table_free(t);
    if (rc == FL_ENOMEM)
        return fl_errorf(err, FL_ENOMEM, "%s", e.msg);
    if (rc != FL_OK) {
        if (rc != FL_ENOTFOUND)
            srv_log("warn", "pipeline-metrics", "table %s: %s",
                    fl_table_ident_str(&id, c->a) ? fl_table_ident_str(&id, c->a) : "?", e.msg);
        return FL_OK;
    }
    return add_pipelines(c, ns, tables[i], dead_letter_of(c->a, tables, nt, i), ps, np, err);
}

static fl_status walk_ns(collect *c, const fl_namespace *ns, uint32_t depth, fl_error *err)
{
    if (depth > PIPE_MAX_DEPTH || c->truncated)
        return FL_OK;
    const char **tables = NULL;
    uint32_t nt = 0;
    if (ns->nlevels)
        FL_TRY(c->cat->ops->list_tables(c->cat, ns, c->a, &tables, &nt, err));
    for (uint32_t i = 0; i < nt; i++) {
        if (ends_with(tables[i], FL_INGEST_DEAD_LETTER_SUFFIX))
            continue; /* read with its table, for dead_letter_rows */
        if (c->tables == PIPE_MAX_TABLES) {
            c->truncated = true;
            return FL_OK;
        }
        c->tables++;
        FL_TRY(add_table(c, ns, tables, nt, i, err));
    }
    fl_namespace *kids = NULL;
    uint32_t nk = 0;
    FL_TRY(c->cat->ops->list_namespaces(c->cat, ns->nlevels ? ns : NULL, c->a, &kids, &nk, err));
    for (uint32_t i = 0; i < nk; i++)
        FL_TRY(walk_ns(c, &kids[i], depth + 1, err));
    return FL_OK;
}

/* Recomputes the entries when they are older than PIPE_TTL_MS. On failure
 * the old ones stay, and the next try waits for the TTL too (a catalog
 * that is down is not asked on every scrape). Caller holds c->mu. */
static void refresh(fl_server_request *r, srv_pipe_cache *pc)
{
    int64_t now = srv_now_ms();
    if (now < pc->expires_ms)
        return;
    pc->expires_ms = now + PIPE_TTL_MS;
    fl_arena a;
    fl_arena_init(&a, 0);
    collect c = {.cat = srv_cat(r), .a = &a, .now = now};
    fl_namespace root = {0};
    fl_error err;
    fl_error_clear(&err);
    if (walk_ns(&c, &root, 0, &err) != FL_OK) {
        srv_log("warn", "pipeline-metrics", "refresh failed: %s", err.msg);
        free(c.v);
        fl_arena_free(&a);
        return;
    }
    fl_arena_free(&pc->arena);
    free(pc->v);
    pc->arena = a;
    pc->v = c.v;
    pc->n = c.n;
    pc->tables = c.tables;
    pc->truncated = c.truncated;
}

/* Who scrapes: true with r->principal set when the request carries valid
 * credentials (or the server runs without authentication). */
static bool scraper_known(fl_server_request *r)
{
    fl_server *s = r->srv;
    if (!s->opt.insecure_no_auth && (!fl_server_req_header(r, "Authorization") || !s->auth))
        return false;
    fl_error err = {0};
    return srv_identify(r, &err) == FL_OK;
}

enum { V_ROWS, V_COMMITS, V_HOUR, V_EPOCH, V_CHECKPOINT, V_LAST, V_LAG, V_POSITIONS, V_DEAD };

typedef struct family {
    const char *name, *type, *help;
    int what;
    bool ms; /* the value is milliseconds, shown in seconds */
} family;

static const family FAMILIES[] = {
    {"floe_pipeline_rows_total", "counter",
     "Rows the pipeline's commits still in the table's metadata added.", V_ROWS, false},
    {"floe_pipeline_commits_total", "counter",
     "The pipeline's commits (snapshots) still in the table's metadata.", V_COMMITS, false},
    {"floe_pipeline_rows_last_hour", "gauge", "Rows the pipeline's commits of the last hour added.",
     V_HOUR, false},
    {"floe_pipeline_epoch", "gauge", "The newest writer epoch claimed for the pipeline.", V_EPOCH,
     false},
    {"floe_pipeline_checkpoint", "gauge", "The checkpoint number of the pipeline's newest commit.",
     V_CHECKPOINT, false},
    {"floe_pipeline_last_commit_timestamp_seconds", "gauge",
     "Commit time of the pipeline's newest commit (Unix seconds).", V_LAST, true},
    {"floe_pipeline_source_lag_seconds", "gauge",
     "How far the newest commit's data was behind its source when it committed.", V_LAG, true},
    {"floe_pipeline_positions", "gauge", "Source positions the newest commit records.", V_POSITIONS,
     false},
    {"floe_pipeline_dead_letter_rows", "gauge", "Rows of the table's dead-letter table.", V_DEAD,
     false},
};

/* The value of family f for e; false when e has none (NULL in SHOW PIPELINES). */
static bool value_of(const pipe_entry *e, int what, int64_t *v)
{
    switch (what) {
    case V_ROWS: *v = e->rows; return true;
    case V_COMMITS: *v = e->commits; return true;
    case V_HOUR: *v = e->rows_hour; return true;
    case V_EPOCH: *v = e->epoch; return true;
    case V_CHECKPOINT: *v = e->checkpoint; return e->has_checkpoint;
    case V_LAST: *v = e->last_ms; return e->has_checkpoint;
    case V_LAG: *v = e->lag_ms; return e->has_checkpoint && e->lag_ms >= 0;
    case V_POSITIONS: *v = e->positions; return true;
    default: *v = e->dl_rows; return e->dl_rows >= 0;
    }
}

static void put_family(srv_sbuf *b, const family *f, const srv_pipe_cache *pc, const bool *shown,
                       const bool *dl_shown)
{
    srv_put(b, "# HELP %s %s\n# TYPE %s %s\n", f->name, f->help, f->name, f->type);
    for (uint32_t i = 0; i < pc->n; i++) {
        const pipe_entry *e = &pc->v[i];
        int64_t v;
        if (!shown[i] || (f->what == V_DEAD && !dl_shown[i]) || !value_of(e, f->what, &v))
            continue;
        srv_put(b, "%s{pipeline=\"%s\",table=\"%s\"} ", f->name, e->label_pipeline, e->label_table);
        if (f->ms)
            srv_put(b, "%" PRId64 ".%03d\n", v / 1000, (int)(v % 1000));
        else
            srv_put(b, "%" PRId64 "\n", v);
    }
}

static void put_all(fl_server_request *r, const srv_pipe_cache *pc, srv_sbuf *b)
{
    bool *shown = fl_arena_calloc(&r->arena, pc->n + 1, sizeof *shown);
    bool *dl_shown = fl_arena_calloc(&r->arena, pc->n + 1, sizeof *dl_shown);
    if (!shown || !dl_shown) {
        b->oom = true;
        return;
    }
    for (uint32_t i = 0; i < pc->n; i++) {
        const pipe_entry *e = &pc->v[i];
        shown[i] = srv_may_read(r, &e->ns, e->table);
        dl_shown[i] = shown[i] && e->dl_table && srv_may_read(r, &e->ns, e->dl_table);
    }
    for (size_t f = 0; f < sizeof FAMILIES / sizeof FAMILIES[0]; f++)
        put_family(b, &FAMILIES[f], pc, shown, dl_shown);
    srv_put(b,
            "# HELP floe_pipeline_scan_tables Tables the last pipeline refresh looked at.\n"
            "# TYPE floe_pipeline_scan_tables gauge\nfloe_pipeline_scan_tables %" PRIu32 "\n"
            "# HELP floe_pipeline_scan_truncated 1 when it stopped at %d tables.\n"
            "# TYPE floe_pipeline_scan_truncated gauge\nfloe_pipeline_scan_truncated %d\n",
            pc->tables, PIPE_MAX_TABLES, pc->truncated ? 1 : 0);
}

void srv_pipe_metrics_put(fl_server_request *r, srv_sbuf *b)
{
    if (!r || !r->srv->pipes || !scraper_known(r))
        return;
    srv_pipe_cache *pc = r->srv->pipes;
    pthread_mutex_lock(&pc->mu);
    refresh(r, pc);
    put_all(r, pc, b);
    pthread_mutex_unlock(&pc->mu);
}
