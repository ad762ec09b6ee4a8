/*
 * eq_delete_writer.c - equality delete files (spec "Equality Delete Files"):
 * a Parquet file whose rows each delete every row, in data files of lower
 * data sequence number within the file's scope, that equals the row in all
 * columns of equality_ids (NULL equals NULL).
 *
 * The caller gives the rows as a batch whose schema fields carry the table's
 * field ids; equality_ids must name top-level primitive columns of that
 * schema and of the table's current schema. Extra columns are allowed (the
 * spec permits them; readers compare only equality_ids), which is what CDC
 * writers do when they keep the whole old row.
 *
 * Scope: spec_id and partition as given. An unpartitioned spec makes the
 * file global (it applies to data files of every spec); a partitioned one
 * limits it to data files of that spec and those values.
 *
 * Path: <data dir>/<partition path>/<uuid>-eq-deletes.parquet; the
 * "iceberg.schema" key holds the delete schema; metrics full for the
 * equality columns (so pruning by their bounds is exact). Created
 * exclusively and removed again on failure.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "floe/ice_table.h"
#include "iceberg/ice_internal.h"
#include "iceberg/write_internal.h"

static fl_status check_ids(const fl_ice_metadata *m, const fl_schema *s, const int32_t *ids,
                           uint32_t nids, fl_error *err)
{
    const fl_ice_schema *cur = fl_ice_metadata_current_schema(m);
    if (!nids)
        return fl_errorf(err, FL_EINVAL, "equality deletes: no equality_ids");
    if (!cur)
        return fl_errorf(err, FL_ECORRUPT, "table metadata: no current schema");
    for (uint32_t i = 0; i < nids; i++) {
        const fl_field *f = fl_schema_find_id(s, ids[i]);
        const fl_field *tf = fl_schema_find_id(&cur->schema, ids[i]);
        if (!f || !tf)
            return fl_errorf(err, FL_EINVAL,
                             "equality deletes: field id %d is not a column of the %s", (int)ids[i],
                             f ? "table's current schema" : "delete rows");
        if (fl_type_is_nested(&f->type) || f->type.id != tf->type.id)
            return fl_errorf(err, FL_EINVAL,
                             "equality deletes: column '%s' (field id %d) must be a primitive "
                             "of the table's type",
                             f->name, (int)ids[i]);
        for (uint32_t k = 0; k < i; k++)
            if (ids[k] == ids[i])
                return fl_errorf(err, FL_EINVAL, "equality deletes: field id %d given twice",
                                 (int)ids[i]);
    }
    return FL_OK;
}

/* *out = the delete schema's JSON (the "iceberg.schema" key), in a. */
static fl_status schema_kv(const fl_schema *s, fl_arena *a, const char **out, fl_error *err)
{
    fl_ice_schema is;
    FL_TRY(fl_ice_schema_from_fl(s, 0, a, &is, err));
    json_t *j = ice_schema_to_json(&is);
    char *txt = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    *out = txt ? fl_arena_strdup(a, txt) : NULL;
    free(txt);
    return *out ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
}

/* The entry (strings and partition copied into a). */
static fl_status describe(const char *path, const fl_ice_eq_delete_spec *d,
                          const fl_parquet_file_result *res, const fl_schema *s, fl_arena *a,
                          fl_ice_data_file *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    out->content = FL_ICE_CONTENT_EQUALITY_DELETES;
    out->file_path = fl_arena_strdup(a, path);
    out->file_format = "PARQUET";
    out->spec_id = d->spec_id;
    out->npartition = d->npartition;
    out->partition = ice_copy_partition(a, d->partition, d->npartition);
    out->equality_ids = fl_arena_alloc(a, d->nequality_ids * sizeof *out->equality_ids);
    if (!out->file_path || !out->partition || !out->equality_ids)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    memcpy(out->equality_ids, d->equality_ids, d->nequality_ids * sizeof *out->equality_ids);
    out->nequality_ids = d->nequality_ids;
    out->record_count = res->num_rows;
    out->file_size_in_bytes = (int64_t)res->file_size;
    fl_ice_kv kv = {"write.metadata.metrics.default", "full"};
    fl_ice_map props = {1, &kv};
    return fl_ice_metrics_from_parquet(res, s, &props, a, &out->metrics, &out->nmetrics, err);
}

