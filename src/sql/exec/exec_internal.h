/*
 * exec_internal.h - the executor's internal structures (exec.h is the
 * contract; this header is private to src/sql/exec/).
 *
 * MODEL
 *   Every plan node gets one shared ex_node (created at fl_exec_open) and, for
 *   every thread that pulls rows through it, a per-thread ex_op instance.
 *   Streaming nodes (SCAN, VALUES, FILTER, PROJECT, the probe side of a JOIN)
 *   chain ex_ops into a pipeline. Pipeline breakers (AGG, DISTINCT, SORT,
 *   WINDOW, SETOP, LIMIT, and a JOIN's build side) "prepare" once: they run
 *   their child pipeline on options.threads worker threads (ex_run_parallel),
 *   each thread pulling morsels (scan tasks, row groups, files, batches of a
 *   materialized input) from shared atomic cursors, merge the per-thread
 *   partial states, and keep their output materialized as an ex_rows; their
 *   ex_op then hands out those batches as morsels. Preparation happens
 *   bottom-up before a pipeline's threads start, so no worker ever waits on
 *   another pipeline.
 *
 *   The consumer (fl_exec_next) pulls the root pipeline on its own thread, so
 *   the order of a SORT's output is kept.
 *
 * MEMORY
 *   Materialized rows, hash tables and sort runs add their bytes to
 *   fl_exec.mem_used; growing past memory_limit fails with FL_ELIMIT naming
 *   the operator, except where an operator spills (README.md lists which).
 */
#ifndef FLOE_SQL_EXEC_INTERNAL_H
#define FLOE_SQL_EXEC_INTERNAL_H

#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "floe/arena.h"
#include "floe/error.h"
#include "floe/vector.h"
#include "sql/exec.h"
#include "sql/expr.h"
#include "sql/func.h"
#include "sql/plan.h"

typedef struct ex_node ex_node;
typedef struct ex_op ex_op;
typedef struct ex_thread ex_thread;

/* ---- materialized rows: FLAT batches, each full (FL_BATCH_CAP) but the last ---- */
typedef struct ex_rows {
    const fl_schema *schema; /* borrowed */
    fl_batch **b;            /* owned batches */
    uint32_t n, cap;
    uint64_t rows;
    uint64_t bytes; /* accounted bytes */
} ex_rows;

/* ---- the running statement ---- */
struct fl_exec {
    fl_plan *plan;
    fl_exec_options opt;
    fl_eval_env env; /* opt.env with run_subquery set */
    uint32_t threads;
    uint64_t memory_limit;
    atomic_llong mem_used;
    atomic_int failed; /* set once any worker failed: everyone stops */
    pthread_mutex_t mu;   /* guards err, arena, subquery cache */
    fl_error err;         /* first error */
    fl_arena arena;       /* executor allocations (schemas of internal rows) */
    ex_node *root;
    ex_thread *main_th; /* the consumer's thread context */
    ex_op *root_op;
    bool started, done;
    /* uncorrelated scalar subqueries, run once per statement (as
     * PostgreSQL's InitPlans) however many threads evaluate them: plan ->
     * value (strings in subq_arena); subq_mu is held while one runs, so
     * the other evaluators wait for its value instead of running it too */
    pthread_mutex_t subq_mu;
    fl_arena subq_arena;
    struct ex_subq {
        const fl_plan *p;
        fl_value v;
    } *subq;
    uint32_t nsubq;
};

/* Per-thread context: evaluation state and a scratch error. */
struct ex_thread {
    fl_exec *x;
    uint32_t tid;
    fl_eval_state *st;
    bool stop; /* set by a consumer that needs no more input (LIMIT) */
};

struct ex_node {
    fl_exec *x;
    fl_plan *p;
    ex_node **children;
    uint32_t nchildren;
    /* lifecycle */
    fl_status (*prepare)(ex_node *n, fl_error *err);              /* may be NULL */
    fl_status (*open)(ex_node *n, ex_thread *th, ex_op **out, fl_error *err);
    void (*destroy)(ex_node *n);                                  /* frees state */
    bool prepared;
    void *state;
    /* materialized output of breakers, handed out batch by batch */
    ex_rows out;
    atomic_uint cursor;
};

