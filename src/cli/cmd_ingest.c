/*
 * cmd_ingest.c - `floe ingest`: the standalone pipeline runtime
 * (include/floe/ingest.h, src/ingest/README.md, docs/ingest.md).
 *
 *   floe ingest files FOLDER --into NS.TABLE [--pipeline NAME]
 *        [--checkpoint-interval 30s] [--checkpoint-rows N] [--poll 1s] [--once]
 *        [--no-dead-letter]
 *        [--catalog URI] [--warehouse DIR]
 *   floe ingest kafka --brokers HOST:PORT --topic T[,T2] --into NS.TABLE [--pipeline NAME]
 *        [--checkpoint-interval 30s] [--once-idle 2s] [--no-dead-letter]
 *   floe ingest postgres --dsn URL --slot S --publication P --namespace NS [--pipeline NAME]
 *        [--checkpoint-interval 30s] [--checkpoint-rows N] [--once-idle 2s]
 *   floe ingest status --into NS.TABLE [--pipeline NAME] [--positions]
 *
 * `files` loops: poll the folder, write what is new and stable, and
 * checkpoint when due (time or rows); SIGTERM / SIGINT end the loop after a
 * final checkpoint. --once polls twice (a file must look the same on two
 * polls to be taken), checkpoints and exits. The default pipeline name is
 * "files-<table name>". Files that fail go to NS.TABLE__dead_letter (created
 * on first use; its checkpoint commits before the main one). A fenced run (a newer instance took
 * the pipeline) exits 1 with the fencing message; so does any failed checkpoint (what it buffered
 * is re-read by the next run).
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/cmd_table_write.h"
#include "cli/opts.h"
#include "cli/units.h"
#include "floe/ice_table.h"
#include "floe/ingest.h"

typedef struct ingest_args {
    const char *folder, *into, *pipeline, *catalog, *warehouse, *brokers, *topics;
    const char *dsn, *slot, *publication, *ns;
    uint64_t interval_ms, rows, poll_ms, once_idle_ms;
    bool once, show_positions, no_dead_letter;
} ingest_args;

/* The one piece of process state a signal handler may touch. */
static volatile sig_atomic_t stop_requested;
static void on_stop(int sig)
{
    (void)sig;
    stop_requested = 1;
}

enum {
    O_INTO,
    O_PIPELINE,
    O_CHECKPOINT_INTERVAL,
    O_CHECKPOINT_ROWS,
    O_POLL,
    O_ONCE,
    O_NO_DEAD_LETTER,
    O_BROKERS,
    O_TOPIC,
    O_ONCE_IDLE,
    O_POSITIONS,
    O_DSN,
    O_SLOT,
    O_PUBLICATION,
    O_NAMESPACE,
    O_CATALOG,
    O_WAREHOUSE
};
static const cli_opt options[] = {
    [O_INTO] = {"into", 0, "NS.TABLE", false, "the table (required)"},
    [O_PIPELINE] = {"pipeline", 0, "NAME", false, "pipeline name (default files-<table>)"},
    [O_CHECKPOINT_INTERVAL] = {"checkpoint-interval", 0, "D", false,
                               "commit at least this often (default 30s)"},
    [O_CHECKPOINT_ROWS] = {"checkpoint-rows", 0, "N", false,
                           "or once N rows are buffered (default 1000000)"},
    [O_POLL] = {"poll", 0, "D", false, "folder poll interval (default 1s)"},
    [O_ONCE] = {"once", 0, NULL, false, "ingest what is there, commit, exit"},
    [O_NO_DEAD_LETTER] = {"no-dead-letter", 0, NULL, false,
                          "failed files only in positions and stderr (default:\n"
                          "also a row of NS.TABLE__dead_letter each)"},
    [O_BROKERS] = {"brokers", 0, "HOST:PORT", false, "kafka: bootstrap servers (comma-separated)"},
    [O_TOPIC] = {"topic", 0, "T[,T2]", false, "kafka: topics (comma-separated)"},
    [O_ONCE_IDLE] = {"once-idle", 0, "D", false,
                     "kafka: commit and exit after D without a message"},
    [O_POSITIONS] = {"positions", 0, NULL, false, "status: list every committed position"},
    [O_DSN] = {"dsn", 0, "URL", false, "postgres: the source database (libpq URI or keywords)"},
    [O_SLOT] = {"slot", 0, "NAME", false, "postgres: replication slot (created when missing)"},
    [O_PUBLICATION] = {"publication", 0, "P[,P2]", false, "postgres: publications to replicate"},
    [O_NAMESPACE] = {"namespace", 0, "NS", false,
                     "postgres: where the tables land (default: default)"},
    [O_CATALOG] = {"catalog", 0, "URI", false, "as other floe commands ($FLOE_CATALOG ...)"},
    [O_WAREHOUSE] = {"warehouse", 0, "DIR", false, "as other floe commands ($FLOE_WAREHOUSE ...)"},
};
#define INGEST_ABOUT                                                                               \
    "  Ingests CSV, JSON lines and Parquet files dropped into FOLDER into an existing\n"           \
    "  Iceberg table, each file exactly once, committing source positions with the rows."
