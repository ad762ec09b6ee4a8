/*
 * postgres.c - the PostgreSQL driver of the JDBC-layout catalog
 * (sql_catalog.h), through libpq.
 *
 * Statements are prepared once per connection (PQprepare, named
 * "floe_q<N>", '?' placeholders renumbered to $1..$n; BEGIN/COMMIT/ROLLBACK
 * too). The one-time schema setup at connect uses plain PQexec. Write transactions
 * run at SERIALIZABLE isolation: two servers racing on the same pointer
 * either see each other's row or one gets SQLSTATE 40001 (serialization
 * failure) / 40P01 (deadlock), which marks the catalog `retryable` so
 * sql_catalog.c re-runs the whole transaction - the commit's
 * "WHERE metadata_location = expected" is then evaluated against the
 * winner's row and fails with FL_ECONFLICT. 23505 (unique violation) is
 * FL_EEXIST. Schema creation takes a transaction-scoped advisory lock so
 * concurrent first opens create the tables once.
 *
 * Error messages carry PQerrorMessage / PQresultErrorMessage (first line).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

#include "catalog/sql_catalog.h"

#define SCHEMA_LOCK_KEY "7316203554123" /* advisory lock id for schema creation */

typedef struct pg_conn {
    PGconn *conn;
} pg_conn;

/* One line of a libpq message (they end in '\n'). */
static int msg_len(const char *m)
{
    size_t n = strcspn(m, "\n");
    return (int)(n > 500 ? 500 : n);
}

static fl_status result_error(sql_catalog *c, PGresult *r, const char *what, fl_error *err)
{
    pg_conn *p = c->conn;
    const char *state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    const char *m = r ? PQresultErrorMessage(r) : PQerrorMessage(p->conn);
    if (!m || !*m)
        m = PQerrorMessage(p->conn);
    fl_status code = FL_EIO;
    if (state && strcmp(state, "23505") == 0)
        code = FL_EEXIST;
    if (state && (strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0))
        c->retryable = true;
    return fl_errorf(err, code, "postgres catalog: %.120s: %.*s", what, msg_len(m), m);
}

static fl_status pg_simple(sql_catalog *c, const char *sql, fl_error *err)
{
    pg_conn *p = c->conn;
    PGresult *r = PQexec(p->conn, sql);
    ExecStatusType st = PQresultStatus(r);
    fl_status rc =
        st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK ? FL_OK : result_error(c, r, sql, err);
    PQclear(r);
    return rc;
}

static fl_status copy_rows(PGresult *r, fl_arena *a, sql_rows *rows, fl_error *err)
{
    int nr = PQntuples(r), nc = PQnfields(r);
    rows->nrows = (uint32_t)nr;
    rows->ncols = (uint32_t)nc;
    rows->cells = fl_arena_alloc(a, ((size_t)nr * (size_t)nc + 1) * sizeof *rows->cells);
    if (!rows->cells)
        return fl_errorf(err, FL_ENOMEM, "postgres catalog: out of memory");
    for (int i = 0; i < nr; i++)
        for (int j = 0; j < nc; j++) {
            const char **cell = &rows->cells[(size_t)i * (size_t)nc + (size_t)j];
            *cell = PQgetisnull(r, i, j) ? NULL : fl_arena_strdup(a, PQgetvalue(r, i, j));
            if (!PQgetisnull(r, i, j) && !*cell)
                return fl_errorf(err, FL_ENOMEM, "postgres catalog: out of memory");
        }
    return FL_OK;
}

static fl_status pg_exec(sql_catalog *c, sql_stmt q, const char *const *params, uint32_t nparams,
                         fl_arena *a, sql_rows *rows, uint64_t *changes, fl_error *err)
{
    pg_conn *p = c->conn;
    char name[32];
    snprintf(name, sizeof name, "floe_q%d", (int)q);
    PGresult *r = PQexecPrepared(p->conn, name, (int)nparams, params, NULL, NULL, 0);
    ExecStatusType st = PQresultStatus(r);
    fl_status rc = FL_OK;
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
        rc = result_error(c, r, sql_text(q, c->v1), err);
    if (rc == FL_OK && rows)
        rc = copy_rows(r, a, rows, err);
    if (rc == FL_OK && changes) {
        const char *n = PQcmdTuples(r);
        *changes = n && *n ? strtoull(n, NULL, 10) : 0;
    }
    PQclear(r);
    return rc;
}

/* Runs one of the prepared transaction-control statements. */
static fl_status pg_txn_stmt(sql_catalog *c, const char *name, const char *what, fl_error *err)
{
    pg_conn *p = c->conn;
    PGresult *r = PQexecPrepared(p->conn, name, 0, NULL, NULL, NULL, 0);
    fl_status rc = PQresultStatus(r) == PGRES_COMMAND_OK ? FL_OK : result_error(c, r, what, err);
    PQclear(r);
    return rc;
}

static fl_status pg_begin(sql_catalog *c, fl_error *err)
{
    return pg_txn_stmt(c, "floe_begin", "BEGIN ISOLATION LEVEL SERIALIZABLE", err);
}

static fl_status pg_commit(sql_catalog *c, fl_error *err)
{
    return pg_txn_stmt(c, "floe_commit", "COMMIT", err);
}

static void pg_rollback(sql_catalog *c)
{
    pg_conn *p = c->conn;
    if (PQtransactionStatus(p->conn) != PQTRANS_IDLE)
        pg_txn_stmt(c, "floe_rollback", "ROLLBACK", NULL);
}

static void pg_close(sql_catalog *c)
{
    pg_conn *p = c->conn;
    if (!p)
        return;
    PQfinish(p->conn);
    free(p);
    c->conn = NULL;
}

