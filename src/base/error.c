/*
 * error.c - the fl_error object: set (with or without a SQLSTATE), prefix,
 * name (see floe/error.h; the SQLSTATE table is errcodes.c).
 */
#include "floe/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void fl_error_clear(fl_error *e)
{
    if (!e)
        return;
    e->code = FL_OK;
    e->msg[0] = '\0';
    e->sqlstate[0] = '\0';
}

void fl_error_set_state(fl_error *e, const char *sqlstate)
{
    if (!e)
        return;
    size_t n = sqlstate ? strnlen(sqlstate, 5) : 0;
    memmove(e->sqlstate, sqlstate ? sqlstate : "", n); /* sqlstate may be e->sqlstate */
    e->sqlstate[n] = '\0';
}

static void vset(fl_error *e, fl_status code, const char *sqlstate, const char *fmt, va_list ap)
{
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    e->code = code;
    fl_error_set_state(e, sqlstate);
}

fl_status fl_error_state(fl_error *e, fl_status code, const char *sqlstate, const char *fmt, ...)
{
    if (!e)
        return code;
    va_list ap;
    va_start(ap, fmt);
    vset(e, code, sqlstate, fmt, ap);
    va_end(ap);
    return code;
}

fl_status fl_errorf(fl_error *e, fl_status code, const char *fmt, ...)
{
    if (!e)
        return code;
    va_list ap;
    va_start(ap, fmt);
    vset(e, code, NULL, fmt, ap);
    va_end(ap);
    return code;
}

fl_status fl_error_prefix(fl_error *e, const char *fmt, ...)
{
    if (!e)
        return FL_EINVAL;
    char head[FL_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(head, sizeof head, fmt, ap);
    va_end(ap);
    if (n < 0)
        return e->code;
    size_t hl = (size_t)n < sizeof e->msg - 3 ? (size_t)n : sizeof e->msg - 3;
    size_t ol = strnlen(e->msg, sizeof e->msg - 1);
    if (hl + 2 + ol > sizeof e->msg - 1)
        ol = sizeof e->msg - 1 - hl - 2;
    memmove(e->msg + hl + 2, e->msg, ol);
    memcpy(e->msg, head, hl);
    e->msg[hl] = ':';
    e->msg[hl + 1] = ' ';
    e->msg[hl + 2 + ol] = '\0';
    return e->code;
}

const char *fl_status_name(fl_status code)
{
    switch (code) {
    case FL_OK: return "ok";
    case FL_EINVAL: return "invalid argument";
    case FL_ENOMEM: return "out of memory";
    case FL_EIO: return "I/O error";
    case FL_ECORRUPT: return "corrupt input";
    case FL_EUNSUPPORTED: return "unsupported";
    case FL_ENOTFOUND: return "not found";
    case FL_EEXIST: return "already exists";
    case FL_ECONFLICT: return "conflict";
    case FL_ELIMIT: return "limit exceeded";
    case FL_ECANCELED: return "canceled";
    case FL_ECHECKSUM: return "checksum mismatch";
    case FL_ESYNTAX: return "syntax error";
    case FL_ETYPE: return "type error";
    case FL_EOVERFLOW: return "overflow";
    case FL_EUNAUTHENTICATED: return "unauthenticated";
    case FL_EFORBIDDEN: return "forbidden";
    }
    return "unknown error";
}
