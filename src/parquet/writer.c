/*
 * writer.c - fl_parquet_writer_*: writes a Parquet file from batches.
 *
 * File layout written (parquet-format README "File Format", PageIndex.md,
 * BloomFilter.md):
 *
 *   "PAR1"
 *   row group 0: column chunk 0: [dictionary page] data pages ...
 *                column chunk 1 ...
 *   row group 1 ...
 *   bloom filters (BloomFilterHeader + bitset) of every chunk that has one
 *   column indexes (ColumnIndex) of every chunk, row group by row group
 *   offset indexes (OffsetIndex) of every chunk
 *   FileMetaData (thrift compact), 4-byte little-endian footer length, "PAR1"
 *
 * Rows are buffered per column as encoded, compressed pages of the current
 * row group only (column_writer.c); a row group is flushed when its
 * uncompressed size reaches row_group_bytes or its row count row_group_rows.
 * Page indexes and bloom filters of flushed row groups stay in memory (small)
 * until close. Each ColumnChunk.file_offset is the offset of its first page.
 *
 * Ownership: the writer borrows the fl_output and the schema (both must
 * outlive it); it owns an arena holding the footer structures and page index
 * values, and its columns' buffers. close/abort free it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/parquet.h"
#include "parquet/writer_int.h"

#ifndef FLOE_VERSION
#define FLOE_VERSION "0.1.0"
#endif
#ifndef FLOE_BUILD_ID
#define FLOE_BUILD_ID "floe"
#endif

#define DEFAULT_CREATED_BY "floe version " FLOE_VERSION " (build " FLOE_BUILD_ID ")"
#define MAX_SLICE_ROWS 8192u

/* What a flushed chunk leaves behind until close (page index, bloom filter). */
typedef struct chunk_extra {
    fl_pqw_page_entry *pages; /* arena */
    uint32_t npages;
    bool ci_ok;
    uint8_t *bloom; /* serialized filter, arena; NULL if none */
    size_t bloom_len;
} chunk_extra;

struct fl_parquet_writer {
    fl_output *out;
    const fl_schema *schema;
    const fl_schema *stored; /* schema with variants as {metadata, value} groups */
    fl_vector *split;        /* per top-level column: its variants split (NULL: none) */
    fl_arena arena;
    fl_pqw_schema sch;
    fl_pqw_opts opt;
    fl_pqw_column *cols;
    uint32_t ncols;
    uint64_t offset;   /* bytes of the file written so far */
    uint64_t rg_bytes; /* targets */
    uint64_t rg_rows_max;
    int64_t rg_rows; /* rows buffered in the current row group */
    int64_t num_rows;
    fl_pq_row_group *rgs; /* malloc'd; their columns live in the arena */
    chunk_extra **extras; /* per row group: ncols entries (arena) */
    uint32_t nrgs, rgs_cap;
    const fl_kv_pair *kv;
    uint32_t nkv;
    const char *created_by;
    bool failed; /* an earlier error left the file unusable */
    fl_pq_buf dictbuf, buf;
};

/* ---------------------------------------------------------------- output */

static fl_status out_write(fl_parquet_writer *w, const void *p, size_t n, fl_error *err)
{
    if (!n)
        return FL_OK;
    fl_status rc = fl_output_write(w->out, p, n, err);
    if (rc != FL_OK)
        return fl_error_prefix(err, "%s: write at offset %llu",
                               w->out->path ? w->out->path : "parquet",
                               (unsigned long long)w->offset);
    w->offset += n;
    return FL_OK;
}

/* ---------------------------------------------------------------- open */

static fl_codec map_codec(fl_parquet_codec c, fl_pq_codec *pq, bool *ok)
{
    *ok = true;
    switch (c) {
    case FL_PARQUET_UNCOMPRESSED: *pq = FL_PQ_UNCOMPRESSED; return FL_CODEC_NONE;
    case FL_PARQUET_SNAPPY: *pq = FL_PQ_SNAPPY; return FL_CODEC_SNAPPY;
    case FL_PARQUET_GZIP: *pq = FL_PQ_GZIP; return FL_CODEC_GZIP;
    case FL_PARQUET_BROTLI: *pq = FL_PQ_BROTLI; return FL_CODEC_BROTLI;
    case FL_PARQUET_ZSTD: *pq = FL_PQ_ZSTD; return FL_CODEC_ZSTD;
    case FL_PARQUET_LZ4_RAW: *pq = FL_PQ_LZ4_RAW; return FL_CODEC_LZ4_RAW;
    default: *ok = false; return FL_CODEC_NONE;
    }
}

