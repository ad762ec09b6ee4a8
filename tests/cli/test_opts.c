/*
 * test_opts.c - the option parser and help printer of every floe command
 * (src/cli/opts.c): both value syntaxes, short options and bundles, "--",
 * "-" and negative numbers as positionals, repeatable values in order, the
 * usage errors and their exit status, and a --help that lists every option
 * of the table.
 */
#include "cli/opts.c"

#include "test.h"

enum { O_FORMAT, O_OUTPUT, O_WHERE, O_QUIET, O_ALIGN, O_TUPLES };
static const cli_opt opts[] = {
    [O_FORMAT] = {"format", 0, "F", false, "table | csv"},
    [O_OUTPUT] = {"output", 'o', "FILE", false, "write to FILE\n('-' = stdout)"},
    [O_WHERE] = {"where", 0, "EXPR", true, "a filter"},
    [O_QUIET] = {"quiet", 'q', NULL, false, "no summary"},
    [O_ALIGN] = {"no-align", 'A', NULL, false, "unaligned"},
    [O_TUPLES] = {"tuples-only", 't', NULL, false, "rows only"},
};
static const cli_command cmd = {
    .name = "demo sub",
    .synopsis = "demo sub IN [OUT] [options]\ndemo sub --second-form",
    .about = "  Demonstrates.",
    .opts = opts,
    .nopts = CLI_NOPTS(opts),
    .min_args = 1,
    .max_args = 2,
};

/* Parses a NULL-terminated word list (argv[0] = "sub"). */
static bool parse(cli_args *a, int *status, const char *const *words)
{
    static char *argv[32];
    int argc = 0;
    argv[argc++] = "sub";
    for (; *words; words++)
        argv[argc++] = (char *)*words;
    return cli_parse(&cmd, argc, argv, a, status);
}

#define ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

/* The stderr of a failing parse, captured. */
static char captured[1024];
static int parse_error(const char *const *words)
{
    fflush(stderr);
    FILE *f = tmpfile(), *saved = stderr;
    stderr = f;
    cli_args a;
    int status = -1;
    bool ok = parse(&a, &status, words);
    stderr = saved;
    rewind(f);
    size_t n = fread(captured, 1, sizeof captured - 1, f);
    captured[n] = 0;
    fclose(f);
    if (ok) {
        cli_args_free(&a);
        return -1;
    }
    return status;
}

static void test_value_syntaxes(void)
{
    cli_args a;
    int st;
    CHECK(parse(&a, &st, ARGS("in", "--format", "csv", "-o", "x.txt")));
    CHECK(!strcmp(cli_value(&a, O_FORMAT), "csv") && !strcmp(cli_value(&a, O_OUTPUT), "x.txt"));
    CHECK(a.npos == 1 && !strcmp(a.pos[0], "in"));
    cli_args_free(&a);
    CHECK(parse(&a, &st, ARGS("--format=jsonl", "in", "--output=o", "-oy")));
    CHECK(!strcmp(cli_value(&a, O_FORMAT), "jsonl"));
    CHECK(!strcmp(cli_value(&a, O_OUTPUT), "y")); /* the last wins */
    cli_args_free(&a);
    /* a value is taken verbatim, even "--help" or "-x" */
    CHECK(parse(&a, &st, ARGS("in", "--format", "--help", "-o", "-q")));
    CHECK(!strcmp(cli_value(&a, O_FORMAT), "--help") && !strcmp(cli_value(&a, O_OUTPUT), "-q"));
    CHECK(!cli_has(&a, O_QUIET));
    cli_args_free(&a);
}

static void test_flags_and_positionals(void)
{
    cli_args a;
    int st;
    CHECK(parse(&a, &st, ARGS("-At", "-", "--quiet")));
    CHECK(cli_has(&a, O_ALIGN) && cli_has(&a, O_TUPLES) && cli_has(&a, O_QUIET));
    CHECK(!cli_value(&a, O_QUIET) && !cli_has(&a, O_FORMAT) && !cli_value(&a, O_FORMAT));
    CHECK(a.npos == 1 && !strcmp(a.pos[0], "-"));
    cli_args_free(&a);
    CHECK(parse(&a, &st, ARGS("-5", "--", "--format")));
    CHECK(a.npos == 2 && !strcmp(a.pos[0], "-5") && !strcmp(a.pos[1], "--format"));
    CHECK(!cli_has(&a, O_FORMAT));
    cli_args_free(&a);
    /* a bundle gives more options than there are words */
    CHECK(parse(&a, &st, ARGS("-AtqAtqAtq", "in")));
    CHECK(a.ngiven == 9 && cli_has(&a, O_QUIET) && a.npos == 1);
    cli_args_free(&a);
    CHECK(parse(&a, &st, ARGS("-tAo", "out", "in")));
    CHECK(cli_has(&a, O_TUPLES) && !strcmp(cli_value(&a, O_OUTPUT), "out") && a.npos == 1);
    cli_args_free(&a);
}

