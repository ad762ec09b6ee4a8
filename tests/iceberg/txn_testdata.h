/*
 * txn_testdata.h - helpers for tests that commit real data: a table
 * (id long required, grp int) in a SQLite catalog, small Parquet data files
 * with Iceberg metrics (bounds in the single-value serialization, counts),
 * and a full scan that counts rows and sums ids.
 */
#ifndef FLOE_TXN_TESTDATA_H
#define FLOE_TXN_TESTDATA_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/catalog.h"
#include "floe/ice_scan.h"
#include "floe/ice_table.h"
#include "floe/parquet.h"
#include "floe/vector.h"

static fl_field TD_FIELDS[2] = {
    {.name = "id", .field_id = 1, .nullable = false, .type = {.id = FL_TYPE_INT64}},
    {.name = "grp", .field_id = 2, .nullable = true, .type = {.id = FL_TYPE_INT32}},
};
static const fl_schema TD_SCHEMA = {.nfields = 2, .fields = TD_FIELDS};

/* Opens (creating) the SQLite catalog db under dir with namespace "db". */
static __attribute__((unused)) fl_status td_catalog(const char *dir, fl_fileio *io,
                                                    fl_catalog **out, fl_error *err)
{
    char db[4096], wh[4096];
    snprintf(db, sizeof db, "%s/catalog.db", dir);
    snprintf(wh, sizeof wh, "%s/wh", dir);
    FL_TRY(fl_catalog_sqlite_open(db, "floe", wh, io, out, err));
    const char *lv[] = {"db"};
    fl_namespace ns = {1, lv};
    fl_status rc = (*out)->ops->create_namespace(*out, &ns, NULL, err);
    return rc == FL_EEXIST ? FL_OK : rc;
}

static __attribute__((unused)) fl_table_ident td_ident(const char *name)
{
    static const char *lv[] = {"db"};
    fl_table_ident id = {.ns = {1, lv}, .name = name};
    return id;
}

/* Creates db.<name> with properties kv (n pairs), optionally staged. */
static __attribute__((unused)) fl_status td_create(fl_catalog *c, const char *name,
                                                   const fl_ice_kv *kv, uint32_t n, bool staged,
                                                   fl_ice_table **out, fl_error *err)
{
    fl_table_ident id = td_ident(name);
    fl_ice_map props = {n, (fl_ice_kv *)kv};
    fl_ice_create_options o = {.schema = &TD_SCHEMA, .properties = &props, .stage_only = staged};
    return fl_ice_table_create(c, &id, &o, out, err);
}

/* Writes rows id = first..first+nrows-1, grp = grp to path as Parquet and
 * describes it as an Iceberg data file (strings and metrics in a). */
static __attribute__((unused)) fl_status td_write_file(fl_fileio *io, const char *path,
                                                       int64_t first, uint32_t nrows, int32_t grp,
                                                       fl_arena *a, fl_ice_data_file *out,
                                                       fl_error *err)
{
    fl_batch b;
    FL_TRY(fl_batch_init(&b, &TD_SCHEMA, err));
    fl_status rc = fl_vector_reserve(&b.cols[0], nrows, err);
    if (rc == FL_OK)
        rc = fl_vector_reserve(&b.cols[1], nrows, err);
    for (uint32_t i = 0; rc == FL_OK && i < nrows; i++) {
        int64_t id = first + i;
        rc = fl_vector_append_fixed(&b.cols[0], &id, err);
        if (rc == FL_OK)
            rc = fl_vector_append_fixed(&b.cols[1], &grp, err);
    }
    b.nrows = nrows;
    fl_output *o = NULL;
    fl_parquet_writer *w = NULL;
    fl_parquet_file_result res = {0};
    if (rc == FL_OK)
        rc = fl_fileio_create(io, path, 0, &o, err);
    if (rc == FL_OK) {
        rc = fl_parquet_writer_open(o, &TD_SCHEMA, NULL, &w, err);
        if (rc == FL_OK)
            rc = fl_parquet_writer_write(w, &b, err);
        if (rc == FL_OK) {
            rc = fl_parquet_writer_close(w, &res, err);
            w = NULL;
        }
        if (w)
            fl_parquet_writer_abort(w);
        if (rc == FL_OK)
            rc = fl_output_close(o, err);
        else
            fl_output_abort(o);
    }
    fl_batch_destroy(&b);
    if (rc != FL_OK)
        return rc;
    int64_t size = (int64_t)res.file_size;
    fl_parquet_file_result_free(&res);
    fl_ice_column_metrics *m = fl_arena_calloc(a, 2, sizeof *m);
    uint8_t *lo = fl_arena_alloc(a, 8), *hi = fl_arena_alloc(a, 8), *g = fl_arena_alloc(a, 4);
    if (!m || !lo || !hi || !g)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    int64_t last = first + (int64_t)nrows - 1;
    memcpy(lo, &first, 8); /* little-endian hosts: the spec's byte order */
    memcpy(hi, &last, 8);
    memcpy(g, &grp, 4);
    m[0] = (fl_ice_column_metrics){.field_id = 1,
                                   .column_size = -1,
                                   .value_count = nrows,
                                   .null_value_count = 0,
                                   .nan_value_count = -1,
                                   .has_lower = true,
                                   .has_upper = true,
                                   .lower = lo,
                                   .lower_len = 8,
                                   .upper = hi,
                                   .upper_len = 8};
    m[1] = (fl_ice_column_metrics){.field_id = 2,
                                   .column_size = -1,
                                   .value_count = nrows,
                                   .null_value_count = 0,
                                   .nan_value_count = -1,
                                   .has_lower = true,
                                   .has_upper = true,
                                   .lower = g,
                                   .lower_len = 4,
                                   .upper = g,
                                   .upper_len = 4};
    *out = (fl_ice_data_file){.content = FL_ICE_CONTENT_DATA,
                              .file_path = fl_arena_strdup(a, path),
                              .file_format = "PARQUET",
                              .spec_id = 0,
                              .record_count = nrows,
                              .file_size_in_bytes = size,
                              .nmetrics = 2,
                              .metrics = m};
    return FL_OK;
}

/* Scans metadata m fully: rows and the sum of ids. */
static __attribute__((unused)) fl_status td_scan(fl_fileio *io, const fl_ice_metadata *m,
                                                 int64_t *rows, int64_t *sum, fl_error *err)
{
    *rows = 0;
    *sum = 0;
    fl_ice_scan_options opt = {0};
    fl_ice_scan *s = NULL;
    FL_TRY(fl_ice_scan_open(io, m, &opt, &s, err));
    fl_batch b;
    fl_status rc = fl_batch_init(&b, fl_ice_scan_schema(s), err);
    if (rc != FL_OK) {
        fl_ice_scan_close(s);
        return rc;
    }
    for (;;) {
        bool eof = false;
        rc = fl_ice_scan_next(s, &b, &eof, err);
        if (rc != FL_OK || eof)
            break;
        uint32_t n = fl_batch_live_rows(&b);
        const int64_t *ids = (const int64_t *)b.cols[0].data;
        for (uint32_t i = 0; i < n; i++)
            *sum += ids[b.sel ? b.sel->idx[i] : i];
        *rows += n;
    }
    fl_batch_destroy(&b);
    fl_ice_scan_close(s);
    return rc;
}

#endif
