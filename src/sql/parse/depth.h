/*
 * depth.h - bounded recursion in the SQL front end (issue 14, "resource
 * limits that hold"). Internal to the engine; pgwire's classifier uses the
 * JSON entry point.
 *
 * DESIGN
 *   Every pass over a statement recurses: libpg_query's own output code,
 *   protobuf-c's unpack, the binder, constant folding, the planner, the
 *   optimizer, expression evaluation, EXPLAIN and the plan walkers. A
 *   statement of a few kilobytes (1+1+...+1) can nest deeply enough to
 *   overflow any thread's stack, so the front end bounds nesting once, at
 *   the door, and the binder bounds what views and rewrites add:
 *
 *   1. libpg_query's recursion grows with the statement's nesting, which is
 *      at most proportional to its tokens (measured: <= 360 bytes of stack
 *      per token, unary operators being the worst). Small statements are
 *      parsed on the calling thread; larger ones on a helper thread whose
 *      stack is sized from the token count (FL_SQL_STACK_PER_TOKEN), so the
 *      caller's stack size never matters. Past FL_SQL_MAX_TOKENS the
 *      statement is refused before libpg_query sees it. Its protobuf output
 *      takes time quadratic in the nesting (11 s for a 100,000-term sum),
 *      so statements of more than FL_SQL_PRESCREEN_TOKENS are parsed to
 *      JSON first (linear) and refused when that tree is surely too deep.
 *   2. The packed protobuf tree is measured iteratively (an explicit stack
 *      of message descriptors, no recursion); deeper than FL_SQL_MAX_DEPTH
 *      levels is refused with SQLSTATE 54001 naming the position of the
 *      node where the limit was passed. protobuf-c's unpack (recursive, ~1
 *      KiB of stack per level) then runs on a stack sized for the depth.
 *   3. The binder counts its expression and query recursion in
 *      fl_planner_ctx.depth (fl_depth_enter/leave): views and CTEs bind
 *      their own parse trees (and a CTE is bound where it is read), so
 *      chains of views and CTEs are bounded too. Every
 *      later pass recurses over what the binder built, whose depth is at
 *      most a small multiple of the bound depth (implicit casts, rewrites),
 *      so with FL_SQL_MAX_DEPTH chosen below, a statement at the limit
 *      needs well under 8 MiB of stack on every thread that runs it
 *      (pgwire connection threads, /v1/sql statement threads and executor
 *      workers all get an explicit 8 MiB stack). Measured with
 *      tests/sql/test_depth.c (FLOE_DEPTH_MEASURE=1) over 16 shapes at the
 *      limit: at most 1.9 MiB at -O2 (1000 CTEs each reading the one
 *      before; 1000-term sums 0.5 MiB, evaluated per row 1.2 MiB), at most
 *      5.8 MiB under ASan at -O0. The test runs them on 4 MiB (8 under
 *      ASan).
 *
 * ERRORS
 *   54001 statement_too_complex: "line L, column C: statement too complex:
 *   nesting deeper than N levels" (also for libpg_query's own parser stack
 *   overflow, "memory exhausted", which PostgreSQL reports as 42601).
 */
#ifndef FLOE_SQL_DEPTH_H
#define FLOE_SQL_DEPTH_H

#include <pg_query.h>
#include <pg_query/pg_query.pb-c.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/error.h"

struct fl_planner_ctx;

/* Parse-tree levels (protobuf messages: Node wrappers count) a statement may
 * nest; `1+1+...+1` uses two per term, so about 1000 expression levels
 * (DuckDB's max_expression_depth is 1000). */
#define FL_SQL_MAX_DEPTH 2000
/* The binder's budget: an expression level costs 1, a query block (set
 * operation arm, subquery, CTE, view) FL_SQL_BLOCK_WEIGHT, because binding
 * and planning a block takes about four times the stack of an expression
 * (a chain of 1000 CTEs, each reading the one before: 1.7 MiB at -O2). */
