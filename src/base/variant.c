/*
 * variant.c - reading the Parquet Variant binary encoding (floe/variant.h):
 * the metadata dictionary, value headers, primitives, objects and arrays,
 * the full validation walk and structural equality.
 *
 * Nothing is trusted: every field is read only after checking it lies
 * inside the bytes given, sizes are computed in 64 bits (a 4-byte count
 * times a 4-byte width cannot wrap), and a child's bytes are bounded by its
 * container's data region, so a corrupt offset can only produce an error.
 * Messages name the byte offset from the start of the outermost value the
 * function was given ("variant value: offset 12: ...") or of the metadata.
 *
 * Accessors are shallow: kind, size, scalar, count and child lookups decode
 * one header. fl_variant_validate recurses (depth-checked) and checks key
 * ids, key order, UTF-8 and decimal ranges.
 */
#include "floe/variant.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "variant_int.h"

#define DEC38 ((fl_i128)10000000000000000000ULL * (fl_i128)10000000000000000000ULL)

__attribute__((format(printf, 4, 5))) static fl_status
vcorrupt(fl_error *err, const uint8_t *base, const uint8_t *at, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return fl_errorf(err, FL_ECORRUPT, "variant value: offset %zu: %s", (size_t)(at - base), msg);
}

const char *fl_variant_kind_name(fl_variant_kind k)
{
    static const char *const names[] = {
        "null",      "boolean",       "boolean",         "int8",
        "int16",     "int32",         "int64",           "double",
        "decimal4",  "decimal8",      "decimal16",       "date",
        "timestamp", "timestamp_ntz", "float",           "binary",
        "string",    "time",          "timestamp_nanos", "timestamp_ntz_nanos",
        "uuid"};
    if ((unsigned)k < sizeof names / sizeof names[0])
        return names[k];
    if (k == FL_VK_OBJECT)
        return "object";
    if (k == FL_VK_ARRAY)
        return "array";
    return "unknown";
}

/* ---- UTF-8 ---- */

