/*
 * cube_answer.c - the rest of a Cube query (sem_cube.h): its order (given
 * as an object or an array of pairs; by default Cube's: the first time
 * dimension ascending, else the first measure descending), limit (10,000 by
 * default, at most 50,000) and offset, and the JSON Cube answers with
 * besides the rows: the normalized query and the annotation (titles and
 * types of every member asked for).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "semantic/cube_query.h"

/* The order_by name of member key, or NULL when the query does not group by it. */
static const char *order_name(fl_sem_cube_query *q, const char *key)
{
    for (uint32_t i = 0; i < q->ncols; i++) {
        const fl_sem_cube_column *col = &q->cols[i];
        if (!strcmp(col->key, key) || (col->alias && !strcmp(col->alias, key)))
            return col->column;
    }
    return NULL;
}

static fl_status add_order(cube_ctx *c, fl_sem_cube_query *q, const char *key, const char *dir,
                           fl_error *err)
{
    const char *name = order_name(q, key);
    if (!name)
        return fl_errorf(err, FL_EINVAL, "order: '%s' is not a measure or dimension of the query",
                         key);
    if (!dir || (strcmp(dir, "asc") && strcmp(dir, "desc")))
        return fl_errorf(err, FL_EINVAL, "order of '%s' must be \"asc\" or \"desc\"", key);
    if (q->sem.norder_by == CUBE_MAX_MEMBERS)
        return fl_errorf(err, FL_ELIMIT, "order: more than %d members", CUBE_MAX_MEMBERS);
    q->order_by[q->sem.norder_by++] =
        strcmp(dir, "desc") ? name : fl_arena_sprintf(c->a, "-%s", name);
    return FL_OK;
}

static fl_status order(cube_ctx *c, fl_sem_cube_query *q, json_t *o, fl_error *err)
{
    if (json_is_object(o)) {
        const char *key;
        json_t *v;
        json_object_foreach(o, key, v) FL_TRY(add_order(c, q, key, json_string_value(v), err));
        return FL_OK;
    }
    if (json_is_array(o)) {
        for (size_t i = 0; i < json_array_size(o); i++) {
            json_t *pair = json_array_get(o, i);
            if (!json_is_array(pair) || json_array_size(pair) != 2 ||
                !json_is_string(json_array_get(pair, 0)))
                return fl_errorf(err, FL_EINVAL, "order[%zu] must be [member, \"asc\"|\"desc\"]",
                                 i);
            FL_TRY(add_order(c, q, json_string_value(json_array_get(pair, 0)),
                             json_string_value(json_array_get(pair, 1)), err));
        }
        return FL_OK;
    }
    if (o && !json_is_null(o))
        return fl_errorf(err, FL_EINVAL, "order must be an object or an array of pairs");
    for (uint32_t i = 0; i < q->ncols; i++) /* Cube's default */
        if (q->cols[i].kind == FL_SEM_CUBE_TIME)
            return add_order(c, q, q->cols[i].key, "asc", err);
    for (uint32_t i = 0; i < q->ncols; i++)
        if (q->cols[i].kind == FL_SEM_CUBE_MEASURE)
            return add_order(c, q, q->cols[i].key, "desc", err);
    return FL_OK;
}

static fl_status limits(fl_sem_cube_query *q, json_t *root, fl_error *err)
{
    json_t *l = json_object_get(root, "limit"), *off = json_object_get(root, "offset");
    int64_t limit = CUBE_DEFAULT_LIMIT;
    if (l && !json_is_null(l)) {
        if (!json_is_integer(l) || json_integer_value(l) < 1 ||
            json_integer_value(l) > CUBE_MAX_LIMIT)
            return fl_errorf(err, FL_EINVAL, "limit must be an integer from 1 to %d",
                             CUBE_MAX_LIMIT);
        limit = json_integer_value(l);
    }
    if (off && !json_is_null(off)) {
        if (!json_is_integer(off) || json_integer_value(off) < 0 ||
            json_integer_value(off) > 10000000)
            return fl_errorf(err, FL_EINVAL, "offset must be an integer from 0 to 10000000");
        q->offset = json_integer_value(off);
    }
    q->sem.limit = limit + q->offset;
    q->total = json_is_true(json_object_get(root, "total"));
    return FL_OK;
}

