/*
 * manifest_cache.c - a shared cache of decoded manifests (ice_scan.h).
 *
 * Key: manifest path + manifest length (a rewritten manifest at the same
 * path has another length; Iceberg never rewrites files in place). Value: the
 * decoded entries in their own arena, charged at the arena's malloc'd bytes.
 * Bounded by max_bytes with LRU eviction; a manifest larger than the whole
 * budget is decoded but not kept.
 *
 * Entries are reference counted so that a plan can keep using the entries
 * of a manifest evicted meanwhile: eviction unlinks the entry and drops the
 * cache's reference; the last holder frees it. One mutex guards the map, the
 * LRU list and reference counts; decoding happens outside the lock (two
 * threads missing on the same manifest both decode it; the second insert
 * keeps the first copy).
 *
 * Lookup is a linear-probe hash table over XXH3 of the path.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "iceberg/manifest_cache.h"

struct ice_cached_manifest {
    char *path;
    int64_t length;
    uint64_t hash;
    fl_arena arena;
    fl_ice_manifest_entry *entries;
    uint32_t n;
    size_t bytes;
    uint32_t refs; /* the cache's own reference counts as one while linked */
    bool linked;
    ice_cached_manifest *prev, *next; /* LRU, most recent at head */
};

struct fl_ice_manifest_cache {
    pthread_mutex_t mu;
    size_t max_bytes;
    ice_cached_manifest **slots;
    size_t nslots, count;
    ice_cached_manifest *head, *tail;
    fl_ice_cache_stats stats;
};

fl_status fl_ice_manifest_cache_new(size_t max_bytes, fl_ice_manifest_cache **out, fl_error *err)
{
    *out = NULL;
    fl_ice_manifest_cache *c = calloc(1, sizeof *c);
    if (!c)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    c->nslots = 1024;
    c->slots = calloc(c->nslots, sizeof *c->slots);
    if (!c->slots || pthread_mutex_init(&c->mu, NULL) != 0) {
        free(c->slots);
        free(c);
        return fl_errorf(err, FL_ENOMEM, "manifest cache: cannot allocate");
    }
    c->max_bytes = max_bytes;
    *out = c;
    return FL_OK;
}

static void free_entry(ice_cached_manifest *e)
{
    fl_arena_free(&e->arena);
    free(e->path);
    free(e);
}

void fl_ice_manifest_cache_free(fl_ice_manifest_cache *c)
{
    if (!c)
        return;
    ice_cached_manifest *e = c->head;
    while (e) {
        ice_cached_manifest *nx = e->next;
        e->linked = false;
        if (--e->refs == 0)
            free_entry(e); /* entries still held by plans are freed by their release */
        e = nx;
    }
    free(c->slots);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

void fl_ice_manifest_cache_stats(const fl_ice_manifest_cache *c, fl_ice_cache_stats *out)
{
    fl_ice_manifest_cache *mc = (fl_ice_manifest_cache *)c;
    pthread_mutex_lock(&mc->mu);
    *out = mc->stats;
    pthread_mutex_unlock(&mc->mu);
}

static size_t slot_of(const fl_ice_manifest_cache *c, uint64_t h, const char *path, int64_t len,
                      bool *found)
{
    size_t mask = c->nslots - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        ice_cached_manifest *e = c->slots[i];
        if (!e) {
            *found = false;
            return i;
        }
        if (e->hash == h && e->length == len && !strcmp(e->path, path)) {
            *found = true;
            return i;
        }
    }
}

/* Removes e from the table and re-inserts the rest of its probe cluster
 * (linear probing without tombstones). */
static void table_remove(fl_ice_manifest_cache *c, ice_cached_manifest *e)
{
    bool found;
    size_t i = slot_of(c, e->hash, e->path, e->length, &found);
    if (!found)
        return;
    c->slots[i] = NULL;
    c->count--;
    size_t mask = c->nslots - 1;
    for (size_t j = (i + 1) & mask; c->slots[j]; j = (j + 1) & mask) {
        ice_cached_manifest *x = c->slots[j];
        c->slots[j] = NULL;
        bool f2;
        size_t k = slot_of(c, x->hash, x->path, x->length, &f2);
        c->slots[k] = x;
    }
}

