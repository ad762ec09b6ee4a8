/*
 * ice_table.h - Iceberg tables: loading, creating, and changing them through
 * transactions that commit with optimistic concurrency.
 *
 * LAYERS
 *   1. Metadata updates and requirements (fl_ice_update, fl_ice_requirement):
 *      the vocabulary of the REST catalog's commit request. fl_ice_metadata_apply()
 *      turns base metadata + updates into new metadata exactly as the Java
 *      reference's TableMetadata.Builder does (ids -1 = last added, snapshot
 *      log, metadata log trimmed to write.metadata.previous-versions-max,
 *      last-updated-ms, sequence numbers checked). The REST server (issue 6)
 *      reuses this layer.
 *   2. Transactions (fl_ice_txn): operations (append, row delta, overwrite,
 *      replace, schema/spec/sort changes, properties, refs, rollback, expire)
 *      are recorded, then fl_ice_txn_commit() turns them into updates against
 *      the latest metadata, writes manifests, the manifest list and the new
 *      metadata file, and swaps the catalog pointer. On FL_ECONFLICT it
 *      refreshes and re-applies: appends always rebase; deletes, overwrites
 *      and replaces are first validated against what was committed since
 *      their base snapshot (write.delete.isolation-level / write.update...:
 *      serializable checks for new data files matching the conflict filter,
 *      snapshot only for concurrent deletes of the same files). Retries
 *      follow commit.retry.num-retries / min-wait-ms / max-wait-ms with
 *      jittered exponential backoff. Files written by a failed attempt are
 *      deleted; files of the successful attempt are never deleted.
 *   3. Writers (fl_ice_data_writer): batches in the table schema become
 *      Parquet data files split by partition (hidden partitioning: values
 *      derived by the transforms), sorted by the table's sort order, with
 *      metrics, ready for fl_ice_txn_append().
 *
 * INVARIANT: a commit is never lost and never half-applied. The only
 * mutation visible to readers is the catalog swap; everything before it is
 * unreferenced until then.
 *
 * Ownership: fl_ice_table owns its metadata (arena); free with
 * fl_ice_table_free(). A txn borrows its table (which it refreshes on
 * commit) and is freed by commit or abort. The catalog and FileIO are borrowed.
 */
#ifndef FLOE_ICE_TABLE_H
#define FLOE_ICE_TABLE_H

#include "floe/export.h"

#include <stdbool.h>
#include <stdint.h>

#include "floe/arena.h"
#include "floe/catalog.h"
#include "floe/error.h"
#include "floe/ice_manifest.h"
#include "floe/iceberg.h"
#include "floe/io.h"
#include "floe/predicate.h"
#include "floe/vector.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- 1. metadata updates -------------------------------------------------- */

typedef enum fl_ice_update_kind {
    FL_ICE_UPD_ASSIGN_UUID = 1,
    FL_ICE_UPD_UPGRADE_FORMAT_VERSION,
    FL_ICE_UPD_ADD_SCHEMA,
    FL_ICE_UPD_SET_CURRENT_SCHEMA, /* id -1 = last added */
    FL_ICE_UPD_ADD_SPEC,
    FL_ICE_UPD_SET_DEFAULT_SPEC, /* id -1 = last added */
    FL_ICE_UPD_ADD_SORT_ORDER,
    FL_ICE_UPD_SET_DEFAULT_SORT_ORDER, /* id -1 = last added */
    FL_ICE_UPD_ADD_SNAPSHOT,
    FL_ICE_UPD_SET_SNAPSHOT_REF,
    FL_ICE_UPD_REMOVE_SNAPSHOTS,
    FL_ICE_UPD_REMOVE_SNAPSHOT_REF,
    FL_ICE_UPD_SET_LOCATION,
    FL_ICE_UPD_SET_PROPERTIES,
    FL_ICE_UPD_REMOVE_PROPERTIES,
    FL_ICE_UPD_SET_STATISTICS,
    FL_ICE_UPD_REMOVE_STATISTICS,
    FL_ICE_UPD_REMOVE_PARTITION_SPECS,
    FL_ICE_UPD_REMOVE_SCHEMAS,
    FL_ICE_UPD_SET_PARTITION_STATISTICS,
    FL_ICE_UPD_REMOVE_PARTITION_STATISTICS,
    FL_ICE_UPD_ADD_ENCRYPTION_KEY,
    FL_ICE_UPD_REMOVE_ENCRYPTION_KEY,
} fl_ice_update_kind;

