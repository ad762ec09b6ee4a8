/*
 * tls.c - the libssl calls the server needs (libfloe links libssl).
 *
 * One SSL_CTX per server (TLS 1.2 minimum, the certificate chain and key in
 * PEM files, checked to match at startup), one SSL per connection: the
 * handshake runs in the connection's thread right after the 'S' answer to
 * SSLRequest; reads and writes report WANT_READ/WANT_WRITE as retryable
 * (the sockets are blocking, so that only happens around renegotiation).
 * Errors of the handshake are drained from the thread's OpenSSL error
 * queue so they never leak into the next connection on the same thread.
 */
#include <openssl/err.h>
#include <stdio.h>
#include <string.h>

#include "pgwire/pgw.h"

/* The newest OpenSSL error text (and clears the queue). */
static const char *ssl_reason(char *buf, size_t cap)
{
    unsigned long e = ERR_get_error();
    unsigned long last = e;
    while (e) {
        last = e;
        e = ERR_get_error();
    }
    if (!last)
        return "no detail";
    ERR_error_string_n(last, buf, cap);
    return buf;
}

fl_status pgw_tls_ctx_new(const char *cert, const char *key, SSL_CTX **out, fl_error *err)
{
    *out = NULL;
    char why[256];
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    if (!ctx)
        return fl_errorf(err, FL_ENOMEM, "pgwire: SSL_CTX_new failed: %s",
                         ssl_reason(why, sizeof why));
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    if (SSL_CTX_use_certificate_chain_file(ctx, cert) != 1) {
        SSL_CTX_free(ctx);
        return fl_errorf(err, FL_EINVAL, "pgwire: cannot load TLS certificate %s: %s", cert,
                         ssl_reason(why, sizeof why));
    }
    if (SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) != 1 ||
        SSL_CTX_check_private_key(ctx) != 1) {
        SSL_CTX_free(ctx);
        return fl_errorf(err, FL_EINVAL,
                         "pgwire: cannot load TLS key %s (or it does not match the certificate): "
                         "%s",
                         key, ssl_reason(why, sizeof why));
    }
    *out = ctx;
    return FL_OK;
}

void pgw_tls_ctx_free(SSL_CTX *ctx)
{
    SSL_CTX_free(ctx); /* NULL allowed */
}

SSL *pgw_tls_accept(SSL_CTX *ctx, int fd)
{
    SSL *s = SSL_new(ctx);
    if (!s) {
        ERR_clear_error();
        return NULL;
    }
    if (SSL_set_fd(s, fd) != 1 || SSL_accept(s) != 1) {
        ERR_clear_error();
        SSL_free(s);
        return NULL;
    }
    return s;
}

int pgw_tls_read(SSL *s, void *buf, int n, bool *retry)
{
    int r = SSL_read(s, buf, n);
    *retry = false;
    if (r > 0)
        return r;
    int e = SSL_get_error(s, r);
    *retry = e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE;
    if (!*retry)
        ERR_clear_error();
    return e == SSL_ERROR_ZERO_RETURN ? 0 : -1;
}

int pgw_tls_write(SSL *s, const void *buf, int n, bool *retry)
{
    int r = SSL_write(s, buf, n);
    *retry = false;
    if (r > 0)
        return r;
    int e = SSL_get_error(s, r);
    *retry = e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE;
    if (!*retry)
        ERR_clear_error();
    return -1;
}

int pgw_tls_pending(SSL *s)
{
    return SSL_pending(s);
}

void pgw_tls_close(SSL *s)
{
    if (!s)
        return;
    SSL_shutdown(s);
    ERR_clear_error();
    SSL_free(s);
}
