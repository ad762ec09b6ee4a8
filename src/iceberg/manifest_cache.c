/*
 * manifest_cache.c - the Iceberg read cache (ice_scan.h
 * fl_ice_manifest_cache): decoded manifests, manifest lists, table metadata
 * files and Parquet footers, shared by queries and threads.
 *
 * Keys: (kind, path, length). Every keyed file is immutable in Iceberg
 * (metadata files, manifest lists and manifests get fresh names on every
 * commit; data files are never rewritten in place), so an entry is never
 * stale. Manifests carry their length from the manifest list and Parquet
 * footers the file size, so a file replaced at the same path by a foreign
 * writer gets a new key; metadata files and manifest lists use length -1.
 * Value: the decoded structure in the entry's own arena (Parquet: a detached
 * reader whose arena holds footer and schema), charged at the bytes malloc'd
 * for it. Bounded by max_bytes with LRU eviction; an entry larger than the
 * whole budget is decoded for its caller but not kept.
 *
 * Entries are reference counted so that a plan (or a statement's table)
 * keeps using an entry evicted meanwhile: eviction unlinks the entry and
 * drops the cache's reference; the last holder frees it. One mutex guards the
 * map and the LRU list; decoding happens outside the lock (two threads
 * missing on the same file both decode it; the second insert keeps the first
 * copy and frees its own). The reference count is atomic: references are
 * taken under the mutex (lookup, insert), so an entry found in the table is
 * linked and holds the cache's reference (refs >= 1 before the increment),
 * but they are dropped without it. fl_ice_cache_release therefore never touches
 * the cache, so a holder may release after the cache itself was freed (a
 * table or plan outliving a session's private cache): freeing the cache drops
 * only the cache's own references.
 *
 * Lookup is a linear-probe hash table over XXH3 of the path mixed with the
 * kind.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "floe/ice_manifest.h"
#include "iceberg/manifest_cache.h"

/* Arena block of an entry: small tables' manifests and metadata are a few
 * KiB, and the default 64 KiB block would be charged (and kept) for each. */
#define ENTRY_BLOCK (16u << 10)

struct fl_ice_cache_entry {
    ice_cache_kind kind;
    char *path;
    int64_t length;
    uint64_t hash;
    fl_arena arena;
    const void *value; /* kind's structure: entries, manifest files, metadata, reader */
    uint32_t n;        /* entries / manifest files */
    fl_parquet_reader *reader; /* ICE_CACHE_FOOTER: detached, owned */
    size_t bytes;
    _Atomic uint32_t refs; /* the cache's own reference counts as one while linked */
    bool linked;
    fl_ice_cache_entry *prev, *next; /* LRU, most recent at head */
};

struct fl_ice_manifest_cache {
    pthread_mutex_t mu;
    size_t max_bytes;
    fl_ice_cache_entry **slots;
    size_t nslots, count;
    fl_ice_cache_entry *head, *tail;
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

static void free_entry(fl_ice_cache_entry *e)
{
    fl_parquet_close(e->reader);
    fl_arena_free(&e->arena);
    free(e->path);
    free(e);
}

void fl_ice_manifest_cache_free(fl_ice_manifest_cache *c)
{
    if (!c)
        return;
    fl_ice_cache_entry *e = c->head;
    while (e) {
        fl_ice_cache_entry *nx = e->next;
        e->linked = false;
        if (atomic_fetch_sub(&e->refs, 1) == 1)
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
    out->entries = mc->count;
    pthread_mutex_unlock(&mc->mu);
}

static uint64_t key_hash(ice_cache_kind kind, const char *path)
{
    return XXH3_64bits_withSeed(path, strlen(path), (uint64_t)kind);
}

static size_t slot_of(const fl_ice_manifest_cache *c, ice_cache_kind kind, uint64_t h,
                      const char *path, int64_t len, bool *found)
{
    size_t mask = c->nslots - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        fl_ice_cache_entry *e = c->slots[i];
        if (!e) {
            *found = false;
            return i;
        }
        if (e->hash == h && e->kind == kind && e->length == len && !strcmp(e->path, path)) {
            *found = true;
            return i;
        }
    }
}

/* Removes e from the table and re-inserts the rest of its probe cluster
 * (linear probing without tombstones). */
static void table_remove(fl_ice_manifest_cache *c, fl_ice_cache_entry *e)
{
    bool found;
    size_t i = slot_of(c, e->kind, e->hash, e->path, e->length, &found);
    if (!found)
        return;
    c->slots[i] = NULL;
    c->count--;
    size_t mask = c->nslots - 1;
    for (size_t j = (i + 1) & mask; c->slots[j]; j = (j + 1) & mask) {
        fl_ice_cache_entry *x = c->slots[j];
        c->slots[j] = NULL;
        bool f2;
        size_t k = slot_of(c, x->kind, x->hash, x->path, x->length, &f2);
        c->slots[k] = x;
    }
}

static void lru_unlink(fl_ice_manifest_cache *c, fl_ice_cache_entry *e)
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

static void lru_push(fl_ice_manifest_cache *c, fl_ice_cache_entry *e)
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
    fl_ice_cache_entry **old = c->slots;
    fl_ice_cache_entry **ns = calloc(on * 2, sizeof *ns);
    if (!ns)
        return; /* stays at its size; lookups still work while count < nslots */
    c->slots = ns;
    c->nslots = on * 2;
    for (size_t i = 0; i < on; i++)
        if (old[i]) {
            bool f;
            c->slots[slot_of(c, old[i]->kind, old[i]->hash, old[i]->path, old[i]->length, &f)] =
                old[i];
        }
    free(old);
}

