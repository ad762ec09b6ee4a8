/*
 * pg_conn.h - what the replication client (pg_repl.c) and the snapshot
 * reader (pg_snapshot.c) share: opening a libpq connection with the session
 * settings the text decoder relies on, error messages from libpq, and the
 * publication list as SQL. Private to src/ingest.
 */
#ifndef FLOE_INGEST_PG_CONN_H
#define FLOE_INGEST_PG_CONN_H

#include <stdbool.h>

#include <libpq-fe.h>

#include "floe/buf.h"
#include "floe/error.h"

/* Connects to conninfo (keywords or URI) with DateStyle ISO, TimeZone UTC,
 * bytea_output hex, extra_float_digits 3, IntervalStyle postgres and, when
 * replication, replication=database. On failure *out is NULL. */
fl_status pgcdc_pq_connect(const char *conninfo, bool replication, PGconn **out, fl_error *err);

/* FL_EIO with "<what>: <first line of the libpq/server message>"; r may be NULL. */
fl_status pgcdc_pq_error(PGconn *c, const PGresult *r, const char *what, fl_error *err);

/* Runs sql, expecting status want; the result is cleared unless out is given. */
fl_status pgcdc_pq_exec(PGconn *c, const char *sql, ExecStatusType want, PGresult **out,
                        fl_error *err);

/* Appends the comma-separated publication names to b as a list of quoted
 * identifiers ("a","b"); FL_EINVAL for an empty list or an empty name. */
fl_status pgcdc_pq_publications(const char *pubs, fl_buf *b, fl_error *err);

#endif
