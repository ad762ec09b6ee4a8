/*
 * string.c - text functions (PostgreSQL semantics, UTF-8 characters):
 * length/char_length/character_length, octet_length, lower, upper,
 * initcap, substring/substr, position/strpos, replace, trim/btrim/ltrim/
 * rtrim, split_part, concat, concat_ws, ||, left, right, lpad, rpad,
 * reverse, repeat, starts_with, ends_with, contains, ascii, chr, translate.
 * Positions and lengths count characters, not bytes.
 */
#include <stdlib.h>
#include <utf8proc.h>

#include "sql/func/func_internal.h"

/* byte offset of the k-th character (0-based), clamped to n */
static size_t char_off(const uint8_t *s, size_t n, int64_t k)
{
    size_t i = 0;
    while (k > 0 && i < n) {
        i++;
        while (i < n && (s[i] & 0xC0) == 0x80)
            i++;
        k--;
    }
    return i;
}

static bool all_str(const fl_type *a, uint32_t n, fl_type *at)
{
    for (uint32_t k = 0; k < n; k++) {
        if (!fl_is_string(&a[k]))
            return false;
        at[k] = fl_mk(FL_TYPE_STRING);
    }
    return true;
}
static bool int_at(const fl_type *a, uint32_t k, fl_type *at, fl_type_id want)
{
    if (!(fl_is_integer(&a[k]) || fl_is_unknown(&a[k])))
        return false;
    at[k] = fl_mk(want);
    return true;
}

/* ---- length family ---- */
static bool r_len(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1)
        return false;
    if (a[0].id == FL_TYPE_BINARY)
        at[0] = a[0];
    else if (!all_str(a, 1, at))
        return false;
    *r = fl_mk(FL_TYPE_INT32);
    return true;
}
static fl_status k_char_length(fl_fn_call *c, fl_error *err)
{
    (void)err;
    fl_unified u;
    fl_vector_unify(c->args[0], &u);
    bool bytes = c->args[0]->type->id == FL_TYPE_BINARY;
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t n;
        const uint8_t *s = ubytes(&u, i, &n);
        OUTV(c->out, int32_t)[i] = (int32_t)(bytes ? n : fl_utf8_len(s, n));
    });
    return FL_OK;
}
static fl_status k_octet_length(fl_fn_call *c, fl_error *err)
{
    (void)err;
    fl_unified u;
    fl_vector_unify(c->args[0], &u);
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t n;
        ubytes(&u, i, &n);
        OUTV(c->out, int32_t)[i] = (int32_t)n;
    });
    return FL_OK;
}

static bool r_s_s(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1 || !all_str(a, 1, at))
        return false;
    *r = fl_mk(FL_TYPE_STRING);
    return true;
}
static fl_status case_kernel(fl_fn_call *c, bool upper, fl_error *err)
{
    fl_unified u;
    fl_vector_unify(c->args[0], &u);
    strout so;
    strout_init_call(&so, c);
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t n;
        const uint8_t *s = ubytes(&u, i, &n);
        uint8_t *dst;
        FL_TRY(strout_reserve(&so, n * 4, &dst, err));
        strout_commit(&so, i, fl_utf8_case(s, n, dst, upper));
    });
    strout_finish(&so, c->nrows);
    return FL_OK;
}
static fl_status k_lower(fl_fn_call *c, fl_error *e) { return case_kernel(c, false, e); }
static fl_status k_upper(fl_fn_call *c, fl_error *e) { return case_kernel(c, true, e); }
static fl_status k_initcap(fl_fn_call *c, fl_error *err)
{
    fl_unified u;
    fl_vector_unify(c->args[0], &u);
    strout so;
    strout_init_call(&so, c);
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t n;
        const uint8_t *s = ubytes(&u, i, &n);
        uint8_t *dst;
        FL_TRY(strout_reserve(&so, n * 4, &dst, err));
        size_t o = 0, k = 0;
        bool word = false;
        while (k < n) {
            utf8proc_int32_t cp;
            utf8proc_ssize_t l = utf8proc_iterate(s + k, (utf8proc_ssize_t)(n - k), &cp);
            if (l <= 0) {
                dst[o++] = s[k++];
                word = false;
                continue;
            }
            utf8proc_category_t cat = utf8proc_category(cp);
            bool alnum = (cat >= UTF8PROC_CATEGORY_LU && cat <= UTF8PROC_CATEGORY_LO) ||
                         (cat >= UTF8PROC_CATEGORY_ND && cat <= UTF8PROC_CATEGORY_NO);
            utf8proc_int32_t m = alnum ? (word ? utf8proc_tolower(cp) : utf8proc_toupper(cp)) : cp;
            o += (size_t)utf8proc_encode_char(m, dst + o);
            word = alnum;
            k += (size_t)l;
        }
        strout_commit(&so, i, o);
    });
    strout_finish(&so, c->nrows);
    return FL_OK;
}
static fl_status k_reverse(fl_fn_call *c, fl_error *err)
{
    fl_unified u;
    fl_vector_unify(c->args[0], &u);
    strout so;
    strout_init_call(&so, c);
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t n;
        const uint8_t *s = ubytes(&u, i, &n);
        uint8_t *dst;
        FL_TRY(strout_reserve(&so, n, &dst, err));
        size_t k = 0;
        while (k < n) {
            size_t l = utf8_clen(s[k]);
            if (l > n - k)
                l = n - k;
            memcpy(dst + n - k - l, s + k, l);
            k += l;
        }
        strout_commit(&so, i, n);
    });
    strout_finish(&so, c->nrows);
    return FL_OK;
}

