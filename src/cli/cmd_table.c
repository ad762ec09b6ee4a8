/*
 * cmd_table.c - `floe table <sub> TABLE ...`: reading Iceberg tables.
 *
 * TABLE is a metadata file (*.metadata.json, also gzip) or a table folder:
 * metadata/version-hint.text names the version (N -> vN.metadata.json or
 * vN.gz.metadata.json, or a file stem), else the newest *.metadata.json wins
 * (highest leading version number, then name).
 *
 * Subcommands are rows of a {name, fn, help} table so that write commands
 * (cmd_table_write.c) join with one line. Read subcommands:
 *   cat        rows (projection, filter, time travel, deletes applied)
 *   count      row count (from metadata when exact, else by scanning)
 *   describe   schema, partition spec, properties, current snapshot
 *   snapshots history refs manifests all_manifests files data_files
 *   delete_files entries partitions     metadata tables (ice_scan.h)
 * Common options: --snapshot ID | --as-of TS (ms or timestamp text) | --ref NAME,
 * --columns a,b, --where "col op value" (repeatable, AND), --format
 * table|csv|json|jsonl|unaligned (floe sql's printers and value text), --limit
 * N, --map FROM=TO (repeatable path-prefix remap),
 * --lenient-dv (accept bare DV blobs), --explain (planning figures on stderr),
 * --catalog URI [--warehouse DIR]: a TABLE that is not an existing path is
 * db.table in that catalog (defaults as the writing commands: $FLOE_CATALOG /
 * $FLOE_WAREHOUSE, else sqlite:./warehouse/catalog.db and ./warehouse).
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/cmd_sql.h"
#include "cli/cmd_table_write.h"
#include "cli/opts.h"
#include "cli/output.h"
#include "cli/textparse.h"
#include "cli/where.h"
#include "floe/catalog.h"
#include "floe/ice_scan.h"
#include "floe/ice_table.h"
#include "floe/iceberg.h"
#include "floe/s3.h"

typedef struct tbl_args {
    const char *sub;
    const char *table;
    fl_ice_snapshot_select select;
    int64_t snapshot_id, as_of;
    const char *ref;
    const char **columns;
    uint32_t ncolumns;
    const char **wheres;
    uint32_t nwheres;
    fl_sqlout_format fmt; /* table | csv | json | jsonl | unaligned */
    bool has_limit;
    uint64_t limit;
    fl_path_mapping *maps;
    uint32_t nmaps;
    bool lenient_dv, explain;
    const char *catalog, *warehouse;
} tbl_args;

typedef struct tbl_ctx {
    fl_arena arena;
    fl_fileio *base, *io;
    fl_fileio *reader_io;           /* what scans read through: io, or the catalog's */
    fl_ice_metadata meta_path_read; /* when TABLE is a path */
    const fl_ice_metadata *meta;
    const char *metadata_path;
    fl_cli_catalog cc; /* when TABLE is a catalog name (cmd_table_write.h) */
    bool has_cc;
    fl_ice_table *tbl;
} tbl_ctx;

static int fail(const char *sub, const fl_error *err)
{
    fprintf(stderr, "floe table %s: %s\n", sub, err->msg);
    return 1;
}

static void usage(FILE *out);

/* ---- arguments ---- */

static fl_status split_list(const char *s, fl_arena *a, const char ***out, uint32_t *n,
                            fl_error *err)
{
    uint32_t cap = 1;
    for (const char *p = s; *p; p++)
        cap += *p == ',';
    const char **v = fl_arena_calloc(a, cap, sizeof *v);
    FL_CHECK(v != NULL, err, FL_ENOMEM, "out of memory");
    uint32_t k = 0;
    for (const char *p = s;;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        while (len && *p == ' ')
            p++, len--;
        while (len && p[len - 1] == ' ')
            len--;
        FL_CHECK(len > 0, err, FL_EINVAL, "--columns: empty column name in '%s'", s);
        v[k] = fl_arena_strndup(a, p, len);
        FL_CHECK(v[k++] != NULL, err, FL_ENOMEM, "out of memory");
        if (!e)
            break;
        p = e + 1;
    }
    *out = v;
    *n = k;
    return FL_OK;
}

