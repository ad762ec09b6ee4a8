/*
 * where.c - the --where option shared by `floe parquet cat`, `floe table cat`
 * and `floe table delete`: "col op literal" with op one of = == != <> < <= >
 * >= "is null" "is not null", a column name optionally in double quotes, and a
 * literal parsed as the column's type (quotes optional). The result is one
 * term of an fl_predicate (predicate.h), naming the column and its field id.
 * Ownership: the name and literal bytes live in the caller's arena.
 */
#include <string.h>
#include <strings.h>

#include "cli/textparse.h"
#include "cli/where.h"

fl_status fl_cli_parse_where(const char *w, const fl_schema *schema, fl_arena *a, fl_col_pred *out,
                             fl_error *err)
{
    memset(out, 0, sizeof *out);
    const char *p = w;
    while (*p == ' ')
        p++;
    const char *ns = p;
    if (*p == '"') { /* "quoted name" */
        ns = ++p;
        while (*p && *p != '"')
            p++;
    } else {
        while (*p && !strchr("=!<> ", *p))
            p++;
    }
    size_t nl = (size_t)(p - ns);
    if (*p == '"')
        p++;
    FL_CHECK(nl > 0, err, FL_ESYNTAX, "--where '%s': expected 'column op value'", w);
    char *name = fl_arena_strndup(a, ns, nl);
    FL_CHECK(name != NULL, err, FL_ENOMEM, "out of memory");
    const fl_field *f = fl_schema_find_name(schema, name);
    FL_CHECK(f != NULL, err, FL_ENOTFOUND, "--where: no column '%s'", name);
    FL_CHECK(!fl_type_is_nested(&f->type) && f->type.id != 0, err, FL_EUNSUPPORTED,
             "--where: column '%s' is not a primitive", name);
    out->column = name;
    out->field_id = f->field_id;
    while (*p == ' ')
        p++;
    static const struct {
        const char *tok;
        fl_cmp_op op;
    } ops[] = {{"is not null", FL_CMP_NOT_NULL},
               {"is null", FL_CMP_IS_NULL},
               {"==", FL_CMP_EQ},
               {"!=", FL_CMP_NE},
               {"<>", FL_CMP_NE},
               {"<=", FL_CMP_LE},
               {">=", FL_CMP_GE},
               {"=", FL_CMP_EQ},
               {"<", FL_CMP_LT},
               {">", FL_CMP_GT}};
    size_t k;
    for (k = 0; k < sizeof ops / sizeof ops[0]; k++)
        if (!strncasecmp(p, ops[k].tok, strlen(ops[k].tok)))
            break;
    FL_CHECK(k < sizeof ops / sizeof ops[0], err, FL_ESYNTAX,
             "--where '%s': unknown operator at '%s'", w, p);
    out->op = ops[k].op;
    p += strlen(ops[k].tok);
    while (*p == ' ')
        p++;
    if (out->op == FL_CMP_IS_NULL || out->op == FL_CMP_NOT_NULL) {
        FL_CHECK(!*p, err, FL_ESYNTAX, "--where '%s': unexpected '%s'", w, p);
        return FL_OK;
    }
    size_t len = strlen(p);
    while (len && p[len - 1] == ' ')
        len--;
    if (len >= 2 && (p[0] == '\'' || p[0] == '"') && p[len - 1] == p[0]) {
        p++;
        len -= 2;
    } else {
        FL_CHECK(len > 0, err, FL_ESYNTAX, "--where '%s': missing value", w);
    }
    fl_status rc = fl_parse_value(&f->type, p, len, a, &out->value, err);
    if (rc != FL_OK)
        return fl_error_prefix(err, "--where '%s'", w);
    return FL_OK;
}
