/*
 * test_exec_join.c - JOIN on hand-built plans: inner/left/right/full with
 * either build side, semi/anti/mark/single, cross and nested-loop joins,
 * NULL keys (never equal unless null-safe), residual conditions, empty
 * sides, duplicates, and parallel = serial on a bigger input.
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

static tt_table *L, *R;

static void tables(fl_arena *a)
{
    L = tt_new(a, "is");
    tt_row(L, (int64_t)1, "l1");
    tt_row(L, (int64_t)2, "l2");
    tt_row(L, (int64_t)2, "l2b");
    tt_row(L, TNULL, "lnull");
    tt_row(L, (int64_t)5, "l5");
    R = tt_new(a, "is");
    tt_row(R, (int64_t)2, "r2");
    tt_row(R, (int64_t)2, "r2b");
    tt_row(R, (int64_t)3, "r3");
    tt_row(R, TNULL, "rnull");
    tt_row(R, (int64_t)1, "r1");
}

static void run_case(fl_arena *a, fl_join_type type, bool build_left, const char *want)
{
    for (uint32_t th = 1; th <= 3; th += 2) {
        fl_plan *j = join_plan(a, tp_scan(a, L), tp_scan(a, R), type, build_left);
        tr_result r = tr_run(j, th);
        char *got = tr_join(&r);
        if (r.rc || strcmp(got, want))
            fprintf(stderr, "join type %d build_left %d threads %u\n", type, build_left, th);
        free(got);
        CHECK_ROWS(r, want);
        tr_free(&r);
    }
}

static void test_join_types(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    tables(&a);
    const char *inner = "1|l1|1|r1;2|l2b|2|r2;2|l2b|2|r2b;2|l2|2|r2;2|l2|2|r2b";
    run_case(&a, FL_JOIN_INNER, false, inner);
    run_case(&a, FL_JOIN_INNER, true, inner);
    const char *left = "1|l1|1|r1;2|l2b|2|r2;2|l2b|2|r2b;2|l2|2|r2;2|l2|2|r2b;5|l5|NULL|NULL;"
                       "NULL|lnull|NULL|NULL";
    run_case(&a, FL_JOIN_LEFT, false, left);
    run_case(&a, FL_JOIN_LEFT, true, left);
    const char *right = "1|l1|1|r1;2|l2b|2|r2;2|l2b|2|r2b;2|l2|2|r2;2|l2|2|r2b;NULL|NULL|3|r3;"
                        "NULL|NULL|NULL|rnull";
    run_case(&a, FL_JOIN_RIGHT, false, right);
    run_case(&a, FL_JOIN_RIGHT, true, right);
    const char *full = "1|l1|1|r1;2|l2b|2|r2;2|l2b|2|r2b;2|l2|2|r2;2|l2|2|r2b;5|l5|NULL|NULL;"
                       "NULL|NULL|3|r3;NULL|NULL|NULL|rnull;NULL|lnull|NULL|NULL";
    run_case(&a, FL_JOIN_FULL, false, full);
    run_case(&a, FL_JOIN_FULL, true, full);
    run_case(&a, FL_JOIN_SEMI, false, "1|l1;2|l2;2|l2b");
    run_case(&a, FL_JOIN_ANTI, false, "5|l5;NULL|lnull");
    /* SEMI/ANTI building the left side: left rows marked by the probe, then
     * emitted matched / unmatched (a NULL left key never matches) */
    run_case(&a, FL_JOIN_SEMI, true, "1|l1;2|l2;2|l2b");
    run_case(&a, FL_JOIN_ANTI, true, "5|l5;NULL|lnull");
    /* MARK: the right side has a NULL key, so non-matches are NULL */
    run_case(&a, FL_JOIN_MARK, false, "1|l1|t;2|l2b|t;2|l2|t;5|l5|NULL;NULL|lnull|NULL");
    tt_free(L);
    tt_free(R);
    fl_arena_free(&a);
}