static const cli_command files_cmd = {
    .name = "ingest files",
    .synopsis = "ingest files FOLDER --into NS.TABLE [options]",
    .about = INGEST_ABOUT,
    .opts = options,
    .nopts = CLI_NOPTS(options),
    .min_args = 0, /* FOLDER is checked with its own message */
    .max_args = 1,
};
static const cli_command kafka_cmd = {
    .name = "ingest kafka",
    .synopsis = "ingest kafka --brokers HOST:PORT --topic T[,T2] --into NS.TABLE [options]",
    .opts = options,
    .nopts = CLI_NOPTS(options),
};
static const cli_command postgres_cmd = {
    .name = "ingest postgres",
    .synopsis = "ingest postgres --dsn URL --slot S --publication P [--namespace NS] [options]",
    .about = "  Replicates the tables of a publication (logical replication, pgoutput) into\n"
             "  one Iceberg table each, NS.<table>, exactly once: inserts, updates and deletes\n"
             "  by primary key, TRUNCATE. The first run copies the tables from a snapshot.",
    .opts = options,
    .nopts = CLI_NOPTS(options),
};
static const cli_command status_cmd = {
    .name = "ingest status",
    .synopsis = "ingest status --into NS.TABLE [--pipeline NAME] [--positions]",
    .opts = options,
    .nopts = CLI_NOPTS(options),
};
static const cli_command *const subcommands[] = {&files_cmd, &kafka_cmd, &postgres_cmd,
                                                 &status_cmd};

/* `floe ingest --help`: every form, then the one option table. */
static void usage(FILE *out)
{
    cli_usage_synopses(subcommands, sizeof subcommands / sizeof subcommands[0], out);
    fprintf(out, "\n%s\n", INGEST_ABOUT);
    cli_usage_options(&files_cmd, "options", out);
}

/* A duration or count option: ok when absent or valid; else a usage error. */
static int checked(const cli_command *cmd, const cli_args *p, int opt, uint64_t *out, bool size)
{
    const char *v = cli_value(p, opt);
    if (!v)
        return 0;
    if ((size ? cli_parse_size(v, out) : cli_parse_ms(v, out)) && *out > 0)
        return 0;
    return cli_usage_error(cmd, "bad value for --%s: '%s'", options[opt].name, v);
}

