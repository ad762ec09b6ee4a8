/*
 * like.c - LIKE / ILIKE / NOT LIKE (operators ~~ ~~* !~~ !~~*), like_escape
 * (the parser's rewrite of LIKE ... ESCAPE), and POSIX-style regular
 * expressions through PCRE2: ~ ~* !~ !~*, regexp_like, regexp_replace,
 * regexp_extract/regexp_substr, regexp_count, regexp_matches (first match
 * as text[]).
 *
 * LIKE patterns are compiled once at bind time when constant (else per
 * row) into tokens, and classified: exact, prefix 'abc%', suffix '%abc',
 * contains '%abc%', or general (segments between %, '_' = one UTF-8
 * character, matched with the usual single-backtrack wildcard algorithm).
 * Backslash escapes the next character (PostgreSQL's default ESCAPE).
 * ILIKE lowercases both sides with utf8proc.
 *
 * Regexes compile at bind time (constant patterns) with a PCRE2 general
 * context that allocates from the plan arena, so the compiled code lives
 * and dies with the plan; match data is per thread (eval state aux).
 * Flags (PostgreSQL): i case-insensitive, g global (regexp_replace), n/s/m/x.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "sql/func/func_internal.h"

enum { T_ANY1 = 256, T_ANYN = 257 };
enum { K_EXACT, K_PREFIX, K_SUFFIX, K_CONTAINS, K_MULTI, K_GENERAL };
#define LIKE_MAX_SEGS 8

typedef struct like_pat {
    uint16_t *tok;
    uint32_t ntok;
    int kind;
    uint8_t *lit; /* literal for exact/prefix/suffix/contains; K_MULTI: every segment, concatenated */
    uint32_t nlit;
    /* K_MULTI ('a%b', '%a%b%', 'a%b%c'...: literals between '%', no '_'):
     * segment k is lit[seg[k] .. seg[k + 1]); lead / trail: the pattern
     * starts / ends with '%' */
    uint32_t nseg;
    uint32_t seg[LIKE_MAX_SEGS + 1];
    bool lead, trail;
} like_pat;

/* Finds the literal nd (m bytes) in s (n bytes); NULL when absent. glibc's
 * memmem builds a 256-entry shift table on every call, which dominates on
 * short subjects (TPC-H comments are 20-80 bytes); this compares the
 * needle's first and last bytes at 16 positions at once (SSE2), then the
 * middle only where both match, and scans the tail one position at a time. */
static const uint8_t *find_lit(const uint8_t *s, size_t n, const uint8_t *nd, size_t m)
{
    if (m == 0)
        return s;
    if (n < m)
        return NULL;
    if (m == 1)
        return memchr(s, nd[0], n);
    size_t last = n - m; /* last start position */
    size_t i = 0;
#ifdef __SSE2__
    const __m128i f = _mm_set1_epi8((char)nd[0]), l = _mm_set1_epi8((char)nd[m - 1]);
    for (; i + 16 <= last + 1; i += 16) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + i + m - 1));
        unsigned mask = (unsigned)_mm_movemask_epi8(_mm_and_si128(_mm_cmpeq_epi8(a, f), _mm_cmpeq_epi8(b, l)));
        while (mask) {
            unsigned bit = (unsigned)__builtin_ctz(mask);
            if (memcmp(s + i + bit + 1, nd + 1, m - 2) == 0)
                return s + i + bit;
            mask &= mask - 1;
        }
    }
#endif
    for (; i <= last; i++)
        if (s[i] == nd[0] && s[i + m - 1] == nd[m - 1] && memcmp(s + i + 1, nd + 1, m - 2) == 0)
            return s + i;
    return NULL;
}

/* Literal segments separated by '%' (no '_'): K_MULTI, matched with find_lit
 * leftmost-first, which is exact when '%' is the only wildcard. */
static void classify_multi(like_pat *lp, const uint16_t *tok, uint32_t nt, uint8_t *lit, bool lead, bool trail)
{
    uint32_t nseg = 0, nl = 0;
    bool in_seg = false;
    for (uint32_t k = 0; k < nt; k++) {
        if (tok[k] == T_ANY1)
            return;
        if (tok[k] == T_ANYN) {
            in_seg = false;
            continue;
        }
        if (!in_seg) {
            if (nseg == LIKE_MAX_SEGS)
                return;
            lp->seg[nseg++] = nl;
            in_seg = true;
        }
        lit[nl++] = (uint8_t)tok[k];
    }
    lp->seg[nseg] = nl;
    lp->nseg = nseg;
    lp->lit = lit;
    lp->nlit = nl;
    lp->lead = lead;
    lp->trail = trail;
    lp->kind = K_MULTI;
}

