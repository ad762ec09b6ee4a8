/*
 * scan_task.c - reading one scan task: a Parquet (or ORC, scan_task_orc.c)
 * data file projected into the scan schema by field id, with its deletes
 * and the residual filter applied.
 *
 * Column sources (one "read column" per output column, plus hidden columns
 * that only the residual filter or equality deletes need):
 *   FILE      a top-level column of the data file, found by field id, or for
 *             files without ids through schema.name-mapping.default (without
 *             a mapping: by the table column's name). Same-layout types move
 *             from the Parquet batch into the output batch without copying
 *             (vector structs are swapped and re-typed); promotions convert
 *             per batch in tight loops: int->long, float->double,
 *             date->timestamp, nanos<->micros. Decimal widening keeps the
 *             16-byte representation, so it is a swap too. Structs whose
 *             fields changed map field by field by id (colmap, recursive):
 *             added fields read as initial-default or null.
 *   CONST     a column the file lacks: its initial-default, else null
 *             (CONSTANT-encoded vector, one physical value).
 *   _file     the data file path (CONSTANT); _pos the row position (int64).
 *
 * Deletes are decoded once per task at open: position delete files and the
 * DV merge into one sorted range set (walked with a cursor, rows arrive in
 * position order); equality delete files group by equality_ids into hash
 * sets (delete_eq.c). Positions are only exact when the Parquet scan skips
 * nothing, so the pruning predicate is handed to the Parquet scan only when
 * the task has no position deletes / DV and _pos is not read.
 *
 * Slices (scan_task.h): a reader may read only row groups [first, first+n)
 * of the file; positions then start at the first row group's start row (the
 * sum of num_rows of the row groups before it in the footer) and a seek to
 * another slice restarts the Parquet scan on the new row groups, keeping
 * file, footer, decoded deletes and the scan's column buffers.
 *
 * Ownership: the reader owns its file, Parquet reader/scan, batches and
 * delete state; it borrows the plan (which must outlive it) and io.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "floe/parquet.h"
#include "floe/parquet_meta.h"
#include "iceberg/manifest_cache.h"
#include "iceberg/scan_colmap.h"
#include "iceberg/scan_task.h"
#include "iceberg/scan_task_orc.h"

typedef enum src_kind {
    SRC_FILE,
    SRC_CONST,
    SRC_FILE_PATH,
    SRC_ROW_POS,
    SRC_ROW_ID,
    SRC_PARTITION /* _partition: a struct of per-file constants (parts) */
} src_kind;

typedef struct rcol {
    int32_t field_id;
    const fl_field *field; /* target field (type) */
    src_kind kind;
    colmap map;
    int pq; /* column index in the Parquet scan schema */
    fl_value constant;
    fl_value *parts; /* SRC_PARTITION: one value per struct child */
} rcol;

typedef struct eqref {
    ice_eqset *set;
    uint32_t nids;
    int *cols; /* read column per id */
} eqref;

struct fl_ice_task_reader {
    const ice_plan *p;
    const fl_ice_scan_task *task;
    fl_arena arena;
    fl_file *file;
    fl_parquet_reader *pr;
    struct fl_ice_cache_entry *footer; /* shared footer of pr (NULL without a cache) */
    fl_parquet_scan *ps;
    bool is_orc;     /* an ORC data file: orc instead of pr/ps */
    ice_orc_src orc; /* stripes are its row groups */
    fl_parquet_scan_options so;  /* projection + pushed predicate (arena), reused per slice */
    uint32_t rg_first, rg_count; /* the slice being read; rg_count 0 = the whole file */
    int64_t row_lo, row_hi;      /* row_hi > 0: rows [row_lo, row_hi) of row group rg_first */
    uint32_t *rgs, rgs_cap;      /* row-group list of the slice (malloc'd) */
    fl_batch pb;
    bool pb_init, extra_init;
    uint32_t nout, nread;
    rcol *cols;
    fl_schema extra_schema;
    fl_batch extra;
    fl_vector **vec; /* per read column, set at each batch */
    fl_ice_position_set dels;
    uint64_t del_cursor;
    uint32_t neq;
    eqref *eq;
    int *term_col; /* per filter term */
    fl_value *vals;
    fl_unified *uni; /* scratch: one per equality column */
    int64_t pos;
    bool done;
};

/* ---- opening ---- */

/* The table field for id: the scan schema, else any schema (dropped columns
 * that equality deletes still name). */
static const fl_field *find_field(const ice_plan *p, int32_t id)
{
    const fl_field *f = fl_schema_find_id(&p->pub.table_schema->schema, id);
    for (uint32_t i = 0; !f && i < p->pub.meta->nschemas; i++)
        f = fl_schema_find_id(&p->pub.meta->schemas[i].schema, id);
    return f ? f : fl_ice_metadata_column(NULL, id); /* a filter on _file, _spec_id... */
}

static int find_read(const fl_ice_task_reader *r, int32_t id)
{
    for (uint32_t i = 0; i < r->nread; i++)
        if (r->cols[i].field_id == id)
            return (int)i;
    return -1;
}

