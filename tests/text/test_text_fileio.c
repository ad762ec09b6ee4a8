/*
 * test_text_fileio.c - CSV and JSON-lines sources read through FileIO: an
 * in-memory FileIO (no local files: paths are "mem://..."), the
 * fault-injecting FileIO (every read failure reported, never taken for end
 * of file), chunk boundaries past the 1 MiB read size, and read_csv /
 * read_json in a SQL session whose FileIO is the in-memory one (globs list
 * through it).
 */
#include <stdlib.h>
#include <string.h>

#include "floe/io.h"
#include "floe/sql.h"
#include "floe/text.h"
#include "floe_test.h"
#include "io/faulty.h"
#include "test.h"

/* ---- an in-memory FileIO over a fixed table of (path, bytes) ---- */

typedef struct mem_obj {
    const char *path;
    const char *data;
    size_t len;
} mem_obj;

typedef struct memio {
    fl_fileio base;
    const mem_obj *objs;
    size_t n;
    int opens;
} memio;

static fl_status mem_open(fl_fileio *io, const char *path, fl_file **out, fl_error *err)
{
    memio *m = (memio *)io;
    for (size_t i = 0; i < m->n; i++)
        if (!strcmp(m->objs[i].path, path)) {
            m->opens++;
            return fl_file_from_memory(m->objs[i].data, m->objs[i].len, path, out, err);
        }
    return fl_errorf(err, FL_ENOTFOUND, "%s: no such object", path);
}

static fl_status mem_create(fl_fileio *io, const char *path, int flags, fl_output **out,
                            fl_error *err)
{
    return fl_errorf(err, FL_EUNSUPPORTED, "%s: read-only", path);
}

static fl_status mem_remove(fl_fileio *io, const char *path, fl_error *err)
{
    return fl_errorf(err, FL_EUNSUPPORTED, "%s: read-only", path);
}

static fl_status mem_list(fl_fileio *io, const char *prefix,
                          fl_status (*fn)(void *ctx, const char *path, uint64_t size), void *ctx,
                          fl_error *err)
{
    memio *m = (memio *)io;
    for (size_t i = 0; i < m->n; i++)
        if (!strncmp(m->objs[i].path, prefix, strlen(prefix))) {
            fl_status rc = fn(ctx, m->objs[i].path, m->objs[i].len);
            if (rc != FL_OK)
                return fl_errorf(err, rc, "list callback failed");
        }
    return FL_OK;
}

static void mem_destroy(fl_fileio *io)
{
    (void)io; /* lives on the test's stack */
}

static const fl_fileio_ops mem_ops = {mem_open, mem_create, mem_remove, mem_list, mem_destroy};

static const char CSV[] = "id,name\n1,x\n2,\"y,z\"\n3,w\n";
static const char JSONL[] = "{\"k\": 1, \"s\": \"p\"}\n\n{\"k\": 2, \"s\": \"q\"}";
static const mem_obj OBJS[] = {
    {"mem://b/t/a.csv", CSV, sizeof CSV - 1},
    {"mem://b/t/b.csv", "id,name\n4,v\n", 12},
    {"mem://b/t/d.jsonl", JSONL, sizeof JSONL - 1},
};

/* Reads every batch of src; returns the row count, -1 on error (err set). */
static long drain(fl_source *src, fl_error *err)
{
    fl_batch b;
    if (fl_batch_init(&b, fl_source_schema(src), err) != FL_OK)
        return -1;
    long rows = 0;
    for (;;) {
        bool eof;
        if (fl_source_next(src, &b, &eof, err) != FL_OK) {
            rows = -1;
            break;
        }
        if (eof)
            break;
        rows += b.nrows;
    }
    fl_batch_destroy(&b);
    return rows;
}

static void test_sources_on_memory_fileio(void)
{
    memio m = {{&mem_ops}, OBJS, 3, 0};
    fl_source_options o;
    memset(&o, 0, sizeof o);
    o.io = &m.base;
    fl_source *src = NULL;
    fl_error err;
    CHECK_OK(fl_csv_source_open("mem://b/t/a.csv", &o, &src, &err), &err);
    if (src) {
        CHECK_EQ_INT(fl_source_schema(src)->nfields, 2);
        CHECK_EQ_STR(fl_source_schema(src)->fields[1].name, "name");
        CHECK_EQ_INT(drain(src, &err), 3);
        fl_source_close(src);
    }
    src = NULL;
    CHECK_OK(fl_jsonl_source_open("mem://b/t/d.jsonl", &o, &src, &err), &err);
    if (src) {
        CHECK_EQ_INT(fl_source_schema(src)->nfields, 2);
        CHECK_EQ_INT(drain(src, &err), 2);
        fl_source_close(src);
    }
    CHECK_EQ_INT(m.opens, 2);
    CHECK(fl_csv_source_open("mem://b/t/none.csv", &o, &src, &err) == FL_ENOTFOUND);
    CHECK(fl_jsonl_source_open("mem://b/t/none.jsonl", &o, &src, &err) == FL_ENOTFOUND);
    /* without a FileIO the path is a local one, and there is no such file */
    CHECK(fl_csv_source_open("mem://b/t/a.csv", NULL, &src, &err) == FL_ENOTFOUND);
}

