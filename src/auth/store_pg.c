/*
 * store_pg.c - the PostgreSQL driver of the auth store (auth_internal.h),
 * through libpq.
 *
 * One connection, used under fl_auth's mutex. Statements run with
 * PQexecParams (text parameters; the '?' placeholders of the shared SQL are
 * renumbered to $1..$n here - none of our statements has a '?' elsewhere).
 * Write transactions are READ COMMITTED and start by bumping the version row
 * (store.c), whose row lock serializes every auth mutation across servers;
 * read transactions are REPEATABLE READ READ ONLY so a snapshot load sees
 * one consistent state. A broken connection (server restart) is reset once
 * before the next statement. SQLSTATE 23505 (unique violation) is FL_EEXIST.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "auth/auth_internal.h"

#define SQL_MAX 2048

typedef struct pg_store {
    auth_store base;
    PGconn *conn;
} pg_store;

static fl_status pg_error(pg_store *s, PGresult *r, const char *sql, fl_error *err)
{
    const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    const char *m = r ? PQresultErrorMessage(r) : NULL;
    if (!m || !*m)
        m = PQerrorMessage(s->conn);
    int ml = (int)strcspn(m, "\n");
    fl_status code = state && strcmp(state, "23505") == 0 ? FL_EEXIST : FL_EIO;
    return fl_errorf(err, code, "postgres auth store: %.60s: %.*s", sql, ml > 400 ? 400 : ml, m);
}

static void ensure_conn(pg_store *s)
{
    if (PQstatus(s->conn) != CONNECTION_OK)
        PQreset(s->conn);
}

static fl_status renumber(const char *sql, char *out, size_t cap, fl_error *err)
{
    size_t o = 0;
    int n = 0;
    for (const char *p = sql; *p; p++) {
        if (o + 8 >= cap)
            return fl_errorf(err, FL_EINVAL, "postgres auth store: statement too long");
        if (*p == '?')
            o += (size_t)snprintf(out + o, cap - o, "$%d", ++n);
        else
            out[o++] = *p;
    }
    out[o] = '\0';
    return FL_OK;
}

static fl_status copy_rows(PGresult *r, fl_arena *a, auth_rows *rows, fl_error *err)
{
    int nr = PQntuples(r), nc = PQnfields(r);
    rows->nrows = (uint32_t)nr;
    rows->ncols = (uint32_t)nc;
    rows->cells = fl_arena_alloc(a, ((size_t)nr * (size_t)nc + 1) * sizeof *rows->cells);
    if (!rows->cells)
        return fl_errorf(err, FL_ENOMEM, "postgres auth store: out of memory");
    for (int i = 0; i < nr; i++)
        for (int j = 0; j < nc; j++) {
            const char **cell = &rows->cells[(size_t)i * (size_t)nc + (size_t)j];
            *cell = PQgetisnull(r, i, j) ? NULL : fl_arena_strdup(a, PQgetvalue(r, i, j));
            if (!PQgetisnull(r, i, j) && !*cell)
                return fl_errorf(err, FL_ENOMEM, "postgres auth store: out of memory");
        }
    return FL_OK;
}

static fl_status pg_exec(auth_store *base, const char *sql, const char *const *params, uint32_t n,
                         fl_arena *a, auth_rows *rows, uint64_t *changes, fl_error *err)
{
    pg_store *s = (pg_store *)base;
    char q[SQL_MAX];
    FL_TRY(renumber(sql, q, sizeof q, err));
    if (PQtransactionStatus(s->conn) == PQTRANS_IDLE)
        ensure_conn(s);
    PGresult *r = PQexecParams(s->conn, q, (int)n, NULL, params, NULL, NULL, 0);
    ExecStatusType st = PQresultStatus(r);
    fl_status rc = FL_OK;
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
        rc = pg_error(s, r, sql, err);
    else if (rows)
        rc = copy_rows(r, a, rows, err);
    if (rc == FL_OK && changes) {
        const char *t = PQcmdTuples(r);
        *changes = t && *t ? strtoull(t, NULL, 10) : 0;
    }
    PQclear(r);
    return rc;
}

static fl_status simple(pg_store *s, const char *sql, fl_error *err)
{
    PGresult *r = PQexec(s->conn, sql);
    ExecStatusType st = PQresultStatus(r);
    fl_status rc =
        st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK ? FL_OK : pg_error(s, r, sql, err);
    PQclear(r);
    return rc;
}

static fl_status pg_begin(auth_store *base, bool write, fl_error *err)
{
    pg_store *s = (pg_store *)base;
    ensure_conn(s);
    return simple(s, write ? "BEGIN" : "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", err);
}

static fl_status pg_commit(auth_store *base, fl_error *err)
{
    return simple((pg_store *)base, "COMMIT", err);
}

static void pg_rollback(auth_store *base)
{
    pg_store *s = (pg_store *)base;
    if (PQtransactionStatus(s->conn) != PQTRANS_IDLE)
        simple(s, "ROLLBACK", NULL);
}

static void pg_close(auth_store *base)
{
    pg_store *s = (pg_store *)base;
    if (!s)
        return;
    PQfinish(s->conn);
    free(s);
}

fl_status auth_store_pg_open(const char *conninfo, auth_store **out, fl_error *err)
{
    *out = NULL;
    pg_store *s = calloc(1, sizeof *s);
    if (!s)
        return fl_errorf(err, FL_ENOMEM, "auth store: out of memory");
    s->base = (auth_store){
        pg_exec, pg_begin, pg_commit, pg_rollback, pg_close, true, "postgres auth store"};
    s->conn = PQconnectdb(conninfo);
    if (!s->conn || PQstatus(s->conn) != CONNECTION_OK) {
        const char *m = s->conn ? PQerrorMessage(s->conn) : "out of memory";
        fl_errorf(err, FL_EIO, "postgres auth store: connect: %.*s", (int)strcspn(m, "\n"), m);
        pg_close(&s->base);
        return FL_EIO;
    }
    fl_status rc = simple(s, "SET client_min_messages = warning", err);
    if (rc != FL_OK) {
        pg_close(&s->base);
        return rc;
    }
    *out = &s->base;
    return FL_OK;
}
