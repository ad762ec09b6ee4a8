/*
 * test_server.c - `floe serve` end to end in one process: a server on an
 * ephemeral port (SQLite catalog in a temp warehouse, --insecure-no-auth),
 * driven over HTTP with libcurl.
 *
 *   - routing: prefix / no prefix, %1F namespaces, 404/405;
 *   - requirements: a stale assert-current-schema-id gets 409 and nothing changes;
 *   - rebase + concurrency: 16 clients x 50 appends (each writes a real
 *     manifest and manifest list with libfloe, commits add-snapshot +
 *     set-snapshot-ref main with assert-ref-snapshot-id) -> exactly 800
 *     snapshots on one unbroken main chain and 800 distinct data files in the
 *     head's manifests: no append lost, none duplicated;
 *   - idempotency: the same Idempotency-Key replays the first response;
 *   - limits: body over max -> 413, JSON too deep -> 400, '..' in a location -> 403;
 *   - location checks as a pure function;
 *   - storage confinement: creates at the warehouse root, over catalog.db,
 *     over another table, write.*.path outside, set-location onto another
 *     table, register of another table's metadata, and commits whose
 *     manifest list, manifest or data file lies outside the table -> 403
 *     with nothing changed; a purge leaves a foreign file a manifest names;
 *   - views as Java's RESTCatalog expects them: register-view (and its 409
 *     over a view or a table), IllegalArgumentException for two queries of
 *     one dialect.
 */
#include <curl/curl.h>
#include <inttypes.h>
#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "floe/ice_manifest.h"
#include "floe/json_depth.h"
#include "floe/ice_table.h"
#include "floe/server.h"
#include "floe_test.h"
#include "server/server_internal.h"

static char g_dir[256];
static int g_port;
static fl_fileio *g_io;

typedef struct resp {
    long status;
    char *body;
    size_t len;
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

static resp http(const char *method, const char *path, const char *body, const char *idem)
{
    resp r = {0, NULL, 0};
    CURL *c = curl_easy_init();
    char url[1024];
    snprintf(url, sizeof url, "http://127.0.0.1:%d%s", g_port, path);
    struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
    char ih[256];
    if (idem) {
        snprintf(ih, sizeof ih, "Idempotency-Key: %s", idem);
        h = curl_slist_append(h, ih);
    }
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
    if (!strcmp(method, "HEAD"))
        curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
    if (body)
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &r);
    if (curl_easy_perform(c) == CURLE_OK)
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    return r;
}

static const char *err_type(const resp *r)
{
    static __thread char buf[128];
    json_t *j = json_loads(r->body ? r->body : "", 0, NULL);
    snprintf(buf, sizeof buf, "%s",
             j ? (json_string_value(json_object_get(json_object_get(j, "error"), "type"))
                      ? json_string_value(json_object_get(json_object_get(j, "error"), "type"))
                      : "")
               : "");
    json_decref(j);
    return buf;
}

#define TABLE_PATH "/v1/namespaces/db/tables/t"

static void setup_table(void)
{
    resp r = http("POST", "/v1/namespaces", "{\"namespace\":[\"db\"]}", NULL);
    CHECK_EQ_INT(r.status, 200);
    free(r.body);
    r = http(
        "POST", "/v1/namespaces/db/tables",
        "{\"name\":\"t\",\"schema\":{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"id\","
        "\"type\":\"long\",\"required\":false}]}}",
        NULL);
    CHECK_EQ_INT(r.status, 200);
    free(r.body);
}

