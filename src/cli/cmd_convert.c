/*
 * cmd_convert.c - `floe convert IN OUT`: CSV, JSON lines, Parquet and ORC in
 * any direction (source.h describes the readers).
 *
 *   floe convert IN OUT [--from F] [--to F] [--schema SPEC] [--codec C]
 *                [--level N] [--row-group-rows N] [--page-rows N]
 *                [--no-dictionary] [--delimiter C] [--quiet]
 *
 * Parquet and ORC output go through FileIO's atomic create (nothing is left at OUT
 * on failure); CSV/JSON lines output is written to OUT.tmp-<pid> and renamed,
 * or to stdout when OUT is "-" (Parquet too, once complete). Parquet -> Parquet keeps every
 * column's type, nullability and field ids (the writer takes the reader's schema).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/opts.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "cli/source.h"
#include "cli/stdin_file.h"
#include "cli/textparse.h"
#include "floe/io.h"
#include "floe/orc.h"
#include "floe/parquet.h"
#include "floe/parquet_meta.h"

/* ---- formats and the Parquet source ---- */

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

fl_file_format fl_file_format_from_path(const char *path)
{
    if (ends_with(path, ".csv") || ends_with(path, ".tsv"))
        return FL_FMT_CSV;
    if (ends_with(path, ".jsonl") || ends_with(path, ".ndjson") || ends_with(path, ".json"))
        return FL_FMT_JSONL;
    if (ends_with(path, ".parquet") || ends_with(path, ".pq"))
        return FL_FMT_PARQUET;
    if (ends_with(path, ".orc"))
        return FL_FMT_ORC;
    return FL_FMT_UNKNOWN;
}

bool fl_file_format_parse(const char *name, fl_file_format *out)
{
    if (!strcasecmp(name, "csv") || !strcasecmp(name, "tsv"))
        *out = FL_FMT_CSV;
    else if (!strcasecmp(name, "jsonl") || !strcasecmp(name, "ndjson") || !strcasecmp(name, "json"))
        *out = FL_FMT_JSONL;
    else if (!strcasecmp(name, "parquet"))
        *out = FL_FMT_PARQUET;
    else if (!strcasecmp(name, "orc"))
        *out = FL_FMT_ORC;
    else
        return false;
    return true;
}

typedef struct pq_source {
    fl_source base;
    fl_fileio *io;
    fl_file *file;
    fl_parquet_reader *reader;
    fl_parquet_scan *scan;
} pq_source;

static fl_status pq_next(fl_source *base, fl_batch *b, bool *eof, fl_error *err)
{
    pq_source *s = (pq_source *)base;
    fl_status rc = fl_parquet_scan_next(s->scan, b, eof, err);
    if (rc == FL_OK && !*eof)
        base->done += b->nrows; /* progress in rows of fl_parquet_num_rows */
    return rc;
}

static void pq_close(fl_source *base)
{
    pq_source *s = (pq_source *)base;
    fl_parquet_scan_close(s->scan);
    fl_parquet_close(s->reader);
    fl_file_close(s->file);
    fl_fileio_destroy(s->io);
    free(s);
}

static const fl_source_ops pq_ops = {pq_next, pq_close};

static fl_status pq_source_open(const char *path, const fl_source_options *opt, fl_source **out,
                                fl_error *err)
{
    pq_source *s = calloc(1, sizeof *s);
    if (!s)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    s->base.ops = &pq_ops;
    fl_status rc;
    s->io = cli_fileio();
    if (!s->io) {
        rc = fl_errorf(err, FL_ENOMEM, "out of memory");
        goto fail;
    }
    if ((rc = fl_fileio_open(s->io, path, &s->file, err)) != FL_OK)
        goto fail;
    fl_parquet_read_options ro = {.verify_crc = opt && opt->verify_crc};
    if ((rc = fl_parquet_open(s->file, &ro, &s->reader, err)) != FL_OK)
        goto fail;
    fl_parquet_scan_options so = {0};
    if ((rc = fl_parquet_scan_open(s->reader, &so, &s->scan, err)) != FL_OK)
        goto fail;
    s->base.schema = fl_parquet_scan_schema(s->scan);
    s->base.parquet = s->reader;
    s->base.total = (uint64_t)fl_parquet_num_rows(s->reader);
    *out = &s->base;
    return FL_OK;
fail:
    pq_close(&s->base);
    return rc;
}

/* ---- the ORC source ---- */

