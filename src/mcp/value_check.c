/*
 * value_check.c - a filter value that does not exist is answered with
 * candidates, not run: before query_metrics computes anything, every
 * string literal its filters compare a categorical dimension to
 * (filter_values.c) is looked up among the dimension's values as the
 * caller sees them (the query's metrics grouped by the dimension, without
 * the filters, through the caller's SQL session: row filters decide which
 * values exist, so nothing hidden is revealed). A value that is not there
 * answers ambiguous: true with value_candidates: [{dimension, asked,
 * matches}] (the closest existing values), isError false.
 *
 * Not checked (the query runs as asked): dimensions with more than
 * MAX_VALUES distinct values, lookups that would scan more than the
 * server's scan budget (the query's own budget check then decides), time dimensions, entity paths
 * that are not model members, and filters the semantic layer cannot compile grouped by the
 * dimension (the query then fails with the layer's message).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/mcp_internal.h"

#define MAX_LITS 16
#define MAX_VALUES 10000
#define MAX_MATCHES 5

static bool categorical(const fl_sem_model *m, const char *dim)
{
    for (uint32_t i = 0; i < fl_sem_model_nmembers(m); i++) {
        const fl_sem_member_info *mi = fl_sem_model_member(m, i);
        if (mi->kind == FL_SEM_DIMENSION && !strcmp(mi->name, dim))
            return !strcmp(mi->type, "categorical");
    }
    return false;
}

/* Would the lookup scan more than the server's scan budget (or not plan)? */
static bool over_budget(mcp_call *c, fl_sql_session *s, const char *sql)
{
    uint64_t max = c->m->opt.max_scan_bytes;
    if (!max)
        return false;
    json_t *reads = json_array();
    json_t *est = mcp_estimate(c, s, sql, reads);
    json_decref(reads);
    json_t *total = json_object_get(json_object_get(est, "structuredContent"), "total");
    bool over = !est || json_is_true(json_object_get(est, "isError")) ||
                json_integer_value(json_object_get(total, "bytes")) > (json_int_t)max;
    json_decref(est);
    return over;
}

/* The distinct values of dim where q's metrics have data, as the caller;
 * NULL with *skip (too many, does not compile) or *fail (the engine refused). */
static json_t *values_of(mcp_call *c, fl_sql_session *s, const char *tool, const fl_sem_query *q,
                         const char *dim, json_t *reads, bool *skip, json_t **fail)
{
    fl_sem_query g = {.metrics = q->metrics,
                      .nmetrics = q->nmetrics,
                      .group_by = &dim,
                      .ngroup_by = 1,
                      .limit = -1};
    char *inner = NULL, *sql = NULL, *col = mcp_quote_ident(dim);
    fl_error err = {0};
    *skip = true;
    if (!col || fl_sem_compile(c->m->opt.model, &g, NULL, 0, &inner, &err) != FL_OK ||
        asprintf(&sql,
                 "SELECT DISTINCT CAST(%s AS varchar) FROM (%s\n) AS floe_mcp_v WHERE %s IS NOT "
                 "NULL ORDER BY 1 LIMIT %d",
                 col, inner, col, MAX_VALUES + 1) < 0) {
        free(col), free(inner);
        return NULL;
    }
    free(col), free(inner);
    if (over_budget(c, s, sql)) { /* not looked up: the query's own budget check follows */
        free(sql);
        return NULL;
    }
    json_t *cols = NULL, *rows = NULL, *values = NULL;
    bool more = false;
    if (mcp_sql_rows(s, sql, MAX_VALUES, &cols, &rows, &more, reads, &err) != FL_OK) {
        char msg[1100];
        mcp_sql_error_text(s, &err, msg, sizeof msg);
        *fail = mcp_tool_fail("%s: %s", tool, msg);
    } else if (!more) {
        values = json_array();
        size_t i;
        json_t *row;
        json_array_foreach(rows, i, row) json_array_append(values, json_array_get(row, 0));
        *skip = false;
    }
    free(sql);
    json_decref(cols), json_decref(rows);
    return values;
}

static bool has_value(json_t *values, const char *v)
{
    size_t i;
    json_t *e;
    json_array_foreach(values, i, e)
    {
        if (json_is_string(e) && !strcmp(json_string_value(e), v))
            return true;
    }
    return false;
}

static json_t *answer(mcp_call *c, json_t *cands, json_t *reads)
{
    json_t *first = json_array_get(cands, 0);
    char msg[1600];
    json_t *m0 = json_array_get(json_object_get(first, "matches"), 0);
    snprintf(msg, sizeof msg,
             "%s has no value '%s'%s%s%s; nothing was computed: ask again with an existing value "
             "(get_dimension_values lists them)",
             json_string_value(json_object_get(first, "dimension")),
             json_string_value(json_object_get(first, "asked")), m0 ? " (closest: '" : "",
             m0 ? json_string_value(m0) : "", m0 ? "')" : "");
    mcp_utf8_clean(msg);
    json_t *rec = mcp_receipt(c, reads);
    json_object_set_new(rec, "model_version", json_string(fl_sem_model_version(c->m->opt.model)));
    return mcp_tool_ok(json_pack("{s:b, s:o, s:s, s:o}", "ambiguous", 1, "value_candidates", cands,
                                 "message", msg, "receipt", rec),
                       NULL);
}

json_t *mcp_filter_values_check(mcp_call *c, fl_sql_session *s, const char *tool,
                                const fl_sem_query *q)
{
    mcp_filter_lit *lits = calloc(MAX_LITS, sizeof *lits);
    if (!lits)
        return NULL;
    uint32_t n = 0;
    for (uint32_t i = 0; i < q->nwhere && n < MAX_LITS; i++)
        n += mcp_filter_literals(q->where[i], lits + n, MAX_LITS - n);
    json_t *reads = json_array(), *cands = json_array(), *fail = NULL, *values = NULL;
    const char *values_dim = NULL;
    bool skip = false;
    for (uint32_t i = 0; i < n && !fail; i++) {
        if (!categorical(c->m->opt.model, lits[i].dim))
            continue;
        if (!values_dim || strcmp(values_dim, lits[i].dim)) {
            json_decref(values);
            values = values_of(c, s, tool, q, lits[i].dim, reads, &skip, &fail);
            values_dim = lits[i].dim;
        }
        if (skip || fail || has_value(values, lits[i].value))
            continue;
        json_t *matches = json_array();
        mcp_closest_values(lits[i].value, values, MAX_MATCHES, matches);
        json_array_append_new(cands, json_pack("{s:s, s:s, s:o, s:I}", "dimension", lits[i].dim,
                                               "asked", lits[i].value, "matches", matches, "values",
                                               (json_int_t)json_array_size(values)));
    }
    json_decref(values);
    free(lits);
    json_t *out = fail;
    if (!fail && json_array_size(cands))
        out = answer(c, json_incref(cands), reads);
    json_decref(cands), json_decref(reads);
    return out;
}