/* Drops one reference without the cache's lock (see the header comment):
 * the last one frees e. The count reaches 0 only once e is unlinked, and an
 * unlinked entry cannot be found, so nobody takes a new reference after. */
void fl_ice_cache_release(fl_ice_cache_entry *e, fl_ice_manifest_cache *c)
{
    (void)c;
    if (e && atomic_fetch_sub(&e->refs, 1) == 1)
        free_entry(e);
}

const fl_ice_manifest_entry *ice_cached_entries(const ice_cached_manifest *e, uint32_t *n)
{
    *n = e->n;
    return e->value;
}

/* A held (refs++) entry for the key, or NULL after counting a miss. */
static fl_ice_cache_entry *lookup(fl_ice_manifest_cache *c, ice_cache_kind kind, const char *path,
                               int64_t len)
{
    if (!c)
        return NULL;
    uint64_t h = key_hash(kind, path);
    pthread_mutex_lock(&c->mu);
    bool found;
    size_t i = slot_of(c, kind, h, path, len, &found);
    fl_ice_cache_entry *e = found ? c->slots[i] : NULL;
    if (e) {
        e->refs++;
        lru_unlink(c, e);
        lru_push(c, e);
        c->stats.hits++;
    } else {
        c->stats.misses++;
    }
    pthread_mutex_unlock(&c->mu);
    return e;
}

/* A fresh entry (refs 1: the caller's) or NULL when out of memory. */
static fl_ice_cache_entry *new_entry(ice_cache_kind kind, const char *path, int64_t len)
{
    fl_ice_cache_entry *e = calloc(1, sizeof *e);
    if (!e || !(e->path = strdup(path))) {
        free(e);
        return NULL;
    }
    e->kind = kind;
    e->length = len;
    e->hash = key_hash(kind, path);
    atomic_init(&e->refs, 1);
    fl_arena_init(&e->arena, ENTRY_BLOCK);
    return e;
}

/* Inserts the caller's entry e (refs 1); returns the entry the caller holds:
 * e, or an equal one another thread inserted first (then e is freed). */
static fl_ice_cache_entry *insert(fl_ice_manifest_cache *c, fl_ice_cache_entry *e)
{
    e->bytes += e->arena.total + sizeof *e + strlen(e->path) + 1;
    if (!c || e->bytes > c->max_bytes)
        return e;
    pthread_mutex_lock(&c->mu);
    bool found;
    size_t i = slot_of(c, e->kind, e->hash, e->path, e->length, &found);
    if (found) { /* another thread inserted it meanwhile: use theirs */
        fl_ice_cache_entry *x = c->slots[i];
        x->refs++;
        pthread_mutex_unlock(&c->mu);
        free_entry(e);
        return x;
    }
    while (c->stats.bytes + e->bytes > c->max_bytes && c->tail) {
        fl_ice_cache_entry *v = c->tail;
        lru_unlink(c, v);
        table_remove(c, v);
        v->linked = false;
        c->stats.bytes -= v->bytes;
        c->stats.evictions++;
        if (atomic_fetch_sub(&v->refs, 1) == 1)
            free_entry(v);
    }
    if ((c->count + 1) * 2 > c->nslots)
        grow_table(c);
    if (c->count + 2 > c->nslots) { /* growth failed (out of memory) and the table is
                                     * full: slot_of needs one empty slot to stop */
        pthread_mutex_unlock(&c->mu);
        return e;
    }
    /* Evictions re-pack probe clusters, so the slot found before them may
     * now hold a moved entry or sit past a freed gap: probe again. */
    i = slot_of(c, e->kind, e->hash, e->path, e->length, &found);
    c->slots[i] = e;
    c->count++;
    e->refs++;
    e->linked = true;
    lru_push(c, e);
    c->stats.bytes += e->bytes;
    pthread_mutex_unlock(&c->mu);
    return e;
}

