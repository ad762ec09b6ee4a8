/*
 * cmd_mcp.c - `floe mcp`: the MCP server (include/floe/mcp.h) over stdio,
 * for agents that spawn it (Claude Desktop, the MCP Inspector, SDK
 * clients). Messages are newline-delimited JSON-RPC on stdin, responses
 * one per line on stdout; nothing else is written to stdout (diagnostics
 * go to stderr). Ends at end of input.
 *
 * Who is calling: the local user, as for `floe sql` (an embedded session:
 * whoever runs the process owns its files, the engine checks nothing);
 * the principal is named after $USER. The catalog is opened as by floe
 * sql's reading statements: one that does not exist is not created, and
 * the tools then answer that there is no catalog.
 *
 * --models DIR loads a semantic model (include/floe/semantic.h) for the
 * metric tools; a bad model file is a startup error naming file and line.
 */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd_table_write.h"
#include "cli/opts.h"
#include "cli/units.h"
#include "floe/mcp.h"
#include "floe/semantic.h"

typedef struct mcp_cli {
    const char *catalog_uri, *warehouse;
    const char *models_dir; /* --models: the metric tools' model */
    bool no_run_sql;
    uint64_t max_result_rows, max_scan_bytes;
    uint32_t max_queries_per_minute;
} mcp_cli;

enum {
    O_MODELS,
    O_CATALOG,
    O_WAREHOUSE,
    O_NO_RUN_SQL,
    O_MAX_RESULT_ROWS,
    O_MAX_SCAN_BYTES,
    O_MAX_QUERIES_PER_MINUTE
};
static const cli_opt options[] = {
    [O_MODELS] = {"models", 0, "DIR", false,
                  "a semantic model folder (dbt-format YAML) for the metric tools"},
    [O_CATALOG] = {"catalog", 0, "URI", false,
                   "sqlite:PATH | postgresql://... | fs:PATH\n"
                   "(default $FLOE_CATALOG or sqlite:./warehouse/catalog.db)"},
    [O_WAREHOUSE] = {"warehouse", 0, "DIR", false,
                     "root of tables (default $FLOE_WAREHOUSE or ./warehouse)"},
    [O_NO_RUN_SQL] = {"no-run-sql", 0, NULL, false, "refuse the run_sql tool (policy)"},
    [O_MAX_RESULT_ROWS] = {"max-result-rows", 0, "N", false,
                           "rows kept of a run_sql result (default 100000)"},
    [O_MAX_SCAN_BYTES] = {"max-scan-bytes", 0, "SIZE", false,
                          "refuse a run_sql query whose estimate scans more (e.g. 10GB)"},
    [O_MAX_QUERIES_PER_MINUTE] = {"max-queries-per-minute", 0, "N", false,
                                  "run_sql statements a minute (default: no limit)"},
};
static const cli_command mcp_cmd = {
    .name = "mcp",
    .synopsis = "mcp [options]",
    .about = "  Serves the Model Context Protocol over stdio (newline-delimited JSON-RPC):\n"
             "  tools list_tables, describe_table, table_history, run_sql, estimate_cost;\n"
             "  with --models also list_metrics, get_dimensions, get_entities,\n"
             "  get_dimension_values, query_metrics, compile_sql and propose_metric\n"
             "  (files a draft metric in DIR/.pending/ for `floe semantic pending`).",
    .opts = options,
    .nopts = CLI_NOPTS(options),
};

static fl_status local_user(void *ctx, void *caller, fl_principal *out, fl_error *err)
{
    (void)ctx;
    (void)caller;
    (void)err;
    memset(out, 0, sizeof out[0]);
    const char *u = getenv("USER");
    struct passwd *pw = (!u || !*u) ? getpwuid(getuid()) : NULL;
    snprintf(out->name, sizeof out->name, "%s", u && *u ? u : pw ? pw->pw_name : "local");
    out->admin = true;
    return FL_OK;
}

/* A positive count option into *out (absent: left alone); 0 or 2. */
static int count_option(const cli_args *p, int opt, uint64_t max, uint64_t *out)
{
    const char *v = cli_value(p, opt);
    if (!v)
        return 0;
    char *end = NULL;
    unsigned long long n = strtoull(v, &end, 10);
    if (!*v || *end || !n || n > max)
        return cli_usage_error(&mcp_cmd, "--%s takes a positive number", options[opt].name);
    *out = n;
    return 0;
}

