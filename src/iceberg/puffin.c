/*
 * puffin.c - Puffin files (format/puffin-spec.md) and deletion-vector blobs.
 *
 * File layout:
 *   "PFA1" | blob bytes ... | footer
 * footer:
 *   "PFA1" | payload (JSON, or one LZ4 frame when flag bit 0 of byte 0 is set)
 *   | i32 LE payload size | 4 flag bytes | "PFA1"
 * payload: {"blobs": [{"type", "fields", "snapshot-id", "sequence-number",
 *            "offset", "length", "compression-codec"?, "properties"?}],
 *           "properties"?: {...}}
 * Blob compression: "lz4" (one LZ4 frame) or "zstd" (one zstd frame).
 *
 * deletion-vector-v1 blob (never compressed):
 *   u32 BE length of (magic + vector) | D1 D3 39 64 | portable 64-bit roaring
 *   | u32 BE CRC-32 (zlib) of magic + vector.
 *
 * Strict vs lenient DV reading: a DV entry names a Puffin file plus the blob's
 * offset/length. Strict reading (default, like DuckDB and Java) requires the
 * file to be a Puffin file whose footer lists a deletion-vector-v1 blob at
 * exactly that offset and length. Old DuckDB versions wrote the bare blob as
 * the whole ".puffin" file (fixture legacy_bare_deletion_vector); lenient
 * reading accepts that when the file fails the Puffin checks but the bytes at
 * offset/length decode as a DV with a valid CRC.
 *
 * Ownership: footers live in the caller's arena; blob bytes are malloc'd.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "floe/compress.h"
#include "iceberg/scan_internal.h"

#define PUFFIN_MAGIC "PFA1"
#define PUFFIN_MAX_FOOTER (64u << 20)
#define PUFFIN_MAX_BLOB (1u << 30)
static const uint8_t DV_MAGIC[4] = {0xD1, 0xD3, 0x39, 0x64};

static uint32_t u32be(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
static uint32_t u32le(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static const char *jstr(json_t *o, const char *k, fl_arena *a)
{
    json_t *v = json_object_get(o, k);
    return json_is_string(v) ? fl_arena_strdup(a, json_string_value(v)) : NULL;
}

/* Parses the footer JSON payload. */
static fl_status parse_payload(const char *json, size_t len, fl_arena *a, ice_puffin_footer *out,
                               fl_error *err)
{
    json_error_t je;
    json_t *root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return fl_errorf(err, FL_ECORRUPT, "footer JSON: %s (line %d)", je.text, je.line);
    fl_status rc = FL_OK;
    json_t *blobs = json_object_get(root, "blobs");
    if (!json_is_array(blobs)) {
        rc = fl_errorf(err, FL_ECORRUPT, "footer JSON: blobs: missing or not an array");
        goto done;
    }
    out->nblobs = (uint32_t)json_array_size(blobs);
    out->blobs = fl_arena_calloc(a, out->nblobs ? out->nblobs : 1, sizeof *out->blobs);
    if (!out->blobs) {
        rc = fl_errorf(err, FL_ENOMEM, "out of memory");
        goto done;
    }
    for (uint32_t i = 0; i < out->nblobs; i++) {
        json_t *b = json_array_get(blobs, i);
        ice_puffin_blob *pb = &out->blobs[i];
        json_t *off = json_object_get(b, "offset"), *ln = json_object_get(b, "length");
        pb->type = jstr(b, "type", a);
        if (!json_is_object(b) || !pb->type || !json_is_integer(off) || !json_is_integer(ln) ||
            json_integer_value(off) < 0 || json_integer_value(ln) < 0) {
            rc = fl_errorf(err, FL_ECORRUPT, "footer JSON: blobs[%u]: type/offset/length missing",
                           i);
            goto done;
        }
        pb->offset = json_integer_value(off);
        pb->length = json_integer_value(ln);
        pb->codec = jstr(b, "compression-codec", a);
        json_t *sid = json_object_get(b, "snapshot-id"),
               *seq = json_object_get(b, "sequence-number");
        pb->snapshot_id = json_is_integer(sid) ? json_integer_value(sid) : -1;
        pb->sequence_number = json_is_integer(seq) ? json_integer_value(seq) : -1;
        json_t *fields = json_object_get(b, "fields");
        if (json_is_array(fields)) {
            pb->nfields = (uint32_t)json_array_size(fields);
            pb->fields = fl_arena_calloc(a, pb->nfields + 1, sizeof *pb->fields);
            if (!pb->fields) {
                rc = fl_errorf(err, FL_ENOMEM, "out of memory");
                goto done;
            }
            for (uint32_t k = 0; k < pb->nfields; k++)
                pb->fields[k] = (int32_t)json_integer_value(json_array_get(fields, k));
        }
        json_t *props = json_object_get(b, "properties");
        if (json_is_object(props)) {
            pb->referenced_data_file = jstr(props, "referenced-data-file", a);
            pb->cardinality = jstr(props, "cardinality", a);
            pb->ndv = jstr(props, "ndv", a);
        }
    }
    json_t *props = json_object_get(root, "properties");
    if (json_is_object(props))
        out->created_by = jstr(props, "created-by", a);
done:
    json_decref(root);
    return rc;
}

