/*
 * test_depth.c - bounded recursion (src/sql/parse/depth.h): deep statements of
 * every shape get a clear 54001 error with a position, never a crash;
 * statements just under the limit run on a thread with a 4 MiB stack (half
 * of what every floe thread that runs statements gets), also under ASan;
 * long flat lists (IN lists, VALUES rows) keep working; the iterative
 * protobuf depth measure agrees with the tree. (LIMIT_STACK: 8 MiB under
 * ASan.)
 *
 * FLOE_DEPTH_MEASURE=1 (or a shape's name) prints, for each shape at the
 * limit and at 10,000 levels, the stack it used (high-water mark of a
 * pattern-filled stack), to re-check depth.h's margins.
 */
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include "floe_test.h"
#include "sql/parse/depth.h"

/* ---- statement generators: n levels of one shape ---- */

typedef struct buf {
    char *p;
    size_t len, cap;
} buf;

static void put(buf *b, const char *s)
{
    size_t n = strlen(s);
    if (b->len + n + 1 > b->cap) {
        b->cap = (b->len + n + 1) * 2;
        b->p = realloc(b->p, b->cap);
    }
    memcpy(b->p + b->len, s, n + 1);
    b->len += n;
}

static void rep(buf *b, const char *s, int n)
{
    for (int i = 0; i < n; i++)
        put(b, s);
}

typedef struct shape {
    const char *name;
    void (*gen)(buf *b, int n);
} shape;

static void g_plus(buf *b, int n)
{
    put(b, "SELECT 1");
    rep(b, "+1", n - 1);
}
static void g_colplus(buf *b, int n)
{
    /* not constant: evaluated per row, on executor threads */
    put(b, "SELECT x");
    rep(b, "+x", n - 1);
    put(b, " FROM generate_series(1, 3000) g(x)");
}
static void g_where(buf *b, int n)
{
    put(b, "SELECT count(*) FROM generate_series(1, 3000) g(x) WHERE x");
    rep(b, "+x", n - 1);
    put(b, " > 0");
}
static void g_concat(buf *b, int n)
{
    put(b, "SELECT 'a'");
    rep(b, " || 'a'", n - 1);
}
static void g_cast(buf *b, int n)
{
    put(b, "SELECT 1");
    rep(b, "::int", n);
}
static void g_union(buf *b, int n)
{
    put(b, "SELECT 1");
    rep(b, " UNION ALL SELECT 1", n - 1);
}
static void g_case(buf *b, int n)
{
    put(b, "SELECT ");
    rep(b, "CASE WHEN random() < 2 THEN ", n);
    put(b, "1");
    rep(b, " ELSE 0 END", n);
}
static void g_array(buf *b, int n)
{
    put(b, "SELECT ");
    rep(b, "ARRAY[", n);
    put(b, "1");
    rep(b, "]", n);
}
static void g_sub(buf *b, int n)
{
    put(b, "SELECT ");
    rep(b, "(SELECT ", n);
    put(b, "1");
    rep(b, ")", n);
}
static void g_from(buf *b, int n)
{
    put(b, "SELECT * FROM ");
    rep(b, "(SELECT * FROM ", n);
    put(b, "(VALUES (1)) v(x)");
    rep(b, ") s", n);
}
static void g_func(buf *b, int n)
{
    put(b, "SELECT ");
    rep(b, "abs(", n);
    put(b, "x");
    rep(b, ")", n);
    put(b, " FROM generate_series(1, 10) g(x)");
}
static void g_not(buf *b, int n)
{
    put(b, "SELECT ");
    rep(b, "NOT ", n);
    put(b, "x > 1 FROM generate_series(1, 10) g(x)");
}
static void g_paren(buf *b, int n)
{
    put(b, "SELECT ");
    rep(b, "(", n);
    put(b, "1");
    rep(b, ")", n);
}
static void g_cte(buf *b, int n)
{
    put(b, "WITH c0 AS (SELECT 1 AS x)");
    char t[64];
    for (int i = 1; i < n; i++) {
        snprintf(t, sizeof t, ", c%d AS (SELECT x FROM c%d)", i, i - 1);
        put(b, t);
    }
    snprintf(t, sizeof t, " SELECT x FROM c%d", n - 1);
    put(b, t);
}
static void g_explain(buf *b, int n)
{
    put(b, "EXPLAIN SELECT x");
    rep(b, "+x", n - 1);
    put(b, " FROM generate_series(1, 3) g(x)");
}
static void g_agg(buf *b, int n)
{
    put(b, "SELECT sum(x");
    rep(b, "+x", n - 1);
    put(b, ") FROM generate_series(1, 3000) g(x) GROUP BY x % 7 ORDER BY 1");
}

