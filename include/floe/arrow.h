/*
 * arrow.h - export of floe vectors and batches through the Arrow C Data
 * Interface (https://arrow.apache.org/docs/format/CDataInterface.html).
 *
 * The structs below are the ABI-stable definitions from that document. Export
 * moves buffers out of the floe vectors (no copy) except where Arrow's layout
 * differs: BOOLEAN (bytes -> bits) and MAP (int64 -> int32 offsets) are
 * converted. Type mapping: INT32 "i", INT64 "l", FLOAT32 "f", FLOAT64 "g",
 * DECIMAL "d:P,S", DATE "tdD", TIME "ttu", TIMESTAMP "tsu:", TIMESTAMPTZ
 * "tsu:UTC", *_NS "tsn:"/"tsn:UTC", STRING "U", BINARY "Z", UUID "w:16" with
 * extension "arrow.uuid", FIXED "w:L", STRUCT "+s", LIST "+L", MAP "+m".
 * Field ids travel as field metadata "PARQUET:field_id", as arrow-rs does.
 *
 * Ownership: on success the caller owns the ArrowSchema/ArrowArray and must
 * call their release callbacks; the floe batch is left empty but reusable.
 */
#ifndef FLOE_ARROW_H
#define FLOE_ARROW_H

#include "floe/export.h"

#include <stdint.h>

#include "floe/error.h"
#include "floe/vector.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
    const char *format;
    const char *name;
    const char *metadata;
    int64_t flags;
    int64_t n_children;
    struct ArrowSchema **children;
    struct ArrowSchema *dictionary;
    void (*release)(struct ArrowSchema *);
    void *private_data;
};

struct ArrowArray {
    int64_t length;
    int64_t null_count;
    int64_t offset;
    int64_t n_buffers;
    int64_t n_children;
    const void **buffers;
    struct ArrowArray **children;
    struct ArrowArray *dictionary;
    void (*release)(struct ArrowArray *);
    void *private_data;
};

#endif /* ARROW_C_DATA_INTERFACE */

/* Exports the schema of a batch as a struct ("+s") ArrowSchema. */
FL_API fl_status fl_arrow_export_schema(const fl_schema *schema, struct ArrowSchema *out,
                                        fl_error *err);

/* Exports a batch as a struct ArrowArray (selection applied: selected rows
 * are compacted first). Moves buffers out of b. */
FL_API fl_status fl_arrow_export_batch(fl_batch *b, struct ArrowArray *out, fl_error *err);

#ifdef __cplusplus
}
#endif
#endif
