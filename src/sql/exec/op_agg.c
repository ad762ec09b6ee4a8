/*
 * op_agg.c - hash aggregation (AGG), SELECT DISTINCT and set operations,
 * all on one engine ("agg core").
 *
 * Build: every worker thread aggregates the morsels it pulls into its own
 * hash table per grouping set (ht.c): keys are evaluated per batch, each
 * live row finds or creates its group, and each aggregate's update() gets
 * one state pointer per row (func.h scatter contract). A FILTER clause
 * narrows the rows an aggregate sees. DISTINCT and ordered-set aggregates
 * (ORDER BY inside the call) cannot be folded incrementally: their rows
 * (group keys, arguments, order keys) are kept per thread and fed after the
 * merge (deduplicated / sorted first).
 *
 * Merge: thread tables are merged by hash partition (P partitions, merged in
 * parallel, states combined with combine() then destroyed), so no lock is
 * taken while aggregating.
 *
 * Output: per partition, groups in chunks of FL_BATCH_CAP: key columns
 * (NULL for keys outside a grouping set) then finalize() of each aggregate.
 * Without keys there is exactly one output row, also for no input (count = 0,
 * sum = NULL, as SQL says).
 *
 * Spilling (one grouping set): when a thread's table passes its share of
 * memory_limit (ex_spill_budget), the thread stops adding groups: rows of
 * groups it already has still aggregate in memory, rows of new groups go to
 * one of c->spill_parts spill files by hash (their key and argument values and
 * each FILTER's result). The merge then uses the same hash
 * partitions and feeds each partition's spilled rows into that partition's
 * table, so only one partition's groups are built at a time.
 *
 * DISTINCT is the core with every column a key and no aggregates. SETOP
 * INTERSECT/EXCEPT count rows per side in a 16-byte payload (a private
 * aggregate over a constant side argument); UNION ALL concatenates.
 */
#include <stdlib.h>
#include <string.h>

#include "sql/exec/agg_hash.h"
#include "sql/exec/agg_pack.h"
#include "sql/exec/exec_internal.h"

typedef struct agg_def {
    const fl_agg_ops *ops;
    fl_expr **args;
    uint32_t nargs;
    fl_expr *filter;
    bool distinct;
    fl_expr **order;
    bool *order_desc;
    uint32_t norder;
    fl_type result;
    bool no_partial; /* partial states cannot be combined (string_agg): fed whole */
    bool side; /* distinct, ordered or no_partial: rows kept, fed after the merge */
} agg_def;

typedef struct agg_local_set {
    ex_ht ht;      /* the table while unpartitioned (npt == 0) */
    ex_ht *pt;     /* partitioned: npt tables by part_of(hash, npt) (split_set) */
    uint32_t npt;
    bool nosplit;  /* splitting would pass the memory limit: stays whole */
    agg_pack pack; /* packed-key cache of ht's groups (few groups) */
    ex_rows *side; /* per aggregate (side ones only) */
} agg_local_set;

/* Spill partitions: up to 256 (so each holds 1/256 of the spilled groups),
 * fewer with many threads (every thread has a file per partition). */
#define SPILL_PARTS_MAX 256
#define SPILL_FLUSH_ROWS 256 /* rows buffered per partition before a write */

static uint32_t part_of(uint64_t h, uint32_t nparts)
{
    return (uint32_t)((h >> 40) & (nparts - 1));
}

/* Radix-partitioned thread tables. With several threads, a thread table
 * that passes PART_SPLIT_GROUPS groups is split into c->local_parts tables
 * by part_of(hash) (the merge's partitions), so merging partition p takes
 * one thread's table p over as it is and inserts only the other threads'
 * table p groups - no pass over every group per partition, and half the
 * inserts with two threads (TPC-H Q18: 1.5M groups). Group ids of a
 * partitioned set are part << PART_GID_BITS | id in that part's table. */
#define PART_SPLIT_GROUPS 32768
#define PART_GID_BITS 26
#define PART_GID_MASK ((1u << PART_GID_BITS) - 1)


typedef struct agg_local {
    bool inited;
    bool spilling;
    /* spilling: rows probed against the full table and how many found their
     * group; when few do, probing stops and every row is spilled (the merge
     * combines in-memory groups and spilled rows of a partition anyway) */
    uint64_t probed, hits;
    bool no_probe;
    uint64_t rows_in; /* live input rows aggregated by this thread */
    ex_spill *parts;  /* SPILL_PARTS files, opened lazily */
    ex_rows *pbuf;    /* per partition: rows waiting to be written */
    fl_vector *fvec;  /* per aggregate: FILTER result as BOOLEAN (spilling) */
    fl_sel found, missing, scratch;
    uint32_t scratch_cap; /* rows of hashes/gids/states */
    agg_local_set *sets;
    ex_exprs keys;
    ex_exprs *args;   /* per aggregate */
    ex_exprs *orders; /* per aggregate */
    fl_sel fsel;
    uint64_t *hashes;
    uint32_t *gids;
    void **states;
    uint8_t **bases; /* per row: its group's payload (update_aggs) */
    agg_hash_scratch hsc; /* dictionary-entry hashes of key columns */
} agg_local;

typedef struct agg_core {
    fl_exec *x;
    ex_node *n;
    fl_expr **keys;
    uint32_t nkeys;
    agg_def *aggs;
    uint32_t naggs;
    uint32_t nsets;
    const uint32_t *const *sets;
    const uint32_t *set_sizes;
    uint32_t *off;
    uint32_t payload;
    const fl_schema **set_kschema; /* per set */
    const fl_schema **side_schema; /* per agg: set keys + args + order (set 0 layout per set) */
    agg_local *locals;             /* per thread */
    uint32_t nlocals;
    uint32_t nparts;
    uint32_t local_parts; /* thread tables split into this many past PART_SPLIT_GROUPS; <= 1: never */
    bool movable;         /* no aggregate state owns memory: states move by memcpy */
    ex_ht *final; /* nsets * nparts */
    bool merged;
    bool can_spill;
    uint64_t budget;
    const fl_schema *spill_schema; /* keys, every aggregate's args, one BOOLEAN per FILTER */
    uint32_t *arg_col;             /* per aggregate: first arg column in spill rows */
    uint32_t *filter_col;          /* per aggregate: FILTER column or UINT32_MAX */
    uint32_t *order_col;           /* per side aggregate: first ORDER BY column in spill rows */
    uint32_t known_col;            /* BOOLEAN: the row's group was in memory (spill rows) */
    bool has_side;
    uint32_t spill_parts; /* power of two <= SPILL_PARTS_MAX */
    /* spilled input: partitions are merged and output by the node's
     * operators (agg_stream_next), one partition per claim */
    bool spilled;
    atomic_uint next_part;
    /* output of one merged table (AGG: finalize; SETOP: rows repeated) */
    fl_status (*emit)(struct agg_core *c, ex_ht *h, uint32_t s, uint32_t g0, uint32_t g1,
                      ex_rows *out, const fl_schema *schema, fl_error *err);
    /* in-memory output: chunks of FL_BATCH_CAP groups of c->final, claimed
     * by the node's operators; chunk_off[t] = first chunk of table t */
    uint64_t *chunk_off;
    atomic_ullong next_chunk;
    void *emit_ctx;
} agg_core;

static fl_status output_table(agg_core *c, ex_ht *h, uint32_t s, uint32_t g0, uint32_t g1,
                              ex_rows *out, const fl_schema *schema, fl_error *err);

static uint32_t set_size(const agg_core *c, uint32_t s)
{
    return c->nsets ? c->set_sizes[s] : c->nkeys;
}
static uint32_t set_key(const agg_core *c, uint32_t s, uint32_t i)
{
    return c->nsets ? c->sets[s][i] : i;
}
static uint32_t nsets_eff(const agg_core *c)
{
    return c->nsets ? c->nsets : 1;
}

