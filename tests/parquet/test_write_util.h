/*
 * test_write_util.h - helpers shared by the Parquet writer tests: build
 * schemas and batches, write a file to memory, decode its footer, page
 * indexes and pages with the thrift decoder.
 */
#ifndef FLOE_TEST_WRITE_UTIL_H
#define FLOE_TEST_WRITE_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/arena.h"
#include "floe/io.h"
#include "floe/parquet.h"
#include "floe/types.h"
#include "floe/vector.h"
#include "floe/parquet_meta.h"
#include "parquet/stats.h"
#include "test.h"

static inline fl_field tw_field(const char *name, int32_t id, bool nullable, fl_type_id tid)
{
    fl_field f;
    memset(&f, 0, sizeof f);
    f.name = name;
    f.field_id = id;
    f.nullable = nullable;
    f.type.id = tid;
    if (tid == FL_TYPE_UUID)
        f.type.fixed_len = 16;
    return f;
}

static inline fl_field tw_decimal(const char *name, int32_t id, bool nullable, int p, int s)
{
    fl_field f = tw_field(name, id, nullable, FL_TYPE_DECIMAL);
    f.type.precision = p;
    f.type.scale = s;
    return f;
}

/* A written file in memory plus its decoded footer. */
typedef struct tw_file {
    uint8_t *data;
    size_t len;
    fl_arena arena;
    fl_pq_file_meta meta;
    bool ok;
} tw_file;

static inline void tw_file_free(tw_file *f)
{
    free(f->data);
    fl_arena_free(&f->arena);
    memset(f, 0, sizeof *f);
}

/* Decodes the footer of f->data. */
static inline bool tw_decode(tw_file *f)
{
    fl_error err = {0};
    fl_arena_init(&f->arena, 0);
    if (f->len < 12 || memcmp(f->data, "PAR1", 4) || memcmp(f->data + f->len - 4, "PAR1", 4))
        return false;
    uint32_t flen = (uint32_t)f->data[f->len - 8] | (uint32_t)f->data[f->len - 7] << 8 |
                    (uint32_t)f->data[f->len - 6] << 16 | (uint32_t)f->data[f->len - 5] << 24;
    if ((size_t)flen + 12 > f->len)
        return false;
    fl_status rc =
        fl_pq_decode_file_meta(f->data + f->len - 8 - flen, flen, &f->arena, &f->meta, &err);
    if (rc != FL_OK)
        fprintf(stderr, "footer decode: %s\n", err.msg);
    f->ok = rc == FL_OK;
    return f->ok;
}

typedef fl_status (*tw_fill_fn)(fl_batch *b, uint32_t batch_no, void *ctx, fl_error *err);

/* Writes nbatches batches produced by fill into memory; decodes the footer. */
static inline fl_status tw_write(const fl_schema *s, const fl_parquet_write_options *opt,
                                 uint32_t nbatches, tw_fill_fn fill, void *ctx, tw_file *f,
                                 fl_parquet_file_result *res, fl_error *err)
{
    memset(f, 0, sizeof *f);
    fl_output *out = NULL;
    FL_TRY(fl_output_memory("mem.parquet", &f->data, &f->len, &out, err));
    fl_parquet_writer *w = NULL;
    fl_status rc = fl_parquet_writer_open(out, s, opt, &w, err);
    if (rc != FL_OK) {
        fl_output_abort(out);
        return rc;
    }
    fl_batch b;
    rc = fl_batch_init(&b, s, err);
    for (uint32_t i = 0; rc == FL_OK && i < nbatches; i++) {
        fl_batch_reset(&b);
        rc = fill(&b, i, ctx, err);
        if (rc == FL_OK)
            rc = fl_parquet_writer_write(w, &b, err);
    }
    fl_batch_destroy(&b);
    if (rc != FL_OK) {
        fl_parquet_writer_abort(w);
        fl_output_abort(out);
        return rc;
    }
    rc = fl_parquet_writer_close(w, res, err);
    if (rc != FL_OK) {
        fl_output_abort(out);
        return rc;
    }
    FL_TRY(fl_output_close(out, err));
    const char *dump = getenv("TW_DUMP_DIR"); /* developer aid: keep the files for other readers */
    if (dump) {
        static int counter;
        char path[4096];
        snprintf(path, sizeof path, "%s/%d.parquet", dump, counter++);
        FILE *fp = fopen(path, "wb");
        if (fp) {
            fwrite(f->data, 1, f->len, fp);
            fclose(fp);
        }
    }
    if (!tw_decode(f))
        return fl_errorf(err, FL_ECORRUPT, "written file has no decodable footer");
    return FL_OK;
}

/* Leaf info of leaf column i (schema element e) for stats conversion. */
static inline void tw_leaf_info(const fl_pq_schema_element *e, const fl_type *t,
                                fl_pq_leaf_info *li)
{
    memset(li, 0, sizeof *li);
    li->physical = e->type;
    li->type_length = e->type_length;
    li->logical = &e->logical;
    li->converted = e->converted_type;
    li->scale = e->scale;
    li->precision = e->precision;
    li->order = FL_PQ_ORDER_TYPE_DEFINED;
    li->type = t;
}

/* Finds the schema element with this name (first match). */
static inline const fl_pq_schema_element *tw_elem(const tw_file *f, const char *name)
{
    for (uint32_t i = 0; i < f->meta.nschema; i++)
        if (!strcmp(f->meta.schema[i].name, name))
            return &f->meta.schema[i];
    return NULL;
}

/* Whether fl_bytes b equals the stats encoding of v. */
static inline bool tw_stat_is(const fl_pq_leaf_info *li, fl_pq_bytes b, const fl_value *v)
{
    fl_value got;
    if (!b.ptr || !fl_pq_stat_to_value(li, b, &got))
        return false;
    return fl_value_compare(&got, v) == 0;
}

static inline uint32_t tw_rng(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (uint32_t)(*s >> 33);
}

#endif
