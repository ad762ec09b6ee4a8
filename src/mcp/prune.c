/*
 * prune.c - the filter a scan would prune with, read back from the
 * engine's EXPLAIN line ("Scan iceberg ns.t snapshot=N ... prune=[a >= X
 * AND b IN (Y, Z) AND c IS NULL]"), so that estimate_cost counts only the
 * files Iceberg planning would keep.
 *
 * Each term's literal is SQL text; the engine itself evaluates it, cast
 * to the column's type (SELECT CAST((X) AS type)), into a typed fl_value.
 * A term that cannot be read (a nested column, an unknown operator, a
 * literal that does not evaluate) is left out: the predicate is an AND, so
 * fewer terms keep more files and the count stays an upper bound.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/sql_lex.h"
#include "mcp/mcp_internal.h"

typedef struct lexer {
    const char *s;
    size_t n, pos;
} lexer;

static fl_tok next(lexer *l)
{
    return fl_lex_next(l->s, l->n, &l->pos);
}

static fl_tok peek(lexer *l)
{
    size_t p = l->pos;
    return fl_lex_next(l->s, l->n, &p);
}

static bool is_punct(const lexer *l, const fl_tok *t, const char *p)
{
    return t->kind == FL_TOK_PUNCT && t->len == strlen(p) && !memcmp(l->s + t->start, p, t->len);
}

/* The end of one literal: the offset of the AND / ']' / ',' / ')' that ends it at depth 0. */
static size_t literal_end(lexer *l, bool in_list)
{
    int depth = 0;
    for (;;) {
        fl_tok t = peek(l);
        if (t.kind == FL_TOK_EOF || t.kind == FL_TOK_ERROR)
            return t.start;
        if (depth == 0 && ((t.kind == FL_TOK_IDENT && fl_tok_is(l->s, &t, "AND") && !in_list) ||
                           (is_punct(l, &t, "]") && !in_list) ||
                           (in_list && (is_punct(l, &t, ",") || is_punct(l, &t, ")")))))
            return t.start;
        if (is_punct(l, &t, "(") || is_punct(l, &t, "["))
            depth++;
        else if ((is_punct(l, &t, ")") || is_punct(l, &t, "]")) && depth)
            depth--;
        next(l);
    }
}

/* Evaluates literal text as the column's type into v (bytes copied to a). */
static bool eval_literal(fl_sql_session *s, const char *lit, size_t len, const fl_field *f,
                         fl_arena *a, fl_value *v)
{
    char tb[128], *sql = NULL;
    if (asprintf(&sql, "SELECT CAST((%.*s) AS %s)", (int)len, lit,
                 fl_sql_type_name(&f->type, tb, sizeof tb)) < 0)
        return false;
    fl_sql_result *r = NULL;
    fl_error err = {0};
    const fl_batch *b = NULL;
    bool eof = false, ok = false;
    if (fl_sql_execute(s, sql, &r, &err) == FL_OK &&
        fl_sql_result_next(r, &b, &eof, &err) == FL_OK && !eof && b && b->nrows == 1) {
        const fl_vector *vec = &b->cols[0];
        fl_unified u;
        fl_vector_unify(vec, &u);
        uint32_t row = fl_unified_row(&u, 0);
        memset(v, 0, sizeof *v);
        v->type = f->type;
        v->type.nchildren = 0;
        v->type.children = NULL;
        size_t w = fl_type_width(u.base->type);
        if (!fl_unified_is_valid(&u, 0) || fl_type_is_nested(u.base->type)) {
            ok = false; /* x = NULL prunes nothing reliably: leave it out */
        } else if (fl_type_is_varlen(u.base->type)) {
            size_t n = (size_t)(u.base->offsets[row + 1] - u.base->offsets[row]);
            uint8_t *copy = fl_arena_alloc(a, n + 1);
            if (copy) {
                memcpy(copy, u.base->heap + u.base->offsets[row], n);
                v->v.bytes.ptr = copy;
                v->v.bytes.len = n;
                ok = true;
            }
        } else if (u.base->type->id == FL_TYPE_UUID || u.base->type->id == FL_TYPE_FIXED) {
            uint8_t *copy = fl_arena_alloc(a, w ? w : 1);
            if (copy && w) {
                memcpy(copy, u.base->data + (size_t)row * w, w);
                v->v.bytes.ptr = copy;
                v->v.bytes.len = w;
                ok = true;
            }
        } else if (w && w <= sizeof v->v) {
            memcpy(&v->v, u.base->data + (size_t)row * w, w);
            ok = u.base->type->id == f->type.id;
        }
    }
    fl_sql_result_close(r);
    free(sql);
    return ok;
}

