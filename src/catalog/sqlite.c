/*
 * sqlite.c - the SQLite driver of the JDBC-layout catalog (sql_catalog.h).
 *
 * Concurrency: the database runs in WAL mode with a 30 s busy timeout, and
 * every write transaction starts with BEGIN IMMEDIATE (the write lock is
 * taken up front, so two writers never deadlock and the busy handler makes
 * the second one wait). A lock still held after the timeout is FL_EIO
 * naming the database and sqlite3_errmsg, never a silent loss. Statements
 * are prepared once at open and reset right after each use, so no read
 * transaction outlives a call.
 *
 * Schema creation runs inside BEGIN IMMEDIATE too, so several processes
 * opening a fresh file at once create the tables exactly once.
 *
 * The database file is created 0600 (fl_catalog_private_file: it also holds
 * the auth store, whose token-signing key is in clear) and its absolute path
 * is the catalog's db_file, which no table location may contain.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "catalog/sql_catalog.h"

#define BUSY_TIMEOUT_MS 30000

typedef struct sqlite_conn {
    sqlite3 *db;
    int timeout_ms;
    char *path;
    char *abs_path; /* realpath of path: the catalog's db_file */
    sqlite3_stmt *stmts[Q_COUNT];
    sqlite3_stmt *begin, *commit, *rollback;
} sqlite_conn;

static fl_status db_error(sqlite_conn *s, int rc, const char *what, fl_error *err)
{
    const char *msg = sqlite3_errmsg(s->db);
    int base = rc & 0xFF;
    if (base == SQLITE_BUSY || base == SQLITE_LOCKED)
        return fl_errorf(err, FL_EIO,
                         "sqlite catalog %s: %s: database still locked by another connection "
                         "after waiting %d ms: %s",
                         s->path, what, s->timeout_ms, msg);
    if (rc == SQLITE_CONSTRAINT_PRIMARYKEY || rc == SQLITE_CONSTRAINT_UNIQUE)
        return fl_errorf(err, FL_EEXIST, "sqlite catalog %s: %s: %s", s->path, what, msg);
    if (base == SQLITE_NOMEM)
        return fl_errorf(err, FL_ENOMEM, "sqlite catalog %s: %s: %s", s->path, what, msg);
    if (base == SQLITE_CORRUPT || base == SQLITE_NOTADB)
        return fl_errorf(err, FL_ECORRUPT, "sqlite catalog %s: %s: %s", s->path, what, msg);
    return fl_errorf(err, FL_EIO, "sqlite catalog %s: %s: %s", s->path, what, msg);
}

/* Steps st to completion, collecting rows into a (rows may be NULL). */
static fl_status step_all(sqlite_conn *s, sqlite3_stmt *st, fl_arena *a, sql_rows *rows,
                          const char *what, fl_error *err)
{
    uint32_t cap = 0;
    int ncols = sqlite3_column_count(st);
    if (rows)
        *rows = (sql_rows){0, (uint32_t)ncols, NULL};
    for (;;) {
        int rc = sqlite3_step(st);
        if (rc == SQLITE_DONE)
            break;
        if (rc != SQLITE_ROW) {
            fl_status e = db_error(s, sqlite3_extended_errcode(s->db), what, err);
            sqlite3_reset(st);
            return e;
        }
        if (!rows)
            continue;
        if (rows->nrows == cap) {
            uint32_t ncap = cap ? cap * 2 : 16;
            const char **cells = fl_arena_alloc(a, (size_t)ncap * (size_t)ncols * sizeof *cells);
            if (!cells) {
                sqlite3_reset(st);
                return fl_errorf(err, FL_ENOMEM, "sqlite catalog: out of memory");
            }
            if (cap)
                memcpy(cells, rows->cells, (size_t)cap * (size_t)ncols * sizeof *cells);
            rows->cells = cells;
            cap = ncap;
        }
        for (int i = 0; i < ncols; i++) {
            const unsigned char *t = sqlite3_column_text(st, i);
            const char *v =
                t ? fl_arena_strndup(a, (const char *)t, (size_t)sqlite3_column_bytes(st, i))
                  : NULL;
            if (t && !v) {
                sqlite3_reset(st);
                return fl_errorf(err, FL_ENOMEM, "sqlite catalog: out of memory");
            }
            rows->cells[(size_t)rows->nrows * (size_t)ncols + (size_t)i] = v;
        }
        rows->nrows++;
    }
    sqlite3_reset(st);
    return FL_OK;
}

