/*
 * floe_test.h - the helpers shared by the C unit tests (tests/<dir>/test_*.c).
 *
 * Every test file is its own executable linked with the static libfloe, with
 * src/ and tests/ on its include path and no shared test objects, so this is
 * a header of static inline functions: a file includes it and uses what it
 * needs. It brings in test.h (CHECK*, TEST_RUN, TEST_EXIT: a failed check
 * prints file:line, counts one failed case, and main returns nonzero).
 *
 *   ft_tmpdir / ft_rmtree   a fresh folder under $TMPDIR (default /tmp) and
 *                           its recursive removal at the end of the test.
 *   ft_slurp                a whole file, malloc'd and NUL-terminated.
 *   ft_open_sqlite          a session on the SQLite catalog <dir>/cat.db with
 *                           the warehouse <dir>/wh.
 *   ft_run / ft_expect      run one statement and render its rows as text.
 *   ft_expect_sqlstate      a statement must fail with a given SQLSTATE.
 *
 * Rendering: every live row (the batch's selection honoured) as its values
 * in PostgreSQL's text format (fl_sql_format_value, time zone UTC) joined by
 * '|', NULL as "NULL", each row followed by row_end ("\n" for one line per
 * row; some older tests use ";"). Output longer than cap is truncated and
 * always NUL-terminated.
 */
#ifndef FLOE_TEST_HELPERS_H
#define FLOE_TEST_HELPERS_H

#include <ftw.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "floe/sql.h"
#include "test.h"

/* Creates $TMPDIR/<prefix>_XXXXXX (TMPDIR unset or empty: /tmp) into buf.
 * Returns buf, or NULL (with a message) when it cannot be created. */
static inline char *ft_tmpdir(char *buf, size_t cap, const char *prefix)
{
    const char *t = getenv("TMPDIR");
    if (!t || !*t)
        t = "/tmp";
    int n = snprintf(buf, cap, "%s/%s_XXXXXX", t, prefix);
    if (n < 0 || (size_t)n >= cap || !mkdtemp(buf)) {
        fprintf(stderr, "ft_tmpdir: cannot create %s\n", buf);
        return NULL;
    }
    return buf;
}

static inline int ft_rmtree_visit_(const char *path, const struct stat *st, int flag,
                                   struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path) == 0 ? 0 : -1;
}

/* Removes path and everything below it (symlinks are not followed), as
 * rm -rf does. 0 when it is gone (a NULL, empty or missing path included);
 * -1, with a warning, when something could not be removed. */
static inline int ft_rmtree(const char *path)
{
    if (!path || !*path || access(path, F_OK) != 0)
        return 0;
    if (nftw(path, ft_rmtree_visit_, 16, FTW_DEPTH | FTW_PHYS) == 0)
        return 0;
    fprintf(stderr, "warning: could not remove %s\n", path);
    return -1;
}

/* The whole file at path, malloc'd with a NUL after the last byte (so text
 * can be used as a string); *len (if len) is its size. NULL when it cannot
 * be read. void * so that it assigns to char * and uint8_t * alike. */
static inline void *ft_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *b = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0)
        n = ftell(f);
    if (n >= 0 && fseek(f, 0, SEEK_SET) == 0)
        b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (b) {
        b[n] = 0;
        if (len)
            *len = (size_t)n;
    }
    return b;
}

/* A one-thread session over the SQLite catalog <dir>/cat.db with warehouse
 * <dir>/wh (created on first use). default_namespace and user may be NULL.
 * NULL (after a failed CHECK) when it cannot be opened. */
static inline fl_sql_session *ft_open_sqlite(const char *dir, const char *default_namespace,
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
static inline void ft_render_row(const fl_batch *b, uint32_t row, const char *row_end, char *out,
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
static inline fl_status ft_run(fl_sql_session *s, const char *sql, const char *row_end, char *out,
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
            ft_render_row(b, b->sel ? b->sel->idx[i] : i, row_end, out, cap, &len);
    }
    fl_sql_result_close(r);
    return rc;
}

/* Runs sql and CHECKs that it succeeds with exactly the rows want. */
static inline void ft_expect(fl_sql_session *s, const char *sql, const char *row_end,
                             const char *want)
{
    char out[4096];
    fl_error err;
    fl_status rc = ft_run(s, sql, row_end, out, sizeof out, &err);
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

/* Runs sql and CHECKs that it fails and that fl_sql_last_error reports
 * sqlstate for it. */
static inline void ft_expect_sqlstate(fl_sql_session *s, const char *sql, const char *sqlstate)
{
    char out[4096];
    fl_error err;
    fl_status rc = ft_run(s, sql, "\n", out, sizeof out, &err);
    CHECK(rc != FL_OK);
    fl_sql_error_info info;
    fl_sql_last_error(s, &info);
    if (strcmp(info.sqlstate, sqlstate) != 0) {
        fprintf(stderr, "%s\n  -> sqlstate %s (%s), want %s\n", sql, info.sqlstate,
                rc ? err.msg : "ok", sqlstate);
        CHECK(0);
    }
}

#endif
