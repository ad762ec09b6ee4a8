/*
 * stmt_nodes.c - building small libpg_query parse trees for the plans DML
 * needs (stmt_int.h): column references qualified by the target table's
 * alias, constants, NOT, EXISTS subqueries and SELECT statements that the
 * planner then binds like any query (MERGE's "source rows without a match"
 * is SELECT ... FROM source WHERE NOT EXISTS (SELECT 1 FROM target WHERE
 * on_condition)).
 *
 * Nodes are initialized with protobuf-c's INIT macros and live in the
 * statement arena. They point at subtrees of the parsed statement but are
 * never linked into it, so fl_sql_parsed_free() (protobuf-c's free of the
 * unpacked tree) never touches arena memory.
 *
 * Location fields are -1 (no position) for synthesized nodes.
 */
#include <string.h>

#include "sql/stmt/stmt_int.h"

#define NEW(a, T, ...)                                                                            \
    ({                                                                                             \
        T *p_ = fl_arena_alloc((a), sizeof(T));                                                    \
        if (p_) {                                                                                  \
            T i_ = __VA_ARGS__;                                                                        \
            *p_ = i_;                                                                              \
        }                                                                                          \
        p_;                                                                                        \
    })

static PgQuery__Node *node(fl_arena *a, PgQuery__Node__NodeCase kind, void *payload)
{
    if (!payload)
        return NULL;
    PgQuery__Node *n = NEW(a, PgQuery__Node, PG_QUERY__NODE__INIT);
    if (!n)
        return NULL;
    n->node_case = kind;
    n->list = payload; /* every union member is a pointer */
    return n;
}

static PgQuery__Node *str_node(fl_arena *a, const char *s)
{
    PgQuery__String *v = NEW(a, PgQuery__String, PG_QUERY__STRING__INIT);
    if (!v)
        return NULL;
    v->sval = fl_arena_strdup(a, s);
    if (!v->sval)
        return NULL;
    return node(a, PG_QUERY__NODE__NODE_STRING, v);
}

PgQuery__Node *stmt_mk_colref(fl_arena *a, const char *qualifier, const char *name)
{
    PgQuery__ColumnRef *r = NEW(a, PgQuery__ColumnRef, PG_QUERY__COLUMN_REF__INIT);
    PgQuery__Node **f = fl_arena_calloc(a, 2, sizeof *f);
    if (!r || !f)
        return NULL;
    size_t n = 0;
    if (qualifier && !(f[n++] = str_node(a, qualifier)))
        return NULL;
    if (!(f[n++] = str_node(a, name)))
        return NULL;
    r->fields = f;
    r->n_fields = n;
    r->location = -1;
    return node(a, PG_QUERY__NODE__NODE_COLUMN_REF, r);
}

PgQuery__Node *stmt_mk_int(fl_arena *a, int32_t v)
{
    PgQuery__AConst *k = NEW(a, PgQuery__AConst, PG_QUERY__A__CONST__INIT);
    PgQuery__Integer *i = NEW(a, PgQuery__Integer, PG_QUERY__INTEGER__INIT);
    if (!k || !i)
        return NULL;
    i->ival = v;
    k->val_case = PG_QUERY__A__CONST__VAL_IVAL;
    k->ival = i;
    k->location = -1;
    return node(a, PG_QUERY__NODE__NODE_A_CONST, k);
}

PgQuery__Node *stmt_mk_bool(fl_arena *a, bool v)
{
    PgQuery__AConst *k = NEW(a, PgQuery__AConst, PG_QUERY__A__CONST__INIT);
    PgQuery__Boolean *b = NEW(a, PgQuery__Boolean, PG_QUERY__BOOLEAN__INIT);
    if (!k || !b)
        return NULL;
    b->boolval = v;
    k->val_case = PG_QUERY__A__CONST__VAL_BOOLVAL;
    k->boolval = b;
    k->location = -1;
    return node(a, PG_QUERY__NODE__NODE_A_CONST, k);
}

PgQuery__Node *stmt_mk_null(fl_arena *a)
{
    PgQuery__AConst *k = NEW(a, PgQuery__AConst, PG_QUERY__A__CONST__INIT);
    if (!k)
        return NULL;
    k->isnull = 1;
    k->location = -1;
    return node(a, PG_QUERY__NODE__NODE_A_CONST, k);
}

PgQuery__Node *stmt_mk_not(fl_arena *a, PgQuery__Node *arg)
{
    PgQuery__BoolExpr *b = NEW(a, PgQuery__BoolExpr, PG_QUERY__BOOL_EXPR__INIT);
    PgQuery__Node **args = fl_arena_calloc(a, 1, sizeof *args);
    if (!b || !args || !arg)
        return NULL;
    args[0] = arg;
    b->boolop = PG_QUERY__BOOL_EXPR_TYPE__NOT_EXPR;
    b->args = args;
    b->n_args = 1;
    b->location = -1;
    return node(a, PG_QUERY__NODE__NODE_BOOL_EXPR, b);
}

