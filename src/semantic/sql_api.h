/*
 * sql_api.h - the statement being rewritten by the SQL API (sem_sql.h),
 * shared by sql_api.c (the statement's shape, the select list, the wrapper)
 * and sql_expr.c (expressions: members, MEASURE(), operators, literals).
 * Everything lives in the context's arena; the parse tree is jansson's
 * (libpg_query's JSON form), owned by the caller of the rewrite.
 */
#ifndef FLOE_SEMANTIC_SQL_API_H
#define FLOE_SEMANTIC_SQL_API_H

#include <jansson.h>

#include "floe/arena.h"
#include "floe/buf.h"
#include "floe/sem_sql.h"
#include "semantic/model.h"

#define SQ_MAX 64 /* metrics, group-by members, filters, output columns */

typedef struct sq_ctx {
    const fl_sem_model *m;
    fl_arena *a;
    fl_error *err;
    int32_t pos;       /* 1-based position of the error; 0 = none */
    const char *alias; /* FROM semantic.metrics <alias>; NULL = none */
    const char *metrics[SQ_MAX], *group_by[SQ_MAX], *where[SQ_MAX];
    uint32_t nmetrics, ngroup_by, nwhere;
    bool grouped;   /* the statement has GROUP BY (dimensions must be in it) */
    size_t hole;    /* offset in the wrapper where the compiled query goes */
    fl_buf explain; /* "EXPLAIN (...) " when the statement explains the query, else empty */
} sq_ctx;

/* Where an expression is written: a filter of the semantic query (members
 * become {{ Dimension('x') }}; metrics are refused) or the wrapper over
 * the compiled query (members and metrics become q."name"). */
typedef enum sq_mode { SQ_FILTER = 1, SQ_OUTER = 2 } sq_mode;

/* n's "location" as a 1-based position (0 when it has none). */
int32_t sq_pos(json_t *n);
/* An error with a SQLSTATE at node n's position. */
fl_status sq_fail(sq_ctx *c, json_t *n, const char *sqlstate, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The member a column reference, date_trunc('grain', column) or MEASURE()
 * names: *metric true for a metric (MEASURE(m) or agg(m)), else a group-by
 * name. *name NULL when n is none of those. */
fl_status sq_member(sq_ctx *c, json_t *n, const char **name, bool *metric);
/* Adds a metric / group-by member once. */
fl_status sq_add_metric(sq_ctx *c, json_t *at, const char *name);
fl_status sq_add_group(sq_ctx *c, json_t *at, const char *name);
/* Appends n as SQL text in mode to out. */
fl_status sq_expr(sq_ctx *c, json_t *n, sq_mode mode, fl_buf *out);
/* "name" with embedded quotes doubled. */
fl_status sq_ident(sq_ctx *c, const char *name, fl_buf *out);

#endif
