/*
 * registry.c - the function registry: static tables from each function
 * file, looked up by name and kind, overloads resolved by each entry's
 * resolve() (the candidate needing the fewest argument casts wins; ties go
 * to the earlier entry).
 */
#include <stdio.h>
#include <stdlib.h>

#include "sql/func/func_internal.h"

/* PostgreSQL compatibility functions (pgcatalog: src/sql/func/pg*.c) */
extern const fl_func_table fl_funcs_pg, fl_funcs_pgarray;
/* nested types: lists, structs, maps (func/nested.c) */
extern const fl_func_table fl_funcs_nested;

static const fl_func_table *const tables[] = {
    &fl_funcs_arith, &fl_funcs_compare, &fl_funcs_string,  &fl_funcs_like,   &fl_funcs_datetime,
    &fl_funcs_misc,  &fl_funcs_agg,     &fl_funcs_window,  &fl_funcs_json,   &fl_funcs_math,
    &fl_funcs_agg2,  &fl_funcs_pg,      &fl_funcs_pgarray, &fl_funcs_nested,  &fl_funcs_geo,
    &fl_funcs_variant,
};
#define NTABLES (sizeof tables / sizeof tables[0])

const fl_func *fl_func_at(uint32_t i)
{
    for (size_t t = 0; t < NTABLES; t++) {
        if (i < tables[t]->n)
            return &tables[t]->funcs[i];
        i -= tables[t]->n;
    }
    return NULL;
}

static bool kind_ok(const fl_func *f, fl_func_kind kind)
{
    if (f->kind == kind)
        return true;
    /* aggregates are window functions too */
    return kind == FL_FUNC_WINDOW && f->kind == FL_FUNC_AGGREGATE;
}

bool fl_func_exists(const char *name, fl_func_kind kind)
{
    for (uint32_t i = 0;; i++) {
        const fl_func *f = fl_func_at(i);
        if (!f)
            return false;
        if (kind_ok(f, kind) && strcmp(f->name, name) == 0)
            return true;
    }
}

