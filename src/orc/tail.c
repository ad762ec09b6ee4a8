/*
 * tail.c - opening an ORC file: the last byte is the PostScript length; the
 * PostScript (never compressed) gives the compression, the block size and
 * the lengths of the Footer and Metadata that precede it. One ranged read of
 * the last 16 KiB usually holds all three; otherwise exactly the missing
 * bytes are read once more.
 *
 *   "ORC" ... stripes ... | Metadata | Footer | PostScript | ps length (1 byte)
 *
 * The footer's stripes are checked to lie inside the content region, in
 * order and without overlap; the type list is validated in schema.c.
 */
#include <stdlib.h>
#include <string.h>

#include "orc/orc_int.h"

#define TAIL_READ (16u * 1024)
#define MAX_BLOCK ((uint64_t)64 << 20)

static fl_status postscript(fl_orc_reader *r, const uint8_t *p, size_t len, fl_error *err)
{
    orc_pb c;
    orc_pbf f;
    int k = 0;
    orc_pb_init(&c, p, len, "PostScript");
    r->info.block_size = 256 * 1024;
    uint32_t *ver = NULL, nver = 0, cap = 0;
    bool magic = false;
    while ((k = orc_pb_next(&c, &f, err)) == 1) {
        switch (f.num) {
        case 1: r->info.footer_length = f.v; break;
        case 2: r->info.compression = (fl_orc_compression)(f.v > 100 ? 100 : f.v); break;
        case 3: r->info.block_size = f.v; break;
        case 4: FL_TRY(orc_pb_u32s(&r->arena, &f, &ver, &nver, &cap, err)); break;
        case 5: r->info.metadata_length = f.v; break;
        case 6: r->info.writer_version = (uint32_t)f.v; break;
        case 8000: magic = f.wt == 2 && f.len == 3 && memcmp(f.ptr, "ORC", 3) == 0; break;
        default: break;
        }
    }
    if (k < 0)
        return (fl_status)k;
    if (!magic) { /* early writers left it out: the file must then start with "ORC" */
        uint8_t head[3] = {0};
        FL_TRY(fl_file_read_at(r->file, 0, head, 3, err));
        if (memcmp(head, "ORC", 3) != 0)
            return fl_errorf(err, FL_ECORRUPT,
                             "not an ORC file (no \"ORC\" magic in the PostScript or at byte 0)");
    }
    if (nver >= 1)
        r->info.version_major = ver[0];
    if (nver >= 2)
        r->info.version_minor = ver[1];
    switch (r->info.compression) {
    case FL_ORC_NONE:
    case FL_ORC_ZLIB:
    case FL_ORC_SNAPPY:
    case FL_ORC_LZ4:
    case FL_ORC_ZSTD: break;
    case FL_ORC_LZO: return fl_errorf(err, FL_EUNSUPPORTED, "LZO compression is not supported");
    default:
        return fl_errorf(err, FL_ECORRUPT, "unknown compression kind %d", (int)r->info.compression);
    }
    if (r->info.compression != FL_ORC_NONE &&
        (r->info.block_size == 0 || r->info.block_size > MAX_BLOCK))
        return fl_errorf(err, FL_ECORRUPT, "compression block size %llu out of range",
                         (unsigned long long)r->info.block_size);
    return FL_OK;
}

static fl_status stripe_info(const orc_pbf *f, fl_orc_stripe *s, fl_error *err)
{
    orc_pb c;
    orc_pbf g;
    int k = 0;
    orc_pb_init(&c, f->ptr, f->len, "StripeInformation");
    memset(s, 0, sizeof *s);
    while ((k = orc_pb_next(&c, &g, err)) == 1) {
        switch (g.num) {
        case 1: s->offset = g.v; break;
        case 2: s->index_length = g.v; break;
        case 3: s->data_length = g.v; break;
        case 4: s->footer_length = g.v; break;
        case 5: s->rows = g.v; break;
        case 6:
        case 7: return fl_errorf(err, FL_EUNSUPPORTED, "encrypted ORC stripes are not supported");
        default: break;
        }
    }
    return k < 0 ? (fl_status)k : FL_OK;
}

/* A StringPair / UserMetadataItem message (1: key, 2: value, both bytes)
 * into a, its strings copied into the reader's arena. */
