/*
 * test_session_progress.c - fl_sql_session_progress (issue 17 item 6): the
 * counters a statement's scans keep. After a statement they equal what it
 * really read: the data files of an Iceberg table (left after metrics
 * pruning), the files of read_parquet / read_csv, the rows of those files;
 * a table of one file split into row-group morsels over 4 threads counts
 * that file once; a join counts both sides; ALTER TABLE ... EXECUTE
 * optimize counts the files it rewrote; the next statement starts from
 * zero (and bumps the statement number). A second thread polling while a
 * query runs sees counters that only grow and never more files done than
 * planned.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/stat.h>

#include "stmt_test_util.h"

#define FILES 5
#define ROWS_PER_FILE 1000

static fl_sql_progress progress_of(stmt_env *e)
{
    fl_sql_progress p;
    fl_sql_session_progress(e->s, &p);
    return p;
}

static void check_progress(stmt_env *e, uint64_t files, uint64_t rows)
{
    fl_sql_progress p = progress_of(e);
    CHECK_EQ_INT(p.files_total, files);
    CHECK_EQ_INT(p.files_done, files);
    CHECK_EQ_INT(p.rows_scanned, rows);
    CHECK(files == 0 ? p.bytes_read == 0 : p.bytes_read > 0);
}

/* Table t: FILES data files (one per INSERT) of ROWS_PER_FILE ids each,
 * file i holding ids [i * ROWS_PER_FILE, (i + 1) * ROWS_PER_FILE). */
static void make_table(stmt_env *e)
{
    RUN_OK(e, "CREATE SCHEMA test");
    RUN_OK(e, "CREATE TABLE t (id bigint, v text)");
    for (int i = 0; i < FILES; i++) {
        char q[256];
        snprintf(q, sizeof q,
                 "INSERT INTO t SELECT x, 'v' || x FROM generate_series(%d, %d) AS g(x)",
                 i * ROWS_PER_FILE, (i + 1) * ROWS_PER_FILE - 1);
        RUN_OK(e, q);
    }
}

static void test_counts_after_statement(void)
{
    stmt_env e;
    CHECK(stmt_env_open(&e) == 0);
    make_table(&e);
    static const char *threads[] = {"SET threads = 1", "SET threads = 4"};
    for (int t = 0; t < 2; t++) {
        RUN_OK(&e, threads[t]);
        RUN_OK(&e, "SELECT count(*), sum(id) FROM t");
        CHECK_EQ_STR(e.rows, "5000|12497500\n");
        check_progress(&e, FILES, FILES * ROWS_PER_FILE);
        /* metrics pruning: only the last two files can hold id >= 3000 */
        RUN_OK(&e, "SELECT count(*) FROM t WHERE id >= 3000");
        CHECK_EQ_STR(e.rows, "2000\n");
        check_progress(&e, 2, 2 * ROWS_PER_FILE);
        /* a join: both sides */
        RUN_OK(&e, "SELECT count(*) FROM t a JOIN t b ON a.id = b.id");
        CHECK_EQ_STR(e.rows, "5000\n");
        check_progress(&e, 2 * FILES, 2 * FILES * ROWS_PER_FILE);
        /* a statement without scans starts from zero */
        RUN_OK(&e, "SELECT 1");
        check_progress(&e, 0, 0);
    }
    /* each statement started counts; one failing before it starts not */
    uint64_t before = progress_of(&e).statement;
    RUN_OK(&e, "SELECT count(*), sum(id) FROM t");
    CHECK_EQ_INT(progress_of(&e).statement, before + 1);
    CHECK(stmt_run(&e, "SELEC 1") != 0);
    CHECK_EQ_INT(progress_of(&e).statement, before + 1);
    check_progress(&e, FILES, FILES * ROWS_PER_FILE); /* still the last statement's */
    /* the query of a DML statement counts too */
    RUN_OK(&e, "CREATE TABLE u AS SELECT * FROM t WHERE id < 1000");
    check_progress(&e, 1, ROWS_PER_FILE);
    /* optimize: the files it rewrote, the rows it read and wrote again */
    RUN_OK(&e, "ALTER TABLE t EXECUTE optimize");
    CHECK_EQ_STR(e.rows, "5|1\n");
    fl_sql_progress p = progress_of(&e);
    CHECK_EQ_INT(p.files_total, FILES);
    CHECK_EQ_INT(p.files_done, FILES);
    CHECK_EQ_INT(p.rows_scanned, FILES * ROWS_PER_FILE);
    stmt_env_close(&e);
}

/* One data file of many row groups: with 4 threads it is read as row-group
 * morsels by several threads, and still counts as one file, done once. */
