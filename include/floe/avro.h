/*
 * avro.h - Apache Avro: schemas, binary encoding, object container files,
 * schema resolution. Built for Iceberg manifests and manifest lists, whose
 * schemas carry custom attributes (field-id, element-id, key-id, value-id,
 * adjust-to-utc, logicalType) that must survive a read/write round trip.
 *
 * Schemas: fl_avro_schema_parse() turns schema JSON into a tree of
 * fl_avro_schema nodes in an arena. Named types are shared: every reference
 * to a record/enum/fixed points at its one definition node (so recursive
 * types are cyclic graphs). Every attribute of every JSON object is kept, in
 * order, as raw JSON text (fl_avro_prop), so fl_avro_schema_to_json() writes
 * back all custom attributes verbatim. Parsing Canonical Form and the
 * CRC-64-AVRO fingerprint follow the Avro specification.
 *
 * Values: a decoded datum is an fl_avro_value tree in an arena. Values hold
 * the physical Avro value: logical types are not applied (a date is the int
 * day count, a decimal its two's-complement bytes). Unions are transparent:
 * the value is the chosen branch's value and `branch` records the index.
 *
 * Containers: fl_avro_reader reads an object container file through an
 * fl_file block by block (ranged reads, bounded block sizes); fl_avro_writer
 * writes one to an fl_output. Codecs: null, deflate, snappy, zstandard, and
 * bzip2 when libbz2.so.1.0 can be loaded at run time.
 *
 * Ownership: schemas and values live in the arena the caller passes; the
 * caller frees the arena. Readers and writers are freed with their _close /
 * _abort functions. Nothing here is thread-safe per object.
 */
#ifndef FLOE_AVRO_H
#define FLOE_AVRO_H

#include "floe/export.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/arena.h"
#include "floe/buf.h"
#include "floe/error.h"
#include "floe/io.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fl_avro_type {
    FL_AVRO_NULL = 0,
    FL_AVRO_BOOLEAN,
    FL_AVRO_INT,
    FL_AVRO_LONG,
    FL_AVRO_FLOAT,
    FL_AVRO_DOUBLE,
    FL_AVRO_BYTES,
    FL_AVRO_STRING,
    FL_AVRO_RECORD,
    FL_AVRO_ENUM,
    FL_AVRO_ARRAY,
    FL_AVRO_MAP,
    FL_AVRO_UNION,
    FL_AVRO_FIXED,
} fl_avro_type;

typedef enum fl_avro_logical {
    FL_AVRO_LOGICAL_NONE = 0,
    FL_AVRO_LOGICAL_DECIMAL,     /* bytes or fixed; precision, scale */
    FL_AVRO_LOGICAL_UUID,        /* string (or fixed[16]) */
    FL_AVRO_LOGICAL_DATE,        /* int days */
    FL_AVRO_LOGICAL_TIME_MILLIS, /* int */
    FL_AVRO_LOGICAL_TIME_MICROS, /* long */
    FL_AVRO_LOGICAL_TIMESTAMP_MILLIS,
    FL_AVRO_LOGICAL_TIMESTAMP_MICROS,
    FL_AVRO_LOGICAL_TIMESTAMP_NANOS,
    FL_AVRO_LOGICAL_LOCAL_TIMESTAMP_MILLIS,
    FL_AVRO_LOGICAL_LOCAL_TIMESTAMP_MICROS,
    FL_AVRO_LOGICAL_LOCAL_TIMESTAMP_NANOS,
    FL_AVRO_LOGICAL_DURATION, /* fixed[12] */
    FL_AVRO_LOGICAL_OTHER,    /* unknown logicalType: kept, ignored */
} fl_avro_logical;

/* One attribute of a schema JSON object, in file order. json is the value as
 * compact JSON text (a string attribute keeps its quotes: "\"x\""). For keys
 * the tree models structurally ("type", "fields", "items", "values") json is
 * NULL: the writer regenerates them from the tree at this position. */
