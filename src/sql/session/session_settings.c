/*
 * session_settings.c - fl_sql_set / fl_sql_get / fl_sql_set_default /
 * fl_sql_reset_all over the one settings list (session_settings.h,
 * session_setting_defs.c). Names are case-insensitive.
 *
 * Engine settings parse into session fields: memory_limit ("1GB", "512MB",
 * bytes), threads, time_zone / TimeZone, search_path (the default
 * namespace), statement_timeout (ms; "5s", "1min" also accepted; 0 = none),
 * spill_dir. The other PostgreSQL settings are stored as text per session
 * (checked where floe has one behaviour only); FIXED ones refuse SET with
 * SQLSTATE 55P02; dotted names are custom settings. Unknown names:
 * FL_ENOTFOUND (SQLSTATE 42704). The SQLSTATE of a failure is kept for
 * the caller (fl_sql_set_sqlstate) and for the statement's error.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sql/func.h"

#include "sql/session/session_internal.h"

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

/* memory_limit / statement_timeout / spill_dir within the operator's
 * ceilings (session_limits.c); RESET goes back to the opening value when
 * the session has ceilings or a default timeout. *done when handled. */
static fl_status limited_set(fl_sql_session *s, const char *name, const char *value, bool *done,
                             fl_error *err)
{
    *done = true;
    if (!strcasecmp(name, "spill_dir") && s->spill_dir_fixed) {
        memcpy(s->set_state, "55P02", 6);
        return fl_session_check_spill_dir(s, err);
    }
    if (!strcasecmp(name, "memory_limit") && (value || fl_session_has_limits(s))) {
        uint64_t v = s->open_memory_limit;
        if (value)
            FL_TRY(parse_bytes(value, &v, err));
        FL_TRY(fl_session_check_memory_limit(s, v, err));
        s->memory_limit = v;
        return FL_OK;
    }
    if (!strcasecmp(name, "statement_timeout") && (value || fl_session_has_limits(s))) {
        int64_t v = s->open_statement_timeout_ms;
        if (value)
            FL_TRY(parse_ms(value, &v, err));
        FL_TRY(fl_session_check_statement_timeout(s, v, err));
        s->statement_timeout_ms = v;
        return FL_OK;
    }
    *done = false;
    return FL_OK;
}

