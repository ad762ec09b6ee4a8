/*
 * cmd_orc.c - `floe orc schema|meta|cat FILE`: look inside an ORC file with
 * floe's own reader (src/orc).
 *
 *   schema  the ORC type tree as stored (column ids, kinds, attributes such
 *           as iceberg.id), then the floe schema the reader maps it to
 *   meta    the tail: format version, writer, compression and block size,
 *           rows, row index stride, user metadata, and per stripe its
 *           offset, lengths and rows; file-level column statistics
 *   cat     rows as a table, CSV or JSON lines, with projection (--columns)
 *           and --limit
 *
 * Errors print "floe orc: <message>" and exit 1; usage errors exit 2.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/file_tool.h"
#include "cli/output.h"
#include "cli/textparse.h"
#include "floe/io.h"
#include "floe/orc.h"

static int fail(const fl_error *err)
{
    fprintf(stderr, "floe orc: %s\n", err->msg);
    return 1;
}

typedef struct orc_handle {
    fl_fileio *io;
    fl_file *file;
    fl_orc_reader *reader;
} orc_handle;

static fl_status open_file(const char *path, orc_handle *h, fl_error *err)
{
    memset(h, 0, sizeof *h);
    h->io = cli_fileio();
    if (!h->io)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    FL_TRY(fl_fileio_open(h->io, path, &h->file, err));
    return fl_orc_open(h->file, &h->reader, err); /* messages start with the path */
}

static void close_file(orc_handle *h)
{
    fl_orc_close(h->reader);
    fl_file_close(h->file);
    fl_fileio_destroy(h->io);
}

/* ---- schema ---- */

static void print_orc_type(const fl_orc_reader *r, uint32_t col, const char *name, int depth)
{
    const fl_orc_type *t = fl_orc_type_at(r, col);
    if (!t || depth > 100)
        return;
    printf("%*s%s%s%s", depth * 2 + 2, "", name ? name : "", name ? ": " : "",
           fl_orc_kind_name(t->kind));
    if (t->kind == FL_ORC_DECIMAL)
        printf("(%u,%u)", t->precision, t->scale);
    else if (t->kind == FL_ORC_VARCHAR || t->kind == FL_ORC_CHAR)
        printf("(%u)", t->max_length);
    printf(" [column %u]", col);
    for (uint32_t i = 0; i < t->nattrs; i++)
        printf(" %s=%s", t->attrs[i].key, t->attrs[i].value);
    printf("\n");
    for (uint32_t i = 0; i < t->nsubtypes; i++) {
        const char *cn = t->kind == FL_ORC_STRUCT ? t->field_names[i]
                         : t->kind == FL_ORC_LIST ? "element"
                         : t->kind == FL_ORC_MAP  ? (i == 0 ? "key" : "value")
                                                  : NULL;
        print_orc_type(r, t->subtypes[i], cn, depth + 1);
    }
}

static int cmd_schema(const char *path)
{
    orc_handle h;
    fl_error err;
    fl_error_clear(&err);
    if (open_file(path, &h, &err) != FL_OK) {
        close_file(&h);
        return fail(&err);
    }
    printf("ORC types:\n");
    print_orc_type(h.reader, 0, NULL, 0);
    const fl_schema *s = fl_orc_schema(h.reader);
    printf("\nfloe schema:\n");
    for (uint32_t c = 0; c < s->nfields; c++)
        cli_print_floe_field(&s->fields[c], 0);
    close_file(&h);
    return fflush(stdout) == 0 ? 0 : 1;
}

/* ---- meta ---- */

static const char *writer_name(uint32_t w)
{
    static const char *const n[] = {"ORC Java", "ORC C++", "Presto",           "Scritchy",
                                    "Trino",    "CUDF",    "Apache Arrow Rust"};
    return w < sizeof n / sizeof *n ? n[w] : "unknown";
}