typedef struct orc_source {
    fl_source base;
    fl_fileio *io;
    fl_file *file;
    fl_orc_reader *reader;
    fl_orc_scan *scan;
} orc_source;

static fl_status orc_next(fl_source *base, fl_batch *b, bool *eof, fl_error *err)
{
    orc_source *s = (orc_source *)base;
    fl_status rc = fl_orc_scan_next(s->scan, b, eof, err);
    if (rc == FL_OK && !*eof)
        base->done += b->nrows;
    return rc;
}

static void orc_close(fl_source *base)
{
    orc_source *s = (orc_source *)base;
    fl_orc_scan_close(s->scan);
    fl_orc_close(s->reader);
    fl_file_close(s->file);
    fl_fileio_destroy(s->io);
    free(s);
}

static const fl_source_ops orc_ops = {orc_next, orc_close};

static fl_status orc_source_open(const char *path, fl_source **out, fl_error *err)
{
    orc_source *s = calloc(1, sizeof *s);
    if (!s)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    s->base.ops = &orc_ops;
    fl_status rc = FL_OK;
    s->io = cli_fileio();
    if (!s->io)
        rc = fl_errorf(err, FL_ENOMEM, "out of memory");
    if (rc == FL_OK && (rc = fl_fileio_open(s->io, path, &s->file, err)) == FL_OK &&
        (rc = fl_orc_open(s->file, &s->reader, err)) == FL_OK)
        rc = fl_orc_scan_open(s->reader, NULL, &s->scan, err);
    if (rc != FL_OK) {
        orc_close(&s->base);
        return rc;
    }
    s->base.schema = fl_orc_scan_schema(s->scan);
    s->base.total = fl_orc_num_rows(s->reader);
    *out = &s->base;
    return FL_OK;
}

fl_status fl_source_open(const char *path, fl_file_format fmt, const fl_source_options *opt,
                         fl_source **out, fl_error *err)
{
    switch (fmt) {
    case FL_FMT_CSV: return fl_csv_source_open(path, opt, out, err);
    case FL_FMT_JSONL: return fl_jsonl_source_open(path, opt, out, err);
    case FL_FMT_PARQUET: return pq_source_open(path, opt, out, err);
    case FL_FMT_ORC: return orc_source_open(path, out, err);
    default: return fl_errorf(err, FL_EINVAL, "%s: unknown input format", path);
    }
}

fl_parquet_reader *fl_source_parquet(fl_source *s)
{
    return s->parquet;
}
/* ---- the command ---- */

enum {
    O_FROM,
    O_TO,
    O_SCHEMA,
    O_CODEC,
    O_LEVEL,
    O_ROW_GROUP_ROWS,
    O_PAGE_ROWS,
    O_NO_DICTIONARY,
    O_PAGE_V2,
    O_DELIMITER,
    O_VERIFY_CRC,
    O_QUIET
};
static const cli_opt options[] = {
    [O_FROM] = {"from", 0, "FMT", false, "csv | jsonl | parquet | orc (default: from IN's name)"},
    [O_TO] = {"to", 0, "FMT", false, "csv | jsonl | parquet | orc (default: from OUT's name)"},
    [O_SCHEMA] = {"schema", 0, "SPEC", false,
                  "column types instead of inference, e.g.\n"
                  "\"id:long not null,price:decimal(10,2),tags:list<string>\""},
    [O_CODEC] = {"codec", 0, "C", false,
                 "zstd (default) | snappy | gzip | lz4_raw | brotli | none\n"
                 "(ORC: gzip is ZLIB, lz4_raw LZ4; no brotli)"},
    [O_LEVEL] = {"level", 0, "N", false, "compression level (codec default when omitted)"},
    [O_ROW_GROUP_ROWS] = {"row-group-rows", 0, "N", false, "rows per Parquet row group (ORC: per stripe)"},
    [O_PAGE_ROWS] = {"page-rows", 0, "N", false, "rows per Parquet data page"},
    [O_NO_DICTIONARY] = {"no-dictionary", 0, NULL, false, "no dictionary encoding"},
    [O_PAGE_V2] = {"page-v2", 0, NULL, false, "write DATA_PAGE_V2 pages"},
    [O_DELIMITER] = {"delimiter", 0, "C", false,
                     "CSV field delimiter (default ',' or tab for .tsv)"},
    [O_VERIFY_CRC] = {"verify-crc", 0, NULL, false, "check page CRCs when reading Parquet"},
    [O_QUIET] = {"quiet", 0, NULL, false, "no summary line on stderr"},
};
static const cli_command convert_cmd = {
    .name = "convert",
    .synopsis = "convert IN OUT [options]",
    .about = "  Converts between CSV (.csv/.tsv), JSON lines (.jsonl/.ndjson/.json), Parquet\n"
             "  (.parquet) and ORC (.orc); formats come from the extensions unless\n"
             "  --from/--to are given. IN '-' is stdin, OUT '-' is stdout.",
    .opts = options,
    .nopts = CLI_NOPTS(options),
    .min_args = 2,
    .max_args = 2,
};

