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

#include <stdint.h>

#include "floe/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fl_admit_kind {
    FL_ADMIT_STATEMENT = 0, /* a statement running (pgwire message, /v1/sql request) */
    FL_ADMIT_SESSION = 1,   /* a logged-in pgwire session */
} fl_admit_kind;

typedef struct fl_admission fl_admission;

fl_status fl_admission_new(fl_admission **out, fl_error *err);
void fl_admission_free(fl_admission *a); /* NULL allowed */

/* Counts one more for principal; FL_ELIMIT (nothing counted) when max > 0
 * are counted already. a NULL: always admitted. */
fl_status fl_admission_enter(fl_admission *a, fl_admit_kind kind, const char *principal,
                             uint32_t max, fl_error *err);
void fl_admission_leave(fl_admission *a, fl_admit_kind kind, const char *principal);
/* What is counted now (tests, metrics). */
uint32_t fl_admission_count(fl_admission *a, fl_admit_kind kind, const char *principal);

#ifdef __cplusplus
}
#endif
#endif
