/*
 * ddl_view.c - CREATE [OR REPLACE] VIEW v [(cols)] AS query and DROP VIEW
 * [IF EXISTS] (stmt.h), stored as Iceberg views (view-spec.md) through
 * the catalog's view entries (catalog.h: create_view, load_view,
 * commit_view, drop_view; FL_EUNSUPPORTED when the catalog has none).
 *
 * The query is planned once to check it and to get its columns; the view
 * metadata (format-version 1) gets the columns as its schema (field ids
 * 1..n, nested fields numbered after them), one version whose SQL
 * representation is the query text exactly as written (dialect "floe"),
 * the session's default namespace, and summary engine-name=floe. It is
 * built with fl_ice_view_metadata_apply (as Java's ViewMetadata.Builder)
 * and written to <location>/metadata/<NNNNN>-<uuid>.metadata.json, then
 * recorded in the catalog. OR REPLACE adds a version to the existing view
 * and swaps the catalog pointer (compare-and-swap: FL_ECONFLICT when
 * someone else changed it meanwhile). Reading views in queries is the
 * planner's business.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "floe/ice_view.h"
#include "sql/stmt/stmt_int.h"

/* Byte offset of the query text: after the first AS keyword following
 * VIEW (outside quotes); -1 when not found. */
static int32_t query_offset(const char *t)
{
    bool seen_view = false;
    for (int32_t i = 0; t[i];) {
        char ch = t[i];
        if (ch == '"' || ch == '\'') {
            i++;
            while (t[i] && t[i] != ch)
                i++;
            if (t[i])
                i++;
            continue;
        }
        if (isalpha((unsigned char)ch) || ch == '_') {
            int32_t s = i;
            while (isalnum((unsigned char)t[i]) || t[i] == '_' || t[i] == '$')
                i++;
            if (i - s == 4 && !strncasecmp(t + s, "view", 4))
                seen_view = true;
            else if (seen_view && i - s == 2 && !strncasecmp(t + s, "as", 2)) {
                while (isspace((unsigned char)t[i]))
                    i++;
                return i;
            }
            continue;
        }
        i++;
    }
    return -1;
}

static void number_fields(fl_type *t, int32_t *next)
{
    for (uint32_t i = 0; i < t->nchildren; i++)
        t->children[i].field_id = (*next)++;
    for (uint32_t i = 0; i < t->nchildren; i++)
        number_fields(&t->children[i].type, next);
}

static fl_status view_schema(fl_stmt_ctx *c, const fl_plan *plan, const PgQuery__ViewStmt *s,
                             fl_ice_schema *out, fl_error *err)
{
    fl_arena *a = c->planner->arena;
    fl_schema sch;
    FL_TRY(fl_schema_copy(a, &plan->schema, &sch));
    if (s->n_aliases > sch.nfields)
        return fl_errorf(err, FL_EINVAL, "CREATE VIEW specifies more column names than columns");
    int32_t next = (int32_t)sch.nfields + 1;
    for (uint32_t i = 0; i < sch.nfields; i++) {
        fl_field *f = &sch.fields[i];
        if (i < s->n_aliases)
            f->name = stmt_node_text(a, s->aliases[i]);
        if (!f->name || !*f->name)
            f->name = fl_arena_sprintf(a, "_col%u", i);
        f->field_id = (int32_t)i + 1;
        f->nullable = true;
        if (f->type.id != FL_TYPE_FIXED && f->type.id != FL_TYPE_UUID)
            f->type.fixed_len = 0;
    }
    for (uint32_t i = 0; i < sch.nfields; i++)
        number_fields(&sch.fields[i].type, &next);
    for (uint32_t i = 0; i < sch.nfields; i++)
        for (uint32_t j = 0; j < i; j++)
            if (!strcmp(sch.fields[i].name, sch.fields[j].name)) {
                return fl_error_state(err, FL_EINVAL, "42701",
                                      "column \"%s\" specified more than once", sch.fields[i].name);
            }
    return fl_ice_schema_from_fl(&sch, 0, a, out, err);
}

static fl_status write_metadata(fl_stmt_ctx *c, const fl_ice_view_metadata *m, int version,
                                const char **path, fl_error *err)
{
    fl_arena *a = c->planner->arena;
    char uuid[37];
    fl_ice_uuid4(uuid);
    *path = fl_arena_sprintf(a, "%s/metadata/%05d-%s.metadata.json", m->location, version, uuid);
    char *json = NULL;
    size_t len = 0;
    FL_TRY(fl_ice_view_metadata_write(m, &json, &len, err));
    fl_output *o = NULL;
    fl_status rc = fl_fileio_create(c->planner->io, *path, 0, &o, err);
    if (rc == FL_OK)
        rc = fl_output_write(o, json, len, err);
    if (rc == FL_OK) {
        fl_output *oo = o;
        o = NULL;
        rc = fl_output_close(oo, err);
    }
    fl_output_abort(o);
    free(json);
    return rc;
}

