/*
 * h_ingest.c - HTTP ingestion into an Iceberg table:
 *
 *   POST /v1/ingest/{namespace}/{table}
 *
 * Body by Content-Type: application/x-ndjson, application/json (an array of
 * objects) or text/csv (with a header); columns by name, coerced to the
 * table's schema (fl_ingest_body_write, src/ingest/src_http.c). Needs WRITE
 * on the table through the one authorization point (srv_authorize): 403
 * before anything else, so a principal learns nothing of tables it may not
 * write; then 404 when the table does not exist.
 *
 * Acknowledgement "committed": 200 only after the rows are in an Iceberg
 * commit. Each table has one ingestion sink (pipeline "http", its own
 * catalog handle), kept open across requests and driven by one request at
 * a time under the table's mutex: check the retry headers, convert and
 * buffer the body, record the positions, checkpoint (rows + positions in
 * one snapshot). Backpressure: one table may occupy at most half of the
 * server's worker threads (threads / 2, at least 1: the one committing and
 * those waiting); a request beyond is 429 with Retry-After, so a slow table
 * never starves the other endpoints. A body over the server's max-body-bytes is 413
 * (http.c, before this handler).
 *
 * Exactly-once retries, recognised from the table itself (the sink's
 * committed positions, so a SIGKILL between the commit and the response
 * loses nothing):
 *   Idempotency-Key: K   - the last ING_IDEM_WINDOW keys of the table are
 *     positions "http:idem:<slot>" = "<rows>\t<principal>\t<K>" (a ring;
 *     "http:idem:next" counts). A key seen there is a duplicate.
 *   Producer-Id: P, Producer-Seq: N - position "http:producer:<principal>/<P>"
 *     = "<N> <rows>"; N <= the committed sequence is a duplicate; gaps are
 *     accepted (sequences need only increase).
 * A duplicate is answered 200 {"duplicate": true} and writes nothing.
 * Keys and producers are scoped by principal, so one principal cannot
 * suppress another's batches.
 *
 * Ownership: srv_ingest (s->ingest) owns the per-table entries, their
 * catalog handles and sinks; freed by srv_ingest_free after the HTTP
 * server stopped (no request running).
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "floe/ingest.h"
#include "server/server_internal.h"

#define ING_PIPELINE "http"
#define ING_MAX_TABLES 1024
#define ING_IDEM_WINDOW 256 /* idempotency keys remembered per table */
#define ING_KEY_MAX 200

typedef struct ing_table {
    char *key; /* namespace param (levels 0x1F-separated) 0x1E table */
    char **levels;
    fl_table_ident id;  /* points into levels / key copies */
    pthread_mutex_t mu; /* one request drives the sink at a time */
    uint32_t waiting;   /* requests holding or waiting for mu (srv_ingest.mu) */
    fl_catalog *cat;
    fl_ingest_sink *sink;
    struct ing_table *next;
} ing_table;

struct srv_ingest {
    pthread_mutex_t mu;
    ing_table *tables;
    uint32_t ntables;
};

static void table_free(ing_table *t)
{
    fl_ingest_sink_close(t->sink);
    if (t->cat)
        fl_catalog_close(t->cat);
    for (uint32_t i = 0; t->levels && i < t->id.ns.nlevels; i++)
        free(t->levels[i]);
    free(t->levels);
    free((char *)t->id.name);
    free(t->key);
    pthread_mutex_destroy(&t->mu);
    free(t);
}

void srv_ingest_free(fl_server *s)
{
    if (!s->ingest)
        return;
    for (ing_table *t = s->ingest->tables, *n; t; t = n) {
        n = t->next;
        table_free(t);
    }
    pthread_mutex_destroy(&s->ingest->mu);
    free(s->ingest);
    s->ingest = NULL;
}

