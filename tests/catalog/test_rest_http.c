/*
 * test_rest_http.c - the REST catalog client against a scripted in-process
 * server (libmicrohttpd): the transport and protocol rules that a friendly
 * server never exercises.
 *
 *   - GET retried on 503 (and the answer used); a commit answered 503 is NOT
 *     re-sent and reports "commit state unknown" (FL_EIO);
 *   - with idempotency-key-lifetime advertised, a commit answered 503 is
 *     re-sent with the same Idempotency-Key;
 *   - 409 on commit is FL_ECONFLICT, 409 on create FL_EEXIST, 404 FL_ENOTFOUND;
 *   - OAuth2: token fetched with client credentials (form body), sent as
 *     bearer; a 401 after the server forgot the token fetches a new one and
 *     repeats the request once; tokens near expiry are refreshed first;
 *   - config: overrides.prefix is used, namespaces are %1F-joined, or joined by the
 *     config's namespace-separator ("%2E" from Iceberg's reference server); a separator
 *     that is not URL-encoded text is refused;
 *   - pagination follows next-page-token; a repeated token is FL_ECORRUPT;
 *   - connection refused is FL_EIO after the retries;
 *   - S3 settings in the config make the catalog's own FileIO.
 */
#include <microhttpd.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog/rest_internal.h"
#include "floe/ice_table.h"
#include "floe/s3.h"
#include "test.h"

static const char META[] =
    "{\"format-version\":2,\"table-uuid\":\"9c12d441-03fe-4693-9a96-a0705ddf69c1\",\"location\":"
    "\"/tmp/t\",\"last-sequence-number\":0,\"last-updated-ms\":1700000000000,\"last-column-id\":1,"
    "\"current-schema-id\":0,\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,\"fields\":[{\"id\":"
    "1,\"name\":\"id\",\"required\":false,\"type\":\"long\"}]}],\"default-spec-id\":0,"
    "\"partition-specs\":[{\"spec-id\":0,\"fields\":[]}],\"last-partition-id\":999,"
    "\"default-sort-order-id\":0,\"sort-orders\":[{\"order-id\":0,\"fields\":[]}],\"properties\":{},"
    "\"current-snapshot-id\":-1,\"refs\":{},\"snapshots\":[],\"snapshot-log\":[],\"metadata-log\":[]}";

typedef struct server {
    pthread_mutex_t mu;
    struct MHD_Daemon *d;
    int port;
    /* script */
    char config[1024];
    bool require_token;
    int valid_token;  /* the token number accepted */
    int expires_in;   /* token lifetime in seconds */
    int fail_get;     /* 503s before a GET of a table succeeds */
    int fail_post;    /* 503s before a commit succeeds */
    int commit_status; /* answer to a commit (200 default) */
    bool loop_pages;
    /* observations */
    int tokens_issued;
    int gets, posts;
    char token_body[512];
    char keys[8][64]; /* Idempotency-Key of each commit attempt */
    int nkeys;
    char last_url[512];
} server;

typedef struct conn {
    char body[8192];
    size_t len;
} conn;

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *json)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(json), (void *)json, MHD_RESPMEM_MUST_COPY);
    MHD_add_response_header(r, "Content-Type", "application/json");
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result error(struct MHD_Connection *c, unsigned status, const char *type)
{
    char buf[256];
    snprintf(buf, sizeof buf, "{\"error\":{\"message\":\"scripted %s\",\"type\":\"%s\",\"code\":%u}}",
             type, type, status);
    return reply(c, status, buf);
}

