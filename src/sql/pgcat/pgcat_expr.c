/*
 * pgcat_expr.c - expression syntax of PostgreSQL introspection queries
 * that floe's binder lacks, bound here through small hooks in bind_expr.c:
 *   - ARRAY[a, b]              -> __pg_array(a::text, ...) typed as an array
 *   - x[i]                     -> __pg_subscript(x, i) cast to x's element type
 *   - x op ANY/ALL (ARRAY[..]) -> OR/AND of x op e_i
 *   - x op ANY/ALL (array)     -> __pg_any/__pg_all(x::text, array, op), = and <> only
 *   - expr COLLATE "C"         -> expr (floe compares bytes: every collation is C)
 *   - casts to regclass, regtype, regproc(edure), regnamespace, regrole,
 *     oid, xid and to array types ('{a,b}'::text[], x::int2[])
 *   - session functions bound to constants: current_user, session_user,
 *     user, current_role, current_catalog, current_database(),
 *     current_schema(), current_schemas(bool), current_setting(name).
 * reg* casts of constants look the name up in the statement's catalog
 * snapshot (pgcat_snap.c): 'sales.orders'::regclass is that table's OID and
 * an unknown name is an error as in PostgreSQL (42P01/42704/42883). A cast
 * of a non-constant string to a reg* type is not supported (0A000); numbers
 * pass through as OIDs. reg* values are OIDs (bigint) in floe, so
 * x::regclass::text gives the number, not the name.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/sql_settings.h"
#include "sql/func/pgfunc.h"
#include "sql/parse/depth.h"
#include "sql/parse/parse_tree.h"
#include "sql/pgcat/pgcat.h"

static fl_status oom(fl_error *err)
{
    return fl_errorf(err, FL_ENOMEM, "out of memory");
}

static fl_expr *const_str(fl_arena *a, const char *s, int32_t loc)
{
    fl_value v;
    memset(&v, 0, sizeof v);
    v.type.id = FL_TYPE_STRING;
    v.v.bytes.ptr = (const uint8_t *)s;
    v.v.bytes.len = strlen(s);
    fl_expr *e = fl_expr_const(a, &v);
    if (e)
        e->location = loc;
    return e;
}

static fl_expr *const_int(fl_arena *a, int64_t x, int32_t loc)
{
    fl_value v;
    memset(&v, 0, sizeof v);
    v.type.id = FL_TYPE_INT64;
    v.v.i64 = x;
    fl_expr *e = fl_expr_const(a, &v);
    if (e)
        e->location = loc;
    return e;
}

static fl_type array_of(uint32_t elem_oid)
{
    fl_type t;
    memset(&t, 0, sizeof t);
    t.id = FL_TYPE_STRING;
    t.precision = FL_PG_ARRAY_MARK;
    t.scale = (int32_t)elem_oid;
    return t;
}

/* A copy of e with type t (for marking a STRING as an array). */
static fl_expr *retype(fl_arena *a, const fl_expr *e, const fl_type *t)
{
    fl_expr *c = fl_arena_alloc(a, sizeof *c);
    if (!c)
        return NULL;
    *c = *e;
    c->type = *t;
    if (c->kind == FL_EXPR_CONST)
        c->value.type = *t;
    return c;
}

static fl_status to_text(fl_bctx *b, fl_expr *e, fl_expr **out, fl_error *err)
{
    fl_type st = {.id = FL_TYPE_STRING};
    if (e->type.id == FL_TYPE_STRING) {
        *out = e;
        return FL_OK;
    }
    if (fl_expr_cast(b->a, e, &st, out, err) != FL_OK)
        return fl_front_err_at(b->pc, err, e->location);
    *out = fl_front_fold(b->a, *out);
    return FL_OK;
}

static fl_status call(fl_bctx *b, const char *fn, fl_expr **args, uint32_t n, int32_t loc,
                      fl_expr **out, fl_error *err)
{
    if (fl_expr_call(b->a, fn, args, n, loc, out, err) != FL_OK)
        return fl_front_err_at(b->pc, err, loc);
    return FL_OK;
}

/* ---- ARRAY[...] ---- */

