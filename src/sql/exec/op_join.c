/*
 * op_join.c - JOIN: hash join for every plan.h join type, nested loop when
 * there are no equality keys (CROSS and theta joins).
 *
 * Build: the build child (right, or left when build_left for INNER/LEFT/
 * RIGHT/FULL) runs on all threads into per-thread ex_rows holding its
 * columns plus the evaluated key columns; the buffers are concatenated and a
 * chained hash table is built: heads[] (power of two buckets) and next[]
 * indexed by the build row id g = batch * FL_BATCH_CAP + row, with each row's
 * hash kept for a cheap pre-check. Rows with a NULL key (unless the key is
 * null-safe, IS NOT DISTINCT FROM) are never linked: they cannot match.
 *
 * Probe: every thread runs the probe pipeline; for each probe batch the key
 * hashes are computed and candidate pairs (probe row, build row) collected
 * up to FL_BATCH_CAP at a time (the iteration resumes across calls, so one
 * probe row may match any number of build rows). Pairs are gathered into a
 * left++right batch; the residual condition narrows them. Per join type:
 *   INNER            the surviving pairs;
 *   LEFT/RIGHT/FULL  plus unmatched preserved rows padded with NULLs: probe
 *                    rows at the end of their batch, build rows (matched
 *                    flags set atomically by every prober) by the last
 *                    probing thread to finish;
 *   SEMI/ANTI        probe rows with / without a surviving pair (a view of
 *                    the probe batch, no copy);
 *   MARK             probe columns + TRUE / FALSE / NULL (no match, but a
 *                    NULL key on either side: x IN (subquery) semantics);
 *   SINGLE           LEFT, but more than one match is error 21000.
 * MARK/SINGLE always build the right side. SEMI/ANTI build the right side,
 * or with build_left (the planner's choice when the left side is the
 * smaller: TPC-H Q21's few late lines against all of lineitem) the left:
 * the probe sets the matched flags of build rows with a surviving pair
 * (skipping build rows already matched), and the left rows matched (SEMI)
 * or not (ANTI) are emitted at the end by the last prober, or per grace
 * partition by its owner, as a build-outer join's unmatched rows are.
 *
 * Vectorized probe: a probe batch's keys are hashed at once; candidates are
 * found by walking the chains (hash compared first, then the key: raw bytes
 * for one fixed-width key, else ex_value_eq); the matched build rows are
 * gathered column by column (a typed loop per column over the pair list,
 * not a row-at-a-time append).
 *
 * Memory: when a thread's build rows exceed ex_spill_budget() and the join
 * has keys, the join turns into a grace hash join (op_join_grace.c): build
 * and probe rows go to hash partitions in spill files and each probing
 * thread takes partitions one at a time, building that partition's table
 * (join_table) and probing it with that partition's probe rows; unmatched
 * build rows of build-outer joins are emitted by the partition's owner.
 */
#include <stdlib.h>
#include <string.h>

#include "sql/exec/join_internal.h"

static bool is_outer_left(fl_join_type t)
{
    return t == FL_JOIN_LEFT || t == FL_JOIN_FULL || t == FL_JOIN_SINGLE;
}
static bool is_outer_right(fl_join_type t)
{
    return t == FL_JOIN_RIGHT || t == FL_JOIN_FULL;
}

bool ex_join_key_null(const join_state *st, const fl_unified *ku, uint32_t row)
{
    for (uint32_t k = 0; k < st->nkeys; k++)
        if (!(st->null_safe && st->null_safe[k]) && !fl_unified_is_valid(&ku[k], row))
            return true;
    return false;
}

/* ---- build ---- */

static fl_status build_consume(void *ctx, ex_thread *th, const fl_batch *b, fl_error *err)
{
    ex_node *n = ctx;
    join_state *st = n->state;
    ex_exprs *ke = &st->lkeys[th->tid];
    ke->e = st->bkeys;
    ke->n = st->nkeys;
    FL_TRY(ex_exprs_eval(th, ke, b, b->sel, err));
    uint32_t m = st->nb + st->nkeys;
    if (atomic_load_explicit(&st->spilling, memory_order_relaxed)) {
        fl_vector cols[m ? m : 1];
        for (uint32_t c = 0; c < st->nb; c++)
            cols[c] = b->cols[c];
        for (uint32_t k = 0; k < st->nkeys; k++)
            cols[st->nb + k] = *ke->ptrs[k];
        fl_batch w = {.schema = st->wide, .ncols = m, .cols = cols, .nrows = b->nrows,
                      .sel = b->sel};
        return ex_grace_build_route(n, th, &w, err);
    }
    const fl_vector *cols[m ? m : 1];
    for (uint32_t c = 0; c < st->nb; c++)
        cols[c] = &b->cols[c];
    for (uint32_t k = 0; k < st->nkeys; k++)
        cols[st->nb + k] = ke->ptrs[k];
    ex_rows *loc = &st->locals[th->tid];
    join_mem *lm = &st->lmem[th->tid];
    FL_TRY(ex_jrows_append(n->x, lm, loc, cols, b->nrows, b->sel, err));
    if (st->nkeys && lm->bytes > st->budget) {
        atomic_store(&st->spilling, 1);
        fl_batch w = {.schema = st->wide, .ncols = m, .nrows = 0};
        return ex_grace_build_route(n, th, &w, err); /* moves this thread's rows out */
    }
    return FL_OK;
}

void ex_join_table_free(fl_exec *x, join_table *t)
{
    ex_jrows_free(x, &t->build);
    ex_jmem_free(x, &t->mem);
    free(t->ents);
    free(t->heads);
    free(t->matched);
    if (x && t->bytes)
        atomic_fetch_sub(&x->mem_used, (long long)t->bytes);
    const fl_schema *s = t->build.schema;
    memset(t, 0, sizeof *t);
    t->build.schema = s;
}

/* ---- hashing and packed keys ---- */

/* Hash of a packed key: a multiply-xorshift mix (every input bit reaches
 * the low bits the buckets use). */
static inline uint64_t pk_hash(uint64_t k)
{
    k ^= k >> 32;
    k *= 0xd6e8feb86659fd93ull;
    k ^= k >> 32;
    k *= 0xd6e8feb86659fd93ull;
    k ^= k >> 32;
    return k;
}

/* The bucket's tag bit for hash h: 5 bits from the top of h times an odd
 * constant, so they depend on bits the bucket index does not use (and on the
 * grace partition's fixed high bits only together with the rest). */
static inline uint64_t tag_bit(uint64_t h)
{
    return (uint64_t)1 << (32 + ((h * 0x9E3779B97F4A7C15ull) >> 59));
}

static inline int64_t key_int(const uint8_t *data, uint32_t row, uint32_t w)
{
    if (w == 8) {
        int64_t v;
        memcpy(&v, data + (size_t)row * 8, 8);
        return v;
    }
    int32_t v;
    memcpy(&v, data + (size_t)row * 4, 4);
    return v;
}

