/*
 * buf.h - the growable byte buffer, with an optional size ceiling.
 *
 * One buffer type for building strings and byte strings of unknown length:
 * JSON and CSV text, encoded pages, record bytes. Growth is geometric
 * (starting at 256 bytes, doubling), so appends are amortized O(1). After any
 * successful append data[len] is '\0', so text can be used as a C string
 * (binary content may hold NULs of its own). data and bytes name the same
 * pointer, as char * for text and uint8_t * for binary encoders.
 *
 * The ceiling: max > 0 bounds len. An append or reserve that would take len
 * past max fails with FL_ELIMIT and a message naming the ceiling, and leaves
 * the buffer as it was. Use it wherever the size comes from untrusted input.
 * max == 0 means no ceiling (only memory bounds the buffer).
 *
 * Ownership: the buffer owns data (malloc'd); fl_buf_free() releases it and
 * leaves an empty buffer with the same ceiling; fl_buf_detach() hands it to
 * the caller (free()). A zero-initialized fl_buf is a valid empty buffer
 * without a ceiling. Not thread-safe.
 */
#ifndef FLOE_BUF_H
#define FLOE_BUF_H

#include "floe/export.h"

#include <stddef.h>
#include <stdint.h>

#include "floe/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fl_buf {
    union {
        char *data;     /* text view; NULL until the first reserve, NUL-terminated after appends */
        uint8_t *bytes; /* the same bytes, for binary content */
    };
    size_t len; /* bytes in use */
    size_t cap; /* bytes allocated (always > len once allocated: room for the NUL) */
    size_t max; /* ceiling on len; 0 = none */
} fl_buf;

/* An empty buffer whose len may never exceed max (0 = no ceiling). */
FL_API void fl_buf_init(fl_buf *b, size_t max);

/* Makes room for extra more bytes (plus the terminating NUL). */
FL_API fl_status fl_buf_reserve(fl_buf *b, size_t extra, fl_error *err);

FL_API fl_status fl_buf_append(fl_buf *b, const void *p, size_t n, fl_error *err);
FL_API fl_status fl_buf_puts(fl_buf *b, const char *s, fl_error *err);
FL_API fl_status fl_buf_putc(fl_buf *b, char c, fl_error *err);
/* printf-style append; FL_EINVAL for a format vsnprintf rejects. */
FL_API fl_status fl_buf_appendf(fl_buf *b, fl_error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* len = 0, keeping the allocation. */
FL_API void fl_buf_reset(fl_buf *b);

/* Returns data (NULL when never allocated) and empties the buffer; the
 * caller frees the result. */
FL_API char *fl_buf_detach(fl_buf *b, size_t *len);

/* Frees data; the buffer is empty and reusable, with the same ceiling. */
FL_API void fl_buf_free(fl_buf *b);

#ifdef __cplusplus
}
#endif

#endif
