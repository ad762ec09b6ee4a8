/*
 * scope.c - name resolution for a SELECT block: relations in FROM (catalog
 * tables, metadata tables "t$files", CTEs), their columns, qualified and
 * unqualified lookups (ambiguity, correlation to the enclosing block), table
 * loading (once per statement) and snapshot selection (time travel).
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "floe/ice_view.h"
#include "sql/authz/authz.h"
#include "sql/bind/bind.h"
#include "sql/parse/parse_tree.h"
#include "sql/pgcat/pgcat.h"
#include "sql/session/cache.h"

void *fl_front_grow(fl_arena *a, void *arr, uint32_t *cap, uint32_t n, size_t elem)
{
    if (n < *cap)
        return arr;
    uint32_t nc = *cap ? *cap * 2 : 8;
    void *na = fl_arena_alloc(a, (size_t)nc * elem);
    if (!na)
        return NULL;
    if (arr && n)
        memcpy(na, arr, (size_t)n * elem);
    *cap = nc;
    return na;
}

fl_front_state *fl_front_state_of(fl_planner_ctx *pc)
{
    if (!pc->internal)
        pc->internal = fl_arena_calloc(pc->arena, 1, sizeof(fl_front_state));
    return pc->internal;
}

fl_status fl_front_err(fl_planner_ctx *pc, fl_error *err, fl_status code, int32_t location,
                       const char *sqlstate, const char *fmt, ...)
{
    char msg[FL_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *text = pc->parsed ? pc->parsed->text : NULL;
    if (location >= 0 && text) {
        char pos[64];
        fl_sql_position(text, location, pos, sizeof pos);
        pc->error_position = fl_front_byte_to_char(text, location);
        return fl_error_state(err, code, sqlstate, "%s: %s", pos, msg);
    }
    return fl_error_state(err, code, sqlstate, "%s", msg);
}

fl_status fl_front_err_at(fl_planner_ctx *pc, fl_error *err, int32_t location)
{
    const char *text = pc->parsed ? pc->parsed->text : NULL;
    if (!err)
        return FL_EINVAL;
    if (location >= 0 && text && strncmp(err->msg, "line ", 5) != 0) {
        char pos[64];
        fl_sql_position(text, location, pos, sizeof pos);
        pc->error_position = fl_front_byte_to_char(text, location);
        return fl_error_prefix(err, "%s", pos);
    }
    return err->code;
}

fl_status fl_scope_add_rel(fl_arena *a, fl_scope *s, const fl_rel *r, const fl_schema *cols,
                           uint32_t *rel_index, fl_error *err)
{
    if (s->nrels >= FL_MAX_RELS)
        return fl_errorf(err, FL_ELIMIT, "more than %d relations in one FROM clause", FL_MAX_RELS);
    s->rels = fl_front_grow(a, s->rels, &s->caprels, s->nrels, sizeof(fl_rel));
    if (!s->rels)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    uint32_t ri = s->nrels++;
    s->rels[ri] = *r;
    s->rels[ri].first = s->ncols;
    s->rels[ri].ncols = cols ? cols->nfields : 0;
    for (uint32_t i = 0; cols && i < cols->nfields; i++) {
        s->cols = fl_front_grow(a, s->cols, &s->capcols, s->ncols, sizeof(fl_scope_col));
        if (!s->cols)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        fl_scope_col *c = &s->cols[s->ncols++];
        memset(c, 0, sizeof *c);
        c->qual = r->alias;
        c->name = cols->fields[i].name;
        c->type = cols->fields[i].type;
        c->rel = ri;
    }
    if (rel_index)
        *rel_index = ri;
    return FL_OK;
}

static int find_in(const fl_scope *s, const char *qual, const char *name, uint32_t *idx)
{
    int found = 0;
    for (uint32_t i = 0; i < s->ncols; i++) {
        const fl_scope_col *c = &s->cols[i];
        if (!c->name || strcmp(c->name, name) != 0)
            continue;
        if (qual && (!c->qual || strcmp(c->qual, qual) != 0))
            continue;
        if (!qual && c->using_hidden)
            continue;
        if (found && !qual)
            return 2;
        if (!found)
            *idx = i;
        found = 1;
    }
    return found;
}

fl_status fl_scope_col_expr(fl_bctx *b, uint32_t i, int32_t location, fl_expr **out, fl_error *err)
{
    fl_scope_col *c = &b->scope.cols[i];
    c->used = true;
    fl_expr *l = fl_expr_column(b->a, i, &c->type);
    if (!l)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    l->location = location;
    l->alias = c->name;
    if (!c->using_merged || c->using_partner >= b->scope.ncols) {
        *out = l;
        return FL_OK;
    }
    fl_expr *r;
    FL_TRY(fl_scope_col_expr(b, c->using_partner, location, &r, err));
    if (fl_front_coerce(b->a, &l, &r, err) != FL_OK)
        return fl_front_err_at(b->pc, err, location);
    fl_expr *e = fl_expr_new(b->a, FL_EXPR_COALESCE, &l->type, 2);
    if (!e)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    e->args[0] = l;
    e->args[1] = r;
    e->location = location;
    e->alias = c->name;
    *out = e;
    return FL_OK;
}

fl_status fl_scope_lookup_expr(fl_bctx *b, const char *qual, const char *name, int32_t location,
                               fl_expr **out, fl_error *err)
{
    uint32_t i = 0;
    if (b->param_mode && find_in(&b->scope, qual, name, &i) == 0) {
        /* param mode (bind_apply.c): enclosing blocks' columns are parameters */
        for (fl_bctx *g = b->parent; g; g = g->parent) {
            int f = find_in(&g->scope, qual, name, &i);
            if (f == 2)
                return fl_front_err(b->pc, err, FL_EINVAL, location, "42702",
                                    "column reference \"%s\" is ambiguous", name);
            if (f == 1) {
                FL_TRY(fl_front_param_ref(g, i, &g->scope.cols[i].type, location, out, err));
                (*out)->alias = name;
                return FL_OK;
            }
        }
    }
    fl_type t;
    FL_TRY(fl_scope_lookup(b, qual, name, location, &i, &t, err));
    if (!qual && !(i & FL_REF_OUTER) && b->scope.cols[i].using_merged) {
        FL_TRY(fl_scope_col_expr(b, i, location, out, err));
        (*out)->alias = name;
        return FL_OK;
    }
    *out = fl_expr_column(b->a, i, &t);
    if (!*out)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    (*out)->location = location;
    (*out)->alias = name;
    return FL_OK;
}

