/*
 * single.c - Avro single-object encoding (spec: "Single-object encoding"):
 *
 *   2 bytes   marker C3 01
 *   8 bytes   CRC-64-AVRO fingerprint of the writer schema's Parsing
 *             Canonical Form, little-endian
 *   rest      the datum in the binary encoding
 *
 * Used for messages (e.g. Kafka payloads) rather than files.
 */
#include <inttypes.h>
#include <string.h>

#include "avro/avro_internal.h"

uint64_t fl_avro_schema_fingerprint(const fl_avro_schema *s)
{
    fl_arena a;
    fl_arena_init(&a, 4096);
    const char *c = fl_avro_schema_canonical(&a, s);
    uint64_t fp = c ? fl_avro_crc64(c, strlen(c)) : 0;
    fl_arena_free(&a);
    return fp;
}

fl_status fl_avro_single_object_decode(fl_arena *a, const fl_avro_schema *s, const uint8_t *buf,
                                       size_t len, fl_avro_value *out, fl_error *err)
{
    if (len < 10)
        return fl_errorf(err, FL_ECORRUPT,
                         "single-object message of %zu bytes is shorter than its 10-byte header",
                         len);
    if (buf[0] != 0xc3 || buf[1] != 0x01)
        return fl_errorf(err, FL_ECORRUPT,
                         "not an Avro single-object message (marker %02x %02x, want c3 01)", buf[0],
                         buf[1]);
    uint64_t got = 0;
    for (int i = 7; i >= 0; i--)
        got = got << 8 | buf[2 + i];
    uint64_t want = fl_avro_schema_fingerprint(s);
    if (got != want)
        return fl_errorf(err, FL_ETYPE,
                         "message schema fingerprint %016" PRIx64
                         " is not the reader's schema (%016" PRIx64 ")",
                         got, want);
    size_t pos = 10;
    FL_TRY(fl_avro_decode(a, s, buf, len, &pos, 0, NULL, out, err));
    if (pos != len)
        return fl_errorf(err, FL_ECORRUPT, "%zu bytes after the datum at byte offset %zu",
                         len - pos, pos);
    return FL_OK;
}

fl_status fl_avro_single_object_encode(const fl_avro_schema *s, const fl_avro_value *v,
                                       fl_avro_buf *out, fl_error *err)
{
    uint64_t fp = fl_avro_schema_fingerprint(s);
    uint8_t head[10] = {0xc3, 0x01};
    for (int i = 0; i < 8; i++)
        head[2 + i] = (uint8_t)(fp >> (8 * i));
    if (!avro_buf_put(out, head, sizeof head))
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    return fl_avro_encode(s, v, out, err);
}
