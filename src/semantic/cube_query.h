/*
 * cube_query.h - the parse context shared by cube_query.c (the query's
 * members, order, limits) and cube_filter.c (its filters).
 */
#ifndef FLOE_SEMANTIC_CUBE_QUERY_H
#define FLOE_SEMANTIC_CUBE_QUERY_H

#include <jansson.h>

#include "floe/arena.h"
#include "floe/buf.h"
#include "semantic/cube.h"

#define CUBE_MAX_MEMBERS 64
#define CUBE_DEFAULT_LIMIT 10000
#define CUBE_MAX_LIMIT 50000

struct fl_sem_cube_query {
    fl_arena a;
    fl_sem_query sem;
    const char *metrics[CUBE_MAX_MEMBERS], *group_by[CUBE_MAX_MEMBERS];
    const char *where[CUBE_MAX_MEMBERS], *order_by[CUBE_MAX_MEMBERS];
    fl_sem_cube_column cols[2 * CUBE_MAX_MEMBERS];
    uint32_t ncols;
    int64_t offset;
    bool total;
    const char *timezone; /* the session's time zone for the query ("UTC" by default) */
    char *query_json, *annotation_json; /* malloc'd */
};

typedef struct cube_ctx {
    const fl_sem_model *m;
    fl_arena *a;
} cube_ctx;

/* "metrics.x" -> "x" (arena copy); other cubes, or an unqualified name, are errors. */
fl_status cube_member_name(cube_ctx *c, const char *member, const char *where, const char **name,
                           fl_error *err);
/* The date part of an ISO date/time ("2024-01-31T00:00:00.000" -> "2024-01-31") into buf. */
const char *cube_day(const char *v, char *buf, size_t cap);
/* cube_answer.c: order (explicit, else Cube's default), limit and offset,
 * the echoed query and the annotation. */
fl_status cube_finish(cube_ctx *c, fl_sem_cube_query *q, json_t *root, fl_error *err);

/* A relative dateRange ("last 7 days", "this month") as two inclusive dates
 * ("YYYY-MM-DD") in time zone tz, today being the current date there. */
fl_status cube_relative_range(const char *text, const char *tz, char from[16], char to[16],
                              fl_error *err);

/* Appends filter f (a member filter or an and/or group) as one where text. */
fl_status cube_filter(cube_ctx *c, json_t *f, uint32_t depth, fl_buf *out, fl_error *err);

#endif
