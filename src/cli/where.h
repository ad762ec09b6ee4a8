/*
 * where.h - parsing the CLI's --where "col op value" filters (where.c).
 */
#ifndef FLOE_CLI_WHERE_H
#define FLOE_CLI_WHERE_H

#include "floe/arena.h"
#include "floe/error.h"
#include "floe/predicate.h"
#include "floe/types.h"

/* Parses w against the top-level columns of schema into *out (strings in a).
 * FL_ESYNTAX / FL_ENOTFOUND / FL_EUNSUPPORTED with a message quoting w. */
fl_status fl_cli_parse_where(const char *w, const fl_schema *schema, fl_arena *a, fl_col_pred *out,
                             fl_error *err);

#endif