static fl_status lite_exec(sql_catalog *c, sql_stmt q, const char *const *params, uint32_t nparams,
                           fl_arena *a, sql_rows *rows, uint64_t *changes, fl_error *err)
{
    sqlite_conn *s = c->conn;
    sqlite3_stmt *st = s->stmts[q];
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    for (uint32_t i = 0; i < nparams; i++) {
        int rc = params[i] ? sqlite3_bind_text(st, (int)i + 1, params[i], -1, SQLITE_STATIC)
                           : sqlite3_bind_null(st, (int)i + 1);
        if (rc != SQLITE_OK)
            return db_error(s, rc, "bind", err);
    }
    FL_TRY(step_all(s, st, a, rows, sqlite3_sql(st), err));
    if (changes)
        *changes = (uint64_t)sqlite3_changes(s->db);
    return FL_OK;
}

static fl_status lite_simple(sql_catalog *c, sqlite3_stmt *st, const char *what, fl_error *err)
{
    return step_all(c->conn, st, NULL, NULL, what, err);
}

static fl_status lite_begin(sql_catalog *c, fl_error *err)
{
    return lite_simple(c, ((sqlite_conn *)c->conn)->begin, "BEGIN IMMEDIATE", err);
}

static fl_status lite_commit(sql_catalog *c, fl_error *err)
{
    return lite_simple(c, ((sqlite_conn *)c->conn)->commit, "COMMIT", err);
}

static void lite_rollback(sql_catalog *c)
{
    sqlite_conn *s = c->conn;
    if (!sqlite3_get_autocommit(s->db))
        lite_simple(c, s->rollback, "ROLLBACK", NULL);
}

static void lite_close(sql_catalog *c)
{
    sqlite_conn *s = c->conn;
    if (!s)
        return;
    for (int i = 0; i < Q_COUNT; i++)
        sqlite3_finalize(s->stmts[i]);
    sqlite3_finalize(s->begin);
    sqlite3_finalize(s->commit);
    sqlite3_finalize(s->rollback);
    sqlite3_close(s->db);
    free(s->path);
    free(s->abs_path);
    free(s);
    c->conn = NULL;
}

static const sql_driver SQLITE_DRIVER = {lite_exec, lite_begin, lite_commit, lite_rollback,
                                         lite_close};

static fl_status exec_sql(sqlite_conn *s, const char *sql, fl_error *err)
{
    char *msg = NULL;
    int rc = sqlite3_exec(s->db, sql, NULL, NULL, &msg);
    if (rc == SQLITE_OK)
        return FL_OK;
    fl_status e = db_error(s, sqlite3_extended_errcode(s->db), sql, err);
    sqlite3_free(msg);
    return e;
}

/* PRAGMA journal_mode=WAL on a database that another connection is
 * creating at the same moment can fail with SQLITE_BUSY at once: SQLite
 * skips the busy handler where waiting could deadlock. Retried here, every
 * 10 ms, for the same busy timeout. */
static fl_status enable_wal(sqlite_conn *s, fl_error *err)
{
    for (int waited = 0;; waited += 10) {
        int rc = sqlite3_exec(s->db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL);
        if (rc == SQLITE_OK)
            return FL_OK;
        if ((rc & 0xff) != SQLITE_BUSY || waited >= s->timeout_ms)
            return exec_sql(s, "PRAGMA journal_mode=WAL", err);
        sqlite3_sleep(10);
    }
}

static fl_status prepare(sqlite_conn *s, const char *sql, sqlite3_stmt **st, fl_error *err)
{
    int rc = sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL);
    return rc == SQLITE_OK ? FL_OK : db_error(s, rc, sql, err);
}

/* 1 when the query returns a row, 0 when not, negative status on error. */
static int has_row(sqlite_conn *s, const char *sql, fl_error *err)
{
    sqlite3_stmt *st;
    FL_TRY(prepare(s, sql, &st, err));
    int rc = sqlite3_step(st);
    int res = rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : db_error(s, rc, sql, err);
    sqlite3_finalize(st);
    return res;
}

