/*
 * source.h - row sources and sinks for `floe convert` and `floe load`: the
 * CSV and JSON lines readers live in libfloe (include/floe/text.h); this
 * header adds the format names and the Parquet and ORC sources of the CLI
 * (cmd_convert.c).
 */
#ifndef FLOE_CLI_SOURCE_H
#define FLOE_CLI_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/error.h"
#include "floe/parquet.h"
#include "floe/text.h"
#include "floe/types.h"
#include "floe/vector.h"

typedef enum fl_file_format {
    FL_FMT_UNKNOWN = 0,
    FL_FMT_CSV,
    FL_FMT_JSONL,
    FL_FMT_PARQUET,
    FL_FMT_ORC, /* input only (src/orc is a reader) */
} fl_file_format;

/* By extension (.csv .tsv .jsonl .ndjson .json .parquet .pq .orc), or a --from/--to name. */
fl_file_format fl_file_format_from_path(const char *path);
bool fl_file_format_parse(const char *name, fl_file_format *out);

fl_status fl_source_open(const char *path, fl_file_format fmt, const fl_source_options *opt,
                         fl_source **out, fl_error *err);
/* The Parquet reader behind a Parquet source (kv metadata etc.), else NULL. */
fl_parquet_reader *fl_source_parquet(fl_source *s);

#endif
