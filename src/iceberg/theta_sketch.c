/*
 * theta_sketch.c - the theta sketch of Apache DataSketches (KMV with
 * QuickSelect), written from the library's documented format, for Iceberg's
 * apache-datasketches-theta-v1 NDV blobs (ice_stats.h).
 *
 * Update: a value's bytes are hashed with MurmurHash3_x64_128 and the seed
 * (murmur3_128.c); the sketch hash is h[0] >> 1. Hashes 0 or >= theta are
 * dropped. The rest go into an open-addressing table of 2^(lg_k+1) slots
 * (linear probing, 0 = free; duplicates are found and ignored). When the
 * table holds more than 15/16 of its slots, it is rebuilt: theta becomes
 * the (k+1)-th smallest hash (quickselect), and the k = 2^lg_k hashes below
 * it stay. Estimate = retained / (theta / INT64_MAX) (exact while theta is
 * still INT64_MAX: exact for up to 15/16 * 2k distinct values).
 *
 * Compact serialization (little-endian, serial version 3, family 3 =
 * compact; flags: 1 read-only, 2 empty, 3 compact, 4 ordered as bit numbers):
 *   byte 0 preamble longs, 1 serial version 3, 2 family 3, 3-4 zero
 *   (lg sizes are not kept by compact sketches), 5 flags, 6-7 seed hash
 *   empty:          preamble longs 1, flags 0x1E, seed hash 0 (Java's
 *                   EmptyCompactSketch; empty sketches are seed-free)
 *   one hash, exact: preamble longs 1, flags 0x1A, then the hash (16 bytes,
 *                   Java's SingleItemSketch)
 *   exact:          preamble longs 2, flags 0x1A, bytes 8-11 count, 12-15
 *                   zero, then the hashes ascending
 *   estimating:     preamble longs 3, as exact plus theta at bytes 16-23
 */
#include <stdlib.h>
#include <string.h>

#include "floe/ice_stats.h"

struct fl_theta_sketch {
    uint8_t lg_k;
    uint64_t seed;
    uint64_t theta;
    bool empty;
    uint32_t nslots, count, limit;
    uint64_t *slots;
    uint64_t *scratch; /* rebuild: nslots entries */
};

fl_status fl_theta_new(uint8_t lg_k, uint64_t seed, fl_theta_sketch **out, fl_error *err)
{
    *out = NULL;
    if (lg_k < 4 || lg_k > 26)
        return fl_errorf(err, FL_EINVAL, "theta sketch: lg_k %u is outside [4, 26]", lg_k);
    fl_theta_sketch *s = calloc(1, sizeof *s);
    uint32_t n = 1u << (lg_k + 1);
    if (s) {
        s->slots = calloc(n, sizeof *s->slots);
        s->scratch = malloc((size_t)n * sizeof *s->scratch);
    }
    if (!s || !s->slots || !s->scratch) {
        fl_theta_free(s);
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    s->lg_k = lg_k;
    s->seed = seed;
    s->theta = FL_THETA_MAX;
    s->empty = true;
    s->nslots = n;
    s->limit = (uint32_t)(((uint64_t)n * 15) / 16);
    *out = s;
    return FL_OK;
}

void fl_theta_free(fl_theta_sketch *s)
{
    if (!s)
        return;
    free(s->slots);
    free(s->scratch);
    free(s);
}

/* true when h was not in the table (and now is) */
static bool insert(fl_theta_sketch *s, uint64_t h)
{
    uint32_t mask = s->nslots - 1, i = (uint32_t)(h ^ (h >> 32)) & mask;
    while (s->slots[i]) {
        if (s->slots[i] == h)
            return false;
        i = (i + 1) & mask;
    }
    s->slots[i] = h;
    s->count++;
    return true;
}

static uint32_t gather(const fl_theta_sketch *s, uint64_t *out)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->nslots; i++)
        if (s->slots[i])
            out[n++] = s->slots[i];
    return n;
}

static void swap64(uint64_t *a, uint64_t *b)
{
    uint64_t t = *a;
    *a = *b;
    *b = t;
}

