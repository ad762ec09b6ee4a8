/*
 * test_cache_shared.c - fl_sql_shared_cache (sql.h, src/sql/session/cache.c) and the
 * Iceberg read cache under it (src/iceberg/manifest_cache.c):
 *   - a second identical query is served from the cache (hits grow, misses
 *     do not) and answers the same;
 *   - a commit by another session sharing the cache is seen by the next
 *     statement (the catalog is asked for the metadata location each time);
 *   - byte bounds: a tiny cache keeps nothing yet answers right; a small one
 *     stays under its bound while evicting (LRU order checked on the entry
 *     level: the least recently used entry goes first);
 *   - concurrent sessions on threads sharing one cache all answer right;
 *   - an entry evicted while a statement holds it stays valid (refcount);
 *   - read_parquet() footers are cached by path and size.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "floe/ice_table.h"
#include "floe/sql.h"
#include "floe_test.h"
#include "iceberg/manifest_cache.h"

typedef struct env {
    char dir[64];
    char uri[256], wh[256];
} env;

static bool env_init(env *e)
{
    if (!ft_tmpdir(e->dir, sizeof e->dir, "floe_cache"))
        return false;
    snprintf(e->uri, sizeof e->uri, "sqlite:%s/cat.db", e->dir);
    snprintf(e->wh, sizeof e->wh, "%s/wh", e->dir);
    return true;
}

static void env_free(env *e)
{
    ft_rmtree(e->dir);
}

/* Not ft_open_sqlite: two threads and a shared cache c. */
static fl_sql_session *open_session(const env *e, fl_sql_shared_cache *c)
{
    fl_sql_options o;
    memset(&o, 0, sizeof o);
    o.catalog_uri = e->uri;
    o.warehouse = e->wh;
    o.threads = 2;
    o.cache = c;
    fl_sql_session *s = NULL;
    fl_error err;
    fl_status rc = fl_sql_session_open(&o, &s, &err);
    CHECK_OK(rc, &err);
    return rc == FL_OK ? s : NULL;
}

/* Runs sql; the first column of every row as int64s joined by ',' into out.
 * Kept instead of ft_run: the assertions expect this one-column shape. */
static fl_status run(fl_sql_session *s, const char *sql, char *out, size_t cap, fl_error *err)
{
    fl_sql_result *r = NULL;
    out[0] = 0;
    fl_status rc = fl_sql_execute(s, sql, &r, err);
    if (rc != FL_OK)
        return rc;
    size_t len = 0;
    for (;;) {
        const fl_batch *b;
        bool eof;
        rc = fl_sql_result_next(r, &b, &eof, err);
        if (rc != FL_OK || eof)
            break;
        for (uint32_t row = 0; b->ncols && row < b->nrows; row++) {
            char v[128];
            fl_sql_format_value(&b->cols[0], row, "UTC", v, sizeof v);
            len += (size_t)snprintf(out + len, len < cap ? cap - len : 0, "%s%s", len ? "," : "",
                                    v);
        }
    }
    fl_sql_result_close(r);
    return rc;
}

/* The first column of the first row as text. */
static fl_status run_text(fl_sql_session *s, const char *sql, char *out, size_t cap, fl_error *err)
{
    fl_sql_result *r = NULL;
    out[0] = 0;
    fl_status rc = fl_sql_execute(s, sql, &r, err);
    const fl_batch *b = NULL;
    bool eof = false;
    if (rc == FL_OK)
        rc = fl_sql_result_next(r, &b, &eof, err);
    if (rc == FL_OK && (eof || !b || b->nrows == 0 || b->ncols == 0))
        rc = fl_errorf(err, FL_ENOTFOUND, "no rows from %s", sql);
    if (rc == FL_OK)
        fl_sql_format_value(&b->cols[0], 0, "UTC", out, cap);
    fl_sql_result_close(r);
    return rc;
}

static void exec_ok(fl_sql_session *s, const char *sql)
{
    char out[256];
    fl_error err;
    fl_status rc = run(s, sql, out, sizeof out, &err);
    if (rc != FL_OK)
        fprintf(stderr, "%s: %s\n", sql, err.msg);
    CHECK_OK(rc, &err);
}

