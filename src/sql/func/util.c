/*
 * util.c - small helpers for kernels: string output rows, NULL marking,
 * 128-bit decimal scaling/rounding/formatting/parsing, and kernel error
 * messages that name the expression (calendar math is floe/calendar.h).
 *
 * Decimal rounding follows PostgreSQL numeric: half away from zero.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "sql/func/func_internal.h"

#define P10(x) ((fl_i128)(x))
const fl_i128 fl_pow10_i128[39] = {
    P10(1ULL),
    P10(10ULL),
    P10(100ULL),
    P10(1000ULL),
    P10(10000ULL),
    P10(100000ULL),
    P10(1000000ULL),
    P10(10000000ULL),
    P10(100000000ULL),
    P10(1000000000ULL),
    P10(10000000000ULL),
    P10(100000000000ULL),
    P10(1000000000000ULL),
    P10(10000000000000ULL),
    P10(100000000000000ULL),
    P10(1000000000000000ULL),
    P10(10000000000000000ULL),
    P10(100000000000000000ULL),
    P10(1000000000000000000ULL),
    P10(10000000000000000000ULL),
    P10(10000000000000000000ULL) * 10,
    P10(10000000000000000000ULL) * 100,
    P10(10000000000000000000ULL) * 1000,
    P10(10000000000000000000ULL) * 10000,
    P10(10000000000000000000ULL) * 100000,
    P10(10000000000000000000ULL) * 1000000,
    P10(10000000000000000000ULL) * 10000000,
    P10(10000000000000000000ULL) * 100000000,
    P10(10000000000000000000ULL) * 1000000000,
    P10(10000000000000000000ULL) * 10000000000ULL,
    P10(10000000000000000000ULL) * 100000000000ULL,
    P10(10000000000000000000ULL) * 1000000000000ULL,
    P10(10000000000000000000ULL) * 10000000000000ULL,
    P10(10000000000000000000ULL) * 100000000000000ULL,
    P10(10000000000000000000ULL) * 1000000000000000ULL,
    P10(10000000000000000000ULL) * 10000000000000000ULL,
    P10(10000000000000000000ULL) * 100000000000000000ULL,
    P10(10000000000000000000ULL) * 1000000000000000000ULL,
    P10(10000000000000000000ULL) * 10000000000000000000ULL,
};

fl_status strout_reserve(strout *s, size_t len, uint8_t **dst, fl_error *err)
{
    /* no value and no batch of values grows past 1 GiB (limits, issue 14) */
    if (len > FL_SQL_MAX_VALUE_BYTES)
        return fl_errorf(err, FL_ELIMIT,
                         "value too large: %zu bytes (a value may hold at most 1 GB)", len);
    if (s->v->heap_len + len > s->limit && s->limit < FL_SQL_MAX_VALUE_BYTES)
        return fl_error_state(
            err, FL_ELIMIT, "53200",
            "expression results: memory limit exceeded (one batch of results would "
            "hold %zu bytes, %zu are left); raise memory_limit",
            s->v->heap_len + len, s->limit);
    if (s->v->heap_len + len > FL_SQL_MAX_VALUE_BYTES)
        return fl_errorf(err, FL_ELIMIT,
                         "values too large: one batch of results would hold %zu bytes (at most "
                         "1 GB)",
                         s->v->heap_len + len);
    if (s->v->heap_cap - s->v->heap_len < len || !s->v->heap)
        FL_TRY(fl_vector_reserve_heap(s->v, len ? len : 1, err));
    *dst = s->v->heap + s->v->heap_len;
    return FL_OK;
}

fl_status strout_put(strout *s, uint32_t row, const void *p, size_t len, fl_error *err)
{
    uint8_t *dst = NULL;
    FL_TRY(strout_reserve(s, len, &dst, err));
    if (len)
        memcpy(dst, p, len);
    strout_commit(s, row, len);
    return FL_OK;
}

fl_status fl_out_null(fl_vector *out, uint32_t i, fl_error *err)
{
    if (!out->validity)
        FL_TRY(fl_vector_ensure_validity(out, err));
    fl_bitmap_set(out->validity, i, false);
    return FL_OK;
}

