/*
 * metatable_files.c - metadata tables over manifests (columns as Java's
 * ManifestsTable, AllManifestsTable, FilesTable / DataFilesTable /
 * DeleteFilesTable, ManifestEntriesTable, PartitionsTable):
 *
 *   manifests:   content int, path string, length long, partition_spec_id int,
 *                added_snapshot_id long, added_data_files_count int,
 *                existing_data_files_count int, deleted_data_files_count int,
 *                added_delete_files_count int, existing_delete_files_count int,
 *                deleted_delete_files_count int,
 *                partition_summaries list<struct<contains_null boolean,
 *                  contains_nan boolean, lower_bound string, upper_bound string>>
 *                (all_manifests adds reference_snapshot_id long)
 *   files:       content int, file_path string, file_format string, spec_id int,
 *                partition string (JSON, see metatable.c), record_count long,
 *                file_size_in_bytes long, column_sizes / value_counts /
 *                null_value_counts / nan_value_counts map<int,long>,
 *                lower_bounds / upper_bounds map<int,binary>, key_metadata binary,
 *                split_offsets list<long>, equality_ids list<int>, sort_order_id int,
 *                first_row_id long, referenced_data_file string,
 *                content_offset long, content_size_in_bytes long
 *   entries:     status int, snapshot_id long, sequence_number long,
 *                file_sequence_number long, data_file struct<files columns>
 *   partitions:  partition string, spec_id int, record_count long, file_count int,
 *                total_data_file_size_in_bytes long, position_delete_record_count long,
 *                position_delete_file_count int, equality_delete_record_count long,
 *                equality_delete_file_count int, last_updated_at timestamptz,
 *                last_updated_snapshot_id long
 * Live files are entries with status ADDED or EXISTING; entries lists all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iceberg/metatable_int.h"

static fl_status snapshot_of(mt_builder *b, const fl_ice_snapshot **s, fl_error *err)
{
    return fl_ice_select_snapshot(b->m, b->opt, s, err);
}

/* ---- manifests ---- */

static fl_status summaries(mt_builder *b, fl_vector *v, const fl_ice_manifest_file *mf,
                           fl_error *err)
{
    fl_vector *st = &v->children[0];
    const fl_ice_partition_spec *spec = fl_ice_metadata_spec(b->m, mf->partition_spec_id);
    for (uint32_t i = 0; i < mf->npartitions; i++) {
        const fl_ice_field_summary *s = &mf->partitions[i];
        FL_TRY(mt_bool(&st->children[0], s->contains_null, err));
        FL_TRY(s->has_contains_nan ? mt_bool(&st->children[1], s->contains_nan, err)
                                   : mt_null(&st->children[1], err));
        /* bounds in human form, typed by the partition field's result type */
        fl_type rt = mt_prim(0);
        bool typed = false;
        if (spec && i < spec->nfields) {
            const fl_ice_partition_field *pf = &spec->fields[i];
            fl_ice_transform tr;
            fl_error e2;
            const fl_field *src = NULL;
            for (uint32_t k = 0; k < b->m->nschemas && !src; k++)
                src = fl_schema_find_id(&b->m->schemas[k].schema, pf->source_id);
            typed = src && fl_ice_transform_parse(pf->transform, &tr, &e2) == FL_OK &&
                    fl_ice_transform_result_type(&tr, &src->type, &rt, &e2) == FL_OK;
        }
        for (int k = 0; k < 2; k++) {
            bool has = k ? s->has_upper : s->has_lower;
            const uint8_t *p = k ? s->upper : s->lower;
            uint32_t n = k ? s->upper_len : s->lower_len;
            fl_value val;
            fl_error e2;
            if (!has || !typed || fl_ice_value_from_bytes(&rt, p, n, &val, &e2) != FL_OK) {
                FL_TRY(mt_null(&st->children[2 + k], err));
                continue;
            }
            char buf[512];
            mt_human(&val, buf, sizeof buf);
            FL_TRY(mt_str(&st->children[2 + k], buf, err));
        }
        FL_TRY(fl_vector_append_nested(st, 0, err));
    }
    return fl_vector_append_nested(v, st->len, err);
}

