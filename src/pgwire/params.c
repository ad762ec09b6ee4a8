/*
 * params.c - running a prepared statement with bound values, and SQL-level
 * PREPARE name [(types)] AS stmt / EXECUTE name [(args)].
 *
 * The engine types the parameters of queries and of INSERT/UPDATE/DELETE/
 * MERGE from their context (target columns, comparisons: fl_sql_prepare),
 * and those statements are bound: fl_sql_stmt_execute casts each value to
 * its parameter's type. Only a command with a parameter no context types
 * (e.g. `UPDATE t SET x = $1 || $2`) falls back to inlining the values as
 * SQL literals before the text goes to fl_sql_execute: NULL, or '...'
 * (quotes doubled; standard_conforming_strings
 * is on) with ::type when the client declared a type (Parse OIDs, PREPARE's
 * type list, or a binary value's type) - except numeric, which stays untyped
 * so that 38-digit values reach numeric(38,s) columns unrounded. An untyped literal is PostgreSQL's
 * "unknown" and takes its type from the context, as a parameter would. The
 * lexer (include/floe/sql_lex.h) finds the $n tokens, so $n inside strings, quoted
 * identifiers and comments is left alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "floe/pgtypes.h"
#include "pgwire/pgw.h"
#include "floe/sql_lex.h"

/* Text of one non-null value (caller frees). */
static char *value_text(const fl_value *v)
{
    if (v->type.id == FL_TYPE_STRING)
        return strndup((const char *)v->v.bytes.ptr, v->v.bytes.len);
    fl_vector vec;
    memset(&vec, 0, sizeof vec);
    fl_error err = {0};
    if (fl_vector_init(&vec, &v->type, &err) != FL_OK)
        return NULL;
    fl_status rc;
    if (v->type.id == FL_TYPE_BINARY || v->type.id == FL_TYPE_FIXED || v->type.id == FL_TYPE_UUID)
        rc = v->type.id == FL_TYPE_BINARY ? fl_vector_append_bytes(&vec, v->v.bytes.ptr,
                                                                    v->v.bytes.len, &err)
                                          : fl_vector_append_fixed(&vec, v->v.bytes.ptr, &err);
    else
        rc = fl_vector_append_fixed(&vec, &v->v, &err);
    char *out = NULL;
    if (rc == FL_OK) {
        char small[128];
        size_t need = fl_sql_format_value(&vec, 0, "UTC", small, sizeof small);
        out = malloc(need + 1);
        if (out && need < sizeof small)
            memcpy(out, small, need + 1);
        else if (out)
            fl_sql_format_value(&vec, 0, "UTC", out, need + 1);
    }
    fl_vector_destroy(&vec);
    return out;
}

static void put_literal(pgw_buf *b, const fl_value *v, uint32_t oid)
{
    if (v->is_null) {
        pgw_buf_put(b, "NULL", 4);
        return;
    }
    char *t = value_text(v);
    if (!t) {
        b->oom = true;
        return;
    }
    pgw_buf_put(b, "'", 1);
    for (const char *p = t; *p; p++) {
        if (*p == '\'')
            pgw_buf_put(b, "'", 1);
        pgw_buf_put(b, p, 1);
    }
    pgw_buf_put(b, "'", 1);
    free(t);
    const fl_pg_type_info *ti = fl_pg_type_by_oid(oid);
    /* numeric stays an untyped literal: ::numeric would round to the engine's
     * default scale before the value reaches a numeric(38,10) column */
    if (oid && oid != FL_PG_OID_TEXT && oid != FL_PG_OID_UNKNOWN && oid != FL_PG_OID_VARCHAR &&
        oid != FL_PG_OID_NUMERIC && ti) {
        char cast[96];
        snprintf(cast, sizeof cast, "::%s", ti->name);
        pgw_buf_put(b, cast, strlen(cast));
    }
}

char *pgw_inline_params(const char *sql, const fl_value *params, const uint32_t *oids, uint32_t n)
{
    pgw_buf b = {0};
    size_t len = strlen(sql), pos = 0, copied = 0;
    for (;;) {
        fl_tok t = fl_lex_next(sql, len, &pos);
        if (t.kind == FL_TOK_EOF || t.kind == FL_TOK_ERROR)
            break;
        if (t.kind != FL_TOK_PARAM)
            continue;
        long k = strtol(sql + t.start + 1, NULL, 10);
        if (k < 1 || (uint32_t)k > n)
            continue; /* the engine reports it */
        pgw_buf_put(&b, sql + copied, t.start - copied);
        const fl_value *v = &params[k - 1];
        uint32_t oid = oids ? oids[k - 1] : 0;
        if (!oid && !v->is_null && v->type.id != FL_TYPE_STRING)
            oid = fl_pg_type_oid(&v->type);
        put_literal(&b, v, oid);
        copied = t.start + t.len;
    }
    pgw_buf_put(&b, sql + copied, len - copied + 1);
    if (b.oom) {
        pgw_buf_free(&b);
        return NULL;
    }
    return (char *)b.p;
}

