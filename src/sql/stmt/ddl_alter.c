/*
 * ddl_alter.c - ALTER TABLE (stmt.h), every action of one statement in one
 * Iceberg transaction (one commit):
 *
 *   ADD COLUMN [IF NOT EXISTS] c type [NOT NULL]
 *   DROP COLUMN [IF EXISTS] c
 *   ALTER COLUMN c [SET DATA] TYPE t      (Iceberg promotions only: int ->
 *                                          bigint, real -> double, wider
 *                                          decimal precision)
 *   ALTER COLUMN c DROP NOT NULL
 *   SET (k = v, ...)                      properties; partitioning = ARRAY[...]
 *                                          replaces the partition spec (kept
 *                                          fields stay, others are removed,
 *                                          new ones added: partition
 *                                          evolution); sorted_by = ARRAY[...]
 *                                          sets the sort order
 *   RESET (k, ...)                        removes properties; partitioning /
 *                                          sorted_by reset to none
 *   RENAME COLUMN a TO b, RENAME TO new_name  (RenameStmt; the latter
 *                                          through the catalog, in the same
 *                                          namespace)
 *
 * Partition fields compare by (source column, transform), so
 * SET (partitioning = ARRAY['bucket(16, id)', 'day(ts)']) on a table
 * partitioned by day(ts) only adds the bucket field.
 */
#include <string.h>
#include <strings.h>

#include "sql/planner.h"
#include "sql/stmt/stmt_int.h"
#include "sql/stmt/stmt_opts.h"

static bool has_column(fl_ice_txn *x, const char *name)
{
    const fl_ice_schema *s = fl_ice_metadata_current_schema(fl_ice_txn_metadata(x));
    return s && fl_schema_find_name(&s->schema, name) != NULL;
}

static const fl_ice_partition_spec *default_spec(const fl_ice_metadata *m)
{
    return fl_ice_metadata_spec(m, m->default_spec_id);
}

static bool same_transform(const char *a, const char *b)
{
    fl_ice_transform ta, tb;
    if (fl_ice_transform_parse(a, &ta, NULL) != FL_OK ||
        fl_ice_transform_parse(b, &tb, NULL) != FL_OK)
        return strcasecmp(a, b) == 0;
    return ta.kind == tb.kind && ta.param == tb.param;
}

static fl_status set_partitioning(fl_stmt_ctx *c, fl_ice_txn *x, const char *const *items,
                                  uint32_t n, fl_error *err)
{
    fl_arena *a = c->planner->arena;
    const fl_ice_metadata *m = fl_ice_txn_metadata(x);
    const fl_ice_schema *s = fl_ice_metadata_current_schema(m);
    const fl_ice_partition_spec *spec = default_spec(m);
    if (!s)
        return fl_errorf(err, FL_ECORRUPT, "table has no current schema");
    fl_ice_partition_field *want = fl_arena_calloc(a, n + 1, sizeof *want);
    bool *keep_new = fl_arena_calloc(a, n + 1, sizeof *keep_new);
    uint32_t nold = spec ? spec->nfields : 0;
    const char **drop = fl_arena_calloc(a, nold + 1, sizeof *drop);
    if (!want || !keep_new || !drop)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        fl_status rc = fl_ice_parse_partition_field(items[i], s, a, &want[i], err);
        if (rc != FL_OK)
            return fl_error_prefix(err, "partitioning");
    }
    uint32_t ndrop = 0;
    for (uint32_t k = 0; k < nold; k++) {
        const fl_ice_partition_field *f = &spec->fields[k];
        if (!strcasecmp(f->transform, "void"))
            continue; /* already removed (v1 keeps void fields) */
        bool found = false;
        for (uint32_t i = 0; i < n && !found; i++)
            if (want[i].source_id == f->source_id && same_transform(want[i].transform, f->transform)) {
                found = true;
                keep_new[i] = true;
            }
        if (!found)
            drop[ndrop++] = f->name;
    }
    for (uint32_t k = 0; k < ndrop; k++)
        FL_TRY(fl_ice_txn_remove_partition_field(x, drop[k], err));
    for (uint32_t i = 0; i < n; i++)
        if (!keep_new[i])
            FL_TRY(fl_ice_txn_add_partition_field(x, items[i], err));
    return FL_OK;
}