static void test_mark_single_cross(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    tables(&a);
    /* MARK without NULLs on the build side: false for no match, NULL for a NULL probe key */
    tt_table *r2 = tt_new(&a, "is");
    tt_row(r2, (int64_t)2, "x");
    fl_plan *m = join_plan(&a, tp_scan(&a, L), tp_scan(&a, r2), FL_JOIN_MARK, false);
    tr_result r = tr_run(m, 2);
    CHECK_ROWS(r, "1|l1|f;2|l2b|t;2|l2|t;5|l5|f;NULL|lnull|NULL");
    tr_free(&r);
    /* MARK against an empty build side: all false */
    fl_plan *e = tp_node(&a, FL_PLAN_EMPTY, 0, 2);
    e->schema = R->schema;
    m = join_plan(&a, tp_scan(&a, L), e, FL_JOIN_MARK, false);
    r = tr_run(m, 2);
    CHECK_ROWS(r, "1|l1|f;2|l2b|f;2|l2|f;5|l5|f;NULL|lnull|f");
    tr_free(&r);
    /* ANTI against empty: everything; INNER against empty: nothing */
    fl_plan *an = join_plan(&a, tp_scan(&a, L), e, FL_JOIN_ANTI, false);
    r = tr_run(an, 2);
    CHECK_EQ_INT(r.n, 5);
    tr_free(&r);
    an = join_plan(&a, tp_scan(&a, L), e, FL_JOIN_ANTI, true);
    r = tr_run(an, 2);
    CHECK_ROWS(r, "1|l1;2|l2;2|l2b;5|l5;NULL|lnull");
    tr_free(&r);
    fl_plan *se = join_plan(&a, tp_scan(&a, L), e, FL_JOIN_SEMI, true);
    r = tr_run(se, 2);
    CHECK_ROWS(r, "");
    tr_free(&r);
    fl_plan *in = join_plan(&a, tp_scan(&a, L), e, FL_JOIN_INNER, false);
    r = tr_run(in, 2);
    CHECK_ROWS(r, "");
    tr_free(&r);
    /* SINGLE: one match is fine, two are an error */
    fl_plan *s = join_plan(&a, tp_scan(&a, L), tp_scan(&a, r2), FL_JOIN_SINGLE, false);
    r = tr_run(s, 2);
    CHECK_ROWS(r, "1|l1|NULL|NULL;2|l2b|2|x;2|l2|2|x;5|l5|NULL|NULL;NULL|lnull|NULL|NULL");
    tr_free(&r);
    s = join_plan(&a, tp_scan(&a, L), tp_scan(&a, R), FL_JOIN_SINGLE, false);
    r = tr_run(s, 2);
    CHECK_EQ_INT(r.rc, FL_EINVAL);
    CHECK(strstr(r.err.msg, "21000") != NULL);
    tr_free(&r);
    /* CROSS */
    fl_plan *c = join_plan(&a, tp_scan(&a, r2), tp_scan(&a, L), FL_JOIN_CROSS, false);
    r = tr_run(c, 2);
    CHECK_EQ_INT(r.n, 5);
    tr_free(&r);
    /* null-safe key: NULL matches NULL */
    fl_plan *ns = join_plan(&a, tp_scan(&a, L), tp_scan(&a, R), FL_JOIN_INNER, false);
    ns->u.join.null_safe[0] = true;
    r = tr_run(ns, 2);
    CHECK_ROWS(r, "1|l1|1|r1;2|l2b|2|r2;2|l2b|2|r2b;2|l2|2|r2;2|l2|2|r2b;NULL|lnull|NULL|rnull");
    tr_free(&r);
    tt_free(L);
    tt_free(R);
    tt_free(r2);
    fl_arena_free(&a);
}

