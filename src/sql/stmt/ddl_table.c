/*
 * ddl_table.c - CREATE TABLE [IF NOT EXISTS] and CREATE TABLE ... AS
 * SELECT (stmt.h), with Trino's table options:
 *
 *   CREATE TABLE t (id bigint NOT NULL, ts timestamptz, v varchar)
 *   WITH (partitioning = ARRAY['day(ts)', 'bucket(16, id)'],
 *         sorted_by = ARRAY['id'], format_version = 2,
 *         location = 's3://b/t', "write.delete.mode" = 'copy-on-write')
 *
 * partitioning/sorted_by values are the pre-lexer's ARRAY[...] lists
 * (fl_sql_parsed.array_option_*) or one string of comma-separated items
 * ('day(ts), bucket(16, id)'). format_version becomes format-version; format
 * must be PARQUET; every other key is a table property, verbatim. NOT NULL
 * and PRIMARY KEY columns are required (PRIMARY KEY columns also become the
 * identifier fields). An unqualified table goes into the session's default
 * namespace, created if missing; a qualified one needs its schema.
 *
 * CREATE TABLE AS plans the query first (its columns give the schema),
 * creates the table staged (nothing recorded), writes the rows and commits
 * once: the table appears with its data atomically, or not at all. The tag
 * is PostgreSQL's "SELECT n".
 *
 * Temporary tables (CREATE TEMP TABLE, rewritten to pg_temp_N.t by
 * session_temp_rewrite.c) take their location from the session's private
 * folder (session_temp.h); the overlay catalog records them.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sql/pgcat/pgcat.h"
#include "sql/session/session_internal.h"
#include "sql/stmt/stmt_int.h"
#include "sql/stmt/stmt_opts.h"

/* ---- WITH (...) options ---- */

static fl_status push_prop(fl_arena *a, stmt_table_opts *o, const char *k, const char *v,
                           fl_error *err)
{
    if (o->nprops == o->cap) {
        uint32_t nc = o->cap ? o->cap * 2 : 8;
        fl_ice_kv *p = fl_arena_calloc(a, nc, sizeof *p);
        if (!p)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        if (o->nprops)
            memcpy(p, o->props, o->nprops * sizeof *p);
        o->props = p;
        o->cap = nc;
    }
    o->props[o->nprops++] = (fl_ice_kv){k, v};
    return FL_OK;
}

static fl_status list_option(fl_stmt_ctx *c, const char *name, const char *text,
                             const char *const **vals, uint32_t *n, fl_error *err)
{
    if (stmt_array_option(c, name, vals, n))
        return FL_OK;
    if (!text)
        return fl_errorf(err, FL_EINVAL, "option %s needs ARRAY['...'] or a string value", name);
    const char **v;
    *n = stmt_split_list(c->planner->arena, text, &v);
    *vals = v;
    return FL_OK;
}

fl_status stmt_table_options(fl_stmt_ctx *c, PgQuery__Node *const *opts, size_t nopts,
                             bool reset, stmt_table_opts *o, fl_error *err)
{
    fl_arena *a = c->planner->arena;
    memset(o, 0, sizeof *o);
    for (size_t i = 0; i < nopts; i++) {
        if (opts[i]->node_case != PG_QUERY__NODE__NODE_DEF_ELEM)
            return fl_errorf(err, FL_EINVAL, "unexpected table option");
        const PgQuery__DefElem *d = opts[i]->def_elem;
        const char *name = stmt_defelem_name(a, d);
        const char *text = stmt_node_text(a, d->arg);
        if (reset) {
            /* RESET (k, ...): partitioning/sorted_by reset to none */
            if (!strcasecmp(name, "partitioning"))
                o->set_parts = true;
            else if (!strcasecmp(name, "sorted_by"))
                o->set_sorts = true;
            else if (!strcasecmp(name, "format_version") || !strcasecmp(name, "location"))
                return fl_errorf(err, FL_EINVAL, "option %s cannot be reset", name);
            else {
                const char **r = fl_arena_calloc(a, o->nremove + 1, sizeof *r);
                if (!r)
                    return fl_errorf(err, FL_ENOMEM, "out of memory");
                if (o->nremove)
                    memcpy(r, o->remove, o->nremove * sizeof *r);
                r[o->nremove++] = name;
                o->remove = r;
            }
            continue;
        }
        if (!strcasecmp(name, "partitioning") || !strcasecmp(name, "partitioned_by")) {
            FL_TRY(list_option(c, name, text, &o->parts, &o->nparts, err));
            o->set_parts = true;
        } else if (!strcasecmp(name, "sorted_by")) {
            FL_TRY(list_option(c, name, text, &o->sorts, &o->nsorts, err));
            o->set_sorts = true;
        } else if (!strcasecmp(name, "location")) {
            if (!text)
                return fl_errorf(err, FL_EINVAL, "option location needs a string value");
            o->location = text;
        } else if (!strcasecmp(name, "format")) {
            if (!text || strcasecmp(text, "parquet") != 0)
                return fl_errorf(err, FL_EUNSUPPORTED,
                                 "format %s: floe writes PARQUET data files only",
                                 text ? text : "(none)");
        } else if (!strcasecmp(name, "format_version") || !strcasecmp(name, "format-version")) {
            if (!text || (strcmp(text, "1") && strcmp(text, "2") && strcmp(text, "3")))
                return fl_errorf(err, FL_EINVAL, "format_version must be 1, 2 or 3");
            FL_TRY(push_prop(a, o, "format-version", text, err));
        } else {
            if (!text)
                return fl_errorf(err, FL_EINVAL, "table property %s needs a value", name);
            FL_TRY(push_prop(a, o, name, text, err));
        }
    }
    return FL_OK;
}

