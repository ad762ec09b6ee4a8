/*
 * deltas.c - what a checkpoint removes besides adding rows: equality-delete
 * keys (upserts and deletes of a change stream, fl_ingest_sink_delete) and
 * truncation (fl_ingest_sink_truncate). The sink (sink.c) owns one
 * ing_deltas and turns it into the checkpoint's row delta.
 *
 * Keys. A buffered key row holds the table's identifier-field columns only
 * (Iceberg's identifier-field-ids, in their order), copied from the caller's
 * batch. At the checkpoint they become ONE equality delete file, scoped to
 * the unpartitioned default spec (a global delete: it applies to data files
 * of every spec). Partitioned tables are refused: a change stream's delete
 * carries the key only, not the partition values a scoped delete needs.
 * The delete's data sequence number is the checkpoint's, so it removes rows
 * of earlier checkpoints and none of the rows added with it: the caller
 * writes each key's final row once per checkpoint (src_pgcdc.c does).
 *
 * Truncation. Every live data and delete file of the current snapshot
 * (DVs go with their data files) is removed by the same row delta that adds
 * the checkpoint's rows; keys buffered before it are dropped (nothing older
 * is left for them to delete).
 *
 * Ownership: ing_deltas owns its arena (schema copy, ids) and its batch.
 */
#include <string.h>
#include <strings.h>

#include "floe/ice_manifest.h"
#include "ingest/ingest_int.h"

void ing_deltas_free(ing_deltas *d)
{
    if (d->has_batch)
        fl_batch_destroy(&d->keys);
    fl_arena_free(&d->arena);
    memset(d, 0, sizeof *d);
}

void ing_deltas_reset(ing_deltas *d)
{
    if (d->has_batch)
        fl_batch_reset(&d->keys);
    d->nkeys = 0;
    d->truncate = false;
}

/* The key schema and column map, from the table's identifier fields. */
static fl_status setup(ing_deltas *d, const char *pipeline, const fl_ice_metadata *m,
                       const fl_schema *rows, fl_error *err)
{
    const fl_ice_schema *is = fl_ice_metadata_current_schema(m);
    if (m->format_version < 2)
        return fl_errorf(err, FL_EINVAL,
                         "pipeline %s: deletes need an Iceberg format version 2 table (this one "
                         "has %d)",
                         pipeline, (int)m->format_version);
    if (!is || !is->nidentifier)
        return fl_errorf(err, FL_EINVAL,
                         "pipeline %s: the table has no identifier fields (the key that deletes "
                         "and updates match rows by)",
                         pipeline);
    const fl_ice_partition_spec *spec = fl_ice_metadata_spec(m, m->default_spec_id);
    if (!spec || spec->nfields)
        return fl_errorf(err, FL_EINVAL,
                         "pipeline %s: deletes and updates need an unpartitioned table (a "
                         "change's key does not carry partition values)",
                         pipeline);
    if (rows->nfields != is->schema.nfields)
        return fl_errorf(err, FL_EINVAL, "pipeline %s: delete rows have %u columns, the table %u",
                         pipeline, rows->nfields, is->schema.nfields);
    fl_arena_init(&d->arena, 0);
    uint32_t n = is->nidentifier;
    d->cols = fl_arena_alloc(&d->arena, n * sizeof *d->cols);
    d->ids = fl_arena_alloc(&d->arena, n * sizeof *d->ids);
    fl_field *f = fl_arena_alloc(&d->arena, n * sizeof *f);
    if (!d->cols || !d->ids || !f)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t k = 0; k < n; k++) {
        int32_t id = is->identifier_field_ids[k];
        uint32_t c = 0;
        while (c < is->schema.nfields && is->schema.fields[c].field_id != id)
            c++;
        if (c == is->schema.nfields)
            return fl_errorf(err, FL_EINVAL,
                             "pipeline %s: identifier field id %d is not a top-level column",
                             pipeline, (int)id);
        d->cols[k] = c;
        d->ids[k] = id;
        /* copied: the table's metadata (and its names) is replaced at every commit */
        f[k] = is->schema.fields[c];
        f[k].type = rows->fields[c].type;
        if (!(f[k].name = fl_arena_strdup(&d->arena, is->schema.fields[c].name)))
            return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    d->schema = (fl_schema){.nfields = n, .fields = f};
    d->nids = n;
    FL_TRY(fl_batch_init(&d->keys, &d->schema, err));
    d->has_batch = true;
    return FL_OK;
}

