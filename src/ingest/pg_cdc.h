/*
 * pg_cdc.h - the Postgres CDC source's protocol layer (private to src/ingest):
 * a decoder of the pgoutput logical-replication messages (pg_output.c), the
 * mapping of their columns and text values to floe types and values
 * (pg_types.c), the replication client over libpq (pg_repl.c) and the
 * initial snapshot reader (pg_snapshot.c). README.md ("Postgres CDC") has the design.
 *
 * DESIGN
 *   The decoder is a push parser: pgcdc_decode() takes one pgoutput message
 *   (the payload of one XLogData) and calls the callbacks in pgcdc_callbacks
 *   for it. It keeps the state the protocol needs across messages: the
 *   relations announced so far (a Relation message comes before the first
 *   change of a table, and again after every schema change), the types named
 *   by Type messages, the transaction in progress and, for protocol 2,
 *   whether a streamed-transaction block is open (inside one, messages carry
 *   the transaction id after their type byte).
 *
 *   Every length and count is checked against the bytes left before it is
 *   used, and a tuple must have exactly its relation's column count, so a
 *   sink never indexes past a relation. A malformed message is FL_ECORRUPT
 *   with a message naming the message type, the byte offset inside the
 *   message and the WAL position of the message.
 *
 * Ownership and lifetimes
 *   - pgcdc_tuple / pgcdc_datum bytes point into the message given to
 *     pgcdc_decode(): valid only during the callback.
 *   - pgcdc_rel and everything it points to belong to the decoder. A rel
 *     stays valid until a Relation message for the same OID replaces it
 *     (on_relation sees the old and the new one; the old one is freed when
 *     the callback returns) or the decoder is freed.
 *   - Callbacks return FL_OK to go on; any other status stops decoding and
 *     is returned by pgcdc_decode() with the callback's error.
 */
#ifndef FLOE_INGEST_PG_CDC_H
#define FLOE_INGEST_PG_CDC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/arena.h"
#include "floe/error.h"
#include "floe/types.h"

/* A WAL position (PostgreSQL's XLogRecPtr), printed as "%X/%X". */
typedef uint64_t pgcdc_lsn;

#define PGCDC_MAX_COLUMNS 1664 /* PostgreSQL's MaxTupleAttributeNumber */

/* ---- what the decoder reports ---- */

/* One column of a tuple, as pgoutput sent it. */
typedef enum pgcdc_datum_kind {
    PGCDC_NULL = 'n',      /* SQL NULL */
    PGCDC_UNCHANGED = 'u', /* an unchanged TOASTed value: not sent, keep the old one */
    PGCDC_TEXT = 't',      /* the type's text output */
    PGCDC_BINARY = 'b',    /* the type's send output (binary option only) */
} pgcdc_datum_kind;

typedef struct pgcdc_datum {
    pgcdc_datum_kind kind;
    const uint8_t *data; /* 't' / 'b': borrowed from the message; else NULL */
    uint32_t len;
} pgcdc_datum;

typedef struct pgcdc_tuple {
    uint16_t ncols; /* always the relation's ncols */
    const pgcdc_datum *cols;
} pgcdc_tuple;

/* One column of a relation. type is the floe type the column maps to
 * (pgcdc_type_for); exact is false when that type cannot hold every value of
 * the column's type (the STRING fallback, numeric without a typmod). */
typedef struct pgcdc_column {
    const char *name;
    uint32_t type_oid;
    int32_t typmod;
    bool key; /* part of the replica identity (flag bit 1) */
    fl_type type;
    bool exact;
} pgcdc_column;

typedef struct pgcdc_rel {
    uint32_t oid;
    const char *nspname; /* "public"; "" on the wire means pg_catalog */
    const char *relname;
    char replident; /* 'd' default (primary key), 'n' nothing, 'f' full, 'i' index */
    uint16_t ncols;
    pgcdc_column *cols;
    uint32_t version; /* 1 for the first Relation message of this OID, +1 per later one */
} pgcdc_rel;

typedef struct pgcdc_begin {
    pgcdc_lsn final_lsn; /* the commit record's LSN */
    int64_t commit_ts;   /* microseconds since 2000-01-01 (PostgreSQL's epoch) */
    uint32_t xid;
} pgcdc_begin;