static fl_status key_value(fl_orc_reader *r, const orc_pbf *f, const char *what, fl_orc_attr *a,
                           fl_error *err)
{
    a->key = a->value = "";
    orc_pb m;
    orc_pbf h;
    int j = 0;
    orc_pb_init(&m, f->ptr, f->len, what);
    while ((j = orc_pb_next(&m, &h, err)) == 1)
        if ((h.num == 1 || h.num == 2) && h.wt == 2) {
            char *s = fl_arena_strndup(&r->arena, (const char *)h.ptr, h.len);
            if (!s)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            *(h.num == 1 ? &a->key : &a->value) = s;
        }
    return j < 0 ? (fl_status)j : FL_OK;
}

static fl_status type_entry(fl_orc_reader *r, const orc_pbf *f, fl_orc_type *t, fl_error *err)
{
    orc_pb c;
    orc_pbf g;
    int k = 0;
    orc_pb_init(&c, f->ptr, f->len, "Type");
    memset(t, 0, sizeof *t);
    uint32_t scap = 0, ncap = 0, nnames = 0, acap = 0;
    const char **names = NULL;
    fl_orc_attr *attrs = NULL;
    uint32_t *subs = NULL;
    while ((k = orc_pb_next(&c, &g, err)) == 1) {
        switch (g.num) {
        case 1:
            if (g.v >= FL_ORC_KIND__COUNT)
                return fl_errorf(err, FL_EUNSUPPORTED, "unknown ORC type kind %llu",
                                 (unsigned long long)g.v);
            t->kind = (fl_orc_kind)g.v;
            break;
        case 2: FL_TRY(orc_pb_u32s(&r->arena, &g, &subs, &t->nsubtypes, &scap, err)); break;
        case 3:
        case 7: {
            if (g.wt != 2)
                return fl_errorf(err, FL_ECORRUPT, "Type: string field with wire type %u", g.wt);
            uint32_t *n = g.num == 3 ? &nnames : &t->nattrs, *cp = g.num == 3 ? &ncap : &acap;
            size_t el = g.num == 3 ? sizeof(char *) : sizeof(fl_orc_attr);
            void **arr = g.num == 3 ? (void **)&names : (void **)&attrs;
            if (*n == *cp) {
                if (*cp >= (1u << 20))
                    return fl_errorf(err, FL_ELIMIT, "Type: too many names or attributes");
                uint32_t nc = *cp ? *cp * 2 : 8;
                void *na = fl_arena_alloc(&r->arena, nc * el);
                if (!na)
                    return fl_errorf(err, FL_ENOMEM, "out of memory");
                if (*n)
                    memcpy(na, *arr, *n * el);
                *arr = na;
                *cp = nc;
            }
            if (g.num == 3) {
                names[nnames] = fl_arena_strndup(&r->arena, (const char *)g.ptr, g.len);
                if (!names[nnames++])
                    return fl_errorf(err, FL_ENOMEM, "out of memory");
                break;
            }
            FL_TRY(key_value(r, &g, "StringPair", &attrs[t->nattrs++], err));
            break;
        }
        case 4: t->max_length = (uint32_t)(g.v > UINT32_MAX ? UINT32_MAX : g.v); break;
        case 5: t->precision = (uint32_t)(g.v > 1000 ? 1000 : g.v); break;
        case 6: t->scale = (uint32_t)(g.v > 1000 ? 1000 : g.v); break;
        default: break;
        }
    }
    if (k < 0)
        return (fl_status)k;
    t->subtypes = subs;
    t->attrs = attrs;
    if (t->kind == FL_ORC_STRUCT && nnames != t->nsubtypes)
        return fl_errorf(err, FL_ECORRUPT, "struct type has %u subtypes but %u field names",
                         t->nsubtypes, nnames);
    t->field_names = names;
    return FL_OK;
}

/* Grows an arena array of el-byte elements to hold one more. */
static void *grow(fl_arena *a, void *arr, uint32_t n, uint32_t *cap, size_t el)
{
    if (n < *cap)
        return arr;
    if (*cap >= (1u << 24))
        return NULL;
    uint32_t nc = *cap ? *cap * 2 : 16;
    void *na = fl_arena_calloc(a, nc, el);
    if (na && n)
        memcpy(na, arr, n * el);
    *cap = nc;
    return na;
}