static fl_status set_options(fl_parquet_writer *w, const fl_parquet_write_options *o, fl_error *err)
{
    static const fl_parquet_write_options defaults;
    if (!o)
        o = &defaults;
    fl_pqw_opts *p = &w->opt;
    bool ok;
    fl_parquet_codec codec = o->codec_set ? o->codec : FL_PARQUET_ZSTD;
    p->codec = map_codec(codec, &p->pq_codec, &ok);
    if (!ok)
        return fl_errorf(err, codec == FL_PARQUET_LZ4 ? FL_EUNSUPPORTED : FL_EINVAL,
                         "Parquet writer: codec %d cannot be written (use LZ4_RAW for LZ4)",
                         (int)codec);
    p->level = o->compression_level;
    if (p->level == 0 && p->codec == FL_CODEC_ZSTD)
        p->level = 3;
    p->page_bytes = o->page_bytes ? o->page_bytes : 1u << 20;
    p->page_rows = o->page_rows ? o->page_rows : 20000;
    p->dictionary = !o->no_dictionary;
    p->dictionary_max_bytes = o->dictionary_max_bytes ? o->dictionary_max_bytes : 1u << 20;
    p->statistics = !o->no_statistics;
    p->page_index = !o->no_page_index;
    p->crc = o->write_crc;
    if (o->data_page_version != 0 && o->data_page_version != 1 && o->data_page_version != 2)
        return fl_errorf(err, FL_EINVAL, "Parquet writer: data page version %d (use 1 or 2)",
                         o->data_page_version);
    p->page_version = o->data_page_version == 2 ? 2 : 1;
    p->bloom_fpp = o->bloom_fpp > 0 ? o->bloom_fpp : 0.01;
    if (p->bloom_fpp >= 1.0)
        return fl_errorf(err, FL_EINVAL, "Parquet writer: bloom filter fpp %g", p->bloom_fpp);
    w->rg_bytes = o->row_group_bytes ? o->row_group_bytes : (uint64_t)128 << 20;
    w->rg_rows_max = o->row_group_rows ? o->row_group_rows : UINT64_MAX;
    w->kv = o->kv;
    w->nkv = o->nkv;
    for (uint32_t i = 0; i < o->nkv; i++)
        if (!o->kv[i].key)
            return fl_errorf(err, FL_EINVAL, "Parquet writer: key-value pair %u has no key", i);
    w->created_by = fl_arena_strdup(&w->arena, o->created_by ? o->created_by : DEFAULT_CREATED_BY);
    if (!w->created_by)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    return FL_OK;
}

static bool wants_bloom(const fl_parquet_write_options *o, const fl_pqw_leaf *l)
{
    for (uint32_t i = 0; o && i < o->nbloom_columns; i++)
        if (o->bloom_columns[i] &&
            (!strcmp(o->bloom_columns[i], l->path) || !strcmp(o->bloom_columns[i], l->fpath)))
            return true;
    return false;
}

static fl_status check_bloom_names(const fl_parquet_writer *w, const fl_parquet_write_options *o,
                                   fl_error *err)
{
    for (uint32_t i = 0; o && i < o->nbloom_columns; i++) {
        const char *n = o->bloom_columns[i];
        bool found = false;
        for (uint32_t j = 0; n && j < w->sch.nleaves && !found; j++)
            found = !strcmp(n, w->sch.leaves[j].path) || !strcmp(n, w->sch.leaves[j].fpath);
        if (!found)
            return fl_errorf(err, FL_ENOTFOUND,
                             "Parquet writer: bloom filter column '%s' is not a "
                             "leaf column",
                             n ? n : "(null)");
    }
    return FL_OK;
}

/* One split vector per variant column (variant_write.c). */
static fl_status init_split(fl_parquet_writer *w, fl_error *err)
{
    w->split = calloc(w->schema->nfields, sizeof *w->split);
    if (!w->split)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < w->schema->nfields; i++)
        if (fl_type_is_variant(&w->schema->fields[i].type))
            FL_TRY(fl_vector_init(&w->split[i], &w->stored->fields[i].type, err));
    return FL_OK;
}

