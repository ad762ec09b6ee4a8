/* test_func_scalar.c - string, LIKE/regex, math, misc and JSON functions
 * (expected values as PostgreSQL 15 prints them). */
#include "sql/func_test_util.h"

#define T(expr) eval1(expr)
#define S(x) E_typed("text", x)

static void test_strings(void)
{
    CHECK_EQ_STR(T(E_call("length", S("héllo"))), "5");
    CHECK_EQ_STR(T(E_call("octet_length", S("héllo"))), "6");
    CHECK_EQ_STR(T(E_call("upper", S("héllo wörld"))), "HÉLLO WÖRLD");
    CHECK_EQ_STR(T(E_call("lower", S("ÀBC"))), "àbc");
    CHECK_EQ_STR(T(E_call("initcap", S("hello wORLD-foo"))), "Hello World-Foo");
    CHECK_EQ_STR(T(E_call("substring", S("Thomas"), E_int(2), E_int(3))), "hom");
    CHECK_EQ_STR(T(E_call("substring", S("Thomas"), E_int(0), E_int(3))), "Th");
    CHECK_EQ_STR(T(E_call("substring", S("Thomas"), E_int(-3), E_int(2))), "");
    CHECK_EQ_STR(T(E_call("substr", S("héllo"), E_int(2))), "éllo");
    CHECK(strstr(T(E_call("substring", S("x"), E_int(1), E_int(-1))), "negative substring length") != NULL);
    CHECK_EQ_STR(T(E_call("position", S("high"), S("ig"))), "2");
    CHECK_EQ_STR(T(E_call("strpos", S("héllo"), S("l"))), "3");
    CHECK_EQ_STR(T(E_call("strpos", S("abc"), S("z"))), "0");
    CHECK_EQ_STR(T(E_call("replace", S("abcdefabcdef"), S("cd"), S("XX"))), "abXXefabXXef");
    CHECK_EQ_STR(T(E_call("btrim", S("xyxtrimyyx"), S("xy"))), "trim");
    CHECK_EQ_STR(T(E_call("ltrim", S("  trim  "))), "trim  ");
    CHECK_EQ_STR(T(E_call("rtrim", S("  trim  "))), "  trim");
    CHECK_EQ_STR(T(E_call("split_part", S("abc~@~def~@~ghi"), S("~@~"), E_int(2))), "def");
    CHECK_EQ_STR(T(E_call("split_part", S("abc,def,ghi,jkl"), S(","), E_int(-2))), "ghi");
    CHECK_EQ_STR(T(E_call("split_part", S("abc"), S(","), E_int(3))), "");
    CHECK_EQ_STR(T(E_call("concat", S("abcde"), E_int(2), E_null(), E_int(22))), "abcde222");
    CHECK_EQ_STR(T(E_call("concat_ws", S(","), S("abcde"), E_int(2), E_null(), E_int(22))), "abcde,2,22");
    CHECK_EQ_STR(T(E_call("||", S("Post"), S("greSQL"))), "PostgreSQL");
    CHECK_EQ_STR(T(E_call("||", S("Value: "), E_int(42))), "Value: 42");
    CHECK_EQ_STR(T(E_call("||", S("a"), E_cast(E_null(), "text"))), "NULL");
    CHECK_EQ_STR(T(E_call("left", S("abcde"), E_int(2))), "ab");
    CHECK_EQ_STR(T(E_call("left", S("abcde"), E_int(-2))), "abc");
    CHECK_EQ_STR(T(E_call("right", S("abcde"), E_int(2))), "de");
    CHECK_EQ_STR(T(E_call("right", S("abcde"), E_int(-2))), "cde");
    CHECK_EQ_STR(T(E_call("lpad", S("hi"), E_int(5), S("xy"))), "xyxhi");
    CHECK_EQ_STR(T(E_call("rpad", S("hi"), E_int(5), S("xy"))), "hixyx");
    CHECK_EQ_STR(T(E_call("lpad", S("hello"), E_int(3))), "hel");
    CHECK_EQ_STR(T(E_call("reverse", S("abcé"))), "écba");
    CHECK_EQ_STR(T(E_call("repeat", S("Pg"), E_int(4))), "PgPgPgPg");
    CHECK_EQ_STR(T(E_call("starts_with", S("alphabet"), S("alph"))), "t");
    CHECK_EQ_STR(T(E_call("translate", S("12345"), S("143"), S("ax"))), "a2x5");
    CHECK_EQ_STR(T(E_call("ascii", S("x"))), "120");
    CHECK_EQ_STR(T(E_call("chr", E_int(65))), "A");
    CHECK_EQ_STR(T(E_call("md5", S("abc"))), "900150983cd24fb0d6963f7d28e17f72");
    /* empty strings and NULL-only batches */
    tbatch tb = {0};
    tb_col(&tb, 0, "text", "|NULL|");
    CHECK_EQ_STR(eval_rows(E_call("upper", E_col(&tb, 0)), &tb), "|NULL|");
    CHECK_EQ_STR(eval_rows(E_call("length", E_col(&tb, 0)), &tb), "0|NULL|0");
    CHECK_EQ_STR(eval_rows(E_call("concat", E_col(&tb, 0), E_col(&tb, 0)), &tb), "||");
    CHECK_EQ_STR(eval_rows(E_call("regexp_replace", E_col(&tb, 0), S("x"), S("y")), &tb), "|NULL|");
    tb_free(&tb);
}