static fl_status bind_array(fl_bctx *b, const PgQuery__AArrayExpr *x, fl_expr **out,
                            fl_error *err)
{
    uint32_t n = (uint32_t)x->n_elements;
    if (n > 64)
        return fl_front_err(b->pc, err, FL_ELIMIT, x->location, "54000",
                            "ARRAY[...] with more than 64 elements is not supported");
    fl_expr **args = fl_arena_calloc(b->a, n + 1, sizeof *args);
    if (!args)
        return oom(err);
    uint32_t elem = FL_PG_OID_TEXT;
    bool nested = false; /* ARRAY[ARRAY[...], ...]: a multidimensional array */
    for (uint32_t i = 0; i < n; i++) {
        FL_TRY(fl_bind_expr(b, x->elements[i], &args[i], err));
        if (i == 0 && fl_type_is_nested(&args[0]->type)) { /* ARRAY[ROW(..), ..]: a list */
            for (uint32_t k = 1; k < n; k++)
                FL_TRY(fl_bind_expr(b, x->elements[k], &args[k], err));
            return fl_bind_list_ctor(b, args, n, x->location, out, err);
        }
        if (i == 0 && fl_pg_is_array_text(&args[i]->type)) {
            nested = true;
            elem = (uint32_t)args[i]->type.scale;
        } else if (i == 0 &&
                   !(args[i]->type.id == FL_TYPE_STRING && args[i]->type.fixed_len == -1)) {
            elem = fl_pg_type_oid(&args[i]->type);
        }
        bool unknown = args[i]->type.id == FL_TYPE_STRING && args[i]->type.fixed_len == -1;
        if (nested && !fl_pg_is_array_text(&args[i]->type) && !unknown)
            return fl_front_err(b->pc, err, FL_ETYPE,
                                fl_pgq_location((const ProtobufCMessage *)x->elements[i]), "42804",
                                "the elements of a multidimensional ARRAY[...] must be arrays");
        FL_TRY(to_text(b, args[i], &args[i], err));
    }
    /* sub-arrays go in as they are ({{1,2},{3,4}}, as PostgreSQL), not quoted
     * as strings: quoting escaped every level again, so n levels took 2^n bytes */
    fl_expr *e;
    FL_TRY(call(b, nested ? "__pg_array_md" : "__pg_array", args, n, x->location, &e, err));
    fl_type t = array_of(elem);
    if (!nested)
        t.fixed_len = FL_PG_ARRAY_1D;
    *out = retype(b->a, fl_front_fold(b->a, e), &t);
    return *out ? FL_OK : oom(err);
}

/* ---- x[i] ---- */

static fl_status subscript(fl_bctx *b, fl_expr *arr, const PgQuery__AIndices *ix, int32_t loc,
                           fl_expr **out, fl_error *err)
{
    bool nested; /* list and map values: src/sql/bind/bind_nested.c */
    FL_TRY(fl_bind_nested_subscript(b, arr, ix, loc, out, &nested, err));
    if (nested)
        return FL_OK;
    if (ix->is_slice || !ix->uidx)
        return fl_front_err(b->pc, err, FL_EUNSUPPORTED, loc, "0A000",
                            "array slices are not supported");
    if (arr->type.id != FL_TYPE_STRING)
        return fl_front_err(b->pc, err, FL_ETYPE, loc, "42804",
                            "cannot subscript a value that is not an array");
    uint32_t elem = fl_pg_is_array_text(&arr->type) ? (uint32_t)arr->type.scale : FL_PG_OID_TEXT;
    fl_expr *args[2] = {arr, NULL};
    FL_TRY(fl_bind_expr(b, ix->uidx, &args[1], err));
    fl_expr *e;
    FL_TRY(call(b, "__pg_subscript", args, 2, loc, &e, err));
    fl_type et = fl_pgcat_type_for_oid(elem);
    if (et.id != FL_TYPE_STRING) {
        if (fl_expr_cast(b->a, e, &et, &e, err) != FL_OK)
            return fl_front_err_at(b->pc, err, loc);
    }
    *out = fl_front_fold(b->a, e);
    return FL_OK;
}

/* type.scale of aclexplode()'s record (grantor oid, grantee oid, privilege_type text,
 * is_grantable bool); _pg_expandarray's (x, n) records carry the element OID there. */
#define ACL_RECORD (-1034)

/* Field idx (1-based) of a record kept as array text "{a,b,...}", cast to et. */
static fl_status record_item(fl_bctx *b, fl_expr *rec, int idx, fl_type et, fl_expr **out,
                             fl_error *err)
{
    fl_expr *args[2] = {rec, const_int(b->a, idx, rec->location)};
    if (!args[1])
        return oom(err);
    fl_type i32 = {.id = FL_TYPE_INT32};
    if (fl_expr_cast(b->a, args[1], &i32, &args[1], err) != FL_OK)
        return fl_front_err_at(b->pc, err, rec->location);
    fl_expr *e;
    FL_TRY(call(b, "__pg_subscript", args, 2, rec->location, &e, err));
    if (et.id != FL_TYPE_STRING && fl_expr_cast(b->a, e, &et, &e, err) != FL_OK)
        return fl_front_err_at(b->pc, err, rec->location);
    *out = e;
    return FL_OK;
}

static fl_status acl_field(fl_bctx *b, fl_expr *rec, const char *field, fl_expr **out,
                           fl_error *err)
{
    static const char *const names[] = {"grantor", "grantee", "privilege_type", "is_grantable"};
    static const fl_type_id types[] = {FL_TYPE_INT64, FL_TYPE_INT64, FL_TYPE_STRING,
                                       FL_TYPE_BOOLEAN};
    int idx = 0;
    for (int k = 0; k < 4 && !idx; k++)
        if (strcmp(field, names[k]) == 0)
            idx = k + 1;
    if (!idx)
        return fl_front_err(b->pc, err, FL_ENOTFOUND, rec->location, "42703",
                            "column \"%s\" not found in data type record", field);
    return record_item(b, rec, idx, (fl_type){.id = types[idx - 1]}, out, err);
}