/* ---- substring(s, start [, count]) ---- */
static bool r_substr(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n < 2 || n > 3 || !all_str(a, 1, at) || !int_at(a, 1, at, FL_TYPE_INT64) ||
        (n == 3 && !int_at(a, 2, at, FL_TYPE_INT64)))
        return false;
    *r = fl_mk(FL_TYPE_STRING);
    return true;
}
static fl_status k_substr(fl_fn_call *c, fl_error *err)
{
    fl_unified su, bu, lu;
    fl_vector_unify(c->args[0], &su);
    fl_vector_unify(c->args[1], &bu);
    if (c->nargs == 3)
        fl_vector_unify(c->args[2], &lu);
    strout so;
    strout_init_call(&so, c);
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t n;
        const uint8_t *s = ubytes(&su, i, &n);
        int64_t start = UV(bu, int64_t, i), end;
        if (c->nargs == 3) {
            int64_t len = UV(lu, int64_t, i);
            if (len < 0)
                return fl_fn_error(c, err, FL_EINVAL, "negative substring length not allowed");
            end = __builtin_add_overflow(start, len, &end) ? INT64_MAX : end;
        } else
            end = INT64_MAX;
        if (start < 1)
            start = 1;
        size_t b = 0, e = 0;
        if (end > start) {
            b = char_off(s, n, start - 1);
            e = end == INT64_MAX ? n : b + char_off(s + b, n - b, end - start);
        }
        FL_TRY(strout_put(&so, i, s + b, e - b, err));
    });
    strout_finish(&so, c->nrows);
    return FL_OK;
}

/* left(s, n) / right(s, n): negative n = all but |n| */
static bool r_s_i(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 2 || !all_str(a, 1, at) || !int_at(a, 1, at, FL_TYPE_INT64))
        return false;
    *r = fl_mk(FL_TYPE_STRING);
    return true;
}
static fl_status leftright(fl_fn_call *c, bool left, fl_error *err)
{
    fl_unified su, nu;
    fl_vector_unify(c->args[0], &su);
    fl_vector_unify(c->args[1], &nu);
    strout so;
    strout_init_call(&so, c);
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t n;
        const uint8_t *s = ubytes(&su, i, &n);
        int64_t k = UV(nu, int64_t, i);
        int64_t chars = (int64_t)fl_utf8_len(s, n);
        int64_t take = k >= 0 ? (k < chars ? k : chars) : (chars + k > 0 ? chars + k : 0);
        size_t b, e;
        if (left) {
            b = 0;
            e = char_off(s, n, take);
        } else {
            b = char_off(s, n, chars - take);
            e = n;
        }
        FL_TRY(strout_put(&so, i, s + b, e - b, err));
    });
    strout_finish(&so, c->nrows);
    return FL_OK;
}
static fl_status k_left(fl_fn_call *c, fl_error *e) { return leftright(c, true, e); }
static fl_status k_right(fl_fn_call *c, fl_error *e) { return leftright(c, false, e); }