static void lru_unlink(fl_ice_manifest_cache *c, ice_cached_manifest *e)
{
    if (e->prev)
        e->prev->next = e->next;
    else
        c->head = e->next;
    if (e->next)
        e->next->prev = e->prev;
    else
        c->tail = e->prev;
    e->prev = e->next = NULL;
}

static void lru_push(fl_ice_manifest_cache *c, ice_cached_manifest *e)
{
    e->next = c->head;
    e->prev = NULL;
    if (c->head)
        c->head->prev = e;
    c->head = e;
    if (!c->tail)
        c->tail = e;
}

static void grow_table(fl_ice_manifest_cache *c)
{
    size_t on = c->nslots;
    ice_cached_manifest **old = c->slots;
    ice_cached_manifest **ns = calloc(on * 2, sizeof *ns);
    if (!ns)
        return; /* stays at its size; lookups still work while count < nslots */
    c->slots = ns;
    c->nslots = on * 2;
    for (size_t i = 0; i < on; i++)
        if (old[i]) {
            bool f;
            c->slots[slot_of(c, old[i]->hash, old[i]->path, old[i]->length, &f)] = old[i];
        }
    free(old);
}

void ice_cache_release(ice_cached_manifest *e, fl_ice_manifest_cache *c)
{
    if (!e)
        return;
    if (c)
        pthread_mutex_lock(&c->mu);
    bool last = --e->refs == 0;
    if (c)
        pthread_mutex_unlock(&c->mu);
    if (last)
        free_entry(e);
}

const fl_ice_manifest_entry *ice_cached_entries(const ice_cached_manifest *e, uint32_t *n)
{
    *n = e->n;
    return e->entries;
}

fl_status ice_cache_get(fl_ice_manifest_cache *c, fl_fileio *io, const fl_ice_metadata *m,
                        const fl_ice_manifest_file *mf, ice_cached_manifest **out, fl_error *err)
{
    *out = NULL;
    uint64_t h = XXH3_64bits(mf->manifest_path, strlen(mf->manifest_path));
    if (c) {
        pthread_mutex_lock(&c->mu);
        bool found;
        size_t i = slot_of(c, h, mf->manifest_path, mf->manifest_length, &found);
        if (found) {
            ice_cached_manifest *e = c->slots[i];
            e->refs++;
            lru_unlink(c, e);
            lru_push(c, e);
            c->stats.hits++;
            pthread_mutex_unlock(&c->mu);
            *out = e;
            return FL_OK;
        }
        c->stats.misses++;
        pthread_mutex_unlock(&c->mu);
    }
    ice_cached_manifest *e = calloc(1, sizeof *e);
    if (!e || !(e->path = strdup(mf->manifest_path))) {
        free(e);
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    e->length = mf->manifest_length;
    e->hash = h;
    fl_arena_init(&e->arena, 0);
    fl_status rc = fl_ice_manifest_read(io, m, mf, &e->arena, &e->entries, &e->n, err);
    if (rc != FL_OK) {
        free_entry(e);
        return rc;
    }
    e->bytes = e->arena.total + sizeof *e + strlen(e->path);
    e->refs = 1; /* the caller's */
    if (!c || e->bytes > c->max_bytes) {
        *out = e;
        return FL_OK;
    }
    pthread_mutex_lock(&c->mu);
    bool found;
    size_t i = slot_of(c, h, e->path, e->length, &found);
    if (found) { /* another thread inserted it meanwhile: use theirs */
        ice_cached_manifest *x = c->slots[i];
        x->refs++;
        pthread_mutex_unlock(&c->mu);
        free_entry(e);
        *out = x;
        return FL_OK;
    }
    while (c->stats.bytes + e->bytes > c->max_bytes && c->tail) {
        ice_cached_manifest *v = c->tail;
        lru_unlink(c, v);
        table_remove(c, v);
        v->linked = false;
        c->stats.bytes -= v->bytes;
        c->stats.evictions++;
        if (--v->refs == 0)
            free_entry(v);
    }
    if ((c->count + 1) * 2 > c->nslots) {
        grow_table(c);
        i = slot_of(c, h, e->path, e->length, &found);
    }
    c->slots[i] = e;
    c->count++;
    e->refs++;
    e->linked = true;
    lru_push(c, e);
    c->stats.bytes += e->bytes;
    pthread_mutex_unlock(&c->mu);
    *out = e;
    return FL_OK;
}
