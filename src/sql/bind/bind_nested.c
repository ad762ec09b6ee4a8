/*
 * bind_nested.c - the syntax of nested values onto func/nested.c's
 * functions: a[i] and a[lo:hi] on lists, m[k] on maps, (s).f / t.s.f / s.f
 * on structs, x op ANY/ALL (list), ROW(...), and map(keys, values)'s type.
 *
 * Name resolution of a.b.c (fl_bind_column_path), as PostgreSQL and Trino
 * read it: the longest prefix that names a column wins, qualified first
 * (schema.table.column, table.column), then a bare column; what is left
 * are struct fields. So t.s.f is table t's column s, field f; s.f is
 * column s's field f when no table or alias s has a column f.
 *
 * Results of these calls are never folded at bind time: a nested value
 * has no fl_value form.
 */
#include <stdio.h>
#include <strings.h>

#include "sql/bind/bind.h"
#include "sql/parse/parse_tree.h"
#include "sql/pgcat/pgcat.h"
#include "sql/plan/plan_rules.h"

static fl_status oom(fl_error *err)
{
    return fl_errorf(err, FL_ENOMEM, "out of memory");
}

static fl_status call(fl_bctx *b, const char *fn, fl_expr **args, uint32_t n, int32_t loc,
                      fl_expr **out, fl_error *err)
{
    if (fl_expr_call(b->a, fn, args, n, loc, out, err) != FL_OK)
        return fl_front_err_at(b->pc, err, loc);
    (*out)->location = loc;
    return FL_OK;
}

static fl_expr *int_const(fl_arena *a, int32_t x, int32_t loc)
{
    fl_value v;
    memset(&v, 0, sizeof v);
    v.type.id = FL_TYPE_INT32;
    v.v.i32 = x;
    fl_expr *e = fl_expr_const(a, &v);
    if (e)
        e->location = loc;
    return e;
}

static fl_status bound_or(fl_bctx *b, const PgQuery__Node *n, int32_t dflt, int32_t loc,
                          fl_expr **out, fl_error *err)
{
    if (n)
        return fl_bind_expr(b, n, out, err);
    *out = int_const(b->a, dflt, loc);
    return *out ? FL_OK : oom(err);
}

/* The list element type of PostgreSQL array text of element oid elem.
 * exact: only a one-dimensional ARRAY[...] (FL_PG_ARRAY_1D: text cast to
 * int[] may hold '{{1,2}}'), of a type that is its own PostgreSQL type
 * (int2[] would read back as integer[], numeric[] has lost its typmod,
 * aclitem[] would be text[]); otherwise any scalar the catalogs map it to. */
static bool list_elem_for(const fl_type *t, bool exact, fl_type *et)
{
    if (!fl_pg_is_array_text(t) || (exact && t->fixed_len != FL_PG_ARRAY_1D))
        return false;
    uint32_t oid = (uint32_t)t->scale;
    memset(et, 0, sizeof *et);
    switch (oid) {
    case FL_PG_OID_DATE: et->id = FL_TYPE_DATE; return true;
    case FL_PG_OID_TIME: et->id = FL_TYPE_TIME; return true;
    case FL_PG_OID_TIMESTAMP: et->id = FL_TYPE_TIMESTAMP; return true;
    case FL_PG_OID_UUID: et->id = FL_TYPE_UUID; return true;
    default: break;
    }
    *et = fl_pgcat_type_for_oid(oid);
    if (fl_type_is_nested(et) || (et->id == FL_TYPE_STRING && et->precision))
        return false; /* int2vector, arrays of arrays: stay text */
    return !exact || fl_pg_type_oid(et) == oid;
}

fl_status fl_bind_cast_to_list(fl_arena *a, fl_expr **e, const fl_type *et, fl_error *err)
{
    fl_field *f = fl_arena_calloc(a, 1, sizeof *f);
    if (!f)
        return oom(err);
    *f = (fl_field){.name = "element", .nullable = true, .type = *et};
    fl_type lt = {.id = FL_TYPE_LIST, .nchildren = 1, .children = f};
    return fl_expr_cast(a, *e, &lt, e, err);
}

static fl_status array_as_list(fl_bctx *b, fl_expr **e, bool exact, fl_error *err)
{
    fl_type et;
    if (!list_elem_for(&(*e)->type, exact, &et))
        return FL_OK;
    int32_t loc = (*e)->location;
    if (fl_bind_cast_to_list(b->a, e, &et, err) != FL_OK)
        return fl_front_err_at(b->pc, err, loc);
    return FL_OK;
}