static fl_status manifest_row(mt_builder *b, const fl_ice_manifest_file *mf, bool all,
                              int64_t ref_snapshot, fl_error *err)
{
    fl_vector *c = b->cols;
    bool del = mf->content == FL_ICE_MANIFEST_DELETES;
    FL_TRY(mt_i32(&c[0], (int32_t)mf->content, err));
    FL_TRY(mt_str(&c[1], mf->manifest_path, err));
    FL_TRY(mt_i64(&c[2], mf->manifest_length, err));
    FL_TRY(mt_i32(&c[3], mf->partition_spec_id, err));
    FL_TRY(mt_i64(&c[4], mf->added_snapshot_id, err));
    int32_t cnt[3] = {mf->added_files_count, mf->existing_files_count, mf->deleted_files_count};
    for (int k = 0; k < 3; k++) {
        FL_TRY(cnt[k] >= 0 ? mt_i32(&c[5 + k], del ? 0 : cnt[k], err) : mt_null(&c[5 + k], err));
        FL_TRY(cnt[k] >= 0 ? mt_i32(&c[8 + k], del ? cnt[k] : 0, err) : mt_null(&c[8 + k], err));
    }
    FL_TRY(summaries(b, &c[11], mf, err));
    if (all)
        FL_TRY(mt_i64(&c[12], ref_snapshot, err));
    mt_row_done(b);
    return FL_OK;
}

fl_status mt_manifests(mt_builder *b, bool all, fl_error *err)
{
    mt_col sum[] = {
        {"contains_null", mt_prim(FL_TYPE_BOOLEAN)},
        {"contains_nan", mt_prim(FL_TYPE_BOOLEAN)},
        {"lower_bound", mt_prim(FL_TYPE_STRING)},
        {"upper_bound", mt_prim(FL_TYPE_STRING)},
    };
    mt_col cols[] = {
        {"content", mt_prim(FL_TYPE_INT32)},
        {"path", mt_prim(FL_TYPE_STRING)},
        {"length", mt_prim(FL_TYPE_INT64)},
        {"partition_spec_id", mt_prim(FL_TYPE_INT32)},
        {"added_snapshot_id", mt_prim(FL_TYPE_INT64)},
        {"added_data_files_count", mt_prim(FL_TYPE_INT32)},
        {"existing_data_files_count", mt_prim(FL_TYPE_INT32)},
        {"deleted_data_files_count", mt_prim(FL_TYPE_INT32)},
        {"added_delete_files_count", mt_prim(FL_TYPE_INT32)},
        {"existing_delete_files_count", mt_prim(FL_TYPE_INT32)},
        {"deleted_delete_files_count", mt_prim(FL_TYPE_INT32)},
        {"partition_summaries", mt_list(b, mt_struct(b, sum, 4))},
        {"reference_snapshot_id", mt_prim(FL_TYPE_INT64)},
    };
    /* column order as Java: content first only in v2+ tables; we always include it */
    FL_TRY(mt_begin(b, cols, all ? 13 : 12, err));
    if (all) {
        for (uint32_t i = 0; i < b->m->nsnapshots; i++) {
            const fl_ice_snapshot *s = &b->m->snapshots[i];
            fl_ice_manifest_file *mfs;
            uint32_t n;
            FL_TRY(fl_ice_snapshot_manifests(b->io, b->m, s, b->a, &mfs, &n, err));
            for (uint32_t k = 0; k < n; k++)
                FL_TRY(manifest_row(b, &mfs[k], true, s->snapshot_id, err));
        }
        return FL_OK;
    }
    const fl_ice_snapshot *s;
    FL_TRY(snapshot_of(b, &s, err));
    if (!s)
        return FL_OK;
    fl_ice_manifest_file *mfs;
    uint32_t n;
    FL_TRY(fl_ice_snapshot_manifests(b->io, b->m, s, b->a, &mfs, &n, err));
    for (uint32_t k = 0; k < n; k++)
        FL_TRY(manifest_row(b, &mfs[k], false, 0, err));
    return FL_OK;
}