static enum MHD_Result handle(server *s, struct MHD_Connection *c, const char *url,
                              const char *method, const conn *cn)
{
    char buf[8192];
    snprintf(s->last_url, sizeof s->last_url, "%s", url);
    if (!strcmp(url, "/v1/oauth/tokens")) {
        snprintf(s->token_body, sizeof s->token_body, "%.*s", (int)cn->len, cn->body);
        s->tokens_issued++;
        snprintf(buf, sizeof buf,
                 "{\"access_token\":\"tok%d\",\"token_type\":\"bearer\",\"expires_in\":%d}",
                 s->tokens_issued, s->expires_in);
        return reply(c, 200, buf);
    }
    if (s->require_token) {
        const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
        char want[64];
        snprintf(want, sizeof want, "Bearer tok%d", s->valid_token);
        if (!auth || strcmp(auth, want) != 0)
            return error(c, 401, "NotAuthorizedException");
    }
    if (!strcmp(url, "/v1/config"))
        return reply(c, 200, s->config);
    if (strstr(url, "/namespaces") && !strstr(url, "/tables") && !strcmp(method, "GET")) {
        const char *tok = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "pageToken");
        if (!tok || !*tok)
            return reply(c, 200, "{\"namespaces\":[[\"a\"],[\"b\"]],\"next-page-token\":\"p2\"}");
        if (s->loop_pages)
            return reply(c, 200, "{\"namespaces\":[[\"c\"]],\"next-page-token\":\"p2\"}");
        return reply(c, 200, "{\"namespaces\":[[\"c\"]],\"next-page-token\":null}");
    }
    if (strstr(url, "/tables/") && !strcmp(method, "GET")) {
        s->gets++;
        if (strstr(url, "/tables/missing"))
            return error(c, 404, "NoSuchTableException");
        if (s->fail_get > 0) {
            s->fail_get--;
            return error(c, 503, "ServiceUnavailable");
        }
        snprintf(buf, sizeof buf, "{\"metadata-location\":\"/tmp/t/metadata/1.json\",\"metadata\":%s}",
                 META);
        return reply(c, 200, buf);
    }
    if (strstr(url, "/tables/") && !strcmp(method, "POST")) {
        s->posts++;
        const char *k = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Idempotency-Key");
        if (s->nkeys < 8)
            snprintf(s->keys[s->nkeys++], sizeof s->keys[0], "%s", k ? k : "");
        if (s->fail_post > 0) {
            s->fail_post--;
            return error(c, 503, "ServiceUnavailable");
        }
        if (s->commit_status == 409)
            return error(c, 409, "CommitFailedException");
        snprintf(buf, sizeof buf, "{\"metadata-location\":\"/tmp/t/metadata/2.json\",\"metadata\":%s}",
                 META);
        return reply(c, 200, buf);
    }
    if (strstr(url, "/tables") && !strcmp(method, "POST"))
        return error(c, 409, "AlreadyExistsException");
    return error(c, 404, "NoSuchRouteException");
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **req_cls)
{
    (void)version;
    server *s = cls;
    conn *cn = *req_cls;
    if (!cn) {
        cn = calloc(1, sizeof *cn);
        *req_cls = cn;
        return cn ? MHD_YES : MHD_NO;
    }
    if (*upload_size) {
        size_t n = *upload_size;
        if (cn->len + n < sizeof cn->body) {
            memcpy(cn->body + cn->len, upload, n);
            cn->len += n;
        }
        *upload_size = 0;
        return MHD_YES;
    }
    pthread_mutex_lock(&s->mu);
    enum MHD_Result r = handle(s, c, url, method, cn);
    pthread_mutex_unlock(&s->mu);
    return r;
}

static void on_done(void *cls, struct MHD_Connection *c, void **req_cls,
                    enum MHD_RequestTerminationCode code)
{
    (void)cls;
    (void)c;
    (void)code;
    free(*req_cls);
    *req_cls = NULL;
}

static bool server_start(server *s, const char *config)
{
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->mu, NULL);
    snprintf(s->config, sizeof s->config, "%s", config);
    s->expires_in = 3600;
    s->valid_token = 1;
    s->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, 0, NULL, NULL,
                            on_request, s, MHD_OPTION_NOTIFY_COMPLETED, on_done, s,
                            MHD_OPTION_END);
    if (!s->d)
        return false;
    const union MHD_DaemonInfo *i = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
    s->port = i ? i->port : 0;
    return s->port > 0;
}

static void server_stop(server *s)
{
    if (s->d)
        MHD_stop_daemon(s->d);
    pthread_mutex_destroy(&s->mu);
}

static fl_catalog *open_cat(server *s, const char *credential, fl_fileio *io)
{
    char uri[64];
    snprintf(uri, sizeof uri, "http://127.0.0.1:%d/", s->port);
    fl_rest_options o = {.uri = uri, .credential = credential, .max_retries = 2,
                         .timeout_ms = 5000};
    fl_catalog *c = NULL;
    fl_error err;
    if (fl_catalog_rest_open(&o, "test", io, &c, &err) != FL_OK) {
        fprintf(stderr, "open: %s\n", err.msg);
        return NULL;
    }
    return c;
}

