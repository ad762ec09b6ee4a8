/*
 * writer_int.h - internals of the Parquet writer, shared by writer.c (file
 * layout, row groups, footer), schema_write.c (floe schema -> SchemaElements
 * and leaf column descriptions), column_writer.c (vectors -> levels + values
 * -> pages) and dict_builder.c (the dictionary hash table).
 *
 * Nothing here is public API; see include/floe/parquet.h for the contract and
 * src/parquet/README.md ("Writer") for the design.
 *
 * Ownership: the writer owns one arena (schema, leaf descriptions, footer
 * structures, page-index values) and one fl_pqw_column per leaf, whose
 * malloc'd buffers are reused from row group to row group and freed by
 * fl_pqw_column_free().
 */
#ifndef FLOE_PARQUET_WRITER_INT_H
#define FLOE_PARQUET_WRITER_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "floe/compress.h"
#include "floe/arena.h"
#include "floe/error.h"
#include "floe/io.h"
#include "floe/parquet.h"
#include "floe/types.h"
#include "floe/vector.h"
#include "floe/parquet_meta.h"
#include "floe/wkb.h"
#include "parquet/stats.h"

/* ---- growable byte buffer helpers over fl_pq_buf ---- */

static inline fl_status fl_pqw_append(fl_pq_buf *b, const void *p, size_t n, fl_error *err)
{
    if (b->cap - b->len < n)
        FL_TRY(fl_buf_reserve(b, n, err));
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    return FL_OK;
}

/* ---- schema (schema_write.c) ---- */

/* How the vector at one depth of a leaf's path is navigated. */
typedef enum fl_pqw_step_kind {
    FL_PQW_STEP_LEAF = 0, /* a primitive vector: the leaf values */
    FL_PQW_STEP_STRUCT,   /* go to children[child] (same row) */
    FL_PQW_STEP_LIST,     /* offsets -> children[0] rows */
    FL_PQW_STEP_MAP,      /* offsets -> children[child] rows (0 keys, 1 values) */
} fl_pqw_step_kind;

typedef struct fl_pqw_step {
    fl_pqw_step_kind kind;
    bool nullable;     /* the field at this depth is OPTIONAL: one definition level */
    uint32_t child;    /* STRUCT/MAP: which child vector leads to the leaf */
    int16_t rep_level; /* LIST/MAP: repetition level of its repeated group */
    const char *name;  /* the floe field name at this depth, for errors */
} fl_pqw_step;

/* How one leaf's values become physical Parquet values. */
typedef enum fl_pqw_vkind {
    FL_PQW_V_BOOL = 0,
    FL_PQW_V_I32, /* INT32, DATE */
    FL_PQW_V_I64, /* INT64, TIME, TIMESTAMP* */
    FL_PQW_V_F32,
    FL_PQW_V_F64,
    FL_PQW_V_DEC32,   /* DECIMAL stored as INT32 */
    FL_PQW_V_DEC64,   /* DECIMAL stored as INT64 */
    FL_PQW_V_DECFLBA, /* DECIMAL stored as big-endian FIXED_LEN_BYTE_ARRAY */
    FL_PQW_V_FLBA,    /* UUID, FIXED */
    FL_PQW_V_BYTES,   /* STRING, BINARY */
} fl_pqw_vkind;

typedef struct fl_pqw_leaf {
    const char *path;   /* dotted Parquet path_in_schema, e.g. "tags.list.element" */
    const char *fpath;  /* dotted floe path without list/key_value groups: "tags.element" */
    const char **parts; /* path_in_schema components */
    uint32_t nparts;
    int32_t field_id;
    const fl_type *type; /* the leaf's floe type */
    uint32_t top;        /* index of the top-level column it belongs to */
    uint32_t nsteps;
    fl_pqw_step *steps; /* steps[0] = top-level vector ... steps[nsteps-1] = leaf */
    int16_t max_def, max_rep;
    fl_pqw_vkind vkind;
    uint32_t width;     /* physical bytes per value: 1 (bool), 4, 8, FLBA length; 0 var */
    uint32_t src_width; /* bytes per value in the floe vector (fl_type_width) */
    fl_pq_type physical;
    fl_pq_logical logical;
    fl_pq_converted converted;
    int32_t scale, precision;
    fl_pq_leaf_info info; /* for fl_pq_value_to_stat / bloom hashing */
} fl_pqw_leaf;

typedef struct fl_pqw_schema {
    fl_pq_schema_element *elems; /* depth-first, elems[0] is the root */
    uint32_t nelems;
    fl_pqw_leaf *leaves;
    uint32_t nleaves;
} fl_pqw_schema;

/* Maps schema to Parquet schema elements and leaf descriptions, all in a. */
fl_status fl_pqw_schema_build(fl_arena *a, const fl_schema *schema, const char *root_name,
                              fl_pqw_schema *out, fl_error *err);

