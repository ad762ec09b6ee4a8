/*
 * test_stmt_analyze.c - ANALYZE through fl_sql_execute: the Puffin
 * statistics file and the metadata entry it commits (one per snapshot,
 * replaced by a later ANALYZE of the same snapshot, kept by later
 * commits), NDV of each primitive column after deletes, the join estimate
 * EXPLAIN shows before and after (and again when the file is gone),
 * errors naming the table or column, VACUUM still refused, and the
 * privilege check (42501 for a reader; a principal who may write does it).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "floe/ice_stats.h"
#include "sql/authz_world.h"
#include "sql/stmt_test_util.h"

static stmt_env E;

/* The NDV of field fid in the statistics of snapshot snap (-1: none). */
static int64_t ndv_of(const fl_ice_table *t, int64_t snap, int32_t fid)
{
    const fl_ice_statistics_file *sf = NULL;
    for (uint32_t i = 0; i < t->meta.nstatistics; i++)
        if (t->meta.statistics[i].snapshot_id == snap)
            sf = &t->meta.statistics[i];
    if (!sf)
        return -1;
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_ice_column_ndv *v = NULL;
    uint32_t n = 0;
    int64_t out = -1;
    fl_error err;
    if (fl_ice_stats_read_ndv(E.io, sf, &a, &v, &n, &err) == FL_OK)
        for (uint32_t i = 0; i < n; i++)
            if (v[i].field_id == fid)
                out = v[i].ndv;
    fl_arena_free(&a);
    return out;
}

static int32_t field_id(const fl_ice_table *t, const char *name)
{
    const fl_ice_schema *s = fl_ice_metadata_schema(&t->meta, t->meta.current_schema_id);
    for (uint32_t i = 0; s && i < s->schema.nfields; i++)
        if (!strcmp(s->schema.fields[i].name, name))
            return s->schema.fields[i].field_id;
    return -1;
}

static void test_analyze_table(void)
{
    RUN_OK(&E, "CREATE TABLE an.t (id bigint, s text, d decimal(10,2), n int, tags text[])");
    RUN_OK(&E, "ANALYZE an.t"); /* no snapshot: nothing to analyze */
    CHECK_EQ_STR(E.tag, "ANALYZE");
    fl_ice_table *t = stmt_load(&E, "an.t");
    CHECK(t && t->meta.nstatistics == 0);
    fl_ice_table_free(t);
    RUN_OK(&E, "INSERT INTO an.t SELECT g, 'v' || (g % 10), g % 7, NULL, ARRAY['a'] "
               "FROM generate_series(1, 1000) g");
    RUN_OK(&E, "ANALYZE an.t");
    CHECK_EQ_STR(E.tag, "ANALYZE");
    t = stmt_load(&E, "an.t");
    if (!t)
        return;
    int64_t s1 = t->meta.current_snapshot_id;
    CHECK_EQ_INT(t->meta.nstatistics, 1);
    const fl_ice_statistics_file *sf = &t->meta.statistics[0];
    CHECK(sf->snapshot_id == s1 && sf->nblobs == 4); /* tags (a list) is skipped */
    CHECK(strstr(sf->statistics_path, "/metadata/") && sf->file_size_in_bytes > 0);
    CHECK(sf->file_footer_size_in_bytes > 0 &&
          sf->file_footer_size_in_bytes < sf->file_size_in_bytes);
    CHECK_EQ_STR(sf->blobs[0].type, FL_ICE_BLOB_THETA);
    CHECK(sf->blobs[0].snapshot_id == s1 && sf->blobs[0].nfields == 1);
    CHECK_EQ_STR(fl_ice_map_get(&sf->blobs[0].properties, "ndv"), "1000");
    CHECK_EQ_INT(ndv_of(t, s1, field_id(t, "id")), 1000);
    CHECK_EQ_INT(ndv_of(t, s1, field_id(t, "s")), 10);
    CHECK_EQ_INT(ndv_of(t, s1, field_id(t, "d")), 7);
    CHECK_EQ_INT(ndv_of(t, s1, field_id(t, "n")), 0);
    fl_ice_table_free(t);

    /* deletes are honoured; a later snapshot gets its own entry */
    RUN_OK(&E, "DELETE FROM an.t WHERE id > 500");
    RUN_OK(&E, "ANALYZE an.t (id, s)");
    t = stmt_load(&E, "an.t");
    int64_t s2 = t->meta.current_snapshot_id;
    CHECK_EQ_INT(t->meta.nstatistics, 2);
    CHECK_EQ_INT(ndv_of(t, s2, field_id(t, "id")), 500);
    CHECK_EQ_INT(ndv_of(t, s2, field_id(t, "d")), -1);
    CHECK_EQ_INT(ndv_of(t, s1, field_id(t, "id")), 1000);
    fl_ice_table_free(t);
    /* the same snapshot again: the entry is replaced */
    RUN_OK(&E, "ANALYZE an.t (d)");
    t = stmt_load(&E, "an.t");
    CHECK_EQ_INT(t->meta.nstatistics, 2);
    CHECK_EQ_INT(ndv_of(t, s2, field_id(t, "d")), 7);
    CHECK_EQ_INT(ndv_of(t, s2, field_id(t, "id")), -1);
    fl_ice_table_free(t);
    /* later commits keep the statistics */
    RUN_OK(&E, "INSERT INTO an.t VALUES (5000, 'w', 1, 1, NULL)");
    RUN_OK(&E, "ALTER TABLE an.t SET (owner = 'x')");
    t = stmt_load(&E, "an.t");
    CHECK_EQ_INT(t->meta.nstatistics, 2);
    CHECK(fl_ice_stats_find(&t->meta, t->meta.current_snapshot_id) != NULL);
    CHECK(fl_ice_stats_find(&t->meta, t->meta.current_snapshot_id)->snapshot_id == s2);
    fl_ice_table_free(t);
}

