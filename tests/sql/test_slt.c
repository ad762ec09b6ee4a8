/*
 * test_slt.c - the sqllogictest-style runner: runs every .slt file in tests/sql/slt
 * file through the public SQL API (sql.h) and checks each record.
 *
 * FILE FORMAT (records separated by blank lines; '#' lines are comments)
 *   statement ok            the SQL must succeed
 *   statement error [X]     the SQL must fail; X is a SQLSTATE (5 characters,
 *                           compared with fl_sql_last_error) or else a
 *                           fragment of the message
 *   query TYPES [rowsort]   the SQL's rows must equal the lines after "----"
 *                           (tab-separated cells); TYPES has one letter per
 *                           column: I integer, T text (exact text), R number
 *                           compared rounded to 3 decimals
 * Cells: fl_sql_format_value() text; NULL -> "NULL", empty string ->
 * "(empty)", tab/newline -> "\t"/"\n"; R cells "%.3f" with ties rounded away
 * from zero (as JavaScript's toFixed, which the generator uses). rowsort
 * sorts the row lines bytewise before comparing. gen-expected.mjs writes the
 * expected values (PostgreSQL 15 and DuckDB agreeing).
 *
 * Each file runs in its own session over a fresh SQLite catalog and
 * warehouse in a temporary directory, with TimeZone UTC.
 *
 * KNOWN FAILURES: tests/sql/slt/xfail.txt lists records that fail because an
 * engine feature is missing ("FILE<TAB>first line of the SQL<TAB>reason";
 * FILE#n for the n-th record of a file with that same first line).
 * They print XFAIL and do not fail the test; passing ones print XPASS.
 * FLOE_SLT_WRITE_XFAIL=PATH writes the current failures in that format.
 * FLOE_SLT_FILE=name.slt runs one file; FLOE_SLT_VERBOSE=1 prints every record.
 */

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "floe/sql.h"
#include "floe_test.h"

typedef struct strv {
    char **v;
    size_t n, cap;
} strv;

static void strv_push(strv *s, char *x)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 16;
        s->v = realloc(s->v, s->cap * sizeof *s->v);
        if (!s->v) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
    }
    s->v[s->n++] = x;
}

static void strv_free(strv *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
    memset(s, 0, sizeof *s);
}

static int cmp_bytes(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ---- cell normalization ---- */

static void append_escaped(char **out, size_t *len, size_t *cap, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (*len + 3 >= *cap) {
            *cap = *cap * 2 + 64;
            *out = realloc(*out, *cap);
            if (!*out)
                exit(1);
        }
        if (s[i] == '\t' || s[i] == '\n') {
            (*out)[(*len)++] = '\\';
            (*out)[(*len)++] = s[i] == '\t' ? 't' : 'n';
        } else {
            (*out)[(*len)++] = s[i];
        }
    }
    (*out)[*len] = '\0';
}

static void format_real(const char *text, char *buf, size_t cap)
{
    char *end = NULL;
    double x = strtod(text, &end);
    if (end == text || *end || !isfinite(x)) {
        snprintf(buf, cap, "%s", text);
        return;
    }
    double y = fabs(x) * 1000.0;
    double fl = floor(y);
    if (y - fl == 0.5) { /* an exact tie: away from zero, as toFixed */
        double n = (fl + 1) / 1000.0;
        snprintf(buf, cap, "%.3f", x < 0 ? -n : n);
    } else {
        snprintf(buf, cap, "%.3f", x);
    }
    if (!strcmp(buf, "-0.000"))
        snprintf(buf, cap, "0.000");
}