/* ---- files / entries ---- */

static void file_cols(mt_builder *b, mt_col *c)
{
    fl_type ml = mt_map(b, mt_prim(FL_TYPE_INT32), mt_prim(FL_TYPE_INT64));
    fl_type mb = mt_map(b, mt_prim(FL_TYPE_INT32), mt_prim(FL_TYPE_BINARY));
    mt_col cols[] = {
        {"content", mt_prim(FL_TYPE_INT32)},
        {"file_path", mt_prim(FL_TYPE_STRING)},
        {"file_format", mt_prim(FL_TYPE_STRING)},
        {"spec_id", mt_prim(FL_TYPE_INT32)},
        {"partition", mt_prim(FL_TYPE_STRING)},
        {"record_count", mt_prim(FL_TYPE_INT64)},
        {"file_size_in_bytes", mt_prim(FL_TYPE_INT64)},
        {"column_sizes", ml},
        {"value_counts", mt_map(b, mt_prim(FL_TYPE_INT32), mt_prim(FL_TYPE_INT64))},
        {"null_value_counts", mt_map(b, mt_prim(FL_TYPE_INT32), mt_prim(FL_TYPE_INT64))},
        {"nan_value_counts", mt_map(b, mt_prim(FL_TYPE_INT32), mt_prim(FL_TYPE_INT64))},
        {"lower_bounds", mb},
        {"upper_bounds", mt_map(b, mt_prim(FL_TYPE_INT32), mt_prim(FL_TYPE_BINARY))},
        {"key_metadata", mt_prim(FL_TYPE_BINARY)},
        {"split_offsets", mt_list(b, mt_prim(FL_TYPE_INT64))},
        {"equality_ids", mt_list(b, mt_prim(FL_TYPE_INT32))},
        {"sort_order_id", mt_prim(FL_TYPE_INT32)},
        {"first_row_id", mt_prim(FL_TYPE_INT64)},
        {"referenced_data_file", mt_prim(FL_TYPE_STRING)},
        {"content_offset", mt_prim(FL_TYPE_INT64)},
        {"content_size_in_bytes", mt_prim(FL_TYPE_INT64)},
    };
    memcpy(c, cols, sizeof cols);
}
#define NFILE_COLS 21

/* The partition tuple of f as JSON text (arena). */
static char *partition_json(mt_builder *b, const fl_ice_data_file *f)
{
    const fl_ice_partition_spec *spec = fl_ice_metadata_spec(b->m, f->spec_id);
    size_t cap = 64, len = 0;
    for (uint32_t i = 0; i < f->npartition; i++)
        cap += 600;
    char *out = fl_arena_alloc(b->a, cap);
    if (!out)
        return NULL;
    len += (size_t)snprintf(out, cap, "{");
    for (uint32_t i = 0; i < f->npartition; i++) {
        const char *name = spec && i < spec->nfields ? spec->fields[i].name : "?";
        char v[512];
        mt_human(&f->partition[i], v, sizeof v);
        bool quote = !f->partition[i].is_null;
        char esc[1100];
        size_t e = 0;
        for (const char *p = v; *p && e + 3 < sizeof esc; p++) {
            if (*p == '"' || *p == '\\')
                esc[e++] = '\\';
            esc[e++] = *p;
        }
        esc[e] = 0;
        len += (size_t)snprintf(out + len, cap - len, "%s\"%s\": %s%s%s", i ? ", " : "", name,
                                quote ? "\"" : "", esc, quote ? "\"" : "");
        if (len >= cap)
            break;
    }
    if (len + 2 < cap)
        snprintf(out + len, cap - len, "}");
    return out;
}