static fl_status oom(fl_error *err)
{
    return fl_errorf(err, FL_ENOMEM, "out of memory");
}

fl_status ice_cache_get(fl_ice_manifest_cache *c, fl_fileio *io, const fl_ice_metadata *m,
                        const fl_ice_manifest_file *mf, ice_cached_manifest **out, fl_error *err)
{
    *out = lookup(c, ICE_CACHE_MANIFEST, mf->manifest_path, mf->manifest_length);
    if (*out)
        return FL_OK;
    fl_ice_cache_entry *e = new_entry(ICE_CACHE_MANIFEST, mf->manifest_path, mf->manifest_length);
    if (!e)
        return oom(err);
    fl_ice_manifest_entry *ents = NULL;
    fl_status rc = fl_ice_manifest_read(io, m, mf, &e->arena, &ents, &e->n, err);
    if (rc != FL_OK) {
        free_entry(e);
        return rc;
    }
    e->value = ents;
    *out = insert(c, e);
    return FL_OK;
}

fl_status ice_cache_get_list(fl_ice_manifest_cache *c, fl_fileio *io, const fl_ice_metadata *m,
                             const fl_ice_snapshot *s, fl_ice_cache_entry **out,
                             const fl_ice_manifest_file **files, uint32_t *n, fl_error *err)
{
    *out = NULL;
    /* v1 inline manifest arrays have no list file to key on: decode directly
     * (cheap: no file read) into a private entry */
    const char *key = s->manifest_list;
    fl_ice_cache_entry *e = key ? lookup(c, ICE_CACHE_LIST, key, -1) : NULL;
    if (!e) {
        e = new_entry(ICE_CACHE_LIST, key ? key : "", -1);
        if (!e)
            return oom(err);
        fl_ice_manifest_file *mfs = NULL;
        fl_status rc = fl_ice_snapshot_manifests(io, m, s, &e->arena, &mfs, &e->n, err);
        if (rc != FL_OK) {
            free_entry(e);
            return rc;
        }
        e->value = mfs;
        e = key ? insert(c, e) : insert(NULL, e);
    }
    *out = e;
    *files = e->value;
    *n = e->n;
    return FL_OK;
}

fl_status ice_cache_get_metadata(fl_ice_manifest_cache *c, fl_fileio *io, const char *location,
                                 fl_ice_cache_entry **out, const fl_ice_metadata **meta,
                                 fl_error *err)
{
    fl_ice_cache_entry *e = lookup(c, ICE_CACHE_METADATA, location, -1);
    if (!e) {
        e = new_entry(ICE_CACHE_METADATA, location, -1);
        fl_ice_metadata *m = e ? fl_arena_calloc(&e->arena, 1, sizeof *m) : NULL;
        if (!m) {
            if (e)
                free_entry(e);
            return oom(err);
        }
        fl_status rc = fl_ice_metadata_read(io, location, &e->arena, m, err);
        if (rc != FL_OK) {
            free_entry(e);
            return rc;
        }
        e->value = m;
        e = insert(c, e);
    }
    *out = e;
    *meta = e->value;
    return FL_OK;
}

fl_status fl_ice_cache_open_parquet(fl_ice_manifest_cache *c, fl_file *f, fl_ice_cache_entry **out,
                                 fl_parquet_reader **reader, fl_error *err)
{
    *out = NULL;
    *reader = NULL;
    if (!c)
        return fl_parquet_open(f, NULL, reader, err);
    const char *path = f->path ? f->path : "";
    fl_ice_cache_entry *e = lookup(c, ICE_CACHE_FOOTER, path, (int64_t)f->size);
    if (!e) {
        fl_parquet_reader *base = NULL;
        FL_TRY(fl_parquet_open(f, NULL, &base, err));
        e = new_entry(ICE_CACHE_FOOTER, path, (int64_t)f->size);
        if (!e) {
            fl_parquet_close(base);
            return oom(err);
        }
        fl_parquet_detach(base);
        e->reader = base;
        e->value = base;
        e->bytes = fl_parquet_reader_bytes(base);
        e = insert(c, e);
    }
    fl_status rc = fl_parquet_open_shared(e->value, f, reader, err);
    if (rc != FL_OK) {
        fl_ice_cache_release(e, c);
        return rc;
    }
    *out = e;
    return FL_OK;
}
