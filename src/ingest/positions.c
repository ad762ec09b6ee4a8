/*
 * positions.c - the sink's source positions: a sorted array of malloc'd
 * key/value strings (binary search; a landing folder of N files costs
 * O(log N) per lookup and O(N) per new key, which is fine for the
 * thousands of keys a pipeline holds).
 */
#include <stdlib.h>
#include <string.h>

#include "ingest/ingest_int.h"

static uint32_t lower_bound(const ing_posmap *m, const char *key)
{
    uint32_t lo = 0, hi = m->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (strcmp(m->v[mid].key, key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const ing_pos *ing_posmap_find(const ing_posmap *m, const char *key)
{
    uint32_t i = lower_bound(m, key);
    return i < m->n && !strcmp(m->v[i].key, key) ? &m->v[i] : NULL;
}

fl_status ing_posmap_set(ing_posmap *m, const char *key, const char *value, bool dirty,
                         fl_error *err)
{
    char *val = strdup(value);
    if (!val)
        return fl_errorf(err, FL_ENOMEM, "positions: out of memory");
    uint32_t i = lower_bound(m, key);
    if (i < m->n && !strcmp(m->v[i].key, key)) {
        free(m->v[i].value);
        m->v[i].value = val;
        if (dirty && !m->v[i].dirty)
            m->ndirty++;
        m->v[i].dirty |= dirty;
        return FL_OK;
    }
    char *k = strdup(key);
    if (k && m->n == m->cap) {
        uint32_t cap = m->cap ? m->cap * 2 : 16;
        ing_pos *nv = realloc(m->v, cap * sizeof *nv);
        if (nv) {
            m->v = nv;
            m->cap = cap;
        }
    }
    if (!k || m->n == m->cap) {
        free(k);
        free(val);
        return fl_errorf(err, FL_ENOMEM, "positions: out of memory");
    }
    memmove(&m->v[i + 1], &m->v[i], (m->n - i) * sizeof *m->v);
    m->v[i] = (ing_pos){.key = k, .value = val, .dirty = dirty};
    m->n++;
    m->ndirty += dirty;
    return FL_OK;
}

void ing_posmap_clear_dirty(ing_posmap *m)
{
    for (uint32_t i = 0; i < m->n; i++)
        m->v[i].dirty = false;
    m->ndirty = 0;
}

void ing_posmap_free(ing_posmap *m)
{
    for (uint32_t i = 0; i < m->n; i++) {
        free(m->v[i].key);
        free(m->v[i].value);
    }
    free(m->v);
    memset(m, 0, sizeof *m);
}

bool ing_utf8_valid(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        if (*p < 0x80) {
            p++;
            continue;
        }
        int n = (*p & 0xe0) == 0xc0 ? 1 : (*p & 0xf0) == 0xe0 ? 2 : (*p & 0xf8) == 0xf0 ? 3 : -1;
        if (n < 0 || (*p == 0xc0 || *p == 0xc1) || *p > 0xf4)
            return false;
        for (int i = 1; i <= n; i++)
            if ((p[i] & 0xc0) != 0x80)
                return false;
        p += n + 1;
    }
    return true;
}
