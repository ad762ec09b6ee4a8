/*
 * test_stmt_habits.c - the statements people type from Trino, DuckDB and
 * MySQL (src/sql/parse/habit.c, src/sql/stmt/habit_stmt.c, show_create.c,
 * copy_file.c, src/sql/parse/fromfile.c): SHOW TABLES/SCHEMAS/CATALOGS/PIPELINES,
 * SHOW COLUMNS/DESCRIBE, SHOW CREATE TABLE (run on a fresh catalog, it
 * recreates the same schema, partitioning, sort order and properties), USE,
 * COPY to and from server files in csv/json/parquet, FROM 'file', ANALYZE,
 * and what a principal without grants may list.
 */
#include <sys/stat.h>

#include "sql/authz_world.h"
#include "sql/stmt_test_util.h"

static stmt_env E;

static const char *last_state(fl_sql_session *s)
{
    static fl_sql_error_info i;
    fl_sql_last_error(s, &i);
    return i.sqlstate;
}

static int32_t last_pos(fl_sql_session *s)
{
    fl_sql_error_info i;
    fl_sql_last_error(s, &i);
    return i.position;
}

static void test_show(void)
{
    RUN_OK(&E, "CREATE SCHEMA sales");
    RUN_OK(&E, "CREATE SCHEMA \"sales.eu\"");
    RUN_OK(&E, "CREATE TABLE sales.orders (id bigint NOT NULL, note text)");
    RUN_OK(&E, "CREATE TABLE sales.items (id bigint)");
    RUN_OK(&E, "CREATE VIEW sales.big AS SELECT id FROM sales.orders WHERE id > 10");
    RUN_OK(&E, "SHOW TABLES FROM sales");
    CHECK_EQ_STR(E.tag, "SHOW");
    CHECK_EQ_STR(E.rows, "big\nitems\norders\n");
    RUN_OK(&E, "show tables in sales like 'o%';");
    CHECK_EQ_STR(E.rows, "orders\n");
    RUN_OK(&E, "SHOW SCHEMAS");
    CHECK_EQ_STR(E.rows, "sales\nsales.eu\n");
    RUN_OK(&E, "DESCRIBE sales.big"); /* a view: its schema */
    CHECK_EQ_STR(E.rows, "id|bigint|YES|1|NULL\n");
    RUN_OK(&E, "SHOW NAMESPACES FROM sales");
    CHECK_EQ_STR(E.rows, "sales.eu\n");
    RUN_OK(&E, "SHOW CATALOGS");
    CHECK(E.rows[0] != '\0' && strchr(E.rows, '\n') == E.rows + strlen(E.rows) - 1);
    /* the default namespace "test" does not exist yet: say so, and how to pick one */
    RUN_ERR(&E, "SHOW TABLES", FL_ENOTFOUND,
            "schema \"test\" does not exist (it is the search_path");
    RUN_ERR(&E, "SHOW TABLES FROM nope", FL_ENOTFOUND, "schema \"nope\" does not exist");
    CHECK_EQ_STR(last_state(E.s), "3F000");
    CHECK_EQ_INT(last_pos(E.s), 18);
    RUN_ERR(&E, "SHOW TABLES FROM sales extra", FL_ESYNTAX,
            "line 1, column 24: syntax error at or near \"extra\"");
    RUN_ERR(&E, "SHOW COLUMNS sales.orders", FL_ESYNTAX, "syntax error at or near \"sales\"");
    /* SHOW PIPELINES: a pipeline named by its epoch property, before its first commit */
    RUN_OK(&E, "ALTER TABLE sales.items SET PROPERTIES \"floe.pipeline.orders-feed.epoch\" = '4'");
    RUN_OK(&E, "SHOW PIPELINES FROM sales");
    CHECK_EQ_STR(E.tag, "SHOW");
    CHECK_EQ_STR(E.rows, "items|orders-feed|4|NULL|NULL|NULL|0|0|0|0|NULL|NULL\n");
    RUN_ERR(&E, "SHOW PIPELINES FROM nope", FL_ENOTFOUND, "schema \"nope\" does not exist");
    RUN_ERR(&E, "SHOW PIPELINES sales", FL_ESYNTAX, "syntax error at or near \"sales\"");
    /* SHOW of a setting is still PostgreSQL's */
    RUN_OK(&E, "SHOW search_path");
    CHECK_EQ_STR(E.rows, "test\n");
}

