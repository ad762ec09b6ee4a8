/*
 * cmd_avro.c - `floe avro`: inspect and write Avro object container files.
 *
 *   floe avro schema FILE [--canonical] [--fingerprint]
 *       the writer schema exactly as stored in avro.schema (or its Parsing
 *       Canonical Form / CRC-64-AVRO fingerprint)
 *   floe avro meta FILE [--json] [--blocks]
 *       codec, sync marker, every header metadata key and value in file
 *       order, block count and records (text: the first 10 blocks unless
 *       --blocks; --json: every block)
 *   floe avro cat FILE [--format jsonl|csv|table] [--limit N] [--logical] [--reader-schema F.json]
 *       records. JSON conventions: longs are exact JSON integers (never
 *       strings); bytes/fixed are {"$bytes":"<hex>"} (csv/table: hex text);
 *       logical types are shown as their physical value by default (date =
 *       int days, timestamp = int, decimal = its two's-complement bytes, uuid
 *       = the string), decoded with --logical (see FL_AVRO_JSON_LOGICAL:
 *       "2024-01-31", "...T12:00:00.000000Z", "-12.50", uuid text); unions
 *       are the bare branch value; NaN/Infinity as strings.
 *       --reader-schema resolves each record to that schema (field-id aware).
 *   floe avro write SCHEMA.json RECORDS.jsonl OUT [--codec C] [--meta K=V]...
 *                   [--meta-file K=FILE]... [--sync HEX32] [--block-size N]
 *       (for tests and interop) writes a container: the schema text stored
 *       verbatim, records given as JSON lines in the `cat` format. Either
 *       input may be `-` (stdin), and OUT `-` is stdout.
 *   floe avro canonical SCHEMA.json
 *       Parsing Canonical Form and fingerprint (signed decimal, as in the
 *       Avro test suite) of a schema file.
 *
 * Options take "--opt value" or "--opt=value" (opts.h); FILE `-` is stdin.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/opts.h"
#include "cli/output.h"
#include "cli/stdin_file.h"
#include "floe/avro.h"
#include "floe/io.h"

static int fail(const fl_error *err)
{
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", err->msg);
    cli_stdin_scrub(msg);
    fprintf(stderr, "floe avro: %s\n", msg);
    return 1;
}

/* ---- the subcommands' option tables ---- */

enum { SCHEMA_CANONICAL, SCHEMA_FINGERPRINT };
static const cli_opt schema_opts[] = {
    [SCHEMA_CANONICAL] = {"canonical", 0, NULL, false, "the Parsing Canonical Form instead"},
    [SCHEMA_FINGERPRINT] = {"fingerprint", 0, NULL, false, "its CRC-64-AVRO fingerprint (hex)"},
};
static const cli_command schema_cmd = {.name = "avro schema",
                                       .synopsis = "avro schema FILE [--canonical] [--fingerprint]",
                                       .opts = schema_opts,
                                       .nopts = CLI_NOPTS(schema_opts),
                                       .min_args = 1,
                                       .max_args = 1};

enum { META_JSON, META_BLOCKS };
static const cli_opt meta_opts[] = {
    [META_JSON] = {"json", 0, NULL, false, "one JSON object, every block listed"},
    [META_BLOCKS] = {"blocks", 0, NULL, false, "text: every block (default: the first 10)"},
};
static const cli_command meta_cmd = {.name = "avro meta",
                                     .synopsis = "avro meta FILE [--json] [--blocks]",
                                     .opts = meta_opts,
                                     .nopts = CLI_NOPTS(meta_opts),
                                     .min_args = 1,
                                     .max_args = 1};

enum { CAT_FORMAT, CAT_LIMIT, CAT_LOGICAL, CAT_READER_SCHEMA };
static const cli_opt cat_opts[] = {
    [CAT_FORMAT] = {"format", 0, "F", false, "jsonl (default) | csv | table"},
    [CAT_LIMIT] = {"limit", 0, "N", false, "at most N records"},
    [CAT_LOGICAL] = {"logical", 0, NULL, false,
                     "decode logical types (dates, timestamps, decimals, uuids)"},
    [CAT_READER_SCHEMA] = {"reader-schema", 0, "F", false,
                           "resolve each record to the reader schema in file F"},
};
static const cli_command cat_cmd = {.name = "avro cat",
                                    .synopsis =
                                        "avro cat FILE [--format jsonl|csv|table] [--limit N] "
                                        "[--logical] [--reader-schema F]",
                                    .opts = cat_opts,
                                    .nopts = CLI_NOPTS(cat_opts),
                                    .min_args = 1,
                                    .max_args = 1};