fl_status fl_parquet_writer_open(fl_output *out, const fl_schema *schema,
                                 const fl_parquet_write_options *opt, fl_parquet_writer **wp,
                                 fl_error *err)
{
    *wp = NULL;
    if (!out || !schema)
        return fl_errorf(err, FL_EINVAL, "Parquet writer: no output or no schema");
    fl_parquet_writer *w = calloc(1, sizeof *w);
    if (!w)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_arena_init(&w->arena, 0);
    w->out = out;
    w->schema = schema;
    w->offset = out->written;
    fl_status rc = set_options(w, opt, err);
    if (rc == FL_OK)
        rc = fl_pqw_variant_schema(&w->arena, schema, &w->stored, err);
    if (rc == FL_OK && w->stored != schema)
        rc = init_split(w, err);
    if (rc == FL_OK)
        rc = fl_pqw_schema_build(&w->arena, w->stored, "schema", &w->sch, err);
    if (rc == FL_OK)
        rc = check_bloom_names(w, opt, err);
    if (rc == FL_OK && w->sch.nleaves == 0)
        rc = fl_errorf(err, FL_EINVAL, "Parquet writer: the schema has no leaf columns");
    if (rc == FL_OK) {
        w->cols = calloc(w->sch.nleaves, sizeof *w->cols);
        if (!w->cols)
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    for (uint32_t i = 0; rc == FL_OK && i < w->sch.nleaves; i++) {
        rc = fl_pqw_column_init(&w->cols[i], &w->sch.leaves[i], &w->opt, &w->arena,
                                wants_bloom(opt, &w->sch.leaves[i]), err);
        w->ncols = i + 1;
    }
    if (rc == FL_OK)
        rc = out_write(w, "PAR1", 4, err);
    if (rc != FL_OK) {
        fl_parquet_writer_abort(w);
        return rc;
    }
    *wp = w;
    return FL_OK;
}

/* ---------------------------------------------------------------- row groups */

static fl_status encodings_of(fl_parquet_writer *w, const fl_pqw_column *c, bool dict,
                              fl_pq_column_meta *m, fl_error *err)
{
    fl_pq_encoding *e = fl_arena_alloc(&w->arena, 3 * sizeof *e);
    fl_pq_page_encoding_stats *s = fl_arena_alloc(&w->arena, 3 * sizeof *s);
    if (!e || !s)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    uint32_t ne = 0, ns = 0;
    fl_pq_page_type dt = w->opt.page_version == 2 ? FL_PQ_DATA_PAGE_V2 : FL_PQ_DATA_PAGE;
    if (dict || c->n_plain_pages)
        e[ne++] = FL_PQ_ENC_PLAIN;
    e[ne++] = FL_PQ_ENC_RLE;
    if (dict)
        e[ne++] = FL_PQ_ENC_RLE_DICTIONARY;
    if (dict)
        s[ns++] = (fl_pq_page_encoding_stats){FL_PQ_DICTIONARY_PAGE, FL_PQ_ENC_PLAIN, 1};
    if (c->n_dict_pages_data)
        s[ns++] = (fl_pq_page_encoding_stats){dt, FL_PQ_ENC_RLE_DICTIONARY, c->n_dict_pages_data};
    if (c->n_plain_pages)
        s[ns++] = (fl_pq_page_encoding_stats){dt, FL_PQ_ENC_PLAIN, c->n_plain_pages};
    m->encodings = e;
    m->nencodings = ne;
    m->encoding_stats = s;
    m->nencoding_stats = ns;
    return FL_OK;
}

static bool legacy_stats_ok(const fl_pqw_leaf *l)
{
    /* the deprecated min/max (signed order) equal the typed order for these */
    switch (l->vkind) {
    case FL_PQW_V_BOOL:
    case FL_PQW_V_I32:
    case FL_PQW_V_I64:
    case FL_PQW_V_F32:
    case FL_PQW_V_F64:
    case FL_PQW_V_DEC32:
    case FL_PQW_V_DEC64: return true;
    default: return false;
    }
}

static fl_status chunk_stats(fl_parquet_writer *w, const fl_pqw_column *c, fl_pq_statistics *st,
                             fl_error *err)
{
    memset(st, 0, sizeof *st);
    st->null_count_set = true;
    st->null_count = c->chunk_nulls;
    if (c->leaf->vkind == FL_PQW_V_F32 || c->leaf->vkind == FL_PQW_V_F64) {
        st->nan_count_set = true; /* required for floats with TypeDefinedOrder */
        st->nan_count = c->chunk_nans;
    }
    if (!c->chunk_mm.has)
        return FL_OK;
    bool me, xe;
    FL_TRY(fl_pqw_minmax_bytes(c, &c->chunk_mm, 4096, &w->arena, &st->min_value, &me,
                               &st->max_value, &xe, err));
    st->is_min_value_exact_set = st->is_max_value_exact_set = true;
    st->is_min_value_exact = me;
    st->is_max_value_exact = xe;
    if (legacy_stats_ok(c->leaf)) {
        st->min = st->min_value;
        st->max = st->max_value;
    }
    return FL_OK;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static fl_status make_bloom(fl_parquet_writer *w, fl_pqw_column *c, chunk_extra *x, fl_error *err)
{
    /* distinct hashes size the filter; every distinct hash is inserted once */
    uint64_t *h = c->hashes;
    size_t n = c->nhashes, ndv = 0;
    if (n) {
        qsort(h, n, sizeof *h, cmp_u64);
        for (size_t i = 0; i < n; i++)
            if (i == 0 || h[i] != h[i - 1])
                h[ndv++] = h[i];
    }
    fl_pq_bloom bf;
    FL_TRY(fl_pq_bloom_init(&bf, ndv ? ndv : 1, w->opt.bloom_fpp, err));
    for (size_t i = 0; i < ndv; i++)
        fl_pq_bloom_insert(&bf, h[i]);
    w->buf.len = 0;
    fl_status rc = fl_pq_bloom_serialize(&bf, &w->buf, err);
    fl_pq_bloom_free(&bf);
    FL_TRY(rc);
    x->bloom = fl_arena_alloc(&w->arena, w->buf.len);
    if (!x->bloom)
        return fl_errorf(err, FL_ENOMEM, "out of memory for a bloom filter");
    memcpy(x->bloom, w->buf.data, w->buf.len);
    x->bloom_len = w->buf.len;
    return FL_OK;
}

static fl_status grow_rgs(fl_parquet_writer *w, fl_error *err)
{
    if (w->nrgs < w->rgs_cap)
        return FL_OK;
    if (w->nrgs >= 32767)
        return fl_errorf(err, FL_ELIMIT, "Parquet writer: more than 32767 row groups");
    uint32_t cap = w->rgs_cap ? w->rgs_cap * 2 : 8;
    fl_pq_row_group *r = realloc(w->rgs, cap * sizeof *r);
    if (!r)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    w->rgs = r;
    chunk_extra **x = realloc(w->extras, cap * sizeof *x);
    if (!x)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    w->extras = x;
    w->rgs_cap = cap;
    return FL_OK;
}

static fl_status write_chunk(fl_parquet_writer *w, fl_pqw_column *c, fl_pq_column_chunk *cc,
                             chunk_extra *x, fl_error *err)
{
    const fl_pqw_leaf *l = c->leaf;
    int64_t dict_unc = 0;
    FL_TRY(fl_pqw_column_finish_chunk(c, &w->dictbuf, &dict_unc, err));
    int64_t start = (int64_t)w->offset;
    bool dict = w->dictbuf.len > 0;
    FL_TRY(out_write(w, w->dictbuf.data, w->dictbuf.len, err));
    int64_t data_start = (int64_t)w->offset;
    FL_TRY(out_write(w, c->pages.data, c->pages.len, err));

    memset(cc, 0, sizeof *cc);
    cc->file_offset = start;
    cc->meta_data_set = true;
    cc->offset_index_offset = -1;
    cc->column_index_offset = -1;
    fl_pq_column_meta *m = &cc->meta_data;
    m->type = l->physical;
    FL_TRY(encodings_of(w, c, dict, m, err));
    m->npath = l->nparts;
    m->path_in_schema = l->parts;
    m->codec = w->opt.pq_codec;
    m->num_values = c->chunk_values;
    m->total_uncompressed_size = dict_unc + c->chunk_uncompressed;
    m->total_compressed_size = (int64_t)(w->dictbuf.len + c->pages.len);
    m->data_page_offset = data_start;
    m->index_page_offset = -1;
    m->dictionary_page_offset = dict ? start : -1;
    m->bloom_filter_offset = -1;
    m->bloom_filter_length = -1;
    if (w->opt.statistics) {
        m->statistics_set = true;
        FL_TRY(chunk_stats(w, c, &m->statistics, err));
    }
    if (c->geo && w->opt.statistics)
        FL_TRY(fl_pqw_geo_stats(c, &w->arena, &m->geo_stats, &m->geo_stats_set, err));
    if (l->vkind == FL_PQW_V_BYTES) {
        m->size_stats.unencoded_byte_array_data_bytes_set = false;
    }

    /* page index entries: make offsets absolute and keep them until close */
    x->npages = c->npages;
    x->ci_ok = c->ci_ok;
    x->pages = fl_arena_alloc(&w->arena, (c->npages ? c->npages : 1) * sizeof *x->pages);
    if (!x->pages)
        return fl_errorf(err, FL_ENOMEM, "out of memory for the page index");
    for (uint32_t i = 0; i < c->npages; i++) {
        x->pages[i] = c->pagev[i];
        x->pages[i].offset += data_start;
    }
    if (c->bloom)
        FL_TRY(make_bloom(w, c, x, err));

    /* file-level facts for the result */
    c->file_values += c->chunk_values;
    c->file_nulls += c->chunk_nulls;
    c->file_nans += c->chunk_nans;
    c->file_compressed += m->total_compressed_size;
    FL_TRY(fl_pqw_minmax_merge(l, &c->file_mm, &c->chunk_mm, err));
    fl_pqw_column_reset_chunk(c);
    return FL_OK;
}

static fl_status flush_row_group(fl_parquet_writer *w, fl_error *err)
{
    if (w->rg_rows == 0)
        return FL_OK;
    FL_TRY(grow_rgs(w, err));
    fl_pq_row_group *rg = &w->rgs[w->nrgs];
    memset(rg, 0, sizeof *rg);
    rg->columns = fl_arena_calloc(&w->arena, w->ncols, sizeof *rg->columns);
    chunk_extra *x = fl_arena_calloc(&w->arena, w->ncols, sizeof *x);
    if (!rg->columns || !x)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    rg->ncolumns = w->ncols;
    rg->file_offset = (int64_t)w->offset;
    rg->num_rows = w->rg_rows;
    rg->ordinal = (int16_t)w->nrgs;
    int64_t unc = 0, comp = 0;
    for (uint32_t i = 0; i < w->ncols; i++) {
        fl_status rc = write_chunk(w, &w->cols[i], &rg->columns[i], &x[i], err);
        if (rc != FL_OK)
            return fl_error_prefix(err, "column '%s'", w->sch.leaves[i].path);
        unc += rg->columns[i].meta_data.total_uncompressed_size;
        comp += rg->columns[i].meta_data.total_compressed_size;
    }
    rg->total_byte_size = unc;
    rg->total_compressed_size = comp;
    w->extras[w->nrgs] = x;
    w->nrgs++;
    w->rg_rows = 0;
    return FL_OK;
}

static uint64_t buffered_bytes(const fl_parquet_writer *w)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < w->ncols; i++)
        n += fl_pqw_column_buffered(&w->cols[i]);
    return n;
}

