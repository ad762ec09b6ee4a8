/*
 * test_sink.c - the pipeline sink (include/floe/ingest.h) on a SQLite
 * catalog, read back through the SQL engine: checkpoint commits rows and
 * positions together; reopening returns the positions and drops what was
 * not checkpointed; two sinks of one pipeline: only the newer commits;
 * a txn validator refuses on the CAS retry; positions past
 * FL_INGEST_INLINE_POSITIONS go to a side file; the landing-files source
 * ingests each file once and records bad files without stalling.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "floe/ice_table.h"
#include "floe/ingest.h"
#include "floe_test.h"

typedef struct env {
    char dir[256];
    fl_sql_session *sql;
    fl_fileio *io;
    fl_catalog *cat;
    fl_table_ident id;
    const char *levels[1];
} env;

static bool env_open(env *e)
{
    memset(e, 0, sizeof *e);
    if (!ft_tmpdir(e->dir, sizeof e->dir, "floe_ingest"))
        return false;
    e->sql = ft_open_sqlite(e->dir, NULL, NULL);
    if (!e->sql)
        return false;
    ft_expect(e->sql, "CREATE SCHEMA demo", "\n", "");
    ft_expect(e->sql, "CREATE TABLE demo.ev (id bigint NOT NULL, v varchar)", "\n", "");
    char uri[600], wh[600];
    snprintf(uri, sizeof uri, "sqlite:%s/cat.db", e->dir);
    snprintf(wh, sizeof wh, "%s/wh", e->dir);
    fl_error err = {0};
    e->io = fl_fileio_local();
    CHECK_OK(fl_catalog_open_uri(uri, NULL, wh, e->io, &e->cat, &err), &err);
    e->levels[0] = "demo";
    e->id = (fl_table_ident){.ns = {.levels = e->levels, .nlevels = 1}, .name = "ev"};
    return e->cat != NULL;
}

static void env_close(env *e)
{
    fl_catalog_close(e->cat);
    fl_fileio_destroy(e->io);
    fl_sql_session_close(e->sql);
    ft_rmtree(e->dir);
}

/* Writes ids [from, to) with v = "r<id>" through the sink. */
static void write_rows(fl_ingest_sink *s, int64_t from, int64_t to)
{
    fl_error err = {0};
    fl_batch b;
    CHECK_OK(fl_batch_init(&b, fl_ingest_sink_schema(s), &err), &err);
    for (int64_t i = from; i < to; i++) {
        char v[32];
        int n = snprintf(v, sizeof v, "r%" PRId64, i);
        CHECK_OK(fl_vector_append_fixed(&b.cols[0], &i, &err), &err);
        CHECK_OK(fl_vector_append_bytes(&b.cols[1], v, (size_t)n, &err), &err);
    }
    b.nrows = (uint32_t)(to - from);
    CHECK_OK(fl_ingest_sink_write(s, &b, &err), &err);
    fl_batch_destroy(&b);
}

static fl_ingest_sink *open_sink(env *e, const char *name)
{
    fl_ingest_sink *s = NULL;
    fl_error err = {0};
    CHECK_OK(fl_ingest_sink_open(e->cat, &e->id, name, NULL, &s, &err), &err);
    return s;
}