/* ---- CREATE TABLE ---- */

static fl_status add_ident_field(fl_arena *a, const char ***v, uint32_t *n, const char *name,
                                 fl_error *err)
{
    const char **p = fl_arena_calloc(a, *n + 1, sizeof *p);
    if (!p)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    if (*n)
        memcpy(p, *v, *n * sizeof *p);
    p[(*n)++] = name;
    *v = p;
    return FL_OK;
}

static fl_status column_def(fl_stmt_ctx *c, const PgQuery__ColumnDef *cd, fl_field *f,
                            const char ***idents, uint32_t *nidents, const char **dflt,
                            fl_error *err)
{
    fl_arena *a = c->planner->arena;
    memset(f, 0, sizeof *f);
    f->name = cd->colname;
    f->nullable = !cd->is_not_null;
    *dflt = NULL;
    FL_TRY(stmt_type_of(c, cd->type_name, &f->type, err));
    if (cd->cooked_default || (cd->generated && *cd->generated) ||
        (cd->identity && *cd->identity)) {
        stmt_set_position(c, cd->location);
        return fl_errorf(err, FL_EUNSUPPORTED,
                         "column \"%s\": GENERATED and IDENTITY are not supported", cd->colname);
    }
    if (cd->raw_default)
        FL_TRY(stmt_default_json(c, cd->raw_default, cd->colname, &f->type, dflt, err));
    for (size_t i = 0; i < cd->n_constraints; i++) {
        const PgQuery__Node *n = cd->constraints[i];
        if (n->node_case != PG_QUERY__NODE__NODE_CONSTRAINT)
            continue;
        const PgQuery__Constraint *k = n->constraint;
        switch (k->contype) {
        case PG_QUERY__CONSTR_TYPE__CONSTR_NOTNULL:
            f->nullable = false;
            break;
        case PG_QUERY__CONSTR_TYPE__CONSTR_NULL:
            break;
        case PG_QUERY__CONSTR_TYPE__CONSTR_DEFAULT:
            FL_TRY(stmt_default_json(c, k->raw_expr, cd->colname, &f->type, dflt, err));
            break;
        case PG_QUERY__CONSTR_TYPE__CONSTR_GENERATED:
        case PG_QUERY__CONSTR_TYPE__CONSTR_IDENTITY:
            stmt_set_position(c, k->location);
            return fl_errorf(err, FL_EUNSUPPORTED,
                             "column \"%s\": GENERATED and IDENTITY are not supported",
                             cd->colname);
        case PG_QUERY__CONSTR_TYPE__CONSTR_PRIMARY:
            f->nullable = false;
            FL_TRY(add_ident_field(a, idents, nidents, cd->colname, err));
            break;
        default:
            stmt_set_position(c, k->location);
            return fl_errorf(err, FL_EUNSUPPORTED,
                             "column \"%s\": only NOT NULL, NULL and PRIMARY KEY constraints "
                             "are supported",
                             cd->colname);
        }
    }
    return FL_OK;
}