typedef struct fl_avro_prop {
    const char *key;
    const char *json;
} fl_avro_prop;

typedef struct fl_avro_schema fl_avro_schema;

typedef struct fl_avro_field {
    const char *name;
    fl_avro_schema *type;
    const char *type_ref;     /* the name as written when the type was a reference, else NULL */
    const char *default_json; /* compact JSON text of "default", NULL if none */
    const char **aliases;
    uint32_t naliases;
    int32_t field_id; /* "field-id" attribute, valid when has_field_id */
    bool has_field_id;
    uint32_t nprops; /* every attribute of the field object, in order */
    fl_avro_prop *props;
} fl_avro_field;

struct fl_avro_schema {
    fl_avro_type type;
    fl_avro_logical logical;
    const char *logical_name; /* "logicalType" as written, NULL if none */
    int32_t precision, scale; /* decimal */
    /* named types (record, enum, fixed) */
    const char *name;     /* short name */
    const char *space;    /* namespace, "" when none */
    const char *fullname; /* space.name or name */
    const char **aliases;
    uint32_t naliases;
    /* record */
    uint32_t nfields;
    fl_avro_field *fields;
    /* enum */
    uint32_t nsymbols;
    const char **symbols;
    int32_t enum_default; /* symbol index of "default", -1 if none */
    /* array: items; map: values */
    fl_avro_schema *items;
    fl_avro_schema *values;
    const char *items_ref, *values_ref; /* reference spellings (see type_ref) */
    /* union */
    uint32_t nbranches;
    fl_avro_schema **branches;
    const char **branch_refs; /* per branch: reference spelling or NULL */
    /* fixed */
    int32_t size;
    /* Iceberg ids: element-id (array), key-id / value-id (map); -1 if absent */
    int32_t element_id, key_id, value_id;
    /* attributes, in order; see fl_avro_prop. A primitive written as a bare
     * string ("int") has nprops 0 and is_object false. */
    bool is_object;
    uint32_t nprops;
    fl_avro_prop *props;
};

/* Parses schema JSON text into a tree in arena a. Errors name the JSON path
 * ("field 'x': unknown type 'foo'"). */
FL_API fl_status fl_avro_schema_parse(fl_arena *a, const char *json, size_t len,
                                      fl_avro_schema **out, fl_error *err);

/* Writes the schema back as compact JSON with every attribute kept in order.
 * Named types are written once; later references are names (short names when
 * the namespace matches the enclosing one). Returns a NUL-terminated string
 * in arena a, or NULL when out of memory. */
FL_API char *fl_avro_schema_to_json(fl_arena *a, const fl_avro_schema *s);

/* Parsing Canonical Form (Avro spec) in arena a; NULL when out of memory. */
FL_API char *fl_avro_schema_canonical(fl_arena *a, const fl_avro_schema *s);

/* CRC-64-AVRO (Rabin) fingerprint of bytes; of a schema, fingerprint its
 * canonical form. */
FL_API uint64_t fl_avro_crc64(const void *buf, size_t len);

/* CRC-64-AVRO fingerprint of the schema's Parsing Canonical Form; 0 when
 * out of memory. */
FL_API uint64_t fl_avro_schema_fingerprint(const fl_avro_schema *s);

/* Short name of a type: "null", "record", ... */
FL_API const char *fl_avro_type_name(fl_avro_type t);

/* True for record, enum and fixed. */
static inline bool fl_avro_schema_is_named(const fl_avro_schema *s)
{
    return s->type == FL_AVRO_RECORD || s->type == FL_AVRO_ENUM || s->type == FL_AVRO_FIXED;
}

/* Index of a union's "null" branch, or -1. */
FL_API int fl_avro_union_null_branch(const fl_avro_schema *s);

/* ---------------------------------------------------------------- values */

typedef struct fl_avro_value fl_avro_value;

