/*
 * csv.c - CSV row source (format rules in include/floe/text.h); used by
 * `floe load`/`floe convert` and the SQL engine's read_csv scans.
 *
 * The file is read through FileIO (text/input.h: 1 MiB ranged reads, so S3
 * and the fault-injecting FileIO serve it too) and split into records by a small
 * state machine (unquoted / quoted / quote-seen), so quoted fields may hold
 * delimiters, doubled quotes and newlines. One record's field bytes are kept
 * in one growable buffer with start offsets per field.
 *
 * Inference reads the first FL_INFER_ROWS records into memory, decides each
 * column's type, and then replays them before streaming the rest.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/buf.h"
#include "floe/text.h"
#include "text/input.h"

typedef struct csv_record {
    char *bytes;     /* all field bytes, each field NUL-terminated */
    size_t *starts;  /* nfields + 1 offsets into bytes (end = start of next - 1) */
    uint8_t *quoted; /* per field */
    uint32_t nfields;
    uint64_t line;
} csv_record;

typedef struct csv_source {
    fl_source base;
    text_input in;
    char *path;
    char delim;
    uint64_t line; /* current line number (1-based) */
    /* the record being read */
    fl_buf field_bytes; /* one record's field bytes (freed on close) */
    size_t *starts;
    uint8_t *quoted;
    uint32_t nfields, fields_cap;
    uint64_t rec_line;
    /* header and schema */
    uint32_t ncols;
    fl_arena arena;
    fl_schema schema;
    /* sampled records replayed before streaming */
    csv_record *sample;
    uint32_t nsample, sample_pos;
} csv_source;

static int csv_getc(csv_source *s)
{
    return text_input_getc(&s->in);
}

static int csv_peek(csv_source *s)
{
    int c = text_input_getc(&s->in);
    if (c != EOF)
        s->in.pos--;
    return c;
}

/* Appends one byte to the current field (the hot path of the reader). */
static inline fl_status push_byte(csv_source *s, int c, fl_error *err)
{
    fl_buf *sb = &s->field_bytes;
    if (sb->len + 2 > sb->cap)
        FL_TRY(fl_buf_reserve(sb, 1, err));
    sb->data[sb->len++] = (char)c;
    return FL_OK;
}

static fl_status end_field(csv_source *s, bool quoted, fl_error *err)
{
    if (s->nfields + 1 >= s->fields_cap) {
        uint32_t ncap = s->fields_cap ? s->fields_cap * 2 : 64;
        if (ncap > 1u << 20)
            return fl_errorf(err, FL_ELIMIT, "%s: line %llu: more than %u fields", s->path,
                             (unsigned long long)s->rec_line, 1u << 20);
        size_t *ns = realloc(s->starts, (ncap + 1) * sizeof *ns);
        if (!ns)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        s->starts = ns;
        uint8_t *nq = realloc(s->quoted, ncap + 1);
        if (!nq)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        s->quoted = nq;
        s->fields_cap = ncap;
    }
    FL_TRY(fl_buf_append(&s->field_bytes, "", 1, err)); /* NUL terminator */
    s->quoted[s->nfields] = quoted;
    s->nfields++;
    s->starts[s->nfields] = s->field_bytes.len;
    return FL_OK;
}

