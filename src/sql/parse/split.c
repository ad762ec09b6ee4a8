/*
 * split.c - fl_sql_split (scripts into statements) and fl_sql_position
 * (byte offset -> "line L, column C").
 *
 * Splitting uses the front end's tokenizer (lex.c), so semicolons inside
 * strings, quoted identifiers, dollar quotes and comments never split.
 * Statements that hold only whitespace and comments are dropped; lengths
 * exclude the terminating semicolon.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/sql.h"
#include "floe/sql_lex.h"
#include "sql/planner.h"

static fl_status push(uint32_t **starts, uint32_t **lens, uint32_t *n, uint32_t *cap, uint32_t s,
                      uint32_t l, fl_error *err)
{
    if (*n == *cap) {
        uint32_t nc = *cap ? *cap * 2 : 8;
        uint32_t *ns = realloc(*starts, nc * sizeof(uint32_t));
        if (!ns)
            return fl_errorf(err, FL_ENOMEM, "out of memory splitting SQL");
        *starts = ns;
        uint32_t *nl = realloc(*lens, nc * sizeof(uint32_t));
        if (!nl)
            return fl_errorf(err, FL_ENOMEM, "out of memory splitting SQL");
        *lens = nl;
        *cap = nc;
    }
    (*starts)[*n] = s;
    (*lens)[*n] = l;
    (*n)++;
    return FL_OK;
}

fl_status fl_sql_split(const char *sql, uint32_t **starts, uint32_t **lens, uint32_t *n,
                       fl_error *err)
{
    *starts = NULL;
    *lens = NULL;
    *n = 0;
    if (!sql)
        return FL_OK;
    size_t len = strlen(sql), pos = 0;
    if (len > UINT32_MAX)
        return fl_errorf(err, FL_ELIMIT, "SQL script larger than 4 GiB");
    uint32_t cap = 0;
    int64_t first = -1; /* first token of the current statement */
    for (;;) {
        fl_tok t = fl_lex_next(sql, len, &pos);
        if (t.kind == FL_TOK_ERROR) {
            /* unterminated quote or comment: the rest is one statement */
            if (first < 0)
                first = t.start;
            fl_status rc = push(starts, lens, n, &cap, (uint32_t)first, (uint32_t)(len - first), err);
            if (rc != FL_OK)
                goto fail;
            return FL_OK;
        }
        if (t.kind == FL_TOK_EOF) {
            if (first >= 0) {
                size_t end = len;
                while (end > (size_t)first && (sql[end - 1] == ' ' || sql[end - 1] == '\n' ||
                                               sql[end - 1] == '\t' || sql[end - 1] == '\r'))
                    end--;
                fl_status rc =
                    push(starts, lens, n, &cap, (uint32_t)first, (uint32_t)(end - first), err);
                if (rc != FL_OK)
                    goto fail;
            }
            return FL_OK;
        }
        if (fl_tok_punct(sql, &t, ';')) {
            if (first >= 0) {
                fl_status rc =
                    push(starts, lens, n, &cap, (uint32_t)first, t.start - (uint32_t)first, err);
                if (rc != FL_OK)
                    goto fail;
            }
            first = -1;
            continue;
        }
        if (first < 0)
            first = t.start;
    }
fail:
    free(*starts);
    free(*lens);
    *starts = NULL;
    *lens = NULL;
    *n = 0;
    return err ? err->code : FL_ENOMEM;
}

void fl_sql_position(const char *text, int32_t byte_offset, char *buf, size_t cap)
{
    int line = 1, col = 1;
    size_t n = text ? strlen(text) : 0;
    if (byte_offset < 0)
        byte_offset = 0;
    for (size_t i = 0; i < n && i < (size_t)byte_offset; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '\n') {
            line++;
            col = 1;
        } else if ((c & 0xC0) != 0x80) {
            col++; /* count characters, not UTF-8 continuation bytes */
        }
    }
    snprintf(buf, cap, "line %d, column %d", line, col);
}
