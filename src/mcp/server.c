/*
 * server.c - the MCP server object: options with their defaults, the
 * locks, and fl_mcp_handle, which takes one message through parsing
 * (jsonrpc.c) and dispatch (dispatch.c) to the response text.
 */
#include <stdlib.h>
#include <string.h>

#include "mcp/mcp_internal.h"

fl_status fl_mcp_server_new(const fl_mcp_options *opt, fl_mcp_server **out, fl_error *err)
{
    *out = NULL;
    if (!opt || !opt->io || !opt->resolve_principal)
        return fl_errorf(err, FL_EINVAL, "mcp: options need io and resolve_principal");
    fl_mcp_server *m = calloc(1, sizeof *m);
    if (!m)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    m->opt = *opt;
    if (!m->opt.max_message_bytes)
        m->opt.max_message_bytes = 4u << 20;
    if (!m->opt.max_depth)
        m->opt.max_depth = 64;
    if (!m->opt.max_result_rows)
        m->opt.max_result_rows = 100000;
    if (!m->opt.max_results_bytes)
        m->opt.max_results_bytes = 64u << 20;
    if (!m->opt.max_sessions)
        m->opt.max_sessions = 1024;
    if (!m->opt.threads)
        m->opt.threads = 2;
    pthread_mutex_init(&m->mu, NULL);
    pthread_mutex_init(&m->cat_mu, NULL);
    *out = m;
    return FL_OK;
}

void fl_mcp_server_free(fl_mcp_server *m)
{
    if (!m)
        return;
    mcp_sessions_free(m);
    mcp_results_free(m);
    mcp_rates_free(m);
    pthread_mutex_destroy(&m->mu);
    pthread_mutex_destroy(&m->cat_mu);
    free(m);
}

static void reset_exchange(fl_mcp_exchange *x)
{
    x->new_session_id[0] = '\0';
    x->negotiated_version[0] = '\0';
    x->outcome = FL_MCP_OK;
    x->had_requests = false;
}

fl_status fl_mcp_handle(fl_mcp_server *m, fl_mcp_exchange *x, const char *msg, size_t len,
                        char **response, fl_error *err)
{
    *response = NULL;
    reset_exchange(x);
    json_t *resp = NULL;
    if (len > m->opt.max_message_bytes)
        x->outcome = FL_MCP_TOO_LARGE;
    json_t *j = mcp_parse(m, msg ? msg : "", msg ? len : 0, &resp);
    if (j) {
        resp = mcp_dispatch(m, x, j);
        json_decref(j);
    } else {
        x->had_requests = true; /* an unparsable message is answered */
    }
    if (!resp)
        return FL_OK;
    *response = json_dumps(resp, JSON_COMPACT);
    json_decref(resp);
    if (!*response)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    return FL_OK;
}
