/*
 * limits.c - the HTTP server's share of "resource limits that hold"
 * (docs/security.md): connection limits for libmicrohttpd, the client's
 * address (audit, login throttling), a poll that notices a client that went
 * away while its request is still being worked on, and the limits of
 * POST /v1/sql sessions (per-role ceilings from the auth store, else the
 * server's defaults; running statements per principal in an fl_admission
 * that pgwire shares).
 */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "floe/sql_queue.h"
#include "server/server_internal.h"

/* 80% of RAM over the 64 statements /v1/sql runs at most (at least 64
 * MiB): a full endpoint never promises more memory than the machine has. */
static uint64_t default_sql_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    uint64_t ram = pages > 0 && psz > 0 ? (uint64_t)pages * (uint64_t)psz : (4ull << 30);
    uint64_t per = ram / 10 * 8 / SRV_SQL_MAX_RUNNING;
    return per < (64ull << 20) ? (64ull << 20) : per;
}

fl_status srv_limits_init(fl_server *s, fl_error *err)
{
    if (!s->opt.max_connections)
        s->opt.max_connections = 4096;
    if (!s->opt.max_connections_per_ip)
        s->opt.max_connections_per_ip = 64;
    if (!s->opt.connection_timeout_s)
        s->opt.connection_timeout_s = 30;
    if (!s->opt.sql_memory_limit && s->opt.sql_queue)
        s->opt.sql_memory_limit = fl_sql_queue_share(s->opt.sql_queue);
    if (!s->opt.sql_memory_limit)
        s->opt.sql_memory_limit = default_sql_memory();
    if (s->opt.sql_limits)
        s->sql_limits = *s->opt.sql_limits;
    s->opt.sql_limits = NULL; /* copied */
    s->admission = s->opt.admission;
    if (!s->admission) {
        FL_TRY(fl_admission_new(&s->admission, err));
        s->own_admission = true;
    }
    return FL_OK;
}

void srv_limits_free(fl_server *s)
{
    if (s->own_admission)
        fl_admission_free(s->admission);
    s->admission = NULL;
}

struct fl_auth *fl_server_auth(fl_server *s)
{
    return s ? s->auth : NULL;
}

const char *srv_client_addr(const fl_server_request *r, char *buf, size_t cap)
{
    snprintf(buf, cap, "unknown");
    const union MHD_ConnectionInfo *ci =
        r->conn ? MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS) : NULL;
    if (!ci || !ci->client_addr)
        return buf;
    const struct sockaddr *sa = ci->client_addr;
    char ip[INET6_ADDRSTRLEN] = "?";
    int port = 0;
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)sa;
        inet_ntop(AF_INET, &in->sin_addr, ip, sizeof ip);
        port = ntohs(in->sin_port);
    } else if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in = (const struct sockaddr_in6 *)(const void *)sa;
        inet_ntop(AF_INET6, &in->sin6_addr, ip, sizeof ip);
        port = ntohs(in->sin6_port);
    }
    snprintf(buf, cap, "%s:%d", ip, port);
    return buf;
}

const char *srv_client_ip(const fl_server_request *r, char *buf, size_t cap)
{
    srv_client_addr(r, buf, cap);
    char *colon = strrchr(buf, ':');
    if (colon && strcmp(buf, "unknown"))
        *colon = '\0';
    return buf;
}

bool srv_req_gone(const fl_server_request *r)
{
    const union MHD_ConnectionInfo *ci =
        r->conn ? MHD_get_connection_info(r->conn, MHD_CONNECTION_INFO_CONNECTION_FD) : NULL;
    if (!ci || ci->connect_fd == MHD_INVALID_SOCKET)
        return false;
    struct pollfd p = {.fd = ci->connect_fd, .events = POLLRDHUP};
    return poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

fl_status srv_sql_limits(fl_server *s, const fl_principal *who, fl_sql_options *o,
                         uint32_t *max_statements, fl_error *err)
{
    o->memory_limit = s->opt.sql_memory_limit;
    return fl_limits_for_session(s->auth, who, &s->sql_limits, o, max_statements, err);
}
