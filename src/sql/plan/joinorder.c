/*
 * joinorder.c - builds the FROM/WHERE part of a SELECT block into a plan:
 *
 *   1. WHERE conjuncts are placed on the join tree (fl_jtree): a conjunct
 *      over one relation goes to that relation (and into its scan), one over
 *      the preserved side of an outer join goes below the join, the rest stay
 *      on the inner set where they become join keys or residuals.
 *   2. Each base table becomes a scan of only the columns the block uses,
 *      with its conjuncts as the exact filter and, where they have the form
 *      column op constant, as pruning terms (predicate.h) for Iceberg
 *      partition/metrics pruning and Parquet row groups/pages.
 *   3. Inner sets are joined greedily (GOO): repeatedly join the pair of
 *      inputs connected by an equality whose estimated result is smallest;
 *      cross joins only when nothing is connected. Estimates start from the
 *      snapshot summary's total-records and fixed selectivities; an
 *      equi-join divides by the smaller key cardinality (the PK side's table
 *      size). The smaller input is the build side (the right child).
 *   4. Decorrelated subqueries (fl_apply) join on top, then the conjuncts
 *      that use their results filter; a selective SEMI join whose keys use
 *      one join-tree node's relations joins that node's input instead
 *      (before GOO sees it), so it shrinks the joins above it.
 * Column maps (scope index -> plan column) follow the plans upward.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/ice_manifest.h"
#include "floe/ice_stats.h"
#include "sql/bind/bind.h"
#include "sql/plan/plan_rules.h"

fl_jtree *fl_jtree_new(fl_arena *a, int kind)
{
    fl_jtree *t = fl_arena_calloc(a, 1, sizeof *t);
    if (t)
        t->kind = kind;
    return t;
}

fl_status fl_jtree_add(fl_arena *a, fl_jtree *parent, fl_jtree *kid, fl_error *err)
{
    parent->kids = fl_front_grow(a, parent->kids, &parent->capkids, parent->nkids, sizeof(void *));
    if (!parent->kids)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    parent->kids[parent->nkids++] = kid;
    parent->mask |= kid->mask;
    return FL_OK;
}

fl_jtree *fl_bctx_root(fl_bctx *b)
{
    if (!b->root)
        b->root = fl_jtree_new(b->a, 1);
    return b->root;
}

static fl_status add_expr(fl_arena *a, fl_expr ***arr, uint32_t *n, uint32_t *cap, fl_expr *e,
                          fl_error *err)
{
    *arr = fl_front_grow(a, *arr, cap, *n, sizeof(fl_expr *));
    if (!*arr)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    (*arr)[(*n)++] = e;
    return FL_OK;
}

/* ---- remapping ---- */

static fl_status remap_ex(fl_arena *a, const fl_expr *e, const int32_t *map, uint32_t nmap,
                          int32_t add, const int32_t *omap, uint32_t nomap, fl_expr **out,
                          fl_error *err)
{
    if (e->kind == FL_EXPR_COLUMN) {
        uint32_t c = e->column;
        int32_t to;
        if (c & FL_REF_OUTER) {
            uint32_t i = c & FL_REF_MASK;
            if (!omap || i >= nomap || omap[i] < 0)
                return fl_errorf(err, FL_EINVAL, "internal: unmapped outer column %u", i);
            to = omap[i];
        } else if (c & (FL_REF_AGG | FL_REF_WIN)) {
            return fl_errorf(err, FL_EINVAL, "internal: aggregate reference outside its block");
        } else if (map) {
            if (c >= nmap || map[c] < 0)
                return fl_errorf(err, FL_EINVAL, "internal: unmapped column %u", c);
            to = map[c] + add;
        } else {
            to = (int32_t)c + add;
        }
        fl_expr *n = fl_arena_alloc(a, sizeof *n);
        if (!n)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        *n = *e;
        n->column = (uint32_t)to;
        *out = n;
        return FL_OK;
    }
    if (e->nargs == 0) {
        *out = (fl_expr *)e;
        return FL_OK;
    }
    fl_expr *n = fl_arena_alloc(a, sizeof *n);
    fl_expr **args = fl_arena_alloc(a, e->nargs * sizeof(fl_expr *));
    if (!n || !args)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    *n = *e;
    n->args = args;
    for (uint32_t i = 0; i < e->nargs; i++)
        FL_TRY(remap_ex(a, e->args[i], map, nmap, add, omap, nomap, &args[i], err));
    *out = n;
    return FL_OK;
}

fl_status fl_front_remap(fl_arena *a, const fl_expr *e, const int32_t *map, uint32_t nmap,
                         fl_expr **out, fl_error *err)
{
    return remap_ex(a, e, map, nmap, 0, NULL, 0, out, err);
}

/* ---- masks and selectivity ---- */

static uint64_t expr_mask(const fl_scope *s, const fl_expr *e, bool *late)
{
    if (e->kind == FL_EXPR_COLUMN) {
        if (e->column & (FL_REF_OUTER | FL_REF_AGG | FL_REF_WIN))
            return 0;
        const fl_scope_col *c = &s->cols[e->column];
        if (s->rels[c->rel].kind == FL_REL_VIRTUAL)
            *late = true;
        return 1ull << c->rel;
    }
    uint64_t m = 0;
    for (uint32_t i = 0; i < e->nargs; i++)
        m |= expr_mask(s, e->args[i], late);
    return m;
}

static const char *fn_name(const fl_expr *e)
{
    return e->kind == FL_EXPR_CALL && e->fn ? e->fn->name : "";
}

static double selectivity(const fl_expr *e)
{
    const char *n = fn_name(e);
    switch (e->kind) {
    case FL_EXPR_AND: {
        double s = 1;
        for (uint32_t i = 0; i < e->nargs; i++)
            s *= selectivity(e->args[i]);
        return s;
    }
    case FL_EXPR_OR: {
        double s = 0;
        for (uint32_t i = 0; i < e->nargs; i++)
            s += selectivity(e->args[i]);
        return s > 1 ? 1 : s;
    }
    case FL_EXPR_IN_LIST:
        return e->negated ? 0.9 : fmin(0.5, 0.05 * (e->nargs - 1));
    case FL_EXPR_IS_NULL:
        return 0.05;
    case FL_EXPR_CALL:
        if (strcmp(n, "=") == 0)
            return 0.05;
        if (strcmp(n, "<") == 0 || strcmp(n, "<=") == 0 || strcmp(n, ">") == 0 ||
            strcmp(n, ">=") == 0)
            return 0.33;
        if (strcmp(n, "~~") == 0 || strcmp(n, "~~*") == 0)
            return 0.1;
        return 0.5;
    default:
        return 0.5;
    }
}

/* ---- scans ---- */

