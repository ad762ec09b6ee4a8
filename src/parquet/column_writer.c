/*
 * column_writer.c - one leaf column of a Parquet file being written: turns
 * rows of (possibly nested) vectors into definition/repetition levels and
 * physical values, accumulates them into pages, and encodes, compresses and
 * buffers the pages of the current column chunk.
 *
 * Levels (parquet-format, Dremel encoding): walking from the top-level
 * vector to the leaf, every OPTIONAL field adds one definition level when
 * present, every repeated group (list "list", map "key_value") adds one
 * definition level when non-empty and one repetition level. A value is
 * emitted with def = max_def; a null (or empty list) at some depth is emitted
 * once with the def reached so far. The first element of a list repeats at
 * the caller's level, the others at the list's own level. Pages always start
 * at a row boundary (rep = 0), as page indexes and v2 pages require.
 *
 * Page bytes (Encodings.md / the DataPage definitions in parquet.thrift):
 *   v1: [4-byte LE length + RLE rep levels] [4-byte LE length + RLE def levels] values
 *       all compressed together;
 *   v2: RLE rep levels, RLE def levels (no length prefixes, never compressed),
 *       then the compressed values.
 *   values: PLAIN (booleans bit-packed LSB first; byte arrays 4-byte length +
 *   bytes; decimals as INT32/INT64 or big-endian FLBA), or RLE_DICTIONARY
 *   (1 byte bit width + RLE/bit-packed hybrid indices) against the chunk's
 *   dictionary page (PLAIN). When the dictionary outgrows
 *   dictionary_max_bytes the current page is flushed and the rest of the
 *   chunk is PLAIN; so is it when the chunk's first page shows that the
 *   dictionary does not pay (dict_pays: mostly distinct values).
 *
 * Statistics are tracked on the floe values in their type's order (signed
 * integers and decimals, IEEE floats without NaN, unsigned bytes), per page
 * and merged per chunk and per file. Byte strings longer than a limit are
 * truncated: the min to a prefix, the max to a prefix whose last character
 * (STRING) or byte (BINARY) is incremented, so it stays an upper bound.
 *
 * Ownership: the column owns every buffer below (malloc'd, reused); page
 * index values are copied into the writer's arena.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include <zstd.h>

#include "parquet/encoding.h"
#include "parquet/writer_int.h"

#define SEGMENT_ROWS 1024u
#define MIN_DICT_SEGMENT 64u
#define MIN_PAGE_SEGMENT                                                                           \
    16u /* rows per segment while a page nears page_bytes */ /* rows per segment while the         \
                                                                dictionary nears its limit */
#define STATS_LIMIT 4096u                                    /* chunk / page header statistics */
#define INDEX_LIMIT 64u                                      /* column index min/max */

/* ---------------------------------------------------------------- setup */

fl_status fl_pqw_column_init(fl_pqw_column *c, const fl_pqw_leaf *leaf, const fl_pqw_opts *opt,
                             fl_arena *arena, bool bloom, fl_error *err)
{
    memset(c, 0, sizeof *c);
    c->leaf = leaf;
    c->opt = opt;
    c->arena = arena;
    c->bloom = bloom;
    c->ci_ok = true;
    c->geo = fl_type_is_geo(leaf->type);
    fl_wkb_bbox_init(&c->file_box);
    fl_pqw_geo_reset_chunk(c);
    fl_arena_init(&c->scratch, 16384);
    if (opt->dictionary && leaf->vkind != FL_PQW_V_BOOL) {
        FL_TRY(fl_pqw_dict_init(&c->dict, leaf->vkind == FL_PQW_V_BYTES ? 0 : leaf->width, err));
        c->dict_on = true;
    }
    c->page_dict = c->dict_on;
    return FL_OK;
}

void fl_pqw_minmax_free(fl_pqw_minmax *mm)
{
    fl_buf_free(&mm->minb);
    fl_buf_free(&mm->maxb);
    mm->has = false;
}

void fl_pqw_column_free(fl_pqw_column *c)
{
    if (!c)
        return;
    free(c->def);
    free(c->rep);
    free(c->idx);
    free(c->pos);
    free(c->pagev);
    free(c->hashes);
    fl_buf_free(&c->plain);
    fl_buf_free(&c->pages);
    fl_buf_free(&c->gather);
    fl_buf_free(&c->raw);
    fl_buf_free(&c->comp);
    fl_buf_free(&c->hdr);
    fl_pqw_minmax_free(&c->page_mm);
    fl_pqw_minmax_free(&c->chunk_mm);
    fl_pqw_minmax_free(&c->file_mm);
    fl_pqw_dict_free(&c->dict);
    fl_arena_free(&c->scratch);
    ZSTD_freeCCtx(c->zstd);
    c->zstd = NULL;
    memset(c, 0, sizeof *c);
}

static fl_status grow_u32(uint32_t **p, uint32_t *cap, size_t need, fl_error *err)
{
    if (need <= *cap)
        return FL_OK;
    if (need > UINT32_MAX / 2)
        return fl_errorf(err, FL_ELIMIT, "page holds more than 2^31 values");
    size_t n = *cap ? *cap : 1024;
    while (n < need)
        n *= 2;
    uint32_t *q = realloc(*p, n * sizeof *q);
    if (!q)
        return fl_errorf(err, FL_ENOMEM, "out of memory for %zu levels", n);
    *p = q;
    *cap = (uint32_t)n;
    return FL_OK;
}

static fl_status grow_levels(fl_pqw_column *c, size_t need, fl_error *err)
{
    if (need <= c->levels_cap)
        return FL_OK;
    if (need > UINT32_MAX / 2)
        return fl_errorf(err, FL_ELIMIT, "column '%s': page holds more than 2^31 levels",
                         c->leaf->path);
    size_t n = c->levels_cap ? c->levels_cap : 1024;
    while (n < need)
        n *= 2;
    if (c->leaf->max_def > 0) {
        uint32_t *p = realloc(c->def, n * sizeof *p);
        if (!p)
            return fl_errorf(err, FL_ENOMEM, "out of memory for %zu levels", n);
        c->def = p;
    }
    if (c->leaf->max_rep > 0) {
        uint32_t *p = realloc(c->rep, n * sizeof *p);
        if (!p)
            return fl_errorf(err, FL_ENOMEM, "out of memory for %zu levels", n);
        c->rep = p;
    }
    c->levels_cap = (uint32_t)n;
    return FL_OK;
}

/* ---------------------------------------------------------------- levels */

typedef struct walk_ctx {
    fl_pqw_column *c;
    const fl_pqw_leaf *leaf;
    fl_error *err;
} walk_ctx;

