/*
 * opts.h - one option parser and one help printer for every floe command.
 *
 * A command declares a static table of its options (cli_opt rows, indexed by
 * an enum of the command's own) inside a cli_command that also says its
 * name, synopsis and how many positional arguments it takes. cli_parse()
 * reads argv against that table and cli_usage() prints `--help` from the
 * same table, so the help cannot drift from the parser.
 *
 * Syntax, the same for every command:
 *   --name value, --name=value     an option taking a value
 *   -x value, -xvalue              its short form, when it has one
 *   --flag, -x                     a flag; short flags bundle (-At = -A -t)
 *   --                             ends the options: the rest is positional
 *   -                              a positional (stdin or stdout), as is a
 *                                  negative number such as -5
 * A value is taken verbatim, even when it starts with '-' (-c "-- note").
 * An option not marked repeatable may still be given twice: the last wins.
 *
 * Errors print one line on stderr and make the command exit 2:
 *   floe CMD: unknown option '--bogus' (see floe CMD --help)
 *   floe CMD: --name needs a value
 *   floe CMD: --flag takes no value
 *   floe CMD: unexpected argument 'x'
 *   and a missing positional prints the synopsis on stderr.
 * --help / -h (where it is not an option's value) prints the usage on stdout
 * and the command exits 0. What comes first on the command line wins: an
 * unknown option before --help is an error, --help before it is the help.
 *
 * The parse keeps pointers into argv and allocates only the cli_args arrays
 * (cli_args_free). No state outside the caller's cli_args, no exit().
 */
#ifndef FLOE_CLI_OPTS_H
#define FLOE_CLI_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* One option of a command. */
typedef struct cli_opt {
    const char *name;  /* long name without "--" ("format"), or NULL for a short-only option */
    char short_name;   /* 'o' for -o, or 0 */
    const char *value; /* placeholder of its value ("FILE"), or NULL for a flag */
    bool repeat;       /* every value is kept (the help says "repeatable") */
    const char *help;  /* what it does; '\n' continues on an aligned line */
} cli_opt;

/* The positional count that means "any number". */
#define CLI_ANY (-1)

/* A command (or subcommand) and its option table. */
typedef struct cli_command {
    const char *name;     /* "avro cat": messages say "floe avro cat: ..." */
    const char *synopsis; /* usage lines after "floe ", '\n'-separated; a line that starts
                             with a space continues the one before */
    const char *about;    /* a paragraph between the synopsis and the options, or NULL */
    const cli_opt *opts;
    size_t nopts;
    int min_args, max_args; /* positional arguments: at least, at most (CLI_ANY) */
    const char *notes;      /* text after the options, or NULL */
} cli_command;

/* The number of rows of a static option table. */
#define CLI_NOPTS(table) (sizeof(table) / sizeof((table)[0]))

/* One option as given, in command-line order. */
typedef struct cli_given {
    int opt;           /* index into the command's table */
    const char *value; /* NULL for a flag */
} cli_given;

/* What a parse found. */
typedef struct cli_args {
    const cli_command *cmd;
    char **pos; /* positional arguments in order ("-" included) */
    int npos;
    cli_given *given; /* every option, in command-line order */
    int ngiven;
    const char **values; /* the values grouped by option (cli_values) */
    int *first, *count;  /* per option: where its values start, how many */
} cli_args;

/* Parses argv[1..argc) (argv[0] is the command's own name). Returns true
 * when the command should run with *a (free it with cli_args_free) and
 * *status is 0. Else *status is the exit status to return: 0 after the help was printed, 2
 * after a usage error was printed, 1 when out of memory. */
bool cli_parse(const cli_command *c, int argc, char **argv, cli_args *a, int *status);
void cli_args_free(cli_args *a);

/* Whether option opt (an index into the table) was given. */
bool cli_has(const cli_args *a, int opt);
/* Its last value, or NULL when it was not given (or is a flag). */
const char *cli_value(const cli_args *a, int opt);
/* Every value of opt in order; *n is their count (0: NULL returned). */
const char *const *cli_values(const cli_args *a, int opt, int *n);

/* The index of the option with long name `name` in c's table, or -1. */
int cli_find(const cli_command *c, const char *name);

/* `--help`: the synopsis, the about text, one aligned line per option
 * (and -h, --help), the notes. */
void cli_usage(const cli_command *c, FILE *out);
/* Only the synopsis lines ("usage: floe ..."), for a usage error. */
void cli_usage_synopsis(const cli_command *c, FILE *out);
/* The synopses of several forms of one command, under one "usage:". */
void cli_usage_synopses(const cli_command *const *cmds, size_t n, FILE *out);
/* The option lines of c under a "heading:" line (nothing when it has none),
 * for the help of a command made of subcommands. */
void cli_usage_options(const cli_command *c, const char *heading, FILE *out);
/* The help of a command made of subcommands: every subcommand's synopsis,
 * about (may be NULL), then each subcommand's options under "SUB options:". */
void cli_usage_subs(const cli_command *const *subs, size_t nsubs, const char *about, FILE *out);

/* A usage error of c: "floe NAME: <message>" on stderr; returns 2. */
int cli_usage_error(const cli_command *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