struct fl_avro_value {
    const fl_avro_schema *schema; /* the non-union schema of this value */
    fl_avro_type type;            /* == schema->type */
    int32_t branch;               /* union branch index when inside a union, else -1 */
    union {
        bool b;
        int32_t i; /* INT, ENUM (symbol index) */
        int64_t l;
        float f;
        double d;
        struct {
            const uint8_t *ptr; /* BYTES, STRING, FIXED; not NUL-terminated */
            size_t len;
        } bytes;
        struct {
            fl_avro_value *items; /* ARRAY items; RECORD fields (schema order) */
            size_t n;
        } list;
        struct {
            fl_avro_value *keys; /* MAP: keys (type STRING) and values, n each */
            fl_avro_value *values;
            size_t n;
        } map;
    } u;
};

/* Limits applied while decoding untrusted bytes. Zero fields pick defaults. */
typedef struct fl_avro_limits {
    size_t max_depth;       /* nesting depth, default 200 */
    size_t max_items;       /* items in one array/map value, default 64 Mi */
    size_t max_block_bytes; /* container block (compressed and decompressed), default 256 MiB */
} fl_avro_limits;

/* Decodes one datum of schema s from buf[*pos..len), advancing *pos. Strings
 * and bytes are copied into arena a. base_offset is added to byte offsets in
 * error messages (the file offset of buf[0]). limits may be NULL. */
FL_API fl_status fl_avro_decode(fl_arena *a, const fl_avro_schema *s, const uint8_t *buf,
                                size_t len, size_t *pos, uint64_t base_offset,
                                const fl_avro_limits *limits, fl_avro_value *out, fl_error *err);

/* Skips one datum of schema s without building a value. */
FL_API fl_status fl_avro_skip(const fl_avro_schema *s, const uint8_t *buf, size_t len, size_t *pos,
                              uint64_t base_offset, const fl_avro_limits *limits, fl_error *err);

/* The Avro encoder's and JSON writers' buffer is fl_buf (floe/buf.h; binary
 * content through .bytes); fl_avro_buf_free() is fl_buf_free(). */
typedef fl_buf fl_avro_buf;
FL_API fl_status fl_avro_buf_append(fl_avro_buf *b, const void *p, size_t n, fl_error *err);
FL_API void fl_avro_buf_free(fl_avro_buf *b);

/* Appends the binary encoding of v (which must conform to s) to out. For a
 * union schema, v->branch picks the branch; when it is -1 the first branch
 * whose type matches v->type (and, for named types, v->schema) is used. */
FL_API fl_status fl_avro_encode(const fl_avro_schema *s, const fl_avro_value *v, fl_avro_buf *out,
                                fl_error *err);

FL_API void fl_avro_write_long(fl_avro_buf *out, int64_t v, fl_error *err);

/* Value constructors for building records by hand (arena-allocated). */
FL_API void fl_avro_value_null(fl_avro_value *v);
FL_API void fl_avro_value_long(fl_avro_value *v, fl_avro_type t, int64_t x); /* INT or LONG */
FL_API void fl_avro_value_bytes(fl_avro_value *v, fl_avro_type t, const void *p, size_t len);

/* Looks up a record field by name; NULL when absent or null. */
FL_API const fl_avro_value *fl_avro_value_field(const fl_avro_value *rec, const char *name);

/* JSON rendering, the format of the fixture *.expected.jsonl files: physical
 * values, longs as exact JSON integers, float/double as shortest round-trip
 * numbers (NaN/Infinity as the strings "NaN", "Infinity", "-Infinity"),
 * bytes/fixed as {"$bytes":"<hex>"}, enums as the symbol string, maps as
 * objects, unions as the bare branch value, records as objects in field
 * order. Appends to out (not NUL-terminated). */
FL_API fl_status fl_avro_value_to_json(const fl_avro_value *v, fl_avro_buf *out, fl_error *err);

