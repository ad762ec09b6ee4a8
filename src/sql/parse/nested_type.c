/*
 * nested_type.c - nested column types in DDL (nested_type.h).
 *
 * PostgreSQL's grammar has composite types only by name, so floe reads the
 * spellings users bring from Trino, Spark, DuckDB and Hive before
 * libpg_query runs:
 *   ROW(name type, ...)    STRUCT<name: type, ...>    STRUCT(name type, ...)
 *   MAP(key, value)        MAP<key, value>
 *   ARRAY(type)            ARRAY<type>    LIST<type>    type[]
 * with any scalar SQL type inside (bigint, varchar, decimal(10,2),
 * timestamp with time zone, ...). Only a column's type is read: in CREATE
 * TABLE, the word after a column name at the start of an element of the
 * column list; in ALTER TABLE, the word after ADD [COLUMN] [IF NOT EXISTS]
 * name. Nested fields are nullable and get their field ids with the rest of
 * the table. The parser is a recursive descent over the characters (so
 * ">>" closes two levels), bounded to FL_NESTED_MAX_DEPTH levels.
 */
#include "sql/parse/nested_type.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sql/func.h"

#define FL_NESTED_MAX_DEPTH 32
#define FL_NESTED_MAX_TYPES 256

typedef struct tparser {
    const char *s;
    size_t n, pos;
    fl_arena *a;
    fl_error *err;
    size_t err_at; /* byte offset of the failure */
} tparser;

static void skip_ws(tparser *p)
{
    while (p->pos < p->n && isspace((unsigned char)p->s[p->pos]))
        p->pos++;
}

static fl_status fail(tparser *p, const char *what)
{
    p->err_at = p->pos;
    return fl_errorf(p->err, FL_ESYNTAX, "%s", what);
}

static bool peek(tparser *p, char c)
{
    skip_ws(p);
    return p->pos < p->n && p->s[p->pos] == c;
}

static bool eat(tparser *p, char c)
{
    if (!peek(p, c))
        return false;
    p->pos++;
    return true;
}

/* An identifier (unquoted, lower-cased; or "quoted"), NULL when none. */
static const char *word(tparser *p)
{
    skip_ws(p);
    size_t b = p->pos;
    if (b < p->n && p->s[b] == '"') {
        size_t e = b + 1;
        while (e < p->n && p->s[e] != '"')
            e++;
        if (e >= p->n)
            return NULL;
        p->pos = e + 1;
        return fl_arena_strndup(p->a, p->s + b + 1, e - b - 1);
    }
    size_t e = b;
    while (e < p->n && (isalnum((unsigned char)p->s[e]) || p->s[e] == '_'))
        e++;
    if (e == b || isdigit((unsigned char)p->s[b]))
        return NULL;
    char *w = fl_arena_strndup(p->a, p->s + b, e - b);
    for (char *c = w; c && *c; c++)
        *c = (char)tolower((unsigned char)*c);
    p->pos = e;
    return w;
}

static bool is_nested_word(const char *w)
{
    return !strcmp(w, "row") || !strcmp(w, "struct") || !strcmp(w, "map") || !strcmp(w, "array") ||
           !strcmp(w, "list");
}

static fl_status parse_type(tparser *p, int depth, fl_type *out);

static fl_field *new_fields(tparser *p, uint32_t n)
{
    fl_field *f = fl_arena_calloc(p->a, n, sizeof *f);
    if (!f)
        fl_errorf(p->err, FL_ENOMEM, "out of memory");
    return f;
}

/* ROW(a int, ...), STRUCT<a: int, ...>, STRUCT(a int, ...) after the word. */
static fl_status parse_struct(tparser *p, int depth, char close, fl_type *out)
{
    fl_field tmp[256];
    uint32_t n = 0;
    do {
        const char *name = word(p);
        if (!name)
            return fail(p, "expected a field name");
        eat(p, ':');
        if (n == 256)
            return fail(p, "a struct type holds at most 256 fields");
        memset(&tmp[n], 0, sizeof tmp[n]);
        tmp[n].name = name;
        tmp[n].nullable = true;
        FL_TRY(parse_type(p, depth + 1, &tmp[n].type));
        for (uint32_t i = 0; i < n; i++)
            if (!strcmp(tmp[i].name, name))
                return fail(p, "a struct type names a field twice");
        n++;
    } while (eat(p, ','));
    if (!eat(p, close))
        return fail(p, close == '>' ? "expected ',' or '>'" : "expected ',' or ')'");
    fl_field *f = new_fields(p, n);
    if (!f)
        return FL_ENOMEM;
    memcpy(f, tmp, n * sizeof *f);
    memset(out, 0, sizeof *out);
    out->id = FL_TYPE_STRUCT;
    out->nchildren = n;
    out->children = f;
    return FL_OK;
}