fl_status fl_scope_lookup(fl_bctx *b, const char *qual, const char *name, int32_t location,
                          uint32_t *idx, fl_type *type, fl_error *err)
{
    uint32_t i = 0;
    int f = find_in(&b->scope, qual, name, &i);
    if (f == 2)
        return fl_front_err(b->pc, err, FL_EINVAL, location, "42702",
                            "column reference \"%s\" is ambiguous", name);
    if (f == 1) {
        b->scope.cols[i].used = true;
        *idx = i;
        *type = b->scope.cols[i].type;
        return FL_OK;
    }
    if (b->parent) {
        f = find_in(&b->parent->scope, qual, name, &i);
        if (f == 2)
            return fl_front_err(b->pc, err, FL_EINVAL, location, "42702",
                                "column reference \"%s\" is ambiguous", name);
        if (f == 1) {
            b->parent->scope.cols[i].used = true;
            b->scope.correlated = true;
            *idx = FL_REF_OUTER | i;
            *type = b->parent->scope.cols[i].type;
            return FL_OK;
        }
        /* two levels up: unsupported correlation depth */
        for (fl_bctx *g = b->parent->parent; g; g = g->parent)
            if (find_in(&g->scope, qual, name, &i) == 1)
                return fl_front_err(b->pc, err, FL_EUNSUPPORTED, location, "0A000",
                                    "column \"%s\" refers to a query two or more levels out "
                                    "(correlation deeper than one level is not supported)",
                                    name);
    }
    char hint[160];
    fl_front_column_hint(b, qual, name, hint, sizeof hint);
    if (qual)
        return fl_front_err(b->pc, err, FL_ENOTFOUND, location, "42703",
                            "column %s.%s does not exist%s", qual, name, hint);
    return fl_front_err(b->pc, err, FL_ENOTFOUND, location, "42703",
                        "column \"%s\" does not exist%s", name, hint);
}

/* ---- tables ---- */

/* The load said "not found": either the catalog has no such table (the
 * caller's 42P01) or the catalog names a metadata file that is gone, which
 * is an I/O error naming the file (SQLSTATE 58P01), not a missing relation. */
fl_status fl_front_missing_metadata(fl_planner_ctx *pc, const fl_table_ident *id, fl_error *err)
{
    const char *loc = NULL;
    fl_error e2;
    memset(&e2, 0, sizeof e2);
    if (!pc->catalog || !pc->catalog->ops->load_table ||
        pc->catalog->ops->load_table(pc->catalog, id, pc->arena, &loc, &e2) != FL_OK || !loc)
        return err->code;
    char orig[FL_ERROR_MSG_MAX];
    snprintf(orig, sizeof orig, "%s", err->msg);
    return fl_error_state(err, FL_EIO, "58P01",
                          "table %s: its metadata file %s cannot be read (%s)",
                          fl_table_ident_str(id, pc->arena), loc, orig);
}

