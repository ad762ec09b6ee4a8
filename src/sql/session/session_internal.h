/*
 * session_internal.h - the session and result structures shared by
 * session.c (open/close/execute/prepare), session_result.c (results,
 * receipts, profile) and session_settings.c (SET/SHOW). Internal to
 * sqlfront.
 */
#ifndef FLOE_SQL_SESSION_INTERNAL_H
#define FLOE_SQL_SESSION_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "floe/sql.h"
#include "sql/exec.h"
#include "sql/planner.h"
#include "floe/sql_settings.h"
#include "sql/session/session_temp.h"
#include "sql/stmt.h"

struct fl_sql_session {
    fl_catalog *catalog; /* the catalog as opened (or borrowed) */
    bool own_catalog;
    /* authorization (sql/authz/authz.h): the decisions of the running
     * statement, and the guard wrapping catalog that lets only decided
     * operations through; statements plan through guard (under the
     * temporary-table overlay and the transaction block) */
    struct fl_sql_authz *authz;
    fl_catalog *guard;
    fl_fileio *io;
    bool own_io;
    /* settings (strings malloc'd) */
    char *default_namespace;
    char *time_zone;
    char *spill_dir;
    char *user; /* session user: fl_sql_options.user, "floe" when NULL (pgkeys) */
    uint32_t threads;
    uint64_t memory_limit;
    int64_t statement_timeout_ms;
    char getbuf[128]; /* fl_sql_get's formatted numbers */
    atomic_int cancel;
    fl_exec_progress progress; /* the running statement's (fl_sql_session_progress) */
    fl_sql_error_info last;
    fl_sql_result *open; /* every open result (a list: portals and cursors may overlap) */
    struct fl_txn_block *block; /* the open transaction block (stmt/txn_block.h), NULL = none */
    fl_session_temp *temp;      /* temporary tables (session_temp.h); NULL = none possible */
    /* settings (session_settings.h): per entry of fl_sql_setting_defs, the
     * SET value and the value RESET restores (malloc'd; NULL = the next
     * one / built-in), custom dotted settings, the last SET's SQLSTATE */
    char **set_cur, **set_reset;
    char **custom_names, **custom_vals;
    uint32_t ncustom, capcustom;
    char set_state[6];
    char showbuf[64];
    /* the operator's ceilings and the opening values RESET restores
     * (session_limits.c) */
    uint64_t max_memory_limit, max_statement_timeout_ms;
    uint64_t open_memory_limit;
    int64_t open_statement_timeout_ms;
    bool spill_dir_fixed;
    const struct fl_sql_extension *ext; /* fl_sql_options.extension (borrowed) */
    /* execution slots (queue.c; fl_sql_options.queue, borrowed; NULL =
     * never wait) and how many of this session's open results hold one */
    struct fl_sql_queue *queue;
    uint32_t queue_holds;
};

struct fl_sql_result {
    fl_sql_session *s;
    fl_sql_result *open_prev, *open_next; /* the session's list of open results */
    fl_arena arena;
    fl_sql_parsed *parsed;
    fl_planner_ctx pc;
    fl_exec_options xo;
    fl_value *params;
    fl_temp_undo temp_undo; /* parse-tree rewrite for temporary tables, undone at close */
    /* a query */
    fl_plan *plan;
    fl_exec *exec;
    /* a command or EXPLAIN: batches already made */
    fl_stmt_result sr;
    bool is_command;
    uint32_t next_batch;
    fl_schema schema;
    fl_batch compact;
    bool compact_init;
    int64_t rows;
    bool eof;
    char tag[64];
    fl_sql_table_read *reads;
    uint32_t nreads;
    /* the engine's record of what the statement touched (authz.h) */
    uint32_t access_mark;
    fl_sql_access *access;
    uint32_t naccess;
    /* statement_timeout watchdog (timeout_ms: the statement's, fixed at start) */
    int64_t timeout_ms;
    pthread_t timer;
    bool timer_running;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool done;
    atomic_int timed_out;
    /* an execution slot held (queue.c), with the memory it reserved */
    bool slot_held;
    uint64_t slot_reserved;
    bool slot_wait_timed_out; /* statement_timeout ended its wait: the error says so */
};

