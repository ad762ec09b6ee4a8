/*
 * cmd_table_write.c - the writing subcommands of `floe table`
 * (cmd_table_write.h), each one transaction on a catalog table:
 *
 *   create TABLE --schema SPEC [--partition-by E]... [--sort-by E]...
 *          [--property K=V]... [--identifier COL]... [--location URI]
 *   drop TABLE [--purge]              register TABLE METADATA_FILE (- = stdin)
 *   add-column TABLE NAME TYPE [--parent P] [--required] [--default JSON] [--doc D]
 *   drop-column TABLE COL             rename-column TABLE COL NEW_NAME
 *   alter-column TABLE COL [--type T] [--optional] [--default JSON]
 *          [--first | --after COL]
 *   add-partition TABLE EXPR          drop-partition TABLE NAME|EXPR
 *   set-sort TABLE [EXPR]...          (no EXPR = unsorted)
 *   set-properties TABLE [K=V]... [--unset K]...
 *   delete TABLE --where "col op value"...
 *   rollback TABLE --to ID | --to-time TS       set-current TABLE ID
 *   create-branch TABLE NAME [--snapshot ID]    create-tag TABLE NAME [--snapshot ID]
 *   drop-ref TABLE NAME
 *   expire TABLE [--older-than TS] [--retain-last N]
 *   remove-orphans TABLE [--older-than TS] [--dry-run]
 *   rewrite-manifests TABLE           compact TABLE [--force]
 *
 * TS is epoch milliseconds or a timestamp ("2024-01-31 13:00:00", UTC
 * unless an offset is given). Every command also takes --catalog and
 * --warehouse. Results go to stderr as one line (stdout for listings).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd_table_ns.h"
#include "cli/cmd_table_write.h"
#include "cli/opts.h"
#include "cli/textparse.h"
#include "cli/where.h"
#include "floe/buf.h"
#include "floe/ice_table.h"
#include "floe/iceberg.h"
#include "floe/s3.h"

/* ---- catalog plumbing ---- */

