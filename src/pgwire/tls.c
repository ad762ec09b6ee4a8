/*
 * tls.c - the few libssl calls the server needs, resolved at run time with
 * dlopen("libssl.so.3").
 *
 * Why: libfloe links libcrypto but not libssl (CMakeLists.txt's library
 * list, owned by the lead). Loading libssl on first use keeps TLS working
 * without a build change; when libssl is absent, configuring a certificate
 * fails with a clear error and plain connections work as before. If the
 * build ever links libssl directly, these wrappers can become direct calls.
 * The library handle is loaded once (pthread_once) and never closed.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "pgwire/pgw.h"

typedef struct tls_api {
    const SSL_METHOD *(*server_method)(void);
    SSL_CTX *(*ctx_new)(const SSL_METHOD *);
    void (*ctx_free)(SSL_CTX *);
    long (*ctx_ctrl)(SSL_CTX *, int, long, void *);
    int (*use_chain)(SSL_CTX *, const char *);
    int (*use_key)(SSL_CTX *, const char *, int);
    int (*check_key)(const SSL_CTX *);
    SSL *(*ssl_new)(SSL_CTX *);
    int (*set_fd)(SSL *, int);
    int (*accept)(SSL *);
    int (*read)(SSL *, void *, int);
    int (*write)(SSL *, const void *, int);
    int (*get_error)(const SSL *, int);
    int (*pending)(const SSL *);
    int (*shutdown)(SSL *);
    void (*ssl_free)(SSL *);
    bool ok;
} tls_api;

static tls_api api;
static pthread_once_t once = PTHREAD_ONCE_INIT;

#define LOAD(field, name)                                                                          \
    do {                                                                                           \
        *(void **)&api.field = dlsym(h, name);                                                     \
        if (!api.field)                                                                            \
            return;                                                                                \
    } while (0)

static void load(void)
{
    void *h = dlopen("libssl.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        h = dlopen("libssl.so", RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return;
    LOAD(server_method, "TLS_server_method");
    LOAD(ctx_new, "SSL_CTX_new");
    LOAD(ctx_free, "SSL_CTX_free");
    LOAD(ctx_ctrl, "SSL_CTX_ctrl");
    LOAD(use_chain, "SSL_CTX_use_certificate_chain_file");
    LOAD(use_key, "SSL_CTX_use_PrivateKey_file");
    LOAD(check_key, "SSL_CTX_check_private_key");
    LOAD(ssl_new, "SSL_new");
    LOAD(set_fd, "SSL_set_fd");
    LOAD(accept, "SSL_accept");
    LOAD(read, "SSL_read");
    LOAD(write, "SSL_write");
    LOAD(get_error, "SSL_get_error");
    LOAD(pending, "SSL_pending");
    LOAD(shutdown, "SSL_shutdown");
    LOAD(ssl_free, "SSL_free");
    api.ok = true;
}

fl_status pgw_tls_ctx_new(const char *cert, const char *key, SSL_CTX **out, fl_error *err)
{
    *out = NULL;
    pthread_once(&once, load);
    if (!api.ok)
        return fl_errorf(err, FL_EUNSUPPORTED, "pgwire: TLS needs libssl.so.3, which cannot be "
                                               "loaded");
    SSL_CTX *ctx = api.ctx_new(api.server_method());
    if (!ctx)
        return fl_errorf(err, FL_ENOMEM, "pgwire: SSL_CTX_new failed");
    api.ctx_ctrl(ctx, SSL_CTRL_SET_MIN_PROTO_VERSION, TLS1_2_VERSION, NULL);
    if (api.use_chain(ctx, cert) != 1) {
        api.ctx_free(ctx);
        return fl_errorf(err, FL_EINVAL, "pgwire: cannot load TLS certificate %s", cert);
    }
    if (api.use_key(ctx, key, SSL_FILETYPE_PEM) != 1 || api.check_key(ctx) != 1) {
        api.ctx_free(ctx);
        return fl_errorf(err, FL_EINVAL,
                         "pgwire: cannot load TLS key %s (or it does not match the certificate)",
                         key);
    }
    *out = ctx;
    return FL_OK;
}

void pgw_tls_ctx_free(SSL_CTX *ctx)
{
    if (ctx && api.ok)
        api.ctx_free(ctx);
}

SSL *pgw_tls_accept(SSL_CTX *ctx, int fd)
{
    if (!api.ok)
        return NULL;
    SSL *s = api.ssl_new(ctx);
    if (!s)
        return NULL;
    if (api.set_fd(s, fd) != 1 || api.accept(s) != 1) {
        api.ssl_free(s);
        return NULL;
    }
    return s;
}

int pgw_tls_read(SSL *s, void *buf, int n, bool *retry)
{
    int r = api.read(s, buf, n);
    *retry = false;
    if (r > 0)
        return r;
    int e = api.get_error(s, r);
    *retry = e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE;
    return e == SSL_ERROR_ZERO_RETURN ? 0 : -1;
}

int pgw_tls_write(SSL *s, const void *buf, int n, bool *retry)
{
    int r = api.write(s, buf, n);
    *retry = false;
    if (r > 0)
        return r;
    int e = api.get_error(s, r);
    *retry = e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE;
    return -1;
}

int pgw_tls_pending(SSL *s)
{
    return api.pending(s);
}

void pgw_tls_close(SSL *s)
{
    if (!s)
        return;
    api.shutdown(s);
    api.ssl_free(s);
}