static fl_status apply_options(fl_stmt_ctx *c, fl_ice_txn *x, const PgQuery__Node *def, bool reset,
                               fl_error *err)
{
    if (!def || def->node_case != PG_QUERY__NODE__NODE_LIST)
        return fl_errorf(err, FL_EINVAL, "ALTER TABLE SET/RESET: expected a list of options");
    stmt_table_opts o;
    FL_TRY(stmt_table_options(c, def->list->items, def->list->n_items, reset, &o, err));
    if (o.location)
        return fl_errorf(err, FL_EUNSUPPORTED, "ALTER TABLE SET (location = ...) is not supported");
    for (uint32_t i = 0; i < o.nprops; i++)
        if (!strcmp(o.props[i].key, "format-version")) {
            /* upgrades go through the metadata update (fl_ice_metadata_apply checks them) */
            fl_ice_update u = {.kind = FL_ICE_UPD_UPGRADE_FORMAT_VERSION,
                               .format_version = (int32_t)(o.props[i].value[0] - '0')};
            FL_TRY(fl_ice_txn_add_updates(x, &u, 1, err));
            o.props[i] = o.props[--o.nprops];
            i--;
        }
    if (o.nprops || o.nremove) {
        fl_ice_map set = {o.nprops, o.props};
        FL_TRY(fl_ice_txn_set_properties(x, &set, o.remove, o.nremove, err));
    }
    if (o.set_parts)
        FL_TRY(set_partitioning(c, x, reset ? NULL : o.parts, reset ? 0 : o.nparts, err));
    if (o.set_sorts)
        FL_TRY(fl_ice_txn_set_sort_order(x, reset ? NULL : o.sorts, reset ? 0 : o.nsorts, err));
    return FL_OK;
}

/* NOT NULL and DEFAULT of an added column; others are refused by name. */
static fl_status add_column_constraints(fl_stmt_ctx *c, const PgQuery__ColumnDef *cd,
                                        const fl_type *t, bool *nullable, const char **dflt,
                                        fl_error *err)
{
    *nullable = !cd->is_not_null;
    *dflt = NULL;
    if (cd->raw_default)
        FL_TRY(stmt_default_json(c, cd->raw_default, cd->colname, t, dflt, err));
    for (size_t i = 0; i < cd->n_constraints; i++) {
        if (cd->constraints[i]->node_case != PG_QUERY__NODE__NODE_CONSTRAINT)
            continue;
        const PgQuery__Constraint *k = cd->constraints[i]->constraint;
        switch (k->contype) {
        case PG_QUERY__CONSTR_TYPE__CONSTR_NOTNULL: *nullable = false; break;
        case PG_QUERY__CONSTR_TYPE__CONSTR_NULL: break;
        case PG_QUERY__CONSTR_TYPE__CONSTR_DEFAULT:
            FL_TRY(stmt_default_json(c, k->raw_expr, cd->colname, t, dflt, err));
            break;
        default:
            stmt_set_position(c, k->location);
            return fl_error_state(err, FL_EUNSUPPORTED, "0A000",
                                  "ADD COLUMN \"%s\": only NOT NULL, NULL and DEFAULT are "
                                  "supported",
                                  cd->colname);
        }
    }
    return FL_OK;
}

/* ALTER COLUMN c SET DEFAULT expr | DROP DEFAULT (def NULL): the column's
 * write-default; rows already written keep reading as they did. */
static fl_status set_default(fl_stmt_ctx *c, fl_ice_txn *x, const char *col,
                             const PgQuery__Node *def, fl_error *err)
{
    const fl_ice_schema *cur = fl_ice_metadata_current_schema(fl_ice_txn_metadata(x));
    const fl_field *f = cur ? fl_schema_find_name(&cur->schema, col) : NULL;
    if (!f)
        return fl_error_state(err, FL_ENOTFOUND, "42703", "column \"%s\" does not exist", col);
    const char *json = NULL;
    if (def)
        FL_TRY(stmt_default_json(c, def, col, &f->type, &json, err));
    fl_status rc = fl_ice_txn_set_column_default(x, col, json, err);
    return rc == FL_OK ? FL_OK : fl_error_prefix(err, "ALTER COLUMN \"%s\"", col);
}

