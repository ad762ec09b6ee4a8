/*
 * pgcat_srf.c - set-returning functions in FROM used by introspection
 * queries: generate_series(start, stop [, step]) over integers, and
 * unnest(array) of a constant array. Their arguments must be constant
 * after folding (pgJDBC's generate_series(1, 32) pos(n) and
 * generate_series(1, array_upper(current_schemas(false), 1)) s(r) are);
 * the rows are built at bind time as an FL_SCAN_ROWS relation, like the
 * catalog relations, with the alias's column names applied. At most
 * 10,000,000 rows.
 */
#include <string.h>

#include "sql/pgcat/pgcat.h"

#define MAX_SERIES_ROWS 10000000LL

static fl_status const_arg(fl_bctx *b, const PgQuery__Node *n, const char *fn, fl_value *out,
                           fl_error *err)
{
    fl_expr *e;
    FL_TRY(fl_bind_expr(b, n, &e, err));
    e = fl_front_fold(b->a, e);
    if (e->kind != FL_EXPR_CONST)
        return fl_front_err(b->pc, err, FL_EUNSUPPORTED, e->location, "0A000",
                            "%s() in FROM needs constant arguments", fn);
    *out = e->value;
    return FL_OK;
}

static bool as_int(const fl_value *v, int64_t *out)
{
    if (v->is_null)
        return false;
    if (v->type.id == FL_TYPE_INT32) {
        *out = v->v.i32;
        return true;
    }
    if (v->type.id == FL_TYPE_INT64) {
        *out = v->v.i64;
        return true;
    }
    return false;
}

/* Binds the rows as a relation named alias with column names from al. */
static fl_status bind_rows(fl_bctx *b, fl_pgcat_rows *rows, const char *name, const char *alias,
                           const PgQuery__Alias *al, uint32_t *ri, fl_error *err)
{
    fl_planner_ctx *pc = b->pc;
    if (al && al->n_colnames > rows->schema.nfields)
        return fl_errorf(err, FL_EINVAL, "table \"%s\" has %u columns available but %zu columns "
                                         "specified",
                         alias, rows->schema.nfields, al->n_colnames);
    for (size_t i = 0; al && i < al->n_colnames; i++)
        rows->schema.fields[i].name = fl_front_str(al->colnames[i]);
    fl_row_source *src = NULL;
    FL_TRY(fl_pgcat_rows_source(rows, &src, err));
    uint32_t nc = rows->schema.nfields;
    fl_plan *p = fl_plan_new(pc->arena, FL_PLAN_SCAN, 0, nc);
    int32_t *cols = fl_arena_calloc(pc->arena, nc + 1, sizeof(int32_t));
    fl_schema *fs = fl_arena_calloc(pc->arena, 1, sizeof *fs);
    if (!p || !cols || !fs)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    *fs = rows->schema;
    for (uint32_t i = 0; i < nc; i++) {
        p->schema.fields[i] = rows->schema.fields[i];
        cols[i] = (int32_t)i;
    }
    fl_plan_scan *sc = &p->u.scan;
    sc->kind = FL_SCAN_ROWS;
    sc->io = pc->io;
    sc->name = name;
    sc->file_schema = fs;
    sc->rows = src;
    sc->columns = cols;
    sc->ncolumns = nc;
    sc->limit = -1;
    p->est_rows = rows->nrows ? rows->nrows : 1;
    fl_rel r;
    memset(&r, 0, sizeof r);
    r.kind = FL_REL_PLAN;
    r.alias = alias;
    r.plan = p;
    r.name = name;
    return fl_scope_add_rel(b->a, &b->scope, &r, &p->schema, ri, err);
}

static fl_status series(fl_bctx *b, const PgQuery__FuncCall *fc, const char *alias,
                        const PgQuery__Alias *al, uint32_t *ri, fl_error *err)
{
    if (fc->n_args < 2 || fc->n_args > 3)
        return fl_front_err(b->pc, err, FL_ENOTFOUND, fc->location, "42883",
                            "function generate_series with %zu arguments does not exist",
                            fc->n_args);
    fl_value v[3];
    int64_t x[3] = {0, 0, 1};
    bool big = false;
    for (size_t i = 0; i < fc->n_args; i++) {
        FL_TRY(const_arg(b, fc->args[i], "generate_series", &v[i], err));
        if (v[i].is_null)
            x[0] = 1, x[1] = 0; /* NULL argument: no rows */
        else if (!as_int(&v[i], &x[i]))
            return fl_front_err(b->pc, err, FL_EUNSUPPORTED, fc->location, "0A000",
                                "generate_series() over non-integer values is not supported");
        big = big || v[i].type.id == FL_TYPE_INT64;
    }
    if (x[2] == 0)
        return fl_front_err(b->pc, err, FL_EINVAL, fc->location, "22023",
                            "step size cannot equal zero");
    int64_t n = 0;
    if ((x[2] > 0 && x[1] >= x[0]) || (x[2] < 0 && x[1] <= x[0])) {
        __int128 span = ((__int128)x[1] - x[0]) / x[2] + 1;
        if (span > MAX_SERIES_ROWS)
            return fl_front_err(b->pc, err, FL_ELIMIT, fc->location, "54000",
                                "generate_series() in FROM is limited to %lld rows",
                                (long long)MAX_SERIES_ROWS);
        n = (int64_t)span;
    }
    fl_pgcat_def d = {"pg_catalog", "generate_series", 0, 'f',
                      big ? "generate_series:int8" : "generate_series:int4"};
    fl_pgcat_rows rows;
    FL_TRY(fl_pgcat_rows_init(&rows, b->pc->arena, &d, err));
    for (int64_t i = 0; i < n; i++) {
        FL_TRY(fl_pgcat_rows_add(&rows, err));
        fl_pgcat_set_int(&rows, "generate_series", x[0] + i * x[2]);
    }
    return bind_rows(b, &rows, "generate_series", alias, al, ri, err);
}

fl_status fl_pgcat_bind_table_function(fl_bctx *b, const PgQuery__RangeFunction *rf, uint32_t *ri,
                                       bool *handled, fl_error *err)
{
    *handled = false;
    if (rf->lateral || rf->ordinality || rf->is_rowsfrom || rf->n_functions != 1)
        return FL_OK;
    const PgQuery__Node *item = rf->functions[0];
    if (item->node_case == PG_QUERY__NODE__NODE_LIST && item->list->n_items > 0)
        item = item->list->items[0];
    if (item->node_case != PG_QUERY__NODE__NODE_FUNC_CALL)
        return FL_OK;
    const PgQuery__FuncCall *fc = item->func_call;
    const char *name = fl_front_str(fc->funcname[fc->n_funcname - 1]);
    if (!name || strcmp(name, "generate_series") != 0)
        return FL_OK;
    *handled = true;
    const char *alias = rf->alias && rf->alias->aliasname[0] ? rf->alias->aliasname : name;
    return series(b, fc, alias, rf->alias, ri, err);
}