static void test_routing(void)
{
    resp r = http("GET", "/v1/config", NULL, NULL);
    CHECK_EQ_INT(r.status, 200);
    CHECK(r.body && strstr(r.body, "\"endpoints\""));
    free(r.body);
    r = http("GET", "/v1/anyprefix/namespaces/db", NULL, NULL);
    CHECK_EQ_INT(r.status, 200);
    /* no location set: the folder its tables go to (Trino's CTAS places tables there) */
    char want[512];
    snprintf(want, sizeof want, "\"location\":\"%s/db\"", g_dir);
    CHECK(r.body && strstr(r.body, want));
    free(r.body);
    r = http("POST", "/v1/namespaces", "{\"namespace\":[\"db\",\"sub\"]}", NULL);
    CHECK_EQ_INT(r.status, 200);
    snprintf(want, sizeof want, "\"location\":\"%s/db/~sub\"", g_dir);
    CHECK(r.body && strstr(r.body, want));
    free(r.body);
    /* a location that was set is returned as it is */
    char body[600];
    snprintf(body, sizeof body,
             "{\"namespace\":[\"placed\"],\"properties\":{\"location\":\"%s/x/y\"}}", g_dir);
    r = http("POST", "/v1/namespaces", body, NULL);
    CHECK_EQ_INT(r.status, 200);
    free(r.body);
    r = http("GET", "/v1/namespaces/placed", NULL, NULL);
    snprintf(want, sizeof want, "\"location\":\"%s/x/y\"", g_dir);
    CHECK(r.body && strstr(r.body, want) && !strstr(r.body, "placed\"}"));
    free(r.body);
    /* its tables go under it when they ask for no location */
    r = http(
        "POST", "/v1/namespaces/placed/tables",
        "{\"name\":\"t\",\"schema\":{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"id\","
        "\"type\":\"long\",\"required\":false}]}}",
        NULL);
    CHECK_EQ_INT(r.status, 200);
    snprintf(want, sizeof want, "\"location\":\"%s/x/y/t\"", g_dir);
    CHECK(r.body && strstr(r.body, want));
    free(r.body);
    r = http("HEAD", "/v1/namespaces/db%1Fsub", NULL, NULL);
    CHECK_EQ_INT(r.status, 204);
    free(r.body);
    r = http("GET", "/v1/namespaces?parent=db", NULL, NULL);
    CHECK(r.body && strstr(r.body, "[\"db\",\"sub\"]"));
    free(r.body);
    r = http("GET", "/v1/nothing/here/at/all", NULL, NULL);
    CHECK_EQ_INT(r.status, 404);
    CHECK_EQ_STR(err_type(&r), "NoSuchRouteException");
    free(r.body);
    r = http("PUT", "/v1/namespaces", "{}", NULL);
    CHECK_EQ_INT(r.status, 405);
    free(r.body);
    r = http("GET", "/v1/namespaces/nope/tables/x", NULL, NULL);
    CHECK_EQ_INT(r.status, 404);
    free(r.body);
}

static void test_stale_requirement(void)
{
    resp r =
        http("POST", TABLE_PATH,
             "{\"requirements\":[{\"type\":\"assert-current-schema-id\",\"current-schema-id\":7}],"
             "\"updates\":[{\"action\":\"set-properties\",\"updates\":{\"k\":\"v\"}}]}",
             NULL);
    CHECK_EQ_INT(r.status, 409);
    CHECK_EQ_STR(err_type(&r), "CommitFailedException");
    free(r.body);
    r = http("GET", TABLE_PATH, NULL, NULL);
    CHECK(r.body && !strstr(r.body, "\"k\":\"v\""));
    free(r.body);
    r = http("POST", TABLE_PATH, "{\"requirements\":[{\"type\":\"assert-bogus\"}],\"updates\":[]}",
             NULL);
    CHECK_EQ_INT(r.status, 400);
    free(r.body);
    r = http("POST", TABLE_PATH,
             "{\"requirements\":[{\"type\":\"assert-current-schema-id\",\"current-schema-id\":0}],"
             "\"updates\":[{\"action\":\"set-properties\",\"updates\":{\"k\":\"v\"}}]}",
             NULL);
    CHECK_EQ_INT(r.status, 200);
    CHECK(r.body && strstr(r.body, "\"k\":\"v\""));
    free(r.body);
}