enum { WRITE_CODEC, WRITE_LEVEL, WRITE_META, WRITE_META_FILE, WRITE_SYNC, WRITE_BLOCK_SIZE };
static const cli_opt write_opts[] = {
    [WRITE_CODEC] = {"codec", 0, "C", false,
                     "null (default) | deflate | snappy | zstandard | bzip2"},
    [WRITE_LEVEL] = {"level", 0, "N", false, "compression level (the codec's default)"},
    [WRITE_META] = {"meta", 0, "KEY=VALUE", true, "a header metadata entry"},
    [WRITE_META_FILE] = {"meta-file", 0, "KEY=FILE", true, "a metadata entry read from FILE"},
    [WRITE_SYNC] = {"sync", 0, "HEX32", false, "the 16-byte sync marker (default: random)"},
    [WRITE_BLOCK_SIZE] = {"block-size", 0, "N", false, "bytes per block before it is written"},
};
static const cli_command write_cmd = {
    .name = "avro write",
    .synopsis = "avro write SCHEMA.json RECORDS.jsonl OUT [--codec C] [--level N]\n"
                "                [--meta KEY=VALUE]... [--meta-file KEY=FILE]... [--sync HEX32] "
                "[--block-size N]",
    .opts = write_opts,
    .nopts = CLI_NOPTS(write_opts),
    .min_args = 3,
    .max_args = 3};

static const cli_command canonical_cmd = {.name = "avro canonical",
                                          .synopsis = "avro canonical SCHEMA.json",
                                          .min_args = 1,
                                          .max_args = 1};

static const cli_command *const subcommands[] = {&schema_cmd, &meta_cmd, &cat_cmd, &write_cmd,
                                                 &canonical_cmd};

static int usage(FILE *out)
{
    cli_usage_subs(
        subcommands, sizeof subcommands / sizeof subcommands[0],
        "  schema     the writer schema as stored (or its canonical form, fingerprint)\n"
        "  meta       codec, sync marker, header metadata, blocks and records\n"
        "  cat        the records (JSON lines; csv, table)\n"
        "  write      a container from a schema and JSON-lines records (the cat format)\n"
        "  canonical  the Parsing Canonical Form and fingerprint of a schema file\n"
        "FILE '-' is stdin; so is SCHEMA.json or RECORDS.jsonl (one of them), and OUT\n"
        "'-' is stdout.",
        out);
    return out == stdout ? 0 : 2;
}

/* Appends to an Avro byte buffer; false when out of memory. */
static bool buf_put(fl_avro_buf *b, const void *p, size_t n)
{
    return fl_avro_buf_append(b, p, n, NULL) == FL_OK;
}

static bool buf_puts(fl_avro_buf *b, const char *s)
{
    return buf_put(b, s, strlen(s));
}

/* Appends s[0..n) as a JSON string literal (the CLI's escaping, output.h). */
static bool buf_json_str(fl_avro_buf *b, const char *s, size_t n)
{
    fl_buf sb = {0};
    bool ok =
        fl_json_string(&sb, (const uint8_t *)s, n, NULL) == FL_OK && buf_put(b, sb.data, sb.len);
    fl_buf_free(&sb);
    return ok;
}

/* Reads a whole local file (malloc'd, NUL-terminated); "-" is stdin. */
static fl_status slurp(const char *path, char **out, size_t *len, fl_error *err)
{
    bool from_stdin = !strcmp(path, "-");
    FILE *f = from_stdin ? stdin : fopen(path, "rb");
    if (!f)
        return fl_errorf(err, FL_ENOTFOUND, "%s: cannot open", path);
    fl_avro_buf b = {0};
    char tmp[65536];
    size_t n;
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
        if (fl_avro_buf_append(&b, tmp, n, err) != FL_OK) {
            if (!from_stdin)
                fclose(f);
            fl_avro_buf_free(&b);
            return err->code;
        }
    int bad = ferror(f);
    if (!from_stdin)
        fclose(f);
    if (bad || fl_avro_buf_append(&b, "", 1, err) != FL_OK) {
        fl_avro_buf_free(&b);
        return fl_errorf(err, FL_EIO, "%s: read error", from_stdin ? "stdin" : path);
    }
    *out = (char *)b.data;
    *len = b.len - 1;
    return FL_OK;
}

