/*
 * stmt_names.c - names and literal values out of the parse tree for the
 * statement handlers (stmt_int.h): table identifiers from RangeVars and
 * text, namespaces, option values of WITH (...) / SET (...), the ARRAY[...]
 * options the pre-lexer recorded, and SQL type names to Iceberg types.
 *
 * Identifiers: a RangeVar's catalogname and schemaname become namespace
 * levels (so a.b.t is namespace a.b, table t, as fl_table_ident_parse reads
 * "a.b.t"); an unqualified name takes the session's default namespace.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "sql/func.h"
#include "sql/stmt/stmt_int.h"

fl_status stmt_need_catalog(fl_stmt_ctx *c, const char *what, fl_error *err)
{
    if (c->planner && c->planner->catalog)
        return FL_OK;
    return fl_errorf(err, FL_EINVAL, "%s needs a catalog (open the session with a catalog)",
                     what);
}

static const char *nz(const char *s)
{
    return s && *s ? s : NULL;
}

fl_status stmt_ident_rv(fl_stmt_ctx *c, const PgQuery__RangeVar *rv, fl_table_ident *out,
                        fl_error *err)
{
    fl_arena *a = c->planner->arena;
    if (!rv || !nz(rv->relname))
        return fl_errorf(err, FL_EINVAL, "missing table name");
    /* Every floe table is an Iceberg table in the catalog: creating a
     * permanent one for TEMP would leak it to every other session. */
    if (rv->relpersistence && strcmp(rv->relpersistence, "t") == 0) {
        stmt_set_position(c, rv->location);
        return fl_error_state(err, FL_EUNSUPPORTED, "0A000", "temporary tables are not supported");
    }
    /* one reading of a.b.t for every statement kind (planner.h) */
    FL_TRY(fl_planner_rv_namespace(c->planner, rv, a, &out->ns, err));
    out->name = rv->relname;
    return FL_OK;
}

fl_status stmt_ident_text(fl_stmt_ctx *c, const char *name, fl_table_ident *out, fl_error *err)
{
    fl_arena *a = c->planner->arena;
    FL_TRY(fl_table_ident_parse(name, a, out, err));
    if (out->ns.nlevels)
        return FL_OK;
    const char *d = c->planner->default_namespace;
    return fl_namespace_parse(nz(d) ? d : "default", a, &out->ns, err);
}

fl_status stmt_ensure_namespace(fl_stmt_ctx *c, const fl_namespace *ns, fl_error *err)
{
    fl_catalog *cat = c->planner->catalog;
    for (uint32_t n = 1; n <= ns->nlevels; n++) {
        fl_namespace part = {n, ns->levels};
        fl_error e2;
        fl_error_clear(&e2);
        /* a level the principal can see and that exists needs nothing; a
         * missing one needs CREATE on its parent (authz.h) */
        fl_ice_map props;
        if (fl_sql_authz_visible(c->planner, &part, NULL) && cat->ops->load_namespace &&
            cat->ops->load_namespace(cat, &part, c->planner->arena, &props, &e2) == FL_OK)
            continue;
        fl_error_clear(&e2);
        fl_namespace parent = {n - 1, ns->levels};
        FL_TRY(fl_sql_authz_namespace(c->planner, FL_PRIV_CREATE, &parent, -1, err));
        fl_status rc = cat->ops->create_namespace(cat, &part, NULL, &e2);
        if (rc != FL_OK && rc != FL_EEXIST) {
            if (err)
                *err = e2;
            return rc;
        }
    }
    return FL_OK;
}

void stmt_set_position(fl_stmt_ctx *c, int32_t loc)
{
    if (!c->planner || loc < 0 || !c->planner->parsed || !c->planner->parsed->text)
        return;
    /* 1-based character offset (UTF-8 continuation bytes not counted) */
    const unsigned char *t = (const unsigned char *)c->planner->parsed->text;
    int32_t chars = 0;
    for (int32_t i = 0; i < loc && t[i]; i++)
        chars += (t[i] & 0xC0) != 0x80;
    c->planner->error_position = chars + 1;
}

/* ---- values ---- */

const char *stmt_node_text(fl_arena *a, const PgQuery__Node *n)
{
    if (!n)
        return NULL;
    switch (n->node_case) {
    case PG_QUERY__NODE__NODE_STRING:
        return n->string->sval;
    case PG_QUERY__NODE__NODE_INTEGER:
        return fl_arena_sprintf(a, "%d", (int)n->integer->ival);
    case PG_QUERY__NODE__NODE_FLOAT:
        return n->float_->fval;
    case PG_QUERY__NODE__NODE_BOOLEAN:
        return n->boolean->boolval ? "true" : "false";
    case PG_QUERY__NODE__NODE_A_CONST: {
        const PgQuery__AConst *k = n->a_const;
        if (k->isnull)
            return NULL;
        switch (k->val_case) {
        case PG_QUERY__A__CONST__VAL_IVAL:
            return fl_arena_sprintf(a, "%d", (int)k->ival->ival);
        case PG_QUERY__A__CONST__VAL_FVAL:
            return k->fval->fval;
        case PG_QUERY__A__CONST__VAL_BOOLVAL:
            return k->boolval->boolval ? "true" : "false";
        case PG_QUERY__A__CONST__VAL_SVAL:
            return k->sval->sval;
        default:
            return NULL;
        }
    }
    case PG_QUERY__NODE__NODE_TYPE_NAME: {
        /* a bare word (def_arg: func_type), e.g. WITH (format = parquet) */
        const PgQuery__TypeName *t = n->type_name;
        if (t->n_names < 1)
            return NULL;
        const PgQuery__Node *last = t->names[t->n_names - 1];
        return last->node_case == PG_QUERY__NODE__NODE_STRING ? last->string->sval : NULL;
    }
    case PG_QUERY__NODE__NODE_TYPE_CAST:
        return stmt_node_text(a, n->type_cast->arg);
    default:
        return NULL;
    }
}

