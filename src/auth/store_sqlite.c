/*
 * store_sqlite.c - the SQLite driver of the auth store (auth_internal.h).
 *
 * One connection, used under fl_auth's mutex (opened SQLITE_OPEN_NOMUTEX).
 * The database is normally the catalog's own file, shared with the catalog's
 * connections and with other processes (floe admin while floe serve runs):
 * WAL mode and a 30 s busy timeout, as the catalog uses (src/catalog/sqlite.c).
 * Write transactions are BEGIN IMMEDIATE (write lock up front: no deadlock
 * between two writers); read transactions are deferred BEGIN, which in WAL
 * gives one consistent snapshot. Statements are prepared on first use and
 * kept in a small cache keyed by their text, reset after each use so no read
 * transaction outlives a call.
 *
 * The file holds the token-signing key in clear: it is created 0600 and an
 * existing one loses group/other permissions (fl_catalog_private_file, also
 * for its -wal/-shm/-journal files) before SQLite opens it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "auth/auth_internal.h"
#include "floe/catalog.h"

#define BUSY_TIMEOUT_MS 30000
#define NCACHE 48

typedef struct lite_store {
    auth_store base;
    sqlite3 *db;
    char *what;
    struct {
        const char *sql;
        sqlite3_stmt *st;
    } cache[NCACHE];
} lite_store;

static fl_status db_error(lite_store *s, int rc, const char *sql, fl_error *err)
{
    const char *msg = sqlite3_errmsg(s->db);
    int base = rc & 0xFF;
    fl_status code = FL_EIO;
    if (rc == SQLITE_CONSTRAINT_PRIMARYKEY || rc == SQLITE_CONSTRAINT_UNIQUE)
        code = FL_EEXIST;
    else if (base == SQLITE_NOMEM)
        code = FL_ENOMEM;
    else if (base == SQLITE_CORRUPT || base == SQLITE_NOTADB)
        code = FL_ECORRUPT;
    return fl_errorf(err, code, "%s: %.60s: %s", s->what, sql, msg);
}

static fl_status get_stmt(lite_store *s, const char *sql, sqlite3_stmt **out, fl_error *err)
{
    int free_slot = -1;
    for (int i = 0; i < NCACHE; i++) {
        if (s->cache[i].sql && strcmp(s->cache[i].sql, sql) == 0) {
            *out = s->cache[i].st;
            return FL_OK;
        }
        if (!s->cache[i].sql && free_slot < 0)
            free_slot = i;
    }
    int rc = sqlite3_prepare_v2(s->db, sql, -1, out, NULL);
    if (rc != SQLITE_OK)
        return db_error(s, rc, sql, err);
    if (free_slot >= 0) {
        s->cache[free_slot].sql = sql; /* callers pass string literals */
        s->cache[free_slot].st = *out;
    }
    return FL_OK;
}

static fl_status add_row(sqlite3_stmt *st, fl_arena *a, auth_rows *rows, uint32_t *cap,
                         fl_error *err)
{
    uint32_t nc = rows->ncols;
    if (rows->nrows == *cap) {
        uint32_t ncap = *cap ? *cap * 2 : 16;
        const char **cells = fl_arena_alloc(a, (size_t)ncap * nc * sizeof *cells + 1);
        if (!cells)
            return fl_errorf(err, FL_ENOMEM, "auth store: out of memory");
        if (*cap)
            memcpy(cells, rows->cells, (size_t)*cap * nc * sizeof *cells);
        rows->cells = cells;
        *cap = ncap;
    }
    for (uint32_t i = 0; i < nc; i++) {
        const unsigned char *t = sqlite3_column_text(st, (int)i);
        const char *v =
            t ? fl_arena_strndup(a, (const char *)t, (size_t)sqlite3_column_bytes(st, (int)i))
              : NULL;
        if (t && !v)
            return fl_errorf(err, FL_ENOMEM, "auth store: out of memory");
        rows->cells[(size_t)rows->nrows * nc + i] = v;
    }
    rows->nrows++;
    return FL_OK;
}

