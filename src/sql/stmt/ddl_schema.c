/*
 * ddl_schema.c - CREATE SCHEMA [IF NOT EXISTS] and DROP SCHEMA|TABLE|VIEW
 * [IF EXISTS] [CASCADE] (stmt.h). Schemas are catalog namespaces; a dotted
 * schema name ("a.b") is a nested namespace, created level by level.
 *
 * DROP SCHEMA is RESTRICT by default: a schema with tables is an error
 * (SQLSTATE 2BP01); CASCADE drops its tables first (as DROP TABLE does).
 *
 * DROP TABLE follows Trino's Iceberg connector: the table leaves the
 * catalog and its files (data, deletes, manifests, metadata) are deleted,
 * unless the table property gc.enabled is false, when only the catalog
 * entry goes (the files may belong to someone else, e.g. a registered
 * table).
 */
#include <string.h>
#include <strings.h>

#include "sql/planner.h"
#include "sql/stmt/stmt_int.h"

static fl_status ns_of_node(fl_stmt_ctx *c, const PgQuery__Node *n, fl_namespace *out,
                            fl_error *err)
{
    fl_arena *a = c->planner->arena;
    if (n->node_case == PG_QUERY__NODE__NODE_STRING)
        return fl_namespace_parse(n->string->sval, a, out, err);
    if (n->node_case != PG_QUERY__NODE__NODE_LIST)
        return fl_errorf(err, FL_EINVAL, "unexpected schema name");
    const PgQuery__List *l = n->list;
    const char **lv = fl_arena_calloc(a, l->n_items + 1, sizeof *lv);
    if (!lv)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (size_t i = 0; i < l->n_items; i++) {
        if (l->items[i]->node_case != PG_QUERY__NODE__NODE_STRING)
            return fl_errorf(err, FL_EINVAL, "unexpected schema name");
        lv[i] = l->items[i]->string->sval;
    }
    out->levels = lv;
    out->nlevels = (uint32_t)l->n_items;
    return FL_OK;
}

/* A table name as a list of strings ([ns..., name]). */
static fl_status ident_of_node(fl_stmt_ctx *c, const PgQuery__Node *n, fl_table_ident *out,
                               fl_error *err)
{
    fl_namespace all;
    FL_TRY(ns_of_node(c, n, &all, err));
    if (!all.nlevels)
        return fl_errorf(err, FL_EINVAL, "missing table name");
    out->name = all.levels[all.nlevels - 1];
    out->ns.levels = all.levels;
    out->ns.nlevels = all.nlevels - 1;
    if (out->ns.nlevels)
        return FL_OK;
    const char *d = c->planner->default_namespace;
    return fl_namespace_parse(d && *d ? d : "default", c->planner->arena, &out->ns, err);
}

fl_status stmt_create_schema(fl_stmt_ctx *c, const PgQuery__CreateSchemaStmt *s,
                             fl_stmt_result *out, fl_error *err)
{
    FL_TRY(stmt_need_catalog(c, "CREATE SCHEMA", err));
    if (s->n_schema_elts)
        return fl_errorf(err, FL_EUNSUPPORTED,
                         "CREATE SCHEMA with nested statements is not supported");
    if (!s->schemaname || !*s->schemaname)
        return fl_errorf(err, FL_EINVAL, "CREATE SCHEMA: missing schema name");
    fl_namespace ns;
    FL_TRY(fl_namespace_parse(s->schemaname, c->planner->arena, &ns, err));
    fl_catalog *cat = c->planner->catalog;
    if (!strncmp(ns.levels[0], "pg_", 3)) {
        /* as PostgreSQL: pg_ names are the system's (pg_temp_N is a session's
         * private namespace, which no shared namespace may shadow) */
        return fl_error_state(err, FL_EINVAL, "42939",
                              "unacceptable schema name \"%s\": the prefix \"pg_\" is reserved for "
                              "system schemas",
                              s->schemaname);
    }
    fl_namespace parent = {ns.nlevels - 1, ns.levels};
    FL_TRY(fl_sql_authz_namespace(c->planner, FL_PRIV_CREATE, &parent, -1, err));
    /* parents first */
    if (ns.nlevels > 1)
        FL_TRY(stmt_ensure_namespace(c, &parent, err));
    fl_status rc = cat->ops->create_namespace(cat, &ns, NULL, err);
    if (rc == FL_EEXIST && s->if_not_exists) {
        fl_error_clear(err);
        rc = FL_OK;
    } else if (rc == FL_EEXIST) {
        return fl_error_state(err, FL_EEXIST, "42P06", "schema \"%s\" already exists",
                              s->schemaname);
    }
    FL_TRY(rc);
    stmt_tag(out, "CREATE SCHEMA");
    return FL_OK;
}

