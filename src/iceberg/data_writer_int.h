/*
 * data_writer_int.h - the data writer's state, shared by data_writer.c (rows
 * to partitions to files) and data_writer_sort.c (sorted flushes).
 */
#ifndef FLOE_ICE_DATA_WRITER_INT_H
#define FLOE_ICE_DATA_WRITER_INT_H

#include "iceberg/write_internal.h"

#define ICE_MAX_SRC_DEPTH 16

/* A source column: struct child indices from the top level. */
typedef struct src_path {
    uint32_t depth;
    uint32_t idx[ICE_MAX_SRC_DEPTH];
} src_path;

typedef struct pfield {
    fl_ice_transform t;
    src_path path;
} pfield;

typedef struct sfield {
    fl_ice_transform t;
    src_path path;
    bool desc, nulls_first;
} sfield;

/* One partition: its tuple, buffered rows and open file. */
typedef struct part {
    uint64_t hash;
    uint8_t *key;
    size_t keylen;
    fl_value *values; /* the partition tuple (bytes in the writer arena) */
    const char *dir;  /* directory of its files */
    fl_batch *chunks; /* buffered rows, FLAT, table schema (malloc) */
    uint32_t nchunks, capchunks;
    uint64_t bytes; /* estimated bytes of the chunks before the last */
    uint64_t rows;  /* buffered rows */
    fl_output *out; /* open file, or NULL */
    fl_parquet_writer *pw; /* the open file's writer: Parquet, */
    fl_orc_writer *ow;     /* or ORC (write.format.default=orc) */
    const char *path;
    uint64_t last_use;
    uint32_t id; /* its index in the writer's parts */
} part;

static inline bool ice_part_open(const part *p)
{
    return p->pw || p->ow;
}

struct fl_ice_data_writer {
    ice_writer_config cfg;
    fl_arena arena;
    const fl_ice_metadata *m;
    fl_schema schema;
    const fl_ice_partition_spec *spec;
    int32_t sort_order_id;
    pfield *pf;
    uint32_t npf;
    sfield *sf;
    uint32_t nsf;
    fl_parquet_write_options popt;
    bool orc; /* data files are ORC */
    fl_orc_write_options oopt;
    fl_kv_pair kv[1];
    const char *data_dir;
    char uuid[37];
    uint32_t file_seq;
    fl_value *vals; /* scratch tuple */
    uint8_t *key;   /* scratch key (malloc) */
    size_t keylen, keycap;
    part **parts;
    uint32_t nparts, capparts;
    uint32_t *table; /* open addressing: indices into parts, UINT32_MAX = empty */
    uint32_t tcap;
    uint64_t tick;
    uint32_t open_files;
    fl_ice_data_file *files; /* finished files (malloc array; strings in out_arena) */
    uint32_t nfiles, capfiles;
    bool failed;
    /* scratch of one write (malloc): each live row's partition, the rows
     * grouped by partition, and per partition its count then its cursor */
    uint32_t *row_part, *grouped, *per_part;
    uint32_t cap_rows, cap_parts;
};

/* The value of source column p at row `row` of b (null when a parent struct is null). */
void ice_source_value(const fl_batch *b, const src_path *p, uint32_t row, fl_value *out);
fl_status ice_finish_file(fl_ice_data_writer *w, part *p, fl_error *err);
fl_status ice_write_to_file(fl_ice_data_writer *w, part *p, const fl_batch *b, fl_error *err);
void ice_part_drop_chunks(part *p);
/* Estimated in-memory bytes of a batch, and of a partition's buffered rows. */
uint64_t ice_batch_bytes(const fl_batch *b);
uint64_t ice_part_bytes(const part *p);
/* Sorted mode: flush p's buffered rows as sorted file(s). */
fl_status ice_sorted_flush(fl_ice_data_writer *w, part *p, fl_error *err);
/* Sorted mode: flush partitions over the target size, and the largest ones
 * while the buffers exceed max_buffer_bytes. */
fl_status ice_sorted_maybe_flush(fl_ice_data_writer *w, fl_error *err);

#endif
