/*
 * test_protocol.c - whole connections over the in-memory transport
 * (fl_pgwire_run_memory, trust mode, no catalog): startup and
 * ParameterStatus, simple queries, the extended protocol with pipelining and
 * error skipping, portals with row limits, SSLRequest 'N', limits on message
 * sizes, malformed messages. Checks the sequence of server message types.
 */
#include <stdlib.h>
#include <string.h>

#include "floe/pgwire.h"
#include "pgwire/pgw.h"
#include "test.h"

typedef struct out {
    uint8_t *p;
    size_t n, cap;
} out;

static void sink(void *ctx, const uint8_t *b, size_t n)
{
    out *o = ctx;
    if (o->n + n > o->cap) {
        o->cap = (o->n + n) * 2;
        o->p = realloc(o->p, o->cap);
    }
    memcpy(o->p + o->n, b, n);
    o->n += n;
}

typedef struct msg {
    uint8_t b[70000];
    size_t n;
} msg;

static void u32(msg *m, uint32_t v)
{
    m->b[m->n++] = (uint8_t)(v >> 24);
    m->b[m->n++] = (uint8_t)(v >> 16);
    m->b[m->n++] = (uint8_t)(v >> 8);
    m->b[m->n++] = (uint8_t)v;
}
static void u16(msg *m, uint16_t v)
{
    m->b[m->n++] = (uint8_t)(v >> 8);
    m->b[m->n++] = (uint8_t)v;
}
static void str(msg *m, const char *s)
{
    memcpy(m->b + m->n, s, strlen(s) + 1);
    m->n += strlen(s) + 1;
}
static size_t begin(msg *m, char t)
{
    m->b[m->n++] = (uint8_t)t;
    size_t at = m->n;
    u32(m, 0);
    return at;
}
static void end(msg *m, size_t at)
{
    uint32_t len = (uint32_t)(m->n - at);
    m->b[at] = (uint8_t)(len >> 24);
    m->b[at + 1] = (uint8_t)(len >> 16);
    m->b[at + 2] = (uint8_t)(len >> 8);
    m->b[at + 3] = (uint8_t)len;
}
static void startup(msg *m, const char *user)
{
    size_t at = m->n;
    u32(m, 0);
    u32(m, 196608);
    if (user) {
        str(m, "user");
        str(m, user);
    }
    str(m, "application_name");
    str(m, "t");
    m->b[m->n++] = 0;
    uint32_t len = (uint32_t)(m->n - at);
    m->b[at] = (uint8_t)(len >> 24);
    m->b[at + 1] = (uint8_t)(len >> 16);
    m->b[at + 2] = (uint8_t)(len >> 8);
    m->b[at + 3] = (uint8_t)len;
}
static void query(msg *m, const char *q)
{
    size_t at = begin(m, 'Q');
    str(m, q);
    end(m, at);
}
static void simple(msg *m, char t)
{
    size_t at = begin(m, t);
    end(m, at);
}

/* Message types of the output after the startup's ReadyForQuery, as a string. */
static void types(const out *o, char *buf, size_t cap, bool skip_startup)
{
    size_t i = 0, k = 0;
    bool seen_ready = !skip_startup;
    while (i + 5 <= o->n && k + 1 < cap) {
        char t = (char)o->p[i];
        uint32_t len = ((uint32_t)o->p[i + 1] << 24) | ((uint32_t)o->p[i + 2] << 16) |
                       ((uint32_t)o->p[i + 3] << 8) | o->p[i + 4];
        if (seen_ready)
            buf[k++] = t;
        if (t == 'Z')
            seen_ready = true;
        i += 1 + len;
    }
    buf[k] = 0;
}

static bool contains(const out *o, const char *s)
{
    return memmem(o->p, o->n, s, strlen(s)) != NULL;
}

static fl_pgwire *server(void)
{
    fl_pgwire_options opt;
    memset(&opt, 0, sizeof opt);
    opt.trust = true;
    opt.max_message_bytes = 60000;
    opt.session_threads = 1;
    fl_pgwire *s = NULL;
    fl_error err = {0};
    CHECK_OK(fl_pgwire_create(&opt, &s, &err), &err);
    return s;
}

static void run(fl_pgwire *s, const msg *m, out *o)
{
    o->n = 0;
    fl_pgwire_run_memory(s, m->b, m->n, sink, o);
}