static ing_table *table_new(const char *key, const fl_table_ident *id)
{
    ing_table *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    pthread_mutex_init(&t->mu, NULL);
    t->key = strdup(key);
    t->levels = calloc(id->ns.nlevels ? id->ns.nlevels : 1, sizeof *t->levels);
    t->id.name = strdup(id->name);
    bool ok = t->key && t->levels && t->id.name;
    for (uint32_t i = 0; ok && i < id->ns.nlevels; i++) {
        ok = (t->levels[i] = strdup(id->ns.levels[i])) != NULL;
        t->id.ns.nlevels = i + 1;
    }
    t->id.ns.levels = (const char *const *)t->levels;
    if (!ok) {
        table_free(t);
        return NULL;
    }
    return t;
}

/* The entry of id, created when absent, with the request counted as
 * waiting; NULL after responding (429 queue full, 503 too many tables). */
static ing_table *table_enter(fl_server_request *r, const fl_table_ident *id)
{
    struct srv_ingest *g = r->srv->ingest;
    const char *key =
        fl_arena_sprintf(&r->arena, "%s\x1e%s", fl_server_req_param(r, "namespace"), id->name);
    if (!key) {
        fl_server_respond_error(r, 500, "InternalServerError", "out of memory");
        return NULL;
    }
    pthread_mutex_lock(&g->mu);
    ing_table *t = g->tables;
    while (t && strcmp(t->key, key) != 0)
        t = t->next;
    if (!t && g->ntables < ING_MAX_TABLES && (t = table_new(key, id))) {
        t->next = g->tables;
        g->tables = t;
        g->ntables++;
    }
    uint32_t bound = r->srv->opt.threads / 2 ? r->srv->opt.threads / 2 : 1;
    bool busy = t && t->waiting >= bound;
    if (t && !busy)
        t->waiting++;
    pthread_mutex_unlock(&g->mu);
    if (!t) {
        fl_server_response_header(r, "Retry-After", "5");
        fl_server_respond_error(r, 503, "ServiceUnavailableException",
                                "ingestion: too many tables open (%d)", ING_MAX_TABLES);
        return NULL;
    }
    if (busy) {
        fl_server_response_header(r, "Retry-After", "1");
        fl_server_respond_error(r, 429, "TooManyRequestsException",
                                "ingestion into %s.%s: %u requests running or queued already",
                                srv_ns_dotted(&id->ns, &r->arena), id->name, bound);
        return NULL;
    }
    pthread_mutex_lock(&t->mu);
    return t;
}

/* Releases t; an entry without a sink (the table was not found, or its
 * sink failed) that nobody waits for is dropped with its catalog handle, so
 * requests naming absent tables hold nothing. */
static void table_leave(fl_server_request *r, ing_table *t)
{
    struct srv_ingest *g = r->srv->ingest;
    pthread_mutex_unlock(&t->mu);
    pthread_mutex_lock(&g->mu);
    bool drop = --t->waiting == 0 && !t->sink;
    if (drop) {
        ing_table **pp = &g->tables;
        while (*pp != t)
            pp = &(*pp)->next;
        *pp = t->next;
        g->ntables--;
    }
    pthread_mutex_unlock(&g->mu);
    if (drop)
        table_free(t);
}

/* Drops the sink (its uncommitted rows die with it); the next request
 * opens a new one, which reads the committed positions back. */
static void sink_reset(ing_table *t)
{
    fl_ingest_sink_close(t->sink);
    t->sink = NULL;
}

static bool sink_ready(fl_server_request *r, ing_table *t)
{
    fl_error err = {0};
    fl_status rc = FL_OK;
    if (!t->cat) {
        fl_server *s = r->srv;
        rc = fl_catalog_open_uri(s->catalog_uri, s->catalog_name, s->warehouse, s->io, &t->cat,
                                 &err);
        if (rc == FL_OK)
            srv_confine(s, t->cat);
        else
            t->cat = NULL;
    }
    if (rc == FL_OK && !t->sink)
        rc = fl_ingest_sink_open(t->cat, &t->id, ING_PIPELINE, NULL, &t->sink, &err);
    if (rc == FL_OK)
        return true;
    t->sink = NULL;
    if (rc == FL_ENOTFOUND)
        fl_server_respond_error(r, 404, "NoSuchTableException", "Table does not exist: %s.%s",
                                srv_ns_dotted(&t->id.ns, &r->arena), t->id.name);
    else
        srv_respond_status(r, rc, &err, "ingestion");
    return false;
}

