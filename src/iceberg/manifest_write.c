/*
 * manifest_write.c - writes a manifest (spec "Manifests") the way Java's
 * ManifestWriter does: an Avro container, deflate-compressed, with header
 * keys schema (table schema JSON), schema-id, partition-spec (the fields
 * array), partition-spec-id, format-version and (v2+) content, and one
 * manifest_entry record per entry in the schema of manifest_schema.c.
 *
 * Entry rules (spec "Sequence Number Inheritance", Java ManifestWriter):
 * - ADDED and DELETED entries carry the writing snapshot's id (a writer
 *   opened with snapshot_id FL_ICE_NO_SNAPSHOT writes null: inherited, v2+ only);
 *   EXISTING entries keep their own.
 * - v2+: sequence numbers equal to FL_ICE_UNASSIGNED_SEQ are written as null,
 *   which only ADDED entries may do; EXISTING/DELETED entries must carry the
 *   inherited values explicitly.
 * - v1 writes block_size_in_bytes = 64 MiB and no sequence numbers.
 *
 * Closing returns the manifest-list entry: file length, counts per status,
 * min_sequence_number over live entries with an assigned data sequence
 * number (FL_ICE_UNASSIGNED_SEQ when none, replaced by the list writer),
 * and one field_summary per partition field over every entry: contains_null,
 * contains_nan, and lower/upper bounds over non-null, non-NaN values in the
 * single-value serialization.
 *
 * Ownership: the writer owns its output until close/abort; the entry is
 * encoded straight into one reused buffer (no per-entry allocation).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "floe/iceberg.h"
#include "iceberg/ice_internal.h"
#include "iceberg/manifest_int.h"
#include "iceberg/manifest_write_int.h"

typedef struct psum {
    bool contains_null, contains_nan, has_bounds;
    fl_value lo, hi;
    uint8_t *lo_buf, *hi_buf; /* malloc'd copies of byte payloads */
    size_t lo_cap, hi_cap;
} psum;

struct fl_ice_manifest_writer {
    fl_avro_writer *aw;
    uint64_t length;
    int fv;
    fl_ice_manifest_content content;
    int64_t snapshot_id;
    int32_t spec_id;
    char *path;
    fl_arena arena; /* layout */
    ice_part_layout pl;
    psum *sums;
    ice_enc enc;
    int32_t added_files, existing_files, deleted_files;
    int64_t added_rows, existing_rows, deleted_rows;
    bool has_min_seq;
    int64_t min_seq;
};

static void writer_free(fl_ice_manifest_writer *w)
{
    for (uint32_t i = 0; w->sums && i < w->pl.n; i++) {
        free(w->sums[i].lo_buf);
        free(w->sums[i].hi_buf);
    }
    free(w->sums);
    fl_avro_buf_free(&w->enc.b);
    fl_arena_free(&w->arena);
    free(w->path);
    free(w);
}

void fl_ice_manifest_writer_abort(fl_ice_manifest_writer *w)
{
    if (!w)
        return;
    fl_avro_writer_abort(w->aw);
    writer_free(w);
}

/* Java's PartitionSpecParser.toJsonFields:
 * [{"name","transform","source-id"|"source-ids","field-id"}]. */
static char *spec_fields_json(const fl_ice_partition_spec *spec)
{
    json_t *arr = json_array();
    for (uint32_t i = 0; arr && i < spec->nfields; i++) {
        const fl_ice_partition_field *f = &spec->fields[i];
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(f->name ? f->name : ""));
        json_object_set_new(o, "transform", json_string(f->transform ? f->transform : "identity"));
        if (f->multi_arg) {
            json_t *ids = json_array();
            for (uint32_t k = 0; k < f->nsource_ids; k++)
                json_array_append_new(ids, json_integer(f->source_ids[k]));
            json_object_set_new(o, "source-ids", ids);
        } else {
            json_object_set_new(o, "source-id", json_integer(f->source_id));
        }
        json_object_set_new(o, "field-id", json_integer(f->field_id));
        json_array_append_new(arr, o);
    }
    char *s = arr ? json_dumps(arr, JSON_COMPACT) : NULL;
    json_decref(arr);
    return s;
}

