/*
 * test_http_body.c - the HTTP ingestion body parser (fl_ingest_body_write,
 * src/ingest/src_http.c): NDJSON, JSON arrays and CSV converted by column
 * name to a table schema; errors name the line or record and the column;
 * empty bodies are no records; a body written through a sink commits and
 * reads back through the SQL engine; hostile inputs through the fuzz
 * target's checks (fuzz/fuzz_ingest_body.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INGEST_BODY_FUZZ_NO_MAIN
#include "../../fuzz/fuzz_ingest_body.c"
#include "floe_test.h"

/* Runs body (format f) through the fuzz schema: status, rows, message. */
static fl_status run(fl_ingest_body_format f, const char *body, uint64_t *rows, fl_error *err)
{
    size_t n = strlen(body);
    uint8_t *in = malloc(n + 1);
    in[0] = (uint8_t)f;
    memcpy(in + 1, body, n);
    fl_status rc = body_fuzz_one(in, n + 1, rows, err);
    free(in);
    return rc;
}

static void test_formats(void)
{
    uint64_t rows = 0;
    fl_error err = {0};
    CHECK_OK(
        run(FL_INGEST_BODY_NDJSON,
            "{\"id\": 1, \"name\": \"a\", \"v\": 1.5, \"d\": \"2024-01-02\"}\n\n"
            "{\"id\": 2, \"amt\": \"12.50\", \"ok\": true, \"ts\": \"2024-01-02T03:04:05Z\"}\n",
            &rows, &err),
        &err);
    CHECK_EQ_INT(rows, 2);
    CHECK_OK(run(FL_INGEST_BODY_JSON, "[{\"id\": 1}, {\"id\": 2, \"v\": \"2.5\"}, {\"id\": 3}]",
                 &rows, &err),
             &err);
    CHECK_EQ_INT(rows, 3);
    CHECK_OK(run(FL_INGEST_BODY_CSV, "name,id,v\r\nx,1,1.5\r\ny,2,\r\n", &rows, &err), &err);
    CHECK_EQ_INT(rows, 2);
    /* no records */
    CHECK_OK(run(FL_INGEST_BODY_NDJSON, "", &rows, &err), &err);
    CHECK_EQ_INT(rows, 0);
    CHECK_OK(run(FL_INGEST_BODY_CSV, " \n", &rows, &err), &err);
    CHECK_EQ_INT(rows, 0);
    CHECK_OK(run(FL_INGEST_BODY_JSON, " [ ] ", &rows, &err), &err);
    CHECK_EQ_INT(rows, 0);
}

static void expect_error(fl_ingest_body_format f, const char *body, const char *want1,
                         const char *want2)
{
    uint64_t rows = 0;
    fl_error err = {0};
    fl_status rc = run(f, body, &rows, &err);
    CHECK(rc != FL_OK);
    if (!strstr(err.msg, want1) || (want2 && !strstr(err.msg, want2))) {
        fprintf(stderr, "  message '%s' lacks '%s' / '%s'\n", err.msg, want1, want2 ? want2 : "");
        CHECK(0);
    }
}

static void test_errors(void)
{
    expect_error(FL_INGEST_BODY_NDJSON, "{\"id\": 1}\n{\"id\": \"x\"}\n", "line 2", "id");
    expect_error(FL_INGEST_BODY_NDJSON, "{\"id\": 1}\n{\"id\": 2, \"d\": \"2024-13-45\"}\n",
                 "line 2", "d");
    expect_error(FL_INGEST_BODY_NDJSON, "{\"id\": 1}\nnot json\n", "line 2", NULL);
    expect_error(FL_INGEST_BODY_JSON, "[{\"id\": 1}, {\"id\": 2}, {\"id\": 3, \"v\": \"zz\"}]",
                 "record 3", "v");
    expect_error(FL_INGEST_BODY_JSON, "[{\"id\": 1}, 7]", "record 2", "object");
    expect_error(FL_INGEST_BODY_JSON, "{\"id\": 1}", "array", NULL);
    expect_error(FL_INGEST_BODY_JSON, "[{\"id\": 1},", "body", NULL);
    expect_error(FL_INGEST_BODY_JSON, "[{\"id\": 1}, {\"name\": \"no id\"}]", "records 1-2",
                 "'id'");
    expect_error(FL_INGEST_BODY_CSV, "id,zzz\n1,2\n", "zzz", NULL);
    expect_error(FL_INGEST_BODY_CSV, "id,v\n1,2\n3,x\n", "line 3", "v");
    expect_error(FL_INGEST_BODY_CSV, "id,name\n1,\"unterminated\n", "body", NULL);
    expect_error(FL_INGEST_BODY_NDJSON, "{}\n", "body", NULL);
    fl_error err = {0};
    uint64_t rows = 1;
    CHECK(fl_ingest_body_write(NULL, NULL, (fl_ingest_body_format)9, "{}", 2, NULL, &rows, &err) ==
          FL_EINVAL);
    CHECK(strstr(err.msg, "unknown format") != NULL);
}

