/*
 * test_stmt_gaps.c - round 4's SQL gaps through the SQL API: a table whose
 * metadata file is missing (an I/O error naming the file, SQLSTATE 58P01,
 * not 42P01; DROP TABLE still removes it), INSERT/UPDATE/DELETE ...
 * RETURNING (rows, tags, the table afterwards, errors), DEFAULT in VALUES
 * and INSERT ... DEFAULT VALUES, ARRAY[...] and array text into a list
 * column, subqueries in JOIN ... ON and the RIGHT/FULL JOIN LATERAL error.
 * Answers are PostgreSQL 15's (tests/sql/slt/sqlgaps.slt has more).
 */
#include "sql/stmt_test_util.h"

static stmt_env E;

static void sqlstate_is(const char *want)
{
    fl_sql_error_info info;
    fl_sql_last_error(E.s, &info);
    CHECK_EQ_STR(info.sqlstate, want);
}

static void test_missing_metadata(void)
{
    RUN_OK(&E, "CREATE TABLE mm (id int)");
    RUN_OK(&E, "INSERT INTO mm VALUES (1), (2)");
    fl_ice_table *t = stmt_load(&E, "test.mm");
    CHECK(t != NULL);
    if (!t)
        return;
    char loc[1024];
    snprintf(loc, sizeof loc, "%s", t->metadata_location);
    fl_ice_table_free(t);
    const char *path = strncmp(loc, "file://", 7) == 0 ? loc + 7 : loc;
    CHECK_EQ_INT(unlink(path), 0);
    RUN_ERR(&E, "SELECT * FROM mm", FL_EIO, "metadata file");
    CHECK(strstr(E.err.msg, path) != NULL); /* names the file */
    CHECK(strstr(E.err.msg, "does not exist") == NULL || strstr(E.err.msg, "relation") == NULL);
    sqlstate_is("58P01");
    RUN_ERR(&E, "INSERT INTO mm VALUES (3)", FL_EIO, "metadata file");
    RUN_ERR(&E, "ALTER TABLE mm ADD COLUMN x int", FL_EIO, "metadata file");
    /* a table that really is not there is still 42P01 */
    RUN_ERR(&E, "SELECT * FROM nosuch_table", FL_ENOTFOUND, "does not exist");
    sqlstate_is("42P01");
    /* DROP TABLE removes the broken entry */
    RUN_OK(&E, "DROP TABLE mm");
    CHECK_EQ_STR(E.tag, "DROP TABLE");
    RUN_ERR(&E, "SELECT * FROM mm", FL_ENOTFOUND, "does not exist");
    RUN_OK(&E, "CREATE TABLE mm (id int)");
    RUN_OK(&E, "DROP TABLE mm");
}

static void test_returning(void)
{
    RUN_OK(&E, "CREATE TABLE rt (id int, v int, note varchar)");
    RUN_OK(&E, "INSERT INTO rt VALUES (1, 10, 'a'), (2, 20, 'b') RETURNING *");
    CHECK_EQ_STR(E.tag, "INSERT 0 2");
    CHECK_EQ_STR(E.rows, "1|10|a\n2|20|b\n");
    RUN_OK(&E, "INSERT INTO rt AS q (id, v) VALUES (3, 30) RETURNING q.id * 10, note IS NULL");
    CHECK_EQ_STR(E.rows, "30|t\n");
    RUN_OK(&E, "UPDATE rt SET v = v + 1, note = upper(note) WHERE id = 2 RETURNING id, v, note");
    CHECK_EQ_STR(E.tag, "UPDATE 1");
    CHECK_EQ_STR(E.rows, "2|21|B\n"); /* the new values */
    RUN_OK(&E, "UPDATE rt SET v = 0 WHERE id > 100 RETURNING *");
    CHECK_EQ_STR(E.tag, "UPDATE 0");
    CHECK_EQ_STR(E.rows, "");
    RUN_OK(&E, "DELETE FROM rt WHERE id = 1 RETURNING v, note");
    CHECK_EQ_STR(E.tag, "DELETE 1");
    CHECK_EQ_STR(E.rows, "10|a\n"); /* the deleted row */
    RUN_OK(&E, "SELECT id, v, note FROM rt ORDER BY id");
    CHECK_EQ_STR(E.rows, "2|21|B\n3|30|NULL\n");
    RUN_ERR(&E, "UPDATE rt SET v = 1 RETURNING nope", FL_ENOTFOUND, "nope");
    RUN_ERR(&E, "DELETE FROM rt RETURNING other.*", FL_ENOTFOUND, "other");
    /* the failed statements changed nothing */
    RUN_OK(&E, "SELECT count(*), sum(v) FROM rt");
    CHECK_EQ_STR(E.rows, "2|51\n");
    RUN_OK(&E, "DELETE FROM rt RETURNING id");
    CHECK_EQ_STR(E.tag, "DELETE 2");
    CHECK(strcmp(E.rows, "2\n3\n") == 0 || strcmp(E.rows, "3\n2\n") == 0);
    RUN_OK(&E, "SELECT count(*) FROM rt");
    CHECK_EQ_STR(E.rows, "0\n");
}

