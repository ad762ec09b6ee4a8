/*
 * write_util.c - small pieces shared by the data and delete writers:
 *
 *   - ice_vector_value: a scalar of a vector row (any encoding) as fl_value;
 *   - table properties read as numbers, and the Parquet writer options they
 *     select (write.parquet.compression-codec / -level, row-group-size-bytes,
 *     page-size-bytes, page-row-limit, dict-size-bytes);
 *   - the data directory (write.data.path, else <location>/data) and the
 *     partition directory "name=value/..." made as Java's
 *     PartitionSpec.partitionToPath makes it: each value's human string
 *     (Transform.toHumanString: dates "2024-01-31", months "2024-01", hours
 *     "2024-01-31-13", timestamps ISO "2024-01-31T13:45:00.000001", binary
 *     base64, null "null") URL-encoded as java.net.URLEncoder does (space ->
 *     '+', unreserved "a-zA-Z0-9.-*_" kept, everything else %XX of UTF-8).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "floe/format.h"
#include "iceberg/write_internal.h"

void ice_vector_value(const fl_vector *v, uint32_t row, fl_value *out)
{
    fl_unified u;
    fl_vector_unify(v, &u);
    memset(out, 0, sizeof *out);
    out->type = *v->type;
    out->type.nchildren = 0;
    out->type.children = NULL;
    if (!fl_unified_is_valid(&u, row)) {
        out->is_null = true;
        return;
    }
    uint32_t r = fl_unified_row(&u, row);
    const fl_vector *b = u.base;
    switch (v->type->id) {
    case FL_TYPE_BOOLEAN: out->v.b = b->data[r] != 0; break;
    case FL_TYPE_INT32:
    case FL_TYPE_DATE: memcpy(&out->v.i32, b->data + (size_t)r * 4, 4); break;
    case FL_TYPE_INT64:
    case FL_TYPE_TIME:
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ:
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS: memcpy(&out->v.i64, b->data + (size_t)r * 8, 8); break;
    case FL_TYPE_FLOAT32: memcpy(&out->v.f32, b->data + (size_t)r * 4, 4); break;
    case FL_TYPE_FLOAT64: memcpy(&out->v.f64, b->data + (size_t)r * 8, 8); break;
    case FL_TYPE_DECIMAL: memcpy(&out->v.dec, b->data + (size_t)r * 16, 16); break;
    case FL_TYPE_UUID:
    case FL_TYPE_FIXED: {
        size_t w = fl_type_width(v->type);
        out->v.bytes.ptr = b->data + (size_t)r * w;
        out->v.bytes.len = w;
        break;
    }
    case FL_TYPE_STRING:
    case FL_TYPE_BINARY: {
        size_t len;
        out->v.bytes.ptr = fl_vector_bytes(b, r, &len);
        out->v.bytes.len = len;
        break;
    }
    default: out->is_null = true; break; /* nested: not a scalar */
    }
}

int64_t ice_prop_i64(const fl_ice_metadata *m, const char *key, int64_t dflt)
{
    const char *s = fl_ice_map_get(&m->properties, key);
    if (!s || !*s)
        return dflt;
    char *end;
    long long v = strtoll(s, &end, 10);
    return *end ? dflt : (int64_t)v;
}

#define ICE_PAGE_ROWS 8192

void ice_parquet_options(const fl_ice_metadata *m, fl_parquet_write_options *o)
{
    memset(o, 0, sizeof *o);
    const char *codec = fl_ice_map_get(&m->properties, "write.parquet.compression-codec");
    o->codec = FL_PARQUET_ZSTD;
    if (codec) {
        static const struct {
            const char *name;
            fl_parquet_codec c;
        } names[] = {{"zstd", FL_PARQUET_ZSTD},        {"snappy", FL_PARQUET_SNAPPY},
                     {"gzip", FL_PARQUET_GZIP},        {"lz4", FL_PARQUET_LZ4_RAW},
                     {"brotli", FL_PARQUET_BROTLI},    {"uncompressed", FL_PARQUET_UNCOMPRESSED},
                     {"none", FL_PARQUET_UNCOMPRESSED}};
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (!strcasecmp(codec, names[i].name))
                o->codec = names[i].c;
    }
    o->codec_set = true;
    int64_t level = ice_prop_i64(m, "write.parquet.compression-level", 0);
    if (level >= -100 && level <= 100)
        o->compression_level = (int)level;
    int64_t rg = ice_prop_i64(m, "write.parquet.row-group-size-bytes", 128ll << 20);
    o->row_group_bytes = rg > 0 ? (uint64_t)rg : 128ull << 20;
    int64_t pg = ice_prop_i64(m, "write.parquet.page-size-bytes", 1 << 20);
    o->page_bytes = pg > 0 && pg < (1ll << 30) ? (uint32_t)pg : 1u << 20;
    /* Java's default is 20000 rows; 8192 makes a point read through the page
     * index decompress 2.4x less per column for under 1% more scan work
     * (bench/PGWIRE.md) */
    int64_t pr = ice_prop_i64(m, "write.parquet.page-row-limit", ICE_PAGE_ROWS);
    o->page_rows = pr > 0 && pr < (1ll << 31) ? (uint32_t)pr : ICE_PAGE_ROWS;
    int64_t dict = ice_prop_i64(m, "write.parquet.dict-size-bytes", 2 << 20);
    o->dictionary_max_bytes = dict > 0 && dict < (1ll << 31) ? (uint32_t)dict : 2u << 20;
}

