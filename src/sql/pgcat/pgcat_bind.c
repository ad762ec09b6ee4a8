/*
 * pgcat_bind.c - binding a catalog relation in FROM: the hook scope.c's
 * fl_bind_table() calls first. pg_catalog.x and information_schema.x are
 * always catalog relations (an unknown one is 42P01); an unqualified name
 * that is a pg_catalog relation resolves there, as PostgreSQL's implicit
 * pg_catalog-first search path does. The relation's rows are built now and
 * bound as a planned FL_SCAN_ROWS scan (an FL_REL_PLAN relation), so
 * filters, joins and sorts above it are the engine's own.
 */
#include <string.h>

#include "sql/func/pgfunc.h"
#include "sql/pgcat/pgcat.h"

fl_status fl_pgcat_fill(fl_planner_ctx *pc, fl_pgcat_snap *s, const fl_pgcat_def *d,
                        fl_pgcat_rows *r, fl_error *err)
{
    bool done = false;
    if (strcmp(d->schema, "pg_catalog") == 0)
        return fl_pgcat_fill_pg(pc, s, d, r, &done, err);
    return fl_pgcat_fill_info(pc, s, d, r, &done, err);
}

fl_status fl_pgcat_bind_table(fl_bctx *b, const PgQuery__RangeVar *rv, const char *alias,
                              uint32_t *out_ri, bool *handled, fl_error *err)
{
    *handled = false;
    const char *sch = rv->schemaname;
    bool qualified = sch && sch[0];
    if (rv->catalogname && rv->catalogname[0])
        return FL_OK;
    if (qualified && strcmp(sch, "pg_catalog") != 0 && strcmp(sch, "information_schema") != 0)
        return FL_OK;
    const fl_pgcat_def *d = fl_pgcat_def_find(qualified ? sch : "pg_catalog", rv->relname);
    if (!d) {
        if (!qualified)
            return FL_OK;
        return fl_front_err(b->pc, err, FL_ENOTFOUND, rv->location, "42P01",
                            "relation \"%s.%s\" does not exist (floe provides no such catalog "
                            "relation)",
                            sch, rv->relname);
    }
    *handled = true;
    fl_planner_ctx *pc = b->pc;
    fl_pgcat_snap *s = NULL;
    fl_pgcat_rows rows;
    FL_TRY(fl_pgcat_snap_get(pc, &s, err));
    FL_TRY(fl_pgcat_rows_init(&rows, pc->arena, d, err));
    FL_TRY(fl_pgcat_fill(pc, s, d, &rows, err));
    return fl_pgcat_bind_rows(b, d, &rows, alias, out_ri, err);
}

fl_status fl_pgcat_bind_rows(fl_bctx *b, const fl_pgcat_def *d, fl_pgcat_rows *r,
                             const char *alias, uint32_t *out_ri, fl_error *err)
{
    fl_planner_ctx *pc = b->pc;
    fl_pgcat_rows rows = *r;
    fl_row_source *src = NULL;
    FL_TRY(fl_pgcat_rows_source(&rows, &src, err));
    fl_plan *p = fl_plan_new(pc->arena, FL_PLAN_SCAN, 0, rows.schema.nfields);
    int32_t *cols = fl_arena_calloc(pc->arena, rows.schema.nfields + 1, sizeof(int32_t));
    fl_schema *fs = fl_arena_calloc(pc->arena, 1, sizeof *fs);
    if (!p || !cols || !fs)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    *fs = rows.schema;
    for (uint32_t i = 0; i < rows.schema.nfields; i++) {
        p->schema.fields[i] = rows.schema.fields[i];
        cols[i] = (int32_t)i;
    }
    fl_plan_scan *sc = &p->u.scan;
    sc->kind = FL_SCAN_ROWS;
    sc->io = pc->io;
    sc->name = fl_arena_sprintf(pc->arena, "%s.%s", d->schema, d->name);
    sc->file_schema = fs;
    sc->rows = src;
    sc->columns = cols;
    sc->ncolumns = rows.schema.nfields;
    sc->limit = -1;
    p->est_rows = rows.nrows ? rows.nrows : 1;
    fl_rel rel;
    memset(&rel, 0, sizeof rel);
    rel.kind = FL_REL_PLAN;
    rel.alias = alias;
    rel.plan = p;
    rel.name = sc->name;
    return fl_scope_add_rel(b->a, &b->scope, &rel, &p->schema, out_ri, err);
}
