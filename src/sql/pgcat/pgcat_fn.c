/*
 * pgcat_fn.c - catalog functions whose answer depends on the statement's
 * catalog snapshot, and the text form of reg* values:
 *   pg_get_constraintdef(oid [, pretty])        "PRIMARY KEY (id)"
 *   pg_get_indexdef(oid [, column, pretty])     "CREATE UNIQUE INDEX t_pkey ON ns.t USING btree (id)",
 *                                               or the column-th key column's name
 *   pg_get_function_result(oid)                 "text", "SETOF integer"
 *   pg_get_function_arguments(oid) / pg_get_function_identity_arguments(oid)
 *                                               "text, integer"
 *   pg_get_userbyid(oid)                        the session user for 10, else "unknown (OID=n)"
 *   x::regclass::text, ::regtype::text, ::regproc::text, ::regprocedure::text,
 *   ::regnamespace::text, ::regrole::text       the object's name (a relation
 *                                               schema-qualified when its schema is not on
 *                                               the search path); the number for unknown OIDs
 *   'name'::regrole                             10 for the session user, else 42704
 *
 * DESIGN
 *   Each is bound (hooks at the top of pgcat_expr.c's fl_pgcat_bind_func and
 *   fl_pgcat_bind_cast) to a call of one kernel, __pg_catalog_lookup(key),
 *   whose bind_data is a table key -> text sorted by key, built now from the
 *   snapshot (pgcat_snap.c) in the planner arena; the kernel binary-searches
 *   it per row, so a join over pg_class calling pg_get_indexdef runs at
 *   vector speed and constant arguments fold at plan time. pg_get_indexdef's
 *   column number is folded into the key (oid * 64 + column).
 *   The kernel is not in the function registry (it is only reachable through
 *   these hooks).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql/func/func_internal.h"
#include "sql/parse/parse_tree.h"
#include "sql/pgcat/pgcat.h"

typedef enum miss {
    MISS_NULL = 0, /* NULL, as PostgreSQL's pg_get_*def for unknown OIDs */
    MISS_NUMBER,   /* the OID's digits, as regclass/regtype output */
    MISS_UNKNOWN,  /* "unknown (OID=n)", as pg_get_userbyid */
} miss;

typedef struct entry {
    int64_t key;
    const char *text;
} entry;

typedef struct lookup {
    entry *v;
    uint32_t n, cap;
    miss on_miss;
} lookup;

static fl_status oom(fl_error *err)
{
    return fl_errorf(err, FL_ENOMEM, "out of memory");
}

static fl_status put(fl_arena *a, lookup *t, int64_t key, const char *text, fl_error *err)
{
    if (!text)
        return oom(err);
    if (t->n == t->cap) {
        uint32_t ncap = t->cap ? 2 * t->cap : 64;
        entry *nv = fl_arena_alloc(a, (size_t)ncap * sizeof *nv);
        if (!nv)
            return oom(err);
        if (t->n)
            memcpy(nv, t->v, (size_t)t->n * sizeof *nv);
        t->v = nv;
        t->cap = ncap;
    }
    t->v[t->n].key = key;
    t->v[t->n].text = text;
    t->n++;
    return FL_OK;
}

static int cmp_entry(const void *x, const void *y)
{
    int64_t a = ((const entry *)x)->key, b = ((const entry *)y)->key;
    return a < b ? -1 : a > b;
}