/* ---- the retry headers ---- */

typedef struct retry_hdrs {
    const char *idem;     /* Idempotency-Key or NULL */
    const char *producer; /* Producer-Id or NULL */
    uint64_t seq;
    const char *prod_key; /* "http:producer:<principal>/<id>" */
} retry_hdrs;

static bool printable(const char *s, size_t max, bool strict)
{
    size_t n = strlen(s);
    if (!n || n > max)
        return false;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x21 || *p > 0x7e)
            return false;
        if (strict && !((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                        (*p >= '0' && *p <= '9') || strchr("._:-", *p)))
            return false;
    }
    return true;
}

static bool read_retry_headers(fl_server_request *r, retry_hdrs *h)
{
    memset(h, 0, sizeof *h);
    h->idem = fl_server_req_header(r, "Idempotency-Key");
    if (h->idem && !printable(h->idem, ING_KEY_MAX, false)) {
        fl_server_respond_error(r, 400, "BadRequestException",
                                "Idempotency-Key: 1-%d printable ASCII characters", ING_KEY_MAX);
        return false;
    }
    h->producer = fl_server_req_header(r, "Producer-Id");
    const char *seq = fl_server_req_header(r, "Producer-Seq");
    if (!h->producer && !seq)
        return true;
    char *end = NULL;
    if (!h->producer || !seq || !printable(h->producer, 128, true) || seq[0] < '0' ||
        seq[0] > '9' || (h->seq = strtoull(seq, &end, 10), *end) || strlen(seq) > 19) {
        fl_server_respond_error(r, 400, "BadRequestException",
                                "Producer-Id (1-128 of [A-Za-z0-9._:-]) and Producer-Seq (a "
                                "decimal integer below 10^19) go together");
        return false;
    }
    h->prod_key =
        fl_arena_sprintf(&r->arena, "http:producer:%s/%s", r->principal.name, h->producer);
    return h->prod_key != NULL;
}

static uint64_t pos_u64(const char *v)
{
    return v ? strtoull(v, NULL, 10) : 0;
}

/* The ring slot holding (principal, key), or -1. */
static int idem_find(fl_ingest_sink *s, const char *principal, const char *key, uint64_t *rows)
{
    uint64_t next = pos_u64(fl_ingest_sink_position(s, "http:idem:next"));
    uint64_t n = next < ING_IDEM_WINDOW ? next : ING_IDEM_WINDOW;
    size_t pl = strlen(principal);
    for (uint64_t i = 0; i < n; i++) {
        char slot[32];
        snprintf(slot, sizeof slot, "http:idem:%" PRIu64, i);
        const char *v = fl_ingest_sink_position(s, slot);
        const char *tab = v ? strchr(v, '\t') : NULL;
        if (tab && !strncmp(tab + 1, principal, pl) && tab[1 + pl] == '\t' &&
            !strcmp(tab + 2 + pl, key)) {
            *rows = pos_u64(v);
            return (int)i;
        }
    }
    return -1;
}

/* True (and *rows when known, else -1) when a committed batch carries these headers. */
static bool is_duplicate(fl_server_request *r, fl_ingest_sink *s, const retry_hdrs *h,
                         int64_t *rows)
{
    uint64_t n = 0;
    *rows = -1;
    if (h->idem && idem_find(s, r->principal.name, h->idem, &n) >= 0) {
        *rows = (int64_t)n;
        return true;
    }
    const char *v = h->prod_key ? fl_ingest_sink_position(s, h->prod_key) : NULL;
    if (!v)
        return false;
    char *sp = NULL;
    uint64_t last = strtoull(v, &sp, 10);
    if (h->seq > last)
        return false;
    if (h->seq == last && sp && *sp == ' ')
        *rows = (int64_t)strtoull(sp + 1, NULL, 10);
    return true;
}