static void test_checkpoint_and_resume(void)
{
    env e;
    if (!env_open(&e))
        return;
    fl_error err = {0};
    fl_ingest_sink *s = open_sink(&e, "p1");
    if (!s)
        return env_close(&e);
    CHECK(fl_ingest_sink_epoch(s) == 1);
    CHECK(fl_ingest_sink_position(s, "kafka:t:0") == NULL);
    CHECK(!fl_ingest_sink_due(s, INT64_MAX)); /* nothing pending */
    write_rows(s, 1, 101);
    CHECK_OK(fl_ingest_sink_set_position(s, "kafka:t:0", "100", &err), &err);
    CHECK(fl_ingest_sink_due(s, INT64_MAX));
    CHECK(!fl_ingest_sink_due(s, 0));
    CHECK(fl_ingest_sink_pending_rows(s) == 100);
    fl_ingest_commit ci;
    const fl_schema *schema = fl_ingest_sink_schema(s);
    CHECK_OK(fl_ingest_sink_checkpoint(s, &ci, &err), &err);
    CHECK(ci.committed && ci.rows == 100 && ci.checkpoint == 1 && ci.data_files >= 1);
    CHECK(fl_ingest_sink_schema(s) == schema); /* batches outlive checkpoints */
    ft_expect(e.sql, "SELECT count(*), sum(id), min(v) FROM demo.ev", "\n", "100|5050|r1\n");
    ft_expect(e.sql,
              "SELECT summary['floe.pipeline'], summary['floe.pipeline.epoch'], "
              "summary['floe.pos.kafka:t:0'] FROM demo.\"ev$snapshots\" WHERE operation = 'append'",
              "\n", "p1|1|100\n");
    /* a checkpoint with nothing pending commits nothing */
    CHECK_OK(fl_ingest_sink_checkpoint(s, &ci, &err), &err);
    CHECK(!ci.committed);
    /* buffered but never checkpointed: lost with the process, re-read later */
    write_rows(s, 101, 151);
    CHECK_OK(fl_ingest_sink_set_position(s, "kafka:t:0", "150", &err), &err);
    fl_ingest_sink_close(s);
    ft_expect(e.sql, "SELECT count(*) FROM demo.ev", "\n", "100\n");

    s = open_sink(&e, "p1");
    if (s) {
        CHECK(fl_ingest_sink_epoch(s) == 2);
        const char *p = fl_ingest_sink_position(s, "kafka:t:0");
        CHECK(p && !strcmp(p, "100"));
        write_rows(s, 101, 151);
        CHECK_OK(fl_ingest_sink_set_position(s, "kafka:t:0", "150", &err), &err);
        CHECK_OK(fl_ingest_sink_checkpoint(s, &ci, &err), &err);
        CHECK(ci.checkpoint == 2);
        fl_ingest_sink_close(s);
    }
    ft_expect(e.sql, "SELECT count(*), count(DISTINCT id), sum(id) FROM demo.ev", "\n",
              "150|150|11325\n");
    /* another pipeline on the same table has its own positions */
    s = open_sink(&e, "p2");
    if (s) {
        CHECK(fl_ingest_sink_epoch(s) == 1);
        CHECK(fl_ingest_sink_position(s, "kafka:t:0") == NULL);
        fl_ingest_sink_close(s);
    }
    /* the committed state, read without claiming */
    fl_ice_table *t = NULL;
    CHECK_OK(fl_ice_table_load(e.cat, &e.id, &t, &err), &err);
    if (t) {
        fl_arena a;
        fl_arena_init(&a, 0);
        fl_ingest_state st;
        CHECK_OK(fl_ingest_state_read(t->io, &t->meta, "p1", &a, &st, &err), &err);
        CHECK(st.epoch == 2 && st.has_checkpoint && st.checkpoint == 2 && st.commit_epoch == 2);
        CHECK(st.positions.n == 1 && !strcmp(fl_ice_map_get(&st.positions, "kafka:t:0"), "150"));
        fl_arena_free(&a);
        fl_ice_table_free(t);
    }
    env_close(&e);
}