/* One append through REST, as a client library does it. Returns HTTP status. */
static long append_once(int client, int i)
{
    resp r = http("GET", TABLE_PATH, NULL, NULL);
    json_t *j = json_loads(r.body ? r.body : "", 0, NULL);
    free(r.body);
    const char *loc = json_string_value(json_object_get(j, "metadata-location"));
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err = {0};
    fl_ice_metadata m;
    long status = -1;
    if (!loc || fl_ice_metadata_read(g_io, loc, &a, &m, &err) != FL_OK)
        goto out;
    const fl_ice_snapshot *head = fl_ice_metadata_current_snapshot(&m);
    fl_ice_manifest_file *old = NULL;
    uint32_t nold = 0;
    if (head && fl_ice_snapshot_manifests(g_io, &m, head, &a, &old, &nold, &err) != FL_OK)
        goto out;
    int64_t sid = fl_ice_new_snapshot_id();
    char uuid[37];
    fl_ice_uuid4(uuid);
    const char *mpath = fl_arena_sprintf(&a, "%s/metadata/%s-m0.avro", m.location, uuid);
    const char *lpath =
        fl_arena_sprintf(&a, "%s/metadata/snap-%" PRId64 "-1-%s.avro", m.location, sid, uuid);
    fl_ice_manifest_writer *w = NULL;
    if (fl_ice_manifest_writer_open(g_io, mpath, &m, 0, FL_ICE_MANIFEST_DATA, 2, sid, &w, &err))
        goto out;
    fl_ice_manifest_entry e;
    memset(&e, 0, sizeof e);
    e.status = FL_ICE_STATUS_ADDED;
    e.snapshot_id = sid;
    e.sequence_number = e.file_sequence_number = FL_ICE_UNASSIGNED_SEQ;
    e.file.content = FL_ICE_CONTENT_DATA;
    e.file.file_path =
        fl_arena_sprintf(&a, "%s/data/c%d-%d-%s.parquet", m.location, client, i, uuid);
    e.file.file_format = "PARQUET";
    e.file.record_count = 1;
    e.file.file_size_in_bytes = 100;
    fl_ice_manifest_file *list = fl_arena_calloc(&a, nold + 1, sizeof *list);
    if (fl_ice_manifest_writer_add(w, &e, &err) != FL_OK ||
        fl_ice_manifest_writer_close(w, &a, &list[0], &err) != FL_OK)
        goto out;
    if (nold)
        memcpy(list + 1, old, nold * sizeof *old);
    fl_ice_manifest_list_info info = {
        2, sid, head != NULL, head ? head->snapshot_id : 0, m.last_sequence_number + 1, 0};
    if (fl_ice_manifest_list_write(g_io, lpath, &info, list, nold + 1, NULL, &err) != FL_OK)
        goto out;
    char parent[64] = "", req[128];
    if (head)
        snprintf(parent, sizeof parent, "\"parent-snapshot-id\":%" PRId64 ",", head->snapshot_id);
    if (head)
        snprintf(req, sizeof req, "%" PRId64, head->snapshot_id);
    else
        snprintf(req, sizeof req, "null");
    char *body = fl_arena_sprintf(
        &a,
        "{\"requirements\":[{\"type\":\"assert-ref-snapshot-id\",\"ref\":\"main\",\"snapshot-id\":%"
        "s}],"
        "\"updates\":[{\"action\":\"add-snapshot\",\"snapshot\":{\"snapshot-id\":%" PRId64 ",%s"
        "\"sequence-number\":%" PRId64 ",\"timestamp-ms\":%" PRId64 ",\"manifest-list\":\"%s\","
        "\"summary\":{\"operation\":\"append\",\"added-data-files\":\"1\",\"added-records\":\"1\"},"
        "\"schema-id\":0}},{\"action\":\"set-snapshot-ref\",\"ref-name\":\"main\",\"type\":"
        "\"branch\","
        "\"snapshot-id\":%" PRId64 "}]}",
        req, sid, parent, m.last_sequence_number + 1, srv_now_ms(), lpath, sid);
    r = http("POST", TABLE_PATH, body, NULL);
    status = r.status;
    if (status != 200)
        fprintf(stderr, "append: HTTP %ld %s\n", status, r.body ? r.body : "");
    free(r.body);
out:
    if (status == -1)
        fprintf(stderr, "append client %d: %s\n", client, err.msg);
    json_decref(j);
    fl_arena_free(&a);
    return status;
}

#define CLIENTS 16
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define APPENDS 10 /* sanitizer builds: 160 appends, same checks */
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define APPENDS 10
#endif
#endif
#ifndef APPENDS
#define APPENDS 50
#endif

static void *client_main(void *arg)
{
    int id = (int)(intptr_t)arg, ok = 0;
    for (int i = 0; i < APPENDS; i++)
        if (append_once(id, i) == 200)
            ok++;
    return (void *)(intptr_t)ok;
}

