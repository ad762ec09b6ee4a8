/*
 * cast_list.c - text -> LIST casts (cast.c dispatches here): PostgreSQL's
 * array input syntax, so `'{1,2,NULL}'::int[]` and ARRAY[...] (which floe
 * binds as PostgreSQL array text, src/sql/pgcat) can be stored into list
 * columns: `INSERT INTO t (ints) VALUES (ARRAY[1,2])`.
 *
 * Syntax (PostgreSQL arrays, one dimension): '{' [elem {',' elem}] '}' with
 * whitespace around elements; an element is "double quoted" (backslash
 * escapes any character) or unquoted (backslash escapes; surrounding
 * whitespace dropped; the unquoted word NULL, any case, is a NULL element).
 * The element texts of every row are collected into one STRING vector and
 * cast to the element type with the ordinary text casts, so element errors
 * read like PostgreSQL's ("invalid input syntax for type integer: \"x\"").
 * Nested arrays ('{{1,2},{3,4}}') and lists of nested types are refused
 * (FL_EUNSUPPORTED); a malformed literal is 22P02-style FL_ETYPE naming it.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "sql/func/func_internal.h"

typedef struct elems {
    fl_vector *tx;     /* element texts (STRING) */
    uint8_t *buf;      /* one element's unescaped bytes */
    size_t cap;
} elems;

static fl_status malformed(const uint8_t *p, size_t n, const char *why, fl_error *err)
{
    /* "invalid input syntax" makes it SQLSTATE 22P02, as in PostgreSQL */
    return fl_error_state(err, FL_ETYPE, "22P02",
                          "malformed array literal: \"%.*s\" (invalid input syntax: %s)",
                          (int)(n > 200 ? 200 : n), (const char *)p, why);
}

static fl_status put(elems *e, size_t *len, uint8_t c, fl_error *err)
{
    if (*len == e->cap) {
        size_t nc = e->cap ? e->cap * 2 : 64;
        uint8_t *nb = realloc(e->buf, nc);
        if (!nb)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        e->buf = nb;
        e->cap = nc;
    }
    e->buf[(*len)++] = c;
    return FL_OK;
}

/* Parses one array literal, appending its elements to e->tx; *count set. */
static fl_status parse_row(elems *e, const uint8_t *p, size_t n, uint32_t *count, fl_error *err)
{
    size_t i = 0;
    *count = 0;
    while (i < n && isspace(p[i]))
        i++;
    if (i == n || p[i] != '{')
        return malformed(p, n, "array value must start with \"{\"", err);
    i++;
    while (i < n && isspace(p[i]))
        i++;
    if (i < n && p[i] == '}') {
        i++;
    } else {
        for (;;) {
            while (i < n && isspace(p[i]))
                i++;
            if (i == n)
                return malformed(p, n, "unexpected end of input", err);
            if (p[i] == '{')
                return fl_errorf(err, FL_EUNSUPPORTED,
                                 "multidimensional arrays are not supported: \"%.*s\"",
                                 (int)(n > 200 ? 200 : n), (const char *)p);
            size_t len = 0;
            bool is_null = false; /* only an unquoted NULL */
            if (p[i] == '"') {
                i++;
                while (i < n && p[i] != '"') {
                    if (p[i] == '\\' && i + 1 < n)
                        i++;
                    FL_TRY(put(e, &len, p[i++], err));
                }
                if (i == n)
                    return malformed(p, n, "unterminated quoted element", err);
                i++;
            } else {
                size_t last = 0; /* length up to the last escaped or non-space byte */
                while (i < n && p[i] != ',' && p[i] != '}') {
                    if (p[i] == '"' || p[i] == '{')
                        return malformed(p, n, "unexpected character in an element", err);
                    bool esc = p[i] == '\\' && i + 1 < n;
                    if (esc)
                        i++;
                    FL_TRY(put(e, &len, p[i], err));
                    if (esc || !isspace(p[i]))
                        last = len;
                    i++;
                }
                len = last;
                if (len == 0)
                    return malformed(p, n, "empty element", err);
                is_null = len == 4 && strncasecmp((const char *)e->buf, "null", 4) == 0;
            }
            if (is_null)
                FL_TRY(fl_vector_append_null(e->tx, err));
            else
                FL_TRY(fl_vector_append_bytes(e->tx, e->buf, len, err));
            (*count)++;
            while (i < n && isspace(p[i]))
                i++;
            if (i == n)
                return malformed(p, n, "unexpected end of input", err);
            if (p[i] == '}') {
                i++;
                break;
            }
            if (p[i] != ',')
                return malformed(p, n, "expected \",\" or \"}\"", err);
            i++;
        }
    }
    while (i < n && isspace(p[i]))
        i++;
    if (i != n)
        return malformed(p, n, "junk after closing right brace", err);
    return FL_OK;
}