static fl_status add_hidden(fl_ice_task_reader *r, int32_t id, uint32_t cap, int *idx,
                            fl_error *err)
{
    int k = find_read(r, id);
    if (k >= 0) {
        *idx = k;
        return FL_OK;
    }
    const fl_field *f = find_field(r->p, id);
    FL_CHECK(f != NULL, err, FL_ENOTFOUND, "no column with field id %d in any schema", id);
    FL_CHECK(r->nread < cap, err, FL_EINVAL, "too many hidden columns");
    r->cols[r->nread].field_id = id;
    r->cols[r->nread].field = f;
    *idx = (int)r->nread++;
    return FL_OK;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return x < y ? -1 : x > y;
}

/* Loads position deletes, the DV and equality deletes of the task. */
static fl_status load_deletes(fl_fileio *io, fl_ice_task_reader *r, uint32_t *cap_hidden,
                              fl_error *err)
{
    const fl_ice_scan_task *t = r->task;
    FL_TRY(ice_task_deleted_positions(io, t, r->p->lenient_dv, &r->dels, err));

    /* equality deletes: one set per distinct sorted id list */
    r->eq = fl_arena_calloc(&r->arena, t->ndeletes + 1, sizeof *r->eq);
    FL_CHECK(r->eq != NULL, err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < t->ndeletes; i++) {
        const fl_ice_data_file *d = t->deletes[i];
        if (d->content != FL_ICE_CONTENT_EQUALITY_DELETES)
            continue;
        FL_CHECK(d->nequality_ids > 0, err, FL_ECORRUPT,
                 "%s: equality delete file without equality_ids", d->file_path);
        int32_t *ids = fl_arena_alloc(&r->arena, d->nequality_ids * sizeof *ids);
        FL_CHECK(ids != NULL, err, FL_ENOMEM, "out of memory");
        memcpy(ids, d->equality_ids, d->nequality_ids * sizeof *ids);
        qsort(ids, d->nequality_ids, sizeof *ids, cmp_i32);
        eqref *e = NULL;
        for (uint32_t k = 0; k < r->neq && !e; k++) {
            uint32_t n;
            const int32_t *have = ice_eqset_ids(r->eq[k].set, &n);
            if (n == d->nequality_ids && !memcmp(have, ids, n * sizeof *ids))
                e = &r->eq[k];
        }
        if (!e) {
            e = &r->eq[r->neq];
            FL_TRY(ice_eqset_new(ids, d->nequality_ids, &e->set, err));
            r->neq++;
            e->nids = d->nequality_ids;
            e->cols = fl_arena_calloc(&r->arena, e->nids, sizeof *e->cols);
            FL_CHECK(e->cols != NULL, err, FL_ENOMEM, "out of memory");
            for (uint32_t k = 0; k < e->nids; k++)
                FL_TRY(add_hidden(r, ids[k], *cap_hidden, &e->cols[k], err));
        }
        FL_TRY(ice_eqset_load(e->set, io, d, err));
    }
    return FL_OK;
}

/* A column missing from the data file but identity-partitioned reads as the
 * file's partition value (Hive-style files do not store such columns). */
static bool identity_value(fl_ice_task_reader *r, rcol *c)
{
    const fl_ice_data_file *f = r->task->file;
    const fl_ice_partition_spec *spec = fl_ice_metadata_spec(r->p->pub.meta, f->spec_id);
    for (uint32_t k = 0; spec && k < spec->nfields && k < f->npartition; k++) {
        const fl_ice_partition_field *pf = &spec->fields[k];
        if (pf->nsource_ids > 1 || pf->source_id != c->field_id)
            continue;
        fl_ice_transform tr;
        fl_error e2;
        if (fl_ice_transform_parse(pf->transform, &tr, &e2) != FL_OK ||
            tr.kind != FL_ICE_TRANSFORM_IDENTITY)
            continue;
        if (ice_literal_cast(&f->partition[k], &c->field->type, &c->constant))
            return true;
    }
    return false;
}

/* Metadata columns other than _file/_pos: per-file constants, or _row_id
 * (first_row_id + _pos). Row lineage values are NULL for files without a
 * first_row_id (tables before v3). A file that stores _row_id or
 * _last_updated_sequence_number itself (materialized lineage, written by
 * compaction in other engines) is refused rather than answered wrongly.
 * Returns false when id is not one of them. */
static bool meta_constant(fl_ice_task_reader *r, rcol *c, const fl_schema *fs, bool *need_pos,
                          fl_status *rc, fl_error *err)
{
    const fl_ice_data_file *f = r->task->file;
    fl_value *k = &c->constant;
    memset(k, 0, sizeof *k);
    k->type.id = c->field->type.id;
    switch (c->field_id) {
    case FL_ICE_FIELD_ID_SPEC_ID: k->v.i32 = f->spec_id; break;
    case FL_ICE_FIELD_ID_TRINO_FILE_SIZE: k->v.i64 = f->file_size_in_bytes; break;
    case FL_ICE_FIELD_ID_TRINO_FILE_MTIME: /* the store's, at open; NULL when it cannot tell */
        k->is_null = !r->file->has_mtime;
        k->v.i64 = r->file->mtime_us;
        break;
    case FL_ICE_FIELD_ID_TRINO_PARTITION: {
        const char *pp = ice_partition_text(r->p->pub.meta, f, &r->arena);
        if (!pp) {
            *rc = fl_errorf(err, FL_ECORRUPT, "%s: partition tuple does not fit spec %d",
                            f->file_path, (int)f->spec_id);
            return true;
        }
        k->v.bytes.ptr = (const uint8_t *)pp;
        k->v.bytes.len = strlen(pp);
        break;
    }
    case FL_ICE_FIELD_ID_PARTITION:
        c->kind = SRC_PARTITION;
        *rc = ice_partition_values(r->p->pub.meta, f, &c->field->type, &r->arena, &c->parts, err);
        return true;
    case FL_ICE_FIELD_ID_ROW_ID:
    case FL_ICE_FIELD_ID_LAST_UPDATED_SEQ:
        if (fl_schema_find_id(fs, c->field_id)) {
            *rc = fl_errorf(err, FL_EUNSUPPORTED,
                            "%s: the file stores %s itself (materialized row lineage), which floe "
                            "does not read yet",
                            f->file_path, c->field->name);
            return true;
        }
        k->is_null = !f->has_first_row_id;
        if (c->field_id == FL_ICE_FIELD_ID_LAST_UPDATED_SEQ) {
            k->v.i64 = r->task->data_sequence_number;
        } else if (f->has_first_row_id) {
            c->kind = SRC_ROW_ID;
            *need_pos = true;
            return true;
        }
        break;
    default: return false;
    }
    c->kind = SRC_CONST;
    return true;
}