fl_i128 dec_div_round(fl_i128 a, fl_i128 b)
{
    fl_i128 q = a / b, r = a % b;
    fl_i128 ar = r < 0 ? -r : r, ab = b < 0 ? -b : b;
    if (ar >= ab - ar) /* 2|r| >= |b| without overflow */
        q += ((a < 0) != (b < 0)) ? -1 : 1;
    return q;
}

bool dec_rescale(fl_i128 v, int32_t k, fl_i128 *out)
{
    if (k == 0) {
        *out = v;
        return true;
    }
    if (k > 0) {
        if (k > 38)
            return v == 0 ? (*out = 0, true) : false;
        return !__builtin_mul_overflow(v, fl_pow10_i128[k], out);
    }
    if (-k > 38) {
        *out = 0;
        return true;
    }
    *out = dec_div_round(v, fl_pow10_i128[-k]);
    return true;
}

size_t dec_format(fl_i128 v, int32_t s, char *buf, size_t cap)
{
    char tmp[64];
    int n = 0;
    unsigned __int128 u = v < 0 ? (unsigned __int128)(-(v + 1)) + 1 : (unsigned __int128)v;
    do {
        tmp[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    while (n <= s)
        tmp[n++] = '0';
    char out[80];
    size_t o = 0;
    if (v < 0)
        out[o++] = '-';
    for (int i = n - 1; i >= 0; i--) {
        out[o++] = tmp[i];
        if (i == s && s > 0)
            out[o++] = '.';
    }
    if (cap) {
        size_t c = o < cap ? o : cap - 1;
        memcpy(buf, out, c);
        buf[c] = 0;
    }
    return o;
}

/* v = v * 10 + d over digits [0, n); false when that leaves int128 (up to
 * 40 significant digits are kept, int128 holds 38: such a value fits no
 * decimal precision anyway). */
static bool dec_digits(const char *dig, int n, fl_i128 *v)
{
    for (int k = 0; k < n; k++)
        if (__builtin_mul_overflow(*v, 10, v) || __builtin_add_overflow(*v, dig[k] - '0', v))
            return false;
    return true;
}

bool dec_parse(const char *s, size_t len, int32_t p, int32_t scale, fl_i128 *out, bool *ovf)
{
    size_t i = 0;
    *ovf = false;
    while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
        i++;
    while (len > i && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\n' ||
                       s[len - 1] == '\r'))
        len--;
    bool neg = false;
    if (i < len && (s[i] == '+' || s[i] == '-'))
        neg = s[i++] == '-';
    /* collect up to 40 significant digits; remember the exponent */
    char dig[48];
    int nd = 0, point_exp = 0, dropped = 0;
    bool any = false, seen_point = false;
    for (; i < len; i++) {
        char c = s[i];
        if (c >= '0' && c <= '9') {
            any = true;
            if (nd == 0 && c == '0') {
                if (seen_point)
                    point_exp--;
                continue;
            }
            if (nd < 40) {
                dig[nd++] = c;
                if (seen_point)
                    point_exp--;
            } else if (!seen_point)
                dropped++;
        } else if (c == '.' && !seen_point)
            seen_point = true;
        else
            break;
    }
    if (!any)
        return false;
    int64_t exp10 = 0;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool eneg = false;
        if (i < len && (s[i] == '+' || s[i] == '-'))
            eneg = s[i++] == '-';
        if (i >= len || s[i] < '0' || s[i] > '9')
            return false;
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            if (exp10 < 100000)
                exp10 = exp10 * 10 + (s[i] - '0');
            i++;
        }
        if (eneg)
            exp10 = -exp10;
    }
    if (i != len)
        return false;
    /* value = digits * 10^(point_exp + dropped + exp10); want unscaled at scale */
    int64_t shift = (int64_t)point_exp + dropped + exp10 + scale;
    fl_i128 v = 0;
    int keep = nd;
    if (shift < 0) {
        /* drop -shift trailing digits with rounding */
        int64_t drop = -shift;
        if (drop > nd) {
            keep = 0;
        } else
            keep = nd - (int)drop;
        if (!dec_digits(dig, keep, &v)) {
            *ovf = true;
            return true;
        }
        if (drop <= nd && keep < nd && dig[keep] >= '5' && __builtin_add_overflow(v, 1, &v)) {
            *ovf = true;
            return true;
        }
        shift = 0;
    } else {
        if (!dec_digits(dig, nd, &v)) {
            *ovf = true;
            return true;
        }
        if (shift > 38 && v != 0) {
            *ovf = true;
            return true;
        }
        if (v != 0 && !dec_rescale(v, (int32_t)shift, &v)) {
            *ovf = true;
            return true;
        }
    }
    if (!dec_fits(v, p)) {
        *ovf = true;
        return true;
    }
    *out = neg ? -v : v;
    return true;
}

