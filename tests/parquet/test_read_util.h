/*
 * test_read_util.h - helpers shared by the Parquet reader tests: open a file,
 * scan it whole, and render every value as text (so tests compare columns
 * value by value, nested ones included, with plain string comparisons).
 *
 * Rendering: null; true/false; integers (DATE/TIME/TIMESTAMP as their raw
 * integers, DECIMAL as the unscaled integer); floats with %.9g / %.17g (exact
 * round trip); STRING in double quotes; BINARY/FIXED/UUID as hex;
 * STRUCT {a:1,b:2}; LIST [1,2]; MAP <k=v,...>.
 */
#ifndef FLOE_TEST_READ_UTIL_H
#define FLOE_TEST_READ_UTIL_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/io.h"
#include "floe/parquet.h"
#include "test.h"

typedef struct tr_table {
    uint32_t ncols;
    uint64_t nrows;
    char **names;
    char ***cells; /* cells[col][row], malloc'd strings */
    uint64_t cap;
    fl_parquet_scan_stats stats;
} tr_table;

typedef struct tr_str {
    char *p;
    size_t len, cap;
} tr_str;

static void tr_put(tr_str *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tr_put(tr_str *s, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        size_t room = s->cap - s->len;
        int n = vsnprintf(s->p ? s->p + s->len : NULL, s->p ? room : 0, fmt, ap);
        va_end(ap);
        if (n < 0)
            return;
        if (s->p && (size_t)n < room) {
            s->len += (size_t)n;
            return;
        }
        size_t nc = s->cap ? s->cap * 2 : 64;
        while (nc < s->len + (size_t)n + 1)
            nc *= 2;
        s->p = realloc(s->p, nc);
        s->cap = nc;
    }
}

