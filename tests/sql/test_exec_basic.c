/*
 * test_exec_basic.c - executor operators on hand-built plans over in-memory
 * rows: scan/filter/project, VALUES, EMPTY, LIMIT/OFFSET, SORT (multi-key,
 * NULL ordering, top-N), hash aggregation (NULL keys, string keys, empty
 * input, FILTER, DISTINCT aggregates, grouping sets), DISTINCT, set
 * operations, parallel = serial, cancellation and the memory limit.
 */
#include "test.h"

#include "exec_fixture.h"

static tt_table *people(fl_arena *a)
{
    tt_table *t = tt_new(a, "isi"); /* id, name, score */
    tt_row(t, (int64_t)1, "ann", (int64_t)10);
    tt_row(t, (int64_t)2, "bob", (int64_t)20);
    tt_row(t, (int64_t)3, (const char *)NULL, (int64_t)30);
    tt_row(t, (int64_t)4, "ann", TNULL);
    tt_row(t, (int64_t)5, "cid", (int64_t)20);
    tt_row(t, (int64_t)6, (const char *)NULL, (int64_t)5);
    return t;
}

static void test_scan_filter_project(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    tt_table *t = people(&a);
    fl_plan *s = tp_scan(&a, t);
    fl_plan *f = tp_node(&a, FL_PLAN_FILTER, 1, 3);
    f->children[0] = s;
    f->schema = s->schema;
    f->u.filter.filter = tx_call(&a, &F_GT, &T_BOOL, tx_col(&a, 2, &T_I64), tx_i64(&a, 10));
    fl_plan *p = tp_node(&a, FL_PLAN_PROJECT, 1, 2);
    p->children[0] = f;
    const fl_type *ts[] = {&T_STR, &T_I64};
    tp_types(p, ts);
    p->u.project.exprs = fl_arena_calloc(&a, 2, sizeof(fl_expr *));
    p->u.project.exprs[0] = tx_col(&a, 1, &T_STR);
    p->u.project.exprs[1] = tx_call(&a, &F_ADD, &T_I64, tx_col(&a, 0, &T_I64), tx_i64(&a, 100));
    for (uint32_t th = 1; th <= 3; th += 2) {
        tr_result r = tr_run(p, th);
        CHECK_ROWS(r, "NULL|103;bob|102;cid|105");
        tr_free(&r);
    }
    CHECK_EQ_INT(atomic_load(&s->stats.rows_out), 12); /* two runs */
    CHECK_EQ_INT(atomic_load(&f->stats.rows_out), 6);
    /* scan with its own exact filter and projection (columns 2, 0) */
    fl_plan *s2 = tp_scan(&a, t);
    s2->schema.nfields = 2;
    s2->schema.fields[0].type = T_I64;
    s2->schema.fields[1].type = T_I64;
    int32_t *cols = fl_arena_calloc(&a, 2, sizeof *cols);
    cols[0] = 2;
    cols[1] = 0;
    s2->u.scan.columns = cols;
    s2->u.scan.ncolumns = 2;
    s2->u.scan.filter = tx_call(&a, &F_LT, &T_BOOL, tx_col(&a, 0, &T_I64), tx_i64(&a, 20));
    tr_result r = tr_run(s2, 2);
    CHECK_ROWS(r, "10|1;5|6");
    tr_free(&r);
    tt_free(t);
    fl_arena_free(&a);
}

static void test_values_empty_limit(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_plan *v = tp_node(&a, FL_PLAN_VALUES, 0, 2);
    const fl_type *ts[] = {&T_I64, &T_STR};
    tp_types(v, ts);
    v->u.values.nrows = 3;
    v->u.values.rows = fl_arena_calloc(&a, 3, sizeof(fl_expr **));
    const char *names[] = {"x", NULL, "z"};
    for (int i = 0; i < 3; i++) {
        v->u.values.rows[i] = fl_arena_calloc(&a, 2, sizeof(fl_expr *));
        v->u.values.rows[i][0] = tx_i64(&a, i + 1);
        v->u.values.rows[i][1] = tx_str(&a, names[i]);
    }
    tr_result r = tr_run(v, 2);
    CHECK_ROWS(r, "1|x;2|NULL;3|z");
    tr_free(&r);

    fl_plan *l = tp_node(&a, FL_PLAN_LIMIT, 1, 2);
    l->children[0] = v;
    tp_types(l, ts);
    l->u.limit.limit = 1;
    l->u.limit.offset = 1;
    r = tr_run(l, 2);
    CHECK_ROWS(r, "2|NULL");
    tr_free(&r);
    l->u.limit.limit = -1;
    l->u.limit.offset = 5;
    r = tr_run(l, 2);
    CHECK_ROWS(r, "");
    tr_free(&r);

    fl_plan *e = tp_node(&a, FL_PLAN_EMPTY, 0, 2);
    tp_types(e, ts);
    r = tr_run(e, 2);
    CHECK_ROWS(r, "");
    tr_free(&r);
    fl_arena_free(&a);
}