/* The version's summary: the engine, and whose rights the view runs with
 * (ice_view.h): the creating principal, or "invoker" when declared so.
 * Without authorization there is no principal to record: invoker rights. */
static fl_ice_map version_summary(fl_stmt_ctx *c, bool invoker, fl_ice_kv *kv)
{
    uint32_t n = 0;
    kv[n].key = "engine-name";
    kv[n++].value = "floe";
    if (invoker) {
        kv[n].key = FL_ICE_VIEW_SECURITY;
        kv[n++].value = "invoker";
    } else if (fl_sql_authz_enabled(c->planner->authz)) {
        kv[n].key = FL_ICE_VIEW_DEFINER;
        kv[n++].value = fl_sql_authz_invoker(c->planner->authz);
    }
    return (fl_ice_map){n, kv};
}

static fl_status build(fl_stmt_ctx *c, const fl_ice_view_metadata *base, const char *location,
                       const fl_ice_schema *schema, const char *sql, bool invoker,
                       fl_ice_view_metadata *out, fl_error *err)
{
    fl_arena *a = c->planner->arena;
    fl_ice_view_representation *rep = fl_arena_calloc(a, 1, sizeof *rep);
    fl_ice_kv *kv = fl_arena_calloc(a, 2, sizeof *kv);
    fl_ice_view_version *v = fl_arena_calloc(a, 1, sizeof *v);
    fl_namespace ns;
    const char *d = c->planner->default_namespace;
    FL_TRY(fl_namespace_parse(d && *d ? d : "default", a, &ns, err));
    if (!rep || !kv || !v)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    rep->type = "sql";
    rep->sql = sql;
    rep->dialect = "floe";
    v->version_id = 1;
    v->schema_id = -1;
    v->timestamp_ms = stmt_now_ms();
    v->summary = version_summary(c, invoker, kv);
    v->nrepresentations = 1;
    v->representations = rep;
    v->ndefault_namespace = ns.nlevels;
    v->default_namespace = (const char **)ns.levels;
    fl_ice_view_update u[4];
    uint32_t n = 0;
    memset(u, 0, sizeof u);
    if (!base) {
        u[n].kind = FL_ICE_VIEW_UPD_SET_LOCATION;
        u[n++].location = location;
    }
    u[n].kind = FL_ICE_VIEW_UPD_ADD_SCHEMA;
    u[n++].schema = schema;
    u[n].kind = FL_ICE_VIEW_UPD_ADD_VERSION;
    u[n++].version = v;
    u[n].kind = FL_ICE_VIEW_UPD_SET_CURRENT_VERSION;
    u[n++].version_id = -1;
    bool changed;
    return fl_ice_view_metadata_apply(base, u, n, stmt_now_ms(), a, out, &changed, err);
}

static fl_status replace(fl_stmt_ctx *c, const fl_table_ident *id, const fl_ice_schema *schema,
                         const char *sql, bool invoker, fl_error *err)
{
    /* replacing a view's query changes what it shows: WRITE on the view */
    FL_TRY(fl_sql_authz_table(c->planner, FL_PRIV_WRITE, id, -1, err));
    fl_catalog *cat = c->planner->catalog;
    fl_arena *a = c->planner->arena;
    const char *old = NULL;
    FL_TRY(cat->ops->load_view(cat, id, a, &old, err));
    fl_ice_view_metadata base, m;
    FL_TRY(fl_ice_view_metadata_read(c->planner->io, old, a, &base, err));
    FL_TRY(build(c, &base, base.location, schema, sql, invoker, &m, err));
    const char *path;
    FL_TRY(write_metadata(c, &m, (int)base.nversion_log + 1, &path, err));
    fl_status rc = cat->ops->commit_view(cat, id, old, path, err);
    if (rc != FL_OK) {
        fl_error e2;
        fl_fileio_remove(c->planner->io, path, &e2);
    }
    return rc;
}

