/*
 * parse.c - fl_sql_parse: the lakehouse pre-lexer plus libpg_query.
 *
 * The pre-lexer (tokens from lex.c) recognizes, on an arena copy of the
 * statement text, the syntax PostgreSQL's grammar lacks and overwrites it
 * with spaces so that every byte offset (node locations, error cursors)
 * still points into the original text:
 *   - FOR VERSION AS OF v / FOR TIMESTAMP AS OF v (also FOR SYSTEM_VERSION /
 *     FOR SYSTEM_TIME) after a table reference; v is a number, a string, a
 *     typed string (TIMESTAMP '...') or $n. Recorded as fl_time_travel and
 *     tied after parsing to the RangeVar that precedes it.
 *   - ARRAY[...] option values in CREATE TABLE ... WITH (name = ARRAY[...])
 *     and ALTER TABLE ... SET (name = ARRAY[...]):
 *     replaced by a same-length string literal of spaces (the grammar accepts
 *     strings there); the values are recorded by option name.
 *   - ROW(...), STRUCT<...>, MAP(...), ARRAY<...> column types in CREATE /
 *     ALTER TABLE (nested_type.c): recorded by offset, written as "text".
 *   - ALTER TABLE t SET PROPERTIES k = v[, ...] (Trino's spelling): becomes
 *     SET (k = v, ...): PROPERTIES is overwritten by '(' and spaces and ')'
 *     is inserted after the last token (offsets before it are unchanged).
 *   - ALTER TABLE t EXECUTE proc [(args)] [WHERE cond]: parsed entirely here
 *     (fl_execute_stmt); libpg_query never sees it.
 *   - SHOW TABLES, DESCRIBE t, USE ns, ... (habit.c, fl_habit_stmt): the
 *     same, recognized by their first words.
 *   - FROM 'file.parquet' (fromfile.c): only when libpg_query refuses the
 *     text, which it parses again with placeholders for the literals.
 * The rest is parsed by pg_query_parse_protobuf() and unpacked with
 * protobuf-c (pg_query__parse_result__unpack), owned by the fl_sql_parsed;
 * both through depth.h, which bounds the tree's nesting (54001) and runs
 * them on a stack big enough for the statement.
 */
#include <ctype.h>
#include <pg_query.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/sql_lex.h"
#include "sql/parse/depth.h"
#include "sql/parse/nested_type.h"
#include "sql/parse/parse_tree.h"
#include "sql/planner.h"

#define MAX_TRAVEL 64
#define MAX_ARRAY_OPTS 16

/* ---- helpers ---- */

int32_t fl_front_char_to_byte(const char *text, int32_t char_pos1)
{
    /* 1-based character position -> 0-based byte offset */
    int32_t chars = 0;
    size_t n = strlen(text);
    for (size_t i = 0; i < n; i++) {
        if (((unsigned char)text[i] & 0xC0) != 0x80) {
            chars++;
            if (chars == char_pos1)
                return (int32_t)i;
        }
    }
    return (int32_t)n;
}

int32_t fl_front_byte_to_char(const char *text, int32_t byte_off)
{
    /* 0-based byte offset -> 1-based character position */
    int32_t chars = 0;
    size_t n = strlen(text);
    for (size_t i = 0; i < n && i <= (size_t)byte_off; i++)
        if (((unsigned char)text[i] & 0xC0) != 0x80)
            chars++;
    return chars > 0 ? chars : 1;
}

