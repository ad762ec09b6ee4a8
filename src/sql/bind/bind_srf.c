/*
 * bind_srf.c - set-returning functions in FROM over expressions:
 * unnest(array [, array ...]) and generate_series(start, stop [, step]) with
 * arguments that are not constants, [WITH ORDINALITY], e.g.
 *   FROM t, unnest(t.tags) AS g(tag)
 *   FROM t CROSS JOIN LATERAL generate_series(1, t.n) WITH ORDINALITY
 *   (SELECT ... FROM unnest(stxkeys) s(attnum) JOIN pg_attribute ...)  -- psql \d+
 * Functions in FROM see the block's earlier FROM items and every enclosing
 * block (PostgreSQL treats them as LATERAL), so the arguments are bound in
 * param mode (bind_apply.c): a reference to this block's columns makes the
 * function an APPLY over the block (op_apply.c generates it per row); a
 * reference to enclosing blocks only makes it a relation whose arguments
 * are parameters bound by the enclosing block's apply. generate_series over
 * constants stays tablefunc.c's streaming SCAN SERIES.
 */
#include <stdio.h>
#include <string.h>

#include "sql/bind/bind_apply.h"
#include "sql/parse/parse_tree.h"
#include "sql/pgcat/pgcat.h"
#include "sql/plan/plan_rules.h"

static bool all_const(fl_expr **args, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (args[i]->kind != FL_EXPR_CONST)
            return false;
    return true;
}

/* *p with its first column cast to t (the element type of array text) */
static fl_status cast_first(fl_bctx *b, fl_plan **p, const fl_type *t, fl_error *err)
{
    uint32_t n = (*p)->schema.nfields;
    fl_expr **e = fl_arena_calloc(b->a, n, sizeof(fl_expr *));
    const char **names = fl_arena_calloc(b->a, n, sizeof(char *));
    if (!e || !names)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        e[i] = fl_expr_column(b->a, i, &(*p)->schema.fields[i].type);
        if (!e[i])
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        names[i] = (*p)->schema.fields[i].name;
    }
    FL_TRY(fl_expr_cast(b->a, e[0], t, &e[0], err));
    fl_plan *pr = fl_front_project(b->a, *p, e, names, n);
    if (!pr)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    pr->est_rows = (*p)->est_rows;
    *p = pr;
    return FL_OK;
}

