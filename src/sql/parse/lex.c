/*
 * lex.c - the front end's tokenizer (see lex.h). Used for fl_sql_split and
 * the lakehouse pre-lexer; the real grammar is libpg_query's.
 */
#include "floe/sql_lex.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

static bool is_ident_start(unsigned char c)
{
    return isalpha(c) || c == '_' || c >= 0x80;
}

static bool is_ident_char(unsigned char c)
{
    return isalnum(c) || c == '_' || c == '$' || c >= 0x80;
}

/* Skips whitespace and comments; false on an unterminated block comment. */
static bool skip_space(const char *s, size_t n, size_t *pos)
{
    size_t i = *pos;
    for (;;) {
        while (i < n && isspace((unsigned char)s[i]))
            i++;
        if (i + 1 < n && s[i] == '-' && s[i + 1] == '-') {
            while (i < n && s[i] != '\n')
                i++;
            continue;
        }
        if (i + 1 < n && s[i] == '/' && s[i + 1] == '*') {
            int depth = 0;
            while (i < n) {
                if (i + 1 < n && s[i] == '/' && s[i + 1] == '*') {
                    depth++;
                    i += 2;
                } else if (i + 1 < n && s[i] == '*' && s[i + 1] == '/') {
                    depth--;
                    i += 2;
                    if (depth == 0)
                        break;
                } else {
                    i++;
                }
            }
            if (depth != 0) {
                *pos = i;
                return false;
            }
            continue;
        }
        break;
    }
    *pos = i;
    return true;
}

/* Ends a quoted run starting after the opening quote q; backslash escapes
 * when esc. Returns the index after the closing quote, or n+1 if none. */
static size_t end_quote(const char *s, size_t n, size_t i, char q, bool esc)
{
    while (i < n) {
        if (esc && s[i] == '\\' && i + 1 < n) {
            i += 2;
            continue;
        }
        if (s[i] == q) {
            if (i + 1 < n && s[i + 1] == q) {
                i += 2;
                continue;
            }
            return i + 1;
        }
        i++;
    }
    return n + 1;
}

/* $tag$ ... $tag$ starting at i (s[i] == '$'); 0 when not a dollar quote. */
static size_t dollar_quote(const char *s, size_t n, size_t i)
{
    size_t j = i + 1;
    while (j < n && (isalnum((unsigned char)s[j]) || s[j] == '_'))
        j++;
    if (j >= n || s[j] != '$' || (j > i + 1 && isdigit((unsigned char)s[i + 1])))
        return 0;
    size_t taglen = j + 1 - i;
    for (size_t k = j + 1; k + taglen <= n; k++)
        if (s[k] == '$' && memcmp(s + k, s + i, taglen) == 0)
            return k + taglen;
    return n + 1;
}

fl_tok fl_lex_next(const char *s, size_t n, size_t *pos)
{
    fl_tok t = {FL_TOK_EOF, (uint32_t)n, 0};
    size_t i = *pos;
    if (!skip_space(s, n, &i)) {
        t.kind = FL_TOK_ERROR;
        t.start = (uint32_t)*pos;
        t.len = (uint32_t)(n - *pos);
        *pos = n;
        return t;
    }
    if (i >= n) {
        *pos = n;
        return t;
    }
    t.start = (uint32_t)i;
    unsigned char c = (unsigned char)s[i];
    size_t e;
    if ((c == 'E' || c == 'e' || c == 'B' || c == 'b' || c == 'X' || c == 'x' || c == 'N' ||
         c == 'n') &&
        i + 1 < n && s[i + 1] == '\'') {
        e = end_quote(s, n, i + 2, '\'', c == 'E' || c == 'e');
        t.kind = FL_TOK_STRING;
    } else if (c == '\'') {
        e = end_quote(s, n, i + 1, '\'', false);
        t.kind = FL_TOK_STRING;
    } else if (c == '"') {
        e = end_quote(s, n, i + 1, '"', false);
        t.kind = FL_TOK_QIDENT;
    } else if (c == '$' && i + 1 < n && isdigit((unsigned char)s[i + 1])) {
        e = i + 1;
        while (e < n && isdigit((unsigned char)s[e]))
            e++;
        t.kind = FL_TOK_PARAM;
    } else if (c == '$' && (e = dollar_quote(s, n, i)) != 0) {
        t.kind = FL_TOK_STRING;
    } else if (is_ident_start(c)) {
        e = i + 1;
        while (e < n && is_ident_char((unsigned char)s[e]))
            e++;
        t.kind = FL_TOK_IDENT;
    } else if (isdigit(c) || (c == '.' && i + 1 < n && isdigit((unsigned char)s[i + 1]))) {
        e = i;
        while (e < n && (isdigit((unsigned char)s[e]) || s[e] == '.'))
            e++;
        if (e < n && (s[e] == 'e' || s[e] == 'E')) {
            size_t k = e + 1;
            if (k < n && (s[k] == '+' || s[k] == '-'))
                k++;
            if (k < n && isdigit((unsigned char)s[k])) {
                e = k;
                while (e < n && isdigit((unsigned char)s[e]))
                    e++;
            }
        }
        t.kind = FL_TOK_NUMBER;
    } else {
        e = i + 1;
        /* multi-char operators: => :: <> <= >= != || */
        if (e < n && strchr("=:<>!|", c) && strchr("=>:|", s[e]))
            e++;
        t.kind = FL_TOK_PUNCT;
    }
    if (e > n) {
        t.kind = FL_TOK_ERROR;
        e = n;
    }
    t.len = (uint32_t)(e - i);
    *pos = e;
    return t;
}

bool fl_tok_is(const char *s, const fl_tok *t, const char *kw)
{
    size_t k = strlen(kw);
    return t->kind == FL_TOK_IDENT && t->len == k && strncasecmp(s + t->start, kw, k) == 0;
}

bool fl_tok_punct(const char *s, const fl_tok *t, char c)
{
    return t->kind == FL_TOK_PUNCT && t->len == 1 && s[t->start] == c;
}
