/*
 * cmd_sql.c - `floe sql`: the SQL shell over sql.h.
 *
 *   floe sql [options]                 interactive (stdin a terminal) or a
 *                                      script read from stdin
 *   floe sql -c SQL [-c SQL]... [-f FILE]...   run them in order, then exit
 *
 * Scripts (-c text, -f files, piped stdin) are split into statements with
 * fl_sql_split() and run one by one; the first error stops the run with exit
 * status 1 (--keep-going runs the rest and still exits 1). Errors print as
 * "ERROR: line L, column C: message", with L and C counted in the script or
 * file (the engine's statement-relative position is shifted by where the
 * statement starts), and "SQLSTATE: xxxxx" with --verbose.
 *
 * Interactive mode (libedit when built with FLOE_HAVE_LIBEDIT, else plain
 * stdio): prompt "floe> ", continuation "   -> " until a ';' ends the input
 * outside quotes, comments and dollar quotes; history in ~/.floe_history.
 * Backslash commands at the start of the input:
 *   \q  quit            \timing [on|off]   \x [on|off]   \f [FORMAT]
 *   \o [FILE]  output to FILE (no FILE: back to stdout)
 *   \d [TABLE] describe  \dt [NS]  tables   \dn  namespaces
 *   \i FILE    run a script   \?  help
 *   \e [FILE]  edit the statement (or FILE) in $EDITOR   \watch [SEC]  rerun
 *   \pset pager on|off|always
 * TAB completes keywords, namespaces, tables and columns
 * (cmd_sql_complete.c); results taller or wider than the terminal go
 * through a pager (cmd_sql_pager.c).
 *
 * Output per statement: rows in the --format (cmd_sql_print.c); commands print
 * their PostgreSQL command tag ("INSERT 0 3") on the table output or, for
 * machine formats, on stderr (so stdout stays parseable); --quiet drops tags.
 * Ctrl-C while a statement runs cancels it (fl_sql_session_cancel; the
 * statement fails with a cancel error, the shell goes on).
 *
 * Ownership: the shell owns the session, the catalog (cmd_table_write.h) and
 * the output FILE opened by -o / \o.
 *
 * Memory (glibc, tune_malloc): a fresh page costs ~10-17 us of CPU on the
 * paravirtualized benchmark VM (a page fault is a hypercall), which is ~20%
 * of a small query (TPC-H Q11 at SF1 touched ~20 MB: Parquet chunk windows,
 * pages, dictionaries). By default glibc gives blocks over 128 KiB back to the
 * kernel on free (mmap threshold), trims heap tops, and hands every new
 * worker thread (a nested executor run for a subquery starts its own) a
 * fresh arena, so a second scan of a statement faults its pages in again.
 * The shell is one process per session: blocks up to 32 MiB come from the
 * heap, free memory stays mapped up to 256 MiB, and threads share 2 arenas
 * (Q11: 6,200 -> 5,000 faults, -15% CPU). Executor arrays of 4 MiB and more
 * are mmap'ed by bigmem.c and unaffected.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd_sql.h"
#include "cli/cmd_sql_progress.h"
#include "cli/cmd_table_write.h"
#include "cli/opts.h"
#include "cli/output.h"
#include "floe/sem_sql.h"

typedef struct script_item {
    bool is_file;
    const char *text; /* SQL text or a path */
} script_item;

typedef struct shell {
    /* options */
    script_item *items;
    int nitems;
    const char *catalog_uri, *warehouse, *ns, *tz, *out_path, *models_dir;
    bool no_catalog, quiet, keep_going, verbose, timing;
    uint32_t threads;
    uint64_t memory_limit;
    fl_sqlout o;
    /* state */
    fl_cli_catalog cat;
    bool have_cat;
    fl_sql_session *s;
    fl_sem_model *model; /* --models: semantic.metrics (sem_sql.h) */
    fl_sem_sql *semsql;
    FILE *out_file; /* -o / \o target (text formats), or NULL */
    int failures;
    bool interactive;       /* a terminal on stdin and stdout: the pager applies */
    fl_sqlpager_mode pager; /* \pset pager */
    char *last_sql;         /* the last statement text run from the prompt (owned) */
} shell;

/* The running session, and whether a Ctrl-C came (ends \watch), for the
 * SIGINT handler (the only mutable statics: a signal handler has no other
 * way to reach them). */
static fl_sql_session *volatile running_session;
static volatile sig_atomic_t sigint_seen;

static void on_sigint(int sig)
{
    (void)sig;
    sigint_seen = 1;
    fl_sql_session *s = running_session;
    if (s)
        fl_sql_session_cancel(s);
}