fl_status fl_bind_array_as_list(fl_bctx *b, fl_expr **e, fl_error *err)
{
    return array_as_list(b, e, false, err);
}

fl_status fl_plan_arrays_as_lists(fl_arena *a, fl_plan **plan, fl_error *err)
{
    fl_plan *p = *plan;
    uint32_t n = p->schema.nfields, hits = 0;
    fl_type et;
    for (uint32_t i = 0; i < n; i++)
        hits += list_elem_for(&p->schema.fields[i].type, true, &et);
    if (!hits)
        return FL_OK;
    fl_expr **ex = fl_arena_calloc(a, n + 1, sizeof *ex);
    const char **names = fl_arena_calloc(a, n + 1, sizeof *names);
    if (!ex || !names)
        return oom(err);
    for (uint32_t i = 0; i < n; i++) {
        const fl_field *in = &p->schema.fields[i];
        names[i] = in->name;
        if (!(ex[i] = fl_expr_column(a, i, &in->type)))
            return oom(err);
        if (list_elem_for(&in->type, true, &et))
            FL_TRY(fl_bind_cast_to_list(a, &ex[i], &et, err));
    }
    fl_plan *pr = fl_front_project(a, p, ex, names, n);
    if (!pr)
        return oom(err);
    for (uint32_t i = 0; i < n; i++) {
        pr->schema.fields[i].nullable = p->schema.fields[i].nullable;
        pr->schema.fields[i].field_id = p->schema.fields[i].field_id;
    }
    *plan = pr;
    return FL_OK;
}

fl_status fl_bind_nested_args(fl_bctx *b, const char *fn, fl_expr **args, uint32_t n, fl_error *err)
{
    static const char *const names[] = {"array_contains", "contains", "list_contains",
                                        "array_position", "map",      "element_at"};
    /* every argument: what they report or render is the list's (integer[],
     * [1,2]), not the text floe keeps ARRAY[...] in; a type is only named
     * when it is exact (numeric[] has lost its typmod: it stays text) */
    static const char *const all[] = {"pg_typeof",        "typeof",           "to_json",
                                      "to_jsonb",         "array_to_json",    "json_build_array",
                                      "jsonb_build_array", "json_build_object", "jsonb_build_object"};
    bool hit = false, every = false;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        hit |= strcmp(fn, names[i]) == 0;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        every |= strcmp(fn, all[i]) == 0;
    bool exact = every && strstr(fn, "typeof") != NULL;
    for (uint32_t i = 0; hit && i < n && i < 2; i++)
        FL_TRY(array_as_list(b, &args[i], false, err));
    for (uint32_t i = 0; every && i < n; i++)
        if (args[i]->type.fixed_len == FL_PG_ARRAY_1D)
            FL_TRY(array_as_list(b, &args[i], exact, err));
    return FL_OK;
}

fl_status fl_bind_nested_subscript(fl_bctx *b, fl_expr *base, const PgQuery__AIndices *ix,
                                   int32_t loc, fl_expr **out, bool *handled, fl_error *err)
{
    if (ix->is_slice) /* slices of ARRAY[...] too */
        FL_TRY(fl_bind_array_as_list(b, &base, err));
    *handled = base->type.id == FL_TYPE_LIST || base->type.id == FL_TYPE_MAP;
    if (!*handled)
        return FL_OK;
    if (base->type.id == FL_TYPE_MAP) {
        if (ix->is_slice)
            return fl_front_err(b->pc, err, FL_ETYPE, loc, "42804", "a map cannot be sliced");
        fl_expr *args[2] = {base, NULL};
        FL_TRY(fl_bind_expr(b, ix->uidx, &args[1], err));
        return call(b, "__map_get", args, 2, loc, out, err);
    }
    if (ix->is_slice) {
        fl_expr *args[3] = {base, NULL, NULL};
        FL_TRY(bound_or(b, ix->lidx, 1, loc, &args[1], err));
        FL_TRY(bound_or(b, ix->uidx, INT32_MAX, loc, &args[2], err));
        return call(b, "__list_slice", args, 3, loc, out, err);
    }
    fl_expr *args[2] = {base, NULL};
    FL_TRY(fl_bind_expr(b, ix->uidx, &args[1], err));
    return call(b, "__list_get", args, 2, loc, out, err);
}

