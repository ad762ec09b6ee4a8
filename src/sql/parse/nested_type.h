/*
 * nested_type.h - nested column types in CREATE TABLE and ALTER TABLE ...
 * ADD COLUMN, which PostgreSQL's grammar cannot spell (nested_type.c).
 */
#ifndef FLOE_SQL_PARSE_NESTED_TYPE_H
#define FLOE_SQL_PARSE_NESTED_TYPE_H

#include <stddef.h>
#include <stdint.h>

#include "floe/arena.h"
#include "floe/error.h"
#include "floe/sql_lex.h"
#include "sql/planner.h"

/* Finds the nested column types of a CREATE TABLE / ALTER TABLE statement
 * (orig, tokens tk[0..ntk)), records them in p (nested_types, by the byte
 * offset where each starts) and overwrites each in text with "text" and
 * spaces, so libpg_query sees a plain type at the same offset. Syntax
 * errors inside a type name its position (*epos, 1-based characters). */
fl_status fl_sql_nested_types(const char *orig, char *text, const fl_tok *tk, uint32_t ntk,
                              fl_arena *a, fl_sql_parsed *p, int32_t *epos, fl_error *err);

/* Parses one type at orig[*pos] (ROW(...), STRUCT<...>, MAP(...), ARRAY<...>,
 * LIST<...> or a scalar SQL type, with [] suffixes) into *out; *pos moves
 * past it. Exposed for tests. */
fl_status fl_sql_nested_type_parse(const char *orig, size_t n, size_t *pos, fl_arena *a,
                                   fl_type *out, fl_error *err);

#endif