static fl_status i64_map(fl_vector *v, const fl_ice_data_file *f, int which, fl_error *err)
{
    bool any = false;
    for (uint32_t i = 0; i < f->nmetrics; i++) {
        const fl_ice_column_metrics *m = &f->metrics[i];
        int64_t x = which == 0   ? m->column_size
                    : which == 1 ? m->value_count
                    : which == 2 ? m->null_value_count
                                 : m->nan_value_count;
        if (x < 0)
            continue;
        FL_TRY(mt_i32(&v->children[0], m->field_id, err));
        FL_TRY(mt_i64(&v->children[1], x, err));
        any = true;
    }
    if (!any)
        return mt_null(v, err);
    return fl_vector_append_nested(v, v->children[0].len, err);
}

static fl_status bound_map(fl_vector *v, const fl_ice_data_file *f, bool upper, fl_error *err)
{
    bool any = false;
    for (uint32_t i = 0; i < f->nmetrics; i++) {
        const fl_ice_column_metrics *m = &f->metrics[i];
        if (!(upper ? m->has_upper : m->has_lower))
            continue;
        FL_TRY(mt_i32(&v->children[0], m->field_id, err));
        FL_TRY(mt_bin(&v->children[1], upper ? m->upper : m->lower,
                      upper ? m->upper_len : m->lower_len, err));
        any = true;
    }
    if (!any)
        return mt_null(v, err);
    return fl_vector_append_nested(v, v->children[0].len, err);
}

static fl_status file_row(mt_builder *b, fl_vector *c, const fl_ice_data_file *f, fl_error *err)
{
    FL_TRY(mt_i32(&c[0], (int32_t)f->content, err));
    FL_TRY(mt_str(&c[1], f->file_path, err));
    FL_TRY(mt_str(&c[2], f->file_format, err));
    FL_TRY(mt_i32(&c[3], f->spec_id, err));
    char *pj = partition_json(b, f);
    FL_CHECK(pj != NULL, err, FL_ENOMEM, "out of memory");
    FL_TRY(mt_str(&c[4], pj, err));
    FL_TRY(mt_i64(&c[5], f->record_count, err));
    FL_TRY(mt_i64(&c[6], f->file_size_in_bytes, err));
    for (int k = 0; k < 4; k++)
        FL_TRY(i64_map(&c[7 + k], f, k, err));
    FL_TRY(bound_map(&c[11], f, false, err));
    FL_TRY(bound_map(&c[12], f, true, err));
    FL_TRY(mt_bin(&c[13], f->key_metadata, f->key_metadata_len, err));
    if (f->nsplit_offsets) {
        for (uint32_t i = 0; i < f->nsplit_offsets; i++)
            FL_TRY(mt_i64(&c[14].children[0], f->split_offsets[i], err));
        FL_TRY(fl_vector_append_nested(&c[14], c[14].children[0].len, err));
    } else {
        FL_TRY(mt_null(&c[14], err));
    }
    if (f->nequality_ids) {
        for (uint32_t i = 0; i < f->nequality_ids; i++)
            FL_TRY(mt_i32(&c[15].children[0], f->equality_ids[i], err));
        FL_TRY(fl_vector_append_nested(&c[15], c[15].children[0].len, err));
    } else {
        FL_TRY(mt_null(&c[15], err));
    }
    FL_TRY(f->has_sort_order_id ? mt_i32(&c[16], f->sort_order_id, err) : mt_null(&c[16], err));
    FL_TRY(f->has_first_row_id ? mt_i64(&c[17], f->first_row_id, err) : mt_null(&c[17], err));
    FL_TRY(mt_str(&c[18], f->referenced_data_file, err));
    FL_TRY(f->has_content_offset ? mt_i64(&c[19], f->content_offset, err) : mt_null(&c[19], err));
    FL_TRY(f->has_content_offset ? mt_i64(&c[20], f->content_size_in_bytes, err)
                                 : mt_null(&c[20], err));
    return FL_OK;
}