/* A CSV of about 3 MiB: records cross the 1 MiB read chunks. */
static char *big_csv(size_t *len, long *rows)
{
    size_t cap = 4u << 20, n = 0;
    char *p = malloc(cap);
    if (!p)
        return NULL;
    n += (size_t)snprintf(p, cap, "id,text\n");
    long r = 0;
    while (n < (3u << 20))
        n += (size_t)snprintf(p + n, cap - n, "%ld,\"line %ld, quoted\nwith a newline\"\n", r, r),
            r++;
    *len = n;
    *rows = r;
    return p;
}

static void test_faults_are_reported(void)
{
    size_t len;
    long rows;
    char *big = big_csv(&len, &rows);
    CHECK(big != NULL);
    if (!big)
        return;
    mem_obj objs[] = {{"mem://big.csv", big, len}, {"mem://d.jsonl", JSONL, sizeof JSONL - 1}};
    memio m = {{&mem_ops}, objs, 2, 0};
    fl_fileio *faulty = fl_fileio_faulty(&m.base, NULL);
    CHECK(faulty != NULL);
    if (!faulty) {
        free(big);
        return;
    }
    fl_source_options o;
    memset(&o, 0, sizeof o);
    o.io = faulty;
    fl_error err;
    fl_source *src = NULL;
    CHECK_OK(fl_csv_source_open("mem://big.csv", &o, &src, &err), &err);
    CHECK_EQ_INT(src ? drain(src, &err) : -1, rows);
    fl_source_close(src);
    fl_fault_counts c;
    fl_faulty_counts(faulty, &c);
    CHECK_EQ_INT(c.opens, 1);
    uint64_t chunks = (len + (1u << 20) - 1) >> 20;
    CHECK_EQ_INT(c.reads, chunks); /* 1 MiB reads, each byte read once */
    CHECK(chunks >= 3);
    /* every read failure surfaces as the injected error, at open or in a batch */
    for (uint64_t n = 1; n <= chunks; n++) {
        fl_fault_plan plan = {.fail_read_n = n};
        fl_faulty_set_plan(faulty, &plan);
        src = NULL;
        fl_status rc = fl_csv_source_open("mem://big.csv", &o, &src, &err);
        long got = rc == FL_OK ? drain(src, &err) : -1;
        fl_source_close(src);
        CHECK_EQ_INT(got, -1);
        CHECK_EQ_INT(err.code, FL_EIO);
    }
    fl_fault_plan open_fails = {.fail_open_n = 1};
    fl_faulty_set_plan(faulty, &open_fails);
    CHECK(fl_jsonl_source_open("mem://d.jsonl", &o, &src, &err) == FL_EIO);
    fl_fault_plan read_fails = {.fail_read_n = 1};
    fl_faulty_set_plan(faulty, &read_fails);
    CHECK(fl_jsonl_source_open("mem://d.jsonl", &o, &src, &err) == FL_EIO);
    fl_faulty_set_plan(faulty, NULL);
    src = NULL;
    CHECK_OK(fl_jsonl_source_open("mem://d.jsonl", &o, &src, &err), &err);
    CHECK_EQ_INT(src ? drain(src, &err) : -1, 2);
    fl_source_close(src);
    fl_fileio_destroy(faulty);
    free(big);
}

static void test_sql_reads_through_session_fileio(void)
{
    memio m = {{&mem_ops}, OBJS, 3, 0};
    fl_sql_options o;
    memset(&o, 0, sizeof o);
    o.io = &m.base;
    o.threads = 1;
    fl_sql_session *s = NULL;
    fl_error err;
    CHECK_OK(fl_sql_session_open(&o, &s, &err), &err);
    if (!s)
        return;
    ft_expect(s, "SELECT count(*), max(id), min(name) FROM read_csv('mem://b/t/*.csv')", ";",
              "4|4|v;");
    ft_expect(s, "SELECT name FROM read_csv('mem://b/t/a.csv') WHERE id = 2", ";", "y,z;");
    ft_expect(s, "SELECT s FROM read_json('mem://b/t/d.jsonl') j WHERE j.k = 2", ";", "q;");
    char out[256];
    CHECK_EQ_INT(
        ft_run(s, "SELECT * FROM read_csv('mem://b/t/none*.csv')", ";", out, sizeof out, &err),
        FL_ENOTFOUND);
    CHECK(m.opens >= 4);
    fl_sql_session_close(s);
}

int main(void)
{
    TEST_RUN(test_sources_on_memory_fileio);
    TEST_RUN(test_faults_are_reported);
    TEST_RUN(test_sql_reads_through_session_fileio);
    return TEST_EXIT();
}
