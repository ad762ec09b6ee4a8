/*
 * bench_sql_exec.c - executor throughput on generated in-memory data
 * (FL_SCAN_ROWS, so no file decoding is measured):
 *   agg   SELECT k, sum(v), count(*) FROM t GROUP BY k   (N rows, N/40 keys)
 *   join  SELECT count(*) FROM t JOIN d ON t.k = d.k     (d: N/40 rows + string)
 *   sort  SELECT * FROM t ORDER BY v                     (N/4 rows)
 *   topn  SELECT * FROM t ORDER BY v LIMIT 10
 * each with 1 thread and with THREADS (default: online CPUs).
 *
 *   bench_sql_exec [ROWS] [THREADS]     (ROWS default 4000000)
 *
 * Prints one JSON line per run: {"query":..,"threads":..,"rows":..,"seconds":..,"mrows_per_s":..}.
 * The sum/count aggregates are local to this driver (plain int64 kernels),
 * so the figures measure the executor, not src/sql/func.
 */
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "floe/arena.h"
#include "sql/exec.h"
#include "sql/func.h"
#include "sql/plan.h"

static fl_type T_I64 = {.id = FL_TYPE_INT64};
static fl_type T_STR = {.id = FL_TYPE_STRING};

typedef struct st_sum {
    int64_t sum, n;
} st_sum;
static void s_init(void *s)
{
    memset(s, 0, sizeof(st_sum));
}
static fl_status s_update(void *const *st, const fl_vector *const *args, uint32_t nargs,
                          const fl_sel *sel, uint32_t nrows, fl_error *err)
{
    (void)err;
    uint32_t cnt = sel ? sel->count : nrows;
    if (!nargs) {
        for (uint32_t i = 0; i < cnt; i++)
            ((st_sum *)st[i])->n++;
        return FL_OK;
    }
    fl_unified u;
    fl_vector_unify(args[0], &u);
    const int64_t *d = (const int64_t *)u.base->data;
    for (uint32_t i = 0; i < cnt; i++) {
        uint32_t r = sel ? sel->idx[i] : i;
        if (!fl_unified_is_valid(&u, r))
            continue;
        st_sum *s = st[i];
        s->sum += d[fl_unified_row(&u, r)];
        s->n++;
    }
    return FL_OK;
}
static fl_status s_combine(void *d, const void *s, fl_error *err)
{
    (void)err;
    ((st_sum *)d)->sum += ((const st_sum *)s)->sum;
    ((st_sum *)d)->n += ((const st_sum *)s)->n;
    return FL_OK;
}
static fl_status s_final_sum(void *const *st, uint32_t n, const fl_type *t, fl_vector *out,
                             fl_error *err)
{
    (void)t;
    for (uint32_t i = 0; i < n; i++)
        FL_TRY(fl_vector_append_fixed(out, &((st_sum *)st[i])->sum, err));
    return FL_OK;
}
static fl_status s_final_count(void *const *st, uint32_t n, const fl_type *t, fl_vector *out,
                               fl_error *err)
{
    (void)t;
    for (uint32_t i = 0; i < n; i++)
        FL_TRY(fl_vector_append_fixed(out, &((st_sum *)st[i])->n, err));
    return FL_OK;
}
static const fl_agg_ops OPS_SUM = {sizeof(st_sum), 8, s_init, s_update, s_combine, s_final_sum,
                                   NULL, NULL, NULL};
static const fl_agg_ops OPS_COUNT = {sizeof(st_sum), 8, s_init, s_update, s_combine,
                                     s_final_count, NULL, NULL, NULL};

static fl_plan *node(fl_arena *a, fl_plan_kind kind, uint32_t nchildren, uint32_t ncols)
{
    fl_plan *p = fl_arena_calloc(a, 1, sizeof *p);
    p->kind = kind;
    p->nchildren = nchildren;
    p->children = fl_arena_calloc(a, nchildren ? nchildren : 1, sizeof *p->children);
    p->schema.nfields = ncols;
    p->schema.fields = fl_arena_calloc(a, ncols ? ncols : 1, sizeof(fl_field));
    for (uint32_t i = 0; i < ncols; i++)
        p->schema.fields[i].name = "c";
    return p;
}