/* Calls fn for every entry of the selected snapshot's manifests. */
typedef fl_status (*entry_fn)(mt_builder *b, const fl_ice_manifest_file *mf,
                              const fl_ice_manifest_entry *e, void *ctx, fl_error *err);

static fl_status each_entry(mt_builder *b, entry_fn fn, void *ctx, fl_error *err)
{
    const fl_ice_snapshot *s;
    FL_TRY(snapshot_of(b, &s, err));
    if (!s)
        return FL_OK;
    fl_ice_manifest_file *mfs;
    uint32_t n;
    FL_TRY(fl_ice_snapshot_manifests(b->io, b->m, s, b->a, &mfs, &n, err));
    for (uint32_t i = 0; i < n; i++) {
        fl_ice_manifest_entry *es;
        uint32_t ne;
        FL_TRY(fl_ice_manifest_read(b->io, b->m, &mfs[i], b->a, &es, &ne, err));
        for (uint32_t k = 0; k < ne; k++)
            FL_TRY(fn(b, &mfs[i], &es[k], ctx, err));
    }
    return FL_OK;
}

typedef struct files_ctx {
    int which;
    bool entries;
} files_ctx;

static fl_status files_fn(mt_builder *b, const fl_ice_manifest_file *mf,
                          const fl_ice_manifest_entry *e, void *ctx, fl_error *err)
{
    (void)mf;
    const files_ctx *fc = ctx;
    fl_vector *c = b->cols;
    if (fc->entries) {
        FL_TRY(mt_i32(&c[0], (int32_t)e->status, err));
        FL_TRY(mt_i64(&c[1], e->snapshot_id, err));
        FL_TRY(mt_i64(&c[2], e->sequence_number, err));
        FL_TRY(mt_i64(&c[3], e->file_sequence_number, err));
        FL_TRY(file_row(b, c[4].children, &e->file, err));
        FL_TRY(fl_vector_append_nested(&c[4], 0, err));
        mt_row_done(b);
        return FL_OK;
    }
    if (e->status == FL_ICE_STATUS_DELETED)
        return FL_OK;
    bool data = e->file.content == FL_ICE_CONTENT_DATA;
    if ((fc->which == MT_FILES_DATA && !data) || (fc->which == MT_FILES_DELETES && data))
        return FL_OK;
    FL_TRY(file_row(b, c, &e->file, err));
    mt_row_done(b);
    return FL_OK;
}

fl_status mt_files(mt_builder *b, int which, bool entries, fl_error *err)
{
    mt_col fc[NFILE_COLS];
    file_cols(b, fc);
    files_ctx ctx = {which, entries};
    if (entries) {
        mt_col cols[] = {
            {"status", mt_prim(FL_TYPE_INT32)},
            {"snapshot_id", mt_prim(FL_TYPE_INT64)},
            {"sequence_number", mt_prim(FL_TYPE_INT64)},
            {"file_sequence_number", mt_prim(FL_TYPE_INT64)},
            {"data_file", mt_struct(b, fc, NFILE_COLS)},
        };
        FL_TRY(mt_begin(b, cols, 5, err));
    } else {
        FL_TRY(mt_begin(b, fc, NFILE_COLS, err));
    }
    return each_entry(b, files_fn, &ctx, err);
}

/* ---- partitions ---- */

typedef struct part_row {
    const char *key; /* partition JSON */
    int32_t spec_id;
    int64_t records, size, pos_records, eq_records, last_at, last_snap;
    int32_t files, pos_files, eq_files;
} part_row;

typedef struct parts_ctx {
    part_row *rows;
    uint32_t n, cap;
} parts_ctx;