fl_status fl_bind_srf(fl_bctx *b, const PgQuery__RangeFunction *rf, bool *handled, bool *lateral,
                      uint32_t *rel, fl_error *err)
{
    *handled = *lateral = false;
    fl_planner_ctx *pc = b->pc;
    if (rf->is_rowsfrom || rf->n_functions != 1)
        return FL_OK;
    const PgQuery__Node *item = rf->functions[0];
    if (item->node_case == PG_QUERY__NODE__NODE_LIST && item->list->n_items > 0)
        item = item->list->items[0];
    if (item->node_case != PG_QUERY__NODE__NODE_FUNC_CALL)
        return FL_OK;
    const PgQuery__FuncCall *fc = item->func_call;
    const char *name = fl_front_str(fc->funcname[fc->n_funcname - 1]);
    bool unnest = name && strcmp(name, "unnest") == 0;
    bool series = name && strcmp(name, "generate_series") == 0;
    if (!unnest && !series)
        return FL_OK;
    if (series && (fc->n_args < 2 || fc->n_args > 3))
        return FL_OK; /* tablefunc.c reports it */
    if (unnest && fc->n_args < 1)
        return fl_front_err(pc, err, FL_ENOTFOUND, fc->location, "42883",
                            "function unnest() does not exist");
    uint32_t nargs = (uint32_t)fc->n_args;
    fl_expr **args = fl_arena_calloc(b->a, nargs + 1, sizeof(fl_expr *));
    if (!args)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_apply_mark m;
    fl_apply_begin(b, &m);
    fl_bctx *c = fl_arena_calloc(b->a, 1, sizeof *c);
    fl_status rc = c ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
    if (!rc)
        fl_bctx_init(c, pc, b);
    for (uint32_t i = 0; !rc && i < nargs; i++) {
        rc = fl_bind_expr(c, fc->args[i], &args[i], err);
        if (!rc)
            args[i] = fl_front_fold(b->a, args[i]);
    }
    fl_apply_end(b, &m);
    FL_TRY(rc);
    if (c->napplies || c->naggs || c->nwins)
        return fl_front_err(pc, err, FL_EUNSUPPORTED, fc->location, "0A000",
                            "subqueries, aggregates and window functions are not supported in "
                            "the arguments of %s() in FROM",
                            name);
    bool corr = fl_apply_used(b, &m);
    if (series && !corr && !rf->ordinality && !rf->lateral && all_const(args, nargs))
        return FL_OK; /* tablefunc.c's SCAN SERIES */
    *handled = true;
    const PgQuery__Alias *al = rf->alias;
    uint32_t nval = unnest ? nargs : 1;
    uint32_t ncols = nval + (rf->ordinality ? 1 : 0);
    fl_plan *p = fl_plan_new(b->a, FL_PLAN_SRF, 0, ncols);
    if (!p)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_type i64 = {.id = FL_TYPE_INT64};
    fl_type text_elem = {.id = 0};
    for (uint32_t i = 0; i < nargs; i++) {
        const fl_type *t = &args[i]->type;
        if (unnest && fl_pg_is_array_text(t) && nargs == 1) {
            /* PostgreSQL array text (pgcat's ARRAY[...], int2vector...): text
             * elements, cast to the element type over the SRF below */
            text_elem = fl_pgcat_type_for_oid((uint32_t)t->scale);
            p->schema.fields[i].type.id = FL_TYPE_STRING;
        } else if (unnest) {
            if (t->id != FL_TYPE_LIST || t->nchildren != 1)
                return fl_front_err(pc, err, FL_ETYPE, args[i]->location, "42804",
                                    "unnest() argument %u must be an array", i + 1);
            p->schema.fields[i].type = t->children[0].type;
        } else {
            if (t->id == FL_TYPE_STRING && t->fixed_len == -1) {
                if (fl_expr_cast(b->a, args[i], &i64, &args[i], err) != FL_OK)
                    return fl_front_err_at(pc, err, fc->location);
            } else if (t->id != FL_TYPE_INT32 && t->id != FL_TYPE_INT64) {
                return fl_front_err(pc, err, FL_EUNSUPPORTED, fc->location, "0A000",
                                    "generate_series() in FROM takes integer arguments");
            }
            p->schema.fields[0].type = i64;
        }
    }
    for (uint32_t i = 0; i < nval; i++) {
        const char *cn = al && i < al->n_colnames ? fl_front_str(al->colnames[i])
                         : nval == 1 && al && al->aliasname && al->aliasname[0] &&
                                 !(al->n_colnames)
                             ? al->aliasname
                             : name;
        p->schema.fields[i].name = fl_arena_strdup(b->a, cn ? cn : name);
        p->schema.fields[i].nullable = true;
    }
    if (rf->ordinality) {
        const char *cn = al && nval < al->n_colnames ? fl_front_str(al->colnames[nval])
                                                      : "ordinality";
        p->schema.fields[nval].name = fl_arena_strdup(b->a, cn ? cn : "ordinality");
        p->schema.fields[nval].type = i64;
    }
    if (al && al->n_colnames > ncols)
        return fl_front_err(pc, err, FL_EINVAL, fc->location, "42601",
                            "too many column aliases specified for function %s", name);
    p->u.srf.fn = unnest ? FL_SRF_UNNEST : FL_SRF_SERIES;
    p->u.srf.args = args;
    p->u.srf.nargs = nargs;
    p->u.srf.ordinality = rf->ordinality;
    p->est_rows = 10;
    const char *alias = al && al->aliasname && al->aliasname[0] ? al->aliasname : name;
    if (text_elem.id && text_elem.id != FL_TYPE_STRING)
        FL_TRY(cast_first(b, &p, &text_elem, err));
    if (corr) {
        *lateral = true;
        return fl_front_lateral(b, p, &m, alias, &p->schema, false, err);
    }
    fl_rel r;
    memset(&r, 0, sizeof r);
    r.kind = FL_REL_PLAN;
    r.alias = alias;
    r.plan = p;
    return fl_scope_add_rel(b->a, &b->scope, &r, &p->schema, rel, err);
}

/* ---- set-returning functions in a select list (PostgreSQL's ProjectSet) ---- */

typedef struct srf_found {
    const PgQuery__Node *node;
    fl_srf_kind fn;
    const PgQuery__FuncCall *fc;
} srf_found;

typedef struct srf_scan {
    srf_found *v;
    uint32_t n, cap;
    fl_arena *a;
    bool oom;
} srf_scan;

static const char *fc_name(const PgQuery__FuncCall *fc)
{
    return fc->n_funcname ? fl_front_str(fc->funcname[fc->n_funcname - 1]) : NULL;
}

