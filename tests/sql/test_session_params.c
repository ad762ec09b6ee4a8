/*
 * test_session_params.c - parameters of prepared statements: INSERT/UPDATE/
 * DELETE/MERGE parameters typed from their target columns and comparisons
 * (fl_sql_stmt_param_type), executed with bound values (no literal
 * inlining), inside and outside a transaction block; unconstrained
 * `$1::numeric` keeps the bound value's scale (text and decimal values).
 */
#include "sql/session/session_internal.h"
#include "sql/stmt_test_util.h"

static stmt_env E;

static fl_value text(const char *s)
{
    fl_value v;
    memset(&v, 0, sizeof v);
    v.type.id = FL_TYPE_STRING;
    v.v.bytes.ptr = (const uint8_t *)s;
    v.v.bytes.len = strlen(s);
    return v;
}

static fl_sql_stmt *prep(const char *sql)
{
    fl_sql_stmt *st = NULL;
    fl_error err = {0};
    if (fl_sql_prepare(E.s, sql, &st, &err) != FL_OK) {
        fprintf(stderr, "prepare %s: %s\n", sql, err.msg);
        test_case_failed_ = 1;
    }
    return st;
}

/* Executes st; the first column of the rows as text lines into out. */
static int exec_st(fl_sql_stmt *st, const fl_value *v, uint32_t n, char *out, size_t cap)
{
    fl_sql_result *r = NULL;
    fl_error err = {0};
    out[0] = '\0';
    int rc = fl_sql_stmt_execute(st, v, n, &r, &err);
    if (rc != FL_OK) {
        fprintf(stderr, "execute: %s\n", err.msg);
        return rc;
    }
    size_t used = 0;
    for (;;) {
        const fl_batch *b = NULL;
        bool eof = false;
        rc = fl_sql_result_next(r, &b, &eof, &err);
        if (rc != FL_OK || eof || !b)
            break;
        for (uint32_t k = 0; k < fl_batch_live_rows(b); k++) {
            uint32_t row = b->sel ? b->sel->idx[k] : k;
            char cell[128];
            fl_sql_format_value(&b->cols[0], row, "UTC", cell, sizeof cell);
            used += (size_t)snprintf(out + used, cap - used, "%s\n", cell);
            if (used >= cap - 1)
                used = cap - 1;
        }
    }
    fl_sql_result_close(r);
    return rc;
}