static fl_status table_pk(fl_stmt_ctx *c, const PgQuery__Constraint *k, fl_schema *s,
                          const char ***idents, uint32_t *nidents, fl_error *err)
{
    if (k->contype != PG_QUERY__CONSTR_TYPE__CONSTR_PRIMARY) {
        stmt_set_position(c, k->location);
        return fl_errorf(err, FL_EUNSUPPORTED, "only PRIMARY KEY table constraints are supported");
    }
    for (size_t i = 0; i < k->n_keys; i++) {
        const char *name = stmt_node_text(c->planner->arena, k->keys[i]);
        fl_field *f = NULL;
        for (uint32_t j = 0; name && j < s->nfields && !f; j++)
            if (!strcmp(s->fields[j].name, name))
                f = &s->fields[j];
        if (!f)
            return fl_errorf(err, FL_ENOTFOUND, "PRIMARY KEY column \"%s\" does not exist",
                             name ? name : "?");
        f->nullable = false;
        FL_TRY(add_ident_field(c->planner->arena, idents, nidents, name, err));
    }
    return FL_OK;
}

static fl_status check_unique(fl_stmt_ctx *c, const fl_schema *s, fl_error *err)
{
    for (uint32_t i = 0; i < s->nfields; i++)
        for (uint32_t j = 0; j < i; j++)
            if (!strcmp(s->fields[i].name, s->fields[j].name)) {
                return fl_error_state(err, FL_EINVAL, "42701",
                                      "column \"%s\" specified more than once", s->fields[i].name);
            }
    return FL_OK;
}

/* Loads nothing; FL_EEXIST when id is a table already. */
static bool table_exists(fl_stmt_ctx *c, const fl_table_ident *id)
{
    fl_error e;
    fl_error_clear(&e);
    const char *loc;
    fl_arena *a = c->planner->arena;
    return c->planner->catalog->ops->load_table(c->planner->catalog, id, a, &loc, &e) == FL_OK;
}

static fl_status create(fl_stmt_ctx *c, const PgQuery__RangeVar *rv, const fl_table_ident *id,
                        const fl_schema *s, const char *const *idents, uint32_t nidents,
                        const stmt_table_opts *o, bool staged, fl_ice_table **out, fl_error *err)
{
    fl_catalog *cat = c->planner->catalog;
    bool qualified = (rv->schemaname && *rv->schemaname) || (rv->catalogname && *rv->catalogname);
    if (!qualified)
        FL_TRY(stmt_ensure_namespace(c, &id->ns, err));
    /* a temporary table (session_temp.h: pg_temp_N after the rewrite) lives
     * in the session's private folder */
    const char *location = o->location, *temp_loc = NULL;
    FL_TRY(fl_session_temp_location(c->session ? c->session->temp : NULL, id, c->planner->arena,
                                    &temp_loc, err));
    if (temp_loc && location) {
        return fl_error_state(err, FL_EUNSUPPORTED, "0A000",
                              "a temporary table cannot have a location (it is private to the "
                              "session)");
    }
    if (temp_loc)
        location = temp_loc;
    fl_ice_map props = {o->nprops, o->props};
    fl_ice_create_options co = {.schema = s,
                                .identifier_fields = idents,
                                .nidentifier_fields = nidents,
                                .partition_by = o->parts,
                                .npartition_by = o->nparts,
                                .sort_by = o->sorts,
                                .nsort_by = o->nsorts,
                                .properties = &props,
                                .write_defaults = o->write_defaults,
                                .location = location,
                                .stage_only = staged,
                                /* a user's location is confined (fl_ice_location_check);
                                 * the session's own temporary folder is not */
                                .private_location = temp_loc != NULL};
    fl_status rc = fl_ice_table_create(cat, id, &co, out, err);
    const char *name = fl_table_ident_str(id, c->planner->arena);
    if (rc == FL_EEXIST) {
        return fl_error_state(err, FL_EEXIST, "42P07", "relation \"%s\" already exists", name);
    }
    if (rc == FL_ENOTFOUND && qualified) {
        fl_error_set_state(err, "3F000");
        return fl_error_prefix(err, "schema \"%s\" does not exist",
                               fl_namespace_str(&id->ns, c->planner->arena));
    }
    return rc;
}