static fl_status core_init(agg_core *c, fl_exec *x, ex_node *n, fl_error *err)
{
    c->x = x;
    c->n = n;
    c->off = calloc(c->naggs ? c->naggs : 1, sizeof *c->off);
    if (!c->off)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    uint32_t cur = 0;
    for (uint32_t a = 0; a < c->naggs; a++) {
        agg_def *d = &c->aggs[a];
        if (!d->ops || !d->ops->init || !d->ops->update || !d->ops->finalize)
            return fl_errorf(err, FL_EINVAL, "aggregate %u has no implementation", a + 1);
        size_t al = d->ops->state_align ? d->ops->state_align : 8;
        cur = (uint32_t)((cur + al - 1) / al * al);
        c->off[a] = cur;
        cur += (uint32_t)d->ops->state_size;
        d->side = d->distinct || d->norder > 0 || d->no_partial;
        c->has_side |= d->side;
    }
    c->payload = (cur + 15) & ~15u;
    for (uint32_t k = 0; k < c->nkeys; k++)
        if (!ex_type_hashable(&c->keys[k]->type))
            return fl_errorf(err, FL_EUNSUPPORTED, "GROUP BY on a nested value (column %u)", k + 1);
    uint32_t ns = nsets_eff(c);
    c->set_kschema = calloc(ns, sizeof *c->set_kschema);
    c->side_schema = calloc((size_t)ns * (c->naggs ? c->naggs : 1), sizeof *c->side_schema);
    if (!c->set_kschema || !c->side_schema)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t s = 0; s < ns; s++) {
        uint32_t sz = set_size(c, s);
        const fl_type *ts[sz ? sz : 1];
        for (uint32_t i = 0; i < sz; i++) {
            uint32_t k = set_key(c, s, i);
            if (k >= c->nkeys)
                return fl_errorf(err, FL_EINVAL, "grouping set refers to key %u of %u", k,
                                 c->nkeys);
            ts[i] = &c->keys[k]->type;
        }
        if (!(c->set_kschema[s] = ex_schema_of(x, ts, sz)))
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (uint32_t a = 0; a < c->naggs; a++) {
            agg_def *d = &c->aggs[a];
            if (!d->side)
                continue;
            uint32_t m = sz + d->nargs + d->norder;
            const fl_type *st[m ? m : 1];
            for (uint32_t i = 0; i < sz; i++)
                st[i] = ts[i];
            for (uint32_t i = 0; i < d->nargs; i++)
                st[sz + i] = &d->args[i]->type;
            for (uint32_t i = 0; i < d->norder; i++)
                st[sz + d->nargs + i] = &d->order[i]->type;
            if (!(c->side_schema[s * c->naggs + a] = ex_schema_of(x, st, m)))
                return fl_errorf(err, FL_ENOMEM, "out of memory");
        }
    }
    if (!c->emit)
        c->emit = output_table;
    c->budget = ex_spill_budget(x);
    c->can_spill = c->nsets <= 1;
    c->spill_parts = SPILL_PARTS_MAX;
    while (c->spill_parts > 16 && c->spill_parts * x->threads > 512)
        c->spill_parts /= 2;
    c->movable = true;
    for (uint32_t a = 0; a < c->naggs; a++)
        c->movable &= c->aggs[a].ops->destroy == NULL;
    /* split thread tables (several threads, one grouping set, states that
     * move by memcpy): threads * 4 parts, at most 64 and spill_parts (so a
     * spill partition lies in one part) */
    c->local_parts = 1;
    if (x->threads > 1 && c->nsets <= 1 && c->nkeys > 0 && c->movable)
        while (c->local_parts < 64 && c->local_parts < x->threads * 4 &&
               c->local_parts < c->spill_parts)
            c->local_parts *= 2;
    c->arg_col = calloc(c->naggs ? c->naggs : 1, sizeof *c->arg_col);
    c->filter_col = calloc(c->naggs ? c->naggs : 1, sizeof *c->filter_col);
    c->order_col = calloc(c->naggs ? c->naggs : 1, sizeof *c->order_col);
    if (!c->arg_col || !c->filter_col || !c->order_col)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    {
        uint32_t m = c->nkeys + 1;
        for (uint32_t a = 0; a < c->naggs; a++)
            m += c->aggs[a].nargs + (c->aggs[a].filter ? 1 : 0) +
                 (c->aggs[a].side ? c->aggs[a].norder : 0);
        const fl_type **st = calloc(m ? m : 1, sizeof *st);
        if (!st)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        static const fl_type bool_type = {.id = FL_TYPE_BOOLEAN};
        uint32_t k = 0;
        for (uint32_t i = 0; i < c->nkeys; i++)
            st[k++] = &c->keys[i]->type;
        for (uint32_t a = 0; a < c->naggs; a++) {
            c->arg_col[a] = k;
            for (uint32_t i = 0; i < c->aggs[a].nargs; i++)
                st[k++] = &c->aggs[a].args[i]->type;
        }
        for (uint32_t a = 0; a < c->naggs; a++) {
            c->filter_col[a] = UINT32_MAX;
            if (c->aggs[a].filter) {
                c->filter_col[a] = k;
                st[k++] = &bool_type;
            }
        }
        for (uint32_t a = 0; a < c->naggs; a++) {
            c->order_col[a] = k;
            if (c->aggs[a].side)
                for (uint32_t i = 0; i < c->aggs[a].norder; i++)
                    st[k++] = &c->aggs[a].order[i]->type;
        }
        c->known_col = k;
        st[k++] = &bool_type;
        for (uint32_t i = 0; i < m; i++)
            if (fl_type_is_nested(st[i]))
                c->can_spill = false;
        c->spill_schema = ex_schema_of(x, st, m);
        free(st);
        if (!c->spill_schema)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    c->nlocals = x->threads;
    c->locals = calloc(c->nlocals, sizeof *c->locals);
    if (!c->locals)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    return FL_OK;
}

static void destroy_states(agg_core *c, ex_ht *h)
{
    for (uint32_t a = 0; a < c->naggs; a++) {
        if (!c->aggs[a].ops->destroy)
            continue;
        for (uint32_t g = 0; g < h->ngroups; g++)
            c->aggs[a].ops->destroy(ex_ht_payload(h, g) + c->off[a]);
    }
}

/* ---- a thread's table of one grouping set, whole or partitioned ---- */

static inline uint8_t *set_payload(const agg_local_set *ls, uint32_t gid)
{
    if (!ls->npt)
        return ex_ht_payload(&ls->ht, gid);
    return ex_ht_payload(&ls->pt[gid >> PART_GID_BITS], gid & PART_GID_MASK);
}

static inline void set_prefetch(const agg_local_set *ls, uint64_t hv)
{
    ex_ht_prefetch(ls->npt ? &ls->pt[part_of(hv, ls->npt)] : &ls->ht, hv);
}

static inline void set_prefetch_group(const agg_local_set *ls, uint64_t hv)
{
    ex_ht_prefetch_group(ls->npt ? &ls->pt[part_of(hv, ls->npt)] : &ls->ht, hv);
}

static uint64_t set_bytes(const agg_local_set *ls)
{
    uint64_t n = ls->ht.bytes + ls->ht.keys.bytes;
    for (uint32_t p = 0; p < ls->npt; p++)
        n += ls->pt[p].bytes + ls->pt[p].keys.bytes;
    return n;
}

static uint64_t set_groups(const agg_local_set *ls)
{
    uint64_t n = ls->ht.ngroups;
    for (uint32_t p = 0; p < ls->npt; p++)
        n += ls->pt[p].ngroups;
    return n;
}

/* ex_ht_find on the set's table (the part of hv when partitioned). */
static fl_status set_find(agg_local_set *ls, const fl_unified *ku, const fl_vector *const *kv,
                          uint32_t row, uint64_t hv, bool add, uint32_t *gid, bool *added,
                          fl_error *err)
{
    if (!ls->npt)
        return ex_ht_find(&ls->ht, ku, kv, row, hv, add, gid, added, err);
    uint32_t p = part_of(hv, ls->npt), g;
    FL_TRY(ex_ht_find(&ls->pt[p], ku, kv, row, hv, add, &g, added, err));
    if (g == UINT32_MAX) {
        *gid = UINT32_MAX;
        return FL_OK;
    }
    if (g >= PART_GID_MASK)
        return fl_errorf(err, FL_ELIMIT, "aggregate: more than %u groups in one hash partition",
                         PART_GID_MASK - 1);
    *gid = p << PART_GID_BITS | g;
    return FL_OK;
}

/* Destroys the states of every table of the set and frees the tables; the
 * set is left empty and unpartitioned (ls->ht initialized). */
static void set_reset(agg_core *c, agg_local_set *ls, uint32_t s)
{
    destroy_states(c, &ls->ht);
    ex_ht_free(&ls->ht);
    for (uint32_t p = 0; p < ls->npt; p++) {
        destroy_states(c, &ls->pt[p]);
        ex_ht_free(&ls->pt[p]);
    }
    free(ls->pt);
    ls->pt = NULL;
    ls->npt = 0;
    agg_pack_free(&ls->pack); /* its group ids were the freed tables' */
    ex_ht_init(&ls->ht, c->x, c->set_kschema[s], c->payload);
}

/* Splits the set's table into c->local_parts tables by part_of(hash):
 * groups re-inserted by their stored hashes, states moved by memcpy
 * (c->movable). The packed-key cache is switched off (its ids change; it
 * is off past AGG_PACK_MAX groups anyway). */
/* The groups each split table is sized for: twice the thread's groups
 * now, spread over the parts. Sizing from the groups per input row so far
 * times the planner's input rows was tried: right for input clustered by
 * the key (Q18: 4 rows per order), but the ratio falls as groups fill up
 * when input is unordered (Q13: 4x too many slots, +20% CPU from zeroing
 * and sparser probes), so each part doubles as it grows instead. */
static uint64_t predict_groups(const agg_core *c, const agg_local *l, uint64_t groups)
{
    (void)c;
    (void)l;
    return groups * 2;
}

static fl_status split_set(agg_core *c, agg_local *l, agg_local_set *ls, uint32_t s, fl_error *err)
{
    uint32_t np = c->local_parts;
    ex_ht *src = &ls->ht;
    ex_ht *pt = calloc(np, sizeof *pt);
    if (!pt)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t p = 0; p < np; p++)
        ex_ht_init(&pt[p], c->x, c->set_kschema[s], c->payload);
    fl_status rc = FL_OK;
    uint64_t want = predict_groups(c, l, src->ngroups);
    for (uint32_t p = 0; !rc && p < np; p++)
        rc = ex_ht_reserve(&pt[p], want / np + 64, err);
    fl_unified ku[src->nkeys ? src->nkeys : 1];
    for (uint32_t g = 0; !rc && g < src->ngroups; g++) {
        uint64_t hv = src->hashes[g];
        uint32_t row, dg, p = part_of(hv, np);
        bool added;
        ex_ht_group_keys(src, g, ku, NULL, &row);
        rc = ex_ht_find(&pt[p], ku, NULL, row, hv, true, &dg, &added, err);
        if (!rc && !added)
            rc = fl_errorf(err, FL_EINVAL, "aggregate: duplicate group %u while partitioning", g);
        if (!rc && c->payload)
            memcpy(ex_ht_payload(&pt[p], dg), ex_ht_payload(src, g), c->payload);
    }
    if (rc) { /* states were copied, not moved: the source keeps them */
        for (uint32_t p = 0; p < np; p++)
            ex_ht_free(&pt[p]);
        free(pt);
        return rc;
    }
    ex_ht_free(src); /* states moved: nothing to destroy */
    ex_ht_init(src, c->x, c->set_kschema[s], c->payload);
    ls->pt = pt;
    ls->npt = np;
    agg_pack_free(&ls->pack);
    ls->pack.planned = true;
    ls->pack.off = true;
    return FL_OK;
}

static void local_free(agg_core *c, agg_local *l)
{
    if (!l->inited)
        return;
    for (uint32_t s = 0; s < nsets_eff(c); s++) {
        agg_local_set *ls = &l->sets[s];
        set_reset(c, ls, s);
        ex_ht_free(&ls->ht);
        agg_pack_free(&ls->pack);
        if (ls->side) {
            for (uint32_t a = 0; a < c->naggs; a++)
                ex_rows_free(c->x, &ls->side[a]);
            free(ls->side);
        }
    }
    free(l->sets);
    for (uint32_t p = 0; l->parts && p < c->spill_parts; p++)
        ex_spill_close(&l->parts[p]);
    free(l->parts);
    for (uint32_t p = 0; l->pbuf && p < c->spill_parts; p++)
        ex_rows_free(NULL, &l->pbuf[p]);
    free(l->pbuf);
    for (uint32_t a = 0; l->fvec && a <= c->naggs; a++)
        fl_vector_destroy(&l->fvec[a]);
    free(l->fvec);
    ex_sel_free(&l->found);
    ex_sel_free(&l->missing);
    ex_sel_free(&l->scratch);
    ex_exprs_free(&l->keys);
    for (uint32_t a = 0; a < c->naggs; a++) {
        if (l->args)
            ex_exprs_free(&l->args[a]);
        if (l->orders)
            ex_exprs_free(&l->orders[a]);
    }
    free(l->args);
    free(l->orders);
    ex_sel_free(&l->fsel);
    free(l->hashes);
    free(l->gids);
    free(l->states);
    free(l->bases);
    agg_hash_scratch_free(&l->hsc);
    memset(l, 0, sizeof *l);
}