static fl_status check_batch(const fl_parquet_writer *w, const fl_batch *b, fl_error *err)
{
    if (b->ncols != w->schema->nfields)
        return fl_errorf(err, FL_EINVAL, "Parquet writer: batch has %u columns, schema has %u",
                         b->ncols, w->schema->nfields);
    for (uint32_t i = 0; i < b->ncols; i++) {
        const fl_vector *v = &b->cols[i];
        if (!v->type || v->type->id != w->schema->fields[i].type.id)
            return fl_errorf(err, FL_ETYPE, "Parquet writer: column '%s' has the wrong vector type",
                             w->schema->fields[i].name);
        if (v->len < b->nrows)
            return fl_errorf(err, FL_EINVAL, "Parquet writer: column '%s' has %u rows, batch %u",
                             w->schema->fields[i].name, v->len, b->nrows);
    }
    if (b->sel)
        for (uint32_t i = 0; i < b->sel->count; i++)
            if (b->sel->idx[i] >= b->nrows)
                return fl_errorf(err, FL_EINVAL, "Parquet writer: selection row %u >= %u rows",
                                 b->sel->idx[i], b->nrows);
    return FL_OK;
}

static fl_status write_batch(fl_parquet_writer *w, const fl_batch *b, fl_error *err)
{
    const uint32_t *rows = b->sel ? b->sel->idx : NULL;
    uint32_t n = fl_batch_live_rows(b);
    uint32_t done = 0;
    for (uint32_t i = 0; w->split && i < b->ncols; i++)
        if (w->split[i].type)
            FL_TRY(fl_pqw_variant_split(&b->cols[i], b->nrows, w->schema->fields[i].name,
                                        &w->split[i], err));
    while (done < n) {
        uint64_t left = w->rg_rows_max - (uint64_t)w->rg_rows;
        uint32_t take = n - done;
        if (take > MAX_SLICE_ROWS)
            take = MAX_SLICE_ROWS;
        if (take > left)
            take = (uint32_t)left;
        for (uint32_t i = 0; i < w->ncols; i++) {
            fl_pqw_column *c = &w->cols[i];
            uint32_t top = c->leaf->top;
            const fl_vector *v = w->split && w->split[top].type ? &w->split[top] : &b->cols[top];
            FL_TRY(fl_pqw_column_write(c, v, rows ? rows + done : NULL, done, take, err));
        }
        w->rg_rows += take;
        w->num_rows += take;
        done += take;
        if ((uint64_t)w->rg_rows >= w->rg_rows_max || buffered_bytes(w) >= w->rg_bytes)
            FL_TRY(flush_row_group(w, err));
    }
    return FL_OK;
}