fl_status fl_bind_struct_field(fl_bctx *b, fl_expr *s, const char *name, int32_t loc, fl_expr **out,
                               fl_error *err)
{
    if (s->type.id != FL_TYPE_STRUCT) {
        char tn[64];
        fl_type_format(&s->type, tn, sizeof tn);
        return fl_front_err(b->pc, err, FL_ETYPE, loc, "42809",
                            "column notation .%s applied to type %s, which is not a composite type",
                            name, tn);
    }
    int32_t k = -1;
    for (uint32_t i = 0; i < s->type.nchildren && k < 0; i++)
        if (s->type.children[i].name && strcmp(s->type.children[i].name, name) == 0)
            k = (int32_t)i;
    for (uint32_t i = 0; i < s->type.nchildren && k < 0; i++) /* "City" stored, city typed */
        if (s->type.children[i].name && strcasecmp(s->type.children[i].name, name) == 0)
            k = (int32_t)i;
    if (k < 0)
        return fl_front_err(b->pc, err, FL_ENOTFOUND, loc, "42703",
                            "could not identify column \"%s\" in record data type", name);
    fl_expr *args[2] = {s, int_const(b->a, k, loc)};
    if (!args[1])
        return oom(err);
    FL_TRY(call(b, "__struct_field", args, 2, loc, out, err));
    (*out)->type = s->type.children[k].type;
    (*out)->alias = s->type.children[k].name;
    return FL_OK;
}

static int op_code(const char *op)
{
    static const char *const ops[] = {"=", "<>", "<", "<=", ">", ">="};
    for (int i = 0; i < 6; i++)
        if (strcmp(op, ops[i]) == 0)
            return i;
    return strcmp(op, "!=") == 0 ? 1 : -1;
}

fl_status fl_bind_list_any(fl_bctx *b, fl_expr *x, fl_expr *list, const char *op, bool all,
                           int32_t loc, fl_expr **out, fl_error *err)
{
    int code = op_code(op);
    if (code < 0)
        return fl_front_err(b->pc, err, FL_EUNSUPPORTED, loc, "0A000",
                            "operator %s with ANY/ALL over a list is not supported", op);
    fl_expr *args[3] = {list, x, int_const(b->a, code, loc)};
    if (!args[2])
        return oom(err);
    return call(b, all ? "__list_all" : "__list_any", args, 3, loc, out, err);
}

fl_status fl_bind_row(fl_bctx *b, const PgQuery__RowExpr *r, fl_expr **out, fl_error *err)
{
    uint32_t n = (uint32_t)r->n_args;
    if (n == 0 || n > 8)
        return fl_front_err(b->pc, err, FL_EUNSUPPORTED, r->location, "0A000",
                            "ROW(...) takes 1 to 8 values");
    fl_expr *args[8];
    for (uint32_t i = 0; i < n; i++) { /* ARRAY[...] inside a struct is a list */
        FL_TRY(fl_bind_expr(b, r->args[i], &args[i], err));
        FL_TRY(fl_bind_array_as_list(b, &args[i], err));
    }
    FL_TRY(call(b, "__row", args, n, r->location, out, err));
    fl_field *f = fl_arena_calloc(b->a, n, sizeof *f);
    if (!f)
        return oom(err);
    for (uint32_t i = 0; i < n; i++) {
        char nm[16];
        snprintf(nm, sizeof nm, "f%u", i + 1);
        f[i].name = fl_arena_strdup(b->a, nm);
        if (!f[i].name)
            return oom(err);
        f[i].nullable = true;
        f[i].type = (*out)->args[i]->type;
    }
    (*out)->type = (fl_type){.id = FL_TYPE_STRUCT, .nchildren = n, .children = f};
    return FL_OK;
}

static bool is_row_ctor(const fl_expr *e)
{
    return e->kind == FL_EXPR_CALL && e->fn && strcmp(e->fn->name, "__row") == 0 &&
           e->type.id == FL_TYPE_STRUCT && e->type.nchildren == e->nargs;
}

static bool is_null_literal(const fl_expr *e)
{
    return e->kind == FL_EXPR_CONST && e->value.is_null && e->type.id == FL_TYPE_STRING;
}