typedef struct fl_ice_update {
    fl_ice_update_kind kind;
    const char *uuid;            /* ASSIGN_UUID */
    int32_t format_version;      /* UPGRADE_FORMAT_VERSION */
    const fl_ice_schema *schema; /* ADD_SCHEMA */
    int32_t last_column_id;      /* ADD_SCHEMA (0 = derive from the schema) */
    int32_t id; /* SET_CURRENT_SCHEMA / SET_DEFAULT_SPEC / SET_DEFAULT_SORT_ORDER */
    const fl_ice_partition_spec *spec; /* ADD_SPEC (spec_id may be -1: assigned) */
    const fl_ice_sort_order *order;    /* ADD_SORT_ORDER (order_id may be -1: assigned) */
    const fl_ice_snapshot *snapshot;   /* ADD_SNAPSHOT */
    const fl_ice_ref *ref;             /* SET_SNAPSHOT_REF (name, snapshot id, type, retention) */
    const char *ref_name;              /* REMOVE_SNAPSHOT_REF */
    const int64_t *ids; /* REMOVE_SNAPSHOTS / REMOVE_PARTITION_SPECS / REMOVE_SCHEMAS */
    uint32_t nids;
    const char *location;        /* SET_LOCATION */
    fl_ice_map properties;       /* SET_PROPERTIES */
    const char *const *removals; /* REMOVE_PROPERTIES */
    uint32_t nremovals;
    const fl_ice_statistics_file *statistics; /* SET_STATISTICS */
    int64_t snapshot_id;                      /* REMOVE_STATISTICS / REMOVE_PARTITION_STATISTICS */
    const fl_ice_partition_statistics_file *partition_statistics; /* SET_PARTITION_STATISTICS */
    const fl_ice_encryption_key *encryption_key;                  /* ADD_ENCRYPTION_KEY */
    const char *key_id;                                           /* REMOVE_ENCRYPTION_KEY */
} fl_ice_update;

typedef enum fl_ice_requirement_kind {
    FL_ICE_REQ_ASSERT_CREATE = 1,
    FL_ICE_REQ_ASSERT_TABLE_UUID,
    FL_ICE_REQ_ASSERT_REF_SNAPSHOT_ID, /* has_snapshot_id false = the ref must not exist */
    FL_ICE_REQ_ASSERT_LAST_ASSIGNED_FIELD_ID,
    FL_ICE_REQ_ASSERT_CURRENT_SCHEMA_ID,
    FL_ICE_REQ_ASSERT_LAST_ASSIGNED_PARTITION_ID,
    FL_ICE_REQ_ASSERT_DEFAULT_SPEC_ID,
    FL_ICE_REQ_ASSERT_DEFAULT_SORT_ORDER_ID,
} fl_ice_requirement_kind;

typedef struct fl_ice_requirement {
    fl_ice_requirement_kind kind;
    const char *uuid;
    const char *ref;
    bool has_snapshot_id;
    int64_t snapshot_id;
    int32_t id; /* field id / schema id / partition id / spec id / sort order id */
} fl_ice_requirement;

/* FL_ECONFLICT naming the first requirement that base (NULL = no table yet)
 * does not meet. */
FL_API fl_status fl_ice_requirements_check(const fl_ice_metadata *base, const fl_ice_requirement *r,
                                           uint32_t n, fl_error *err);

/* Applies updates to base (NULL for a new table: the updates must build one)
 * giving *out in arena a. *out may point at memory of base and of the
 * updates (schemas, snapshots, strings are shared, never modified): both
 * must outlive it. base_location (the file base was read from) goes
 * into the metadata log. now_ms stamps last-updated-ms and log entries.
 * Invalid updates (unknown ids, a snapshot whose sequence number is not
 * above last-sequence-number, a v3 downgrade...) are FL_EINVAL naming the update. */
FL_API fl_status fl_ice_metadata_apply(const fl_ice_metadata *base, const char *base_location,
                                       const fl_ice_update *u, uint32_t n, int64_t now_ms,
                                       fl_arena *a, fl_ice_metadata *out, fl_error *err);

/* A random v4 UUID string ("xxxxxxxx-xxxx-4xxx-...") into buf[37]. */
FL_API void fl_ice_uuid4(char buf[37]);
/* A new positive random 63-bit snapshot id. */
FL_API int64_t fl_ice_new_snapshot_id(void);

/* ---- tables ----------------------------------------------------------------- */

typedef struct fl_ice_table {
    fl_catalog *catalog;           /* borrowed; NULL for a table opened by path (read-only) */
    fl_fileio *io;                 /* borrowed */
    fl_table_ident ident;          /* strings in arena */
    const char *metadata_location; /* in arena */
    fl_ice_metadata meta;          /* in arena */
    bool staged;                   /* created with stage_only and not committed yet */
    fl_arena arena;
    /* fl_ice_table_load_cached: the cache entry holding the metadata that
     * meta was loaded from (released by fl_ice_table_free), else NULL. */
    struct fl_ice_manifest_cache *shared_cache;
    struct fl_ice_cache_entry *shared;
} fl_ice_table;

FL_API fl_status fl_ice_table_load(fl_catalog *c, const fl_table_ident *id, fl_ice_table **out,
                                   fl_error *err);
/* fl_ice_table_load through a read cache (ice_scan.h): the catalog is still
 * asked for the current metadata location every time (commits by anyone are
 * seen at once), but the metadata file at that location is parsed once and
 * shared through the cache; the table holds the cache entry until
 * fl_ice_table_free (meta points into it; it is never modified). cache NULL,
 * or a catalog that sends metadata itself (REST), = fl_ice_table_load. */
