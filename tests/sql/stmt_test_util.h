/*
 * stmt_test_util.h - shared setup of the statement tests (test_stmt_*.c):
 * a temporary warehouse with a SQLite catalog, a SQL session over it, and
 * helpers that run one statement and return its tag or its rows as text
 * ("1|a\n2|b\n", values in PostgreSQL's text format, NULL as "NULL").
 */
#ifndef FLOE_STMT_TEST_UTIL_H
#define FLOE_STMT_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "floe/catalog.h"
#include "floe/ice_table.h"
#include "floe/s3.h"
#include "floe/sql.h"
#include "floe_test.h"

typedef struct stmt_env {
    char dir[256];
    fl_fileio *io;
    fl_catalog *cat;
    fl_sql_session *s;
    char tag[128];
    fl_error err;
    char rows[65536];
} stmt_env;

static inline int stmt_env_open(stmt_env *e)
{
    memset(e, 0, sizeof *e);
    if (!ft_tmpdir(e->dir, sizeof e->dir, "floe_stmt"))
        return -1;
    char db[320], wh[320];
    snprintf(db, sizeof db, "%s/catalog.db", e->dir);
    snprintf(wh, sizeof wh, "%s/wh", e->dir);
    if (fl_fileio_default(NULL, &e->io, &e->err) != FL_OK)
        return -1;
    if (fl_catalog_sqlite_open(db, NULL, wh, e->io, &e->cat, &e->err) != FL_OK)
        return -1;
    fl_sql_options o = {0};
    o.catalog = e->cat;
    o.io = e->io;
    o.default_namespace = "test";
    o.threads = 2;
    if (fl_sql_session_open(&o, &e->s, &e->err) != FL_OK)
        return -1;
    return 0;
}

static inline void stmt_env_close(stmt_env *e)
{
    fl_sql_session_close(e->s);
    fl_catalog_close(e->cat);
    fl_fileio_destroy(e->io);
    ft_rmtree(e->dir);
}

/* Runs sql; fills e->tag and e->rows; returns the status (e->err on failure). */
static inline int stmt_run(stmt_env *e, const char *sql)
{
    fl_sql_result *r = NULL;
    e->tag[0] = '\0';
    e->rows[0] = '\0';
    fl_error_clear(&e->err);
    int rc = fl_sql_execute(e->s, sql, &r, &e->err);
    if (rc != FL_OK)
        return rc;
    size_t used = 0;
    for (;;) {
        const fl_batch *b = NULL;
        bool eof = false;
        rc = fl_sql_result_next(r, &b, &eof, &e->err);
        if (rc != FL_OK || eof || !b)
            break;
        uint32_t n = fl_batch_live_rows(b);
        for (uint32_t k = 0; k < n; k++) {
            uint32_t row = b->sel ? b->sel->idx[k] : k;
            for (uint32_t c = 0; c < b->ncols; c++) {
                char cell[512];
                fl_unified u;
                fl_vector_unify(&b->cols[c], &u);
                if (!fl_unified_is_valid(&u, row))
                    snprintf(cell, sizeof cell, "NULL");
                else
                    fl_sql_format_value(&b->cols[c], row, "UTC", cell, sizeof cell);
                used += (size_t)snprintf(e->rows + used, sizeof e->rows - used, "%s%s",
                                         c ? "|" : "", cell);
                if (used >= sizeof e->rows - 2)
                    used = sizeof e->rows - 2;
            }
            used += (size_t)snprintf(e->rows + used, sizeof e->rows - used, "\n");
            if (used >= sizeof e->rows - 2)
                used = sizeof e->rows - 2;
        }
    }
    if (rc == FL_OK)
        snprintf(e->tag, sizeof e->tag, "%s", fl_sql_result_tag(r));
    fl_sql_result_close(r);
    return rc;
}

/* Runs sql expecting success; reports the error otherwise. */
#define RUN_OK(e, sql)                                                                             \
    do {                                                                                           \
        int rc__ = stmt_run((e), (sql));                                                           \
        if (rc__ != 0) {                                                                           \
            fprintf(stderr, "%s:%d: %s failed (%d): %s\n", __FILE__, __LINE__, (sql), rc__,       \
                    (e)->err.msg);                                                                 \
            test_case_failed_ = 1;                                                                 \
        }                                                                                          \
    } while (0)

/* Runs sql expecting status code and an error message containing needle. */
#define RUN_ERR(e, sql, code, needle)                                                              \
    do {                                                                                           \
        int rc__ = stmt_run((e), (sql));                                                           \
        if (rc__ != (code) || !strstr((e)->err.msg, (needle))) {                                   \
            fprintf(stderr, "%s:%d: %s: want %d \"%s\", got %d \"%s\"\n", __FILE__, __LINE__,      \
                    (sql), (code), (needle), rc__, (e)->err.msg);                                  \
            test_case_failed_ = 1;                                                                 \
        }                                                                                          \
    } while (0)

/* Loads a table's current metadata (caller frees). */
static inline fl_ice_table *stmt_load(stmt_env *e, const char *name)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_table_ident id;
    fl_ice_table *t = NULL;
    if (fl_table_ident_parse(name, &a, &id, &e->err) == FL_OK)
        fl_ice_table_load(e->cat, &id, &t, &e->err);
    fl_arena_free(&a);
    return t;
}

#endif