typedef struct opened {
    fl_fileio *io;
    fl_file *f;
    fl_avro_reader *r;
} opened;

static fl_status open_avro(const char *path, opened *o, fl_error *err)
{
    memset(o, 0, sizeof *o);
    o->io = cli_fileio();
    if (!o->io)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    FL_TRY(fl_fileio_open(o->io, path, &o->f, err));
    return fl_avro_reader_open(o->f, NULL, &o->r, err);
}

static void close_avro(opened *o)
{
    fl_avro_reader_close(o->r);
    fl_file_close(o->f);
    fl_fileio_destroy(o->io);
}

static int cmd_schema(const char *path, const cli_args *args)
{
    bool canonical = cli_has(args, SCHEMA_CANONICAL);
    bool fingerprint = cli_has(args, SCHEMA_FINGERPRINT);
    fl_error err = {0};
    opened o;
    if (open_avro(path, &o, &err)) {
        close_avro(&o);
        return fail(&err);
    }
    size_t len;
    const char *json = fl_avro_reader_schema_json(o.r, &len);
    if (canonical || fingerprint) {
        fl_arena a;
        fl_arena_init(&a, 0);
        char *c = fl_avro_schema_canonical(&a, fl_avro_reader_schema(o.r));
        if (canonical)
            printf("%s\n", c ? c : "");
        if (fingerprint && c)
            printf("%016" PRIx64 "\n", fl_avro_crc64(c, strlen(c)));
        fl_arena_free(&a);
    } else {
        fwrite(json, 1, len, stdout);
        putchar('\n');
    }
    close_avro(&o);
    return 0;
}

/* Valid UTF-8 without control characters other than tab, CR and LF. */
static bool printable_utf8(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n;) {
        uint8_t c = p[i];
        if (c < 0x80) {
            if (c < 0x20 && c != '\n' && c != '\t' && c != '\r')
                return false;
            if (c == 0x7f)
                return false;
            i++;
            continue;
        }
        size_t k = (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
        if (!k || c == 0xc0 || c == 0xc1 || c > 0xf4 || i + k > n)
            return false;
        for (size_t j = 1; j < k; j++)
            if ((p[i + j] & 0xc0) != 0x80)
                return false;
        i += k;
    }
    return true;
}

static void print_hex(FILE *out, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%02x", p[i]);
}