static void test_startup_and_simple(void)
{
    fl_pgwire *s = server();
    static msg m;
    m.n = 0;
    startup(&m, "alice");
    query(&m, "select 1 as a, 'x' as b; select 2");
    query(&m, "");
    query(&m, "select 1/0; select 3");
    simple(&m, 'X');
    out o = {0};
    run(s, &m, &o);
    char t[64];
    types(&o, t, sizeof t, false);
    CHECK(!strncmp(t, "RSSSSSSSSSSSKZ", 14));
    CHECK(contains(&o, "server_version\0" "15.0"));
    CHECK(contains(&o, "DateStyle\0ISO, MDY"));
    types(&o, t, sizeof t, true);
    CHECK_EQ_STR(t, "TDCTDCZIZTEZ"); /* a runtime error may follow RowDescription */
    CHECK(contains(&o, "22012"));
    free(o.p);
    fl_pgwire_destroy(s);
}

static void test_extended_pipeline(void)
{
    fl_pgwire *s = server();
    static msg m;
    m.n = 0;
    startup(&m, "bob");
    size_t at = begin(&m, 'P'); /* bad SQL: error, then skip to Sync */
    str(&m, "");
    str(&m, "selec 1");
    u16(&m, 0);
    end(&m, at);
    at = begin(&m, 'B');
    str(&m, "");
    str(&m, "");
    u16(&m, 0);
    u16(&m, 0);
    u16(&m, 0);
    end(&m, at);
    simple(&m, 'S');
    at = begin(&m, 'P'); /* named statement with a parameter */
    str(&m, "s1");
    str(&m, "select x + $1 as y from (values (1), (2), (3)) t(x)");
    u16(&m, 1);
    u32(&m, 23);
    end(&m, at);
    at = begin(&m, 'D');
    m.b[m.n++] = 'S';
    str(&m, "s1");
    end(&m, at);
    at = begin(&m, 'B'); /* binary int4 parameter 10, binary results */
    str(&m, "p1");
    str(&m, "s1");
    u16(&m, 1);
    u16(&m, 1);
    u16(&m, 1);
    u32(&m, 4);
    u32(&m, 10);
    u16(&m, 1);
    u16(&m, 1);
    end(&m, at);
    at = begin(&m, 'E'); /* two rows, then suspended */
    str(&m, "p1");
    u32(&m, 2);
    end(&m, at);
    at = begin(&m, 'E'); /* the rest */
    str(&m, "p1");
    u32(&m, 0);
    end(&m, at);
    simple(&m, 'S');
    at = begin(&m, 'E'); /* portal closed by Sync */
    str(&m, "p1");
    u32(&m, 0);
    end(&m, at);
    simple(&m, 'S');
    simple(&m, 'X');
    out o = {0};
    run(s, &m, &o);
    char t[64];
    types(&o, t, sizeof t, true);
    CHECK_EQ_STR(t, "EZ1tT2DDsDCZEZ");
    CHECK(contains(&o, "42601"));
    CHECK(contains(&o, "34000"));
    /* binary 11 as the first DataRow value: len 4, 00 00 00 0b */
    CHECK(memmem(o.p, o.n, "\x00\x01\x00\x00\x00\x04\x00\x00\x00\x0b", 10) != NULL);
    free(o.p);
    fl_pgwire_destroy(s);
}

