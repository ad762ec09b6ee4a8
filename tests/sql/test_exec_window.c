/*
 * test_exec_window.c - WINDOW on hand-built plans: ranking functions with
 * peers, ntile, lag/lead with offsets and defaults, first/last/nth_value,
 * running sums (default RANGE frame with peers), ROWS frames, whole
 * partition without ORDER BY, NULL partitions.
 */
#include "test.h"

#include "exec_fixture.h"

static const fl_func F_ROW_NUMBER = {.name = "row_number", .kind = FL_FUNC_WINDOW};
static const fl_func F_RANK = {.name = "rank", .kind = FL_FUNC_WINDOW};
static const fl_func F_DENSE_RANK = {.name = "dense_rank", .kind = FL_FUNC_WINDOW};
static const fl_func F_LAG = {.name = "lag", .kind = FL_FUNC_WINDOW};
static const fl_func F_LEAD = {.name = "lead", .kind = FL_FUNC_WINDOW};
static const fl_func F_NTILE = {.name = "ntile", .kind = FL_FUNC_WINDOW};
static const fl_func F_FIRST = {.name = "first_value", .kind = FL_FUNC_WINDOW};
static const fl_func F_LAST = {.name = "last_value", .kind = FL_FUNC_WINDOW};
static const fl_func F_CUME = {.name = "cume_dist", .kind = FL_FUNC_WINDOW};

static tt_table *T;

/* grp, val */
static void table(fl_arena *a)
{
    T = tt_new(a, "si");
    tt_row(T, "a", (int64_t)1);
    tt_row(T, "a", (int64_t)2);
    tt_row(T, "a", (int64_t)2);
    tt_row(T, "a", (int64_t)4);
    tt_row(T, "b", (int64_t)10);
    tt_row(T, (const char *)NULL, (int64_t)7);
    tt_row(T, (const char *)NULL, (int64_t)8);
}

static fl_plan *win(fl_arena *a, const fl_func *fn, const fl_agg_ops *ops, const fl_type *rt,
                    fl_expr **args, uint32_t nargs, bool order)
{
    fl_plan *w = tp_node(a, FL_PLAN_WINDOW, 1, 3);
    w->children[0] = tp_scan(a, T);
    w->schema.fields[0].type = T_STR;
    w->schema.fields[1].type = T_I64;
    w->schema.fields[2].type = *rt;
    w->u.window.ncalls = 1;
    fl_window_call *c = fl_arena_calloc(a, 1, sizeof *c);
    w->u.window.calls = c;
    c->fn = fn;
    c->ops = ops;
    c->result = *rt;
    c->args = args;
    c->nargs = nargs;
    c->npartition = 1;
    c->partition_by = fl_arena_calloc(a, 1, sizeof(fl_expr *));
    c->partition_by[0] = tx_col(a, 0, &T_STR);
    if (order) {
        c->norder = 1;
        c->order_by = fl_arena_calloc(a, 1, sizeof(fl_sort_key));
        c->order_by[0] = (fl_sort_key){tx_col(a, 1, &T_I64), false, false};
    }
    return w;
}

static void check_win(fl_plan *w, const char *want)
{
    for (uint32_t th = 1; th <= 3; th += 2) {
        tr_result r = tr_run(w, th);
        CHECK_ROWS(r, want);
        tr_free(&r);
    }
}

static void test_ranking(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    table(&a);
    check_win(win(&a, &F_ROW_NUMBER, NULL, &T_I64, NULL, 0, true),
              "NULL|7|1;NULL|8|2;a|1|1;a|2|2;a|2|3;a|4|4;b|10|1");
    check_win(win(&a, &F_RANK, NULL, &T_I64, NULL, 0, true),
              "NULL|7|1;NULL|8|2;a|1|1;a|2|2;a|2|2;a|4|4;b|10|1");
    check_win(win(&a, &F_DENSE_RANK, NULL, &T_I64, NULL, 0, true),
              "NULL|7|1;NULL|8|2;a|1|1;a|2|2;a|2|2;a|4|3;b|10|1");
    check_win(win(&a, &F_CUME, NULL, &T_F64, NULL, 0, true),
              "NULL|7|0.5;NULL|8|1;a|1|0.25;a|2|0.75;a|2|0.75;a|4|1;b|10|1");
    fl_expr **two = fl_arena_calloc(&a, 1, sizeof(fl_expr *));
    two[0] = tx_i64(&a, 3);
    check_win(win(&a, &F_NTILE, NULL, &T_I64, two, 1, true),
              "NULL|7|1;NULL|8|2;a|1|1;a|2|1;a|2|2;a|4|3;b|10|1");
    tt_free(T);
    fl_arena_free(&a);
}

