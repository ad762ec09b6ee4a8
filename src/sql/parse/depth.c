/*
 * depth.c - bounded recursion in the front end (design: depth.h).
 *
 * libpg_query and protobuf-c recurse once per tree level and cannot be told
 * to stop, so they run on a stack sized for the statement: the token count
 * bounds libpg_query's depth before parsing, the measured depth bounds
 * unpack's. The measurement walks the packed bytes with an explicit stack
 * (the protobuf-c descriptors say which length-delimited fields are
 * messages), so measuring a tree never recurses either.
 */
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/sql_lex.h"
#include "sql/parse/depth.h"
#include "sql/parse/parse_tree.h"
#include "sql/planner.h"

#define TOO_COMPLEX "statement too complex"

/* ---- running on a big enough stack ---- */

typedef struct stack_job {
    void (*fn)(void *);
    void *arg;
} stack_job;

static void *stack_main(void *p)
{
    stack_job *j = p;
    j->fn(j->arg);
    return NULL;
}

fl_status fl_sql_on_stack(size_t bytes, void (*fn)(void *), void *arg, fl_error *err)
{
    if (bytes <= FL_SQL_INLINE_STACK) {
        fn(arg);
        return FL_OK;
    }
    /* page-rounded, plus room for TLS and the guard that glibc takes from it */
    size_t size = ((bytes + 65535) & ~(size_t)65535) + ((size_t)256 << 10);
    pthread_attr_t at;
    if (pthread_attr_init(&at) != 0)
        return fl_errorf(err, FL_ENOMEM, "cannot create a parser thread");
    pthread_t t;
    stack_job j = {fn, arg};
    int rc = pthread_attr_setstacksize(&at, size);
    if (rc == 0)
        rc = pthread_create(&t, &at, stack_main, &j);
    pthread_attr_destroy(&at);
    if (rc != 0)
        return fl_errorf(err, FL_ENOMEM,
                         "cannot create a parser thread with a %zu MiB stack for this statement",
                         size >> 20);
    pthread_join(t, NULL);
    return FL_OK;
}

static size_t parse_stack(uint64_t ntokens)
{
    return (size_t)(64u << 10) + (size_t)ntokens * FL_SQL_STACK_PER_TOKEN;
}

/* protobuf-c's unpack: measured 0.93 KiB per level (x86-64, -O2) */
static size_t unpack_stack(uint32_t depth)
{
    return (size_t)(64u << 10) + (size_t)depth * 2048u;
}

/* ---- measuring a packed tree ---- */

typedef struct pb_reader {
    const uint8_t *p;
    size_t pos, end;
} pb_reader;

static bool read_varint(pb_reader *r, uint64_t *out)
{
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (r->pos >= r->end)
            return false;
        uint8_t b = r->p[r->pos++];
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return true;
        }
    }
    return false;
}

/* Skips one field's value of wire type wt; *len is set for type 2. */
static bool skip_value(pb_reader *r, unsigned wt, uint64_t *len)
{
    uint64_t v;
    switch (wt) {
    case 0: return read_varint(r, &v);
    case 1: v = 8; break;
    case 5: v = 4; break;
    case 2:
        if (!read_varint(r, &v))
            return false;
        *len = v;
        break;
    default: return false; /* groups do not occur in proto3 */
    }
    if (v > r->end - r->pos)
        return false;
    r->pos += (size_t)v;
    return true;
}

/* The "location" field among the direct fields of the message in
 * [from, end) of type d; -1 when it has none. */
static int32_t direct_location(const ProtobufCMessageDescriptor *d, const uint8_t *buf, size_t from,
                               size_t end)
{
    pb_reader r = {buf, from, end};
    while (r.pos < r.end) {
        uint64_t tag, len = 0;
        if (!read_varint(&r, &tag))
            return -1;
        unsigned wt = (unsigned)(tag & 7);
        const ProtobufCFieldDescriptor *f =
            protobuf_c_message_descriptor_get_field(d, (unsigned)(tag >> 3));
        if (wt == 0 && f && strcmp(f->name, "location") == 0) {
            uint64_t v;
            if (!read_varint(&r, &v))
                return -1;
            return (int32_t)(int64_t)v; /* int32 -1 is sign-extended on the wire */
        }
        if (!skip_value(&r, wt, &len))
            return -1;
    }
    return -1;
}