static bool parse_codec(const char *s, fl_parquet_codec *c)
{
    static const struct {
        const char *name;
        fl_parquet_codec codec;
    } codecs[] = {{"zstd", FL_PARQUET_ZSTD},         {"snappy", FL_PARQUET_SNAPPY},
                  {"gzip", FL_PARQUET_GZIP},         {"lz4_raw", FL_PARQUET_LZ4_RAW},
                  {"lz4", FL_PARQUET_LZ4_RAW},       {"brotli", FL_PARQUET_BROTLI},
                  {"none", FL_PARQUET_UNCOMPRESSED}, {"uncompressed", FL_PARQUET_UNCOMPRESSED}};
    for (size_t i = 0; i < sizeof codecs / sizeof codecs[0]; i++)
        if (!strcasecmp(s, codecs[i].name)) {
            *c = codecs[i].codec;
            return true;
        }
    return false;
}

static bool parse_u64(const char *s, uint64_t *out)
{
    int64_t v;
    if (!fl_parse_int64(s, strlen(s), &v) || v < 0)
        return false;
    *out = (uint64_t)v;
    return true;
}

typedef struct convert_args {
    const char *in, *out;
    fl_file_format from, to;
    const char *schema_spec;
    fl_parquet_write_options wopt;
    char delimiter;
    bool verify_crc;
    bool quiet;
} convert_args;

/* The Parquet writer options; 0, or 2 after a usage error. */
static int writer_options(const cli_args *p, fl_parquet_write_options *w)
{
    const char *v;
    uint64_t u;
    int64_t l;
    if ((v = cli_value(p, O_CODEC)) && !(w->codec_set = parse_codec(v, &w->codec)))
        return cli_usage_error(&convert_cmd, "unknown codec '%s'", v);
    if ((v = cli_value(p, O_LEVEL)) && (!fl_parse_int64(v, strlen(v), &l) || l < -100 || l > 100))
        return cli_usage_error(&convert_cmd, "bad --level '%s'", v);
    if (v)
        w->compression_level = (int)l;
    if ((v = cli_value(p, O_ROW_GROUP_ROWS)) && (!parse_u64(v, &u) || u == 0))
        return cli_usage_error(&convert_cmd, "bad --row-group-rows '%s'", v);
    if (v)
        w->row_group_rows = u;
    if ((v = cli_value(p, O_PAGE_ROWS)) && (!parse_u64(v, &u) || u == 0 || u > UINT32_MAX))
        return cli_usage_error(&convert_cmd, "bad --page-rows '%s'", v);
    if (v)
        w->page_rows = (uint32_t)u;
    w->no_dictionary = cli_has(p, O_NO_DICTIONARY);
    if (cli_has(p, O_PAGE_V2))
        w->data_page_version = 2;
    return 0;
}

/* --from / --to into *f (left unknown when not given); 0 or 2. */
static int format_option(const cli_args *p, int opt, fl_file_format *f)
{
    const char *v = cli_value(p, opt);
    if (v && !fl_file_format_parse(v, f))
        return cli_usage_error(&convert_cmd, "unknown format '%s' (csv, jsonl, parquet, orc)", v);
    return 0;
}