static fl_status k_repeat(fl_fn_call *c, fl_error *err)
{
    fl_unified su, nu;
    fl_vector_unify(c->args[0], &su);
    fl_vector_unify(c->args[1], &nu);
    strout so;
    strout_init_call(&so, c);
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t n;
        const uint8_t *s = ubytes(&su, i, &n);
        int64_t k = UV(nu, int64_t, i);
        if (k < 0)
            k = 0;
        if (n && (uint64_t)k > (1u << 28) / n)
            return fl_fn_error(c, err, FL_ELIMIT, "requested length too large");
        uint8_t *dst;
        FL_TRY(strout_reserve(&so, n * (size_t)k, &dst, err));
        for (int64_t r = 0; r < k; r++)
            memcpy(dst + (size_t)r * n, s, n);
        strout_commit(&so, i, n * (size_t)k);
    });
    strout_finish(&so, c->nrows);
    return FL_OK;
}

/* ---- position/strpos(s, sub) ---- */
static bool r_s_s_int(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 2 || !all_str(a, 2, at))
        return false;
    *r = fl_mk(FL_TYPE_INT32);
    return true;
}
static fl_status k_strpos(fl_fn_call *c, fl_error *err)
{
    (void)err;
    fl_unified su, pu;
    fl_vector_unify(c->args[0], &su);
    fl_vector_unify(c->args[1], &pu);
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t n, pn;
        const uint8_t *s = ubytes(&su, i, &n), *p = ubytes(&pu, i, &pn);
        const uint8_t *f = pn == 0 ? s : memmem(s, n, p, pn);
        OUTV(c->out, int32_t)[i] = f ? (int32_t)fl_utf8_len(s, (size_t)(f - s)) + 1 : 0;
    });
    return FL_OK;
}
static bool r_s_s_bool(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 2 || !all_str(a, 2, at))
        return false;
    *r = fl_mk(FL_TYPE_BOOLEAN);
    return true;
}
static fl_status affix(fl_fn_call *c, int which, fl_error *err)
{
    (void)err;
    fl_unified su, pu;
    fl_vector_unify(c->args[0], &su);
    fl_vector_unify(c->args[1], &pu);
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t n, pn;
        const uint8_t *s = ubytes(&su, i, &n), *p = ubytes(&pu, i, &pn);
        bool r;
        if (which == 0)
            r = pn <= n && memcmp(s, p, pn) == 0;
        else if (which == 1)
            r = pn <= n && memcmp(s + n - pn, p, pn) == 0;
        else
            r = pn == 0 || memmem(s, n, p, pn) != NULL;
        c->out->data[i] = r;
    });
    return FL_OK;
}
static fl_status k_starts(fl_fn_call *c, fl_error *e) { return affix(c, 0, e); }
static fl_status k_ends(fl_fn_call *c, fl_error *e) { return affix(c, 1, e); }
static fl_status k_contains(fl_fn_call *c, fl_error *e) { return affix(c, 2, e); }

/* ---- replace(s, from, to) ---- */
static bool r_s3(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 3 || !all_str(a, 3, at))
        return false;
    *r = fl_mk(FL_TYPE_STRING);
    return true;
}
static fl_status k_replace(fl_fn_call *c, fl_error *err)
{
    fl_unified su, fu, tu;
    fl_vector_unify(c->args[0], &su);
    fl_vector_unify(c->args[1], &fu);
    fl_vector_unify(c->args[2], &tu);
    strout so;
    strout_init_call(&so, c);
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t n, fn, tn;
        const uint8_t *s = ubytes(&su, i, &n), *f = ubytes(&fu, i, &fn), *t = ubytes(&tu, i, &tn);
        if (fn == 0) {
            FL_TRY(strout_put(&so, i, s, n, err));
            continue;
        }
        size_t count = 0;
        for (const uint8_t *p = s; (p = memmem(p, n - (size_t)(p - s), f, fn)); p += fn)
            count++;
        size_t total = n + count * tn - count * fn;
        uint8_t *dst;
        FL_TRY(strout_reserve(&so, total, &dst, err));
        size_t o = 0;
        const uint8_t *p = s, *q;
        while ((q = memmem(p, n - (size_t)(p - s), f, fn))) {
            memcpy(dst + o, p, (size_t)(q - p));
            o += (size_t)(q - p);
            memcpy(dst + o, t, tn);
            o += tn;
            p = q + fn;
        }
        memcpy(dst + o, p, n - (size_t)(p - s));
        o += n - (size_t)(p - s);
        strout_commit(&so, i, o);
    });
    strout_finish(&so, c->nrows);
    return FL_OK;
}