static fl_table_ident ident(const char *name)
{
    static const char *levels[] = {"a", "b"};
    return (fl_table_ident){{2, levels}, name};
}

static void test_get_retry_and_prefix(void)
{
    server s;
    CHECK(server_start(&s, "{\"defaults\":{},\"overrides\":{\"prefix\":\"cat/x\"}}"));
    fl_catalog *c = open_cat(&s, NULL, NULL);
    CHECK(c != NULL);
    if (c) {
        fl_arena a;
        fl_arena_init(&a, 0);
        fl_error err;
        s.fail_get = 2;
        const char *loc;
        fl_ice_metadata m;
        fl_table_ident id = ident("t");
        CHECK_OK(c->ops->load_table_metadata(c, &id, &a, &loc, &m, &err), &err);
        CHECK_EQ_INT(s.gets, 3);
        CHECK_EQ_STR(loc, "/tmp/t/metadata/1.json");
        CHECK_EQ_STR(m.table_uuid, "9c12d441-03fe-4693-9a96-a0705ddf69c1");
        CHECK_EQ_STR(s.last_url, "/v1/cat/x/namespaces/a\x1f" "b/tables/t");
        s.fail_get = 10; /* more than the retries */
        CHECK_EQ_INT(c->ops->load_table(c, &id, &a, &loc, &err), FL_EIO);
        CHECK(strstr(err.msg, "503") != NULL);
        fl_table_ident miss = ident("missing");
        s.fail_get = 0;
        CHECK_EQ_INT(c->ops->load_table(c, &miss, &a, &loc, &err), FL_ENOTFOUND);
        CHECK(strstr(err.msg, "NoSuchTableException") != NULL);
        fl_arena_free(&a);
        fl_catalog_close(c);
    }
    server_stop(&s);
}

static void test_namespace_separator(void)
{
    server s;
    CHECK(server_start(&s, "{\"defaults\":{},\"overrides\":{\"namespace-separator\":\"%2E\"}}"));
    fl_catalog *c = open_cat(&s, NULL, NULL);
    CHECK(c != NULL);
    if (c) {
        fl_arena a;
        fl_arena_init(&a, 0);
        fl_error err;
        const char *loc;
        fl_table_ident id = ident("t");
        CHECK_OK(c->ops->load_table(c, &id, &a, &loc, &err), &err);
        CHECK_EQ_STR(s.last_url, "/v1/namespaces/a.b/tables/t"); /* a%2Eb, decoded by MHD */
        fl_arena_free(&a);
        fl_catalog_close(c);
    }
    server_stop(&s);
    CHECK(server_start(&s, "{\"defaults\":{},\"overrides\":{\"namespace-separator\":\"/x?\"}}"));
    char uri[64];
    snprintf(uri, sizeof uri, "http://127.0.0.1:%d/", s.port);
    fl_rest_options o = {.uri = uri, .max_retries = 0, .timeout_ms = 5000};
    fl_error err;
    c = NULL;
    CHECK_EQ_INT(fl_catalog_rest_open(&o, "test", NULL, &c, &err), FL_ECORRUPT);
    CHECK(strstr(err.msg, "namespace-separator") != NULL);
    server_stop(&s);
}

static fl_status commit(fl_catalog *c, fl_arena *a, fl_error *err)
{
    fl_table_ident id = ident("t");
    fl_ice_requirement r = {.kind = FL_ICE_REQ_ASSERT_TABLE_UUID,
                            .uuid = "9c12d441-03fe-4693-9a96-a0705ddf69c1"};
    fl_ice_kv kv = {"k", "v"};
    fl_ice_update u = {.kind = FL_ICE_UPD_SET_PROPERTIES, .properties = {1, &kv}};
    const char *loc;
    fl_ice_metadata m;
    return c->ops->commit_updates(c, &id, &r, 1, &u, 1, a, &loc, &m, err);
}