static fl_status parse_map(tparser *p, int depth, char close, fl_type *out)
{
    fl_field *f = new_fields(p, 2);
    if (!f)
        return FL_ENOMEM;
    f[0].name = "key";
    f[1].name = "value";
    f[1].nullable = true;
    FL_TRY(parse_type(p, depth + 1, &f[0].type));
    if (!eat(p, ','))
        return fail(p, "expected ',' between a map's key and value types");
    FL_TRY(parse_type(p, depth + 1, &f[1].type));
    if (!eat(p, close))
        return fail(p, close == '>' ? "expected '>'" : "expected ')'");
    memset(out, 0, sizeof *out);
    out->id = FL_TYPE_MAP;
    out->nchildren = 2;
    out->children = f;
    return FL_OK;
}

static fl_status wrap_list(tparser *p, fl_type *t)
{
    fl_field *el = new_fields(p, 1);
    if (!el)
        return FL_ENOMEM;
    el->name = "element";
    el->nullable = true;
    el->type = *t;
    memset(t, 0, sizeof *t);
    t->id = FL_TYPE_LIST;
    t->nchildren = 1;
    t->children = el;
    return FL_OK;
}

/* A scalar type: words up to a delimiter, then (n[, m]) modifiers. */
static fl_status parse_scalar(tparser *p, const char *first, size_t start, fl_type *out)
{
    char name[128];
    snprintf(name, sizeof name, "%s", first);
    for (const char *w; (w = word(p)) != NULL;) {
        if (strlen(name) + strlen(w) + 2 > sizeof name)
            return fail(p, "type name too long");
        strcat(name, " ");
        strcat(name, w);
    }
    int32_t mods[2];
    uint32_t nm = 0;
    if (eat(p, '(')) {
        do {
            skip_ws(p);
            size_t b = p->pos;
            long v = 0;
            while (p->pos < p->n && isdigit((unsigned char)p->s[p->pos]) && v < 100000)
                v = v * 10 + (p->s[p->pos++] - '0');
            if (p->pos == b || nm == 2)
                return fail(p, "type modifiers must be one or two integers");
            mods[nm++] = (int32_t)v;
        } while (eat(p, ','));
        if (!eat(p, ')'))
            return fail(p, "expected ')' after the type modifiers");
    }
    fl_error e;
    if (fl_sql_type_parse(name, mods, nm, out, &e) != FL_OK) {
        p->err_at = start;
        return fl_errorf(p->err, FL_ENOTFOUND, "type \"%s\" does not exist", name);
    }
    if (out->id != FL_TYPE_FIXED && out->id != FL_TYPE_UUID)
        out->fixed_len = 0;
    return FL_OK;
}

static fl_status parse_type(tparser *p, int depth, fl_type *out)
{
    if (depth > FL_NESTED_MAX_DEPTH)
        return fail(p, "nested type too deep");
    skip_ws(p);
    size_t start = p->pos;
    const char *w = word(p);
    if (!w)
        return fail(p, "expected a type");
    char open = 0;
    if (is_nested_word(w) && (peek(p, '(') || peek(p, '<')))
        open = p->s[p->pos++];
    char close = open == '<' ? '>' : ')';
    if (open && (!strcmp(w, "row") || !strcmp(w, "struct"))) {
        if (!strcmp(w, "row") && open == '<')
            return fail(p, "ROW takes (name type, ...)");
        FL_TRY(parse_struct(p, depth, close, out));
    } else if (open && !strcmp(w, "map")) {
        FL_TRY(parse_map(p, depth, close, out));
    } else if (open) { /* array / list */
        FL_TRY(parse_type(p, depth + 1, out));
        if (!eat(p, close))
            return fail(p, close == '>' ? "expected '>'" : "expected ')'");
        FL_TRY(wrap_list(p, out));
    } else {
        FL_TRY(parse_scalar(p, w, start, out));
    }
    while (peek(p, '[')) { /* type[] */
        p->pos++;
        if (!eat(p, ']'))
            return fail(p, "expected ']'");
        FL_TRY(wrap_list(p, out));
    }
    return FL_OK;
}