/* (rec).x / (rec).n of _pg_expandarray's record "{x,n}", or an aclexplode() field. */
static fl_status record_field(fl_bctx *b, fl_expr *rec, const char *field, fl_expr **out,
                              fl_error *err)
{
    if (rec->type.scale == ACL_RECORD)
        return acl_field(b, rec, field, out, err);
    int idx = strcmp(field, "x") == 0 ? 1 : strcmp(field, "n") == 0 ? 2 : 0;
    if (!idx)
        return fl_front_err(b->pc, err, FL_ENOTFOUND, rec->location, "42703",
                            "column \"%s\" not found in data type record", field);
    fl_type et = idx == 2 ? (fl_type){.id = FL_TYPE_INT32}
                          : fl_pgcat_type_for_oid((uint32_t)rec->type.scale);
    fl_expr *e;
    FL_TRY(record_item(b, rec, idx, et, &e, err));
    *out = fl_front_fold(b->a, e);
    return FL_OK;
}

static fl_status bind_indirection(fl_bctx *b, const PgQuery__AIndirection *x, fl_expr **out,
                                  fl_error *err)
{
    fl_expr *e;
    FL_TRY(fl_bind_expr(b, x->arg, &e, err));
    for (size_t i = 0; i < x->n_indirection; i++) {
        const PgQuery__Node *n = x->indirection[i];
        if (n->node_case == PG_QUERY__NODE__NODE_STRING &&
            e->type.id == FL_TYPE_STRING && e->type.precision == FL_PG_RECORD_MARK) {
            FL_TRY(record_field(b, e, n->string->sval, &e, err));
            continue;
        }
        if (n->node_case == PG_QUERY__NODE__NODE_STRING) { /* (s).f */
            FL_TRY(fl_bind_struct_field(b, e, n->string->sval, e->location, &e, err));
            continue;
        }
        if (n->node_case != PG_QUERY__NODE__NODE_A_INDICES)
            return fl_front_err(b->pc, err, FL_EUNSUPPORTED, e->location, "0A000",
                                "field selection from a composite value is not supported");
        FL_TRY(subscript(b, e, n->a_indices, e->location, &e, err));
    }
    *out = e;
    return FL_OK;
}

/* ---- x op ANY/ALL (...) ---- */


fl_status fl_pgcat_bind_aexpr(fl_bctx *b, const PgQuery__AExpr *x, fl_expr **out, bool *handled,
                              fl_error *err)
{
    bool any = x->kind == PG_QUERY__A__EXPR__KIND__AEXPR_OP_ANY;
    bool all = x->kind == PG_QUERY__A__EXPR__KIND__AEXPR_OP_ALL;
    *handled = any || all;
    if (!*handled)
        return FL_OK;
    const char *op = x->n_name ? fl_front_str(x->name[x->n_name - 1]) : "=";
    const PgQuery__Node *r = x->rexpr;
    if (r && r->node_case == PG_QUERY__NODE__NODE_A_ARRAY_EXPR) {
        /* x op ANY (ARRAY[a, b]) = (x op a) OR (x op b) */
        const PgQuery__AArrayExpr *ax = r->a_array_expr;
        uint32_t n = (uint32_t)ax->n_elements;
        fl_type bt = {.id = FL_TYPE_BOOLEAN};
        if (n == 0) {
            fl_value v;
            memset(&v, 0, sizeof v);
            v.type = bt;
            v.v.b = all;
            *out = fl_expr_const(b->a, &v);
            return *out ? FL_OK : oom(err);
        }
        fl_expr *e = fl_expr_new(b->a, any ? FL_EXPR_OR : FL_EXPR_AND, &bt, n);
        if (!e)
            return oom(err);
        e->location = x->location;
        for (uint32_t i = 0; i < n; i++) {
            PgQuery__AExpr cmp = *x;
            cmp.kind = PG_QUERY__A__EXPR__KIND__AEXPR_OP;
            cmp.rexpr = ax->elements[i];
            PgQuery__Node node = PG_QUERY__NODE__INIT;
            node.node_case = PG_QUERY__NODE__NODE_A_EXPR;
            node.a_expr = &cmp;
            FL_TRY(fl_bind_expr(b, &node, &e->args[i], err));
        }
        *out = fl_front_fold(b->a, e);
        return FL_OK;
    }
    fl_expr *args[3];
    FL_TRY(fl_bind_expr(b, x->lexpr, &args[0], err));
    FL_TRY(fl_bind_expr(b, r, &args[1], err));
    bool eq = strcmp(op, "=") == 0 || strcmp(op, "<>") == 0 || strcmp(op, "!=") == 0;
    if (!eq) /* < > <= >= over ARRAY[...]: typed, as a list */
        FL_TRY(fl_bind_array_as_list(b, &args[1], err));
    if (args[1]->type.id == FL_TYPE_LIST) /* list values: src/sql/bind/bind_nested.c */
        return fl_bind_list_any(b, args[0], args[1], op, all, x->location, out, err);
    if (strcmp(op, "=") != 0 && strcmp(op, "<>") != 0 && strcmp(op, "!=") != 0)
        return fl_front_err(b->pc, err, FL_EUNSUPPORTED, x->location, "0A000",
                            "operator %s with ANY/ALL over an array is not supported (only = and "
                            "<>)",
                            op);
    if (args[1]->type.id != FL_TYPE_STRING)
        return fl_front_err(b->pc, err, FL_ETYPE, x->location, "42809",
                            "op ANY/ALL (array) requires array on right side");
    FL_TRY(to_text(b, args[0], &args[0], err));
    args[2] = const_str(b->a, strcmp(op, "=") == 0 ? "=" : "<>", x->location);
    if (!args[2])
        return oom(err);
    return call(b, any ? "__pg_any" : "__pg_all", args, 3, x->location, out, err);
}

