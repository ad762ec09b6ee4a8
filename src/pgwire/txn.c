/*
 * txn.c - transaction blocks as the protocol sees them.
 *
 * The engine owns the transaction (src/sql/stmt/txn_block.h): inside
 * BEGIN ... COMMIT, DML is staged in the session (its own later statements
 * read it, other connections do not) and COMMIT publishes it; ROLLBACK
 * discards it and deletes the files written. This file keeps the protocol's
 * view in step: the ReadyForQuery status ('I' idle, 'T' in a block, 'E'
 * failed block: everything but COMMIT/ROLLBACK/ROLLBACK TO is refused with
 * 25P02), portals and cursors scoped by the block (WITHOUT HOLD cursors
 * close at COMMIT/ROLLBACK), and PostgreSQL's warnings (BEGIN inside a
 * block, COMMIT/ROLLBACK outside one). Every transaction statement is also
 * run by the engine; COMMIT of a failed block runs ROLLBACK there (the
 * failure may have been the wire layer's, e.g. a privilege error) and
 * answers "ROLLBACK" as PostgreSQL does. A COMMIT that fails (40001 after a
 * conflicting concurrent commit) ends the block too. DDL inside a block
 * commits at once (Iceberg has no multi-table DDL transaction): a NOTICE
 * says so.
 */
#include <stdio.h>
#include <string.h>

#include "pgwire/pgw.h"

void pgw_close_portals(pgw_conn *c, bool keep_hold)
{
    pgw_portal **pp = &c->portals;
    while (*pp) {
        pgw_portal *p = *pp;
        if (keep_hold && p->is_cursor && p->hold) {
            pp = &p->next;
            continue;
        }
        *pp = p->next;
        p->next = NULL;
        pgw_portal_free(c, p);
    }
}

void pgw_end_implicit(pgw_conn *c)
{
    if (c->txn == 'I')
        pgw_close_portals(c, true);
}

static void end_block(pgw_conn *c)
{
    c->txn = 'I';
    pgw_close_portals(c, true);
}

void pgw_note_block_ddl(pgw_conn *c, const pgw_class *k)
{
    if (k->ddl && c->txn == 'T')
        pgw_send_notice(c, "NOTICE", "00000",
                        "floe commits DDL at once: this statement is not part of the "
                        "transaction block and ROLLBACK will not undo it");
}

/* Runs a transaction statement in the engine; false = error sent. */
static bool engine_txn(pgw_conn *c, const char *sql)
{
    fl_sql_result *res = NULL;
    fl_error err = {0};
    fl_status rc = fl_sql_execute(c->sess, sql, &res, &err);
    if (rc != FL_OK) {
        pgw_send_sql_error(c, rc, &err);
        return false;
    }
    fl_sql_result_close(res);
    return true;
}

bool pgw_run_txn(pgw_conn *c, const char *sql, const pgw_class *k)
{
    switch (k->kind) {
    case PGW_K_BEGIN:
        if (c->txn != 'I') {
            pgw_send_notice(c, "WARNING", "25001", "there is already a transaction in progress");
        } else {
            if (!engine_txn(c, sql))
                return false;
            c->txn = 'T';
        }
        pgw_send_complete(c, "BEGIN");
        return true;
    case PGW_K_COMMIT: {
        if (c->txn == 'I')
            pgw_send_notice(c, "WARNING", "25P01", "there is no transaction in progress");
        bool failed = c->txn == 'E';
        bool ok = engine_txn(c, failed ? "ROLLBACK" : "COMMIT");
        end_block(c);
        if (ok)
            pgw_send_complete(c, failed ? "ROLLBACK" : "COMMIT");
        return ok;
    }
    case PGW_K_ROLLBACK: {
        if (c->txn == 'I')
            pgw_send_notice(c, "WARNING", "25P01", "there is no transaction in progress");
        bool ok = engine_txn(c, "ROLLBACK");
        end_block(c);
        if (ok)
            pgw_send_complete(c, "ROLLBACK");
        return ok;
    }
    default: /* SAVEPOINT / RELEASE / ROLLBACK TO */
        if (c->txn == 'I') {
            pgw_send_error(c, "ERROR", "25P01", 0, "%s can only be used in transaction blocks",
                           k->tag);
            return false;
        }
        if (c->txn == 'E' && !k->backward) {
            pgw_send_error(c, "ERROR", "25P02", 0,
                           "current transaction is aborted, commands ignored until end of "
                           "transaction block");
            return false;
        }
        if (!engine_txn(c, sql))
            return false;
        if (k->backward && c->txn == 'E')
            c->txn = 'T';
        pgw_send_complete(c, k->tag);
        return true;
    }
}
