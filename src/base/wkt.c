/*
 * wkt.c - well-known text to and from ISO WKB (see floe/wkb.h).
 *
 * Printing walks the value with the shared WKB walker (wkb_int.h) and keeps
 * one frame per nesting depth (which geometry, how many members so far), so
 * it needs no second parser of the bytes. Members of MULTIPOINT,
 * MULTILINESTRING and MULTIPOLYGON print without their type name, members of
 * a GEOMETRYCOLLECTION with it, as OGC writes them.
 *
 * Parsing is recursive descent over the text with a depth limit; counts are
 * written as placeholders and patched when a list closes. Z, M and ZM must
 * be spelled ("POINT Z (1 2 3)"): a coordinate with more numbers than its
 * geometry's dimensions is an error naming its offset.
 */
#include "base/wkb_int.h"
#include "floe/format.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- printing ---- */

typedef struct wkt_frame {
    uint32_t base;    /* 1..7 */
    uint32_t members; /* members or rings printed so far */
    uint32_t nparts;  /* announced by parts() */
} wkt_frame;

typedef struct wkt_out {
    fl_buf *out;
    fl_error *err;
    int depth;
    uint32_t dims;
    wkt_frame f[FL_WKB_MAX_DEPTH + 2];
    bool no_close; /* the current point or run printed EMPTY: no ")" */
} wkt_out;

static const char *const upper_names[] = {
    "",           "POINT",           "LINESTRING",   "POLYGON",
    "MULTIPOINT", "MULTILINESTRING", "MULTIPOLYGON", "GEOMETRYCOLLECTION"};

static fl_status put(wkt_out *w, const char *s)
{
    return fl_buf_append(w->out, s, strlen(s), w->err);
}

static fl_status put_num(wkt_out *w, double d)
{
    char b[40];
    if (isnan(d))
        return put(w, "NaN");
    if (isinf(d))
        return put(w, d > 0 ? "Infinity" : "-Infinity");
    if (d == floor(d) && fabs(d) < 1e15) { /* integers as integers: 30, not 3e+01 */
        snprintf(b, sizeof b, "%.0f", d);
        return put(w, b);
    }
    fl_format_double_g(d, b, sizeof b); /* the shortest text that reads back */
    return put(w, b);
}

static fl_status out_geom(void *ctx, uint32_t code, int depth, bool start)
{
    wkt_out *w = ctx;
    uint32_t base = code % 1000, dim = code / 1000;
    if (!start) {
        if (base >= 3 && w->f[depth].nparts)
            FL_TRY(put(w, ")"));
        w->depth = depth - 1;
        return FL_OK;
    }
    w->depth = depth;
    w->dims = dim;
    if (depth > 0) {
        wkt_frame *p = &w->f[depth - 1];
        if (p->members++)
            FL_TRY(put(w, ", "));
    }
    w->f[depth] = (wkt_frame){base, 0, 0};
    if (depth == 0 || w->f[depth - 1].base == 7) {
        static const char *const suffix[] = {" ", " Z ", " M ", " ZM "};
        FL_TRY(put(w, upper_names[base]));
        FL_TRY(put(w, suffix[dim]));
    }
    return FL_OK;
}

static fl_status out_parts(void *ctx, uint32_t n)
{
    wkt_out *w = ctx;
    w->f[w->depth].nparts = n;
    return put(w, n ? "(" : "EMPTY");
}

static fl_status out_begin(void *ctx, uint32_t kind, uint32_t n)
{
    wkt_out *w = ctx;
    if (kind == 3 && w->f[w->depth].members++)
        FL_TRY(put(w, ", "));
    w->no_close = kind != 1 && n == 0;
    if (kind == 1)
        return FL_OK; /* "(" or EMPTY once the coordinate is seen */
    return put(w, n ? "(" : "EMPTY");
}

static fl_status out_coord(void *ctx, const double *c, uint32_t i)
{
    wkt_out *w = ctx;
    uint32_t nd = fl_wkb_ndims(w->dims);
    if (w->f[w->depth].base == 1) {
        bool empty = true;
        for (uint32_t d = 0; d < nd; d++)
            empty = empty && isnan(c[d]);
        if (empty) {
            w->no_close = true;
            return put(w, "EMPTY");
        }
        FL_TRY(put(w, "("));
    } else if (i) {
        FL_TRY(put(w, ", "));
    }
    for (uint32_t d = 0; d < nd; d++) {
        if (d)
            FL_TRY(put(w, " "));
        FL_TRY(put_num(w, c[d]));
    }
    return FL_OK;
}

