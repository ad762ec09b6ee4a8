/*
 * extended.c - the extended query protocol: Parse, Bind, Describe,
 * Execute, Close, Sync, Flush (PostgreSQL "Extended Query" flow).
 *
 *   Parse    name\0 query\0 int16 n, n x int32 type OID  -> ParseComplete '1'
 *   Bind     portal\0 stmt\0 int16 nfmt, fmts, int16 nparams, (int32 len, bytes)*,
 *            int16 nresfmt, resfmts                        -> BindComplete '2'
 *   Describe 'S'|'P' name\0 -> ParameterDescription 't' + RowDescription 'T' / NoData 'n'
 *   Execute  portal\0 int32 maxrows -> DataRow* + CommandComplete | PortalSuspended 's'
 *   Close    'S'|'P' name\0 -> CloseComplete '3'
 *   Sync     -> ends the implicit transaction, ReadyForQuery
 *   Flush    -> sends what is buffered
 * After an error every message up to Sync is skipped. Engine statements
 * are prepared once (fl_sql_prepare) and executed per Bind
 * (fl_sql_stmt_execute); statements the wire layer runs itself (SET, BEGIN,
 * FETCH...) are run at Execute. A portal's result is opened at its first
 * Describe or Execute and stays open across Executes with a row limit,
 * until Sync outside a transaction block or COMMIT/ROLLBACK inside one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/pgtypes.h"
#include "pgwire/pgw.h"

#define MAX_STMTS 10000

static void stmt_destroy(pgw_stmt *s);

static pgw_stmt *stmt_find(pgw_conn *c, const char *name)
{
    for (pgw_stmt *s = c->stmts; s; s = s->next)
        if (!strcmp(s->name, name))
            return s;
    return NULL;
}

pgw_portal *pgw_portal_find(pgw_conn *c, const char *name)
{
    for (pgw_portal *p = c->portals; p; p = p->next)
        if (!strcmp(p->name, name))
            return p;
    return NULL;
}

void pgw_portal_free(pgw_conn *c, pgw_portal *p)
{
    (void)c;
    if (!p)
        return;
    if (p->stmt && --p->stmt->refs == 0 && p->stmt->detached)
        stmt_destroy(p->stmt);
    fl_sql_result_close(p->res);
    free(p->name);
    free(p->formats);
    free(p->params);
    free(p->pbuf);
    free(p);
}

static void unlink_portal(pgw_conn *c, pgw_portal *p)
{
    for (pgw_portal **pp = &c->portals; *pp; pp = &(*pp)->next)
        if (*pp == p) {
            *pp = p->next;
            return;
        }
}

static void stmt_destroy(pgw_stmt *s)
{
    fl_sql_stmt_close(s->st);
    free(s->name);
    free(s->sql);
    free(s->cls);
    free(s->param_oids);
    free(s);
}

/* Takes s out of use. Portals bound to it keep it alive (PostgreSQL portals
 * do not depend on their statement), the last one frees it. */
static void stmt_free(pgw_conn *c, pgw_stmt *s)
{
    c->nstmts--;
    if (s->refs) {
        s->detached = true;
        return;
    }
    stmt_destroy(s);
}

bool pgw_stmt_drop(pgw_conn *c, const char *name)
{
    for (pgw_stmt **pp = &c->stmts; *pp; pp = &(*pp)->next)
        if (!strcmp((*pp)->name, name)) {
            pgw_stmt *s = *pp;
            *pp = s->next;
            stmt_free(c, s);
            return true;
        }
    return false;
}

void pgw_free_stmts(pgw_conn *c)
{
    while (c->stmts) {
        pgw_stmt *s = c->stmts;
        c->stmts = s->next;
        stmt_free(c, s);
    }
}

static bool fail(pgw_conn *c, const char *state, const char *msg, const char *arg)
{
    pgw_send_error(c, "ERROR", state, 0, msg, arg);
    return false;
}

