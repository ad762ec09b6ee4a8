/*
 * auth.c - the authentication exchange after the startup packet.
 *
 *   trust (--pg-trust)  AuthenticationOk; the session is an anonymous
 *                       principal with every privilege (development only).
 *   plain TCP           SCRAM-SHA-256 (AuthenticationSASL 10, SASLContinue
 *                       11, SASLFinal 12, then AuthenticationOk 0).
 *   TLS                 SCRAM-SHA-256 as well; cleartext passwords
 *                       (AuthenticationCleartextPassword 3) are accepted only
 *                       on TLS connections, when the server was built with
 *                       tls_cleartext (never over plain TCP).
 *
 * An unknown user runs a mock SCRAM exchange with a random verifier, so the
 * answer (28P01 after the proof) does not reveal whether the name exists.
 * Any failure sends 28P01 "password authentication failed for user" and the
 * caller closes the connection.
 *
 * Every attempt is audited (pg.login, the user name, the client address,
 * ok / denied / throttled) and counted by the auth store's throttle
 * (src/auth/throttle.c): a user name or client address with too many
 * recent failures is refused with 28000 before any exchange starts.
 */
#include <stdio.h>
#include <string.h>

#include <openssl/rand.h>

#include "pgwire/pgw.h"

static void auth_request(pgw_conn *c, int32_t code, const void *extra, size_t n)
{
    pgw_begin(c, 'R');
    pgw_put_i32(c, code);
    if (n)
        pgw_put(c, extra, n);
    pgw_end(c);
    pgw_flush(c);
}

static bool fail(pgw_conn *c)
{
    pgw_send_error(c, "FATAL", "28P01", 0, "password authentication failed for user \"%s\"",
                   c->user);
    pgw_flush(c);
    fl_auth_login_record(c->srv->auth, c->user, c->peer_ip, false);
    fl_auth_audit_login(c->srv->auth, "pg.login", c->user, "pgwire", c->peer, "denied",
                        "authentication failed");
    return false;
}

/* Too many recent failures for this user or address: refused unheard. */
static bool throttled(pgw_conn *c)
{
    int retry = 0;
    fl_error err = {0};
    if (fl_auth_login_allowed(c->srv->auth, c->user, c->peer_ip, &retry, &err) == FL_OK)
        return false;
    pgw_send_error(c, "FATAL", "28000", 0, "%s", err.msg);
    pgw_flush(c);
    fl_auth_audit_login(c->srv->auth, "pg.login", c->user, "pgwire", c->peer, "throttled", err.msg);
    return true;
}

static bool scram(pgw_conn *c)
{
    pgw_scram x;
    memset(&x, 0, sizeof x);
    fl_error err = {0};
    bool known = fl_auth_scram_lookup(c->srv->auth, c->user, &x.v, &c->who, &err) == FL_OK;
    if (!known) { /* mock verifier: the exchange proceeds and fails at the proof */
        x.v.salt_len = 16;
        x.v.iterations = 4096;
        RAND_bytes(x.v.salt, 16);
        RAND_bytes(x.v.stored_key, 32);
        RAND_bytes(x.v.server_key, 32);
    }
    static const char mech[] = "SCRAM-SHA-256\0";
    auth_request(c, 10, mech, sizeof mech); /* name NUL + list terminator NUL */
    char type;
    pgw_rd r;
    if (!pgw_read_msg(c, &type, &r, false))
        return false;
    if (type != 'p')
        return fail(c);
    const char *m = pgw_get_str(&r);
    int32_t len = pgw_get_i32(&r);
    const uint8_t *data = len >= 0 ? pgw_get_bytes(&r, (size_t)len) : NULL;
    if (r.bad || !m || strcmp(m, "SCRAM-SHA-256") != 0 || !data)
        return fail(c);
    uint8_t rnd[18];
    char snonce[32];
    RAND_bytes(rnd, sizeof rnd);
    pgw_b64_encode(rnd, sizeof rnd, snonce, sizeof snonce);
    if (!pgw_scram_client_first(&x, (const char *)data, (size_t)len, snonce))
        return fail(c);
    auth_request(c, 11, x.server_first, strlen(x.server_first));
    if (!pgw_read_msg(c, &type, &r, false))
        return false;
    if (type != 'p')
        return fail(c);
    char final[128];
    if (!known || !pgw_scram_client_final(&x, (const char *)r.p, r.n, final, sizeof final))
        return fail(c);
    auth_request(c, 12, final, strlen(final));
    c->who.checked_ms = 0;
    return true;
}

static bool cleartext(pgw_conn *c)
{
    auth_request(c, 3, NULL, 0);
    char type;
    pgw_rd r;
    if (!pgw_read_msg(c, &type, &r, false))
        return false;
    const char *pw = pgw_get_str(&r);
    if (type != 'p' || !pw)
        return fail(c);
    fl_error err = {0};
    if (fl_auth_check_secret(c->srv->auth, c->user, pw, &c->who, &err) != FL_OK)
        return fail(c);
    return true;
}

bool pgw_authenticate(pgw_conn *c, bool tls)
{
    memset(&c->who, 0, sizeof c->who);
    if (c->srv->o.trust) {
        snprintf(c->who.name, sizeof c->who.name, "%s", c->user);
        c->who.admin = true;
        c->who.anonymous = true;
    } else if (!c->srv->auth) {
        pgw_send_error(c, "FATAL", "28000", 0, "no authentication store is configured");
        pgw_flush(c);
        return false;
    } else if (throttled(c)) {
        return false;
    } else if (tls && c->srv->tls_cleartext) {
        if (!cleartext(c))
            return false;
    } else if (!scram(c)) {
        return false;
    }
    auth_request(c, 0, NULL, 0);
    if (c->srv->auth && !c->srv->o.trust) {
        fl_auth_login_record(c->srv->auth, c->user, c->peer_ip, true);
        fl_auth_audit_login(c->srv->auth, "pg.login", c->user, "pgwire", c->peer, "ok", NULL);
    }
    return true;
}