static int cmd_meta(const char *path, const cli_args *args)
{
    bool json = cli_has(args, META_JSON), all_blocks = cli_has(args, META_BLOCKS);
    fl_error err = {0};
    opened o;
    if (open_avro(path, &o, &err)) {
        close_avro(&o);
        return fail(&err);
    }
    fl_avro_buf out = {0};
    size_t nblocks = 0;
    uint64_t nrec = 0;
    fl_avro_buf blocks = {0};
    fl_status rc = FL_OK;
    for (;;) {
        fl_avro_block_info bi;
        bool done;
        if ((rc = fl_avro_reader_next_block(o.r, &bi, &done, &err)) || done)
            break;
        char line[160];
        if (json)
            snprintf(line, sizeof line,
                     "%s{\"offset\":%" PRIu64 ",\"records\":%" PRId64 ",\"size\":%" PRIu64
                     ",\"uncompressed\":%" PRIu64 "}",
                     nblocks ? "," : "", bi.offset, bi.records, bi.compressed, bi.uncompressed);
        else if (all_blocks || nblocks < 10)
            snprintf(line, sizeof line,
                     "  block %zu at offset %" PRIu64 ": %" PRId64 " records, %" PRIu64
                     " bytes (%" PRIu64 " uncompressed)\n",
                     nblocks, bi.offset, bi.records, bi.compressed, bi.uncompressed);
        else
            line[0] = 0;
        buf_puts(&blocks, line);
        nblocks++;
        nrec += (uint64_t)bi.records;
    }
    const uint8_t *sync = fl_avro_reader_sync(o.r);
    size_t nm = fl_avro_reader_meta_count(o.r);
    if (json) {
        printf("{\"file\":");
        buf_json_str(&out, path, strlen(path));
        fwrite(out.data, 1, out.len, stdout);
        printf(",\"codec\":\"%s\",\"sync\":\"", fl_avro_reader_codec(o.r));
        print_hex(stdout, sync, 16);
        printf("\",\"header_size\":%" PRIu64 ",\"metadata\":[", fl_avro_reader_header_size(o.r));
        for (size_t i = 0; i < nm; i++) {
            const fl_avro_meta *m = fl_avro_reader_meta(o.r, i);
            out.len = 0;
            buf_puts(&out, i ? ",{\"key\":" : "{\"key\":");
            buf_json_str(&out, m->key, strlen(m->key));
            if (printable_utf8(m->value, m->len)) {
                buf_puts(&out, ",\"value\":");
                buf_json_str(&out, (const char *)m->value, m->len);
                buf_puts(&out, "}");
                fwrite(out.data, 1, out.len, stdout);
            } else {
                fwrite(out.data, 1, out.len, stdout);
                printf(",\"hex\":\"");
                print_hex(stdout, m->value, m->len);
                printf("\"}");
            }
        }
        printf("],\"blocks\":[");
        if (blocks.len)
            fwrite(blocks.data, 1, blocks.len, stdout);
        printf("],\"block_count\":%zu,\"records\":%" PRIu64 ",\"trailing_bytes\":%" PRIu64 "}\n",
               nblocks, nrec, fl_avro_reader_trailing_bytes(o.r));
    } else {
        char shown[1024];
        snprintf(shown, sizeof shown, "%s", path);
        cli_stdin_scrub(shown);
        printf("file: %s\ncodec: %s\nsync: ", shown, fl_avro_reader_codec(o.r));
        print_hex(stdout, sync, 16);
        printf("\nheader size: %" PRIu64 " bytes\nmetadata: %zu keys\n",
               fl_avro_reader_header_size(o.r), nm);
        for (size_t i = 0; i < nm; i++) {
            const fl_avro_meta *m = fl_avro_reader_meta(o.r, i);
            printf("  %s = ", m->key);
            if (printable_utf8(m->value, m->len))
                fwrite(m->value, 1, m->len, stdout);
            else {
                printf("0x");
                print_hex(stdout, m->value, m->len);
            }
            putchar('\n');
        }
        printf("blocks: %zu\n", nblocks);
        if (blocks.len)
            fwrite(blocks.data, 1, blocks.len, stdout);
        if (!all_blocks && nblocks > 10)
            printf("  ... %zu more blocks (--blocks lists all)\n", nblocks - 10);
        printf("records: %" PRIu64 "\n", nrec);
        if (fl_avro_reader_trailing_bytes(o.r))
            printf("trailing bytes: %" PRIu64 " after the last block (ignored)\n",
                   fl_avro_reader_trailing_bytes(o.r));
    }
    fl_avro_buf_free(&out);
    fl_avro_buf_free(&blocks);
    close_avro(&o);
    return rc ? fail(&err) : 0;
}

/* ---------------------------------------------------------------- cat */

typedef enum { FMT_JSONL, FMT_CSV, FMT_TABLE } cat_fmt;

/* Text of one cell for csv/table: strings raw, bytes as hex, nested as JSON;
 * with flags FL_AVRO_JSON_LOGICAL, logical types decoded (unquoted). */
static bool cell_text(const fl_avro_value *v, unsigned flags, fl_avro_buf *b)
{
    if (flags && v->schema && v->schema->logical != FL_AVRO_LOGICAL_NONE &&
        v->type != FL_AVRO_STRING) {
        size_t at = b->len;
        if (fl_avro_value_to_json_ex(v, flags, b, NULL))
            return false;
        if (b->len - at >= 2 && b->data[at] == '"' && b->data[b->len - 1] == '"') {
            memmove(b->data + at, b->data + at + 1, b->len - at - 2);
            b->len -= 2;
        }
        return true;
    }
    switch (v->type) {
    case FL_AVRO_NULL: return true;
    case FL_AVRO_STRING: return buf_put(b, v->u.bytes.ptr, v->u.bytes.len);
    case FL_AVRO_BYTES:
    case FL_AVRO_FIXED:
        for (size_t i = 0; i < v->u.bytes.len; i++) {
            char h[3];
            snprintf(h, sizeof h, "%02x", v->u.bytes.ptr[i]);
            if (!buf_put(b, h, 2))
                return false;
        }
        return true;
    case FL_AVRO_ENUM: {
        const char *s = v->schema->symbols[v->u.i];
        return buf_puts(b, s);
    }
    default: return fl_avro_value_to_json(v, b, NULL) == FL_OK;
    }
}