/* Maps read columns to file columns and builds the Parquet projection. */
static fl_status map_columns(fl_ice_task_reader *r, const fl_schema *fs, bool *need_pos,
                             fl_error *err)
{
    const ice_plan *p = r->p;
    bool has_ids = false;
    for (uint32_t i = 0; i < fs->nfields; i++)
        has_ids |= fs->fields[i].field_id > 0;
    ice_name_mapping *nm = NULL;
    if (!has_ids && p->name_mapping)
        FL_TRY(ice_name_mapping_parse(p->name_mapping, &r->arena, &nm, err));
    int32_t *ids = fl_arena_calloc(&r->arena, r->nread + 1, sizeof *ids);
    const char **names = fl_arena_calloc(&r->arena, r->nread + 1, sizeof *names);
    FL_CHECK(ids && names, err, FL_ENOMEM, "out of memory");
    uint32_t nproj = 0;
    for (uint32_t i = 0; i < r->nread; i++) {
        rcol *c = &r->cols[i];
        if (c->field_id == FL_ICE_FIELD_ID_FILE_PATH || c->field_id == FL_ICE_FIELD_ID_TRINO_PATH) {
            c->kind = SRC_FILE_PATH;
            continue;
        }
        fl_status mrc = FL_OK;
        if (meta_constant(r, c, fs, need_pos, &mrc, err)) {
            FL_TRY(mrc);
            continue;
        }
        if (c->field_id == FL_ICE_FIELD_ID_ROW_POS) {
            c->kind = SRC_ROW_POS;
            *need_pos = true;
            continue;
        }
        int k = -1;
        for (uint32_t j = 0; j < fs->nfields && k < 0; j++) {
            const fl_field *ff = &fs->fields[j];
            int32_t fid = has_ids ? ff->field_id
                          : nm    ? ice_name_mapping_lookup(nm, ff->name)
                                  : (!strcmp(ff->name, c->field->name) ? c->field_id : -1);
            if (fid == c->field_id)
                k = (int)j;
        }
        if (k < 0 && identity_value(r, c)) {
            c->kind = SRC_CONST;
            continue;
        }
        if (k < 0) {
            c->kind = SRC_CONST;
            const fl_ice_field_extra *x = fl_ice_schema_extra(p->pub.table_schema, c->field_id);
            if (x && x->initial_default) {
                fl_status rc = ice_default_parse(&c->field->type, x->initial_default, &r->arena,
                                                 &c->constant, err);
                if (rc != FL_OK)
                    return fl_error_prefix(err, "column '%s'", c->field->name);
            } else {
                c->constant.type = c->field->type;
                c->constant.type.nchildren = 0;
                c->constant.type.children = NULL;
                c->constant.is_null = true;
            }
            continue;
        }
        c->kind = SRC_FILE;
        FL_TRY(ice_colmap_build(&fs->fields[k].type, c->field, p->pub.table_schema, &r->arena,
                                &c->map, err));
        c->pq = (int)nproj;
        if (has_ids)
            ids[nproj++] = fs->fields[k].field_id;
        else
            names[nproj++] = fs->fields[k].name;
    }
    bool prune = !*need_pos && p->filter.nterms > 0;
    fl_col_pred *terms = NULL;
    uint32_t nterms = 0;
    if (prune) {
        terms = fl_arena_calloc(&r->arena, p->filter.nterms, sizeof *terms);
        FL_CHECK(terms != NULL, err, FL_ENOMEM, "out of memory");
        for (uint32_t t = 0; t < p->filter.nterms; t++) {
            const ice_term *it = &p->filter.terms[t];
            if (it->nested) { /* row groups by the field's statistics (ids only) */
                if (has_ids && it->op != FL_CMP_IN && !it->part_field_id)
                    terms[nterms++] = (fl_col_pred){
                        .field_id = it->field_id, .op = it->op, .value = it->value};
                continue;
            }
            int rc_i = find_read(r, it->field_id);
            if (rc_i < 0 || r->cols[rc_i].kind != SRC_FILE || r->cols[rc_i].map.conv != CONV_SWAP ||
                it->op == FL_CMP_IN)
                continue;
            fl_col_pred *cp = &terms[nterms++];
            if (has_ids)
                cp->field_id = it->field_id;
            else
                cp->column = names[r->cols[rc_i].pq];
            cp->op = it->op;
            cp->value = it->value;
        }
    }
    fl_predicate *pred = fl_arena_calloc(&r->arena, 1, sizeof *pred);
    FL_CHECK(pred != NULL, err, FL_ENOMEM, "out of memory");
    pred->nterms = nterms;
    pred->terms = terms;
    fl_parquet_scan_options so = {0};
    if (has_ids) {
        so.field_ids = ids;
        so.nfield_ids = nproj;
    } else {
        so.columns = names;
        so.ncolumns = nproj;
    }
    so.predicate = nterms ? pred : NULL;
    if (nproj == 0) {
        /* nothing to read from the file but row counts: project the first
         * column anyway so batches carry the row count */
        FL_CHECK(fs->nfields > 0, err, FL_ECORRUPT, "data file has no columns");
        if (has_ids && fs->fields[0].field_id > 0) {
            ids[0] = fs->fields[0].field_id;
            so.field_ids = ids;
            so.nfield_ids = 1;
        } else {
            names[0] = fs->fields[0].name;
            so.columns = names;
            so.ncolumns = 1;
            so.field_ids = NULL;
            so.nfield_ids = 0;
        }
    }
    r->so = so;
    return FL_OK;
}