/* Packs the keys of a valid (non-NULL) row into *out; false when a JK_TWO
 * value does not fit in an int32 (it cannot equal any key of a packed table). */
static inline bool pack_row(const join_state *st, const fl_unified *ku, uint32_t row,
                            uint64_t *out)
{
    int64_t a = key_int(ku[0].base->data, fl_unified_row(&ku[0], row), st->kw[0]);
    if (st->pack == JK_ONE) {
        *out = (uint64_t)a;
        return true;
    }
    int64_t b = key_int(ku[1].base->data, fl_unified_row(&ku[1], row), st->kw[1]);
    if (a < INT32_MIN || a > INT32_MAX || b < INT32_MIN || b > INT32_MAX)
        return false;
    *out = (uint64_t)(uint32_t)a | (uint64_t)(uint32_t)b << 32;
    return true;
}

/* JK_TWO: every valid build key fits in an int32 (then the table is packed). */
static bool build_keys_fit(const join_state *st, const join_table *t)
{
    for (uint32_t b = 0; b < t->build.n; b++) {
        const fl_batch *bt = t->build.b[b];
        for (uint32_t k = 0; k < 2; k++) {
            const fl_vector *v = &bt->cols[st->nb + k];
            if (st->kw[k] != 8)
                continue;
            const int64_t *d = (const int64_t *)v->data;
            for (uint32_t i = 0; i < bt->nrows; i++)
                if ((d[i] < INT32_MIN || d[i] > INT32_MAX) && fl_vector_is_valid(v, i))
                    return false;
        }
    }
    return true;
}

/* Links the rows of build batch i into the table (any thread: buckets are
 * pushed with a compare-and-swap, so batches link in parallel). */
typedef struct link_ctx {
    const join_state *st;
    join_table *t;
    atomic_bool null_key;
} link_ctx;

static fl_status link_batch(void *ctx, uint32_t b, fl_error *err)
{
    link_ctx *lc = ctx;
    const join_state *st = lc->st;
    join_table *t = lc->t;
    const fl_batch *bt = t->build.b[b];
    join_ent *e = t->ents + (uint64_t)b * FL_BATCH_CAP;
    uint64_t h[FL_BATCH_CAP];
    fl_unified ku[st->nkeys ? st->nkeys : 1];
    for (uint32_t k = 0; k < st->nkeys; k++)
        fl_vector_unify(&bt->cols[st->nb + k], &ku[k]);
    if (!t->packed)
        for (uint32_t k = 0; k < st->nkeys; k++)
            FL_TRY(ex_hash_vec(&bt->cols[st->nb + k], NULL, bt->nrows, h, k == 0, err));
    bool maybe_null = false;
    for (uint32_t k = 0; k < st->nkeys; k++)
        maybe_null |= bt->cols[st->nb + k].validity != NULL;
    for (uint32_t i = 0; i < bt->nrows; i++) {
        if (maybe_null && ex_join_key_null(st, ku, i)) {
            atomic_store_explicit(&lc->null_key, true, memory_order_relaxed);
            continue;
        }
        if (t->packed) {
            uint64_t pk = 0;
            (void)pack_row(st, ku, i, &pk); /* fits: checked by build_keys_fit */
            e[i].key = pk;
            h[i] = pk_hash(pk);
        } else {
            e[i].key = h[i];
        }
    }
    for (uint32_t i = 0; i < bt->nrows; i++) {
        if (maybe_null && ex_join_key_null(st, ku, i))
            continue;
        uint32_t g = b * FL_BATCH_CAP + i;
        _Atomic uint64_t *head = &t->heads[h[i] & t->mask];
        uint64_t tag = tag_bit(h[i]);
        uint64_t old = atomic_load_explicit(head, memory_order_relaxed), nw;
        do {
            e[i].next = (uint32_t)old;
            nw = (old | tag) >> 32 << 32 | (g + 1);
        } while (!atomic_compare_exchange_weak_explicit(head, &old, nw, memory_order_relaxed,
                                                        memory_order_relaxed));
    }
    return FL_OK;
}

fl_status ex_join_build_table(fl_exec *x, const join_state *st, join_table *t, bool parallel,
                              fl_error *err)
{
    ex_rows *r = &t->build;
    uint64_t space = (uint64_t)r->n * FL_BATCH_CAP;
    if (space >= UINT32_MAX)
        return fl_errorf(err, FL_ELIMIT, "hash join: build side of %llu rows is too large",
                         (unsigned long long)r->rows);
    t->nbuild = r->rows;
    uint64_t nb = 1024;
    while (nb < r->rows * 2)
        nb *= 2;
    t->mask = nb - 1;
    t->packed = st->pack == JK_ONE || (st->pack == JK_TWO && build_keys_fit(st, t));
    if (st->build_outer)
        t->matched = calloc(space ? space : 1, sizeof *t->matched);
    if (st->nkeys) {
        t->heads = ex_calloc_big(nb, sizeof *t->heads);
        t->ents = ex_calloc_big(space ? space : 1, sizeof *t->ents);
    }
    if ((st->nkeys && (!t->heads || !t->ents)) || (st->build_outer && !t->matched))
        return fl_errorf(err, FL_ENOMEM, "hash join: out of memory for %llu build rows",
                         (unsigned long long)r->rows);
    t->bytes = (st->nkeys ? nb * sizeof *t->heads + space * sizeof *t->ents : 0) +
               (st->build_outer ? space : 0);
    FL_TRY(ex_mem_add(x, (int64_t)t->bytes, "hash join", err));
    if (!st->nkeys)
        return FL_OK; /* nested loop: rows are walked by id */
    link_ctx lc = {.st = st, .t = t};
    atomic_init(&lc.null_key, false);
    if (parallel && r->n > 1) {
        FL_TRY(ex_parallel_for(x, r->n, link_batch, &lc, err));
    } else {
        for (uint32_t b = 0; b < r->n; b++) {
            FL_TRY(ex_check(x, err)); /* cancel / another worker's error */
            FL_TRY(link_batch(&lc, b, err));
        }
    }
    t->has_null_key = atomic_load(&lc.null_key);
    return FL_OK;
}

