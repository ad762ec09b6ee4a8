/*
 * copy_in.c - COPY table [(cols)] FROM STDIN [WITH (FORMAT text|csv, HEADER,
 * DELIMITER, NULL, QUOTE, ESCAPE)].
 *
 * CopyInResponse ('G': int8 0, int16 ncols, int16 0 each), then the client's
 * CopyData ('d') chunks (rows may span chunks), ended by CopyDone ('c') or
 * CopyFail ('f', 57014). Flush/Sync during COPY are ignored, anything else
 * is 08P01. Rows are parsed as they arrive and spooled to a temporary
 * RFC 4180 CSV file (non-NULL values always quoted, NULL as an empty
 * unquoted field), so memory stays bounded by one field (at most
 * max_message_bytes). At CopyDone the spool is appended in ONE Iceberg
 * commit by the engine's INSERT: INSERT INTO t (cols) SELECT * FROM
 * read_csv(spool, header => HEADER, columns => '<types of the target>'),
 * which converts text to each column's type exactly as `floe load` does.
 * The spool file is removed afterwards.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pgwire/pgw.h"

typedef struct cin {
    bool csv;
    char delim, quote, escape;
    const char *null;
    size_t nulllen;
    FILE *out;
    pgw_buf field;
    bool in_quotes, quoted, esc, field_started, skip_header, at_line_start, end_marker;
    uint32_t nfields_row;
    int64_t rows;
    size_t limit;
    bool too_big;
} cin;

static void end_field(cin *s)
{
    if (s->skip_header) { /* the header line's fields are dropped */
        s->nfields_row++;
        s->field.buf.len = 0;
        s->quoted = false;
        return;
    }
    if (s->nfields_row++)
        fputc(',', s->out);
    bool is_null = !s->quoted && s->field.buf.len == s->nulllen &&
                   (s->nulllen == 0 || !memcmp(s->field.buf.bytes, s->null, s->nulllen));
    if (!s->csv && s->field.buf.len == 2 && !s->quoted && s->field.buf.bytes[0] == '\\' &&
        s->field.buf.bytes[1] == 'N')
        is_null = true;
    if (!is_null) {
        fputc('"', s->out);
        for (size_t i = 0; i < s->field.buf.len; i++) {
            if (s->field.buf.bytes[i] == '"')
                fputc('"', s->out);
            fputc(s->field.buf.bytes[i], s->out);
        }
        fputc('"', s->out);
    }
    s->field.buf.len = 0;
    s->quoted = false;
}

static void end_row(cin *s)
{
    if (s->skip_header) {
        s->skip_header = false;
    } else if (s->nfields_row || s->field.buf.len || s->quoted) {
        end_field(s);
        fputc('\n', s->out);
        s->rows++;
    }
    s->field.buf.len = 0;
    s->quoted = false;
    s->nfields_row = 0;
    s->at_line_start = true;
}

static void add(cin *s, char ch)
{
    if (s->field.buf.len >= s->limit) {
        s->too_big = true;
        return;
    }
    pgw_buf_put(&s->field, &ch, 1);
}

/* text format: backslash escapes; "\N" raw marks NULL (kept raw, see end_field) */
static void feed_text(cin *s, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n && !s->end_marker; i++) {
        char ch = (char)p[i];
        if (s->esc) {
            s->esc = false;
            char o = ch == 'n' ? '\n' : ch == 't' ? '\t' : ch == 'r' ? '\r' : ch == 'b' ? '\b'
                     : ch == 'f' ? '\f' : ch == 'v' ? '\v' : ch;
            if (ch == 'N' && s->field.buf.len == 0) {
                add(s, '\\');
                add(s, 'N');
            } else if (ch == '.' && s->at_line_start && s->field.buf.len == 0 && !s->nfields_row) {
                s->end_marker = true;
            } else {
                add(s, o);
            }
            s->at_line_start = false;
            continue;
        }
        if (ch == '\\') {
            s->esc = true;
            continue;
        }
        if (ch == '\n') {
            end_row(s);
            continue;
        }
        if (ch == '\r')
            continue;
        s->at_line_start = false;
        if (ch == s->delim)
            end_field(s);
        else
            add(s, ch);
    }
}

