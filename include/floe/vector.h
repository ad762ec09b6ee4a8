/*
 * vector.h - the in-memory columnar format the whole engine runs on.
 *
 * DESIGN
 *   A batch (fl_batch) holds one vector per column and up to FL_BATCH_CAP
 *   rows. A vector (fl_vector) holds the values of one column in Arrow's
 *   layout, so results can leave through the Arrow C Data Interface without
 *   copying (arrow.h): a validity bitmap, a fixed-width data buffer, or int64
 *   offsets plus a byte heap for strings, lists and maps, and child vectors
 *   for nested types. See the table in types.h for each type's bytes.
 *
 *   Each vector has an encoding, in the DuckDB/Velox style:
 *     FLAT      data[i] is row i.
 *     CONSTANT  one value (slot 0) stands for all len rows.
 *     DICT      data holds uint32 indices into the vector *dict; lets a
 *               dictionary-encoded Parquet column pass through undecoded.
 *   Kernels that want one loop for every encoding call fl_vector_unify(),
 *   which yields (base flat vector, index map); fl_vector_flatten() turns any
 *   encoding into FLAT in place.
 *
 *   A selection vector (fl_sel) on the batch lists the rows that are live
 *   after a filter, without moving data; NULL means all rows 0..nrows-1.
 *
 * VALIDITY
 *   Bit i of validity (LSB first, as Arrow) is 1 when row i is valid. A NULL
 *   validity pointer means "no nulls". Values under a null bit are undefined
 *   but must be safe to read (buffers are always allocated to len).
 *
 * OWNERSHIP
 *   A vector owns its buffers (malloc'd) and reuses them across batches:
 *   fl_vector_reset() forgets the values but keeps the capacity. A DICT vector
 *   owns its dict when owns_dict is set, otherwise borrows it. Arrow export
 *   moves the buffers out (the vector is left empty but usable).
 *   A vector borrows its fl_type, which must outlive it. Not thread-safe.
 *   An owned dict (owns_dict) was malloc'd; reset/destroy/flatten call
 *   fl_vector_destroy() on it and free() it.
 *
 * BUFFER SIZES (what fl_vector_reserve guarantees for cap rows)
 *   data     cap * max(width, 4) bytes for every type, so any vector can
 *            hold cap uint32 DICT indices in data (nested and STRING too).
 *   validity (cap + 7) / 8 bytes when present; bits past len undefined.
 *   offsets  cap + 1 int64 entries for STRING/BINARY/LIST/MAP.
 *   STRUCT children are reserved to cap rows as well.
 *
 * ENCODINGS IN DETAIL
 *   CONSTANT  the vector stores exactly one physical row (row 0: data slot 0,
 *             validity bit 0, offsets[0..1] and children rows) standing for
 *             len logical rows.
 *   DICT      data holds len uint32 indices into *dict (a FLAT vector); the
 *             DICT vector's own validity marks null rows (their index is
 *             ignored but must be safe, e.g. 0). A row is valid when its own
 *             bit and its dict entry are valid: use fl_unified_is_valid().
 */
#ifndef FLOE_VECTOR_H
#define FLOE_VECTOR_H

#include "floe/export.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "floe/error.h"
#include "floe/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Rows per batch produced by scans; a power of two. Operators may produce fewer. */
#define FL_BATCH_CAP 2048

typedef enum fl_vec_encoding {
    FL_VEC_FLAT = 0,
    FL_VEC_CONSTANT,
    FL_VEC_DICT,
} fl_vec_encoding;

typedef struct fl_vector fl_vector;

struct fl_vector {
    const fl_type *type; /* borrowed */
    fl_vec_encoding encoding;
    uint32_t len;      /* logical rows */
    uint32_t cap;      /* rows allocated in validity/data/offsets */
    uint8_t *validity; /* NULL = all valid; else cap bits */
    uint8_t *data;     /* fixed width: cap * width; DICT: cap uint32 indices */
    int64_t *offsets;  /* STRING/BINARY/LIST/MAP: cap + 1 entries, offsets[0] == 0 */
    uint8_t *heap;     /* STRING/BINARY bytes */
    size_t heap_len;
    size_t heap_cap;
    uint32_t nchildren;  /* STRUCT: fields; LIST: 1; MAP: 2 (keys, values) */
    fl_vector *children; /* array of nchildren vectors, owned */
    fl_vector *dict;     /* DICT only */
    bool owns_dict;
};

/* Selection vector: the live rows of a batch, ascending. */
typedef struct fl_sel {
    uint32_t *idx;
    uint32_t count;
    uint32_t cap;
} fl_sel;

typedef struct fl_batch {
    const fl_schema *schema; /* borrowed; fields correspond to cols */
    uint32_t ncols;
    fl_vector *cols; /* owned array of ncols vectors */
    uint32_t nrows;  /* rows in every column */
    fl_sel *sel;     /* NULL = all rows live; else borrowed or owned_sel */
    fl_sel owned_sel;
} fl_batch;

/* ---- vectors ---- */

/* Initializes an empty FLAT vector of type t, with child vectors for nested
 * types. No memory is allocated until a reserve. */
FL_API fl_status fl_vector_init(fl_vector *v, const fl_type *t, fl_error *err);

/* Frees every buffer and child. v may be NULL or zeroed. */
FL_API void fl_vector_destroy(fl_vector *v);

