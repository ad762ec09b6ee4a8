/*
 * input.h - sequential reading of one text file through FileIO (private to
 * src/text).
 *
 * The CSV and JSON-lines sources read a file front to back; FileIO offers
 * ranged reads (read_at). A text_input turns one into the other: it opens
 * the path on an fl_fileio and refills a fixed chunk buffer with read_at
 * calls of at most TEXT_CHUNK bytes, so every object store and the
 * fault-injecting FileIO serve text files as they serve Parquet.
 *
 * Ownership: the input owns its fl_file and buffer; the FileIO is borrowed,
 * unless the caller passed NULL, in which case the input makes a local
 * FileIO and owns it. text_input_close() frees everything and is safe on a
 * zeroed or half-opened input.
 */
#ifndef FLOE_TEXT_INPUT_H
#define FLOE_TEXT_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/buf.h"
#include "floe/error.h"
#include "floe/io.h"

enum { TEXT_CHUNK = 1 << 20 };

typedef struct text_input {
    fl_fileio *own_io; /* made here when the caller passed none */
    fl_file *f;
    uint64_t off;       /* file offset of the next chunk */
    unsigned char *buf; /* TEXT_CHUNK bytes */
    size_t len, pos;    /* valid bytes in buf, next byte to hand out */
    bool failed;        /* a read failed: err holds why; reads then return EOF */
    fl_error err;
} text_input;

/* Opens path on io (NULL = the local filesystem). */
fl_status text_input_open(text_input *in, fl_fileio *io, const char *path, fl_error *err);

/* Refills buf with the next chunk; in->len == 0 afterwards means end of file
 * or a failed read (in->failed, in->err). */
void text_input_fill(text_input *in);

/* Bytes of the file handed out so far, and the file's size (progress). */
static inline uint64_t text_input_consumed(const text_input *in)
{
    return in->off - (uint64_t)(in->len - in->pos);
}
static inline uint64_t text_input_size(const text_input *in)
{
    return in->f ? in->f->size : 0;
}

/* Next byte (0..255) or -1 at end of file or after a failed read. */
static inline int text_input_getc(text_input *in)
{
    if (in->pos == in->len) {
        text_input_fill(in);
        if (in->len == 0)
            return -1;
    }
    return in->buf[in->pos++];
}

/* The next line, without its '\n' (a final line may lack one), into line
 * (reset first; its ceiling bounds the line: FL_ELIMIT beyond it). *got
 * false at end of file. Fails on a read error. */
fl_status text_input_line(text_input *in, fl_buf *line, bool *got, fl_error *err);

void text_input_close(text_input *in);

#endif
