/*
 * stats.c - Parquet statistics as floe values and the pruning rules built on
 * them (stats.h): chunk statistics (Statistics in ColumnMetaData) and page
 * statistics (ColumnIndex), for every fl_cmp_op.
 *
 * Spec: apache/parquet-format parquet.thrift (Statistics, ColumnOrder,
 * ColumnIndex) and LogicalTypes.md (sort orders).
 *
 * Statistics bytes are the PLAIN encoding of the physical type (BYTE_ARRAY
 * without its length prefix): INT32 4 bytes LE, INT64 8, INT96 12 (nanos of
 * day LE + Julian day LE), FLOAT 4, DOUBLE 8, FLBA its length, FLOAT16 2
 * bytes LE half, decimals in FLBA/BYTE_ARRAY big-endian two's complement.
 * They are converted to the floe type the reader produces (leaf->type), with
 * the same monotonic conversion the reader applies to values (e.g. TIME
 * nanos -> micros by floor division), so converted bounds remain bounds.
 *
 * Which bounds to trust:
 *   - min_value/max_value (fields 5/6) when both are set and the column order
 *     is not an unsupported variant;
 *   - else the legacy min/max (fields 1/2) only for types whose order is the
 *     signed one old writers used (booleans, signed ints and what is stored
 *     in them, floats); never for unsigned ints, byte arrays (strings,
 *     binary, decimals-as-bytes, UUID, FLOAT16) or INT96;
 *   - float bounds: a NaN min becomes -inf and a NaN max +inf (old writers
 *     stored NaN); +0 as min widens to -0 and -0 as max to +0 (the spec says
 *     either zero may hide behind the other).
 * Pruning is conservative: anything unexpected answers "may match".
 */
#include <math.h>
#include <string.h>

#include "parquet/stats.h"

/* ---- helpers ---- */

static int32_t le32(const uint8_t *p)
{
    uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    return (int32_t)u;
}

static int64_t le64(const uint8_t *p)
{
    uint64_t u = 0;
    for (int i = 7; i >= 0; i--)
        u = u << 8 | p[i];
    return (int64_t)u;
}

