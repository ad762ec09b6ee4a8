/*
 * file_tool.c - the dispatcher of the file-format tools (file_tool.h):
 * help, unknown subcommands and options, stdin spooling, and the one-path
 * form of schema and meta, the same for every format.
 */
#include "cli/file_tool.h"

#include <string.h>

#include "floe/types.h"

#include "cli/stdin_file.h"

/* Runs one subcommand on its parsed arguments, FILE `-` spooled first. */
static int run_sub(const cli_file_tool *t, const cli_command *sub, const cli_args *a)
{
    const char *path = a->pos[0];
    char *spooled = NULL; /* the readers seek to the tail: stdin goes to a file */
    if (!strcmp(path, "-") && !(path = spooled = cli_stdin_spool(t->name)))
        return 1;
    int rc = sub == t->cat                  ? t->run_cat(path, a)
             : strstr(sub->name, " schema") ? t->schema(path)
                                            : t->meta(path);
    cli_stdin_release(spooled);
    return rc;
}

int cli_file_tool_main(const cli_file_tool *t, int argc, char **argv)
{
    char schema_name[32], meta_name[32], schema_syn[64], meta_syn[64];
    snprintf(schema_name, sizeof schema_name, "%s schema", t->name);
    snprintf(meta_name, sizeof meta_name, "%s meta", t->name);
    snprintf(schema_syn, sizeof schema_syn, "%s schema FILE", t->name);
    snprintf(meta_syn, sizeof meta_syn, "%s meta FILE", t->name);
    const cli_command schema = {.name = schema_name,
                                .synopsis = schema_syn,
                                .min_args = 1,
                                .max_args = 1},
                      meta = {
                          .name = meta_name, .synopsis = meta_syn, .min_args = 1, .max_args = 1};
    const cli_command *subs[] = {&schema, &meta, t->cat};
    const size_t nsubs = sizeof subs / sizeof subs[0];
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        cli_usage_subs(subs, nsubs, t->about, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const char *sub = argv[1];
    if (sub[0] == '-') {
        fprintf(stderr, "floe %s: unknown option '%s' (see floe %s --help)\n", t->name, sub,
                t->name);
        return 2;
    }
    for (size_t i = 0; i < nsubs; i++) {
        const char *sp = strchr(subs[i]->name, ' ');
        if (strcmp(sp + 1, sub))
            continue;
        cli_args a;
        int st;
        if (!cli_parse(subs[i], argc - 1, argv + 1, &a, &st))
            return st;
        st = run_sub(t, subs[i], &a);
        cli_args_free(&a);
        return st;
    }
    fprintf(stderr, "floe %s: unknown subcommand '%s'\n", t->name, sub);
    cli_usage_subs(subs, nsubs, t->about, stderr);
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