double dec_to_double(fl_i128 v, int32_t s)
{
    char buf[64];
    dec_format(v, s, buf, sizeof buf);
    return strtod(buf, NULL);
}

/* ---- errors ---- */

static fl_status fn_verror(const fl_fn_call *c, fl_error *err, fl_status code, const char *sqlstate,
                           const char *fmt, va_list ap)
{
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (!c || !c->expr)
        return fl_error_state(err, code, sqlstate, "%s", msg);
    fl_arena a;
    fl_arena_init(&a, 4096);
    const char *s = fl_expr_to_string(c->expr, &a);
    fl_status rc = fl_error_state(err, code, sqlstate, "%s in %s", msg, s ? s : "expression");
    fl_arena_free(&a);
    return rc;
}

fl_status fl_fn_error(const fl_fn_call *c, fl_error *err, fl_status code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fl_status rc = fn_verror(c, err, code, NULL, fmt, ap);
    va_end(ap);
    return rc;
}

fl_status fl_fn_error_state(const fl_fn_call *c, fl_error *err, fl_status code,
                            const char *sqlstate, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fl_status rc = fn_verror(c, err, code, sqlstate, fmt, ap);
    va_end(ap);
    return rc;
}

/* ---- UTF-8 case mapping (utf8proc) ---- */
#include <utf8proc.h>

size_t fl_utf8_case(const uint8_t *s, size_t n, uint8_t *dst, bool upper)
{
    size_t o = 0, i = 0;
    while (i < n) {
        uint8_t c = s[i];
        if (c < 0x80) {
            dst[o++] = upper ? (uint8_t)((c >= 'a' && c <= 'z') ? c - 32 : c)
                             : (uint8_t)((c >= 'A' && c <= 'Z') ? c + 32 : c);
            i++;
            continue;
        }
        utf8proc_int32_t cp;
        utf8proc_ssize_t l = utf8proc_iterate(s + i, (utf8proc_ssize_t)(n - i), &cp);
        if (l <= 0) {
            dst[o++] = c;
            i++;
            continue;
        }
        utf8proc_int32_t m = upper ? utf8proc_toupper(cp) : utf8proc_tolower(cp);
        if (cp == 0xDF)
            m = cp; /* sharp s has no single-character uppercase (glibc and PostgreSQL keep it) */
        o += (size_t)utf8proc_encode_char(m, dst + o);
        i += (size_t)l;
    }
    return o;
}

size_t fl_utf8_len(const uint8_t *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += (s[i] & 0xC0) != 0x80;
    return c;
}

fl_status fl_fn_map_bytes(fl_fn_call *c, fl_bytes_step step, bool lenient, fl_status code,
                          const char *what, fl_error *err)
{
    fl_unified u;
    fl_vector_unify(c->args[0], &u);
    strout so;
    strout_init_call(&so, c);
    fl_buf tmp;
    fl_buf_init(&tmp, 0);
    fl_status rc = FL_OK;
    FOR_ROWS(c->sel, c->nrows, i, {
        if (rc != FL_OK)
            continue;
        size_t n;
        const uint8_t *p = ubytes(&u, i, &n);
        fl_error e;
        fl_error_clear(&e);
        tmp.len = 0;
        fl_status st = step(p, n, &tmp, &e);
        if (st == FL_ENOMEM)
            rc = fl_errorf(err, FL_ENOMEM, "%s", e.msg);
        else if (st != FL_OK && lenient)
            rc = fl_out_null(c->out, i, err);
        else if (st != FL_OK)
            rc = fl_fn_error_state(c, err, code, "22P02", "%s: %s", what, e.msg);
        else
            rc = strout_put(&so, i, tmp.bytes, tmp.len, err);
    });
    strout_finish(&so, c->nrows);
    fl_buf_free(&tmp);
    return rc;
}