/* translate(s, from, to): per-character mapping */
static fl_status k_translate(fl_fn_call *c, fl_error *err)
{
    fl_unified su, fu, tu;
    fl_vector_unify(c->args[0], &su);
    fl_vector_unify(c->args[1], &fu);
    fl_vector_unify(c->args[2], &tu);
    strout so;
    strout_init_call(&so, c);
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t n, fn, tn;
        const uint8_t *s = ubytes(&su, i, &n), *f = ubytes(&fu, i, &fn), *t = ubytes(&tu, i, &tn);
        uint8_t *dst;
        FL_TRY(strout_reserve(&so, n * 4, &dst, err));
        size_t o = 0, k = 0;
        while (k < n) {
            size_t l = utf8_clen(s[k]);
            if (l > n - k)
                l = n - k;
            /* find char s[k..k+l) in f */
            size_t fi = 0, idx = 0;
            bool found = false;
            while (fi < fn) {
                size_t fl = utf8_clen(f[fi]);
                if (fl > fn - fi)
                    fl = fn - fi;
                if (fl == l && memcmp(f + fi, s + k, l) == 0) {
                    found = true;
                    break;
                }
                fi += fl;
                idx++;
            }
            if (!found) {
                memcpy(dst + o, s + k, l);
                o += l;
            } else {
                size_t tb = char_off(t, tn, (int64_t)idx);
                if (tb < tn) {
                    size_t tl = utf8_clen(t[tb]);
                    if (tl > tn - tb)
                        tl = tn - tb;
                    memcpy(dst + o, t + tb, tl);
                    o += tl;
                }
            }
            k += l;
        }
        strout_commit(&so, i, o);
    });
    strout_finish(&so, c->nrows);
    return FL_OK;
}

/* ---- trim family: btrim(s [, chars]) ---- */
static bool r_trim(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n < 1 || n > 2 || !all_str(a, n, at))
        return false;
    *r = fl_mk(FL_TYPE_STRING);
    return true;
}
static bool in_set(const uint8_t *set, size_t sn, const uint8_t *ch, size_t l)
{
    size_t k = 0;
    while (k < sn) {
        size_t cl = utf8_clen(set[k]);
        if (cl > sn - k)
            cl = sn - k;
        if (cl == l && memcmp(set + k, ch, l) == 0)
            return true;
        k += cl;
    }
    return false;
}
static fl_status trim_kernel(fl_fn_call *c, bool lead, bool trail, fl_error *err)
{
    fl_unified su, cu;
    fl_vector_unify(c->args[0], &su);
    if (c->nargs == 2)
        fl_vector_unify(c->args[1], &cu);
    strout so;
    strout_init_call(&so, c);
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t n, cn = 1;
        const uint8_t *s = ubytes(&su, i, &n), *set = (const uint8_t *)" ";
        if (c->nargs == 2)
            set = ubytes(&cu, i, &cn);
        size_t b = 0, e = n;
        if (lead)
            while (b < e) {
                size_t l = utf8_clen(s[b]);
                if (l > e - b)
                    l = e - b;
                if (!in_set(set, cn, s + b, l))
                    break;
                b += l;
            }
        if (trail)
            while (e > b) {
                size_t st = e - 1;
                while (st > b && (s[st] & 0xC0) == 0x80)
                    st--;
                if (!in_set(set, cn, s + st, e - st))
                    break;
                e = st;
            }
        FL_TRY(strout_put(&so, i, s + b, e - b, err));
    });
    strout_finish(&so, c->nrows);
    return FL_OK;
}
static fl_status k_btrim(fl_fn_call *c, fl_error *e) { return trim_kernel(c, true, true, e); }
static fl_status k_ltrim(fl_fn_call *c, fl_error *e) { return trim_kernel(c, true, false, e); }
static fl_status k_rtrim(fl_fn_call *c, fl_error *e) { return trim_kernel(c, false, true, e); }

