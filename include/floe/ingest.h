/*
 * ingest.h - streaming ingestion into Iceberg tables with exactly-once
 * commits (src/ingest/, design in src/ingest/README.md).
 *
 * A pipeline is a named writer of one table. Its runtime is:
 *
 *   source -> fl_ingest_sink_write (rows buffered in a data writer) ->
 *   fl_ingest_sink_set_position (where the source is) ->
 *   fl_ingest_sink_checkpoint: Parquet data files + ONE Iceberg append whose
 *   snapshot summary carries the pipeline name, its epoch and the source
 *   positions, so rows and positions land atomically.
 *
 * Exactly-once: on open, the sink reads the positions of the newest
 * snapshot on main carrying the pipeline's name; the source resumes from
 * them. Rows buffered but not committed are lost with the process and
 * re-read from the source; their data files are orphans, never referenced.
 *
 * Fencing: opening a sink claims a new epoch, the table property
 * "floe.pipeline.<name>.epoch" = previous + 1, committed through the
 * catalog's compare-and-swap. Every checkpoint commit attempt is validated
 * against the freshly loaded metadata: a newer epoch, or a pipeline
 * checkpoint this sink did not make, refuses the commit with FL_ECONFLICT
 * ("pipeline X: fenced by epoch N"), so a zombie never commits.
 *
 * Ownership: the sink borrows the catalog (and its FileIO), which must
 * outlive it; it owns its table handle, buffered files and positions.
 * Not thread-safe: one thread drives a sink.
 */
#ifndef FLOE_INGEST_H
#define FLOE_INGEST_H

#include "floe/export.h"

#include <stdbool.h>
#include <stdint.h>

#include "floe/arena.h"
#include "floe/catalog.h"
#include "floe/error.h"
#include "floe/ice_table.h"
#include "floe/iceberg.h"
#include "floe/vector.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Summary and property keys (values are decimal text unless noted). */
#define FL_INGEST_SUM_PIPELINE "floe.pipeline"                /* the pipeline name */
#define FL_INGEST_SUM_EPOCH "floe.pipeline.epoch"             /* the writer's epoch */
#define FL_INGEST_SUM_CHECKPOINT "floe.pipeline.checkpoint"   /* 1, 2, ... per pipeline */
#define FL_INGEST_SUM_POS_FILE "floe.pipeline.positions-file" /* side file (path) */
#define FL_INGEST_SUM_POS_COUNT "floe.pipeline.positions-count"
#define FL_INGEST_SUM_POS_PREFIX "floe.pos." /* + key = value */
/* How far the checkpoint's newest data was behind its source when it
 * committed: the commit time minus the source time of the newest record
 * (a Kafka message's timestamp, a Postgres transaction's commit time, a
 * landing file's mtime), in milliseconds. Absent when unknown. */
#define FL_INGEST_SUM_SOURCE_LAG_MS "floe.pipeline.source-lag-ms"
/* Positions inline in the summary up to this many keys; beyond, all of them
 * go to a side file named by FL_INGEST_SUM_POS_FILE (and only the keys
 * changed by the checkpoint stay inline, for people reading the summary). */
#define FL_INGEST_INLINE_POSITIONS 32

typedef struct fl_ingest_sink fl_ingest_sink;

typedef struct fl_ingest_options {
    int64_t checkpoint_interval_ms; /* 0 = 30000 */
    uint64_t checkpoint_rows;       /* 0 = 1,000,000 buffered rows */
    uint64_t checkpoint_bytes;      /* 0 = 256 MiB of buffered input (estimated) */
} fl_ingest_options;

/* Loads the table, claims a new epoch for pipeline (letters, digits, '_',
 * '-', '.'; at most 128 bytes) and reads its committed positions back from
 * the table. FL_ENOTFOUND when the table does not exist. */
FL_API fl_status fl_ingest_sink_open(fl_catalog *c, const fl_table_ident *table,
                                     const char *pipeline, const fl_ingest_options *opt,
                                     fl_ingest_sink **out, fl_error *err);
/* Discards what was not checkpointed (its data files are deleted) and
 * frees s. NULL allowed. */
FL_API void fl_ingest_sink_close(fl_ingest_sink *s);

/* The schema batches must have: the table's current schema (columns by
 * position, shapes equal). Owned by the sink; stays valid across
 * checkpoints until the table's schema changes (compare the pointer after a
 * checkpoint) and until close. */