static fl_status join_prepare(ex_node *n, fl_error *err)
{
    join_state *st = n->state;
    FL_TRY(ex_prepare(n->children[st->pi], err));
    st->nlocals = n->x->threads;
    st->locals = calloc(st->nlocals, sizeof *st->locals);
    st->lkeys = calloc(st->nlocals, sizeof *st->lkeys);
    st->lmem = calloc(st->nlocals, sizeof *st->lmem);
    if (!st->locals || !st->lkeys || !st->lmem)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t t = 0; t < st->nlocals; t++)
        ex_rows_init(&st->locals[t], st->wide);
    st->budget = ex_spill_budget(n->x);
    FL_TRY(ex_run_parallel(n->children[st->bi], build_consume, n, err));
    for (uint32_t t = 0; t < st->nlocals; t++)
        ex_exprs_free(&st->lkeys[t]);
    if (atomic_load(&st->spilling)) {
        FL_TRY(ex_grace_finish_build(n, err));
        st->any_build = atomic_load(&st->g_rows) > 0;
        st->any_null_key = atomic_load(&st->g_null_key);
        return FL_OK;
    }
    int64_t t0 = ex_now_ns();
    for (uint32_t t = 0; t < st->nlocals; t++) {
        FL_TRY(ex_rows_concat(&st->mem.build, &st->locals[t], err));
        FL_TRY(ex_jmem_move(&st->mem.mem, &st->lmem[t], err));
    }
    FL_TRY(ex_join_build_table(n->x, st, &st->mem, true, err));
    st->any_build = st->mem.nbuild > 0;
    st->any_null_key = st->mem.has_null_key;
    atomic_fetch_add(&n->p->stats.time_ns, ex_now_ns() - t0);
    return FL_OK;
}

/* ---- probe ---- */

typedef struct join_op {
    ex_op base;
    join_state *st;
    join_table *t; /* the table probed: &st->mem, or the current partition's */
    ex_op *child;
    ex_exprs keys;
    const fl_batch *pb; /* current probe batch (NULL = need one) */
    fl_unified ku[32];
    const uint8_t *kraw;  /* fast path: the probe key's flat data (key_width bytes a row) */
    const uint32_t *kidx; /* its row mapping (NULL = identity) */
    bool key_nulls;       /* a probe key vector of this batch may hold NULLs */
    uint64_t *ph;         /* probe hashes by row */
    uint64_t *pk;         /* packed probe keys by row (packed tables) */
    uint32_t *first;      /* first matching build row id + 1 by probe row (find_first) */
    uint8_t *pskip;       /* probe row that matches nothing (NULL or unpackable key) */
    uint32_t rows_cap;    /* rows of ph, pk, first, pskip, pmatch and urows */
    uint32_t *urows;      /* unmatched probe rows */
    uint32_t pos;         /* index into the probe selection */
    uint32_t cand; /* next candidate build row id + 1 for the current probe row; 0 = start */
    bool row_started;
    uint8_t *pmatch; /* per probe row: surviving pairs (0, 1, 2 = more than one) */
    /* pairs */
    uint32_t *pp, *pg, npairs;
    fl_batch pairs; /* left ++ right gathered */
    fl_sel psel;
    fl_batch out; /* probe-outer / mark / build-outer output */
    fl_batch view;
    fl_sel vsel;
    fl_batch outv; /* out_cols view (cols shallow copies; only the array is owned) */
    bool finishing, finished;
    uint64_t fin_g; /* build-outer emission cursor */
    /* grace: the partition being processed, its table and probe batches */
    grace_part *part;
    join_table ptab;
    fl_batch spb;
    fl_batch *stage; /* JG_FANOUT staging batches for repartitioning */
    bool grace_done;
} join_op;

/* Full key comparison of probe row prow with build row g (generic tables:
 * the hashes are equal already). */
static bool keys_match(join_op *o, uint32_t prow, uint32_t g)
{
    join_state *st = o->st;
    const join_table *t = o->t;
    const fl_batch *bb = t->build.b[g / FL_BATCH_CAP];
    uint32_t br = g % FL_BATCH_CAP;
    if (o->kraw) {
        /* one fixed-width key, both sides valid here (NULL keys never probe) */
        uint32_t w = st->key_width;
        uint32_t pr = o->kidx ? o->kidx[prow] : prow;
        const fl_vector *bv = &bb->cols[st->nb];
        return memcmp(o->kraw + (size_t)pr * w, bv->data + (size_t)br * w, w) == 0;
    }
    for (uint32_t k = 0; k < st->nkeys; k++) {
        fl_unified bu = {.base = &bb->cols[st->nb + k]};
        if (!ex_value_eq(&o->ku[k], prow, &bu, br, bb->cols[st->nb + k].type))
            return false;
    }
    return true;
}

/* First matching row id + 1 at or after chain position c (row id + 1; 0 = end). */
static inline uint32_t walk(join_op *o, uint32_t prow, uint32_t c)
{
    const join_ent *e = o->t->ents;
    if (o->t->packed) {
        uint64_t k = o->pk[prow];
        while (c && e[c - 1].key != k)
            c = e[c - 1].next;
        return c;
    }
    uint64_t h = o->ph[prow];
    while (c && !(e[c - 1].key == h && keys_match(o, prow, c - 1)))
        c = e[c - 1].next;
    return c;
}

/* Next candidate of the current probe row after cursor `after` (row id +
 * 1; 0 = none); start: the first one (found by find_first for hash joins). */
static uint32_t next_cand(join_op *o, uint32_t prow, uint32_t after, bool start)
{
    join_state *st = o->st;
    const join_table *t = o->t;
    if (st->nkeys == 0) {
        /* nested loop: every build row, in id order, skipping gaps */
        uint64_t g = start ? 0 : after; /* after = previous id + 1 */
        uint64_t space = (uint64_t)t->build.n * FL_BATCH_CAP;
        while (g < space) {
            uint32_t b = (uint32_t)(g / FL_BATCH_CAP), r = (uint32_t)(g % FL_BATCH_CAP);
            if (r < t->build.b[b]->nrows)
                return (uint32_t)g + 1;
            g = (uint64_t)(b + 1) * FL_BATCH_CAP;
        }
        return 0;
    }
    if (start)
        return o->first[prow];
    return walk(o, prow, t->ents[after - 1].next);
}

/* For every live row of the probe batch: the first matching build row id +
 * 1 (0 = none) in o->first. Three passes over the batch so that the
 * memory accesses of different rows overlap instead of waiting one after
 * the other: every row's bucket head prefetched; heads read (a clear tag
 * bit ends the row there) and the chains' first entries prefetched; chains
 * walked. A batch's 2048 lines fit in L2 between the passes. */
static void find_first(join_op *o, const fl_batch *b)
{
    const join_table *t = o->t;
    uint32_t cnt = fl_batch_live_rows(b);
    const uint32_t *sel = b->sel ? b->sel->idx : NULL;
    const uint64_t *ph = o->ph;
    uint32_t *first = o->first;
    if (t->nbuild == 0 || o->st->nkeys == 0)
        return;
    for (uint32_t i = 0; i < cnt; i++)
        __builtin_prefetch(&t->heads[ph[sel ? sel[i] : i] & t->mask]);
    for (uint32_t i = 0; i < cnt; i++) {
        uint32_t r = sel ? sel[i] : i;
        if (o->pskip[r]) {
            first[r] = 0;
            continue;
        }
        uint64_t hd = atomic_load_explicit(&t->heads[ph[r] & t->mask], memory_order_relaxed);
        uint32_t c = hd & tag_bit(ph[r]) ? (uint32_t)hd : 0;
        first[r] = c;
        if (c)
            __builtin_prefetch(&t->ents[c - 1]);
    }
    for (uint32_t i = 0; i < cnt; i++) {
        uint32_t r = sel ? sel[i] : i;
        if (first[r])
            first[r] = walk(o, r, first[r]);
    }
}