static void expect(fl_sql_session *s, const char *sql, const char *want)
{
    char out[4096];
    fl_error err;
    fl_status rc = run(s, sql, out, sizeof out, &err);
    if (rc != FL_OK)
        fprintf(stderr, "%s: %s\n", sql, err.msg);
    CHECK_OK(rc, &err);
    CHECK_EQ_STR(out, want);
}

static void setup_table(fl_sql_session *s, const char *name, int files)
{
    char sql[512];
    snprintf(sql, sizeof sql, "CREATE TABLE %s (id bigint, v varchar)", name);
    exec_ok(s, sql);
    for (int f = 0; f < files; f++) { /* one commit (and data file, manifest) each */
        snprintf(sql, sizeof sql,
                 "INSERT INTO %s SELECT x + %d, 'v' || (x + %d) FROM generate_series(1, 100) t(x)",
                 name, f * 100, f * 100);
        exec_ok(s, sql);
    }
}

static void test_hits_and_commit_visibility(void)
{
    env e;
    if (!env_init(&e)) {
        CHECK(0);
        return;
    }
    fl_sql_shared_cache *c = NULL;
    fl_error err;
    CHECK_OK(fl_sql_shared_cache_new(64u << 20, &c, &err), &err);
    fl_sql_session *a = open_session(&e, c), *b = open_session(&e, c);
    if (!a || !b || !c)
        goto out;
    exec_ok(a, "CREATE SCHEMA \"default\"");
    setup_table(a, "t", 3);
    expect(a, "SELECT id FROM t WHERE id = 142", "142");
    fl_sql_cache_stats s1, s2, s3;
    fl_sql_shared_cache_stats(c, &s1);
    CHECK(s1.entries > 0 && s1.bytes > 0);
    /* the same query from the other session: metadata, manifest list,
     * manifests and footers all come from the cache */
    expect(b, "SELECT id FROM t WHERE id = 142", "142");
    fl_sql_shared_cache_stats(c, &s2);
    CHECK(s2.hits > s1.hits);
    CHECK_EQ_INT((long long)s2.misses, (long long)s1.misses);
    CHECK_EQ_INT((long long)s2.entries, (long long)s1.entries);
    /* a commit by b is seen by a's next statement */
    expect(a, "SELECT count(*) FROM t", "300");
    exec_ok(b, "INSERT INTO t VALUES (1000, 'new')");
    expect(a, "SELECT count(*) FROM t", "301");
    expect(a, "SELECT v FROM t WHERE id = 1000", "new");
    exec_ok(b, "DELETE FROM t WHERE id <= 100");
    expect(a, "SELECT count(*) FROM t", "201");
    expect(a, "SELECT min(id) FROM t", "101");
    fl_sql_shared_cache_stats(c, &s3);
    CHECK(s3.misses > s2.misses); /* the new metadata, list, manifests, files */
    CHECK(s3.bytes <= 64u << 20);
out:
    fl_sql_session_close(a);
    fl_sql_session_close(b);
    fl_sql_shared_cache_free(c);
    env_free(&e);
}

