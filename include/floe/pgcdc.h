/*
 * pgcdc.h - the Postgres CDC source's debugging entry point: streams a
 * logical replication slot (pgoutput) and prints every event as one JSON
 * line (`floe pg-decode`). The protocol layer itself is private to
 * src/ingest (src/ingest/pg_cdc.h, src/ingest/README.md); pipelines use
 * it through the ingest runtime, not through this header.
 *
 * Output, one object per line, "event" first:
 *   {"event":"relation","oid":16384,"schema":"public","table":"t","replica_identity":"d",
 *    "version":1,"columns":[{"name":"id","type_oid":23,"type":"int","key":true},...]}
 *   {"event":"begin","xid":731,"final_lsn":"0/1530A58","commit_time_us":1717000000000000}
 *   {"event":"insert","xid":731,"lsn":"0/1530948","table":"public.t","new":{"id":"1",...}}
 *   {"event":"update",...,"old_kind":"K","old":{...},"new":{...}}   {"event":"delete",...}
 *   {"event":"truncate","xid":..,"tables":["public.t"],"cascade":false,"restart_identity":false}
 *   {"event":"commit","xid":731,"commit_lsn":"0/1530A58","end_lsn":"0/1530A88"}
 *   stream_start / stream_stop / stream_commit / stream_abort, origin, type, message
 * Column values are PostgreSQL's text output as JSON strings, null as null,
 * an unchanged TOASTed value as {"unchanged":true}, a binary one as
 * {"binary_hex":"..."}. Rows of the initial snapshot are "insert" events
 * with "snapshot":true.
 */
#ifndef FLOE_PGCDC_H
#define FLOE_PGCDC_H

#include "floe/export.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "floe/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fl_pgcdc_decode_options {
    const char *conninfo;     /* libpq keywords or URI of the source database */
    const char *slot;         /* replication slot name */
    const char *publications; /* comma-separated publication names */
    bool create_slot;         /* create the slot first (else it must exist) */
    bool temporary;           /* with create_slot: a slot that dies with the connection */
    bool snapshot;            /* with create_slot: print the initial snapshot's rows first */
    const char *start_lsn;    /* "X/Y" to start at; NULL = the slot's confirmed position */
    uint32_t proto_version;   /* 1 or 2; 0 = 1 */
    bool streaming;           /* protocol 2: stream large in-progress transactions */
    bool confirm;             /* confirm each commit's end LSN once printed (consumes the slot) */
    long max_txns;            /* stop after this many commits; 0 = no limit */
    int idle_ms;              /* stop after this long without a message; 0 = never */
} fl_pgcdc_decode_options;

/* Streams the slot and writes JSON lines to out until max_txns, idle_ms, an
 * error, or the server ends the stream. */
FL_API fl_status fl_pgcdc_decode(const fl_pgcdc_decode_options *o, FILE *out, fl_error *err);

#ifdef __cplusplus
}
#endif
#endif