static fl_plan *sort_plan(fl_arena *a, fl_plan *child, int64_t limit, int64_t offset)
{
    fl_plan *s = tp_node(a, FL_PLAN_SORT, 1, child->schema.nfields);
    s->children[0] = child;
    s->schema = child->schema;
    s->u.sort.nkeys = 2;
    s->u.sort.keys = fl_arena_calloc(a, 2, sizeof(fl_sort_key));
    /* ORDER BY name ASC NULLS FIRST, score DESC (NULLS FIRST, the PG default) */
    s->u.sort.keys[0] = (fl_sort_key){tx_col(a, 1, &T_STR), false, true};
    s->u.sort.keys[1] = (fl_sort_key){tx_col(a, 2, &T_I64), true, true};
    s->u.sort.limit = limit;
    s->u.sort.offset = offset;
    return s;
}

static void test_sort(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    tt_table *t = people(&a);
    fl_plan *s = sort_plan(&a, tp_scan(&a, t), -1, 0);
    fl_exec_options o = {.threads = 3};
    tr_result r = tr_run_opt(s, &o, true);
    CHECK_ROWS(r, "3|NULL|30;6|NULL|5;4|ann|NULL;1|ann|10;2|bob|20;5|cid|20");
    tr_free(&r);
    /* NULLS LAST on the first key */
    s->u.sort.keys[0].nulls_first = false;
    r = tr_run_opt(s, &o, true);
    CHECK_ROWS(r, "4|ann|NULL;1|ann|10;2|bob|20;5|cid|20;3|NULL|30;6|NULL|5");
    tr_free(&r);
    /* top-N with offset */
    fl_plan *top = sort_plan(&a, tp_scan(&a, t), 2, 1);
    r = tr_run_opt(top, &o, true);
    CHECK_ROWS(r, "6|NULL|5;4|ann|NULL");
    tr_free(&r);
    /* a big top-N spanning many batches, serial == parallel */
    tt_table *big = tt_new(&a, "is");
    char name[32];
    for (int64_t i = 0; i < 20000; i++) {
        snprintf(name, sizeof name, "n%05" PRId64, (i * 7919) % 20000);
        tt_row(big, (i * 7919) % 20000, name);
    }
    fl_plan *bs = tp_node(&a, FL_PLAN_SORT, 1, 2);
    bs->children[0] = tp_scan(&a, big);
    bs->schema = bs->children[0]->schema;
    bs->u.sort.nkeys = 1;
    bs->u.sort.keys = fl_arena_calloc(&a, 1, sizeof(fl_sort_key));
    bs->u.sort.keys[0] = (fl_sort_key){tx_col(&a, 1, &T_STR), true, true};
    bs->u.sort.limit = 3;
    bs->u.sort.offset = 0;
    r = tr_run_opt(bs, &o, true);
    CHECK_ROWS(r, "19999|n19999;19998|n19998;19997|n19997");
    tr_free(&r);
    bs->u.sort.limit = -1;
    r = tr_run_opt(bs, &o, true);
    CHECK_EQ_INT(r.n, 20000);
    bool ordered = true;
    for (uint32_t i = 1; i < r.n; i++)
        ordered &= strcmp(strchr(r.rows[i - 1], '|'), strchr(r.rows[i], '|')) > 0;
    CHECK(ordered);
    tr_free(&r);
    tt_free(big);
    tt_free(t);
    fl_arena_free(&a);
}