static void test_like(void)
{
    tbatch tb = {0};
    tb_col(&tb, 0, "text", "PROMO BRUSHED|STANDARD BRASS|special requests here|a_b|50%|NULL");
    CHECK_EQ_STR(eval_rows(E_call("~~", E_col(&tb, 0), E_lit("PROMO%")), &tb), "t|f|f|f|f|NULL");
    CHECK_EQ_STR(eval_rows(E_call("~~", E_col(&tb, 0), E_lit("%BRASS")), &tb), "f|t|f|f|f|NULL");
    CHECK_EQ_STR(eval_rows(E_call("~~", E_col(&tb, 0), E_lit("%special%requests%")), &tb), "f|f|t|f|f|NULL");
    CHECK_EQ_STR(eval_rows(E_call("!~~", E_col(&tb, 0), E_lit("%RUS%")), &tb), "f|t|t|t|t|NULL");
    CHECK_EQ_STR(eval_rows(E_call("~~", E_col(&tb, 0), E_lit("a\\_b")), &tb), "f|f|f|t|f|NULL");
    CHECK_EQ_STR(eval_rows(E_call("~~", E_col(&tb, 0), E_lit("__%")), &tb), "t|t|t|t|t|NULL");
    CHECK_EQ_STR(eval_rows(E_call("~~", E_col(&tb, 0), E_lit("%0!%")), &tb), "f|f|f|f|f|NULL");
    CHECK_EQ_STR(eval_rows(E_call("~~", E_col(&tb, 0), E_call("like_escape", E_lit("%0!%"), E_lit("!"))), &tb),
                 "f|f|f|f|t|NULL");
    CHECK_EQ_STR(eval_rows(E_call("~~*", E_col(&tb, 0), E_lit("promo%")), &tb), "t|f|f|f|f|NULL");
    CHECK_EQ_STR(T(E_call("~~", S("héllo"), S("h_llo"))), "t");
    CHECK_EQ_STR(T(E_call("~~*", S("HÉLLO"), S("hé%"))), "t");
    /* non-constant pattern */
    tbatch t2 = {0};
    tb_col(&t2, 0, "text", "abc|abc|xyz");
    tb_col(&t2, 1, "text", "a%|%z|x_z");
    CHECK_EQ_STR(eval_rows(E_call("~~", E_col(&t2, 0), E_col(&t2, 1)), &t2), "t|f|t");
    CHECK(strstr(T(E_call("~~", S("a"), S("a\\"))), "escape") != NULL);
    /* regex */
    CHECK_EQ_STR(eval_rows(E_call("~", E_col(&tb, 0), E_lit("^[A-Z]+ BR")), &tb), "t|t|f|f|f|NULL");
    CHECK_EQ_STR(T(E_call("~*", S("ABC"), S("^a"))), "t");
    CHECK_EQ_STR(T(E_call("!~", S("ABC"), S("^a"))), "t");
    CHECK_EQ_STR(T(E_call("regexp_replace", S("Thomas"), S(".[mN]a."), S("M"))), "ThM");
    CHECK_EQ_STR(T(E_call("regexp_replace", S("foobarbaz"), S("b(..)"), S("X\\1Y"), S("g"))), "fooXarYXazY");
    CHECK_EQ_STR(T(E_call("regexp_replace", S("aaa"), S("a"), S("b"))), "baa");
    CHECK_EQ_STR(T(E_call("regexp_extract", S("abc123def"), S("[0-9]+"))), "123");
    CHECK_EQ_STR(T(E_call("regexp_extract", S("key=val"), S("(\\w+)=(\\w+)"), E_int(2))), "val");
    CHECK_EQ_STR(T(E_call("regexp_extract", S("abc"), S("[0-9]+"))), "NULL");
    CHECK_EQ_STR(T(E_call("regexp_like", S("Hello"), S("^h"), S("i"))), "t");
    CHECK_EQ_STR(T(E_call("regexp_count", S("ababab"), S("ab"))), "3");
    CHECK(strstr(T(E_call("~", S("a"), S("("))), "invalid regular expression") != NULL);
    tb_free(&tb);
    tb_free(&t2);
}

