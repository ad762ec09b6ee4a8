/*
 * thrift.h - internal primitives of the Thrift compact protocol, shared by
 * thrift_read.c (decoder), thrift_write.c (encoder) and bloom.c (the bloom
 * filter header). Not a public interface: parquet_meta.h is.
 *
 * Wire format (Thrift compact protocol, thrift/doc/specs/thrift-compact-protocol.md):
 *   varint      unsigned LEB128, 7 bits per byte, low group first
 *   i16/i32/i64 zigzag-encoded varint; i8 is one raw byte; double is 8 bytes LE
 *   binary      varint length + bytes
 *   field       header byte dddd tttt: d = field id delta from the previous
 *               field (1..15); d == 0 means a zigzag varint i16 id follows.
 *               t = type: 0 STOP, 1 TRUE, 2 FALSE (a bool field's value lives
 *               in its header), 3 I8, 4 I16, 5 I32, 6 I64, 7 DOUBLE,
 *               8 BINARY, 9 LIST, 10 SET, 11 MAP, 12 STRUCT, 13 UUID
 *   list/set    byte ssss tttt: s = size 0..14, or 15 and a varint size follows;
 *               t = element type; bool elements are one byte each (1 true)
 *   map         varint size; if size > 0 a byte kkkk vvvv (key/value types)
 *   struct      fields, then a STOP byte
 *
 * The decoder keeps a stack of frames (struct name + current field + list
 * index) so errors name the byte offset and the path being decoded, e.g.
 *   thrift: byte 1234: FileMetaData.row_groups[0].columns[3].meta_data: ...
 */
#ifndef FLOE_PARQUET_THRIFT_H
#define FLOE_PARQUET_THRIFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/arena.h"
#include "floe/error.h"
#include "floe/parquet_meta.h"

enum {
    FL_TT_STOP = 0,
    FL_TT_TRUE = 1,
    FL_TT_FALSE = 2,
    FL_TT_I8 = 3,
    FL_TT_I16 = 4,
    FL_TT_I32 = 5,
    FL_TT_I64 = 6,
    FL_TT_DOUBLE = 7,
    FL_TT_BINARY = 8,
    FL_TT_LIST = 9,
    FL_TT_SET = 10,
    FL_TT_MAP = 11,
    FL_TT_STRUCT = 12,
    FL_TT_UUID = 13,
};

#define FL_TR_MAX_DEPTH 64

/* ---- decoder ---- */

typedef struct fl_tr_frame {
    const char *sname;         /* struct name */
    const char *const *fnames; /* field names indexed by id, may hold NULLs */
    const uint8_t *ftypes;     /* expected wire type per id (0 = any), or NULL */
    int nfnames;               /* entries in fnames and ftypes */
    int16_t fid;               /* current field id, 0 before the first */
    int64_t idx;               /* index in the current list field, -1 if none */
} fl_tr_frame;

typedef struct fl_tr {
    const uint8_t *buf;
    size_t len, pos;
    fl_arena *a; /* where decoded strings/arrays go; may be NULL for skip-only */
    fl_error *err;
    int depth;     /* frames in use */
    size_t budget; /* arena bytes this decode may still take */
    fl_tr_frame frames[FL_TR_MAX_DEPTH];
} fl_tr;

/* Memory bound of one decode: FL_TR_EXPANSION x the input + FL_TR_SLACK.
 * A list of N empty structs costs N bytes of input but N x sizeof(struct) of
 * memory; real footers stay far below 64x. */
#define FL_TR_EXPANSION 64u
#define FL_TR_SLACK ((size_t)16 << 20)

void fl_tr_init(fl_tr *r, const uint8_t *buf, size_t len, fl_arena *a, fl_error *err);

