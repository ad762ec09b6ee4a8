/*
 * cube_filter.c - Cube filters as semantic-layer where filters
 * (sem_cube.h): {"member", "operator", "values"} and {"and"|"or": [...]}
 * become one parenthesized "{{ Dimension('x') }} op 'v'" text each. Values
 * are quoted as SQL literals (quotes doubled); template syntax ("{{", "}}")
 * and NUL inside a value are refused, so a value can only ever be data.
 * Filters on measures (Cube's HAVING) are refused: the semantic layer
 * filters rows before aggregation.
 */
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "floe/buf.h"
#include "semantic/cube_query.h"

/* The member's template text: {{ Dimension('x') }} or {{ TimeDimension('x', 'day') }}. */
static fl_status member_ref(cube_ctx *c, const char *member, fl_buf *out, fl_error *err)
{
    const char *name = NULL;
    FL_TRY(cube_member_name(c, member, "filters[].member", &name, err));
    if (sem_cube_member(c->m, FL_SEM_METRIC, name))
        return fl_errorf(err, FL_EUNSUPPORTED,
                         "filter on measure '%s': filters on measures are not supported "
                         "(the semantic layer filters rows before aggregating)",
                         member);
    if (sem_cube_is_time(c->m, name))
        return fl_buf_appendf(out, err, "{{ TimeDimension('%s', 'day') }}", name);
    if (!sem_cube_member(c->m, FL_SEM_DIMENSION, name))
        return fl_errorf(err, FL_ENOTFOUND, "filter member '%s' is not a dimension of %s", member,
                         FL_SEM_CUBE_NAME);
    return fl_buf_appendf(out, err, "{{ Dimension('%s') }}", name);
}

/* 'value' with quotes doubled; prefix/suffix wrap it for LIKE (% signs). */
static fl_status literal(const char *v, const char *prefix, const char *suffix, fl_buf *out,
                         fl_error *err)
{
    if (strstr(v, "{{") || strstr(v, "}}"))
        return fl_errorf(err, FL_EINVAL, "filter value \"%s\" holds template syntax ({{ or }})", v);
    FL_TRY(fl_buf_putc(out, '\'', err));
    FL_TRY(fl_buf_puts(out, prefix, err));
    for (const char *p = v; *p; p++) {
        if (*p == '\'')
            FL_TRY(fl_buf_putc(out, '\'', err));
        FL_TRY(fl_buf_putc(out, *p, err));
    }
    FL_TRY(fl_buf_puts(out, suffix, err));
    return fl_buf_putc(out, '\'', err);
}

/* values[i] as text: strings as they are, numbers and booleans printed. */
static fl_status value_text(json_t *v, uint32_t i, char *buf, size_t cap, const char **out,
                            fl_error *err)
{
    if (json_is_string(v)) {
        if (strlen(json_string_value(v)) != json_string_length(v))
            return fl_errorf(err, FL_EINVAL, "filters[].values[%u] holds a NUL character", i);
        *out = json_string_value(v);
    } else if (json_is_integer(v)) {
        snprintf(buf, cap, "%lld", (long long)json_integer_value(v));
        *out = buf;
    } else if (json_is_real(v)) {
        snprintf(buf, cap, "%.17g", json_real_value(v));
        *out = buf;
    } else if (json_is_boolean(v)) {
        *out = json_is_true(v) ? "true" : "false";
    } else {
        return fl_errorf(err, FL_EINVAL, "filters[].values[%u] must be a string or a number", i);
    }
    return FL_OK;
}

typedef struct op_def {
    const char *name;
    const char *sql;    /* binary operator, or NULL for the special forms */
    const char *prefix; /* LIKE patterns */
    const char *suffix;
    bool any; /* OR over the values (the others AND) */
} op_def;

static const op_def ops[] = {
    {"equals", "=", "", "", true},
    {"notEquals", "<>", "", "", false},
    {"contains", "ILIKE", "%", "%", true},
    {"notContains", "NOT ILIKE", "%", "%", false},
    {"startsWith", "LIKE", "", "%", true},
    {"notStartsWith", "NOT LIKE", "", "%", false},
    {"endsWith", "LIKE", "%", "", true},
    {"notEndsWith", "NOT LIKE", "%", "", false},
    {"gt", ">", "", "", true},
    {"gte", ">=", "", "", true},
    {"lt", "<", "", "", true},
    {"lte", "<=", "", "", true},
    {"beforeDate", "<", "", "", true},
    {"beforeOrOnDate", "<=", "", "", true},
    {"afterDate", ">", "", "", true},
    {"afterOrOnDate", ">=", "", "", true},
};