/* 0 = run, -1 = help printed, else the exit status (message printed). */
static int parse_args(const cli_command *cmd, int argc, char **argv, ingest_args *a)
{
    memset(a, 0, sizeof *a);
    a->interval_ms = 30000;
    a->poll_ms = 1000;
    cli_args p;
    int st;
    if (!cli_parse(cmd, argc, argv, &p, &st))
        return st ? st : -1;
    a->folder = p.npos ? p.pos[0] : NULL;
    a->into = cli_value(&p, O_INTO);
    a->pipeline = cli_value(&p, O_PIPELINE);
    a->brokers = cli_value(&p, O_BROKERS);
    a->topics = cli_value(&p, O_TOPIC);
    a->dsn = cli_value(&p, O_DSN);
    a->slot = cli_value(&p, O_SLOT);
    a->publication = cli_value(&p, O_PUBLICATION);
    a->ns = cli_value(&p, O_NAMESPACE);
    a->catalog = cli_value(&p, O_CATALOG);
    a->warehouse = cli_value(&p, O_WAREHOUSE);
    a->once = cli_has(&p, O_ONCE);
    a->no_dead_letter = cli_has(&p, O_NO_DEAD_LETTER);
    a->show_positions = cli_has(&p, O_POSITIONS);
    st = checked(cmd, &p, O_ONCE_IDLE, &a->once_idle_ms, false);
    if (!st)
        st = checked(cmd, &p, O_CHECKPOINT_INTERVAL, &a->interval_ms, false);
    if (!st)
        st = checked(cmd, &p, O_POLL, &a->poll_ms, false);
    if (!st)
        st = checked(cmd, &p, O_CHECKPOINT_ROWS, &a->rows, true);
    cli_args_free(&p);
    if (!st && !a->into && cmd != &postgres_cmd)
        st = cli_usage_error(cmd, "--into NS.TABLE is required");
    if (!st && cmd == &postgres_cmd && (!a->dsn || !a->slot || !a->publication))
        st = cli_usage_error(cmd, "--dsn, --slot and --publication are required");
    return st;
}

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(uint64_t ms)
{
    struct timespec ts = {.tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL); /* a signal cuts it short: the loop looks at the flag */
}

static const char *default_name(const ingest_args *a, const fl_table_ident *id, char *buf,
                                size_t cap)
{
    if (a->pipeline)
        return a->pipeline;
    snprintf(buf, cap, "%s-%s", a->brokers ? "kafka" : "files", id->name);
    return buf;
}

/* The dead letters first: a failure they record is skipped after a restart
 * even when the main checkpoint did not land. */
static fl_status checkpoint(fl_ingest_sink *s, fl_ingest_sink *dlq, fl_error *err)
{
    fl_ingest_commit ci;
    if (dlq) {
        FL_TRY(fl_ingest_sink_checkpoint(dlq, &ci, err));
        if (ci.committed)
            fprintf(stderr, "floe ingest: %" PRIu64 " dead letter%s committed\n", ci.rows,
                    ci.rows == 1 ? "" : "s");
    }
    FL_TRY(fl_ingest_sink_checkpoint(s, &ci, err));
    if (ci.committed)
        fprintf(stderr,
                "floe ingest: checkpoint %" PRId64 ": %" PRIu64 " rows, %u data file%s, "
                "snapshot %" PRId64 "\n",
                ci.checkpoint, ci.rows, ci.data_files, ci.data_files == 1 ? "" : "s",
                ci.snapshot_id);
    return FL_OK;
}

static fl_status run_files(const ingest_args *a, fl_catalog *cat, const fl_table_ident *id,
                           fl_error *err)
{
    char nbuf[160];
    const char *name = default_name(a, id, nbuf, sizeof nbuf);
    fl_ingest_options opt = {.checkpoint_interval_ms = (int64_t)a->interval_ms,
                             .checkpoint_rows = a->rows};
    fl_ingest_files *f = NULL;
    fl_ingest_sink *s = NULL;
    FL_TRY(fl_ingest_files_open(a->folder, &f, err));
    fl_ingest_sink *dlq = NULL;
    fl_status rc = fl_ingest_sink_open(cat, id, name, &opt, &s, err);
    if (rc == FL_OK && !a->no_dead_letter) {
        rc = fl_ingest_dead_letter_open(cat, id, name, &opt, &dlq, err);
        if (rc == FL_OK)
            fl_ingest_files_set_dead_letter(f, dlq);
    }
    if (rc == FL_OK)
        fprintf(stderr, "floe ingest: pipeline %s on %s, epoch %" PRId64 "\n", name, a->into,
                fl_ingest_sink_epoch(s));
    uint64_t files = 0, failed = 0, rows = 0;
    for (int polls = 0; rc == FL_OK && !stop_requested; polls++) {
        fl_ingest_files_stats st;
        rc = fl_ingest_files_poll(f, s, &st, err);
        files += st.files_ingested;
        failed += st.files_failed;
        rows += st.rows;
        int64_t now = wall_ms();
        if (rc == FL_OK && (fl_ingest_sink_due(s, now) || (dlq && fl_ingest_sink_due(dlq, now))))
            rc = checkpoint(s, dlq, err);
        if (a->once && polls >= 1 && !st.more)
            break;
        if (st.more) /* a checkpoint was due mid-poll: go on at once */
            continue;
        if (rc == FL_OK && !stop_requested)
            sleep_ms(a->poll_ms);
    }
    if (rc == FL_OK)
        rc = checkpoint(s, dlq, err); /* --once, SIGTERM, SIGINT: commit what is buffered */
    if (rc == FL_OK)
        fprintf(stderr, "floe ingest: %" PRIu64 " file%s, %" PRIu64 " rows, %" PRIu64 " failed\n",
                files, files == 1 ? "" : "s", rows, failed);
    fl_ingest_sink_close(dlq);
    fl_ingest_sink_close(s);
    fl_ingest_files_close(f);
    return rc;
}