pgw_stmt *pgw_stmt_create(pgw_conn *c, const char *name, const char *q, const uint32_t *oids,
                          uint32_t n)
{
    if (name[0] && stmt_find(c, name)) {
        fail(c, "42P05", "prepared statement \"%s\" already exists", name);
        return NULL;
    }
    if (c->nstmts >= MAX_STMTS) {
        fail(c, "54000", "too many prepared statements (limit %s)", "10000");
        return NULL;
    }
    pgw_stmt *s = calloc(1, sizeof *s);
    if (!s) {
        fail(c, "53200", "out of memory%s", "");
        return NULL;
    }
    c->nstmts++;
    s->name = strdup(name);
    s->sql = strdup(q);
    s->cls = malloc(sizeof *s->cls);
    s->nparams = n;
    s->param_oids = calloc((size_t)n + 1, sizeof(uint32_t));
    if (!s->name || !s->sql || !s->cls || !s->param_oids) {
        stmt_free(c, s);
        fail(c, "53200", "out of memory%s", "");
        return NULL;
    }
    if (n)
        memcpy(s->param_oids, oids, n * sizeof *oids);
    pgw_classify(q, s->cls);
    if (s->cls->kind == PGW_K_ENGINE) {
        fl_error err = {0};
        fl_status rc = fl_sql_prepare(c->sess, q, &s->st, &err);
        if (rc != FL_OK) {
            pgw_send_sql_error(c, rc, &err);
            stmt_free(c, s);
            return NULL;
        }
        uint32_t np = fl_sql_stmt_nparams(s->st);
        if (np > s->nparams) {
            uint32_t *o = realloc(s->param_oids, (np + 1) * sizeof *o);
            if (!o) {
                stmt_free(c, s);
                fail(c, "53200", "out of memory%s", "");
                return NULL;
            }
            memset(o + s->nparams, 0, (np - s->nparams) * sizeof *o);
            s->param_oids = o;
            s->nparams = np;
        }
        for (uint32_t i = 0; i < s->nparams; i++)
            if (s->param_oids[i] == 0 && i < np &&
                (s->cls->select || fl_sql_stmt_params_typed(s->st)))
                s->param_oids[i] = fl_pg_type_oid(fl_sql_stmt_param_type(s->st, i));
    }
    if (!name[0])
        pgw_stmt_drop(c, "");
    s->next = c->stmts;
    c->stmts = s;
    return s;
}

static bool do_parse(pgw_conn *c, pgw_rd *r)
{
    const char *name = pgw_get_str(r), *q = pgw_get_str(r);
    int16_t n = pgw_get_i16(r);
    if (r->bad || n < 0)
        return fail(c, "08P01", "malformed Parse message%s", "");
    uint32_t *oids = calloc((size_t)n + 1, sizeof *oids);
    if (!oids)
        return fail(c, "53200", "out of memory%s", "");
    for (int i = 0; i < n; i++)
        oids[i] = (uint32_t)pgw_get_i32(r);
    if (r->bad) {
        free(oids);
        return fail(c, "08P01", "malformed Parse message%s", "");
    }
    pgw_stmt *s = pgw_stmt_create(c, name, q, oids, (uint32_t)n);
    free(oids);
    if (!s)
        return false;
    pgw_begin(c, '1');
    pgw_end(c);
    return true;
}