static void test_commit_outcomes(void)
{
    server s;
    CHECK(server_start(&s, "{\"defaults\":{},\"overrides\":{}}"));
    fl_catalog *c = open_cat(&s, NULL, NULL);
    CHECK(c != NULL);
    if (c) {
        fl_arena a;
        fl_arena_init(&a, 0);
        fl_error err;
        CHECK_OK(commit(c, &a, &err), &err);
        CHECK_EQ_INT(s.posts, 1);
        CHECK_EQ_STR(s.keys[0], ""); /* no idempotency advertised: no key */
        s.fail_post = 1;
        CHECK_EQ_INT(commit(c, &a, &err), FL_EIO);
        CHECK_EQ_INT(s.posts, 2); /* not re-sent */
        CHECK(strstr(err.msg, "commit state unknown") != NULL);
        s.commit_status = 409;
        CHECK_EQ_INT(commit(c, &a, &err), FL_ECONFLICT);
        CHECK(strstr(err.msg, "CommitFailedException") != NULL);
        /* create: AlreadyExists is FL_EEXIST */
        fl_ice_metadata tmpl;
        CHECK_OK(fl_ice_metadata_parse((const uint8_t *)META, strlen(META), NULL, &a, &tmpl, &err),
                 &err);
        fl_table_ident id = ident("t");
        const char *loc;
        fl_ice_metadata m;
        CHECK_EQ_INT(c->ops->create_table_metadata(c, &id, &tmpl, NULL, false, &a, &loc, &m, &err),
                     FL_EEXIST);
        /* pointer swaps are not part of the protocol */
        CHECK_EQ_INT(c->ops->commit_table(c, &id, "a", "b", &err), FL_EUNSUPPORTED);
        fl_arena_free(&a);
        fl_catalog_close(c);
    }
    server_stop(&s);
}

static void test_idempotent_retry(void)
{
    server s;
    CHECK(server_start(&s, "{\"defaults\":{},\"overrides\":{},"
                           "\"idempotency-key-lifetime\":\"PT30M\"}"));
    fl_catalog *c = open_cat(&s, NULL, NULL);
    CHECK(c != NULL);
    if (c) {
        fl_arena a;
        fl_arena_init(&a, 0);
        fl_error err;
        s.fail_post = 1;
        CHECK_OK(commit(c, &a, &err), &err);
        CHECK_EQ_INT(s.posts, 2);
        CHECK_EQ_INT(strlen(s.keys[0]), 36);
        CHECK_EQ_STR(s.keys[0], s.keys[1]); /* same key on the retry */
        CHECK_OK(commit(c, &a, &err), &err);
        CHECK(strcmp(s.keys[2], s.keys[1]) != 0); /* a new commit, a new key */
        fl_arena_free(&a);
        fl_catalog_close(c);
    }
    server_stop(&s);
}

static void test_oauth(void)
{
    server s;
    CHECK(server_start(&s, "{\"defaults\":{},\"overrides\":{}}"));
    s.require_token = true;
    fl_catalog *c = open_cat(&s, NULL, NULL);
    CHECK(c == NULL); /* 401 without credentials */
    c = open_cat(&s, "cl!ent:se cret&x", NULL);
    CHECK(c != NULL);
    CHECK_EQ_INT(s.tokens_issued, 1);
    CHECK(strstr(s.token_body, "grant_type=client_credentials") != NULL);
    CHECK(strstr(s.token_body, "client_id=cl%21ent") != NULL);
    CHECK(strstr(s.token_body, "client_secret=se%20cret%26x") != NULL);
    CHECK(strstr(s.token_body, "scope=catalog") != NULL);
    if (c) {
        fl_arena a;
        fl_arena_init(&a, 0);
        fl_error err;
        fl_table_ident id = ident("t");
        const char *loc;
        CHECK_OK(c->ops->load_table(c, &id, &a, &loc, &err), &err);
        /* the server forgets the token: 401, a new token, the request again */
        s.valid_token = 2;
        CHECK_OK(c->ops->load_table(c, &id, &a, &loc, &err), &err);
        CHECK_EQ_INT(s.tokens_issued, 2);
        /* a token that never becomes valid: one refetch, then the 401 */
        s.valid_token = 99;
        CHECK_EQ_INT(c->ops->load_table(c, &id, &a, &loc, &err), FL_EUNAUTHENTICATED);
        CHECK(strstr(err.msg, "401") != NULL);
        CHECK(strstr(err.msg, "se cret") == NULL);
        fl_arena_free(&a);
        fl_catalog_close(c);
    }
    /* refresh before expiry: a 1 s token is renewed once 90% of it has passed */
    s.expires_in = 1;
    s.tokens_issued = 0;
    s.valid_token = 1;
    c = open_cat(&s, "id:secret", NULL);
    CHECK(c != NULL);
    if (c) {
        fl_arena a;
        fl_arena_init(&a, 0);
        fl_error err;
        fl_table_ident id = ident("t");
        const char *loc;
        usleep(950 * 1000);
        s.valid_token = 2;
        CHECK_OK(c->ops->load_table(c, &id, &a, &loc, &err), &err);
        CHECK_EQ_INT(s.tokens_issued, 2);
        fl_arena_free(&a);
        fl_catalog_close(c);
    }
    server_stop(&s);
}

