/*
 * sqlrun.c - the tools' only way to data: a SQL session opened as the
 * caller's principal (fl_sql_options.auth + .principal, as POST /v1/sql
 * does), so the engine's authorization point (src/sql/authz) decides every
 * table, view, metadata table and file a tool touches. Without options.auth
 * (floe mcp, embedded) the session checks nothing, as floe sql.
 *
 * Every statement runs inside BEGIN READ ONLY ... ROLLBACK: a write that
 * slipped past readonly.c is refused by the engine (25006) and nothing a
 * tool runs can commit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/mcp_internal.h"

fl_status mcp_sql_open(const mcp_call *c, const char *ns, fl_sql_session **out, fl_error *err)
{
    const fl_mcp_options *o = &c->m->opt;
    fl_sql_options so;
    memset(&so, 0, sizeof so);
    so.catalog = c->cat;
    so.io = o->io;
    so.default_namespace = ns;
    so.threads = o->threads;
    so.memory_limit = o->memory_limit;
    so.cache = o->cache;
    so.queue = o->queue;
    so.user = c->who.name;
    so.auth = c->who.anonymous ? NULL : o->auth;
    so.principal = o->auth ? &c->who : NULL;
    FL_TRY(fl_sql_session_open(&so, out, err));
    fl_sql_result *r = NULL;
    fl_status rc = fl_sql_execute(*out, "BEGIN READ ONLY", &r, err);
    fl_sql_result_close(r);
    if (rc != FL_OK) {
        fl_sql_session_close(*out);
        *out = NULL;
    }
    return rc;
}

void mcp_sql_error_text(fl_sql_session *s, const fl_error *e, char *buf, size_t cap)
{
    fl_sql_error_info info = {{0}, 0};
    if (s)
        fl_sql_last_error(s, &info);
    const char *st = info.sqlstate[0] ? info.sqlstate : fl_error_sqlstate(e);
    snprintf(buf, cap, "%s (SQLSTATE %s)", e->msg[0] ? e->msg : "statement failed",
             st ? st : "XX000");
}

void mcp_reads_append(const fl_sql_result *r, json_t *arr)
{
    uint32_t n = fl_sql_result_nreads(r);
    for (uint32_t i = 0; i < n; i++) {
        const fl_sql_table_read *t = fl_sql_result_read(r, i);
        bool seen = false;
        size_t k;
        json_t *e;
        json_array_foreach(arr, k, e)
        {
            if (!strcmp(json_string_value(json_object_get(e, "table")), t->table) &&
                json_integer_value(json_object_get(e, "snapshot_id")) == t->snapshot_id)
                seen = true;
        }
        if (!seen)
            json_array_append_new(arr, json_pack("{s:s, s:I}", "table", t->table, "snapshot_id",
                                                 (json_int_t)t->snapshot_id));
    }
}

json_t *mcp_receipt(const mcp_call *c, json_t *reads)
{
    return json_pack("{s:s, s:O, s:b}", "principal", c->who.name, "tables", reads, "authorized",
                     c->m->opt.auth != NULL && !c->who.anonymous);
}

json_t *mcp_columns_json(const fl_schema *sch)
{
    json_t *cols = json_array();
    for (uint32_t i = 0; cols && i < sch->nfields; i++) {
        char tb[128];
        json_array_append_new(
            cols, json_pack("{s:s, s:s}", "name", sch->fields[i].name ? sch->fields[i].name : "?",
                            "type", fl_sql_type_name(&sch->fields[i].type, tb, sizeof tb)));
    }
    return cols;
}

fl_status mcp_sql_rows(fl_sql_session *s, const char *sql, uint64_t max_rows, json_t **cols,
                       json_t **rows, bool *more, json_t *reads, fl_error *err)
{
    *cols = *rows = NULL;
    *more = false;
    fl_sql_result *r = NULL;
    FL_TRY(fl_sql_execute(s, sql, &r, err));
    fl_sql_formatter *f = NULL;
    fl_status rc = fl_sql_formatter_new(fl_sql_get(s, "time_zone"), &f, err);
    *cols = mcp_columns_json(fl_sql_result_schema(r));
    *rows = json_array();
    uint64_t n = 0;
    while (rc == FL_OK) {
        const fl_batch *b = NULL;
        bool eof = false;
        rc = fl_sql_result_next(r, &b, &eof, err);
        if (rc != FL_OK || eof)
            break;
        for (uint32_t i = 0; i < b->nrows; i++) {
            if (n >= max_rows) {
                *more = true;
                break;
            }
            json_t *row = json_array();
            for (uint32_t k = 0; k < b->ncols; k++)
                json_array_append_new(row, mcp_value_json(f, &b->cols[k], i));
            json_array_append_new(*rows, row);
            n++;
        }
        if (*more)
            break;
    }
    if (rc == FL_OK && reads)
        mcp_reads_append(r, reads);
    fl_sql_formatter_free(f);
    fl_sql_result_close(r);
    if (rc != FL_OK) {
        json_decref(*cols), json_decref(*rows);
        *cols = *rows = NULL;
    }
    return rc;
}

char *mcp_quote_ident(const char *s)
{
    size_t n = strlen(s), o = 0;
    char *q = malloc(2 * n + 3);
    if (!q)
        return NULL;
    q[o++] = '"';
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"')
            q[o++] = '"';
        q[o++] = s[i];
    }
    q[o++] = '"';
    q[o] = '\0';
    return q;
}

char *mcp_quote_table(const char *dotted, fl_error *err)
{
    fl_arena a;
    fl_arena_init(&a, 4096);
    fl_table_ident id;
    if (fl_table_ident_parse(dotted, &a, &id, err) != FL_OK || !id.ns.nlevels) {
        if (!err->msg[0] || !id.ns.nlevels)
            fl_errorf(err, FL_EINVAL, "table \"%s\" must be namespace.table", dotted);
        fl_arena_free(&a);
        return NULL;
    }
    char *out = NULL;
    size_t len = 0, cap = 0;
    bool ok = true;
    for (uint32_t i = 0; ok && i <= id.ns.nlevels; i++) {
        char *q = mcp_quote_ident(i < id.ns.nlevels ? id.ns.levels[i] : id.name);
        ok = q && (!i || mcp_buf_put(&out, &len, &cap, ".", 1)) &&
             mcp_buf_put(&out, &len, &cap, q, strlen(q));
        free(q);
    }
    fl_arena_free(&a);
    if (!ok) {
        free(out);
        fl_errorf(err, FL_ENOMEM, "out of memory");
        return NULL;
    }
    return out;
}