static void add_read(fl_planner_ctx *pc, const char *name, int64_t sid)
{
    for (uint32_t i = 0; i < pc->nreads; i++)
        if (strcmp(pc->reads[i].table, name) == 0 && pc->reads[i].snapshot_id == sid)
            return;
    fl_planner_read *nr = fl_arena_alloc(pc->arena, (pc->nreads + 1) * sizeof *nr);
    if (!nr)
        return;
    if (pc->nreads)
        memcpy(nr, pc->reads, pc->nreads * sizeof *nr);
    nr[pc->nreads].table = name;
    nr[pc->nreads].snapshot_id = sid;
    pc->reads = nr;
    pc->nreads++;
}

/* column op constant (either order) over the scan output -> a pruning term */
static bool const_operand(const fl_expr *e)
{
    return e->kind == FL_EXPR_CONST && !e->value.is_null;
}

/* Converts v to type t when that loses nothing (cast there and back gives
 * the same value): 0.05 (numeric(3,2)) against a numeric(15,2) column. */
static bool exact_cast(fl_arena *a, fl_value *v, const fl_type *t)
{
    if (fl_type_is_varlen(t) != fl_type_is_varlen(&v->type) || fl_type_is_nested(t))
        return false;
    fl_value to, back;
    fl_error e;
    fl_eval_env env;
    memset(&env, 0, sizeof env);
    env.time_zone = "UTC";
    if (fl_cast_value(v, t, &env, a, &to, &e) != FL_OK ||
        fl_cast_value(&to, &v->type, &env, a, &back, &e) != FL_OK || back.is_null ||
        fl_value_compare(&back, v) != 0)
        return false;
    to.type = *t;
    *v = to;
    return true;
}

/* A scan column, or a field of a struct column reached through (s).f.g: the
 * column's index and, for a field, its field id and dotted path, which the
 * Iceberg and Parquet scans prune on like a top-level column. */
typedef struct col_ref {
    const fl_expr *top; /* the FL_EXPR_COLUMN */
    const fl_field *leaf; /* the struct field; NULL for the column itself */
    const char *path;
} col_ref;

static bool column_operand(fl_arena *a, const fl_plan *scan, const fl_expr *e, col_ref *r)
{
    uint32_t idx[8], depth = 0;
    while (e->kind == FL_EXPR_CALL && e->nargs == 2 && strcmp(fn_name(e), "__struct_field") == 0) {
        const fl_expr *k = e->args[1];
        if (depth == 8 || k->kind != FL_EXPR_CONST || k->value.is_null ||
            k->value.type.id != FL_TYPE_INT32 || k->value.v.i32 < 0)
            return false;
        idx[depth++] = (uint32_t)k->value.v.i32;
        e = e->args[0];
    }
    if (e->kind != FL_EXPR_COLUMN || e->column >= scan->schema.nfields)
        return false;
    r->top = e;
    r->leaf = NULL;
    r->path = scan->schema.fields[e->column].name;
    const fl_type *t = &scan->schema.fields[e->column].type;
    while (depth > 0) { /* innermost call first in idx[depth - 1] */
        uint32_t k = idx[--depth];
        if (t->id != FL_TYPE_STRUCT || k >= t->nchildren || !r->path)
            return false;
        r->leaf = &t->children[k];
        const char *nm = r->leaf->name ? r->leaf->name : "";
        size_t n = strlen(r->path) + strlen(nm) + 2;
        char *p = fl_arena_alloc(a, n);
        if (!p)
            return false;
        snprintf(p, n, "%s.%s", r->path, nm);
        r->path = p;
        t = &r->leaf->type;
    }
    return true;
}

/* Comparison operators a pruning term takes, and each one with its operands swapped. */
static const struct cmp_op {
    const char *op;
    fl_cmp_op cmp, flipped;
} cmp_ops[] = {{"=", FL_CMP_EQ, FL_CMP_EQ}, {"<>", FL_CMP_NE, FL_CMP_NE}, {"<", FL_CMP_LT, FL_CMP_GT},
               {"<=", FL_CMP_LE, FL_CMP_GE}, {">", FL_CMP_GT, FL_CMP_LT}, {">=", FL_CMP_GE, FL_CMP_LE}};

/* (s).f op constant, the field being argument side of e. Only comparisons:
 * a field is also NULL where its struct is, which leaf null counts do not
 * tell apart, so IS [NOT] NULL on a field stays a filter. */
static bool field_term(fl_arena *a, const fl_plan *scan, const fl_expr *e, size_t side,
                       const col_ref *ref, fl_col_pred *t)
{
    const fl_type *ft = &ref->leaf->type;
    if (fl_type_is_nested(ft) || ref->top->column >= scan->u.scan.ncolumns)
        return false;
    /* _partition's fields carry partition field ids, not column ids: the
     * scan resolves "_partition.x" by path (and prunes files by it) */
    bool part = scan->u.scan.kind == FL_SCAN_ICEBERG &&
                scan->u.scan.columns[ref->top->column] == FL_ICE_FIELD_ID_PARTITION;
    for (size_t i = 0; i < sizeof cmp_ops / sizeof cmp_ops[0]; i++) {
        if (strcmp(fn_name(e), cmp_ops[i].op) != 0)
            continue;
        t->op = side == 0 ? cmp_ops[i].cmp : cmp_ops[i].flipped;
        t->value = e->args[1 - side]->value;
        if (!fl_type_equal(ft, &t->value.type) && !exact_cast(a, &t->value, ft))
            return false;
        t->column = ref->path;
        t->field_id = scan->u.scan.kind == FL_SCAN_ICEBERG && !part ? ref->leaf->field_id : 0;
        return scan->u.scan.kind != FL_SCAN_ICEBERG || t->field_id > 0 || part;
    }
    return false;
}

