/* test_eval_basic.c - evaluator semantics: columns, constants, strict NULLs,
 * AND/OR three-valued logic, CASE/COALESCE laziness, IN lists, selections,
 * constant-in constant-out, to_string and folding. */
#include "sql/func_test_util.h"

static void test_arith_columns(void)
{
    tbatch tb = {0};
    tb_col(&tb, 0, "integer", "1|2|NULL|-4");
    tb_col(&tb, 1, "bigint", "10|20|30|NULL");
    CHECK_EQ_STR(eval_rows(E_call("+", E_col(&tb, 0), E_col(&tb, 1)), &tb), "11|22|NULL|NULL");
    CHECK_EQ_STR(eval_rows(E_call("*", E_col(&tb, 0), E_lit("3")), &tb), "3|6|NULL|-12");
    CHECK_EQ_STR(eval_rows(E_call("-", E_col(&tb, 0)), &tb), "-1|-2|NULL|4");
    CHECK_EQ_STR(eval_rows(E_call("/", E_col(&tb, 1), E_col(&tb, 0)), &tb), "10|10|NULL|NULL");
    CHECK_EQ_STR(eval_rows(E_call("%", E_col(&tb, 0), E_int(2)), &tb), "1|0|NULL|0");
    tb_free(&tb);
}

static void test_overflow_and_div0(void)
{
    tbatch tb = {0};
    tb_col(&tb, 0, "integer", "2147483647|1|0");
    const char *r = eval_rows(E_call("+", E_col(&tb, 0), E_int(1)), &tb);
    CHECK(strstr(r, "ERR: integer out of range in (c0 + 1)") == r);
    r = eval_rows(E_call("/", E_int(1), E_col(&tb, 0)), &tb);
    CHECK(strstr(r, "division by zero") != NULL);
    /* CASE WHEN c0 <> 0 THEN 1 / c0 END never divides by zero */
    fl_type it = {.id = FL_TYPE_INT32};
    fl_expr *guard = E_call("<>", E_col(&tb, 0), E_int(0));
    fl_expr *cs = E_kind(FL_EXPR_CASE, &it, guard, E_call("/", E_int(1), E_col(&tb, 0)), E_cast(E_null(), "integer"));
    CHECK_EQ_STR(eval_rows(cs, &tb), "0|1|NULL");
    /* errors only for selected rows */
    uint32_t idx[] = {1};
    fl_sel sel = {idx, 1, 1};
    CHECK_EQ_STR(eval_rows_sel(E_call("/", E_int(7), E_col(&tb, 0)), &tb, &sel), "7");
    tb_free(&tb);
    fl_expr *big = E_call("*", E_typed("bigint", "9223372036854775807"), E_int(2));
    CHECK(strstr(eval1(big), "bigint out of range") != NULL);
}

static void test_decimal(void)
{
    tbatch tb = {0};
    tb_col(&tb, 0, "numeric(15,2)", "1.25|-3.50|100.00");
    tb_col(&tb, 1, "numeric(15,2)", "0.05|0.10|0.07");
    fl_expr *e = E_call("*", E_col(&tb, 0), E_call("-", E_int(1), E_col(&tb, 1)));
    CHECK_EQ_INT(e->type.scale, 4);
    CHECK_EQ_STR(eval_rows(e, &tb), "1.1875|-3.1500|93.0000");
    CHECK_EQ_STR(eval_rows(E_call("+", E_col(&tb, 0), E_lit("0.005")), &tb), "1.255|-3.495|100.005");
    fl_expr *d = E_call("/", E_col(&tb, 0), E_typed("numeric(5,1)", "3"));
    CHECK_EQ_STR(eval_rows(d, &tb), "0.41666667|-1.16666667|33.33333333");
    CHECK_EQ_STR(eval1(E_call("/", E_typed("numeric(3,0)", "2"), E_typed("numeric(3,0)", "3"))), "0.666667");
    CHECK_EQ_STR(eval1(E_call("/", E_typed("numeric(3,0)", "-2"), E_typed("numeric(3,0)", "3"))), "-0.666667");
    CHECK_EQ_STR(eval1(E_cast(E_typed("numeric(10,3)", "2.5"), "integer")), "3");
    CHECK_EQ_STR(eval1(E_cast(E_typed("numeric(10,3)", "-2.5"), "integer")), "-3");
    CHECK_EQ_STR(eval1(E_cast(E_typed("double", "2.5"), "integer")), "2");
    CHECK_EQ_STR(eval1(E_cast(E_lit("1.005"), "numeric(10,2)")), "1.01");
    const char *r = eval1(E_cast(E_typed("numeric(10,2)", "12345.67"), "numeric(5,2)"));
    CHECK(strstr(r, "numeric field overflow") != NULL);
    tb_free(&tb);
}