static fl_status range(cube_ctx *c, const char *ref, json_t *values, bool negate, fl_buf *out,
                       fl_error *err)
{
    char a[64], b[64];
    const char *from = NULL, *to = NULL;
    if (json_array_size(values) != 2)
        return fl_errorf(err, FL_EINVAL, "a date range needs two values [from, to]");
    FL_TRY(value_text(json_array_get(values, 0), 0, a, sizeof a, &from, err));
    FL_TRY(value_text(json_array_get(values, 1), 1, b, sizeof b, &to, err));
    (void)c;
    FL_TRY(fl_buf_appendf(out, err, negate ? "NOT (%s >= " : "(%s >= ", ref));
    FL_TRY(literal(cube_day(from, a, sizeof a), "", "", out, err));
    FL_TRY(fl_buf_appendf(out, err, " AND %s <= ", ref));
    FL_TRY(literal(cube_day(to, b, sizeof b), "", "", out, err));
    return fl_buf_putc(out, ')', err);
}

static fl_status simple(cube_ctx *c, json_t *f, fl_buf *out, fl_error *err)
{
    json_t *member = json_object_get(f, "member") ? json_object_get(f, "member")
                                                  : json_object_get(f, "dimension");
    const char *op = json_string_value(json_object_get(f, "operator"));
    json_t *values = json_object_get(f, "values");
    if (!json_is_string(member) || !op)
        return fl_errorf(err, FL_EINVAL, "a filter needs \"member\" and \"operator\"");
    fl_buf ref;
    fl_buf_init(&ref, 4096);
    fl_status rc = member_ref(c, json_string_value(member), &ref, err);
    const char *r = rc == FL_OK && ref.data ? ref.data : "";
    if (rc == FL_OK && (!strcmp(op, "set") || !strcmp(op, "notSet")))
        rc = fl_buf_appendf(out, err, "(%s IS %sNULL)", r, strcmp(op, "set") ? "" : "NOT ");
    else if (rc == FL_OK && (!strcmp(op, "inDateRange") || !strcmp(op, "notInDateRange")))
        rc = range(c, r, values, !strcmp(op, "notInDateRange"), out, err);
    else if (rc == FL_OK) {
        const op_def *d = NULL;
        for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
            if (!strcmp(ops[i].name, op))
                d = &ops[i];
        if (!d)
            rc = fl_errorf(err, FL_EUNSUPPORTED, "filter operator '%s' is not supported", op);
        else if (!json_is_array(values) || json_array_size(values) == 0)
            rc = fl_errorf(err, FL_EINVAL, "filter '%s' on %s needs \"values\"", op,
                           json_string_value(member));
        for (uint32_t i = 0; rc == FL_OK && d && i < json_array_size(values); i++) {
            char num[64];
            const char *v = NULL;
            rc = value_text(json_array_get(values, i), i, num, sizeof num, &v, err);
            if (rc == FL_OK)
                rc = fl_buf_appendf(out, err, "%s%s %s ", i ? (d->any ? " OR " : " AND ") : "(", r,
                                    d->sql);
            if (rc == FL_OK)
                rc = literal(v, d->prefix, d->suffix, out, err);
        }
        if (rc == FL_OK && d)
            rc = fl_buf_putc(out, ')', err);
    }
    fl_buf_free(&ref);
    return rc;
}

fl_status cube_filter(cube_ctx *c, json_t *f, uint32_t depth, fl_buf *out, fl_error *err)
{
    if (!json_is_object(f))
        return fl_errorf(err, FL_EINVAL, "a filter must be an object");
    if (depth > 16)
        return fl_errorf(err, FL_ELIMIT, "filters are nested more than 16 deep");
    json_t *and = json_object_get(f, "and"), * or = json_object_get(f, "or");
    if (!and&&! or)
        return simple(c, f, out, err);
    json_t *list = and? and : or ;
    if (!json_is_array(list) || json_array_size(list) == 0)
        return fl_errorf(err, FL_EINVAL, "\"%s\" must be a non-empty array of filters",
                         and? "and" : "or");
    FL_TRY(fl_buf_putc(out, '(', err));
    for (size_t i = 0; i < json_array_size(list); i++) {
        if (i)
            FL_TRY(fl_buf_puts(out, and? " AND " : " OR ", err));
        FL_TRY(cube_filter(c, json_array_get(list, i), depth + 1, out, err));
    }
    return fl_buf_putc(out, ')', err);
}