/* Records FL_ECORRUPT (or code) with "thrift: byte N: <path>: <msg>". */
fl_status fl_tr_fail(fl_tr *r, fl_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Enters a struct (checks the depth bound) / leaves it (after STOP).
 * fnames/ftypes (nfnames entries, indexed by field id) name the fields for
 * error messages and give their expected wire types. */
fl_status fl_tr_struct_begin(fl_tr *r, const char *sname, const char *const *fnames,
                             const uint8_t *ftypes, int nfnames);
void fl_tr_struct_end(fl_tr *r);

/* Reads the next field header: *type == FL_TT_STOP at the end of the struct.
 * A known field whose wire type differs from the expected one is skipped
 * (as Thrift's generated code does: old drafts of parquet.thrift reused ids),
 * so callers only see fields of the expected type or unknown ids. */
fl_status fl_tr_field(fl_tr *r, int16_t *fid, uint8_t *type);

/* Typed reads of a field (or list element) of wire type t; integer reads
 * accept any of I8/I16/I32/I64 and range-check the value. */
fl_status fl_tr_i64(fl_tr *r, uint8_t t, int64_t *v);
fl_status fl_tr_i32(fl_tr *r, uint8_t t, int32_t *v);
fl_status fl_tr_bool(fl_tr *r, uint8_t t, bool *v);      /* field context: value in t */
fl_status fl_tr_elem_bool(fl_tr *r, uint8_t t, bool *v); /* list element: one byte */
fl_status fl_tr_double(fl_tr *r, uint8_t t, double *v);
/* Binary borrowed from the input buffer. */
fl_status fl_tr_binary(fl_tr *r, uint8_t t, const uint8_t **p, uint32_t *n);
/* Binary copied into the arena, NUL-terminated. */
fl_status fl_tr_string(fl_tr *r, uint8_t t, const char **s, uint32_t *n);
fl_status fl_tr_bytes(fl_tr *r, uint8_t t, fl_pq_bytes *b);

/* List or set header; t is the field type (must be LIST or SET). Checks that
 * count elements can fit in the remaining bytes. Sets the list index of the
 * current frame to 0; bump it with fl_tr_next_elem(). */
fl_status fl_tr_list(fl_tr *r, uint8_t t, uint8_t *etype, uint32_t *count);
static inline void fl_tr_set_elem(fl_tr *r, int64_t i)
{
    if (r->depth > 0)
        r->frames[r->depth - 1].idx = i;
}

/* Skips one value of wire type t (any type, nested, depth-bounded). */
fl_status fl_tr_skip(fl_tr *r, uint8_t t);

/* Checks the wire type t of a field is what the decoder expects. */
fl_status fl_tr_expect(fl_tr *r, uint8_t t, uint8_t want);

/* ---- encoder ---- */

typedef struct fl_tw {
    fl_pq_buf *out;
    fl_error *err;
    int depth;
    int16_t last[FL_TR_MAX_DEPTH + 1]; /* last field id per open struct */
    fl_status st;                      /* first failure; later writes are no-ops */
} fl_tw;

void fl_tw_init(fl_tw *w, fl_pq_buf *out, fl_error *err);
void fl_tw_struct_begin(fl_tw *w);
void fl_tw_struct_end(fl_tw *w); /* writes STOP */
void fl_tw_field(fl_tw *w, int16_t fid, uint8_t type);
void fl_tw_varint(fl_tw *w, uint64_t v);
void fl_tw_zigzag(fl_tw *w, int64_t v);
void fl_tw_byte(fl_tw *w, uint8_t v);
void fl_tw_raw(fl_tw *w, const void *p, size_t n);

/* Convenience: whole fields. */
void fl_tw_f_i32(fl_tw *w, int16_t fid, int32_t v);
void fl_tw_f_i64(fl_tw *w, int16_t fid, int64_t v);
void fl_tw_f_i8(fl_tw *w, int16_t fid, int8_t v);
void fl_tw_f_i16(fl_tw *w, int16_t fid, int16_t v);
void fl_tw_f_double(fl_tw *w, int16_t fid, double v); /* 8 bytes little-endian */
void fl_tw_f_bool(fl_tw *w, int16_t fid, bool v);
void fl_tw_f_binary(fl_tw *w, int16_t fid, const void *p, size_t n);
void fl_tw_f_string(fl_tw *w, int16_t fid, const char *s);
void fl_tw_f_struct_begin(fl_tw *w, int16_t fid);
/* Field of an empty struct (e.g. a union member with no payload). */
void fl_tw_f_empty_struct(fl_tw *w, int16_t fid);
void fl_tw_f_list(fl_tw *w, int16_t fid, uint8_t etype, uint32_t count);
void fl_tw_list_header(fl_tw *w, uint8_t etype, uint32_t count);
void fl_tw_binary(fl_tw *w, const void *p, size_t n);

/* Returns w->st (FL_OK or the first error). */
static inline fl_status fl_tw_status(const fl_tw *w)
{
    return w->st;
}

#endif
