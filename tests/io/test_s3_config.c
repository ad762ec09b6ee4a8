/*
 * test_s3_config.c - configuration and addressing without a server:
 * fl_s3_config_from_env (environment, ~/.aws/credentials and config files,
 * profiles, precedence, bad numbers), the INI reader, s3:// path parsing,
 * path-style / virtual-host URLs and Host headers, and fl_fileio_default
 * routing (local paths work; S3 is created lazily and a bad S3 setting
 * fails only S3 paths, with a clear message).
 */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "floe_test.h"
#include "io/s3_internal.h"

static const char *ENV_VARS[] = {"AWS_ACCESS_KEY_ID",           "AWS_SECRET_ACCESS_KEY",
                                 "AWS_SESSION_TOKEN",           "AWS_REGION",
                                 "AWS_DEFAULT_REGION",          "AWS_ENDPOINT_URL",
                                 "AWS_ENDPOINT_URL_S3",         "AWS_PROFILE",
                                 "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE",
                                 "FLOE_S3_PATH_STYLE",          "FLOE_S3_VIRTUAL_HOST",
                                 "FLOE_S3_MULTIPART_THRESHOLD", "FLOE_S3_MAX_RETRIES"};

static char tmpdir[256];

static void clear_env(void)
{
    for (size_t i = 0; i < sizeof ENV_VARS / sizeof *ENV_VARS; i++)
        unsetenv(ENV_VARS[i]);
    setenv("HOME", tmpdir, 1); /* no real ~/.aws */
}

