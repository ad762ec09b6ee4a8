/*
 * input.c - a text file read front to back through FileIO (input.h): chunked
 * read_at calls into one buffer, bytes and lines handed out from it.
 */
#include "text/input.h"

#include <stdlib.h>
#include <string.h>

fl_status text_input_open(text_input *in, fl_fileio *io, const char *path, fl_error *err)
{
    memset(in, 0, sizeof *in);
    if (!io) {
        in->own_io = fl_fileio_local();
        if (!in->own_io)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        io = in->own_io;
    }
    in->buf = malloc(TEXT_CHUNK);
    if (!in->buf)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    return fl_fileio_open(io, path, &in->f, err);
}

void text_input_fill(text_input *in)
{
    in->pos = in->len = 0;
    if (in->failed || !in->f || in->off >= in->f->size)
        return;
    uint64_t left = in->f->size - in->off;
    size_t n = left < TEXT_CHUNK ? (size_t)left : TEXT_CHUNK;
    if (fl_file_read_at(in->f, in->off, in->buf, n, &in->err) != FL_OK) {
        in->failed = true;
        return;
    }
    in->off += n;
    in->len = n;
}

fl_status text_input_line(text_input *in, fl_buf *line, bool *got, fl_error *err)
{
    fl_buf_reset(line);
    *got = false;
    for (;;) {
        if (in->pos == in->len) {
            text_input_fill(in);
            if (in->failed)
                return fl_errorf(err, in->err.code, "%s", in->err.msg);
            if (in->len == 0)
                return FL_OK;
        }
        const unsigned char *s = in->buf + in->pos;
        size_t avail = in->len - in->pos;
        const unsigned char *nl = memchr(s, '\n', avail);
        size_t take = nl ? (size_t)(nl - s) : avail;
        if (fl_buf_append(line, s, take, err) != FL_OK)
            return fl_error_prefix(err, "%s: line too long", in->f->path);
        in->pos += take + (nl != NULL);
        *got = true;
        if (nl)
            return FL_OK;
    }
}

void text_input_close(text_input *in)
{
    fl_file_close(in->f);
    free(in->buf);
    fl_fileio_destroy(in->own_io);
    memset(in, 0, sizeof *in);
}