static void test_concurrent_appends(void)
{
    pthread_t th[CLIENTS];
    for (int i = 0; i < CLIENTS; i++)
        pthread_create(&th[i], NULL, client_main, (void *)(intptr_t)i);
    int ok = 0;
    for (int i = 0; i < CLIENTS; i++) {
        void *v;
        pthread_join(th[i], &v);
        ok += (int)(intptr_t)v;
    }
    CHECK_EQ_INT(ok, CLIENTS * APPENDS);
    resp r = http("GET", TABLE_PATH, NULL, NULL);
    json_t *j = json_loads(r.body ? r.body : "", 0, NULL);
    free(r.body);
    const char *loc = json_string_value(json_object_get(j, "metadata-location"));
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err = {0};
    fl_ice_metadata m;
    CHECK(loc != NULL);
    if (loc) {
        CHECK_OK(fl_ice_metadata_read(g_io, loc, &a, &m, &err), &err);
        CHECK_EQ_INT(m.nsnapshots, CLIENTS * APPENDS);
        CHECK_EQ_INT(m.last_sequence_number, CLIENTS * APPENDS);
        /* one unbroken chain from main back to the first snapshot */
        uint32_t chain = 0;
        const fl_ice_snapshot *s = fl_ice_metadata_current_snapshot(&m);
        while (s && chain <= m.nsnapshots) {
            chain++;
            s = s->has_parent ? fl_ice_metadata_snapshot(&m, s->parent_snapshot_id) : NULL;
        }
        CHECK_EQ_INT(chain, CLIENTS * APPENDS);
        fl_ice_manifest_file *mf = NULL;
        uint32_t nmf = 0;
        CHECK_OK(fl_ice_snapshot_manifests(g_io, &m, fl_ice_metadata_current_snapshot(&m), &a, &mf,
                                           &nmf, &err),
                 &err);
        CHECK_EQ_INT(nmf, CLIENTS * APPENDS);
        int64_t files = 0;
        for (uint32_t i = 0; i < nmf; i++)
            files += mf[i].added_files_count;
        CHECK_EQ_INT(files, CLIENTS * APPENDS);
    }
    json_decref(j);
    fl_arena_free(&a);
}

static void test_idempotency(void)
{
    resp a = http("POST", "/v1/namespaces", "{\"namespace\":[\"idem\"]}", "k-123");
    resp b = http("POST", "/v1/namespaces", "{\"namespace\":[\"idem\"]}", "k-123");
    resp c = http("POST", "/v1/namespaces", "{\"namespace\":[\"idem\"]}", "k-456");
    CHECK_EQ_INT(a.status, 200);
    CHECK_EQ_INT(b.status, 200);
    CHECK(a.body && b.body && !strcmp(a.body, b.body));
    CHECK_EQ_INT(c.status, 409);
    free(a.body), free(b.body), free(c.body);
}

static void test_limits(void)
{
    size_t n = 9u << 20;
    char *big = malloc(n + 1);
    memset(big, ' ', n);
    big[0] = '{';
    big[n - 1] = '}';
    big[n] = '\0';
    resp r = http("POST", "/v1/namespaces", big, NULL);
    CHECK_EQ_INT(r.status, 413);
    free(r.body);
    free(big);
    char deep[400];
    memset(deep, '[', 200);
    memset(deep + 200, ']', 199);
    deep[399] = '\0';
    char body[512];
    snprintf(body, sizeof body, "{\"namespace\":%s]}", deep);
    r = http("POST", "/v1/namespaces", body, NULL);
    CHECK_EQ_INT(r.status, 400);
    free(r.body);
    char create[512];
    snprintf(create, sizeof create,
             "{\"name\":\"evil\",\"location\":\"%s/db/../../etc\",\"schema\":{\"type\":\"struct\","
             "\"fields\":[]}}",
             g_dir);
    r = http("POST", "/v1/namespaces/db/tables", create, NULL);
    CHECK_EQ_INT(r.status, 403);
    free(r.body);
    r = http("POST", "/v1/namespaces/db/tables",
             "{\"name\":\"evil2\",\"location\":\"s3://other-bucket/x\",\"schema\":{\"type\":"
             "\"struct\",\"fields\":[]}}",
             NULL);
    CHECK_EQ_INT(r.status, 403);
    free(r.body);
}

/* ---- storage confinement ---- */

/* Commits one add-snapshot to table path tpath (db.<name>) whose manifest
 * list goes to list_dir, manifest to man_dir and whose one data file is
 * data (NULL = defaults inside the table). Returns the HTTP status. */