static bool parse_ts_ms(const char *s, int64_t *out)
{
    if (fl_parse_int64(s, strlen(s), out))
        return true;
    int64_t us;
    bool tz;
    if (!fl_parse_timestamp(s, strlen(s), 6, &us, &tz))
        return false;
    *out = us / 1000 - (us % 1000 < 0);
    return true;
}

enum {
    R_SNAPSHOT,
    R_AS_OF,
    R_REF,
    R_COLUMNS,
    R_WHERE,
    R_FORMAT,
    R_LIMIT,
    R_MAP,
    R_CATALOG,
    R_WAREHOUSE,
    R_LENIENT_DV,
    R_EXPLAIN
};
static const cli_opt read_options[] = {
    [R_SNAPSHOT] = {"snapshot", 0, "ID", false, "time travel: read snapshot ID"},
    [R_AS_OF] = {"as-of", 0, "TS", false,
                 "time travel: the snapshot current at TS (ms or timestamp)"},
    [R_REF] = {"ref", 0, "NAME", false, "time travel: the head of branch or tag NAME"},
    [R_COLUMNS] = {"columns", 0, "a,b", false, "project columns (_file, _pos: metadata columns)"},
    [R_WHERE] = {"where", 0, "\"col op v\"", true,
                 "filter, AND of all (op: = != < <= > >= 'is null' 'is not null')"},
    [R_FORMAT] = {"format", 0, "F", false, "table (default) | csv | json | jsonl | unaligned, as floe sql prints"},
    [R_LIMIT] = {"limit", 0, "N", false, "at most N rows"},
    [R_MAP] = {"map", 0, "FROM=TO", true, "rewrite a location prefix (moved tables)"},
    [R_CATALOG] = {"catalog", 0, "URI", false,
                   "when TABLE is not a path it is db.table in this catalog\n"
                   "(sqlite:PATH, postgresql://..., fs:PATH, http(s)://... REST;\n"
                   "default $FLOE_CATALOG, else sqlite:./warehouse/catalog.db)"},
    [R_WAREHOUSE] = {"warehouse", 0, "DIR", false,
                     "its warehouse ($FLOE_WAREHOUSE, else ./warehouse)"},
    [R_LENIENT_DV] = {"lenient-dv", 0, NULL, false,
                      "accept deletion vectors stored as bare blobs (old DuckDB)"},
    [R_EXPLAIN] = {"explain", 0, NULL, false, "planning figures on stderr"},
};
static const cli_command read_cmd = {
    .name = "table",
    .about = "  TABLE: a *.metadata.json file, a table folder (version-hint.text, else the newest\n"
             "  metadata file), or ns.name in the catalog.",
    .opts = read_options,
    .nopts = CLI_NOPTS(read_options),
    .max_args = 1,
};

/* The time travel of the last of --snapshot / --as-of / --ref given; 0 or 2. */
static int snapshot_option(const cli_command *cmd, const cli_args *p, tbl_args *c)
{
    for (int i = p->ngiven - 1; i >= 0; i--) {
        int k = p->given[i].opt;
        const char *v = p->given[i].value;
        if (k == R_SNAPSHOT && !fl_parse_int64(v, strlen(v), &c->snapshot_id))
            return cli_usage_error(cmd, "bad --snapshot '%s'", v);
        if (k == R_AS_OF && !parse_ts_ms(v, &c->as_of))
            return cli_usage_error(cmd, "bad --as-of '%s' (ms since epoch or timestamp)", v);
        c->ref = k == R_REF ? v : NULL;
        c->select = k == R_SNAPSHOT ? FL_ICE_SNAP_ID
                    : k == R_AS_OF  ? FL_ICE_SNAP_TIMESTAMP
                    : k == R_REF    ? FL_ICE_SNAP_REF
                                    : FL_ICE_SNAP_CURRENT;
        if (c->select != FL_ICE_SNAP_CURRENT)
            return 0;
    }
    return 0;
}