static bool term_for(fl_arena *a, const fl_plan *scan, const fl_expr *e, fl_col_pred *t)
{
    memset(t, 0, sizeof *t);
    const fl_expr *col = NULL;
    if (e->kind == FL_EXPR_IS_NULL || e->kind == FL_EXPR_IS_NOT_NULL) {
        col = e->args[0];
        if (col->kind != FL_EXPR_COLUMN)
            return false;
        t->op = e->kind == FL_EXPR_IS_NULL ? FL_CMP_IS_NULL : FL_CMP_NOT_NULL;
    } else if (e->kind == FL_EXPR_IN_LIST && !e->negated) {
        col = e->args[0];
        if (col->kind != FL_EXPR_COLUMN)
            return false;
        fl_value *vals = fl_arena_alloc(a, (e->nargs - 1) * sizeof(fl_value));
        if (!vals)
            return false;
        for (uint32_t i = 1; i < e->nargs; i++) {
            if (!const_operand(e->args[i]))
                return false;
            vals[i - 1] = e->args[i]->value;
            if (!fl_type_equal(&e->args[i]->type, &col->type) &&
                !exact_cast(a, &vals[i - 1], &col->type))
                return false;
        }
        t->op = FL_CMP_IN;
        t->in_values = vals;
        t->nin = e->nargs - 1;
    } else if (e->kind == FL_EXPR_CALL && e->nargs == 2) {
        const char *n = fn_name(e);
        col_ref ref;
        for (size_t i = 0; i < 2 && strcmp(n, "__struct_field") != 0; i++)
            if (const_operand(e->args[1 - i]) && column_operand(a, scan, e->args[i], &ref) &&
                ref.leaf)
                return field_term(a, scan, e, i, &ref, t);
        for (size_t i = 0; i < sizeof cmp_ops / sizeof cmp_ops[0]; i++) {
            if (strcmp(n, cmp_ops[i].op) != 0)
                continue;
            if (e->args[0]->kind == FL_EXPR_COLUMN && const_operand(e->args[1])) {
                col = e->args[0];
                t->op = cmp_ops[i].cmp;
                t->value = e->args[1]->value;
            } else if (e->args[1]->kind == FL_EXPR_COLUMN && const_operand(e->args[0])) {
                col = e->args[1];
                t->op = cmp_ops[i].flipped;
                t->value = e->args[0]->value;
            } else {
                return false;
            }
            if (!fl_type_equal(&col->type, &t->value.type) &&
                !exact_cast(a, &t->value, &col->type))
                return false;
            break;
        }
        if (!col)
            return false;
    } else {
        return false;
    }
    /* a whole struct, list or map carries no pruning term (`address IS NOT NULL` stays a
     * filter): the Iceberg scan prunes on primitive columns only */
    if (fl_type_is_nested(&col->type))
        return false;
    const fl_plan_scan *s = &scan->u.scan;
    if (col->column >= s->ncolumns)
        return false;
    t->column = scan->schema.fields[col->column].name;
    t->field_id = s->kind == FL_SCAN_ICEBERG ? s->columns[col->column] : 0;
    return true;
}

/* LIKE 'abc%' -> column >= 'abc' AND column < 'abd' */
static uint32_t like_terms(fl_arena *a, const fl_plan *scan, const fl_expr *e, fl_col_pred *t)
{
    if (e->kind != FL_EXPR_CALL || strcmp(fn_name(e), "~~") != 0 || e->nargs != 2 ||
        e->args[0]->kind != FL_EXPR_COLUMN || !const_operand(e->args[1]) ||
        e->args[0]->type.id != FL_TYPE_STRING || e->args[1]->type.id != FL_TYPE_STRING)
        return 0;
    const fl_value *pv = &e->args[1]->value;
    size_t n = pv->v.bytes.len, k = 0;
    const uint8_t *p = pv->v.bytes.ptr;
    while (k < n && p[k] != '%' && p[k] != '_' && p[k] != '\\')
        k++;
    if (k == 0 || k == n || p[k] != '%' || p[k - 1] == 0xFF)
        return 0;
    uint8_t *hi = fl_arena_alloc(a, k);
    if (!hi)
        return 0;
    memcpy(hi, p, k);
    hi[k - 1]++;
    const fl_expr *col = e->args[0];
    if (col->column >= scan->u.scan.ncolumns)
        return 0;
    for (int i = 0; i < 2; i++) {
        memset(&t[i], 0, sizeof t[i]);
        t[i].column = scan->schema.fields[col->column].name;
        t[i].field_id =
            scan->u.scan.kind == FL_SCAN_ICEBERG ? scan->u.scan.columns[col->column] : 0;
        t[i].value.type = col->type;
        t[i].value.v.bytes.ptr = i == 0 ? p : hi;
        t[i].value.v.bytes.len = k;
        t[i].op = i == 0 ? FL_CMP_GE : FL_CMP_LT;
    }
    return 2;
}

static void collect_terms(fl_arena *a, const fl_plan *scan, const fl_expr *e, fl_col_pred *out,
                          uint32_t *n, uint32_t cap)
{
    if (e->kind == FL_EXPR_AND) {
        for (uint32_t i = 0; i < e->nargs; i++)
            collect_terms(a, scan, e->args[i], out, n, cap);
        return;
    }
    if (*n + 2 > cap)
        return;
    if (term_for(a, scan, e, &out[*n]))
        (*n)++;
    else
        *n += like_terms(a, scan, e, &out[*n]);
}

void fl_front_prune_terms(fl_arena *a, fl_plan *scan)
{
    fl_plan_scan *s = &scan->u.scan;
    s->prune.nterms = 0;
    s->prune.terms = NULL;
    if (!s->filter || (s->kind != FL_SCAN_ICEBERG && s->kind != FL_SCAN_PARQUET &&
                       s->kind != FL_SCAN_ORC))
        return;
    uint32_t cap = 64, n = 0;
    fl_col_pred *terms = fl_arena_calloc(a, cap, sizeof *terms);
    if (!terms)
        return;
    collect_terms(a, scan, s->filter, terms, &n, cap);
    s->prune.terms = terms;
    s->prune.nterms = n;
}

fl_status fl_front_plan_scan(fl_bctx *b, uint32_t ri, const bool *used, fl_plan **out,
                             int32_t *map, fl_error *err)
{
    (void)used;
    fl_rel *r = &b->scope.rels[ri];
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->ncols; i++)
        if (b->scope.cols[r->first + i].used)
            n++;
    bool none = n == 0;
    if (none)
        n = 1; /* count(*): read the narrowest way we have, the first column */
    fl_plan *p = fl_plan_new(b->a, FL_PLAN_SCAN, 0, n);
    int32_t *cols = fl_arena_calloc(b->a, n, sizeof(int32_t));
    if (!p || !cols)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    uint32_t k = 0;
    for (uint32_t i = 0; i < r->ncols; i++) {
        const fl_scope_col *c = &b->scope.cols[r->first + i];
        if (!c->used && !(none && i == 0))
            continue;
        map[r->first + i] = (int32_t)k;
        p->schema.fields[k].name = c->name;
        p->schema.fields[k].type = c->type;
        p->schema.fields[k].nullable = true;
        p->schema.fields[k].field_id = r->schema->fields[i].field_id;
        cols[k] = r->metatable || r->scan_kind ? (int32_t)i : r->schema->fields[i].field_id;
        k++;
    }
    fl_plan_scan *s = &p->u.scan;
    s->kind = r->scan_kind ? r->scan_kind : r->metatable ? FL_SCAN_ICEBERG_META : FL_SCAN_ICEBERG;
    s->io = b->pc->io;
    s->name = r->name;
    s->meta = r->meta;
    s->snapshot_id = r->snapshot_id;
    s->schema_id = r->schema->schema_id;
    s->metatable = r->metatable;
    if (r->metatable || r->scan_kind)
        s->file_schema = r->schema;
    s->files = r->files;
    s->nfiles = r->nfiles;
    s->csv_delim = r->csv_delim;
    s->csv_header = r->csv_header;
    s->columns = cols;
    s->ncolumns = n;
    s->limit = -1;
    double est = r->base_rows;
    if (r->nfilters) {
        fl_expr **f = fl_arena_alloc(b->a, r->nfilters * sizeof(fl_expr *));
        if (!f)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (uint32_t i = 0; i < r->nfilters; i++) {
            FL_TRY(fl_front_remap(b->a, r->filters[i], map, b->scope.ncols, &f[i], err));
            est *= selectivity(r->filters[i]);
        }
        if (fl_front_and(b->a, f, r->nfilters, &s->filter) != FL_OK)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        fl_front_prune_terms(b->a, p);
    }
    p->est_rows = est < 1 ? 1 : est;
    if (!r->metatable && !r->scan_kind)
        add_read(b->pc, r->name, r->snapshot_id);
    *out = p;
    return FL_OK;
}

