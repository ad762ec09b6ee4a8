/*
 * dict_builder.c - the dictionary of one column chunk: distinct values in
 * first-seen order, each mapped to a dense index for RLE_DICTIONARY pages.
 *
 * Entries are stored directly in their PLAIN encoding (parquet-format
 * Encodings.md: fixed-width values back to back; byte arrays as a 4-byte
 * little-endian length followed by the bytes), so the dictionary page body is
 * the buffer itself. An open-addressing table (linear probing, load <= 1/2)
 * of entry numbers finds duplicates; each entry keeps a 32-bit hash (from
 * XXH3_64bits) so that growth never rereads values and most mismatches are
 * rejected without a memcmp. No allocation per value: all arrays grow by
 * doubling and are kept across row groups by fl_pqw_dict_reset().
 */
#include <stdlib.h>
#include <string.h>
#define XXH_INLINE_ALL /* inline XXH3 for the short keys hashed here */
#include <xxhash.h>

#include "parquet/writer_int.h"

#define INITIAL_SLOTS 1024u

fl_status fl_pqw_dict_init(fl_pqw_dict *d, uint32_t width, fl_error *err)
{
    memset(d, 0, sizeof *d);
    d->width = width;
    d->slots = calloc(INITIAL_SLOTS, sizeof *d->slots);
    if (!d->slots)
        return fl_errorf(err, FL_ENOMEM, "out of memory for a dictionary");
    d->nslots = INITIAL_SLOTS;
    return FL_OK;
}

void fl_pqw_dict_reset(fl_pqw_dict *d)
{
    if (d->count)
        memset(d->slots, 0, sizeof *d->slots * d->nslots);
    d->count = 0;
    d->plain.len = 0;
}

void fl_pqw_dict_free(fl_pqw_dict *d)
{
    free(d->slots);
    free(d->starts);
    free(d->hashes);
    fl_buf_free(&d->plain);
    memset(d, 0, sizeof *d);
}

static inline const uint8_t *entry(const fl_pqw_dict *d, uint32_t i, uint32_t *len)
{
    if (d->width) {
        *len = d->width;
        return d->plain.bytes + (size_t)i * d->width;
    }
    const uint8_t *p = d->plain.bytes + d->starts[i];
    uint32_t l;
    memcpy(&l, p, 4);
    *len = l;
    return p + 4;
}

static fl_status grow_table(fl_pqw_dict *d, fl_error *err)
{
    uint32_t n = d->nslots * 2;
    uint32_t *s = calloc(n, sizeof *s);
    if (!s)
        return fl_errorf(err, FL_ENOMEM, "out of memory for a dictionary of %u entries", d->count);
    uint32_t mask = n - 1;
    for (uint32_t i = 0; i < d->count; i++) {
        uint32_t p = d->hashes[i] & mask;
        while (s[p])
            p = (p + 1) & mask;
        s[p] = i + 1;
    }
    free(d->slots);
    d->slots = s;
    d->nslots = n;
    return FL_OK;
}

static fl_status grow_entries(fl_pqw_dict *d, fl_error *err)
{
    uint32_t n = d->entries_cap ? d->entries_cap * 2 : 256;
    uint32_t *h = realloc(d->hashes, sizeof *h * n);
    if (!h)
        return fl_errorf(err, FL_ENOMEM, "out of memory for a dictionary");
    d->hashes = h;
    if (!d->width) {
        uint32_t *s = realloc(d->starts, sizeof *s * n);
        if (!s)
            return fl_errorf(err, FL_ENOMEM, "out of memory for a dictionary");
        d->starts = s;
    }
    d->entries_cap = n;
    return FL_OK;
}

/* Adds a value known to be absent at slot p. */
static fl_status add_entry(fl_pqw_dict *d, const uint8_t *value, uint32_t len, uint32_t h,
                           uint32_t p, uint32_t *index, fl_error *err);

static inline uint32_t hash32(const uint8_t *value, uint32_t len)
{
    uint64_t h64 = XXH3_64bits(value, len);
    return (uint32_t)(h64 ^ (h64 >> 32));
}

/* Equality of two fixed-width values; constant sizes let the compiler inline the compare. */
static inline bool eq_fixed(const uint8_t *a, const uint8_t *b, uint32_t w)
{
    switch (w) {
    case 4: return memcmp(a, b, 4) == 0;
    case 8: return memcmp(a, b, 8) == 0;
    case 16: return memcmp(a, b, 16) == 0;
    default: return memcmp(a, b, w) == 0;
    }
}

fl_status fl_pqw_dict_insert_fixed_n(fl_pqw_dict *d, const uint8_t *values, uint32_t n,
                                     uint32_t *index, fl_error *err)
{
    uint32_t w = d->width;
    for (uint32_t k = 0; k < n; k++) {
        const uint8_t *v = values + (size_t)k * w;
        uint32_t h = hash32(v, w);
        uint32_t mask = d->nslots - 1;
        uint32_t p = h & mask;
        for (;;) {
            uint32_t s = d->slots[p];
            if (!s) {
                FL_TRY(add_entry(d, v, w, h, p, &index[k], err));
                break;
            }
            uint32_t i = s - 1;
            if (d->hashes[i] == h && eq_fixed(d->plain.bytes + (size_t)i * w, v, w)) {
                index[k] = i;
                break;
            }
            p = (p + 1) & mask;
        }
    }
    return FL_OK;
}

fl_status fl_pqw_dict_insert(fl_pqw_dict *d, const uint8_t *value, uint32_t len, uint32_t *index,
                             fl_error *err)
{
    uint32_t h = hash32(value, len);
    uint32_t mask = d->nslots - 1;
    uint32_t p = h & mask;
    for (;;) {
        uint32_t s = d->slots[p];
        if (!s)
            break;
        uint32_t i = s - 1;
        if (d->hashes[i] == h) {
            uint32_t elen;
            const uint8_t *e = entry(d, i, &elen);
            if (elen == len && memcmp(e, value, len) == 0) {
                *index = i;
                return FL_OK;
            }
        }
        p = (p + 1) & mask;
    }
    return add_entry(d, value, len, h, p, index, err);
}

static fl_status add_entry(fl_pqw_dict *d, const uint8_t *value, uint32_t len, uint32_t h,
                           uint32_t p, uint32_t *index, fl_error *err)
{
    if (d->plain.len > UINT32_MAX - 4 - (size_t)len || d->count == UINT32_MAX - 1)
        return fl_errorf(err, FL_ELIMIT, "dictionary larger than 4 GiB");
    if (d->count == d->entries_cap)
        FL_TRY(grow_entries(d, err));
    uint32_t i = d->count;
    if (!d->width) {
        d->starts[i] = (uint32_t)d->plain.len;
        uint8_t lb[4] = {(uint8_t)len, (uint8_t)(len >> 8), (uint8_t)(len >> 16),
                         (uint8_t)(len >> 24)};
        FL_TRY(fl_pqw_append(&d->plain, lb, 4, err));
    }
    FL_TRY(fl_pqw_append(&d->plain, value, len, err));
    d->hashes[i] = h;
    d->slots[p] = i + 1;
    d->count++;
    *index = i;
    if (d->count * 2 > d->nslots)
        FL_TRY(grow_table(d, err));
    return FL_OK;
}
