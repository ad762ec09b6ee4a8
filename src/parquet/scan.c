/*
 * scan.c - projection, pruning and batching over an open Parquet reader.
 *
 * Projection: top-level names, or field ids anywhere in the tree. An id that
 * names a struct field keeps only the selected fields of its enclosing
 * structs (Iceberg-style pruned struct); an id inside a list or map selects
 * the whole list or map. The scan builds a copy of the level tree for the
 * projected fields and opens one column reader per projected leaf; other
 * column chunks are never read.
 *
 * Per row group:
 *   1. row-group pruning: each predicate term whose column resolves to a leaf
 *      is checked against the chunk statistics (fl_pq_stats_may_match), then
 *      EQ / IN terms against the chunk's bloom filter (one ranged read each);
 *   2. page pruning (unless no_page_index): the column and offset indexes of
 *      the projected and predicate columns are fetched with ONE ranged read,
 *      pages whose statistics cannot match give excluded row ranges, and the
 *      complement becomes the selected row ranges. Every projected column then
 *      reads exactly those rows: pages wholly outside are skipped unread
 *      (offset index), partly covered pages are decoded and trimmed, so rows
 *      stay aligned across columns;
 *   3. batches of up to batch_rows rows are read column by column; nested
 *      top-level fields are assembled from their leaves' levels
 *      (assemble.c). Each projected column chunk is read with one ranged
 *      read (or a bounded window for huge chunks) and freed when the row
 *      group ends, so at most one row group's projected chunks are in memory.
 * filter_rows evaluates the predicate terms on projected top-level primitive
 * columns per row and sets the batch's selection vector (terms on other
 * columns only prune).
 */
#include <stdlib.h>
#include <string.h>

#include "parquet/reader_int.h"

typedef struct scan_col {
    const fl_pq_leaf *leaf;
    int16_t slot_def;
    fl_pq_col col;
    const fl_pq_offset_index *oi; /* current row group, in rg_arena; NULL if unknown */
    bool counted; /* this chunk's pages are in the statistics already (a row-range split) */
} scan_col;

typedef struct range {
    int64_t a, b;
} range;

struct fl_parquet_scan {
    fl_parquet_reader *r;
    fl_arena arena;    /* projected schema and nodes */
    fl_arena rg_arena; /* page indexes of the current row group */
    fl_schema schema;
    fl_pq_node *top;
    uint32_t ncols;
    scan_col *cols;
    fl_pq_levels *lv;
    const fl_predicate *pred;
    const fl_pq_leaf **term_leaf; /* per predicate term, NULL when unresolved or not prunable */
    fl_col_pred *pterm;           /* per term: the literal cast to the leaf's type, for pruning */
    int32_t *term_top;            /* projected top-level column index for row filtering, or -1 */
    bool no_page_index, filter_rows;
    uint32_t batch_rows;
    uint32_t *rgs;
    uint32_t nrgs, rg_pos;
    bool in_rg;
    uint32_t rg;
    int64_t row; /* next row of the row group to read */
    range *ranges;
    uint32_t nranges, range_i, ranges_cap;
    int64_t slice_lo, slice_hi; /* rows of the (only) row group to read; slice_hi 0 = all */
    fl_parquet_scan_stats stats;
    uint64_t bytes_start;
};

static fl_status oom(fl_error *err)
{
    return fl_errorf(err, FL_ENOMEM, "out of memory");
}

/* ---- projection ---- */

static bool contains(const fl_pq_node *n, const fl_pq_node *const *sel, uint32_t nsel)
{
    for (uint32_t i = 0; i < nsel; i++)
        if (sel[i] == n)
            return true;
    return false;
}

static bool any_selected(const fl_pq_node *n, const fl_pq_node *const *sel, uint32_t nsel)
{
    if (contains(n, sel, nsel))
        return true;
    for (uint32_t c = 0; c < n->nchildren; c++)
        if (any_selected(&n->children[c], sel, nsel))
            return true;
    return false;
}

static fl_status copy_node(fl_parquet_scan *s, const fl_pq_node *src, fl_pq_node *dst, fl_field *f,
                           const fl_pq_node *const *sel, uint32_t nsel, fl_error *err);

/* A variant group is read whole (a variant has no sub-fields to project):
 * its physical struct is copied as one node, with the scratch vector its
 * rows are assembled into. */
static fl_status copy_variant_node(fl_parquet_scan *s, const fl_pq_node *src, fl_pq_node *dst,
                                   fl_field *f, fl_error *err)
{
    fl_field *phys = fl_arena_calloc(&s->arena, 1, sizeof *phys);
    fl_vector *scratch = fl_arena_calloc(&s->arena, 1, sizeof *scratch);
    if (!phys || !scratch)
        return oom(err);
    fl_pq_node tmp = *src;
    tmp.kind = FL_PQN_STRUCT;
    tmp.field = src->phys;
    FL_TRY(copy_node(s, &tmp, dst, phys, NULL, 0, err));
    dst->kind = FL_PQN_VARIANT;
    dst->field = f;
    dst->phys = phys;
    FL_TRY(fl_pq_variant_check_types(dst, err));
    FL_TRY(fl_vector_init(scratch, &phys->type, err));
    dst->scratch = scratch;
    return FL_OK;
}

static void free_scratch(fl_pq_node *n)
{
    if (n->scratch)
        fl_vector_destroy(n->scratch);
    for (uint32_t c = 0; c < n->nchildren; c++)
        free_scratch(&n->children[c]);
}

/* Deep-copies node src into dst (nodes in the scan arena). With sel, keeps
 * only selected struct fields; fields are copied where pruned, else shared. */