static const shape SHAPES[] = {
    {"plus", g_plus},   {"colplus", g_colplus}, {"where", g_where},     {"concat", g_concat},
    {"cast", g_cast},   {"union", g_union},     {"case", g_case},       {"array", g_array},
    {"sub", g_sub},     {"from", g_from},       {"func", g_func},       {"not", g_not},
    {"paren", g_paren}, {"cte", g_cte},         {"explain", g_explain}, {"agg", g_agg},
};
#define NSHAPES (sizeof SHAPES / sizeof SHAPES[0])

/* The stack the at-limit statements get: 4 MiB (half of every floe
 * statement thread's) in optimized builds, 8 MiB under ASan, whose -O0
 * frames with redzones are three times larger (FLOE_DEPTH_MEASURE=1: at
 * most 1.9 MiB at -O2, 5.8 MiB under ASan, for a chain of 1000 CTEs). */
#if defined(__SANITIZE_ADDRESS__)
#define LIMIT_STACK ((size_t)8 << 20)
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LIMIT_STACK ((size_t)8 << 20)
#endif
#endif
#ifndef LIMIT_STACK
#define LIMIT_STACK ((size_t)4 << 20)
#endif

/* ---- running a statement on a thread with a given stack ---- */

typedef struct job {
    const char *sql;
    uint32_t threads;
    fl_status rc;
    fl_sql_error_info info;
    char msg[FL_ERROR_MSG_MAX];
    int64_t rows;
} job;

static void *job_main(void *p)
{
    job *j = p;
    fl_sql_options o;
    memset(&o, 0, sizeof o);
    o.threads = j->threads;
    fl_sql_session *s = NULL;
    fl_error err;
    j->msg[0] = 0;
    j->rc = fl_sql_session_open(&o, &s, &err);
    if (j->rc != FL_OK) {
        snprintf(j->msg, sizeof j->msg, "%s", err.msg);
        return NULL;
    }
    fl_sql_result *r = NULL;
    j->rc = fl_sql_execute(s, j->sql, &r, &err);
    j->rows = 0;
    while (j->rc == FL_OK) {
        const fl_batch *b;
        bool eof;
        j->rc = fl_sql_result_next(r, &b, &eof, &err);
        if (j->rc != FL_OK || eof)
            break;
        j->rows += fl_batch_live_rows(b);
    }
    if (j->rc != FL_OK)
        snprintf(j->msg, sizeof j->msg, "%s", err.msg);
    fl_sql_last_error(s, &j->info);
    fl_sql_result_close(r);
    fl_sql_session_close(s);
    return NULL;
}

static void run_on_stack(job *j, size_t stack)
{
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setstacksize(&at, stack);
    pthread_t t;
    if (pthread_create(&t, &at, job_main, j) != 0) {
        j->rc = FL_ENOMEM;
        snprintf(j->msg, sizeof j->msg, "pthread_create failed");
    } else {
        pthread_join(t, NULL);
    }
    pthread_attr_destroy(&at);
}

static char *gen(const shape *sh, int n)
{
    buf b = {NULL, 0, 0};
    sh->gen(&b, n);
    return b.p;
}

/* ---- cases ---- */

/* Levels of a shape that still fit: the parse-tree depth is measured, so
 * this finds the largest n whose statement is not refused as too deep. */
static int largest_ok(const shape *sh)
{
    int lo = 1, hi = FL_SQL_MAX_DEPTH + 2;
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        char *sql = gen(sh, mid);
        job j = {sql, 1, 0, {{0}, 0}, {0}, 0};
        run_on_stack(&j, (size_t)16 << 20);
        bool deep = j.rc != FL_OK && !strcmp(j.info.sqlstate, "54001");
        free(sql);
        if (deep)
            hi = mid;
        else
            lo = mid;
    }
    return lo;
}

