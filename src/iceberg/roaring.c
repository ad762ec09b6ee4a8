/*
 * roaring.c - position sets and a decoder for the Roaring "portable 64-bit"
 * serialization that Iceberg deletion vectors use (puffin-spec.md,
 * "deletion-vector-v1").
 *
 * Why our own decoder: Debian 12's libroaring-dev (0.2.x, 2019) lacks the
 * portable 64-bit format, and we only need decoding into sorted ranges,
 * which is ~150 lines.
 *
 * Layout (all little-endian):
 *   u64 nbitmaps
 *   nbitmaps x { u32 key (high 32 bits, ascending),
 *                32-bit portable roaring bitmap }
 * 32-bit portable roaring (RoaringFormatSpec):
 *   u32 cookie: low 16 bits 12347 (SERIAL_COOKIE, run containers possible;
 *       high 16 bits = ncontainers - 1, then ceil(n/8) bytes of run flags)
 *     or exactly 12346 (SERIAL_COOKIE_NO_RUNCONTAINER, then u32 ncontainers)
 *   n x { u16 key, u16 cardinality - 1 }
 *   offsets: n x u32 (absent when cookie 12347 and n < 4)
 *   containers in order: run (u16 nruns, nruns x {u16 start, u16 len-1}),
 *     array (card x u16, when card <= 4096), bitmap (1024 x u64).
 * We read containers sequentially (offsets are only checked for bounds), so
 * the decoder is O(size of input).
 *
 * A position set is sorted disjoint [start, end) ranges (malloc'd array);
 * fl_ice_position_set_free frees it.
 */
#include <stdlib.h>
#include <string.h>

#include "iceberg/scan_internal.h"

#define SERIAL_COOKIE_NO_RUN 12346u
#define SERIAL_COOKIE 12347u
#define NO_OFFSET_THRESHOLD 4u

void fl_ice_position_set_free(fl_ice_position_set *s)
{
    if (!s)
        return;
    free(s->ranges);
    memset(s, 0, sizeof *s);
}

bool fl_ice_position_set_contains(const fl_ice_position_set *s, uint64_t pos)
{
    uint64_t lo = 0, hi = s->nranges;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (s->ranges[2 * mid + 1] <= pos)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->nranges && s->ranges[2 * lo] <= pos;
}

fl_status ice_pos_add_range(ice_posbuilder *b, uint64_t start, uint64_t end, fl_error *err)
{
    fl_ice_position_set *s = b->s;
    if (end <= start)
        return FL_OK;
    if (s->nranges > 0) {
        uint64_t *last = &s->ranges[2 * (s->nranges - 1)];
        if (start < last[1])
            return fl_errorf(err, FL_ECORRUPT, "positions not ascending at %llu",
                             (unsigned long long)start);
        if (start == last[1]) {
            last[1] = end;
            s->n += end - start;
            return FL_OK;
        }
    }
    if (s->nranges == b->cap) {
        uint64_t nc = b->cap ? b->cap * 2 : 16;
        uint64_t *r = realloc(s->ranges, (size_t)nc * 2 * sizeof *r);
        if (!r)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        s->ranges = r;
        b->cap = nc;
    }
    s->ranges[2 * s->nranges] = start;
    s->ranges[2 * s->nranges + 1] = end;
    s->nranges++;
    s->n += end - start;
    return FL_OK;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

fl_status ice_pos_from_array(uint64_t *pos, size_t n, fl_ice_position_set *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    if (n > 1)
        qsort(pos, n, sizeof *pos, cmp_u64);
    ice_posbuilder b = {out, 0};
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && (pos[j] == pos[j - 1] || pos[j] == pos[j - 1] + 1))
            j++;
        fl_status rc = ice_pos_add_range(&b, pos[i], pos[j - 1] + 1, err);
        if (rc != FL_OK) {
            fl_ice_position_set_free(out);
            return rc;
        }
        i = j;
    }
    return FL_OK;
}