fl_status fl_front_load_table(fl_planner_ctx *pc, const fl_table_ident *id, fl_ice_table **out,
                              fl_error *err)
{
    fl_front_state *st = fl_front_state_of(pc);
    if (!st)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    const char *key = fl_table_ident_str(id, pc->arena);
    for (fl_loaded_table *t = st->tables; t; t = t->next)
        if (strcmp(t->key, key) == 0) {
            *out = t->table;
            return FL_OK;
        }
    fl_loaded_table *lt = fl_arena_calloc(pc->arena, 1, sizeof *lt);
    if (!lt)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    /* through the session's read cache (cache.h): the catalog gives the
     * current metadata location, the parsed metadata comes from the cache */
    fl_status rc =
        fl_ice_table_load_cached(pc->catalog, id, fl_sql_cache_of_io(pc->io), &lt->table, err);
    if (rc == FL_ENOTFOUND)
        return fl_front_missing_metadata(pc, id, err);
    FL_TRY(rc);
    lt->key = key;
    lt->next = st->tables;
    st->tables = lt;
    *out = lt->table;
    return FL_OK;
}

static const fl_time_travel *travel_for(const fl_planner_ctx *pc, int32_t location)
{
    if (!pc->parsed)
        return NULL;
    for (uint32_t i = 0; i < pc->parsed->ntravel; i++)
        if (pc->parsed->travel[i].relation_location == location)
            return &pc->parsed->travel[i];
    return NULL;
}

static char *unquote(fl_arena *a, const char *s)
{
    size_t n = strlen(s), pos = 0;
    fl_tok t = fl_lex_next(s, n, &pos);
    fl_tok t2 = fl_lex_next(s, n, &pos);
    if (t.kind == FL_TOK_IDENT && t2.kind == FL_TOK_STRING) /* TIMESTAMP '...' */
        t = t2;
    return fl_front_tok_text(a, s, &t);
}

fl_status fl_front_snapshot(fl_planner_ctx *pc, const fl_ice_metadata *m, int32_t location,
                            int64_t *snapshot_id, const fl_ice_schema **schema, fl_error *err)
{
    fl_ice_scan_options o;
    memset(&o, 0, sizeof o);
    const fl_time_travel *tt = travel_for(pc, location);
    if (tt) {
        const char *txt = tt->expr_text;
        if (txt[0] == '$')
            return fl_front_err(pc, err, FL_EUNSUPPORTED, tt->expr_location, "0A000",
                                "parameters in FOR ... AS OF are not supported");
        if (!tt->by_timestamp) {
            if (txt[0] == '\'' || txt[0] == '"') {
                o.select = FL_ICE_SNAP_REF;
                o.ref = unquote(pc->arena, txt);
            } else {
                char *end = NULL;
                o.select = FL_ICE_SNAP_ID;
                o.snapshot_id = strtoll(txt, &end, 10);
                if (!end || *end)
                    return fl_front_err(pc, err, FL_ESYNTAX, tt->expr_location, "42601",
                                        "invalid snapshot id %s", txt);
            }
        } else {
            const char *v = unquote(pc->arena, txt);
            fl_value in, outv;
            memset(&in, 0, sizeof in);
            in.type.id = FL_TYPE_STRING;
            in.v.bytes.ptr = (const uint8_t *)v;
            in.v.bytes.len = strlen(v);
            fl_type tz = {.id = FL_TYPE_TIMESTAMPTZ};
            fl_eval_env env;
            memset(&env, 0, sizeof env);
            env.time_zone = pc->time_zone ? pc->time_zone : "UTC";
            env.statement_time_us = pc->statement_time_us;
            if (fl_cast_value(&in, &tz, &env, pc->arena, &outv, err) != FL_OK)
                return fl_front_err_at(pc, err, tt->expr_location);
            o.select = FL_ICE_SNAP_TIMESTAMP;
            o.timestamp_ms = outv.v.i64 / 1000;
        }
    }
    const fl_ice_snapshot *snap = NULL;
    if (fl_ice_select_snapshot(m, &o, &snap, err) != FL_OK)
        return fl_front_err_at(pc, err, tt ? tt->expr_location : location);
    *snapshot_id = snap ? snap->snapshot_id : -1;
    const fl_ice_schema *sch = NULL;
    if (tt && snap && snap->has_schema_id)
        sch = fl_ice_metadata_schema(m, snap->schema_id);
    if (!sch)
        sch = fl_ice_metadata_schema(m, m->current_schema_id);
    if (!sch)
        return fl_errorf(err, FL_ECORRUPT, "table metadata has no current schema");
    *schema = sch;
    return FL_OK;
}