static void csv_field(FILE *out, const uint8_t *p, size_t n)
{
    bool quote = false;
    for (size_t i = 0; i < n; i++)
        if (p[i] == ',' || p[i] == '"' || p[i] == '\n' || p[i] == '\r')
            quote = true;
    if (!quote) {
        fwrite(p, 1, n, out);
        return;
    }
    putc('"', out);
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '"')
            putc('"', out);
        putc(p[i], out);
    }
    putc('"', out);
}

typedef struct table {
    size_t ncols;
    char **cells; /* row-major, malloc'd */
    size_t ncells, cap;
    size_t *width;
} table;

static bool table_add(table *t, const char *s, size_t n)
{
    if (t->ncells == t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 256;
        char **c = realloc(t->cells, nc * sizeof *c);
        if (!c)
            return false;
        t->cells = c;
        t->cap = nc;
    }
    char *copy = malloc(n + 1);
    if (!copy)
        return false;
    memcpy(copy, s, n);
    copy[n] = 0;
    /* one line per cell */
    for (size_t i = 0; i < n; i++)
        if (copy[i] == '\n' || copy[i] == '\r' || copy[i] == '\t')
            copy[i] = ' ';
    size_t col = t->ncells % t->ncols;
    size_t w = 0; /* display width: count UTF-8 lead bytes */
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)copy[i] & 0xc0) != 0x80)
            w++;
    if (w > t->width[col])
        t->width[col] = w;
    t->cells[t->ncells++] = copy;
    return true;
}

static void table_print(table *t)
{
    size_t nrows = t->ncells / t->ncols;
    for (size_t r = 0; r < nrows; r++) {
        for (size_t c = 0; c < t->ncols; c++) {
            const char *s = t->cells[r * t->ncols + c];
            size_t w = 0;
            for (const char *p = s; *p; p++)
                if (((unsigned char)*p & 0xc0) != 0x80)
                    w++;
            printf("%s%s", c ? " | " : "", s);
            if (c + 1 < t->ncols)
                for (size_t k = w; k < t->width[c]; k++)
                    putchar(' ');
        }
        putchar('\n');
        if (r == 0) {
            for (size_t c = 0; c < t->ncols; c++) {
                printf("%s", c ? "-+-" : "");
                for (size_t k = 0; k < t->width[c]; k++)
                    putchar('-');
            }
            putchar('\n');
        }
    }
}

static void table_free(table *t)
{
    for (size_t i = 0; i < t->ncells; i++)
        free(t->cells[i]);
    free(t->cells);
    free(t->width);
}

/* --format's value; false for an unknown one. */
static bool parse_cat_format(const char *s, cat_fmt *fmt)
{
    if (!s || !strcmp(s, "jsonl") || !strcmp(s, "json"))
        *fmt = FMT_JSONL;
    else if (!strcmp(s, "csv"))
        *fmt = FMT_CSV;
    else if (!strcmp(s, "table"))
        *fmt = FMT_TABLE;
    else
        return false;
    return true;
}