static const sql_driver PG_DRIVER = {pg_exec, pg_begin, pg_commit, pg_rollback, pg_close};

/* 1 when sql returns at least one row, 0 when none, negative status on error. */
static int pg_has_row(sql_catalog *c, const char *sql, fl_error *err)
{
    pg_conn *p = c->conn;
    PGresult *r = PQexec(p->conn, sql);
    int res =
        PQresultStatus(r) == PGRES_TUPLES_OK ? PQntuples(r) > 0 : (int)result_error(c, r, sql, err);
    PQclear(r);
    return res;
}

static fl_status init_schema_txn(sql_catalog *c, fl_error *err)
{
    FL_TRY(pg_simple(c, "SELECT pg_advisory_xact_lock(" SCHEMA_LOCK_KEY ")", err));
    int t = pg_has_row(c,
                       "SELECT 1 FROM information_schema.tables WHERE table_schema = "
                       "current_schema() AND table_name = 'iceberg_tables'",
                       err);
    if (t < 0)
        return (fl_status)t;
    if (!t) {
        FL_TRY(pg_simple(c, SQL_CREATE_TABLES, err));
        FL_TRY(pg_simple(c, SQL_ADD_TYPE_COLUMN, err));
    }
    int pr = pg_has_row(c,
                        "SELECT 1 FROM information_schema.tables WHERE table_schema = "
                        "current_schema() AND table_name = 'iceberg_namespace_properties'",
                        err);
    if (pr < 0)
        return (fl_status)pr;
    if (!pr)
        FL_TRY(pg_simple(c, SQL_CREATE_PROPS, err));
    int ty = pg_has_row(c,
                        "SELECT 1 FROM information_schema.columns WHERE table_schema = "
                        "current_schema() AND table_name = 'iceberg_tables' AND column_name = "
                        "'iceberg_type'",
                        err);
    if (ty < 0)
        return (fl_status)ty;
    c->v1 = ty == 1;
    return FL_OK;
}

/* '?' -> $1, $2, ... (the statements have no '?' inside literals). */
static char *number_params(const char *sql, int *n)
{
    char *out = malloc(strlen(sql) * 4 + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    *n = 0;
    for (const char *s = sql; *s; s++) {
        if (*s == '?')
            o += (size_t)sprintf(out + o, "$%d", ++*n);
        else
            out[o++] = *s;
    }
    out[o] = '\0';
    return out;
}

static fl_status prepare_one(sql_catalog *c, const char *name, const char *sql, int n,
                             fl_error *err)
{
    pg_conn *p = c->conn;
    PGresult *r = PQprepare(p->conn, name, sql, n, NULL);
    fl_status rc = PQresultStatus(r) == PGRES_COMMAND_OK ? FL_OK : result_error(c, r, sql, err);
    PQclear(r);
    return rc;
}

static fl_status prepare_all(sql_catalog *c, fl_error *err)
{
    FL_TRY(prepare_one(c, "floe_begin", "BEGIN ISOLATION LEVEL SERIALIZABLE", 0, err));
    FL_TRY(prepare_one(c, "floe_commit", "COMMIT", 0, err));
    FL_TRY(prepare_one(c, "floe_rollback", "ROLLBACK", 0, err));
    for (int i = 0; i < Q_COUNT; i++) {
        int n;
        char *sql = number_params(sql_text((sql_stmt)i, c->v1), &n);
        if (!sql)
            return fl_errorf(err, FL_ENOMEM, "postgres catalog: out of memory");
        char name[32];
        snprintf(name, sizeof name, "floe_q%d", i);
        fl_status rc = prepare_one(c, name, sql, n, err);
        free(sql);
        FL_TRY(rc);
    }
    return FL_OK;
}

static fl_status pg_connect(sql_catalog *c, const char *conninfo, fl_error *err)
{
    pg_conn *p = c->conn;
    p->conn = PQconnectdb(conninfo);
    if (!p->conn)
        return fl_errorf(err, FL_ENOMEM, "postgres catalog: out of memory");
    if (PQstatus(p->conn) != CONNECTION_OK) {
        const char *m = PQerrorMessage(p->conn);
        return fl_errorf(err, FL_EIO, "postgres catalog: connect: %.*s", msg_len(m), m);
    }
    FL_TRY(pg_simple(c, "SET client_min_messages = warning", err));
    FL_TRY(pg_simple(c, "BEGIN", err));
    fl_status rc = init_schema_txn(c, err);
    if (rc == FL_OK)
        rc = pg_simple(c, "COMMIT", err);
    if (rc != FL_OK) {
        PQclear(PQexec(p->conn, "ROLLBACK"));
        return rc;
    }
    return prepare_all(c, err);
}

fl_status fl_catalog_postgres_open(const char *conninfo, const char *catalog_name,
                                   const char *warehouse, fl_fileio *io, fl_catalog **out,
                                   fl_error *err)
{
    if (!conninfo)
        return fl_errorf(err, FL_EINVAL, "postgres catalog: NULL connection string");
    sql_catalog *c = calloc(1, sizeof *c);
    pg_conn *p = calloc(1, sizeof *p);
    if (!c || !p) {
        free(c);
        free(p);
        return fl_errorf(err, FL_ENOMEM, "postgres catalog: out of memory");
    }
    c->conn = p;
    c->drv = &PG_DRIVER;
    fl_status rc = sql_catalog_init(c, catalog_name, warehouse, io, err);
    if (rc == FL_OK)
        rc = pg_connect(c, conninfo, err);
    if (rc != FL_OK) {
        c->base.ops->close(&c->base);
        return rc;
    }
    *out = &c->base;
    return FL_OK;
}
