/*
 * cmd_sql_progress.h - `floe sql`'s progress line for the statement it runs:
 * "floe sql: 12/40 files  3,100,000 rows  41 MB" on stderr, the engine's
 * counters (fl_sql_session_progress) drawn with progress.h's rules (a
 * terminal only, after half a second, FLOE_PROGRESS=never/always).
 *
 * A background thread polls the counters every 100 ms while the statement
 * runs; the shell stops it (erasing the line) before it prints anything of
 * the statement's: its first result batch, its command tag or its error.
 * The poller only reads the session's atomics and draws on stderr, so the
 * statement itself pays nothing per row.
 */
#ifndef FLOE_CLI_CMD_SQL_PROGRESS_H
#define FLOE_CLI_CMD_SQL_PROGRESS_H

#include <pthread.h>
#include <stdbool.h>

#include "cli/progress.h"
#include "floe/sql.h"

typedef struct fl_sqlprogress {
    cli_progress line; /* drawn by the poller thread only, until it is joined */
    fl_sql_session *s; /* borrowed */
    uint64_t before;   /* the session's statement number before this one started */
    pthread_t poller;
    pthread_mutex_t mu; /* guards stop, with wake */
    pthread_cond_t wake;
    bool stop, running;
} fl_sqlprogress;

/* Starts showing the progress of the next statement s runs (nothing
 * happens when progress is off: not a terminal, FLOE_PROGRESS=never). */
void fl_sqlprogress_start(fl_sqlprogress *p, fl_sql_session *s);
/* Stops the poller, draws the final counts (FLOE_PROGRESS=always) and
 * erases the line (terminal). Safe to call again and after a start that
 * did nothing; its signature fits fl_sqlout.before_output. */
void fl_sqlprogress_stop(void *p);

#endif