static fl_status write_file(fl_fileio *io, const fl_ice_metadata *m, const char *path,
                            const fl_batch *rows, const char *schema_json,
                            fl_parquet_file_result *res, fl_error *err)
{
    fl_parquet_write_options popt;
    ice_parquet_options(m, &popt);
    fl_kv_pair kv = {"iceberg.schema", schema_json};
    popt.kv = &kv;
    popt.nkv = 1;
    fl_output *o = NULL;
    fl_parquet_writer *pw = NULL;
    FL_TRY(fl_fileio_create(io, path, 0, &o, err));
    fl_status rc = fl_parquet_writer_open(o, rows->schema, &popt, &pw, err);
    if (rc == FL_OK)
        rc = fl_parquet_writer_write(pw, rows, err);
    if (rc == FL_OK) {
        fl_parquet_writer *w = pw;
        pw = NULL;
        rc = fl_parquet_writer_close(w, res, err);
    }
    if (rc == FL_OK) {
        fl_output *oc = o;
        o = NULL;
        rc = fl_output_close(oc, err);
    }
    fl_parquet_writer_abort(pw);
    fl_output_abort(o);
    if (rc != FL_OK)
        fl_fileio_remove(io, path, NULL);
    return rc;
}

fl_status fl_ice_write_equality_deletes(fl_fileio *io, const fl_ice_metadata *m,
                                        const fl_ice_eq_delete_spec *d, const fl_batch *rows,
                                        fl_arena *a, fl_ice_data_file *out, fl_error *err)
{
    if (m->format_version < 2)
        return fl_errorf(err, FL_EINVAL, "equality deletes need format version 2 (table has %d)",
                         (int)m->format_version);
    const fl_ice_partition_spec *spec = fl_ice_metadata_spec(m, d->spec_id);
    if (!spec)
        return fl_errorf(err, FL_EINVAL, "equality deletes: no partition spec %d", (int)d->spec_id);
    if (spec->nfields != d->npartition)
        return fl_errorf(err, FL_EINVAL, "equality deletes: spec %d has %u fields, got %u",
                         (int)d->spec_id, spec->nfields, d->npartition);
    FL_TRY(check_ids(m, rows->schema, d->equality_ids, d->nequality_ids, err));
    fl_arena tmp;
    fl_arena_init(&tmp, 0);
    const char *dir = ice_data_dir(m, &tmp);
    const char *pp = ice_partition_path(m, spec, d->partition, &tmp);
    char uuid[37];
    fl_ice_uuid4(uuid);
    const char *path = dir && pp ? fl_arena_sprintf(&tmp, "%s%s%s/%s-eq-deletes.parquet", dir,
                                                    *pp ? "/" : "", pp, uuid)
                                 : NULL;
    fl_status rc = path ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
    const char *sj = NULL;
    if (rc == FL_OK)
        rc = schema_kv(rows->schema, &tmp, &sj, err);
    fl_parquet_file_result res;
    memset(&res, 0, sizeof res);
    if (rc == FL_OK)
        rc = write_file(io, m, path, rows, sj, &res, err);
    if (rc == FL_OK) {
        rc = describe(path, d, &res, rows->schema, a, out, err);
        if (rc != FL_OK)
            fl_fileio_remove(io, path, NULL);
    }
    if (rc != FL_OK && path)
        fl_error_prefix(err, "%s", path);
    fl_parquet_file_result_free(&res);
    fl_arena_free(&tmp);
    return rc;
}