static fl_plan *agg_plan(fl_arena *a, fl_plan *child, uint32_t nkeys, const uint32_t *keycols,
                         const fl_type *const *keytypes)
{
    fl_plan *g = tp_node(a, FL_PLAN_AGG, 1, nkeys + 3);
    g->children[0] = child;
    g->u.agg.nkeys = nkeys;
    g->u.agg.keys = fl_arena_calloc(a, nkeys ? nkeys : 1, sizeof(fl_expr *));
    for (uint32_t k = 0; k < nkeys; k++) {
        g->u.agg.keys[k] = tx_col(a, keycols[k], keytypes[k]);
        g->schema.fields[k].type = *keytypes[k];
    }
    g->u.agg.naggs = 3;
    g->u.agg.aggs = fl_arena_calloc(a, 3, sizeof(fl_agg_call));
    fl_expr **arg = fl_arena_calloc(a, 1, sizeof *arg);
    arg[0] = tx_col(a, 2, &T_I64);
    /* sum(score), count(score), count(*) */
    g->u.agg.aggs[0] = (fl_agg_call){.fn = &F_SUM, .ops = &OPS_SUM, .result = T_I64, .args = arg, .nargs = 1};
    g->u.agg.aggs[1] = (fl_agg_call){.fn = &F_COUNT, .ops = &OPS_COUNT, .result = T_I64, .args = arg, .nargs = 1};
    g->u.agg.aggs[2] = (fl_agg_call){.fn = &F_COUNT, .ops = &OPS_COUNT, .result = T_I64};
    for (uint32_t i = 0; i < 3; i++)
        g->schema.fields[nkeys + i].type = T_I64;
    return g;
}

static void test_agg(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    tt_table *t = people(&a);
    uint32_t kc[] = {1};
    const fl_type *kt[] = {&T_STR};
    fl_plan *g = agg_plan(&a, tp_scan(&a, t), 1, kc, kt);
    for (uint32_t th = 1; th <= 4; th += 3) {
        tr_result r = tr_run(g, th);
        CHECK_ROWS(r, "NULL|35|2|2;ann|10|1|2;bob|20|1|1;cid|20|1|1");
        tr_free(&r);
    }
    /* no keys: one row; over no rows: sum NULL, counts 0 */
    fl_plan *g0 = agg_plan(&a, tp_scan(&a, t), 0, NULL, NULL);
    tr_result r = tr_run(g0, 2);
    CHECK_ROWS(r, "85|5|6");
    tr_free(&r);
    fl_plan *e = tp_node(&a, FL_PLAN_EMPTY, 0, 3);
    e->schema = t->schema;
    fl_plan *ge = agg_plan(&a, e, 0, NULL, NULL);
    r = tr_run(ge, 2);
    CHECK_ROWS(r, "NULL|0|0");
    tr_free(&r);
    fl_plan *gek = agg_plan(&a, e, 1, kc, kt);
    r = tr_run(gek, 2);
    CHECK_ROWS(r, "");
    tr_free(&r);
    /* FILTER (WHERE score > 10) on sum, DISTINCT count(score) */
    fl_plan *gf = agg_plan(&a, tp_scan(&a, t), 0, NULL, NULL);
    gf->u.agg.aggs[0].filter = tx_call(&a, &F_GT, &T_BOOL, tx_col(&a, 2, &T_I64), tx_i64(&a, 10));
    gf->u.agg.aggs[1].distinct = true;
    r = tr_run(gf, 3);
    CHECK_ROWS(r, "70|4|6");
    tr_free(&r);
    /* grouping sets: (name), () */
    fl_plan *gs = agg_plan(&a, tp_scan(&a, t), 1, kc, kt);
    static const uint32_t set0[] = {0};
    static const uint32_t *sets[] = {set0, NULL};
    static const uint32_t sizes[] = {1, 0};
    gs->u.agg.nsets = 2;
    gs->u.agg.sets = sets;
    gs->u.agg.set_sizes = sizes;
    r = tr_run(gs, 2);
    CHECK_ROWS(r, "NULL|35|2|2;NULL|85|5|6;ann|10|1|2;bob|20|1|1;cid|20|1|1");
    tr_free(&r);
    tt_free(t);
    fl_arena_free(&a);
}