static long crafted_append(const char *name, const char *list_dir, const char *man_dir,
                           const char *data, char **body_out)
{
    char tpath[200];
    snprintf(tpath, sizeof tpath, "/v1/namespaces/db/tables/%s", name);
    resp r = http("GET", tpath, NULL, NULL);
    json_t *j = json_loads(r.body ? r.body : "", 0, NULL);
    free(r.body);
    const char *loc = json_string_value(json_object_get(j, "metadata-location"));
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err = {0};
    fl_ice_metadata m;
    long status = -1;
    if (!loc || fl_ice_metadata_read(g_io, loc, &a, &m, &err) != FL_OK)
        goto out;
    int64_t sid = fl_ice_new_snapshot_id();
    char uuid[37];
    fl_ice_uuid4(uuid);
    const char *md = man_dir ? man_dir : fl_arena_sprintf(&a, "%s/metadata", m.location);
    const char *ld = list_dir ? list_dir : fl_arena_sprintf(&a, "%s/metadata", m.location);
    const char *mpath = fl_arena_sprintf(&a, "%s/%s-m0.avro", md, uuid);
    const char *lpath = fl_arena_sprintf(&a, "%s/snap-%" PRId64 "-1-%s.avro", ld, sid, uuid);
    fl_ice_manifest_writer *w = NULL;
    if (fl_ice_manifest_writer_open(g_io, mpath, &m, 0, FL_ICE_MANIFEST_DATA, 2, sid, &w, &err))
        goto out;
    fl_ice_manifest_entry e;
    memset(&e, 0, sizeof e);
    e.status = FL_ICE_STATUS_ADDED;
    e.snapshot_id = sid;
    e.sequence_number = e.file_sequence_number = FL_ICE_UNASSIGNED_SEQ;
    e.file.content = FL_ICE_CONTENT_DATA;
    e.file.file_path = data ? data : fl_arena_sprintf(&a, "%s/data/%s.parquet", m.location, uuid);
    e.file.file_format = "PARQUET";
    e.file.record_count = 1;
    e.file.file_size_in_bytes = 100;
    fl_ice_manifest_file list[1];
    if (fl_ice_manifest_writer_add(w, &e, &err) != FL_OK ||
        fl_ice_manifest_writer_close(w, &a, &list[0], &err) != FL_OK)
        goto out;
    fl_ice_manifest_list_info info = {2, sid, false, 0, m.last_sequence_number + 1, 0};
    if (fl_ice_manifest_list_write(g_io, lpath, &info, list, 1, NULL, &err) != FL_OK)
        goto out;
    char *body = fl_arena_sprintf(
        &a,
        "{\"requirements\":[],\"updates\":[{\"action\":\"add-snapshot\",\"snapshot\":{"
        "\"snapshot-id\":%" PRId64 ",\"sequence-number\":%" PRId64 ",\"timestamp-ms\":%" PRId64
        ",\"manifest-list\":\"%s\",\"summary\":{\"operation\":\"append\"},\"schema-id\":0}},"
        "{\"action\":\"set-snapshot-ref\",\"ref-name\":\"main\",\"type\":\"branch\","
        "\"snapshot-id\":%" PRId64 "}]}",
        sid, m.last_sequence_number + 1, srv_now_ms(), lpath, sid);
    r = http("POST", tpath, body, NULL);
    status = r.status;
    if (body_out)
        *body_out = r.body;
    else
        free(r.body);
out:
    if (status == -1)
        fprintf(stderr, "crafted append: %s\n", err.msg);
    json_decref(j);
    fl_arena_free(&a);
    return status;
}

static long post(const char *path, const char *body, char **out)
{
    resp r = http("POST", path, body, NULL);
    if (out)
        *out = r.body;
    else
        free(r.body);
    return r.status;
}

#define SCHEMA_JSON                                                                                \
    "\"schema\":{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"id\",\"type\":\"long\","     \
    "\"required\":false}]}"