/* Polls until SIGTERM/SIGINT (or --once-idle), checkpointing when due and
 * once more at the end; the source checkpoints on its own at rebalances. */
static fl_status run_kafka(const ingest_args *a, fl_catalog *cat, const fl_table_ident *id,
                           fl_error *err)
{
    char nbuf[160];
    const char *name = default_name(a, id, nbuf, sizeof nbuf);
    fl_ingest_options opt = {.checkpoint_interval_ms = (int64_t)a->interval_ms,
                             .checkpoint_rows = a->rows};
    fl_ingest_sink *s = NULL, *dlq = NULL;
    fl_ingest_kafka *k = NULL;
    fl_status rc = fl_ingest_sink_open(cat, id, name, &opt, &s, err);
    if (rc == FL_OK && !a->no_dead_letter)
        rc = fl_ingest_dead_letter_open(cat, id, name, &opt, &dlq, err);
    if (rc == FL_OK)
        rc = fl_ingest_kafka_open(a->brokers, a->topics, s, dlq, &k, err);
    if (rc == FL_OK)
        fprintf(stderr, "floe ingest: pipeline %s on %s, epoch %" PRId64 "\n", name, a->into,
                fl_ingest_sink_epoch(s));
    uint64_t rows = 0, failed = 0;
    int64_t last = wall_ms();
    while (rc == FL_OK && !stop_requested) {
        fl_ingest_kafka_stats st;
        rc = fl_ingest_kafka_poll(k, 200, &st, err);
        rows += st.rows;
        failed += st.failed;
        int64_t now = wall_ms();
        if (st.messages)
            last = now;
        if (rc == FL_OK && (st.due || fl_ingest_sink_due(s, now)))
            rc = checkpoint(s, dlq, err);
        if (a->once_idle_ms && now - last >= (int64_t)a->once_idle_ms)
            break;
    }
    if (rc == FL_OK)
        rc = checkpoint(s, dlq, err);
    if (rc == FL_OK)
        fprintf(stderr, "floe ingest: %" PRIu64 " rows, %" PRIu64 " failed\n", rows, failed);
    fl_ingest_kafka_close(k); /* leaves the group; what is not committed is re-read */
    fl_ingest_sink_close(dlq);
    fl_ingest_sink_close(s);
    return rc;
}

/* Streams until SIGTERM/SIGINT (or --once-idle without a source
 * transaction), checkpointing when due and once more at the end. */
