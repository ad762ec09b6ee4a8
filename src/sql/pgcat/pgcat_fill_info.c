/*
 * pgcat_fill_info.c - the rows of information_schema's relations (SQL
 * standard spellings: data_type "integer", "numeric", "timestamp with time
 * zone", "ARRAY"; is_nullable "YES"/"NO"; numeric_precision in bits for
 * binary types and digits for numeric, as PostgreSQL 15 reports them).
 * Relations floe has no content for (constraints, privileges, triggers...)
 * have no rows. Ownership: everything in the planner arena.
 */
#include <stdio.h>
#include <string.h>

#include "sql/func.h"
#include "sql/pgcat/pgcat.h"

static bool is(const fl_pgcat_def *d, const char *name)
{
    return strcmp(d->name, name) == 0;
}

static fl_status fill_schemata(fl_pgcat_snap *s, fl_pgcat_rows *r, fl_error *err)
{
    for (uint32_t i = 0; i < s->nnsps; i++) {
        FL_TRY(fl_pgcat_rows_add(r, err));
        fl_pgcat_set_str(r, "catalog_name", s->database);
        fl_pgcat_set_str(r, "schema_name", s->nsps[i].name);
        fl_pgcat_set_str(r, "schema_owner", s->user);
    }
    return FL_OK;
}

static fl_status fill_tables(fl_pgcat_snap *s, fl_pgcat_rows *r, fl_error *err)
{
    for (uint32_t i = 0; i < s->nrels; i++) {
        const fl_pgcat_rel *rel = &s->rels[i];
        if (rel->kind == 'i')
            continue;
        FL_TRY(fl_pgcat_rows_add(r, err));
        fl_pgcat_set_str(r, "table_catalog", s->database);
        fl_pgcat_set_str(r, "table_schema", rel->nsp);
        fl_pgcat_set_str(r, "table_name", rel->name);
        bool temp = strncmp(rel->nsp, "pg_temp_", 8) == 0; /* src/sql/session/session_temp.h */
        fl_pgcat_set_str(r, "table_type",
                         rel->kind == 'v' ? "VIEW" : temp ? "LOCAL TEMPORARY" : "BASE TABLE");
        fl_pgcat_set_str(r, "is_insertable_into", rel->kind == 'r' && !rel->builtin ? "YES" : "NO");
        fl_pgcat_set_str(r, "is_typed", "NO");
    }
    return FL_OK;
}

static fl_status fill_views(fl_pgcat_snap *s, fl_pgcat_rows *r, fl_error *err)
{
    for (uint32_t i = 0; i < s->nrels; i++) {
        const fl_pgcat_rel *rel = &s->rels[i];
        if (rel->kind != 'v')
            continue;
        FL_TRY(fl_pgcat_rows_add(r, err));
        fl_pgcat_set_str(r, "table_catalog", s->database);
        fl_pgcat_set_str(r, "table_schema", rel->nsp);
        fl_pgcat_set_str(r, "table_name", rel->name);
        fl_pgcat_set_str(r, "view_definition", rel->view_sql);
        fl_pgcat_set_str(r, "check_option", "NONE");
        fl_pgcat_set_str(r, "is_updatable", "NO");
        fl_pgcat_set_str(r, "is_insertable_into", "NO");
        fl_pgcat_set_str(r, "is_trigger_updatable", "NO");
        fl_pgcat_set_str(r, "is_trigger_deletable", "NO");
        fl_pgcat_set_str(r, "is_trigger_insertable_into", "NO");
    }
    return FL_OK;
}

/* information_schema.columns' type columns for one PostgreSQL type. */
static void column_type(fl_pgcat_rows *r, const fl_type *t)
{
    uint32_t oid = fl_pg_type_oid(t);
    const fl_pg_type_info *ti = fl_pg_type_by_oid(oid);
    char buf[96];
    if (ti && ti->category == 'A') {
        fl_pgcat_set_str(r, "data_type", "ARRAY");
    } else {
        fl_pg_type_format(oid, -1, buf, sizeof buf);
        fl_pgcat_set_str(r, "data_type", fl_arena_strdup(r->a, buf));
    }
    fl_pgcat_set_str(r, "udt_catalog", NULL);
    fl_pgcat_set_str(r, "udt_schema", "pg_catalog");
    fl_pgcat_set_str(r, "udt_name", ti ? ti->name : "text");
    switch (oid) {
    case FL_PG_OID_INT2: fl_pgcat_set_int(r, "numeric_precision", 16); break;
    case FL_PG_OID_INT4: fl_pgcat_set_int(r, "numeric_precision", 32); break;
    case FL_PG_OID_INT8: fl_pgcat_set_int(r, "numeric_precision", 64); break;
    case FL_PG_OID_FLOAT4: fl_pgcat_set_int(r, "numeric_precision", 24); break;
    case FL_PG_OID_FLOAT8: fl_pgcat_set_int(r, "numeric_precision", 53); break;
    case FL_PG_OID_NUMERIC:
        fl_pgcat_set_int(r, "numeric_precision", t->precision);
        fl_pgcat_set_int(r, "numeric_scale", t->scale);
        fl_pgcat_set_int(r, "numeric_precision_radix", 10);
        return;
    case FL_PG_OID_TEXT:
    case FL_PG_OID_VARCHAR: fl_pgcat_set_int(r, "character_octet_length", 1073741824); return;
    case FL_PG_OID_DATE: fl_pgcat_set_int(r, "datetime_precision", 0); return;
    case FL_PG_OID_TIME:
    case FL_PG_OID_TIMESTAMP:
    case FL_PG_OID_TIMESTAMPTZ:
    case FL_PG_OID_INTERVAL: fl_pgcat_set_int(r, "datetime_precision", 6); return;
    default: return;
    }
    fl_pgcat_set_int(r, "numeric_precision_radix", 2);
    fl_pgcat_set_int(r, "numeric_scale", 0);
    if (oid == FL_PG_OID_FLOAT4 || oid == FL_PG_OID_FLOAT8)
        fl_pgcat_set_null(r, "numeric_scale");
}