static fl_status copy_node(fl_parquet_scan *s, const fl_pq_node *src, fl_pq_node *dst, fl_field *f,
                           const fl_pq_node *const *sel, uint32_t nsel, fl_error *err)
{
    *dst = *src;
    *f = *src->field;
    dst->field = f;
    if (src->kind == FL_PQN_VARIANT)
        return copy_variant_node(s, src, dst, f, err);
    bool full = !sel || contains(src, sel, nsel) || src->kind != FL_PQN_STRUCT;
    uint32_t k = 0;
    for (uint32_t c = 0; c < src->nchildren; c++)
        k += full || any_selected(&src->children[c], sel, nsel);
    dst->nchildren = k;
    dst->children = NULL;
    if (src->nchildren == 0)
        return FL_OK;
    dst->children = fl_arena_calloc(&s->arena, k, sizeof *dst->children);
    fl_field *fc = fl_arena_calloc(&s->arena, k, sizeof *fc);
    if (!dst->children || !fc)
        return oom(err);
    f->type.children = fc;
    f->type.nchildren = k;
    uint32_t j = 0;
    for (uint32_t c = 0; c < src->nchildren; c++) {
        if (!(full || any_selected(&src->children[c], sel, nsel)))
            continue;
        FL_TRY(copy_node(s, &src->children[c], &dst->children[j], &fc[j], full ? NULL : sel, nsel,
                         err));
        j++;
    }
    return FL_OK;
}

static const fl_pq_node *find_id(const fl_pq_node *n, int32_t id, uint32_t *top, uint32_t ti)
{
    if (n->field->field_id == id && id > 0) {
        *top = ti;
        return n;
    }
    for (uint32_t c = 0; c < n->nchildren; c++) {
        const fl_pq_node *x = find_id(&n->children[c], id, top, ti);
        if (x)
            return x;
    }
    return NULL;
}

static void count_leaves(const fl_pq_node *n, uint32_t *k)
{
    if (n->kind == FL_PQN_LEAF) {
        (*k)++;
        return;
    }
    for (uint32_t c = 0; c < n->nchildren; c++)
        count_leaves(&n->children[c], k);
}

/* Assigns scan columns to leaves (DFS) and each inner node the column of its first leaf. */
static void assign_cols(fl_parquet_scan *s, fl_pq_node *n)
{
    if (n->kind == FL_PQN_LEAF) {
        n->col = s->ncols;
        s->cols[s->ncols].leaf = n->leaf;
        s->cols[s->ncols].slot_def = n->slot_def;
        s->ncols++;
        return;
    }
    for (uint32_t c = 0; c < n->nchildren; c++)
        assign_cols(s, &n->children[c]);
    n->col = n->nchildren ? n->children[0].col : 0;
}

static fl_status project(fl_parquet_scan *s, const fl_parquet_scan_options *o, fl_error *err)
{
    fl_parquet_reader *r = s->r;
    uint32_t nt = r->schema.nfields;
    uint32_t *order = fl_arena_calloc(&s->arena, nt + o->ncolumns + 1, sizeof *order);
    const fl_pq_node **sel = NULL;
    uint32_t nsel = 0, norder = 0;
    if (!order)
        return oom(err);
    if (o->ncolumns > 0) {
        for (uint32_t i = 0; i < o->ncolumns; i++) {
            uint32_t k = 0;
            while (k < nt && strcmp(r->schema.fields[k].name, o->columns[i]) != 0)
                k++;
            FL_CHECK(k < nt, err, FL_ENOTFOUND, "column '%s' not found", o->columns[i]);
            order[norder++] = k;
        }
    } else if (o->nfield_ids > 0) {
        sel = fl_arena_calloc(&s->arena, o->nfield_ids, sizeof *sel);
        if (!sel)
            return oom(err);
        for (uint32_t i = 0; i < o->nfield_ids; i++) {
            const fl_pq_node *x = NULL;
            uint32_t top = 0;
            for (uint32_t k = 0; k < nt && !x; k++)
                x = find_id(&r->top[k], o->field_ids[i], &top, k);
            FL_CHECK(x != NULL, err, FL_ENOTFOUND, "field id %d not found", o->field_ids[i]);
            sel[nsel++] = x;
            bool seen = false;
            for (uint32_t j = 0; j < norder; j++)
                seen |= order[j] == top;
            if (!seen)
                order[norder++] = top;
        }
    } else {
        for (uint32_t k = 0; k < nt; k++)
            order[norder++] = k;
    }
    s->schema.nfields = norder;
    if (norder) {
        s->schema.fields = fl_arena_calloc(&s->arena, norder, sizeof *s->schema.fields);
        s->top = fl_arena_calloc(&s->arena, norder, sizeof *s->top);
        if (!s->schema.fields || !s->top)
            return oom(err);
    }
    uint32_t nleaves = 0;
    for (uint32_t i = 0; i < norder; i++) {
        FL_TRY(copy_node(s, &r->top[order[i]], &s->top[i], &s->schema.fields[i], sel, nsel, err));
        count_leaves(&s->top[i], &nleaves);
    }
    if (nleaves) {
        s->cols = calloc(nleaves, sizeof *s->cols);
        s->lv = calloc(nleaves, sizeof *s->lv);
        if (!s->cols || !s->lv)
            return oom(err);
    }
    for (uint32_t i = 0; i < norder; i++)
        assign_cols(s, &s->top[i]);
    return FL_OK;
}

/* ---- predicate terms ---- */

static const fl_pq_node *find_id_any(const fl_parquet_reader *r, int32_t id)
{
    uint32_t top;
    for (uint32_t k = 0; k < r->schema.nfields; k++) {
        const fl_pq_node *x = find_id(&r->top[k], id, &top, k);
        if (x)
            return x;
    }
    return NULL;
}

/* Converts literal v to column type t exactly; false when it cannot (then the
 * term is not used for pruning: never a wrong answer, only less pruning). */
