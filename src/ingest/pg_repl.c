/*
 * pg_repl.c - the logical replication client over libpq (pg_cdc.h,
 * "the replication client"): replication commands on a replication=database
 * connection, then the COPY BOTH stream of START_REPLICATION.
 *
 * Stream messages (inside CopyData, integers big-endian):
 *   server 'w' XLogData   wal_start:8 wal_end:8 clock:8 payload (one pgoutput message)
 *   server 'k' keepalive  wal_end:8 clock:8 reply_requested:1
 *   client 'r' status     written:8 flushed:8 applied:8 clock:8 reply_requested:1
 * Clocks are microseconds since 2000-01-01 UTC.
 *
 * Exactly-once rests on one rule: the flushed (and applied) position we
 * report is only ever what the caller passed to pgcdc_repl_confirm, i.e. an
 * end_lsn whose transaction is durable downstream. The slot keeps all WAL
 * after it, and a restart from it re-delivers every transaction not
 * confirmed. "written" reports what was received, which PostgreSQL uses
 * for monitoring only.
 *
 * States: connected (commands allowed) -> streaming (after START_REPLICATION;
 * only poll / confirm / close) -> closed. Polling never blocks longer than
 * its timeout, and a status update goes out at least every
 * status_interval_ms while the caller polls, so the server's
 * wal_sender_timeout does not end an idle stream.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "floe/calendar.h"
#include "ingest/pg_cdc.h"
#include "ingest/pg_conn.h"

#define MAX_MSGS_PER_POLL 10000 /* so a caller under a flood still checkpoints on time */

struct pgcdc_repl {
    PGconn *conn;
    char slot[64];
    char *publications;
    uint32_t proto;
    bool streaming_opt;
    int status_interval_ms;
    pgcdc_system sys;
    pgcdc_decoder *dec; /* borrowed, set by start */
    bool streaming;     /* START_REPLICATION succeeded */
    pgcdc_lsn received, confirmed;
    int64_t last_status_ms; /* monotonic */
};

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t pg_clock_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000 - FL_PG_EPOCH_US;
}

static uint64_t be(const uint8_t *p, int k)
{
    uint64_t v = 0;
    for (int i = 0; i < k; i++)
        v = v << 8 | p[i];
    return v;
}

static void put_be(uint8_t *p, uint64_t v, int k)
{
    for (int i = k - 1; i >= 0; i--, v >>= 8)
        p[i] = (uint8_t)v;
}

static bool valid_slot_name(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n == 0 || n > 63)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
            return false;
    return true;
}

static fl_status identify_system(pgcdc_repl *r, fl_error *err)
{
    PGresult *res;
    FL_TRY(pgcdc_pq_exec(r->conn, "IDENTIFY_SYSTEM", PGRES_TUPLES_OK, &res, err));
    fl_status rc = FL_OK;
    if (PQntuples(res) != 1 || PQnfields(res) < 4 ||
        !pgcdc_lsn_parse(PQgetvalue(res, 0, 2), &r->sys.xlogpos)) {
        rc = fl_errorf(err, FL_ECORRUPT, "postgres: IDENTIFY_SYSTEM: unexpected result");
    } else {
        snprintf(r->sys.systemid, sizeof r->sys.systemid, "%s", PQgetvalue(res, 0, 0));
        r->sys.timeline = (uint32_t)strtoul(PQgetvalue(res, 0, 1), NULL, 10);
        snprintf(r->sys.dbname, sizeof r->sys.dbname, "%s", PQgetvalue(res, 0, 3));
    }
    PQclear(res);
    return rc;
}

