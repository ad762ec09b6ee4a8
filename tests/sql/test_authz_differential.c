/*
 * test_authz_differential.c - the differential fuzzer of the engine's
 * authorization (issue 14, "a differential fuzzer"): thousands of random
 * statements (tests/sql/authz_world.h: sqlgen.h queries over the real
 * tables of every namespace, and templates of every other statement kind)
 * run as `reader`, who holds only READ on namespace pub, and fewer as
 * `sandboxer` (CREATE, WRITE, READ, DROP on sandbox). Each statement is
 * checked against what the engine recorded it touched (the access records
 * of fl_sql_result_access, against a reference model of the grants),
 * against the result rows and error messages (markers only secret holds),
 * against its SQLSTATE (a refusal is 42501, never "does not exist"), and
 * the whole catalog and warehouse are compared before and after it.
 *
 * A few directed cases first pin the world down (the examples).
 *
 * Environment: AUTHZ_SEED (first seed, default 1), AUTHZ_COUNT (reader
 * statements; default 5000, 2000 under ASan), AUTHZ_SANDBOX_COUNT (default
 * a fifth of that), AUTHZ_VERBOSE=1 (every statement and outcome). Every
 * statement i uses seed AUTHZ_SEED + i; a report names it.
 */
#include <time.h>

#include "sql/authz_world.h"
#include "test.h"

#if defined(__SANITIZE_ADDRESS__)
#define AW_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AW_SANITIZED 1
#endif
#endif
#ifndef AW_SANITIZED
#define AW_SANITIZED 0
#endif

static aw_world g_world;
static bool g_ready;

static uint64_t env_u64(const char *name, uint64_t dflt)
{
    const char *v = getenv(name);
    return v && *v ? strtoull(v, NULL, 10) : dflt;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Runs sql on s: the SQLSTATE ("00000" on success) and the rows, '|' and
 * '\n' separated, into out. */
static void run_sql(fl_sql_session *s, const char *sql, char *state, char *out, size_t cap)
{
    fl_error err;
    fl_error_clear(&err);
    fl_sql_result *r = NULL;
    size_t n = 0;
    out[0] = '\0';
    fl_status rc = fl_sql_execute(s, sql, &r, &err);
    for (bool eof = false; rc == FL_OK && !eof;) {
        const fl_batch *b;
        rc = fl_sql_result_next(r, &b, &eof, &err);
        for (uint32_t i = 0; rc == FL_OK && !eof && i < fl_batch_live_rows(b); i++)
            for (uint32_t c = 0; c < b->ncols; c++) {
                char v[256];
                fl_sql_format_value(&b->cols[c], b->sel ? b->sel->idx[i] : i, "UTC", v, sizeof v);
                n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "%s%s", c ? "|" : "", v);
                if (c + 1 == b->ncols)
                    n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "\n");
            }
    }
    fl_sql_result_close(r);
    fl_sql_error_info info;
    fl_sql_last_error(s, &info);
    snprintf(state, 6, "%s", rc == FL_OK ? "00000" : info.sqlstate);
    if (rc != FL_OK && getenv("AUTHZ_VERBOSE"))
        fprintf(stderr, "%s -> %s %s\n", sql, state, err.msg);
}

static void expect_state(fl_sql_session *s, const char *sql, const char *want)
{
    char state[8], out[4096];
    run_sql(s, sql, state, out, sizeof out);
    if (strcmp(state, want) != 0) {
        fprintf(stderr, "%s\n  -> SQLSTATE %s, want %s\n", sql, state, want);
        CHECK(0);
    }
}

static void test_world(void)
{
    fl_status rc = aw_open(&g_world);
    if (rc != FL_OK)
        fprintf(stderr, "world: %s\n", g_world.err);
    CHECK(rc == FL_OK);
    g_ready = rc == FL_OK;
    if (!g_ready)
        return;
    CHECK(g_world.nsnaps >= 2 * AW_NTABLES);
    char state[8], out[4096];
    run_sql(g_world.admin, "SELECT count(*) FROM secret.hush", state, out, sizeof out);
    CHECK_EQ_STR(out, "8\n");
    run_sql(g_world.admin, "SELECT k FROM pub.v_def ORDER BY k LIMIT 1", state, out, sizeof out);
    CHECK_EQ_STR(out, "1\n");
}