static void test_fencing(void)
{
    env e;
    if (!env_open(&e))
        return;
    fl_error err = {0};
    fl_ingest_sink *old = open_sink(&e, "f");
    fl_ingest_sink *cur = open_sink(&e, "f");
    if (!old || !cur) {
        fl_ingest_sink_close(old);
        fl_ingest_sink_close(cur);
        return env_close(&e);
    }
    CHECK(fl_ingest_sink_epoch(old) == 1 && fl_ingest_sink_epoch(cur) == 2);
    write_rows(old, 1000, 1010);
    CHECK_OK(fl_ingest_sink_set_position(old, "src", "10", &err), &err);
    write_rows(cur, 2000, 2005);
    CHECK_OK(fl_ingest_sink_set_position(cur, "src", "5", &err), &err);
    fl_status rc = fl_ingest_sink_checkpoint(old, NULL, &err);
    CHECK(rc == FL_ECONFLICT);
    CHECK(strstr(err.msg, "pipeline f: fenced by epoch 2") != NULL);
    /* a fenced sink stays fenced */
    CHECK(fl_ingest_sink_checkpoint(old, NULL, &err) != FL_OK);
    CHECK_OK(fl_ingest_sink_checkpoint(cur, NULL, &err), &err);
    ft_expect(e.sql, "SELECT count(*), min(id), max(id) FROM demo.ev", "\n", "5|2000|2004\n");
    fl_ingest_sink_close(old);
    fl_ingest_sink_close(cur);

    /* a zombie that opened after the other's commit, then lost the epoch,
     * and one that is older than a committed checkpoint: neither commits */
    fl_ingest_sink *z = open_sink(&e, "f");
    fl_ingest_sink *n = open_sink(&e, "f");
    if (z && n) {
        write_rows(n, 3000, 3001);
        CHECK_OK(fl_ingest_sink_checkpoint(n, NULL, &err), &err);
        write_rows(z, 4000, 4001);
        CHECK(fl_ingest_sink_checkpoint(z, NULL, &err) == FL_ECONFLICT);
        CHECK(strstr(err.msg, "fenced by epoch 4") != NULL);
    }
    fl_ingest_sink_close(z);
    fl_ingest_sink_close(n);
    ft_expect(e.sql, "SELECT count(*) FROM demo.ev WHERE id >= 4000 OR (id >= 1000 AND id < 2000)",
              "\n", "0\n");
    ft_expect(e.sql, "SELECT count(*) FROM demo.ev", "\n", "6\n");
    env_close(&e);
}

/* ---- the iceberg hooks the sink is built on ---- */

typedef struct vctx {
    uint32_t calls;
    uint32_t last_attempt;
} vctx;

static fl_status refuse_marked(void *ctx, const fl_ice_metadata *base, uint32_t attempt,
                               fl_error *err)
{
    vctx *v = ctx;
    v->calls++;
    v->last_attempt = attempt;
    if (fl_ice_map_get(&base->properties, "test.marker"))
        return fl_errorf(err, FL_ECONFLICT, "marker present at attempt %u", attempt);
    return FL_OK;
}

static void test_txn_validator_and_summary(void)
{
    env e;
    if (!env_open(&e))
        return;
    fl_error err = {0};
    fl_ice_table *t1 = NULL, *t2 = NULL;
    CHECK_OK(fl_ice_table_load(e.cat, &e.id, &t1, &err), &err);
    CHECK_OK(fl_ice_table_load(e.cat, &e.id, &t2, &err), &err);
    if (!t1 || !t2) {
        fl_ice_table_free(t1);
        fl_ice_table_free(t2);
        return env_close(&e);
    }
    /* summary entries land in the snapshot; reserved keys are refused */
    fl_ice_txn *x = NULL;
    CHECK_OK(fl_ice_txn_begin(t1, &x, &err), &err);
    fl_ice_kv bad = {"total-records", "1"};
    fl_ice_map mbad = {1, &bad};
    CHECK(fl_ice_txn_set_snapshot_summary(x, &mbad, &err) == FL_EINVAL);
    fl_ice_kv good[2] = {{"app.batch", "7"}, {"app.owner", "test"}};
    fl_ice_map mgood = {2, good};
    CHECK_OK(fl_ice_txn_set_snapshot_summary(x, &mgood, &err), &err);
    CHECK_OK(fl_ice_txn_append(x, NULL, 0, &err), &err);
    vctx v1 = {0};
    fl_ice_txn_set_validator(x, refuse_marked, &v1);
    CHECK_OK(fl_ice_txn_commit(x, NULL, &err), &err);
    CHECK(v1.calls == 1);
    ft_expect(e.sql, "SELECT summary['app.batch'], summary['app.owner'] FROM demo.\"ev$snapshots\"",
              "\n", "7|test\n");

    /* t1 is now current, t2 stale: a commit through t2 sets the marker */
    x = NULL;
    CHECK_OK(fl_ice_txn_begin(t2, &x, &err), &err);
    fl_ice_kv mk = {"test.marker", "1"};
    fl_ice_map mm = {1, &mk};
    CHECK_OK(fl_ice_txn_set_properties(x, &mm, NULL, 0, &err), &err);
    CHECK_OK(fl_ice_txn_commit(x, NULL, &err), &err); /* rebases over t1's commit */
    /* t1 is stale now: attempt 0 passes (its base has no marker), the CAS
     * fails, attempt 1 sees the marker and refuses: nothing commits */
    x = NULL;
    CHECK_OK(fl_ice_txn_begin(t1, &x, &err), &err);
    CHECK_OK(fl_ice_txn_append(x, NULL, 0, &err), &err);
    vctx v2 = {0};
    fl_ice_txn_set_validator(x, refuse_marked, &v2);
    fl_status rc = fl_ice_txn_commit(x, NULL, &err);
    CHECK(rc == FL_ECONFLICT);
    CHECK(strstr(err.msg, "marker present at attempt 1") != NULL);
    CHECK(v2.calls == 2 && v2.last_attempt == 1);
    ft_expect(e.sql, "SELECT count(*) FROM demo.\"ev$snapshots\"", "\n", "1\n");
    fl_ice_table_free(t1);
    fl_ice_table_free(t2);
    env_close(&e);
}