static void core_free(agg_core *c)
{
    if (c->locals)
        for (uint32_t t = 0; t < c->nlocals; t++)
            local_free(c, &c->locals[t]);
    free(c->locals);
    if (c->final) {
        for (uint32_t i = 0; i < nsets_eff(c) * c->nparts; i++) {
            destroy_states(c, &c->final[i]);
            ex_ht_free(&c->final[i]);
        }
        free(c->final);
    }
    free(c->off);
    free(c->arg_col);
    free(c->filter_col);
    free(c->order_col);
    free(c->chunk_off);
    free(c->set_kschema);
    free(c->side_schema);
    memset(c, 0, sizeof *c);
}

static fl_status local_init(agg_core *c, agg_local *l, fl_error *err)
{
    uint32_t ns = nsets_eff(c);
    l->inited = true;
    l->sets = calloc(ns, sizeof *l->sets);
    l->args = calloc(c->naggs ? c->naggs : 1, sizeof *l->args);
    l->orders = calloc(c->naggs ? c->naggs : 1, sizeof *l->orders);
    l->hashes = malloc(FL_BATCH_CAP * sizeof *l->hashes);
    l->gids = malloc(FL_BATCH_CAP * sizeof *l->gids);
    l->states = malloc(FL_BATCH_CAP * sizeof *l->states);
    l->bases = malloc(FL_BATCH_CAP * sizeof *l->bases);
    l->scratch_cap = FL_BATCH_CAP;
    if (!l->sets || !l->args || !l->orders || !l->hashes || !l->gids || !l->states || !l->bases)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    l->keys.e = c->keys;
    l->keys.n = c->nkeys;
    for (uint32_t a = 0; a < c->naggs; a++) {
        l->args[a].e = c->aggs[a].args;
        l->args[a].n = c->aggs[a].nargs;
        l->orders[a].e = c->aggs[a].order;
        l->orders[a].n = c->aggs[a].norder;
    }
    for (uint32_t s = 0; s < ns; s++) {
        ex_ht_init(&l->sets[s].ht, c->x, c->set_kschema[s], c->payload);
        l->sets[s].side = calloc(c->naggs ? c->naggs : 1, sizeof *l->sets[s].side);
        if (!l->sets[s].side)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (uint32_t a = 0; a < c->naggs; a++)
            if (c->aggs[a].side)
                ex_rows_init(&l->sets[s].side[a], c->side_schema[s * c->naggs + a]);
    }
    return FL_OK;
}

/* Grows the per-row scratch arrays to nrows (input batches may exceed
 * FL_BATCH_CAP, e.g. materialized rows). */
static fl_status ensure_rows(agg_local *l, uint32_t nrows, fl_error *err)
{
    if (nrows <= l->scratch_cap)
        return FL_OK;
    uint64_t *h = realloc(l->hashes, (size_t)nrows * sizeof *h);
    if (h)
        l->hashes = h;
    uint32_t *g = realloc(l->gids, (size_t)nrows * sizeof *g);
    if (g)
        l->gids = g;
    void **st = realloc(l->states, (size_t)nrows * sizeof *st);
    if (st)
        l->states = st;
    uint8_t **bs = realloc(l->bases, (size_t)nrows * sizeof *bs);
    if (bs)
        l->bases = bs;
    if (!h || !g || !st || !bs)
        return fl_errorf(err, FL_ENOMEM, "aggregate: out of memory for a batch of %u rows", nrows);
    l->scratch_cap = nrows;
    return FL_OK;
}

/* Groups of the rows sel of b in table h (keys kv); gids[row]. Without add
 * (spilling), rows of unknown groups go to l->missing, the others to
 * l->found. */
/* group_rows through the packed-key cache pk: rows whose packed key is
 * cached get their group at once; the others are hashed and found (or
 * added) in h, and their groups cached. */
static fl_status group_rows_packed(agg_local *l, agg_local_set *ls, agg_pack *pk, const fl_vector *const *kv,
                                   uint32_t nk, const fl_sel *sel, uint32_t nrows, agg_core *c,
                                   fl_error *err)
{
    FL_TRY(agg_pack_rows(pk, kv, sel, nrows, err));
    FL_TRY(ex_sel_reserve(&l->missing, nrows, err));
    uint32_t cnt = sel ? sel->count : nrows, m = 0;
    for (uint32_t i = 0; i < cnt; i++) {
        uint32_t row = sel ? sel->idx[i] : i;
        uint32_t g = pk->ok[row] ? agg_pack_find(pk, row) : UINT32_MAX;
        if (g != UINT32_MAX)
            l->gids[row] = g;
        else
            l->missing.idx[m++] = row;
    }
    l->missing.count = m;
    if (!m)
        return FL_OK;
    FL_TRY(agg_hash_keys(kv, nk, &l->missing, nrows, l->hashes, &l->hsc, err));
    fl_unified ku[nk];
    for (uint32_t k = 0; k < nk; k++)
        fl_vector_unify(kv[k], &ku[k]);
    for (uint32_t i = 0; i < m; i++) {
        uint32_t row = l->missing.idx[i], g;
        bool added;
        FL_TRY(set_find(ls, ku, kv, row, l->hashes[row], true, &g, &added, err));
        if (added)
            for (uint32_t a = 0; a < c->naggs; a++)
                c->aggs[a].ops->init(set_payload(ls, g) + c->off[a]);
        l->gids[row] = g;
        if (!pk->off && pk->ok[row])
            FL_TRY(agg_pack_add(pk, row, g, err));
    }
    return FL_OK;
}

/* Rows a and b of the key columns are equal (NULLs equal each other). */
static bool same_keys(const fl_unified *ku, uint32_t nk, const fl_vector *const *kv, uint32_t a, uint32_t b)
{
    for (uint32_t k = 0; k < nk; k++)
        if (!ex_value_eq(&ku[k], a, &ku[k], b, kv[k]->type))
            return false;
    return true;
}

/* group_rows adding groups: a row continuing a run of one key (input
 * clustered by the key: lineitem by l_orderkey, 4 rows per order) takes
 * the previous row's group without probing; the rows that probe are listed
 * first so the slot of the probe EX_HT_PREFETCH_AHEAD probes ahead is
 * prefetched (counting rows instead, runs shrank the distance to a few
 * probes and the slot loads missed: a third of Q18's aggregate). */
static fl_status group_rows_add(agg_local *l, agg_local_set *ls, const fl_unified *ku,
                                const fl_vector *const *kv, uint32_t nk, const fl_sel *sel,
                                uint32_t cnt, agg_core *c, fl_error *err)
{
    FL_TRY(ex_sel_reserve(&l->scratch, cnt ? cnt : 1, err));
    uint32_t *pr = l->scratch.idx, np = 0;
    for (uint32_t i = 0; i < cnt; i++) {
        uint32_t row = sel ? sel->idx[i] : i;
        if (i == 0 || l->hashes[row] != l->hashes[sel ? sel->idx[i - 1] : i - 1])
            pr[np++] = row;
    }
    for (uint32_t j = 0; j < np && j < EX_HT_PREFETCH_AHEAD; j++)
        set_prefetch(ls, l->hashes[pr[j]]);
    uint32_t prev = UINT32_MAX, j = 0; /* previous row; probes passed */
    for (uint32_t i = 0; i < cnt; i++) {
        uint32_t row = sel ? sel->idx[i] : i;
        if (prev != UINT32_MAX && l->hashes[row] == l->hashes[prev]) {
            if (same_keys(ku, nk, kv, row, prev)) {
                l->gids[row] = l->gids[prev];
                prev = row;
                continue;
            }
        } else {
            /* row is pr[j] */
            if (j + EX_HT_PREFETCH_AHEAD < np)
                set_prefetch(ls, l->hashes[pr[j + EX_HT_PREFETCH_AHEAD]]);
            if (j + EX_HT_PREFETCH_AHEAD / 2 < np)
                set_prefetch_group(ls, l->hashes[pr[j + EX_HT_PREFETCH_AHEAD / 2]]);
            j++;
        }
        uint32_t g;
        bool added;
        FL_TRY(set_find(ls, ku, kv, row, l->hashes[row], true, &g, &added, err));
        prev = row;
        if (added)
            for (uint32_t a = 0; a < c->naggs; a++)
                c->aggs[a].ops->init(set_payload(ls, g) + c->off[a]);
        l->gids[row] = g;
    }
    return FL_OK;
}

static fl_status group_rows(agg_local *l, agg_local_set *ls, const fl_vector *const *kv, uint32_t nk,
                            const fl_sel *sel, uint32_t nrows, agg_core *c, bool add,
                            fl_error *err)
{
    uint32_t cnt = sel ? sel->count : nrows;
    FL_TRY(agg_hash_keys(kv, nk, sel, nrows, l->hashes, &l->hsc, err));
    fl_unified ku[nk ? nk : 1];
    for (uint32_t k = 0; k < nk; k++)
        fl_vector_unify(kv[k], &ku[k]);
    if (!add) {
        FL_TRY(ex_sel_reserve(&l->found, nrows, err));
        FL_TRY(ex_sel_reserve(&l->missing, nrows, err));
        l->found.count = l->missing.count = 0;
    }
    if (!add && l->no_probe) {
        for (uint32_t i = 0; i < cnt; i++)
            l->missing.idx[l->missing.count++] = sel ? sel->idx[i] : i;
        return FL_OK;
    }
    if (add)
        return group_rows_add(l, ls, ku, kv, nk, sel, cnt, c, err);
    /* spilling: probe only; rows of groups not in memory go to l->missing */
    for (uint32_t i = 0; i < cnt; i++) {
        uint32_t row = sel ? sel->idx[i] : i;
        uint32_t g;
        bool added;
        if (i + EX_HT_PREFETCH_AHEAD < cnt)
            set_prefetch(ls, l->hashes[sel ? sel->idx[i + EX_HT_PREFETCH_AHEAD]
                                            : i + EX_HT_PREFETCH_AHEAD]);
        FL_TRY(set_find(ls, ku, kv, row, l->hashes[row], false, &g, &added, err));
        if (g == UINT32_MAX) {
            l->missing.idx[l->missing.count++] = row;
            continue;
        }
        l->found.idx[l->found.count++] = row;
        l->gids[row] = g;
    }
    return FL_OK;
}

/* Updates the aggregates for the rows base of b (groups in l->gids); side
 * aggregates keep their rows (all of b's live rows) unless !side_ok
 * (spilling: their rows go to the spill files instead). */
