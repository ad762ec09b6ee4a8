/*
 * cmd_parquet.c - `floe parquet`. Not built yet: it refuses with an error until its
 * owner lands the implementation.
 */
#include <stdio.h>

#include "cli/cli.h"

int fl_cmd_parquet(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "floe parquet: not implemented yet\n");
    return 1;
}
