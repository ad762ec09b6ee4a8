/*
 * test_s3_remote_sign.c - the storage half of remote signing (floe/s3.h):
 * which bucket and key a request URL names (path-style, virtual-host, a
 * foreign host refused, broken escapes refused), the keys of a
 * DeleteObjects body, and signatures checked against the published S3
 * examples of "Signature Calculations for the Authorization Header"
 * (GET ?lifecycle and a listing), with a client date replaced by ours and
 * the client's own Authorization dropped.
 */
#include <string.h>

#include "floe/s3.h"
#include "test.h"

static const char *S3_ID = "AKIAIOSFODNN7EXAMPLE";
static const char *S3_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
#define EMPTY_SHA "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define MAY_24_2013 1369353600

static void test_url_parse(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err = {0};
    fl_s3_config path = {.endpoint = "http://127.0.0.1:9000", .path_style = true};
    fl_s3_url u;
    CHECK_OK(fl_s3_url_parse(&path,
                             "http://127.0.0.1:9000/b/k%20x/y.parquet?partNumber=1&uploadId=a%2Bb",
                             &a, &u, &err),
             &err);
    CHECK_EQ_STR(u.bucket, "b");
    CHECK_EQ_STR(u.key, "k x/y.parquet");
    CHECK_EQ_STR(fl_s3_url_query(&u, "partNumber"), "1");
    CHECK_EQ_STR(fl_s3_url_query(&u, "uploadId"), "a+b");
    CHECK(fl_s3_url_query(&u, "acl") == NULL);
    CHECK_OK(
        fl_s3_url_parse(&path, "http://127.0.0.1:9000/b?list-type=2&prefix=wh/t/", &a, &u, &err),
        &err);
    CHECK_EQ_STR(u.bucket, "b");
    CHECK_EQ_STR(u.key, "");
    CHECK_EQ_STR(fl_s3_url_query(&u, "prefix"), "wh/t/");
    CHECK_EQ_STR(fl_s3_url_query(&u, "list-type"), "2");
    /* another host, a host that merely ends like ours, broken escapes, a NUL */
    CHECK(fl_s3_url_parse(&path, "http://10.0.0.1:9000/b/k", &a, &u, &err) == FL_EINVAL);
    CHECK(strstr(err.msg, "not on this server's storage endpoint") != NULL);
    CHECK(fl_s3_url_parse(&path, "http://x127.0.0.1:9000/b/k", &a, &u, &err) == FL_EINVAL);
    CHECK(fl_s3_url_parse(&path, "http://127.0.0.1:9000/b/k%2", &a, &u, &err) == FL_EINVAL);
    CHECK(fl_s3_url_parse(&path, "http://127.0.0.1:9000/b/k%00x", &a, &u, &err) == FL_EINVAL);
    CHECK(fl_s3_url_parse(&path, "/b/k", &a, &u, &err) == FL_EINVAL);
    CHECK(fl_s3_url_parse(&path, "http://127.0.0.1:9000//k", &a, &u, &err) == FL_EINVAL);
    fl_s3_config vhost = {.endpoint = "https://s3.amazonaws.com"};
    CHECK_OK(
        fl_s3_url_parse(&vhost, "https://examplebucket.s3.amazonaws.com/a/b%2Fc", &a, &u, &err),
        &err);
    CHECK_EQ_STR(u.bucket, "examplebucket");
    CHECK_EQ_STR(u.key, "a/b/c");
    CHECK(fl_s3_url_parse(&vhost, "https://s3.amazonaws.com/examplebucket/a", &a, &u, &err) ==
          FL_EINVAL); /* path-style on a virtual-host endpoint is not this endpoint's form */
    fl_arena_free(&a);
}