/* --map FROM=TO... into c->maps (arena copies of FROM); 0, 1 or 2. */
static int map_options(const cli_command *cmd, const cli_args *p, fl_arena *a, tbl_args *c)
{
    int n;
    const char *const *v = cli_values(p, R_MAP, &n);
    c->maps = fl_arena_calloc(a, (size_t)n + 1, sizeof *c->maps);
    if (!c->maps)
        return 1;
    for (int i = 0; i < n; i++) {
        const char *e = strchr(v[i], '=');
        if (!e || e == v[i])
            return cli_usage_error(cmd, "--map wants FROM=TO, got '%s'", v[i]);
        c->maps[c->nmaps].from = fl_arena_strndup(a, v[i], (size_t)(e - v[i]));
        c->maps[c->nmaps++].to = e + 1;
    }
    return 0;
}

/* The options of p into c; 0, 1 (out of memory) or 2 (usage, printed). */
static int options_from(const cli_command *cmd, const cli_args *p, fl_arena *a, tbl_args *c)
{
    int n;
    const char *const *w = cli_values(p, R_WHERE, &n);
    const char **wheres = fl_arena_calloc(a, (size_t)n + 1, sizeof *wheres);
    if (!wheres)
        return 1;
    for (int i = 0; i < n; i++)
        wheres[i] = w[i]; /* argv strings: they outlive the parse */
    c->wheres = wheres;
    c->nwheres = (uint32_t)n;
    c->catalog = cli_value(p, R_CATALOG);
    c->warehouse = cli_value(p, R_WAREHOUSE);
    c->lenient_dv = cli_has(p, R_LENIENT_DV);
    c->explain = cli_has(p, R_EXPLAIN);
    const char *v;
    fl_error err;
    if ((v = cli_value(p, R_COLUMNS)) && split_list(v, a, &c->columns, &c->ncolumns, &err))
        return cli_usage_error(cmd, "%s", err.msg);
    if ((v = cli_value(p, R_FORMAT)) &&
        (!fl_sqlout_format_parse(v, &c->fmt) || c->fmt == FL_SQLOUT_PARQUET))
        return cli_usage_error(cmd, "unknown format '%s' (table, csv, json, jsonl, unaligned)", v);
    if ((v = cli_value(p, R_LIMIT))) {
        int64_t l;
        if (!fl_parse_int64(v, strlen(v), &l) || l < 0)
            return cli_usage_error(cmd, "bad --limit '%s'", v);
        c->has_limit = true;
        c->limit = (uint64_t)l;
    }
    int st = snapshot_option(cmd, p, c);
    return st ? st : map_options(cmd, p, a, c);
}

/* 0 = run, 3 = help printed, else the exit status (message printed). */
static int parse_args(int argc, char **argv, fl_arena *a, tbl_args *c)
{
    memset(c, 0, sizeof *c);
    c->sub = argv[0];
    char name[64], synopsis[96];
    snprintf(name, sizeof name, "table %s", c->sub);
    snprintf(synopsis, sizeof synopsis, "table %s TABLE [options]", c->sub);
    cli_command cmd = read_cmd;
    cmd.name = name;
    cmd.synopsis = synopsis;
    cli_args p;
    int st;
    if (!cli_parse(&cmd, argc, argv, &p, &st))
        return st ? st : 3;
    c->table = p.npos ? p.pos[0] : NULL;
    st = options_from(&cmd, &p, a, c);
    cli_args_free(&p);
    if (st)
        return st;
    if (!c->table) {
        fprintf(stderr, "floe table %s: missing TABLE (metadata file or table folder)\n", c->sub);
        return 2;
    }
    if (!c->catalog)
        c->catalog = getenv("FLOE_CATALOG");
    if (!c->warehouse)
        c->warehouse = getenv("FLOE_WAREHOUSE");
    return 0;
}