enum {
    O_COMMAND,
    O_FILE,
    O_CATALOG,
    O_WAREHOUSE,
    O_NO_CATALOG,
    O_NAMESPACE,
    O_FORMAT,
    O_NO_ALIGN,
    O_TUPLES_ONLY,
    O_FIELD_SEPARATOR,
    O_OUTPUT,
    O_NO_HEADER,
    O_EXPANDED,
    O_THREADS,
    O_MEMORY_LIMIT,
    O_TIME_ZONE,
    O_MODELS,
    O_TIMING,
    O_KEEP_GOING,
    O_QUIET,
    O_VERBOSE
};
static const cli_opt options[] = {
    [O_COMMAND] = {NULL, 'c', "SQL", true, "run SQL (one or more statements; repeatable)"},
    [O_FILE] = {NULL, 'f', "FILE", true, "run the statements of FILE ('-' = stdin; repeatable)"},
    [O_CATALOG] = {"catalog", 0, "URI", false,
                   "sqlite:PATH | postgresql://... | fs:PATH\n"
                   "(default $FLOE_CATALOG or sqlite:./warehouse/catalog.db)"},
    [O_WAREHOUSE] = {"warehouse", 0, "DIR", false,
                     "root of new tables (default $FLOE_WAREHOUSE or ./warehouse)"},
    [O_NO_CATALOG] = {"no-catalog", 0, NULL, false, "no catalog: only VALUES and table functions"},
    [O_NAMESPACE] = {"namespace", 'n', "NS", false,
                     "namespace of unqualified table names (default \"default\")"},
    [O_FORMAT] = {"format", 0, "F", false,
                  "table | unaligned | csv | json | jsonl | parquet (default table)"},
    [O_NO_ALIGN] = {"no-align", 'A', NULL, false,
                    "unaligned output: fields joined by '|' (psql -A)"},
    [O_TUPLES_ONLY] = {"tuples-only", 't', NULL, false,
                       "rows only: no header, no \"(N rows)\" footer (psql -t)"},
    [O_FIELD_SEPARATOR] = {"field-separator", 'F', "S", false,
                           "unaligned: the separator between fields (default '|')"},
    [O_OUTPUT] = {"output", 'o', "FILE", false,
                  "write results to FILE ('-' = stdout)"},
    [O_NO_HEADER] = {"no-header", 0, NULL, false, "no header row (table, csv)"},
    [O_EXPANDED] = {"expanded", 'x', NULL, false, "table: one record block per row"},
    [O_THREADS] = {"threads", 0, "N", false, "worker threads (default: CPUs)"},
    [O_MEMORY_LIMIT] = {"memory-limit", 0, "SIZE", false,
                        "operator memory before spilling, e.g. 512MB, 2GB"},
    [O_TIME_ZONE] = {"time-zone", 0, "TZ", false, "session time zone (default UTC)"},
    [O_MODELS] = {"models", 0, "DIR", false,
                  "a semantic model: SELECT ..., MEASURE(metric) FROM\n"
                  "semantic.metrics GROUP BY ... (docs/semantic.md)"},
    [O_TIMING] = {"timing", 0, NULL, false, "print each statement's time"},
    [O_KEEP_GOING] = {"keep-going", 0, NULL, false, "run the remaining statements after an error"},
    [O_QUIET] = {"quiet", 'q', NULL, false, "no command tags"},
    [O_VERBOSE] = {"verbose", 'v', NULL, false, "errors also print their SQLSTATE"},
};
static const cli_command sql_cmd = {
    .name = "sql",
    .synopsis = "sql [options] [-c SQL]... [-f FILE]...",
    .about = "  Runs SQL over the Iceberg tables of a catalog: interactively (a terminal on\n"
             "  stdin), the -c / -f scripts in order, or a script piped on stdin.",
    .opts = options,
    .nopts = CLI_NOPTS(options),
};

/* "512MB", "2G", "1.5GiB", "1000000" (bytes; K/M/G/T are powers of 1024). */
static bool parse_size(const char *s, uint64_t *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || v < 0)
        return false;
    while (*end == ' ')
        end++;
    double mul = 1;
    switch (toupper((unsigned char)*end)) {
    case 'K': mul = 1024.0; break;
    case 'M': mul = 1024.0 * 1024; break;
    case 'G': mul = 1024.0 * 1024 * 1024; break;
    case 'T': mul = 1024.0 * 1024 * 1024 * 1024; break;
    case 'B':
    case '\0': break;
    default: return false;
    }
    if (*end && toupper((unsigned char)*end) != 'B') {
        end++;
        if (toupper((unsigned char)*end) == 'I')
            end++;
        if (toupper((unsigned char)*end) == 'B')
            end++;
    } else if (*end) {
        end++;
    }
    if (*end)
        return false;
    v *= mul;
    if (v > 1.8e19)
        return false;
    *out = (uint64_t)v;
    return true;
}

static bool push_item(shell *sh, bool is_file, const char *text)
{
    script_item *n = realloc(sh->items, (size_t)(sh->nitems + 1) * sizeof *n);
    if (!n)
        return false;
    n[sh->nitems++] = (script_item){is_file, text};
    sh->items = n;
    return true;
}

/* The -c and -f scripts, in the order given. */
static bool script_items(const cli_args *p, shell *sh)
{
    for (int i = 0; i < p->ngiven; i++) {
        int k = p->given[i].opt;
        if ((k == O_COMMAND || k == O_FILE) && !push_item(sh, k == O_FILE, p->given[i].value))
            return false;
    }
    return true;
}

/* The options that take a value to check; 0, or 2 after a usage error. */
static int checked_options(const cli_args *p, shell *sh)
{
    const char *v;
    if ((v = cli_value(p, O_FORMAT)) && !fl_sqlout_format_parse(v, &sh->o.format))
        return cli_usage_error(&sql_cmd, "unknown format '%s' (table, csv, json, jsonl, parquet)",
                               v);
    if (cli_has(p, O_NO_ALIGN))
        sh->o.format = FL_SQLOUT_UNALIGNED;
    if ((v = cli_value(p, O_THREADS))) {
        char *end = NULL;
        unsigned long t = strtoul(v, &end, 10);
        if (!*v || *end || t > 1024)
            return cli_usage_error(&sql_cmd, "--threads takes a number from 0 to 1024");
        sh->threads = (uint32_t)t;
    }
    if ((v = cli_value(p, O_MEMORY_LIMIT)) && !parse_size(v, &sh->memory_limit))
        return cli_usage_error(&sql_cmd, "--memory-limit takes a size such as 512MB or 2GB");
    return 0;
}

