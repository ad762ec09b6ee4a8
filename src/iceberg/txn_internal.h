/*
 * txn_internal.h - the pieces of a transaction shared by txn.c (recording),
 * txn_commit.c (the optimistic commit loop), snapshot_produce.c (appends,
 * row deltas, manifest rewrites) and expire.c.
 *
 * A transaction is a list of operations. Nothing is computed against the
 * table when an operation is recorded (beyond argument checks); at commit,
 * every attempt starts from the latest metadata and asks each operation, in
 * order, to "build" its metadata updates against the metadata the previous
 * operations produced (at->cur). So appends always rebase, snapshot-management
 * operations re-check their preconditions, and row deltas validate what was
 * committed since their starting snapshot.
 *
 * Files: an operation may write files once and reuse them on every attempt
 * (new-file manifests, keyed to the operation's fixed snapshot id: op-owned,
 * deleted on abort or final failure); files that depend on the base (merged
 * or rewritten manifests, manifest lists, the metadata file) are
 * attempt-owned: deleted when that attempt fails with a conflict.
 */
#ifndef FLOE_TXN_INTERNAL_H
#define FLOE_TXN_INTERNAL_H

#include "floe/ice_table.h"

typedef struct txn_op txn_op;
typedef struct txn_attempt txn_attempt;

/* A list of file paths (strings in the arena given to the push call). */
typedef struct txn_paths {
    const char **v;
    uint32_t n, cap;
} txn_paths;
bool txn_paths_push(txn_paths *p, fl_arena *a, const char *path);

typedef struct txn_op_vt {
    const char *name;
    /* Emits the operation's updates for this attempt (txn_emit). FL_ECONFLICT
     * = a validation failed: the commit fails without retrying. */
    fl_status (*build)(fl_ice_txn *x, txn_op *op, txn_attempt *at, fl_error *err);
    /* Work after the commit landed (expire's file deletion); may be NULL. */
    fl_status (*after_commit)(fl_ice_txn *x, txn_op *op, const fl_ice_metadata *before,
                              const fl_ice_metadata *after, fl_error *err);
} txn_op_vt;

struct txn_op {
    const txn_op_vt *vt;
    void *state;         /* operation-specific, in the txn arena */
    int64_t snapshot_id; /* the snapshot it produces (fixed across attempts), 0 = none */
    txn_paths owned;     /* op-owned files (reused across attempts) */
};

struct txn_attempt {
    fl_arena arena;              /* freed after the attempt */
    const fl_ice_metadata *base; /* latest table metadata */
    fl_ice_metadata cur;         /* base + updates emitted so far */
    fl_ice_update *updates;
    uint32_t nupdates, capupdates;
    txn_paths files; /* attempt-owned files */
    uint32_t number; /* 0 for the first attempt */
    int64_t now_ms;
    int64_t last_snapshot_id; /* the newest snapshot emitted, 0 = none */
};

struct fl_ice_txn {
    fl_ice_table *t;
    fl_arena arena;     /* ops, their states and the caller's data-file structs */
    const char *branch; /* "main" unless set */
    /* the table as the txn began: validation and raw-update checks start here */
    int64_t start_snapshot_id; /* head of the branch (or main) at begin, -1 = none */
    int32_t start_last_column_id, start_schema_id, start_last_partition_id, start_spec_id,
        start_order_id;
    txn_op *ops;
    uint32_t nops, capops;
    txn_paths owned; /* files registered with fl_ice_txn_own_file() */
    /* txns whose operations fl_ice_txn_adopt moved here (their arenas hold
     * the operation states): malloc'd array, freed with x (txn_stage.c) */
    fl_ice_txn **adopted;
    uint32_t nadopted, capadopted;
    /* fl_ice_txn_set_snapshot_summary: extra summary entries for every
     * snapshot the txn produces (strings in arena) */
    fl_ice_map snapshot_summary;
    /* fl_ice_txn_set_validator: run on each attempt's base, before the
     * operations build */
    fl_ice_txn_validate_fn validator;
    void *validator_ctx;
    /* the view returned by fl_ice_txn_metadata() */
    fl_arena view_arena;
    fl_ice_metadata view;
    bool view_valid;
};

/* Deep copy of m into a (txn_copy.c); FL_ENOMEM. */
fl_status txn_metadata_copy(const fl_ice_metadata *m, fl_arena *a, fl_ice_metadata *out);
/* Deep copy of one update's payload into a. */
fl_status txn_update_copy(const fl_ice_update *in, fl_arena *a, fl_ice_update *out);

/* Frees x, its arenas and the txns it adopted (no file deletion). */
void txn_free(fl_ice_txn *x);

/* Adds an operation (state copied by the caller into x->arena). */
fl_status txn_add_op(fl_ice_txn *x, const txn_op_vt *vt, void *state, txn_op **out, fl_error *err);

/* Appends updates (copied) to the attempt and applies them to at->cur. */
fl_status txn_emit(txn_attempt *at, const fl_ice_update *u, uint32_t n, fl_error *err);

/* The head snapshot of the txn's branch in m (main's head when the branch
 * does not exist yet), or NULL. */
const fl_ice_snapshot *txn_branch_head(const fl_ice_txn *x, const fl_ice_metadata *m);

/* Emits add-snapshot + set-snapshot-ref(branch) for s (copied). */
fl_status txn_emit_snapshot(fl_ice_txn *x, txn_attempt *at, const fl_ice_snapshot *s,
                            fl_error *err);

/* Integer table property with a default; malformed values give the default. */
int64_t txn_prop_i64(const fl_ice_metadata *m, const char *key, int64_t dflt);
bool txn_prop_bool(const fl_ice_metadata *m, const char *key, bool dflt);

/* Milliseconds since the epoch. */
int64_t txn_now_ms(void);

/* Deletes each path (errors ignored: cleanup is best effort). */
void txn_delete_paths(fl_fileio *io, const txn_paths *p);

/* Writes buf as a new file at path (FL_EEXIST when it exists; txn_commit.c). */
fl_status txn_write_file(fl_fileio *io, const char *path, const char *buf, size_t len,
                         fl_error *err);

/* "<location>/metadata/<name>" in a (write.metadata.path when set). */
const char *txn_metadata_dir(const fl_ice_metadata *m, fl_arena *a);

/* Commit through a catalog whose server applies updates (commit_updates,
 * txn_server.c): requirements derived from at's updates against at->base
 * (or assert-create + the table's creation updates for a staged table).
 * On success *location and *final (in at->arena) are the server's. *conflict:
 * a requirement failed (retry); *unknown: the outcome is unknown. */
fl_status txn_server_commit(fl_ice_txn *x, txn_attempt *at, const char **location,
                            fl_ice_metadata *final, bool *conflict, bool *unknown, fl_error *err);
/* The requirements Java's UpdateRequirements.forUpdateTable derives for
 * updates u against base (arena a). */
fl_status txn_requirements_for(const fl_ice_metadata *base, const fl_ice_update *u, uint32_t n,
                               fl_arena *a, fl_ice_requirement **out, uint32_t *nout,
                               fl_error *err);

#endif
