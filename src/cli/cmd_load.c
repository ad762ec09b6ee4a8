/*
 * cmd_load.c - `floe load FILE... TABLE`: appends CSV / JSON lines / Parquet
 * files to an Iceberg table in one commit, creating the table from the
 * first file's schema when it does not exist.
 *
 *   floe load FILE... TABLE [--catalog URI] [--warehouse DIR]
 *        [--format csv|jsonl|parquet|tbl] [--schema SPEC] [--delimiter C]
 *        [--no-header] [--trailing-delimiter]
 *        [--partition-by "day(ts)"]... [--sort-by "id DESC"]...
 *        [--mode append|overwrite] [--property k=v]... [--quiet]
 *
 * Text staging: gzip-compressed CSV / JSON lines (".gz", or the gzip magic
 * bytes), CSV without a header row (--no-header; names come from --schema,
 * which is then required) and CSV whose records end with the delimiter
 * (--trailing-delimiter) are first rewritten to a plain temporary CSV in
 * $TMPDIR (header synthesized, trailing delimiter dropped before each line
 * end), which the CSV reader then loads; the temporary file is removed
 * afterwards. "--format tbl" (also chosen for *.tbl and *.tbl.gz) is TPC-H
 * dbgen's layout: '|' delimiter, no header, trailing '|'. Line numbers in
 * errors about a staged file count the synthesized header line. The staging
 * does not parse quotes: a delimiter right before a line end inside a quoted
 * multi-line field would also be dropped.
 *
 * New tables: the schema is --schema or inferred (source.h rules), columns
 * optional, field ids fresh; --partition-by / --sort-by / --property shape
 * it. The create is staged: nothing is recorded in the catalog unless the
 * load commits, so a failed load leaves no table behind.
 *
 * Existing tables: file columns are matched to table columns by name
 * (exact, else case-insensitive). CSV and JSON lines are re-read with the
 * table's types (so "12.50" fills a decimal exactly); Parquet columns are
 * widened where Iceberg promotion allows (int -> long, float -> double,
 * int/long -> double, date -> timestamp, timestamp <-> timestamptz units
 * kept). A file column that is not in the table, or a required table
 * column missing from a file, is an error naming both. Table columns absent
 * from a file get their write-default (v3), else null.
 *
 * Commit: --mode append adds the files ("append"); --mode overwrite
 * replaces every row of the table in the same snapshot ("overwrite").
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <zlib.h>

#include "cli/cli.h"
#include "cli/cmd_table_write.h"
#include "cli/opts.h"
#include "cli/progress.h"
#include "cli/source.h"
#include "cli/stdin_file.h"
#include "cli/textparse.h"
#include "floe/ice_table.h"
#include "floe/ingest.h"

typedef struct load_args {
    const char **files;
    int nfiles;
    const char *table;
    const char *catalog, *warehouse;
    fl_file_format format;
    const char *schema_spec;
    char delimiter;
    bool no_header, trailing_delim;
    const char **staged; /* per file: the staged temporary CSV, or NULL */
    const char **partition_by;
    int npartition_by;
    const char **sort_by;
    int nsort_by;
    fl_ice_kv *props;
    int nprops;
    bool overwrite;
    bool quiet;
} load_args;