fl_status stmt_create_table(fl_stmt_ctx *c, const PgQuery__CreateStmt *s, fl_stmt_result *out,
                            fl_error *err)
{
    FL_TRY(stmt_need_catalog(c, "CREATE TABLE", err));
    fl_arena *a = c->planner->arena;
    if (s->n_inh_relations || s->partspec || s->partbound || s->of_typename)
        return fl_errorf(err, FL_EUNSUPPORTED,
                         "CREATE TABLE: INHERITS, PARTITION BY and OF are not supported (use "
                         "WITH (partitioning = ARRAY['col', 'day(ts)', ...]))");
    fl_table_ident id;
    FL_TRY(stmt_ident_rv(c, s->relation, &id, err));
    FL_TRY(fl_sql_authz_namespace(c->planner, FL_PRIV_CREATE, &id.ns, s->relation->location, err));
    if (s->if_not_exists && table_exists(c, &id)) {
        stmt_tag(out, "CREATE TABLE");
        return FL_OK;
    }
    fl_schema sch = {0};
    sch.fields = fl_arena_calloc(a, s->n_table_elts + 1, sizeof *sch.fields);
    if (!sch.fields)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    const char **idents = NULL;
    uint32_t nidents = 0;
    const char **dflts = fl_arena_calloc(a, s->n_table_elts + 1, sizeof *dflts);
    bool any_default = false;
    if (!dflts)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (size_t i = 0; i < s->n_table_elts; i++) {
        const PgQuery__Node *n = s->table_elts[i];
        if (n->node_case == PG_QUERY__NODE__NODE_COLUMN_DEF) {
            FL_TRY(column_def(c, n->column_def, &sch.fields[sch.nfields], &idents, &nidents,
                              &dflts[sch.nfields], err));
            any_default |= dflts[sch.nfields++] != NULL;
        } else if (n->node_case != PG_QUERY__NODE__NODE_CONSTRAINT)
            return fl_errorf(err, FL_EUNSUPPORTED, "CREATE TABLE: LIKE is not supported");
    }
    for (size_t i = 0; i < s->n_table_elts; i++)
        if (s->table_elts[i]->node_case == PG_QUERY__NODE__NODE_CONSTRAINT)
            FL_TRY(table_pk(c, s->table_elts[i]->constraint, &sch, &idents, &nidents, err));
    for (size_t i = 0; i < s->n_constraints; i++)
        if (s->constraints[i]->node_case == PG_QUERY__NODE__NODE_CONSTRAINT)
            FL_TRY(table_pk(c, s->constraints[i]->constraint, &sch, &idents, &nidents, err));
    if (!sch.nfields)
        return fl_errorf(err, FL_EINVAL, "CREATE TABLE: a table needs at least one column");
    FL_TRY(check_unique(c, &sch, err));
    stmt_table_opts o;
    FL_TRY(stmt_table_options(c, s->options, s->n_options, false, &o, err));
    o.write_defaults = any_default ? dflts : NULL;
    fl_ice_table *t = NULL;
    fl_status rc = create(c, s->relation, &id, &sch, idents, nidents, &o, false, &t, err);
    fl_ice_table_free(t);
    FL_TRY(rc);
    stmt_tag(out, "CREATE TABLE");
    return FL_OK;
}

/* ---- CREATE TABLE AS ---- */

typedef struct ctas_write {
    fl_ice_data_writer *w;
    uint32_t ncols;
    int64_t rows;
} ctas_write;

/* The table's column types for a query column: untyped literals become
 * strings; everything else keeps its (Iceberg) type. */
/* The column type CREATE TABLE AS stores for a query column: ARRAY[...]
 * values (PostgreSQL array text, src/sql/pgcat) become a list of their
 * element type, as PostgreSQL's int[] columns; the rows are converted by
 * the text -> list cast (cast_list.c). */
static fl_status table_type(fl_arena *a, const fl_type *in, fl_type *out, fl_error *err)
{
    *out = *in;
    if (fl_pg_is_array_text(in)) {
        fl_type et = fl_pgcat_type_for_oid((uint32_t)in->scale);
        if (!fl_type_is_nested(&et) && !fl_pg_is_array_text(&et)) {
            fl_field *el = fl_arena_calloc(a, 1, sizeof *el);
            if (!el)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            el->name = "element";
            el->type = et;
            if (el->type.id == FL_TYPE_STRING)
                el->type.fixed_len = 0;
            el->nullable = true;
            memset(out, 0, sizeof *out);
            out->id = FL_TYPE_LIST;
            out->nchildren = 1;
            out->children = el;
            return FL_OK;
        }
        out->precision = 0;
        out->scale = 0;
    }
    if (out->id != FL_TYPE_FIXED && out->id != FL_TYPE_UUID)
        out->fixed_len = 0;
    return FL_OK;
}