/* Forgets all values (len = 0, FLAT, heap_len = 0, validity dropped), keeping
 * capacity; children are reset too. */
FL_API void fl_vector_reset(fl_vector *v);

/* Ensures room for rows rows (data, validity if present, offsets). */
FL_API fl_status fl_vector_reserve(fl_vector *v, uint32_t rows, fl_error *err);

/* Ensures heap room for bytes more bytes beyond heap_len. */
FL_API fl_status fl_vector_reserve_heap(fl_vector *v, size_t bytes, fl_error *err);

/* Allocates the validity bitmap (all valid) if absent, for cap rows. */
FL_API fl_status fl_vector_ensure_validity(fl_vector *v, fl_error *err);

static inline bool fl_vector_is_valid(const fl_vector *v, uint32_t row)
{
    return v->validity == NULL || ((v->validity[row >> 3] >> (row & 7)) & 1);
}
static inline bool fl_bitmap_get(const uint8_t *bits, uint32_t i)
{
    return (bits[i >> 3] >> (i & 7)) & 1;
}
static inline void fl_bitmap_set(uint8_t *bits, uint32_t i, bool on)
{
    if (on)
        bits[i >> 3] |= (uint8_t)(1u << (i & 7));
    else
        bits[i >> 3] &= (uint8_t) ~(1u << (i & 7));
}

/* Appending builders, for code that is not in a hot loop (CSV, JSON, tests).
 * Each grows the vector as needed and bumps len. Nested values are built by
 * appending to children and then calling fl_vector_append_nested(). */
FL_API fl_status fl_vector_append_null(fl_vector *v, fl_error *err);
FL_API fl_status fl_vector_append_fixed(fl_vector *v, const void *value,
                                        fl_error *err); /* width bytes */
FL_API fl_status fl_vector_append_bytes(fl_vector *v, const void *bytes, size_t len, fl_error *err);
/* STRUCT: children already hold the row; LIST/MAP: children grew to child_len. */
FL_API fl_status fl_vector_append_nested(fl_vector *v, int64_t child_len, fl_error *err);

/* Bulk builders for hot paths (one capacity check per call): n values of
 * width bytes each, all valid; n nulls. FLAT vectors only. */
FL_API fl_status fl_vector_append_fixed_n(fl_vector *v, const void *values, uint32_t n,
                                          fl_error *err);
FL_API fl_status fl_vector_append_nulls(fl_vector *v, uint32_t n, fl_error *err);

/* STRING/BINARY value of a FLAT vector row. */
static inline const uint8_t *fl_vector_bytes(const fl_vector *v, uint32_t row, size_t *len)
{
    *len = (size_t)(v->offsets[row + 1] - v->offsets[row]);
    /* no heap yet: every value so far is empty or NULL (NULL + 0 is undefined) */
    return v->heap ? v->heap + v->offsets[row] : (const uint8_t *)"";
}

/* Unified view: base is FLAT; row i of v is base row idx(i). For FLAT,
 * idx is NULL meaning identity; for CONSTANT, all rows map to 0. */
typedef struct fl_unified {
    const fl_vector *base;
    const uint32_t *idx;     /* NULL = identity */
    bool constant;           /* every row maps to base row 0 */
    const uint8_t *validity; /* DICT: row-level validity of v (NULL = none); else NULL */
} fl_unified;

static inline uint32_t fl_unified_row(const fl_unified *u, uint32_t i)
{
    return u->constant ? 0 : (u->idx ? u->idx[i] : i);
}
/* Row i of the unified vector is valid (checks the DICT row bit and the base). */
static inline bool fl_unified_is_valid(const fl_unified *u, uint32_t i)
{
    if (u->validity && !((u->validity[i >> 3] >> (i & 7)) & 1))
        return false;
    return fl_vector_is_valid(u->base, fl_unified_row(u, i));
}
FL_API void fl_vector_unify(const fl_vector *v, fl_unified *out);

/* Converts any encoding to FLAT in place. */
FL_API fl_status fl_vector_flatten(fl_vector *v, fl_error *err);

/* Copies row src_row of src (any encoding) to the end of dst (FLAT, same type). */
FL_API fl_status fl_vector_append_from(fl_vector *dst, const fl_vector *src, uint32_t src_row,
                                       fl_error *err);

/* Copies rows[0..n) of src (any encoding) to the end of dst (FLAT, same
 * type), as n fl_vector_append_from calls would, with one unify and one
 * capacity check (nested types row by row). */
FL_API fl_status fl_vector_append_rows(fl_vector *dst, const fl_vector *src, const uint32_t *rows,
                                       uint32_t n, fl_error *err);

/* ---- batches ---- */

/* Initializes a batch with one empty vector per schema field. */
FL_API fl_status fl_batch_init(fl_batch *b, const fl_schema *schema, fl_error *err);
FL_API void fl_batch_destroy(fl_batch *b);
FL_API void fl_batch_reset(fl_batch *b); /* resets every column, nrows = 0, sel = NULL */

/* Number of live rows (sel->count, or nrows). */
static inline uint32_t fl_batch_live_rows(const fl_batch *b)
{
    return b->sel ? b->sel->count : b->nrows;
}

#ifdef __cplusplus
}
#endif
#endif
