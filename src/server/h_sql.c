/*
 * h_sql.c - the HTTP SQL endpoint of `floe serve`.
 *
 *   POST /v1/sql          run one statement, stream the result
 *   DELETE /v1/sql/{id}   cancel a running statement (its owner or an admin)
 *
 * REQUEST: the body is the SQL text (any content type but JSON), or a JSON
 * object {"sql": "...", "params": [v1, ...], "namespace": "a.b"}; params
 * bind $1..$n (JSON null, booleans, integers, reals and strings; strings are
 * cast to the parameter's inferred type). ?namespace= also sets the
 * default namespace (default "default"). A client may name the statement
 * with a request header X-Floe-Query-Id (1-64 of [A-Za-z0-9_-]); else the
 * server picks a random one. Either way it is returned in the response
 * header X-Floe-Query-Id.
 *
 * RESPONSE FORMAT by Accept (or ?format=ndjson|arrow|parquet):
 *   application/x-ndjson (default): one JSON object per row (see
 *     h_sql_ndjson.c for the value encoding), then one final line, either
 *     {"$done": {"query_id", "tag", "rows", "columns": [{"name", "type"}],
 *                "reads": [{"table", "snapshot_id", "written"}]}}
 *     or {"$error": {"query_id", "message", "sqlstate", "position"}} when the
 *     statement failed after rows started (or was cancelled: 57014).
 *   application/vnd.apache.arrow.stream: an Arrow IPC stream (Schema, one
 *     RecordBatch per engine batch, end-of-stream; src/sql/session/arrow_ipc.c).
 *     There is no place for receipts or a late error in it: a failure
 *     after the schema was sent cuts the chunked body short (no
 *     terminating chunk), so readers see a truncated stream, never a
 *     silently partial one.
 *   application/vnd.apache.parquet: one Parquet file (h_sql_parquet.c),
 *     written into the response as row groups fill; a failure cuts it short
 *     the same way (no footer), a file for downloads and notebooks.
 * Errors before any row (syntax, binding, permission, DML failures) are an
 * HTTP error status with {"error": {"message", "type", "code", "sqlstate",
 * "position"}}: 400 (SQL errors), 403 (42501: a grant is missing, decided
 * inside the engine before anything runs), 404 (42P01 undefined table), 409
 * (cancelled, serialization failures), 503 (too many statements), 500.
 *
 * THREADS: each statement runs on its own thread with its own catalog
 * handle and SQL session (sessions are single-threaded). The handler waits
 * until fl_sql_execute() returned (so errors get a status code), then starts
 * a streamed response (stream.c) and returns; the statement thread writes
 * rows into the stream, which applies back-pressure. Cancel: DELETE sets the
 * query's flag and calls fl_sql_session_cancel(); a client disconnect does
 * the same, noticed either when a write fails, through the stream's abort
 * callback, or by a monitor thread that polls each streaming connection
 * every 100 ms (a statement computing a big aggregate writes nothing for a
 * long time). srv_sql_free() (server stop) cancels everything and waits for
 * the statement threads.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>

#include "floe/errcodes.h"
#include "server/h_sql.h"
#include "server/server_internal.h"

#define SQL_MAX_RUNNING SRV_SQL_MAX_RUNNING

typedef enum {
    Q_STARTING = 0, /* the thread is executing */
    Q_FAILED,       /* execute failed; waiting for the handler to read the error */
    Q_READY,        /* execute returned a result; waiting for the handler */
    Q_STREAM,       /* the handler started the stream */
    Q_ABANDON,      /* the handler is done with it (error responded) */
} q_phase;

typedef struct sql_query sql_query;

typedef struct srv_sql {
    fl_server *srv;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    sql_query *queries;
    uint32_t nthreads;
    bool stopping;
    bool monitor_running;
    pthread_t monitor;
} srv_sql;

/* What a response carries the rows as (Accept or ?format=). */
typedef enum result_format { RF_NDJSON, RF_ARROW, RF_PARQUET } result_format;

