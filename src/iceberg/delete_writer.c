/*
 * delete_writer.c - position delete files (spec "Position Delete Files"):
 * Parquet files of (file_path: string, field id 2147483546, required;
 * pos: long, field id 2147483545, required) rows, sorted by file_path then
 * pos, each row deleting one row of one data file.
 *
 * One call writes one file for one partition (a delete file applies to the
 * data files of its spec + partition): the data files' positions in path
 * order, each file's positions ascending (sorted here if the caller's are
 * not; duplicates dropped). When the file covers a single data file,
 * referenced_data_file is set (readers then skip it for other files).
 * Metrics are "full" for both columns, as Java's MetricsConfig for position
 * deletes, so file_path bounds name the data files exactly.
 *
 * Path: <data dir>/<partition path>/<uuid>-deletes.parquet; the
 * "iceberg.schema" key holds the delete schema. The output is created
 * exclusively and removed again if anything after its creation fails.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "floe/ice_table.h"
#include "iceberg/write_internal.h"

static fl_field del_fields[2] = {
    {.name = "file_path",
     .field_id = FL_ICE_FIELD_ID_DELETE_FILE_PATH,
     .nullable = false,
     .type = {.id = FL_TYPE_STRING}},
    {.name = "pos",
     .field_id = FL_ICE_FIELD_ID_DELETE_POS,
     .nullable = false,
     .type = {.id = FL_TYPE_INT64}},
};
static const fl_schema del_schema = {2, del_fields, 0};
static const char DEL_SCHEMA_JSON[] =
    "{\"type\":\"struct\",\"schema-id\":0,\"fields\":[{\"id\":2147483546,\"name\":\"file_path\","
    "\"required\":true,\"type\":\"string\"},{\"id\":2147483545,\"name\":\"pos\",\"required\":true,"
    "\"type\":\"long\"}]}";

static int cmp_path(const void *a, const void *b)
{
    const fl_ice_file_positions *x = *(const fl_ice_file_positions *const *)a;
    const fl_ice_file_positions *y = *(const fl_ice_file_positions *const *)b;
    return strcmp(x->file_path, y->file_path);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Writes the rows; *rows gets the count written. */
static fl_status write_rows(fl_parquet_writer *pw, const fl_ice_file_positions *const *order,
                            uint32_t n, int64_t *rows, fl_error *err)
{
    fl_batch b;
    FL_TRY(fl_batch_init(&b, &del_schema, err));
    fl_status rc = FL_OK;
    *rows = 0;
    for (uint32_t i = 0; i < n && rc == FL_OK; i++) {
        const fl_ice_file_positions *d = order[i];
        int64_t *pos = malloc((d->npositions + 1) * sizeof *pos);
        if (!pos) {
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
            break;
        }
        if (d->npositions)
            memcpy(pos, d->positions, d->npositions * sizeof *pos);
        if (d->npositions > 1)
            qsort(pos, d->npositions, sizeof *pos, cmp_i64);
        size_t plen = strlen(d->file_path);
        for (uint64_t k = 0; k < d->npositions && rc == FL_OK; k++) {
            if (pos[k] < 0) {
                rc = fl_errorf(err, FL_EINVAL, "%s: negative position %lld", d->file_path,
                               (long long)pos[k]);
                break;
            }
            if (k && pos[k] == pos[k - 1])
                continue;
            rc = fl_vector_append_bytes(&b.cols[0], d->file_path, plen, err);
            if (rc == FL_OK)
                rc = fl_vector_append_fixed(&b.cols[1], &pos[k], err);
            b.nrows++;
            (*rows)++;
            if (rc == FL_OK && b.nrows == FL_BATCH_CAP) {
                rc = fl_parquet_writer_write(pw, &b, err);
                fl_batch_reset(&b);
            }
        }
        free(pos);
    }
    if (rc == FL_OK && b.nrows)
        rc = fl_parquet_writer_write(pw, &b, err);
    fl_batch_destroy(&b);
    return rc;
}

fl_value *ice_copy_partition(fl_arena *a, const fl_value *partition, uint32_t n)
{
    fl_value *out = fl_arena_calloc(a, n + 1, sizeof *out);
    for (uint32_t i = 0; out && i < n; i++) {
        const fl_value *v = &partition[i];
        out[i] = *v;
        if (!v->is_null && (v->type.id == FL_TYPE_STRING || v->type.id == FL_TYPE_BINARY ||
                            v->type.id == FL_TYPE_FIXED || v->type.id == FL_TYPE_UUID)) {
            uint8_t *b = fl_arena_alloc(a, v->v.bytes.len + 1);
            if (!b)
                return NULL;
            if (v->v.bytes.len)
                memcpy(b, v->v.bytes.ptr, v->v.bytes.len);
            out[i].v.bytes.ptr = b;
        }
    }
    return out;
}