fl_status pgw_stmt_run(pgw_conn *c, pgw_stmt *s, const fl_value *params, uint32_t n,
                       fl_sql_result **out, fl_error *err)
{
    if (s->cls->kind == PGW_K_ENGINE && !s->cls->select && n > 0 &&
        !fl_sql_stmt_params_typed(s->st)) {
        if (n != s->nparams)
            return fl_errorf(err, FL_EINVAL, "statement has %u parameters but %u values were given",
                             s->nparams, n);
        char *q = pgw_inline_params(s->sql, params, s->param_oids, n);
        if (!q)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        fl_status rc = fl_sql_execute(c->sess, q, out, err);
        free(q);
        return rc;
    }
    return fl_sql_stmt_execute(s->st, params, n, out, err);
}

/* The statement text after "PREPARE name [(types)] AS". */
static const char *prepare_body(const char *sql)
{
    size_t len = strlen(sql), pos = 0;
    int depth = 0, ntok = 0;
    for (;;) {
        fl_tok t = fl_lex_next(sql, len, &pos);
        if (t.kind == FL_TOK_EOF || t.kind == FL_TOK_ERROR)
            return NULL;
        ntok++;
        if (t.kind == FL_TOK_PUNCT && sql[t.start] == '(')
            depth++;
        else if (t.kind == FL_TOK_PUNCT && sql[t.start] == ')')
            depth--;
        else if (depth == 0 && ntok > 2 && t.kind == FL_TOK_IDENT && fl_tok_is(sql, &t, "as"))
            return sql + t.start + t.len;
    }
}

bool pgw_run_prepare(pgw_conn *c, const char *sql, const pgw_class *k)
{
    const char *body = prepare_body(sql);
    if (!body || k->bad_arg) {
        pgw_send_error(c, "ERROR", "42601", 0, "cannot read PREPARE name [(types)] AS statement");
        return false;
    }
    if (!k->name[0]) {
        pgw_send_error(c, "ERROR", "42601", 0, "PREPARE needs a statement name");
        return false;
    }
    if (!pgw_stmt_create(c, k->name, body, k->oids, k->nargs))
        return false;
    pgw_send_complete(c, "PREPARE");
    return true;
}

bool pgw_run_execute(pgw_conn *c, const pgw_class *k)
{
    pgw_stmt *s = NULL;
    for (pgw_stmt *x = c->stmts; x; x = x->next)
        if (!strcmp(x->name, k->name))
            s = x;
    if (!s) {
        pgw_send_error(c, "ERROR", "26000", 0, "prepared statement \"%s\" does not exist", k->name);
        return false;
    }
    if (k->bad_arg) {
        pgw_send_error(c, "ERROR", "0A000", 0, "EXECUTE arguments must be constants");
        return false;
    }
    if (k->nargs != s->nparams) {
        pgw_send_error(c, "ERROR", "42601", 0, "wrong number of parameters for prepared statement "
                       "\"%s\": expected %u, got %u", k->name, s->nparams, k->nargs);
        return false;
    }
    if (s->cls->kind != PGW_K_ENGINE) {
        return pgw_run_classified(c, s->sql, s->cls);
    }
    fl_value vals[PGW_MAX_ARGS];
    memset(vals, 0, sizeof vals);
    for (uint32_t i = 0; i < k->nargs; i++) {
        vals[i].is_null = k->arg_null[i];
        vals[i].type.id = FL_TYPE_STRING;
        vals[i].v.bytes.ptr = (const uint8_t *)k->argbuf + k->arg_off[i];
        vals[i].v.bytes.len = strlen(k->argbuf + k->arg_off[i]);
    }
    fl_sql_result *res = NULL;
    fl_error err = {0};
    fl_status rc = pgw_stmt_run(c, s, vals, k->nargs, &res, &err);
    if (rc != FL_OK) {
        pgw_send_sql_error(c, rc, &err);
        return false;
    }
    pgw_note_block_ddl(c, s->cls);
    bool ok = true;
    if (fl_sql_result_schema(res)->nfields == 0) {
        pgw_send_complete(c, fl_sql_result_tag(res));
    } else {
        pgw_portal p;
        memset(&p, 0, sizeof p);
        p.res = res;
        pgw_send_rowdesc(c, fl_sql_result_schema(res), NULL, 0);
        ok = pgw_send_rows(c, &p, 0, false) == 1;
        if (ok)
            pgw_send_complete(c, fl_sql_result_tag(res));
    }
    fl_sql_result_close(res);
    return ok;
}
