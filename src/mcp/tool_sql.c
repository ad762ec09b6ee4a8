/*
 * tool_sql.c - run_sql.
 *
 * readonly.c accepts the statement, budget.c admits it, sqlrun.c runs it
 * as the caller inside a read-only block. A query is wrapped as
 * SELECT * FROM (<sql>) AS floe_mcp_q LIMIT <row cap + 1>, so the engine
 * stops at the cap (the limit reaches the scans) and one extra row tells
 * whether the result was cut; the result is also cut once its CSV passes
 * half the result store (complete: false either way). Every row kept goes
 * to the stored CSV (results.c) and the column statistics; the preview
 * keeps the first rows that fit max_rows and max_bytes. The preview, the
 * statistics and the stored result (mcp_result_preview) are shared with
 * query_metrics, which hands in its semantic query's cursor.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/arrow_ipc.h"
#include "mcp/mcp_internal.h"

typedef struct col_stat {
    uint64_t nulls;
    json_t *min, *max; /* owned */
    bool numeric;
} col_stat;

static int cmp_json(const json_t *a, const json_t *b, bool numeric)
{
    if (numeric && json_is_number(a) && json_is_number(b)) {
        double x = json_number_value(a), y = json_number_value(b);
        return x < y ? -1 : x > y;
    }
    if (numeric && json_is_string(a) && json_is_string(b)) { /* decimals */
        double x = strtod(json_string_value(a), NULL), y = strtod(json_string_value(b), NULL);
        return x < y ? -1 : x > y;
    }
    const char *x = json_string_value(a), *y = json_string_value(b);
    return (x && y) ? strcmp(x, y) : 0;
}

static void stat_add(col_stat *s, json_t *v)
{
    if (json_is_null(v)) {
        s->nulls++;
        return;
    }
    if (json_is_array(v) || json_is_object(v))
        return;
    if (!s->min || cmp_json(v, s->min, s->numeric) < 0) {
        json_decref(s->min);
        s->min = json_incref(v);
    }
    if (!s->max || cmp_json(v, s->max, s->numeric) > 0) {
        json_decref(s->max);
        s->max = json_incref(v);
    }
}

typedef struct run_state {
    json_t *preview;
    size_t preview_bytes;
    uint64_t max_rows, max_bytes;
    bool truncated;
    char *csv;
    size_t csv_len, csv_cap;
    uint64_t rows;
    col_stat *stats;
    uint32_t ncols;
    fl_ipc_buf arrow; /* the same rows as an Arrow IPC stream */
    bool arrow_ok;    /* false once a batch could not be written (CSV only) */
} run_state;

/* Appends the first n rows of b to the Arrow stream (a shallow copy with a
 * selection when the batch was cut). */
static void arrow_rows(run_state *st, const fl_schema *sch, const fl_batch *b, uint32_t n)
{
    if (!st->arrow_ok || !n)
        return;
    fl_error err = {0};
    fl_batch part = *b;
    fl_sel sel = {NULL, n, n};
    if (n < b->nrows) {
        sel.idx = malloc(n * sizeof *sel.idx);
        for (uint32_t i = 0; sel.idx && i < n; i++)
            sel.idx[i] = i;
        part.sel = &sel;
    }
    if ((n < b->nrows && !sel.idx) || fl_arrow_ipc_batch(sch, &part, &st->arrow, &err) != FL_OK)
        st->arrow_ok = false;
    free(sel.idx);
}

static bool csv_header(run_state *st, const fl_schema *sch)
{
    for (uint32_t i = 0; i < sch->nfields; i++)
        if ((i && !mcp_buf_put(&st->csv, &st->csv_len, &st->csv_cap, ",", 1)) ||
            !mcp_csv_field(&st->csv, &st->csv_len, &st->csv_cap, sch->fields[i].name, false))
            return false;
    return mcp_buf_put(&st->csv, &st->csv_len, &st->csv_cap, "\r\n", 2);
}

static bool take_row(run_state *st, const fl_sql_formatter *f, const fl_batch *b, uint32_t i)
{
    json_t *row = json_array();
    bool ok = row != NULL;
    for (uint32_t k = 0; ok && k < b->ncols; k++) {
        json_t *v = mcp_value_json(f, &b->cols[k], i);
        ok = v != NULL;
        if (!ok)
            break;
        stat_add(&st->stats[k], v);
        char tb[64];
        const char *text = json_is_string(v) ? json_string_value(v) : NULL;
        if (!text && json_is_boolean(v))
            text = json_is_true(v) ? "true" : "false";
        else if (!text && json_is_integer(v))
            snprintf(tb, sizeof tb, "%" JSON_INTEGER_FORMAT, json_integer_value(v)), text = tb;
        else if (!text && json_is_real(v))
            snprintf(tb, sizeof tb, "%.17g", json_real_value(v)), text = tb;
        ok = (!k || mcp_buf_put(&st->csv, &st->csv_len, &st->csv_cap, ",", 1)) &&
             mcp_csv_field(&st->csv, &st->csv_len, &st->csv_cap, text ? text : "", json_is_null(v));
        json_array_append_new(row, v);
    }
    ok = ok && mcp_buf_put(&st->csv, &st->csv_len, &st->csv_cap, "\r\n", 2);
    if (ok && !st->truncated) {
        char *t = json_dumps(row, JSON_COMPACT);
        size_t sz = t ? strlen(t) + 1 : 0;
        free(t);
        if (json_array_size(st->preview) < st->max_rows &&
            st->preview_bytes + sz <= st->max_bytes) {
            json_array_append(st->preview, row);
            st->preview_bytes += sz;
        } else {
            st->truncated = true;
        }
    }
    json_decref(row);
    st->rows++;
    return ok;
}