static fl_status one_cmd(fl_stmt_ctx *c, fl_ice_txn *x, const PgQuery__AlterTableCmd *cmd,
                         fl_error *err)
{
    const PgQuery__Node *def = cmd->def;
    switch (cmd->subtype) {
    case PG_QUERY__ALTER_TABLE_TYPE__AT_AddColumn: {
        if (!def || def->node_case != PG_QUERY__NODE__NODE_COLUMN_DEF)
            return fl_errorf(err, FL_EINVAL, "ADD COLUMN: missing column definition");
        const PgQuery__ColumnDef *cd = def->column_def;
        if (cmd->missing_ok && has_column(x, cd->colname))
            return FL_OK;
        fl_type t;
        FL_TRY(stmt_type_of(c, cd->type_name, &t, err));
        bool nullable;
        const char *dflt;
        FL_TRY(add_column_constraints(c, cd, &t, &nullable, &dflt, err));
        fl_status rc = fl_ice_txn_add_column(x, NULL, cd->colname, &t, nullable, NULL, dflt, err);
        return rc == FL_OK ? FL_OK : fl_error_prefix(err, "ADD COLUMN \"%s\"", cd->colname);
    }
    case PG_QUERY__ALTER_TABLE_TYPE__AT_DropColumn:
        if (cmd->missing_ok && !has_column(x, cmd->name))
            return FL_OK;
        if (!has_column(x, cmd->name)) {
            return fl_error_state(err, FL_ENOTFOUND, "42703", "column \"%s\" does not exist",
                                  cmd->name);
        }
        return fl_ice_txn_drop_column(x, cmd->name, err);
    case PG_QUERY__ALTER_TABLE_TYPE__AT_AlterColumnType: {
        if (!def || def->node_case != PG_QUERY__NODE__NODE_COLUMN_DEF)
            return fl_errorf(err, FL_EINVAL, "ALTER COLUMN TYPE: missing type");
        if (def->column_def->raw_default)
            return fl_errorf(err, FL_EUNSUPPORTED, "ALTER COLUMN TYPE ... USING is not supported");
        fl_type t;
        FL_TRY(stmt_type_of(c, def->column_def->type_name, &t, err));
        fl_status rc = fl_ice_txn_update_column_type(x, cmd->name, &t, err);
        return rc == FL_OK ? FL_OK
                           : fl_error_prefix(err,
                                             "ALTER COLUMN \"%s\" TYPE (only widening: integer "
                                             "to bigint, real to double precision, decimal "
                                             "precision up)",
                                             cmd->name);
    }
    case PG_QUERY__ALTER_TABLE_TYPE__AT_ColumnDefault:
        return set_default(c, x, cmd->name, def, err);
    case PG_QUERY__ALTER_TABLE_TYPE__AT_DropNotNull:
        return fl_ice_txn_make_column_optional(x, cmd->name, err);
    case PG_QUERY__ALTER_TABLE_TYPE__AT_SetRelOptions:
        return apply_options(c, x, def, false, err);
    case PG_QUERY__ALTER_TABLE_TYPE__AT_ResetRelOptions:
        return apply_options(c, x, def, true, err);
    case PG_QUERY__ALTER_TABLE_TYPE__AT_SetNotNull:
        return fl_errorf(err, FL_EUNSUPPORTED,
                         "ALTER COLUMN SET NOT NULL: Iceberg cannot make an optional column "
                         "required");
    default:
        return fl_errorf(err, FL_EUNSUPPORTED, "this ALTER TABLE action is not supported");
    }
}

static fl_status load(fl_stmt_ctx *c, const PgQuery__RangeVar *rv, bool missing_ok,
                      fl_table_ident *id, fl_ice_table **t, fl_error *err)
{
    FL_TRY(stmt_ident_rv(c, rv, id, err));
    /* every ALTER TABLE action commits a change to the table */
    FL_TRY(fl_sql_authz_table(c->planner, FL_PRIV_WRITE, id, rv->location, err));
    fl_status rc = fl_ice_table_load(c->planner->catalog, id, t, err);
    if (rc == FL_ENOTFOUND)
        rc = fl_front_missing_metadata(c->planner, id, err); /* FL_EIO: the file is gone */
    if (rc == FL_ENOTFOUND && missing_ok) {
        fl_error_clear(err);
        *t = NULL;
        return FL_OK;
    }
    if (rc == FL_ENOTFOUND) {
        stmt_set_position(c, rv->location);
        return fl_error_state(err, FL_ENOTFOUND, "42P01", "relation \"%s\" does not exist",
                              fl_table_ident_str(id, c->planner->arena));
    }
    return rc;
}