static void test_describe_and_use(void)
{
    RUN_OK(&E, "CREATE TABLE sales.t (id bigint NOT NULL, amount decimal(12,2), tags text[], "
               "ts timestamptz)");
    const char *want = "id|bigint|NO|1|NULL\n"
                       "amount|numeric(12,2)|YES|2|NULL\n"
                       "tags|text[]|YES|3|NULL\n"
                       "ts|timestamp with time zone|YES|4|NULL\n";
    RUN_OK(&E, "DESCRIBE sales.t");
    CHECK_EQ_STR(E.rows, want);
    RUN_OK(&E, "SHOW COLUMNS FROM sales.t");
    CHECK_EQ_STR(E.rows, want);
    RUN_OK(&E, "SHOW COLUMNS FROM t IN sales");
    CHECK_EQ_STR(E.rows, want);
    RUN_ERR(&E, "DESC t", FL_ENOTFOUND, "relation \"test.t\" does not exist");
    CHECK_EQ_STR(last_state(E.s), "42P01");
    RUN_OK(&E, "USE sales");
    CHECK_EQ_STR(E.tag, "SET");
    RUN_OK(&E, "SHOW search_path");
    CHECK_EQ_STR(E.rows, "sales\n");
    RUN_OK(&E, "DESC t");
    CHECK_EQ_STR(E.rows, want);
    RUN_OK(&E, "SHOW TABLES LIKE 'i%'");
    CHECK_EQ_STR(E.rows, "items\n");
    RUN_OK(&E, "SELECT count(*) FROM orders"); /* unqualified names follow USE */
    CHECK_EQ_STR(E.rows, "0\n");
    RUN_ERR(&E, "USE nope", FL_ENOTFOUND, "schema \"nope\" does not exist");
    RUN_OK(&E, "SHOW search_path"); /* unchanged by the failed USE */
    CHECK_EQ_STR(E.rows, "sales\n");
    RUN_OK(&E, "USE \"sales.eu\""); /* the nested namespace CREATE SCHEMA "sales.eu" made */
    RUN_OK(&E, "SHOW search_path");  /* as SET search_path = "sales.eu" shows it */
    CHECK_EQ_STR(E.rows, "sales.eu\n");
    RUN_OK(&E, "SHOW TABLES FROM \"sales.eu\"");
    CHECK_EQ_STR(E.rows, "");
    RUN_OK(&E, "SET search_path = test");
}

/* The SHOW CREATE TABLE text of name (the one cell, whole: stmt_run cuts
 * cells at 512 bytes) into buf. */
static int show_create(stmt_env *e, const char *name, char *buf, size_t cap)
{
    char q[256];
    snprintf(q, sizeof q, "SHOW CREATE TABLE %s", name);
    fl_sql_result *r = NULL;
    buf[0] = '\0';
    fl_error_clear(&e->err);
    int rc = fl_sql_execute(e->s, q, &r, &e->err);
    const fl_batch *b = NULL;
    bool eof = false;
    if (rc == FL_OK)
        rc = fl_sql_result_next(r, &b, &eof, &e->err);
    if (rc == FL_OK && b && b->nrows == 1 && b->ncols == 1)
        fl_sql_format_value(&b->cols[0], 0, "UTC", buf, cap);
    else if (rc == FL_OK)
        rc = FL_EINVAL;
    fl_sql_result_close(r);
    return rc;
}

