/*
 * cmd_sql_print.c - the result printers of `floe sql` (formats in cmd_sql.h):
 * psql-style aligned tables (and \x expanded records), CSV, JSON, JSON lines
 * and Parquet files.
 *
 * The table printer keeps the text of the first FL_SQLOUT_BUFFER_ROWS rows
 * (cells in an arena) to size the columns, prints them, then streams the
 * remaining rows with the same widths. Every other format streams batch by
 * batch. Cell text is fl_sql_format_value() on the unified base vector, so
 * DICT and CONSTANT vectors print like FLAT ones.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/cmd_sql.h"
#include "cli/output.h"
#include "floe/arena.h"
#include "floe/parquet.h"

bool fl_sqlout_format_parse(const char *s, fl_sqlout_format *out)
{
    static const struct {
        const char *name;
        fl_sqlout_format f;
    } names[] = {{"table", FL_SQLOUT_TABLE},    {"aligned", FL_SQLOUT_TABLE},
                 {"csv", FL_SQLOUT_CSV},        {"json", FL_SQLOUT_JSON},
                 {"jsonl", FL_SQLOUT_JSONL},    {"ndjson", FL_SQLOUT_JSONL},
                 {"parquet", FL_SQLOUT_PARQUET},  {"unaligned", FL_SQLOUT_UNALIGNED}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcasecmp(s, names[i].name)) {
            *out = names[i].f;
            return true;
        }
    return false;
}

const char *fl_sqlout_format_name(fl_sqlout_format f)
{
    switch (f) {
    case FL_SQLOUT_TABLE: return "table";
    case FL_SQLOUT_CSV: return "csv";
    case FL_SQLOUT_JSON: return "json";
    case FL_SQLOUT_JSONL: return "jsonl";
    case FL_SQLOUT_PARQUET: return "parquet";
    case FL_SQLOUT_UNALIGNED: return "unaligned";
    }
    return "?";
}

const char *fl_sqlout_type_name(const fl_type *t, char *buf, size_t cap)
{
    const char *n = NULL;
    switch (t->id) {
    case FL_TYPE_BOOLEAN: n = "boolean"; break;
    case FL_TYPE_INT32: n = "integer"; break;
    case FL_TYPE_INT64: n = "bigint"; break;
    case FL_TYPE_FLOAT32: n = "real"; break;
    case FL_TYPE_FLOAT64: n = "double precision"; break;
    case FL_TYPE_DECIMAL:
        snprintf(buf, cap, "decimal(%d,%d)", (int)t->precision, (int)t->scale);
        return buf;
    case FL_TYPE_DATE: n = "date"; break;
    case FL_TYPE_TIME: n = "time"; break;
    case FL_TYPE_TIMESTAMP: n = "timestamp"; break;
    case FL_TYPE_TIMESTAMPTZ: n = "timestamp with time zone"; break;
    case FL_TYPE_TIMESTAMP_NS: n = "timestamp(9)"; break;
    case FL_TYPE_TIMESTAMPTZ_NS: n = "timestamp(9) with time zone"; break;
    case FL_TYPE_STRING: n = "varchar"; break;
    case FL_TYPE_UUID: n = "uuid"; break;
    case FL_TYPE_FIXED: snprintf(buf, cap, "fixed(%d)", (int)t->fixed_len); return buf;
    case FL_TYPE_BINARY: n = "bytea"; break;
    default: fl_type_format(t, buf, cap); return buf;
    }
    snprintf(buf, cap, "%s", n);
    return buf;
}

static bool is_numeric(const fl_type *t)
{
    return t->id == FL_TYPE_INT32 || t->id == FL_TYPE_INT64 || t->id == FL_TYPE_FLOAT32 ||
           t->id == FL_TYPE_FLOAT64 || t->id == FL_TYPE_DECIMAL;
}

/* ---- one cell's text ---- */

typedef struct cellbuf {
    char *buf;
    size_t cap;
} cellbuf;