static fl_status drop_table_ident(fl_stmt_ctx *c, const fl_table_ident *id, bool missing_ok,
                                  bool *dropped, fl_error *err)
{
    fl_catalog *cat = c->planner->catalog;
    fl_arena *a = c->planner->arena;
    *dropped = false;
    fl_ice_table *t = NULL;
    fl_status rc = fl_ice_table_load(cat, id, &t, err);
    if (rc == FL_ENOTFOUND && fl_front_missing_metadata(c->planner, id, err) == FL_EIO) {
        /* the catalog names a metadata file that is gone: drop the entry
         * (nothing reachable to purge), so a broken table can be removed */
        fl_error_clear(err);
        FL_TRY(fl_ice_table_drop(cat, id, false, err));
        *dropped = true;
        return FL_OK;
    }
    if (rc == FL_ENOTFOUND) {
        if (missing_ok) {
            fl_error_clear(err);
            return FL_OK;
        }
        return fl_error_state(err, FL_ENOTFOUND, "42P01", "table \"%s\" does not exist",
                              fl_table_ident_str(id, a));
    }
    FL_TRY(rc);
    const char *gc = fl_ice_map_get(&t->meta.properties, "gc.enabled");
    bool purge = !(gc && !strcasecmp(gc, "false"));
    fl_ice_table_free(t);
    FL_TRY(fl_ice_table_drop(cat, id, purge, err));
    *dropped = true;
    return FL_OK;
}

static fl_status drop_schema(fl_stmt_ctx *c, const PgQuery__DropStmt *s, fl_error *err)
{
    fl_catalog *cat = c->planner->catalog;
    fl_arena *a = c->planner->arena;
    bool cascade = s->behavior == PG_QUERY__DROP_BEHAVIOR__DROP_CASCADE;
    for (size_t i = 0; i < s->n_objects; i++) {
        fl_namespace ns;
        FL_TRY(ns_of_node(c, s->objects[i], &ns, err));
        const char *name = fl_namespace_str(&ns, a);
        FL_TRY(fl_sql_authz_namespace(c->planner, FL_PRIV_DROP, &ns, -1, err));
        fl_ice_map props;
        fl_status rc = cat->ops->load_namespace(cat, &ns, a, &props, err);
        if (rc == FL_ENOTFOUND) {
            if (s->missing_ok) {
                fl_error_clear(err);
                continue;
            }
            return fl_error_state(err, FL_ENOTFOUND, "3F000", "schema \"%s\" does not exist", name);
        }
        FL_TRY(rc);
        if (cascade) {
            const char **names = NULL;
            uint32_t n = 0;
            FL_TRY(cat->ops->list_tables(cat, &ns, a, &names, &n, err));
            for (uint32_t k = 0; k < n; k++) {
                fl_table_ident id = {ns, names[k]};
                bool dropped;
                FL_TRY(drop_table_ident(c, &id, true, &dropped, err));
            }
        }
        rc = cat->ops->drop_namespace(cat, &ns, err);
        if (rc == FL_ECONFLICT) {
            return fl_error_state(err, FL_ECONFLICT, "2BP01",
                                  "cannot drop schema \"%s\" because it is not empty (use DROP "
                                  "SCHEMA ... CASCADE)",
                                  name);
        }
        FL_TRY(rc);
    }
    return FL_OK;
}

fl_status stmt_drop(fl_stmt_ctx *c, const PgQuery__DropStmt *s, fl_stmt_result *out,
                    fl_error *err)
{
    switch (s->remove_type) {
    case PG_QUERY__OBJECT_TYPE__OBJECT_SCHEMA:
        FL_TRY(stmt_need_catalog(c, "DROP SCHEMA", err));
        FL_TRY(drop_schema(c, s, err));
        stmt_tag(out, "DROP SCHEMA");
        return FL_OK;
    case PG_QUERY__OBJECT_TYPE__OBJECT_TABLE:
        FL_TRY(stmt_need_catalog(c, "DROP TABLE", err));
        for (size_t i = 0; i < s->n_objects; i++) {
            fl_table_ident id;
            FL_TRY(ident_of_node(c, s->objects[i], &id, err));
            FL_TRY(fl_sql_authz_table(c->planner, FL_PRIV_DROP, &id, -1, err));
            bool dropped;
            FL_TRY(drop_table_ident(c, &id, s->missing_ok, &dropped, err));
        }
        stmt_tag(out, "DROP TABLE");
        return FL_OK;
    case PG_QUERY__OBJECT_TYPE__OBJECT_VIEW:
        FL_TRY(stmt_need_catalog(c, "DROP VIEW", err));
        for (size_t i = 0; i < s->n_objects; i++) {
            fl_table_ident id;
            FL_TRY(ident_of_node(c, s->objects[i], &id, err));
            FL_TRY(fl_sql_authz_table(c->planner, FL_PRIV_DROP, &id, -1, err));
            FL_TRY(stmt_drop_view(c, &id, s->missing_ok, err));
        }
        stmt_tag(out, "DROP VIEW");
        return FL_OK;
    default:
        return fl_errorf(err, FL_EUNSUPPORTED, "DROP of this object type is not supported");
    }
}
