/*
 * catpool.c - a fixed pool of catalog handles shared by the worker threads.
 *
 * fl_catalog handles are single-threaded (catalog.h), so each request that
 * touches the catalog checks one out (srv_cat, lazily, blocking while all
 * are busy) and dispatch returns it after the handler. All handles open the
 * same store: SQLite connections to one file (its busy timeout serializes
 * writers) or PostgreSQL connections; commits stay compare-and-swaps, so
 * handles never need to coordinate beyond the database.
 */
#include <stdlib.h>
#include <string.h>

#include "server/server_internal.h"

fl_status srv_catpool_init(fl_server *s, uint32_t n, fl_error *err)
{
    srv_catpool *p = &s->pool;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    p->free = calloc(n, sizeof *p->free);
    if (!p->free)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        fl_catalog *c = NULL;
        FL_TRY(fl_catalog_open_uri(s->catalog_uri, s->catalog_name, s->warehouse, s->io, &c, err));
        srv_confine(s, c);
        p->free[p->nfree++] = c;
        p->total++;
    }
    return FL_OK;
}

fl_catalog *srv_cat(fl_server_request *r)
{
    if (r->cat)
        return r->cat;
    srv_catpool *p = &r->srv->pool;
    pthread_mutex_lock(&p->mu);
    while (p->nfree == 0)
        pthread_cond_wait(&p->cv, &p->mu);
    r->cat = p->free[--p->nfree];
    pthread_mutex_unlock(&p->mu);
    return r->cat;
}

void srv_catpool_put(fl_server *s, fl_catalog *c)
{
    srv_catpool *p = &s->pool;
    pthread_mutex_lock(&p->mu);
    p->free[p->nfree++] = c;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

void srv_catpool_free(fl_server *s)
{
    srv_catpool *p = &s->pool;
    for (uint32_t i = 0; i < p->nfree; i++)
        fl_catalog_close(p->free[i]);
    free(p->free);
    p->free = NULL;
    p->nfree = p->total = 0;
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
}