fl_status fl_parquet_writer_write(fl_parquet_writer *w, const fl_batch *b, fl_error *err)
{
    if (!w || !b)
        return fl_errorf(err, FL_EINVAL, "Parquet writer: no writer or no batch");
    if (w->failed)
        return fl_errorf(err, FL_EINVAL, "Parquet writer: an earlier error left the file unusable");
    FL_TRY(check_batch(w, b, err)); /* nothing appended yet: the writer stays usable */
    fl_status rc = write_batch(w, b, err);
    if (rc != FL_OK)
        w->failed =
            true; /* rows may be half-appended to some columns: the file cannot be finished */
    return rc;
}

/* ---------------------------------------------------------------- close */

static fl_pq_boundary_order boundary_order(const chunk_extra *x)
{
    bool asc = true, desc = true;
    const fl_pqw_page_entry *prev = NULL;
    for (uint32_t i = 0; i < x->npages; i++) {
        const fl_pqw_page_entry *p = &x->pages[i];
        if (p->null_page)
            continue;
        if (prev) {
            int cmin = fl_value_compare(&prev->vmin, &p->vmin);
            int cmax = fl_value_compare(&prev->vmax, &p->vmax);
            if (cmin > 0 || cmax > 0)
                asc = false;
            if (cmin < 0 || cmax < 0)
                desc = false;
        }
        prev = p;
    }
    return asc ? FL_PQ_ASCENDING : desc ? FL_PQ_DESCENDING : FL_PQ_UNORDERED;
}