static fl_status emit(walk_ctx *w, uint32_t def, uint32_t rep, bool value, uint32_t pos)
{
    fl_pqw_column *c = w->c;
    if (c->nlevels >= c->levels_cap)
        FL_TRY(grow_levels(c, (size_t)c->nlevels + 1, w->err));
    if (w->leaf->max_def > 0)
        c->def[c->nlevels] = def;
    if (w->leaf->max_rep > 0)
        c->rep[c->nlevels] = rep;
    c->nlevels++;
    if (value) {
        if (c->npos >= c->pos_cap)
            FL_TRY(grow_u32(&c->pos, &c->pos_cap, (size_t)c->npos + 1, w->err));
        c->pos[c->npos++] = pos;
    }
    return FL_OK;
}

static fl_status null_in_required(walk_ctx *w, const fl_pqw_step *st)
{
    return fl_errorf(w->err, FL_EINVAL, "column '%s': null in required field '%s'", w->leaf->path,
                     st->name);
}

static fl_status walk(walk_ctx *w, uint32_t d, const fl_vector *v, uint32_t row, uint32_t def,
                      uint32_t rep)
{
    const fl_pqw_step *st = &w->leaf->steps[d];
    fl_unified u;
    fl_vector_unify(v, &u);
    uint32_t r = fl_unified_row(&u, row);
    const fl_vector *b = u.base;
    if (u.idx && r >= b->len)
        return fl_errorf(w->err, FL_EINVAL, "column '%s': dictionary index %u >= %u entries",
                         w->leaf->path, r, b->len);
    if (!fl_unified_is_valid(&u, row)) {
        if (!st->nullable)
            return null_in_required(w, st);
        return emit(w, def, rep, false, 0);
    }
    if (st->nullable)
        def++;
    switch (st->kind) {
    case FL_PQW_STEP_LEAF:
        if (w->c->leaf_base && w->c->leaf_base != b)
            return fl_errorf(w->err, FL_EINVAL,
                             "column '%s': leaf values come from more than one vector",
                             w->leaf->path);
        w->c->leaf_base = b;
        return emit(w, def, rep, true, r);
    case FL_PQW_STEP_STRUCT:
        if (st->child >= b->nchildren)
            return fl_errorf(w->err, FL_EINVAL, "column '%s': struct vector has %u children",
                             w->leaf->path, b->nchildren);
        return walk(w, d + 1, &b->children[st->child], r, def, rep);
    case FL_PQW_STEP_LIST:
    case FL_PQW_STEP_MAP: {
        if (st->child >= b->nchildren || !b->offsets)
            return fl_errorf(w->err, FL_EINVAL, "column '%s': malformed list/map vector",
                             w->leaf->path);
        int64_t s = b->offsets[r], e = b->offsets[r + 1];
        const fl_vector *child = &b->children[st->child];
        if (s < 0 || e < s || e > (int64_t)child->len)
            return fl_errorf(w->err, FL_EINVAL,
                             "column '%s': list offsets [%lld, %lld) outside the child's %u rows",
                             w->leaf->path, (long long)s, (long long)e, child->len);
        if (s == e)
            return emit(w, def, rep, false, 0);
        for (int64_t i = s; i < e; i++)
            FL_TRY(walk(w, d + 1, child, (uint32_t)i, def + 1,
                        i == s ? rep : (uint32_t)st->rep_level));
        return FL_OK;
    }
    }
    return FL_OK;
}

/* Dictionary indices of a DICT vector must point inside its dictionary. */
static fl_status check_dict_rows(const fl_pqw_column *c, const fl_vector *base, const uint32_t *pos,
                                 uint32_t n, fl_error *err)
{
    for (uint32_t i = 0; i < n; i++)
        if (pos[i] >= base->len)
            return fl_errorf(err, FL_EINVAL, "column '%s': dictionary index %u >= %u entries",
                             c->leaf->path, pos[i], base->len);
    return FL_OK;
}

/* Flat leaf (top-level primitive): levels straight from the validity bitmap. */
static fl_status levels_flat(fl_pqw_column *c, const fl_vector *v, const uint32_t *rows,
                             uint32_t first, uint32_t n, fl_error *err)
{
    fl_unified u;
    fl_vector_unify(v, &u);
    const fl_vector *b = u.base;
    c->leaf_base = b;
    FL_TRY(grow_u32(&c->pos, &c->pos_cap, n, err));
    bool nullable = c->leaf->max_def > 0;
    if (nullable)
        FL_TRY(grow_levels(c, (size_t)c->nlevels + n, err));
    uint32_t *pos = c->pos, np = 0;
    uint32_t *def = nullable ? c->def + c->nlevels : NULL;
    if (!b->validity && !u.validity) {
        if (u.constant)
            for (uint32_t i = 0; i < n; i++)
                pos[i] = 0;
        else if (!rows && !u.idx)
            for (uint32_t i = 0; i < n; i++)
                pos[i] = first + i;
        else
            for (uint32_t i = 0; i < n; i++)
                pos[i] = fl_unified_row(&u, rows ? rows[i] : first + i);
        np = n;
        if (u.idx)
            FL_TRY(check_dict_rows(c, b, pos, n, err));
        if (def)
            for (uint32_t i = 0; i < n; i++)
                def[i] = 1;
    } else {
        for (uint32_t i = 0; i < n; i++) {
            uint32_t row = rows ? rows[i] : first + i;
            uint32_t r = fl_unified_row(&u, row);
            if (u.idx && r >= b->len)
                return check_dict_rows(c, b, &r, 1, err);
            bool valid = fl_unified_is_valid(&u, row);
            if (def)
                def[i] = valid;
            else if (!valid)
                return fl_errorf(err, FL_EINVAL, "column '%s': null in a required column",
                                 c->leaf->path);
            pos[np] = r;
            np += valid;
        }
    }
    c->npos = np;
    c->nlevels += n;
    return FL_OK;
}

static fl_status levels_segment(fl_pqw_column *c, const fl_vector *v, const uint32_t *rows,
                                uint32_t first, uint32_t n, fl_error *err)
{
    c->npos = 0;
    if (c->leaf->nsteps == 1)
        return levels_flat(c, v, rows, first, n, err);
    walk_ctx w = {c, c->leaf, err};
    c->leaf_base = NULL;
    for (uint32_t i = 0; i < n; i++)
        FL_TRY(walk(&w, 0, v, rows ? rows[i] : first + i, 0, 0));
    return FL_OK;
}

/* ---------------------------------------------------------------- min/max */

static fl_status set_bytes(fl_pq_buf *dst, const uint8_t *p, size_t n, fl_error *err)
{
    dst->len = 0;
    return fl_pqw_append(dst, p, n, err);
}