static void feed_csv(cin *s, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n && !s->end_marker; i++) {
        char ch = (char)p[i];
        if (s->in_quotes) {
            if (s->esc) {
                s->esc = false;
                if (ch == s->quote) {
                    add(s, ch);
                    continue;
                }
                s->in_quotes = false; /* the previous quote closed the field */
            } else if (ch == s->escape && s->escape != s->quote) {
                if (i + 1 < n && (char)p[i + 1] == s->quote) {
                    add(s, s->quote);
                    i++;
                    continue;
                }
            } else if (ch == s->quote) {
                s->esc = true;
                continue;
            } else {
                add(s, ch);
                continue;
            }
            if (s->in_quotes) {
                add(s, ch);
                continue;
            }
        }
        if (ch == s->quote) {
            s->in_quotes = true;
            s->quoted = true;
            s->at_line_start = false;
        } else if (ch == s->delim) {
            end_field(s);
            s->at_line_start = false;
        } else if (ch == '\n') {
            end_row(s);
        } else if (ch == '\r') {
            continue;
        } else {
            if (ch == '\\' && s->at_line_start && i + 1 < n && p[i + 1] == '.') {
                s->end_marker = true;
                break;
            }
            s->at_line_start = false;
            add(s, ch);
        }
    }
}

static const char *type_spec(const fl_type *t, char *buf, size_t cap)
{
    switch (t->id) {
    case FL_TYPE_BOOLEAN: return "boolean";
    case FL_TYPE_INT32: return "int";
    case FL_TYPE_INT64: return "long";
    case FL_TYPE_FLOAT32: return "float";
    case FL_TYPE_FLOAT64: return "double";
    case FL_TYPE_DECIMAL:
        snprintf(buf, cap, "decimal(%d,%d)", t->precision, t->scale);
        return buf;
    case FL_TYPE_DATE: return "date";
    case FL_TYPE_TIME: return "time";
    case FL_TYPE_TIMESTAMP: return "timestamp";
    case FL_TYPE_TIMESTAMPTZ: return "timestamptz";
    case FL_TYPE_TIMESTAMP_NS: return "timestamp_ns";
    case FL_TYPE_TIMESTAMPTZ_NS: return "timestamptz_ns";
    case FL_TYPE_UUID: return "uuid";
    default: return "string";
    }
}