FL_API fl_status fl_ice_table_load_cached(fl_catalog *c, const fl_table_ident *id,
                                          struct fl_ice_manifest_cache *cache, fl_ice_table **out,
                                          fl_error *err);
/* A table by path: a metadata file, or a table folder (metadata/version-hint.text,
 * else the newest metadata file by version number / mtime). Read-only. */
FL_API fl_status fl_ice_table_open_path(fl_fileio *io, const char *path, fl_ice_table **out,
                                        fl_error *err);
/* Re-reads the current metadata from the catalog. */
FL_API fl_status fl_ice_table_refresh(fl_ice_table *t, fl_error *err);
FL_API void fl_ice_table_free(fl_ice_table *t); /* NULL allowed */

/* Registers an existing metadata file under id (FL_EEXIST when taken). */
FL_API fl_status fl_ice_table_register(fl_catalog *c, const fl_table_ident *id,
                                       const char *metadata_location, fl_ice_table **out,
                                       fl_error *err);

typedef struct fl_ice_create_options {
    /* Columns; field ids are (re)assigned fresh as Java's TypeUtil.assignFreshIds
     * does: top-level fields 1..n in order, then nested fields breadth first. */
    const fl_schema *schema;
    const char *const *identifier_fields; /* column names, may be NULL */
    uint32_t nidentifier_fields;
    /* Partition fields in Trino's syntax: "col", "year(col)", "month(col)",
     * "day(col)", "hour(col)", "bucket(col, 16)" / "bucket(16, col)",
     * "truncate(col, 4)", "void(col)"; Spark's "days(col)" etc. also accepted. */
    const char *const *partition_by;
    uint32_t npartition_by;
    /* Sort fields: "col", "col DESC", "col ASC NULLS LAST", "bucket(col, 4) DESC". */
    const char *const *sort_by;
    uint32_t nsort_by;
    const fl_ice_map *properties; /* "format-version" selects 1/2/3 (default 2) */
    const char *location;         /* NULL = fl_catalog_default_location() */
    bool stage_only;              /* CTAS: nothing recorded until the first commit */
    /* The caller made location for this table alone, outside the warehouse
     * (a session's temporary table): not checked by fl_ice_location_check.
     * Never set it for a location a user chose. */
    bool private_location;
    /* write-default of each top-level column of schema as single-value JSON
     * (fl_ice_value_to_json), NULL entries for none; NULL = no defaults.
     * Format version 3 only; no initial-default (the table has no rows). */
    const char *const *write_defaults;
} fl_ice_create_options;

FL_API fl_status fl_ice_table_create(fl_catalog *c, const fl_table_ident *id,
                                     const fl_ice_create_options *opt, fl_ice_table **out,
                                     fl_error *err);

/* ---- Fresh ids of a new table (src/iceberg/fresh_ids.c) -------------------
 * The one id assignment of every create path (fl_ice_table_create, the REST
 * server's CreateTableRequest), as Java's TableMetadata.newTableMetadata:
 * field ids as TypeUtil.assignFreshIds (a struct's own fields take
 * consecutive ids first, then each field's type is visited in order: list
 * element; map key then value), from *last_id + 1; *last_id ends at the
 * highest assigned. out is a deep copy in a. */
FL_API fl_status fl_ice_fresh_schema_ids(const fl_schema *in, int32_t *last_id, fl_arena *a,
                                         fl_schema *out, fl_error *err);

typedef struct fl_ice_fresh_table {
    fl_ice_schema schema;       /* schema id 0, fresh field ids; extras and
                                   identifier-field-ids follow their fields */
    fl_ice_partition_spec spec; /* spec id 0, field ids 1000.. in order */
    fl_ice_sort_order order;    /* order id 1, or 0 (unsorted) without fields */
    int32_t last_column_id;
} fl_ice_fresh_table;

/* A requested schema, spec and order (spec/order NULL = unpartitioned /
 * unsorted) with the requester's ids, renumbered: source ids of partition and
 * sort fields are mapped old -> new. FL_EINVAL naming the element when an
 * identifier or source id is not a field of schema. Everything in a. */
FL_API fl_status fl_ice_fresh_table_ids(const fl_ice_schema *schema,
                                        const fl_ice_partition_spec *spec,
                                        const fl_ice_sort_order *order, fl_arena *a,
                                        fl_ice_fresh_table *out, fl_error *err);

/* Drops the table from the catalog; purge also deletes every file reachable
 * from its metadata (data, deletes, manifests, lists, metadata files) that
 * lies under the table's own location (fl_ice_table_drop_ex counts the
 * others, which are left). */
FL_API fl_status fl_ice_table_drop(fl_catalog *c, const fl_table_ident *id, bool purge,
                                   fl_error *err);
typedef struct fl_ice_drop_result {
    uint64_t files_deleted;
    uint64_t files_outside; /* referenced, but outside the table's prefix: kept */
} fl_ice_drop_result;
FL_API fl_status fl_ice_table_drop_ex(fl_catalog *c, const fl_table_ident *id, bool purge,
                                      fl_ice_drop_result *result, fl_error *err);

