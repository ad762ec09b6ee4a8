/*
 * test_front_parse.c - the front end's parsing layer: the lakehouse
 * pre-lexer (time travel, ALTER TABLE ... EXECUTE, ARRAY options), syntax
 * error positions, and fl_sql_split.
 */
#include <stdlib.h>
#include <string.h>

#include "floe/sql.h"
#include "sql/planner.h"
#include "test.h"

static void test_plain_select(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_sql_parsed *p = NULL;
    CHECK_OK(fl_sql_parse("SELECT 1 AS x FROM t WHERE y > 2;", &a, &p, NULL, &err), &err);
    CHECK(p && p->stmt && p->stmt->node_case == PG_QUERY__NODE__NODE_SELECT_STMT);
    CHECK(p && p->execute == NULL);
    CHECK_EQ_INT(p ? p->ntravel : 99, 0);
    fl_sql_parsed_free(p);
    fl_arena_free(&a);
}

static void test_time_travel(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_sql_parsed *p = NULL;
    const char *sql = "SELECT * FROM db.orders FOR VERSION AS OF 1234567 o JOIN\n"
                      "  lines FOR TIMESTAMP AS OF TIMESTAMP '2024-01-02 03:04:05' l ON o.k = l.k\n"
                      "  JOIN x FOR VERSION AS OF 'audit-branch' ON true";
    CHECK_OK(fl_sql_parse(sql, &a, &p, NULL, &err), &err);
    CHECK(p != NULL);
    if (!p)
        return;
    CHECK_EQ_INT(p->ntravel, 3);
    CHECK(!p->travel[0].by_timestamp);
    CHECK_EQ_STR(p->travel[0].expr_text, "1234567");
    CHECK_EQ_INT(p->travel[0].relation_location, (int)(strstr(sql, "db.orders") - sql));
    CHECK_EQ_INT(p->travel[0].expr_location, (int)(strstr(sql, "1234567") - sql));
    CHECK(p->travel[1].by_timestamp);
    CHECK_EQ_STR(p->travel[1].expr_text, "TIMESTAMP '2024-01-02 03:04:05'");
    CHECK_EQ_INT(p->travel[1].relation_location, (int)(strstr(sql, "lines") - sql));
    CHECK_EQ_STR(p->travel[2].expr_text, "'audit-branch'");
    CHECK_EQ_INT(p->travel[2].relation_location, (int)(strstr(sql, "JOIN x") - sql) + 5);
    /* the alias after the clause still parses as the alias */
    const PgQuery__SelectStmt *s = p->stmt->select_stmt;
    CHECK_EQ_INT(s->n_from_clause, 1);
    fl_sql_parsed_free(p);
    /* FOR UPDATE is not time travel */
    CHECK_OK(fl_sql_parse("SELECT * FROM t FOR UPDATE", &a, &p, NULL, &err), &err);
    CHECK(p && p->ntravel == 0);
    fl_sql_parsed_free(p);
    /* a bad value is a positioned syntax error */
    int32_t pos = 0;
    CHECK_EQ_INT(fl_sql_parse("SELECT * FROM t FOR VERSION AS OF x", &a, &p, &pos, &err),
                 FL_ESYNTAX);
    CHECK(strstr(err.msg, "line 1, column 35") != NULL);
    CHECK_EQ_INT(pos, 35);
    fl_arena_free(&a);
}

