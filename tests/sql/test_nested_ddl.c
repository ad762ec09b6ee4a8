/*
 * test_nested_ddl.c - nested column types in CREATE TABLE and ALTER TABLE
 * (src/sql/parse/nested_type.c): every spelling (ROW(...), STRUCT<...>,
 * STRUCT(...), MAP(...), MAP<...>, ARRAY(...), ARRAY<...>, LIST<...>, [])
 * nested in each other, field ids assigned to nested fields, rows written
 * and read back through field access and subscripts, SHOW CREATE TABLE
 * read back into the same schema, and errors that name the position.
 */
#include "floe_test.h"

static fl_sql_session *S;

static void test_spellings(void)
{
    ft_expect(S,
              "CREATE TABLE n.t (id bigint, addr ROW(city varchar, zip varchar), "
              "tags ARRAY<varchar>, lim MAP(varchar, integer), "
              "deep STRUCT<a: int, b: LIST<MAP<varchar, ARRAY(decimal(10,2))>>>, "
              "s2 STRUCT(\"Upper Case\" double precision), m2 map<text, int[]>)",
              "\n", "");
    ft_expect(S, "DESCRIBE n.t", "\n",
              "id|bigint|YES|1|NULL\n"
              "addr|struct<city text, zip text>|YES|2|NULL\n"
              "tags|text[]|YES|3|NULL\n"
              "lim|map<text, integer>|YES|4|NULL\n"
              "deep|struct<a integer, b map<text, numeric(10,2)[]>[]>|YES|5|NULL\n"
              "s2|struct<\"Upper Case\" double precision>|YES|6|NULL\n"
              "m2|map<text, integer[]>|YES|7|NULL\n");
    /* nested fields got ids of their own after the top-level ones */
    ft_expect(S, "SELECT count(*) FROM n.\"t$files\"", "\n", "0\n");
}

static void test_rows(void)
{
    ft_expect(S,
              "INSERT INTO n.t (id, addr, tags, lim) SELECT 1, ROW('Lima', '01234'), "
              "ARRAY['a', 'b'], MAP(ARRAY['d'], ARRAY[5])",
              "\n", "");
    ft_expect(S, "SELECT id, (addr).city, addr.zip, tags[2], lim['d'] FROM n.t", "\n",
              "1|Lima|01234|b|5\n");
    /* a bare NULL in VALUES fits a struct or map column; a string does not */
    ft_expect(S, "INSERT INTO n.t (id, addr, lim) VALUES (2, NULL, NULL), (3, NULL, NULL)", "\n",
              "");
    ft_expect(S, "SELECT id, addr IS NULL, lim IS NULL FROM n.t WHERE id > 1 ORDER BY id", "\n",
              "2|t|t\n3|t|t\n");
    ft_expect_sqlstate(S, "INSERT INTO n.t (id, addr) VALUES (4, NULL), (5, 'x')", "42804");
    /* ROW(...) rows of one VALUES column meet field by field: a NULL field
     * takes the other rows' type, integers widen, nested rows too */
    ft_expect(S,
              "INSERT INTO n.t (id, addr) VALUES (6, ROW('Oslo', NULL)), (7, ROW(NULL, '0150')), "
              "(8, ROW(NULL, NULL))",
              "\n", "");
    ft_expect(S, "SELECT id, addr.city, addr.zip FROM n.t WHERE id >= 6 ORDER BY id", "\n",
              "6|Oslo|NULL\n7|NULL|0150\n8|NULL|NULL\n");
    ft_expect(
        S, "SELECT x FROM (VALUES (ROW(1::bigint, ROW(NULL, 2))), (ROW(2, ROW('b', NULL)))) t(x)",
        "\n",
        "{\"f1\":1,\"f2\":{\"f1\":null,\"f2\":2}}\n{\"f1\":2,\"f2\":{\"f1\":\"b\",\"f2\":null}}\n");
    ft_expect_sqlstate(S, "VALUES (ROW(1, 'a')), (ROW(1, 2, 3))", "42804");
    ft_expect(S,
              "SELECT CASE WHEN x > 1 THEN ROW(x, NULL) ELSE ROW(NULL, 'b') END "
              "FROM generate_series(1, 2) t(x)",
              "\n", "{\"f1\":null,\"f2\":\"b\"}\n{\"f1\":2,\"f2\":null}\n");
}

