/*
 * pgcat_fill_pg.c - the rows of the pg_catalog relations that have content
 * in floe: namespaces, relations and their attributes (Iceberg namespaces,
 * tables, views, columns), types (pgtypes.h, plus each user table's and
 * view's row type and its array type, as PostgreSQL has), functions (the function
 * registry), the database, the session's role, access methods, tablespaces,
 * settings, and the pg_tables/pg_views convenience views. Relations with no
 * counterpart in a lakehouse (indexes, constraints, triggers, rules,
 * sequences, extensions...) have no rows. Ownership: everything in the
 * planner arena.
 */
#include <stdio.h>
#include <string.h>

#include "sql/func.h"
#include "sql/pgcat/pgcat.h"

#define ROLE_OID 10
#define OID_ARRAY_IN 750
#define OID_ARRAY_RECV 2400

static bool is(const fl_pgcat_def *d, const char *name)
{
    return strcmp(d->name, name) == 0;
}

static fl_status fill_namespace(fl_pgcat_snap *s, fl_pgcat_rows *r, fl_error *err)
{
    for (uint32_t i = 0; i < s->nnsps; i++) {
        FL_TRY(fl_pgcat_rows_add(r, err));
        fl_pgcat_set_int(r, "oid", s->nsps[i].oid);
        fl_pgcat_set_str(r, "nspname", s->nsps[i].name);
        fl_pgcat_set_int(r, "nspowner", ROLE_OID);
    }
    return FL_OK;
}

static fl_status fill_class(fl_pgcat_snap *s, fl_pgcat_rows *r, fl_error *err)
{
    for (uint32_t i = 0; i < s->nrels; i++) {
        const fl_pgcat_rel *rel = &s->rels[i];
        FL_TRY(fl_pgcat_rows_add(r, err));
        fl_pgcat_set_int(r, "oid", rel->oid);
        fl_pgcat_set_str(r, "relname", rel->name);
        fl_pgcat_set_int(r, "relnamespace", rel->nsp_oid);
        fl_pgcat_set_int(r, "reltype", rel->type_oid);
        fl_pgcat_set_int(r, "relowner", ROLE_OID);
        fl_pgcat_set_int(r, "relam", rel->kind == 'r' ? 2 : rel->kind == 'i' ? 403 : 0);
        fl_pgcat_set_bool(r, "relhasindex", rel->pk != NULL);
        fl_pgcat_set_float(r, "reltuples", rel->rows);
        /* temporary tables live in pg_temp_N (src/sql/session/session_temp.h) */
        fl_pgcat_set_str(r, "relpersistence",
                         strncmp(rel->nsp, "pg_temp_", 8) == 0 ? "t" : "p");
        char k[2] = {rel->kind, 0};
        fl_pgcat_set_str(r, "relkind", fl_arena_strdup(r->a, k));
        fl_pgcat_set_int(r, "relnatts", rel->cols ? rel->cols->nfields : 0);
        fl_pgcat_set_bool(r, "relispopulated", true);
        fl_pgcat_set_str(r, "relreplident", rel->kind == 'r' ? "d" : "n");
    }
    return FL_OK;
}

static fl_status fill_attribute(fl_pgcat_snap *s, fl_pgcat_rows *r, fl_error *err)
{
    for (uint32_t i = 0; i < s->nrels; i++) {
        const fl_pgcat_rel *rel = &s->rels[i];
        for (uint32_t c = 0; rel->cols && c < rel->cols->nfields; c++) {
            const fl_field *f = &rel->cols->fields[c];
            uint32_t toid = fl_pg_type_oid(&f->type);
            const fl_pg_type_info *ti = fl_pg_type_by_oid(toid);
            FL_TRY(fl_pgcat_rows_add(r, err));
            fl_pgcat_set_int(r, "attrelid", rel->oid);
            fl_pgcat_set_str(r, "attname", f->name);
            fl_pgcat_set_int(r, "atttypid", toid);
            fl_pgcat_set_int(r, "attstattarget", -1);
            fl_pgcat_set_int(r, "attlen", ti ? ti->typlen : -1);
            fl_pgcat_set_int(r, "attnum", c + 1);
            fl_pgcat_set_int(r, "attndims", ti && ti->category == 'A' ? 1 : 0);
            fl_pgcat_set_int(r, "attcacheoff", -1);
            fl_pgcat_set_int(r, "atttypmod", fl_pg_type_typmod(&f->type));
            fl_pgcat_set_bool(r, "attbyval", ti && ti->typlen > 0 && ti->typlen <= 8);
            fl_pgcat_set_str(r, "attalign", ti && ti->typlen == 8 ? "d" : "i");
            fl_pgcat_set_str(r, "attstorage", ti && ti->typlen > 0 ? "p" : "x");
            fl_pgcat_set_bool(r, "attnotnull", !f->nullable);
            fl_pgcat_set_bool(r, "attislocal", true);
            fl_pgcat_set_int(r, "attcollation", toid == FL_PG_OID_TEXT ? 100 : 0);
        }
    }
    return FL_OK;
}

