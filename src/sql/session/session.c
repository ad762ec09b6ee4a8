/*
 * session.c - sql.h's sessions: open/close, execute (parse -> command
 * dispatch to stmt.h, or plan -> executor), EXPLAIN [ANALYZE], prepared
 * statements with $n parameters, cancel, and error details.
 *
 * One statement runs at a time per session; its memory (parse tree, plan,
 * loaded metadata) is the result's arena, freed by fl_sql_result_close.
 * Cancellation is an atomic flag handed to the executor through
 * fl_eval_env.cancel; statement_timeout starts a watchdog thread that sets
 * the same flag (session_result.c). Progress works the same way the other
 * direction: the session owns atomic counters (fl_exec_progress), reset at
 * each statement's start and handed to the executor as
 * fl_exec_options.progress; the scans add to them and
 * fl_sql_session_progress reads them from any thread.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "floe/s3.h"
#include "floe/sql_lex.h"
#include "sql/authz/authz.h"
#include "sql/planner.h"
#include "sql/session/cache.h"
#include "sql/session/session_internal.h"
#include "sql/stmt/txn_block.h"

/* metacache hook: the session's FileIO becomes a cache FileIO carrying
 * opt->cache (or a private cache), so the planner and scans find it
 * (src/sql/session/cache.h). */
static fl_status session_cache_io(fl_sql_session *s, const fl_sql_options *opt, fl_error *err)
{
    fl_fileio *w = NULL;
    FL_TRY(fl_sql_cache_wrap_io(opt->cache, s->io, s->own_io, &w, err));
    s->io = w;
    s->own_io = true;
    return FL_OK;
}

/* A new statement's counters: zeros first, then the statement number, so
 * a reader that sees the new number sees the zeros (or later counts). */
static void progress_reset(fl_exec_progress *p)
{
    atomic_store(&p->files_total, 0);
    atomic_store(&p->files_done, 0);
    atomic_store(&p->rows_scanned, 0);
    atomic_store(&p->bytes_read, 0);
    atomic_fetch_add(&p->statement, 1);
}

fl_status fl_sql_session_open(const fl_sql_options *opt, fl_sql_session **out, fl_error *err)
{
    *out = NULL;
    fl_sql_options none;
    memset(&none, 0, sizeof none);
    if (!opt)
        opt = &none;
    fl_sql_session *s = calloc(1, sizeof *s);
    if (!s)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_status rc = FL_OK;
    if (opt->io) {
        s->io = opt->io;
    } else {
        rc = fl_fileio_default(NULL, &s->io, err);
        s->own_io = rc == FL_OK;
    }
    if (rc == FL_OK)
        rc = session_cache_io(s, opt, err);
    if (rc == FL_OK && opt->catalog) {
        s->catalog = opt->catalog;
    } else if (rc == FL_OK && opt->catalog_uri) {
        rc = fl_catalog_open_uri(opt->catalog_uri, NULL,
                                 opt->warehouse ? opt->warehouse : "./warehouse", s->io,
                                 &s->catalog, err);
        s->own_catalog = rc == FL_OK;
        if (rc != FL_OK)
            fl_error_prefix(err, "catalog %s", opt->catalog_uri);
    }
    if (rc == FL_OK)
        rc = fl_session_settings_init(s, err);
    if (rc == FL_OK)
        rc = fl_sql_authz_new(opt->auth, opt->principal, NULL, &s->authz, err);
    if (rc == FL_OK && s->catalog)
        rc = fl_sql_authz_guard_new(s->catalog, s->authz, &s->guard, err);
    if (rc == FL_OK && s->guard)
        rc = fl_session_temp_new(s->guard, s->catalog->io ? s->catalog->io : s->io,
                                 opt->spill_dir, &s->temp, err);
    if (rc == FL_OK && s->temp)
        fl_sql_authz_set_temp(s->authz, s->temp);
    s->default_namespace = strdup(opt->default_namespace ? opt->default_namespace : "default");
    s->time_zone = strdup(opt->time_zone ? opt->time_zone : "UTC");
    s->spill_dir = opt->spill_dir ? strdup(opt->spill_dir) : NULL;
    s->user = strdup(opt->user && opt->user[0] ? opt->user : "floe");
    s->threads = opt->threads;
    s->memory_limit = opt->memory_limit;
    s->ext = opt->extension;
    s->queue = opt->queue;
    fl_session_limits_open(s, opt); /* ceilings; default statement_timeout */
    atomic_init(&s->cancel, 0);
    progress_reset(&s->progress);
    atomic_store(&s->progress.statement, 0); /* none started yet */
    if (rc == FL_OK && (!s->default_namespace || !s->time_zone || !s->user || (opt->spill_dir && !s->spill_dir)))
        rc = fl_errorf(err, FL_ENOMEM, "out of memory");
    if (rc != FL_OK) {
        fl_sql_session_close(s);
        return rc;
    }
    memcpy(s->last.sqlstate, "00000", 6);
    *out = s;
    return FL_OK;
}