/* Fills pairs from the current probe batch; true when the batch is done. */
static bool collect_pairs(join_op *o, bool first_only)
{
    join_state *st = o->st;
    const fl_batch *b = o->pb;
    uint32_t cnt = fl_batch_live_rows(b);
    o->npairs = 0;
    while (o->pos < cnt) {
        uint32_t prow = b->sel ? b->sel->idx[o->pos] : o->pos;
        if (!o->row_started) {
            o->row_started = true;
            o->cand = st->nkeys && o->pskip[prow] ? 0 : next_cand(o, prow, 0, true);
        }
        while (o->cand && o->npairs < FL_BATCH_CAP) {
            if (st->build_semi &&
                atomic_load_explicit(&o->t->matched[o->cand - 1], memory_order_relaxed)) {
                o->cand = next_cand(o, prow, o->cand, false); /* decided already */
                continue;
            }
            o->pp[o->npairs] = prow;
            o->pg[o->npairs] = o->cand - 1;
            o->npairs++;
            if (first_only) {
                o->cand = 0;
                break;
            }
            o->cand = next_cand(o, prow, o->cand, false);
        }
        if (o->cand)
            return false; /* pairs full, resume this row */
        o->row_started = false;
        o->pos++;
        if (o->npairs == FL_BATCH_CAP)
            return o->pos >= cnt;
    }
    return true;
}

/* Gathers column c of build row ids g[0..n) into dst (FLAT), column-wise:
 * one pass per column over the pair list with a typed copy. */
static fl_status append_build(const join_table *t, fl_vector *dst, uint32_t c, const uint32_t *g,
                              uint32_t n, fl_error *err)
{
    const fl_type *ty = dst->type;
    if (n == 0)
        return FL_OK;
    if (fl_type_is_nested(ty)) {
        for (uint32_t i = 0; i < n; i++) {
            const fl_batch *bb = t->build.b[g[i] / FL_BATCH_CAP];
            fl_unified u = {.base = &bb->cols[c]};
            FL_TRY(ex_vec_append_one(dst, &u, g[i] % FL_BATCH_CAP, err));
        }
        return FL_OK;
    }
    uint32_t base = dst->len;
    FL_TRY(fl_vector_reserve(dst, base + n, err));
    fl_batch *const *bs = t->build.b;
    bool any_null = false;
    for (uint32_t i = 0; i < n && !any_null; i++)
        any_null = bs[g[i] / FL_BATCH_CAP]->cols[c].validity != NULL;
    if (any_null || dst->validity) {
        FL_TRY(fl_vector_ensure_validity(dst, err));
        for (uint32_t i = 0; i < n; i++) {
            const fl_vector *v = &bs[g[i] / FL_BATCH_CAP]->cols[c];
            fl_bitmap_set(dst->validity, base + i,
                          !v->validity || fl_bitmap_get(v->validity, g[i] % FL_BATCH_CAP));
        }
    }
    if (fl_type_is_varlen(ty)) {
        size_t need = 0;
        for (uint32_t i = 0; i < n; i++) {
            const fl_vector *v = &bs[g[i] / FL_BATCH_CAP]->cols[c];
            uint32_t r = g[i] % FL_BATCH_CAP;
            need += (size_t)(v->offsets[r + 1] - v->offsets[r]);
        }
        FL_TRY(fl_vector_reserve_heap(dst, need, err));
        size_t hl = dst->heap_len;
        for (uint32_t i = 0; i < n; i++) {
            const fl_vector *v = &bs[g[i] / FL_BATCH_CAP]->cols[c];
            uint32_t r = g[i] % FL_BATCH_CAP;
            size_t len = (size_t)(v->offsets[r + 1] - v->offsets[r]);
            dst->offsets[base + i] = (int64_t)hl;
            if (len)
                memcpy(dst->heap + hl, v->heap + v->offsets[r], len);
            hl += len;
        }
        dst->offsets[base + n] = (int64_t)hl;
        dst->heap_len = hl;
    } else {
        size_t w = fl_type_width(ty);
        uint8_t *d = dst->data + (size_t)base * w;
        if (w == 8) {
            for (uint32_t i = 0; i < n; i++)
                memcpy(d + (size_t)i * 8,
                       bs[g[i] / FL_BATCH_CAP]->cols[c].data + (size_t)(g[i] % FL_BATCH_CAP) * 8,
                       8);
        } else if (w == 4) {
            for (uint32_t i = 0; i < n; i++)
                memcpy(d + (size_t)i * 4,
                       bs[g[i] / FL_BATCH_CAP]->cols[c].data + (size_t)(g[i] % FL_BATCH_CAP) * 4,
                       4);
        } else {
            for (uint32_t i = 0; i < n; i++)
                memcpy(d + (size_t)i * w,
                       bs[g[i] / FL_BATCH_CAP]->cols[c].data + (size_t)(g[i] % FL_BATCH_CAP) * w,
                       w);
        }
    }
    dst->len = base + n;
    return FL_OK;
}

/* pairs batch = left ++ right for the collected pairs */
static fl_status gather_pairs(join_op *o, fl_error *err)
{
    join_state *st = o->st;
    fl_batch_reset(&o->pairs);
    uint32_t nl = st->build_left ? st->nb : st->np;
    for (uint32_t c = 0; c < o->pairs.ncols; c++) {
        fl_vector *v = &o->pairs.cols[c];
        bool left = c < nl;
        bool from_build = left == st->build_left;
        uint32_t sc = left ? c : c - nl;
        if (!st->gneed[c])
            continue; /* neither output nor read by the residual */
        if (from_build)
            FL_TRY(append_build(o->t, v, sc, o->pg, o->npairs, err));
        else
            FL_TRY(ex_vec_append_rows(v, &o->pb->cols[sc], o->pp, o->npairs, err));
    }
    o->pairs.nrows = o->npairs;
    o->pairs.sel = NULL;
    return FL_OK;
}