static fl_expr *col(fl_arena *a, uint32_t c, const fl_type *t)
{
    fl_expr *e = fl_arena_calloc(a, 1, sizeof *e);
    e->kind = FL_EXPR_COLUMN;
    e->type = *t;
    e->column = c;
    e->location = -1;
    return e;
}

typedef struct table {
    fl_schema schema;
    fl_batch **b;
    uint32_t n;
    fl_row_source src;
} table;

static table *gen(fl_arena *a, uint64_t rows, uint64_t keys, bool strings)
{
    table *t = fl_arena_calloc(a, 1, sizeof *t);
    t->schema.nfields = strings ? 3 : 2;
    t->schema.fields = fl_arena_calloc(a, 3, sizeof(fl_field));
    t->schema.fields[0] = (fl_field){.name = "k", .type = T_I64, .nullable = true};
    t->schema.fields[1] = (fl_field){.name = "v", .type = T_I64, .nullable = true};
    t->schema.fields[2] = (fl_field){.name = "s", .type = T_STR, .nullable = true};
    t->n = (uint32_t)((rows + FL_BATCH_CAP - 1) / FL_BATCH_CAP);
    t->b = calloc(t->n, sizeof *t->b);
    fl_error err;
    uint64_t x = 88172645463325252ull;
    for (uint32_t bi = 0; bi < t->n; bi++) {
        fl_batch *b = calloc(1, sizeof *b);
        fl_batch_init(b, &t->schema, &err);
        uint32_t m = (uint32_t)(rows - (uint64_t)bi * FL_BATCH_CAP < FL_BATCH_CAP
                                    ? rows - (uint64_t)bi * FL_BATCH_CAP
                                    : FL_BATCH_CAP);
        fl_vector_reserve(&b->cols[0], m, &err);
        fl_vector_reserve(&b->cols[1], m, &err);
        for (uint32_t i = 0; i < m; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            int64_t k = (int64_t)(x % keys), v = (int64_t)(x >> 40);
            if (!strings)
                k = (int64_t)(((uint64_t)bi * FL_BATCH_CAP + i) % keys);
            memcpy(b->cols[0].data + 8 * i, &k, 8);
            memcpy(b->cols[1].data + 8 * i, &v, 8);
            if (strings) {
                char s[32];
                int len = snprintf(s, sizeof s, "name-%" PRId64, k);
                fl_vector_append_bytes(&b->cols[2], s, (size_t)len, &err);
            }
        }
        b->cols[0].len = b->cols[1].len = m;
        b->nrows = m;
        t->b[bi] = b;
    }
    t->src.batches = (const fl_batch *const *)t->b;
    t->src.nbatches = t->n;
    return t;
}

static fl_plan *scan(fl_arena *a, table *t)
{
    fl_plan *p = node(a, FL_PLAN_SCAN, 0, t->schema.nfields);
    for (uint32_t i = 0; i < t->schema.nfields; i++)
        p->schema.fields[i].type = t->schema.fields[i].type;
    p->u.scan.kind = FL_SCAN_ROWS;
    p->u.scan.rows = &t->src;
    p->u.scan.file_schema = &t->schema;
    p->u.scan.limit = -1;
    return p;
}