void fl_sql_session_close(fl_sql_session *s)
{
    if (!s)
        return;
    while (s->open)
        fl_sql_result_close(s->open);
    fl_txn_block_rollback(s->block); /* an open block is discarded, as a lost connection's */
    s->block = NULL;
    fl_session_temp_free(s->temp); /* drops every temporary table, removes its files */
    s->temp = NULL;
    fl_sql_authz_guard_free(s->guard);
    fl_sql_authz_free(s->authz);
    if (s->own_catalog)
        fl_catalog_close(s->catalog);
    if (s->own_io)
        fl_fileio_destroy(s->io);
    free(s->default_namespace);
    free(s->time_zone);
    free(s->spill_dir);
    free(s->user);
    fl_session_settings_free(s);
    free(s);
}

fl_status fl_sql_session_allow_file(fl_sql_session *s, const char *path, fl_error *err)
{
    return fl_sql_authz_allow_file(s->authz, path, err);
}

void fl_sql_session_cancel(fl_sql_session *s)
{
    if (s)
        atomic_store(&s->cancel, 1);
}

void fl_sql_session_progress(fl_sql_session *s, fl_sql_progress *out)
{
    memset(out, 0, sizeof *out);
    if (!s)
        return;
    /* done before total: a file is added to total before it can be done,
     * so this order never reads more done than total (but for a reset
     * between the loads, hence the clamp) */
    out->statement = atomic_load(&s->progress.statement); /* first: see progress_reset */
    out->files_done = atomic_load(&s->progress.files_done);
    out->files_total = atomic_load(&s->progress.files_total);
    out->rows_scanned = atomic_load(&s->progress.rows_scanned);
    out->bytes_read = atomic_load(&s->progress.bytes_read);
    if (out->files_done > out->files_total)
        out->files_done = out->files_total;
}

void fl_sql_last_error(const fl_sql_session *s, fl_sql_error_info *out)
{
    if (!s) {
        memset(out, 0, sizeof *out);
        return;
    }
    *out = s->last;
}

