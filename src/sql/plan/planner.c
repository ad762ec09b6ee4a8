/*
 * planner.c - planner.h's entry points: fl_plan_new, planning a query,
 * resolving a table for DML/DDL, the row source of DML statements, binding
 * an expression over an existing plan, and releasing what a context opened.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql/authz/authz.h"
#include "sql/bind/bind.h"
#include "sql/parse/parse_tree.h"
#include "sql/plan/plan_rules.h"
#include "sql/plan/prune_cols.h"

fl_plan *fl_plan_new(fl_arena *a, fl_plan_kind kind, uint32_t nchildren, uint32_t ncols)
{
    fl_plan *p = fl_arena_calloc(a, 1, sizeof *p);
    if (!p)
        return NULL;
    p->kind = kind;
    p->nchildren = nchildren;
    if (nchildren) {
        p->children = fl_arena_calloc(a, nchildren, sizeof(fl_plan *));
        if (!p->children)
            return NULL;
    }
    p->schema.nfields = ncols;
    p->schema.fields = fl_arena_calloc(a, ncols + 1, sizeof(fl_field));
    if (!p->schema.fields)
        return NULL;
    if (kind == FL_PLAN_SCAN)
        p->u.scan.limit = -1;
    if (kind == FL_PLAN_LIMIT)
        p->u.limit.limit = -1;
    if (kind == FL_PLAN_SORT)
        p->u.sort.limit = -1;
    p->stats.snapshot_id_read = -1;
    return p;
}

fl_status fl_planner_plan_query(fl_planner_ctx *ctx, const PgQuery__Node *query, fl_plan **out,
                                fl_error *err)
{
    *out = NULL;
    if (!query || query->node_case != PG_QUERY__NODE__NODE_SELECT_STMT)
        return fl_errorf(err, FL_EINVAL, "not a query (SELECT, VALUES, WITH or a set operation)");
    fl_plan *p;
    FL_TRY(fl_plan_select(ctx, NULL, query, &p, err));
    FL_TRY(fl_plan_arrays_as_lists(ctx->arena, &p, err));
    FL_TRY(fl_front_number_params(ctx, p, err));
    FL_TRY(fl_optimize(ctx, p, err));
    FL_TRY(fl_reuse_scalar_subqueries(ctx, p, err));
    FL_TRY(fl_push_semijoins(ctx, p, err));
    FL_TRY(fl_prune_columns(ctx, p, err));
    *out = p;
    return FL_OK;
}

fl_status fl_planner_rv_namespace(const fl_planner_ctx *ctx, const PgQuery__RangeVar *rv,
                                  fl_arena *a, fl_namespace *out, fl_error *err)
{
    bool has_cat = rv->catalogname && rv->catalogname[0];
    bool has_sch = rv->schemaname && rv->schemaname[0];
    if (!has_cat && !has_sch) {
        const char *d = ctx->default_namespace && ctx->default_namespace[0]
                            ? ctx->default_namespace
                            : "default";
        return fl_namespace_parse(d, a, out, err);
    }
    if (!has_cat)
        return fl_namespace_parse(rv->schemaname, a, out, err);
    fl_namespace c, s = {0, NULL};
    FL_TRY(fl_namespace_parse(rv->catalogname, a, &c, err));
    if (has_sch)
        FL_TRY(fl_namespace_parse(rv->schemaname, a, &s, err));
    const char **lv = fl_arena_calloc(a, c.nlevels + s.nlevels + 1, sizeof *lv);
    if (!lv)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < c.nlevels; i++)
        lv[i] = c.levels[i];
    for (uint32_t i = 0; i < s.nlevels; i++)
        lv[c.nlevels + i] = s.levels[i];
    out->levels = lv;
    out->nlevels = c.nlevels + s.nlevels;
    return FL_OK;
}

static fl_status ident_of(fl_planner_ctx *ctx, const PgQuery__RangeVar *rv, fl_table_ident *id,
                          fl_error *err)
{
    FL_TRY(fl_planner_rv_namespace(ctx, rv, ctx->arena, &id->ns, err));
    id->name = rv->relname;
    return FL_OK;
}

/* Changes through row filters and column masks (authz/policy.c): INSERT
 * under masks only; nothing else is decided (which rows may an UPDATE
 * touch, what may it write into a masked column?), so it is refused. */
