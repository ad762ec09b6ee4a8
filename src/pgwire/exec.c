/*
 * exec.c - runs one statement of a simple Query message: classification,
 * the failed-transaction rule (25P02), the privilege check, then either the
 * wire layer's own handling (transactions, settings, cursors, COPY) or the
 * engine (fl_sql_execute), streaming rows as RowDescription + DataRow*
 * + CommandComplete.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgwire/pgw.h"

static bool engine(pgw_conn *c, const char *sql, const pgw_class *k)
{
    fl_sql_result *res = NULL;
    fl_error err = {0};
    fl_status rc = fl_sql_execute(c->sess, sql, &res, &err);
    if (rc != FL_OK) {
        pgw_send_sql_error(c, rc, &err);
        return false;
    }
    pgw_note_block_ddl(c, k);
    const fl_schema *sch = fl_sql_result_schema(res);
    if (sch->nfields == 0) {
        pgw_send_complete(c, fl_sql_result_tag(res));
        fl_sql_result_close(res);
        return true;
    }
    pgw_portal p;
    memset(&p, 0, sizeof p);
    p.res = res;
    pgw_send_rowdesc(c, sch, NULL, 0);
    int st = pgw_send_rows(c, &p, 0, false);
    if (st == 1)
        pgw_send_complete(c, fl_sql_result_tag(res));
    fl_sql_result_close(res);
    return st == 1;
}

static bool refuse_in_failed_block(pgw_conn *c, int kind)
{
    if (c->txn != 'E')
        return false;
    if (kind == PGW_K_ROLLBACK || kind == PGW_K_COMMIT || kind == PGW_K_SAVEPOINT)
        return false;
    pgw_send_error(c, "ERROR", "25P02", 0,
                   "current transaction is aborted, commands ignored until end of transaction "
                   "block");
    return true;
}

bool pgw_run_classified(pgw_conn *c, const char *sql, const pgw_class *k)
{
    if (refuse_in_failed_block(c, k->kind))
        return false;
    switch (k->kind) {
    case PGW_K_EMPTY:
        pgw_begin(c, 'I');
        pgw_end(c);
        return true;
    case PGW_K_BEGIN:
    case PGW_K_COMMIT:
    case PGW_K_ROLLBACK:
    case PGW_K_SAVEPOINT:
        return pgw_run_txn(c, sql, k);
    case PGW_K_SET:
        return pgw_run_set(c, k);
    case PGW_K_SETTXN:
        pgw_send_complete(c, "SET");
        return true;
    case PGW_K_SHOW:
        return pgw_run_show(c, k, !c->in_execute);
    case PGW_K_RESET:
        return pgw_run_reset(c, k);
    case PGW_K_DISCARD:
        return pgw_run_discard(c, k);
    case PGW_K_UNLISTEN:
        pgw_send_complete(c, "UNLISTEN");
        return true;
    case PGW_K_LISTEN:
        pgw_send_error(c, "ERROR", "0A000", 0, "LISTEN/NOTIFY is not supported by floe");
        return false;
    case PGW_K_DEALLOCATE:
        return pgw_run_deallocate(c, k);
    case PGW_K_PREPARE:
        return pgw_run_prepare(c, sql, k);
    case PGW_K_EXECUTE:
        return pgw_run_execute(c, k);
    case PGW_K_DECLARE:
        return pgw_run_declare(c, sql, k);
    case PGW_K_FETCH:
        return pgw_run_fetch(c, k, !c->in_execute);
    case PGW_K_CLOSE:
        return pgw_run_close(c, k);
    case PGW_K_COPY:
        return pgw_run_copy(c, sql, k);
    default:
        return engine(c, sql, k);
    }
}

bool pgw_run_statement(pgw_conn *c, const char *sql, size_t len)
{
    char *q = malloc(len + 1);
    pgw_class *k = malloc(sizeof *k);
    if (!q || !k) {
        free(q);
        free(k);
        pgw_send_error(c, "ERROR", "53200", 0, "out of memory");
        return false;
    }
    memcpy(q, sql, len);
    q[len] = 0;
    pgw_classify(q, k);
    c->nqueries++;
    bool ok = pgw_run_classified(c, q, k);
    if (!ok && c->txn == 'T')
        c->txn = 'E';
    free(q);
    free(k);
    return ok;
}