fl_status ice_pos_union(const fl_ice_position_set *a, const fl_ice_position_set *b,
                        fl_ice_position_set *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    ice_posbuilder pb = {out, 0};
    uint64_t i = 0, j = 0;
    bool have = false;
    uint64_t cs = 0, ce = 0;
    while (i < a->nranges || j < b->nranges) {
        const uint64_t *r;
        if (j >= b->nranges || (i < a->nranges && a->ranges[2 * i] <= b->ranges[2 * j]))
            r = &a->ranges[2 * i++];
        else
            r = &b->ranges[2 * j++];
        if (have && r[0] <= ce) {
            if (r[1] > ce)
                ce = r[1];
            continue;
        }
        if (have) {
            fl_status rc = ice_pos_add_range(&pb, cs, ce, err);
            if (rc != FL_OK) {
                fl_ice_position_set_free(out);
                return rc;
            }
        }
        cs = r[0], ce = r[1], have = true;
    }
    if (have) {
        fl_status rc = ice_pos_add_range(&pb, cs, ce, err);
        if (rc != FL_OK) {
            fl_ice_position_set_free(out);
            return rc;
        }
    }
    return FL_OK;
}

/* ---- decoding ---- */

typedef struct rd {
    const uint8_t *p;
    size_t len, off;
} rd;