/* Returns 0 to run, -1 after the help, else the exit status (message printed). */
static int parse_args(int argc, char **argv, convert_args *a)
{
    memset(a, 0, sizeof *a);
    cli_args p;
    int st;
    if (!cli_parse(&convert_cmd, argc, argv, &p, &st))
        return st ? st : -1; /* -1: the help was printed */
    a->in = p.pos[0];
    a->out = p.pos[1];
    a->schema_spec = cli_value(&p, O_SCHEMA);
    a->verify_crc = cli_has(&p, O_VERIFY_CRC);
    a->quiet = cli_has(&p, O_QUIET);
    const char *d = cli_value(&p, O_DELIMITER);
    if (d && strlen(d) != 1 && strcmp(d, "\\t") != 0)
        st = cli_usage_error(&convert_cmd, "--delimiter takes one character");
    else if (d)
        a->delimiter = strcmp(d, "\\t") == 0 ? '\t' : d[0];
    if (!st)
        st = format_option(&p, O_FROM, &a->from);
    if (!st)
        st = format_option(&p, O_TO, &a->to);
    if (!st)
        st = writer_options(&p, &a->wopt);
    cli_args_free(&p);
    if (st)
        return st;
    if (!a->from)
        a->from = fl_file_format_from_path(a->in);
    if (!a->to)
        a->to = fl_file_format_from_path(a->out);
    if (!a->from && strcmp(a->in, "-")) { /* stdin: told by its first bytes once spooled */
        fprintf(stderr, "floe convert: cannot tell the format of '%s' (use --from)\n", a->in);
        return 2;
    }
    if (!a->to) {
        fprintf(stderr, "floe convert: cannot tell the format of '%s' (use --to)\n", a->out);
        return 2;
    }
    if (a->to == FL_FMT_ORC && a->wopt.codec_set && a->wopt.codec == FL_PARQUET_BROTLI) {
        fprintf(stderr, "floe convert: ORC has no brotli codec (zstd, snappy, gzip, lz4, none)\n");
        return 2;
    }
    return 0;
}

static const char *format_name(fl_file_format f)
{
    return f == FL_FMT_CSV ? "csv" : f == FL_FMT_JSONL ? "jsonl" : f == FL_FMT_ORC ? "orc" : "parquet";
}

/* The progress line after a batch (progress.h). */
static void show_progress(cli_progress *prog, const fl_source *src, const convert_args *a,
                          uint64_t rows)
{
    uint64_t done, total;
    fl_source_progress(src, &done, &total);
    cli_progress_update(prog, 1, a->in, done, total, rows);
}

/* OUT, or for "-" memory that goes to stdout once complete (the footer
 * comes last: a failed conversion writes nothing). */
static fl_status create_output(fl_fileio *io, const char *path, uint8_t **mem, size_t *len,
                               fl_output **out, fl_error *err)
{
    if (!strcmp(path, "-"))
        return fl_output_memory("stdout", mem, len, out, err);
    return fl_fileio_create(io, path, FL_CREATE_OVERWRITE, out, err);
}

static fl_status copy_to_stdout(const uint8_t *mem, size_t len, fl_error *err)
{
    if (fwrite(mem, 1, len, stdout) != len || fflush(stdout) != 0)
        return fl_errorf(err, FL_EIO, "stdout: %s", strerror(errno));
    return FL_OK;
}

/* ORC's options from the Parquet ones the command line fills. */
static void orc_options(const fl_parquet_write_options *p, fl_orc_write_options *o)
{
    memset(o, 0, sizeof *o);
    o->compression_set = true;
    o->compression_level = p->compression_level;
    o->stripe_rows = p->row_group_rows;
    switch (p->codec_set ? p->codec : FL_PARQUET_ZSTD) {
    case FL_PARQUET_SNAPPY: o->compression = FL_ORC_SNAPPY; break;
    case FL_PARQUET_GZIP: o->compression = FL_ORC_ZLIB; break;
    case FL_PARQUET_LZ4_RAW: o->compression = FL_ORC_LZ4; break;
    case FL_PARQUET_UNCOMPRESSED: o->compression = FL_ORC_NONE; break;
    default: o->compression = FL_ORC_ZSTD; break;
    }
}

/* The Parquet or the ORC writer, behind one open/write/close. */
typedef struct file_writer {
    fl_parquet_writer *pw;
    fl_orc_writer *ow;
} file_writer;

/* A GEOMETRY or GEOGRAPHY column whose CRS is "projjson:KEY" names the
 * file's key-value entry KEY (parquet-format Geospatial.md): a Parquet copy
 * carries those entries, or its CRS would name nothing. Adds them to *o
 * (arrays and strings in a). */