static fl_status update_aggs(agg_core *c, agg_local *l, ex_thread *th, agg_local_set *ls,
                             const fl_batch *b, const fl_vector *const *kv, uint32_t nk,
                             const fl_sel *base, bool side_ok, fl_error *err)
{
    bool have_bases = false;
    for (uint32_t a = 0; a < c->naggs; a++) {
        agg_def *d = &c->aggs[a];
        if (d->side && !side_ok)
            continue;
        const fl_sel *sel = d->side ? b->sel : base;
        if (d->filter) {
            FL_TRY(ex_select(th, d->filter, b, sel, &l->fsel, err));
            sel = &l->fsel;
        }
        uint32_t cnt = sel ? sel->count : b->nrows;
        if (cnt == 0)
            continue;
        if (d->side) {
            uint32_t m = nk + d->nargs + d->norder;
            const fl_vector *cols[m ? m : 1];
            for (uint32_t k = 0; k < nk; k++)
                cols[k] = kv[k];
            for (uint32_t i = 0; i < d->nargs; i++)
                cols[nk + i] = l->args[a].ptrs[i];
            if (d->norder)
                FL_TRY(ex_exprs_eval(th, &l->orders[a], b, sel, err));
            for (uint32_t i = 0; i < d->norder; i++)
                cols[nk + d->nargs + i] = l->orders[a].ptrs[i];
            FL_TRY(ex_rows_append(c->x, &ls->side[a], cols, b->nrows, sel, err));
            continue;
        }
        if (sel == base) {
            /* the payload of each row's group, found once for every aggregate without FILTER */
            if (!have_bases) {
                for (uint32_t i = 0; i < cnt; i++)
                    l->bases[i] = set_payload(ls, l->gids[sel ? sel->idx[i] : i]);
                have_bases = true;
            }
            uint32_t off = c->off[a];
            for (uint32_t i = 0; i < cnt; i++)
                l->states[i] = l->bases[i] + off;
        } else {
            for (uint32_t i = 0; i < cnt; i++)
                l->states[i] = set_payload(ls, l->gids[sel ? sel->idx[i] : i]) + c->off[a];
        }
        FL_TRY(d->ops->update(l->states, l->args[a].ptrs, d->nargs, sel, b->nrows, err));
    }
    return FL_OK;
}

static fl_status flush_part(agg_core *c, agg_local *l, uint32_t p, fl_error *err)
{
    ex_rows *r = &l->pbuf[p];
    if (r->rows == 0)
        return FL_OK;
    if (!l->parts[p].f)
        FL_TRY(ex_spill_open(c->x, &l->parts[p], err));
    uint64_t before = l->parts[p].bytes;
    for (uint32_t i = 0; i < r->n; i++)
        FL_TRY(ex_spill_write(&l->parts[p], r->b[i], err));
    atomic_fetch_add(&c->n->p->stats.spilled_bytes, (long long)(l->parts[p].bytes - before));
    ex_rows_free(NULL, r);
    return FL_OK;
}

/* Writes the rows `rows` of b (keys, every aggregate's arguments, FILTER
 * results, side aggregates' ORDER BY values, and `known`: whether the
 * non-side aggregates already counted the row in memory) to the spill
 * partitions of their hashes (l->hashes). */
static fl_status spill_rows(agg_core *c, agg_local *l, ex_thread *th, const fl_batch *b,
                            const fl_sel *rows, bool known, fl_error *err)
{
    static const fl_type bool_type = {.id = FL_TYPE_BOOLEAN};
    if (!l->parts) {
        l->parts = calloc(c->spill_parts, sizeof *l->parts);
        l->pbuf = calloc(c->spill_parts, sizeof *l->pbuf);
        l->fvec = calloc(c->naggs + 1, sizeof *l->fvec);
        if (!l->parts || !l->pbuf || !l->fvec)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (uint32_t p = 0; p < c->spill_parts; p++)
            ex_rows_init(&l->pbuf[p], c->spill_schema);
        for (uint32_t a = 0; a <= c->naggs; a++)
            FL_TRY(fl_vector_init(&l->fvec[a], &bool_type, err));
    }
    uint32_t cnt = rows->count;
    if (!cnt)
        return FL_OK;
    const fl_schema *ss = c->spill_schema;
    const fl_vector *cols[ss->nfields ? ss->nfields : 1];
    for (uint32_t k = 0; k < c->nkeys; k++)
        cols[k] = l->keys.ptrs[k];
    for (uint32_t a = 0; a < c->naggs; a++) {
        agg_def *d = &c->aggs[a];
        for (uint32_t i = 0; i < d->nargs; i++)
            cols[c->arg_col[a] + i] = l->args[a].ptrs[i];
        if (d->side && d->norder) {
            FL_TRY(ex_exprs_eval(th, &l->orders[a], b, b->sel, err));
            for (uint32_t i = 0; i < d->norder; i++)
                cols[c->order_col[a] + i] = l->orders[a].ptrs[i];
        }
        if (c->filter_col[a] == UINT32_MAX)
            continue;
        fl_vector *fv = &l->fvec[a];
        fl_vector_reset(fv);
        FL_TRY(fl_vector_reserve(fv, b->nrows, err));
        memset(fv->data, 0, b->nrows);
        fv->len = b->nrows;
        FL_TRY(ex_select(th, d->filter, b, rows, &l->scratch, err));
        for (uint32_t i = 0; i < l->scratch.count; i++)
            fv->data[l->scratch.idx[i]] = 1;
        cols[c->filter_col[a]] = fv;
    }
    fl_vector *kvec = &l->fvec[c->naggs];
    fl_vector_reset(kvec);
    FL_TRY(fl_vector_reserve(kvec, b->nrows, err));
    memset(kvec->data, known ? 1 : 0, b->nrows);
    kvec->len = b->nrows;
    cols[c->known_col] = kvec;
    /* rows by partition */
    uint32_t start[SPILL_PARTS_MAX + 1] = {0};
    for (uint32_t i = 0; i < cnt; i++)
        start[part_of(l->hashes[rows->idx[i]], c->spill_parts) + 1]++;
    for (uint32_t p = 0; p < c->spill_parts; p++)
        start[p + 1] += start[p];
    uint32_t fill[SPILL_PARTS_MAX];
    memcpy(fill, start, sizeof fill);
    FL_TRY(ex_sel_reserve(&l->scratch, cnt, err));
    for (uint32_t i = 0; i < cnt; i++) {
        uint32_t row = rows->idx[i];
        l->scratch.idx[fill[part_of(l->hashes[row], c->spill_parts)]++] = row;
    }
    for (uint32_t p = 0; p < c->spill_parts; p++) {
        uint32_t m = start[p + 1] - start[p];
        if (!m)
            continue;
        fl_sel ps = {.idx = l->scratch.idx + start[p], .count = m, .cap = m};
        FL_TRY(ex_rows_append(NULL, &l->pbuf[p], cols, b->nrows, &ps, err));
        if (l->pbuf[p].rows >= SPILL_FLUSH_ROWS)
            FL_TRY(flush_part(c, l, p, err));
    }
    return FL_OK;
}

static uint64_t side_bytes(const agg_core *c, const agg_local_set *ls)
{
    uint64_t n = 0;
    for (uint32_t a = 0; a < c->naggs; a++)
        if (c->aggs[a].side)
            n += ls->side[a].bytes;
    return n;
}

static fl_status core_consume(void *ctx, ex_thread *th, const fl_batch *b, fl_error *err)
{
    agg_core *c = ctx;
    if (th->tid >= c->nlocals)
        return fl_errorf(err, FL_EINVAL, "worker %u out of range", th->tid);
    agg_local *l = &c->locals[th->tid];
    if (!l->inited)
        FL_TRY(local_init(c, l, err));
    FL_TRY(ensure_rows(l, b->nrows, err));
    l->rows_in += b->sel ? b->sel->count : b->nrows;
    FL_TRY(ex_exprs_eval(th, &l->keys, b, b->sel, err));
    for (uint32_t a = 0; a < c->naggs; a++)
        FL_TRY(ex_exprs_eval(th, &l->args[a], b, b->sel, err));
    for (uint32_t s = 0; s < nsets_eff(c); s++) {
        uint32_t nk = set_size(c, s);
        const fl_vector *kv[nk ? nk : 1];
        for (uint32_t i = 0; i < nk; i++)
            kv[i] = l->keys.ptrs[set_key(c, s, i)];
        agg_local_set *ls = &l->sets[s];
        if (!l->spilling && c->can_spill && nk > 0 &&
            ex_spill_wanted(c->x, set_bytes(ls) + side_bytes(c, ls), c->budget))
            l->spilling = true;
        if (!l->spilling && c->local_parts > 1 && !ls->npt && !ls->nosplit &&
            ls->ht.ngroups >= PART_SPLIT_GROUPS) {
            /* the split holds both copies for a moment: not when that
             * would spill, and a limit hit while splitting keeps it whole */
            if (ex_spill_wanted(c->x, 2 * set_bytes(ls) + side_bytes(c, ls), c->budget))
                ls->nosplit = true;
            else {
                fl_status rc = split_set(c, l, ls, s, err);
                if (rc != FL_OK && rc != FL_ELIMIT)
                    return rc;
                ls->nosplit = rc == FL_ELIMIT;
            }
        }
        if (!l->spilling) {
            if (nk > 0 && !ls->pack.planned)
                agg_pack_plan(&ls->pack, c->set_kschema[s]);
            if (nk > 0 && !ls->pack.off)
                FL_TRY(group_rows_packed(l, ls, &ls->pack, kv, nk, b->sel, b->nrows, c, err));
            else
                FL_TRY(group_rows(l, ls, kv, nk, b->sel, b->nrows, c, true, err));
            FL_TRY(update_aggs(c, l, th, ls, b, kv, nk, b->sel, true, err));
            continue;
        }
        FL_TRY(group_rows(l, ls, kv, nk, b->sel, b->nrows, c, false, err));
        if (!l->no_probe) {
            l->probed += l->found.count + l->missing.count;
            l->hits += l->found.count;
            if (l->probed >= 65536 && l->hits * 4 < l->probed)
                l->no_probe = true; /* mostly new groups: partition without probing */
        }
        FL_TRY(update_aggs(c, l, th, ls, b, kv, nk, &l->found, false, err));
        FL_TRY(spill_rows(c, l, th, b, &l->missing, false, err));
        if (c->has_side) /* side aggregates of in-memory groups: rows to the spill too */
            FL_TRY(spill_rows(c, l, th, b, &l->found, true, err));
    }
    return FL_OK;
}

/* ---- merge ---- */

typedef struct merge_ctx {
    agg_core *c;
} merge_ctx;