struct sql_query {
    srv_sql *owner;
    char id[65];
    char principal[FL_PRINCIPAL_NAME_MAX];
    fl_principal who; /* the engine authorizes each statement as who (sql/authz) */
    char *sql, *ns;
    json_t *params; /* owned reference; NULL = plain execute */
    result_format format;
    fl_catalog *cat;
    /* Set (under owner->mu) by the statement thread, cleared by it (under
     * owner->mu) before it closes the session; read for cancellation under
     * owner->mu (handlers, monitor) or under the stream's lock (on_abort,
     * which cannot take owner->mu: the monitor holds owner->mu while taking
     * stream locks). Atomic for that last reader; the session it sees is
     * closed only after fl_server_stream_end, which waits for the stream lock. */
    fl_sql_session *_Atomic sess;
    fl_sql_stmt *stmt;
    fl_sql_result *res;
    fl_server_stream *stream;
    q_phase ph; /* owner->mu */
    _Atomic bool cancelled;
    fl_status rc;
    fl_error err;
    char sqlstate[6];
    int32_t position;
    fl_sql_options lim; /* limits.c: memory_limit, ceilings, statement_timeout */
    bool admitted;      /* counted in the server's fl_admission */
    sql_query *next;
};

/* ---- small helpers ---- */

/* Marks q cancelled and cancels its running statement, if any. */
static void cancel_query(sql_query *q)
{
    atomic_store(&q->cancelled, true);
    fl_sql_session_cancel(atomic_load(&q->sess)); /* NULL-safe */
}

static void set_sqlstate(sql_query *q, const char *st)
{
    snprintf(q->sqlstate, sizeof q->sqlstate, "%s", st && *st ? st : "XX000");
}

/* SQLSTATE of the session's last failure: the one its error was raised with. */
static void take_error(sql_query *q, fl_status rc)
{
    q->rc = rc;
    fl_sql_error_info info = {{0}, 0};
    fl_sql_session *sess = atomic_load(&q->sess); /* this thread's own */
    if (sess)
        fl_sql_last_error(sess, &info);
    if (rc == FL_ECANCELED)
        set_sqlstate(q, "57014");
    else if (q->err.code) /* the code the error was raised with, or its status's default */
        set_sqlstate(q, fl_error_sqlstate(&q->err));
    else
        set_sqlstate(q, info.sqlstate[0] ? info.sqlstate : fl_sqlstate_for_status(rc));
    q->position = info.position;
}

static void respond_sql_error(fl_server_request *r, int status, const char *msg,
                              const char *sqlstate, int32_t position, const char *qid)
{
    json_t *e = json_pack("{s:s, s:s, s:i, s:s}", "message", msg, "type",
                          status == 403   ? "ForbiddenException"
                          : status == 404 ? "NoSuchTableException"
                          : status == 409 ? "QueryCanceledException"
                          : status == 429 ? "TooManyRequestsException"
                          : status == 401 ? "NotAuthorizedException"
                          : status >= 500 ? "ServerError"
                                          : "BadRequestException",
                          "code", status, "sqlstate", sqlstate);
    if (e && position > 0)
        json_object_set_new(e, "position", json_integer(position));
    if (e && qid)
        json_object_set_new(e, "query_id", json_string(qid));
    srv_respond_json(r, status, json_pack("{s:o}", "error", e ? e : json_object()));
}

static bool valid_id(const char *s)
{
    size_t n = strlen(s);
    if (!n || n > 64)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-'))
            return false;
    return true;
}

static void random_id(char out[65])
{
    uint8_t b[16];
    if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        memcpy(b, &ts, sizeof ts < sizeof b ? sizeof ts : sizeof b);
    }
    for (int i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
}

static void query_free(sql_query *q)
{
    if (q->admitted)
        fl_admission_leave(q->owner->srv->admission, FL_ADMIT_STATEMENT, q->principal);
    if (q->params)
        json_decref(q->params);
    free(q->sql);
    free(q->ns);
    free(q);
}

/* ---- the statement thread ---- */

static fl_status bind_params(sql_query *q, fl_value *vals, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        json_t *v = json_array_get(q->params, i);
        fl_value *x = &vals[i];
        memset(x, 0, sizeof *x);
        if (json_is_null(v)) {
            x->type.id = FL_TYPE_STRING;
            x->is_null = true;
        } else if (json_is_boolean(v)) {
            x->type.id = FL_TYPE_BOOLEAN;
            x->v.b = json_is_true(v);
        } else if (json_is_integer(v)) {
            x->type.id = FL_TYPE_INT64;
            x->v.i64 = json_integer_value(v);
        } else if (json_is_real(v)) {
            x->type.id = FL_TYPE_FLOAT64;
            x->v.f64 = json_real_value(v);
        } else if (json_is_string(v)) {
            x->type.id = FL_TYPE_STRING;
            x->v.bytes.ptr = (const uint8_t *)json_string_value(v);
            x->v.bytes.len = json_string_length(v);
        } else {
            return fl_errorf(&q->err, FL_EINVAL,
                             "params[%u]: only null, booleans, numbers and strings bind", i);
        }
    }
    return FL_OK;
}

