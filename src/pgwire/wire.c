/*
 * wire.c - bytes in and out of one connection: the transport (socket, TLS
 * or in-memory), the output buffer with message framing, and the readers
 * for message bodies.
 *
 * Message layout (PostgreSQL protocol v3, "Message Formats"): one type
 * byte, an int32 big-endian length that counts itself but not the type,
 * then the body. pgw_begin() writes the type and a placeholder length;
 * pgw_end() patches it. Output is buffered and flushed when it exceeds the
 * configured output_buffer_bytes (and at ReadyForQuery / Flush), so a
 * connection never holds more than that plus one message.
 *
 * ErrorResponse/NoticeResponse fields: 'S' severity (localized), 'V'
 * severity (never localized), 'C' SQLSTATE, 'M' message, 'P' position
 * (decimal, 1-based characters), terminated by a zero byte.
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "floe/errcodes.h"
#include "floe/sql.h"
#include "pgwire/pgw.h"

static ssize_t raw_read(pgw_conn *c, void *buf, size_t n, bool idle)
{
    pgw_io *io = &c->io;
    if (io->mem) {
        size_t left = io->mem_len - io->mem_pos;
        if (left == 0)
            return 0;
        if (n > left)
            n = left;
        memcpy(buf, io->mem + io->mem_pos, n);
        io->mem_pos += n;
        return (ssize_t)n;
    }
    for (;;) {
        if (!(io->ssl && pgw_tls_pending(io->ssl) > 0)) {
            struct pollfd pfd = {.fd = io->fd, .events = POLLIN};
            int timeout = pgw_read_timeout_ms(c, idle); /* before auth: what is left of it */
            if (timeout < 0)
                return -1;
            int pr = poll(&pfd, 1, timeout);
            if (pr < 0 && errno == EINTR)
                continue;
            if (pr <= 0)
                return -1; /* timeout or error */
        }
        if (io->ssl) {
            bool retry;
            int r = pgw_tls_read(io->ssl, buf, (int)(n > 1 << 30 ? 1 << 30 : n), &retry);
            if (r < 0 && retry)
                continue;
            return r;
        }
        ssize_t r = recv(io->fd, buf, n, 0);
        if (r < 0 && errno == EINTR)
            continue;
        return r;
    }
}

bool pgw_read_full(pgw_conn *c, void *buf, size_t n, bool idle)
{
    uint8_t *p = buf;
    while (n) {
        ssize_t r = raw_read(c, p, n, idle);
        if (r <= 0) {
            c->io_failed = true;
            return false;
        }
        p += r;
        n -= (size_t)r;
        c->bytes_in += (uint64_t)r;
        idle = false;
    }
    return true;
}

static bool raw_write(pgw_conn *c, const uint8_t *p, size_t n)
{
    pgw_io *io = &c->io;
    if (io->mem || io->fd < 0) {
        if (io->sink)
            io->sink(io->sink_ctx, p, n);
        return true;
    }
    while (n) {
        ssize_t w;
        if (io->ssl) {
            bool retry;
            int r = pgw_tls_write(io->ssl, p, (int)(n > 1 << 30 ? 1 << 30 : n), &retry);
            if (r <= 0) {
                if (retry)
                    continue;
                return false;
            }
            w = r;
        } else {
            w = send(io->fd, p, n, MSG_NOSIGNAL);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                return false;
        }
        p += w;
        n -= (size_t)w;
    }
    return true;
}

bool pgw_flush(pgw_conn *c)
{
    if (c->out_len && !c->io_failed) {
        if (!raw_write(c, c->out, c->out_len))
            c->io_failed = true;
        c->bytes_out += c->out_len;
    }
    c->out_len = 0;
    return !c->io_failed;
}

static void reserve(pgw_conn *c, size_t n)
{
    if (c->out_len + n <= c->out_cap)
        return;
    size_t cap = c->out_cap ? c->out_cap : 8192;
    while (cap < c->out_len + n)
        cap *= 2;
    uint8_t *p = realloc(c->out, cap);
    if (!p) {
        c->io_failed = true; /* out of memory: the connection is dropped */
        return;
    }
    c->out = p;
    c->out_cap = cap;
    if (cap > c->peak_out)
        c->peak_out = cap;
}

uint8_t *pgw_reserve(pgw_conn *c, size_t n)
{
    reserve(c, n);
    return c->io_failed ? NULL : c->out + c->out_len;
}

void pgw_put(pgw_conn *c, const void *p, size_t n)
{
    if (n == 0) /* p may be NULL for empty values */
        return;
    reserve(c, n);
    if (c->io_failed)
        return;
    memcpy(c->out + c->out_len, p, n);
    c->out_len += n;
}

void pgw_put_u8(pgw_conn *c, uint8_t v)
{
    pgw_put(c, &v, 1);
}

void pgw_put_i16(pgw_conn *c, int16_t v)
{
    uint8_t b[2] = {(uint8_t)((uint16_t)v >> 8), (uint8_t)v};
    pgw_put(c, b, 2);
}

void pgw_put_i32(pgw_conn *c, int32_t v)
{
    uint32_t u = (uint32_t)v;
    uint8_t b[4] = {(uint8_t)(u >> 24), (uint8_t)(u >> 16), (uint8_t)(u >> 8), (uint8_t)u};
    pgw_put(c, b, 4);
}

