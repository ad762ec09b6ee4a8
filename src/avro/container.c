/*
 * container.c - Avro object container files: reader and writer.
 *
 * Spec: Avro 1.11 "Object Container Files". Layout:
 *
 *   header:  4 bytes magic "Obj" 0x01
 *            metadata: map<bytes> in the usual map block encoding (long count,
 *              [long byte size if count < 0], then count x (string key, bytes
 *              value), ..., long 0); keys avro.schema (JSON text) and
 *              avro.codec ("null" if absent) are reserved
 *            16 bytes sync marker
 *   blocks:  long record count, long byte size of the (compressed) data,
 *            the data, the 16-byte sync marker again
 *
 * Codecs: null; deflate (raw RFC 1951, no zlib header); snappy (each block's
 * snappy data is followed by the 4-byte big-endian CRC-32 of the
 * uncompressed data); zstandard; bzip2 (bzip2.c). Others are rejected with
 * FL_EUNSUPPORTED naming the codec.
 *
 * The reader pulls bytes from an fl_file with ranged reads: the header with
 * a growing window, then each block with two reads (its two varints, then
 * data + sync). Block sizes are bounded by fl_avro_limits.max_block_bytes
 * before allocating, compressed and decompressed.
 *
 * Trailing bytes: a file whose bytes after the last sync marker cannot even
 * hold a block header (its varints run off the end) ends there, as Java's
 * DataFileStream and avsc treat it (some writers leave a stray newline).
 * The count is kept (fl_avro_reader_trailing_bytes) so tools can show it. A
 * complete header whose block is cut short is still an error.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "avro/avro_internal.h"
#include "floe/compress.h"

typedef enum codec_id { C_NULL, C_DEFLATE, C_SNAPPY, C_ZSTD, C_BZIP2 } codec_id;

static int codec_lookup(const char *name, size_t len)
{
    static const char *const names[] = {"null", "deflate", "snappy", "zstandard", "bzip2"};
    for (int i = 0; i < 5; i++)
        if (strlen(names[i]) == len && !memcmp(names[i], name, len))
            return i;
    return -1;
}

bool fl_avro_codec_supported(const char *name)
{
    int c = codec_lookup(name, strlen(name));
    return c >= 0 && (c != C_BZIP2 || avro_bzip2_available());
}

struct fl_avro_reader {
    fl_file *f;
    fl_avro_limits lim;
    fl_arena arena; /* schema, metadata */
    const fl_avro_schema *schema;
    const fl_avro_resolver *resolver; /* NULL: records in the writer's shape */
    const char *schema_json;
    size_t schema_len;
    const char *codec_name;
    codec_id codec;
    uint8_t sync[16];
    fl_avro_meta *meta;
    size_t nmeta;
    uint64_t header_size;
    uint64_t pos; /* file offset of the next block */
    /* read-ahead window: file bytes [win_off, win_off + win_len), so small
     * blocks (Iceberg writers often emit one record per block) cost one
     * ranged read per window instead of two per block */
    uint8_t *win;
    size_t win_len, win_cap;
    uint64_t win_off;
    /* current block */
    uint8_t *raw; /* compressed bytes + sync (malloc) */
    size_t raw_cap;
    uint8_t *data; /* decompressed (malloc), or == raw for codec null */
    size_t data_cap, data_len;
    uint64_t block_offset; /* file offset of the block data */
    int64_t left;          /* records left in the block */
    size_t dpos;           /* decode position in data */
    uint64_t trailing;     /* bytes after the last block that hold no header */
};

/* ------------------------------------------------------------- header */

typedef struct hdr {
    const uint8_t *b;
    size_t len, pos;
    bool truncated;
} hdr;

static fl_status hdr_long(hdr *h, int64_t *v, fl_error *err)
{
    size_t at = h->pos;
    int rc = avro_read_long(h->b, h->len, &h->pos, v);
    if (rc == -1) {
        h->truncated = true;
        return fl_errorf(err, FL_ECORRUPT, "truncated header at byte offset %zu", at);
    }
    if (rc == -2)
        return fl_errorf(err, FL_ECORRUPT, "header varint overflows at byte offset %zu", at);
    return FL_OK;
}

