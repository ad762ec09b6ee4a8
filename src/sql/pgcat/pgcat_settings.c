/*
 * pgcat_settings.c - the PostgreSQL run-time settings floe reports, in one
 * table: the rows of pg_settings (pgcat_fill_pg.c) and the answers of
 * current_setting() / pg_catalog.current_setting (pgcat_expr.c) come from
 * here, so the two always agree. Values are PostgreSQL 15's defaults for a
 * UTF8 server in the C.UTF-8 locale; TimeZone and search_path are the
 * session's (value NULL in the table, resolved by fl_pgcat_setting_value).
 */
#include <stddef.h>
#include <strings.h>

#include "sql/pgcat/pgcat.h"

static const fl_pgcat_setting settings[] = {
    {"server_version", "15.0", "string"},
    {"server_version_num", "150000", "integer"},
    {"server_encoding", "UTF8", "string"},
    {"client_encoding", "UTF8", "string"},
    {"DateStyle", "ISO, MDY", "string"},
    {"IntervalStyle", "postgres", "enum"},
    {"TimeZone", NULL, "string"},
    {"integer_datetimes", "on", "bool"},
    {"standard_conforming_strings", "on", "bool"},
    {"max_identifier_length", "63", "integer"},
    {"search_path", NULL, "string"},
    {"transaction_isolation", "read committed", "enum"},
    {"default_transaction_read_only", "off", "bool"},
    {"lc_collate", "C.UTF-8", "string"},
    {"lc_ctype", "C.UTF-8", "string"},
    {"max_connections", "100", "integer"},
    {"block_size", "8192", "integer"},
    {"max_index_keys", "32", "integer"},
    {"application_name", "", "string"},
    {"extra_float_digits", "1", "integer"},
    {"is_superuser", "on", "bool"},
};

const fl_pgcat_setting *fl_pgcat_settings(size_t *n)
{
    *n = sizeof settings / sizeof settings[0];
    return settings;
}

const char *fl_pgcat_setting_value(const fl_pgcat_setting *st, const char *time_zone,
                                   const char *schema)
{
    if (st->value)
        return st->value;
    if (!strcasecmp(st->name, "TimeZone"))
        return time_zone ? time_zone : "UTC";
    return schema; /* search_path */
}

const fl_pgcat_setting *fl_pgcat_setting_find(const char *name)
{
    if (!strcasecmp(name, "time_zone"))
        name = "TimeZone";
    for (size_t i = 0; i < sizeof settings / sizeof settings[0]; i++)
        if (!strcasecmp(settings[i].name, name))
            return &settings[i];
    return NULL;
}