static double snapshot_rows(const fl_ice_metadata *m, int64_t sid)
{
    for (uint32_t i = 0; i < m->nsnapshots; i++)
        if (m->snapshots[i].snapshot_id == sid) {
            const char *tr = fl_ice_map_get(&m->snapshots[i].summary, "total-records");
            return tr ? strtod(tr, NULL) : 1000.0;
        }
    return 0;
}

static fl_status bind_cte(fl_bctx *b, const fl_cte *c, const char *alias, uint32_t *out_ri,
                          fl_error *err)
{
    fl_plan *p = NULL;
    if (c->recursive) {
        FL_TRY(fl_plan_recursive_ref(b, (fl_cte *)c, &p, err));
        fl_rel r;
        memset(&r, 0, sizeof r);
        r.kind = FL_REL_PLAN;
        r.alias = alias;
        r.plan = p;
        return fl_scope_add_rel(b->a, &b->scope, &r, &p->schema, out_ri, err);
    }
    /* each reference plans the CTE query again (inlining); while it is
     * planned its own name is not the CTE (PostgreSQL: a non-recursive
     * WITH query does not see itself) */
    ((fl_cte *)c)->in_anchor = true;
    fl_status prc = fl_plan_select(b->pc, NULL, c->cte->ctequery, &p, err);
    ((fl_cte *)c)->in_anchor = false;
    FL_TRY(prc);
    fl_schema cols = p->schema;
    if (c->cte->n_aliascolnames) {
        if (c->cte->n_aliascolnames > cols.nfields)
            return fl_front_err(b->pc, err, FL_EINVAL, c->cte->location, "42P10",
                                "WITH query \"%s\" has %u columns available but %zu columns "
                                "specified",
                                c->name, cols.nfields, c->cte->n_aliascolnames);
        fl_field *f = fl_arena_alloc(b->a, cols.nfields * sizeof(fl_field));
        if (!f)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        memcpy(f, cols.fields, cols.nfields * sizeof(fl_field));
        for (size_t i = 0; i < c->cte->n_aliascolnames; i++)
            f[i].name = fl_front_str(c->cte->aliascolnames[i]);
        cols.fields = f;
        p->schema = cols;
    }
    fl_rel r;
    memset(&r, 0, sizeof r);
    r.kind = FL_REL_PLAN;
    r.alias = alias;
    r.plan = p;
    return fl_scope_add_rel(b->a, &b->scope, &r, &cols, out_ri, err);
}

static fl_status apply_alias_cols(fl_bctx *b, const PgQuery__Alias *al, uint32_t ri, fl_error *err)
{
    if (!al || !al->n_colnames)
        return FL_OK;
    fl_rel *r = &b->scope.rels[ri];
    uint32_t visible = 0;
    for (uint32_t i = 0; i < r->ncols; i++)
        visible += !b->scope.cols[r->first + i].meta_hidden;
    if (al->n_colnames > visible)
        return fl_errorf(err, FL_EINVAL,
                         "table \"%s\" has %u columns available but %zu columns "
                         "specified",
                         r->alias, visible, al->n_colnames);
    for (size_t i = 0; i < al->n_colnames; i++)
        b->scope.cols[r->first + i].name = fl_front_str(al->colnames[i]);
    return FL_OK;
}

/* ---- views: SELECT from an Iceberg view binds its SQL as a subquery ---- */

/* The SQL of the view's current version (dialect "floe" preferred);
 * *foreign tells whether it is another engine's. */
static const char *view_sql(const fl_ice_view_metadata *vm, const fl_ice_view_version **ver,
                            bool *foreign)
{
    *ver = NULL;
    *foreign = false;
    for (uint32_t i = 0; i < vm->nversions; i++)
        if (vm->versions[i].version_id == vm->current_version_id)
            *ver = &vm->versions[i];
    if (!*ver)
        return NULL;
    const char *any = NULL;
    for (uint32_t i = 0; i < (*ver)->nrepresentations; i++) {
        const fl_ice_view_representation *r = &(*ver)->representations[i];
        if (!r->type || strcmp(r->type, "sql") || !r->sql)
            continue;
        if (r->dialect && !strcasecmp(r->dialect, "floe"))
            return r->sql;
        if (!any)
            any = r->sql;
    }
    *foreign = any != NULL;
    return any;
}

/* The view's default namespace ("a.b"), or its own namespace. */
static const char *view_namespace(const fl_ice_view_version *ver, const fl_table_ident *id,
                                  fl_arena *a)
{
    if (!ver->ndefault_namespace)
        return fl_namespace_str(&id->ns, a);
    fl_namespace ns = {ver->ndefault_namespace, ver->default_namespace};
    return fl_namespace_str(&ns, a);
}