struct ex_op {
    fl_status (*next)(ex_op *op, const fl_batch **out, fl_error *err); /* *out NULL at end */
    void (*free)(ex_op *op);
    ex_node *node;
    ex_thread *th;
};

/* ---- exec.c ---- */
fl_status ex_node_build(fl_exec *x, fl_plan *p, ex_node **out, fl_error *err);
fl_status ex_prepare(ex_node *n, fl_error *err); /* idempotent, children first for streams */
fl_status ex_open(ex_node *n, ex_thread *th, ex_op **out, fl_error *err);
void ex_op_free(ex_op *op);
fl_status ex_check(fl_exec *x, fl_error *err); /* cancel / another worker failed */
fl_status ex_mem_add(fl_exec *x, int64_t bytes, const char *what, fl_error *err);
void ex_stats_out(ex_node *n, const fl_batch *b);
int64_t ex_now_ns(void);

/* Runs child's pipeline on the executor's threads; consume is called from the
 * worker threads with their tid (0..threads-1) for each batch. */
typedef fl_status (*ex_consume_fn)(void *ctx, ex_thread *th, const fl_batch *b, fl_error *err);
fl_status ex_run_parallel(ex_node *child, ex_consume_fn consume, void *ctx, fl_error *err);
/* Same, but on the calling thread only (ordered input). */
fl_status ex_run_serial(ex_node *child, ex_consume_fn consume, void *ctx, fl_error *err);

/* An op over n->out (the materialized result of a breaker). */
fl_status ex_open_rows(ex_node *n, ex_thread *th, ex_op **out, fl_error *err);

/* ---- eval.c: expression evaluation bridge ---- */
fl_status ex_eval_state_new(const fl_eval_env *env, fl_eval_state **out, fl_error *err);
void ex_eval_state_free(fl_eval_state *st);
fl_status ex_eval(ex_thread *th, const fl_expr *e, const fl_batch *in, const fl_sel *sel,
                  fl_vector *out, fl_error *err);
fl_status ex_select(ex_thread *th, const fl_expr *e, const fl_batch *in, const fl_sel *sel,
                    fl_sel *out, fl_error *err);
/* Evaluates exprs into vecs[] (initialized here on first use with the exprs'
 * types); COLUMN exprs are not evaluated: ptrs[i] points at the input column. */
typedef struct ex_exprs {
    fl_expr **e;
    uint32_t n;
    fl_vector *vecs;
    const fl_vector **ptrs;
    bool inited;
} ex_exprs;
fl_status ex_exprs_eval(ex_thread *th, ex_exprs *xs, const fl_batch *in, const fl_sel *sel,
                        fl_error *err);
void ex_exprs_free(ex_exprs *xs);

/* ---- vec.c: rows, hashing, comparison ---- */
fl_status ex_sel_reserve(fl_sel *s, uint32_t n, fl_error *err);
void ex_sel_free(fl_sel *s);
void ex_rows_init(ex_rows *r, const fl_schema *schema);
void ex_rows_free(fl_exec *x, ex_rows *r);
/* Appends the rows sel (NULL = all nrows) of the given columns (ncols ==
 * r->schema->nfields) to r. */
fl_status ex_rows_append(fl_exec *x, ex_rows *r, const fl_vector *const *cols, uint32_t nrows,
                         const fl_sel *sel, fl_error *err);
fl_status ex_rows_append_batch(fl_exec *x, ex_rows *r, const fl_batch *b, fl_error *err);
fl_status ex_rows_concat(ex_rows *dst, ex_rows *src, fl_error *err); /* moves src's batches */
/* Copies values rows[i] of src (any encoding) to the end of dst (FLAT). */
fl_status ex_vec_append_rows(fl_vector *dst, const fl_vector *src, const uint32_t *rows, uint32_t n,
                             fl_error *err);