static fl_status run_postgres(const ingest_args *a, fl_cli_catalog *c, fl_error *err)
{
    fl_arena ar;
    fl_arena_init(&ar, 0);
    fl_table_ident probe = {0};
    fl_status rc = fl_namespace_parse(a->ns ? a->ns : "default", &ar, &probe.ns, err);
    probe.name = "";
    if (rc == FL_OK)
        rc = fl_cli_ensure_namespace(c, &probe, err);
    fl_ingest_pg_options o = {.conninfo = a->dsn,
                              .slot = a->slot,
                              .publication = a->publication,
                              .ns = probe.ns,
                              .pipeline = a->pipeline,
                              .sink = {.checkpoint_interval_ms = (int64_t)a->interval_ms,
                                       .checkpoint_rows = a->rows}};
    fl_ingest_pg *p = NULL;
    if (rc == FL_OK)
        rc = fl_ingest_pg_open(c->cat, &o, &p, err);
    fl_ingest_pg_stats st = {0};
    if (rc == FL_OK)
        fprintf(stderr, "floe ingest: pipeline %s: %u table%s of publication %s\n",
                fl_ingest_pg_name(p), fl_ingest_pg_ntables(p),
                fl_ingest_pg_ntables(p) == 1 ? "" : "s", a->publication);
    uint64_t seen = 0;
    int64_t last = wall_ms();
    while (rc == FL_OK && !stop_requested) {
        rc = fl_ingest_pg_poll(p, 200, &st, err);
        int64_t now = wall_ms();
        if (st.txns != seen) {
            seen = st.txns;
            last = now;
        }
        uint32_t n = 0;
        if (rc == FL_OK && fl_ingest_pg_due(p, now)) {
            rc = fl_ingest_pg_checkpoint(p, &n, err);
            if (rc == FL_OK && n)
                fprintf(stderr, "floe ingest: checkpoint: %u table%s, %" PRIu64 " changes so far\n",
                        n, n == 1 ? "" : "s", st.changes);
        }
        if (a->once_idle_ms && now - last >= (int64_t)a->once_idle_ms)
            break;
    }
    while (rc == FL_OK && fl_ingest_pg_in_txn(p)) /* finish the transaction being read */
        rc = fl_ingest_pg_poll(p, 200, &st, err);
    if (rc == FL_OK)
        rc = fl_ingest_pg_checkpoint(p, NULL, err);
    if (rc == FL_OK)
        fprintf(stderr,
                "floe ingest: %" PRIu64 " transactions, %" PRIu64 " changes%s, %" PRIu64
                " snapshot rows\n",
                st.txns, st.changes, st.skipped ? " (some already held: skipped)" : "",
                st.snapshot_rows);
    fl_ingest_pg_close(p);
    fl_arena_free(&ar);
    return rc;
}

/* "dead letters: N (in NS.TABLE__dead_letter)" when that table has the pipeline's. */
static void print_dead_letters(fl_catalog *cat, const fl_table_ident *id, const char *name)
{
    fl_arena ar;
    fl_arena_init(&ar, 0);
    fl_table_ident dl = *id;
    dl.name = fl_arena_sprintf(&ar, "%s%s", id->name, FL_INGEST_DEAD_LETTER_SUFFIX);
    fl_ice_table *t = NULL;
    fl_error err = {0};
    fl_ingest_state st;
    if (dl.name && fl_ice_table_load(cat, &dl, &t, &err) == FL_OK &&
        fl_ingest_state_read(t->io, &t->meta, name, &ar, &st, &err) == FL_OK && st.has_checkpoint)
        printf("dead letters: %u (in %s)\n", st.positions.n, dl.name);
    fl_ice_table_free(t);
    fl_arena_free(&ar);
}