static bool like_multi(const like_pat *lp, const uint8_t *s, size_t n)
{
    size_t lo = 0, hi = n;
    uint32_t first = 0, last = lp->nseg;
    if (!lp->lead) {
        size_t l = lp->seg[1] - lp->seg[0];
        if (n < l || memcmp(s, lp->lit, l) != 0)
            return false;
        lo = l;
        first = 1;
    }
    if (!lp->trail && last > first) {
        size_t l = lp->seg[last] - lp->seg[last - 1];
        if (hi - lo < l || memcmp(s + n - l, lp->lit + lp->seg[last - 1], l) != 0)
            return false;
        hi = n - l;
        last--;
    }
    for (uint32_t k = first; k < last; k++) {
        size_t l = lp->seg[k + 1] - lp->seg[k];
        const uint8_t *p = find_lit(s + lo, hi - lo, lp->lit + lp->seg[k], l);
        if (!p)
            return false;
        lo = (size_t)(p - s) + l;
    }
    return true;
}

/* Compiles pattern p into lp using scratch buffers from malloc (caller frees tok/lit). */
static bool like_compile(const uint8_t *p, size_t n, like_pat *lp, uint16_t *tok, uint8_t *lit)
{
    uint32_t nt = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '\\') {
            if (i + 1 >= n)
                return false; /* trailing escape: PostgreSQL errors */
            tok[nt++] = p[++i];
        } else if (p[i] == '%') {
            if (!(nt && tok[nt - 1] == T_ANYN))
                tok[nt++] = T_ANYN;
        } else if (p[i] == '_')
            tok[nt++] = T_ANY1;
        else
            tok[nt++] = p[i];
    }
    lp->tok = tok;
    lp->ntok = nt;
    /* classify */
    uint32_t lo = 0, hi = nt;
    bool lead = nt && tok[0] == T_ANYN, trail = nt > (lead ? 1u : 0u) && tok[nt - 1] == T_ANYN;
    if (lead)
        lo = 1;
    if (trail)
        hi = nt - 1;
    bool simple = true;
    for (uint32_t k = lo; k < hi; k++)
        if (tok[k] >= 256)
            simple = false;
    lp->kind = K_GENERAL;
    if (!simple)
        classify_multi(lp, tok, nt, lit, lead, trail);
    if (simple) {
        lp->lit = lit;
        lp->nlit = hi - lo;
        for (uint32_t k = lo; k < hi; k++)
            lit[k - lo] = (uint8_t)tok[k];
        lp->kind = lead && trail ? K_CONTAINS : lead ? K_SUFFIX : trail ? K_PREFIX : K_EXACT;
        if (nt == 1 && lead) /* '%' */
            lp->kind = K_CONTAINS, lp->nlit = 0;
    }
    return true;
}

static bool like_general(const uint16_t *p, uint32_t m, const uint8_t *s, size_t n)
{
    size_t si = 0, star_si = 0;
    uint32_t pi = 0, star_pi = UINT32_MAX;
    while (si < n) {
        if (pi < m && p[pi] == T_ANY1) {
            size_t l = utf8_clen(s[si]);
            si += l > n - si ? n - si : l;
            pi++;
        } else if (pi < m && p[pi] < 256 && p[pi] == s[si]) {
            si++;
            pi++;
        } else if (pi < m && p[pi] == T_ANYN) {
            star_pi = pi++;
            star_si = si;
        } else if (star_pi != UINT32_MAX) {
            pi = star_pi + 1;
            size_t l = utf8_clen(s[star_si]);
            star_si += l > n - star_si ? n - star_si : l;
            si = star_si;
        } else
            return false;
    }
    while (pi < m && p[pi] == T_ANYN)
        pi++;
    return pi == m;
}

