/*
 * ht.c - the group hash table shared by aggregation, DISTINCT and set
 * operations, plus ex_parallel_for.
 *
 * Layout: open addressing with linear probing over a power-of-two array of
 * uint64 slots (the hash's high 32 bits << 32 | group id + 1, 0 = empty),
 * kept at most half full; the slot index comes from the hash's low bits, so
 * the tag in the slot rejects most collisions without touching the group's
 * stored hash or keys (two cache misses each at millions of groups). Each group
 * stores its 64-bit hash (compared before any key), its key values in a
 * dense ex_rows (FLAT columns, FL_BATCH_CAP groups per batch, so group g is
 * batch g / CAP row g % CAP), and a fixed-size payload (aggregate states or
 * counters) in blocks of FL_BATCH_CAP payloads, 16-byte aligned. NULL keys
 * are equal to each other (SQL grouping). Growing rehashes from the stored
 * hashes, never from keys.
 *
 * Ownership: the table owns keys, hashes, payload blocks and slots; payload
 * contents that own memory (aggregate states) are destroyed by the user
 * before ex_ht_free.
 */
#include <stdlib.h>
#include <string.h>

#include "sql/exec/exec_internal.h"

void ex_ht_init(ex_ht *h, fl_exec *x, const fl_schema *kschema, uint32_t payload)
{
    memset(h, 0, sizeof *h);
    h->x = x;
    h->kschema = kschema;
    h->nkeys = kschema->nfields;
    h->payload = (payload + 15) & ~15u;
    ex_rows_init(&h->keys, kschema);
    if (h->nkeys && kschema->fields[0].type.id != FL_TYPE_STRING &&
        kschema->fields[0].type.id != FL_TYPE_BINARY)
        h->key0_width = (uint32_t)fl_type_width(&kschema->fields[0].type);
}

void ex_ht_free(ex_ht *h)
{
    ex_rows_free(h->x, &h->keys);
    for (uint32_t i = 0; i < h->nblocks; i++)
        free(h->blocks[i]);
    free(h->blocks);
    free(h->hashes);
    free(h->slots);
    if (h->x && h->bytes)
        atomic_fetch_sub(&h->x->mem_used, (long long)h->bytes);
    memset(h, 0, sizeof *h);
}

static fl_status account(ex_ht *h, uint64_t bytes, fl_error *err)
{
    h->bytes += bytes;
    return h->x ? ex_mem_add(h->x, (int64_t)bytes, "hash table", err) : FL_OK;
}

#define TAG_MASK 0xFFFFFFFF00000000ull

static fl_status resize_slots(ex_ht *h, uint64_t n, fl_error *err)
{
    if (n > ((uint64_t)1 << 33))
        return fl_errorf(err, FL_ELIMIT, "hash table: too many groups");
    uint64_t *s = ex_calloc_big(n, sizeof *s);
    if (!s)
        return fl_errorf(err, FL_ENOMEM, "hash table: out of memory for %llu slots",
                         (unsigned long long)n);
    uint64_t mask = n - 1;
    for (uint32_t g = 0; g < h->ngroups; g++) {
        uint64_t hv = h->hashes[g];
        uint64_t i = hv & mask;
        if (g + EX_HT_PREFETCH_AHEAD < h->ngroups)
            __builtin_prefetch(&s[h->hashes[g + EX_HT_PREFETCH_AHEAD] & mask], 1);
        while (s[i])
            i = (i + 1) & mask;
        s[i] = (hv & TAG_MASK) | (g + 1);
    }
    uint64_t old = h->slots ? (h->mask + 1) * sizeof *s : 0;
    free(h->slots);
    h->slots = s;
    h->mask = mask;
    if (h->x) {
        atomic_fetch_sub(&h->x->mem_used, (long long)old);
        h->bytes -= old;
    }
    return account(h, n * sizeof *s, err);
}

static fl_status grow_slots(ex_ht *h, fl_error *err)
{
    return resize_slots(h, h->slots ? (h->mask + 1) * 2 : 1024, err);
}

static fl_status reserve_hashes(ex_ht *h, uint64_t n, fl_error *err)
{
    if (n <= h->hashes_cap)
        return FL_OK;
    if (n >= UINT32_MAX - 1)
        return fl_errorf(err, FL_ELIMIT, "hash table: more than 4 billion groups");
    uint64_t *nh = realloc(h->hashes, (size_t)n * sizeof *nh);
    if (!nh)
        return fl_errorf(err, FL_ENOMEM, "hash table: out of memory");
    h->hashes = nh;
    FL_TRY(account(h, (n - h->hashes_cap) * 8, err));
    h->hashes_cap = (uint32_t)n;
    return FL_OK;
}

/* Sizes slots and the per-group hash array for n groups (no rehash or
 * realloc copy while they are added). */
fl_status ex_ht_reserve(ex_ht *h, uint64_t n, fl_error *err)
{
    if (n > 1024)
        FL_TRY(reserve_hashes(h, n, err));
    uint64_t want = 1024;
    while (want < n * 2 + 2)
        want *= 2;
    if (h->slots && h->mask + 1 >= want)
        return FL_OK;
    return resize_slots(h, want, err);
}

