/*
 * cli.h - the floe command-line tool: one entry point per subcommand.
 *
 * Each command gets argv with argv[0] = its own name ("parquet", "avro" ...)
 * and returns the process exit status: 0 success, 1 failure (message already
 * printed to stderr as "floe <cmd>: <message>"), 2 usage error. Options
 * are parsed, and --help printed, from each command's table (opts.h).
 */
#ifndef FLOE_CLI_H
#define FLOE_CLI_H

#include <stdio.h>
#include <string.h>

#include "floe/s3.h"

int fl_cmd_parquet(int argc, char **argv); /* cmd_parquet.c */
int fl_cmd_avro(int argc, char **argv);    /* cmd_avro.c */
int fl_cmd_orc(int argc, char **argv);     /* cmd_orc.c */
int fl_cmd_convert(int argc, char **argv); /* cmd_convert.c */
int fl_cmd_table(int argc, char **argv);   /* cmd_table.c */
int fl_cmd_load(int argc, char **argv);    /* cmd_load.c */
int fl_cmd_admin(int argc, char **argv);   /* cmd_admin.c */
int fl_cmd_sql(int argc, char **argv);     /* cmd_sql.c */
int fl_cmd_ingest(int argc, char **argv);  /* cmd_ingest.c */
int fl_cmd_maintain(int argc, char **argv); /* cmd_maintain.c */

/* The FileIO of file commands: local paths, and s3:// paths through the S3
 * FileIO configured from the environment. NULL only when out of memory.
 * Free with fl_fileio_destroy(). */
static inline fl_fileio *cli_fileio(void)
{
    fl_fileio *io = NULL;
    fl_error err = {0};
    return fl_fileio_default(NULL, &io, &err) == FL_OK ? io : NULL;
}

/* "floe CMD: unknown option 'OPT'"; returns 2, the usage-error status. For
 * the dispatchers of commands made of subcommands: options themselves are
 * parsed against each command's table (opts.h), which says the same. */
static inline int cli_unknown_option(const char *cmd, const char *opt)
{
    fprintf(stderr, "floe %s: unknown option '%s' (see floe %s --help)\n", cmd, opt, cmd);
    return 2;
}

#endif