/* Just under the limit, every shape runs (or fails cleanly for reasons of
 * its own, never 54001) on LIMIT_STACK with 2 executor threads. */
static void test_at_limit_small_stack(void)
{
    for (size_t i = 0; i < NSHAPES; i++) {
        int n = largest_ok(&SHAPES[i]);
        char *sql = gen(&SHAPES[i], n);
        job j = {sql, 2, 0, {{0}, 0}, {0}, 0};
        run_on_stack(&j, LIMIT_STACK);
        fprintf(stderr, "  %-8s %5d levels: %s %s\n", SHAPES[i].name, n,
                j.rc == FL_OK ? "ok" : j.info.sqlstate, j.rc == FL_OK ? "" : j.msg);
        CHECK(n >= 8);
        CHECK(j.rc == FL_OK || strcmp(j.info.sqlstate, "54001") != 0);
        free(sql);
    }
}

/* 10,000 levels of every shape: 54001 with a position, nothing else. */
static void test_10000_levels_refused(void)
{
    for (size_t i = 0; i < NSHAPES; i++) {
        char *sql = gen(&SHAPES[i], 10000);
        job j = {sql, 2, 0, {{0}, 0}, {0}, 0};
        run_on_stack(&j, LIMIT_STACK);
        fprintf(stderr, "  %-8s 10000 levels: %s %s\n", SHAPES[i].name, j.info.sqlstate, j.msg);
        if (!strcmp(SHAPES[i].name, "paren") || !strcmp(SHAPES[i].name, "cte")) {
            /* parentheses make no tree levels, CTEs are siblings: flat; parens
             * still pass bison's stack (10000 levels) */
            CHECK(j.rc == FL_OK || !strcmp(j.info.sqlstate, "54001"));
        } else {
            CHECK(j.rc == FL_ELIMIT);
            CHECK_EQ_STR(j.info.sqlstate, "54001");
            CHECK(j.info.position > 0);
            CHECK(strstr(j.msg, "statement too complex") != NULL);
            CHECK(strncmp(j.msg, "line 1, column ", 15) == 0);
        }
        free(sql);
    }
}

/* 100,000 levels (bigger than any stack libpg_query could recurse on). */
static void test_100000_terms(void)
{
    char *sql = gen(&SHAPES[0], 100000);
    job j = {sql, 1, 0, {{0}, 0}, {0}, 0};
    run_on_stack(&j, (size_t)1 << 20); /* even a 1 MiB caller stack */
    CHECK_EQ_STR(j.info.sqlstate, "54001");
    free(sql);
}

/* Long flat lists are not deep. */
static void test_flat_lists(void)
{
    buf b = {NULL, 0, 0};
    put(&b, "SELECT count(*) FROM generate_series(1, 20000) g(x) WHERE x IN (");
    char t[32];
    for (int i = 1; i <= 10000; i++) {
        snprintf(t, sizeof t, "%s%d", i > 1 ? "," : "", i * 2);
        put(&b, t);
    }
    put(&b, ")");
    job j = {b.p, 2, 0, {{0}, 0}, {0}, 0};
    run_on_stack(&j, LIMIT_STACK);
    CHECK_OK(j.rc, &(fl_error){.msg = {0}});
    if (j.rc != FL_OK)
        fprintf(stderr, "IN list: %s\n", j.msg);
    free(b.p);

    b = (buf){NULL, 0, 0};
    put(&b, "SELECT count(*), sum(a) FROM (VALUES ");
    for (int i = 1; i <= 10000; i++) {
        snprintf(t, sizeof t, "%s(%d, 'v')", i > 1 ? "," : "", i);
        put(&b, t);
    }
    put(&b, ") v(a, s)");
    job k = {b.p, 2, 0, {{0}, 0}, {0}, 0};
    run_on_stack(&k, LIMIT_STACK);
    if (k.rc != FL_OK)
        fprintf(stderr, "VALUES: %s\n", k.msg);
    CHECK(k.rc == FL_OK && k.rows == 1);
    free(b.p);

    /* 10,000 AND-ed conditions are one flat BoolExpr */
    b = (buf){NULL, 0, 0};
    put(&b, "SELECT count(*) FROM generate_series(1, 10) g(x) WHERE x > 0");
    rep(&b, " AND x < 100", 10000);
    job l = {b.p, 1, 0, {{0}, 0}, {0}, 0};
    run_on_stack(&l, LIMIT_STACK);
    if (l.rc != FL_OK)
        fprintf(stderr, "AND chain: %s\n", l.msg);
    CHECK(l.rc == FL_OK);
    free(b.p);
}