static bool cast_value(const fl_value *v, const fl_type *t, fl_value *out)
{
    *out = *v;
    if (v->is_null)
        return true;
    fl_type_id a = v->type.id, b = t->id;
    out->type = *t;
    out->type.children = NULL;
    out->type.nchildren = 0;
    if (a == b) {
        if (a == FL_TYPE_DECIMAL)
            return v->type.scale == t->scale;
        if (a == FL_TYPE_FIXED)
            return v->v.bytes.len == (size_t)t->fixed_len;
        return true;
    }
    bool ai = a == FL_TYPE_INT32 || a == FL_TYPE_INT64;
    /* plain integer literals against integer-typed columns of either width */
    if (ai && (b == FL_TYPE_INT32 || b == FL_TYPE_INT64)) {
        int64_t x = a == FL_TYPE_INT32 ? v->v.i32 : v->v.i64;
        if (b == FL_TYPE_INT32) {
            if (x < INT32_MIN || x > INT32_MAX)
                return false;
            out->v.i32 = (int32_t)x;
        } else {
            out->v.i64 = x;
        }
        return true;
    }
    if (a == FL_TYPE_FLOAT32 && b == FL_TYPE_FLOAT64) {
        out->v.f64 = v->v.f32;
        return true;
    }
    if (a == FL_TYPE_FLOAT64 && b == FL_TYPE_FLOAT32) {
        float f = (float)v->v.f64;
        if ((double)f != v->v.f64)
            return false;
        out->v.f32 = f;
        return true;
    }
    if ((a == FL_TYPE_STRING && b == FL_TYPE_BINARY) ||
        (a == FL_TYPE_BINARY && b == FL_TYPE_STRING))
        return true;
    return false;
}

static bool cast_term(fl_parquet_scan *s, const fl_col_pred *cp, const fl_type *t, fl_col_pred *out,
                      fl_error *err)
{
    (void)err;
    if (cp->op == FL_CMP_IS_NULL || cp->op == FL_CMP_NOT_NULL)
        return true;
    if (cp->op == FL_CMP_IN) {
        fl_value *vals = fl_arena_calloc(&s->arena, cp->nin ? cp->nin : 1, sizeof *vals);
        if (!vals)
            return false;
        for (uint32_t i = 0; i < cp->nin; i++)
            if (!cast_value(&cp->in_values[i], t, &vals[i]))
                return false;
        out->in_values = vals;
        return true;
    }
    return cast_value(&cp->value, t, &out->value);
}

static fl_status resolve_terms(fl_parquet_scan *s, fl_error *err)
{
    const fl_predicate *p = s->pred;
    if (!p || p->nterms == 0)
        return FL_OK;
    s->term_leaf = fl_arena_calloc(&s->arena, p->nterms, sizeof *s->term_leaf);
    s->term_top = fl_arena_calloc(&s->arena, p->nterms, sizeof *s->term_top);
    s->pterm = fl_arena_calloc(&s->arena, p->nterms, sizeof *s->pterm);
    if (!s->term_leaf || !s->term_top || !s->pterm)
        return oom(err);
    for (uint32_t t = 0; t < p->nterms; t++) {
        const fl_col_pred *cp = &p->terms[t];
        const fl_pq_leaf *leaf = NULL;
        if (cp->field_id > 0) {
            const fl_pq_node *n = find_id_any(s->r, cp->field_id);
            if (n && n->kind == FL_PQN_LEAF)
                leaf = n->leaf;
        } else if (cp->column) {
            for (uint32_t i = 0; i < s->r->nleaves && !leaf; i++)
                if (strcmp(s->r->leaves[i].path, cp->column) == 0)
                    leaf = &s->r->leaves[i];
        }
        /* only non-repeated leaves: stats of list elements say nothing about rows */
        if (leaf && leaf->max_rep > 0)
            leaf = NULL;
        s->term_top[t] = -1;
        for (uint32_t k = 0; leaf && k < s->schema.nfields; k++)
            if (s->top[k].kind == FL_PQN_LEAF && s->top[k].leaf == leaf)
                s->term_top[t] = (int32_t)k;
        /* statistics compare in the column's type: cast the literal, or do not prune */
        s->pterm[t] = *cp;
        if (leaf && !cast_term(s, cp, leaf->type, &s->pterm[t], err))
            leaf = NULL;
        s->term_leaf[t] = leaf;
    }
    return FL_OK;
}

/* ---- open / close ---- */

/* Restricts the scan (of one row group) to rows [lo, hi). */
static fl_status set_slice(fl_parquet_scan *s, int64_t lo, int64_t hi, fl_error *err)
{
    int64_t rows = s->r->meta.row_groups[s->rgs[0]].num_rows;
    FL_CHECK(lo >= 0 && lo < hi && hi <= rows, err, FL_EINVAL,
             "rows %lld..%lld of row group %u, which has %lld", (long long)lo, (long long)hi,
             s->rgs[0], (long long)rows);
    s->slice_lo = lo;
    s->slice_hi = hi;
    if (lo > 0) /* the row group was counted by the scan of its first slice */
        s->stats.row_groups_total--;
    return FL_OK;
}

fl_status fl_parquet_scan_open(fl_parquet_reader *r, const fl_parquet_scan_options *opt,
                               fl_parquet_scan **out, fl_error *err)
{
    *out = NULL;
    fl_parquet_scan_options none;
    memset(&none, 0, sizeof none);
    const fl_parquet_scan_options *o = opt ? opt : &none;
    fl_parquet_scan *s = calloc(1, sizeof *s);
    if (!s)
        return oom(err);
    s->r = r;
    fl_arena_init(&s->arena, 0);
    fl_arena_init(&s->rg_arena, 0);
    s->pred = o->predicate;
    s->no_page_index = o->no_page_index;
    s->filter_rows = o->filter_rows;
    s->batch_rows = o->batch_rows ? o->batch_rows : FL_BATCH_CAP;
    s->bytes_start = r->file->bytes_read;
    fl_status st = project(s, o, err);
    for (uint32_t i = 0; st == FL_OK && i < s->ncols; i++)
        st = fl_pq_col_init(&s->cols[i].col, r, err);
    if (st == FL_OK)
        st = resolve_terms(s, err);
    if (st == FL_OK) {
        uint32_t n = o->row_groups ? o->nrow_groups : r->meta.nrow_groups;
        s->rgs = calloc(n ? n : 1, sizeof *s->rgs);
        if (!s->rgs)
            st = oom(err);
        for (uint32_t i = 0; st == FL_OK && i < n; i++) {
            uint32_t g = o->row_groups ? o->row_groups[i] : i;
            if (g >= r->meta.nrow_groups)
                st = fl_errorf(err, FL_EINVAL, "row group %u out of range (file has %u)", g,
                               r->meta.nrow_groups);
            s->rgs[i] = g;
        }
        s->nrgs = n;
        s->stats.row_groups_total = n;
        if (n == 1 && o->row_hi > 0)
            st = set_slice(s, o->row_lo, o->row_hi, err);
    }
    if (st != FL_OK) {
        fl_error_prefix(err, "%s", r->file->path ? r->file->path : "(parquet)");
        fl_parquet_scan_close(s);
        return st;
    }
    *out = s;
    return FL_OK;
}

