/*
 * puffin_write.c - writing Puffin files (puffin-spec.md) of uncompressed
 * blobs, for statistics files:
 *
 *   "PFA1" | blob 0 | ... | blob n-1 | footer
 *   footer = "PFA1" | JSON payload | u32 LE payload size | 4 flag bytes (0,
 *            payload not compressed) | "PFA1"
 *   payload = {"blobs":[{"type","fields","snapshot-id","sequence-number",
 *              "offset","length"[,"properties"]}...],
 *              "properties":{"created-by":...}}
 *
 * The file goes through the table's FileIO (local, S3, Azure), created
 * exclusively; a failure after the create removes it. (dv_writer.c writes
 * deletion-vector Puffin files with the same framing.)
 */
#include <stdlib.h>
#include <string.h>

#include "iceberg/stats_internal.h"

static json_t *blob_json(const ice_puffin_blob_in *b, int64_t offset)
{
    json_t *o = json_object(), *fields = json_array();
    bool ok = o && fields;
    for (uint32_t i = 0; ok && i < b->nfields; i++)
        ok = !json_array_append_new(fields, json_integer(b->fields[i]));
    ok = ok && !json_object_set_new(o, "type", json_string(b->type)) &&
         !json_object_set(o, "fields", fields) &&
         !json_object_set_new(o, "snapshot-id", json_integer(b->snapshot_id)) &&
         !json_object_set_new(o, "sequence-number", json_integer(b->sequence_number)) &&
         !json_object_set_new(o, "offset", json_integer(offset)) &&
         !json_object_set_new(o, "length", json_integer((json_int_t)b->len));
    if (ok && b->properties && b->properties->n) {
        json_t *p = json_object();
        ok = p && !json_object_set_new(o, "properties", p);
        for (uint32_t i = 0; ok && i < b->properties->n; i++)
            ok = !json_object_set_new(p, b->properties->items[i].key,
                                      json_string(b->properties->items[i].value));
    }
    json_decref(fields);
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static char *payload_json(const ice_puffin_blob_in *blobs, const int64_t *offsets, uint32_t n,
                          const char *created_by)
{
    json_t *arr = json_array();
    bool ok = arr != NULL;
    for (uint32_t i = 0; ok && i < n; i++) {
        json_t *b = blob_json(&blobs[i], offsets[i]);
        ok = b && !json_array_append_new(arr, b);
    }
    json_t *root = ok ? json_pack("{s:O,s:{s:s}}", "blobs", arr, "properties", "created-by",
                                  created_by ? created_by : "floe")
                      : NULL;
    char *s = root ? json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(root);
    json_decref(arr);
    return s;
}

fl_status ice_puffin_footer_bytes(const ice_puffin_blob_in *blobs, const int64_t *offsets,
                                  uint32_t n, const char *created_by, uint8_t **out, size_t *len,
                                  fl_error *err)
{
    char *payload = payload_json(blobs, offsets, n, created_by);
    if (!payload)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    size_t plen = strlen(payload);
    if (plen > INT32_MAX) {
        free(payload);
        return fl_errorf(err, FL_ELIMIT, "Puffin footer of %zu bytes is too large", plen);
    }
    uint8_t *b = malloc(plen + 16);
    if (!b) {
        free(payload);
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    memcpy(b, "PFA1", 4);
    memcpy(b + 4, payload, plen);
    for (int i = 0; i < 4; i++)
        b[4 + plen + i] = (uint8_t)(plen >> (8 * i));
    memset(b + 8 + plen, 0, 4);
    memcpy(b + 12 + plen, "PFA1", 4);
    free(payload);
    *out = b;
    *len = plen + 16;
    return FL_OK;
}

static fl_status write_all(fl_output *o, const ice_puffin_blob_in *blobs, uint32_t n,
                           const char *created_by, ice_puffin_written *w, fl_error *err)
{
    FL_TRY(fl_output_write(o, "PFA1", 4, err));
    int64_t at = 4;
    for (uint32_t i = 0; i < n; i++) {
        w->offsets[i] = at;
        if (blobs[i].len)
            FL_TRY(fl_output_write(o, blobs[i].data, blobs[i].len, err));
        at += (int64_t)blobs[i].len;
    }
    uint8_t *footer = NULL;
    size_t flen = 0;
    FL_TRY(ice_puffin_footer_bytes(blobs, w->offsets, n, created_by, &footer, &flen, err));
    fl_status rc = fl_output_write(o, footer, flen, err);
    free(footer);
    w->footer_size = flen;
    w->file_size = (uint64_t)at + flen;
    return rc;
}

fl_status ice_puffin_write(fl_fileio *io, const char *path, const ice_puffin_blob_in *blobs,
                           uint32_t n, const char *created_by, fl_arena *a, ice_puffin_written *out,
                           fl_error *err)
{
    memset(out, 0, sizeof *out);
    out->offsets = fl_arena_calloc(a, n ? n : 1, sizeof *out->offsets);
    if (!out->offsets)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_output *o = NULL;
    FL_TRY(fl_fileio_create(io, path, 0, &o, err));
    fl_status rc = write_all(o, blobs, n, created_by, out, err);
    if (rc == FL_OK) {
        fl_output *oc = o;
        o = NULL;
        rc = fl_output_close(oc, err);
    }
    fl_output_abort(o);
    if (rc != FL_OK) {
        fl_fileio_remove(io, path, NULL);
        fl_error_prefix(err, "%s", path);
    }
    return rc;
}