static bool like_match(const like_pat *lp, const uint8_t *s, size_t n)
{
    switch (lp->kind) {
    case K_EXACT: return n == lp->nlit && memcmp(s, lp->lit, n) == 0;
    case K_PREFIX: return n >= lp->nlit && memcmp(s, lp->lit, lp->nlit) == 0;
    case K_SUFFIX: return n >= lp->nlit && memcmp(s + n - lp->nlit, lp->lit, lp->nlit) == 0;
    case K_CONTAINS: return lp->nlit == 0 || find_lit(s, n, lp->lit, lp->nlit) != NULL;
    case K_MULTI: return like_multi(lp, s, n);
    default: return like_general(lp->tok, lp->ntok, s, n);
    }
}

typedef struct like_bind {
    like_pat pat;
    bool valid;
} like_bind;

static bool r_like(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 2 || !fl_is_string(&a[0]) || !fl_is_string(&a[1]))
        return false;
    at[0] = at[1] = fl_mk(FL_TYPE_STRING);
    *r = fl_mk(FL_TYPE_BOOLEAN);
    return true;
}

static bool is_ilike(const fl_expr *e)
{
    return strstr(e->fn->name, "~~*") != NULL || strcmp(e->fn->name, "ilike") == 0;
}

static fl_status b_like(const fl_expr *e, fl_arena *a, void **bd, fl_error *err)
{
    const fl_expr *p = e->args[1];
    if (p->kind != FL_EXPR_CONST || p->value.is_null)
        return FL_OK;
    size_t n = p->value.v.bytes.len;
    like_bind *lb = fl_arena_calloc(a, 1, sizeof *lb);
    uint16_t *tok = fl_arena_alloc(a, sizeof(uint16_t) * (n + 1));
    uint8_t *lit = fl_arena_alloc(a, n * 4 + 1);
    uint8_t *low = fl_arena_alloc(a, n * 4 + 1);
    if (!lb || !tok || !lit || !low)
        return fl_errorf(err, FL_ENOMEM, "out of memory compiling LIKE pattern");
    const uint8_t *src = p->value.v.bytes.ptr;
    if (is_ilike(e)) {
        n = fl_utf8_case(src, n, low, false);
        src = low;
        tok = fl_arena_alloc(a, sizeof(uint16_t) * (n + 1));
        if (!tok)
            return fl_errorf(err, FL_ENOMEM, "out of memory compiling LIKE pattern");
    }
    if (!like_compile(src, n, &lb->pat, tok, lit))
        return fl_errorf(err, FL_EINVAL, "LIKE pattern must not end with escape character");
    lb->valid = true;
    *bd = lb;
    return FL_OK;
}

typedef struct like_scratch {
    uint16_t *tok;
    uint8_t *lit, *low;
    size_t cap, lowcap;
} like_scratch;
static void like_scratch_free(void *p)
{
    like_scratch *s = p;
    free(s->tok);
    free(s->lit);
    free(s->low);
}
static fl_status grow(like_scratch *s, size_t n, fl_error *err)
{
    if (n <= s->cap)
        return FL_OK;
    size_t c = n * 2 + 16;
    uint16_t *t = realloc(s->tok, sizeof(uint16_t) * c);
    if (t)
        s->tok = t;
    uint8_t *l = realloc(s->lit, c);
    if (l)
        s->lit = l;
    if (!t || !l)
        return fl_errorf(err, FL_ENOMEM, "out of memory in LIKE");
    s->cap = c;
    return FL_OK;
}
static fl_status grow_low(like_scratch *s, size_t n, fl_error *err)
{
    if (n <= s->lowcap)
        return FL_OK;
    size_t c = n * 2 + 16;
    uint8_t *l = realloc(s->low, c);
    if (!l)
        return fl_errorf(err, FL_ENOMEM, "out of memory in LIKE");
    s->low = l;
    s->lowcap = c;
    return FL_OK;
}