static bool do_bind(pgw_conn *c, pgw_rd *r)
{
    const char *pname = pgw_get_str(r), *sname = pgw_get_str(r);
    if (r->bad)
        return fail(c, "08P01", "malformed Bind message%s", "");
    pgw_stmt *s = stmt_find(c, sname);
    if (!s)
        return fail(c, "26000", "prepared statement \"%s\" does not exist", sname);
    if (pname[0] && pgw_portal_find(c, pname))
        return fail(c, "42P03", "portal \"%s\" already exists", pname);
    int16_t nf = pgw_get_i16(r);
    if (nf < 0 || r->bad)
        return fail(c, "08P01", "malformed Bind message%s", "");
    const uint8_t *fmts = pgw_get_bytes(r, 2 * (size_t)nf);
    int16_t np = pgw_get_i16(r);
    if (r->bad || np < 0)
        return fail(c, "08P01", "malformed Bind message%s", "");
    if ((uint32_t)np != s->nparams) {
        char m[96];
        snprintf(m, sizeof m, "bind message supplies %d parameters, but prepared statement "
                              "requires %u", np, s->nparams);
        return fail(c, "08P01", "%s", m);
    }
    pgw_portal *p = calloc(1, sizeof *p);
    if (!p)
        return fail(c, "53200", "out of memory%s", "");
    p->stmt = s;
    s->refs++;
    p->name = strdup(pname);
    p->nparams = (uint32_t)np;
    p->params = calloc((size_t)np + 1, sizeof *p->params);
    p->pbuf = malloc(r->n - r->pos + 1); /* copies of the parameter bytes */
    bool ok = p->name && p->params && p->pbuf;
    size_t used = 0;
    fl_arena a;
    fl_arena_init(&a, 0);
    for (int i = 0; ok && i < np; i++) {
        int32_t len = pgw_get_i32(r);
        int16_t f = nf == 0 ? 0 : nf == 1 ? (int16_t)((fmts[0] << 8) | fmts[1])
                                          : (i < nf ? (int16_t)((fmts[2 * i] << 8) | fmts[2 * i + 1]) : 0);
        fl_value *v = &p->params[i];
        const fl_type *pt = s->st ? fl_sql_stmt_param_type(s->st, (uint32_t)i) : NULL;
        if (len == -1) {
            v->is_null = true;
            v->type = pt ? *pt : (fl_type){.id = FL_TYPE_STRING};
            continue;
        }
        const uint8_t *b = len >= 0 ? pgw_get_bytes(r, (size_t)len) : NULL;
        if (!b || r->bad) {
            ok = fail(c, "08P01", "malformed Bind message%s", "");
            break;
        }
        memcpy(p->pbuf + used, b, (size_t)len);
        const uint8_t *mine = p->pbuf + used;
        used += (size_t)len;
        if (f == 0) {
            v->type.id = FL_TYPE_STRING;
            v->v.bytes.ptr = mine;
            v->v.bytes.len = (size_t)len;
        } else if (f == 1) {
            fl_error err = {0};
            /* binary with no known type: raw bytes (node pg sends Buffers so) */
            uint32_t oid = s->param_oids[i] ? s->param_oids[i] : FL_PG_OID_BYTEA;
            if (!pgw_bin_decode(oid, mine, (size_t)len, &a, v, &err)) {
                char m[FL_ERROR_MSG_MAX + 40];
                snprintf(m, sizeof m, "parameter $%d: %s", i + 1, err.msg);
                ok = fail(c, "22P03", "%s", m);
            } else if (v->type.id == FL_TYPE_FIXED && v->v.bytes.ptr != mine) {
                /* interval: its native bytes (arena) replace our 16-byte copy */
                memcpy((uint8_t *)mine, v->v.bytes.ptr, 16);
                v->v.bytes.ptr = mine;
            }
        } else {
            ok = fail(c, "08P01", "unknown format code %s", "");
        }
    }
    fl_arena_free(&a);
    int16_t nr = ok ? pgw_get_i16(r) : 0;
    if (ok && (r->bad || nr < 0))
        ok = fail(c, "08P01", "malformed Bind message%s", "");
    if (ok && nr > 0) {
        p->formats = calloc((size_t)nr, sizeof *p->formats);
        p->nformats = (uint32_t)nr;
        for (int i = 0; p->formats && i < nr; i++) {
            p->formats[i] = pgw_get_i16(r);
            if (p->formats[i] != 0 && p->formats[i] != 1)
                r->bad = true;
        }
        if (!p->formats || r->bad)
            ok = fail(c, "08P01", "malformed Bind result formats%s", "");
    }
    if (!ok) {
        pgw_portal_free(c, p);
        return false;
    }
    if (!pname[0]) {
        pgw_portal *old = pgw_portal_find(c, "");
        if (old) {
            unlink_portal(c, old);
            pgw_portal_free(c, old);
        }
    }
    p->next = c->portals;
    c->portals = p;
    pgw_begin(c, '2');
    pgw_end(c);
    return true;
}

/* Opens the portal's result (engine statements): privileges, then execute. */
static bool portal_open(pgw_conn *c, pgw_portal *p)
{
    if (p->res || p->executed || !p->stmt || !p->stmt->st)
        return true;
    if (c->txn == 'E') {
        pgw_send_error(c, "ERROR", "25P02", 0, "current transaction is aborted, commands "
                                               "ignored until end of transaction block");
        return false;
    }
    fl_error err = {0};
    c->nqueries++;
    fl_status rc = pgw_stmt_run(c, p->stmt, p->params, p->nparams, &p->res, &err);
    if (rc != FL_OK) {
        pgw_send_sql_error(c, rc, &err);
        return false;
    }
    pgw_note_block_ddl(c, p->stmt->cls);
    if (fl_sql_result_schema(p->res)->nfields == 0) {
        snprintf(p->tag, sizeof p->tag, "%s", fl_sql_result_tag(p->res));
        fl_sql_result_close(p->res);
        p->res = NULL;
        p->executed = true;
    }
    return true;
}

static void describe_stmt_rows(pgw_conn *c, pgw_stmt *s, const int16_t *f, uint32_t nf)
{
    const pgw_class *k = s->cls;
    if (s->st && fl_sql_stmt_schema(s->st)->nfields) {
        pgw_send_rowdesc(c, fl_sql_stmt_schema(s->st), f, nf);
    } else if (k->kind == PGW_K_SHOW) {
        pgw_show_describe(c, k);
    } else if (k->kind == PGW_K_FETCH && !k->move) {
        pgw_portal *cur = pgw_portal_find(c, k->name);
        if (cur && cur->res)
            pgw_send_rowdesc(c, fl_sql_result_schema(cur->res), cur->formats, cur->nformats);
        else {
            pgw_begin(c, 'n');
            pgw_end(c);
        }
    } else {
        pgw_begin(c, 'n');
        pgw_end(c);
    }
}