static void print_stats(const fl_orc_reader *r, uint32_t col)
{
    const fl_orc_stats *st = fl_orc_column_stats(r, -1, col);
    if (!st)
        return;
    printf("    column %u (%s): values %" PRIu64, col,
           fl_orc_kind_name(fl_orc_type_at(r, col)->kind), st->num_values);
    if (st->has_null_known)
        printf(", has nulls %s", st->has_null ? "yes" : "no");
    if (st->has_int || st->has_timestamp)
        printf(", min %" PRId64 ", max %" PRId64 "%s", st->imin, st->imax,
               st->has_timestamp ? " (ms UTC)" : "");
    if (st->has_double)
        printf(", min %.17g, max %.17g", st->dmin, st->dmax);
    if (st->has_string || st->has_decimal)
        printf(", min \"%.*s\", max \"%.*s\"", (int)(st->smin_len > 60 ? 60 : st->smin_len),
               st->smin ? st->smin : "", (int)(st->smax_len > 60 ? 60 : st->smax_len),
               st->smax ? st->smax : "");
    if (st->has_bucket)
        printf(", true %" PRIu64, st->true_count);
    if (st->has_sum && st->has_double)
        printf(", sum %.17g", st->dsum);
    else if (st->has_sum)
        printf(", sum %" PRId64, st->isum);
    printf("\n");
}

static int cmd_meta(const char *path)
{
    orc_handle h;
    fl_error err;
    fl_error_clear(&err);
    if (open_file(path, &h, &err) != FL_OK) {
        close_file(&h);
        return fail(&err);
    }
    const fl_orc_reader *r = h.reader;
    const fl_orc_file_info *in = fl_orc_info(r);
    printf("file: %s\n", path);
    printf("format version: %u.%u\n", in->version_major, in->version_minor);
    printf("writer: %s (id %u), writer version %u%s%s\n", writer_name(in->writer), in->writer,
           in->writer_version, in->software_version ? ", software " : "",
           in->software_version ? in->software_version : "");
    printf("compression: %s", fl_orc_compression_name(in->compression));
    if (in->compression != FL_ORC_NONE)
        printf(" (block size %" PRIu64 ")", in->block_size);
    printf("\nrows: %" PRIu64 "\nstripes: %u\nrow index stride: %u\n", fl_orc_num_rows(r),
           fl_orc_num_stripes(r), in->row_index_stride);
    printf("content length: %" PRIu64 ", footer %" PRIu64 ", metadata %" PRIu64 " bytes\n",
           in->content_length, in->footer_length, in->metadata_length);
    for (uint32_t i = 0; i < fl_orc_num_stripes(r); i++) {
        const fl_orc_stripe *s = fl_orc_stripe_info(r, i);
        printf("  stripe %u: offset %" PRIu64 ", rows %" PRIu64 ", index %" PRIu64 ", data %" PRIu64
               ", footer %" PRIu64 " bytes\n",
               i, s->offset, s->rows, s->index_length, s->data_length, s->footer_length);
    }
    if (fl_orc_column_stats(r, -1, 0)) {
        printf("column statistics:\n");
        for (uint32_t c = 0; c < fl_orc_num_types(r); c++)
            print_stats(r, c);
    }
    if (in->nuser_metadata) {
        printf("user metadata:\n");
        for (uint32_t i = 0; i < in->nuser_metadata; i++)
            printf("  %s = %.200s\n", in->user_metadata[i].key, in->user_metadata[i].value);
    }
    close_file(&h);
    return fflush(stdout) == 0 ? 0 : 1;
}

/* ---- cat ---- */

typedef struct cat_args {
    const char *path;
    const char *columns; /* "a,b" or NULL */
    fl_out_format fmt;
    bool has_limit;
    uint64_t limit;
} cat_args;

enum { CAT_COLUMNS, CAT_FORMAT, CAT_LIMIT };
static const cli_opt cat_opts[] = {
    [CAT_COLUMNS] = {"columns", 0, "a,b", false, "project top-level columns"},
    [CAT_FORMAT] = {"format", 0, "F", false, "table (default) | csv | jsonl"},
    [CAT_LIMIT] = {"limit", 0, "N", false, "at most N rows"},
};
static const cli_command cat_cmd = {
    .name = "orc cat",
    .synopsis = "orc cat FILE [options]",
    .opts = cat_opts,
    .nopts = CLI_NOPTS(cat_opts),
    .min_args = 1,
    .max_args = 1,
};

