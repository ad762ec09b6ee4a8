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
#include "floe/error.h"
#include "floe/sql_lex.h"

/* parse.c */
int32_t fl_front_char_to_byte(const char *text, int32_t char_pos1);
int32_t fl_front_byte_to_char(const char *text, int32_t byte_off);
char *fl_front_tok_text(fl_arena *a, const char *s, const fl_tok *t);
/* FL_ESYNTAX "line L, column C: what" at byte_off; *error_position (may be
 * NULL) gets the 1-based character position. */
fl_status fl_front_syntax_at(const char *text, int32_t byte_off, int32_t *error_position,
                             fl_error *err, const char *what);
void fl_front_walk(const ProtobufCMessage *m, void (*fn)(const ProtobufCMessage *, void *),
                   void *ud);

/* habit.c: SHOW TABLES, DESCRIBE, USE, ... (planner.h's fl_habit_stmt);
 * *out stays NULL when the statement is none of them. tk ends with EOF. */
struct fl_habit_stmt;
fl_status fl_sql_parse_habit(const char *s, const fl_tok *tk, uint32_t ntok, fl_arena *a,
                             struct fl_habit_stmt **out, int32_t *epos, fl_error *err);
/* fromfile.c: FROM 'file.parquet' (DuckDB's form). After libpg_query
 * refused text, blanks string literals that follow FROM or JOIN into
 * same-length placeholder identifiers in text (a copy of orig); *nfound = 0
 * when there are none. fl_sql_from_files_apply then turns the placeholder
 * RangeVars of the tree into read_parquet/read_csv/read_json calls. */
typedef struct fl_from_file {
    int32_t location; /* byte offset of the literal */
    const char *path;
} fl_from_file;
fl_status fl_sql_from_files_find(const char *orig, char *text, const fl_tok *tk, uint32_t ntok,
                                 fl_arena *a, fl_from_file **out, uint32_t *nfound,
                                 fl_error *err);
/* *bad_location: the literal whose extension names no reader (-1: none).
 * FL_ESYNTAX (message not for users) when a literal is not a FROM item:
 * the caller reports its first parse's error. */
fl_status fl_sql_from_files_apply(PgQuery__Node *stmt, const fl_from_file *f, uint32_t n,
                                  int32_t *bad_location, fl_error *err);

/* bind_expr.c */
const char *fl_front_node_name(const PgQuery__Node *n); /* default output column name */
const char *fl_front_str(const PgQuery__Node *n);       /* String node value or NULL */

#endif
