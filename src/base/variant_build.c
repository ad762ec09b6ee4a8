/*
 * variant_build.c - the Variant builder (fl_vb_*, floe/variant.h).
 *
 * Values are appended to `value` in document order. An open container is a
 * frame; each of its children is an item recording where the child's bytes
 * start (and, in an object, its key id). Closing a container computes its
 * header from the items - the fewest bytes for the offsets (the children's
 * total size) and ids (the largest id), is_large past 255 elements - sorts
 * an object's fields by key bytes (a duplicate key is FL_EINVAL naming it),
 * and moves the children up to insert the header in front of them. The
 * children themselves stay in the order they were written; only the offset
 * list follows key order, as the spec allows.
 *
 * The dictionary is interned through an open-addressing hash table over the
 * key bytes. fl_vb_finish writes it as version-1 metadata with the fewest
 * offset bytes, the sorted_strings bit set only when the keys happen to be
 * unique and in byte order. After any error the builder holds a partial
 * value: fl_vb_reset (or fl_vb_free) it.
 */
#include "floe/variant.h"

#include <stdlib.h>
#include <string.h>

#include "variant_int.h"

#define DEC38 ((fl_i128)10000000000000000000ULL * (fl_i128)10000000000000000000ULL)

/* Grows an array of elem-byte entries to hold need entries. */
static fl_status grow(void **p, uint32_t *cap, uint64_t need, size_t elem, fl_error *err)
{
    if (need <= *cap)
        return FL_OK;
    if (need > UINT32_MAX / 2)
        return fl_errorf(err, FL_ELIMIT, "variant builder: more than %u entries", UINT32_MAX / 2);
    uint32_t nc = *cap ? *cap : 16;
    while (nc < need)
        nc *= 2;
    void *q = realloc(*p, (size_t)nc * elem);
    if (!q)
        return fl_errorf(err, FL_ENOMEM, "variant builder: out of memory");
    *p = q;
    *cap = nc;
    return FL_OK;
}

void fl_vb_init(fl_variant_builder *b)
{
    memset(b, 0, sizeof *b);
    b->pending_key = -1;
}

void fl_vb_free(fl_variant_builder *b)
{
    fl_buf_free(&b->value);
    fl_buf_free(&b->keys);
    free(b->key_off);
    free(b->hash);
    free(b->frames);
    free(b->items);
    fl_vb_init(b);
}

void fl_vb_reset(fl_variant_builder *b)
{
    fl_buf_reset(&b->value);
    fl_buf_reset(&b->keys);
    b->nkeys = 0;
    if (b->key_off)
        b->key_off[0] = 0;
    if (b->hash)
        memset(b->hash, 0, (size_t)b->hash_cap * sizeof *b->hash);
    b->nseeded = 0;
    b->seeded_meta = NULL;
    b->seeded_sorted = false;
    b->depth = 0;
    b->nitems = 0;
    b->pending_key = -1;
}

/* ---- the dictionary ---- */

static uint32_t key_hash(const char *k, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)k[i]) * 16777619u;
    return h;
}

static const char *key_bytes(const fl_variant_builder *b, uint32_t id, size_t *len)
{
    *len = b->key_off[id + 1] - b->key_off[id];
    return b->keys.data + b->key_off[id];
}

/* Slot of key in the table: its entry, or the empty slot where it goes. */
static uint32_t *hash_slot(const fl_variant_builder *b, const char *k, size_t n)
{
    uint32_t mask = b->hash_cap - 1;
    for (uint32_t i = key_hash(k, n) & mask;; i = (i + 1) & mask) {
        uint32_t *s = &b->hash[i];
        if (*s == 0)
            return s;
        size_t len = 0;
        const char *kb = key_bytes(b, *s - 1, &len);
        if (len == n && (n == 0 || memcmp(kb, k, n) == 0))
            return s;
    }
}

