/*
 * fuzz_parquet_file.c - libFuzzer target: treats the input as a whole Parquet
 * file (memory FileIO), opens it with CRC checks on and off, and scans every
 * column to the end, twice: all columns, then with a predicate and small
 * batches so page-index pruning and row skipping run too; then the first
 * row group as two row-range slices (the second by restarting the scan), as
 * the SQL scan splits big row groups. Any outcome is fine
 * except a crash, a sanitizer report, a leak or a hang.
 */
#include <stdint.h>
#include <string.h>

#include "floe/io.h"
#include "floe/parquet.h"
#include "floe/parquet_meta.h"

static void scan(fl_parquet_reader *r, const fl_parquet_scan_options *o)
{
    fl_error e;
    fl_parquet_scan *s = NULL;
    if (fl_parquet_scan_open(r, o, &s, &e) != FL_OK)
        return;
    fl_batch b;
    if (fl_batch_init(&b, fl_parquet_scan_schema(s), &e) == FL_OK) {
        for (int i = 0; i < 100000; i++) {
            bool eof = false;
            if (fl_parquet_scan_next(s, &b, &eof, &e) != FL_OK || eof)
                break;
        }
        fl_batch_destroy(&b);
    }
    fl_parquet_scan_close(s);
}

/* Rows [0, n/2) then, restarted, [n/2, n) of row group 0. */
static void scan_slices(fl_parquet_reader *r)
{
    const fl_pq_file_meta *m = fl_parquet_footer(r);
    if (m->nrow_groups == 0 || m->row_groups[0].num_rows < 2)
        return;
    int64_t n = m->row_groups[0].num_rows, half = n / 2;
    uint32_t rg = 0;
    fl_parquet_scan_options o = {
        .row_groups = &rg, .nrow_groups = 1, .row_lo = 0, .row_hi = half, .batch_rows = 5};
    fl_error e;
    fl_parquet_scan *s = NULL;
    if (fl_parquet_scan_open(r, &o, &s, &e) != FL_OK)
        return;
    fl_batch b;
    if (fl_batch_init(&b, fl_parquet_scan_schema(s), &e) == FL_OK) {
        bool ok = true;
        for (int pass = 0; pass < 2 && ok; pass++) {
            if (pass == 1)
                ok = fl_parquet_scan_restart_rows(s, 0, half, n, &e) == FL_OK;
            for (int i = 0; ok && i < 100000; i++) {
                bool eof = false;
                if (fl_parquet_scan_next(s, &b, &eof, &e) != FL_OK || eof)
                    break;
            }
        }
        fl_batch_destroy(&b);
    }
    fl_parquet_scan_close(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fl_error e;
    fl_file *f = NULL;
    if (fl_file_from_memory(data, size, "fuzz.parquet", &f, &e) != FL_OK)
        return 0;
    fl_parquet_read_options ro = {.verify_crc = size & 1, .max_page_size = 64u << 20};
    fl_parquet_reader *r = NULL;
    if (fl_parquet_open(f, &ro, &r, &e) == FL_OK) {
        scan(r, NULL);
        const fl_schema *sc = fl_parquet_schema(r);
        if (sc->nfields > 0 && sc->fields[0].type.id == FL_TYPE_INT32) {
            fl_col_pred t = {.column = sc->fields[0].name, .op = FL_CMP_GE};
            t.value.type.id = FL_TYPE_INT32;
            t.value.v.i32 = 3;
            fl_predicate p = {.nterms = 1, .terms = &t};
            fl_parquet_scan_options o = {.predicate = &p, .filter_rows = true, .batch_rows = 7};
            scan(r, &o);
        }
        scan_slices(r);
        fl_parquet_close(r);
    }
    fl_file_close(f);
    return 0;
}
