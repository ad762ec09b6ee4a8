/*
 * stmt_opts.h - Trino-style table options of CREATE TABLE ... WITH (...)
 * and ALTER TABLE ... SET (...) / RESET (...) (ddl_table.c parses them,
 * ddl_alter.c applies them to an existing table).
 */
#ifndef FLOE_SQL_STMT_OPTS_H
#define FLOE_SQL_STMT_OPTS_H

#include "sql/stmt/stmt_int.h"

typedef struct stmt_table_opts {
    const char *const *parts; /* partitioning items: "day(ts)", "bucket(16, id)" */
    uint32_t nparts;
    bool set_parts; /* partitioning given (possibly empty: unpartitioned) */
    const char *const *sorts; /* sorted_by items: "id DESC" */
    uint32_t nsorts;
    bool set_sorts;
    fl_ice_kv *props; /* other keys, verbatim; format_version as format-version */
    uint32_t nprops, cap;
    const char **remove; /* RESET: property keys to remove */
    uint32_t nremove;
    const char *location;
    /* CREATE TABLE column DEFAULTs (JSON per column, NULL entries), or NULL */
    const char *const *write_defaults;
} stmt_table_opts;

/* Parses DefElem options; reset = the RESET (k, ...) form (names only). */
fl_status stmt_table_options(fl_stmt_ctx *c, PgQuery__Node *const *opts, size_t nopts,
                             bool reset, stmt_table_opts *o, fl_error *err);

#endif