static fl_status rehash(fl_variant_builder *b, fl_error *err)
{
    uint32_t cap = b->hash_cap ? b->hash_cap * 2 : 64;
    uint32_t *h = calloc(cap, sizeof *h);
    if (!h)
        return fl_errorf(err, FL_ENOMEM, "variant builder: out of memory");
    free(b->hash);
    b->hash = h;
    b->hash_cap = cap;
    for (uint32_t id = 0; id < b->nkeys; id++) {
        size_t len = 0;
        const char *k = key_bytes(b, id, &len);
        uint32_t *s = hash_slot(b, k, len);
        if (*s == 0)
            *s = id + 1;
    }
    return FL_OK;
}

/* Appends a key without looking for it (seeded dictionaries may repeat). */
static fl_status push_key(fl_variant_builder *b, const char *k, size_t n, fl_error *err)
{
    if (b->nkeys >= INT32_MAX - 1 || b->keys.len + n > UINT32_MAX)
        return fl_errorf(err, FL_ELIMIT, "variant builder: dictionary too large");
    FL_TRY(
        grow((void **)&b->key_off, &b->key_cap, (uint64_t)b->nkeys + 2, sizeof *b->key_off, err));
    if (b->nkeys == 0)
        b->key_off[0] = 0;
    FL_TRY(fl_buf_append(&b->keys, k, n, err));
    b->key_off[++b->nkeys] = (uint32_t)b->keys.len;
    if ((uint64_t)b->nkeys * 2 > b->hash_cap)
        return rehash(b, err);
    uint32_t *s = hash_slot(b, k, n);
    if (*s == 0)
        *s = b->nkeys;
    return FL_OK;
}

static fl_status intern(fl_variant_builder *b, const char *k, size_t n, uint32_t *id, fl_error *err)
{
    if (b->hash_cap) {
        uint32_t *s = hash_slot(b, k, n);
        if (*s) {
            *id = *s - 1;
            return FL_OK;
        }
    }
    FL_TRY(push_key(b, k, n, err));
    *id = b->nkeys - 1;
    return FL_OK;
}

fl_status fl_vb_seed_meta(fl_variant_builder *b, const fl_variant_meta *m, fl_error *err)
{
    if (b->nkeys || b->value.len || b->depth)
        return fl_errorf(err, FL_EINVAL,
                         "variant builder: seed the dictionary before adding "
                         "keys or values");
    FL_TRY(fl_variant_meta_check_keys(m, err));
    for (uint32_t i = 0; i < m->nkeys; i++) {
        const char *k = NULL;
        size_t kl = 0;
        fl_variant_meta_key(m, i, &k, &kl);
        FL_TRY(push_key(b, k, kl, err));
    }
    b->nseeded = m->nkeys;
    b->seeded_meta = m->bytes;
    b->seeded_sorted = m->sorted;
    return FL_OK;
}

/* ---- values ---- */

static struct fl_vb_frame *top(fl_variant_builder *b)
{
    return b->depth ? &b->frames[b->depth - 1] : NULL;
}

/* Accounts for one value about to be appended at value.len. */
static fl_status begin_value(fl_variant_builder *b, fl_error *err)
{
    struct fl_vb_frame *f = top(b);
    if (!f) {
        if (b->value.len)
            return fl_errorf(err, FL_EINVAL, "variant builder: a second top-level value");
        return FL_OK;
    }
    if (f->object && b->pending_key < 0)
        return fl_errorf(err, FL_EINVAL, "variant builder: a value in an object needs a key first");
    FL_TRY(grow((void **)&b->items, &b->item_cap, (uint64_t)b->nitems + 1, sizeof *b->items, err));
    struct fl_vb_item *it = &b->items[b->nitems++];
    it->start = b->value.len;
    it->key = f->object ? (uint32_t)b->pending_key : 0;
    b->pending_key = -1;
    return FL_OK;
}

