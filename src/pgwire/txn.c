/*
 * txn.c - transaction blocks as the protocol sees them.
 *
 * floe has no multi-statement transactions: every statement is its own
 * atomic Iceberg commit. BEGIN/START TRANSACTION [READ ONLY | ISOLATION
 * LEVEL ...] opens a *block* (ReadyForQuery status 'T'), which scopes
 * portals and cursors (they survive Sync inside a block; WITHOUT HOLD
 * cursors close at COMMIT/ROLLBACK) and the failed state ('E': every
 * statement but COMMIT/ROLLBACK is refused with 25P02). DML inside a block
 * commits immediately; ROLLBACK cannot undo it and says so with a WARNING
 * naming how many statements were already committed. SAVEPOINT, RELEASE
 * and ROLLBACK TO are accepted (ROLLBACK TO leaves the failed state).
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
    c->block_dml = 0;
    pgw_close_portals(c, true);
}

bool pgw_run_txn(pgw_conn *c, const pgw_class *k)
{
    switch (k->kind) {
    case PGW_K_BEGIN:
        if (c->txn != 'I')
            pgw_send_notice(c, "WARNING", "25001", "there is already a transaction in progress");
        else {
            c->txn = 'T';
            c->block_dml = 0;
        }
        pgw_send_complete(c, "BEGIN");
        return true;
    case PGW_K_COMMIT: {
        bool failed = c->txn == 'E';
        if (c->txn == 'I')
            pgw_send_notice(c, "WARNING", "25P01", "there is no transaction in progress");
        end_block(c);
        pgw_send_complete(c, failed ? "ROLLBACK" : "COMMIT");
        return true;
    }
    case PGW_K_ROLLBACK:
        if (c->txn == 'I')
            pgw_send_notice(c, "WARNING", "25P01", "there is no transaction in progress");
        if (c->block_dml) {
            char msg[200];
            snprintf(msg, sizeof msg,
                     "ROLLBACK cannot undo %u statement(s) of this block: floe commits every "
                     "statement on its own",
                     c->block_dml);
            pgw_send_notice(c, "WARNING", "25000", msg);
        }
        end_block(c);
        pgw_send_complete(c, "ROLLBACK");
        return true;
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
        if (k->backward && c->txn == 'E')
            c->txn = 'T';
        pgw_send_complete(c, k->tag);
        return true;
    }
}