typedef struct pb_frame {
    const ProtobufCMessageDescriptor *d;
    size_t start, end;
} pb_frame;

/* The first location >= 0 anywhere inside [from, end) of type d, looking at
 * most 64 levels down (a SelectStmt has none of its own; its targets do). */
static int32_t inner_location(const ProtobufCMessageDescriptor *d, const uint8_t *buf, size_t from,
                              size_t end)
{
    pb_frame st[64];
    uint32_t n = 1;
    st[0] = (pb_frame){d, from, end};
    pb_reader r = {buf, from, end};
    while (n > 0) {
        if (r.pos >= st[n - 1].end) {
            n--;
            continue;
        }
        r.end = st[n - 1].end;
        uint64_t tag, len = 0, v;
        if (!read_varint(&r, &tag))
            return -1;
        unsigned wt = (unsigned)(tag & 7);
        const ProtobufCFieldDescriptor *f =
            protobuf_c_message_descriptor_get_field(st[n - 1].d, (unsigned)(tag >> 3));
        if (wt == 0 && f && strcmp(f->name, "location") == 0) {
            if (!read_varint(&r, &v))
                return -1;
            if ((int64_t)v >= 0 && v <= INT32_MAX)
                return (int32_t)v;
            continue;
        }
        if (!skip_value(&r, wt, &len))
            return -1;
        if (wt == 2 && f && f->type == PROTOBUF_C_TYPE_MESSAGE && n < 64) {
            st[n++] = (pb_frame){f->descriptor, r.pos - (size_t)len, r.pos};
            r.pos -= (size_t)len;
        }
    }
    return -1;
}

static int32_t deep_location(const pb_frame *st, uint32_t n, const uint8_t *buf)
{
    for (uint32_t i = n; i-- > 0;) {
        int32_t loc = direct_location(st[i].d, buf, st[i].start, st[i].end);
        if (loc >= 0)
            return loc;
    }
    return inner_location(st[n - 1].d, buf, st[n - 1].start, st[n - 1].end);
}

fl_status fl_pgq_depth(const ProtobufCMessageDescriptor *d, const uint8_t *buf, size_t len,
                       uint32_t limit, uint32_t *depth, int32_t *location, fl_error *err)
{
    *depth = 0;
    *location = -1;
    pb_frame *st = malloc(((size_t)limit + 2) * sizeof *st);
    if (!st)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    uint32_t n = 1, max = 1;
    st[0] = (pb_frame){d, 0, len};
    pb_reader r = {buf, 0, len};
    fl_status rc = FL_OK;
    while (n > 0 && rc == FL_OK) {
        if (r.pos == st[n - 1].end) {
            n--;
            continue;
        }
        r.end = st[n - 1].end;
        uint64_t tag, flen = 0;
        if (!read_varint(&r, &tag) || !skip_value(&r, (unsigned)(tag & 7), &flen)) {
            rc = fl_errorf(err, FL_ECORRUPT, "malformed parse tree at byte %zu", r.pos);
            break;
        }
        if ((tag & 7) != 2)
            continue;
        const ProtobufCFieldDescriptor *f =
            protobuf_c_message_descriptor_get_field(st[n - 1].d, (unsigned)(tag >> 3));
        if (!f || f->type != PROTOBUF_C_TYPE_MESSAGE)
            continue; /* strings, bytes, packed scalars */
        /* descend: the field's value starts after its length prefix */
        size_t vstart = r.pos - (size_t)flen;
        st[n++] = (pb_frame){f->descriptor, vstart, r.pos};
        r.pos = vstart;
        if (n > max)
            max = n;
        if (n > limit) {
            *location = deep_location(st, n, buf);
            break;
        }
    }
    *depth = max;
    free(st);
    return rc;
}

/* ---- the guarded parse ---- */

typedef struct parse_job {
    const char *text;
    PgQueryProtobufParseResult r;
} parse_job;

static void parse_main(void *p)
{
    parse_job *j = p;
    j->r = pg_query_parse_protobuf(j->text);
}

typedef struct unpack_job {
    const uint8_t *data;
    size_t len;
    PgQuery__ParseResult *tree;
} unpack_job;

static void unpack_main(void *p)
{
    unpack_job *j = p;
    j->tree = pg_query__parse_result__unpack(NULL, j->len, j->data);
}