static fl_status out_end(void *ctx, uint32_t kind)
{
    wkt_out *w = ctx;
    (void)kind;
    if (w->no_close) {
        w->no_close = false;
        return FL_OK;
    }
    return put(w, ")");
}

fl_status fl_wkb_to_wkt(const uint8_t *p, size_t len, fl_buf *out, fl_error *err)
{
    wkt_out w = {.out = out, .err = err};
    fl_wkb_visitor v = {&w, out_geom, out_parts, out_begin, out_coord, out_end};
    size_t start = out->len;
    fl_status rc = fl_wkb_walk(p, len, &v, NULL, err); /* validates while it prints */
    if (rc != FL_OK && out->len > start) {
        out->len = start; /* a value that fails leaves nothing behind */
        out->data[start] = '\0';
    }
    return rc;
}

/* ---- parsing ---- */

typedef struct wkt_in {
    const char *s;
    size_t len, pos;
    fl_buf *out;
    fl_error *err;
} wkt_in;

static fl_status expect_fail(wkt_in *r, const char *what)
{
    return fl_errorf(r->err, FL_ESYNTAX, "WKT: expected %s at character %zu", what, r->pos + 1);
}

static void skip_ws(wkt_in *r)
{
    while (r->pos < r->len && isspace((unsigned char)r->s[r->pos]))
        r->pos++;
}

static bool eat(wkt_in *r, char c)
{
    skip_ws(r);
    if (r->pos < r->len && r->s[r->pos] == c) {
        r->pos++;
        return true;
    }
    return false;
}

/* A keyword: the letters at pos (case-insensitive), compared to kw. */
static size_t word_len(wkt_in *r)
{
    skip_ws(r);
    size_t n = 0;
    while (r->pos + n < r->len && isalpha((unsigned char)r->s[r->pos + n]))
        n++;
    return n;
}

static bool eat_word(wkt_in *r, const char *kw)
{
    size_t n = word_len(r);
    if (n != strlen(kw) || strncasecmp(r->s + r->pos, kw, n) != 0)
        return false;
    r->pos += n;
    return true;
}

static fl_status w_u32(wkt_in *r, uint32_t v)
{
    uint8_t b[4];
    fl_wkb_put_u32le(b, v);
    return fl_buf_append(r->out, b, 4, r->err);
}

/* Writes the count of a list whose placeholder is at at. */
static void patch_u32(wkt_in *r, size_t at, uint32_t v)
{
    fl_wkb_put_u32le(r->out->bytes + at, v);
}

static fl_status w_f64(wkt_in *r, double d)
{
    uint8_t b[8];
    fl_wkb_put_f64le(b, d);
    return fl_buf_append(r->out, b, 8, r->err);
}

static fl_status number(wkt_in *r, double *d)
{
    skip_ws(r);
    if (r->pos + 3 <= r->len && strncasecmp(r->s + r->pos, "nan", 3) == 0) {
        r->pos += 3;
        *d = NAN;
        return FL_OK;
    }
    /* [+-]Infinity / inf, as the printer writes an overflowed coordinate */
    size_t sign = r->pos < r->len && (r->s[r->pos] == '-' || r->s[r->pos] == '+');
    const char *q = r->s + r->pos + sign;
    size_t left = r->len - r->pos - sign;
    size_t kw = left >= 8 && strncasecmp(q, "infinity", 8) == 0 ? 8
                : left >= 3 && strncasecmp(q, "inf", 3) == 0    ? 3
                                                                : 0;
    if (kw) {
        *d = r->s[r->pos] == '-' ? -INFINITY : INFINITY;
        r->pos += sign + kw;
        return FL_OK;
    }
    char b[64];
    size_t n = 0;
    while (r->pos + n < r->len && n < sizeof b - 1 && strchr("0123456789+-.eE", r->s[r->pos + n]) &&
           r->s[r->pos + n])
        n++;
    memcpy(b, r->s + r->pos, n);
    b[n] = '\0';
    char *end;
    *d = n ? strtod(b, &end) : 0;
    if (!n || end != b + n)
        return expect_fail(r, "a number");
    r->pos += n;
    return FL_OK;
}

static fl_status coord(wkt_in *r, uint32_t nd)
{
    for (uint32_t d = 0; d < nd; d++) {
        double v = 0;
        FL_TRY(number(r, &v));
        FL_TRY(w_f64(r, v));
    }
    return FL_OK;
}

