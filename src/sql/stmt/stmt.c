/*
 * stmt.c - the statement dispatcher (stmt.h): which parsed statements are
 * commands, and running them. ALTER TABLE ... EXECUTE arrives as
 * fl_sql_parsed.execute (the pre-lexer took it out of the text); everything
 * else is the libpg_query node of the single statement.
 *
 * Handlers live one concept per file: ddl_schema.c (CREATE/DROP SCHEMA,
 * DROP dispatch), ddl_table.c (CREATE TABLE, CREATE TABLE AS), ddl_alter.c
 * (ALTER TABLE, RENAME), dml_insert.c, dml_delete.c (DELETE, TRUNCATE),
 * dml_update.c, dml_merge.c, maint.c (EXECUTE procedures), session_stmt.c
 * (SET/SHOW/RESET, transaction control, views). Small result tables (SHOW,
 * maintenance reports) are built here.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql/stmt/stmt_int.h"

bool fl_stmt_is_command(const fl_sql_parsed *p)
{
    if (!p)
        return false;
    if (p->execute || p->habit)
        return true;
    if (!p->stmt)
        return false;
    switch (p->stmt->node_case) {
    case PG_QUERY__NODE__NODE_SELECT_STMT:
    case PG_QUERY__NODE__NODE_EXPLAIN_STMT:
        return false;
    default:
        return true;
    }
}

static const char *node_name(PgQuery__Node__NodeCase k)
{
    const ProtobufCFieldDescriptor *f =
        protobuf_c_message_descriptor_get_field(&pg_query__node__descriptor, (unsigned)k);
    return f ? f->name : "unknown";
}

static fl_status dispatch(fl_stmt_ctx *c, const PgQuery__Node *n, fl_stmt_result *out,
                          fl_error *err)
{
    switch (n->node_case) {
    case PG_QUERY__NODE__NODE_CREATE_SCHEMA_STMT:
        return stmt_create_schema(c, n->create_schema_stmt, out, err);
    case PG_QUERY__NODE__NODE_DROP_STMT:
        return stmt_drop(c, n->drop_stmt, out, err);
    case PG_QUERY__NODE__NODE_CREATE_STMT:
        return stmt_create_table(c, n->create_stmt, out, err);
    case PG_QUERY__NODE__NODE_CREATE_TABLE_AS_STMT:
        return stmt_ctas(c, n->create_table_as_stmt, out, err);
    case PG_QUERY__NODE__NODE_ALTER_TABLE_STMT:
        return stmt_alter_table(c, n->alter_table_stmt, out, err);
    case PG_QUERY__NODE__NODE_RENAME_STMT:
        return stmt_rename(c, n->rename_stmt, out, err);
    case PG_QUERY__NODE__NODE_INSERT_STMT:
        return stmt_insert(c, n->insert_stmt, out, err);
    case PG_QUERY__NODE__NODE_DELETE_STMT:
        return stmt_delete(c, n->delete_stmt, out, err);
    case PG_QUERY__NODE__NODE_UPDATE_STMT:
        return stmt_update(c, n->update_stmt, out, err);
    case PG_QUERY__NODE__NODE_MERGE_STMT:
        return stmt_merge(c, n->merge_stmt, out, err);
    case PG_QUERY__NODE__NODE_TRUNCATE_STMT:
        return stmt_truncate(c, n->truncate_stmt, out, err);
    case PG_QUERY__NODE__NODE_VARIABLE_SET_STMT:
        return stmt_set(c, n->variable_set_stmt, out, err);
    case PG_QUERY__NODE__NODE_VARIABLE_SHOW_STMT:
        return stmt_show(c, n->variable_show_stmt, out, err);
    case PG_QUERY__NODE__NODE_TRANSACTION_STMT:
        return stmt_transaction(c, n->transaction_stmt, out, err);
    case PG_QUERY__NODE__NODE_VIEW_STMT:
        return stmt_view(c, n->view_stmt, out, err);
    case PG_QUERY__NODE__NODE_VACUUM_STMT:
        return stmt_analyze(c, n->vacuum_stmt, out, err);
    case PG_QUERY__NODE__NODE_COPY_STMT:
        return stmt_copy(c, n->copy_stmt, out, err);
    default:
        return fl_errorf(err, FL_EUNSUPPORTED, "statement %s is not supported",
                         node_name(n->node_case));
    }
}

fl_status fl_stmt_run(fl_stmt_ctx *ctx, fl_stmt_result *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    out->committed_snapshot_id = -1;
    if (!ctx || !ctx->planner || !ctx->planner->parsed || !ctx->planner->arena)
        return fl_errorf(err, FL_EINVAL, "statement: no parsed statement");
    const fl_sql_parsed *p = ctx->planner->parsed;
    fl_status rc;
    if (p->execute) {
        rc = stmt_check_read_only(ctx, NULL, err);
        if (rc == FL_OK)
            rc = stmt_execute(ctx, p->execute, out, err);
    }
    else if (p->habit)
        rc = stmt_habit(ctx, p->habit, out, err);
    else if (p->stmt) {
        rc = stmt_check_read_only(ctx, p->stmt, err);
        if (rc == FL_OK)
            rc = dispatch(ctx, p->stmt, out, err);
    }
    else
        rc = fl_errorf(err, FL_EINVAL, "statement: empty statement");
    if (rc != FL_OK) {
        fl_stmt_result_free(out);
        out->committed_snapshot_id = -1;
    }
    return rc;
}

void fl_stmt_result_free(fl_stmt_result *r)
{
    if (!r)
        return;
    if (r->batches)
        fl_exec_free_batches(r->batches, r->nbatches);
    r->batches = NULL;
    r->nbatches = 0;
}

/* ---- results ---- */