static fl_status too_complex(const char *sql, int32_t byte_off, int32_t *error_position,
                             fl_error *err, const char *what)
{
    if (byte_off < 0) {
        if (error_position)
            *error_position = 0;
        return fl_error_state(err, FL_ELIMIT, "54001", TOO_COMPLEX ": %s", what);
    }
    char pos[64];
    fl_sql_position(sql, byte_off, pos, sizeof pos);
    if (error_position)
        *error_position = fl_front_byte_to_char(sql, byte_off);
    return fl_error_state(err, FL_ELIMIT, "54001", "%s: " TOO_COMPLEX ": %s", pos, what);
}

/* libpg_query's parser stack (bison's YYMAXDEPTH) overflowed */
static bool parser_stack_error(const char *msg)
{
    return strstr(msg, "memory exhausted") || strstr(msg, "stack depth limit exceeded");
}

static fl_status parse_error(const char *sql, const PgQueryError *e, int32_t *error_position,
                             fl_error *err)
{
    int32_t cp = e->cursorpos;
    int32_t off = cp > 0 ? fl_front_char_to_byte(sql, cp) : 0;
    if (parser_stack_error(e->message))
        return too_complex(sql, off, error_position, err, "nesting too deep for the parser");
    char pos[64];
    fl_sql_position(sql, off, pos, sizeof pos);
    if (error_position)
        *error_position = fl_front_byte_to_char(sql, off);
    return fl_errorf(err, FL_ESYNTAX, "%s: %s", pos, e->message);
}

static fl_status check_and_unpack(const char *sql, const PgQueryProtobuf *pb,
                                  PgQuery__ParseResult **out, int32_t *error_position,
                                  fl_error *err)
{
    uint32_t depth;
    int32_t loc;
    const uint8_t *data = (const uint8_t *)pb->data;
    FL_TRY(fl_pgq_depth(&pg_query__parse_result__descriptor, data, pb->len, FL_SQL_MAX_DEPTH,
                        &depth, &loc, err));
    if (depth > FL_SQL_MAX_DEPTH) {
        char what[64];
        snprintf(what, sizeof what, "nesting deeper than %u levels", FL_SQL_MAX_DEPTH);
        return too_complex(sql, loc, error_position, err, what);
    }
    unpack_job u = {data, pb->len, NULL};
    FL_TRY(fl_sql_on_stack(unpack_stack(depth), unpack_main, &u, err));
    if (!u.tree)
        return fl_errorf(err, FL_ECORRUPT, "libpg_query returned an unreadable parse tree");
    *out = u.tree;
    return FL_OK;
}

/* ---- the JSON pre-screen ----
 * libpg_query's protobuf output costs time quadratic in the nesting (11 s
 * for 100,000 terms, 0.1 s for 10,000), its JSON output linear (0.12 s for
 * 100,000). So a big statement is first parsed to JSON and its depth
 * scanned: JSON has an object per message plus an array per repeated field,
 * so its depth is between the message depth and twice it, and past twice
 * the limit the statement is surely too deep. Below that the protobuf
 * parse costs at most milliseconds. */

typedef struct json_job {
    const char *sql;
    PgQueryParseResult r;
} json_job;

static void json_main(void *p)
{
    json_job *j = p;
    j->r = pg_query_parse(j->sql);
}

static uint64_t count_tokens(const char *sql)
{
    size_t n = strlen(sql), pos = 0;
    uint64_t k = 0;
    for (;;) {
        fl_tok t = fl_lex_next(sql, n, &pos);
        if (t.kind == FL_TOK_EOF || t.kind == FL_TOK_ERROR)
            return k;
        k++;
    }
}

/* The first "location": value at or after p (-1 when none). */
static int32_t json_location_after(const char *p)
{
    const char *l = strstr(p, "\"location\":");
    if (!l)
        return -1;
    long v = strtol(l + 11, NULL, 10);
    return v >= 0 && v <= INT32_MAX ? (int32_t)v : -1;
}

/* Nesting of objects and arrays in libpg_query's JSON, up to limit + 1;
 * *loc: a location near where it passed limit. */