enum {
    O_CATALOG,
    O_WAREHOUSE,
    O_FORMAT,
    O_SCHEMA,
    O_DELIMITER,
    O_NO_HEADER,
    O_TRAILING_DELIMITER,
    O_PARTITION_BY,
    O_SORT_BY,
    O_PROPERTY,
    O_MODE,
    O_QUIET
};
static const cli_opt options[] = {
    [O_CATALOG] = {"catalog", 0, "URI", false,
                   "sqlite:PATH | postgresql://... | fs:PATH | http(s)://HOST:PORT[/PATH]\n"
                   "(default $FLOE_CATALOG or sqlite:./warehouse/catalog.db)"},
    [O_WAREHOUSE] = {"warehouse", 0, "DIR", false,
                     "root of new tables (default $FLOE_WAREHOUSE or ./warehouse)"},
    [O_FORMAT] = {"format", 0, "F", false,
                  "csv | jsonl | parquet | tbl (default: from each extension)"},
    [O_SCHEMA] = {"schema", 0, "SPEC", false,
                  "column types of CSV/JSON input, e.g. \"id:long,ts:timestamptz\""},
    [O_DELIMITER] = {"delimiter", 0, "C", false, "CSV delimiter"},
    [O_NO_HEADER] = {"no-header", 0, NULL, false, "CSV without a header row (names from --schema)"},
    [O_TRAILING_DELIMITER] = {"trailing-delimiter", 0, NULL, false,
                              "CSV records end with the delimiter (dbgen .tbl files)\n"
                              "gzip input (.gz) is decompressed; --format tbl = '|',\n"
                              "no header, trailing '|' (the default for *.tbl[.gz])"},
    [O_PARTITION_BY] = {"partition-by", 0, "EXPR", true,
                        "new table: \"day(ts)\", \"bucket(id, 16)\", \"col\""},
    [O_SORT_BY] = {"sort-by", 0, "EXPR", true, "new table: \"id DESC NULLS LAST\""},
    [O_PROPERTY] = {"property", 0, "K=V", true, "new table property, e.g. format-version=3"},
    [O_MODE] = {"mode", 0, "M", false, "append (default) | overwrite (replace all rows)"},
    [O_QUIET] = {"quiet", 0, NULL, false, "no summary line"},
};
static const cli_command load_cmd = {
    .name = "load",
    .synopsis = "load FILE... TABLE [options]",
    .about = "  Appends CSV, JSON lines or Parquet files to the Iceberg table TABLE (ns.name),\n"
             "  creating it from the first file's schema when it does not exist. A FILE '-' is\n"
             "  stdin (once).",
    .opts = options,
    .nopts = CLI_NOPTS(options),
    .min_args = 2,
    .max_args = CLI_ANY,
};

static bool push(const char ***arr, int *n, const char *v)
{
    const char **a = realloc(*arr, (size_t)(*n + 1) * sizeof *a);
    if (!a)
        return false;
    a[(*n)++] = v;
    *arr = a;
    return true;
}

static void free_args(load_args *a)
{
    for (int i = 0; a->staged && i < a->nfiles; i++)
        if (a->staged[i]) {
            unlink(a->staged[i]);
            free((char *)a->staged[i]);
        }
    free(a->staged);
    free(a->files);
    free(a->partition_by);
    free(a->sort_by);
    free(a->props);
}

static bool has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && !strcasecmp(s + n - m, suf);
}

static bool is_tbl(const char *path)
{
    return has_suffix(path, ".tbl") || has_suffix(path, ".tbl.gz");
}

/* The format from the name, looking through a ".gz" suffix. */
static fl_file_format format_from_name(const char *path)
{
    if (is_tbl(path))
        return FL_FMT_CSV;
    if (!has_suffix(path, ".gz"))
        return fl_file_format_from_path(path);
    char buf[4096];
    size_t n = strlen(path) - 3;
    if (n >= sizeof buf)
        return FL_FMT_UNKNOWN;
    memcpy(buf, path, n);
    buf[n] = '\0';
    return fl_file_format_from_path(buf);
}

/* --format F; tbl is CSV with dbgen's layout. 0, or 2 after a usage error. */
static int format_option(const char *v, load_args *a)
{
    if (v && !strcasecmp(v, "tbl")) {
        a->format = FL_FMT_CSV;
        a->no_header = a->trailing_delim = true;
        a->delimiter = '|';
    } else if (v && !fl_file_format_parse(v, &a->format)) {
        return cli_usage_error(&load_cmd, "unknown format '%s' (csv, jsonl, parquet, tbl)", v);
    }
    return 0;
}

/* --property K=V... into a->props, keys cut from argv in place (argv strings
 * are writable). 0, 1 (out of memory) or 2. */
static int property_options(const cli_args *p, load_args *a)
{
    int n;
    const char *const *v = cli_values(p, O_PROPERTY, &n);
    a->props = n ? calloc((size_t)n, sizeof *a->props) : NULL;
    if (n && !a->props)
        return 1;
    for (int i = 0; i < n; i++) {
        char *e = strchr(v[i], '=');
        if (!e || e == v[i])
            return cli_usage_error(&load_cmd, "--property takes KEY=VALUE");
        *e = '\0';
        a->props[a->nprops].key = v[i];
        a->props[a->nprops++].value = e + 1;
    }
    return 0;
}