/* Creates missing tables (Java's DDL) and detects the iceberg_type column. */
static fl_status init_schema_txn(sqlite_conn *s, bool *v1, fl_error *err)
{
    int t =
        has_row(s, "SELECT 1 FROM sqlite_master WHERE type='table' AND name='iceberg_tables'", err);
    if (t < 0)
        return (fl_status)t;
    if (!t) {
        FL_TRY(exec_sql(s, SQL_CREATE_TABLES, err));
        FL_TRY(exec_sql(s, SQL_ADD_TYPE_COLUMN, err));
    }
    int p = has_row(
        s, "SELECT 1 FROM sqlite_master WHERE type='table' AND name='iceberg_namespace_properties'",
        err);
    if (p < 0)
        return (fl_status)p;
    if (!p)
        FL_TRY(exec_sql(s, SQL_CREATE_PROPS, err));
    int ty = has_row(
        s, "SELECT 1 FROM pragma_table_info('iceberg_tables') WHERE name='iceberg_type'", err);
    if (ty < 0)
        return (fl_status)ty;
    *v1 = ty == 1;
    return FL_OK;
}

static fl_status init_schema(sqlite_conn *s, bool *v1, fl_error *err)
{
    FL_TRY(exec_sql(s, "BEGIN IMMEDIATE", err));
    fl_status rc = init_schema_txn(s, v1, err);
    if (rc == FL_OK)
        rc = exec_sql(s, "COMMIT", err);
    if (rc != FL_OK && !sqlite3_get_autocommit(s->db))
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

static fl_status lite_connect(sqlite_conn *s, const char *path, bool *v1, fl_error *err)
{
    int rc = sqlite3_open_v2(
        path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK)
        return fl_errorf(err, FL_EIO, "sqlite catalog %s: open: %s", path,
                         s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
    sqlite3_extended_result_codes(s->db, 1);
    s->timeout_ms = BUSY_TIMEOUT_MS;
    sqlite3_busy_timeout(s->db, BUSY_TIMEOUT_MS);
    FL_TRY(enable_wal(s, err));
    FL_TRY(exec_sql(s, "PRAGMA synchronous=FULL",
                    err)); /* an acknowledged commit survives power loss */
    FL_TRY(init_schema(s, v1, err));
    for (int i = 0; i < Q_COUNT; i++)
        FL_TRY(prepare(s, sql_text((sql_stmt)i, *v1), &s->stmts[i], err));
    FL_TRY(prepare(s, "BEGIN IMMEDIATE", &s->begin, err));
    FL_TRY(prepare(s, "COMMIT", &s->commit, err));
    return prepare(s, "ROLLBACK", &s->rollback, err);
}

fl_status fl_catalog_sqlite_open(const char *db_path, const char *catalog_name,
                                 const char *warehouse, fl_fileio *io, fl_catalog **out,
                                 fl_error *err)
{
    if (!db_path || !*db_path)
        return fl_errorf(err, FL_EINVAL, "sqlite catalog: empty database path");
    sql_catalog *c = calloc(1, sizeof *c);
    sqlite_conn *s = calloc(1, sizeof *s);
    if (!c || !s) {
        free(c);
        free(s);
        return fl_errorf(err, FL_ENOMEM, "sqlite catalog: out of memory");
    }
    c->conn = s;
    c->drv = &SQLITE_DRIVER;
    s->path = strdup(db_path);
    fl_status rc = sql_catalog_init(c, catalog_name, warehouse, io, err);
    if (rc == FL_OK && !s->path)
        rc = fl_errorf(err, FL_ENOMEM, "sqlite catalog: out of memory");
    if (rc == FL_OK)
        rc = fl_catalog_private_file(db_path, err);
    if (rc == FL_OK)
        rc = lite_connect(s, db_path, &c->v1, err);
    char abs[PATH_MAX];
    if (rc == FL_OK && realpath(db_path, abs) && !(s->abs_path = strdup(abs)))
        rc = fl_errorf(err, FL_ENOMEM, "sqlite catalog: out of memory");
    if (rc != FL_OK) {
        c->base.ops->close(&c->base);
        return rc;
    }
    c->base.db_file = s->abs_path;
    *out = &c->base;
    return FL_OK;
}

fl_status fl_catalog_sqlite_set_busy_timeout(fl_catalog *cat, int timeout_ms, fl_error *err)
{
    sql_catalog *c = (sql_catalog *)cat;
    if (!sql_catalog_is(cat) || c->drv != &SQLITE_DRIVER || timeout_ms < 0)
        return fl_errorf(err, FL_EINVAL, "busy timeout: not a SQLite catalog, or negative");
    sqlite_conn *s = c->conn;
    s->timeout_ms = timeout_ms;
    sqlite3_busy_timeout(s->db, timeout_ms);
    return FL_OK;
}
