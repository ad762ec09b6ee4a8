/*
 * test_console.c - the web console's static routes (src/server/h_console.c) in
 * one process: a server with authentication on an ephemeral port, driven
 * with libcurl.
 *
 *   - every file of console/ ($FLOE_SRC) is embedded and served byte for
 *     byte with its Content-Type, and every embedded name is a file there;
 *   - every answer has the strict Content-Security-Policy and nosniff; files
 *     have an ETag that If-None-Match turns into 304, and Cache-Control;
 *   - /console/ is index.html (HEAD too), /console redirects there (301), / too (302);
 *   - unknown names, "..", encoded dots and slashes, NUL, sub-folders and
 *     raw "/console/../x" paths are 404;
 *   - 400 random paths of dots, slashes and encodings: 200 only with an
 *     embedded file's bytes, else 301 or 404;
 *   - the routes need no token while the data APIs still answer 401.
 */
#include <curl/curl.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "floe/server.h"
#include "floe_test.h"
#include "server/console_assets.h"

static int g_port;

typedef struct resp {
    long status;
    char *body;
    size_t len;
    char headers[8192];
    size_t hlen;
} resp;

static size_t on_data(char *p, size_t sz, size_t n, void *ud)
{
    resp *r = ud;
    char *nb = realloc(r->body, r->len + sz * n + 1);
    if (!nb)
        return 0;
    r->body = nb;
    memcpy(r->body + r->len, p, sz * n);
    r->len += sz * n;
    r->body[r->len] = '\0';
    return sz * n;
}

static size_t on_header(char *p, size_t sz, size_t n, void *ud)
{
    resp *r = ud;
    size_t k = sz * n;
    if (r->hlen + k < sizeof r->headers) {
        memcpy(r->headers + r->hlen, p, k);
        r->hlen += k;
        r->headers[r->hlen] = '\0';
    }
    return k;
}

/* method path exactly as given (no dot-segment removal); extra: one request header or NULL. */
static resp request(const char *method, const char *path, const char *extra)
{
    resp r;
    memset(&r, 0, sizeof r);
    CURL *c = curl_easy_init();
    char url[1024];
    snprintf(url, sizeof url, "http://127.0.0.1:%d%s", g_port, path);
    struct curl_slist *h = extra ? curl_slist_append(NULL, extra) : NULL;
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_PATH_AS_IS, 1L);
    if (!strcmp(method, "HEAD"))
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &r);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &r);
    if (curl_easy_perform(c) == CURLE_OK)
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    return r;
}

static resp get(const char *path, const char *extra)
{
    return request("GET", path, extra);
}

/* The value of header name in r (copied into out), or NULL. */
static const char *header(const resp *r, const char *name, char *out, size_t cap)
{
    size_t n = strlen(name);
    for (const char *p = r->headers; p && *p;) {
        const char *e = strstr(p, "\r\n");
        if (!e)
            break;
        if (!strncasecmp(p, name, n) && p[n] == ':') {
            const char *v = p + n + 1;
            while (*v == ' ')
                v++;
            snprintf(out, cap, "%.*s", (int)(e - v), v);
            return out;
        }
        p = e + 2;
    }
    return NULL;
}

static void check_security_headers(const resp *r)
{
    char v[512];
    CHECK(header(r, "Content-Security-Policy", v, sizeof v) != NULL);
    CHECK(strstr(v, "script-src 'self'") != NULL);
    CHECK(strstr(v, "default-src 'none'") != NULL);
    CHECK(strstr(v, "unsafe-inline") == NULL);
    CHECK(header(r, "X-Content-Type-Options", v, sizeof v) && !strcmp(v, "nosniff"));
}

static const char *want_type(const char *name)
{
    const char *dot = strrchr(name, '.');
    if (dot && !strcmp(dot, ".html"))
        return "text/html; charset=utf-8";
    if (dot && !strcmp(dot, ".js"))
        return "text/javascript; charset=utf-8";
    if (dot && !strcmp(dot, ".css"))
        return "text/css; charset=utf-8";
    if (dot && !strcmp(dot, ".svg"))
        return "image/svg+xml";
    return NULL;
}

static void test_every_file(void)
{
    const char *src = getenv("FLOE_SRC");
    CHECK(src != NULL);
    if (!src)
        return;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/console", src);
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    if (!d)
        return;
    int files = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        files++;
        char path[1400], url[512], v[256];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t len = 0;
        char *want = ft_slurp(path, &len);
        snprintf(url, sizeof url, "/console/%s", e->d_name);
        resp r = get(url, NULL);
        CHECK_EQ_INT(r.status, 200);
        CHECK(want && r.len == len && !memcmp(r.body, want, len));
        check_security_headers(&r);
        const char *type = want_type(e->d_name);
        CHECK(type != NULL); /* a new kind of file needs its type here and in h_console.c */
        CHECK(header(&r, "Content-Type", v, sizeof v) && type && !strcmp(v, type));
        CHECK(header(&r, "Cache-Control", v, sizeof v) && !strcmp(v, "no-cache"));
        char etag[128], inm[200];
        CHECK(header(&r, "ETag", etag, sizeof etag) && etag[0] == '"');
        snprintf(inm, sizeof inm, "If-None-Match: %s", etag);
        resp n = get(url, inm);
        CHECK_EQ_INT(n.status, 304);
        CHECK_EQ_INT((long)n.len, 0);
        free(n.body);
        free(r.body);
        free(want);
    }
    closedir(d);
    int embedded = 0;
    for (const srv_console_asset *a = srv_console_assets; a->name; a++)
        embedded++;
    CHECK_EQ_INT(embedded, files);
    CHECK(files >= 10);
}

