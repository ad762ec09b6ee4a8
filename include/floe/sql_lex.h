/*
 * sql_lex.h - a small SQL tokenizer shared by the statement splitter and the
 * lakehouse pre-lexer (src/sql/parse/), public so that front ends tokenize
 * as the engine does (pgwire finds $n parameters with it).
 *
 * It knows just enough of PostgreSQL's lexical rules to never mistake the
 * inside of a literal or comment for syntax: '...' strings (with '' escapes,
 * E'...' with backslash escapes), "..." identifiers, $tag$...$tag$ dollar
 * quotes, -- line comments and nested slash-star comments. Tokens are byte
 * ranges of the text; nothing is copied.
 */
#ifndef FLOE_SQL_LEX_H
#define FLOE_SQL_LEX_H

#include "floe/export.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum fl_tok_kind {
    FL_TOK_EOF = 0,
    FL_TOK_IDENT,  /* unquoted word (keywords too) */
    FL_TOK_QIDENT, /* "quoted" identifier */
    FL_TOK_STRING, /* '...', E'...', $$...$$ */
    FL_TOK_NUMBER, /* 12, 1.5, 1e3 */
    FL_TOK_PARAM,  /* $1 */
    FL_TOK_PUNCT,  /* one char: ( ) [ ] , ; . etc; or a multi-char operator */
    FL_TOK_ERROR,  /* unterminated quote/comment */
} fl_tok_kind;

typedef struct fl_tok {
    fl_tok_kind kind;
    uint32_t start, len; /* bytes */
} fl_tok;

/* Next token at or after *pos (skipping whitespace and comments); advances
 * *pos past it. */
FL_API fl_tok fl_lex_next(const char *s, size_t n, size_t *pos);

/* Case-insensitive compare of an IDENT token with a keyword. */
FL_API bool fl_tok_is(const char *s, const fl_tok *t, const char *kw);
/* PUNCT token equal to c. */
FL_API bool fl_tok_punct(const char *s, const fl_tok *t, char c);

#endif