/* 0 ok, -1 --help printed, else exit status. */
static int parse_args(int argc, char **argv, shell *sh)
{
    sh->o.header = true;
    cli_args p;
    int st;
    if (!cli_parse(&sql_cmd, argc, argv, &p, &st))
        return st ? st : -1;
    if (p.npos) {
        st = cli_usage_error(&sql_cmd, "unexpected argument '%s' (SQL goes after -c)", p.pos[0]);
        cli_args_free(&p);
        return st;
    }
    sh->no_catalog = cli_has(&p, O_NO_CATALOG);
    sh->o.header = !cli_has(&p, O_NO_HEADER);
    sh->o.expanded = cli_has(&p, O_EXPANDED);
    sh->o.tuples_only = cli_has(&p, O_TUPLES_ONLY);
    sh->timing = cli_has(&p, O_TIMING);
    sh->keep_going = cli_has(&p, O_KEEP_GOING);
    sh->quiet = cli_has(&p, O_QUIET);
    sh->verbose = cli_has(&p, O_VERBOSE);
    if (cli_has(&p, O_FIELD_SEPARATOR))
        sh->o.fieldsep = cli_value(&p, O_FIELD_SEPARATOR);
    sh->catalog_uri = cli_value(&p, O_CATALOG);
    sh->warehouse = cli_value(&p, O_WAREHOUSE);
    sh->ns = cli_value(&p, O_NAMESPACE);
    sh->tz = cli_value(&p, O_TIME_ZONE);
    sh->models_dir = cli_value(&p, O_MODELS);
    sh->out_path = cli_value(&p, O_OUTPUT);
    st = script_items(&p, sh) ? checked_options(&p, sh) : 1;
    cli_args_free(&p);
    if (st)
        return st;
    bool parquet = sh->o.format == FL_SQLOUT_PARQUET;
    if (parquet && !sh->out_path)
        return cli_usage_error(&sql_cmd, "--format parquet needs -o FILE (-o - for stdout)");
    if (!parquet && sh->out_path && !strcmp(sh->out_path, "-"))
        sh->out_path = NULL; /* stdout, the default (parquet keeps "-": print_parquet) */
    return 0;
}

/* ---- running statements ---- */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Line and (character) column of byte offset off in text, 1-based. */
static void line_col(const char *text, size_t off, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off && text[i]; i++) {
        if (text[i] == '\n') {
            (*line)++;
            *col = 1;
        } else if (((unsigned char)text[i] & 0xC0) != 0x80) {
            (*col)++;
        }
    }
}

/* Prints the error, shifting a leading "line L, column C: " by the
 * statement's start (line0, col0) in its script. */
static void print_error(shell *sh, const fl_error *err, int line0, int col0)
{
    const char *msg = err->msg[0] ? err->msg : fl_status_name(err->code);
    int l = 0, c = 0, used = 0;
    if (sscanf(msg, "line %d, column %d: %n", &l, &c, &used) == 2 && used > 0 && l >= 1) {
        int fl = line0 + l - 1;
        int fc = l == 1 ? col0 + c - 1 : c;
        fprintf(stderr, "ERROR: line %d, column %d: %s\n", fl, fc, msg + used);
    } else {
        fprintf(stderr, "ERROR: %s\n", msg);
    }
    if (sh->verbose && sh->s) {
        fl_sql_error_info info = {{0}, 0};
        fl_sql_last_error(sh->s, &info);
        fprintf(stderr, "SQLSTATE: %s\n", info.sqlstate[0] ? info.sqlstate : "XX000");
    }
}

static FILE *out_stream(shell *sh)
{
    return sh->out_file ? sh->out_file : stdout;
}

/* Runs one statement (len bytes at sql); line0/col0 is where it starts. */
static fl_status run_statement(shell *sh, const char *sql, size_t len, int line0, int col0)
{
    char *text = strndup(sql, len);
    if (!text) {
        fprintf(stderr, "ERROR: out of memory\n");
        return FL_ENOMEM;
    }
    fl_error err;
    fl_error_clear(&err);
    fl_sql_result *r = NULL;
    uint64_t rows = 0;
    double t0 = now_ms();
    struct sigaction sa = {0}, old;
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    running_session = sh->s;
    sigaction(SIGINT, &sa, &old);
    fl_sqlprogress progress; /* until the first batch, the tag or the error */
    fl_sqlprogress_start(&progress, sh->s);
    fl_status rc = fl_sql_execute(sh->s, text, &r, &err);
    fl_sqlout o = sh->o;
    o.before_output = fl_sqlprogress_stop;
    o.before_output_ctx = &progress;
    o.out = out_stream(sh);
    /* the pager measures the whole text first (cmd_sql_pager.c) */
    char *paged = NULL;
    size_t paged_len = 0;
    FILE *mem = NULL;
    if (sh->interactive && !sh->out_file && sh->pager != FL_SQLPAGER_OFF &&
        sh->o.format != FL_SQLOUT_PARQUET && (mem = open_memstream(&paged, &paged_len)))
        o.out = mem;
    o.path = sh->out_path;
    o.io = sh->cat.io;
    o.tz = fl_sql_get(sh->s, "time_zone");
    if (rc == FL_OK)
        rc = fl_sqlout_result(&o, r, &rows, &err);
    fl_sqlprogress_stop(&progress);
    sigaction(SIGINT, &old, NULL);
    running_session = NULL;
    double ms = now_ms() - t0;
    if (rc == FL_OK) {
        const fl_schema *schema = fl_sql_result_schema(r);
        const char *tag = fl_sql_result_tag(r);
        bool command = !schema || schema->nfields == 0;
        if (command && !sh->quiet && tag && *tag) {
            FILE *tf = sh->o.format == FL_SQLOUT_TABLE ? o.out : stderr;
            fprintf(tf, "%s\n", tag);
            fflush(tf);
        }
    }
    if (mem) {
        fclose(mem);
        fl_sqlpager_show(paged, paged_len, sh->pager);
        free(paged);
    }
    if (rc != FL_OK)
        print_error(sh, &err, line0, col0);
    fl_sql_result_close(r);
    if (sh->timing)
        fprintf(stderr, "Time: %.3f ms\n", ms);
    free(text);
    return rc;
}