/* ---- lpad/rpad(s, len [, fill]) ---- */
static bool r_pad(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n < 2 || n > 3 || !all_str(a, 1, at) || !int_at(a, 1, at, FL_TYPE_INT64))
        return false;
    if (n == 3) {
        if (!fl_is_string(&a[2]))
            return false;
        at[2] = fl_mk(FL_TYPE_STRING);
    }
    *r = fl_mk(FL_TYPE_STRING);
    return true;
}
static fl_status pad_kernel(fl_fn_call *c, bool left, fl_error *err)
{
    fl_unified su, lu, fu;
    fl_vector_unify(c->args[0], &su);
    fl_vector_unify(c->args[1], &lu);
    if (c->nargs == 3)
        fl_vector_unify(c->args[2], &fu);
    strout so;
    strout_init_call(&so, c);
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t n, fn = 1;
        const uint8_t *s = ubytes(&su, i, &n), *f = (const uint8_t *)" ";
        if (c->nargs == 3)
            f = ubytes(&fu, i, &fn);
        int64_t len = UV(lu, int64_t, i);
        if (len < 0)
            len = 0;
        if (len > (1 << 26))
            return fl_fn_error(c, err, FL_ELIMIT, "requested length too large");
        int64_t chars = (int64_t)fl_utf8_len(s, n);
        /* a fill of no whole character (empty, or stray continuation bytes)
         * pads nothing, as an empty one: the loop below would never end */
        size_t fchars = fl_utf8_len(f, fn);
        if (chars >= len || fn == 0 || fchars == 0) {
            size_t e = char_off(s, n, chars >= len ? len : chars);
            FL_TRY(strout_put(&so, i, s, e, err));
            continue;
        }
        int64_t need = len - chars;
        uint8_t *dst;
        FL_TRY(strout_reserve(&so, n + (size_t)need * 4, &dst, err));
        size_t o = 0;
        if (!left) {
            memcpy(dst, s, n);
            o = n;
        }
        for (int64_t k = 0; k < need;) {
            int64_t take = need - k < (int64_t)fchars ? need - k : (int64_t)fchars;
            size_t b = char_off(f, fn, take);
            memcpy(dst + o, f, b);
            o += b;
            k += take;
        }
        if (left) {
            memcpy(dst + o, s, n);
            o += n;
        }
        strout_commit(&so, i, o);
    });
    strout_finish(&so, c->nrows);
    return FL_OK;
}
static fl_status k_lpad(fl_fn_call *c, fl_error *e) { return pad_kernel(c, true, e); }
static fl_status k_rpad(fl_fn_call *c, fl_error *e) { return pad_kernel(c, false, e); }

/* ---- split_part(s, delim, n) ---- */
static bool r_split(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 3 || !all_str(a, 2, at) || !int_at(a, 2, at, FL_TYPE_INT64))
        return false;
    *r = fl_mk(FL_TYPE_STRING);
    return true;
}
static fl_status k_split(fl_fn_call *c, fl_error *err)
{
    fl_unified su, du, nu;
    fl_vector_unify(c->args[0], &su);
    fl_vector_unify(c->args[1], &du);
    fl_vector_unify(c->args[2], &nu);
    strout so;
    strout_init_call(&so, c);
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t n, dn;
        const uint8_t *s = ubytes(&su, i, &n), *d = ubytes(&du, i, &dn);
        int64_t k = UV(nu, int64_t, i);
        if (k == 0)
            return fl_fn_error(c, err, FL_EINVAL, "field position must not be zero");
        /* collect field boundaries */
        size_t b = 0, e = n;
        bool found = false;
        if (dn == 0) {
            found = k == 1 || k == -1;
        } else if (k > 0) {
            size_t pos = 0;
            for (int64_t f = 1;; f++) {
                const uint8_t *q = memmem(s + pos, n - pos, d, dn);
                size_t end = q ? (size_t)(q - s) : n;
                if (f == k) {
                    b = pos, e = end, found = true;
                    break;
                }
                if (!q)
                    break;
                pos = end + dn;
            }
        } else {
            /* count fields, then index from the end */
            int64_t nf = 1;
            for (const uint8_t *q = s; (q = memmem(q, n - (size_t)(q - s), d, dn)); q += dn)
                nf++;
            int64_t want = nf + k + 1;
            if (want >= 1) {
                size_t pos = 0;
                for (int64_t f = 1;; f++) {
                    const uint8_t *q = memmem(s + pos, n - pos, d, dn);
                    size_t end = q ? (size_t)(q - s) : n;
                    if (f == want) {
                        b = pos, e = end, found = true;
                        break;
                    }
                    if (!q)
                        break;
                    pos = end + dn;
                }
            }
        }
        if (!found)
            b = e = 0;
        FL_TRY(strout_put(&so, i, s + b, e - b, err));
    });
    strout_finish(&so, c->nrows);
    return FL_OK;
}