#define FL_SQL_MAX_BIND_DEPTH 2000
#define FL_SQL_BLOCK_WEIGHT 2
/* Tokens one statement may have (libpg_query's stack is sized from them:
 * 1 GiB at most). */
#define FL_SQL_STACK_PER_TOKEN 768u
#define FL_SQL_MAX_TOKENS ((uint64_t)1 << 20)
/* Statements of more tokens are pre-screened by their JSON parse tree
 * (depth.c: libpg_query's protobuf output is quadratic in the nesting). */
#define FL_SQL_PRESCREEN_TOKENS 4096u
/* Jobs needing at most this much stack run on the calling thread. */
#define FL_SQL_INLINE_STACK ((size_t)1 << 20)

/* Runs fn(arg) on a stack of at least `bytes`: the calling thread's when
 * bytes <= FL_SQL_INLINE_STACK, else a helper thread's (joined before
 * returning). FL_ENOMEM when no thread can be made. */
fl_status fl_sql_on_stack(size_t bytes, void (*fn)(void *), void *arg, fl_error *err);

/* libpg_query's protobuf parse of `text` (the pre-lexer's copy of `sql`:
 * same length, so node locations are offsets into sql), nesting checked,
 * unpacked. ntokens: the statement's token count (lex.h). Errors: the
 * parser's (FL_ESYNTAX at its cursor), FL_ELIMIT "statement too complex"
 * (54001). *error_position: 1-based character position or 0. */
fl_status fl_sql_pgq_parse(const char *sql, const char *text, uint64_t ntokens,
                           PgQuery__ParseResult **out, int32_t *error_position, fl_error *err);

/* pg_query_parse (JSON) on a stack big enough for sql; false (and nothing
 * to free) when sql is too big to parse safely. For pgwire's classifier. */
bool fl_sql_pgq_parse_json(const char *sql, PgQueryParseResult *out);

/* Whether libpg_query's JSON tree of sql is surely nested too deeply
 * (deeper than twice the limit: JSON adds an array per repeated field):
 * FL_ELIMIT (54001 with a position near that point) or FL_OK. */
fl_status fl_sql_json_depth_check(const char *sql, const char *json, int32_t *error_position,
                                  fl_error *err);

/* Whether sql is nested too deeply for the engine, without unpacking it:
 * FL_ELIMIT (54001, position as fl_sql_pgq_parse) or FL_OK (also for
 * statements that do not parse: the engine reports those). */
fl_status fl_sql_depth_check(const char *sql, int32_t *error_position, fl_error *err);

/* Nesting depth of the packed message buf (type d), measured without
 * recursion, up to limit + 1. When the depth passes limit, *location is
 * the byte offset ("location" field) of the first message past it, or of
 * its nearest ancestor that has one (-1: none). FL_ECORRUPT on malformed
 * bytes. */
fl_status fl_pgq_depth(const ProtobufCMessageDescriptor *d, const uint8_t *buf, size_t len,
                       uint32_t limit, uint32_t *depth, int32_t *location, fl_error *err);

/* The binder's recursion counter (fl_planner_ctx.depth): enter adds weight
 * and refuses past FL_SQL_MAX_BIND_DEPTH with 54001 at the location of node
 * (a parse-tree message, NULL allowed); every successful enter is paired
 * with a leave of the same weight. */
fl_status fl_depth_enter(struct fl_planner_ctx *pc, const ProtobufCMessage *node, uint32_t weight,
                         fl_error *err);
void fl_depth_leave(struct fl_planner_ctx *pc, uint32_t weight);

/* The "location" field of a parse-tree message (a Node: of the message it
 * holds); -1 when it has none. */
int32_t fl_pgq_location(const ProtobufCMessage *m);

/* "statement too complex" errors are SQLSTATE 54001 */
bool fl_sql_is_too_complex(const fl_error *err);

#endif
