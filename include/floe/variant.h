/*
 * variant.h - semi-structured values in the Parquet Variant binary encoding
 * (parquet-format VariantEncoding.md; Iceberg v3 `variant`): reading them,
 * building them, JSON text in and out, and paths ($.a.b[0]).
 *
 * A variant is two byte strings: the metadata (a dictionary of object keys)
 * and the value (a tree of primitives, objects and arrays whose objects name
 * their keys by dictionary id). floe keeps one variant as ONE byte string,
 * the metadata immediately followed by the value: the metadata's header and
 * last offset give its length, so nothing else is needed to split them.
 * Vectors of BINARY with ext FL_EXT_VARIANT hold values in this form.
 *
 * Reading never trusts the bytes: every accessor checks the offsets and
 * sizes it uses against the bytes it was given and fails with FL_ECORRUPT
 * and a message naming the byte offset (from the start of the value) where
 * the encoding is broken. Nesting deeper than FL_VARIANT_MAX_DEPTH is
 * refused (FL_ELIMIT) wherever a function recurses. Accessors are shallow
 * (they look at one container level), so reading one path of a large value
 * costs that path, not the value; fl_variant_validate walks everything.
 *
 * Ownership: fl_variant and fl_variant_meta borrow the caller's bytes and
 * allocate nothing. A fl_variant points at its fl_variant_meta, which must
 * outlive it. The builder owns its buffers (fl_vb_free).
 */
#ifndef FLOE_VARIANT_H
#define FLOE_VARIANT_H

#include "floe/export.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/arena.h"
#include "floe/buf.h"
#include "floe/error.h"
#include "floe/types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FL_VARIANT_MAX_DEPTH 128

/* What a value is. Primitive kinds carry the spec's primitive type id (a
 * short string is FL_VK_STRING); objects and arrays come after them. */
typedef enum fl_variant_kind {
    FL_VK_NULL = 0,
    FL_VK_TRUE = 1,
    FL_VK_FALSE = 2,
    FL_VK_INT8 = 3,
    FL_VK_INT16 = 4,
    FL_VK_INT32 = 5,
    FL_VK_INT64 = 6,
    FL_VK_DOUBLE = 7,
    FL_VK_DECIMAL4 = 8,
    FL_VK_DECIMAL8 = 9,
    FL_VK_DECIMAL16 = 10,
    FL_VK_DATE = 11,         /* int32 days since 1970-01-01 */
    FL_VK_TIMESTAMP = 12,    /* int64 microseconds since epoch, UTC-adjusted */
    FL_VK_TIMESTAMP_NTZ = 13, /* int64 microseconds, no zone */
    FL_VK_FLOAT = 14,
    FL_VK_BINARY = 15,
    FL_VK_STRING = 16,
    FL_VK_TIME = 17,            /* int64 microseconds since midnight, no zone */
    FL_VK_TIMESTAMP_NS = 18,    /* int64 nanoseconds, UTC-adjusted */
    FL_VK_TIMESTAMP_NTZ_NS = 19, /* int64 nanoseconds, no zone */
    FL_VK_UUID = 20,            /* 16 bytes, big-endian */
    FL_VK_OBJECT = 32,
    FL_VK_ARRAY = 33,
} fl_variant_kind;

/* "null", "boolean", "int8", ..., "decimal16", "timestamp_ntz_nanos",
 * "uuid", "object", "array": the spec's names for each kind (true and false
 * are both "boolean"). */
FL_API const char *fl_variant_kind_name(fl_variant_kind k);

/* The metadata: a version-1 header, then the key dictionary. */
typedef struct fl_variant_meta {
    const uint8_t *bytes; /* first byte of the metadata */
    size_t len;           /* its exact length (header .. end of the last key) */
    uint32_t nkeys;
    uint8_t offset_size; /* 1..4 */
    bool sorted;         /* keys unique and in byte order (binary search allowed) */
    const uint8_t *offsets; /* nkeys + 1 offsets of offset_size bytes */
    const uint8_t *keys;    /* key bytes, offsets are relative to this */
} fl_variant_meta;

/* One value (a whole variant or a part of one). */
typedef struct fl_variant {
    const fl_variant_meta *meta;
    const uint8_t *p; /* the value's header byte */
    size_t len;       /* bytes available from p (at least the value's size) */
} fl_variant;