static void test_execute(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_sql_parsed *p = NULL;
    CHECK_OK(
        fl_sql_parse("ALTER TABLE sales.\"Orders\" EXECUTE expire_snapshots(retention_threshold "
                     "=> '7d', retain_last => 3)",
                     &a, &p, NULL, &err),
        &err);
    CHECK(p && p->execute && !p->stmt && !p->tree);
    if (p && p->execute) {
        const fl_execute_stmt *x = p->execute;
        CHECK_EQ_STR(x->table, "sales.Orders");
        CHECK_EQ_STR(x->procedure, "expire_snapshots");
        CHECK_EQ_INT(x->nargs, 2);
        CHECK_EQ_STR(x->arg_names[0], "retention_threshold");
        CHECK_EQ_STR(x->arg_values[0], "7d");
        CHECK_EQ_STR(x->arg_names[1], "retain_last");
        CHECK_EQ_STR(x->arg_values[1], "3");
        CHECK(x->where_text == NULL);
    }
    CHECK_OK(fl_sql_parse("alter table t execute OPTIMIZE WHERE day >= DATE '2024-01-01';", &a, &p,
                          NULL, &err),
             &err);
    CHECK(p && p->execute);
    if (p && p->execute) {
        CHECK_EQ_STR(p->execute->procedure, "optimize");
        CHECK_EQ_INT(p->execute->nargs, 0);
        CHECK_EQ_STR(p->execute->where_text, "day >= DATE '2024-01-01'");
    }
    CHECK_OK(fl_sql_parse("ALTER TABLE t EXECUTE rollback_to_snapshot(42)", &a, &p, NULL, &err),
             &err);
    CHECK(p && p->execute && p->execute->nargs == 1 && p->execute->arg_names[0] == NULL &&
          strcmp(p->execute->arg_values[0], "42") == 0);
    /* an ordinary ALTER TABLE goes to libpg_query */
    CHECK_OK(fl_sql_parse("ALTER TABLE t ADD COLUMN c int", &a, &p, NULL, &err), &err);
    CHECK(p && !p->execute && p->stmt);
    fl_sql_parsed_free(p);
    int32_t pos = 0;
    CHECK_EQ_INT(fl_sql_parse("ALTER TABLE t EXECUTE optimize(a => ) ", &a, &p, &pos, &err),
                 FL_ESYNTAX);
    CHECK(strstr(err.msg, "line 1, column 37") != NULL);
    fl_arena_free(&a);
}

static void test_array_options(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_sql_parsed *p = NULL;
    const char *sql = "CREATE TABLE t (id bigint, ts timestamp) WITH (partitioning = "
                      "ARRAY['day(ts)', 'bucket(16, id)'], sorted_by = ARRAY['id'], "
                      "format_version = 2)";
    CHECK_OK(fl_sql_parse(sql, &a, &p, NULL, &err), &err);
    CHECK(p && p->stmt && p->stmt->node_case == PG_QUERY__NODE__NODE_CREATE_STMT);
    if (p) {
        CHECK_EQ_INT(p->narray_options, 2);
        CHECK_EQ_STR(p->array_option_names[0], "partitioning");
        CHECK_EQ_INT(p->array_option_counts[0], 2);
        CHECK_EQ_STR(p->array_option_values[0][0], "day(ts)");
        CHECK_EQ_STR(p->array_option_values[0][1], "bucket(16, id)");
        CHECK_EQ_STR(p->array_option_names[1], "sorted_by");
        CHECK_EQ_STR(p->array_option_values[1][0], "id");
        /* the original text is kept intact */
        CHECK_EQ_STR(p->text, sql);
    }
    fl_sql_parsed_free(p);
    /* ALTER TABLE ... SET (partitioning = ARRAY[...]), as Trino users type it */
    const char *alter = "ALTER TABLE t SET (partitioning = ARRAY['bucket(id, 4)', 'day(ts)'])";
    CHECK_OK(fl_sql_parse(alter, &a, &p, NULL, &err), &err);
    CHECK(p && p->stmt && p->stmt->node_case == PG_QUERY__NODE__NODE_ALTER_TABLE_STMT);
    if (p) {
        CHECK_EQ_INT(p->narray_options, 1);
        CHECK_EQ_STR(p->array_option_names[0], "partitioning");
        CHECK_EQ_INT(p->array_option_counts[0], 2);
        CHECK_EQ_STR(p->array_option_values[0][0], "bucket(id, 4)");
        CHECK_EQ_STR(p->array_option_values[0][1], "day(ts)");
        CHECK_EQ_STR(p->text, alter);
    }
    fl_sql_parsed_free(p);
    /* Trino's SET PROPERTIES spelling is SET (...): same options, same positions */
    const char *props = "ALTER TABLE t SET PROPERTIES partitioning = ARRAY['bucket(id, 4)'], "
                        "owner = 'bi' ; -- trailing comment";
    CHECK_OK(fl_sql_parse(props, &a, &p, NULL, &err), &err);
    CHECK(p && p->stmt && p->stmt->node_case == PG_QUERY__NODE__NODE_ALTER_TABLE_STMT);
    if (p && p->stmt && p->stmt->node_case == PG_QUERY__NODE__NODE_ALTER_TABLE_STMT) {
        const PgQuery__AlterTableStmt *at = p->stmt->alter_table_stmt;
        CHECK_EQ_INT(at->n_cmds, 1);
        const PgQuery__AlterTableCmd *cmd = at->cmds[0]->alter_table_cmd;
        CHECK_EQ_INT(cmd->subtype, PG_QUERY__ALTER_TABLE_TYPE__AT_SetRelOptions);
        CHECK(cmd->def && cmd->def->node_case == PG_QUERY__NODE__NODE_LIST &&
              cmd->def->list->n_items == 2);
        CHECK_EQ_INT(p->narray_options, 1);
        CHECK_EQ_STR(p->array_option_values[0][0], "bucket(id, 4)");
        CHECK_EQ_STR(p->text, props);
    }
    fl_sql_parsed_free(p);
    int32_t epos = 0;
    CHECK_EQ_INT(fl_sql_parse("ALTER TABLE t SET PROPERTIES owner = ", &a, &p, &epos, &err),
                 FL_ESYNTAX);
    fl_arena_free(&a);
}

