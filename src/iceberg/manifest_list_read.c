/*
 * manifest_list_read.c - reads a snapshot's manifest list (spec "Manifest
 * Lists"): an Avro container of manifest_file records {manifest_path 500,
 * manifest_length 501, partition_spec_id 502, content 517, sequence_number
 * 515, min_sequence_number 516, added_snapshot_id 503, added/existing/
 * deleted files 504/505/506 (named added_data_files_count etc. by Java
 * before 1.5), added/existing/deleted rows 512/513/514, partitions 507
 * (array of field_summary 508 {contains_null 509, contains_nan 518,
 * lower_bound 510, upper_bound 511}), key_metadata 519, first_row_id 520}.
 *
 * Fields are found by field id only. Fields a v1 list lacks take the v2
 * defaults (content data, sequence numbers 0); absent or null counts are -1.
 * A null sequence number in a v2+ table's list is an error (Java always
 * writes real numbers there).
 *
 * Also: fl_ice_snapshot_manifests(), which for v1 snapshots that list their
 * manifests inline builds the entries from each manifest's header
 * (partition-spec-id, content) and its entries (counts), as Java's
 * GenericManifestFile does when it has only a path.
 */
#include <stdlib.h>
#include <string.h>

#include "floe/iceberg.h"
#include "iceberg/manifest_int.h"

static fl_status read_summaries(const fl_avro_value *v, fl_arena *a, fl_ice_manifest_file *mf,
                                fl_error *err)
{
    if (v->type != FL_AVRO_ARRAY)
        return fl_errorf(err, FL_ETYPE, "field 'partitions': expected an array, found %s",
                         fl_avro_type_name(v->type));
    size_t n = v->u.list.n;
    if (n > UINT32_MAX)
        return fl_errorf(err, FL_ELIMIT, "field 'partitions': too many items");
    mf->partitions = fl_arena_calloc(a, n ? n : 1, sizeof *mf->partitions);
    if (!mf->partitions)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    mf->npartitions = (uint32_t)n;
    for (size_t i = 0; i < n; i++) {
        const fl_avro_value *s = &v->u.list.items[i];
        fl_ice_field_summary *fs = &mf->partitions[i];
        if (s->type != FL_AVRO_RECORD)
            return fl_errorf(err, FL_ETYPE, "partitions[%zu]: expected a field_summary record", i);
        bool has_null = false;
        for (size_t j = 0; j < s->u.list.n; j++) {
            const fl_avro_value *x = &s->u.list.items[j];
            const char *nm = mv_field_name(s, j);
            if (mv_null(x))
                continue;
            fl_status rc = FL_OK;
            switch (mv_field_id(s, j)) {
            case ML_CONTAINS_NULL:
                rc = mv_bool(x, nm, &fs->contains_null, err);
                has_null = true;
                break;
            case ML_CONTAINS_NAN:
                rc = mv_bool(x, nm, &fs->contains_nan, err);
                fs->has_contains_nan = true;
                break;
            case ML_LOWER:
                rc = mv_bytes(x, nm, a, &fs->lower, &fs->lower_len, err);
                fs->has_lower = true;
                break;
            case ML_UPPER:
                rc = mv_bytes(x, nm, a, &fs->upper, &fs->upper_len, err);
                fs->has_upper = true;
                break;
            default: break;
            }
            if (rc)
                return fl_error_prefix(err, "partitions[%zu]", i);
        }
        if (!has_null)
            return fl_errorf(err, FL_ECORRUPT,
                             "partitions[%zu]: contains_null (field id 509) is missing or null", i);
    }
    return FL_OK;
}

typedef struct seen {
    bool path, length, spec, seq_field, seq, min_seq_field, min_seq;
} seen;

