/*
 * cache.c - two small pieces of shared state that make the hot paths cheap:
 *
 * 1. Commit lock stripes. Commits to one table inside one server process are
 *    serialized by a striped mutex (64 stripes, FNV-1a of "ns\x1ftable"), so
 *    concurrent clients of the same table queue instead of all writing a
 *    metadata file and all but one losing the compare-and-swap. This is only
 *    an optimization: the catalog CAS remains the correctness mechanism
 *    (other replicas and the CLI commit without this lock). Multi-table
 *    transactions take their stripes in ascending order (no deadlock).
 *
 * 2. LoadTableResult cache. A metadata file never changes once written, so
 *    the response body for (metadata location, snapshots mode) is cached
 *    (CACHE_SLOTS entries, least recently used evicted). loadTable then costs
 *    one catalog lookup plus a copy. Entries larger than 4 MiB are not kept.
 */
#include <stdlib.h>
#include <string.h>

#include "server/server_internal.h"

#define CACHE_SLOTS 128
#define CACHE_MAX_BODY (4u << 20)

typedef struct cache_entry {
    char *key;
    char *body;
    size_t len;
    uint64_t used;
} cache_entry;

struct srv_cache {
    pthread_mutex_t stripes[SRV_COMMIT_STRIPES];
    pthread_mutex_t mu;
    cache_entry e[CACHE_SLOTS];
    uint64_t tick;
};

srv_cache *srv_cache_new(void)
{
    srv_cache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    for (int i = 0; i < SRV_COMMIT_STRIPES; i++)
        pthread_mutex_init(&c->stripes[i], NULL);
    pthread_mutex_init(&c->mu, NULL);
    return c;
}

void srv_cache_free(srv_cache *c)
{
    if (!c)
        return;
    for (int i = 0; i < CACHE_SLOTS; i++)
        free(c->e[i].key), free(c->e[i].body);
    for (int i = 0; i < SRV_COMMIT_STRIPES; i++)
        pthread_mutex_destroy(&c->stripes[i]);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

uint32_t srv_stripe_of(const fl_table_ident *id)
{
    uint64_t h = 1469598103934665603ull;
    for (uint32_t i = 0; i < id->ns.nlevels; i++) {
        for (const char *p = id->ns.levels[i]; *p; p++)
            h = (h ^ (unsigned char)*p) * 1099511628211ull;
        h = (h ^ 0x1f) * 1099511628211ull;
    }
    for (const char *p = id->name; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    return (uint32_t)(h % SRV_COMMIT_STRIPES);
}

void srv_stripe_lock(srv_cache *c, uint32_t stripe)
{
    pthread_mutex_lock(&c->stripes[stripe]);
}

void srv_stripe_unlock(srv_cache *c, uint32_t stripe)
{
    pthread_mutex_unlock(&c->stripes[stripe]);
}

bool srv_cache_get(srv_cache *c, const char *key, char **body, size_t *len)
{
    bool hit = false;
    pthread_mutex_lock(&c->mu);
    for (int i = 0; i < CACHE_SLOTS; i++) {
        if (c->e[i].key && !strcmp(c->e[i].key, key)) {
            *body = malloc(c->e[i].len);
            if (*body) {
                memcpy(*body, c->e[i].body, c->e[i].len);
                *len = c->e[i].len;
                c->e[i].used = ++c->tick;
                hit = true;
            }
            break;
        }
    }
    pthread_mutex_unlock(&c->mu);
    return hit;
}

void srv_cache_put(srv_cache *c, const char *key, const char *body, size_t len)
{
    if (len > CACHE_MAX_BODY)
        return;
    char *k = strdup(key), *b = malloc(len ? len : 1);
    if (!k || !b) {
        free(k), free(b);
        return;
    }
    memcpy(b, body, len);
    pthread_mutex_lock(&c->mu);
    int victim = 0;
    for (int i = 0; i < CACHE_SLOTS; i++) {
        if (c->e[i].key && !strcmp(c->e[i].key, key)) { /* raced: keep the existing one */
            pthread_mutex_unlock(&c->mu);
            free(k), free(b);
            return;
        }
        if (!c->e[i].key || c->e[i].used < c->e[victim].used)
            victim = i;
        if (!c->e[i].key)
            break;
    }
    free(c->e[victim].key), free(c->e[victim].body);
    c->e[victim] = (cache_entry){k, b, len, ++c->tick};
    pthread_mutex_unlock(&c->mu);
}