static fl_status process_pairs(join_op *o, const fl_batch **out, fl_error *err)
{
    join_state *st = o->st;
    const fl_plan *p = o->base.node->p;
    *out = NULL;
    if (o->npairs == 0)
        return FL_OK;
    fl_join_type t = st->type;
    bool pair_output = t == FL_JOIN_INNER || t == FL_JOIN_LEFT || t == FL_JOIN_RIGHT ||
                       t == FL_JOIN_FULL || t == FL_JOIN_CROSS || t == FL_JOIN_SINGLE;
    const fl_sel *pass = NULL;
    if (p->u.join.residual || pair_output) {
        FL_TRY(gather_pairs(o, err));
        if (p->u.join.residual) {
            FL_TRY(ex_select(o->base.th, p->u.join.residual, &o->pairs, NULL, &o->psel, err));
            pass = &o->psel;
        }
    }
    uint32_t cnt = pass ? pass->count : o->npairs;
    for (uint32_t i = 0; i < cnt; i++) {
        uint32_t k = pass ? pass->idx[i] : i;
        uint8_t *m = &o->pmatch[o->pp[k]];
        if (t == FL_JOIN_SINGLE && *m)
            return fl_error_state(err, FL_EINVAL, "21000",
                                  "more than one row returned by a subquery used as an expression "
                                  "(SQLSTATE 21000)");
        *m = 1;
        if (o->t->matched)
            atomic_store_explicit(&o->t->matched[o->pg[k]], 1, memory_order_relaxed);
    }
    if (pair_output && cnt) {
        o->pairs.sel = pass ? (fl_sel *)pass : NULL;
        *out = &o->pairs;
    }
    return FL_OK;
}

/* Unmatched probe rows (probe-outer), or SEMI/ANTI/MARK output. */
static fl_status emit_probe_rows(join_op *o, const fl_batch **out, fl_error *err)
{
    join_state *st = o->st;
    const fl_batch *b = o->pb;
    uint32_t cnt = fl_batch_live_rows(b);
    *out = NULL;
    fl_join_type t = st->type;
    if (t == FL_JOIN_SEMI || t == FL_JOIN_ANTI) {
        FL_TRY(ex_sel_reserve(&o->vsel, cnt, err));
        uint32_t k = 0;
        for (uint32_t i = 0; i < cnt; i++) {
            uint32_t r = b->sel ? b->sel->idx[i] : i;
            if ((o->pmatch[r] != 0) == (t == FL_JOIN_SEMI))
                o->vsel.idx[k++] = r;
        }
        o->vsel.count = k;
        if (!k)
            return FL_OK;
        o->view = *b;
        o->view.schema = st->full;
        o->view.ncols = st->np;
        o->view.sel = &o->vsel;
        *out = &o->view;
        return FL_OK;
    }
    if (t == FL_JOIN_MARK) {
        for (uint32_t c = 0; c < st->np; c++)
            o->out.cols[c] = b->cols[c];
        fl_vector *mv = &o->out.cols[st->np];
        fl_vector_reset(mv);
        FL_TRY(fl_vector_reserve(mv, b->nrows, err));
        FL_TRY(fl_vector_ensure_validity(mv, err));
        for (uint32_t i = 0; i < b->nrows; i++) {
            bool matched = o->pmatch[i] != 0;
            bool null = !matched && st->any_build &&
                        (st->any_null_key || (o->key_nulls && ex_join_key_null(st, o->ku, i)));
            mv->data[i] = matched;
            fl_bitmap_set(mv->validity, i, !null);
        }
        mv->len = b->nrows;
        o->out.nrows = b->nrows;
        o->out.sel = b->sel;
        *out = &o->out;
        return FL_OK;
    }
    /* probe-outer: unmatched probe rows + NULLs for the build side */
    fl_batch_reset(&o->out);
    uint32_t *rows = o->urows, k = 0;
    for (uint32_t i = 0; i < cnt; i++) {
        uint32_t r = b->sel ? b->sel->idx[i] : i;
        if (!o->pmatch[r])
            rows[k++] = r;
    }
    if (!k)
        return FL_OK;
    uint32_t nl = st->build_left ? st->nb : st->np;
    for (uint32_t c = 0; c < o->out.ncols; c++) {
        fl_vector *v = &o->out.cols[c];
        bool left = c < nl;
        bool from_build = left == st->build_left;
        if (!st->oneed[c])
            continue;
        if (from_build)
            FL_TRY(ex_vec_append_nulls(v, k, err));
        else
            FL_TRY(ex_vec_append_rows(v, &b->cols[left ? c : c - nl], rows, k, err));
    }
    o->out.nrows = k;
    *out = &o->out;
    return FL_OK;
}

/* Unmatched build rows of o->t (build-outer; matched ones for a build-side
 * SEMI): by the last prober of the in-memory table, or by a grace
 * partition's owner. */
static fl_status emit_build_rows(join_op *o, const fl_batch **out, fl_error *err)
{
    join_state *st = o->st;
    const join_table *t = o->t;
    *out = NULL;
    fl_batch_reset(&o->out);
    uint64_t space = (uint64_t)t->build.n * FL_BATCH_CAP;
    uint32_t k = 0;
    while (o->fin_g < space && k < FL_BATCH_CAP) {
        uint64_t g = o->fin_g++;
        const fl_batch *bb = t->build.b[g / FL_BATCH_CAP];
        if (g % FL_BATCH_CAP >= bb->nrows) {
            o->fin_g = (g / FL_BATCH_CAP + 1) * FL_BATCH_CAP;
            continue;
        }
        bool m = atomic_load_explicit(&t->matched[g], memory_order_relaxed);
        if (st->build_semi ? m == (st->type == FL_JOIN_SEMI) : !m)
            o->pg[k++] = (uint32_t)g;
    }
    if (!k)
        return FL_OK;
    uint32_t nl = st->build_left ? st->nb : st->np;
    for (uint32_t c = 0; c < o->out.ncols; c++) {
        fl_vector *v = &o->out.cols[c];
        bool left = c < nl;
        bool from_build = left == st->build_left;
        if (!st->oneed[c])
            continue;
        if (from_build)
            FL_TRY(append_build(t, v, left ? c : c - nl, o->pg, k, err));
        else
            FL_TRY(ex_vec_append_nulls(v, k, err));
    }
    o->out.nrows = k;
    *out = &o->out;
    return FL_OK;
}

/* The next probe batch: from the probe pipeline, or (grace) from the
 * current partition's file; *b NULL at the end of the input / partition. */
static fl_status probe_input(join_op *o, const fl_batch **b, fl_error *err)
{
    *b = NULL;
    if (!o->part)
        return o->child->next(o->child, b, err);
    bool eof;
    FL_TRY(ex_spill_read(&o->part->p, &o->spb, &eof, err));
    if (!eof)
        *b = &o->spb;
    return FL_OK;
}

/* Hashes (or packs) the keys of probe batch b, prepares the key views and
 * finds every live row's first match. */