static void test_errors(void)
{
    stmt_run(&E, "CREATE TABLE an.e (a int, tags text[])");
    RUN_OK(&E, "INSERT INTO an.e VALUES (1, ARRAY['x'])");
    CHECK(stmt_run(&E, "ANALYZE an.nope") == FL_ENOTFOUND);
    CHECK(strstr(E.err.msg, "an.nope") != NULL);
    RUN_ERR(&E, "ANALYZE an.e (zz)", FL_ENOTFOUND, "column \"zz\" of relation \"an.e\"");
    RUN_ERR(&E, "ANALYZE an.e (tags)", FL_EUNSUPPORTED, "\"tags\" is nested");
    RUN_ERR(&E, "ANALYZE an.e (a, a)", FL_EINVAL, "appears twice");
    RUN_ERR(&E, "ANALYZE", FL_EUNSUPPORTED, "name the tables");
    RUN_ERR(&E, "VACUUM an.e", FL_EUNSUPPORTED, "VACUUM is not supported");
    RUN_OK(&E, "BEGIN READ ONLY");
    RUN_ERR(&E, "ANALYZE an.e", FL_EINVAL, "cannot execute ANALYZE in a read-only transaction");
    RUN_OK(&E, "ROLLBACK");
    /* a table with changes staged in a block: COMMIT or ROLLBACK first */
    RUN_OK(&E, "BEGIN");
    RUN_OK(&E, "INSERT INTO an.e VALUES (2, NULL)");
    RUN_ERR(&E, "ANALYZE an.e", FL_EUNSUPPORTED, "uncommitted changes in this transaction block");
    RUN_OK(&E, "ROLLBACK");
    fl_ice_table *t = stmt_load(&E, "an.e");
    CHECK(t && t->meta.nstatistics == 0);
    fl_ice_table_free(t);
}

/* Two tables of 1000 rows whose string keys have 10 values: the join
 * estimate is rows/NDV once statistics exist, rows/rows before. */
