/*
 * stdin_file.h - `-` as an input file: stdin copied to a temporary file.
 *
 * Parquet readers seek to the footer and `floe load` re-reads its inputs
 * (type inference, then the typed pass), so a pipe is spooled to a regular
 * file in $TMPDIR (else /tmp) first. The file's suffix follows its first
 * bytes (PAR1 -> .parquet, Obj\\1 -> .avro, '{' or '[' -> .jsonl, else .csv), so format
 * detection by extension keeps working without --format.
 */
#ifndef FLOE_CLI_STDIN_FILE_H
#define FLOE_CLI_STDIN_FILE_H

#include <stddef.h>

/* Copies all of stdin to a new temporary file. Returns its malloc'd path,
 * or NULL after printing "floe CMD: stdin: <why>" to stderr. */
char *cli_stdin_spool(const char *cmd);

/* Replaces the first argv[i] that is "-" (i >= from) by a spooled copy of
 * stdin. Returns 1 when replaced (*spooled then owns the path: release it
 * after the command ran), 0 when there is none, -1 after printing why. */
int cli_stdin_arg(int argc, char **argv, int from, const char *cmd, char **spooled);

/* Rewrites each spooled path in msg ("/tmp/floe-stdin-XXXXXX.csv") as
 * "stdin", in place, so messages name what the user gave. */
void cli_stdin_scrub(char *msg);

/* Unlinks and frees a path from cli_stdin_spool (NULL is fine). */
void cli_stdin_release(char *path);

#endif
