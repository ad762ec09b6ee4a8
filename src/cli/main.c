/*
 * main.c - `floe`: dispatches to a subcommand (cli.h). Kept tiny: each
 * subcommand lives in its own cmd_<name>.c.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

int fl_cmd_serve(int argc, char **argv); /* cmd_serve.c */
int fl_cmd_pgcdc(int argc, char **argv); /* cmd_pgcdc.c */
int fl_cmd_mcp(int argc, char **argv);   /* cmd_mcp.c */
int fl_cmd_semantic(int argc, char **argv); /* cmd_semantic.c */

typedef struct fl_command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} fl_command;

static const fl_command commands[] = {
    {"parquet", fl_cmd_parquet, "inspect Parquet files: schema, meta, cat"},
    {"avro", fl_cmd_avro, "inspect Avro object container files: schema, meta, cat"},
    {"orc", fl_cmd_orc, "inspect ORC files: schema, meta, cat"},
    {"convert", fl_cmd_convert, "convert between CSV, JSON lines and Parquet"},
    {"table", fl_cmd_table, "Iceberg tables: read (cat, count, metadata tables) and write"},
    {"load", fl_cmd_load, "load CSV, JSON lines or Parquet files into an Iceberg table"},
    {"serve", fl_cmd_serve, "serve the Iceberg REST catalog over HTTP"},
    {"admin", fl_cmd_admin, "principals, roles and grants of the catalog's auth store"},
    {"sql", fl_cmd_sql, "SQL over Iceberg tables: interactive shell, -c SQL, -f FILE"},
    {"mcp", fl_cmd_mcp, "Model Context Protocol server over stdio, for LLM agents"},
    {"semantic", fl_cmd_semantic, "the semantic layer: validate, list, compile, query, replay metrics"},
    {"ingest", fl_cmd_ingest, "streaming ingestion: landing files into a table, exactly once"},
    {"maintain", fl_cmd_maintain, "compaction, snapshot expiry, manifests and orphans for every table"},
    {"pg-decode", fl_cmd_pgcdc, "a Postgres replication slot's changes as JSON lines (debug)"},
};

static void usage(FILE *out)
{
    fprintf(out,
            "floe %s - an open data lakehouse\n\n"
            "usage: floe <command> [options]\n\ncommands:\n",
            FLOE_VERSION);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "  %-10s %s\n", "version", "print the version");
    fprintf(out, "\nRun 'floe <command> --help' for a command's options.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "version") || !strcmp(cmd, "--version")) {
        printf("floe %s\n", FLOE_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(cmd, commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "floe: unknown command '%s'\n", cmd);
    usage(stderr);
    return 2;
}
