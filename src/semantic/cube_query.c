/*
 * cube_query.c - a Cube REST query (sem_cube.h) as a semantic query:
 * members, time dimensions with granularities and date ranges, order,
 * limit and offset; filters are cube_filter.c's. Also the normalized query
 * and the annotation Cube answers with. Everything the parse makes lives in
 * the query's arena.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "semantic/cube_query.h"

static const char *const grains[] = {"day", "week", "month", "quarter", "year"};

fl_status cube_member_name(cube_ctx *c, const char *member, const char *where, const char **name,
                           fl_error *err)
{
    size_t n = strlen(FL_SEM_CUBE_NAME);
    if (strncmp(member, FL_SEM_CUBE_NAME, n) || member[n] != '.' || !member[n + 1])
        return fl_errorf(err, FL_ENOTFOUND,
                         "%s: '%s' is not a member of %s (members are %s.<name>)", where, member,
                         FL_SEM_CUBE_NAME, FL_SEM_CUBE_NAME);
    *name = fl_arena_strdup(c->a, member + n + 1);
    return *name ? FL_OK : fl_errorf(err, FL_ENOMEM, "cube: out of memory");
}

const char *cube_day(const char *v, char *buf, size_t cap)
{
    snprintf(buf, cap, "%.10s", v);
    return buf;
}

static fl_status add_col(fl_sem_cube_query *q, fl_sem_cube_kind kind, const char *key,
                         const char *alias, const char *column, fl_error *err)
{
    if (q->ncols == sizeof q->cols / sizeof q->cols[0])
        return fl_errorf(err, FL_ELIMIT, "cube: more than %u members", CUBE_MAX_MEMBERS);
    q->cols[q->ncols++] = (fl_sem_cube_column){kind, key, alias, column};
    return FL_OK;
}

static fl_status strings_of(json_t *arr, const char *what, fl_error *err)
{
    if (arr && !json_is_array(arr))
        return fl_errorf(err, FL_EINVAL, "\"%s\" must be an array of member names", what);
    for (size_t i = 0; arr && i < json_array_size(arr); i++)
        if (!json_is_string(json_array_get(arr, i)))
            return fl_errorf(err, FL_EINVAL, "%s[%zu] must be a member name (a string)", what, i);
    if (arr && json_array_size(arr) > CUBE_MAX_MEMBERS)
        return fl_errorf(err, FL_ELIMIT, "\"%s\" names more than %d members", what,
                         CUBE_MAX_MEMBERS);
    return FL_OK;
}

static fl_status measures(cube_ctx *c, fl_sem_cube_query *q, json_t *arr, fl_error *err)
{
    FL_TRY(strings_of(arr, "measures", err));
    for (size_t i = 0; arr && i < json_array_size(arr); i++) {
        const char *key = json_string_value(json_array_get(arr, i)), *name = NULL;
        FL_TRY(cube_member_name(c, key, "measures", &name, err));
        if (!sem_cube_member(c->m, FL_SEM_METRIC, name))
            return fl_errorf(err, FL_ENOTFOUND, "measure '%s': no metric '%s' in the model", key,
                             name);
        q->metrics[q->sem.nmetrics++] = name;
        FL_TRY(add_col(q, FL_SEM_CUBE_MEASURE, fl_arena_strdup(c->a, key), NULL, name, err));
    }
    return FL_OK;
}

static fl_status dimensions(cube_ctx *c, fl_sem_cube_query *q, json_t *arr, fl_error *err)
{
    FL_TRY(strings_of(arr, "dimensions", err));
    for (size_t i = 0; arr && i < json_array_size(arr); i++) {
        const char *key = json_string_value(json_array_get(arr, i)), *name = NULL;
        FL_TRY(cube_member_name(c, key, "dimensions", &name, err));
        if (!strcmp(name, "metric_time"))
            return fl_errorf(err, FL_EINVAL,
                             "dimension '%s': put metric_time in timeDimensions "
                             "with a granularity",
                             key);
        if (!sem_cube_member(c->m, FL_SEM_DIMENSION, name))
            return fl_errorf(err, FL_ENOTFOUND, "dimension '%s': no dimension '%s' in the model",
                             key, name);
        q->group_by[q->sem.ngroup_by++] = name;
        FL_TRY(add_col(q, FL_SEM_CUBE_DIMENSION, fl_arena_strdup(c->a, key), NULL, name, err));
    }
    return FL_OK;
}

static fl_status date_range(cube_ctx *c, fl_sem_cube_query *q, const char *name, json_t *given,
                            fl_error *err)
{
    json_t *range = given;
    if (json_is_string(given)) { /* "last 7 days": two dates now (cube_dates.c) */
        char from[16], to[16];
        FL_TRY(cube_relative_range(json_string_value(given), q->timezone, from, to, err));
        range = json_pack("[s, s]", from, to);
        if (!range)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
    } else {
        json_incref(range);
    }
    if (!json_is_array(range) || json_array_size(range) != 2 ||
        !json_is_string(json_array_get(range, 0)) || !json_is_string(json_array_get(range, 1))) {
        json_decref(range);
        return fl_errorf(err, FL_EINVAL,
                         "dateRange must be [\"from\", \"to\"] or a relative range");
    }
    char key[300];
    snprintf(key, sizeof key, "%s.%s", FL_SEM_CUBE_NAME, name);
    json_t *f =
        json_pack("{s:s, s:s, s:o}", "member", key, "operator", "inDateRange", "values", range);
    fl_buf w;
    fl_buf_init(&w, 1 << 16);
    fl_status rc = f ? cube_filter(c, f, 0, &w, err) : fl_errorf(err, FL_ENOMEM, "out of memory");
    json_decref(f);
    if (rc == FL_OK && q->sem.nwhere == CUBE_MAX_MEMBERS)
        rc = fl_errorf(err, FL_ELIMIT, "cube: more than %d filters", CUBE_MAX_MEMBERS);
    if (rc == FL_OK)
        q->where[q->sem.nwhere++] = fl_arena_strdup(c->a, w.data);
    fl_buf_free(&w);
    return rc;
}

