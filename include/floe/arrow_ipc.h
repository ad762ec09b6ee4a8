/*
 * arrow_ipc.h - an Arrow IPC *stream* writer (Columnar.rst, "IPC Streaming
 * Format") over floe batches, used by the HTTP SQL endpoint
 * (Accept: application/vnd.apache.arrow.stream). Implementation:
 * src/sql/session/arrow_ipc.c (flatbuffers encoded by hand, no library).
 *
 * A stream is: one Schema message, zero or more RecordBatch messages, the
 * end-of-stream marker. Each function appends complete messages to an
 * fl_ipc_buf (a growable byte buffer the caller drains and may reset).
 *
 * Type mapping (floe -> Arrow): BOOLEAN Bool, INT32/INT64 Int(32/64,
 * signed), FLOAT32/64 FloatingPoint(SINGLE/DOUBLE), DECIMAL(P,S)
 * Decimal(P,S,128), DATE Date(DAY), TIME Time(MICROSECOND,64), TIMESTAMP
 * Timestamp(MICROSECOND), TIMESTAMPTZ Timestamp(MICROSECOND,"UTC"), *_NS
 * the same with NANOSECOND, STRING Utf8, BINARY Binary, UUID
 * FixedSizeBinary(16) with extension name "arrow.uuid", FIXED(L)
 * FixedSizeBinary(L), STRUCT Struct_, LIST List, MAP Map (entries struct of
 * key, value). Offsets are 32-bit (a batch whose string bytes exceed 2 GiB
 * is refused with FL_ELIMIT).
 */
#ifndef FLOE_SQL_ARROW_IPC_H
#define FLOE_SQL_ARROW_IPC_H

#include "floe/export.h"

#include <stddef.h>
#include <stdint.h>

#include "floe/error.h"
#include "floe/types.h"
#include "floe/vector.h"

typedef struct fl_ipc_buf {
    uint8_t *p; /* malloc'd; freed by fl_ipc_buf_free */
    size_t len, cap;
} fl_ipc_buf;

FL_API void fl_ipc_buf_free(fl_ipc_buf *b);

/* Appends the Schema message for schema. */
FL_API fl_status fl_arrow_ipc_schema(const fl_schema *schema, fl_ipc_buf *out, fl_error *err);
/* Appends one RecordBatch message with the live rows of b (selection applied,
 * any vector encoding). */
FL_API fl_status fl_arrow_ipc_batch(const fl_schema *schema, const fl_batch *b, fl_ipc_buf *out,
                                    fl_error *err);
/* Appends the end-of-stream marker (0xFFFFFFFF 0x00000000). */
FL_API fl_status fl_arrow_ipc_eos(fl_ipc_buf *out, fl_error *err);

#endif