static void test_confinement(void)
{
    char b[2048], *out = NULL;
    const char *tables = "/v1/namespaces/db/tables";
    /* table locations: the warehouse root, over catalog.db, over db.t */
    snprintf(b, sizeof b, "{\"name\":\"c1\",\"location\":\"%s\"," SCHEMA_JSON "}", g_dir);
    CHECK_EQ_INT(post(tables, b, &out), 403);
    CHECK(out && strstr(out, "warehouse root"));
    free(out);
    snprintf(b, sizeof b, "{\"name\":\"c1\",\"location\":\"%s/catalog.db\"," SCHEMA_JSON "}",
             g_dir);
    CHECK_EQ_INT(post(tables, b, NULL), 403);
    snprintf(b, sizeof b, "{\"name\":\"c1\",\"location\":\"%s/db/t/data/sub\"," SCHEMA_JSON "}",
             g_dir);
    CHECK_EQ_INT(post(tables, b, &out), 403);
    CHECK(out && strstr(out, "overlaps"));
    free(out);
    snprintf(b, sizeof b, "{\"name\":\"c1\",\"location\":\"%s/db\"," SCHEMA_JSON "}", g_dir);
    CHECK_EQ_INT(post(tables, b, NULL), 403);
    snprintf(b, sizeof b,
             "{\"name\":\"c1\",\"properties\":{\"write.data.path\":\"/tmp\"}," SCHEMA_JSON "}");
    CHECK_EQ_INT(post(tables, b, &out), 403);
    CHECK(out && strstr(out, "write.data.path"));
    free(out);
    /* a second table to aim at */
    snprintf(b, sizeof b, "{\"name\":\"c2\"," SCHEMA_JSON "}");
    CHECK_EQ_INT(post(tables, b, &out), 200);
    json_t *j = json_loads(out ? out : "", 0, NULL);
    free(out);
    char c2meta[1024];
    snprintf(c2meta, sizeof c2meta, "%s",
             json_string_value(json_object_get(j, "metadata-location")) ?: "");
    json_decref(j);
    /* set-location onto db.t, write.metadata.path outside */
    snprintf(b, sizeof b,
             "{\"requirements\":[],\"updates\":[{\"action\":\"set-location\",\"location\":"
             "\"%s/db/t\"}]}",
             g_dir);
    CHECK_EQ_INT(post("/v1/namespaces/db/tables/c2", b, &out), 403);
    CHECK(out && strstr(out, "overlaps"));
    free(out);
    snprintf(b, sizeof b,
             "{\"requirements\":[],\"updates\":[{\"action\":\"set-properties\",\"updates\":{"
             "\"write.metadata.path\":\"%s/db/t/metadata\"}}]}",
             g_dir);
    CHECK_EQ_INT(post("/v1/namespaces/db/tables/c2", b, NULL), 403);
    /* register another table's metadata under a new name */
    snprintf(b, sizeof b, "{\"name\":\"steal\",\"metadata-location\":\"%s\"}", c2meta);
    CHECK_EQ_INT(post("/v1/namespaces/db/register", b, &out), 403);
    CHECK(out && strstr(out, "overlaps"));
    free(out);
    /* crafted commits: data file, manifest or manifest list outside c2 */
    char victim[400], other[400];
    snprintf(victim, sizeof victim, "%s/db/t/data/victim.parquet", g_dir);
    snprintf(other, sizeof other, "%s/db/t/metadata", g_dir);
    char mk[600];
    snprintf(mk, sizeof mk, "mkdir -p '%s/db/t/data'", g_dir);
    CHECK(system(mk) == 0);
    FILE *f = fopen(victim, "w");
    CHECK(f != NULL);
    if (f) {
        fputs("another table's data", f);
        fclose(f);
    }
    CHECK_EQ_INT(crafted_append("c2", NULL, NULL, victim, &out), 403);
    CHECK(out && strstr(out, "victim.parquet"));
    free(out);
    CHECK_EQ_INT(crafted_append("c2", NULL, other, NULL, &out), 403);
    CHECK(out && strstr(out, "manifest"));
    free(out);
    CHECK_EQ_INT(crafted_append("c2", other, NULL, NULL, &out), 403);
    CHECK(out && strstr(out, "manifest list"));
    free(out);
    /* nothing landed: c2 still has no snapshot; a clean append works */
    resp r = http("GET", "/v1/namespaces/db/tables/c2", NULL, NULL);
    CHECK(r.body && strstr(r.body, "\"snapshots\":[]"));
    free(r.body);
    CHECK_EQ_INT(crafted_append("c2", NULL, NULL, NULL, NULL), 200);
    /* purge of c2 never deletes the victim file */
    r = http("DELETE", "/v1/namespaces/db/tables/c2?purgeRequested=true", NULL, NULL);
    CHECK_EQ_INT(r.status, 204);
    free(r.body);
    CHECK(access(victim, F_OK) == 0);
    /* default locations of new tables map names to distinct folders */
    snprintf(b, sizeof b, "{\"name\":\"x/y\"," SCHEMA_JSON "}");
    CHECK_EQ_INT(post(tables, b, &out), 200);
    CHECK(out && strstr(out, "/db/x%2Fy\""));
    free(out);
}