/* A primitive value decoded. */
typedef struct fl_variant_scalar {
    fl_variant_kind kind;
    union {
        bool b;         /* TRUE/FALSE */
        int64_t i;      /* INT8..INT64, DATE, TIME, TIMESTAMP* */
        double d;       /* DOUBLE */
        float f;        /* FLOAT */
        fl_i128 dec;    /* DECIMAL*: unscaled */
        const uint8_t *bytes; /* STRING (UTF-8), BINARY, UUID (16 bytes) */
    } v;
    int32_t scale; /* DECIMAL*: 0..38 */
    size_t len;    /* STRING, BINARY: byte length; UUID: 16 */
} fl_variant_scalar;

/* ---- reading ---- */

/* Parses metadata from p (n bytes available; trailing bytes are allowed and
 * not part of it: m->len says where it ends). Checks the version (1), the
 * offsets (monotonic, within n). */
FL_API fl_status fl_variant_meta_open(const uint8_t *p, size_t n, fl_variant_meta *m,
                                      fl_error *err);
/* Key id's bytes (not NUL-terminated); false when id >= nkeys. */
FL_API bool fl_variant_meta_key(const fl_variant_meta *m, uint32_t id, const char **key,
                                size_t *klen);
/* Finds a key's id (binary search when sorted, else a linear scan). */
FL_API bool fl_variant_meta_find(const fl_variant_meta *m, const char *key, size_t klen,
                                 uint32_t *id);

/* Splits a floe variant (metadata then value, n bytes in all) into m and v.
 * The value must end exactly at p + n (checked from its own sizes, shallowly:
 * the top level's size; fl_variant_validate checks everything below). */
FL_API fl_status fl_variant_open(const uint8_t *p, size_t n, fl_variant_meta *m, fl_variant *v,
                                 fl_error *err);

/* Kind of v from its header byte; FL_ECORRUPT for an empty value or an
 * unknown primitive type id. */
FL_API fl_status fl_variant_kind_of(const fl_variant *v, fl_variant_kind *kind, fl_error *err);
/* Exact byte size of v (the header plus what it covers), checked <= v->len. */
FL_API fl_status fl_variant_size(const fl_variant *v, size_t *size, fl_error *err);
/* Decodes a primitive; FL_ETYPE if v is an object or array. */
FL_API fl_status fl_variant_scalar_of(const fl_variant *v, fl_variant_scalar *out, fl_error *err);

/* Number of fields of an object or elements of an array (FL_ETYPE otherwise). */
FL_API fl_status fl_variant_count(const fl_variant *v, uint32_t *n, fl_error *err);
/* Element i of an array (i < count). */
FL_API fl_status fl_variant_array_at(const fl_variant *v, uint32_t i, fl_variant *out,
                                     fl_error *err);
/* Field i of an object, in the object's order (by key bytes). */
FL_API fl_status fl_variant_object_at(const fl_variant *v, uint32_t i, const char **key,
                                      size_t *klen, fl_variant *out, fl_error *err);
/* Field named key of an object; *found false (FL_OK) when absent. */
FL_API fl_status fl_variant_object_find(const fl_variant *v, const char *key, size_t klen,
                                        bool *found, fl_variant *out, fl_error *err);

/* Walks the whole value: sizes, offsets, key ids within the dictionary,
 * object keys strictly increasing, UTF-8 of strings and keys, depth. */
FL_API fl_status fl_variant_validate(const fl_variant *v, fl_error *err);
/* fl_variant_open + fl_variant_validate on a floe variant's bytes. */
FL_API fl_status fl_variant_check(const uint8_t *p, size_t n, fl_error *err);

/* Structural equality as the spec defines it: same kinds and values, objects
 * equal as key -> value maps whatever their ids or dictionaries, and the
 * integer kinds equal by value (int8 1 == int64 1), as are the decimals
 * (equal value and scale). */
FL_API fl_status fl_variant_equal(const fl_variant *a, const fl_variant *b, bool *equal,
                                  fl_error *err);

/* ---- JSON ---- */

/* Appends v as JSON text: objects in key order, strings escaped, numbers
 * exact (decimals as written, doubles shortest round-trip, NaN/Infinity as
 * strings), DATE "2025-04-16", TIME "12:33:54.123456", TIMESTAMP
 * "2025-04-16 12:34:56.78+00:00", TIMESTAMP_NTZ without the zone,
 * BINARY base64, UUID "f24f9b64-81fa-...": Spark's to_json. */
FL_API fl_status fl_variant_to_json(const fl_variant *v, fl_buf *out, fl_error *err);

/* Parses JSON text (n bytes) and appends the floe variant (metadata then
 * value) to out. Integers become the smallest int kind that holds them;
 * numbers with a fraction and at most 38 significant digits (no exponent)
 * become the smallest decimal; others doubles (Spark's parse_json). Errors:
 * FL_ESYNTAX naming the character position; duplicate keys in an object are
 * an error too; nesting beyond FL_VARIANT_MAX_DEPTH is FL_ELIMIT. */
