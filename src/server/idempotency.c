/*
 * idempotency.c - the Idempotency-Key store: responses of mutations, kept
 * for idempotency_lifetime_s so a retried request gets the first answer.
 *
 * Stored in the catalog's own database so that replicas sharing one
 * PostgreSQL catalog share keys:
 *   floe_idempotency(idem_key VARCHAR(255), route VARCHAR(1200), status INT,
 *                    body TEXT, expires_ms BIGINT, PRIMARY KEY (idem_key, route))
 * SQLite ("sqlite:PATH") uses its own connection to the same file; PostgreSQL
 * its own libpq connection. A filesystem catalog has no database: keys live
 * in process memory (same semantics, one process). One connection guarded
 * by a mutex; expired rows are deleted on every 256th insert.
 *
 * Failures of the store never fail a request: a lookup error is a miss, an
 * insert error is logged.
 */
#include <inttypes.h>
#include <libpq-fe.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/server_internal.h"

typedef struct mem_entry {
    char *key, *route, *body;
    size_t len;
    int status;
    int64_t expires_ms;
} mem_entry;

struct srv_idem {
    pthread_mutex_t mu;
    sqlite3 *lite;
    PGconn *pg;
    mem_entry *mem;
    uint32_t nmem, capmem;
    int64_t lifetime_ms;
    uint32_t puts;
};

#define CREATE_SQL                                                                                 \
    "CREATE TABLE IF NOT EXISTS floe_idempotency(idem_key VARCHAR(255) NOT NULL, route "           \
    "VARCHAR(1200) NOT NULL, status INT NOT NULL, body TEXT, expires_ms BIGINT NOT NULL, "         \
    "PRIMARY KEY (idem_key, route))"

static fl_status open_sqlite(srv_idem *d, const char *path, fl_error *err)
{
    /* normally the catalog's own database: private (0600), as it holds secrets */
    FL_TRY(fl_catalog_private_file(path, err));
    if (sqlite3_open_v2(path, &d->lite, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
        SQLITE_OK)
        return fl_errorf(err, FL_EIO, "idempotency store %s: %s", path, sqlite3_errmsg(d->lite));
    sqlite3_busy_timeout(d->lite, 10000);
    char *msg = NULL;
    if (sqlite3_exec(d->lite, CREATE_SQL, NULL, NULL, &msg) != SQLITE_OK) {
        fl_status rc = fl_errorf(err, FL_EIO, "idempotency store %s: %s", path, msg ? msg : "?");
        sqlite3_free(msg);
        return rc;
    }
    return FL_OK;
}

static fl_status open_pg(srv_idem *d, const char *uri, fl_error *err)
{
    d->pg = PQconnectdb(uri);
    if (PQstatus(d->pg) != CONNECTION_OK)
        return fl_errorf(err, FL_EIO, "idempotency store: %s", PQerrorMessage(d->pg));
    PGresult *r = PQexec(d->pg, CREATE_SQL);
    bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    PQclear(r);
    if (!ok)
        return fl_errorf(err, FL_EIO, "idempotency store: %s", PQerrorMessage(d->pg));
    return FL_OK;
}

fl_status srv_idem_open(fl_server *s, fl_error *err)
{
    srv_idem *d = calloc(1, sizeof *d);
    if (!d)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    pthread_mutex_init(&d->mu, NULL);
    d->lifetime_ms = (int64_t)s->opt.idempotency_lifetime_s * 1000;
    s->idem = d;
    const char *u = s->catalog_uri;
    if (!strncmp(u, "sqlite:", 7))
        return open_sqlite(d, u + 7, err);
    if (!strncmp(u, "postgres://", 11) || !strncmp(u, "postgresql://", 13))
        return open_pg(d, u, err);
    return FL_OK;
}

void srv_idem_close(srv_idem *d)
{
    if (!d)
        return;
    if (d->lite)
        sqlite3_close(d->lite);
    if (d->pg)
        PQfinish(d->pg);
    for (uint32_t i = 0; i < d->nmem; i++)
        free(d->mem[i].key), free(d->mem[i].route), free(d->mem[i].body);
    free(d->mem);
    pthread_mutex_destroy(&d->mu);
    free(d);
}

static bool lite_get(srv_idem *d, const char *key, const char *route, int *status, char **body,
                     size_t *len)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->lite,
                           "SELECT status, body FROM floe_idempotency WHERE idem_key = ? AND "
                           "route = ? AND expires_ms > ?",
                           -1, &st, NULL) != SQLITE_OK)
        return false;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, route, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 3, srv_now_ms());
    bool found = false;
    if (sqlite3_step(st) == SQLITE_ROW) {
        *status = sqlite3_column_int(st, 0);
        const unsigned char *b = sqlite3_column_text(st, 1);
        *len = b ? (size_t)sqlite3_column_bytes(st, 1) : 0;
        *body = *len ? malloc(*len) : NULL;
        if (*len && !*body) {
            sqlite3_finalize(st);
            return false;
        }
        if (*len)
            memcpy(*body, b, *len);
        found = true;
    }
    sqlite3_finalize(st);
    return found;
}

static void lite_put(srv_idem *d, const char *key, const char *route, int status, const char *body,
                     size_t len, int64_t expires)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->lite,
                           "INSERT OR REPLACE INTO floe_idempotency(idem_key, route, status, "
                           "body, expires_ms) VALUES (?, ?, ?, ?, ?)",
                           -1, &st, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, route, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, status);
    sqlite3_bind_text(st, 4, body ? body : "", (int)len, SQLITE_STATIC);
    sqlite3_bind_int64(st, 5, expires);
    if (sqlite3_step(st) != SQLITE_DONE)
        srv_log("warn", "idempotency", "cannot record key: %s", sqlite3_errmsg(d->lite));
    sqlite3_finalize(st);
    if (++d->puts % 256 == 0) {
        char sql[128];
        snprintf(sql, sizeof sql, "DELETE FROM floe_idempotency WHERE expires_ms < %" PRId64,
                 srv_now_ms());
        sqlite3_exec(d->lite, sql, NULL, NULL, NULL);
    }
}