static inline void tr_i128(tr_str *s, __int128 v)
{
    char buf[48];
    int i = 47;
    buf[i] = 0;
    unsigned __int128 u =
        v < 0 ? (unsigned __int128)0 - (unsigned __int128)v : (unsigned __int128)v;
    do {
        buf[--i] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    if (v < 0)
        buf[--i] = '-';
    tr_put(s, "%s", buf + i);
}

static inline void tr_fmt(tr_str *s, const fl_vector *v, uint32_t row)
{
    if (!fl_vector_is_valid(v, row)) {
        tr_put(s, "null");
        return;
    }
    const fl_type *t = v->type;
    size_t w = fl_type_width(t);
    const uint8_t *d = v->data ? v->data + (size_t)row * w : NULL;
    switch (t->id) {
    case FL_TYPE_BOOLEAN: tr_put(s, "%s", *d ? "true" : "false"); break;
    case FL_TYPE_INT32:
    case FL_TYPE_DATE: {
        int32_t x;
        memcpy(&x, d, 4);
        tr_put(s, "%d", x);
        break;
    }
    case FL_TYPE_INT64:
    case FL_TYPE_TIME:
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ:
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS: {
        int64_t x;
        memcpy(&x, d, 8);
        tr_put(s, "%lld", (long long)x);
        break;
    }
    case FL_TYPE_FLOAT32: {
        float x;
        memcpy(&x, d, 4);
        if (x != x)
            tr_put(s, "nan");
        else
            tr_put(s, "%.9g", (double)x);
        break;
    }
    case FL_TYPE_FLOAT64: {
        double x;
        memcpy(&x, d, 8);
        if (x != x)
            tr_put(s, "nan");
        else
            tr_put(s, "%.17g", x);
        break;
    }
    case FL_TYPE_DECIMAL: {
        __int128 x;
        memcpy(&x, d, 16);
        tr_i128(s, x);
        break;
    }
    case FL_TYPE_STRING: {
        size_t l;
        const uint8_t *p = fl_vector_bytes(v, row, &l);
        tr_put(s, "\"%.*s\"", (int)l, (const char *)p);
        break;
    }
    case FL_TYPE_BINARY:
    case FL_TYPE_FIXED:
    case FL_TYPE_UUID: {
        size_t l = w;
        const uint8_t *p = d;
        if (t->id == FL_TYPE_BINARY)
            p = fl_vector_bytes(v, row, &l);
        tr_put(s, "x");
        for (size_t i = 0; i < l; i++)
            tr_put(s, "%02x", p[i]);
        break;
    }
    case FL_TYPE_STRUCT:
        tr_put(s, "{");
        for (uint32_t c = 0; c < t->nchildren; c++) {
            tr_put(s, "%s%s:", c ? "," : "", t->children[c].name);
            tr_fmt(s, &v->children[c], row);
        }
        tr_put(s, "}");
        break;
    case FL_TYPE_LIST:
        tr_put(s, "[");
        for (int64_t i = v->offsets[row]; i < v->offsets[row + 1]; i++) {
            if (i > v->offsets[row])
                tr_put(s, ",");
            tr_fmt(s, &v->children[0], (uint32_t)i);
        }
        tr_put(s, "]");
        break;
    case FL_TYPE_MAP:
        tr_put(s, "<");
        for (int64_t i = v->offsets[row]; i < v->offsets[row + 1]; i++) {
            if (i > v->offsets[row])
                tr_put(s, ",");
            tr_fmt(s, &v->children[0], (uint32_t)i);
            tr_put(s, "=");
            tr_fmt(s, &v->children[1], (uint32_t)i);
        }
        tr_put(s, ">");
        break;
    default: tr_put(s, "?"); break;
    }
}

static inline void tr_free(tr_table *t)
{
    for (uint32_t c = 0; c < t->ncols; c++) {
        for (uint64_t r = 0; r < t->nrows; r++)
            free(t->cells[c][r]);
        free(t->cells[c]);
        free(t->names[c]);
    }
    free(t->cells);
    free(t->names);
    memset(t, 0, sizeof *t);
}

/* Opens path (local FileIO). */
static inline fl_status tr_open(const char *path, const fl_parquet_read_options *o, fl_fileio **io,
                                fl_file **f, fl_parquet_reader **r, fl_error *e)
{
    *io = fl_fileio_local();
    *f = NULL;
    *r = NULL;
    fl_status st = fl_fileio_open(*io, path, f, e);
    if (st == FL_OK)
        st = fl_parquet_open(*f, o, r, e);
    return st;
}

static inline void tr_close(fl_fileio *io, fl_file *f, fl_parquet_reader *r)
{
    fl_parquet_close(r);
    fl_file_close(f);
    fl_fileio_destroy(io);
}

/* Scans r with options o into t (live rows only). */
static inline fl_status tr_scan(fl_parquet_reader *r, const fl_parquet_scan_options *o, tr_table *t,
                                fl_error *e)
{
    memset(t, 0, sizeof *t);
    fl_parquet_scan *s = NULL;
    fl_status st = fl_parquet_scan_open(r, o, &s, e);
    if (st != FL_OK)
        return st;
    const fl_schema *sc = fl_parquet_scan_schema(s);
    t->ncols = sc->nfields;
    t->cells = calloc(t->ncols + 1, sizeof *t->cells);
    t->names = calloc(t->ncols + 1, sizeof *t->names);
    for (uint32_t c = 0; c < t->ncols; c++)
        t->names[c] = strdup(sc->fields[c].name);
    fl_batch b;
    st = fl_batch_init(&b, sc, e);
    if (st != FL_OK) {
        fl_parquet_scan_close(s);
        return st;
    }
    for (;;) {
        bool eof = false;
        st = fl_parquet_scan_next(s, &b, &eof, e);
        if (st != FL_OK || eof)
            break;
        uint32_t live = fl_batch_live_rows(&b);
        if (t->nrows + live > t->cap) {
            uint64_t nc = t->cap ? t->cap * 2 : 256;
            while (nc < t->nrows + live)
                nc *= 2;
            for (uint32_t c = 0; c < t->ncols; c++)
                t->cells[c] = realloc(t->cells[c], nc * sizeof(char *));
            t->cap = nc;
        }
        for (uint32_t i = 0; i < live; i++) {
            uint32_t row = b.sel ? b.sel->idx[i] : i;
            for (uint32_t c = 0; c < t->ncols; c++) {
                tr_str str = {0};
                tr_fmt(&str, &b.cols[c], row);
                t->cells[c][t->nrows + i] = str.p ? str.p : strdup("");
            }
        }
        t->nrows += live;
    }
    fl_parquet_scan_get_stats(s, &t->stats);
    fl_batch_destroy(&b);
    fl_parquet_scan_close(s);
    return st;
}

/* Full path of a fixture, or NULL (and the test is skipped) when absent. */
static inline const char *tr_fixture(const char *rel)
{
    static char buf[8][4096];
    static int k;
    const char *d = test_shared_dir();
    if (!d)
        return NULL;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/fixtures/%s", d, rel);
    return buf[k];
}

static inline int tr_col(const tr_table *t, const char *name)
{
    for (uint32_t c = 0; c < t->ncols; c++)
        if (strcmp(t->names[c], name) == 0)
            return (int)c;
    return -1;
}

/* Reads a whole file into t with default options; returns the status. */
static inline fl_status tr_read_file(const char *path, const fl_parquet_read_options *o,
                                     const fl_parquet_scan_options *so, tr_table *t, fl_error *e)
{
    fl_fileio *io;
    fl_file *f;
    fl_parquet_reader *r;
    memset(t, 0, sizeof *t);
    fl_status st = tr_open(path, o, &io, &f, &r, e);
    if (st == FL_OK)
        st = tr_scan(r, so, t, e);
    tr_close(io, f, r);
    return st;
}

#endif