static fl_status footer(fl_orc_reader *r, const uint8_t *p, size_t len, fl_error *err)
{
    orc_pb c;
    orc_pbf f;
    int k = 0;
    orc_pb_init(&c, p, len, "Footer");
    uint32_t scap = 0, tcap = 0, stcap = 0, ucap = 0, nstats = 0;
    const orc_pbf *stat_fields = NULL;
    orc_pbf *stats = NULL;
    fl_orc_attr *um = NULL;
    while ((k = orc_pb_next(&c, &f, err)) == 1) {
        if ((f.num == 3 || f.num == 4 || f.num == 5 || f.num == 7 || f.num == 12) && f.wt != 2)
            return fl_errorf(err, FL_ECORRUPT, "Footer: field %u has wire type %u", f.num, f.wt);
        switch (f.num) {
        case 2: r->info.content_length = f.v; break;
        case 3:
            r->stripes = grow(&r->arena, r->stripes, r->nstripes, &scap, sizeof *r->stripes);
            if (!r->stripes)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            FL_TRY(stripe_info(&f, &r->stripes[r->nstripes++], err));
            break;
        case 4:
            r->types = grow(&r->arena, r->types, r->ntypes, &tcap, sizeof *r->types);
            if (!r->types)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            FL_TRY(type_entry(r, &f, &r->types[r->ntypes++], err));
            break;
        case 5: {
            um = grow(&r->arena, um, r->info.nuser_metadata, &ucap, sizeof *um);
            if (!um)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            FL_TRY(key_value(r, &f, "UserMetadataItem", &um[r->info.nuser_metadata++], err));
            break;
        }
        case 6: r->nrows = f.v; break;
        case 7:
            stats = grow(&r->arena, stats, nstats, &stcap, sizeof *stats);
            if (!stats)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            stats[nstats++] = f;
            break;
        case 8: r->info.row_index_stride = (uint32_t)f.v; break;
        case 9: r->info.writer = (uint32_t)f.v; break;
        case 10: return fl_errorf(err, FL_EUNSUPPORTED, "encrypted ORC files are not supported");
        case 12:
            r->info.software_version = fl_arena_strndup(&r->arena, (const char *)f.ptr, f.len);
            break;
        default: break;
        }
    }
    if (k < 0)
        return (fl_status)k;
    r->info.user_metadata = um;
    stat_fields = stats;
    if (nstats && nstats == r->ntypes) {
        r->file_stats = fl_arena_calloc(&r->arena, nstats, sizeof *r->file_stats);
        if (!r->file_stats)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (uint32_t i = 0; i < nstats; i++)
            if (orc_parse_stats(&r->arena, stat_fields[i].ptr, stat_fields[i].len,
                                &r->file_stats[i], err) != FL_OK)
                return fl_error_prefix(err, "Footer statistics of column %u", i);
    }
    return FL_OK;
}

static fl_status metadata(fl_orc_reader *r, const uint8_t *p, size_t len, fl_error *err)
{
    orc_pb c;
    orc_pbf f;
    int k = 0;
    uint32_t s = 0;
    orc_pb_init(&c, p, len, "Metadata");
    orc_stripe_stats *ss = fl_arena_calloc(&r->arena, r->nstripes + 1, sizeof *ss);
    if (!ss)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    while ((k = orc_pb_next(&c, &f, err)) == 1) {
        if (f.num != 1 || f.wt != 2)
            continue;
        if (s >= r->nstripes)
            return fl_errorf(err, FL_ECORRUPT, "Metadata has more stripe statistics than stripes");
        ss[s].cols = fl_arena_calloc(&r->arena, r->ntypes + 1, sizeof *ss[s].cols);
        if (!ss[s].cols)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        orc_pb sc;
        orc_pbf g;
        int j = 0;
        uint32_t col = 0;
        orc_pb_init(&sc, f.ptr, f.len, "StripeStatistics");
        while ((j = orc_pb_next(&sc, &g, err)) == 1) {
            if (g.num != 1 || g.wt != 2)
                continue;
            if (col >= r->ntypes)
                return fl_errorf(err, FL_ECORRUPT, "stripe %u statistics: more columns than types",
                                 s);
            if (orc_parse_stats(&r->arena, g.ptr, g.len, &ss[s].cols[col++], err) != FL_OK)
                return fl_error_prefix(err, "Metadata: stripe %u statistics of column %u", s,
                                       col - 1);
        }
        if (j < 0)
            return (fl_status)j;
        if (col != r->ntypes)
            ss[s].cols = NULL; /* incomplete: not used for pruning */
        s++;
    }
    if (k < 0)
        return (fl_status)k;
    if (s == r->nstripes)
        r->stripe_stats = ss;
    return FL_OK;
}

