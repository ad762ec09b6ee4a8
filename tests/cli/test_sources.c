/*
 * test_sources.c - the CSV and JSON lines readers of `floe convert`
 * (src/cli/csv.c, jsonl.c): RFC 4180 quoting, nulls vs empty strings, type
 * inference, explicit schemas, nested JSON, and error messages that name the
 * file, line and column.
 */
#include "cli/output.c"
#include "floe/text.h"

#include <unistd.h>

#include "test.h"

static char *write_tmp(const char *name, const char *content)
{
    static char path[256];
    snprintf(path, sizeof path, "/tmp/floe-test-sources-%d-%s", (int)getpid(), name);
    FILE *f = fopen(path, "wb");
    fputs(content, f);
    fclose(f);
    return path;
}

/* Reads all rows of src as JSON lines into one string (caller frees). */
static char *drain(fl_source *src, fl_error *err, fl_status *rc_out)
{
    fl_buf out = {0};
    fl_batch b;
    fl_status rc = fl_batch_init(&b, src->schema, err);
    while (rc == FL_OK) {
        bool eof;
        rc = src->ops->next(src, &b, &eof, err);
        if (rc != FL_OK || eof)
            break;
        for (uint32_t r = 0; r < b.nrows; r++) {
            for (uint32_t c = 0; c < b.ncols; c++) {
                fl_buf_puts(&out, c ? "," : "", err);
                fl_format_json(&out, &b.cols[c], r, err);
            }
            fl_buf_puts(&out, "\n", err);
        }
    }
    fl_batch_destroy(&b);
    *rc_out = rc;
    if (!out.data)
        fl_buf_puts(&out, "", err);
    return out.data;
}

static void test_csv_infer(void)
{
    const char *p =
        write_tmp("a.csv", "n,x,flag,day,at,name,empty\r\n"
                           "1,1.5,true,2024-01-01,2024-01-01 10:00:00,\"a,\"\"b\"\"\",\n"
                           "-7,2,FALSE,1999-12-31,2024-01-01T10:00:00.25,\"\",\n"
                           "\n"
                           ",,,,,\"multi\nline\",\n");
    fl_source *src;
    fl_error err;
    CHECK_OK(fl_csv_source_open(p, NULL, &src, &err), &err);
    const fl_schema *s = src->schema;
    CHECK_EQ_INT(s->nfields, 7);
    CHECK_EQ_INT(s->fields[0].type.id, FL_TYPE_INT64);
    CHECK_EQ_INT(s->fields[1].type.id, FL_TYPE_FLOAT64);
    CHECK_EQ_INT(s->fields[2].type.id, FL_TYPE_BOOLEAN);
    CHECK_EQ_INT(s->fields[3].type.id, FL_TYPE_DATE);
    CHECK_EQ_INT(s->fields[4].type.id, FL_TYPE_TIMESTAMP);
    CHECK_EQ_INT(s->fields[5].type.id, FL_TYPE_STRING);
    CHECK_EQ_INT(s->fields[6].type.id, FL_TYPE_STRING); /* only nulls */
    CHECK_EQ_INT(s->fields[6].field_id, 7);
    fl_status rc;
    char *out = drain(src, &err, &rc);
    CHECK_OK(rc, &err);
    CHECK_EQ_STR(
        out, "\"1\",1.5,true,\"2024-01-01\",\"2024-01-01 10:00:00.000000\",\"a,\\\"b\\\"\",null\n"
             "\"-7\",2,false,\"1999-12-31\",\"2024-01-01 10:00:00.250000\",\"\",null\n"
             "null,null,null,null,null,\"multi\\nline\",null\n");
    free(out);
    src->ops->close(src);
    unlink(p);
}