static fl_cmp_op op_of(const lexer *l, const fl_tok *t)
{
    static const struct {
        const char *s;
        fl_cmp_op op;
    } ops[] = {{"=", FL_CMP_EQ},  {"<>", FL_CMP_NE}, {"<", FL_CMP_LT},
               {"<=", FL_CMP_LE}, {">", FL_CMP_GT},  {">=", FL_CMP_GE}};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (is_punct(l, t, ops[i].s))
            return ops[i].op;
    return 0;
}

/* One term at l; false = stop reading (the rest is left out). */
static bool read_term(lexer *l, fl_sql_session *s, const fl_schema *sch, fl_arena *a,
                      fl_col_pred *out, bool *usable)
{
    *usable = false;
    fl_tok c = next(l);
    if (c.kind != FL_TOK_IDENT && c.kind != FL_TOK_QIDENT)
        return false;
    char *name = fl_arena_strndup(a, l->s + c.start, c.len);
    const fl_field *f = name ? fl_schema_find_name(sch, name) : NULL;
    memset(out, 0, sizeof *out);
    out->column = name;
    fl_tok o = next(l);
    if (o.kind == FL_TOK_IDENT && fl_tok_is(l->s, &o, "IS")) {
        fl_tok t = next(l);
        out->op = FL_CMP_IS_NULL;
        if (fl_tok_is(l->s, &t, "NOT"))
            out->op = FL_CMP_NOT_NULL, t = next(l);
        *usable = f != NULL && fl_tok_is(l->s, &t, "NULL");
    } else if (o.kind == FL_TOK_IDENT && fl_tok_is(l->s, &o, "IN")) {
        fl_tok p = next(l);
        if (!is_punct(l, &p, "("))
            return false;
        fl_value vals[64];
        uint32_t n = 0;
        bool all = f != NULL;
        for (;;) {
            size_t start = peek(l).start, end = literal_end(l, true);
            if (n < 64 && all)
                all = eval_literal(s, l->s + start, end - start, f, a, &vals[n++]);
            else
                all = false;
            fl_tok sep = next(l);
            if (is_punct(l, &sep, ")"))
                break;
            if (!is_punct(l, &sep, ","))
                return false;
        }
        fl_value *copy = all ? fl_arena_alloc(a, n * sizeof *copy) : NULL;
        if (copy) {
            memcpy(copy, vals, n * sizeof *copy);
            out->op = FL_CMP_IN;
            out->in_values = copy;
            out->nin = n;
            *usable = true;
        }
    } else {
        out->op = op_of(l, &o);
        size_t start = peek(l).start, end = literal_end(l, false);
        *usable = out->op && f && eval_literal(s, l->s + start, end - start, f, a, &out->value);
    }
    return true;
}

fl_status mcp_prune_predicate(fl_sql_session *s, const char *line, size_t len, const fl_schema *sch,
                              fl_arena *a, fl_predicate *out, uint32_t *left_out)
{
    memset(out, 0, sizeof *out);
    *left_out = 0;
    const char *p = memmem(line, len, " prune=[", 8);
    if (!p)
        return FL_OK;
    lexer l = {line, len, (size_t)(p - line) + 8};
    fl_col_pred *terms = fl_arena_alloc(a, 32 * sizeof *terms);
    if (!terms)
        return FL_ENOMEM;
    uint32_t n = 0;
    for (;;) {
        bool usable = false;
        if (n >= 32 || !read_term(&l, s, sch, a, &terms[n], &usable)) {
            (*left_out)++;
            break;
        }
        if (usable)
            n++;
        else
            (*left_out)++;
        fl_tok t = next(&l);
        if (!(t.kind == FL_TOK_IDENT && fl_tok_is(l.s, &t, "AND")))
            break;
    }
    out->terms = terms;
    out->nterms = n;
    return FL_OK;
}