static fl_status write_column_index(fl_parquet_writer *w, const chunk_extra *x,
                                    fl_pq_column_chunk *cc, fl_error *err)
{
    fl_pq_column_index ci;
    memset(&ci, 0, sizeof ci);
    uint32_t n = x->npages;
    ci.npages = n;
    ci.null_pages = fl_arena_calloc(&w->arena, n, sizeof *ci.null_pages);
    ci.min_values = fl_arena_calloc(&w->arena, n, sizeof *ci.min_values);
    ci.max_values = fl_arena_calloc(&w->arena, n, sizeof *ci.max_values);
    ci.null_counts = fl_arena_calloc(&w->arena, n, sizeof *ci.null_counts);
    if (!ci.null_pages || !ci.min_values || !ci.max_values || !ci.null_counts)
        return fl_errorf(err, FL_ENOMEM, "out of memory for a column index");
    static const uint8_t empty[1] = {0};
    for (uint32_t i = 0; i < n; i++) {
        const fl_pqw_page_entry *p = &x->pages[i];
        ci.null_pages[i] = p->null_page;
        ci.null_counts[i] = p->null_count;
        if (p->null_page) {
            ci.min_values[i] = (fl_pq_bytes){empty, 0};
            ci.max_values[i] = (fl_pq_bytes){empty, 0};
        } else {
            ci.min_values[i] = p->min;
            ci.max_values[i] = p->max;
        }
    }
    ci.boundary_order = boundary_order(x);
    w->buf.len = 0;
    FL_TRY(fl_pq_encode_column_index(&ci, &w->buf, err));
    cc->column_index_offset = (int64_t)w->offset;
    cc->column_index_length = (int32_t)w->buf.len;
    return out_write(w, w->buf.data, w->buf.len, err);
}