static char typtype_of(const fl_pg_type_info *t)
{
    return t->category == 'P' ? 'p' : 'b';
}

/* The row type of a user table or view (typtype 'c', as PostgreSQL creates
 * for every relation) and its array type. */
static fl_status fill_row_types(const fl_pgcat_rel *rel, fl_pgcat_rows *r, fl_error *err)
{
    const char *arr_name = fl_arena_sprintf(r->a, "_%s", rel->name);
    if (!arr_name)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (int k = 0; k < 2; k++) {
        FL_TRY(fl_pgcat_rows_add(r, err));
        fl_pgcat_set_int(r, "oid", k ? rel->array_type_oid : rel->type_oid);
        fl_pgcat_set_str(r, "typname", k ? arr_name : rel->name);
        fl_pgcat_set_int(r, "typnamespace", rel->nsp_oid);
        fl_pgcat_set_int(r, "typowner", ROLE_OID);
        fl_pgcat_set_int(r, "typlen", -1);
        fl_pgcat_set_bool(r, "typbyval", false);
        fl_pgcat_set_str(r, "typtype", k ? "b" : "c");
        fl_pgcat_set_str(r, "typcategory", k ? "A" : "C");
        fl_pgcat_set_bool(r, "typisdefined", true);
        fl_pgcat_set_str(r, "typdelim", ",");
        fl_pgcat_set_int(r, "typrelid", k ? 0 : rel->oid);
        fl_pgcat_set_int(r, "typelem", k ? rel->type_oid : 0);
        fl_pgcat_set_int(r, "typarray", k ? 0 : rel->array_type_oid);
        if (k) {
            fl_pgcat_set_int(r, "typinput", OID_ARRAY_IN);
            fl_pgcat_set_int(r, "typreceive", OID_ARRAY_RECV);
        }
        fl_pgcat_set_str(r, "typalign", "d");
        fl_pgcat_set_str(r, "typstorage", "x");
        fl_pgcat_set_int(r, "typtypmod", -1);
    }
    return FL_OK;
}

static fl_status fill_type(fl_pgcat_snap *s, fl_pgcat_rows *r, fl_error *err)
{
    for (uint32_t i = 0; i < s->nrels; i++)
        if (s->rels[i].type_oid)
            FL_TRY(fill_row_types(&s->rels[i], r, err));
    uint32_t n = 0;
    const fl_pg_type_info *ts = fl_pg_types(&n);
    for (uint32_t i = 0; i < n; i++) {
        const fl_pg_type_info *t = &ts[i];
        bool arr = t->category == 'A' && t->elem_oid;
        FL_TRY(fl_pgcat_rows_add(r, err));
        fl_pgcat_set_int(r, "oid", t->oid);
        fl_pgcat_set_str(r, "typname", t->name);
        fl_pgcat_set_int(r, "typnamespace", 11);
        fl_pgcat_set_int(r, "typowner", ROLE_OID);
        fl_pgcat_set_int(r, "typlen", t->typlen);
        fl_pgcat_set_bool(r, "typbyval", t->typlen > 0 && t->typlen <= 8);
        char tt[2] = {typtype_of(t), 0}, cat[2] = {t->category, 0};
        fl_pgcat_set_str(r, "typtype", fl_arena_strdup(r->a, tt));
        fl_pgcat_set_str(r, "typcategory", fl_arena_strdup(r->a, cat));
        fl_pgcat_set_bool(r, "typispreferred",
                          t->oid == FL_PG_OID_TEXT || t->oid == FL_PG_OID_FLOAT8 ||
                              t->oid == FL_PG_OID_BOOL || t->oid == FL_PG_OID_TIMESTAMPTZ);
        fl_pgcat_set_bool(r, "typisdefined", true);
        fl_pgcat_set_str(r, "typdelim", ",");
        fl_pgcat_set_int(r, "typelem", t->elem_oid);
        fl_pgcat_set_int(r, "typarray", t->array_oid);
        if (arr) {
            fl_pgcat_set_int(r, "typinput", OID_ARRAY_IN);
            fl_pgcat_set_int(r, "typreceive", OID_ARRAY_RECV);
        }
        fl_pgcat_set_str(r, "typalign", t->typlen == 8 ? "d" : t->typlen == 2 ? "s" : t->typlen == 1 ? "c" : "i");
        fl_pgcat_set_str(r, "typstorage", t->typlen > 0 ? "p" : "x");
        fl_pgcat_set_int(r, "typtypmod", -1);
        fl_pgcat_set_int(r, "typcollation", t->category == 'S' ? 100 : 0);
    }
    return FL_OK;
}