static void test_side_file(void)
{
    env e;
    if (!env_open(&e))
        return;
    fl_error err = {0};
    fl_ingest_sink *s = open_sink(&e, "many");
    if (!s)
        return env_close(&e);
    char k[64], v[64];
    for (int i = 0; i < FL_INGEST_INLINE_POSITIONS + 8; i++) {
        snprintf(k, sizeof k, "part:%03d", i);
        snprintf(v, sizeof v, "%d", i * 10);
        CHECK_OK(fl_ingest_sink_set_position(s, k, v, &err), &err);
    }
    CHECK(fl_ingest_sink_set_position(s, "a\nb", "1", &err) == FL_EINVAL);
    CHECK(fl_ingest_sink_set_position(s, "k", "\xff", &err) == FL_EINVAL);
    /* positions alone (no rows) are a checkpoint too */
    fl_ingest_commit ci;
    CHECK_OK(fl_ingest_sink_checkpoint(s, &ci, &err), &err);
    CHECK(ci.committed && ci.rows == 0);
    ft_expect(e.sql,
              "SELECT count(*) FROM demo.\"ev$snapshots\" WHERE summary['floe.pipeline'] = 'many' "
              "AND committed_at IS NOT NULL AND summary['added-records'] IS NULL",
              "\n", "1\n");
    CHECK_OK(fl_ingest_sink_set_position(s, "part:000", "5", &err), &err);
    write_rows(s, 1, 3);
    CHECK_OK(fl_ingest_sink_checkpoint(s, &ci, &err), &err);
    fl_ingest_sink_close(s);
    ft_expect(e.sql,
              "SELECT summary['floe.pipeline.positions-count'], summary['floe.pos.part:000'], "
              "summary['floe.pos.part:001'] IS NULL FROM demo.\"ev$snapshots\" "
              "WHERE summary['floe.pipeline.checkpoint'] = '2'",
              "\n", "40|5|t\n");
    s = open_sink(&e, "many");
    if (s) {
        const char *p0 = fl_ingest_sink_position(s, "part:000");
        const char *p39 = fl_ingest_sink_position(s, "part:039");
        CHECK(p0 && !strcmp(p0, "5"));
        CHECK(p39 && !strcmp(p39, "390"));
        fl_ingest_sink_close(s);
    }
    env_close(&e);
}

static void put_file(const char *dir, const char *name, const char *text)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void poll(fl_ingest_files *f, fl_ingest_sink *s, fl_ingest_files_stats *st)
{
    fl_error err = {0};
    CHECK_OK(fl_ingest_files_poll(f, s, st, &err), &err);
}