static void test_defaults_and_arrays(void)
{
    RUN_OK(&E, "CREATE TABLE df (id int, v int, tags int[])");
    RUN_OK(&E, "INSERT INTO df VALUES (1, DEFAULT, ARRAY[1, 2]), (DEFAULT, 2, '{3,NULL}')");
    CHECK_EQ_STR(E.tag, "INSERT 0 2");
    RUN_OK(&E, "INSERT INTO df DEFAULT VALUES");
    CHECK_EQ_STR(E.tag, "INSERT 0 1");
    RUN_OK(&E, "INSERT INTO df (id, tags) VALUES (4, NULL)");
    RUN_OK(&E, "UPDATE df SET v = DEFAULT WHERE id = 4");
    RUN_OK(&E, "SELECT id, v, tags FROM df ORDER BY id NULLS LAST, v");
    CHECK_EQ_STR(E.rows, "1|NULL|{1,2}\n4|NULL|NULL\nNULL|2|{3,NULL}\nNULL|NULL|NULL\n");
    RUN_OK(&E, "SELECT u FROM df, unnest(tags) AS x(u) ORDER BY u NULLS LAST");
    CHECK_EQ_STR(E.rows, "1\n2\n3\nNULL\n");
    RUN_ERR(&E, "INSERT INTO df VALUES (5, 5, '{1,x}')", FL_ETYPE, "integer");
    RUN_ERR(&E, "INSERT INTO df VALUES (5, 5, '1,2')", FL_ETYPE, "malformed array literal");
    sqlstate_is("22P02");
    RUN_ERR(&E, "INSERT INTO df VALUES (5, 5, '{{1},{2}}')", FL_EUNSUPPORTED, "multidimensional");
    RUN_OK(&E, "SELECT count(*) FROM df");
    CHECK_EQ_STR(E.rows, "4\n");
}

static void test_join_on_subqueries(void)
{
    RUN_OK(&E, "CREATE TABLE ja (x int, y int)");
    RUN_OK(&E, "CREATE TABLE jb (x int, y int)");
    RUN_OK(&E, "INSERT INTO ja VALUES (1, 1), (2, 2), (3, NULL)");
    RUN_OK(&E, "INSERT INTO jb VALUES (1, 10), (2, 20), (4, 40)");
    RUN_OK(&E, "SELECT ja.x, jb.y FROM ja JOIN jb ON ja.x = jb.x AND jb.y IN (SELECT 20)");
    CHECK_EQ_STR(E.rows, "2|20\n");
    RUN_OK(&E, "SELECT ja.x, jb.y FROM ja LEFT JOIN jb ON ja.x = jb.x AND "
               "EXISTS (SELECT 1 FROM jb j2 WHERE j2.x = ja.x + 1) ORDER BY 1");
    CHECK_EQ_STR(E.rows, "1|10\n2|NULL\n3|NULL\n");
    RUN_OK(&E, "SELECT ja.x, s.y FROM ja LEFT JOIN LATERAL (SELECT * FROM jb WHERE jb.x >= ja.x) s "
               "ON s.y < 30 ORDER BY 1, 2");
    CHECK_EQ_STR(E.rows, "1|10\n1|20\n2|20\n3|NULL\n");
    RUN_ERR(&E, "SELECT * FROM ja RIGHT JOIN LATERAL (SELECT ja.x) s ON true", FL_EINVAL,
            "invalid reference to FROM-clause entry for table \"ja\"");
    sqlstate_is("42P10");
    RUN_ERR(&E, "SELECT * FROM ja FULL JOIN LATERAL (SELECT ja.x) s ON true", FL_EINVAL,
            "invalid reference to FROM-clause entry for table \"ja\"");
}

int main(void)
{
    if (stmt_env_open(&E) != 0) {
        fprintf(stderr, "setup failed: %s\n", E.err.msg);
        return 1;
    }
    TEST_RUN(test_missing_metadata);
    TEST_RUN(test_returning);
    TEST_RUN(test_defaults_and_arrays);
    TEST_RUN(test_join_on_subqueries);
    stmt_env_close(&E);
    return TEST_EXIT();
}
