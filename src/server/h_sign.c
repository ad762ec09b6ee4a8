/*
 * h_sign.c - remote signing of S3 requests (REST spec, "Remote Signing"):
 *
 *   POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/sign
 *        {"region", "method", "uri", "headers": {name: [values]}, "body"?, "provider"?}
 *     -> {"uri", "headers": {name: [values]}}   the headers to send, signed
 *
 * An engine that holds only a catalog token reads and writes a table's files
 * on S3 by asking floe to sign each request. What may be signed is decided
 * here, and refused (403, audited) otherwise:
 *   - the sender needs READ on the table to sign GET/HEAD and WRITE to sign
 *     PUT/POST/DELETE (the privilege of a commit);
 *   - the request must be on the server's own storage endpoint and name an
 *     object under the table's location (or its write.*.path folders):
 *     an object key, a listing whose `prefix` is inside it, or a
 *     DeleteObjects whose body names only keys inside it;
 *   - only the sub-resources S3FileIO and PyIceberg use (multipart upload
 *     parts, listings, bulk delete); any other (?acl, ?policy, ...) is refused;
 *   - the signature is dated now, so S3 refuses it after 15 minutes; the
 *     catalog token expires on its own schedule.
 * LoadTableResult advertises the endpoint (srv_remote_signing_config) only
 * when the client sent X-Iceberg-Access-Delegation: remote-signing.
 */
#include <string.h>
#include <strings.h>
#include <time.h>

#include "floe/rest.h"
#include "server/server_internal.h"

typedef struct sign_scope {
    const char *bucket;
    const char *prefixes[4]; /* keys under the table: "wh/ns/t/" */
    uint32_t n;
} sign_scope;

/* Adds the folder of an s3:// location ("s3://b/k" -> "k/") to the scope. */
static void scope_add(sign_scope *sc, fl_arena *a, const char *loc)
{
    if (!loc || sc->n == 4)
        return;
    const char *p = NULL;
    if (!strncmp(loc, "s3://", 5))
        p = loc + 5;
    else if (!strncmp(loc, "s3a://", 6) || !strncmp(loc, "s3n://", 6))
        p = loc + 6;
    if (!p)
        return;
    size_t bl = strcspn(p, "/");
    const char *b = fl_arena_strndup(a, p, bl);
    if (!b || (sc->bucket && strcmp(sc->bucket, b) != 0))
        return; /* another bucket than the table's: never in scope */
    sc->bucket = b;
    const char *k = p[bl] ? p + bl + 1 : "";
    size_t kl = strlen(k);
    while (kl && k[kl - 1] == '/')
        kl--;
    if (!kl)
        return; /* a bucket root is never one table's */
    sc->prefixes[sc->n++] = fl_arena_sprintf(a, "%.*s/", (int)kl, k);
}

static bool in_scope(const sign_scope *sc, const char *key)
{
    for (uint32_t i = 0; i < sc->n; i++)
        if (sc->prefixes[i] && !strncmp(key, sc->prefixes[i], strlen(sc->prefixes[i])))
            return true;
    return false;
}

static bool only_params(const fl_s3_url *u, const char *const *allowed)
{
    for (size_t i = 0; i < u->nquery; i++) {
        bool ok = false;
        for (const char *const *a = allowed; *a && !ok; a++)
            ok = !strcmp(u->query[i].name, *a);
        if (!ok)
            return false;
    }
    return true;
}

/* NULL when the request may be signed, else why not. */
static const char *refusal(fl_server_request *r, const sign_scope *sc, const char *method,
                           const fl_s3_url *u, const char *body)
{
    static const char *const object_params[] = {"uploads", "uploadId",  "partNumber",
                                                "x-id",    "versionId", NULL};
    static const char *const list_params[] = {
        "list-type",          "prefix",      "delimiter",   "max-keys", "encoding-type",
        "continuation-token", "start-after", "fetch-owner", "x-id",     NULL};
    static const char *const delete_params[] = {"delete", "x-id", NULL};
    if (!sc->bucket || strcmp(u->bucket, sc->bucket) != 0)
        return "the request is for another bucket than the table's";
    if (*u->key) {
        if (!only_params(u, object_params))
            return "the request uses an S3 sub-resource the signer does not sign";
        return in_scope(sc, u->key) ? NULL : "the object is outside the table's location";
    }
    if (!strcasecmp(method, "GET") && only_params(u, list_params)) {
        const char *prefix = fl_s3_url_query(u, "prefix");
        if (!prefix || !in_scope(sc, prefix))
            return "the listing's prefix is outside the table's location";
        return NULL;
    }
    if (!strcasecmp(method, "POST") && fl_s3_url_query(u, "delete") &&
        only_params(u, delete_params)) {
        const char **keys = NULL;
        size_t n = 0;
        fl_error err = {0};
        if (!body ||
            fl_s3_delete_request_keys(body, strlen(body), &r->arena, &keys, &n, &err) != FL_OK)
            return "a bulk delete needs its request body (the keys) to be signed";
        for (size_t i = 0; i < n; i++)
            if (!in_scope(sc, keys[i]))
                return "a key of the bulk delete is outside the table's location";
        return NULL;
    }
    return "the request is a bucket-level operation the signer does not sign";
}