/* ---- reg* casts ---- */

/* "a.b" / "\"A\".b" -> schema (may be NULL) and name, unquoted (quoted parts keep case). */
static void split_name(fl_arena *a, const char *s, const char **nsp, const char **name)
{
    char *parts[2] = {NULL, NULL};
    int np = 0;
    const char *p = s;
    while (*p && np < 2) {
        char *buf = fl_arena_alloc(a, strlen(p) + 1);
        if (!buf)
            break;
        size_t o = 0;
        if (*p == '"') {
            p++;
            while (*p && !(*p == '"' && p[1] != '"')) {
                if (*p == '"')
                    p++;
                buf[o++] = *p++;
            }
            if (*p == '"')
                p++;
        } else {
            while (*p && *p != '.')
                buf[o++] = (char)tolower((unsigned char)*p++);
        }
        buf[o] = 0;
        parts[np++] = buf;
        if (*p == '.')
            p++;
        else
            break;
    }
    *nsp = np == 2 ? parts[0] : NULL;
    *name = np == 2 ? parts[1] : parts[0] ? parts[0] : "";
}

static bool all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

static fl_status lookup_reg(fl_bctx *b, const char *type, const char *text, int32_t loc,
                            int64_t *oid, fl_error *err)
{
    if (all_digits(text)) {
        *oid = strtoll(text, NULL, 10);
        return FL_OK;
    }
    const char *nsp, *name;
    split_name(b->a, text, &nsp, &name);
    if (strcmp(type, "regclass") == 0) {
        fl_pgcat_snap *s;
        FL_TRY(fl_pgcat_snap_get(b->pc, &s, err));
        const fl_pgcat_rel *r = fl_pgcat_snap_find(s, nsp, name);
        if (!r && !nsp)
            r = fl_pgcat_snap_find(s, s->schema, name);
        if (!r)
            return fl_pgcat_no_relation(b->pc, s, text, loc, err);
        *oid = r->oid;
        return FL_OK;
    }
    if (strcmp(type, "regnamespace") == 0) {
        fl_pgcat_snap *s;
        FL_TRY(fl_pgcat_snap_get(b->pc, &s, err));
        for (uint32_t i = 0; i < s->nnsps; i++)
            if (strcmp(s->nsps[i].name, text) == 0 || strcmp(s->nsps[i].name, name) == 0) {
                *oid = s->nsps[i].oid;
                return FL_OK;
            }
        return fl_front_err(b->pc, err, FL_ENOTFOUND, loc, "3F000",
                            "schema \"%s\" does not exist", text);
    }
    if (strcmp(type, "regrole") == 0) {
        if (strcmp(name, "floe") == 0) {
            *oid = 10;
            return FL_OK;
        }
        return fl_front_err(b->pc, err, FL_ENOTFOUND, loc, "42704", "role \"%s\" does not exist",
                            text);
    }
    if (strcmp(type, "regtype") == 0) {
        const fl_pg_type_info *ti = fl_pg_type_by_name(name);
        fl_type t;
        fl_error e2;
        if (!ti && fl_sql_type_parse(name, NULL, 0, &t, &e2) == FL_OK)
            ti = fl_pg_type_by_oid(fl_pg_type_oid(&t));
        if (!ti)
            return fl_front_err(b->pc, err, FL_ENOTFOUND, loc, "42704",
                                "type \"%s\" does not exist", text);
        *oid = ti->oid;
        return FL_OK;
    }
    /* regproc / regprocedure: "name" or "name(args)" */
    char *paren = strchr((char *)name, '(');
    if (paren)
        *paren = 0;
    if (strcmp(name, "array_in") == 0) {
        *oid = 750;
        return FL_OK;
    }
    if (strcmp(name, "array_recv") == 0) {
        *oid = 2400;
        return FL_OK;
    }
    if (fl_func_exists(name, FL_FUNC_SCALAR) || fl_func_exists(name, FL_FUNC_AGGREGATE) ||
        fl_func_exists(name, FL_FUNC_WINDOW)) {
        *oid = fl_pgcat_proc_oid(name, 0);
        return FL_OK;
    }
    return fl_front_err(b->pc, err, FL_ENOTFOUND, loc, "42883", "function \"%s\" does not exist",
                        text);
}

