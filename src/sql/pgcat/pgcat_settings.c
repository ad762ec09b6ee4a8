/*
 * pgcat_settings.c - the settings as pg_catalog sees them: the rows of
 * pg_settings (pgcat_fill_pg.c) and the values of current_setting() /
 * set_config() (pgcat_expr.c). There is no table here any more: every
 * setting comes from the one list of include/floe/sql_settings.h with the
 * statement's session values (fl_planner_ctx.session), so SHOW, SET, RESET,
 * current_setting, set_config and pg_settings agree. Without a session
 * (a planner context made elsewhere) the built-in values are shown, with
 * the context's time zone and schema.
 */
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "sql/pgcat/pgcat.h"
#include "floe/sql_settings.h"

const char *fl_pgcat_setting_show(const fl_planner_ctx *pc, const char *name)
{
    const fl_setting_def *d = fl_sql_setting_def(name);
    if (!pc->session && d && !strcmp(d->name, "TimeZone"))
        return pc->time_zone ? pc->time_zone : "UTC";
    if (!pc->session && d && !strcmp(d->name, "search_path"))
        return pc->default_namespace ? pc->default_namespace : "default";
    return fl_sql_setting_show(pc->session, name);
}

/* pg_settings.context: PostgreSQL's for the FIXED ones */
static const char *context_of(const fl_setting_def *d)
{
    if (d->flags & FL_SET_RESTART)
        return "postmaster";
    if (!strcmp(d->name, "is_superuser") || !strcmp(d->name, "session_authorization"))
        return "superuser";
    if (d->flags & FL_SET_FIXED)
        return "internal";
    return "user";
}

fl_status fl_pgcat_fill_settings(fl_planner_ctx *pc, fl_pgcat_rows *r, fl_error *err)
{
    size_t n;
    const fl_setting_def *d = fl_sql_setting_defs(&n);
    for (size_t i = 0; i < n; i++) {
        const char *v = fl_arena_strdup(r->a, pc->session
                                                  ? fl_sql_setting_raw(pc->session, d[i].name)
                                                  : fl_pgcat_setting_show(pc, d[i].name));
        const char *reset = fl_arena_strdup(r->a, fl_sql_setting_reset_val(pc->session, d[i].name));
        if (!v || !reset)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        FL_TRY(fl_pgcat_rows_add(r, err));
        fl_pgcat_set_str(r, "name", d[i].name);
        fl_pgcat_set_str(r, "setting", v);
        fl_pgcat_set_str(r, "unit", d[i].unit && strcmp(d[i].unit, "B") ? d[i].unit : NULL);
        fl_pgcat_set_str(r, "category", d[i].flags & FL_SET_ENGINE && !d[i].unit ? "floe" : "");
        fl_pgcat_set_str(r, "short_desc", d[i].desc);
        fl_pgcat_set_str(r, "vartype", d[i].vartype);
        fl_pgcat_set_str(r, "context", context_of(&d[i]));
        fl_pgcat_set_str(r, "source", strcmp(v, reset) ? "session" : "default");
        fl_pgcat_set_str(r, "boot_val", d[i].boot ? d[i].boot : reset);
        fl_pgcat_set_str(r, "reset_val", reset);
        fl_pgcat_set_bool(r, "pending_restart", false);
    }
    const char *cn, *cv;
    for (uint32_t i = 0; fl_sql_setting_custom(pc->session, i, &cn, &cv); i++) {
        FL_TRY(fl_pgcat_rows_add(r, err));
        fl_pgcat_set_str(r, "name", cn);
        fl_pgcat_set_str(r, "setting", cv);
        fl_pgcat_set_str(r, "category", "Customized Options");
        fl_pgcat_set_str(r, "vartype", "string");
        fl_pgcat_set_str(r, "context", "user");
        fl_pgcat_set_str(r, "source", "session");
        fl_pgcat_set_str(r, "boot_val", "");
        fl_pgcat_set_str(r, "reset_val", "");
        fl_pgcat_set_bool(r, "pending_restart", false);
    }
    return FL_OK;
}