fl_plan *fl_front_project(fl_arena *a, fl_plan *child, fl_expr **exprs, const char **names,
                          uint32_t n)
{
    fl_plan *p = fl_plan_new(a, FL_PLAN_PROJECT, 1, n);
    if (!p)
        return NULL;
    p->children[0] = child;
    p->u.project.exprs = exprs;
    for (uint32_t i = 0; i < n; i++) {
        p->schema.fields[i].name = names && names[i] ? names[i]
                                   : exprs[i]->alias ? exprs[i]->alias
                                                     : "?column?";
        p->schema.fields[i].type = exprs[i]->type;
        p->schema.fields[i].nullable = true;
    }
    p->est_rows = child->est_rows;
    return p;
}

/* ---- building ---- */

typedef struct built {
    fl_plan *plan;
    int32_t *map; /* scope col -> plan col */
    uint64_t mask;
    double est;
} built;

static fl_status new_map(fl_bctx *b, int32_t **map, fl_error *err)
{
    *map = fl_arena_alloc(b->a, (b->scope.ncols + 1) * sizeof(int32_t));
    if (!*map)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i <= b->scope.ncols; i++)
        (*map)[i] = -1;
    return FL_OK;
}

static fl_status filter_over(fl_bctx *b, built *x, fl_expr **conds, uint32_t n, fl_error *err)
{
    if (n == 0)
        return FL_OK;
    fl_expr **f = fl_arena_alloc(b->a, n * sizeof(fl_expr *));
    if (!f)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    double sel = 1;
    for (uint32_t i = 0; i < n; i++) {
        FL_TRY(fl_front_remap(b->a, conds[i], x->map, b->scope.ncols, &f[i], err));
        sel *= selectivity(conds[i]);
    }
    fl_plan *p = fl_plan_new(b->a, FL_PLAN_FILTER, 1, x->plan->schema.nfields);
    if (!p)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    p->children[0] = x->plan;
    memcpy(p->schema.fields, x->plan->schema.fields, x->plan->schema.nfields * sizeof(fl_field));
    if (fl_front_and(b->a, f, n, &p->u.filter.filter) != FL_OK)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    p->est_rows = fmax(1, x->plan->est_rows * sel);
    x->plan = p;
    x->est = p->est_rows;
    return FL_OK;
}

static fl_status push_conj(fl_bctx *b, fl_jtree *t, fl_expr *e, uint64_t m, fl_error *err);

/* Where a decorrelated SEMI join may be pushed below the FROM's joins (one
 * entry per b->applies[i]): the deepest join-tree node its outer keys fit
 * in, and whether it was applied there. */
typedef struct site {
    const fl_jtree *node;
    bool done;
} site;

static fl_status build(fl_bctx *b, fl_jtree *t, site *sites, built *out, fl_error *err);

static double key_ndv(fl_bctx *b, const fl_expr *k, double side_est)
{
    if (k->kind == FL_EXPR_CAST && k->nargs == 1)
        k = k->args[0];
    if (k->kind == FL_EXPR_COLUMN && !(k->column & ~FL_REF_MASK)) {
        const fl_rel *r = &b->scope.rels[b->scope.cols[k->column].rel];
        if (r->kind == FL_REL_TABLE && r->base_rows > 0) {
            double d = b->ndv ? b->ndv[k->column] : 0;
            return d > 0 && d < r->base_rows ? d : r->base_rows;
        }
    }
    return side_est;
}

/* ---- distinct-value bounds from Iceberg column statistics ---- */

static bool int_key_type(const fl_type *t)
{
    return t->id == FL_TYPE_INT32 || t->id == FL_TYPE_INT64 || t->id == FL_TYPE_DATE;
}

static bool bound_of(const fl_type *t, const uint8_t *p, uint32_t len, int64_t *out)
{
    fl_value v;
    fl_error e;
    if (fl_ice_value_from_bytes(t, p, len, &v, &e) != FL_OK || v.is_null)
        return false;
    *out = t->id == FL_TYPE_INT64 ? v.v.i64 : v.v.i32;
    return true;
}

/* Marks the columns compared by an equality between two relations. */
static void mark_eq_cols(fl_bctx *b, const fl_expr *e, bool *want)
{
    if (e->kind == FL_EXPR_AND || e->kind == FL_EXPR_OR) {
        for (uint32_t i = 0; i < e->nargs; i++)
            mark_eq_cols(b, e->args[i], want);
        return;
    }
    if (e->kind != FL_EXPR_CALL || e->nargs != 2 || strcmp(fn_name(e), "=") != 0)
        return;
    for (int i = 0; i < 2; i++) {
        const fl_expr *k = e->args[i];
        if (k->kind == FL_EXPR_CAST && k->nargs == 1)
            k = k->args[0];
        if (k->kind == FL_EXPR_COLUMN && !(k->column & ~FL_REF_MASK) &&
            k->column < b->scope.ncols && !fl_type_is_nested(&b->scope.cols[k->column].type))
            want[k->column] = true;
    }
}

static void mark_tree(fl_bctx *b, const fl_jtree *t, bool *want)
{
    for (uint32_t i = 0; i < t->non; i++)
        mark_eq_cols(b, t->on[i], want);
    for (uint32_t i = 0; i < t->nfilters; i++) /* inner JOIN ... ON conjuncts */
        mark_eq_cols(b, t->filters[i], want);
    for (uint32_t i = 0; i < t->nkids; i++)
        mark_tree(b, t->kids[i], want);
}

