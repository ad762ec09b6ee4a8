/* test_func_fastpath.c - the typed fast paths of the expression kernels
 * against their general paths:
 *  - decimal + - * computed in int64 when operands and result fit, falling
 *    back to 128-bit arithmetic per row at the int64 boundary (results must
 *    be exact, overflow still an error), with CONSTANT operands on either
 *    side, with selections, and with rescaling (rounding half away from zero);
 *  - LIKE patterns made of literals and '%' only (memmem segments), checked
 *    against a reference backtracking matcher on every pattern/subject pair
 *    over a small alphabet. */
#include <stdio.h>
#include <stdlib.h>

#include "func_test_util.h"

static fl_expr *D(const char *type, const char *text)
{
    return E_typed(type, text);
}

static void test_dec_int64_boundary(void)
{
    tbatch tb = {0};
    /* 9223372036854775807 = INT64_MAX: products and sums cross it */
    tb_col(&tb, 0, "numeric(19,0)", "9223372036854775807|-9223372036854775807|4611686018427387904|12|NULL|-3");
    tb_col(&tb, 1, "numeric(19,0)", "1|-2|2|-5|7|9223372036854775807");
    CHECK_EQ_STR(eval_rows(E_call("+", E_col(&tb, 0), E_col(&tb, 1)), &tb),
                 "9223372036854775808|-9223372036854775809|4611686018427387906|7|NULL|9223372036854775804");
    CHECK_EQ_STR(eval_rows(E_call("-", E_col(&tb, 0), E_col(&tb, 1)), &tb),
                 "9223372036854775806|-9223372036854775805|4611686018427387902|17|NULL|-9223372036854775810");
    CHECK_EQ_STR(eval_rows(E_call("*", E_col(&tb, 0), E_col(&tb, 1)), &tb),
                 "9223372036854775807|18446744073709551614|9223372036854775808|-60|NULL|-27670116110564327421");
    /* constant on either side, scale-up of the integer side (x * 10^2 crosses int64) */
    CHECK_EQ_STR(eval_rows(E_call("+", E_col(&tb, 0), D("numeric(3,2)", "0.01")), &tb),
                 "9223372036854775807.01|-9223372036854775806.99|4611686018427387904.01|12.01|NULL|-2.99");
    CHECK_EQ_STR(eval_rows(E_call("-", E_int(1), E_col(&tb, 1)), &tb),
                 "0|3|-1|6|-6|-9223372036854775806");
    /* a selection: only rows 1 and 3 are computed */
    uint32_t idx[2] = {1, 3};
    fl_sel sel = {.idx = idx, .count = 2, .cap = 2};
    CHECK_EQ_STR(eval_rows_sel(E_call("*", E_col(&tb, 0), E_col(&tb, 1)), &tb, &sel), "18446744073709551614|-60");
    tb_free(&tb);
}

static void test_dec_scales(void)
{
    tbatch tb = {0};
    tb_col(&tb, 0, "numeric(15,2)", "10.00|0.05|-17.35|99999999999.99|NULL");
    tb_col(&tb, 1, "numeric(15,2)", "0.06|0.10|0.04|0.10|0.01");
    /* the TPC-H shapes: price * (1 - discount) * (1 + tax) */
    fl_expr *disc = E_call("*", E_col(&tb, 0), E_call("-", E_int(1), E_col(&tb, 1)));
    CHECK_EQ_STR(eval_rows(disc, &tb), "9.4000|0.0450|-16.6560|89999999999.9910|NULL");
    CHECK_EQ_STR(eval_rows(E_call("*", disc, E_call("+", E_int(1), E_col(&tb, 1))), &tb),
                 "9.964000|0.049500|-17.322240|98999999999.990100|NULL");
    tb_free(&tb);
    /* product rescaled down (scale capped at 38 digits): rounding half away from zero */
    tbatch t2 = {0};
    tb_col(&t2, 0, "numeric(38,10)", "1.0000000005|-1.0000000005|0.0000000001|3.1415926535");
    tb_col(&t2, 1, "numeric(38,10)", "1.0000000005|1.0000000005|0.5000000000|-2.0000000000");
    CHECK_EQ_STR(eval_rows(E_call("*", E_col(&t2, 0), E_col(&t2, 1)), &t2),
                 "1.000000|-1.000000|0.000000|-6.283185");
    tb_free(&t2);
    tbatch t3 = {0};
    tb_col(&t3, 0, "numeric(38,10)", "1.0000005|-1.0000005|0.0000015|-0.0000025");
    tb_col(&t3, 1, "numeric(38,10)", "1|1|1|1");
    CHECK_EQ_STR(eval_rows(E_call("*", E_col(&t3, 0), E_col(&t3, 1)), &t3),
                 "1.000001|-1.000001|0.000002|-0.000003");
    tb_free(&t3);
}