static void test_files_source(void)
{
    env e;
    if (!env_open(&e))
        return;
    fl_error err = {0};
    char land[600];
    snprintf(land, sizeof land, "%s/land", e.dir);
    mkdir(land, 0777);
    put_file(land, "a.csv", "v,id\nx,1\ny,2\n");
    put_file(land, "b.jsonl", "{\"id\":3,\"v\":\"z\"}\n{\"id\":4}\n");
    put_file(land, "bad.csv", "id,v\nnot-a-number,q\n");
    put_file(land, "nulls.csv", "id,v\n,q\n"); /* id is required */
    put_file(land, ".hidden.csv", "id\n99\n");
    put_file(land, "partial.csv.tmp", "id\n98\n");
    char copy[900];
    snprintf(copy, sizeof copy, /* an int column: widened to the table's bigint */
             "COPY (SELECT CAST(8 AS int) AS id, 'p' AS v) TO '%s/p.parquet' (FORMAT parquet)",
             land);
    ft_expect(e.sql, copy, "\n", "");
    fl_ingest_files *f = NULL;
    CHECK_OK(fl_ingest_files_open(land, &f, &err), &err);
    fl_ingest_sink *s = open_sink(&e, "files");
    if (!f || !s) {
        fl_ingest_files_close(f);
        fl_ingest_sink_close(s);
        return env_close(&e);
    }
    fl_ingest_files_stats st;
    poll(f, s, &st); /* first sight: not stable yet */
    CHECK(st.files_ingested == 0 && st.files_waiting == 5);
    poll(f, s, &st);
    CHECK(st.files_ingested == 3 && st.files_failed == 2 && st.rows == 5);
    poll(f, s, &st); /* listed again: nothing twice */
    CHECK(st.files_ingested == 0 && st.files_failed == 0 && st.files_waiting == 0);
    CHECK_OK(fl_ingest_sink_checkpoint(s, NULL, &err), &err);
    fl_ingest_sink_close(s);
    ft_expect(e.sql, "SELECT id, v FROM demo.ev ORDER BY id", "\n", "1|x\n2|y\n3|z\n4|NULL\n8|p\n");

    /* a restart sees everything done; a rewritten file is taken again */
    fl_ingest_files_close(f);
    f = NULL;
    CHECK_OK(fl_ingest_files_open(land, &f, &err), &err);
    s = open_sink(&e, "files");
    if (f && s) {
        char key[700];
        snprintf(key, sizeof key, "file:%s/bad.csv", land);
        char *abs = realpath(land, NULL);
        if (abs) {
            snprintf(key, sizeof key, "file:%s/bad.csv", abs);
            free(abs);
        }
        const char *bp = fl_ingest_sink_position(s, key);
        CHECK(bp && strstr(bp, ":error:") && strstr(bp, "not-a-number"));
        poll(f, s, &st);
        poll(f, s, &st);
        CHECK(st.files_ingested == 0 && st.files_failed == 0);
        put_file(land, "a.csv", "id,v\n5,w\n6,w\n7,w\n");
        poll(f, s, &st);
        poll(f, s, &st);
        CHECK(st.files_ingested == 1 && st.rows == 3);
        CHECK_OK(fl_ingest_sink_checkpoint(s, NULL, &err), &err);
    }
    fl_ingest_sink_close(s);
    fl_ingest_files_close(f);
    ft_expect(e.sql, "SELECT count(*), sum(id) FROM demo.ev", "\n", "8|36\n");
    env_close(&e);
}

/* Names with '=', '%', invalid UTF-8 and a newline, and an error message
 * quoting invalid UTF-8: all become valid positions (JSON side file too). */