/* Aggregates the spilled rows of partition p (every thread's file) into
 * dst: rows not yet counted in memory (known = false) update the non-side
 * aggregates; every row passing a side aggregate's FILTER is appended to
 * side_all[a] (keys, args, ORDER BY values: side_schema) for feed_rows. */
static fl_status feed_spilled(agg_core *c, uint32_t s, uint32_t p, ex_ht *dst, ex_rows *side_all,
                              fl_error *err)
{
    if (s != 0)
        return FL_OK;
    fl_batch b;
    bool binit = false;
    uint64_t *hs = malloc(FL_BATCH_CAP * sizeof *hs);
    void **states = malloc(FL_BATCH_CAP * sizeof *states);
    uint32_t *gids = malloc(FL_BATCH_CAP * sizeof *gids);
    fl_sel fsel = {0}, usel = {0};
    fl_status rc = hs && states && gids ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
    uint32_t nk = c->nkeys;
    for (uint32_t t = 0; !rc && t < c->nlocals; t++) {
        agg_local *l = &c->locals[t];
        if (!l->inited || !l->parts || !l->parts[p].f)
            continue;
        if (!binit) {
            rc = fl_batch_init(&b, c->spill_schema, err);
            binit = !rc;
        }
        if (!rc)
            rc = ex_spill_rewind(&l->parts[p], err);
        for (;;) {
            bool eof = false;
            if (rc || (rc = ex_check(c->x, err)) != FL_OK ||
                (rc = ex_spill_read(&l->parts[p], &b, &eof, err)) != FL_OK || eof)
                break;
            if (b.nrows > FL_BATCH_CAP) {
                rc = fl_errorf(err, FL_ECORRUPT, "spill batch of %u rows", b.nrows);
                break;
            }
            /* rows the in-memory tables have not counted */
            const fl_vector *kn = &b.cols[c->known_col];
            rc = ex_sel_reserve(&usel, b.nrows, err);
            usel.count = 0;
            for (uint32_t r = 0; !rc && r < b.nrows; r++)
                if (!kn->data[r])
                    usel.idx[usel.count++] = r;
            fl_unified ku[nk ? nk : 1];
            const fl_vector *kv[nk ? nk : 1];
            for (uint32_t k = 0; k < nk; k++) {
                kv[k] = &b.cols[k];
                fl_vector_unify(kv[k], &ku[k]);
            }
            if (!rc)
                rc = agg_hash_keys(kv, nk, NULL, b.nrows, hs, NULL, err);
            for (uint32_t i = 0; !rc && i < usel.count; i++) {
                uint32_t r = usel.idx[i];
                bool added;
                rc = ex_ht_find(dst, ku, kv, r, hs[r], true, &gids[r], &added, err);
                if (!rc && added)
                    for (uint32_t a = 0; a < c->naggs; a++)
                        c->aggs[a].ops->init(ex_ht_payload(dst, gids[r]) + c->off[a]);
            }
            for (uint32_t a = 0; !rc && a < c->naggs; a++) {
                agg_def *d = &c->aggs[a];
                const fl_sel *base = d->side ? NULL : &usel;
                const fl_sel *sel = base;
                if (c->filter_col[a] != UINT32_MAX) {
                    rc = ex_sel_reserve(&fsel, b.nrows, err);
                    fsel.count = 0;
                    const fl_vector *fv = &b.cols[c->filter_col[a]];
                    uint32_t cnt = base ? base->count : b.nrows;
                    for (uint32_t i = 0; !rc && i < cnt; i++) {
                        uint32_t r = base ? base->idx[i] : i;
                        if (fl_vector_is_valid(fv, r) && fv->data[r])
                            fsel.idx[fsel.count++] = r;
                    }
                    sel = &fsel;
                }
                uint32_t cnt = sel ? sel->count : b.nrows;
                if (rc || !cnt)
                    continue;
                if (d->side) {
                    uint32_t m = nk + d->nargs + d->norder;
                    const fl_vector *cols[m ? m : 1];
                    for (uint32_t k = 0; k < nk; k++)
                        cols[k] = &b.cols[k];
                    for (uint32_t i = 0; i < d->nargs; i++)
                        cols[nk + i] = &b.cols[c->arg_col[a] + i];
                    for (uint32_t i = 0; i < d->norder; i++)
                        cols[nk + d->nargs + i] = &b.cols[c->order_col[a] + i];
                    rc = ex_rows_append(c->x, &side_all[a], cols, b.nrows, sel, err);
                    continue;
                }
                for (uint32_t i = 0; i < cnt; i++)
                    states[i] = ex_ht_payload(dst, gids[sel->idx[i]]) + c->off[a];
                const fl_vector *args[d->nargs ? d->nargs : 1];
                for (uint32_t i = 0; i < d->nargs; i++)
                    args[i] = &b.cols[c->arg_col[a] + i];
                rc = d->ops->update(states, args, d->nargs, sel, b.nrows, err);
            }
        }
    }
    if (binit)
        fl_batch_destroy(&b);
    free(hs);
    free(states);
    free(gids);
    ex_sel_free(&fsel);
    ex_sel_free(&usel);
    return rc;
}

static fl_status feed_rows(agg_core *c, uint32_t s, uint32_t a, ex_rows *all, ex_ht *single,
                           fl_error *err);

/* Side aggregates of partition p (spilled input): the in-memory side rows
 * of that partition plus the spilled ones (side_all), fed into dst. */
static fl_status feed_side_part(agg_core *c, uint32_t p, ex_ht *dst, ex_rows *side_all,
                                fl_error *err)
{
    uint32_t nk = c->nkeys;
    uint64_t *hs = malloc(FL_BATCH_CAP * sizeof *hs);
    fl_sel sel = {0};
    fl_status rc = hs ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t a = 0; !rc && a < c->naggs; a++) {
        if (!c->aggs[a].side)
            continue;
        for (uint32_t t = 0; !rc && t < c->nlocals; t++) {
            agg_local *l = &c->locals[t];
            if (!l->inited)
                continue;
            const ex_rows *r = &l->sets[0].side[a];
            for (uint32_t bi = 0; !rc && bi < r->n; bi++) {
                const fl_batch *b = r->b[bi];
                if (b->nrows > FL_BATCH_CAP) {
                    rc = fl_errorf(err, FL_EINVAL, "side batch of %u rows", b->nrows);
                    break;
                }
                const fl_vector *kv[nk ? nk : 1];
                for (uint32_t k = 0; k < nk; k++)
                    kv[k] = &b->cols[k];
                if (!rc)
                    rc = agg_hash_keys(kv, nk, NULL, b->nrows, hs, NULL, err);
                if (!rc)
                    rc = ex_sel_reserve(&sel, b->nrows, err);
                sel.count = 0;
                for (uint32_t i = 0; !rc && i < b->nrows; i++)
                    if (part_of(hs[i], c->nparts) == p)
                        sel.idx[sel.count++] = i;
                const fl_vector *cols[b->ncols ? b->ncols : 1];
                for (uint32_t k = 0; k < b->ncols; k++)
                    cols[k] = &b->cols[k];
                if (!rc && sel.count)
                    rc = ex_rows_append(c->x, &side_all[a], cols, b->nrows, &sel, err);
            }
        }
        if (!rc)
            rc = feed_rows(c, 0, a, &side_all[a], dst, err);
        ex_rows_free(c->x, &side_all[a]);
    }
    free(hs);
    ex_sel_free(&sel);
    return rc;
}

/* Builds dst (initialized here) as partition p of grouping set s: the
 * groups of every thread's table in that partition (states combined, the
 * source states reset) plus the partition's spilled rows. Partitions are
 * disjoint, so several can be merged at once. */
static fl_status merge_into(agg_core *c, uint32_t s, uint32_t p, ex_ht *dst, fl_error *err)
{
    uint32_t nk = set_size(c, s);
    /* thread tables split into exactly these partitions: the largest part
     * p is taken over as dst, the others are inserted into it */
    uint32_t taken = UINT32_MAX;
    for (uint32_t t = 0; t < c->nlocals; t++) {
        agg_local_set *ls = c->locals[t].inited ? &c->locals[t].sets[s] : NULL;
        if (ls && ls->npt == c->nparts &&
            (taken == UINT32_MAX || ls->pt[p].ngroups > c->locals[taken].sets[s].pt[p].ngroups))
            taken = t;
    }
    if (taken != UINT32_MAX) {
        agg_local_set *ls = &c->locals[taken].sets[s];
        *dst = ls->pt[p];
        ex_ht_init(&ls->pt[p], c->x, c->set_kschema[s], c->payload);
    } else {
        ex_ht_init(dst, c->x, c->set_kschema[s], c->payload);
    }
    /* at most the sum of the thread tables' groups in this partition: slots
     * sized once instead of doubling (each doubling rehashes every group) */
    uint64_t upto = dst->ngroups;
    for (uint32_t t = 0; t < c->nlocals; t++) {
        const agg_local_set *ls = c->locals[t].inited ? &c->locals[t].sets[s] : NULL;
        if (ls && ls->npt)
            upto += ls->pt[p & (ls->npt - 1)].ngroups / (c->nparts / ls->npt) + 1;
        else if (ls)
            upto += ls->ht.ngroups / c->nparts + 1;
    }
    FL_TRY(ex_ht_reserve(dst, upto + upto / 8, err));
    for (uint32_t t = 0; t < c->nlocals; t++) {
        agg_local *l = &c->locals[t];
        if (!l->inited || t == taken)
            continue;
        FL_TRY(ex_check(c->x, err));
        agg_local_set *ls = &l->sets[s];
        /* partitioned sources hold part p in pt[p] (nparts == npt) or, for
         * the spill's finer partitions, within pt[p % npt] */
        ex_ht *src = ls->npt ? &ls->pt[p & (ls->npt - 1)] : &ls->ht;
        bool all = ls->npt ? ls->npt == c->nparts : c->nparts == 1;
        fl_unified ku[nk ? nk : 1];
        for (uint32_t g = 0; g < src->ngroups; g++) {
            uint64_t hv = src->hashes[g];
            if (g + EX_HT_PREFETCH_AHEAD < src->ngroups) {
                ex_ht_prefetch(dst, src->hashes[g + EX_HT_PREFETCH_AHEAD]);
                if (all && src->payload)
                    __builtin_prefetch(ex_ht_payload(src, g + EX_HT_PREFETCH_AHEAD));
            }
            if (!all && part_of(hv, c->nparts) != p)
                continue;
            uint32_t row, dg;
            bool added;
            ex_ht_group_keys(src, g, ku, NULL, &row);
            FL_TRY(ex_ht_find(dst, ku, NULL, row, hv, true, &dg, &added, err));
            uint8_t *dp = ex_ht_payload(dst, dg), *sp = ex_ht_payload(src, g);
            if (added && c->movable) {
                /* a new group: its states move (nothing owned, nothing to reset) */
                if (c->payload)
                    memcpy(dp, sp, c->payload);
                continue;
            }
            for (uint32_t a = 0; a < c->naggs; a++) {
                const fl_agg_ops *ops = c->aggs[a].ops;
                if (added) {
                    ops->init(dp + c->off[a]);
                }
                if (!ops->combine)
                    return fl_errorf(err, FL_EUNSUPPORTED,
                                     "aggregate %u cannot be combined across threads", a + 1);
                FL_TRY(ops->combine(dp + c->off[a], sp + c->off[a], err));
                if (ops->destroy)
                    ops->destroy(sp + c->off[a]);
                /* src state is now empty: re-init so a later destroy is safe */
                ops->init(sp + c->off[a]);
            }
        }
    }
    if (!c->spilled)
        return FL_OK;
    ex_rows *side_all = calloc(c->naggs ? c->naggs : 1, sizeof *side_all);
    if (!side_all)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t a = 0; a < c->naggs; a++)
        ex_rows_init(&side_all[a], c->side_schema[a]);
    fl_status rc = feed_spilled(c, s, p, dst, side_all, err);
    if (!rc && c->has_side)
        rc = feed_side_part(c, p, dst, side_all, err);
    for (uint32_t a = 0; a < c->naggs; a++)
        ex_rows_free(c->x, &side_all[a]);
    free(side_all);
    return rc;
}

