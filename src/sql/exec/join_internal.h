/*
 * join_internal.h - state shared by op_join.c (hash join build and probe)
 * and op_join_grace.c (grace hash join: partitions spilled to disk).
 * Private to src/sql/exec/.
 *
 * A join_table is one hash table over build rows: the in-memory join has one
 * shared by every prober; in grace mode each probing thread owns the table
 * of the partition it is processing.
 */
#ifndef FLOE_SQL_EXEC_JOIN_INTERNAL_H
#define FLOE_SQL_EXEC_JOIN_INTERNAL_H

#include "sql/exec/exec_internal.h"

#define JG_FANOUT 64    /* partitions per level (6 hash bits) */
#define JG_BITS 6
#define JG_MAX_LEVEL 5  /* bits 63..34; the table's buckets use the low bits */

/* Chunk arena of a join's build rows (join_rows.c). */
typedef struct join_mem {
    uint8_t **chunks;
    uint32_t n, cap;
    uint8_t *cur;  /* free space of the last chunk */
    size_t left;
    size_t next;   /* size of the next chunk */
    uint64_t bytes; /* chunk bytes, counted in fl_exec.mem_used */
} join_mem;

/* One build row's hash-table entry, indexed by its row id g (batch *
 * FL_BATCH_CAP + row). Walking a chain reads only entries: the key (packed)
 * or the full hash (generic) sits next to the link. */
typedef struct join_ent {
    uint64_t key;  /* the packed key (join_table.packed) or the row's 64-bit hash */
    uint32_t next; /* next row id + 1 in the bucket's chain; 0 = end */
    uint32_t pad;
} join_ent;

typedef struct join_table {
    ex_rows build;    /* wide rows: build columns then evaluated key columns */
    join_mem mem;     /* build's column buffers (ex_jrows_*) */
    join_ent *ents;   /* per build row id */
    /* bucket -> (32 tag bits: one bit per chained row's hash) << 32 | first
     * row id + 1; a probe whose tag bit is clear skips the chain unread */
    _Atomic uint64_t *heads;
    uint64_t mask;
    bool packed; /* keys compared as one uint64 (JK_* of join_state.pack) */
    atomic_uchar *matched; /* per build row id, for build-side outer joins */
    bool has_null_key;     /* a build row with a NULL (non null-safe) key */
    uint64_t nbuild;
    uint64_t bytes; /* accounted for heads/ents/matched */
} join_table;

/* One grace partition: its build rows (wide layout) and probe rows (probe
 * columns then evaluated probe keys), each a spill file. */
typedef struct grace_part {
    ex_spill b, p;
    atomic_ullong brows, prows;
    int level;
    bool nosplit; /* repartitioning did not divide it: load it as it is */
} grace_part;

typedef struct join_state {
    fl_join_type type;
    bool build_left;
    uint32_t bi, pi; /* child index of build / probe */
    uint32_t nb, np; /* columns of build / probe children */
    uint32_t nkeys;
    fl_expr **bkeys, **pkeys;
    const bool *null_safe;
    const fl_schema *wide;  /* build columns + build keys */
    const fl_schema *pwide; /* probe columns + probe keys (grace) */
    join_table mem;         /* the in-memory table */
    bool any_build, any_null_key; /* over the whole build side (MARK) */
    atomic_int probers;     /* in-memory ops still probing */
    ex_rows *locals;
    join_mem *lmem; /* per thread: the locals' buffers */
    ex_exprs *lkeys;
    uint32_t nlocals;
    bool build_outer, probe_outer;
    /* SEMI/ANTI building the left (outer) side: probe rows only set the
     * build rows' matched flags; matched (SEMI) / unmatched (ANTI) build
     * rows are emitted at the end, like a build-outer join's */
    bool build_semi;
    /* fast key compare: one fixed-width key of this many bytes (0 = generic) */
    uint32_t key_width;
    /* packed keys: JK_ONE = one 4/8-byte integer-like key (always packed);
     * JK_TWO = two such keys, packed as two int32 halves when every build
     * key value fits in an int32 (decided per table); JK_NONE = generic */
    enum { JK_NONE, JK_ONE, JK_TWO } pack;
    uint8_t kw[2]; /* the packed keys' widths (4 or 8) */
    /* output list (plan u.join.out_cols; NULL = the full layout): the join
     * works in its full layout (left ++ right; left for SEMI/ANTI; probe +
     * mark for MARK) and hands out a view of these columns */
    const uint32_t *outc;
    uint32_t nout;
    const fl_schema *full; /* the full layout */
    bool *oneed;           /* per full output column: filled (in the list) */
    bool *gneed;           /* per pairs (left ++ right) column: gathered */
    /* grace */
    uint64_t budget;        /* bytes of build rows a thread may hold */
    atomic_int spilling;
    atomic_bool g_null_key; /* a spilled build row with a NULL key */
    atomic_ullong g_rows;   /* spilled build rows */
    bool grace;             /* partitions are ready: ops process them */
    grace_part *top[JG_FANOUT];
    pthread_mutex_t top_mu[JG_FANOUT];
    bool mu_inited;
    fl_batch *stage;        /* threads * JG_FANOUT staging batches (build, then probe) */
    bool *flushed;          /* per thread: locals moved to partitions */
    pthread_mutex_t qmu;
    grace_part **queue;
    uint32_t nqueue, capqueue;
    grace_part **all; /* every partition, for cleanup */
    uint32_t nall, capall;
} join_state;

/* op_join.c */
bool ex_join_key_null(const join_state *st, const fl_unified *ku, uint32_t row);
/* Builds t's table over t->build (on the executor's threads when parallel). */
fl_status ex_join_build_table(fl_exec *x, const join_state *st, join_table *t, bool parallel,
                              fl_error *err);
void ex_join_table_free(fl_exec *x, join_table *t);

/* join_rows.c */
/* Appends the live rows of cols (nrows rows, sel) to r, buffers from m. */
fl_status ex_jrows_append(fl_exec *x, join_mem *m, ex_rows *r, const fl_vector *const *cols,
                          uint32_t nrows, const fl_sel *sel, fl_error *err);
/* Frees r's batches (detaching the arena's buffers first); not the arena. */
void ex_jrows_free(fl_exec *x, ex_rows *r);
void ex_jmem_free(fl_exec *x, join_mem *m);
/* Moves src's chunks to dst (src is empty afterwards). */
fl_status ex_jmem_move(join_mem *dst, join_mem *src, fl_error *err);

/* op_join_grace.c */
/* Build side: moves thread tid's in-memory rows to partitions (once) and
 * routes the wide batch w (live rows) there. */
fl_status ex_grace_build_route(ex_node *n, ex_thread *th, const fl_batch *w, fl_error *err);
/* After the build pipeline: flushes every thread, partitions the probe side
 * (runs its pipeline) and queues the partitions. */
fl_status ex_grace_finish_build(ex_node *n, fl_error *err);
/* Takes the next partition to process; loads its table into t (splitting
 * partitions over budget into sub-partitions first). *part NULL = none left. */
fl_status ex_grace_claim(ex_node *n, fl_batch *stage, join_table *t, grace_part **part,
                         fl_error *err);
/* Releases a processed partition's files. */
void ex_grace_release(grace_part *p);
void ex_grace_destroy(ex_node *n);

#endif