static void test_hostile_names(void)
{
    env e;
    if (!env_open(&e))
        return;
    fl_error err = {0};
    char land[600];
    snprintf(land, sizeof land, "%s/land", e.dir);
    mkdir(land, 0777);
    put_file(land, "a=b%c.csv", "id\n1\n");
    put_file(land, "\xff\xfe.csv", "id\n2\n");
    put_file(land, "new\nline.csv", "id\n3\n");
    put_file(land, "\xc3\xa9t\xc3\xa9.csv", "id\n4\n");
    put_file(land, "bytes.csv", "id\n\xff\xfe\n");
    char name[32];
    for (int i = 0; i < FL_INGEST_INLINE_POSITIONS; i++) { /* past the inline limit */
        snprintf(name, sizeof name, "n%02d.csv", i);
        put_file(land, name, "id\n10\n");
    }
    fl_ingest_files *f = NULL;
    CHECK_OK(fl_ingest_files_open(land, &f, &err), &err);
    fl_ingest_sink *s = open_sink(&e, "names");
    if (f && s) {
        fl_ingest_files_stats st;
        poll(f, s, &st);
        poll(f, s, &st);
        CHECK(st.files_ingested == 4 + FL_INGEST_INLINE_POSITIONS && st.files_failed == 1);
        CHECK_OK(fl_ingest_sink_checkpoint(s, NULL, &err), &err);
    }
    fl_ingest_sink_close(s);
    fl_ingest_files_close(f);
    s = open_sink(&e, "names");
    f = NULL;
    CHECK_OK(fl_ingest_files_open(land, &f, &err), &err);
    if (f && s) {
        fl_ingest_files_stats st;
        poll(f, s, &st);
        poll(f, s, &st);
        CHECK(st.files_ingested == 0 && st.files_failed == 0);
    }
    fl_ingest_sink_close(s);
    fl_ingest_files_close(f);
    ft_expect(e.sql, "SELECT count(*), sum(id) FROM demo.ev", "\n", "36|330\n");
    env_close(&e);
}

/* A poll hands back to the loop once a checkpoint is due (here: 4 rows). */
static void test_poll_stops_when_due(void)
{
    env e;
    if (!env_open(&e))
        return;
    fl_error err = {0};
    char land[600], name[32];
    snprintf(land, sizeof land, "%s/land", e.dir);
    mkdir(land, 0777);
    for (int i = 0; i < 10; i++) {
        snprintf(name, sizeof name, "f%d.csv", i);
        put_file(land, name, "id\n1\n2\n");
    }
    fl_ingest_options opt = {.checkpoint_rows = 4};
    fl_ingest_sink *s = NULL;
    fl_ingest_files *f = NULL;
    CHECK_OK(fl_ingest_sink_open(e.cat, &e.id, "due", &opt, &s, &err), &err);
    CHECK_OK(fl_ingest_files_open(land, &f, &err), &err);
    int polls = 0, checkpoints = 0;
    fl_ingest_files_stats st = {0};
    if (s && f) {
        poll(f, s, &st);
        do {
            poll(f, s, &st);
            polls++;
            CHECK(st.files_ingested <= 2);
            if (fl_ingest_sink_due(s, 0)) {
                CHECK_OK(fl_ingest_sink_checkpoint(s, NULL, &err), &err);
                checkpoints++;
            }
        } while (st.more && polls < 20);
        CHECK_OK(fl_ingest_sink_checkpoint(s, NULL, &err), &err);
    }
    CHECK(polls == 5 && checkpoints == 5);
    fl_ingest_sink_close(s);
    fl_ingest_files_close(f);
    ft_expect(e.sql, "SELECT count(*) FROM demo.ev", "\n", "20\n");
    env_close(&e);
}

