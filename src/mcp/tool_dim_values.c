/*
 * tool_dim_values.c - get_dimension_values: the distinct values of one
 * dimension where metrics have data, read through the engine as the
 * caller (sqlrun.c), so row filters decide which values exist for them.
 *
 * The semantic layer compiles the metrics grouped by the dimension (the
 * given metrics, else the first metric of the model that reaches it); the
 * tool wraps that SQL as
 *   SELECT DISTINCT "<dim>" FROM (<compiled>) v [WHERE search] ORDER BY 1
 *   LIMIT <limit + 1>
 * so the limit is the engine's and one extra row says truncated.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/mcp_internal.h"

/* The SQL of metrics grouped by dim (malloc'd), or NULL with err. */
static char *grouped_sql(const fl_sem_model *m, const char *const *metrics, uint32_t n,
                         const char *dim, fl_error *err)
{
    fl_sem_query q;
    memset(&q, 0, sizeof q);
    q.metrics = metrics;
    q.nmetrics = n;
    q.group_by = &dim;
    q.ngroup_by = 1;
    q.limit = -1;
    char *sql = NULL;
    return fl_sem_compile(m, &q, NULL, 0, &sql, err) == FL_OK ? sql : NULL;
}

/* The first metric whose query reaches dim (into *metric), and its SQL. */
static char *first_reaching(const fl_sem_model *m, const char *dim, const char **metric,
                            fl_error *err)
{
    uint32_t nm = fl_sem_model_nmembers(m);
    fl_error first = {0};
    for (uint32_t i = 0; i < nm; i++) {
        const fl_sem_member_info *mi = fl_sem_model_member(m, i);
        if (mi->kind != FL_SEM_METRIC)
            continue;
        fl_error e = {0};
        char *sql = grouped_sql(m, &mi->name, 1, dim, &e);
        if (sql) {
            *metric = mi->name;
            return sql;
        }
        if (!first.msg[0])
            first = e;
    }
    *err = first;
    if (!err->msg[0])
        fl_errorf(err, FL_ENOTFOUND, "the model has no metrics");
    return NULL;
}

/* search as a SQL string literal (quotes doubled; malloc'd). */
static char *sql_literal(const char *s)
{
    size_t n = strlen(s), o = 0;
    char *q = malloc(2 * n + 3);
    if (!q)
        return NULL;
    q[o++] = '\'';
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\'')
            q[o++] = '\'';
        q[o++] = s[i];
    }
    q[o++] = '\'';
    q[o] = '\0';
    return q;
}

static char *values_sql(const char *inner, const char *dim, const char *search, uint64_t limit)
{
    char *col = mcp_quote_ident(dim);
    char *lit = search ? sql_literal(search) : NULL;
    char *out = NULL;
    char *where = NULL;
    if (col && lit &&
        asprintf(&where, " WHERE strpos(lower(CAST(%s AS varchar)), lower(%s)) > 0", col, lit) < 0)
        where = NULL;
    if (col && (!search || where) &&
        asprintf(&out, "SELECT DISTINCT %s FROM (%s\n) AS floe_mcp_v%s ORDER BY 1 LIMIT %" PRIu64,
                 col, inner, where ? where : "", limit + 1) < 0)
        out = NULL;
    free(col), free(lit), free(where);
    return out;
}

static json_t *read_values(mcp_call *c, const char *sql, const char *dim, json_t *metrics,
                           uint64_t limit)
{
    fl_sql_session *s = NULL;
    fl_error err = {0};
    json_t *cols = NULL, *rows = NULL, *reads = json_array();
    bool more = false;
    fl_status rc = mcp_sql_open(c, NULL, &s, &err);
    if (rc == FL_OK)
        rc = mcp_sql_rows(s, sql, limit, &cols, &rows, &more, reads, &err);
    json_t *out;
    if (rc != FL_OK) {
        char msg[1100];
        mcp_sql_error_text(s, &err, msg, sizeof msg);
        out = mcp_tool_fail("get_dimension_values: %s", msg);
        json_decref(metrics);
    } else {
        json_t *values = json_array();
        size_t i;
        json_t *row;
        json_array_foreach(rows, i, row) json_array_append(values, json_array_get(row, 0));
        json_t *rec = mcp_receipt(c, reads);
        json_object_set_new(rec, "model_version",
                            json_string(fl_sem_model_version(c->m->opt.model)));
        out = mcp_tool_ok(json_pack("{s:b, s:s, s:o, s:o, s:I, s:b, s:o}", "ambiguous", 0,
                                    "dimension", dim, "metrics", metrics, "values", values, "count",
                                    (json_int_t)json_array_size(values), "truncated", more,
                                    "receipt", rec),
                          NULL);
    }
    json_decref(cols), json_decref(rows), json_decref(reads);
    fl_sql_session_close(s);
    return out;
}

json_t *mcp_tool_get_dimension_values(mcp_call *c, json_t *args)
{
    const char *dim = json_string_value(json_object_get(args, "dimension"));
    if (!dim)
        return mcp_tool_fail("get_dimension_values: argument \"dimension\" is required");
    const char **names = NULL;
    uint32_t n = 0;
    json_t *answer = NULL;
    if (!mcp_metrics_resolve(c, "get_dimension_values", json_object_get(args, "metrics"), false,
                             &names, &n, &answer))
        return answer;
    const fl_sem_model *m = c->m->opt.model;
    fl_error err = {0};
    const char *only = NULL;
    char *inner = n ? grouped_sql(m, names, n, dim, &err) : first_reaching(m, dim, &only, &err);
    json_t *metrics = json_array();
    for (uint32_t i = 0; i < n; i++)
        json_array_append_new(metrics, json_string(names[i]));
    if (only)
        json_array_append_new(metrics, json_string(only));
    free(names);
    if (!inner) {
        json_decref(metrics);
        return mcp_tool_fail("get_dimension_values: %s", err.msg);
    }
    json_t *lim = json_object_get(args, "limit");
    uint64_t limit = lim ? (uint64_t)json_integer_value(lim) : 100;
    char *sql = values_sql(inner, dim, json_string_value(json_object_get(args, "search")), limit);
    free(inner);
    if (!sql) {
        json_decref(metrics);
        return NULL;
    }
    json_t *out = read_values(c, sql, dim, metrics, limit);
    free(sql);
    return out;
}
