/*
 * cmd_maintain.c - `floe maintain`: table maintenance over a whole catalog
 * (fl_ice_maintain_catalog, src/iceberg/maintain.c): compaction of small
 * files and delete files, snapshot expiry, manifest rewrite and, with
 * --orphans, orphan removal, each table by the policy in its properties.
 *
 *   floe maintain [--orphans] [--interval D] [--catalog URI] [--warehouse DIR]
 *
 * One pass, or with --interval a pass every D until SIGTERM / SIGINT (then
 * --orphans applies to the first pass and to one pass an hour). Prints a
 * line per table a pass changed or could not maintain, then a summary line.
 * Exits 1 when a table failed (its error printed) or the catalog could not
 * be listed.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/cmd_table_write.h"
#include "cli/opts.h"
#include "cli/units.h"
#include "floe/ice_table.h"

enum { O_ORPHANS, O_INTERVAL, O_CATALOG, O_WAREHOUSE };
static const cli_opt options[] = {
    [O_ORPHANS] = {"orphans", 0, NULL, false,
                   "also delete unreferenced files older than each table's\n"
                   "floe.maintenance.orphan-age-ms (default 3 days)"},
    [O_INTERVAL] = {"interval", 0, "D", false, "a pass every D (30s, 5m) until SIGTERM"},
    [O_CATALOG] = {"catalog", 0, "URI", false, "as other floe commands ($FLOE_CATALOG ...)"},
    [O_WAREHOUSE] = {"warehouse", 0, "DIR", false, "as other floe commands ($FLOE_WAREHOUSE ...)"},
};
static const cli_command maintain_cmd = {
    .name = "maintain",
    .synopsis = "maintain [--orphans] [--interval D] [--catalog URI] [--warehouse DIR]",
    .about = "  Compacts small files and files with deletes, expires old snapshots and rewrites\n"
             "  manifests in every table of the catalog, each by its properties\n"
             "  (floe.maintenance.*, history.expire.*; docs/maintenance.md).",
    .opts = options,
    .nopts = CLI_NOPTS(options),
    .min_args = 0,
    .max_args = 0,
};

static volatile sig_atomic_t stop_requested;
static void on_stop(int sig)
{
    (void)sig;
    stop_requested = 1;
}

typedef struct pass_stats {
    uint32_t tables, changed, failed;
} pass_stats;

static void report(void *ctx, const fl_table_ident *id, const fl_ice_maintain_result *r,
                   const fl_error *e)
{
    pass_stats *ps = ctx;
    ps->tables++;
    char name[512];
    size_t n = 0;
    for (uint32_t i = 0; i < id->ns.nlevels && n < sizeof name; i++)
        n += (size_t)snprintf(name + n, sizeof name - n, "%s.", id->ns.levels[i]);
    snprintf(name + (n < sizeof name ? n : sizeof name - 1), sizeof name - n, "%s", id->name);
    if (!r) {
        ps->failed++;
        printf("%s: error: %s\n", name, e->msg);
        return;
    }
    if (!r->files_rewritten && !r->snapshots_expired && !r->manifests_rewritten &&
        !r->orphans_removed && !r->conflict[0])
        return;
    ps->changed++;
    printf("%s:", name);
    if (r->files_rewritten)
        printf(" %" PRIu64 " files compacted into %" PRIu64 ";", r->files_rewritten,
               r->files_added);
    if (r->snapshots_expired)
        printf(" %" PRIu64 " snapshots expired;", r->snapshots_expired);
    if (r->manifests_rewritten)
        printf(" manifests rewritten;");
    if (r->orphans_removed)
        printf(" %" PRIu64 " orphan files removed;", r->orphans_removed);
    if (r->conflict[0])
        printf(" lost a race, next pass retries (%s)", r->conflict);
    printf("\n");
}

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int fl_cmd_maintain(int argc, char **argv)
{
    cli_args p;
    int st;
    if (!cli_parse(&maintain_cmd, argc, argv, &p, &st))
        return st;
    bool orphans = cli_has(&p, O_ORPHANS);
    const char *iv = cli_value(&p, O_INTERVAL);
    uint64_t interval = 0;
    if (iv && (!cli_parse_ms(iv, &interval) || !interval)) {
        int u = cli_usage_error(&maintain_cmd, "bad value for --interval: '%s'", iv);
        cli_args_free(&p);
        return u;
    }
    fl_error err;
    fl_error_clear(&err);
    fl_cli_catalog c;
    fl_status rc =
        fl_cli_catalog_open_ro(cli_value(&p, O_CATALOG), cli_value(&p, O_WAREHOUSE), &c, &err);
    cli_args_free(&p);
    if (rc != FL_OK) {
        fprintf(stderr, "floe maintain: %s\n", err.msg);
        return 1;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    int64_t last_orphans = 0;
    bool failed = false;
    do {
        bool with_orphans = orphans && wall_ms() - last_orphans >= 3600 * 1000;
        pass_stats ps = {0};
        rc = fl_ice_maintain_catalog(c.cat, with_orphans, report, &ps, &err);
        if (with_orphans)
            last_orphans = wall_ms();
        if (rc != FL_OK) {
            fprintf(stderr, "floe maintain: %s\n", err.msg);
            failed = true;
            break;
        }
        printf("floe maintain: %u tables, %u changed, %u failed\n", ps.tables, ps.changed,
               ps.failed);
        fflush(stdout);
        failed = failed || ps.failed;
        for (uint64_t slept = 0; interval && slept < interval && !stop_requested; slept += 100) {
            struct timespec ts = {0, 100 * 1000000L};
            nanosleep(&ts, NULL);
        }
    } while (interval && !stop_requested);
    fl_cli_catalog_close(&c);
    return failed ? 1 : 0;
}