typedef struct pgcdc_commit {
    uint8_t flags;
    pgcdc_lsn commit_lsn;
    pgcdc_lsn end_lsn; /* the position to confirm once this transaction is durable downstream */
    int64_t commit_ts;
    uint32_t xid; /* the Begin's xid, or the streamed transaction's */
} pgcdc_commit;

typedef enum pgcdc_change_kind {
    PGCDC_INSERT = 'I',
    PGCDC_UPDATE = 'U',
    PGCDC_DELETE = 'D',
} pgcdc_change_kind;

typedef struct pgcdc_change {
    pgcdc_change_kind kind;
    uint32_t xid; /* of the enclosing transaction (Begin, or the stream block) */
    const pgcdc_rel *rel;
    /* Update/Delete: 'K' (old key: replica identity columns, others null),
     * 'O' (old tuple: replica identity full) or 0 (an Update that changed no
     * key column of a default-identity table: the new tuple carries the key). */
    char old_kind;
    const pgcdc_tuple *old_tuple; /* NULL when old_kind == 0 */
    const pgcdc_tuple *new_tuple; /* NULL for Delete */
    pgcdc_lsn lsn;                /* WAL position of the message */
} pgcdc_change;

#define PGCDC_TRUNCATE_CASCADE 1
#define PGCDC_TRUNCATE_RESTART_IDENTITY 2

typedef struct pgcdc_truncate {
    uint32_t xid;
    uint8_t flags; /* PGCDC_TRUNCATE_* */
    uint32_t nrels;
    const pgcdc_rel *const *rels; /* every one announced by a Relation message */
} pgcdc_truncate;

typedef struct pgcdc_origin {
    pgcdc_lsn origin_lsn;
    const char *name;
} pgcdc_origin;

typedef struct pgcdc_typeinfo {
    uint32_t oid;
    const char *nspname;
    const char *typname;
} pgcdc_typeinfo;

/* A logical decoding message (pg_logical_emit_message; 'messages' option). */
typedef struct pgcdc_message {
    uint32_t xid;
    bool transactional;
    pgcdc_lsn lsn;
    const char *prefix;
    const uint8_t *data; /* borrowed */
    uint32_t len;
} pgcdc_message;

/* Every callback may be NULL (the event is then only checked and skipped). */
typedef struct pgcdc_callbacks {
    void *ctx;
    fl_status (*on_begin)(void *ctx, const pgcdc_begin *b, fl_error *err);
    fl_status (*on_commit)(void *ctx, const pgcdc_commit *c, fl_error *err);
    /* old: the previous description of the same OID, or NULL the first time. */
    fl_status (*on_relation)(void *ctx, const pgcdc_rel *rel, const pgcdc_rel *old, fl_error *err);
    fl_status (*on_change)(void *ctx, const pgcdc_change *c, fl_error *err);
    fl_status (*on_truncate)(void *ctx, const pgcdc_truncate *t, fl_error *err);
    fl_status (*on_origin)(void *ctx, const pgcdc_origin *o, fl_error *err);
    fl_status (*on_type)(void *ctx, const pgcdc_typeinfo *t, fl_error *err);
    fl_status (*on_message)(void *ctx, const pgcdc_message *m, fl_error *err);
    /* protocol 2, streamed transactions: changes of xid arrive in blocks
     * between stream_start and stream_stop, then stream_commit or stream_abort
     * (subxid == xid aborts the whole transaction, else one subtransaction). */
    fl_status (*on_stream_start)(void *ctx, uint32_t xid, bool first_segment, fl_error *err);
    fl_status (*on_stream_stop)(void *ctx, fl_error *err);
    fl_status (*on_stream_commit)(void *ctx, const pgcdc_commit *c, fl_error *err);
    fl_status (*on_stream_abort)(void *ctx, uint32_t xid, uint32_t subxid, fl_error *err);
} pgcdc_callbacks;

/* ---- the decoder (pg_output.c) ---- */

typedef struct pgcdc_decoder pgcdc_decoder;