static fl_status build_layout(fl_ice_manifest_writer *w, const fl_ice_metadata *m,
                              const fl_ice_partition_spec *spec, fl_error *err)
{
    uint32_t n = spec->nfields;
    w->pl.n = n;
    if (n == 0)
        return FL_OK;
    w->pl.names = fl_arena_calloc(&w->arena, n, sizeof *w->pl.names);
    w->pl.ids = fl_arena_calloc(&w->arena, n, sizeof *w->pl.ids);
    w->pl.types = fl_arena_calloc(&w->arena, n, sizeof *w->pl.types);
    w->sums = calloc(n, sizeof *w->sums);
    if (!w->pl.names || !w->pl.ids || !w->pl.types || !w->sums)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        w->pl.names[i] = spec->fields[i].name ? spec->fields[i].name : "";
        w->pl.ids[i] = spec->fields[i].field_id;
        FL_TRY(ice_partition_field_type(m, &spec->fields[i], &w->pl.types[i], err));
    }
    return FL_OK;
}

static fl_status open_avro(fl_ice_manifest_writer *w, fl_fileio *io, const fl_ice_metadata *m,
                           const fl_ice_partition_spec *spec, fl_error *err)
{
    const fl_ice_schema *sch = fl_ice_metadata_current_schema(m);
    if (!sch)
        return fl_errorf(err, FL_ECORRUPT, "table metadata has no current schema");
    json_t *sj = ice_schema_to_json(sch);
    char *schema_json = sj ? json_dumps(sj, JSON_COMPACT) : NULL;
    json_decref(sj);
    char *spec_json = spec_fields_json(spec);
    char *avro_schema = ice_manifest_entry_schema(w->fv, &w->pl, err);
    fl_status rc = FL_OK;
    if (!schema_json || !spec_json)
        rc = fl_errorf(err, FL_ENOMEM, "out of memory");
    else if (!avro_schema)
        rc = err->code ? err->code : FL_ENOMEM;
    if (rc == FL_OK) {
        char sid[16], pid[16], fv[4];
        snprintf(sid, sizeof sid, "%d", (int)sch->schema_id);
        snprintf(pid, sizeof pid, "%d", (int)spec->spec_id);
        snprintf(fv, sizeof fv, "%d", w->fv);
        const char *content = w->content == FL_ICE_MANIFEST_DELETES ? "deletes" : "data";
        fl_avro_meta meta[6] = {
            {"schema", (const uint8_t *)schema_json, strlen(schema_json)},
            {"schema-id", (const uint8_t *)sid, strlen(sid)},
            {"partition-spec", (const uint8_t *)spec_json, strlen(spec_json)},
            {"partition-spec-id", (const uint8_t *)pid, strlen(pid)},
            {"format-version", (const uint8_t *)fv, strlen(fv)},
            {"content", (const uint8_t *)content, strlen(content)},
        };
        fl_avro_writer_options opt = {
            .codec = "deflate", .meta = meta, .nmeta = w->fv >= 2 ? 6 : 5};
        if (w->fv == 1) { /* v1: no schema-id, no content */
            meta[1] = meta[2];
            meta[2] = meta[3];
            meta[3] = meta[4];
            opt.nmeta = 4;
        }
        fl_output *o = NULL, *co = NULL;
        rc = fl_fileio_create(io, w->path, 0, &o, err);
        if (rc == FL_OK)
            rc = ice_counting_output(o, &w->length, &co, err);
        if (rc == FL_OK)
            rc = fl_avro_writer_open(co, avro_schema, strlen(avro_schema), &opt, &w->aw, err);
    }
    free(schema_json);
    free(spec_json);
    free(avro_schema);
    return rc;
}