static fl_status write_offset_index(fl_parquet_writer *w, const chunk_extra *x,
                                    fl_pq_column_chunk *cc, fl_error *err)
{
    fl_pq_offset_index oi;
    oi.npages = x->npages;
    oi.page_locations =
        fl_arena_calloc(&w->arena, x->npages ? x->npages : 1, sizeof *oi.page_locations);
    if (!oi.page_locations)
        return fl_errorf(err, FL_ENOMEM, "out of memory for an offset index");
    for (uint32_t i = 0; i < x->npages; i++) {
        oi.page_locations[i].offset = x->pages[i].offset;
        oi.page_locations[i].compressed_page_size = x->pages[i].compressed_size;
        oi.page_locations[i].first_row_index = x->pages[i].first_row;
    }
    w->buf.len = 0;
    FL_TRY(fl_pq_encode_offset_index(&oi, &w->buf, err));
    cc->offset_index_offset = (int64_t)w->offset;
    cc->offset_index_length = (int32_t)w->buf.len;
    return out_write(w, w->buf.data, w->buf.len, err);
}

static fl_status write_tail(fl_parquet_writer *w, fl_error *err)
{
    /* bloom filters */
    for (uint32_t r = 0; r < w->nrgs; r++)
        for (uint32_t i = 0; i < w->ncols; i++) {
            chunk_extra *x = &w->extras[r][i];
            if (!x->bloom)
                continue;
            fl_pq_column_meta *m = &w->rgs[r].columns[i].meta_data;
            m->bloom_filter_offset = (int64_t)w->offset;
            m->bloom_filter_length = (int32_t)x->bloom_len;
            FL_TRY(out_write(w, x->bloom, x->bloom_len, err));
        }
    if (w->opt.page_index) {
        if (w->opt.statistics)
            for (uint32_t r = 0; r < w->nrgs; r++)
                for (uint32_t i = 0; i < w->ncols; i++) {
                    chunk_extra *x = &w->extras[r][i];
                    if (x->ci_ok && x->npages)
                        FL_TRY(write_column_index(w, x, &w->rgs[r].columns[i], err));
                }
        for (uint32_t r = 0; r < w->nrgs; r++)
            for (uint32_t i = 0; i < w->ncols; i++) {
                chunk_extra *x = &w->extras[r][i];
                if (x->npages)
                    FL_TRY(write_offset_index(w, x, &w->rgs[r].columns[i], err));
            }
    }

    /* footer */
    fl_pq_file_meta m;
    memset(&m, 0, sizeof m);
    m.version = w->opt.page_version == 2 ? 2 : 1;
    m.schema = w->sch.elems;
    m.nschema = w->sch.nelems;
    m.num_rows = w->num_rows;
    m.row_groups = w->rgs;
    m.nrow_groups = w->nrgs;
    m.created_by = w->created_by;
    if (w->nkv) {
        m.key_value_metadata = fl_arena_calloc(&w->arena, w->nkv, sizeof *m.key_value_metadata);
        if (!m.key_value_metadata)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (uint32_t i = 0; i < w->nkv; i++) {
            m.key_value_metadata[i].key = w->kv[i].key;
            m.key_value_metadata[i].value = w->kv[i].value;
            m.key_value_metadata[i].value_len =
                w->kv[i].value ? (uint32_t)strlen(w->kv[i].value) : 0;
        }
        m.nkv = w->nkv;
    }
    m.column_orders = fl_arena_alloc(&w->arena, w->ncols * sizeof *m.column_orders);
    if (!m.column_orders)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < w->ncols; i++)
        m.column_orders[i] = FL_PQ_ORDER_TYPE_DEFINED;
    m.ncolumn_orders = w->ncols;
    w->buf.len = 0;
    FL_TRY(fl_pq_encode_file_meta(&m, &w->buf, err));
    if (w->buf.len > UINT32_MAX)
        return fl_errorf(err, FL_ELIMIT, "Parquet writer: footer of %zu bytes", w->buf.len);
    uint32_t flen = (uint32_t)w->buf.len;
    uint8_t tail[8] = {(uint8_t)flen,
                       (uint8_t)(flen >> 8),
                       (uint8_t)(flen >> 16),
                       (uint8_t)(flen >> 24),
                       'P',
                       'A',
                       'R',
                       '1'};
    FL_TRY(out_write(w, w->buf.data, w->buf.len, err));
    return out_write(w, tail, 8, err);
}