/* ---- Storage confinement (src/iceberg/confine.c; docs/security.md) -------
 * Every path that reaches the catalog (SQL, REST, CLI) checks locations here.
 *
 * A table or view location loc for identifier self in catalog c:
 * fl_catalog_location_check (warehouse or allowed roots, not a root, not
 * over the catalog database), then neither inside nor containing the
 * location of any other table or view of c. Cost: the namespaces are listed
 * recursively and every table's (view's) metadata file is read once, so
 * O(tables) reads; paid at create, register and location changes only.
 * A table whose metadata cannot be read is skipped (its location is
 * unknown). Catalogs whose server writes metadata (REST) are not checked
 * here: their server checks. FL_EFORBIDDEN naming both locations. */
FL_API fl_status fl_ice_location_check(fl_catalog *c, const fl_table_ident *self, const char *loc,
                                       fl_error *err);
/* write.data.path, write.metadata.path, write.object-storage.path and
 * write.folder-storage.path, when set, must lie inside m->location
 * (FL_EFORBIDDEN naming the property). */
FL_API fl_status fl_ice_write_paths_check(const fl_ice_metadata *m, fl_error *err);
/* The files the snapshots of after that before lacks bring in: each new
 * snapshot's manifest list, every manifest in it that its parent snapshot
 * does not list, and every data/delete file those manifests name, must lie
 * inside after->location (FL_EFORBIDDEN naming the file). Reads the new
 * manifest lists and manifests through io. before NULL = a new table. */
FL_API fl_status fl_ice_new_files_check(fl_fileio *io, const fl_ice_metadata *before,
                                        const fl_ice_metadata *after, fl_error *err);
/* A metadata change (a commit): when the location differs from base's (or
 * base is NULL), fl_ice_location_check; when the location or a write.*.path
 * property differs, fl_ice_write_paths_check. Values a table already had
 * are not re-checked (tables made before these rules keep working). */
FL_API fl_status fl_ice_change_check(fl_catalog *c, const fl_table_ident *id,
                                     const fl_ice_metadata *base, const fl_ice_metadata *after,
                                     fl_error *err);
/* Register: the metadata file must lie inside its table's location m, and
 * that location must pass fl_ice_location_check for id. */
FL_API fl_status fl_ice_register_check(fl_catalog *c, const fl_table_ident *id,
                                       const char *metadata_location, const fl_ice_metadata *m,
                                       fl_error *err);

/* Parses one partition/sort field of the syntax above against schema s. */
FL_API fl_status fl_ice_parse_partition_field(const char *text, const fl_ice_schema *s, fl_arena *a,
                                              fl_ice_partition_field *out, fl_error *err);
FL_API fl_status fl_ice_parse_sort_field(const char *text, const fl_ice_schema *s, fl_arena *a,
                                         fl_ice_sort_field *out, fl_error *err);

/* ---- 2. transactions -------------------------------------------------------- */

typedef struct fl_ice_txn fl_ice_txn;

FL_API fl_status fl_ice_txn_begin(fl_ice_table *t, fl_ice_txn **out, fl_error *err);
/* Commit to a branch instead of main (created from main's head if absent). */
FL_API fl_status fl_ice_txn_set_branch(fl_ice_txn *x, const char *branch, fl_error *err);
/* The metadata as the txn's own changes so far see it (for writers that need
 * the current schema/spec inside a txn). Valid until the next txn call. */
FL_API const fl_ice_metadata *fl_ice_txn_metadata(const fl_ice_txn *x);
/* The txn's arena: data-file structs handed to it may live here. */
FL_API fl_arena *fl_ice_txn_arena(fl_ice_txn *x);
/* Registers a file the caller wrote for this txn (e.g. a data file): it is
 * deleted when the txn aborts or its commit fails for good, never after a
 * successful commit. The path is copied. */
FL_API fl_status fl_ice_txn_own_file(fl_ice_txn *x, const char *path, fl_error *err);
/* Extra entries for the summary of every snapshot the txn produces (as
 * Spark's snapshot-property.*): e.g. a streaming writer's source positions,
 * committed atomically with its rows. Copied into the txn arena; replaces an
 * earlier call's entries. Keys the producer sets itself (added-records,
 * total-*, operation...) may not be used (FL_EINVAL). */
FL_API fl_status fl_ice_txn_set_snapshot_summary(fl_ice_txn *x, const fl_ice_map *extra,
                                                 fl_error *err);
/* A check run at the start of every commit attempt against that attempt's
 * base: the latest metadata (refreshed from the catalog after each CAS
 * conflict). A non-OK status ends the commit with that error, no retry, and
 * the attempt's files deleted; FL_ECONFLICT is the expected class (a
 * streaming writer fenced by a newer epoch). attempt counts from 0. ctx is
 * borrowed and must outlive the commit. */