/* ---- concatenation ---- */
static bool r_concat_op(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    bool bin0 = n == 2 && a[0].id == FL_TYPE_BINARY && !fl_type_is_interval(&a[0]);
    bool bin1 = n == 2 && a[1].id == FL_TYPE_BINARY && !fl_type_is_interval(&a[1]);
    if ((bin0 && (bin1 || fl_is_unknown(&a[1]))) || (bin1 && fl_is_unknown(&a[0]))) {
        at[0] = at[1] = *r = fl_mk(FL_TYPE_BINARY); /* bytea || bytea (PostgreSQL, Trino) */
        return true;
    }
    if (n != 2 || !(fl_is_string(&a[0]) || fl_is_string(&a[1])))
        return false;
    if (fl_type_is_nested(&a[0]) || fl_type_is_nested(&a[1]))
        return false;
    at[0] = at[1] = *r = fl_mk(FL_TYPE_STRING);
    return true;
}
static bool r_concat(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n < 1)
        return false;
    for (uint32_t k = 0; k < n; k++) {
        if (fl_type_is_nested(&a[k]))
            return false;
        at[k] = fl_mk(FL_TYPE_STRING);
    }
    *r = fl_mk(FL_TYPE_STRING);
    return true;
}
static bool r_concat_ws(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    return n >= 2 && r_concat(a, n, r, at);
}
static fl_status concat_kernel(fl_fn_call *c, bool ws, fl_error *err)
{
    uint32_t na = c->nargs;
    fl_unified stack[16];
    fl_unified *u = na <= 16 ? stack : malloc(sizeof(fl_unified) * na);
    if (!u)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t k = 0; k < na; k++)
        fl_vector_unify(c->args[k], &u[k]);
    bool strict = !c->expr->fn->handles_nulls;
    strout so;
    strout_init_call(&so, c);
    fl_status rc = FL_OK;
    FOR_ROWS(c->sel, c->nrows, i, {
        if (rc != FL_OK)
            continue;
        size_t sepn = 0;
        const uint8_t *sep = NULL;
        if (ws) {
            if (!fl_unified_is_valid(&u[0], i)) {
                rc = fl_out_null(c->out, i, err);
                continue;
            }
            sep = ubytes(&u[0], i, &sepn);
        }
        size_t total = 0;
        for (uint32_t k = ws ? 1 : 0; k < na; k++)
            if (strict || fl_unified_is_valid(&u[k], i)) {
                size_t l;
                ubytes(&u[k], i, &l);
                total += l + sepn;
            }
        uint8_t *dst;
        rc = strout_reserve(&so, total, &dst, err);
        if (rc != FL_OK)
            continue;
        size_t o = 0;
        bool first = true;
        for (uint32_t k = ws ? 1 : 0; k < na; k++) {
            if (!strict && !fl_unified_is_valid(&u[k], i))
                continue;
            if (ws && !first) {
                memcpy(dst + o, sep, sepn);
                o += sepn;
            }
            size_t l;
            const uint8_t *p = ubytes(&u[k], i, &l);
            memcpy(dst + o, p, l);
            o += l;
            first = false;
        }
        strout_commit(&so, i, o);
    });
    strout_finish(&so, c->nrows);
    if (u != stack)
        free(u);
    return rc;
}
static fl_status k_concat(fl_fn_call *c, fl_error *e) { return concat_kernel(c, false, e); }
static fl_status k_concat_ws(fl_fn_call *c, fl_error *e) { return concat_kernel(c, true, e); }

