/*
 * progress.h - one progress line on stderr for long CLI work (floe load,
 * floe convert): "floe load: orders.csv (2/5) 41% 2,100,000 rows 38 MB/s";
 * and for work counted in files (floe sql's running statement, floe table
 * compact): "floe sql: 12/40 files  3,100,000 rows  41 MB".
 *
 * Shown only when stderr is a terminal (never in logs or pipes), redrawn
 * at most ten times a second and only after the work has run for half a
 * second, and erased when the work ends, so short commands print exactly
 * what they printed before. FLOE_PROGRESS=never turns it off;
 * FLOE_PROGRESS=always draws on every update even without a terminal, each
 * state on its own line (for tests and for logs that want it). A files
 * line is drawn only when its counts changed, so with always the last one
 * drawn holds the final counts and none repeats.
 */
#ifndef FLOE_CLI_PROGRESS_H
#define FLOE_CLI_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct cli_progress {
    bool on, always, drawn;
    const char *cmd;      /* "floe load" */
    double t0, last;      /* seconds (monotonic) */
    uint64_t rows;        /* rows so far, over every item */
    uint32_t item, items; /* 1-based item being read, of items (files) */
    /* the last files line drawn (cli_progress_files) */
    uint64_t files_done, files_total, bytes;
} cli_progress;

void cli_progress_init(cli_progress *p, const char *cmd, uint32_t items);
/* The state while item (1-based) named name is read: done of total units
 * (total 0: unknown), rows read in all so far. */
void cli_progress_update(cli_progress *p, uint32_t item, const char *name, uint64_t done,
                         uint64_t total, uint64_t rows);
/* The state of work counted in files: done of total files, rows and bytes
 * so far (a 0 leaves rows or bytes out). */
void cli_progress_files(cli_progress *p, uint64_t done, uint64_t total, uint64_t rows,
                        uint64_t bytes);
/* Erases the line (terminal) before the command prints its summary. */
void cli_progress_end(cli_progress *p);

#endif
