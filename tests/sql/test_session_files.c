/*
 * test_session_files.c - table functions end to end: read_csv (globs,
 * delimiter, headerless), read_json (JSON lines), read_parquet over an
 * Iceberg table's data files, iceberg_scan over a table folder, and their
 * errors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "floe/sql.h"
#include "floe_test.h"
#include "test.h"

static fl_sql_session *sess;
static char dir[64];

static void expect(const char *sql, const char *want)
{
    ft_expect(sess, sql, ";", want);
}

static void write_file(const char *name, const char *text)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    CHECK(f != NULL);
    if (!f)
        return;
    fputs(text, f);
    fclose(f);
}

static void test_csv_json(void)
{
    write_file("a.csv", "id,name\n1,x\n2,y\n");
    write_file("b.csv", "id,name\n3,z\n");
    write_file("c.tbl", "1|a\n2|b\n");
    write_file("d.jsonl", "{\"k\": 1, \"s\": \"p\"}\n{\"k\": 2, \"s\": \"q\"}\n");
    char q[512];
    snprintf(q, sizeof q, "SELECT count(*), max(id), min(name) FROM read_csv('%s/*.csv')", dir);
    expect(q, "3|3|x;");
    snprintf(q, sizeof q,
             "SELECT column2 FROM read_csv('%s/c.tbl', delim => '|', header => false) "
             "ORDER BY column1 DESC",
             dir);
    expect(q, "b;a;");
    snprintf(q, sizeof q, "SELECT s FROM read_json('%s/d.jsonl') j WHERE j.k = 2", dir);
    expect(q, "q;");
    snprintf(q, sizeof q, "SELECT * FROM read_csv('%s/nothing*.csv')", dir);
    char out[256];
    fl_error err;
    CHECK_EQ_INT(ft_run(sess, q, ";", out, sizeof out, &err), FL_ENOTFOUND);
    CHECK(strstr(err.msg, "no files match") != NULL);
    CHECK_EQ_INT(ft_run(sess, "SELECT * FROM read_xml('x')", ";", out, sizeof out, &err),
                 FL_ENOTFOUND);
    CHECK(strstr(err.msg, "line 1, column 15: table function read_xml() does not exist") != NULL);
}

static void test_parquet_iceberg(void)
{
    char out[256];
    fl_error err;
    CHECK_OK(ft_run(sess, "CREATE SCHEMA s1", ";", out, sizeof out, &err), &err);
    CHECK_OK(ft_run(sess, "CREATE TABLE s1.t (a int, b varchar)", ";", out, sizeof out, &err),
             &err);
    CHECK_OK(ft_run(sess, "INSERT INTO s1.t VALUES (1, 'one'), (2, 'two'), (3, 'three')", ";", out,
                    sizeof out, &err),
             &err);
    char q[512];
    snprintf(q, sizeof q, "SELECT sum(a), max(b) FROM read_parquet('%s/wh/s1/t/data/*.parquet')",
             dir);
    expect(q, "6|two;");
    snprintf(q, sizeof q, "SELECT b FROM iceberg_scan('%s/wh/s1/t') WHERE a >= 2 ORDER BY a",
             dir);
    expect(q, "two;three;");
}

int main(void)
{
    if (!ft_tmpdir(dir, sizeof dir, "floe_files"))
        return 1;
    char uri[128], wh[128];
    snprintf(uri, sizeof uri, "sqlite:%s/cat.db", dir);
    snprintf(wh, sizeof wh, "%s/wh", dir);
    fl_sql_options o;
    memset(&o, 0, sizeof o);
    o.catalog_uri = uri;
    o.warehouse = wh;
    fl_error err;
    if (fl_sql_session_open(&o, &sess, &err) != FL_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    TEST_RUN(test_csv_json);
    TEST_RUN(test_parquet_iceberg);
    fl_sql_session_close(sess);
    ft_rmtree(dir);
    return TEST_EXIT();
}
