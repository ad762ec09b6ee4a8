/* SQL tests of the variant type and functions (src/sql/func/variant.c,
 * variant_cast.c): parse_json and its JSON output, variant_get with paths
 * and target types (Spark's conversions), the try_ forms, is_variant_null,
 * schema_of_variant, casts both ways, a table with a variant column (an
 * Iceberg v3 table written to Parquet VARIANT groups and read back), and
 * the error messages. */
#include "sql/stmt_test_util.h"
#include "test.h"

static stmt_env env;

#define ROWS(sql, want)                                                                            \
    do {                                                                                           \
        RUN_OK(&env, sql);                                                                         \
        CHECK_EQ_STR(env.rows, want);                                                              \
    } while (0)

static void test_parse_and_print(void)
{
    ROWS("SELECT parse_json('{\"b\": 1, \"a\": [true, null, 1.50, \"x\"]}')",
         "{\"a\":[true,null,1.50,\"x\"],\"b\":1}\n");
    ROWS("SELECT parse_json('\"caf\\u00e9\"'), parse_json('-12'), parse_json('1e3')",
         "\"café\"|-12|1000.0\n");
    ROWS("SELECT to_json(parse_json('{\"a\": {}}'))", "{\"a\":{}}\n");
    ROWS("SELECT pg_typeof(parse_json('1'))", "variant\n");
    ROWS("SELECT try_parse_json('{'), parse_json(NULL)", "NULL|NULL\n");
    ROWS("SELECT variant_typeof(parse_json('1')), variant_typeof(parse_json('123456')), "
         "variant_typeof(parse_json('[1]')), variant_typeof(parse_json('2.5'))",
         "int8|int32|array|decimal4\n");
}

static void test_variant_get(void)
{
    const char *doc = "parse_json('{\"a\": {\"b\": [10, 20]}, \"s\": \"hi\", \"n\": \"12\", "
                      "\"x\": \"abc\", \"big\": 3000000000, \"d\": 1.25, \"z\": null}')";
    char sql[1024];
#define GET(expr, want)                                                                            \
    do {                                                                                           \
        snprintf(sql, sizeof sql, "SELECT " expr " FROM (SELECT %s AS v) t", doc);                 \
        ROWS(sql, want);                                                                           \
    } while (0)
    GET("variant_get(v, '$.a.b[1]', 'int')", "20\n");
    GET("variant_get(v, '$.a.b[5]', 'int'), variant_get(v, '$.nope', 'int')", "NULL|NULL\n");
    GET("variant_get(v, '$.a')", "{\"b\":[10,20]}\n");
    GET("variant_get(v, '$[''a''].b[0]', 'bigint')", "10\n");
    GET("variant_get(v, 'a.b[0]', 'double')", "10\n");
    GET("variant_get(v, '$.s', 'string'), variant_get(v, '$.a', 'string')", "hi|{\"b\":[10,20]}\n");
    GET("variant_get(v, '$.n', 'int') + 1", "13\n");
    GET("variant_get(v, '$.d', 'decimal(5,1)'), variant_get(v, '$.d', 'double')", "1.3|1.25\n");
    GET("variant_get(v, '$.big', 'bigint'), try_variant_get(v, '$.big', 'int')",
        "3000000000|NULL\n");
    GET("try_variant_get(v, '$.x', 'int'), try_variant_get(v, '$.a', 'int')", "NULL|NULL\n");
    GET("variant_get(v, '$.z', 'int'), is_variant_null(variant_get(v, '$.z'))", "NULL|t\n");
    GET("is_variant_null(v), is_variant_null(NULL::variant)", "f|NULL\n");
    GET("pg_typeof(try_variant_get(v, '$.a.b[0]', 'timestamp_ntz'))",
        "timestamp without time zone\n");
#undef GET
    /* a path per row */
    ROWS(
        "SELECT variant_get(v, p, 'int') FROM (VALUES (parse_json('{\"a\": 1, \"b\": 2}'), '$.b'), "
        "(parse_json('[7, 8]'), '$[0]')) AS t(v, p)",
        "2\n7\n");
}

