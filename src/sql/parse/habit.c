/*
 * habit.c - the statements people type from Trino, DuckDB and MySQL that
 * PostgreSQL's grammar lacks, recognized on the token list before
 * libpg_query sees the text (fl_habit_stmt, planner.h):
 *
 *   SHOW TABLES [FROM | IN ns] [LIKE 'pattern']
 *   SHOW SCHEMAS | NAMESPACES [FROM | IN ns] [LIKE 'pattern']
 *   SHOW CATALOGS [LIKE 'pattern']
 *   SHOW PIPELINES [FROM | IN ns]
 *   SHOW COLUMNS | FIELDS FROM | IN t [FROM | IN ns]    DESCRIBE t    DESC t
 *   SHOW CREATE TABLE t
 *   USE ns
 *
 * Well-defined, not a guess: a statement is taken here only when its first
 * words are one of these forms (SHOW followed by TABLES, SCHEMAS,
 * NAMESPACES, CATALOGS, PIPELINES, COLUMNS, FIELDS or CREATE; DESCRIBE, DESC, USE),
 * none of which PostgreSQL parses (SHOW tables would be a setting named
 * "tables", which does not exist); anything after the form is a syntax error
 * at that token, with the position in the caller's text. Every other
 * statement goes to libpg_query unchanged.
 *
 * Names fold as PostgreSQL's: unquoted words to lower case, "quoted" ones
 * kept as written; a.b.t is parts [a, b, t].
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "sql/parse/parse_tree.h"
#include "sql/planner.h"

static bool is_name(const fl_tok *t)
{
    return t->kind == FL_TOK_IDENT || t->kind == FL_TOK_QIDENT;
}

static fl_status unexpected(const char *s, const fl_tok *t, int32_t *epos, fl_error *err)
{
    char what[128];
    if (t->kind == FL_TOK_EOF)
        snprintf(what, sizeof what, "syntax error at end of input");
    else
        snprintf(what, sizeof what, "syntax error at or near \"%.*s\"",
                 (int)(t->len > 40 ? 40 : t->len), s + t->start);
    return fl_front_syntax_at(s, (int32_t)t->start, epos, err, what);
}

/* A qualified name a.b.c at *i; advances *i past it. */
static fl_status qname(const char *s, const fl_tok *tk, uint32_t *i, fl_arena *a, fl_habit_stmt *h,
                       int32_t *epos, fl_error *err)
{
    if (!is_name(&tk[*i]))
        return unexpected(s, &tk[*i], epos, err);
    uint32_t n = 1;
    for (uint32_t j = *i; fl_tok_punct(s, &tk[j + 1], '.') && is_name(&tk[j + 2]); j += 2)
        n++;
    const char **parts = fl_arena_calloc(a, n + h->nname + 1, sizeof *parts);
    if (!parts)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    h->name_location = (int32_t)tk[*i].start;
    for (uint32_t k = 0; k < n; k++, *i += 2) {
        char *p = fl_front_tok_text(a, s, &tk[*i]);
        if (!p)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        if (tk[*i].kind == FL_TOK_IDENT)
            for (char *c = p; *c; c++)
                *c = (char)tolower((unsigned char)*c);
        parts[k] = p;
    }
    *i -= 1; /* past the last name, not past a '.' that is not there */
    /* a second name (SHOW COLUMNS FROM t FROM ns) qualifies the first */
    for (uint32_t k = 0; k < h->nname; k++)
        parts[n + k] = h->name[k];
    h->name = parts;
    h->nname += n;
    return FL_OK;
}

static bool from_or_in(const char *s, const fl_tok *t)
{
    return fl_tok_is(s, t, "from") || fl_tok_is(s, t, "in");
}