static void test_dead_letter(void)
{
    env e;
    if (!env_open(&e))
        return;
    fl_error err = {0};
    char land[600];
    snprintf(land, sizeof land, "%s/land", e.dir);
    mkdir(land, 0777);
    put_file(land, "ok.csv", "id\n1\n");
    put_file(land, "bad.jsonl", "{\"id\": \"one\"}\n");
    for (int round = 0; round < 2; round++) {
        fl_ingest_files *f = NULL;
        fl_ingest_sink *s = open_sink(&e, "dl"), *dlq = NULL;
        CHECK_OK(fl_ingest_files_open(land, &f, &err), &err);
        CHECK_OK(fl_ingest_dead_letter_open(e.cat, &e.id, "dl", NULL, &dlq, &err), &err);
        if (!f || !s || !dlq) {
            fl_ingest_files_close(f);
            fl_ingest_sink_close(s);
            fl_ingest_sink_close(dlq);
            break;
        }
        fl_ingest_files_set_dead_letter(f, dlq);
        fl_ingest_files_stats st;
        poll(f, s, &st);
        poll(f, s, &st);
        CHECK(st.files_failed == 1 && st.files_ingested == 1);
        CHECK_OK(fl_ingest_sink_checkpoint(dlq, NULL, &err), &err);
        /* round 0: the process dies after the dead-letter commit, before its
         * own: round 1 takes both files again, the dead letter is not doubled */
        if (round == 1)
            CHECK_OK(fl_ingest_sink_checkpoint(s, NULL, &err), &err);
        fl_ingest_sink_close(s);
        fl_ingest_sink_close(dlq);
        fl_ingest_files_close(f);
    }
    ft_expect(e.sql, "SELECT count(*) FROM demo.ev", "\n", "1\n");
    ft_expect(e.sql,
              "SELECT pipeline, source LIKE '%/land/bad.jsonl', error LIKE '%one%', "
              "payload = CAST('{\"id\": \"one\"}' || chr(10) AS bytea), failed_at IS NOT NULL "
              "FROM demo.ev__dead_letter",
              "\n", "dl|t|t|t|t\n");
    env_close(&e);
}

/* Expiring snapshots keeps main's history back to each pipeline's newest
 * checkpoint (src/iceberg/expire.c): the pipeline restarts from its
 * positions instead of refusing to start; other old snapshots still go. */
static void test_expire_keeps_checkpoint(void)
{
    env e;
    if (!env_open(&e))
        return;
    fl_error err = {0};
    ft_expect(e.sql, "INSERT INTO demo.ev VALUES (-1, 'before')", "\n", "");
    fl_ingest_sink *s = open_sink(&e, "px");
    if (!s)
        return env_close(&e);
    write_rows(s, 1, 11);
    CHECK_OK(fl_ingest_sink_set_position(s, "file:/a", "done", &err), &err);
    fl_ingest_commit ci;
    CHECK_OK(fl_ingest_sink_checkpoint(s, &ci, &err), &err);
    fl_ingest_sink_close(s);
    for (int i = 0; i < 3; i++)
        ft_expect(e.sql, "INSERT INTO demo.ev VALUES (100, 'later')", "\n", "");
    ft_expect(e.sql, "SELECT count(*) FROM demo.\"ev$snapshots\"", "\n", "5\n");
    char out[4096];
    CHECK_OK(ft_run(e.sql,
                    "ALTER TABLE demo.ev EXECUTE expire_snapshots(older_than => "
                    "'2999-01-01 00:00:00', retain_last => 1)",
                    "\n", out, sizeof out, &err),
             &err);
    /* kept: the head, the two inserts between and the checkpoint; gone: the
     * first insert, below the checkpoint (claiming an epoch is no snapshot) */
    ft_expect(e.sql, "SELECT count(*) FROM demo.\"ev$snapshots\"", "\n", "4\n");
    s = open_sink(&e, "px");
    if (s) {
        CHECK(fl_ingest_sink_position(s, "file:/a") != NULL &&
              !strcmp(fl_ingest_sink_position(s, "file:/a"), "done"));
        fl_ingest_sink_close(s);
    }
    ft_expect(e.sql, "SELECT count(*) FROM demo.ev", "\n", "14\n");
    env_close(&e);
}

int main(void)
{
    TEST_RUN(test_checkpoint_and_resume);
    TEST_RUN(test_fencing);
    TEST_RUN(test_txn_validator_and_summary);
    TEST_RUN(test_side_file);
    TEST_RUN(test_files_source);
    TEST_RUN(test_poll_stops_when_due);
    TEST_RUN(test_dead_letter);
    TEST_RUN(test_hostile_names);
    TEST_RUN(test_expire_keeps_checkpoint);
    return TEST_EXIT();
}