static fl_status describe(const fl_ice_metadata *m, int32_t spec_id, const fl_value *partition,
                          uint32_t npartition, const fl_ice_file_positions *const *order,
                          uint32_t n, const char *path, fl_parquet_file_result *res,
                          ice_metrics_fn metrics, fl_arena *a, fl_ice_data_file *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    out->content = FL_ICE_CONTENT_POSITION_DELETES;
    out->file_path = fl_arena_strdup(a, path);
    out->file_format = "PARQUET";
    out->spec_id = spec_id;
    out->npartition = npartition;
    if (!out->file_path || !(out->partition = ice_copy_partition(a, partition, npartition)))
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    out->record_count = res->num_rows;
    out->file_size_in_bytes = (int64_t)res->file_size;
    if (res->nsplit_offsets) {
        out->split_offsets = fl_arena_alloc(a, res->nsplit_offsets * sizeof(int64_t));
        if (!out->split_offsets)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        memcpy(out->split_offsets, res->split_offsets, res->nsplit_offsets * sizeof(int64_t));
        out->nsplit_offsets = res->nsplit_offsets;
    }
    if (n == 1 && !(out->referenced_data_file = fl_arena_strdup(a, order[0]->file_path)))
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    if (metrics) {
        fl_ice_kv kv = {"write.metadata.metrics.default", "full"};
        fl_ice_map props = {1, &kv};
        FL_TRY(metrics(res, &del_schema, &props, a, &out->metrics, &out->nmetrics, err));
    }
    (void)m;
    return FL_OK;
}

fl_status ice_write_position_deletes(fl_fileio *io, const fl_ice_metadata *m, int32_t spec_id,
                                     const fl_value *partition, uint32_t npartition,
                                     const fl_ice_file_positions *d, uint32_t n,
                                     ice_metrics_fn metrics, fl_arena *a, fl_ice_data_file *out,
                                     fl_error *err)
{
    const fl_ice_partition_spec *spec = fl_ice_metadata_spec(m, spec_id);
    if (!spec)
        return fl_errorf(err, FL_EINVAL, "position deletes: no partition spec %d", (int)spec_id);
    if (spec->nfields != npartition)
        return fl_errorf(err, FL_EINVAL, "position deletes: spec %d has %u fields, got %u",
                         (int)spec_id, spec->nfields, npartition);
    const fl_ice_file_positions **order = malloc((n + 1) * sizeof *order);
    if (!order)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < n; i++)
        order[i] = &d[i];
    qsort(order, n, sizeof *order, cmp_path);
    fl_arena tmp;
    fl_arena_init(&tmp, 0);
    const char *dir = ice_data_dir(m, &tmp);
    const char *pp = ice_partition_path(m, spec, partition, &tmp);
    char uuid[37];
    fl_ice_uuid4(uuid);
    const char *path = dir && pp ? fl_arena_sprintf(&tmp, "%s%s%s/%s-deletes.parquet", dir,
                                                    *pp ? "/" : "", pp, uuid)
                                 : NULL;
    fl_status rc = path ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_output *o = NULL;
    fl_parquet_writer *pw = NULL;
    fl_parquet_write_options popt;
    ice_parquet_options(m, &popt);
    fl_kv_pair kv = {"iceberg.schema", DEL_SCHEMA_JSON};
    popt.kv = &kv;
    popt.nkv = 1;
    if (rc == FL_OK)
        rc = fl_fileio_create(io, path, 0, &o, err);
    if (rc == FL_OK)
        rc = fl_parquet_writer_open(o, &del_schema, &popt, &pw, err);
    int64_t rows = 0;
    if (rc == FL_OK)
        rc = write_rows(pw, order, n, &rows, err);
    fl_parquet_file_result res;
    memset(&res, 0, sizeof res);
    bool created = o != NULL;
    if (rc == FL_OK) {
        fl_parquet_writer *w = pw;
        pw = NULL;
        rc = fl_parquet_writer_close(w, &res, err);
    }
    if (rc == FL_OK) {
        fl_output *oc = o;
        o = NULL;
        rc = fl_output_close(oc, err);
    }
    if (rc == FL_OK)
        rc =
            describe(m, spec_id, partition, npartition, order, n, path, &res, metrics, a, out, err);
    fl_parquet_writer_abort(pw);
    fl_output_abort(o);
    if (rc != FL_OK && created && !o && path)
        fl_fileio_remove(io, path, NULL);
    if (rc != FL_OK && path)
        fl_error_prefix(err, "%s", path);
    fl_parquet_file_result_free(&res);
    fl_arena_free(&tmp);
    free(order);
    return rc;
}