static void test_location_rules(void)
{
    fl_error err = {0};
    const char *allowed[] = {"s3://shared/lake"};
    CHECK_EQ_INT(srv_location_check_roots("/w", allowed, 1, "/w/db/t", &err), FL_OK);
    CHECK_EQ_INT(srv_location_check_roots("/w", allowed, 1, "file:///w/db/t", &err), FL_OK);
    CHECK_EQ_INT(srv_location_check_roots("/w", allowed, 1, "s3://shared/lake/t", &err), FL_OK);
    CHECK_EQ_INT(srv_location_check_roots("/w", allowed, 1, "/w/../etc", &err), FL_EFORBIDDEN);
    CHECK_EQ_INT(srv_location_check_roots("/w", allowed, 1, "/wx/t", &err), FL_EFORBIDDEN);
    CHECK_EQ_INT(srv_location_check_roots("/w", allowed, 1, "/w/a//b", &err), FL_EFORBIDDEN);
    CHECK_EQ_INT(srv_location_check_roots("/w", allowed, 1, "s3://shared/lakehouse", &err),
                 FL_EFORBIDDEN);
    CHECK_EQ_INT(fl_json_depth("{\"a\":\"[[[[\"}", 11), 1);
    CHECK_EQ_INT(fl_json_depth("[[{}]]", 6), 3);
}

/* A CreateViewRequest for view `name` whose version has the given representations. */
static void view_body(char *buf, size_t n, const char *name, const char *reps)
{
    snprintf(buf, n,
             "{\"name\":\"%s\",\"schema\":{\"type\":\"struct\",\"schema-id\":0,\"fields\":[{\"id\":"
             "1,\"name\":\"x\",\"type\":\"int\",\"required\":false}]},\"view-version\":{"
             "\"version-id\":1,\"timestamp-ms\":1700000000000,\"schema-id\":0,\"summary\":{},"
             "\"representations\":[%s],\"default-namespace\":[\"vw\"]},\"properties\":{}}",
             name, reps);
}

#define REP_TRINO "{\"type\":\"sql\",\"sql\":\"SELECT 1 AS x\",\"dialect\":\"trino\"}"

/* What Java's RESTCatalog expects of the view endpoints (the REST
 * Compatibility Kit's ViewCatalogTests): register-view, its 409s, and a
 * version with two queries of one dialect as IllegalArgumentException. */