/* x::regclass for a non-constant x: a lookup in the statement's relations. */
static fl_status regclass_call(fl_bctx *b, fl_expr *arg, int32_t loc, fl_expr **out,
                               fl_error *err)
{
    fl_pgcat_snap *s;
    FL_TRY(fl_pgcat_snap_get(b->pc, &s, err));
    fl_pg_name_table *t = fl_arena_calloc(b->a, 1, sizeof *t);
    if (!t)
        return oom(err);
    t->names = fl_arena_calloc(b->a, 2 * (size_t)s->nrels + 1, sizeof *t->names);
    t->oids = fl_arena_calloc(b->a, 2 * (size_t)s->nrels + 1, sizeof *t->oids);
    if (!t->names || !t->oids)
        return oom(err);
    for (uint32_t i = 0; i < s->nrels; i++) {
        const fl_pgcat_rel *r = &s->rels[i];
        t->names[t->n] = fl_arena_sprintf(b->a, "%s.%s", r->nsp, r->name);
        t->oids[t->n++] = r->oid;
        if (strcmp(r->nsp, s->schema) == 0 || strcmp(r->nsp, "pg_catalog") == 0) {
            t->names[t->n] = r->name;
            t->oids[t->n++] = r->oid;
        }
    }
    FL_TRY(call(b, "__pg_regclass", &arg, 1, loc, out, err));
    (*out)->bind_data = t;
    return FL_OK;
}

static const char *type_last_name(const PgQuery__TypeName *tn)
{
    return tn->n_names ? fl_front_str(tn->names[tn->n_names - 1]) : NULL;
}

static bool is_reg_type(const char *n)
{
    static const char *const regs[] = {"regclass", "regtype",  "regproc", "regprocedure",
                                       "regnamespace", "regrole", "oid", "xid", "cid",
                                       "regoper", "regconfig"};
    for (size_t i = 0; n && i < sizeof regs / sizeof regs[0]; i++)
        if (strcmp(n, regs[i]) == 0)
            return true;
    return false;
}

/* Element type OID of an array type name ("int2vector", "_text", or base name with []). */
static uint32_t array_elem_oid(fl_bctx *b, const PgQuery__TypeName *tn, const char *n)
{
    if (strcmp(n, "int2vector") == 0)
        return FL_PG_OID_INT2;
    if (strcmp(n, "oidvector") == 0)
        return FL_PG_OID_OID;
    if (!tn->n_array_bounds) {
        const fl_pg_type_info *ti = n[0] == '_' ? fl_pg_type_by_name(n) : NULL;
        return ti && ti->elem_oid ? ti->elem_oid : 0;
    }
    const fl_pg_type_info *ti = fl_pg_type_by_name(n);
    if (ti)
        return ti->oid;
    PgQuery__TypeName copy = *tn;
    copy.n_array_bounds = 0;
    fl_type t;
    fl_error e2;
    if (fl_front_type_name(b->pc, &copy, &t, &e2) == FL_OK)
        return fl_pg_type_oid(&t);
    return FL_PG_OID_TEXT;
}


/* list::type[]: a list column cast element by element (cast_nested.c),
 * not PostgreSQL array text. */
static fl_status cast_list(fl_bctx *b, fl_expr *arg, const PgQuery__TypeName *tn, int32_t loc,
                           fl_expr **out, fl_error *err)
{
    PgQuery__TypeName copy = *tn;
    copy.n_array_bounds = 0;
    fl_type et;
    *out = arg;
    if (fl_front_type_name(b->pc, &copy, &et, err) != FL_OK ||
        fl_bind_cast_to_list(b->a, out, &et, err) != FL_OK)
        return fl_front_err_at(b->pc, err, loc);
    return FL_OK;
}