static fl_status execute(sql_query *q)
{
    fl_server *s = q->owner->srv;
    fl_status rc = fl_catalog_open_uri(s->catalog_uri, s->catalog_name, s->warehouse, s->io,
                                       &q->cat, &q->err);
    if (rc != FL_OK)
        return rc;
    srv_confine(s, q->cat); /* SQL is confined as REST is */
    fl_sql_options o;
    memset(&o, 0, sizeof o);
    o.catalog = q->cat;
    o.io = s->io;
    o.default_namespace = q->ns;
    o.cache = s->opt.sql_cache; /* shared by every session of the process */
    o.queue = s->opt.sql_queue; /* and so are the execution slots */
    o.extension = s->opt.sql_extension; /* semantic.metrics (sem_sql.h) */
    o.user = q->who.name;
    /* --insecure-no-auth (anonymous) is development only: no checks */
    o.auth = q->who.anonymous ? NULL : s->auth;
    o.principal = &q->who;
    o.memory_limit = q->lim.memory_limit; /* the principal's limits (limits.c) */
    o.max_memory_limit = q->lim.max_memory_limit;
    o.max_statement_timeout_ms = q->lim.max_statement_timeout_ms;
    o.statement_timeout_ms = q->lim.statement_timeout_ms;
    o.spill_dir_fixed = q->lim.spill_dir_fixed;
    fl_sql_session *sess = NULL;
    rc = fl_sql_session_open(&o, &sess, &q->err);
    if (rc != FL_OK)
        return rc;
    pthread_mutex_lock(&q->owner->mu);
    atomic_store(&q->sess, sess);
    pthread_mutex_unlock(&q->owner->mu);
    if (atomic_load(&q->cancelled))
        return fl_errorf(&q->err, FL_ECANCELED, "canceling statement due to user request");
    if (!q->params)
        return fl_sql_execute(sess, q->sql, &q->res, &q->err);
    rc = fl_sql_prepare(sess, q->sql, &q->stmt, &q->err);
    if (rc != FL_OK)
        return rc;
    uint32_t n = (uint32_t)json_array_size(q->params);
    if (n != fl_sql_stmt_nparams(q->stmt))
        return fl_errorf(&q->err, FL_EINVAL, "the statement has %u parameters, params has %u",
                         fl_sql_stmt_nparams(q->stmt), n);
    fl_value *vals = calloc(n ? n : 1, sizeof *vals);
    if (!vals)
        return fl_errorf(&q->err, FL_ENOMEM, "out of memory");
    rc = bind_params(q, vals, n);
    if (rc == FL_OK)
        rc = fl_sql_stmt_execute(q->stmt, vals, n, &q->res, &q->err);
    free(vals);
    return rc;
}

static bool put_str(fl_ipc_buf *b, const char *s)
{
    size_t n = strlen(s);
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n)
            cap *= 2;
        uint8_t *p = realloc(b->p, cap);
        if (!p)
            return false;
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    return true;
}

/* The final NDJSON line. */
static void ndjson_trailer(sql_query *q, bool ok, fl_ipc_buf *out)
{
    json_t *j;
    if (ok) {
        const fl_schema *sc = fl_sql_result_schema(q->res);
        json_t *cols = json_array(), *reads = json_array();
        for (uint32_t i = 0; sc && i < sc->nfields; i++) {
            char tb[128];
            json_array_append_new(cols, json_pack("{s:s, s:s}", "name", sc->fields[i].name, "type",
                                                  fl_sql_type_name(&sc->fields[i].type, tb,
                                                                   sizeof tb)));
        }
        for (uint32_t i = 0; i < fl_sql_result_nreads(q->res); i++) {
            const fl_sql_table_read *rd = fl_sql_result_read(q->res, i);
            json_array_append_new(reads, json_pack("{s:s, s:I, s:b}", "table", rd->table,
                                                   "snapshot_id", (json_int_t)rd->snapshot_id,
                                                   "written", rd->written));
        }
        j = json_pack("{s:{s:s, s:s, s:I, s:o, s:o}}", "$done", "query_id", q->id, "tag",
                      fl_sql_result_tag(q->res), "rows",
                      (json_int_t)fl_sql_result_rows_affected(q->res), "columns", cols, "reads",
                      reads);
    } else {
        j = json_pack("{s:{s:s, s:s, s:s, s:i}}", "$error", "query_id", q->id, "message",
                      q->err.msg, "sqlstate", q->sqlstate, "position", q->position);
    }
    char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    if (text) {
        put_str(out, text);
        put_str(out, "\n");
    }
    free(text);
}