static bool do_describe(pgw_conn *c, pgw_rd *r)
{
    uint8_t what = pgw_get_u8(r);
    const char *name = pgw_get_str(r);
    if (r->bad)
        return fail(c, "08P01", "malformed Describe message%s", "");
    if (what == 'S') {
        pgw_stmt *s = stmt_find(c, name);
        if (!s)
            return fail(c, "26000", "prepared statement \"%s\" does not exist", name);
        pgw_begin(c, 't');
        pgw_put_i16(c, (int16_t)s->nparams);
        for (uint32_t i = 0; i < s->nparams; i++)
            pgw_put_i32(c, (int32_t)(s->param_oids[i] ? s->param_oids[i] : FL_PG_OID_TEXT));
        pgw_end(c);
        describe_stmt_rows(c, s, NULL, 0);
        return true;
    }
    if (what != 'P')
        return fail(c, "08P01", "invalid Describe target%s", "");
    pgw_portal *p = pgw_portal_find(c, name);
    if (!p)
        return fail(c, "34000", "portal \"%s\" does not exist", name);
    if (p->res) {
        pgw_send_rowdesc(c, fl_sql_result_schema(p->res), p->formats, p->nformats);
        return true;
    }
    const pgw_class *k = p->stmt ? p->stmt->cls : NULL;
    bool rows_possible = k && k->kind == PGW_K_ENGINE && !k->dml && !k->ddl;
    if (rows_possible && !(p->stmt->st && fl_sql_stmt_schema(p->stmt->st)->nfields)) {
        if (!portal_open(c, p)) /* EXPLAIN, SHOW...: the schema is known once it runs */
            return false;
        if (p->res) {
            pgw_send_rowdesc(c, fl_sql_result_schema(p->res), p->formats, p->nformats);
            return true;
        }
    }
    if (p->stmt)
        describe_stmt_rows(c, p->stmt, p->formats, p->nformats);
    return true;
}

static bool do_execute(pgw_conn *c, pgw_rd *r)
{
    const char *name = pgw_get_str(r);
    int32_t max = pgw_get_i32(r);
    if (r->bad)
        return fail(c, "08P01", "malformed Execute message%s", "");
    pgw_portal *p = pgw_portal_find(c, name);
    if (!p)
        return fail(c, "34000", "portal \"%s\" does not exist", name);
    if (p->stmt && !p->stmt->st && !p->is_cursor) { /* wire-layer statement */
        if (p->executed) {
            pgw_send_complete(c, p->tag[0] ? p->tag : "SELECT 0");
            return true;
        }
        p->executed = true;
        c->in_execute = true;
        bool ok = pgw_run_classified(c, p->stmt->sql, p->stmt->cls);
        c->in_execute = false;
        return ok;
    }
    if (!portal_open(c, p))
        return false;
    if (!p->res) {
        pgw_send_complete(c, p->tag[0] ? p->tag : "SELECT 0");
        return true;
    }
    int64_t before = p->sent;
    int st = pgw_send_rows(c, p, max > 0 ? max : 0, false);
    if (st < 0)
        return false;
    if (st == 0) {
        pgw_begin(c, 's');
        pgw_end(c);
        return true;
    }
    const char *tag = fl_sql_result_tag(p->res);
    if (p->is_cursor || !strncmp(tag, "SELECT", 6)) { /* rows of this Execute, as PostgreSQL */
        char t[64];
        snprintf(t, sizeof t, "%s %lld", p->is_cursor ? "FETCH" : "SELECT",
                 (long long)(p->sent - before));
        pgw_send_complete(c, t);
    } else {
        pgw_send_complete(c, tag);
    }
    return true;
}

static bool do_close(pgw_conn *c, pgw_rd *r)
{
    uint8_t what = pgw_get_u8(r);
    const char *name = pgw_get_str(r);
    if (r->bad || (what != 'S' && what != 'P'))
        return fail(c, "08P01", "malformed Close message%s", "");
    if (what == 'S') {
        pgw_stmt_drop(c, name);
    } else {
        pgw_portal *p = pgw_portal_find(c, name);
        if (p) {
            unlink_portal(c, p);
            pgw_portal_free(c, p);
        }
    }
    pgw_begin(c, '3');
    pgw_end(c);
    return true;
}

void pgw_ext_message(pgw_conn *c, char type, pgw_rd *r)
{
    if (type == 'S') {
        c->skip_to_sync = false;
        pgw_end_implicit(c);
        pgw_send_ready(c);
        return;
    }
    if (type == 'H') {
        pgw_flush(c);
        return;
    }
    if (c->skip_to_sync)
        return;
    bool ok;
    switch (type) {
    case 'P':
        ok = do_parse(c, r);
        break;
    case 'B':
        ok = do_bind(c, r);
        break;
    case 'D':
        ok = do_describe(c, r);
        break;
    case 'E':
        ok = do_execute(c, r);
        break;
    default:
        ok = do_close(c, r);
        break;
    }
    if (!ok) {
        c->skip_to_sync = true;
        if (c->txn == 'T')
            c->txn = 'E';
    }
}