/* Text of row i of v into cb: *out is NULL for a null value. */
static fl_status cell_text(cellbuf *cb, const fl_vector *v, uint32_t i, const char *tz,
                           const char **out, size_t *len, fl_error *err)
{
    fl_unified u;
    fl_vector_unify(v, &u);
    *out = NULL;
    *len = 0;
    if (!fl_unified_is_valid(&u, i))
        return FL_OK;
    uint32_t r = fl_unified_row(&u, i);
    for (;;) {
        size_t need = fl_sql_format_value(u.base, r, tz, cb->buf, cb->cap);
        if (cb->buf && need < cb->cap) {
            *len = need;
            *out = cb->buf;
            return FL_OK;
        }
        size_t nc = need + 64;
        char *nb = realloc(cb->buf, nc);
        if (!nb)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        cb->buf = nb;
        cb->cap = nc;
    }
}

/* Display width: UTF-8 code points (continuation bytes do not count). */
static size_t text_width(const char *s, size_t n)
{
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            w++;
    return w;
}

static void pad(FILE *f, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fputc(' ', f);
}

/* ---- aligned table ---- */

typedef struct tprinter {
    const fl_sqlout *o;
    const fl_schema *schema;
    uint32_t ncols;
    size_t *width;
    bool *right;
    fl_arena arena; /* buffered cells */
    char ***rows;   /* buffered rows: ncols cells each (NULL = null) */
    uint32_t nrows, rows_cap;
    bool flushed; /* widths fixed, header printed */
    uint64_t printed;
} tprinter;

static void table_rule_row(tprinter *t, FILE *f)
{
    for (uint32_t c = 0; c < t->ncols; c++) {
        if (c)
            fputc('+', f);
        for (size_t i = 0; i < t->width[c] + 2; i++)
            fputc('-', f);
    }
    fputc('\n', f);
}

static void table_line(tprinter *t, FILE *f, char **cells, bool header)
{
    for (uint32_t c = 0; c < t->ncols; c++) {
        const char *s = cells[c] ? cells[c] : "NULL";
        size_t w = text_width(s, strlen(s));
        size_t gap = t->width[c] > w ? t->width[c] - w : 0;
        bool last = c + 1 == t->ncols;
        fputs(c ? "| " : " ", f);
        if (header) { /* centered, as psql */
            pad(f, gap / 2);
            fputs(s, f);
            if (!last)
                pad(f, gap - gap / 2);
        } else if (t->right[c]) {
            pad(f, gap);
            fputs(s, f);
        } else {
            fputs(s, f);
            if (!last)
                pad(f, gap);
        }
        if (!last)
            fputc(' ', f);
    }
    fputc('\n', f);
}

static void expanded_row(tprinter *t, FILE *f, char **cells)
{
    size_t namew = 0;
    for (uint32_t c = 0; c < t->ncols; c++) {
        size_t w = text_width(t->schema->fields[c].name, strlen(t->schema->fields[c].name));
        if (w > namew)
            namew = w;
    }
    t->printed++;
    fprintf(f, "-[ RECORD %" PRIu64 " ]", t->printed);
    for (size_t i = 0; i < namew + 3; i++)
        fputc('-', f);
    fputc('\n', f);
    for (uint32_t c = 0; c < t->ncols; c++) {
        const char *n = t->schema->fields[c].name;
        fputs(n, f);
        pad(f, namew - text_width(n, strlen(n)));
        fprintf(f, " | %s\n", cells[c] ? cells[c] : "NULL");
    }
}

static void table_flush(tprinter *t)
{
    FILE *f = t->o->out;
    if (!t->flushed && !t->o->expanded) {
        for (uint32_t r = 0; r < t->nrows; r++)
            for (uint32_t c = 0; c < t->ncols; c++) {
                const char *s = t->rows[r][c] ? t->rows[r][c] : "NULL";
                size_t w = text_width(s, strlen(s));
                if (w > t->width[c])
                    t->width[c] = w;
            }
        if (t->o->header && !t->o->tuples_only) {
            char **names = fl_arena_calloc(&t->arena, t->ncols + 1, sizeof *names);
            for (uint32_t c = 0; names && c < t->ncols; c++)
                names[c] = (char *)t->schema->fields[c].name;
            if (names) {
                table_line(t, f, names, true);
                table_rule_row(t, f);
            }
        }
    }
    t->flushed = true;
    for (uint32_t r = 0; r < t->nrows; r++) {
        if (t->o->expanded)
            expanded_row(t, f, t->rows[r]);
        else
            table_line(t, f, t->rows[r], false);
    }
    t->nrows = 0;
    fl_arena_reset(&t->arena);
}

