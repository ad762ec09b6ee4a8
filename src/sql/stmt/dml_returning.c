/*
 * dml_returning.c - INSERT/UPDATE/DELETE ... RETURNING (stmt_int.h).
 *
 * The RETURNING list is expanded first (`*` and `t.*` become one column
 * reference per table column, qualified by the statement's alias or table
 * name), then bound where its values are:
 *   INSERT, UPDATE  over the casting PROJECT that feeds the data writer (the
 *                   new row in the table's column order and types), so
 *                   `UPDATE t SET x = x + 1 RETURNING x` returns the new x;
 *                   stmt_returning_project adds the RETURNING expressions
 *                   as extra columns after the ones the writer and the row-id
 *                   collector read;
 *   DELETE          as the targets of the DML row source (the deleted row;
 *                   USING tables are in scope too), before _file/_pos.
 * The statement's batch callback copies the live rows of those columns into
 * one malloc'd result batch (stmt_returning_add), which becomes the result
 * only when the commit succeeded (stmt_returning_finish); the tag stays the
 * command's ("INSERT 0 n", "UPDATE n", "DELETE n"), as in PostgreSQL.
 *
 * Not done: UPDATE ... FROM's RETURNING sees only the target table's
 * columns (PostgreSQL also allows the FROM tables'); DELETE ... USING's
 * `RETURNING *` lists the target table's columns only, and a row deleted
 * through several USING matches is returned once per match.
 */
#include <stdlib.h>
#include <string.h>

#include "sql/parse/parse_tree.h"
#include "sql/plan/plan_rules.h"
#include "sql/stmt/stmt_int.h"

static bool is_star(const PgQuery__Node *v, const char **qual)
{
    *qual = NULL;
    if (!v || v->node_case != PG_QUERY__NODE__NODE_COLUMN_REF)
        return false;
    const PgQuery__ColumnRef *cr = v->column_ref;
    if (!cr->n_fields || cr->fields[cr->n_fields - 1]->node_case != PG_QUERY__NODE__NODE_A_STAR)
        return false;
    if (cr->n_fields >= 2)
        *qual = fl_front_str(cr->fields[cr->n_fields - 2]);
    return true;
}

static fl_status push(fl_arena *a, stmt_returning *r, PgQuery__Node *n, const char *name,
                      uint32_t *cap, fl_error *err)
{
    if (r->n == *cap) {
        uint32_t nc = *cap ? *cap * 2 : 8;
        PgQuery__Node **nn = fl_arena_calloc(a, nc, sizeof *nn);
        const char **nm = fl_arena_calloc(a, nc, sizeof *nm);
        if (!nn || !nm)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        if (r->n) {
            memcpy(nn, r->nodes, r->n * sizeof *nn);
            memcpy(nm, r->names, r->n * sizeof *nm);
        }
        r->nodes = nn;
        r->names = nm;
        *cap = nc;
    }
    r->nodes[r->n] = n;
    r->names[r->n] = name;
    r->n++;
    return FL_OK;
}

fl_status stmt_returning_expand(fl_stmt_ctx *c, PgQuery__Node *const *list, size_t n,
                                const fl_schema *ws, const char *qualifier, stmt_returning *r,
                                fl_error *err)
{
    fl_arena *a = c->planner->arena;
    memset(r, 0, sizeof *r);
    uint32_t cap = 0;
    for (size_t k = 0; k < n; k++) {
        if (list[k]->node_case != PG_QUERY__NODE__NODE_RES_TARGET)
            return fl_errorf(err, FL_EINVAL, "RETURNING: unexpected entry");
        const PgQuery__ResTarget *rt = list[k]->res_target;
        const char *q;
        if (is_star(rt->val, &q)) {
            if (q && strcmp(q, qualifier) != 0) {
                stmt_set_position(c, rt->location);
                return fl_error_state(err, FL_ENOTFOUND, "42P01",
                                      "missing FROM-clause entry for table \"%s\"", q);
            }
            for (uint32_t i = 0; i < ws->nfields; i++) {
                /* names copied: ws may be the data writer's schema */
                const char *name = fl_arena_strdup(a, ws->fields[i].name);
                PgQuery__Node *cr = name ? stmt_mk_colref(a, qualifier, name) : NULL;
                if (!cr)
                    return fl_errorf(err, FL_ENOMEM, "out of memory");
                FL_TRY(push(a, r, cr, name, &cap, err));
            }
            continue;
        }
        if (!rt->val)
            return fl_errorf(err, FL_EINVAL, "RETURNING: empty entry");
        const char *name = rt->name && rt->name[0] ? rt->name : fl_front_node_name(rt->val);
        FL_TRY(push(a, r, rt->val, name ? name : "?column?", &cap, err));
    }
    return FL_OK;
}