static fl_status read_one(const fl_avro_value *v, int format_version, fl_arena *a,
                          fl_ice_manifest_file *mf, fl_error *err)
{
    memset(mf, 0, sizeof *mf);
    mf->added_snapshot_id = -1;
    mf->added_files_count = mf->existing_files_count = mf->deleted_files_count = -1;
    mf->added_rows_count = mf->existing_rows_count = mf->deleted_rows_count = -1;
    if (v->type != FL_AVRO_RECORD)
        return fl_errorf(err, FL_ETYPE, "expected a manifest_file record, found %s",
                         fl_avro_type_name(v->type));
    seen s = {0};
    for (size_t i = 0; i < v->u.list.n; i++) {
        const fl_avro_value *x = &v->u.list.items[i];
        int32_t fid = mv_field_id(v, i);
        const char *nm = mv_field_name(v, i);
        if (fid == ML_SEQ)
            s.seq_field = true;
        if (fid == ML_MIN_SEQ)
            s.min_seq_field = true;
        if (mv_null(x))
            continue;
        int32_t c;
        switch (fid) {
        case ML_PATH:
            FL_TRY(mv_str(x, nm, a, &mf->manifest_path, err));
            s.path = true;
            break;
        case ML_LENGTH:
            FL_TRY(mv_long(x, nm, &mf->manifest_length, err));
            s.length = true;
            break;
        case ML_SPEC_ID:
            FL_TRY(mv_int(x, nm, &mf->partition_spec_id, err));
            s.spec = true;
            break;
        case ML_CONTENT:
            FL_TRY(mv_int(x, nm, &c, err));
            if (c != 0 && c != 1)
                return fl_errorf(err, FL_ECORRUPT, "field '%s': unknown content %d", nm, (int)c);
            mf->content = (fl_ice_manifest_content)c;
            break;
        case ML_SEQ:
            FL_TRY(mv_long(x, nm, &mf->sequence_number, err));
            s.seq = true;
            break;
        case ML_MIN_SEQ:
            FL_TRY(mv_long(x, nm, &mf->min_sequence_number, err));
            s.min_seq = true;
            break;
        case ML_ADDED_SNAPSHOT_ID: FL_TRY(mv_long(x, nm, &mf->added_snapshot_id, err)); break;
        case ML_ADDED_FILES: FL_TRY(mv_int(x, nm, &mf->added_files_count, err)); break;
        case ML_EXISTING_FILES: FL_TRY(mv_int(x, nm, &mf->existing_files_count, err)); break;
        case ML_DELETED_FILES: FL_TRY(mv_int(x, nm, &mf->deleted_files_count, err)); break;
        case ML_ADDED_ROWS: FL_TRY(mv_long(x, nm, &mf->added_rows_count, err)); break;
        case ML_EXISTING_ROWS: FL_TRY(mv_long(x, nm, &mf->existing_rows_count, err)); break;
        case ML_DELETED_ROWS: FL_TRY(mv_long(x, nm, &mf->deleted_rows_count, err)); break;
        case ML_PARTITIONS: FL_TRY(read_summaries(x, a, mf, err)); break;
        case ML_KEY_METADATA:
            FL_TRY(mv_bytes(x, nm, a, &mf->key_metadata, &mf->key_metadata_len, err));
            break;
        case ML_FIRST_ROW_ID:
            FL_TRY(mv_long(x, nm, &mf->first_row_id, err));
            mf->has_first_row_id = true;
            break;
        default: break;
        }
    }
    if (!s.path)
        return fl_errorf(err, FL_ECORRUPT, "manifest_path (field id 500) is missing or null");
    if (!s.length)
        return fl_errorf(err, FL_ECORRUPT, "manifest_length (field id 501) is missing or null");
    if (!s.spec)
        return fl_errorf(err, FL_ECORRUPT, "partition_spec_id (field id 502) is missing or null");
    if (format_version >= 2 && ((s.seq_field && !s.seq) || (s.min_seq_field && !s.min_seq)))
        return fl_errorf(err, FL_ECORRUPT, "sequence_number or min_sequence_number is null");
    if (!s.min_seq && s.seq)
        mf->min_sequence_number = mf->sequence_number;
    return FL_OK;
}

fl_status fl_ice_manifest_list_read(fl_fileio *io, const char *path, int format_version,
                                    fl_arena *a, fl_ice_manifest_file **out, uint32_t *n,
                                    fl_error *err)
{
    *out = NULL;
    *n = 0;
    fl_file *f = NULL;
    fl_status rc = fl_fileio_open(io, path, &f, err);
    if (rc)
        return fl_error_prefix(err, "manifest list %s", path);
    fl_avro_reader *ar = NULL;
    rc = fl_avro_reader_open(f, NULL, &ar, err);
    if (rc) {
        fl_file_close(f);
        return fl_error_prefix(err, "manifest list %s", path);
    }
    const fl_avro_schema *s = fl_avro_reader_schema(ar);
    bool ok = s->type == FL_AVRO_RECORD;
    bool has_path = false;
    for (uint32_t i = 0; ok && i < s->nfields; i++)
        has_path |= s->fields[i].has_field_id && s->fields[i].field_id == ML_PATH;
    fl_ice_manifest_file *buf = NULL;
    uint32_t len = 0, cap = 0;
    fl_arena scratch;
    fl_arena_init(&scratch, 0);
    if (!ok || !has_path)
        rc = fl_errorf(err, FL_ECORRUPT,
                       "manifest list %s: the Avro schema is not a manifest_file (no field id 500)",
                       path);
    while (rc == FL_OK) {
        fl_avro_value v;
        bool done;
        fl_arena_reset(&scratch);
        rc = fl_avro_reader_next(ar, &scratch, &v, &done, err);
        if (rc) {
            fl_error_prefix(err, "manifest list: reading entry %u", len);
            break;
        }
        if (done)
            break;
        if (len == cap) {
            uint32_t nc = cap ? cap * 2 : 16;
            fl_ice_manifest_file *nb = nc > cap ? realloc(buf, (size_t)nc * sizeof *nb) : NULL;
            if (!nb) {
                rc = fl_errorf(err, FL_ENOMEM, "out of memory");
                break;
            }
            buf = nb;
            cap = nc;
        }
        rc = read_one(&v, format_version, a, &buf[len], err);
        if (rc) {
            fl_error_prefix(err, "manifest list %s: entry %u", path, len);
            break;
        }
        len++;
    }
    fl_arena_free(&scratch);
    fl_avro_reader_close(ar);
    fl_file_close(f);
    if (rc == FL_OK) {
        *out = fl_arena_alloc(a, (len ? len : 1) * sizeof **out);
        if (!*out)
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
        else if (len)
            memcpy(*out, buf, (size_t)len * sizeof **out);
        *n = len;
    }
    free(buf);
    return rc;
}