static fl_status record_retry_positions(fl_server_request *r, fl_ingest_sink *s,
                                        const retry_hdrs *h, uint64_t rows, fl_error *err)
{
    char v[ING_KEY_MAX + FL_PRINCIPAL_NAME_MAX + 48];
    if (h->prod_key) {
        snprintf(v, sizeof v, "%" PRIu64 " %" PRIu64, h->seq, rows);
        FL_TRY(fl_ingest_sink_set_position(s, h->prod_key, v, err));
    }
    if (!h->idem)
        return FL_OK;
    uint64_t next = pos_u64(fl_ingest_sink_position(s, "http:idem:next"));
    char slot[32], nv[24];
    snprintf(slot, sizeof slot, "http:idem:%" PRIu64, next % ING_IDEM_WINDOW);
    snprintf(v, sizeof v, "%" PRIu64 "\t%s\t%s", rows, r->principal.name, h->idem);
    snprintf(nv, sizeof nv, "%" PRIu64, next + 1);
    FL_TRY(fl_ingest_sink_set_position(s, slot, v, err));
    return fl_ingest_sink_set_position(s, "http:idem:next", nv, err);
}

/* ---- the handler ---- */

static bool body_format(fl_server_request *r, fl_ingest_body_format *f)
{
    const char *ct = fl_server_req_header(r, "Content-Type");
    size_t n = ct ? strcspn(ct, "; \t") : 0;
    if (ct && n == 20 && !strncasecmp(ct, "application/x-ndjson", n))
        *f = FL_INGEST_BODY_NDJSON;
    else if (ct && n == 16 && !strncasecmp(ct, "application/json", n))
        *f = FL_INGEST_BODY_JSON;
    else if (ct && n == 8 && !strncasecmp(ct, "text/csv", n))
        *f = FL_INGEST_BODY_CSV;
    else {
        fl_server_respond_error(r, 415, "UnsupportedMediaTypeException",
                                "Content-Type must be application/x-ndjson, application/json "
                                "(an array of objects) or text/csv (with a header)");
        return false;
    }
    return true;
}

static bool content_error(fl_status rc)
{
    return rc == FL_ESYNTAX || rc == FL_ETYPE || rc == FL_EINVAL || rc == FL_EOVERFLOW ||
           rc == FL_ELIMIT || rc == FL_EUNSUPPORTED;
}

static void respond_result(fl_server_request *r, int64_t rows, bool dup, const fl_ingest_commit *c)
{
    json_t *j = json_object();
    json_object_set_new(j, "rows", rows >= 0 ? json_integer(rows) : json_null());
    json_object_set_new(j, "duplicate", json_boolean(dup));
    json_object_set_new(j, "snapshot_id",
                        c && c->committed ? json_integer(c->snapshot_id) : json_null());
    if (c && c->committed)
        json_object_set_new(j, "checkpoint", json_integer(c->checkpoint));
    srv_respond_json(r, 200, j);
}

/* Under t->mu with the sink open: the request's batch, committed. */
/* The table's current schema is not the one the sink converts to (an
 * ALTER TABLE since the sink opened): one metadata read, on the error path. */
static bool schema_changed(fl_server_request *r, ing_table *t)
{
    const char *loc = NULL;
    fl_ice_metadata m;
    fl_error err = {0};
    return t->cat->ops->load_table(t->cat, &t->id, &r->arena, &loc, &err) == FL_OK &&
           fl_ice_metadata_read(t->cat->io ? t->cat->io : r->srv->io, loc, &r->arena, &m, &err) ==
               FL_OK &&
           m.current_schema_id != fl_ingest_sink_ice_schema(t->sink)->schema_id;
}