/* Reads one record. *eof when the file has no more records. */
static fl_status parse_record(csv_source *s, bool *eof, fl_error *err)
{
    fl_buf_reset(&s->field_bytes);
    s->nfields = 0;
    if (!s->starts) {
        FL_TRY(end_field(s, false, err)); /* allocates arrays */
        s->nfields = 0;
        fl_buf_reset(&s->field_bytes);
    }
    s->starts[0] = 0;
    *eof = false;
    int c;
    /* skip completely empty lines */
    for (;;) {
        c = csv_peek(s);
        if (c == '\r' || c == '\n') {
            csv_getc(s);
            if (c == '\n')
                s->line++;
            continue;
        }
        break;
    }
    if (c == EOF) {
        *eof = true;
        return FL_OK;
    }
    s->rec_line = s->line;
    bool quoted = false, in_quotes = false;
    for (;;) {
        c = csv_getc(s);
        if (in_quotes) {
            if (c == EOF)
                return fl_errorf(err, FL_ESYNTAX, "%s: line %llu: unterminated quoted field",
                                 s->path, (unsigned long long)s->rec_line);
            if (c == '"') {
                if (csv_peek(s) == '"') {
                    csv_getc(s);
                    FL_TRY(fl_buf_append(&s->field_bytes, "\"", 1, err));
                } else {
                    in_quotes = false;
                }
                continue;
            }
            if (c == '\n')
                s->line++;
            FL_TRY(push_byte(s, c, err));
            continue;
        }
        if (c == EOF || c == '\n' || (c == '\r' && (csv_peek(s) == '\n' || csv_peek(s) == EOF))) {
            if (c == '\r')
                csv_getc(s);
            if (c != EOF)
                s->line++;
            return end_field(s, quoted, err);
        }
        if (c == s->delim) {
            FL_TRY(end_field(s, quoted, err));
            quoted = false;
            continue;
        }
        if (c == '"' && s->field_bytes.len == s->starts[s->nfields] && !quoted) {
            quoted = in_quotes = true;
            continue;
        }
        if (quoted)
            return fl_errorf(err, FL_ESYNTAX, "%s: line %llu: field %u: text after closing quote",
                             s->path, (unsigned long long)s->rec_line, s->nfields + 1);
        FL_TRY(push_byte(s, c, err));
    }
}

/* parse_record, where a failed read (seen by the parser as end of file)
 * wins over whatever the parser made of the truncated input. */
static fl_status read_record(csv_source *s, bool *eof, fl_error *err)
{
    fl_status rc = parse_record(s, eof, err);
    if (s->in.failed)
        return fl_errorf(err, s->in.err.code, "%s", s->in.err.msg);
    return rc;
}

static fl_status save_record(csv_source *s, csv_record *r, fl_error *err)
{
    r->bytes = malloc(s->field_bytes.len + 1);
    r->starts = malloc((s->nfields + 1) * sizeof(size_t));
    r->quoted = malloc(s->nfields + 1);
    if (!r->bytes || !r->starts || !r->quoted)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    memcpy(r->bytes, s->field_bytes.data ? s->field_bytes.data : "", s->field_bytes.len);
    memcpy(r->starts, s->starts, (s->nfields + 1) * sizeof(size_t));
    memcpy(r->quoted, s->quoted, s->nfields);
    r->nfields = s->nfields;
    r->line = s->rec_line;
    return FL_OK;
}

/* ---- inference ---- */

enum { C_BOOL = 1, C_LONG = 2, C_DOUBLE = 4, C_DATE = 8, C_TS = 16, C_TSTZ = 32 };

static unsigned candidates(const char *v, size_t n)
{
    unsigned c = 0;
    bool b;
    int64_t i;
    double d;
    int32_t day;
    bool tz;
    if ((n == 4 || n == 5) && fl_parse_bool(v, n, &b))
        c |= C_BOOL;
    if (fl_parse_int64(v, n, &i))
        c |= C_LONG;
    if (fl_parse_double(v, n, &d))
        c |= C_DOUBLE;
    if (fl_parse_date(v, n, &day))
        c |= C_DATE;
    if (fl_parse_timestamp(v, n, 6, &i, &tz))
        c |= tz ? C_TSTZ : C_TS;
    return c;
}

static fl_type_id pick(unsigned mask, bool any)
{
    if (!any)
        return FL_TYPE_STRING;
    if (mask & C_BOOL)
        return FL_TYPE_BOOLEAN;
    if (mask & C_LONG)
        return FL_TYPE_INT64;
    if (mask & C_DOUBLE)
        return FL_TYPE_FLOAT64;
    if (mask & C_DATE)
        return FL_TYPE_DATE;
    if (mask & C_TS)
        return FL_TYPE_TIMESTAMP;
    if (mask & C_TSTZ)
        return FL_TYPE_TIMESTAMPTZ;
    return FL_TYPE_STRING;
}