struct fl_sql_stmt {
    fl_sql_session *s;
    char *sql;
    uint32_t nparams;
    fl_type *param_types;
    bool params_typed; /* every parameter's type came from its context */
    fl_schema schema;
    fl_arena arena;
};

/* session_params.c: unconstrained numeric parameters keep their value's scale */
#define FL_SESSION_MAX_CAST_UNDO 64
typedef struct fl_session_cast_undo {
    struct PgQuery__TypeName *tn[FL_SESSION_MAX_CAST_UNDO];
    uint32_t n;
} fl_session_cast_undo;
/* True (with *out = numeric(38, s)) when declared is the default numeric and
 * v carries another scale. */
bool fl_session_param_scale(const fl_type *declared, const fl_value *v, fl_type *out);
/* Gives `$n::numeric` casts (no typmod) of such parameters the typmod of
 * types[n-1]; undo restores the tree before it is freed. */
fl_status fl_session_param_casts(const fl_sql_parsed *p, fl_arena *a, const fl_type *types,
                                 uint32_t n, fl_session_cast_undo *u, fl_error *err);
void fl_session_param_casts_undo(fl_session_cast_undo *u);

/* session_limits.c: ceilings (fl_sql_options.max_*), 42501 past them */
void fl_session_limits_open(fl_sql_session *s, const fl_sql_options *o);
bool fl_session_has_limits(const fl_sql_session *s);
fl_status fl_session_check_memory_limit(const fl_sql_session *s, uint64_t v, fl_error *err);
fl_status fl_session_check_statement_timeout(const fl_sql_session *s, int64_t ms, fl_error *err);
fl_status fl_session_check_spill_dir(const fl_sql_session *s, fl_error *err);

/* queue.c: execution slots (floe/sql_queue.h). enter waits its turn (or
 * refuses: 53000; or ends at *cancel: 57014) and then counts one statement
 * reserving min(memory or the budget, the budget) until leave. */
fl_status fl_sql_queue_enter(struct fl_sql_queue *q, uint64_t memory, atomic_int *cancel,
                             uint64_t *reserved, uint64_t *waited_us, fl_error *err);
void fl_sql_queue_leave(struct fl_sql_queue *q, uint64_t reserved);
/* session_slots.c: whether a planned query / a command does work that
 * waits for a slot; take takes one for r when need is true and its
 * session holds none; release gives it back (no-op when r holds none) */
bool fl_session_query_needs_slot(const fl_sql_result *r);
bool fl_session_command_needs_slot(const fl_sql_parsed *p);
fl_status fl_session_slot_take(fl_sql_result *r, bool need, fl_error *err);
void fl_session_slot_release(fl_sql_result *r);

/* session_result.c */
fl_status fl_session_result_new(fl_sql_session *s, fl_sql_result **out, fl_error *err);
void fl_session_record_error(fl_sql_session *s, fl_sql_result *r, fl_status rc, fl_error *err);
fl_status fl_session_start_timer(fl_sql_result *r, fl_error *err);
fl_status fl_session_finish_reads(fl_sql_result *r, fl_error *err);
/* session.c */
/* The catalog statements and blocks start from: the temporary-table
 * overlay when the session has one, else the session's catalog. */
fl_catalog *fl_session_base_catalog(fl_sql_session *s);
fl_status fl_session_run(fl_sql_session *s, const char *sql, const fl_value *params,
                         uint32_t nparams, const fl_type *param_types, fl_sql_result **out,
                         fl_error *err);

/* 42P01 at a table name: the message gets the search_path and a "did you
 * mean" among the tables the principal may see (suggest.c). */
void fl_session_suggest(fl_sql_result *r, fl_status rc, fl_error *err);

#endif