static int cmd_cat(const char *path, const cli_args *args)
{
    const char *reader_schema = cli_value(args, CAT_READER_SCHEMA);
    const char *lim = cli_value(args, CAT_LIMIT), *format = cli_value(args, CAT_FORMAT);
    cat_fmt fmt;
    if (!parse_cat_format(format, &fmt))
        return cli_usage_error(&cat_cmd, "unknown format '%s' (jsonl, csv, table)", format);
    long long limit = -1;
    char *end = NULL;
    if (lim && ((limit = strtoll(lim, &end, 10)) < 0 || !*lim || *end))
        return cli_usage_error(&cat_cmd, "bad --limit '%s'", lim);
    unsigned flags = cli_has(args, CAT_LOGICAL) ? FL_AVRO_JSON_LOGICAL : 0;
    fl_error err = {0};
    opened o;
    fl_arena schema_arena, rec;
    fl_arena_init(&schema_arena, 0);
    fl_arena_init(&rec, 0);
    fl_status rc = open_avro(path, &o, &err);
    const fl_avro_schema *shape = rc ? NULL : fl_avro_reader_schema(o.r);
    fl_avro_resolver *res = NULL;
    if (!rc && reader_schema) {
        char *text = NULL;
        size_t tl;
        fl_avro_schema *rs = NULL;
        rc = slurp(reader_schema, &text, &tl, &err);
        if (!rc && (rc = fl_avro_schema_parse(&schema_arena, text, tl, &rs, &err)))
            fl_error_prefix(&err, "%s", reader_schema);
        free(text);
        if (!rc && (rc = fl_avro_resolver_new(&schema_arena, shape, rs, &res, &err)))
            fl_error_prefix(&err, "resolving %s against the writer schema", reader_schema);
        if (!rc)
            shape = rs;
    }
    fl_avro_buf line = {0};
    table t = {0};
    if (!rc && fmt != FMT_JSONL) {
        bool rec_shape = shape->type == FL_AVRO_RECORD;
        t.ncols = rec_shape ? shape->nfields : 1;
        if (t.ncols == 0)
            t.ncols = 1;
        t.width = calloc(t.ncols, sizeof *t.width);
        for (size_t c = 0; c < t.ncols; c++) {
            const char *name = rec_shape && shape->nfields ? shape->fields[c].name : "value";
            if (fmt == FMT_CSV) {
                if (c)
                    putchar(',');
                csv_field(stdout, (const uint8_t *)name, strlen(name));
            } else if (t.width) {
                table_add(&t, name, strlen(name));
            }
        }
        if (fmt == FMT_CSV)
            putchar('\n');
    }
    for (long long n = 0; !rc && (limit < 0 || n < limit); n++) {
        fl_avro_value v, rv;
        bool done;
        fl_arena_reset(&rec);
        if ((rc = fl_avro_reader_next(o.r, &rec, &v, &done, &err)) || done)
            break;
        if (res && (rc = fl_avro_resolve(&rec, res, &v, &rv, &err))) {
            fl_error_prefix(&err, "record %lld", n);
            break;
        }
        const fl_avro_value *out = res ? &rv : &v;
        if (fmt == FMT_JSONL) {
            line.len = 0;
            if ((rc = fl_avro_value_to_json_ex(out, flags, &line, &err)))
                break;
            buf_put(&line, "\n", 1);
            fwrite(line.data, 1, line.len, stdout);
            continue;
        }
        bool rec_shape = out->type == FL_AVRO_RECORD && out->u.list.n > 0;
        for (size_t c = 0; c < t.ncols; c++) {
            line.len = 0;
            const fl_avro_value *cell =
                rec_shape ? (c < out->u.list.n ? &out->u.list.items[c] : NULL) : out;
            if (cell && !cell_text(cell, flags, &line)) {
                rc = fl_errorf(&err, FL_ENOMEM, "out of memory");
                break;
            }
            if (fmt == FMT_CSV) {
                if (c)
                    putchar(',');
                csv_field(stdout, line.bytes ? line.bytes : (const uint8_t *)"", line.len);
            } else if (!table_add(&t, line.data ? (const char *)line.data : "", line.len)) {
                rc = fl_errorf(&err, FL_ENOMEM, "out of memory");
                break;
            }
        }
        if (fmt == FMT_CSV)
            putchar('\n');
    }
    if (fmt == FMT_TABLE && t.width)
        table_print(&t);
    table_free(&t);
    fl_avro_buf_free(&line);
    fl_arena_free(&rec);
    fl_arena_free(&schema_arena);
    close_avro(&o);
    return rc ? fail(&err) : 0;
}

/* --------------------------------------------------------------- write */