/* The examples, as reader (READ on pub only). */
static void test_directed_reader(void)
{
    if (!g_ready)
        return;
    fl_sql_session *s = NULL;
    if (aw_session(&g_world, &g_world.reader, &s) != FL_OK) {
        fprintf(stderr, "%s\n", g_world.err);
        CHECK(0);
        return;
    }
    char state[8], out[8192], sql[1024];
    run_sql(s, "SELECT k, v FROM pub.t3 ORDER BY k NULLS LAST LIMIT 1", state, out, sizeof out);
    CHECK_EQ_STR(out, "1|pub-k\n");
    expect_state(s, "SELECT * FROM secret.t3 FOR VERSION AS OF 'main'", "42501");
    expect_state(s, "SELECT * FROM secret.nosuch FOR VERSION AS OF 'main'", "42501");
    expect_state(s, "INSERT INTO secret.t3 SELECT * FROM pub.t3 FOR VERSION AS OF 'main'", "42501");
    expect_state(s, "ALTER TABLE secret.t3 EXECUTE optimize", "42501");
    expect_state(s, "ALTER TABLE secret.t3 EXECUTE expire_snapshots", "42501");
    expect_state(s, "ALTER TABLE secret.t3 EXECUTE remove_orphan_files", "42501");
    expect_state(s, "CREATE TABLE secret.t9 AS SELECT * FROM pub.t3 FOR VERSION AS OF 'main'",
                 "42501");
    snprintf(sql, sizeof sql,
             "SELECT * FROM read_parquet('%s/secret/hush/data/*.parquet') AS f JOIN pub.t3 FOR "
             "VERSION AS OF 'main' AS p ON f.k = p.k",
             g_world.wh);
    expect_state(s, sql, "42501");
    expect_state(s, "SELECT * FROM pub.v_mal", "42501"); /* REST view, definer lacks secret */
    expect_state(s, "SELECT * FROM pub.v_inv", "42501"); /* invoker rights */
    expect_state(s, "SELECT * FROM secret.v_sec", "42501");
    expect_state(s, "SELECT * FROM pubx.t3", "42501"); /* prefix trap */
    expect_state(s, "SELECT * FROM pg_hush", "42501"); /* search_path = secret */
    expect_state(s, "SELECT * FROM hush", "42501");
    expect_state(s, "SELECT * FROM \"t3$snapshots\"", "42501");
    /* reader's policies: a mask on pub.t1.b, a row filter on pub.t2 */
    run_sql(s, "SELECT DISTINCT b FROM pub.t1", state, out, sizeof out);
    CHECK_EQ_STR(out, "***\n");
    run_sql(s, "SELECT count(*) FROM pub.t2 FOR VERSION AS OF 'main'", state, out, sizeof out);
    CHECK_EQ_STR(out, "2\n");
    expect_state(s, "SELECT * FROM pub.\"t1$files\"", "42501");
    expect_state(s, "SELECT * FROM pub.t1 WHERE CAST(b AS int) > 0", "22P02");
    run_sql(s, "WITH hush AS (SELECT 1 AS k) SELECT k FROM hush", state, out, sizeof out);
    CHECK_EQ_STR(out, "1\n"); /* a CTE shadows the name: nothing of secret is touched */
    run_sql(s, "SELECT k FROM pub.v_audit", state, out, sizeof out);
    CHECK_EQ_STR(out, "6\n"); /* a definer view of someone who may read secret.t2 */
    run_sql(s,
            "SELECT count(*) FROM information_schema.tables WHERE table_schema NOT IN "
            "('pg_catalog', 'information_schema') AND table_schema <> 'pub' AND table_schema "
            "<> 'pub.inner'",
            state, out, sizeof out);
    CHECK_EQ_STR(out, "0\n");
    run_sql(s,
            "SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'secret%' OR nspname = "
            "'pubx' OR nspname = 'sandbox'",
            state, out, sizeof out);
    CHECK_EQ_STR(out, "0\n");
    fl_sql_session_close(s);
}

/* Regressions of what the fuzzer found (fixed in src/sql/pgcat). */
static void test_found_reader(void)
{
    if (!g_ready)
        return;
    fl_sql_session *s = NULL;
    if (aw_session(&g_world, &g_world.reader, &s) != FL_OK) {
        CHECK(0);
        return;
    }
    char state[8], out[8192], alone[64];
    /* the pg_catalog listing was built once per statement: a definer view
     * reading pg_class (v_cat, auditor's) bound first left the definer's
     * listing to the invoker's own pg_class, naming secret's tables */
    run_sql(s, "SELECT c.relname FROM pub.v_cat AS v, pg_class AS c WHERE c.relname LIKE 'hush%'",
            state, out, sizeof out);
    CHECK_EQ_STR(state, "00000");
    CHECK_EQ_STR(out, "");
    run_sql(s,
            "SELECT count(*) FROM pub.v_cat AS v, information_schema.tables AS t WHERE "
            "t.table_schema LIKE 'secret%'",
            state, out, sizeof out);
    CHECK_EQ_STR(out, "0\n");
    /* and the other way round, the definer's view saw the invoker's listing */
    run_sql(s, "SELECT k FROM pub.v_cat", state, alone, sizeof alone);
    run_sql(s, "SELECT v.k FROM pg_class AS c, pub.v_cat AS v WHERE c.relname = 'v_cat'", state,
            out, sizeof out);
    CHECK_EQ_STR(out, alone);
    /* names in namespaces the reader may not see are refused (42501), as
     * FROM refuses them, whether they exist or not; not "does not exist" */
    expect_state(s, "SELECT 'secret.hush'::regclass", "42501");
    expect_state(s, "SELECT 'secret.nosuch'::regclass", "42501");
    expect_state(s, "SELECT 'hush'::regclass", "42501"); /* search_path = secret */
    expect_state(s, "SELECT pg_relation_size('secret.hush')", "42501");
    expect_state(s, "SELECT pg_get_viewdef('secret.v_sec')", "42501");
    expect_state(s, "SELECT pg_table_is_visible('sandbox.t3'::regclass)", "42501");
    expect_state(s, "SELECT 'pub.nosuch'::regclass", "42P01"); /* pub is the reader's */
    expect_state(s, "SELECT pg_relation_size('pub.t3') > 0", "00000");
    fl_sql_session_close(s);
}

