/*
 * trino.c - a query run on Trino over Trino's client HTTP protocol: POST
 * /v1/statement with the SQL, then GET each nextUri until there is none,
 * collecting "columns" and the pages of "data" (libcurl, jansson).
 *
 * The URI is trino://[user@]host:port[/catalog[/schema]] (http only: a
 * deployment's Trino behind TLS or with passwords is not reachable yet).
 * The answer is one JSON object {"columns": [names], "data": [[values]]}.
 */
#include <curl/curl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/buf.h"
#include "floe/semantic.h"

typedef struct trino_uri {
    char user[128], host[256], catalog[128], schema[128];
    int port;
} trino_uri;

static fl_status parse_uri(const char *uri, trino_uri *u, fl_error *err)
{
    memset(u, 0, sizeof *u);
    snprintf(u->user, sizeof u->user, "floe");
    if (strncmp(uri, "trino://", 8))
        return fl_errorf(err, FL_EINVAL,
                         "engine '%s': expected trino://[user@]host:port[/catalog[/schema]]", uri);
    const char *p = uri + 8, *at = strchr(p, '@'), *slash = strchr(p, '/');
    if (at && (!slash || at < slash)) {
        snprintf(u->user, sizeof u->user, "%.*s", (int)(at - p), p);
        p = at + 1;
    }
    const char *colon = strchr(p, ':');
    slash = strchr(p, '/');
    if (!colon || (slash && colon > slash))
        return fl_errorf(err, FL_EINVAL, "engine '%s': no port", uri);
    snprintf(u->host, sizeof u->host, "%.*s", (int)(colon - p), p);
    u->port = atoi(colon + 1);
    if (slash) {
        const char *s2 = strchr(slash + 1, '/');
        snprintf(u->catalog, sizeof u->catalog, "%.*s",
                 (int)(s2 ? s2 - slash - 1 : (long)strlen(slash + 1)), slash + 1);
        if (s2)
            snprintf(u->schema, sizeof u->schema, "%s", s2 + 1);
    }
    if (!*u->host || u->port <= 0 || u->port > 65535 || strpbrk(u->user, "\r\n") ||
        strpbrk(u->catalog, "\r\n") || strpbrk(u->schema, "\r\n"))
        return fl_errorf(err, FL_EINVAL, "engine '%s': bad host, port or name", uri);
    return FL_OK;
}

static size_t on_body(char *data, size_t size, size_t n, void *ctx)
{
    fl_error e = {0};
    return fl_buf_append(ctx, data, size * n, &e) == FL_OK ? size * n : 0;
}

/* One request: POST sql (when given) or GET url; the response parsed. */
static fl_status request(CURL *h, const char *url, const char *sql, struct curl_slist *hdrs,
                         json_t **out, fl_error *err)
{
    fl_buf body;
    fl_buf_init(&body, 256u << 20);
    curl_easy_reset(h);
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &body);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http");
    curl_easy_setopt(h, CURLOPT_TIMEOUT, 600L);
    if (sql)
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, sql);
    CURLcode cc = curl_easy_perform(h);
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    fl_status rc = FL_OK;
    if (cc != CURLE_OK)
        rc = fl_errorf(err, FL_EIO, "trino: %s: %s", url, curl_easy_strerror(cc));
    else if (status != 200)
        rc = fl_errorf(err, FL_EIO, "trino: %s: HTTP %ld: %.200s", url, status,
                       body.data ? body.data : "");
    json_error_t je;
    if (rc == FL_OK && !(*out = json_loadb(body.data ? body.data : "", body.len, 0, &je)))
        rc = fl_errorf(err, FL_ECORRUPT, "trino: %s: bad JSON: %s", url, je.text);
    fl_buf_free(&body);
    return rc;
}

static fl_status take_page(json_t *page, json_t *cols, json_t *data, fl_error *err)
{
    json_t *e = json_object_get(page, "error");
    if (e)
        return fl_errorf(err, FL_EINVAL, "trino: %s",
                         json_string_value(json_object_get(e, "message"))
                             ? json_string_value(json_object_get(e, "message"))
                             : "query failed");
    json_t *c = json_object_get(page, "columns");
    if (json_is_array(c) && !json_array_size(cols))
        for (size_t i = 0; i < json_array_size(c); i++)
            json_array_append(cols, json_object_get(json_array_get(c, i), "name"));
    json_t *d = json_object_get(page, "data");
    if (json_is_array(d))
        json_array_extend(data, d);
    return FL_OK;
}

static fl_status run_pages(CURL *h, const char *url, const char *sql, struct curl_slist *hdrs,
                           json_t *cols, json_t *data, fl_error *err)
{
    json_t *page = NULL;
    FL_TRY(request(h, url, sql, hdrs, &page, err));
    for (int guard = 0; guard < 1000000; guard++) {
        fl_status rc = take_page(page, cols, data, err);
        const char *next = json_string_value(json_object_get(page, "nextUri"));
        char *copy = next && rc == FL_OK ? strdup(next) : NULL;
        json_decref(page);
        page = NULL;
        if (rc != FL_OK || !copy)
            return rc;
        rc = request(h, copy, NULL, hdrs, &page, err);
        free(copy);
        if (rc != FL_OK)
            return rc;
    }
    json_decref(page);
    return fl_errorf(err, FL_ELIMIT, "trino: too many result pages");
}

fl_status fl_sem_trino_run(const char *uri, const char *sql, char **result_json, fl_error *err)
{
    *result_json = NULL;
    trino_uri u;
    FL_TRY(parse_uri(uri, &u, err));
    char url[512], hv[3][200];
    snprintf(url, sizeof url, "http://%s:%d/v1/statement", u.host, u.port);
    snprintf(hv[0], sizeof hv[0], "X-Trino-User: %s", u.user);
    snprintf(hv[1], sizeof hv[1], "X-Trino-Catalog: %s", u.catalog);
    snprintf(hv[2], sizeof hv[2], "X-Trino-Schema: %s", u.schema);
    struct curl_slist *hdrs = curl_slist_append(NULL, hv[0]);
    if (*u.catalog)
        hdrs = curl_slist_append(hdrs, hv[1]);
    if (*u.schema)
        hdrs = curl_slist_append(hdrs, hv[2]);
    hdrs = curl_slist_append(hdrs, "Content-Type: text/plain");
    CURL *h = curl_easy_init();
    json_t *cols = json_array(), *data = json_array();
    fl_status rc = h && hdrs && cols && data ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
    if (rc == FL_OK)
        rc = run_pages(h, url, sql, hdrs, cols, data, err);
    if (rc == FL_OK) {
        json_t *o = json_pack("{sOsO}", "columns", cols, "data", data);
        *result_json = o ? json_dumps(o, JSON_COMPACT) : NULL;
        json_decref(o);
        if (!*result_json)
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    json_decref(cols);
    json_decref(data);
    if (h)
        curl_easy_cleanup(h);
    curl_slist_free_all(hdrs);
    return rc;
}