static fl_status like_and_end(const char *s, const fl_tok *tk, uint32_t i, fl_arena *a,
                              fl_habit_stmt *h, bool like_ok, int32_t *epos, fl_error *err)
{
    if (like_ok && fl_tok_is(s, &tk[i], "like")) {
        i++;
        if (tk[i].kind != FL_TOK_STRING)
            return unexpected(s, &tk[i], epos, err);
        h->like = fl_front_tok_text(a, s, &tk[i]);
        if (!h->like)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        i++;
    }
    if (fl_tok_punct(s, &tk[i], ';'))
        i++;
    if (tk[i].kind != FL_TOK_EOF)
        return unexpected(s, &tk[i], epos, err);
    return FL_OK;
}

/* tk ends with an EOF token. *out stays NULL when the statement is not a habit. */
fl_status fl_sql_parse_habit(const char *s, const fl_tok *tk, uint32_t ntok, fl_arena *a,
                             fl_habit_stmt **out, int32_t *epos, fl_error *err)
{
    *out = NULL;
    if (ntok < 2)
        return FL_OK;
    fl_habit_stmt h = {
        .kind = FL_HABIT_NONE, .name_location = -1, .location = (int32_t)tk[0].start};
    uint32_t i;
    bool like_ok = false;
    if (fl_tok_is(s, &tk[0], "show")) {
        const fl_tok *w = &tk[1];
        i = 2;
        if (fl_tok_is(s, w, "tables") || fl_tok_is(s, w, "schemas") ||
            fl_tok_is(s, w, "namespaces")) {
            h.kind = fl_tok_is(s, w, "tables") ? FL_HABIT_SHOW_TABLES : FL_HABIT_SHOW_SCHEMAS;
            if (from_or_in(s, &tk[i])) {
                i++;
                FL_TRY(qname(s, tk, &i, a, &h, epos, err));
            }
            like_ok = true;
        } else if (fl_tok_is(s, w, "pipelines")) {
            h.kind = FL_HABIT_SHOW_PIPELINES;
            if (from_or_in(s, &tk[i])) {
                i++;
                FL_TRY(qname(s, tk, &i, a, &h, epos, err));
            }
        } else if (fl_tok_is(s, w, "catalogs")) {
            h.kind = FL_HABIT_SHOW_CATALOGS;
            like_ok = true;
        } else if (fl_tok_is(s, w, "columns") || fl_tok_is(s, w, "fields")) {
            h.kind = FL_HABIT_SHOW_COLUMNS;
            if (!from_or_in(s, &tk[i]))
                return unexpected(s, &tk[i], epos, err);
            i++;
            FL_TRY(qname(s, tk, &i, a, &h, epos, err));
            if (from_or_in(s, &tk[i])) {
                i++;
                int32_t tloc = h.name_location;
                FL_TRY(qname(s, tk, &i, a, &h, epos, err));
                h.name_location = tloc;
            }
        } else if (fl_tok_is(s, w, "create")) {
            if (!fl_tok_is(s, &tk[2], "table"))
                return unexpected(s, &tk[2], epos, err);
            h.kind = FL_HABIT_SHOW_CREATE;
            i = 3;
            FL_TRY(qname(s, tk, &i, a, &h, epos, err));
        } else {
            return FL_OK; /* SHOW setting: PostgreSQL's */
        }
    } else if (fl_tok_is(s, &tk[0], "describe") || fl_tok_is(s, &tk[0], "desc")) {
        h.kind = FL_HABIT_SHOW_COLUMNS;
        i = 1;
        if (fl_tok_is(s, &tk[i], "table") && is_name(&tk[i + 1]))
            i++;
        FL_TRY(qname(s, tk, &i, a, &h, epos, err));
    } else if (fl_tok_is(s, &tk[0], "use")) {
        h.kind = FL_HABIT_USE;
        i = 1;
        FL_TRY(qname(s, tk, &i, a, &h, epos, err));
    } else {
        return FL_OK;
    }
    FL_TRY(like_and_end(s, tk, i, a, &h, like_ok, epos, err));
    fl_habit_stmt *x = fl_arena_alloc(a, sizeof *x);
    if (!x)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    *x = h;
    *out = x;
    return FL_OK;
}