/* Unquotes a STRING or QIDENT token (or copies other tokens) into the arena. */
char *fl_front_tok_text(fl_arena *a, const char *s, const fl_tok *t)
{
    const char *p = s + t->start;
    size_t n = t->len;
    if (t->kind == FL_TOK_QIDENT || (t->kind == FL_TOK_STRING && p[0] == '\'')) {
        char q = p[0];
        char *out = fl_arena_alloc(a, n + 1);
        if (!out)
            return NULL;
        size_t o = 0;
        for (size_t i = 1; i + 1 < n; i++) {
            out[o++] = p[i];
            if (p[i] == q && i + 2 < n && p[i + 1] == q)
                i++;
        }
        out[o] = 0;
        return out;
    }
    if (t->kind == FL_TOK_STRING && (p[0] == 'E' || p[0] == 'e') && n >= 3)
        return fl_arena_strndup(a, p + 2, n - 3); /* escapes kept as written */
    if (t->kind == FL_TOK_STRING && p[0] == '$') {
        size_t tag = 1;
        while (tag < n && p[tag] != '$')
            tag++;
        tag++;
        if (n >= 2 * tag)
            return fl_arena_strndup(a, p + tag, n - 2 * tag);
    }
    return fl_arena_strndup(a, p, n);
}

static void blank(char *text, uint32_t from, uint32_t to)
{
    for (uint32_t i = from; i < to; i++)
        if (text[i] != '\n')
            text[i] = ' ';
}

static fl_status syntax_at(const char *text, int32_t byte_off, int32_t *error_position,
                           fl_error *err, const char *what)
{
    char pos[64];
    fl_sql_position(text, byte_off, pos, sizeof pos);
    if (error_position)
        *error_position = fl_front_byte_to_char(text, byte_off);
    return fl_errorf(err, FL_ESYNTAX, "%s: %s", pos, what);
}

fl_status fl_front_syntax_at(const char *text, int32_t byte_off, int32_t *error_position,
                             fl_error *err, const char *what)
{
    return syntax_at(text, byte_off, error_position, err, what);
}

/* ---- token array ---- */

typedef struct toks {
    fl_tok *v;
    uint32_t n;
} toks;

static fl_status tokenize(const char *s, fl_arena *a, toks *out, int32_t *epos, fl_error *err)
{
    size_t n = strlen(s), pos = 0, cap = 64;
    out->v = fl_arena_alloc(a, cap * sizeof(fl_tok));
    out->n = 0;
    if (!out->v)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (;;) {
        fl_tok t = fl_lex_next(s, n, &pos);
        if (t.kind == FL_TOK_ERROR)
            return syntax_at(s, (int32_t)t.start, epos, err,
                             "unterminated quoted string, identifier or comment");
        if (out->n == cap) {
            fl_tok *nv = fl_arena_alloc(a, cap * 2 * sizeof(fl_tok));
            if (!nv)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            memcpy(nv, out->v, cap * sizeof(fl_tok));
            out->v = nv;
            cap *= 2;
        }
        out->v[out->n++] = t;
        if (t.kind == FL_TOK_EOF)
            return FL_OK;
    }
}

/* ---- ALTER TABLE t EXECUTE ---- */

static bool is_name_tok(const fl_tok *t)
{
    return t->kind == FL_TOK_IDENT || t->kind == FL_TOK_QIDENT;
}