typedef fl_status (*fl_ice_txn_validate_fn)(void *ctx, const fl_ice_metadata *base,
                                            uint32_t attempt, fl_error *err);
FL_API void fl_ice_txn_set_validator(fl_ice_txn *x, fl_ice_txn_validate_fn fn, void *ctx);
/* Adds raw metadata updates (schema/spec/sort/properties changes built by
 * the evolution helpers below, or by a REST request). */
FL_API fl_status fl_ice_txn_add_updates(fl_ice_txn *x, const fl_ice_update *u, uint32_t n,
                                        fl_error *err);

/* Appends data files (snapshot operation "append"). Fast append writes one
 * new manifest; with commit.manifest-merge.enabled=true (the default) small
 * manifests are merged up to commit.manifest.target-size-bytes once there
 * are commit.manifest.min-count-to-merge of them. */
FL_API fl_status fl_ice_txn_append(fl_ice_txn *x, const fl_ice_data_file *files, uint32_t n,
                                   fl_error *err);

/* The general row-level change: add data and delete files, remove data and
 * delete files (by path). operation is "overwrite", "delete" or "replace"
 * ("replace" = compaction: same rows, validated against concurrent deletes).
 * conflict_filter describes the rows the operation read (NULL = whole
 * table) for serializable validation. */
typedef struct fl_ice_row_delta {
    const char *operation;
    const fl_ice_data_file *add_data;
    uint32_t nadd_data;
    const fl_ice_data_file *add_deletes;
    uint32_t nadd_deletes;
    const char *const *remove_data;
    uint32_t nremove_data;
    const char *const *remove_deletes;
    uint32_t nremove_deletes;
    /* data files whose deletion vector (v3) is replaced by one in
     * add_deletes; DVs of removed data files go without being listed */
    const char *const *remove_dvs_of;
    uint32_t nremove_dvs_of;
    const fl_predicate *conflict_filter;
} fl_ice_row_delta;
FL_API fl_status fl_ice_txn_row_delta(fl_ice_txn *x, const fl_ice_row_delta *d, fl_error *err);

/* Metadata-only delete: removes every data file all of whose rows match
 * filter (strict evaluation). *partial receives the number of files that
 * match only partly (those need a row-level delete; see fl_ice_delete_where). */
FL_API fl_status fl_ice_txn_delete_files_where(fl_ice_txn *x, const fl_predicate *filter,
                                               uint64_t *removed, uint64_t *partial, fl_error *err);

/* Rewrites the current snapshot's manifests into ones of about
 * commit.manifest.target-size-bytes, clustered by partition (operation "replace"). */
FL_API fl_status fl_ice_txn_rewrite_manifests(fl_ice_txn *x, fl_error *err);

/* Snapshot management (no new snapshot). */
FL_API fl_status fl_ice_txn_set_current_snapshot(fl_ice_txn *x, int64_t snapshot_id, fl_error *err);
/* Rollback: snapshot_id must be an ancestor of the current snapshot. */
FL_API fl_status fl_ice_txn_rollback_to(fl_ice_txn *x, int64_t snapshot_id, fl_error *err);
/* The last ancestor snapshot committed at or before timestamp_ms. */
FL_API fl_status fl_ice_txn_rollback_to_time(fl_ice_txn *x, int64_t timestamp_ms, fl_error *err);
FL_API fl_status fl_ice_txn_create_ref(fl_ice_txn *x, const char *name, bool is_tag,
                                       int64_t snapshot_id,
                                       fl_error *err); /* snapshot_id -1 = current */
FL_API fl_status fl_ice_txn_remove_ref(fl_ice_txn *x, const char *name, fl_error *err);
FL_API fl_status fl_ice_txn_set_properties(fl_ice_txn *x, const fl_ice_map *set,
                                           const char *const *remove, uint32_t nremove,
                                           fl_error *err);

/* Expires snapshots older than older_than_ms (-1 = history.expire.max-snapshot-age-ms)
 * keeping at least retain_last (0 = history.expire.min-snapshots-to-keep) and
 * every snapshot a ref reaches within its retention. After the commit lands,
 * deletes manifest lists, manifests, data and delete files that no remaining
 * snapshot reaches. */
typedef struct fl_ice_expire_result {
    uint64_t snapshots_expired;
    uint64_t manifest_lists_deleted, manifests_deleted, data_files_deleted, delete_files_deleted;
    uint64_t files_outside; /* unreachable, but outside the table's prefix: kept */
} fl_ice_expire_result;
FL_API fl_status fl_ice_txn_expire_snapshots(fl_ice_txn *x, int64_t older_than_ms,
                                             uint32_t retain_last, fl_ice_expire_result *result,
                                             fl_error *err);

/* Commits; on success *snapshot_id (may be NULL) gets the new snapshot id (or
 * the current one when the txn made none) and the table is refreshed. Frees x. */
FL_API fl_status fl_ice_txn_commit(fl_ice_txn *x, int64_t *snapshot_id, fl_error *err);
FL_API void fl_ice_txn_abort(fl_ice_txn *x); /* deletes files it wrote; NULL allowed */