static void test_show_create_round_trip(void)
{
    RUN_OK(&E, "CREATE TABLE sales.\"Odd Name\" (id bigint NOT NULL, \"ts col\" timestamptz, "
               "amount decimal(12,2), qty integer, ok boolean, d date, tags text[], u uuid, "
               "b bytea, r real, f double precision, t time, ts6 timestamp, "
               "tsn timestamp(9) with time zone, PRIMARY KEY (id)) "
               "WITH (partitioning = ARRAY['day(\"ts col\")', 'bucket(16, id)', 'truncate(4, b)'], "
               "sorted_by = ARRAY['id DESC', 'qty NULLS FIRST'], format_version = 2, "
               "\"write.delete.mode\" = 'copy-on-write', owner = 'it''s me')");
    static char text[8192], again[8192];
    CHECK_EQ_INT(show_create(&E, "sales.\"Odd Name\"", text, sizeof text), FL_OK);
    CHECK(strstr(text, "CREATE TABLE \"sales\".\"Odd Name\" (") == text);
    CHECK(strstr(text, "PRIMARY KEY (\"id\")") != NULL);
    CHECK(strstr(text, "'it''s me'") != NULL);

    /* a fresh catalog: the printed statement makes the same table */
    stmt_env F;
    CHECK_EQ_INT(stmt_env_open(&F), 0);
    RUN_OK(&F, "CREATE SCHEMA sales");
    RUN_OK(&F, text);
    CHECK_EQ_INT(show_create(&F, "sales.\"Odd Name\"", again, sizeof again), FL_OK);
    CHECK_EQ_STR(again, text);
    fl_ice_table *a = stmt_load(&E, "sales.Odd Name"), *b = stmt_load(&F, "sales.Odd Name");
    CHECK(a && b);
    if (a && b) {
        const fl_ice_schema *sa = fl_ice_metadata_current_schema(&a->meta);
        const fl_ice_schema *sb = fl_ice_metadata_current_schema(&b->meta);
        CHECK_EQ_INT(sa->schema.nfields, sb->schema.nfields);
        for (uint32_t i = 0; i < sa->schema.nfields && i < sb->schema.nfields; i++) {
            const fl_field *x = &sa->schema.fields[i], *y = &sb->schema.fields[i];
            CHECK_EQ_STR(x->name, y->name);
            CHECK_EQ_INT(x->field_id, y->field_id);
            CHECK_EQ_INT(x->nullable, y->nullable);
            CHECK(fl_type_equal(&x->type, &y->type));
        }
        CHECK_EQ_INT(sb->nidentifier, 1);
        const fl_ice_partition_spec *pa = fl_ice_metadata_spec(&a->meta, a->meta.default_spec_id);
        const fl_ice_partition_spec *pb = fl_ice_metadata_spec(&b->meta, b->meta.default_spec_id);
        CHECK(pa && pb && pa->nfields == 3 && pb->nfields == 3);
        for (uint32_t i = 0; pa && pb && i < pa->nfields && i < pb->nfields; i++) {
            CHECK_EQ_STR(pa->fields[i].transform, pb->fields[i].transform);
            CHECK_EQ_INT(pa->fields[i].source_id, pb->fields[i].source_id);
        }
        CHECK_EQ_INT(a->meta.format_version, b->meta.format_version);
        CHECK_EQ_INT(a->meta.properties.n, b->meta.properties.n);
        for (uint32_t i = 0; i < a->meta.properties.n; i++) {
            const char *v = fl_ice_map_get(&b->meta.properties, a->meta.properties.items[i].key);
            CHECK(v && !strcmp(v, a->meta.properties.items[i].value));
        }
    }
    fl_ice_table_free(a);
    fl_ice_table_free(b);
    stmt_env_close(&F);

    RUN_OK(&E, "CREATE TABLE sales.v1 (id int) WITH (format_version = 1)");
    CHECK_EQ_INT(show_create(&E, "sales.v1", text, sizeof text), FL_OK);
    CHECK(strstr(text, "format_version = 1") != NULL);
    RUN_ERR(&E, "SHOW CREATE TABLE sales.nope", FL_ENOTFOUND, "does not exist");
}

