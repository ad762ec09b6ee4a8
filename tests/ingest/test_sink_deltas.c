/*
 * test_sink_deltas.c - upserts, deletes and truncation through the pipeline
 * sink (fl_ingest_sink_delete / fl_ingest_sink_truncate), read back through
 * the SQL engine: a deleted key's older row goes, its new row of the same
 * checkpoint stays; a compaction committed while the sink's checkpoint is
 * open does not conflict with the equality deletes (and they still apply to
 * the rewritten files); truncation replaces the table's rows; tables the
 * deletes cannot be scoped to are refused with a message.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "floe/ice_table.h"
#include "floe/ingest.h"
#include "floe_test.h"

typedef struct env {
    char dir[256];
    fl_sql_session *sql;
    fl_fileio *io;
    fl_catalog *cat;
    const char *levels[1];
} env;

static bool env_open(env *e)
{
    memset(e, 0, sizeof *e);
    if (!ft_tmpdir(e->dir, sizeof e->dir, "floe_deltas"))
        return false;
    e->sql = ft_open_sqlite(e->dir, NULL, NULL);
    if (!e->sql)
        return false;
    ft_expect(e->sql, "CREATE SCHEMA demo", "\n", "");
    char uri[600], wh[600];
    snprintf(uri, sizeof uri, "sqlite:%s/cat.db", e->dir);
    snprintf(wh, sizeof wh, "%s/wh", e->dir);
    fl_error err = {0};
    e->io = fl_fileio_local();
    CHECK_OK(fl_catalog_open_uri(uri, NULL, wh, e->io, &e->cat, &err), &err);
    e->levels[0] = "demo";
    return e->cat != NULL;
}

static void env_close(env *e)
{
    fl_catalog_close(e->cat);
    fl_fileio_destroy(e->io);
    fl_sql_session_close(e->sql);
    ft_rmtree(e->dir);
}

/* demo.<name> (id bigint required, v string), id the identifier field when keyed. */
static fl_table_ident make_table(env *e, const char *name, bool keyed, const char *partition_by)
{
    fl_table_ident id = {.ns = {.levels = e->levels, .nlevels = 1}, .name = name};
    fl_field f[2] = {
        {.name = "id", .field_id = 1, .type = {.id = FL_TYPE_INT64}},
        {.name = "v", .field_id = 2, .nullable = true, .type = {.id = FL_TYPE_STRING}}};
    fl_schema s = {.nfields = 2, .fields = f};
    const char *ids[] = {"id"};
    fl_ice_create_options o = {.schema = &s,
                               .identifier_fields = keyed ? ids : NULL,
                               .nidentifier_fields = keyed ? 1 : 0,
                               .partition_by = partition_by ? &partition_by : NULL,
                               .npartition_by = partition_by ? 1 : 0};
    fl_ice_table *t = NULL;
    fl_error err = {0};
    CHECK_OK(fl_ice_table_create(e->cat, &id, &o, &t, &err), &err);
    fl_ice_table_free(t);
    return id;
}

/* Rows (id, "<prefix><id>") for ids [from, to). */
static void fill(fl_batch *b, int64_t from, int64_t to, const char *prefix)
{
    fl_error err = {0};
    fl_batch_reset(b);
    for (int64_t i = from; i < to; i++) {
        char v[32];
        int n = snprintf(v, sizeof v, "%s%" PRId64, prefix, i);
        CHECK_OK(fl_vector_append_fixed(&b->cols[0], &i, &err), &err);
        CHECK_OK(fl_vector_append_bytes(&b->cols[1], v, (size_t)n, &err), &err);
    }
    b->nrows = (uint32_t)(to - from);
}