/* ---- locating the metadata file ---- */

static bool is_dir(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static bool ends_with(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && !strcmp(s + a - b, suf);
}

static bool is_metadata_name(const char *n)
{
    return ends_with(n, ".metadata.json") || ends_with(n, ".metadata.json.gz");
}

/* Version number of a metadata file name: "v12..." / "00012-..." -> 12. */
static int64_t version_of(const char *n)
{
    const char *p = n[0] == 'v' ? n + 1 : n;
    if (*p < '0' || *p > '9')
        return -1;
    return strtoll(p, NULL, 10);
}

static fl_status find_metadata(const char *table, fl_arena *a, char **out, fl_error *err)
{
    if (!is_dir(table)) {
        *out = fl_arena_strdup(a, table);
        return FL_OK;
    }
    char *mdir = fl_arena_sprintf(a, "%s/metadata", table);
    if (!mdir || !is_dir(mdir))
        mdir = fl_arena_strdup(a, table);
    char *hint = fl_arena_sprintf(a, "%s/version-hint.text", mdir);
    FILE *f = hint ? fopen(hint, "r") : NULL;
    if (f) {
        char buf[512] = {0};
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' '))
            buf[--n] = 0;
        const char *cands[] = {"%s/v%s.metadata.json",   "%s/v%s.gz.metadata.json",
                               "%s/%s.metadata.json",    "%s/%s.gz.metadata.json",
                               "%s/%s.metadata.json.gz", "%s/%s"};
        for (size_t i = 0; n && i < sizeof cands / sizeof cands[0]; i++) {
            char *p = fl_arena_sprintf(a, cands[i], mdir, buf);
            if (p && is_file(p)) {
                *out = p;
                return FL_OK;
            }
        }
    }
    DIR *d = opendir(mdir);
    if (!d)
        return fl_errorf(err, FL_ENOTFOUND, "%s: cannot list metadata folder", mdir);
    char best[1024] = "";
    int64_t bestv = -2;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!is_metadata_name(de->d_name))
            continue;
        int64_t v = version_of(de->d_name);
        if (v > bestv || (v == bestv && strcmp(de->d_name, best) > 0)) {
            bestv = v;
            snprintf(best, sizeof best, "%s", de->d_name);
        }
    }
    closedir(d);
    if (!best[0])
        return fl_errorf(err, FL_ENOTFOUND, "%s: no version-hint.text and no *.metadata.json",
                         table);
    *out = fl_arena_sprintf(a, "%s/%s", mdir, best);
    return FL_OK;
}

static fl_status open_table(const tbl_args *c, tbl_ctx *t, fl_error *err)
{
    memset(t, 0, sizeof *t);
    fl_arena_init(&t->arena, 0);
    /* a catalog name: TABLE is db.table when it is not an existing path; the
     * catalog defaults are those of the writing commands ($FLOE_CATALOG, else
     * sqlite:./warehouse/catalog.db) */
    struct stat st;
    if (stat(c->table, &st) != 0 && !is_metadata_name(c->table)) {
        fl_table_ident id;
        FL_TRY(fl_table_ident_parse(c->table, &t->arena, &id, err));
        FL_TRY(fl_cli_catalog_open_ro(c->catalog, c->warehouse, &t->cc, err));
        t->has_cc = true;
        if (c->nmaps)
            FL_TRY(fl_fileio_remap(t->cc.io, c->maps, c->nmaps, &t->io, err));
        FL_TRY(fl_ice_table_load(t->cc.cat, &id, &t->tbl, err));
        t->meta = &t->tbl->meta;
        t->metadata_path = t->tbl->metadata_location;
        if (!t->io) {
            t->reader_io = t->cc.io; /* borrowed from the catalog */
            return FL_OK;
        }
        t->reader_io = t->io;
        return FL_OK;
    }
    FL_TRY(fl_fileio_default(NULL, &t->base, err));
    if (c->nmaps) {
        FL_TRY(fl_fileio_remap(t->base, c->maps, c->nmaps, &t->io, err));
    } else {
        t->io = t->base;
        t->base = NULL;
    }
    t->reader_io = t->io;
    char *mp = NULL;
    FL_TRY(find_metadata(c->table, &t->arena, &mp, err));
    t->metadata_path = mp;
    /* the metadata file itself is named on the command line: read it unmapped */
    fl_fileio *direct = t->base ? t->base : t->io;
    FL_TRY(fl_ice_metadata_read(direct, mp, &t->arena, &t->meta_path_read, err));
    t->meta = &t->meta_path_read;
    return FL_OK;
}