static void test_copy_files(void)
{
    char q[1024], path[512];
    RUN_OK(&E, "CREATE TABLE sales.src (id bigint, name text, price decimal(8,2), ok boolean)");
    RUN_OK(&E, "INSERT INTO sales.src VALUES (1, 'a,b', 1.50, true), (2, NULL, NULL, false), "
               "(3, 'say \"hi\"', 3.00, NULL)");
    /* csv with a header, then back into a table */
    snprintf(path, sizeof path, "%s/out.csv", E.dir);
    snprintf(q, sizeof q,
             "COPY (SELECT * FROM sales.src ORDER BY id) TO '%s' (FORMAT csv, HEADER, "
             "DELIMITER ',')",
             path);
    RUN_OK(&E, q);
    CHECK_EQ_STR(E.tag, "COPY 3");
    char body[1024] = "";
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (f) {
        size_t n = fread(body, 1, sizeof body - 1, f);
        body[n] = '\0';
        fclose(f);
    }
    CHECK_EQ_STR(body, "id,name,price,ok\n1,\"a,b\",1.50,t\n2,,,f\n3,\"say \"\"hi\"\"\",3.00,\n");
    RUN_OK(&E, "CREATE TABLE sales.dst (id bigint, name text, price decimal(8,2), ok boolean)");
    snprintf(q, sizeof q, "COPY sales.dst FROM '%s' (FORMAT csv, HEADER)", path);
    RUN_OK(&E, q);
    CHECK_EQ_STR(E.tag, "COPY 3");
    RUN_OK(&E, "SELECT id, name, price, ok FROM sales.dst ORDER BY id");
    CHECK_EQ_STR(E.rows, "1|a,b|1.50|t\n2|NULL|NULL|f\n3|say \"hi\"|3.00|NULL\n");
    /* without HEADER the header line is data: id is not a bigint */
    snprintf(q, sizeof q, "COPY sales.dst FROM '%s' (FORMAT csv)", path);
    CHECK(stmt_run(&E, q) != FL_OK);
    /* parquet and json, by option and by extension; a column list */
    snprintf(q, sizeof q, "COPY sales.src TO '%s/out.parquet'", E.dir);
    RUN_OK(&E, q);
    CHECK_EQ_STR(E.tag, "COPY 3");
    snprintf(q, sizeof q, "COPY sales.src (id, name) TO '%s/out.jsonl' (FORMAT json)", E.dir);
    RUN_OK(&E, q);
    snprintf(path, sizeof path, "%s/out.jsonl", E.dir);
    f = fopen(path, "r");
    body[0] = '\0';
    if (f) {
        size_t n = fread(body, 1, sizeof body - 1, f);
        body[n] = '\0';
        fclose(f);
    }
    CHECK(strstr(body, "{\"id\":1,\"name\":\"a,b\"}\n") != NULL);
    CHECK(strstr(body, "{\"id\":2,\"name\":null}\n") != NULL);
    CHECK(strstr(body, "\"name\":\"say \\\"hi\\\"\"") != NULL);
    RUN_OK(&E, "TRUNCATE sales.dst");
    snprintf(q, sizeof q, "COPY sales.dst (id, price) FROM '%s/out.parquet'", E.dir);
    RUN_OK(&E, q);
    CHECK_EQ_STR(E.tag, "COPY 3");
    RUN_OK(&E, "SELECT id, name, price FROM sales.dst ORDER BY id");
    CHECK_EQ_STR(E.rows, "1|NULL|1.50\n2|NULL|NULL\n3|NULL|3.00\n");
    /* FROM 'file' picks the reader by extension; the alias is the stem */
    snprintf(q, sizeof q, "SELECT out.id, count(*) FROM '%s/out.parquet' GROUP BY 1 ORDER BY 1",
             E.dir);
    RUN_OK(&E, q);
    CHECK_EQ_STR(E.rows, "1|1\n2|1\n3|1\n");
    snprintf(q, sizeof q,
             "SELECT p.id, j.name FROM '%s/out.parquet' AS p JOIN '%s/out.jsonl' j ON p.id = "
             "j.id WHERE p.id = 1",
             E.dir, E.dir);
    RUN_OK(&E, q);
    CHECK_EQ_STR(E.rows, "1|a,b\n");
    snprintf(q, sizeof q, "SELECT count(*) FROM '%s/out.*'", E.dir);
    CHECK(stmt_run(&E, q) != FL_OK); /* a glob without an extension names no reader */
    snprintf(q, sizeof q, "SELECT count(*) FROM '%s/*.parquet'", E.dir);
    RUN_OK(&E, q);
    CHECK_EQ_STR(E.rows, "3\n");
    /* FROM inside function calls is untouched */
    RUN_OK(&E, "SELECT substring('floe' FROM 2 FOR 2), extract(year FROM DATE '2024-05-01')");
    CHECK_EQ_STR(E.rows, "lo|2024\n");
    /* a syntax error elsewhere is reported as libpg_query found it */
    RUN_ERR(&E, "SELECT * FROM 'x.csv' WHERE", FL_ESYNTAX, "syntax error at end of input");
    /* a literal that cannot be a FROM item stays PostgreSQL's syntax error */
    RUN_ERR(&E, "DELETE FROM 'x.csv'", FL_ESYNTAX,
            "line 1, column 13: syntax error at or near \"'x.csv'\"");
    RUN_ERR(&E, "SELECT * FROM 'x.txt'", FL_EINVAL,
            "line 1, column 15: cannot tell the format of 'x.txt'");
    /* writes never land among table files or the catalog's */
    snprintf(q, sizeof q, "COPY sales.src TO '%s/wh/x.csv'", E.dir);
    RUN_ERR(&E, q, FL_EFORBIDDEN, "files are not written into the warehouse");
    snprintf(q, sizeof q, "COPY sales.src TO '%s/catalog.db'", E.dir);
    RUN_ERR(&E, q, FL_EFORBIDDEN, "catalog's files");
    snprintf(q, sizeof q, "COPY sales.src TO '%s/x/../wh/y.csv'", E.dir);
    RUN_ERR(&E, q, FL_EFORBIDDEN, "\"..\"");
    RUN_OK(&E, "SELECT count(*) FROM sales.src"); /* the table is intact */
    CHECK_EQ_STR(E.rows, "3\n");
    RUN_ERR(&E, "COPY sales.src TO STDOUT", FL_EUNSUPPORTED, "client protocol");
    RUN_ERR(&E, "COPY sales.src TO '/tmp/x.csv' (FORMAT binary)", FL_EUNSUPPORTED, "FORMAT binary");
    RUN_ERR(&E, "COPY sales.src TO PROGRAM 'cat'", FL_EUNSUPPORTED, "PROGRAM");
    RUN_OK(&E, "ANALYZE sales.src"); /* NDV statistics (test_stmt_analyze.c) */
    CHECK_EQ_STR(E.tag, "ANALYZE");
    RUN_ERR(&E, "VACUUM sales.src", FL_EUNSUPPORTED, "VACUUM is not supported");
}