static void srf_add(srf_scan *sc, const PgQuery__Node *n, fl_srf_kind fn,
                    const PgQuery__FuncCall *fc)
{
    sc->v = fl_front_grow(sc->a, sc->v, &sc->cap, sc->n, sizeof(srf_found));
    if (!sc->v) {
        sc->oom = true;
        return;
    }
    sc->v[sc->n].node = n;
    sc->v[sc->n].fn = fn;
    sc->v[sc->n].fc = fc;
    sc->n++;
}

/* finds the set-returning calls of an expression (not inside subqueries) */
static void srf_walk(srf_scan *sc, const ProtobufCMessage *m)
{
    if (!m || sc->oom)
        return;
    if (m->descriptor == &pg_query__node__descriptor) {
        const PgQuery__Node *n = (const PgQuery__Node *)m;
        if (n->node_case == PG_QUERY__NODE__NODE_SUB_LINK)
            return;
        if (n->node_case == PG_QUERY__NODE__NODE_A_INDIRECTION) {
            const PgQuery__AIndirection *ai = n->a_indirection;
            const char *f = ai->n_indirection == 1 ? fl_front_str(ai->indirection[0]) : NULL;
            if (f && ai->arg && ai->arg->node_case == PG_QUERY__NODE__NODE_FUNC_CALL) {
                const PgQuery__FuncCall *fc = ai->arg->func_call;
                const char *nm = fc_name(fc);
                if (nm && strcmp(nm, "_pg_expandarray") == 0 && fc->n_args == 1 &&
                    (strcmp(f, "x") == 0 || strcmp(f, "n") == 0)) {
                    srf_add(sc, n, f[0] == 'x' ? FL_SRF_UNNEST : FL_SRF_POSITIONS, fc);
                    return;
                }
            }
        }
        if (n->node_case == PG_QUERY__NODE__NODE_FUNC_CALL && !n->func_call->over) {
            const PgQuery__FuncCall *fc = n->func_call;
            const char *nm = fc_name(fc);
            fl_srf_kind fn = 0;
            if (nm && strcmp(nm, "unnest") == 0 && fc->n_args == 1)
                fn = FL_SRF_UNNEST;
            else if (nm && strcmp(nm, "generate_series") == 0 &&
                     (fc->n_args == 2 || fc->n_args == 3))
                fn = FL_SRF_SERIES;
            else if (nm && strcmp(nm, "generate_subscripts") == 0 && fc->n_args == 2)
                fn = FL_SRF_SUBSCRIPTS;
            if (fn) {
                srf_add(sc, n, fn, fc);
                return;
            }
        }
    }
    const ProtobufCMessageDescriptor *d = m->descriptor;
    for (unsigned i = 0; i < d->n_fields; i++) {
        const ProtobufCFieldDescriptor *f = &d->fields[i];
        if (f->type != PROTOBUF_C_TYPE_MESSAGE)
            continue;
        const char *base = (const char *)m;
        if (f->label == PROTOBUF_C_LABEL_REPEATED) {
            size_t cnt = *(const size_t *)(base + f->quantifier_offset);
            ProtobufCMessage *const *arr = *(ProtobufCMessage *const *const *)(base + f->offset);
            for (size_t k = 0; k < cnt; k++)
                srf_walk(sc, arr[k]);
        } else {
            if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) { /* only the member that is set */
                uint32_t which = *(const uint32_t *)(base + f->quantifier_offset);
                if (which != f->id)
                    continue;
            }
            srf_walk(sc, *(const ProtobufCMessage *const *)(base + f->offset));
        }
    }
}

/* binds one stream's arguments in c; *vt the value type, *elem the
 * element type to cast text elements to (id 0 = none) */