FL_API fl_status fl_variant_from_json(const char *s, size_t n, fl_buf *out, fl_error *err);

/* ---- building ---- */

/* Builds one variant at a time: values are appended in document order
 * (a key before each object field's value), containers open and close, and
 * fl_vb_finish appends metadata + value. Objects are sorted by key at
 * close; duplicate keys are an error. Offsets and ids use the fewest bytes
 * that hold them. */
typedef struct fl_variant_builder {
    fl_buf value;  /* value bytes being built */
    fl_buf keys;   /* dictionary key bytes */
    uint32_t *key_off; /* nkeys + 1 offsets into keys */
    uint32_t nkeys, key_cap;
    uint32_t *hash; /* open addressing: key id + 1, 0 = empty */
    uint32_t hash_cap;
    uint32_t nseeded; /* keys that came from fl_vb_seed_meta */
    const uint8_t *seeded_meta; /* bytes of the seeded metadata (raw copies allowed) */
    bool seeded_sorted;
    /* open containers: a stack of frames; each records where its children
     * start in `value` and, for objects, the (key id, start) of each field */
    struct fl_vb_frame *frames;
    uint32_t depth, frame_cap;
    struct fl_vb_item *items; /* children of all open containers, stacked */
    uint32_t nitems, item_cap;
    int32_t pending_key; /* key id set by fl_vb_key for the next value, -1 none */
} fl_variant_builder;

FL_API void fl_vb_init(fl_variant_builder *b);
FL_API void fl_vb_free(fl_variant_builder *b);
/* Forgets the value and the dictionary, keeps the memory. */
FL_API void fl_vb_reset(fl_variant_builder *b);
/* Starts from an existing dictionary: its keys keep their ids, new keys are
 * added after them. Values copied with fl_vb_copy whose meta has these same
 * bytes are copied without renumbering. */
FL_API fl_status fl_vb_seed_meta(fl_variant_builder *b, const fl_variant_meta *m, fl_error *err);

FL_API fl_status fl_vb_scalar(fl_variant_builder *b, const fl_variant_scalar *s, fl_error *err);
/* Copies a value, renumbering its object keys into b's dictionary. */
FL_API fl_status fl_vb_copy(fl_variant_builder *b, const fl_variant *v, fl_error *err);
FL_API fl_status fl_vb_begin_object(fl_variant_builder *b, fl_error *err);
/* The key of the next value (inside an object only). */
FL_API fl_status fl_vb_key(fl_variant_builder *b, const char *key, size_t klen, fl_error *err);
FL_API fl_status fl_vb_end_object(fl_variant_builder *b, fl_error *err);
FL_API fl_status fl_vb_begin_array(fl_variant_builder *b, fl_error *err);
FL_API fl_status fl_vb_end_array(fl_variant_builder *b, fl_error *err);
/* Appends metadata then value of the one complete top-level value to out,
 * then resets b. FL_EINVAL if containers are open or no value was added. */
FL_API fl_status fl_vb_finish(fl_variant_builder *b, fl_buf *out, fl_error *err);
/* The same, but metadata and value to separate buffers (Parquet columns). */
FL_API fl_status fl_vb_finish_split(fl_variant_builder *b, fl_buf *meta, fl_buf *value,
                                    fl_error *err);

/* ---- paths ---- */

/* A path as Spark's variant_get and Snowflake write it: "$", then steps
 * ".name", "['name']" / "[\"name\"]" (any bytes, \\ and the quote escaped),
 * "[3]". A path not starting with '$' is read as if "$." preceded it. */
typedef struct fl_variant_step {
    bool is_index;
    uint32_t index;
    const char *key; /* is_index false: key bytes (arena), not NUL-terminated */
    size_t klen;
} fl_variant_step;

typedef struct fl_variant_path {
    uint32_t nsteps;
    fl_variant_step *steps;
} fl_variant_path;

/* Parses a path into a (steps in arena a). FL_ESYNTAX naming the position. */
FL_API fl_status fl_variant_path_parse(fl_arena *a, const char *s, size_t n, fl_variant_path *out,
                                       fl_error *err);
/* Follows a path; *found false (FL_OK) when a key is absent, an index is out
 * of range, or a step meets a value of the other container kind or a
 * primitive (Spark: NULL). */
FL_API fl_status fl_variant_path_get(const fl_variant *v, const fl_variant_path *path,
                                     bool *found, fl_variant *out, fl_error *err);

#ifdef __cplusplus
}
#endif

#endif