/* "does not exist" names the search path and a close visible name */
static void test_suggest(void)
{
    RUN_ERR(&E, "SELECT * FROM orders", FL_ENOTFOUND,
            "line 1, column 15: relation \"test.orders\" does not exist (search_path: test; did "
            "you mean sales.orders?)");
    CHECK_EQ_STR(last_state(E.s), "42P01");
    CHECK_EQ_INT(last_pos(E.s), 15);
    RUN_ERR(&E, "SELECT * FROM sales.ordres o JOIN sales.items i ON o.id = i.id", FL_ENOTFOUND,
            "(search_path: test; did you mean sales.orders?)");
    RUN_ERR(&E, "DESCRIBE sales.itens", FL_ENOTFOUND, "did you mean sales.items?");
    RUN_ERR(&E, "SELECT * FROM sales.zzzzzz", FL_ENOTFOUND,
            "relation \"sales.zzzzzz\" does not exist (search_path: test)");
    /* columns: the nearest visible one, qualified; a swap is one edit */
    RUN_ERR(&E, "SELECT ntoe FROM sales.orders", FL_ENOTFOUND,
            "column \"ntoe\" does not exist (did you mean \"orders.note\"?)");
    CHECK_EQ_STR(last_state(E.s), "42703");
    RUN_ERR(&E, "SELECT o.nots FROM sales.orders o", FL_ENOTFOUND,
            "column o.nots does not exist (did you mean \"o.note\"?)");
    RUN_ERR(&E, "SELECT \"Note\" FROM sales.orders", FL_ENOTFOUND, "did you mean \"orders.note\"");
    RUN_ERR(&E,
            "SELECT id FROM sales.orders WHERE EXISTS (SELECT 1 FROM sales.items i WHERE "
            "i.id = nte)",
            FL_ENOTFOUND, "did you mean \"orders.note\"");
    RUN_ERR(&E, "SELECT wxyz FROM sales.orders", FL_ENOTFOUND, "column \"wxyz\" does not exist");
    CHECK(strstr(E.err.msg, "did you mean") == NULL);
    /* functions: a close name of the same kind; a known name with other
     * argument types says so instead */
    RUN_ERR(&E, "SELECT lenght('abc')", FL_ENOTFOUND,
            "function lenght(unknown) does not exist (did you mean length?)");
    CHECK_EQ_STR(last_state(E.s), "42883");
    RUN_ERR(&E, "SELECT cuont(*) FROM sales.orders", FL_ENOTFOUND,
            "function cuont() does not exist (did you mean count?)");
    RUN_ERR(&E, "SELECT length(1, 2, 3)", FL_ENOTFOUND, "no length takes these argument types");
    RUN_ERR(&E, "SELECT qqqqqqq(1)", FL_ENOTFOUND, "function qqqqqqq(integer) does not exist");
    CHECK(strstr(E.err.msg, "did you mean") == NULL);
}