/* A v1 inline manifest: spec id and content from the header, length from the
 * file, counts from the entries. */
static fl_status inline_manifest(fl_fileio *io, const fl_ice_metadata *m, const char *path,
                                 fl_arena *a, fl_ice_manifest_file *mf, fl_error *err)
{
    memset(mf, 0, sizeof *mf);
    mf->manifest_path = fl_arena_strdup(a, path);
    if (!mf->manifest_path)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    mf->added_snapshot_id = -1; /* unknown: v1 entries carry their snapshot_id */
    fl_file *f = NULL;
    fl_status rc = fl_fileio_open(io, path, &f, err);
    if (rc)
        return fl_error_prefix(err, "manifest %s", path);
    mf->manifest_length = (int64_t)f->size;
    fl_avro_reader *ar = NULL;
    rc = fl_avro_reader_open(f, NULL, &ar, err);
    if (rc == FL_OK) {
        const fl_avro_meta *sid = fl_avro_reader_meta_find(ar, "partition-spec-id");
        const fl_avro_meta *ct = fl_avro_reader_meta_find(ar, "content");
        if (sid) {
            char *end;
            long v = strtol((const char *)sid->value, &end, 10);
            if (*end || end == (const char *)sid->value || v < INT32_MIN || v > INT32_MAX)
                rc = fl_errorf(err, FL_ECORRUPT, "manifest %s: bad partition-spec-id '%s'", path,
                               (const char *)sid->value);
            mf->partition_spec_id = (int32_t)v;
        } else {
            mf->partition_spec_id = m->default_spec_id;
        }
        if (ct && !strcmp((const char *)ct->value, "deletes"))
            mf->content = FL_ICE_MANIFEST_DELETES;
    } else {
        fl_error_prefix(err, "manifest %s", path);
    }
    fl_avro_reader_close(ar);
    fl_file_close(f);
    if (rc)
        return rc;
    fl_arena tmp;
    fl_arena_init(&tmp, 0);
    fl_ice_manifest_entry *es;
    uint32_t n;
    rc = fl_ice_manifest_read(io, m, mf, &tmp, &es, &n, err);
    if (rc == FL_OK) {
        mf->added_files_count = mf->existing_files_count = mf->deleted_files_count = 0;
        mf->added_rows_count = mf->existing_rows_count = mf->deleted_rows_count = 0;
        for (uint32_t i = 0; i < n; i++) {
            int64_t rc_ = es[i].file.record_count;
            switch (es[i].status) {
            case FL_ICE_STATUS_ADDED: mf->added_files_count++, mf->added_rows_count += rc_; break;
            case FL_ICE_STATUS_EXISTING:
                mf->existing_files_count++, mf->existing_rows_count += rc_;
                break;
            default: mf->deleted_files_count++, mf->deleted_rows_count += rc_; break;
            }
        }
    }
    fl_arena_free(&tmp);
    return rc;
}

fl_status fl_ice_snapshot_manifests(fl_fileio *io, const fl_ice_metadata *m,
                                    const fl_ice_snapshot *s, fl_arena *a,
                                    fl_ice_manifest_file **out, uint32_t *n, fl_error *err)
{
    if (s->manifest_list)
        return fl_ice_manifest_list_read(io, s->manifest_list, m->format_version, a, out, n, err);
    *out = NULL;
    *n = 0;
    if (!s->has_manifests)
        return fl_errorf(err, FL_ECORRUPT,
                         "snapshot %lld has neither a manifest-list nor manifests",
                         (long long)s->snapshot_id);
    fl_ice_manifest_file *mfs = fl_arena_calloc(a, s->nmanifests ? s->nmanifests : 1, sizeof *mfs);
    if (!mfs)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < s->nmanifests; i++) {
        fl_status rc = inline_manifest(io, m, s->manifests[i], a, &mfs[i], err);
        if (rc)
            return fl_error_prefix(err, "snapshot %lld: manifests[%u]", (long long)s->snapshot_id,
                                   i);
    }
    *out = mfs;
    *n = s->nmanifests;
    return FL_OK;
}