/* Column names from the view's schema (CREATE VIEW v (a, b) AS ...). */
static void view_column_names(const fl_ice_view_metadata *vm, const fl_ice_view_version *ver,
                              fl_plan *p, fl_arena *a)
{
    for (uint32_t i = 0; i < vm->nschemas; i++) {
        const fl_schema *vs = &vm->schemas[i].schema;
        if (vm->schemas[i].schema_id != ver->schema_id || vs->nfields != p->schema.nfields)
            continue;
        fl_field *f = fl_arena_alloc(a, vs->nfields * sizeof(fl_field));
        if (!f)
            return;
        memcpy(f, p->schema.fields, vs->nfields * sizeof(fl_field));
        for (uint32_t k = 0; k < vs->nfields; k++)
            f[k].name = vs->fields[k].name;
        p->schema.fields = f;
        return;
    }
}

/* Plans the view's query with its own default namespace and without the
 * referencing query's CTEs; recursion through views is 42P17. */
static fl_status plan_view(fl_bctx *b, const char *name, const char *sql, bool foreign,
                           const char *ns, int32_t location, fl_plan **out, fl_error *err)
{
    fl_planner_ctx *pc = b->pc;
    fl_front_state *st = fl_front_state_of(pc);
    if (!st)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (const fl_view_frame *f = st->views; f; f = f->prev)
        if (!strcmp(f->name, name) || f->depth >= 32)
            return fl_front_err(pc, err, FL_EINVAL, location, "42P17",
                                "infinite recursion detected in view \"%s\"", name);
    fl_view_parse *vp = fl_arena_calloc(b->a, 1, sizeof *vp);
    if (!vp)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    int32_t pos = 0;
    fl_status rc = fl_sql_parse(sql, b->a, &vp->parsed, &pos, err);
    if (rc != FL_OK)
        return fl_error_prefix(err, "view \"%s\"", name);
    vp->next = st->view_parses;
    st->view_parses = vp;
    if (!vp->parsed->stmt || vp->parsed->stmt->node_case != PG_QUERY__NODE__NODE_SELECT_STMT)
        return fl_front_err(pc, err, FL_EUNSUPPORTED, location, "0A000",
                            "view \"%s\" is not a query", name);
    fl_view_frame fr = {name, st->views, st->views ? st->views->depth + 1 : 1};
    const char *saved_ns = pc->default_namespace;
    const fl_sql_parsed *saved_parsed = pc->parsed;
    fl_cte *saved_ctes = st->ctes;
    bool saved_foreign = st->foreign_sql;
    pc->default_namespace = ns;
    pc->parsed = vp->parsed;
    st->ctes = NULL;
    st->views = &fr;
    st->foreign_sql = foreign;
    rc = fl_plan_select(pc, NULL, vp->parsed->stmt, out, err);
    pc->default_namespace = saved_ns;
    pc->parsed = saved_parsed;
    st->ctes = saved_ctes;
    st->views = fr.prev;
    st->foreign_sql = saved_foreign;
    if (rc != FL_OK) {
        fl_error_prefix(err, "view \"%s\"", name);
        pc->error_position = 0; /* positions in the view's text mean nothing here */
    }
    return rc;
}

/* Binds table id through the effective principal's row filters and column
 * masks (sql/authz/policy.c), if it has any: *applied tells. The query's own
 * reference to id is bound raw (a frame marks it). */
