/*
 * test_exec_join_spill.c - the grace hash join (op_join_grace.c): with a
 * memory_limit far below the build side, every join type (inner, left,
 * right, full, semi and anti with either build side, mark, single), with NULL
 * keys, null-safe keys, residual conditions and a skewed key (one
 * partition over the budget is split again, down to a partition that holds
 * a single key and cannot be split), returns exactly the rows of the
 * in-memory join, on one and on two threads; spilled_bytes shows it spilled
 * and the in-memory run did not. A nested-loop join (no keys) cannot be
 * partitioned and still fails cleanly with FL_ELIMIT.
 */
#include "test.h"

#include "exec_fixture.h"

static fl_plan *join_plan(fl_arena *a, fl_plan *l, fl_plan *r, fl_join_type type, bool build_left)
{
    uint32_t nl = l->schema.nfields, nr = r->schema.nfields;
    uint32_t n = type == FL_JOIN_SEMI || type == FL_JOIN_ANTI ? nl
                 : type == FL_JOIN_MARK                       ? nl + 1
                                                              : nl + nr;
    fl_plan *j = tp_node(a, FL_PLAN_JOIN, 2, n);
    j->children[0] = l;
    j->children[1] = r;
    for (uint32_t i = 0; i < nl && i < n; i++)
        j->schema.fields[i].type = l->schema.fields[i].type;
    if (type == FL_JOIN_MARK)
        j->schema.fields[nl].type = T_BOOL;
    else
        for (uint32_t i = nl; i < n; i++)
            j->schema.fields[i].type = r->schema.fields[i - nl].type;
    j->u.join.type = type;
    j->u.join.build_left = build_left;
    if (type != FL_JOIN_CROSS) {
        j->u.join.nkeys = 1;
        j->u.join.left_keys = fl_arena_calloc(a, 1, sizeof(fl_expr *));
        j->u.join.right_keys = fl_arena_calloc(a, 1, sizeof(fl_expr *));
        j->u.join.left_keys[0] = tx_col(a, 0, &T_I64);
        j->u.join.right_keys[0] = tx_col(a, 0, &T_I64);
        j->u.join.null_safe = fl_arena_calloc(a, 1, sizeof(bool));
    }
    return j;
}

static tt_table *L, *R, *U;
static const uint64_t LIMIT = 4u << 20; /* budget: 1 MiB a thread on 2 threads */

static void tables(fl_arena *a)
{
    char s[64];
    /* L: 20000 rows, keys 0..39999 step 2 (half find no match), NULL keys, two rows of key 7 */
    L = tt_new(a, "isi");
    for (int64_t i = 0; i < 20000; i++) {
        snprintf(s, sizeof s, "left-%06lld", (long long)i);
        tt_row(L, i % 101 == 0 ? TNULL : (i * 2) % 40000, s, i % 13);
    }
    tt_row(L, (int64_t)7, "left-seven-a", (int64_t)5);
    tt_row(L, (int64_t)7, "left-seven-b", (int64_t)11);
    /* R: 30000 rows over 0..29999 with duplicates and NULL keys, plus 15000 rows of key 7 */
    R = tt_new(a, "isi");
    for (int64_t i = 0; i < 30000; i++) {
        snprintf(s, sizeof s, "right-payload-%06lld-xxxxxxxxxxxxxxxxxx", (long long)i);
        tt_row(R, i % 89 == 0 ? TNULL : (i * 7919) % 30000 / 2 * 3, s, i % 17);
    }
    for (int64_t i = 0; i < 15000; i++) {
        snprintf(s, sizeof s, "seven-%06lld-yyyyyyyyyyyyyyyyyyyyyyyyyyyyy", (long long)i);
        tt_row(R, (int64_t)7, s, i % 19);
    }
    /* U: unique keys (SINGLE), no NULLs */
    U = tt_new(a, "is");
    for (int64_t i = 0; i < 40000; i++) {
        snprintf(s, sizeof s, "unique-%06lld-zzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", (long long)i);
        tt_row(U, i * 3, s);
    }
}

/* Runs j in memory and under LIMIT on 2 threads (and 1 when one_too): same
 * rows, and it spilled. */
static void compare_on(fl_plan *j, const char *what, bool one_too)
{
    fl_exec_options mem = {.threads = 2};
    atomic_store(&j->stats.spilled_bytes, 0);
    tr_result want = tr_run_opt(j, &mem, false);
    CHECK_EQ_INT(want.rc, 0);
    if (want.rc)
        fprintf(stderr, "%s in memory: %s\n", what, want.err.msg);
    CHECK_EQ_INT(atomic_load(&j->stats.spilled_bytes), 0);
    CHECK(want.n > 0);
    for (uint32_t th = one_too ? 1 : 2; th <= 2; th++) {
        fl_exec_options small = {.threads = th, .memory_limit = LIMIT};
        atomic_store(&j->stats.spilled_bytes, 0);
        tr_result got = tr_run_opt(j, &small, false);
        if (got.rc)
            fprintf(stderr, "%s spilling on %u threads: %s\n", what, th, got.err.msg);
        CHECK_EQ_INT(got.rc, 0);
        CHECK_EQ_INT(got.n, want.n);
        bool same = got.n == want.n;
        for (uint32_t i = 0; same && i < got.n; i++)
            same = strcmp(got.rows[i], want.rows[i]) == 0;
        if (!same)
            fprintf(stderr, "%s spilling on %u threads: rows differ (%u vs %u)\n", what, th,
                    got.n, want.n);
        CHECK(same);
        long long sp = atomic_load(&j->stats.spilled_bytes);
        if (sp <= 0)
            fprintf(stderr, "%s on %u threads did not spill\n", what, th);
        CHECK(sp > 0);
        tr_free(&got);
    }
    tr_free(&want);
}

