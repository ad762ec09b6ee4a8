/*
 * h_sql.h - the HTTP SQL endpoint's internal pieces (h_sql.c: routes,
 * statement threads, cancel; h_sql_ndjson.c: rows as JSON lines;
 * h_sql_parquet.c: rows as a Parquet file in the response). Grants
 * are checked inside the engine (src/sql/authz), as on every front end.
 */
#ifndef FLOE_SERVER_H_SQL_H
#define FLOE_SERVER_H_SQL_H

#include "floe/auth.h"
#include "floe/server.h"
#include "floe/sql.h"
#include "floe/arrow_ipc.h"

/* Appends one JSON object per live row of b ({"col": value, ...}\n) to out.
 * names are the JSON keys (unique). */
fl_status srv_sql_ndjson_rows(const fl_schema *schema, const char *const *names,
                              const fl_batch *b, const fl_sql_formatter *fmt, fl_ipc_buf *out,
                              fl_error *err);
/* A Parquet file of the result written into stream as it is produced:
 * open (the schema), a batch at a time, finish (the footer; frees p) or
 * abort (frees p, NULL allowed; the body is then cut short by the caller). */
typedef struct srv_sql_parquet srv_sql_parquet;
fl_status srv_sql_parquet_open(fl_server_stream *stream, const fl_schema *schema,
                               srv_sql_parquet **out, fl_error *err);
fl_status srv_sql_parquet_batch(srv_sql_parquet *p, const fl_batch *b, fl_error *err);
fl_status srv_sql_parquet_finish(srv_sql_parquet *p, fl_error *err);
void srv_sql_parquet_abort(srv_sql_parquet *p);

/* Appends s as a JSON string literal (quotes included). */
bool srv_sql_json_str(fl_ipc_buf *out, const char *s, size_t len);

#endif