/* Bytes of the minimal two's complement big-endian FLBA holding precision digits. */
int32_t fl_pqw_decimal_bytes(int32_t precision);

/* ---- variant columns (variant_write.c) ---- */

/* The schema the file stores: each top-level variant field becomes a STRUCT
 * with ext FL_EXT_VARIANT of required binaries `metadata` and `value`
 * (schema_write.c annotates it VARIANT). *phys is schema itself when it has
 * no variant. A variant below the top level is refused (FL_EUNSUPPORTED). */
fl_status fl_pqw_variant_schema(fl_arena *a, const fl_schema *schema, const fl_schema **phys,
                                fl_error *err);
/* Splits rows [0, nrows) of a variant vector into dst, a vector of the
 * corresponding phys field's type, checking each value's encoding. */
fl_status fl_pqw_variant_split(const fl_vector *src, uint32_t nrows, const char *column,
                               fl_vector *dst, fl_error *err);

/* ---- dictionary builder (dict_builder.c) ---- */

typedef struct fl_pqw_dict {
    uint32_t width;   /* fixed value width; 0 = byte arrays (4-byte length prefix in plain) */
    fl_pq_buf plain;  /* PLAIN encoding of the entries = the dictionary page payload */
    uint32_t *starts; /* byte arrays: offset of each entry's length prefix in plain */
    uint32_t *hashes; /* 32-bit hash of each entry (rehash without rereading values) */
    uint32_t count, entries_cap;
    uint32_t *slots; /* open addressing, linear probing: 0 empty, else entry + 1 */
    uint32_t nslots; /* power of two */
} fl_pqw_dict;

fl_status fl_pqw_dict_init(fl_pqw_dict *d, uint32_t width, fl_error *err);
/* Finds or adds value (len bytes; must equal width for fixed dictionaries). */
fl_status fl_pqw_dict_insert(fl_pqw_dict *d, const uint8_t *value, uint32_t len, uint32_t *index,
                             fl_error *err);
/* Same for n fixed-width values back to back (width bytes each). */
fl_status fl_pqw_dict_insert_fixed_n(fl_pqw_dict *d, const uint8_t *values, uint32_t n,
                                     uint32_t *index, fl_error *err);
void fl_pqw_dict_reset(fl_pqw_dict *d); /* forget entries, keep capacity */
void fl_pqw_dict_free(fl_pqw_dict *d);

/* ---- column writer (column_writer.c) ---- */

/* Running min/max of one leaf (page, chunk or file scope), as floe values. */
typedef struct fl_pqw_minmax {
    bool has;
    union {
        int32_t i32;
        int64_t i64;
        float f32;
        double f64;
        fl_i128 dec;
        uint8_t b;
    } min, max;
    fl_pq_buf minb, maxb; /* FLBA/BYTES kinds: owned copies */
} fl_pqw_minmax;

/* One page as the page index needs it (kept until the file is closed). */
typedef struct fl_pqw_page_entry {
    int64_t offset;          /* relative to the chunk's data pages until the chunk is placed */
    int32_t compressed_size; /* header included */
    int64_t first_row;       /* within the row group */
    bool null_page;
    bool has_minmax;
    int64_t null_count;
    fl_pq_bytes min, max; /* column index bytes (possibly truncated), in the writer arena */
    fl_value vmin, vmax;  /* the same as values, to detect the boundary order */
} fl_pqw_page_entry;

typedef struct fl_pqw_opts {
    fl_codec codec;
    fl_pq_codec pq_codec;
    int level;
    uint64_t page_bytes;
    uint32_t page_rows;
    bool dictionary;
    uint32_t dictionary_max_bytes;
    bool statistics;
    bool page_index;
    bool crc;
    int page_version; /* 1 or 2 */
    double bloom_fpp;
} fl_pqw_opts;