static void close_table(tbl_ctx *t)
{
    fl_ice_table_free(t->tbl);
    fl_fileio_destroy(t->io); /* remap over the catalog's FileIO, if any */
    t->io = NULL;
    if (t->has_cc)
        fl_cli_catalog_close(&t->cc);
    fl_fileio_destroy(t->io);
    fl_fileio_destroy(t->base);
    fl_arena_free(&t->arena);
}

/* Fills opt from args (filter terms allocated in a). */
static fl_status build_options(const tbl_args *c, const tbl_ctx *t, fl_arena *a,
                               fl_ice_scan_options *opt, fl_predicate *pred,
                               const fl_ice_schema **scan_schema, fl_error *err)
{
    memset(opt, 0, sizeof *opt);
    opt->select = c->select;
    opt->snapshot_id = c->snapshot_id;
    opt->timestamp_ms = c->as_of;
    opt->ref = c->ref;
    opt->columns = c->columns;
    opt->ncolumns = c->ncolumns;
    opt->lenient_dv = c->lenient_dv;
    const fl_ice_snapshot *snap;
    FL_TRY(fl_ice_select_snapshot(t->meta, opt, &snap, err));
    /* --where resolves against the schema the scan will use */
    const fl_ice_schema *s = fl_ice_metadata_current_schema(t->meta);
    if (snap && snap->has_schema_id && c->select != FL_ICE_SNAP_CURRENT) {
        bool tag = false;
        if (c->select == FL_ICE_SNAP_REF) {
            const fl_ice_ref *r = fl_ice_metadata_ref(t->meta, c->ref);
            tag = r && r->is_tag;
        }
        if (c->select != FL_ICE_SNAP_REF || tag) {
            const fl_ice_schema *x = fl_ice_metadata_schema(t->meta, snap->schema_id);
            if (x)
                s = x;
        }
    }
    FL_CHECK(s != NULL, err, FL_ECORRUPT, "table has no current schema");
    fl_col_pred *terms = fl_arena_calloc(a, c->nwheres + 1, sizeof *terms);
    FL_CHECK(terms != NULL, err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < c->nwheres; i++)
        FL_TRY(fl_cli_parse_where(c->wheres[i], &s->schema, a, &terms[i], err));
    pred->nterms = c->nwheres;
    pred->terms = terms;
    opt->filter = c->nwheres ? pred : NULL;
    if (scan_schema)
        *scan_schema = s;
    return FL_OK;
}

/* ---- subcommands ---- */

static void explain(const fl_ice_scan_plan *p)
{
    const fl_ice_scan_metrics *m = &p->metrics;
    fprintf(stderr,
            "snapshot: %" PRId64 "; manifests: %u data (%u pruned), %u delete; files: %" PRIu64
            " (%" PRIu64 " pruned by partition, %" PRIu64 " by metrics); delete files: %" PRIu64
            "; tasks: %u; bytes: %" PRIu64 "\n",
            p->snapshot ? p->snapshot->snapshot_id : (int64_t)-1, m->manifests_total,
            m->manifests_pruned, m->delete_manifests, m->files_total, m->files_pruned_partition,
            m->files_pruned_metrics, m->delete_files, p->ntasks, m->planned_bytes);
}