static fl_status mkdirs(const char *path, fl_error *err)
{
    char buf[PATH_MAX];
    if (strlen(path) >= sizeof buf)
        return fl_errorf(err, FL_EINVAL, "%s: path too long", path);
    strcpy(buf, path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return fl_errorf(err, FL_EIO, "mkdir %s: %s", buf, strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return fl_errorf(err, FL_EIO, "mkdir %s: %s", buf, strerror(errno));
    return FL_OK;
}

static bool is_uri(const char *s)
{
    return strstr(s, "://") != NULL;
}

/* The URI without its query (which may hold a credential), for messages. */
static const char *redacted(const char *uri, char *buf, size_t cap)
{
    const char *q = strchr(uri, '?');
    snprintf(buf, cap, "%.*s%s", (int)(q ? q - uri : (ptrdiff_t)strlen(uri)), uri, q ? "?..." : "");
    return buf;
}

/* A REST catalog without a local warehouse. */
static fl_status rest_open(const char *uri, fl_cli_catalog *c, fl_error *err)
{
    fl_status rc = fl_fileio_default(NULL, &c->io, err);
    if (rc == FL_OK)
        rc = fl_catalog_open_uri(uri, NULL, NULL, c->io, &c->cat, err);
    if (rc != FL_OK) {
        char buf[256];
        fl_cli_catalog_close(c);
        return fl_error_prefix(err, "catalog %s", redacted(uri, buf, sizeof buf));
    }
    return FL_OK;
}

/* Read-only opens refuse a local catalog that is not there (a SQLite file,
 * an fs: folder) instead of creating it, and leave a missing warehouse
 * folder uncreated: a mistyped path or the wrong working directory must
 * not leave an empty catalog behind. */
static fl_status check_exists(const char *uri, fl_error *err)
{
    const char *path = !strncmp(uri, "sqlite:", 7) ? uri + 7
                       : !strncmp(uri, "fs:", 3)   ? uri + 3
                                                   : NULL;
    struct stat st;
    if (!path || is_uri(uri) || stat(path, &st) == 0)
        return FL_OK;
    return fl_errorf(
        err, FL_ENOTFOUND,
        "catalog %s does not exist (create tables with floe load or floe table create, "
        "or pass --catalog / set FLOE_CATALOG)",
        uri);
}

/* The absolute form of a local path that may not exist. */
static char *absolute(const char *path)
{
    char abs[PATH_MAX], cwd[PATH_MAX];
    if (realpath(path, abs))
        return strdup(abs);
    if (path[0] == '/' || !getcwd(cwd, sizeof cwd))
        return strdup(path);
    if (!strncmp(path, "./", 2))
        path += 2;
    size_t n = strlen(cwd) + strlen(path) + 2;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s/%s", cwd, path);
    return s;
}

static fl_status catalog_open(const char *uri, const char *warehouse, bool ro, fl_cli_catalog *c,
                              fl_error *err);

fl_status fl_cli_catalog_open(const char *uri, const char *warehouse, fl_cli_catalog *c,
                              fl_error *err)
{
    return catalog_open(uri, warehouse, false, c, err);
}

fl_status fl_cli_catalog_open_ro(const char *uri, const char *warehouse, fl_cli_catalog *c,
                                 fl_error *err)
{
    return catalog_open(uri, warehouse, true, c, err);
}

static fl_status catalog_open(const char *uri, const char *warehouse, bool ro, fl_cli_catalog *c,
                              fl_error *err)
{
    memset(c, 0, sizeof *c);
    if (!uri)
        uri = getenv("FLOE_CATALOG");
    if (!uri || !*uri)
        uri = "sqlite:./warehouse/catalog.db";
    if (!warehouse)
        warehouse = getenv("FLOE_WAREHOUSE");
    bool rest = !strncmp(uri, "http://", 7) || !strncmp(uri, "https://", 8);
    if (rest && (!warehouse || !*warehouse)) /* a REST server chooses table locations */
        return rest_open(uri, c, err);
    if (!warehouse || !*warehouse)
        warehouse = "./warehouse";
    if (!strncmp(warehouse, "file:", 5) && !is_uri(warehouse))
        warehouse += 5;
    if (ro)
        FL_TRY(check_exists(uri, err));
    if (!is_uri(warehouse) && ro) {
        c->warehouse = absolute(warehouse);
    } else if (!is_uri(warehouse)) {
        FL_TRY(mkdirs(warehouse, err));
        char abs[PATH_MAX];
        if (!realpath(warehouse, abs))
            return fl_errorf(err, FL_EIO, "%s: %s", warehouse, strerror(errno));
        c->warehouse = strdup(abs);
    } else {
        c->warehouse = strdup(warehouse);
    }
    if (!c->warehouse)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    if (!strncmp(uri, "sqlite:", 7)) {
        /* the database's directory must exist */
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s", uri + 7);
        char *slash = strrchr(dir, '/');
        if (slash && slash != dir && !ro) {
            *slash = '\0';
            fl_status rc = mkdirs(dir, err);
            if (rc != FL_OK) {
                fl_cli_catalog_close(c);
                return rc;
            }
        }
    }
    fl_status rc = fl_fileio_default(NULL, &c->io, err);
    if (rc == FL_OK)
        rc = fl_catalog_open_uri(uri, NULL, c->warehouse, c->io, &c->cat, err);
    if (rc != FL_OK) {
        char buf[256];
        fl_cli_catalog_close(c);
        return fl_error_prefix(err, "catalog %s", redacted(uri, buf, sizeof buf));
    }
    return FL_OK;
}

void fl_cli_catalog_close(fl_cli_catalog *c)
{
    fl_catalog_close(c->cat);
    fl_fileio_destroy(c->io);
    free(c->warehouse);
    memset(c, 0, sizeof *c);
}

fl_status fl_cli_ensure_namespace(fl_cli_catalog *c, const fl_table_ident *id, fl_error *err)
{
    if (!id->ns.nlevels)
        return FL_OK;
    /* create each level (nested namespaces need their parents) */
    for (uint32_t n = 1; n <= id->ns.nlevels; n++) {
        fl_namespace ns = {n, id->ns.levels};
        fl_error e2;
        fl_status rc = c->cat->ops->create_namespace(c->cat, &ns, NULL, &e2);
        if (rc != FL_OK && rc != FL_EEXIST) {
            if (err)
                *err = e2;
            return rc;
        }
    }
    return FL_OK;
}

/* ---- arguments ---- */

/* Every option of the writing subcommands; each subcommand accepts the
 * catalog options and those its BEGIN line names (their help comes from
 * here, so `floe table X --help` and `floe table --help` agree). */
static const cli_opt write_options[] = {
    {"catalog", 0, "URI", false,
     "the catalog (default $FLOE_CATALOG, else sqlite:./warehouse/catalog.db)"},
    {"warehouse", 0, "DIR", false,
     "root of new tables (default $FLOE_WAREHOUSE, else ./warehouse)"},
    {"schema", 0, "SPEC", false, "create: the columns, \"id:long not null,ts:timestamptz\""},
    {"partition-by", 0, "E", true, "create: a partition field, \"day(ts)\", \"bucket(id, 8)\""},
    {"sort-by", 0, "E", true, "create: a sort field, \"id DESC NULLS LAST\""},
    {"property", 0, "K=V", true, "create: a table property, e.g. format-version=3"},
    {"identifier", 0, "COL", true, "create: an identifier field"},
    {"location", 0, "URI", false, "create: the table's location (default: under the warehouse)"},
    {"purge", 0, NULL, false, "drop: also delete the table's files"},
    {"parent", 0, "P", false, "add-column: the struct the column goes in"},
    {"required", 0, NULL, false, "add-column: not null (needs --default)"},
    {"default", 0, "JSON", false, "add-column, alter-column: the column's default value"},
    {"doc", 0, "D", false, "add-column: the column's doc string"},
    {"type", 0, "T", false, "alter-column: the new type (a promotion: int -> long ...)"},
    {"optional", 0, NULL, false, "alter-column: make the column nullable"},
    {"first", 0, NULL, false, "alter-column: move the column first"},
    {"after", 0, "COL", false, "alter-column: move the column after COL"},
    {"unset", 0, "K", true, "set-properties: remove property K"},
    {"where", 0, "\"col op value\"", true,
     "delete: the rows to delete (AND; --where all: every row)"},
    {"to", 0, "ID", false, "rollback: to this ancestor snapshot"},
    {"to-time", 0, "TS", false, "rollback: to the snapshot current at TS"},
    {"snapshot", 0, "ID", false, "create-branch, create-tag: at this snapshot (default: current)"},
    {"older-than", 0, "TS", false,
     "expire: snapshots older than TS; remove-orphans: files older\nthan TS (default: 3 days ago)"},
    {"retain-last", 0, "N", false, "expire: keep at least the last N snapshots"},
    {"dry-run", 0, NULL, false, "remove-orphans: list the files, delete nothing"},
    {"force", 0, NULL, false, "compact: rewrite every data file"},
};
static const cli_command write_family = {
    .name = "table", .opts = write_options, .nopts = CLI_NOPTS(write_options)};

void fl_table_write_usage_options(FILE *out)
{
    cli_usage_options(&write_family, "writing options", out);
}

/* The most options one subcommand takes: the catalog pair and its own. */
#define MAX_SUB_OPTS 12

typedef struct targs {
    const char *cmd;
    const char *pos[16];
    int npos;
    const char *names[64]; /* long names without "--", as in write_options */
    const char *vals[64];  /* "" for a flag */
    int nopts;
    const char *catalog, *warehouse;
} targs;

/* The option table of one subcommand: the catalog options, then those of
 * `allowed` ("--name"; "--x-none" for none). 0, or 1 for a name missing
 * from write_options (a bug, said so). */
static int sub_options(const char *cmd, const char *const *allowed, cli_opt *opts, size_t *n)
{
    *n = 0;
    opts[(*n)++] = write_options[0];
    opts[(*n)++] = write_options[1];
    for (const char *const *p = allowed; *p; p++) {
        int k = strcmp(*p, "--x-none") ? cli_find(&write_family, *p + 2) : -2;
        if (k == -1 || *n == MAX_SUB_OPTS) {
            fprintf(stderr, "floe table %s: internal error: no option table row for %s\n", cmd, *p);
            return 1;
        }
        if (k >= 0)
            opts[(*n)++] = write_options[k];
    }
    return 0;
}

/* 0 = run, -1 = help printed, else the exit status (message printed). */
static int parse(int argc, char **argv, targs *a, int min_pos, const char *usage_line,
                 const char *const *allowed)
{
    memset(a, 0, sizeof *a);
    a->cmd = argv[0];
    cli_opt opts[MAX_SUB_OPTS];
    size_t nopts;
    if (sub_options(a->cmd, allowed, opts, &nopts))
        return 1;
    char name[64], synopsis[512];
    snprintf(name, sizeof name, "table %s", a->cmd);
    snprintf(synopsis, sizeof synopsis, "table %s %s", a->cmd, usage_line);
    const cli_command cmd = {.name = name,
                             .synopsis = synopsis,
                             .about = strstr(usage_line, "TS")
                                          ? "  TABLE is ns.name in the catalog. TS is epoch "
                                            "milliseconds or a timestamp."
                                          : "  TABLE is ns.name in the catalog.",
                             .opts = opts,
                             .nopts = nopts,
                             .min_args = min_pos,
                             .max_args = 16};
    cli_args p;
    int st;
    if (!cli_parse(&cmd, argc, argv, &p, &st))
        return st ? st : -1;
    if (p.ngiven > 64) {
        cli_args_free(&p);
        return cli_usage_error(&cmd, "too many options");
    }
    for (int i = 0; i < p.npos; i++)
        a->pos[a->npos++] = p.pos[i];
    for (int i = 0; i < p.ngiven; i++) {
        const cli_opt *o = &opts[p.given[i].opt];
        const char *v = p.given[i].value ? p.given[i].value : "";
        if (!strcmp(o->name, "catalog"))
            a->catalog = v;
        else if (!strcmp(o->name, "warehouse"))
            a->warehouse = v;
        else {
            a->names[a->nopts] = o->name;
            a->vals[a->nopts++] = v;
        }
    }
    cli_args_free(&p);
    return 0;
}

/* The value of option "--name" (the last given; "" for a flag), or NULL. */
static const char *opt(const targs *a, const char *name)
{
    const char *v = NULL;
    for (int i = 0; i < a->nopts; i++)
        if (!strcmp(a->names[i], name + 2))
            v = a->vals[i];
    return v;
}

static int opt_all(const targs *a, const char *name, const char **out)
{
    int n = 0;
    for (int i = 0; i < a->nopts; i++)
        if (!strcmp(a->names[i], name + 2))
            out[n++] = a->vals[i];
    return n;
}

/* Epoch ms or a timestamp text. */
static bool parse_time_ms(const char *s, int64_t *ms)
{
    if (fl_parse_int64(s, strlen(s), ms))
        return true;
    int64_t us;
    bool zone;
    if (!fl_parse_timestamp(s, strlen(s), 6, &us, &zone))
        return false;
    *ms = us / 1000;
    return true;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- running one transaction ---- */

typedef struct tctx {
    targs a;
    fl_cli_catalog c;
    fl_arena arena;
    fl_table_ident id;
    fl_ice_table *t;
    fl_ice_txn *x;
    fl_error err;
} tctx;

static fl_status ctx_open(tctx *c, bool load, fl_error *err)
{
    fl_arena_init(&c->arena, 0);
    FL_TRY(fl_cli_catalog_open(c->a.catalog, c->a.warehouse, &c->c, err));
    FL_TRY(fl_table_ident_parse(c->a.pos[0], &c->arena, &c->id, err));
    if (!load)
        return FL_OK;
    FL_TRY(fl_ice_table_load(c->c.cat, &c->id, &c->t, err));
    return fl_ice_txn_begin(c->t, &c->x, err);
}

static void ctx_close(tctx *c)
{
    fl_ice_txn_abort(c->x);
    fl_ice_table_free(c->t);
    if (c->c.cat || c->c.io)
        fl_cli_catalog_close(&c->c);
    fl_arena_free(&c->arena);
}

static int finish(tctx *c, fl_status rc, const char *what)
{
    int64_t snap = -1;
    if (rc == FL_OK && c->x) {
        fl_ice_txn *x = c->x;
        c->x = NULL;
        rc = fl_ice_txn_commit(x, &snap, &c->err);
    }
    if (rc != FL_OK) {
        fprintf(stderr, "floe table %s: %s\n", c->a.cmd, c->err.msg);
        ctx_close(c);
        return 1;
    }
    if (what)
        fprintf(stderr, "floe table %s: %s %s", c->a.cmd, c->a.pos[0], what);
    if (what && snap >= 0)
        fprintf(stderr, " (snapshot %" PRId64 ")", snap);
    if (what)
        fprintf(stderr, "\n");
    ctx_close(c);
    return 0;
}

#define BEGIN(min_pos, usage_line, load, ...)                                                      \
    tctx c;                                                                                        \
    memset(&c, 0, sizeof c);                                                                       \
    {                                                                                              \
        static const char *const allowed_[] = {__VA_ARGS__, NULL};                                 \
        int u_ = parse(argc, argv, &c.a, min_pos, usage_line, allowed_);                           \
        if (u_)                                                                                    \
            return u_ < 0 ? 0 : u_;                                                                \
    }                                                                                              \
    fl_error_clear(&c.err);                                                                        \
    fl_status rc = ctx_open(&c, load, &c.err);                                                     \
    if (rc != FL_OK)                                                                               \
        return finish(&c, rc, NULL);

/* ---- create / drop / register ---- */

static int cmd_create(int argc, char **argv)
{
    BEGIN(1,
          "TABLE --schema SPEC [--partition-by E]... [--sort-by E]... [--property K=V]... "
          "[--identifier COL]... [--location URI]",
          false, "--schema", "--partition-by", "--sort-by", "--property", "--identifier",
          "--location");
    const char *spec = opt(&c.a, "--schema");
    if (!spec) {
        fprintf(stderr, "floe table create: --schema is required\n");
        ctx_close(&c);
        return 2;
    }
    const char *parts[64], *sorts[64], *props[64], *idents[64];
    int np = opt_all(&c.a, "--partition-by", parts), ns = opt_all(&c.a, "--sort-by", sorts);
    int nprops = opt_all(&c.a, "--property", props), ni = opt_all(&c.a, "--identifier", idents);
    fl_ice_kv kv[64];
    for (int i = 0; i < nprops; i++) {
        const char *e = strchr(props[i], '=');
        if (!e) {
            fprintf(stderr, "floe table create: --property takes KEY=VALUE\n");
            ctx_close(&c);
            return 2;
        }
        kv[i].key = fl_arena_strndup(&c.arena, props[i], (size_t)(e - props[i]));
        kv[i].value = e + 1;
    }
    fl_schema s;
    rc = fl_parse_schema_spec(spec, &c.arena, &s, &c.err);
    if (rc != FL_OK)
        fl_error_prefix(&c.err, "--schema");
    if (rc == FL_OK)
        rc = fl_cli_ensure_namespace(&c.c, &c.id, &c.err);
    fl_ice_map pm = {(uint32_t)nprops, kv};
    fl_ice_create_options o = {.schema = &s,
                               .identifier_fields = idents,
                               .nidentifier_fields = (uint32_t)ni,
                               .partition_by = parts,
                               .npartition_by = (uint32_t)np,
                               .sort_by = sorts,
                               .nsort_by = (uint32_t)ns,
                               .properties = &pm,
                               .location = opt(&c.a, "--location")};
    if (rc == FL_OK)
        rc = fl_ice_table_create(c.c.cat, &c.id, &o, &c.t, &c.err);
    return finish(&c, rc, "created");
}

static int cmd_drop(int argc, char **argv)
{
    BEGIN(1, "TABLE [--purge]", false, "--purge");
    rc = fl_ice_table_drop(c.c.cat, &c.id, opt(&c.a, "--purge") != NULL, &c.err);
    return finish(&c, rc, opt(&c.a, "--purge") ? "dropped and purged" : "dropped");
}

/* Reads all of stdin into b (at most the metadata size limit). */
static fl_status read_stdin(fl_buf *b, fl_error *err)
{
    fl_buf_init(b, FL_ICE_METADATA_MAX_BYTES);
    char chunk[65536];
    size_t n;
    fl_status rc = FL_OK;
    while (rc == FL_OK && (n = fread(chunk, 1, sizeof chunk, stdin)) > 0)
        rc = fl_buf_append(b, chunk, n, err);
    if (rc == FL_OK && ferror(stdin))
        rc = fl_errorf(err, FL_EIO, "stdin: %s", strerror(errno));
    return rc;
}

/* `register TABLE -`: the metadata JSON on stdin has no file yet, so it is
 * stored, as given, where the catalog puts a new table's first metadata
 * file (under the JSON's own location); *path is then registered. */
static fl_status store_stdin_metadata(tctx *c, const char **path)
{
    fl_buf b;
    fl_ice_metadata m;
    fl_output *out = NULL;
    fl_status rc = read_stdin(&b, &c->err);
    if (rc == FL_OK)
        rc = fl_ice_metadata_parse(b.bytes, b.len, "stdin", &c->arena, &m, &c->err);
    if (rc == FL_OK && !m.location)
        rc = fl_errorf(&c->err, FL_ECORRUPT, "stdin: the metadata has no location");
    if (rc == FL_OK)
        rc = c->c.cat->ops->new_metadata_path(c->c.cat, &c->id, m.location, NULL, 0, &c->arena,
                                              path, &c->err);
    if (rc == FL_OK)
        rc = fl_fileio_create(c->c.io, *path, 0, &out, &c->err);
    if (rc == FL_OK && (rc = fl_output_write(out, b.bytes, b.len, &c->err)) == FL_OK) {
        fl_output *o = out;
        out = NULL;
        rc = fl_output_close(o, &c->err);
    }
    fl_output_abort(out);
    fl_buf_free(&b);
    return rc;
}

static int cmd_register(int argc, char **argv)
{
    BEGIN(2, "TABLE METADATA_FILE ('-': the metadata JSON on stdin)", false, "--x-none");
    const char *path = c.a.pos[1];
    rc = fl_cli_ensure_namespace(&c.c, &c.id, &c.err);
    if (rc == FL_OK && !strcmp(path, "-"))
        rc = store_stdin_metadata(&c, &path);
    if (rc == FL_OK)
        rc = fl_ice_table_register(c.c.cat, &c.id, path, &c.t, &c.err);
    return finish(&c, rc, "registered");
}

/* ---- schema ---- */

static fl_status parse_type(const char *s, fl_arena *a, fl_type *t, fl_error *err)
{
    const char *p = s;
    int32_t next = 1;
    FL_TRY(fl_parse_type_spec(&p, a, &next, t, err));
    while (*p == ' ')
        p++;
    if (*p)
        return fl_errorf(err, FL_ESYNTAX, "type '%s': unexpected '%s'", s, p);
    return FL_OK;
}

static int cmd_add_column(int argc, char **argv)
{
    BEGIN(3, "TABLE NAME TYPE [--parent P] [--required] [--default JSON] [--doc D]", true,
          "--parent", "--required", "--default", "--doc");
    fl_type t;
    rc = parse_type(c.a.pos[2], &c.arena, &t, &c.err);
    if (rc == FL_OK)
        rc = fl_ice_txn_add_column(c.x, opt(&c.a, "--parent"), c.a.pos[1], &t,
                                   !opt(&c.a, "--required"), opt(&c.a, "--doc"),
                                   opt(&c.a, "--default"), &c.err);
    return finish(&c, rc, "column added");
}

static int cmd_drop_column(int argc, char **argv)
{
    BEGIN(2, "TABLE COLUMN", true, "--x-none");
    rc = fl_ice_txn_drop_column(c.x, c.a.pos[1], &c.err);
    return finish(&c, rc, "column dropped");
}

static int cmd_rename_column(int argc, char **argv)
{
    BEGIN(3, "TABLE COLUMN NEW_NAME", true, "--x-none");
    rc = fl_ice_txn_rename_column(c.x, c.a.pos[1], c.a.pos[2], &c.err);
    return finish(&c, rc, "column renamed");
}

static int cmd_alter_column(int argc, char **argv)
{
    BEGIN(2, "TABLE COLUMN [--type T] [--optional] [--default JSON] [--first | --after COL]", true,
          "--type", "--optional", "--default", "--first", "--after");
    const char *type = opt(&c.a, "--type");
    if (!type && !opt(&c.a, "--optional") && !opt(&c.a, "--default") && !opt(&c.a, "--first") &&
        !opt(&c.a, "--after")) {
        fprintf(stderr, "floe table alter-column: nothing to change\n");
        ctx_close(&c);
        return 2;
    }
    if (type) {
        fl_type t;
        rc = parse_type(type, &c.arena, &t, &c.err);
        if (rc == FL_OK)
            rc = fl_ice_txn_update_column_type(c.x, c.a.pos[1], &t, &c.err);
    }
    if (rc == FL_OK && opt(&c.a, "--optional"))
        rc = fl_ice_txn_make_column_optional(c.x, c.a.pos[1], &c.err);
    if (rc == FL_OK && opt(&c.a, "--default"))
        rc = fl_ice_txn_set_column_default(c.x, c.a.pos[1], opt(&c.a, "--default"), &c.err);
    if (rc == FL_OK && (opt(&c.a, "--first") || opt(&c.a, "--after")))
        rc = fl_ice_txn_move_column(c.x, c.a.pos[1], opt(&c.a, "--after"),
                                    opt(&c.a, "--first") != NULL, &c.err);
    return finish(&c, rc, "column altered");
}

/* ---- partitioning, sorting, properties ---- */

static int cmd_add_partition(int argc, char **argv)
{
    BEGIN(2, "TABLE EXPR", true, "--x-none");
    rc = fl_ice_txn_add_partition_field(c.x, c.a.pos[1], &c.err);
    return finish(&c, rc, "partition field added");
}

static int cmd_drop_partition(int argc, char **argv)
{
    BEGIN(2, "TABLE NAME|EXPR", true, "--x-none");
    rc = fl_ice_txn_remove_partition_field(c.x, c.a.pos[1], &c.err);
    return finish(&c, rc, "partition field removed");
}

static int cmd_set_sort(int argc, char **argv)
{
    BEGIN(1, "TABLE [EXPR]...", true, "--x-none");
    rc = fl_ice_txn_set_sort_order(c.x, c.a.pos + 1, (uint32_t)(c.a.npos - 1), &c.err);
    return finish(&c, rc, c.a.npos > 1 ? "sort order set" : "unsorted");
}

static int cmd_set_properties(int argc, char **argv)
{
    BEGIN(1, "TABLE [KEY=VALUE]... [--unset KEY]...", true, "--unset");
    fl_ice_kv kv[16];
    uint32_t n = 0;
    for (int i = 1; i < c.a.npos && rc == FL_OK; i++) {
        const char *e = strchr(c.a.pos[i], '=');
        if (!e || e == c.a.pos[i]) {
            rc = fl_errorf(&c.err, FL_EINVAL, "'%s': expected KEY=VALUE", c.a.pos[i]);
            break;
        }
        kv[n].key = fl_arena_strndup(&c.arena, c.a.pos[i], (size_t)(e - c.a.pos[i]));
        kv[n++].value = e + 1;
    }
    const char *unset[64];
    int nu = opt_all(&c.a, "--unset", unset);
    fl_ice_map set = {n, kv};
    if (rc == FL_OK)
        rc = fl_ice_txn_set_properties(c.x, &set, unset, (uint32_t)nu, &c.err);
    return finish(&c, rc, "properties updated");
}

/* ---- delete ---- */

static int cmd_delete(int argc, char **argv)
{
    BEGIN(1, "TABLE --where \"col op value\"... (all rows: --where all)", true, "--where");
    const char *w[64];
    int nw = opt_all(&c.a, "--where", w);
    if (!nw) {
        fprintf(stderr, "floe table delete: --where is required (--where all deletes every row)\n");
        ctx_close(&c);
        return 2;
    }
    const fl_ice_schema *s = fl_ice_metadata_current_schema(fl_ice_txn_metadata(c.x));
    fl_col_pred terms[64];
    uint32_t nt = 0;
    for (int i = 0; i < nw && rc == FL_OK; i++) {
        if (!strcasecmp(w[i], "all"))
            continue;
        rc = s ? fl_cli_parse_where(w[i], &s->schema, &c.arena, &terms[nt++], &c.err)
               : fl_errorf(&c.err, FL_ECORRUPT, "no current schema");
    }
    fl_predicate pred = {nt, terms};
    int64_t deleted = 0;
    if (rc == FL_OK)
        rc = fl_ice_delete_where(c.x, &pred, &deleted, &c.err);
    char msg[64];
    snprintf(msg, sizeof msg, "%" PRId64 " rows deleted", deleted);
    return finish(&c, rc, msg);
}

/* ---- snapshots and refs ---- */

static bool parse_id(const char *s, int64_t *v)
{
    return fl_parse_int64(s, strlen(s), v);
}

static int cmd_rollback(int argc, char **argv)
{
    BEGIN(1, "TABLE --to SNAPSHOT_ID | --to-time TS", true, "--to", "--to-time");
    const char *to = opt(&c.a, "--to"), *tt = opt(&c.a, "--to-time");
    int64_t v;
    if ((!to == !tt) || (to && !parse_id(to, &v)) || (tt && !parse_time_ms(tt, &v))) {
        fprintf(stderr, "usage: floe table rollback TABLE --to SNAPSHOT_ID | --to-time TS\n");
        ctx_close(&c);
        return 2;
    }
    rc = to ? fl_ice_txn_rollback_to(c.x, v, &c.err) : fl_ice_txn_rollback_to_time(c.x, v, &c.err);
    return finish(&c, rc, "rolled back");
}

static int cmd_set_current(int argc, char **argv)
{
    BEGIN(2, "TABLE SNAPSHOT_ID", true, "--x-none");
    int64_t v;
    if (!parse_id(c.a.pos[1], &v)) {
        fprintf(stderr, "floe table set-current: bad snapshot id '%s'\n", c.a.pos[1]);
        ctx_close(&c);
        return 2;
    }
    rc = fl_ice_txn_set_current_snapshot(c.x, v, &c.err);
    return finish(&c, rc, "current snapshot set");
}

static int create_ref(int argc, char **argv, bool tag)
{
    BEGIN(2, "TABLE NAME [--snapshot ID]", true, "--snapshot");
    int64_t v = -1;
    const char *s = opt(&c.a, "--snapshot");
    if (s && !parse_id(s, &v)) {
        fprintf(stderr, "floe table %s: bad snapshot id '%s'\n", c.a.cmd, s);
        ctx_close(&c);
        return 2;
    }
    rc = fl_ice_txn_create_ref(c.x, c.a.pos[1], tag, v, &c.err);
    return finish(&c, rc, tag ? "tag created" : "branch created");
}

static int cmd_create_branch(int argc, char **argv)
{
    return create_ref(argc, argv, false);
}
static int cmd_create_tag(int argc, char **argv)
{
    return create_ref(argc, argv, true);
}

static int cmd_drop_ref(int argc, char **argv)
{
    BEGIN(2, "TABLE NAME", true, "--x-none");
    rc = fl_ice_txn_remove_ref(c.x, c.a.pos[1], &c.err);
    return finish(&c, rc, "ref dropped");
}

/* ---- maintenance ---- */

static int cmd_expire(int argc, char **argv)
{
    BEGIN(1, "TABLE [--older-than TS] [--retain-last N]", true, "--older-than", "--retain-last");
    int64_t older = -1, keep = 0;
    const char *o = opt(&c.a, "--older-than"), *r = opt(&c.a, "--retain-last");
    if ((o && !parse_time_ms(o, &older)) ||
        (r && (!parse_id(r, &keep) || keep < 1 || keep > UINT32_MAX))) {
        fprintf(stderr, "usage: floe table expire TABLE [--older-than TS] [--retain-last N>=1]\n");
        ctx_close(&c);
        return 2;
    }
    fl_ice_expire_result res = {0};
    rc = fl_ice_txn_expire_snapshots(c.x, older, (uint32_t)keep, &res, &c.err);
    if (rc == FL_OK) {
        fl_ice_txn *x = c.x;
        c.x = NULL;
        rc = fl_ice_txn_commit(x, NULL, &c.err);
    }
    char msg[256];
    snprintf(msg, sizeof msg,
             "%" PRIu64 " snapshots expired; deleted %" PRIu64 " manifest lists, %" PRIu64
             " manifests, %" PRIu64 " data files, %" PRIu64 " delete files",
             res.snapshots_expired, res.manifest_lists_deleted, res.manifests_deleted,
             res.data_files_deleted, res.delete_files_deleted);
    return finish(&c, rc, msg);
}

static void print_orphan(void *ctx, const char *path)
{
    (void)ctx;
    printf("%s\n", path);
}

static int cmd_remove_orphans(int argc, char **argv)
{
    BEGIN(1, "TABLE [--older-than TS] [--dry-run]", true, "--older-than", "--dry-run");
    int64_t older = now_ms() - 3 * 86400000LL;
    const char *o = opt(&c.a, "--older-than");
    if (o && !parse_time_ms(o, &older)) {
        fprintf(stderr, "floe table remove-orphans: bad --older-than '%s'\n", o);
        ctx_close(&c);
        return 2;
    }
    fl_ice_txn_abort(c.x); /* no transaction needed */
    c.x = NULL;
    uint64_t n = 0;
    bool dry = opt(&c.a, "--dry-run") != NULL;
    rc = fl_ice_remove_orphan_files(c.t, older, dry, print_orphan, NULL, &n, &c.err);
    char msg[64];
    snprintf(msg, sizeof msg, "%" PRIu64 " orphan files %s", n, dry ? "found" : "removed");
    return finish(&c, rc, msg);
}

static int cmd_rewrite_manifests(int argc, char **argv)
{
    BEGIN(1, "TABLE", true, "--x-none");
    rc = fl_ice_txn_rewrite_manifests(c.x, &c.err);
    return finish(&c, rc, "manifests rewritten");
}

static int cmd_compact(int argc, char **argv)
{
    BEGIN(1, "TABLE [--force]", true, "--force");
    uint64_t rewritten = 0, added = 0;
    rc = fl_cli_compact(c.x, opt(&c.a, "--force") != NULL, &rewritten, &added, &c.err);
    char msg[96];
    snprintf(msg, sizeof msg, "%" PRIu64 " data files rewritten into %" PRIu64, rewritten, added);
    return finish(&c, rc, msg);
}

static const fl_table_write_cmd commands[] = {
    {"create", cmd_create, "create a table (--schema, --partition-by, --sort-by, --property)"},
    {"drop", cmd_drop, "drop a table from the catalog (--purge deletes its files)"},
    {"register", cmd_register, "register an existing metadata file as a table"},
    {"add-column", cmd_add_column, "add a column: TABLE NAME TYPE [--parent P] [--default J]"},
    {"drop-column", cmd_drop_column, "drop a column"},
    {"rename-column", cmd_rename_column, "rename a column"},
    {"alter-column", cmd_alter_column, "change type (promotion), optional, default, position"},
    {"add-partition", cmd_add_partition, "add a partition field: \"day(ts)\", \"bucket(id, 8)\""},
    {"drop-partition", cmd_drop_partition, "remove a partition field by name or expression"},
    {"set-sort", cmd_set_sort, "set the sort order (no fields = unsorted)"},
    {"set-properties", cmd_set_properties, "set KEY=VALUE properties, --unset KEY"},
    {"delete", cmd_delete, "delete rows --where \"col op value\" (AND of several)"},
    {"rollback", cmd_rollback, "roll back to an ancestor: --to ID | --to-time TS"},
    {"set-current", cmd_set_current, "make a snapshot current"},
    {"create-branch", cmd_create_branch, "create a branch [--snapshot ID]"},
    {"create-tag", cmd_create_tag, "create a tag [--snapshot ID]"},
    {"drop-ref", cmd_drop_ref, "drop a branch or tag"},
    {"expire", cmd_expire, "expire snapshots [--older-than TS] [--retain-last N]"},
    {"remove-orphans", cmd_remove_orphans,
     "delete unreferenced files [--older-than TS] [--dry-run]"},
    {"rewrite-manifests", cmd_rewrite_manifests, "rewrite manifests clustered by partition"},
    {"compact", cmd_compact, "rewrite small data files and files with deletes [--force]"},
    {"rename", fl_cmd_table_rename, "rename a table: TABLE NEW_TABLE"},
    {"namespaces", fl_cmd_table_namespaces, "list namespaces [PARENT]"},
    {"namespace", fl_cmd_table_namespace, "print a namespace's properties"},
    {"create-namespace", fl_cmd_table_create_namespace, "create NS [--property K=V]..."},
    {"drop-namespace", fl_cmd_table_drop_namespace, "drop an empty namespace"},
    {"tables", fl_cmd_table_tables, "list the tables of a namespace"},
};

const fl_table_write_cmd *fl_table_write_commands(size_t *n)
{
    *n = sizeof commands / sizeof commands[0];
    return commands;
}