/* Like fl_avro_value_to_json; with FL_AVRO_JSON_LOGICAL, values of logical
 * types are rendered decoded: date "2024-01-31", time "12:00:00.000",
 * timestamp-* "2024-01-31T12:00:00.000000Z" (local-timestamp-* without Z),
 * decimal as an exact decimal string ("-12.50"; when wider than 16 bytes
 * the physical form is kept), uuid in fixed[16] as its 8-4-4-4-12 string,
 * duration as {"months":m,"days":d,"millis":ms}. */
#define FL_AVRO_JSON_LOGICAL 1u
FL_API fl_status fl_avro_value_to_json_ex(const fl_avro_value *v, unsigned flags, fl_avro_buf *out,
                                          fl_error *err);

/* The inverse: JSON text of one datum (that format, also accepting plain
 * strings for bytes/fixed and {"branch": value} wrapped unions) to a value
 * of schema s in arena a. */
FL_API fl_status fl_avro_value_from_json(fl_arena *a, const fl_avro_schema *s, const char *json,
                                         size_t len, fl_avro_value *out, fl_error *err);

/* Avro single-object encoding: 0xC3 0x01, the 8-byte little-endian
 * fingerprint of the schema, then the datum. Decoding checks the marker and
 * that the fingerprint is the schema's (FL_ETYPE otherwise), and that the
 * datum fills the buffer exactly. */
FL_API fl_status fl_avro_single_object_decode(fl_arena *a, const fl_avro_schema *s,
                                              const uint8_t *buf, size_t len, fl_avro_value *out,
                                              fl_error *err);
FL_API fl_status fl_avro_single_object_encode(const fl_avro_schema *s, const fl_avro_value *v,
                                              fl_avro_buf *out, fl_error *err);

/* ---------------------------------------------------- schema resolution */

typedef struct fl_avro_resolver fl_avro_resolver;

/* Prepares reading data written with writer schema w as reader schema r
 * (Avro resolution rules; record fields match by field-id when both sides
 * carry one, else by name, then by reader aliases; missing reader fields take
 * their default, or null when the field is an optional union). Fails when
 * the schemas can never match (e.g. record vs int). Lives in arena a. */
FL_API fl_status fl_avro_resolver_new(fl_arena *a, const fl_avro_schema *w, const fl_avro_schema *r,
                                      fl_avro_resolver **out, fl_error *err);

/* Converts a value decoded with the writer schema to the reader schema.
 * Promotions: int->long/float/double, long->float/double, float->double,
 * string<->bytes. A writer union branch the reader cannot take is an error
 * at that datum. */
FL_API fl_status fl_avro_resolve(fl_arena *a, const fl_avro_resolver *rs, const fl_avro_value *in,
                                 fl_avro_value *out, fl_error *err);

/* ------------------------------------------------ object container files */

typedef struct fl_avro_meta {
    const char *key;      /* NUL-terminated */
    const uint8_t *value; /* bytes as stored (NUL-terminated for convenience) */
    size_t len;
} fl_avro_meta;

typedef struct fl_avro_reader fl_avro_reader;

/* Opens a container file: reads the header (magic, metadata, sync marker),
 * parses avro.schema, checks avro.codec. The reader does not own f. limits
 * may be NULL. */
FL_API fl_status fl_avro_reader_open(fl_file *f, const fl_avro_limits *limits, fl_avro_reader **out,
                                     fl_error *err);
FL_API void fl_avro_reader_close(fl_avro_reader *r); /* NULL allowed */

FL_API const fl_avro_schema *fl_avro_reader_schema(const fl_avro_reader *r);
FL_API const char *fl_avro_reader_schema_json(const fl_avro_reader *r, size_t *len); /* as stored */
FL_API const char *fl_avro_reader_codec(const fl_avro_reader *r);   /* "null" if absent */
FL_API const uint8_t *fl_avro_reader_sync(const fl_avro_reader *r); /* 16 bytes */
FL_API size_t fl_avro_reader_meta_count(const fl_avro_reader *r);
FL_API const fl_avro_meta *fl_avro_reader_meta(const fl_avro_reader *r, size_t i); /* file order */
/* Value of metadata key, or NULL. */
FL_API const fl_avro_meta *fl_avro_reader_meta_find(const fl_avro_reader *r, const char *key);
FL_API uint64_t fl_avro_reader_header_size(const fl_avro_reader *r);
/* Bytes after the last block too short to hold a block header (a stray
 * newline some writers leave); 0 for a clean file. Known once at end. */