static void test_compare_and_logic(void)
{
    tbatch tb = {0};
    tb_col(&tb, 0, "integer", "1|2|NULL|4");
    tb_col(&tb, 1, "text", "a|b|c|NULL");
    fl_expr *gt = E_call(">", E_col(&tb, 0), E_int(1));
    fl_expr *eq = E_call("=", E_col(&tb, 1), E_lit("c"));
    CHECK_EQ_STR(eval_rows(gt, &tb), "f|t|NULL|t");
    CHECK_EQ_STR(eval_rows(eq, &tb), "f|f|t|NULL");
    CHECK_EQ_STR(eval_rows(E_kind(FL_EXPR_AND, &T_BOOL, gt, eq), &tb), "f|f|NULL|NULL");
    CHECK_EQ_STR(eval_rows(E_kind(FL_EXPR_OR, &T_BOOL, gt, eq), &tb), "f|t|t|t");
    CHECK_EQ_STR(eval_rows(E_kind(FL_EXPR_NOT, &T_BOOL, gt), &tb), "t|f|NULL|f");
    CHECK_EQ_STR(eval_rows(E_kind(FL_EXPR_IS_NULL, &T_BOOL, E_col(&tb, 0)), &tb), "f|f|t|f");
    CHECK_EQ_STR(eval_rows(E_kind(FL_EXPR_IS_NOT_NULL, &T_BOOL, E_col(&tb, 1)), &tb), "t|t|t|f");
    fl_expr *dist = E_kind(FL_EXPR_IS_DISTINCT, &T_BOOL, E_col(&tb, 0), E_cast(E_lit("2"), "integer"));
    CHECK_EQ_STR(eval_rows(dist, &tb), "t|f|t|t");
    /* byte-order string comparison: 'B' < 'a' */
    CHECK_EQ_STR(eval1(E_call("<", E_lit("B"), E_typed("text", "a"))), "t");
    CHECK_EQ_STR(eval1(E_call("<", E_typed("text", "ab"), E_typed("text", "abc"))), "t");
    /* select */
    fl_eval_state *st;
    fl_error err;
    CHECK_OK(fl_eval_state_new(&T_env, &st, &err), &err);
    uint32_t idx[8];
    fl_sel out = {idx, 0, 8};
    CHECK_OK(fl_expr_select(st, E_kind(FL_EXPR_OR, &T_BOOL, gt, eq), &tb.b, NULL, &out, &err), &err);
    CHECK_EQ_INT(out.count, 3);
    CHECK_EQ_INT(idx[0], 1);
    CHECK_EQ_INT(idx[2], 3);
    CHECK_OK(fl_expr_select(st, E_kind(FL_EXPR_AND, &T_BOOL, gt, E_call("<", E_col(&tb, 0), E_int(4))), &tb.b, NULL,
                            &out, &err),
             &err);
    CHECK_EQ_INT(out.count, 1);
    CHECK_EQ_INT(idx[0], 1);
    fl_eval_state_free(st);
    tb_free(&tb);
}