static fl_status like_kernel(fl_fn_call *c, bool negate, fl_error *err)
{
    const like_bind *lb = c->expr->bind_data;
    bool ci = is_ilike(c->expr);
    fl_unified su, pu;
    fl_vector_unify(c->args[0], &su);
    fl_vector_unify(c->args[1], &pu);
    uint8_t *o = c->out->data;
    like_scratch *sc = NULL;
    if (!lb || ci) {
        sc = fl_eval_state_aux(c->state, c->expr, sizeof *sc, like_scratch_free, err);
        if (!sc)
            return err->code;
    }
    if (lb && !ci) {
        const like_pat *lp = &lb->pat;
        FOR_ROWS(c->sel, c->nrows, i, {
            size_t n;
            const uint8_t *s = ubytes(&su, i, &n);
            o[i] = like_match(lp, s, n) != negate;
        });
        return FL_OK;
    }
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t n;
        const uint8_t *s = ubytes(&su, i, &n);
        like_pat tmp;
        const like_pat *lp;
        if (lb)
            lp = &lb->pat;
        else {
            size_t pn;
            const uint8_t *p = ubytes(&pu, i, &pn);
            if (ci) {
                FL_TRY(grow_low(sc, pn * 4 + 1, err));
                pn = fl_utf8_case(p, pn, sc->low, false);
                FL_TRY(grow(sc, pn + 1, err));
                p = sc->low;
                if (!like_compile(p, pn, &tmp, sc->tok, sc->lit))
                    return fl_fn_error(c, err, FL_EINVAL, "LIKE pattern must not end with escape character");
                /* the subject's lowercase copy reuses low after the pattern was tokenized */
            } else {
                FL_TRY(grow(sc, pn + 1, err));
                if (!like_compile(p, pn, &tmp, sc->tok, sc->lit))
                    return fl_fn_error(c, err, FL_EINVAL, "LIKE pattern must not end with escape character");
            }
            lp = &tmp;
        }
        if (ci) {
            FL_TRY(grow_low(sc, n * 4 + 1, err));
            n = fl_utf8_case(s, n, sc->low, false);
            s = sc->low;
        }
        o[i] = like_match(lp, s, n) != negate;
    });
    return FL_OK;
}
static fl_status k_like(fl_fn_call *c, fl_error *e) { return like_kernel(c, false, e); }
static fl_status k_notlike(fl_fn_call *c, fl_error *e) { return like_kernel(c, true, e); }

/* like_escape(pattern, escape): rewrite to backslash escapes */
static bool r_like_escape(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 2 || !fl_is_string(&a[0]) || !fl_is_string(&a[1]))
        return false;
    at[0] = at[1] = *r = fl_mk(FL_TYPE_STRING);
    return true;
}
static fl_status k_like_escape(fl_fn_call *c, fl_error *err)
{
    fl_unified pu, eu;
    fl_vector_unify(c->args[0], &pu);
    fl_vector_unify(c->args[1], &eu);
    strout so;
    strout_init_call(&so, c);
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t pn, en;
        const uint8_t *p = ubytes(&pu, i, &pn), *e = ubytes(&eu, i, &en);
        if (en > 1 && fl_utf8_len(e, en) != 1)
            return fl_fn_error_state(c, err, FL_EINVAL, "22025", "invalid escape string");
        uint8_t *dst;
        FL_TRY(strout_reserve(&so, pn * 2, &dst, err));
        size_t o = 0;
        for (size_t k = 0; k < pn; k++) {
            if (en && k + en <= pn && memcmp(p + k, e, en) == 0) {
                size_t at = k + en;
                if (at >= pn)
                    return fl_fn_error(c, err, FL_EINVAL, "LIKE pattern must not end with escape character");
                dst[o++] = '\\'; /* whatever follows the escape is literal */
                dst[o++] = p[at];
                k = at;
                continue;
            }
            if (p[k] == '\\')
                dst[o++] = '\\';
            dst[o++] = p[k];
        }
        strout_commit(&so, i, o);
    });
    strout_finish(&so, c->nrows);
    return FL_OK;
}

/* ---- regular expressions ---- */

typedef struct re_bind {
    pcre2_code *code;
    bool global;
} re_bind;

static void *arena_malloc(PCRE2_SIZE n, void *ud)
{
    return fl_arena_alloc(ud, n);
}
static void arena_free(void *p, void *ud)
{
    (void)p, (void)ud;
}
static void *sys_malloc(PCRE2_SIZE n, void *ud)
{
    (void)ud;
    return malloc(n);
}
static void sys_free(void *p, void *ud)
{
    (void)ud;
    free(p);
}

