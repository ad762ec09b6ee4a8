/*
 * stats_file.c - Iceberg statistics files of theta sketches (ice_stats.h).
 *
 * Writing: one Puffin file <metadata dir>/<snapshot id>-<uuid>.stats (the
 * folder of metadata files: write.metadata.path, else <location>/metadata,
 * like Java's statistics writers), one apache-datasketches-theta-v1 blob per
 * column: fields [id], the snapshot's id and sequence number, the compact
 * sketch, property ndv = the estimate truncated to an integer (Spark's and
 * Trino's spelling). The entry returned repeats each blob's metadata without
 * offset/length (spec "Table Statistics").
 *
 * Finding: the entry of the snapshot itself, else of the nearest ancestor
 * (parent chain through the metadata's snapshots).
 *
 * Reading NDV: only the Puffin footer (puffin.c); blobs of other types,
 * multi-column blobs and unparsable ndv values are skipped.
 */
#include <stdlib.h>
#include <string.h>

#include "iceberg/scan_internal.h"
#include "iceberg/stats_internal.h"
#include "iceberg/txn_internal.h"

static fl_status make_blobs(const fl_ice_snapshot *sn, const int32_t *fields,
                            fl_theta_sketch *const *sk, uint32_t n, fl_arena *a,
                            ice_puffin_blob_in *in, fl_error *err)
{
    for (uint32_t i = 0; i < n; i++) {
        uint8_t *bytes = NULL;
        size_t len = 0;
        FL_TRY(fl_theta_serialize(sk[i], &bytes, &len, err));
        uint8_t *copy = fl_arena_alloc(a, len);
        if (copy)
            memcpy(copy, bytes, len);
        free(bytes);
        fl_ice_map *props = fl_arena_calloc(a, 1, sizeof *props);
        fl_ice_kv *kv = fl_arena_calloc(a, 1, sizeof *kv);
        if (!copy || !props || !kv)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        kv->key = "ndv";
        kv->value = fl_arena_sprintf(a, "%lld", (long long)fl_theta_estimate(sk[i]));
        *props = (fl_ice_map){1, kv};
        in[i] = (ice_puffin_blob_in){.type = FL_ICE_BLOB_THETA,
                                     .fields = &fields[i],
                                     .nfields = 1,
                                     .snapshot_id = sn->snapshot_id,
                                     .sequence_number = sn->sequence_number,
                                     .data = copy,
                                     .len = len,
                                     .properties = props};
    }
    return FL_OK;
}

static fl_status describe(const ice_puffin_blob_in *in, uint32_t n, fl_arena *a,
                          fl_ice_statistics_file *out, fl_error *err)
{
    out->blobs = fl_arena_calloc(a, n ? n : 1, sizeof *out->blobs);
    if (!out->blobs)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    out->nblobs = n;
    for (uint32_t i = 0; i < n; i++) {
        fl_ice_blob_metadata *b = &out->blobs[i];
        b->type = in[i].type;
        b->snapshot_id = in[i].snapshot_id;
        b->sequence_number = in[i].sequence_number;
        b->nfields = in[i].nfields;
        b->fields = (int32_t *)in[i].fields;
        b->has_properties = true;
        b->properties = *in[i].properties;
    }
    return FL_OK;
}

fl_status fl_ice_stats_write_theta(fl_fileio *io, const fl_ice_metadata *m, int64_t snapshot_id,
                                   const int32_t *fields, fl_theta_sketch *const *sketches,
                                   uint32_t n, fl_arena *a, fl_ice_statistics_file *out,
                                   fl_error *err)
{
    memset(out, 0, sizeof *out);
    const fl_ice_snapshot *sn = fl_ice_metadata_snapshot(m, snapshot_id);
    if (!sn)
        return fl_errorf(err, FL_ENOTFOUND, "statistics: snapshot %lld is not in the table",
                         (long long)snapshot_id);
    int32_t *ids = fl_arena_alloc(a, (n ? n : 1) * sizeof *ids);
    ice_puffin_blob_in *in = fl_arena_calloc(a, n ? n : 1, sizeof *in);
    const char *dir = txn_metadata_dir(m, a);
    char uuid[37];
    fl_ice_uuid4(uuid);
    const char *path =
        dir ? fl_arena_sprintf(a, "%s/%lld-%s.stats", dir, (long long)snapshot_id, uuid) : NULL;
    if (!ids || !in || !path)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    memcpy(ids, fields, n * sizeof *ids);
    FL_TRY(make_blobs(sn, ids, sketches, n, a, in, err));
    ice_puffin_written w;
    FL_TRY(ice_puffin_write(io, path, in, n, "floe", a, &w, err));
    out->snapshot_id = snapshot_id;
    out->statistics_path = path;
    out->file_size_in_bytes = (int64_t)w.file_size;
    out->file_footer_size_in_bytes = (int64_t)w.footer_size;
    return describe(in, n, a, out, err);
}

static const fl_ice_statistics_file *stats_of(const fl_ice_metadata *m, int64_t id)
{
    for (uint32_t i = 0; i < m->nstatistics; i++)
        if (m->statistics[i].snapshot_id == id)
            return &m->statistics[i];
    return NULL;
}

const fl_ice_statistics_file *fl_ice_stats_find(const fl_ice_metadata *m, int64_t snapshot_id)
{
    const fl_ice_snapshot *sn = fl_ice_metadata_snapshot(m, snapshot_id);
    /* bounded by the number of snapshots, so a parent cycle cannot loop */
    for (uint32_t hops = 0; sn && hops <= m->nsnapshots; hops++) {
        const fl_ice_statistics_file *f = stats_of(m, sn->snapshot_id);
        if (f)
            return f;
        sn = sn->has_parent ? fl_ice_metadata_snapshot(m, sn->parent_snapshot_id) : NULL;
    }
    return NULL;
}

static bool parse_ndv(const char *s, int64_t *out)
{
    if (!s || !*s)
        return false;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (*end || v < 0)
        return false;
    *out = v;
    return true;
}

fl_status ice_stats_ndv_of_footer(const ice_puffin_footer *ft, fl_arena *a, fl_ice_column_ndv **out,
                                  uint32_t *n, fl_error *err)
{
    *out = NULL;
    *n = 0;
    fl_ice_column_ndv *v = fl_arena_calloc(a, ft->nblobs ? ft->nblobs : 1, sizeof *v);
    if (!v)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    uint32_t k = 0;
    for (uint32_t i = 0; i < ft->nblobs; i++) {
        const ice_puffin_blob *b = &ft->blobs[i];
        if (strcmp(b->type, FL_ICE_BLOB_THETA) != 0 || b->nfields != 1 ||
            !parse_ndv(b->ndv, &v[k].ndv))
            continue;
        v[k++].field_id = b->fields[0];
    }
    *out = v;
    *n = k;
    return FL_OK;
}

fl_status fl_ice_stats_read_ndv(fl_fileio *io, const fl_ice_statistics_file *sf, fl_arena *a,
                                fl_ice_column_ndv **out, uint32_t *n, fl_error *err)
{
    *out = NULL;
    *n = 0;
    fl_file *f = NULL;
    FL_TRY(fl_fileio_open(io, sf->statistics_path, &f, err));
    ice_puffin_footer ft;
    fl_status rc = ice_puffin_read_footer(f, a, &ft, err);
    fl_file_close(f);
    FL_TRY(rc);
    return ice_stats_ndv_of_footer(&ft, a, out, n, err);
}