FL_API const fl_schema *fl_ingest_sink_schema(const fl_ingest_sink *s);
/* The table's current Iceberg schema (write-defaults); valid until the next checkpoint. */
FL_API const fl_ice_schema *fl_ingest_sink_ice_schema(const fl_ingest_sink *s);
FL_API int64_t fl_ingest_sink_epoch(const fl_ingest_sink *s);
FL_API const char *fl_ingest_sink_name(const fl_ingest_sink *s); /* the pipeline */
/* The table as of the last checkpoint (or open): what it holds committed. */
FL_API const fl_ice_table *fl_ingest_sink_table(const fl_ingest_sink *s);

/* Buffers b's live rows. On error the sink is broken: only close is valid
 * (nothing of the current checkpoint commits). */
FL_API fl_status fl_ingest_sink_write(fl_ingest_sink *s, const fl_batch *b, fl_error *err);

/* Upserts and deletes (change streams): every row committed by an EARLIER
 * checkpoint whose identifier columns (the table's identifier-field-ids)
 * equal those of a live row of keys is deleted by the next checkpoint, as
 * one global equality delete file. keys has the sink's schema; only the
 * identifier columns are read. Rows written to the same checkpoint are not
 * deleted (they share its data sequence number), so an update is a delete
 * of the key plus a write of the new row, and a writer writes each key's
 * final row at most once per checkpoint. Needs a format v2+ table with
 * identifier fields and an unpartitioned spec (FL_EINVAL otherwise; the
 * sink is then broken). */
FL_API fl_status fl_ingest_sink_delete(fl_ingest_sink *s, const fl_batch *keys, fl_error *err);
/* The next checkpoint removes every row committed before it (its own rows
 * stay), in the same snapshot: a source's TRUNCATE, or an initial snapshot
 * that replaces the table's contents. Keys buffered so far are dropped. */
FL_API fl_status fl_ingest_sink_truncate(fl_ingest_sink *s, fl_error *err);

/* Schema evolution from the source (a CDC source's ALTER TABLE): optional
 * columns added at the end, and type promotions (int -> long, float ->
 * double, wider decimals), committed at once in their own metadata-only
 * commit (fenced like a checkpoint). Only between checkpoints: nothing may
 * be buffered (FL_EINVAL). fl_ingest_sink_schema then returns the new
 * schema. On failure the sink is broken. */
typedef struct fl_ingest_evolution {
    const fl_field *add; /* name, type (nullable is implied) */
    uint32_t nadd;
    const fl_field *promote; /* name, the new type */
    uint32_t npromote;
} fl_ingest_evolution;
FL_API fl_status fl_ingest_sink_evolve(fl_ingest_sink *s, const fl_ingest_evolution *ev,
                                       fl_error *err);

/* Records a source position (key and value copied), committed with the next
 * checkpoint. Keys: 1-1024 bytes, no control characters; keys and values
 * UTF-8 (they go into JSON). FL_EINVAL otherwise. */
FL_API fl_status fl_ingest_sink_set_position(fl_ingest_sink *s, const char *key, const char *value,
                                             fl_error *err);
/* The source time (Unix ms) of a record just written: the next checkpoint
 * records its lag behind the newest one (FL_INGEST_SUM_SOURCE_LAG_MS). */
FL_API void fl_ingest_sink_note_source_time(fl_ingest_sink *s, int64_t unix_ms);

/* The position of key as the sink sees it (pending, else committed), or
 * NULL. Valid until the next set_position/checkpoint. */
FL_API const char *fl_ingest_sink_position(const fl_ingest_sink *s, const char *key);

/* True when a checkpoint is due at now_ms: rows or positions are pending and
 * the interval since the last checkpoint (or open) passed, or the buffered
 * rows / bytes reached their limits. */
FL_API bool fl_ingest_sink_due(const fl_ingest_sink *s, int64_t now_ms);
/* Pending rows and changed positions since the last checkpoint. */
FL_API uint64_t fl_ingest_sink_pending_rows(const fl_ingest_sink *s);
FL_API uint32_t fl_ingest_sink_pending_positions(const fl_ingest_sink *s);
FL_API uint64_t fl_ingest_sink_pending_deletes(const fl_ingest_sink *s); /* key rows */

typedef struct fl_ingest_commit {
    bool committed;      /* false: nothing was pending */
    int64_t snapshot_id; /* the new snapshot */
    uint64_t rows;
    uint32_t data_files;
    int64_t checkpoint; /* the pipeline's checkpoint number */
} fl_ingest_commit;
/* Writes the buffered rows and commits them with the positions in one
 * append. FL_ECONFLICT "pipeline X: fenced by epoch N" when a newer writer
 * took over (then only close is valid). info may be NULL. */