/* One row of batch b as a line of normalized cells. */
static char *row_line(const fl_batch *b, uint32_t row, const char *types)
{
    size_t cap = 128, len = 0;
    char *out = malloc(cap);
    char *cell = malloc(256);
    size_t cellcap = 256;
    if (!out || !cell)
        exit(1);
    out[0] = '\0';
    for (uint32_t c = 0; c < b->ncols; c++) {
        if (c) {
            append_escaped(&out, &len, &cap, "", 0); /* ensures room */
            out[len++] = '\t';
            out[len] = '\0';
        }
        fl_unified u;
        fl_vector_unify(&b->cols[c], &u);
        if (!fl_unified_is_valid(&u, row)) {
            append_escaped(&out, &len, &cap, "NULL", 4);
            continue;
        }
        uint32_t r = fl_unified_row(&u, row);
        size_t need = fl_sql_format_value(u.base, r, "UTC", cell, cellcap);
        if (need >= cellcap) {
            cellcap = need + 1;
            cell = realloc(cell, cellcap);
            if (!cell)
                exit(1);
            fl_sql_format_value(u.base, r, "UTC", cell, cellcap);
        }
        char t = c < strlen(types) ? types[c] : 'T';
        if (t == 'R') {
            char buf[512];
            format_real(cell, buf, sizeof buf);
            append_escaped(&out, &len, &cap, buf, strlen(buf));
        } else if (need == 0) {
            append_escaped(&out, &len, &cap, "(empty)", 7);
        } else {
            append_escaped(&out, &len, &cap, cell, need);
        }
    }
    free(cell);
    return out;
}

/* ---- records ---- */

typedef struct record {
    int line; /* of the header */
    char *header;
    char *sql;
    strv expected;
} record;

static void record_free(record *r)
{
    free(r->header);
    free(r->sql);
    strv_free(&r->expected);
}

/* Reads the next record from lines[*i]; false at the end. */
static bool next_record(char **lines, size_t n, size_t *i, record *r)
{
    memset(r, 0, sizeof *r);
    while (*i < n && (lines[*i][0] == '\0' || lines[*i][0] == '#'))
        (*i)++;
    if (*i >= n)
        return false;
    r->line = (int)*i + 1;
    r->header = strdup(lines[(*i)++]);
    size_t cap = 256, len = 0;
    r->sql = calloc(1, cap);
    while (*i < n && lines[*i][0] != '\0' && strcmp(lines[*i], "----") != 0) {
        size_t l = strlen(lines[*i]);
        if (len + l + 2 >= cap) {
            cap = (len + l + 2) * 2;
            r->sql = realloc(r->sql, cap);
        }
        if (len)
            r->sql[len++] = '\n';
        memcpy(r->sql + len, lines[*i], l);
        len += l;
        r->sql[len] = '\0';
        (*i)++;
    }
    if (*i < n && !strcmp(lines[*i], "----")) {
        (*i)++;
        while (*i < n && lines[*i][0] != '\0')
            strv_push(&r->expected, strdup(lines[(*i)++]));
    }
    return true;
}

typedef struct xfail {
    strv keys; /* "file\tfirst line" */
} xfail;

/* "file<TAB>first line of the SQL"; the n-th record (n > 1) with the same
 * first line in a file is "file#n<TAB>...". seen collects the first lines. */
static char *record_key(const char *file, const record *r, strv *seen)
{
    const char *nl = strchr(r->sql, '\n');
    size_t l = nl ? (size_t)(nl - r->sql) : strlen(r->sql);
    char *first = strndup(r->sql, l);
    if (!first)
        exit(1);
    int n = 1;
    for (size_t i = 0; i < seen->n; i++)
        n += !strcmp(seen->v[i], first);
    size_t cap = strlen(file) + l + 32;
    char *key = malloc(cap);
    if (!key)
        exit(1);
    if (n > 1)
        snprintf(key, cap, "%s#%d\t%s", file, n, first);
    else
        snprintf(key, cap, "%s\t%s", file, first);
    strv_push(seen, first);
    return key;
}

static bool is_xfail(const xfail *x, const char *key)
{
    for (size_t i = 0; i < x->keys.n; i++)
        if (!strcmp(x->keys.v[i], key))
            return true;
    return false;
}

typedef struct totals {
    int pass, fail, xfail, xpass;
    FILE *write_xfail;
} totals;