/* X'..' is a varbinary literal, as in Trino, DuckDB and MySQL; bytea || bytea concatenates. */
static void test_binary_literal(void)
{
    RUN_OK(&E, "SELECT X'00ff', x'DEADbeef' = '\\xdeadbeef'::bytea, length(X'')");
    CHECK_EQ_STR(E.rows, "\\x00ff|t|0\n");
    RUN_OK(&E, "CREATE TABLE sales.blobs (b varbinary)");
    RUN_OK(&E, "INSERT INTO sales.blobs VALUES (X'0102'), (NULL)");
    RUN_OK(&E, "SELECT count(*) FROM sales.blobs WHERE b = X'0102'");
    CHECK_EQ_STR(E.rows, "1\n");
    RUN_OK(&E, "SELECT X'00' || X'01', length(X'0102' || X'03'), X'ab' || NULL IS NULL");
    CHECK_EQ_STR(E.rows, "\\x0001|3|t\n");
    RUN_ERR(&E, "SELECT X'0'", FL_ESYNTAX,
            "line 1, column 8: binary literal X'0' has an odd number of hex digits");
    RUN_ERR(&E, "SELECT X'zz'", FL_ESYNTAX, "\"zz\" is not a hex byte");
    RUN_ERR(&E, "SELECT B'01'", FL_EUNSUPPORTED, "bit string literals (B'...') are not supported");
}

