/*
 * readonly.c - which statements run_sql and estimate_cost accept: exactly
 * one statement whose first keyword reads (SELECT, WITH, VALUES, TABLE,
 * SHOW, DESCRIBE, EXPLAIN without ANALYZE). This is the clear refusal;
 * the engine still enforces it, because sqlrun.c runs every statement in
 * a BEGIN READ ONLY block that is rolled back (25006 for any write).
 */
#include <stdlib.h>
#include <string.h>

#include "floe/sql_lex.h"
#include "mcp/mcp_internal.h"

static const char *const wrappable_kw[] = {"SELECT", "WITH", "VALUES", "TABLE", NULL};
static const char *const other_kw[] = {"SHOW", "DESCRIBE", "DESC", "EXPLAIN", NULL};

static bool kw_in(const char *s, const fl_tok *t, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (fl_tok_is(s, t, list[i]))
            return true;
    return false;
}

fl_status mcp_sql_read_only(const char *sql, bool *wrappable, fl_error *err)
{
    *wrappable = false;
    uint32_t *st = NULL, *ln = NULL, n = 0;
    FL_TRY(fl_sql_split(sql, &st, &ln, &n, err));
    uint32_t start = n ? st[0] : 0, len = n ? ln[0] : 0;
    free(st);
    free(ln);
    if (n != 1)
        return fl_errorf(err, FL_EINVAL, "run one statement at a time (got %u)", n);
    size_t pos = start;
    fl_tok t = fl_lex_next(sql, start + len, &pos);
    while (t.kind == FL_TOK_PUNCT && fl_tok_punct(sql, &t, '('))
        t = fl_lex_next(sql, start + len, &pos); /* (SELECT ...) UNION ... */
    if (t.kind != FL_TOK_IDENT)
        return fl_errorf(err, FL_EFORBIDDEN,
                         "only read-only statements run here (SELECT, WITH, "
                         "VALUES, TABLE, SHOW, DESCRIBE, EXPLAIN)");
    if (kw_in(sql, &t, wrappable_kw)) {
        *wrappable = true;
        return FL_OK;
    }
    if (kw_in(sql, &t, other_kw)) {
        if (fl_tok_is(sql, &t, "EXPLAIN")) {
            fl_tok a = fl_lex_next(sql, start + len, &pos);
            if (fl_tok_is(sql, &a, "ANALYZE") || fl_tok_punct(sql, &a, '('))
                return fl_errorf(err, FL_EFORBIDDEN,
                                 "EXPLAIN ANALYZE runs the statement: use plain EXPLAIN (or "
                                 "estimate_cost) here");
        }
        return FL_OK;
    }
    return fl_errorf(err, FL_EFORBIDDEN,
                     "%.*s is not allowed: this tool runs read-only statements only (SELECT, WITH, "
                     "VALUES, TABLE, SHOW, DESCRIBE, EXPLAIN); DDL and DML are refused",
                     (int)(t.len > 40 ? 40 : t.len), sql + t.start);
}
