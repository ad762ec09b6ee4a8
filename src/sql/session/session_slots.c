/*
 * session_slots.c - which statements take an execution slot, and taking
 * and giving it back for a result (include/floe/sql_queue.h, queue.c).
 *
 * The rule is about work, decided from what the statement is: a query
 * takes a slot when its plan reads table or file data (the planner's
 * receipts name an Iceberg table, or a plan node - also inside a scalar
 * subquery - scans files, a metadata table or a series); a command takes
 * one when it reads or changes data. Catalog queries, SET/SHOW and
 * transaction control never wait, so a server under full load still
 * answers them at once.
 */
#include <stdio.h>
#include <string.h>

#include "floe/sql_queue.h"
#include "sql/planner.h"
#include "sql/session/session_internal.h"

static bool scan_reads_data(const fl_plan_scan *s)
{
    switch (s->kind) {
    case FL_SCAN_ICEBERG:
    case FL_SCAN_ICEBERG_META:
    case FL_SCAN_PARQUET:
    case FL_SCAN_CSV:
    case FL_SCAN_JSON:
    case FL_SCAN_SERIES:
    case FL_SCAN_ORC: return true;
    case FL_SCAN_ROWS: return false;
    }
    return true; /* a scan kind added later: assume it works */
}

static bool nodes_read_data(const fl_plan *p)
{
    if (!p)
        return false;
    if (p->kind == FL_PLAN_SCAN && scan_reads_data(&p->u.scan))
        return true;
    for (uint32_t i = 0; i < p->nchildren; i++)
        if (nodes_read_data(p->children[i]))
            return true;
    return false;
}

/* The walker goes on into every subquery's own expressions (and so into
 * nested subqueries), so each subplan's nodes are looked at once here:
 * linear in the plan. FL_EEXIST only stops the walk once one is found. */
static fl_status subquery_reads(void *ctx, fl_expr **slot, fl_error *err)
{
    (void)err;
    const fl_expr *e = *slot;
    if (e && e->kind == FL_EXPR_SUBQUERY && nodes_read_data(e->subplan)) {
        *(bool *)ctx = true;
        return FL_EEXIST;
    }
    return FL_OK;
}

static bool plan_reads_data(const fl_plan *p)
{
    if (nodes_read_data(p))
        return true;
    bool found = false;
    fl_error e = {0};
    /* the walker only reads here; it takes a non-const plan for rewriters */
    fl_plan_walk_exprs((fl_plan *)p, subquery_reads, &found, &e);
    return found;
}

bool fl_session_query_needs_slot(const fl_sql_result *r)
{
    return r->pc.nreads > 0 || plan_reads_data(r->plan);
}

bool fl_session_command_needs_slot(const fl_sql_parsed *p)
{
    if (p->execute) /* EXECUTE name: whatever it prepared; assume work */
        return true;
    if (!p->stmt)
        return false; /* SHOW TABLES, DESCRIBE, USE: the catalog only */
    switch (p->stmt->node_case) {
    case PG_QUERY__NODE__NODE_INSERT_STMT:
    case PG_QUERY__NODE__NODE_UPDATE_STMT:
    case PG_QUERY__NODE__NODE_DELETE_STMT:
    case PG_QUERY__NODE__NODE_MERGE_STMT:
    case PG_QUERY__NODE__NODE_CREATE_TABLE_AS_STMT:
    case PG_QUERY__NODE__NODE_COPY_STMT:
    case PG_QUERY__NODE__NODE_CALL_STMT:
    case PG_QUERY__NODE__NODE_ALTER_TABLE_STMT:
    case PG_QUERY__NODE__NODE_VACUUM_STMT:
    case PG_QUERY__NODE__NODE_REFRESH_MAT_VIEW_STMT:
    case PG_QUERY__NODE__NODE_EXECUTE_STMT:
    case PG_QUERY__NODE__NODE_DO_STMT: return true;
    default: return false;
    }
}

fl_status fl_session_slot_take(fl_sql_result *r, bool need, fl_error *err)
{
    fl_sql_session *s = r->s;
    if (!need || !s->queue || s->queue_holds)
        return FL_OK; /* a session holding a slot (an open portal) never waits for itself */
    uint64_t waited_us = 0;
    fl_status rc = fl_sql_queue_enter(s->queue, s->memory_limit, &s->cancel, &r->slot_reserved,
                                      &waited_us, err);
    if (rc == FL_ECANCELED && atomic_load(&r->timed_out)) {
        fl_sql_queue_stats st;
        fl_sql_queue_stats_get(s->queue, &st);
        fl_error_state(err, FL_ECANCELED, "57014",
                       "canceling statement due to statement timeout: it waited %llu ms for an "
                       "execution slot (%u of %u running, %u waiting)",
                       (unsigned long long)(waited_us / 1000), st.running, st.max_running,
                       st.queued);
        r->slot_wait_timed_out = true;
    }
    if (rc != FL_OK)
        return rc;
    r->slot_held = true;
    s->queue_holds++;
    return FL_OK;
}

void fl_session_slot_release(fl_sql_result *r)
{
    if (!r->slot_held)
        return;
    r->slot_held = false;
    r->s->queue_holds--;
    fl_sql_queue_leave(r->s->queue, r->slot_reserved);
}