static bool scalar_fits(const fl_variant_scalar *s)
{
    switch (s->kind) {
    case FL_VK_INT8: return s->v.i >= INT8_MIN && s->v.i <= INT8_MAX;
    case FL_VK_INT16: return s->v.i >= INT16_MIN && s->v.i <= INT16_MAX;
    case FL_VK_INT32:
    case FL_VK_DATE: return s->v.i >= INT32_MIN && s->v.i <= INT32_MAX;
    case FL_VK_DECIMAL4: return s->v.dec >= INT32_MIN && s->v.dec <= INT32_MAX;
    case FL_VK_DECIMAL8: return s->v.dec >= INT64_MIN && s->v.dec <= INT64_MAX;
    case FL_VK_DECIMAL16: return s->v.dec > -DEC38 && s->v.dec < DEC38;
    default: return true;
    }
}

/* The fixed-size encoding of s in buf (at most 18 bytes); its length. */
static size_t encode_fixed(const fl_variant_scalar *s, uint8_t *buf)
{
    buf[0] = (uint8_t)(s->kind << 2);
    switch (s->kind) {
    case FL_VK_NULL:
    case FL_VK_TRUE:
    case FL_VK_FALSE: return 1;
    case FL_VK_INT8: buf[1] = (uint8_t)s->v.i; return 2;
    case FL_VK_INT16: fl_variant_put_le(buf + 1, (uint64_t)s->v.i, 2); return 3;
    case FL_VK_INT32:
    case FL_VK_DATE: fl_variant_put_le(buf + 1, (uint64_t)s->v.i, 4); return 5;
    case FL_VK_DOUBLE: {
        uint64_t u;
        memcpy(&u, &s->v.d, 8);
        fl_variant_put_le(buf + 1, u, 8);
        return 9;
    }
    case FL_VK_FLOAT: {
        uint32_t u;
        memcpy(&u, &s->v.f, 4);
        fl_variant_put_le(buf + 1, u, 4);
        return 5;
    }
    case FL_VK_DECIMAL4:
    case FL_VK_DECIMAL8:
    case FL_VK_DECIMAL16: {
        unsigned w = s->kind == FL_VK_DECIMAL4 ? 4 : s->kind == FL_VK_DECIMAL8 ? 8 : 16;
        buf[1] = (uint8_t)s->scale;
        unsigned __int128 u = (unsigned __int128)s->v.dec;
        for (unsigned i = 0; i < w; i++)
            buf[2 + i] = (uint8_t)(u >> (8 * i));
        return 2 + w;
    }
    case FL_VK_UUID: memcpy(buf + 1, s->v.bytes, 16); return 17;
    default: fl_variant_put_le(buf + 1, (uint64_t)s->v.i, 8); return 9; /* temporal */
    }
}

static fl_status check_scalar(const fl_variant_scalar *s, fl_error *err)
{
    if ((unsigned)s->kind > FL_VK_UUID)
        return fl_errorf(err, FL_EINVAL, "variant builder: %s is not a primitive kind",
                         fl_variant_kind_name(s->kind));
    if (!scalar_fits(s))
        return fl_errorf(err, FL_EINVAL, "variant builder: value out of range for %s",
                         fl_variant_kind_name(s->kind));
    bool dec = s->kind >= FL_VK_DECIMAL4 && s->kind <= FL_VK_DECIMAL16;
    if (dec && (s->scale < 0 || s->scale > 38))
        return fl_errorf(err, FL_EINVAL, "variant builder: decimal scale %d outside 0..38",
                         (int)s->scale);
    bool var = s->kind == FL_VK_STRING || s->kind == FL_VK_BINARY;
    if (var && s->len > UINT32_MAX)
        return fl_errorf(err, FL_ELIMIT, "variant builder: %zu-byte %s exceeds 4 GiB", s->len,
                         fl_variant_kind_name(s->kind));
    size_t bad = 0;
    if (s->kind == FL_VK_STRING && s->len && !fl_variant_utf8_ok(s->v.bytes, s->len, &bad))
        return fl_errorf(err, FL_EINVAL, "variant builder: string byte %zu is not valid UTF-8",
                         bad);
    return FL_OK;
}