/* Under t->mu with the sink open: the request's batch, committed. A body
 * that does not fit is tried once more against a reopened sink when the
 * table's schema changed under the open one. */
static void ingest_locked(fl_server_request *r, ing_table *t, fl_ingest_body_format fmt,
                          const retry_hdrs *h, const char *target)
{
    fl_ingest_sink *s = NULL;
    uint64_t rows = 0;
    fl_error err = {0};
    fl_status rc = FL_OK;
    for (int attempt = 0; attempt < 2; attempt++) {
        if (attempt && !sink_ready(r, t))
            return;
        s = t->sink;
        int64_t dup_rows = -1;
        if (is_duplicate(r, s, h, &dup_rows)) {
            srv_audit(r, "ingest", target, "duplicate", h->idem ? h->idem : h->producer);
            respond_result(r, dup_rows, true, NULL);
            return;
        }
        size_t len = 0;
        const char *body = fl_server_req_body(r, &len);
        rc = fl_ingest_body_write(fl_ingest_sink_schema(s), fl_ingest_sink_ice_schema(s), fmt,
                                  body ? body : "", body ? len : 0, s, &rows, &err);
        if (rc == FL_OK)
            break;
        bool clean = content_error(rc) && !fl_ingest_sink_pending_rows(s);
        if (!clean || (attempt == 0 && schema_changed(r, t)))
            sink_reset(t);
        if (clean && !t->sink && attempt == 0)
            continue;
        if (content_error(rc))
            fl_server_respond_error(r, 400, "BadRequestException", "%s", err.msg);
        else
            srv_respond_status(r, rc, &err, "ingestion");
        return;
    }
    fl_ingest_commit c = {0};
    rc = record_retry_positions(r, s, h, rows, &err);
    if (rc == FL_OK)
        rc = fl_ingest_sink_checkpoint(s, &c, &err);
    if (rc != FL_OK) {
        sink_reset(t);
        srv_audit(r, "ingest", target, "failed", err.msg);
        if (rc == FL_ECONFLICT) { /* fenced, or a concurrent commit: the retry reopens */
            fl_server_response_header(r, "Retry-After", "1");
            fl_server_respond_error(r, 503, "ServiceUnavailableException", "%s", err.msg);
        } else {
            fl_server_respond_error(r, 500, "CommitStateUnknownException",
                                    "%s (retry with the same Idempotency-Key or Producer-Seq)",
                                    err.msg);
        }
        return;
    }
    srv_audit(r, "ingest", target, "ok", NULL);
    respond_result(r, (int64_t)rows, false, &c);
}

static void h_ingest(fl_server_request *r, void *ctx)
{
    (void)ctx;
    fl_table_ident id = {0};
    if (!srv_ns_param(r, "namespace", &id.ns))
        return;
    id.name = fl_server_req_param(r, "table");
    if (!srv_authorize(r, FL_PRIV_WRITE, &id.ns, id.name))
        return;
    fl_ingest_body_format fmt;
    retry_hdrs h;
    if (!body_format(r, &fmt) || !read_retry_headers(r, &h))
        return;
    const char *target =
        fl_arena_sprintf(&r->arena, "%s.%s", srv_ns_dotted(&id.ns, &r->arena), id.name);
    ing_table *t = table_enter(r, &id);
    if (!t)
        return;
    if (sink_ready(r, t))
        ingest_locked(r, t, fmt, &h, target ? target : id.name);
    table_leave(r, t);
}

fl_status srv_routes_ingest(fl_server *s, fl_error *err)
{
    s->ingest = calloc(1, sizeof *s->ingest);
    if (!s->ingest)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    pthread_mutex_init(&s->ingest->mu, NULL);
    /* not FL_ROUTE_MUTATION: Idempotency-Key is answered from the table here,
     * not from the server's response store (which a SIGKILL may lose) */
    return srv_router_add(&s->router, "POST", "/v1/ingest/{namespace}/{table}", h_ingest, NULL, 0,
                          err);
}