static fl_status parse_execute(const char *s, const toks *tk, fl_arena *a, fl_execute_stmt **out,
                               int32_t *epos, fl_error *err)
{
    /* ALTER TABLE name[.name]* EXECUTE */
    uint32_t i = 2;
    if (tk->n < 5 || !fl_tok_is(s, &tk->v[0], "alter") || !fl_tok_is(s, &tk->v[1], "table"))
        return FL_OK;
    if (fl_tok_is(s, &tk->v[2], "if"))
        return FL_OK;
    char name[1024];
    size_t nl = 0;
    for (;;) {
        if (!is_name_tok(&tk->v[i]))
            return FL_OK;
        char *part = fl_front_tok_text(a, s, &tk->v[i]);
        if (!part)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        int w = snprintf(name + nl, sizeof name - nl, "%s%s", nl ? "." : "", part);
        if (w < 0 || (size_t)w >= sizeof name - nl)
            return syntax_at(s, (int32_t)tk->v[i].start, epos, err, "table name too long");
        nl += (size_t)w;
        i++;
        if (fl_tok_punct(s, &tk->v[i], '.')) {
            i++;
            continue;
        }
        break;
    }
    if (!fl_tok_is(s, &tk->v[i], "execute"))
        return FL_OK;
    int32_t loc = (int32_t)tk->v[i].start;
    i++;
    if (tk->v[i].kind != FL_TOK_IDENT)
        return syntax_at(s, (int32_t)tk->v[i].start, epos, err,
                         "expected a procedure name after EXECUTE");
    fl_execute_stmt *x = fl_arena_calloc(a, 1, sizeof *x);
    if (!x)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    x->table = fl_arena_strdup(a, name);
    char *proc = fl_arena_strndup(a, s + tk->v[i].start, tk->v[i].len);
    for (char *p = proc; p && *p; p++)
        *p = (char)tolower((unsigned char)*p);
    x->procedure = proc;
    x->location = loc;
    i++;
    const char **names = fl_arena_calloc(a, tk->n, sizeof(char *));
    const char **vals = fl_arena_calloc(a, tk->n, sizeof(char *));
    if (!names || !vals || !x->table || !proc)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    if (fl_tok_punct(s, &tk->v[i], '(')) {
        i++;
        while (!fl_tok_punct(s, &tk->v[i], ')')) {
            if (x->nargs > 0) {
                if (!fl_tok_punct(s, &tk->v[i], ','))
                    return syntax_at(s, (int32_t)tk->v[i].start, epos, err,
                                     "expected ',' or ')' in EXECUTE arguments");
                i++;
            }
            const fl_tok *t = &tk->v[i];
            if (is_name_tok(t) && tk->v[i + 1].kind == FL_TOK_PUNCT && tk->v[i + 1].len == 2 &&
                memcmp(s + tk->v[i + 1].start, "=>", 2) == 0) {
                names[x->nargs] = fl_front_tok_text(a, s, t);
                i += 2;
                t = &tk->v[i];
            }
            bool neg = false;
            if (fl_tok_punct(s, t, '-')) {
                neg = true;
                i++;
                t = &tk->v[i];
            }
            /* a typed literal: TIMESTAMP '...' */
            if (t->kind == FL_TOK_IDENT && tk->v[i + 1].kind == FL_TOK_STRING) {
                i++;
                t = &tk->v[i];
            }
            if (t->kind != FL_TOK_STRING && t->kind != FL_TOK_NUMBER && t->kind != FL_TOK_IDENT)
                return syntax_at(s, (int32_t)t->start, epos, err,
                                 "expected a literal in EXECUTE arguments");
            char *v = fl_front_tok_text(a, s, t);
            if (v && neg)
                v = fl_arena_sprintf(a, "-%s", v);
            vals[x->nargs++] = v;
            i++;
            if (tk->v[i].kind == FL_TOK_EOF)
                return syntax_at(s, (int32_t)tk->v[i].start, epos, err,
                                 "unterminated EXECUTE argument list");
        }
        i++;
    }
    if (fl_tok_is(s, &tk->v[i], "where")) {
        uint32_t from = tk->v[i + 1].start, end = from;
        uint32_t j = i + 1;
        while (tk->v[j].kind != FL_TOK_EOF && !fl_tok_punct(s, &tk->v[j], ';')) {
            end = tk->v[j].start + tk->v[j].len;
            j++;
        }
        if (end == from)
            return syntax_at(s, (int32_t)tk->v[i].start, epos, err, "WHERE without a condition");
        x->where_text = fl_arena_strndup(a, s + from, end - from);
        i = j;
    }
    if (fl_tok_punct(s, &tk->v[i], ';'))
        i++;
    if (tk->v[i].kind != FL_TOK_EOF) {
        char what[128];
        snprintf(what, sizeof what, "syntax error at or near \"%.*s\"",
                 (int)(tk->v[i].len > 40 ? 40 : tk->v[i].len), s + tk->v[i].start);
        return syntax_at(s, (int32_t)tk->v[i].start, epos, err, what);
    }
    x->arg_names = names;
    x->arg_values = vals;
    *out = x;
    return FL_OK;
}