typedef struct fl_pqw_column {
    const fl_pqw_leaf *leaf;
    const fl_pqw_opts *opt;
    /* ZSTD pages: one compression context for the column's life (a
     * one-shot ZSTD_compress allocates and sets up one per page); a
     * ZSTD_CCtx, created at the first page, NULL until then */
    void *zstd;
    fl_arena *arena; /* the writer's: page index values */
    bool bloom;      /* collect hashes for a bloom filter */

    /* the page being built */
    uint32_t *def, *rep; /* levels (only when max_def / max_rep > 0) */
    uint32_t nlevels, levels_cap;
    uint32_t page_rows;
    uint32_t page_values; /* non-null values */
    int64_t page_nulls, page_nans;
    bool page_dict; /* values of this page are dictionary indices */
    uint32_t *idx;  /* dictionary indices */
    uint32_t nidx, idx_cap;
    fl_pq_buf plain; /* PLAIN values (booleans: one byte each until packed) */
    fl_pqw_minmax page_mm;
    uint64_t row_bytes; /* estimated encoded bytes per row of the last page (0 = unknown) */

    /* the chunk (this column in the current row group) */
    fl_pqw_dict dict;
    bool dict_on;    /* new values still go to the dictionary */
    fl_pq_buf pages; /* data pages (header + body), compressed */
    int64_t chunk_rows;
    int64_t chunk_values; /* levels = num_values */
    int64_t chunk_nulls, chunk_nans;
    int64_t chunk_uncompressed; /* data pages, headers included */
    fl_pqw_minmax chunk_mm;
    int32_t n_dict_pages_data, n_plain_pages; /* data pages by encoding */
    fl_pqw_page_entry *pagev;
    uint32_t npages, pages_cap;
    bool ci_ok;       /* every non-null page has min/max: a column index can be written */
    /* GEOMETRY/GEOGRAPHY leaves (geo_stats.c) keep no min/max, whose order the
     * spec leaves undefined, but a box and the WKB type codes seen */
    bool geo;
    fl_wkb_bbox chunk_box, file_box;
    uint32_t chunk_geo_types; /* bit dim * 7 + base - 1; dim 0 XY, 1 Z, 2 M, 3 ZM */
    uint64_t *hashes; /* bloom: XXH64 of every value of the chunk */
    size_t nhashes, hashes_cap;

    /* the whole file, for fl_parquet_file_result */
    int64_t file_values, file_nulls, file_nans, file_compressed;
    fl_pqw_minmax file_mm;

    /* scratch reused across pages */
    uint32_t *pos; /* leaf base rows of the non-null values of a segment */
    uint32_t pos_cap, npos;
    const fl_vector *leaf_base; /* the FLAT vector pos[] indexes */
    fl_pq_buf gather;           /* physical fixed-width values of a segment */
    fl_pq_buf raw, comp, hdr;   /* page assembly */
    fl_arena scratch;           /* page header statistics bytes, reset per page */
} fl_pqw_column;

fl_status fl_pqw_column_init(fl_pqw_column *c, const fl_pqw_leaf *leaf, const fl_pqw_opts *opt,
                             fl_arena *arena, bool bloom, fl_error *err);
void fl_pqw_column_free(fl_pqw_column *c);

/* Appends rows of top-level vector v: row ids rows[0..n) (rows NULL = first..first+n). */
fl_status fl_pqw_column_write(fl_pqw_column *c, const fl_vector *v, const uint32_t *rows,
                              uint32_t first, uint32_t n, fl_error *err);

/* Uncompressed bytes buffered for the current row group (pages + pending page + dictionary). */
uint64_t fl_pqw_column_buffered(const fl_pqw_column *c);

/* Flushes the pending page and encodes the dictionary page (header + body,
 * left empty when no page used the dictionary) into dict_page; c->pages then
 * holds the data pages. */
fl_status fl_pqw_column_finish_chunk(fl_pqw_column *c, fl_pq_buf *dict_page,
                                     int64_t *dict_uncompressed, fl_error *err);

/* Forgets the chunk (after writer.c wrote it), keeping buffers. */
void fl_pqw_column_reset_chunk(fl_pqw_column *c);

/* ---- geospatial statistics (geo_stats.c) ---- */

/* Validates the WKB values c->pos[0..c->npos) of c->leaf_base and widens the
 * chunk's box and type set. */
fl_status fl_pqw_geo_segment(fl_pqw_column *c, fl_error *err);
/* The chunk's GeospatialStatistics into out (arrays in a); false when there
 * is nothing to say (no value seen). Folds the chunk box into the file box. */
fl_status fl_pqw_geo_stats(fl_pqw_column *c, fl_arena *a, fl_pq_geo_stats *out, bool *any,
                           fl_error *err);
/* Forgets the chunk's box and types. */
void fl_pqw_geo_reset_chunk(fl_pqw_column *c);

/* Stats bytes of a min/max (for the chunk statistics / column index).
 * limit 0 = exact; otherwise byte values longer than limit are truncated
 * (min: prefix; max: prefix rounded up) and *exact says whether they were not. */
fl_status fl_pqw_minmax_bytes(const fl_pqw_column *c, const fl_pqw_minmax *mm, uint32_t limit,
                              fl_arena *a, fl_pq_bytes *min, bool *min_exact, fl_pq_bytes *max,
                              bool *max_exact, fl_error *err);
/* The min/max as floe values (bytes borrowed from mm). */
void fl_pqw_minmax_values(const fl_pqw_leaf *leaf, const fl_pqw_minmax *mm, fl_value *min,
                          fl_value *max);
/* Merges src into dst. */
fl_status fl_pqw_minmax_merge(const fl_pqw_leaf *leaf, fl_pqw_minmax *dst, const fl_pqw_minmax *src,
                              fl_error *err);
void fl_pqw_minmax_free(fl_pqw_minmax *mm);

#endif