static void test_offsets_and_values(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    table(&a);
    fl_expr **args = fl_arena_calloc(&a, 3, sizeof(fl_expr *));
    args[0] = tx_col(&a, 1, &T_I64);
    args[1] = tx_i64(&a, 1);
    args[2] = tx_i64(&a, -1);
    check_win(win(&a, &F_LAG, NULL, &T_I64, args, 3, true),
              "NULL|7|-1;NULL|8|7;a|1|-1;a|2|1;a|2|2;a|4|2;b|10|-1");
    check_win(win(&a, &F_LEAD, NULL, &T_I64, args, 1, true),
              "NULL|7|8;NULL|8|NULL;a|1|2;a|2|2;a|2|4;a|4|NULL;b|10|NULL");
    check_win(win(&a, &F_FIRST, NULL, &T_I64, args, 1, true),
              "NULL|7|7;NULL|8|7;a|1|1;a|2|1;a|2|1;a|4|1;b|10|10");
    /* last_value with the default frame sees up to the current row's peers */
    check_win(win(&a, &F_LAST, NULL, &T_I64, args, 1, true),
              "NULL|7|7;NULL|8|8;a|1|1;a|2|2;a|2|2;a|4|4;b|10|10");
    tt_free(T);
    fl_arena_free(&a);
}

static void test_window_aggregates(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    table(&a);
    fl_expr **args = fl_arena_calloc(&a, 1, sizeof(fl_expr *));
    args[0] = tx_col(&a, 1, &T_I64);
    /* running sum with peers */
    check_win(win(&a, &F_SUM, &OPS_SUM, &T_I64, args, 1, true),
              "NULL|7|7;NULL|8|15;a|1|1;a|2|5;a|2|5;a|4|9;b|10|10");
    /* whole partition without ORDER BY */
    check_win(win(&a, &F_SUM, &OPS_SUM, &T_I64, args, 1, false),
              "NULL|7|15;NULL|8|15;a|1|9;a|2|9;a|2|9;a|4|9;b|10|10");
    /* ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING */
    fl_plan *w = win(&a, &F_SUM, &OPS_SUM, &T_I64, args, 1, true);
    fl_window_call *c = &w->u.window.calls[0];
    c->has_frame = true;
    c->frame_rows = true;
    c->frame_start = FL_FRAME_PRECEDING;
    c->start_offset = 1;
    c->frame_end = FL_FRAME_FOLLOWING;
    c->end_offset = 1;
    check_win(w, "NULL|7|15;NULL|8|15;a|1|3;a|2|5;a|2|8;a|4|6;b|10|10");
    /* RANGE BETWEEN 1 PRECEDING AND CURRENT ROW */
    c->frame_rows = false;
    c->frame_end = FL_FRAME_CURRENT_ROW;
    check_win(w, "NULL|7|7;NULL|8|15;a|1|1;a|2|5;a|2|5;a|4|4;b|10|10");
    /* RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING: starts at the first
     * peer (the peer group is found once per group) */
    c->frame_start = FL_FRAME_CURRENT_ROW;
    c->frame_end = FL_FRAME_UNBOUNDED_FOLLOWING;
    check_win(w, "NULL|7|15;NULL|8|8;a|1|9;a|2|8;a|2|8;a|4|4;b|10|10");
    /* count(*) ROWS UNBOUNDED PRECEDING .. CURRENT ROW */
    fl_plan *cnt = win(&a, &F_COUNT, &OPS_COUNT, &T_I64, NULL, 0, true);
    c = &cnt->u.window.calls[0];
    c->has_frame = true;
    c->frame_rows = true;
    c->frame_start = FL_FRAME_UNBOUNDED_PRECEDING;
    c->frame_end = FL_FRAME_CURRENT_ROW;
    check_win(cnt, "NULL|7|1;NULL|8|2;a|1|1;a|2|2;a|2|3;a|4|4;b|10|1");
    tt_free(T);
    fl_arena_free(&a);
}

int main(void)
{
    TEST_RUN(test_ranking);
    TEST_RUN(test_offsets_and_values);
    TEST_RUN(test_window_aggregates);
    return TEST_EXIT();
}