static void test_index_and_redirects(void)
{
    char v[256];
    resp r = get("/console/", NULL);
    CHECK_EQ_INT(r.status, 200);
    CHECK(r.body && strstr(r.body, "<script type=\"module\" src=\"/console/app.js\">") != NULL);
    CHECK(header(&r, "Content-Type", v, sizeof v) && !strcmp(v, "text/html; charset=utf-8"));
    check_security_headers(&r);
    free(r.body);
    r = request("HEAD", "/console/", NULL);
    CHECK_EQ_INT(r.status, 200);
    CHECK_EQ_INT((long)r.len, 0);
    CHECK(header(&r, "ETag", v, sizeof v) != NULL);
    check_security_headers(&r);
    free(r.body);
    r = request("HEAD", "/console/nope.js", NULL);
    CHECK_EQ_INT(r.status, 404);
    free(r.body);
    r = get("/console", NULL);
    CHECK_EQ_INT(r.status, 301);
    CHECK(header(&r, "Location", v, sizeof v) && !strcmp(v, "/console/"));
    check_security_headers(&r);
    free(r.body);
    r = get("/", NULL);
    CHECK_EQ_INT(r.status, 302);
    CHECK(header(&r, "Location", v, sizeof v) && !strcmp(v, "/console/"));
    free(r.body);
}

static void test_refused(void)
{
    static const char *paths[] = {
        "/console/nope.js",          "/console/..",        "/console/../x",
        "/console/../../etc/passwd", "/console/%2e%2e",    "/console/%2e%2e%2fCMakeLists.txt",
        "/console/..%2fapp.js",      "/console/app.js%00", "/console/sub/app.js",
        "/console/./app.js/../x",    "/console/APP.JS",
    };
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        resp r = get(paths[i], NULL);
        if (r.status != 404)
            fprintf(stderr, "%s -> %ld\n", paths[i], r.status);
        CHECK(r.status == 404);
        CHECK(!r.body || !strstr(r.body, "root:"));
        free(r.body);
    }
}

/* Random paths of dots, slashes, encodings and names under /console/: the
 * answer is 200 (then exactly one embedded file's bytes), 301 or 404, never
 * anything else and never other bytes. */
static void test_random_paths(void)
{
    static const char *const parts[] = {".",      "..",         "/",   "%2e", "%2E%2e",
                                        "%2f",    "%5c",        "%00", "%",   "%zz",
                                        "app.js", "index.html", "x",   "~",   "//"};
    unsigned seed = 12345;
    for (int i = 0; i < 400; i++) {
        char path[512] = "/console/";
        int n = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 6;
        for (int k = 0; k < n; k++) {
            seed = seed * 1103515245u + 12345u;
            strncat(path, parts[(seed >> 16) % (sizeof parts / sizeof parts[0])],
                    sizeof path - strlen(path) - 1);
        }
        resp r = get(path, NULL);
        bool known = false;
        for (const srv_console_asset *a = srv_console_assets; a->name && !known; a++)
            known = r.len == a->len && !memcmp(r.body, a->bytes, a->len);
        if (!(r.status == 404 || r.status == 301 || (r.status == 200 && known)))
            fprintf(stderr, "%s -> %ld (%zu bytes)\n", path, r.status, r.len);
        CHECK(r.status == 404 || r.status == 301 || (r.status == 200 && known));
        free(r.body);
    }
}

static void test_public_but_data_is_not(void)
{
    resp r = get("/console/app.js", NULL);
    CHECK_EQ_INT(r.status, 200);
    free(r.body);
    r = get("/v1/namespaces", NULL);
    CHECK_EQ_INT(r.status, 401);
    free(r.body);
}

int main(void)
{
    curl_global_init(CURL_GLOBAL_ALL);
    char dir[256];
    if (!ft_tmpdir(dir, sizeof dir, "floe-test-console"))
        return 1;
    char uri[300];
    snprintf(uri, sizeof uri, "sqlite:%s/catalog.db", dir);
    fl_server_options o = {0};
    o.catalog_uri = uri;
    o.warehouse = dir;
    o.threads = 2;
    fl_server *s = NULL;
    fl_error err = {0};
    if (fl_server_create(&o, &s, &err) != FL_OK || fl_server_start_listening(s, &err) != FL_OK) {
        fprintf(stderr, "server: %s\n", err.msg);
        return 1;
    }
    g_port = fl_server_port(s);
    TEST_RUN(test_every_file);
    TEST_RUN(test_index_and_redirects);
    TEST_RUN(test_refused);
    TEST_RUN(test_random_paths);
    TEST_RUN(test_public_but_data_is_not);
    fl_server_destroy(s, 2000);
    ft_rmtree(dir);
    curl_global_cleanup();
    return TEST_EXIT();
}
