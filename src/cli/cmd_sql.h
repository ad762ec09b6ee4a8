/*
 * cmd_sql.h - pieces of `floe sql` shared between its files: the result
 * printers (cmd_sql_print.c) and the backslash commands (cmd_sql_meta.c);
 * the shell itself (argument parsing, the read-eval-print loop, scripts) is
 * cmd_sql.c.
 *
 * Output formats (--format / \f):
 *   table   psql's aligned layout: " a | b" header, "---+---" rule, numbers
 *           right-aligned, "(N rows)" footer; \x switches to one
 *           "-[ RECORD n ]" block per row. Widths come from the first
 *           FL_SQLOUT_BUFFER_ROWS rows; later rows reuse them.
 *   csv     RFC 4180 with a header row; NULL is an empty unquoted field, an
 *           empty string is "".
 *   json    one JSON array of objects; jsonl: one object per line. Booleans,
 *           integers, finite floats and decimals are JSON numbers/literals
 *           (decimals exact), nested values use output.h's JSON form,
 *           everything else is the text form as a JSON string.
 *   parquet the rows written with the Parquet writer to the -o / \o file.
 * Value text is fl_sql_format_value() (PostgreSQL's text output).
 *
 * Interactive input (cmd_sql_input.c): prompts through libedit when built
 * with it; Ctrl-C at the prompt clears the input (FL_SQLIN_INTERRUPT), history
 * is saved after every entry.
 *
 * Ownership: printers borrow the FILE, the result and the FileIO.
 */
#ifndef FLOE_CLI_CMD_SQL_H
#define FLOE_CLI_CMD_SQL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "floe/arena.h"
#include "floe/buf.h"
#include "floe/catalog.h"
#include "floe/error.h"
#include "floe/io.h"
#include "floe/sql.h"

#define FL_SQLOUT_BUFFER_ROWS 1000

typedef enum fl_sqlout_format {
    FL_SQLOUT_TABLE = 0,
    FL_SQLOUT_CSV,
    FL_SQLOUT_JSON,
    FL_SQLOUT_JSONL,
    FL_SQLOUT_PARQUET,
    FL_SQLOUT_UNALIGNED, /* psql -A: fields joined by fieldsep, no padding or quoting */
} fl_sqlout_format;

bool fl_sqlout_format_parse(const char *s, fl_sqlout_format *out);
const char *fl_sqlout_format_name(fl_sqlout_format f);

typedef struct fl_sqlout {
    fl_sqlout_format format;
    bool expanded;    /* table: one block per row (\x) */
    bool header;      /* csv/table header (default on) */
    bool tuples_only; /* psql -t: no header and no "(N rows)" footer */
    const char *fieldsep; /* unaligned: between fields (NULL = "|") */
    FILE *out;        /* text formats */
    const char *path; /* parquet: the output file (required) */
    fl_fileio *io;    /* parquet: where path is created */
    const char *tz;   /* session time zone for timestamptz text */
    /* Called after every fetch of the result, before any of it is printed
     * (so must be cheap and idempotent): `floe sql` erases its progress
     * line there (cmd_sql_progress.h). NULL = none. */
    void (*before_output)(void *ctx);
    void *before_output_ctx;
} fl_sqlout;

/* Drains r, printing its rows; *rows gets the number printed. For results
 * without columns nothing is printed. */
fl_status fl_sqlout_result(const fl_sqlout *o, fl_sql_result *r, uint64_t *rows, fl_error *err);

/* Where fl_sqlout_batches() pulls rows from: next() gives batches (owned by
 * the source, valid until the next call; their selection is honoured) until
 * *eof; at most limit rows are printed when has_limit. */
typedef struct fl_sqlout_source {
    fl_status (*next)(void *ctx, const fl_batch **b, bool *eof, fl_error *err);
    void *ctx;
    bool has_limit;
    uint64_t limit;
} fl_sqlout_source;

/* Prints the rows of src (schema `schema`) in o's format: the one value
 * formatter of `floe sql` and `floe table cat`/metadata tables. */