static const char *find(const lookup *t, int64_t key)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (t->v[mid].key == key)
            return t->v[mid].text;
        if (t->v[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static bool r_lookup(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1 || a[0].id != FL_TYPE_INT64)
        return false;
    at[0] = a[0];
    *r = fl_mk(FL_TYPE_STRING);
    return true;
}

static fl_status k_lookup(fl_fn_call *c, fl_error *err)
{
    const lookup *t = c->expr->bind_data;
    fl_unified u;
    fl_vector_unify(c->args[0], &u);
    strout so;
    strout_init_call(&so, c);
    FOR_ROWS(c->sel, c->nrows, i, {
        int64_t key = UV(u, int64_t, i);
        const char *s = find(t, key);
        char num[48];
        if (!s && t->on_miss == MISS_NUMBER) {
            snprintf(num, sizeof num, "%lld", (long long)key);
            s = num;
        } else if (!s && t->on_miss == MISS_UNKNOWN) {
            snprintf(num, sizeof num, "unknown (OID=%lld)", (long long)key);
            s = num;
        }
        if (s)
            FL_TRY(strout_put(&so, i, s, strlen(s), err));
        else
            FL_TRY(fl_out_null(c->out, i, err));
    });
    strout_finish(&so, c->nrows);
    return FL_OK;
}

static const fl_func lookup_fn = {.name = "__pg_catalog_lookup",
                                  .kind = FL_FUNC_SCALAR,
                                  .deterministic = true,
                                  .resolve = r_lookup,
                                  .kernel = k_lookup};

/* __pg_catalog_lookup(key) over table t (sorted now). */
static fl_status lookup_call(fl_bctx *b, fl_expr *key, lookup *t, int32_t loc, fl_expr **out,
                             fl_error *err)
{
    if (t->n > 1)
        qsort(t->v, t->n, sizeof *t->v, cmp_entry);
    fl_type i64 = fl_mk(FL_TYPE_INT64), st = fl_mk(FL_TYPE_STRING);
    if (key->type.id != FL_TYPE_INT64 && fl_expr_cast(b->a, key, &i64, &key, err) != FL_OK)
        return fl_front_err_at(b->pc, err, loc);
    fl_expr *e = fl_expr_new(b->a, FL_EXPR_CALL, &st, 1);
    if (!e)
        return oom(err);
    e->fn = &lookup_fn;
    e->args[0] = key;
    e->bind_data = t;
    e->location = loc;
    e->alias = NULL;
    *out = fl_front_fold(b->a, e);
    return FL_OK;
}

/* ---- the tables ---- */

static bool visible(const fl_pgcat_snap *s, const char *nsp)
{
    return strcmp(nsp, "pg_catalog") == 0 || strcmp(nsp, s->schema) == 0;
}

static fl_status regclass_table(fl_arena *a, const fl_pgcat_snap *s, lookup *t, fl_error *err)
{
    for (uint32_t i = 0; i < s->nrels; i++) {
        const fl_pgcat_rel *r = &s->rels[i];
        const char *nm = fl_pgcat_quote_ident(a, r->name);
        if (nm && !visible(s, r->nsp)) {
            const char *ns = fl_pgcat_quote_ident(a, r->nsp);
            nm = ns ? fl_arena_sprintf(a, "%s.%s", ns, nm) : NULL;
        }
        FL_TRY(put(a, t, r->oid, nm, err));
    }
    return FL_OK;
}

static fl_status regtype_table(fl_arena *a, lookup *t, fl_error *err)
{
    uint32_t n = 0;
    const fl_pg_type_info *ts = fl_pg_types(&n);
    for (uint32_t i = 0; i < n; i++) {
        char buf[96];
        fl_pg_type_format(ts[i].oid, -1, buf, sizeof buf);
        FL_TRY(put(a, t, ts[i].oid, fl_arena_strdup(a, buf), err));
    }
    return FL_OK;
}

/* regproc (name) / regprocedure ("name(types)"), pg_get_function_result,
 * pg_get_function_arguments: what = 'n', 'p', 'r', 'a'. */
static fl_status proc_table(fl_arena *a, fl_pgcat_snap *s, char what, lookup *t, fl_error *err)
{
    FL_TRY(fl_pgcat_snap_sigs(s, a, err));
    if (what == 'n' || what == 'p') {
        FL_TRY(put(a, t, 750, what == 'n' ? "array_in" : "array_in(cstring,oid,integer)", err));
        FL_TRY(put(a, t, 2400, what == 'n' ? "array_recv" : "array_recv(internal,oid,integer)",
                   err));
    } else {
        FL_TRY(put(a, t, 750, what == 'r' ? "anyarray" : "cstring, oid, integer", err));
        FL_TRY(put(a, t, 2400, what == 'r' ? "anyarray" : "internal, oid, integer", err));
    }
    for (uint32_t i = 0; i < s->nsigs; i++) {
        const fl_func_sig *g = &s->sigs[i];
        uint32_t oid = fl_pgcat_sig_oid(g);
        if (oid == 750 || oid == 2400)
            continue;
        const char *txt;
        if (what == 'n') {
            txt = g->fn->name;
        } else if (what == 'r') {
            txt = fl_pgcat_sig_result(a, g);
        } else {
            txt = what == 'p' && g->form == FL_SIG_VARIADIC ? "\"any\"" : fl_pgcat_sig_args(a, g);
            if (txt && what == 'p') { /* regprocedure: no spaces after commas */
                char *c = fl_arena_sprintf(a, "%s(%s)", g->fn->name, txt), *o = c;
                for (const char *p = c; c && *p; p++)
                    if (!(*p == ' ' && p > c && p[-1] == ','))
                        *o++ = *p;
                if (o)
                    *o = 0;
                txt = c;
            }
        }
        FL_TRY(put(a, t, oid, txt, err));
    }
    return FL_OK;
}

static fl_status nsp_table(fl_arena *a, const fl_pgcat_snap *s, lookup *t, fl_error *err)
{
    for (uint32_t i = 0; i < s->nnsps; i++)
        FL_TRY(put(a, t, s->nsps[i].oid, fl_pgcat_quote_ident(a, s->nsps[i].name), err));
    return FL_OK;
}

/* ---- pg_get_* ---- */

static bool const_bool(const fl_expr *e, bool *v)
{
    if (e->kind != FL_EXPR_CONST || e->type.id != FL_TYPE_BOOLEAN)
        return false;
    *v = !e->value.is_null && e->value.v.b;
    return true;
}

static fl_status keys_table(fl_bctx *b, fl_pgcat_snap *s, bool index, bool pretty, lookup *t,
                            fl_error *err)
{
    FL_TRY(fl_pgcat_snap_columns(b->pc, s, err));
    for (uint32_t i = 0; i < s->nrels; i++) {
        const fl_pgcat_rel *rel = &s->rels[i];
        const fl_pgcat_key *k = rel->pk;
        if (!k)
            continue;
        if (!index) {
            FL_TRY(put(b->a, t, k->con_oid, fl_pgcat_pk_condef(b->a, rel), err));
            continue;
        }
        int64_t ix = s->rels[k->index_rel].oid;
        FL_TRY(put(b->a, t, ix * 64, fl_pgcat_pk_indexdef(b->a, s, rel, pretty), err));
        for (uint32_t c = 0; c < 63; c++) /* past the last key column: '' as PostgreSQL */
            FL_TRY(put(b->a, t, ix * 64 + c + 1,
                       c < k->ncols ? fl_pgcat_quote_ident(
                                          b->a, rel->cols->fields[k->attnums[c] - 1].name)
                                    : "",
                       err));
    }
    return FL_OK;
}

static fl_status bind_indexdef(fl_bctx *b, fl_pgcat_snap *s, fl_expr **args, size_t na,
                               int32_t loc, fl_expr **out, fl_error *err)
{
    bool pretty = false;
    if (na == 3 && !const_bool(args[2], &pretty))
        return fl_front_err(b->pc, err, FL_EUNSUPPORTED, loc, "0A000",
                            "pg_get_indexdef(): the pretty argument must be a constant");
    lookup *t = fl_arena_calloc(b->a, 1, sizeof *t);
    if (!t)
        return oom(err);
    FL_TRY(keys_table(b, s, true, pretty, t, err));
    fl_type i64 = fl_mk(FL_TYPE_INT64);
    fl_expr *key = args[0];
    if (fl_expr_cast(b->a, key, &i64, &key, err) != FL_OK)
        return fl_front_err_at(b->pc, err, loc);
    fl_value v;
    memset(&v, 0, sizeof v);
    v.type = i64;
    v.v.i64 = 64;
    fl_expr *mul[2] = {key, fl_expr_const(b->a, &v)};
    if (!mul[1])
        return oom(err);
    if (fl_expr_call(b->a, "*", mul, 2, loc, &key, err) != FL_OK)
        return fl_front_err_at(b->pc, err, loc);
    if (na >= 2) {
        fl_expr *col = args[1];
        if (fl_expr_cast(b->a, col, &i64, &col, err) != FL_OK)
            return fl_front_err_at(b->pc, err, loc);
        /* column numbers outside 0..63 read as 63 (''), never as another index's key */
        v.v.i64 = 0;
        fl_expr *lo[2] = {col, fl_expr_const(b->a, &v)};
        v.v.i64 = 63;
        fl_expr *hi[2] = {NULL, fl_expr_const(b->a, &v)};
        if (!lo[1] || !hi[1])
            return oom(err);
        if (fl_expr_call(b->a, "greatest", lo, 2, loc, &hi[0], err) != FL_OK ||
            fl_expr_call(b->a, "least", hi, 2, loc, &col, err) != FL_OK)
            return fl_front_err_at(b->pc, err, loc);
        fl_expr *add[2] = {key, col};
        if (fl_expr_call(b->a, "+", add, 2, loc, &key, err) != FL_OK)
            return fl_front_err_at(b->pc, err, loc);
    }
    return lookup_call(b, key, t, loc, out, err);
}

static const char *last_name(PgQuery__Node *const *names, size_t n)
{
    return n ? fl_front_str(names[n - 1]) : NULL;
}

fl_status fl_pgcat_bind_catfunc(fl_bctx *b, const PgQuery__FuncCall *f, fl_expr **out,
                                bool *handled, fl_error *err)
{
    *handled = false;
    const char *name = last_name(f->funcname, f->n_funcname);
    if (!name || f->over || f->agg_star || f->agg_distinct || f->n_args < 1 || f->n_args > 3)
        return FL_OK;
    size_t na = f->n_args;
    char what = 0; /* 'c' constraintdef 'i' indexdef 'r' result 'a' arguments 'u' userbyid */
    if (strcmp(name, "pg_get_constraintdef") == 0 && na <= 2)
        what = 'c';
    else if (strcmp(name, "pg_get_indexdef") == 0)
        what = 'i';
    else if (strcmp(name, "pg_get_function_result") == 0 && na == 1)
        what = 'r';
    else if ((strcmp(name, "pg_get_function_arguments") == 0 ||
              strcmp(name, "pg_get_function_identity_arguments") == 0) && na == 1)
        what = 'a';
    else if (strcmp(name, "pg_get_userbyid") == 0 && na == 1)
        what = 'u';
    if (!what)
        return FL_OK;
    *handled = true;
    fl_expr *args[3];
    for (size_t i = 0; i < na; i++)
        FL_TRY(fl_bind_expr(b, f->args[i], &args[i], err));
    fl_pgcat_snap *s;
    FL_TRY(fl_pgcat_snap_get(b->pc, &s, err));
    if (what == 'i')
        return bind_indexdef(b, s, args, na, f->location, out, err);
    lookup *t = fl_arena_calloc(b->a, 1, sizeof *t);
    if (!t)
        return oom(err);
    if (what == 'c') {
        FL_TRY(keys_table(b, s, false, false, t, err));
    } else if (what == 'u') {
        t->on_miss = MISS_UNKNOWN;
        FL_TRY(put(b->a, t, 10, s->user, err));
    } else {
        FL_TRY(proc_table(b->a, s, what, t, err));
    }
    return lookup_call(b, args[0], t, f->location, out, err);
}

/* ---- reg* casts ---- */

static const char *cast_name(const PgQuery__TypeCast *tc)
{
    const PgQuery__TypeName *tn = tc->type_name;
    if (!tn || tn->n_array_bounds)
        return NULL;
    return last_name(tn->names, tn->n_names);
}

static bool reg_name(const char *n)
{
    static const char *const regs[] = {"regclass",     "regtype",      "regproc",
                                       "regprocedure", "regnamespace", "regrole"};
    for (size_t i = 0; n && i < sizeof regs / sizeof regs[0]; i++)
        if (strcmp(n, regs[i]) == 0)
            return true;
    return false;
}

static bool text_name(const char *n)
{
    return n && (strcmp(n, "text") == 0 || strcmp(n, "varchar") == 0 || strcmp(n, "name") == 0 ||
                 strcmp(n, "bpchar") == 0);
}

/* 'name'::regrole: the session's one role. */
static fl_status bind_regrole(fl_bctx *b, const PgQuery__TypeCast *tc, fl_expr **out,
                              fl_error *err)
{
    fl_expr *arg;
    FL_TRY(fl_bind_expr(b, tc->arg, &arg, err));
    fl_type i64 = fl_mk(FL_TYPE_INT64);
    if (arg->type.id != FL_TYPE_STRING) {
        if (fl_expr_cast(b->a, arg, &i64, out, err) != FL_OK)
            return fl_front_err_at(b->pc, err, tc->location);
        *out = fl_front_fold(b->a, *out);
        return FL_OK;
    }
    if (arg->kind != FL_EXPR_CONST)
        return fl_front_err(b->pc, err, FL_EUNSUPPORTED, tc->location, "0A000",
                            "cast of a non-constant string to regrole is not supported");
    fl_value v;
    memset(&v, 0, sizeof v);
    v.type = i64;
    v.is_null = arg->value.is_null;
    if (!v.is_null) {
        fl_pgcat_snap *s;
        FL_TRY(fl_pgcat_snap_get(b->pc, &s, err));
        const char *p = (const char *)arg->value.v.bytes.ptr;
        size_t l = arg->value.v.bytes.len;
        bool digits = l > 0;
        for (size_t i = 0; i < l; i++)
            digits = digits && p[i] >= '0' && p[i] <= '9';
        size_t ul = strlen(s->user);
        bool quoted = l == ul + 2 && p[0] == '"' && p[l - 1] == '"' && memcmp(p + 1, s->user, ul) == 0;
        const char *num = digits ? fl_arena_strndup(b->a, p, l) : NULL;
        if (digits && !num)
            return oom(err);
        if (digits)
            v.v.i64 = strtoll(num, NULL, 10);
        else if ((l == ul && memcmp(p, s->user, l) == 0) || quoted)
            v.v.i64 = 10;
        else
            return fl_front_err(b->pc, err, FL_ENOTFOUND, tc->location, "42704",
                                "role \"%.*s\" does not exist", (int)(l > 64 ? 64 : l), p);
    }
    *out = fl_expr_const(b->a, &v);
    if (*out)
        (*out)->location = tc->location;
    return *out ? FL_OK : oom(err);
}

/* "text , int4" -> "text, integer" (format_type spellings); NULL when a
 * type is unknown. */
static const char *norm_args(fl_arena *a, const char *in)
{
    char *buf = fl_arena_alloc(a, 96 * (strlen(in) + 1) + 1);
    if (!buf)
        return NULL;
    size_t o = 0;
    buf[0] = 0;
    const char *p = in;
    while (*p) {
        while (*p == ' ')
            p++;
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        while (l && p[l - 1] == ' ')
            l--;
        char *tok = fl_arena_strndup(a, p, l);
        if (!tok || !l)
            return NULL;
        for (char *q = tok; *q; q++)
            if (*q >= 'A' && *q <= 'Z')
                *q = (char)(*q - 'A' + 'a');
        const fl_pg_type_info *ti = fl_pg_type_by_name(tok);
        uint32_t oid = ti ? ti->oid : 0;
        fl_type t;
        fl_error e2;
        if (!oid && fl_sql_type_parse(tok, NULL, 0, &t, &e2) == FL_OK)
            oid = fl_pg_type_oid(&t);
        if (!oid && strcmp(tok, "\"any\"") == 0)
            oid = 2276;
        if (!oid)
            return NULL;
        o += (size_t)sprintf(buf + o, "%s", o ? ", " : "");
        o += fl_pg_type_format(oid, -1, buf + o, 96);
        p = e ? e + 1 : p + l;
    }
    return buf;
}

/* 'name'::regproc, 'name(types)'::regprocedure: the function's OID. */
static fl_status bind_regproc(fl_bctx *b, const PgQuery__TypeCast *tc, bool procedure,
                              fl_expr *arg, fl_expr **out, fl_error *err)
{
    fl_pgcat_snap *s;
    FL_TRY(fl_pgcat_snap_get(b->pc, &s, err));
    FL_TRY(fl_pgcat_snap_sigs(s, b->a, err));
    char *text = fl_arena_strndup(b->a, (const char *)arg->value.v.bytes.ptr, arg->value.v.bytes.len);
    if (!text)
        return oom(err);
    char *name = text, *args = NULL;
    if (strncmp(name, "pg_catalog.", 11) == 0)
        name += 11;
    char *paren = strchr(name, '(');
    if (paren) {
        *paren = 0;
        args = paren + 1;
        char *close = strrchr(args, ')');
        if (close)
            *close = 0;
    }
    for (char *q = name; *q; q++)
        if (*q >= 'A' && *q <= 'Z')
            *q = (char)(*q - 'A' + 'a');
    int64_t oid = -1;
    if (strcmp(name, "array_in") == 0)
        oid = 750;
    else if (strcmp(name, "array_recv") == 0)
        oid = 2400;
    const fl_func_sig *g = NULL;
    if (oid < 0 && (procedure || args)) {
        const char *na = args ? norm_args(b->a, args) : "";
        g = na ? fl_pgcat_sig_find(b->a, s, name, na) : NULL;
    } else if (oid < 0) {
        g = fl_pgcat_sig_find(b->a, s, name, NULL);
    }
    if (g)
        oid = g->oid;
    if (oid < 0)
        return fl_front_err(b->pc, err, FL_ENOTFOUND, tc->location, "42883",
                            "function \"%s\" does not exist", text);
    fl_value v;
    memset(&v, 0, sizeof v);
    v.type = fl_mk(FL_TYPE_INT64);
    v.v.i64 = oid;
    *out = fl_expr_const(b->a, &v);
    return *out ? FL_OK : oom(err);
}

fl_status fl_pgcat_bind_regcast(fl_bctx *b, const PgQuery__TypeCast *tc, fl_expr **out,
                                bool *handled, fl_error *err)
{
    *handled = false;
    const char *n = cast_name(tc);
    if (n && strcmp(n, "regrole") == 0) {
        *handled = true;
        return bind_regrole(b, tc, out, err);
    }
    if (n && (strcmp(n, "regproc") == 0 || strcmp(n, "regprocedure") == 0) && tc->arg &&
        tc->arg->node_case == PG_QUERY__NODE__NODE_A_CONST &&
        tc->arg->a_const->val_case == PG_QUERY__A__CONST__VAL_SVAL) {
        fl_expr *arg;
        FL_TRY(fl_bind_expr(b, tc->arg, &arg, err));
        bool digits = arg->kind == FL_EXPR_CONST && arg->type.id == FL_TYPE_STRING && !arg->value.is_null;
        for (size_t i = 0; digits && i < arg->value.v.bytes.len; i++)
            digits = arg->value.v.bytes.ptr[i] >= '0' && arg->value.v.bytes.ptr[i] <= '9';
        if (arg->kind == FL_EXPR_CONST && arg->type.id == FL_TYPE_STRING && !arg->value.is_null &&
            !digits) {
            *handled = true;
            return bind_regproc(b, tc, strcmp(n, "regprocedure") == 0, arg, out, err);
        }
    }
    if (!text_name(n) || !tc->arg || tc->arg->node_case != PG_QUERY__NODE__NODE_TYPE_CAST)
        return FL_OK;
    const char *reg = cast_name(tc->arg->type_cast);
    if (!reg_name(reg))
        return FL_OK;
    *handled = true;
    fl_expr *oid;
    FL_TRY(fl_bind_expr(b, tc->arg, &oid, err));
    fl_pgcat_snap *s;
    FL_TRY(fl_pgcat_snap_get(b->pc, &s, err));
    lookup *t = fl_arena_calloc(b->a, 1, sizeof *t);
    if (!t)
        return oom(err);
    t->on_miss = MISS_NUMBER;
    if (strcmp(reg, "regclass") == 0)
        FL_TRY(regclass_table(b->a, s, t, err));
    else if (strcmp(reg, "regtype") == 0)
        FL_TRY(regtype_table(b->a, t, err));
    else if (strcmp(reg, "regproc") == 0)
        FL_TRY(proc_table(b->a, s, 'n', t, err));
    else if (strcmp(reg, "regprocedure") == 0)
        FL_TRY(proc_table(b->a, s, 'p', t, err));
    else if (strcmp(reg, "regnamespace") == 0)
        FL_TRY(nsp_table(b->a, s, t, err));
    else
        FL_TRY(put(b->a, t, 10, fl_pgcat_quote_ident(b->a, s->user), err));
    return lookup_call(b, oid, t, tc->location, out, err);
}