static fl_status time_dim(cube_ctx *c, fl_sem_cube_query *q, json_t *td, size_t i, fl_error *err)
{
    const char *key = json_string_value(json_object_get(td, "dimension")), *name = NULL;
    if (!json_is_object(td) || !key)
        return fl_errorf(err, FL_EINVAL, "timeDimensions[%zu] needs \"dimension\"", i);
    FL_TRY(cube_member_name(c, key, "timeDimensions[].dimension", &name, err));
    if (!sem_cube_is_time(c->m, name))
        return fl_errorf(err, FL_ENOTFOUND, "time dimension '%s': not a time dimension", key);
    if (json_object_get(td, "compareDateRange"))
        return fl_errorf(err, FL_EUNSUPPORTED, "compareDateRange is not supported");
    json_t *range = json_object_get(td, "dateRange");
    if (range && !json_is_null(range))
        FL_TRY(date_range(c, q, name, range, err));
    const char *grain = json_string_value(json_object_get(td, "granularity"));
    if (!grain)
        return FL_OK; /* a filter only */
    bool known = false;
    for (size_t g = 0; g < sizeof grains / sizeof grains[0]; g++)
        known |= !strcmp(grain, grains[g]);
    if (!known)
        return fl_errorf(err, FL_EUNSUPPORTED,
                         "granularity '%s' is not supported (day, week, month, quarter, year)",
                         grain);
    if (q->sem.ngroup_by == CUBE_MAX_MEMBERS)
        return fl_errorf(err, FL_ELIMIT, "cube: more than %d group-by members", CUBE_MAX_MEMBERS);
    const char *col = fl_arena_sprintf(c->a, "%s__%s", name, grain);
    q->group_by[q->sem.ngroup_by++] = col;
    return add_col(q, FL_SEM_CUBE_TIME, fl_arena_sprintf(c->a, "%s.%s", key, grain),
                   fl_arena_strdup(c->a, key), col, err);
}

static fl_status time_dims(cube_ctx *c, fl_sem_cube_query *q, json_t *arr, fl_error *err)
{
    if (arr && !json_is_array(arr))
        return fl_errorf(err, FL_EINVAL, "\"timeDimensions\" must be an array");
    for (size_t i = 0; arr && i < json_array_size(arr); i++)
        FL_TRY(time_dim(c, q, json_array_get(arr, i), i, err));
    return FL_OK;
}