static fl_status check_policies(fl_planner_ctx *ctx, const PgQuery__RangeVar *rv, uint32_t privs,
                                const fl_table_ident *id, fl_error *err)
{
    if (!(privs & FL_PRIV_WRITE))
        return FL_OK;
    fl_auth_policy *pol = NULL;
    uint32_t npol = 0;
    FL_TRY(fl_sql_authz_policies(ctx, id, rv->location, &pol, &npol, err));
    bool insert_only = !(privs & FL_PRIV_READ);
    if (!npol || (insert_only && !fl_sql_policy_has(pol, npol, FL_POLICY_ROW_FILTER)))
        return FL_OK;
    return fl_front_err(ctx, err, FL_EFORBIDDEN, rv->location, "42501",
                        "permission denied for table %s: %s apply to it, so only %s",
                        fl_table_ident_str(id, ctx->arena),
                        fl_sql_policy_has(pol, npol, FL_POLICY_ROW_FILTER)
                            ? "row filters"
                            : "column masks",
                        fl_sql_policy_has(pol, npol, FL_POLICY_ROW_FILTER)
                            ? "reads are allowed"
                            : "reads and INSERT are allowed");
}

fl_status fl_planner_resolve_table(fl_planner_ctx *ctx, const PgQuery__RangeVar *rv,
                                   uint32_t privs, fl_planner_table *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    if (!ctx->catalog)
        return fl_front_err(ctx, err, FL_ENOTFOUND, rv->location, "42P01",
                            "relation \"%s\" does not exist (no catalog is configured)",
                            rv->relname);
    FL_TRY(ident_of(ctx, rv, &out->ident, err));
    static const fl_privilege order[] = {FL_PRIV_READ, FL_PRIV_WRITE, FL_PRIV_CREATE,
                                         FL_PRIV_DROP};
    for (size_t i = 0; i < sizeof order / sizeof *order; i++)
        if (privs & (uint32_t)order[i])
            FL_TRY(fl_sql_authz_table(ctx, order[i], &out->ident, rv->location, err));
    if (!privs) /* every use of a table needs some privilege: refuse, never guess */
        return fl_front_err(ctx, err, FL_EFORBIDDEN, rv->location, "42501",
                            "permission denied: no privilege requested for %s",
                            fl_table_ident_str(&out->ident, ctx->arena));
    FL_TRY(check_policies(ctx, rv, privs, &out->ident, err));
    fl_status rc = fl_front_load_table(ctx, &out->ident, &out->table, err);
    if (rc == FL_ENOTFOUND)
        return fl_front_err(ctx, err, rc, rv->location, "42P01", "relation \"%s\" does not exist",
                            fl_table_ident_str(&out->ident, ctx->arena));
    if (rc != FL_OK)
        return fl_front_err_at(ctx, err, rv->location);
    out->name = fl_table_ident_str(&out->ident, ctx->arena);
    out->meta = &out->table->meta;
    const fl_ice_schema *sch;
    return fl_front_snapshot(ctx, out->meta, rv->location, &out->snapshot_id, &sch, err);
}

