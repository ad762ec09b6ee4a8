/*
 * error.c - the fl_error object: set, prefix, name (see floe/error.h).
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
}

fl_status fl_errorf(fl_error *e, fl_status code, const char *fmt, ...)
{
    if (!e)
        return code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    e->code = code;
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