static void test_split_file_counts_once(void)
{
    stmt_env e;
    CHECK(stmt_env_open(&e) == 0);
    RUN_OK(&e, "CREATE SCHEMA test");
    RUN_OK(&e, "CREATE TABLE big (id bigint, v text) "
               "WITH (\"write.parquet.row-group-size-bytes\" = '8192')");
    RUN_OK(&e, "SET threads = 1");
    RUN_OK(&e, "INSERT INTO big SELECT x, 'v' || x FROM generate_series(0, 19999) AS g(x)");
    RUN_OK(&e, "EXPLAIN ANALYZE SELECT sum(id) FROM big");
    CHECK(strstr(e.rows, "files=1 ") != NULL);
    RUN_OK(&e, "SET threads = 4");
    RUN_OK(&e, "SELECT count(*), sum(id) FROM big"); /* (count alone: from metadata) */
    CHECK_EQ_STR(e.rows, "20000|199990000\n");
    check_progress(&e, 1, 20000);
    stmt_env_close(&e);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs(text, f);
    fclose(f);
}

static uint64_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/* Table functions: the files of a glob, their rows; CSV counts its text. */
static void test_table_functions(void)
{
    stmt_env e;
    CHECK(stmt_env_open(&e) == 0);
    make_table(&e);
    char q[1024], a[320], b[320];
    snprintf(q, sizeof q, "SELECT count(*) FROM read_parquet('%s/wh/test/t/data/*.parquet')",
             e.dir);
    RUN_OK(&e, q);
    CHECK_EQ_STR(e.rows, "5000\n");
    check_progress(&e, FILES, FILES * ROWS_PER_FILE);
    snprintf(a, sizeof a, "%s/a.csv", e.dir);
    snprintf(b, sizeof b, "%s/b.csv", e.dir);
    write_text(a, "id,name\n1,x\n2,y\n");
    write_text(b, "id,name\n3,z\n");
    snprintf(q, sizeof q, "SELECT max(id) FROM read_csv('%s/*.csv')", e.dir);
    RUN_OK(&e, q);
    CHECK_EQ_STR(e.rows, "3\n");
    check_progress(&e, 2, 3);
    CHECK_EQ_INT(progress_of(&e).bytes_read, file_size(a) + file_size(b));
    stmt_env_close(&e);
}

typedef struct poller {
    fl_sql_session *s;
    atomic_int stop;
    atomic_ullong samples;
    uint64_t regressions, overdone;
    fl_sql_progress last;
} poller;

/* Reads the counters until told to stop, noting any sample that went back
 * or had more files done than planned. */
static void *poll_main(void *arg)
{
    poller *p = arg;
    while (!atomic_load(&p->stop)) {
        fl_sql_progress now;
        fl_sql_session_progress(p->s, &now);
        atomic_fetch_add(&p->samples, 1);
        p->regressions +=
            now.files_total < p->last.files_total || now.files_done < p->last.files_done ||
            now.rows_scanned < p->last.rows_scanned || now.bytes_read < p->last.bytes_read;
        p->overdone += now.files_done > now.files_total;
        p->last = now;
    }
    return NULL;
}

static void test_poll_from_another_thread(void)
{
    stmt_env e;
    CHECK(stmt_env_open(&e) == 0);
    make_table(&e);
    RUN_OK(&e, "SET threads = 2");
    RUN_OK(&e, "SELECT 1"); /* counters at zero before the poller starts */
    poller p = {.s = e.s};
    atomic_init(&p.stop, 0);
    atomic_init(&p.samples, 0);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, poll_main, &p) == 0);
    while (atomic_load(&p.samples) == 0) /* polling before the query starts */
        sched_yield();
    RUN_OK(&e, "SELECT count(*) FROM t a JOIN t b ON a.id % 1000 = b.id % 1000");
    atomic_store(&p.stop, 1);
    pthread_join(t, NULL);
    CHECK_EQ_STR(e.rows, "25000\n");
    CHECK_EQ_INT(p.regressions, 0);
    CHECK_EQ_INT(p.overdone, 0);
    check_progress(&e, 2 * FILES, 2 * FILES * ROWS_PER_FILE);
    /* NULL session: zeros, no crash */
    fl_sql_progress z;
    fl_sql_session_progress(NULL, &z);
    CHECK(z.files_total == 0 && z.files_done == 0 && z.rows_scanned == 0 && z.bytes_read == 0);
    stmt_env_close(&e);
}

int main(void)
{
    TEST_RUN(test_counts_after_statement);
    TEST_RUN(test_split_file_counts_once);
    TEST_RUN(test_table_functions);
    TEST_RUN(test_poll_from_another_thread);
    return TEST_EXIT();
}