/* Splits text into statements and runs them. Returns FL_OK or the first
 * failure (after running the rest with --keep-going). */
static fl_status run_script_at(shell *sh, const char *text, int line_base)
{
    uint32_t *starts = NULL, *lens = NULL, n = 0;
    fl_error err;
    fl_error_clear(&err);
    fl_status rc = fl_sql_split(text, &starts, &lens, &n, &err);
    if (rc != FL_OK) {
        print_error(sh, &err, 1, 1);
        sh->failures++;
        return rc;
    }
    fl_status first = FL_OK;
    for (uint32_t i = 0; i < n; i++) {
        const char *p = text + starts[i];
        size_t len = lens[i];
        size_t skip = 0; /* skip leading blanks so positions match */
        while (skip < len && isspace((unsigned char)p[skip]))
            skip++;
        if (skip == len)
            continue;
        int line0, col0;
        line_col(text, starts[i] + skip, &line0, &col0);
        line0 += line_base;
        fl_status src = run_statement(sh, p + skip, len - skip, line0, col0);
        if (src != FL_OK) {
            sh->failures++;
            if (first == FL_OK)
                first = src;
            if (!sh->keep_going)
                break;
        }
    }
    free(starts);
    free(lens);
    return first;
}

static fl_status run_script(shell *sh, const char *text)
{
    return run_script_at(sh, text, 0);
}

static char *read_all(FILE *f, const char *name)
{
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (len + 1 >= cap) {
            char *nb = cap > (SIZE_MAX >> 2) ? NULL : realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - 1 - len, f);
        len += got;
        if (got == 0)
            break;
    }
    if (!buf || ferror(f)) {
        fprintf(stderr, "floe sql: %s: %s\n", name, buf ? strerror(errno) : "out of memory");
        free(buf);
        return NULL;
    }
    buf[len] = '\0';
    return buf;
}

static fl_status run_file(shell *sh, const char *path)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!f) {
        fprintf(stderr, "floe sql: %s: %s\n", path, strerror(errno));
        sh->failures++;
        return FL_EIO;
    }
    char *text = read_all(f, path);
    if (f != stdin)
        fclose(f);
    if (!text) {
        sh->failures++;
        return FL_EIO;
    }
    fl_status rc = run_script(sh, text);
    free(text);
    return rc;
}

/* ---- interactive input ---- */

/* Where the input buffer stands: INPUT_COMPLETE when it ends with a ';'
 * outside quotes, comments and dollar quotes (only blanks and comments
 * after it), INPUT_OPEN inside one of those (a line starting with '\\' is
 * then text, not a backslash command), else INPUT_MORE. */
enum { INPUT_MORE, INPUT_COMPLETE, INPUT_OPEN };

static int input_state(const char *buf)
{
    bool done = false;
    size_t n = strlen(buf);
    for (size_t i = 0; i < n; i++) {
        char ch = buf[i];
        if (isspace((unsigned char)ch))
            continue;
        if (ch == '-' && buf[i + 1] == '-') {
            while (i < n && buf[i] != '\n')
                i++;
            continue;
        }
        if (ch == '/' && buf[i + 1] == '*') {
            int depth = 1;
            for (i += 2; i < n && depth; i++) {
                if (buf[i] == '/' && buf[i + 1] == '*')
                    depth++, i++;
                else if (buf[i] == '*' && buf[i + 1] == '/')
                    depth--, i++;
            }
            if (depth)
                return INPUT_OPEN;
            i--;
            continue;
        }
        done = false;
        if (ch == '\'' || ch == '"') {
            for (i++; i < n; i++)
                if (buf[i] == ch) {
                    if (buf[i + 1] == ch)
                        i++;
                    else
                        break;
                }
            if (i >= n)
                return INPUT_OPEN;
            continue;
        }
        if (ch == '$') {
            size_t j = i + 1;
            while (j < n && (isalnum((unsigned char)buf[j]) || buf[j] == '_'))
                j++;
            if (j < n && buf[j] == '$' && !(j > i + 1 && isdigit((unsigned char)buf[i + 1]))) {
                size_t tl = j - i + 1;
                const char *end = NULL;
                for (size_t k = j + 1; k + tl <= n; k++)
                    if (!strncmp(buf + k, buf + i, tl)) {
                        end = buf + k;
                        break;
                    }
                if (!end)
                    return INPUT_OPEN;
                i = (size_t)(end - buf) + tl - 1;
                continue;
            }
        }
        if (ch == ';')
            done = true;
    }
    return done ? INPUT_COMPLETE : INPUT_MORE;
}