static fl_status parts_fn(mt_builder *b, const fl_ice_manifest_file *mf,
                          const fl_ice_manifest_entry *e, void *vctx, fl_error *err)
{
    (void)mf;
    parts_ctx *pc = vctx;
    if (e->status == FL_ICE_STATUS_DELETED)
        return FL_OK;
    char *key = partition_json(b, &e->file);
    FL_CHECK(key != NULL, err, FL_ENOMEM, "out of memory");
    part_row *r = NULL;
    for (uint32_t i = pc->n; i-- > 0 && !r;) /* recent partitions first */
        if (pc->rows[i].spec_id == e->file.spec_id && !strcmp(pc->rows[i].key, key))
            r = &pc->rows[i];
    if (!r) {
        if (pc->n == pc->cap) {
            uint32_t nc = pc->cap ? pc->cap * 2 : 64;
            part_row *x = realloc(pc->rows, nc * sizeof *x);
            FL_CHECK(x != NULL, err, FL_ENOMEM, "out of memory");
            pc->rows = x;
            pc->cap = nc;
        }
        r = &pc->rows[pc->n++];
        memset(r, 0, sizeof *r);
        r->key = key;
        r->spec_id = e->file.spec_id;
        r->last_snap = FL_ICE_NO_SNAPSHOT;
    }
    const fl_ice_data_file *f = &e->file;
    if (f->content == FL_ICE_CONTENT_DATA) {
        r->records += f->record_count;
        r->size += f->file_size_in_bytes;
        r->files++;
    } else if (f->content == FL_ICE_CONTENT_POSITION_DELETES) {
        r->pos_records += f->record_count;
        r->pos_files++;
    } else {
        r->eq_records += f->record_count;
        r->eq_files++;
    }
    const fl_ice_snapshot *s = fl_ice_metadata_snapshot(b->m, e->snapshot_id);
    if (s && s->timestamp_ms * 1000 >= r->last_at) {
        r->last_at = s->timestamp_ms * 1000;
        r->last_snap = s->snapshot_id;
    }
    return FL_OK;
}

fl_status mt_partitions(mt_builder *b, fl_error *err)
{
    mt_col cols[] = {
        {"partition", mt_prim(FL_TYPE_STRING)},
        {"spec_id", mt_prim(FL_TYPE_INT32)},
        {"record_count", mt_prim(FL_TYPE_INT64)},
        {"file_count", mt_prim(FL_TYPE_INT32)},
        {"total_data_file_size_in_bytes", mt_prim(FL_TYPE_INT64)},
        {"position_delete_record_count", mt_prim(FL_TYPE_INT64)},
        {"position_delete_file_count", mt_prim(FL_TYPE_INT32)},
        {"equality_delete_record_count", mt_prim(FL_TYPE_INT64)},
        {"equality_delete_file_count", mt_prim(FL_TYPE_INT32)},
        {"last_updated_at", mt_prim(FL_TYPE_TIMESTAMPTZ)},
        {"last_updated_snapshot_id", mt_prim(FL_TYPE_INT64)},
    };
    FL_TRY(mt_begin(b, cols, 11, err));
    parts_ctx pc = {0};
    fl_status rc = each_entry(b, parts_fn, &pc, err);
    fl_vector *c = b->cols;
    for (uint32_t i = 0; rc == FL_OK && i < pc.n; i++) {
        const part_row *r = &pc.rows[i];
        if ((rc = mt_str(&c[0], r->key, err)) || (rc = mt_i32(&c[1], r->spec_id, err)) ||
            (rc = mt_i64(&c[2], r->records, err)) || (rc = mt_i32(&c[3], r->files, err)) ||
            (rc = mt_i64(&c[4], r->size, err)) || (rc = mt_i64(&c[5], r->pos_records, err)) ||
            (rc = mt_i32(&c[6], r->pos_files, err)) || (rc = mt_i64(&c[7], r->eq_records, err)) ||
            (rc = mt_i32(&c[8], r->eq_files, err)) ||
            (rc = r->last_snap != FL_ICE_NO_SNAPSHOT ? mt_i64(&c[9], r->last_at, err) : mt_null(&c[9], err)) ||
            (rc = r->last_snap != FL_ICE_NO_SNAPSHOT ? mt_i64(&c[10], r->last_snap, err) : mt_null(&c[10], err)))
            break;
        mt_row_done(b);
    }
    free(pc.rows);
    return rc;
}
