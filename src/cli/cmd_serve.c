/*
 * cmd_serve.c - `floe serve`: runs the Iceberg REST catalog (server.h).
 *
 * Settings, later sources winning: built-in defaults < config file
 * (--config FILE, "key = value" lines, '#' comments) < environment
 * (FLOE_SERVE_<KEY> with '-' as '_', upper case; FLOE_CATALOG and
 * FLOE_WAREHOUSE as for the other commands) < command-line flags
 * (--key value or --key=value; the option table below lists every key). Keys:
 *   host, port, catalog, warehouse, prefix, threads, max-body-bytes,
 *   max-json-depth, idempotency-lifetime (seconds), auth-store, audit-log,
 *   token-ttl, static-token (TOKEN=PRINCIPAL; repeatable, comma-separated in
 *   the environment), allowed-location (repeatable / comma-separated),
 *   log-requests (true/false), insecure-no-auth (flag only: never from a
 *   file or the environment, so it is always asked for explicitly),
 *   ready-file (path written with "host:port" once listening; a second line
 *   "pg host:port" when the PostgreSQL listener runs).
 * PostgreSQL wire protocol (pgwire.h), off unless pg-port is given:
 *   pg-port (0 = an ephemeral port), pg-host (default: host), pg-tls-cert,
 *   pg-tls-key (PEM; SSLRequest is answered 'S' when both are set),
 *   pg-max-connections (64), pg-idle-timeout (seconds, 3600),
 *   pg-max-message-bytes (64 MiB), pg-trust (flag only: no passwords, every
 *   user is admin; local development only). Users are the auth store's
 *   principals (`floe admin principal create`), authenticated with
 *   SCRAM-SHA-256.
 *
 * MCP at POST /mcp (docs/mcp.md): mcp-run-sql (true; false refuses the
 * run_sql tool), mcp-max-scan-bytes (a size: run_sql refuses a query whose
 * estimate scans more; none by default), mcp-max-queries-per-minute (run_sql
 * statements per principal and minute; none by default), models (a semantic
 * model folder for the metric tools; loaded at startup, a bad file is a
 * startup error naming file and line).
 *
 * SQL read cache: sql-cache-mb (default 256): one fl_sql_shared_cache for
 * the whole process, given to every pgwire and HTTP SQL session (0 = none
 * shared: each session keeps a private one).
 *
 * Limits (docs/security.md, "Resource limits"; a role's limits from `floe
 * admin limits` win over these): statement-timeout (5min: every session's
 * default statement_timeout; 0 = none), max-statement-timeout (none: the
 * largest a session may SET), max-memory-limit (the session's memory limit:
 * the largest memory_limit a session may SET), max-statements (16: per
 * principal at once, pgwire and /v1/sql together), max-running-statements
 * (the number of CPUs: statements reading or changing data at once, all
 * principals; the rest wait in one queue, floe/sql_queue.h),
 * max-queued-statements (none), memory-budget (80% of RAM: the running
 * statements' operator memory together; each session's memory_limit
 * defaults to budget / max-running-statements), pg-auth-timeout (10 s),
 * pg-max-startup (64 connections still authenticating), pg-reserved-
 * connections (3, for admin principals), pg-max-sessions-per-principal
 * (pg-max-connections / 2), http-max-connections (4096),
 * http-max-connections-per-ip (64), http-connection-timeout (30 s),
 * login-max-failures (5 per client id, 4x per address) and login-window
 * (60 s) of the failed-login throttle. Durations take ms/s/m/h suffixes (a
 * bare number is ms for the statement timeouts, seconds for the others),
 * sizes kB/MB/GB. The pgwire listener shares the REST server's auth (one
 * throttle) and its running-statement counts.
 *
 * SIGTERM/SIGINT: stop accepting, let in-flight requests (commits) finish
 * (up to 30 s), exit 0.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/opts.h"
#include "cli/units.h"
#include "floe/admission.h"
#include "floe/pgwire.h"
#include "floe/sem_sql.h"
#include "floe/semantic.h"
#include "floe/server.h"
#include "floe/sql.h"
#include "floe/sql_queue.h"

#define MAX_LIST 64

typedef struct serve_cfg {
    fl_server_options o;
    const char *tokens[MAX_LIST], *allowed[MAX_LIST];
    const char *ready_file;
    fl_pgwire_options pg;
    bool pg_on;
    fl_limit_defaults limits; /* both front ends' defaults */
    fl_sql_queue_options queue; /* the execution slots both front ends share */
    long long sql_cache_mb;   /* -1 = default */
    const char *models_dir;   /* models: the MCP metric tools' semantic model */
    char *owned[256];
    int nowned;
} serve_cfg;