static void meta_help(void)
{
    fputs("  \\q              quit (also inside an unfinished statement)\n"
          "  \\r              reset (clear) the statement being typed\n"
          "  \\p              show the statement being typed\n"
          "  \\g              run the statement being typed (as ';' would)\n"
          "  \\d [TABLE]       describe TABLE (no TABLE: list tables)\n"
          "  \\dt [NS]         list tables (of namespace NS)\n"
          "  \\dn              list namespaces\n"
          "  \\timing [on|off] print statement times\n"
          "  \\x [on|off]      expanded (one block per row) table output\n"
          "  \\f [FORMAT]      output format: table, unaligned, csv, json, jsonl, parquet\n"
          "  \\a               toggle aligned / unaligned output (psql's \\a)\n"
          "  \\t [on|off]      tuples only: no header, no row-count footer\n"
          "  \\o [FILE]        send results to FILE (none: standard output)\n"
          "  \\i FILE          run the statements in FILE\n"
          "  \\e [FILE]        edit the statement being typed (or the last one, or\n"
          "                   FILE) in $EDITOR; it runs if it ends with ';'\n"
          "  \\watch [SEC]     run the statement being typed (or the last one) every\n"
          "                   SEC seconds (default 2) until Ctrl-C; also i=SEC c=COUNT\n"
          "  \\pset pager [on|off|always]  page results taller or wider than the screen\n"
          "  \\?               this help\n"
          "Statements end with ';' and may span lines. Ctrl-C clears the input (or\n"
          "cancels a running statement), Ctrl-D on an empty line quits.\n",
          stdout);
}

/* on/off/toggle for \timing and \x. */
static bool toggle(const char *arg, bool cur)
{
    if (!arg || !*arg)
        return !cur;
    return !strcasecmp(arg, "on") || !strcmp(arg, "1") || !strcasecmp(arg, "true");
}

static void set_output(shell *sh, const char *path)
{
    if (sh->out_file) {
        fclose(sh->out_file);
        sh->out_file = NULL;
    }
    free((char *)sh->out_path);
    sh->out_path = NULL;
    if (!path || !*path)
        return;
    sh->out_path = strdup(path);
    if (sh->o.format != FL_SQLOUT_PARQUET) {
        sh->out_file = fopen(path, "w");
        if (!sh->out_file)
            fprintf(stderr, "floe sql: %s: %s\n", path, strerror(errno));
    }
}

/* What a backslash command asks of the line loop. */
enum { META_QUIT, META_DONE, META_RUN_BUFFER };

/* The commands about the statement being typed (buf; NULL in -c). */
static bool meta_buffer(const char *cmd, fl_buf *buf, int *what)
{
    if (!strcmp(cmd, "\\r") || !strcmp(cmd, "\\reset")) {
        if (buf)
            fl_buf_reset(buf);
        puts("Query buffer reset (cleared).");
    } else if (!strcmp(cmd, "\\p") || !strcmp(cmd, "\\print")) {
        puts(buf && buf->len ? buf->data : "Query buffer is empty.");
    } else if (!strcmp(cmd, "\\g")) {
        *what = META_RUN_BUFFER;
    } else {
        return false;
    }
    return true;
}

/* \e [FILE]: the edited text replaces the statement buffer (psql); it runs
 * when complete. Without a buffer (-c) there is nothing to edit into. */
static int meta_edit(shell *sh, const char *file, fl_buf *buf)
{
    if (!buf) {
        fprintf(stderr, "floe sql: \\e works at the prompt only\n");
        sh->failures++;
        return META_DONE;
    }
    fl_error err;
    fl_error_clear(&err);
    char *text = NULL;
    const char *start = buf->len ? buf->data : sh->last_sql;
    if (fl_sqledit(file ? NULL : start, file, &text, &err) != FL_OK) {
        fprintf(stderr, "floe sql: %s\n", err.msg);
        sh->failures++;
        return META_DONE;
    }
    fl_buf_reset(buf);
    fl_status rc = fl_buf_puts(buf, text, &err);
    free(text);
    if (rc != FL_OK || buf->len == 0)
        return META_DONE;
    if (input_state(buf->data) == INPUT_COMPLETE)
        return META_RUN_BUFFER;
    puts(buf->data); /* shown; the next lines continue it */
    return META_DONE;
}

/* Sleeps ms unless a Ctrl-C comes first (false then). */
static bool sleep_unless_interrupted(double ms)
{
    while (ms > 0 && !sigint_seen) {
        double step = ms < 100 ? ms : 100;
        struct timespec ts = {(time_t)(step / 1000), (long)((step - (time_t)(step / 1000) * 1000) * 1e6)};
        nanosleep(&ts, NULL);
        ms -= step;
    }
    return !sigint_seen;
}

/* \watch [SEC] [i=SEC] [c=COUNT]: reruns the buffer (or the last statement)
 * until Ctrl-C, an error or COUNT runs, each run under a header line. */