static fl_status check_stripes(fl_orc_reader *r, uint64_t content_end, fl_error *err)
{
    uint64_t prev_end = 3, rows = 0;
    for (uint32_t i = 0; i < r->nstripes; i++) {
        const fl_orc_stripe *s = &r->stripes[i];
        uint64_t len = s->index_length + s->data_length;
        if (len < s->index_length || len + s->footer_length < len || s->offset < prev_end ||
            s->offset > content_end || len + s->footer_length > content_end - s->offset)
            return fl_errorf(err, FL_ECORRUPT,
                             "stripe %u (offset %llu, %llu + %llu + %llu bytes) lies outside the "
                             "file's data region (bytes 3..%llu) or overlaps the previous one",
                             i, (unsigned long long)s->offset, (unsigned long long)s->index_length,
                             (unsigned long long)s->data_length,
                             (unsigned long long)s->footer_length, (unsigned long long)content_end);
        prev_end = s->offset + len + s->footer_length;
        rows += s->rows;
    }
    if (r->nrows == 0) /* some early writers left numberOfRows out: Java counts the stripes */
        r->nrows = rows;
    if (rows != r->nrows)
        return fl_errorf(err, FL_ECORRUPT, "stripes hold %llu rows but the footer says %llu",
                         (unsigned long long)rows, (unsigned long long)r->nrows);
    return FL_OK;
}

static fl_status decode_tail(fl_orc_reader *r, const uint8_t *tail, uint64_t tail_off,
                             fl_error *err)
{
    fl_file *f = r->file;
    uint64_t size = f->size;
    uint32_t ps_len = tail[size - 1 - tail_off];
    if (ps_len == 0 || ps_len + 1 > size - 3)
        return fl_errorf(err, FL_ECORRUPT, "PostScript length %u does not fit the file", ps_len);
    FL_TRY(postscript(r, tail + (size - 1 - ps_len - tail_off), ps_len, err));
    uint64_t fm = r->info.footer_length + r->info.metadata_length;
    if (r->info.footer_length > FL_ORC_MAX_STREAM || r->info.metadata_length > FL_ORC_MAX_STREAM ||
        fm > size - 3 - 1 - ps_len)
        return fl_errorf(
            err, FL_ECORRUPT, "footer (%llu bytes) and metadata (%llu bytes) do not fit the file",
            (unsigned long long)r->info.footer_length, (unsigned long long)r->info.metadata_length);
    uint64_t meta_off = size - 1 - ps_len - fm;
    uint8_t *own = NULL;
    const uint8_t *fmp = NULL;
    if (meta_off >= tail_off) {
        fmp = tail + (meta_off - tail_off);
    } else {
        own = malloc(fm ? fm : 1);
        if (!own)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        fl_status rc = fl_file_read_at(f, meta_off, own, fm, err);
        if (rc) {
            free(own);
            return rc;
        }
        fmp = own;
    }
    uint8_t *foot = NULL, *meta = NULL;
    size_t foot_len = 0, meta_len = 0;
    fl_status rc = orc_decompress(r, fmp + r->info.metadata_length, r->info.footer_length, &foot,
                                  &foot_len, "Footer", err);
    if (rc == FL_OK)
        rc = footer(r, foot, foot_len, err);
    if (rc == FL_OK)
        rc = orc_build_schema(r, err);
    if (rc == FL_OK)
        rc = check_stripes(r, meta_off, err);
    if (rc == FL_OK && r->info.metadata_length) {
        rc = orc_decompress(r, fmp, r->info.metadata_length, &meta, &meta_len, "Metadata", err);
        if (rc == FL_OK)
            rc = metadata(r, meta, meta_len, err);
    }
    free(foot);
    free(meta);
    free(own);
    return rc;
}