static fl_status engine_set(fl_sql_session *s, const char *name, const char *value, fl_error *err)
{
    bool done;
    fl_status lrc = limited_set(s, name, value, &done, err);
    if (done)
        return lrc;
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
        fl_error tzerr = {0};
        if (fl_func_tz_check(value, &tzerr) != FL_OK) { /* as PostgreSQL: refused at SET */
            memcpy(s->set_state, "22023", 6);
            return fl_errorf(err, FL_EINVAL, "invalid value for parameter \"TimeZone\": \"%s\"",
                             value);
        }
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

static const char *engine_get(fl_sql_session *s, const char *name)
{
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

/* ---- the other settings ---- */

static bool one_of(const char *v, const char *const *ok)
{
    for (; *ok; ok++)
        if (!strcasecmp(v, *ok))
            return true;
    return false;
}

static fl_status bad_value(fl_sql_session *s, fl_error *err, const char *name, const char *v,
                           const char *why)
{
    memcpy(s->set_state, "22023", 6);
    return fl_errorf(err, FL_EINVAL, "invalid value for parameter \"%s\": \"%s\"%s%s", name, v,
                     why ? ": " : "", why ? why : "");
}

/* Checks value for d and gives the text to store (*out static or value). */
static fl_status check_value(fl_sql_session *s, const fl_setting_def *d, const char *value,
                             const char **out, fl_error *err)
{
    static const char *const utf8[] = {"UTF8", "UTF-8", "unicode", NULL};
    static const char *const bools[] = {"on", "off", "true", "false", "yes", "no", "1", "0",
                                        "t", "f", NULL};
    *out = value;
    if (!strcmp(d->name, "client_encoding")) {
        if (!one_of(value, utf8))
            return bad_value(s, err, d->name, value, "floe speaks UTF8 only");
        *out = "UTF8";
    } else if (!strcmp(d->name, "DateStyle")) {
        if (!strcasestr(value, "ISO"))
            return bad_value(s, err, d->name, value, "floe writes ISO dates only");
        if (!strchr(value, ','))
            *out = "ISO, MDY";
    } else if (!strcmp(d->name, "IntervalStyle") && strcasecmp(value, "postgres")) {
        return bad_value(s, err, d->name, value, "floe writes the postgres style only");
    } else if (!strcmp(d->name, "bytea_output") && strcasecmp(value, "hex")) {
        return bad_value(s, err, d->name, value, "floe writes hex only");
    } else if (!strcmp(d->vartype, "bool")) {
        if (!one_of(value, bools))
            return bad_value(s, err, d->name, value, NULL);
        *out = one_of(value, (const char *const[]){"on", "true", "yes", "1", "t", NULL}) ? "on"
                                                                                      : "off";
    } else if (!strcmp(d->vartype, "integer")) {
        char *end = NULL;
        strtoll(value, &end, 10);
        if (!end || end == value)
            return bad_value(s, err, d->name, value, NULL);
        while (*end == ' ' || (*end >= 'a' && *end <= 'z') || (*end >= 'A' && *end <= 'Z'))
            end++; /* units ("5s", "4MB") as PostgreSQL accepts them */
        if (*end)
            return bad_value(s, err, d->name, value, NULL);
    }
    return FL_OK;
}

static fl_status put(char **slot, const char *v, fl_error *err)
{
    char *c = v ? strdup(v) : NULL;
    if (v && !c)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    free(*slot);
    *slot = c;
    return FL_OK;
}

static fl_status custom_set(fl_sql_session *s, const char *name, const char *value, fl_error *err)
{
    for (uint32_t i = 0; i < s->ncustom; i++)
        if (!strcasecmp(s->custom_names[i], name))
            return put(&s->custom_vals[i], value ? value : "", err);
    if (s->ncustom == s->capcustom) {
        uint32_t nc = s->capcustom ? s->capcustom * 2 : 8;
        if (nc > 4096)
            return fl_errorf(err, FL_ELIMIT, "too many custom settings (%u)", s->ncustom);
        char **n = realloc(s->custom_names, nc * sizeof *n);
        if (!n)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        s->custom_names = n;
        char **v = realloc(s->custom_vals, nc * sizeof *v);
        if (!v)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        s->custom_vals = v;
        s->capcustom = nc;
    }
    char *n = strdup(name), *v = strdup(value ? value : "");
    if (!n || !v) {
        free(n);
        free(v);
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    for (char *p = n; *p; p++) /* PostgreSQL folds custom names to lower case */
        *p = (char)tolower((unsigned char)*p);
    s->custom_names[s->ncustom] = n;
    s->custom_vals[s->ncustom] = v;
    s->ncustom++;
    return FL_OK;
}

static fl_status set_any(fl_sql_session *s, const char *name, const char *value, bool as_default,
                         fl_error *err)
{
    memset(s->set_state, 0, sizeof s->set_state);
    if (!name || !*name) {
        memcpy(s->set_state, "42601", 6);
        return fl_errorf(err, FL_EINVAL, "SET needs a name");
    }
    const fl_setting_def *d = fl_sql_setting_def(name);
    if (!d && strchr(name, '.'))
        return custom_set(s, name, value, err);
    if (!d) {
        memcpy(s->set_state, "42704", 6);
        return fl_errorf(err, FL_ENOTFOUND, "unrecognized configuration parameter \"%s\"", name);
    }
    if (d->flags & FL_SET_ENGINE) {
        fl_status rc = engine_set(s, d->name, value, err);
        if (rc != FL_OK && !s->set_state[0])
            memcpy(s->set_state,
                   rc == FL_ENOTFOUND    ? "42704"
                   : rc == FL_EFORBIDDEN ? "42501" /* past a ceiling */
                                         : "22023",
                   6);
        return rc;
    }
    if ((d->flags & FL_SET_FIXED) && !as_default) {
        memcpy(s->set_state, "55P02", 6);
        if (d->flags & FL_SET_RESTART)
            return fl_errorf(err, FL_EINVAL,
                             "parameter \"%s\" cannot be changed without restarting the server",
                             d->name);
        return fl_errorf(err, FL_EINVAL, "parameter \"%s\" cannot be changed", d->name);
    }
    size_t i = (size_t)(d - fl_sql_setting_defs(&(size_t){0}));
    if (!value) /* RESET: back to the reset value */
        return put(&s->set_cur[i], NULL, err);
    const char *v = value;
    FL_TRY(check_value(s, d, value, &v, err));
    if (as_default) {
        FL_TRY(put(&s->set_reset[i], v, err));
        return put(&s->set_cur[i], NULL, err);
    }
    return put(&s->set_cur[i], v, err);
}

/* a failed SET's error carries the SQLSTATE set_any chose (42704, 22023, 55P02, ...) */
static fl_status with_state(fl_sql_session *s, fl_status rc, fl_error *err)
{
    if (rc != FL_OK)
        fl_error_set_state(err, fl_sql_set_sqlstate(s));
    return rc;
}

fl_status fl_sql_set(fl_sql_session *s, const char *name, const char *value, fl_error *err)
{
    return with_state(s, set_any(s, name, value, false, err), err);
}

fl_status fl_sql_set_default(fl_sql_session *s, const char *name, const char *value,
                             fl_error *err)
{
    if (!value)
        return fl_errorf(err, FL_EINVAL, "fl_sql_set_default needs a value");
    return with_state(s, set_any(s, name, value, true, err), err);
}

fl_status fl_sql_reset_all(fl_sql_session *s, fl_error *err)
{
    size_t n;
    const fl_setting_def *d = fl_sql_setting_defs(&n);
    for (size_t i = 0; i < n; i++)
        if (!(d[i].flags & FL_SET_FIXED) && strcmp(d[i].name, "search_path") &&
            strcmp(d[i].name, "spill_dir"))
            FL_TRY(set_any(s, d[i].name, NULL, false, err));
    for (uint32_t i = 0; i < s->ncustom; i++)
        FL_TRY(put(&s->custom_vals[i], "", err));
    return FL_OK;
}

const char *fl_sql_get(fl_sql_session *s, const char *name)
{
    if (!s || !name)
        return NULL;
    const fl_setting_def *d = fl_sql_setting_def(name);
    if (d && (d->flags & FL_SET_ENGINE))
        return engine_get(s, d->name);
    return fl_sql_setting_raw(s, name);
}
