/*
 * thrift_read.c - Thrift compact protocol decoder and the Parquet footer
 * structures built on it: FileMetaData, PageHeader, ColumnIndex, OffsetIndex
 * (declared in parquet_meta.h; wire format summarised in thrift.h).
 *
 * Spec: apache/parquet-format src/main/thrift/parquet.thrift and Thrift's
 * thrift-compact-protocol.md.
 *
 * Hostile input: every length and count read from the input is checked
 * against the bytes left before anything is allocated (a list of N elements
 * needs at least N bytes, N doubles 8N bytes), nesting is bounded by
 * FL_TR_MAX_DEPTH, and errors carry the byte offset and the path of the field
 * being decoded. Unknown fields of any type are skipped (files from newer
 * writers parse); unknown LogicalType members and ColumnOrder variants decode
 * as "none"/"unknown" instead of failing the file.
 *
 * Ownership: decoded structures, arrays and byte strings are allocated in the
 * caller's arena (strings are copied and NUL-terminated), so the input buffer
 * may be freed after decoding.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "parquet/thrift.h"

/* ------------------------------------------------------------------------ */
/* primitives                                                                */
/* ------------------------------------------------------------------------ */

void fl_tr_init(fl_tr *r, const uint8_t *buf, size_t len, fl_arena *a, fl_error *err)
{
    r->buf = buf;
    r->len = len;
    r->pos = 0;
    r->a = a;
    r->err = err;
    r->depth = 0;
    r->budget = len > (SIZE_MAX - FL_TR_SLACK) / FL_TR_EXPANSION
                    ? SIZE_MAX
                    : len * FL_TR_EXPANSION + FL_TR_SLACK;
}

/* Charges n bytes against the decode's memory bound. */
static fl_status tr_charge(fl_tr *r, size_t n)
{
    if (n > r->budget)
        return fl_tr_fail(r, FL_ELIMIT,
                          "decoded structures would exceed %ux the %zu input bytes (%zu more bytes "
                          "requested)",
                          FL_TR_EXPANSION, r->len, n);
    r->budget -= n;
    return FL_OK;
}

static size_t tr_path(const fl_tr *r, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = '\0';
    for (int i = 0; i < r->depth && n < cap; i++) {
        const fl_tr_frame *f = &r->frames[i];
        int w = 0;
        if (i == 0)
            w = snprintf(out + n, cap - n, "%s", f->sname);
        if (w > 0)
            n += (size_t)w;
        if (n >= cap || f->fid == 0)
            continue;
        const char *fn = (f->fid > 0 && f->fid < f->nfnames) ? f->fnames[f->fid] : NULL;
        if (fn)
            w = snprintf(out + n, cap - n, ".%s", fn);
        else
            w = snprintf(out + n, cap - n, ".<field %d>", f->fid);
        if (w > 0)
            n += (size_t)w;
        if (n < cap && f->idx >= 0) {
            w = snprintf(out + n, cap - n, "[%lld]", (long long)f->idx);
            if (w > 0)
                n += (size_t)w;
        }
    }
    return n < cap ? n : cap - 1;
}

fl_status fl_tr_fail(fl_tr *r, fl_status code, const char *fmt, ...)
{
    char path[512], msg[512];
    tr_path(r, path, sizeof path);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return fl_errorf(r->err, code, "thrift: byte %zu: %s%s%s", r->pos, path, path[0] ? ": " : "",
                     msg);
}

static fl_status tr_varint(fl_tr *r, uint64_t *v)
{
    const uint8_t *b = r->buf;
    size_t p = r->pos;
    uint64_t x = 0;
    for (unsigned i = 0; i < 10; i++) {
        if (p >= r->len)
            return fl_tr_fail(r, FL_ECORRUPT, "truncated varint");
        uint8_t c = b[p++];
        if (i == 9 && c > 1)
            return fl_tr_fail(r, FL_ECORRUPT, "varint overflows 64 bits");
        x |= (uint64_t)(c & 0x7f) << (7 * i);
        if (!(c & 0x80)) {
            r->pos = p;
            *v = x;
            return FL_OK;
        }
    }
    return fl_tr_fail(r, FL_ECORRUPT, "varint longer than 10 bytes");
}

