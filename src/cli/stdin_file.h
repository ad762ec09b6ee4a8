/*
 * stdin_file.h - `-` as an input file: stdin copied to a temporary file.
 *
 * Parquet readers seek to the footer and `floe load` re-reads its inputs
 * (type inference, then the typed pass), so a pipe is spooled to a regular
 * file in $TMPDIR (else /tmp) first. The file's suffix follows its first
 * bytes (PAR1 -> .parquet, '{' or '[' -> .jsonl, else .csv), so format
 * detection by extension keeps working without --format.
 */
#ifndef FLOE_CLI_STDIN_FILE_H
#define FLOE_CLI_STDIN_FILE_H

/* Copies all of stdin to a new temporary file. Returns its malloc'd path,
 * or NULL after printing "floe CMD: stdin: <why>" to stderr. */
char *cli_stdin_spool(const char *cmd);

/* Unlinks and frees a path from cli_stdin_spool (NULL is fine). */
void cli_stdin_release(char *path);

#endif