/* ---- 2b. staging: transactions spanning several statements ------------------
 * A SQL transaction block (BEGIN ... COMMIT) records each statement in its
 * own txn, moves the statement's operations into one combined txn per table
 * (fl_ice_txn_adopt) and, after each statement, builds a *preview* of the
 * combined txn: the operations built exactly as a commit attempt would, the
 * resulting metadata written to a private metadata file that no catalog
 * points at (fl_ice_txn_preview). Marks let a savepoint drop the operations
 * recorded after it (fl_ice_txn_truncate). */

/* Number of operations recorded in x. */
FL_API uint32_t fl_ice_txn_nops(const fl_ice_txn *x);
/* Begins a txn on t that validates from where `like` began (its branch and
 * the snapshot/schema/spec/sort order it started from), for a combined txn
 * whose first statement read an older version of t. */
FL_API fl_status fl_ice_txn_begin_like(fl_ice_table *t, const fl_ice_txn *like, fl_ice_txn **out,
                                       fl_error *err);
/* Moves from's operations (with their snapshot ids) and owned files to the
 * end of x, and takes from in every case: x frees it when x is freed (the
 * operation states live in from's arena); on failure from is aborted. from
 * must not have been committed (a statement's txn, recorded only). */
FL_API fl_status fl_ice_txn_adopt(fl_ice_txn *x, fl_ice_txn *from, fl_error *err);

/* A position in x's history: operations, owned files and adopted txns. */
typedef struct fl_ice_txn_mark {
    uint32_t nops, nowned, nadopted;
} fl_ice_txn_mark;
FL_API fl_ice_txn_mark fl_ice_txn_get_mark(const fl_ice_txn *x);
/* Drops what x recorded after m: later operations (deleting the files they
 * wrote), later owned files (deleted) and later adopted txns (freed). */
FL_API void fl_ice_txn_truncate(fl_ice_txn *x, fl_ice_txn_mark m);

/* Called with each file a preview writes, before writing it: the caller
 * deletes them once the preview is not needed (fl_fileio_remove). */
typedef fl_status (*fl_ice_file_fn)(void *ctx, const char *path, fl_error *err);
typedef struct fl_ice_preview {
    const char *location; /* the private metadata file; NULL = nothing changed */
    fl_ice_metadata meta; /* the previewed metadata (valid when location is set) */
    int64_t snapshot_id;  /* the newest snapshot built, -1 = none */
} fl_ice_preview;
/* Builds operations from_op.. of x on top of base (whose metadata file is
 * base_location: the table's committed metadata or an earlier preview) and,
 * when they changed anything, writes the result as
 * "<metadata dir>/floe-staged-<uuid>.metadata.json". out's strings and
 * metadata live in a (caller's arena). Nothing is committed: the operations'
 * new-file manifests are written once and reused by the real commit, the
 * other files (manifest lists, merged manifests, the metadata file) go
 * through on_file. */
FL_API fl_status fl_ice_txn_preview(fl_ice_txn *x, uint32_t from_op, const fl_ice_metadata *base,
                                    const char *base_location, fl_ice_file_fn on_file, void *ctx,
                                    fl_arena *a, fl_ice_preview *out, fl_error *err);

/* Deletes files under the table location that no metadata file, snapshot,
 * manifest list or manifest reaches and that are older than older_than_ms
 * (default now - 3 days). dry_run lists without deleting. fn (may be NULL)
 * sees every orphan path. Confined (orphans.c): only <location>/data/ and
 * <location>/metadata/ (and write.data.path / write.metadata.path inside the
 * location) are listed, only names Iceberg writers produce are candidates,
 * and files of other tables nested there or protected by the catalog are
 * never touched; FL_EFORBIDDEN when the table's location itself fails
 * fl_catalog_location_check (outside the warehouse, a root, over the
 * catalog database). */
FL_API fl_status fl_ice_remove_orphan_files(fl_ice_table *t, int64_t older_than_ms, bool dry_run,
                                            void (*fn)(void *ctx, const char *path), void *ctx,
                                            uint64_t *count, fl_error *err);

/* ---- maintenance (src/iceberg/maintain.c) ------------------------------------
 * One pass over a table, each step in its own commit: compaction (small
 * files or delete files), snapshot expiry, manifest rewrite and, when
 * orphans is set, orphan removal. The policy comes from the table's
 * properties (fl_ice_maintain_policy_of). A step that loses a race is
 * reported in conflict and retried by the next pass. */
typedef struct fl_ice_maintain_policy {
    bool enabled;             /* floe.maintenance.enabled (default true) */
    uint32_t min_input_files; /* floe.maintenance.min-input-files: small files to compact (5) */
    bool rewrite_deletes;     /* floe.maintenance.rewrite-deletes: any delete file compacts (true) */
    uint32_t max_manifests;   /* floe.maintenance.max-manifests: more are rewritten (100) */
    int64_t orphan_age_ms;    /* floe.maintenance.orphan-age-ms (3 days; <= 0 never) */
    /* expiry: history.expire.max-snapshot-age-ms and min-snapshots-to-keep (expire.c) */
} fl_ice_maintain_policy;
FL_API void fl_ice_maintain_policy_of(const fl_ice_metadata *m, fl_ice_maintain_policy *p);