static int64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* EXPLAIN output: one text column, one row per line. */
static fl_status explain_batches(fl_sql_result *r, const char *text, fl_error *err)
{
    fl_field *f = fl_arena_calloc(&r->arena, 1, sizeof *f);
    if (!f)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    f->name = "QUERY PLAN";
    f->type.id = FL_TYPE_STRING;
    f->nullable = false;
    r->sr.schema.nfields = 1;
    r->sr.schema.fields = f;
    r->sr.batches = calloc(1, sizeof(fl_batch *));
    fl_batch *b = calloc(1, sizeof *b);
    if (!r->sr.batches || !b) {
        free(b);
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    r->sr.batches[0] = b;
    r->sr.nbatches = 1;
    FL_TRY(fl_batch_init(b, &r->sr.schema, err));
    uint32_t rows = 0;
    for (const char *p = text; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        FL_TRY(fl_vector_append_bytes(&b->cols[0], p, len, err));
        rows++;
        p = nl ? nl + 1 : p + len;
    }
    b->nrows = rows;
    snprintf(r->sr.tag, sizeof r->sr.tag, "EXPLAIN");
    return FL_OK;
}

static bool explain_analyze(const PgQuery__ExplainStmt *e)
{
    for (size_t i = 0; i < e->n_options; i++) {
        const PgQuery__Node *o = e->options[i];
        if (o->node_case != PG_QUERY__NODE__NODE_DEF_ELEM ||
            strcmp(o->def_elem->defname, "analyze") != 0)
            continue;
        const PgQuery__Node *arg = o->def_elem->arg;
        if (!arg)
            return true;
        if (arg->node_case == PG_QUERY__NODE__NODE_BOOLEAN)
            return arg->boolean->boolval;
        if (arg->node_case == PG_QUERY__NODE__NODE_STRING)
            return strcmp(arg->string->sval, "false") != 0 && strcmp(arg->string->sval, "off");
        return true;
    }
    return false;
}

static fl_status run_explain(fl_sql_result *r, const PgQuery__ExplainStmt *e, fl_error *err)
{
    fl_plan *p;
    FL_TRY(fl_planner_plan_query(&r->pc, e->query, &p, err));
    r->plan = p;
    bool analyze = explain_analyze(e);
    if (analyze) {
        fl_exec *x = NULL;
        FL_TRY(fl_exec_open(p, &r->xo, &x, err));
        fl_status rc = FL_OK;
        for (;;) {
            const fl_batch *b;
            bool eof = false;
            rc = fl_exec_next(x, &b, &eof, err);
            if (rc != FL_OK || eof)
                break;
        }
        fl_exec_close(x);
        FL_TRY(rc);
    }
    const char *text = fl_plan_explain(p, analyze, &r->arena);
    if (!text)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    r->is_command = true;
    return explain_batches(r, text, err);
}

/* The catalog statements plan through: the block's while one is open. */
fl_catalog *fl_session_base_catalog(fl_sql_session *s)
{
    return s->temp ? fl_session_temp_catalog(s->temp) : s->guard;
}

static fl_catalog *session_catalog(fl_sql_session *s)
{
    return s->block ? fl_txn_block_catalog(s->block) : fl_session_base_catalog(s);
}

/* COMMIT, ROLLBACK and ROLLBACK TO: what a failed block still accepts. */
static bool ends_failure(const fl_sql_parsed *p)
{
    const PgQuery__Node *n = p ? p->stmt : NULL;
    if (!n || n->node_case != PG_QUERY__NODE__NODE_TRANSACTION_STMT)
        return false;
    PgQuery__TransactionStmtKind k = n->transaction_stmt->kind;
    return k == PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_COMMIT ||
           k == PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_ROLLBACK ||
           k == PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_ROLLBACK_TO;
}

/* The planner context of one statement in session s (other fields are left
 * as the caller set them). */
static void planner_ctx_init(fl_sql_session *s, fl_arena *a, const fl_sql_parsed *p,
                             fl_planner_ctx *pc)
{
    pc->arena = a;
    pc->catalog = session_catalog(s);
    pc->io = s->io;
    pc->default_namespace = s->default_namespace;
    pc->time_zone = s->time_zone;
    pc->user = s->user;
    pc->session = s;
    pc->authz = s->authz;
    pc->ext = s->ext;
    pc->statement_time_us = now_us();
    pc->parsed = p;
}

/* A transaction ended with this statement (autocommit, or the block's
 * COMMIT/ROLLBACK): ON COMMIT actions of temporary tables. rc is the
 * statement's status (a failure ends its transaction as a rollback);
 * returns it, or the first ON COMMIT failure of a successful statement. */
static fl_status temp_end_xact(fl_sql_session *s, fl_sql_result *r, bool had_block,
                               fl_status rc, fl_error *err)
{
    if (!fl_session_temp_count(s->temp) || s->block)
        return rc;
    bool rolled_back = rc != FL_OK;
    if (had_block && rc == FL_OK)
        rolled_back = strcmp(r->sr.tag, "ROLLBACK") == 0;
    fl_error e2;
    fl_error_clear(&e2);
    fl_status trc = fl_session_temp_end_xact(s->temp, rolled_back, &e2);
    if (rc != FL_OK || trc == FL_OK)
        return rc;
    if (err)
        *err = e2;
    return trc;
}

/* The block's whole record (it accumulated since BEGIN), audited as its COMMIT. */
static void audit_block(fl_sql_session *s, fl_sql_result *r, const char *sql)
{
    fl_sql_access *all = NULL;
    uint32_t n = 0;
    fl_error e;
    fl_error_clear(&e);
    if (fl_sql_authz_copy(s->authz, 0, &r->arena, &all, &n, &e) == FL_OK)
        fl_sql_authz_audit(s->authz, all, n, "COMMIT", sql);
}

/* The extension's rewrite of *sql (fl_sql_extension): *sql becomes an
 * arena copy of the statement to run instead, when there is one. */
static fl_status session_rewrite(fl_sql_session *s, fl_arena *a, const char **sql, int32_t *pos,
                                 fl_error *err)
{
    if (!s->ext || !s->ext->rewrite || !*sql)
        return FL_OK;
    char *out = NULL;
    FL_TRY(s->ext->rewrite(s->ext->ctx, *sql, &out, pos, err));
    if (!out)
        return FL_OK;
    const char *copy = fl_arena_strdup(a, out);
    free(out);
    if (!copy)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    *sql = copy;
    return FL_OK;
}

fl_status fl_session_run(fl_sql_session *s, const char *sql, const fl_value *params,
                         uint32_t nparams, const fl_type *param_types, fl_sql_result **out,
                         fl_error *err)
{
    *out = NULL;
    memset(&s->last, 0, sizeof s->last);
    memcpy(s->last.sqlstate, "00000", 6);
    fl_sql_result *r;
    FL_TRY(fl_session_result_new(s, &r, err));
    int32_t pos = 0;
    fl_status rc = session_rewrite(s, &r->arena, &sql, &pos, err);
    if (rc == FL_OK)
        rc = fl_sql_parse(sql, &r->arena, &r->parsed, &pos, err);
    if (rc != FL_OK) {
        memcpy(s->last.sqlstate, fl_error_sqlstate(err), 6);
        s->last.position = pos;
        fl_sql_result_close(r);
        if (s->block)
            fl_txn_block_set_failed(s->block);
        return rc;
    }
    if (s->block && fl_txn_block_failed(s->block) && !ends_failure(r->parsed)) {
        fl_sql_result_close(r);
        fl_error_state(err, FL_EINVAL, "25P02",
                       "current transaction is aborted, commands ignored until end of "
                       "transaction block");
        memcpy(s->last.sqlstate, fl_error_sqlstate(err), 6);
        return FL_EINVAL;
    }
    bool had_block = s->block != NULL;
    r->access_mark = fl_sql_authz_begin(s->authz, had_block);
    rc = fl_session_temp_rewrite(s->temp, r->parsed, had_block, &r->arena, &r->temp_undo, err);
    if (rc != FL_OK) {
        fl_session_record_error(s, r, rc, err);
        fl_sql_result_close(r);
        return rc;
    }
    fl_planner_ctx *pc = &r->pc;
    planner_ctx_init(s, &r->arena, r->parsed, pc);
    if (nparams && param_types) {
        pc->param_types = fl_arena_calloc(&r->arena, nparams, sizeof(fl_type));
        if (!pc->param_types) {
            fl_sql_result_close(r);
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        }
        memcpy(pc->param_types, param_types, nparams * sizeof(fl_type));
        pc->nparams = nparams;
    }
    if (nparams) {
        r->params = fl_arena_calloc(&r->arena, nparams, sizeof(fl_value));
        if (!r->params) {
            fl_sql_result_close(r);
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        }
        memcpy(r->params, params, nparams * sizeof(fl_value));
    }
    r->xo.threads = s->threads;
    r->xo.memory_limit = s->memory_limit;
    r->xo.spill_dir = s->spill_dir;
    r->xo.env.params = r->params;
    r->xo.env.nparams = nparams;
    r->xo.env.time_zone = s->time_zone;
    r->xo.env.statement_time_us = pc->statement_time_us;
    r->xo.env.cancel = &s->cancel;
    atomic_store(&s->cancel, 0);
    r->xo.progress = &s->progress;
    progress_reset(&s->progress);
    r->open_next = s->open;
    if (s->open)
        s->open->open_prev = r;
    s->open = r;
    rc = fl_session_start_timer(r, err);
    fl_session_cast_undo undo = {.n = 0};
    if (rc == FL_OK && pc->param_types)
        rc = fl_session_param_casts(r->parsed, &r->arena, pc->param_types, nparams, &undo, err);
    const PgQuery__Node *st = r->parsed->stmt;
    /* execution slots (session_slots.c): commands and EXPLAIN ANALYZE hold
     * one while they run, a query from before its executor opens until its
     * result is read or closed */
    if (rc == FL_OK && st && st->node_case == PG_QUERY__NODE__NODE_EXPLAIN_STMT) {
        rc = fl_session_slot_take(r, explain_analyze(st->explain_stmt), err);
        if (rc == FL_OK)
            rc = run_explain(r, st->explain_stmt, err);
        fl_session_slot_release(r);
    } else if (rc == FL_OK && (r->parsed->execute || fl_stmt_is_command(r->parsed))) {
        fl_stmt_ctx sc = {pc, s, &r->xo};
        r->is_command = true;
        rc = fl_session_slot_take(r, fl_session_command_needs_slot(r->parsed), err);
        if (rc == FL_OK)
            rc = fl_stmt_run(&sc, &r->sr, err);
        fl_session_slot_release(r);
    } else if (rc == FL_OK) {
        rc = fl_planner_plan_query(pc, st, &r->plan, err);
        if (rc == FL_OK)
            rc = fl_session_slot_take(r, fl_session_query_needs_slot(r), err);
        if (rc == FL_OK)
            rc = fl_exec_open(r->plan, &r->xo, &r->exec, err);
    }
    fl_session_param_casts_undo(&undo);
    if (rc == FL_OK)
        rc = fl_session_finish_reads(r, err);
    if (rc == FL_OK)
        rc = fl_sql_authz_copy(s->authz, r->access_mark, &r->arena, &r->access, &r->naccess, err);
    if (had_block && !s->block) {
        /* COMMIT or ROLLBACK: what the block changed is audited once, at
         * its COMMIT; then the block's decisions end */
        if (rc == FL_OK && !strcmp(r->sr.tag, "COMMIT"))
            audit_block(s, r, sql);
        fl_sql_authz_end_block(s->authz);
    }
    if (rc == FL_OK || !s->block)
        rc = temp_end_xact(s, r, had_block, rc, err);
    if (rc != FL_OK) {
        fl_session_suggest(r, rc, err);
        fl_session_record_error(s, r, rc, err);
        fl_sql_result_close(r);
        if (s->block)
            fl_txn_block_set_failed(s->block);
        return rc;
    }
    if (r->is_command) {
        r->schema = r->sr.schema;
        snprintf(r->tag, sizeof r->tag, "%s", r->sr.tag);
        if (!had_block && !s->block) /* inside a block: audited at COMMIT */
            fl_sql_authz_audit(s->authz, r->access, r->naccess, r->tag, sql);
    } else {
        r->schema = r->plan->schema;
    }
    *out = r;
    return FL_OK;
}

fl_status fl_sql_execute(fl_sql_session *s, const char *sql, fl_sql_result **out, fl_error *err)
{
    return fl_session_run(s, sql, NULL, 0, NULL, out, err);
}

/* ---- prepared statements ---- */

fl_status fl_sql_prepare(fl_sql_session *s, const char *sql, fl_sql_stmt **out, fl_error *err)
{
    *out = NULL;
    fl_sql_stmt *st = calloc(1, sizeof *st);
    if (!st)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_arena_init(&st->arena, 0);
    st->s = s;
    /* plan once (without running) to learn parameter types and columns */
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_sql_parsed *p = NULL;
    int32_t pos = 0;
    fl_status rc = session_rewrite(s, &st->arena, &sql, &pos, err);
    st->sql = fl_arena_strdup(&st->arena, sql ? sql : "");
    if (rc == FL_OK)
        rc = fl_sql_parse(sql, &a, &p, &pos, err);
    memset(&s->last, 0, sizeof s->last);
    memcpy(s->last.sqlstate, "00000", 6);
    fl_planner_ctx pc;
    memset(&pc, 0, sizeof pc);
    fl_temp_undo undo = {.n = 0};
    fl_sql_authz_begin(s->authz, s->block != NULL);
    if (rc != FL_OK) {
        memcpy(s->last.sqlstate, fl_error_sqlstate(err), 6);
        s->last.position = pos;
    } else if (p->stmt && p->stmt->node_case == PG_QUERY__NODE__NODE_SELECT_STMT &&
               (rc = fl_session_temp_rewrite(s->temp, p, s->block != NULL, &a, &undo, err)) !=
                   FL_OK) {
        memcpy(s->last.sqlstate, fl_error_sqlstate(err), 6);
    } else if (p->stmt && p->stmt->node_case == PG_QUERY__NODE__NODE_SELECT_STMT) {
        planner_ctx_init(s, &a, p, &pc);
        fl_plan *plan = NULL;
        rc = fl_planner_plan_query(&pc, p->stmt, &plan, err);
        if (rc == FL_OK)
            rc = fl_schema_copy(&st->arena, &plan->schema, &st->schema);
        if (rc == FL_OK && pc.nparams) {
            st->param_types = fl_arena_calloc(&st->arena, pc.nparams, sizeof(fl_type));
            if (!st->param_types)
                rc = fl_errorf(err, FL_ENOMEM, "out of memory");
            for (uint32_t i = 0; rc == FL_OK && i < pc.nparams; i++) {
                st->param_types[i] = pc.param_types[i];
                if (st->param_types[i].id == FL_TYPE_STRING)
                    st->param_types[i].fixed_len = 0;
            }
            st->nparams = pc.nparams;
            st->params_typed = true;
        }
        if (rc != FL_OK) {
            memcpy(s->last.sqlstate, fl_error_sqlstate(err), 6);
            s->last.position = pc.error_position;
        }
    } else {
        /* commands: count $n in the text for nparams (types stay text) */
        const char *q = sql;
        uint32_t maxp = 0;
        size_t n = strlen(q), i = 0;
        for (;;) {
            fl_tok t = fl_lex_next(q, n, &i);
            if (t.kind == FL_TOK_EOF || t.kind == FL_TOK_ERROR)
                break;
            if (t.kind == FL_TOK_PARAM) {
                uint32_t k = (uint32_t)atoi(q + t.start + 1);
                if (k > maxp && k < 65536)
                    maxp = k;
            }
        }
        if (maxp) {
            st->param_types = fl_arena_calloc(&st->arena, maxp, sizeof(fl_type));
            pc.param_types = fl_arena_calloc(&a, maxp, sizeof(fl_type));
            if (!st->param_types || !pc.param_types)
                rc = fl_errorf(err, FL_ENOMEM, "out of memory");
            for (uint32_t k = 0; rc == FL_OK && k < maxp; k++)
                pc.param_types[k] = (fl_type){.id = FL_TYPE_STRING, .fixed_len = -1};
            st->nparams = maxp;
        }
        if (rc == FL_OK && maxp) {
            /* DML: types from target columns and comparisons (planned, not run) */
            planner_ctx_init(s, &a, p, &pc);
            pc.nparams = maxp;
            st->params_typed = fl_stmt_infer_params(&pc, p);
            for (uint32_t k = 0; k < maxp; k++) {
                st->param_types[k] = pc.param_types[k];
                if (st->param_types[k].id == FL_TYPE_STRING)
                    st->param_types[k].fixed_len = 0; /* unknown: text */
            }
            memset(&s->last, 0, sizeof s->last); /* inference errors are not reported */
            memcpy(s->last.sqlstate, "00000", 6);
        }
    }
    fl_planner_ctx_release(&pc);
    fl_session_temp_undo(&undo);
    fl_sql_parsed_free(p);
    fl_arena_free(&a);
    if (rc != FL_OK) {
        fl_sql_stmt_close(st);
        return rc;
    }
    *out = st;
    return FL_OK;
}

bool fl_sql_stmt_params_typed(const fl_sql_stmt *st)
{
    return st && (st->params_typed || st->nparams == 0);
}

uint32_t fl_sql_stmt_nparams(const fl_sql_stmt *st)
{
    return st ? st->nparams : 0;
}

const fl_type *fl_sql_stmt_param_type(const fl_sql_stmt *st, uint32_t i)
{
    static const fl_type text = {.id = FL_TYPE_STRING};
    return st && i < st->nparams ? &st->param_types[i] : &text;
}

const fl_schema *fl_sql_stmt_schema(const fl_sql_stmt *st)
{
    return &st->schema;
}

fl_status fl_sql_stmt_execute(fl_sql_stmt *st, const fl_value *params, uint32_t nparams,
                              fl_sql_result **out, fl_error *err)
{
    *out = NULL;
    if (nparams != st->nparams)
        return fl_errorf(err, FL_EINVAL, "statement has %u parameters but %u values were given",
                         st->nparams, nparams);
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_value *cast = nparams ? fl_arena_calloc(&a, nparams, sizeof(fl_value)) : NULL;
    if (nparams && !cast) {
        fl_arena_free(&a);
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    fl_type *types = nparams ? fl_arena_calloc(&a, nparams, sizeof(fl_type)) : NULL;
    if (nparams && !types) {
        fl_arena_free(&a);
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    fl_eval_env env;
    memset(&env, 0, sizeof env);
    env.time_zone = st->s->time_zone;
    env.statement_time_us = now_us();
    for (uint32_t i = 0; i < nparams; i++) {
        types[i] = st->param_types[i];
        fl_session_param_scale(&st->param_types[i], &params[i], &types[i]);
        if (params[i].is_null || fl_type_equal(&params[i].type, &types[i])) {
            cast[i] = params[i];
            cast[i].type = types[i];
            continue;
        }
        fl_status rc = fl_cast_value(&params[i], &types[i], &env, &a, &cast[i], err);
        if (rc != FL_OK) {
            fl_error_prefix(err, "parameter $%u", i + 1);
            memcpy(st->s->last.sqlstate, fl_error_sqlstate(err), 6);
            fl_arena_free(&a);
            return rc;
        }
    }
    fl_status rc = fl_session_run(st->s, st->sql, cast, nparams, types, out, err);
    /* the result copied the values; var-len bytes must outlive it */
    if (rc == FL_OK && nparams) {
        for (uint32_t i = 0; i < nparams; i++) {
            fl_value *v = &(*out)->params[i];
            if (!v->is_null && (v->type.id == FL_TYPE_STRING || v->type.id == FL_TYPE_BINARY ||
                                v->type.id == FL_TYPE_FIXED || v->type.id == FL_TYPE_UUID)) {
                uint8_t *cp = fl_arena_alloc(&(*out)->arena, v->v.bytes.len + 1);
                if (!cp) {
                    fl_sql_result_close(*out);
                    *out = NULL;
                    fl_arena_free(&a);
                    return fl_errorf(err, FL_ENOMEM, "out of memory");
                }
                memcpy(cp, v->v.bytes.ptr, v->v.bytes.len);
                v->v.bytes.ptr = cp;
            }
        }
    }
    fl_arena_free(&a);
    return rc;
}

void fl_sql_stmt_close(fl_sql_stmt *st)
{
    if (!st)
        return;
    fl_arena_free(&st->arena);
    free(st);
}
