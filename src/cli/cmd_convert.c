/*
 * cmd_convert.c - `floe convert`. Not built yet: it refuses with an error until its
 * owner lands the implementation.
 */
#include <stdio.h>

#include "cli/cli.h"

int fl_cmd_convert(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "floe convert: not implemented yet\n");
    return 1;
}