static fl_status parse_flags(const uint8_t *f, size_t n, uint32_t *opts, bool *global, fl_error *err)
{
    *opts = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF;
    *global = false;
    for (size_t i = 0; i < n; i++) {
        switch (f[i]) {
        case 'i': *opts |= PCRE2_CASELESS; break;
        case 'c': *opts &= ~PCRE2_CASELESS; break;
        case 'g': *global = true; break;
        case 'n':
        case 'm': *opts |= PCRE2_MULTILINE; break;
        case 's': *opts |= PCRE2_DOTALL; break;
        case 'x': *opts |= PCRE2_EXTENDED; break;
        default:
            return fl_error_state(err, FL_EINVAL, "2201B",
                                  "invalid regular expression option: \"%c\"", f[i]);
        }
    }
    return FL_OK;
}

/* Compiles with allocations from the arena a (NULL: malloc; caller frees with pcre2_code_free). */
static fl_status re_compile(const uint8_t *p, size_t n, uint32_t opts, fl_arena *a, pcre2_code **out, fl_error *err)
{
    pcre2_general_context *gc = a ? pcre2_general_context_create(arena_malloc, arena_free, a)
                                  : pcre2_general_context_create(sys_malloc, sys_free, NULL);
    pcre2_compile_context *cc = gc ? pcre2_compile_context_create(gc) : NULL;
    if (!cc) {
        if (gc && !a)
            pcre2_general_context_free(gc);
        return fl_errorf(err, FL_ENOMEM, "out of memory compiling a regular expression");
    }
    int ec;
    PCRE2_SIZE eo;
    *out = pcre2_compile(p, n, opts, &ec, &eo, cc);
    if (!a) {
        pcre2_compile_context_free(cc);
        pcre2_general_context_free(gc);
    }
    if (!*out) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(ec, msg, sizeof msg);
        return fl_error_state(err, FL_EINVAL, "2201B",
                              "invalid regular expression: %s at offset %zu", (const char *)msg,
                              (size_t)eo);
    }
    return FL_OK;
}

static int flags_arg(const fl_expr *e)
{
    const char *n = e->fn->name;
    if (!strcmp(n, "regexp_replace"))
        return 3;
    if (!strcmp(n, "regexp_like") || !strcmp(n, "regexp_count") || !strcmp(n, "regexp_matches"))
        return 2;
    return -1;
}

static uint32_t op_opts(const fl_expr *e)
{
    return strchr(e->fn->name, '*') ? PCRE2_CASELESS : 0;
}

static fl_status b_regex(const fl_expr *e, fl_arena *a, void **bd, fl_error *err)
{
    const fl_expr *p = e->args[1];
    int fa = flags_arg(e);
    if (p->kind != FL_EXPR_CONST || p->value.is_null)
        return FL_OK;
    const fl_expr *f = fa >= 0 && (uint32_t)fa < e->nargs ? e->args[fa] : NULL;
    if (f && (f->kind != FL_EXPR_CONST || f->value.is_null))
        return FL_OK;
    uint32_t opts;
    bool global;
    FL_TRY(parse_flags(f ? f->value.v.bytes.ptr : NULL, f ? f->value.v.bytes.len : 0, &opts, &global, err));
    opts |= op_opts(e);
    re_bind *rb = fl_arena_calloc(a, 1, sizeof *rb);
    if (!rb)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    FL_TRY(re_compile(p->value.v.bytes.ptr, p->value.v.bytes.len, opts, a, &rb->code, err));
    rb->global = global;
    *bd = rb;
    return FL_OK;
}

typedef struct re_scratch {
    pcre2_match_data *md;
    pcre2_code *code; /* per-row compiled (non-constant pattern), malloc'd */
    uint8_t *buf;
    size_t cap;
} re_scratch;
static void re_scratch_free(void *p)
{
    re_scratch *s = p;
    if (s->md)
        pcre2_match_data_free(s->md);
    if (s->code)
        pcre2_code_free(s->code);
    free(s->buf);
}