FL_API fl_status fl_ingest_sink_checkpoint(fl_ingest_sink *s, fl_ingest_commit *info,
                                           fl_error *err);

/* ---- committed state, read without claiming an epoch (status) -------------- */

typedef struct fl_ingest_state {
    int64_t epoch;        /* the table property: the newest claimed epoch, 0 = none */
    bool has_checkpoint;  /* a snapshot of the pipeline exists on main */
    int64_t snapshot_id;  /* the newest one */
    int64_t timestamp_ms; /* its commit time */
    int64_t checkpoint;   /* its checkpoint number */
    int64_t commit_epoch; /* the epoch that committed it */
    int64_t source_lag_ms; /* its FL_INGEST_SUM_SOURCE_LAG_MS, -1 when absent */
    fl_ice_map positions; /* every committed position (strings in the arena) */
} fl_ingest_state;
/* The pipeline's committed state in table metadata m (position side files
 * read through io). Everything in a. */
FL_API fl_status fl_ingest_state_read(fl_fileio *io, const fl_ice_metadata *m, const char *pipeline,
                                      fl_arena *a, fl_ingest_state *out, fl_error *err);

/* A table's pipelines with the figures SHOW PIPELINES and /metrics show
 * (one definition, so the two never disagree). */
typedef struct fl_ingest_pipeline_stats {
    const char *pipeline;   /* named by a property floe.pipeline.<name>.epoch */
    fl_ingest_state state;  /* fl_ingest_state_read */
    int64_t commits;        /* the pipeline's snapshots still in the metadata */
    int64_t rows;           /* the rows they added (summary added-records) */
    int64_t rows_last_hour; /* rows its commits of the hour before now_ms added */
} fl_ingest_pipeline_stats;
/* Every pipeline of table metadata m, in property order (*n = 0: none;
 * then nothing is read). A pipeline whose state cannot be read fails the
 * call (fl_ingest_state_read's error). Everything in a. */
FL_API fl_status fl_ingest_pipelines(fl_fileio *io, const fl_ice_metadata *m, int64_t now_ms,
                                     fl_arena *a, fl_ingest_pipeline_stats **out, uint32_t *n,
                                     fl_error *err);

/* ---- Postgres CDC (src_pgcdc.c) ---------------------------------------------
 * Logical replication (pgoutput) of the tables of a publication into one
 * Iceberg table each, ns.<table> (ns.<schema>_<table> outside "public"),
 * with upserts and deletes by primary key as equality deletes. Each table is
 * its own pipeline sink (same pipeline name) whose position "pg:<slot>" is
 * the end LSN of the last source transaction it holds; the slot is confirmed
 * only after every table holding changes before it has committed, so a
 * restart (from the slot) skips, per table, what that table already has:
 * exactly once. The first run (or one whose tables lack positions) creates
 * the slot, copies every table from its exported snapshot and replaces each
 * table's contents with that copy in one commit. Missing tables are created
 * (the source's columns; the primary key as identifier fields). */
typedef struct fl_ingest_pg fl_ingest_pg;

typedef struct fl_ingest_pg_options {
    const char *conninfo;    /* the source database (libpq keywords or URI) */
    const char *slot;        /* replication slot, created when missing ([a-z0-9_]) */
    const char *publication; /* comma-separated publication names */
    fl_namespace ns;         /* where the tables land */
    const char *pipeline;    /* NULL = "pg-<slot>" */
    fl_ingest_options sink;  /* checkpoint interval and limits */
} fl_ingest_pg_options;

typedef struct fl_ingest_pg_stats {
    uint64_t txns;          /* source transactions decoded */
    uint64_t changes;       /* row changes applied */
    uint64_t skipped;       /* changes of transactions a table already held */
    uint64_t snapshot_rows; /* rows copied by the initial snapshot */
    bool snapshot;          /* this open copied the tables */
} fl_ingest_pg_stats;

/* Connects, resumes or takes the initial snapshot (committed before it
 * returns) and starts streaming. */
FL_API fl_status fl_ingest_pg_open(fl_catalog *c, const fl_ingest_pg_options *o,
                                   fl_ingest_pg **out, fl_error *err);
/* Decodes what arrives within timeout_ms; totals in *st (may be NULL). */
FL_API fl_status fl_ingest_pg_poll(fl_ingest_pg *p, int timeout_ms, fl_ingest_pg_stats *st,
                                   fl_error *err);