static fl_status bind_policies(fl_bctx *b, const PgQuery__RangeVar *rv, const fl_table_ident *id,
                               const fl_schema *cols, int64_t sid, const char *metatable,
                               const char *alias, uint32_t *out_ri, bool *applied, fl_error *err)
{
    fl_planner_ctx *pc = b->pc;
    *applied = false;
    if (!fl_sql_authz_enabled(pc->authz))
        return FL_OK;
    fl_front_state *st = fl_front_state_of(pc);
    if (!st)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    const char *name = fl_table_ident_str(id, b->a);
    for (const fl_view_frame *f = st->policies; f; f = f->prev)
        if (!strcmp(f->name, name))
            return FL_OK; /* the policy query's own read */
    fl_auth_policy *pol = NULL;
    uint32_t npol = 0;
    FL_TRY(fl_sql_authz_policies(pc, id, rv->location, &pol, &npol, err));
    if (!npol)
        return FL_OK;
    if (metatable) /* files, bounds and partitions would show what the policies hide */
        return fl_front_err(pc, err, FL_EFORBIDDEN, rv->location, "42501",
                            "permission denied for %s$%s: row filters or column masks apply to "
                            "%s, so its metadata tables are not available",
                            name, metatable, name);
    const char *sql = NULL;
    FL_TRY(fl_sql_policy_query(pc, id, cols, sid, pol, npol, rv->location, &sql, err));
    fl_view_parse *vp = fl_arena_calloc(b->a, 1, sizeof *vp);
    if (!vp)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    int32_t pos = 0;
    fl_status rc = fl_sql_parse(sql, b->a, &vp->parsed, &pos, err);
    if (rc != FL_OK)
        return fl_front_err(pc, err, FL_EFORBIDDEN, rv->location, "42501",
                            "permission denied for table %s: its row filters or column masks do "
                            "not parse (%s)",
                            name, err->msg);
    vp->next = st->view_parses;
    st->view_parses = vp;
    fl_view_frame fr = {name, st->policies, st->policies ? st->policies->depth + 1 : 1};
    const fl_sql_parsed *saved_parsed = pc->parsed;
    fl_cte *saved_ctes = st->ctes;
    bool saved_foreign = st->foreign_sql; /* the policy query is floe's own SQL */
    pc->parsed = vp->parsed;
    st->ctes = NULL;
    st->policies = &fr;
    st->foreign_sql = false;
    fl_plan *p = NULL;
    rc = fl_plan_select(pc, NULL, vp->parsed->stmt, &p, err);
    pc->parsed = saved_parsed;
    st->ctes = saved_ctes;
    st->policies = fr.prev;
    st->foreign_sql = saved_foreign;
    if (rc != FL_OK) {
        pc->error_position = 0; /* positions in the policy text mean nothing to the user */
        return fl_error_state(err, FL_EFORBIDDEN, "42501",
                              "permission denied for table %s: its row filters or column masks "
                              "cannot be applied (%s)",
                              name, err->msg);
    }
    for (uint32_t k = 0; k < cols->nfields && k < p->schema.nfields; k++)
        if (!fl_type_equal(&p->schema.fields[k].type, &cols->fields[k].type))
            return fl_front_err(pc, err, FL_EFORBIDDEN, rv->location, "42501",
                                "permission denied for table %s: the mask of column \"%s\" does "
                                "not keep its type",
                                name, cols->fields[k].name);
    fl_rel r;
    memset(&r, 0, sizeof r);
    r.kind = FL_REL_PLAN;
    r.alias = alias;
    r.plan = p;
    FL_TRY(fl_scope_add_rel(b->a, &b->scope, &r, &p->schema, out_ri, err));
    *applied = true;
    return apply_alias_cols(b, rv->alias, *out_ri, err);
}

/* *found = false when id names no view (then nothing is bound). */
static fl_status bind_view(fl_bctx *b, const PgQuery__RangeVar *rv, const fl_table_ident *id,
                           const char *alias, uint32_t *out_ri, bool *found, fl_error *err)
{
    fl_planner_ctx *pc = b->pc;
    fl_catalog *cat = pc->catalog;
    *found = false;
    if (!cat->ops->load_view)
        return FL_OK;
    const char *loc = NULL;
    fl_error verr = {0};
    fl_status rc = cat->ops->load_view(cat, id, b->a, &loc, &verr);
    if (rc == FL_ENOTFOUND || rc == FL_EUNSUPPORTED)
        return FL_OK;
    *found = true;
    if (rc != FL_OK) {
        *err = verr;
        return fl_front_err_at(pc, err, rv->location);
    }
    fl_ice_view_metadata vm;
    if (fl_ice_view_metadata_read(pc->io, loc, b->a, &vm, err) != FL_OK)
        return fl_front_err_at(pc, err, rv->location);
    const char *name = fl_table_ident_str(id, b->a);
    const fl_ice_view_version *ver;
    bool foreign;
    const char *sql = view_sql(&vm, &ver, &foreign);
    if (!sql)
        return fl_front_err(pc, err, FL_EUNSUPPORTED, rv->location, "0A000",
                            "view \"%s\" has no SQL representation", name);
    fl_plan *p = NULL;
    /* whose rights the view's query runs with (ice_view.h) */
    const char *definer = fl_ice_map_get(&ver->summary, FL_ICE_VIEW_DEFINER);
    const char *security = fl_ice_map_get(&ver->summary, FL_ICE_VIEW_SECURITY);
    if (security && !strcasecmp(security, "invoker"))
        definer = NULL;
    const fl_principal *saved = NULL;
    if (definer)
        FL_TRY(fl_sql_authz_push_definer(pc, definer, rv->location, &saved, err));
    fl_status prc =
        plan_view(b, name, sql, foreign, view_namespace(ver, id, b->a), rv->location, &p, err);
    if (definer)
        fl_sql_authz_pop(pc, saved);
    FL_TRY(prc);
    view_column_names(&vm, ver, p, b->a);
    fl_rel r;
    memset(&r, 0, sizeof r);
    r.kind = FL_REL_PLAN;
    r.alias = alias;
    r.plan = p;
    FL_TRY(fl_scope_add_rel(b->a, &b->scope, &r, &p->schema, out_ri, err));
    return apply_alias_cols(b, rv->alias, *out_ri, err);
}

