/*
 * file_tool.c - the dispatcher of the file-format tools (file_tool.h):
 * help, unknown subcommands and options, stdin spooling, and the one-path
 * form of schema and meta, the same for every format.
 */
#include "cli/file_tool.h"

#include <string.h>

#include "floe/types.h"

#include "cli/cli.h"
#include "cli/stdin_file.h"

int cli_file_tool_main(const cli_file_tool *t, int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        t->usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const char *sub = argv[1];
    if (sub[0] == '-') {
        cli_unknown_option(t->name, sub);
        t->usage(stderr);
        return 2;
    }
    if (cli_help_requested(argc - 1, argv + 1)) {
        t->usage(stdout);
        return 0;
    }
    bool one_file = !strcmp(sub, "schema") || !strcmp(sub, "meta");
    if (one_file || !strcmp(sub, "cat")) {
        char *spooled; /* FILE `-` is stdin, spooled: the readers seek to the tail */
        int got = cli_stdin_arg(argc, argv, 2, t->name, &spooled);
        if (got < 0)
            return 1;
        if (got) {
            int rc = cli_file_tool_main(t, argc, argv);
            cli_stdin_release(spooled);
            return rc;
        }
    }
    if (!strcmp(sub, "cat"))
        return t->cat(argc - 1, argv + 1);
    if (one_file) {
        char cmd[64];
        snprintf(cmd, sizeof cmd, "%s %s", t->name, sub);
        for (int i = 2; i < argc; i++)
            if (argv[i][0] == '-' && argv[i][1])
                return cli_unknown_option(cmd, argv[i]);
        if (argc != 3) {
            t->usage(stderr);
            return 2;
        }
        return !strcmp(sub, "schema") ? t->schema(argv[2]) : t->meta(argv[2]);
    }
    fprintf(stderr, "floe %s: unknown subcommand '%s'\n", t->name, sub);
    t->usage(stderr);
    return 2;
}

void cli_print_floe_field(const fl_field *f, int depth)
{
    char tn[256];
    const fl_type *t = &f->type;
    if (fl_type_is_nested(t))
        snprintf(tn, sizeof tn, "%s",
                 t->id == FL_TYPE_STRUCT ? "struct"
                 : t->id == FL_TYPE_LIST ? "list"
                                         : "map");
    else
        fl_type_format(t, tn, sizeof tn);
    printf("%*s%s: %s%s", depth * 2 + 2, "", f->name ? f->name : "", tn,
           f->nullable ? "" : " not null");
    if (f->field_id > 0)
        printf(" (id %d)", f->field_id);
    printf("\n");
    if (depth < 100)
        for (uint32_t c = 0; c < t->nchildren; c++)
            cli_print_floe_field(&t->children[c], depth + 1);
}
