/*
 * reader_int.h - internal structures of the Parquet reader (reader.c,
 * schema_read.c, page_read.c, column_reader.c, assemble.c, scan.c).
 *
 * The reader turns the footer's flat SchemaElement list into two trees:
 *   - the floe schema (fl_schema, types.h) users see, and
 *   - a parallel tree of fl_pq_node that records, for every floe field, the
 *     definition/repetition levels needed to rebuild it from leaf columns
 *     (Dremel encoding, see assemble.c for the rules).
 * Each leaf node owns one fl_pq_leaf: the column chunk index, its dotted path,
 * max levels, the physical type and how values convert to floe's
 * representation (fl_pq_conv).
 *
 * Ownership: everything here lives in the reader's arena, except the buffers
 * of a column reader (malloc'd, freed by fl_pq_col_free).
 */
#ifndef FLOE_PARQUET_READER_INT_H
#define FLOE_PARQUET_READER_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/arena.h"
#include "floe/parquet.h"
#include "floe/parquet_meta.h"
#include "parquet/stats.h"

/* Deepest schema nesting we accept (hostile files could nest thousands deep). */
#define FL_PQ_MAX_DEPTH 100
/* Column chunks up to this size are read with one ranged read; larger ones
 * through a sliding window of this size. */
#define FL_PQ_CHUNK_READ_MAX (64u << 20)
/* Speculative tail read at open: footer and magic in one round trip. */
#define FL_PQ_TAIL_READ (64u << 10)

/* How stored values become floe values (types.h physical table). */
typedef enum fl_pq_conv {
    FL_PQC_COPY = 0,  /* same bytes: INT32, INT64, FLOAT, DOUBLE, FLBA->FIXED/UUID */
    FL_PQC_BOOL,      /* BOOLEAN -> uint8 */
    FL_PQC_U32_I64,   /* INT32 holding uint32 -> int64 */
    FL_PQC_U64_DEC,   /* INT64 holding uint64 -> DECIMAL(20,0) */
    FL_PQC_I32_DEC,   /* INT32 decimal -> i128 */
    FL_PQC_I64_DEC,   /* INT64 decimal -> i128 */
    FL_PQC_BYTES_DEC, /* FLBA / BYTE_ARRAY big-endian decimal -> i128 */
    FL_PQC_I32_MS_US, /* TIME millis (INT32) -> int64 micros */
    FL_PQC_I64_MS_US, /* TIMESTAMP millis -> micros */
    FL_PQC_I64_NS_US, /* TIME nanos -> micros */
    FL_PQC_INT96_NS,  /* INT96 -> int64 nanoseconds since epoch */
    FL_PQC_F16_F32,   /* FLBA(2) half float -> float */
    FL_PQC_VARLEN,    /* BYTE_ARRAY -> STRING/BINARY */
} fl_pq_conv;

typedef struct fl_pq_leaf {
    uint32_t index; /* leaf / column chunk index */
    const fl_pq_schema_element *el;
    const char *path; /* dotted path, for errors and predicates */
    int16_t max_def, max_rep;
    fl_pq_type physical;
    int32_t type_length; /* FLBA bytes */
    size_t raw_width;    /* stored bytes per value (0 = BYTE_ARRAY, 1 = BOOLEAN) */
    size_t out_width;    /* floe bytes per value (0 = varlen) */
    fl_pq_conv conv;
    fl_type *type;        /* floe type of the values */
    fl_pq_leaf_info info; /* for stats.h */
} fl_pq_leaf;

typedef enum fl_pq_node_kind {
    FL_PQN_LEAF,
    FL_PQN_STRUCT,
    FL_PQN_LIST,
    FL_PQN_MAP,
    /* a VARIANT group: the field is BINARY ext VARIANT; the children describe
     * the group (metadata, value, typed_value) as the STRUCT `phys`, read
     * into `scratch` and rebuilt into variant values (variant_read.c) */
    FL_PQN_VARIANT
} fl_pq_node_kind;

/*
 * One floe field and the levels that rebuild it. For the entries of any leaf
 * under this node, entry i starts a new slot of this node iff
 * rep[i] <= slot_rep && def[i] >= slot_def; the slot is non-null iff
 * def[i] >= def. LIST/MAP: an entry adds an element to the current slot iff
 * rep[i] <= elem_rep && def[i] >= elem_def.
 */
