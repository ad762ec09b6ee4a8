/*
 * bench_semantic.c - the semantic layer's compile time: the model folder
 * loaded (and validated) once, then each query shape compiled repeatedly.
 *
 *   bench_semantic [models=tests/semantic/models] [iterations=2000]
 *
 * Prints the load time and, per query shape, microseconds per compile
 * (median of 5 rounds) and the SQL's length.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "floe/semantic.h"

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

typedef struct shape {
    const char *name;
    const char *metrics[4];
    const char *group_by[3];
    const char *where;
} shape;

static const shape shapes[] = {
    {"simple by month", {"gross_revenue"}, {"metric_time__month"}, NULL},
    {"derived by month and region",
     {"net_revenue"},
     {"metric_time__month", "customer__region"},
     NULL},
    {"dashboard: 4 metrics, 2 joins, filter",
     {"net_revenue", "return_rate", "order_total", "customer_total"},
     {"metric_time__quarter", "customer__country__continent"},
     "{{ Dimension('customer__region') }} <> 'APAC'"},
    {"month over month", {"net_revenue_mom_delta"}, {"metric_time__month"}, NULL},
    {"cumulative 60 days by day", {"net_revenue_trailing_60_days"}, {"metric_time__day"}, NULL},
    {"conversion by channel",
     {"visit_to_order_rate"},
     {"metric_time__month", "visit__channel"},
     NULL},
};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "tests/semantic/models";
    int iters = argc > 2 ? atoi(argv[2]) : 2000;
    fl_error err = {0};
    fl_sem_model *m = NULL;
    double t0 = now_us();
    if (fl_sem_model_load_dir(dir, &m, &err) != FL_OK) {
        fprintf(stderr, "bench_semantic: %s\n", err.msg);
        return 1;
    }
    printf("load + validate %s: %.0f us (%u members)\n", dir, now_us() - t0,
           fl_sem_model_nmembers(m));
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        const shape *sh = &shapes[s];
        fl_sem_query q = {.metrics = sh->metrics,
                          .group_by = sh->group_by,
                          .where = &sh->where,
                          .nwhere = sh->where ? 1 : 0,
                          .limit = -1};
        while (q.nmetrics < 4 && sh->metrics[q.nmetrics])
            q.nmetrics++;
        while (q.ngroup_by < 3 && sh->group_by[q.ngroup_by])
            q.ngroup_by++;
        double rounds[5];
        size_t len = 0;
        for (int r = 0; r < 5; r++) {
            double start = now_us();
            for (int i = 0; i < iters; i++) {
                char *sql = NULL;
                if (fl_sem_compile(m, &q, NULL, 0, &sql, &err) != FL_OK) {
                    fprintf(stderr, "bench_semantic: %s: %s\n", sh->name, err.msg);
                    fl_sem_model_free(m);
                    return 1;
                }
                len = strlen(sql);
                free(sql);
            }
            rounds[r] = (now_us() - start) / iters;
        }
        qsort(rounds, 5, sizeof rounds[0], cmp_double);
        printf("%-40s %8.1f us/compile  (%zu bytes of SQL)\n", sh->name, rounds[2], len);
    }
    fl_sem_model_free(m);
    return 0;
}
