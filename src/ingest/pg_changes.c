/*
 * pg_changes.c - the per-checkpoint change map of a CDC target
 * (pg_changes.h): encoded key -> final state, in first-change order.
 *
 * Open addressing with linear probing over a power-of-two slot array kept
 * at most half full; FNV-1a hashes the encoded key. Entries are a growing
 * array, so the checkpoint writes keys in the order they first changed.
 */
#include <stdlib.h>
#include <string.h>

#include "ingest/pg_changes.h"

void pgch_init(pgch_map *m, uint32_t ncols)
{
    memset(m, 0, sizeof *m);
    fl_arena_init(&m->arena, 0);
    m->ncols = ncols;
}

void pgch_reset(pgch_map *m)
{
    fl_arena_free(&m->arena);
    fl_arena_init(&m->arena, 0);
    m->n = 0;
    m->changes = 0;
    if (m->slots)
        memset(m->slots, 0, m->nslots * sizeof *m->slots);
}

void pgch_free(pgch_map *m)
{
    fl_arena_free(&m->arena);
    free(m->v);
    free(m->slots);
    memset(m, 0, sizeof *m);
}

static uint64_t fnv1a(const uint8_t *p, uint32_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (uint32_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static fl_status grow_slots(pgch_map *m, fl_error *err)
{
    uint32_t ns = m->nslots ? m->nslots * 2 : 1024;
    uint32_t *s = calloc(ns, sizeof *s);
    if (!s)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < m->n; i++) {
        uint32_t k = (uint32_t)m->v[i].hash & (ns - 1);
        while (s[k])
            k = (k + 1) & (ns - 1);
        s[k] = i + 1;
    }
    free(m->slots);
    m->slots = s;
    m->nslots = ns;
    return FL_OK;
}

pgch_entry *pgch_find(pgch_map *m, const uint8_t *key, uint32_t klen)
{
    if (!m->nslots)
        return NULL;
    uint64_t h = fnv1a(key, klen);
    for (uint32_t k = (uint32_t)h & (m->nslots - 1); m->slots[k]; k = (k + 1) & (m->nslots - 1)) {
        pgch_entry *e = &m->v[m->slots[k] - 1];
        if (e->hash == h && e->klen == klen && !memcmp(e->key, key, klen))
            return e;
    }
    return NULL;
}

fl_status pgch_get(pgch_map *m, const uint8_t *key, uint32_t klen, pgch_entry **out, bool *created,
                   fl_error *err)
{
    if ((uint64_t)(m->n + 1) * 2 > m->nslots)
        FL_TRY(grow_slots(m, err));
    uint64_t h = fnv1a(key, klen);
    uint32_t k = (uint32_t)h & (m->nslots - 1);
    for (; m->slots[k]; k = (k + 1) & (m->nslots - 1)) {
        pgch_entry *e = &m->v[m->slots[k] - 1];
        if (e->hash == h && e->klen == klen && !memcmp(e->key, key, klen)) {
            *out = e;
            *created = false;
            return FL_OK;
        }
    }
    if (m->n == m->cap) {
        uint32_t nc = m->cap ? m->cap * 2 : 256;
        pgch_entry *nv = realloc(m->v, nc * sizeof *nv);
        if (!nv)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        m->v = nv;
        m->cap = nc;
    }
    uint8_t *kc = fl_arena_alloc(&m->arena, klen ? klen : 1);
    if (!kc)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    memcpy(kc, key, klen);
    pgch_entry *e = &m->v[m->n];
    *e = (pgch_entry){.key = kc, .klen = klen, .hash = h};
    m->slots[k] = ++m->n;
    *out = e;
    *created = true;
    return FL_OK;
}

fl_status pgch_copy_datum(pgch_map *m, const pgcdc_datum *d, pgcdc_datum *out, fl_error *err)
{
    *out = *d;
    if (d->kind == PGCH_VALUE) /* already in the arena */
        return FL_OK;
    if (d->kind != PGCDC_TEXT && d->kind != PGCDC_BINARY) {
        out->data = NULL;
        out->len = 0;
        return FL_OK;
    }
    uint8_t *p = fl_arena_alloc(&m->arena, d->len ? d->len : 1);
    if (!p)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    if (d->len)
        memcpy(p, d->data, d->len);
    out->data = p;
    return FL_OK;
}