static void test_limits_and_malformed(void)
{
    fl_pgwire *s = server();
    static msg m;
    out o = {0};
    char t[64];
    m.n = 0; /* message longer than max_message_bytes: 54000, connection ends */
    startup(&m, "c");
    size_t at = begin(&m, 'Q');
    memset(m.b + m.n, 'x', 65000);
    m.n += 65000;
    m.b[m.n++] = 0;
    end(&m, at);
    run(s, &m, &o);
    CHECK(contains(&o, "54000"));
    m.n = 0; /* length below 4 */
    startup(&m, "c");
    m.b[m.n++] = 'Q';
    u32(&m, 2);
    run(s, &m, &o);
    CHECK(contains(&o, "08P01"));
    m.n = 0; /* no user */
    startup(&m, NULL);
    run(s, &m, &o);
    CHECK(contains(&o, "28000"));
    m.n = 0; /* SSLRequest without TLS: 'N', then a normal startup */
    u32(&m, 8);
    u32(&m, 80877103);
    startup(&m, "d");
    simple(&m, 'X');
    run(s, &m, &o);
    CHECK(o.n > 0 && o.p[0] == 'N');
    m.n = 0; /* Bind with a truncated parameter: 08P01, no crash */
    startup(&m, "e");
    at = begin(&m, 'P');
    str(&m, "");
    str(&m, "select $1");
    u16(&m, 0);
    end(&m, at);
    at = begin(&m, 'B');
    str(&m, "");
    str(&m, "");
    u16(&m, 0);
    u16(&m, 1);
    u32(&m, 100);
    end(&m, at);
    simple(&m, 'S');
    simple(&m, 'X');
    run(s, &m, &o);
    types(&o, t, sizeof t, true);
    CHECK_EQ_STR(t, "1EZ");
    m.n = 0; /* unknown message type */
    startup(&m, "f");
    simple(&m, 'y');
    run(s, &m, &o);
    CHECK(contains(&o, "08P01"));
    free(o.p);
    fl_pgwire_destroy(s);
}

static void test_transactions_and_settings(void)
{
    fl_pgwire *s = server();
    static msg m;
    m.n = 0;
    startup(&m, "g");
    query(&m, "begin");
    query(&m, "select 1/0");
    query(&m, "select 1");
    query(&m, "rollback");
    query(&m, "set application_name = 'zz'");
    query(&m, "show application_name");
    query(&m, "set no_such = 1");
    query(&m, "discard all");
    simple(&m, 'X');
    out o = {0};
    run(s, &m, &o);
    char t[64];
    types(&o, t, sizeof t, true);
    CHECK_EQ_STR(t, "CZTEZEZCZSCZTDCZEZCZ");
    CHECK(contains(&o, "25P02"));
    CHECK(contains(&o, "42704"));
    /* ReadyForQuery statuses: T after BEGIN, E after the error, I after ROLLBACK */
    CHECK(memmem(o.p, o.n, "Z\x00\x00\x00\x05T", 6) && memmem(o.p, o.n, "Z\x00\x00\x00\x05" "E", 6));
    free(o.p);
    fl_pgwire_destroy(s);
}

static void parse_bind(msg *m, const char *sql, const char *portal)
{
    size_t at = begin(m, 'P');
    str(m, "");
    str(m, sql);
    u16(m, 0);
    end(m, at);
    at = begin(m, 'B');
    str(m, portal);
    str(m, "");
    u16(m, 0);
    u16(m, 0);
    u16(m, 0);
    end(m, at);
}

static void execute(msg *m, const char *portal, uint32_t max)
{
    size_t at = begin(m, 'E');
    str(m, portal);
    u32(m, max);
    end(m, at);
}

/* pgJDBC's fetchSize with autocommit off: a named portal survives Sync and
 * the replacement of the unnamed statement it was bound from, until COMMIT. */
static void test_portal_outlives_statement(void)
{
    fl_pgwire *s = server();
    static msg m;
    m.n = 0;
    startup(&m, "h");
    query(&m, "begin");
    parse_bind(&m, "select x from (values (1), (2), (3)) t(x)", "C_3");
    execute(&m, "C_3", 1);
    simple(&m, 'S');
    parse_bind(&m, "select 42", "");
    execute(&m, "", 0);
    simple(&m, 'S');
    execute(&m, "C_3", 0);
    simple(&m, 'S');
    query(&m, "commit");
    execute(&m, "C_3", 0);
    simple(&m, 'S');
    simple(&m, 'X');
    out o = {0};
    run(s, &m, &o);
    char t[64];
    types(&o, t, sizeof t, true);
    CHECK_EQ_STR(t, "CZ12DsZ12DCZDDCZCZEZ");
    CHECK(contains(&o, "SELECT 2")); /* rows of the last Execute, as PostgreSQL */
    free(o.p);
    fl_pgwire_destroy(s);
}

int main(void)
{
    TEST_RUN(test_portal_outlives_statement);
    TEST_RUN(test_startup_and_simple);
    TEST_RUN(test_extended_pipeline);
    TEST_RUN(test_limits_and_malformed);
    TEST_RUN(test_transactions_and_settings);
    return TEST_EXIT();
}
