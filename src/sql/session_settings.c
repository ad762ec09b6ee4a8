/*
 * session_settings.c - fl_sql_set / fl_sql_get: the session settings that
 * SET/SHOW reach (sqlstmt's handler calls these). Names are
 * case-insensitive: memory_limit ("1GB", "512MB", bytes), threads,
 * time_zone / TimeZone, search_path (the default namespace),
 * statement_timeout (ms; "5s", "1min" also accepted; 0 = none), spill_dir.
 * Unknown names: FL_ENOTFOUND (SQLSTATE 42704).
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sql/session_internal.h"

static fl_status parse_bytes(const char *v, uint64_t *out, fl_error *err)
{
    char *end = NULL;
    double x = strtod(v, &end);
    if (!end || end == v || x < 0)
        return fl_errorf(err, FL_EINVAL, "invalid value for memory_limit: \"%s\"", v);
    while (*end == ' ')
        end++;
    double mul = 1;
    if (!strcasecmp(end, "") || !strcasecmp(end, "b"))
        mul = 1;
    else if (!strcasecmp(end, "kb") || !strcasecmp(end, "k") || !strcasecmp(end, "kib"))
        mul = 1024.0;
    else if (!strcasecmp(end, "mb") || !strcasecmp(end, "m") || !strcasecmp(end, "mib"))
        mul = 1024.0 * 1024;
    else if (!strcasecmp(end, "gb") || !strcasecmp(end, "g") || !strcasecmp(end, "gib"))
        mul = 1024.0 * 1024 * 1024;
    else if (!strcasecmp(end, "tb") || !strcasecmp(end, "t") || !strcasecmp(end, "tib"))
        mul = 1024.0 * 1024 * 1024 * 1024;
    else
        return fl_errorf(err, FL_EINVAL, "invalid unit for memory_limit: \"%s\"", end);
    double b = x * mul;
    if (b > 1.8e19)
        return fl_errorf(err, FL_EINVAL, "memory_limit too large: \"%s\"", v);
    *out = (uint64_t)b;
    return FL_OK;
}

static fl_status parse_ms(const char *v, int64_t *out, fl_error *err)
{
    char *end = NULL;
    double x = strtod(v, &end);
    if (!end || end == v || x < 0)
        return fl_errorf(err, FL_EINVAL, "invalid value for statement_timeout: \"%s\"", v);
    while (*end == ' ')
        end++;
    double mul = 1;
    if (!*end || !strcasecmp(end, "ms"))
        mul = 1;
    else if (!strcasecmp(end, "s"))
        mul = 1000;
    else if (!strcasecmp(end, "min"))
        mul = 60000;
    else if (!strcasecmp(end, "h"))
        mul = 3600000;
    else
        return fl_errorf(err, FL_EINVAL, "invalid unit for statement_timeout: \"%s\"", end);
    *out = (int64_t)(x * mul);
    return FL_OK;
}

static fl_status set_str(char **slot, const char *v, fl_error *err)
{
    char *c = strdup(v);
    if (!c)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    free(*slot);
    *slot = c;
    return FL_OK;
}

fl_status fl_sql_set(fl_sql_session *s, const char *name, const char *value, fl_error *err)
{
    if (!name)
        return fl_errorf(err, FL_EINVAL, "SET needs a name");
    if (!value) { /* RESET: the built-in default (not the session's open options) */
        if (!strcasecmp(name, "memory_limit") || !strcasecmp(name, "threads")) {
            value = "0";
        } else if (!strcasecmp(name, "time_zone") || !strcasecmp(name, "timezone")) {
            value = "UTC";
        } else if (!strcasecmp(name, "search_path")) {
            value = "default";
        } else if (!strcasecmp(name, "statement_timeout")) {
            value = "0";
        } else if (!strcasecmp(name, "spill_dir")) {
            free(s->spill_dir);
            s->spill_dir = NULL;
            return FL_OK;
        } else {
            return fl_errorf(err, FL_ENOTFOUND, "unrecognized configuration parameter \"%s\"",
                             name);
        }
    }
    if (!strcasecmp(name, "memory_limit"))
        return parse_bytes(value, &s->memory_limit, err);
    if (!strcasecmp(name, "threads")) {
        char *end = NULL;
        long t = strtol(value, &end, 10);
        if (!end || *end || t < 0 || t > 1024)
            return fl_errorf(err, FL_EINVAL, "invalid value for threads: \"%s\"", value);
        s->threads = (uint32_t)t;
        return FL_OK;
    }
    if (!strcasecmp(name, "time_zone") || !strcasecmp(name, "timezone")) {
        if (!*value)
            return fl_errorf(err, FL_EINVAL, "invalid value for time_zone: \"\"");
        return set_str(&s->time_zone, value, err);
    }
    if (!strcasecmp(name, "search_path")) {
        /* the first entry of a list, unquoted */
        char buf[512];
        size_t n = strcspn(value, ",");
        if (n >= sizeof buf)
            return fl_errorf(err, FL_EINVAL, "search_path too long");
        memcpy(buf, value, n);
        buf[n] = 0;
        char *b = buf;
        while (isspace((unsigned char)*b))
            b++;
        size_t l = strlen(b);
        while (l && isspace((unsigned char)b[l - 1]))
            b[--l] = 0;
        if (l >= 2 && b[0] == '"' && b[l - 1] == '"') {
            b[l - 1] = 0;
            b++;
        }
        if (!*b)
            return fl_errorf(err, FL_EINVAL, "invalid value for search_path: \"%s\"", value);
        return set_str(&s->default_namespace, b, err);
    }
    if (!strcasecmp(name, "statement_timeout"))
        return parse_ms(value, &s->statement_timeout_ms, err);
    if (!strcasecmp(name, "spill_dir"))
        return set_str(&s->spill_dir, value, err);
    return fl_errorf(err, FL_ENOTFOUND, "unrecognized configuration parameter \"%s\"", name);
}

const char *fl_sql_get(fl_sql_session *s, const char *name)
{
    if (!s || !name)
        return NULL;
    if (!strcasecmp(name, "memory_limit")) {
        snprintf(s->getbuf, sizeof s->getbuf, "%" PRIu64, s->memory_limit);
        return s->getbuf;
    }
    if (!strcasecmp(name, "threads")) {
        snprintf(s->getbuf, sizeof s->getbuf, "%u", s->threads);
        return s->getbuf;
    }
    if (!strcasecmp(name, "time_zone") || !strcasecmp(name, "timezone"))
        return s->time_zone;
    if (!strcasecmp(name, "search_path"))
        return s->default_namespace;
    if (!strcasecmp(name, "statement_timeout")) {
        snprintf(s->getbuf, sizeof s->getbuf, "%" PRId64, s->statement_timeout_ms);
        return s->getbuf;
    }
    if (!strcasecmp(name, "spill_dir"))
        return s->spill_dir ? s->spill_dir : "";
    return NULL;
}