static fl_status add_group(ex_ht *h, const fl_unified *ku, const fl_vector *const *kv,
                           uint32_t row, uint64_t hv, fl_error *err)
{
    (void)kv;
    uint32_t g = h->ngroups;
    if (g == UINT32_MAX - 1)
        return fl_errorf(err, FL_ELIMIT, "hash table: more than 4 billion groups");
    if (g == h->hashes_cap)
        FL_TRY(reserve_hashes(h, h->hashes_cap ? (uint64_t)h->hashes_cap * 2 : 1024, err));
    if (h->payload && g / FL_BATCH_CAP == h->nblocks) {
        if (h->nblocks == h->blocks_cap) {
            uint32_t ncap = h->blocks_cap ? h->blocks_cap * 2 : 16;
            uint8_t **nb = realloc(h->blocks, (size_t)ncap * sizeof *nb);
            if (!nb)
                return fl_errorf(err, FL_ENOMEM, "hash table: out of memory");
            h->blocks = nb;
            h->blocks_cap = ncap;
        }
        size_t sz = (size_t)FL_BATCH_CAP * h->payload;
        uint8_t *blk = aligned_alloc(16, sz);
        if (!blk)
            return fl_errorf(err, FL_ENOMEM, "hash table: out of memory for states");
        memset(blk, 0, sz);
        h->blocks[h->nblocks++] = blk;
        FL_TRY(account(h, sz, err));
    }
    /* key row: append to the last (dense) key batch */
    ex_rows *k = &h->keys;
    if (h->nkeys) {
        if (k->n == 0 || k->b[k->n - 1]->nrows == FL_BATCH_CAP) {
            const fl_vector *none[1] = {NULL};
            (void)none;
            /* create the next batch through a zero-row append path */
            if (k->n == k->cap) {
                uint32_t ncap = k->cap ? k->cap * 2 : 8;
                fl_batch **nb = realloc(k->b, (size_t)ncap * sizeof *nb);
                if (!nb)
                    return fl_errorf(err, FL_ENOMEM, "out of memory");
                k->b = nb;
                k->cap = ncap;
            }
            fl_batch *b = calloc(1, sizeof *b);
            if (!b)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            fl_status rc = fl_batch_init(b, k->schema, err);
            if (rc) {
                free(b);
                return rc;
            }
            k->b[k->n++] = b;
            /* key columns (offsets of strings) sized for the whole batch at once
             * (growing them by doubling copied every key several times) */
            for (uint32_t c = 0; c < h->nkeys; c++)
                if (!fl_type_is_nested(b->cols[c].type))
                    FL_TRY(fl_vector_reserve(&b->cols[c], FL_BATCH_CAP, err));
            uint64_t est = (uint64_t)FL_BATCH_CAP * 16 * h->nkeys;
            k->bytes += est;
            FL_TRY(account(h, 0, err));
            if (h->x)
                FL_TRY(ex_mem_add(h->x, (int64_t)est, "hash table keys", err));
        }
        fl_batch *b = k->b[k->n - 1];
        for (uint32_t c = 0; c < h->nkeys; c++)
            FL_TRY(ex_vec_append_one(&b->cols[c], &ku[c], row, err));
        b->nrows++;
        k->rows++;
    }
    h->hashes[g] = hv;
    h->ngroups++;
    return FL_OK;
}

/* Row ra of a equals row rb of the stored (FLAT) key column b; NULLs are
 * equal to each other. Integer, date/time, decimal and string keys are
 * compared inline; floats (NaN, -0.0) and the rest through ex_value_eq. */
static inline bool key_eq(const fl_unified *a, uint32_t ra, const fl_vector *b, uint32_t rb, const fl_type *t)
{
    bool va = fl_unified_is_valid(a, ra), vb = fl_vector_is_valid(b, rb);
    if (!va || !vb)
        return va == vb;
    const fl_vector *ab = a->base;
    uint32_t xa = fl_unified_row(a, ra);
    switch (t->id) {
    case FL_TYPE_INT32:
    case FL_TYPE_DATE: {
        int32_t x, y;
        memcpy(&x, ab->data + (size_t)xa * 4, 4);
        memcpy(&y, b->data + (size_t)rb * 4, 4);
        return x == y;
    }
    case FL_TYPE_INT64:
    case FL_TYPE_TIME:
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ:
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS: {
        int64_t x, y;
        memcpy(&x, ab->data + (size_t)xa * 8, 8);
        memcpy(&y, b->data + (size_t)rb * 8, 8);
        return x == y;
    }
    case FL_TYPE_DECIMAL:
    case FL_TYPE_UUID: return memcmp(ab->data + (size_t)xa * 16, b->data + (size_t)rb * 16, 16) == 0;
    case FL_TYPE_STRING:
    case FL_TYPE_BINARY: {
        int64_t la = ab->offsets[xa + 1] - ab->offsets[xa], lb = b->offsets[rb + 1] - b->offsets[rb];
        if (la != lb)
            return false;
        const uint8_t *pa = ab->heap + ab->offsets[xa], *pb = b->heap + b->offsets[rb];
        if (la <= 8) {
            for (int64_t i = 0; i < la; i++)
                if (pa[i] != pb[i])
                    return false;
            return true;
        }
        return memcmp(pa, pb, (size_t)la) == 0;
    }
    default: {
        fl_unified su = {.base = b};
        return ex_value_eq(a, ra, &su, rb, t);
    }
    }
}