static int hexnib(int c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* --sync HEX32 into sync; false when it is not 32 hex digits. */
static bool parse_sync(const char *s, uint8_t sync[16])
{
    if (strlen(s) != 32)
        return false;
    for (int k = 0; k < 16; k++) {
        int hi = hexnib(s[2 * k]), lo = hexnib(s[2 * k + 1]);
        if (hi < 0 || lo < 0)
            return false;
        sync[k] = (uint8_t)(hi << 4 | lo);
    }
    return true;
}

#define MAX_META 64

/* One --meta KEY=VALUE or --meta-file KEY=FILE into meta[*n] (owned[*n]
 * keeps a file's contents); 0, or 2 after a usage error. */
static int add_meta(const cli_given *g, fl_avro_meta *meta, char **owned, size_t *n)
{
    bool from_file = g->opt == WRITE_META_FILE;
    const char *eq = strchr(g->value, '=');
    char *text = NULL;
    size_t tl = 0;
    fl_error e = {0};
    if (!eq || *n == MAX_META || (from_file && slurp(eq + 1, &text, &tl, &e)))
        return cli_usage_error(&write_cmd, "--%s needs %s (at most %d metadata entries)%s%s",
                               from_file ? "meta-file" : "meta",
                               from_file ? "KEY=FILE" : "KEY=VALUE", MAX_META, e.code ? ": " : "",
                               e.msg);
    meta[*n].key = strndup(g->value, (size_t)(eq - g->value));
    meta[*n].value = (const uint8_t *)(from_file ? text : eq + 1);
    meta[*n].len = from_file ? tl : strlen(eq + 1);
    owned[(*n)++] = text;
    return 0;
}

/* The writer options of the command line (the metadata in the order
 * given); 0, or 2 after a usage error. */
static int writer_options(const cli_args *a, fl_avro_writer_options *opt, uint8_t sync[16],
                          fl_avro_meta *meta, char **owned)
{
    memset(opt, 0, sizeof *opt);
    opt->codec = cli_value(a, WRITE_CODEC);
    if (cli_has(a, WRITE_BLOCK_SIZE))
        opt->block_size = (size_t)atoll(cli_value(a, WRITE_BLOCK_SIZE));
    if (cli_has(a, WRITE_LEVEL))
        opt->level = atoi(cli_value(a, WRITE_LEVEL));
    if (cli_has(a, WRITE_SYNC) && !parse_sync(cli_value(a, WRITE_SYNC), sync))
        return cli_usage_error(&write_cmd, "--sync needs 32 hex digits");
    opt->sync = cli_has(a, WRITE_SYNC) ? sync : NULL;
    opt->meta = meta;
    for (int i = 0; i < a->ngiven; i++) {
        int k = a->given[i].opt;
        int rc = k == WRITE_META || k == WRITE_META_FILE
                     ? add_meta(&a->given[i], meta, owned, &opt->nmeta)
                     : 0;
        if (rc)
            return rc;
    }
    return 0;
}

/* Where the container goes: OUT, or memory copied to stdout for "-". */
typedef struct write_target {
    fl_fileio *io;
    fl_output *out;
    uint8_t *bytes; /* "-": the container, once closed */
    size_t len;
} write_target;

static fl_status target_open(const char *path, write_target *t, fl_error *err)
{
    memset(t, 0, sizeof *t);
    if (!strcmp(path, "-"))
        return fl_output_memory("stdout", &t->bytes, &t->len, &t->out, err);
    if (!(t->io = cli_fileio()))
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    return fl_fileio_create(t->io, path, FL_CREATE_OVERWRITE, &t->out, err);
}

/* After the writer closed the output: "-" copies the bytes to stdout. */
static fl_status target_close(write_target *t, fl_status rc, fl_error *err)
{
    if (rc == FL_OK && t->bytes &&
        (fwrite(t->bytes, 1, t->len, stdout) != t->len || fflush(stdout)))
        rc = fl_errorf(err, FL_EIO, "stdout: write error");
    free(t->bytes);
    fl_fileio_destroy(t->io);
    return rc;
}

static int cmd_write(const char *path, const cli_args *args)
{
    (void)path;
    const char *const *pos = (const char *const *)args->pos;
    if (!strcmp(pos[0], "-") && !strcmp(pos[1], "-"))
        return cli_usage_error(&write_cmd, "SCHEMA.json and RECORDS.jsonl cannot both be stdin");
    fl_avro_writer_options opt;
    fl_avro_meta meta[MAX_META];
    char *owned[MAX_META] = {0}; /* --meta-file contents */
    uint8_t sync[16];
    int usage_rc = writer_options(args, &opt, sync, meta, owned);
    if (usage_rc) {
        for (size_t i = 0; i < opt.nmeta; i++) {
            free((char *)meta[i].key);
            free(owned[i]);
        }
        return usage_rc;
    }
    fl_error err = {0};
    char *schema = NULL, *records = NULL;
    size_t slen, rlen;
    fl_status rc = slurp(pos[0], &schema, &slen, &err);
    /* the schema is stored as given, minus the file's trailing newline(s) */
    while (!rc && slen && (schema[slen - 1] == '\n' || schema[slen - 1] == '\r'))
        schema[--slen] = 0;
    if (!rc)
        rc = slurp(pos[1], &records, &rlen, &err);
    write_target target = {0};
    fl_avro_writer *w = NULL;
    if (!rc)
        rc = target_open(pos[2], &target, &err);
    if (!rc && (rc = fl_avro_writer_open(target.out, schema, slen, &opt, &w, &err))) /* owns out */
        fl_error_prefix(&err, "%s", pos[0]);
    fl_arena a;
    fl_arena_init(&a, 0);
    size_t lineno = 0;
    for (char *p = records; !rc && p && *p;) {
        char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        lineno++;
        size_t k = 0;
        while (k < n && (p[k] == ' ' || p[k] == '\t' || p[k] == '\r'))
            k++;
        if (k < n) {
            fl_avro_value v;
            fl_arena_reset(&a);
            rc = fl_avro_value_from_json(&a, fl_avro_writer_schema(w), p, n, &v, &err);
            if (!rc)
                rc = fl_avro_writer_append(w, &v, &err);
            if (rc)
                fl_error_prefix(&err, "%s line %zu", pos[1], lineno);
        }
        p = nl ? nl + 1 : p + n;
    }
    if (w) {
        if (rc)
            fl_avro_writer_abort(w);
        else
            rc = fl_avro_writer_close(w, &err);
    }
    rc = target_close(&target, rc, &err);
    fl_arena_free(&a);
    free(schema);
    free(records);
    for (size_t i = 0; i < opt.nmeta; i++) {
        free((char *)meta[i].key);
        free(owned[i]);
    }
    return rc ? fail(&err) : 0;
}

static int cmd_canonical(const char *path, const cli_args *args)
{
    (void)args;
    fl_error err = {0};
    char *text;
    size_t len;
    if (slurp(path, &text, &len, &err))
        return fail(&err);
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_avro_schema *s;
    fl_status rc = fl_avro_schema_parse(&a, text, len, &s, &err);
    if (!rc) {
        char *c = fl_avro_schema_canonical(&a, s);
        if (c)
            printf("%s\n%" PRId64 "\n", c, (int64_t)fl_avro_crc64(c, strlen(c)));
        else
            rc = fl_errorf(&err, FL_ENOMEM, "out of memory");
    }
    free(text);
    fl_arena_free(&a);
    return rc ? fail(&err) : 0;
}

/* ---- the dispatcher ---- */

typedef struct avro_sub {
    const cli_command *cmd;
    int (*run)(const char *path, const cli_args *a); /* path: the first argument */
    bool reads_container;                            /* a FILE `-` is spooled first */
} avro_sub;

static const avro_sub subs[] = {
    {&schema_cmd, cmd_schema, true},
    {&meta_cmd, cmd_meta, true},
    {&cat_cmd, cmd_cat, true},
    {&write_cmd, cmd_write, false},
    {&canonical_cmd, cmd_canonical, false},
};

/* Runs sub on its parsed arguments; a container FILE `-` is stdin spooled
 * to a file (the reader seeks between blocks). */
static int run_sub(const avro_sub *sub, const cli_args *a)
{
    const char *path = a->pos[0];
    char *spooled = NULL;
    if (sub->reads_container && !strcmp(path, "-") && !(path = spooled = cli_stdin_spool("avro")))
        return 1;
    int rc = sub->run(path, a);
    cli_stdin_release(spooled);
    return rc;
}

int fl_cmd_avro(int argc, char **argv)
{
    if (argc < 2)
        return usage(stderr);
    const char *name = argv[1];
    if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help"))
        return usage(stdout);
    if (name[0] == '-') {
        cli_unknown_option("avro", name);
        return usage(stderr);
    }
    for (size_t i = 0; i < sizeof subs / sizeof subs[0]; i++) {
        if (strcmp(subs[i].cmd->name + strlen("avro "), name))
            continue;
        cli_args a;
        int rc;
        if (!cli_parse(subs[i].cmd, argc - 1, argv + 1, &a, &rc))
            return rc;
        rc = run_sub(&subs[i], &a);
        cli_args_free(&a);
        return rc;
    }
    fprintf(stderr, "floe avro: unknown subcommand '%s'\n", name);
    return usage(stderr);
}