static void test_math(void)
{
    CHECK_EQ_STR(T(E_call("abs", E_int(-17))), "17");
    CHECK_EQ_STR(T(E_call("abs", E_typed("numeric(5,2)", "-1.50"))), "1.50");
    CHECK_EQ_STR(T(E_call("round", E_typed("numeric(6,3)", "42.435"), E_int(2))), "42.44");
    CHECK_EQ_STR(T(E_call("round", E_typed("numeric(6,3)", "-42.435"), E_int(2))), "-42.44");
    CHECK_EQ_STR(T(E_call("round", E_typed("numeric(6,3)", "42.5"))), "43");
    CHECK_EQ_STR(T(E_call("round", E_typed("double", "42.5"))), "42");
    CHECK_EQ_STR(T(E_call("round", E_typed("double", "43.5"))), "44");
    CHECK_EQ_STR(T(E_call("trunc", E_typed("numeric(6,3)", "-42.839"), E_int(1))), "-42.8");
    CHECK_EQ_STR(T(E_call("ceil", E_typed("numeric(6,3)", "-42.8"))), "-42");
    CHECK_EQ_STR(T(E_call("floor", E_typed("numeric(6,3)", "-42.8"))), "-43");
    CHECK_EQ_STR(T(E_call("round", E_typed("numeric(8,2)", "1234.56"), E_int(-2))), "1200");
    CHECK_EQ_STR(T(E_call("sqrt", E_int(2))), "1.4142135623730951");
    CHECK(strstr(T(E_call("sqrt", E_int(-1))), "square root of a negative") != NULL);
    CHECK_EQ_STR(T(E_call("power", E_int(2), E_int(10))), "1024");
    CHECK_EQ_STR(T(E_call("ln", E_typed("double", "2.718281828459045"))), "1");
    CHECK_EQ_STR(T(E_call("log", E_int(100))), "2");
    CHECK_EQ_STR(T(E_call("log", E_int(2), E_int(8))), "3");
    CHECK_EQ_STR(T(E_call("exp", E_int(1))), "2.718281828459045");
    CHECK_EQ_STR(T(E_call("mod", E_int(9), E_int(4))), "1");
    CHECK_EQ_STR(T(E_call("mod", E_int(-9), E_int(4))), "-1");
    CHECK_EQ_STR(T(E_call("sign", E_typed("numeric(4,1)", "-8.4"))), "-1");
    CHECK_EQ_STR(T(E_call("gcd", E_int(1071), E_int(462))), "21");
    CHECK_EQ_STR(T(E_call("/", E_typed("double", "1"), E_typed("double", "3"))), "0.3333333333333333");
    CHECK_EQ_STR(T(E_call("*", E_typed("double", "1e300"), E_typed("double", "1e10"))),
                 "ERR: value out of range: overflow in (1e+300 * 10000000000)");
}