static json_t *stats_json(run_state *st, const fl_schema *sch)
{
    json_t *arr = json_array();
    for (uint32_t k = 0; k < st->ncols; k++) {
        col_stat *s = &st->stats[k];
        json_array_append_new(arr,
                              json_pack("{s:s, s:I, s:o, s:o}", "name",
                                        sch->fields[k].name ? sch->fields[k].name : "?", "nulls",
                                        (json_int_t)s->nulls, "min", s->min ? s->min : json_null(),
                                        "max", s->max ? s->max : json_null()));
        s->min = s->max = NULL;
    }
    return arr;
}

static bool numeric_type(const fl_type *t)
{
    return t->id == FL_TYPE_INT32 || t->id == FL_TYPE_INT64 || t->id == FL_TYPE_FLOAT32 ||
           t->id == FL_TYPE_FLOAT64 || t->id == FL_TYPE_DECIMAL;
}

/* Pulls r to its end (or cap) into st; FL_OK or the engine's failure. */
static fl_status drain(fl_sql_session *s, fl_sql_result *r, run_state *st, uint64_t cap,
                       size_t max_bytes, bool *complete, fl_error *err)
{
    const fl_schema *sch = fl_sql_result_schema(r);
    st->ncols = sch->nfields;
    st->stats = calloc(sch->nfields ? sch->nfields : 1, sizeof *st->stats);
    if (!st->stats || !csv_header(st, sch))
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t k = 0; k < sch->nfields; k++)
        st->stats[k].numeric = numeric_type(&sch->fields[k].type);
    fl_error aerr = {0};
    st->arrow_ok = fl_arrow_ipc_schema(sch, &st->arrow, &aerr) == FL_OK;
    fl_sql_formatter *f = NULL;
    FL_TRY(fl_sql_formatter_new(fl_sql_get(s, "time_zone"), &f, err));
    fl_status rc = FL_OK;
    *complete = true;
    while (rc == FL_OK && *complete) {
        const fl_batch *b = NULL;
        bool eof = false;
        rc = fl_sql_result_next(r, &b, &eof, err);
        if (rc != FL_OK || eof)
            break;
        uint32_t taken = 0;
        for (uint32_t i = 0; i < b->nrows && rc == FL_OK; i++) {
            if (st->rows >= cap || st->csv_len + st->arrow.len > max_bytes) { /* the store's room */
                *complete = false;
                break;
            }
            if (!take_row(st, f, b, i))
                rc = fl_errorf(err, FL_ENOMEM, "out of memory");
            taken++;
        }
        if (rc == FL_OK)
            arrow_rows(st, sch, b, taken);
    }
    fl_sql_formatter_free(f);
    if (st->arrow_ok && fl_arrow_ipc_eos(&st->arrow, &aerr) != FL_OK)
        st->arrow_ok = false;
    return rc;
}

static void state_free(run_state *st)
{
    json_decref(st->preview);
    free(st->csv);
    fl_ipc_buf_free(&st->arrow);
    for (uint32_t k = 0; st->stats && k < st->ncols; k++)
        json_decref(st->stats[k].min), json_decref(st->stats[k].max);
    free(st->stats);
}

/* The statement to execute: a query capped by the engine, else as given. */
static char *capped_sql(const char *sql, bool wrappable, uint64_t cap)
{
    size_t n = strlen(sql);
    while (n && (sql[n - 1] == ';' || sql[n - 1] == ' ' || sql[n - 1] == '\n' ||
                 sql[n - 1] == '\t' || sql[n - 1] == '\r'))
        n--;
    char *out = NULL;
    if (wrappable) {
        if (asprintf(&out, "SELECT * FROM (%.*s\n) AS floe_mcp_q LIMIT %" PRIu64, (int)n, sql,
                     cap + 1) < 0)
            out = NULL;
    } else {
        out = strndup(sql, n);
    }
    return out;
}