static void put_le(uint8_t *p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Floor division (the conversion readers apply to sub-unit timestamps). */
static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static bool is_unsigned(const fl_pq_leaf_info *leaf)
{
    if (leaf->logical && leaf->logical->kind == FL_PQ_LT_INTEGER)
        return !leaf->logical->int_is_signed;
    return leaf->converted >= FL_PQ_CT_UINT_8 && leaf->converted <= FL_PQ_CT_UINT_64;
}

/* 0 = millis, 1 = micros, 2 = nanos for TIME/TIMESTAMP columns. */
static int time_unit(const fl_pq_leaf_info *leaf)
{
    if (leaf->logical &&
        (leaf->logical->kind == FL_PQ_LT_TIME || leaf->logical->kind == FL_PQ_LT_TIMESTAMP))
        return (int)leaf->logical->unit;
    switch (leaf->converted) {
    case FL_PQ_CT_TIME_MILLIS:
    case FL_PQ_CT_TIMESTAMP_MILLIS: return 0;
    case FL_PQ_CT_TIME_MICROS:
    case FL_PQ_CT_TIMESTAMP_MICROS: return 1;
    default: return leaf->physical == FL_PQ_INT32 ? 0 : 1;
    }
}

static bool is_float_type(const fl_type *t)
{
    return t->id == FL_TYPE_FLOAT32 || t->id == FL_TYPE_FLOAT64;
}

static bool is_float16(const fl_pq_leaf_info *leaf)
{
    return leaf->physical == FL_PQ_FIXED_LEN_BYTE_ARRAY && leaf->logical &&
           leaf->logical->kind == FL_PQ_LT_FLOAT16;
}

static float half_to_float(uint16_t h)
{
    int sign = h >> 15, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    float v;
    if (exp == 0)
        v = ldexpf((float)mant, -24);
    else if (exp == 31)
        v = mant ? NAN : INFINITY;
    else
        v = ldexpf((float)(mant | 0x400), exp - 25);
    return sign ? -v : v;
}

static uint16_t float_to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000, exp = (x >> 23) & 0xff, mant = x & 0x7fffff;
    if (exp == 0xff)
        return (uint16_t)(sign | 0x7c00 | (mant ? 0x200 : 0));
    int e = (int)exp - 127 + 15;
    if (e >= 31)
        return (uint16_t)(sign | 0x7c00);
    if (e <= 0) {
        if (e < -10)
            return (uint16_t)sign;
        mant |= 0x800000;
        unsigned shift = (unsigned)(14 - e);
        uint32_t h = mant >> shift, rem = mant & ((1u << shift) - 1), mid = 1u << (shift - 1);
        if (rem > mid || (rem == mid && (h & 1)))
            h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = sign | (uint32_t)e << 10 | mant >> 13, rem = mant & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
        h++; /* a carry into the exponent is the correct rounding */
    return (uint16_t)h;
}

/* Big-endian two's complement (1..n bytes, sign-extension beyond 16 allowed). */
static bool be_to_i128(const uint8_t *p, size_t n, fl_i128 *out)
{
    if (n == 0)
        return false;
    if (n > 16) {
        uint8_t ext = (p[0] & 0x80) ? 0xff : 0;
        for (size_t i = 0; i < n - 16; i++)
            if (p[i] != ext)
                return false;
        p += n - 16;
        n = 16;
        if (((p[0] & 0x80) ? 0xff : 0) != ext)
            return false;
    }
    unsigned __int128 u = (p[0] & 0x80) ? ~(unsigned __int128)0 : 0;
    for (size_t i = 0; i < n; i++)
        u = u << 8 | p[i];
    *out = (fl_i128)u;
    return true;
}

/* Writes v as n big-endian bytes; false if it does not fit. */
static bool i128_to_be(fl_i128 v, uint8_t *p, size_t n)
{
    unsigned __int128 u = (unsigned __int128)v;
    for (size_t i = n; i-- > 0;) {
        p[i] = (uint8_t)u;
        u >>= 8;
        if (v < 0)
            u |= (unsigned __int128)0xff << 120;
    }
    /* round trip check */
    fl_i128 back;
    return be_to_i128(p, n, &back) && back == v;
}

/* Minimal big-endian two's complement length of v (1..16). */
static size_t i128_min_len(fl_i128 v)
{
    for (size_t n = 1; n < 16; n++) {
        fl_i128 lim = (fl_i128)1 << (8 * n - 1);
        if (v >= -lim && v < lim)
            return n;
    }
    return 16;
}

#define JULIAN_EPOCH 2440588LL /* Julian day of 1970-01-01 */
#define NS_PER_DAY 86400000000000LL

/* ---- stats bytes -> value ---- */

bool fl_pq_stat_to_value(const fl_pq_leaf_info *leaf, fl_pq_bytes raw, fl_value *out)
{
    if (!leaf || !leaf->type || !raw.ptr)
        return false;
    const fl_type *t = leaf->type;
    memset(out, 0, sizeof *out);
    out->type = *t;
    out->type.nchildren = 0;
    out->type.children = NULL;
    const uint8_t *p = raw.ptr;
    size_t n = raw.len;
    switch (t->id) {
    case FL_TYPE_BOOLEAN:
        if (leaf->physical != FL_PQ_BOOLEAN || n != 1)
            return false;
        out->v.b = p[0] & 1;
        return true;
    case FL_TYPE_INT32:
    case FL_TYPE_DATE:
        if (leaf->physical != FL_PQ_INT32 || n != 4)
            return false;
        out->v.i32 = le32(p);
        return true;
    case FL_TYPE_INT64:
        if (leaf->physical == FL_PQ_INT32 && n == 4) {
            out->v.i64 = is_unsigned(leaf) ? (int64_t)(uint32_t)le32(p) : (int64_t)le32(p);
            return true;
        }
        if (leaf->physical != FL_PQ_INT64 || n != 8)
            return false;
        out->v.i64 = le64(p);
        return true;
    case FL_TYPE_TIME:
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ:
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS: {
        bool ns_target = t->id == FL_TYPE_TIMESTAMP_NS || t->id == FL_TYPE_TIMESTAMPTZ_NS;
        int64_t v;
        int unit;
        if (leaf->physical == FL_PQ_INT96) {
            if (n != 12 || !ns_target)
                return false;
            int64_t days = (int64_t)le32(p + 8) - JULIAN_EPOCH, ns;
            if (__builtin_mul_overflow(days, NS_PER_DAY, &ns) ||
                __builtin_add_overflow(ns, le64(p), &ns))
                return false;
            out->v.i64 = ns;
            return true;
        }
        if (leaf->physical == FL_PQ_INT32 && n == 4)
            v = le32(p);
        else if (leaf->physical == FL_PQ_INT64 && n == 8)
            v = le64(p);
        else
            return false;
        unit = time_unit(leaf);
        int target = ns_target ? 2 : 1; /* floe: micros, or nanos for *_NS */
        if (unit < target) {
            int64_t mul = unit == 0 ? (target == 1 ? 1000 : 1000000) : 1000;
            if (__builtin_mul_overflow(v, mul, &v))
                return false;
        } else if (unit > target) {
            v = floor_div(v, unit - target == 1 ? 1000 : 1000000);
        }
        out->v.i64 = v;
        return true;
    }
    case FL_TYPE_FLOAT32:
        if (leaf->physical == FL_PQ_FLOAT && n == 4) {
            memcpy(&out->v.f32, p, 4);
            return true;
        }
        if (is_float16(leaf) && n == 2) {
            out->v.f32 = half_to_float((uint16_t)(p[0] | p[1] << 8));
            return true;
        }
        return false;
    case FL_TYPE_FLOAT64:
        if (leaf->physical == FL_PQ_DOUBLE && n == 8) {
            memcpy(&out->v.f64, p, 8);
            return true;
        }
        if (leaf->physical == FL_PQ_FLOAT && n == 4) {
            float f;
            memcpy(&f, p, 4);
            out->v.f64 = f;
            return true;
        }
        return false;
    case FL_TYPE_DECIMAL:
        switch (leaf->physical) {
        case FL_PQ_INT32:
            if (n != 4)
                return false;
            out->v.dec = is_unsigned(leaf) ? (fl_i128)(uint32_t)le32(p) : (fl_i128)le32(p);
            return true;
        case FL_PQ_INT64:
            if (n != 8)
                return false;
            out->v.dec = is_unsigned(leaf) ? (fl_i128)(uint64_t)le64(p) : (fl_i128)le64(p);
            return true;
        case FL_PQ_FIXED_LEN_BYTE_ARRAY:
        case FL_PQ_BYTE_ARRAY: return be_to_i128(p, n, &out->v.dec);
        default: return false;
        }
    case FL_TYPE_STRING:
    case FL_TYPE_BINARY:
    case FL_TYPE_UUID:
    case FL_TYPE_FIXED:
        if (leaf->physical != FL_PQ_BYTE_ARRAY && leaf->physical != FL_PQ_FIXED_LEN_BYTE_ARRAY)
            return false;
        if (t->id == FL_TYPE_UUID && n != 16)
            return false;
        if (t->id == FL_TYPE_FIXED && (int64_t)n != t->fixed_len)
            return false;
        out->v.bytes.ptr = p;
        out->v.bytes.len = n;
        return true;
    default: return false;
    }
}

/* ---- bounds ---- */

static bool legacy_order_ok(const fl_pq_leaf_info *leaf)
{
    switch (leaf->physical) {
    case FL_PQ_BOOLEAN:
    case FL_PQ_FLOAT:
    case FL_PQ_DOUBLE: return true;
    case FL_PQ_INT32:
    case FL_PQ_INT64: return !is_unsigned(leaf);
    default: return false;
    }
}

/* Float fixups on converted bounds (see the file comment). */
static void widen_float_bounds(fl_value *min, fl_value *max)
{
    if (min->type.id == FL_TYPE_FLOAT32) {
        if (isnan(min->v.f32) || (min->v.f32 == 0 && !signbit(min->v.f32)))
            min->v.f32 = isnan(min->v.f32) ? -INFINITY : -0.0f;
        if (isnan(max->v.f32) || (max->v.f32 == 0 && signbit(max->v.f32)))
            max->v.f32 = isnan(max->v.f32) ? INFINITY : 0.0f;
    } else if (min->type.id == FL_TYPE_FLOAT64) {
        if (isnan(min->v.f64) || (min->v.f64 == 0 && !signbit(min->v.f64)))
            min->v.f64 = isnan(min->v.f64) ? -INFINITY : -0.0;
        if (isnan(max->v.f64) || (max->v.f64 == 0 && signbit(max->v.f64)))
            max->v.f64 = isnan(max->v.f64) ? INFINITY : 0.0;
    }
}

static bool convert_bounds(const fl_pq_leaf_info *leaf, fl_pq_bytes rmin, fl_pq_bytes rmax,
                           fl_value *min, fl_value *max)
{
    if (!fl_pq_stat_to_value(leaf, rmin, min) || !fl_pq_stat_to_value(leaf, rmax, max))
        return false;
    widen_float_bounds(min, max);
    return true;
}

bool fl_pq_stats_bounds(const fl_pq_leaf_info *leaf, const fl_pq_statistics *st, fl_value *min,
                        fl_value *max)
{
    if (!leaf || !st || !leaf->type || leaf->order == FL_PQ_ORDER_UNSUPPORTED)
        return false;
    if (leaf->physical == FL_PQ_INT96)
        return false; /* INT96 has no defined sort order */
    if (st->min_value.ptr && st->max_value.ptr)
        return convert_bounds(leaf, st->min_value, st->max_value, min, max);
    if (st->min.ptr && st->max.ptr && legacy_order_ok(leaf))
        return convert_bounds(leaf, st->min, st->max, min, max);
    return false;
}

/* ---- pruning ---- */

/* Is the literal comparable with the column without a cast? */
static bool literal_fits(const fl_pq_leaf_info *leaf, const fl_value *lit)
{
    const fl_type *t = leaf->type;
    if (lit->is_null || lit->type.id != t->id)
        return false;
    if (t->id == FL_TYPE_DECIMAL && lit->type.scale != t->scale)
        return false;
    if (t->id == FL_TYPE_FIXED && lit->type.fixed_len != t->fixed_len)
        return false;
    return true;
}

static bool value_is_nan(const fl_value *v)
{
    return (v->type.id == FL_TYPE_FLOAT32 && isnan(v->v.f32)) ||
           (v->type.id == FL_TYPE_FLOAT64 && isnan(v->v.f64));
}

static bool eq_may_match(const fl_pq_leaf_info *leaf, const fl_value *min, const fl_value *max,
                         const fl_value *lit)
{
    if (!literal_fits(leaf, lit) || value_is_nan(lit))
        return true;
    return fl_value_compare(lit, min) >= 0 && fl_value_compare(lit, max) <= 0;
}

/* nan_free: the values are known to hold no NaN (or the type is not a float);
 * exact: min and max are actual values (not truncated). */
static bool range_may_match(const fl_pq_leaf_info *leaf, const fl_value *min, const fl_value *max,
                            bool nan_free, bool exact, const fl_col_pred *t)
{
    const fl_value *lit = &t->value;
    switch (t->op) {
    case FL_CMP_EQ: return eq_may_match(leaf, min, max, lit);
    case FL_CMP_IN:
        for (uint32_t i = 0; i < t->nin; i++) {
            if (t->in_values[i].is_null)
                continue; /* x = NULL is never true */
            if (eq_may_match(leaf, min, max, &t->in_values[i]))
                return true;
        }
        return false; /* no literal can match (also IN ()) */
    case FL_CMP_NE:
        if (!literal_fits(leaf, lit) || !nan_free || !exact || value_is_nan(lit))
            return true;
        return !(fl_value_compare(min, max) == 0 && fl_value_compare(min, lit) == 0);
    case FL_CMP_LT:
        if (!literal_fits(leaf, lit))
            return true;
        return fl_value_compare(min, lit) < 0;
    case FL_CMP_LE:
        if (!literal_fits(leaf, lit))
            return true;
        return fl_value_compare(min, lit) <= 0;
    case FL_CMP_GT:
        if (!literal_fits(leaf, lit) || !nan_free)
            return true;
        return fl_value_compare(max, lit) > 0;
    case FL_CMP_GE:
        if (!literal_fits(leaf, lit) || !nan_free)
            return true;
        return fl_value_compare(max, lit) >= 0;
    default: return true;
    }
}

static bool is_fixed_width(const fl_pq_leaf_info *leaf)
{
    return leaf->physical != FL_PQ_BYTE_ARRAY;
}

bool fl_pq_stats_may_match(const fl_pq_leaf_info *leaf, const fl_pq_statistics *st,
                           int64_t num_values, const fl_col_pred *term)
{
    if (!leaf || !leaf->type || !term)
        return true;
    bool nulls_known = st && st->null_count_set && st->null_count >= 0;
    bool all_null = nulls_known && num_values >= 0 && st->null_count >= num_values;
    switch (term->op) {
    case FL_CMP_IS_NULL: return !(nulls_known && st->null_count == 0);
    case FL_CMP_NOT_NULL: return !all_null;
    case FL_CMP_EQ:
    case FL_CMP_NE:
    case FL_CMP_LT:
    case FL_CMP_LE:
    case FL_CMP_GT:
    case FL_CMP_GE:
    case FL_CMP_IN: break;
    default: return true;
    }
    if (all_null)
        return false; /* a comparison with NULL is never true */
    if (term->op != FL_CMP_IN && term->value.is_null)
        return true;
    fl_value min, max;
    if (!fl_pq_stats_bounds(leaf, st, &min, &max))
        return true;
    bool nan_free = !is_float_type(leaf->type) || (st->nan_count_set && st->nan_count == 0);
    bool exact = is_fixed_width(leaf) ||
                 (st->min_value.ptr && st->is_min_value_exact_set && st->is_min_value_exact &&
                  st->is_max_value_exact_set && st->is_max_value_exact);
    return range_may_match(leaf, &min, &max, nan_free, exact, term);
}

bool fl_pq_page_may_match(const fl_pq_leaf_info *leaf, const fl_pq_column_index *ci, uint32_t page,
                          const fl_col_pred *term)
{
    if (!leaf || !leaf->type || !ci || !term || page >= ci->npages || !ci->null_pages)
        return true;
    bool all_null = ci->null_pages[page];
    switch (term->op) {
    case FL_CMP_IS_NULL:
        if (all_null)
            return true;
        return !(ci->null_counts && ci->null_counts[page] == 0);
    case FL_CMP_NOT_NULL: return !all_null;
    case FL_CMP_EQ:
    case FL_CMP_NE:
    case FL_CMP_LT:
    case FL_CMP_LE:
    case FL_CMP_GT:
    case FL_CMP_GE:
    case FL_CMP_IN: break;
    default: return true;
    }
    if (all_null)
        return false;
    if (term->op != FL_CMP_IN && term->value.is_null)
        return true;
    if (leaf->order == FL_PQ_ORDER_UNSUPPORTED || leaf->physical == FL_PQ_INT96 ||
        !ci->min_values || !ci->max_values)
        return true;
    fl_value min, max;
    if (!convert_bounds(leaf, ci->min_values[page], ci->max_values[page], &min, &max))
        return true;
    /* page indexes carry no NaN counts here, and byte array bounds may be truncated */
    return range_may_match(leaf, &min, &max, !is_float_type(leaf->type), is_fixed_width(leaf),
                           term);
}

/* ---- value -> PLAIN bytes (writer statistics, bloom hashing) ---- */

static bool time_to_phys(const fl_pq_leaf_info *leaf, const fl_value *v, int64_t *out)
{
    bool ns_src = v->type.id == FL_TYPE_TIMESTAMP_NS || v->type.id == FL_TYPE_TIMESTAMPTZ_NS;
    int src = ns_src ? 2 : 1, unit = time_unit(leaf);
    int64_t x = v->v.i64;
    if (unit < src)
        x = floor_div(x, src - unit == 1 ? 1000 : 1000000);
    else if (unit > src && __builtin_mul_overflow(x, unit - src == 1 ? 1000 : 1000000, &x))
        return false;
    *out = x;
    return true;
}

bool fl_pq_value_plain(const fl_pq_leaf_info *leaf, const fl_value *v, uint8_t scratch[32],
                       const uint8_t **ptr, size_t *len)
{
    if (!leaf || !leaf->type || v->is_null || v->type.id != leaf->type->id)
        return false;
    fl_type_id id = v->type.id;
    *ptr = scratch;
    switch (leaf->physical) {
    case FL_PQ_BOOLEAN:
        if (id != FL_TYPE_BOOLEAN)
            return false;
        scratch[0] = v->v.b ? 1 : 0;
        *len = 1;
        return true;
    case FL_PQ_INT32: {
        int64_t x;
        if (id == FL_TYPE_INT32 || id == FL_TYPE_DATE)
            x = v->v.i32;
        else if (id == FL_TYPE_INT64)
            x = v->v.i64;
        else if (id == FL_TYPE_DECIMAL) {
            if (v->v.dec < INT64_MIN || v->v.dec > INT64_MAX)
                return false;
            x = (int64_t)v->v.dec;
        } else if (id == FL_TYPE_TIME) {
            if (!time_to_phys(leaf, v, &x))
                return false;
        } else
            return false;
        bool uns = is_unsigned(leaf);
        if (uns ? (x < 0 || x > UINT32_MAX) : (x < INT32_MIN || x > INT32_MAX))
            return false;
        put_le(scratch, (uint64_t)x, 4);
        *len = 4;
        return true;
    }
    case FL_PQ_INT64: {
        uint64_t x;
        if (id == FL_TYPE_INT64)
            x = (uint64_t)v->v.i64;
        else if (id == FL_TYPE_DECIMAL) {
            bool uns = is_unsigned(leaf);
            if (uns ? (v->v.dec < 0 || v->v.dec > (fl_i128)UINT64_MAX)
                    : (v->v.dec < INT64_MIN || v->v.dec > INT64_MAX))
                return false;
            x = (uint64_t)v->v.dec;
        } else if (id == FL_TYPE_TIME || id == FL_TYPE_TIMESTAMP || id == FL_TYPE_TIMESTAMPTZ ||
                   id == FL_TYPE_TIMESTAMP_NS || id == FL_TYPE_TIMESTAMPTZ_NS) {
            int64_t t;
            if (!time_to_phys(leaf, v, &t))
                return false;
            x = (uint64_t)t;
        } else
            return false;
        put_le(scratch, x, 8);
        *len = 8;
        return true;
    }
    case FL_PQ_INT96: {
        if (id != FL_TYPE_TIMESTAMP_NS && id != FL_TYPE_TIMESTAMPTZ_NS)
            return false;
        int64_t days = floor_div(v->v.i64, NS_PER_DAY);
        int64_t nod = v->v.i64 - days * NS_PER_DAY;
        put_le(scratch, (uint64_t)nod, 8);
        put_le(scratch + 8, (uint64_t)(days + JULIAN_EPOCH), 4);
        *len = 12;
        return true;
    }
    case FL_PQ_FLOAT:
        if (id != FL_TYPE_FLOAT32)
            return false;
        memcpy(scratch, &v->v.f32, 4);
        *len = 4;
        return true;
    case FL_PQ_DOUBLE:
        if (id != FL_TYPE_FLOAT64)
            return false;
        memcpy(scratch, &v->v.f64, 8);
        *len = 8;
        return true;
    case FL_PQ_BYTE_ARRAY:
        if (id == FL_TYPE_DECIMAL) {
            size_t n = i128_min_len(v->v.dec);
            i128_to_be(v->v.dec, scratch, n);
            *len = n;
            return true;
        }
        if (id != FL_TYPE_STRING && id != FL_TYPE_BINARY)
            return false;
        *ptr = v->v.bytes.ptr;
        *len = v->v.bytes.len;
        return true;
    case FL_PQ_FIXED_LEN_BYTE_ARRAY:
        if (id == FL_TYPE_DECIMAL) {
            if (leaf->type_length <= 0 || leaf->type_length > 32 ||
                !i128_to_be(v->v.dec, scratch, (size_t)leaf->type_length))
                return false;
            *len = (size_t)leaf->type_length;
            return true;
        }
        if (id == FL_TYPE_FLOAT32 && is_float16(leaf)) {
            uint16_t h = float_to_half(v->v.f32);
            scratch[0] = (uint8_t)h;
            scratch[1] = (uint8_t)(h >> 8);
            *len = 2;
            return true;
        }
        if (id != FL_TYPE_UUID && id != FL_TYPE_FIXED && id != FL_TYPE_BINARY &&
            id != FL_TYPE_STRING)
            return false;
        if ((int64_t)v->v.bytes.len != leaf->type_length)
            return false;
        *ptr = v->v.bytes.ptr;
        *len = v->v.bytes.len;
        return true;
    default: return false;
    }
}

fl_status fl_pq_value_to_stat(const fl_pq_leaf_info *leaf, const fl_value *v, fl_pq_buf *out,
                              fl_error *err)
{
    uint8_t scratch[32];
    const uint8_t *p;
    size_t n;
    if (!fl_pq_value_plain(leaf, v, scratch, &p, &n))
        return fl_errorf(err, FL_ETYPE,
                         "statistics: a value of type %d cannot be stored in physical type %d",
                         (int)v->type.id, leaf ? (int)leaf->physical : -1);
    FL_TRY(fl_buf_reserve(out, n, err));
    if (n)
        memcpy(out->data + out->len, p, n);
    out->len += n;
    return FL_OK;
}