static uint32_t json_depth(const char *j, uint32_t limit, int32_t *loc)
{
    uint32_t d = 0, max = 0;
    bool str = false;
    *loc = -1;
    for (const char *p = j; *p; p++) {
        if (str) {
            if (*p == '\\' && p[1])
                p++;
            else if (*p == '"')
                str = false;
            continue;
        }
        if (*p == '"') {
            str = true;
        } else if (*p == '{' || *p == '[') {
            if (++d > max)
                max = d;
            if (d > limit) {
                *loc = json_location_after(p);
                return d;
            }
        } else if ((*p == '}' || *p == ']') && d) {
            d--;
        }
    }
    return max;
}

fl_status fl_sql_json_depth_check(const char *sql, const char *json, int32_t *error_position,
                                  fl_error *err)
{
    int32_t loc;
    if (json_depth(json, 2 * FL_SQL_MAX_DEPTH, &loc) <= 2 * FL_SQL_MAX_DEPTH)
        return FL_OK;
    char what[64];
    snprintf(what, sizeof what, "nesting deeper than %u levels", FL_SQL_MAX_DEPTH);
    return too_complex(sql, loc, error_position, err, what);
}

/* Refuses big statements the JSON depth shows are too deep. */
static fl_status prescreen(const char *sql, const char *text, uint64_t ntokens,
                           int32_t *error_position, fl_error *err)
{
    if (ntokens <= FL_SQL_PRESCREEN_TOKENS)
        return FL_OK;
    json_job j = {text, {NULL, NULL, NULL}};
    FL_TRY(fl_sql_on_stack(parse_stack(ntokens), json_main, &j, err));
    fl_status rc = FL_OK;
    if (j.r.error && parser_stack_error(j.r.error->message))
        rc = parse_error(sql, j.r.error, error_position, err);
    else if (!j.r.error && j.r.parse_tree)
        rc = fl_sql_json_depth_check(sql, j.r.parse_tree, error_position, err);
    pg_query_free_parse_result(j.r);
    return rc;
}

static fl_status too_many_tokens(const char *sql, uint64_t ntokens, int32_t *error_position,
                                 fl_error *err)
{
    char what[96];
    snprintf(what, sizeof what, "%llu tokens (at most %llu)", (unsigned long long)ntokens,
             (unsigned long long)FL_SQL_MAX_TOKENS);
    return too_complex(sql, -1, error_position, err, what);
}

/* ---- the guarded parses ---- */

fl_status fl_sql_pgq_parse(const char *sql, const char *text, uint64_t ntokens,
                           PgQuery__ParseResult **out, int32_t *error_position, fl_error *err)
{
    *out = NULL;
    if (ntokens > FL_SQL_MAX_TOKENS)
        return too_many_tokens(sql, ntokens, error_position, err);
    FL_TRY(prescreen(sql, text, ntokens, error_position, err));
    parse_job j = {text, {{0, NULL}, NULL, NULL}};
    FL_TRY(fl_sql_on_stack(parse_stack(ntokens), parse_main, &j, err));
    fl_status rc;
    if (j.r.error)
        rc = parse_error(sql, j.r.error, error_position, err);
    else
        rc = check_and_unpack(sql, &j.r.parse_tree, out, error_position, err);
    pg_query_free_protobuf_parse_result(j.r);
    return rc;
}

fl_status fl_sql_depth_check(const char *sql, int32_t *error_position, fl_error *err)
{
    if (error_position)
        *error_position = 0;
    uint64_t ntokens = count_tokens(sql);
    if (ntokens > FL_SQL_MAX_TOKENS)
        return too_many_tokens(sql, ntokens, error_position, err);
    FL_TRY(prescreen(sql, sql, ntokens, error_position, err));
    parse_job j = {sql, {{0, NULL}, NULL, NULL}};
    FL_TRY(fl_sql_on_stack(parse_stack(ntokens), parse_main, &j, err));
    fl_status rc = FL_OK;
    if (j.r.error && parser_stack_error(j.r.error->message)) {
        rc = parse_error(sql, j.r.error, error_position, err);
    } else if (!j.r.error) {
        uint32_t depth;
        int32_t loc;
        const uint8_t *data = (const uint8_t *)j.r.parse_tree.data;
        rc = fl_pgq_depth(&pg_query__parse_result__descriptor, data, j.r.parse_tree.len,
                          FL_SQL_MAX_DEPTH, &depth, &loc, err);
        if (rc == FL_OK && depth > FL_SQL_MAX_DEPTH) {
            char what[64];
            snprintf(what, sizeof what, "nesting deeper than %u levels", FL_SQL_MAX_DEPTH);
            rc = too_complex(sql, loc, error_position, err, what);
        }
    }
    pg_query_free_protobuf_parse_result(j.r);
    return rc;
}