fl_status stmt_alter_table(fl_stmt_ctx *c, const PgQuery__AlterTableStmt *s, fl_stmt_result *out,
                           fl_error *err)
{
    FL_TRY(stmt_need_catalog(c, "ALTER TABLE", err));
    if (s->objtype != PG_QUERY__OBJECT_TYPE__OBJECT_TABLE)
        return fl_errorf(err, FL_EUNSUPPORTED, "ALTER of this object type is not supported");
    fl_table_ident id;
    fl_ice_table *t = NULL;
    FL_TRY(load(c, s->relation, s->missing_ok, &id, &t, err));
    stmt_tag(out, "ALTER TABLE");
    if (!t)
        return FL_OK;
    fl_ice_txn *x = NULL;
    fl_status rc = fl_ice_txn_begin(t, &x, err);
    for (size_t i = 0; rc == FL_OK && i < s->n_cmds; i++) {
        if (s->cmds[i]->node_case != PG_QUERY__NODE__NODE_ALTER_TABLE_CMD) {
            rc = fl_errorf(err, FL_EINVAL, "ALTER TABLE: unexpected action");
            break;
        }
        rc = one_cmd(c, x, s->cmds[i]->alter_table_cmd, err);
    }
    if (rc == FL_OK) {
        fl_ice_txn *xx = x;
        x = NULL;
        rc = stmt_commit(c, xx, fl_table_ident_str(&id, c->planner->arena), out, err);
    }
    fl_ice_txn_abort(x);
    fl_ice_table_free(t);
    return rc;
}

fl_status stmt_rename(fl_stmt_ctx *c, const PgQuery__RenameStmt *s, fl_stmt_result *out,
                      fl_error *err)
{
    FL_TRY(stmt_need_catalog(c, "ALTER TABLE RENAME", err));
    fl_catalog *cat = c->planner->catalog;
    if (s->rename_type == PG_QUERY__OBJECT_TYPE__OBJECT_TABLE) {
        fl_table_ident from, to;
        FL_TRY(stmt_ident_rv(c, s->relation, &from, err));
        to.ns = from.ns;
        to.name = s->newname;
        /* a rename drops the old name and creates the new one */
        FL_TRY(fl_sql_authz_table(c->planner, FL_PRIV_DROP, &from, s->relation->location, err));
        FL_TRY(fl_sql_authz_namespace(c->planner, FL_PRIV_CREATE, &to.ns, s->relation->location,
                                      err));
        fl_status rc = cat->ops->rename_table(cat, &from, &to, err);
        if (rc == FL_ENOTFOUND && s->missing_ok) {
            fl_error_clear(err);
            rc = FL_OK;
        } else if (rc == FL_EEXIST) {
            return fl_error_state(err, FL_EEXIST, "42P07", "relation \"%s\" already exists",
                                  s->newname);
        }
        FL_TRY(rc);
        stmt_tag(out, "ALTER TABLE");
        return FL_OK;
    }
    if (s->rename_type != PG_QUERY__OBJECT_TYPE__OBJECT_COLUMN ||
        s->relation_type != PG_QUERY__OBJECT_TYPE__OBJECT_TABLE)
        return fl_errorf(err, FL_EUNSUPPORTED, "RENAME of this object type is not supported");
    fl_table_ident id;
    fl_ice_table *t = NULL;
    FL_TRY(load(c, s->relation, s->missing_ok, &id, &t, err));
    stmt_tag(out, "ALTER TABLE");
    if (!t)
        return FL_OK;
    fl_ice_txn *x = NULL;
    fl_status rc = fl_ice_txn_begin(t, &x, err);
    if (rc == FL_OK)
        rc = fl_ice_txn_rename_column(x, s->subname, s->newname, err);
    if (rc == FL_OK) {
        fl_ice_txn *xx = x;
        x = NULL;
        rc = stmt_commit(c, xx, fl_table_ident_str(&id, c->planner->arena), out, err);
    }
    fl_ice_txn_abort(x);
    fl_ice_table_free(t);
    return rc;
}