static bool pg_get(srv_idem *d, const char *key, const char *route, int *status, char **body,
                   size_t *len)
{
    char now[32];
    snprintf(now, sizeof now, "%" PRId64, srv_now_ms());
    const char *p[3] = {key, route, now};
    PGresult *r = PQexecParams(d->pg,
                               "SELECT status, body FROM floe_idempotency WHERE idem_key = $1 "
                               "AND route = $2 AND expires_ms > $3::bigint",
                               3, NULL, p, NULL, NULL, 0);
    bool found = false;
    if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1) {
        *status = atoi(PQgetvalue(r, 0, 0));
        *len = (size_t)PQgetlength(r, 0, 1);
        *body = *len ? malloc(*len) : NULL;
        if (!*len || *body) {
            if (*len)
                memcpy(*body, PQgetvalue(r, 0, 1), *len);
            found = true;
        }
    } else if (PQstatus(d->pg) != CONNECTION_OK) {
        PQreset(d->pg);
    }
    PQclear(r);
    return found;
}

static void pg_put(srv_idem *d, const char *key, const char *route, int status, const char *body,
                   size_t len, int64_t expires)
{
    char st[16], ex[32];
    snprintf(st, sizeof st, "%d", status);
    snprintf(ex, sizeof ex, "%" PRId64, expires);
    char *b = strndup(body ? body : "", len);
    if (!b)
        return;
    const char *p[5] = {key, route, st, b, ex};
    PGresult *r = PQexecParams(
        d->pg,
        "INSERT INTO floe_idempotency(idem_key, route, status, body, expires_ms) VALUES ($1, $2, "
        "$3::int, $4, $5::bigint) ON CONFLICT (idem_key, route) DO UPDATE SET status = "
        "EXCLUDED.status, body = EXCLUDED.body, expires_ms = EXCLUDED.expires_ms",
        5, NULL, p, NULL, NULL, 0);
    if (PQresultStatus(r) != PGRES_COMMAND_OK)
        srv_log("warn", "idempotency", "cannot record key: %s", PQerrorMessage(d->pg));
    PQclear(r);
    free(b);
    if (++d->puts % 256 == 0) {
        const char *q[1] = {ex};
        snprintf(ex, sizeof ex, "%" PRId64, srv_now_ms());
        PQclear(PQexecParams(d->pg, "DELETE FROM floe_idempotency WHERE expires_ms < $1::bigint",
                             1, NULL, q, NULL, NULL, 0));
    }
}

static bool mem_get(srv_idem *d, const char *key, const char *route, int *status, char **body,
                    size_t *len)
{
    int64_t now = srv_now_ms();
    for (uint32_t i = 0; i < d->nmem; i++) {
        mem_entry *e = &d->mem[i];
        if (e->expires_ms > now && !strcmp(e->key, key) && !strcmp(e->route, route)) {
            *status = e->status;
            *len = e->len;
            *body = e->len ? malloc(e->len) : NULL;
            if (e->len && !*body)
                return false;
            if (e->len)
                memcpy(*body, e->body, e->len);
            return true;
        }
    }
    return false;
}

static void mem_put(srv_idem *d, const char *key, const char *route, int status, const char *body,
                    size_t len, int64_t expires)
{
    int64_t now = srv_now_ms();
    uint32_t w = 0;
    for (uint32_t i = 0; i < d->nmem; i++) { /* drop expired */
        if (d->mem[i].expires_ms <= now) {
            free(d->mem[i].key), free(d->mem[i].route), free(d->mem[i].body);
            continue;
        }
        d->mem[w++] = d->mem[i];
    }
    d->nmem = w;
    if (d->nmem == d->capmem) {
        uint32_t cap = d->capmem ? d->capmem * 2 : 64;
        mem_entry *n = realloc(d->mem, cap * sizeof *n);
        if (!n)
            return;
        d->mem = n;
        d->capmem = cap;
    }
    mem_entry *e = &d->mem[d->nmem];
    e->key = strdup(key);
    e->route = strdup(route);
    e->body = len ? malloc(len) : NULL;
    if (!e->key || !e->route || (len && !e->body)) {
        free(e->key), free(e->route), free(e->body);
        return;
    }
    if (len)
        memcpy(e->body, body, len);
    e->len = len;
    e->status = status;
    e->expires_ms = expires;
    d->nmem++;
}

bool srv_idem_get(srv_idem *d, const char *key, const char *route, int *status, char **body,
                  size_t *len)
{
    pthread_mutex_lock(&d->mu);
    bool found = d->lite  ? lite_get(d, key, route, status, body, len)
                 : d->pg ? pg_get(d, key, route, status, body, len)
                         : mem_get(d, key, route, status, body, len);
    pthread_mutex_unlock(&d->mu);
    return found;
}

void srv_idem_put(srv_idem *d, const char *key, const char *route, int status, const char *body,
                  size_t len)
{
    int64_t expires = srv_now_ms() + d->lifetime_ms;
    pthread_mutex_lock(&d->mu);
    if (d->lite)
        lite_put(d, key, route, status, body, len, expires);
    else if (d->pg)
        pg_put(d, key, route, status, body, len, expires);
    else
        mem_put(d, key, route, status, body, len, expires);
    pthread_mutex_unlock(&d->mu);
}