/* ---- FOR VERSION/TIMESTAMP AS OF ---- */

static fl_status find_travel(const char *orig, char *text, const toks *tk, fl_arena *a,
                             fl_time_travel *tv, uint32_t *ntv, int32_t *epos, fl_error *err)
{
    for (uint32_t i = 1; i + 3 < tk->n; i++) {
        if (!fl_tok_is(orig, &tk->v[i], "for"))
            continue;
        const fl_tok *k = &tk->v[i + 1];
        bool ts;
        if (fl_tok_is(orig, k, "version") || fl_tok_is(orig, k, "system_version"))
            ts = false;
        else if (fl_tok_is(orig, k, "timestamp") || fl_tok_is(orig, k, "system_time"))
            ts = true;
        else
            continue;
        if (!fl_tok_is(orig, &tk->v[i + 2], "as") || !fl_tok_is(orig, &tk->v[i + 3], "of"))
            continue;
        uint32_t j = i + 4;
        const fl_tok *v = &tk->v[j];
        uint32_t vstart = v->start;
        if (fl_tok_punct(orig, v, '-') && tk->v[j + 1].kind == FL_TOK_NUMBER)
            j++;
        else if (v->kind == FL_TOK_IDENT && tk->v[j + 1].kind == FL_TOK_STRING)
            j++;
        v = &tk->v[j];
        if (v->kind != FL_TOK_NUMBER && v->kind != FL_TOK_STRING && v->kind != FL_TOK_PARAM)
            return syntax_at(orig, (int32_t)v->start, epos, err,
                             ts ? "FOR TIMESTAMP AS OF expects a timestamp literal"
                                : "FOR VERSION AS OF expects a snapshot id or a quoted ref name");
        if (*ntv == MAX_TRAVEL)
            return syntax_at(orig, (int32_t)tk->v[i].start, epos, err,
                             "too many FOR ... AS OF clauses");
        uint32_t vend = v->start + v->len;
        fl_time_travel *t = &tv[(*ntv)++];
        t->relation_location = -1;
        t->by_timestamp = ts;
        t->expr_text = fl_arena_strndup(a, orig + vstart, vend - vstart);
        t->expr_location = (int32_t)vstart;
        if (!t->expr_text)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        /* remember where FOR was: the RangeVar before it is the target */
        t->relation_location = -(int32_t)tk->v[i].start - 1; /* fixed up after parsing */
        blank(text, tk->v[i].start, vend);
        i = j;
    }
    return FL_OK;
}

/* ---- CREATE TABLE ... WITH / ALTER TABLE ... SET (x = ARRAY[...]) ---- */

