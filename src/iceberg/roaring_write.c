/*
 * roaring_write.c - the encoder for the Roaring "portable 64-bit"
 * serialization of a position set (the payload of an Iceberg deletion
 * vector; layout in roaring.c, which decodes it).
 *
 * A position set is already sorted disjoint ranges, so the encoder walks the
 * ranges once, cutting them at 2^16 boundaries into runs of one container,
 * and picks each container's smallest legal form as CRoaring's
 * runOptimize does: a run container when 2 + 4 x runs bytes beats both
 * others, else an array (2 bytes a value, legal up to 4096 values), else a
 * bitmap (8 KiB). A 32-bit bitmap with any run container uses cookie 12347
 * (run flags, offsets only from 4 containers on), otherwise cookie 12346
 * (offsets always), exactly as RoaringFormatSpec says.
 *
 * Memory: the output is malloc'd (caller frees); the runs are a malloc'd
 * scratch array of the size of the input's range count.
 */
#include <stdlib.h>
#include <string.h>

#include "iceberg/scan_internal.h"

#define COOKIE_NO_RUN 12346u
#define COOKIE_RUN 12347u
#define NO_OFFSET_THRESHOLD 4u
#define ARRAY_MAX 4096u

typedef struct obuf {
    uint8_t *p;
    size_t len, cap;
    bool oom;
} obuf;

static uint8_t *obuf_grow(obuf *b, size_t n)
{
    if (b->oom)
        return NULL;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n)
            cap *= 2;
        uint8_t *q = realloc(b->p, cap);
        if (!q) {
            b->oom = true;
            return NULL;
        }
        b->p = q;
        b->cap = cap;
    }
    uint8_t *at = b->p + b->len;
    b->len += n;
    return at;
}