static fl_status probe_begin(join_op *o, const fl_batch *b, fl_error *err)
{
    join_state *st = o->st;
    const fl_vector *kv[32];
    if (o->part) {
        for (uint32_t k = 0; k < st->nkeys; k++)
            kv[k] = &b->cols[st->np + k];
    } else {
        FL_TRY(ex_exprs_eval(o->base.th, &o->keys, b, b->sel, err));
        for (uint32_t k = 0; k < st->nkeys; k++)
            kv[k] = o->keys.ptrs[k];
    }
    for (uint32_t k = 0; k < st->nkeys; k++)
        fl_vector_unify(kv[k], &o->ku[k]);
    o->key_nulls = false;
    for (uint32_t k = 0; k < st->nkeys; k++)
        o->key_nulls |= o->ku[k].validity || o->ku[k].base->validity;
    uint32_t cnt = fl_batch_live_rows(b);
    const uint32_t *sel = b->sel ? b->sel->idx : NULL;
    for (uint32_t i = 0; i < cnt; i++) {
        uint32_t r = sel ? sel[i] : i;
        o->pskip[r] = o->key_nulls && ex_join_key_null(st, o->ku, r);
    }
    if (o->t->packed) {
        for (uint32_t i = 0; i < cnt; i++) {
            uint32_t r = sel ? sel[i] : i;
            if (o->pskip[r])
                continue;
            if (pack_row(st, o->ku, r, &o->pk[r]))
                o->ph[r] = pk_hash(o->pk[r]);
            else
                o->pskip[r] = 1;
        }
    } else {
        for (uint32_t k = 0; k < st->nkeys; k++)
            FL_TRY(ex_hash_vec(kv[k], b->sel, b->nrows, o->ph, k == 0, err));
    }
    o->kraw = NULL;
    o->kidx = NULL;
    if (st->key_width && !o->ku[0].constant && !o->ku[0].validity &&
        o->ku[0].base->encoding == FL_VEC_FLAT) {
        o->kraw = o->ku[0].base->data;
        o->kidx = o->ku[0].idx;
    }
    find_first(o, b);
    return FL_OK;
}

/* Grace: moves to the next partition (loads its table); false when none is left. */
static fl_status grace_next_part(join_op *o, bool *more, fl_error *err)
{
    ex_node *n = o->base.node;
    if (o->part) {
        ex_grace_release(o->part);
        o->part = NULL;
        ex_join_table_free(n->x, &o->ptab);
    }
    *more = false;
    if (o->grace_done)
        return FL_OK;
    grace_part *p = NULL;
    FL_TRY(ex_grace_claim(n, o->stage, &o->ptab, &p, err));
    if (!p) {
        o->grace_done = true;
        return FL_OK;
    }
    o->part = p;
    o->t = &o->ptab;
    o->finishing = o->finished = false;
    o->fin_g = 0;
    *more = true;
    return FL_OK;
}

/* The join's output: full, or (out_cols) a view of the listed columns. */
static const fl_batch *project_out(join_op *o, const fl_batch *full)
{
    const join_state *st = o->st;
    if (!st->outc)
        return full;
    for (uint32_t i = 0; i < st->nout; i++)
        o->outv.cols[i] = full->cols[st->outc[i]]; /* shallow: full's vectors own */
    o->outv.nrows = full->nrows;
    o->outv.sel = full->sel;
    return &o->outv;
}

static fl_status join_next(ex_op *op, const fl_batch **out, fl_error *err)
{
    join_op *o = (join_op *)op;
    join_state *st = o->st;
    ex_node *n = op->node;
    *out = NULL;
    fl_join_type t = st->type;
    bool first_only = (t == FL_JOIN_SEMI || t == FL_JOIN_ANTI || t == FL_JOIN_MARK) &&
                      !n->p->u.join.residual && !st->build_semi;
    bool probe_rows = st->probe_outer || t == FL_JOIN_MARK ||
                      ((t == FL_JOIN_SEMI || t == FL_JOIN_ANTI) && !st->build_semi);
    for (;;) {
        FL_TRY(ex_check(n->x, err));
        if (st->grace && !o->part) {
            bool more;
            FL_TRY(grace_next_part(o, &more, err));
            if (!more)
                return FL_OK;
        }
        if (o->finishing) {
            if (!o->finished) {
                FL_TRY(emit_build_rows(o, out, err));
                if (*out) {
                    *out = project_out(o, *out);
                    ex_stats_out(n, *out);
                    return FL_OK;
                }
                o->finished = true;
            }
            if (!st->grace)
                return FL_OK;
            bool more;
            FL_TRY(grace_next_part(o, &more, err));
            if (!more)
                return FL_OK;
            continue;
        }
        if (!o->pb) {
            const fl_batch *b;
            FL_TRY(probe_input(o, &b, err));
            if (!b) {
                if (st->grace) {
                    if (st->build_outer) {
                        o->finishing = true;
                        continue;
                    }
                    bool more;
                    FL_TRY(grace_next_part(o, &more, err));
                    if (!more)
                        return FL_OK;
                    continue;
                }
                int left = atomic_fetch_sub(&st->probers, 1) - 1;
                if (st->build_outer && left == 0) {
                    o->finishing = true;
                    continue;
                }
                return FL_OK;
            }
            if (fl_batch_live_rows(b) == 0)
                continue;
            if (b->nrows > o->rows_cap) {
                uint64_t *ph = realloc(o->ph, (size_t)b->nrows * sizeof *ph);
                if (ph)
                    o->ph = ph;
                uint8_t *pm = realloc(o->pmatch, b->nrows);
                if (pm)
                    o->pmatch = pm;
                uint32_t *ur = realloc(o->urows, (size_t)b->nrows * sizeof *ur);
                if (ur)
                    o->urows = ur;
                uint64_t *pk = realloc(o->pk, (size_t)b->nrows * sizeof *pk);
                if (pk)
                    o->pk = pk;
                uint32_t *fi = realloc(o->first, (size_t)b->nrows * sizeof *fi);
                if (fi)
                    o->first = fi;
                uint8_t *sk = realloc(o->pskip, b->nrows);
                if (sk)
                    o->pskip = sk;
                if (!ph || !pm || !ur || !pk || !fi || !sk)
                    return fl_errorf(err, FL_ENOMEM, "join: out of memory for a probe batch");
                o->rows_cap = b->nrows;
            }
            o->pb = b;
            o->pos = 0;
            o->row_started = false;
            memset(o->pmatch, 0, b->nrows);
            FL_TRY(probe_begin(o, b, err));
        }
        int64_t t0 = ex_now_ns();
        bool done = o->t->nbuild == 0
                        ? (o->pos = fl_batch_live_rows(o->pb), o->npairs = 0, true)
                        : collect_pairs(o, first_only);
        fl_status rc = process_pairs(o, out, err);
        atomic_fetch_add(&n->p->stats.time_ns, ex_now_ns() - t0);
        FL_TRY(rc);
        if (*out) {
            if (done && !probe_rows)
                o->pb = NULL;
            *out = project_out(o, *out);
            ex_stats_out(n, *out);
            return FL_OK;
        }
        if (!done)
            continue;
        if (o->pos >= fl_batch_live_rows(o->pb)) {
            if (probe_rows)
                FL_TRY(emit_probe_rows(o, out, err));
            o->pb = NULL;
            if (*out) {
                *out = project_out(o, *out);
                ex_stats_out(n, *out);
                return FL_OK;
            }
        }
    }
}