fl_status fl_pgcat_bind_cast(fl_bctx *b, const PgQuery__TypeCast *tc, fl_expr **out,
                             bool *handled, fl_error *err)
{
    FL_TRY(fl_pgcat_bind_regcast(b, tc, out, handled, err)); /* pgkeys: pgcat_fn.c */
    if (*handled)
        return FL_OK;
    const PgQuery__TypeName *tn = tc->type_name;
    const char *n = tn ? type_last_name(tn) : NULL;
    *handled = false;
    if (!n)
        return FL_OK;
    uint32_t elem = array_elem_oid(b, tn, n);
    if (!elem && !is_reg_type(n))
        return FL_OK;
    *handled = true;
    fl_expr *arg;
    FL_TRY(fl_bind_expr(b, tc->arg, &arg, err));
    if (elem && arg->type.id == FL_TYPE_LIST && tn->n_array_bounds)
        return cast_list(b, arg, tn, tc->location, out, err);
    if (elem) {
        if (arg->type.id != FL_TYPE_STRING)
            return fl_front_err(b->pc, err, FL_EUNSUPPORTED, tc->location, "0A000",
                                "cast of a non-array value to an array type is not supported");
        fl_type t = array_of(elem);
        if (arg->kind == FL_EXPR_CONST && !arg->value.is_null) {
            const uint8_t *p = arg->value.v.bytes.ptr;
            size_t l = arg->value.v.bytes.len;
            bool vec = elem == FL_PG_OID_INT2 || elem == FL_PG_OID_OID;
            size_t ws = 0; /* PostgreSQL's array_in skips leading white space */
            while (ws < l && (p[ws] == ' ' || p[ws] == '\t' || p[ws] == '\n' || p[ws] == '\r'))
                ws++;
            if (!(ws < l && (p[ws] == '{' || p[ws] == '[')) && !vec)
                return fl_front_err(b->pc, err, FL_ESYNTAX, tc->location, "22P02",
                                    "malformed array literal: \"%.*s\" (array value must start "
                                    "with \"{\")",
                                    (int)(l > 64 ? 64 : l), (const char *)p);
            while (l > ws && (p[l - 1] == ' ' || p[l - 1] == '\t' || p[l - 1] == '\n' ||
                              p[l - 1] == '\r'))
                l--;
            arg->value.v.bytes.ptr = p + ws; /* the bound constant is this statement's own */
            arg->value.v.bytes.len = l - ws;
        }
        *out = retype(b->a, arg, &t);
        return *out ? FL_OK : oom(err);
    }
    fl_type i64 = {.id = FL_TYPE_INT64};
    if (arg->type.id == FL_TYPE_STRING && strcmp(n, "oid") != 0 && strcmp(n, "xid") != 0 &&
        strcmp(n, "cid") != 0) {
        if (arg->kind != FL_EXPR_CONST && strcmp(n, "regclass") == 0)
            return regclass_call(b, arg, tc->location, out, err);
        if (arg->kind != FL_EXPR_CONST)
            return fl_front_err(b->pc, err, FL_EUNSUPPORTED, tc->location, "0A000",
                                "cast of a non-constant string to %s is not supported", n);
        if (arg->value.is_null) {
            fl_value v;
            memset(&v, 0, sizeof v);
            v.type = i64;
            v.is_null = true;
            *out = fl_expr_const(b->a, &v);
            return *out ? FL_OK : oom(err);
        }
        char *text = fl_arena_strndup(b->a, (const char *)arg->value.v.bytes.ptr,
                                      arg->value.v.bytes.len);
        int64_t oid = 0;
        if (!text)
            return oom(err);
        FL_TRY(lookup_reg(b, n, text, tc->location, &oid, err));
        *out = const_int(b->a, oid, tc->location);
        return *out ? FL_OK : oom(err);
    }
    if (fl_expr_cast(b->a, arg, &i64, out, err) != FL_OK)
        return fl_front_err_at(b->pc, err, tc->location);
    *out = fl_front_fold(b->a, *out);
    return FL_OK;
}

/* ---- session functions ---- */

static fl_status schemas_array(fl_bctx *b, bool implicit, int32_t loc, fl_expr **out,
                               fl_error *err)
{
    fl_pgcat_snap *s;
    FL_TRY(fl_pgcat_snap_get(b->pc, &s, err));
    const char *txt = implicit ? fl_arena_sprintf(b->a, "{pg_catalog,%s}", s->schema)
                               : fl_arena_sprintf(b->a, "{%s}", s->schema);
    if (!txt)
        return oom(err);
    fl_expr *c = const_str(b->a, txt, loc);
    fl_type t = array_of(FL_PG_OID_NAME);
    *out = c ? retype(b->a, c, &t) : NULL;
    return *out ? FL_OK : oom(err);
}

static const char *setting(fl_bctx *b, const char *name)
{
    const char *v = fl_pgcat_setting_show(b->pc, name);
    return v ? fl_arena_strdup(b->a, v) : NULL;
}

/* set_config(name, value, is_local) with constant arguments: the SET is
 * made while the statement is planned (so also when it is prepared) and
 * the new value is the call's constant result; is_local is treated as
 * SET LOCAL is (a session-wide SET: src/sql/stmt/session_stmt.c). */