static const char *keep(serve_cfg *c, const char *s)
{
    char *d = strdup(s);
    if (d && c->nowned < 256)
        c->owned[c->nowned++] = d;
    return d;
}

static bool truthy(const char *v)
{
    return !strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "yes") || !strcmp(v, "on");
}

static int add_list(serve_cfg *c, const char **arr, uint32_t *n, const char *v)
{
    char *copy = (char *)keep(c, v), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        while (*t == ' ')
            t++;
        if (*n >= MAX_LIST)
            return -1;
        arr[(*n)++] = t;
    }
    return 0;
}

/* The limit keys; 1 = not one of them, -1 = a bad value. */
static int set_limit(serve_cfg *c, const char *k, const char *v, const char *src)
{
    static const char *const ms_keys[] = {"statement-timeout", "max-statement-timeout"};
    static const char *const s_keys[] = {"pg-auth-timeout", "http-connection-timeout",
                                         "login-window",
                                   "mcp-run-sql",
                                   "mcp-max-scan-bytes",
                                   "mcp-max-queries-per-minute"};
    static const char *const n_keys[] = {"max-statements",          "pg-max-startup",
                                         "pg-reserved-connections", "pg-max-sessions-per-principal",
                                         "http-max-connections",    "http-max-connections-per-ip",
                                         "login-max-failures",      "max-running-statements",
                                         "max-queued-statements"};
    uint64_t x = 0;
    bool ok = true;
    for (size_t i = 0; i < 2; i++)
        if (!strcmp(k, ms_keys[i])) {
            ok = cli_parse_ms(v, &x);
            if (ok && i == 0)
                c->limits.statement_timeout_ms = x;
            if (ok && i == 1)
                c->limits.max_statement_timeout_ms = x;
            goto out;
        }
    for (size_t i = 0; i < 3; i++)
        if (!strcmp(k, s_keys[i])) {
            char *end = NULL;
            double d = strtod(v, &end);
            ok = end != v && d >= 0 && d <= 86400 && (!*end || !strcmp(end, "s"));
            if (!ok && cli_parse_ms(v, &x)) { /* with a unit */
                ok = true;
                d = (double)x / 1000;
            }
            unsigned secs = (unsigned)(d + 0.999);
            if (ok && i == 0)
                c->pg.auth_timeout_s = secs;
            if (ok && i == 1)
                c->o.connection_timeout_s = secs;
            if (ok && i == 2)
                c->o.login_window_s = secs;
            goto out;
        }
    for (size_t i = 0; i < 9; i++)
        if (!strcmp(k, n_keys[i])) {
            char *end = NULL;
            long long n = strtoll(v, &end, 10);
            ok = end != v && !*end && n >= 0 && n <= 1000000;
            uint32_t u = (uint32_t)n;
            if (ok) {
                uint32_t *slot[] = {
                    &c->limits.max_statements,         &c->pg.max_startup,
                    &c->pg.reserved_connections,       &c->pg.max_sessions_per_principal,
                    (uint32_t *)&c->o.max_connections, (uint32_t *)&c->o.max_connections_per_ip,
                    &c->o.login_max_failures,          &c->queue.max_running,
                    &c->queue.max_queued};
                *slot[i] = u;
            }
            goto out;
        }
    if (!strcmp(k, "max-memory-limit")) {
        ok = cli_parse_size(v, &c->limits.max_memory_limit);
        goto out;
    }
    if (!strcmp(k, "memory-budget")) {
        ok = cli_parse_size(v, &c->queue.memory_budget);
        goto out;
    }
    return 1;
out:
    if (!ok)
        fprintf(stderr, "floe serve: %s: bad value '%s' for %s\n", src, v, k);
    return ok ? 0 : -1;
}

