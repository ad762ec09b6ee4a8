/*
 * error.h - one status enum plus one error object, used by every fallible
 * function in libfloe.
 *
 * Functions return an fl_status (FL_OK == 0, failures are negative) and, on
 * failure, fill a caller-provided fl_error with a one-line message that names
 * where the problem is: the file, the column, the byte offset, the SQL
 * position. Layers add context on the way up with fl_error_prefix(), so a
 * message reads outer-to-inner:
 *
 *     data.parquet: column 'l_comment': page at offset 48213: snappy: corrupt input
 *
 * An error may carry the SQLSTATE it was raised with (fl_error_state, codes
 * from floe/errcodes.h); fl_error_prefix keeps it, fl_errorf and
 * fl_error_clear reset it. Without one, fl_error_sqlstate() derives the
 * default from the status. Nothing ever reads a SQLSTATE out of the message.
 *
 * The status list is append-only: never renumber, never reuse a value.
 * Library code never calls exit() or abort(); corrupt input is FL_ECORRUPT.
 */
#ifndef FLOE_ERROR_H
#define FLOE_ERROR_H

#include "floe/export.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fl_status {
    FL_OK = 0,
    FL_EINVAL = -1,            /* caller passed something invalid (bad option, bad argument) */
    FL_ENOMEM = -2,            /* allocation failed */
    FL_EIO = -3,               /* the operating system or object store failed an I/O */
    FL_ECORRUPT = -4,          /* input bytes are malformed: file, page, message, JSON */
    FL_EUNSUPPORTED = -5,      /* well-formed input using a feature floe does not implement */
    FL_ENOTFOUND = -6,         /* a named thing (file, column, table) does not exist */
    FL_EEXIST = -7,            /* it already exists */
    FL_ECONFLICT = -8,         /* optimistic concurrency: someone else committed first */
    FL_ELIMIT = -9,            /* a configured limit (size, depth, memory) was exceeded */
    FL_ECANCELED = -10,        /* the operation was cancelled */
    FL_ECHECKSUM = -11,        /* a checksum (page CRC, Avro snappy CRC) did not match */
    FL_ESYNTAX = -12,          /* text (SQL, CSV, JSON) does not parse */
    FL_ETYPE = -13,            /* a type mismatch or an impossible conversion */
    FL_EOVERFLOW = -14,        /* arithmetic or conversion overflow */
    FL_EUNAUTHENTICATED = -15, /* no credentials, or bad ones (HTTP 401, SQLSTATE 28P01) */
    FL_EFORBIDDEN = -16, /* authenticated but lacks the privilege (HTTP 403, SQLSTATE 42501) */
} fl_status;

#define FL_ERROR_MSG_MAX 1024

typedef struct fl_error {
    fl_status code;             /* FL_OK when no error has been recorded */
    char msg[FL_ERROR_MSG_MAX]; /* NUL-terminated, one line, no trailing period */
    char sqlstate[6];           /* raised with this SQLSTATE; "" = the status's default */
} fl_error;

/* Resets e to "no error". e may be NULL. */
FL_API void fl_error_clear(fl_error *e);

/* Records code and a printf-style message in e (which may be NULL) and returns
 * code, so callers can write: return fl_errorf(err, FL_ECORRUPT, "..."); */
FL_API fl_status fl_errorf(fl_error *e, fl_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* fl_errorf that also records the SQLSTATE (5 characters, from
 * floe/errcodes.h) the error is raised with, e.g.
 *     return fl_error_state(err, FL_EINVAL, "22012", "division by zero"); */
FL_API fl_status fl_error_state(fl_error *e, fl_status code, const char *sqlstate, const char *fmt,
                                ...) __attribute__((format(printf, 4, 5)));

/* Sets (or, with NULL or "", resets) the SQLSTATE of the error already in e.
 * sqlstate may point at e->sqlstate, so a re-raise can keep the code. */
FL_API void fl_error_set_state(fl_error *e, const char *sqlstate);

/* The SQLSTATE of e: the one it was raised with, else the default of its
 * status (fl_sqlstate_for_status in floe/errcodes.h; "00000" for no error).
 * Never NULL. */
FL_API const char *fl_error_sqlstate(const fl_error *e);

/* Prepends "<context>: " to the message already in e and returns e->code.
 * Used while an error propagates outwards to add the file or column name. */
FL_API fl_status fl_error_prefix(fl_error *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Static name of a status, e.g. "corrupt input". Never NULL. */
FL_API const char *fl_status_name(fl_status code);

/* Early-exit helpers: keep error paths to one line. */
#define FL_TRY(expr)                                                                               \
    do {                                                                                           \
        fl_status fl_try_rc_ = (expr);                                                             \
        if (fl_try_rc_ != FL_OK)                                                                   \
            return fl_try_rc_;                                                                     \
    } while (0)

#define FL_CHECK(cond, err, code, ...)                                                             \
    do {                                                                                           \
        if (!(cond))                                                                               \
            return fl_errorf((err), (code), __VA_ARGS__);                                          \
    } while (0)

#ifdef __cplusplus
}
#endif
#endif
