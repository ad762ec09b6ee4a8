/*
 * avro_internal.h - helpers shared by the files of src/avro/: the growable
 * byte buffer, JSON string escaping, zigzag varints, default limits.
 */
#ifndef FLOE_AVRO_INTERNAL_H
#define FLOE_AVRO_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/avro.h"

#define AVRO_DEFAULT_MAX_DEPTH 200
#define AVRO_DEFAULT_MAX_ITEMS ((size_t)64 << 20)
#define AVRO_DEFAULT_MAX_BLOCK ((size_t)256 << 20)

/* Appends n bytes; false when out of memory. */
bool avro_buf_put(fl_avro_buf *b, const void *p, size_t n);
bool avro_buf_puts(fl_avro_buf *b, const char *s);
bool avro_buf_putc(fl_avro_buf *b, char c);
/* Appends s[0..n) as a quoted JSON string (escapes only ", \ and controls;
 * invalid UTF-8 bytes are written as \u00XX of the byte). */
bool avro_buf_json_str(fl_avro_buf *b, const char *s, size_t n);
/* Appends the shortest text that round-trips d (as a JSON number). */
bool avro_buf_double(fl_avro_buf *b, double d);
/* Appends zigzag varint. */
bool avro_buf_long(fl_avro_buf *b, int64_t v);

/* Reads a zigzag varint from buf[*pos..len). Returns 0 on success, -1 when
 * truncated, -2 when longer than 10 bytes / overflowing 64 bits. */
int avro_read_long(const uint8_t *buf, size_t len, size_t *pos, int64_t *out);

void avro_limits_fill(const fl_avro_limits *in, fl_avro_limits *out);

/* Parses a "default" JSON text into a value of schema s (resolve.c uses it
 * for missing fields). Avro rule: a union default is for its first branch. */
fl_status avro_value_from_default(fl_arena *a, const fl_avro_schema *s, const char *json,
                                  fl_avro_value *out, fl_error *err);

/* bzip2 via a run-time loaded libbz2.so.1.0 (no link-time dependency). */
bool avro_bzip2_available(void);
fl_status avro_bzip2_decompress(const uint8_t *src, size_t src_len, uint8_t **dst, size_t *dst_cap,
                                size_t *dst_len, size_t max_len, fl_error *err);
fl_status avro_bzip2_compress(const uint8_t *src, size_t src_len, fl_avro_buf *out, fl_error *err);

#endif