/* A source of batches: a table scan or a metadata table. */
typedef fl_batch_next_fn batch_next_fn;

static fl_status scan_next(void *src, fl_batch *b, bool *eof, fl_error *err)
{
    return fl_ice_scan_next(src, b, eof, err);
}

static fl_status metatable_next(void *src, fl_batch *b, bool *eof, fl_error *err)
{
    return fl_ice_metatable_next(src, b, eof, err);
}

/* What print_rows pulls from: a scan or metadata table filling one batch. */
typedef struct batch_source {
    batch_next_fn next;
    void *src;
    fl_batch batch;
} batch_source;

static fl_status source_next(void *ctx, const fl_batch **b, bool *eof, fl_error *err)
{
    batch_source *bs = ctx;
    FL_TRY(bs->next(bs->src, &bs->batch, eof, err));
    *b = &bs->batch;
    return FL_OK;
}

/* Prints every batch of src (schema `schema`) in c's format, up to c's
 * limit, with the printers and value text of `floe sql` (cmd_sql_print.c),
 * so a value reads the same in `floe table cat` and `SELECT`. */
static fl_status print_rows(const tbl_args *c, const fl_schema *schema, batch_next_fn next,
                            void *src, fl_error *err)
{
    batch_source bs = {next, src, {0}};
    FL_TRY(fl_batch_init(&bs.batch, schema, err));
    fl_sqlout o = {.format = c->fmt, .header = true, .out = stdout, .tz = "UTC"};
    fl_sqlout_source from = {source_next, &bs, c->has_limit, c->limit};
    uint64_t rows = 0;
    fl_status rc = fl_sqlout_batches(&o, schema, &from, &rows, err);
    fl_batch_destroy(&bs.batch);
    if (rc == FL_OK && (fflush(stdout) != 0 || ferror(stdout)))
        rc = fl_errorf(err, FL_EIO, "write error on output");
    return rc;
}

static fl_status run_cat(const tbl_args *c, tbl_ctx *t, fl_error *err)
{
    fl_ice_scan_options opt;
    fl_predicate pred;
    FL_TRY(build_options(c, t, &t->arena, &opt, &pred, NULL, err));
    fl_ice_scan *s;
    FL_TRY(fl_ice_scan_open(t->reader_io, t->meta, &opt, &s, err));
    if (c->explain)
        explain(fl_ice_scan_get_plan(s));
    fl_status rc = print_rows(c, fl_ice_scan_schema(s), scan_next, s, err);
    fl_ice_scan_close(s);
    return rc;
}