static void join_op_free(ex_op *op)
{
    join_op *o = (join_op *)op;
    ex_op_free(o->child);
    ex_exprs_free(&o->keys);
    free(o->ph);
    free(o->pmatch);
    free(o->urows);
    free(o->pk);
    free(o->first);
    free(o->pskip);
    free(o->pp);
    free(o->pg);
    fl_batch_destroy(&o->pairs);
    if (o->st->type == FL_JOIN_MARK && o->out.cols) {
        /* the first np columns are shallow copies of the probe batch */
        memset(o->out.cols, 0, o->st->np * sizeof *o->out.cols);
    }
    fl_batch_destroy(&o->out);
    free(o->outv.cols);
    ex_sel_free(&o->psel);
    ex_sel_free(&o->vsel);
    if (o->part)
        ex_grace_release(o->part);
    ex_join_table_free(o->base.node ? o->base.node->x : NULL, &o->ptab);
    fl_batch_destroy(&o->spb);
    if (o->stage) {
        for (uint32_t i = 0; i < 2 * JG_FANOUT; i++)
            fl_batch_destroy(&o->stage[i]);
        free(o->stage);
    }
    free(o);
}

static fl_status join_open(ex_node *n, ex_thread *th, ex_op **out, fl_error *err)
{
    join_state *st = n->state;
    join_op *o = calloc(1, sizeof *o);
    if (!o)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    o->base.next = join_next;
    o->base.free = join_op_free;
    o->base.node = n;
    o->st = st;
    o->t = &st->mem;
    o->ptab.build.schema = st->wide;
    o->keys.e = st->pkeys;
    o->keys.n = st->nkeys;
    o->ph = calloc(FL_BATCH_CAP, sizeof *o->ph);
    o->pmatch = calloc(FL_BATCH_CAP, 1);
    o->urows = calloc(FL_BATCH_CAP, sizeof *o->urows);
    o->pk = calloc(FL_BATCH_CAP, sizeof *o->pk);
    o->first = calloc(FL_BATCH_CAP, sizeof *o->first);
    o->pskip = calloc(FL_BATCH_CAP, 1);
    o->rows_cap = FL_BATCH_CAP;
    o->pp = calloc(FL_BATCH_CAP, sizeof *o->pp);
    o->pg = calloc(FL_BATCH_CAP, sizeof *o->pg);
    fl_status rc = o->ph && o->pmatch && o->pp && o->pg && o->urows && o->pk && o->first &&
                            o->pskip
                        ? FL_OK
                                                       : fl_errorf(err, FL_ENOMEM, "out of memory");
    /* the pairs batch has the join's left ++ right layout */
    const fl_schema *ls = &n->children[0]->p->schema, *rs = &n->children[1]->p->schema;
    uint32_t m = ls->nfields + rs->nfields;
    const fl_type *ts[m ? m : 1];
    for (uint32_t c = 0; c < ls->nfields; c++)
        ts[c] = &ls->fields[c].type;
    for (uint32_t c = 0; c < rs->nfields; c++)
        ts[ls->nfields + c] = &rs->fields[c].type;
    const fl_schema *ps = rc ? NULL : ex_schema_of(n->x, ts, m);
    if (!rc && !ps)
        rc = fl_errorf(err, FL_ENOMEM, "out of memory");
    if (!rc)
        rc = fl_batch_init(&o->pairs, ps, err);
    if (!rc)
        rc = fl_batch_init(&o->out, st->type == FL_JOIN_MARK || st->type == FL_JOIN_SEMI ||
                                            st->type == FL_JOIN_ANTI
                                        ? st->full
                                        : ps,
                           err);
    if (!rc && st->outc) {
        o->outv.schema = &n->p->schema;
        o->outv.ncols = st->nout;
        if (!(o->outv.cols = calloc(st->nout ? st->nout : 1, sizeof *o->outv.cols)))
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    if (!rc && st->type == FL_JOIN_MARK)
        for (uint32_t c = 0; c < st->np; c++) {
            fl_vector_destroy(&o->out.cols[c]);
            memset(&o->out.cols[c], 0, sizeof o->out.cols[c]);
        }
    if (!rc && st->grace) {
        rc = fl_batch_init(&o->spb, st->pwide, err);
        if (!rc && !(o->stage = calloc(2 * JG_FANOUT, sizeof *o->stage)))
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
        for (uint32_t i = 0; !rc && i < 2 * JG_FANOUT; i++)
            rc = fl_batch_init(&o->stage[i], i < JG_FANOUT ? st->wide : st->pwide, err);
    } else if (!rc) {
        rc = ex_open(n->children[st->pi], th, &o->child, err);
    }
    if (rc) {
        join_op_free(&o->base);
        return rc;
    }
    if (!st->grace)
        atomic_fetch_add(&st->probers, 1);
    *out = &o->base;
    return FL_OK;
}

static void join_destroy(ex_node *n)
{
    join_state *st = n->state;
    if (!st)
        return;
    for (uint32_t t = 0; st->locals && t < st->nlocals; t++) {
        ex_jrows_free(n->x, &st->locals[t]);
        if (st->lmem)
            ex_jmem_free(n->x, &st->lmem[t]);
        ex_exprs_free(&st->lkeys[t]);
    }
    free(st->locals);
    free(st->lmem);
    free(st->oneed);
    free(st->gneed);
    free(st->lkeys);
    ex_join_table_free(n->x, &st->mem);
    ex_grace_destroy(n);
    free(st);
}

/* Marks the left ++ right columns e reads in need. */
static void expr_cols(const fl_expr *e, bool *need, uint32_t n)
{
    if (!e)
        return;
    if (e->kind == FL_EXPR_COLUMN && e->column < n)
        need[e->column] = true;
    for (uint32_t i = 0; i < e->nargs; i++)
        expr_cols(e->args[i], need, n);
}

/* The output list and which columns the join fills: want = columns of the
 * full layout. */
static fl_status out_layout(ex_node *n, join_state *st, uint32_t want, fl_error *err)
{
    const fl_plan *p = n->p;
    fl_join_type t = st->type;
    const fl_schema *ls = &n->children[0]->p->schema, *rs = &n->children[1]->p->schema;
    uint32_t npairs = ls->nfields + rs->nfields;
    st->outc = p->u.join.out_cols;
    st->nout = st->outc ? p->u.join.nout_cols : want;
    if (p->schema.nfields != st->nout)
        return fl_errorf(err, FL_EINVAL, "JOIN output has %u columns, expected %u",
                         p->schema.nfields, st->nout);
    st->oneed = calloc(want ? want : 1, 1);
    st->gneed = calloc(npairs ? npairs : 1, 1);
    if (!st->oneed || !st->gneed)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < st->nout; i++) {
        uint32_t c = st->outc ? st->outc[i] : i;
        if (c >= want)
            return fl_errorf(err, FL_EINVAL, "JOIN output column %u is out of range (%u)", c,
                             want);
        st->oneed[c] = true;
    }
    bool pair_output = t == FL_JOIN_INNER || t == FL_JOIN_LEFT || t == FL_JOIN_RIGHT ||
                       t == FL_JOIN_FULL || t == FL_JOIN_CROSS || t == FL_JOIN_SINGLE;
    if (pair_output)
        memcpy(st->gneed, st->oneed, npairs);
    expr_cols(p->u.join.residual, st->gneed, npairs);
    /* the full layout's schema: the pairs' for pair joins, else left (+ mark) */
    uint32_t m = want;
    const fl_type *ts[m ? m : 1];
    static const fl_type bool_type = {.id = FL_TYPE_BOOLEAN};
    for (uint32_t c = 0; c < m; c++)
        ts[c] = c < ls->nfields ? &ls->fields[c].type
                : t == FL_JOIN_MARK ? &bool_type
                                    : &rs->fields[c - ls->nfields].type;
    if (!(st->full = ex_schema_of(n->x, ts, m)))
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    return FL_OK;
}