static void write_file(const char *name, const char *text, char *path, size_t cap)
{
    snprintf(path, cap, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void test_ini(void)
{
    const char *t =
        "# comment\n[default]\naws_access_key_id = AK1 \n; x\n"
        "[profile dev]\r\nregion=eu-west-1\r\n  endpoint_url = http://h:1  \n[other]\nregion=x\n";
    char v[64];
    CHECK(s3_ini_get(t, strlen(t), "default", "aws_access_key_id", v, sizeof v));
    CHECK_EQ_STR(v, "AK1");
    CHECK(s3_ini_get(t, strlen(t), "profile dev", "region", v, sizeof v));
    CHECK_EQ_STR(v, "eu-west-1");
    CHECK(s3_ini_get(t, strlen(t), "profile dev", "endpoint_url", v, sizeof v));
    CHECK_EQ_STR(v, "http://h:1");
    CHECK(!s3_ini_get(t, strlen(t), "default", "region", v, sizeof v));
    CHECK(!s3_ini_get(t, strlen(t), "dev", "region", v, sizeof v));
    CHECK(!s3_ini_get(t, strlen(t), "profile dev", "endpoint_url", v, 4)); /* too long */
    CHECK(!s3_ini_get("", 0, "default", "a", v, sizeof v));
    CHECK(!s3_ini_get("[default\na=b\n", 12, "default", "a", v, sizeof v));
}

static void test_env(void)
{
    clear_env();
    setenv("AWS_ACCESS_KEY_ID", "AKENV", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "SKENV", 1);
    setenv("AWS_SESSION_TOKEN", "TOK", 1);
    setenv("AWS_DEFAULT_REGION", "eu-central-1", 1);
    setenv("AWS_ENDPOINT_URL", "http://127.0.0.1:9000", 1);
    setenv("FLOE_S3_MULTIPART_THRESHOLD", "5242880", 1);
    setenv("FLOE_S3_MAX_RETRIES", "2", 1);
    fl_s3_config c;
    char st[FL_S3_CONFIG_STORAGE];
    fl_error err;
    CHECK_OK(fl_s3_config_from_env(&c, st, &err), &err);
    CHECK_EQ_STR(c.access_key_id, "AKENV");
    CHECK_EQ_STR(c.secret_access_key, "SKENV");
    CHECK_EQ_STR(c.session_token, "TOK");
    CHECK_EQ_STR(c.region, "eu-central-1");
    CHECK_EQ_STR(c.endpoint, "http://127.0.0.1:9000");
    CHECK(c.path_style); /* custom endpoint implies path style */
    CHECK_EQ_INT(c.multipart_threshold, 5242880);
    CHECK_EQ_INT(c.max_retries, 2);

    setenv("AWS_REGION", "us-west-2", 1);
    setenv("AWS_ENDPOINT_URL_S3", "https://s3.example", 1);
    setenv("FLOE_S3_VIRTUAL_HOST", "1", 1);
    CHECK_OK(fl_s3_config_from_env(&c, st, &err), &err);
    CHECK_EQ_STR(c.region, "us-west-2");
    CHECK_EQ_STR(c.endpoint, "https://s3.example");
    CHECK(!c.path_style);

    setenv("FLOE_S3_MULTIPART_THRESHOLD", "12x", 1);
    CHECK_EQ_INT(fl_s3_config_from_env(&c, st, &err), FL_EINVAL);
    CHECK(strstr(err.msg, "FLOE_S3_MULTIPART_THRESHOLD") != NULL);
    setenv("FLOE_S3_MULTIPART_THRESHOLD", "0", 1);
    CHECK_EQ_INT(fl_s3_config_from_env(&c, st, &err), FL_EINVAL);
    unsetenv("FLOE_S3_MULTIPART_THRESHOLD");

    /* settings too long for the storage */
    char *big = malloc(5000);
    memset(big, 'k', 4999);
    big[4999] = '\0';
    setenv("AWS_SECRET_ACCESS_KEY", big, 1);
    CHECK_EQ_INT(fl_s3_config_from_env(&c, st, &err), FL_ELIMIT);
    free(big);
    clear_env();
    CHECK_OK(fl_s3_config_from_env(&c, st, &err), &err);
    CHECK(c.access_key_id == NULL && c.endpoint == NULL && c.region == NULL && !c.path_style);
}

static void test_files(void)
{
    clear_env();
    char cred[512], conf[512];
    write_file(
        "credentials",
        "[default]\naws_access_key_id=AKDEF\naws_secret_access_key=SKDEF\n"
        "[dev]\naws_access_key_id = AKDEV\naws_secret_access_key = SKDEV\naws_session_token = T\n",
        cred, sizeof cred);
    write_file("config",
               "[default]\nregion = ap-south-1\n[profile dev]\nregion = sa-east-1\n"
               "endpoint_url = http://minio:9000\n[profile keys]\naws_access_key_id=AKC\n"
               "aws_secret_access_key=SKC\n",
               conf, sizeof conf);
    setenv("AWS_SHARED_CREDENTIALS_FILE", cred, 1);
    setenv("AWS_CONFIG_FILE", conf, 1);
    fl_s3_config c;
    char st[FL_S3_CONFIG_STORAGE];
    fl_error err;
    CHECK_OK(fl_s3_config_from_env(&c, st, &err), &err);
    CHECK_EQ_STR(c.access_key_id, "AKDEF");
    CHECK_EQ_STR(c.secret_access_key, "SKDEF");
    CHECK_EQ_STR(c.region, "ap-south-1");
    CHECK(c.endpoint == NULL && c.session_token == NULL);

    setenv("AWS_PROFILE", "dev", 1);
    CHECK_OK(fl_s3_config_from_env(&c, st, &err), &err);
    CHECK_EQ_STR(c.access_key_id, "AKDEV");
    CHECK_EQ_STR(c.session_token, "T");
    CHECK_EQ_STR(c.region, "sa-east-1");
    CHECK_EQ_STR(c.endpoint, "http://minio:9000");
    CHECK(c.path_style);

    setenv("AWS_PROFILE", "keys", 1); /* keys only in the config file */
    CHECK_OK(fl_s3_config_from_env(&c, st, &err), &err);
    CHECK_EQ_STR(c.access_key_id, "AKC");

    /* environment keys win over files */
    setenv("AWS_ACCESS_KEY_ID", "AKENV", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "SKENV", 1);
    CHECK_OK(fl_s3_config_from_env(&c, st, &err), &err);
    CHECK_EQ_STR(c.access_key_id, "AKENV");
    /* ~/.aws via HOME */
    clear_env();
    char dir[512], p2[600];
    snprintf(dir, sizeof dir, "%s/.aws", tmpdir);
    mkdir(dir, 0700);
    write_file(".aws/credentials", "[default]\naws_access_key_id=AKHOME\naws_secret_access_key=S\n",
               p2, sizeof p2);
    CHECK_OK(fl_s3_config_from_env(&c, st, &err), &err);
    CHECK_EQ_STR(c.access_key_id, "AKHOME");
    unlink(p2);
    rmdir(dir);
    unlink(cred);
    unlink(conf);
}

static void test_paths(void)
{
    char *b, *k;
    size_t sl;
    fl_error err;
    CHECK_OK(s3_parse_path("s3://bkt/a/b c+d", true, &sl, &b, &k, &err), &err);
    CHECK_EQ_STR(b, "bkt");
    CHECK_EQ_STR(k, "a/b c+d");
    CHECK_EQ_INT(sl, 5);
    free(b), free(k);
    CHECK_OK(s3_parse_path("s3a://bkt", false, &sl, &b, &k, &err), &err);
    CHECK_EQ_STR(k, "");
    CHECK_EQ_INT(sl, 6);
    free(b), free(k);
    CHECK_EQ_INT(s3_parse_path("s3://bkt/", true, NULL, &b, &k, &err), FL_EINVAL);
    CHECK(strstr(err.msg, "no object key") != NULL);
    CHECK_EQ_INT(s3_parse_path("s3:///k", true, NULL, &b, &k, &err), FL_EINVAL);
    CHECK_EQ_INT(s3_parse_path("s3://b?x/k", true, NULL, &b, &k, &err), FL_EINVAL);
    CHECK_EQ_INT(s3_parse_path("/tmp/x", true, NULL, &b, &k, &err), FL_EINVAL);
    CHECK(s3_is_s3_path("s3n://x/y") && !s3_is_s3_path("file:///x") && !s3_is_s3_path("s3:/x"));
}

static void check_url(const fl_s3_config *cfg, const char *bucket, const char *key,
                      const char *want_url, const char *want_host)
{
    s3_client *c = NULL;
    fl_error err;
    CHECK_OK(s3_client_new(cfg, &c, &err), &err);
    if (!c)
        return;
    char *url = NULL, *host = NULL;
    CHECK_OK(s3_client_url(c, bucket, key, &url, &host, &err), &err);
    CHECK_EQ_STR(url, want_url);
    CHECK_EQ_STR(host, want_host);
    free(url);
    free(host);
    s3_client_free(c);
}

static void test_urls(void)
{
    fl_s3_config cfg = {.endpoint = "http://127.0.0.1:4568", .path_style = true};
    check_url(&cfg, "b", "dir/a b+c=\xC3\xA9", "http://127.0.0.1:4568/b/dir/a%20b%2Bc%3D%C3%A9",
              "127.0.0.1:4568");
    check_url(&cfg, "b", NULL, "http://127.0.0.1:4568/b", "127.0.0.1:4568");
    cfg.endpoint = "http://localhost:80/base/";
    check_url(&cfg, "b", "k", "http://localhost/base/b/k", "localhost");
    cfg.path_style = false;
    check_url(&cfg, "b", "k", "http://b.localhost/base/k", "b.localhost");
    cfg.endpoint = NULL;
    cfg.region = "eu-west-1";
    check_url(&cfg, "bkt", "x/y", "https://bkt.s3.eu-west-1.amazonaws.com/x/y",
              "bkt.s3.eu-west-1.amazonaws.com");
    cfg.endpoint = "https://s3.example:443";
    check_url(&cfg, "bkt", "", "https://bkt.s3.example/", "bkt.s3.example");

    s3_client *c = NULL;
    fl_error err;
    fl_s3_config bad = {.endpoint = "ftp://x"};
    CHECK_EQ_INT(s3_client_new(&bad, &c, &err), FL_EINVAL);
    CHECK(strstr(err.msg, "http://") != NULL);
    bad.endpoint = "http://";
    CHECK_EQ_INT(s3_client_new(&bad, &c, &err), FL_EINVAL);
    fl_s3_config half = {.access_key_id = "AK"};
    CHECK_EQ_INT(s3_client_new(&half, &c, &err), FL_EINVAL);
}

typedef struct listed {
    int n;
} listed;

static fl_status count_fn(void *ctx, const char *path, uint64_t size)
{
    ((listed *)ctx)->n++;
    return FL_OK;
}

static void test_default_routing(void)
{
    clear_env();
    setenv("AWS_ENDPOINT_URL", "ftp://nope", 1); /* S3 creation will fail */
    fl_fileio *io = NULL;
    fl_error err;
    CHECK_OK(fl_fileio_default(NULL, &io, &err), &err);
    if (!io)
        return;
    char path[512];
    snprintf(path, sizeof path, "%s/routed.bin", tmpdir);
    fl_output *o = NULL;
    CHECK_OK(fl_fileio_create(io, path, 0, &o, &err), &err);
    if (o) {
        CHECK_OK(fl_output_write(o, "hello", 5, &err), &err);
        CHECK_OK(fl_output_close(o, &err), &err);
    }
    fl_file *f = NULL;
    CHECK_OK(fl_fileio_open(io, path, &f, &err), &err);
    CHECK(f && f->size == 5);
    fl_file_close(f);
    listed l = {0};
    CHECK_OK(io->ops->list(io, path, count_fn, &l, &err), &err);
    CHECK_EQ_INT(l.n, 1);
    CHECK_EQ_INT(fl_fileio_open(io, "s3://b/k", &f, &err), FL_EINVAL);
    CHECK(strstr(err.msg, "S3 endpoint 'ftp://nope'") != NULL);
    const char *paths[1] = {path};
    CHECK_OK(fl_s3_delete_many(io, paths, 1, &err), &err); /* local path: plain remove */
    CHECK_EQ_INT(access(path, F_OK), -1);
    fl_fileio_destroy(io);

    /* an explicit config is copied: the caller's strings may go away */
    char ep[64];
    snprintf(ep, sizeof ep, "http://127.0.0.1:1");
    fl_s3_config cfg = {
        .endpoint = ep, .path_style = true, .max_retries = 1, .connect_timeout_ms = 500};
    CHECK_OK(fl_fileio_default(&cfg, &io, &err), &err);
    memset(ep, 0, sizeof ep);
    CHECK_EQ_INT(fl_fileio_open(io, "s3://b/k", &f, &err), FL_EIO);
    CHECK(strstr(err.msg, "s3://b/k") != NULL && strstr(err.msg, "127.0.0.1:1") != NULL);
    fl_fileio_destroy(io);
    clear_env();
}

int main(void)
{
    if (!ft_tmpdir(tmpdir, sizeof tmpdir, "floe-s3cfg"))
        return 1;
    TEST_RUN(test_ini);
    TEST_RUN(test_env);
    TEST_RUN(test_files);
    TEST_RUN(test_paths);
    TEST_RUN(test_urls);
    TEST_RUN(test_default_routing);
    rmdir(tmpdir);
    return TEST_EXIT();
}