/* 0 ok, -1 help printed, else the exit status. */
static int parse_args(int argc, char **argv, mcp_cli *o)
{
    cli_args p;
    int st;
    if (!cli_parse(&mcp_cmd, argc, argv, &p, &st))
        return st ? st : -1;
    o->catalog_uri = cli_value(&p, O_CATALOG);
    o->warehouse = cli_value(&p, O_WAREHOUSE);
    o->models_dir = cli_value(&p, O_MODELS);
    o->no_run_sql = cli_has(&p, O_NO_RUN_SQL);
    const char *v = cli_value(&p, O_MAX_SCAN_BYTES);
    if (v && (!cli_parse_size(v, &o->max_scan_bytes) || !o->max_scan_bytes))
        st = cli_usage_error(&mcp_cmd, "--max-scan-bytes takes a size such as 512MB or 10GB");
    uint64_t per_minute = 0;
    if (!st)
        st = count_option(&p, O_MAX_RESULT_ROWS, UINT64_MAX, &o->max_result_rows);
    if (!st)
        st = count_option(&p, O_MAX_QUERIES_PER_MINUTE, UINT32_MAX, &per_minute);
    o->max_queries_per_minute = (uint32_t)per_minute;
    if (!st && p.npos)
        st = cli_usage_error(&mcp_cmd, "unexpected argument '%s'", p.pos[0]);
    cli_args_free(&p);
    return st;
}

/* Reads messages until end of input; 0, or 1 when stdout failed. */
static int serve_stdio(fl_mcp_server *m)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int status = 0;
    while ((n = getline(&line, &cap, stdin)) >= 0) {
        while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        if (!n)
            continue;
        fl_mcp_exchange x;
        memset(&x, 0, sizeof x);
        char *resp = NULL;
        fl_error err = {0};
        if (fl_mcp_handle(m, &x, line, (size_t)n, &resp, &err) != FL_OK) {
            fprintf(stderr, "floe mcp: %s\n", err.msg);
            continue;
        }
        if (resp && (fputs(resp, stdout) < 0 || fputc('\n', stdout) < 0 || fflush(stdout))) {
            status = 1;
            free(resp);
            break;
        }
        free(resp);
    }
    free(line);
    return status;
}

int fl_cmd_mcp(int argc, char **argv)
{
    mcp_cli o;
    memset(&o, 0, sizeof o);
    int u = parse_args(argc, argv, &o);
    if (u)
        return u < 0 ? 0 : u;
    fl_error err = {0};
    fl_sem_model *model = NULL;
    if (o.models_dir && fl_sem_model_load_dir(o.models_dir, &model, &err) != FL_OK) {
        fprintf(stderr, "floe mcp: --models %s: %s\n", o.models_dir, err.msg);
        return 1;
    }
    fl_cli_catalog cat;
    memset(&cat, 0, sizeof cat);
    bool have_cat = true;
    fl_status rc = fl_cli_catalog_open_ro(o.catalog_uri, o.warehouse, &cat, &err);
    if (rc == FL_ENOTFOUND) {
        fprintf(stderr, "floe mcp: %s; serving without a catalog\n", err.msg);
        have_cat = false;
        cat.io = cli_fileio();
        rc = cat.io ? FL_OK : fl_errorf(&err, FL_ENOMEM, "out of memory");
    }
    if (rc != FL_OK) {
        fprintf(stderr, "floe mcp: %s\n", err.msg);
        fl_sem_model_free(model);
        return 1;
    }
    fl_mcp_options mo;
    memset(&mo, 0, sizeof mo);
    mo.catalog = have_cat ? cat.cat : NULL;
    mo.io = cat.io;
    mo.resolve_principal = local_user;
    mo.run_sql_disabled = o.no_run_sql;
    mo.max_result_rows = o.max_result_rows;
    mo.max_scan_bytes = o.max_scan_bytes;
    mo.max_queries_per_minute = o.max_queries_per_minute;
    mo.model = model;
    mo.models_dir = model ? o.models_dir : NULL;
    fl_mcp_server *m = NULL;
    int status = 1;
    if (fl_mcp_server_new(&mo, &m, &err) == FL_OK)
        status = serve_stdio(m);
    else
        fprintf(stderr, "floe mcp: %s\n", err.msg);
    fl_mcp_server_free(m);
    if (have_cat)
        fl_cli_catalog_close(&cat);
    else
        fl_fileio_destroy(cat.io);
    fl_sem_model_free(model);
    return status;
}