static fl_status build(const fl_vector *in, const fl_sel *sel, uint32_t nrows, const fl_type *to,
                       bool lenient, const fl_tz *tz, fl_vector *out, elems *e, fl_vector *ev,
                       uint32_t *counts, fl_error *err)
{
    fl_unified u;
    fl_vector_unify(in, &u);
    const fl_type *et = &to->children[0].type;
    bool *live = calloc(nrows + 1, sizeof *live);
    if (!live)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_status rc = FL_OK;
    FOR_ROWS(sel, nrows, i, { live[i] = true; });
    for (uint32_t i = 0; i < nrows && rc == FL_OK; i++) {
        counts[i] = UINT32_MAX; /* NULL row */
        if (!live[i] || !uvalid(&u, i))
            continue;
        size_t l;
        const uint8_t *p = ubytes(&u, i, &l);
        uint32_t before = e->tx->len;
        rc = parse_row(e, p, l, &counts[i], err);
        if (rc != FL_OK && lenient && rc != FL_ENOMEM) {
            /* try_cast: the row becomes NULL; drop its partial elements */
            while (e->tx->len > before) {
                e->tx->len--;
                e->tx->heap_len = (size_t)e->tx->offsets[e->tx->len];
            }
            counts[i] = UINT32_MAX;
            rc = FL_OK;
        }
    }
    free(live);
    FL_TRY(rc);
    FL_TRY(fl_vector_init(ev, et, err));
    FL_TRY(fl_cast_vector_tz(e->tx, NULL, e->tx->len, et, false, tz, ev, err));
    fl_vector_reset(out);
    out->type = to;
    uint32_t k = 0;
    for (uint32_t i = 0; i < nrows; i++) {
        if (counts[i] == UINT32_MAX) {
            FL_TRY(fl_vector_append_null(out, err));
            continue;
        }
        for (uint32_t j = 0; j < counts[i]; j++)
            FL_TRY(fl_vector_append_from(&out->children[0], ev, k++, err));
        FL_TRY(fl_vector_append_nested(out, (int64_t)out->children[0].len, err));
    }
    return FL_OK;
}

fl_status fl_cast_text_to_list(const fl_vector *in, const fl_sel *sel, uint32_t nrows,
                               const fl_type *to, bool lenient, const fl_tz *tz, fl_vector *out,
                               fl_error *err)
{
    if (to->id != FL_TYPE_LIST || to->nchildren != 1 || fl_type_is_nested(&to->children[0].type))
        return fl_errorf(err, FL_EUNSUPPORTED,
                         "cast from text to a list of nested values is not supported");
    static const fl_type text = {.id = FL_TYPE_STRING};
    fl_vector tx, ev;
    memset(&ev, 0, sizeof ev);
    FL_TRY(fl_vector_init(&tx, &text, err));
    elems e = {&tx, NULL, 0};
    uint32_t *counts = calloc(nrows + 1, sizeof *counts);
    fl_status rc = counts ? build(in, sel, nrows, to, lenient, tz, out, &e, &ev, counts, err)
                          : fl_errorf(err, FL_ENOMEM, "out of memory");
    free(counts);
    free(e.buf);
    fl_vector_destroy(&tx);
    if (ev.type)
        fl_vector_destroy(&ev);
    return rc;
}
