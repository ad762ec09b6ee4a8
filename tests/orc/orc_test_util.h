/*
 * orc_test_util.h - helpers of the ORC unit tests: open a file of
 * tests/orc/data (under $FLOE_SRC), read every row into one vector per
 * projected column (batches appended with fl_vector_append_from), and
 * accessors for single values.
 */
#ifndef FLOE_TEST_ORC_UTIL_H
#define FLOE_TEST_ORC_UTIL_H

#include "floe/orc.h"
#include "test.h"

typedef struct ot_file {
    fl_fileio *io;
    fl_file *file;
    fl_orc_reader *r;
    char path[4096];
} ot_file;

typedef struct ot_table {
    fl_schema schema; /* fields copied from the scan (their contents live in the reader) */
    uint32_t ncols;
    fl_vector *cols;
    uint64_t nrows;
    uint32_t nbatches;
} ot_table;

static inline void ot_path(char *buf, size_t n, const char *name)
{
    const char *src = getenv("FLOE_SRC");
    snprintf(buf, n, "%s/tests/orc/data/%s", src ? src : ".", name);
}

static inline fl_status ot_open(ot_file *f, const char *name, fl_error *e)
{
    memset(f, 0, sizeof *f);
    ot_path(f->path, sizeof f->path, name);
    f->io = fl_fileio_local();
    FL_TRY(fl_fileio_open(f->io, f->path, &f->file, e));
    return fl_orc_open(f->file, &f->r, e);
}

static inline void ot_close(ot_file *f)
{
    fl_orc_close(f->r);
    fl_file_close(f->file);
    fl_fileio_destroy(f->io);
}

static inline void ot_table_free(ot_table *t)
{
    for (uint32_t i = 0; i < t->ncols; i++)
        fl_vector_destroy(&t->cols[i]);
    free(t->cols);
    free(t->schema.fields);
    memset(t, 0, sizeof *t);
}

/* Reads the rows chosen by opt (NULL = all) into t. */
static inline fl_status ot_read(ot_file *f, const fl_orc_scan_options *opt, ot_table *t,
                                fl_error *e)
{
    memset(t, 0, sizeof *t);
    fl_orc_scan *s = NULL;
    FL_TRY(fl_orc_scan_open(f->r, opt, &s, e));
    const fl_schema *sch = fl_orc_scan_schema(s);
    t->ncols = sch->nfields;
    fl_field *fields = calloc(t->ncols + 1, sizeof *fields);
    memcpy(fields, sch->fields, t->ncols * sizeof *fields);
    t->schema.fields = fields;
    t->schema.nfields = t->ncols;
    t->cols = calloc(t->ncols + 1, sizeof *t->cols);
    fl_batch b;
    fl_status rc = fl_batch_init(&b, sch, e);
    for (uint32_t i = 0; i < t->ncols && rc == FL_OK; i++)
        rc = fl_vector_init(&t->cols[i], &fields[i].type, e);
    bool eof = false;
    while (rc == FL_OK && !eof) {
        rc = fl_orc_scan_next(s, &b, &eof, e);
        if (rc != FL_OK || eof)
            break;
        for (uint32_t c = 0; c < t->ncols && rc == FL_OK; c++) {
            if (b.cols[c].len != b.nrows)
                rc = fl_errorf(e, FL_EINVAL, "column %u has %u rows, batch %u", c, b.cols[c].len,
                               b.nrows);
            for (uint32_t i = 0; i < b.nrows && rc == FL_OK; i++)
                rc = fl_vector_append_from(&t->cols[c], &b.cols[c], i, e);
        }
        t->nrows += b.nrows;
        t->nbatches++;
    }
    fl_batch_destroy(&b);
    fl_orc_scan_close(s);
    return rc;
}

static inline int ot_col(const ot_table *t, const char *name)
{
    for (uint32_t i = 0; i < t->ncols; i++)
        if (strcmp(t->schema.fields[i].name, name) == 0)
            return (int)i;
    return -1;
}

static inline bool ot_valid(const fl_vector *v, uint32_t row)
{
    return fl_vector_is_valid(v, row);
}
static inline int32_t ot_i32(const fl_vector *v, uint32_t row)
{
    int32_t x;
    memcpy(&x, v->data + (size_t)row * 4, 4);
    return x;
}
static inline int64_t ot_i64(const fl_vector *v, uint32_t row)
{
    int64_t x;
    memcpy(&x, v->data + (size_t)row * 8, 8);
    return x;
}
static inline fl_i128 ot_i128(const fl_vector *v, uint32_t row)
{
    fl_i128 x;
    memcpy(&x, v->data + (size_t)row * 16, 16);
    return x;
}
static inline bool ot_str_eq(const fl_vector *v, uint32_t row, const void *want, size_t len)
{
    size_t n = 0;
    const uint8_t *p = fl_vector_bytes(v, row, &n);
    return n == len && (len == 0 || memcmp(p, want, len) == 0);
}

#endif
