/*
 * fuzz_sql_depth.c - deep nesting through the SQL front end (issue 14,
 * "resource limits that hold"; src/sql/parse/depth.h).
 *
 * The input is a small program that builds one statement, so short inputs
 * reach any depth: bytes 0-1 are a repeat count n (little endian, at most
 * 12,000), the rest is up to five parts separated by NUL bytes:
 *   prefix, open, core, close, suffix  ->  prefix + open*n + core + close*n + suffix
 * ("SELECT ", "ARRAY[", "1", "]", "" gives n nested ARRAYs; an empty close
 * gives a chain: "SELECT 1", "+1", ...). The statement goes through
 * pgwire's classifier (pgw_classify, libpg_query's JSON), fl_sql_prepare
 * (pre-lexer, the guarded protobuf parse, the binder, the planner) and,
 * when it prepares, a bounded run (statement_timeout 200 ms, memory_limit
 * 32 MB, the first batches only), so every recursive pass meets it on the
 * fuzzer's own stack (8 MiB main thread).
 *
 * Properties besides "no crash, overflow, leak or UB":
 *   - a failure has a five-character SQLSTATE and a position inside the
 *     statement; "statement too complex" is 54001 and never a crash;
 *   - the classifier never calls a statement empty that the engine does
 *     not (the silent EmptyQueryResponse of 1,200-term sums), and what it
 *     could not load it explains as "statement too complex".
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "floe/sql.h"
#include "pgwire/pgw.h"
#include "sql/parse/depth.h"

#define MAX_REPEAT 12000
#define MAX_SQL (1u << 20)

static char *build(const uint8_t *data, size_t size, uint32_t *reps)
{
    if (size < 2)
        return NULL;
    uint32_t n = ((uint32_t)data[0] | (uint32_t)data[1] << 8) % (MAX_REPEAT + 1);
    const char *part[5] = {"", "", "", "", ""};
    size_t len[5] = {0, 0, 0, 0, 0};
    size_t p = 2;
    for (int k = 0; k < 5 && p <= size; k++) {
        const uint8_t *z = memchr(data + p, 0, size - p);
        size_t e = z ? (size_t)(z - data) : size;
        part[k] = (const char *)data + p;
        len[k] = e - p;
        p = e + 1;
    }
    size_t total = len[0] + len[2] + len[4] + (size_t)n * (len[1] + len[3]) + 1;
    if (total > MAX_SQL)
        return NULL;
    char *sql = malloc(total);
    if (!sql)
        return NULL;
    size_t o = 0;
    memcpy(sql + o, part[0], len[0]), o += len[0];
    for (uint32_t i = 0; i < n; i++)
        memcpy(sql + o, part[1], len[1]), o += len[1];
    memcpy(sql + o, part[2], len[2]), o += len[2];
    for (uint32_t i = 0; i < n; i++)
        memcpy(sql + o, part[3], len[3]), o += len[3];
    memcpy(sql + o, part[4], len[4]), o += len[4];
    sql[o] = 0;
    if (strlen(sql) != o) { /* a NUL inside a part: not a statement */
        free(sql);
        return NULL;
    }
    *reps = n;
    return sql;
}

static void check_error(fl_sql_session *s, const char *sql, const fl_error *err)
{
    fl_sql_error_info info;
    fl_sql_last_error(s, &info);
    if (strlen(info.sqlstate) != 5)
        __builtin_trap();
    if (info.position < 0 || (size_t)info.position > strlen(sql) + 1)
        __builtin_trap();
    if (strstr(err->msg, "statement too complex") && strcmp(info.sqlstate, "54001") != 0)
        __builtin_trap();
}

static void run_briefly(fl_sql_stmt *st)
{
    fl_sql_result *r = NULL;
    fl_error err;
    if (fl_sql_stmt_nparams(st) || fl_sql_stmt_execute(st, NULL, 0, &r, &err) != FL_OK)
        return;
    for (int b = 0; b < 4; b++) {
        const fl_batch *batch;
        bool eof = false;
        if (fl_sql_result_next(r, &batch, &eof, &err) != FL_OK || eof)
            break;
    }
    fl_sql_result_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint32_t reps = 0;
    char *sql = build(data, size, &reps);
    if (!sql)
        return 0;
    pgw_class *k = calloc(1, sizeof *k);
    if (k)
        pgw_classify(sql, k);
    fl_sql_options o;
    memset(&o, 0, sizeof o);
    o.threads = 1;
    o.memory_limit = 32u << 20;
    o.statement_timeout_ms = 200;
    fl_sql_session *s = NULL;
    fl_error err;
    if (fl_sql_session_open(&o, &s, &err) == FL_OK) {
        fl_sql_stmt *st = NULL;
        if (fl_sql_prepare(s, sql, &st, &err) == FL_OK) {
            if (k && k->kind == PGW_K_EMPTY) /* classified empty, yet it prepared */
                __builtin_trap();
            run_briefly(st);
            fl_sql_stmt_close(st);
        } else {
            check_error(s, sql, &err);
        }
        fl_sql_session_close(s);
    }
    free(k);
    free(sql);
    return 0;
}