/* The metadata columns every table scan offers (Spark's _file, _pos,
 * _spec_id, _partition, row lineage; Trino's "$path", "$file_size",
 * "$partition", "$file_modified_time"), appended to the relation's schema
 * after the table's columns. A table column of the same name wins (the
 * metadata column is then not offered). */
static fl_status with_metadata_columns(fl_bctx *b, fl_rel *r, fl_error *err)
{
    static const int32_t ids[] = {
        FL_ICE_FIELD_ID_FILE_PATH,       FL_ICE_FIELD_ID_ROW_POS,
        FL_ICE_FIELD_ID_SPEC_ID,         FL_ICE_FIELD_ID_PARTITION,
        FL_ICE_FIELD_ID_ROW_ID,          FL_ICE_FIELD_ID_LAST_UPDATED_SEQ,
        FL_ICE_FIELD_ID_TRINO_PATH,      FL_ICE_FIELD_ID_TRINO_FILE_SIZE,
        FL_ICE_FIELD_ID_TRINO_PARTITION, FL_ICE_FIELD_ID_TRINO_FILE_MTIME};
    const uint32_t nmeta = sizeof ids / sizeof ids[0];
    const fl_schema *ts = r->schema;
    fl_schema *s = fl_arena_calloc(b->a, 1, sizeof *s);
    fl_field *f = fl_arena_calloc(b->a, ts->nfields + nmeta, sizeof *f);
    fl_field *part = fl_arena_calloc(b->a, 1, sizeof *part);
    if (!s || !f || !part)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    /* _partition's type is the table's partitioning; a spec floe cannot type
     * (an unknown transform) leaves it out rather than failing every query */
    fl_error perr;
    bool has_part = fl_ice_partition_column(r->meta, b->a, part, &perr) == FL_OK;
    if (ts->nfields)
        memcpy(f, ts->fields, ts->nfields * sizeof *f);
    uint32_t n = ts->nfields;
    for (uint32_t i = 0; i < nmeta; i++) {
        const fl_field *m =
            ids[i] == FL_ICE_FIELD_ID_PARTITION ? part : fl_ice_metadata_column(NULL, ids[i]);
        bool taken = ids[i] == FL_ICE_FIELD_ID_PARTITION && !has_part;
        for (uint32_t k = 0; k < ts->nfields && !taken; k++)
            taken = !strcmp(ts->fields[k].name, m->name);
        if (!taken)
            f[n++] = *m;
    }
    *s = *ts;
    s->fields = f;
    s->nfields = n;
    r->schema = s;
    return FL_OK;
}

/* The namespace a table reference names. In another engine's view (Spark,
 * Trino) `c.s.t` is catalog c, namespace s: c is that engine's name for a
 * catalog, which floe cannot know (Spark records the session's current
 * catalog as default-catalog, not the one in the text), and the only
 * catalog floe can resolve is the one holding the view, so c is dropped.
 * In floe's own SQL `a.b.t` is the nested namespace a.b. */
static fl_status rv_namespace(fl_planner_ctx *pc, const PgQuery__RangeVar *rv, fl_arena *a,
                              fl_namespace *out, fl_error *err)
{
    fl_front_state *st = fl_front_state_of(pc);
    if (st && st->foreign_sql && rv->catalogname && rv->catalogname[0] && rv->schemaname &&
        rv->schemaname[0])
        return fl_namespace_parse(rv->schemaname, a, out, err);
    return fl_planner_rv_namespace(pc, rv, a, out, err);
}