fl_status fl_sqlout_batches(const fl_sqlout *o, const fl_schema *schema,
                            const fl_sqlout_source *src, uint64_t *rows, fl_error *err);

/* The SQL spelling of a column type (bigint, decimal(15,2), timestamp with
 * time zone...) into buf. */
const char *fl_sqlout_type_name(const fl_type *t, char *buf, size_t cap);

/* Backslash commands that read the catalog (cmd_sql_meta.c). cat may be
 * NULL (then they report that there is no catalog). Print to out. */
fl_status fl_sqlmeta_list_namespaces(fl_catalog *cat, FILE *out, fl_error *err);
fl_status fl_sqlmeta_list_tables(fl_catalog *cat, const char *ns, FILE *out, fl_error *err);
fl_status fl_sqlmeta_describe(fl_catalog *cat, const char *table, const char *default_ns, FILE *out,
                              fl_error *err);

/* ---- pager (cmd_sql_pager.c) ---- */

typedef enum fl_sqlpager_mode {
    FL_SQLPAGER_ON = 0, /* when the text is taller or wider than the terminal */
    FL_SQLPAGER_OFF,
    FL_SQLPAGER_ALWAYS,
} fl_sqlpager_mode;

/* Shows len bytes of text on stdout, through the pager when mode asks. */
void fl_sqlpager_show(const char *text, size_t len, fl_sqlpager_mode mode);
/* on / off / always (also 1/0, true/false; empty = on). */
bool fl_sqlpager_mode_parse(const char *s, fl_sqlpager_mode *out);

/* ---- \e (cmd_sql_edit.c) ---- */

/* Edits text (NULL = empty) in a temporary file, or FILE in place when file
 * is not NULL, with the user's editor; *out (malloc'ed) is the file's text
 * afterwards, trailing newlines removed. */
fl_status fl_sqledit(const char *text, const char *file, char **out, fl_error *err);

/* ---- tab completion (cmd_sql_complete.c) ---- */

/* The sorted, unique completions of word (the text before the cursor since
 * the last blank or punctuation; may hold dots) on the input line: SQL
 * keywords, namespaces ("ns."), tables of default_ns, columns of the tables
 * the line names, or after "ns." the tables and namespaces of ns and after
 * "t." / "ns.t." the columns of that table. cat may be NULL. Allocated in a. */
const char **fl_sqlcomplete(fl_catalog *cat, const char *default_ns, const char *line,
                            const char *word, fl_arena *a, uint32_t *n);

/* ---- interactive input (cmd_sql_input.c) ---- */

typedef enum fl_sqlin_status {
    FL_SQLIN_LINE = 0,  /* *line is a malloc'ed line (no newline) */
    FL_SQLIN_INTERRUPT, /* Ctrl-C at the prompt: drop the pending input */
    FL_SQLIN_EOF,       /* Ctrl-D on an empty line, end of input */
} fl_sqlin_status;

typedef struct fl_sqlin {
    bool tty;         /* prompts, Ctrl-C, history (else plain lines) */
    char *hist;       /* history file (owned) or NULL */
    bool hist_warned; /* a failed history write was reported */
} fl_sqlin;

/* Loads the history when tty. */
void fl_sqlin_open(fl_sqlin *in, bool tty);
/* TAB completion (tty only) against cat (may be NULL: keywords only), in the
 * session's search_path, else default_ns. All borrowed until close. */
void fl_sqlin_set_completion(fl_sqlin *in, fl_catalog *cat, fl_sql_session *s,
                             const char *default_ns);
void fl_sqlin_close(fl_sqlin *in);
/* Reads one line, showing prompt on a terminal. */
fl_sqlin_status fl_sqlin_read(fl_sqlin *in, const char *prompt, char **line);
/* Adds an entered statement or backslash command to the history and saves
 * the history file now. */
void fl_sqlin_remember(fl_sqlin *in, const char *entry);

#endif