fl_status fl_vb_scalar(fl_variant_builder *b, const fl_variant_scalar *s, fl_error *err)
{
    FL_TRY(check_scalar(s, err));
    FL_TRY(begin_value(b, err));
    uint8_t hdr[18];
    if (s->kind == FL_VK_STRING && s->len < 64) {
        hdr[0] = (uint8_t)(1 | s->len << 2);
        FL_TRY(fl_buf_append(&b->value, hdr, 1, err));
        return s->len ? fl_buf_append(&b->value, s->v.bytes, s->len, err) : FL_OK;
    }
    if (s->kind == FL_VK_STRING || s->kind == FL_VK_BINARY) {
        hdr[0] = (uint8_t)(s->kind << 2);
        fl_variant_put_le(hdr + 1, s->len, 4);
        FL_TRY(fl_buf_append(&b->value, hdr, 5, err));
        return s->len ? fl_buf_append(&b->value, s->v.bytes, s->len, err) : FL_OK;
    }
    return fl_buf_append(&b->value, hdr, encode_fixed(s, hdr), err);
}

static fl_status begin_cont(fl_variant_builder *b, bool object, fl_error *err)
{
    if (b->depth >= FL_VARIANT_MAX_DEPTH)
        return fl_errorf(err, FL_ELIMIT, "variant builder: nested deeper than %d",
                         FL_VARIANT_MAX_DEPTH);
    FL_TRY(begin_value(b, err));
    FL_TRY(
        grow((void **)&b->frames, &b->frame_cap, (uint64_t)b->depth + 1, sizeof *b->frames, err));
    struct fl_vb_frame *f = &b->frames[b->depth++];
    f->start = b->value.len;
    f->item0 = b->nitems;
    f->object = object;
    return FL_OK;
}

fl_status fl_vb_begin_object(fl_variant_builder *b, fl_error *err)
{
    return begin_cont(b, true, err);
}

fl_status fl_vb_begin_array(fl_variant_builder *b, fl_error *err)
{
    return begin_cont(b, false, err);
}

fl_status fl_vb_key(fl_variant_builder *b, const char *key, size_t klen, fl_error *err)
{
    struct fl_vb_frame *f = top(b);
    if (!f || !f->object)
        return fl_errorf(err, FL_EINVAL, "variant builder: a key outside an object");
    if (b->pending_key >= 0)
        return fl_errorf(err, FL_EINVAL, "variant builder: two keys without a value between");
    size_t bad = 0;
    if (!fl_variant_utf8_ok((const uint8_t *)key, klen, &bad))
        return fl_errorf(err, FL_EINVAL, "variant builder: key byte %zu is not valid UTF-8", bad);
    uint32_t id = 0;
    FL_TRY(intern(b, key, klen, &id, err));
    b->pending_key = (int32_t)id;
    return FL_OK;
}

/* ---- closing containers ---- */

static int item_cmp(const fl_variant_builder *b, const struct fl_vb_item *x,
                    const struct fl_vb_item *y)
{
    size_t lx = 0, ly = 0;
    const char *kx = key_bytes(b, x->key, &lx), *ky = key_bytes(b, y->key, &ly);
    return fl_variant_key_cmp(kx, lx, ky, ly);
}

/* Stable merge sort of it[0..n) by key bytes (tmp holds n items). */
static void sort_items(const fl_variant_builder *b, struct fl_vb_item *it, struct fl_vb_item *tmp,
                       uint32_t n)
{
    for (uint32_t w = 1; w < n; w *= 2) {
        for (uint32_t lo = 0; lo < n; lo += 2 * w) {
            uint32_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            uint32_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = item_cmp(b, &it[j], &it[i]) < 0 ? it[j++] : it[i++];
            while (i < mid)
                tmp[k++] = it[i++];
            while (j < hi)
                tmp[k++] = it[j++];
        }
        memcpy(it, tmp, (size_t)n * sizeof *it);
    }
}

