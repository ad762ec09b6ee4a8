/*
 * opts.c - the option parser and help printer of every floe command
 * (opts.h has the syntax and the messages).
 *
 * The parse is one pass over argv: each word is a positional, "--", a long
 * option or a bundle of short ones, looked up in the command's table. The
 * options are recorded in command-line order (some commands run -c / -f in
 * the order given), then their values are grouped per option so that a
 * repeatable option's values come back as one array.
 */
#include "cli/opts.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- lookups in the table ---- */

static int find_long(const cli_command *c, const char *name, size_t len)
{
    for (size_t i = 0; i < c->nopts; i++) {
        const char *n = c->opts[i].name;
        if (n && strlen(n) == len && !memcmp(n, name, len))
            return (int)i;
    }
    return -1;
}

static int find_short(const cli_command *c, char ch)
{
    for (size_t i = 0; i < c->nopts; i++)
        if (c->opts[i].short_name == ch)
            return (int)i;
    return -1;
}

int cli_find(const cli_command *c, const char *name)
{
    return find_long(c, name, strlen(name));
}

/* ---- messages ---- */

int cli_usage_error(const cli_command *c, const char *fmt, ...)
{
    fprintf(stderr, "floe %s: ", c->name);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 2;
}

static int unknown_option(const cli_command *c, const char *arg)
{
    return cli_usage_error(c, "unknown option '%s' (see floe %s --help)", arg, c->name);
}

/* ---- the parse ---- */

/* A word that is an option: starts with '-', is not "-" alone, and is not a
 * negative number (no command has a digit as a short option). */
static bool is_option_word(const char *arg)
{
    return arg[0] == '-' && arg[1] && !(arg[1] >= '0' && arg[1] <= '9');
}

static void add_given(cli_args *a, int opt, const char *value)
{
    a->given[a->ngiven++] = (cli_given){opt, value};
}

/* Parse states of one word: go on, help asked, or an exit status. */
enum { WORD_OK = -1, WORD_HELP = -2 };

/* "--name", "--name=value" or "--name value" (consuming argv[*i + 1]). */
static int long_option(const cli_command *c, int argc, char **argv, int *i, cli_args *a)
{
    const char *arg = argv[*i], *name = arg + 2;
    const char *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    if (!eq && !strcmp(name, "help"))
        return WORD_HELP;
    int k = find_long(c, name, len);
    if (k < 0) {
        char shown[128]; /* the option without its "=value" */
        snprintf(shown, sizeof shown, "%.*s", (int)(len + 2), arg);
        return unknown_option(c, shown);
    }
    if (!c->opts[k].value) {
        if (eq)
            return cli_usage_error(c, "--%s takes no value", c->opts[k].name);
        add_given(a, k, NULL);
        return WORD_OK;
    }
    if (eq) {
        add_given(a, k, eq + 1);
        return WORD_OK;
    }
    if (*i + 1 >= argc)
        return cli_usage_error(c, "--%s needs a value", c->opts[k].name);
    add_given(a, k, argv[++*i]);
    return WORD_OK;
}

/* "-x", "-xyz" (flags bundled), "-x value" or "-xvalue". */
static int short_options(const cli_command *c, int argc, char **argv, int *i, cli_args *a)
{
    const char *arg = argv[*i];
    for (const char *p = arg + 1; *p; p++) {
        int k = find_short(c, *p);
        if (k < 0 && *p == 'h')
            return WORD_HELP;
        if (k < 0)
            return unknown_option(c, arg);
        if (!c->opts[k].value) {
            add_given(a, k, NULL);
            continue;
        }
        if (p[1]) {
            add_given(a, k, p + 1);
            return WORD_OK;
        }
        if (*i + 1 >= argc)
            return cli_usage_error(c, "-%c needs a value", *p);
        add_given(a, k, argv[++*i]);
        return WORD_OK;
    }
    return WORD_OK;
}

