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
 *   floe avro cat FILE [--format=jsonl|csv|table] [--limit N] [--logical] [--reader-schema=F.json]
 *       records. JSON conventions: longs are exact JSON integers (never
 *       strings); bytes/fixed are {"$bytes":"<hex>"} (csv/table: hex text);
 *       logical types are shown as their physical value by default (date =
 *       int days, timestamp = int, decimal = its two's-complement bytes, uuid
 *       = the string), decoded with --logical (see FL_AVRO_JSON_LOGICAL:
 *       "2024-01-31", "...T12:00:00.000000Z", "-12.50", uuid text); unions
 *       are the bare branch value; NaN/Infinity as strings.
 *       --reader-schema resolves each record to that schema (field-id aware).
 *   floe avro write SCHEMA.json RECORDS.jsonl OUT [--codec=C] [--meta K=V]...
 *                   [--meta-file K=FILE]... [--sync=HEX32] [--block-size=N]
 *       (for tests and interop) writes a container: the schema text stored
 *       verbatim, records given as JSON lines in the `cat` format.
 *   floe avro canonical SCHEMA.json
 *       Parsing Canonical Form and fingerprint (signed decimal, as in the
 *       Avro test suite) of a schema file.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/stdin_file.h"
#include "cli/output.h"
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

static int usage(FILE *out)
{
    fprintf(out, "usage: floe avro schema FILE [--canonical] [--fingerprint]\n"
                 "       floe avro meta FILE [--json] [--blocks]\n"
                 "       floe avro cat FILE [--format=jsonl|csv|table] [--limit N] [--logical] "
                 "[--reader-schema=F]\n"
                 "       floe avro write SCHEMA.json RECORDS.jsonl OUT "
                 "[--codec=null|deflate|snappy|zstandard|bzip2]\n"
                 "                       [--meta KEY=VALUE]... [--meta-file KEY=FILE]... "
                 "[--sync=HEX32] [--block-size=N]\n"
                 "       floe avro canonical SCHEMA.json\n");
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

/* Reads a whole local file (malloc'd, NUL-terminated). */
static fl_status slurp(const char *path, char **out, size_t *len, fl_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return fl_errorf(err, FL_ENOTFOUND, "%s: cannot open", path);
    fl_avro_buf b = {0};
    char tmp[65536];
    size_t n;
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
        if (fl_avro_buf_append(&b, tmp, n, err) != FL_OK) {
            fclose(f);
            fl_avro_buf_free(&b);
            return err->code;
        }
    int bad = ferror(f);
    fclose(f);
    if (bad || fl_avro_buf_append(&b, "", 1, err) != FL_OK) {
        fl_avro_buf_free(&b);
        return fl_errorf(err, FL_EIO, "%s: read error", path);
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

static int cmd_schema(int argc, char **argv)
{
    const char *path = NULL;
    bool canonical = false, fingerprint = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--canonical"))
            canonical = true;
        else if (!strcmp(argv[i], "--fingerprint"))
            fingerprint = true;
        else if (argv[i][0] == '-')
            return cli_unknown_option(argv[0][0] == 's' ? "avro schema" : "avro meta", argv[i]);
        else if (path)
            return usage(stderr);
        else
            path = argv[i];
    }
    if (!path)
        return usage(stderr);
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

static int cmd_meta(int argc, char **argv)
{
    const char *path = NULL;
    bool json = false, all_blocks = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            json = true;
        else if (!strcmp(argv[i], "--blocks"))
            all_blocks = true;
        else if (argv[i][0] == '-')
            return cli_unknown_option(argv[0][0] == 's' ? "avro schema" : "avro meta", argv[i]);
        else if (path)
            return usage(stderr);
        else
            path = argv[i];
    }
    if (!path)
        return usage(stderr);
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

static int cmd_cat(int argc, char **argv)
{
    const char *path = NULL, *reader_schema = NULL;
    cat_fmt fmt = FMT_JSONL;
    long long limit = -1;
    unsigned flags = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--format=jsonl") || !strcmp(a, "--format=json"))
            fmt = FMT_JSONL;
        else if (!strcmp(a, "--format=csv"))
            fmt = FMT_CSV;
        else if (!strcmp(a, "--format=table"))
            fmt = FMT_TABLE;
        else if (!strncmp(a, "--limit=", 8))
            limit = atoll(a + 8);
        else if (!strcmp(a, "--limit") && i + 1 < argc)
            limit = atoll(argv[++i]);
        else if (!strcmp(a, "--logical"))
            flags = FL_AVRO_JSON_LOGICAL;
        else if (!strncmp(a, "--reader-schema=", 16))
            reader_schema = a + 16;
        else if (a[0] == '-')
            return cli_unknown_option("avro cat", a);
        else if (path)
            return usage(stderr);
        else
            path = a;
    }
    if (!path)
        return usage(stderr);
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

static int cmd_write(int argc, char **argv)
{
    const char *pos[3];
    int npos = 0;
    fl_avro_writer_options opt = {0};
    fl_avro_meta meta[64];
    char *owned[64] = {0}; /* --meta-file contents */
    uint8_t sync[16];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strncmp(a, "--codec=", 8))
            opt.codec = a + 8;
        else if (!strncmp(a, "--block-size=", 13))
            opt.block_size = (size_t)atoll(a + 13);
        else if (!strncmp(a, "--level=", 8))
            opt.level = atoi(a + 8);
        else if (!strncmp(a, "--sync=", 7)) {
            if (strlen(a + 7) != 32) {
                fprintf(stderr, "floe avro: --sync needs 32 hex digits\n");
                return 2;
            }
            for (int k = 0; k < 16; k++) {
                int hi = hexnib(a[7 + 2 * k]), lo = hexnib(a[8 + 2 * k]);
                if (hi < 0 || lo < 0) {
                    fprintf(stderr, "floe avro: --sync needs 32 hex digits\n");
                    return 2;
                }
                sync[k] = (uint8_t)(hi << 4 | lo);
            }
            opt.sync = sync;
        } else if (!strcmp(a, "--meta-file") && i + 1 < argc) {
            const char *kv = argv[++i];
            const char *eq = strchr(kv, '=');
            char *text = NULL;
            size_t tl = 0;
            fl_error e = {0};
            if (!eq || opt.nmeta == sizeof meta / sizeof meta[0] || slurp(eq + 1, &text, &tl, &e)) {
                fprintf(stderr,
                        "floe avro: --meta-file needs KEY=FILE (at most 64 metadata entries)%s%s\n",
                        e.code ? ": " : "", e.msg);
                return 2;
            }
            meta[opt.nmeta].key = strndup(kv, (size_t)(eq - kv));
            meta[opt.nmeta].value = (const uint8_t *)text;
            meta[opt.nmeta].len = tl;
            owned[opt.nmeta] = text;
            opt.nmeta++;
        } else if ((!strcmp(a, "--meta") && i + 1 < argc) || !strncmp(a, "--meta=", 7)) {
            const char *kv = a[6] == '=' ? a + 7 : argv[++i];
            const char *eq = strchr(kv, '=');
            if (!eq || opt.nmeta == sizeof meta / sizeof meta[0]) {
                fprintf(stderr, "floe avro: --meta needs KEY=VALUE (at most 64)\n");
                return 2;
            }
            meta[opt.nmeta].key = strndup(kv, (size_t)(eq - kv));
            meta[opt.nmeta].value = (const uint8_t *)(eq + 1);
            meta[opt.nmeta].len = strlen(eq + 1);
            opt.nmeta++;
        } else if (a[0] == '-')
            return cli_unknown_option("avro write", a);
        else if (npos == 3)
            return usage(stderr);
        else
            pos[npos++] = a;
    }
    if (npos != 3)
        return usage(stderr);
    opt.meta = meta;
    fl_error err = {0};
    char *schema = NULL, *records = NULL;
    size_t slen, rlen;
    fl_status rc = slurp(pos[0], &schema, &slen, &err);
    /* the schema is stored as given, minus the file's trailing newline(s) */
    while (!rc && slen && (schema[slen - 1] == '\n' || schema[slen - 1] == '\r'))
        schema[--slen] = 0;
    if (!rc)
        rc = slurp(pos[1], &records, &rlen, &err);
    fl_fileio *io = rc ? NULL : cli_fileio();
    fl_output *out = NULL;
    fl_avro_writer *w = NULL;
    if (!rc && !io)
        rc = fl_errorf(&err, FL_ENOMEM, "out of memory");
    if (!rc)
        rc = fl_fileio_create(io, pos[2], FL_CREATE_OVERWRITE, &out, &err);
    if (!rc && (rc = fl_avro_writer_open(out, schema, slen, &opt, &w, &err)))
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
    fl_arena_free(&a);
    fl_fileio_destroy(io);
    free(schema);
    free(records);
    for (size_t i = 0; i < opt.nmeta; i++) {
        free((char *)meta[i].key);
        free(owned[i]);
    }
    return rc ? fail(&err) : 0;
}

static int cmd_canonical(int argc, char **argv)
{
    if (argc == 2 && argv[1][0] == '-')
        return cli_unknown_option("avro canonical", argv[1]);
    if (argc != 2)
        return usage(stderr);
    fl_error err = {0};
    char *text;
    size_t len;
    if (slurp(argv[1], &text, &len, &err))
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

int fl_cmd_avro(int argc, char **argv)
{
    if (argc < 2)
        return usage(stderr);
    const char *sub = argv[1];
    if (!strcmp(sub, "--help") || !strcmp(sub, "-h") || !strcmp(sub, "help"))
        return usage(stdout);
    if (sub[0] == '-') {
        cli_unknown_option("avro", sub);
        return usage(stderr);
    }
    if (cli_help_requested(argc - 1, argv + 1))
        return usage(stdout);
    if (!strcmp(sub, "schema") || !strcmp(sub, "meta") || !strcmp(sub, "cat")) {
        char *spooled; /* FILE `-` is stdin, spooled: the reader seeks between blocks */
        int got = cli_stdin_arg(argc, argv, 2, "avro", &spooled);
        if (got < 0)
            return 1;
        if (got) {
            int rc = fl_cmd_avro(argc, argv);
            cli_stdin_release(spooled);
            return rc;
        }
    }
    if (!strcmp(sub, "schema"))
        return cmd_schema(argc - 1, argv + 1);
    if (!strcmp(sub, "meta"))
        return cmd_meta(argc - 1, argv + 1);
    if (!strcmp(sub, "cat"))
        return cmd_cat(argc - 1, argv + 1);
    if (!strcmp(sub, "write"))
        return cmd_write(argc - 1, argv + 1);
    if (!strcmp(sub, "canonical"))
        return cmd_canonical(argc - 1, argv + 1);
    fprintf(stderr, "floe avro: unknown subcommand '%s'\n", sub);
    return usage(stderr);
}
