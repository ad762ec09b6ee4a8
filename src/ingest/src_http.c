/*
 * src_http.c - request bodies of the HTTP ingestion endpoint
 * (POST /v1/ingest/{namespace}/{table}, src/server/h_ingest.c) as batches of
 * the table's schema.
 *
 * Formats: NDJSON (one object per line), a JSON array of objects (turned
 * into NDJSON text, one element per line, so "line N" of the JSON-lines
 * reader is record N and is reported so), and CSV with a header. The
 * reading is src/text's CSV and JSON-lines sources over an in-memory FileIO
 * that serves the body as one file named "body"; columns are then matched
 * by name and coerced by the landing-files adapter (adapt.c), so the rules
 * are exactly those of `floe ingest files` and `floe load`.
 *
 * All or nothing: with a sink, the body is converted twice, a first pass
 * that checks every record without writing, then the pass that writes; a
 * bad record is an error naming the line (record) and column before any
 * row reached the sink. A failure in the second pass is the sink's (the
 * caller closes it: nothing of the checkpoint commits).
 *
 * Ownership: the body is borrowed for the call; nothing outlives it.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/text.h"
#include "ingest/ingest_int.h"

#define BODY_NAME "body"

/* ---- a FileIO whose only file is the body ---- */

typedef struct body_io {
    fl_fileio base;
    const void *data;
    size_t len;
} body_io;

static fl_status bio_open(fl_fileio *io, const char *path, fl_file **out, fl_error *err)
{
    body_io *b = (body_io *)io;
    return fl_file_from_memory(b->data, b->len, path, out, err);
}

static fl_status bio_create(fl_fileio *io, const char *path, int flags, fl_output **out,
                            fl_error *err)
{
    (void)io, (void)flags, (void)out;
    return fl_errorf(err, FL_EUNSUPPORTED, "%s: the request body is read-only", path);
}

static fl_status bio_remove(fl_fileio *io, const char *path, fl_error *err)
{
    (void)io;
    return fl_errorf(err, FL_EUNSUPPORTED, "%s: the request body is read-only", path);
}

static fl_status bio_list(fl_fileio *io, const char *prefix,
                          fl_status (*fn)(void *ctx, const char *path, uint64_t size), void *ctx,
                          fl_error *err)
{
    (void)io, (void)fn, (void)ctx;
    return fl_errorf(err, FL_EUNSUPPORTED, "%s: the request body cannot be listed", prefix);
}

static void bio_destroy(fl_fileio *io)
{
    (void)io; /* on the caller's stack */
}

static const fl_fileio_ops BODY_IO_OPS = {bio_open, bio_create, bio_remove, bio_list, bio_destroy};

/* ---- JSON array -> NDJSON ---- */

/* The elements of a JSON array, one compact object per line (malloc'd). */
static fl_status array_to_lines(const void *body, size_t len, char **out, size_t *out_len,
                                fl_error *err)
{
    json_error_t je;
    json_t *arr = json_loadb(body, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
    if (!arr)
        return fl_errorf(err, FL_ESYNTAX, BODY_NAME ": line %d, column %d: %s", je.line, je.column,
                         je.text);
    if (!json_is_array(arr)) {
        json_decref(arr);
        return fl_errorf(err, FL_ESYNTAX, BODY_NAME ": expected a JSON array of objects");
    }
    char *buf = NULL;
    size_t n = 0, cap = 0;
    fl_status rc = FL_OK;
    for (size_t i = 0; rc == FL_OK && i < json_array_size(arr); i++) {
        json_t *e = json_array_get(arr, i);
        if (!json_is_object(e)) {
            rc =
                fl_errorf(err, FL_ESYNTAX, BODY_NAME ": record %zu: expected a JSON object", i + 1);
            break;
        }
        char *s = json_dumps(e, JSON_COMPACT | JSON_ENCODE_ANY);
        size_t sl = s ? strlen(s) : 0;
        if (s && n + sl + 2 > cap) {
            size_t nc = (n + sl + 2) * 2;
            char *nb = realloc(buf, nc);
            if (nb)
                buf = nb, cap = nc;
            else
                free(s), s = NULL;
        }
        if (!s) {
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
            break;
        }
        memcpy(buf + n, s, sl);
        n += sl;
        buf[n++] = '\n';
        free(s);
    }
    json_decref(arr);
    if (rc != FL_OK) {
        free(buf);
        return rc;
    }
    *out = buf;
    *out_len = n;
    return FL_OK;
}

/* "body: line N..." -> "body: record N..." (a JSON array's lines are its records). */
static void line_to_record(fl_error *err)
{
    const char *pre = BODY_NAME ": line ";
    size_t pl = strlen(pre);
    if (strncmp(err->msg, pre, pl) != 0)
        return;
    char tmp[FL_ERROR_MSG_MAX];
    snprintf(tmp, sizeof tmp, BODY_NAME ": record %s", err->msg + pl);
    snprintf(err->msg, sizeof err->msg, "%s", tmp);
}

/* ---- one pass ---- */

static fl_status body_pass(fl_fileio *io, bool csv, const fl_schema *table,
                           const fl_ice_schema *ice, fl_ingest_sink *s, uint64_t *rows,
                           bool *sink_failed, fl_error *err)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_source *src = NULL;
    *rows = 0;
    fl_status rc = ing_open_text(io, BODY_NAME, csv, table, &a, &src, err);
    if (rc == FL_OK)
        rc = ing_pump(src, table, ice, BODY_NAME, true, s, rows, sink_failed, err);
    fl_source_close(src);
    fl_arena_free(&a);
    return rc;
}

static bool blank(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r' && p[i] != '\n')
            return false;
    return true;
}

fl_status fl_ingest_body_write(const fl_schema *table, const fl_ice_schema *ice,
                               fl_ingest_body_format fmt, const void *body, size_t len,
                               fl_ingest_sink *s, uint64_t *rows, fl_error *err)
{
    *rows = 0;
    if (fmt != FL_INGEST_BODY_NDJSON && fmt != FL_INGEST_BODY_JSON && fmt != FL_INGEST_BODY_CSV)
        return fl_errorf(err, FL_EINVAL, BODY_NAME ": unknown format %d", (int)fmt);
    if (fmt != FL_INGEST_BODY_JSON && blank(body, len))
        return FL_OK; /* no records (a CSV without even a header too) */
    char *lines = NULL;
    size_t nlines = 0;
    if (fmt == FL_INGEST_BODY_JSON) {
        FL_TRY(array_to_lines(body, len, &lines, &nlines, err));
        if (!nlines) {
            free(lines);
            return FL_OK; /* [] */
        }
        body = lines, len = nlines;
    }
    body_io io = {.base = {.ops = &BODY_IO_OPS}, .data = body, .len = len};
    bool csv = fmt == FL_INGEST_BODY_CSV, sink_failed = false;
    uint64_t n = 0;
    fl_status rc = body_pass(&io.base, csv, table, ice, NULL, &n, &sink_failed, err);
    if (rc == FL_OK && s)
        rc = body_pass(&io.base, csv, table, ice, s, &n, &sink_failed, err);
    if (rc != FL_OK && fmt == FL_INGEST_BODY_JSON && !sink_failed)
        line_to_record(err);
    if (rc == FL_OK)
        *rows = n;
    free(lines);
    return rc;
}