const fl_schema *fl_parquet_scan_schema(const fl_parquet_scan *s)
{
    return &s->schema;
}

/* Adds column sc's page counts of its current chunk to st. */
static void add_page_stats(const scan_col *sc, fl_parquet_scan_stats *st)
{
    if (sc->counted)
        return;
    st->pages_total += sc->col.pages_read + sc->col.pages_skipped;
    st->pages_pruned += sc->col.pages_skipped;
}

static void close_rg(fl_parquet_scan *s)
{
    for (uint32_t i = 0; i < s->ncols; i++) {
        fl_pq_col *c = &s->cols[i].col;
        if (c->cc)
            add_page_stats(&s->cols[i], &s->stats);
        c->cc = NULL; /* buffers are kept for the next row group */
        s->cols[i].oi = NULL;
        s->cols[i].counted = false;
    }
    fl_arena_reset(&s->rg_arena);
    s->in_rg = false;
}

void fl_parquet_scan_get_stats(const fl_parquet_scan *s, fl_parquet_scan_stats *out)
{
    *out = s->stats;
    out->bytes_read = s->r->file->bytes_read - s->bytes_start;
    for (uint32_t i = 0; i < s->ncols; i++) {
        if (s->cols[i].col.cc)
            add_page_stats(&s->cols[i], out);
    }
}

void fl_parquet_scan_close(fl_parquet_scan *s)
{
    if (!s)
        return;
    for (uint32_t i = 0; s->cols && i < s->ncols; i++)
        fl_pq_col_free(&s->cols[i].col);
    for (uint32_t i = 0; s->lv && i < s->ncols; i++)
        fl_pq_levels_free(&s->lv[i]);
    for (uint32_t i = 0; s->top && i < s->schema.nfields; i++)
        free_scratch(&s->top[i]);
    free(s->lv);
    free(s->cols);
    free(s->rgs);
    free(s->ranges);
    fl_arena_free(&s->arena);
    fl_arena_free(&s->rg_arena);
    free(s);
}

fl_status fl_parquet_scan_restart(fl_parquet_scan *s, const uint32_t *rgs, uint32_t n, fl_error *err)
{
    if (s->in_rg)
        close_rg(s);
    uint32_t total = s->r->meta.nrow_groups;
    if (!rgs)
        n = total;
    for (uint32_t i = 0; rgs && i < n; i++)
        FL_CHECK(rgs[i] < total, err, FL_EINVAL, "row group %u out of range (file has %u)",
                 rgs[i], total);
    if (n > s->nrgs) {
        uint32_t *nr = realloc(s->rgs, n * sizeof *nr);
        if (!nr)
            return oom(err);
        s->rgs = nr;
    }
    for (uint32_t i = 0; i < n; i++)
        s->rgs[i] = rgs ? rgs[i] : i;
    s->nrgs = n;
    s->rg_pos = 0;
    s->slice_lo = s->slice_hi = 0;
    s->stats.row_groups_total += n;
    return FL_OK;
}

fl_status fl_parquet_scan_restart_rows(fl_parquet_scan *s, uint32_t rg, int64_t row_lo,
                                       int64_t row_hi, fl_error *err)
{
    FL_TRY(fl_parquet_scan_restart(s, &rg, 1, err));
    return set_slice(s, row_lo, row_hi, err);
}

/* ---- row groups: pruning and ranges ---- */

static fl_status add_range(fl_parquet_scan *s, int64_t a, int64_t b, fl_error *err)
{
    if (a >= b)
        return FL_OK;
    if (s->nranges && s->ranges[s->nranges - 1].b == a) {
        s->ranges[s->nranges - 1].b = b;
        return FL_OK;
    }
    if (s->nranges == s->ranges_cap) {
        uint32_t nc = s->ranges_cap ? s->ranges_cap * 2 : 16;
        range *nr = realloc(s->ranges, nc * sizeof *nr);
        if (!nr)
            return oom(err);
        s->ranges = nr;
        s->ranges_cap = nc;
    }
    s->ranges[s->nranges].a = a;
    s->ranges[s->nranges].b = b;
    s->nranges++;
    return FL_OK;
}

/* Bloom filter check of an EQ / IN term: false only when the chunk's filter
 * proves every literal absent. Any read or parse problem means "may match". */
static bool bloom_may_match(fl_parquet_scan *s, const fl_pq_leaf *leaf, const fl_pq_column_meta *m,
                            const fl_col_pred *t)
{
    if ((t->op != FL_CMP_EQ && t->op != FL_CMP_IN) || m->bloom_filter_offset < 4)
        return true;
    uint64_t off = (uint64_t)m->bloom_filter_offset, end = s->r->footer_start;
    if (off >= end)
        return true;
    /* length unknown in older files: the header plus a bitset of up to 1 MiB */
    uint64_t len = m->bloom_filter_length > 0 ? (uint64_t)m->bloom_filter_length : (1u << 20) + 64;
    if (len > end - off)
        len = end - off;
    if (len > (16u << 20))
        return true;
    uint8_t *buf = malloc((size_t)len);
    if (!buf)
        return true;
    fl_error e2;
    fl_pq_bloom b = {0};
    size_t used;
    bool may = true;
    if (fl_file_read_at(s->r->file, off, buf, (size_t)len, &e2) == FL_OK &&
        fl_pq_bloom_parse(buf, (size_t)len, &b, &used, &e2) == FL_OK) {
        const fl_value *vals = t->op == FL_CMP_IN ? t->in_values : &t->value;
        uint32_t nv = t->op == FL_CMP_IN ? t->nin : 1;
        may = false;
        for (uint32_t i = 0; i < nv && !may; i++) {
            uint8_t scratch[32];
            const uint8_t *p;
            size_t n;
            if (vals[i].is_null)
                continue;
            if (!fl_pq_value_plain(&leaf->info, &vals[i], scratch, &p, &n) ||
                fl_pq_bloom_check(&b, fl_pq_bloom_hash(&leaf->info, &vals[i])))
                may = true;
        }
        fl_pq_bloom_free(&b);
    }
    free(buf);
    return may;
}