/* A principal sees only what it may: listings skip the rest, naming it is 42501. */
static void test_authz(void)
{
    static aw_world w;
    if (aw_open(&w) != FL_OK) {
        fprintf(stderr, "authz world: %s\n", w.err);
        CHECK(0);
        aw_close(&w);
        return;
    }
    stmt_env R = E;
    CHECK_EQ_INT(aw_session(&w, &w.reader, &R.s), FL_OK);
    RUN_OK(&R, "SHOW SCHEMAS");
    CHECK(strstr(R.rows, "pub\n") != NULL);
    CHECK(strstr(R.rows, "secret") == NULL && strstr(R.rows, "sandbox") == NULL);
    RUN_OK(&R, "SHOW TABLES FROM pub");
    CHECK(strstr(R.rows, "t1\n") != NULL && strstr(R.rows, "v_pub\n") != NULL);
    RUN_ERR(&R, "SHOW TABLES FROM secret", FL_EFORBIDDEN, "permission denied for schema secret");
    RUN_ERR(&R, "DESCRIBE secret.hush", FL_EFORBIDDEN, "permission denied");
    RUN_ERR(&R, "SHOW CREATE TABLE secret.t1", FL_EFORBIDDEN, "permission denied");
    RUN_ERR(&R, "USE secret", FL_EFORBIDDEN, "permission denied");
    /* pipelines: only of tables the reader may read */
    CHECK_EQ_INT(aw_exec(&w, w.admin,
                         "ALTER TABLE pub.t1 SET PROPERTIES \"floe.pipeline.feed.epoch\" = '2'"),
                 FL_OK);
    CHECK_EQ_INT(aw_exec(&w, w.admin,
                         "ALTER TABLE secret.t1 SET PROPERTIES \"floe.pipeline.feed.epoch\" = '2'"),
                 FL_OK);
    RUN_OK(&R, "SHOW PIPELINES FROM pub");
    CHECK(strstr(R.rows, "t1|feed|2|") == R.rows);
    RUN_ERR(&R, "SHOW PIPELINES FROM secret", FL_EFORBIDDEN, "permission denied for schema secret");
    /* suggestions come from what the reader may see: never secret's tables */
    RUN_ERR(&R, "SELECT * FROM pub.hush", FL_ENOTFOUND, "(search_path: secret)");
    CHECK(strstr(R.err.msg, "did you mean") == NULL);
    RUN_ERR(&R, "SELECT * FROM pub.t4", FL_ENOTFOUND, "did you mean pub");
    RUN_OK(&R, "DESCRIBE pub.t1");
    CHECK(strstr(R.rows, "a|integer|") == R.rows);
    /* server files need the admin role, like read_parquet */
    char q[512];
    snprintf(q, sizeof q, "COPY pub.t1 TO '%s/leak.csv'", w.dir);
    CHECK(stmt_run(&R, q) == FL_EFORBIDDEN);
    snprintf(q, sizeof q, "%s/leak.csv", w.dir);
    struct stat st;
    CHECK(stat(q, &st) != 0);
    snprintf(q, sizeof q, "COPY pub.t1 FROM '%s/x.csv'", w.dir);
    CHECK(stmt_run(&R, q) == FL_EFORBIDDEN);
    fl_sql_session_close(R.s);
    aw_close(&w);
}

int main(void)
{
    if (stmt_env_open(&E) != 0) {
        fprintf(stderr, "setup failed: %s\n", E.err.msg);
        return 1;
    }
    TEST_RUN(test_show);
    TEST_RUN(test_describe_and_use);
    TEST_RUN(test_show_create_round_trip);
    TEST_RUN(test_copy_files);
    TEST_RUN(test_suggest);
    TEST_RUN(test_binary_literal);
    TEST_RUN(test_authz);
    stmt_env_close(&E);
    return TEST_EXIT();
}
