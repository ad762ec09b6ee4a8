/*
 * test_manifest_cache.c - the shared Iceberg read cache's hash table under
 * eviction. Paths are chosen so that three entries share one probe cluster;
 * inserting the third evicts the first, which re-packs the cluster. The third
 * entry must still be found afterwards (CI once caught a use-after-free here:
 * the slot chosen before eviction was reused after it, leaving the entry
 * unreachable, so a later insert duplicated it and eviction freed an entry
 * still in the table).
 *
 * Also: an entry held past fl_ice_manifest_cache_free stays valid until its
 * release (a table or plan outliving a session's private cache), and four
 * threads hammering a cache a few entries big (every insert evicts) see the
 * right metadata on every get with consistent statistics; run it under
 * scripts/tsan.sh and the ASan build with --repeat until-fail.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "floe/ice_scan.h"
#include "floe/iceberg.h"
#include "floe_test.h"
#include "iceberg/manifest_cache.h"

#define NSLOTS 1024u /* the cache's initial table size */

static const char *META =
    "{\"format-version\":2,\"table-uuid\":\"9c12d441-03fe-4693-9a96-a0705ddf69c1\","
    "\"location\":\"/t\",\"last-sequence-number\":0,\"last-updated-ms\":1,\"last-column-id\":1,"
    "\"current-schema-id\":0,\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":false,\"type\":\"int\"}]}],"
    "\"default-spec-id\":0,\"partition-specs\":[{\"spec-id\":0,\"fields\":[]}],"
    "\"last-partition-id\":999,\"default-sort-order-id\":0,"
    "\"sort-orders\":[{\"order-id\":0,\"fields\":[]}]}";

static char g_dir[64];

static size_t slot_for(const char *path)
{
    return XXH3_64bits_withSeed(path, strlen(path), (uint64_t)ICE_CACHE_METADATA) & (NSLOTS - 1);
}

/* Fills path with the first g_dir/m-NNNNNNNN.json after *n whose home slot is
 * want, and writes the metadata file there. */
static int find_path(size_t want, unsigned *n, char *path, size_t cap)
{
    for (; *n < 100000000u; (*n)++) {
        snprintf(path, cap, "%s/m-%08u.json", g_dir, *n);
        if (slot_for(path) == want) {
            (*n)++;
            FILE *f = fopen(path, "w");
            if (!f)
                return 0;
            fputs(META, f);
            fclose(f);
            return 1;
        }
    }
    return 0;
}

static void get_release(fl_ice_manifest_cache *c, fl_fileio *io, const char *path)
{
    fl_error err;
    fl_ice_cache_entry *e = NULL;
    const fl_ice_metadata *m = NULL;
    CHECK_OK(ice_cache_get_metadata(c, io, path, &e, &m, &err), &err);
    CHECK(m && m->format_version == 2);
    fl_ice_cache_release(e, c);
}

