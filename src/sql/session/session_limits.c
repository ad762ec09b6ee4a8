/*
 * session_limits.c - the operator's ceilings on a session's settings
 * (fl_sql_options.max_memory_limit, max_statement_timeout_ms,
 * statement_timeout_ms, spill_dir_fixed; docs/security.md, "Resource
 * limits").
 *
 * A server opens each session with the ceilings of its principal's roles
 * (fl_auth_limits_for) or its own defaults. The session starts within them
 * (memory_limit and statement_timeout clamped to their ceilings; "none" is
 * never within a ceiling), and every path that changes a setting (SET,
 * set_config, RESET, the startup packet's options, fl_sql_set_default)
 * goes through engine_set in session_settings.c, which asks here first: a
 * value past a ceiling is refused with SQLSTATE 42501 and a message naming
 * the ceiling, and RESET goes back to the session's opening value, not to
 * the built-in "80% of RAM" / "no timeout". With spill_dir_fixed, SET and
 * RESET of spill_dir are refused (55P02): spill files go only where the
 * operator said.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sql/session/session_internal.h"

void fl_session_limits_open(fl_sql_session *s, const fl_sql_options *o)
{
    s->max_memory_limit = o->max_memory_limit;
    s->max_statement_timeout_ms = o->max_statement_timeout_ms;
    s->spill_dir_fixed = o->spill_dir_fixed;
    uint64_t mem = o->memory_limit;
    if (s->max_memory_limit && (mem == 0 || mem > s->max_memory_limit))
        mem = s->max_memory_limit;
    uint64_t to = o->statement_timeout_ms;
    if (s->max_statement_timeout_ms && (to == 0 || to > s->max_statement_timeout_ms))
        to = s->max_statement_timeout_ms;
    s->memory_limit = mem;
    s->statement_timeout_ms = (int64_t)to;
    s->open_memory_limit = mem;
    s->open_statement_timeout_ms = (int64_t)to;
}

bool fl_session_has_limits(const fl_sql_session *s)
{
    return s->max_memory_limit || s->max_statement_timeout_ms || s->open_statement_timeout_ms ||
           s->open_memory_limit;
}

/* "3GB", "512MB", "1000B": the largest unit that divides bytes. */
static void fmt_bytes(uint64_t b, char *buf, size_t cap)
{
    static const char *const units[] = {"B", "kB", "MB", "GB", "TB"};
    int u = 0;
    while (u < 4 && b && b % 1024 == 0) {
        b /= 1024;
        u++;
    }
    snprintf(buf, cap, "%" PRIu64 "%s", b, units[u]);
}

static void fmt_ms(uint64_t ms, char *buf, size_t cap)
{
    if (ms && ms % 60000 == 0)
        snprintf(buf, cap, "%" PRIu64 "min", ms / 60000);
    else if (ms && ms % 1000 == 0)
        snprintf(buf, cap, "%" PRIu64 "s", ms / 1000);
    else
        snprintf(buf, cap, "%" PRIu64 "ms", ms);
}

fl_status fl_session_check_memory_limit(const fl_sql_session *s, uint64_t v, fl_error *err)
{
    if (!s->max_memory_limit || (v && v <= s->max_memory_limit))
        return FL_OK;
    char want[32], max[32];
    if (v)
        fmt_bytes(v, want, sizeof want);
    else
        snprintf(want, sizeof want, "0 (80%% of RAM)");
    fmt_bytes(s->max_memory_limit, max, sizeof max);
    return fl_errorf(err, FL_EFORBIDDEN,
                     "permission denied to set memory_limit to %s: this session's ceiling is %s "
                     "(max_memory_limit, set by the server's operator)",
                     want, max);
}

fl_status fl_session_check_statement_timeout(const fl_sql_session *s, int64_t ms, fl_error *err)
{
    if (!s->max_statement_timeout_ms || (ms > 0 && (uint64_t)ms <= s->max_statement_timeout_ms))
        return FL_OK;
    char want[32], max[32];
    if (ms > 0)
        fmt_ms((uint64_t)ms, want, sizeof want);
    else
        snprintf(want, sizeof want, "0 (no timeout)");
    fmt_ms(s->max_statement_timeout_ms, max, sizeof max);
    return fl_errorf(err, FL_EFORBIDDEN,
                     "permission denied to set statement_timeout to %s: this session's ceiling is "
                     "%s (max_statement_timeout, set by the server's operator)",
                     want, max);
}

fl_status fl_session_check_spill_dir(const fl_sql_session *s, fl_error *err)
{
    if (!s->spill_dir_fixed)
        return FL_OK;
    /* FL_EUNSUPPORTED, not EINVAL: RESET must not fall back to a default */
    return fl_errorf(err, FL_EUNSUPPORTED,
                     "parameter \"spill_dir\" cannot be changed: the server's operator fixed it");
}
