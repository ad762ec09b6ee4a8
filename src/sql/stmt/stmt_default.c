/*
 * stmt_default.c - column defaults (stmt_int.h): Iceberg v3's write-default
 * as SQL's DEFAULT.
 *
 * Iceberg stores a default as a literal (single-value JSON), not as an
 * expression, so ADD COLUMN ... DEFAULT and ALTER COLUMN ... SET DEFAULT
 * take a constant expression, cast it to the column's type and store its
 * value; DEFAULT now() is refused rather than frozen silently. The added
 * column's initial-default (what rows written before it read as) and its
 * write-default are the same value, as in Spark and Java's UpdateSchema.
 *
 * INSERT reads the write-defaults back from the table's current schema: an
 * omitted column, INSERT ... DEFAULT VALUES and VALUES (..., DEFAULT) take
 * the column's write-default, NULL when it has none (PostgreSQL's rule).
 * A DEFAULT inside VALUES becomes CAST('<value>' AS <type>) in an arena copy
 * of the VALUES list, so the VALUES column's type is unified as if the user
 * had written the literal.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "floe/iceberg.h"
#include "floe/pgtypes.h"
#include "sql/func.h"
#include "sql/stmt/stmt_int.h"

fl_status stmt_default_json(fl_stmt_ctx *c, const PgQuery__Node *expr, const char *col,
                            const fl_type *t, const char **out, fl_error *err)
{
    fl_arena *a = c->planner->arena;
    fl_plan *none = fl_plan_new(a, FL_PLAN_VALUES, 0, 0); /* no columns to refer to */
    if (!none)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_expr *e;
    FL_TRY(fl_planner_bind_expr(c->planner, none, NULL, expr, &e, err));
    if (!fl_expr_is_constant(e)) {
        stmt_set_position(c, e->location);
        return fl_error_state(err, FL_EUNSUPPORTED, "0A000",
                              "DEFAULT of column \"%s\" must be a constant (Iceberg stores a "
                              "literal default, not an expression)",
                              col);
    }
    if (!fl_type_equal(&e->type, t)) {
        if (!fl_cast_allowed(&e->type, t, false)) {
            char want[64], have[64];
            fl_type_format(t, want, sizeof want);
            fl_type_format(&e->type, have, sizeof have);
            return fl_error_state(err, FL_ETYPE, "42804",
                                  "column \"%s\" is of type %s but default expression is of "
                                  "type %s",
                                  col, want, have);
        }
        FL_TRY(fl_expr_cast(a, e, t, &e, err));
    }
    fl_value v;
    FL_TRY(fl_expr_fold(e, a, &v, err));
    v.type = *t;
    v.type.children = NULL;
    v.type.nchildren = 0;
    if (fl_ice_value_to_json(&v, a, out, err) != FL_OK)
        return fl_error_prefix(err, "DEFAULT of column \"%s\"", col);
    return FL_OK;
}

fl_status stmt_write_defaults(fl_stmt_ctx *c, fl_ice_txn *x, const fl_schema *ws, fl_value **out,
                              fl_error *err)
{
    fl_arena *a = c->planner->arena;
    fl_value *v = fl_arena_calloc(a, ws->nfields + 1, sizeof *v);
    if (!v)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    const fl_ice_schema *cur = fl_ice_metadata_current_schema(fl_ice_txn_metadata(x));
    for (uint32_t i = 0; i < ws->nfields; i++) {
        const fl_field *f = &ws->fields[i];
        v[i].type = f->type;
        v[i].type.children = NULL;
        v[i].type.nchildren = 0;
        v[i].is_null = true;
        const fl_ice_field_extra *e = cur ? fl_ice_schema_extra(cur, f->field_id) : NULL;
        if (!e || !e->write_default || fl_type_is_nested(&f->type))
            continue;
        if (fl_ice_value_from_json(&f->type, e->write_default, a, &v[i], err) != FL_OK)
            return fl_error_prefix(err, "write-default of column \"%s\"", f->name);
    }
    *out = v;
    return FL_OK;
}

/* The SQL spelling of v's JSON text: a JSON string's content, else the
 * JSON itself (numbers, true/false); binary as '\x...'. */
static const char *literal_text(const fl_value *v, const char *json, fl_arena *a)
{
    json_t *j = json_loads(json, JSON_DECODE_ANY, NULL);
    if (!j)
        return NULL;
    const char *t =
        json_is_string(j) ? fl_arena_strdup(a, json_string_value(j)) : fl_arena_strdup(a, json);
    json_decref(j);
    if (t && (v->type.id == FL_TYPE_BINARY || v->type.id == FL_TYPE_FIXED))
        t = fl_arena_sprintf(a, "\\x%s", t);
    return t;
}

fl_status stmt_value_node(fl_arena *a, const fl_value *v, PgQuery__Node **out, fl_error *err)
{
    if (v->is_null) {
        *out = stmt_mk_null(a);
        return *out ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    const fl_pg_type_info *pt = fl_pg_type_by_oid(fl_pg_type_oid(&v->type));
    if (!pt)
        return fl_errorf(err, FL_EUNSUPPORTED, "a DEFAULT of this type in VALUES");
    const char *json, *text;
    FL_TRY(fl_ice_value_to_json(v, a, &json, err));
    if (!(text = literal_text(v, json, a)))
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    int32_t mods[2] = {v->type.precision, v->type.scale};
    bool dec = v->type.id == FL_TYPE_DECIMAL;
    *out = stmt_mk_typed_literal(a, text, pt->name, mods, dec ? 2 : 0);
    return *out ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
}

fl_status stmt_default_sql(fl_arena *a, const fl_type *t, const char *json, const char **text,
                           bool *quote, fl_error *err)
{
    fl_value v;
    FL_TRY(fl_ice_value_from_json(t, json, a, &v, err));
    *quote = json[0] == '"';
    *text = literal_text(&v, json, a);
    return *text ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
}

fl_status stmt_default_nodes(fl_stmt_ctx *c, fl_ice_txn *x, const fl_schema *ws,
                             PgQuery__Node ***out, fl_error *err)
{
    fl_arena *a = c->planner->arena;
    fl_value *v;
    FL_TRY(stmt_write_defaults(c, x, ws, &v, err));
    PgQuery__Node **n = fl_arena_calloc(a, ws->nfields + 1, sizeof *n);
    if (!n)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < ws->nfields; i++)
        FL_TRY(stmt_value_node(a, &v[i], &n[i], err));
    *out = n;
    return FL_OK;
}