static void test_pagination(void)
{
    server s;
    CHECK(server_start(&s, "{\"defaults\":{\"rest-page-size\":\"2\"},\"overrides\":{}}"));
    fl_catalog *c = open_cat(&s, NULL, NULL);
    CHECK(c != NULL);
    if (c) {
        fl_arena a;
        fl_arena_init(&a, 0);
        fl_error err;
        fl_namespace *v;
        uint32_t n;
        CHECK_OK(c->ops->list_namespaces(c, NULL, &a, &v, &n, &err), &err);
        CHECK_EQ_INT(n, 3);
        if (n == 3)
            CHECK_EQ_STR(v[2].levels[0], "c");
        s.loop_pages = true;
        CHECK_EQ_INT(c->ops->list_namespaces(c, NULL, &a, &v, &n, &err), FL_ECORRUPT);
        CHECK(strstr(err.msg, "repeated") != NULL);
        fl_arena_free(&a);
        fl_catalog_close(c);
    }
    server_stop(&s);
}

static void test_refused_and_bad_uris(void)
{
    fl_catalog *c = NULL;
    fl_error err;
    /* a port nothing listens on (bind, close, reuse its number) */
    fl_rest_options o = {.uri = "http://127.0.0.1:9/", .max_retries = 1, .connect_timeout_ms = 500};
    CHECK_EQ_INT(fl_catalog_rest_open(&o, NULL, NULL, &c, &err), FL_EIO);
    CHECK(strstr(err.msg, "/v1/config") != NULL);
    CHECK_EQ_INT(fl_catalog_open_uri("ftp://x", NULL, NULL, NULL, &c, &err), FL_EINVAL);
    CHECK_EQ_INT(fl_catalog_open_uri("http://127.0.0.1:9?bogus=1", NULL, NULL, NULL, &c, &err),
                 FL_EINVAL);
    CHECK(strstr(err.msg, "unknown option 'bogus'") != NULL);
    CHECK_EQ_INT(fl_catalog_open_uri("http://127.0.0.1:9?token=%zz", NULL, NULL, NULL, &c, &err),
                 FL_EINVAL);
    CHECK_EQ_INT(fl_catalog_open_uri("http://127.0.0.1:9?credential=nocolon", NULL, NULL, NULL, &c,
                                     &err),
                 FL_EINVAL);
    CHECK(strstr(err.msg, "client_id:client_secret") != NULL);
}

static void test_s3_config(void)
{
    server s;
    CHECK(server_start(&s, "{\"defaults\":{},\"overrides\":{\"s3.endpoint\":\"http://127.0.0.1:1\","
                           "\"s3.access-key-id\":\"AK\",\"s3.secret-access-key\":\"SK\"}}"));
    fl_fileio *mine = NULL;
    fl_error err;
    CHECK_OK(fl_fileio_default(NULL, &mine, &err), &err);
    fl_catalog *c = open_cat(&s, NULL, mine);
    CHECK(c != NULL);
    if (c) {
        CHECK(c->io != NULL && c->io != mine); /* its own FileIO from the config */
        fl_catalog_close(c);
    }
    fl_fileio_destroy(mine);
    server_stop(&s);
}

int main(void)
{
    TEST_RUN(test_get_retry_and_prefix);
    TEST_RUN(test_namespace_separator);
    TEST_RUN(test_commit_outcomes);
    TEST_RUN(test_idempotent_retry);
    TEST_RUN(test_oauth);
    TEST_RUN(test_pagination);
    TEST_RUN(test_refused_and_bad_uris);
    TEST_RUN(test_s3_config);
    return TEST_EXIT();
}