static int cmp_bytes(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
    size_t n = al < bl ? al : bl;
    int r = n ? memcmp(a, b, n) : 0;
    if (r)
        return r;
    return al < bl ? -1 : al > bl;
}

static bool is_bytes_kind(fl_pqw_vkind k)
{
    return k == FL_PQW_V_FLBA || k == FL_PQW_V_BYTES;
}

fl_status fl_pqw_minmax_merge(const fl_pqw_leaf *leaf, fl_pqw_minmax *dst, const fl_pqw_minmax *src,
                              fl_error *err)
{
    if (!src->has)
        return FL_OK;
    fl_pqw_vkind k = leaf->vkind;
    if (is_bytes_kind(k)) {
        if (!dst->has ||
            cmp_bytes(src->minb.bytes, src->minb.len, dst->minb.bytes, dst->minb.len) < 0)
            FL_TRY(set_bytes(&dst->minb, src->minb.bytes, src->minb.len, err));
        if (!dst->has ||
            cmp_bytes(src->maxb.bytes, src->maxb.len, dst->maxb.bytes, dst->maxb.len) > 0)
            FL_TRY(set_bytes(&dst->maxb, src->maxb.bytes, src->maxb.len, err));
        dst->has = true;
        return FL_OK;
    }
    if (!dst->has) {
        dst->min = src->min;
        dst->max = src->max;
        dst->has = true;
        return FL_OK;
    }
#define MERGE(f)                                                                                   \
    do {                                                                                           \
        if (src->min.f < dst->min.f)                                                               \
            dst->min.f = src->min.f;                                                               \
        if (src->max.f > dst->max.f)                                                               \
            dst->max.f = src->max.f;                                                               \
    } while (0)
    switch (k) {
    case FL_PQW_V_BOOL: MERGE(b); break;
    case FL_PQW_V_I32: MERGE(i32); break;
    case FL_PQW_V_I64: MERGE(i64); break;
    case FL_PQW_V_F32: MERGE(f32); break;
    case FL_PQW_V_F64: MERGE(f64); break;
    default: MERGE(dec); break;
    }
#undef MERGE
    return FL_OK;
}

void fl_pqw_minmax_values(const fl_pqw_leaf *leaf, const fl_pqw_minmax *mm, fl_value *min,
                          fl_value *max)
{
    memset(min, 0, sizeof *min);
    memset(max, 0, sizeof *max);
    min->type = *leaf->type;
    min->type.children = NULL;
    min->type.nchildren = 0;
    max->type = min->type;
    switch (leaf->vkind) {
    case FL_PQW_V_BOOL:
        min->v.b = mm->min.b != 0;
        max->v.b = mm->max.b != 0;
        break;
    case FL_PQW_V_I32:
        min->v.i32 = mm->min.i32;
        max->v.i32 = mm->max.i32;
        break;
    case FL_PQW_V_I64:
        min->v.i64 = mm->min.i64;
        max->v.i64 = mm->max.i64;
        break;
    case FL_PQW_V_F32:
        /* -0.0 / +0.0: the min is written as -0.0 and the max as +0.0 (parquet.thrift) */
        min->v.f32 = mm->min.f32 == 0.0f ? -0.0f : mm->min.f32;
        max->v.f32 = mm->max.f32 == 0.0f ? 0.0f : mm->max.f32;
        break;
    case FL_PQW_V_F64:
        min->v.f64 = mm->min.f64 == 0.0 ? -0.0 : mm->min.f64;
        max->v.f64 = mm->max.f64 == 0.0 ? 0.0 : mm->max.f64;
        break;
    case FL_PQW_V_FLBA:
    case FL_PQW_V_BYTES:
        min->v.bytes.ptr = mm->minb.bytes;
        min->v.bytes.len = mm->minb.len;
        max->v.bytes.ptr = mm->maxb.bytes;
        max->v.bytes.len = mm->maxb.len;
        break;
    default:
        min->v.dec = mm->min.dec;
        max->v.dec = mm->max.dec;
        break;
    }
}

/* Length of the longest prefix of s[0..n) that ends on a UTF-8 character boundary. */
static size_t utf8_floor(const uint8_t *s, size_t n)
{
    while (n > 0 && (s[n] & 0xC0) == 0x80)
        n--;
    return n;
}

/* Decodes the UTF-8 character starting at s (len bytes available); 0 if invalid. */
static uint32_t utf8_decode(const uint8_t *s, size_t len, size_t *clen)
{
    uint8_t c = s[0];
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (!n || n > len)
        return 0;
    uint32_t cp = n == 1 ? c : n == 2 ? (c & 0x1Fu) : n == 3 ? (c & 0x0Fu) : (c & 0x07u);
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3Fu);
    }
    *clen = n;
    return cp;
}

