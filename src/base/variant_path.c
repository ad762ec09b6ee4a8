/*
 * variant_path.c - variant paths (floe/variant.h): parsing "$.a['b c'][3]"
 * into steps and following them through a value.
 *
 * Grammar: '$' then steps; a step is '.' name (name: one or more bytes up
 * to the next '.' or '['), "['" quoted "']" or "[\"" quoted "\"]" (any
 * bytes; a backslash takes the next byte literally, so \\ and \' or \"
 * write themselves), or '[' digits ']' (an index, at most 2^32 - 1). A path
 * not starting with '$' reads as if "$." preceded it ("$" if it starts with
 * '['). Key bytes are copied into the arena, unescaped.
 *
 * Following a path is shallow per step (object field binary search, array
 * offset lookup); a missing key, an index past the end or a step of the
 * wrong container kind (or into a primitive) is "not found", not an error.
 */
#include "floe/variant.h"

#include <string.h>

typedef struct pp {
    const char *s;
    size_t n, pos;
    size_t shift; /* positions in messages are in the caller's text */
    fl_arena *a;
    fl_error *err;
} pp;

static fl_status perr(const pp *p, size_t pos, const char *what)
{
    size_t at = pos >= p->shift ? pos - p->shift : 0;
    return fl_errorf(p->err, FL_ESYNTAX, "variant path: position %zu: %s", at, what);
}

static fl_status dot_name(pp *p, fl_variant_step *st)
{
    size_t start = p->pos;
    while (p->pos < p->n && p->s[p->pos] != '.' && p->s[p->pos] != '[')
        p->pos++;
    if (p->pos == start)
        return perr(p, start, "expected a key after '.'");
    st->key = fl_arena_strndup(p->a, p->s + start, p->pos - start);
    if (!st->key)
        return fl_errorf(p->err, FL_ENOMEM, "variant path: out of memory");
    st->klen = p->pos - start;
    return FL_OK;
}

/* Length of the quoted key whose body starts at i (after the quote q),
 * unescaped, and where its closing quote is; false when unterminated. */
static bool quoted_extent(const pp *p, size_t i, char q, size_t *klen, size_t *close)
{
    size_t kl = 0;
    while (i < p->n && p->s[i] != q) {
        if (p->s[i] == '\\' && ++i >= p->n)
            return false;
        i++, kl++;
    }
    *klen = kl;
    *close = i;
    return i < p->n;
}

/* "['...']" or "[\"...\"]" at p->pos (the quote, after '['). */
static fl_status quoted_name(pp *p, fl_variant_step *st)
{
    size_t open = p->pos - 1, kl = 0, close = 0;
    char q = p->s[p->pos++];
    if (!quoted_extent(p, p->pos, q, &kl, &close))
        return perr(p, open, "unterminated quoted key");
    char *k = fl_arena_alloc(p->a, kl + 1);
    if (!k)
        return fl_errorf(p->err, FL_ENOMEM, "variant path: out of memory");
    for (size_t j = 0; p->pos < close; j++) {
        if (p->s[p->pos] == '\\')
            p->pos++;
        k[j] = p->s[p->pos++];
    }
    k[kl] = '\0';
    p->pos = close + 1;
    if (p->pos >= p->n || p->s[p->pos] != ']')
        return perr(p, p->pos, "expected ']' after a quoted key");
    p->pos++;
    st->key = k;
    st->klen = kl;
    return FL_OK;
}

static fl_status index_step(pp *p, fl_variant_step *st)
{
    size_t start = p->pos;
    uint64_t v = 0;
    while (p->pos < p->n && p->s[p->pos] >= '0' && p->s[p->pos] <= '9') {
        v = v * 10 + (uint64_t)(p->s[p->pos++] - '0');
        if (v > UINT32_MAX)
            return perr(p, start, "array index too large");
    }
    if (p->pos == start)
        return perr(p, start, "expected an index, or a quoted key, after '['");
    if (p->pos >= p->n || p->s[p->pos] != ']')
        return perr(p, p->pos, "expected ']' after an index");
    p->pos++;
    st->is_index = true;
    st->index = (uint32_t)v;
    return FL_OK;
}

static fl_status step(pp *p, fl_variant_step *st)
{
    memset(st, 0, sizeof *st);
    char c = p->s[p->pos++];
    if (c == '.')
        return dot_name(p, st);
    if (c != '[')
        return perr(p, p->pos - 1, "expected '.' or '['");
    if (p->pos < p->n && (p->s[p->pos] == '\'' || p->s[p->pos] == '"'))
        return quoted_name(p, st);
    return index_step(p, st);
}

static fl_status parse_steps(pp *p, fl_variant_path *out)
{
    /* every step takes at least two characters */
    size_t cap = (p->n - p->pos) / 2 + 1;
    out->steps = fl_arena_calloc(p->a, cap, sizeof *out->steps);
    if (!out->steps)
        return fl_errorf(p->err, FL_ENOMEM, "variant path: out of memory");
    while (p->pos < p->n) {
        if (out->nsteps >= cap || out->nsteps == UINT32_MAX)
            return perr(p, p->pos, "too many steps");
        FL_TRY(step(p, &out->steps[out->nsteps]));
        out->nsteps++;
    }
    return FL_OK;
}

fl_status fl_variant_path_parse(fl_arena *a, const char *s, size_t n, fl_variant_path *out,
                                fl_error *err)
{
    out->nsteps = 0;
    out->steps = NULL;
    pp p = {.s = s, .n = n, .a = a, .err = err};
    if (n > 0 && s[0] == '$') {
        p.pos = 1;
        return parse_steps(&p, out);
    }
    /* read as "$." + s (or "$" + s before a bracket) */
    bool bracket = n > 0 && s[0] == '[';
    char *t = fl_arena_alloc(a, n + 2);
    if (!t)
        return fl_errorf(err, FL_ENOMEM, "variant path: out of memory");
    t[0] = '$';
    t[1] = '.';
    size_t pre = bracket ? 1 : 2;
    if (n)
        memcpy(t + pre, s, n);
    p.s = t;
    p.n = n + pre;
    p.pos = 1;
    p.shift = pre;
    return parse_steps(&p, out);
}

fl_status fl_variant_path_get(const fl_variant *v, const fl_variant_path *path, bool *found,
                              fl_variant *out, fl_error *err)
{
    fl_variant cur = *v;
    *found = false;
    for (uint32_t i = 0; i < path->nsteps; i++) {
        const fl_variant_step *st = &path->steps[i];
        fl_variant_kind k = FL_VK_NULL;
        FL_TRY(fl_variant_kind_of(&cur, &k, err));
        fl_variant next = {0};
        if (st->is_index) {
            uint32_t n = 0;
            if (k != FL_VK_ARRAY)
                return FL_OK;
            FL_TRY(fl_variant_count(&cur, &n, err));
            if (st->index >= n)
                return FL_OK;
            FL_TRY(fl_variant_array_at(&cur, st->index, &next, err));
        } else {
            bool hit = false;
            if (k != FL_VK_OBJECT)
                return FL_OK;
            FL_TRY(fl_variant_object_find(&cur, st->key, st->klen, &hit, &next, err));
            if (!hit)
                return FL_OK;
        }
        cur = next;
    }
    *out = cur;
    *found = true;
    return FL_OK;
}