static json_t *annotation_of(const fl_sem_cube_query *q)
{
    json_t *ann = json_pack("{s:{}, s:{}, s:{}, s:{}}", "measures", "dimensions", "segments",
                            "timeDimensions");
    for (uint32_t i = 0; ann && i < q->ncols; i++) {
        const fl_sem_cube_column *col = &q->cols[i];
        const char *member = strchr(col->alias ? col->alias : col->key, '.') + 1;
        char title[256], full[300];
        sem_cube_title(member, title, sizeof title);
        snprintf(full, sizeof full, "Metrics %s", title);
        const char *group = col->kind == FL_SEM_CUBE_MEASURE     ? "measures"
                            : col->kind == FL_SEM_CUBE_DIMENSION ? "dimensions"
                                                                 : "timeDimensions";
        const char *type = col->kind == FL_SEM_CUBE_MEASURE     ? "number"
                           : col->kind == FL_SEM_CUBE_DIMENSION ? "string"
                                                                : "time";
        json_t *g = json_object_get(ann, group);
        json_object_set_new(
            g, col->key,
            json_pack("{s:s, s:s, s:s}", "title", full, "shortTitle", title, "type", type));
        if (col->alias)
            json_object_set_new(
                g, col->alias,
                json_pack("{s:s, s:s, s:s}", "title", full, "shortTitle", title, "type", type));
    }
    return ann;
}

fl_status cube_finish(cube_ctx *c, fl_sem_cube_query *q, json_t *root, fl_error *err)
{
    FL_TRY(order(c, q, json_object_get(root, "order"), err));
    FL_TRY(limits(q, root, err));
    json_t *echo = json_deep_copy(root);
    json_t *ann = annotation_of(q);
    if (echo) {
        const char *const keys[] = {"measures", "dimensions", "timeDimensions", "filters",
                                    "segments"};
        for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
            if (!json_object_get(echo, keys[i]))
                json_object_set_new(echo, keys[i], json_array());
        json_object_set_new(echo, "limit", json_integer(q->sem.limit - q->offset));
        json_object_set_new(echo, "timezone", json_string(q->timezone));
        q->query_json = json_dumps(echo, JSON_COMPACT | JSON_PRESERVE_ORDER);
    }
    if (ann)
        q->annotation_json = json_dumps(ann, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(echo);
    json_decref(ann);
    if (!q->query_json || !q->annotation_json)
        return fl_errorf(err, FL_ENOMEM, "cube: out of memory");
    return FL_OK;
}

const fl_sem_query *fl_sem_cube_query_sem(const fl_sem_cube_query *q)
{
    return &q->sem;
}

uint32_t fl_sem_cube_ncolumns(const fl_sem_cube_query *q)
{
    return q->ncols;
}

const fl_sem_cube_column *fl_sem_cube_column_at(const fl_sem_cube_query *q, uint32_t i)
{
    return i < q->ncols ? &q->cols[i] : NULL;
}

int64_t fl_sem_cube_offset(const fl_sem_cube_query *q)
{
    return q->offset;
}

bool fl_sem_cube_wants_total(const fl_sem_cube_query *q)
{
    return q->total;
}

const char *fl_sem_cube_timezone(const fl_sem_cube_query *q)
{
    return q->timezone;
}

const char *fl_sem_cube_query_json(const fl_sem_cube_query *q)
{
    return q->query_json;
}

const char *fl_sem_cube_annotation_json(const fl_sem_cube_query *q)
{
    return q->annotation_json;
}