/* Row k of b's live rows (its selection applied). */
static uint32_t live_row(const fl_batch *b, uint32_t k)
{
    return b->sel ? b->sel->idx[k] : k;
}

static fl_status table_add(tprinter *t, const fl_batch *b, uint32_t nrows, cellbuf *cb,
                           fl_error *err)
{
    for (uint32_t k = 0; k < nrows; k++) {
        uint32_t i = live_row(b, k);
        if (t->nrows == t->rows_cap) {
            uint32_t nc = t->rows_cap ? t->rows_cap * 2 : 64;
            char ***nr = realloc(t->rows, nc * sizeof *nr);
            if (!nr)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            t->rows = nr;
            t->rows_cap = nc;
        }
        char **cells = fl_arena_calloc(&t->arena, t->ncols + 1, sizeof *cells);
        if (!cells)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (uint32_t c = 0; c < t->ncols; c++) {
            size_t len = 0;
            const char *s = NULL;
            FL_TRY(cell_text(cb, &b->cols[c], i, t->o->tz, &s, &len, err));
            if (s) {
                cells[c] = fl_arena_strndup(&t->arena, s, len);
                if (!cells[c])
                    return fl_errorf(err, FL_ENOMEM, "out of memory");
            }
        }
        t->rows[t->nrows++] = cells;
        if (t->flushed || t->nrows >= FL_SQLOUT_BUFFER_ROWS)
            table_flush(t);
    }
    return FL_OK;
}

/* ---- CSV / JSON ---- */

static void csv_field(FILE *f, const char *s, size_t n)
{
    bool quote = n == 0;
    for (size_t i = 0; i < n && !quote; i++)
        quote = s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n';
    if (!quote) {
        fwrite(s, 1, n, f);
        return;
    }
    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"')
            fputc('"', f);
        fputc(s[i], f);
    }
    fputc('"', f);
}

static fl_status json_value(fl_buf *sb, const fl_vector *v, uint32_t i, cellbuf *cb, const char *tz,
                            fl_error *err)
{
    size_t len = 0;
    const fl_type *t = v->type;
    if (fl_type_is_nested(t) || fl_type_is_variant(t)) { /* the engine's JSON, as to_json and /v1/sql */
        for (;;) {
            size_t need = fl_sql_format_json(v, i, tz, cb->buf, cb->cap);
            if (cb->buf && need < cb->cap)
                return fl_buf_append(sb, cb->buf, need, err);
            char *nb = realloc(cb->buf, need + 64);
            if (!nb)
                return fl_errorf(err, FL_ENOMEM, "out of memory");
            cb->buf = nb;
            cb->cap = need + 64;
        }
    }
    const char *s = NULL;
    FL_TRY(cell_text(cb, v, i, tz, &s, &len, err));
    if (!s)
        return fl_buf_puts(sb, "null", err);
    if (t->id == FL_TYPE_BOOLEAN)
        return fl_buf_puts(sb, (s[0] == 't' || s[0] == 'T') ? "true" : "false", err);
    if (is_numeric(t) && len > 0 && strspn(s, "-+.0123456789eE") == len && s[len - 1] != '.')
        return fl_buf_append(sb, s, len, err);
    return fl_json_string(sb, (const uint8_t *)s, len, err);
}

static fl_status json_row(fl_buf *sb, const fl_batch *b, uint32_t i, cellbuf *cb, const char *tz,
                          fl_error *err)
{
    FL_TRY(fl_buf_puts(sb, "{", err));
    for (uint32_t c = 0; c < b->ncols; c++) {
        if (c)
            FL_TRY(fl_buf_puts(sb, ",", err));
        const char *n = b->schema->fields[c].name;
        FL_TRY(fl_json_string(sb, (const uint8_t *)n, strlen(n), err));
        FL_TRY(fl_buf_puts(sb, ":", err));
        FL_TRY(json_value(sb, &b->cols[c], i, cb, tz, err));
    }
    return fl_buf_puts(sb, "}", err);
}