static void test_syntax_positions(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_sql_parsed *p = NULL;
    int32_t pos = 0;
    CHECK_EQ_INT(fl_sql_parse("SELECT a,\n  b\n  FROM FROM t", &a, &p, &pos, &err), FL_ESYNTAX);
    CHECK(strstr(err.msg, "line 3, column 8") != NULL);
    CHECK(strstr(err.msg, "syntax error at or near \"FROM\"") != NULL);
    CHECK_EQ_INT(pos, 22);
    /* positions count characters, not bytes */
    CHECK_EQ_INT(fl_sql_parse("SELECT 'é', 'ü' FRM t", &a, &p, &pos, &err), FL_ESYNTAX);
    CHECK(strstr(err.msg, "line 1, column 21") != NULL); /* FRM is an alias; "t" fails */
    CHECK_EQ_INT(pos, 21);
    CHECK_EQ_INT(fl_sql_parse("SELECT 'abc", &a, &p, &pos, &err), FL_ESYNTAX);
    CHECK(strstr(err.msg, "line 1, column 8") != NULL);
    CHECK_EQ_INT(fl_sql_parse("SELECT 1; SELECT 2", &a, &p, &pos, &err), FL_ESYNTAX);
    CHECK_EQ_INT(fl_sql_parse("  -- nothing\n", &a, &p, &pos, &err), FL_ESYNTAX);
    char buf[64];
    fl_sql_position("ab\ncd\nef", 7, buf, sizeof buf);
    CHECK_EQ_STR(buf, "line 3, column 2");
    fl_arena_free(&a);
}

static void test_split(void)
{
    fl_error err;
    uint32_t *st = NULL, *ln = NULL, n = 0;
    const char *sql = "SELECT ';' AS a; -- c;omment\n"
                      "SELECT \"x;y\" FROM t /* ; */;\n"
                      "  ;  \n"
                      "SELECT $$a;b$$, $tag$ ; $tag$;"
                      "INSERT INTO t VALUES (E'\\';')\n";
    CHECK_OK(fl_sql_split(sql, &st, &ln, &n, &err), &err);
    CHECK_EQ_INT(n, 4);
    if (n == 4) {
        CHECK(strncmp(sql + st[0], "SELECT ';' AS a", ln[0]) == 0 && ln[0] == 15);
        CHECK(strncmp(sql + st[1], "SELECT \"x;y\" FROM t /* ; */", ln[1]) == 0 &&
              ln[1] == strlen("SELECT \"x;y\" FROM t /* ; */"));
        CHECK(strncmp(sql + st[2], "SELECT $$a;b$$, $tag$ ; $tag$", ln[2]) == 0 &&
              ln[2] == strlen("SELECT $$a;b$$, $tag$ ; $tag$"));
        CHECK(strncmp(sql + st[3], "INSERT INTO t VALUES (E'\\';')", ln[3]) == 0 &&
              ln[3] == strlen("INSERT INTO t VALUES (E'\\';')"));
    }
    free(st);
    free(ln);
    CHECK_OK(fl_sql_split("  \n -- only a comment\n", &st, &ln, &n, &err), &err);
    CHECK_EQ_INT(n, 0);
    free(st);
    free(ln);
}

int main(void)
{
    TEST_RUN(test_plain_select);
    TEST_RUN(test_time_travel);
    TEST_RUN(test_execute);
    TEST_RUN(test_array_options);
    TEST_RUN(test_syntax_positions);
    TEST_RUN(test_split);
    return TEST_EXIT();
}
