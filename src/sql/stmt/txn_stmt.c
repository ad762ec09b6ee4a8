/*
 * txn_stmt.c - transaction control statements (stmt.h) and the DML commit
 * that stages inside a block.
 *
 *   BEGIN / START TRANSACTION [READ ONLY | READ WRITE | ISOLATION LEVEL x]
 *       opens the session's block (txn_block.h). Every isolation level is
 *       accepted and runs as snapshot isolation per table with Iceberg's
 *       validation at COMMIT (serializable for deletes/updates by default,
 *       per write.*.isolation-level). BEGIN inside a block is a no-op (as
 *       PostgreSQL, which only warns).
 *   COMMIT / END   commits every staged table; tag "ROLLBACK" when the block
 *       had failed (PostgreSQL does the same). Outside a block: nothing.
 *   ROLLBACK / ABORT  discards the staged changes and deletes their files.
 *   SAVEPOINT s / RELEASE [SAVEPOINT] s / ROLLBACK TO [SAVEPOINT] s.
 *   PREPARE TRANSACTION and COMMIT/ROLLBACK PREPARED: 0A000.
 * A failed block refuses everything but COMMIT/ROLLBACK/ROLLBACK TO with
 * 25P02 (session.c); a read-only block refuses writes with 25006.
 */
#include <string.h>

#include "sql/session/session_internal.h"
#include "sql/stmt/stmt_int.h"
#include "sql/stmt/txn_block.h"

static bool read_only_option(const PgQuery__TransactionStmt *t)
{
    bool ro = false;
    for (size_t i = 0; i < t->n_options; i++) {
        const PgQuery__Node *o = t->options[i];
        if (o->node_case != PG_QUERY__NODE__NODE_DEF_ELEM ||
            strcmp(o->def_elem->defname, "transaction_read_only") != 0)
            continue;
        const PgQuery__Node *v = o->def_elem->arg;
        if (v && v->node_case == PG_QUERY__NODE__NODE_A_CONST && v->a_const->ival)
            ro = v->a_const->ival->ival != 0;
        else if (v && v->node_case == PG_QUERY__NODE__NODE_INTEGER)
            ro = v->integer->ival != 0;
    }
    return ro;
}

static fl_status need_block(fl_stmt_ctx *c, const char *what, fl_error *err)
{
    if (c->session && c->session->block)
        return FL_OK;
    return fl_error_state(err, FL_EINVAL, "25P01", "%s can only be used in transaction blocks",
                          what);
}

static fl_status savepoint_rc(fl_status rc, fl_error *err)
{
    if (rc == FL_ENOTFOUND)
        fl_error_set_state(err, "3B001");
    return rc;
}

fl_status stmt_transaction(fl_stmt_ctx *c, const PgQuery__TransactionStmt *t,
                           fl_stmt_result *out, fl_error *err)
{
    fl_sql_session *s = c->session;
    if (!s)
        return fl_errorf(err, FL_EINVAL, "transaction control needs a session");
    const char *sp = t->savepoint_name ? t->savepoint_name : "";
    switch (t->kind) {
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_BEGIN:
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_START:
        if (!s->block)
            FL_TRY(fl_txn_block_open(fl_session_base_catalog(s), read_only_option(t), &s->block, err));
        stmt_tag(out, "BEGIN");
        return FL_OK;
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_COMMIT: {
        fl_txn_block *b = s->block;
        s->block = NULL;
        if (b && fl_txn_block_failed(b)) {
            fl_txn_block_rollback(b);
            stmt_tag(out, "ROLLBACK");
            return FL_OK;
        }
        fl_status rc = b ? fl_txn_block_commit(b, err) : FL_OK;
        if (rc == FL_ECONFLICT) {
            fl_error_set_state(err, "40001");
            return fl_error_prefix(err, "could not serialize access due to concurrent update");
        }
        FL_TRY(rc);
        stmt_tag(out, "COMMIT");
        return FL_OK;
    }
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_ROLLBACK:
        fl_txn_block_rollback(s->block);
        s->block = NULL;
        stmt_tag(out, "ROLLBACK");
        return FL_OK;
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_SAVEPOINT:
        FL_TRY(need_block(c, "SAVEPOINT", err));
        FL_TRY(fl_txn_block_savepoint(s->block, sp, err));
        stmt_tag(out, "SAVEPOINT");
        return FL_OK;
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_RELEASE:
        FL_TRY(need_block(c, "RELEASE SAVEPOINT", err));
        FL_TRY(savepoint_rc(fl_txn_block_release(s->block, sp, err), err));
        stmt_tag(out, "RELEASE");
        return FL_OK;
    case PG_QUERY__TRANSACTION_STMT_KIND__TRANS_STMT_ROLLBACK_TO:
        FL_TRY(need_block(c, "ROLLBACK TO SAVEPOINT", err));
        FL_TRY(savepoint_rc(fl_txn_block_rollback_to(s->block, sp, err), err));
        stmt_tag(out, "ROLLBACK");
        return FL_OK;
    default:
        return fl_error_state(err, FL_EUNSUPPORTED, "0A000", "two-phase commit is not supported");
    }
}

