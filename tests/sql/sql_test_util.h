/*
 * sql_test_util.h - the "run SQL, render rows" helper of the SQL tests that
 * go through sql.h (test_pgcat_*.c, test_session_*.c, test_exec_join_plan.c).
 * A header of static inline functions: CMake builds every tests/<dir>/test_*.c
 * as its own executable against libfloe with no shared test objects.
 *
 * Rendering: every live row (the batch's selection honoured) as its values
 * in PostgreSQL's text format (fl_sql_format_value, time zone UTC) joined
 * by '|', NULL as "NULL", each row followed by row_end ("\n" or ";").
 * Output longer than cap is truncated (always NUL-terminated).
 */
#ifndef FLOE_SQL_TEST_UTIL_H
#define FLOE_SQL_TEST_UTIL_H

#include <stdio.h>
#include <string.h>

#include "floe/sql.h"
#include "test.h"

/* A one-thread session over the SQLite catalog <dir>/cat.db with warehouse
 * <dir>/wh (created on first use). default_namespace and user may be NULL.
 * NULL (after a failed CHECK) when it cannot be opened. */
static inline fl_sql_session *sqlt_open_sqlite(const char *dir, const char *default_namespace,
                                               const char *user)
{
    char uri[512], wh[512];
    snprintf(uri, sizeof uri, "sqlite:%s/cat.db", dir);
    snprintf(wh, sizeof wh, "%s/wh", dir);
    fl_sql_options o;
    memset(&o, 0, sizeof o);
    o.catalog_uri = uri;
    o.warehouse = wh;
    o.threads = 1;
    o.default_namespace = default_namespace;
    o.user = user;
    fl_sql_session *s = NULL;
    fl_error err;
    CHECK_OK(fl_sql_session_open(&o, &s, &err), &err);
    return s;
}

/* Appends one row of b to out at *len. */
static inline void sqlt_render_row(const fl_batch *b, uint32_t row, const char *row_end, char *out,
                                   size_t cap, size_t *len)
{
    for (uint32_t c = 0; c < b->ncols; c++) {
        char v[512];
        fl_unified u;
        fl_vector_unify(&b->cols[c], &u);
        if (!fl_unified_is_valid(&u, row))
            snprintf(v, sizeof v, "NULL");
        else
            fl_sql_format_value(&b->cols[c], row, "UTC", v, sizeof v);
        *len += (size_t)snprintf(out + *len, *len < cap ? cap - *len : 0, "%s%s", c ? "|" : "", v);
    }
    *len += (size_t)snprintf(out + *len, *len < cap ? cap - *len : 0, "%s", row_end);
}

/* Runs one statement on s and renders its rows into out (see above). */
static inline fl_status sqlt_run(fl_sql_session *s, const char *sql, const char *row_end, char *out,
                                 size_t cap, fl_error *err)
{
    fl_sql_result *r = NULL;
    out[0] = 0;
    fl_status rc = fl_sql_execute(s, sql, &r, err);
    if (rc != FL_OK)
        return rc;
    size_t len = 0;
    for (;;) {
        const fl_batch *b;
        bool eof;
        rc = fl_sql_result_next(r, &b, &eof, err);
        if (rc != FL_OK || eof)
            break;
        for (uint32_t i = 0; i < fl_batch_live_rows(b); i++)
            sqlt_render_row(b, b->sel ? b->sel->idx[i] : i, row_end, out, cap, &len);
    }
    fl_sql_result_close(r);
    return rc;
}

/* Runs sql and CHECKs that it succeeds with exactly the rows want. */
static inline void sqlt_expect(fl_sql_session *s, const char *sql, const char *row_end,
                               const char *want)
{
    char out[4096];
    fl_error err;
    fl_status rc = sqlt_run(s, sql, row_end, out, sizeof out, &err);
    if (rc != FL_OK) {
        fprintf(stderr, "%s\n  -> error %s\n", sql, err.msg);
        CHECK(0);
        return;
    }
    if (strcmp(out, want) != 0) {
        fprintf(stderr, "%s\n  -> got  \"%s\"\n     want \"%s\"\n", sql, out, want);
        CHECK(0);
    }
}

#endif