/* First row (file position) of row group g: the row counts of the row
 * groups before it, in footer order (Iceberg positions count rows in file
 * order, Parquet row groups are stored in footer order). */
static int64_t rg_start_row(const fl_parquet_reader *pr, uint32_t g)
{
    const fl_pq_file_meta *m = fl_parquet_footer(pr);
    int64_t at = 0;
    for (uint32_t i = 0; i < g && i < m->nrow_groups; i++)
        at += m->row_groups[i].num_rows;
    return at;
}

/* Points the Parquet scan at the current slice (opens it the first time;
 * later slices restart the same scan, keeping its column buffers, batch
 * and cumulative statistics); positions restart at the slice's first row. */
static fl_status open_orc_slice(fl_ice_task_reader *r, fl_error *err)
{
    if (r->pb_init) /* the batch borrows the old scan's schema */
        fl_batch_destroy(&r->pb);
    r->pb_init = false;
    r->del_cursor = 0;
    r->done = false;
    FL_TRY(ice_orc_src_scan(&r->orc, &r->so, r->rg_first, r->rg_count, &r->pos, err));
    FL_TRY(fl_batch_init(&r->pb, ice_orc_src_scan_schema(&r->orc), err));
    r->pb_init = true;
    return FL_OK;
}

static fl_status open_slice_scan(fl_ice_task_reader *r, fl_error *err)
{
    if (r->is_orc)
        return open_orc_slice(r, err);
    uint32_t nrg = fl_parquet_num_row_groups(r->pr);
    if (r->rg_count) {
        FL_CHECK(r->rg_first < nrg && r->rg_count <= nrg - r->rg_first, err, FL_EINVAL,
                 "row groups %u..%u of a file with %u", r->rg_first, r->rg_first + r->rg_count - 1,
                 nrg);
        if (r->rg_count > r->rgs_cap) {
            uint32_t *nr = realloc(r->rgs, r->rg_count * sizeof *nr);
            FL_CHECK(nr != NULL, err, FL_ENOMEM, "out of memory");
            r->rgs = nr;
            r->rgs_cap = r->rg_count;
        }
        for (uint32_t i = 0; i < r->rg_count; i++)
            r->rgs[i] = r->rg_first + i;
    }
    const uint32_t *list = r->rg_count ? r->rgs : NULL;
    bool rows = r->row_hi > 0;
    FL_CHECK(!rows || r->rg_count == 1, err, FL_EINVAL, "a row range of %u row groups",
             r->rg_count);
    r->pos = r->rg_count ? rg_start_row(r->pr, r->rg_first) + (rows ? r->row_lo : 0) : 0;
    r->del_cursor = 0;
    r->done = false;
    if (r->ps && rows)
        return fl_parquet_scan_restart_rows(r->ps, r->rg_first, r->row_lo, r->row_hi, err);
    if (r->ps)
        return fl_parquet_scan_restart(r->ps, list, r->rg_count, err);
    fl_parquet_scan_options so = r->so;
    so.row_groups = list;
    so.nrow_groups = r->rg_count;
    so.row_lo = rows ? r->row_lo : 0;
    so.row_hi = rows ? r->row_hi : 0;
    FL_TRY(fl_parquet_scan_open(r->pr, &so, &r->ps, err));
    FL_TRY(fl_batch_init(&r->pb, fl_parquet_scan_schema(r->ps), err));
    r->pb_init = true;
    return FL_OK;
}

/* Takes slice (NULL = the whole file) as r's current slice. */
static void set_slice(fl_ice_task_reader *r, const fl_ice_slice *slice)
{
    r->rg_first = slice ? slice->rg_first : 0;
    r->rg_count = slice ? slice->rg_count : 0;
    r->row_lo = slice && slice->row_hi > 0 ? slice->row_lo : 0;
    r->row_hi = slice && slice->row_hi > 0 ? slice->row_hi : 0;
}