/* One statistics file's NDV, read once per statement (pc->ndv_files). */
typedef struct fl_planner_ndv {
    struct fl_planner_ndv *next;
    const char *path;
    fl_ice_column_ndv *v; /* NULL when the file could not be read */
    uint32_t n;
} fl_planner_ndv;

static const fl_planner_ndv *ndv_file(fl_planner_ctx *pc, const fl_ice_statistics_file *sf)
{
    for (const fl_planner_ndv *f = pc->ndv_files; f; f = f->next)
        if (!strcmp(f->path, sf->statistics_path))
            return f;
    fl_planner_ndv *f = fl_arena_calloc(pc->arena, 1, sizeof *f);
    if (!f || !(f->path = fl_arena_strdup(pc->arena, sf->statistics_path)))
        return NULL;
    fl_error e;
    if (fl_ice_stats_read_ndv(pc->io, sf, pc->arena, &f->v, &f->n, &e) != FL_OK) {
        f->v = NULL;
        f->n = 0;
    }
    f->next = pc->ndv_files;
    pc->ndv_files = f;
    return f;
}

/* NDV from the table's statistics file (ANALYZE, Trino, Spark) for the
 * relation's snapshot or its nearest analyzed ancestor: only the Puffin
 * footer is read, once per file and statement. Any failure (no entry, file
 * missing or unreadable) leaves the columns to the span estimate:
 * statistics never fail a query. */
static void ndv_from_stats(fl_bctx *b, const fl_rel *r, const bool *want, double *ndv)
{
    const fl_ice_statistics_file *sf = fl_ice_stats_find(r->meta, r->snapshot_id);
    const fl_planner_ndv *f = sf && b->pc->io ? ndv_file(b->pc, sf) : NULL;
    if (!f)
        return;
    for (uint32_t c = 0; c < r->ncols; c++) {
        if (!want[r->first + c])
            continue;
        for (uint32_t k = 0; k < f->n; k++)
            if (f->v[k].field_id == r->schema->fields[c].field_id && f->v[k].ndv > 0)
                ndv[r->first + c] = (double)f->v[k].ndv;
    }
}

/* The span of the data files' lower..upper bounds of the wanted integer
 * and date columns that have no NDV yet (one scan planning). */
static void ndv_from_spans(fl_bctx *b, const fl_rel *r, const bool *want, double *ndv)
{
    bool any = false;
    for (uint32_t c = 0; c < r->ncols; c++)
        any |= want[r->first + c] && ndv[r->first + c] == 0 &&
               int_key_type(&b->scope.cols[r->first + c].type);
    if (!any)
        return;
    fl_ice_scan_options o;
    memset(&o, 0, sizeof o);
    o.select = FL_ICE_SNAP_ID;
    o.snapshot_id = r->snapshot_id;
    o.has_schema_id = true;
    o.schema_id = r->schema->schema_id;
    fl_ice_scan_plan *sp = NULL;
    fl_error e;
    if (fl_ice_scan_plan_files(b->pc->io, r->meta, &o, &sp, &e) != FL_OK)
        return;
    for (uint32_t c = 0; c < r->ncols; c++) {
        const fl_type *t = &b->scope.cols[r->first + c].type;
        if (!want[r->first + c] || ndv[r->first + c] != 0 || !int_key_type(t))
            continue;
        int32_t fid = r->schema->fields[c].field_id;
        bool ok = sp->ntasks > 0;
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (uint32_t k = 0; ok && k < sp->ntasks; k++) {
            const fl_ice_column_metrics *m = fl_ice_data_file_metrics(sp->tasks[k].file, fid);
            int64_t l, h;
            ok = m && m->has_lower && m->has_upper && bound_of(t, m->lower, m->lower_len, &l) &&
                 bound_of(t, m->upper, m->upper_len, &h);
            if (ok) {
                lo = l < lo ? l : lo;
                hi = h > hi ? h : hi;
            }
        }
        if (ok && hi >= lo)
            ndv[r->first + c] = (double)hi - (double)lo + 1;
    }
    fl_ice_scan_plan_free(sp);
}

/* b->ndv: for columns compared by equalities between relations, the NDV
 * of the table's statistics file when it has one (any primitive type),
 * else for integer/date columns the span of the data files' bounds (no
 * bound when a file lacks them). An FK column such as c_nationkey then
 * counts 25 values instead of its table's row count, so joins on it are
 * estimated as the many-to-many joins they are. */
static void compute_ndv(fl_bctx *b, fl_jtree *root)
{
    uint32_t n = b->scope.ncols;
    if (b->ndv || b->scope.nrels < 2 || n == 0)
        return;
    double *ndv = fl_arena_calloc(b->a, n, sizeof *ndv);
    bool *want = fl_arena_calloc(b->a, n, sizeof *want);
    if (!ndv || !want)
        return;
    b->ndv = ndv;
    for (uint32_t i = 0; i < b->nconj; i++)
        mark_eq_cols(b, b->conj[i], want);
    mark_tree(b, root, want);
    for (uint32_t ri = 0; ri < b->scope.nrels; ri++) {
        const fl_rel *r = &b->scope.rels[ri];
        if (r->kind != FL_REL_TABLE || r->metatable || r->scan_kind || !r->meta ||
            r->snapshot_id == FL_ICE_NO_SNAPSHOT)
            continue;
        bool any = false;
        for (uint32_t c = 0; c < r->ncols; c++)
            any |= want[r->first + c];
        if (!any)
            continue;
        ndv_from_stats(b, r, want, ndv);
        ndv_from_spans(b, r, want, ndv);
    }
}

static bool is_eq(const fl_expr *e)
{
    return e->kind == FL_EXPR_CALL && e->nargs == 2 && strcmp(fn_name(e), "=") == 0;
}

/* classifies conds for joining l and r: which are keys (and which side) */
static double join_est(fl_bctx *b, const built *l, const built *r, fl_expr **conds, uint32_t n,
                       bool *connected)
{
    double div = 1, rsel = 1;
    bool any = false;
    *connected = false;
    for (uint32_t i = 0; i < n; i++) {
        const fl_expr *e = conds[i];
        bool late = false;
        uint64_t m = expr_mask(&b->scope, e, &late);
        if ((m & ~(l->mask | r->mask)) || !(m & l->mask) || !(m & r->mask))
            continue;
        if (is_eq(e)) {
            bool lt = false;
            uint64_t m0 = expr_mask(&b->scope, e->args[0], &lt);
            uint64_t m1 = expr_mask(&b->scope, e->args[1], &lt);
            if (m0 && m1 && (((m0 & ~l->mask) == 0 && (m1 & ~r->mask) == 0) ||
                             ((m0 & ~r->mask) == 0 && (m1 & ~l->mask) == 0))) {
                double n0 = key_ndv(b, e->args[0], (m0 & ~l->mask) == 0 ? l->est : r->est);
                double n1 = key_ndv(b, e->args[1], (m1 & ~l->mask) == 0 ? l->est : r->est);
                double d = fmin(n0, n1);
                if (d > div)
                    div = d;
                any = true;
                *connected = true;
                continue;
            }
        }
        rsel *= selectivity(e);
    }
    double est = l->est * r->est / (any ? div : 1) * rsel;
    return est < 1 ? 1 : est;
}