static fl_status sort_fields(fl_variant_builder *b, struct fl_vb_item *it, uint32_t n,
                             fl_error *err)
{
    if (n > 1) {
        struct fl_vb_item *tmp = malloc((size_t)n * sizeof *tmp);
        if (!tmp)
            return fl_errorf(err, FL_ENOMEM, "variant builder: out of memory");
        sort_items(b, it, tmp, n);
        free(tmp);
    }
    for (uint32_t i = 1; i < n; i++) {
        if (item_cmp(b, &it[i - 1], &it[i]) == 0) {
            size_t len = 0;
            const char *k = key_bytes(b, it[i].key, &len);
            return fl_errorf(err, FL_EINVAL, "variant builder: duplicate key '%.*s' in an object",
                             (int)(len > 200 ? 200 : len), k);
        }
    }
    return FL_OK;
}

/* The frame's items (NULL before any item was ever pushed). */
static struct fl_vb_item *frame_items(fl_variant_builder *b, const struct fl_vb_frame *f)
{
    return b->items ? b->items + f->item0 : NULL;
}

/* Inserts the container header in front of the frame's children and pops
 * the frame. */
static fl_status close_frame(fl_variant_builder *b, const struct fl_vb_frame *f, fl_error *err)
{
    uint32_t n = b->nitems - f->item0;
    const struct fl_vb_item *it = frame_items(b, f);
    size_t data = b->value.len - f->start;
    if (data > UINT32_MAX)
        return fl_errorf(err, FL_ELIMIT, "variant builder: a container of %zu bytes exceeds 4 GiB",
                         data);
    uint32_t maxid = 0;
    for (uint32_t i = 0; i < n; i++)
        maxid = it[i].key > maxid ? it[i].key : maxid;
    unsigned osz = fl_variant_width(data), isz = f->object ? fl_variant_width(maxid) : 0;
    bool large = n > 255;
    unsigned nsz = large ? 4 : 1;
    size_t hl = 1 + nsz + (size_t)n * isz + ((size_t)n + 1) * osz;
    FL_TRY(fl_buf_reserve(&b->value, hl, err));
    uint8_t *p = b->value.bytes + f->start;
    memmove(p + hl, p, data);
    p[0] = f->object ? (uint8_t)(2 | (osz - 1) << 2 | (isz - 1) << 4 | (unsigned)large << 6)
                     : (uint8_t)(3 | (osz - 1) << 2 | (unsigned)large << 4);
    fl_variant_put_le(p + 1, n, nsz);
    uint8_t *ids = p + 1 + nsz, *offs = ids + (size_t)n * isz;
    for (uint32_t i = 0; i < n; i++) {
        if (f->object)
            fl_variant_put_le(ids + (size_t)i * isz, it[i].key, isz);
        fl_variant_put_le(offs + (size_t)i * osz, it[i].start - f->start, osz);
    }
    fl_variant_put_le(offs + (size_t)n * osz, data, osz);
    b->value.len += hl;
    b->value.bytes[b->value.len] = 0;
    b->nitems = f->item0;
    b->depth--;
    return FL_OK;
}

fl_status fl_vb_end_object(fl_variant_builder *b, fl_error *err)
{
    struct fl_vb_frame *f = top(b);
    if (!f || !f->object)
        return fl_errorf(err, FL_EINVAL, "variant builder: end_object without an open object");
    if (b->pending_key >= 0)
        return fl_errorf(err, FL_EINVAL, "variant builder: a key without a value at end_object");
    FL_TRY(sort_fields(b, frame_items(b, f), b->nitems - f->item0, err));
    return close_frame(b, f, err);
}

fl_status fl_vb_end_array(fl_variant_builder *b, fl_error *err)
{
    struct fl_vb_frame *f = top(b);
    if (!f || f->object)
        return fl_errorf(err, FL_EINVAL, "variant builder: end_array without an open array");
    return close_frame(b, f, err);
}

/* ---- copying ---- */

static fl_status copy_rec(fl_variant_builder *b, const fl_variant *v, fl_error *err);