static fl_status fill_roles(fl_pgcat_snap *s, const fl_pgcat_def *d, fl_pgcat_rows *r,
                            fl_error *err)
{
    FL_TRY(fl_pgcat_rows_add(r, err));
    bool shadow = is(d, "pg_authid") || is(d, "pg_shadow");
    /* pg_roles / pg_authid */
    fl_pgcat_set_int(r, "oid", ROLE_OID);
    fl_pgcat_set_str(r, "rolname", s->user);
    fl_pgcat_set_bool(r, "rolsuper", true);
    fl_pgcat_set_bool(r, "rolinherit", true);
    fl_pgcat_set_bool(r, "rolcreaterole", true);
    fl_pgcat_set_bool(r, "rolcreatedb", true);
    fl_pgcat_set_bool(r, "rolcanlogin", true);
    fl_pgcat_set_int(r, "rolconnlimit", -1);
    fl_pgcat_set_str(r, "rolpassword", shadow ? NULL : "********");
    /* pg_user / pg_shadow */
    fl_pgcat_set_str(r, "usename", s->user);
    fl_pgcat_set_int(r, "usesysid", ROLE_OID);
    fl_pgcat_set_bool(r, "usecreatedb", true);
    fl_pgcat_set_bool(r, "usesuper", true);
    fl_pgcat_set_str(r, "passwd", shadow ? NULL : "********");
    return FL_OK;
}

static fl_status fill_database(fl_pgcat_snap *s, fl_pgcat_rows *r, fl_error *err)
{
    FL_TRY(fl_pgcat_rows_add(r, err));
    fl_pgcat_set_int(r, "oid", fl_pgcat_hash_oid("d:", s->database, NULL));
    fl_pgcat_set_str(r, "datname", s->database);
    fl_pgcat_set_int(r, "datdba", ROLE_OID);
    fl_pgcat_set_int(r, "encoding", 6); /* UTF8 */
    fl_pgcat_set_str(r, "datlocprovider", "c");
    fl_pgcat_set_bool(r, "datallowconn", true);
    fl_pgcat_set_int(r, "datconnlimit", -1);
    fl_pgcat_set_int(r, "dattablespace", 1663);
    fl_pgcat_set_str(r, "datcollate", "C.UTF-8");
    fl_pgcat_set_str(r, "datctype", "C.UTF-8");
    return FL_OK;
}

static fl_status fill_am(fl_pgcat_rows *r, fl_error *err)
{
    static const struct { uint32_t oid; const char *name; const char *type; } ams[] = {
        {2, "heap", "t"}, {403, "btree", "i"}};
    for (size_t i = 0; i < 2; i++) {
        FL_TRY(fl_pgcat_rows_add(r, err));
        fl_pgcat_set_int(r, "oid", ams[i].oid);
        fl_pgcat_set_str(r, "amname", ams[i].name);
        fl_pgcat_set_str(r, "amtype", ams[i].type);
    }
    return FL_OK;
}

static fl_status fill_tablespace(fl_pgcat_rows *r, fl_error *err)
{
    static const struct { uint32_t oid; const char *name; } ts[] = {{1663, "pg_default"},
                                                                   {1664, "pg_global"}};
    for (size_t i = 0; i < 2; i++) {
        FL_TRY(fl_pgcat_rows_add(r, err));
        fl_pgcat_set_int(r, "oid", ts[i].oid);
        fl_pgcat_set_str(r, "spcname", ts[i].name);
        fl_pgcat_set_int(r, "spcowner", ROLE_OID);
    }
    return FL_OK;
}

static fl_status fill_tables_views(fl_pgcat_snap *s, bool views, fl_pgcat_rows *r, fl_error *err)
{
    for (uint32_t i = 0; i < s->nrels; i++) {
        const fl_pgcat_rel *rel = &s->rels[i];
        if (rel->kind != (views ? 'v' : 'r'))
            continue;
        FL_TRY(fl_pgcat_rows_add(r, err));
        fl_pgcat_set_str(r, "schemaname", rel->nsp);
        fl_pgcat_set_str(r, views ? "viewname" : "tablename", rel->name);
        fl_pgcat_set_str(r, views ? "viewowner" : "tableowner", s->user);
        fl_pgcat_set_str(r, "definition", rel->view_sql);
    }
    return FL_OK;
}

