/*
 * tool_query_metrics.c - query_metrics and compile_sql: a semantic query
 * (metrics, group_by, where in the model's Jinja syntax, order_by, limit)
 * through the semantic layer's public API (include/floe/semantic.h).
 *
 * saved_query names one of the model's saved queries (dbt's saved_queries:)
 * as the starting point: its where filters are kept and the call's are
 * added; order_by and limit replace the saved ones when given.
 *
 * compile_sql only compiles. query_metrics pushes its row cap into the
 * compiled SQL (LIMIT min(limit, max_result_rows + 1): the engine stops
 * there, one extra row says the result was cut), passes run_sql's budgets
 * (budget.c, on the compiled SQL), then runs it with fl_sem_execute on a
 * SQL session opened as the caller (sqlrun.c: the one authorization
 * point, so row filters and column masks apply to the numbers). The rows
 * go through run_sql's preview and stored result (mcp_result_preview); the
 * receipt is the semantic layer's: model version, compiled SQL, every
 * table's snapshot and commit time, and the SQL that replays it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/mcp_internal.h"

/* A semantic query from a tool's arguments; the arrays are malloc'd,
 * the strings borrowed from args and the model. */
typedef struct sem_args {
    fl_sem_query q;
    const char **metrics, **group_by, **where, **order_by;
} sem_args;

static void sem_args_free(sem_args *a)
{
    free(a->metrics), free(a->group_by), free(a->where), free(a->order_by);
}

/* The saved query named in args into a->q (arrays into the model; where
 * copied so the call's filters can be added). */
static bool saved_query(mcp_call *c, const char *tool, json_t *args, const char *name, sem_args *a,
                        json_t **answer)
{
    fl_error err = {0};
    if (json_object_get(args, "metrics") || json_object_get(args, "group_by")) {
        *answer = mcp_tool_fail("%s: saved_query '%s' brings its metrics and group_by; give "
                                "where, order_by or limit to adjust it",
                                tool, name);
        return false;
    }
    if (fl_sem_saved_query(c->m->opt.model, name, &a->q, &err) != FL_OK) {
        *answer = mcp_tool_fail("%s: %s", tool, err.msg);
        return false;
    }
    const char **extra = NULL;
    uint32_t nextra = 0;
    if (!mcp_string_list(tool, "where", json_object_get(args, "where"), &extra, &nextra, answer))
        return false;
    a->where = calloc(a->q.nwhere + nextra + 1, sizeof *a->where);
    if (!a->where) {
        free(extra);
        *answer = NULL;
        return false;
    }
    for (uint32_t i = 0; i < a->q.nwhere; i++)
        a->where[i] = a->q.where[i];
    for (uint32_t i = 0; i < nextra; i++)
        a->where[a->q.nwhere + i] = extra[i];
    free(extra);
    a->q.nwhere += nextra;
    a->q.where = a->where;
    if (json_object_get(args, "order_by")) {
        if (!mcp_string_list(tool, "order_by", json_object_get(args, "order_by"), &a->order_by,
                             &a->q.norder_by, answer))
            return false;
        a->q.order_by = a->order_by;
    }
    return true;
}

/* false with *answer (candidates or an error) when the query cannot be built. */
static bool sem_args_parse(mcp_call *c, const char *tool, json_t *args, sem_args *a,
                           json_t **answer)
{
    memset(a, 0, sizeof *a);
    a->q.limit = -1;
    *answer = NULL;
    const char *saved = json_string_value(json_object_get(args, "saved_query"));
    bool ok;
    if (saved) {
        ok = saved_query(c, tool, args, saved, a, answer);
    } else {
        if (!mcp_metrics_resolve(c, tool, json_object_get(args, "metrics"), true, &a->metrics,
                                 &a->q.nmetrics, answer))
            return false;
        ok = mcp_string_list(tool, "group_by", json_object_get(args, "group_by"), &a->group_by,
                             &a->q.ngroup_by, answer) &&
             mcp_string_list(tool, "where", json_object_get(args, "where"), &a->where, &a->q.nwhere,
                             answer) &&
             mcp_string_list(tool, "order_by", json_object_get(args, "order_by"), &a->order_by,
                             &a->q.norder_by, answer);
        a->q.metrics = a->metrics;
        a->q.group_by = a->group_by;
        a->q.where = a->where;
        a->q.order_by = a->order_by;
    }
    json_t *lim = json_object_get(args, "limit");
    if (ok && lim && json_integer_value(lim) < 0) {
        *answer = mcp_tool_fail("%s: argument \"limit\" must not be negative", tool);
        ok = false;
    }
    if (lim)
        a->q.limit = json_integer_value(lim);
    if (!ok)
        sem_args_free(a);
    return ok;
}

static json_t *names_json(const fl_sem_query *q)
{
    json_t *arr = json_array();
    for (uint32_t i = 0; arr && i < q->nmetrics; i++)
        json_array_append_new(arr, json_string(q->metrics[i]));
    return arr;
}