static fl_status crs_entries(fl_source *src, fl_arena *a, fl_parquet_write_options *o,
                             fl_error *err)
{
    const fl_pq_file_meta *m = src->parquet ? fl_parquet_footer(src->parquet) : NULL;
    if (!m || !m->nkv)
        return FL_OK;
    fl_kv_pair *kv = fl_arena_calloc(a, m->nkv, sizeof *kv);
    if (!kv)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    uint32_t n = 0;
    for (uint32_t k = 0; k < m->nkv; k++) {
        const fl_pq_kv *e = &m->key_value_metadata[k];
        bool used = false;
        for (uint32_t i = 0; i < m->nschema && !used; i++) {
            const fl_pq_logical *lt = &m->schema[i].logical;
            used = (lt->kind == FL_PQ_LT_GEOMETRY || lt->kind == FL_PQ_LT_GEOGRAPHY) && lt->crs &&
                   !strncmp(lt->crs, "projjson:", 9) && e->key && !strcmp(lt->crs + 9, e->key);
        }
        if (!used || !e->value)
            continue;
        char *v = fl_arena_alloc(a, e->value_len + 1);
        if (!v)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        memcpy(v, e->value, e->value_len);
        v[e->value_len] = '\0';
        kv[n].key = e->key;
        kv[n++].value = v;
    }
    o->kv = kv;
    o->nkv = n;
    return FL_OK;
}

static fl_status fw_open(file_writer *fw, fl_output *out, fl_source *src, const convert_args *a,
                         fl_arena *a_kv, fl_error *err)
{
    const fl_schema *s = fl_source_schema(src);
    if (a->to == FL_FMT_ORC) {
        fl_orc_write_options o;
        orc_options(&a->wopt, &o);
        return fl_orc_writer_open(out, s, &o, &fw->ow, err);
    }
    fl_parquet_write_options o = a->wopt;
    if (!o.nkv)
        FL_TRY(crs_entries(src, a_kv, &o, err));
    return fl_parquet_writer_open(out, s, &o, &fw->pw, err);
}

static fl_status fw_write(file_writer *fw, const fl_batch *b, fl_error *err)
{
    return fw->ow ? fl_orc_writer_write(fw->ow, b, err) : fl_parquet_writer_write(fw->pw, b, err);
}

static fl_status fw_close(file_writer *fw, fl_error *err)
{
    fl_orc_writer *ow = fw->ow;
    fl_parquet_writer *pw = fw->pw;
    fw->ow = NULL;
    fw->pw = NULL;
    return ow ? fl_orc_writer_close(ow, NULL, err) : fl_parquet_writer_close(pw, NULL, err);
}

/* Pumps every batch of src into a Parquet or ORC file at a->out. */
static fl_status write_binary(fl_source *src, const convert_args *a, cli_progress *prog,
                              uint64_t *rows, uint64_t *bytes, fl_error *err)
{
    fl_fileio *io = cli_fileio();
    if (!io)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_output *out = NULL;
    file_writer w = {0};
    fl_batch b;
    bool batch_ok = false;
    uint8_t *mem = NULL; /* OUT "-" */
    size_t mem_len = 0;
    fl_arena kv_arena;
    fl_arena_init(&kv_arena, 0);
    fl_status rc = create_output(io, a->out, &mem, &mem_len, &out, err);
    if (rc == FL_OK)
        rc = fw_open(&w, out, src, a, &kv_arena, err);
    if (rc == FL_OK) {
        rc = fl_batch_init(&b, fl_source_schema(src), err);
        batch_ok = rc == FL_OK;
    }
    while (rc == FL_OK) {
        bool eof;
        rc = fl_source_next(src, &b, &eof, err);
        if (rc != FL_OK || eof)
            break;
        *rows += fl_batch_live_rows(&b);
        rc = fw_write(&w, &b, err);
        show_progress(prog, src, a, *rows);
    }
    if (rc == FL_OK)
        rc = fw_close(&w, err);
    if (rc == FL_OK) {
        *bytes = out->written;
        fl_output *oc = out;
        out = NULL;
        rc = fl_output_close(oc, err);
    }
    if (rc == FL_OK && mem)
        rc = copy_to_stdout(mem, mem_len, err);
    free(mem);
    if (batch_ok)
        fl_batch_destroy(&b);
    fl_parquet_writer_abort(w.pw);
    fl_orc_writer_abort(w.ow);
    fl_output_abort(out);
    fl_fileio_destroy(io);
    fl_arena_free(&kv_arena);
    return rc;
}

