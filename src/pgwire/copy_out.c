/*
 * copy_out.c - COPY table [(cols)] | (query) TO STDOUT [WITH (FORMAT text|csv,
 * HEADER, DELIMITER 'c', NULL 's', QUOTE 'c')], streamed: CopyOutResponse
 * ('H': int8 0 = text, int16 ncols, int16 0 per column), one CopyData ('d')
 * per row, CopyDone ('c'), CommandComplete "COPY n". Rows are pulled from
 * the engine batch by batch and the output buffer is flushed as it fills.
 *
 * text format: columns separated by the delimiter (tab), NULL as \N,
 * backslash escapes for \ \b \f \n \r \t \v and the delimiter.
 * csv format: delimiter ',', NULL as an unquoted empty field, values quoted
 * when they contain the delimiter, the quote, CR/LF, or are empty.
 * COPY ... FROM STDIN is copy_in.c; COPY to/from server files and
 * programs and the binary COPY format are refused (0A000).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgwire/pgw.h"

typedef struct copy_fmt {
    bool csv, header;
    char delim, quote;
    const char *null;
} copy_fmt;

static void put_text_value(pgw_buf *b, const char *s, size_t n, const copy_fmt *f)
{
    if (f->csv) {
        bool q = n == 0;
        for (size_t i = 0; i < n && !q; i++)
            q = s[i] == f->delim || s[i] == f->quote || s[i] == '\n' || s[i] == '\r';
        if (!q && f->null[0] && strlen(f->null) == n && !memcmp(s, f->null, n))
            q = true;
        if (!q) {
            pgw_buf_put(b, s, n);
            return;
        }
        pgw_buf_put(b, &f->quote, 1);
        for (size_t i = 0; i < n; i++) {
            if (s[i] == f->quote)
                pgw_buf_put(b, &f->quote, 1);
            pgw_buf_put(b, s + i, 1);
        }
        pgw_buf_put(b, &f->quote, 1);
        return;
    }
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        char e = 0, ch = s[i];
        switch (ch) {
        case '\\': e = '\\'; break;
        case '\b': e = 'b'; break;
        case '\f': e = 'f'; break;
        case '\n': e = 'n'; break;
        case '\r': e = 'r'; break;
        case '\t': e = 't'; break;
        case '\v': e = 'v'; break;
        default:
            if (ch == f->delim)
                e = ch;
        }
        if (!e)
            continue;
        pgw_buf_put(b, s + run, i - run);
        char esc[2] = {'\\', e};
        pgw_buf_put(b, esc, 2);
        run = i + 1;
    }
    pgw_buf_put(b, s + run, n - run);
}

static bool stream(pgw_conn *c, fl_sql_result *res, const copy_fmt *f, int64_t *rows)
{
    const fl_schema *sch = fl_sql_result_schema(res);
    pgw_begin(c, 'H');
    pgw_put_u8(c, 0);
    pgw_put_i16(c, (int16_t)sch->nfields);
    for (uint32_t i = 0; i < sch->nfields; i++)
        pgw_put_i16(c, 0);
    pgw_end(c);
    pgw_buf line = {0};
    char *val = malloc(256);
    size_t vcap = 256;
    bool ok = val != NULL;
    if (ok && f->header) {
        for (uint32_t i = 0; i < sch->nfields; i++) {
            if (i)
                pgw_buf_put(&line, &f->delim, 1);
            const char *nm = sch->fields[i].name ? sch->fields[i].name : "?column?";
            put_text_value(&line, nm, strlen(nm), f);
        }
        pgw_buf_put(&line, "\n", 1);
        pgw_begin(c, 'd');
        pgw_put(c, line.p, line.len);
        pgw_end(c);
    }
    pgw_conn_reset_formatter(c);
    while (ok && !c->io_failed) {
        const fl_batch *b = NULL;
        bool eof = false;
        fl_error err = {0};
        fl_status rc = fl_sql_result_next(res, &b, &eof, &err);
        if (rc != FL_OK) {
            pgw_send_sql_error(c, rc, &err);
            ok = false;
            break;
        }
        if (eof || !b)
            break;
        for (uint32_t r = 0; r < b->nrows && ok; r++) {
            line.len = 0;
            for (uint32_t i = 0; i < b->ncols; i++) {
                if (i)
                    pgw_buf_put(&line, &f->delim, 1);
                fl_unified u;
                fl_vector_unify(&b->cols[i], &u);
                if (!fl_unified_is_valid(&u, r)) {
                    pgw_buf_put(&line, f->null, strlen(f->null));
                    continue;
                }
                size_t need = fl_sql_formatter_value(c->fmt, &b->cols[i], r, val, vcap);
                if (need >= vcap) {
                    char *nv = realloc(val, need + 1);
                    if (!nv) {
                        ok = false;
                        break;
                    }
                    val = nv;
                    vcap = need + 1;
                    fl_sql_formatter_value(c->fmt, &b->cols[i], r, val, vcap);
                }
                put_text_value(&line, val, need, f);
            }
            pgw_buf_put(&line, "\n", 1);
            if (line.oom)
                ok = false;
            pgw_begin(c, 'd');
            pgw_put(c, line.p, line.len);
            pgw_end(c);
            (*rows)++;
        }
    }
    if (!val || line.oom)
        pgw_send_error(c, "ERROR", "53200", 0, "out of memory");
    free(val);
    pgw_buf_free(&line);
    if (ok) {
        pgw_begin(c, 'c');
        pgw_end(c);
    }
    return ok;
}

/* The text inside the parentheses of COPY (query) TO ... */
static char *paren_query(const char *sql)
{
    const char *p = strchr(sql, '(');
    if (!p)
        return NULL;
    int depth = 0;
    const char *start = p + 1;
    for (; *p; p++) {
        if (*p == '\'' || *p == '"') {
            char q = *p;
            for (p++; *p && !(*p == q && p[1] != q); p += *p == q ? 2 : 1)
                ;
            if (!*p)
                return NULL;
        } else if (*p == '(') {
            depth++;
        } else if (*p == ')' && --depth == 0) {
            return strndup(start, (size_t)(p - start));
        }
    }
    return NULL;
}