static void test_delete_keys(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err = {0};
    const char *xml =
        "<?xml version=\"1.0\"?><Delete xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        "<Quiet>true</Quiet><Object><Key>wh/t/a.parquet</Key></Object>"
        "<Object><Key>wh/t/b&amp;c</Key><VersionId>1</VersionId></Object></Delete>";
    const char **keys = NULL;
    size_t n = 0;
    CHECK_OK(fl_s3_delete_request_keys(xml, strlen(xml), &a, &keys, &n, &err), &err);
    CHECK_EQ_INT(n, 2);
    if (n == 2) {
        CHECK_EQ_STR(keys[0], "wh/t/a.parquet");
        CHECK_EQ_STR(keys[1], "wh/t/b&c");
    }
    CHECK(fl_s3_delete_request_keys("<Delete><Object><Key>x", 22, &a, &keys, &n, &err) != FL_OK);
    fl_arena_free(&a);
}

static const char *header(const fl_s3_header *hs, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcasecmp(hs[i].name, name))
            return hs[i].value;
    return NULL;
}

static void test_sign_examples(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err = {0};
    fl_s3_config cfg = {.endpoint = "https://s3.amazonaws.com",
                        .region = "us-east-1",
                        .access_key_id = S3_ID,
                        .secret_access_key = S3_SECRET};
    fl_s3_header in[] = {{"x-amz-content-sha256", EMPTY_SHA},
                         {"X-Amz-Date", "20990101T000000Z"}, /* replaced by ours */
                         {"Authorization", "AWS4-HMAC-SHA256 forged"},
                         {"User-Agent", "engine/1.0"}};
    fl_s3_header *out = NULL;
    size_t n = 0;
    CHECK_OK(fl_s3_sign_headers(&cfg, NULL, "GET",
                                "https://examplebucket.s3.amazonaws.com/?lifecycle", in, 4,
                                MAY_24_2013, &a, &out, &n, &err),
             &err);
    const char *auth = header(out, n, "Authorization");
    CHECK(auth != NULL);
    CHECK(auth && strstr(auth, "SignedHeaders=host;x-amz-content-sha256;x-amz-date,"));
    CHECK(
        auth &&
        strstr(auth, "Signature=fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543"));
    CHECK_EQ_STR(header(out, n, "x-amz-date"), "20130524T000000Z");
    CHECK_EQ_STR(header(out, n, "User-Agent"), "engine/1.0");
    CHECK_EQ_STR(header(out, n, "Host"), "examplebucket.s3.amazonaws.com");
    int auths = 0;
    for (size_t i = 0; i < n; i++)
        auths += !strcasecmp(out[i].name, "authorization");
    CHECK_EQ_INT(auths, 1);
    CHECK_OK(fl_s3_sign_headers(&cfg, "us-east-1", "GET",
                                "https://examplebucket.s3.amazonaws.com/?max-keys=2&prefix=J", in,
                                1, MAY_24_2013, &a, &out, &n, &err),
             &err);
    auth = header(out, n, "Authorization");
    CHECK(
        auth &&
        strstr(auth, "Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7"));
    /* a session token is added and signed; no keys at all is an error */
    cfg.session_token = "TOKEN";
    CHECK_OK(fl_s3_sign_headers(&cfg, NULL, "HEAD", "https://examplebucket.s3.amazonaws.com/k", in,
                                1, MAY_24_2013, &a, &out, &n, &err),
             &err);
    CHECK_EQ_STR(header(out, n, "x-amz-security-token"), "TOKEN");
    auth = header(out, n, "Authorization");
    CHECK(auth && strstr(auth, "x-amz-security-token"));
    fl_s3_config none = {.endpoint = "https://s3.amazonaws.com"};
    CHECK(fl_s3_sign_headers(&none, NULL, "GET", "https://b.s3.amazonaws.com/k", in, 1, MAY_24_2013,
                             &a, &out, &n, &err) == FL_EINVAL);
    fl_arena_free(&a);
}

int main(void)
{
    TEST_RUN(test_url_parse);
    TEST_RUN(test_delete_keys);
    TEST_RUN(test_sign_examples);
    return TEST_EXIT();
}