/* Unique JSON keys for the columns: name, name_2, name_3 ... */
static const char **unique_names(const fl_schema *sc, fl_arena *a)
{
    const char **names = fl_arena_calloc(a, sc->nfields + 1, sizeof *names);
    for (uint32_t i = 0; names && i < sc->nfields; i++) {
        const char *n = sc->fields[i].name ? sc->fields[i].name : "?column?";
        names[i] = n;
        for (int k = 2;; k++) {
            bool dup = false;
            for (uint32_t j = 0; j < i && !dup; j++)
                dup = !strcmp(names[j], names[i]);
            if (!dup)
                break;
            names[i] = fl_arena_sprintf(a, "%s_%d", n, k);
            if (!names[i])
                return NULL;
        }
    }
    return names;
}

/* The rows of q's result into its stream, in q's format. */
static void stream_rows(sql_query *q)
{
    const fl_schema *sc = fl_sql_result_schema(q->res);
    fl_schema empty = {0};
    if (!sc)
        sc = &empty;
    fl_ipc_buf buf = {0};
    fl_arena a;
    fl_arena_init(&a, 1024);
    fl_sql_formatter *fmt = NULL;
    srv_sql_parquet *pq = NULL;
    const char **names = NULL;
    fl_status rc;
    if (q->format == RF_ARROW) {
        rc = fl_arrow_ipc_schema(sc, &buf, &q->err);
    } else if (q->format == RF_PARQUET) {
        rc = srv_sql_parquet_open(q->stream, sc, &pq, &q->err);
    } else {
        const char *tz = fl_sql_get(atomic_load(&q->sess), "time_zone");
        rc = fl_sql_formatter_new(tz ? tz : "UTC", &fmt, &q->err);
        names = rc == FL_OK ? unique_names(sc, &a) : NULL;
        if (rc == FL_OK && !names)
            rc = fl_errorf(&q->err, FL_ENOMEM, "out of memory");
    }
    bool gone = false;
    while (rc == FL_OK) {
        if (buf.len) {
            if (!fl_server_stream_write(q->stream, buf.p, buf.len)) {
                gone = true;
                rc = fl_errorf(&q->err, FL_ECANCELED, "client disconnected");
                break;
            }
            buf.len = 0;
        }
        if (atomic_load(&q->cancelled)) {
            rc = fl_errorf(&q->err, FL_ECANCELED, "canceling statement due to user request");
            break;
        }
        const fl_batch *b = NULL;
        bool eof = false;
        rc = fl_sql_result_next(q->res, &b, &eof, &q->err);
        if (rc != FL_OK || eof)
            break;
        if (q->format == RF_ARROW)
            rc = fl_arrow_ipc_batch(sc, b, &buf, &q->err);
        else if (q->format == RF_PARQUET)
            rc = srv_sql_parquet_batch(pq, b, &q->err);
        else
            rc = srv_sql_ndjson_rows(sc, names, b, fmt, &buf, &q->err);
    }
    if (rc == FL_OK && pq) {
        srv_sql_parquet *p = pq;
        pq = NULL;
        rc = srv_sql_parquet_finish(p, &q->err);
    }
    srv_sql_parquet_abort(pq);
    if (rc != FL_OK) {
        take_error(q, rc);
        if (q->format != RF_NDJSON)
            srv_log("warn", "sql", "query %s: %s response cut short: %s (SQLSTATE %s)", q->id,
                    q->format == RF_ARROW ? "Arrow" : "Parquet", q->err.msg, q->sqlstate);
    }
    buf.len = 0;
    if (!gone) {
        if (q->format == RF_NDJSON)
            ndjson_trailer(q, rc == FL_OK, &buf);
        else if (q->format == RF_ARROW && rc == FL_OK)
            fl_arrow_ipc_eos(&buf, &q->err);
        if (buf.len)
            fl_server_stream_write(q->stream, buf.p, buf.len);
    }
    fl_sql_formatter_free(fmt);
    fl_ipc_buf_free(&buf);
    fl_arena_free(&a);
    /* NDJSON carries its error in the last line; Arrow and Parquet can only cut short */
    q->rc = rc;
}