/* The code for row i (constant or compiled now) and match data sized for it. */
static fl_status re_for_row(fl_fn_call *c, re_scratch *sc, const fl_unified *pu, const fl_unified *fu, uint32_t i,
                            const pcre2_code **code, bool *global, fl_error *err)
{
    const re_bind *rb = c->expr->bind_data;
    if (rb) {
        *code = rb->code;
        *global = rb->global;
    } else {
        size_t pn, fn = 0;
        const uint8_t *p = ubytes(pu, i, &pn), *f = NULL;
        if (fu)
            f = ubytes(fu, i, &fn);
        uint32_t opts;
        FL_TRY(parse_flags(f, fn, &opts, global, err));
        if (sc->code)
            pcre2_code_free(sc->code);
        sc->code = NULL;
        fl_status rc = re_compile(p, pn, opts | op_opts(c->expr), NULL, &sc->code, err);
        if (rc) /* keeps the SQLSTATE re_compile raised (2201B) */
            return fl_fn_error_state(c, err, rc, err->sqlstate, "%s", err->msg);
        *code = sc->code;
        if (sc->md) {
            pcre2_match_data_free(sc->md);
            sc->md = NULL;
        }
    }
    if (!sc->md) {
        sc->md = pcre2_match_data_create_from_pattern(*code, NULL);
        if (!sc->md)
            return fl_errorf(err, FL_ENOMEM, "out of memory for regex match data");
    }
    return FL_OK;
}

static fl_status re_match_err(fl_fn_call *c, int rc, fl_error *err)
{
    PCRE2_UCHAR msg[256];
    pcre2_get_error_message(rc, msg, sizeof msg);
    return fl_fn_error(c, err, FL_EINVAL, "regular expression failed: %s", (const char *)msg);
}

static bool r_re_op(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    return r_like(a, n, r, at);
}
static bool r_re_like(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n == 3) {
        if (!fl_is_string(&a[2]))
            return false;
        at[2] = fl_mk(FL_TYPE_STRING);
        return r_like(a, 2, r, at);
    }
    return r_like(a, n, r, at);
}

static fl_status re_bool(fl_fn_call *c, bool negate, fl_error *err)
{
    re_scratch *sc = fl_eval_state_aux(c->state, c->expr, sizeof *sc, re_scratch_free, err);
    if (!sc)
        return err->code;
    fl_unified su, pu, fu;
    fl_vector_unify(c->args[0], &su);
    fl_vector_unify(c->args[1], &pu);
    int fa = flags_arg(c->expr);
    bool has_f = fa >= 0 && (uint32_t)fa < c->nargs;
    if (has_f)
        fl_vector_unify(c->args[fa], &fu);
    FOR_ROWS(c->sel, c->nrows, i, {
        const pcre2_code *code;
        bool g;
        FL_TRY(re_for_row(c, sc, &pu, has_f ? &fu : NULL, i, &code, &g, err));
        size_t n;
        const uint8_t *s = ubytes(&su, i, &n);
        int rc = pcre2_match(code, s, n, 0, 0, sc->md, NULL);
        if (rc < 0 && rc != PCRE2_ERROR_NOMATCH)
            return re_match_err(c, rc, err);
        c->out->data[i] = (rc >= 0) != negate;
    });
    return FL_OK;
}
static fl_status k_re(fl_fn_call *c, fl_error *e) { return re_bool(c, false, e); }
static fl_status k_not_re(fl_fn_call *c, fl_error *e) { return re_bool(c, true, e); }

/* regexp_replace(s, p, r [, flags]): PostgreSQL replacement syntax \1..\9, \& */
static bool r_re_replace(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n < 3 || n > 4)
        return false;
    for (uint32_t k = 0; k < n; k++) {
        if (!fl_is_string(&a[k]))
            return false;
        at[k] = fl_mk(FL_TYPE_STRING);
    }
    *r = fl_mk(FL_TYPE_STRING);
    return true;
}

static fl_status append_repl(uint8_t **buf, size_t *len, size_t *cap, const uint8_t *p, size_t n, fl_error *err)
{
    if (n == 0)
        return FL_OK;
    if (*len + n > *cap || !*buf) {
        size_t c = (*len + n) * 2 + 64;
        uint8_t *b = realloc(*buf, c);
        if (!b)
            return fl_errorf(err, FL_ENOMEM, "out of memory in regexp_replace");
        *buf = b;
        *cap = c;
    }
    memcpy(*buf + *len, p, n);
    *len += n;
    return FL_OK;
}