/* Copies row r of a unified vector to the end of dst. */
fl_status ex_vec_append_one(fl_vector *dst, const fl_unified *u, uint32_t r, fl_error *err);
/* Appends n NULLs (any type, nested included). */
fl_status ex_vec_append_nulls(fl_vector *dst, uint32_t n, fl_error *err);
/* Combines the hash of rows of v into h[] (for rows sel or 0..n-1). */
fl_status ex_hash_vec(const fl_vector *v, const fl_sel *sel, uint32_t n, uint64_t *h, bool first,
                      fl_error *err);
uint64_t ex_hash_one(const fl_unified *u, const fl_type *t, uint32_t row);
/* Equality of two non-null-or-null values (NULL equals NULL here). */
bool ex_value_eq(const fl_unified *a, uint32_t ra, const fl_unified *b, uint32_t rb,
                 const fl_type *t);
/* Three-way comparison for sorting (nulls handled by the caller). */
int ex_value_cmp(const fl_unified *a, uint32_t ra, const fl_unified *b, uint32_t rb,
                 const fl_type *t);
bool ex_type_hashable(const fl_type *t);
/* A schema of n fields with the given types, in x->arena. */
fl_schema *ex_schema_of(fl_exec *x, const fl_type *const *types, uint32_t n);

/* ---- bigmem.c ---- */
/* calloc for large random-access arrays (huge pages when >= 4 MiB); free(). */
void *ex_calloc_big(size_t n, size_t size);

/* ---- ht.c: hash table of groups (AGG, DISTINCT, SETOP, join-free dedup) ---- */
typedef struct ex_ht {
    fl_exec *x;
    const fl_schema *kschema; /* key types */
    uint32_t nkeys;
    ex_rows keys;             /* dense: group g is batch g / FL_BATCH_CAP, row g % FL_BATCH_CAP */
    uint64_t *hashes;         /* per group */
    uint32_t payload;         /* bytes per group (multiple of 16), 0 = none */
    uint8_t **blocks;         /* payload blocks of FL_BATCH_CAP groups */
    uint32_t nblocks, blocks_cap;
    uint64_t *slots; /* hash's high 32 bits << 32 | (group + 1); 0 = empty */
    uint64_t mask;
    uint32_t ngroups, hashes_cap;
    uint64_t bytes;
    uint32_t key0_width; /* bytes per value of the first key column (0: variable width) */
} ex_ht;
void ex_ht_init(ex_ht *h, fl_exec *x, const fl_schema *kschema, uint32_t payload);
void ex_ht_free(ex_ht *h);
static inline uint8_t *ex_ht_payload(const ex_ht *h, uint32_t g)
{
    if (!h->payload)
        return NULL;
    return h->blocks[g / FL_BATCH_CAP] + (size_t)(g % FL_BATCH_CAP) * h->payload;
}
/* Finds (or adds, when add) the group of row `row` of the unified key
 * vectors ku with hash hv. Returns the group id, or UINT32_MAX when absent
 * and !add. *added tells whether it was new. */
fl_status ex_ht_find(ex_ht *h, const fl_unified *ku, const fl_vector *const *kv, uint32_t row,
                     uint64_t hv, bool add, uint32_t *gid, bool *added, fl_error *err);
/* Prefetches the slot a find of hash hv starts at (a hint: the probe loops
 * hide the slot array's cache misses by prefetching a few rows ahead). */
static inline void ex_ht_prefetch(const ex_ht *h, uint64_t hv)
{
    if (h->slots)
        __builtin_prefetch(&h->slots[hv & h->mask]);
}
#define EX_HT_PREFETCH_AHEAD 16
/* The second stage of the probe loops' prefetching, a few probes after
 * ex_ht_prefetch made the slot of hash hv likely cached: when that slot
 * holds a group with hv's tag (most often the group the find will return),
 * prefetches the group's first key and its payload, the two other cache
 * misses of a find that hits. */