static void test_csv_errors(void)
{
    fl_error err;
    fl_source *src;
    const char *p = write_tmp("b.csv", "a,b\n1,2\n3\n");
    CHECK_OK(fl_csv_source_open(p, NULL, &src, &err), &err);
    fl_status rc;
    free(drain(src, &err, &rc));
    CHECK(rc == FL_ESYNTAX && strstr(err.msg, "line 3: 1 fields, the header has 2"));
    src->ops->close(src);

    p = write_tmp("c.csv", "a\n\"open\n");
    CHECK(fl_csv_source_open(p, NULL, &src, &err) == FL_ESYNTAX);
    CHECK(strstr(err.msg, "line 2: unterminated quoted field") != NULL);

    /* a value that does not fit the schema names line and column */
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_schema s;
    CHECK_OK(fl_parse_schema_spec("a:int,b:decimal(4,1)", &a, &s, &err), &err);
    fl_source_options o = {.schema = &s};
    p = write_tmp("d.csv", "a,b\n1,2.5\n2,12345\n");
    CHECK_OK(fl_csv_source_open(p, &o, &src, &err), &err);
    free(drain(src, &err, &rc));
    CHECK(rc == FL_EOVERFLOW && strstr(err.msg, "line 3, column 'b'") &&
          strstr(err.msg, "decimal(4,1)"));
    src->ops->close(src);
    CHECK(fl_csv_source_open("/nonexistent/x.csv", NULL, &src, &err) == FL_ENOTFOUND);
    fl_arena_free(&a);
    unlink(p);
}

static void test_jsonl(void)
{
    const char *p = write_tmp(
        "a.jsonl",
        "{\"a\":1,\"o\":{\"p\":\"x\",\"q\":[1,2]},\"l\":[1.5,null],\"d\":\"2024-01-01\"}\n"
        "\n"
        "{\"a\":2.5,\"o\":{\"p\":null,\"q\":[]},\"l\":[],\"m\":\"x\",\"d\":null}\n"
        "{\"a\":null,\"o\":null,\"m\":{\"k\":1}}\n");
    fl_source *src;
    fl_error err;
    CHECK_OK(fl_jsonl_source_open(p, NULL, &src, &err), &err);
    const fl_schema *s = src->schema;
    CHECK_EQ_INT(s->nfields, 5);
    CHECK_EQ_STR(s->fields[0].name, "a");
    CHECK_EQ_INT(s->fields[0].type.id, FL_TYPE_FLOAT64); /* int + real */
    CHECK_EQ_INT(s->fields[1].type.id, FL_TYPE_STRUCT);
    CHECK_EQ_INT(s->fields[1].type.children[1].type.id, FL_TYPE_LIST);
    CHECK_EQ_INT(s->fields[2].type.id, FL_TYPE_LIST);
    CHECK_EQ_INT(s->fields[3].type.id, FL_TYPE_DATE);
    CHECK_EQ_INT(s->fields[4].type.id, FL_TYPE_STRING); /* string + object: mixed */
    CHECK_EQ_INT(s->fields[4].field_id, 5);
    CHECK(s->fields[1].type.children[0].field_id > 5);
    fl_status rc;
    char *out = drain(src, &err, &rc);
    CHECK_OK(rc, &err);
    CHECK_EQ_STR(out, "1,{\"p\":\"x\",\"q\":[\"1\",\"2\"]},[1.5,null],\"2024-01-01\",null\n"
                      "2.5,{\"p\":null,\"q\":[]},[],null,\"x\"\n"
                      "null,null,null,null,\"{\\\"k\\\":1}\"\n");
    free(out);
    src->ops->close(src);

    /* explicit schema: strings convert exactly, maps from entry arrays or objects */
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_schema sc;
    CHECK_OK(fl_parse_schema_spec("v:decimal(20,2),m:map<string,long>,b:binary", &a, &sc, &err),
             &err);
    fl_source_options o = {.schema = &sc};
    p = write_tmp("b.jsonl", "{\"v\":\"123456789012345678.91\",\"m\":[{\"key\":\"a\",\"value\":"
                             "\"9007199254740993\"}],\"b\":\"\\\\x00ff\"}\n"
                             "{\"v\":1.5,\"m\":{\"x\":1,\"y\":null},\"b\":\"raw\"}\n");
    CHECK_OK(fl_jsonl_source_open(p, &o, &src, &err), &err);
    out = drain(src, &err, &rc);
    CHECK_OK(rc, &err);
    CHECK_EQ_STR(
        out,
        "\"123456789012345678.91\",[{\"key\":\"a\",\"value\":\"9007199254740993\"}],\"\\\\x00ff\"\n"
        "\"1.50\",[{\"key\":\"x\",\"value\":\"1\"},{\"key\":\"y\",\"value\":null}],"
        "\"\\\\x726177\"\n");
    free(out);
    src->ops->close(src);

    p = write_tmp("c.jsonl", "{\"v\":\"1\"}\n{\"v\": [1]}\n");
    CHECK_OK(fl_jsonl_source_open(p, &o, &src, &err), &err);
    free(drain(src, &err, &rc));
    CHECK(rc == FL_ETYPE && strstr(err.msg, "line 2, column 'v'") && strstr(err.msg, "array"));
    src->ops->close(src);

    p = write_tmp("d.jsonl", "{\"v\":1}\n{\"v\":\n");
    CHECK(fl_jsonl_source_open(p, NULL, &src, &err) == FL_ESYNTAX);
    CHECK(strstr(err.msg, "line 2") != NULL);
    fl_arena_free(&a);
    unlink(p);
}