static fl_status fill_activity(fl_planner_ctx *pc, fl_pgcat_snap *s, fl_pgcat_rows *r,
                               fl_error *err)
{
    (void)pc;
    FL_TRY(fl_pgcat_rows_add(r, err));
    fl_pgcat_set_int(r, "datid", fl_pgcat_hash_oid("d:", s->database, NULL));
    fl_pgcat_set_str(r, "datname", s->database);
    fl_pgcat_set_int(r, "usesysid", ROLE_OID);
    fl_pgcat_set_str(r, "usename", s->user);
    fl_pgcat_set_str(r, "state", "active");
    fl_pgcat_set_str(r, "backend_type", "client backend");
    return FL_OK;
}

/* The binary operators floe evaluates on its scalar types: comparisons
 * (boolean result), arithmetic on numbers (same type), text || text. */
static fl_status fill_operator(fl_pgcat_rows *r, fl_error *err)
{
    static const uint32_t types[] = {16, 20, 23, 25, 701, 1082, 1114, 1184, 1700};
    static const char *const cmp[] = {"=", "<>", "<", "<=", ">", ">="};
    static const char *const arith[] = {"+", "-", "*", "/"};
    uint32_t next_oid = 9000; /* the table is static: stable OIDs in order */
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        uint32_t ty = types[t];
        bool num = ty == 20 || ty == 23 || ty == 701 || ty == 1700;
        size_t nops = 6 + (num ? 4 : 0) + (ty == 25 ? 1 : 0);
        for (size_t k = 0; k < nops; k++) {
            const char *op = k < 6 ? cmp[k] : num ? arith[k - 6] : "||";
            FL_TRY(fl_pgcat_rows_add(r, err));
            fl_pgcat_set_int(r, "oid", next_oid++);
            fl_pgcat_set_str(r, "oprname", op);
            fl_pgcat_set_int(r, "oprnamespace", 11);
            fl_pgcat_set_int(r, "oprowner", ROLE_OID);
            fl_pgcat_set_str(r, "oprkind", "b");
            fl_pgcat_set_bool(r, "oprcanmerge", k == 0);
            fl_pgcat_set_bool(r, "oprcanhash", k == 0);
            fl_pgcat_set_int(r, "oprleft", ty);
            fl_pgcat_set_int(r, "oprright", ty);
            fl_pgcat_set_int(r, "oprresult", k < 6 ? 16 : ty);
        }
    }
    return FL_OK;
}

fl_status fl_pgcat_fill_pg(fl_planner_ctx *pc, fl_pgcat_snap *s, const fl_pgcat_def *d,
                           fl_pgcat_rows *r, bool *done, fl_error *err)
{
    *done = true;
    FL_TRY(fl_pgcat_fill_keys_pg(pc, s, d, r, done, err));
    if (*done)
        return FL_OK;
    *done = true;
    if (is(d, "pg_namespace"))
        return fill_namespace(s, r, err);
    if (is(d, "pg_class")) {
        FL_TRY(fl_pgcat_snap_columns(pc, s, err));
        return fill_class(s, r, err);
    }
    if (is(d, "pg_attribute")) {
        FL_TRY(fl_pgcat_snap_columns(pc, s, err));
        return fill_attribute(s, r, err);
    }
    if (is(d, "pg_type"))
        return fill_type(s, r, err);
    if (is(d, "pg_proc"))
        return fl_pgcat_fill_proc(s, r, err);
    if (is(d, "pg_aggregate"))
        return fl_pgcat_fill_aggregate(s, r, err);
    if (is(d, "pg_roles") || is(d, "pg_user") || is(d, "pg_authid") || is(d, "pg_shadow"))
        return fill_roles(s, d, r, err);
    if (is(d, "pg_database"))
        return fill_database(s, r, err);
    if (is(d, "pg_am"))
        return fill_am(r, err);
    if (is(d, "pg_tablespace"))
        return fill_tablespace(r, err);
    if (is(d, "pg_settings"))
        return fl_pgcat_fill_settings(pc, r, err);
    if (is(d, "pg_tables"))
        return fill_tables_views(s, false, r, err);
    if (is(d, "pg_views")) {
        FL_TRY(fl_pgcat_snap_columns(pc, s, err));
        return fill_tables_views(s, true, r, err);
    }
    if (is(d, "pg_operator"))
        return fill_operator(r, err);
    if (is(d, "pg_stat_activity"))
        return fill_activity(pc, s, r, err);
    *done = false;
    return FL_OK;
}
