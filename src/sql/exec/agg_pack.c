/*
 * agg_pack.c - packed-key group cache for the aggregate (agg_pack.h).
 *
 * Packed key: 16 bytes (two uint64), zero-filled, each key at a fixed
 * offset planned from the key types:
 *   BOOLEAN                      1 byte: 0 / 1, 2 = NULL
 *   INT32, DATE                  5 bytes: value (native order), then 1 = NULL
 *   INT64, TIME, TIMESTAMP(TZ)   9 bytes: value, then 1 = NULL
 *   STRING, BINARY               1 + L bytes: length (0xFF = NULL), then the
 *                                bytes; a longer value does not pack
 * L is what the fixed-width keys leave, shared by the string keys. Since
 * every byte of a key's slot is determined by its value (NULLs zero their
 * value bytes), two rows have equal packed keys exactly when their keys are
 * equal (NULL = NULL, as GROUP BY wants).
 *
 * Cache: open addressing over 2 * AGG_PACK_MAX slots, linear probing.
 */
#include <stdlib.h>
#include <string.h>

#include "sql/exec/agg_pack.h"

enum { PK_BOOL = 1, PK_I32, PK_I64, PK_STR };

void agg_pack_free(agg_pack *p)
{
    free(p->slot_key);
    free(p->slot_gid);
    free(p->pk);
    free(p->ok);
    memset(p, 0, sizeof *p);
}

static int kind_of(const fl_type *t, uint32_t *width)
{
    switch (t->id) {
    case FL_TYPE_BOOLEAN: *width = 1; return PK_BOOL;
    case FL_TYPE_INT32:
    case FL_TYPE_DATE: *width = 5; return PK_I32;
    case FL_TYPE_INT64:
    case FL_TYPE_TIME:
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ:
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS: *width = 9; return PK_I64;
    case FL_TYPE_STRING:
    case FL_TYPE_BINARY: *width = 0; return PK_STR;
    default: return 0;
    }
}

void agg_pack_plan(agg_pack *p, const fl_schema *ks)
{
    p->planned = true;
    p->off = true;
    if (!ks || ks->nfields == 0 || ks->nfields > AGG_PACK_KEYS)
        return;
    uint32_t fixed = 0, nstr = 0;
    for (uint32_t k = 0; k < ks->nfields; k++) {
        uint32_t w = 0;
        int kind = kind_of(&ks->fields[k].type, &w);
        if (!kind)
            return;
        p->kind[k] = (uint8_t)kind;
        fixed += w;
        nstr += kind == PK_STR;
    }
    if (fixed > 16)
        return;
    uint32_t per = nstr ? (16 - fixed) / nstr : 0;
    if (nstr && per < 2)
        return;
    uint32_t at = 0;
    for (uint32_t k = 0; k < ks->nfields; k++) {
        uint32_t w = 0;
        kind_of(&ks->fields[k].type, &w);
        if (p->kind[k] == PK_STR) {
            w = per;
            p->room[k] = (uint8_t)(per - 1);
        }
        p->at[k] = (uint8_t)at;
        at += w;
    }
    p->nkeys = ks->nfields;
    p->off = false;
}

static fl_status reserve_rows(agg_pack *p, uint32_t nrows, fl_error *err)
{
    if (nrows <= p->rows_cap && p->pk)
        return FL_OK;
    uint32_t n = nrows < FL_BATCH_CAP ? FL_BATCH_CAP : nrows;
    uint64_t *pk = realloc(p->pk, (size_t)n * 16);
    if (pk)
        p->pk = pk;
    uint8_t *ok = realloc(p->ok, n);
    if (ok)
        p->ok = ok;
    if (!pk || !ok)
        return fl_errorf(err, FL_ENOMEM, "aggregate: out of memory packing keys of %u rows", nrows);
    p->rows_cap = n;
    return FL_OK;
}

#define EACH(row, ...)                                                                             \
    do {                                                                                           \
        for (uint32_t k_ = 0; k_ < cnt; k_++) {                                                    \
            uint32_t row = sel ? sel->idx[k_] : k_;                                                \
            __VA_ARGS__                                                                            \
        }                                                                                          \
    } while (0)