/* The options into a (the files and table are set by the caller). */
static int options_from(const cli_args *p, load_args *a)
{
    a->catalog = cli_value(p, O_CATALOG);
    a->warehouse = cli_value(p, O_WAREHOUSE);
    a->schema_spec = cli_value(p, O_SCHEMA);
    a->quiet = cli_has(p, O_QUIET);
    int st = format_option(cli_value(p, O_FORMAT), a);
    a->no_header |= cli_has(p, O_NO_HEADER);
    a->trailing_delim |= cli_has(p, O_TRAILING_DELIMITER);
    const char *d = cli_value(p, O_DELIMITER), *mode = cli_value(p, O_MODE);
    if (!st && d && strlen(d) != 1 && strcmp(d, "\\t") != 0)
        st = cli_usage_error(&load_cmd, "--delimiter takes one character");
    else if (d)
        a->delimiter = strcmp(d, "\\t") == 0 ? '\t' : d[0];
    if (!st && mode && strcmp(mode, "append") && strcmp(mode, "overwrite"))
        st = cli_usage_error(&load_cmd, "--mode is append or overwrite");
    a->overwrite = mode && !strcmp(mode, "overwrite");
    for (int i = 0, n; !st && i < 2; i++) {
        const char *const *v = cli_values(p, i ? O_SORT_BY : O_PARTITION_BY, &n);
        for (int k = 0; k < n && !st; k++)
            st =
                push(i ? &a->sort_by : &a->partition_by, i ? &a->nsort_by : &a->npartition_by, v[k])
                    ? 0
                    : 1;
    }
    return st ? st : property_options(p, a);
}

/* 0 to run, -1 after the help, else the exit status (message printed). */
static int parse_args(int argc, char **argv, load_args *a)
{
    memset(a, 0, sizeof *a);
    cli_args p;
    int st;
    if (!cli_parse(&load_cmd, argc, argv, &p, &st))
        return st ? st : -1; /* -1: the help was printed */
    for (int i = 0; i < p.npos && !st; i++)
        st = push(&a->files, &a->nfiles, p.pos[i]) ? 0 : 1;
    if (!st)
        st = options_from(&p, a);
    cli_args_free(&p);
    if (st)
        return st;
    if (a->no_header && !a->schema_spec) {
        fprintf(stderr, "floe load: --no-header needs --schema (the column names)\n");
        return 2;
    }
    a->table = a->files[--a->nfiles];
    a->staged = calloc((size_t)a->nfiles + 1, sizeof *a->staged);
    if (!a->staged)
        return 1;
    for (int i = 0; i < a->nfiles; i++) {
        if (!a->format && is_tbl(a->files[i])) {
            a->no_header = a->trailing_delim = true;
            if (!a->delimiter)
                a->delimiter = '|';
        }
        fl_file_format f = a->format ? a->format : format_from_name(a->files[i]);
        if (!f) {
            fprintf(stderr, "floe load: cannot tell the format of '%s' (use --format)\n",
                    a->files[i]);
            return 2;
        }
    }
    return 0;
}

static fl_file_format format_of(const load_args *a, const char *path)
{
    return a->format ? a->format : format_from_name(path);
}

/* ---- staging gzip / headerless / dbgen text (see the top comment) ---- */

static bool is_gzip(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    unsigned char m[2] = {0, 0};
    size_t n = fread(m, 1, 2, f);
    fclose(f);
    return n == 2 && m[0] == 0x1f && m[1] == 0x8b;
}

/* Copies path (gzip or plain) to fd: header line first when given, the
 * delimiter before each line end dropped when trailing. */