/* DESCRIBE rows cut to "name|type|nullable" (in place). */
static const char *names_and_types(char *rows)
{
    char *w = rows;
    int bar = 0;
    for (const char *r = rows; *r; r++) {
        if (*r == '\n')
            bar = 0;
        else if (*r == '|')
            bar++;
        if (bar < 3 || *r == '\n')
            *w++ = *r;
    }
    *w = '\0';
    return rows;
}

static void test_alter_and_show_create(void)
{
    ft_expect(S, "ALTER TABLE n.t ADD COLUMN extra ROW(k bigint, v varchar)", "\n", "");
    char out[4096];
    fl_error err;
    CHECK_OK(ft_run(S, "DESCRIBE n.t", "\n", out, sizeof out, &err), &err);
    CHECK(strstr(out, "\nextra|struct<k bigint, v text>|YES|") != NULL);
    CHECK_OK(ft_run(S, "SHOW CREATE TABLE n.t", "", out, sizeof out, &err), &err);
    char *at = strstr(out, "\"n\".\"t\"");
    CHECK(at != NULL);
    if (!at)
        return;
    char stmt[4200];
    snprintf(stmt, sizeof stmt, "%.*s\"n\".\"copy\"%s", (int)(at - out), out, at + 7);
    ft_expect(S, stmt, "\n", "");
    char a[4096], b[4096];
    CHECK_OK(ft_run(S, "DESCRIBE n.t", "\n", a, sizeof a, &err), &err);
    CHECK_OK(ft_run(S, "DESCRIBE n.copy", "\n", b, sizeof b, &err), &err);
    CHECK_EQ_STR(names_and_types(b), names_and_types(a)); /* ids: assigned anew, in order */
}

/* Nested values of other part types go into nested columns part by part
 * (cast_nested.c): a ROW by position into a struct, a list element by
 * element, a map key and value; x::type[] of a list column too. */
static void test_nested_casts(void)
{
    ft_expect(S,
              "CREATE TABLE n.c (s ROW(a bigint, f double precision), l bigint[], "
              "m MAP(varchar, double precision), ls ROW(x decimal(6,2))[])",
              "\n", "");
    ft_expect(S,
              "INSERT INTO n.c SELECT ROW(1, 2.5), ARRAY[1, 2], MAP(ARRAY['k'], ARRAY[1]), "
              "ARRAY[ROW(1.5), NULL]",
              "\n", "");
    ft_expect(S, "INSERT INTO n.c (s, l) VALUES (ROW(2, 3), NULL), (NULL, NULL)", "\n", "");
    ft_expect(S, "SELECT s, l, m, ls FROM n.c ORDER BY s.a NULLS LAST", "\n",
              "{\"a\":1,\"f\":2.5}|{1,2}|{\"k\":1}|{\"{\\\"x\\\":1.50}\",NULL}\n"
              "{\"a\":2,\"f\":3}|NULL|NULL|NULL\n"
              "NULL|NULL|NULL|NULL\n");
    ft_expect(S, "SELECT pg_typeof(s.f), pg_typeof(l[1]) FROM n.c LIMIT 1", "\n",
              "double precision|bigint\n");
    ft_expect(S, "SELECT l::text[], pg_typeof(l::int[]), l::numeric(4,1)[] FROM n.c WHERE l IS NOT NULL",
              "\n", "{1,2}|integer[]|{1.0,2.0}\n");
    char out[512];
    fl_error err;
    /* a field that does not convert is named; a row of another width is
     * refused with both types in full */
    CHECK(ft_run(S, "INSERT INTO n.c (s) SELECT ROW(1, 'x')", "\n", out, sizeof out, &err) !=
          FL_OK);
    CHECK(strstr(err.msg, "field \"f\": invalid input syntax for type double precision") != NULL);
    ft_expect_sqlstate(S, "INSERT INTO n.c (s) SELECT ROW(1, 2, 3)", "42804");
    CHECK(ft_run(S, "INSERT INTO n.c (s) SELECT ROW(1, 2, 3)", "\n", out, sizeof out, &err) !=
          FL_OK);
    CHECK(strstr(err.msg, "is of type struct<a bigint, f double precision> but expression is of "
                          "type struct<f1 integer, f2 integer, f3 integer>") != NULL);
    CHECK(ft_run(S, "SELECT l::date[] FROM n.c", "\n", out, sizeof out, &err) != FL_OK);
    CHECK(strstr(err.msg, "cannot cast type bigint[] to date[]") != NULL);
    ft_expect(S, "SELECT count(*) FROM n.c", "\n", "3\n"); /* the failed inserts added nothing */
}

