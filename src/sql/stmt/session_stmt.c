/*
 * session_stmt.c - SET, SHOW, RESET and CREATE VIEW (stmt.h).
 *
 * SET name = value / SET name TO value / SET TIME ZONE 'zone' call
 * fl_sql_set() of the session (values of several items, as in SET
 * search_path = a, b, are joined with ", "); SET LOCAL is SET (each
 * statement commits on its own, so there is no transaction to scope it).
 * RESET name and SET name TO DEFAULT call fl_sql_set(name, NULL) ("back to
 * the default"); when the session refuses NULL, the built-in defaults are
 * set instead (time_zone UTC, threads/memory_limit/statement_timeout 0 =
 * automatic/none); search_path and spill_dir have no built-in default and
 * cannot be RESET then. RESET ALL resets those with defaults. SET TRANSACTION / SET SESSION CHARACTERISTICS are accepted
 * and ignored (tag "SET"). SHOW name returns one row with one text column
 * named after the setting; SHOW ALL returns (name, setting) rows.
 * Unknown settings are SQLSTATE 42704. The settings, their values as SHOW
 * prints them and RESET ALL come from the one list in
 * include/floe/sql_settings.h (pgcompat, round 5).
 */
#include <string.h>
#include <strings.h>

#include "floe/sql_settings.h"
#include "sql/stmt/stmt_int.h"


static fl_status need_session(fl_stmt_ctx *c, const char *what, fl_error *err)
{
    if (c->session)
        return FL_OK;
    return fl_errorf(err, FL_EINVAL, "%s needs a session", what);
}

static fl_status set_value(fl_stmt_ctx *c, const PgQuery__VariableSetStmt *s, const char **out,
                           fl_error *err)
{
    fl_arena *a = c->planner->arena;
    size_t len = 1;
    const char **parts = fl_arena_calloc(a, s->n_args + 1, sizeof *parts);
    if (!parts)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (size_t i = 0; i < s->n_args; i++) {
        parts[i] = stmt_node_text(a, s->args[i]);
        if (!parts[i])
            return fl_errorf(err, FL_EINVAL, "SET %s: unsupported value", s->name);
        len += strlen(parts[i]) + 2;
    }
    char *v = fl_arena_alloc(a, len);
    if (!v)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    v[0] = '\0';
    for (size_t i = 0; i < s->n_args; i++) {
        if (i)
            strcat(v, ", ");
        strcat(v, parts[i]);
    }
    *out = v;
    return FL_OK;
}

/* The value RESET restores when the session does not take NULL for "default". */
static const char *default_of(const char *name)
{
    static const char *const d[][2] = {{"time_zone", "UTC"},    {"timezone", "UTC"},
                                       {"threads", "0"},        {"memory_limit", "0"},
                                       {"statement_timeout", "0"}};
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++)
        if (!strcasecmp(d[i][0], name))
            return d[i][1];
    return NULL;
}

static fl_status set_one(fl_stmt_ctx *c, const char *name, const char *value, fl_error *err)
{
    fl_status rc = fl_sql_set(c->session, name, value, err);
    if (rc == FL_EINVAL && !value && default_of(name)) {
        fl_error_clear(err);
        rc = fl_sql_set(c->session, name, default_of(name), err);
    } else if (rc == FL_EINVAL && !value) {
        return fl_errorf(err, FL_EUNSUPPORTED, "RESET %s is not supported (SET it instead)",
                         name);
    }
    /* on failure err carries 42704 unknown, 22023 bad value, 55P02 fixed (session_settings.h) */
    return rc;
}

fl_status stmt_set(fl_stmt_ctx *c, const PgQuery__VariableSetStmt *s, fl_stmt_result *out,
                   fl_error *err)
{
    switch (s->kind) {
    case PG_QUERY__VARIABLE_SET_KIND__VAR_SET_VALUE: {
        FL_TRY(need_session(c, "SET", err));
        const char *v = NULL;
        FL_TRY(set_value(c, s, &v, err));
        FL_TRY(set_one(c, s->name, v, err));
        stmt_tag(out, "SET");
        return FL_OK;
    }
    case PG_QUERY__VARIABLE_SET_KIND__VAR_SET_DEFAULT:
    case PG_QUERY__VARIABLE_SET_KIND__VAR_RESET:
        FL_TRY(need_session(c, "RESET", err));
        FL_TRY(set_one(c, s->name, NULL, err));
        stmt_tag(out, s->kind == PG_QUERY__VARIABLE_SET_KIND__VAR_RESET ? "RESET" : "SET");
        return FL_OK;
    case PG_QUERY__VARIABLE_SET_KIND__VAR_RESET_ALL:
        FL_TRY(need_session(c, "RESET ALL", err));
        FL_TRY(fl_sql_reset_all(c->session, err));
        stmt_tag(out, "RESET");
        return FL_OK;
    case PG_QUERY__VARIABLE_SET_KIND__VAR_SET_MULTI:
        /* SET TRANSACTION ...: every statement is its own transaction */
        stmt_tag(out, "SET");
        return FL_OK;
    default:
        return fl_errorf(err, FL_EUNSUPPORTED, "this form of SET is not supported");
    }
}

fl_status stmt_show(fl_stmt_ctx *c, const PgQuery__VariableShowStmt *s, fl_stmt_result *out,
                    fl_error *err)
{
    FL_TRY(need_session(c, "SHOW", err));
    fl_arena *a = c->planner->arena;
    if (!strcmp(s->name, "all")) { /* the one settings list (session_settings.h) */
        size_t nd;
        const fl_setting_def *d = fl_sql_setting_defs(&nd);
        const char *cn, *cv;
        uint32_t nc = 0;
        while (fl_sql_setting_custom(c->session, nc, &cn, &cv))
            nc++;
        const char **cells = fl_arena_calloc(a, 2 * (nd + nc) + 1, sizeof *cells);
        if (!cells)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (size_t i = 0; i < nd; i++) {
            cells[2 * i] = d[i].name;
            cells[2 * i + 1] = fl_arena_strdup(a, fl_sql_setting_show(c->session, d[i].name));
        }
        for (uint32_t i = 0; i < nc && fl_sql_setting_custom(c->session, i, &cn, &cv); i++) {
            cells[2 * (nd + i)] = cn;
            cells[2 * (nd + i) + 1] = cv;
        }
        static const char *const names[] = {"name", "setting"};
        FL_TRY(stmt_result_strings(c, out, names, 2, cells, (uint32_t)(nd + nc), err));
        stmt_tag(out, "SHOW");
        return FL_OK;
    }
    const char *v = fl_sql_setting_show(c->session, s->name);
    if (!v) {
        return fl_error_state(err, FL_ENOTFOUND, "42704",
                              "unrecognized configuration parameter \"%s\"", s->name);
    }
    const char *names[1] = {s->name};
    const char *cells[1] = {fl_arena_strdup(a, v)};
    FL_TRY(stmt_result_strings(c, out, names, 1, cells, 1, err));
    stmt_tag(out, "SHOW");
    return FL_OK;
}