static fl_status set_config(fl_bctx *b, const PgQuery__FuncCall *f, int32_t loc, fl_expr **out,
                            fl_error *err)
{
    fl_expr *a[3];
    for (int i = 0; i < 3; i++)
        FL_TRY(fl_bind_expr(b, f->args[i], &a[i], err));
    if (a[0]->kind != FL_EXPR_CONST || a[0]->value.is_null || a[0]->type.id != FL_TYPE_STRING ||
        a[1]->kind != FL_EXPR_CONST || (!a[1]->value.is_null && a[1]->type.id != FL_TYPE_STRING))
        return fl_front_err(b->pc, err, FL_EUNSUPPORTED, loc, "0A000",
                            "set_config() needs a constant name and value");
    if (!b->pc->session)
        return fl_front_err(b->pc, err, FL_EUNSUPPORTED, loc, "0A000",
                            "set_config() needs a SQL session");
    char *nm = fl_arena_strndup(b->a, (const char *)a[0]->value.v.bytes.ptr,
                                a[0]->value.v.bytes.len);
    char *val = a[1]->value.is_null ? NULL
                                    : fl_arena_strndup(b->a, (const char *)a[1]->value.v.bytes.ptr,
                                                       a[1]->value.v.bytes.len);
    if (!nm || (!a[1]->value.is_null && !val))
        return oom(err);
    fl_status rc = fl_sql_set(b->pc->session, nm, val ? val : "", err);
    if (rc != FL_OK) {
        char msg[FL_ERROR_MSG_MAX];
        snprintf(msg, sizeof msg, "%s", err->msg);
        char state[6];
        snprintf(state, sizeof state, "%s", fl_error_sqlstate(err));
        return fl_front_err(b->pc, err, rc, loc, state, "%s", msg);
    }
    const char *v = setting(b, nm);
    *out = const_str(b->a, v ? v : "", loc);
    return *out ? FL_OK : oom(err);
}


