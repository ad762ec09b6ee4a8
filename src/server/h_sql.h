/*
 * h_sql.h - the HTTP SQL endpoint's internal pieces (h_sql.c: routes,
 * statement threads, cancel; h_sql_ndjson.c: rows as JSON lines). Grants
 * are checked inside the engine (src/sql/authz), as on every front end.
 */
#ifndef FLOE_SERVER_H_SQL_H
#define FLOE_SERVER_H_SQL_H

#include "floe/auth.h"
#include "floe/sql.h"
#include "floe/arrow_ipc.h"

/* Appends one JSON object per live row of b ({"col": value, ...}\n) to out.
 * names are the JSON keys (unique). */
fl_status srv_sql_ndjson_rows(const fl_schema *schema, const char *const *names,
                              const fl_batch *b, const fl_sql_formatter *fmt, fl_ipc_buf *out,
                              fl_error *err);
/* Appends s as a JSON string literal (quotes included). */
bool srv_sql_json_str(fl_ipc_buf *out, const char *s, size_t len);

#endif
