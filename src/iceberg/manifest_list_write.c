/*
 * manifest_list_write.c - writes a snapshot's manifest list (spec "Manifest
 * Lists") as Java's ManifestListWriter does: deflate Avro container, header
 * keys snapshot-id, parent-snapshot-id ("null" when none, as Java writes),
 * sequence-number (v2+), first-row-id (v3), format-version, and one
 * manifest_file record per manifest in the schema of manifest_schema.c.
 *
 * v2+: a manifest whose sequence_number / min_sequence_number is
 * FL_ICE_UNASSIGNED_SEQ was written by this commit (checked: its
 * added_snapshot_id must be the new snapshot) and gets the snapshot's
 * sequence number. Counts are required in v2+ (unknown counts carried over
 * from v1 lists are an error rather than a guess).
 * v3 (spec "First Row ID Assignment"): data manifests without first_row_id
 * get next_row_id, which then advances by their added + existing row counts;
 * delete manifests get null.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iceberg/manifest_write_int.h"

static fl_status enc_manifest(ice_enc *e, const fl_ice_manifest_list_info *info,
                              const fl_ice_manifest_file *mf, int64_t *next_row_id, fl_error *err)
{
    int fv = info->format_version;
    if (!mf->manifest_path)
        return fl_errorf(err, FL_EINVAL, "manifest without a path");
    ice_enc_str(e, mf->manifest_path);
    ice_enc_long(e, mf->manifest_length);
    ice_enc_long(e, mf->partition_spec_id);
    if (fv >= 2) {
        int64_t seq = mf->sequence_number, min_seq = mf->min_sequence_number;
        if ((seq == FL_ICE_UNASSIGNED_SEQ || min_seq == FL_ICE_UNASSIGNED_SEQ) &&
            mf->added_snapshot_id != info->snapshot_id)
            return fl_errorf(err, FL_EINVAL,
                             "unassigned sequence number in a manifest added by snapshot %" PRId64
                             ", not by this snapshot (%" PRId64 ")",
                             mf->added_snapshot_id, info->snapshot_id);
        if (seq == FL_ICE_UNASSIGNED_SEQ)
            seq = info->sequence_number;
        if (min_seq == FL_ICE_UNASSIGNED_SEQ)
            min_seq = info->sequence_number;
        ice_enc_long(e, mf->content);
        ice_enc_long(e, seq);
        ice_enc_long(e, min_seq);
    }
    ice_enc_long(e, mf->added_snapshot_id);
    const int64_t counts[6] = {mf->added_files_count,   mf->existing_files_count,
                               mf->deleted_files_count, mf->added_rows_count,
                               mf->existing_rows_count, mf->deleted_rows_count};
    if (fv >= 2)
        for (int i = 0; i < 6; i++)
            if (counts[i] < 0)
                return fl_errorf(err, FL_EINVAL,
                                 "unknown file or row counts (required in format v%d)", fv);
    for (int i = 0; i < 3; i++) {
        if (fv == 1)
            ice_enc_opt_long(e, counts[i] >= 0, counts[i]);
        else
            ice_enc_long(e, counts[i]);
    }
    /* v1: partitions come before the row counts; v2+: after */
    int order[2] = {fv == 1 ? 0 : 1, fv == 1 ? 1 : 0};
    for (int part = 0; part < 2; part++) {
        if (order[part] == 0) {
            ice_enc_some(e);
            if (mf->npartitions) {
                ice_enc_long(e, mf->npartitions);
                for (uint32_t k = 0; k < mf->npartitions; k++) {
                    const fl_ice_field_summary *s = &mf->partitions[k];
                    uint8_t b = s->contains_null;
                    ice_enc_raw(e, &b, 1);
                    if (s->has_contains_nan) {
                        ice_enc_some(e);
                        b = s->contains_nan;
                        ice_enc_raw(e, &b, 1);
                    } else {
                        ice_enc_null(e);
                    }
                    if (s->has_lower) {
                        ice_enc_some(e);
                        ice_enc_bytes(e, s->lower, s->lower_len);
                    } else {
                        ice_enc_null(e);
                    }
                    if (s->has_upper) {
                        ice_enc_some(e);
                        ice_enc_bytes(e, s->upper, s->upper_len);
                    } else {
                        ice_enc_null(e);
                    }
                }
            }
            ice_enc_long(e, 0);
        } else {
            for (int i = 3; i < 6; i++) {
                if (fv == 1)
                    ice_enc_opt_long(e, counts[i] >= 0, counts[i]);
                else
                    ice_enc_long(e, counts[i]);
            }
        }
    }
    if (mf->key_metadata) {
        ice_enc_some(e);
        ice_enc_bytes(e, mf->key_metadata, mf->key_metadata_len);
    } else {
        ice_enc_null(e);
    }
    if (fv >= 3) {
        if (mf->content != FL_ICE_MANIFEST_DATA) {
            ice_enc_null(e);
        } else if (mf->has_first_row_id) {
            ice_enc_opt_long(e, true, mf->first_row_id);
        } else {
            ice_enc_opt_long(e, true, *next_row_id);
            *next_row_id += mf->added_rows_count + mf->existing_rows_count;
        }
    }
    return FL_OK;
}