static json_t *preview_result(mcp_call *c, run_state *st, fl_sql_result *r, bool complete,
                              const char *tool, json_t *extra)
{
    const fl_schema *sch = fl_sql_result_schema(r);
    json_t *reads = json_array();
    mcp_reads_append(r, reads);
    char id[33] = "";
    fl_error err = {0};
    char *csv = st->csv;
    st->csv = NULL;
    if (st->csv_len + st->arrow.len > c->m->opt.max_results_bytes)
        st->arrow_ok = false; /* no room for both forms: the CSV alone */
    uint8_t *arrow = st->arrow_ok ? st->arrow.p : NULL;
    size_t arrow_len = st->arrow_ok ? st->arrow.len : 0;
    if (st->arrow_ok)
        st->arrow.p = NULL, st->arrow.len = st->arrow.cap = 0;
    if (mcp_results_put(c->m, c->who.name, csv, st->csv_len, arrow, arrow_len, st->rows, id,
                        &err) != FL_OK) {
        json_decref(reads);
        json_decref(extra);
        return mcp_tool_fail("%s: %s", tool, err.msg);
    }
    char uri[64];
    snprintf(uri, sizeof uri, "floe://results/%s", id);
    json_t *preview = st->preview;
    st->preview = NULL;
    json_t *sc =
        json_pack("{s:o, s:o, s:I, s:b, s:b, s:o, s:s, s:s, s:o}", "columns", mcp_columns_json(sch),
                  "rows", preview, "row_count", (json_int_t)st->rows, "complete", complete,
                  "truncated", st->truncated || !complete, "column_stats", stats_json(st, sch),
                  "result_uri", uri, "tag", fl_sql_result_tag(r), "receipt", mcp_receipt(c, reads));
    json_decref(reads);
    if (sc && extra)
        json_object_update(sc, extra);
    json_decref(extra);
    if (sc && arrow_len) {
        char auri[80];
        snprintf(auri, sizeof auri, "floe://results/%s.arrow", id);
        json_object_set_new(sc, "result_arrow_uri", json_string(auri));
    }
    char desc[128];
    snprintf(desc, sizeof desc, "the full result: %" PRIu64 " rows as CSV%s", st->rows,
             complete ? "" : " (cut at the server's row cap)");
    json_t *link = json_pack("[{s:s, s:s, s:s, s:s, s:s}]", "type", "resource_link", "uri", uri,
                             "name", id, "mimeType", "text/csv", "description", desc);
    return mcp_tool_ok(sc, link);
}

json_t *mcp_result_preview(mcp_call *c, fl_sql_session *s, fl_sql_result *r, uint64_t max_rows,
                           uint64_t max_bytes, const char *tool, json_t *extra)
{
    run_state st;
    memset(&st, 0, sizeof st);
    st.max_rows = max_rows;
    st.max_bytes = max_bytes;
    st.preview = json_array();
    bool complete = true;
    fl_error err = {0};
    fl_status rc = drain(s, r, &st, c->m->opt.max_result_rows, c->m->opt.max_results_bytes / 2,
                         &complete, &err);
    json_t *out;
    if (rc == FL_OK) {
        out = preview_result(c, &st, r, complete, tool, extra);
    } else {
        json_decref(extra);
        char m[1100];
        mcp_sql_error_text(s, &err, m, sizeof m);
        out = mcp_tool_fail("%s: %s", tool, m);
    }
    state_free(&st);
    return out;
}

json_t *mcp_tool_run_sql(mcp_call *c, json_t *args)
{
    if (c->m->opt.run_sql_disabled)
        return mcp_tool_fail("run_sql is disabled on this server (policy)");
    const char *sql = json_string_value(json_object_get(args, "sql"));
    if (!sql)
        return mcp_tool_fail("run_sql: argument \"sql\" is required");
    json_t *mr = json_object_get(args, "max_rows"), *mb = json_object_get(args, "max_bytes");
    uint64_t max_rows = mr ? (uint64_t)json_integer_value(mr) : 20;
    uint64_t max_bytes = mb ? (uint64_t)json_integer_value(mb) : 8000;
    bool wrappable = false;
    fl_error err = {0};
    if (mcp_sql_read_only(sql, &wrappable, &err) != FL_OK)
        return mcp_tool_fail("run_sql: %s", err.msg);
    char *run = capped_sql(sql, wrappable, c->m->opt.max_result_rows);
    if (!run)
        return NULL;
    fl_sql_session *s = NULL;
    fl_sql_result *r = NULL;
    fl_status rc = mcp_sql_open(c, json_string_value(json_object_get(args, "namespace")), &s, &err);
    json_t *out = rc == FL_OK ? mcp_budget_refusal(c, s, sql, wrappable) : NULL;
    if (!out && rc == FL_OK)
        rc = fl_sql_execute(s, run, &r, &err);
    free(run);
    if (!out && rc == FL_OK) {
        out = mcp_result_preview(c, s, r, max_rows, max_bytes, "run_sql", NULL);
    } else if (!out) {
        char m[1100];
        mcp_sql_error_text(s, &err, m, sizeof m);
        out = mcp_tool_fail("run_sql: %s", m);
    }
    fl_sql_result_close(r);
    fl_sql_session_close(s);
    return out;
}
