/*
 * session.c - MCP sessions of the Streamable HTTP transport: an id issued
 * on initialize (128 random bits, hex: visible ASCII as the spec asks),
 * the negotiated version and the principal that created it. Without
 * options.sessions the server has one implicit session (stdio: the
 * connection is the session). The caller holds m->mu.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "mcp/mcp_internal.h"

static bool random_hex(char *out, size_t nbytes)
{
    uint8_t b[32];
    if (nbytes > sizeof b || getrandom(b, nbytes, 0) != (ssize_t)nbytes)
        return false;
    for (size_t i = 0; i < nbytes; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
    return true;
}

/* Drops the oldest session when the table is full. */
static void evict_oldest(fl_mcp_server *m)
{
    mcp_session **pp = &m->sessions;
    if (!*pp)
        return;
    while ((*pp)->next)
        pp = &(*pp)->next;
    free(*pp);
    *pp = NULL;
    m->nsessions--;
}

mcp_session *mcp_session_create(fl_mcp_server *m, const char *version, const char *owner)
{
    mcp_session *s = &m->implicit;
    if (m->opt.sessions) {
        if (m->nsessions >= m->opt.max_sessions)
            evict_oldest(m);
        s = calloc(1, sizeof *s);
        if (!s)
            return NULL;
        if (!random_hex(s->id, 16)) {
            free(s);
            return NULL;
        }
        s->next = m->sessions; /* newest first */
        m->sessions = s;
        m->nsessions++;
    }
    snprintf(s->version, sizeof s->version, "%s", version);
    snprintf(s->owner, sizeof s->owner, "%s", owner);
    s->initialized = false;
    return s;
}

mcp_session *mcp_session_find(fl_mcp_server *m, const char *id)
{
    if (!m->opt.sessions)
        return &m->implicit;
    for (mcp_session *s = m->sessions; id && s; s = s->next)
        if (!strcmp(s->id, id))
            return s;
    return NULL;
}

fl_status fl_mcp_session_end(fl_mcp_server *m, const char *id, const fl_principal *who,
                             fl_error *err)
{
    pthread_mutex_lock(&m->mu);
    fl_status rc = fl_errorf(err, FL_ENOTFOUND, "no session %s", id ? id : "(none)");
    for (mcp_session **pp = &m->sessions; id && *pp; pp = &(*pp)->next) {
        if (strcmp((*pp)->id, id))
            continue;
        if (strcmp((*pp)->owner, who->name) && !who->admin) {
            rc = fl_errorf(err, FL_EFORBIDDEN, "session %s belongs to another principal", id);
            break;
        }
        mcp_session *s = *pp;
        *pp = s->next;
        free(s);
        m->nsessions--;
        fl_error_clear(err);
        rc = FL_OK;
        break;
    }
    pthread_mutex_unlock(&m->mu);
    return rc;
}

void mcp_sessions_free(fl_mcp_server *m)
{
    while (m->sessions) {
        mcp_session *s = m->sessions;
        m->sessions = s->next;
        free(s);
    }
    m->nsessions = 0;
}