fl_status fl_sql_nested_type_parse(const char *orig, size_t n, size_t *pos, fl_arena *a,
                                   fl_type *out, fl_error *err)
{
    tparser p = {orig, n, *pos, a, err, 0};
    fl_status rc = parse_type(&p, 0, out);
    *pos = rc == FL_OK ? p.pos : p.err_at;
    return rc;
}

/* 1-based character offset of byte b (as fl_sql_position counts). */
static int32_t char_pos(const char *s, size_t b)
{
    int32_t c = 1;
    for (size_t i = 0; i < b; i++)
        c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

/* Whether token i is where a column's type starts. */
static bool type_position(const char *orig, const fl_tok *tk, uint32_t i, bool create)
{
    if (i < 2 || tk[i].kind != FL_TOK_IDENT)
        return false;
    if (!fl_tok_punct(orig, &tk[i + 1], '(') && !fl_tok_punct(orig, &tk[i + 1], '<'))
        return false;
    const fl_tok *name = &tk[i - 1], *before = &tk[i - 2];
    if (name->kind != FL_TOK_IDENT && name->kind != FL_TOK_QIDENT)
        return false;
    if (create)
        return fl_tok_punct(orig, before, '(') || fl_tok_punct(orig, before, ',');
    return fl_tok_is(orig, before, "column") || fl_tok_is(orig, before, "add") ||
           fl_tok_is(orig, before, "exists");
}

fl_status fl_sql_nested_types(const char *orig, char *text, const fl_tok *tk, uint32_t ntk,
                              fl_arena *a, fl_sql_parsed *p, int32_t *epos, fl_error *err)
{
    if (ntk < 4 || !(fl_tok_is(orig, &tk[0], "create") || fl_tok_is(orig, &tk[0], "alter")))
        return FL_OK;
    uint32_t t = 1;
    while (t < 4 && t < ntk && !fl_tok_is(orig, &tk[t], "table"))
        t++;
    if (t >= ntk || !fl_tok_is(orig, &tk[t], "table"))
        return FL_OK;
    bool create = fl_tok_is(orig, &tk[0], "create");
    uint32_t *offs = NULL;
    const fl_type **types = NULL;
    uint32_t nt = 0;
    size_t n = strlen(orig), resume = 0;
    for (uint32_t i = t + 1; i + 1 < ntk; i++) {
        if (tk[i].start < resume || tk[i].kind == FL_TOK_EOF)
            continue;
        if (create && fl_tok_is(orig, &tk[i], "as") && i > 0 && fl_tok_punct(orig, &tk[i - 1], ')'))
            break; /* CREATE TABLE ... AS SELECT: no more column types */
        char w[8];
        if (tk[i].kind != FL_TOK_IDENT || tk[i].len >= sizeof w)
            continue;
        memcpy(w, orig + tk[i].start, tk[i].len);
        w[tk[i].len] = '\0';
        for (char *c = w; *c; c++)
            *c = (char)tolower((unsigned char)*c);
        if (!is_nested_word(w) || !type_position(orig, tk, i, create))
            continue;
        if (!offs) {
            offs = fl_arena_calloc(a, FL_NESTED_MAX_TYPES, sizeof *offs);
            types = fl_arena_calloc(a, FL_NESTED_MAX_TYPES, sizeof *types);
            if (!offs || !types)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
        }
        if (nt == FL_NESTED_MAX_TYPES)
            return fl_errorf(err, FL_ELIMIT, "more than %d nested column types",
                             FL_NESTED_MAX_TYPES);
        fl_type *ty = fl_arena_calloc(a, 1, sizeof *ty);
        if (!ty)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        size_t pos = tk[i].start;
        fl_status rc = fl_sql_nested_type_parse(orig, n, &pos, a, ty, err);
        if (rc != FL_OK) {
            char where[64];
            fl_sql_position(orig, (int32_t)pos, where, sizeof where);
            if (epos)
                *epos = char_pos(orig, pos);
            fl_error_prefix(err, "%s: column type", where);
            return rc;
        }
        offs[nt] = tk[i].start;
        types[nt++] = ty;
        /* the span becomes "text" + spaces: libpg_query parses a plain type */
        for (size_t k = tk[i].start; k < pos; k++)
            if (text[k] != '\n')
                text[k] = ' ';
        memcpy(text + tk[i].start, "text", 4);
        resume = pos;
    }
    p->nested_type_offsets = offs;
    p->nested_types = types;
    p->nnested_types = nt;
    return FL_OK;
}