static fl_status fill_columns(fl_pgcat_snap *s, fl_pgcat_rows *r, fl_error *err)
{
    for (uint32_t i = 0; i < s->nrels; i++) {
        const fl_pgcat_rel *rel = &s->rels[i];
        for (uint32_t c = 0; rel->kind != 'i' && rel->cols && c < rel->cols->nfields; c++) {
            const fl_field *f = &rel->cols->fields[c];
            FL_TRY(fl_pgcat_rows_add(r, err));
            fl_pgcat_set_str(r, "table_catalog", s->database);
            fl_pgcat_set_str(r, "table_schema", rel->nsp);
            fl_pgcat_set_str(r, "table_name", rel->name);
            fl_pgcat_set_str(r, "column_name", f->name);
            fl_pgcat_set_int(r, "ordinal_position", c + 1);
            fl_pgcat_set_str(r, "is_nullable", f->nullable ? "YES" : "NO");
            column_type(r, &f->type);
            fl_pgcat_set_str(r, "udt_catalog", s->database);
            fl_pgcat_set_str(r, "dtd_identifier", fl_arena_sprintf(r->a, "%u", c + 1));
            fl_pgcat_set_str(r, "is_self_referencing", "NO");
            fl_pgcat_set_str(r, "is_identity", "NO");
            fl_pgcat_set_str(r, "identity_cycle", "NO");
            fl_pgcat_set_str(r, "is_generated", "NEVER");
            fl_pgcat_set_str(r, "is_updatable", rel->kind == 'r' && !rel->builtin ? "YES" : "NO");
        }
    }
    return FL_OK;
}

fl_status fl_pgcat_fill_info(fl_planner_ctx *pc, fl_pgcat_snap *s, const fl_pgcat_def *d,
                             fl_pgcat_rows *r, bool *done, fl_error *err)
{
    FL_TRY(fl_pgcat_fill_keys_info(pc, s, d, r, done, err));
    if (*done)
        return FL_OK;
    *done = true;
    if (is(d, "schemata"))
        return fill_schemata(s, r, err);
    if (is(d, "tables"))
        return fill_tables(s, r, err);
    if (is(d, "views")) {
        FL_TRY(fl_pgcat_snap_columns(pc, s, err));
        return fill_views(s, r, err);
    }
    if (is(d, "columns")) {
        FL_TRY(fl_pgcat_snap_columns(pc, s, err));
        return fill_columns(s, r, err);
    }
    if (is(d, "routines"))
        return fl_pgcat_fill_routines(s, r, err);
    if (is(d, "character_sets")) {
        FL_TRY(fl_pgcat_rows_add(r, err));
        fl_pgcat_set_str(r, "character_set_name", "UTF8");
        fl_pgcat_set_str(r, "character_repertoire", "UCS");
        fl_pgcat_set_str(r, "form_of_use", "UTF8");
        fl_pgcat_set_str(r, "default_collate_catalog", s->database);
        return FL_OK;
    }
    if (is(d, "information_schema_catalog_name")) {
        FL_TRY(fl_pgcat_rows_add(r, err));
        fl_pgcat_set_str(r, "catalog_name", s->database);
        return FL_OK;
    }
    if (is(d, "enabled_roles") || is(d, "applicable_roles")) {
        FL_TRY(fl_pgcat_rows_add(r, err));
        fl_pgcat_set_str(r, "role_name", s->user);
        fl_pgcat_set_str(r, "grantee", s->user);
        fl_pgcat_set_str(r, "is_grantable", "YES");
        return FL_OK;
    }
    *done = false;
    return FL_OK;
}
