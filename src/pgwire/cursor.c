/*
 * cursor.c - SQL cursors: DECLARE name [BINARY] [ASENSITIVE|INSENSITIVE]
 * [NO SCROLL] CURSOR [WITH HOLD | WITHOUT HOLD] FOR query, FETCH/MOVE
 * [FORWARD] [n | ALL | NEXT] [FROM | IN] name, CLOSE name | ALL.
 *
 * A cursor is a portal (extended.c's list, so Describe/Execute of the
 * portal name work as in PostgreSQL) holding an open fl_sql_result: rows
 * stream batch by batch from the engine, nothing is materialized, so a
 * cursor over 10M rows costs one batch. WITHOUT HOLD cursors need a
 * transaction block (25P01 otherwise) and close at its end; WITH HOLD
 * cursors live until CLOSE or the end of the connection (they keep reading
 * the snapshot they started on). Only forward fetching is supported
 * (backward/absolute: 55000, as PostgreSQL says for NO SCROLL cursors).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pgwire/pgw.h"

/* Skips spaces and comments; returns the next token's start, its length in *n. */
static const char *next_tok(const char *p, size_t *n)
{
    for (;;) {
        while (isspace((unsigned char)*p))
            p++;
        if (p[0] == '-' && p[1] == '-') {
            while (*p && *p != '\n')
                p++;
        } else if (p[0] == '/' && p[1] == '*') {
            const char *e = strstr(p + 2, "*/");
            p = e ? e + 2 : p + strlen(p);
        } else {
            break;
        }
    }
    const char *s = p;
    if (*p == '"') {
        p++;
        while (*p && !(*p == '"' && p[1] != '"'))
            p += *p == '"' ? 2 : 1;
        if (*p)
            p++;
    } else {
        while (*p && (isalnum((unsigned char)*p) || *p == '_' || *p == '$'))
            p++;
        if (p == s && *p)
            p++;
    }
    *n = (size_t)(p - s);
    return s;
}

/* The query after "DECLARE name ... FOR"; NULL when not found. */
static const char *declare_query(const char *sql)
{
    size_t n;
    const char *t = next_tok(sql, &n); /* DECLARE */
    if (n != 7 || strncasecmp(t, "declare", 7))
        return NULL;
    t = next_tok(t + n, &n); /* name */
    for (int i = 0; i < 12 && n; i++) {
        t = next_tok(t + n, &n);
        if (n == 3 && !strncasecmp(t, "for", 3))
            return t + 3;
    }
    return NULL;
}

bool pgw_run_declare(pgw_conn *c, const char *sql, const pgw_class *k)
{
    if (!k->hold && c->txn == 'I') {
        pgw_send_error(c, "ERROR", "25P01", 0,
                       "DECLARE CURSOR can only be used in transaction blocks");
        return false;
    }
    if (pgw_portal_find(c, k->name)) {
        pgw_send_error(c, "ERROR", "42P03", 0, "cursor \"%s\" already exists", k->name);
        return false;
    }
    const char *q = declare_query(sql);
    if (!q) {
        pgw_send_error(c, "ERROR", "42601", 0, "cannot find the query of DECLARE CURSOR");
        return false;
    }
    pgw_portal *p = calloc(1, sizeof *p);
    if (!p || !(p->name = strdup(k->name))) {
        free(p);
        pgw_send_error(c, "ERROR", "53200", 0, "out of memory");
        return false;
    }
    fl_error err = {0};
    fl_status rc = fl_sql_execute(c->sess, q, &p->res, &err);
    if (rc != FL_OK) {
        pgw_send_sql_error(c, rc, &err);
        pgw_portal_free(c, p);
        return false;
    }
    if (fl_sql_result_schema(p->res)->nfields == 0) {
        pgw_send_error(c, "ERROR", "42P11", 0, "cursor query must return rows");
        pgw_portal_free(c, p);
        return false;
    }
    p->is_cursor = true;
    p->hold = k->hold;
    p->binary_all = k->binary;
    p->next = c->portals;
    c->portals = p;
    pgw_send_complete(c, "DECLARE CURSOR");
    return true;
}

bool pgw_run_fetch(pgw_conn *c, const pgw_class *k, bool send_desc)
{
    pgw_portal *p = pgw_portal_find(c, k->name);
    if (!p || !p->res) {
        pgw_send_error(c, "ERROR", "34000", 0, "cursor \"%s\" does not exist", k->name);
        return false;
    }
    if (k->backward) {
        pgw_send_error(c, "ERROR", "55000", 0,
                       "cursor can only scan forward (floe cursors are NO SCROLL)");
        return false;
    }
    if (send_desc && !k->move)
        pgw_send_rowdesc(c, fl_sql_result_schema(p->res), p->formats, p->nformats);
    int64_t before = p->sent;
    if (k->count != 0 && pgw_send_rows(c, p, k->count < 0 ? 0 : k->count, k->move) < 0)
        return false;
    char tag[64];
    snprintf(tag, sizeof tag, "%s %lld", k->move ? "MOVE" : "FETCH",
             (long long)(p->sent - before));
    pgw_send_complete(c, tag);
    return true;
}

bool pgw_run_close(pgw_conn *c, const pgw_class *k)
{
    if (k->all) {
        for (pgw_portal **pp = &c->portals; *pp;) {
            pgw_portal *p = *pp;
            if (p->is_cursor) {
                *pp = p->next;
                pgw_portal_free(c, p);
            } else {
                pp = &p->next;
            }
        }
        pgw_send_complete(c, "CLOSE CURSOR ALL");
        return true;
    }
    for (pgw_portal **pp = &c->portals; *pp; pp = &(*pp)->next)
        if (!strcmp((*pp)->name, k->name)) {
            pgw_portal *p = *pp;
            *pp = p->next;
            pgw_portal_free(c, p);
            pgw_send_complete(c, "CLOSE CURSOR");
            return true;
        }
    pgw_send_error(c, "ERROR", "34000", 0, "cursor \"%s\" does not exist", k->name);
    return false;
}