static void *query_thread(void *arg)
{
    sql_query *q = arg;
    srv_sql *o = q->owner;
    fl_status rc = execute(q);
    if (rc != FL_OK)
        take_error(q, rc);
    pthread_mutex_lock(&o->mu);
    q->ph = rc == FL_OK ? Q_READY : Q_FAILED;
    pthread_cond_broadcast(&o->cv);
    while (q->ph == Q_READY || q->ph == Q_FAILED)
        pthread_cond_wait(&o->cv, &o->mu);
    bool streaming = q->ph == Q_STREAM;
    pthread_mutex_unlock(&o->mu);
    if (streaming)
        stream_rows(q);
    /* leave the registry before the stream and session go away */
    pthread_mutex_lock(&o->mu);
    for (sql_query **pp = &o->queries; *pp; pp = &(*pp)->next)
        if (*pp == q) {
            *pp = q->next;
            break;
        }
    fl_sql_session *sess = atomic_exchange(&q->sess, NULL);
    pthread_mutex_unlock(&o->mu);
    if (q->stream)
        fl_server_stream_end(q->stream, q->format == RF_NDJSON || q->rc == FL_OK);
    fl_sql_result_close(q->res);
    fl_sql_stmt_close(q->stmt);
    fl_sql_session_close(sess);
    fl_catalog_close(q->cat);
    query_free(q);
    pthread_mutex_lock(&o->mu);
    o->nthreads--;
    pthread_cond_broadcast(&o->cv);
    pthread_mutex_unlock(&o->mu);
    return NULL;
}

/* Stream abort callback (client gone, server stopping): runs under the
 * stream's lock while q is alive. */
static void on_abort(void *ud)
{
    cancel_query(ud);
}

/* Polls streaming connections for disconnected clients. */
static void *monitor_thread(void *arg)
{
    srv_sql *o = arg;
    pthread_mutex_lock(&o->mu);
    while (!o->stopping) {
        for (sql_query *q = o->queries; q; q = q->next)
            if (q->ph == Q_STREAM && q->stream && !atomic_load(&q->cancelled) &&
                fl_server_stream_gone(q->stream)) {
                srv_log("info", "sql", "query %s: client disconnected during the result; cancelled",
                        q->id);
                cancel_query(q);
            }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 100 * 1000 * 1000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&o->cv, &o->mu, &ts);
    }
    pthread_mutex_unlock(&o->mu);
    return NULL;
}

/* ---- handlers ---- */

/* The format a request asks for: ?format= first, else its Accept header. */
static result_format wanted_format(fl_server_request *r)
{
    const char *f = fl_server_req_query(r, "format");
    if (f && !strcasecmp(f, "arrow"))
        return RF_ARROW;
    if (f && !strcasecmp(f, "parquet"))
        return RF_PARQUET;
    if (f)
        return RF_NDJSON;
    const char *acc = fl_server_req_header(r, "Accept");
    if (acc && strcasestr(acc, "application/vnd.apache.arrow.stream"))
        return RF_ARROW;
    if (acc && strcasestr(acc, "application/vnd.apache.parquet"))
        return RF_PARQUET;
    return RF_NDJSON;
}

static const char *content_type(result_format f)
{
    return f == RF_ARROW     ? "application/vnd.apache.arrow.stream"
           : f == RF_PARQUET ? "application/vnd.apache.parquet"
                             : "application/x-ndjson";
}