fl_status fl_ice_manifest_list_write(fl_fileio *io, const char *path,
                                     const fl_ice_manifest_list_info *info,
                                     const fl_ice_manifest_file *files, uint32_t n,
                                     int64_t *next_row_id, fl_error *err)
{
    int fv = info->format_version;
    if (fv < 1 || fv > 3)
        return fl_errorf(err, FL_EINVAL, "manifest list %s: format version %d", path, fv);
    char *schema = ice_manifest_list_schema(fv, err);
    if (!schema)
        return fl_error_prefix(err, "manifest list %s", path);
    char snap[24], parent[24], seq[24], frid[24], fvs[4];
    snprintf(snap, sizeof snap, "%" PRId64, info->snapshot_id);
    if (info->has_parent)
        snprintf(parent, sizeof parent, "%" PRId64, info->parent_snapshot_id);
    else
        snprintf(parent, sizeof parent, "null");
    snprintf(seq, sizeof seq, "%" PRId64, info->sequence_number);
    snprintf(frid, sizeof frid, "%" PRId64, info->first_row_id);
    snprintf(fvs, sizeof fvs, "%d", fv);
    fl_avro_meta meta[5];
    size_t nm = 0;
    meta[nm++] = (fl_avro_meta){"snapshot-id", (const uint8_t *)snap, strlen(snap)};
    meta[nm++] = (fl_avro_meta){"parent-snapshot-id", (const uint8_t *)parent, strlen(parent)};
    if (fv >= 2)
        meta[nm++] = (fl_avro_meta){"sequence-number", (const uint8_t *)seq, strlen(seq)};
    if (fv >= 3)
        meta[nm++] = (fl_avro_meta){"first-row-id", (const uint8_t *)frid, strlen(frid)};
    meta[nm++] = (fl_avro_meta){"format-version", (const uint8_t *)fvs, strlen(fvs)};
    fl_avro_writer_options opt = {.codec = "deflate", .meta = meta, .nmeta = nm};
    fl_output *o = NULL;
    fl_avro_writer *aw = NULL;
    fl_status rc = fl_fileio_create(io, path, 0, &o, err);
    if (rc == FL_OK)
        rc = fl_avro_writer_open(o, schema, strlen(schema), &opt, &aw, err);
    free(schema);
    if (rc)
        return fl_error_prefix(err, "manifest list %s", path);
    ice_enc e = {.oom = false};
    int64_t next = info->first_row_id;
    for (uint32_t i = 0; i < n && rc == FL_OK; i++) {
        e.b.len = 0;
        rc = enc_manifest(&e, info, &files[i], &next, err);
        if (rc) {
            fl_error_prefix(err, "manifest list %s: manifest %u (%s)", path, i,
                            files[i].manifest_path ? files[i].manifest_path : "?");
        } else if (e.oom) {
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
        } else {
            rc = fl_avro_writer_append_raw(aw, e.b.data, e.b.len, err);
        }
    }
    fl_avro_buf_free(&e.b);
    if (rc) {
        fl_avro_writer_abort(aw);
        return rc;
    }
    rc = fl_avro_writer_close(aw, err);
    if (rc)
        return fl_error_prefix(err, "manifest list %s", path);
    if (next_row_id)
        *next_row_id = next;
    return FL_OK;
}