/* A checkpoint is due (interval or limits) and no source transaction is half read. */
FL_API bool fl_ingest_pg_due(const fl_ingest_pg *p, int64_t now_ms);
/* Commits every table with pending changes, then confirms the slot. Between
 * transactions only (FL_EINVAL inside one: poll on). *tables = tables committed. */
FL_API fl_status fl_ingest_pg_checkpoint(fl_ingest_pg *p, uint32_t *tables, fl_error *err);
/* Leaves the stream; what was not checkpointed is read again next time. NULL allowed. */
FL_API void fl_ingest_pg_close(fl_ingest_pg *p);
/* The pipeline's name and the number of tables. */
FL_API const char *fl_ingest_pg_name(const fl_ingest_pg *p);
FL_API uint32_t fl_ingest_pg_ntables(const fl_ingest_pg *p);
FL_API bool fl_ingest_pg_in_txn(const fl_ingest_pg *p); /* a source transaction is half read */

/* ---- dead letters (dead_letter.c) ---------------------------------------------
 * Records that a pipeline cannot ingest go to the table <table>__dead_letter
 * in the same namespace: (pipeline string, source string, error string,
 * payload binary, failed_at timestamptz), written through a sink of its own
 * (same pipeline name, its own epoch) whose positions say which failures are
 * recorded, so a failure is recorded once even when the pipeline restarts
 * between the dead-letter commit and its own. Checkpoint the dead-letter
 * sink before the main one. */
#define FL_INGEST_DEAD_LETTER_SUFFIX "__dead_letter"
#define FL_INGEST_DEAD_LETTER_MAX_PAYLOAD (1u << 20) /* raw bytes kept per record */

/* Opens the dead-letter sink of table (creating the table when absent). */
FL_API fl_status fl_ingest_dead_letter_open(fl_catalog *c, const fl_table_ident *table,
                                            const char *pipeline, const fl_ingest_options *opt,
                                            fl_ingest_sink **out, fl_error *err);
/* Buffers one dead letter (payload truncated to FL_INGEST_DEAD_LETTER_MAX_PAYLOAD)
 * and records position key = value in the same checkpoint. */
FL_API fl_status fl_ingest_dead_letter_write(fl_ingest_sink *dlq, const char *pipeline,
                                             const char *source, const char *error,
                                             const void *payload, size_t len, const char *key,
                                             const char *value, fl_error *err);

/* ---- landing files source (src_files.c) ------------------------------------- */

typedef struct fl_ingest_files fl_ingest_files;

typedef struct fl_ingest_files_stats {
    uint32_t files_ingested; /* this call */
    uint32_t files_failed;   /* this call: recorded done-with-error */
    uint32_t files_waiting;  /* seen but not stable yet (or not yet seen twice) */
    uint64_t rows;           /* this call */
    bool more; /* stopped early because a checkpoint became due: poll again after it */
} fl_ingest_files_stats;

/* Watches folder (a local directory; not recursive) for *.csv, *.tsv,
 * *.jsonl, *.ndjson, *.json and *.parquet files. Names starting with '.'
 * or ending in ".tmp" are ignored. folder is copied. */
FL_API fl_status fl_ingest_files_open(const char *folder, fl_ingest_files **out, fl_error *err);
FL_API void fl_ingest_files_close(fl_ingest_files *f); /* NULL allowed */
/* One poll: lists the folder and ingests, into s, every file that is stable
 * (same size and mtime as at the previous poll) and whose identity
 * (size:mtime) differs from its committed position "file:<path>". Each
 * ingested file sets that position (the path with '%', control bytes and,
 * when the name is not UTF-8, bytes >= 0x80 written %XX) to "<size>:<mtime_ns>:done:<rows>"; a
 * file that cannot be read or converted is logged to stderr and set to
 * "<size>:<mtime_ns>:error:<message>", its rows never written. A failure
 * of the sink itself is returned. */
/* Failed files also go, with their first FL_INGEST_DEAD_LETTER_MAX_PAYLOAD
 * bytes, to dlq (a dead-letter sink; borrowed; NULL = only positions and stderr). */
FL_API void fl_ingest_files_set_dead_letter(fl_ingest_files *f, fl_ingest_sink *dlq);
FL_API fl_status fl_ingest_files_poll(fl_ingest_files *f, fl_ingest_sink *s,
                                      fl_ingest_files_stats *stats, fl_error *err);