static void test_dec_overflow(void)
{
    tbatch tb = {0};
    tb_col(&tb, 0, "numeric(38,0)", "99999999999999999999999999999999999999|1");
    tb_col(&tb, 1, "numeric(38,0)", "1|1");
    CHECK(strstr(eval_rows(E_call("+", E_col(&tb, 0), E_col(&tb, 1)), &tb), "overflow") != NULL);
    CHECK(strstr(eval_rows(E_call("*", E_col(&tb, 0), E_int(10)), &tb), "overflow") != NULL);
    /* the failing row is outside the selection: no error */
    uint32_t idx[1] = {1};
    fl_sel sel = {.idx = idx, .count = 1, .cap = 1};
    CHECK_EQ_STR(eval_rows_sel(E_call("*", E_col(&tb, 0), E_int(10)), &tb, &sel), "10");
    tb_free(&tb);
}

/* ---- LIKE with '%' only: against a plain backtracking matcher ---- */

static bool ref_like(const char *p, const char *s)
{
    if (!*p)
        return !*s;
    if (*p == '%')
        return ref_like(p + 1, s) || (*s && ref_like(p, s + 1));
    return *s == *p && ref_like(p + 1, s + 1);
}

static void test_like_segments(void)
{
    /* every subject of length <= 5 over {a, b} and patterns mixing a, b, % */
    static const char *pats[] = {"%a%b%", "a%b",   "%ab%ba%", "a%a%a",  "%b%b",  "ab%",    "%aa%",
                                 "a%",    "%a%a%", "b%ab%a",  "%ab%ab", "a%b%b%", "%a%a%a%", "%ba%"};
    char subj[64][8];
    uint32_t ns = 0;
    for (int len = 0; len <= 5; len++)
        for (int m = 0; m < (1 << len) && ns < 64; m++) {
            for (int i = 0; i < len; i++)
                subj[ns][i] = (m >> i) & 1 ? 'b' : 'a';
            subj[ns][len] = 0;
            ns++;
        }
    char rows[64 * 8];
    size_t o = 0;
    for (uint32_t i = 0; i < ns; i++)
        o += (size_t)snprintf(rows + o, sizeof rows - o, "%s%s", i ? "|" : "", subj[i]);
    tbatch tb = {0};
    tb_col(&tb, 0, "text", rows);
    CHECK_EQ_INT(tb.b.nrows, ns);
    for (size_t k = 0; k < sizeof pats / sizeof pats[0]; k++) {
        char want[64 * 3];
        size_t w = 0;
        for (uint32_t i = 0; i < ns; i++)
            w += (size_t)snprintf(want + w, sizeof want - w, "%s%s", i ? "|" : "", ref_like(pats[k], subj[i]) ? "t" : "f");
        const char *got = eval_rows(E_call("~~", E_col(&tb, 0), E_lit(pats[k])), &tb);
        if (strcmp(got, want) != 0)
            fprintf(stderr, "pattern %s\n got  %s\n want %s\n", pats[k], got, want);
        CHECK_EQ_STR(got, want);
        /* NOT LIKE is the complement */
        for (size_t i = 0; i < w; i++)
            want[i] = want[i] == 't' ? 'f' : want[i] == 'f' ? 't' : want[i];
        CHECK_EQ_STR(eval_rows(E_call("!~~", E_col(&tb, 0), E_lit(pats[k])), &tb), want);
    }
    tb_free(&tb);
    /* escaped '%' is a literal inside a segment; '_' keeps the general matcher */
    tbatch t2 = {0};
    tb_col(&t2, 0, "text", "50% off%now|50 off now|5% x%y|NULL");
    CHECK_EQ_STR(eval_rows(E_call("~~", E_col(&t2, 0), E_lit("%\\%%\\%%")), &t2), "t|f|t|NULL");
    CHECK_EQ_STR(eval_rows(E_call("~~", E_col(&t2, 0), E_lit("5_%o%")), &t2), "t|t|f|NULL");
    CHECK_EQ_STR(eval_rows(E_call("~~", E_col(&t2, 0), E_lit("%Customer%Complaints%")), &t2), "f|f|f|NULL");
    tb_free(&t2);
    tbatch t3 = {0};
    tb_col(&t3, 0, "text", "xx Customer yy Complaints zz|Complaints Customer|CustomerComplaints");
    CHECK_EQ_STR(eval_rows(E_call("~~", E_col(&t3, 0), E_lit("%Customer%Complaints%")), &t3), "t|f|t");
    CHECK_EQ_STR(eval_rows(E_call("~~", E_col(&t3, 0), E_lit("Customer%Complaints")), &t3), "f|f|t");
    tb_free(&t3);
    /* the next segment starts right after the previous one's match (long subjects: SSE2 blocks) */
    tbatch t4 = {0};
    tb_col(&t4, 0, "text",
           "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxabbaxxxxxxxxxxxxxxxxxxxx|xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxabaxxxxxxxxxxxxxxxxxxxxx");
    CHECK_EQ_STR(eval_rows(E_call("~~", E_col(&t4, 0), E_lit("%ab%ba%")), &t4), "t|f");
    CHECK_EQ_STR(eval_rows(E_call("~~", E_col(&t4, 0), E_lit("%xxxxab%baxx%")), &t4), "t|f");
    tb_free(&t4);
}