static fl_status hdr_bytes(hdr *h, const uint8_t **p, size_t *n, size_t max, fl_error *err)
{
    int64_t len;
    size_t at = h->pos;
    FL_TRY(hdr_long(h, &len, err));
    if (len < 0 || (uint64_t)len > max)
        return fl_errorf(err, FL_ECORRUPT,
                         "header metadata length %" PRId64 " invalid at byte offset %zu", len, at);
    if ((uint64_t)len > h->len - h->pos) {
        h->truncated = true;
        return fl_errorf(err, FL_ECORRUPT, "truncated header metadata at byte offset %zu", at);
    }
    *p = h->b + h->pos;
    *n = (size_t)len;
    h->pos += (size_t)len;
    return FL_OK;
}

static fl_status parse_header(fl_avro_reader *r, hdr *h, fl_error *err)
{
    if (h->len < 4) {
        h->truncated = true;
        return fl_errorf(err, FL_ECORRUPT, "file too short for the Avro magic");
    }
    if (memcmp(h->b, "Obj", 3) != 0)
        return fl_errorf(err, FL_ECORRUPT, "not an Avro object container file (bad magic)");
    if (h->b[3] != 1)
        return fl_errorf(err, FL_EUNSUPPORTED,
                         "Avro container version %u is not supported (only version 1; "
                         "pre-1.3 files are an obsolete format)",
                         h->b[3]);
    h->pos = 4;
    size_t cap = 16, n = 0;
    fl_avro_meta *meta = malloc(cap * sizeof *meta);
    if (!meta)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_status rc = FL_OK;
    for (;;) {
        int64_t count;
        size_t at = h->pos;
        if ((rc = hdr_long(h, &count, err)))
            break;
        if (count == 0)
            break;
        if (count < 0) {
            int64_t bytes;
            if (count == INT64_MIN || (rc = hdr_long(h, &bytes, err)))
                break;
            count = -count;
        }
        if ((uint64_t)count > h->len - h->pos + 1 || (uint64_t)count > (1u << 20)) {
            h->truncated = (uint64_t)count <= (1u << 20);
            rc = fl_errorf(err, FL_ECORRUPT,
                           "header metadata count %" PRId64 " invalid at byte offset %zu", count,
                           at);
            break;
        }
        for (int64_t i = 0; i < count && !rc; i++) {
            /* initialized: gcc -O3 cannot see that hdr_bytes sets them on success */
            const uint8_t *k = NULL, *v = NULL;
            size_t kl = 0, vl = 0;
            if ((rc = hdr_bytes(h, &k, &kl, r->lim.max_block_bytes, err)) ||
                (rc = hdr_bytes(h, &v, &vl, r->lim.max_block_bytes, err)))
                break;
            if (n == cap) {
                fl_avro_meta *nm = realloc(meta, 2 * cap * sizeof *meta);
                if (!nm) {
                    rc = fl_errorf(err, FL_ENOMEM, "out of memory");
                    break;
                }
                meta = nm;
                cap *= 2;
            }
            meta[n].key = fl_arena_strndup(&r->arena, (const char *)k, kl);
            meta[n].value = (const uint8_t *)fl_arena_strndup(&r->arena, (const char *)v, vl);
            meta[n].len = vl;
            if (!meta[n].key || !meta[n].value) {
                rc = fl_errorf(err, FL_ENOMEM, "out of memory");
                break;
            }
            n++;
        }
        if (rc)
            break;
    }
    if (!rc && h->len - h->pos < 16) {
        h->truncated = true;
        rc = fl_errorf(err, FL_ECORRUPT, "truncated header: no sync marker");
    }
    if (rc) {
        free(meta);
        return rc;
    }
    memcpy(r->sync, h->b + h->pos, 16);
    h->pos += 16;
    r->meta = fl_arena_alloc(&r->arena, (n ? n : 1) * sizeof *meta);
    if (!r->meta) {
        free(meta);
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    memcpy(r->meta, meta, n * sizeof *meta);
    r->nmeta = n;
    free(meta);
    r->header_size = h->pos;
    return FL_OK;
}

const fl_avro_meta *fl_avro_reader_meta_find(const fl_avro_reader *r, const char *key)
{
    for (size_t i = 0; i < r->nmeta; i++)
        if (!strcmp(r->meta[i].key, key))
            return &r->meta[i];
    return NULL;
}

static fl_status read_header(fl_avro_reader *r, fl_error *err)
{
    uint64_t size = r->f->size;
    size_t want = 64 * 1024;
    uint8_t *buf = NULL;
    for (;;) {
        size_t n = size < want ? (size_t)size : want;
        uint8_t *nb = realloc(buf, n ? n : 1);
        if (!nb) {
            free(buf);
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        }
        buf = nb;
        fl_status rc = n ? fl_file_read_at(r->f, 0, buf, n, err) : FL_OK;
        if (rc) {
            free(buf);
            return rc;
        }
        hdr h = {.b = buf, .len = n};
        fl_arena_reset(&r->arena);
        rc = parse_header(r, &h, err);
        if (rc == FL_OK) { /* the bytes after the header start the read-ahead window */
            r->win = buf;
            r->win_cap = r->win_len = n;
            r->win_off = 0;
            return FL_OK;
        }
        if (!h.truncated || n == size) {
            free(buf);
            return rc;
        }
        if (want >= r->lim.max_block_bytes) {
            free(buf);
            return fl_errorf(err, FL_ELIMIT, "header larger than %zu bytes",
                             r->lim.max_block_bytes);
        }
        want *= 4;
    }
}

fl_status fl_avro_reader_open(fl_file *f, const fl_avro_limits *limits, fl_avro_reader **out,
                              fl_error *err)
{
    fl_avro_reader *r = calloc(1, sizeof *r);
    if (!r)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    r->f = f;
    avro_limits_fill(limits, &r->lim);
    fl_arena_init(&r->arena, 0);
    fl_status rc = read_header(r, err);
    if (rc == FL_OK) {
        const fl_avro_meta *c = fl_avro_reader_meta_find(r, "avro.codec");
        r->codec_name = c ? (const char *)c->value : "null";
        int id = c ? codec_lookup((const char *)c->value, c->len) : C_NULL;
        if (id < 0)
            rc = fl_errorf(err, FL_EUNSUPPORTED, "unsupported codec '%.*s'",
                           (int)(c->len > 64 ? 64 : c->len), (const char *)c->value);
        r->codec = (codec_id)(id < 0 ? 0 : id);
    }
    if (rc == FL_OK) {
        const fl_avro_meta *s = fl_avro_reader_meta_find(r, "avro.schema");
        if (!s)
            rc = fl_errorf(err, FL_ECORRUPT, "header has no avro.schema");
        else {
            r->schema_json = (const char *)s->value;
            r->schema_len = s->len;
            fl_avro_schema *sc;
            rc = fl_avro_schema_parse(&r->arena, r->schema_json, s->len, &sc, err);
            if (rc)
                fl_error_prefix(err, "avro.schema");
            r->schema = sc;
        }
    }
    if (rc) {
        fl_error_prefix(err, "%s", f->path ? f->path : "avro");
        fl_avro_reader_close(r);
        return rc;
    }
    r->pos = r->header_size;
    *out = r;
    return FL_OK;
}

void fl_avro_reader_close(fl_avro_reader *r)
{
    if (!r)
        return;
    if (r->data != r->raw)
        free(r->data);
    free(r->raw);
    free(r->win);
    fl_arena_free(&r->arena);
    free(r);
}

const fl_avro_schema *fl_avro_reader_schema(const fl_avro_reader *r)
{
    return r->schema;
}
const char *fl_avro_reader_schema_json(const fl_avro_reader *r, size_t *len)
{
    if (len)
        *len = r->schema_len;
    return r->schema_json;
}
const char *fl_avro_reader_codec(const fl_avro_reader *r)
{
    return r->codec_name;
}
uint64_t fl_avro_reader_trailing_bytes(const fl_avro_reader *r)
{
    return r->trailing;
}

const uint8_t *fl_avro_reader_sync(const fl_avro_reader *r)
{
    return r->sync;
}
size_t fl_avro_reader_meta_count(const fl_avro_reader *r)
{
    return r->nmeta;
}
const fl_avro_meta *fl_avro_reader_meta(const fl_avro_reader *r, size_t i)
{
    return i < r->nmeta ? &r->meta[i] : NULL;
}
uint64_t fl_avro_reader_header_size(const fl_avro_reader *r)
{
    return r->header_size;
}

/* -------------------------------------------------------------- blocks */

static fl_status decompress_block(fl_avro_reader *r, size_t clen, fl_error *err)
{
    size_t max = r->lim.max_block_bytes;
    switch (r->codec) {
    case C_NULL:
        if (r->data != r->raw)
            free(r->data);
        r->data = r->raw;
        r->data_cap = r->raw_cap;
        r->data_len = clen;
        return FL_OK;
    case C_DEFLATE:
        if (r->data == r->raw) {
            r->data = NULL;
            r->data_cap = 0;
        }
        /* raw RFC 1951; bytes after the final block are ignored, as Java's
         * reader does (Python's writer leaves 3 Adler-32 bytes there) */
        return fl_decompress_alloc(FL_CODEC_DEFLATE, r->raw, clen, &r->data, &r->data_cap,
                                   &r->data_len, max, err);
    case C_ZSTD:
    case C_SNAPPY: {
        if (r->data == r->raw) {
            r->data = NULL;
            r->data_cap = 0;
        }
        size_t in = clen;
        if (r->codec == C_SNAPPY) {
            if (clen < 4)
                return fl_errorf(err, FL_ECORRUPT, "snappy block shorter than its CRC");
            in -= 4;
        }
        fl_codec c = r->codec == C_DEFLATE ? FL_CODEC_DEFLATE
                     : r->codec == C_ZSTD  ? FL_CODEC_ZSTD
                                           : FL_CODEC_SNAPPY;
        FL_TRY(fl_decompress_alloc(c, r->raw, in, &r->data, &r->data_cap, &r->data_len, max, err));
        if (r->codec == C_SNAPPY) {
            const uint8_t *p = r->raw + in;
            uint32_t want =
                (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
            uint32_t got = fl_crc32(0, r->data, r->data_len);
            if (want != got)
                return fl_errorf(err, FL_ECHECKSUM,
                                 "snappy block CRC32 %08x does not match data (%08x)", want, got);
        }
        return FL_OK;
    }
    case C_BZIP2:
        if (r->data == r->raw) {
            r->data = NULL;
            r->data_cap = 0;
        }
        return avro_bzip2_decompress(r->raw, clen, &r->data, &r->data_cap, &r->data_len, max, err);
    }
    return fl_errorf(err, FL_EUNSUPPORTED, "codec");
}

#define READ_WINDOW ((size_t)256 << 10)

/* Copies file bytes [off, off + len) to dst, through the read-ahead window
 * when they fit in it. */
static fl_status read_bytes(fl_avro_reader *r, uint64_t off, void *dst, size_t len, fl_error *err)
{
    if (len > READ_WINDOW)
        return fl_file_read_at(r->f, off, dst, len, err);
    if (!r->win || off < r->win_off || off + len > r->win_off + r->win_len) {
        if (r->win_cap < READ_WINDOW) {
            uint8_t *nw = realloc(r->win, READ_WINDOW);
            if (!nw)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            r->win = nw;
            r->win_cap = READ_WINDOW;
        }
        /* keep the part of the old window at and after off: read each byte once */
        size_t keep = 0;
        if (r->win_len && off >= r->win_off && off < r->win_off + r->win_len) {
            keep = (size_t)(r->win_off + r->win_len - off);
            memmove(r->win, r->win + (off - r->win_off), keep);
        }
        uint64_t left = r->f->size - off;
        size_t n = left < READ_WINDOW ? (size_t)left : READ_WINDOW;
        r->win_len = 0;
        if (n > keep)
            FL_TRY(fl_file_read_at(r->f, off + keep, r->win + keep, n - keep, err));
        r->win_off = off;
        r->win_len = n > keep ? n : keep;
        if (len > r->win_len)
            return fl_errorf(err, FL_ECORRUPT,
                             "read of %zu bytes at offset %" PRIu64 " past the end of the file",
                             len, off);
    }
    memcpy(dst, r->win + (off - r->win_off), len);
    return FL_OK;
}

static fl_status next_block(fl_avro_reader *r, fl_avro_block_info *info, bool *done, fl_error *err)
{
    uint64_t size = r->f->size;
    *done = false;
    if (r->pos >= size) {
        *done = true;
        return FL_OK;
    }
    uint8_t head[20];
    size_t hn = size - r->pos < sizeof head ? (size_t)(size - r->pos) : sizeof head;
    FL_TRY(read_bytes(r, r->pos, head, hn, err));
    size_t p = 0;
    int64_t count, bytes;
    int rc1 = avro_read_long(head, hn, &p, &count);
    int rc2 = rc1 ? rc1 : avro_read_long(head, hn, &p, &bytes);
    if ((rc1 == -1 || rc2 == -1) && hn < sizeof head) {
        r->trailing = size - r->pos;
        r->pos = size;
        *done = true;
        return FL_OK;
    }
    if (rc1 || rc2)
        return fl_errorf(err, FL_ECORRUPT, "%s block header at byte offset %" PRIu64,
                         (rc1 == -1 || rc2 == -1) ? "truncated" : "corrupt", r->pos);
    if (count < 0 || bytes < 0)
        return fl_errorf(err, FL_ECORRUPT,
                         "negative block record count %" PRId64 " or size %" PRId64
                         " at byte offset %" PRIu64,
                         count, bytes, r->pos);
    if ((uint64_t)bytes > r->lim.max_block_bytes)
        return fl_errorf(err, FL_ELIMIT,
                         "block size %" PRId64
                         " exceeds the limit of %zu bytes at byte offset %" PRIu64,
                         bytes, r->lim.max_block_bytes, r->pos);
    uint64_t data_off = r->pos + p;
    if ((uint64_t)bytes + 16 > size - data_off)
        return fl_errorf(err, FL_ECORRUPT,
                         "truncated block at byte offset %" PRIu64 ": needs %" PRId64
                         " bytes + sync, %" PRIu64 " left",
                         r->pos, bytes, size - data_off);
    size_t need = (size_t)bytes + 16;
    if (need > r->raw_cap) {
        if (r->data == r->raw) {
            r->data = NULL;
            r->data_cap = 0;
        }
        uint8_t *nr = realloc(r->raw, need);
        if (!nr)
            return fl_errorf(err, FL_ENOMEM, "out of memory for a %zu-byte block", need);
        r->raw = nr;
        r->raw_cap = need;
    }
    FL_TRY(read_bytes(r, data_off, r->raw, need, err));
    if (memcmp(r->raw + bytes, r->sync, 16) != 0)
        return fl_errorf(err, FL_ECORRUPT,
                         "sync marker mismatch after block at byte offset %" PRIu64, r->pos);
    fl_status rc = decompress_block(r, (size_t)bytes, err);
    if (rc)
        return fl_error_prefix(err, "block at byte offset %" PRIu64, r->pos);
    if (info) {
        info->offset = r->pos;
        info->records = count;
        info->compressed = (uint64_t)bytes;
        info->uncompressed = r->data_len;
    }
    r->block_offset = data_off;
    r->left = count;
    r->dpos = 0;
    r->pos = data_off + need;
    return FL_OK;
}

fl_status fl_avro_reader_next_block(fl_avro_reader *r, fl_avro_block_info *info, bool *done,
                                    fl_error *err)
{
    fl_status rc = next_block(r, info, done, err);
    return rc ? fl_error_prefix(err, "%s", r->f->path ? r->f->path : "avro") : FL_OK;
}

const uint8_t *fl_avro_reader_block_data(const fl_avro_reader *r, size_t *len)
{
    *len = r->data ? r->data_len : 0;
    return r->data;
}

fl_status fl_avro_reader_next(fl_avro_reader *r, fl_arena *a, fl_avro_value *out, bool *done,
                              fl_error *err)
{
    const char *path = r->f->path ? r->f->path : "avro";
    while (r->left == 0) {
        if (r->data && r->dpos != r->data_len)
            return fl_errorf(err, FL_ECORRUPT,
                             "%s: block at byte offset %" PRIu64
                             " has %zu bytes after its last record",
                             path, r->block_offset, r->data_len - r->dpos);
        fl_status rc = next_block(r, NULL, done, err);
        if (rc)
            return fl_error_prefix(err, "%s", path);
        if (*done)
            return FL_OK;
        if (r->left == 0)
            r->data_len = r->dpos = 0;
    }
    /* Offsets inside compressed blocks are positions in the decompressed data. */
    uint64_t base = r->codec == C_NULL ? r->block_offset : 0;
    fl_status rc =
        fl_avro_decode(a, r->schema, r->data, r->data_len, &r->dpos, base, &r->lim, out, err);
    if (rc) {
        if (r->codec != C_NULL)
            fl_error_prefix(err,
                            "%s block at file offset %" PRIu64
                            " (offsets are within the decompressed block)",
                            r->codec_name, r->block_offset);
        return fl_error_prefix(err, "%s", path);
    }
    r->left--;
    *done = false;
    if (r->resolver) {
        fl_avro_value in = *out;
        rc = fl_avro_resolve(a, r->resolver, &in, out, err);
        if (rc)
            return fl_error_prefix(
                err, "%s: block at byte offset %" PRIu64 ": resolving to the reader schema", path,
                r->block_offset);
    }
    return FL_OK;
}

fl_status fl_avro_reader_set_reader_schema(fl_avro_reader *r, const fl_avro_schema *rs,
                                           fl_error *err)
{
    fl_avro_resolver *res;
    fl_status rc = fl_avro_resolver_new(&r->arena, r->schema, rs, &res, err);
    if (rc)
        return fl_error_prefix(err, "%s: writer schema cannot be read as the reader schema",
                               r->f->path ? r->f->path : "avro");
    r->resolver = res;
    return FL_OK;
}

/* -------------------------------------------------------------- writer */

struct fl_avro_writer {
    fl_output *out;
    fl_arena arena;
    const fl_avro_schema *schema;
    codec_id codec;
    int level;
    size_t block_size;
    uint8_t sync[16];
    fl_avro_buf block; /* encoded records of the current block */
    int64_t nrecords;  /* in the current block */
    fl_avro_buf tmp;   /* compressed block, header bytes */
};

static fl_status w_write(fl_avro_writer *w, const void *p, size_t n, fl_error *err)
{
    return fl_output_write(w->out, p, n, err);
}

static fl_status write_header(fl_avro_writer *w, const char *schema, size_t slen, const char *codec,
                              const fl_avro_writer_options *o, fl_error *err)
{
    fl_avro_buf *b = &w->tmp;
    b->len = 0;
    size_t nmeta = o ? o->nmeta : 0;
    bool ok = avro_buf_put(b, "Obj\x01", 4) && avro_buf_long(b, (int64_t)nmeta + 2);
    ok = ok && avro_buf_long(b, 11) && avro_buf_put(b, "avro.schema", 11) &&
         avro_buf_long(b, (int64_t)slen) && avro_buf_put(b, schema, slen);
    ok = ok && avro_buf_long(b, 10) && avro_buf_put(b, "avro.codec", 10) &&
         avro_buf_long(b, (int64_t)strlen(codec)) && avro_buf_puts(b, codec);
    for (size_t i = 0; ok && i < nmeta; i++) {
        const fl_avro_meta *m = &o->meta[i];
        if (!strcmp(m->key, "avro.schema") || !strcmp(m->key, "avro.codec"))
            return fl_errorf(err, FL_EINVAL, "metadata key '%s' is reserved", m->key);
        ok = avro_buf_long(b, (int64_t)strlen(m->key)) && avro_buf_puts(b, m->key) &&
             avro_buf_long(b, (int64_t)m->len) && avro_buf_put(b, m->value, m->len);
    }
    ok = ok && avro_buf_long(b, 0) && avro_buf_put(b, w->sync, 16);
    if (!ok)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    return w_write(w, b->data, b->len, err);
}

fl_status fl_avro_writer_open(fl_output *out, const char *schema_json, size_t schema_len,
                              const fl_avro_writer_options *opts, fl_avro_writer **wp,
                              fl_error *err)
{
    fl_avro_writer *w = calloc(1, sizeof *w);
    if (!w) {
        fl_output_abort(out);
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    w->out = out;
    fl_arena_init(&w->arena, 0);
    const char *codec = opts && opts->codec ? opts->codec : "null";
    int id = codec_lookup(codec, strlen(codec));
    fl_status rc = FL_OK;
    if (id < 0)
        rc = fl_errorf(err, FL_EUNSUPPORTED, "unsupported codec '%s'", codec);
    else if (id == C_BZIP2 && !avro_bzip2_available())
        rc = fl_errorf(err, FL_EUNSUPPORTED,
                       "codec bzip2 needs libbz2.so.1.0, which could not be loaded");
    w->codec = (codec_id)(id < 0 ? 0 : id);
    w->level = opts ? opts->level : 0;
    w->block_size = opts && opts->block_size ? opts->block_size : 64 * 1024;
    fl_avro_schema *s = NULL;
    if (!rc)
        rc = fl_avro_schema_parse(&w->arena, schema_json, schema_len, &s, err);
    w->schema = s;
    if (!rc) {
        if (opts && opts->sync)
            memcpy(w->sync, opts->sync, 16);
        else if (getrandom(w->sync, 16, 0) != 16) {
            uint64_t t = (uint64_t)time(NULL) ^ (uint64_t)(uintptr_t)w;
            for (int i = 0; i < 16; i++, t = t * 6364136223846793005ULL + 1442695040888963407ULL)
                w->sync[i] = (uint8_t)(t >> 56);
        }
        rc = write_header(w, schema_json, schema_len, codec, opts, err);
    }
    if (rc) {
        fl_avro_writer_abort(w);
        return rc;
    }
    *wp = w;
    return FL_OK;
}

const fl_avro_schema *fl_avro_writer_schema(const fl_avro_writer *w)
{
    return w->schema;
}

static fl_status compress_block(fl_avro_writer *w, fl_error *err)
{
    fl_avro_buf *t = &w->tmp;
    const uint8_t *src = w->block.bytes;
    size_t n = w->block.len;
    t->len = 0;
    if (w->codec == C_BZIP2)
        return avro_bzip2_compress(src, n, t, err);
    fl_codec c = w->codec == C_DEFLATE ? FL_CODEC_DEFLATE
                 : w->codec == C_ZSTD  ? FL_CODEC_ZSTD
                                       : FL_CODEC_SNAPPY;
    size_t bound = fl_compress_bound(c, n) + 4;
    if (t->cap < bound) {
        uint8_t *nd = realloc(t->data, bound);
        if (!nd)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        t->bytes = nd;
        t->cap = bound;
    }
    size_t clen;
    FL_TRY(fl_compress(c, w->level, src, n, t->bytes, t->cap - 4, &clen, err));
    t->len = clen;
    if (w->codec == C_SNAPPY) {
        uint32_t crc = fl_crc32(0, src, n);
        uint8_t be[4] = {(uint8_t)(crc >> 24), (uint8_t)(crc >> 16), (uint8_t)(crc >> 8),
                         (uint8_t)crc};
        memcpy(t->data + t->len, be, 4);
        t->len += 4;
    }
    return FL_OK;
}

static fl_status flush_block(fl_avro_writer *w, fl_error *err)
{
    if (w->nrecords == 0)
        return FL_OK;
    const uint8_t *data = w->block.bytes;
    size_t len = w->block.len;
    if (w->codec != C_NULL) {
        FL_TRY(compress_block(w, err));
        data = w->tmp.bytes;
        len = w->tmp.len;
    }
    fl_avro_buf h = {0};
    bool ok = avro_buf_long(&h, w->nrecords) && avro_buf_long(&h, (int64_t)len);
    fl_status rc = ok ? w_write(w, h.data, h.len, err) : fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_avro_buf_free(&h);
    if (!rc)
        rc = w_write(w, data, len, err);
    if (!rc)
        rc = w_write(w, w->sync, 16, err);
    w->block.len = 0;
    w->nrecords = 0;
    return rc;
}

fl_status fl_avro_writer_append_raw(fl_avro_writer *w, const void *datum, size_t len, fl_error *err)
{
    if (!avro_buf_put(&w->block, datum, len))
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    w->nrecords++;
    return w->block.len >= w->block_size ? flush_block(w, err) : FL_OK;
}

fl_status fl_avro_writer_append(fl_avro_writer *w, const fl_avro_value *v, fl_error *err)
{
    size_t mark = w->block.len;
    fl_status rc = fl_avro_encode(w->schema, v, &w->block, err);
    if (rc) {
        w->block.len = mark;
        return rc;
    }
    w->nrecords++;
    return w->block.len >= w->block_size ? flush_block(w, err) : FL_OK;
}

static void writer_free(fl_avro_writer *w)
{
    fl_avro_buf_free(&w->block);
    fl_avro_buf_free(&w->tmp);
    fl_arena_free(&w->arena);
    free(w);
}

fl_status fl_avro_writer_close(fl_avro_writer *w, fl_error *err)
{
    fl_status rc = flush_block(w, err);
    if (rc) {
        fl_avro_writer_abort(w);
        return rc;
    }
    rc = fl_output_close(w->out, err);
    writer_free(w);
    return rc;
}

void fl_avro_writer_abort(fl_avro_writer *w)
{
    if (!w)
        return;
    fl_output_abort(w->out);
    writer_free(w);
}