fl_type fl_bind_row_literal_type(fl_arena *a, const fl_expr *e)
{
    if (!is_row_ctor(e))
        return e->type;
    fl_field *f = fl_arena_calloc(a, e->nargs, sizeof *f);
    if (!f)
        return e->type;
    for (uint32_t i = 0; i < e->nargs; i++) {
        f[i] = e->type.children[i];
        f[i].type = is_null_literal(e->args[i]) ? (fl_type){.id = FL_TYPE_STRING, .fixed_len = -1}
                                                : fl_bind_row_literal_type(a, e->args[i]);
    }
    fl_type t = e->type;
    t.children = f;
    return t;
}

/* Unknown leaves (a NULL field in every row) become text, as a lone NULL does. */
static void settle_unknown(fl_type *t)
{
    if (t->id == FL_TYPE_STRING && t->fixed_len == -1)
        t->fixed_len = 0;
    for (uint32_t i = 0; fl_type_is_nested(t) && i < t->nchildren; i++)
        settle_unknown(&t->children[i].type);
}

fl_status fl_bind_cast_row(fl_arena *a, fl_expr *e, fl_type *to, fl_expr **out, fl_error *err)
{
    settle_unknown(to);
    if (!is_row_ctor(e) || to->id != FL_TYPE_STRUCT || to->nchildren != e->nargs)
        return fl_expr_cast(a, e, to, out, err);
    for (uint32_t i = 0; i < e->nargs; i++)
        FL_TRY(fl_bind_cast_row(a, e->args[i], &to->children[i].type, &e->args[i], err));
    e->type = *to;
    *out = e;
    return FL_OK;
}

fl_status fl_bind_list_ctor(fl_bctx *b, fl_expr **args, uint32_t n, int32_t loc, fl_expr **out,
                            fl_error *err)
{
    for (uint32_t i = 0; i < n; i++)
        FL_TRY(fl_bind_array_as_list(b, &args[i], err));
    FL_TRY(call(b, "__list", args, n, loc, out, err));
    fl_field *f = fl_arena_calloc(b->a, 1, sizeof *f);
    if (!f)
        return oom(err);
    f->name = "element";
    f->nullable = true;
    f->type = args[0]->type;
    (*out)->type = (fl_type){.id = FL_TYPE_LIST, .nchildren = 1, .children = f};
    return FL_OK;
}

fl_status fl_bind_nested_call_type(fl_bctx *b, fl_expr *e, fl_error *err)
{
    if (e->kind != FL_EXPR_CALL || !e->fn || strcmp(e->fn->name, "map") != 0 || e->nargs != 2)
        return FL_OK;
    fl_field *f = fl_arena_calloc(b->a, 2, sizeof *f);
    if (!f)
        return oom(err);
    f[0] = e->args[0]->type.children[0];
    f[0].name = "key";
    f[0].nullable = false;
    f[1] = e->args[1]->type.children[0];
    f[1].name = "value";
    f[1].nullable = true;
    e->type = (fl_type){.id = FL_TYPE_MAP, .nchildren = 2, .children = f};
    return FL_OK;
}

fl_status fl_bind_column_path(fl_bctx *b, const PgQuery__ColumnRef *cr, fl_expr **out,
                              bool *handled, fl_error *err)
{
    size_t n = cr->n_fields;
    *handled = false;
    if (n < 2)
        return FL_OK;
    const char *f[8] = {0};
    for (size_t i = 0; i < n && i < 8; i++)
        if (!(f[i] = fl_front_str(cr->fields[i])))
            return FL_OK; /* a star */
    if (n > 8 || fl_scope_has(b, f[n - 2], f[n - 1]))
        return FL_OK; /* [schema.]table.column: the ordinary path */
    size_t used;
    fl_expr *e;
    if (n >= 3 && fl_scope_has(b, f[0], f[1])) {
        FL_TRY(fl_scope_lookup_expr(b, f[0], f[1], cr->location, &e, err));
        used = 2;
    } else if (fl_scope_has(b, NULL, f[0])) {
        FL_TRY(fl_scope_lookup_expr(b, NULL, f[0], cr->location, &e, err));
        used = 1;
    } else
        return FL_OK;
    for (size_t i = used; i < n; i++)
        FL_TRY(fl_bind_struct_field(b, e, f[i], cr->location, &e, err));
    *handled = true;
    *out = e;
    return FL_OK;
}