static fl_status join_two(fl_bctx *b, built *l, built *r, fl_expr **conds, bool *used_cond,
                          uint32_t n, fl_join_type jt, built *out, fl_error *err)
{
    /* probe = larger (left), build = smaller (right), for inner joins */
    if (jt == FL_JOIN_INNER && l->est < r->est) {
        built tmp = *l;
        *l = *r;
        *r = tmp;
    }
    uint32_t nl = l->plan->schema.nfields, nr = r->plan->schema.nfields;
    fl_plan *p = fl_plan_new(b->a, FL_PLAN_JOIN, 2, nl + nr);
    fl_expr **lk = fl_arena_calloc(b->a, n + 1, sizeof(fl_expr *));
    fl_expr **rk = fl_arena_calloc(b->a, n + 1, sizeof(fl_expr *));
    bool *ns = fl_arena_calloc(b->a, n + 1, sizeof(bool));
    fl_expr **res = fl_arena_calloc(b->a, n + 1, sizeof(fl_expr *));
    int32_t *map;
    FL_TRY(new_map(b, &map, err));
    if (!p || !lk || !rk || !ns || !res)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < b->scope.ncols; i++)
        map[i] = l->map[i] >= 0 ? l->map[i] : r->map[i] >= 0 ? r->map[i] + (int32_t)nl : -1;
    uint32_t nk = 0, nres = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (used_cond && used_cond[i])
            continue;
        const fl_expr *e = conds[i];
        bool late = false;
        uint64_t m = expr_mask(&b->scope, e, &late);
        if (m & ~(l->mask | r->mask))
            continue;
        if (used_cond)
            used_cond[i] = true;
        if (is_eq(e)) {
            uint64_t m0 = expr_mask(&b->scope, e->args[0], &late);
            uint64_t m1 = expr_mask(&b->scope, e->args[1], &late);
            const fl_expr *a0 = NULL, *a1 = NULL;
            if (m0 && m1 && (m0 & ~l->mask) == 0 && (m1 & ~r->mask) == 0) {
                a0 = e->args[0];
                a1 = e->args[1];
            } else if (m0 && m1 && (m0 & ~r->mask) == 0 && (m1 & ~l->mask) == 0) {
                a0 = e->args[1];
                a1 = e->args[0];
            }
            if (a0) {
                FL_TRY(fl_front_remap(b->a, a0, l->map, b->scope.ncols, &lk[nk], err));
                FL_TRY(fl_front_remap(b->a, a1, r->map, b->scope.ncols, &rk[nk], err));
                nk++;
                continue;
            }
        }
        FL_TRY(fl_front_remap(b->a, e, map, b->scope.ncols, &res[nres++], err));
    }
    p->children[0] = l->plan;
    p->children[1] = r->plan;
    memcpy(p->schema.fields, l->plan->schema.fields, nl * sizeof(fl_field));
    memcpy(p->schema.fields + nl, r->plan->schema.fields, nr * sizeof(fl_field));
    if (jt == FL_JOIN_LEFT || jt == FL_JOIN_FULL)
        for (uint32_t i = 0; i < nr; i++)
            p->schema.fields[nl + i].nullable = true;
    if (jt == FL_JOIN_RIGHT || jt == FL_JOIN_FULL)
        for (uint32_t i = 0; i < nl; i++)
            p->schema.fields[i].nullable = true;
    p->u.join.type = nk == 0 && nres == 0 && jt == FL_JOIN_INNER ? FL_JOIN_CROSS : jt;
    p->u.join.left_keys = lk;
    p->u.join.right_keys = rk;
    p->u.join.null_safe = ns;
    p->u.join.nkeys = nk;
    if (nres && fl_front_and(b->a, res, nres, &p->u.join.residual) != FL_OK)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    /* outer joins keep their sides; the hash table goes on the smaller one
     * (the executor emits a built preserved side's unmatched rows at the end) */
    p->u.join.build_left = (jt == FL_JOIN_LEFT || jt == FL_JOIN_RIGHT || jt == FL_JOIN_FULL) &&
                           nk > 0 && l->est < r->est;
    bool connected;
    p->est_rows = join_est(b, l, r, conds, n, &connected);
    if (jt == FL_JOIN_LEFT && p->est_rows < l->est)
        p->est_rows = l->est;
    out->plan = p;
    out->map = map;
    out->mask = l->mask | r->mask;
    out->est = p->est_rows;
    return FL_OK;
}

static fl_status build_inner(fl_bctx *b, fl_jtree *t, site *sites, built *out, fl_error *err)
{
    uint32_t n = t->nkids;
    if (n == 0) {
        /* SELECT without FROM: one row, no columns */
        fl_plan *p = fl_plan_new(b->a, FL_PLAN_VALUES, 0, 0);
        fl_expr ***rows = fl_arena_calloc(b->a, 1, sizeof(fl_expr **));
        if (!p || !rows)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        p->u.values.rows = rows;
        p->u.values.nrows = 1;
        p->est_rows = 1;
        out->plan = p;
        FL_TRY(new_map(b, &out->map, err));
        out->mask = 0;
        out->est = 1;
        return filter_over(b, out, t->filters, t->nfilters, err);
    }
    built *items = fl_arena_calloc(b->a, n, sizeof(built));
    bool *used = fl_arena_calloc(b->a, t->nfilters + 1, sizeof(bool));
    if (!items || !used)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < n; i++)
        FL_TRY(build(b, t->kids[i], sites, &items[i], err));
    while (n > 1) {
        int bi = -1, bj = -1;
        double best = INFINITY;
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t j = i + 1; j < n; j++) {
                bool conn;
                double est = join_est(b, &items[i], &items[j], t->filters, t->nfilters, &conn);
                if (conn && est < best) {
                    best = est;
                    bi = (int)i;
                    bj = (int)j;
                }
            }
        if (bi < 0) {
            /* nothing connected: cross join the two smallest inputs */
            bi = 0;
            bj = 1;
            for (uint32_t i = 0; i < n; i++)
                for (uint32_t j = i + 1; j < n; j++)
                    if (items[i].est * items[j].est < items[bi].est * items[bj].est) {
                        bi = (int)i;
                        bj = (int)j;
                    }
        }
        built j;
        FL_TRY(join_two(b, &items[bi], &items[bj], t->filters, used, t->nfilters, FL_JOIN_INNER,
                        &j, err));
        items[bi] = j;
        items[bj] = items[n - 1];
        n--;
    }
    *out = items[0];
    /* conjuncts over no relation (constants, parameters) or left over */
    fl_expr **rest = fl_arena_calloc(b->a, t->nfilters + 1, sizeof(fl_expr *));
    uint32_t nrest = 0;
    if (!rest)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < t->nfilters; i++)
        if (!used[i])
            rest[nrest++] = t->filters[i];
    return filter_over(b, out, rest, nrest, err);
}