static void drain(fl_sql_result *r, const char *types, strv *rows, fl_error *err, fl_status *rc)
{
    for (;;) {
        const fl_batch *b = NULL;
        bool eof = false;
        *rc = fl_sql_result_next(r, &b, &eof, err);
        if (*rc != FL_OK || eof)
            return;
        for (uint32_t i = 0; rows && i < b->nrows; i++)
            strv_push(rows, row_line(b, i, types));
    }
}

/* Runs one record; returns true when it behaves as expected. why gets the
 * failure description. */
static bool run_record(fl_sql_session *s, record *rec, char *why, size_t whycap)
{
    fl_error err;
    fl_error_clear(&err);
    fl_sql_result *res = NULL;
    fl_status rc = fl_sql_execute(s, rec->sql, &res, &err);
    bool is_query = !strncmp(rec->header, "query", 5);
    char types[64] = "", sort[32] = "";
    if (is_query)
        sscanf(rec->header, "query %63s %31s", types, sort);
    strv rows = {0};
    if (rc == FL_OK)
        drain(res, types, is_query ? &rows : NULL, &err, &rc);
    fl_sql_result_close(res);
    bool ok;
    if (!strncmp(rec->header, "statement error", 15)) {
        const char *want = rec->header + 15;
        while (*want == ' ')
            want++;
        if (rc == FL_OK) {
            snprintf(why, whycap, "expected an error%s%s, the statement succeeded",
                     *want ? " " : "", want);
            ok = false;
        } else if (!*want) {
            ok = true;
        } else {
            fl_sql_error_info info = {{0}, 0};
            fl_sql_last_error(s, &info);
            bool state =
                strlen(want) == 5 && strspn(want, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ") == 5;
            ok = state ? !strcmp(info.sqlstate, want) : strstr(err.msg, want) != NULL;
            if (!ok)
                snprintf(why, whycap, "expected error %s, got SQLSTATE %s: %s", want, info.sqlstate,
                         err.msg);
        }
    } else if (rc != FL_OK) {
        snprintf(why, whycap, "error: %s", err.msg);
        ok = false;
    } else if (!is_query) {
        ok = true;
    } else {
        if (!strcmp(sort, "rowsort") && rows.n > 1)
            qsort(rows.v, rows.n, sizeof *rows.v, cmp_bytes);
        ok = rows.n == rec->expected.n;
        size_t k = 0;
        for (; ok && k < rows.n; k++)
            ok = !strcmp(rows.v[k], rec->expected.v[k]);
        if (!ok) {
            size_t off = (size_t)snprintf(why, whycap, "got %zu rows, expected %zu", rows.n,
                                          rec->expected.n);
            for (size_t j = 0; j < rows.n && j < 6 && off < whycap; j++)
                off += (size_t)snprintf(why + off, whycap - off, "\n      got:  %s", rows.v[j]);
            for (size_t j = 0; j < rec->expected.n && j < 6 && off < whycap; j++)
                off += (size_t)snprintf(why + off, whycap - off, "\n      want: %s",
                                        rec->expected.v[j]);
        }
    }
    strv_free(&rows);
    return ok;
}

static void split_lines(char *text, strv *lines)
{
    char *p = text;
    while (p) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        strv_push(lines, strdup(p));
        p = nl ? nl + 1 : NULL;
    }
}