static size_t utf8_encode(uint32_t cp, uint8_t *out)
{
    if (cp < 0x80) {
        out[0] = (uint8_t)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (uint8_t)(0xC0 | (cp >> 6));
        out[1] = (uint8_t)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (uint8_t)(0xE0 | (cp >> 12));
        out[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (uint8_t)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (uint8_t)(0xF0 | (cp >> 18));
    out[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (uint8_t)(0x80 | (cp & 0x3F));
    return 4;
}

/* Rounds a truncated max up, in place: returns its new length, or 0 when it
 * cannot be (all 0xFF bytes / all U+10FFFF): the caller keeps the exact value. */
static size_t round_up_max(uint8_t *s, size_t n, bool utf8)
{
    if (utf8) {
        /* find character starts, then try to increment the last one, dropping it if it
         * cannot be incremented within the same encoded length */
        size_t starts[INDEX_LIMIT > STATS_LIMIT ? INDEX_LIMIT : STATS_LIMIT];
        size_t ns = 0, i = 0;
        while (i < n && ns < sizeof starts / sizeof starts[0]) {
            size_t cl;
            if (!utf8_decode(s + i, n - i, &cl))
                goto bytes; /* not valid UTF-8: treat as bytes */
            starts[ns++] = i;
            i += cl;
        }
        while (ns > 0) {
            size_t at = starts[--ns], cl;
            uint32_t cp = utf8_decode(s + at, n - at, &cl) + 1;
            if (cp == 0xD800)
                cp = 0xE000;
            uint8_t enc[4];
            if (cp <= 0x10FFFF && utf8_encode(cp, enc) == cl) {
                memcpy(s + at, enc, cl);
                return at + cl;
            }
            n = at;
        }
        return 0;
    }
bytes:
    while (n > 0) {
        if (s[n - 1] != 0xFF) {
            s[n - 1]++;
            return n;
        }
        n--;
    }
    return 0;
}

static fl_status stat_to_arena(const fl_pqw_column *c, const fl_value *v, fl_arena *a,
                               fl_pq_bytes *out, fl_error *err)
{
    fl_pq_buf b = {0};
    fl_status rc = fl_pq_value_to_stat(&c->leaf->info, v, &b, err);
    if (rc == FL_OK) {
        uint8_t *p = fl_arena_alloc(a, b.len ? b.len : 1);
        if (!p)
            rc = fl_errorf(err, FL_ENOMEM, "out of memory for statistics");
        else {
            if (b.len)
                memcpy(p, b.data, b.len);
            out->ptr = p;
            out->len = (uint32_t)b.len;
        }
    }
    fl_buf_free(&b);
    return rc;
}

static fl_status bytes_to_arena(const uint8_t *s, size_t n, fl_arena *a, fl_pq_bytes *out,
                                fl_error *err)
{
    uint8_t *p = fl_arena_alloc(a, n ? n : 1);
    if (!p)
        return fl_errorf(err, FL_ENOMEM, "out of memory for statistics");
    if (n)
        memcpy(p, s, n);
    out->ptr = p;
    out->len = (uint32_t)n;
    return FL_OK;
}

fl_status fl_pqw_minmax_bytes(const fl_pqw_column *c, const fl_pqw_minmax *mm, uint32_t limit,
                              fl_arena *a, fl_pq_bytes *min, bool *min_exact, fl_pq_bytes *max,
                              bool *max_exact, fl_error *err)
{
    *min_exact = *max_exact = true;
    if (c->leaf->vkind != FL_PQW_V_BYTES || limit == 0) {
        fl_value vmin, vmax;
        fl_pqw_minmax_values(c->leaf, mm, &vmin, &vmax);
        FL_TRY(stat_to_arena(c, &vmin, a, min, err));
        return stat_to_arena(c, &vmax, a, max, err);
    }
    bool utf8 = c->leaf->type->id == FL_TYPE_STRING;
    /* min: a prefix is a lower bound */
    size_t n = mm->minb.len;
    if (n > limit) {
        n = utf8 ? utf8_floor(mm->minb.bytes, limit) : limit;
        *min_exact = false;
    }
    FL_TRY(bytes_to_arena(mm->minb.bytes, n, a, min, err));
    /* max: a prefix rounded up */
    n = mm->maxb.len;
    if (n > limit) {
        size_t cut = utf8 ? utf8_floor(mm->maxb.bytes, limit) : limit;
        uint8_t tmp[STATS_LIMIT > INDEX_LIMIT ? STATS_LIMIT : INDEX_LIMIT];
        memcpy(tmp, mm->maxb.data, cut);
        size_t r = cut ? round_up_max(tmp, cut, utf8) : 0;
        if (r) {
            *max_exact = false;
            return bytes_to_arena(tmp, r, a, max, err);
        }
    }
    return bytes_to_arena(mm->maxb.bytes, mm->maxb.len, a, max, err);
}

/* ---------------------------------------------------------------- values */

#define MM_LOOP(T, f, src, n)                                                                      \
    do {                                                                                           \
        const T *x_ = (const T *)(src);                                                            \
        T lo_ = c->page_mm.has ? c->page_mm.min.f : x_[0];                                         \
        T hi_ = c->page_mm.has ? c->page_mm.max.f : x_[0];                                         \
        for (uint32_t i_ = 0; i_ < (n); i_++) {                                                    \
            T y_ = x_[i_];                                                                         \
            lo_ = y_ < lo_ ? y_ : lo_;                                                             \
            hi_ = y_ > hi_ ? y_ : hi_;                                                             \
        }                                                                                          \
        c->page_mm.min.f = lo_;                                                                    \
        c->page_mm.max.f = hi_;                                                                    \
        c->page_mm.has = true;                                                                     \
    } while (0)

/* Floats: NaN never becomes a bound; counts NaNs. */
#define MM_FLOAT(T, f, src, n)                                                                     \
    do {                                                                                           \
        const T *x_ = (const T *)(src);                                                            \
        bool has_ = c->page_mm.has;                                                                \
        T lo_ = c->page_mm.min.f, hi_ = c->page_mm.max.f;                                          \
        for (uint32_t i_ = 0; i_ < (n); i_++) {                                                    \
            T y_ = x_[i_];                                                                         \
            if (y_ != y_) {                                                                        \
                c->page_nans++;                                                                    \
                continue;                                                                          \
            }                                                                                      \
            if (!has_) {                                                                           \
                lo_ = hi_ = y_;                                                                    \
                has_ = true;                                                                       \
            }                                                                                      \
            lo_ = y_ < lo_ ? y_ : lo_;                                                             \
            hi_ = y_ > hi_ ? y_ : hi_;                                                             \
        }                                                                                          \
        c->page_mm.min.f = lo_;                                                                    \
        c->page_mm.max.f = hi_;                                                                    \
        c->page_mm.has = has_;                                                                     \
    } while (0)

static fl_status gather(fl_pqw_column *c, fl_error *err)
{
    const fl_pqw_leaf *l = c->leaf;
    const fl_vector *b = c->leaf_base;
    uint32_t n = c->npos;
    const uint32_t *pos = c->pos;
    c->gather.len = 0;
    FL_TRY(fl_buf_reserve(&c->gather, (size_t)n * (l->width ? l->width : 1), err));
    uint8_t *out = c->gather.bytes;
    const uint8_t *src = b->data;
    switch (l->vkind) {
    case FL_PQW_V_BOOL:
        for (uint32_t i = 0; i < n; i++)
            out[i] = src[pos[i]] != 0;
        break;
    case FL_PQW_V_I32:
    case FL_PQW_V_F32: {
        uint32_t *o = (uint32_t *)(void *)out;
        const uint32_t *s = (const uint32_t *)(const void *)src;
        for (uint32_t i = 0; i < n; i++)
            o[i] = s[pos[i]];
        break;
    }
    case FL_PQW_V_I64:
    case FL_PQW_V_F64: {
        uint64_t *o = (uint64_t *)(void *)out;
        const uint64_t *s = (const uint64_t *)(const void *)src;
        for (uint32_t i = 0; i < n; i++)
            o[i] = s[pos[i]];
        break;
    }
    case FL_PQW_V_DEC32:
    case FL_PQW_V_DEC64:
        for (uint32_t i = 0; i < n; i++) {
            fl_i128 x;
            memcpy(&x, src + (size_t)pos[i] * 16, 16);
            if (l->vkind == FL_PQW_V_DEC32) {
                int32_t y = (int32_t)x;
                if ((fl_i128)y != x)
                    goto overflow;
                memcpy(out + (size_t)i * 4, &y, 4);
            } else {
                int64_t y = (int64_t)x;
                if ((fl_i128)y != x)
                    goto overflow;
                memcpy(out + (size_t)i * 8, &y, 8);
            }
        }
        break;
    case FL_PQW_V_DECFLBA: {
        uint32_t w = l->width;
        for (uint32_t i = 0; i < n; i++) {
            fl_i128 x;
            memcpy(&x, src + (size_t)pos[i] * 16, 16);
            if (w < 16) {
                fl_i128 lim = (fl_i128)1 << (8 * w - 1);
                if (x >= lim || x < -lim)
                    goto overflow;
            }
            uint8_t *o = out + (size_t)i * w;
            for (uint32_t k = 0; k < w; k++) /* big-endian two's complement */
                o[w - 1 - k] = (uint8_t)(x >> (8 * k));
        }
        break;
    }
    case FL_PQW_V_FLBA: {
        uint32_t w = l->width;
        if (l->src_width != w)
            return fl_errorf(err, FL_EINVAL, "column '%s': vector width %u, expected %u", l->path,
                             l->src_width, w);
        for (uint32_t i = 0; i < n; i++)
            memcpy(out + (size_t)i * w, src + (size_t)pos[i] * w, w);
        break;
    }
    case FL_PQW_V_BYTES: break;
    }
    c->gather.len = (size_t)n * l->width;
    return FL_OK;
overflow:
    return fl_errorf(err, FL_EOVERFLOW, "column '%s': decimal value does not fit precision %d",
                     l->path, l->precision);
}

static fl_status stats_segment(fl_pqw_column *c, fl_error *err)
{
    const fl_pqw_leaf *l = c->leaf;
    uint32_t n = c->npos;
    const uint8_t *g = c->gather.bytes;
    switch (l->vkind) {
    case FL_PQW_V_BOOL: MM_LOOP(uint8_t, b, g, n); break;
    case FL_PQW_V_I32: MM_LOOP(int32_t, i32, g, n); break;
    case FL_PQW_V_I64: MM_LOOP(int64_t, i64, g, n); break;
    case FL_PQW_V_F32: MM_FLOAT(float, f32, g, n); break;
    case FL_PQW_V_F64: MM_FLOAT(double, f64, g, n); break;
    case FL_PQW_V_DEC32:
    case FL_PQW_V_DEC64:
    case FL_PQW_V_DECFLBA: {
        const uint8_t *src = c->leaf_base->data;
        fl_i128 lo, hi;
        memcpy(&lo, src + (size_t)c->pos[0] * 16, 16);
        hi = lo;
        if (c->page_mm.has)
            lo = c->page_mm.min.dec, hi = c->page_mm.max.dec;
        for (uint32_t i = 0; i < n; i++) {
            fl_i128 x;
            memcpy(&x, src + (size_t)c->pos[i] * 16, 16);
            lo = x < lo ? x : lo;
            hi = x > hi ? x : hi;
        }
        c->page_mm.min.dec = lo;
        c->page_mm.max.dec = hi;
        c->page_mm.has = true;
        break;
    }
    case FL_PQW_V_FLBA: {
        uint32_t w = l->width;
        uint32_t lo = 0, hi = 0;
        for (uint32_t i = 1; i < n; i++) {
            const uint8_t *x = g + (size_t)i * w;
            if (memcmp(x, g + (size_t)lo * w, w) < 0)
                lo = i;
            if (memcmp(x, g + (size_t)hi * w, w) > 0)
                hi = i;
        }
        fl_pqw_minmax seg = {0};
        seg.has = true;
        seg.minb.bytes = (uint8_t *)g + (size_t)lo * w, seg.minb.len = w;
        seg.maxb.bytes = (uint8_t *)g + (size_t)hi * w, seg.maxb.len = w;
        FL_TRY(fl_pqw_minmax_merge(l, &c->page_mm, &seg, err));
        break;
    }
    case FL_PQW_V_BYTES: {
        if (c->geo)
            return fl_pqw_geo_segment(c, err);
        const fl_vector *b = c->leaf_base;
        const uint8_t *lo = NULL, *hi = NULL;
        size_t lol = 0, hil = 0;
        for (uint32_t i = 0; i < n; i++) {
            size_t len;
            const uint8_t *p = fl_vector_bytes(b, c->pos[i], &len);
            if (!lo || cmp_bytes(p, len, lo, lol) < 0)
                lo = p, lol = len;
            if (!hi || cmp_bytes(p, len, hi, hil) > 0)
                hi = p, hil = len;
        }
        fl_pqw_minmax seg = {0};
        seg.has = true;
        seg.minb.bytes = (uint8_t *)lo, seg.minb.len = lol;
        seg.maxb.bytes = (uint8_t *)hi, seg.maxb.len = hil;
        FL_TRY(fl_pqw_minmax_merge(l, &c->page_mm, &seg, err));
        break;
    }
    }
    return FL_OK;
}

static fl_status bloom_segment(fl_pqw_column *c, fl_error *err)
{
    uint32_t n = c->npos;
    if (c->nhashes + n > c->hashes_cap) {
        size_t cap = c->hashes_cap ? c->hashes_cap : 4096;
        while (cap < c->nhashes + n)
            cap *= 2;
        uint64_t *h = realloc(c->hashes, cap * sizeof *h);
        if (!h)
            return fl_errorf(err, FL_ENOMEM, "out of memory for bloom filter hashes");
        c->hashes = h;
        c->hashes_cap = cap;
    }
    uint64_t *h = c->hashes + c->nhashes;
    if (c->leaf->vkind == FL_PQW_V_BYTES) {
        for (uint32_t i = 0; i < n; i++) {
            size_t len;
            const uint8_t *p = fl_vector_bytes(c->leaf_base, c->pos[i], &len);
            h[i] = XXH64(p, len, 0);
        }
    } else {
        uint32_t w = c->leaf->width;
        for (uint32_t i = 0; i < n; i++)
            h[i] = XXH64(c->gather.data + (size_t)i * w, w, 0);
    }
    c->nhashes += n;
    return FL_OK;
}

static fl_status encode_segment(fl_pqw_column *c, fl_error *err)
{
    const fl_pqw_leaf *l = c->leaf;
    uint32_t n = c->npos;
    if (c->page_dict) {
        FL_TRY(grow_u32(&c->idx, &c->idx_cap, (size_t)c->nidx + n, err));
        uint32_t *idx = c->idx + c->nidx;
        if (l->vkind == FL_PQW_V_BYTES) {
            for (uint32_t i = 0; i < n; i++) {
                size_t len;
                const uint8_t *p = fl_vector_bytes(c->leaf_base, c->pos[i], &len);
                if (len > UINT32_MAX - 8)
                    return fl_errorf(err, FL_ELIMIT, "column '%s': value of %zu bytes", l->path,
                                     len);
                FL_TRY(fl_pqw_dict_insert(&c->dict, p, (uint32_t)len, &idx[i], err));
            }
        } else {
            FL_TRY(fl_pqw_dict_insert_fixed_n(&c->dict, c->gather.bytes, n, idx, err));
        }
        c->nidx += n;
        return FL_OK;
    }
    if (l->vkind != FL_PQW_V_BYTES)
        return fl_pqw_append(&c->plain, c->gather.data, c->gather.len, err);
    const fl_vector *b = c->leaf_base;
    size_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += 4 + (size_t)(b->offsets[c->pos[i] + 1] - b->offsets[c->pos[i]]);
    FL_TRY(fl_buf_reserve(&c->plain, total, err));
    uint8_t *o = c->plain.bytes + c->plain.len;
    for (uint32_t i = 0; i < n; i++) {
        size_t len;
        const uint8_t *p = fl_vector_bytes(b, c->pos[i], &len);
        if (len > INT32_MAX)
            return fl_errorf(err, FL_ELIMIT, "column '%s': value of %zu bytes", l->path, len);
        uint32_t l32 = (uint32_t)len;
        o[0] = (uint8_t)l32, o[1] = (uint8_t)(l32 >> 8), o[2] = (uint8_t)(l32 >> 16),
        o[3] = (uint8_t)(l32 >> 24);
        memcpy(o + 4, p, len);
        o += 4 + len;
    }
    c->plain.len += total;
    return FL_OK;
}

static fl_status values_segment(fl_pqw_column *c, fl_error *err)
{
    if (c->npos == 0)
        return FL_OK;
    c->page_values += c->npos;
    FL_TRY(gather(c, err));
    if (c->opt->statistics || c->opt->page_index)
        FL_TRY(stats_segment(c, err));
    else if (c->leaf->vkind == FL_PQW_V_F32 || c->leaf->vkind == FL_PQW_V_F64)
        FL_TRY(stats_segment(c, err)); /* NaN counts are always reported */
    if (c->bloom)
        FL_TRY(bloom_segment(c, err));
    return encode_segment(c, err);
}

/* ---------------------------------------------------------------- pages */

static uint64_t page_estimate(const fl_pqw_column *c)
{
    const fl_pqw_leaf *l = c->leaf;
    uint64_t bytes = 0;
    if (l->max_def > 0)
        bytes += ((uint64_t)c->nlevels * (uint64_t)fl_pq_bit_width((uint64_t)l->max_def) + 7) / 8;
    if (l->max_rep > 0)
        bytes += ((uint64_t)c->nlevels * (uint64_t)fl_pq_bit_width((uint64_t)l->max_rep) + 7) / 8;
    if (c->page_dict) {
        int bw = fl_pq_bit_width(c->dict.count ? c->dict.count - 1 : 0);
        bytes += ((uint64_t)c->nidx * (uint64_t)(bw ? bw : 1) + 7) / 8 + 1;
    } else if (l->vkind == FL_PQW_V_BOOL) {
        bytes += (c->plain.len + 7) / 8;
    } else {
        bytes += c->plain.len;
    }
    return bytes;
}

uint64_t fl_pqw_column_buffered(const fl_pqw_column *c)
{
    return (uint64_t)c->chunk_uncompressed + page_estimate(c) +
           (c->dict_on || c->n_dict_pages_data ? c->dict.plain.len : 0);
}

static fl_status put_u32le(fl_pq_buf *b, size_t at, uint32_t v)
{
    b->data[at] = (uint8_t)v;
    b->data[at + 1] = (uint8_t)(v >> 8);
    b->data[at + 2] = (uint8_t)(v >> 16);
    b->data[at + 3] = (uint8_t)(v >> 24);
    return FL_OK;
}

/* RLE levels into raw, optionally after a 4-byte length. Returns bytes written. */
static fl_status encode_levels(fl_pqw_column *c, const uint32_t *lv, int16_t max, bool prefix,
                               size_t *written, fl_error *err)
{
    size_t start = c->raw.len;
    if (prefix) {
        static const uint8_t zero[4] = {0};
        FL_TRY(fl_pqw_append(&c->raw, zero, 4, err));
    }
    FL_TRY(fl_pq_rle_encode(lv, c->nlevels, fl_pq_bit_width((uint64_t)max), &c->raw, err));
    if (prefix)
        put_u32le(&c->raw, start, (uint32_t)(c->raw.len - start - 4));
    *written = c->raw.len - start;
    return FL_OK;
}

static fl_status pack_bools(fl_pqw_column *c, fl_error *err)
{
    size_t n = c->plain.len, nb = (n + 7) / 8;
    FL_TRY(fl_buf_reserve(&c->raw, nb, err));
    uint8_t *o = c->raw.bytes + c->raw.len;
    memset(o, 0, nb);
    for (size_t i = 0; i < n; i++)
        o[i >> 3] |= (uint8_t)(c->plain.data[i] << (i & 7));
    c->raw.len += nb;
    return FL_OK;
}

/* Compresses raw[from..) into comp; returns the body pointer/length to write. */
static fl_status compress_into(fl_pqw_column *c, const uint8_t *src, size_t len, fl_pq_buf *dst,
                               fl_error *err)
{
    const fl_pqw_opts *o = c->opt;
    if (o->codec == FL_CODEC_NONE)
        return fl_pqw_append(dst, src, len, err);
    size_t bound = fl_compress_bound(o->codec, len);
    FL_TRY(fl_buf_reserve(dst, bound, err));
    if (o->codec == FL_CODEC_ZSTD) {
        if (!c->zstd && !(c->zstd = ZSTD_createCCtx()))
            return fl_errorf(err, FL_ENOMEM, "column '%s': out of memory for zstd", c->leaf->path);
        size_t r = ZSTD_compressCCtx(c->zstd, dst->bytes + dst->len, bound, src, len,
                                     o->level ? o->level : ZSTD_CLEVEL_DEFAULT);
        if (ZSTD_isError(r))
            return fl_errorf(err, FL_EINVAL, "column '%s': zstd: %s", c->leaf->path,
                             ZSTD_getErrorName(r));
        dst->len += r;
        return FL_OK;
    }
    size_t out_len = 0;
    fl_status rc =
        fl_compress(o->codec, o->level, src, len, dst->bytes + dst->len, bound, &out_len, err);
    if (rc != FL_OK)
        return fl_error_prefix(err, "column '%s'", c->leaf->path);
    dst->len += out_len;
    return FL_OK;
}

static fl_status page_header_stats(fl_pqw_column *c, fl_pq_statistics *st, fl_error *err)
{
    memset(st, 0, sizeof *st);
    st->null_count_set = true;
    st->null_count = (int64_t)c->nlevels - c->page_values;
    if (c->leaf->vkind == FL_PQW_V_F32 || c->leaf->vkind == FL_PQW_V_F64) {
        st->nan_count_set = true; /* required for floats with TypeDefinedOrder */
        st->nan_count = c->page_nans;
    }
    if (!c->page_mm.has)
        return FL_OK;
    bool mine, maxe;
    fl_arena_reset(&c->scratch);
    FL_TRY(fl_pqw_minmax_bytes(c, &c->page_mm, STATS_LIMIT, &c->scratch, &st->min_value, &mine,
                               &st->max_value, &maxe, err));
    st->is_min_value_exact_set = st->is_max_value_exact_set = true;
    st->is_min_value_exact = mine;
    st->is_max_value_exact = maxe;
    return FL_OK;
}

static fl_status record_page(fl_pqw_column *c, int64_t offset, int32_t size, fl_error *err)
{
    if (c->npages == c->pages_cap) {
        uint32_t cap = c->pages_cap ? c->pages_cap * 2 : 16;
        fl_pqw_page_entry *p = realloc(c->pagev, cap * sizeof *p);
        if (!p)
            return fl_errorf(err, FL_ENOMEM, "out of memory for the page index");
        c->pagev = p;
        c->pages_cap = cap;
    }
    fl_pqw_page_entry *e = &c->pagev[c->npages++];
    memset(e, 0, sizeof *e);
    e->offset = offset;
    e->compressed_size = size;
    e->first_row = c->chunk_rows;
    e->null_count = (int64_t)c->nlevels - c->page_values;
    e->null_page = c->page_values == 0;
    e->has_minmax = c->page_mm.has;
    if (!e->null_page && !e->has_minmax)
        c->ci_ok = false;
    if (c->opt->page_index && c->page_mm.has) {
        bool me, xe;
        FL_TRY(fl_pqw_minmax_bytes(c, &c->page_mm, INDEX_LIMIT, c->arena, &e->min, &me, &e->max,
                                   &xe, err));
        fl_pqw_minmax_values(c->leaf, &c->page_mm, &e->vmin, &e->vmax);
        if (is_bytes_kind(c->leaf->vkind)) { /* compare what readers see: the index bytes */
            e->vmin.v.bytes.ptr = e->min.ptr, e->vmin.v.bytes.len = e->min.len;
            e->vmax.v.bytes.ptr = e->max.ptr, e->vmax.v.bytes.len = e->max.len;
        }
    }
    return FL_OK;
}

/* After the chunk's first dictionary-encoded page (in c->raw, levels first):
 * does the dictionary pay? As parquet-mr's isCompressionSatisfying: the
 * dictionary plus the encoded indices must be smaller than the same values
 * PLAIN (estimated at the dictionary's average entry size). Columns of
 * (nearly) unique values - keys, timestamps, names - fail and fall back to
 * PLAIN for the rest of the chunk, so a reader that needs one page need not
 * decode a dictionary as large as the whole chunk. */
static bool dict_pays(const fl_pqw_column *c, size_t levels_len)
{
    if (c->dict.count == 0 || c->page_values == 0)
        return true;
    uint64_t avg = c->dict.plain.len / c->dict.count;
    uint64_t plain = avg * (uint64_t)c->page_values;
    uint64_t encoded = c->raw.len - levels_len;
    return (uint64_t)c->dict.plain.len + encoded < plain;
}

static fl_status flush_page(fl_pqw_column *c, fl_error *err)
{
    if (c->nlevels == 0)
        return FL_OK;
    const fl_pqw_leaf *l = c->leaf;
    const fl_pqw_opts *o = c->opt;
    bool v2 = o->page_version == 2;
    c->raw.len = 0;
    size_t rep_len = 0, def_len = 0;
    if (l->max_rep > 0)
        FL_TRY(encode_levels(c, c->rep, l->max_rep, !v2, &rep_len, err));
    if (l->max_def > 0)
        FL_TRY(encode_levels(c, c->def, l->max_def, !v2, &def_len, err));
    size_t levels_len = c->raw.len;
    fl_pq_encoding enc = FL_PQ_ENC_PLAIN;
    if (c->page_dict && c->nidx > 0) {
        int bw = fl_pq_bit_width(c->dict.count - 1);
        if (bw == 0)
            bw = 1;
        uint8_t b = (uint8_t)bw;
        FL_TRY(fl_pqw_append(&c->raw, &b, 1, err));
        FL_TRY(fl_pq_rle_encode(c->idx, c->nidx, bw, &c->raw, err));
        enc = FL_PQ_ENC_RLE_DICTIONARY;
    } else if (l->vkind == FL_PQW_V_BOOL) {
        FL_TRY(pack_bools(c, err));
    } else {
        FL_TRY(fl_pqw_append(&c->raw, c->plain.data, c->plain.len, err));
    }
    if (c->raw.len > INT32_MAX)
        return fl_errorf(err, FL_ELIMIT, "column '%s': page of %zu bytes", l->path, c->raw.len);

    c->comp.len = 0;
    if (v2) {
        FL_TRY(fl_pqw_append(&c->comp, c->raw.data, levels_len, err));
        FL_TRY(compress_into(c, c->raw.bytes + levels_len, c->raw.len - levels_len, &c->comp, err));
    } else {
        FL_TRY(compress_into(c, c->raw.bytes, c->raw.len, &c->comp, err));
    }
    if (c->comp.len > INT32_MAX)
        return fl_errorf(err, FL_ELIMIT, "column '%s': page of %zu bytes", l->path, c->comp.len);

    fl_pq_page_header h;
    memset(&h, 0, sizeof h);
    h.type = v2 ? FL_PQ_DATA_PAGE_V2 : FL_PQ_DATA_PAGE;
    h.uncompressed_page_size = (int32_t)c->raw.len;
    h.compressed_page_size = (int32_t)c->comp.len;
    if (o->crc) {
        h.crc_set = true;
        h.crc = fl_crc32(0, c->comp.bytes, c->comp.len);
    }
    h.num_values = (int32_t)c->nlevels;
    h.encoding = enc;
    h.definition_level_encoding = FL_PQ_ENC_RLE;
    h.repetition_level_encoding = FL_PQ_ENC_RLE;
    h.num_nulls = (int32_t)(c->nlevels - c->page_values);
    h.num_rows = (int32_t)c->page_rows;
    h.definition_levels_byte_length = (int32_t)def_len;
    h.repetition_levels_byte_length = (int32_t)rep_len;
    h.is_compressed = o->codec != FL_CODEC_NONE;
    if (o->statistics) {
        h.statistics_set = true;
        FL_TRY(page_header_stats(c, &h.statistics, err));
    }
    c->hdr.len = 0;
    FL_TRY(fl_pq_encode_page_header(&h, &c->hdr, err));

    int64_t offset = (int64_t)c->pages.len;
    FL_TRY(fl_pqw_append(&c->pages, c->hdr.data, c->hdr.len, err));
    FL_TRY(fl_pqw_append(&c->pages, c->comp.data, c->comp.len, err));
    FL_TRY(record_page(c, offset, (int32_t)(c->hdr.len + c->comp.len), err));

    if (enc == FL_PQ_ENC_RLE_DICTIONARY) {
        c->n_dict_pages_data++;
        if (c->n_dict_pages_data == 1 && c->n_plain_pages == 0 && !dict_pays(c, levels_len))
            c->dict_on = false; /* the rest of the chunk is PLAIN (page_dict follows below) */
    } else {
        c->n_plain_pages++;
    }
    c->chunk_values += c->nlevels;
    c->chunk_nulls += (int64_t)c->nlevels - c->page_values;
    c->chunk_nans += c->page_nans;
    c->chunk_uncompressed += (int64_t)(c->hdr.len + c->raw.len);
    c->chunk_rows += c->page_rows;
    c->row_bytes = page_estimate(c) / c->page_rows + 1;
    FL_TRY(fl_pqw_minmax_merge(l, &c->chunk_mm, &c->page_mm, err));

    c->nlevels = 0;
    c->page_rows = 0;
    c->page_values = 0;
    c->page_nans = 0;
    c->nidx = 0;
    c->plain.len = 0;
    c->page_mm.has = false;
    c->page_dict = c->dict_on;
    return FL_OK;
}

fl_status fl_pqw_column_write(fl_pqw_column *c, const fl_vector *v, const uint32_t *rows,
                              uint32_t first, uint32_t n, fl_error *err)
{
    const fl_pqw_opts *o = c->opt;
    uint32_t done = 0;
    while (done < n) {
        uint32_t seg = n - done;
        uint32_t room = o->page_rows - c->page_rows;
        if (seg > room)
            seg = room;
        if (seg > SEGMENT_ROWS)
            seg = SEGMENT_ROWS;
        if (c->page_rows > 0 || c->row_bytes > 0) {
            /* stop near page_bytes: at most the rows that still fit at this page's average
             * (or the previous page's, for the first segment of a page) */
            uint64_t est = page_estimate(c);
            uint64_t avg = c->page_rows > 0 ? est / c->page_rows + 1 : c->row_bytes;
            uint64_t fit = est < o->page_bytes ? (o->page_bytes - est) / avg : 0;
            if (fit < MIN_PAGE_SEGMENT)
                fit = MIN_PAGE_SEGMENT;
            if (seg > fit)
                seg = (uint32_t)fit;
        }
        if (c->dict_on) {
            /* keep the dictionary near its limit: at most as many rows as could still fit */
            uint64_t avg = c->dict.count ? c->dict.plain.len / c->dict.count + 1 : 8;
            uint64_t left = o->dictionary_max_bytes > c->dict.plain.len
                                ? (o->dictionary_max_bytes - c->dict.plain.len) / avg
                                : 0;
            if (left < MIN_DICT_SEGMENT)
                left = MIN_DICT_SEGMENT;
            if (seg > left)
                seg = (uint32_t)left;
        }
        FL_TRY(levels_segment(c, v, rows ? rows + done : NULL, first + done, seg, err));
        FL_TRY(values_segment(c, err));
        c->page_rows += seg;
        done += seg;
        if (c->page_rows >= o->page_rows || page_estimate(c) >= o->page_bytes)
            FL_TRY(flush_page(c, err));
        if (c->dict_on && c->dict.plain.len > o->dictionary_max_bytes) {
            FL_TRY(flush_page(c, err));
            c->dict_on = false;
            c->page_dict = false;
            /* PLAIN rows will cost about an average dictionary entry each */
            c->row_bytes = c->dict.count ? c->dict.plain.len / c->dict.count + 1 : 0;
        }
    }
    return FL_OK;
}

fl_status fl_pqw_column_finish_chunk(fl_pqw_column *c, fl_pq_buf *dict_page,
                                     int64_t *dict_uncompressed, fl_error *err)
{
    FL_TRY(flush_page(c, err));
    dict_page->len = 0;
    *dict_uncompressed = 0;
    if (c->n_dict_pages_data == 0)
        return FL_OK;
    c->comp.len = 0;
    FL_TRY(compress_into(c, c->dict.plain.bytes, c->dict.plain.len, &c->comp, err));
    if (c->dict.plain.len > INT32_MAX || c->comp.len > INT32_MAX)
        return fl_errorf(err, FL_ELIMIT, "column '%s': dictionary page too large", c->leaf->path);
    fl_pq_page_header h;
    memset(&h, 0, sizeof h);
    h.type = FL_PQ_DICTIONARY_PAGE;
    h.uncompressed_page_size = (int32_t)c->dict.plain.len;
    h.compressed_page_size = (int32_t)c->comp.len;
    if (c->opt->crc) {
        h.crc_set = true;
        h.crc = fl_crc32(0, c->comp.bytes, c->comp.len);
    }
    h.num_values = (int32_t)c->dict.count;
    h.encoding = FL_PQ_ENC_PLAIN;
    h.is_compressed = true;
    FL_TRY(fl_pq_encode_page_header(&h, dict_page, err));
    *dict_uncompressed = (int64_t)(dict_page->len + c->dict.plain.len);
    return fl_pqw_append(dict_page, c->comp.data, c->comp.len, err);
}

void fl_pqw_column_reset_chunk(fl_pqw_column *c)
{
    c->pages.len = 0;
    c->chunk_rows = 0;
    c->chunk_values = 0;
    c->chunk_nulls = 0;
    c->chunk_nans = 0;
    c->chunk_uncompressed = 0;
    c->chunk_mm.has = false;
    c->n_dict_pages_data = 0;
    c->n_plain_pages = 0;
    c->npages = 0;
    c->ci_ok = true;
    fl_pqw_geo_reset_chunk(c);
    c->nhashes = 0;
    if (c->dict.slots) {
        fl_pqw_dict_reset(&c->dict);
        c->dict_on = c->opt->dictionary;
    }
    c->page_dict = c->dict_on;
}