static void test_planner_ndv(void)
{
    RUN_OK(&E, "CREATE TABLE an.ja (k text, v int)");
    RUN_OK(&E, "CREATE TABLE an.jb (k text, w int)");
    RUN_OK(&E, "INSERT INTO an.ja SELECT 'k' || (g % 10), g FROM generate_series(1, 1000) g");
    RUN_OK(&E, "INSERT INTO an.jb SELECT 'k' || (g % 10), g FROM generate_series(1, 1000) g");
    const char *q = "EXPLAIN SELECT count(*) FROM an.ja JOIN an.jb ON ja.k = jb.k";
    RUN_OK(&E, q);
    CHECK(strstr(E.rows, "HashJoin INNER on [k = k] build=right  (est. rows=1000)") != NULL);
    RUN_OK(&E, "ANALYZE an.ja, an.jb");
    RUN_OK(&E, q);
    CHECK(strstr(E.rows, "build=right  (est. rows=100000)") != NULL);
    RUN_OK(&E, "SELECT count(*) FROM an.ja, an.jb WHERE ja.k = jb.k");
    CHECK_EQ_STR(E.rows, "100000\n");
    /* the same files in two query blocks (read once per statement) */
    RUN_OK(&E, "EXPLAIN SELECT count(*) FROM an.ja JOIN an.jb ON ja.k = jb.k WHERE ja.v IN "
               "(SELECT x.v FROM an.ja x JOIN an.jb y ON x.k = y.k WHERE y.w < 3)");
    CHECK(strstr(E.rows, "[k = k] build=right out=[v]  (est. rows=100000)") != NULL);
    CHECK(strstr(E.rows, "[k = k] build=right out=[v]  (est. rows=33000)") != NULL);
    /* an ancestor's statistics still count after an append */
    RUN_OK(&E, "INSERT INTO an.ja VALUES ('k1', 0)");
    RUN_OK(&E, "EXPLAIN SELECT count(*) FROM an.ja, an.jb WHERE ja.k = jb.k");
    CHECK(strstr(E.rows, "build=right  (est. rows=100100)") != NULL);
    /* statistics files that are gone: the old estimate, no error */
    const char *names[2] = {"an.ja", "an.jb"};
    for (int i = 0; i < 2; i++) {
        fl_ice_table *t = stmt_load(&E, names[i]);
        CHECK(t && t->meta.nstatistics == 1);
        if (t && t->meta.nstatistics)
            CHECK(unlink(t->meta.statistics[0].statistics_path) == 0);
        fl_ice_table_free(t);
    }
    RUN_OK(&E, "EXPLAIN SELECT count(*) FROM an.ja, an.jb WHERE ja.k = jb.k");
    CHECK(strstr(E.rows, "build=right  (est. rows=1001)") != NULL);
}

static void test_privileges(void)
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
    int rc = stmt_run(&R, "ANALYZE pub.t1");
    CHECK_EQ_INT(rc, FL_EFORBIDDEN);
    fl_sql_error_info info;
    fl_sql_last_error(R.s, &info);
    CHECK_EQ_STR(info.sqlstate, "42501");
    CHECK(stmt_run(&R, "ANALYZE secret.t1") == FL_EFORBIDDEN);
    fl_sql_session_close(R.s);
    CHECK_EQ_INT(aw_session(&w, &w.sandboxer, &R.s), FL_OK);
    RUN_OK(&R, "ANALYZE sandbox.t1");
    CHECK_EQ_STR(R.tag, "ANALYZE");
    CHECK(stmt_run(&R, "ANALYZE pub.t1") == FL_EFORBIDDEN);
    fl_sql_session_close(R.s);
    aw_close(&w);
}

int main(void)
{
    if (stmt_env_open(&E) != 0) {
        fprintf(stderr, "setup failed: %s\n", E.err.msg);
        return 1;
    }
    stmt_run(&E, "CREATE SCHEMA an");
    TEST_RUN(test_analyze_table);
    TEST_RUN(test_errors);
    TEST_RUN(test_planner_ndv);
    TEST_RUN(test_privileges);
    stmt_env_close(&E);
    return TEST_EXIT();
}