static void test_evict_repacks_cluster(void)
{
    char p1[128], p2[128], p3[128];
    unsigned n = 0;
    snprintf(p1, sizeof p1, "%s/m-%08u.json", g_dir, 0u);
    size_t s = slot_for(p1);
    /* p1 and p2 share home slot s (p2 lands in s+1); p3's home is s+1 */
    if (!find_path(s, &n, p1, sizeof p1) || !find_path(s, &n, p2, sizeof p2) ||
        !find_path((s + 1) & (NSLOTS - 1), &n, p3, sizeof p3)) {
        CHECK(0);
        return;
    }
    fl_fileio *io = fl_fileio_local();
    fl_error err;
    fl_ice_manifest_cache *c = NULL;
    fl_ice_cache_stats st;
    /* one entry's charge, measured: every file and path length is equal */
    CHECK_OK(fl_ice_manifest_cache_new(1u << 30, &c, &err), &err);
    get_release(c, io, p1);
    fl_ice_manifest_cache_stats(c, &st);
    uint64_t one = st.bytes;
    fl_ice_manifest_cache_free(c);
    CHECK(one > 0);

    CHECK_OK(fl_ice_manifest_cache_new((size_t)(one * 2 + one / 2), &c, &err), &err);
    get_release(c, io, p1);
    get_release(c, io, p2);
    get_release(c, io, p3); /* evicts p1; p2 moves to s; p3 must sit at s+1 */
    fl_ice_manifest_cache_stats(c, &st);
    CHECK_EQ_INT(st.evictions, 1);
    CHECK_EQ_INT(st.entries, 2);
    CHECK_EQ_INT(st.misses, 3);
    get_release(c, io, p3);
    get_release(c, io, p2);
    fl_ice_manifest_cache_stats(c, &st);
    CHECK_EQ_INT(st.hits, 2);
    CHECK_EQ_INT(st.misses, 3);
    CHECK_EQ_INT(st.entries, 2);
    /* churn the cluster: every lookup still finds at most what is cached */
    for (int i = 0; i < 20; i++) {
        get_release(c, io, i % 3 == 0 ? p1 : i % 3 == 1 ? p2 : p3);
        fl_ice_manifest_cache_stats(c, &st);
        CHECK(st.entries <= 2);
        CHECK(st.bytes <= one * 2 + one / 2);
    }
    fl_ice_manifest_cache_free(c);
    fl_fileio_destroy(io);
    unlink(p1);
    unlink(p2);
    unlink(p3);
}

/* Writes g_dir/<name> with a metadata document whose last-updated-ms is tag,
 * so a get can check it received this file's structure. */