fl_status fl_pgcat_bind_func(fl_bctx *b, const PgQuery__FuncCall *f, fl_expr **out,
                             bool *handled, fl_error *err)
{
    FL_TRY(fl_pgcat_bind_catfunc(b, f, out, handled, err)); /* pgkeys: pgcat_fn.c */
    if (*handled)
        return FL_OK;
    if (f->over || !f->n_funcname)
        return FL_OK;
    const char *name = fl_front_str(f->funcname[f->n_funcname - 1]);
    if (!name)
        return FL_OK;
    int32_t loc = f->location;
    size_t na = f->n_args;
    FL_TRY(fl_pgfunc_bind_relinfo(b, f, name, out, handled, err)); /* pgrelinfo.c */
    if (*handled)
        return FL_OK;
    FL_TRY(fl_pgfunc_bind_privilege(b, f, name, out, handled, err)); /* pgprivs.c */
    if (*handled)
        return FL_OK;
    fl_pgcat_snap *s = NULL;
    bool subs = strcmp(name, "generate_subscripts") == 0 && na == 2;
    bool acl = strcmp(name, "aclexplode") == 0 && na == 1;
    if (((strcmp(name, "unnest") == 0 || strcmp(name, "_pg_expandarray") == 0) && na == 1) ||
        subs || acl) {
        *handled = true;
        fl_expr *a;
        FL_TRY(fl_bind_expr(b, f->args[0], &a, err));
        if (a->type.id != FL_TYPE_STRING)
            return fl_front_err(b->pc, err, FL_ETYPE, loc, "42804",
                                "%s() needs an array argument", name);
        /* a set-returning function over an empty array yields no rows: the
         * block keeps only rows whose array has elements (one-element arrays
         * are expanded by the kernel, longer ones are an error there) */
        fl_expr *card, *zero = const_int(b->a, 0, loc), *cond;
        FL_TRY(call(b, "cardinality", &a, 1, loc, &card, err));
        fl_expr *cmp[2] = {card, zero};
        if (!zero)
            return oom(err);
        FL_TRY(call(b, ">", cmp, 2, loc, &cond, err));
        FL_TRY(fl_bctx_add_conj(b, cond, err));
        if (subs) {
            fl_expr *sa[2] = {a, NULL};
            FL_TRY(fl_bind_expr(b, f->args[1], &sa[1], err));
            return call(b, name, sa, 2, loc, out, err);
        }
        uint32_t elem = fl_pg_is_array_text(&a->type) ? (uint32_t)a->type.scale : FL_PG_OID_TEXT;
        fl_expr *e;
        FL_TRY(call(b, name, &a, 1, loc, &e, err));
        if (acl) {
            fl_type rt = {.id = FL_TYPE_STRING, .precision = FL_PG_RECORD_MARK,
                          .scale = ACL_RECORD};
            *out = retype(b->a, e, &rt);
            return *out ? FL_OK : oom(err);
        }
        if (name[0] == '_') {
            fl_type rt = {.id = FL_TYPE_STRING, .precision = FL_PG_RECORD_MARK,
                          .scale = (int32_t)elem};
            *out = retype(b->a, e, &rt);
            return *out ? FL_OK : oom(err);
        }
        fl_type et = fl_pgcat_type_for_oid(elem);
        if (et.id != FL_TYPE_STRING && fl_expr_cast(b->a, e, &et, &e, err) != FL_OK)
            return fl_front_err_at(b->pc, err, loc);
        *out = e;
        return FL_OK;
    }
    if (strcmp(name, "current_database") == 0 && na == 0) {
        *handled = true;
        FL_TRY(fl_pgcat_snap_get(b->pc, &s, err));
        *out = const_str(b->a, s->database, loc);
    } else if (strcmp(name, "current_schema") == 0 && na == 0) {
        *handled = true;
        FL_TRY(fl_pgcat_snap_get(b->pc, &s, err));
        *out = const_str(b->a, s->schema, loc);
    } else if ((strcmp(name, "current_user") == 0 || strcmp(name, "session_user") == 0) &&
               na == 0) {
        *handled = true;
        FL_TRY(fl_pgcat_snap_get(b->pc, &s, err));
        *out = const_str(b->a, s->user, loc);
    } else if (strcmp(name, "current_schemas") == 0 && na == 1) {
        *handled = true;
        fl_expr *a;
        FL_TRY(fl_bind_expr(b, f->args[0], &a, err));
        if (a->kind != FL_EXPR_CONST || a->type.id != FL_TYPE_BOOLEAN)
            return fl_front_err(b->pc, err, FL_EUNSUPPORTED, loc, "0A000",
                                "current_schemas() needs a constant boolean argument");
        return schemas_array(b, !a->value.is_null && a->value.v.b, loc, out, err);
    } else if (strcmp(name, "set_config") == 0 && na == 3) {
        *handled = true;
        return set_config(b, f, loc, out, err);
    } else if (strcmp(name, "current_setting") == 0 && (na == 1 || na == 2)) {
        *handled = true;
        fl_expr *a, *m = NULL;
        FL_TRY(fl_bind_expr(b, f->args[0], &a, err));
        if (na == 2)
            FL_TRY(fl_bind_expr(b, f->args[1], &m, err));
        if (a->kind != FL_EXPR_CONST || a->type.id != FL_TYPE_STRING || a->value.is_null)
            return fl_front_err(b->pc, err, FL_EUNSUPPORTED, loc, "0A000",
                                "current_setting() needs a constant setting name");
        FL_TRY(fl_pgcat_snap_get(b->pc, &s, err));
        char *nm = fl_arena_strndup(b->a, (const char *)a->value.v.bytes.ptr,
                                    a->value.v.bytes.len);
        if (!nm)
            return oom(err);
        const char *v = setting(b, nm);
        bool missing_ok = m && m->kind == FL_EXPR_CONST && !m->value.is_null &&
                          m->type.id == FL_TYPE_BOOLEAN && m->value.v.b;
        if (!v && !missing_ok)
            return fl_front_err(b->pc, err, FL_ENOTFOUND, loc, "42704",
                                "unrecognized configuration parameter \"%s\"", nm);
        if (!v) {
            fl_value nv;
            memset(&nv, 0, sizeof nv);
            nv.type.id = FL_TYPE_STRING;
            nv.is_null = true;
            *out = fl_expr_const(b->a, &nv);
        } else {
            *out = const_str(b->a, v, loc);
        }
    } else {
        return FL_OK;
    }
    return *out ? FL_OK : oom(err);
}


fl_status fl_pgcat_bind_svf(fl_bctx *b, const PgQuery__SQLValueFunction *v, fl_expr **out,
                            bool *handled, fl_error *err)
{
    *handled = false;
    fl_pgcat_snap *s;
    switch (v->op) {
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_USER:
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_ROLE:
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_SESSION_USER:
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_USER:
        *handled = true;
        FL_TRY(fl_pgcat_snap_get(b->pc, &s, err));
        *out = const_str(b->a, s->user, v->location);
        break;
    case PG_QUERY__SQLVALUE_FUNCTION_OP__SVFOP_CURRENT_CATALOG:
        *handled = true;
        FL_TRY(fl_pgcat_snap_get(b->pc, &s, err));
        *out = const_str(b->a, s->database, v->location);
        break;
    default: return FL_OK;
    }
    return *out ? FL_OK : oom(err);
}

fl_status fl_pgcat_bind_expr(fl_bctx *b, const PgQuery__Node *n, fl_expr **out, bool *handled,
                             fl_error *err)
{
    *handled = true;
    switch (n->node_case) {
    case PG_QUERY__NODE__NODE_A_ARRAY_EXPR: return bind_array(b, n->a_array_expr, out, err);
    case PG_QUERY__NODE__NODE_A_INDIRECTION: return bind_indirection(b, n->a_indirection, out, err);
    case PG_QUERY__NODE__NODE_COLLATE_CLAUSE:
        return fl_bind_expr(b, n->collate_clause->arg, out, err);
    default: *handled = false; return FL_OK;
    }
}