/* ---- pgwire's JSON parse ---- */

bool fl_sql_pgq_parse_json(const char *sql, PgQueryParseResult *out)
{
    memset(out, 0, sizeof *out);
    uint64_t ntokens = count_tokens(sql);
    if (ntokens > FL_SQL_MAX_TOKENS)
        return false;
    json_job j = {sql, {NULL, NULL, NULL}};
    fl_error e;
    if (fl_sql_on_stack(parse_stack(ntokens), json_main, &j, &e) != FL_OK)
        return false;
    *out = j.r;
    return true;
}

fl_status fl_sql_pg_parse_json(const char *sql, char **json, fl_error *err)
{
    *json = NULL;
    PgQueryParseResult r;
    if (!fl_sql_pgq_parse_json(sql, &r))
        return fl_errorf(err, FL_ELIMIT, "statement too complex: too many tokens to parse safely");
    if (r.error || !r.parse_tree) {
        fl_status rc = fl_errorf(err, FL_ESYNTAX, "%s",
                                 r.error && r.error->message ? r.error->message : "syntax error");
        pg_query_free_parse_result(r);
        return rc;
    }
    int32_t pos = 0;
    fl_status rc = fl_sql_json_depth_check(sql, r.parse_tree, &pos, err);
    if (rc == FL_OK && !(*json = strdup(r.parse_tree)))
        rc = fl_errorf(err, FL_ENOMEM, "out of memory");
    pg_query_free_parse_result(r);
    return rc;
}

/* ---- the binder's counter ---- */

/* The first sub-message of m (set field or first element), NULL = none. */
static const ProtobufCMessage *first_child(const ProtobufCMessage *m)
{
    const ProtobufCMessageDescriptor *d = m->descriptor;
    const char *base = (const char *)m;
    for (unsigned i = 0; i < d->n_fields; i++) {
        const ProtobufCFieldDescriptor *f = &d->fields[i];
        if (f->type != PROTOBUF_C_TYPE_MESSAGE)
            continue;
        if (f->label == PROTOBUF_C_LABEL_REPEATED) {
            size_t n = *(const size_t *)(base + f->quantifier_offset);
            if (n)
                return (*(ProtobufCMessage *const *const *)(base + f->offset))[0];
            continue;
        }
        if ((f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) &&
            *(const uint32_t *)(base + f->quantifier_offset) != f->id)
            continue;
        const ProtobufCMessage *c = *(ProtobufCMessage *const *)(base + f->offset);
        if (c)
            return c;
    }
    return NULL;
}

int32_t fl_pgq_location(const ProtobufCMessage *m)
{
    /* a few levels down at most: a SelectStmt has no location of its own,
     * its first target does; Node wrappers count as levels */
    for (int level = 0; m && level < 8; level++) {
        const ProtobufCFieldDescriptor *f =
            protobuf_c_message_descriptor_get_field_by_name(m->descriptor, "location");
        if (f && f->type == PROTOBUF_C_TYPE_INT32) {
            int32_t loc = *(const int32_t *)((const char *)m + f->offset);
            if (loc >= 0)
                return loc;
        }
        m = first_child(m);
    }
    return -1;
}

fl_status fl_depth_enter(fl_planner_ctx *pc, const ProtobufCMessage *node, uint32_t weight,
                         fl_error *err)
{
    if (pc->depth + weight > FL_SQL_MAX_BIND_DEPTH) {
        int32_t location = fl_pgq_location(node);
        const char *text = pc->parsed ? pc->parsed->text : NULL;
        char what[64];
        snprintf(what, sizeof what, "nesting deeper than %u levels", FL_SQL_MAX_BIND_DEPTH);
        int32_t pos = 0;
        fl_status rc = too_complex(text ? text : "", text ? location : -1, &pos, err, what);
        pc->error_position = pos;
        return rc;
    }
    pc->depth += weight;
    return FL_OK;
}

void fl_depth_leave(fl_planner_ctx *pc, uint32_t weight)
{
    pc->depth = pc->depth > weight ? pc->depth - weight : 0;
}

bool fl_sql_is_too_complex(const fl_error *err)
{
    return err && err->code == FL_ELIMIT && !strcmp(err->sqlstate, "54001");
}
