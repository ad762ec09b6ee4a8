/*
 * test_exec_join_keys.c - the hash join's key paths: packed keys (one
 * 8-byte key; two keys packed as int32 halves), the fallback to hashed keys
 * when a build value does not fit in an int32, probe values that cannot be
 * packed, negative values, NULLs in either key, string keys, long chains of
 * duplicates (one probe row with more matches than a batch holds), and a
 * bigger input checked against the expected count with 1 and 3 threads.
 */
#include "test.h"

#include "exec_fixture.h"

/* INNER join of l and r on l.c[lk[i]] = r.c[rk[i]] for nk keys. */
static fl_plan *join_keys(fl_arena *a, tt_table *l, tt_table *r, fl_join_type type,
                          bool build_left, const uint32_t *lk, const uint32_t *rk, uint32_t nk)
{
    fl_plan *lp = tp_scan(a, l), *rp = tp_scan(a, r);
    uint32_t nl = lp->schema.nfields, nr = rp->schema.nfields;
    uint32_t n = type == FL_JOIN_SEMI || type == FL_JOIN_ANTI ? nl : nl + nr;
    fl_plan *j = tp_node(a, FL_PLAN_JOIN, 2, n);
    j->children[0] = lp;
    j->children[1] = rp;
    for (uint32_t i = 0; i < n; i++)
        j->schema.fields[i].type =
            i < nl ? lp->schema.fields[i].type : rp->schema.fields[i - nl].type;
    j->u.join.type = type;
    j->u.join.build_left = build_left;
    j->u.join.nkeys = nk;
    j->u.join.left_keys = fl_arena_calloc(a, nk, sizeof(fl_expr *));
    j->u.join.right_keys = fl_arena_calloc(a, nk, sizeof(fl_expr *));
    j->u.join.null_safe = fl_arena_calloc(a, nk, sizeof(bool));
    for (uint32_t k = 0; k < nk; k++) {
        j->u.join.left_keys[k] = tx_col(a, lk[k], &lp->schema.fields[lk[k]].type);
        j->u.join.right_keys[k] = tx_col(a, rk[k], &rp->schema.fields[rk[k]].type);
    }
    return j;
}

static void check_both_sides(fl_arena *a, tt_table *l, tt_table *r, const uint32_t *lk,
                             const uint32_t *rk, uint32_t nk, const char *want)
{
    for (int bl = 0; bl < 2; bl++)
        for (uint32_t th = 1; th <= 3; th += 2) {
            tr_result res = tr_run(join_keys(a, l, r, FL_JOIN_INNER, bl, lk, rk, nk), th);
            char *got = tr_join(&res);
            if (strcmp(got, want))
                fprintf(stderr, "build_left %d threads %u\n", bl, th);
            free(got);
            CHECK_ROWS(res, want);
            tr_free(&res);
        }
}

static void test_two_keys(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    const uint32_t k01[2] = {0, 1};
    tt_table *l = tt_new(&a, "iis"), *r = tt_new(&a, "iis");
    tt_row(l, (int64_t)1, (int64_t)-1, "a");
    tt_row(l, (int64_t)1, (int64_t)2, "b");
    tt_row(l, (int64_t)-7, (int64_t)2147483647, "c");
    tt_row(l, (int64_t)3, TNULL, "d");
    tt_row(l, (int64_t)5000000000, (int64_t)1, "e"); /* probe value beyond int32 */
    tt_row(l, (int64_t)2, (int64_t)1, "f");
    tt_row(r, (int64_t)1, (int64_t)-1, "x");
    tt_row(r, (int64_t)-7, (int64_t)2147483647, "y");
    tt_row(r, (int64_t)3, TNULL, "z"); /* NULL keys never match */
    tt_row(r, (int64_t)1, (int64_t)2, "w");
    tt_row(r, (int64_t)1, (int64_t)2, "w2");
    tt_row(r, (int64_t)705032704, (int64_t)1, "trunc"); /* 5000000000 mod 2^32 */
    tt_row(r, (int64_t)1, (int64_t)2, "w3");
    tt_row(r, (int64_t)-1, (int64_t)1, "swap"); /* (1,-1) swapped halves */
    /* every build value fits in an int32 when r is built: packed table */
    const char *want = "-7|2147483647|c|-7|2147483647|y;1|-1|a|1|-1|x;1|2|b|1|2|w;"
                       "1|2|b|1|2|w2;1|2|b|1|2|w3";
    check_both_sides(&a, l, r, k01, k01, 2, want);
    /* a build value beyond int32: the table falls back to hashed keys */
    tt_row(r, (int64_t)5000000000, (int64_t)1, "big");
    const char *want2 = "-7|2147483647|c|-7|2147483647|y;1|-1|a|1|-1|x;1|2|b|1|2|w;"
                        "1|2|b|1|2|w2;1|2|b|1|2|w3;5000000000|1|e|5000000000|1|big";
    check_both_sides(&a, l, r, k01, k01, 2, want2);
    /* the keys in the other order, and a single key */
    const uint32_t k10[2] = {1, 0}, k1[1] = {1};
    check_both_sides(&a, l, r, k10, k10, 2, want2);
    tr_result res = tr_run(join_keys(&a, l, r, FL_JOIN_INNER, false, k1, k1, 1), 2);
    CHECK_EQ_INT(res.rc, 0);
    CHECK_EQ_INT(res.n, 1 + 1 + 3 + 2 * 3); /* -1; 2147483647; 2: w,w2,w3; two 1s: trunc,swap,big */
    tr_free(&res);
    tt_free(l);
    tt_free(r);
    fl_arena_free(&a);
}