static fl_status merge_part(void *ctx, uint32_t idx, fl_error *err)
{
    agg_core *c = ((merge_ctx *)ctx)->c;
    return merge_into(c, idx / c->nparts, idx % c->nparts, &c->final[idx], err);
}

/* Merges the thread tables into c->final (in memory). Spilled input is
 * not merged here: c->spilled is set and the node's operators stream the
 * partitions (agg_stream_next). */
static fl_status core_merge(agg_core *c, fl_error *err)
{
    uint32_t ns = nsets_eff(c);
    uint32_t used = 0;
    for (uint32_t t = 0; t < c->nlocals; t++)
        used += c->locals[t].inited;
    uint64_t groups = 0;
    bool parted = false; /* some thread table is split (into c->local_parts) */
    for (uint32_t t = 0; t < c->nlocals; t++)
        if (c->locals[t].inited)
            for (uint32_t s = 0; s < ns; s++) {
                groups += set_groups(&c->locals[t].sets[s]);
                parted |= c->locals[t].sets[s].npt > 0;
            }
    bool spilled = false;
    for (uint32_t t = 0; t < c->nlocals; t++) {
        agg_local *l = &c->locals[t];
        if (!l->inited || !l->parts)
            continue;
        spilled = true;
        for (uint32_t p = 0; p < c->spill_parts; p++)
            FL_TRY(flush_part(c, l, p, err));
    }
    c->nparts = 1;
    if (spilled) {
        c->nparts = c->spill_parts;
        c->spilled = true;
        return FL_OK;
    }
    if (parted)
        c->nparts = c->local_parts;
    else if (used > 1)
        while (c->nparts < 64 && c->nparts < c->x->threads * 4 && groups / c->nparts > 4096)
            c->nparts *= 2;
    c->final = calloc((size_t)ns * c->nparts, sizeof *c->final);
    if (!c->final)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    if (used <= 1 && !parted) {
        /* one table: take it over */
        for (uint32_t t = 0; t < c->nlocals; t++) {
            agg_local *l = &c->locals[t];
            if (!l->inited)
                continue;
            for (uint32_t s = 0; s < ns; s++) {
                c->final[s] = l->sets[s].ht;
                memset(&l->sets[s].ht, 0, sizeof l->sets[s].ht);
                agg_pack_free(&l->sets[s].pack); /* its group ids were the moved table's */
                ex_ht_init(&l->sets[s].ht, c->x, c->set_kschema[s], c->payload);
            }
        }
        for (uint32_t s = 0; s < ns; s++)
            if (!c->final[s].kschema)
                ex_ht_init(&c->final[s], c->x, c->set_kschema[s], c->payload);
    } else {
        merge_ctx m = {.c = c};
        FL_TRY(ex_parallel_for(c->x, ns * c->nparts, merge_part, &m, err));
        for (uint32_t t = 0; t < c->nlocals; t++)
            if (c->locals[t].inited)
                for (uint32_t s = 0; s < ns; s++)
                    set_reset(c, &c->locals[t].sets[s], s);
    }
    /* no keys: one group even without input */
    for (uint32_t s = 0; s < ns; s++) {
        if (set_size(c, s) != 0)
            continue;
        ex_ht *h = &c->final[s * c->nparts];
        bool any = false;
        for (uint32_t p = 0; p < c->nparts; p++)
            any |= c->final[s * c->nparts + p].ngroups > 0;
        if (!any) {
            uint32_t g;
            bool added;
            FL_TRY(ex_ht_find(h, NULL, NULL, 0, 0, true, &g, &added, err));
            for (uint32_t a = 0; a < c->naggs; a++)
                c->aggs[a].ops->init(ex_ht_payload(h, g) + c->off[a]);
        }
    }
    c->merged = true;
    return FL_OK;
}

/* ---- DISTINCT / ordered aggregates: feed the kept rows ---- */

static fl_status feed_side(agg_core *c, uint32_t s, uint32_t a, fl_error *err)
{
    ex_rows all;
    ex_rows_init(&all, c->side_schema[s * c->naggs + a]);
    fl_status rc = FL_OK;
    for (uint32_t t = 0; t < c->nlocals && !rc; t++)
        if (c->locals[t].inited)
            rc = ex_rows_concat(&all, &c->locals[t].sets[s].side[a], err);
    if (!rc)
        rc = feed_rows(c, s, a, &all, NULL, err);
    ex_rows_free(c->x, &all);
    return rc;
}

/* Feeds the kept rows `all` (side_schema of set s and aggregate a) of a
 * DISTINCT / ordered / unsplittable aggregate into its groups' states:
 * deduplicated (DISTINCT), sorted (ORDER BY), then update() in order. The
 * groups are looked up in `single` when given, else in c->final. */
static fl_status feed_rows(agg_core *c, uint32_t s, uint32_t a, ex_rows *all, ex_ht *single,
                           fl_error *err)
{
    agg_def *d = &c->aggs[a];
    const fl_schema *ss = c->side_schema[s * c->naggs + a];
    uint32_t nk = set_size(c, s);
    fl_status rc = FL_OK;
    ex_ht dedup;
    bool have_dedup = false;
    ex_rows *src = all;
    if (!rc && d->distinct) {
        /* distinct over (keys, args); order keys must be among args (SQL rule) */
        const fl_type *ts[nk + d->nargs + d->norder + 1];
        for (uint32_t i = 0; i < ss->nfields; i++)
            ts[i] = &ss->fields[i].type;
        const fl_schema *ds = ex_schema_of(c->x, ts, ss->nfields);
        if (!ds)
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
        if (!rc) {
            ex_ht_init(&dedup, c->x, ds, 0);
            have_dedup = true;
        }
        uint64_t hs[FL_BATCH_CAP];
        for (uint32_t bi = 0; !rc && bi < all->n; bi++) {
            if ((bi & 63) == 63)
                rc = ex_check(c->x, err);
            const fl_batch *b = all->b[bi];
            fl_unified ku[ss->nfields ? ss->nfields : 1];
            const fl_vector *kv[ss->nfields ? ss->nfields : 1];
            for (uint32_t k = 0; k < ss->nfields; k++) {
                kv[k] = &b->cols[k];
                fl_vector_unify(kv[k], &ku[k]);
            }
            if (!rc)
                rc = agg_hash_keys(kv, ss->nfields, NULL, b->nrows, hs, NULL, err);
            for (uint32_t r = 0; !rc && r < b->nrows; r++) {
                uint32_t g;
                bool added;
                rc = ex_ht_find(&dedup, ku, kv, r, ss->nfields ? hs[r] : 0, true, &g, &added, err);
            }
        }
        if (!rc)
            src = &dedup.keys;
    }
    ex_rows sorted;
    ex_rows_init(&sorted, ss);
    if (!rc && d->norder) {
        uint32_t cols[d->norder];
        bool nf[d->norder];
        for (uint32_t i = 0; i < d->norder; i++) {
            cols[i] = nk + d->nargs + i;
            nf[i] = d->order_desc && d->order_desc[i]; /* PostgreSQL: NULLS FIRST for DESC */
        }
        ex_sortspec sp = {.rows = src,
                          .nkeys = d->norder,
                          .cols = cols,
                          .desc = d->order_desc,
                          .nulls_first = nf};
        ex_ref *refs = NULL;
        uint64_t nref = 0;
        rc = ex_sort_refs(&sp, &refs, &nref, err);
        if (!rc)
            rc = ex_gather(src, refs, nref, ss, ss->nfields, &sorted, c->x, err);
        free(refs);
        if (!rc)
            src = &sorted;
    }
    void **states = malloc(FL_BATCH_CAP * sizeof *states);
    uint64_t *hs = malloc(FL_BATCH_CAP * sizeof *hs);
    if (!rc && (!states || !hs))
        rc = fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t bi = 0; !rc && bi < src->n; bi++) {
        const fl_batch *b = src->b[bi];
        fl_unified ku[nk ? nk : 1];
        const fl_vector *kv[nk ? nk : 1];
        for (uint32_t k = 0; k < nk; k++) {
            kv[k] = &b->cols[k];
            fl_vector_unify(kv[k], &ku[k]);
        }
        if (!rc)
            rc = agg_hash_keys(kv, nk, NULL, b->nrows, hs, NULL, err);
        for (uint32_t r = 0; !rc && r < b->nrows; r++) {
            uint64_t hv = nk ? hs[r] : 0;
            ex_ht *h = single ? single : &c->final[s * c->nparts + part_of(hv, c->nparts)];
            uint32_t g;
            bool added;
            rc = ex_ht_find(h, ku, kv, r, hv, false, &g, &added, err);
            if (!rc && g == UINT32_MAX)
                rc = fl_errorf(err, FL_EINVAL, "aggregate: group of a DISTINCT row not found");
            if (!rc)
                states[r] = ex_ht_payload(h, g) + c->off[a];
        }
        const fl_vector *args[d->nargs ? d->nargs : 1];
        for (uint32_t i = 0; i < d->nargs; i++)
            args[i] = &b->cols[nk + i];
        if (!rc)
            rc = d->ops->update(states, args, d->nargs, NULL, b->nrows, err);
    }
    free(states);
    free(hs);
    ex_rows_free(c->x, &sorted);
    if (have_dedup)
        ex_ht_free(&dedup);
    return rc;
}