fl_status pgcdc_repl_connect(const pgcdc_repl_options *o, pgcdc_repl **out, fl_error *err)
{
    *out = NULL;
    if (!valid_slot_name(o->slot))
        return fl_errorf(err, FL_EINVAL,
                         "replication slot name '%s': use 1 to 63 of a-z, 0-9 and _",
                         o->slot ? o->slot : "");
    uint32_t proto = o->proto_version ? o->proto_version : 1;
    if (proto > 2 || (o->streaming && proto < 2))
        return fl_errorf(err, FL_EINVAL, "pgoutput protocol version %u%s: floe speaks 1 and 2",
                         proto, o->streaming ? " with streaming (needs 2)" : "");
    pgcdc_repl *r = calloc(1, sizeof *r);
    if (!r || !(r->publications = strdup(o->publications ? o->publications : ""))) {
        free(r);
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    snprintf(r->slot, sizeof r->slot, "%s", o->slot);
    r->proto = proto;
    r->streaming_opt = o->streaming;
    r->status_interval_ms = o->status_interval_ms > 0 ? o->status_interval_ms : 10000;
    fl_status rc = pgcdc_pq_connect(o->conninfo, true, &r->conn, err);
    if (rc == FL_OK)
        rc = identify_system(r, err);
    if (rc != FL_OK) {
        pgcdc_repl_close(r);
        return rc;
    }
    *out = r;
    return FL_OK;
}

const pgcdc_system *pgcdc_repl_system(const pgcdc_repl *r)
{
    return &r->sys;
}

static fl_status not_streaming(pgcdc_repl *r, const char *what, fl_error *err)
{
    if (!r->streaming)
        return FL_OK;
    return fl_errorf(err, FL_EINVAL, "%s: the connection is streaming already", what);
}

fl_status pgcdc_repl_create_slot(pgcdc_repl *r, bool temporary, pgcdc_slot *out, fl_error *err)
{
    char sql[256];
    PGresult *res;
    FL_TRY(not_streaming(r, "CREATE_REPLICATION_SLOT", err));
    snprintf(sql, sizeof sql, "CREATE_REPLICATION_SLOT \"%s\" %sLOGICAL pgoutput EXPORT_SNAPSHOT",
             r->slot, temporary ? "TEMPORARY " : "");
    FL_TRY(pgcdc_pq_exec(r->conn, sql, PGRES_TUPLES_OK, &res, err));
    fl_status rc = FL_OK;
    memset(out, 0, sizeof *out);
    if (PQntuples(res) != 1 || PQnfields(res) < 3 ||
        !pgcdc_lsn_parse(PQgetvalue(res, 0, 1), &out->consistent_point) ||
        PQgetlength(res, 0, 2) >= (int)sizeof out->snapshot) {
        rc = fl_errorf(err, FL_ECORRUPT, "postgres: %s: unexpected result", sql);
    } else {
        snprintf(out->name, sizeof out->name, "%s", PQgetvalue(res, 0, 0));
        snprintf(out->snapshot, sizeof out->snapshot, "%s", PQgetvalue(res, 0, 2));
    }
    PQclear(res);
    return rc;
}

fl_status pgcdc_repl_drop_slot(pgcdc_repl *r, fl_error *err)
{
    char sql[128];
    FL_TRY(not_streaming(r, "DROP_REPLICATION_SLOT", err));
    snprintf(sql, sizeof sql, "DROP_REPLICATION_SLOT \"%s\" WAIT", r->slot);
    return pgcdc_pq_exec(r->conn, sql, PGRES_COMMAND_OK, NULL, err);
}

fl_status pgcdc_repl_slot_confirmed(pgcdc_repl *r, pgcdc_lsn *out, fl_error *err)
{
    char sql[160];
    PGresult *res;
    FL_TRY(not_streaming(r, "reading the slot", err));
    snprintf(sql, sizeof sql,
             "SELECT coalesce(confirmed_flush_lsn, '0/0') FROM pg_replication_slots "
             "WHERE slot_name = '%s'",
             r->slot);
    FL_TRY(pgcdc_pq_exec(r->conn, sql, PGRES_TUPLES_OK, &res, err));
    fl_status rc = FL_OK;
    if (PQntuples(res) == 0)
        rc = fl_errorf(err, FL_ENOTFOUND, "replication slot '%s' does not exist", r->slot);
    else if (!pgcdc_lsn_parse(PQgetvalue(res, 0, 0), out))
        rc = fl_errorf(err, FL_ECORRUPT, "postgres: %s: unexpected result", sql);
    PQclear(res);
    return rc;
}

fl_status pgcdc_repl_start(pgcdc_repl *r, pgcdc_lsn start, pgcdc_decoder *dec, fl_error *err)
{
    char lsn[24];
    fl_buf sql;
    FL_TRY(not_streaming(r, "START_REPLICATION", err));
    fl_buf_init(&sql, 0);
    fl_buf pubs;
    fl_buf_init(&pubs, 0);
    fl_status rc = pgcdc_pq_publications(r->publications, &pubs, err);
    if (rc == FL_OK)
        rc = fl_buf_appendf(&sql, err,
                            "START_REPLICATION SLOT \"%s\" LOGICAL %s (proto_version '%u', "
                            "publication_names '",
                            r->slot, pgcdc_lsn_format(start, lsn), r->proto);
    for (size_t i = 0; rc == FL_OK && i < pubs.len; i++) /* a string literal: double the quotes */
        rc = pubs.data[i] == '\'' ? fl_buf_puts(&sql, "''", err)
                                  : fl_buf_putc(&sql, pubs.data[i], err);
    if (rc == FL_OK)
        rc = fl_buf_puts(&sql, r->streaming_opt ? "', streaming 'on')" : "')", err);
    if (rc == FL_OK)
        rc = pgcdc_pq_exec(r->conn, sql.data, PGRES_COPY_BOTH, NULL, err);
    fl_buf_free(&sql);
    fl_buf_free(&pubs);
    if (rc != FL_OK)
        return rc;
    r->dec = dec;
    r->streaming = true;
    r->received = start;
    if (r->confirmed < start)
        r->confirmed = start;
    r->last_status_ms = mono_ms();
    return FL_OK;
}

static fl_status send_status(pgcdc_repl *r, fl_error *err)
{
    uint8_t m[34];
    m[0] = 'r';
    put_be(m + 1, r->received > r->confirmed ? r->received : r->confirmed, 8);
    put_be(m + 9, r->confirmed, 8);
    put_be(m + 17, r->confirmed, 8);
    put_be(m + 25, (uint64_t)pg_clock_us(), 8);
    m[33] = 0;
    if (PQputCopyData(r->conn, (const char *)m, sizeof m) != 1 || PQflush(r->conn) != 0)
        return pgcdc_pq_error(r->conn, NULL, "sending the standby status", err);
    r->last_status_ms = mono_ms();
    return FL_OK;
}

static fl_status handle_copy(pgcdc_repl *r, const uint8_t *m, size_t n, size_t *nmsgs,
                             fl_error *err)
{
    if (n >= 1 && m[0] == 'w') {
        if (n < 25)
            return fl_errorf(err, FL_ECORRUPT,
                             "replication stream: XLogData of %zu bytes, its header needs 25", n);
        pgcdc_lsn start = be(m + 1, 8), end = be(m + 9, 8);
        if (end > r->received)
            r->received = end;
        (*nmsgs)++;
        return pgcdc_decode(r->dec, m + 25, n - 25, start, err);
    }
    if (n >= 1 && m[0] == 'k') {
        if (n < 18)
            return fl_errorf(err, FL_ECORRUPT,
                             "replication stream: keepalive of %zu bytes, needs 18", n);
        pgcdc_lsn end = be(m + 1, 8);
        if (end > r->received)
            r->received = end;
        return m[17] ? send_status(r, err) : FL_OK;
    }
    return fl_errorf(err, FL_ECORRUPT, "replication stream: unknown message type 0x%02x",
                     n ? m[0] : 0);
}

/* The stream ended (the server sent CopyDone or an error): its reason. */
static fl_status stream_ended(pgcdc_repl *r, fl_error *err)
{
    r->streaming = false;
    PGresult *res = PQgetResult(r->conn);
    fl_status rc =
        res && PQresultStatus(res) == PGRES_FATAL_ERROR
            ? pgcdc_pq_error(r->conn, res, "replication stream", err)
            : fl_errorf(err, FL_EIO, "postgres: the server ended the replication stream");
    while (res) {
        PQclear(res);
        res = PQgetResult(r->conn);
    }
    return rc;
}

/* Decodes every CopyData libpq has buffered (up to the per-poll cap). */
static fl_status drain(pgcdc_repl *r, size_t *nmsgs, fl_error *err)
{
    while (*nmsgs < MAX_MSGS_PER_POLL) {
        char *buf = NULL;
        int n = PQgetCopyData(r->conn, &buf, 1);
        if (n == 0)
            return FL_OK;
        if (n == -1)
            return stream_ended(r, err);
        if (n < 0)
            return pgcdc_pq_error(r->conn, NULL, "replication stream", err);
        fl_status rc = handle_copy(r, (const uint8_t *)buf, (size_t)n, nmsgs, err);
        PQfreemem(buf);
        FL_TRY(rc);
    }
    return FL_OK;
}

fl_status pgcdc_repl_poll(pgcdc_repl *r, int timeout_ms, size_t *nmsgs, fl_error *err)
{
    *nmsgs = 0;
    if (!r->streaming)
        return fl_errorf(err, FL_EINVAL, "replication poll: START_REPLICATION has not run");
    int64_t deadline = mono_ms() + (timeout_ms > 0 ? timeout_ms : 0);
    for (;;) {
        /* libpq's socket is non-blocking: this takes what has arrived, never waits */
        if (PQconsumeInput(r->conn) == 0)
            return pgcdc_pq_error(r->conn, NULL, "replication stream", err);
        FL_TRY(drain(r, nmsgs, err));
        int64_t now = mono_ms();
        if (now - r->last_status_ms >= r->status_interval_ms)
            FL_TRY(send_status(r, err));
        if (*nmsgs > 0 || now >= deadline)
            return FL_OK;
        int64_t wait = deadline - now;
        int64_t until_status = r->last_status_ms + r->status_interval_ms - now;
        if (until_status < wait)
            wait = until_status > 0 ? until_status : 0;
        struct pollfd pfd = {PQsocket(r->conn), POLLIN, 0};
        if (pfd.fd < 0)
            return pgcdc_pq_error(r->conn, NULL, "replication stream", err);
        if (poll(&pfd, 1, (int)wait) < 0 && errno != EINTR)
            return fl_errorf(err, FL_EIO, "replication stream: poll: %s", strerror(errno));
    }
}

fl_status pgcdc_repl_confirm(pgcdc_repl *r, pgcdc_lsn lsn, fl_error *err)
{
    if (lsn <= r->confirmed)
        return FL_OK;
    r->confirmed = lsn;
    return r->streaming ? send_status(r, err) : FL_OK;
}

pgcdc_lsn pgcdc_repl_received(const pgcdc_repl *r)
{
    return r->received;
}

pgcdc_lsn pgcdc_repl_confirmed(const pgcdc_repl *r)
{
    return r->confirmed;
}

/* CopyDone, then read until the server's own end of stream (at most ~5 s),
 * so the last status update is processed before the connection goes. */
static void end_stream(pgcdc_repl *r)
{
    if (PQputCopyEnd(r->conn, NULL) != 1 || PQflush(r->conn) != 0)
        return;
    int64_t deadline = mono_ms() + 5000;
    for (;;) {
        char *buf = NULL;
        int n = PQgetCopyData(r->conn, &buf, 1);
        if (buf)
            PQfreemem(buf);
        if (n < 0)
            break;
        if (n > 0)
            continue;
        int64_t left = deadline - mono_ms();
        struct pollfd pfd = {PQsocket(r->conn), POLLIN, 0};
        if (left <= 0 || pfd.fd < 0 || poll(&pfd, 1, (int)left) <= 0 ||
            PQconsumeInput(r->conn) == 0)
            return;
    }
    PGresult *res;
    while ((res = PQgetResult(r->conn)) != NULL)
        PQclear(res);
}

void pgcdc_repl_close(pgcdc_repl *r)
{
    if (!r)
        return;
    if (r->conn && r->streaming)
        end_stream(r);
    if (r->conn)
        PQfinish(r->conn);
    free(r->publications);
    free(r);
}