static void test_upsert_and_delete(void)
{
    env e;
    if (!env_open(&e))
        return;
    fl_table_ident id = make_table(&e, "kv", true, NULL);
    fl_error err = {0};
    fl_ingest_sink *s = NULL;
    CHECK_OK(fl_ingest_sink_open(e.cat, &id, "cdc", NULL, &s, &err), &err);
    if (!s)
        return env_close(&e);
    fl_batch b;
    CHECK_OK(fl_batch_init(&b, fl_ingest_sink_schema(s), &err), &err);
    fl_ingest_commit ci;
    for (int64_t from = 1; from < 101; from += 50) { /* two files: something to compact */
        fill(&b, from, from + 50, "r");
        CHECK_OK(fl_ingest_sink_write(s, &b, &err), &err);
        CHECK_OK(fl_ingest_sink_checkpoint(s, &ci, &err), &err);
    }

    /* key 5 deleted, key 10 replaced, key 200 new: one checkpoint */
    fill(&b, 5, 6, "");
    CHECK_OK(fl_ingest_sink_delete(s, &b, &err), &err);
    fill(&b, 10, 11, "");
    CHECK_OK(fl_ingest_sink_delete(s, &b, &err), &err);
    CHECK(fl_ingest_sink_pending_deletes(s) == 2);
    fill(&b, 10, 11, "new");
    CHECK_OK(fl_ingest_sink_write(s, &b, &err), &err);
    fill(&b, 200, 201, "new");
    CHECK_OK(fl_ingest_sink_write(s, &b, &err), &err);
    /* a compaction lands while this checkpoint is open: no conflict */
    char out[512];
    CHECK_OK(ft_run(e.sql, "ALTER TABLE demo.kv EXECUTE optimize", "\n", out, sizeof out, &err),
             &err);
    ft_expect(e.sql, "SELECT count(*) FROM demo.\"kv$snapshots\" WHERE operation = 'replace'", "\n",
              "1\n");
    CHECK_OK(fl_ingest_sink_checkpoint(s, &ci, &err), &err);
    CHECK(ci.committed && ci.rows == 2);
    ft_expect(e.sql, "SELECT count(*), sum(id) FROM demo.kv", "\n", "100|5245\n");
    ft_expect(e.sql, "SELECT v FROM demo.kv WHERE id IN (5, 10, 200) ORDER BY id", "\n",
              "new10\nnew200\n");
    ft_expect(e.sql, "SELECT count(*) FROM demo.\"kv$files\" WHERE content = 2", "\n", "1\n");
    ft_expect(e.sql,
              "SELECT operation FROM demo.\"kv$snapshots\" ORDER BY committed_at DESC LIMIT 1",
              "\n", "overwrite\n");

    /* truncation: only the checkpoint's own rows stay */
    fill(&b, 1, 4, "t");
    CHECK_OK(fl_ingest_sink_write(s, &b, &err), &err);
    CHECK_OK(fl_ingest_sink_truncate(s, &err), &err);
    fill(&b, 50, 51, "");
    CHECK_OK(fl_ingest_sink_delete(s, &b, &err), &err); /* moot after a truncation */
    CHECK_OK(fl_ingest_sink_checkpoint(s, &ci, &err), &err);
    ft_expect(e.sql, "SELECT count(*), min(v), max(v) FROM demo.kv", "\n", "3|t1|t3\n");
    ft_expect(e.sql, "SELECT count(*) FROM demo.\"kv$files\" WHERE content <> 0", "\n", "0\n");
    /* deletes again, after commits replaced the table's metadata the first ones saw */
    fill(&b, 2, 3, "");
    CHECK_OK(fl_ingest_sink_delete(s, &b, &err), &err);
    CHECK_OK(fl_ingest_sink_checkpoint(s, &ci, &err), &err);
    ft_expect(e.sql, "SELECT count(*), min(v), max(v) FROM demo.kv", "\n", "2|t1|t3\n");
    fill(&b, 1, 2, "");
    CHECK_OK(fl_ingest_sink_delete(s, &b, &err), &err);
    CHECK_OK(fl_ingest_sink_checkpoint(s, &ci, &err), &err);
    ft_expect(e.sql, "SELECT count(*), min(v) FROM demo.kv", "\n", "1|t3\n");
    /* a truncation with no rows empties the table */
    CHECK_OK(fl_ingest_sink_truncate(s, &err), &err);
    CHECK(fl_ingest_sink_due(s, INT64_MAX));
    CHECK_OK(fl_ingest_sink_checkpoint(s, &ci, &err), &err);
    ft_expect(e.sql, "SELECT count(*) FROM demo.kv", "\n", "0\n");
    fl_batch_destroy(&b);
    fl_ingest_sink_close(s);
    env_close(&e);
}

/* Deletes need a key and an unpartitioned table: refused with a message. */
static void test_refused(void)
{
    env e;
    if (!env_open(&e))
        return;
    const char *cases[][2] = {{"nokey", "no identifier fields"}, {"parted", "unpartitioned"}};
    for (int i = 0; i < 2; i++) {
        fl_table_ident id = make_table(&e, cases[i][0], i == 1, i == 1 ? "bucket(id, 4)" : NULL);
        fl_error err = {0};
        fl_ingest_sink *s = NULL;
        CHECK_OK(fl_ingest_sink_open(e.cat, &id, "cdc", NULL, &s, &err), &err);
        if (!s)
            continue;
        fl_batch b;
        CHECK_OK(fl_batch_init(&b, fl_ingest_sink_schema(s), &err), &err);
        fill(&b, 1, 2, "");
        CHECK(fl_ingest_sink_delete(s, &b, &err) == FL_EINVAL);
        CHECK(strstr(err.msg, cases[i][1]) && strstr(err.msg, "pipeline cdc"));
        CHECK(fl_ingest_sink_checkpoint(s, NULL, &err) != FL_OK); /* the sink is broken */
        fl_batch_destroy(&b);
        fl_ingest_sink_close(s);
    }
    env_close(&e);
}

int main(void)
{
    TEST_RUN(test_upsert_and_delete);
    TEST_RUN(test_refused);
    return TEST_EXIT();
}