PgQuery__Node *stmt_mk_restarget(fl_arena *a, PgQuery__Node *val, const char *name)
{
    PgQuery__ResTarget *r = NEW(a, PgQuery__ResTarget, PG_QUERY__RES_TARGET__INIT);
    if (!r || !val)
        return NULL;
    r->val = val;
    r->location = -1;
    if (name && !(r->name = fl_arena_strdup(a, name)))
        return NULL;
    return node(a, PG_QUERY__NODE__NODE_RES_TARGET, r);
}

PgQuery__Node *stmt_mk_select(fl_arena *a, PgQuery__Node **targets, uint32_t ntargets,
                              PgQuery__Node **from, uint32_t nfrom, PgQuery__Node *where)
{
    PgQuery__SelectStmt *s = NEW(a, PgQuery__SelectStmt, PG_QUERY__SELECT_STMT__INIT);
    if (!s)
        return NULL;
    s->target_list = targets;
    s->n_target_list = ntargets;
    s->from_clause = from;
    s->n_from_clause = nfrom;
    s->where_clause = where;
    s->limit_option = PG_QUERY__LIMIT_OPTION__LIMIT_OPTION_DEFAULT;
    s->op = PG_QUERY__SET_OPERATION__SETOP_NONE;
    return node(a, PG_QUERY__NODE__NODE_SELECT_STMT, s);
}

PgQuery__Node *stmt_mk_not_exists(fl_arena *a, PgQuery__Node *subselect)
{
    PgQuery__SubLink *l = NEW(a, PgQuery__SubLink, PG_QUERY__SUB_LINK__INIT);
    if (!l || !subselect)
        return NULL;
    l->sub_link_type = PG_QUERY__SUB_LINK_TYPE__EXISTS_SUBLINK;
    l->subselect = subselect;
    l->location = -1;
    return stmt_mk_not(a, node(a, PG_QUERY__NODE__NODE_SUB_LINK, l));
}

PgQuery__Node *stmt_mk_rangevar_node(fl_arena *a, const PgQuery__RangeVar *rv)
{
    /* the RangeVar itself is shared (read-only) with the parsed tree */
    return node(a, PG_QUERY__NODE__NODE_RANGE_VAR, (void *)rv);
}

PgQuery__Node *stmt_mk_star(fl_arena *a)
{
    PgQuery__ColumnRef *r = NEW(a, PgQuery__ColumnRef, PG_QUERY__COLUMN_REF__INIT);
    PgQuery__Node **f = fl_arena_calloc(a, 1, sizeof *f);
    PgQuery__AStar *s = NEW(a, PgQuery__AStar, PG_QUERY__A__STAR__INIT);
    if (!r || !f || !s || !(f[0] = node(a, PG_QUERY__NODE__NODE_A_STAR, s)))
        return NULL;
    r->fields = f;
    r->n_fields = 1;
    r->location = -1;
    return node(a, PG_QUERY__NODE__NODE_COLUMN_REF, r);
}

PgQuery__Node *stmt_mk_typed_literal(fl_arena *a, const char *text, const char *typname,
                                     const int32_t *typmods, uint32_t ntypmods)
{
    PgQuery__AConst *k = NEW(a, PgQuery__AConst, PG_QUERY__A__CONST__INIT);
    PgQuery__String *s = NEW(a, PgQuery__String, PG_QUERY__STRING__INIT);
    PgQuery__TypeName *tn = NEW(a, PgQuery__TypeName, PG_QUERY__TYPE_NAME__INIT);
    PgQuery__TypeCast *tc = NEW(a, PgQuery__TypeCast, PG_QUERY__TYPE_CAST__INIT);
    PgQuery__Node **names = fl_arena_calloc(a, 2, sizeof *names);
    PgQuery__Node **mods = fl_arena_calloc(a, ntypmods + 1, sizeof *mods);
    if (!k || !s || !tn || !tc || !names || !mods || !(s->sval = fl_arena_strdup(a, text)))
        return NULL;
    k->val_case = PG_QUERY__A__CONST__VAL_SVAL;
    k->sval = s;
    k->location = -1;
    if (!(names[0] = str_node(a, "pg_catalog")) || !(names[1] = str_node(a, typname)))
        return NULL;
    tn->names = names;
    tn->n_names = 2;
    for (uint32_t i = 0; i < ntypmods; i++)
        if (!(mods[i] = stmt_mk_int(a, typmods[i])))
            return NULL;
    tn->typmods = mods;
    tn->n_typmods = ntypmods;
    tn->typemod = -1;
    tn->location = -1;
    tc->arg = node(a, PG_QUERY__NODE__NODE_A_CONST, k);
    tc->type_name = tn;
    tc->location = -1;
    return tc->arg ? node(a, PG_QUERY__NODE__NODE_TYPE_CAST, tc) : NULL;
}