static fl_status copy_children(fl_variant_builder *b, const fl_variant *v, bool object,
                               fl_error *err)
{
    uint32_t n = 0;
    FL_TRY(fl_variant_count(v, &n, err));
    FL_TRY(object ? fl_vb_begin_object(b, err) : fl_vb_begin_array(b, err));
    for (uint32_t i = 0; i < n; i++) {
        fl_variant c = {0};
        if (object) {
            const char *k = NULL;
            size_t kl = 0;
            FL_TRY(fl_variant_object_at(v, i, &k, &kl, &c, err));
            FL_TRY(fl_vb_key(b, k, kl, err));
        } else {
            FL_TRY(fl_variant_array_at(v, i, &c, err));
        }
        FL_TRY(copy_rec(b, &c, err));
    }
    return object ? fl_vb_end_object(b, err) : fl_vb_end_array(b, err);
}

static fl_status copy_raw(fl_variant_builder *b, const fl_variant *v, fl_error *err)
{
    size_t size = 0;
    FL_TRY(fl_variant_size(v, &size, err));
    FL_TRY(begin_value(b, err));
    return fl_buf_append(&b->value, v->p, size, err);
}

static fl_status copy_rec(fl_variant_builder *b, const fl_variant *v, fl_error *err)
{
    fl_variant_kind k = FL_VK_NULL;
    FL_TRY(fl_variant_kind_of(v, &k, err));
    if (k == FL_VK_OBJECT || k == FL_VK_ARRAY)
        return copy_children(b, v, k == FL_VK_OBJECT, err);
    return copy_raw(b, v, err); /* primitives carry no key ids */
}

fl_status fl_vb_copy(fl_variant_builder *b, const fl_variant *v, fl_error *err)
{
    FL_TRY(fl_variant_validate_at(v, b->depth, err));
    if (b->seeded_meta && v->meta->bytes == b->seeded_meta)
        return copy_raw(b, v, err);
    return copy_rec(b, v, err);
}

/* ---- finishing ---- */

static bool keys_sorted(const fl_variant_builder *b)
{
    for (uint32_t i = 1; i < b->nkeys; i++) {
        size_t la = 0, lb = 0;
        const char *ka = key_bytes(b, i - 1, &la), *kb = key_bytes(b, i, &lb);
        if (fl_variant_key_cmp(ka, la, kb, lb) >= 0)
            return false;
    }
    return true;
}

static fl_status write_meta(const fl_variant_builder *b, fl_buf *out, fl_error *err)
{
    uint64_t maxv = b->keys.len > b->nkeys ? b->keys.len : b->nkeys;
    unsigned osz = fl_variant_width(maxv);
    size_t hl = 1 + osz + ((size_t)b->nkeys + 1) * osz;
    FL_TRY(fl_buf_reserve(out, hl + b->keys.len, err));
    uint8_t *p = out->bytes + out->len;
    p[0] = (uint8_t)(1 | (unsigned)keys_sorted(b) << 4 | (osz - 1) << 6);
    fl_variant_put_le(p + 1, b->nkeys, osz);
    for (uint32_t i = 0; i <= b->nkeys; i++)
        fl_variant_put_le(p + 1 + osz + (size_t)i * osz, b->nkeys ? b->key_off[i] : 0, osz);
    out->len += hl;
    return fl_buf_append(out, b->keys.data, b->keys.len, err);
}

fl_status fl_vb_finish_split(fl_variant_builder *b, fl_buf *meta, fl_buf *value, fl_error *err)
{
    if (b->depth)
        return fl_errorf(err, FL_EINVAL, "variant builder: %u containers still open", b->depth);
    if (!b->value.len)
        return fl_errorf(err, FL_EINVAL, "variant builder: no value was added");
    FL_TRY(write_meta(b, meta, err));
    FL_TRY(fl_buf_append(value, b->value.data, b->value.len, err));
    fl_vb_reset(b);
    return FL_OK;
}

fl_status fl_vb_finish(fl_variant_builder *b, fl_buf *out, fl_error *err)
{
    return fl_vb_finish_split(b, out, out, err);
}
