/*
 * cmd_table_write.h - the writing subcommands of `floe table` (create, drop,
 * evolution, delete, snapshot management, maintenance) and the catalog
 * plumbing they share with `floe load`.
 *
 * The `floe table` dispatcher (cmd_table.c) looks a subcommand up in
 * fl_table_write_commands(); each entry's run gets argv with argv[0] = the
 * subcommand name and returns the exit status (0 ok, 1 failure, 2 usage).
 *
 * Catalog options (every command): --catalog URI (default $FLOE_CATALOG,
 * else sqlite:./warehouse/catalog.db) and --warehouse DIR (default
 * $FLOE_WAREHOUSE, else ./warehouse). Local warehouse paths are made
 * absolute (and created) so table locations stay valid from any directory.
 */
#ifndef FLOE_CLI_CMD_TABLE_WRITE_H
#define FLOE_CLI_CMD_TABLE_WRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "floe/arena.h"
#include "floe/catalog.h"
#include "floe/error.h"
#include "floe/ice_table.h"
#include "floe/io.h"

typedef struct fl_table_write_cmd {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *help; /* one line */
} fl_table_write_cmd;

/* The table of writing subcommands (static storage). */
const fl_table_write_cmd *fl_table_write_commands(size_t *n);
/* Every option of the writing subcommands, as "writing options:" lines
 * (for `floe table --help`). */
void fl_table_write_usage_options(FILE *out);

/* An open catalog with its FileIO. */
typedef struct fl_cli_catalog {
    fl_fileio *io;
    fl_catalog *cat;
    char *warehouse; /* malloc'd absolute path or URI */
} fl_cli_catalog;

/* uri / warehouse may be NULL (environment, then defaults). */
fl_status fl_cli_catalog_open(const char *uri, const char *warehouse, fl_cli_catalog *c,
                              fl_error *err);
/* For read-only commands: a local catalog (sqlite: file, fs: folder) that
 * does not exist is an FL_ENOTFOUND error, and nothing is created. */
fl_status fl_cli_catalog_open_ro(const char *uri, const char *warehouse, fl_cli_catalog *c,
                                 fl_error *err);
void fl_cli_catalog_close(fl_cli_catalog *c);
/* Creates the namespace of id when missing (FL_EEXIST is fine). */
fl_status fl_cli_ensure_namespace(fl_cli_catalog *c, const fl_table_ident *id, fl_error *err);

/* `floe table compact`'s work (cmd_table_compact.c): the table's data files
 * rewritten in x (fl_ice_rewrite_data_files_ex) with a progress line
 * "floe table compact: 3/12 files  41,000 rows" (progress.h), erased
 * before it returns. */
fl_status fl_cli_compact(fl_ice_txn *x, bool force, uint64_t *rewritten, uint64_t *added,
                         fl_error *err);

#endif