static bool rg_may_match(fl_parquet_scan *s, const fl_pq_row_group *g)
{
    if (!s->pred)
        return true;
    for (uint32_t t = 0; t < s->pred->nterms; t++) {
        const fl_pq_leaf *leaf = s->term_leaf[t];
        if (!leaf || !g->columns[leaf->index].meta_data_set)
            continue;
        const fl_pq_column_meta *m = &g->columns[leaf->index].meta_data;
        if (m->statistics_set &&
            !fl_pq_stats_may_match(&leaf->info, &m->statistics, m->num_values, &s->pterm[t]))
            return false;
    }
    /* bloom filters cost a read each: only once the statistics could not prune */
    for (uint32_t t = 0; t < s->pred->nterms; t++) {
        const fl_pq_leaf *leaf = s->term_leaf[t];
        if (leaf && g->columns[leaf->index].meta_data_set &&
            !bloom_may_match(s, leaf, &g->columns[leaf->index].meta_data, &s->pterm[t]))
            return false;
    }
    return true;
}

typedef struct idx_req {
    const fl_pq_leaf *leaf;
    int64_t off;
    int32_t len;
    bool column_index;
    void *out;
} idx_req;

/* Reads the offset indexes of projected columns and the column + offset
 * indexes of predicate columns of row group g with one ranged read. Columns
 * whose indexes are absent or malformed simply get none. */
static fl_status read_indexes(fl_parquet_scan *s, const fl_pq_row_group *g,
                              const fl_pq_column_index **ci, const fl_pq_offset_index **toi,
                              fl_error *err)
{
    uint32_t nt = s->pred ? s->pred->nterms : 0;
    uint32_t max = s->ncols + 2 * nt;
    idx_req *req = fl_arena_calloc(&s->rg_arena, max ? max : 1, sizeof *req);
    if (!req)
        return oom(err);
    uint32_t nr = 0;
    int64_t lo = INT64_MAX, hi = 0;
    const fl_pq_offset_index **col_oi = fl_arena_calloc(&s->rg_arena, s->ncols + 1, sizeof *col_oi);
    if (!col_oi)
        return oom(err);
    for (uint32_t i = 0; i < max; i++) {
        const fl_pq_leaf *leaf;
        bool is_ci = false;
        if (i < s->ncols) {
            leaf = s->cols[i].leaf;
        } else {
            uint32_t t = (i - s->ncols) / 2;
            leaf = s->term_leaf[t];
            is_ci = (i - s->ncols) % 2 == 0;
        }
        if (!leaf)
            continue;
        const fl_pq_column_chunk *cc = &g->columns[leaf->index];
        int64_t off = is_ci ? cc->column_index_offset : cc->offset_index_offset;
        int32_t len = is_ci ? cc->column_index_length : cc->offset_index_length;
        if (off < 4 || len <= 0 || (uint64_t)off > s->r->footer_start ||
            (uint64_t)len > s->r->footer_start - (uint64_t)off)
            continue;
        req[nr].leaf = leaf;
        req[nr].off = off;
        req[nr].len = len;
        req[nr].column_index = is_ci;
        nr++;
        lo = off < lo ? off : lo;
        hi = off + len > hi ? off + len : hi;
    }
    if (nr == 0 || hi - lo > (64 << 20))
        return FL_OK;
    uint8_t *buf = fl_arena_alloc(&s->rg_arena, (size_t)(hi - lo));
    if (!buf)
        return oom(err);
    FL_TRY(fl_file_read_at(s->r->file, (uint64_t)lo, buf, (size_t)(hi - lo), err));
    for (uint32_t i = 0; i < nr; i++) {
        fl_error e2;
        const uint8_t *p = buf + (req[i].off - lo);
        if (req[i].column_index) {
            fl_pq_column_index *x = fl_arena_calloc(&s->rg_arena, 1, sizeof *x);
            if (!x)
                return oom(err);
            if (fl_pq_decode_column_index(p, (size_t)req[i].len, &s->rg_arena, x, &e2) == FL_OK)
                ci[req[i].leaf->index] = x;
        } else {
            fl_pq_offset_index *x = fl_arena_calloc(&s->rg_arena, 1, sizeof *x);
            if (!x)
                return oom(err);
            if (fl_pq_decode_offset_index(p, (size_t)req[i].len, &s->rg_arena, x, &e2) == FL_OK)
                toi[req[i].leaf->index] = x;
        }
    }
    return FL_OK;
}

static fl_status plan_rg_pages(fl_parquet_scan *s, const fl_pq_row_group *g, fl_error *err);

/* Page statistics of a row-range split, from the row group's selected ranges
 * (before they are cut to the slice): the slice counts the pages whose first
 * row it holds, as one scan of the whole row group would count them (the
 * pages up to the last selected row; pruned: those wholly between selected
 * ranges), so that the slices' counts add up to that scan's. */