/* Width of an integer-like key whose raw bytes compare as its value (4
 * or 8), 0 for other types. */
static uint32_t int_key_width(const fl_type *t)
{
    switch (t->id) {
    case FL_TYPE_INT32:
    case FL_TYPE_DATE: return 4;
    case FL_TYPE_INT64:
    case FL_TYPE_TIME:
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ:
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS: return 8;
    default: return 0;
    }
}

fl_status ex_join_node(ex_node *n, fl_error *err)
{
    fl_plan *p = n->p;
    if (n->nchildren != 2)
        return fl_errorf(err, FL_EINVAL, "JOIN needs two children");
    join_state *st = calloc(1, sizeof *st);
    if (!st)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    n->state = st;
    for (uint32_t q = 0; q < JG_FANOUT; q++)
        pthread_mutex_init(&st->top_mu[q], NULL);
    pthread_mutex_init(&st->qmu, NULL);
    st->mu_inited = true;
    n->destroy = join_destroy;
    n->prepare = join_prepare;
    n->open = join_open;
    st->type = p->u.join.type;
    st->nkeys = st->type == FL_JOIN_CROSS ? 0 : p->u.join.nkeys;
    if (st->nkeys > 32)
        return fl_errorf(err, FL_EUNSUPPORTED, "join on more than 32 keys");
    st->null_safe = p->u.join.null_safe;
    bool sym = st->type == FL_JOIN_INNER || st->type == FL_JOIN_LEFT ||
               st->type == FL_JOIN_RIGHT || st->type == FL_JOIN_FULL || st->type == FL_JOIN_CROSS;
    bool semi = st->type == FL_JOIN_SEMI || st->type == FL_JOIN_ANTI;
    st->build_left = (sym || semi) && p->u.join.build_left;
    st->build_semi = semi && st->build_left;
    st->bi = st->build_left ? 0 : 1;
    st->pi = 1 - st->bi;
    st->nb = n->children[st->bi]->p->schema.nfields;
    st->np = n->children[st->pi]->p->schema.nfields;
    st->bkeys = st->build_left ? p->u.join.left_keys : p->u.join.right_keys;
    st->pkeys = st->build_left ? p->u.join.right_keys : p->u.join.left_keys;
    st->build_outer = st->build_semi ||
                      (st->build_left ? is_outer_left(st->type) : is_outer_right(st->type));
    st->probe_outer = !st->build_semi &&
                      (st->build_left ? is_outer_right(st->type) : is_outer_left(st->type));
    const fl_schema *bs = &n->children[st->bi]->p->schema;
    const fl_schema *pschema = &n->children[st->pi]->p->schema;
    uint32_t m = st->nb + st->nkeys, pm = st->np + st->nkeys;
    const fl_type *ts[m ? m : 1], *pts[pm ? pm : 1];
    for (uint32_t c = 0; c < st->nb; c++)
        ts[c] = &bs->fields[c].type;
    for (uint32_t c = 0; c < st->np; c++)
        pts[c] = &pschema->fields[c].type;
    for (uint32_t k = 0; k < st->nkeys; k++) {
        const fl_type *a = &st->bkeys[k]->type, *b = &st->pkeys[k]->type;
        if (a->id != b->id || (a->id == FL_TYPE_DECIMAL && a->scale != b->scale))
            return fl_errorf(err, FL_ETYPE, "join key %u compares different types", k + 1);
        if (!ex_type_hashable(a))
            return fl_errorf(err, FL_EUNSUPPORTED, "join on a nested value");
        ts[st->nb + k] = a;
        pts[st->np + k] = a;
    }
    if (st->nkeys == 1 && !(st->null_safe && st->null_safe[0])) {
        /* raw-byte equality is value equality for integers, dates, times,
         * timestamps and decimals of one scale (not floats: -0.0, NaN) */
        switch (st->bkeys[0]->type.id) {
        case FL_TYPE_INT32:
        case FL_TYPE_INT64:
        case FL_TYPE_DATE:
        case FL_TYPE_TIME:
        case FL_TYPE_TIMESTAMP:
        case FL_TYPE_TIMESTAMPTZ:
        case FL_TYPE_DECIMAL:
            st->key_width = (uint32_t)fl_type_width(&st->bkeys[0]->type);
            break;
        default:
            break;
        }
    }
    st->pack = JK_NONE;
    if (st->nkeys == 1 || st->nkeys == 2) {
        bool ok = true;
        for (uint32_t k = 0; k < st->nkeys; k++) {
            uint32_t w = int_key_width(&st->bkeys[k]->type);
            ok &= w != 0 && !(st->null_safe && st->null_safe[k]);
            st->kw[k] = (uint8_t)w;
        }
        if (ok)
            st->pack = st->nkeys == 1 ? JK_ONE : JK_TWO;
    }
    if (!(st->wide = ex_schema_of(n->x, ts, m)) || !(st->pwide = ex_schema_of(n->x, pts, pm)))
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    ex_rows_init(&st->mem.build, st->wide);
    uint32_t want = semi ? n->children[0]->p->schema.nfields
                    : st->type == FL_JOIN_MARK                           ? st->np + 1
                                                                          : st->nb + st->np;
    return out_layout(n, st, want, err);
}