fl_status fl_planner_plan_dml_source(fl_planner_ctx *ctx, const fl_planner_table *table,
                                     const char *alias, PgQuery__Node *const *from_extra,
                                     uint32_t nfrom_extra, const PgQuery__Node *where,
                                     PgQuery__Node *const *targets, uint32_t ntargets,
                                     bool with_row_ids, fl_plan **out, fl_error *err)
{
    fl_bctx *b = fl_arena_calloc(ctx->arena, 1, sizeof *b);
    if (!b)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_bctx_init(b, ctx, NULL);
    const fl_ice_schema *sch = NULL;
    if (table->snapshot_id != FL_ICE_NO_SNAPSHOT)
        for (uint32_t i = 0; i < table->meta->nsnapshots; i++)
            if (table->meta->snapshots[i].snapshot_id == table->snapshot_id &&
                table->meta->snapshots[i].has_schema_id)
                sch = fl_ice_metadata_schema(table->meta, table->meta->snapshots[i].schema_id);
    if (!sch || table->snapshot_id == table->meta->current_snapshot_id)
        sch = fl_ice_metadata_schema(table->meta, table->meta->current_schema_id);
    if (!sch)
        return fl_errorf(err, FL_ECORRUPT, "%s: no current schema", table->name);
    uint32_t nf = sch->schema.nfields;
    fl_schema *cols = fl_arena_calloc(ctx->arena, 1, sizeof *cols);
    fl_field *f = fl_arena_calloc(ctx->arena, nf + 2, sizeof(fl_field));
    if (!cols || !f)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    memcpy(f, sch->schema.fields, nf * sizeof(fl_field));
    cols->fields = f;
    cols->nfields = nf;
    cols->schema_id = sch->schema.schema_id;
    if (with_row_ids) {
        f[nf].name = "_file";
        f[nf].field_id = INT32_MAX - 1;
        f[nf].type.id = FL_TYPE_STRING;
        f[nf + 1].name = "_pos";
        f[nf + 1].field_id = INT32_MAX - 2;
        f[nf + 1].type.id = FL_TYPE_INT64;
        cols->nfields = nf + 2;
    }
    fl_rel r;
    memset(&r, 0, sizeof r);
    r.kind = FL_REL_TABLE;
    r.alias = alias ? alias : table->ident.name;
    r.name = table->name;
    r.meta = table->meta;
    r.snapshot_id = table->snapshot_id;
    r.schema = cols;
    r.base_rows = 1000;
    uint32_t ri;
    FL_TRY(fl_scope_add_rel(b->a, &b->scope, &r, cols, &ri, err));
    fl_jtree *leaf = fl_jtree_new(b->a, 0);
    if (!leaf)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    leaf->rel = ri;
    leaf->mask = 1ull << ri;
    FL_TRY(fl_jtree_add(b->a, fl_bctx_root(b), leaf, err));
    PgQuery__SelectStmt st = PG_QUERY__SELECT_STMT__INIT;
    st.n_from_clause = nfrom_extra;
    st.from_clause = (PgQuery__Node **)from_extra;
    st.where_clause = (PgQuery__Node *)where;
    FL_TRY(fl_bind_from_where(b, &st, err));
    uint32_t nt = ntargets ? ntargets : nf;
    uint32_t nout = nt + (with_row_ids ? 2 : 0);
    fl_expr **pre = fl_arena_calloc(ctx->arena, nout + 1, sizeof(fl_expr *));
    const char **names = fl_arena_calloc(ctx->arena, nout + 1, sizeof(char *));
    if (!pre || !names)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < nt; i++) {
        if (ntargets) {
            FL_TRY(fl_bind_expr(b, targets[i], &pre[i], err));
            names[i] = fl_front_node_name(targets[i]);
        } else {
            b->scope.cols[i].used = true;
            pre[i] = fl_expr_column(b->a, i, &b->scope.cols[i].type);
            names[i] = b->scope.cols[i].name;
        }
        if (!pre[i])
            return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    if (with_row_ids)
        for (uint32_t k = 0; k < 2; k++) {
            b->scope.cols[nf + k].used = true;
            pre[nt + k] = fl_expr_column(b->a, nf + k, &b->scope.cols[nf + k].type);
            names[nt + k] = b->scope.cols[nf + k].name;
            if (!pre[nt + k])
                return fl_errorf(err, FL_ENOMEM, "out of memory");
        }
    fl_plan *p;
    int32_t *map;
    FL_TRY(fl_build_from_where(b, &p, &map, err));
    fl_expr **pe = fl_arena_calloc(ctx->arena, nout + 1, sizeof(fl_expr *));
    if (!pe)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < nout; i++)
        FL_TRY(fl_front_remap(b->a, pre[i], map, b->scope.ncols, &pe[i], err));
    p = fl_front_project(b->a, p, pe, names, nout);
    if (!p)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    FL_TRY(fl_front_number_params(ctx, p, err));
    FL_TRY(fl_optimize(ctx, p, err));
    FL_TRY(fl_reuse_scalar_subqueries(ctx, p, err));
    FL_TRY(fl_push_semijoins(ctx, p, err));
    FL_TRY(fl_prune_columns(ctx, p, err));
    *out = p;
    return FL_OK;
}

fl_status fl_planner_bind_expr(fl_planner_ctx *ctx, const fl_plan *input, const char *qualifier,
                               const PgQuery__Node *node, fl_expr **out, fl_error *err)
{
    fl_bctx b;
    fl_bctx_init(&b, ctx, NULL);
    fl_rel r;
    memset(&r, 0, sizeof r);
    r.kind = FL_REL_PLAN;
    r.alias = qualifier;
    r.plan = (fl_plan *)input;
    FL_TRY(fl_scope_add_rel(b.a, &b.scope, &r, &input->schema, NULL, err));
    FL_TRY(fl_bind_expr(&b, node, out, err));
    if (b.napplies)
        return fl_errorf(err, FL_EUNSUPPORTED,
                         "subqueries that need a join are not supported in this expression");
    return FL_OK;
}

void fl_planner_ctx_release(fl_planner_ctx *ctx)
{
    if (!ctx || !ctx->internal)
        return;
    fl_front_state *st = ctx->internal;
    for (fl_loaded_table *t = st->tables; t; t = t->next) {
        fl_ice_table_free(t->table);
        t->table = NULL;
    }
    st->tables = NULL;
    st->ctes = NULL;
    for (fl_view_parse *v = st->view_parses; v; v = v->next)
        fl_sql_parsed_free(v->parsed);
    st->view_parses = NULL;
}