fl_status ing_deltas_add_keys(ing_deltas *d, const char *pipeline, const fl_ice_metadata *m,
                              const fl_batch *b, fl_error *err)
{
    if (!d->has_batch)
        FL_TRY(setup(d, pipeline, m, b->schema, err));
    uint32_t live = fl_batch_live_rows(b);
    for (uint32_t i = 0; i < live; i++) {
        uint32_t r = b->sel ? b->sel->idx[i] : i;
        for (uint32_t k = 0; k < d->nids; k++) {
            const fl_vector *v = &b->cols[d->cols[k]];
            FL_TRY(fl_vector_append_from(&d->keys.cols[k], v, r, err));
        }
        d->keys.nrows++;
        d->nkeys++;
    }
    return FL_OK;
}

fl_status ing_deltas_write_keys(ing_deltas *d, fl_fileio *io, const fl_ice_metadata *m, fl_arena *a,
                                fl_ice_data_file *out, fl_error *err)
{
    fl_ice_eq_delete_spec spec = {
        .spec_id = m->default_spec_id, .equality_ids = d->ids, .nequality_ids = d->nids};
    return fl_ice_write_equality_deletes(io, m, &spec, &d->keys, a, out, err);
}

/* Appends path to a growing arena array. */
static fl_status push(fl_arena *a, const char ***v, uint32_t *n, uint32_t *cap, const char *path,
                      fl_error *err)
{
    if (*n == *cap) {
        uint32_t nc = *cap ? *cap * 2 : 16;
        const char **nv = fl_arena_alloc(a, nc * sizeof *nv);
        if (!nv)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        if (*n)
            memcpy(nv, *v, *n * sizeof *nv);
        *v = nv;
        *cap = nc;
    }
    (*v)[(*n)++] = path;
    return FL_OK;
}

fl_status ing_deltas_live_files(fl_fileio *io, const fl_ice_metadata *m, fl_arena *a,
                                ing_file_list *data, ing_file_list *deletes, fl_error *err)
{
    memset(data, 0, sizeof *data);
    memset(deletes, 0, sizeof *deletes);
    const fl_ice_snapshot *snap = fl_ice_metadata_current_snapshot(m);
    if (!snap)
        return FL_OK;
    fl_ice_manifest_file *mfs = NULL;
    uint32_t nmf = 0, dcap = 0, xcap = 0;
    FL_TRY(fl_ice_snapshot_manifests(io, m, snap, a, &mfs, &nmf, err));
    for (uint32_t i = 0; i < nmf; i++) {
        fl_ice_manifest_entry *e = NULL;
        uint32_t n = 0;
        FL_TRY(fl_ice_manifest_read(io, m, &mfs[i], a, &e, &n, err));
        for (uint32_t j = 0; j < n; j++) {
            const fl_ice_data_file *f = &e[j].file;
            if (e[j].status == FL_ICE_STATUS_DELETED)
                continue;
            if (f->content == FL_ICE_CONTENT_DATA)
                FL_TRY(push(a, &data->paths, &data->n, &dcap, f->file_path, err));
            else if (!f->file_format || strcasecmp(f->file_format, "PUFFIN") != 0)
                FL_TRY(push(a, &deletes->paths, &deletes->n, &xcap, f->file_path, err));
        }
    }
    return FL_OK;
}
