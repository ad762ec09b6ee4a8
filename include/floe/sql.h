/*
 * sql.h - floe's embedded SQL engine: sessions, statements, results.
 *
 * DESIGN
 *   A session holds the settings of one user connection (catalog, default
 *   namespace, time zone, memory limit, threads) and runs one statement at a
 *   time. fl_sql_execute() parses, binds, plans and starts one statement and
 *   returns a result cursor; rows are pulled batch by batch (vector.h), so a
 *   large result streams without being materialized. DDL and DML run to
 *   completion inside fl_sql_execute() (each DML statement is one atomic
 *   Iceberg commit) and return a result with no columns and a command tag.
 *
 *   SQL follows PostgreSQL (grammar from libpg_query) with Trino's lakehouse
 *   additions: FOR VERSION AS OF / FOR TIMESTAMP AS OF, "t$snapshots"-style
 *   metadata tables, CREATE TABLE ... WITH (partitioning = ARRAY[...]),
 *   ALTER TABLE ... EXECUTE optimize|expire_snapshots|remove_orphan_files|
 *   rollback_to_snapshot, and the table functions read_parquet, read_csv,
 *   read_json and iceberg_scan.
 *
 * ERRORS
 *   Failures return a status and fill fl_error with a one-line message; SQL
 *   errors name the line and column ("line 3, column 14: column \"x\" does
 *   not exist"). fl_sql_error_info() gives the same position as a 1-based
 *   character offset and a PostgreSQL SQLSTATE for the wire protocol.
 *
 * THREADS AND OWNERSHIP
 *   A session is used by one thread at a time, except fl_sql_session_cancel()
 *   and fl_sql_session_progress(), which any thread may call. Execution
 *   itself may use several worker threads (options.threads). A result
 *   belongs to its session; several results may be open at once
 *   (wire-protocol portals and cursors), each reading its own snapshots, and
 *   fl_sql_session_close() closes any still open. fl_sql_session_cancel()
 *   cancels whichever statement is pulling. Batches returned by
 *   fl_sql_result_next() are owned by the result and valid until the next
 *   call. Everything the caller passes in is borrowed for the call only,
 *   except options.catalog and options.io, borrowed for the session's life.
 */
#ifndef FLOE_SQL_H
#define FLOE_SQL_H

