/*
 * fuzz_sem_sql.c - libFuzzer target for the semantic layer's SQL API
 * (include/floe/sem_sql.h): arbitrary statement text, rewritten against
 * the fixture model (fuzz_sem_sql.dict holds its member names and the
 * SQL words it takes).
 *
 * Properties besides "no crash, leak or UB": a failure carries a message
 * and a position inside the text (or none) and no output; a rewrite is
 * SQL that PostgreSQL's grammar accepts and, unless the text itself held
 * braces (string literals of the select list are data in the wrapper),
 * no template braces (every {{ Dimension() }} was compiled); a text that
 * does not name the relation is never rewritten.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "floe/sem_sql.h"
#include "fuzz_sem_fixture.h"

static fl_sem_sql *api(void)
{
    static fl_sem_sql *h; /* made once per fuzzing process */
    fl_error err = {0};
    if (!h && fl_sem_sql_new(model(), &h, &err) != FL_OK)
        abort();
    return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 1 << 16)
        return 0;
    char *sql = malloc(size + 1);
    if (!sql)
        return 0;
    memcpy(sql, data, size);
    sql[size] = 0;
    char *out = NULL;
    int32_t pos = -1;
    fl_error err = {0};
    fl_status rc = fl_sem_sql_rewrite(api(), sql, &out, &pos, &err);
    if (rc != FL_OK) {
        if (!err.msg[0] || out || pos < 0 || (size_t)pos > size + 1)
            abort();
    } else if (out) {
        char *tree = NULL;
        fl_error perr = {0};
        if (!strcasestr(sql, FL_SEM_SQL_TABLE))
            abort(); /* rewritten without naming the relation */
        if (fl_sql_pg_parse_json(out, &tree, &perr) != FL_OK && perr.code != FL_ELIMIT)
            abort();
        bool braces_in = strstr(sql, "{{") || strstr(sql, "}}"); /* data in the wrapper */
        if (!braces_in && (strstr(out, "{{") || strstr(out, "}}")))
            abort();
        free(tree);
    }
    free(out);
    free(sql);
    return 0;
}