static void count_slice_pages(fl_parquet_scan *s, int64_t rows)
{
    int64_t last = s->nranges ? s->ranges[s->nranges - 1].b : 0;
    for (uint32_t i = 0; i < s->ncols; i++) {
        const fl_pq_offset_index *oi = s->cols[i].oi;
        if (!oi)
            continue; /* the reader's own counts */
        uint32_t r = 0;
        for (uint32_t p = 0; p < oi->npages; p++) {
            int64_t a = oi->page_locations[p].first_row_index;
            int64_t b = p + 1 < oi->npages ? oi->page_locations[p + 1].first_row_index : rows;
            if (a >= last)
                break;
            if (a < s->slice_lo || a >= s->slice_hi)
                continue;
            while (r < s->nranges && s->ranges[r].b <= a)
                r++;
            bool in_gap = r >= s->nranges || s->ranges[r].a >= b;
            s->stats.pages_total++;
            s->stats.pages_pruned += in_gap;
        }
        s->cols[i].counted = true;
    }
}

/* Computes the selected row ranges of row group g (all rows unless the page
 * index excludes some, within the row-range split if any) and the offset
 * indexes of the projected columns. */
static fl_status plan_rg(fl_parquet_scan *s, const fl_pq_row_group *g, fl_error *err)
{
    FL_TRY(plan_rg_pages(s, g, err));
    if (s->slice_hi == 0)
        return FL_OK;
    count_slice_pages(s, g->num_rows);
    /* a row-range split: keep the selected rows inside [slice_lo, slice_hi) */
    uint32_t k = 0;
    for (uint32_t i = 0; i < s->nranges; i++) {
        int64_t a = s->ranges[i].a > s->slice_lo ? s->ranges[i].a : s->slice_lo;
        int64_t b = s->ranges[i].b < s->slice_hi ? s->ranges[i].b : s->slice_hi;
        if (a < b)
            s->ranges[k++] = (range){a, b};
    }
    s->nranges = k;
    return FL_OK;
}

/* The selected row ranges of row group g by the page index (all rows when
 * nothing prunes), and the offset indexes of the projected columns, which a
 * row-range split needs even without pruning to skip pages unread. */
static fl_status plan_rg_pages(fl_parquet_scan *s, const fl_pq_row_group *g, fl_error *err)
{
    s->nranges = 0;
    s->range_i = 0;
    bool prune = !s->no_page_index && s->pred && s->pred->nterms > 0;
    if ((!prune && s->slice_hi == 0) || g->num_rows == 0)
        return add_range(s, 0, g->num_rows, err);
    uint32_t nl = s->r->nleaves;
    const fl_pq_column_index **ci = fl_arena_calloc(&s->rg_arena, nl + 1, sizeof *ci);
    const fl_pq_offset_index **oi = fl_arena_calloc(&s->rg_arena, nl + 1, sizeof *oi);
    if (!ci || !oi)
        return oom(err);
    FL_TRY(read_indexes(s, g, ci, oi, err));
    for (uint32_t i = 0; i < s->ncols; i++)
        s->cols[i].oi = oi[s->cols[i].leaf->index];
    if (!prune)
        return add_range(s, 0, g->num_rows, err);
    /* excluded[] marks rows; sized by row count only when some term prunes */
    range *ex = NULL;
    uint32_t nex = 0, excap = 0;
    for (uint32_t t = 0; t < s->pred->nterms; t++) {
        const fl_pq_leaf *leaf = s->term_leaf[t];
        if (!leaf)
            continue;
        const fl_pq_column_index *x = ci[leaf->index];
        const fl_pq_offset_index *o = oi[leaf->index];
        if (!x || !o || x->npages != o->npages)
            continue;
        for (uint32_t p = 0; p < x->npages; p++) {
            if (fl_pq_page_may_match(&leaf->info, x, p, &s->pterm[t]))
                continue;
            int64_t a = o->page_locations[p].first_row_index;
            int64_t b = p + 1 < o->npages ? o->page_locations[p + 1].first_row_index : g->num_rows;
            if (a < 0 || b > g->num_rows || a >= b)
                continue;
            if (nex == excap) {
                excap = excap ? excap * 2 : 16;
                range *n2 = realloc(ex, excap * sizeof *n2);
                if (!n2) {
                    free(ex);
                    return oom(err);
                }
                ex = n2;
            }
            ex[nex].a = a;
            ex[nex].b = b;
            nex++;
        }
    }
    /* selected = [0, rows) minus the union of excluded ranges */
    for (uint32_t i = 1; i < nex; i++) { /* insertion sort by start: few ranges */
        range k = ex[i];
        uint32_t j = i;
        while (j > 0 && ex[j - 1].a > k.a) {
            ex[j] = ex[j - 1];
            j--;
        }
        ex[j] = k;
    }
    int64_t at = 0;
    fl_status st = FL_OK;
    for (uint32_t i = 0; i < nex && st == FL_OK; i++) {
        if (ex[i].a > at)
            st = add_range(s, at, ex[i].a, err);
        if (ex[i].b > at)
            at = ex[i].b;
    }
    if (st == FL_OK)
        st = add_range(s, at, g->num_rows, err);
    free(ex);
    return st;
}

static fl_status open_rg(fl_parquet_scan *s, uint32_t gi, bool *skip, fl_error *err)
{
    const fl_pq_row_group *g = &s->r->meta.row_groups[gi];
    *skip = false;
    bool first_slice = s->slice_lo == 0; /* counts the row group once */
    if (!rg_may_match(s, g)) {
        s->stats.row_groups_pruned += first_slice;
        *skip = true;
        return FL_OK;
    }
    FL_TRY(plan_rg(s, g, err));
    if (s->nranges == 0) {
        *skip = true;
        if (g->num_rows > 0 && s->slice_hi == 0)
            s->stats.row_groups_pruned++;
        return FL_OK;
    }
    for (uint32_t i = 0; i < s->ncols; i++) {
        FL_TRY(fl_pq_col_open(&s->cols[i].col, gi, s->cols[i].leaf, s->cols[i].slot_def,
                              s->cols[i].oi, s->ranges[0].a, s->ranges[s->nranges - 1].b, err));
    }
    s->rg = gi;
    s->row = 0;
    s->in_rg = true;
    return FL_OK;
}