/* WITH (security_invoker = true | false), PostgreSQL's spelling. */
static fl_status view_options(fl_stmt_ctx *c, const PgQuery__ViewStmt *s, bool *invoker,
                              fl_error *err)
{
    for (size_t i = 0; i < s->n_options; i++) {
        const PgQuery__Node *o = s->options[i];
        if (o->node_case != PG_QUERY__NODE__NODE_DEF_ELEM ||
            strcasecmp(o->def_elem->defname, "security_invoker") != 0)
            return fl_errorf(err, FL_EUNSUPPORTED,
                             "CREATE VIEW: the only WITH option supported is security_invoker");
        const char *v = o->def_elem->arg ? stmt_node_text(c->planner->arena, o->def_elem->arg)
                                         : "true";
        if (v && (!strcasecmp(v, "true") || !strcasecmp(v, "on") || !strcmp(v, "1")))
            *invoker = true;
        else if (v && (!strcasecmp(v, "false") || !strcasecmp(v, "off") || !strcmp(v, "0")))
            *invoker = false;
        else
            return fl_errorf(err, FL_EINVAL, "CREATE VIEW: security_invoker must be a boolean");
    }
    return FL_OK;
}

fl_status stmt_view(fl_stmt_ctx *c, const PgQuery__ViewStmt *s, fl_stmt_result *out,
                    fl_error *err)
{
    FL_TRY(stmt_need_catalog(c, "CREATE VIEW", err));
    fl_catalog *cat = c->planner->catalog;
    fl_arena *a = c->planner->arena;
    if (!cat->ops->create_view || !cat->ops->load_view || !cat->ops->commit_view)
        return fl_errorf(err, FL_EUNSUPPORTED, "CREATE VIEW: this catalog does not store views");
    if (s->with_check_option > PG_QUERY__VIEW_CHECK_OPTION__NO_CHECK_OPTION)
        return fl_errorf(err, FL_EUNSUPPORTED, "CREATE VIEW: WITH CHECK OPTION is not supported");
    bool invoker = false;
    FL_TRY(view_options(c, s, &invoker, err));
    fl_table_ident id;
    FL_TRY(stmt_ident_rv(c, s->view, &id, err));
    FL_TRY(fl_sql_authz_namespace(c->planner, FL_PRIV_CREATE, &id.ns, s->view->location, err));
    const char *text = c->planner->parsed->text;
    int32_t off = text ? query_offset(text) : -1;
    if (off < 0)
        return fl_errorf(err, FL_ESYNTAX, "CREATE VIEW: cannot find the query after AS");
    size_t len = strlen(text + off);
    while (len && (isspace((unsigned char)text[off + len - 1]) || text[off + len - 1] == ';'))
        len--;
    const char *sql = fl_arena_strndup(a, text + off, len);
    fl_plan *plan = NULL;
    FL_TRY(fl_planner_plan_query(c->planner, s->query, &plan, err));
    fl_ice_schema schema;
    FL_TRY(view_schema(c, plan, s, &schema, err));
    bool qualified = s->view->schemaname && *s->view->schemaname;
    if (!qualified)
        FL_TRY(stmt_ensure_namespace(c, &id.ns, err));
    const char *location = fl_catalog_default_location(cat, &id, a);
    /* storage confinement: no other table's or view's folder */
    FL_TRY(fl_ice_location_check(cat, &id, location, err));
    fl_ice_view_metadata m;
    FL_TRY(build(c, NULL, location, &schema, sql, invoker, &m, err));
    const char *path;
    FL_TRY(write_metadata(c, &m, 0, &path, err));
    fl_status rc = cat->ops->create_view(cat, &id, path, err);
    if (rc != FL_OK) {
        fl_error e2;
        fl_fileio_remove(c->planner->io, path, &e2);
    }
    if (rc == FL_EEXIST && s->replace) {
        fl_error_clear(err);
        rc = replace(c, &id, &schema, sql, invoker, err);
    } else if (rc == FL_EEXIST) {
        return fl_error_state(err, FL_EEXIST, "42P07", "relation \"%s\" already exists",
                              fl_table_ident_str(&id, a));
    }
    FL_TRY(rc);
    stmt_tag(out, "CREATE VIEW");
    return FL_OK;
}

fl_status stmt_drop_view(fl_stmt_ctx *c, const fl_table_ident *id, bool missing_ok, fl_error *err)
{
    fl_catalog *cat = c->planner->catalog;
    if (!cat->ops->drop_view)
        return fl_errorf(err, FL_EUNSUPPORTED, "DROP VIEW: this catalog does not store views");
    fl_status rc = cat->ops->drop_view(cat, id, err);
    if (rc == FL_ENOTFOUND && missing_ok) {
        fl_error_clear(err);
        return FL_OK;
    }
    if (rc == FL_ENOTFOUND) {
        return fl_error_state(err, FL_ENOTFOUND, "42P01", "view \"%s\" does not exist",
                              fl_table_ident_str(id, c->planner->arena));
    }
    return rc;
}