const char *ice_data_dir(const fl_ice_metadata *m, fl_arena *a)
{
    const char *p = fl_ice_map_get(&m->properties, "write.data.path");
    if (!p || !*p)
        p = fl_ice_map_get(&m->properties, "write.folder-storage.path"); /* deprecated name */
    if (p && *p) {
        size_t n = strlen(p);
        while (n > 1 && p[n - 1] == '/')
            n--;
        return fl_arena_strndup(a, p, n);
    }
    return fl_arena_sprintf(a, "%s/data", m->location);
}

/* ---- human strings ---- */

static int64_t fdiv(int64_t a, int64_t b)
{
    return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

static void fmt_ts(int64_t v, int64_t per_sec, bool tz, char *buf, size_t cap)
{
    int64_t secs = fdiv(v, per_sec), frac = v - secs * per_sec;
    int64_t days = fdiv(secs, 86400), sod = secs - days * 86400;
    char date[32];
    fl_format_iso_date(days, date, sizeof date);
    int n = snprintf(buf, cap, "%sT%02d:%02d:%02d", date, (int)(sod / 3600), (int)(sod / 60 % 60),
                     (int)(sod % 60));
    if (frac && n > 0 && (size_t)n < cap)
        n += snprintf(buf + n, cap - (size_t)n, per_sec == 1000000 ? ".%06" PRId64 : ".%09" PRId64,
                      frac);
    if (tz && n > 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, "+00:00");
}

static void fmt_base64(const uint8_t *p, size_t n, char *buf, size_t cap)
{
    static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < n && o + 5 < cap; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
                     (i + 2 < n ? p[i + 2] : 0);
        buf[o++] = tbl[v >> 18 & 63];
        buf[o++] = tbl[v >> 12 & 63];
        buf[o++] = i + 1 < n ? tbl[v >> 6 & 63] : '=';
        buf[o++] = i + 2 < n ? tbl[v & 63] : '=';
    }
    buf[o] = '\0';
}

/* Human string of a partition value of transform t (Java's toHumanString). */
static const char *human(const fl_ice_transform *t, const fl_value *v, fl_arena *a)
{
    char buf[256];
    if (v->is_null)
        return "null";
    switch (t->kind) {
    case FL_ICE_TRANSFORM_YEAR: return fl_arena_sprintf(a, "%d", (int)(1970 + v->v.i32));
    case FL_ICE_TRANSFORM_MONTH: {
        int64_t y = fdiv(v->v.i32, 12), mo = v->v.i32 - y * 12;
        return fl_arena_sprintf(a, "%04" PRId64 "-%02d", 1970 + y, (int)mo + 1);
    }
    case FL_ICE_TRANSFORM_DAY:
        fl_format_iso_date(v->v.i32, buf, sizeof buf);
        return fl_arena_strdup(a, buf);
    case FL_ICE_TRANSFORM_HOUR: {
        int64_t days = fdiv(v->v.i32, 24);
        fl_format_iso_date(days, buf, sizeof buf);
        return fl_arena_sprintf(a, "%s-%02d", buf, (int)(v->v.i32 - days * 24));
    }
    default: break;
    }
    return ice_value_text(v, a);
}

/* The human string of a scalar value (identity transform); decimal, date,
 * time, timestamp and uuid are also their single-value JSON text. */