static fl_plan *agg(fl_arena *a, fl_plan *child, bool keyed)
{
    uint32_t nk = keyed ? 1 : 0;
    fl_plan *g = node(a, FL_PLAN_AGG, 1, nk + 2);
    g->children[0] = child;
    for (uint32_t i = 0; i < nk + 2; i++)
        g->schema.fields[i].type = T_I64;
    g->u.agg.nkeys = nk;
    g->u.agg.keys = fl_arena_calloc(a, 1, sizeof(fl_expr *));
    g->u.agg.keys[0] = col(a, 0, &T_I64);
    g->u.agg.naggs = 2;
    g->u.agg.aggs = fl_arena_calloc(a, 2, sizeof(fl_agg_call));
    fl_expr **arg = fl_arena_calloc(a, 1, sizeof *arg);
    arg[0] = col(a, 1, &T_I64);
    g->u.agg.aggs[0] = (fl_agg_call){.ops = &OPS_SUM, .result = T_I64, .args = arg, .nargs = 1};
    g->u.agg.aggs[1] = (fl_agg_call){.ops = &OPS_COUNT, .result = T_I64};
    return g;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void run(const char *name, fl_plan *p, uint32_t threads, uint64_t rows)
{
    fl_exec_options o = {.threads = threads};
    fl_error err = {0};
    fl_exec *x = NULL;
    double t0 = now();
    uint64_t out = 0;
    fl_status rc = fl_exec_open(p, &o, &x, &err);
    while (!rc) {
        const fl_batch *b;
        bool eof;
        rc = fl_exec_next(x, &b, &eof, &err);
        if (rc || eof)
            break;
        out += fl_batch_live_rows(b);
    }
    fl_exec_close(x);
    double s = now() - t0;
    if (rc) {
        fprintf(stderr, "%s: %s\n", name, err.msg);
        return;
    }
    printf("{\"query\":\"%s\",\"threads\":%u,\"rows\":%" PRIu64 ",\"out_rows\":%" PRIu64
           ",\"seconds\":%.3f,\"mrows_per_s\":%.1f}\n",
           name, threads, rows, out, s, (double)rows / s / 1e6);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    uint64_t rows = argc > 1 ? strtoull(argv[1], NULL, 10) : 4000000;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    uint32_t threads = argc > 2 ? (uint32_t)atoi(argv[2]) : (uint32_t)(cpus > 0 ? cpus : 1);
    fl_arena a;
    fl_arena_init(&a, 0);
    table *t = gen(&a, rows, rows / 40 ? rows / 40 : 1, false);
    table *d = gen(&a, rows / 40 ? rows / 40 : 1, rows / 40 ? rows / 40 : 1, true);
    table *q = gen(&a, rows / 4 ? rows / 4 : 1, rows, false);
    uint32_t ths[2] = {1, threads};
    for (int i = 0; i < (threads > 1 ? 2 : 1); i++) {
        uint32_t th = ths[i];
        run("agg", agg(&a, scan(&a, t), true), th, rows);
        fl_plan *j = node(&a, FL_PLAN_JOIN, 2, 5);
        j->children[0] = scan(&a, t);
        j->children[1] = scan(&a, d);
        for (uint32_t c = 0; c < 5; c++)
            j->schema.fields[c].type = c == 4 ? T_STR : T_I64;
        j->u.join.type = FL_JOIN_INNER;
        j->u.join.nkeys = 1;
        j->u.join.left_keys = fl_arena_calloc(&a, 1, sizeof(fl_expr *));
        j->u.join.right_keys = fl_arena_calloc(&a, 1, sizeof(fl_expr *));
        j->u.join.left_keys[0] = col(&a, 0, &T_I64);
        j->u.join.right_keys[0] = col(&a, 0, &T_I64);
        j->u.join.null_safe = fl_arena_calloc(&a, 1, sizeof(bool));
        run("join", agg(&a, j, false), th, rows);
        fl_plan *s = node(&a, FL_PLAN_SORT, 1, 2);
        s->children[0] = scan(&a, q);
        s->schema.fields[0].type = s->schema.fields[1].type = T_I64;
        s->u.sort.nkeys = 1;
        s->u.sort.keys = fl_arena_calloc(&a, 1, sizeof(fl_sort_key));
        s->u.sort.keys[0] = (fl_sort_key){col(&a, 1, &T_I64), false, false};
        s->u.sort.limit = -1;
        run("sort", s, th, rows / 4);
        fl_plan *tn = node(&a, FL_PLAN_SORT, 1, 2);
        *tn = *s;
        tn->u.sort.limit = 10;
        tn->children = fl_arena_calloc(&a, 1, sizeof(fl_plan *));
        tn->children[0] = scan(&a, t);
        memset(&tn->stats, 0, sizeof tn->stats);
        run("topn", tn, th, rows);
    }
    for (table *tb[] = {t, d, q}, **p = tb; p < tb + 3; p++) {
        for (uint32_t i = 0; i < (*p)->n; i++) {
            fl_batch_destroy((*p)->b[i]);
            free((*p)->b[i]);
        }
        free((*p)->b);
    }
    fl_arena_free(&a);
    return 0;
}