void stmt_tag(fl_stmt_result *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->tag, sizeof out->tag, fmt, ap);
    va_end(ap);
}

static fl_status one_batch(fl_stmt_ctx *c, fl_stmt_result *out, fl_schema *s, fl_batch **bp,
                           fl_error *err)
{
    (void)c;
    fl_batch *b = calloc(1, sizeof *b);
    fl_batch **arr = calloc(1, sizeof *arr);
    if (!b || !arr) {
        free(b);
        free(arr);
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    fl_status rc = fl_batch_init(b, s, err);
    if (rc != FL_OK) {
        free(b);
        free(arr);
        return rc;
    }
    arr[0] = b;
    out->batches = arr;
    out->nbatches = 1;
    out->schema = *s;
    *bp = b;
    return FL_OK;
}

static fl_schema *result_schema(fl_arena *a, const char *const *names, uint32_t n, fl_type_id t)
{
    fl_schema *s = fl_arena_calloc(a, 1, sizeof *s);
    fl_field *f = fl_arena_calloc(a, n + 1, sizeof *f);
    if (!s || !f)
        return NULL;
    for (uint32_t i = 0; i < n; i++) {
        f[i].name = fl_arena_strdup(a, names[i]);
        f[i].nullable = true;
        f[i].type.id = t;
    }
    s->fields = f;
    s->nfields = n;
    return s;
}

fl_status stmt_result_counts(fl_stmt_ctx *c, fl_stmt_result *out, const char *const *names,
                             const int64_t *v, uint32_t ncols, fl_error *err)
{
    fl_schema *s = result_schema(c->planner->arena, names, ncols, FL_TYPE_INT64);
    if (!s)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_batch *b;
    FL_TRY(one_batch(c, out, s, &b, err));
    for (uint32_t i = 0; i < ncols; i++)
        FL_TRY(fl_vector_append_fixed(&b->cols[i], &v[i], err));
    b->nrows = 1;
    return FL_OK;
}

fl_status stmt_result_strings(fl_stmt_ctx *c, fl_stmt_result *out, const char *const *names,
                              uint32_t ncols, const char *const *cells, uint32_t nrows,
                              fl_error *err)
{
    fl_schema *s = result_schema(c->planner->arena, names, ncols, FL_TYPE_STRING);
    if (!s)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_batch *b;
    FL_TRY(one_batch(c, out, s, &b, err));
    if (nrows > FL_BATCH_CAP)
        return fl_errorf(err, FL_ELIMIT, "result of %u rows exceeds one batch", nrows);
    for (uint32_t r = 0; r < nrows; r++)
        for (uint32_t i = 0; i < ncols; i++) {
            const char *v = cells[(size_t)r * ncols + i];
            FL_TRY(v ? fl_vector_append_bytes(&b->cols[i], v, strlen(v), err)
                     : fl_vector_append_null(&b->cols[i], err));
        }
    b->nrows = nrows;
    return FL_OK;
}