static int set_key(serve_cfg *c, const char *k, const char *v, const char *src)
{
    int lr = set_limit(c, k, v, src);
    if (lr <= 0)
        return lr;
    fl_server_options *o = &c->o;
    char *end;
    if (!strcmp(k, "host"))
        o->host = keep(c, v);
    else if (!strcmp(k, "port") || !strcmp(k, "threads") || !strcmp(k, "max-json-depth") ||
             !strcmp(k, "token-ttl") || !strcmp(k, "idempotency-lifetime") ||
             !strcmp(k, "max-body-bytes")) {
        long long x = strtoll(v, &end, 10);
        if (*end || x < 0 || x > INT_MAX) {
            fprintf(stderr, "floe serve: %s: %s must be a non-negative integer, got '%s'\n", src, k,
                    v);
            return -1;
        }
        if (!strcmp(k, "port"))
            o->port = (int)x;
        else if (!strcmp(k, "threads"))
            o->threads = (unsigned)x;
        else if (!strcmp(k, "max-json-depth"))
            o->max_json_depth = (unsigned)x;
        else if (!strcmp(k, "token-ttl"))
            o->token_ttl_seconds = (int)x;
        else if (!strcmp(k, "idempotency-lifetime"))
            o->idempotency_lifetime_s = (int)x;
        else
            o->max_body_bytes = (size_t)x;
    } else if (!strcmp(k, "pg-port") || !strcmp(k, "pg-max-connections") ||
               !strcmp(k, "pg-idle-timeout") || !strcmp(k, "pg-max-message-bytes")) {
        long long x = strtoll(v, &end, 10);
        if (*end || x < 0 || x > INT_MAX || (!strcmp(k, "pg-port") && x > 65535)) {
            fprintf(stderr, "floe serve: %s: %s must be a non-negative integer, got '%s'\n", src, k,
                    v);
            return -1;
        }
        if (!strcmp(k, "pg-port")) {
            c->pg.port = (int)x;
            c->pg_on = true;
        } else if (!strcmp(k, "pg-max-connections"))
            c->pg.max_connections = (uint32_t)x;
        else if (!strcmp(k, "pg-idle-timeout"))
            c->pg.idle_timeout_s = (uint32_t)x;
        else
            c->pg.max_message_bytes = (size_t)x;
    } else if (!strcmp(k, "sql-cache-mb")) {
        long long x = strtoll(v, &end, 10);
        if (*end || x < 0 || x > (1ll << 30)) {
            fprintf(stderr,
                    "floe serve: %s: sql-cache-mb must be a non-negative integer, got '%s'\n", src,
                    v);
            return -1;
        }
        c->sql_cache_mb = x;
    } else if (!strcmp(k, "mcp-max-scan-bytes")) {
        if (!cli_parse_size(v, &o->mcp_max_scan_bytes)) {
            fprintf(stderr, "floe serve: %s: mcp-max-scan-bytes must be a size, got '%s'\n", src, v);
            return -1;
        }
    } else if (!strcmp(k, "mcp-max-queries-per-minute")) {
        long long x = strtoll(v, &end, 10);
        if (*end || x < 0 || x > UINT32_MAX) {
            fprintf(stderr, "floe serve: %s: %s must be a non-negative integer, got '%s'\n", src, k,
                    v);
            return -1;
        }
        o->mcp_max_queries_per_minute = (uint32_t)x;
    } else if (!strcmp(k, "maintain-interval")) {
        uint64_t ms = 0;
        if (!cli_parse_ms(v, &ms) || ms > INT64_MAX) {
            fprintf(stderr, "floe serve: %s: maintain-interval must be a duration (30s, 5m), got '%s'\n",
                    src, v);
            return -1;
        }
        o->maintain_interval_ms = (int64_t)ms;
    } else if (!strcmp(k, "models")) {
        c->models_dir = keep(c, v);
    } else if (!strcmp(k, "mcp-run-sql"))
        o->mcp_run_sql_disabled = !truthy(v);
    else if (!strcmp(k, "pg-host"))
        c->pg.host = keep(c, v);
    else if (!strcmp(k, "pg-tls-cert"))
        c->pg.tls_cert_file = keep(c, v);
    else if (!strcmp(k, "pg-tls-key"))
        c->pg.tls_key_file = keep(c, v);
    else if (!strcmp(k, "catalog"))
        o->catalog_uri = keep(c, v);
    else if (!strcmp(k, "warehouse"))
        o->warehouse = keep(c, v);
    else if (!strcmp(k, "prefix"))
        o->prefix = keep(c, v);
    else if (!strcmp(k, "auth-store"))
        o->auth_store_uri = keep(c, v);
    else if (!strcmp(k, "audit-log"))
        o->audit_log_path = keep(c, v);
    else if (!strcmp(k, "log-requests"))
        o->log_requests = truthy(v);
    else if (!strcmp(k, "ready-file"))
        c->ready_file = keep(c, v);
    else if (!strcmp(k, "static-token")) {
        if (add_list(c, c->tokens, &o->nstatic_tokens, v))
            return -1;
    } else if (!strcmp(k, "allowed-location")) {
        if (add_list(c, c->allowed, &o->nallowed_locations, v))
            return -1;
    } else {
        fprintf(stderr, "floe serve: %s: unknown setting '%s'\n", src, k);
        return -1;
    }
    return 0;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

static int read_file(serve_cfg *c, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "floe serve: %s: %s\n", path, strerror(errno));
        return -1;
    }
    char line[4096], src[PATH_MAX + 32];
    int ln = 0, rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        ln++;
        char *s = trim(line);
        if (!*s || *s == '#')
            continue;
        char *eq = strchr(s, '=');
        snprintf(src, sizeof src, "%s:%d", path, ln);
        if (!eq) {
            fprintf(stderr, "floe serve: %s: expected 'key = value'\n", src);
            rc = -1;
            break;
        }
        *eq = '\0';
        char *k = trim(s), *v = trim(eq + 1);
        if (!strcmp(k, "insecure-no-auth") || !strcmp(k, "pg-trust")) {
            fprintf(stderr, "floe serve: %s: %s is only accepted as a flag\n", src, k);
            rc = -1;
            break;
        }
        rc = set_key(c, k, v, src);
    }
    fclose(f);
    return rc;
}