static fl_status stage_copy(const char *path, int fd, const char *header, char delim, bool trailing,
                            fl_error *err)
{
    gzFile in = gzopen(path, "rb");
    if (!in)
        return fl_errorf(err, FL_EIO, "%s: %s", path, strerror(errno ? errno : ENOMEM));
    FILE *out = fdopen(fd, "wb");
    if (!out) {
        gzclose(in);
        return fl_errorf(err, FL_EIO, "temporary file: %s", strerror(errno));
    }
    if (header)
        fputs(header, out);
    unsigned char buf[1 << 16];
    bool held = false; /* a delimiter not written yet */
    int got;
    while ((got = gzread(in, buf, sizeof buf)) > 0) {
        for (int i = 0; i < got; i++) {
            unsigned char c = buf[i];
            if (trailing && held) {
                held = false;
                if (c != '\n' && c != '\r')
                    fputc(delim, out);
            }
            if (trailing && c == (unsigned char)delim)
                held = true;
            else
                fputc(c, out);
        }
    }
    int zerr = 0;
    char zmsg[128] = "read error"; /* copied: gzerror's text dies with gzclose */
    if (got < 0) {
        const char *m = gzerror(in, &zerr);
        if (m && *m)
            snprintf(zmsg, sizeof zmsg, "%s", m);
    }
    gzclose(in);
    bool werr = ferror(out) != 0;
    if (fclose(out) != 0)
        werr = true;
    if (got < 0)
        return fl_errorf(err, FL_ECORRUPT, "%s: gzip: %s", path, zmsg);
    if (werr)
        return fl_errorf(err, FL_EIO, "temporary file: write failed");
    return FL_OK;
}

/* The header line of a headerless CSV: the --schema column names. */
static char *header_line(const fl_schema *user, char delim)
{
    size_t n = 2;
    for (uint32_t i = 0; i < user->nfields; i++)
        n += strlen(user->fields[i].name) + 1;
    char *h = malloc(n);
    if (!h)
        return NULL;
    size_t o = 0;
    for (uint32_t i = 0; i < user->nfields; i++) {
        if (i)
            h[o++] = delim;
        size_t l = strlen(user->fields[i].name);
        memcpy(h + o, user->fields[i].name, l);
        o += l;
    }
    h[o++] = '\n';
    h[o] = '\0';
    return h;
}

/* Stages every file that needs it (a->staged[i] = temporary path). */
static fl_status stage_files(load_args *a, const fl_schema *user, fl_error *err)
{
    for (int i = 0; i < a->nfiles; i++) {
        fl_file_format f = format_of(a, a->files[i]);
        bool gz = f != FL_FMT_PARQUET && f != FL_FMT_ORC && is_gzip(a->files[i]);
        bool csv_fix = f == FL_FMT_CSV && (a->no_header || a->trailing_delim);
        if (!gz && !csv_fix)
            continue;
        const char *dir = getenv("TMPDIR");
        char tmpl[4096];
        snprintf(tmpl, sizeof tmpl, "%s/floe-load-XXXXXX%s", dir && *dir ? dir : "/tmp",
                 f == FL_FMT_JSONL ? ".jsonl" : ".csv");
        int fd = mkstemps(tmpl, f == FL_FMT_JSONL ? 6 : 4);
        if (fd < 0)
            return fl_errorf(err, FL_EIO, "%s: %s", tmpl, strerror(errno));
        a->staged[i] = strdup(tmpl);
        if (!a->staged[i]) {
            close(fd);
            unlink(tmpl);
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        }
        char delim = a->delimiter ? a->delimiter : ',';
        char *hdr = f == FL_FMT_CSV && a->no_header && user ? header_line(user, delim) : NULL;
        if (f == FL_FMT_CSV && a->no_header && user && !hdr) {
            close(fd);
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        }
        fl_status rc =
            stage_copy(a->files[i], fd, hdr, delim, f == FL_FMT_CSV && a->trailing_delim, err);
        free(hdr);
        FL_TRY(rc);
    }
    return FL_OK;
}

static const char *input_path(const load_args *a, int i)
{
    return a->staged && a->staged[i] ? a->staged[i] : a->files[i];
}

/* Opens path so that its columns carry the table's types where the format
 * can parse them (CSV / JSON lines re-read with those types). */