typedef struct fl_ice_maintain_result {
    bool disabled; /* floe.maintenance.enabled=false: nothing done */
    uint64_t files_rewritten, files_added;
    uint64_t snapshots_expired;
    bool manifests_rewritten;
    uint64_t orphans_removed;
    char conflict[512]; /* the first step that lost a race, and why; "" none */
} fl_ice_maintain_result;
FL_API fl_status fl_ice_maintain_table(fl_catalog *c, const fl_table_ident *id, bool orphans,
                                       fl_ice_maintain_result *r, fl_error *err);
/* fl_ice_maintain_table over every table of every namespace (nested ones
 * too); report sees each table's result, or its error (r NULL): one
 * table's failure does not stop the others. Errors listing the catalog
 * are returned. */
typedef void (*fl_ice_maintain_report_fn)(void *ctx, const fl_table_ident *id,
                                          const fl_ice_maintain_result *r, const fl_error *e);
FL_API fl_status fl_ice_maintain_catalog(fl_catalog *c, bool orphans,
                                         fl_ice_maintain_report_fn report, void *ctx,
                                         fl_error *err);

/* ---- schema, partition and sort evolution (recorded in a txn) -------------- */

/* Column paths are dotted ("a", "s.x"). New field ids come from
 * last-column-id + 1. Type changes must be spec promotions (int->long,
 * float->double, decimal(P,S)->decimal(P',S) with P'>P, and v3
 * date->timestamp). initial_default/write_default are JSON text or NULL. */
FL_API fl_status fl_ice_txn_add_column(fl_ice_txn *x, const char *parent, const char *name,
                                       const fl_type *type, bool nullable, const char *doc,
                                       const char *initial_default, fl_error *err);
FL_API fl_status fl_ice_txn_drop_column(fl_ice_txn *x, const char *path, fl_error *err);
FL_API fl_status fl_ice_txn_rename_column(fl_ice_txn *x, const char *path, const char *new_name,
                                          fl_error *err);
FL_API fl_status fl_ice_txn_update_column_type(fl_ice_txn *x, const char *path, const fl_type *type,
                                               fl_error *err);
FL_API fl_status fl_ice_txn_make_column_optional(fl_ice_txn *x, const char *path, fl_error *err);
FL_API fl_status fl_ice_txn_set_column_default(fl_ice_txn *x, const char *path,
                                               const char *write_default, fl_error *err);
/* Moves path first (after NULL, first=true) or after another column of the same struct. */
FL_API fl_status fl_ice_txn_move_column(fl_ice_txn *x, const char *path, const char *after,
                                        bool first, fl_error *err);
FL_API fl_status fl_ice_txn_set_identifier_fields(fl_ice_txn *x, const char *const *paths,
                                                  uint32_t n, fl_error *err);
/* Partition evolution: a new default spec with the field added/removed. */
FL_API fl_status fl_ice_txn_add_partition_field(fl_ice_txn *x, const char *text, fl_error *err);
FL_API fl_status fl_ice_txn_remove_partition_field(fl_ice_txn *x, const char *name_or_text,
                                                   fl_error *err);
FL_API fl_status fl_ice_txn_set_sort_order(fl_ice_txn *x, const char *const *sort_by, uint32_t n,
                                           fl_error *err);

/* ---- 3. writers ------------------------------------------------------------- */

typedef struct fl_ice_data_writer fl_ice_data_writer;

/* Writes batches in the txn's current table schema (columns by position) as
 * Parquet data files under <location>/data/ (write.data.path), split by the
 * default spec's partition values and sorted by the default sort order
 * (within each file), rolling at write.target-file-size-bytes. Codec from
 * write.parquet.compression-codec (default zstd). */
FL_API fl_status fl_ice_data_writer_open(fl_ice_txn *x, fl_ice_data_writer **out, fl_error *err);
FL_API fl_status fl_ice_data_writer_write(fl_ice_data_writer *w, const fl_batch *b, fl_error *err);
/* The schema batches must match (the table schema as fl_schema: columns by
 * position, shapes equal; names and nested field ids may differ). */
FL_API const fl_schema *fl_ice_data_writer_schema(const fl_ice_data_writer *w);
/* Finishes every open file; *files (in the txn arena) lists them. Frees w. */
FL_API fl_status fl_ice_data_writer_close(fl_ice_data_writer *w, fl_ice_data_file **files,
                                          uint32_t *n, fl_error *err);
FL_API void fl_ice_data_writer_abort(fl_ice_data_writer *w); /* deletes its files; NULL allowed */