/* Pumps src into CSV / JSON lines at out_path (or stdout). */
static fl_status write_text(fl_source *src, const convert_args *a, cli_progress *prog,
                            uint64_t *rows, fl_error *err)
{
    bool to_stdout = !strcmp(a->out, "-");
    char *tmp = NULL;
    FILE *f = stdout;
    if (!to_stdout) {
        size_t n = strlen(a->out) + 32;
        tmp = malloc(n);
        if (!tmp)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        snprintf(tmp, n, "%s.tmp-%ld", a->out, (long)getpid());
        f = fopen(tmp, "wb");
        if (!f) {
            fl_status rc = fl_errorf(err, FL_EIO, "%s: %s", tmp, strerror(errno));
            free(tmp);
            return rc;
        }
    }
    fl_row_printer *p = NULL;
    fl_batch b;
    bool batch_ok = false;
    fl_out_format fmt = a->to == FL_FMT_CSV ? FL_OUT_CSV : FL_OUT_JSONL;
    fl_status rc = fl_row_printer_open(f, fmt, fl_source_schema(src), true, &p, err);
    if (rc == FL_OK) {
        rc = fl_batch_init(&b, fl_source_schema(src), err);
        batch_ok = rc == FL_OK;
    }
    while (rc == FL_OK) {
        bool eof;
        rc = fl_source_next(src, &b, &eof, err);
        if (rc != FL_OK || eof)
            break;
        rc = fl_row_printer_batch(p, &b, NULL, err);
        show_progress(prog, src, a, fl_row_printer_rows(p));
    }
    if (p) {
        *rows = fl_row_printer_rows(p);
        if (rc == FL_OK)
            rc = fl_row_printer_close(p, err);
        else
            fl_row_printer_free(p);
    }
    if (batch_ok)
        fl_batch_destroy(&b);
    if (!to_stdout) {
        if (fclose(f) != 0 && rc == FL_OK)
            rc = fl_errorf(err, FL_EIO, "%s: %s", tmp, strerror(errno));
        if (rc == FL_OK && rename(tmp, a->out) != 0)
            rc = fl_errorf(err, FL_EIO, "rename %s -> %s: %s", tmp, a->out, strerror(errno));
        if (rc != FL_OK)
            unlink(tmp);
        free(tmp);
    }
    return rc;
}

int fl_cmd_convert(int argc, char **argv)
{
    convert_args a;
    int u = parse_args(argc, argv, &a);
    if (u)
        return u < 0 ? 0 : u;
    fl_error err;
    fl_error_clear(&err);
    fl_arena arena;
    fl_arena_init(&arena, 0);
    fl_schema schema;
    fl_source_options so = {.delimiter = a.delimiter, .verify_crc = a.verify_crc};
    fl_status rc = FL_OK;
    if (a.schema_spec) {
        if (a.from == FL_FMT_PARQUET || a.from == FL_FMT_ORC) {
            fprintf(stderr, "floe convert: --schema applies to CSV and JSON lines input only\n");
            fl_arena_free(&arena);
            return 2;
        }
        rc = fl_parse_schema_spec(a.schema_spec, &arena, &schema, &err);
        if (rc != FL_OK)
            fl_error_prefix(&err, "--schema");
        so.schema = &schema;
    }
    char *spooled = NULL; /* input `-`: stdin in a temporary file (Parquet seeks, CSV is read twice) */
    if (rc == FL_OK && !strcmp(a.in, "-")) {
        spooled = cli_stdin_spool("convert");
        if (!spooled) {
            fl_arena_free(&arena);
            return 1;
        }
        a.in = spooled;
        if (!a.from)
            a.from = fl_file_format_from_path(spooled);
    }
    fl_source *src = NULL;
    if (rc == FL_OK)
        rc = fl_source_open(a.in, a.from, &so, &src, &err);
    uint64_t rows = 0, bytes = 0;
    if (rc == FL_OK) {
        cli_progress prog;
        cli_progress_init(&prog, "floe convert", 1);
        if (a.to == FL_FMT_PARQUET || a.to == FL_FMT_ORC)
            rc = write_binary(src, &a, &prog, &rows, &bytes, &err);
        else
            rc = write_text(src, &a, &prog, &rows, &err);
        cli_progress_end(&prog);
    }
    fl_source_close(src);
    fl_arena_free(&arena);
    if (rc != FL_OK) {
        cli_stdin_scrub(err.msg);
        fprintf(stderr, "floe convert: %s\n", err.msg);
    } else if (!a.quiet) {
        fprintf(stderr, "floe convert: %" PRIu64 " rows, %s (%s) -> %s (%s", rows,
                spooled ? "stdin" : a.in, format_name(a.from), a.out, format_name(a.to));
        if (a.to == FL_FMT_PARQUET)
            fprintf(stderr, ", %" PRIu64 " bytes", bytes);
        fprintf(stderr, ")\n");
    }
    cli_stdin_release(spooled);
    return rc == FL_OK ? 0 : 1;
}