static void test_misc(void)
{
    CHECK_EQ_STR(T(E_call("nullif", E_int(1), E_int(1))), "NULL");
    CHECK_EQ_STR(T(E_call("nullif", E_int(1), E_int(2))), "1");
    CHECK_EQ_STR(T(E_call("nullif", E_int(1), E_cast(E_null(), "integer"))), "1");
    CHECK_EQ_STR(T(E_call("greatest", E_int(1), E_int(5), E_cast(E_null(), "integer"), E_int(3))), "5");
    CHECK_EQ_STR(T(E_call("least", E_int(1), E_typed("numeric(3,1)", "0.5"))), "0.5");
    CHECK_EQ_STR(T(E_call("greatest", S("apple"), S("banana"))), "banana");
    CHECK_EQ_STR(T(E_call("greatest", E_cast(E_null(), "integer"), E_cast(E_null(), "integer"))), "NULL");
    const char *u = T(E_call0("gen_random_uuid"));
    CHECK(strlen(u) == 36 && u[14] == '4');
    CHECK(!fl_expr_is_constant(E_call0("gen_random_uuid")));
    CHECK_EQ_STR(T(E_call("pg_typeof", E_typed("numeric(15,2)", "1"))), "numeric(15,2)");
}

static void test_json(void)
{
    const char *doc = "{\"a\": {\"b\": [10, \"x\", null]}, \"s\": \"str\", \"n\": 1.5}";
    CHECK_EQ_STR(T(E_call("->", S(doc), S("a"))), "{\"b\":[10,\"x\",null]}");
    CHECK_EQ_STR(T(E_call("->>", S(doc), S("s"))), "str");
    CHECK_EQ_STR(T(E_call("->>", E_call("->", S(doc), S("a")), S("zz"))), "NULL");
    CHECK_EQ_STR(T(E_call("->>", S("[1,2,3]"), E_int(-1))), "3");
    CHECK_EQ_STR(T(E_call("json_extract_path_text", S(doc), S("a"), S("b"), S("1"))), "x");
    CHECK_EQ_STR(T(E_call("json_extract_path", S(doc), S("a"), S("b"), S("0"))), "10");
    CHECK_EQ_STR(T(E_call("json_extract_scalar", S(doc), S("$.a.b[1]"))), "x");
    CHECK_EQ_STR(T(E_call("json_extract_scalar", S(doc), S("$.n"))), "1.5");
    CHECK_EQ_STR(T(E_call("json_extract_scalar", S(doc), S("$.a"))), "NULL");
    CHECK_EQ_STR(T(E_call("json_extract", S(doc), S("$[\"a\"].b"))), "[10,\"x\",null]");
    CHECK_EQ_STR(T(E_call("json_array_length", S("[1,[2],3]"))), "3");
    CHECK(strstr(T(E_call("->>", S("{bad"), S("a"))), "invalid input syntax for type json") != NULL);
}

int main(void)
{
    t_init();
    TEST_RUN(test_strings);
    TEST_RUN(test_like);
    TEST_RUN(test_math);
    TEST_RUN(test_misc);
    TEST_RUN(test_json);
    fl_arena_free(&T_arena);
    return TEST_EXIT();
}