/* The iterative measure against a tree libpg_query made. */
static void test_measure(void)
{
    char *sql = gen(&SHAPES[0], 300);
    PgQueryProtobufParseResult r = pg_query_parse_protobuf(sql);
    CHECK(r.error == NULL);
    uint32_t depth = 0;
    int32_t loc = -2;
    fl_error err;
    CHECK_OK(fl_pgq_depth(&pg_query__parse_result__descriptor, (const uint8_t *)r.parse_tree.data,
                          r.parse_tree.len, 10000, &depth, &loc, &err),
             &err);
    /* ParseResult, RawStmt, Node, SelectStmt, Node(target), ResTarget, then
     * Node + A_Expr per '+', then the innermost Node, A_Const and Integer */
    CHECK_EQ_INT(depth, 6 + 2 * 299 + 3);
    CHECK_EQ_INT(loc, -1);
    CHECK_OK(fl_pgq_depth(&pg_query__parse_result__descriptor, (const uint8_t *)r.parse_tree.data,
                          r.parse_tree.len, 100, &depth, &loc, &err),
             &err);
    CHECK_EQ_INT(depth, 101);
    CHECK(loc > 7 && (size_t)loc < strlen(sql) && sql[loc] == '+');
    /* truncated bytes are refused, never overrun */
    for (size_t cut = 1; cut < 64 && cut < r.parse_tree.len; cut++) {
        fl_status rc =
            fl_pgq_depth(&pg_query__parse_result__descriptor, (const uint8_t *)r.parse_tree.data,
                         r.parse_tree.len - cut, 10000, &depth, &loc, &err);
        CHECK(rc == FL_OK || rc == FL_ECORRUPT);
    }
    pg_query_free_protobuf_parse_result(r);
    free(sql);
}

/* ---- measurement mode ---- */

/* Stack high-water mark of running sql on a fresh thread: the thread runs on
 * a buffer filled with a pattern, and the deepest byte changed tells how
 * much stack the statement used. */
static size_t stack_used(const char *sql)
{
    size_t size = (size_t)64 << 20;
    uint8_t *mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED)
        return 0;
    memset(mem, 0xA5, size);
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setstack(&at, mem, size);
    job j = {sql, 1, 0, {{0}, 0}, {0}, 0}; /* 1 thread: the executor runs here too */
    pthread_t t;
    size_t used = 0;
    if (pthread_create(&t, &at, job_main, &j) == 0) {
        pthread_join(t, NULL);
        size_t lo = 0;
        while (lo < size && mem[lo] == 0xA5)
            lo++;
        used = size - lo;
    }
    pthread_attr_destroy(&at);
    munmap(mem, size);
    return used;
}

static void measure(void)
{
    const char *only = getenv("FLOE_DEPTH_MEASURE");
    for (size_t i = 0; i < NSHAPES; i++) {
        if (strcmp(only, "1") && strcmp(only, SHAPES[i].name))
            continue;
        int n = largest_ok(&SHAPES[i]);
        char *sql = gen(&SHAPES[i], n);
        size_t at = stack_used(sql);
        free(sql);
        sql = gen(&SHAPES[i], 10000);
        size_t over = stack_used(sql);
        free(sql);
        printf("%-8s %5d levels: %6zu KiB of stack; 10000 levels (refused): %6zu KiB\n",
               SHAPES[i].name, n, at >> 10, over >> 10);
        fflush(stdout);
    }
}

int main(void)
{
    if (getenv("FLOE_DEPTH_MEASURE")) {
        measure();
        return 0;
    }
    TEST_RUN(test_measure);
    TEST_RUN(test_100000_terms);
    TEST_RUN(test_10000_levels_refused);
    TEST_RUN(test_at_limit_small_stack);
    TEST_RUN(test_flat_lists);
    return TEST_EXIT();
}