static fl_status core_feed_sides(agg_core *c, fl_error *err)
{
    for (uint32_t s = 0; s < nsets_eff(c); s++)
        for (uint32_t a = 0; a < c->naggs; a++)
            if (c->aggs[a].side)
                FL_TRY(feed_side(c, s, a, err));
    return FL_OK;
}

/* ---- output ---- */

/* Appends groups [g0, g1) of table h (grouping set s) to out: key columns
 * (NULL for keys outside the set) then finalize() of each aggregate. */
static fl_status output_table(agg_core *c, ex_ht *h, uint32_t s, uint32_t g0, uint32_t g1,
                              ex_rows *out, const fl_schema *schema, fl_error *err)
{
    uint32_t ncol = c->nkeys + c->naggs;
    if (schema->nfields != ncol)
        return fl_errorf(err, FL_EINVAL, "aggregate output has %u columns, plan says %u", ncol,
                         schema->nfields);
    fl_vector *nulls = calloc(c->nkeys ? c->nkeys : 1, sizeof *nulls);
    fl_vector *res = calloc(c->naggs ? c->naggs : 1, sizeof *res);
    void **states = malloc(FL_BATCH_CAP * sizeof *states);
    fl_status rc = nulls && res && states ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t k = 0; !rc && k < c->nkeys; k++) {
        rc = fl_vector_init(&nulls[k], &schema->fields[k].type, err);
        if (!rc)
            rc = ex_vec_append_nulls(&nulls[k], 1, err);
        nulls[k].encoding = FL_VEC_CONSTANT;
    }
    for (uint32_t a = 0; !rc && a < c->naggs; a++)
        rc = fl_vector_init(&res[a], &schema->fields[c->nkeys + a].type, err);
    uint32_t nk = set_size(c, s);
    if (g1 > h->ngroups)
        g1 = h->ngroups;
    for (; !rc && g0 < g1; g0 += FL_BATCH_CAP) {
        uint32_t cnt = g1 - g0 < FL_BATCH_CAP ? g1 - g0 : FL_BATCH_CAP;
        const fl_vector *cols[ncol ? ncol : 1];
        for (uint32_t k = 0; k < c->nkeys; k++) {
            nulls[k].len = cnt;
            cols[k] = &nulls[k];
        }
        for (uint32_t i = 0; i < nk; i++)
            cols[set_key(c, s, i)] = &h->keys.b[g0 / FL_BATCH_CAP]->cols[i];
        for (uint32_t a = 0; !rc && a < c->naggs; a++) {
            for (uint32_t i = 0; i < cnt; i++)
                states[i] = ex_ht_payload(h, g0 + i) + c->off[a];
            fl_vector_reset(&res[a]);
            rc = c->aggs[a].ops->finalize(states, cnt, &c->aggs[a].result, &res[a], err);
            if (!rc && res[a].len != cnt)
                rc = fl_errorf(err, FL_EINVAL, "aggregate %u finalized %u of %u rows", a + 1,
                               res[a].len, cnt);
            cols[c->nkeys + a] = &res[a];
        }
        if (!rc)
            rc = ex_rows_append(c->x, out, cols, cnt, NULL, err);
    }
    for (uint32_t k = 0; nulls && k < c->nkeys; k++) {
        nulls[k].encoding = FL_VEC_FLAT;
        fl_vector_destroy(&nulls[k]);
    }
    for (uint32_t a = 0; res && a < c->naggs; a++)
        fl_vector_destroy(&res[a]);
    free(nulls);
    free(res);
    free(states);
    return rc;
}

/* ---- streamed output ----
 *
 * Nothing of an aggregate's output is materialized: every operator
 * instance (one per thread of the pipeline above) claims work and finalizes
 * it into a private ex_rows of at most one chunk, hands those batches out
 * and frees them before claiming more.
 *  - In memory (c->merged): chunks of FL_BATCH_CAP groups of c->final.
 *  - Spilled input (c->spilled): whole partitions: the op merges partition p
 *    (thread tables' groups of p + its spill files, merge_into) into its own
 *    table, outputs it chunk by chunk and frees it, so at most one
 *    partition's groups per thread are in memory. */

typedef struct agg_stream_op {
    ex_op base;
    agg_core *c;
    ex_ht dst;
    bool have_dst;
    uint32_t g; /* next group of dst to output */
    ex_rows rows;
    uint32_t i;
} agg_stream_op;

static void stream_release_dst(agg_stream_op *o)
{
    if (o->have_dst) {
        destroy_states(o->c, &o->dst);
        ex_ht_free(&o->dst);
        o->have_dst = false;
    }
}

/* Fills o->rows with the next chunk of output; false when there is none. */
static fl_status stream_fill(agg_stream_op *o, ex_node *n, bool *more, fl_error *err)
{
    agg_core *c = o->c;
    *more = false;
    if (c->merged) {
        uint32_t nt = nsets_eff(c) * c->nparts;
        unsigned long long u = atomic_fetch_add(&c->next_chunk, 1);
        if (u >= c->chunk_off[nt])
            return FL_OK;
        uint32_t t = 0;
        while (t + 1 < nt && c->chunk_off[t + 1] <= u)
            t++;
        uint32_t g0 = (uint32_t)((u - c->chunk_off[t]) * FL_BATCH_CAP);
        *more = true;
        return c->emit(c, &c->final[t], t / c->nparts, g0, g0 + FL_BATCH_CAP, &o->rows,
                       &n->p->schema, err);
    }
    for (;;) {
        if (o->have_dst && o->g < o->dst.ngroups) {
            uint32_t g0 = o->g;
            o->g += FL_BATCH_CAP;
            *more = true;
            return c->emit(c, &o->dst, 0, g0, g0 + FL_BATCH_CAP, &o->rows, &n->p->schema, err);
        }
        stream_release_dst(o);
        unsigned p = atomic_fetch_add(&c->next_part, 1);
        if (p >= c->nparts)
            return FL_OK;
        int64_t t0 = ex_now_ns();
        o->have_dst = true;
        o->g = 0;
        FL_TRY(merge_into(c, 0, p, &o->dst, err));
        atomic_fetch_add(&n->p->stats.time_ns, ex_now_ns() - t0);
        long long used = atomic_load(&c->x->mem_used);
        if (used > atomic_load(&n->p->stats.peak_bytes))
            atomic_store(&n->p->stats.peak_bytes, used);
    }
}

static fl_status agg_stream_next(ex_op *op, const fl_batch **out, fl_error *err)
{
    agg_stream_op *o = (agg_stream_op *)op;
    ex_node *n = op->node;
    *out = NULL;
    for (;;) {
        FL_TRY(ex_check(o->c->x, err));
        while (o->i < o->rows.n) {
            const fl_batch *b = o->rows.b[o->i++];
            if (b->nrows == 0)
                continue;
            ex_stats_out(n, b);
            *out = b;
            return FL_OK;
        }
        ex_rows_free(o->c->x, &o->rows);
        o->i = 0;
        bool more;
        FL_TRY(stream_fill(o, n, &more, err));
        if (!more)
            return FL_OK;
    }
}

static void agg_stream_free(ex_op *op)
{
    agg_stream_op *o = (agg_stream_op *)op;
    stream_release_dst(o);
    ex_rows_free(o->c->x, &o->rows);
    free(o);
}

/* Prepares the in-memory stream: chunk offsets of c->final. */
static fl_status core_stream_ready(agg_core *c, fl_error *err)
{
    uint32_t nt = nsets_eff(c) * c->nparts;
    c->chunk_off = calloc(nt + 1, sizeof *c->chunk_off);
    if (!c->chunk_off)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t t = 0; t < nt; t++)
        c->chunk_off[t + 1] =
            c->chunk_off[t] + (c->final[t].ngroups + FL_BATCH_CAP - 1) / FL_BATCH_CAP;
    return FL_OK;
}

/* The open() of AGG, DISTINCT and SETOP nodes: the stream of the merged
 * (or spilled) groups, or materialized rows (UNION ALL). n->state starts
 * with agg_core. */
static fl_status agg_open(ex_node *n, ex_thread *th, ex_op **out, fl_error *err)
{
    agg_core *c = n->state;
    if (!c->spilled && !c->merged)
        return ex_open_rows(n, th, out, err);
    agg_stream_op *o = calloc(1, sizeof *o);
    if (!o)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    o->c = c;
    ex_rows_init(&o->rows, &n->p->schema);
    o->base.next = agg_stream_next;
    o->base.free = agg_stream_free;
    *out = &o->base;
    return FL_OK;
}

/* ---- AGG ---- */

typedef struct agg_state {
    agg_core c;
    agg_def *defs;
} agg_state;

static void agg_destroy(ex_node *n)
{
    agg_state *st = n->state;
    if (!st)
        return;
    core_free(&st->c);
    free(st->defs);
    free(st);
}

static fl_status agg_prepare(ex_node *n, fl_error *err)
{
    agg_state *st = n->state;
    agg_core *c = &st->c;
    FL_TRY(core_init(c, n->x, n, err));
    FL_TRY(ex_run_parallel(n->children[0], core_consume, c, err));
    int64_t t0 = ex_now_ns();
    FL_TRY(core_merge(c, err));
    atomic_store(&n->p->stats.peak_bytes, (long long)atomic_load(&n->x->mem_used));
    if (c->spilled)
        return FL_OK; /* merged and output partition by partition (agg_open) */
    FL_TRY(core_feed_sides(c, err));
    FL_TRY(core_stream_ready(c, err));
    atomic_fetch_add(&n->p->stats.time_ns, ex_now_ns() - t0);
    return FL_OK; /* output finalized chunk by chunk (agg_open) */
}