static fl_status find_arrays(const char *orig, char *text, const toks *tk, fl_arena *a,
                             fl_sql_parsed *p, int32_t *epos, fl_error *err)
{
    uint32_t i0 = 1;
    if (tk->n < 3 || !(fl_tok_is(orig, &tk->v[0], "create") || fl_tok_is(orig, &tk->v[0], "alter")))
        return FL_OK;
    while (i0 < tk->n && !fl_tok_is(orig, &tk->v[i0], "table") && tk->v[i0].kind == FL_TOK_IDENT &&
           i0 < 4)
        i0++;
    if (!fl_tok_is(orig, &tk->v[i0], "table"))
        return FL_OK;
    const char **names = fl_arena_calloc(a, MAX_ARRAY_OPTS, sizeof(char *));
    const char *const **vals = fl_arena_calloc(a, MAX_ARRAY_OPTS, sizeof(char **));
    uint32_t *counts = fl_arena_calloc(a, MAX_ARRAY_OPTS, sizeof(uint32_t));
    if (!names || !vals || !counts)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    uint32_t nopt = 0;
    for (uint32_t i = i0; i + 3 < tk->n; i++) {
        if (!fl_tok_is(orig, &tk->v[i + 2], "array") || !fl_tok_punct(orig, &tk->v[i + 1], '=') ||
            !fl_tok_punct(orig, &tk->v[i + 3], '['))
            continue;
        if (!is_name_tok(&tk->v[i]))
            continue;
        if (nopt == MAX_ARRAY_OPTS)
            return syntax_at(orig, (int32_t)tk->v[i].start, epos, err, "too many ARRAY options");
        const char **items = fl_arena_calloc(a, tk->n, sizeof(char *));
        if (!items)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        uint32_t cnt = 0, j = i + 4;
        while (!fl_tok_punct(orig, &tk->v[j], ']')) {
            if (cnt > 0) {
                if (!fl_tok_punct(orig, &tk->v[j], ','))
                    return syntax_at(orig, (int32_t)tk->v[j].start, epos, err,
                                     "expected ',' or ']' in ARRAY[...]");
                j++;
            }
            const fl_tok *t = &tk->v[j];
            if (t->kind != FL_TOK_STRING && t->kind != FL_TOK_NUMBER)
                return syntax_at(orig, (int32_t)t->start, epos, err,
                                 "ARRAY[...] option values must be literals");
            items[cnt++] = fl_front_tok_text(a, orig, t);
            j++;
        }
        char *nm = fl_front_tok_text(a, orig, &tk->v[i]);
        if (!nm)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (char *c = nm; *c; c++)
            *c = (char)tolower((unsigned char)*c);
        names[nopt] = nm;
        vals[nopt] = items;
        counts[nopt] = cnt;
        nopt++;
        /* ARRAY[...] -> '   ...   ' of the same length */
        uint32_t from = tk->v[i + 2].start, to = tk->v[j].start + 1;
        blank(text, from, to);
        text[from] = '\'';
        text[to - 1] = '\'';
        i = j;
    }
    p->array_option_names = names;
    p->array_option_values = vals;
    p->array_option_counts = counts;
    p->narray_options = nopt;
    return FL_OK;
}

/* ---- ALTER TABLE t SET PROPERTIES k = v, ... -> SET (k = v, ...) ---- */

static fl_status set_properties(const char *orig, char **text, const toks *tk, fl_arena *a,
                                fl_error *err)
{
    if (tk->n < 6 || !fl_tok_is(orig, &tk->v[0], "alter") || !fl_tok_is(orig, &tk->v[1], "table"))
        return FL_OK;
    uint32_t i = 2;
    while (i + 1 < tk->n &&
           !(fl_tok_is(orig, &tk->v[i], "set") && fl_tok_is(orig, &tk->v[i + 1], "properties")))
        i++;
    if (i + 1 >= tk->n)
        return FL_OK;
    uint32_t last = tk->n - 1; /* the EOF token */
    while (last > i + 1 &&
           (tk->v[last].kind == FL_TOK_EOF || fl_tok_punct(orig, &tk->v[last], ';')))
        last--;
    size_t n = strlen(*text), end = tk->v[last].start + tk->v[last].len;
    char *t = fl_arena_alloc(a, n + 2);
    if (!t)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    memcpy(t, *text, end);
    t[end] = ')';
    memcpy(t + end + 1, *text + end, n - end + 1);
    const fl_tok *kw = &tk->v[i + 1];
    blank(t, kw->start, kw->start + kw->len);
    t[kw->start] = '(';
    *text = t;
    return FL_OK;
}

/* ---- tying time travel to RangeVars ---- */

typedef struct rv_walk {
    fl_time_travel *tv;
    const int32_t *for_pos; /* byte offset of each clause's FOR */
    uint32_t ntv;
} rv_walk;