static void run_file(const char *dir, const char *name, const xfail *xf, totals *t)
{
    char path[8300];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *text = ft_slurp(path, NULL);
    CHECK(text != NULL);
    if (!text)
        return;
    strv lines = {0};
    split_lines(text, &lines);
    free(text);

    char tmpl[128];
    char *tmp = ft_tmpdir(tmpl, sizeof tmpl, "floe-slt");
    CHECK(tmp != NULL);
    char uri[4200], wh[4200];
    snprintf(uri, sizeof uri, "sqlite:%s/catalog.db", tmp);
    snprintf(wh, sizeof wh, "%s/wh", tmp);
    fl_sql_options opt = {.catalog_uri = uri, .warehouse = wh, .time_zone = "UTC", .threads = 2};
    fl_sql_session *s = NULL;
    fl_error err;
    fl_error_clear(&err);
    CHECK_OK(fl_sql_session_open(&opt, &s, &err), &err);
    int fpass = 0, ffail = 0;
    bool verbose = getenv("FLOE_SLT_VERBOSE") != NULL;
    size_t i = 0;
    record rec;
    strv seen = {0};
    while (s && next_record(lines.v, lines.n, &i, &rec)) {
        char why[4096] = "";
        bool ok = run_record(s, &rec, why, sizeof why);
        char *key = record_key(name, &rec, &seen);
        bool known = is_xfail(xf, key);
        if (ok && !known) {
            t->pass++, fpass++;
            if (verbose)
                printf("ok    %s:%d\n", name, rec.line);
        } else if (ok) {
            t->xpass++, fpass++;
            printf("XPASS %s:%d (remove it from xfail.txt): %s\n", name, rec.line,
                   strchr(key, '\t') + 1);
        } else {
            if (known) {
                t->xfail++;
                if (verbose)
                    printf("XFAIL %s:%d: %s\n", name, rec.line, why);
            } else {
                t->fail++;
                printf("FAIL  %s:%d: %s\n      %s\n", name, rec.line, rec.sql, why);
            }
            ffail++;
            if (t->write_xfail) {
                char *nl = strchr(why, '\n');
                fprintf(t->write_xfail, "%s\t%.*s\n", key, nl ? (int)(nl - why) : (int)strlen(why),
                        why);
            }
        }
        free(key);
        record_free(&rec);
    }
    printf("%-16s %3d passed, %3d failed\n", name, fpass, ffail);
    strv_free(&seen);
    fl_sql_session_close(s);
    strv_free(&lines);
    if (tmp) {
        ft_rmtree(tmp);
    }
}

static void load_xfail(const char *dir, xfail *xf)
{
    char path[8300];
    snprintf(path, sizeof path, "%s/xfail.txt", dir);
    char *text = ft_slurp(path, NULL);
    if (!text)
        return;
    strv lines = {0};
    split_lines(text, &lines);
    free(text);
    for (size_t i = 0; i < lines.n; i++) {
        char *l = lines.v[i];
        if (!*l || *l == '#')
            continue;
        char *t1 = strchr(l, '\t');
        char *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
        if (t2)
            *t2 = '\0'; /* key = file TAB first line; the reason follows */
        if (t1)
            strv_push(&xf->keys, strdup(l));
    }
    strv_free(&lines);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static int is_slt(const struct dirent *d)
{
    size_t n = strlen(d->d_name);
    return n > 4 && !strcmp(d->d_name + n - 4, ".slt");
}

static void test_slt_files(void)
{
    const char *src = getenv("FLOE_SRC");
    char dir[4096];
    if (src && *src)
        snprintf(dir, sizeof dir, "%s/tests/sql/slt", src);
    else {
        snprintf(dir, sizeof dir, "%s", __FILE__);
        char *slash = strrchr(dir, '/');
        snprintf(slash ? slash : dir, sizeof dir - (size_t)(slash ? slash - dir : 0), "/slt");
    }
    xfail xf = {0};
    load_xfail(dir, &xf);
    totals t = {0};
    const char *wx = getenv("FLOE_SLT_WRITE_XFAIL");
    if (wx && *wx)
        t.write_xfail = fopen(wx, "w");
    const char *only = getenv("FLOE_SLT_FILE");
    struct dirent **ents = NULL;
    int n = scandir(dir, &ents, is_slt, by_name);
    CHECK(n > 0);
    for (int i = 0; i < n; i++) {
        if (!only || !strcmp(only, ents[i]->d_name))
            run_file(dir, ents[i]->d_name, &xf, &t);
        free(ents[i]);
    }
    free(ents);
    printf(
        "sqllogictest: %d passed, %d failed, %d known failures (xfail.txt), %d unexpected passes\n",
        t.pass, t.fail, t.xfail, t.xpass);
    if (t.write_xfail)
        fclose(t.write_xfail);
    strv_free(&xf.keys);
    CHECK_EQ_INT(t.fail, 0);
}

int main(void)
{
    TEST_RUN(test_slt_files);
    return TEST_EXIT();
}