static fl_status build_leaf(fl_bctx *b, fl_jtree *t, built *out, fl_error *err)
{
    fl_rel *r = &b->scope.rels[t->rel];
    FL_TRY(new_map(b, &out->map, err));
    out->mask = t->mask;
    if (r->kind == FL_REL_TABLE) {
        for (uint32_t i = 0; i < t->nfilters; i++) {
            r->filters = fl_front_grow(b->a, r->filters, &r->capfilters, r->nfilters,
                                       sizeof(fl_expr *));
            if (!r->filters)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            r->filters[r->nfilters++] = t->filters[i];
        }
        FL_TRY(fl_front_plan_scan(b, t->rel, NULL, &out->plan, out->map, err));
        out->est = out->plan->est_rows;
        return FL_OK;
    }
    out->plan = r->plan;
    for (uint32_t i = 0; i < r->ncols; i++)
        out->map[r->first + i] = (int32_t)i;
    out->est = r->plan->est_rows > 0 ? r->plan->est_rows : 1000;
    return filter_over(b, out, t->filters, t->nfilters, err);
}

static fl_status build_outer(fl_bctx *b, fl_jtree *t, site *sites, built *out, fl_error *err)
{
    fl_jtree *lt = t->kids[0], *rt = t->kids[1];
    fl_expr **keep = fl_arena_calloc(b->a, t->non + 1, sizeof(fl_expr *));
    uint32_t nkeep = 0;
    if (!keep)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < t->non; i++) {
        bool late = false;
        uint64_t m = expr_mask(&b->scope, t->on[i], &late);
        /* ON conditions over the nullable side alone filter that side first */
        if (!late && m && (m & ~rt->mask) == 0 && t->jtype == FL_JOIN_LEFT)
            FL_TRY(push_conj(b, rt, t->on[i], m, err));
        else if (!late && m && (m & ~lt->mask) == 0 && t->jtype == FL_JOIN_RIGHT)
            FL_TRY(push_conj(b, lt, t->on[i], m, err));
        else
            keep[nkeep++] = t->on[i];
    }
    built l, r;
    FL_TRY(build(b, lt, sites, &l, err));
    FL_TRY(build(b, rt, sites, &r, err));
    FL_TRY(join_two(b, &l, &r, keep, NULL, nkeep, t->jtype, out, err));
    return filter_over(b, out, t->filters, t->nfilters, err);
}

static fl_status apply_join(fl_bctx *b, built *x, const fl_apply *ap, fl_error *err);

/* Estimated rows of x SEMI JOIN sub on keys: each x row survives with the
 * chance that its key is among sub's (at most sub's rows) keys out of the key
 * column's distinct values. */
static double semi_est(fl_bctx *b, const built *x, const fl_apply *ap)
{
    double sub = ap->sub->est_rows > 0 ? ap->sub->est_rows : 1000;
    double ndv = 0;
    for (uint32_t i = 0; i < ap->nkeys; i++)
        ndv = fmax(ndv, key_ndv(b, ap->outer_keys[i], x->est));
    double est = ndv > 0 ? x->est * fmin(1, sub / ndv) : x->est * 0.5;
    return est < 1 ? 1 : est;
}

static fl_status build(fl_bctx *b, fl_jtree *t, site *sites, built *out, fl_error *err)
{
    switch (t->kind) {
    case 0:
        FL_TRY(build_leaf(b, t, out, err));
        break;
    case 1:
        FL_TRY(build_inner(b, t, sites, out, err));
        break;
    default:
        FL_TRY(build_outer(b, t, sites, out, err));
        break;
    }
    /* A selective SEMI join (its subquery's rows a small fraction of this
     * input) filters here, before the joins above: TPC-H Q18's
     * `o_orderkey IN (SELECT l_orderkey ... HAVING sum(l_quantity) > 300)`
     * cuts orders to a few rows before they meet customer and lineitem. */
    for (uint32_t i = 0; sites && i < b->napplies; i++) {
        const fl_apply *ap = &b->applies[i];
        if (sites[i].node != t || sites[i].done || t == b->root)
            continue;
        double sub = ap->sub->est_rows > 0 ? ap->sub->est_rows : 1000;
        if (sub * 4 > out->est)
            continue;
        double est = semi_est(b, out, ap);
        FL_TRY(apply_join(b, out, ap, err));
        out->plan->est_rows = est;
        out->est = est;
        sites[i].done = true;
    }
    return FL_OK;
}

/* The deepest node of t that holds every relation in m and where a filter
 * on m may go (inner-join kids, the preserved side of an outer join). */
static const fl_jtree *site_of(const fl_jtree *t, uint64_t m)
{
    if (m && t->kind == 1) {
        for (uint32_t i = 0; i < t->nkids; i++)
            if ((m & ~t->kids[i]->mask) == 0)
                return site_of(t->kids[i], m);
    } else if (m && t->kind == 2) {
        const fl_jtree *l = t->kids[0], *r = t->kids[1];
        if (t->jtype == FL_JOIN_LEFT && (m & ~l->mask) == 0)
            return site_of(l, m);
        if (t->jtype == FL_JOIN_RIGHT && (m & ~r->mask) == 0)
            return site_of(r, m);
    }
    return t;
}

/* sites[i] for SEMI joins with keys and no residual whose outer keys are
 * plain expressions over this block's relations; NULL node = stays on top. */
static fl_status find_sites(fl_bctx *b, const fl_jtree *root, site **out, fl_error *err)
{
    *out = NULL;
    if (b->napplies == 0)
        return FL_OK;
    site *s = fl_arena_calloc(b->a, b->napplies, sizeof *s);
    if (!s)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < b->napplies; i++) {
        const fl_apply *ap = &b->applies[i];
        if (ap->type != FL_JOIN_SEMI || ap->is_apply || ap->nkeys == 0 || ap->residual ||
            ap->scope_col >= 0)
            continue;
        uint64_t m = 0;
        bool late = false;
        for (uint32_t k = 0; k < ap->nkeys; k++)
            m |= expr_mask(&b->scope, ap->outer_keys[k], &late);
        if (!late && m)
            s[i].node = site_of(root, m);
    }
    *out = s;
    return FL_OK;
}

