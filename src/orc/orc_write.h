/*
 * orc_write.h - internals of the ORC writer: a growable byte buffer with the
 * protobuf wire encoder (proto_write.c), the run-length encoders
 * (rle_write.c), stream compression (stream_write.c), column statistics
 * (stats_write.c) and the column writer tree (column_write.c).
 *
 * Everything here appends to orc_buf buffers in memory: a stripe's streams
 * are built whole, then compressed and written in one go (writer.c). Every
 * append returns FL_ENOMEM on allocation failure; nothing else can fail
 * until the bytes reach the output.
 */
#ifndef FLOE_ORC_WRITE_H
#define FLOE_ORC_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/orc.h"
#include "floe/parquet.h"
#include "floe/vector.h"

/* ---- bytes and protobuf (proto_write.c) ---- */

typedef struct orc_buf {
    uint8_t *p;
    size_t len, cap;
} orc_buf;

fl_status orc_buf_reserve(orc_buf *b, size_t more, fl_error *err);
fl_status orc_buf_put(orc_buf *b, const void *p, size_t n, fl_error *err);
fl_status orc_buf_byte(orc_buf *b, uint8_t x, fl_error *err);
fl_status orc_buf_uvarint(orc_buf *b, uint64_t v, fl_error *err);
void orc_buf_free(orc_buf *b);

static inline uint64_t orc_zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

/* Protobuf fields: tag then value. */
fl_status orc_pbw_varint(orc_buf *b, uint32_t field, uint64_t v, fl_error *err);
fl_status orc_pbw_sint(orc_buf *b, uint32_t field, int64_t v, fl_error *err); /* zigzag */
fl_status orc_pbw_double(orc_buf *b, uint32_t field, double v, fl_error *err);
fl_status orc_pbw_bytes(orc_buf *b, uint32_t field, const void *p, size_t n, fl_error *err);
static inline fl_status orc_pbw_msg(orc_buf *b, uint32_t field, const orc_buf *m, fl_error *err)
{
    return orc_pbw_bytes(b, field, m->p, m->len, err);
}

/* ---- run-length encoders (rle_write.c) ---- */

#define ORC_BRLE_MAX 128
typedef struct orc_brle_w { /* byte RLE */
    orc_buf *out;
    uint8_t lit[ORC_BRLE_MAX];
    uint32_t n; /* pending literal bytes in lit */
    uint8_t run_val;
    uint32_t run_len; /* an open run of run_val (3..130), or 0 */
} orc_brle_w;
fl_status orc_brle_put(orc_brle_w *w, uint8_t x, fl_error *err);
fl_status orc_brle_flush(orc_brle_w *w, fl_error *err);

typedef struct orc_bool_w { /* booleans, MSB first, over byte RLE */
    orc_brle_w r;
    uint8_t cur, nbits;
} orc_bool_w;
fl_status orc_bool_put(orc_bool_w *w, bool x, fl_error *err);
fl_status orc_bool_flush(orc_bool_w *w, fl_error *err);

#define ORC_IRLE_MAX 512
typedef struct orc_irle_w { /* integer RLE v2 */
    orc_buf *out;
    bool is_signed;
    uint32_t n;
    int64_t vals[ORC_IRLE_MAX];
} orc_irle_w;
fl_status orc_irle_put(orc_irle_w *w, int64_t v, fl_error *err);
fl_status orc_irle_flush(orc_irle_w *w, fl_error *err);

/* ---- compression framing (stream_write.c) ---- */

/* Appends src to out in ORC's chunk framing (3-byte headers, a chunk kept
 * "original" when compressing does not shrink it), or as is for NONE. */
fl_status orc_compress_into(fl_orc_compression c, int level, size_t block, const uint8_t *src,
                            size_t len, orc_buf *out, orc_buf *scratch, fl_error *err);

/* ---- column statistics (stats_write.c) ---- */

typedef struct orc_wstats {
    uint64_t values; /* non-null values */
    bool has_null;
    bool has_minmax;
    int64_t imin, imax; /* ints, dates, timestamps (nanos since the epoch) */
    __int128 isum;      /* ints: overflow makes the sum absent */
    bool sum_ok;
    double dmin, dmax, dsum;
    uint8_t *smin, *smax; /* strings: malloc'd copies */
    size_t smin_len, smax_len;
    uint64_t total_len;     /* strings, binaries: bytes */
    fl_i128 decmin, decmax; /* decimals, unscaled */
    uint64_t true_count;
    uint64_t nan_count;
} orc_wstats;