fl_status stmt_returning_project(fl_stmt_ctx *c, fl_plan *plan, const char *qualifier,
                                 stmt_returning *r, fl_plan **out, fl_error *err)
{
    fl_arena *a = c->planner->arena;
    uint32_t nin = plan->schema.nfields, nout = nin + r->n;
    fl_expr **ex = fl_arena_calloc(a, nout + 1, sizeof *ex);
    const char **names = fl_arena_calloc(a, nout + 1, sizeof *names);
    if (!ex || !names)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < nin; i++) {
        ex[i] = fl_expr_column(a, i, &plan->schema.fields[i].type);
        if (!ex[i])
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        names[i] = plan->schema.fields[i].name;
    }
    for (uint32_t k = 0; k < r->n; k++) {
        FL_TRY(fl_planner_bind_expr(c->planner, plan, qualifier, r->nodes[k], &ex[nin + k], err));
        names[nin + k] = r->names[k];
    }
    fl_plan *p = fl_front_project(a, plan, ex, names, nout);
    if (!p)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    FL_TRY(fl_front_number_params(c->planner, p, err));
    r->first = nin;
    r->plan = p;
    *out = p;
    return FL_OK;
}

/* the result batch, created on the first call from the plan's column types */
static fl_status ensure_batch(stmt_returning *r, const fl_batch *b, fl_arena *a, fl_error *err)
{
    if (r->batch)
        return FL_OK;
    fl_field *f = fl_arena_calloc(a, r->n + 1, sizeof *f);
    if (!f)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t k = 0; k < r->n; k++) {
        f[k].name = r->names[k];
        f[k].type = *b->cols[r->first + k].type;
        f[k].nullable = true;
        f[k].field_id = (int32_t)k + 1;
    }
    r->schema.fields = f;
    r->schema.nfields = r->n;
    r->batch = calloc(1, sizeof *r->batch);
    if (!r->batch)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_status rc = fl_batch_init(r->batch, &r->schema, err);
    if (rc != FL_OK) {
        free(r->batch);
        r->batch = NULL;
    }
    return rc;
}

fl_status stmt_returning_add(stmt_returning *r, fl_arena *a, const fl_batch *b, fl_error *err)
{
    if (!r->n)
        return FL_OK;
    if (r->first + r->n > b->ncols)
        return fl_errorf(err, FL_EINVAL, "internal: RETURNING columns %u..%u of %u", r->first,
                         r->first + r->n, b->ncols);
    FL_TRY(ensure_batch(r, b, a, err));
    uint32_t live = fl_batch_live_rows(b);
    for (uint32_t i = 0; i < live; i++) {
        uint32_t row = b->sel ? b->sel->idx[i] : i;
        for (uint32_t k = 0; k < r->n; k++)
            FL_TRY(fl_vector_append_from(&r->batch->cols[k], &b->cols[r->first + k], row, err));
    }
    r->batch->nrows += live;
    return FL_OK;
}

fl_status stmt_returning_finish(stmt_returning *r, fl_arena *a, fl_stmt_result *out,
                                fl_error *err)
{
    if (!r->n)
        return FL_OK;
    if (!r->batch) { /* no rows: the columns still describe the result */
        if (!r->plan || r->first + r->n > r->plan->schema.nfields)
            return fl_errorf(err, FL_EINVAL, "internal: RETURNING without its plan");
        fl_field *f = fl_arena_calloc(a, r->n + 1, sizeof *f);
        if (!f)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (uint32_t k = 0; k < r->n; k++) {
            f[k].name = r->names[k];
            f[k].type = r->plan->schema.fields[r->first + k].type;
            f[k].nullable = true;
            f[k].field_id = (int32_t)k + 1;
        }
        r->schema.fields = f;
        r->schema.nfields = r->n;
        r->batch = calloc(1, sizeof *r->batch);
        if (!r->batch)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        fl_status rc = fl_batch_init(r->batch, &r->schema, err);
        if (rc != FL_OK) {
            free(r->batch);
            r->batch = NULL;
            return rc;
        }
    }
    fl_batch **arr = calloc(1, sizeof *arr);
    if (!arr)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    arr[0] = r->batch;
    r->batch = NULL;
    if (out->batches)
        fl_exec_free_batches(out->batches, out->nbatches);
    out->batches = arr;
    out->nbatches = 1;
    out->schema = r->schema;
    return FL_OK;
}

void stmt_returning_free(stmt_returning *r)
{
    if (r->batch) {
        fl_batch_destroy(r->batch);
        free(r->batch);
        r->batch = NULL;
    }
}