/* The command line's options: --config, the two flags that are never read
 * from a file or the environment, then one row per setting key (the same
 * keys as the config file and FLOE_SERVE_<KEY>, from O_FIRST_KEY on). */
enum { O_CONFIG, O_INSECURE_NO_AUTH, O_PG_TRUST, O_FIRST_KEY };
static const cli_opt options[] = {
    [O_CONFIG] = {"config", 0, "FILE", false, "settings as \"key = value\" lines ('#' comments)"},
    [O_INSECURE_NO_AUTH] = {"insecure-no-auth", 0, NULL, false,
                            "no authentication: every client has every privilege\n"
                            "(local development only; a flag, never from a file)"},
    [O_PG_TRUST] = {"pg-trust", 0, NULL, false,
                    "PostgreSQL: no passwords, every user is admin (local\n"
                    "development only; a flag, never from a file)"},
    {"host", 0, "H", false, "listen address (default 127.0.0.1)"},
    {"port", 0, "N", false, "HTTP port (default 8181)"},
    {"catalog", 0, "URI", false,
     "the catalog (default $FLOE_CATALOG, else sqlite:./warehouse/catalog.db)"},
    {"warehouse", 0, "DIR|s3://...", false,
     "root of new tables (default $FLOE_WAREHOUSE, else ./warehouse)"},
    {"prefix", 0, "P", false, "the REST catalog's URL prefix"},
    {"threads", 0, "N", false, "HTTP worker threads"},
    {"max-body-bytes", 0, "N", false, "largest request body"},
    {"max-json-depth", 0, "N", false, "deepest JSON nesting accepted"},
    {"idempotency-lifetime", 0, "S", false, "seconds an Idempotency-Key is remembered"},
    {"auth-store", 0, "URI", false, "the auth store (default: the catalog's database)"},
    {"audit-log", 0, "FILE", false, "append an audit record per mutation"},
    {"token-ttl", 0, "S", false, "lifetime of the tokens it issues, seconds"},
    {"static-token", 0, "TOKEN=PRINCIPAL", true,
     "a fixed bearer token (comma-separated in the environment)"},
    {"allowed-location", 0, "ROOT", true,
     "table locations must be under ROOT (comma-separated too)"},
    {"log-requests", 0, "true|false", false, "one JSON line per request on stderr"},
    {"ready-file", 0, "FILE", false,
     "written with \"host:port\" once listening (a second line\n\"pg host:port\" with the "
     "PostgreSQL listener)"},
    {"pg-port", 0, "N", false,
     "PostgreSQL wire protocol port (off unless given; 5433 is\ncustomary; 0 = ephemeral)"},
    {"pg-host", 0, "H", false, "its listen address (default: --host)"},
    {"pg-tls-cert", 0, "PEM", false, "TLS certificate (SSLRequest answered 'S' with --pg-tls-key)"},
    {"pg-tls-key", 0, "PEM", false, "TLS private key"},
    {"pg-max-connections", 0, "N", false, "PostgreSQL connections (default 64)"},
    {"pg-idle-timeout", 0, "S", false, "close idle connections after S seconds (default 3600)"},
    {"pg-max-message-bytes", 0, "N", false, "largest protocol message (default 64 MiB)"},
    {"sql-cache-mb", 0, "N", false,
     "the SQL sessions' shared metadata/manifest/footer cache\n(default 256; 0 = a private cache "
     "per session)"},
    {"statement-timeout", 0, "T", false,
     "every session's default statement_timeout (5min; 0 = none)"},
    {"max-statement-timeout", 0, "T", false, "the largest statement_timeout a session may SET"},
    {"max-memory-limit", 0, "SIZE", false, "the largest memory_limit a session may SET"},
    {"max-statements", 0, "N", false, "statements per principal at once, pgwire and /v1/sql (16)"},
    {"max-running-statements", 0, "N", false,
     "statements reading or changing data at once, all principals\n(default: the number of CPUs; "
     "the rest wait their turn)"},
    {"max-queued-statements", 0, "N", false,
     "statements that may wait for one (default: no bound\nbut the connection limits)"},
    {"memory-budget", 0, "SIZE", false,
     "operator memory of all running statements (80% of RAM);\nsessions' memory_limit defaults to "
     "its share"},
    {"pg-auth-timeout", 0, "S", false, "seconds to authenticate (10)"},
    {"pg-max-startup", 0, "N", false, "connections still authenticating (64)"},
    {"pg-reserved-connections", 0, "N", false, "connections kept for admin principals (3)"},
    {"pg-max-sessions-per-principal", 0, "N", false, "default: pg-max-connections / 2"},
    {"http-max-connections", 0, "N", false, "HTTP connections (4096)"},
    {"http-max-connections-per-ip", 0, "N", false, "HTTP connections per client address (64)"},
    {"http-connection-timeout", 0, "S", false, "idle HTTP connection timeout (30)"},
    {"login-max-failures", 0, "N", false, "failed logins per client id (5; 4x per address)"},
    {"login-window", 0, "S", false, "the failed-login throttle's window (60)"},
    {"mcp-run-sql", 0, "true|false", false, "MCP at POST /mcp: false refuses the run_sql tool"},
    {"mcp-max-scan-bytes", 0, "SIZE", false, "run_sql refuses a query whose estimate scans more"},
    {"mcp-max-queries-per-minute", 0, "N", false, "run_sql statements per principal and minute"},
    {"models", 0, "DIR", false, "a semantic model: the MCP metric tools, MEASURE() over SQL"},
    {"maintain-interval", 0, "D", false,
     "table maintenance every D (compaction, expiry, manifests;\norphans hourly; "
     "docs/maintenance.md); off unless given"},
};
static const cli_command serve_cmd = {
    .name = "serve",
    .synopsis = "serve [--config FILE] [--host H] [--port N] [--catalog URI]\n"
                "           [--warehouse DIR|s3://...] [--prefix P] [--threads N]\n"
                "           [--insecure-no-auth] [--static-token TOKEN=PRINCIPAL]\n"
                "           [--audit-log FILE] [--allowed-location ROOT] [--log-requests true]",
    .about = "  Serves the Iceberg REST catalog (and, with --pg-port, the PostgreSQL wire\n"
             "  protocol). Settings come from the built-in defaults, then the --config file,\n"
             "  then FLOE_SERVE_<KEY> environment variables, then the command line. Durations\n"
             "  take ms/s/m/h (a bare number is ms for the statement timeouts, seconds\n"
             "  otherwise), sizes kB/MB/GB. Roles' `floe admin limits` win over the limits.",
    .opts = options,
    .nopts = CLI_NOPTS(options),
    .notes = "Web console at http://HOST:PORT/console/ (docs/console.md): sign in with a\n"
             "principal's client id and secret; it reads through the APIs above as that principal.",
};

