/*
 * delete_pos.c - position delete files (spec "Position Delete Files"):
 * Parquet files of (file_path string id 2147483546, pos long id 2147483545),
 * sorted by file_path then pos. Loading keeps the positions of one data file.
 *
 * The scan passes file_path = <data file> as a predicate, so row groups of
 * other data files are skipped by their statistics (delete files are sorted
 * by path, so a data file's rows are usually in one row group).
 *
 * Paths compare as the exact strings written in the manifests (not remapped):
 * the delete file stores the data file's path as its manifest entry does.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "floe/parquet.h"
#include "iceberg/scan_internal.h"

static fl_status push(ice_posvec *v, uint64_t x, fl_error *err)
{
    if (v->n == v->cap) {
        size_t nc = v->cap ? v->cap * 2 : 1024;
        uint64_t *p = realloc(v->v, nc * sizeof *p);
        if (!p)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        v->v = p;
        v->cap = nc;
    }
    v->v[v->n++] = x;
    return FL_OK;
}

fl_status ice_posdel_load(fl_fileio *io, const fl_ice_data_file *del, const char *data_path,
                          ice_posvec *out, fl_error *err)
{
    if (strcasecmp(del->file_format, "PARQUET") != 0)
        return fl_errorf(err, FL_EUNSUPPORTED, "%s: position delete file format %s", del->file_path,
                         del->file_format);
    fl_file *f = NULL;
    fl_parquet_reader *r = NULL;
    fl_parquet_scan *s = NULL;
    fl_batch b;
    bool binit = false;
    fl_status rc = fl_fileio_open(io, del->file_path, &f, err);
    if (rc == FL_OK)
        rc = fl_parquet_open(f, NULL, &r, err);
    int32_t ids[2] = {FL_ICE_FIELD_ID_DELETE_FILE_PATH, FL_ICE_FIELD_ID_DELETE_POS};
    fl_col_pred term = {.field_id = FL_ICE_FIELD_ID_DELETE_FILE_PATH, .op = FL_CMP_EQ};
    term.value.type.id = FL_TYPE_STRING;
    term.value.v.bytes.ptr = (const uint8_t *)data_path;
    term.value.v.bytes.len = strlen(data_path);
    fl_predicate pred = {1, &term};
    fl_parquet_scan_options so = {.field_ids = ids, .nfield_ids = 2, .predicate = &pred};
    if (rc == FL_OK)
        rc = fl_parquet_scan_open(r, &so, &s, err);
    const fl_schema *ss = rc == FL_OK ? fl_parquet_scan_schema(s) : NULL;
    int ipath = -1, ipos = -1;
    for (uint32_t i = 0; ss && i < ss->nfields; i++) {
        if (ss->fields[i].field_id == ids[0] && fl_type_is_varlen(&ss->fields[i].type))
            ipath = (int)i;
        if (ss->fields[i].field_id == ids[1] && ss->fields[i].type.id == FL_TYPE_INT64)
            ipos = (int)i;
    }
    if (rc == FL_OK && (ipath < 0 || ipos < 0))
        rc = fl_errorf(err, FL_ECORRUPT, "file_path/pos columns missing or mistyped");
    if (rc == FL_OK) {
        rc = fl_batch_init(&b, ss, err);
        binit = rc == FL_OK;
    }
    size_t plen = strlen(data_path);
    while (rc == FL_OK) {
        bool eof = false;
        rc = fl_parquet_scan_next(s, &b, &eof, err);
        if (rc != FL_OK || eof)
            break;
        fl_unified up, uq;
        fl_vector_unify(&b.cols[ipath], &up);
        fl_vector_unify(&b.cols[ipos], &uq);
        const int64_t *pos = (const int64_t *)uq.base->data;
        for (uint32_t i = 0; i < b.nrows && rc == FL_OK; i++) {
            if (!fl_unified_is_valid(&up, i) || !fl_unified_is_valid(&uq, i))
                continue;
            size_t len;
            const uint8_t *p = fl_vector_bytes(up.base, fl_unified_row(&up, i), &len);
            if (len != plen || memcmp(p, data_path, len) != 0)
                continue;
            int64_t x = pos[fl_unified_row(&uq, i)];
            if (x < 0) {
                rc = fl_errorf(err, FL_ECORRUPT, "negative pos %lld", (long long)x);
                break;
            }
            rc = push(out, (uint64_t)x, err);
        }
    }
    if (binit)
        fl_batch_destroy(&b);
    fl_parquet_scan_close(s);
    fl_parquet_close(r);
    fl_file_close(f);
    if (rc != FL_OK)
        return fl_error_prefix(err, "position deletes %s", del->file_path);
    return FL_OK;
}

fl_status ice_task_deleted_positions(fl_fileio *io, const fl_ice_scan_task *t, bool lenient_dv,
                                     fl_ice_position_set *out, fl_error *err)
{
    ice_posvec pv = {0};
    fl_ice_position_set dv = {0};
    memset(out, 0, sizeof *out);
    fl_status rc = FL_OK;
    for (uint32_t i = 0; i < t->ndeletes && rc == FL_OK; i++) {
        const fl_ice_data_file *d = t->deletes[i];
        if (d->content != FL_ICE_CONTENT_POSITION_DELETES)
            continue;
        if (!strcasecmp(d->file_format, "PUFFIN")) {
            fl_ice_position_set one, u = {0};
            rc = ice_dv_read(io, d, lenient_dv, &one, err);
            if (rc == FL_OK) {
                rc = ice_pos_union(&dv, &one, &u, err);
                fl_ice_position_set_free(&one);
                fl_ice_position_set_free(&dv);
                dv = u;
            }
        } else {
            rc = ice_posdel_load(io, d, t->file->file_path, &pv, err);
        }
    }
    if (rc == FL_OK) {
        fl_ice_position_set ps = {0};
        rc = ice_pos_from_array(pv.v, pv.n, &ps, err);
        if (rc == FL_OK) {
            rc = ice_pos_union(&ps, &dv, out, err);
            fl_ice_position_set_free(&ps);
        }
    }
    free(pv.v);
    fl_ice_position_set_free(&dv);
    return rc;
}