static fl_status lite_exec(auth_store *base, const char *sql, const char *const *params, uint32_t n,
                           fl_arena *a, auth_rows *rows, uint64_t *changes, fl_error *err)
{
    lite_store *s = (lite_store *)base;
    sqlite3_stmt *st = NULL;
    FL_TRY(get_stmt(s, sql, &st, err));
    bool cached = false;
    for (int i = 0; i < NCACHE; i++)
        cached |= s->cache[i].st == st;
    fl_status rc = FL_OK;
    for (uint32_t i = 0; i < n && rc == FL_OK; i++) {
        int r = params[i] ? sqlite3_bind_text(st, (int)i + 1, params[i], -1, SQLITE_STATIC)
                          : sqlite3_bind_null(st, (int)i + 1);
        if (r != SQLITE_OK)
            rc = db_error(s, r, sql, err);
    }
    uint32_t cap = 0;
    if (rows)
        *rows = (auth_rows){0, (uint32_t)sqlite3_column_count(st), NULL};
    while (rc == FL_OK) {
        int r = sqlite3_step(st);
        if (r == SQLITE_DONE)
            break;
        if (r != SQLITE_ROW)
            rc = db_error(s, sqlite3_extended_errcode(s->db), sql, err);
        else if (rows)
            rc = add_row(st, a, rows, &cap, err);
    }
    if (rc == FL_OK && changes)
        *changes = (uint64_t)sqlite3_changes(s->db);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    if (!cached)
        sqlite3_finalize(st);
    return rc;
}

static fl_status simple(lite_store *s, const char *sql, fl_error *err)
{
    char *msg = NULL;
    int rc = sqlite3_exec(s->db, sql, NULL, NULL, &msg);
    if (rc == SQLITE_OK)
        return FL_OK;
    fl_status e = fl_errorf(err, (rc & 0xFF) == SQLITE_CONSTRAINT ? FL_EEXIST : FL_EIO,
                            "%s: %s: %s", s->what, sql, msg ? msg : sqlite3_errstr(rc));
    sqlite3_free(msg);
    return e;
}

static fl_status lite_begin(auth_store *base, bool write, fl_error *err)
{
    return simple((lite_store *)base, write ? "BEGIN IMMEDIATE" : "BEGIN", err);
}

static fl_status lite_commit(auth_store *base, fl_error *err)
{
    return simple((lite_store *)base, "COMMIT", err);
}

static void lite_rollback(auth_store *base)
{
    lite_store *s = (lite_store *)base;
    if (!sqlite3_get_autocommit(s->db))
        sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

static void lite_close(auth_store *base)
{
    lite_store *s = (lite_store *)base;
    if (!s)
        return;
    for (int i = 0; i < NCACHE; i++)
        sqlite3_finalize(s->cache[i].st);
    sqlite3_close(s->db);
    free(s->what);
    free(s);
}

fl_status auth_store_sqlite_open(const char *path, auth_store **out, fl_error *err)
{
    *out = NULL;
    lite_store *s = calloc(1, sizeof *s);
    size_t wl = strlen(path) + 32;
    if (!s || !(s->what = malloc(wl))) {
        free(s);
        return fl_errorf(err, FL_ENOMEM, "auth store: out of memory");
    }
    snprintf(s->what, wl, "sqlite auth store %s", path);
    s->base =
        (auth_store){lite_exec, lite_begin, lite_commit, lite_rollback, lite_close, false, s->what};
    if (fl_catalog_private_file(path, err) != FL_OK) {
        lite_close(&s->base);
        return FL_EIO;
    }
    int rc = sqlite3_open_v2(
        path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        fl_errorf(err, FL_EIO, "%s: open: %s", s->what,
                  s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
        lite_close(&s->base);
        return FL_EIO;
    }
    sqlite3_extended_result_codes(s->db, 1);
    sqlite3_busy_timeout(s->db, BUSY_TIMEOUT_MS);
    /* SQLITE_BUSY without the busy handler when another connection creates
     * the file at the same moment (see src/catalog/sqlite.c enable_wal) */
    for (int waited = 0; waited < BUSY_TIMEOUT_MS; waited += 10) {
        int wrc = sqlite3_exec(s->db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL);
        if ((wrc & 0xff) != SQLITE_BUSY)
            break;
        sqlite3_sleep(10);
    }
    fl_status st = simple(s, "PRAGMA journal_mode=WAL", err);
    if (st == FL_OK)
        st = simple(s, "PRAGMA synchronous=FULL", err);
    if (st != FL_OK) {
        lite_close(&s->base);
        return st;
    }
    *out = &s->base;
    return FL_OK;
}