static fl_status ctas_schema(fl_stmt_ctx *c, const fl_plan *plan, const PgQuery__IntoClause *into,
                             fl_schema *s, fl_error *err)
{
    fl_arena *a = c->planner->arena;
    uint32_t n = plan->schema.nfields;
    if (into->n_col_names > n)
        return fl_errorf(err, FL_EINVAL, "CREATE TABLE AS specifies too many column names");
    s->fields = fl_arena_calloc(a, n + 1, sizeof *s->fields);
    if (!s->fields)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    s->nfields = n;
    for (uint32_t i = 0; i < n; i++) {
        fl_field *f = &s->fields[i];
        f->name = plan->schema.fields[i].name;
        if (i < into->n_col_names)
            f->name = stmt_node_text(a, into->col_names[i]);
        if (!f->name || !*f->name)
            f->name = fl_arena_sprintf(a, "_col%u", i);
        f->nullable = true;
        FL_TRY(table_type(a, &plan->schema.fields[i].type, &f->type, err));
    }
    return check_unique(c, s, err);
}

fl_status stmt_ctas(fl_stmt_ctx *c, const PgQuery__CreateTableAsStmt *s, fl_stmt_result *out,
                    fl_error *err)
{
    FL_TRY(stmt_need_catalog(c, "CREATE TABLE AS", err));
    if (s->objtype != PG_QUERY__OBJECT_TYPE__OBJECT_TABLE)
        return fl_errorf(err, FL_EUNSUPPORTED, "materialized views are not supported");
    const PgQuery__IntoClause *into = s->into;
    if (!into || !into->rel)
        return fl_errorf(err, FL_EINVAL, "CREATE TABLE AS: missing table name");
    fl_table_ident id;
    FL_TRY(stmt_ident_rv(c, into->rel, &id, err));
    FL_TRY(fl_sql_authz_namespace(c->planner, FL_PRIV_CREATE, &id.ns, into->rel->location, err));
    if (s->if_not_exists && table_exists(c, &id)) {
        stmt_tag(out, "SELECT 0");
        return FL_OK;
    }
    fl_plan *plan = NULL;
    FL_TRY(fl_planner_plan_query(c->planner, s->query, &plan, err));
    fl_schema sch;
    FL_TRY(ctas_schema(c, plan, into, &sch, err));
    stmt_table_opts o;
    FL_TRY(stmt_table_options(c, into->options, into->n_options, false, &o, err));
    fl_ice_table *t = NULL;
    FL_TRY(create(c, into->rel, &id, &sch, NULL, 0, &o, true, &t, err));
    const char *name = fl_table_ident_str(&id, c->planner->arena);
    fl_ice_txn *x = NULL;
    ctas_write cw = {NULL, sch.nfields, 0};
    fl_ice_data_writers *set = NULL;
    fl_status rc = fl_ice_txn_begin(t, &x, err);
    if (rc == FL_OK && !into->skip_data)
        rc = fl_ice_data_writer_open(x, &cw.w, err);
    fl_plan *proj = NULL;
    if (rc == FL_OK && cw.w) {
        const fl_schema *ws = fl_ice_data_writer_schema(cw.w);
        int32_t *src = fl_arena_calloc(c->planner->arena, ws->nfields + 1, sizeof *src);
        fl_type *types = fl_arena_calloc(c->planner->arena, ws->nfields + 1, sizeof *types);
        const char **names = fl_arena_calloc(c->planner->arena, ws->nfields + 1, sizeof *names);
        if (!src || !types || !names)
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
        for (uint32_t i = 0; rc == FL_OK && i < ws->nfields; i++) {
            src[i] = (int32_t)i;
            types[i] = ws->fields[i].type;
            names[i] = ws->fields[i].name;
        }
        if (rc == FL_OK)
            rc = stmt_project_cast(c, plan, src, types, names, NULL, NULL, ws->nfields, &proj, err);
        /* cw.w gave the schema the casts use; the rows go through a
         * writer per executor thread (stmt_write_plan) */
        fl_ice_data_file *files = NULL;
        uint32_t nfiles = 0;
        if (rc == FL_OK)
            rc = stmt_write_plan(c, x, proj, cw.ncols, &cw.rows, &set, &files, &nfiles, err);
        if (rc == FL_OK && nfiles)
            rc = fl_ice_txn_append(x, files, nfiles, err);
    }
    if (rc == FL_OK) {
        fl_ice_txn *xx = x;
        x = NULL;
        rc = stmt_commit(c, xx, name, out, err);
    }
    fl_ice_txn_abort(x);
    fl_ice_data_writers_free(set); /* after the commit: the file list lives in the set */
    fl_ice_data_writer_abort(cw.w);
    fl_ice_table_free(t);
    FL_TRY(rc);
    stmt_tag(out, "SELECT %lld", (long long)cw.rows);
    out->rows_affected = cw.rows;
    return FL_OK;
}