/* ---- Kafka source (src_kafka.c; librdkafka) -------------------------------------
 * A consumer of topics (comma-separated) in group = the sink's pipeline
 * name, with Kafka's committed offsets ignored: each assigned partition is
 * sought to its table position "kafka:<topic>:<partition>" (the next
 * offset), else the beginning. Each message value is one JSON object,
 * written to s; a message that does not convert goes to dlq (borrowed, NULL
 * = stderr only) and its offset still advances. On a revoke the source
 * checkpoints (dlq, then s) before giving the partitions up, so the next
 * owner resumes exactly where this one committed. Both sinks borrowed. */
typedef struct fl_ingest_kafka fl_ingest_kafka;

typedef struct fl_ingest_kafka_stats {
    uint64_t messages; /* this call: consumed (rows + failed) */
    uint64_t rows;     /* this call */
    uint64_t failed;   /* this call: went to the dead letters */
    bool due;          /* stopped because a checkpoint is due: fl_ingest_kafka_checkpoint */
} fl_ingest_kafka_stats;

FL_API fl_status fl_ingest_kafka_open(const char *brokers, const char *topics, fl_ingest_sink *s,
                                      fl_ingest_sink *dlq, fl_ingest_kafka **out, fl_error *err);
/* Consumes until timeout_ms passes with no message, a checkpoint of s or
 * dlq is due at the wall clock (stats->due), or 65536 messages were taken.
 * A failure of a sink (or of a checkpoint in a revoke) is returned: then
 * only close is valid. */
FL_API fl_status fl_ingest_kafka_poll(fl_ingest_kafka *k, int timeout_ms,
                                      fl_ingest_kafka_stats *stats, fl_error *err);
/* Checkpoints dlq then s; after a commit, commits the consumed offsets to
 * Kafka too (for lag monitoring only; never read back). info may be NULL. */
FL_API fl_status fl_ingest_kafka_checkpoint(fl_ingest_kafka *k, fl_ingest_commit *info,
                                            fl_error *err);
/* Leaves the group WITHOUT checkpointing (what is buffered is re-read by the
 * next owner from the table's positions). NULL allowed. */
FL_API void fl_ingest_kafka_close(fl_ingest_kafka *k);

/* ---- a source's columns as the table's, matched by name (src/ingest/adapt.c) ----
 * Shared by the sources and `floe load` (src/cli/cmd_load.c). */

typedef struct fl_ingest_adapter fl_ingest_adapter;

/* The table-typed view of batches in src's schema: columns matched by name
 * (exact, else case-insensitive), widened by Iceberg promotions, missing
 * ones filled with write-default or null. FL_EINVAL/FL_ETYPE naming file
 * and column when src does not fit. */
FL_API fl_status fl_ingest_adapter_open(const fl_schema *table, const fl_ice_schema *ice,
                                        const fl_schema *src, const char *file,
                                        fl_ingest_adapter **out, fl_error *err);
/* *view borrows b and the adapter (valid until the next call). Checks that
 * required columns have no nulls (FL_EINVAL naming the column). */
FL_API fl_status fl_ingest_adapt(fl_ingest_adapter *ad, const fl_batch *b, fl_batch *view,
                                 fl_error *err);
FL_API void fl_ingest_adapter_free(fl_ingest_adapter *ad); /* NULL allowed */

/* The schema to re-read a text file with so its columns carry the table's
 * types: CSV positional (the header's names, the table's types), JSON
 * lines the table itself. *out is NULL when src already fits. In a. */
FL_API fl_status fl_ingest_text_schema(const fl_schema *table, const fl_schema *src, bool csv,
                                       const char *file, fl_arena *a, const fl_schema **out,
                                       fl_error *err);

/* ---- HTTP request bodies (src_http.c; the endpoint is src/server/h_ingest.c) ---- */

typedef enum fl_ingest_body_format {
    FL_INGEST_BODY_NDJSON = 1, /* application/x-ndjson: one JSON object per line */
    FL_INGEST_BODY_JSON,       /* application/json: an array of objects */
    FL_INGEST_BODY_CSV,        /* text/csv: a header, then records */
} fl_ingest_body_format;

/* Converts every record of body (columns by name, coerced to table's types
 * as `floe ingest files` does) and, only when all of them convert, writes
 * them to s (NULL = check only). *rows = records. A bad record is FL_ESYNTAX,
 * FL_ETYPE, FL_EINVAL... naming the line or record and the column, and
 * nothing reached s; another failure with s given came from the sink (then
 * only close is valid). */
FL_API fl_status fl_ingest_body_write(const fl_schema *table, const fl_ice_schema *ice,
                                      fl_ingest_body_format fmt, const void *body, size_t len,
                                      fl_ingest_sink *s, uint64_t *rows, fl_error *err);

#ifdef __cplusplus
}
#endif
#endif