static void meta_watch(shell *sh, char *args, fl_buf *buf)
{
    double sec = 2;
    long count = 0;
    char *save = NULL;
    for (char *a = strtok_r(args, " \t", &save); a; a = strtok_r(NULL, " \t", &save)) {
        char *v = strchr(a, '='), *end = NULL;
        const char *key = v ? a : "i";
        if (v)
            *v++ = '\0';
        else
            v = a;
        double x = strtod(v, &end);
        bool is_i = !strcmp(key, "i") || !strcmp(key, "interval");
        bool is_c = !strcmp(key, "c") || !strcmp(key, "count");
        if ((!is_i && !is_c) || end == v || *end || x < 0 || (is_c && x < 1)) {
            fprintf(stderr, "floe sql: \\watch: bad argument '%s%s%s'\n", a,
                    v != a ? "=" : "", v != a ? v : "");
            sh->failures++;
            return;
        }
        if (is_i)
            sec = x;
        else
            count = (long)x;
    }
    const char *sql = buf && buf->len ? buf->data : sh->last_sql;
    if (!sql || !*sql) {
        fprintf(stderr, "floe sql: \\watch cannot be used with an empty query\n");
        sh->failures++;
        return;
    }
    char *text = strdup(sql);
    if (buf && buf->len) {
        free(sh->last_sql);
        sh->last_sql = strdup(buf->data);
        fl_buf_reset(buf);
    }
    sigint_seen = 0;
    for (long run = 1; text && !sigint_seen; run++) {
        time_t now = time(NULL);
        char when[64];
        strftime(when, sizeof when, "%a %b %e %T %Y", localtime(&now));
        printf("%s (every %gs)\n\n", when, sec);
        fflush(stdout);
        if (run_script_at(sh, text, 0) != FL_OK || (count && run >= count))
            break;
        putchar('\n');
        if (!sleep_unless_interrupted(sec * 1000))
            break;
    }
    free(text);
    sigint_seen = 0;
}

/* \pset pager [on|off|always] (the one \pset option so far). */
static void meta_pset(shell *sh, const char *what, const char *value)
{
    if (!what || strcmp(what, "pager")) {
        fprintf(stderr, "floe sql: \\pset: unknown option '%s' (known: pager)\n",
                what ? what : "");
        sh->failures++;
        return;
    }
    fl_sqlpager_mode m;
    if (!value)
        m = sh->pager == FL_SQLPAGER_OFF ? FL_SQLPAGER_ON : FL_SQLPAGER_OFF;
    else if (!fl_sqlpager_mode_parse(value, &m)) {
        fprintf(stderr, "floe sql: \\pset pager: '%s' is not on, off or always\n", value);
        sh->failures++;
        return;
    }
    sh->pager = m;
    printf("Pager usage is %s.\n", m == FL_SQLPAGER_OFF ? "off" : m == FL_SQLPAGER_ON ? "on" : "always");
}

/* Runs a backslash command (the whole line, modified in place). */
static int meta_command(shell *sh, char *line, fl_buf *buf)
{
    char *save = NULL;
    char *cmd = strtok_r(line, " \t", &save);
    char *arg = strtok_r(NULL, " \t;", &save);
    fl_error err;
    fl_error_clear(&err);
    fl_catalog *cat = sh->have_cat ? sh->cat.cat : NULL;
    const char *ns = fl_sql_get(sh->s, "search_path");
    fl_status rc = FL_OK;
    int what = META_DONE;
    if (!strcmp(cmd, "\\q") || !strcmp(cmd, "\\quit"))
        return META_QUIT;
    if (meta_buffer(cmd, buf, &what))
        return what;
    if (!strcmp(cmd, "\\?") || !strcmp(cmd, "\\h") || !strcmp(cmd, "\\help"))
        meta_help();
    else if (!strcmp(cmd, "\\dn"))
        rc = fl_sqlmeta_list_namespaces(cat, stdout, &err);
    else if (!strcmp(cmd, "\\dt") || (!strcmp(cmd, "\\d") && !arg))
        rc = fl_sqlmeta_list_tables(cat, arg, stdout, &err);
    else if (!strcmp(cmd, "\\d"))
        rc = fl_sqlmeta_describe(cat, arg, ns ? ns : sh->ns, stdout, &err);
    else if (!strcmp(cmd, "\\timing")) {
        sh->timing = toggle(arg, sh->timing);
        printf("Timing is %s.\n", sh->timing ? "on" : "off");
    } else if (!strcmp(cmd, "\\x")) {
        sh->o.expanded = toggle(arg, sh->o.expanded);
        printf("Expanded display is %s.\n", sh->o.expanded ? "on" : "off");
    } else if (!strcmp(cmd, "\\a")) {
        bool was = sh->o.format == FL_SQLOUT_UNALIGNED;
        sh->o.format = was ? FL_SQLOUT_TABLE : FL_SQLOUT_UNALIGNED;
        printf("Output format is %s.\n", was ? "aligned" : "unaligned");
    } else if (!strcmp(cmd, "\\t")) {
        sh->o.tuples_only = toggle(arg, sh->o.tuples_only);
        printf("Tuples only is %s.\n", sh->o.tuples_only ? "on" : "off");
    } else if (!strcmp(cmd, "\\f")) {
        if (arg && !fl_sqlout_format_parse(arg, &sh->o.format)) {
            fprintf(stderr, "floe sql: unknown format '%s'\n", arg);
            sh->failures++;
        }
        printf("Output format is %s.\n", fl_sqlout_format_name(sh->o.format));
    } else if (!strcmp(cmd, "\\o"))
        set_output(sh, arg);
    else if (!strcmp(cmd, "\\e") || !strcmp(cmd, "\\edit"))
        what = meta_edit(sh, arg, buf);
    else if (!strcmp(cmd, "\\watch")) {
        char rest[512] = "";
        snprintf(rest, sizeof rest, "%s%s%s", arg ? arg : "", save && *save ? " " : "",
                 save ? save : "");
        meta_watch(sh, rest, buf);
    } else if (!strcmp(cmd, "\\pset")) {
        char *value = strtok_r(NULL, " \t;", &save);
        meta_pset(sh, arg, value);
    } else if (!strcmp(cmd, "\\i")) {
        if (!arg) {
            fprintf(stderr, "floe sql: \\i needs a file\n");
            sh->failures++;
        } else {
            run_file(sh, arg);
        }
    } else {
        fprintf(stderr, "floe sql: unknown command %s (\\? for help)\n", cmd);
        sh->failures++;
    }
    if (rc != FL_OK) {
        fprintf(stderr, "ERROR: %s\n", err.msg);
        sh->failures++;
    }
    fflush(stdout);
    return what;
}