static void test_repeatable_in_order(void)
{
    cli_args a;
    int st, n;
    CHECK(parse(&a, &st, ARGS("--where", "a", "in", "-q", "--where=b", "--where", "c")));
    const char *const *w = cli_values(&a, O_WHERE, &n);
    CHECK(n == 3 && !strcmp(w[0], "a") && !strcmp(w[1], "b") && !strcmp(w[2], "c"));
    CHECK(cli_values(&a, O_FORMAT, &n) == NULL && n == 0);
    CHECK(a.ngiven == 4 && a.given[1].opt == O_QUIET && a.given[3].opt == O_WHERE);
    cli_args_free(&a);
}

static void test_errors(void)
{
    CHECK(parse_error(ARGS("in", "--bogus")) == 2);
    CHECK(strstr(captured, "floe demo sub: unknown option '--bogus' (see floe demo sub --help)"));
    CHECK(parse_error(ARGS("in", "--bogus=1")) == 2);
    CHECK(strstr(captured, "unknown option '--bogus'"));
    CHECK(parse_error(ARGS("in", "-Z")) == 2);
    CHECK(strstr(captured, "unknown option '-Z'"));
    CHECK(parse_error(ARGS("in", "--format")) == 2);
    CHECK(strstr(captured, "floe demo sub: --format needs a value"));
    CHECK(parse_error(ARGS("in", "-o")) == 2);
    CHECK(strstr(captured, "-o needs a value"));
    CHECK(parse_error(ARGS("in", "--quiet=yes")) == 2);
    CHECK(strstr(captured, "--quiet takes no value"));
    CHECK(parse_error(ARGS("a", "b", "c")) == 2);
    CHECK(strstr(captured, "unexpected argument 'c'"));
    CHECK(parse_error(ARGS("--quiet")) == 2); /* IN missing: the synopsis */
    CHECK(strstr(captured, "usage: floe demo sub IN [OUT] [options]"));
    /* the first of an error and --help wins */
    CHECK(parse_error(ARGS("--bogus", "--help")) == 2);
}

/* --help on stdout: status 0, every option of the table listed. */
static void test_help(void)
{
    fflush(stdout);
    FILE *f = tmpfile(), *saved = stdout;
    stdout = f;
    cli_args a;
    int st = -1;
    bool ok = parse(&a, &st, ARGS("--help", "--bogus"));
    stdout = saved;
    char text[4096];
    rewind(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = 0;
    fclose(f);
    CHECK(!ok && st == 0);
    const char *head = "usage: floe demo sub IN [OUT] [options]\n"
                       "       floe demo sub --second-form\n";
    CHECK(!strncmp(text, head, strlen(head)));
    CHECK(strstr(text, "\noptions:\n"));
    for (size_t i = 0; i < CLI_NOPTS(opts); i++) {
        char want[64];
        snprintf(want, sizeof want, "--%s", opts[i].name);
        CHECK(strstr(text, want) != NULL);
    }
    CHECK(strstr(text, "  -o, --output FILE  write to FILE\n"
                       "                     ('-' = stdout)\n"));
    CHECK(strstr(text, "  --where EXPR       a filter (repeatable)\n"));
    CHECK(strstr(text, "  -h, --help         print this help\n"));
    CHECK(parse_error(ARGS("-h")) == 0);
}

static void test_lookup(void)
{
    CHECK(cli_find(&cmd, "where") == O_WHERE);
    CHECK(cli_find(&cmd, "wher") == -1);
}

int main(void)
{
    TEST_RUN(test_value_syntaxes);
    TEST_RUN(test_flags_and_positionals);
    TEST_RUN(test_repeatable_in_order);
    TEST_RUN(test_errors);
    TEST_RUN(test_help);
    TEST_RUN(test_lookup);
    return TEST_EXIT();
}