bool pgw_copy_in(pgw_conn *c, const pgw_class *k);

bool pgw_run_copy(pgw_conn *c, const char *sql, const pgw_class *k)
{
    if (k->binary) {
        pgw_send_error(c, "ERROR", "0A000", 0,
                       "COPY to or from a server file or program is not supported; use STDIN "
                       "or STDOUT (psql's \\copy)");
        return false;
    }
    if (k->all) {
        pgw_send_error(c, "ERROR", "0A000", 0, "COPY FORMAT binary is not supported; use text "
                                               "or csv");
        return false;
    }
    if (k->copy_from)
        return pgw_copy_in(c, k);
    char *q;
    if (k->copy_table[0]) {
        size_t n = strlen(k->copy_table) + strlen(k->copy_cols) + 32;
        q = malloc(n);
        if (q)
            snprintf(q, n, "SELECT %s FROM %s", k->copy_cols[0] ? k->copy_cols : "*",
                     k->copy_table);
    } else {
        q = paren_query(sql);
    }
    if (!q) {
        pgw_send_error(c, "ERROR", "42601", 0, "cannot find the query of COPY");
        return false;
    }
    fl_sql_result *res = NULL;
    fl_error err = {0};
    fl_status rc = fl_sql_execute(c->sess, q, &res, &err);
    free(q);
    if (rc != FL_OK) {
        pgw_send_sql_error(c, rc, &err);
        return false;
    }
    copy_fmt f = {.csv = k->copy_csv, .header = k->copy_header, .quote = k->copy_quote};
    f.delim = k->copy_delim ? k->copy_delim : (k->copy_csv ? ',' : '\t');
    f.null = strcmp(k->copy_null, "\x01") ? k->copy_null : (k->copy_csv ? "" : "\\N");
    int64_t rows = 0;
    bool ok = stream(c, res, &f, &rows);
    fl_sql_result_close(res);
    if (ok) {
        char tag[40];
        snprintf(tag, sizeof tag, "COPY %lld", (long long)rows);
        pgw_send_complete(c, tag);
    }
    return ok;
}