static fl_status open_for_table(const load_args *a, const char *path, fl_file_format fmt,
                                const fl_schema *table, const fl_schema *user, fl_arena *ar,
                                fl_source **out, fl_error *err)
{
    fl_source_options so = {.schema = user, .delimiter = a->delimiter};
    FL_TRY(fl_source_open(path, fmt, &so, out, err));
    if (fmt == FL_FMT_PARQUET || fmt == FL_FMT_ORC || !table)
        return FL_OK;
    const fl_schema *want = NULL;
    FL_TRY(fl_ingest_text_schema(table, fl_source_schema(*out), fmt == FL_FMT_CSV, path, ar, &want,
                                 err));
    if (!want)
        return FL_OK;
    fl_source_close(*out);
    *out = NULL;
    so.schema = want;
    return fl_source_open(path, fmt, &so, out, err);
}

/* Where load_file reports how far it is: the progress line, the item. */
typedef struct load_progress {
    cli_progress *line;
    uint32_t item;
    const char *shown; /* the file as the user named it */
} load_progress;

static fl_status load_file(const load_args *a, const char *path, fl_file_format fmt, fl_ice_txn *x,
                           fl_ice_data_writer *w, const fl_schema *user, load_progress *lp,
                           uint64_t *rows, fl_error *err)
{
    const fl_ice_schema *ice = fl_ice_metadata_current_schema(fl_ice_txn_metadata(x));
    const fl_schema *table = fl_ice_data_writer_schema(w);
    fl_arena ar;
    fl_arena_init(&ar, 0);
    fl_source *src = NULL;
    fl_ingest_adapter *ad = NULL;
    fl_batch b;
    bool binit = false;
    fl_status rc = open_for_table(a, path, fmt, table, user, &ar, &src, err);
    if (rc == FL_OK)
        rc = fl_ingest_adapter_open(table, ice, fl_source_schema(src), path, &ad, err);
    if (rc == FL_OK) {
        rc = fl_batch_init(&b, fl_source_schema(src), err);
        binit = rc == FL_OK;
    }
    while (rc == FL_OK) {
        bool eof;
        rc = fl_source_next(src, &b, &eof, err);
        if (rc != FL_OK || eof)
            break;
        fl_batch view;
        rc = fl_ingest_adapt(ad, &b, &view, err);
        if (rc == FL_OK)
            rc = fl_ice_data_writer_write(w, &view, err);
        if (rc == FL_OK) {
            *rows += fl_batch_live_rows(&b);
            uint64_t done, total;
            fl_source_progress(src, &done, &total);
            cli_progress_update(lp->line, lp->item, lp->shown, done, total, *rows);
        } else {
            fl_error_prefix(err, "%s", path);
        }
    }
    if (binit)
        fl_batch_destroy(&b);
    fl_ingest_adapter_free(ad);
    fl_source_close(src);
    fl_arena_free(&ar);
    return rc;
}

/* The table, created (staged) from the first file when absent. */
static fl_status open_table(const load_args *a, fl_cli_catalog *c, const fl_table_ident *id,
                            const fl_schema *user, fl_ice_table **t, bool *created, fl_error *err)
{
    *created = false;
    fl_status rc = fl_ice_table_load(c->cat, id, t, err);
    if (rc == FL_OK) {
        if (a->npartition_by || a->nsort_by || a->nprops)
            fprintf(stderr,
                    "floe load: table %s exists: --partition-by, --sort-by and "
                    "--property apply to new tables only; ignored\n",
                    a->table);
        return FL_OK;
    }
    if (rc != FL_ENOTFOUND)
        return rc;
    FL_TRY(fl_cli_ensure_namespace(c, id, err));
    fl_source *src = NULL;
    fl_source_options so = {.schema = user, .delimiter = a->delimiter};
    FL_TRY(fl_source_open(input_path(a, 0), format_of(a, a->files[0]), &so, &src, err));
    fl_schema s = *fl_source_schema(src);
    fl_ice_map props = {(uint32_t)a->nprops, a->props};
    fl_ice_create_options o = {.schema = &s,
                               .partition_by = a->partition_by,
                               .npartition_by = (uint32_t)a->npartition_by,
                               .sort_by = a->sort_by,
                               .nsort_by = (uint32_t)a->nsort_by,
                               .properties = &props,
                               .stage_only = true};
    rc = fl_ice_table_create(c->cat, id, &o, t, err);
    fl_source_close(src);
    *created = rc == FL_OK;
    return rc;
}