static fl_status push_conj(fl_bctx *b, fl_jtree *t, fl_expr *e, uint64_t m, fl_error *err)
{
    if (m && t->kind == 1) {
        for (uint32_t i = 0; i < t->nkids; i++)
            if ((m & ~t->kids[i]->mask) == 0)
                return push_conj(b, t->kids[i], e, m, err);
    } else if (m && t->kind == 2) {
        fl_jtree *l = t->kids[0], *r = t->kids[1];
        /* a conjunct on the nullable side that drops null-extended rows makes
         * the outer join an inner one, and then filters that side first */
        if (((t->jtype == FL_JOIN_LEFT && (m & ~r->mask) == 0) ||
             (t->jtype == FL_JOIN_RIGHT && (m & ~l->mask) == 0)) &&
            fl_front_null_rejecting(e))
            t->jtype = FL_JOIN_INNER;
        if ((t->jtype == FL_JOIN_LEFT || t->jtype == FL_JOIN_INNER) && (m & ~l->mask) == 0)
            return push_conj(b, l, e, m, err);
        if ((t->jtype == FL_JOIN_RIGHT || t->jtype == FL_JOIN_INNER) && (m & ~r->mask) == 0)
            return push_conj(b, r, e, m, err);
    }
    return add_expr(b->a, &t->filters, &t->nfilters, &t->capfilters, e, err);
}

static fl_status apply_join(fl_bctx *b, built *x, const fl_apply *ap, fl_error *err)
{
    uint32_t nl = x->plan->schema.nfields, nr = ap->sub->schema.nfields;
    bool keeps_right = ap->type == FL_JOIN_LEFT || ap->type == FL_JOIN_SINGLE;
    uint32_t nout = nl + (ap->type == FL_JOIN_MARK ? 1 : keeps_right ? nr : 0);
    fl_plan *p = fl_plan_new(b->a, FL_PLAN_JOIN, 2, nout);
    fl_expr **lk = fl_arena_calloc(b->a, ap->nkeys + 1, sizeof(fl_expr *));
    bool *ns = fl_arena_calloc(b->a, ap->nkeys + 1, sizeof(bool));
    if (!p || !lk || !ns)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < ap->nkeys; i++)
        FL_TRY(fl_front_remap(b->a, ap->outer_keys[i], x->map, b->scope.ncols, &lk[i], err));
    p->children[0] = x->plan;
    p->children[1] = ap->sub;
    memcpy(p->schema.fields, x->plan->schema.fields, nl * sizeof(fl_field));
    if (ap->type == FL_JOIN_MARK) {
        p->schema.fields[nl].name = "mark";
        p->schema.fields[nl].type.id = FL_TYPE_BOOLEAN;
        p->schema.fields[nl].nullable = true;
    } else if (keeps_right) {
        memcpy(p->schema.fields + nl, ap->sub->schema.fields, nr * sizeof(fl_field));
        for (uint32_t i = 0; i < nr; i++)
            p->schema.fields[nl + i].nullable = true;
    }
    p->u.join.type = ap->type;
    p->u.join.left_keys = lk;
    p->u.join.right_keys = ap->inner_keys;
    p->u.join.null_safe = ns;
    p->u.join.nkeys = ap->nkeys;
    /* SEMI/ANTI/LEFT build the smaller side: the left one when the subquery's
     * rows outnumber it (the executor then marks and emits left rows) */
    double sub_est = ap->sub->est_rows > 0 ? ap->sub->est_rows : 1000;
    p->u.join.build_left = (ap->type == FL_JOIN_SEMI || ap->type == FL_JOIN_ANTI ||
                            ap->type == FL_JOIN_LEFT) &&
                           !ap->is_apply && ap->nkeys > 0 && x->est * 2 < sub_est;
    if (ap->residual)
        FL_TRY(remap_ex(b->a, ap->residual, NULL, 0, (int32_t)nl, x->map, b->scope.ncols,
                        &p->u.join.residual, err));
    double est = x->est;
    if (ap->type == FL_JOIN_SEMI || ap->type == FL_JOIN_ANTI)
        est *= 0.5;
    p->est_rows = est < 1 ? 1 : est;
    if (ap->scope_col >= 0)
        x->map[ap->scope_col] =
            ap->type == FL_JOIN_MARK ? (int32_t)nl : (int32_t)(nl + ap->value_col);
    FL_TRY(fl_front_apply_built(b, ap, p, x->map, err)); /* lateral: APPLY nodes */
    x->plan = p;
    x->est = p->est_rows;
    return FL_OK;
}

static uint64_t scope_mask(const void *ctx, const fl_expr *e)
{
    bool late = false;
    return expr_mask(ctx, e, &late);
}

/* b->conj with every OR conjunct factored (fl_front_factor_or) */
static fl_status factor_conjuncts(fl_bctx *b, fl_error *err)
{
    fl_expr **all = NULL;
    uint32_t n = 0, cap = 0;
    bool changed = false;
    for (uint32_t i = 0; i < b->nconj; i++) {
        fl_expr **rep;
        uint32_t nrep;
        FL_TRY(fl_front_factor_or(b->a, b->conj[i], scope_mask, &b->scope, &rep, &nrep, err));
        if (nrep)
            changed = true;
        else {
            rep = &b->conj[i];
            nrep = 1;
        }
        for (uint32_t j = 0; j < nrep; j++)
            FL_TRY(add_expr(b->a, &all, &n, &cap, rep[j], err));
    }
    if (changed) {
        b->conj = all;
        b->nconj = n;
        b->capconj = cap;
    }
    return FL_OK;
}

fl_status fl_build_from_where(fl_bctx *b, fl_plan **out, int32_t **map, fl_error *err)
{
    FL_TRY(factor_conjuncts(b, err));
    if (b->root)
        compute_ndv(b, b->root);
    fl_jtree *root = fl_bctx_root(b);
    if (!root)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_expr **late = fl_arena_calloc(b->a, b->nconj + 1, sizeof(fl_expr *));
    uint32_t nlate = 0;
    if (!late)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < b->nconj; i++) {
        bool is_late = false;
        uint64_t m = expr_mask(&b->scope, b->conj[i], &is_late);
        if (is_late)
            late[nlate++] = b->conj[i];
        else
            FL_TRY(push_conj(b, root, b->conj[i], m, err));
    }
    site *sites;
    FL_TRY(find_sites(b, root, &sites, err));
    built x;
    FL_TRY(build(b, root, sites, &x, err));
    for (uint32_t i = 0; i < b->napplies; i++)
        if (!sites || !sites[i].done)
            FL_TRY(apply_join(b, &x, &b->applies[i], err));
    FL_TRY(filter_over(b, &x, late, nlate, err));
    *out = x.plan;
    *map = x.map;
    return FL_OK;
}