static fl_status k_re_replace(fl_fn_call *c, fl_error *err)
{
    re_scratch *sc = fl_eval_state_aux(c->state, c->expr, sizeof *sc, re_scratch_free, err);
    if (!sc)
        return err->code;
    fl_unified su, pu, ru, fu;
    fl_vector_unify(c->args[0], &su);
    fl_vector_unify(c->args[1], &pu);
    fl_vector_unify(c->args[2], &ru);
    bool has_f = c->nargs == 4;
    if (has_f)
        fl_vector_unify(c->args[3], &fu);
    strout so;
    strout_init_call(&so, c);
    FOR_ROWS(c->sel, c->nrows, i, {
        const pcre2_code *code;
        bool g;
        FL_TRY(re_for_row(c, sc, &pu, has_f ? &fu : NULL, i, &code, &g, err));
        size_t n, rn;
        const uint8_t *s = ubytes(&su, i, &n), *rp = ubytes(&ru, i, &rn);
        size_t len = 0, start = 0, copied = 0;
        while (start <= n) {
            int rc = pcre2_match(code, s, n, start, 0, sc->md, NULL);
            if (rc == PCRE2_ERROR_NOMATCH)
                break;
            if (rc < 0)
                return re_match_err(c, rc, err);
            PCRE2_SIZE *ov = pcre2_get_ovector_pointer(sc->md);
            FL_TRY(append_repl(&sc->buf, &len, &sc->cap, s + copied, ov[0] - copied, err));
            for (size_t k = 0; k < rn; k++) {
                if (rp[k] == '\\' && k + 1 < rn) {
                    uint8_t d = rp[k + 1];
                    if ((d >= '1' && d <= '9') || d == '&') {
                        int grp = d == '&' ? 0 : d - '0';
                        if (grp < rc && ov[2 * grp] != PCRE2_UNSET)
                            FL_TRY(append_repl(&sc->buf, &len, &sc->cap, s + ov[2 * grp], ov[2 * grp + 1] - ov[2 * grp], err));
                        k++;
                        continue;
                    }
                    if (d == '\\') {
                        FL_TRY(append_repl(&sc->buf, &len, &sc->cap, rp + k, 1, err));
                        k++;
                        continue;
                    }
                }
                FL_TRY(append_repl(&sc->buf, &len, &sc->cap, rp + k, 1, err));
            }
            copied = ov[1];
            if (!g)
                break;
            start = ov[1] > ov[0] ? ov[1] : ov[1] + (ov[1] < n ? utf8_clen(s[ov[1]]) : 1);
            if (ov[1] == ov[0] && ov[1] < n) {
                /* empty match: copy the char we skip */
                size_t l = start - ov[1];
                if (l > n - ov[1])
                    l = n - ov[1];
                FL_TRY(append_repl(&sc->buf, &len, &sc->cap, s + ov[1], l, err));
                copied = ov[1] + l;
            }
        }
        if (copied < n)
            FL_TRY(append_repl(&sc->buf, &len, &sc->cap, s + copied, n - copied, err));
        FL_TRY(strout_put(&so, i, sc->buf, len, err));
    });
    strout_finish(&so, c->nrows);
    return FL_OK;
}

/* regexp_extract(s, p [, group]) / regexp_substr(s, p): first match, NULL when none */
static bool r_re_extract(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n < 2 || n > 3 || !fl_is_string(&a[0]) || !fl_is_string(&a[1]))
        return false;
    at[0] = at[1] = fl_mk(FL_TYPE_STRING);
    if (n == 3) {
        if (!(fl_is_integer(&a[2]) || fl_is_unknown(&a[2])))
            return false;
        at[2] = fl_mk(FL_TYPE_INT32);
    }
    *r = fl_mk(FL_TYPE_STRING);
    return true;
}
static fl_status k_re_extract(fl_fn_call *c, fl_error *err)
{
    re_scratch *sc = fl_eval_state_aux(c->state, c->expr, sizeof *sc, re_scratch_free, err);
    if (!sc)
        return err->code;
    fl_unified su, pu, gu;
    fl_vector_unify(c->args[0], &su);
    fl_vector_unify(c->args[1], &pu);
    if (c->nargs == 3)
        fl_vector_unify(c->args[2], &gu);
    strout so;
    strout_init_call(&so, c);
    FOR_ROWS(c->sel, c->nrows, i, {
        const pcre2_code *code;
        bool g;
        FL_TRY(re_for_row(c, sc, &pu, NULL, i, &code, &g, err));
        size_t n;
        const uint8_t *s = ubytes(&su, i, &n);
        int grp = c->nargs == 3 ? UV(gu, int32_t, i) : 0;
        int rc = pcre2_match(code, s, n, 0, 0, sc->md, NULL);
        if (rc < 0 && rc != PCRE2_ERROR_NOMATCH)
            return re_match_err(c, rc, err);
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(sc->md);
        uint32_t ngroups;
        pcre2_pattern_info(code, PCRE2_INFO_CAPTURECOUNT, &ngroups);
        if (grp < 0 || (uint32_t)grp > ngroups)
            return fl_fn_error_state(c, err, FL_EINVAL, "22003",
                                     "regexp group %d out of range (pattern has %u)", grp, ngroups);
        if (rc < 0 || grp >= rc || ov[2 * grp] == PCRE2_UNSET)
            FL_TRY(fl_out_null(c->out, i, err));
        else
            FL_TRY(strout_put(&so, i, s + ov[2 * grp], ov[2 * grp + 1] - ov[2 * grp], err));
    });
    strout_finish(&so, c->nrows);
    return FL_OK;
}

