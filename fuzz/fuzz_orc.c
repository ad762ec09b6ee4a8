/*
 * fuzz_orc.c - libFuzzer target: the input is an ORC file. Opens it from
 * memory (PostScript, footer, metadata, type tree), reads every statistic,
 * scans every column of every stripe, then scans the last top-level column
 * of the last stripe alone (another stream layout through the same
 * decoders), and once more with a stripe-pruning predicate on the first
 * column. Every batch must hold nrows rows in every column. Malformed
 * input must only produce an error that names the file; any crash, hang,
 * leak or sanitizer report is a bug. tests/orc/test_orc_fuzz_replay.c
 * replays the seeds and fuzz/regress/orc/ through this function.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "floe/io.h"
#include "floe/orc.h"

#define FUZZ_MAX_BATCHES 64 /* a file may claim 2^63 rows of columns that read no bytes */

static void scan_all(fl_orc_reader *r, const fl_orc_scan_options *opt)
{
    fl_error err = {0};
    fl_orc_scan *s = NULL;
    if (fl_orc_scan_open(r, opt, &s, &err) != FL_OK)
        return;
    fl_batch b;
    if (fl_batch_init(&b, fl_orc_scan_schema(s), &err) != FL_OK) {
        fl_orc_scan_close(s);
        return;
    }
    for (int n = 0; n < FUZZ_MAX_BATCHES; n++) {
        bool eof = false;
        if (fl_orc_scan_next(s, &b, &eof, &err) != FL_OK) {
            if (!strstr(err.msg, "fuzz.orc"))
                abort(); /* every scan error names the file */
            break;
        }
        if (eof)
            break;
        for (uint32_t c = 0; c < b.ncols; c++)
            if (b.cols[c].len != b.nrows)
                abort();
    }
    fl_batch_destroy(&b);
    fl_orc_scan_close(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fl_error err = {0};
    fl_file *f = NULL;
    fl_orc_reader *r = NULL;
    if (fl_file_from_memory(data, size, "fuzz.orc", &f, &err))
        return 0;
    if (fl_orc_open(f, &r, &err) != FL_OK) {
        if (!strstr(err.msg, "fuzz.orc"))
            abort(); /* every open error names the file */
        fl_file_close(f);
        return 0;
    }
    uint32_t ns = fl_orc_num_stripes(r);
    for (uint32_t c = 0; c < fl_orc_num_types(r); c++) {
        (void)fl_orc_kind_name(fl_orc_type_at(r, c)->kind);
        for (int32_t st = -1; st < (int32_t)ns && st < 64; st++)
            (void)fl_orc_column_stats(r, st, c);
    }
    scan_all(r, NULL);
    const fl_schema *fs = fl_orc_schema(r);
    uint32_t nf = fs->nfields;
    if (nf && ns) {
        uint32_t field = nf - 1, stripe = ns - 1;
        fl_orc_scan_options o = {.fields = &field, .nfields = 1, .stripes = &stripe, .nstripes = 1};
        scan_all(r, &o);
        /* stripe pruning: a term on the first column, op and literal from the input */
        fl_col_pred t = {.column = fs->fields[0].name, .op = (fl_cmp_op)(1 + data[0] % 8)};
        t.value.type.id = fs->fields[0].type.id;
        t.value.v.i64 = (int64_t)size - 1000;
        if (t.value.type.id == FL_TYPE_INT32 || t.value.type.id == FL_TYPE_DATE)
            t.value.v.i32 = (int32_t)size - 1000;
        if (t.value.type.id == FL_TYPE_STRING) {
            t.value.v.bytes.ptr = data;
            t.value.v.bytes.len = size < 8 ? size : 8;
        }
        fl_predicate p = {.nterms = 1, .terms = &t};
        fl_orc_scan_options po = {.predicate = &p};
        scan_all(r, &po);
    }
    fl_orc_close(r);
    fl_file_close(f);
    return 0;
}
