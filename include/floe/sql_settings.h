/*
 * sql_settings.h - the one list of run-time settings (PostgreSQL's
 * GUCs plus floe's own) and their per-session values.
 *
 * Every path reads this list: SET / SHOW / RESET (the SQL statements in
 * stmt/session_stmt.c, and pgwire's own handling of them in
 * src/pgwire/settings.c), current_setting() and set_config() (pgcat_expr.c),
 * pg_settings (pgcat_fill_pg.c), fl_sql_set / fl_sql_get / fl_sql_set_default
 * (sql.h). pgwire keeps no list of its own, so the two cannot disagree.
 *
 * Kinds of settings:
 *   ENGINE  the value is a session field the engine uses (memory_limit,
 *           threads, TimeZone, search_path, statement_timeout, spill_dir);
 *           parsed and checked by fl_sql_set.
 *   FIXED   cannot be SET (server_version, is_superuser, max_connections...):
 *           SQLSTATE 55P02 as in PostgreSQL; the embedding server gives
 *           connection-level values with fl_sql_set_default.
 *   other   a PostgreSQL setting floe accepts and reports (DateStyle...):
 *           values are checked where floe supports only one behaviour
 *           (client_encoding UTF8, DateStyle ISO, IntervalStyle postgres,
 *           bytea_output hex), else stored as given.
 *   REPORT  GUC_REPORT: pgwire sends ParameterStatus when it changes.
 * Names with a dot are custom settings (SET myapp.x = '1'), stored as text.
 */
#ifndef FLOE_SQL_SESSION_SETTINGS_H
#define FLOE_SQL_SESSION_SETTINGS_H

#include "floe/export.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/sql.h"

#define FL_SET_ENGINE 1u
#define FL_SET_REPORT 2u
#define FL_SET_FIXED 4u
#define FL_SET_RESTART 8u /* FIXED because the server sets it at start (max_connections) */

typedef struct fl_setting_def {
    const char *name;    /* PostgreSQL's spelling ("DateStyle"); lookups ignore case */
    const char *vartype; /* pg_settings.vartype: bool, integer, string, enum */
    const char *boot; /* built-in value; NULL = from the session (ENGINE, session_authorization) */
    const char *unit; /* pg_settings.unit (NULL = none) */
    uint32_t flags;
    const char *desc; /* pg_settings.short_desc */
} fl_setting_def;

/* The list, in pg_settings order (by name, case-insensitively). */
FL_API const fl_setting_def *fl_sql_setting_defs(size_t *n);
/* The setting called name (case-insensitive; "time_zone" = TimeZone), or NULL. */
FL_API const fl_setting_def *fl_sql_setting_def(const char *name);

/* The value as SHOW and current_setting() print it (statement_timeout "5s",
 * as PostgreSQL); NULL for an unknown name (a custom name never set).
 * s NULL: the built-in value. Session-owned string, valid until the next
 * call on s. */
FL_API const char *fl_sql_setting_show(fl_sql_session *s, const char *name);
/* pg_settings.setting: base units (statement_timeout in ms). */
FL_API const char *fl_sql_setting_raw(fl_sql_session *s, const char *name);
/* What RESET restores (pg_settings.reset_val). */
FL_API const char *fl_sql_setting_reset_val(fl_sql_session *s, const char *name);
/* Custom (dotted) settings set in the session: false past the end. */
FL_API bool fl_sql_setting_custom(const fl_sql_session *s, uint32_t i, const char **name,
                                  const char **value);
/* SQLSTATE of the last failed fl_sql_set / fl_sql_set_default on s
 * ("42704" unknown, "22023" bad value, "55P02" cannot be changed). */
FL_API const char *fl_sql_set_sqlstate(const fl_sql_session *s);

/* session.c: per-session storage (session_settings.c) */
FL_API fl_status fl_session_settings_init(fl_sql_session *s, fl_error *err);
FL_API void fl_session_settings_free(fl_sql_session *s);

#endif