static fl_status geom_body(wkt_in *r, uint32_t base, uint32_t dim, int depth);

static fl_status header(wkt_in *r, uint32_t base, uint32_t dim)
{
    uint8_t one = 1;
    FL_TRY(fl_buf_append(r->out, &one, 1, r->err));
    return w_u32(r, base + 1000 * dim);
}

/* A member of a multi-geometry: a full WKB geometry of the given base. */
static fl_status member(wkt_in *r, uint32_t base, uint32_t dim, int depth)
{
    FL_TRY(header(r, base, dim));
    if (base == 1) { /* "(1 2)", "1 2" or EMPTY */
        uint32_t nd = fl_wkb_ndims(dim);
        if (eat_word(r, "EMPTY")) {
            for (uint32_t d = 0; d < nd; d++)
                FL_TRY(w_f64(r, NAN));
            return FL_OK;
        }
        bool paren = eat(r, '(');
        FL_TRY(coord(r, nd));
        if (paren && !eat(r, ')'))
            return expect_fail(r, "')'");
        return FL_OK;
    }
    return geom_body(r, base, dim, depth);
}

static fl_status tagged(wkt_in *r, int depth);

/* '(' item {',' item} ')' with the count first; EMPTY = 0. The items of
 * a LINESTRING (base 2) are coordinates, of a POLYGON rings (coordinate
 * lists), of MULTI* members of base - 3, of a GEOMETRYCOLLECTION tagged
 * geometries. */
static fl_status part_list(wkt_in *r, uint32_t base, uint32_t dim, int depth)
{
    uint32_t nd = fl_wkb_ndims(dim);
    size_t at = r->out->len;
    FL_TRY(w_u32(r, 0));
    if (eat_word(r, "EMPTY"))
        return FL_OK;
    if (!eat(r, '('))
        return expect_fail(r, "'(' or EMPTY");
    uint32_t n = 0;
    do {
        if (base == 2)
            FL_TRY(coord(r, nd));
        else if (base == 3)
            FL_TRY(part_list(r, 2, dim, depth));
        else if (base == 7)
            FL_TRY(tagged(r, depth + 1));
        else
            FL_TRY(member(r, base - 3, dim, depth + 1));
        n++;
    } while (eat(r, ','));
    if (!eat(r, ')'))
        return expect_fail(r, "',' or ')'");
    patch_u32(r, at, n);
    return FL_OK;
}

static fl_status geom_body(wkt_in *r, uint32_t base, uint32_t dim, int depth)
{
    if (depth > FL_WKB_MAX_DEPTH)
        return fl_errorf(r->err, FL_ESYNTAX, "WKT: nested too deep at character %zu", r->pos + 1);
    uint32_t nd = fl_wkb_ndims(dim);
    if (base == 1) {
        if (eat_word(r, "EMPTY")) {
            for (uint32_t d = 0; d < nd; d++)
                FL_TRY(w_f64(r, NAN));
            return FL_OK;
        }
        if (!eat(r, '('))
            return expect_fail(r, "'(' or EMPTY");
        FL_TRY(coord(r, nd));
        return eat(r, ')') ? FL_OK : expect_fail(r, "')'");
    }
    return part_list(r, base, dim, depth);
}

/* NAME [Z|M|ZM] body */
static fl_status tagged(wkt_in *r, int depth)
{
    uint32_t base = 0;
    for (uint32_t b = 1; b <= 7 && !base; b++)
        if (eat_word(r, upper_names[b]))
            base = b;
    if (!base)
        return expect_fail(r, "a geometry type (POINT, LINESTRING, POLYGON, MULTI..., "
                              "GEOMETRYCOLLECTION)");
    uint32_t dim = eat_word(r, "ZM") ? 3 : eat_word(r, "Z") ? 1 : eat_word(r, "M") ? 2 : 0;
    FL_TRY(header(r, base, dim));
    return geom_body(r, base, dim, depth);
}

fl_status fl_wkt_to_wkb(const char *s, size_t len, fl_buf *out, fl_error *err)
{
    wkt_in r = {s, len, 0, out, err};
    size_t start = out->len;
    fl_status rc = tagged(&r, 0);
    skip_ws(&r);
    if (rc == FL_OK && r.pos != r.len)
        rc = expect_fail(&r, "the end of the text");
    if (rc != FL_OK)
        out->len = start;
    return rc;
}