typedef struct fl_pq_node {
    fl_pq_node_kind kind;
    fl_field *field; /* in the schema this tree describes */
    int16_t def;
    int16_t slot_def, slot_rep;
    int16_t elem_def, elem_rep; /* LIST/MAP */
    uint32_t nchildren;         /* STRUCT: fields; LIST: 1; MAP: 2 */
    struct fl_pq_node *children;
    fl_pq_leaf *leaf;    /* LEAF */
    uint32_t first_leaf; /* first leaf index under this node (its levels drive assembly) */
    uint32_t col;        /* scan: index of the column reader of first_leaf / of this leaf */
    fl_field *phys;      /* VARIANT: the group as a STRUCT field */
    fl_vector *scratch;  /* VARIANT, scan copies only: the group's rows, of type phys */
    int16_t var_value, var_typed; /* {value, typed_value} groups: those children's
                                   * indexes, -1 absent (fl_pq_variant_check_group) */
    int8_t var_kind; /* a shredded primitive leaf: its fl_variant_kind, set by
                      * fl_pq_variant_check_types on the scan's copy */
} fl_pq_node;

struct fl_parquet_reader {
    fl_file *file;
    fl_parquet_read_options opt;
    fl_arena arena; /* footer, schema, nodes, leaves */
    fl_pq_file_meta meta;
    fl_schema schema;
    fl_pq_node *top; /* schema.nfields top-level nodes */
    uint32_t nleaves;
    fl_pq_leaf *leaves;
    uint64_t footer_start; /* file offset of the footer = end of data */
    uint32_t meta_len;     /* footer length (file size = footer_start + 8 + meta_len) */
};

/* ---- schema_read.c ---- */

/* Builds r->schema, r->top, r->leaves from r->meta. */
fl_status fl_pq_schema_build(fl_parquet_reader *r, fl_error *err);
/* Maps one primitive element to its floe type and conversion (also sets widths). */
fl_status fl_pq_leaf_type(const fl_pq_schema_element *el, fl_pq_leaf *leaf, fl_arena *a,
                          fl_error *err);

/* ---- page_read.c + column_reader.c: one leaf column of one row group ---- */

typedef struct fl_pq_levels {
    uint16_t *def, *rep;
    uint32_t n, cap;
} fl_pq_levels;

typedef struct fl_pq_col {
    fl_parquet_reader *r;
    const fl_pq_leaf *leaf;
    const fl_pq_column_chunk *cc;
    int16_t slot_def; /* leaf slots are entries with def >= slot_def */
    /* bytes of the chunk: [chunk_start, chunk_end) of the file, read through a window */
    uint64_t chunk_start, chunk_end;
    uint64_t read_end; /* reads stop here when possible (page pruning) */
    uint64_t lead_end; /* a scan starting past page 0 reads [chunk start, lead_end) (the dictionary)
                          on its own, not the pages it skips; 0 = none */
    uint8_t *win;      /* malloc'd window */
    uint64_t win_off;
    size_t win_len, win_cap;
    uint64_t pos;                 /* file offset of the next page header */
    int64_t values_left;          /* level entries not yet loaded (ColumnMetaData.num_values) */
    const fl_pq_offset_index *oi; /* may be NULL; enables skipping pages unread */
    uint32_t next_page;           /* oi: index of the page at pos */
    uint64_t pages_read, pages_skipped;
    int64_t rg_rows;    /* rows of the row group */
    bool in_row;        /* a row has started (repetition level 0 seen) */
    fl_arena hdr_arena; /* page header statistics, reset per page */
    /* decompressed page */
    uint8_t *page;
    size_t page_cap;
    /* ZSTD_DCtx reused for every ZSTD page of this reader (created on the first
     * one, freed by fl_pq_col_free): ZSTD_decompress() mallocs and frees a
     * ~160 KiB context per call, past malloc's mmap threshold, so every page
     * paid ~40 fresh page faults */
    void *zstd;
    /* dictionary (floe form) */
    bool has_dict;
    /* a dictionary page seen but not decoded yet: decoded when the first
     * dictionary-encoded data page needs it (a scan that reads only PLAIN
     * pages of a chunk never pays for its dictionary) */
    bool dict_pending;
    uint64_t dict_body_off; /* chunk offset of its (compressed) body */
    fl_pq_page_header dict_hdr;
    uint32_t dict_n;
    /* the chunk the decoded dictionary belongs to: a row-range split that
     * reopens the same chunk keeps it (its dictionary page is then passed
     * unread; dict_kept until then) */
    uint32_t rg, dict_rg;
    const struct fl_pq_leaf *dict_leaf;
    bool dict_kept;
    uint8_t *dict_fixed; /* dict_n * out_width */
    size_t dict_fixed_cap;
    fl_vector dict_var; /* varlen dictionary */
    /* current data page, decoded */
    uint64_t page_off;   /* for errors */
    uint32_t pn, pp;     /* entries in page, next entry */
    uint16_t *def, *rep; /* page levels (NULL when max level is 0) */
    uint32_t lev_cap;
    bool dict_page;  /* values are dictionary indices */
    bool page_dense; /* flat column page without nulls: def levels all max */
    uint32_t vn, vp; /* dense values in page, next value */
    uint32_t *idx;
    size_t idx_cap;
    const uint8_t *fixed; /* dense fixed values (floe form): points into page or fixed_buf */
    uint8_t *fixed_buf;
    size_t fixed_cap;
    uint8_t *raw_buf; /* raw decoded values before conversion */
    size_t raw_cap;
    fl_vector var;     /* dense varlen values */
    fl_vector tmp_var; /* scratch BINARY for byte-array decimals */
    fl_type bin_type;
} fl_pq_col;

