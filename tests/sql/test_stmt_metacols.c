/*
 * test_stmt_metacols.c - metadata columns in SQL: Spark's _file, _pos,
 * _spec_id and the row lineage columns _row_id / _last_updated_sequence_number,
 * Trino's "$path" and "$file_size". They are named only (never in `*` or
 * t.*), answer from the scan (positions survive deletes, lineage is
 * first_row_id + _pos on v3 and NULL before), can be filtered, grouped and
 * joined on, and a table column of the same name wins.
 */
#include "sql/stmt_test_util.h"

static stmt_env E;

static void test_names_and_star(void)
{
    RUN_OK(&E, "CREATE TABLE m3 (id int, g varchar) WITH (format_version = 3, "
               "partitioning = ARRAY['g'])");
    RUN_OK(&E, "INSERT INTO m3 SELECT x, CASE WHEN x % 2 = 0 THEN 'a' ELSE 'b' END "
               "FROM generate_series(1, 10) t(x)");
    RUN_OK(&E, "SELECT * FROM m3 WHERE id = 1");
    CHECK_EQ_STR(E.rows, "1|b\n");
    RUN_OK(&E, "SELECT t.* FROM m3 t WHERE id = 2");
    CHECK_EQ_STR(E.rows, "2|a\n");
    /* two files (one per partition), positions 0..4 in each */
    RUN_OK(&E, "SELECT count(DISTINCT _file), min(_pos), max(_pos), count(DISTINCT \"$path\"), "
               "bool_and(\"$path\" = _file), bool_and(\"$file_size\" > 0), max(_spec_id) FROM m3");
    CHECK_EQ_STR(E.rows, "2|0|4|2|t|t|0\n");
    RUN_OK(&E, "SELECT g, count(*) FROM m3 WHERE _file LIKE '%g=a%' GROUP BY g");
    CHECK_EQ_STR(E.rows, "a|5\n");
    /* row lineage: ids unique, the file's data sequence number */
    RUN_OK(&E, "SELECT count(DISTINCT _row_id), min(_row_id), max(_row_id), "
               "min(_last_updated_sequence_number), max(_last_updated_sequence_number) FROM m3");
    CHECK_EQ_STR(E.rows, "10|0|9|1|1\n");
    /* after a delete the survivors keep their positions and row ids */
    RUN_OK(&E, "SELECT _pos, _row_id FROM m3 WHERE id = 9");
    char before[128] = {0};
    size_t blen = strlen(E.rows);
    CHECK(blen < sizeof before);
    memcpy(before, E.rows, blen < sizeof before ? blen + 1 : 1);
    RUN_OK(&E, "DELETE FROM m3 WHERE id IN (1, 3)");
    RUN_OK(&E, "SELECT _pos, _row_id FROM m3 WHERE id = 9");
    CHECK_EQ_STR(E.rows, before);
    /* joins on a metadata column, qualified */
    RUN_OK(&E, "SELECT count(*) FROM m3 a JOIN m3 b ON a._file = b._file AND a._pos = b._pos");
    CHECK_EQ_STR(E.rows, "8\n");
}

/* WHERE on a per-file metadata column (_file, "$path", _spec_id,
 * "$file_size") is pushed into the scan and decides whole files: the
 * others are pruned without being opened. */
static void test_prune_by_file(void)
{
    RUN_OK(&E, "CREATE TABLE mp (id int, g varchar) WITH (partitioning = ARRAY['g'])");
    RUN_OK(&E, "INSERT INTO mp VALUES (1, 'x'), (2, 'y'), (3, 'z'), (4, 'y')");
    RUN_OK(&E, "SELECT _file FROM mp WHERE id = 2");
    char path[1024] = {0}, q[1400];
    size_t n = strlen(E.rows);
    CHECK(n > 1 && n < sizeof path);
    memcpy(path, E.rows, n < sizeof path ? n - 1 : 0); /* without the newline */
    snprintf(q, sizeof q, "SELECT id FROM mp WHERE _file = '%s' ORDER BY id", path);
    RUN_OK(&E, q);
    CHECK_EQ_STR(E.rows, "2\n4\n");
    snprintf(q, sizeof q, "EXPLAIN ANALYZE SELECT id FROM mp WHERE _file = '%s'", path);
    RUN_OK(&E, q);
    CHECK(strstr(E.rows, "files=3 pruned=2") != NULL);
    snprintf(q, sizeof q,
             "SELECT count(*) FROM mp WHERE \"$path\" <> '%s' AND _spec_id = 0 AND "
             "\"$file_size\" > 0",
             path);
    RUN_OK(&E, q);
    CHECK_EQ_STR(E.rows, "2\n");
    RUN_OK(&E, "SELECT count(*) FROM mp WHERE _file = 'nowhere'");
    CHECK_EQ_STR(E.rows, "0\n");
    /* _pos is per row: filtered, never used to drop files */
    RUN_OK(&E, "SELECT count(*) FROM mp WHERE _pos = 0");
    CHECK_EQ_STR(E.rows, "3\n");
}

static void test_v2_and_shadowing(void)
{
    RUN_OK(&E, "CREATE TABLE m2 (id int, _pos varchar) WITH (format_version = 2)");
    RUN_OK(&E, "INSERT INTO m2 VALUES (1, 'mine')");
    /* the table's own _pos wins; lineage is NULL before v3 */
    RUN_OK(&E, "SELECT _pos, _row_id, _last_updated_sequence_number, _spec_id FROM m2");
    CHECK_EQ_STR(E.rows, "mine|NULL|NULL|0\n");
    RUN_OK(&E, "SELECT * FROM m2");
    CHECK_EQ_STR(E.rows, "1|mine\n");
    RUN_ERR(&E, "SELECT _nosuch FROM m2", FL_ENOTFOUND, "_nosuch");
    /* an alias list counts the table's columns only */
    RUN_OK(&E, "SELECT a, b FROM m2 AS t(a, b)");
    CHECK_EQ_STR(E.rows, "1|mine\n");
    RUN_ERR(&E, "SELECT * FROM m2 AS t(a, b, c)", FL_EINVAL, "has 2 columns");
}

int main(void)
{
    if (stmt_env_open(&E) != 0) {
        fprintf(stderr, "setup failed: %s\n", E.err.msg);
        return 1;
    }
    TEST_RUN(test_names_and_star);
    TEST_RUN(test_prune_by_file);
    TEST_RUN(test_v2_and_shadowing);
    stmt_env_close(&E);
    return TEST_EXIT();
}