/* Fills q->sql, q->ns, q->params from the request; false = responded 400. */
static bool parse_request(fl_server_request *r, sql_query *q)
{
    size_t len = 0;
    const char *body = fl_server_req_body(r, &len);
    const char *ct = fl_server_req_header(r, "Content-Type");
    size_t i = 0;
    while (i < len && (body[i] == ' ' || body[i] == '\n' || body[i] == '\r' || body[i] == '\t'))
        i++;
    bool json = ct ? strcasestr(ct, "json") != NULL : (i < len && body[i] == '{');
    const char *ns = fl_server_req_query(r, "namespace");
    if (json) {
        json_t *j = srv_body_json(r);
        if (!j)
            return false;
        json_t *sql = json_object_get(j, "sql"), *p = json_object_get(j, "params"),
               *n = json_object_get(j, "namespace");
        if (!json_is_string(sql) || (p && !json_is_array(p) && !json_is_null(p)) ||
            (n && !json_is_string(n) && !json_is_null(n))) {
            json_decref(j);
            respond_sql_error(r, 400,
                              "the JSON body needs \"sql\" (string), optional \"params\" (array) "
                              "and \"namespace\" (string)",
                              "22023", 0, NULL);
            return false;
        }
        q->sql = strdup(json_string_value(sql));
        if (json_is_array(p))
            q->params = json_incref(p);
        if (json_is_string(n))
            ns = json_string_value(n);
        q->ns = strdup(ns ? ns : "default");
        json_decref(j);
    } else {
        q->sql = strndup(body, len);
        q->ns = strdup(ns ? ns : "default");
    }
    if (!q->sql || !q->ns) {
        fl_server_respond_error(r, 500, "InternalServerError", "out of memory");
        return false;
    }
    if (strlen(q->sql) != (json ? strlen(q->sql) : len)) {
        respond_sql_error(r, 400, "the SQL text contains a NUL byte", "22021", 0, NULL);
        return false;
    }
    return true;
}

/* Registers q (unique id) and starts its thread; false = responded. */
static bool start_query(fl_server_request *r, srv_sql *o, sql_query *q)
{
    const char *want = fl_server_req_header(r, "X-Floe-Query-Id");
    if (want && !valid_id(want)) {
        respond_sql_error(r, 400, "X-Floe-Query-Id must be 1-64 characters of [A-Za-z0-9_-]",
                          "22023", 0, NULL);
        return false;
    }
    pthread_mutex_lock(&o->mu);
    uint32_t n = 0;
    bool taken = false;
    for (sql_query *x = o->queries; x; x = x->next) {
        n++;
        if (want && !strcmp(x->id, want))
            taken = true;
    }
    if (o->stopping || n >= SQL_MAX_RUNNING || taken) {
        pthread_mutex_unlock(&o->mu);
        if (taken)
            respond_sql_error(r, 409, "a statement with this X-Floe-Query-Id is running", "42710",
                              0, want);
        else
            respond_sql_error(r, 503, "too many statements running", "53300", 0, NULL);
        return false;
    }
    if (want)
        snprintf(q->id, sizeof q->id, "%s", want);
    else
        random_id(q->id);
    pthread_t th;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&at, 8u << 20);
    if (pthread_create(&th, &at, query_thread, q) != 0) {
        pthread_attr_destroy(&at);
        pthread_mutex_unlock(&o->mu);
        respond_sql_error(r, 503, "cannot start a statement thread", "53000", 0, NULL);
        return false;
    }
    pthread_attr_destroy(&at);
    q->next = o->queries;
    o->queries = q;
    o->nthreads++;
    if (!o->monitor_running && pthread_create(&o->monitor, NULL, monitor_thread, o) == 0)
        o->monitor_running = true;
    pthread_mutex_unlock(&o->mu);
    return true;
}

/* The principal's session limits and its running-statement cap (429 when
 * it already runs that many, whatever the other principals do); false =
 * responded. */
static bool admit(fl_server_request *r, srv_sql *o, const fl_principal *who, sql_query *q)
{
    uint32_t max = 0;
    fl_error err = {0};
    if (srv_sql_limits(o->srv, who, &q->lim, &max, &err) != FL_OK) {
        respond_sql_error(r, 401, err.msg, "28000", 0, NULL);
        return false;
    }
    if (fl_admission_enter(o->srv->admission, FL_ADMIT_STATEMENT, q->principal, max, &err) !=
        FL_OK) {
        fl_server_response_header(r, "Retry-After", "1");
        respond_sql_error(r, 429, err.msg, "53300", 0, NULL);
        return false;
    }
    q->admitted = true;
    return true;
}