/* ---- ascii / chr ---- */
static bool r_ascii(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1 || !all_str(a, 1, at))
        return false;
    *r = fl_mk(FL_TYPE_INT32);
    return true;
}
static fl_status k_ascii(fl_fn_call *c, fl_error *err)
{
    (void)err;
    fl_unified u;
    fl_vector_unify(c->args[0], &u);
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t n;
        const uint8_t *s = ubytes(&u, i, &n);
        utf8proc_int32_t cp = 0;
        if (n && utf8proc_iterate(s, (utf8proc_ssize_t)n, &cp) <= 0)
            cp = s[0];
        OUTV(c->out, int32_t)[i] = n ? cp : 0;
    });
    return FL_OK;
}
static bool r_chr(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1 || !int_at(a, 0, at, FL_TYPE_INT32))
        return false;
    *r = fl_mk(FL_TYPE_STRING);
    return true;
}
static fl_status k_chr(fl_fn_call *c, fl_error *err)
{
    fl_unified u;
    fl_vector_unify(c->args[0], &u);
    strout so;
    strout_init_call(&so, c);
    FOR_ROWS(c->sel, c->nrows, i, {
        int32_t cp = UV(u, int32_t, i);
        if (cp <= 0 || !utf8proc_codepoint_valid(cp))
            return fl_fn_error(c, err, FL_EINVAL, "requested character not valid for encoding: %d", cp);
        uint8_t b[4];
        size_t l = (size_t)utf8proc_encode_char(cp, b);
        FL_TRY(strout_put(&so, i, b, l, err));
    });
    strout_finish(&so, c->nrows);
    return FL_OK;
}

static bool r_repeat(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    return r_s_i(a, n, r, at);
}

#define SCALAR(nm, r, k) {.name = nm, .kind = FL_FUNC_SCALAR, .deterministic = true, .resolve = r, .kernel = k}
static const fl_func funcs[] = {
    SCALAR("length", r_len, k_char_length),
    SCALAR("char_length", r_len, k_char_length),
    SCALAR("character_length", r_len, k_char_length),
    SCALAR("octet_length", r_len, k_octet_length),
    SCALAR("lower", r_s_s, k_lower),
    SCALAR("upper", r_s_s, k_upper),
    SCALAR("initcap", r_s_s, k_initcap),
    SCALAR("reverse", r_s_s, k_reverse),
    SCALAR("substring", r_substr, k_substr),
    SCALAR("substr", r_substr, k_substr),
    SCALAR("left", r_s_i, k_left),
    SCALAR("right", r_s_i, k_right),
    SCALAR("repeat", r_repeat, k_repeat),
    SCALAR("position", r_s_s_int, k_strpos),
    SCALAR("strpos", r_s_s_int, k_strpos),
    SCALAR("starts_with", r_s_s_bool, k_starts),
    SCALAR("ends_with", r_s_s_bool, k_ends),
    SCALAR("contains", r_s_s_bool, k_contains),
    SCALAR("replace", r_s3, k_replace),
    SCALAR("translate", r_s3, k_translate),
    SCALAR("btrim", r_trim, k_btrim),
    SCALAR("trim", r_trim, k_btrim),
    SCALAR("ltrim", r_trim, k_ltrim),
    SCALAR("rtrim", r_trim, k_rtrim),
    SCALAR("lpad", r_pad, k_lpad),
    SCALAR("rpad", r_pad, k_rpad),
    SCALAR("split_part", r_split, k_split),
    SCALAR("||", r_concat_op, k_concat),
    {.name = "concat", .kind = FL_FUNC_SCALAR, .deterministic = true, .resolve = r_concat, .kernel = k_concat,
     .handles_nulls = true},
    {.name = "concat_ws", .kind = FL_FUNC_SCALAR, .deterministic = true, .resolve = r_concat_ws,
     .kernel = k_concat_ws, .handles_nulls = true},
    SCALAR("ascii", r_ascii, k_ascii),
    SCALAR("chr", r_chr, k_chr),
};
const fl_func_table fl_funcs_string = {funcs, sizeof funcs / sizeof funcs[0]};