static fl_status run_status(const ingest_args *a, fl_catalog *cat, const fl_table_ident *id,
                            fl_error *err)
{
    char nbuf[160];
    const char *name = default_name(a, id, nbuf, sizeof nbuf);
    fl_ice_table *t = NULL;
    FL_TRY(fl_ice_table_load(cat, id, &t, err));
    fl_arena ar;
    fl_arena_init(&ar, 0);
    fl_ingest_state st;
    fl_status rc = fl_ingest_state_read(t->io, &t->meta, name, &ar, &st, err);
    for (int tries = 0; rc == FL_ENOTFOUND && tries < 3; tries++) {
        /* a checkpoint landed meanwhile and deleted the side file we were
         * sent to: the newer metadata names the newer one */
        if ((rc = fl_ice_table_refresh(t, err)) == FL_OK)
            rc = fl_ingest_state_read(t->io, &t->meta, name, &ar, &st, err);
    }
    if (rc == FL_OK) {
        uint32_t done = 0, errors = 0;
        for (uint32_t i = 0; i < st.positions.n; i++) {
            const char *v = st.positions.items[i].value;
            if (!strncmp(st.positions.items[i].key, "file:", 5))
                strstr(v, ":error:") ? errors++ : done++;
        }
        printf("pipeline: %s\ntable: %s\nepoch: %" PRId64 "\n", name, a->into, st.epoch);
        if (st.has_checkpoint) {
            time_t secs = (time_t)(st.timestamp_ms / 1000);
            struct tm tm;
            char when[64];
            gmtime_r(&secs, &tm);
            strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
            printf("checkpoint: %" PRId64 " (snapshot %" PRId64 ", epoch %" PRId64 ", %s)\n",
                   st.checkpoint, st.snapshot_id, st.commit_epoch, when);
            if (st.source_lag_ms >= 0) /* recorded by the commit */
                printf("source lag: %" PRId64 " ms (at that checkpoint)\n", st.source_lag_ms);
        } else {
            printf("checkpoint: none\n");
        }
        printf("positions: %u\nfiles done: %u\nfiles failed: %u\n", st.positions.n, done, errors);
        print_dead_letters(cat, id, name);
        for (uint32_t i = 0; a->show_positions && i < st.positions.n; i++)
            printf("  %s = %s\n", st.positions.items[i].key, st.positions.items[i].value);
    }
    fl_arena_free(&ar);
    fl_ice_table_free(t);
    return rc;
}

int fl_cmd_ingest(int argc, char **argv)
{
    if (argc < 2 ||
        (strcmp(argv[1], "files") && strcmp(argv[1], "status") && strcmp(argv[1], "kafka") &&
         strcmp(argv[1], "postgres"))) {
        if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
            usage(stdout);
            return 0;
        }
        if (argc >= 2 && argv[1][0] == '-')
            cli_unknown_option("ingest", argv[1]);
        usage(stderr);
        return 2;
    }
    bool files = !strcmp(argv[1], "files"), kafka = !strcmp(argv[1], "kafka");
    bool pg = !strcmp(argv[1], "postgres");
    const cli_command *cmd = files ? &files_cmd : kafka ? &kafka_cmd : pg ? &postgres_cmd : &status_cmd;
    ingest_args a;
    int u = parse_args(cmd, argc - 1, argv + 1, &a);
    if (u)
        return u < 0 ? 0 : u;
    if (files && !a.folder) {
        fprintf(stderr, "floe ingest files: FOLDER is required\n");
        return 2;
    }
    if (kafka && (!a.brokers || !a.topics)) {
        fprintf(stderr, "floe ingest kafka: --brokers and --topic are required\n");
        return 2;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sa.sa_flags = SA_RESTART; /* only the poll's sleep needs cutting short, and it is */
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    fl_error err;
    fl_error_clear(&err);
    fl_cli_catalog c;
    /* status only reads: a missing catalog is an error, never created */
    fl_status rc = files || pg ? fl_cli_catalog_open(a.catalog, a.warehouse, &c, &err)
                         : fl_cli_catalog_open_ro(a.catalog, a.warehouse, &c, &err);
    fl_arena ar;
    fl_arena_init(&ar, 0);
    fl_table_ident id;
    if (rc == FL_OK && !pg)
        rc = fl_table_ident_parse(a.into, &ar, &id, &err);
    if (rc == FL_OK && pg)
        rc = run_postgres(&a, &c, &err);
    else if (rc == FL_OK)
        rc = files   ? run_files(&a, c.cat, &id, &err)
             : kafka ? run_kafka(&a, c.cat, &id, &err)
                     : run_status(&a, c.cat, &id, &err);
    if (rc != FL_OK)
        fprintf(stderr, "floe ingest: %s\n", err.msg);
    fl_arena_free(&ar);
    fl_cli_catalog_close(&c);
    return rc == FL_OK ? 0 : 1;
}
