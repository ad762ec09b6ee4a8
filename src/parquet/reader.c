/*
 * reader.c - opens a Parquet file: tail, footer, schema.
 *
 * File layout (parquet-format README):
 *     "PAR1" <column chunks...> <FileMetaData, Thrift compact> <uint32 LE footer length> "PAR1"
 * An encrypted footer ends in "PARE" instead (not supported).
 *
 * We read a speculative tail of up to FL_PQ_TAIL_READ bytes in one ranged
 * read; when the footer fits in it (the usual case) that is the only round
 * trip, otherwise one more ranged read fetches exactly the footer. The
 * footer is decoded into the reader's arena (parquet_meta.h) and the schema
 * mapped to floe types (schema_read.c). Every error names the file.
 */
#include <stdlib.h>
#include <string.h>

#include "parquet/reader_int.h"

static fl_status validate(fl_parquet_reader *r, fl_error *err)
{
    const fl_pq_file_meta *m = &r->meta;
    FL_CHECK(!m->encryption_algorithm_set, err, FL_EUNSUPPORTED,
             "encrypted Parquet files are not supported");
    FL_CHECK(m->num_rows >= 0, err, FL_ECORRUPT, "negative row count %lld", (long long)m->num_rows);
    for (uint32_t g = 0; g < m->nrow_groups; g++) {
        const fl_pq_row_group *rg = &m->row_groups[g];
        FL_CHECK(rg->ncolumns == r->nleaves, err, FL_ECORRUPT,
                 "row group %u has %u column chunks, the schema has %u leaf columns", g,
                 rg->ncolumns, r->nleaves);
        FL_CHECK(rg->num_rows >= 0, err, FL_ECORRUPT, "row group %u: negative row count", g);
        for (uint32_t c = 0; c < rg->ncolumns; c++) {
            FL_CHECK(!rg->columns[c].encrypted, err, FL_EUNSUPPORTED,
                     "encrypted column chunks are not supported (column '%s')", r->leaves[c].path);
            FL_CHECK(rg->columns[c].file_path == NULL, err, FL_EUNSUPPORTED,
                     "column '%s' lives in another file (%s): not supported", r->leaves[c].path,
                     rg->columns[c].file_path);
        }
    }
    return FL_OK;
}

static fl_status open_impl(fl_parquet_reader *r, fl_error *err)
{
    fl_file *f = r->file;
    uint64_t size = f->size;
    FL_CHECK(size >= 12, err, FL_ECORRUPT, "not a Parquet file (%llu bytes is too small)",
             (unsigned long long)size);
    size_t tail = size < FL_PQ_TAIL_READ ? (size_t)size : FL_PQ_TAIL_READ;
    uint8_t *buf = malloc(tail);
    if (!buf)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_status st = fl_file_read_at(f, size - tail, buf, tail, err);
    if (st != FL_OK) {
        free(buf);
        return st;
    }
    const uint8_t *end = buf + tail;
    if (memcmp(end - 4, "PAR1", 4) != 0) {
        bool enc = memcmp(end - 4, "PARE", 4) == 0;
        free(buf);
        if (enc)
            return fl_errorf(err, FL_EUNSUPPORTED,
                             "encrypted Parquet footer (PARE) is not supported");
        return fl_errorf(err, FL_ECORRUPT, "not a Parquet file (bad magic)");
    }
    if (tail == size && memcmp(buf, "PAR1", 4) != 0) {
        free(buf);
        return fl_errorf(err, FL_ECORRUPT, "not a Parquet file (bad magic at the start)");
    }
    const uint8_t *lp = end - 8;
    uint32_t flen =
        (uint32_t)lp[0] | (uint32_t)lp[1] << 8 | (uint32_t)lp[2] << 16 | (uint32_t)lp[3] << 24;
    if ((uint64_t)flen > size - 12) {
        free(buf);
        return fl_errorf(err, FL_ECORRUPT, "footer length %u beyond file size %llu", flen,
                         (unsigned long long)size);
    }
    r->footer_start = size - 8 - flen;
    r->meta_len = flen;
    const uint8_t *footer;
    uint8_t *fbuf = NULL;
    if ((size_t)flen + 8 <= tail) {
        footer = end - 8 - flen;
    } else {
        fbuf = malloc(flen);
        if (!fbuf) {
            free(buf);
            return fl_errorf(err, FL_ENOMEM, "out of memory for a %u-byte footer", flen);
        }
        st = fl_file_read_at(f, r->footer_start, fbuf, flen, err);
        if (st != FL_OK) {
            free(buf);
            free(fbuf);
            return st;
        }
        footer = fbuf;
    }
    st = fl_pq_decode_file_meta(footer, flen, &r->arena, &r->meta, err);
    free(buf);
    free(fbuf);
    if (st != FL_OK)
        return fl_error_prefix(err, "footer");
    if (r->meta.encryption_algorithm_set)
        return fl_errorf(err, FL_EUNSUPPORTED, "encrypted Parquet files are not supported");
    FL_TRY(fl_pq_schema_build(r, err));
    return validate(r, err);
}

fl_status fl_parquet_open(fl_file *f, const fl_parquet_read_options *opt, fl_parquet_reader **out,
                          fl_error *err)
{
    *out = NULL;
    FL_CHECK(f != NULL, err, FL_EINVAL, "fl_parquet_open: no file");
    fl_parquet_reader *r = calloc(1, sizeof *r);
    if (!r)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    r->file = f;
    if (opt)
        r->opt = *opt;
    fl_arena_init(&r->arena, 0);
    fl_status st = open_impl(r, err);
    if (st != FL_OK) {
        fl_error_prefix(err, "%s", f->path ? f->path : "(parquet)");
        fl_parquet_close(r);
        return st;
    }
    *out = r;
    return FL_OK;
}

void fl_parquet_close(fl_parquet_reader *r)
{
    if (!r)
        return;
    fl_arena_free(&r->arena);
    free(r);
}

/* A shallow copy of base: meta, schema, nodes and leaves stay in base's
 * arena; the copy's own arena is empty (nothing is decoded into it). */
fl_status fl_parquet_open_shared(const fl_parquet_reader *base, fl_file *f,
                                 fl_parquet_reader **out, fl_error *err)
{
    *out = NULL;
    FL_CHECK(base != NULL && f != NULL, err, FL_EINVAL, "fl_parquet_open_shared: no file");
    if (f->size != base->footer_start + 8 + (base->meta_len))
        return fl_errorf(err, FL_ECORRUPT, "%s: file size %llu differs from the cached footer's",
                         f->path ? f->path : "(parquet)", (unsigned long long)f->size);
    fl_parquet_reader *r = malloc(sizeof *r);
    if (!r)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    *r = *base;
    r->file = f;
    fl_arena_init(&r->arena, 0);
    *out = r;
    return FL_OK;
}

void fl_parquet_detach(fl_parquet_reader *r)
{
    if (r)
        r->file = NULL;
}

size_t fl_parquet_reader_bytes(const fl_parquet_reader *r)
{
    return sizeof *r + r->arena.total;
}

const fl_schema *fl_parquet_schema(const fl_parquet_reader *r)
{
    return &r->schema;
}
int64_t fl_parquet_num_rows(const fl_parquet_reader *r)
{
    return r->meta.num_rows;
}
uint32_t fl_parquet_num_row_groups(const fl_parquet_reader *r)
{
    return r->meta.nrow_groups;
}
const struct fl_pq_file_meta *fl_parquet_footer(const fl_parquet_reader *r)
{
    return &r->meta;
}