/* Groups the values of a->given per option (cli_values). */
static void group_values(cli_args *a)
{
    size_t n = a->cmd->nopts;
    for (int g = 0; g < a->ngiven; g++)
        a->count[a->given[g].opt]++;
    int at = 0;
    for (size_t k = 0; k < n; k++) {
        a->first[k] = at;
        at += a->count[k];
        a->count[k] = 0;
    }
    for (int g = 0; g < a->ngiven; g++) {
        int k = a->given[g].opt;
        a->values[a->first[k] + a->count[k]++] = a->given[g].value;
    }
}

/* Room for every positional and option: a word is at most one positional,
 * and a bundle of short flags ("-Atx") at most one option per letter. */
static bool alloc_args(const cli_command *c, int argc, char **argv, cli_args *a)
{
    memset(a, 0, sizeof *a);
    a->cmd = c;
    size_t words = 1, nopts = c->nopts ? c->nopts : 1;
    for (int i = 1; i < argc; i++)
        words += strlen(argv[i]) + 1;
    a->pos = calloc(words, sizeof *a->pos);
    a->given = calloc(words, sizeof *a->given);
    a->values = calloc(words, sizeof *a->values);
    a->first = calloc(nopts, sizeof *a->first);
    a->count = calloc(nopts, sizeof *a->count);
    return a->pos && a->given && a->values && a->first && a->count;
}

/* The positional count against the command's bounds; WORD_OK or 2. */
static int check_positionals(const cli_command *c, const cli_args *a)
{
    if (c->max_args != CLI_ANY && a->npos > c->max_args)
        return cli_usage_error(c, "unexpected argument '%s'", a->pos[c->max_args]);
    if (a->npos < c->min_args) {
        cli_usage_synopsis(c, stderr);
        return 2;
    }
    return WORD_OK;
}

bool cli_parse(const cli_command *c, int argc, char **argv, cli_args *a, int *status)
{
    if (!alloc_args(c, argc, argv, a)) {
        cli_args_free(a);
        fprintf(stderr, "floe %s: out of memory\n", c->name);
        *status = 1;
        return false;
    }
    int st = WORD_OK;
    bool only_positionals = false;
    for (int i = 1; i < argc && st == WORD_OK; i++) {
        const char *arg = argv[i];
        if (only_positionals || !is_option_word(arg))
            a->pos[a->npos++] = argv[i];
        else if (!strcmp(arg, "--"))
            only_positionals = true;
        else if (arg[1] == '-')
            st = long_option(c, argc, argv, &i, a);
        else
            st = short_options(c, argc, argv, &i, a);
    }
    if (st == WORD_HELP) {
        cli_usage(c, stdout);
        st = 0;
    } else if (st == WORD_OK) {
        st = check_positionals(c, a);
    }
    if (st != WORD_OK) {
        cli_args_free(a);
        *status = st;
        return false;
    }
    group_values(a);
    *status = 0;
    return true;
}

void cli_args_free(cli_args *a)
{
    free(a->pos);
    free(a->given);
    free(a->values);
    free(a->first);
    free(a->count);
    memset(a, 0, sizeof *a);
}

bool cli_has(const cli_args *a, int opt)
{
    return opt >= 0 && (size_t)opt < a->cmd->nopts && a->count[opt] > 0;
}

const char *cli_value(const cli_args *a, int opt)
{
    return cli_has(a, opt) ? a->values[a->first[opt] + a->count[opt] - 1] : NULL;
}

const char *const *cli_values(const cli_args *a, int opt, int *n)
{
    *n = cli_has(a, opt) ? a->count[opt] : 0;
    return *n ? a->values + a->first[opt] : NULL;
}

/* ---- help ---- */

/* The widest option column before the help text wraps onto its own line
 * (help then starts two spaces after the option). */
#define OPTION_COLUMN_MAX 26

/* "-o, --output FILE", "--format F", "-c SQL". */
static void option_text(const cli_opt *o, char *buf, size_t cap)
{
    char shortform[8] = "";
    if (o->short_name)
        snprintf(shortform, sizeof shortform, "-%c%s", o->short_name, o->name ? ", " : "");
    snprintf(buf, cap, "%s%s%s%s%s", shortform, o->name ? "--" : "", o->name ? o->name : "",
             o->value ? " " : "", o->value ? o->value : "");
}

