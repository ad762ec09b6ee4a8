/*
 * fuzz_sql_grammar.c - grammar-based SQL fuzzing: the input bytes drive
 * every choice of the random-query generator (tests/sql/sqlgen.h: SELECTs
 * with joins, subqueries, CTEs, window functions, set operations,
 * GROUP BY/HAVING, ORDER BY/LIMIT, casts, functions, NULLs and edge
 * literals over three small VALUES tables), and the statement runs to the
 * end on one session (1 thread, a small memory_limit so spilling paths run
 * too, statement_timeout 5 s against hangs). Errors are expected and
 * ignored; crashes, sanitizer reports, leaks and timeouts are findings.
 * The session is opened once per process (the only static state).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tests/sql/sqlgen.h"
#include "floe/sql.h"

static fl_sql_session *session;

static void run(const char *sql)
{
    fl_error err;
    fl_sql_result *r = NULL;
    if (fl_sql_execute(session, sql, &r, &err) != FL_OK)
        return;
    for (;;) {
        const fl_batch *b;
        bool eof;
        if (fl_sql_result_next(r, &b, &eof, &err) != FL_OK || eof)
            break;
        uint32_t live = b->sel ? b->sel->count : b->nrows;
        for (uint32_t i = 0; i < live && i < 16; i++)
            for (uint32_t c = 0; c < b->ncols; c++) {
                char v[256];
                fl_sql_format_value(&b->cols[c], b->sel ? b->sel->idx[i] : i, "UTC", v, sizeof v);
            }
    }
    fl_sql_result_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    if (!session) {
        fl_sql_options o = {0};
        o.threads = 1;
        o.memory_limit = (uint64_t)32 << 20;
        fl_error err;
        if (fl_sql_session_open(&o, &session, &err) != FL_OK)
            abort();
        run("SET statement_timeout = '5s'");
    }
    static char sql[32768];
    sg_gen g;
    memset(&g, 0, sizeof g);
    g.data = data;
    g.len = size;
    sqlgen_statement(&g, sql, sizeof sql);
    if (getenv("FUZZ_SQL_PRINT"))
        fprintf(stderr, "%s\n", sql);
    run(sql);
    return 0;
}
