/*
 * produce_internal.h - shared machinery of the snapshot-producing operations
 * (snapshot_produce.c: manifests, merging, manifest list, summary;
 * produce_ops.c: append, row delta, delete-files-where, rewrite-manifests;
 * produce_validate.c: conflict validation against concurrent snapshots).
 */
#ifndef FLOE_PRODUCE_INTERNAL_H
#define FLOE_PRODUCE_INTERNAL_H

#include "floe/ice_scan.h"
#include "iceberg/txn_internal.h"

/* A manifest in the new snapshot's list, with its entries when this
 * snapshot wrote it (NULL otherwise: read them from the file when needed). */
typedef struct prod_manifest {
    fl_ice_manifest_file mf;
    const fl_ice_manifest_entry *entries; /* ADDED/DELETED/EXISTING, or NULL */
    uint32_t nentries;
    bool is_new; /* written by this operation */
} prod_manifest;

typedef struct prod_list {
    prod_manifest *v;
    uint32_t n, cap;
} prod_list;
bool prod_list_push(prod_list *l, fl_arena *a, const prod_manifest *m);

/* Summary counters (Java's SnapshotSummary.UpdateMetrics). */
typedef struct prod_metrics {
    int64_t added_files, removed_files, added_records, deleted_records, added_size, removed_size;
    int64_t added_delete_files, removed_delete_files, added_pos_delete_files,
        removed_pos_delete_files, added_eq_delete_files, removed_eq_delete_files, added_dvs,
        removed_dvs;
    int64_t added_pos_deletes, removed_pos_deletes, added_eq_deletes, removed_eq_deletes;
    /* distinct partitions touched: keys in an arena array */
    const char **partitions;
    uint32_t npartitions, cappartitions;
} prod_metrics;

fl_status prod_metrics_add(prod_metrics *pm, fl_arena *a, const fl_ice_data_file *f, bool added,
                           fl_error *err);

/* The state every producing operation shares. */
typedef struct prod_state {
    const char *operation; /* "append", "overwrite", "delete", "replace" */
    fl_ice_data_file *add_data;
    uint32_t nadd_data;
    fl_ice_data_file *add_deletes;
    uint32_t nadd_deletes;
    /* new-file manifests: written on the first attempt, reused afterwards */
    bool written;
    prod_manifest *new_manifests;
    uint32_t nnew;
} prod_state;

/* Writes the op's new-file manifests once (op-owned). */
fl_status prod_write_new(fl_ice_txn *x, txn_op *op, prod_state *ps, txn_attempt *at, fl_error *err);

/* A fresh manifest path in the metadata dir (arena string). */
const char *prod_manifest_path(const fl_ice_metadata *m, fl_arena *a, const char *suffix);

/* Writes entries as one manifest (attempt-owned) into *out. */
fl_status prod_write_manifest(fl_ice_txn *x, txn_attempt *at, int64_t snapshot_id, int32_t spec_id,
                              fl_ice_manifest_content content,
                              const fl_ice_manifest_entry *const *entries, uint32_t n,
                              prod_manifest *out, fl_error *err);

/* Reads the entries of pm (from memory when new). */
fl_status prod_entries(fl_fileio *io, const fl_ice_metadata *m, const prod_manifest *pm,
                       fl_arena *a, const fl_ice_manifest_entry **out, uint32_t *n, fl_error *err);

/* Merges small manifests per commit.manifest-merge.* (in place on *l). */
fl_status prod_merge(fl_ice_txn *x, txn_attempt *at, int64_t snapshot_id, prod_list *l,
                     fl_error *err);

/* Writes the manifest list of l and emits the snapshot with its summary. */
fl_status prod_commit_snapshot(fl_ice_txn *x, txn_attempt *at, int64_t snapshot_id,
                               const char *operation, const prod_list *l, const prod_metrics *pm,
                               const fl_ice_map *extra_summary, fl_error *err);

/* Validation of a row delta against snapshots committed since the txn began
 * (produce_validate.c). */
typedef struct prod_validation {
    bool check_added_data;      /* serializable: concurrent data files matching filter conflict */
    bool check_added_deletes;   /* concurrent delete files touching rows/files we change conflict */
    const fl_predicate *filter; /* NULL = whole table */
    const char *const *removed; /* sorted paths (data and delete files) we remove */
    uint32_t nremoved;
    const char *const *referenced; /* sorted data files our new position deletes reference */
    uint32_t nreferenced;
} prod_validation;
fl_status prod_validate(fl_ice_txn *x, txn_attempt *at, const prod_validation *v, fl_error *err);

/* Sorted-path helpers. */
void prod_sort_paths(const char **v, uint32_t n);
bool prod_has_path(const char *const *v, uint32_t n, const char *path);
int64_t prod_path_index(const char *const *v, uint32_t n, const char *path); /* -1 = absent */

#endif
