/*
 * fuzz_text.c - the CSV and JSON-lines readers (src/text) over arbitrary
 * bytes: schema inference, then every batch, for both formats and with and
 * without a header row. The readers take a path, so the input is written to
 * a per-process temporary file first.
 *
 * Byte 0 selects the format (bit 0: CSV or JSON lines), the CSV header mode
 * (bit 1) and the delimiter (bits 2-3: ',', '\t', ';', '|').
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "floe/text.h"

static void drain(fl_source *src)
{
    fl_batch b;
    fl_error err;
    if (fl_batch_init(&b, fl_source_schema(src), &err) != FL_OK)
        return;
    bool eof = false;
    for (int i = 0; i < 64 && !eof; i++)
        if (fl_source_next(src, &b, &eof, &err) != FL_OK)
            break;
    fl_batch_destroy(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 65536)
        return 0;
    char path[64];
    snprintf(path, sizeof path, "/tmp/fuzz_text_%d.%s", (int)getpid(), (data[0] & 1) ? "jsonl" : "csv");
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(data + 1, 1, size - 1, f);
    fclose(f);
    static const char delims[4] = {',', '\t', ';', '|'};
    fl_source_options o;
    memset(&o, 0, sizeof o);
    o.no_header = (data[0] & 2) != 0;
    o.delimiter = delims[(data[0] >> 2) & 3];
    fl_source *src = NULL;
    fl_error err;
    fl_status rc = (data[0] & 1) ? fl_jsonl_source_open(path, &o, &src, &err)
                                 : fl_csv_source_open(path, &o, &src, &err);
    if (rc == FL_OK) {
        drain(src);
        fl_source_close(src);
    }
    unlink(path);
    return 0;
}