fl_status fl_ice_manifest_writer_open(fl_fileio *io, const char *path, const fl_ice_metadata *m,
                                      int32_t spec_id, fl_ice_manifest_content content,
                                      int format_version, int64_t snapshot_id,
                                      fl_ice_manifest_writer **out, fl_error *err)
{
    *out = NULL;
    if (format_version < 1 || format_version > 3)
        return fl_errorf(err, FL_EINVAL, "manifest %s: format version %d", path, format_version);
    if (content == FL_ICE_MANIFEST_DELETES && format_version < 2)
        return fl_errorf(err, FL_EINVAL, "manifest %s: delete manifests need format version 2",
                         path);
    const fl_ice_partition_spec *spec = fl_ice_metadata_spec(m, spec_id);
    if (!spec)
        return fl_errorf(err, FL_ENOTFOUND,
                         "manifest %s: partition spec %d is not in the table metadata", path,
                         (int)spec_id);
    fl_ice_manifest_writer *w = calloc(1, sizeof *w);
    if (!w || !(w->path = strdup(path))) {
        free(w);
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    fl_arena_init(&w->arena, 0);
    w->fv = format_version;
    w->content = content;
    w->snapshot_id = snapshot_id;
    w->spec_id = spec_id;
    fl_status rc = build_layout(w, m, spec, err);
    if (rc == FL_OK)
        rc = open_avro(w, io, m, spec, err);
    if (rc) {
        fl_ice_manifest_writer_abort(w);
        return fl_error_prefix(err, "manifest %s", path);
    }
    *out = w;
    return FL_OK;
}

/* ---------------------------------------------------------------- entries */

static bool copy_value(fl_value *dst, uint8_t **buf, size_t *cap, const fl_value *v)
{
    *dst = *v;
    bool varlen = v->type.id == FL_TYPE_STRING || v->type.id == FL_TYPE_BINARY ||
                  v->type.id == FL_TYPE_FIXED || v->type.id == FL_TYPE_UUID;
    if (!varlen)
        return true;
    if (v->v.bytes.len > *cap) {
        uint8_t *nb = realloc(*buf, v->v.bytes.len);
        if (!nb)
            return false;
        *buf = nb;
        *cap = v->v.bytes.len;
    }
    if (v->v.bytes.len)
        memcpy(*buf, v->v.bytes.ptr, v->v.bytes.len);
    dst->v.bytes.ptr = *buf;
    return true;
}

static fl_status update_summary(psum *s, const fl_value *v, fl_error *err)
{
    if (v->is_null) {
        s->contains_null = true;
        return FL_OK;
    }
    if ((v->type.id == FL_TYPE_FLOAT32 && isnan(v->v.f32)) ||
        (v->type.id == FL_TYPE_FLOAT64 && isnan(v->v.f64))) {
        s->contains_nan = true;
        return FL_OK;
    }
    bool ok = true;
    if (!s->has_bounds) {
        ok = copy_value(&s->lo, &s->lo_buf, &s->lo_cap, v) &&
             copy_value(&s->hi, &s->hi_buf, &s->hi_cap, v);
        s->has_bounds = true;
    } else {
        if (fl_value_compare(v, &s->lo) < 0)
            ok = copy_value(&s->lo, &s->lo_buf, &s->lo_cap, v);
        if (ok && fl_value_compare(v, &s->hi) > 0)
            ok = copy_value(&s->hi, &s->hi_buf, &s->hi_cap, v);
    }
    return ok ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
}

/* One int-keyed metrics map: null when no column has the value. kind as in
 * ice_metric_item. */
static void enc_metric_map(ice_enc *e, const fl_ice_data_file *f, int kind)
{
    uint32_t count = 0;
    for (uint32_t i = 0; i < f->nmetrics; i++) {
        const fl_ice_column_metrics *m = &f->metrics[i];
        bool has = kind == 0   ? m->column_size >= 0
                   : kind == 1 ? m->value_count >= 0
                   : kind == 2 ? m->null_value_count >= 0
                   : kind == 3 ? m->nan_value_count >= 0
                   : kind == 4 ? m->has_lower
                               : m->has_upper;
        count += has;
    }
    if (count == 0) {
        ice_enc_null(e);
        return;
    }
    ice_enc_some(e);
    ice_enc_long(e, count);
    for (uint32_t i = 0; i < f->nmetrics; i++) {
        const fl_ice_column_metrics *m = &f->metrics[i];
        switch (kind) {
        case 0:
            if (m->column_size < 0)
                continue;
            ice_enc_long(e, m->field_id);
            ice_enc_long(e, m->column_size);
            break;
        case 1:
            if (m->value_count < 0)
                continue;
            ice_enc_long(e, m->field_id);
            ice_enc_long(e, m->value_count);
            break;
        case 2:
            if (m->null_value_count < 0)
                continue;
            ice_enc_long(e, m->field_id);
            ice_enc_long(e, m->null_value_count);
            break;
        case 3:
            if (m->nan_value_count < 0)
                continue;
            ice_enc_long(e, m->field_id);
            ice_enc_long(e, m->nan_value_count);
            break;
        case 4:
            if (!m->has_lower)
                continue;
            ice_enc_long(e, m->field_id);
            ice_enc_bytes(e, m->lower, m->lower_len);
            break;
        default:
            if (!m->has_upper)
                continue;
            ice_enc_long(e, m->field_id);
            ice_enc_bytes(e, m->upper, m->upper_len);
            break;
        }
    }
    ice_enc_long(e, 0);
}

static void enc_long_list(ice_enc *e, const void *arr, uint32_t n, bool is32)
{
    if (!arr) {
        ice_enc_null(e);
        return;
    }
    ice_enc_some(e);
    if (n) {
        ice_enc_long(e, n);
        for (uint32_t i = 0; i < n; i++)
            ice_enc_long(e, is32 ? ((const int32_t *)arr)[i] : ((const int64_t *)arr)[i]);
    }
    ice_enc_long(e, 0);
}

static fl_status enc_file(fl_ice_manifest_writer *w, const fl_ice_data_file *f, fl_error *err)
{
    ice_enc *e = &w->enc;
    if (w->fv >= 2)
        ice_enc_long(e, f->content);
    ice_enc_str(e, f->file_path);
    ice_enc_str(e, f->file_format);
    for (uint32_t i = 0; i < w->pl.n; i++) {
        fl_status rc = ice_enc_partition_value(e, &f->partition[i], &w->pl.types[i], err);
        if (rc)
            return fl_error_prefix(err, "partition field '%s'", w->pl.names[i]);
    }
    ice_enc_long(e, f->record_count);
    ice_enc_long(e, f->file_size_in_bytes);
    if (w->fv == 1)
        ice_enc_long(e, 64 << 20); /* block_size_in_bytes, as Java writes */
    for (int k = 0; k < 6; k++)
        enc_metric_map(e, f, k);
    if (f->key_metadata) {
        ice_enc_some(e);
        ice_enc_bytes(e, f->key_metadata, f->key_metadata_len);
    } else {
        ice_enc_null(e);
    }
    enc_long_list(e, f->split_offsets, f->nsplit_offsets, false);
    if (w->fv >= 2)
        enc_long_list(e, f->equality_ids, f->nequality_ids, true);
    ice_enc_opt_long(e, f->has_sort_order_id, f->sort_order_id);
    if (w->fv >= 3)
        ice_enc_opt_long(e, f->has_first_row_id && f->content == FL_ICE_CONTENT_DATA,
                         f->first_row_id);
    if (w->fv >= 2) {
        if (f->referenced_data_file) {
            ice_enc_some(e);
            ice_enc_str(e, f->referenced_data_file);
        } else {
            ice_enc_null(e);
        }
    }
    if (w->fv >= 3) {
        ice_enc_opt_long(e, f->has_content_offset, f->content_offset);
        ice_enc_opt_long(e, f->has_content_offset, f->content_size_in_bytes);
    }
    return FL_OK;
}

static fl_status check_entry(const fl_ice_manifest_writer *w, const fl_ice_manifest_entry *e,
                             fl_error *err)
{
    const fl_ice_data_file *f = &e->file;
    if (e->status < FL_ICE_STATUS_EXISTING || e->status > FL_ICE_STATUS_DELETED)
        return fl_errorf(err, FL_EINVAL, "status %d", (int)e->status);
    if (!f->file_path || !f->file_format)
        return fl_errorf(err, FL_EINVAL, "data file without file_path or file_format");
    if (f->npartition != w->pl.n)
        return fl_errorf(err, FL_EINVAL, "partition tuple has %u values, spec %d has %u fields",
                         f->npartition, (int)w->spec_id, w->pl.n);
    bool del = f->content != FL_ICE_CONTENT_DATA;
    if (f->content < FL_ICE_CONTENT_DATA || f->content > FL_ICE_CONTENT_EQUALITY_DELETES)
        return fl_errorf(err, FL_EINVAL, "content %d", (int)f->content);
    if (del != (w->content == FL_ICE_MANIFEST_DELETES))
        return fl_errorf(err, FL_EINVAL, "a %s file in a %s manifest", del ? "delete" : "data",
                         w->content == FL_ICE_MANIFEST_DELETES ? "delete" : "data");
    if (f->record_count < 0 || f->file_size_in_bytes < 0)
        return fl_errorf(err, FL_EINVAL, "negative record_count or file_size_in_bytes");
    if (f->content == FL_ICE_CONTENT_EQUALITY_DELETES && f->nequality_ids == 0)
        return fl_errorf(err, FL_EINVAL, "equality delete file without equality_ids");
    if (w->fv >= 2 && e->status != FL_ICE_STATUS_ADDED &&
        (e->sequence_number == FL_ICE_UNASSIGNED_SEQ ||
         e->file_sequence_number == FL_ICE_UNASSIGNED_SEQ))
        return fl_errorf(err, FL_EINVAL, "%s entries need explicit sequence numbers",
                         e->status == FL_ICE_STATUS_EXISTING ? "EXISTING" : "DELETED");
    if (f->has_content_offset && w->fv < 3)
        return fl_errorf(err, FL_EINVAL,
                         "content_offset (deletion vectors) needs format version 3");
    return FL_OK;
}

fl_status fl_ice_manifest_writer_add(fl_ice_manifest_writer *w, const fl_ice_manifest_entry *e,
                                     fl_error *err)
{
    const fl_ice_data_file *f = &e->file;
    fl_status rc = check_entry(w, e, err);
    if (rc)
        return fl_error_prefix(err, "manifest %s: %s", w->path,
                               f->file_path ? f->file_path : "entry");
    bool own_snapshot = e->status != FL_ICE_STATUS_EXISTING;
    int64_t snap = own_snapshot ? w->snapshot_id : e->snapshot_id;
    if (snap == FL_ICE_NO_SNAPSHOT && w->fv == 1)
        return fl_errorf(err, FL_EINVAL, "manifest %s: v1 entries need a snapshot id", w->path);
    ice_enc *enc = &w->enc;
    enc->b.len = 0;
    enc->oom = false;
    ice_enc_long(enc, e->status);
    ice_enc_opt_long(enc, snap != FL_ICE_NO_SNAPSHOT, snap);
    if (w->fv >= 2) {
        ice_enc_opt_long(enc, e->sequence_number != FL_ICE_UNASSIGNED_SEQ, e->sequence_number);
        ice_enc_opt_long(enc, e->file_sequence_number != FL_ICE_UNASSIGNED_SEQ,
                         e->file_sequence_number);
    }
    rc = enc_file(w, f, err);
    if (rc)
        return fl_error_prefix(err, "manifest %s: %s", w->path, f->file_path);
    if (enc->oom)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < w->pl.n; i++)
        FL_TRY(update_summary(&w->sums[i], &f->partition[i], err));
    FL_TRY(fl_avro_writer_append_raw(w->aw, enc->b.data, enc->b.len, err));
    switch (e->status) {
    case FL_ICE_STATUS_ADDED: w->added_files++, w->added_rows += f->record_count; break;
    case FL_ICE_STATUS_EXISTING: w->existing_files++, w->existing_rows += f->record_count; break;
    default: w->deleted_files++, w->deleted_rows += f->record_count; break;
    }
    if (e->status != FL_ICE_STATUS_DELETED && e->sequence_number != FL_ICE_UNASSIGNED_SEQ &&
        (!w->has_min_seq || e->sequence_number < w->min_seq)) {
        w->has_min_seq = true;
        w->min_seq = e->sequence_number;
    }
    return FL_OK;
}

