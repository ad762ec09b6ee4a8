/*
 * admission.h - how many statements (and sessions) each principal has
 * running at once, across every front end of one process (`floe serve`:
 * pgwire and POST /v1/sql share one fl_admission).
 *
 * DESIGN
 *   A counter per (kind, principal) under one mutex; entries exist only
 *   while something is counted, so the table is bounded by what runs.
 *   fl_admission_enter refuses (FL_ELIMIT, SQLSTATE 53300 / HTTP 429 for
 *   the callers) when max (> 0) are already counted for that principal;
 *   every successful enter is paired with one leave. The caller decides
 *   max from the principal's roles (fl_auth_limits_for) or its server
 *   default; 0 = no limit.
 *
 * THREADS AND OWNERSHIP
 *   Thread-safe. Principal names are copied.
 */
#ifndef FLOE_ADMISSION_H
#define FLOE_ADMISSION_H

#include "floe/export.h"

#include <stdint.h>

#include "floe/auth.h"
#include "floe/error.h"
#include "floe/sql.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fl_admit_kind {
    FL_ADMIT_STATEMENT = 0, /* a statement running (pgwire message, /v1/sql request) */
    FL_ADMIT_SESSION = 1,   /* a logged-in pgwire session */
} fl_admit_kind;

typedef struct fl_admission fl_admission;

FL_API fl_status fl_admission_new(fl_admission **out, fl_error *err);
FL_API void fl_admission_free(fl_admission *a); /* NULL allowed */

/* Counts one more for principal; FL_ELIMIT (nothing counted) when max > 0
 * are counted already. a NULL: always admitted. */
FL_API fl_status fl_admission_enter(fl_admission *a, fl_admit_kind kind, const char *principal,
                                    uint32_t max, fl_error *err);
FL_API void fl_admission_leave(fl_admission *a, fl_admit_kind kind, const char *principal);
/* What is counted now (tests, metrics). */
FL_API uint32_t fl_admission_count(fl_admission *a, fl_admit_kind kind, const char *principal);

/* A server's limits for principals whose roles set none (docs/security.md,
 * "Resource limits"). 0 = none, except max_memory_limit: 0 = the session's
 * own memory_limit (the server's per-session budget) is the ceiling. */
typedef struct fl_limit_defaults {
    uint64_t statement_timeout_ms;     /* the sessions' default statement_timeout */
    uint64_t max_statement_timeout_ms; /* the largest they may SET */
    uint64_t max_memory_limit;         /* the largest memory_limit they may SET */
    uint32_t max_statements;           /* statements at once per principal */
} fl_limit_defaults;

/* Fills o's max_memory_limit, max_statement_timeout_ms,
 * statement_timeout_ms and spill_dir_fixed (o->memory_limit already set)
 * for principal p: each from p's roles (fl_auth_limits_for) or else from d.
 * Admins and anonymous principals (auth off) get only the default
 * statement_timeout (they may SET anything) and no max_statements.
 * *max_statements: the admission limit for p. a NULL: defaults only. */
FL_API fl_status fl_limits_for_session(fl_auth *a, const fl_principal *p,
                                       const fl_limit_defaults *d, fl_sql_options *o,
                                       uint32_t *max_statements, fl_error *err);

#ifdef __cplusplus
}
#endif
#endif
