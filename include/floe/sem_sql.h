/*
 * sem_sql.h - the semantic layer's SQL API: the model as one relation,
 * semantic.metrics, that Postgres-wire clients (psql, BI tools), floe sql
 * and /v1/sql query with MEASURE():
 *
 *   SELECT customer__region, MEASURE(net_revenue) AS revenue
 *   FROM semantic.metrics
 *   WHERE metric_time__day >= DATE '2024-01-01'
 *   GROUP BY 1 ORDER BY 2 DESC LIMIT 10
 *
 * Its columns are the model's dimensions, named as group-by members are
 * (customer__region, metric_time, metric_time__month; or
 * date_trunc('month', metric_time)), and its metrics, read with MEASURE(m)
 * or with the aggregate of a simple metric's measure (SUM(m) for a sum).
 * The statement becomes one semantic query (fl_sem_compile: dimensions in
 * the select list and GROUP BY are its group-by, WHERE its filters),
 * wrapped in a SELECT that names the columns as asked and applies HAVING,
 * ORDER BY, LIMIT and OFFSET. The result runs as any query does, with the
 * caller's rights on the model's tables: the rewrite grants nothing.
 *
 * Errors carry a SQLSTATE (42703 unknown member, 42803 grouping, 0A000
 * what the API does not take) and the position of the offending item.
 *
 * Ownership: the handle borrows the model (which must outlive it) and owns
 * the relation's column list; the rewritten text is malloc'd. Thread-safe.
 */
#ifndef FLOE_SEM_SQL_H
#define FLOE_SEM_SQL_H

#include "floe/export.h"

#include <stdint.h>

#include "floe/error.h"
#include "floe/semantic.h"
#include "floe/sql.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FL_SEM_SQL_SCHEMA "semantic"
#define FL_SEM_SQL_TABLE "metrics"

typedef struct fl_sem_sql fl_sem_sql;

FL_API fl_status fl_sem_sql_new(const fl_sem_model *m, fl_sem_sql **out, fl_error *err);
FL_API void fl_sem_sql_free(fl_sem_sql *h); /* NULL allowed */
/* Sets the catalog types of semantic.metrics' columns to those of the
 * answers (numeric for a sum of decimals, date for a day dimension...) by
 * planning a query per member on s; members that do not plan (a table not
 * created yet) keep text / timestamp / double precision. Call before the
 * extension is handed to sessions (the columns are read without locks). */
FL_API fl_status fl_sem_sql_resolve_types(fl_sem_sql *h, fl_sql_session *s, fl_error *err);
/* The session extension (fl_sql_options.extension): the rewriter and
 * semantic.metrics for pg_catalog / information_schema. Owned by h. */
FL_API const fl_sql_extension *fl_sem_sql_extension(const fl_sem_sql *h);
/* A statement over semantic.metrics as the SQL to run (*out, malloc'd);
 * any other statement: FL_OK with *out NULL. *position: see fl_sql_extension. */
FL_API fl_status fl_sem_sql_rewrite(const fl_sem_sql *h, const char *sql, char **out,
                                    int32_t *position, fl_error *err);

#ifdef __cplusplus
}
#endif
#endif