static void test_bounds(void)
{
    env e;
    if (!env_init(&e)) {
        CHECK(0);
        return;
    }
    fl_error err;
    fl_sql_shared_cache *tiny = NULL, *small = NULL;
    CHECK_OK(fl_sql_shared_cache_new(1, &tiny, &err), &err);
    fl_sql_session *s = open_session(&e, tiny);
    if (!s || !tiny)
        goto out;
    exec_ok(s, "CREATE SCHEMA \"default\"");
    setup_table(s, "t1", 4);
    setup_table(s, "t2", 4);
    expect(s, "SELECT sum(id) FROM t1", "80200");
    expect(s, "SELECT sum(id) FROM t1", "80200");
    fl_sql_cache_stats st;
    fl_sql_shared_cache_stats(tiny, &st);
    CHECK_EQ_INT((long long)st.entries, 0);
    CHECK_EQ_INT((long long)st.bytes, 0);
    CHECK_EQ_INT((long long)st.hits, 0);
    fl_sql_session_close(s);
    /* a bound that holds some but not all entries: stays within it */
    CHECK_OK(fl_sql_shared_cache_new(200u << 10, &small, &err), &err);
    s = open_session(&e, small);
    if (!s || !small)
        goto out;
    for (int i = 0; i < 3; i++) {
        expect(s, "SELECT sum(id) FROM t1", "80200");
        expect(s, "SELECT count(*) FROM t2 WHERE v LIKE 'v1%'", "111");
        fl_sql_shared_cache_stats(small, &st);
        CHECK(st.bytes <= 200u << 10);
        CHECK(st.entries > 0);
    }
out:
    fl_sql_session_close(s);
    fl_sql_shared_cache_free(tiny);
    fl_sql_shared_cache_free(small);
    env_free(&e);
}

/* Entry-level LRU and refcounts on metadata files of a real table. */
static void test_lru_order_and_refcount(void)
{
    env e;
    if (!env_init(&e)) {
        CHECK(0);
        return;
    }
    fl_error err;
    fl_sql_session *s = open_session(&e, NULL); /* private cache */
    fl_catalog *cat = NULL;
    fl_ice_manifest_cache *mc = NULL;
    fl_fileio *io = fl_fileio_local();
    if (!s || !io)
        goto out;
    exec_ok(s, "CREATE SCHEMA \"default\"");
    setup_table(s, "a", 1);
    setup_table(s, "b", 1);
    setup_table(s, "c", 1);
    CHECK_OK(fl_catalog_open_uri(e.uri, NULL, e.wh, io, &cat, &err), &err);
    if (!cat)
        goto out;
    const char *names[3] = {"a", "b", "c"};
    const char *ns[1] = {"default"};
    fl_ice_table *t[3] = {0};
    for (int i = 0; i < 3; i++) {
        fl_table_ident id = {{1, ns}, names[i]};
        CHECK_OK(fl_ice_table_load(cat, &id, &t[i], &err), &err);
        if (!t[i])
            goto out;
    }
    /* measure one entry, then size the cache for two of the three */
    CHECK_OK(fl_ice_manifest_cache_new(1u << 30, &mc, &err), &err);
    fl_ice_cache_entry *h = NULL;
    const fl_ice_metadata *m = NULL;
    CHECK_OK(ice_cache_get_metadata(mc, io, t[0]->metadata_location, &h, &m, &err), &err);
    fl_ice_cache_release(h, mc);
    fl_ice_cache_stats st;
    fl_ice_manifest_cache_stats(mc, &st);
    uint64_t one = st.bytes;
    fl_ice_manifest_cache_free(mc);
    CHECK_OK(fl_ice_manifest_cache_new(one * 2 + one / 2, &mc, &err), &err);
    for (int i = 0; i < 2; i++) { /* a, b */
        CHECK_OK(ice_cache_get_metadata(mc, io, t[i]->metadata_location, &h, &m, &err), &err);
        fl_ice_cache_release(h, mc);
    }
    CHECK_OK(ice_cache_get_metadata(mc, io, t[0]->metadata_location, &h, &m, &err), &err);
    fl_ice_cache_release(h, mc); /* a is now the most recent: b goes first */
    /* hold c's entry across its own eviction */
    fl_ice_cache_entry *hc = NULL;
    const fl_ice_metadata *mcm = NULL;
    CHECK_OK(ice_cache_get_metadata(mc, io, t[2]->metadata_location, &hc, &mcm, &err), &err);
    fl_ice_manifest_cache_stats(mc, &st);
    CHECK_EQ_INT((long long)st.evictions, 1);
    CHECK_EQ_INT((long long)st.entries, 2);
    CHECK(st.bytes <= one * 2 + one / 2);
    uint64_t misses = st.misses;
    CHECK_OK(ice_cache_get_metadata(mc, io, t[0]->metadata_location, &h, &m, &err), &err);
    fl_ice_cache_release(h, mc);
    fl_ice_manifest_cache_stats(mc, &st);
    CHECK_EQ_INT((long long)st.misses, (long long)misses); /* a survived */
    CHECK_OK(ice_cache_get_metadata(mc, io, t[1]->metadata_location, &h, &m, &err), &err);
    fl_ice_cache_release(h, mc); /* b was evicted: a miss, which evicts c (held) */
    fl_ice_manifest_cache_stats(mc, &st);
    CHECK_EQ_INT((long long)st.misses, (long long)misses + 1);
    /* the held, evicted entry is still intact */
    CHECK(mcm && mcm->table_uuid && !strcmp(mcm->table_uuid, t[2]->meta.table_uuid));
    CHECK_EQ_INT(mcm->nsnapshots, t[2]->meta.nsnapshots);
    fl_ice_cache_release(hc, mc);
out:
    for (int i = 0; i < 3; i++)
        fl_ice_table_free(t[i]);
    fl_ice_manifest_cache_free(mc);
    fl_catalog_close(cat);
    fl_fileio_destroy(io);
    fl_sql_session_close(s);
    env_free(&e);
}