static void test_schema_of(void)
{
    ROWS("SELECT schema_of_variant(parse_json('{\"c\": \"x\", \"a\": 1, \"b\": [1, 2], \"d\": "
         "1.5, \"e\": null}'))",
         "OBJECT<a: BIGINT, b: ARRAY<BIGINT>, c: STRING, d: DECIMAL(2,1), e: VOID>\n");
    ROWS("SELECT schema_of_variant(parse_json('[1, \"a\"]')), schema_of_variant(parse_json('[]'))",
         "ARRAY<VARIANT>|ARRAY<VOID>\n");
}

static void test_casts(void)
{
    ROWS("SELECT CAST(parse_json('42') AS bigint), CAST(parse_json('true') AS boolean), "
         "CAST(parse_json('\"2025-04-16\"') AS date)",
         "42|t|2025-04-16\n");
    ROWS("SELECT CAST(42 AS variant), CAST('{\"a\": 1}' AS variant), CAST(DATE '2025-04-16' AS "
         "variant), CAST(2.50 AS variant)",
         "42|{\"a\":1}|\"2025-04-16\"|2.50\n");
    ROWS("SELECT variant_typeof(CAST(42 AS variant)), variant_typeof(CAST(2.5::double precision "
         "AS variant))",
         "int32|double\n");
    ROWS("SELECT CAST(CAST('{\"a\": [1]}' AS variant) AS text)", "{\"a\":[1]}\n");
    RUN_ERR(&env, "SELECT CAST('{\"a\": ' AS variant)", FL_ETYPE, "invalid input for type variant");
    RUN_ERR(&env, "SELECT CAST(parse_json('{\"a\": 1}') AS int)", FL_ETYPE,
            "cannot convert a variant object to integer");
    RUN_ERR(&env, "SELECT CAST('\\x0102'::bytea AS variant)", FL_ETYPE,
            "invalid input for type variant");
}

static void test_table(void)
{
    RUN_OK(&env, "CREATE TABLE events (id int, v variant)");
    RUN_OK(&env, "INSERT INTO events VALUES (1, parse_json('{\"k\": 1, \"tags\": [\"a\"]}')), "
                 "(2, '{\"k\": \"two\"}'), (3, NULL), (4, parse_json('null'))");
    ROWS("SELECT id, variant_get(v, '$.k', 'string'), v FROM events ORDER BY id",
         "1|1|{\"k\":1,\"tags\":[\"a\"]}\n2|two|{\"k\":\"two\"}\n3|NULL|NULL\n4|NULL|null\n");
    ROWS("SELECT count(*) FROM events WHERE variant_get(v, '$.tags[0]', 'string') = 'a'", "1\n");
    ROWS("SELECT pg_typeof(v) FROM events WHERE id = 1", "variant\n");
    RUN_ERR(&env, "CREATE TABLE old_events (v variant) WITH (\"format-version\" = '2')", FL_EINVAL,
            "format version 3");
}

static void test_errors(void)
{
    RUN_ERR(&env, "SELECT parse_json('{\"a\": 1,}')", FL_ETYPE,
            "invalid input syntax for type json");
    RUN_ERR(&env, "SELECT parse_json('{\"a\": 1, \"a\": 2}')", FL_ETYPE, "a");
    RUN_ERR(&env, "SELECT variant_get(parse_json('1'), '$.a[', 'int')", FL_ESYNTAX, "invalid path");
    RUN_ERR(&env, "SELECT variant_get(parse_json('1'), '$', 'nonsense')", FL_ETYPE,
            "unknown type 'nonsense'");
    RUN_ERR(&env, "SELECT variant_get(parse_json('\"abc\"'), '$', 'int')", FL_ETYPE, "abc");
    RUN_ERR(&env, "SELECT variant_get(parse_json('3000000000'), '$', 'int')", FL_EOVERFLOW,
            "out of range");
}

int main(void)
{
    if (stmt_env_open(&env) != 0) {
        fprintf(stderr, "setup: %s\n", env.err.msg);
        return 1;
    }
    TEST_RUN(test_parse_and_print);
    TEST_RUN(test_variant_get);
    TEST_RUN(test_schema_of);
    TEST_RUN(test_casts);
    TEST_RUN(test_table);
    TEST_RUN(test_errors);
    stmt_env_close(&env);
    return TEST_EXIT();
}