static fl_status summary_bytes(const fl_value *v, fl_arena *a, const uint8_t **out, uint32_t *len,
                               fl_error *err)
{
    uint8_t tmp[16];
    const uint8_t *p;
    size_t n;
    FL_TRY(fl_ice_value_to_bytes(v, tmp, sizeof tmp, &p, &n, err));
    uint8_t *c = fl_arena_alloc(a, n ? n : 1);
    if (!c)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    memcpy(c, p, n);
    *out = c;
    *len = (uint32_t)n;
    return FL_OK;
}

fl_status fl_ice_manifest_writer_close(fl_ice_manifest_writer *w, fl_arena *a,
                                       fl_ice_manifest_file *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    out->manifest_path = fl_arena_strdup(a, w->path);
    fl_ice_field_summary *fs = w->pl.n ? fl_arena_calloc(a, w->pl.n, sizeof *fs) : NULL;
    fl_status rc = (!out->manifest_path || (w->pl.n && !fs))
                       ? fl_errorf(err, FL_ENOMEM, "out of memory")
                       : FL_OK;
    for (uint32_t i = 0; rc == FL_OK && i < w->pl.n; i++) {
        const psum *s = &w->sums[i];
        fs[i].contains_null = s->contains_null;
        fs[i].has_contains_nan = true;
        fs[i].contains_nan = s->contains_nan;
        if (s->has_bounds) {
            fs[i].has_lower = fs[i].has_upper = true;
            rc = summary_bytes(&s->lo, a, &fs[i].lower, &fs[i].lower_len, err);
            if (rc == FL_OK)
                rc = summary_bytes(&s->hi, a, &fs[i].upper, &fs[i].upper_len, err);
        }
    }
    if (rc) {
        fl_ice_manifest_writer_abort(w);
        return rc;
    }
    rc = fl_avro_writer_close(w->aw, err); /* closes the output, sets w->length */
    w->aw = NULL;
    if (rc) {
        fl_error_prefix(err, "manifest %s", w->path);
        writer_free(w);
        return rc;
    }
    out->manifest_length = (int64_t)w->length;
    out->partition_spec_id = w->spec_id;
    out->content = w->content;
    out->sequence_number = FL_ICE_UNASSIGNED_SEQ;
    out->min_sequence_number = w->has_min_seq ? w->min_seq : FL_ICE_UNASSIGNED_SEQ;
    out->added_snapshot_id = w->snapshot_id;
    out->added_files_count = w->added_files;
    out->existing_files_count = w->existing_files;
    out->deleted_files_count = w->deleted_files;
    out->added_rows_count = w->added_rows;
    out->existing_rows_count = w->existing_rows;
    out->deleted_rows_count = w->deleted_rows;
    out->npartitions = w->pl.n;
    out->partitions = fs;
    writer_free(w);
    return FL_OK;
}