/* Footer parse given the last `tail` bytes of a file of size fsize (tail
 * holds at least the footer) plus the first 4 bytes of the file. */
static fl_status parse_tail(const uint8_t head[4], const uint8_t *tail, size_t tail_len,
                            uint64_t fsize, fl_arena *a, ice_puffin_footer *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    if (fsize < 16 || memcmp(head, PUFFIN_MAGIC, 4) != 0)
        return fl_errorf(err, FL_ECORRUPT, "not a Puffin file (no PFA1 magic at offset 0)");
    const uint8_t *end = tail + tail_len;
    if (memcmp(end - 4, PUFFIN_MAGIC, 4) != 0)
        return fl_errorf(err, FL_ECORRUPT, "not a Puffin file (no PFA1 magic at the end)");
    uint8_t flags0 = end[-8];
    int32_t psize = (int32_t)u32le(end - 12);
    if (psize < 0 || (uint64_t)psize + 12 + 4 + 4 > fsize || (size_t)psize + 16 > tail_len)
        return fl_errorf(err, FL_ECORRUPT, "Puffin footer: payload size %d does not fit", psize);
    const uint8_t *payload = end - 12 - psize;
    if (memcmp(payload - 4, PUFFIN_MAGIC, 4) != 0)
        return fl_errorf(err, FL_ECORRUPT, "Puffin footer: no PFA1 magic before the payload");
    if (flags0 & 1) {
        uint8_t *dec = NULL;
        size_t cap = 0, dlen = 0;
        fl_status rc = fl_decompress_alloc(FL_CODEC_LZ4_HADOOP, payload, (size_t)psize, &dec, &cap,
                                           &dlen, PUFFIN_MAX_FOOTER, err);
        if (rc == FL_OK)
            rc = parse_payload((const char *)dec, dlen, a, out, err);
        free(dec);
        FL_TRY(rc);
    } else {
        FL_TRY(parse_payload((const char *)payload, (size_t)psize, a, out, err));
    }
    uint64_t footer_start = fsize - (uint64_t)psize - 16;
    for (uint32_t i = 0; i < out->nblobs; i++) {
        const ice_puffin_blob *b = &out->blobs[i];
        if (b->offset < 4 || (uint64_t)b->offset + (uint64_t)b->length > footer_start)
            return fl_errorf(err, FL_ECORRUPT,
                             "Puffin footer: blob %u [%lld, +%lld) outside the blob area", i,
                             (long long)b->offset, (long long)b->length);
    }
    return FL_OK;
}

fl_status ice_puffin_parse(const uint8_t *buf, size_t len, fl_arena *a, ice_puffin_footer *out,
                           fl_error *err)
{
    if (len < 16) {
        memset(out, 0, sizeof *out);
        return fl_errorf(err, FL_ECORRUPT, "not a Puffin file (%zu bytes)", len);
    }
    return parse_tail(buf, buf, len, len, a, out, err);
}