/* Hostile inputs: cut at every length, one-byte corruptions, deep nesting. */
static void test_hostile(void)
{
    const char *seeds[] = {
        "\x01{\"id\": 1, \"name\": \"a\\u0000b\", \"ts\": \"2024-01-02 03:04:05+02\"}\n",
        "\x02[{\"id\": 9223372036854775807, \"amt\": \"99999999.99\"}, {\"id\": -1}]",
        "\x03id,amt,ok\n1,1.005,yes\n2,\"1,5\",no\n",
    };
    for (size_t s = 0; s < sizeof seeds / sizeof *seeds; s++) {
        size_t n = strlen(seeds[s]);
        for (size_t cut = 0; cut <= n; cut++)
            body_fuzz_one((const uint8_t *)seeds[s], cut, NULL, NULL);
        uint8_t *m = malloc(n);
        for (size_t i = 1; i < n; i++) {
            memcpy(m, seeds[s], n);
            m[i] ^= 0x5a;
            body_fuzz_one(m, n, NULL, NULL);
        }
        free(m);
    }
    size_t depth = 5000;
    char *deep = malloc(2 * depth + 16);
    size_t o = 0;
    deep[o++] = 2;
    for (size_t i = 0; i < depth; i++)
        deep[o++] = '[';
    for (size_t i = 0; i < depth; i++)
        deep[o++] = ']';
    fl_error err = {0};
    CHECK(body_fuzz_one((const uint8_t *)deep, o, NULL, &err) != FL_OK);
    deep[0] = 1;
    body_fuzz_one((const uint8_t *)deep, o, NULL, NULL);
    free(deep);
}

/* Through a sink on a SQLite catalog: the rows commit and read back. */
static void test_sink(void)
{
    char dir[256], uri[600], wh[600];
    if (!ft_tmpdir(dir, sizeof dir, "floe_http_body"))
        return;
    fl_sql_session *sql = ft_open_sqlite(dir, NULL, NULL);
    if (!sql)
        return;
    ft_expect(sql, "CREATE SCHEMA demo", "\n", "");
    ft_expect(sql, "CREATE TABLE demo.ev (id bigint NOT NULL, name varchar, v double)", "\n", "");
    snprintf(uri, sizeof uri, "sqlite:%s/cat.db", dir);
    snprintf(wh, sizeof wh, "%s/wh", dir);
    fl_error err = {0};
    fl_fileio *io = fl_fileio_local();
    fl_catalog *cat = NULL;
    CHECK_OK(fl_catalog_open_uri(uri, NULL, wh, io, &cat, &err), &err);
    const char *lv[] = {"demo"};
    fl_table_ident id = {.ns = {.levels = lv, .nlevels = 1}, .name = "ev"};
    fl_ingest_sink *s = NULL;
    CHECK_OK(fl_ingest_sink_open(cat, &id, "http", NULL, &s, &err), &err);
    if (!s)
        goto out;
    uint64_t rows = 0;
    const char *csv = "v,id\n0.5,10\n1.5,11\n";
    CHECK_OK(fl_ingest_body_write(fl_ingest_sink_schema(s), fl_ingest_sink_ice_schema(s),
                                  FL_INGEST_BODY_CSV, csv, strlen(csv), s, &rows, &err),
             &err);
    CHECK_EQ_INT(rows, 2);
    const char *bad = "[{\"id\": 12}, {\"id\": \"x\"}]";
    CHECK(fl_ingest_body_write(fl_ingest_sink_schema(s), fl_ingest_sink_ice_schema(s),
                               FL_INGEST_BODY_JSON, bad, strlen(bad), s, &rows, &err) != FL_OK);
    CHECK_EQ_INT(fl_ingest_sink_pending_rows(s), 2); /* the bad body wrote nothing */
    const char *nd = "{\"id\": 12, \"name\": \"z\"}\n";
    CHECK_OK(fl_ingest_body_write(fl_ingest_sink_schema(s), fl_ingest_sink_ice_schema(s),
                                  FL_INGEST_BODY_NDJSON, nd, strlen(nd), s, &rows, &err),
             &err);
    fl_ingest_commit c = {0};
    CHECK_OK(fl_ingest_sink_checkpoint(s, &c, &err), &err);
    CHECK(c.committed);
    CHECK_EQ_INT(c.rows, 3);
    ft_expect(sql, "SELECT id, name, v FROM demo.ev ORDER BY id", "\n",
              "10|NULL|0.5\n11|NULL|1.5\n12|z|NULL\n");
out:
    fl_ingest_sink_close(s);
    fl_catalog_close(cat);
    fl_fileio_destroy(io);
    fl_sql_session_close(sql);
    ft_rmtree(dir);
}

int main(void)
{
    TEST_RUN(test_formats);
    TEST_RUN(test_errors);
    TEST_RUN(test_hostile);
    TEST_RUN(test_sink);
    return TEST_EXIT();
}