static int write_meta(const char *name, int64_t tag, char *path, size_t cap)
{
    snprintf(path, cap, "%s/%s", g_dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        return 0;
    char tagtext[32];
    snprintf(tagtext, sizeof tagtext, "\"last-updated-ms\":%lld,", (long long)tag);
    const char *at = strstr(META, "\"last-updated-ms\":1,");
    fwrite(META, 1, (size_t)(at - META), f);
    fputs(tagtext, f);
    fputs(at + strlen("\"last-updated-ms\":1,"), f);
    return fclose(f) == 0;
}

static void test_release_after_cache_free(void)
{
    char p[128];
    if (!write_meta("held.json", 4242, p, sizeof p)) {
        CHECK(0);
        return;
    }
    fl_fileio *io = fl_fileio_local();
    fl_error err;
    fl_ice_manifest_cache *c = NULL;
    CHECK_OK(fl_ice_manifest_cache_new(1u << 20, &c, &err), &err);
    fl_ice_cache_entry *e1 = NULL, *e2 = NULL;
    const fl_ice_metadata *m1 = NULL, *m2 = NULL;
    CHECK_OK(ice_cache_get_metadata(c, io, p, &e1, &m1, &err), &err);
    CHECK_OK(ice_cache_get_metadata(c, io, p, &e2, &m2, &err), &err);
    CHECK(e1 == e2 && m1 == m2); /* the second get is a hit on the same entry */
    fl_ice_manifest_cache_free(c); /* drops only the cache's reference */
    CHECK(m1 && m1->last_updated_ms == 4242);
    fl_ice_cache_release(e1, c); /* c is gone: release must not touch it */
    CHECK(m2 && m2->last_updated_ms == 4242 && m2->format_version == 2);
    fl_ice_cache_release(e2, NULL); /* the last holder frees the entry */
    fl_fileio_destroy(io);
    unlink(p);
}

enum { HAMMER_THREADS = 4, HAMMER_FILES = 12, HAMMER_GETS = 300 };

typedef struct hammer {
    fl_ice_manifest_cache *c;
    fl_fileio *io;
    char (*paths)[128];
    int id;
    int bad;
} hammer;

static void *hammer_run(void *arg)
{
    hammer *h = arg;
    uint32_t x = 2463534242u + (uint32_t)h->id * 7919u;
    fl_ice_cache_entry *held = NULL; /* one entry kept across the next get */
    const fl_ice_metadata *held_m = NULL;
    int held_k = 0;
    for (int i = 0; i < HAMMER_GETS; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        int k = (int)(x % HAMMER_FILES);
        fl_error err;
        fl_ice_cache_entry *e = NULL;
        const fl_ice_metadata *m = NULL;
        if (ice_cache_get_metadata(h->c, h->io, h->paths[k], &e, &m, &err) != FL_OK ||
            !m || m->last_updated_ms != 1000 + k) {
            h->bad++;
            fl_ice_cache_release(e, h->c);
            continue;
        }
        if (held && held_m->last_updated_ms != 1000 + held_k)
            h->bad++; /* an entry held while others evicted it must stay intact */
        fl_ice_cache_release(held, h->c);
        held = e;
        held_m = m;
        held_k = k;
    }
    fl_ice_cache_release(held, h->c);
    return NULL;
}

static void test_threads_hammer(void)
{
    static char paths[HAMMER_FILES][128];
    for (int k = 0; k < HAMMER_FILES; k++) {
        char name[32];
        snprintf(name, sizeof name, "h-%02d.json", k);
        if (!write_meta(name, 1000 + k, paths[k], sizeof paths[k])) {
            CHECK(0);
            return;
        }
    }
    fl_fileio *io = fl_fileio_local();
    fl_error err;
    fl_ice_manifest_cache *c = NULL;
    /* one entry's charge, then a cache of three entries: 12 files churn it */
    CHECK_OK(fl_ice_manifest_cache_new(1u << 30, &c, &err), &err);
    get_release(c, io, paths[0]);
    fl_ice_cache_stats st;
    fl_ice_manifest_cache_stats(c, &st);
    size_t budget = (size_t)st.bytes * 3 + (size_t)st.bytes / 2;
    fl_ice_manifest_cache_free(c);
    CHECK_OK(fl_ice_manifest_cache_new(budget, &c, &err), &err);
    pthread_t th[HAMMER_THREADS];
    hammer h[HAMMER_THREADS];
    for (int i = 0; i < HAMMER_THREADS; i++) {
        h[i] = (hammer){.c = c, .io = io, .paths = paths, .id = i};
        CHECK(pthread_create(&th[i], NULL, hammer_run, &h[i]) == 0);
    }
    for (int i = 0; i < HAMMER_THREADS; i++) {
        pthread_join(th[i], NULL);
        CHECK_EQ_INT(h[i].bad, 0);
    }
    fl_ice_manifest_cache_stats(c, &st);
    CHECK_EQ_INT(st.hits + st.misses, HAMMER_THREADS * HAMMER_GETS);
    CHECK(st.misses >= HAMMER_FILES);
    CHECK(st.evictions > 0);
    CHECK(st.entries >= 1 && st.entries <= 3);
    CHECK(st.bytes <= budget);
    /* every file is still reachable and right after the churn */
    for (int k = 0; k < HAMMER_FILES; k++) {
        fl_ice_cache_entry *e = NULL;
        const fl_ice_metadata *m = NULL;
        CHECK_OK(ice_cache_get_metadata(c, io, paths[k], &e, &m, &err), &err);
        CHECK(m && m->last_updated_ms == 1000 + k);
        fl_ice_cache_release(e, c);
    }
    fl_ice_manifest_cache_free(c);
    fl_fileio_destroy(io);
    for (int k = 0; k < HAMMER_FILES; k++)
        unlink(paths[k]);
}

int main(void)
{
    if (!ft_tmpdir(g_dir, sizeof g_dir, "floe-mcache")) {
        perror("mkdtemp");
        return 1;
    }
    TEST_RUN(test_evict_repacks_cluster);
    TEST_RUN(test_release_after_cache_free);
    TEST_RUN(test_threads_hammer);
    rmdir(g_dir);
    return TEST_EXIT();
}