typedef struct worker {
    const env *e;
    fl_sql_shared_cache *c;
    int id;
    int failures;
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    fl_sql_session *s = open_session(w->e, w->c);
    if (!s) {
        w->failures++;
        return NULL;
    }
    for (int i = 0; i < 20; i++) {
        int k = 1 + (w->id * 37 + i * 13) % 400;
        char sql[128], want[32], out[256];
        snprintf(sql, sizeof sql, "SELECT id FROM t%d WHERE id = %d", i % 2 + 1, k);
        snprintf(want, sizeof want, "%d", k);
        fl_error err;
        if (run(s, sql, out, sizeof out, &err) != FL_OK || strcmp(out, want) != 0) {
            fprintf(stderr, "thread %d: %s -> %s (%s)\n", w->id, sql, out, err.msg);
            w->failures++;
        }
    }
    fl_sql_session_close(s);
    return NULL;
}

static void test_threads(void)
{
    env e;
    if (!env_init(&e)) {
        CHECK(0);
        return;
    }
    fl_error err;
    fl_sql_shared_cache *c = NULL;
    /* small enough that the threads also evict entries others hold */
    CHECK_OK(fl_sql_shared_cache_new(256u << 10, &c, &err), &err);
    fl_sql_session *s = open_session(&e, c);
    if (!s || !c)
        goto out;
    exec_ok(s, "CREATE SCHEMA \"default\"");
    setup_table(s, "t1", 4);
    setup_table(s, "t2", 4);
    enum { N = 4 };
    pthread_t th[N];
    worker w[N];
    for (int i = 0; i < N; i++) {
        w[i] = (worker){.e = &e, .c = c, .id = i};
        CHECK(pthread_create(&th[i], NULL, work, &w[i]) == 0);
    }
    for (int i = 0; i < N; i++) {
        pthread_join(th[i], NULL);
        CHECK_EQ_INT(w[i].failures, 0);
    }
    fl_sql_cache_stats st;
    fl_sql_shared_cache_stats(c, &st);
    CHECK(st.hits > 0);
    CHECK(st.bytes <= 256u << 10);
    CHECK(st.entries > 0);
out:
    fl_sql_session_close(s);
    fl_sql_shared_cache_free(c);
    env_free(&e);
}