static fl_status fill_result(fl_parquet_writer *w, fl_parquet_file_result *r, fl_error *err)
{
    memset(r, 0, sizeof *r);
    fl_arena_init(&r->arena, 0);
    r->num_rows = w->num_rows;
    r->file_size = w->offset;
    r->ncolumns = w->ncols;
    r->columns = fl_arena_calloc(&r->arena, w->ncols, sizeof *r->columns);
    r->split_offsets = fl_arena_calloc(&r->arena, w->nrgs ? w->nrgs : 1, sizeof *r->split_offsets);
    if (!r->columns || !r->split_offsets)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    r->nsplit_offsets = w->nrgs;
    for (uint32_t i = 0; i < w->nrgs; i++)
        r->split_offsets[i] = w->rgs[i].file_offset;
    for (uint32_t i = 0; i < w->ncols; i++) {
        const fl_pqw_column *c = &w->cols[i];
        fl_parquet_column_result *o = &r->columns[i];
        o->field_id = c->leaf->field_id;
        o->path = fl_arena_strdup(&r->arena, c->leaf->path);
        if (!o->path)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        o->value_count = c->file_values;
        o->null_count = c->file_nulls;
        bool fl = c->leaf->vkind == FL_PQW_V_F32 || c->leaf->vkind == FL_PQW_V_F64;
        o->nan_count = fl ? c->file_nans : -1;
        o->compressed_size = c->file_compressed;
        if (c->file_mm.has && (w->opt.statistics || w->opt.page_index)) {
            o->has_bounds = true;
            fl_pqw_minmax_values(c->leaf, &c->file_mm, &o->lower, &o->upper);
            if ((c->leaf->vkind == FL_PQW_V_FLBA || c->leaf->vkind == FL_PQW_V_BYTES)) {
                uint8_t *a = fl_arena_alloc(&r->arena, c->file_mm.minb.len + 1);
                uint8_t *b = fl_arena_alloc(&r->arena, c->file_mm.maxb.len + 1);
                if (!a || !b)
                    return fl_errorf(err, FL_ENOMEM, "out of memory");
                if (c->file_mm.minb.len)
                    memcpy(a, c->file_mm.minb.data, c->file_mm.minb.len);
                if (c->file_mm.maxb.len)
                    memcpy(b, c->file_mm.maxb.data, c->file_mm.maxb.len);
                o->lower.v.bytes.ptr = a;
                o->upper.v.bytes.ptr = b;
            }
        }
    }
    return FL_OK;
}

static void writer_free(fl_parquet_writer *w)
{
    for (uint32_t i = 0; i < w->ncols; i++)
        fl_pqw_column_free(&w->cols[i]);
    free(w->cols);
    for (uint32_t i = 0; w->split && i < w->schema->nfields; i++)
        if (w->split[i].type)
            fl_vector_destroy(&w->split[i]);
    free(w->split);
    free(w->rgs);
    free(w->extras);
    fl_buf_free(&w->dictbuf);
    fl_buf_free(&w->buf);
    fl_arena_free(&w->arena);
    free(w);
}

fl_status fl_parquet_writer_close(fl_parquet_writer *w, fl_parquet_file_result *result,
                                  fl_error *err)
{
    if (!w)
        return fl_errorf(err, FL_EINVAL, "Parquet writer: no writer");
    fl_status rc = FL_OK;
    if (w->failed)
        rc = fl_errorf(err, FL_EINVAL, "Parquet writer: an earlier error left the file unusable");
    if (rc == FL_OK)
        rc = flush_row_group(w, err);
    if (rc == FL_OK)
        rc = write_tail(w, err);
    if (rc == FL_OK && result) {
        rc = fill_result(w, result, err);
        if (rc != FL_OK)
            fl_parquet_file_result_free(result);
    }
    writer_free(w);
    return rc;
}

void fl_parquet_writer_abort(fl_parquet_writer *w)
{
    if (w)
        writer_free(w);
}

void fl_parquet_file_result_free(fl_parquet_file_result *r)
{
    if (!r)
        return;
    fl_arena_free(&r->arena);
    memset(r, 0, sizeof *r);
}