static fl_status srf_stream(fl_bctx *c, const srf_found *f, fl_srf_stream *st, fl_type *vt,
                            fl_type *elem, fl_error *err)
{
    const PgQuery__FuncCall *fc = f->fc;
    st->fn = f->fn;
    st->nargs = (uint32_t)fc->n_args;
    st->args = fl_arena_calloc(c->a, st->nargs + 1, sizeof(fl_expr *));
    if (!st->args)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < st->nargs; i++) {
        FL_TRY(fl_bind_expr(c, fc->args[i], &st->args[i], err));
        st->args[i] = fl_front_fold(c->a, st->args[i]);
    }
    memset(elem, 0, sizeof *elem);
    memset(vt, 0, sizeof *vt);
    const char *name = fc_name(fc);
    if (f->fn == FL_SRF_SERIES) {
        bool all32 = true;
        for (uint32_t i = 0; i < st->nargs; i++) {
            fl_type t = st->args[i]->type;
            if (t.id == FL_TYPE_STRING && t.fixed_len == -1) {
                fl_type i32 = {.id = FL_TYPE_INT32};
                if (fl_expr_cast(c->a, st->args[i], &i32, &st->args[i], err) != FL_OK)
                    return fl_front_err_at(c->pc, err, fc->location);
                t = i32;
            }
            if (t.id != FL_TYPE_INT32 && t.id != FL_TYPE_INT64)
                return fl_front_err(c->pc, err, FL_EUNSUPPORTED, fc->location, "0A000",
                                    "generate_series() in a select list takes integer arguments");
            all32 = all32 && t.id == FL_TYPE_INT32;
        }
        vt->id = all32 ? FL_TYPE_INT32 : FL_TYPE_INT64;
        return FL_OK;
    }
    const fl_type *at = &st->args[0]->type;
    bool text = fl_pg_is_array_text(at) || (at->id == FL_TYPE_STRING && at->fixed_len != -1);
    if (!text && (at->id != FL_TYPE_LIST || at->nchildren != 1))
        return fl_front_err(c->pc, err, FL_ETYPE, fc->location, "42804",
                            "%s() needs an array argument", name ? name : "?");
    if (f->fn != FL_SRF_UNNEST) {
        vt->id = FL_TYPE_INT32;
        return FL_OK;
    }
    if (!text) {
        *vt = at->children[0].type;
        return FL_OK;
    }
    vt->id = FL_TYPE_STRING;
    if (fl_pg_is_array_text(at))
        *elem = fl_pgcat_type_for_oid((uint32_t)at->scale);
    return FL_OK;
}

fl_status fl_bind_select_srfs(fl_bctx *b, const PgQuery__SelectStmt *s, fl_error *err)
{
    srf_scan sc = {.a = b->a};
    for (size_t i = 0; i < s->n_target_list; i++)
        srf_walk(&sc, (const ProtobufCMessage *)s->target_list[i]);
    if (sc.oom)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    if (!sc.n)
        return FL_OK;
    fl_srf_stream *streams = fl_arena_calloc(b->a, sc.n, sizeof *streams);
    fl_type *elems = fl_arena_calloc(b->a, sc.n, sizeof *elems);
    fl_plan *p = fl_plan_new(b->a, FL_PLAN_SRF, 0, sc.n);
    b->srfs = fl_arena_calloc(b->a, sc.n, sizeof *b->srfs);
    fl_bctx *c = fl_arena_calloc(b->a, 1, sizeof *c);
    if (!streams || !elems || !p || !b->srfs || !c)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_apply_mark m;
    fl_apply_begin(b, &m);
    fl_bctx_init(c, b->pc, b);
    fl_status rc = FL_OK;
    for (uint32_t i = 0; !rc && i < sc.n; i++) {
        rc = srf_stream(c, &sc.v[i], &streams[i], &p->schema.fields[i].type, &elems[i], err);
        p->schema.fields[i].name = fl_front_node_name(sc.v[i].node);
        p->schema.fields[i].nullable = true;
    }
    fl_apply_end(b, &m);
    FL_TRY(rc);
    if (c->napplies || c->naggs || c->nwins)
        return fl_front_err(b->pc, err, FL_EUNSUPPORTED, sc.v[0].fc->location, "0A000",
                            "subqueries, aggregates and window functions are not supported in "
                            "the arguments of a set-returning function");
    p->u.srf.streams = streams;
    p->u.srf.nstreams = sc.n;
    p->est_rows = 10;
    uint32_t first = b->scope.ncols;
    FL_TRY(fl_front_lateral(b, p, &m, NULL, &p->schema, false, err));
    for (uint32_t i = 0; i < sc.n; i++) {
        fl_scope_col *col = &b->scope.cols[first + i];
        col->name = NULL; /* not in SELECT * */
        col->used = true;
        fl_expr *e = fl_expr_column(b->a, first + i, &col->type);
        if (!e)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        e->alias = p->schema.fields[i].name;
        if (elems[i].id && elems[i].id != FL_TYPE_STRING)
            FL_TRY(fl_expr_cast(b->a, e, &elems[i], &e, err));
        b->srfs[i].node = sc.v[i].node;
        b->srfs[i].expr = e;
    }
    b->nsrfs = sc.n;
    return FL_OK;
}