static void test_residual_and_nested_loop(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    tables(&a);
    /* LEFT JOIN ON l.k = r.k AND l.name = 'l2' (string compare via a column
     * trick: residual = l.k + 0 > 1 keeps only k = 2) */
    fl_plan *j = join_plan(&a, tp_scan(&a, L), tp_scan(&a, R), FL_JOIN_LEFT, false);
    j->u.join.residual = tx_call(&a, &F_GT, &T_BOOL, tx_col(&a, 0, &T_I64), tx_i64(&a, 1));
    tr_result r = tr_run(j, 2);
    CHECK_ROWS(r, "1|l1|NULL|NULL;2|l2b|2|r2;2|l2b|2|r2b;2|l2|2|r2;2|l2|2|r2b;5|l5|NULL|NULL;"
                  "NULL|lnull|NULL|NULL");
    tr_free(&r);
    /* nested loop: no keys, l.k < r.k */
    fl_plan *nl = join_plan(&a, tp_scan(&a, L), tp_scan(&a, R), FL_JOIN_INNER, false);
    nl->u.join.nkeys = 0;
    nl->u.join.residual = tx_call(&a, &F_LT, &T_BOOL, tx_col(&a, 0, &T_I64), tx_col(&a, 2, &T_I64));
    r = tr_run(nl, 3);
    CHECK_ROWS(r, "1|l1|2|r2;1|l1|2|r2b;1|l1|3|r3;2|l2b|3|r3;2|l2|3|r3");
    tr_free(&r);
    /* ANTI with residual: no r with r.k = l.k and r.k > 1 */
    fl_plan *an = join_plan(&a, tp_scan(&a, L), tp_scan(&a, R), FL_JOIN_ANTI, false);
    an->u.join.residual = tx_call(&a, &F_GT, &T_BOOL, tx_col(&a, 2, &T_I64), tx_i64(&a, 1));
    r = tr_run(an, 2);
    CHECK_ROWS(r, "1|l1;5|l5;NULL|lnull");
    tr_free(&r);
    /* the same residual with the left side built, and SEMI: pairs failing
     * the residual do not mark the left row */
    for (uint32_t th = 1; th <= 3; th += 2) {
        an = join_plan(&a, tp_scan(&a, L), tp_scan(&a, R), FL_JOIN_ANTI, true);
        an->u.join.residual = tx_call(&a, &F_GT, &T_BOOL, tx_col(&a, 2, &T_I64), tx_i64(&a, 1));
        r = tr_run(an, th);
        CHECK_ROWS(r, "1|l1;5|l5;NULL|lnull");
        tr_free(&r);
        for (int bl = 0; bl < 2; bl++) {
            fl_plan *se = join_plan(&a, tp_scan(&a, L), tp_scan(&a, R), FL_JOIN_SEMI, bl);
            se->u.join.residual =
                tx_call(&a, &F_GT, &T_BOOL, tx_col(&a, 2, &T_I64), tx_i64(&a, 1));
            r = tr_run(se, th);
            CHECK_ROWS(r, "2|l2;2|l2b");
            tr_free(&r);
        }
    }
    tt_free(L);
    tt_free(R);
    fl_arena_free(&a);
}

static void test_join_big(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    tt_table *f = tt_new(&a, "ii"), *d = tt_new(&a, "is");
    f->batch_rows = 7000; /* materialized batches may be bigger than FL_BATCH_CAP */
    for (int64_t i = 0; i < 50000; i++)
        tt_row(f, i % 7001, i);
    char name[32];
    for (int64_t i = 0; i < 7000; i += 2) {
        snprintf(name, sizeof name, "d%" PRId64, i);
        tt_row(d, i, name);
    }
    fl_plan *j1 = join_plan(&a, tp_scan(&a, f), tp_scan(&a, d), FL_JOIN_LEFT, false);
    fl_plan *j4 = join_plan(&a, tp_scan(&a, f), tp_scan(&a, d), FL_JOIN_LEFT, true);
    tr_result r1 = tr_run(j1, 1), r4 = tr_run(j4, 4);
    CHECK_EQ_INT(r1.rc, 0);
    CHECK_EQ_INT(r1.n, 50000);
    CHECK_EQ_INT(r4.n, r1.n);
    bool same = r1.n == r4.n;
    for (uint32_t i = 0; same && i < r1.n; i++)
        same = !strcmp(r1.rows[i], r4.rows[i]);
    CHECK(same);
    tr_free(&r1);
    tr_free(&r4);
    tt_free(f);
    tt_free(d);
    fl_arena_free(&a);
}

int main(void)
{
    TEST_RUN(test_join_types);
    TEST_RUN(test_mark_single_cross);
    TEST_RUN(test_residual_and_nested_loop);
    TEST_RUN(test_join_big);
    return TEST_EXIT();
}