void orc_wstats_reset(orc_wstats *s);
/* Adds stripe stats s into file stats f. */
fl_status orc_wstats_merge(orc_wstats *f, const orc_wstats *s, fl_error *err);
/* ColumnStatistics message for a column of type t. */
fl_status orc_wstats_encode(const orc_wstats *s, const fl_type *t, fl_orc_kind kind, orc_buf *out,
                            fl_error *err);
fl_status orc_wstats_string(orc_wstats *s, const uint8_t *p, size_t n, fl_error *err);

/* ---- the column writer tree (column_write.c) ---- */

typedef struct orc_colw orc_colw;
struct orc_colw {
    const fl_field *field; /* borrowed from the writer's schema */
    fl_orc_kind kind;
    uint32_t id;        /* ORC column id (pre-order) */
    uint32_t nchildren; /* STRUCT fields, LIST 1, MAP 2 */
    orc_colw *children;
    orc_buf present_buf, data_buf, length_buf, secondary_buf;
    orc_bool_w present;
    orc_irle_w ints;      /* DATA of integers, dates, timestamp seconds */
    orc_bool_w bools;     /* DATA of booleans */
    orc_irle_w lengths;   /* LENGTH of strings, binaries, lists, maps */
    orc_irle_w secondary; /* SECONDARY: timestamp nanos, decimal scales */
    bool stripe_nulls;
    uint64_t stripe_rows; /* entries (values and nulls) in this stripe */
    orc_wstats stripe, file;
    uint64_t file_entries, file_bytes; /* values and nulls; compressed stream bytes */
    uint32_t *rows;                    /* scratch: child row list (LIST/MAP) */
    uint32_t rows_cap;
    uint8_t *dec; /* scratch for decimal varints */
};

/* Builds the tree for schema fields (root id 0 is the struct of them);
 * *ncols gets the number of ORC columns. */
fl_status orc_colw_build(const fl_schema *s, orc_colw **root, uint32_t *ncols, fl_error *err);
void orc_colw_free(orc_colw *c);
/* Appends rows[0..n) of v (logical rows; fl_vector_unify is applied). */
fl_status orc_colw_write(orc_colw *c, const fl_vector *v, const uint32_t *rows, uint32_t n,
                         fl_error *err);
/* Flushes the encoders of c and its subtree (end of a stripe). */
fl_status orc_colw_finish(orc_colw *c, fl_error *err);
/* Forgets a stripe's streams and stats after it was written. */
void orc_colw_next_stripe(orc_colw *c);
/* Bytes the stripe's streams hold now (estimate, uncompressed). */
uint64_t orc_colw_bytes(const orc_colw *c);
/* Column by ORC id, in pre-order. */
orc_colw *orc_colw_at(orc_colw *root, uint32_t id);

/* ---- the writer (writer.c, writer_tail.c) ---- */

#define ORC_WRITER_ID 10
#define ORC_WRITER_VERSION 9

struct fl_orc_writer {
    fl_output *out;
    fl_arena arena;
    fl_schema schema;
    fl_orc_compression compression;
    int level;
    uint64_t stripe_bytes, stripe_row_limit;
    size_t block;
    const fl_orc_attr *meta;
    uint32_t nmeta;
    orc_colw *root;
    uint32_t ncols;
    uint64_t offset; /* bytes written */
    uint64_t nrows;  /* rows of finished stripes */
    uint64_t stripe_rows;
    orc_buf stripes;      /* Footer.stripes entries, encoded */
    orc_buf stripe_stats; /* Metadata.stripeStats entries, encoded */
    orc_buf scratch, zbuf;
    int64_t *split_offsets;
    uint32_t nsplits, splits_cap;
};

fl_status orc_emit(fl_orc_writer *w, const void *p, size_t n, fl_error *err);
fl_status orc_emit_compressed(fl_orc_writer *w, const orc_buf *m, uint64_t *len, fl_error *err);
/* Writes the buffered stripe (nothing when it has no rows). */
fl_status orc_flush_stripe(fl_orc_writer *w, fl_error *err);

#endif
