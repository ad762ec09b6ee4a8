/*
 * pgcat_proc.c - floe's functions as PostgreSQL shows functions: pg_proc
 * (one row per signature, from src/sql/func/registry_list.c: proargtypes,
 * pronargs, prorettype, prokind 'f'/'a'/'w', proretset, provariadic,
 * proisstrict, provolatile), pg_aggregate (one row per aggregate signature),
 * information_schema.routines, and the text of pg_get_function_result /
 * pg_get_function_arguments (pgcat_fn.c).
 *
 * OIDs: array_in 750 and array_recv 2400 are PostgreSQL's (pg_type's
 * typinput/typreceive point at them); every other signature is
 * 8000 + FNV-1a("p:" name "." ordinal) mod 8000, ordinal = its position
 * among the signatures of that name (registry order), so the OIDs only move
 * when the registry changes. Ownership: rows and strings in the arena.
 */
#include <stdio.h>
#include <string.h>

#include "sql/pgcat/pgcat.h"

#define ROLE_OID 10
#define OID_ARRAY_IN 750
#define OID_ARRAY_RECV 2400
#define OID_ANY 2276
#define OID_ANYELEMENT 2283

uint32_t fl_pgcat_proc_oid(const char *name, uint32_t index)
{
    char ix[16];
    snprintf(ix, sizeof ix, "%u", index);
    return 8000 + fl_pgcat_hash_oid("p:", name, ix) % 8000; /* below 16384: built in */
}

/* OIDs in signature order; a value already taken probes upward (wrapping
 * within 8000..15999), so the assignment is the same in every statement. */
fl_status fl_pgcat_snap_sigs(fl_pgcat_snap *s, fl_arena *a, fl_error *err)
{
    if (s->sigs)
        return FL_OK;
    FL_TRY(fl_func_signatures(a, &s->sigs, &s->nsigs, err));
    if (s->nsigs >= 8000)
        return fl_errorf(err, FL_ELIMIT, "pg_proc: more than 8000 function signatures");
    uint8_t *used = fl_arena_calloc(a, 8000 / 8, 1);
    if (!used)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < s->nsigs; i++) {
        fl_func_sig *g = &s->sigs[i];
        if (strcmp(g->fn->name, "array_in") == 0 && g->ordinal == 0) {
            g->oid = OID_ARRAY_IN;
            continue;
        }
        if (strcmp(g->fn->name, "array_recv") == 0 && g->ordinal == 0) {
            g->oid = OID_ARRAY_RECV;
            continue;
        }
        uint32_t slot = fl_pgcat_proc_oid(g->fn->name, g->ordinal) - 8000;
        while (used[slot / 8] & (1u << (slot % 8)))
            slot = (slot + 1) % 8000;
        used[slot / 8] |= (uint8_t)(1u << (slot % 8));
        g->oid = 8000 + slot;
    }
    return FL_OK;
}

const fl_func_sig *fl_pgcat_sig_find(fl_arena *a, const fl_pgcat_snap *s, const char *name,
                                     const char *args)
{
    for (uint32_t i = 0; i < s->nsigs; i++) {
        const fl_func_sig *g = &s->sigs[i];
        if (strcmp(g->fn->name, name) != 0)
            continue;
        if (!args)
            return g;
        const char *t = fl_pgcat_sig_args(a, g);
        if (t && strcmp(t, args) == 0)
            return g;
    }
    return NULL;
}

static bool set_returning(const char *name)
{
    static const char *const srf[] = {"unnest", "generate_series", "generate_subscripts",
                                      "_pg_expandarray", "regexp_matches",
                                      "regexp_split_to_table", "json_array_elements",
                                      "json_array_elements_text", "json_each", "json_each_text",
                                      "json_object_keys", "jsonb_array_elements", "jsonb_each"};
    for (size_t i = 0; i < sizeof srf / sizeof srf[0]; i++)
        if (strcmp(name, srf[i]) == 0)
            return true;
    return false;
}

static uint32_t arg_oid(const fl_func_sig *g, uint32_t i)
{
    if (g->form == FL_SIG_VARIADIC)
        return OID_ANY;
    if (g->form == FL_SIG_ANYELEMENT)
        return OID_ANYELEMENT;
    return fl_pg_type_oid(&g->args[i]);
}

static uint32_t result_oid(const fl_func_sig *g)
{
    return g->result_poly ? OID_ANYELEMENT : fl_pg_type_oid(&g->result);
}