/* The source's next batch, then o's before_output hook (a fetch is where a
 * statement's work happens and ends; printing comes after). */
static fl_status next_batch(const fl_sqlout *o, const fl_sqlout_source *src, const fl_batch **b,
                            bool *eof, fl_error *err)
{
    fl_status rc = src->next(src->ctx, b, eof, err);
    if (o->before_output)
        o->before_output(o->before_output_ctx);
    return rc;
}

/* ---- Parquet ---- */

static fl_status print_parquet(const fl_sqlout *o, const fl_sqlout_source *src,
                               const fl_schema *schema, uint64_t *rows, fl_error *err)
{
    if (!o->path)
        return fl_errorf(err, FL_EINVAL, "parquet output needs a file (-o FILE or \\o FILE)");
    fl_output *out = NULL;
    fl_parquet_writer *w = NULL;
    uint8_t *mem = NULL; /* path "-": the file in memory, to o->out once complete */
    size_t mem_len = 0;
    if (!strcmp(o->path, "-"))
        FL_TRY(fl_output_memory("stdout", &mem, &mem_len, &out, err));
    else
        FL_TRY(fl_fileio_create(o->io, o->path, FL_CREATE_OVERWRITE, &out, err));
    fl_parquet_write_options opt = {0};
    fl_status rc = fl_parquet_writer_open(out, schema, &opt, &w, err);
    while (rc == FL_OK) {
        const fl_batch *b = NULL;
        bool eof = false;
        rc = next_batch(o, src, &b, &eof, err);
        if (rc != FL_OK || eof)
            break;
        rc = fl_parquet_writer_write(w, b, err);
        *rows += fl_batch_live_rows(b);
    }
    if (rc == FL_OK) {
        fl_parquet_writer *wc = w;
        w = NULL;
        rc = fl_parquet_writer_close(wc, NULL, err);
    }
    fl_parquet_writer_abort(w);
    if (rc == FL_OK) {
        rc = fl_output_close(out, err);
        out = NULL;
    }
    if (rc == FL_OK && mem && (fwrite(mem, 1, mem_len, o->out) != mem_len || fflush(o->out) != 0))
        rc = fl_errorf(err, FL_EIO, "stdout: write error");
    fl_output_abort(out);
    free(mem);
    return rc;
}

/* ---- driver ---- */