size_t fl_variant_utf8_seq(const uint8_t *p, size_t n)
{
    if (n == 0)
        return 0;
    uint8_t c = p[0];
    if (c < 0x80)
        return 1;
    size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;
    if (len == 0 || c < 0xc2 || c > 0xf4 || n < len)
        return 0;
    for (size_t i = 1; i < len; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    if (c == 0xe0 && p[1] < 0xa0)
        return 0; /* overlong */
    if (c == 0xed && p[1] >= 0xa0)
        return 0; /* surrogate */
    if (c == 0xf0 && p[1] < 0x90)
        return 0; /* overlong */
    if (c == 0xf4 && p[1] >= 0x90)
        return 0; /* past U+10FFFF */
    return len;
}

bool fl_variant_utf8_ok(const uint8_t *p, size_t n, size_t *bad)
{
    size_t i = 0;
    while (i < n) {
        if (p[i] < 0x80) {
            i++;
            continue;
        }
        size_t k = fl_variant_utf8_seq(p + i, n - i);
        if (k == 0) {
            if (bad)
                *bad = i;
            return false;
        }
        i += k;
    }
    return true;
}

/* ---- metadata ---- */

static fl_status meta_offsets(const uint8_t *p, size_t n, fl_variant_meta *m, fl_error *err)
{
    unsigned osz = m->offset_size;
    uint64_t prev = 0;
    for (uint64_t i = 0; i <= m->nkeys; i++) {
        const uint8_t *o = m->offsets + i * osz;
        uint64_t off = fl_variant_le(o, osz);
        if (i == 0 && off != 0)
            return fl_errorf(err, FL_ECORRUPT,
                             "variant metadata: offset %zu: first key offset is %llu, not 0",
                             (size_t)(o - p), (unsigned long long)off);
        if (off < prev)
            return fl_errorf(err, FL_ECORRUPT,
                             "variant metadata: offset %zu: key offset %llu is before the "
                             "previous one (%llu)",
                             (size_t)(o - p), (unsigned long long)off, (unsigned long long)prev);
        prev = off;
    }
    size_t kstart = (size_t)(m->keys - p);
    if (prev > n - kstart)
        return fl_errorf(err, FL_ECORRUPT,
                         "variant metadata: offset %zu: key bytes end at %llu, past the %zu "
                         "bytes given",
                         kstart, (unsigned long long)(kstart + prev), n);
    m->len = kstart + (size_t)prev;
    return FL_OK;
}

fl_status fl_variant_meta_open(const uint8_t *p, size_t n, fl_variant_meta *m, fl_error *err)
{
    memset(m, 0, sizeof *m);
    if (n == 0)
        return fl_errorf(err, FL_ECORRUPT, "variant metadata: offset 0: empty");
    uint8_t h = p[0];
    if ((h & 0x0f) != 1)
        return fl_errorf(err, FL_ECORRUPT,
                         "variant metadata: offset 0: version %u (only 1 is supported)", h & 0x0fu);
    m->bytes = p;
    m->sorted = (h >> 4) & 1;
    m->offset_size = (uint8_t)((h >> 6) + 1);
    unsigned osz = m->offset_size;
    if (n < 1 + (size_t)osz)
        return fl_errorf(err, FL_ECORRUPT,
                         "variant metadata: offset 1: dictionary size needs %u bytes, %zu left",
                         osz, n - 1);
    uint64_t nkeys = fl_variant_le(p + 1, osz);
    uint64_t kstart = 1 + (uint64_t)osz + (nkeys + 1) * osz;
    if (kstart > n)
        return fl_errorf(err, FL_ECORRUPT,
                         "variant metadata: offset %u: %llu key offsets do not fit in %zu bytes",
                         1 + osz, (unsigned long long)(nkeys + 1), n);
    m->nkeys = (uint32_t)nkeys;
    m->offsets = p + 1 + osz;
    m->keys = p + kstart;
    return meta_offsets(p, n, m, err);
}

bool fl_variant_meta_key(const fl_variant_meta *m, uint32_t id, const char **key, size_t *klen)
{
    if (id >= m->nkeys)
        return false;
    unsigned osz = m->offset_size;
    uint64_t a = fl_variant_le(m->offsets + (size_t)id * osz, osz);
    uint64_t b = fl_variant_le(m->offsets + ((size_t)id + 1) * osz, osz);
    *key = (const char *)m->keys + a;
    *klen = (size_t)(b - a);
    return true;
}

bool fl_variant_meta_find(const fl_variant_meta *m, const char *key, size_t klen, uint32_t *id)
{
    const char *k = NULL;
    size_t kl = 0;
    if (m->sorted) {
        uint32_t lo = 0, hi = m->nkeys;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            fl_variant_meta_key(m, mid, &k, &kl);
            int c = fl_variant_key_cmp(k, kl, key, klen);
            if (c == 0) {
                *id = mid;
                return true;
            }
            if (c < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        /* not found: the flag may lie (DuckDB 1.5 writes unsorted dictionaries
         * marked sorted), so a miss is confirmed by the scan below */
    }
    for (uint32_t i = 0; i < m->nkeys; i++) {
        fl_variant_meta_key(m, i, &k, &kl);
        if (fl_variant_key_cmp(k, kl, key, klen) == 0) {
            *id = i;
            return true;
        }
    }
    return false;
}

/* ---- value headers ---- */

/* Bytes after the header byte of primitive type id: -1 unknown, -2 a 4-byte
 * length then that many bytes. */
static int prim_data_size(unsigned id)
{
    static const signed char sizes[] = {0, 0, 0, 1, 2,  4,  8, 8, 5, 9, 17,
                                        4, 8, 8, 4, -2, -2, 8, 8, 8, 16};
    return id < sizeof sizes ? sizes[id] : -1;
}

fl_status fl_variant_cont(const fl_variant *v, const uint8_t *base, fl_vcont *c, fl_error *err)
{
    const uint8_t *p = v->p;
    uint8_t h = p[0];
    c->object = (h & 3) == 2;
    bool large = c->object ? (h >> 6) & 1 : (h >> 4) & 1;
    c->id_size = c->object ? ((h >> 4) & 3) + 1 : 0;
    c->off_size = ((h >> 2) & 3) + 1;
    unsigned nsz = large ? 4 : 1;
    const char *what = c->object ? "object" : "array";
    if (v->len < 1 + (size_t)nsz)
        return vcorrupt(err, base, p, "%s element count needs %u bytes, %zu left", what, nsz,
                        v->len - 1);
    c->n = (uint32_t)fl_variant_le(p + 1, nsz);
    uint64_t hdr = 1 + nsz + (uint64_t)c->n * c->id_size + ((uint64_t)c->n + 1) * c->off_size;
    if (hdr > v->len)
        return vcorrupt(err, base, p, "%s of %u elements needs a %llu-byte header, %zu bytes left",
                        what, c->n, (unsigned long long)hdr, v->len);
    c->ids = p + 1 + nsz;
    c->offs = c->ids + (size_t)c->n * c->id_size;
    c->data = p + hdr;
    c->data_len = fl_variant_le(c->offs + (size_t)c->n * c->off_size, c->off_size);
    if (c->data_len > v->len - hdr)
        return vcorrupt(err, base, p, "%s's last offset %llu runs past the %zu bytes left", what,
                        (unsigned long long)c->data_len, (size_t)(v->len - hdr));
    c->size = (size_t)(hdr + c->data_len);
    return FL_OK;
}

fl_status fl_variant_cont_child(const fl_variant *v, const uint8_t *base, const fl_vcont *c,
                                uint32_t i, fl_variant *out, fl_error *err)
{
    const uint8_t *o = c->offs + (size_t)i * c->off_size;
    uint64_t off = fl_variant_le(o, c->off_size);
    if (off >= c->data_len)
        return vcorrupt(err, base, o, "element %u's offset %llu is not before the end (%llu)", i,
                        (unsigned long long)off, (unsigned long long)c->data_len);
    out->meta = v->meta;
    out->p = c->data + off;
    out->len = (size_t)(c->data_len - off);
    return FL_OK;
}

static fl_status kind_at(const fl_variant *v, const uint8_t *base, fl_variant_kind *kind,
                         fl_error *err)
{
    if (v->len == 0)
        return vcorrupt(err, base, v->p, "empty value");
    uint8_t h = v->p[0];
    switch (h & 3) {
    case 1: *kind = FL_VK_STRING; return FL_OK;
    case 2: *kind = FL_VK_OBJECT; return FL_OK;
    case 3: *kind = FL_VK_ARRAY; return FL_OK;
    default: break;
    }
    unsigned id = h >> 2;
    if (prim_data_size(id) == -1)
        return vcorrupt(err, base, v->p, "unknown primitive type %u", id);
    *kind = (fl_variant_kind)id;
    return FL_OK;
}

static fl_status size_at(const fl_variant *v, const uint8_t *base, size_t *size, fl_error *err)
{
    fl_variant_kind k = FL_VK_NULL;
    FL_TRY(kind_at(v, base, &k, err));
    uint8_t h = v->p[0];
    uint64_t need;
    if ((h & 3) == 1) {
        need = 1 + (uint64_t)(h >> 2);
    } else if (k == FL_VK_OBJECT || k == FL_VK_ARRAY) {
        fl_vcont c = {0};
        FL_TRY(fl_variant_cont(v, base, &c, err));
        *size = c.size;
        return FL_OK;
    } else {
        int ds = prim_data_size(k);
        if (ds == -2) {
            if (v->len < 5)
                return vcorrupt(err, base, v->p, "%s length needs 4 bytes, %zu left",
                                fl_variant_kind_name(k), v->len - 1);
            need = 5 + fl_variant_le(v->p + 1, 4);
        } else {
            need = 1 + (uint64_t)ds;
        }
    }
    if (need > v->len)
        return vcorrupt(err, base, v->p, "%s needs %llu bytes, %zu left", fl_variant_kind_name(k),
                        (unsigned long long)need, v->len);
    *size = (size_t)need;
    return FL_OK;
}

fl_status fl_variant_kind_of(const fl_variant *v, fl_variant_kind *kind, fl_error *err)
{
    return kind_at(v, v->p, kind, err);
}

fl_status fl_variant_size(const fl_variant *v, size_t *size, fl_error *err)
{
    return size_at(v, v->p, size, err);
}

fl_status fl_variant_open(const uint8_t *p, size_t n, fl_variant_meta *m, fl_variant *v,
                          fl_error *err)
{
    FL_TRY(fl_variant_meta_open(p, n, m, err));
    v->meta = m;
    v->p = p + m->len;
    v->len = n - m->len;
    size_t size = 0;
    FL_TRY(fl_variant_size(v, &size, err));
    if (size != v->len)
        return fl_errorf(err, FL_ECORRUPT,
                         "variant value: offset %zu: %zu bytes follow a %zu-byte value", size,
                         v->len - size, size);
    return FL_OK;
}

/* ---- primitives ---- */

static fl_i128 load_signed(const uint8_t *p, unsigned n)
{
    unsigned __int128 u = 0;
    for (unsigned i = 0; i < n; i++)
        u |= (unsigned __int128)p[i] << (8 * i);
    if (n < 16 && (p[n - 1] & 0x80))
        u |= ~(unsigned __int128)0 << (8 * n);
    return (fl_i128)u;
}

static void decode_prim(const uint8_t *p, fl_variant_kind k, fl_variant_scalar *s)
{
    switch (k) {
    case FL_VK_TRUE:
    case FL_VK_FALSE: s->v.b = k == FL_VK_TRUE; break;
    case FL_VK_INT8: s->v.i = (int8_t)p[1]; break;
    case FL_VK_INT16: s->v.i = (int16_t)fl_variant_le(p + 1, 2); break;
    case FL_VK_INT32:
    case FL_VK_DATE: s->v.i = (int32_t)fl_variant_le(p + 1, 4); break;
    case FL_VK_DOUBLE: {
        uint64_t u = fl_variant_le(p + 1, 8);
        memcpy(&s->v.d, &u, 8);
        break;
    }
    case FL_VK_FLOAT: {
        uint32_t u = (uint32_t)fl_variant_le(p + 1, 4);
        memcpy(&s->v.f, &u, 4);
        break;
    }
    case FL_VK_DECIMAL4:
    case FL_VK_DECIMAL8:
    case FL_VK_DECIMAL16:
        s->scale = p[1];
        s->v.dec = load_signed(p + 2, k == FL_VK_DECIMAL4 ? 4 : k == FL_VK_DECIMAL8 ? 8 : 16);
        break;
    case FL_VK_BINARY:
    case FL_VK_STRING:
        s->len = (size_t)fl_variant_le(p + 1, 4);
        s->v.bytes = p + 5;
        break;
    case FL_VK_UUID:
        s->len = 16;
        s->v.bytes = p + 1;
        break;
    case FL_VK_NULL: break;
    default: s->v.i = (int64_t)fl_variant_le(p + 1, 8); break; /* 8-byte temporal kinds */
    }
}

static fl_status scalar_at(const fl_variant *v, const uint8_t *base, fl_variant_scalar *s,
                           fl_error *err)
{
    memset(s, 0, sizeof *s);
    fl_variant_kind k = FL_VK_NULL;
    size_t size = 0;
    FL_TRY(kind_at(v, base, &k, err));
    if (k == FL_VK_OBJECT || k == FL_VK_ARRAY)
        return fl_errorf(err, FL_ETYPE, "variant value: offset %zu: an %s is not a primitive",
                         (size_t)(v->p - base), fl_variant_kind_name(k));
    FL_TRY(size_at(v, base, &size, err));
    s->kind = k;
    if ((v->p[0] & 3) == 1) {
        s->v.bytes = v->p + 1;
        s->len = v->p[0] >> 2;
        return FL_OK;
    }
    decode_prim(v->p, k, s);
    if (k >= FL_VK_DECIMAL4 && k <= FL_VK_DECIMAL16 && s->scale > 38)
        return vcorrupt(err, base, v->p + 1, "decimal scale %d exceeds 38", (int)s->scale);
    return FL_OK;
}

fl_status fl_variant_scalar_of(const fl_variant *v, fl_variant_scalar *out, fl_error *err)
{
    return scalar_at(v, v->p, out, err);
}

/* ---- containers ---- */

static fl_status open_cont(const fl_variant *v, int want, fl_vcont *c, fl_error *err)
{
    fl_variant_kind k = FL_VK_NULL;
    FL_TRY(fl_variant_kind_of(v, &k, err));
    if (k != FL_VK_OBJECT && k != FL_VK_ARRAY)
        return fl_errorf(err, FL_ETYPE, "variant value: offset 0: a %s is not an object or array",
                         fl_variant_kind_name(k));
    if (want >= 0 && (int)k != want)
        return fl_errorf(err, FL_ETYPE, "variant value: offset 0: a %s is not an %s",
                         fl_variant_kind_name(k), fl_variant_kind_name((fl_variant_kind)want));
    return fl_variant_cont(v, v->p, c, err);
}

fl_status fl_variant_count(const fl_variant *v, uint32_t *n, fl_error *err)
{
    fl_vcont c = {0};
    FL_TRY(open_cont(v, -1, &c, err));
    *n = c.n;
    return FL_OK;
}

fl_status fl_variant_array_at(const fl_variant *v, uint32_t i, fl_variant *out, fl_error *err)
{
    fl_vcont c = {0};
    FL_TRY(open_cont(v, FL_VK_ARRAY, &c, err));
    if (i >= c.n)
        return fl_errorf(err, FL_EINVAL, "variant array: index %u out of range (%u elements)", i,
                         c.n);
    return fl_variant_cont_child(v, v->p, &c, i, out, err);
}

/* Key of field i of object c. */
static fl_status field_key(const fl_variant *v, const uint8_t *base, const fl_vcont *c, uint32_t i,
                           const char **key, size_t *klen, fl_error *err)
{
    const uint8_t *at = c->ids + (size_t)i * c->id_size;
    uint32_t id = (uint32_t)fl_variant_le(at, c->id_size);
    if (!fl_variant_meta_key(v->meta, id, key, klen))
        return vcorrupt(err, base, at, "field %u's key id %u is not in the dictionary (%u keys)", i,
                        id, v->meta->nkeys);
    return FL_OK;
}

fl_status fl_variant_object_at(const fl_variant *v, uint32_t i, const char **key, size_t *klen,
                               fl_variant *out, fl_error *err)
{
    fl_vcont c = {0};
    FL_TRY(open_cont(v, FL_VK_OBJECT, &c, err));
    if (i >= c.n)
        return fl_errorf(err, FL_EINVAL, "variant object: field %u out of range (%u fields)", i,
                         c.n);
    FL_TRY(field_key(v, v->p, &c, i, key, klen, err));
    return fl_variant_cont_child(v, v->p, &c, i, out, err);
}

fl_status fl_variant_object_find(const fl_variant *v, const char *key, size_t klen, bool *found,
                                 fl_variant *out, fl_error *err)
{
    fl_vcont c = {0};
    *found = false;
    FL_TRY(open_cont(v, FL_VK_OBJECT, &c, err));
    uint32_t lo = 0, hi = c.n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const char *k = NULL;
        size_t kl = 0;
        FL_TRY(field_key(v, v->p, &c, mid, &k, &kl, err));
        int cmp = fl_variant_key_cmp(k, kl, key, klen);
        if (cmp == 0) {
            FL_TRY(fl_variant_cont_child(v, v->p, &c, mid, out, err));
            *found = true;
            return FL_OK;
        }
        if (cmp < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return FL_OK;
}

/* ---- validation ---- */

/* Keys are valid UTF-8. A dictionary marked sorted whose keys are not
 * (DuckDB 1.5 writes them) is still read: fl_variant_meta_find never trusts
 * the flag for a miss, so nothing depends on it. */
fl_status fl_variant_meta_check_keys(const fl_variant_meta *m, fl_error *err)
{
    for (uint32_t i = 0; i < m->nkeys; i++) {
        const char *k = NULL;
        size_t kl = 0, bad = 0;
        fl_variant_meta_key(m, i, &k, &kl);
        if (!fl_variant_utf8_ok((const uint8_t *)k, kl, &bad))
            return fl_errorf(err, FL_ECORRUPT,
                             "variant metadata: offset %zu: key %u is not valid UTF-8",
                             (size_t)((const uint8_t *)k + bad - m->bytes), i);
    }
    return FL_OK;
}

static fl_status validate_prim(const fl_variant *v, const uint8_t *base, fl_error *err)
{
    fl_variant_scalar s = {0};
    FL_TRY(scalar_at(v, base, &s, err));
    size_t bad = 0;
    if (s.kind == FL_VK_STRING && !fl_variant_utf8_ok(s.v.bytes, s.len, &bad))
        return vcorrupt(err, base, s.v.bytes + bad, "string is not valid UTF-8");
    if (s.kind == FL_VK_DECIMAL16 && (s.v.dec >= DEC38 || s.v.dec <= -DEC38))
        return vcorrupt(err, base, v->p + 2, "decimal16 has more than 38 digits");
    return FL_OK;
}

static fl_status walk(const fl_variant *v, const uint8_t *base, uint32_t depth, fl_error *err);

static fl_status walk_children(const fl_variant *v, const uint8_t *base, const fl_vcont *c,
                               uint32_t depth, fl_error *err)
{
    const char *prev = NULL;
    size_t plen = 0;
    for (uint32_t i = 0; i < c->n; i++) {
        fl_variant child = {0};
        FL_TRY(fl_variant_cont_child(v, base, c, i, &child, err));
        if (c->object) {
            const char *k = NULL;
            size_t kl = 0;
            FL_TRY(field_key(v, base, c, i, &k, &kl, err));
            if (i > 0 && fl_variant_key_cmp(prev, plen, k, kl) >= 0)
                return vcorrupt(err, base, c->ids + (size_t)i * c->id_size,
                                "field %u's key '%.*s' is not after the previous key", i,
                                (int)(kl > 64 ? 64 : kl), k);
            prev = k;
            plen = kl;
        }
        FL_TRY(walk(&child, base, depth, err));
    }
    return FL_OK;
}

static fl_status walk(const fl_variant *v, const uint8_t *base, uint32_t depth, fl_error *err)
{
    fl_variant_kind k = FL_VK_NULL;
    FL_TRY(kind_at(v, base, &k, err));
    if (k != FL_VK_OBJECT && k != FL_VK_ARRAY)
        return validate_prim(v, base, err);
    if (depth >= FL_VARIANT_MAX_DEPTH)
        return fl_errorf(err, FL_ELIMIT, "variant value: offset %zu: nested deeper than %d",
                         (size_t)(v->p - base), FL_VARIANT_MAX_DEPTH);
    fl_vcont c = {0};
    FL_TRY(fl_variant_cont(v, base, &c, err));
    return walk_children(v, base, &c, depth + 1, err);
}

fl_status fl_variant_validate_at(const fl_variant *v, uint32_t depth0, fl_error *err)
{
    FL_TRY(fl_variant_meta_check_keys(v->meta, err));
    return walk(v, v->p, depth0, err);
}

fl_status fl_variant_validate(const fl_variant *v, fl_error *err)
{
    return fl_variant_validate_at(v, 0, err);
}

fl_status fl_variant_check(const uint8_t *p, size_t n, fl_error *err)
{
    fl_variant_meta m;
    fl_variant v = {0};
    FL_TRY(fl_variant_open(p, n, &m, &v, err));
    return fl_variant_validate(&v, err);
}

/* ---- equality ---- */

static fl_i128 exact_value(const fl_variant_scalar *s, int32_t *scale)
{
    if (s->kind >= FL_VK_DECIMAL4 && s->kind <= FL_VK_DECIMAL16) {
        *scale = s->scale;
        return s->v.dec;
    }
    *scale = 0;
    return s->v.i;
}

static bool bytes_eq(const fl_variant_scalar *a, const fl_variant_scalar *b)
{
    return a->len == b->len && (a->len == 0 || memcmp(a->v.bytes, b->v.bytes, a->len) == 0);
}

static bool scalar_eq(const fl_variant_scalar *a, const fl_variant_scalar *b)
{
    if (fl_variant_is_exact(a->kind) && fl_variant_is_exact(b->kind)) {
        int32_t sa = 0, sb = 0;
        fl_i128 va = exact_value(a, &sa), vb = exact_value(b, &sb);
        return sa == sb && va == vb;
    }
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case FL_VK_DOUBLE: return a->v.d == b->v.d || (a->v.d != a->v.d && b->v.d != b->v.d);
    case FL_VK_FLOAT: return a->v.f == b->v.f || (a->v.f != a->v.f && b->v.f != b->v.f);
    case FL_VK_STRING:
    case FL_VK_BINARY:
    case FL_VK_UUID: return bytes_eq(a, b);
    case FL_VK_NULL:
    case FL_VK_TRUE:
    case FL_VK_FALSE: return true;
    default: return a->v.i == b->v.i;
    }
}

static fl_status equal_rec(const fl_variant *a, const fl_variant *b, uint32_t depth, bool *eq,
                           fl_error *err);

static fl_status equal_cont(const fl_variant *a, const fl_variant *b, fl_variant_kind k,
                            uint32_t depth, bool *eq, fl_error *err)
{
    uint32_t na = 0, nb = 0;
    FL_TRY(fl_variant_count(a, &na, err));
    FL_TRY(fl_variant_count(b, &nb, err));
    *eq = na == nb;
    for (uint32_t i = 0; i < na && *eq; i++) {
        fl_variant ca = {0}, cb = {0};
        if (k == FL_VK_OBJECT) {
            const char *ka = NULL, *kb = NULL;
            size_t la = 0, lb = 0;
            FL_TRY(fl_variant_object_at(a, i, &ka, &la, &ca, err));
            FL_TRY(fl_variant_object_at(b, i, &kb, &lb, &cb, err));
            if (fl_variant_key_cmp(ka, la, kb, lb) != 0) {
                *eq = false;
                break;
            }
        } else {
            FL_TRY(fl_variant_array_at(a, i, &ca, err));
            FL_TRY(fl_variant_array_at(b, i, &cb, err));
        }
        FL_TRY(equal_rec(&ca, &cb, depth + 1, eq, err));
    }
    return FL_OK;
}

static fl_status equal_rec(const fl_variant *a, const fl_variant *b, uint32_t depth, bool *eq,
                           fl_error *err)
{
    fl_variant_kind ka = FL_VK_NULL, kb = FL_VK_NULL;
    FL_TRY(fl_variant_kind_of(a, &ka, err));
    FL_TRY(fl_variant_kind_of(b, &kb, err));
    bool ca = ka == FL_VK_OBJECT || ka == FL_VK_ARRAY, cb = kb == FL_VK_OBJECT || kb == FL_VK_ARRAY;
    if (ca || cb) {
        if (ka != kb) {
            *eq = false;
            return FL_OK;
        }
        if (depth >= FL_VARIANT_MAX_DEPTH)
            return fl_errorf(err, FL_ELIMIT, "variant equality: nested deeper than %d",
                             FL_VARIANT_MAX_DEPTH);
        return equal_cont(a, b, ka, depth, eq, err);
    }
    fl_variant_scalar sa = {0}, sb = {0};
    FL_TRY(fl_variant_scalar_of(a, &sa, err));
    FL_TRY(fl_variant_scalar_of(b, &sb, err));
    *eq = scalar_eq(&sa, &sb);
    return FL_OK;
}

fl_status fl_variant_equal(const fl_variant *a, const fl_variant *b, bool *equal, fl_error *err)
{
    *equal = false;
    return equal_rec(a, b, 0, equal, err);
}
