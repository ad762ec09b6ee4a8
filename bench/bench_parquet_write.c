/*
 * bench_parquet_write.c - writes a TPC-H lineitem-like table (16 columns:
 * integers, decimal(15,2), dates, low- and high-cardinality strings) to a
 * Parquet file with the floe writer and reports the time spent generating
 * batches and the time spent in the writer.
 *
 *   bench_parquet_write [rows=6000000] [out=/tmp/floe-lineitem.parquet] [codec=zstd]
 *
 * The same data can be produced in DuckDB for a comparison of COPY times:
 *   bench_parquet_write --duckdb-sql [rows]   prints the equivalent SQL.
 * Values come from a 64-bit mix of the row number, so both sides generate
 * the same distributions (not the same bytes: DuckDB's hash differs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "floe/io.h"
#include "floe/parquet.h"
#include "floe/types.h"
#include "floe/vector.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static const char *const WORDS[] = {
    "furiously",   "carefully", "quickly", "slyly",    "blithely",     "final",       "ironic",
    "regular",     "express",   "pending", "deposits", "requests",     "accounts",    "packages",
    "theodolites", "foxes",     "pinto",   "beans",    "instructions", "dependencies"};
static const char *const INSTRUCT[] = {"DELIVER IN PERSON", "COLLECT COD", "NONE",
                                       "TAKE BACK RETURN"};
static const char *const MODES[] = {"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"};
static const char *const FLAGS[] = {"A", "N", "R"};
static const char *const STATUS[] = {"O", "F"};

#define NCOL 16
static fl_field fields[NCOL];

static void schema(fl_schema *s)
{
    const char *names[NCOL] = {"l_orderkey",    "l_partkey",       "l_suppkey",  "l_linenumber",
                               "l_quantity",    "l_extendedprice", "l_discount", "l_tax",
                               "l_returnflag",  "l_linestatus",    "l_shipdate", "l_commitdate",
                               "l_receiptdate", "l_shipinstruct",  "l_shipmode", "l_comment"};
    fl_type_id ids[NCOL] = {FL_TYPE_INT64,   FL_TYPE_INT64,   FL_TYPE_INT64,   FL_TYPE_INT32,
                            FL_TYPE_DECIMAL, FL_TYPE_DECIMAL, FL_TYPE_DECIMAL, FL_TYPE_DECIMAL,
                            FL_TYPE_STRING,  FL_TYPE_STRING,  FL_TYPE_DATE,    FL_TYPE_DATE,
                            FL_TYPE_DATE,    FL_TYPE_STRING,  FL_TYPE_STRING,  FL_TYPE_STRING};
    for (int i = 0; i < NCOL; i++) {
        memset(&fields[i], 0, sizeof fields[i]);
        fields[i].name = names[i];
        fields[i].field_id = i + 1;
        fields[i].nullable = false;
        fields[i].type.id = ids[i];
        if (ids[i] == FL_TYPE_DECIMAL) {
            fields[i].type.precision = 15;
            fields[i].type.scale = 2;
        }
    }
    s->nfields = NCOL;
    s->fields = fields;
    s->schema_id = 0;
}

static fl_status fill(fl_batch *b, uint64_t first, uint32_t n, fl_error *err)
{
    fl_batch_reset(b);
    for (int c = 0; c < NCOL; c++)
        FL_TRY(fl_vector_reserve(&b->cols[c], n, err));
    int64_t *ok = (int64_t *)(void *)b->cols[0].data, *pk = (int64_t *)(void *)b->cols[1].data,
            *sk = (int64_t *)(void *)b->cols[2].data;
    int32_t *ln = (int32_t *)(void *)b->cols[3].data;
    fl_i128 *q = (fl_i128 *)(void *)b->cols[4].data, *ep = (fl_i128 *)(void *)b->cols[5].data,
            *dc = (fl_i128 *)(void *)b->cols[6].data, *tx = (fl_i128 *)(void *)b->cols[7].data;
    int32_t *sd = (int32_t *)(void *)b->cols[10].data, *cd = (int32_t *)(void *)b->cols[11].data,
            *rd = (int32_t *)(void *)b->cols[12].data;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t r = first + i, h = mix(r);
        ok[i] = (int64_t)(r / 4 + 1);
        pk[i] = (int64_t)(h % 200000 + 1);
        sk[i] = (int64_t)((h >> 20) % 10000 + 1);
        ln[i] = (int32_t)(r % 4 + 1);
        int64_t qty = (int64_t)((h >> 8) % 50 + 1);
        q[i] = qty * 100;
        ep[i] = qty * (int64_t)(90000 + (h >> 30) % 20000);
        dc[i] = (int64_t)((h >> 40) % 11);
        tx[i] = (int64_t)((h >> 44) % 9);
        int32_t ship = 8035 + (int32_t)((h >> 12) % 2526);
        sd[i] = ship;
        cd[i] = ship + (int32_t)((h >> 16) % 60) - 30;
        rd[i] = ship + 1 + (int32_t)((h >> 24) % 30);
    }
    for (int c = 0; c < NCOL; c++)
        if (fields[c].type.id != FL_TYPE_STRING)
            b->cols[c].len = n;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t h = mix(first + i);
        const char *f = FLAGS[(h >> 5) % 3], *s = STATUS[(h >> 7) % 2];
        const char *in = INSTRUCT[(h >> 9) % 4], *m = MODES[(h >> 11) % 7];
        FL_TRY(fl_vector_append_bytes(&b->cols[8], f, 1, err));
        FL_TRY(fl_vector_append_bytes(&b->cols[9], s, 1, err));
        FL_TRY(fl_vector_append_bytes(&b->cols[13], in, strlen(in), err));
        FL_TRY(fl_vector_append_bytes(&b->cols[14], m, strlen(m), err));
        char comment[64];
        size_t len = 0;
        uint64_t w = mix(h);
        int nw = 2 + (int)(w % 4);
        for (int k = 0; k < nw; k++) {
            const char *word = WORDS[(w >> (8 + 5 * k)) % 20];
            size_t wl = strlen(word);
            if (len + wl + 1 > 43)
                break;
            if (len)
                comment[len++] = ' ';
            memcpy(comment + len, word, wl);
            len += wl;
        }
        FL_TRY(fl_vector_append_bytes(&b->cols[15], comment, len, err));
    }
    b->nrows = n;
    return FL_OK;
}

static void duckdb_sql(uint64_t rows)
{
    printf(
        "COPY (SELECT (r // 4 + 1)::BIGINT l_orderkey, (h %% 200000 + 1)::BIGINT l_partkey, "
        "((h >> 20) %% 10000 + 1)::BIGINT l_suppkey, (r %% 4 + 1)::INT l_linenumber, "
        "(((h >> 8) %% 50) + 1)::DECIMAL(15,2) l_quantity, "
        "((((h >> 8) %% 50) + 1) * (900 + (h >> 30) %% 200))::DECIMAL(15,2) l_extendedprice, "
        "(((h >> 40) %% 11) / 100)::DECIMAL(15,2) l_discount, (((h >> 44) %% 9) / "
        "100)::DECIMAL(15,2) l_tax, "
        "['A','N','R'][(h >> 5) %% 3 + 1] l_returnflag, ['O','F'][(h >> 7) %% 2 + 1] l_linestatus, "
        "DATE '1992-01-01' + ((h >> 12) %% 2526)::INT l_shipdate, "
        "DATE '1992-01-01' + ((h >> 12) %% 2526)::INT + ((h >> 16) %% 60)::INT - 30 l_commitdate, "
        "DATE '1992-01-01' + ((h >> 12) %% 2526)::INT + 1 + ((h >> 24) %% 30)::INT l_receiptdate, "
        "['DELIVER IN PERSON','COLLECT COD','NONE','TAKE BACK RETURN'][(h >> 9) %% 4 + 1] "
        "l_shipinstruct, "
        "['REG AIR','AIR','RAIL','SHIP','TRUCK','MAIL','FOB'][(h >> 11) %% 7 + 1] l_shipmode, "
        "array_to_string(list_transform(range(2 + (h %% 4)::INT), k -> "
        "['furiously','carefully','quickly','slyly','blithely','final','ironic','regular','express'"
        ","
        "'pending','deposits','requests','accounts','packages','theodolites','foxes','pinto','"
        "beans',"
        "'instructions','dependencies'][((h >> (8 + 5 * k)) %% 20)::INT + 1]), ' ') l_comment "
        "FROM (SELECT range r, (hash(range) >> 1)::BIGINT h FROM range(%llu))) TO "
        "'/tmp/duck-lineitem.parquet' "
        "(FORMAT parquet, COMPRESSION zstd)\n",
        (unsigned long long)rows);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--duckdb-sql")) {
        duckdb_sql(argc > 2 ? strtoull(argv[2], NULL, 10) : 6000000);
        return 0;
    }
    uint64_t rows = argc > 1 ? strtoull(argv[1], NULL, 10) : 6000000;
    const char *path = argc > 2 ? argv[2] : "/tmp/floe-lineitem.parquet";
    fl_parquet_write_options opt = {0};
    if (argc > 3) {
        opt.codec_set = true;
        if (!strcmp(argv[3], "snappy"))
            opt.codec = FL_PARQUET_SNAPPY;
        else if (!strcmp(argv[3], "none"))
            opt.codec = FL_PARQUET_UNCOMPRESSED;
        else if (!strcmp(argv[3], "lz4"))
            opt.codec = FL_PARQUET_LZ4_RAW;
        else
            opt.codec = FL_PARQUET_ZSTD;
    }
    fl_schema s;
    schema(&s);
    fl_error err = {0};
    fl_fileio *io = fl_fileio_local();
    fl_output *out = NULL;
    fl_parquet_writer *w = NULL;
    fl_batch b;
    if (!io || fl_fileio_create(io, path, FL_CREATE_OVERWRITE, &out, &err) != FL_OK ||
        fl_parquet_writer_open(out, &s, &opt, &w, &err) != FL_OK ||
        fl_batch_init(&b, &s, &err) != FL_OK) {
        fprintf(stderr, "bench: %s\n", err.msg);
        return 1;
    }
    double gen = 0, write = 0, t0 = now();
    for (uint64_t r = 0; r < rows; r += FL_BATCH_CAP) {
        uint32_t n = (uint32_t)(rows - r < FL_BATCH_CAP ? rows - r : FL_BATCH_CAP);
        double a = now();
        if (fill(&b, r, n, &err) != FL_OK)
            goto fail;
        double m = now();
        if (fl_parquet_writer_write(w, &b, &err) != FL_OK)
            goto fail;
        gen += m - a;
        write += now() - m;
    }
    double c0 = now();
    fl_parquet_file_result res;
    if (fl_parquet_writer_close(w, &res, &err) != FL_OK) {
        w = NULL;
        goto fail;
    }
    w = NULL;
    if (fl_output_close(out, &err) != FL_OK) {
        out = NULL;
        goto fail;
    }
    out = NULL;
    write += now() - c0;
    printf("rows %llu  file %s  size %.1f MiB  row groups %u\n", (unsigned long long)rows, path,
           (double)res.file_size / 1048576.0, res.nsplit_offsets);
    printf("generate %.3f s  write %.3f s  total %.3f s\n", gen, write, now() - t0);
    fl_parquet_file_result_free(&res);
    fl_batch_destroy(&b);
    fl_fileio_destroy(io);
    return 0;
fail:
    fprintf(stderr, "bench: %s\n", err.msg);
    fl_parquet_writer_abort(w);
    fl_output_abort(out);
    fl_batch_destroy(&b);
    fl_fileio_destroy(io);
    return 1;
}