static bool need(const rd *r, size_t n)
{
    return r->len - r->off >= n;
}
static uint16_t u16le(const uint8_t *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}
static uint32_t u32le(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static uint64_t u64le(const uint8_t *p)
{
    return (uint64_t)u32le(p) | ((uint64_t)u32le(p + 4) << 32);
}

static fl_status trunc_err(fl_error *err, const rd *r, const char *what)
{
    return fl_errorf(err, FL_ECORRUPT, "roaring bitmap: truncated %s at offset %zu", what, r->off);
}

/* One 32-bit bitmap whose positions get high bits `hi`. */
static fl_status decode32(rd *r, uint64_t hi, ice_posbuilder *b, fl_error *err)
{
    if (!need(r, 4))
        return trunc_err(err, r, "cookie");
    uint32_t cookie = u32le(r->p + r->off);
    r->off += 4;
    uint32_t n;
    const uint8_t *runflags = NULL;
    bool has_offsets;
    if ((cookie & 0xFFFF) == SERIAL_COOKIE) {
        n = (cookie >> 16) + 1;
        size_t fb = (n + 7) / 8;
        if (!need(r, fb))
            return trunc_err(err, r, "run flags");
        runflags = r->p + r->off;
        r->off += fb;
        has_offsets = n >= NO_OFFSET_THRESHOLD;
    } else if (cookie == SERIAL_COOKIE_NO_RUN) {
        if (!need(r, 4))
            return trunc_err(err, r, "container count");
        n = u32le(r->p + r->off);
        r->off += 4;
        has_offsets = true;
    } else {
        return fl_errorf(err, FL_ECORRUPT, "roaring bitmap: bad cookie %u at offset %zu", cookie,
                         r->off - 4);
    }
    if (n > 65536)
        return fl_errorf(err, FL_ECORRUPT, "roaring bitmap: %u containers", n);
    if (!need(r, (size_t)n * 4))
        return trunc_err(err, r, "container headers");
    const uint8_t *hdr = r->p + r->off;
    r->off += (size_t)n * 4;
    if (has_offsets) {
        if (!need(r, (size_t)n * 4))
            return trunc_err(err, r, "container offsets");
        r->off += (size_t)n * 4;
    }
    int32_t prev_key = -1;
    for (uint32_t c = 0; c < n; c++) {
        uint32_t key = u16le(hdr + 4 * c);
        uint32_t card = (uint32_t)u16le(hdr + 4 * c + 2) + 1;
        if ((int32_t)key <= prev_key)
            return fl_errorf(err, FL_ECORRUPT, "roaring bitmap: container keys not ascending");
        prev_key = (int32_t)key;
        uint64_t base = hi | ((uint64_t)key << 16);
        bool run = runflags && ((runflags[c / 8] >> (c % 8)) & 1);
        if (run) {
            if (!need(r, 2))
                return trunc_err(err, r, "run count");
            uint32_t nruns = u16le(r->p + r->off);
            r->off += 2;
            if (!need(r, (size_t)nruns * 4))
                return trunc_err(err, r, "runs");
            for (uint32_t k = 0; k < nruns; k++) {
                uint32_t st = u16le(r->p + r->off), ln = u16le(r->p + r->off + 2);
                r->off += 4;
                if (st + ln > 0xFFFF)
                    return fl_errorf(err, FL_ECORRUPT, "roaring bitmap: run past container end");
                FL_TRY(ice_pos_add_range(b, base + st, base + st + ln + 1, err));
            }
        } else if (card <= 4096) {
            if (!need(r, (size_t)card * 2))
                return trunc_err(err, r, "array container");
            const uint8_t *a = r->p + r->off;
            r->off += (size_t)card * 2;
            for (uint32_t k = 0; k < card;) {
                uint32_t v = u16le(a + 2 * k), e = v + 1;
                uint32_t j = k + 1;
                while (j < card && u16le(a + 2 * j) == e)
                    e++, j++;
                FL_TRY(ice_pos_add_range(b, base + v, base + e, err));
                k = j;
            }
        } else {
            if (!need(r, 8192))
                return trunc_err(err, r, "bitmap container");
            const uint8_t *w = r->p + r->off;
            r->off += 8192;
            uint64_t got = 0;
            for (uint32_t k = 0; k < 1024; k++) {
                uint64_t word = u64le(w + 8 * k);
                while (word) {
                    int bit = __builtin_ctzll(word);
                    /* extend over a run of set bits */
                    uint64_t shifted = word >> bit;
                    int run = shifted == ~0ull ? 64 - bit : __builtin_ctzll(~shifted);
                    uint64_t st = base + (uint64_t)k * 64 + (uint64_t)bit;
                    FL_TRY(ice_pos_add_range(b, st, st + (uint64_t)run, err));
                    got += (uint64_t)run;
                    word = run + bit >= 64 ? 0 : word & ~(((1ull << run) - 1) << bit);
                }
            }
            if (got != card)
                return fl_errorf(
                    err, FL_ECORRUPT,
                    "roaring bitmap: bitmap container holds %llu values, header says %u",
                    (unsigned long long)got, card);
        }
    }
    return FL_OK;
}

fl_status ice_roaring64_decode(const uint8_t *buf, size_t len, fl_ice_position_set *out,
                               fl_error *err)
{
    memset(out, 0, sizeof *out);
    rd r = {buf, len, 0};
    if (!need(&r, 8))
        return trunc_err(err, &r, "bitmap count");
    uint64_t nb = u64le(buf);
    r.off = 8;
    if (nb > len / 8)
        return fl_errorf(err, FL_ECORRUPT, "roaring bitmap: %llu bitmaps in %zu bytes",
                         (unsigned long long)nb, len);
    ice_posbuilder b = {out, 0};
    int64_t prev = -1;
    for (uint64_t i = 0; i < nb; i++) {
        if (!need(&r, 4)) {
            fl_ice_position_set_free(out);
            return trunc_err(err, &r, "bitmap key");
        }
        uint32_t key = u32le(buf + r.off);
        r.off += 4;
        if ((int64_t)key <= prev) {
            fl_ice_position_set_free(out);
            return fl_errorf(err, FL_ECORRUPT, "roaring bitmap: keys not ascending at bitmap %llu",
                             (unsigned long long)i);
        }
        prev = key;
        fl_status rc = decode32(&r, (uint64_t)key << 32, &b, err);
        if (rc != FL_OK) {
            fl_ice_position_set_free(out);
            return rc;
        }
    }
    if (r.off != len) {
        fl_ice_position_set_free(out);
        return fl_errorf(err, FL_ECORRUPT, "roaring bitmap: %zu trailing bytes", len - r.off);
    }
    return FL_OK;
}