static void test_views(void)
{
    resp r = http("POST", "/v1/namespaces", "{\"namespace\":[\"vw\"]}", NULL);
    CHECK_EQ_INT(r.status, 200);
    free(r.body);
    char body[2048];
    view_body(body, sizeof body, "dup", REP_TRINO "," REP_TRINO);
    r = http("POST", "/v1/namespaces/vw/views", body, NULL);
    CHECK_EQ_INT(r.status, 400);
    CHECK_EQ_STR(err_type(&r), "IllegalArgumentException");
    CHECK(r.body && strstr(r.body, "Cannot add multiple queries for dialect trino"));
    free(r.body);
    view_body(body, sizeof body, "v", REP_TRINO);
    r = http("POST", "/v1/namespaces/vw/views", body, NULL);
    CHECK_EQ_INT(r.status, 200);
    json_t *j = json_loads(r.body ? r.body : "", 0, NULL);
    char mloc[512] = "";
    snprintf(mloc, sizeof mloc, "%s",
             json_string_value(json_object_get(j, "metadata-location"))
                 ? json_string_value(json_object_get(j, "metadata-location"))
                 : "");
    json_decref(j);
    free(r.body);
    CHECK(mloc[0] != '\0');
    char reg[1024];
    /* over an existing view, then over an existing table: 409, nothing changes */
    snprintf(reg, sizeof reg, "{\"name\":\"v\",\"metadata-location\":\"%s\"}", mloc);
    r = http("POST", "/v1/namespaces/vw/register-view", reg, NULL);
    CHECK_EQ_INT(r.status, 409);
    CHECK_EQ_STR(err_type(&r), "AlreadyExistsException");
    free(r.body);
    r = http(
        "POST", "/v1/namespaces/vw/tables",
        "{\"name\":\"t\",\"schema\":{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"id\","
        "\"type\":\"long\",\"required\":false}]}}",
        NULL);
    CHECK_EQ_INT(r.status, 200);
    free(r.body);
    snprintf(reg, sizeof reg, "{\"name\":\"t\",\"metadata-location\":\"%s\"}", mloc);
    r = http("POST", "/v1/namespaces/vw/register-view", reg, NULL);
    CHECK_EQ_INT(r.status, 409);
    CHECK_EQ_STR(err_type(&r), "AlreadyExistsException");
    free(r.body);
    r = http("HEAD", "/v1/namespaces/vw/tables/t", NULL, NULL);
    CHECK_EQ_INT(r.status, 204);
    free(r.body);
    /* dropped, then registered again from its metadata file: loads as before */
    r = http("DELETE", "/v1/namespaces/vw/views/v", NULL, NULL);
    CHECK_EQ_INT(r.status, 204);
    free(r.body);
    r = http("HEAD", "/v1/namespaces/vw/views/v", NULL, NULL);
    CHECK_EQ_INT(r.status, 404);
    free(r.body);
    snprintf(reg, sizeof reg, "{\"name\":\"v2\",\"metadata-location\":\"%s\"}", mloc);
    r = http("POST", "/v1/namespaces/vw/register-view", reg, NULL);
    CHECK_EQ_INT(r.status, 200);
    CHECK(r.body && strstr(r.body, mloc) && strstr(r.body, "SELECT 1 AS x"));
    free(r.body);
    r = http("GET", "/v1/namespaces/vw/views/v2", NULL, NULL);
    CHECK_EQ_INT(r.status, 200);
    CHECK(r.body && strstr(r.body, mloc));
    free(r.body);
    /* missing namespace; a file outside every allowed root; not view metadata */
    r = http("POST", "/v1/namespaces/nope/register-view", reg, NULL);
    CHECK_EQ_INT(r.status, 404);
    CHECK_EQ_STR(err_type(&r), "NoSuchNamespaceException");
    free(r.body);
    r = http("POST", "/v1/namespaces/vw/register-view",
             "{\"name\":\"x\",\"metadata-location\":\"/etc/passwd\"}", NULL);
    CHECK_EQ_INT(r.status, 403);
    free(r.body);
    snprintf(reg, sizeof reg, "{\"name\":\"x\",\"metadata-location\":\"%s/catalog.db\"}", g_dir);
    r = http("POST", "/v1/namespaces/vw/register-view", reg, NULL);
    CHECK(r.status == 400 || r.status == 403);
    free(r.body);
    r = http("HEAD", "/v1/namespaces/vw/views/x", NULL, NULL);
    CHECK_EQ_INT(r.status, 404);
    free(r.body);
}

int main(void)
{
    curl_global_init(CURL_GLOBAL_ALL);
    if (!ft_tmpdir(g_dir, sizeof g_dir, "floe-test-server"))
        return 1;
    char uri[300];
    snprintf(uri, sizeof uri, "sqlite:%s/catalog.db", g_dir);
    fl_server_options o = {0};
    o.catalog_uri = uri;
    o.warehouse = g_dir;
    o.insecure_no_auth = true;
    o.threads = 4;
    fl_server *s = NULL;
    fl_error err = {0};
    if (fl_server_create(&o, &s, &err) != FL_OK || fl_server_start_listening(s, &err) != FL_OK) {
        fprintf(stderr, "server: %s\n", err.msg);
        return 1;
    }
    g_port = fl_server_port(s);
    g_io = fl_fileio_local();
    setup_table();
    TEST_RUN(test_routing);
    TEST_RUN(test_stale_requirement);
    TEST_RUN(test_concurrent_appends);
    TEST_RUN(test_idempotency);
    TEST_RUN(test_limits);
    TEST_RUN(test_location_rules);
    TEST_RUN(test_confinement);
    TEST_RUN(test_views);
    fl_server_destroy(s, 5000);
    fl_fileio_destroy(g_io);
    ft_rmtree(g_dir);
    curl_global_cleanup();
    return TEST_EXIT();
}