fl_status ice_puffin_read_footer(fl_file *f, fl_arena *a, ice_puffin_footer *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    if (f->size < 16)
        return fl_errorf(err, FL_ECORRUPT, "%s: not a Puffin file (%llu bytes)", f->path,
                         (unsigned long long)f->size);
    uint8_t head[4], last[12];
    fl_status rc = fl_file_read_at(f, 0, head, 4, err);
    if (rc == FL_OK)
        rc = fl_file_read_at(f, f->size - 12, last, 12, err);
    if (rc != FL_OK)
        return fl_error_prefix(err, "%s", f->path);
    int32_t psize = (int32_t)u32le(last);
    if (psize < 0 || (uint64_t)psize + 16 > f->size - 4 || (uint32_t)psize > PUFFIN_MAX_FOOTER ||
        memcmp(head, PUFFIN_MAGIC, 4) != 0 || memcmp(last + 8, PUFFIN_MAGIC, 4) != 0) {
        return fl_errorf(err, FL_ECORRUPT,
                         "%s: not a Puffin file (magic or footer size %d invalid)", f->path, psize);
    }
    size_t tl = (size_t)psize + 16;
    uint8_t *tail = malloc(tl);
    if (!tail)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    rc = fl_file_read_at(f, f->size - tl, tail, tl, err);
    if (rc == FL_OK)
        rc = parse_tail(head, tail, tl, f->size, a, out, err);
    free(tail);
    if (rc != FL_OK)
        return fl_error_prefix(err, "%s", f->path);
    return FL_OK;
}

fl_status ice_puffin_read_blob(fl_file *f, const ice_puffin_blob *b, uint8_t **out, size_t *len,
                               fl_error *err)
{
    *out = NULL;
    *len = 0;
    if (b->length < 0 || (uint64_t)b->offset + (uint64_t)b->length > f->size ||
        b->length > PUFFIN_MAX_BLOB)
        return fl_errorf(err, FL_ECORRUPT, "%s: blob at %lld length %lld outside the file", f->path,
                         (long long)b->offset, (long long)b->length);
    uint8_t *raw = malloc(b->length ? (size_t)b->length : 1);
    if (!raw)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_status rc = fl_file_read_at(f, (uint64_t)b->offset, raw, (size_t)b->length, err);
    if (rc != FL_OK) {
        free(raw);
        return fl_error_prefix(err, "%s", f->path);
    }
    if (!b->codec) {
        *out = raw;
        *len = (size_t)b->length;
        return FL_OK;
    }
    fl_codec c;
    if (!strcmp(b->codec, "zstd"))
        c = FL_CODEC_ZSTD;
    else if (!strcmp(b->codec, "lz4"))
        c = FL_CODEC_LZ4_HADOOP; /* falls back to the LZ4 frame format */
    else {
        free(raw);
        return fl_errorf(err, FL_EUNSUPPORTED, "%s: blob compression codec '%s'", f->path,
                         b->codec);
    }
    uint8_t *dec = NULL;
    size_t cap = 0;
    rc = fl_decompress_alloc(c, raw, (size_t)b->length, &dec, &cap, len, PUFFIN_MAX_BLOB, err);
    free(raw);
    if (rc != FL_OK) {
        free(dec);
        return fl_error_prefix(err, "%s: blob at %lld", f->path, (long long)b->offset);
    }
    *out = dec;
    return FL_OK;
}

fl_status fl_ice_dv_decode(const uint8_t *buf, size_t len, fl_ice_position_set *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    if (len < 12)
        return fl_errorf(err, FL_ECORRUPT, "deletion vector: %zu bytes is too short", len);
    uint32_t n = u32be(buf);
    if ((uint64_t)n + 8 != len)
        return fl_errorf(err, FL_ECORRUPT, "deletion vector: length field %u, blob has %zu bytes",
                         n, len);
    if (memcmp(buf + 4, DV_MAGIC, 4) != 0)
        return fl_errorf(err, FL_ECORRUPT, "deletion vector: bad magic %02x%02x%02x%02x", buf[4],
                         buf[5], buf[6], buf[7]);
    uint32_t want = u32be(buf + 4 + n), got = fl_crc32(0, buf + 4, n);
    if (want != got)
        return fl_errorf(err, FL_ECHECKSUM, "deletion vector: CRC-32 %08x, stored %08x", got, want);
    fl_status rc = ice_roaring64_decode(buf + 8, n - 4, out, err);
    if (rc != FL_OK)
        return fl_error_prefix(err, "deletion vector");
    return FL_OK;
}