static bool r_re_count(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (!r_re_like(a, n, r, at))
        return false;
    *r = fl_mk(FL_TYPE_INT32);
    return true;
}
static fl_status k_re_count(fl_fn_call *c, fl_error *err)
{
    re_scratch *sc = fl_eval_state_aux(c->state, c->expr, sizeof *sc, re_scratch_free, err);
    if (!sc)
        return err->code;
    fl_unified su, pu, fu;
    fl_vector_unify(c->args[0], &su);
    fl_vector_unify(c->args[1], &pu);
    bool has_f = c->nargs == 3;
    if (has_f)
        fl_vector_unify(c->args[2], &fu);
    FOR_ROWS(c->sel, c->nrows, i, {
        const pcre2_code *code;
        bool g;
        FL_TRY(re_for_row(c, sc, &pu, has_f ? &fu : NULL, i, &code, &g, err));
        size_t n;
        const uint8_t *s = ubytes(&su, i, &n);
        int32_t cnt = 0;
        size_t start = 0;
        while (start <= n) {
            int rc = pcre2_match(code, s, n, start, 0, sc->md, NULL);
            if (rc == PCRE2_ERROR_NOMATCH)
                break;
            if (rc < 0)
                return re_match_err(c, rc, err);
            PCRE2_SIZE *ov = pcre2_get_ovector_pointer(sc->md);
            cnt++;
            start = ov[1] > ov[0] ? ov[1] : ov[1] + 1;
        }
        OUTV(c->out, int32_t)[i] = cnt;
    });
    return FL_OK;
}

#define SCALAR(nm, r, k, b)                                                                        \
    {.name = nm, .kind = FL_FUNC_SCALAR, .deterministic = true, .resolve = r, .kernel = k, .bind = b}
static const fl_func funcs[] = {
    SCALAR("~~", r_like, k_like, b_like),
    SCALAR("like", r_like, k_like, b_like),
    SCALAR("!~~", r_like, k_notlike, b_like),
    SCALAR("~~*", r_like, k_like, b_like),
    SCALAR("ilike", r_like, k_like, b_like),
    SCALAR("!~~*", r_like, k_notlike, b_like),
    SCALAR("like_escape", r_like_escape, k_like_escape, NULL),
    SCALAR("~", r_re_op, k_re, b_regex),
    SCALAR("~*", r_re_op, k_re, b_regex),
    SCALAR("!~", r_re_op, k_not_re, b_regex),
    SCALAR("!~*", r_re_op, k_not_re, b_regex),
    SCALAR("regexp_like", r_re_like, k_re, b_regex),
    SCALAR("regexp_matches_bool", r_re_like, k_re, b_regex),
    SCALAR("regexp_replace", r_re_replace, k_re_replace, b_regex),
    SCALAR("regexp_extract", r_re_extract, k_re_extract, b_regex),
    SCALAR("regexp_substr", r_re_extract, k_re_extract, b_regex),
    SCALAR("regexp_count", r_re_count, k_re_count, b_regex),
};
const fl_func_table fl_funcs_like = {funcs, sizeof funcs / sizeof funcs[0]};
