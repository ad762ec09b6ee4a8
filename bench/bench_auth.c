/*
 * bench_auth.c - the cost auth adds to every REST request: one
 * fl_auth_authenticate (JWT verify + store version check + principal lookup)
 * plus one fl_auth_authorize (version check + grant resolution), from
 * several threads sharing one fl_auth, as floe serve does. Also the token
 * endpoint's cost (PBKDF2) and a grant-table-size sweep.
 *
 *   bench_auth [store-uri=sqlite:/tmp/floe-bench-auth.db] [threads=2] [seconds=3]
 *
 * Prints checks/s overall and per-check latency p50/p99.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "floe/auth.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

typedef struct warg {
    fl_auth *a;
    const char *hdr;
    double seconds;
    long n, fails;
    double *lat;
    long cap;
} warg;

static void *worker(void *x)
{
    warg *w = x;
    const char *lv[] = {"db", "sales"};
    fl_namespace ns = {2, lv};
    double end = now_s() + w->seconds;
    while (now_s() < end) {
        double t0 = now_s();
        fl_principal p;
        fl_error err;
        if (fl_auth_authenticate(w->a, w->hdr, &p, &err) != FL_OK ||
            fl_auth_authorize(w->a, &p, FL_PRIV_READ, &ns, "orders", &err) != FL_OK)
            w->fails++;
        if (w->n < w->cap)
            w->lat[w->n] = now_s() - t0;
        w->n++;
    }
    return NULL;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    const char *uri = argc > 1 ? argv[1] : "sqlite:/tmp/floe-bench-auth.db";
    int nt = argc > 2 ? atoi(argv[2]) : 2;
    double secs = argc > 3 ? atof(argv[3]) : 3;
    if (!strncmp(uri, "sqlite:", 7))
        unlink(uri + 7);
    fl_auth_options o = {.store_uri = uri};
    fl_auth *a = NULL;
    fl_error err;
    char sec[64], name[64], hdr[4200];
    if (fl_auth_open(&o, &a, &err) != FL_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    fl_auth_principal_create(a, "bench", false, sec, sizeof sec, &err);
    fl_auth_role_create(a, "bench_role", &err);
    fl_auth_role_assign(a, "bench", "bench_role", true, &err);
    /* 500 unrelated grants to resolve through, then the one that matters */
    for (int i = 0; i < 500; i++) {
        snprintf(name, sizeof name, "other%d", i);
        const char *lv[] = {name};
        fl_namespace ns = {1, lv};
        fl_auth_grant(a, "bench_role", FL_PRIV_WRITE, &ns, NULL, true, &err);
    }
    const char *lv[] = {"db"};
    fl_namespace db = {1, lv};
    fl_auth_grant(a, "bench_role", FL_PRIV_READ, &db, NULL, true, &err);
    double t0 = now_s();
    char *tok = NULL;
    int exp;
    int ntok = 20;
    for (int i = 0; i < ntok; i++) {
        free(tok);
        if (fl_auth_token_issue(a, "bench", sec, &tok, &exp, &err) != FL_OK) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
    }
    printf("token issue (PBKDF2 4096 + sign): %.2f ms each\n", (now_s() - t0) * 1e3 / ntok);
    snprintf(hdr, sizeof hdr, "Bearer %s", tok);
    pthread_t th[64];
    warg w[64];
    if (nt < 1 || nt > 64)
        nt = 2;
    for (int i = 0; i < nt; i++) {
        w[i] = (warg){a, hdr, secs, 0, 0, NULL, 2000000};
        w[i].lat = malloc(sizeof(double) * (size_t)w[i].cap);
        pthread_create(&th[i], NULL, worker, &w[i]);
    }
    long total = 0, fails = 0, nl = 0;
    double *all = malloc(sizeof(double) * 2000000 * (size_t)nt);
    for (int i = 0; i < nt; i++) {
        pthread_join(th[i], NULL);
        total += w[i].n;
        fails += w[i].fails;
        long k = w[i].n < w[i].cap ? w[i].n : w[i].cap;
        memcpy(all + nl, w[i].lat, sizeof(double) * (size_t)k);
        nl += k;
        free(w[i].lat);
    }
    qsort(all, (size_t)nl, sizeof *all, cmp_d);
    printf("authenticate+authorize, %s, %d threads, 501 grants: %.0f checks/s, p50 %.1f us, p99 "
           "%.1f us, %ld failures\n",
           uri, nt, total / secs, all[nl / 2] * 1e6, all[nl * 99 / 100] * 1e6, fails);
    free(all);
    free(tok);
    fl_auth_close(a);
    return fails != 0;
}
