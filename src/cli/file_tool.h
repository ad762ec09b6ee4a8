/*
 * file_tool.h - the `floe parquet` / `floe orc` front door: one dispatcher
 * for the tools that read one file format with schema, meta and cat.
 */
#ifndef FLOE_CLI_FILE_TOOL_H
#define FLOE_CLI_FILE_TOOL_H

#include "cli/opts.h"

typedef struct cli_file_tool {
    const char *name;       /* "parquet": messages say "floe parquet ..." */
    const char *about;      /* what schema, meta and cat show, for `floe NAME --help` */
    const cli_command *cat; /* `floe NAME cat FILE [options]`: its option table */
    int (*run_cat)(const char *path, const cli_args *a);
    int (*schema)(const char *path);
    int (*meta)(const char *path);
} cli_file_tool;

/* Runs `floe NAME schema|meta FILE` or `floe NAME cat FILE [options]`; FILE
 * `-` is stdin, spooled to a file (the readers seek to the file's tail).
 * Returns the exit status. */
int cli_file_tool_main(const cli_file_tool *t, int argc, char **argv);

/* Prints f and its children as the schema commands do ("  name: type not null (id 3)"). */
struct fl_field;
void cli_print_floe_field(const struct fl_field *f, int depth);

#endif