fl_status ex_agg_node(ex_node *n, fl_error *err)
{
    if (n->nchildren != 1)
        return fl_errorf(err, FL_EINVAL, "AGG needs one child");
    agg_state *st = calloc(1, sizeof *st);
    if (!st)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    n->state = st;
    n->destroy = agg_destroy;
    n->prepare = agg_prepare;
    n->open = agg_open;
    const fl_plan *p = n->p;
    st->defs = calloc(p->u.agg.naggs ? p->u.agg.naggs : 1, sizeof *st->defs);
    if (!st->defs)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t a = 0; a < p->u.agg.naggs; a++) {
        const fl_agg_call *ac = &p->u.agg.aggs[a];
        st->defs[a] = (agg_def){.ops = ac->ops,
                                .args = ac->args,
                                .nargs = ac->nargs,
                                .filter = ac->filter,
                                .distinct = ac->distinct,
                                .order = ac->order_by,
                                .order_desc = ac->order_desc,
                                .norder = ac->norder,
                                .result = ac->result,
                                /* string_agg's partial states cannot be combined
                                 * (func.h): with several threads its rows are kept */
                                .no_partial = n->x->threads > 1 && ac->fn && ac->fn->name &&
                                              strcmp(ac->fn->name, "string_agg") == 0};
        if (!ac->ops)
            return fl_errorf(err, FL_EINVAL, "aggregate %s has no implementation",
                             ac->alias ? ac->alias : "?");
    }
    st->c.keys = p->u.agg.keys;
    st->c.nkeys = p->u.agg.nkeys;
    st->c.aggs = st->defs;
    st->c.naggs = p->u.agg.naggs;
    st->c.nsets = p->u.agg.nsets;
    st->c.sets = p->u.agg.sets;
    st->c.set_sizes = p->u.agg.set_sizes;
    return FL_OK;
}

/* ---- DISTINCT ---- */

static fl_expr **column_exprs(fl_exec *x, const fl_schema *s)
{
    pthread_mutex_lock(&x->mu);
    fl_expr **es = fl_arena_calloc(&x->arena, s->nfields ? s->nfields : 1, sizeof *es);
    for (uint32_t i = 0; es && i < s->nfields; i++) {
        es[i] = fl_arena_calloc(&x->arena, 1, sizeof **es);
        if (!es[i]) {
            es = NULL;
            break;
        }
        es[i]->kind = FL_EXPR_COLUMN;
        es[i]->type = s->fields[i].type;
        es[i]->column = i;
        es[i]->location = -1;
    }
    pthread_mutex_unlock(&x->mu);
    return es;
}

static fl_status distinct_prepare(ex_node *n, fl_error *err)
{
    agg_state *st = n->state;
    agg_core *c = &st->c;
    c->keys = column_exprs(n->x, &n->children[0]->p->schema);
    if (!c->keys)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    c->nkeys = n->children[0]->p->schema.nfields;
    FL_TRY(core_init(c, n->x, n, err));
    FL_TRY(ex_run_parallel(n->children[0], core_consume, c, err));
    FL_TRY(core_merge(c, err));
    if (c->spilled)
        return FL_OK;
    return core_stream_ready(c, err);
}

fl_status ex_distinct_node(ex_node *n, fl_error *err)
{
    if (n->nchildren != 1)
        return fl_errorf(err, FL_EINVAL, "DISTINCT needs one child");
    agg_state *st = calloc(1, sizeof *st);
    if (!st)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    n->state = st;
    n->destroy = agg_destroy;
    n->prepare = distinct_prepare;
    n->open = agg_open;
    return FL_OK;
}

/* ---- SETOP ---- */

/* Private aggregate: counts rows per side; args[0] is the side (INT32 0/1). */
typedef struct side_counts {
    int64_t n[2];
} side_counts;

static void sc_init(void *s)
{
    memset(s, 0, sizeof(side_counts));
}
static fl_status sc_update(void *const *states, const fl_vector *const *args, uint32_t nargs,
                           const fl_sel *sel, uint32_t nrows, fl_error *err)
{
    (void)nargs;
    (void)err;
    fl_unified u;
    fl_vector_unify(args[0], &u);
    uint32_t cnt = sel ? sel->count : nrows;
    for (uint32_t i = 0; i < cnt; i++) {
        uint32_t r = sel ? sel->idx[i] : i;
        int32_t side;
        memcpy(&side, u.base->data + (size_t)fl_unified_row(&u, r) * 4, 4);
        ((side_counts *)states[i])->n[side ? 1 : 0]++;
    }
    return FL_OK;
}
static fl_status sc_combine(void *dst, const void *src, fl_error *err)
{
    (void)err;
    ((side_counts *)dst)->n[0] += ((const side_counts *)src)->n[0];
    ((side_counts *)dst)->n[1] += ((const side_counts *)src)->n[1];
    return FL_OK;
}
static fl_status sc_finalize(void *const *states, uint32_t n, const fl_type *result,
                             fl_vector *out, fl_error *err)
{
    (void)result;
    for (uint32_t i = 0; i < n; i++) {
        const side_counts *s = states[i];
        int64_t v = s->n[0] * 0 + s->n[1] * 0;
        FL_TRY(fl_vector_append_fixed(out, &v, err));
    }
    return FL_OK;
}
static const fl_agg_ops side_count_ops = {.state_size = sizeof(side_counts),
                                          .state_align = 8,
                                          .init = sc_init,
                                          .update = sc_update,
                                          .combine = sc_combine,
                                          .finalize = sc_finalize};

typedef struct setop_state {
    agg_core c;
    agg_def def;
    fl_expr *side_arg[2];
    fl_expr **argp;
} setop_state;

static void setop_destroy(ex_node *n)
{
    setop_state *st = n->state;
    if (!st)
        return;
    core_free(&st->c);
    free(st);
}

static fl_status rows_consume(void *ctx, ex_thread *th, const fl_batch *b, fl_error *err)
{
    ex_rows *per = ctx;
    return ex_rows_append_batch(th->x, &per[th->tid], b, err);
}

static fl_status union_all(ex_node *n, fl_error *err)
{
    fl_exec *x = n->x;
    ex_rows *per = calloc(x->threads, sizeof *per);
    if (!per)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_status rc = FL_OK;
    for (uint32_t t = 0; t < x->threads; t++)
        ex_rows_init(&per[t], &n->p->schema);
    for (uint32_t i = 0; !rc && i < n->nchildren; i++)
        rc = ex_run_parallel(n->children[i], rows_consume, per, err);
    for (uint32_t t = 0; t < x->threads; t++) {
        if (!rc)
            rc = ex_rows_concat(&n->out, &per[t], err);
        ex_rows_free(x, &per[t]);
    }
    free(per);
    return rc;
}

/* INTERSECT / EXCEPT [ALL]: each group of h output min/max-count times. */
static fl_status setop_emit(agg_core *c, ex_ht *h, uint32_t s, uint32_t gfrom, uint32_t gto,
                            ex_rows *out, const fl_schema *schema, fl_error *err)
{
    (void)s;
    (void)schema;
    const fl_plan *p = c->emit_ctx;
    /* gfrom is a multiple of FL_BATCH_CAP (a key batch) */
    for (uint32_t g0 = gfrom; g0 < h->ngroups && g0 < gto; g0 += FL_BATCH_CAP) {
        const fl_batch *kb = h->keys.b[g0 / FL_BATCH_CAP];
        uint32_t cnt = kb->nrows;
        const fl_vector *cols[c->nkeys ? c->nkeys : 1];
        for (uint32_t k = 0; k < c->nkeys; k++)
            cols[k] = &kb->cols[k];
        for (uint32_t i = 0; i < cnt; i++) {
            const side_counts *sc = (const side_counts *)ex_ht_payload(h, g0 + i);
            int64_t times;
            if (p->u.setop.type == FL_SETOP_INTERSECT)
                times = p->u.setop.all ? (sc->n[0] < sc->n[1] ? sc->n[0] : sc->n[1])
                                       : (sc->n[0] > 0 && sc->n[1] > 0);
            else
                times = p->u.setop.all ? (sc->n[0] > sc->n[1] ? sc->n[0] - sc->n[1] : 0)
                                       : (sc->n[0] > 0 && sc->n[1] == 0);
            for (int64_t k = 0; k < times; k++) {
                if ((k & 1023) == 1023)
                    FL_TRY(ex_check(c->x, err));
                fl_sel one = {.idx = &i, .count = 1, .cap = 1};
                FL_TRY(ex_rows_append(c->x, out, cols, cnt, &one, err));
            }
        }
    }
    return FL_OK;
}

static fl_status setop_prepare(ex_node *n, fl_error *err)
{
    setop_state *st = n->state;
    fl_plan *p = n->p;
    if (p->u.setop.type == FL_SETOP_UNION && p->u.setop.all)
        return union_all(n, err);
    agg_core *c = &st->c;
    c->keys = column_exprs(n->x, &p->schema);
    if (!c->keys)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    c->nkeys = p->schema.nfields;
    bool counting = p->u.setop.type != FL_SETOP_UNION;
    if (counting && n->nchildren != 2)
        return fl_errorf(err, FL_EINVAL, "INTERSECT/EXCEPT need two inputs, got %u",
                         n->nchildren);
    if (counting) {
        pthread_mutex_lock(&n->x->mu);
        for (int s = 0; s < 2; s++) {
            fl_expr *e = fl_arena_calloc(&n->x->arena, 1, sizeof *e);
            st->side_arg[s] = e;
            if (e) {
                e->kind = FL_EXPR_CONST;
                e->type.id = FL_TYPE_INT32;
                e->value.type.id = FL_TYPE_INT32;
                e->value.v.i32 = s;
                e->location = -1;
            }
        }
        st->argp = fl_arena_calloc(&n->x->arena, 1, sizeof *st->argp);
        pthread_mutex_unlock(&n->x->mu);
        if (!st->side_arg[0] || !st->side_arg[1] || !st->argp)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        st->argp[0] = st->side_arg[0];
        st->def = (agg_def){.ops = &side_count_ops, .args = st->argp, .nargs = 1};
        st->def.result.id = FL_TYPE_INT64;
        c->aggs = &st->def;
        c->naggs = 1;
    }
    FL_TRY(core_init(c, n->x, n, err));
    if (counting) {
        c->emit = setop_emit;
        c->emit_ctx = p;
    }
    for (uint32_t i = 0; i < n->nchildren; i++) {
        if (counting)
            st->argp[0] = st->side_arg[i ? 1 : 0];
        FL_TRY(ex_run_parallel(n->children[i], core_consume, c, err));
    }
    FL_TRY(core_merge(c, err));
    if (c->spilled)
        return FL_OK; /* streamed by agg_open */
    return core_stream_ready(c, err);
}

fl_status ex_setop_node(ex_node *n, fl_error *err)
{
    if (n->nchildren < 1)
        return fl_errorf(err, FL_EINVAL, "SETOP needs inputs");
    for (uint32_t i = 0; i < n->nchildren; i++)
        if (n->children[i]->p->schema.nfields != n->p->schema.nfields)
            return fl_errorf(err, FL_EINVAL, "set operation input %u has %u columns, not %u",
                             i + 1, n->children[i]->p->schema.nfields, n->p->schema.nfields);
    setop_state *st = calloc(1, sizeof *st);
    if (!st)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    n->state = st;
    n->destroy = setop_destroy;
    n->prepare = setop_prepare;
    n->open = agg_open;
    return FL_OK;
}