fl_status stmt_check_read_only(fl_stmt_ctx *c, const PgQuery__Node *n, fl_error *err)
{
    if (!c->session || !c->session->block || !fl_txn_block_read_only(c->session->block))
        return FL_OK;
    const char *what = "ALTER TABLE EXECUTE";
    if (n) {
        switch (n->node_case) {
        case PG_QUERY__NODE__NODE_INSERT_STMT: what = "INSERT"; break;
        case PG_QUERY__NODE__NODE_DELETE_STMT: what = "DELETE"; break;
        case PG_QUERY__NODE__NODE_UPDATE_STMT: what = "UPDATE"; break;
        case PG_QUERY__NODE__NODE_MERGE_STMT: what = "MERGE"; break;
        case PG_QUERY__NODE__NODE_TRUNCATE_STMT: what = "TRUNCATE"; break;
        case PG_QUERY__NODE__NODE_CREATE_STMT:
        case PG_QUERY__NODE__NODE_CREATE_TABLE_AS_STMT: what = "CREATE TABLE"; break;
        case PG_QUERY__NODE__NODE_CREATE_SCHEMA_STMT: what = "CREATE SCHEMA"; break;
        case PG_QUERY__NODE__NODE_DROP_STMT: what = "DROP"; break;
        case PG_QUERY__NODE__NODE_ALTER_TABLE_STMT: what = "ALTER TABLE"; break;
        case PG_QUERY__NODE__NODE_RENAME_STMT: what = "ALTER ... RENAME"; break;
        case PG_QUERY__NODE__NODE_VIEW_STMT: what = "CREATE VIEW"; break;
        case PG_QUERY__NODE__NODE_VACUUM_STMT: what = "ANALYZE"; break;
        default: return FL_OK;
        }
    }
    return fl_error_state(err, FL_EINVAL, "25006", "cannot execute %s in a read-only transaction",
                          what);
}

fl_status stmt_commit_dml(fl_stmt_ctx *c, fl_ice_txn *x, const fl_table_ident *id,
                          const char *table, fl_stmt_result *out, fl_error *err)
{
    fl_txn_block *b = c->session ? c->session->block : NULL;
    if (!b)
        return stmt_commit(c, x, table, out, err);
    int64_t snap = -1;
    fl_status rc = fl_txn_block_stage(b, fl_session_base_catalog(c->session), id, x, &snap, err);
    if (rc == FL_ECONFLICT)
        fl_error_set_state(err, "40001");
    if (rc != FL_OK)
        return fl_error_prefix(err, "%s", table);
    out->committed_snapshot_id = snap;
    out->committed_table = fl_arena_strdup(c->planner->arena, table);
    return FL_OK;
}