static void on_rangevar(const ProtobufCMessage *m, void *ud)
{
    if (m->descriptor != &pg_query__range_var__descriptor)
        return;
    const PgQuery__RangeVar *rv = (const PgQuery__RangeVar *)m;
    rv_walk *w = ud;
    for (uint32_t i = 0; i < w->ntv; i++) {
        fl_time_travel *t = &w->tv[i];
        /* the target is the RangeVar with the greatest location before FOR */
        if (rv->location < w->for_pos[i] &&
            (t->relation_location < 0 || rv->location > t->relation_location))
            t->relation_location = rv->location;
    }
}

/* ---- FROM 'file.parquet' (fromfile.c) ---- */

/* libpg_query; when it refuses the text, once more with FROM 'file'
 * literals as placeholders (fromfile.c). The first error stands unless the
 * second parse succeeds. */
static fl_status parse_with_files(const char *sql, char *text, const toks *tk, fl_arena *a,
                                  PgQuery__ParseResult **tree, int32_t *epos, fl_error *err)
{
    fl_status rc = fl_sql_pgq_parse(sql, text, tk->n, tree, epos, err);
    if (rc != FL_ESYNTAX)
        return rc;
    fl_error first;
    fl_error_clear(&first);
    if (err)
        first = *err;
    int32_t first_pos = epos ? *epos : 0;
    fl_from_file *f = NULL;
    uint32_t nf = 0;
    char *t2 = fl_arena_strdup(a, text);
    fl_error e2;
    fl_error_clear(&e2);
    if (!t2 || fl_sql_from_files_find(sql, t2, tk->v, tk->n, a, &f, &nf, &e2) != FL_OK || !nf)
        return rc;
    int32_t p2 = 0;
    fl_status r2 = fl_sql_pgq_parse(sql, t2, tk->n, tree, &p2, &e2);
    if (r2 != FL_OK) {
        /* the first error was at a file literal: the one after it is the user's */
        bool at_literal = false;
        for (uint32_t i = 0; epos && i < nf; i++)
            at_literal |= *epos == fl_front_byte_to_char(sql, f[i].location);
        if (at_literal && r2 == FL_ESYNTAX) {
            *epos = p2;
            if (err)
                *err = e2;
        }
        return rc;
    }
    int32_t bad = -1;
    fl_status rc2 = FL_ENOMEM;
    if ((*tree)->n_stmts == 1)
        rc2 = fl_sql_from_files_apply((*tree)->stmts[0]->stmt, f, nf, &bad, err);
    else
        return FL_OK; /* fl_sql_parse reports the statement count */
    if (rc2 == FL_OK)
        return FL_OK;
    pg_query__parse_result__free_unpacked(*tree, NULL);
    *tree = NULL;
    if (rc2 == FL_ESYNTAX) { /* a literal that is no FROM item: the first error stands */
        if (err)
            *err = first;
        if (epos)
            *epos = first_pos;
        return rc;
    }
    if (bad >= 0) {
        char pos[64];
        fl_sql_position(sql, bad, pos, sizeof pos);
        if (epos)
            *epos = fl_front_byte_to_char(sql, bad);
        fl_error_prefix(err, "%s", pos);
    }
    return rc2;
}

/* ---- entry point ---- */