static inline int64_t unzigzag(uint64_t u)
{
    return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

static fl_status tr_byte(fl_tr *r, uint8_t *v)
{
    if (r->pos >= r->len)
        return fl_tr_fail(r, FL_ECORRUPT, "unexpected end of input");
    *v = r->buf[r->pos++];
    return FL_OK;
}

static const char *tt_name(uint8_t t)
{
    static const char *const names[] = {"stop",   "bool",   "bool", "i8",  "i16", "i32",    "i64",
                                        "double", "binary", "list", "set", "map", "struct", "uuid"};
    return t < sizeof names / sizeof names[0] ? names[t] : "invalid";
}

fl_status fl_tr_expect(fl_tr *r, uint8_t t, uint8_t want)
{
    bool ok = t == want || (want == FL_TT_TRUE && t == FL_TT_FALSE) ||
              (want == FL_TT_LIST && t == FL_TT_SET);
    if (!ok)
        return fl_tr_fail(r, FL_ECORRUPT, "wire type %s (%u), expected %s", tt_name(t), t,
                          tt_name(want));
    return FL_OK;
}

fl_status fl_tr_struct_begin(fl_tr *r, const char *sname, const char *const *fnames,
                             const uint8_t *ftypes, int nfnames)
{
    if (r->depth >= FL_TR_MAX_DEPTH)
        return fl_tr_fail(r, FL_ECORRUPT, "structs nested deeper than %d", FL_TR_MAX_DEPTH);
    fl_tr_frame *f = &r->frames[r->depth++];
    f->sname = sname;
    f->fnames = fnames;
    f->ftypes = ftypes;
    f->nfnames = nfnames;
    f->fid = 0;
    f->idx = -1;
    return FL_OK;
}

void fl_tr_struct_end(fl_tr *r)
{
    if (r->depth > 0)
        r->depth--;
}

/* Reads a field header; last is the previous field id of this struct. */
static fl_status tr_field_header(fl_tr *r, int16_t last, int16_t *fid, uint8_t *type)
{
    uint8_t h = 0;
    FL_TRY(tr_byte(r, &h));
    uint8_t t = h & 0x0f;
    if (t == FL_TT_STOP) {
        *type = FL_TT_STOP;
        *fid = 0;
        return FL_OK;
    }
    if (t > FL_TT_UUID) {
        r->pos--;
        return fl_tr_fail(r, FL_ECORRUPT, "invalid field type %u", t);
    }
    uint8_t delta = h >> 4;
    int32_t id;
    if (delta) {
        id = (int32_t)last + delta;
    } else {
        uint64_t u = 0;
        FL_TRY(tr_varint(r, &u));
        int64_t v = unzigzag(u);
        if (v < INT16_MIN || v > INT16_MAX)
            return fl_tr_fail(r, FL_ECORRUPT, "field id %lld out of range", (long long)v);
        id = (int32_t)v;
    }
    if (id > INT16_MAX)
        return fl_tr_fail(r, FL_ECORRUPT, "field id %d out of range", id);
    *fid = (int16_t)id;
    *type = t;
    return FL_OK;
}

static bool tt_compatible(uint8_t got, uint8_t want)
{
    switch (want) {
    case FL_TT_I8:
    case FL_TT_I16:
    case FL_TT_I32:
    case FL_TT_I64: return got >= FL_TT_I8 && got <= FL_TT_I64;
    case FL_TT_TRUE:
    case FL_TT_FALSE: return got == FL_TT_TRUE || got == FL_TT_FALSE;
    case FL_TT_LIST:
    case FL_TT_SET: return got == FL_TT_LIST || got == FL_TT_SET;
    default: return got == want;
    }
}

static fl_status tr_skip(fl_tr *r, uint8_t t, bool elem, int depth);

fl_status fl_tr_field(fl_tr *r, int16_t *fid, uint8_t *type)
{
    fl_tr_frame *f = &r->frames[r->depth - 1];
    for (;;) {
        FL_TRY(tr_field_header(r, f->fid, fid, type));
        if (*type == FL_TT_STOP)
            return FL_OK;
        f->fid = *fid;
        f->idx = -1;
        uint8_t want = (f->ftypes && *fid > 0 && *fid < f->nfnames) ? f->ftypes[*fid] : 0;
        if (want == 0 || tt_compatible(*type, want))
            return FL_OK;
        FL_TRY(tr_skip(r, *type, false, r->depth));
    }
}

fl_status fl_tr_i64(fl_tr *r, uint8_t t, int64_t *v)
{
    if (t == FL_TT_I8) {
        uint8_t b = 0;
        FL_TRY(tr_byte(r, &b));
        *v = (int8_t)b;
        return FL_OK;
    }
    if (t != FL_TT_I16 && t != FL_TT_I32 && t != FL_TT_I64)
        return fl_tr_fail(r, FL_ECORRUPT, "wire type %s (%u), expected an integer", tt_name(t), t);
    uint64_t u = 0;
    FL_TRY(tr_varint(r, &u));
    *v = unzigzag(u);
    return FL_OK;
}

fl_status fl_tr_i32(fl_tr *r, uint8_t t, int32_t *v)
{
    size_t at = r->pos;
    int64_t x = 0;
    FL_TRY(fl_tr_i64(r, t, &x));
    if (x < INT32_MIN || x > INT32_MAX) {
        r->pos = at;
        return fl_tr_fail(r, FL_ECORRUPT, "value %lld does not fit in i32", (long long)x);
    }
    *v = (int32_t)x;
    return FL_OK;
}

static fl_status tr_i16(fl_tr *r, uint8_t t, int16_t *v)
{
    size_t at = r->pos;
    int64_t x = 0;
    FL_TRY(fl_tr_i64(r, t, &x));
    if (x < INT16_MIN || x > INT16_MAX) {
        r->pos = at;
        return fl_tr_fail(r, FL_ECORRUPT, "value %lld does not fit in i16", (long long)x);
    }
    *v = (int16_t)x;
    return FL_OK;
}

fl_status fl_tr_bool(fl_tr *r, uint8_t t, bool *v)
{
    if (t != FL_TT_TRUE && t != FL_TT_FALSE)
        return fl_tr_fail(r, FL_ECORRUPT, "wire type %s (%u), expected bool", tt_name(t), t);
    *v = t == FL_TT_TRUE;
    return FL_OK;
}

fl_status fl_tr_elem_bool(fl_tr *r, uint8_t t, bool *v)
{
    if (t != FL_TT_TRUE && t != FL_TT_FALSE)
        return fl_tr_fail(r, FL_ECORRUPT, "list element type %s (%u), expected bool", tt_name(t),
                          t);
    uint8_t b = 0;
    FL_TRY(tr_byte(r, &b));
    if (b > 2) {
        r->pos--;
        return fl_tr_fail(r, FL_ECORRUPT, "invalid bool byte %u", b);
    }
    *v = b == 1;
    return FL_OK;
}

fl_status fl_tr_double(fl_tr *r, uint8_t t, double *v)
{
    FL_TRY(fl_tr_expect(r, t, FL_TT_DOUBLE));
    if (r->len - r->pos < 8)
        return fl_tr_fail(r, FL_ECORRUPT, "truncated double");
    uint64_t u = 0;
    for (int i = 7; i >= 0; i--)
        u = (u << 8) | r->buf[r->pos + (size_t)i];
    memcpy(v, &u, 8);
    r->pos += 8;
    return FL_OK;
}

fl_status fl_tr_binary(fl_tr *r, uint8_t t, const uint8_t **p, uint32_t *n)
{
    FL_TRY(fl_tr_expect(r, t, FL_TT_BINARY));
    size_t at = r->pos;
    uint64_t u = 0;
    FL_TRY(tr_varint(r, &u));
    if (u > r->len - r->pos || u > UINT32_MAX) {
        r->pos = at;
        return fl_tr_fail(r, FL_ECORRUPT, "binary length %llu exceeds the %zu bytes left",
                          (unsigned long long)u, r->len - r->pos);
    }
    *p = r->buf + r->pos;
    *n = (uint32_t)u;
    r->pos += (size_t)u;
    return FL_OK;
}

fl_status fl_tr_string(fl_tr *r, uint8_t t, const char **s, uint32_t *n)
{
    const uint8_t *p = NULL;
    uint32_t len = 0;
    FL_TRY(fl_tr_binary(r, t, &p, &len));
    /* not strndup: embedded NULs are kept */
    FL_TRY(tr_charge(r, (size_t)len + 1));
    char *c = fl_arena_alloc(r->a, (size_t)len + 1);
    if (!c)
        return fl_tr_fail(r, FL_ENOMEM, "out of memory copying %u bytes", len);
    memcpy(c, p, len);
    c[len] = '\0';
    *s = c;
    if (n)
        *n = len;
    return FL_OK;
}

fl_status fl_tr_bytes(fl_tr *r, uint8_t t, fl_pq_bytes *b)
{
    const char *s = NULL;
    uint32_t n = 0;
    FL_TRY(fl_tr_string(r, t, &s, &n));
    b->ptr = (const uint8_t *)s;
    b->len = n;
    return FL_OK;
}

/* Smallest encoding of one list element of type t, for the count bound. */
static size_t elem_min_size(uint8_t t)
{
    switch (t) {
    case FL_TT_DOUBLE: return 8;
    case FL_TT_UUID: return 16;
    default: return 1;
    }
}

static fl_status tr_list_header(fl_tr *r, uint8_t *etype, uint32_t *count)
{
    size_t at = r->pos;
    uint8_t h = 0;
    FL_TRY(tr_byte(r, &h));
    uint8_t et = h & 0x0f;
    uint64_t n = h >> 4;
    if (n == 15)
        FL_TRY(tr_varint(r, &n));
    if (et == FL_TT_STOP || et > FL_TT_UUID) {
        r->pos = at;
        return fl_tr_fail(r, FL_ECORRUPT, "invalid list element type %u", et);
    }
    size_t left = r->len - r->pos;
    if (n > left / elem_min_size(et) || n > UINT32_MAX) {
        r->pos = at;
        return fl_tr_fail(r, FL_ECORRUPT, "list of %llu %s elements exceeds the %zu bytes left",
                          (unsigned long long)n, tt_name(et), left);
    }
    *etype = et;
    *count = (uint32_t)n;
    return FL_OK;
}

fl_status fl_tr_list(fl_tr *r, uint8_t t, uint8_t *etype, uint32_t *count)
{
    FL_TRY(fl_tr_expect(r, t, FL_TT_LIST));
    FL_TRY(tr_list_header(r, etype, count));
    fl_tr_set_elem(r, 0);
    return FL_OK;
}

static fl_status tr_skip(fl_tr *r, uint8_t t, bool elem, int depth);

static fl_status tr_skip_struct(fl_tr *r, int depth)
{
    int16_t last = 0;
    for (;;) {
        int16_t fid = 0;
        uint8_t ft = 0;
        FL_TRY(tr_field_header(r, last, &fid, &ft));
        if (ft == FL_TT_STOP)
            return FL_OK;
        last = fid;
        FL_TRY(tr_skip(r, ft, false, depth + 1));
    }
}

static fl_status tr_skip(fl_tr *r, uint8_t t, bool elem, int depth)
{
    if (depth >= FL_TR_MAX_DEPTH)
        return fl_tr_fail(r, FL_ECORRUPT, "values nested deeper than %d", FL_TR_MAX_DEPTH);
    uint64_t u = 0;
    switch (t) {
    case FL_TT_TRUE:
    case FL_TT_FALSE:
        if (elem) {
            uint8_t b = 0;
            return tr_byte(r, &b);
        }
        return FL_OK;
    case FL_TT_I8: {
        uint8_t b = 0;
        return tr_byte(r, &b);
    }
    case FL_TT_I16:
    case FL_TT_I32:
    case FL_TT_I64: return tr_varint(r, &u);
    case FL_TT_DOUBLE:
    case FL_TT_UUID: {
        size_t n = t == FL_TT_DOUBLE ? 8 : 16;
        if (r->len - r->pos < n)
            return fl_tr_fail(r, FL_ECORRUPT, "truncated %s", tt_name(t));
        r->pos += n;
        return FL_OK;
    }
    case FL_TT_BINARY: {
        const uint8_t *p = NULL;
        uint32_t n = 0;
        return fl_tr_binary(r, t, &p, &n);
    }
    case FL_TT_LIST:
    case FL_TT_SET: {
        uint8_t et = 0;
        uint32_t n = 0;
        FL_TRY(tr_list_header(r, &et, &n));
        for (uint32_t i = 0; i < n; i++)
            FL_TRY(tr_skip(r, et, true, depth + 1));
        return FL_OK;
    }
    case FL_TT_MAP: {
        size_t at = r->pos;
        FL_TRY(tr_varint(r, &u));
        if (u == 0)
            return FL_OK;
        uint8_t kv = 0;
        FL_TRY(tr_byte(r, &kv));
        uint8_t kt = kv >> 4, vt = kv & 0x0f;
        if (kt == FL_TT_STOP || kt > FL_TT_UUID || vt == FL_TT_STOP || vt > FL_TT_UUID) {
            r->pos = at;
            return fl_tr_fail(r, FL_ECORRUPT, "invalid map key/value types %u/%u", kt, vt);
        }
        size_t left = r->len - r->pos;
        if (u > left / (elem_min_size(kt) + elem_min_size(vt))) {
            r->pos = at;
            return fl_tr_fail(r, FL_ECORRUPT, "map of %llu entries exceeds the %zu bytes left",
                              (unsigned long long)u, left);
        }
        for (uint64_t i = 0; i < u; i++) {
            FL_TRY(tr_skip(r, kt, true, depth + 1));
            FL_TRY(tr_skip(r, vt, true, depth + 1));
        }
        return FL_OK;
    }
    case FL_TT_STRUCT: return tr_skip_struct(r, depth);
    default: return fl_tr_fail(r, FL_ECORRUPT, "invalid wire type %u", t);
    }
}

fl_status fl_tr_skip(fl_tr *r, uint8_t t)
{
    return tr_skip(r, t, false, r->depth);
}

/* Allocates count zeroed elements of size sz in the arena. */
static void *tr_array(fl_tr *r, uint32_t count, size_t sz)
{
    if (count == 0)
        return NULL;
    if (tr_charge(r, (size_t)count * sz) != FL_OK)
        return NULL;
    void *p = fl_arena_calloc(r->a, count, sz);
    if (!p)
        fl_tr_fail(r, FL_ENOMEM, "out of memory for %u elements", count);
    return p;
}

#define TR_ARRAY(r, ptr, count)                                                                    \
    do {                                                                                           \
        (ptr) = tr_array((r), (count), sizeof *(ptr));                                             \
        if ((count) && !(ptr))                                                                     \
            return (r)->err ? (r)->err->code : FL_ENOMEM;                                          \
    } while (0)

static fl_status tr_missing(fl_tr *r, const char *field)
{
    return fl_tr_fail(r, FL_ECORRUPT, "required field '%s' is missing", field);
}

/* Expects a struct value; enters it. */
#define TR_BEGIN(r, t, X, sname)                                                                   \
    do {                                                                                           \
        _Static_assert(sizeof(X##_F) / sizeof(X##_F[0]) == sizeof(X##_T), "field tables");         \
        FL_TRY(fl_tr_expect((r), (t), FL_TT_STRUCT));                                              \
        FL_TRY(fl_tr_struct_begin((r), (sname), X##_F, X##_T, (int)sizeof(X##_T)));                \
    } while (0)

/* expected wire types in the field tables */
#define I_ FL_TT_I32
#define BO FL_TT_TRUE
#define BI FL_TT_BINARY
#define L_ FL_TT_LIST
#define S_ FL_TT_STRUCT

/* ------------------------------------------------------------------------ */
/* Parquet structures                                                        */
/* ------------------------------------------------------------------------ */

static const char *const STATS_F[] = {NULL,
                                      "max",
                                      "min",
                                      "null_count",
                                      "distinct_count",
                                      "max_value",
                                      "min_value",
                                      "is_max_value_exact",
                                      "is_min_value_exact",
                                      "nan_count"};
static const uint8_t STATS_T[] = {0, BI, BI, I_, I_, BI, BI, BO, BO, I_};

static fl_status dec_statistics(fl_tr *r, uint8_t t, fl_pq_statistics *s)
{
    memset(s, 0, sizeof *s);
    TR_BEGIN(r, t, STATS, "Statistics");
    for (;;) {
        int16_t fid = 0;
        uint8_t ft = 0;
        FL_TRY(fl_tr_field(r, &fid, &ft));
        if (ft == FL_TT_STOP)
            break;
        switch (fid) {
        case 1: FL_TRY(fl_tr_bytes(r, ft, &s->max)); break;
        case 2: FL_TRY(fl_tr_bytes(r, ft, &s->min)); break;
        case 3:
            FL_TRY(fl_tr_i64(r, ft, &s->null_count));
            s->null_count_set = true;
            break;
        case 4:
            FL_TRY(fl_tr_i64(r, ft, &s->distinct_count));
            s->distinct_count_set = true;
            break;
        case 5: FL_TRY(fl_tr_bytes(r, ft, &s->max_value)); break;
        case 6: FL_TRY(fl_tr_bytes(r, ft, &s->min_value)); break;
        case 7:
            FL_TRY(fl_tr_bool(r, ft, &s->is_max_value_exact));
            s->is_max_value_exact_set = true;
            break;
        case 8:
            FL_TRY(fl_tr_bool(r, ft, &s->is_min_value_exact));
            s->is_min_value_exact_set = true;
            break;
        case 9:
            FL_TRY(fl_tr_i64(r, ft, &s->nan_count));
            s->nan_count_set = true;
            break;
        default: FL_TRY(fl_tr_skip(r, ft)); break;
        }
    }
    fl_tr_struct_end(r);
    return FL_OK;
}

/* Empty-struct union member: which field was set. Unknown members -> 0. */
static fl_status dec_union_tag(fl_tr *r, uint8_t t, const char *sname, int16_t *tag)
{
    static const char *const NONE_F[] = {NULL};
    static const uint8_t NONE_T[] = {0};
    TR_BEGIN(r, t, NONE, sname);
    *tag = 0;
    for (;;) {
        int16_t fid = 0;
        uint8_t ft = 0;
        FL_TRY(fl_tr_field(r, &fid, &ft));
        if (ft == FL_TT_STOP)
            break;
        if (*tag == 0 && ft == FL_TT_STRUCT)
            *tag = fid;
        FL_TRY(fl_tr_skip(r, ft));
    }
    fl_tr_struct_end(r);
    return FL_OK;
}

static const char *const TIME_F[] = {NULL, "isAdjustedToUTC", "unit"};
static const uint8_t TIME_T[] = {0, BO, S_};

/* TimeType and TimestampType share the layout. Returns *ok = false when the
 * unit is unknown (the logical type is then ignored). */
static fl_status dec_time(fl_tr *r, uint8_t t, const char *sname, fl_pq_logical *lt, bool *ok)
{
    TR_BEGIN(r, t, TIME, sname);
    int16_t unit = 0;
    for (;;) {
        int16_t fid = 0;
        uint8_t ft = 0;
        FL_TRY(fl_tr_field(r, &fid, &ft));
        if (ft == FL_TT_STOP)
            break;
        if (fid == 1)
            FL_TRY(fl_tr_bool(r, ft, &lt->is_adjusted_to_utc));
        else if (fid == 2)
            FL_TRY(dec_union_tag(r, ft, "TimeUnit", &unit));
        else
            FL_TRY(fl_tr_skip(r, ft));
    }
    fl_tr_struct_end(r);
    *ok = unit >= 1 && unit <= 3;
    if (*ok)
        lt->unit = (fl_pq_time_unit)(unit - 1);
    return FL_OK;
}

static const char *const DEC_F[] = {NULL, "scale", "precision"};
static const uint8_t DEC_T[] = {0, I_, I_};
static const char *const INT_F[] = {NULL, "bitWidth", "isSigned"};
static const uint8_t INT_T[] = {0, I_, BO};

static const char *const GEO_F[] = {NULL, "crs", "algorithm"};
static const uint8_t GEO_T[] = {0, BI, I_};

/* GeometryType {1: crs} and GeographyType {1: crs, 2: algorithm}. */
static fl_status dec_geo_type(fl_tr *r, uint8_t t, bool geography, fl_pq_logical *lt)
{
    TR_BEGIN(r, t, GEO, geography ? "GeographyType" : "GeometryType");
    for (;;) {
        int16_t f2 = 0;
        uint8_t t2 = 0;
        FL_TRY(fl_tr_field(r, &f2, &t2));
        if (t2 == FL_TT_STOP)
            break;
        if (f2 == 1) {
            FL_TRY(fl_tr_string(r, t2, &lt->crs, NULL));
        } else if (f2 == 2 && geography) {
            FL_TRY(fl_tr_i32(r, t2, &lt->algorithm));
            if (lt->algorithm < 0 || lt->algorithm > 4)
                return fl_tr_fail(r, FL_ECORRUPT, "unknown edge interpolation algorithm %d",
                                  lt->algorithm);
        } else {
            FL_TRY(fl_tr_skip(r, t2));
        }
    }
    fl_tr_struct_end(r);
    return FL_OK;
}

static fl_status dec_logical(fl_tr *r, uint8_t t, fl_pq_logical *lt)
{
    static const char *const LT_F[] = {NULL,      "STRING",  "MAP",      "LIST",      "ENUM",
                                       "DECIMAL", "DATE",    "TIME",     "TIMESTAMP", NULL,
                                       "INTEGER", "UNKNOWN", "JSON",     "BSON",      "UUID",
                                       "FLOAT16", "VARIANT", "GEOMETRY", "GEOGRAPHY"};
    static const uint8_t LT_T[] = {0,  S_, S_, S_, S_, S_, S_, S_, S_, S_,
                                   S_, S_, S_, S_, S_, S_, S_, S_, S_};
    memset(lt, 0, sizeof *lt);
    lt->algorithm = -1;
    TR_BEGIN(r, t, LT, "LogicalType");
    for (;;) {
        int16_t fid = 0;
        uint8_t ft = 0;
        FL_TRY(fl_tr_field(r, &fid, &ft));
        if (ft == FL_TT_STOP)
            break;
        if (lt->kind != FL_PQ_LT_NONE || ft != FL_TT_STRUCT) {
            FL_TRY(fl_tr_skip(r, ft)); /* a second member, or garbage: ignore */
            continue;
        }
        bool ok = true;
        switch (fid) {
        case FL_PQ_LT_DECIMAL: {
            bool have_p = false, have_s = false;
            TR_BEGIN(r, ft, DEC, "DecimalType");
            for (;;) {
                int16_t f2 = 0;
                uint8_t t2 = 0;
                FL_TRY(fl_tr_field(r, &f2, &t2));
                if (t2 == FL_TT_STOP)
                    break;
                if (f2 == 1) {
                    FL_TRY(fl_tr_i32(r, t2, &lt->decimal_scale));
                    have_s = true;
                } else if (f2 == 2) {
                    FL_TRY(fl_tr_i32(r, t2, &lt->decimal_precision));
                    have_p = true;
                } else {
                    FL_TRY(fl_tr_skip(r, t2));
                }
            }
            fl_tr_struct_end(r);
            if (!have_p || !have_s)
                return tr_missing(r, have_p ? "DecimalType.scale" : "DecimalType.precision");
            break;
        }
        case FL_PQ_LT_TIME:
        case FL_PQ_LT_TIMESTAMP:
            FL_TRY(dec_time(r, ft, fid == FL_PQ_LT_TIME ? "TimeType" : "TimestampType", lt, &ok));
            break;
        case FL_PQ_LT_INTEGER: {
            bool have_w = false;
            lt->int_is_signed = true;
            TR_BEGIN(r, ft, INT, "IntType");
            for (;;) {
                int16_t f2 = 0;
                uint8_t t2 = 0;
                FL_TRY(fl_tr_field(r, &f2, &t2));
                if (t2 == FL_TT_STOP)
                    break;
                if (f2 == 1) {
                    int32_t w;
                    FL_TRY(fl_tr_i32(r, t2, &w));
                    if (w != 8 && w != 16 && w != 32 && w != 64)
                        return fl_tr_fail(r, FL_ECORRUPT, "invalid integer bit width %d", w);
                    lt->int_bit_width = (int8_t)w;
                    have_w = true;
                } else if (f2 == 2) {
                    FL_TRY(fl_tr_bool(r, t2, &lt->int_is_signed));
                } else {
                    FL_TRY(fl_tr_skip(r, t2));
                }
            }
            fl_tr_struct_end(r);
            if (!have_w)
                return tr_missing(r, "IntType.bitWidth");
            break;
        }
        case FL_PQ_LT_STRING:
        case FL_PQ_LT_MAP:
        case FL_PQ_LT_LIST:
        case FL_PQ_LT_ENUM:
        case FL_PQ_LT_DATE:
        case FL_PQ_LT_UNKNOWN:
        case FL_PQ_LT_JSON:
        case FL_PQ_LT_BSON:
        case FL_PQ_LT_UUID:
        case FL_PQ_LT_FLOAT16:
        case FL_PQ_LT_VARIANT: FL_TRY(fl_tr_skip(r, ft)); break;
        case FL_PQ_LT_GEOMETRY:
        case FL_PQ_LT_GEOGRAPHY:
            FL_TRY(dec_geo_type(r, ft, fid == FL_PQ_LT_GEOGRAPHY, lt));
            break;
        default:
            /* a logical type newer than this reader: treat as unannotated */
            FL_TRY(fl_tr_skip(r, ft));
            ok = false;
            break;
        }
        lt->kind = ok ? (fl_pq_logical_kind)fid : FL_PQ_LT_NONE;
    }
    fl_tr_struct_end(r);
    return FL_OK;
}

static const char *const SCHEMA_F[] = {
    NULL,        "type",         "type_length",    "repetition_type",
    "name",      "num_children", "converted_type", "scale",
    "precision", "field_id",     "logicalType"};
static const uint8_t SCHEMA_T[] = {0, I_, I_, I_, BI, I_, I_, I_, I_, I_, S_};

static fl_status dec_schema_element(fl_tr *r, uint8_t t, fl_pq_schema_element *e)
{
    memset(e, 0, sizeof *e);
    e->repetition = FL_PQ_REP_NONE;
    e->num_children = -1;
    e->converted_type = FL_PQ_CT_NONE;
    e->scale = e->precision = -1;
    TR_BEGIN(r, t, SCHEMA, "SchemaElement");
    for (;;) {
        int16_t fid = 0;
        uint8_t ft = 0;
        FL_TRY(fl_tr_field(r, &fid, &ft));
        if (ft == FL_TT_STOP)
            break;
        int32_t v;
        switch (fid) {
        case 1:
            FL_TRY(fl_tr_i32(r, ft, &v));
            if (v < 0 || v > FL_PQ_FIXED_LEN_BYTE_ARRAY)
                return fl_tr_fail(r, FL_ECORRUPT, "invalid physical type %d", v);
            e->type = (fl_pq_type)v;
            e->type_set = true;
            break;
        case 2:
            FL_TRY(fl_tr_i32(r, ft, &e->type_length));
            if (e->type_length < 0)
                return fl_tr_fail(r, FL_ECORRUPT, "negative type_length %d", e->type_length);
            break;
        case 3:
            FL_TRY(fl_tr_i32(r, ft, &v));
            if (v < 0 || v > FL_PQ_REPEATED)
                return fl_tr_fail(r, FL_ECORRUPT, "invalid repetition type %d", v);
            e->repetition = (fl_pq_repetition)v;
            break;
        case 4: FL_TRY(fl_tr_string(r, ft, &e->name, NULL)); break;
        case 5:
            FL_TRY(fl_tr_i32(r, ft, &e->num_children));
            if (e->num_children < 0)
                return fl_tr_fail(r, FL_ECORRUPT, "negative num_children %d", e->num_children);
            break;
        case 6:
            FL_TRY(fl_tr_i32(r, ft, &v));
            /* converted types are frozen; an unknown one is ignored */
            e->converted_type =
                (v >= 0 && v <= FL_PQ_CT_INTERVAL) ? (fl_pq_converted)v : FL_PQ_CT_NONE;
            break;
        case 7: FL_TRY(fl_tr_i32(r, ft, &e->scale)); break;
        case 8: FL_TRY(fl_tr_i32(r, ft, &e->precision)); break;
        case 9:
            FL_TRY(fl_tr_i32(r, ft, &e->field_id));
            e->field_id_set = true;
            break;
        case 10: FL_TRY(dec_logical(r, ft, &e->logical)); break;
        default: FL_TRY(fl_tr_skip(r, ft)); break;
        }
    }
    if (!e->name)
        return tr_missing(r, "name");
    fl_tr_struct_end(r);
    return FL_OK;
}

static const char *const KV_F[] = {NULL, "key", "value"};
static const uint8_t KV_T[] = {0, BI, BI};

static fl_status dec_kv_list(fl_tr *r, uint8_t t, uint32_t *n, fl_pq_kv **out)
{
    uint8_t et = 0;
    FL_TRY(fl_tr_list(r, t, &et, n));
    TR_ARRAY(r, *out, *n);
    for (uint32_t i = 0; i < *n; i++) {
        fl_tr_set_elem(r, i);
        fl_pq_kv *kv = &(*out)[i];
        TR_BEGIN(r, et, KV, "KeyValue");
        for (;;) {
            int16_t fid = 0;
            uint8_t ft = 0;
            FL_TRY(fl_tr_field(r, &fid, &ft));
            if (ft == FL_TT_STOP)
                break;
            if (fid == 1)
                FL_TRY(fl_tr_string(r, ft, &kv->key, NULL));
            else if (fid == 2)
                FL_TRY(fl_tr_string(r, ft, &kv->value, &kv->value_len));
            else
                FL_TRY(fl_tr_skip(r, ft));
        }
        if (!kv->key)
            return tr_missing(r, "key");
        fl_tr_struct_end(r);
    }
    return FL_OK;
}

static const char *const PES_F[] = {NULL, "page_type", "encoding", "count"};
static const uint8_t PES_T[] = {0, I_, I_, I_};
static const char *const SIZE_F[] = {NULL, "unencoded_byte_array_data_bytes",
                                     "repetition_level_histogram", "definition_level_histogram"};
static const uint8_t SIZE_T[] = {0, I_, L_, L_};

static const char *const CMETA_F[] = {NULL,
                                      "type",
                                      "encodings",
                                      "path_in_schema",
                                      "codec",
                                      "num_values",
                                      "total_uncompressed_size",
                                      "total_compressed_size",
                                      "key_value_metadata",
                                      "data_page_offset",
                                      "index_page_offset",
                                      "dictionary_page_offset",
                                      "statistics",
                                      "encoding_stats",
                                      "bloom_filter_offset",
                                      "bloom_filter_length",
                                      "size_statistics",
                                      "geospatial_statistics"};
static const uint8_t CMETA_T[] = {0,  I_, L_, L_, I_, I_, I_, I_, L_,
                                  I_, I_, I_, S_, L_, I_, I_, S_, S_};

static const char *const BBOX_F[] = {NULL,   "xmin", "xmax", "ymin", "ymax",
                                     "zmin", "zmax", "mmin", "mmax"};
static const uint8_t BBOX_T[] = {0,
                                 FL_TT_DOUBLE,
                                 FL_TT_DOUBLE,
                                 FL_TT_DOUBLE,
                                 FL_TT_DOUBLE,
                                 FL_TT_DOUBLE,
                                 FL_TT_DOUBLE,
                                 FL_TT_DOUBLE,
                                 FL_TT_DOUBLE};
static const char *const GSTATS_F[] = {NULL, "bbox", "geospatial_types"};
static const uint8_t GSTATS_T[] = {0, S_, L_};

static fl_status dec_bbox(fl_tr *r, uint8_t t, fl_pq_geo_stats *g)
{
    unsigned seen = 0;
    TR_BEGIN(r, t, BBOX, "BoundingBox");
    for (;;) {
        int16_t f = 0;
        uint8_t ft = 0;
        FL_TRY(fl_tr_field(r, &f, &ft));
        if (ft == FL_TT_STOP)
            break;
        double *slot[] = {NULL,     &g->xmin, &g->xmax, &g->ymin, &g->ymax,
                          &g->zmin, &g->zmax, &g->mmin, &g->mmax};
        if (f < 1 || f > 8) {
            FL_TRY(fl_tr_skip(r, ft));
            continue;
        }
        FL_TRY(fl_tr_double(r, ft, slot[f]));
        seen |= 1u << f;
    }
    fl_tr_struct_end(r);
    if ((seen & 0x1e) != 0x1e)
        return tr_missing(r, "BoundingBox.xmin/xmax/ymin/ymax");
    g->bbox_set = true;
    g->z_set = (seen & 0x60) == 0x60;
    g->m_set = (seen & 0x180) == 0x180;
    return FL_OK;
}

static fl_status dec_geo_stats(fl_tr *r, uint8_t t, fl_pq_geo_stats *g)
{
    TR_BEGIN(r, t, GSTATS, "GeospatialStatistics");
    for (;;) {
        int16_t f = 0;
        uint8_t ft = 0, et = 0;
        FL_TRY(fl_tr_field(r, &f, &ft));
        if (ft == FL_TT_STOP)
            break;
        if (f == 1) {
            FL_TRY(dec_bbox(r, ft, g));
        } else if (f == 2) {
            FL_TRY(fl_tr_list(r, ft, &et, &g->ntypes));
            TR_ARRAY(r, g->types, g->ntypes);
            for (uint32_t i = 0; i < g->ntypes; i++) {
                fl_tr_set_elem(r, i);
                FL_TRY(fl_tr_i32(r, et, &g->types[i]));
            }
            g->types_set = true;
        } else {
            FL_TRY(fl_tr_skip(r, ft));
        }
    }
    fl_tr_struct_end(r);
    return FL_OK;
}

static fl_status dec_column_meta(fl_tr *r, uint8_t t, fl_pq_column_meta *m)
{
    memset(m, 0, sizeof *m);
    m->index_page_offset = m->dictionary_page_offset = m->bloom_filter_offset = -1;
    m->bloom_filter_length = -1;
    unsigned seen = 0;
    TR_BEGIN(r, t, CMETA, "ColumnMetaData");
    for (;;) {
        int16_t fid = 0;
        uint8_t ft = 0, et = 0;
        FL_TRY(fl_tr_field(r, &fid, &ft));
        if (ft == FL_TT_STOP)
            break;
        int32_t v;
        if (fid > 0 && fid < 32)
            seen |= 1u << fid;
        switch (fid) {
        case 1:
            FL_TRY(fl_tr_i32(r, ft, &v));
            if (v < 0 || v > FL_PQ_FIXED_LEN_BYTE_ARRAY)
                return fl_tr_fail(r, FL_ECORRUPT, "invalid physical type %d", v);
            m->type = (fl_pq_type)v;
            break;
        case 2:
            FL_TRY(fl_tr_list(r, ft, &et, &m->nencodings));
            TR_ARRAY(r, m->encodings, m->nencodings);
            for (uint32_t i = 0; i < m->nencodings; i++) {
                fl_tr_set_elem(r, i);
                FL_TRY(fl_tr_i32(r, et, &v));
                m->encodings[i] = (fl_pq_encoding)v; /* unknown values kept as is */
            }
            break;
        case 3:
            FL_TRY(fl_tr_list(r, ft, &et, &m->npath));
            TR_ARRAY(r, m->path_in_schema, m->npath);
            for (uint32_t i = 0; i < m->npath; i++) {
                fl_tr_set_elem(r, i);
                FL_TRY(fl_tr_string(r, et, &m->path_in_schema[i], NULL));
            }
            break;
        case 4:
            FL_TRY(fl_tr_i32(r, ft, &v));
            if (v < 0)
                return fl_tr_fail(r, FL_ECORRUPT, "invalid codec %d", v);
            m->codec = (fl_pq_codec)v; /* unknown codecs are the reader's to reject */
            break;
        case 5: FL_TRY(fl_tr_i64(r, ft, &m->num_values)); break;
        case 6: FL_TRY(fl_tr_i64(r, ft, &m->total_uncompressed_size)); break;
        case 7: FL_TRY(fl_tr_i64(r, ft, &m->total_compressed_size)); break;
        case 8: FL_TRY(dec_kv_list(r, ft, &m->nkv, &m->key_value_metadata)); break;
        case 9: FL_TRY(fl_tr_i64(r, ft, &m->data_page_offset)); break;
        case 10: FL_TRY(fl_tr_i64(r, ft, &m->index_page_offset)); break;
        case 11: FL_TRY(fl_tr_i64(r, ft, &m->dictionary_page_offset)); break;
        case 12:
            FL_TRY(dec_statistics(r, ft, &m->statistics));
            m->statistics_set = true;
            break;
        case 13:
            FL_TRY(fl_tr_list(r, ft, &et, &m->nencoding_stats));
            TR_ARRAY(r, m->encoding_stats, m->nencoding_stats);
            for (uint32_t i = 0; i < m->nencoding_stats; i++) {
                fl_tr_set_elem(r, i);
                fl_pq_page_encoding_stats *s = &m->encoding_stats[i];
                TR_BEGIN(r, et, PES, "PageEncodingStats");
                for (;;) {
                    int16_t f2 = 0;
                    uint8_t t2 = 0;
                    FL_TRY(fl_tr_field(r, &f2, &t2));
                    if (t2 == FL_TT_STOP)
                        break;
                    if (f2 == 1) {
                        FL_TRY(fl_tr_i32(r, t2, &v));
                        s->page_type = (fl_pq_page_type)v;
                    } else if (f2 == 2) {
                        FL_TRY(fl_tr_i32(r, t2, &v));
                        s->encoding = (fl_pq_encoding)v;
                    } else if (f2 == 3) {
                        FL_TRY(fl_tr_i32(r, t2, &s->count));
                    } else {
                        FL_TRY(fl_tr_skip(r, t2));
                    }
                }
                fl_tr_struct_end(r);
            }
            break;
        case 14: FL_TRY(fl_tr_i64(r, ft, &m->bloom_filter_offset)); break;
        case 15: FL_TRY(fl_tr_i32(r, ft, &m->bloom_filter_length)); break;
        case 16:
            TR_BEGIN(r, ft, SIZE, "SizeStatistics");
            for (;;) {
                int16_t f2 = 0;
                uint8_t t2 = 0;
                FL_TRY(fl_tr_field(r, &f2, &t2));
                if (t2 == FL_TT_STOP)
                    break;
                if (f2 == 1) {
                    FL_TRY(fl_tr_i64(r, t2, &m->size_stats.unencoded_byte_array_data_bytes));
                    m->size_stats.unencoded_byte_array_data_bytes_set = true;
                } else {
                    FL_TRY(fl_tr_skip(r, t2));
                }
            }
            fl_tr_struct_end(r);
            break;
        case 17:
            FL_TRY(dec_geo_stats(r, ft, &m->geo_stats));
            m->geo_stats_set = true;
            break;
        default: FL_TRY(fl_tr_skip(r, ft)); break;
        }
    }
    static const struct {
        int id;
        const char *name;
    } req[] = {{1, "type"},       {3, "path_in_schema"},        {4, "codec"},
               {5, "num_values"}, {7, "total_compressed_size"}, {9, "data_page_offset"}};
    for (size_t i = 0; i < sizeof req / sizeof req[0]; i++)
        if (!(seen & (1u << req[i].id)))
            return tr_missing(r, req[i].name);
    if (m->num_values < 0)
        return fl_tr_fail(r, FL_ECORRUPT, "negative num_values %lld", (long long)m->num_values);
    if (m->total_compressed_size < 0)
        return fl_tr_fail(r, FL_ECORRUPT, "negative total_compressed_size %lld",
                          (long long)m->total_compressed_size);
    fl_tr_struct_end(r);
    return FL_OK;
}

static const char *const CHUNK_F[] = {NULL,
                                      "file_path",
                                      "file_offset",
                                      "meta_data",
                                      "offset_index_offset",
                                      "offset_index_length",
                                      "column_index_offset",
                                      "column_index_length",
                                      "crypto_metadata",
                                      "encrypted_column_metadata"};
static const uint8_t CHUNK_T[] = {0, BI, I_, S_, I_, I_, I_, I_, S_, BI};

static fl_status dec_column_chunk(fl_tr *r, uint8_t t, fl_pq_column_chunk *c)
{
    memset(c, 0, sizeof *c);
    c->offset_index_offset = c->column_index_offset = -1;
    TR_BEGIN(r, t, CHUNK, "ColumnChunk");
    for (;;) {
        int16_t fid = 0;
        uint8_t ft = 0;
        FL_TRY(fl_tr_field(r, &fid, &ft));
        if (ft == FL_TT_STOP)
            break;
        switch (fid) {
        case 1: FL_TRY(fl_tr_string(r, ft, &c->file_path, NULL)); break;
        case 2: FL_TRY(fl_tr_i64(r, ft, &c->file_offset)); break;
        case 3:
            FL_TRY(dec_column_meta(r, ft, &c->meta_data));
            c->meta_data_set = true;
            break;
        case 4: FL_TRY(fl_tr_i64(r, ft, &c->offset_index_offset)); break;
        case 5: FL_TRY(fl_tr_i32(r, ft, &c->offset_index_length)); break;
        case 6: FL_TRY(fl_tr_i64(r, ft, &c->column_index_offset)); break;
        case 7: FL_TRY(fl_tr_i32(r, ft, &c->column_index_length)); break;
        case 8:
        case 9:
            c->encrypted = true;
            FL_TRY(fl_tr_skip(r, ft));
            break;
        default: FL_TRY(fl_tr_skip(r, ft)); break;
        }
    }
    fl_tr_struct_end(r);
    return FL_OK;
}

static const char *const SORT_F[] = {NULL, "column_idx", "descending", "nulls_first"};
static const uint8_t SORT_T[] = {0, I_, BO, BO};
static const char *const RG_F[] = {NULL,
                                   "columns",
                                   "total_byte_size",
                                   "num_rows",
                                   "sorting_columns",
                                   "file_offset",
                                   "total_compressed_size",
                                   "ordinal"};
static const uint8_t RG_T[] = {0, L_, I_, I_, L_, I_, I_, I_};

static fl_status dec_row_group(fl_tr *r, uint8_t t, fl_pq_row_group *g)
{
    memset(g, 0, sizeof *g);
    g->file_offset = g->total_compressed_size = -1;
    g->ordinal = -1;
    bool have_cols = false, have_rows = false;
    TR_BEGIN(r, t, RG, "RowGroup");
    for (;;) {
        int16_t fid = 0;
        uint8_t ft = 0, et = 0;
        FL_TRY(fl_tr_field(r, &fid, &ft));
        if (ft == FL_TT_STOP)
            break;
        switch (fid) {
        case 1:
            FL_TRY(fl_tr_list(r, ft, &et, &g->ncolumns));
            TR_ARRAY(r, g->columns, g->ncolumns);
            for (uint32_t i = 0; i < g->ncolumns; i++) {
                fl_tr_set_elem(r, i);
                FL_TRY(dec_column_chunk(r, et, &g->columns[i]));
            }
            have_cols = true;
            break;
        case 2: FL_TRY(fl_tr_i64(r, ft, &g->total_byte_size)); break;
        case 3:
            FL_TRY(fl_tr_i64(r, ft, &g->num_rows));
            if (g->num_rows < 0)
                return fl_tr_fail(r, FL_ECORRUPT, "negative num_rows %lld", (long long)g->num_rows);
            have_rows = true;
            break;
        case 4:
            FL_TRY(fl_tr_list(r, ft, &et, &g->nsorting_columns));
            TR_ARRAY(r, g->sorting_columns, g->nsorting_columns);
            for (uint32_t i = 0; i < g->nsorting_columns; i++) {
                fl_tr_set_elem(r, i);
                fl_pq_sorting_column *s = &g->sorting_columns[i];
                TR_BEGIN(r, et, SORT, "SortingColumn");
                for (;;) {
                    int16_t f2 = 0;
                    uint8_t t2 = 0;
                    FL_TRY(fl_tr_field(r, &f2, &t2));
                    if (t2 == FL_TT_STOP)
                        break;
                    if (f2 == 1)
                        FL_TRY(fl_tr_i32(r, t2, &s->column_idx));
                    else if (f2 == 2)
                        FL_TRY(fl_tr_bool(r, t2, &s->descending));
                    else if (f2 == 3)
                        FL_TRY(fl_tr_bool(r, t2, &s->nulls_first));
                    else
                        FL_TRY(fl_tr_skip(r, t2));
                }
                fl_tr_struct_end(r);
            }
            break;
        case 5: FL_TRY(fl_tr_i64(r, ft, &g->file_offset)); break;
        case 6: FL_TRY(fl_tr_i64(r, ft, &g->total_compressed_size)); break;
        case 7: FL_TRY(tr_i16(r, ft, &g->ordinal)); break;
        default: FL_TRY(fl_tr_skip(r, ft)); break;
        }
    }
    if (!have_cols)
        return tr_missing(r, "columns");
    if (!have_rows)
        return tr_missing(r, "num_rows");
    fl_tr_struct_end(r);
    return FL_OK;
}

static const char *const FMD_F[] = {NULL,
                                    "version",
                                    "schema",
                                    "num_rows",
                                    "row_groups",
                                    "key_value_metadata",
                                    "created_by",
                                    "column_orders",
                                    "encryption_algorithm",
                                    "footer_signing_key_metadata"};
static const uint8_t FMD_T[] = {0, I_, L_, I_, L_, L_, BI, L_, S_, BI};

fl_status fl_pq_decode_file_meta(const uint8_t *buf, size_t len, fl_arena *a, fl_pq_file_meta *out,
                                 fl_error *err)
{
    fl_tr r;
    fl_tr_init(&r, buf, len, a, err);
    memset(out, 0, sizeof *out);
    bool have_schema = false, have_rows = false, have_rgs = false;
    /* An encrypted footer is a FileCryptoMetaData, whose first field is
     * struct EncryptionAlgorithm (header byte 0x1c); FileMetaData's is i32. */
    if (len > 0 && buf[0] == 0x1c)
        return fl_errorf(err, FL_EUNSUPPORTED, "encrypted Parquet files are not supported");
    FL_TRY(fl_tr_struct_begin(&r, "FileMetaData", FMD_F, FMD_T, (int)sizeof FMD_T));
    for (;;) {
        int16_t fid = 0;
        uint8_t ft = 0, et = 0;
        FL_TRY(fl_tr_field(&r, &fid, &ft));
        if (ft == FL_TT_STOP)
            break;
        switch (fid) {
        case 1: FL_TRY(fl_tr_i32(&r, ft, &out->version)); break;
        case 2:
            FL_TRY(fl_tr_list(&r, ft, &et, &out->nschema));
            TR_ARRAY(&r, out->schema, out->nschema);
            for (uint32_t i = 0; i < out->nschema; i++) {
                fl_tr_set_elem(&r, i);
                FL_TRY(dec_schema_element(&r, et, &out->schema[i]));
            }
            have_schema = true;
            break;
        case 3:
            FL_TRY(fl_tr_i64(&r, ft, &out->num_rows));
            if (out->num_rows < 0)
                return fl_tr_fail(&r, FL_ECORRUPT, "negative num_rows %lld",
                                  (long long)out->num_rows);
            have_rows = true;
            break;
        case 4:
            FL_TRY(fl_tr_list(&r, ft, &et, &out->nrow_groups));
            TR_ARRAY(&r, out->row_groups, out->nrow_groups);
            for (uint32_t i = 0; i < out->nrow_groups; i++) {
                fl_tr_set_elem(&r, i);
                FL_TRY(dec_row_group(&r, et, &out->row_groups[i]));
            }
            have_rgs = true;
            break;
        case 5: FL_TRY(dec_kv_list(&r, ft, &out->nkv, &out->key_value_metadata)); break;
        case 6: FL_TRY(fl_tr_string(&r, ft, &out->created_by, NULL)); break;
        case 7:
            FL_TRY(fl_tr_list(&r, ft, &et, &out->ncolumn_orders));
            TR_ARRAY(&r, out->column_orders, out->ncolumn_orders);
            for (uint32_t i = 0; i < out->ncolumn_orders; i++) {
                fl_tr_set_elem(&r, i);
                int16_t tag;
                FL_TRY(dec_union_tag(&r, et, "ColumnOrder", &tag));
                out->column_orders[i] = tag == 1   ? FL_PQ_ORDER_TYPE_DEFINED
                                        : tag == 2 ? FL_PQ_ORDER_IEEE754
                                                   : FL_PQ_ORDER_UNSUPPORTED;
            }
            break;
        case 8:
            out->encryption_algorithm_set = true;
            FL_TRY(fl_tr_skip(&r, ft));
            break;
        default: FL_TRY(fl_tr_skip(&r, ft)); break;
        }
    }
    if (!have_schema || out->nschema == 0)
        return tr_missing(&r, "schema");
    if (!have_rows)
        return tr_missing(&r, "num_rows");
    if (!have_rgs)
        return tr_missing(&r, "row_groups");
    fl_tr_struct_end(&r);
    return FL_OK;
}

static const char *const PH_F[] = {NULL,
                                   "type",
                                   "uncompressed_page_size",
                                   "compressed_page_size",
                                   "crc",
                                   "data_page_header",
                                   "index_page_header",
                                   "dictionary_page_header",
                                   "data_page_header_v2"};
static const uint8_t PH_T[] = {0, I_, I_, I_, I_, S_, S_, S_, S_};
static const char *const DPH_F[] = {
    NULL,        "num_values", "encoding", "definition_level_encoding", "repetition_level_encoding",
    "statistics"};
static const uint8_t DPH_T[] = {0, I_, I_, I_, I_, S_};
static const char *const DICT_F[] = {NULL, "num_values", "encoding", "is_sorted"};
static const uint8_t DICT_T[] = {0, I_, I_, BO};
static const char *const DPH2_F[] = {NULL,
                                     "num_values",
                                     "num_nulls",
                                     "num_rows",
                                     "encoding",
                                     "definition_levels_byte_length",
                                     "repetition_levels_byte_length",
                                     "is_compressed",
                                     "statistics"};
static const uint8_t DPH2_T[] = {0, I_, I_, I_, I_, I_, I_, BO, S_};

static fl_status tr_enc(fl_tr *r, uint8_t t, fl_pq_encoding *e)
{
    int32_t v = 0;
    FL_TRY(fl_tr_i32(r, t, &v));
    if (v < 0)
        return fl_tr_fail(r, FL_ECORRUPT, "invalid encoding %d", v);
    *e = (fl_pq_encoding)v;
    return FL_OK;
}

static fl_status tr_nonneg(fl_tr *r, uint8_t t, int32_t *v)
{
    size_t at = r->pos;
    FL_TRY(fl_tr_i32(r, t, v));
    if (*v < 0) {
        r->pos = at;
        return fl_tr_fail(r, FL_ECORRUPT, "negative value %d", *v);
    }
    return FL_OK;
}

/* DataPageHeader (v1), DictionaryPageHeader or DataPageHeaderV2 into h.
 * required = bitmask of field ids that must be present. */
static fl_status dec_sub_header(fl_tr *r, uint8_t t, int which, fl_pq_page_header *h)
{
    unsigned seen = 0, required;
    if (which == 5) {
        TR_BEGIN(r, t, DPH, "DataPageHeader");
        required = (1u << 1) | (1u << 2) | (1u << 3) | (1u << 4);
    } else if (which == 7) {
        TR_BEGIN(r, t, DICT, "DictionaryPageHeader");
        required = (1u << 1) | (1u << 2);
    } else {
        TR_BEGIN(r, t, DPH2, "DataPageHeaderV2");
        required = 0x7e; /* 1..6 */
    }
    for (;;) {
        int16_t fid = 0;
        uint8_t ft = 0;
        FL_TRY(fl_tr_field(r, &fid, &ft));
        if (ft == FL_TT_STOP)
            break;
        if (fid > 0 && fid < 32)
            seen |= 1u << fid;
        if (fid == 1) {
            FL_TRY(tr_nonneg(r, ft, &h->num_values));
            continue;
        }
        if (which == 5) {
            switch (fid) {
            case 2: FL_TRY(tr_enc(r, ft, &h->encoding)); break;
            case 3: FL_TRY(tr_enc(r, ft, &h->definition_level_encoding)); break;
            case 4: FL_TRY(tr_enc(r, ft, &h->repetition_level_encoding)); break;
            case 5:
                FL_TRY(dec_statistics(r, ft, &h->statistics));
                h->statistics_set = true;
                break;
            default: FL_TRY(fl_tr_skip(r, ft)); break;
            }
        } else if (which == 7) {
            switch (fid) {
            case 2: FL_TRY(tr_enc(r, ft, &h->encoding)); break;
            case 3: FL_TRY(fl_tr_bool(r, ft, &h->is_sorted)); break;
            default: FL_TRY(fl_tr_skip(r, ft)); break;
            }
        } else {
            switch (fid) {
            case 2: FL_TRY(tr_nonneg(r, ft, &h->num_nulls)); break;
            case 3: FL_TRY(tr_nonneg(r, ft, &h->num_rows)); break;
            case 4: FL_TRY(tr_enc(r, ft, &h->encoding)); break;
            case 5: FL_TRY(tr_nonneg(r, ft, &h->definition_levels_byte_length)); break;
            case 6: FL_TRY(tr_nonneg(r, ft, &h->repetition_levels_byte_length)); break;
            case 7: FL_TRY(fl_tr_bool(r, ft, &h->is_compressed)); break;
            case 8:
                FL_TRY(dec_statistics(r, ft, &h->statistics));
                h->statistics_set = true;
                break;
            default: FL_TRY(fl_tr_skip(r, ft)); break;
            }
        }
    }
    if ((seen & required) != required) {
        const char *const *names = which == 5 ? DPH_F : which == 7 ? DICT_F : DPH2_F;
        for (int i = 1; i < 8; i++)
            if ((required & (1u << i)) && !(seen & (1u << i)))
                return tr_missing(r, names[i]);
    }
    fl_tr_struct_end(r);
    return FL_OK;
}

fl_status fl_pq_decode_page_header(const uint8_t *buf, size_t len, fl_arena *a,
                                   fl_pq_page_header *out, size_t *consumed, fl_error *err)
{
    fl_tr r;
    fl_tr_init(&r, buf, len, a, err);
    memset(out, 0, sizeof *out);
    out->is_compressed = true;
    unsigned seen = 0;
    FL_TRY(fl_tr_struct_begin(&r, "PageHeader", PH_F, PH_T, (int)sizeof PH_T));
    for (;;) {
        int16_t fid = 0;
        uint8_t ft = 0;
        FL_TRY(fl_tr_field(&r, &fid, &ft));
        if (ft == FL_TT_STOP)
            break;
        if (fid > 0 && fid < 32)
            seen |= 1u << fid;
        int32_t v;
        switch (fid) {
        case 1:
            FL_TRY(fl_tr_i32(&r, ft, &v));
            if (v < 0)
                return fl_tr_fail(&r, FL_ECORRUPT, "invalid page type %d", v);
            out->type = (fl_pq_page_type)v; /* unknown types are kept: readers skip them */
            break;
        case 2: FL_TRY(tr_nonneg(&r, ft, &out->uncompressed_page_size)); break;
        case 3: FL_TRY(tr_nonneg(&r, ft, &out->compressed_page_size)); break;
        case 4:
            FL_TRY(fl_tr_i32(&r, ft, &v));
            out->crc = (uint32_t)v;
            out->crc_set = true;
            break;
        case 5:
        case 7:
        case 8: FL_TRY(dec_sub_header(&r, ft, fid, out)); break;
        default: FL_TRY(fl_tr_skip(&r, ft)); break;
        }
    }
    if (!(seen & 2))
        return tr_missing(&r, "type");
    if (!(seen & 4))
        return tr_missing(&r, "uncompressed_page_size");
    if (!(seen & 8))
        return tr_missing(&r, "compressed_page_size");
    if (out->type == FL_PQ_DATA_PAGE && !(seen & (1u << 5)))
        return tr_missing(&r, "data_page_header");
    if (out->type == FL_PQ_DICTIONARY_PAGE && !(seen & (1u << 7)))
        return tr_missing(&r, "dictionary_page_header");
    if (out->type == FL_PQ_DATA_PAGE_V2 && !(seen & (1u << 8)))
        return tr_missing(&r, "data_page_header_v2");
    if (out->type == FL_PQ_DATA_PAGE_V2 &&
        (int64_t)out->definition_levels_byte_length + out->repetition_levels_byte_length >
            out->compressed_page_size)
        return fl_tr_fail(&r, FL_ECORRUPT, "level bytes (%d + %d) exceed compressed_page_size %d",
                          out->definition_levels_byte_length, out->repetition_levels_byte_length,
                          out->compressed_page_size);
    fl_tr_struct_end(&r);
    if (consumed)
        *consumed = r.pos;
    return FL_OK;
}

static const char *const CI_F[] = {NULL,
                                   "null_pages",
                                   "min_values",
                                   "max_values",
                                   "boundary_order",
                                   "null_counts",
                                   "repetition_level_histograms",
                                   "definition_level_histograms",
                                   "nan_counts"};
static const uint8_t CI_T[] = {0, L_, L_, L_, I_, L_, L_, L_, L_};

static fl_status dec_bytes_list(fl_tr *r, uint8_t t, uint32_t *n, fl_pq_bytes **out)
{
    uint8_t et = 0;
    FL_TRY(fl_tr_list(r, t, &et, n));
    TR_ARRAY(r, *out, *n);
    for (uint32_t i = 0; i < *n; i++) {
        fl_tr_set_elem(r, i);
        FL_TRY(fl_tr_bytes(r, et, &(*out)[i]));
    }
    return FL_OK;
}

fl_status fl_pq_decode_column_index(const uint8_t *buf, size_t len, fl_arena *a,
                                    fl_pq_column_index *out, fl_error *err)
{
    fl_tr r;
    fl_tr_init(&r, buf, len, a, err);
    memset(out, 0, sizeof *out);
    uint32_t nnull = 0, nmin = 0, nmax = 0, ncounts = 0;
    unsigned seen = 0;
    FL_TRY(fl_tr_struct_begin(&r, "ColumnIndex", CI_F, CI_T, (int)sizeof CI_T));
    for (;;) {
        int16_t fid = 0;
        uint8_t ft = 0, et = 0;
        FL_TRY(fl_tr_field(&r, &fid, &ft));
        if (ft == FL_TT_STOP)
            break;
        if (fid > 0 && fid < 32)
            seen |= 1u << fid;
        int32_t v;
        switch (fid) {
        case 1:
            FL_TRY(fl_tr_list(&r, ft, &et, &nnull));
            TR_ARRAY(&r, out->null_pages, nnull);
            for (uint32_t i = 0; i < nnull; i++) {
                fl_tr_set_elem(&r, i);
                FL_TRY(fl_tr_elem_bool(&r, et, &out->null_pages[i]));
            }
            break;
        case 2: FL_TRY(dec_bytes_list(&r, ft, &nmin, &out->min_values)); break;
        case 3: FL_TRY(dec_bytes_list(&r, ft, &nmax, &out->max_values)); break;
        case 4:
            FL_TRY(fl_tr_i32(&r, ft, &v));
            out->boundary_order =
                (v >= 0 && v <= FL_PQ_DESCENDING) ? (fl_pq_boundary_order)v : FL_PQ_UNORDERED;
            break;
        case 5:
            FL_TRY(fl_tr_list(&r, ft, &et, &ncounts));
            TR_ARRAY(&r, out->null_counts, ncounts);
            for (uint32_t i = 0; i < ncounts; i++) {
                fl_tr_set_elem(&r, i);
                FL_TRY(fl_tr_i64(&r, et, &out->null_counts[i]));
            }
            break;
        default: FL_TRY(fl_tr_skip(&r, ft)); break;
        }
    }
    if (!(seen & 2))
        return tr_missing(&r, "null_pages");
    if (!(seen & 4))
        return tr_missing(&r, "min_values");
    if (!(seen & 8))
        return tr_missing(&r, "max_values");
    if (nmin != nnull || nmax != nnull || ((seen & 32) && ncounts != nnull))
        return fl_tr_fail(&r, FL_ECORRUPT,
                          "list lengths disagree: null_pages %u, min_values %u, max_values %u, "
                          "null_counts %u",
                          nnull, nmin, nmax, ncounts);
    if (!(seen & 32))
        out->null_counts = NULL;
    out->npages = nnull;
    fl_tr_struct_end(&r);
    return FL_OK;
}

static const char *const OI_F[] = {NULL, "page_locations", "unencoded_byte_array_data_bytes"};
static const uint8_t OI_T[] = {0, L_, L_};
static const char *const PL_F[] = {NULL, "offset", "compressed_page_size", "first_row_index"};
static const uint8_t PL_T[] = {0, I_, I_, I_};

fl_status fl_pq_decode_offset_index(const uint8_t *buf, size_t len, fl_arena *a,
                                    fl_pq_offset_index *out, fl_error *err)
{
    fl_tr r;
    fl_tr_init(&r, buf, len, a, err);
    memset(out, 0, sizeof *out);
    bool have = false;
    FL_TRY(fl_tr_struct_begin(&r, "OffsetIndex", OI_F, OI_T, (int)sizeof OI_T));
    for (;;) {
        int16_t fid = 0;
        uint8_t ft = 0, et = 0;
        FL_TRY(fl_tr_field(&r, &fid, &ft));
        if (ft == FL_TT_STOP)
            break;
        if (fid != 1) {
            FL_TRY(fl_tr_skip(&r, ft));
            continue;
        }
        FL_TRY(fl_tr_list(&r, ft, &et, &out->npages));
        TR_ARRAY(&r, out->page_locations, out->npages);
        for (uint32_t i = 0; i < out->npages; i++) {
            fl_tr_set_elem(&r, i);
            fl_pq_page_location *pl = &out->page_locations[i];
            unsigned seen = 0;
            TR_BEGIN(&r, et, PL, "PageLocation");
            for (;;) {
                int16_t f2 = 0;
                uint8_t t2 = 0;
                FL_TRY(fl_tr_field(&r, &f2, &t2));
                if (t2 == FL_TT_STOP)
                    break;
                if (f2 > 0 && f2 < 32)
                    seen |= 1u << f2;
                if (f2 == 1)
                    FL_TRY(fl_tr_i64(&r, t2, &pl->offset));
                else if (f2 == 2)
                    FL_TRY(tr_nonneg(&r, t2, &pl->compressed_page_size));
                else if (f2 == 3)
                    FL_TRY(fl_tr_i64(&r, t2, &pl->first_row_index));
                else
                    FL_TRY(fl_tr_skip(&r, t2));
            }
            if ((seen & 0xe) != 0xe)
                return tr_missing(&r, !(seen & 2)   ? "offset"
                                      : !(seen & 4) ? "compressed_page_size"
                                                    : "first_row_index");
            if (pl->offset < 0 || pl->first_row_index < 0)
                return fl_tr_fail(&r, FL_ECORRUPT, "negative offset or first_row_index");
            fl_tr_struct_end(&r);
        }
        have = true;
    }
    if (!have)
        return tr_missing(&r, "page_locations");
    fl_tr_struct_end(&r);
    return FL_OK;
}

fl_status fl_pq_parse_tail(const uint8_t tail[8], uint64_t file_size, uint32_t *footer_len,
                           fl_error *err)
{
    if (file_size < 12)
        return fl_errorf(err, FL_ECORRUPT, "file of %llu bytes is too small to be Parquet",
                         (unsigned long long)file_size);
    if (memcmp(tail + 4, "PARE", 4) == 0)
        return fl_errorf(err, FL_EUNSUPPORTED, "encrypted Parquet files are not supported");
    if (memcmp(tail + 4, "PAR1", 4) != 0)
        return fl_errorf(err, FL_ECORRUPT,
                         "byte %llu: bad magic %02x%02x%02x%02x at the end (expected \"PAR1\")",
                         (unsigned long long)(file_size - 4), tail[4], tail[5], tail[6], tail[7]);
    uint32_t n = (uint32_t)tail[0] | (uint32_t)tail[1] << 8 | (uint32_t)tail[2] << 16 |
                 (uint32_t)tail[3] << 24;
    if ((uint64_t)n > file_size - 12)
        return fl_errorf(err, FL_ECORRUPT,
                         "byte %llu: footer length %u exceeds the file (%llu bytes)",
                         (unsigned long long)(file_size - 8), n, (unsigned long long)file_size);
    *footer_len = n;
    return FL_OK;
}
