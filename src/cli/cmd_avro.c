/*
 * cmd_avro.c - `floe avro`. Not built yet: it refuses with an error until its
 * owner lands the implementation.
 */
#include <stdio.h>

#include "cli/cli.h"

int fl_cmd_avro(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "floe avro: not implemented yet\n");
    return 1;
}