void pgw_put_str(pgw_conn *c, const char *s)
{
    pgw_put(c, s, strlen(s) + 1);
}

void pgw_begin(pgw_conn *c, char type)
{
    pgw_put_u8(c, (uint8_t)type);
    c->msg_start = c->out_len;
    pgw_put_i32(c, 0);
}

void pgw_end(pgw_conn *c)
{
    if (c->io_failed)
        return;
    uint32_t len = (uint32_t)(c->out_len - c->msg_start);
    uint8_t *b = c->out + c->msg_start;
    b[0] = (uint8_t)(len >> 24);
    b[1] = (uint8_t)(len >> 16);
    b[2] = (uint8_t)(len >> 8);
    b[3] = (uint8_t)len;
    if (c->out_len >= c->srv->o.output_buffer_bytes)
        pgw_flush(c);
}

static void send_fields(pgw_conn *c, char type, const char *severity, const char *sqlstate,
                        int32_t position, const char *msg)
{
    pgw_begin(c, type);
    pgw_put_u8(c, 'S');
    pgw_put_str(c, severity);
    pgw_put_u8(c, 'V');
    pgw_put_str(c, severity);
    pgw_put_u8(c, 'C');
    pgw_put_str(c, sqlstate && *sqlstate ? sqlstate : "XX000");
    pgw_put_u8(c, 'M');
    pgw_put_str(c, msg);
    if (position > 0) {
        char pos[16];
        snprintf(pos, sizeof pos, "%d", position);
        pgw_put_u8(c, 'P');
        pgw_put_str(c, pos);
    }
    pgw_put_u8(c, 0);
    pgw_end(c);
}

void pgw_send_error(pgw_conn *c, const char *severity, const char *sqlstate, int32_t position,
                    const char *fmt, ...)
{
    char msg[FL_ERROR_MSG_MAX + 64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    send_fields(c, 'E', severity, sqlstate, position, msg);
}

void pgw_send_notice(pgw_conn *c, const char *severity, const char *sqlstate, const char *msg)
{
    send_fields(c, 'N', severity, sqlstate, 0, msg);
}

void pgw_send_sql_error(pgw_conn *c, fl_status rc, const fl_error *err)
{
    fl_sql_error_info info;
    memset(&info, 0, sizeof info);
    if (c->sess)
        fl_sql_last_error(c->sess, &info);
    /* the code the error was raised with (the session recorded the same one
     * for errors of its statements), else the default of its status */
    const char *state = err && err->code ? fl_error_sqlstate(err) : info.sqlstate;
    if (!state[0] || !strcmp(state, "00000"))
        state = fl_sqlstate_for_status(rc);
    pgw_send_error(c, "ERROR", state, info.position, "%s",
                   err && err->msg[0] ? err->msg : "statement failed");
}

void pgw_send_status(pgw_conn *c, const char *name, const char *value)
{
    pgw_begin(c, 'S');
    pgw_put_str(c, name);
    pgw_put_str(c, value ? value : "");
    pgw_end(c);
}

void pgw_send_ready(pgw_conn *c)
{
    /* the statement is over: free its slot before the client can see that,
     * so a script's next statement (on any connection) is not refused 53300 */
    pgw_limits_leave(c);
    pgw_begin(c, 'Z');
    pgw_put_u8(c, (uint8_t)c->txn);
    pgw_end(c);
    pgw_flush(c);
}

void pgw_send_complete(pgw_conn *c, const char *tag)
{
    pgw_begin(c, 'C');
    pgw_put_str(c, tag);
    pgw_end(c);
}

/* ---- readers ---- */

uint8_t pgw_get_u8(pgw_rd *r)
{
    if (r->bad || r->pos + 1 > r->n) {
        r->bad = true;
        return 0;
    }
    return r->p[r->pos++];
}

int16_t pgw_get_i16(pgw_rd *r)
{
    if (r->bad || r->pos + 2 > r->n) {
        r->bad = true;
        return 0;
    }
    uint16_t v = (uint16_t)((r->p[r->pos] << 8) | r->p[r->pos + 1]);
    r->pos += 2;
    return (int16_t)v;
}

int32_t pgw_get_i32(pgw_rd *r)
{
    if (r->bad || r->pos + 4 > r->n) {
        r->bad = true;
        return 0;
    }
    const uint8_t *b = r->p + r->pos;
    uint32_t v = ((uint32_t)b[0] << 24) | ((uint32_t)b[1] << 16) | ((uint32_t)b[2] << 8) | b[3];
    r->pos += 4;
    return (int32_t)v;
}

const char *pgw_get_str(pgw_rd *r)
{
    if (r->bad)
        return NULL;
    const uint8_t *z = memchr(r->p + r->pos, 0, r->n - r->pos);
    if (!z) {
        r->bad = true;
        return NULL;
    }
    const char *s = (const char *)r->p + r->pos;
    r->pos = (size_t)(z - r->p) + 1;
    return s;
}

const uint8_t *pgw_get_bytes(pgw_rd *r, size_t n)
{
    if (r->bad || n > r->n - r->pos) {
        r->bad = true;
        return NULL;
    }
    const uint8_t *p = r->p + r->pos;
    r->pos += n;
    return p;
}
