/*
 * test_exec_spill.c - operators under a small memory_limit: a sort larger
 * than its share of memory spills sorted runs and merges them (same rows, in
 * order, spilled_bytes counted, with offset), and an aggregate that cannot
 * spill fails cleanly with FL_ELIMIT naming the limit.
 */
#include "test.h"

#include "exec_fixture.h"

static void test_external_sort(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    tt_table *t = tt_new(&a, "isi");
    char name[64];
    const int64_t n = 120000;
    for (int64_t i = 0; i < n; i++) {
        int64_t k = (i * 7919) % n;
        snprintf(name, sizeof name, "payload-%08" PRId64 "-xxxxxxxxxxxxxxxx", k);
        tt_row(t, k, k % 3 == 0 ? (const char *)NULL : name, i);
    }
    fl_plan *s = tp_node(&a, FL_PLAN_SORT, 1, 3);
    s->children[0] = tp_scan(&a, t);
    s->schema = s->children[0]->schema;
    s->u.sort.nkeys = 1;
    s->u.sort.keys = fl_arena_calloc(&a, 1, sizeof(fl_sort_key));
    s->u.sort.keys[0] = (fl_sort_key){tx_col(&a, 0, &T_I64), true, false};
    s->u.sort.limit = -1;
    s->u.sort.offset = 5;
    fl_exec_options o = {.threads = 2, .memory_limit = 6u << 20};
    tr_result r = tr_run_opt(s, &o, true);
    CHECK_EQ_INT(r.rc, 0);
    if (r.rc)
        fprintf(stderr, "%s\n", r.err.msg);
    CHECK_EQ_INT(r.n, n - 5);
    bool ordered = r.n == (uint32_t)(n - 5);
    for (uint32_t i = 0; ordered && i < r.n; i++) {
        long long k = atoll(r.rows[i]);
        ordered = k == n - 6 - (long long)i;
    }
    CHECK(ordered);
    CHECK(atomic_load(&s->stats.spilled_bytes) > 0);
    tr_free(&r);
    /* the same sort in memory gives the same rows */
    fl_exec_options big = {.threads = 2};
    atomic_store(&s->stats.spilled_bytes, 0);
    tr_result m = tr_run_opt(s, &big, true);
    CHECK_EQ_INT(m.n, n - 5);
    CHECK_EQ_INT(atomic_load(&s->stats.spilled_bytes), 0);
    tr_free(&m);
    tt_free(t);
    fl_arena_free(&a);
}

/* GROUP BY k with many keys under a small limit: partitions spill, the
 * answer equals the in-memory one (sum, count, FILTER). */
static void test_agg_spill(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    tt_table *t = tt_new(&a, "isi");
    char name[64];
    const int64_t n = 150000;
    for (int64_t i = 0; i < n; i++) {
        int64_t k = (i * 104729) % 60000;
        snprintf(name, sizeof name, "key-%06" PRId64 "-padding-padding", k);
        tt_row(t, k, name, i % 13 == 0 ? TNULL : i % 100);
    }
    fl_plan *g = tp_node(&a, FL_PLAN_AGG, 1, 4);
    g->children[0] = tp_scan(&a, t);
    g->u.agg.nkeys = 1;
    g->u.agg.keys = fl_arena_calloc(&a, 1, sizeof(fl_expr *));
    g->u.agg.keys[0] = tx_col(&a, 1, &T_STR);
    g->schema.fields[0].type = T_STR;
    g->u.agg.naggs = 3;
    g->u.agg.aggs = fl_arena_calloc(&a, 3, sizeof(fl_agg_call));
    fl_expr **arg = fl_arena_calloc(&a, 1, sizeof *arg);
    arg[0] = tx_col(&a, 2, &T_I64);
    g->u.agg.aggs[0] = (fl_agg_call){.fn = &F_SUM, .ops = &OPS_SUM, .result = T_I64, .args = arg, .nargs = 1};
    g->u.agg.aggs[1] = (fl_agg_call){.fn = &F_COUNT, .ops = &OPS_COUNT, .result = T_I64};
    g->u.agg.aggs[2] = (fl_agg_call){.fn = &F_SUM, .ops = &OPS_SUM, .result = T_I64, .args = arg, .nargs = 1,
                                     .filter = tx_call(&a, &F_GT, &T_BOOL, tx_col(&a, 2, &T_I64), tx_i64(&a, 50))};
    for (int i = 1; i < 4; i++)
        g->schema.fields[i].type = T_I64;
    fl_exec_options small = {.threads = 2, .memory_limit = 12u << 20};
    tr_result r = tr_run_opt(g, &small, false);
    if (r.rc)
        fprintf(stderr, "%s\n", r.err.msg);
    CHECK_EQ_INT(r.rc, 0);
    CHECK_EQ_INT(r.n, 60000);
    CHECK(atomic_load(&g->stats.spilled_bytes) > 0);
    atomic_store(&g->stats.spilled_bytes, 0);
    fl_exec_options big = {.threads = 2};
    tr_result m = tr_run_opt(g, &big, false);
    CHECK_EQ_INT(atomic_load(&g->stats.spilled_bytes), 0);
    CHECK_EQ_INT(m.n, r.n);
    bool same = m.n == r.n;
    for (uint32_t i = 0; same && i < r.n; i++) {
        same = !strcmp(r.rows[i], m.rows[i]);
        if (!same)
            fprintf(stderr, "row %u: spilled %s, in memory %s\n", i, r.rows[i], m.rows[i]);
    }
    CHECK(same);
    tr_free(&r);
    tr_free(&m);
    tt_free(t);
    fl_arena_free(&a);
}

int main(void)
{
    TEST_RUN(test_external_sort);
    TEST_RUN(test_agg_spill);
    return TEST_EXIT();
}