/* ---- reading ---- */

static fl_status read_node(fl_parquet_scan *s, const fl_pq_node *n, fl_vector *v, uint32_t rows,
                           bool nested, fl_error *err)
{
    if (n->kind == FL_PQN_LEAF) {
        uint32_t got = 0;
        fl_pq_levels *lv = nested ? &s->lv[n->col] : NULL;
        if (lv)
            lv->n = 0;
        FL_TRY(fl_pq_col_read(&s->cols[n->col].col, rows, v, lv, &got, err));
        FL_CHECK(got == rows, err, FL_ECORRUPT,
                 "column '%s': row group %u: %u rows where %u were expected", n->leaf->path, s->rg,
                 got, rows);
        return FL_OK;
    }
    if (n->kind == FL_PQN_VARIANT) {
        fl_vector_reset(n->scratch);
        v = n->scratch;
    }
    for (uint32_t c = 0; c < n->nchildren; c++)
        FL_TRY(read_node(s, &n->children[c], &v->children[c], rows, true, err));
    return FL_OK;
}

static bool int_like(fl_type_id t)
{
    return t == FL_TYPE_INT32 || t == FL_TYPE_INT64 || t == FL_TYPE_DATE || t == FL_TYPE_TIME ||
           t == FL_TYPE_TIMESTAMP || t == FL_TYPE_TIMESTAMPTZ || t == FL_TYPE_TIMESTAMP_NS ||
           t == FL_TYPE_TIMESTAMPTZ_NS;
}

static int64_t as_i64(const fl_value *v)
{
    return v->type.id == FL_TYPE_INT32 || v->type.id == FL_TYPE_DATE ? v->v.i32 : v->v.i64;
}

/* Compares row value a with literal b; false when the types are not comparable. */
static bool compare(const fl_value *a, const fl_value *b, int *res)
{
    if (a->type.id == b->type.id && a->type.id != FL_TYPE_DECIMAL) {
        *res = fl_value_compare(a, b);
        return true;
    }
    if (a->type.id == FL_TYPE_DECIMAL && b->type.id == FL_TYPE_DECIMAL &&
        a->type.scale == b->type.scale) {
        *res = a->v.dec < b->v.dec ? -1 : a->v.dec > b->v.dec;
        return true;
    }
    if (int_like(a->type.id) && int_like(b->type.id)) {
        int64_t x = as_i64(a), y = as_i64(b);
        *res = x < y ? -1 : x > y;
        return true;
    }
    bool af = a->type.id == FL_TYPE_FLOAT32 || a->type.id == FL_TYPE_FLOAT64;
    bool bf = b->type.id == FL_TYPE_FLOAT32 || b->type.id == FL_TYPE_FLOAT64;
    if ((af || int_like(a->type.id)) && (bf || int_like(b->type.id))) {
        double x = a->type.id == FL_TYPE_FLOAT32   ? a->v.f32
                   : a->type.id == FL_TYPE_FLOAT64 ? a->v.f64
                                                   : (double)as_i64(a);
        double y = b->type.id == FL_TYPE_FLOAT32   ? b->v.f32
                   : b->type.id == FL_TYPE_FLOAT64 ? b->v.f64
                                                   : (double)as_i64(b);
        if (x != x || y != y)
            return false;
        *res = x < y ? -1 : x > y;
        return true;
    }
    return false;
}

static void row_value(const fl_vector *v, uint32_t row, fl_value *out)
{
    memset(out, 0, sizeof *out);
    out->type = *v->type;
    out->type.children = NULL;
    out->type.nchildren = 0;
    out->is_null = !fl_vector_is_valid(v, row);
    if (out->is_null)
        return;
    size_t w = fl_type_width(v->type);
    switch (v->type->id) {
    case FL_TYPE_BOOLEAN: out->v.b = v->data[row] != 0; break;
    case FL_TYPE_STRING:
    case FL_TYPE_BINARY: out->v.bytes.ptr = fl_vector_bytes(v, row, &out->v.bytes.len); break;
    case FL_TYPE_UUID:
    case FL_TYPE_FIXED:
        out->v.bytes.ptr = v->data + (size_t)row * w;
        out->v.bytes.len = w;
        break;
    default: memcpy(&out->v, v->data + (size_t)row * w, w); break;
    }
}

/* -1: term not evaluable on this row (keep), 0: false, 1: true */
static int eval_term(const fl_col_pred *t, const fl_value *x)
{
    if (t->op == FL_CMP_IS_NULL)
        return x->is_null;
    if (t->op == FL_CMP_NOT_NULL)
        return !x->is_null;
    if (x->is_null)
        return 0;
    int c;
    if (t->op == FL_CMP_IN) {
        for (uint32_t i = 0; i < t->nin; i++) {
            if (t->in_values[i].is_null)
                continue;
            if (!compare(x, &t->in_values[i], &c))
                return -1;
            if (c == 0)
                return 1;
        }
        return 0;
    }
    if (t->value.is_null)
        return 0;
    if (!compare(x, &t->value, &c))
        return -1;
    switch (t->op) {
    case FL_CMP_EQ: return c == 0;
    case FL_CMP_NE: return c != 0;
    case FL_CMP_LT: return c < 0;
    case FL_CMP_LE: return c <= 0;
    case FL_CMP_GT: return c > 0;
    case FL_CMP_GE: return c >= 0;
    default: return -1;
    }
}

/* Keeps, in place, the candidate rows idx[0..n) of v for which term t holds
 * (or cannot be evaluated); returns how many remain. Integer-like columns
 * compared with an integer literal take a branch-free loop per operator;
 * everything else goes through the generic row_value/eval_term path. */
#define FILTER_INT_LOOP(T, CMP)                                                                    \
    do {                                                                                           \
        const T *d = (const T *)(const void *)v->data;                                             \
        for (uint32_t k = 0; k < n; k++) {                                                         \
            uint32_t r = idx[k];                                                                   \
            int64_t x = (int64_t)d[r];                                                             \
            bool ok = (CMP) && (!valid || ((valid[r >> 3] >> (r & 7)) & 1));                       \
            idx[m] = r;                                                                            \
            m += ok;                                                                               \
        }                                                                                          \
    } while (0)

