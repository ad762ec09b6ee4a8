/*
 * cmd_pgcdc.c - `floe pg-decode`: a Postgres logical replication slot's
 * change stream (pgoutput) as JSON lines, for debugging a CDC source
 * (floe/pgcdc.h has the output format; src/ingest/README.md "Postgres CDC" the design).
 * It reads the slot without a sink: nothing is confirmed unless --confirm.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/pgcdc.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: floe pg-decode --dsn CONNINFO --slot NAME --publication PUB[,PUB...] "
            "[options]\n"
            "  --create-slot        create the slot first (else it must exist)\n"
            "  --temporary          with --create-slot: the slot dies with the connection\n"
            "  --snapshot           with --create-slot: print the initial snapshot's rows first\n"
            "  --start LSN          start at X/Y (default: the slot's confirmed position)\n"
            "  --proto 1|2          pgoutput protocol version (default 1)\n"
            "  --streaming          protocol 2: stream large in-progress transactions\n"
            "  --confirm            confirm each transaction once printed (advances the slot)\n"
            "  --max-txns N         stop after N transactions\n"
            "  --idle-ms N          stop after N ms without a message\n"
            "Prints one JSON object per event (relation, begin, insert, update, delete,\n"
            "truncate, commit, stream_*), values as PostgreSQL's text.\n");
}

static bool flag(const char *arg, fl_pgcdc_decode_options *o)
{
    if (!strcmp(arg, "--create-slot"))
        o->create_slot = true;
    else if (!strcmp(arg, "--temporary"))
        o->temporary = true;
    else if (!strcmp(arg, "--snapshot"))
        o->snapshot = true;
    else if (!strcmp(arg, "--streaming"))
        o->streaming = true;
    else if (!strcmp(arg, "--confirm"))
        o->confirm = true;
    else
        return false;
    return true;
}

static bool option(const char *name, const char *val, fl_pgcdc_decode_options *o)
{
    if (!strcmp(name, "--dsn"))
        o->conninfo = val;
    else if (!strcmp(name, "--slot"))
        o->slot = val;
    else if (!strcmp(name, "--publication"))
        o->publications = val;
    else if (!strcmp(name, "--start"))
        o->start_lsn = val;
    else if (!strcmp(name, "--proto"))
        o->proto_version = (uint32_t)strtoul(val, NULL, 10);
    else if (!strcmp(name, "--max-txns"))
        o->max_txns = strtol(val, NULL, 10);
    else if (!strcmp(name, "--idle-ms"))
        o->idle_ms = (int)strtol(val, NULL, 10);
    else
        return false;
    return true;
}

int fl_cmd_pgcdc(int argc, char **argv)
{
    fl_pgcdc_decode_options o;
    memset(&o, 0, sizeof o);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        }
        if (flag(argv[i], &o))
            continue;
        if (i + 1 >= argc || !option(argv[i], argv[i + 1], &o)) {
            fl_pgcdc_decode_options probe = o; /* known option, only its value missing? */
            if (i + 1 >= argc && option(argv[i], "0", &probe))
                fprintf(stderr, "floe pg-decode: %s needs a value\n", argv[i]);
            else
                fprintf(stderr, "floe pg-decode: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
        i++;
    }
    if (!o.conninfo || !o.slot || !o.publications) {
        usage(stderr);
        return 2;
    }
    fl_error err;
    if (fl_pgcdc_decode(&o, stdout, &err) != FL_OK) {
        fprintf(stderr, "floe pg-decode: %s\n", err.msg);
        return 1;
    }
    return 0;
}