/* n writers for one transaction that n threads may use at the same time,
 * writer i by one thread only (src/iceberg/data_writers.c): each opens on
 * its first batch (a thread given no rows writes no file), sorted writes
 * share the sort buffer between them, and every file is registered with
 * x as a single writer's are. close finishes every writer and lists all
 * their files in *files, owned by the set: free the set after x commits
 * or aborts (free deletes the files of writers never closed). */
typedef struct fl_ice_data_writers fl_ice_data_writers;
FL_API fl_status fl_ice_data_writers_open(fl_ice_txn *x, uint32_t n, fl_ice_data_writers **out,
                                          fl_error *err);
FL_API fl_status fl_ice_data_writers_write(fl_ice_data_writers *s, uint32_t i, const fl_batch *b,
                                           fl_error *err);
FL_API fl_status fl_ice_data_writers_close(fl_ice_data_writers *s, fl_ice_data_file **files,
                                           uint32_t *n, fl_error *err);
FL_API void fl_ice_data_writers_free(fl_ice_data_writers *s); /* NULL allowed */

/* Row-level delete of rows matching filter, committed by the txn:
 * whole-file matches are removed from metadata; partly matching files get
 * position delete files (write.delete.mode=merge-on-read, the default) or
 * are rewritten without the rows (copy-on-write). *deleted gets the row count. */
FL_API fl_status fl_ice_delete_where(fl_ice_txn *x, const fl_predicate *filter, int64_t *deleted,
                                     fl_error *err);

/* Row positions to delete, by data file (sorted positions). */
typedef struct fl_ice_file_positions {
    const char *file_path;
    const int64_t *positions;
    uint64_t npositions;
} fl_ice_file_positions;
/* Deletes those rows as merge-on-read (position delete files) or
 * copy-on-write, per write.delete.mode (or write.update.mode when for_update). */
FL_API fl_status fl_ice_delete_positions(fl_ice_txn *x, const fl_ice_file_positions *d, uint32_t n,
                                         bool for_update, fl_error *err);

/* Deletes the rows at positions d (as fl_ice_delete_positions) and adds
 * files in the same snapshot (a row delta "overwrite", as Java's RowDelta
 * for UPDATE/MERGE). With no positions the files are a plain append. */
FL_API fl_status fl_ice_delete_positions_append(fl_ice_txn *x, const fl_ice_file_positions *d,
                                                uint32_t n, bool for_update,
                                                const fl_ice_data_file *files, uint32_t nfiles,
                                                fl_error *err);

/* Equality delete files (src/iceberg/eq_delete_writer.c): writes rows (a
 * batch whose fields carry the table's field ids; extra columns allowed) as
 * one equality delete file scoped to spec_id + partition (an unpartitioned
 * spec makes it global). equality_ids name top-level primitive columns.
 * *out is the entry (strings in a), ready for fl_ice_row_delta.add_deletes. */
typedef struct fl_ice_eq_delete_spec {
    int32_t spec_id;
    const fl_value *partition; /* npartition values in spec field order */
    uint32_t npartition;
    const int32_t *equality_ids;
    uint32_t nequality_ids;
} fl_ice_eq_delete_spec;
FL_API fl_status fl_ice_write_equality_deletes(fl_fileio *io, const fl_ice_metadata *m,
                                               const fl_ice_eq_delete_spec *d, const fl_batch *rows,
                                               fl_arena *a, fl_ice_data_file *out, fl_error *err);

/* Overwrite by filter: deletes rows matching filter (as fl_ice_delete_where)
 * and appends the files in one snapshot (operation "overwrite"). */
FL_API fl_status fl_ice_overwrite_where(fl_ice_txn *x, const fl_predicate *filter,
                                        const fl_ice_data_file *files, uint32_t n, fl_error *err);

/* Compaction: rewrites the data files of the current snapshot (those
 * smaller than target_bytes / have deletes, all when force) into files of
 * write.target-file-size-bytes with deletes applied (operation "replace"). */
FL_API fl_status fl_ice_rewrite_data_files(fl_ice_txn *x, bool force, uint64_t *rewritten,
                                           uint64_t *added, fl_error *err);

/* fl_ice_rewrite_data_files with options: force, and a progress callback
 * called on the calling thread once the files to rewrite are chosen
 * (files_done 0) and after each one is rewritten (files_done of
 * files_total, rows written so far), before the commit is staged; not
 * called when nothing is to be rewritten. fl_ice_rewrite_data_files(x, f,
 * ...) is this with {.force = f}. */
typedef struct fl_ice_rewrite_progress {
    uint64_t files_done, files_total, rows_written;
} fl_ice_rewrite_progress;
typedef struct fl_ice_rewrite_options {
    bool force; /* every data file, not only small ones and ones with deletes */
    void (*progress)(void *ctx, const fl_ice_rewrite_progress *p); /* NULL = none */
    void *progress_ctx;
} fl_ice_rewrite_options;
FL_API fl_status fl_ice_rewrite_data_files_ex(fl_ice_txn *x, const fl_ice_rewrite_options *opt,
                                              uint64_t *rewritten, uint64_t *added, fl_error *err);

#ifdef __cplusplus
}
#endif
#endif
