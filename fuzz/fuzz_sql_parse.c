/*
 * fuzz_sql_parse.c - arbitrary bytes as SQL text through the front end:
 * the script splitter, then for each statement the pre-lexer (lakehouse
 * syntax), libpg_query, the binder and the planner (fl_sql_prepare plans a
 * query without running it). Nothing executes, so a valid but expensive
 * query cannot hang the target; the grammar-driven fuzzer
 * (fuzz_sql_grammar.c) covers execution.
 *
 * Property checked besides "no crash/leak/UB": a failure leaves a SQLSTATE
 * of five characters, and a reported position lies inside the statement.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "floe/sql.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 8192)
        return 0;
    char *sql = malloc(size + 1);
    if (!sql)
        return 0;
    memcpy(sql, data, size);
    sql[size] = 0;
    fl_error err;
    fl_sql_session *s = NULL;
    if (fl_sql_session_open(NULL, &s, &err) != FL_OK) {
        free(sql);
        return 0;
    }
    uint32_t *starts = NULL, *lens = NULL, n = 0;
    if (fl_sql_split(sql, &starts, &lens, &n, &err) == FL_OK) {
        for (uint32_t i = 0; i < n && i < 8; i++) {
            if (starts[i] > size || lens[i] > size - starts[i])
                __builtin_trap(); /* the splitter returned a range outside the input */
            char *one = strndup(sql + starts[i], lens[i]);
            if (!one)
                break;
            fl_sql_stmt *st = NULL;
            if (fl_sql_prepare(s, one, &st, &err) == FL_OK) {
                (void)fl_sql_stmt_nparams(st);
                (void)fl_sql_stmt_schema(st);
                fl_sql_stmt_close(st);
            } else {
                fl_sql_error_info info;
                fl_sql_last_error(s, &info);
                if (strlen(info.sqlstate) != 5)
                    __builtin_trap();
                if (info.position < 0 || (size_t)info.position > strlen(one) + 1)
                    __builtin_trap();
            }
            free(one);
        }
        free(starts);
        free(lens);
    }
    fl_sql_session_close(s);
    free(sql);
    return 0;
}