/* Engine faults the fuzzer ran into (UBSan), as the embedded owner. */
static void test_found_engine(void)
{
    if (!g_ready)
        return;
    char state[8], out[256];
    /* a string vector without a heap (only '' and NULL) read by IN (...):
     * NULL + 0 in fl_vector_bytes (include/floe/vector.h) */
    run_sql(g_world.admin, "SELECT v IN ('a', 'b') FROM (VALUES ('')) AS t(v)", state, out,
            sizeof out);
    CHECK_EQ_STR(out, "f\n");
    run_sql(g_world.admin,
            "SELECT count(*) FROM pub.t3 WHERE substring(v FROM CAST(NULL AS int) FOR 3) IN ('a', "
            "'b')",
            state, out, sizeof out);
    CHECK_EQ_STR(out, "0\n");
}

static void run_pass(const aw_pass *pass, const fl_principal *p, uint64_t seed0, uint64_t count)
{
    static char sql[65536];
    aw_stmt st = {.sql = sql, .cap = sizeof sql};
    aw_run r;
    if (aw_run_open(&r, &g_world, pass, p, true) != FL_OK) {
        fprintf(stderr, "%s\n", g_world.err);
        CHECK(0);
        return;
    }
    bool verbose = getenv("AUTHZ_VERBOSE") != NULL;
    char label[128];
    r.label = label;
    double t0 = now_s();
    for (uint64_t i = 0; i < count; i++) {
        uint64_t seed = seed0 + i;
        snprintf(label, sizeof label, "seed %llu = AUTHZ_SEED %llu + statement %llu",
                 (unsigned long long)seed, (unsigned long long)seed0, (unsigned long long)i);
        memset(&r.ag.g, 0, sizeof r.ag.g);
        r.ag.g.rng = seed * 0x9E3779B97F4A7C15ULL | 1;
        if (!pass->nothing_writes && i % 50 == 49 && !r.in_block) {
            /* what the pass dropped or altered in its namespace comes back */
            if (aw_restore(&g_world, pass->own) != FL_OK) {
                fprintf(stderr, "restore: %s\n", g_world.err);
                CHECK(0);
            }
            aw_state_free(&r.base);
            aw_state_take(&g_world, pass->own, &r.base);
        }
        aw_statement(&r.ag, &st);
        if (verbose)
            fprintf(stderr, "[%llu] %s: %s\n", (unsigned long long)seed, st.kind, sql);
        aw_run_stmt(&r, &st);
        if (verbose)
            fprintf(stderr, "  -> %s %s\n", r.last_state, r.last_msg);
    }
    fprintf(stderr,
            "authz differential (%s): %llu statements, %llu ok, %llu failed (%llu with 42501), "
            "%llu violations, %.1f s\n",
            pass->who, (unsigned long long)r.statements, (unsigned long long)r.ok,
            (unsigned long long)r.failed, (unsigned long long)r.refused,
            (unsigned long long)r.violations, now_s() - t0);
    CHECK_EQ_INT(r.violations, 0);
    /* the generator must reach the engine, not only its refusals */
    CHECK(r.ok * 8 >= r.statements);
    CHECK(r.refused * 10 >= r.statements);
    aw_run_close(&r);
}

static void test_reader(void)
{
    if (!g_ready)
        return;
    uint64_t seed = env_u64("AUTHZ_SEED", 1);
    uint64_t count = env_u64("AUTHZ_COUNT", AW_SANITIZED ? 2000 : 5000);
    fprintf(stderr, "authz differential: AUTHZ_SEED=%llu AUTHZ_COUNT=%llu\n",
            (unsigned long long)seed, (unsigned long long)count);
    run_pass(&AW_READER, &g_world.reader, seed, count);
}

static void test_sandboxer(void)
{
    if (!g_ready)
        return;
    uint64_t seed = env_u64("AUTHZ_SEED", 1) + 1000000;
    uint64_t count = env_u64("AUTHZ_COUNT", AW_SANITIZED ? 2000 : 5000) / 5;
    count = env_u64("AUTHZ_SANDBOX_COUNT", count);
    run_pass(&AW_SANDBOXER, &g_world.sandboxer, seed, count);
}

int main(void)
{
    TEST_RUN(test_world);
    TEST_RUN(test_directed_reader);
    TEST_RUN(test_found_reader);
    TEST_RUN(test_found_engine);
    TEST_RUN(test_reader);
    TEST_RUN(test_sandboxer);
    aw_close(&g_world);
    return TEST_EXIT();
}
