/*
 * sem_cube.h - Cube's REST API vocabulary over floe's semantic layer
 * (semantic.h): the metadata of /cubejs-api/v1/meta and the queries of
 * /cubejs-api/v1/load and /sql, so Cube's clients (@cubejs-client/core and
 * the tools on it) query floe's metrics.
 *
 * The model is shown as one Cube view named "metrics": every metric is a
 * measure ("metrics.net_revenue"), every dimension a dimension
 * ("metrics.customer__region", type string or time), and metric_time a time
 * dimension ("metrics.metric_time"). A Cube query becomes one semantic
 * query: measures -> metrics, dimensions -> group-by, timeDimensions with a
 * granularity -> group-by <dim>__<granularity> and their dateRange ->
 * filters, filters (equals, notEquals, contains, notContains, startsWith,
 * endsWith, gt, gte, lt, lte, set, notSet, inDateRange, notInDateRange,
 * beforeDate, afterDate; and/or groups) -> where, order, limit and offset;
 * timezone -> the session's time zone.
 * Filter values become quoted SQL literals; a value holding "{{" or "}}"
 * (template syntax) or a NUL is refused. Errors name the member or key.
 *
 * Ownership: a parsed query owns its strings; fl_sem_cube_query_sem points
 * into it and is valid until fl_sem_cube_free. JSON texts are malloc'd.
 */
#ifndef FLOE_SEM_CUBE_H
#define FLOE_SEM_CUBE_H

#include "floe/export.h"

#include <stdbool.h>
#include <stdint.h>

#include "floe/error.h"
#include "floe/semantic.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FL_SEM_CUBE_NAME "metrics"

typedef enum fl_sem_cube_kind {
    FL_SEM_CUBE_MEASURE = 1,
    FL_SEM_CUBE_DIMENSION = 2,
    FL_SEM_CUBE_TIME = 3, /* a time dimension with a granularity */
} fl_sem_cube_kind;

/* One member of the answer's rows: which result column it is read from. */
typedef struct fl_sem_cube_column {
    fl_sem_cube_kind kind;
    const char *key;    /* "metrics.net_revenue", "metrics.metric_time.month" */
    const char *alias;  /* time dimensions: also "metrics.metric_time"; else NULL */
    const char *column; /* the semantic result's column: "net_revenue", "metric_time__month" */
} fl_sem_cube_column;

typedef struct fl_sem_cube_query fl_sem_cube_query;

/* Parses a Cube query (the JSON object of "query") against m. */
FL_API fl_status fl_sem_cube_parse(const fl_sem_model *m, const char *json, size_t len,
                                   fl_sem_cube_query **out, fl_error *err);
FL_API void fl_sem_cube_free(fl_sem_cube_query *q); /* NULL allowed */
FL_API const fl_sem_query *fl_sem_cube_query_sem(const fl_sem_cube_query *q);
FL_API uint32_t fl_sem_cube_ncolumns(const fl_sem_cube_query *q);
FL_API const fl_sem_cube_column *fl_sem_cube_column_at(const fl_sem_cube_query *q, uint32_t i);
FL_API int64_t fl_sem_cube_offset(const fl_sem_cube_query *q); /* rows to skip */
FL_API bool fl_sem_cube_wants_total(const fl_sem_cube_query *q);
/* The query's "timezone" (IANA name; "UTC" when absent): the session's time
 * zone, in which time dimensions of timestamptz columns are truncated. */
FL_API const char *fl_sem_cube_timezone(const fl_sem_cube_query *q);
/* The query as Cube echoes it back (normalized: every key present). */
FL_API const char *fl_sem_cube_query_json(const fl_sem_cube_query *q);
/* {"measures": {...}, "dimensions": {...}, "segments": {}, "timeDimensions": {...}} */
FL_API const char *fl_sem_cube_annotation_json(const fl_sem_cube_query *q);

/* The body of /cubejs-api/v1/meta for m (malloc'd into *json). */
FL_API fl_status fl_sem_cube_meta_json(const fl_sem_model *m, char **json, fl_error *err);

#ifdef __cplusplus
}
#endif
#endif
