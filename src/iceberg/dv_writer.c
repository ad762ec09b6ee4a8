/*
 * dv_writer.c - deletion vectors (format v3): one Puffin file holding one
 * "deletion-vector-v1" blob per data file, and the delete-file entries that
 * point at each blob (spec "Deletion Vectors", puffin-spec.md).
 *
 * Puffin layout written:
 *   "PFA1" | blob 0 | blob 1 | ... | footer
 *   footer = "PFA1" | JSON payload (uncompressed) | u32 LE payload size |
 *            4 flag bytes (0) | "PFA1"
 * A DV blob is u32 BE length of (magic + bitmap) | D1 D3 39 64 | portable
 * 64-bit roaring (roaring_write.c) | u32 BE CRC-32 of (magic + bitmap).
 * Blob metadata as Java's DV writer: fields [2147483645] (_pos),
 * snapshot-id and sequence-number -1 (inherited), properties
 * referenced-data-file and cardinality.
 *
 * Each entry: content position deletes, format PUFFIN, the data file's spec
 * and partition, record_count = cardinality, referenced_data_file,
 * content_offset/content_size_in_bytes = the blob's footer offset/length
 * (the spec requires they match exactly), file size of the whole Puffin
 * file. The caller's sets must already hold every earlier delete of the
 * file (at most one DV per data file, replacing older position deletes).
 *
 * Path: <data dir>/<uuid>-dv.puffin, created exclusively, removed again if
 * anything after its creation fails.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "floe/compress.h"
#include "floe/ice_table.h"
#include "iceberg/scan_internal.h"
#include "iceberg/write_internal.h"

static const uint8_t DV_MAGIC[4] = {0xD1, 0xD3, 0x39, 0x64};

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* The blob bytes of one set (malloc'd). */
static fl_status dv_blob(const fl_ice_position_set *s, uint8_t **out, size_t *len, fl_error *err)
{
    uint8_t *bm = NULL;
    size_t bml = 0;
    FL_TRY(ice_roaring64_encode(s, &bm, &bml, err));
    if (bml > UINT32_MAX - 8) {
        free(bm);
        return fl_errorf(err, FL_ELIMIT, "deletion vector of %zu bytes is too large", bml);
    }
    uint8_t *b = malloc(bml + 12);
    if (!b) {
        free(bm);
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    put_be32(b, (uint32_t)(bml + 4));
    memcpy(b + 4, DV_MAGIC, 4);
    memcpy(b + 8, bm, bml);
    put_be32(b + 8 + bml, fl_crc32(0, b + 4, bml + 4));
    free(bm);
    *out = b;
    *len = bml + 12;
    return FL_OK;
}

static json_t *blob_meta(const ice_dv_input *in, int64_t offset, size_t length)
{
    json_t *o = json_object(), *props = json_object(), *fields = json_array();
    char card[32];
    snprintf(card, sizeof card, "%llu", (unsigned long long)in->set->n);
    bool ok =
        o && props && fields &&
        !json_array_append_new(fields, json_integer(FL_ICE_FIELD_ID_ROW_POS)) &&
        !json_object_set_new(o, "type", json_string("deletion-vector-v1")) &&
        !json_object_set_new(o, "fields", fields) &&
        !json_object_set_new(o, "snapshot-id", json_integer(-1)) &&
        !json_object_set_new(o, "sequence-number", json_integer(-1)) &&
        !json_object_set_new(o, "offset", json_integer(offset)) &&
        !json_object_set_new(o, "length", json_integer((json_int_t)length)) &&
        !json_object_set_new(props, "referenced-data-file", json_string(in->file->file_path)) &&
        !json_object_set_new(props, "cardinality", json_string(card)) &&
        !json_object_set_new(o, "properties", props);
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* The entry for blob i (strings in a). */
static fl_status describe(const ice_dv_input *in, const char *path, int64_t offset, size_t length,
                          fl_arena *a, fl_ice_data_file *out, fl_error *err)
{
    const fl_ice_data_file *f = in->file;
    memset(out, 0, sizeof *out);
    out->content = FL_ICE_CONTENT_POSITION_DELETES;
    out->file_path = fl_arena_strdup(a, path);
    out->file_format = "PUFFIN";
    out->spec_id = f->spec_id;
    out->npartition = f->npartition;
    out->partition = ice_copy_partition(a, f->partition, f->npartition);
    out->referenced_data_file = fl_arena_strdup(a, f->file_path);
    if (!out->file_path || !out->partition || !out->referenced_data_file)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    out->record_count = (int64_t)in->set->n;
    out->has_content_offset = true;
    out->content_offset = offset;
    out->content_size_in_bytes = (int64_t)length;
    return FL_OK;
}

/* Writes the blobs and the footer to o; fills out[] except the file size. */
static fl_status write_puffin(fl_output *o, const char *path, const ice_dv_input *in, uint32_t n,
                              fl_arena *a, fl_ice_data_file *out, uint64_t *size, fl_error *err)
{
    json_t *blobs = json_array();
    if (!blobs)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_status rc = fl_output_write(o, "PFA1", 4, err);
    uint64_t at = 4;
    for (uint32_t i = 0; i < n && rc == FL_OK; i++) {
        uint8_t *b = NULL;
        size_t len = 0;
        rc = dv_blob(in[i].set, &b, &len, err);
        if (rc == FL_OK)
            rc = fl_output_write(o, b, len, err);
        free(b);
        json_t *meta = rc == FL_OK ? blob_meta(&in[i], (int64_t)at, len) : NULL;
        if (rc == FL_OK && (!meta || json_array_append_new(blobs, meta)))
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
        if (rc == FL_OK)
            rc = describe(&in[i], path, (int64_t)at, len, a, &out[i], err);
        at += len;
    }
    json_t *footer =
        rc == FL_OK ? json_pack("{s:O,s:{s:s}}", "blobs", blobs, "properties", "created-by", "floe")
                    : NULL;
    char *payload = footer ? json_dumps(footer, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    if (rc == FL_OK && !payload)
        rc = fl_errorf(err, FL_ENOMEM, "out of memory");
    if (rc == FL_OK) {
        size_t plen = strlen(payload);
        uint8_t tail[12] = {0};
        tail[0] = (uint8_t)plen;
        tail[1] = (uint8_t)(plen >> 8);
        tail[2] = (uint8_t)(plen >> 16);
        tail[3] = (uint8_t)(plen >> 24);
        memcpy(tail + 8, "PFA1", 4);
        rc = fl_output_write(o, "PFA1", 4, err);
        if (rc == FL_OK)
            rc = fl_output_write(o, payload, plen, err);
        if (rc == FL_OK)
            rc = fl_output_write(o, tail, sizeof tail, err);
        at += 4 + plen + sizeof tail;
    }
    free(payload);
    json_decref(footer);
    json_decref(blobs);
    *size = at;
    return rc;
}

fl_status ice_write_dvs(fl_fileio *io, const fl_ice_metadata *m, const ice_dv_input *in, uint32_t n,
                        fl_arena *a, fl_ice_data_file *out, fl_error *err)
{
    if (m->format_version < 3)
        return fl_errorf(err, FL_EINVAL, "deletion vectors need format version 3 (table has %d)",
                         (int)m->format_version);
    for (uint32_t i = 0; i < n; i++)
        if (!in[i].set->n)
            return fl_errorf(err, FL_EINVAL, "%s: empty deletion vector", in[i].file->file_path);
    fl_arena tmp;
    fl_arena_init(&tmp, 0);
    const char *dir = ice_data_dir(m, &tmp);
    char uuid[37];
    fl_ice_uuid4(uuid);
    const char *path = dir ? fl_arena_sprintf(&tmp, "%s/%s-dv.puffin", dir, uuid) : NULL;
    fl_status rc = path ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_output *o = NULL;
    if (rc == FL_OK)
        rc = fl_fileio_create(io, path, 0, &o, err);
    bool created = rc == FL_OK;
    uint64_t size = 0;
    if (rc == FL_OK)
        rc = write_puffin(o, path, in, n, a, out, &size, err);
    if (rc == FL_OK) {
        fl_output *oc = o;
        o = NULL;
        rc = fl_output_close(oc, err);
    }
    for (uint32_t i = 0; i < n && rc == FL_OK; i++)
        out[i].file_size_in_bytes = (int64_t)size;
    fl_output_abort(o);
    if (rc != FL_OK && created)
        fl_fileio_remove(io, path, NULL);
    if (rc != FL_OK && path)
        fl_error_prefix(err, "%s", path);
    fl_arena_free(&tmp);
    return rc;
}