fl_status fl_sql_parse(const char *sql, fl_arena *a, fl_sql_parsed **out, int32_t *error_position,
                       fl_error *err)
{
    *out = NULL;
    if (error_position)
        *error_position = 0;
    if (!sql)
        return fl_errorf(err, FL_EINVAL, "no SQL text");
    fl_sql_parsed *p = fl_arena_calloc(a, 1, sizeof *p);
    char *text = fl_arena_strdup(a, sql);
    if (!p || !text)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    p->text = fl_arena_strdup(a, sql);
    toks tk;
    FL_TRY(tokenize(sql, a, &tk, error_position, err));
    if (tk.v[0].kind == FL_TOK_EOF)
        return syntax_at(sql, 0, error_position, err, "empty statement");
    fl_habit_stmt *h = NULL;
    FL_TRY(fl_sql_parse_habit(sql, tk.v, tk.n, a, &h, error_position, err));
    if (h) {
        p->habit = h;
        *out = p;
        return FL_OK;
    }
    fl_execute_stmt *x = NULL;
    FL_TRY(parse_execute(sql, &tk, a, &x, error_position, err));
    if (x) {
        p->execute = x;
        *out = p;
        return FL_OK;
    }
    fl_time_travel *tv = fl_arena_calloc(a, MAX_TRAVEL, sizeof *tv);
    if (!tv)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    uint32_t ntv = 0;
    FL_TRY(find_travel(sql, text, &tk, a, tv, &ntv, error_position, err));
    FL_TRY(find_arrays(sql, text, &tk, a, p, error_position, err));
    FL_TRY(fl_sql_nested_types(sql, text, tk.v, tk.n, a, p, error_position, err));
    FL_TRY(set_properties(sql, &text, &tk, a, err));

    /* nesting bounded, libpg_query and unpack on a big enough stack (depth.h) */
    PgQuery__ParseResult *tree = NULL;
    FL_TRY(parse_with_files(sql, text, &tk, a, &tree, error_position, err));
    if (tree->n_stmts != 1) {
        size_t n = tree->n_stmts;
        int32_t loc = n > 1 ? tree->stmts[1]->stmt_location : 0;
        pg_query__parse_result__free_unpacked(tree, NULL);
        if (n == 0)
            return syntax_at(sql, 0, error_position, err, "empty statement");
        return syntax_at(sql, loc, error_position, err,
                         "expected exactly one statement (use fl_sql_split for scripts)");
    }
    p->tree = tree;
    p->stmt = tree->stmts[0]->stmt;
    /* relation_location holds -(FOR offset)-1 until resolved */
    int32_t for_pos[MAX_TRAVEL];
    for (uint32_t i = 0; i < ntv; i++) {
        for_pos[i] = -tv[i].relation_location - 1;
        tv[i].relation_location = -1;
    }
    rv_walk w = {tv, for_pos, ntv};
    fl_front_walk((const ProtobufCMessage *)p->stmt, on_rangevar, &w);
    for (uint32_t i = 0; i < ntv; i++) {
        if (tv[i].relation_location < 0) {
            fl_status rc = syntax_at(sql, for_pos[i], error_position, err,
                                     "FOR ... AS OF must follow a table name");
            pg_query__parse_result__free_unpacked(tree, NULL);
            p->tree = NULL;
            return rc;
        }
    }
    p->travel = tv;
    p->ntravel = ntv;
    *out = p;
    return FL_OK;
}

void fl_sql_parsed_free(fl_sql_parsed *p)
{
    if (p && p->tree) {
        pg_query__parse_result__free_unpacked(p->tree, NULL);
        p->tree = NULL;
        p->stmt = NULL;
    }
}

/* ---- generic protobuf-c walk ---- */

void fl_front_walk(const ProtobufCMessage *m, void (*fn)(const ProtobufCMessage *, void *),
                   void *ud)
{
    if (!m)
        return;
    fn(m, ud);
    const ProtobufCMessageDescriptor *d = m->descriptor;
    for (unsigned i = 0; i < d->n_fields; i++) {
        const ProtobufCFieldDescriptor *f = &d->fields[i];
        if (f->type != PROTOBUF_C_TYPE_MESSAGE)
            continue;
        const char *base = (const char *)m;
        if (f->label == PROTOBUF_C_LABEL_REPEATED) {
            size_t n = *(const size_t *)(base + f->quantifier_offset);
            ProtobufCMessage *const *arr = *(ProtobufCMessage *const *const *)(base + f->offset);
            for (size_t k = 0; k < n; k++)
                fl_front_walk(arr[k], fn, ud);
        } else {
            if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
                uint32_t which = *(const uint32_t *)(base + f->quantifier_offset);
                if (which != f->id)
                    continue;
            }
            fl_front_walk(*(ProtobufCMessage *const *)(base + f->offset), fn, ud);
        }
    }
}