const char *stmt_defelem_name(fl_arena *a, const PgQuery__DefElem *d)
{
    if (nz(d->defnamespace))
        return fl_arena_sprintf(a, "%s.%s", d->defnamespace, d->defname);
    return d->defname;
}

bool stmt_array_option(const fl_stmt_ctx *c, const char *name, const char *const **vals,
                       uint32_t *n)
{
    const fl_sql_parsed *p = c->planner ? c->planner->parsed : NULL;
    for (uint32_t i = 0; p && i < p->narray_options; i++)
        if (!strcasecmp(p->array_option_names[i], name)) {
            *vals = p->array_option_values[i];
            *n = p->array_option_counts[i];
            return true;
        }
    return false;
}

uint32_t stmt_split_list(fl_arena *a, const char *s, const char ***out)
{
    uint32_t cap = 1;
    for (const char *p = s; *p; p++)
        cap += *p == ',';
    const char **v = fl_arena_calloc(a, cap, sizeof *v);
    *out = v;
    if (!v)
        return 0;
    uint32_t n = 0;
    int depth = 0;
    const char *start = s;
    for (const char *p = s;; p++) {
        if (*p == '(')
            depth++;
        else if (*p == ')')
            depth--;
        if (*p == '\0' || (*p == ',' && depth == 0)) {
            const char *b = start, *e = p;
            while (b < e && isspace((unsigned char)*b))
                b++;
            while (e > b && isspace((unsigned char)e[-1]))
                e--;
            if (e > b)
                v[n++] = fl_arena_strndup(a, b, (size_t)(e - b));
            if (!*p)
                break;
            start = p + 1;
        }
    }
    return n;
}

/* ---- types ---- */

fl_status stmt_type_of(fl_stmt_ctx *c, const PgQuery__TypeName *tn, fl_type *out, fl_error *err)
{
    fl_arena *a = c->planner->arena;
    if (!tn || !tn->n_names)
        return fl_errorf(err, FL_EINVAL, "missing type name");
    const fl_sql_parsed *p = c->planner->parsed; /* a nested type the pre-lexer read */
    for (uint32_t i = 0; p && tn->location >= 0 && i < p->nnested_types; i++)
        if (p->nested_type_offsets[i] == (uint32_t)tn->location) {
            *out = *p->nested_types[i];
            return FL_OK;
        }
    size_t len = 0;
    for (size_t i = 0; i < tn->n_names; i++)
        if (tn->names[i]->node_case == PG_QUERY__NODE__NODE_STRING)
            len += strlen(tn->names[i]->string->sval) + 1;
    char *name = fl_arena_alloc(a, len + 1);
    if (!name)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    name[0] = '\0';
    for (size_t i = 0; i < tn->n_names; i++)
        if (tn->names[i]->node_case == PG_QUERY__NODE__NODE_STRING) {
            if (name[0])
                strcat(name, ".");
            strcat(name, tn->names[i]->string->sval);
        }
    int32_t mods[8];
    uint32_t nm = 0;
    for (size_t i = 0; i < tn->n_typmods; i++) {
        const PgQuery__Node *m = tn->typmods[i];
        const char *t = stmt_node_text(a, m);
        char *end;
        long v = t ? strtol(t, &end, 10) : 0;
        if (!t || *end || nm == 8) {
            stmt_set_position(c, tn->location);
            return fl_errorf(err, FL_ESYNTAX, "type %s: modifiers must be integer constants",
                             name);
        }
        mods[nm++] = (int32_t)v;
    }
    fl_type base;
    fl_status rc = fl_sql_type_parse(name, mods, nm, &base, err);
    if (rc != FL_OK) {
        stmt_set_position(c, tn->location);
        return rc;
    }
    if (base.id != FL_TYPE_FIXED && base.id != FL_TYPE_UUID)
        base.fixed_len = 0; /* fixed_len -1 marks untyped literals only */
    if (!tn->n_array_bounds) {
        *out = base;
        return FL_OK;
    }
    /* int[] (any number of bounds: nested lists) */
    fl_type cur = base;
    for (size_t i = 0; i < tn->n_array_bounds; i++) {
        fl_field *el = fl_arena_calloc(a, 1, sizeof *el);
        if (!el)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        el->name = "element";
        el->nullable = true;
        el->type = cur;
        memset(&cur, 0, sizeof cur);
        cur.id = FL_TYPE_LIST;
        cur.nchildren = 1;
        cur.children = el;
    }
    *out = cur;
    return FL_OK;
}

int64_t stmt_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
