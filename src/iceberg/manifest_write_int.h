/*
 * manifest_write_int.h - shared by the manifest and manifest-list writers:
 * Avro schema text (manifest_schema.c), a small Avro binary encoder and a
 * byte-counting fl_output wrapper (manifest_encode.c).
 */
#ifndef FLOE_ICEBERG_MANIFEST_WRITE_INT_H
#define FLOE_ICEBERG_MANIFEST_WRITE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/avro.h"
#include "floe/ice_manifest.h"

/* The partition tuple of one spec: names, field ids and result types. */
typedef struct ice_part_layout {
    uint32_t n;
    const char **names;
    int32_t *ids;
    fl_type *types;
} ice_part_layout;

/* Schema JSON (malloc'd, NUL-terminated; NULL + err on failure). */
char *ice_manifest_entry_schema(int format_version, const ice_part_layout *pl, fl_error *err);
char *ice_manifest_list_schema(int format_version, fl_error *err);
bool ice_avro_name_valid(const char *name);
/* Bytes of the Avro fixed holding a decimal of this precision (minBytes). */
int ice_decimal_size(int precision);

/* Avro binary encoder over a growable buffer; `oom` latches allocation failure. */
typedef struct ice_enc {
    fl_avro_buf b;
    bool oom;
} ice_enc;

void ice_enc_long(ice_enc *e, int64_t v);
void ice_enc_raw(ice_enc *e, const void *p, size_t n);
void ice_enc_bytes(ice_enc *e, const void *p, size_t n); /* length + bytes */
void ice_enc_str(ice_enc *e, const char *s);
static inline void ice_enc_null(ice_enc *e)
{
    ice_enc_long(e, 0);
} /* ["null", T] branch 0 */
static inline void ice_enc_some(ice_enc *e)
{
    ice_enc_long(e, 1);
} /* branch 1 */
void ice_enc_opt_long(ice_enc *e, bool present, int64_t v);

/* Wraps out so that the total bytes written land in *total when the output
 * is closed successfully. Takes ownership of out (aborted on failure). */
fl_status ice_counting_output(fl_output *out, uint64_t *total, fl_output **wrapped, fl_error *err);

/* Encodes partition value v (of type t, or null) as ["null", avro(t)]. */
fl_status ice_enc_partition_value(ice_enc *e, const fl_value *v, const fl_type *t, fl_error *err);

#endif