/* The request's headers as name/value pairs (multiple values joined by ","). */
static bool read_headers(fl_server_request *r, json_t *h, fl_s3_header **out, size_t *n)
{
    size_t cap = h ? json_object_size(h) : 0, k = 0;
    fl_s3_header *hs = fl_arena_calloc(&r->arena, cap + 1, sizeof *hs);
    const char *name;
    json_t *v;
    if (!hs)
        return false;
    json_object_foreach(h, name, v)
    {
        const char *val = NULL;
        if (json_is_string(v)) {
            val = json_string_value(v);
        } else if (json_is_array(v)) {
            size_t i;
            json_t *e;
            val = "";
            json_array_foreach(v, i, e)
            {
                if (!json_is_string(e))
                    return false;
                val = i ? fl_arena_sprintf(&r->arena, "%s,%s", val, json_string_value(e))
                        : json_string_value(e);
                if (!val)
                    return false;
            }
        } else {
            return false;
        }
        hs[k++] = (fl_s3_header){name, val};
    }
    *out = hs;
    *n = k;
    return true;
}

static json_t *headers_json(const fl_s3_header *hs, size_t n)
{
    json_t *o = json_object();
    for (size_t i = 0; o && i < n; i++) {
        json_t *arr = json_array();
        if (!arr || json_array_append_new(arr, json_string(hs[i].value)) != 0 ||
            json_object_set_new(o, hs[i].name, arr) != 0) {
            json_decref(o);
            return NULL;
        }
    }
    return o;
}

/* The table's scope (its location and write.*.path folders), or false after responding. */
static bool table_scope(fl_server_request *r, const fl_table_ident *id, sign_scope *sc)
{
    const char *loc;
    fl_ice_metadata m;
    if (!srv_load_meta(r, srv_cat(r), id, &loc, &m))
        return false;
    memset(sc, 0, sizeof *sc);
    scope_add(sc, &r->arena, m.location);
    static const char *const keys[] = {"write.data.path", "write.metadata.path",
                                       "write.object-storage.path"};
    for (int i = 0; i < 3; i++)
        scope_add(sc, &r->arena, fl_ice_map_get(&m.properties, keys[i]));
    if (!sc->n) {
        fl_server_respond_error(r, 400, "BadRequestException",
                                "table %s is not stored on S3: nothing to sign", id->name);
        return false;
    }
    return true;
}

static void h_sign(fl_server_request *r, void *ctx)
{
    (void)ctx;
    fl_table_ident id;
    if (!srv_ns_param(r, "namespace", &id.ns))
        return;
    id.name = fl_server_req_param(r, "table");
    json_t *j = srv_body_json(r);
    if (!j)
        return;
    const char *method = json_string_value(json_object_get(j, "method"));
    const char *uri = json_string_value(json_object_get(j, "uri"));
    const char *region = json_string_value(json_object_get(j, "region"));
    const char *provider = json_string_value(json_object_get(j, "provider"));
    const char *body = json_string_value(json_object_get(j, "body"));
    json_t *hj = json_object_get(j, "headers");
    fl_s3_header *hs = NULL;
    size_t nh = 0;
    if (!method || !uri || (hj && !json_is_object(hj)) || !read_headers(r, hj, &hs, &nh)) {
        json_decref(j);
        fl_server_respond_error(r, 400, "BadRequestException",
                                "a sign request needs method, uri and headers {name: [values]}");
        return;
    }
    if (provider && strcasecmp(provider, "s3") != 0) {
        json_decref(j);
        fl_server_respond_error(r, 400, "BadRequestException",
                                "remote signing supports provider s3, not '%.40s'", provider);
        return;
    }
    bool reads = !strcasecmp(method, "GET") || !strcasecmp(method, "HEAD");
    sign_scope sc;
    if (!srv_authorize(r, reads ? FL_PRIV_READ : FL_PRIV_WRITE, &id.ns, id.name) ||
        !table_scope(r, &id, &sc)) {
        json_decref(j);
        return;
    }
    fl_error err = {0};
    fl_s3_url u;
    const char *why = NULL;
    if (fl_s3_url_parse(&r->srv->s3, uri, &r->arena, &u, &err) != FL_OK)
        why = err.msg;
    else
        why = refusal(r, &sc, method, &u, body);
    const char *target =
        fl_arena_sprintf(&r->arena, "%s.%s", srv_ns_dotted(&id.ns, &r->arena), id.name);
    if (why) {
        const char *detail = fl_arena_sprintf(&r->arena, "%s %.300s: %s", method, uri, why);
        srv_audit(r, "sign", target ? target : id.name, "denied", detail ? detail : why);
        fl_server_respond_error(r, 403, "ForbiddenException", "remote signing of %s %.300s: %s",
                                method, uri, why);
        json_decref(j);
        return;
    }
    fl_s3_header *out = NULL;
    size_t nout = 0;
    fl_status rc = fl_s3_sign_headers(&r->srv->s3, region, method, uri, hs, nh, (int64_t)time(NULL),
                                      &r->arena, &out, &nout, &err);
    if (rc != FL_OK) {
        json_decref(j);
        srv_respond_status(r, rc == FL_ENOMEM ? FL_ENOMEM : FL_EINVAL, &err, "remote signing");
        return;
    }
    json_t *res = json_pack("{s:s,s:o}", "uri", uri, "headers", headers_json(out, nout));
    json_decref(j);
    fl_server_response_header(r, "Cache-Control", reads ? "private" : "no-cache");
    srv_respond_json(r, 200, res);
}