/* proto_version: 1 or 2 (what START_REPLICATION asked for). The decoder
 * copies *cb. Returns NULL when out of memory. */
pgcdc_decoder *pgcdc_decoder_new(uint32_t proto_version, const pgcdc_callbacks *cb);
void pgcdc_decoder_free(pgcdc_decoder *d);

/* Decodes one message. lsn is its WAL position (the XLogData's start), used
 * in events and error messages. */
fl_status pgcdc_decode(pgcdc_decoder *d, const uint8_t *msg, size_t len, pgcdc_lsn lsn,
                       fl_error *err);

/* The relation announced for oid, or NULL. Owned by the decoder. */
const pgcdc_rel *pgcdc_decoder_rel(const pgcdc_decoder *d, uint32_t oid);
/* True between a Begin and its Commit (or a stream block's start and stop). */
bool pgcdc_decoder_in_txn(const pgcdc_decoder *d);

/* Name of a message type byte ("Insert", "Stream Commit"...), "unknown" else. */
const char *pgcdc_msg_name(uint8_t type);

/* ---- types and values (pg_types.c) ---- */

/* The floe type for a PostgreSQL column type (see README.md, "Postgres CDC", for the
 * table). Unknown types, arrays, numeric wider than 38 digits and
 * user-defined types map to STRING (their text form) with *exact = false. */
void pgcdc_type_for(uint32_t oid, int32_t typmod, fl_type *out, bool *exact);

/* The value of one datum of column col. NULL gives is_null; 't' is parsed
 * from PostgreSQL's text output (the replication connection sets DateStyle
 * ISO, TimeZone UTC, bytea_output hex, extra_float_digits 3); 'b' is decoded
 * for the fixed-width types, text and bytea. 'u' (unchanged TOAST) has no
 * value: FL_EINVAL, the caller takes the old row's value. Bytes are copied
 * into a. Errors name the column. */
fl_status pgcdc_datum_value(const pgcdc_column *col, const pgcdc_datum *d, fl_arena *a,
                            fl_value *out, fl_error *err);

/* "%X/%X" into buf (at least 24 bytes); returns buf. */
char *pgcdc_lsn_format(pgcdc_lsn lsn, char *buf);
/* Parses "%X/%X"; false when s is not that form. */
bool pgcdc_lsn_parse(const char *s, pgcdc_lsn *out);

/* ---- the replication client (pg_repl.c) ---- */

/*
 * One replication connection (replication=database) to the source database.
 * Life cycle:
 *
 *   pgcdc_repl_connect       connect, IDENTIFY_SYSTEM
 *   pgcdc_repl_create_slot   (first run) CREATE_REPLICATION_SLOT ... LOGICAL
 *                            pgoutput EXPORT_SNAPSHOT; the snapshot name stays
 *                            importable only until the next command on this
 *                            connection, so open the snapshot reader
 *                            (pgcdc_snapshot_open) before pgcdc_repl_start
 *   pgcdc_repl_start         START_REPLICATION SLOT ... LOGICAL lsn (proto_version,
 *                            publication_names[, streaming]); decoded messages go
 *                            to the decoder given here
 *   pgcdc_repl_poll          reads what has arrived (waits at most timeout_ms):
 *                            XLogData -> pgcdc_decode, keepalives answered
 *   pgcdc_repl_confirm       the caller's commit of everything up to lsn is
 *                            durable: report it as flushed (the slot may then
 *                            drop the WAL before it); nothing else ever moves it
 *   pgcdc_repl_close         CopyDone, wait for the server's end of stream, finish
 *
 * The connection sets DateStyle ISO, TimeZone UTC, bytea_output hex,
 * extra_float_digits 3 and IntervalStyle postgres, so text values parse as
 * pgcdc_datum_value expects. Not thread-safe: one thread drives a connection.
 */
typedef struct pgcdc_repl pgcdc_repl;

typedef struct pgcdc_repl_options {
    const char *conninfo;     /* libpq keyword string or URI of the source database */
    const char *slot;         /* [a-z0-9_]{1,63}, as PostgreSQL requires */
    const char *publications; /* comma-separated publication names */
    uint32_t proto_version;   /* 1 or 2; 0 = 1 */
    bool streaming;           /* protocol 2: stream large in-progress transactions */
    int status_interval_ms;   /* send a standby status at least this often; 0 = 10000 */
} pgcdc_repl_options;