#include "floe/export.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/catalog.h"
#include "floe/error.h"
#include "floe/io.h"
#include "floe/types.h"
#include "floe/vector.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A front end's extension of the SQL a session accepts (the semantic
 * layer's SQL API, floe/sem_sql.h). Borrowed for the session's life and
 * shared by sessions (read-only; rewrite must be thread-safe).
 *   rewrite: called with each statement's text before it is parsed. It
 *     sets *out (malloc'd) to the statement to run instead, or leaves it
 *     NULL to run the text as written. An error fails the statement with
 *     err's SQLSTATE and *position (1-based character offset; 0 = none).
 *     The rewritten statement is planned and authorized like any other.
 *   rels: relations the rewriter answers, listed as views in pg_catalog
 *     and information_schema (so BI tools see their columns). */
typedef struct fl_sql_virtual_rel {
    const char *nsp, *name;
    const fl_schema *cols;
    const char *definition; /* information_schema.views.view_definition */
} fl_sql_virtual_rel;

typedef struct fl_sql_extension {
    fl_status (*rewrite)(void *ctx, const char *sql, char **out, int32_t *position, fl_error *err);
    void *ctx;
    const fl_sql_virtual_rel *rels;
    uint32_t nrels;
} fl_sql_extension;

typedef struct fl_sql_options {
    /* Where tables live. Either an open catalog (borrowed) or a URI opened by
     * the session ("sqlite:PATH", "postgresql://...", "fs:PATH", "http://...").
     * Both NULL: no catalog; only table functions and VALUES work. */
    fl_catalog *catalog;
    const char *catalog_uri;
    const char *warehouse;         /* for catalog_uri; default ./warehouse */
    fl_fileio *io;                 /* borrowed; NULL = fl_fileio_default() owned by the session */
    const char *default_namespace; /* unqualified table names; default "default" */
    uint32_t threads;              /* worker threads; 0 = number of online CPUs */
    uint64_t memory_limit;         /* bytes for operator state before spilling; 0 = 80% of RAM */
    const char *spill_dir;         /* default $TMPDIR or /tmp */
    const char *time_zone;         /* session time zone (IANA name); default "UTC" */
    /* Borrowed for the session's life; NULL = the session makes a private one.
     * A server passes one cache to all its sessions (see below). */
    struct fl_sql_shared_cache *cache;
    /* Execution slots shared by a server's sessions (floe/sql_queue.h):
     * statements that read or change data wait their turn there. Borrowed;
     * NULL = they never wait. */
    struct fl_sql_queue *queue;
    /* Who runs the statements: current_user/session_user; NULL = "floe". */
    const char *user;
    /* Authorization (docs/security.md). NULL = an embedded, single-user
     * session: no checks (whoever runs the process owns its files). Set:
     * every object a statement touches (tables, views and what they read,
     * metadata tables, time-travel targets, table functions and their files,
     * procedures, namespaces, the catalog) is authorized with
     * fl_auth_authorize for `principal` (copied at open; required with auth)
     * before it is read or changed, and what cannot be decided is refused
     * (SQLSTATE 42501). Borrowed for the session's life. */
    struct fl_auth *auth;
    const struct fl_principal *principal;
    /* The operator's ceilings for this session (a server's, per role: see
     * fl_auth_limits_for). 0 = no ceiling. SET memory_limit and SET
     * statement_timeout past a ceiling are refused with 42501;
     * statement_timeout_ms is the session's default statement_timeout
     * (0 = none). spill_dir_fixed: SET spill_dir is refused (55P02); spill
     * files go only where options.spill_dir says. */
    uint64_t max_memory_limit;
    uint64_t max_statement_timeout_ms;
    uint64_t statement_timeout_ms;
    bool spill_dir_fixed;
    const fl_sql_extension *extension; /* NULL = none (see above) */
} fl_sql_options;

/* A cache shared by every session of a process (thread-safe, mutex inside):
 * parsed table metadata keyed by metadata-file location, decoded manifest
 * lists and manifests keyed by path, and Parquet footers keyed by path and
 * size. Every key names an immutable file, so an entry is never stale; a
 * table's current metadata location still comes from the catalog on every
 * statement, so commits by other processes are seen at once. Bounded by
 * max_bytes (LRU). Freed by its creator after every session using it. */
typedef struct fl_sql_shared_cache fl_sql_shared_cache;
FL_API fl_status fl_sql_shared_cache_new(size_t max_bytes, fl_sql_shared_cache **out,
                                         fl_error *err);
FL_API void fl_sql_shared_cache_free(fl_sql_shared_cache *c); /* NULL allowed */
typedef struct fl_sql_cache_stats {
    uint64_t hits, misses, bytes, entries;
} fl_sql_cache_stats;
FL_API void fl_sql_shared_cache_stats(const fl_sql_shared_cache *c, fl_sql_cache_stats *out);

typedef struct fl_sql_session fl_sql_session;
typedef struct fl_sql_result fl_sql_result;
typedef struct fl_sql_stmt fl_sql_stmt;

FL_API fl_status fl_sql_session_open(const fl_sql_options *opt, fl_sql_session **out,
                                     fl_error *err);
FL_API void fl_sql_session_close(fl_sql_session *s); /* NULL allowed */

/* SET name = value / SHOW name, also reachable from SQL. Known names:
 * memory_limit ("1GB"), threads, time_zone (alias TimeZone), search_path
 * (default namespace), statement_timeout (ms), spill_dir. */
FL_API fl_status fl_sql_set(fl_sql_session *s, const char *name, const char *value, fl_error *err);
/* Current value as text; NULL when unknown. Session-owned string.
 * Since round 5 every PostgreSQL setting floe reports (DateStyle,
 * server_version, is_superuser... : include/floe/sql_settings.h, the one
 * list behind SHOW, pg_settings and current_setting) is known here too;
 * FIXED ones refuse fl_sql_set; names with a dot are custom settings.
 * value NULL = RESET. */
FL_API const char *fl_sql_get(fl_sql_session *s, const char *name);
/* Sets a setting's session default: its value now and what RESET restores
 * (a server's per-connection values: application_name from the startup
 * packet, is_superuser, session_authorization, max_connections; FIXED
 * settings are allowed here). */
FL_API fl_status fl_sql_set_default(fl_sql_session *s, const char *name, const char *value,
                                    fl_error *err);
/* RESET ALL: every settable setting but search_path and spill_dir. */
FL_API fl_status fl_sql_reset_all(fl_sql_session *s, fl_error *err);

/* A file the embedding front end made for this session (pgwire's COPY FROM
 * STDIN spool), which table functions may then read whatever the
 * principal's grants: only this exact path, until the next call (NULL
 * clears). Not reachable from SQL. */
FL_API fl_status fl_sql_session_allow_file(fl_sql_session *s, const char *path, fl_error *err);

/* Asks the running statement to stop: it returns FL_ECANCELED soon (at the
 * next batch boundary). Thread-safe; a no-op when nothing runs. */
FL_API void fl_sql_session_cancel(fl_sql_session *s);

/* How far the statement running in a session has come: counters its scans
 * add to as they go (per file, row group or batch, never per row), reset
 * when the next statement starts. They cover the table and file scans of
 * the whole statement (a join's both sides, subqueries, the SELECT of an
 * INSERT or CREATE TABLE AS; ALTER TABLE ... EXECUTE optimize counts the
 * files it rewrites and their rows): files_total grows as each scan is
 * planned (Iceberg files left after partition and metrics pruning, the
 * files of read_parquet/read_csv/...), so it is final once every scan has
 * started.
 *   files_done    files read to their end (files_done <= files_total)
 *   rows_scanned  rows the scans read from their sources, before the
 *                 statement's filters (after deletes and pruning)
 *   bytes_read    bytes read from data files (Parquet and ORC columns,
 *                 CSV and JSON text)
 * Thread-safe like fl_sql_session_cancel: any thread may call it while
 * another runs fl_sql_execute / fl_sql_result_next (it only reads atomics);
 * zeros when nothing ran yet. s must stay open. */
typedef struct fl_sql_progress {
    uint64_t files_total, files_done, rows_scanned, bytes_read;
    /* statements the session started: a poller that noted it before a
     * statement knows the counters are that statement's once it changed */
    uint64_t statement;
} fl_sql_progress;
FL_API void fl_sql_session_progress(fl_sql_session *s, fl_sql_progress *out);

/* Splits a script into statements (semicolons outside quotes, comments and
 * dollar quotes). *starts and *lens are malloc'd arrays of byte offsets/lengths
 * into sql (caller frees both). */
FL_API fl_status fl_sql_split(const char *sql, uint32_t **starts, uint32_t **lens, uint32_t *n,
                              fl_error *err);

/* Parses, plans and starts exactly one statement (a trailing semicolon is
 * allowed). */
FL_API fl_status fl_sql_execute(fl_sql_session *s, const char *sql, fl_sql_result **out,
                                fl_error *err);

/* Prepared statements with $1..$n parameters (extended query protocol). */
FL_API fl_status fl_sql_prepare(fl_sql_session *s, const char *sql, fl_sql_stmt **out,
                                fl_error *err);
FL_API uint32_t fl_sql_stmt_nparams(const fl_sql_stmt *st);
/* Parameter type as inferred from context (FL_TYPE_STRING when unknown). */
FL_API const fl_type *fl_sql_stmt_param_type(const fl_sql_stmt *st, uint32_t i);
/* True when every parameter of st got its type from the statement (queries,
 * and DML whose parameters the planner typed); false when some are plain
 * text (their types are only FL_TYPE_STRING guesses). */
FL_API bool fl_sql_stmt_params_typed(const fl_sql_stmt *st);
/* Result columns (zero fields for statements without rows). */
FL_API const fl_schema *fl_sql_stmt_schema(const fl_sql_stmt *st);
/* Runs with one value per parameter (params[i].type is the bound value's
 * type; it is cast to the parameter's type). */
FL_API fl_status fl_sql_stmt_execute(fl_sql_stmt *st, const fl_value *params, uint32_t nparams,
                                     fl_sql_result **out, fl_error *err);
FL_API void fl_sql_stmt_close(fl_sql_stmt *st); /* NULL allowed */

/* ---- results ---- */

/* Result columns; nfields == 0 for DDL/DML. */
FL_API const fl_schema *fl_sql_result_schema(const fl_sql_result *r);

/* Next batch of rows. batch->sel is NULL (every row is live); vectors may be
 * in any encoding (read them through fl_vector_unify()). At the end *eof is
 * set and *batch is NULL. */
FL_API fl_status fl_sql_result_next(fl_sql_result *r, const fl_batch **batch, bool *eof,
                                    fl_error *err);

/* PostgreSQL command tag: "SELECT 42", "INSERT 0 3", "DELETE 7", "UPDATE 2",
 * "MERGE 5", "CREATE TABLE", "SET"... Complete after eof (SELECT counts). */
FL_API const char *fl_sql_result_tag(const fl_sql_result *r);
FL_API int64_t fl_sql_result_rows_affected(const fl_sql_result *r);

/* Answer receipts: the Iceberg snapshots this statement read (and, for
 * DML, the snapshot it committed). */
typedef struct fl_sql_table_read {
    const char *table;   /* "ns.name" or a path for iceberg_scan */
    int64_t snapshot_id; /* -1 for an empty table */
    bool written;        /* the snapshot this statement committed */
} fl_sql_table_read;
FL_API uint32_t fl_sql_result_nreads(const fl_sql_result *r);
FL_API const fl_sql_table_read *fl_sql_result_read(const fl_sql_result *r, uint32_t i);

/* The engine's record of what this statement touched and with which
 * privilege, as the authorizer was asked (also without auth). Complete once
 * fl_sql_execute / fl_sql_stmt_execute returned: for DDL and DML that is
 * after the commit; a query's objects are all resolved at planning. */
typedef enum fl_sql_object_kind {
    FL_SQL_OBJ_CATALOG = 1,   /* object "" */
    FL_SQL_OBJ_NAMESPACE = 2, /* object "a.b" */
    FL_SQL_OBJ_TABLE = 3,     /* object "a.b.t" (a table or a view: one securable) */
    FL_SQL_OBJ_FILES = 4,     /* object = a path or glob a table function read */
} fl_sql_object_kind;
typedef struct fl_sql_access {
    fl_sql_object_kind kind;
    uint32_t privilege; /* one fl_privilege (auth.h) */
    const char *object;
    const char *as_principal; /* whose rights were checked: the invoker, or a
                               * view's definer; NULL without auth */
} fl_sql_access;
FL_API uint32_t fl_sql_result_naccess(const fl_sql_result *r);
FL_API const fl_sql_access *fl_sql_result_access(const fl_sql_result *r, uint32_t i);

/* EXPLAIN ANALYZE-style text of the statement's plan with runtime counters
 * so far (rows, time, files and row groups pruned per scan). Result-owned. */
FL_API const char *fl_sql_result_profile(fl_sql_result *r);

/* The rows through the Arrow C Data Interface (floe/arrow.h), for language
 * bindings: the next batch as a struct ArrowArray the caller owns (release
 * it), and the result's columns as a struct ArrowSchema. At the end *eof is
 * set and out->release is NULL. Each batch's bytes are copied once, in bulk,
 * out of the operators' state (their vectors alias one another); the Arrow
 * arrays then own those buffers, with no per-value conversion. */
struct ArrowArray;
struct ArrowSchema;
FL_API fl_status fl_sql_result_next_arrow(fl_sql_result *r, struct ArrowArray *out, bool *eof,
                                          fl_error *err);
FL_API fl_status fl_sql_result_arrow_schema(const fl_sql_result *r, struct ArrowSchema *out,
                                            fl_error *err);

FL_API void fl_sql_result_close(fl_sql_result *r); /* NULL allowed */

/* ---- error details for the last failure on this session ---- */
typedef struct fl_sql_error_info {
    char sqlstate[6]; /* e.g. "42703" undefined column, "22012" division by zero */
    int32_t position; /* 1-based character offset in the statement text; 0 = none */
} fl_sql_error_info;
FL_API void fl_sql_last_error(const fl_sql_session *s, fl_sql_error_info *out);

/* The default SQLSTATE of a status and the table of codes: floe/errcodes.h. */

/* libpg_query's JSON parse tree of sql (PostgreSQL's grammar, without floe's
 * lakehouse syntax), parsed on a stack sized for the text; *json is
 * malloc'd (free it). FL_ESYNTAX when PostgreSQL's grammar rejects it,
 * FL_ELIMIT when it is nested too deeply to load safely (the engine then
 * reports 54001 with a position). For front ends that look at a statement
 * before running it (pgwire's classifier). */
FL_API fl_status fl_sql_pg_parse_json(const char *sql, char **json, fl_error *err);

/* Renders one value as PostgreSQL's text output format (1.50, 2024-01-02
 * 03:04:05.123456+00, t/f, \x0a0b for bytea, ...) into buf (NUL-terminated,
 * truncated at cap); returns the length needed. tz names the session time
 * zone for TIMESTAMPTZ. Shared by the shell, CSV/JSON output and pgwire. */
FL_API size_t fl_sql_format_value(const fl_vector *v, uint32_t row, const char *tz, char *buf,
                                  size_t cap);

/* The same value as JSON (null, true/false, numbers bare, text and dates as
 * strings of their text form, structs and maps as objects, lists as arrays):
 * what to_json, /v1/sql and `floe sql --format jsonl` print. */
FL_API size_t fl_sql_format_json(const fl_vector *v, uint32_t row, const char *tz, char *buf,
                                 size_t cap);

/* fl_sql_format_value with the time zone loaded once (fl_sql_format_value
 * reads the zone file on every timestamptz call): for printing many rows. */
typedef struct fl_sql_formatter fl_sql_formatter;
FL_API fl_status fl_sql_formatter_new(const char *time_zone, fl_sql_formatter **out, fl_error *err);
FL_API size_t fl_sql_formatter_value(const fl_sql_formatter *f, const fl_vector *v, uint32_t row,
                                     char *buf, size_t cap);
/* fl_sql_format_json with the formatter's zone: one value as JSON, the form
 * of `floe sql --format json`, `floe table cat --format jsonl` and /v1/sql. */
FL_API size_t fl_sql_formatter_json(const fl_sql_formatter *f, const fl_vector *v, uint32_t row,
                                    char *buf, size_t cap);
FL_API void fl_sql_formatter_free(fl_sql_formatter *f); /* NULL allowed */

/*
 * INTERVAL: types.h has no interval type, so the SQL layer represents one as
 * FL_TYPE_FIXED with fixed_len 16 and precision FL_SQL_INTERVAL_MARK; the 16
 * bytes are int32 months, int32 days, int64 microseconds (native byte
 * order), as PostgreSQL's interval. scale holds PostgreSQL's interval field
 * mask from the typmod (INTERVAL '90' DAY: 1 << 3), 0 = none. Intervals exist
 * only inside the engine (never in Iceberg tables). */
#define FL_SQL_INTERVAL_MARK 0x494e5456 /* 'INTV' */
static inline bool fl_type_is_interval(const fl_type *t)
{
    return t->id == FL_TYPE_FIXED && t->fixed_len == 16 && t->precision == FL_SQL_INTERVAL_MARK;
}

/* SQL spelling of a type for messages and pg catalogs: "integer", "bigint",
 * "numeric(15,2)", "text", "timestamp with time zone", ... */
FL_API const char *fl_sql_type_name(const fl_type *t, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