static fl_status run_count(const tbl_args *c, tbl_ctx *t, fl_error *err)
{
    fl_ice_scan_options opt;
    fl_predicate pred;
    const fl_ice_schema *cs = NULL;
    FL_TRY(build_options(c, t, &t->arena, &opt, &pred, &cs, err));
    /* read as few columns as possible: the first primitive column of the
     * scan schema (filter and equality-delete columns are added by the
     * reader), else _pos */
    int32_t id = FL_ICE_FIELD_ID_ROW_POS;
    for (uint32_t i = 0; cs && i < cs->schema.nfields; i++)
        if (!fl_type_is_nested(&cs->schema.fields[i].type) && cs->schema.fields[i].type.id != 0) {
            id = cs->schema.fields[i].field_id;
            break;
        }
    opt.columns = NULL;
    opt.ncolumns = 0;
    opt.field_ids = &id;
    opt.nfield_ids = 1;
    fl_ice_scan *s;
    FL_TRY(fl_ice_scan_open(t->reader_io, t->meta, &opt, &s, err));
    const fl_ice_scan_plan *p = fl_ice_scan_get_plan(s);
    if (c->explain)
        explain(p);
    int64_t n;
    bool exact;
    fl_status rc = fl_ice_scan_count(p, &n, &exact, err);
    if (rc == FL_OK && !exact) {
        fl_batch b;
        rc = fl_batch_init(&b, fl_ice_scan_schema(s), err);
        n = 0;
        while (rc == FL_OK) {
            bool eof;
            rc = fl_ice_scan_next(s, &b, &eof, err);
            if (rc != FL_OK || eof)
                break;
            n += fl_batch_live_rows(&b);
        }
        if (rc == FL_OK || b.cols)
            fl_batch_destroy(&b);
    }
    if (rc == FL_OK) {
        if (c->fmt == FL_SQLOUT_JSONL || c->fmt == FL_SQLOUT_JSON)
            printf("{\"count\":%" PRId64 "}\n", n);
        else
            printf("%" PRId64 "\n", n);
        if (c->explain)
            fprintf(stderr, "count from %s\n", exact ? "metadata" : "a scan");
    }
    fl_ice_scan_close(s);
    return rc;
}

static fl_status run_describe(const tbl_args *c, tbl_ctx *t, fl_error *err)
{
    (void)c;
    (void)err;
    const fl_ice_metadata *m = t->meta;
    const fl_ice_schema *s = fl_ice_metadata_current_schema(m);
    printf("metadata: %s\nformat-version: %d\nlocation: %s\nuuid: %s\n", t->metadata_path,
           m->format_version, m->location ? m->location : "", m->table_uuid ? m->table_uuid : "");
    printf("current snapshot: %" PRId64 " (%u snapshots)\n", m->current_snapshot_id, m->nsnapshots);
    if (s) {
        printf("schema %d:\n", s->schema_id);
        for (uint32_t i = 0; i < s->schema.nfields; i++) {
            const fl_field *f = &s->schema.fields[i];
            char tn[512];
            const fl_ice_field_extra *x = fl_ice_schema_extra(s, f->field_id);
            if (f->type.id == 0 && x && x->type_str)
                snprintf(tn, sizeof tn, "%s", x->type_str);
            else
                fl_type_format(&f->type, tn, sizeof tn);
            printf("  %d %s: %s%s%s%s\n", f->field_id, f->name, tn, f->nullable ? "" : " not null",
                   x && x->initial_default ? " initial-default " : "",
                   x && x->initial_default ? x->initial_default : "");
        }
        for (uint32_t i = 0; i < s->nidentifier; i++) { /* the row key (upserts, CDC) */
            const fl_field *f = fl_schema_find_id(&s->schema, s->identifier_field_ids[i]);
            printf("%s%s%s", i ? ", " : "identifier fields: ", f ? f->name : "?",
                   i + 1 == s->nidentifier ? "\n" : "");
        }
    }
    const fl_ice_partition_spec *sp = fl_ice_metadata_spec(m, m->default_spec_id);
    if (sp) {
        printf("partition spec %d:", sp->spec_id);
        if (!sp->nfields)
            printf(" unpartitioned");
        for (uint32_t i = 0; i < sp->nfields; i++)
            printf(" %s=%s(%d)", sp->fields[i].name, sp->fields[i].transform,
                   sp->fields[i].source_id);
        printf("\n");
    }
    if (m->properties.n) {
        printf("properties:\n");
        for (uint32_t i = 0; i < m->properties.n; i++)
            printf("  %s = %s\n", m->properties.items[i].key, m->properties.items[i].value);
    }
    return FL_OK;
}