fl_status srv_routes_sign(fl_server *s, fl_error *err)
{
    return srv_router_add(&s->router, "POST",
                          "/v1/{prefix}/namespaces/{namespace}/tables/{table}/sign", h_sign, NULL,
                          0, err);
}

/* True when the request lists `mode` in X-Iceberg-Access-Delegation. */
bool srv_delegation_asked(fl_server_request *r, const char *mode)
{
    const char *h = fl_server_req_header(r, "X-Iceberg-Access-Delegation");
    size_t ml = strlen(mode);
    while (h && *h) {
        h += strspn(h, " \t,");
        size_t n = strcspn(h, ",");
        size_t t = n;
        while (t && (h[t - 1] == ' ' || h[t - 1] == '\t'))
            t--;
        if (t == ml && !strncasecmp(h, mode, ml))
            return true;
        h += n;
    }
    return false;
}

/* The LoadTableResult `config` for a table at location: when the client
 * asked for remote signing and the table lives on S3 that the server holds
 * keys for, the signer settings S3FileIO (Java) and PyIceberg read; else
 * NULL (an empty config). Text "{...}" in the arena. */
const char *srv_remote_signing_config(fl_server_request *r, const fl_table_ident *id,
                                      const char *location)
{
    const fl_s3_config *s3 = &r->srv->s3;
    if (!location || strncmp(location, "s3", 2) != 0 || !s3->access_key_id ||
        !srv_delegation_asked(r, "remote-signing"))
        return NULL;
    const char *host = fl_server_req_header(r, "Host");
    const char *proto = fl_server_req_header(r, "X-Forwarded-Proto");
    const char *ns = fl_rest_namespace_path(&r->arena, &id->ns);
    const char *tbl = fl_rest_url_encode(&r->arena, id->name);
    if (!host || !ns || !tbl)
        return NULL;
    json_t *c = json_object();
    const char *base = fl_arena_sprintf(&r->arena, "%s://%s", proto ? proto : "http", host);
    const char *ep =
        fl_arena_sprintf(&r->arena, "v1/%s%snamespaces/%s/tables/%s/sign",
                         r->srv->prefix ? r->srv->prefix : "", r->srv->prefix ? "/" : "", ns, tbl);
    const char *region = s3->region && *s3->region ? s3->region : "us-east-1";
    if (!c || !base || !ep)
        return NULL;
    json_object_set_new(c, "s3.remote-signing-enabled", json_string("true"));
    json_object_set_new(c, "s3.signer", json_string("S3V4RestSigner")); /* PyIceberg's name */
    json_object_set_new(c, "s3.signer.uri", json_string(base));
    json_object_set_new(c, "s3.signer.endpoint", json_string(ep));
    json_object_set_new(c, "client.region", json_string(region));
    json_object_set_new(c, "s3.region", json_string(region));
    if (s3->endpoint && *s3->endpoint)
        json_object_set_new(c, "s3.endpoint", json_string(s3->endpoint));
    json_object_set_new(c, "s3.path-style-access", json_string(s3->path_style ? "true" : "false"));
    char *text = json_dumps(c, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(c);
    const char *out = text ? fl_arena_strdup(&r->arena, text) : NULL;
    free(text);
    return out;
}