uint32_t fl_pgcat_sig_oid(const fl_func_sig *g)
{
    return g->oid;
}

static const char *type_text(fl_arena *a, uint32_t oid)
{
    char buf[96];
    fl_pg_type_format(oid, -1, buf, sizeof buf);
    return fl_arena_strdup(a, buf);
}

const char *fl_pgcat_sig_result(fl_arena *a, const fl_func_sig *g)
{
    const char *t = type_text(a, result_oid(g));
    if (t && set_returning(g->fn->name))
        t = fl_arena_sprintf(a, "SETOF %s", t);
    return t;
}

const char *fl_pgcat_sig_args(fl_arena *a, const fl_func_sig *g)
{
    if (g->form == FL_SIG_VARIADIC)
        return "VARIADIC \"any\"";
    char buf[512];
    size_t o = 0;
    buf[0] = 0;
    for (uint32_t i = 0; i < g->nargs && o < sizeof buf; i++) {
        char t[96];
        fl_pg_type_format(arg_oid(g, i), -1, t, sizeof t);
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s", i ? ", " : "", t);
    }
    return fl_arena_strdup(a, buf);
}

static const char *oid_vector(fl_arena *a, const fl_func_sig *g)
{
    char buf[64];
    size_t o = 0;
    buf[0] = 0;
    for (uint32_t i = 0; i < g->nargs; i++)
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%u", i ? " " : "", arg_oid(g, i));
    return fl_arena_strdup(a, buf);
}

static fl_status add_row(fl_pgcat_rows *r, uint32_t oid, const char *name, char kind,
                         const fl_func_sig *g, fl_error *err)
{
    FL_TRY(fl_pgcat_rows_add(r, err));
    fl_pgcat_set_int(r, "oid", oid);
    fl_pgcat_set_str(r, "proname", name);
    fl_pgcat_set_int(r, "pronamespace", 11);
    fl_pgcat_set_int(r, "proowner", ROLE_OID);
    fl_pgcat_set_int(r, "prolang", 12); /* internal */
    fl_pgcat_set_float(r, "procost", 1);
    char k[2] = {kind, 0};
    fl_pgcat_set_str(r, "prokind", fl_arena_strdup(r->a, k));
    fl_pgcat_set_str(r, "proparallel", "s");
    fl_pgcat_set_str(r, "prosrc", name);
    if (!g) { /* array_in(cstring, oid, int4) / array_recv(internal, oid, int4) */
        fl_pgcat_set_bool(r, "proisstrict", true);
        fl_pgcat_set_str(r, "provolatile", "s");
        fl_pgcat_set_int(r, "prorettype", 2277);
        fl_pgcat_set_int(r, "pronargs", 3);
        fl_pgcat_set_str(r, "proargtypes", oid == OID_ARRAY_IN ? "2275 26 23" : "2281 26 23");
        return FL_OK;
    }
    bool srf = set_returning(g->fn->name);
    fl_pgcat_set_bool(r, "proisstrict", !g->fn->handles_nulls && g->fn->kind == FL_FUNC_SCALAR);
    fl_pgcat_set_str(r, "provolatile", !g->fn->deterministic ? "v" : g->fn->uses_env ? "s" : "i");
    fl_pgcat_set_bool(r, "proretset", srf);
    fl_pgcat_set_float(r, "prorows", srf ? 1000 : 0);
    fl_pgcat_set_int(r, "provariadic", g->form == FL_SIG_VARIADIC ? OID_ANY : 0);
    fl_pgcat_set_int(r, "pronargs", g->nargs);
    fl_pgcat_set_int(r, "prorettype", result_oid(g));
    fl_pgcat_set_str(r, "proargtypes", oid_vector(r->a, g));
    if (g->form == FL_SIG_VARIADIC) {
        fl_pgcat_set_str(r, "proallargtypes", NULL);
        fl_pgcat_set_str(r, "proargmodes", "{v}");
    }
    return FL_OK;
}

static char kind_of(const fl_func *f)
{
    return f->kind == FL_FUNC_AGGREGATE ? 'a' : f->kind == FL_FUNC_WINDOW ? 'w' : 'f';
}