/* -c text that starts with a backslash: one backslash command per line (as
 * psql's -c). Returns false after \q. */
static bool run_meta_text(shell *sh, const char *text)
{
    char *copy = strdup(text);
    if (!copy)
        return false;
    bool go_on = true;
    char *save = NULL;
    for (char *l = strtok_r(copy, "\n", &save); l && go_on; l = strtok_r(NULL, "\n", &save)) {
        while (isspace((unsigned char)*l))
            l++;
        if (*l != '\\') {
            fprintf(stderr, "floe sql: -c: a backslash command text holds SQL: %s\n", l);
            sh->failures++;
            break;
        }
        go_on = meta_command(sh, l, NULL) != META_QUIT;
    }
    free(copy);
    return go_on;
}

/* The loop state: the statement being typed and where it started. */
typedef struct loop {
    fl_sqlin in;
    fl_buf buf;
    int line_no, buf_line;
} loop;

/* Runs the buffered statement(s); false when the loop should stop. */
static bool run_buffer(shell *sh, loop *lp)
{
    fl_sqlin_remember(&lp->in, lp->buf.data);
    char *last = strdup(lp->buf.data);
    if (last) {
        free(sh->last_sql);
        sh->last_sql = last;
    }
    fl_status rc = run_script_at(sh, lp->buf.data, lp->buf_line);
    fl_buf_reset(&lp->buf);
    return rc == FL_OK || lp->in.tty || sh->keep_going;
}

/* One input line; false when the loop should stop. */
static bool handle_line(shell *sh, loop *lp, const char *line)
{
    const char *p = line;
    while (isspace((unsigned char)*p))
        p++;
    if (*p == '\\' && (lp->buf.len == 0 || input_state(lp->buf.data) != INPUT_OPEN)) {
        fl_sqlin_remember(&lp->in, p);
        char *cmd = strdup(p);
        int what = cmd ? meta_command(sh, cmd, &lp->buf) : META_DONE;
        free(cmd);
        if (what == META_RUN_BUFFER && lp->buf.len)
            return run_buffer(sh, lp);
        return what != META_QUIT;
    }
    if (lp->buf.len == 0 && *p == '\0')
        return true;
    if (lp->buf.len == 0)
        lp->buf_line = lp->line_no - 1;
    fl_error err;
    fl_error_clear(&err);
    if ((lp->buf.len && fl_buf_puts(&lp->buf, "\n", &err) != FL_OK) ||
        fl_buf_puts(&lp->buf, line, &err) != FL_OK) {
        fprintf(stderr, "floe sql: out of memory\n");
        return false;
    }
    if (input_state(lp->buf.data) != INPUT_COMPLETE)
        return true;
    return run_buffer(sh, lp);
}

/* The line-by-line loop: a terminal (prompts, Ctrl-C, history) or piped
 * stdin (backslash commands work too; the first error stops unless
 * --keep-going). */
static void line_loop(shell *sh, bool tty)
{
    loop lp;
    memset(&lp, 0, sizeof lp);
    fl_sqlin_open(&lp.in, tty);
    fl_sqlin_set_completion(&lp.in, sh->have_cat ? sh->cat.cat : NULL, sh->s, sh->ns);
    sh->interactive = tty && isatty(STDOUT_FILENO);
    /* A Ctrl-C between the prompt and the statement's own handler (or in a
     * backslash command) must not end the shell: on_sigint only cancels a
     * running statement. */
    struct sigaction sa = {0}, old;
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    if (tty)
        sigaction(SIGINT, &sa, &old);
    if (tty)
        printf("floe %s SQL shell. End statements with ';', \\? for help, \\q to quit.\n",
               FLOE_VERSION);
    for (;;) {
        char *line = NULL;
        fl_sqlin_status st = fl_sqlin_read(&lp.in, lp.buf.len ? "   -> " : "floe> ", &line);
        if (st == FL_SQLIN_EOF)
            break;
        if (st == FL_SQLIN_INTERRUPT) { /* psql: drop the input, new prompt */
            fl_buf_reset(&lp.buf);
            continue;
        }
        lp.line_no++;
        bool go_on = handle_line(sh, &lp, line);
        free(line);
        if (!go_on)
            break;
    }
    if (!tty && lp.buf.len && sh->failures == 0) /* a last statement without ';' */
        run_script_at(sh, lp.buf.data, lp.buf_line);
    fl_buf_free(&lp.buf);
    fl_sqlin_close(&lp.in);
    if (tty) {
        sigaction(SIGINT, &old, NULL);
        putchar('\n');
    }
}

/* ---- setup ---- */

/* Whether one statement only reads: its first keyword (after blanks and
 * "--" comments) is one of the query and catalog-listing words, or it is a
 * backslash command. */
static bool statement_reads(const char *s, size_t n)
{
    static const char *const words[] = {"select",   "with",  "values", "show", "explain",
                                        "describe", "table", "desc",   NULL};
    size_t i = 0;
    for (;;) {
        while (i < n && isspace((unsigned char)s[i]))
            i++;
        if (i + 1 < n && s[i] == '-' && s[i + 1] == '-') {
            while (i < n && s[i] != '\n')
                i++;
            continue;
        }
        break;
    }
    if (i == n || s[i] == '\\' || s[i] == '(')
        return true;
    size_t w = i;
    while (w < n && isalpha((unsigned char)s[w]))
        w++;
    for (const char *const *k = words; *k; k++)
        if (strlen(*k) == w - i && !strncasecmp(*k, s + i, w - i))
            return true;
    return false;
}