/* Initializes an idle column reader of r (buffers are allocated lazily). */
fl_status fl_pq_col_init(fl_pq_col *c, fl_parquet_reader *r, fl_error *err);
/* Points c at leaf's chunk in row group rg (bytes are read lazily), keeping
 * its buffers from previous chunks. [start_row, end_row) (end_row -1 = all)
 * bounds the rows the scan will read, so that with an offset index leading
 * and trailing pages are not read. */
fl_status fl_pq_col_open(fl_pq_col *c, uint32_t rg, const fl_pq_leaf *leaf, int16_t slot_def,
                         const fl_pq_offset_index *oi, int64_t start_row, int64_t end_row,
                         fl_error *err);
/* Moves c past the dictionary (noted, not decoded) and index pages in front
 * of page 0, so that an offset-index skip can start at page 0. */
fl_status fl_pq_col_pass_leading(fl_pq_col *c, fl_error *err);
void fl_pq_col_free(fl_pq_col *c);
/* Reads the next data page (or dictionary page first) into c; *eof when none is left. */
fl_status fl_pq_col_next_page(fl_pq_col *c, bool *eof, fl_error *err);
/* Skips the page at c->pos without reading it (offset index only). */
void fl_pq_col_skip_page(fl_pq_col *c);
/* Ensures [off, off+len) of the chunk is in the window; *p points at off. */
fl_status fl_pq_col_bytes(fl_pq_col *c, uint64_t off, size_t len, const uint8_t **p, fl_error *err);

/* Reads `rows` top-level rows: appends leaf slots to out (values + validity)
 * and, when lv is not NULL, the level entries to lv. *got = rows read. */
fl_status fl_pq_col_read(fl_pq_col *c, uint32_t rows, fl_vector *out, fl_pq_levels *lv,
                         uint32_t *got, fl_error *err);
/* Skips `rows` top-level rows, whole pages unread where the offset index allows. */
fl_status fl_pq_col_skip(fl_pq_col *c, int64_t rows, fl_error *err);

/* ---- assemble.c ---- */

/* Builds the nested vector v of node n (not a leaf: leaves were filled by
 * fl_pq_col_read) from the level entries of the leaves; lv[i] are the levels
 * of the leaf of scan column i (node->col). */
fl_status fl_pq_assemble(const fl_pq_node *n, fl_vector *v, const fl_pq_levels *lv, fl_error *err);

/* ---- variant_read.c ---- */

/* Checks a VARIANT group's shape at schema time: a required binary
 * `metadata`, an optional binary `value` and/or a `typed_value`. */
fl_status fl_pq_variant_check_group(fl_pq_node *n, fl_error *err);
/* Checks the shredded primitive columns' types (scan time: a file whose
 * variant column cannot be read still serves its other columns). */
fl_status fl_pq_variant_check_types(fl_pq_node *n, fl_error *err);
/* Rebuilds the variants of group node n from its assembled rows (phys, a
 * STRUCT vector of n->phys's type) into out (BINARY variant), replacing
 * out's rows: unshredded values are copied, shredded ones (typed_value)
 * are encoded and merged with the partially shredded rest (value). */
fl_status fl_pq_variant_unshred(const fl_pq_node *n, const fl_vector *phys, fl_vector *out,
                                fl_error *err);

fl_status fl_pq_levels_reserve(fl_pq_levels *lv, uint32_t extra, bool rep, fl_error *err);
void fl_pq_levels_free(fl_pq_levels *lv);

/* Error context of a column: "column 'a.b': page at offset N: ..." */
fl_status fl_pq_col_error(const fl_pq_col *c, fl_error *err);

/* fl_parquet_scan_restart (the row-group slice API): floe/parquet.h. */

#endif