static void test_dml_types(void)
{
    RUN_OK(&E, "CREATE TABLE p (id int NOT NULL, v varchar, amt decimal(10,2), ts timestamptz)");
    fl_sql_stmt *ins = prep("INSERT INTO p (v, id, amt) VALUES ($1, $2, $3)");
    CHECK(ins && fl_sql_stmt_nparams(ins) == 3);
    if (ins) {
        CHECK_EQ_INT(fl_sql_stmt_param_type(ins, 0)->id, FL_TYPE_STRING);
        CHECK_EQ_INT(fl_sql_stmt_param_type(ins, 1)->id, FL_TYPE_INT32);
        CHECK_EQ_INT(fl_sql_stmt_param_type(ins, 2)->id, FL_TYPE_DECIMAL);
        CHECK_EQ_INT(fl_sql_stmt_param_type(ins, 2)->scale, 2);
        CHECK(fl_sql_stmt_params_typed(ins));
        char out[256];
        fl_value v[3] = {text("a"), text("1"), text("10.50")};
        CHECK_EQ_INT(exec_st(ins, v, 3, out, sizeof out), FL_OK);
        fl_value w[3] = {text("b"), text("2"), text("3")};
        CHECK_EQ_INT(exec_st(ins, w, 3, out, sizeof out), FL_OK);
    }
    fl_sql_stmt_close(ins);

    fl_sql_stmt *up = prep("UPDATE p SET amt = amt - $1, ts = $3 WHERE id = $2");
    CHECK(up && fl_sql_stmt_nparams(up) == 3);
    if (up) {
        CHECK_EQ_INT(fl_sql_stmt_param_type(up, 0)->id, FL_TYPE_DECIMAL);
        CHECK_EQ_INT(fl_sql_stmt_param_type(up, 1)->id, FL_TYPE_INT32);
        CHECK_EQ_INT(fl_sql_stmt_param_type(up, 2)->id, FL_TYPE_TIMESTAMPTZ);
        char out[256];
        fl_value v[3] = {text("0.25"), text("1"), text("2024-01-02 03:04:05+00")};
        CHECK_EQ_INT(exec_st(up, v, 3, out, sizeof out), FL_OK);
    }
    fl_sql_stmt_close(up);
    RUN_OK(&E, "SELECT id, v, amt, ts FROM p ORDER BY id");
    CHECK_EQ_STR(E.rows, "1|a|10.25|2024-01-02 03:04:05+00\n2|b|3.00|NULL\n");

    fl_sql_stmt *del = prep("DELETE FROM p WHERE id = $1 OR v = $2");
    CHECK(del && fl_sql_stmt_params_typed(del));
    if (del) {
        CHECK_EQ_INT(fl_sql_stmt_param_type(del, 0)->id, FL_TYPE_INT32);
        CHECK_EQ_INT(fl_sql_stmt_param_type(del, 1)->id, FL_TYPE_STRING);
    }
    fl_sql_stmt *mg = prep("MERGE INTO p USING (VALUES (1), (7)) s(id) ON p.id = s.id + $1 "
                           "WHEN MATCHED THEN UPDATE SET v = $2 "
                           "WHEN NOT MATCHED THEN INSERT (id, amt) VALUES (s.id, $3)");
    CHECK(mg && fl_sql_stmt_params_typed(mg));
    if (mg) {
        CHECK_EQ_INT(fl_sql_stmt_param_type(mg, 0)->id, FL_TYPE_INT32);
        CHECK_EQ_INT(fl_sql_stmt_param_type(mg, 1)->id, FL_TYPE_STRING);
        CHECK_EQ_INT(fl_sql_stmt_param_type(mg, 2)->id, FL_TYPE_DECIMAL);
        /* inside a block: staged, then committed */
        RUN_OK(&E, "BEGIN");
        char out[256];
        fl_value v[3] = {text("0"), text("merged"), text("7.7")};
        CHECK_EQ_INT(exec_st(mg, v, 3, out, sizeof out), FL_OK);
        fl_value d[2] = {text("2"), text("nobody")};
        CHECK_EQ_INT(exec_st(del, d, 2, out, sizeof out), FL_OK);
        RUN_OK(&E, "COMMIT");
    }
    fl_sql_stmt_close(mg);
    fl_sql_stmt_close(del);
    RUN_OK(&E, "SELECT id, v, amt FROM p ORDER BY id");
    CHECK_EQ_STR(E.rows, "1|merged|10.25\n7|NULL|7.70\n");

    /* a parameter no context types stays text, and the statement says so */
    fl_sql_stmt *cat = prep("UPDATE p SET v = $1 || $2 WHERE id = 1");
    CHECK(cat && !fl_sql_stmt_params_typed(cat));
    fl_sql_stmt_close(cat);
    /* a missing table is reported when the statement runs, not at prepare */
    fl_sql_stmt *miss = prep("DELETE FROM nosuch WHERE id = $1");
    CHECK(miss != NULL);
    if (miss) {
        char out[64];
        fl_value v[1] = {text("1")};
        CHECK(exec_st(miss, v, 1, out, sizeof out) == FL_ENOTFOUND);
    }
    fl_sql_stmt_close(miss);
}

static void test_numeric_scale(void)
{
    fl_sql_stmt *st = prep("SELECT $1::numeric");
    CHECK(st != NULL);
    if (!st)
        return;
    char out[256];
    fl_value v = text("1.120");
    CHECK_EQ_INT(exec_st(st, &v, 1, out, sizeof out), FL_OK);
    CHECK_EQ_STR(out, "1.120\n");
    v = text("-15e-1");
    CHECK_EQ_INT(exec_st(st, &v, 1, out, sizeof out), FL_OK);
    CHECK_EQ_STR(out, "-1.5\n");
    fl_value d;
    memset(&d, 0, sizeof d);
    d.type.id = FL_TYPE_DECIMAL;
    d.type.precision = 38;
    d.type.scale = 2;
    d.v.dec = -112;
    CHECK_EQ_INT(exec_st(st, &d, 1, out, sizeof out), FL_OK);
    CHECK_EQ_STR(out, "-1.12\n");
    v = text("12345678901234567890123456789012.5");
    CHECK_EQ_INT(exec_st(st, &v, 1, out, sizeof out), FL_OK);
    CHECK_EQ_STR(out, "12345678901234567890123456789012.5\n");
    fl_sql_stmt_close(st);
    /* a typmod is kept as written */
    st = prep("SELECT $1::numeric(10,3)");
    if (st) {
        v = text("1.5");
        CHECK_EQ_INT(exec_st(st, &v, 1, out, sizeof out), FL_OK);
        CHECK_EQ_STR(out, "1.500\n");
    }
    fl_sql_stmt_close(st);
}

int main(void)
{
    if (stmt_env_open(&E) != 0) {
        fprintf(stderr, "setup: %s\n", E.err.msg);
        return 1;
    }
    RUN_OK(&E, "CREATE SCHEMA IF NOT EXISTS test");
    TEST_RUN(test_dml_types);
    TEST_RUN(test_numeric_scale);
    stmt_env_close(&E);
    return TEST_EXIT();
}