typedef struct pgcdc_system {
    char systemid[32];
    uint32_t timeline;
    pgcdc_lsn xlogpos;
    char dbname[64];
} pgcdc_system;

typedef struct pgcdc_slot {
    char name[64];
    pgcdc_lsn consistent_point; /* changes after it are streamed, before it in the snapshot */
    char snapshot[64];          /* for SET TRANSACTION SNAPSHOT (pgcdc_snapshot_open) */
} pgcdc_slot;

fl_status pgcdc_repl_connect(const pgcdc_repl_options *o, pgcdc_repl **out, fl_error *err);
const pgcdc_system *pgcdc_repl_system(const pgcdc_repl *r);
/* temporary: the slot dies with the connection (tests, one-off reads). */
fl_status pgcdc_repl_create_slot(pgcdc_repl *r, bool temporary, pgcdc_slot *out, fl_error *err);
fl_status pgcdc_repl_drop_slot(pgcdc_repl *r, fl_error *err);
/* The slot's confirmed_flush_lsn (0 when it has none yet); FL_ENOTFOUND without the slot. */
fl_status pgcdc_repl_slot_confirmed(pgcdc_repl *r, pgcdc_lsn *out, fl_error *err);
/* start: where to resume (the last confirmed end_lsn; 0 = the slot's own
 * confirmed position). dec is borrowed until close. */
fl_status pgcdc_repl_start(pgcdc_repl *r, pgcdc_lsn start, pgcdc_decoder *dec, fl_error *err);
/* Decodes what arrives within timeout_ms (0 = only what has arrived, no wait);
 * *nmsgs gets the XLogData count. FL_EIO when the server ends the stream or
 * the connection breaks; decoder and callback errors are returned as they are. */
fl_status pgcdc_repl_poll(pgcdc_repl *r, int timeout_ms, size_t *nmsgs, fl_error *err);
fl_status pgcdc_repl_confirm(pgcdc_repl *r, pgcdc_lsn lsn, fl_error *err);
/* The end of the WAL received so far, and the last confirmed position. */
pgcdc_lsn pgcdc_repl_received(const pgcdc_repl *r);
pgcdc_lsn pgcdc_repl_confirmed(const pgcdc_repl *r);
void pgcdc_repl_close(pgcdc_repl *r);

/* ---- the initial snapshot (pg_snapshot.c) ---- */

/*
 * A normal connection inside a REPEATABLE READ transaction that imported the
 * slot's exported snapshot: it sees the tables exactly as of the slot's
 * consistent point. pgcdc_snapshot_read reports a table as one on_relation
 * (built from the catalogs with the columns pgoutput sends: live,
 * non-generated, in attnum order, key = replica identity) and one on_change
 * per row (kind PGCDC_INSERT, text datums, xid 0, lsn 0), so a sink loads the
 * snapshot through the same code as the stream. The rel belongs to the
 * reader and is valid until the next read or close.
 */
typedef struct pgcdc_snapshot pgcdc_snapshot;

typedef struct pgcdc_table {
    const char *nspname;
    const char *relname;
} pgcdc_table;

/* snapshot NULL: no imported snapshot (the tables as they are now). */
fl_status pgcdc_snapshot_open(const char *conninfo, const char *snapshot, pgcdc_snapshot **out,
                              fl_error *err);
/* The tables of the publications (comma-separated), sorted by schema and
 * name; the array and strings live until close. */
fl_status pgcdc_snapshot_tables(pgcdc_snapshot *s, const char *publications,
                                const pgcdc_table **tables, size_t *n, fl_error *err);
fl_status pgcdc_snapshot_read(pgcdc_snapshot *s, const char *nspname, const char *relname,
                              const pgcdc_callbacks *cb, fl_error *err);
/* Ends the transaction (COMMIT) and closes the connection. */
void pgcdc_snapshot_close(pgcdc_snapshot *s);

#endif