json_t *mcp_tool_compile_sql(mcp_call *c, json_t *args)
{
    sem_args a;
    json_t *answer = NULL;
    if (!sem_args_parse(c, "compile_sql", args, &a, &answer))
        return answer;
    const char *dialect = json_string_value(json_object_get(args, "dialect"));
    if (dialect && strcmp(dialect, "floe") && strcmp(dialect, "trino")) {
        sem_args_free(&a);
        return mcp_tool_fail("compile_sql: dialect must be floe or trino, not '%s'", dialect);
    }
    a.q.dialect = dialect && !strcmp(dialect, "trino") ? FL_SEM_DIALECT_TRINO : FL_SEM_DIALECT_FLOE;
    char *sql = NULL;
    fl_error err = {0};
    json_t *out;
    if (fl_sem_compile(c->m->opt.model, &a.q, NULL, 0, &sql, &err) != FL_OK)
        out = mcp_tool_fail("compile_sql: %s", err.msg);
    else
        out = mcp_tool_ok(json_pack("{s:b, s:o, s:s, s:s, s:o}", "ambiguous", 0, "metrics",
                                    names_json(&a.q), "sql", sql, "dialect",
                                    dialect ? dialect : "floe", "receipt", mcp_model_receipt(c)),
                          NULL);
    free(sql);
    sem_args_free(&a);
    return out;
}

/* query_metrics' receipt: the caller, and the semantic layer's receipt. */
static json_t *receipt_json(const mcp_call *c, const fl_sem_receipt *r)
{
    json_t *tables = json_array();
    for (uint32_t i = 0; tables && i < fl_sem_receipt_npins(r); i++) {
        const fl_sem_pin *p = fl_sem_receipt_pin(r, i);
        json_array_append_new(tables, json_pack("{s:s, s:I, s:s?}", "table", p->table,
                                                "snapshot_id", (json_int_t)p->snapshot_id,
                                                "committed_at", p->committed_at));
    }
    json_t *out = mcp_receipt(c, tables);
    json_decref(tables);
    if (out)
        json_object_update_new(
            out, json_pack("{s:s, s:s, s:s, s:s}", "model_version", fl_sem_receipt_version(r),
                           "sql", fl_sem_receipt_sql(r), "replay_sql", fl_sem_receipt_replay_sql(r),
                           "time", fl_sem_receipt_time(r)));
    return out;
}

/* Compiles, checks the budgets and runs a; the tool's answer. */
static json_t *run_query(mcp_call *c, fl_sql_session *s, sem_args *a, uint64_t max_rows,
                         uint64_t max_bytes)
{
    const fl_sem_model *m = c->m->opt.model;
    uint64_t cap = c->m->opt.max_result_rows;
    if (a->q.limit < 0 || (uint64_t)a->q.limit > cap + 1)
        a->q.limit = (int64_t)(cap + 1); /* the cap reaches the engine */
    char *sql = NULL;
    fl_error err = {0};
    if (fl_sem_compile(m, &a->q, NULL, 0, &sql, &err) != FL_OK)
        return mcp_tool_fail("query_metrics: %s", err.msg);
    json_t *unknown_value = mcp_filter_values_check(c, s, "query_metrics", &a->q);
    if (unknown_value) {
        free(sql);
        return unknown_value;
    }
    json_t *refused = mcp_budget_refusal(c, s, sql, true);
    free(sql);
    if (refused)
        return refused;
    fl_sql_result *r = NULL;
    fl_sem_receipt *rec = NULL;
    if (fl_sem_execute(s, m, &a->q, &r, &rec, &err) != FL_OK) {
        char msg[1100];
        mcp_sql_error_text(s, &err, msg, sizeof msg);
        return mcp_tool_fail("query_metrics: %s", msg);
    }
    json_t *extra = json_pack("{s:b, s:o, s:o}", "ambiguous", 0, "metrics", names_json(&a->q),
                              "receipt", receipt_json(c, rec)); /* the SQL is in the receipt */
    json_t *out = mcp_result_preview(c, s, r, max_rows, max_bytes, "query_metrics", extra);
    fl_sql_result_close(r);
    fl_sem_receipt_free(rec);
    return out;
}

json_t *mcp_tool_query_metrics(mcp_call *c, json_t *args)
{
    sem_args a;
    json_t *answer = NULL;
    if (!sem_args_parse(c, "query_metrics", args, &a, &answer))
        return answer;
    json_t *mr = json_object_get(args, "max_rows"), *mb = json_object_get(args, "max_bytes");
    uint64_t max_rows = mr ? (uint64_t)json_integer_value(mr) : 20;
    uint64_t max_bytes = mb ? (uint64_t)json_integer_value(mb) : 8000;
    fl_sql_session *s = NULL;
    fl_error err = {0};
    json_t *out;
    if (mcp_sql_open(c, NULL, &s, &err) != FL_OK)
        out = mcp_tool_fail("query_metrics: %s", err.msg);
    else
        out = run_query(c, s, &a, max_rows, max_bytes);
    fl_sql_session_close(s);
    sem_args_free(&a);
    return out;
}