/* Reads [off, off+len) of the file named by f. */
static fl_status read_range(fl_file *fh, int64_t off, int64_t len, uint8_t **out, fl_error *err)
{
    if (off < 0 || len <= 0 || (uint64_t)off + (uint64_t)len > fh->size || len > PUFFIN_MAX_BLOB)
        return fl_errorf(err, FL_ECORRUPT,
                         "%s: deletion vector at %lld length %lld outside the file (%llu bytes)",
                         fh->path, (long long)off, (long long)len, (unsigned long long)fh->size);
    *out = malloc((size_t)len);
    if (!*out)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_status rc = fl_file_read_at(fh, (uint64_t)off, *out, (size_t)len, err);
    if (rc != FL_OK) {
        free(*out);
        *out = NULL;
        return fl_error_prefix(err, "%s", fh->path);
    }
    return FL_OK;
}

fl_status ice_dv_read(fl_fileio *io, const fl_ice_data_file *f, bool lenient,
                      fl_ice_position_set *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    if (!f->has_content_offset)
        return fl_errorf(err, FL_ECORRUPT, "%s: deletion vector entry without content_offset",
                         f->file_path);
    fl_file *fh = NULL;
    FL_TRY(fl_fileio_open(io, f->file_path, &fh, err));
    fl_arena a;
    fl_arena_init(&a, 4096);
    ice_puffin_footer ft;
    fl_status rc = ice_puffin_read_footer(fh, &a, &ft, err);
    if (rc == FL_OK) {
        const ice_puffin_blob *b = NULL;
        for (uint32_t i = 0; i < ft.nblobs && !b; i++)
            if (ft.blobs[i].offset == f->content_offset &&
                ft.blobs[i].length == f->content_size_in_bytes)
                b = &ft.blobs[i];
        if (!b)
            rc = fl_errorf(err, FL_ECORRUPT,
                           "%s: no blob at offset %lld length %lld in the Puffin footer", fh->path,
                           (long long)f->content_offset, (long long)f->content_size_in_bytes);
        else if (strcmp(b->type, "deletion-vector-v1") != 0)
            rc = fl_errorf(err, FL_ECORRUPT,
                           "%s: blob at offset %lld is '%s', not deletion-vector-v1", fh->path,
                           (long long)b->offset, b->type);
        else if (b->codec)
            rc = fl_errorf(err, FL_ECORRUPT, "%s: deletion vector blob is compressed (%s)",
                           fh->path, b->codec);
    } else if (lenient) {
        fl_error_clear(err);
        rc = FL_OK; /* legacy bare blob: decoded (with its CRC) below */
    } else {
        fl_error_prefix(err, "deletion vector (older DuckDB versions wrote bare DV blobs; "
                             "read with lenient DV handling to accept them)");
    }
    uint8_t *buf = NULL;
    if (rc == FL_OK)
        rc = read_range(fh, f->content_offset, f->content_size_in_bytes, &buf, err);
    if (rc == FL_OK) {
        rc = fl_ice_dv_decode(buf, (size_t)f->content_size_in_bytes, out, err);
        if (rc != FL_OK)
            fl_error_prefix(err, "%s", fh->path);
    }
    if (rc == FL_OK && f->record_count >= 0 && out->n != (uint64_t)f->record_count) {
        rc = fl_errorf(err, FL_ECORRUPT,
                       "%s: deletion vector has %llu positions, manifest says %lld", fh->path,
                       (unsigned long long)out->n, (long long)f->record_count);
        fl_ice_position_set_free(out);
    }
    free(buf);
    fl_arena_free(&a);
    fl_file_close(fh);
    return rc;
}

fl_status fl_ice_dv_read(fl_fileio *io, const fl_ice_data_file *f, fl_ice_position_set *out,
                         fl_error *err)
{
    return ice_dv_read(io, f, false, out, err);
}