/* subjects longer than the 16-byte compare blocks: matches at every offset,
 * near misses (first and last byte right, middle wrong), matches in the tail */
static void test_like_long(void)
{
    static const char *pats[] = {"%abba%", "%aab%bba%", "%ab%ab%ab%", "b%abab", "%bbbb%", "%ba%"};
    enum { NS = 48 };
    char subj[NS][96];
    uint32_t seed = 12345;
    for (int i = 0; i < NS; i++) {
        int len = 16 + (i * 7) % 70;
        for (int j = 0; j < len; j++) {
            seed = seed * 1103515245u + 12345u;
            subj[i][j] = (seed >> 16) % 3 == 0 ? 'b' : 'a';
        }
        subj[i][len] = 0;
    }
    char rows[NS * 100];
    size_t o = 0;
    for (int i = 0; i < NS; i++)
        o += (size_t)snprintf(rows + o, sizeof rows - o, "%s%s", i ? "|" : "", subj[i]);
    tbatch tb = {0};
    tb_col(&tb, 0, "text", rows);
    CHECK_EQ_INT(tb.b.nrows, NS);
    int hits = 0;
    for (size_t k = 0; k < sizeof pats / sizeof pats[0]; k++) {
        char want[NS * 3];
        size_t w = 0;
        for (int i = 0; i < NS; i++) {
            bool m = ref_like(pats[k], subj[i]);
            hits += m;
            w += (size_t)snprintf(want + w, sizeof want - w, "%s%s", i ? "|" : "", m ? "t" : "f");
        }
        const char *got = eval_rows(E_call("~~", E_col(&tb, 0), E_lit(pats[k])), &tb);
        if (strcmp(got, want) != 0)
            fprintf(stderr, "pattern %s\n got  %s\n want %s\n", pats[k], got, want);
        CHECK_EQ_STR(got, want);
    }
    CHECK(hits > 20 && hits < (int)(NS * sizeof pats / sizeof pats[0]) - 20); /* both outcomes occur */
    tb_free(&tb);
}

int main(void)
{
    t_init();
    TEST_RUN(test_dec_int64_boundary);
    TEST_RUN(test_dec_scales);
    TEST_RUN(test_dec_overflow);
    TEST_RUN(test_like_segments);
    TEST_RUN(test_like_long);
    fl_arena_free(&T_arena);
    return TEST_EXIT();
}