fl_status fl_pgcat_fill_proc(fl_pgcat_snap *s, fl_pgcat_rows *r, fl_error *err)
{
    FL_TRY(fl_pgcat_snap_sigs(s, r->a, err));
    FL_TRY(add_row(r, OID_ARRAY_IN, "array_in", 'f', NULL, err));
    FL_TRY(add_row(r, OID_ARRAY_RECV, "array_recv", 'f', NULL, err));
    for (uint32_t i = 0; i < s->nsigs; i++) {
        const fl_func_sig *g = &s->sigs[i];
        uint32_t oid = fl_pgcat_sig_oid(g);
        if (oid == OID_ARRAY_IN || oid == OID_ARRAY_RECV)
            continue;
        FL_TRY(add_row(r, oid, g->fn->name, kind_of(g->fn), g, err));
    }
    return FL_OK;
}

fl_status fl_pgcat_fill_aggregate(fl_pgcat_snap *s, fl_pgcat_rows *r, fl_error *err)
{
    FL_TRY(fl_pgcat_snap_sigs(s, r->a, err));
    for (uint32_t i = 0; i < s->nsigs; i++) {
        const fl_func_sig *g = &s->sigs[i];
        if (g->fn->kind != FL_FUNC_AGGREGATE)
            continue;
        bool ordered = strncmp(g->fn->name, "percentile_", 11) == 0 ||
                       strcmp(g->fn->name, "mode") == 0;
        FL_TRY(fl_pgcat_rows_add(r, err));
        fl_pgcat_set_int(r, "aggfnoid", fl_pgcat_sig_oid(g));
        fl_pgcat_set_str(r, "aggkind", ordered ? "o" : "n");
        fl_pgcat_set_int(r, "aggnumdirectargs", ordered && g->nargs > 1 ? 1 : 0);
        fl_pgcat_set_str(r, "aggfinalmodify", "r");
        fl_pgcat_set_str(r, "aggmfinalmodify", "r");
        fl_pgcat_set_int(r, "aggtranstype", 2281); /* internal: states are C structs */
    }
    return FL_OK;
}

fl_status fl_pgcat_fill_routines(fl_pgcat_snap *s, fl_pgcat_rows *r, fl_error *err)
{
    FL_TRY(fl_pgcat_snap_sigs(s, r->a, err));
    for (uint32_t i = 0; i < s->nsigs; i++) {
        const fl_func_sig *g = &s->sigs[i];
        const char *name = g->fn->name;
        FL_TRY(fl_pgcat_rows_add(r, err));
        const char *spec = fl_arena_sprintf(r->a, "%s_%u", name, fl_pgcat_sig_oid(g));
        uint32_t ro = result_oid(g);
        const fl_pg_type_info *ti = fl_pg_type_by_oid(ro);
        fl_pgcat_set_str(r, "specific_catalog", s->database);
        fl_pgcat_set_str(r, "specific_schema", "pg_catalog");
        fl_pgcat_set_str(r, "specific_name", spec);
        fl_pgcat_set_str(r, "routine_catalog", s->database);
        fl_pgcat_set_str(r, "routine_schema", "pg_catalog");
        fl_pgcat_set_str(r, "routine_name", name);
        fl_pgcat_set_str(r, "routine_type", "FUNCTION");
        fl_pgcat_set_str(r, "data_type",
                         ti && ti->category == 'A' ? "ARRAY" : type_text(r->a, ro));
        fl_pgcat_set_str(r, "type_udt_catalog", s->database);
        fl_pgcat_set_str(r, "type_udt_schema", "pg_catalog");
        fl_pgcat_set_str(r, "type_udt_name", ti ? ti->name : NULL);
        fl_pgcat_set_str(r, "routine_body", "EXTERNAL");
        fl_pgcat_set_str(r, "external_name", name);
        fl_pgcat_set_str(r, "external_language", "INTERNAL");
        fl_pgcat_set_str(r, "parameter_style", "GENERAL");
        fl_pgcat_set_str(r, "is_deterministic", g->fn->deterministic ? "YES" : "NO");
        fl_pgcat_set_str(r, "sql_data_access", "MODIFIES");
        fl_pgcat_set_str(r, "is_null_call", g->fn->handles_nulls ? "NO" : "YES");
        fl_pgcat_set_str(r, "security_type", "INVOKER");
        fl_pgcat_set_str(r, "is_user_defined_cast", "NO");
        fl_pgcat_set_str(r, "is_implicitly_invocable", "NO");
        fl_pgcat_set_str(r, "as_locator", "NO");
        fl_pgcat_set_str(r, "is_udt_dependent", "NO");
    }
    return FL_OK;
}