fl_status fl_orc_open(fl_file *f, fl_orc_reader **out, fl_error *err)
{
    *out = NULL;
    const char *path = f->path ? f->path : "orc";
    if (f->size < 4 + 1)
        return fl_errorf(err, FL_ECORRUPT, "%s: not an ORC file (%llu bytes)", path,
                         (unsigned long long)f->size);
    fl_orc_reader *r = calloc(1, sizeof *r);
    if (!r)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_arena_init(&r->arena, 0);
    r->file = f;
    uint64_t n = f->size < TAIL_READ ? f->size : TAIL_READ;
    uint8_t *tail = malloc(n);
    fl_status rc = tail ? fl_file_read_at(f, f->size - n, tail, n, err)
                        : fl_errorf(err, FL_ENOMEM, "out of memory");
    if (rc == FL_OK && n == f->size && memcmp(tail, "ORC", 3) != 0)
        rc = fl_errorf(err, FL_ECORRUPT, "not an ORC file (no leading \"ORC\" magic)");
    if (rc == FL_OK)
        rc = decode_tail(r, tail, f->size - n, err);
    free(tail);
    if (rc != FL_OK) {
        fl_orc_close(r);
        return fl_error_prefix(err, "%s", path);
    }
    *out = r;
    return FL_OK;
}

void fl_orc_close(fl_orc_reader *r)
{
    if (!r)
        return;
    fl_arena_free(&r->arena);
    free(r);
}

const fl_schema *fl_orc_schema(const fl_orc_reader *r)
{
    return &r->schema;
}
uint64_t fl_orc_num_rows(const fl_orc_reader *r)
{
    return r->nrows;
}
uint32_t fl_orc_num_stripes(const fl_orc_reader *r)
{
    return r->nstripes;
}
const fl_orc_stripe *fl_orc_stripe_info(const fl_orc_reader *r, uint32_t i)
{
    return i < r->nstripes ? &r->stripes[i] : NULL;
}
uint32_t fl_orc_num_types(const fl_orc_reader *r)
{
    return r->ntypes;
}
const fl_orc_type *fl_orc_type_at(const fl_orc_reader *r, uint32_t column)
{
    return column < r->ntypes ? &r->types[column] : NULL;
}
const fl_orc_file_info *fl_orc_info(const fl_orc_reader *r)
{
    return &r->info;
}
uint32_t fl_orc_field_column(const fl_orc_reader *r, uint32_t field)
{
    return field < r->schema.nfields ? r->field_columns[field] : 0;
}

const fl_orc_stats *fl_orc_column_stats(const fl_orc_reader *r, int32_t stripe, uint32_t column)
{
    if (column >= r->ntypes)
        return NULL;
    if (stripe < 0)
        return r->file_stats ? &r->file_stats[column] : NULL;
    if (!r->stripe_stats || (uint32_t)stripe >= r->nstripes || !r->stripe_stats[stripe].cols)
        return NULL;
    return &r->stripe_stats[stripe].cols[column];
}

const char *fl_orc_kind_name(fl_orc_kind k)
{
    static const char *const names[FL_ORC_KIND__COUNT] = {"boolean",
                                                          "tinyint",
                                                          "smallint",
                                                          "int",
                                                          "bigint",
                                                          "float",
                                                          "double",
                                                          "string",
                                                          "binary",
                                                          "timestamp",
                                                          "array",
                                                          "map",
                                                          "struct",
                                                          "uniontype",
                                                          "decimal",
                                                          "date",
                                                          "varchar",
                                                          "char",
                                                          "timestamp with local time zone"};
    return (unsigned)k < FL_ORC_KIND__COUNT ? names[k] : "unknown";
}

const char *fl_orc_compression_name(fl_orc_compression c)
{
    switch (c) {
    case FL_ORC_NONE: return "NONE";
    case FL_ORC_ZLIB: return "ZLIB";
    case FL_ORC_SNAPPY: return "SNAPPY";
    case FL_ORC_LZO: return "LZO";
    case FL_ORC_LZ4: return "LZ4";
    case FL_ORC_ZSTD: return "ZSTD";
    }
    return "unknown";
}