static inline void ex_ht_prefetch_group(const ex_ht *h, uint64_t hv)
{
    if (!h->slots)
        return;
    uint64_t s = h->slots[hv & h->mask];
    if (!s || (s >> 32) != (hv >> 32))
        return;
    uint32_t g = (uint32_t)s - 1, r = g % FL_BATCH_CAP;
    if (h->nkeys) {
        const fl_vector *v = &h->keys.b[g / FL_BATCH_CAP]->cols[0];
        if (h->key0_width)
            __builtin_prefetch(v->data + (size_t)r * h->key0_width);
        else if (v->offsets)
            __builtin_prefetch(&v->offsets[r]);
    }
    if (h->payload)
        __builtin_prefetch(h->blocks[g / FL_BATCH_CAP] + (size_t)r * h->payload, 1);
}
/* Sizes the slot array for n groups at once (no rehash while they are added). */
fl_status ex_ht_reserve(ex_ht *h, uint64_t n, fl_error *err);
/* Unified views of a group's stored key columns (kv[c] = the vectors). */
void ex_ht_group_keys(const ex_ht *h, uint32_t g, fl_unified *ku, const fl_vector **kv,
                      uint32_t *row);
/* Runs fn(i) for i in [0, n) on the executor's threads. */
fl_status ex_parallel_for(fl_exec *x, uint32_t n, fl_status (*fn)(void *ctx, uint32_t i, fl_error *err),
                          void *ctx, fl_error *err);

/* ---- spill.c: temporary files of batches (unlinked at creation) ---- */
typedef struct ex_spill {
    FILE *f;
    uint64_t bytes;
} ex_spill;
fl_status ex_spill_open(fl_exec *x, ex_spill *s, fl_error *err);
fl_status ex_spill_write(ex_spill *s, const fl_batch *b, fl_error *err); /* FLAT, no sel */
fl_status ex_spill_rewind(ex_spill *s, fl_error *err);
fl_status ex_spill_read(ex_spill *s, fl_batch *b, bool *eof, fl_error *err);
void ex_spill_close(ex_spill *s);
/* Bytes an operator's thread may hold before it spills. */
uint64_t ex_spill_budget(fl_exec *x);
/* own > budget, or the statement is near memory_limit (spill.c; additive, sqlmem) */
bool ex_spill_wanted(fl_exec *x, uint64_t own, uint64_t budget);

/* ---- sort.c (shared by SORT, WINDOW, ordered aggregates) ---- */
typedef struct ex_ref {
    uint32_t b, r;
} ex_ref;
typedef struct ex_sortspec {
    const ex_rows *rows;
    uint32_t nkeys;
    const uint32_t *cols; /* key columns in rows */
    const bool *desc;
    const bool *nulls_first;
} ex_sortspec;
int ex_ref_cmp(const ex_sortspec *s, ex_ref a, ex_ref b);
fl_status ex_sort_refs(const ex_sortspec *s, ex_ref **out, uint64_t *n, fl_error *err);
/* Gathers columns [0, ncols) of refs[from..to) into a new batch with schema. */
fl_status ex_gather(const ex_rows *rows, const ex_ref *refs, uint64_t n, const fl_schema *schema,
                    uint32_t ncols, ex_rows *dst, fl_exec *x, fl_error *err);

/* ---- node constructors ---- */
fl_status ex_scan_node(ex_node *n, fl_error *err);
fl_status ex_values_node(ex_node *n, fl_error *err);
fl_status ex_filter_node(ex_node *n, fl_error *err);
fl_status ex_project_node(ex_node *n, fl_error *err);
fl_status ex_empty_node(ex_node *n, fl_error *err);
fl_status ex_limit_node(ex_node *n, fl_error *err);
fl_status ex_agg_node(ex_node *n, fl_error *err);
fl_status ex_distinct_node(ex_node *n, fl_error *err);
fl_status ex_setop_node(ex_node *n, fl_error *err);
fl_status ex_join_node(ex_node *n, fl_error *err);
fl_status ex_sort_node(ex_node *n, fl_error *err);
fl_status ex_window_node(ex_node *n, fl_error *err);
fl_status ex_series_node(ex_node *n, fl_error *err); /* SCAN of kind SERIES (op_basic.c) */

#endif
