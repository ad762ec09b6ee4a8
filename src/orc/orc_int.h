/*
 * orc_int.h - internals of the ORC reader: the protobuf wire cursor, the
 * reader struct, stream loading and the run-length decoders.
 *
 * Every decoder reads from an orc_bytes window (a decompressed stream held in
 * memory) and checks every byte it takes; on bad input it returns
 * FL_ECORRUPT naming its label ("stripe 1 column 3 DATA") and the offset in
 * the decompressed stream. Callers prefix the file path.
 */
#ifndef FLOE_ORC_INT_H
#define FLOE_ORC_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/arena.h"
#include "floe/orc.h"

/* ---- protobuf wire format (proto.c) ---- */

typedef struct orc_pb {
    const uint8_t *start, *p, *end;
    const char *what; /* message name for errors */
} orc_pb;

typedef struct orc_pbf {
    uint32_t num; /* field number */
    uint32_t wt;  /* wire type: 0 varint, 1 fixed64, 2 bytes, 5 fixed32 */
    uint64_t v;   /* varint / fixed value */
    const uint8_t *ptr;
    size_t len; /* wire type 2 */
} orc_pbf;

void orc_pb_init(orc_pb *c, const uint8_t *p, size_t len, const char *what);
/* 1 = a field was read into f, 0 = end of message, FL_ECORRUPT on bad bytes. */
int orc_pb_next(orc_pb *c, orc_pbf *f, fl_error *err);
/* Repeated uint32 (packed or not): appends to *vals (arena array grown to *cap). */
fl_status orc_pb_u32s(fl_arena *a, const orc_pbf *f, uint32_t **vals, uint32_t *n, uint32_t *cap,
                      fl_error *err);
static inline int64_t orc_unzigzag(uint64_t u)
{
    return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

/* ---- the reader ---- */

typedef struct orc_stripe_stats {
    fl_orc_stats *cols; /* ntypes entries */
    bool *present;
} orc_stripe_stats;

struct fl_orc_reader {
    fl_file *file;
    fl_arena arena;
    fl_orc_file_info info;
    uint64_t nrows;
    uint32_t nstripes;
    fl_orc_stripe *stripes;
    uint32_t ntypes;
    fl_orc_type *types;
    fl_orc_stats *file_stats; /* ntypes, or NULL */
    bool *file_stats_present;
    orc_stripe_stats *stripe_stats; /* nstripes, or NULL */
    fl_schema schema;
    uint32_t *field_columns; /* schema.nfields ORC column ids */
};

/* Decompresses an ORC-compressed region (chunks with 3-byte headers) into a
 * malloc'd buffer (*out, *out_len; caller frees). what names it in errors. */
fl_status orc_decompress(const fl_orc_reader *r, const uint8_t *src, size_t len, uint8_t **out,
                         size_t *out_len, const char *what, fl_error *err);

/* Decodes one ColumnStatistics message (strings copied into a). */
fl_status orc_parse_stats(fl_arena *a, const uint8_t *p, size_t len, fl_orc_stats *st,
                          fl_error *err);

/* Maps the type list to r->schema (schema.c). */
fl_status orc_build_schema(fl_orc_reader *r, fl_error *err);

/* ---- value decoders (rle.c) ---- */

typedef struct orc_bytes {
    const uint8_t *p;
    size_t len, pos;
    const char *label;
} orc_bytes;

fl_status orc_bytes_err(const orc_bytes *b, const char *what, fl_error *err);
fl_status orc_read_uvarint(orc_bytes *b, uint64_t *out, fl_error *err);

typedef struct orc_brle { /* byte run-length encoding */
    orc_bytes b;
    uint32_t left;
    bool literal;
    uint8_t value;
} orc_brle;
fl_status orc_brle_next(orc_brle *d, uint8_t *out, fl_error *err);

typedef struct orc_bool { /* booleans: byte RLE of MSB-first bit bytes */
    orc_brle r;
    uint8_t cur;
    uint8_t nbits;
} orc_bool;
fl_status orc_bool_next(orc_bool *d, bool *out, fl_error *err);

#define ORC_RLE_MAX 512
typedef struct orc_irle { /* integer RLE v1 or v2 */
    orc_bytes b;
    int version; /* 1 or 2 */
    bool is_signed;
    uint32_t n, i;
    int64_t vals[ORC_RLE_MAX];
} orc_irle;
fl_status orc_irle_next(orc_irle *d, int64_t *out, fl_error *err);

/* ---- writer time zones (tz.c) ---- */

typedef struct orc_tz {
    char name[64];
    bool loaded, utc;
    uint32_t n;
    int64_t *trans;  /* n transition times, ascending (UTC seconds) */
    int32_t *off;    /* n: the UTC offset from each transition on */
    int32_t ancient; /* before the first transition: the oldest standard time */
    int64_t epoch;   /* 2015-01-01 00:00:00 in the zone, as UTC seconds */
} orc_tz;

/* Loads zone `name` ("" and UTC names need no file). FL_EUNSUPPORTED when
 * the system has no such zone file. */
fl_status orc_tz_load(const char *name, orc_tz *tz, fl_error *err);
int32_t orc_tz_offset(const orc_tz *tz, int64_t t);
void orc_tz_free(orc_tz *tz);

#endif