static void pack_key(agg_pack *p, uint32_t k, const fl_vector *v, const fl_sel *sel, uint32_t cnt)
{
    fl_unified u;
    fl_vector_unify(v, &u);
    uint8_t *pk = (uint8_t *)p->pk + p->at[k];
    uint8_t *ok = p->ok;
    bool nulls = u.validity || u.base->validity;
    const uint8_t *d = u.base->data;
    switch (p->kind[k]) {
    case PK_BOOL:
        EACH(row, {
            uint8_t *dst = pk + (size_t)row * 16;
            if (nulls && !fl_unified_is_valid(&u, row))
                dst[0] = 2;
            else
                dst[0] = d[fl_unified_row(&u, row)] != 0;
        });
        break;
    case PK_I32:
        EACH(row, {
            uint8_t *dst = pk + (size_t)row * 16;
            if (nulls && !fl_unified_is_valid(&u, row))
                dst[4] = 1;
            else
                memcpy(dst, d + (size_t)fl_unified_row(&u, row) * 4, 4);
        });
        break;
    case PK_I64:
        EACH(row, {
            uint8_t *dst = pk + (size_t)row * 16;
            if (nulls && !fl_unified_is_valid(&u, row))
                dst[8] = 1;
            else
                memcpy(dst, d + (size_t)fl_unified_row(&u, row) * 8, 8);
        });
        break;
    default: {
        const int64_t *off = u.base->offsets;
        const uint8_t *heap = u.base->heap;
        int64_t room = p->room[k];
        EACH(row, {
            uint8_t *dst = pk + (size_t)row * 16;
            if (nulls && !fl_unified_is_valid(&u, row)) {
                dst[0] = 0xFF;
                continue;
            }
            uint32_t r = fl_unified_row(&u, row);
            int64_t len = off[r + 1] - off[r];
            if (len > room) {
                ok[row] = 0;
                continue;
            }
            dst[0] = (uint8_t)len;
            const uint8_t *src = heap + off[r];
            for (int64_t i = 0; i < len; i++)
                dst[1 + i] = src[i];
        });
    }
    }
}

fl_status agg_pack_rows(agg_pack *p, const fl_vector *const *kv, const fl_sel *sel, uint32_t nrows,
                        fl_error *err)
{
    FL_TRY(reserve_rows(p, nrows, err));
    uint32_t cnt = sel ? sel->count : nrows;
    EACH(row, {
        p->pk[2 * (size_t)row] = 0;
        p->pk[2 * (size_t)row + 1] = 0;
        p->ok[row] = 1;
    });
    for (uint32_t k = 0; k < p->nkeys; k++)
        pack_key(p, k, kv[k], sel, cnt);
    return FL_OK;
}

static inline uint32_t slot_of(uint64_t a, uint64_t b, uint32_t cap)
{
    uint64_t x = a ^ (b * 0x9E3779B97F4A7C15ull);
    x ^= x >> 32;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 29;
    return (uint32_t)x & (cap - 1);
}

uint32_t agg_pack_find(const agg_pack *p, uint32_t row)
{
    if (!p->slot_gid)
        return UINT32_MAX;
    uint64_t a = p->pk[2 * (size_t)row], b = p->pk[2 * (size_t)row + 1];
    uint32_t i = slot_of(a, b, p->cap);
    while (p->slot_gid[i]) {
        if (p->slot_key[2 * (size_t)i] == a && p->slot_key[2 * (size_t)i + 1] == b)
            return p->slot_gid[i] - 1;
        i = (i + 1) & (p->cap - 1);
    }
    return UINT32_MAX;
}

fl_status agg_pack_add(agg_pack *p, uint32_t row, uint32_t gid, fl_error *err)
{
    if (p->count + 1 > AGG_PACK_MAX) {
        /* many groups: the hash table is the better index; stop caching */
        free(p->slot_key);
        free(p->slot_gid);
        p->slot_key = NULL;
        p->slot_gid = NULL;
        p->off = true;
        return FL_OK;
    }
    if (!p->slot_gid) {
        p->cap = 2 * AGG_PACK_MAX;
        p->slot_key = calloc((size_t)p->cap * 2, sizeof *p->slot_key);
        p->slot_gid = calloc(p->cap, sizeof *p->slot_gid);
        if (!p->slot_key || !p->slot_gid) {
            free(p->slot_key);
            free(p->slot_gid);
            p->slot_key = NULL;
            p->slot_gid = NULL;
            return fl_errorf(err, FL_ENOMEM, "aggregate: out of memory for the group cache");
        }
    }
    uint64_t a = p->pk[2 * (size_t)row], b = p->pk[2 * (size_t)row + 1];
    uint32_t i = slot_of(a, b, p->cap);
    while (p->slot_gid[i]) {
        if (p->slot_key[2 * (size_t)i] == a && p->slot_key[2 * (size_t)i + 1] == b)
            return FL_OK; /* already cached */
        i = (i + 1) & (p->cap - 1);
    }
    p->slot_key[2 * (size_t)i] = a;
    p->slot_key[2 * (size_t)i + 1] = b;
    p->slot_gid[i] = gid + 1;
    p->count++;
    return FL_OK;
}