static void test_agg_parallel_equals_serial(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    tt_table *t = tt_new(&a, "isi");
    t->batch_rows = 5000; /* bigger than FL_BATCH_CAP */
    char name[32];
    for (int64_t i = 0; i < 60000; i++) {
        snprintf(name, sizeof name, "k%" PRId64, i % 5003);
        tt_row(t, i, i % 97 == 0 ? (const char *)NULL : name, i % 11 == 0 ? TNULL : i % 1000);
    }
    uint32_t kc[] = {1};
    const fl_type *kt[] = {&T_STR};
    fl_plan *g = agg_plan(&a, tp_scan(&a, t), 1, kc, kt);
    tr_result r1 = tr_run(g, 1), r4 = tr_run(g, 4);
    CHECK_EQ_INT(r1.rc, 0);
    CHECK_EQ_INT(r4.rc, 0);
    CHECK_EQ_INT(r1.n, 5004);
    CHECK_EQ_INT(r4.n, r1.n);
    bool same = r1.n == r4.n;
    for (uint32_t i = 0; same && i < r1.n; i++)
        same = !strcmp(r1.rows[i], r4.rows[i]);
    CHECK(same);
    tr_free(&r1);
    tr_free(&r4);
    /* DISTINCT over (name) */
    fl_plan *pr = tp_node(&a, FL_PLAN_PROJECT, 1, 1);
    pr->children[0] = tp_scan(&a, t);
    pr->schema.fields[0].type = T_STR;
    pr->u.project.exprs = fl_arena_calloc(&a, 1, sizeof(fl_expr *));
    pr->u.project.exprs[0] = tx_col(&a, 1, &T_STR);
    fl_plan *d = tp_node(&a, FL_PLAN_DISTINCT, 1, 1);
    d->children[0] = pr;
    d->schema = pr->schema;
    r4 = tr_run(d, 4);
    CHECK_EQ_INT(r4.n, 5004);
    tr_free(&r4);
    tt_free(t);
    fl_arena_free(&a);
}

static fl_plan *ints(fl_arena *a, tt_table **keep, const int64_t *v, int n)
{
    tt_table *t = tt_new(a, "i");
    for (int i = 0; i < n; i++)
        tt_row(t, v[i]);
    *keep = t;
    return tp_scan(a, t);
}

static void test_setops(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    tt_table *t1, *t2;
    int64_t l[] = {1, 1, 2, 3, TNULL, TNULL};
    int64_t r[] = {1, 3, 3, 4, TNULL};
    fl_plan *c1 = ints(&a, &t1, l, 6), *c2 = ints(&a, &t2, r, 5);
    struct {
        fl_setop_type type;
        bool all;
        const char *want;
    } cases[] = {
        {FL_SETOP_UNION, true, "1;1;1;2;3;3;3;4;NULL;NULL;NULL"},
        {FL_SETOP_UNION, false, "1;2;3;4;NULL"},
        {FL_SETOP_INTERSECT, false, "1;3;NULL"},
        {FL_SETOP_INTERSECT, true, "1;3;NULL"},
        {FL_SETOP_EXCEPT, false, "2"},
        {FL_SETOP_EXCEPT, true, "1;2;NULL"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fl_plan *s = tp_node(&a, FL_PLAN_SETOP, 2, 1);
        s->children[0] = c1;
        s->children[1] = c2;
        s->schema.fields[0].type = T_I64;
        s->u.setop.type = cases[i].type;
        s->u.setop.all = cases[i].all;
        tr_result res = tr_run(s, 2);
        CHECK_ROWS(res, cases[i].want);
        tr_free(&res);
    }
    tt_free(t1);
    tt_free(t2);
    fl_arena_free(&a);
}

static void test_cancel_and_memory_limit(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    tt_table *t = tt_new(&a, "isi");
    for (int64_t i = 0; i < 20000; i++)
        tt_row(t, i, "some string payload", i);
    uint32_t kc[] = {0};
    const fl_type *kt[] = {&T_I64};
    fl_plan *g = agg_plan(&a, tp_scan(&a, t), 1, kc, kt);
    atomic_int cancel = 1;
    fl_exec_options o = {.threads = 2, .env = {.cancel = &cancel}};
    tr_result r = tr_run_opt(g, &o, false);
    CHECK_EQ_INT(r.rc, FL_ECANCELED);
    tr_free(&r);
    fl_exec_options m = {.threads = 2, .memory_limit = 64 * 1024};
    r = tr_run_opt(g, &m, false);
    CHECK_EQ_INT(r.rc, FL_ELIMIT);
    CHECK(strstr(r.err.msg, "memory limit") != NULL);
    tr_free(&r);
    tt_free(t);
    fl_arena_free(&a);
}

int main(void)
{
    TEST_RUN(test_scan_filter_project);
    TEST_RUN(test_values_empty_limit);
    TEST_RUN(test_sort);
    TEST_RUN(test_agg);
    TEST_RUN(test_agg_parallel_equals_serial);
    TEST_RUN(test_setops);
    TEST_RUN(test_cancel_and_memory_limit);
    return TEST_EXIT();
}