static fl_status run_load(load_args *a, fl_error *err)
{
    fl_cli_catalog c;
    FL_TRY(fl_cli_catalog_open(a->catalog, a->warehouse, &c, err));
    fl_arena ar;
    fl_arena_init(&ar, 0);
    fl_table_ident id;
    fl_schema user, *userp = NULL;
    fl_ice_table *t = NULL;
    fl_ice_txn *x = NULL;
    fl_ice_data_writer *w = NULL;
    bool created = false;
    uint64_t rows = 0;
    fl_status rc = fl_table_ident_parse(a->table, &ar, &id, err);
    if (rc == FL_OK && a->schema_spec) {
        rc = fl_parse_schema_spec(a->schema_spec, &ar, &user, err);
        if (rc != FL_OK)
            fl_error_prefix(err, "--schema");
        userp = &user;
    }
    if (rc == FL_OK)
        rc = stage_files(a, userp, err);
    if (rc == FL_OK)
        rc = open_table(a, &c, &id, userp, &t, &created, err);
    if (rc == FL_OK)
        rc = fl_ice_txn_begin(t, &x, err);
    if (rc == FL_OK)
        rc = fl_ice_data_writer_open(x, &w, err);
    cli_progress line;
    cli_progress_init(&line, "floe load", (uint32_t)a->nfiles);
    for (int i = 0; rc == FL_OK && i < a->nfiles; i++) {
        load_progress lp = {&line, (uint32_t)i + 1, a->files[i]};
        rc = load_file(a, input_path(a, i), format_of(a, a->files[i]), x, w, userp, &lp, &rows,
                       err);
        if (rc != FL_OK && a->staged[i])
            fl_error_prefix(err, "%s (staged as plain CSV)", a->files[i]);
    }
    cli_progress_end(&line);
    fl_ice_data_file *files = NULL;
    uint32_t nfiles = 0;
    if (rc == FL_OK) {
        fl_ice_data_writer *wc = w;
        w = NULL;
        rc = fl_ice_data_writer_close(wc, &files, &nfiles, err);
    }
    if (rc == FL_OK)
        rc = a->overwrite ? fl_ice_overwrite_where(x, NULL, files, nfiles, err)
                          : fl_ice_txn_append(x, files, nfiles, err);
    int64_t snap = -1;
    if (rc == FL_OK) {
        fl_ice_txn *xc = x;
        x = NULL;
        rc = fl_ice_txn_commit(xc, &snap, err);
    }
    fl_ice_data_writer_abort(w);
    fl_ice_txn_abort(x);
    if (rc == FL_OK && !a->quiet)
        fprintf(stderr,
                "floe load: %" PRIu64 " rows from %d file%s into %s%s (%u data file%s, "
                "snapshot %" PRId64 ")\n",
                rows, a->nfiles, a->nfiles == 1 ? "" : "s", a->table, created ? " (created)" : "",
                nfiles, nfiles == 1 ? "" : "s", snap);
    fl_ice_table_free(t);
    fl_arena_free(&ar);
    fl_cli_catalog_close(&c);
    return rc;
}

int fl_cmd_load(int argc, char **argv)
{
    load_args a;
    int u = parse_args(argc, argv, &a);
    if (u) {
        free_args(&a);
        return u < 0 ? 0 : u;
    }
    char *spooled = NULL; /* `-`: stdin, once */
    for (int i = 0; i < a.nfiles; i++) {
        if (strcmp(a.files[i], "-"))
            continue;
        if (spooled) {
            fprintf(stderr, "floe load: '-' (stdin) given twice\n");
            free_args(&a);
            cli_stdin_release(spooled);
            return 2;
        }
        if (!(spooled = cli_stdin_spool("load"))) {
            free_args(&a);
            return 1;
        }
        a.files[i] = spooled;
    }
    fl_error err;
    fl_error_clear(&err);
    fl_status rc = run_load(&a, &err);
    free_args(&a);
    cli_stdin_release(spooled);
    if (rc != FL_OK) {
        fprintf(stderr, "floe load: %s\n", err.msg);
        return 1;
    }
    return 0;
}