static fl_status filters(cube_ctx *c, fl_sem_cube_query *q, json_t *arr, fl_error *err)
{
    if (arr && !json_is_array(arr))
        return fl_errorf(err, FL_EINVAL, "\"filters\" must be an array");
    for (size_t i = 0; arr && i < json_array_size(arr); i++) {
        if (q->sem.nwhere == CUBE_MAX_MEMBERS)
            return fl_errorf(err, FL_ELIMIT, "cube: more than %d filters", CUBE_MAX_MEMBERS);
        fl_buf w;
        fl_buf_init(&w, 1 << 16);
        fl_status rc = cube_filter(c, json_array_get(arr, i), 0, &w, err);
        if (rc == FL_OK)
            q->where[q->sem.nwhere++] = fl_arena_strdup(c->a, w.data);
        fl_buf_free(&w);
        if (rc != FL_OK)
            return fl_error_prefix(err, "filters[%zu]", i);
    }
    return FL_OK;
}

static fl_status refuse_unsupported(json_t *root, fl_error *err)
{
    json_t *seg = json_object_get(root, "segments");
    if (seg && (!json_is_array(seg) || json_array_size(seg)))
        return fl_errorf(err, FL_EUNSUPPORTED, "segments are not supported");
    if (json_is_true(json_object_get(root, "ungrouped")))
        return fl_errorf(err, FL_EUNSUPPORTED, "ungrouped queries are not supported");
    json_t *tz = json_object_get(root, "timezone");
    if (tz && !json_is_string(tz))
        return fl_errorf(err, FL_EINVAL, "timezone must be an IANA time zone name");
    return FL_OK;
}

static fl_status parse_root(cube_ctx *c, fl_sem_cube_query *q, json_t *root, fl_error *err)
{
    if (json_is_array(root))
        return fl_errorf(err, FL_EUNSUPPORTED,
                         "an array of queries (data blending) is not supported");
    if (!json_is_object(root))
        return fl_errorf(err, FL_EINVAL, "the query must be a JSON object");
    FL_TRY(refuse_unsupported(root, err));
    const char *tz = json_string_value(json_object_get(root, "timezone"));
    q->timezone = fl_arena_strdup(c->a, tz ? tz : "UTC");
    q->sem.metrics = q->metrics;
    q->sem.group_by = q->group_by;
    q->sem.where = q->where;
    q->sem.order_by = q->order_by;
    q->sem.dialect = FL_SEM_DIALECT_FLOE;
    FL_TRY(measures(c, q, json_object_get(root, "measures"), err));
    FL_TRY(dimensions(c, q, json_object_get(root, "dimensions"), err));
    FL_TRY(time_dims(c, q, json_object_get(root, "timeDimensions"), err));
    FL_TRY(filters(c, q, json_object_get(root, "filters"), err));
    if (!q->sem.nmetrics)
        return fl_errorf(err, FL_EINVAL, "the query needs at least one measure (a metric)");
    return cube_finish(c, q, root, err);
}

fl_status fl_sem_cube_parse(const fl_sem_model *m, const char *json, size_t len,
                            fl_sem_cube_query **out, fl_error *err)
{
    *out = NULL;
    json_error_t je;
    json_t *root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return fl_errorf(err, FL_ESYNTAX, "the query is not JSON: %s at offset %d", je.text,
                         je.position);
    fl_sem_cube_query *q = calloc(1, sizeof *q);
    if (!q) {
        json_decref(root);
        return fl_errorf(err, FL_ENOMEM, "cube: out of memory");
    }
    fl_arena_init(&q->a, 4096);
    cube_ctx c = {.m = m, .a = &q->a};
    fl_status rc = parse_root(&c, q, root, err);
    json_decref(root);
    if (rc != FL_OK) {
        fl_sem_cube_free(q);
        return rc;
    }
    *out = q;
    return FL_OK;
}

void fl_sem_cube_free(fl_sem_cube_query *q)
{
    if (!q)
        return;
    free(q->query_json);
    free(q->annotation_json);
    fl_arena_free(&q->a);
    free(q);
}