/* The parsed options of cat into c; 0, or 2 after a usage error. */
static int cat_args_from(const char *path, const cli_args *p, cat_args *c)
{
    memset(c, 0, sizeof *c);
    c->path = path;
    c->columns = cli_value(p, CAT_COLUMNS);
    const char *v;
    if ((v = cli_value(p, CAT_FORMAT)) && !fl_out_format_parse(v, &c->fmt))
        return cli_usage_error(&cat_cmd, "unknown format '%s' (table, csv, jsonl)", v);
    if ((v = cli_value(p, CAT_LIMIT))) {
        int64_t l = 0;
        if (!fl_parse_int64(v, strlen(v), &l) || l < 0)
            return cli_usage_error(&cat_cmd, "bad --limit '%s'", v);
        c->has_limit = true;
        c->limit = (uint64_t)l;
    }
    return 0;
}

/* "a,b" -> top-level field indexes of s (in the given order). */
static fl_status parse_columns(const char *list, const fl_schema *s, uint32_t *out, uint32_t *n,
                               fl_error *err)
{
    *n = 0;
    const char *p = list;
    for (;;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        while (len && *p == ' ')
            p++, len--;
        while (len && p[len - 1] == ' ')
            len--;
        if (!len)
            return fl_errorf(err, FL_EINVAL, "--columns: empty column name in '%s'", list);
        int found = -1;
        for (uint32_t i = 0; i < s->nfields && found < 0; i++)
            if (strlen(s->fields[i].name) == len && !memcmp(s->fields[i].name, p, len))
                found = (int)i;
        if (found < 0)
            return fl_errorf(err, FL_ENOTFOUND, "no column '%.*s'", (int)len, p);
        for (uint32_t i = 0; i < *n; i++)
            if (out[i] == (uint32_t)found)
                return fl_errorf(err, FL_EINVAL, "--columns: '%.*s' given twice", (int)len, p);
        if (*n >= s->nfields)
            return fl_errorf(err, FL_EINVAL, "--columns: too many columns");
        out[(*n)++] = (uint32_t)found;
        if (!e)
            return FL_OK;
        p = e + 1;
    }
}

static fl_status scan_next(void *scan, fl_batch *b, bool *eof, fl_error *err)
{
    return fl_orc_scan_next(scan, b, eof, err);
}

static fl_status run_cat(const cat_args *c, orc_handle *h, fl_error *err)
{
    FL_TRY(open_file(c->path, h, err));
    const fl_schema *fs = fl_orc_schema(h->reader);
    uint32_t *fields = calloc(fs->nfields + 1, sizeof *fields), nfields = 0;
    if (!fields)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_status rc = FL_OK;
    if (c->columns && (rc = parse_columns(c->columns, fs, fields, &nfields, err)) != FL_OK) {
        free(fields);
        return fl_error_prefix(err, "%s", c->path);
    }
    fl_orc_scan_options so = {.fields = c->columns ? fields : NULL, .nfields = nfields};
    fl_orc_scan *scan = NULL;
    rc = fl_orc_scan_open(h->reader, &so, &scan, err);
    free(fields);
    if (rc != FL_OK)
        return rc;
    rc = fl_print_batches(c->fmt, fl_orc_scan_schema(scan), c->has_limit ? &c->limit : NULL,
                          scan_next, scan, err);
    fl_orc_scan_close(scan);
    return rc;
}

static int cmd_cat(const char *path, const cli_args *p)
{
    fl_error err;
    fl_error_clear(&err);
    cat_args c;
    int u = cat_args_from(path, p, &c);
    if (u)
        return u;
    orc_handle h;
    memset(&h, 0, sizeof h);
    fl_status rc = run_cat(&c, &h, &err);
    close_file(&h);
    return rc == FL_OK ? 0 : fail(&err);
}

int fl_cmd_orc(int argc, char **argv)
{
    static const cli_file_tool tool = {
        .name = "orc",
        .about = "  schema FILE   the ORC type tree and the floe schema\n"
                 "  meta FILE     tail: writer, compression, stripes, statistics\n"
                 "  cat FILE      print rows\n"
                 "FILE '-' is stdin.",
        .cat = &cat_cmd,
        .run_cat = cmd_cat,
        .schema = cmd_schema,
        .meta = cmd_meta};
    return cli_file_tool_main(&tool, argc, argv);
}