static void test_read_parquet_footers(void)
{
    env e;
    if (!env_init(&e)) {
        CHECK(0);
        return;
    }
    fl_error err;
    fl_sql_shared_cache *c = NULL;
    CHECK_OK(fl_sql_shared_cache_new(16u << 20, &c, &err), &err);
    fl_sql_session *s = open_session(&e, c);
    if (!s || !c)
        goto out;
    exec_ok(s, "CREATE SCHEMA \"default\"");
    setup_table(s, "t", 1);
    char path[1024], sql[1200];
    fl_status rc = run_text(s, "SELECT file_path FROM \"t$files\"", path, sizeof path, &err);
    CHECK_OK(rc, &err);
    if (rc != FL_OK)
        goto out;
    snprintf(sql, sizeof sql, "SELECT sum(id) FROM read_parquet('%s')", path);
    expect(s, sql, "5050");
    fl_sql_cache_stats a, b;
    fl_sql_shared_cache_stats(c, &a);
    expect(s, sql, "5050");
    fl_sql_shared_cache_stats(c, &b);
    CHECK(b.hits > a.hits);
    CHECK_EQ_INT((long long)b.misses, (long long)a.misses);
out:
    fl_sql_session_close(s);
    fl_sql_shared_cache_free(c);
    env_free(&e);
}

/* Prepared `WHERE id = $1` prunes like a literal (prune_params.c): with a
 * fresh cache, the footers cached show which data files were opened. */
static void test_param_pruning(void)
{
    env e;
    if (!env_init(&e)) {
        CHECK(0);
        return;
    }
    fl_error err;
    fl_sql_shared_cache *c = NULL;
    fl_sql_session *s = open_session(&e, NULL);
    if (!s)
        goto out;
    exec_ok(s, "CREATE SCHEMA \"default\"");
    setup_table(s, "t", 3); /* files of ids 1..100, 101..200, 201..300 */
    fl_sql_session_close(s);
    s = NULL;
    const char *queries[] = {"SELECT v FROM t WHERE id = $1", "SELECT v FROM t WHERE $1 = id",
                             "SELECT count(*) FROM t WHERE id >= $1 AND id < 150",
                             "SELECT v FROM t WHERE id + 0 = $1"};
    const char *want[] = {"v142", "v142", "9", "v142"};
    uint64_t entries[4];
    for (int q = 0; q < 4; q++) {
        CHECK_OK(fl_sql_shared_cache_new(64u << 20, &c, &err), &err);
        s = open_session(&e, c);
        if (!s || !c)
            goto out;
        fl_sql_stmt *st = NULL;
        CHECK_OK(fl_sql_prepare(s, queries[q], &st, &err), &err);
        fl_value pv;
        memset(&pv, 0, sizeof pv);
        pv.type.id = FL_TYPE_INT64;
        pv.v.i64 = q == 2 ? 141 : 142;
        fl_sql_result *r = NULL;
        if (st)
            CHECK_OK(fl_sql_stmt_execute(st, &pv, 1, &r, &err), &err);
        char out[64] = "";
        const fl_batch *b = NULL;
        bool eof = false;
        if (r && fl_sql_result_next(r, &b, &eof, &err) == FL_OK && b && b->nrows == 1)
            fl_sql_format_value(&b->cols[0], 0, "UTC", out, sizeof out);
        CHECK_EQ_STR(out, want[q]);
        fl_sql_result_close(r);
        fl_sql_stmt_close(st);
        fl_sql_cache_stats cs;
        fl_sql_shared_cache_stats(c, &cs);
        entries[q] = cs.entries;
        fl_sql_session_close(s);
        s = NULL;
        fl_sql_shared_cache_free(c);
        c = NULL;
    }
    /* metadata, manifest list, manifests and the footer of the one data file
     * whose id bounds can match (the others are pruned unopened) */
    CHECK_EQ_INT((long long)entries[0], 6);
    CHECK_EQ_INT((long long)entries[1], 6);
    CHECK_EQ_INT((long long)entries[2], 6); /* ids 141..149: the second file only */
    /* not a column comparison: no pruning, more data files opened */
    CHECK(entries[3] > entries[0]);
out:
    fl_sql_session_close(s);
    fl_sql_shared_cache_free(c);
    env_free(&e);
}

int main(void)
{
    TEST_RUN(test_hits_and_commit_visibility);
    TEST_RUN(test_bounds);
    TEST_RUN(test_lru_order_and_refcount);
    TEST_RUN(test_threads);
    TEST_RUN(test_read_parquet_footers);
    TEST_RUN(test_param_pruning);
    return TEST_EXIT();
}