FL_API uint64_t fl_avro_reader_trailing_bytes(const fl_avro_reader *r);

/* Makes fl_avro_reader_next return records resolved to reader schema rs
 * (see fl_avro_resolver_new: Iceberg field-id matching, defaults,
 * promotions) instead of the writer's shape. rs must outlive the reader.
 * Fails when the writer schema can never be read as rs. */
FL_API fl_status fl_avro_reader_set_reader_schema(fl_avro_reader *r, const fl_avro_schema *rs,
                                                  fl_error *err);

/* Decodes the next record into arena a (values stay valid as long as a).
 * Returns FL_OK with *done=false and *out filled, or FL_OK with *done=true
 * at the end of the file. */
FL_API fl_status fl_avro_reader_next(fl_avro_reader *r, fl_arena *a, fl_avro_value *out, bool *done,
                                     fl_error *err);

/* Block-level access: loads the next block (decompressed, CRC checked).
 * *done=true at end. Used by `floe avro meta` and by fl_avro_reader_next. */
typedef struct fl_avro_block_info {
    uint64_t offset; /* file offset of the block's count varint */
    int64_t records;
    uint64_t compressed; /* size field of the block */
    uint64_t uncompressed;
} fl_avro_block_info;
FL_API fl_status fl_avro_reader_next_block(fl_avro_reader *r, fl_avro_block_info *info, bool *done,
                                           fl_error *err);
/* The decompressed bytes of the block loaded by the last
 * fl_avro_reader_next_block (valid until the next block is loaded), for
 * callers that decode records themselves (Iceberg manifests). */
FL_API const uint8_t *fl_avro_reader_block_data(const fl_avro_reader *r, size_t *len);

typedef struct fl_avro_writer fl_avro_writer;

typedef struct fl_avro_writer_options {
    const char *codec;   /* "null" (default), "deflate", "snappy", "zstandard", "bzip2" */
    int level;           /* codec level, 0 = default */
    size_t block_size;   /* flush a block when it reaches this many bytes, default 64 KiB */
    const uint8_t *sync; /* 16 bytes, NULL = random */
    const fl_avro_meta
        *meta; /* extra metadata, written in this order after avro.schema and avro.codec */
    size_t nmeta;
} fl_avro_writer_options;

/* Starts a container file on out with schema text schema_json stored exactly
 * as given (it must parse). The writer takes ownership of out: it closes it
 * in fl_avro_writer_close or aborts it in fl_avro_writer_abort / on failure
 * of fl_avro_writer_open. */
FL_API fl_status fl_avro_writer_open(fl_output *out, const char *schema_json, size_t schema_len,
                                     const fl_avro_writer_options *opts, fl_avro_writer **w,
                                     fl_error *err);
FL_API const fl_avro_schema *fl_avro_writer_schema(const fl_avro_writer *w);
FL_API fl_status fl_avro_writer_append(fl_avro_writer *w, const fl_avro_value *v, fl_error *err);
/* Appends one already-encoded datum. */
FL_API fl_status fl_avro_writer_append_raw(fl_avro_writer *w, const void *datum, size_t len,
                                           fl_error *err);
/* Flushes, closes (commits) the output and frees w (also on failure). */
FL_API fl_status fl_avro_writer_close(fl_avro_writer *w, fl_error *err);
FL_API void fl_avro_writer_abort(fl_avro_writer *w); /* NULL allowed */

/* Codec name -> supported? (null, deflate, snappy, zstandard; bzip2 if loadable) */
FL_API bool fl_avro_codec_supported(const char *name);

#ifdef __cplusplus
}
#endif
#endif