#define FILTER_INT_OPS(T)                                                                          \
    do {                                                                                           \
        switch (t->op) {                                                                           \
        case FL_CMP_EQ: FILTER_INT_LOOP(T, x == lit); break;                                       \
        case FL_CMP_NE: FILTER_INT_LOOP(T, x != lit); break;                                       \
        case FL_CMP_LT: FILTER_INT_LOOP(T, x < lit); break;                                        \
        case FL_CMP_LE: FILTER_INT_LOOP(T, x <= lit); break;                                       \
        case FL_CMP_GT: FILTER_INT_LOOP(T, x > lit); break;                                        \
        default: FILTER_INT_LOOP(T, x >= lit); break;                                              \
        }                                                                                          \
    } while (0)

static uint32_t filter_term(const fl_col_pred *t, const fl_vector *v, uint32_t *idx, uint32_t n)
{
    uint32_t m = 0;
    bool cmp_op = t->op >= FL_CMP_EQ && t->op <= FL_CMP_GE;
    fl_type_id ct = v->type->id, lt = t->value.type.id;
    bool ints = (ct == FL_TYPE_INT32 || ct == FL_TYPE_INT64) &&
                (lt == FL_TYPE_INT32 || lt == FL_TYPE_INT64);
    if (v->encoding == FL_VEC_FLAT && cmp_op && !t->value.is_null && int_like(ct) &&
        (ct == lt || ints)) {
        const uint8_t *valid = v->validity;
        int64_t lit = as_i64(&t->value);
        if (fl_type_width(v->type) == 4)
            FILTER_INT_OPS(int32_t);
        else
            FILTER_INT_OPS(int64_t);
        return m;
    }
    for (uint32_t k = 0; k < n; k++) {
        fl_value x;
        row_value(v, idx[k], &x);
        if (eval_term(t, &x) != 0)
            idx[m++] = idx[k];
    }
    return m;
}

static fl_status filter_batch(fl_parquet_scan *s, fl_batch *b, fl_error *err)
{
    bool any = false;
    for (uint32_t t = 0; t < s->pred->nterms; t++)
        any |= s->term_top[t] >= 0;
    if (!any)
        return FL_OK;
    fl_sel *sel = &b->owned_sel;
    if (sel->cap < b->nrows) {
        uint32_t *ni = realloc(sel->idx, (size_t)b->nrows * sizeof *ni);
        if (!ni)
            return oom(err);
        sel->idx = ni;
        sel->cap = b->nrows;
    }
    uint32_t n = b->nrows;
    for (uint32_t row = 0; row < n; row++)
        sel->idx[row] = row;
    for (uint32_t t = 0; t < s->pred->nterms && n > 0; t++)
        if (s->term_top[t] >= 0)
            n = filter_term(&s->pred->terms[t], &b->cols[s->term_top[t]], sel->idx, n);
    sel->count = n;
    b->sel = sel;
    return FL_OK;
}

static fl_status read_batch(fl_parquet_scan *s, fl_batch *b, uint32_t rows, fl_error *err)
{
    for (uint32_t i = 0; i < s->schema.nfields; i++) {
        const fl_pq_node *n = &s->top[i];
        fl_vector *v = &b->cols[i];
        FL_TRY(read_node(s, n, v, rows, false, err));
        if (n->kind != FL_PQN_LEAF) {
            FL_TRY(fl_pq_assemble(n, v, s->lv, err));
            FL_CHECK(v->len == rows, err, FL_ECORRUPT,
                     "field '%s': row group %u: %u rows where %u were expected", n->field->name,
                     s->rg, v->len, rows);
        }
    }
    b->nrows = rows;
    s->stats.rows_produced += rows;
    if (s->filter_rows && s->pred && s->term_top)
        FL_TRY(filter_batch(s, b, err));
    return FL_OK;
}

static fl_status next_impl(fl_parquet_scan *s, fl_batch *b, bool *eof, fl_error *err)
{
    for (;;) {
        if (!s->in_rg) {
            if (s->rg_pos >= s->nrgs) {
                *eof = true;
                return FL_OK;
            }
            bool skip;
            FL_TRY(open_rg(s, s->rgs[s->rg_pos++], &skip, err));
            if (skip)
                continue;
        }
        if (s->range_i >= s->nranges) {
            close_rg(s);
            continue;
        }
        range *rg = &s->ranges[s->range_i];
        if (s->row < rg->a) {
            for (uint32_t i = 0; i < s->ncols; i++)
                FL_TRY(fl_pq_col_skip(&s->cols[i].col, rg->a - s->row, err));
            s->row = rg->a;
        }
        int64_t left = rg->b - s->row;
        uint32_t n = left < (int64_t)s->batch_rows ? (uint32_t)left : s->batch_rows;
        FL_TRY(read_batch(s, b, n, err));
        s->row += n;
        if (s->row >= rg->b)
            s->range_i++;
        if (b->sel && b->sel->count == 0) {
            fl_batch_reset(b);
            continue; /* every row filtered out: read on */
        }
        return FL_OK;
    }
}

fl_status fl_parquet_scan_next(fl_parquet_scan *s, fl_batch *b, bool *eof, fl_error *err)
{
    *eof = false;
    fl_batch_reset(b);
    FL_CHECK(b->ncols == s->schema.nfields, err, FL_EINVAL,
             "batch has %u columns, the scan produces %u", b->ncols, s->schema.nfields);
    fl_status st = next_impl(s, b, eof, err);
    if (st != FL_OK) {
        fl_batch_reset(b);
        close_rg(s);
        s->rg_pos = s->nrgs; /* a failed scan stays failed */
        fl_error_prefix(err, "%s", s->r->file->path ? s->r->file->path : "(parquet)");
    }
    return st;
}