static int read_env(serve_cfg *c)
{
    const char *v;
    if ((v = getenv("FLOE_CATALOG")) && *v)
        c->o.catalog_uri = v;
    if ((v = getenv("FLOE_WAREHOUSE")) && *v)
        c->o.warehouse = v;
    for (size_t i = O_FIRST_KEY; i < CLI_NOPTS(options); i++) {
        const char *key = options[i].name;
        char name[64] = "FLOE_SERVE_";
        size_t n = strlen(name);
        for (const char *p = key; *p && n < sizeof name - 1; p++)
            name[n++] = *p == '-' ? '_' : (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
        name[n] = '\0';
        if ((v = getenv(name)) && *v && set_key(c, key, v, name))
            return -1;
    }
    return 0;
}

static volatile sig_atomic_t stop_flag;
static void on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

/* The command line's settings, in the order given, over what the file and
 * the environment set (they win); -1 after a bad value (said why). */
static int apply_options(serve_cfg *c, const cli_args *p)
{
    c->o.insecure_no_auth |= cli_has(p, O_INSECURE_NO_AUTH);
    c->pg.trust |= cli_has(p, O_PG_TRUST);
    for (int i = 0; i < p->ngiven; i++) {
        int k = p->given[i].opt;
        if (k >= O_FIRST_KEY && set_key(c, options[k].name, p->given[i].value, "command line"))
            return -1;
    }
    return 0;
}

static int mkdir_p(const char *dir)
{
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(buf, 0755);
            *p = '/';
        }
    return mkdir(buf, 0755) == 0 || errno == EEXIST ? 0 : -1;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int fl_cmd_serve(int argc, char **argv)
{
    double t0 = now_ms();
    serve_cfg c;
    memset(&c, 0, sizeof c);
    c.o.port = 8181;
    c.o.catalog_uri = "sqlite:./warehouse/catalog.db";
    c.o.warehouse = "./warehouse";
    c.o.log_requests = false;
    c.sql_cache_mb = -1;
    c.limits.statement_timeout_ms = 5 * 60 * 1000; /* documented default */
    c.limits.max_statements = 16;
    fl_admission *adm = NULL; /* running statements per principal, both front ends */
    fl_sql_queue *queue = NULL; /* execution slots, both front ends */
    const char *config = NULL;
    fl_sql_shared_cache *cache = NULL; /* the SQL sessions' read cache */
    fl_sem_model *model = NULL;        /* --models, for the MCP metric tools */
    fl_sem_sql *semsql = NULL;         /* --models: semantic.metrics over SQL (sem_sql.h) */
    int rc = 2;
    cli_args args;
    if (!cli_parse(&serve_cmd, argc, argv, &args, &rc))
        return rc;
    if (args.npos) {
        rc = cli_usage_error(&serve_cmd, "unexpected argument '%s'", args.pos[0]);
        goto done;
    }
    rc = 2;
    config = cli_value(&args, O_CONFIG);
    if (config && read_file(&c, config))
        goto done;
    if (read_env(&c))
        goto done;
    if (apply_options(&c, &args))
        goto done;
    c.o.static_tokens = c.tokens;
    c.o.allowed_locations = c.allowed;
    rc = 1;
    char wabs[PATH_MAX];
    if (!strstr(c.o.warehouse, "://")) {
        const char *w = !strncmp(c.o.warehouse, "file:", 5) ? c.o.warehouse + 5 : c.o.warehouse;
        if (mkdir_p(w) || !realpath(w, wabs)) {
            fprintf(stderr, "floe serve: warehouse %s: %s\n", w, strerror(errno));
            goto done;
        }
        c.o.warehouse = wabs;
    }
    if (!strncmp(c.o.catalog_uri, "sqlite:", 7)) {
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s", c.o.catalog_uri + 7);
        char *slash = strrchr(dir, '/');
        if (slash && slash != dir) {
            *slash = '\0';
            mkdir_p(dir);
        }
    }
    if (c.o.insecure_no_auth)
        fprintf(stderr, "floe serve: WARNING: authentication is disabled (--insecure-no-auth); "
                        "every client has every privilege. Local development only.\n");
    fl_server *s = NULL;
    fl_pgwire *pg = NULL;
    fl_error err = {0};
    size_t cache_mb = c.sql_cache_mb < 0 ? 256 : (size_t)c.sql_cache_mb;
    if (cache_mb && fl_sql_shared_cache_new(cache_mb << 20, &cache, &err) != FL_OK) {
        fprintf(stderr, "floe serve: %s\n", err.msg);
        goto done;
    }
    c.o.sql_cache = cache;
    c.pg.sql_cache = cache;
    if (fl_admission_new(&adm, &err) != FL_OK) {
        fprintf(stderr, "floe serve: %s\n", err.msg);
        goto done;
    }
    c.o.admission = adm;
    c.pg.admission = adm;
    if (fl_sql_queue_new(&c.queue, &queue, &err) != FL_OK) {
        fprintf(stderr, "floe serve: %s\n", err.msg);
        goto done;
    }
    c.o.sql_queue = queue;
    c.pg.sql_queue = queue;
    c.o.sql_limits = &c.limits;
    c.pg.limits = &c.limits;
    if (c.models_dir && fl_sem_model_load_dir(c.models_dir, &model, &err) != FL_OK) {
        fprintf(stderr, "floe serve: models %s: %s\n", c.models_dir, err.msg);
        goto done;
    }
    c.o.mcp_model = model;
    c.o.mcp_models_dir = model ? c.models_dir : NULL;
    if (model && fl_sem_sql_new(model, &semsql, &err) != FL_OK) {
        fprintf(stderr, "floe serve: models %s: %s\n", c.models_dir, err.msg);
        goto done;
    }
    if (semsql) { /* the catalog's column types from planned queries, then shared read-only */
        fl_sql_options so;
        memset(&so, 0, sizeof so);
        so.catalog_uri = c.o.catalog_uri;
        so.warehouse = c.o.warehouse;
        so.threads = 1;
        fl_sql_session *ts = NULL;
        if (fl_sql_session_open(&so, &ts, &err) == FL_OK)
            fl_sem_sql_resolve_types(semsql, ts, &err);
        fl_sql_session_close(ts);
        fl_error_clear(&err);
    }
    if (semsql) { /* pgwire and /v1/sql answer MEASURE() over semantic.metrics */
        c.o.sql_extension = fl_sem_sql_extension(semsql);
        c.pg.sql_extension = fl_sem_sql_extension(semsql);
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    if (fl_server_create(&c.o, &s, &err) != FL_OK || fl_server_start_listening(s, &err) != FL_OK) {
        fprintf(stderr, "floe serve: %s\n", err.msg);
        fl_server_destroy(s, 0);
        goto done;
    }
    if (c.pg_on) {
        c.pg.catalog_uri = c.o.catalog_uri;
        c.pg.warehouse = c.o.warehouse;
        c.pg.auth_store_uri = c.o.auth_store_uri;
        c.pg.audit_log_path = c.o.audit_log_path;
        c.pg.auth = fl_server_auth(s); /* one fl_auth: one failed-login throttle */
        if (!c.pg.host)
            c.pg.host = c.o.host;
        if (c.pg.trust)
            fprintf(stderr, "floe serve: WARNING: PostgreSQL connections need no password "
                            "(--pg-trust); every user is admin. Local development only.\n");
        if (fl_pgwire_create(&c.pg, &pg, &err) != FL_OK || fl_pgwire_listen(pg, &err) != FL_OK) {
            fprintf(stderr, "floe serve: %s\n", err.msg);
            fl_pgwire_destroy(pg);
            fl_server_destroy(s, 0);
            goto done;
        }
        fprintf(stderr,
                "{\"level\":\"info\",\"event\":\"listening\",\"protocol\":\"postgresql\","
                "\"host\":\"%s\",\"port\":%d,\"tls\":%s,\"auth\":\"%s\"}\n",
                c.pg.host ? c.pg.host : "127.0.0.1", fl_pgwire_port(pg),
                c.pg.tls_cert_file ? "true" : "false", c.pg.trust ? "trust" : "scram-sha-256");
    }
    fprintf(stderr,
            "{\"level\":\"info\",\"event\":\"listening\",\"url\":\"http://%s:%d\",\"console\":"
            "\"http://%s:%d/console/\",\"catalog\":\"%s\",\"warehouse\":\"%s\",\"auth\":%s,"
            "\"startup_ms\":%.1f}\n",
            c.o.host ? c.o.host : "127.0.0.1", fl_server_port(s), c.o.host ? c.o.host : "127.0.0.1",
            fl_server_port(s), c.o.catalog_uri, c.o.warehouse,
            c.o.insecure_no_auth ? "false" : "true", now_ms() - t0);
    if (c.ready_file) {
        FILE *f = fopen(c.ready_file, "w");
        if (f) {
            fprintf(f, "%s:%d\n", c.o.host ? c.o.host : "127.0.0.1", fl_server_port(s));
            if (pg)
                fprintf(f, "pg %s:%d\n", c.pg.host ? c.pg.host : "127.0.0.1", fl_pgwire_port(pg));
            fclose(f);
        }
    }
    while (!stop_flag)
        pause();
    fprintf(stderr, "{\"level\":\"info\",\"event\":\"shutdown\",\"msg\":\"draining\"}\n");
    fl_pgwire_destroy(pg);
    fl_server_destroy(s, 30000);
    if (cache) {
        fl_sql_cache_stats cs;
        fl_sql_shared_cache_stats(cache, &cs);
        fprintf(stderr,
                "{\"level\":\"info\",\"event\":\"sql_cache\",\"hits\":%llu,\"misses\":%llu,"
                "\"bytes\":%llu,\"entries\":%llu}\n",
                (unsigned long long)cs.hits, (unsigned long long)cs.misses,
                (unsigned long long)cs.bytes, (unsigned long long)cs.entries);
    }
    if (queue) {
        fl_sql_queue_stats qs;
        fl_sql_queue_stats_get(queue, &qs);
        fprintf(stderr,
                "{\"level\":\"info\",\"event\":\"sql_queue\",\"max_running\":%u,"
                "\"admitted\":%llu,\"waited\":%llu,\"refused\":%llu,\"canceled\":%llu,"
                "\"wait_ms_max\":%llu}\n",
                qs.max_running, (unsigned long long)qs.admitted, (unsigned long long)qs.waited,
                (unsigned long long)qs.refused, (unsigned long long)qs.canceled,
                (unsigned long long)(qs.wait_us_max / 1000));
    }
    fprintf(stderr, "{\"level\":\"info\",\"event\":\"stopped\"}\n");
    rc = 0;
done:
    cli_args_free(&args);
    fl_sem_sql_free(semsql);
    fl_sem_model_free(model);
    fl_admission_free(adm);
    fl_sql_queue_free(queue);
    fl_sql_shared_cache_free(cache);
    for (int i = 0; i < c.nowned; i++)
        free(c.owned[i]);
    return rc;
}
