/*
 * test_manifest_cache.c - the shared Iceberg read cache's hash table under
 * eviction. Paths are chosen so that three entries share one probe cluster;
 * inserting the third evicts the first, which re-packs the cluster. The third
 * entry must still be found afterwards (CI once caught a use-after-free here:
 * the slot chosen before eviction was reused after it, leaving the entry
 * unreachable, so a later insert duplicated it and eviction freed an entry
 * still in the table).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "floe/ice_scan.h"
#include "floe/iceberg.h"
#include "iceberg/manifest_cache.h"
#include "test.h"

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
    ice_cache_entry *e = NULL;
    const fl_ice_metadata *m = NULL;
    CHECK_OK(ice_cache_get_metadata(c, io, path, &e, &m, &err), &err);
    CHECK(m && m->format_version == 2);
    ice_cache_release(e, c);
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

int main(void)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/floe-mcache-XXXXXX");
    if (!mkdtemp(g_dir)) {
        perror("mkdtemp");
        return 1;
    }
    TEST_RUN(test_evict_repacks_cluster);
    rmdir(g_dir);
    return TEST_EXIT();
}