const char *ice_value_text(const fl_value *v, fl_arena *a)
{
    char buf[256];
    if (v->is_null)
        return "null";
    switch (v->type.id) {
    case FL_TYPE_BOOLEAN: return v->v.b ? "true" : "false";
    case FL_TYPE_INT32: return fl_arena_sprintf(a, "%d", (int)v->v.i32);
    case FL_TYPE_INT64: return fl_arena_sprintf(a, "%" PRId64, v->v.i64);
    case FL_TYPE_FLOAT32: return fl_arena_sprintf(a, "%.9g", (double)v->v.f32);
    case FL_TYPE_FLOAT64: return fl_arena_sprintf(a, "%.17g", v->v.f64);
    case FL_TYPE_DECIMAL: fl_format_decimal(v->v.dec, v->type.scale, buf, sizeof buf); break;
    case FL_TYPE_DATE: fl_format_iso_date(v->v.i32, buf, sizeof buf); break;
    case FL_TYPE_TIME: {
        int64_t s = v->v.i64 / 1000000, us = v->v.i64 % 1000000;
        snprintf(buf, sizeof buf, "%02d:%02d:%02d", (int)(s / 3600), (int)(s / 60 % 60),
                 (int)(s % 60));
        if (us)
            snprintf(buf + 8, sizeof buf - 8, ".%06" PRId64, us);
        break;
    }
    case FL_TYPE_TIMESTAMP: fmt_ts(v->v.i64, 1000000, false, buf, sizeof buf); break;
    case FL_TYPE_TIMESTAMPTZ: fmt_ts(v->v.i64, 1000000, true, buf, sizeof buf); break;
    case FL_TYPE_TIMESTAMP_NS: fmt_ts(v->v.i64, 1000000000, false, buf, sizeof buf); break;
    case FL_TYPE_TIMESTAMPTZ_NS: fmt_ts(v->v.i64, 1000000000, true, buf, sizeof buf); break;
    case FL_TYPE_STRING: return fl_arena_strndup(a, (const char *)v->v.bytes.ptr, v->v.bytes.len);
    case FL_TYPE_UUID: {
        const uint8_t *b = v->v.bytes.ptr;
        size_t o = 0;
        for (int i = 0; i < 16; i++) {
            if (i == 4 || i == 6 || i == 8 || i == 10)
                buf[o++] = '-';
            o += (size_t)snprintf(buf + o, sizeof buf - o, "%02x", b[i]);
        }
        break;
    }
    case FL_TYPE_FIXED:
    case FL_TYPE_BINARY:
        fmt_base64(v->v.bytes.ptr, v->v.bytes.len > 180 ? 180 : v->v.bytes.len, buf, sizeof buf);
        break;
    default: return "null";
    }
    return fl_arena_strdup(a, buf);
}

/* java.net.URLEncoder.encode(s, UTF-8) */
static char *url_encode(const char *s, fl_arena *a)
{
    size_t n = strlen(s);
    char *out = fl_arena_alloc(a, n * 3 + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            c == '.' || c == '-' || c == '*' || c == '_')
            out[o++] = (char)c;
        else if (c == ' ')
            out[o++] = '+';
        else
            o += (size_t)snprintf(out + o, 4, "%%%02X", c);
    }
    out[o] = '\0';
    return out;
}

const char *ice_partition_path(const fl_ice_metadata *m, const fl_ice_partition_spec *spec,
                               const fl_value *values, fl_arena *a)
{
    (void)m;
    const char *path = "";
    for (uint32_t i = 0; i < spec->nfields; i++) {
        fl_ice_transform t;
        if (fl_ice_transform_parse(spec->fields[i].transform, &t, NULL) != FL_OK)
            t.kind = FL_ICE_TRANSFORM_UNKNOWN;
        const char *h = human(&t, &values[i], a);
        const char *name = url_encode(spec->fields[i].name, a);
        const char *val = h ? url_encode(h, a) : NULL;
        if (!name || !val)
            return NULL;
        path = fl_arena_sprintf(a, "%s%s%s=%s", path, i ? "/" : "", name, val);
        if (!path)
            return NULL;
    }
    return path;
}

/* write.format.default = orc: ORC data files, with write.orc.* settings
 * named as Iceberg's Java writer names them (its default codec is zlib;
 * floe's is zstd, as for Parquet). */
bool ice_writes_orc(const fl_ice_metadata *m)
{
    const char *f = fl_ice_map_get(&m->properties, "write.format.default");
    return f && !strcasecmp(f, "orc");
}

void ice_orc_options(const fl_ice_metadata *m, fl_orc_write_options *o)
{
    memset(o, 0, sizeof *o);
    o->compression = FL_ORC_ZSTD;
    o->compression_set = true;
    const char *codec = fl_ice_map_get(&m->properties, "write.orc.compression-codec");
    if (codec) {
        static const struct {
            const char *name;
            fl_orc_compression c;
        } names[] = {{"zstd", FL_ORC_ZSTD}, {"snappy", FL_ORC_SNAPPY}, {"zlib", FL_ORC_ZLIB},
                     {"lz4", FL_ORC_LZ4},   {"none", FL_ORC_NONE},     {"uncompressed", FL_ORC_NONE}};
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (!strcasecmp(codec, names[i].name))
                o->compression = names[i].c;
    }
    int64_t stripe = ice_prop_i64(m, "write.orc.stripe-size-bytes", 64ll << 20);
    o->stripe_bytes = stripe > 0 ? (uint64_t)stripe : 64ull << 20;
}