/* name when it is [a-z0-9_]+ (a column spec item), else c<i+1>. */
static void simple_name(const char *name, uint32_t i, char *buf, size_t cap)
{
    bool ok = name && *name && strlen(name) < cap;
    for (const char *p = name; ok && *p; p++)
        ok = (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_';
    if (ok)
        snprintf(buf, cap, "%s", name);
    else
        snprintf(buf, cap, "c%u", i + 1);
}

/* The spool is the wire layer's, not the user's: its path is taken out of
 * the engine's message (it named it twice, as reader and as table function)
 * and the message says "COPY from stdin" instead. Line numbers are the
 * client's (a HEADER line is in the spool too, see pgw_copy_in). */
static void spool_message(fl_error *e, const char *path)
{
    char out[sizeof e->msg];
    size_t o = 0, pl = strlen(path);
    int w = snprintf(out, sizeof out, "COPY from stdin: ");
    o = w > 0 ? (size_t)w : 0;
    for (const char *m = e->msg; *m && o + 1 < sizeof out;) {
        if (!strncmp(m, path, pl)) {
            m += pl;
            if (m[0] == ':' && m[1] == ' ')
                m += 2;
            continue;
        }
        out[o++] = *m++;
    }
    out[o] = '\0';
    memcpy(e->msg, out, o + 1);
}

/* Receives the COPY data into s->out. false = error already sent. */
static bool receive(pgw_conn *c, cin *s)
{
    for (;;) {
        char type;
        pgw_rd r;
        if (!pgw_read_msg(c, &type, &r, true)) {
            c->closing = true;
            return false;
        }
        if (type == 'd') {
            if (s->csv)
                feed_csv(s, r.p, r.n);
            else
                feed_text(s, r.p, r.n);
            if (s->too_big || s->field.oom) {
                pgw_send_error(c, "ERROR", "54000", 0,
                               "COPY field longer than %zu bytes (row %lld)", s->limit,
                               (long long)s->rows + 1);
                s->end_marker = true; /* discard the rest until CopyDone */
                s->too_big = true;
            }
        } else if (type == 'c') {
            if (s->too_big)
                return false;
            if (!s->end_marker && (s->field.buf.len || s->nfields_row || s->quoted))
                end_row(s);
            return true;
        } else if (type == 'f') {
            const char *m = pgw_get_str(&r);
            if (!s->too_big)
                pgw_send_error(c, "ERROR", "57014", 0, "COPY from stdin failed: %s",
                               m ? m : "");
            return false;
        } else if (type != 'H' && type != 'S') {
            pgw_send_error(c, "ERROR", "08P01", 0,
                           "unexpected message type 0x%02x during COPY from stdin",
                           (unsigned char)type);
            return false;
        }
    }
}

bool pgw_copy_in(pgw_conn *c, const pgw_class *k)
{
    char q[1600];
    snprintf(q, sizeof q, "SELECT %s FROM %s LIMIT 0", k->copy_cols[0] ? k->copy_cols : "*",
             k->copy_table);
    fl_sql_result *probe = NULL;
    fl_error err = {0};
    fl_status rc = fl_sql_execute(c->sess, q, &probe, &err);
    if (rc != FL_OK) {
        pgw_send_sql_error(c, rc, &err);
        return false;
    }
    const fl_schema *sch = fl_sql_result_schema(probe);
    pgw_buf spec = {0};
    for (uint32_t i = 0; i < sch->nfields; i++) {
        char one[128], tb[32], nm[64];
        /* the column's own name when the spec can carry it, so errors name it */
        simple_name(sch->fields[i].name, i, nm, sizeof nm);
        snprintf(one, sizeof one, "%s%s:%s", i ? "," : "", nm,
                 type_spec(&sch->fields[i].type, tb, sizeof tb));
        pgw_buf_put(&spec, one, strlen(one));
    }
    pgw_buf_put(&spec, "", 1);
    uint32_t ncols = sch->nfields;
    fl_sql_result_close(probe);
    char path[] = "/tmp/floe-copy-XXXXXX.csv";
    int fd = mkstemps(path, 4);
    cin s;
    memset(&s, 0, sizeof s);
    s.csv = k->copy_csv;
    s.delim = k->copy_delim ? k->copy_delim : (k->copy_csv ? ',' : '\t');
    s.quote = k->copy_quote ? k->copy_quote : '"';
    s.escape = k->copy_escape ? k->copy_escape : s.quote;
    s.null = strcmp(k->copy_null, "\x01") ? k->copy_null : (k->copy_csv ? "" : "\\N");
    s.nulllen = strlen(s.null);
    s.skip_header = k->copy_header;
    s.at_line_start = true;
    s.limit = c->srv->o.max_message_bytes;
    s.out = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!s.out || spec.oom) {
        if (fd >= 0)
            close(fd);
        pgw_buf_free(&spec);
        pgw_send_error(c, "ERROR", "58000", 0, "cannot create the COPY spool file");
        return false;
    }
    pgw_begin(c, 'G');
    pgw_put_u8(c, 0);
    pgw_put_i16(c, (int16_t)ncols);
    for (uint32_t i = 0; i < ncols; i++)
        pgw_put_i16(c, 0);
    pgw_end(c);
    pgw_flush(c);
    /* HEADER: the client's header line is dropped and one of ours written,
     * so the spool's line numbers (in conversion errors) are the client's */
    for (uint32_t i = 0; s.skip_header && i < ncols; i++)
        fprintf(s.out, "%s\"c%u\"", i ? "," : "", i + 1);
    if (s.skip_header)
        fputc('\n', s.out);
    bool ok = receive(c, &s);
    ok = fclose(s.out) == 0 && ok;
    pgw_buf_free(&s.field);
    if (ok && s.rows > 0) {
        size_t n = strlen(k->copy_table) + strlen(k->copy_cols) + strlen(path) +
                   strlen((char *)spec.buf.bytes) + 128;
        char *ins = malloc(n);
        fl_sql_result *res = NULL;
        if (!ins) {
            pgw_send_error(c, "ERROR", "53200", 0, "out of memory");
            ok = false;
        } else {
            snprintf(ins, n,
                     "INSERT INTO %s %s%s%s SELECT * FROM read_csv('%s', header => %s, "
                     "columns => '%s')",
                     k->copy_table, k->copy_cols[0] ? "(" : "", k->copy_cols,
                     k->copy_cols[0] ? ")" : "", path, k->copy_header ? "true" : "false",
                     (char *)spec.buf.bytes);
            /* the spool is the wire layer's own file, not the user's: the
             * engine lets this session read exactly it (sql.h) */
            rc = fl_sql_session_allow_file(c->sess, path, &err);
            if (rc == FL_OK)
                rc = fl_sql_execute(c->sess, ins, &res, &err);
            fl_error e2 = {0};
            fl_sql_session_allow_file(c->sess, NULL, &e2);
            free(ins);
            if (rc != FL_OK) {
                spool_message(&err, path);
                pgw_send_sql_error(c, rc, &err);
                ok = false;
            }
            fl_sql_result_close(res);
        }
    }
    unlink(path);
    pgw_buf_free(&spec);
    if (ok) {
        char tag[40];
        snprintf(tag, sizeof tag, "COPY %lld", (long long)s.rows);
        pgw_send_complete(c, tag);
    }
    return ok;
}