static void put_le(obuf *b, uint64_t v, int bytes)
{
    uint8_t *p = obuf_grow(b, (size_t)bytes);
    for (int i = 0; p && i < bytes; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void set_le32(obuf *b, size_t at, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b->p[at + i] = (uint8_t)(v >> (8 * i));
}

/* A run inside one container: hi48 = position >> 16, [lo, lo + len). */
typedef struct run {
    uint64_t hi48;
    uint32_t lo, len;
} run;

/* One container: runs [first, first + nruns) of the run array. */
typedef struct cont {
    uint32_t first, nruns, card;
    uint16_t key;
    uint8_t kind; /* 0 array, 1 bitmap, 2 run */
} cont;

static fl_status split_runs(const fl_ice_position_set *s, run **out, size_t *nout, fl_error *err)
{
    size_t cap = s->nranges + 16, n = 0;
    run *r = malloc(cap * sizeof *r);
    if (!r)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint64_t i = 0; i < s->nranges; i++) {
        uint64_t a = s->ranges[2 * i], e = s->ranges[2 * i + 1];
        while (a < e) {
            uint64_t stop = (a | 0xffffu) + 1;
            if (stop > e || stop == 0)
                stop = e;
            if (n == cap) {
                cap *= 2;
                run *q = realloc(r, cap * sizeof *r);
                if (!q) {
                    free(r);
                    return fl_errorf(err, FL_ENOMEM, "out of memory");
                }
                r = q;
            }
            r[n++] = (run){a >> 16, (uint32_t)(a & 0xffffu), (uint32_t)(stop - a)};
            a = stop;
        }
    }
    *out = r;
    *nout = n;
    return FL_OK;
}

static uint8_t pick_kind(uint32_t card, uint32_t nruns)
{
    size_t run_bytes = 2 + 4 * (size_t)nruns;
    size_t other = card <= ARRAY_MAX ? 2 * (size_t)card : 8192;
    if (run_bytes < other)
        return 2;
    return card <= ARRAY_MAX ? 0 : 1;
}

static void put_container(obuf *b, const run *r, const cont *c)
{
    if (c->kind == 2) {
        put_le(b, c->nruns, 2);
        for (uint32_t i = 0; i < c->nruns; i++) {
            put_le(b, r[c->first + i].lo, 2);
            put_le(b, r[c->first + i].len - 1, 2);
        }
    } else if (c->kind == 0) {
        for (uint32_t i = 0; i < c->nruns; i++)
            for (uint32_t v = 0; v < r[c->first + i].len; v++)
                put_le(b, r[c->first + i].lo + v, 2);
    } else {
        uint8_t *words = obuf_grow(b, 8192);
        if (!words)
            return;
        memset(words, 0, 8192);
        for (uint32_t i = 0; i < c->nruns; i++)
            for (uint32_t v = 0; v < r[c->first + i].len; v++) {
                uint32_t bit = r[c->first + i].lo + v;
                words[bit >> 3] |= (uint8_t)(1u << (bit & 7));
            }
    }
}

/* Serializes the containers cs[0..n) of one 32-bit key. */
static void put_bitmap32(obuf *b, const run *r, const cont *cs, uint32_t n)
{
    size_t start = b->len;
    bool any_run = false;
    for (uint32_t i = 0; i < n; i++)
        any_run |= cs[i].kind == 2;
    bool offsets = !any_run || n >= NO_OFFSET_THRESHOLD;
    if (any_run) {
        put_le(b, COOKIE_RUN | ((uint32_t)(n - 1) << 16), 4);
        uint8_t *flags = obuf_grow(b, (n + 7) / 8);
        if (flags) {
            memset(flags, 0, (n + 7) / 8);
            for (uint32_t i = 0; i < n; i++)
                if (cs[i].kind == 2)
                    flags[i / 8] |= (uint8_t)(1u << (i % 8));
        }
    } else {
        put_le(b, COOKIE_NO_RUN, 4);
        put_le(b, n, 4);
    }
    for (uint32_t i = 0; i < n; i++) {
        put_le(b, cs[i].key, 2);
        put_le(b, cs[i].card - 1, 2);
    }
    size_t off_at = b->len;
    if (offsets)
        obuf_grow(b, 4 * (size_t)n);
    for (uint32_t i = 0; i < n && !b->oom; i++) {
        if (offsets)
            set_le32(b, off_at + 4 * i, (uint32_t)(b->len - start));
        put_container(b, r, &cs[i]);
    }
}

fl_status ice_roaring64_encode(const fl_ice_position_set *s, uint8_t **out, size_t *len,
                               fl_error *err)
{
    *out = NULL;
    *len = 0;
    run *r = NULL;
    size_t nr = 0;
    FL_TRY(split_runs(s, &r, &nr, err));
    cont *cs = malloc((nr + 1) * sizeof *cs);
    obuf b = {0};
    if (!cs) {
        free(r);
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    uint32_t nc = 0;
    for (size_t i = 0; i < nr;) {
        size_t j = i;
        uint32_t card = 0;
        while (j < nr && r[j].hi48 == r[i].hi48)
            card += r[j++].len;
        cs[nc] = (cont){(uint32_t)i, (uint32_t)(j - i), card, (uint16_t)(r[i].hi48 & 0xffffu), 0};
        cs[nc].kind = pick_kind(card, cs[nc].nruns);
        nc++;
        i = j;
    }
    uint64_t nkeys = 0;
    for (uint32_t i = 0; i < nc; i++)
        nkeys += i == 0 || (r[cs[i].first].hi48 >> 16) != (r[cs[i - 1].first].hi48 >> 16);
    put_le(&b, nkeys, 8);
    for (uint32_t i = 0; i < nc;) {
        uint64_t key = r[cs[i].first].hi48 >> 16;
        uint32_t j = i;
        while (j < nc && (r[cs[j].first].hi48 >> 16) == key)
            j++;
        put_le(&b, key, 4);
        put_bitmap32(&b, r, cs + i, j - i);
        i = j;
    }
    free(cs);
    free(r);
    if (b.oom) {
        free(b.p);
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    *out = b.p;
    *len = b.len;
    return FL_OK;
}