static fl_status run_metatable(const tbl_args *c, tbl_ctx *t, fl_error *err)
{
    fl_ice_scan_options opt;
    fl_predicate pred;
    FL_TRY(build_options(c, t, &t->arena, &opt, &pred, NULL, err));
    fl_ice_metatable *mt;
    FL_TRY(fl_ice_metatable_open(t->reader_io, t->meta, c->sub, &opt, &mt, err));
    fl_status rc = print_rows(c, fl_ice_metatable_schema(mt), metatable_next, mt, err);
    fl_ice_metatable_close(mt);
    return rc;
}

typedef fl_status (*tbl_run)(const tbl_args *c, tbl_ctx *t, fl_error *err);

static int run(int argc, char **argv, tbl_run fn)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    tbl_args c;
    int u = parse_args(argc, argv, &a, &c);
    if (u) {
        fl_arena_free(&a);
        return u == 3 ? 0 : u;
    }
    fl_error err;
    fl_error_clear(&err);
    tbl_ctx t;
    fl_status rc = open_table(&c, &t, &err);
    if (rc == FL_OK)
        rc = fn(&c, &t, &err);
    close_table(&t);
    fl_arena_free(&a);
    fflush(stdout);
    return rc == FL_OK ? 0 : fail(argv[0], &err);
}

static int cmd_cat(int argc, char **argv)
{
    return run(argc, argv, run_cat);
}
static int cmd_count(int argc, char **argv)
{
    return run(argc, argv, run_count);
}
static int cmd_describe(int argc, char **argv)
{
    return run(argc, argv, run_describe);
}
static int cmd_metatable(int argc, char **argv)
{
    return run(argc, argv, run_metatable);
}

typedef struct tbl_command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *help;
} tbl_command;

static const tbl_command commands[] = {
    {"cat", cmd_cat, "print rows (deletes applied; --columns, --where, time travel)"},
    {"count", cmd_count, "count rows (from metadata when exact)"},
    {"describe", cmd_describe, "schema, partition spec, properties"},
    {"snapshots", cmd_metatable, "metadata table: snapshots"},
    {"history", cmd_metatable, "metadata table: history"},
    {"refs", cmd_metatable, "metadata table: branches and tags"},
    {"manifests", cmd_metatable, "metadata table: manifests of the snapshot"},
    {"all_manifests", cmd_metatable, "metadata table: manifests of every snapshot"},
    {"files", cmd_metatable, "metadata table: data and delete files"},
    {"data_files", cmd_metatable, "metadata table: data files"},
    {"delete_files", cmd_metatable, "metadata table: delete files"},
    {"entries", cmd_metatable, "metadata table: manifest entries"},
    {"partitions", cmd_metatable, "metadata table: partitions"},
    /* write subcommands come from fl_table_write_commands() (cmd_table_write.c) */
};

static void usage(FILE *out)
{
    fprintf(out, "usage: floe table <command> TABLE [options]\n\n"
                 "TABLE: a *.metadata.json file or a table folder (version-hint.text, else the\n"
                 "newest metadata file)\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-14s %s\n", commands[i].name, commands[i].help);
    size_t nw;
    const fl_table_write_cmd *wc = fl_table_write_commands(&nw);
    fprintf(
        out,
        "\nwriting commands (TABLE: ns.name in the catalog; --catalog URI, --warehouse DIR):\n");
    for (size_t i = 0; i < nw; i++)
        fprintf(out, "  %-17s %s\n", wc[i].name, wc[i].help);
    cli_usage_options(&read_cmd, "options", out);
    fl_table_write_usage_options(out);
    fprintf(out, "\nEvery command also takes -h, --help: its own usage.\n");
}

int fl_cmd_table(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].fn(argc - 1, argv + 1);
    size_t nw;
    const fl_table_write_cmd *wc = fl_table_write_commands(&nw);
    for (size_t i = 0; i < nw; i++)
        if (!strcmp(argv[1], wc[i].name))
            return wc[i].run(argc - 1, argv + 1);
    if (argv[1][0] == '-')
        return cli_unknown_option("table", argv[1]);
    fprintf(stderr, "floe table: unknown subcommand '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
