/*
 * policy.c - row filters and column masks (auth.h) in the engine: which
 * apply to a table for the effective principal, and the query that
 * applies them.
 *
 * A table with policies is bound as the subquery
 *   SELECT "c1", CAST((<mask of c2>) AS <type of c2>) AS "c2", ...
 *   FROM "<ns>"."<t>" FOR VERSION AS OF <snapshot>
 *   WHERE (<filter 1>) AND (<filter 2>) ...
 * planned in place of the table (scope.c), at the snapshot the reference
 * resolved to, with the inner reference bound raw (it is the one place
 * that may read the table unfiltered). The expressions are the admin's SQL
 * text, bound over the table's own columns.
 *
 * Fail closed: a mask naming no column of the table, a column masked by
 * two roles of the principal, and a store that cannot answer are refusals
 * (42501), never an unfiltered read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql/authz/authz.h"
#include "sql/func.h"
#include "sql/planner.h"

fl_status fl_sql_authz_policies(fl_planner_ctx *pc, const fl_table_ident *id, int32_t location,
                                fl_auth_policy **out, uint32_t *n, fl_error *err)
{
    *out = NULL;
    *n = 0;
    const fl_principal *p = fl_sql_authz_effective(pc->authz);
    if (!p || fl_sql_authz_is_temp(pc->authz, &id->ns))
        return FL_OK;
    fl_error e;
    fl_error_clear(&e);
    if (fl_auth_policies_for(fl_sql_authz_auth(pc->authz), p, &id->ns, id->name, pc->arena, out, n,
                             &e) != FL_OK)
        return fl_front_err(pc, err, FL_EFORBIDDEN, location, "42501",
                            "permission denied for table %s: its row filters and column masks "
                            "cannot be decided (%s)",
                            fl_table_ident_str(id, pc->arena), e.msg);
    return FL_OK;
}

/* "name" with embedded quotes doubled. */
static const char *quote_ident(fl_arena *a, const char *s)
{
    size_t n = strlen(s), q = 0;
    for (size_t i = 0; i < n; i++)
        q += s[i] == '"';
    char *o = fl_arena_alloc(a, n + q + 3);
    if (!o)
        return NULL;
    size_t k = 0;
    o[k++] = '"';
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"')
            o[k++] = '"';
        o[k++] = s[i];
    }
    o[k++] = '"';
    o[k] = '\0';
    return o;
}

static bool castable(const fl_type *t)
{
    return t->id != FL_TYPE_STRUCT && t->id != FL_TYPE_MAP && t->id != FL_TYPE_LIST &&
           !(t->id == FL_TYPE_FIXED && !fl_type_is_interval(t));
}

/* The mask of column c, NULL if none; two masks from different roles are
 * an error (which would the principal see?). */
static fl_status mask_of(fl_planner_ctx *pc, const fl_table_ident *id, const fl_auth_policy *pol,
                         uint32_t npol, const char *c, int32_t location, const char **out,
                         fl_error *err)
{
    *out = NULL;
    const char *role = NULL;
    for (uint32_t i = 0; i < npol; i++) {
        if (pol[i].kind != FL_POLICY_COLUMN_MASK || strcmp(pol[i].column, c) != 0)
            continue;
        if (*out)
            return fl_front_err(pc, err, FL_EFORBIDDEN, location, "42501",
                                "permission denied for table %s: column \"%s\" is masked by "
                                "both role '%s' and role '%s'",
                                fl_table_ident_str(id, pc->arena), c, role, pol[i].role);
        *out = pol[i].expression;
        role = pol[i].role;
    }
    return FL_OK;
}

/* Every mask names a column of the table. */
static fl_status masks_known(fl_planner_ctx *pc, const fl_table_ident *id, const fl_schema *cols,
                             const fl_auth_policy *pol, uint32_t npol, int32_t location,
                             fl_error *err)
{
    for (uint32_t i = 0; i < npol; i++) {
        if (pol[i].kind != FL_POLICY_COLUMN_MASK)
            continue;
        bool found = false;
        for (uint32_t k = 0; k < cols->nfields && !found; k++)
            found = !strcmp(cols->fields[k].name, pol[i].column);
        if (!found)
            return fl_front_err(pc, err, FL_EFORBIDDEN, location, "42501",
                                "permission denied for table %s: role '%s' masks column \"%s\", "
                                "which the table does not have",
                                fl_table_ident_str(id, pc->arena), pol[i].role, pol[i].column);
    }
    return FL_OK;
}

fl_status fl_sql_policy_query(fl_planner_ctx *pc, const fl_table_ident *id, const fl_schema *cols,
                              int64_t snapshot_id, const fl_auth_policy *pol, uint32_t npol,
                              int32_t location, const char **sql, fl_error *err)
{
    fl_arena *a = pc->arena;
    FL_TRY(masks_known(pc, id, cols, pol, npol, location, err));
    const char *ns = fl_namespace_str(&id->ns, a);
    const char *qns = ns ? quote_ident(a, ns) : NULL, *qt = quote_ident(a, id->name);
    if (!qns || !qt)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    const char *s = "SELECT ";
    for (uint32_t k = 0; k < cols->nfields; k++) {
        const fl_field *f = &cols->fields[k];
        const char *qc = quote_ident(a, f->name), *mask = NULL;
        if (!qc)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        FL_TRY(mask_of(pc, id, pol, npol, f->name, location, &mask, err));
        char tn[256];
        if (!mask)
            s = fl_arena_sprintf(a, "%s%s%s", s, k ? ", " : "", qc);
        else if (castable(&f->type))
            s = fl_arena_sprintf(a, "%s%sCAST((%s) AS %s) AS %s", s, k ? ", " : "", mask,
                                 fl_sql_type_name(&f->type, tn, sizeof tn), qc);
        else
            s = fl_arena_sprintf(a, "%s%s(%s) AS %s", s, k ? ", " : "", mask, qc);
        if (!s)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    if (!cols->nfields)
        return fl_front_err(pc, err, FL_EFORBIDDEN, location, "42501",
                            "permission denied for table %s: it has no columns to filter",
                            fl_table_ident_str(id, a));
    s = fl_arena_sprintf(a, "%s FROM %s.%s", s, qns, qt);
    if (s && snapshot_id != FL_ICE_NO_SNAPSHOT)
        s = fl_arena_sprintf(a, "%s FOR VERSION AS OF %lld", s, (long long)snapshot_id);
    bool where = false;
    for (uint32_t i = 0; s && i < npol; i++) {
        if (pol[i].kind != FL_POLICY_ROW_FILTER)
            continue;
        s = fl_arena_sprintf(a, "%s %s (%s)", s, where ? "AND" : "WHERE", pol[i].expression);
        where = true;
    }
    if (!s)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    *sql = s;
    return FL_OK;
}

bool fl_sql_policy_has(const fl_auth_policy *pol, uint32_t npol, fl_auth_policy_kind kind)
{
    for (uint32_t i = 0; i < npol; i++)
        if (pol[i].kind == kind)
            return true;
    return false;
}