fl_status fl_ice_task_reader_open_slice(fl_fileio *io, const fl_ice_scan_plan *pub, uint32_t task,
                                        const fl_ice_slice *slice, fl_ice_task_reader **out,
                                        fl_error *err)
{
    *out = NULL;
    const ice_plan *p = (const ice_plan *)pub;
    if (task >= pub->ntasks)
        return fl_errorf(err, FL_EINVAL, "task %u of %u", task, pub->ntasks);
    fl_ice_task_reader *r = calloc(1, sizeof *r);
    if (!r)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_arena_init(&r->arena, 0);
    r->p = p;
    r->task = &pub->tasks[task];
    set_slice(r, slice);
    const fl_ice_data_file *df = r->task->file;
    fl_status rc = FL_OK;
    r->nout = pub->schema.nfields;
    uint32_t cap = r->nout + p->filter.nterms + 64;
    for (uint32_t i = 0; i < r->task->ndeletes; i++)
        cap += r->task->deletes[i]->nequality_ids;
    r->cols = fl_arena_calloc(&r->arena, cap, sizeof *r->cols);
    r->term_col = fl_arena_calloc(&r->arena, p->filter.nterms + 1, sizeof *r->term_col);
    if (!r->cols || !r->term_col) {
        rc = fl_errorf(err, FL_ENOMEM, "out of memory");
        goto fail;
    }
    for (uint32_t i = 0; i < r->nout; i++) {
        r->cols[i].field_id = p->out_ids[i];
        r->cols[i].field = &pub->schema.fields[i]; /* b's vectors use these types */
    }
    r->nread = r->nout;
    r->is_orc = strcasecmp(df->file_format, "ORC") == 0;
    if (!r->is_orc && strcasecmp(df->file_format, "PARQUET") != 0) {
        rc = fl_errorf(err, FL_EUNSUPPORTED, "data file format %s", df->file_format);
        goto fail;
    }
    for (uint32_t t = 0; t < p->filter.nterms && rc == FL_OK; t++) {
        r->term_col[t] = -1; /* a struct field's term: the caller filters rows */
        if (!p->filter.terms[t].nested)
            rc = add_hidden(r, p->filter.terms[t].field_id, cap, &r->term_col[t], err);
    }
    if (rc == FL_OK)
        rc = load_deletes(io, r, &cap, err);
    if (rc == FL_OK)
        rc = fl_fileio_open(io, df->file_path, &r->file, err);
    if (rc == FL_OK && r->is_orc)
        rc = ice_orc_src_open(&r->orc, r->file, err);
    else if (rc == FL_OK)
        rc = fl_ice_cache_open_parquet(p->cache, r->file, &r->footer, &r->pr, err);
    bool need_pos = r->dels.nranges > 0;
    if (rc == FL_OK)
        rc = map_columns(r, r->is_orc ? ice_orc_src_schema(&r->orc) : fl_parquet_schema(r->pr),
                         &need_pos, err);
    if (rc == FL_OK)
        rc = open_slice_scan(r, err);
    /* hidden columns live in their own batch */
    if (rc == FL_OK) {
        r->extra_schema.nfields = r->nread - r->nout;
        r->extra_schema.fields =
            fl_arena_calloc(&r->arena, r->extra_schema.nfields + 1, sizeof(fl_field));
        r->vec = fl_arena_calloc(&r->arena, r->nread + 1, sizeof *r->vec);
        r->vals = fl_arena_calloc(&r->arena, r->nread + 1, sizeof *r->vals);
        r->uni = fl_arena_calloc(&r->arena, r->nread + 1, sizeof *r->uni);
        if (!r->extra_schema.fields || !r->vec || !r->vals || !r->uni)
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    if (rc == FL_OK) {
        for (uint32_t i = r->nout; i < r->nread; i++)
            r->extra_schema.fields[i - r->nout] = *r->cols[i].field;
        /* hidden columns' targets are the extra batch's own fields */
        rc = fl_batch_init(&r->extra, &r->extra_schema, err);
        r->extra_init = rc == FL_OK;
        for (uint32_t i = r->nout; i < r->nread; i++)
            r->cols[i].field = &r->extra_schema.fields[i - r->nout];
    }
    if (rc != FL_OK)
        goto fail;
    *out = r;
    return FL_OK;
fail:
    fl_error_prefix(err, "%s", df->file_path);
    fl_ice_task_reader_close(r);
    return rc;
}

fl_status fl_ice_task_reader_open(fl_fileio *io, const fl_ice_scan_plan *pub, uint32_t task,
                                  fl_ice_task_reader **out, fl_error *err)
{
    return fl_ice_task_reader_open_slice(io, pub, task, NULL, out, err);
}

fl_status fl_ice_task_reader_seek(fl_ice_task_reader *r, const fl_ice_slice *slice, fl_error *err)
{
    set_slice(r, slice);
    fl_status rc = open_slice_scan(r, err);
    if (rc != FL_OK)
        return fl_error_prefix(err, "%s", r->task->file->file_path);
    return FL_OK;
}

const fl_ice_scan_task *fl_ice_task_reader_task(const fl_ice_task_reader *r)
{
    return r->task;
}

/* Row counts of the row groups of pr for split planning: 0 for one whose
 * first column chunk has no offset index (row ranges would be decoded to
 * be skipped). */
static void row_group_rows(const fl_parquet_reader *pr, int64_t *rows, uint32_t cap)
{
    const fl_pq_file_meta *m = fl_parquet_footer(pr);
    for (uint32_t g = 0; g < m->nrow_groups && g < cap; g++) {
        const fl_pq_row_group *rg = &m->row_groups[g];
        bool indexed = rg->ncolumns > 0 && rg->columns[0].offset_index_offset > 0 &&
                       rg->columns[0].offset_index_length > 0;
        rows[g] = indexed ? rg->num_rows : 0;
    }
}

fl_status fl_ice_task_row_groups(fl_fileio *io, const fl_ice_scan_plan *pub, uint32_t task,
                                 uint32_t *nrg, int64_t *rows, uint32_t cap, fl_error *err)
{
    *nrg = 1;
    if (rows && cap)
        rows[0] = 0;
    if (task >= pub->ntasks)
        return fl_errorf(err, FL_EINVAL, "task %u of %u", task, pub->ntasks);
    const fl_ice_data_file *df = pub->tasks[task].file;
    /* one split offset = one row group: no need to read the footer unless
     * its rows are asked for; files other than Parquet fail later, when the
     * task is read */
    if (!df || (df->nsplit_offsets == 1 && !rows) || strcasecmp(df->file_format, "PARQUET") != 0)
        return FL_OK;
    const ice_plan *p = (const ice_plan *)pub;
    fl_file *f = NULL;
    fl_parquet_reader *pr = NULL;
    struct fl_ice_cache_entry *footer = NULL;
    fl_status rc = fl_fileio_open(io, df->file_path, &f, err);
    if (rc == FL_OK)
        rc = fl_ice_cache_open_parquet(p->cache, f, &footer, &pr, err);
    if (rc == FL_OK) {
        *nrg = fl_parquet_num_row_groups(pr);
        if (rows)
            row_group_rows(pr, rows, cap);
    }
    fl_parquet_close(pr);
    fl_ice_cache_release(footer, p->cache);
    fl_file_close(f);
    if (rc != FL_OK)
        return fl_error_prefix(err, "%s", df->file_path);
    return FL_OK;
}

void fl_ice_task_reader_stats(const fl_ice_task_reader *r, fl_parquet_scan_stats *out)
{
    memset(out, 0, sizeof *out);
    if (r && r->ps) /* cumulative over the slices read (one restarted scan) */
        fl_parquet_scan_get_stats(r->ps, out);
}

void fl_ice_task_reader_close(fl_ice_task_reader *r)
{
    if (!r)
        return;
    if (r->pb_init)
        fl_batch_destroy(&r->pb);
    if (r->extra_init)
        fl_batch_destroy(&r->extra);
    fl_parquet_scan_close(r->ps);
    ice_orc_src_close(&r->orc);
    free(r->rgs);
    fl_parquet_close(r->pr);
    fl_ice_cache_release(r->footer, r->p->cache);
    fl_file_close(r->file);
    fl_ice_position_set_free(&r->dels);
    for (uint32_t i = 0; i < r->neq; i++)
        ice_eqset_free(r->eq[i].set);
    fl_arena_free(&r->arena);
    free(r);
}

/* ---- batches ---- */

static fl_status fill_columns(fl_ice_task_reader *r, uint32_t n, fl_error *err)
{
    for (uint32_t i = 0; i < r->nread; i++) {
        rcol *c = &r->cols[i];
        fl_vector *v = r->vec[i];
        switch (c->kind) {
        case SRC_FILE:
            FL_TRY(ice_colmap_fill(v, &c->field->type, &r->pb.cols[c->pq], &c->map, n, err));
            break;
        case SRC_CONST: FL_TRY(ice_fill_const(v, &c->constant, n, err)); break;
        case SRC_PARTITION: FL_TRY(ice_fill_struct_const(v, c->parts, n, err)); break;
        case SRC_FILE_PATH: {
            fl_value fp = {.type = {.id = FL_TYPE_STRING}};
            fp.v.bytes.ptr = (const uint8_t *)r->task->file->file_path;
            fp.v.bytes.len = strlen(r->task->file->file_path);
            FL_TRY(ice_fill_const(v, &fp, n, err));
            break;
        }
        case SRC_ROW_POS:
        case SRC_ROW_ID: {
            int64_t base = c->kind == SRC_ROW_ID ? r->task->file->first_row_id + r->pos : r->pos;
            fl_vector_reset(v);
            FL_TRY(fl_vector_reserve(v, n, err));
            int64_t *o = (int64_t *)v->data;
            for (uint32_t k = 0; k < n; k++)
                o[k] = base + k;
            v->len = n;
            break;
        }
        }
    }
    return FL_OK;
}

static inline bool cmp_keep(fl_cmp_op op, int c)
{
    switch (op) {
    case FL_CMP_EQ: return c == 0;
    case FL_CMP_NE: return c != 0;
    case FL_CMP_LT: return c < 0;
    case FL_CMP_LE: return c <= 0;
    case FL_CMP_GT: return c > 0;
    default: return c >= 0;
    }
}

/* The typed loop: X(br) reads base row br into `x`, C computes c (-1/0/1)
 * from x and lit; NaN-like special cases go through SPECIAL (true = decided,
 * keep in `keep`). Null rows never satisfy a comparison. */
#define TYPED_LOOP(DECL, READ, CMP)                                                                \
    do {                                                                                           \
        for (uint32_t j = 0; j < live; j++) {                                                      \
            uint32_t row = sel[j];                                                                 \
            if (!fl_unified_is_valid(&u, row))                                                     \
                continue;                                                                          \
            uint32_t br = fl_unified_row(&u, row);                                                 \
            DECL;                                                                                  \
            READ;                                                                                  \
            int c;                                                                                 \
            CMP;                                                                                   \
            sel[k] = row;                                                                          \
            k += cmp_keep(op, c);                                                                  \
        }                                                                                          \
    } while (0)

#define CMP3(a, b) ((a) > (b)) - ((a) < (b))

/* Keeps the rows of sel that satisfy term t on column v. Comparisons of
 * integer, date/time, decimal (unscaled 128-bit, the literal already cast to
 * the column's scale at resolve time), float/double (IEEE: NaN fails every
 * comparison but <>, as ice_term_holds) and string/binary (bytewise, then
 * length, as fl_value_compare) columns with a literal of the column's type
 * take tight typed loops; everything else goes through fl_value comparison.
 * Returns the new count. */
/* The bytes of a string of at most 8 bytes as a zero-padded word (equal
 * lengths and words = equal strings). */
static inline uint64_t short_word(const uint8_t *p, size_t n)
{
    uint64_t w = 0;
    if (n)
        memcpy(&w, p, n);
    return w;
}

/* col IN (literals) on flat integer-like or string columns: each row is
 * compared with the list's non-NULL literals (already of the column's type). */
static bool filter_term_in(const ice_term *t, const fl_unified *u, fl_type_id id, uint32_t *sel,
                           uint32_t *live)
{
    bool i64 = id == FL_TYPE_INT64 || id == FL_TYPE_TIMESTAMP || id == FL_TYPE_TIMESTAMPTZ ||
               id == FL_TYPE_TIME;
    bool i32 = id == FL_TYPE_INT32 || id == FL_TYPE_DATE;
    bool str = id == FL_TYPE_STRING || id == FL_TYPE_BINARY;
    if (t->op != FL_CMP_IN || !(i64 || i32 || str) || t->nin > 64)
        return false;
    for (uint32_t i = 0; i < t->nin; i++)
        if (!t->in_values[i].is_null && t->in_values[i].type.id != id)
            return false;
    const fl_vector *b = u->base;
    uint64_t words[64]; /* short string literals as words: one compare per literal */
    for (uint32_t i = 0; str && i < t->nin; i++)
        words[i] = t->in_values[i].is_null || t->in_values[i].v.bytes.len > 8
                       ? 0
                       : short_word(t->in_values[i].v.bytes.ptr, t->in_values[i].v.bytes.len);
    uint32_t k = 0;
    for (uint32_t j = 0; j < *live; j++) {
        uint32_t row = sel[j];
        if (!fl_unified_is_valid(u, row))
            continue;
        uint32_t br = fl_unified_row(u, row);
        bool hit = false;
        if (str) {
            const uint8_t *xp = b->heap + b->offsets[br];
            size_t xl = (size_t)(b->offsets[br + 1] - b->offsets[br]);
            uint64_t xw = xl <= 8 ? short_word(xp, xl) : 0;
            for (uint32_t i = 0; i < t->nin && !hit; i++) {
                const fl_value *lv = &t->in_values[i];
                if (lv->is_null || lv->v.bytes.len != xl)
                    continue;
                hit = xl <= 8 ? words[i] == xw : memcmp(lv->v.bytes.ptr, xp, xl) == 0;
            }
        } else {
            int64_t x;
            if (i64)
                memcpy(&x, b->data + 8 * (size_t)br, 8);
            else {
                int32_t x32;
                memcpy(&x32, b->data + 4 * (size_t)br, 4);
                x = x32;
            }
            for (uint32_t i = 0; i < t->nin && !hit; i++) {
                const fl_value *lv = &t->in_values[i];
                hit = !lv->is_null && (i64 ? lv->v.i64 : lv->v.i32) == x;
            }
        }
        sel[k] = row;
        k += hit;
    }
    *live = k;
    return true;
}

static uint32_t filter_term(const ice_term *t, const fl_vector *v, uint32_t *sel, uint32_t live)
{
    fl_unified u;
    fl_vector_unify(v, &u);
    if (filter_term_in(t, &u, v->type->id, sel, &live))
        return live;
    fl_type_id id = v->type->id;
    bool i64 = id == FL_TYPE_INT64 || id == FL_TYPE_TIMESTAMP || id == FL_TYPE_TIMESTAMPTZ ||
               id == FL_TYPE_TIMESTAMP_NS || id == FL_TYPE_TIMESTAMPTZ_NS || id == FL_TYPE_TIME;
    bool i32 = id == FL_TYPE_INT32 || id == FL_TYPE_DATE;
    fl_cmp_op op = t->op;
    bool cmp = op == FL_CMP_EQ || op == FL_CMP_NE || op == FL_CMP_LT || op == FL_CMP_LE ||
               op == FL_CMP_GT || op == FL_CMP_GE;
    bool same = t->value.type.id == id;
    uint32_t k = 0;
    const uint8_t *data = u.base->data;
    if ((i64 || i32) && cmp && !t->value.is_null) {
        int64_t lit = i64 ? t->value.v.i64 : t->value.v.i32;
        if (i64)
            TYPED_LOOP(int64_t x, memcpy(&x, data + 8 * (size_t)br, 8), c = CMP3(x, lit));
        else
            TYPED_LOOP(int32_t x, memcpy(&x, data + 4 * (size_t)br, 4), c = CMP3(x, lit));
        return k;
    }
    if (cmp && same && !t->value.is_null && id == FL_TYPE_DECIMAL &&
        t->value.type.scale == v->type->scale) {
        fl_i128 lit = t->value.v.dec;
        TYPED_LOOP(fl_i128 x, memcpy(&x, data + 16 * (size_t)br, 16), c = CMP3(x, lit));
        return k;
    }
    if (cmp && same && !t->value.is_null && (id == FL_TYPE_FLOAT64 || id == FL_TYPE_FLOAT32)) {
        double lit = id == FL_TYPE_FLOAT64 ? t->value.v.f64 : t->value.v.f32;
        if (lit != lit)
            goto generic; /* NaN literal */
        if (id == FL_TYPE_FLOAT64)
            TYPED_LOOP(double x, memcpy(&x, data + 8 * (size_t)br, 8),
                       c = x != x ? (op == FL_CMP_NE ? 1 : 2) : CMP3(x, lit);
                       if (c == 2) continue);
        else
            TYPED_LOOP(float x, memcpy(&x, data + 4 * (size_t)br, 4),
                       c = x != x ? (op == FL_CMP_NE ? 1 : 2) : CMP3((double)x, lit);
                       if (c == 2) continue);
        return k;
    }
    if (cmp && same && !t->value.is_null && (id == FL_TYPE_STRING || id == FL_TYPE_BINARY)) {
        const uint8_t *lp = t->value.v.bytes.ptr;
        size_t ll = t->value.v.bytes.len;
        const int64_t *off = u.base->offsets;
        const uint8_t *heap = u.base->heap;
        TYPED_LOOP(size_t xl; const uint8_t *xp, xp = heap + off[br];
                   xl = (size_t)(off[br + 1] - off[br]), {
                       size_t n = xl < ll ? xl : ll;
                       int m = n ? memcmp(xp, lp, n) : 0;
                       c = m ? (m < 0 ? -1 : 1) : CMP3(xl, ll);
                   });
        return k;
    }
generic:;
    fl_value val;
    for (uint32_t j = 0; j < live; j++) {
        ice_unified_value(&u, v->type, sel[j], &val);
        if (ice_term_holds(t, &val))
            sel[k++] = sel[j];
    }
    return k;
}

#undef TYPED_LOOP
#undef CMP3

/* Filters sel (count *live rows of the batch) by deletes and residual. */
static uint32_t apply_deletes_and_filter(fl_ice_task_reader *r, uint32_t n, uint32_t *sel)
{
    uint32_t live = 0;
    const fl_ice_position_set *d = &r->dels;
    for (uint32_t i = 0; i < n; i++) {
        if (d->nranges) {
            uint64_t pos = (uint64_t)r->pos + i;
            while (r->del_cursor < d->nranges && d->ranges[2 * r->del_cursor + 1] <= pos)
                r->del_cursor++;
            if (r->del_cursor < d->nranges && d->ranges[2 * r->del_cursor] <= pos)
                continue;
        }
        sel[live++] = i;
    }
    for (uint32_t e = 0; e < r->neq && live; e++) {
        eqref *q = &r->eq[e];
        fl_unified *u = r->uni;
        for (uint32_t c = 0; c < q->nids; c++)
            fl_vector_unify(r->vec[q->cols[c]], &u[c]);
        uint32_t k = 0;
        for (uint32_t j = 0; j < live; j++) {
            for (uint32_t c = 0; c < q->nids; c++)
                ice_unified_value(&u[c], r->vec[q->cols[c]]->type, sel[j], &r->vals[c]);
            if (!ice_eqset_contains(q->set, r->vals))
                sel[k++] = sel[j];
        }
        live = k;
    }
    const ice_filter *f = &r->p->filter;
    for (uint32_t t = 0; t < f->nterms && live; t++)
        if (r->term_col[t] >= 0)
            live = filter_term(&f->terms[t], r->vec[r->term_col[t]], sel, live);
    return live;
}

fl_status fl_ice_task_reader_next(fl_ice_task_reader *r, fl_batch *b, bool *eof, fl_error *err)
{
    *eof = false;
    fl_batch_reset(b);
    for (uint32_t i = 0; i < r->nread; i++)
        r->vec[i] = i < r->nout ? &b->cols[i] : &r->extra.cols[i - r->nout];
    while (!r->done) {
        bool pe = false;
        fl_status rc = r->is_orc ? ice_orc_src_next(&r->orc, &r->pb, &pe, err)
                                 : fl_parquet_scan_next(r->ps, &r->pb, &pe, err);
        if (rc != FL_OK)
            return fl_error_prefix(err, "%s", r->task->file->file_path);
        if (pe) {
            r->done = true;
            break;
        }
        uint32_t n = r->pb.nrows;
        if (n == 0)
            continue;
        if (r->pb.sel) /* never set without filter_rows; keep the rows aligned */
            return fl_errorf(err, FL_EINVAL, "parquet scan returned a selection");
        fl_batch_reset(&r->extra);
        rc = fill_columns(r, n, err);
        if (rc != FL_OK)
            return fl_error_prefix(err, "%s", r->task->file->file_path);
        if (b->owned_sel.cap < n) {
            uint32_t *idx = realloc(b->owned_sel.idx, n * sizeof *idx);
            if (!idx)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            b->owned_sel.idx = idx;
            b->owned_sel.cap = n;
        }
        uint32_t live = apply_deletes_and_filter(r, n, b->owned_sel.idx);
        r->pos += n;
        b->nrows = n;
        if (live == 0) {
            fl_batch_reset(b);
            continue;
        }
        if (live < n) {
            b->owned_sel.count = live;
            b->sel = &b->owned_sel;
        }
        return FL_OK;
    }
    *eof = true;
    return FL_OK;
}