/* Whether the run only reads: -c scripts whose every statement reads. Such a
 * run opens the catalog read-only, so a mistyped --catalog or the wrong
 * folder is an error instead of a new empty catalog. -f scripts and the
 * interactive shell may create tables: they open it read-write. */
static bool run_reads_only(const shell *sh)
{
    if (!sh->nitems)
        return false;
    for (int i = 0; i < sh->nitems; i++) {
        if (sh->items[i].is_file)
            return false;
        const char *t = sh->items[i].text;
        uint32_t *st = NULL, *ln = NULL, n = 0;
        fl_error e = {0};
        bool ok = fl_sql_split(t, &st, &ln, &n, &e) == FL_OK;
        for (uint32_t k = 0; ok && k < n; k++)
            ok = statement_reads(t + st[k], ln[k]);
        free(st);
        free(ln);
        if (!ok)
            return false;
    }
    return true;
}

static fl_status open_session(shell *sh, fl_error *err)
{
    fl_sql_options opt = {0};
    if (!sh->no_catalog && run_reads_only(sh)) {
        /* statements that only read never create a catalog; without one
         * they still run over files and constants (read_csv, SELECT 1),
         * and naming a table says it does not exist */
        fl_status rc = fl_cli_catalog_open_ro(sh->catalog_uri, sh->warehouse, &sh->cat, err);
        if (rc == FL_ENOTFOUND) {
            fl_error_clear(err);
            sh->no_catalog = true;
        } else if (rc != FL_OK) {
            return rc;
        } else {
            sh->have_cat = true;
        }
    } else if (!sh->no_catalog) {
        FL_TRY(fl_cli_catalog_open(sh->catalog_uri, sh->warehouse, &sh->cat, err));
        sh->have_cat = true;
    }
    if (sh->have_cat) {
        opt.catalog = sh->cat.cat;
        opt.io = sh->cat.io;
        opt.warehouse = sh->cat.warehouse;
    } else {
        sh->cat.io = cli_fileio();
        if (!sh->cat.io)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        opt.io = sh->cat.io;
    }
    opt.default_namespace = sh->ns;
    opt.threads = sh->threads;
    opt.memory_limit = sh->memory_limit;
    opt.time_zone = sh->tz;
    if (sh->models_dir) {
        FL_TRY(fl_sem_model_load_dir(sh->models_dir, &sh->model, err));
        FL_TRY(fl_sem_sql_new(sh->model, &sh->semsql, err));
        opt.extension = fl_sem_sql_extension(sh->semsql);
    }
    FL_TRY(fl_sql_session_open(&opt, &sh->s, err));
    return sh->semsql ? fl_sem_sql_resolve_types(sh->semsql, sh->s, err) : FL_OK;
}

/* See "Memory" at the top. mallopt failing (other allocators, sanitizers)
 * only costs speed. */
static void tune_malloc(void)
{
#ifdef __GLIBC__
    (void)mallopt(M_MMAP_THRESHOLD, 32 << 20);
    (void)mallopt(M_TRIM_THRESHOLD, 256 << 20);
    (void)mallopt(M_ARENA_MAX, 2);
#endif
}

int fl_cmd_sql(int argc, char **argv)
{
    shell sh;
    memset(&sh, 0, sizeof sh);
    int u = parse_args(argc, argv, &sh);
    if (u) {
        free(sh.items);
        return u < 0 ? 0 : u;
    }
    tune_malloc();
    fl_error err;
    fl_error_clear(&err);
    if (open_session(&sh, &err) != FL_OK) {
        fprintf(stderr, "floe sql: %s\n", err.msg);
        fl_sem_sql_free(sh.semsql);
        fl_sem_model_free(sh.model);
        if (sh.have_cat)
            fl_cli_catalog_close(&sh.cat);
        else
            fl_fileio_destroy(sh.cat.io);
        free(sh.items);
        return 1;
    }
    const char *out = sh.out_path;
    sh.out_path = NULL;
    set_output(&sh, out);
    if (out && sh.o.format != FL_SQLOUT_PARQUET && !sh.out_file)
        sh.failures++;
    for (int i = 0; i < sh.nitems && (!sh.failures || sh.keep_going); i++) {
        const char *t = sh.items[i].text;
        while (!sh.items[i].is_file && isspace((unsigned char)*t))
            t++;
        if (!sh.items[i].is_file && *t == '\\') {
            if (!run_meta_text(&sh, t))
                break;
            continue;
        }
        fl_status rc = sh.items[i].is_file ? run_file(&sh, sh.items[i].text)
                                           : run_script(&sh, sh.items[i].text);
        if (rc != FL_OK && !sh.keep_going)
            break;
    }
    if (sh.nitems == 0 && !sh.failures) {
        line_loop(&sh, isatty(STDIN_FILENO) != 0);
    }
    set_output(&sh, NULL);
    free(sh.last_sql);
    fl_sql_session_close(sh.s);
    fl_sem_sql_free(sh.semsql);
    fl_sem_model_free(sh.model);
    if (sh.have_cat)
        fl_cli_catalog_close(&sh.cat);
    else
        fl_fileio_destroy(sh.cat.io);
    free(sh.items);
    return sh.failures ? 1 : 0;
}