static void test_edges(void)
{
    fl_error err;
    fl_source *src;
    fl_status rc;
    /* UTF-8 BOM before the header */
    const char *p = write_tmp("bom.csv", "\xEF\xBB\xBF"
                                         "a,b\n1,x\n");
    CHECK_OK(fl_csv_source_open(p, NULL, &src, &err), &err);
    CHECK_EQ_STR(src->schema->fields[0].name, "a");
    char *out = drain(src, &err, &rc);
    CHECK_EQ_STR(out, "\"1\",\"x\"\n");
    free(out);
    src->ops->close(src);
    /* duplicate header names */
    p = write_tmp("dup.csv", "a,a\n1,2\n");
    CHECK(fl_csv_source_open(p, NULL, &src, &err) == FL_EINVAL && strstr(err.msg, "'a' twice"));
    /* header only: a schema of strings, no rows */
    p = write_tmp("hdr.csv", "a,b\n");
    CHECK_OK(fl_csv_source_open(p, NULL, &src, &err), &err);
    out = drain(src, &err, &rc);
    CHECK_OK(rc, &err);
    CHECK_EQ_STR(out, "");
    free(out);
    src->ops->close(src);
    /* empty file */
    p = write_tmp("empty.csv", "");
    CHECK(fl_csv_source_open(p, NULL, &src, &err) == FL_ESYNTAX && strstr(err.msg, "empty file"));
    /* a JSON key first seen after the inference sample is an error, not silently dropped */
    fl_buf doc = {0};
    for (int i = 0; i < FL_INFER_ROWS; i++)
        fl_buf_appendf(&doc, &err, "{\"a\":%d}\n", i);
    fl_buf_puts(&doc, "{\"a\":1,\"late\":2}\n", &err);
    p = write_tmp("late.jsonl", doc.data);
    fl_buf_free(&doc);
    CHECK_OK(fl_jsonl_source_open(p, NULL, &src, &err), &err);
    out = drain(src, &err, &rc);
    free(out);
    CHECK(rc == FL_ETYPE && strstr(err.msg, "line 20001") && strstr(err.msg, "key 'late'"));
    src->ops->close(src);
    /* empty JSON lines file */
    p = write_tmp("empty.jsonl", "\n\n");
    CHECK(fl_jsonl_source_open(p, NULL, &src, &err) == FL_ESYNTAX);
    unlink(p);
}

int main(void)
{
    TEST_RUN(test_edges);
    TEST_RUN(test_csv_infer);
    TEST_RUN(test_csv_errors);
    TEST_RUN(test_jsonl);
    return TEST_EXIT();
}