static bool is_operator(const char *name)
{
    return name[0] && !((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z') || name[0] == '_');
}

/* The registered name nearest to a misspelt one (of kind, or an aggregate
 * for a window call), NULL when none is close (func/edit_distance.c). */
static const char *nearest_name(const char *lname, fl_func_kind kind)
{
    const char *best = NULL;
    uint32_t limit = fl_sql_close_enough(lname), bestd = limit + 1;
    for (uint32_t i = 0;; i++) {
        const fl_func *f = fl_func_at(i);
        if (!f)
            break;
        if (f->kind != kind && !(kind == FL_FUNC_WINDOW && f->kind == FL_FUNC_AGGREGATE))
            continue;
        if (is_operator(f->name) || f->name[0] == '_')
            continue;
        uint32_t d = fl_sql_edit_distance(lname, f->name);
        if (d < bestd) {
            bestd = d;
            best = f->name;
        }
    }
    return best;
}

fl_status fl_func_resolve(const char *name, fl_func_kind kind, const fl_type *args, uint32_t nargs,
                          fl_func_binding *out, fl_error *err)
{
    if (nargs > 4096)
        return fl_errorf(err, FL_ELIMIT, "function %s: too many arguments (%u)", name, nargs);
    char lname[128];
    size_t ln = strlen(name);
    if (ln >= sizeof lname)
        ln = sizeof lname - 1;
    for (size_t i = 0; i < ln; i++)
        lname[i] = (char)((name[i] >= 'A' && name[i] <= 'Z') ? name[i] + 32 : name[i]);
    lname[ln] = 0;
    fl_type *tmp = malloc(sizeof(fl_type) * (nargs ? nargs : 1));
    fl_type *best_types = malloc(sizeof(fl_type) * (nargs ? nargs : 1));
    if (!tmp || !best_types) {
        free(tmp);
        free(best_types);
        return fl_errorf(err, FL_ENOMEM, "out of memory resolving %s", name);
    }
    const fl_func *best = NULL;
    fl_type best_result;
    uint32_t best_casts = UINT32_MAX;
    bool named = false;
    for (int pass = 0; pass < 2 && !best; pass++) {
        /* pass 0: functions of the requested kind; pass 1: aggregates for WINDOW */
        for (uint32_t i = 0;; i++) {
            const fl_func *f = fl_func_at(i);
            if (!f)
                break;
            if (strcmp(f->name, lname) != 0)
                continue;
            if (pass == 0 ? f->kind != kind : !(kind == FL_FUNC_WINDOW && f->kind == FL_FUNC_AGGREGATE))
                continue;
            named = true;
            fl_type result;
            memset(&result, 0, sizeof result);
            for (uint32_t k = 0; k < nargs; k++)
                tmp[k] = args[k];
            if (!f->resolve(args, nargs, &result, tmp))
                continue;
            uint32_t casts = 0;
            for (uint32_t k = 0; k < nargs; k++)
                if (!fl_type_equal(&tmp[k], &args[k]) || fl_is_unknown(&args[k]))
                    casts++;
            if (casts < best_casts) {
                best = f;
                best_casts = casts;
                best_result = result;
                memcpy(best_types, tmp, sizeof(fl_type) * nargs);
            }
        }
    }
    if (!best) {
        free(tmp);
        free(best_types);
        char sig[512] = "";
        size_t o = 0;
        for (uint32_t k = 0; k < nargs && o < sizeof sig - 80; k++) {
            char tn[64];
            o += (size_t)snprintf(sig + o, sizeof sig - o, "%s%s", k ? (is_operator(lname) ? " " : ", ") : "",
                                  fl_sql_type_name(&args[k], tn, sizeof tn));
            if (is_operator(lname) && nargs == 2 && k == 0)
                o += (size_t)snprintf(sig + o, sizeof sig - o, " %s", lname);
        }
        if (is_operator(lname)) {
            if (nargs == 1)
                return fl_error_state(err, FL_ENOTFOUND, "42883", "operator does not exist: %s %s",
                                      lname, sig);
            return fl_error_state(err, FL_ENOTFOUND, "42883", "operator does not exist: %s", sig);
        }
        if (named)
            return fl_error_state(err, FL_ENOTFOUND, "42883",
                                  "function %s(%s) does not exist (no %s takes these argument "
                                  "types; you might need explicit casts)",
                                  lname, sig, lname);
        const char *near = nearest_name(lname, kind);
        return fl_error_state(err, FL_ENOTFOUND, "42883", "function %s(%s) does not exist%s%s%s",
                              lname, sig, near ? " (did you mean " : "", near ? near : "",
                              near ? "?)" : "");
    }
    memset(out, 0, sizeof *out);
    out->fn = best;
    out->result = best_result;
    for (uint32_t k = 0; k < nargs; k++)
        out->arg_types[k < 16 ? k : 15] = k < 16 ? best_types[k] : out->arg_types[15];
    if (best->kind == FL_FUNC_AGGREGATE && best->agg_for)
        out->agg = best->agg_for(best_types, nargs, &best_result);
    else
        out->agg = best->agg;
    free(tmp);
    free(best_types);
    return FL_OK;
}

/* Full resolution keeping every argument's target type (for > 16 arguments). */
fl_status fl_func_resolve_all(const char *name, fl_func_kind kind, const fl_type *args, uint32_t nargs,
                              fl_func_binding *out, fl_type *arg_types, fl_error *err)
{
    FL_TRY(fl_func_resolve(name, kind, args, nargs, out, err));
    fl_type result;
    for (uint32_t k = 0; k < nargs; k++)
        arg_types[k] = args[k];
    if (!out->fn->resolve(args, nargs, &result, arg_types))
        return fl_errorf(err, FL_ETYPE, "function %s: resolution changed", name);
    return FL_OK;
}