/* ARRAY[...] of scalars reads as a list where its type shows: pg_typeof,
 * to_json, a query's result and CREATE TABLE AS; multidimensional arrays
 * and numeric[] stay PostgreSQL array text */
static void test_array_literals(void)
{
    ft_expect(S, "SELECT pg_typeof(ARRAY[1, 2]), pg_typeof(ARRAY['a']), pg_typeof(ARRAY[DATE '2024-01-02'])",
              "\n", "integer[]|text[]|date[]\n");
    ft_expect(S, "SELECT to_json(ARRAY[1, 2]), to_json(ARRAY['a', NULL]), ARRAY[true, false]", "\n",
              "[1,2]|[\"a\",null]|{t,f}\n");
    ft_expect(S, "CREATE TABLE n.arr AS SELECT ARRAY[1, 2] AS i, ARRAY['x'] AS s, ARRAY[1.5] AS d", "\n",
              "");
    ft_expect(S, "SELECT column_name, data_type FROM information_schema.columns "
                 "WHERE table_name = 'arr' ORDER BY ordinal_position",
              "\n", "i|ARRAY\ns|ARRAY\nd|ARRAY\n");
    ft_expect(S, "SELECT i[2] + 1, s[1], cardinality(i) FROM n.arr", "\n", "3|x|2\n");
    ft_expect(S, "SELECT ARRAY[ARRAY[1, 2], ARRAY[3, 4]], pg_typeof(ARRAY[ARRAY[1]]), '{{5}}'::int[]",
              "\n", "{{1,2},{3,4}}|text|{{5}}\n");
}

static void test_errors(void)
{
    char out[256];
    fl_error err;
    CHECK_EQ_INT(
        ft_run(S, "CREATE TABLE n.bad (a ROW(city varchar, ))", "\n", out, sizeof out, &err),
        FL_ESYNTAX);
    CHECK(strstr(err.msg, "line 1, column 41: column type: expected a field name") != NULL);
    CHECK_EQ_INT(ft_run(S, "CREATE TABLE n.bad (a MAP(varchar))", "\n", out, sizeof out, &err),
                 FL_ESYNTAX);
    CHECK(strstr(err.msg, "expected ',' between a map's key and value types") != NULL);
    CHECK(ft_run(S, "CREATE TABLE n.bad (a struct<x: nosuchtype>)", "\n", out, sizeof out, &err) !=
          FL_OK);
    CHECK(strstr(err.msg, "column 33: column type: type \"nosuchtype\" does not exist") != NULL);
    CHECK(ft_run(S, "CREATE TABLE n.bad (a ROW(x int, x int))", "\n", out, sizeof out, &err) !=
          FL_OK);
    CHECK(strstr(err.msg, "names a field twice") != NULL);
    char deep[600] = "CREATE TABLE n.bad (a ";
    for (int i = 0; i < 40; i++)
        strcat(deep, "ARRAY<");
    strcat(deep, "int");
    for (int i = 0; i < 40; i++)
        strcat(deep, ">");
    strcat(deep, ")");
    CHECK(ft_run(S, deep, "\n", out, sizeof out, &err) != FL_OK);
    CHECK(strstr(err.msg, "too deep") != NULL);
    /* ROW(...) as a value in CREATE TABLE AS is a value, not a type */
    ft_expect(S, "CREATE TABLE n.ctas AS SELECT ROW(1, 'x') AS r", "\n", "");
    ft_expect(S, "SELECT (r).f1 FROM n.ctas", "\n", "1\n");
}

int main(void)
{
    char dir[256];
    if (!ft_tmpdir(dir, sizeof dir, "floe_nested_ddl"))
        return 1;
    S = ft_open_sqlite(dir, NULL, NULL);
    if (!S)
        return 1;
    ft_expect(S, "CREATE SCHEMA n", "\n", "");
    TEST_RUN(test_spellings);
    TEST_RUN(test_rows);
    TEST_RUN(test_alter_and_show_create);
    TEST_RUN(test_nested_casts);
    TEST_RUN(test_array_literals);
    TEST_RUN(test_errors);
    fl_sql_session_close(S);
    ft_rmtree(dir);
    return TEST_EXIT();
}