static void compare(fl_plan *j, const char *what)
{
    compare_on(j, what, false);
}

static void test_every_type(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    tables(&a);
    static const struct {
        fl_join_type t;
        bool build_left;
        const char *name;
    } cases[] = {
        {FL_JOIN_INNER, false, "inner"}, {FL_JOIN_INNER, true, "inner build-left"},
        {FL_JOIN_LEFT, false, "left"},   {FL_JOIN_LEFT, true, "left build-left"},
        {FL_JOIN_RIGHT, false, "right"}, {FL_JOIN_RIGHT, true, "right build-left"},
        {FL_JOIN_FULL, false, "full"},   {FL_JOIN_FULL, true, "full build-left"},
        {FL_JOIN_SEMI, false, "semi"},   {FL_JOIN_SEMI, true, "semi build-left"},
        {FL_JOIN_ANTI, false, "anti"},   {FL_JOIN_ANTI, true, "anti build-left"},
        {FL_JOIN_MARK, false, "mark"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* build-left cases build L: make L the big side by swapping the inputs */
        fl_plan *j = cases[i].build_left
                         ? join_plan(&a, tp_scan(&a, R), tp_scan(&a, L), cases[i].t, true)
                         : join_plan(&a, tp_scan(&a, L), tp_scan(&a, R), cases[i].t, false);
        compare_on(j, cases[i].name, i % 4 == 0); /* one thread too for some */
    }
    /* SINGLE against unique keys */
    compare(join_plan(&a, tp_scan(&a, L), tp_scan(&a, U), FL_JOIN_SINGLE, false), "single");
    /* MARK against a build side without NULL keys: false, not NULL, for misses */
    compare(join_plan(&a, tp_scan(&a, L), tp_scan(&a, U), FL_JOIN_MARK, false), "mark no nulls");
    /* null-safe key: NULL matches NULL */
    fl_plan *ns = join_plan(&a, tp_scan(&a, L), tp_scan(&a, R), FL_JOIN_INNER, false);
    ns->u.join.null_safe[0] = true;
    compare(ns, "null-safe inner");
    /* residual: l.v > r.v over left ++ right columns */
    static const fl_join_type rt[] = {FL_JOIN_INNER, FL_JOIN_LEFT, FL_JOIN_FULL, FL_JOIN_ANTI,
                                      FL_JOIN_SEMI, FL_JOIN_MARK};
    for (size_t i = 0; i < sizeof rt / sizeof rt[0]; i++) {
        fl_plan *j = join_plan(&a, tp_scan(&a, L), tp_scan(&a, R), rt[i], false);
        j->u.join.residual = tx_call(&a, &F_GT, &T_BOOL, tx_col(&a, 2, &T_I64),
                                     tx_col(&a, 5, &T_I64));
        char name[64];
        snprintf(name, sizeof name, "residual type %d", (int)rt[i]);
        compare(j, name);
    }
    /* SEMI/ANTI with a residual, left side built (R is the big left side) */
    for (int anti = 0; anti < 2; anti++) {
        fl_plan *j = join_plan(&a, tp_scan(&a, R), tp_scan(&a, L),
                               anti ? FL_JOIN_ANTI : FL_JOIN_SEMI, true);
        j->u.join.residual = tx_call(&a, &F_GT, &T_BOOL, tx_col(&a, 2, &T_I64),
                                     tx_col(&a, 5, &T_I64));
        compare(j, anti ? "residual anti build-left" : "residual semi build-left");
    }
    tt_free(L);
    tt_free(R);
    tt_free(U);
    fl_arena_free(&a);
}

/* A nested loop cannot be partitioned: over the limit it fails with FL_ELIMIT. */
static void test_nested_loop_limit(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    tables(&a);
    fl_plan *j = join_plan(&a, tp_scan(&a, L), tp_scan(&a, R), FL_JOIN_INNER, false);
    j->u.join.nkeys = 0;
    j->u.join.residual = tx_call(&a, &F_EQ, &T_BOOL, tx_col(&a, 0, &T_I64), tx_col(&a, 3, &T_I64));
    fl_exec_options o = {.threads = 2, .memory_limit = 1u << 20};
    tr_result r = tr_run_opt(j, &o, false);
    CHECK_EQ_INT(r.rc, FL_ELIMIT);
    CHECK(strstr(r.err.msg, "memory limit") != NULL);
    tr_free(&r);
    tt_free(L);
    tt_free(R);
    tt_free(U);
    fl_arena_free(&a);
}

int main(void)
{
    TEST_RUN(test_every_type);
    TEST_RUN(test_nested_loop_limit);
    return TEST_EXIT();
}