static size_t option_column(const cli_command *c)
{
    size_t w = strlen("-h, --help");
    for (size_t i = 0; i < c->nopts; i++) {
        char buf[128];
        option_text(&c->opts[i], buf, sizeof buf);
        if (strlen(buf) > w)
            w = strlen(buf);
    }
    return w < OPTION_COLUMN_MAX ? w : OPTION_COLUMN_MAX;
}

/* One option: its text, then its help aligned at the column, continuation
 * lines of the help indented to the same column. */
static void print_option(const char *text, const char *help, bool repeat, size_t col, FILE *out)
{
    fprintf(out, "  %-*s  ", (int)col, text);
    if (strlen(text) > col)
        col = strlen(text);
    for (const char *p = help ? help : ""; *p; p++) {
        fputc(*p, out);
        if (*p == '\n')
            fprintf(out, "  %*s  ", (int)col, "");
    }
    if (repeat && !(help && strstr(help, "repeatable")))
        fputs(help && *help ? " (repeatable)" : "repeatable", out);
    fputc('\n', out);
}

static void print_option_lines(const cli_command *c, size_t col, FILE *out)
{
    for (size_t i = 0; i < c->nopts; i++) {
        char buf[128];
        option_text(&c->opts[i], buf, sizeof buf);
        print_option(buf, c->opts[i].help, c->opts[i].repeat, col, out);
    }
}

/* The synopsis lines of c; the first after "usage: " unless continuing. */
static void print_synopsis(const cli_command *c, bool first, FILE *out)
{
    const char *p = c->synopsis ? c->synopsis : c->name;
    while (*p) {
        const char *nl = strchr(p, '\n');
        int len = nl ? (int)(nl - p) : (int)strlen(p);
        const char *lead = first ? "usage: " : "       ";
        fprintf(out, "%s%s%.*s\n", lead, p[0] == ' ' ? "" : "floe ", len, p);
        first = false;
        p += len + (nl ? 1 : 0);
    }
}

/* Free text (about, notes) after a blank line, ending with a newline. */
static void print_paragraph(const char *text, FILE *out)
{
    if (!text || !*text)
        return;
    size_t n = strlen(text);
    fprintf(out, "\n%s%s", text, text[n - 1] == '\n' ? "" : "\n");
}

void cli_usage_synopsis(const cli_command *c, FILE *out)
{
    print_synopsis(c, true, out);
}

void cli_usage_synopses(const cli_command *const *cmds, size_t n, FILE *out)
{
    for (size_t i = 0; i < n; i++)
        print_synopsis(cmds[i], i == 0, out);
}

void cli_usage(const cli_command *c, FILE *out)
{
    print_synopsis(c, true, out);
    print_paragraph(c->about, out);
    size_t col = option_column(c);
    fprintf(out, "\noptions:\n");
    print_option_lines(c, col, out);
    print_option("-h, --help", "print this help", false, col, out);
    print_paragraph(c->notes, out);
}

void cli_usage_options(const cli_command *c, const char *heading, FILE *out)
{
    if (!c->nopts)
        return;
    fprintf(out, "\n%s:\n", heading);
    print_option_lines(c, option_column(c), out);
}

void cli_usage_subs(const cli_command *const *subs, size_t nsubs, const char *about, FILE *out)
{
    cli_usage_synopses(subs, nsubs, out);
    print_paragraph(about, out);
    for (size_t i = 0; i < nsubs; i++) {
        const char *sp = strrchr(subs[i]->name, ' ');
        char heading[64];
        snprintf(heading, sizeof heading, "%s options", sp ? sp + 1 : subs[i]->name);
        cli_usage_options(subs[i], heading, out);
    }
    fprintf(out, "\nEvery subcommand also takes -h, --help: its own usage.\n");
}