static fl_status infer(csv_source *s, csv_record *header, fl_error *err)
{
    unsigned *mask = calloc(s->ncols, sizeof *mask);
    bool *any = calloc(s->ncols, sizeof *any);
    if (!mask || !any) {
        free(mask);
        free(any);
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    for (uint32_t c = 0; c < s->ncols; c++)
        mask[c] = ~0u;
    for (uint32_t r = 0; r < s->nsample; r++) {
        csv_record *rec = &s->sample[r];
        for (uint32_t c = 0; c < s->ncols && c < rec->nfields; c++) {
            size_t n = rec->starts[c + 1] - rec->starts[c] - 1;
            if (n == 0 && !rec->quoted[c])
                continue; /* null */
            any[c] = true;
            if (mask[c])
                mask[c] &= candidates(rec->bytes + rec->starts[c], n);
        }
    }
    for (uint32_t c = 0; c < s->ncols; c++) {
        fl_field *f = &s->schema.fields[c];
        f->type.id = pick(mask[c], any[c]);
    }
    (void)header;
    free(mask);
    free(any);
    return FL_OK;
}

/* ---- source ---- */

static void free_record(csv_record *r)
{
    free(r->bytes);
    free(r->starts);
    free(r->quoted);
}

static void csv_close(fl_source *base)
{
    csv_source *s = (csv_source *)base;
    text_input_close(&s->in);
    for (uint32_t i = 0; i < s->nsample; i++)
        free_record(&s->sample[i]);
    free(s->sample);
    free(s->starts);
    free(s->quoted);
    free(s->path);
    fl_buf_free(&s->field_bytes);
    fl_arena_free(&s->arena);
    free(s);
}

static fl_status append_record(csv_source *s, fl_batch *b, const char *bytes, const size_t *starts,
                               const uint8_t *quoted, uint32_t nfields, uint64_t line,
                               fl_error *err)
{
    if (nfields != s->ncols)
        return fl_errorf(err, FL_ESYNTAX, "%s: line %llu: %u fields, the header has %u", s->path,
                         (unsigned long long)line, nfields, s->ncols);
    for (uint32_t c = 0; c < s->ncols; c++) {
        const char *v = bytes + starts[c];
        size_t n = starts[c + 1] - starts[c] - 1;
        fl_vector *col = &b->cols[c];
        fl_status rc;
        if (n == 0 && !quoted[c])
            rc = fl_vector_append_null(col, err);
        else
            rc = fl_parse_append(col, v, n, err);
        if (rc != FL_OK) {
            fl_error_prefix(err, "%s: line %llu, column '%s'", s->path, (unsigned long long)line,
                            s->schema.fields[c].name);
            return rc;
        }
        if (n == 0 && !quoted[c] && !s->schema.fields[c].nullable)
            return fl_errorf(err, FL_ETYPE, "%s: line %llu, column '%s': null in a required column",
                             s->path, (unsigned long long)line, s->schema.fields[c].name);
    }
    b->nrows++;
    return FL_OK;
}

static fl_status csv_next(fl_source *base, fl_batch *b, bool *eof, fl_error *err)
{
    csv_source *s = (csv_source *)base;
    fl_batch_reset(b);
    *eof = false;
    while (b->nrows < FL_BATCH_CAP) {
        if (s->sample_pos < s->nsample) {
            csv_record *r = &s->sample[s->sample_pos++];
            FL_TRY(append_record(s, b, r->bytes, r->starts, r->quoted, r->nfields, r->line, err));
            free_record(r);
            memset(r, 0, sizeof *r);
            continue;
        }
        bool end;
        FL_TRY(read_record(s, &end, err));
        if (end)
            break;
        FL_TRY(append_record(s, b, s->field_bytes.data, s->starts, s->quoted, s->nfields,
                             s->rec_line, err));
    }
    *eof = b->nrows == 0;
    base->done = text_input_consumed(&s->in);
    base->total = text_input_size(&s->in);
    return FL_OK;
}

static const fl_source_ops csv_ops = {csv_next, csv_close};

fl_status fl_csv_source_open(const char *path, const fl_source_options *opt, fl_source **out,
                             fl_error *err)
{
    csv_source *s = calloc(1, sizeof *s);
    if (!s)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    s->base.ops = &csv_ops;
    s->line = 1;
    fl_arena_init(&s->arena, 0);
    s->path = strdup(path);
    size_t pl = strlen(path);
    s->delim = opt && opt->delimiter                        ? opt->delimiter
               : (pl > 4 && !strcmp(path + pl - 4, ".tsv")) ? '\t'
                                                            : ',';
    fl_status rc = FL_OK;
    if (!s->path) {
        rc = fl_errorf(err, FL_ENOMEM, "out of memory");
        goto fail;
    }
    if ((rc = text_input_open(&s->in, opt ? opt->io : NULL, path, err)) != FL_OK)
        goto fail;
    bool end;
    if (csv_peek(s) == 0xEF) { /* UTF-8 byte order mark */
        int b1 = csv_getc(s), b2 = csv_getc(s), b3 = csv_getc(s);
        if (!(b1 == 0xEF && b2 == 0xBB && b3 == 0xBF)) {
            rc = fl_errorf(err, FL_ESYNTAX, "%s: line 1: invalid UTF-8 at the start", path);
            goto fail;
        }
    }
    if ((rc = read_record(s, &end, err)) != FL_OK)
        goto fail;
    bool no_header = opt && opt->no_header;
    if (end && !(no_header && opt->schema)) {
        rc = fl_errorf(err, FL_ESYNTAX, "%s: empty file (a CSV file needs a header row)", path);
        goto fail;
    }
    s->ncols = end ? opt->schema->nfields : s->nfields;
    if (end)
        no_header = false; /* nothing to replay */
    if (no_header) { /* the first record is data: replay it first */
        s->sample = calloc(FL_INFER_ROWS, sizeof *s->sample);
        if (!s->sample) {
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
            goto fail;
        }
        s->nsample = 1;
        if ((rc = save_record(s, &s->sample[0], err)) != FL_OK)
            goto fail;
    }
    if (opt && opt->schema) {
        if (opt->schema->nfields != s->ncols) {
            rc = fl_errorf(err, FL_EINVAL, "%s: --schema has %u columns, the header has %u", path,
                           opt->schema->nfields, s->ncols);
            goto fail;
        }
        if ((rc = fl_schema_copy(&s->arena, opt->schema, &s->schema)) != FL_OK)
            goto fail;
    } else {
        s->schema.nfields = s->ncols;
        s->schema.fields = fl_arena_calloc(&s->arena, s->ncols, sizeof(fl_field));
        if (!s->schema.fields) {
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
            goto fail;
        }
        for (uint32_t c = 0; c < s->ncols; c++) {
            fl_field *f = &s->schema.fields[c];
            const char *name = no_header ? "" : s->field_bytes.data + s->starts[c];
            if (!*name)
                name = fl_arena_sprintf(&s->arena, "column%u", c + 1);
            f->name = fl_arena_strdup(&s->arena, name);
            f->field_id = (int32_t)c + 1;
            f->nullable = true;
            if (!f->name) {
                rc = fl_errorf(err, FL_ENOMEM, "out of memory");
                goto fail;
            }
            for (uint32_t k = 0; k < c; k++)
                if (!strcmp(s->schema.fields[k].name, f->name)) {
                    rc = fl_errorf(err, FL_EINVAL, "%s: header names column '%s' twice", path,
                                   f->name);
                    goto fail;
                }
        }
        if (!s->sample)
            s->sample = calloc(FL_INFER_ROWS, sizeof *s->sample);
        if (!s->sample) {
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
            goto fail;
        }
        while (s->nsample < FL_INFER_ROWS) {
            if ((rc = read_record(s, &end, err)) != FL_OK)
                goto fail;
            if (end)
                break;
            s->nsample++; /* count it first so a partial copy is freed on failure */
            if ((rc = save_record(s, &s->sample[s->nsample - 1], err)) != FL_OK)
                goto fail;
        }
        if ((rc = infer(s, NULL, err)) != FL_OK)
            goto fail;
    }
    s->base.schema = &s->schema;
    *out = &s->base;
    return FL_OK;
fail:
    csv_close(&s->base);
    return rc;
}