fl_status fl_bind_table(fl_bctx *b, const PgQuery__RangeVar *rv, uint32_t *out_ri, fl_error *err)
{
    fl_planner_ctx *pc = b->pc;
    const char *alias = rv->alias && rv->alias->aliasname[0] ? rv->alias->aliasname : rv->relname;
    if (!rv->schemaname[0]) {
        fl_front_state *st = fl_front_state_of(pc);
        for (fl_cte *c = st ? st->ctes : NULL; c; c = c->next)
            if (strcmp(c->name, rv->relname) == 0 && (c->recursive || !c->in_anchor)) {
                FL_TRY(bind_cte(b, c, alias, out_ri, err));
                return apply_alias_cols(b, rv->alias, *out_ri, err);
            }
    }
    bool pgcat = false; /* pg_catalog / information_schema (src/sql/pgcat) */
    FL_TRY(fl_pgcat_bind_table(b, rv, alias, out_ri, &pgcat, err));
    if (pgcat)
        return apply_alias_cols(b, rv->alias, *out_ri, err);
    if (!pc->catalog)
        return fl_front_err(pc, err, FL_ENOTFOUND, rv->location, "42P01",
                            "relation \"%s\" does not exist (no catalog is configured)",
                            rv->relname);
    /* "t$files" -> table t, metadata table files */
    char *base = fl_arena_strdup(b->a, rv->relname);
    if (!base)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    char *dollar = strchr(base, '$');
    const char *metatable = NULL;
    if (dollar) {
        *dollar = 0;
        metatable = dollar + 1;
    }
    fl_table_ident id;
    FL_TRY(rv_namespace(pc, rv, b->a, &id.ns, err));
    id.name = base;
    /* a table and a view are one securable: READ before anything is loaded,
     * so a refusal never says whether the object exists */
    FL_TRY(fl_sql_authz_table(pc, FL_PRIV_READ, &id, rv->location, err));
    fl_ice_table *t = NULL;
    fl_status rc = fl_front_load_table(pc, &id, &t, err);
    if (rc == FL_ENOTFOUND && !metatable) {
        bool view = false;
        FL_TRY(bind_view(b, rv, &id, alias, out_ri, &view, err));
        if (view)
            return FL_OK;
    }
    if (rc == FL_ENOTFOUND)
        return fl_front_err(pc, err, rc, rv->location, "42P01", "relation \"%s\" does not exist",
                            fl_table_ident_str(&id, b->a));
    if (rc != FL_OK)
        return fl_front_err_at(pc, err, rv->location);
    int64_t sid = -1;
    const fl_ice_schema *sch = NULL;
    FL_TRY(fl_front_snapshot(pc, &t->meta, rv->location, &sid, &sch, err));
    bool filtered = false;
    FL_TRY(bind_policies(b, rv, &id, &sch->schema, sid, metatable, alias, out_ri, &filtered, err));
    if (filtered)
        return FL_OK;
    fl_rel r;
    memset(&r, 0, sizeof r);
    r.kind = FL_REL_TABLE;
    r.alias = alias;
    r.meta = &t->meta;
    r.snapshot_id = sid;
    r.name = fl_arena_sprintf(b->a, "%s%s%s", fl_table_ident_str(&id, b->a), metatable ? "$" : "",
                              metatable ? metatable : "");
    r.schema = &sch->schema;
    r.base_rows = sid >= 0 ? snapshot_rows(&t->meta, sid) : 0;
    if (metatable) {
        fl_ice_scan_options o;
        memset(&o, 0, sizeof o);
        if (sid >= 0) {
            o.select = FL_ICE_SNAP_ID;
            o.snapshot_id = sid;
        }
        fl_ice_metatable *mt = NULL;
        rc = fl_ice_metatable_open(pc->io, &t->meta, metatable, &o, &mt, err);
        if (rc == FL_ENOTFOUND || rc == FL_EINVAL)
            return fl_front_err(pc, err, FL_ENOTFOUND, rv->location, "42P01",
                                "relation \"%s\" does not exist (unknown metadata table \"%s\")",
                                rv->relname, metatable);
        if (rc != FL_OK)
            return fl_front_err_at(pc, err, rv->location);
        fl_schema *cp = fl_arena_calloc(b->a, 1, sizeof *cp);
        rc = cp ? fl_schema_copy(b->a, fl_ice_metatable_schema(mt), cp) : FL_ENOMEM;
        fl_ice_metatable_close(mt);
        if (rc != FL_OK)
            return fl_errorf(err, rc, "out of memory");
        r.schema = cp;
        r.metatable = metatable;
        r.base_rows = 100;
    }
    if (!metatable)
        FL_TRY(with_metadata_columns(b, &r, err));
    FL_TRY(fl_scope_add_rel(b->a, &b->scope, &r, r.schema, out_ri, err));
    fl_rel *rel = &b->scope.rels[*out_ri];
    for (uint32_t i = sch->schema.nfields; !metatable && i < rel->ncols; i++)
        b->scope.cols[rel->first + i].meta_hidden = true;
    return apply_alias_cols(b, rv->alias, *out_ri, err);
}

bool fl_scope_has(const fl_bctx *b, const char *qual, const char *name)
{
    uint32_t i;
    for (const fl_bctx *g = b; g; g = g->parent)
        if (find_in(&g->scope, qual, name, &i) != 0)
            return true;
    return false;
}