/* Leaves the k-th smallest (0-based) of a[0..n) at a[k], smaller ones before. */
static void quickselect(uint64_t *a, uint32_t n, uint32_t k)
{
    uint32_t lo = 0, hi = n - 1;
    while (lo < hi) {
        swap64(&a[lo + (hi - lo) / 2], &a[hi]);
        uint64_t pivot = a[hi];
        uint32_t st = lo;
        for (uint32_t i = lo; i < hi; i++)
            if (a[i] < pivot)
                swap64(&a[i], &a[st++]);
        swap64(&a[st], &a[hi]);
        if (st == k)
            return;
        if (st < k)
            lo = st + 1;
        else
            hi = st - 1;
    }
}

static void rebuild(fl_theta_sketch *s)
{
    uint32_t n = gather(s, s->scratch), k = 1u << s->lg_k;
    quickselect(s->scratch, n, k);
    s->theta = s->scratch[k];
    memset(s->slots, 0, (size_t)s->nslots * sizeof *s->slots);
    s->count = 0;
    for (uint32_t i = 0; i < k; i++)
        insert(s, s->scratch[i]);
}

void fl_theta_update_hash(fl_theta_sketch *s, uint64_t hash)
{
    s->empty = false;
    if (hash == 0 || hash >= s->theta)
        return;
    if (insert(s, hash) && s->count > s->limit)
        rebuild(s);
}

void fl_theta_update(fl_theta_sketch *s, const void *data, size_t len)
{
    if (!len)
        return;
    uint64_t h[2];
    fl_murmur3_x64_128(data, len, s->seed, h);
    fl_theta_update_hash(s, h[0] >> 1);
}

fl_status fl_theta_update_value(fl_theta_sketch *s, const fl_value *v, fl_error *err)
{
    if (v->is_null)
        return FL_OK;
    uint8_t buf[16];
    const uint8_t *p = NULL;
    size_t len = 0;
    FL_TRY(fl_ice_value_to_bytes(v, buf, sizeof buf, &p, &len, err));
    fl_theta_update(s, p, len);
    return FL_OK;
}

bool fl_theta_is_empty(const fl_theta_sketch *s)
{
    return s->empty;
}
uint64_t fl_theta_theta(const fl_theta_sketch *s)
{
    return s->theta;
}
uint32_t fl_theta_retained(const fl_theta_sketch *s)
{
    return s->count;
}

double fl_theta_estimate(const fl_theta_sketch *s)
{
    double theta = (double)s->theta / (double)FL_THETA_MAX;
    return (double)s->count / theta;
}

static int cmp64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void put_le(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

fl_status fl_theta_serialize(const fl_theta_sketch *s, uint8_t **out, size_t *len, fl_error *err)
{
    bool est = !s->empty && s->theta < FL_THETA_MAX;
    uint32_t n = s->empty ? 0 : s->count;
    uint8_t pre = est ? 3 : (n <= 1 ? 1 : 2);
    size_t size = (size_t)pre * 8 + (size_t)n * 8;
    uint8_t *b = calloc(1, size);
    if (!b)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    b[0] = pre;
    b[1] = 3;
    b[2] = 3;
    b[5] = (uint8_t)((1 << 1) | (1 << 3) | (1 << 4) | (s->empty ? 1 << 2 : 0));
    put_le(b + 6, s->empty ? 0 : fl_theta_seed_hash(s->seed), 2);
    if (pre >= 2)
        put_le(b + 8, n, 4);
    if (pre == 3)
        put_le(b + 16, s->theta, 8);
    uint64_t *h = n ? malloc((size_t)n * sizeof *h) : NULL;
    if (n && !h) {
        free(b);
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    uint32_t got = n ? gather(s, h) : 0;
    if (got)
        qsort(h, got, sizeof *h, cmp64);
    for (uint32_t i = 0; i < got; i++)
        put_le(b + pre * 8 + (size_t)i * 8, h[i], 8);
    free(h);
    *out = b;
    *len = size;
    return FL_OK;
}