static void h_sql_post(fl_server_request *r, void *ctx)
{
    srv_sql *o = ctx;
    sql_query *q = calloc(1, sizeof *q);
    if (!q) {
        fl_server_respond_error(r, 500, "InternalServerError", "out of memory");
        return;
    }
    q->owner = o;
    q->format = wanted_format(r);
    const fl_principal *who = fl_server_req_principal(r);
    snprintf(q->principal, sizeof q->principal, "%s", who->name);
    q->who = *who;
    if (!parse_request(r, q)) {
        query_free(q);
        return;
    }
    if (!admit(r, o, who, q)) {
        query_free(q);
        return;
    }
    if (!start_query(r, o, q)) {
        query_free(q);
        return;
    }
    /* wait for fl_sql_execute() on the statement thread; a client that goes
     * away meanwhile (DDL, DML, a long plan) cancels it, as during streaming */
    pthread_mutex_lock(&o->mu);
    while (q->ph == Q_STARTING) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 100 * 1000 * 1000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&o->cv, &o->mu, &ts);
        if (q->ph == Q_STARTING && !atomic_load(&q->cancelled) && srv_req_gone(r)) {
            srv_log("info", "sql", "query %s: client disconnected before the result; cancelled",
                    q->id);
            cancel_query(q);
        }
    }
    if (q->ph == Q_FAILED) {
        if (!strcmp(q->sqlstate, "42501"))
            srv_audit(r, "sql", q->sql, "denied", q->err.msg);
        int status = fl_sqlstate_http_status(q->sqlstate);
        respond_sql_error(r, status, q->err.msg, q->sqlstate, q->position, q->id);
        q->ph = Q_ABANDON;
    } else {
        fl_server_response_header(r, "X-Floe-Query-Id", q->id);
        q->stream = fl_server_respond_stream(
            r, 200, content_type(q->format), on_abort, q);
        q->ph = q->stream ? Q_STREAM : Q_ABANDON;
    }
    pthread_cond_broadcast(&o->cv);
    pthread_mutex_unlock(&o->mu);
}

static void h_sql_cancel(fl_server_request *r, void *ctx)
{
    srv_sql *o = ctx;
    const char *id = fl_server_req_param(r, "id");
    const fl_principal *who = fl_server_req_principal(r);
    pthread_mutex_lock(&o->mu);
    sql_query *q = o->queries;
    while (q && strcmp(q->id, id ? id : ""))
        q = q->next;
    bool allowed = q && (who->admin || who->anonymous || !strcmp(q->principal, who->name));
    if (allowed)
        cancel_query(q);
    pthread_mutex_unlock(&o->mu);
    if (!q)
        fl_server_respond_error(r, 404, "NoSuchQueryException", "no running statement %s",
                                id ? id : "");
    else if (!allowed)
        fl_server_respond_error(r, 403, "ForbiddenException",
                                "statement %s belongs to another principal", id);
    else
        srv_respond_json(r, 202, json_pack("{s:s, s:b}", "query_id", id, "cancelled", 1));
}

fl_status srv_routes_sql(fl_server *s, fl_error *err)
{
    srv_sql *o = calloc(1, sizeof *o);
    if (!o)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    o->srv = s;
    pthread_mutex_init(&o->mu, NULL);
    pthread_cond_init(&o->cv, NULL);
    s->sql = o;
    FL_TRY(fl_server_route_add(s, "POST", "/v1/sql", h_sql_post, o, 0, err));
    return fl_server_route_add(s, "DELETE", "/v1/sql/{id}", h_sql_cancel, o, 0, err);
}

void srv_sql_free(fl_server *s)
{
    srv_sql *o = s->sql;
    if (!o)
        return;
    pthread_mutex_lock(&o->mu);
    o->stopping = true;
    for (sql_query *q = o->queries; q; q = q->next)
        cancel_query(q);
    pthread_cond_broadcast(&o->cv);
    while (o->nthreads > 0)
        pthread_cond_wait(&o->cv, &o->mu);
    bool mon = o->monitor_running;
    pthread_mutex_unlock(&o->mu);
    if (mon)
        pthread_join(o->monitor, NULL);
    pthread_mutex_destroy(&o->mu);
    pthread_cond_destroy(&o->cv);
    free(o);
    s->sql = NULL;
}