fl_status ex_ht_find(ex_ht *h, const fl_unified *ku, const fl_vector *const *kv, uint32_t row,
                     uint64_t hv, bool add, uint32_t *gid, bool *added, fl_error *err)
{
    *added = false;
    if (!h->slots) {
        if (!add) {
            *gid = UINT32_MAX;
            return FL_OK;
        }
        FL_TRY(grow_slots(h, err));
    }
    uint64_t i = hv & h->mask, tag = hv & TAG_MASK;
    for (;;) {
        uint64_t s = h->slots[i];
        if (!s)
            break;
        uint32_t g = (uint32_t)s - 1;
        /* the tag (the hash's high 32 bits) rejects nearly every other group;
         * comparing the full hash too would cost one more cache miss per
         * lookup (hashes[] is one more array), so the keys decide */
        if ((s & TAG_MASK) == tag) {
            bool eq = true;
            if (h->nkeys) {
                const fl_batch *b = h->keys.b[g / FL_BATCH_CAP];
                uint32_t r = g % FL_BATCH_CAP;
                for (uint32_t c = 0; c < h->nkeys && eq; c++)
                    eq = key_eq(&ku[c], row, &b->cols[c], r, &h->kschema->fields[c].type);
            }
            if (eq) {
                *gid = g;
                return FL_OK;
            }
        }
        i = (i + 1) & h->mask;
    }
    if (!add) {
        *gid = UINT32_MAX;
        return FL_OK;
    }
    uint32_t g = h->ngroups;
    FL_TRY(add_group(h, ku, kv, row, hv, err));
    h->slots[i] = tag | (g + 1);
    *gid = g;
    *added = true;
    if ((uint64_t)h->ngroups * 2 > h->mask + 1)
        FL_TRY(grow_slots(h, err));
    return FL_OK;
}

void ex_ht_group_keys(const ex_ht *h, uint32_t g, fl_unified *ku, const fl_vector **kv,
                      uint32_t *row)
{
    *row = g % FL_BATCH_CAP;
    if (!h->nkeys)
        return;
    const fl_batch *b = h->keys.b[g / FL_BATCH_CAP];
    for (uint32_t c = 0; c < h->nkeys; c++) {
        memset(&ku[c], 0, sizeof ku[c]);
        ku[c].base = &b->cols[c];
        if (kv)
            kv[c] = &b->cols[c];
    }
}

/* ---- parallel for ---- */

typedef struct pfor {
    fl_exec *x;
    uint32_t n;
    atomic_uint next;
    fl_status (*fn)(void *ctx, uint32_t i, fl_error *err);
    void *ctx;
    pthread_mutex_t mu;
    fl_error err;
} pfor;

static void *pfor_main(void *arg)
{
    pfor *p = arg;
    fl_error err = {0};
    for (;;) {
        if (ex_check(p->x, &err) != FL_OK)
            break;
        unsigned i = atomic_fetch_add(&p->next, 1);
        if (i >= p->n)
            break;
        fl_status rc = p->fn(p->ctx, i, &err);
        if (rc) {
            pthread_mutex_lock(&p->mu);
            if (!p->err.code)
                p->err = err;
            pthread_mutex_unlock(&p->mu);
            atomic_store(&p->x->failed, 1);
            pthread_mutex_lock(&p->x->mu);
            if (!p->x->err.code)
                p->x->err = err;
            pthread_mutex_unlock(&p->x->mu);
            break;
        }
    }
    return NULL;
}

fl_status ex_parallel_for(fl_exec *x, uint32_t n, fl_status (*fn)(void *ctx, uint32_t i, fl_error *err),
                          void *ctx, fl_error *err)
{
    pfor p = {.x = x, .n = n, .fn = fn, .ctx = ctx};
    pthread_mutex_init(&p.mu, NULL);
    uint32_t t = x->threads < n ? x->threads : n;
    if (t <= 1) {
        pfor_main(&p);
    } else {
        pthread_t *ids = calloc(t, sizeof *ids);
        bool *ok = calloc(t, sizeof *ok);
        if (!ids || !ok) {
            free(ids);
            free(ok);
            pthread_mutex_destroy(&p.mu);
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        }
        for (uint32_t i = 0; i < t; i++)
            ok[i] = pthread_create(&ids[i], NULL, pfor_main, &p) == 0;
        bool any = false;
        for (uint32_t i = 0; i < t; i++)
            if (ok[i]) {
                pthread_join(ids[i], NULL);
                any = true;
            }
        if (!any)
            pfor_main(&p);
        free(ids);
        free(ok);
    }
    pthread_mutex_destroy(&p.mu);
    if (p.err.code) {
        if (err)
            *err = p.err;
        return p.err.code;
    }
    return ex_check(x, err);
}