static fl_status print_rows(const fl_sqlout *o, const fl_sqlout_source *src,
                            const fl_schema *schema, tprinter *t, cellbuf *cb, fl_buf *sb,
                            uint64_t *rows, fl_error *err)
{
    FILE *f = o->out;
    const char *sep = o->fieldsep ? o->fieldsep : "|";
    bool unaligned = o->format == FL_SQLOUT_UNALIGNED;
    if (unaligned && o->header && !o->tuples_only) {
        for (uint32_t c = 0; c < schema->nfields; c++)
            fprintf(f, "%s%s", c ? sep : "", schema->fields[c].name);
        fputc('\n', f);
    }
    if (o->format == FL_SQLOUT_CSV && o->header) {
        for (uint32_t c = 0; c < schema->nfields; c++) {
            if (c)
                fputc(',', f);
            csv_field(f, schema->fields[c].name, strlen(schema->fields[c].name));
        }
        fputc('\n', f);
    }
    if (o->format == FL_SQLOUT_JSON)
        fputc('[', f);
    uint64_t left = src->limit;
    while (!src->has_limit || left > 0) {
        const fl_batch *b = NULL;
        bool eof = false;
        FL_TRY(next_batch(o, src, &b, &eof, err));
        if (eof)
            break;
        uint32_t nrows = fl_batch_live_rows(b);
        if (src->has_limit && nrows > left)
            nrows = (uint32_t)left;
        left -= nrows;
        if (o->format == FL_SQLOUT_TABLE) {
            FL_TRY(table_add(t, b, nrows, cb, err));
            *rows += nrows;
            continue;
        }
        for (uint32_t k = 0; k < nrows; k++, (*rows)++) {
            uint32_t i = live_row(b, k);
            if (unaligned) { /* NULL prints as nothing, as psql's default \pset null */
                for (uint32_t c = 0; c < b->ncols; c++) {
                    size_t len = 0;
                    const char *s = NULL;
                    FL_TRY(cell_text(cb, &b->cols[c], i, o->tz, &s, &len, err));
                    if (c)
                        fputs(sep, f);
                    if (s)
                        fwrite(s, 1, len, f);
                }
                fputc('\n', f);
                continue;
            }
            if (o->format == FL_SQLOUT_CSV) {
                for (uint32_t c = 0; c < b->ncols; c++) {
                    size_t len = 0;
                    const char *s = NULL;
                    FL_TRY(cell_text(cb, &b->cols[c], i, o->tz, &s, &len, err));
                    if (c)
                        fputc(',', f);
                    if (s)
                        csv_field(f, s, len);
                }
                fputc('\n', f);
                continue;
            }
            fl_buf_reset(sb);
            FL_TRY(json_row(sb, b, i, cb, o->tz, err));
            if (o->format == FL_SQLOUT_JSON)
                fputs(*rows ? ",\n" : "\n", f);
            fwrite(sb->data, 1, sb->len, f);
            if (o->format == FL_SQLOUT_JSONL)
                fputc('\n', f);
        }
    }
    if (o->format == FL_SQLOUT_JSON)
        fputs(*rows ? "\n]\n" : "]\n", f);
    if (unaligned && !o->tuples_only)
        fprintf(f, "(%" PRIu64 " row%s)\n", *rows, *rows == 1 ? "" : "s");
    if (o->format == FL_SQLOUT_TABLE) {
        table_flush(t);
        if (o->tuples_only)
            ;
        else if (!o->expanded)
            fprintf(f, "(%" PRIu64 " row%s)\n", *rows, *rows == 1 ? "" : "s");
        else if (*rows == 0)
            fputs("(0 rows)\n", f);
    }
    return FL_OK;
}

static fl_status result_next(void *ctx, const fl_batch **b, bool *eof, fl_error *err)
{
    return fl_sql_result_next(ctx, b, eof, err);
}

fl_status fl_sqlout_result(const fl_sqlout *o, fl_sql_result *r, uint64_t *rows, fl_error *err)
{
    *rows = 0;
    const fl_schema *schema = fl_sql_result_schema(r);
    fl_sqlout_source src = {result_next, r, false, 0};
    if (!schema || schema->nfields == 0) {
        /* a command: drain (DDL/DML complete inside execute) */
        for (;;) {
            const fl_batch *b = NULL;
            bool eof = false;
            FL_TRY(next_batch(o, &src, &b, &eof, err));
            if (eof)
                return FL_OK;
        }
    }
    return fl_sqlout_batches(o, schema, &src, rows, err);
}

fl_status fl_sqlout_batches(const fl_sqlout *o, const fl_schema *schema,
                            const fl_sqlout_source *src, uint64_t *rows, fl_error *err)
{
    *rows = 0;
    if (o->format == FL_SQLOUT_PARQUET)
        return print_parquet(o, src, schema, rows, err);
    tprinter t = {.o = o, .schema = schema, .ncols = schema->nfields};
    fl_arena_init(&t.arena, 0);
    cellbuf cb = {0};
    fl_buf sb = {0};
    fl_status rc = FL_OK;
    t.width = calloc(schema->nfields + 1, sizeof *t.width);
    t.right = calloc(schema->nfields + 1, sizeof *t.right);
    if (!t.width || !t.right)
        rc = fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t c = 0; rc == FL_OK && c < schema->nfields; c++) {
        t.width[c] = text_width(schema->fields[c].name, strlen(schema->fields[c].name));
        t.right[c] = is_numeric(&schema->fields[c].type);
    }
    if (rc == FL_OK)
        rc = print_rows(o, src, schema, &t, &cb, &sb, rows, err);
    free(t.width);
    free(t.right);
    free(t.rows);
    fl_arena_free(&t.arena);
    free(cb.buf);
    fl_buf_free(&sb);
    fflush(o->out);
    return rc;
}