static void test_case_coalesce_in(void)
{
    tbatch tb = {0};
    tb_col(&tb, 0, "integer", "1|2|NULL|4");
    tb_col(&tb, 1, "text", "x|NULL|NULL|w");
    fl_type tt = {.id = FL_TYPE_STRING};
    fl_expr *c = E_kind(FL_EXPR_COALESCE, &tt, E_col(&tb, 1), E_cast(E_col(&tb, 0), "text"), E_typed("text", "none"));
    CHECK_EQ_STR(eval_rows(c, &tb), "x|2|none|w");
    fl_expr *cs = E_kind(FL_EXPR_CASE, &tt, E_call("=", E_col(&tb, 0), E_int(1)), E_typed("text", "one"),
                         E_call(">", E_col(&tb, 0), E_int(1)), E_typed("text", "many"), E_typed("text", "other"));
    CHECK_EQ_STR(eval_rows(cs, &tb), "one|many|other|many");
    fl_expr *in = E_kind(FL_EXPR_IN_LIST, &T_BOOL, E_col(&tb, 0), E_int(2), E_int(4));
    CHECK_EQ_STR(eval_rows(in, &tb), "f|t|NULL|t");
    fl_expr *in_null = E_kind(FL_EXPR_IN_LIST, &T_BOOL, E_col(&tb, 0), E_int(2), E_cast(E_null(), "integer"));
    CHECK_EQ_STR(eval_rows(in_null, &tb), "NULL|t|NULL|NULL");
    in_null->negated = true;
    CHECK_EQ_STR(eval_rows(in_null, &tb), "NULL|f|NULL|NULL");
    fl_expr *sin = E_kind(FL_EXPR_IN_LIST, &T_BOOL, E_col(&tb, 1), E_typed("text", "w"), E_typed("text", "q"));
    CHECK_EQ_STR(eval_rows(sin, &tb), "f|NULL|NULL|t");
    tb_free(&tb);
}

static void test_constant_folding(void)
{
    fl_expr *e = E_call("+", E_int(2), E_call("*", E_int(3), E_int(4)));
    CHECK(fl_expr_is_constant(e));
    fl_value v;
    fl_error err;
    CHECK_OK(fl_expr_fold(e, &T_arena, &v, &err), &err);
    CHECK_EQ_INT(v.v.i32, 14);
    CHECK_EQ_STR(fl_expr_to_string(e, &T_arena), "(2 + (3 * 4))");
    tbatch tb = {0};
    tb_col(&tb, 0, "integer", "1|2");
    fl_expr *c = E_call("+", E_col(&tb, 0), E_int(1));
    CHECK(!fl_expr_is_constant(c));
    /* constant-in constant-out */
    fl_eval_state *st;
    CHECK_OK(fl_eval_state_new(&T_env, &st, &err), &err);
    fl_vector out;
    fl_vector_init(&out, &e->type, &err);
    CHECK_OK(fl_expr_eval(st, e, &tb.b, NULL, &out, &err), &err);
    CHECK_EQ_INT(out.encoding, FL_VEC_CONSTANT);
    CHECK_EQ_INT(out.len, 2);
    /* a column passes through as DICT without copying */
    CHECK_OK(fl_expr_eval(st, E_col(&tb, 0), &tb.b, NULL, &out, &err), &err);
    CHECK_EQ_INT(out.encoding, FL_VEC_DICT);
    CHECK(out.dict == &tb.cols[0]);
    fl_vector_destroy(&out);
    /* reuse across batches */
    fl_vector o2;
    fl_vector_init(&o2, &c->type, &err);
    for (int k = 0; k < 3; k++) {
        CHECK_OK(fl_expr_eval(st, c, &tb.b, NULL, &o2, &err), &err);
        CHECK_EQ_INT(((int32_t *)(void *)o2.data)[1], 3);
    }
    fl_vector_destroy(&o2);
    fl_eval_state_free(st);
    tb_free(&tb);
    /* unknown function */
    CHECK(E_call("nosuchfn", E_int(1)) == NULL);
    CHECK(strstr(T_err.msg, "function nosuchfn(integer) does not exist") != NULL);
    CHECK(E_call("+", E_typed("date", "2020-01-01"), E_typed("boolean", "t")) == NULL);
    CHECK(strstr(T_err.msg, "operator does not exist: date + boolean") != NULL);
}

int main(void)
{
    t_init();
    TEST_RUN(test_arith_columns);
    TEST_RUN(test_overflow_and_div0);
    TEST_RUN(test_decimal);
    TEST_RUN(test_compare_and_logic);
    TEST_RUN(test_case_coalesce_in);
    TEST_RUN(test_constant_folding);
    fl_arena_free(&T_arena);
    return TEST_EXIT();
}