static void test_string_and_three_keys(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    tt_table *l = tt_new(&a, "sii"), *r = tt_new(&a, "sii");
    tt_row(l, "k1", (int64_t)1, (int64_t)1);
    tt_row(l, "k2", (int64_t)1, (int64_t)2);
    tt_row(l, NULL, (int64_t)1, (int64_t)1);
    tt_row(l, "", (int64_t)3, (int64_t)3);
    tt_row(r, "k1", (int64_t)1, (int64_t)1);
    tt_row(r, "k2", (int64_t)1, (int64_t)3);
    tt_row(r, NULL, (int64_t)1, (int64_t)1);
    tt_row(r, "", (int64_t)3, (int64_t)3);
    const uint32_t k0[1] = {0}, k012[3] = {0, 1, 2};
    check_both_sides(&a, l, r, k0, k0, 1, "k1|1|1|k1|1|1;k2|1|2|k2|1|3;|3|3||3|3");
    check_both_sides(&a, l, r, k012, k012, 3, "k1|1|1|k1|1|1;|3|3||3|3");
    tt_free(l);
    tt_free(r);
    fl_arena_free(&a);
}

/* One key value with 5000 build rows: a probe row's matches span several
 * output batches; plus 20000 distinct keys (most probes miss). */
static void test_chains_and_misses(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    tt_table *l = tt_new(&a, "ii"), *r = tt_new(&a, "ii");
    for (int64_t i = 0; i < 5000; i++)
        tt_row(r, (int64_t)-3, i);
    for (int64_t i = 0; i < 20000; i++)
        tt_row(r, i * 7, i);
    for (int64_t i = 0; i < 40000; i++)
        tt_row(l, i * 3 - 3, i);
    /* l keys -3, 0, 3, ..., 119994; r keys -3 (x5000) and multiples of 7 up to 139993:
     * matches = 5000 (key -3) + the 5715 multiples of 21 in [0, 119994] */
    const uint32_t k0[1] = {0}, k01[2] = {0, 1};
    for (int bl = 0; bl < 2; bl++)
        for (uint32_t th = 1; th <= 3; th += 2) {
            tr_result res = tr_run(join_keys(&a, l, r, FL_JOIN_INNER, bl, k0, k0, 1), th);
            CHECK_EQ_INT(res.rc, 0);
            CHECK_EQ_INT(res.n, 5000 + 5715);
            tr_free(&res);
            res = tr_run(join_keys(&a, l, r, FL_JOIN_SEMI, bl, k0, k0, 1), th);
            CHECK_EQ_INT(res.n, 1 + 5715);
            tr_free(&res);
            res = tr_run(join_keys(&a, l, r, FL_JOIN_ANTI, bl, k0, k0, 1), th);
            CHECK_EQ_INT(res.n, 40000 - 1 - 5715);
            tr_free(&res);
            /* two keys: l (3i-3, i) and r (7j, j) never agree (i = j gives 4i = 3);
             * r (-3, j) meets l (-3, 0) at j = 0 only */
            res = tr_run(join_keys(&a, l, r, FL_JOIN_INNER, bl, k01, k01, 2), th);
            CHECK_ROWS(res, "-3|0|-3|0");
            tr_free(&res);
        }
    tt_free(l);
    tt_free(r);
    fl_arena_free(&a);
}

int main(void)
{
    TEST_RUN(test_two_keys);
    TEST_RUN(test_string_and_three_keys);
    TEST_RUN(test_chains_and_misses);
    return TEST_EXIT();
}
