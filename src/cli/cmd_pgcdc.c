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

#include "cli/opts.h"

enum {
    O_DSN,
    O_SLOT,
    O_PUBLICATION,
    O_CREATE_SLOT,
    O_TEMPORARY,
    O_SNAPSHOT,
    O_START,
    O_PROTO,
    O_STREAMING,
    O_CONFIRM,
    O_MAX_TXNS,
    O_IDLE_MS
};
static const cli_opt options[] = {
    [O_DSN] = {"dsn", 0, "CONNINFO", false, "the server (libpq connection string; required)"},
    [O_SLOT] = {"slot", 0, "NAME", false, "the replication slot (required)"},
    [O_PUBLICATION] = {"publication", 0, "PUB[,PUB...]", false, "the publications (required)"},
    [O_CREATE_SLOT] = {"create-slot", 0, NULL, false, "create the slot first (else it must exist)"},
    [O_TEMPORARY] = {"temporary", 0, NULL, false,
                     "with --create-slot: the slot dies with the connection"},
    [O_SNAPSHOT] = {"snapshot", 0, NULL, false,
                    "with --create-slot: print the initial snapshot's rows first"},
    [O_START] = {"start", 0, "LSN", false, "start at X/Y (default: the slot's confirmed position)"},
    [O_PROTO] = {"proto", 0, "1|2", false, "pgoutput protocol version (default 1)"},
    [O_STREAMING] = {"streaming", 0, NULL, false,
                     "protocol 2: stream large in-progress transactions"},
    [O_CONFIRM] = {"confirm", 0, NULL, false,
                   "confirm each transaction once printed (advances the slot)"},
    [O_MAX_TXNS] = {"max-txns", 0, "N", false, "stop after N transactions"},
    [O_IDLE_MS] = {"idle-ms", 0, "N", false, "stop after N ms without a message"},
};
static const cli_command pgcdc_cmd = {
    .name = "pg-decode",
    .synopsis = "pg-decode --dsn CONNINFO --slot NAME --publication PUB[,PUB...] [options]",
    .opts = options,
    .nopts = CLI_NOPTS(options),
    .notes = "Prints one JSON object per event (relation, begin, insert, update, delete,\n"
             "truncate, commit, stream_*), values as PostgreSQL's text.",
};

int fl_cmd_pgcdc(int argc, char **argv)
{
    cli_args p;
    int st;
    if (!cli_parse(&pgcdc_cmd, argc, argv, &p, &st))
        return st;
    fl_pgcdc_decode_options o;
    memset(&o, 0, sizeof o);
    o.conninfo = cli_value(&p, O_DSN);
    o.slot = cli_value(&p, O_SLOT);
    o.publications = cli_value(&p, O_PUBLICATION);
    o.start_lsn = cli_value(&p, O_START);
    o.create_slot = cli_has(&p, O_CREATE_SLOT);
    o.temporary = cli_has(&p, O_TEMPORARY);
    o.snapshot = cli_has(&p, O_SNAPSHOT);
    o.streaming = cli_has(&p, O_STREAMING);
    o.confirm = cli_has(&p, O_CONFIRM);
    if (cli_has(&p, O_PROTO))
        o.proto_version = (uint32_t)strtoul(cli_value(&p, O_PROTO), NULL, 10);
    if (cli_has(&p, O_MAX_TXNS))
        o.max_txns = strtol(cli_value(&p, O_MAX_TXNS), NULL, 10);
    if (cli_has(&p, O_IDLE_MS))
        o.idle_ms = (int)strtol(cli_value(&p, O_IDLE_MS), NULL, 10);
    bool complete = o.conninfo && o.slot && o.publications && !p.npos;
    cli_args_free(&p); /* o keeps pointers into argv only */
    if (!complete) {
        cli_usage(&pgcdc_cmd, stderr);
        return 2;
    }
    fl_error err;
    if (fl_pgcdc_decode(&o, stdout, &err) != FL_OK) {
        fprintf(stderr, "floe pg-decode: %s\n", err.msg);
        return 1;
    }
    return 0;
}
