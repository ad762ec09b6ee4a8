/*
 * fuzz_rest_request.c - libFuzzer target for the REST server's request
 * parsing (src/server): everything a client controls before a handler
 * touches the catalog.
 *
 * Input layout: byte 0 selects the parser, the rest is the payload.
 *   0: a raw request path (up to the first '\n') matched against the full
 *      route table (split, per-segment percent-decoding, {prefix}); then the
 *      remainder percent-decoded as a query value (with '+' as space);
 *   1: a CommitTableRequest body -> requirements/updates (srv_parse_commit),
 *      and, when it parses, the updates applied to a small table's metadata
 *      (fl_ice_metadata_apply must fail cleanly or give metadata that writes);
 *   2: a CreateTableRequest body -> new table metadata (fresh ids), which
 *      must write and re-parse;
 *   3: a JSON body through the depth scanner and the location checker.
 * Properties: no crash, leak or UB; decoded segments never contain NUL;
 * matched routes only bind decoded, non-empty parameters.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "floe/ice_table.h"
#include "floe/json_depth.h"
#include "server/server_internal.h"

static void noop(fl_server_request *r, void *ctx)
{
    (void)r, (void)ctx;
}

static srv_router *router(void)
{
    static srv_router r;
    static int init;
    if (!init) {
        static const char *const pats[][2] = {
            {"GET", "/v1/config"},
            {"GET", "/v1/{prefix}/namespaces"},
            {"GET", "/v1/{prefix}/namespaces/{namespace}"},
            {"POST", "/v1/{prefix}/namespaces/{namespace}/properties"},
            {"GET", "/v1/{prefix}/namespaces/{namespace}/tables/{table}"},
            {"POST", "/v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics"},
            {"GET", "/v1/{prefix}/namespaces/{namespace}/views/{view}"},
            {"POST", "/v1/{prefix}/transactions/commit"},
        };
        fl_error err;
        for (size_t i = 0; i < sizeof pats / sizeof *pats; i++)
            srv_router_add(&r, pats[i][0], pats[i][1], noop, NULL, 0, &err);
        init = 1;
    }
    return &r;
}

static const char BASE[] =
    "{\"format-version\":2,\"table-uuid\":\"9c12d441-03fe-4693-9a96-a0705ddf69c1\",\"location\":"
    "\"/w/db/t\",\"last-sequence-number\":1,\"last-updated-ms\":1,\"last-column-id\":2,"
    "\"current-schema-id\":0,\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,\"fields\":[{\"id\":"
    "1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},{\"id\":2,\"name\":\"s\",\"required\":"
    "false,\"type\":\"string\"}]}],\"default-spec-id\":0,\"partition-specs\":[{\"spec-id\":0,"
    "\"fields\":[]}],\"last-partition-id\":999,\"default-sort-order-id\":0,\"sort-orders\":[{"
    "\"order-id\":0,\"fields\":[]}],\"properties\":{},\"current-snapshot-id\":5,\"refs\":{\"main\":"
    "{\"snapshot-id\":5,\"type\":\"branch\"}},\"snapshots\":[{\"snapshot-id\":5,\"sequence-number\":"
    "1,\"timestamp-ms\":1,\"manifest-list\":\"/w/db/t/metadata/snap-5.avro\",\"summary\":{"
    "\"operation\":\"append\"},\"schema-id\":0}],\"snapshot-log\":[],\"metadata-log\":[]}";

static void fuzz_path(const uint8_t *d, size_t n)
{
    fl_arena a;
    fl_arena_init(&a, 4096);
    const uint8_t *nl = memchr(d, '\n', n);
    size_t plen = nl ? (size_t)(nl - d) : n;
    char *path = fl_arena_strndup(&a, (const char *)d, plen);
    srv_match m;
    static const char *const methods[] = {"GET", "POST", "HEAD"};
    for (int i = 0; i < 3 && path; i++)
        if (srv_router_match(router(), methods[i], path, i == 1 ? "pfx" : NULL, &a, &m))
            for (uint32_t k = 0; k < m.nparams; k++)
                if (!m.values[k] || !m.values[k][0])
                    abort();
    if (nl) {
        char *v = srv_pct_decode((const char *)nl + 1, n - plen - 1, true, &a);
        if (v && strlen(v) > n)
            abort();
    }
    fl_arena_free(&a);
}

static void fuzz_commit(const uint8_t *d, size_t n)
{
    json_t *j = json_loadb((const char *)d, n, 0, NULL);
    if (!json_is_object(j)) {
        json_decref(j);
        return;
    }
    fl_arena a;
    fl_arena_init(&a, 16384);
    fl_error err;
    srv_commit_req cr;
    if (srv_parse_commit(j, &a, &cr, &err) == FL_OK) {
        fl_ice_metadata base, out;
        if (fl_ice_metadata_parse((const uint8_t *)BASE, sizeof BASE - 1, NULL, &a, &base, &err) !=
            FL_OK)
            abort();
        (void)fl_ice_requirements_check(&base, cr.req, cr.nreq, &err);
        if (fl_ice_metadata_apply(&base, "/w/db/t/metadata/00001-x.metadata.json", cr.upd, cr.nupd,
                                  2, &a, &out, &err) == FL_OK) {
            char *text = NULL;
            size_t len = 0;
            if (fl_ice_metadata_write(&out, 0, &text, &len, &err) == FL_OK)
                free(text);
        }
    }
    json_decref(j);
    fl_arena_free(&a);
}

static void fuzz_create(const uint8_t *d, size_t n)
{
    json_t *j = json_loadb((const char *)d, n, 0, NULL);
    if (!json_is_object(j)) {
        json_decref(j);
        return;
    }
    fl_server s;
    memset(&s, 0, sizeof s);
    s.warehouse = (char *)"/w";
    const char *levels[] = {"db"};
    fl_table_ident id = {{1, levels}, "t"};
    fl_arena a;
    fl_arena_init(&a, 16384);
    fl_error err;
    fl_ice_metadata m, back;
    if (srv_new_table_metadata(&s, &id, j, &a, &m, &err) == FL_OK) {
        char *text = NULL;
        size_t len = 0;
        if (fl_ice_metadata_write(&m, 0, &text, &len, &err) == FL_OK) {
            if (fl_ice_metadata_parse((const uint8_t *)text, len, NULL, &a, &back, &err) != FL_OK)
                abort(); /* what we create must read back */
            free(text);
        }
    }
    json_decref(j);
    fl_arena_free(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > (1u << 16))
        return 0;
    const uint8_t *d = data + 1;
    size_t n = size - 1;
    switch (data[0] % 4) {
    case 0: fuzz_path(d, n); break;
    case 1: fuzz_commit(d, n); break;
    case 2: fuzz_create(d, n); break;
    default: {
        (void)fl_json_depth((const char *)d, n);
        fl_arena a;
        fl_arena_init(&a, 1024);
        char *s = fl_arena_strndup(&a, (const char *)d, n);
        fl_error err;
        const char *allowed[] = {"s3://b/p"};
        if (s)
            (void)srv_location_check_roots("/w", allowed, 1, s, &err);
        fl_arena_free(&a);
        break;
    }
    }
    return 0;
}
