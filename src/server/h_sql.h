/*
 * h_sql.h - the HTTP SQL endpoint's internal pieces (h_sql.c: routes,
 * statement threads, cancel; h_sql_authz.c: grants a statement needs;
 * h_sql_ndjson.c: rows as JSON lines).
 */
#ifndef FLOE_SERVER_H_SQL_H
#define FLOE_SERVER_H_SQL_H

#include "floe/auth.h"
#include "floe/sql.h"
#include "sql/arrow_ipc.h"
#include "sql/func.h"

/* Parses sql and checks that who holds every grant it needs (see
 * h_sql_authz.c). FL_ESYNTAX (with *position, 1-based) when it does not
 * parse; FL_EFORBIDDEN when a grant is missing. */
fl_status srv_sql_authorize(fl_auth *auth, const fl_principal *who, const char *sql,
                            const char *default_ns, fl_error *err, int32_t *position);

/* Appends one JSON object per live row of b ({"col": value, ...}\n) to out.
 * names are the JSON keys (unique). */
fl_status srv_sql_ndjson_rows(const fl_schema *schema, const char *const *names,
                              const fl_batch *b, const fl_sql_formatter *fmt, fl_ipc_buf *out,
                              fl_error *err);
/* Appends s as a JSON string literal (quotes included). */
bool srv_sql_json_str(fl_ipc_buf *out, const char *s, size_t len);

#endif
