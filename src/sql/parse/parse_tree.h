/*
 * parse_tree.h - helpers over SQL text and libpg_query trees, shared by the
 * stages that read statements (parse/, bind/, session/, stmt/).
 *
 * DESIGN
 *   libpg_query reports positions as byte offsets into the text the
 *   pre-lexer blanked (lengths unchanged), so offsets index the caller's
 *   text; PostgreSQL's "character" positions are converted here. Node
 *   helpers read the protobuf tree and allocate nothing but names in the
 *   arena. Defined in parse/parse.c, except fl_front_str and
 *   fl_front_node_name (bind/bind_expr.c).
 */
#ifndef FLOE_SQL_PARSE_PARSE_TREE_H
#define FLOE_SQL_PARSE_PARSE_TREE_H

#include <pg_query/pg_query.pb-c.h>
#include <stdint.h>

#include "floe/arena.h"
#include "floe/sql_lex.h"

/* parse.c */
int32_t fl_front_char_to_byte(const char *text, int32_t char_pos1);
int32_t fl_front_byte_to_char(const char *text, int32_t byte_off);
char *fl_front_tok_text(fl_arena *a, const char *s, const fl_tok *t);
void fl_front_walk(const ProtobufCMessage *m, void (*fn)(const ProtobufCMessage *, void *),
                   void *ud);

/* bind_expr.c */
const char *fl_front_node_name(const PgQuery__Node *n); /* default output column name */
const char *fl_front_str(const PgQuery__Node *n);       /* String node value or NULL */

#endif
