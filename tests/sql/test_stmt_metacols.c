/*
 * test_stmt_metacols.c - metadata columns in SQL: Spark's _file, _pos,
 * _spec_id and the row lineage columns _row_id / _last_updated_sequence_number,
 * Spark's _partition, Trino's "$path", "$file_size", "$partition" and
 * "$file_modified_time". They are named only (never in `*` or
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

/* _partition: a struct of the file's partition values named as the spec's
 * fields (identity and transforms); "$partition": Trino's partition path. */
static void test_partition_values(void)
{
    RUN_OK(&E, "CREATE TABLE pv (id int, d date, r varchar) WITH (partitioning = "
               "ARRAY['day(d)', 'r', 'bucket(4, id)'])");
    RUN_OK(&E, "INSERT INTO pv VALUES (1, DATE '2024-01-01', 'eu'), (34, DATE '2024-01-02', "
               "'us a')"); /* the spec's bucket vector: hash(34) = 2017239379, % 4 = 3 */
    RUN_OK(&E, "SELECT id, _partition.d_day, _partition.r, _partition.id_bucket, \"$partition\" "
               "FROM pv ORDER BY id");
    CHECK_EQ_STR(E.rows, "1|2024-01-01|eu|0|d_day=2024-01-01/r=eu/id_bucket=0\n"
                         "34|2024-01-02|us a|3|d_day=2024-01-02/r=us+a/id_bucket=3\n");
    /* the whole struct, and its fields filtered per row */
    RUN_OK(&E, "SELECT _partition FROM pv WHERE _partition.r = 'eu'");
    CHECK(strstr(E.rows, "eu") != NULL && strstr(E.rows, "2024-01-01") != NULL);
    RUN_OK(&E, "SELECT count(*) FROM pv WHERE _partition.id_bucket = 3");
    CHECK_EQ_STR(E.rows, "1\n");
    /* a file of an older spec reads NULL in the fields it lacks */
    RUN_OK(&E, "ALTER TABLE pv SET (partitioning = ARRAY['r'])");
    RUN_OK(&E, "INSERT INTO pv VALUES (3, DATE '2024-01-03', 'eu')");
    RUN_OK(&E, "SELECT _partition.r, _partition.d_day IS NULL, \"$partition\" FROM pv "
               "WHERE id = 3");
    CHECK_EQ_STR(E.rows, "eu|t|r=eu\n");
    /* not in * */
    RUN_OK(&E, "SELECT * FROM pv WHERE id = 1");
    CHECK_EQ_STR(E.rows, "1|2024-01-01|eu\n");
}

/* Unpartitioned: "$partition" is '' (Java's partitionToPath); _partition
 * is an empty struct, which floe shows as NULL (Spark shows {}). */
static void test_partition_unpartitioned(void)
{
    RUN_OK(&E, "CREATE TABLE pu (id int)");
    RUN_OK(&E, "INSERT INTO pu VALUES (1)");
    RUN_OK(&E, "SELECT \"$partition\" = '', _partition IS NULL FROM pu");
    CHECK_EQ_STR(E.rows, "t|t\n");
    RUN_OK(&E, "SELECT * FROM pu");
    CHECK_EQ_STR(E.rows, "1\n");
}

/* "$file_modified_time" is the data file's mtime (local files: stat);
 * comparisons on it, "$partition" equality and _partition.x prune whole
 * files. */
static void test_partition_prune(void)
{
    RUN_OK(&E, "CREATE TABLE pp (id int, g varchar) WITH (partitioning = ARRAY['g'])");
    RUN_OK(&E, "INSERT INTO pp VALUES (1, 'x'), (2, 'y'), (3, 'z')");
    RUN_OK(&E, "SELECT id FROM pp WHERE \"$partition\" = 'g=y'");
    CHECK_EQ_STR(E.rows, "2\n");
    RUN_OK(&E, "EXPLAIN ANALYZE SELECT id FROM pp WHERE \"$partition\" = 'g=y'");
    CHECK(strstr(E.rows, "files=3 pruned=2") != NULL);
    /* _partition.x prunes by the files' tuples too */
    RUN_OK(&E, "SELECT id FROM pp WHERE _partition.g = 'z'");
    CHECK_EQ_STR(E.rows, "3\n");
    RUN_OK(&E, "EXPLAIN ANALYZE SELECT id FROM pp WHERE _partition.g = 'z'");
    CHECK(strstr(E.rows, "files=3 pruned=2") != NULL);
    RUN_OK(&E, "SELECT count(*) FROM pp WHERE _partition.g > 'x'");
    CHECK_EQ_STR(E.rows, "2\n");
    RUN_OK(&E, "SELECT count(*), bool_and(\"$file_modified_time\" > TIMESTAMPTZ '2020-01-01 "
               "00:00:00+00'), bool_and(\"$file_modified_time\" <= now() + INTERVAL '1' DAY) "
               "FROM pp");
    CHECK_EQ_STR(E.rows, "3|t|t\n");
    RUN_OK(&E, "EXPLAIN ANALYZE SELECT id FROM pp WHERE \"$file_modified_time\" < "
               "TIMESTAMPTZ '2000-01-01 00:00:00+00'");
    CHECK(strstr(E.rows, "files=3 pruned=3") != NULL);
    RUN_OK(&E, "SELECT count(*) FROM pp WHERE \"$file_modified_time\" >= "
               "TIMESTAMPTZ '2000-01-01 00:00:00+00'");
    CHECK_EQ_STR(E.rows, "3\n");
}

/* A table column named like a metadata column wins over it. */
static void test_partition_shadowing(void)
{
    RUN_OK(&E, "CREATE TABLE ps (id int, \"$partition\" varchar, _partition int, "
               "\"$file_modified_time\" int) WITH (partitioning = ARRAY['id'])");
    RUN_OK(&E, "INSERT INTO ps VALUES (1, 'mine', 7, 9)");
    RUN_OK(&E, "SELECT \"$partition\", _partition, \"$file_modified_time\" FROM ps");
    CHECK_EQ_STR(E.rows, "mine|7|9\n");
    RUN_OK(&E, "SELECT id FROM ps WHERE \"$partition\" = 'mine'");
    CHECK_EQ_STR(E.rows, "1\n");
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
    TEST_RUN(test_partition_values);
    TEST_RUN(test_partition_unpartitioned);
    TEST_RUN(test_partition_prune);
    TEST_RUN(test_partition_shadowing);
    stmt_env_close(&E);
    return TEST_EXIT();
}
