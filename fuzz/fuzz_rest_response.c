/*
 * fuzz_rest_response.c - libFuzzer target for the REST catalog client's
 * parsing (include/floe/rest.h). Byte 0 picks the document, the rest is
 * the body:
 *   0 LoadTableResult / CommitTableResponse   4 GetNamespaceResponse
 *   1 CatalogConfig                           5 IcebergErrorResponse / OAuthError
 *   2 ListNamespacesResponse                  6 OAuthTokenResponse
 *   3 ListTablesResponse                      7 CommitTableRequest (updates, requirements)
 * Every parse must succeed or fail cleanly with a message. Properties:
 * a parsed LoadTableResult's metadata writes and re-parses; a parsed commit
 * request serializes, re-parses and serializes to the same text.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "floe/rest.h"

static void check_commit(const char *buf, size_t len, fl_arena *a)
{
    fl_error err;
    fl_rest_commit_request r;
    if (fl_rest_commit_request_parse(buf, len, a, &r, &err) != FL_OK) {
        if (!err.msg[0])
            abort(); /* every failure explains itself */
        return;
    }
    char *t1 = NULL, *t2 = NULL;
    const fl_table_ident *id = r.has_identifier ? &r.identifier : NULL;
    if (fl_rest_commit_request_json(id, r.requirements, r.nrequirements, r.updates, r.nupdates,
                                    &t1, &err) != FL_OK)
        return; /* e.g. a string that is not valid UTF-8 for jansson */
    fl_rest_commit_request r2;
    if (fl_rest_commit_request_parse(t1, strlen(t1), a, &r2, &err) != FL_OK)
        abort();
    if (fl_rest_commit_request_json(r2.has_identifier ? &r2.identifier : NULL, r2.requirements,
                                    r2.nrequirements, r2.updates, r2.nupdates, &t2,
                                    &err) != FL_OK ||
        strcmp(t1, t2) != 0)
        abort();
    free(t1);
    free(t2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > (1u << 20))
        return 0;
    const char *buf = (const char *)data + 1;
    size_t len = size - 1;
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    switch (data[0] & 7) {
    case 0: {
        fl_rest_load_result r;
        if (fl_rest_load_result_parse(buf, len, &a, &r, &err) == FL_OK) {
            char *out = NULL;
            size_t n = 0;
            if (fl_ice_metadata_write(&r.metadata, 0, &out, &n, &err) == FL_OK) {
                fl_ice_metadata m2;
                if (fl_ice_metadata_parse((const uint8_t *)out, n, NULL, &a, &m2, &err) != FL_OK)
                    abort();
                free(out);
            }
        }
        break;
    }
    case 1: {
        fl_rest_config c;
        (void)fl_rest_config_parse(buf, len, &a, &c, &err);
        break;
    }
    case 2: {
        fl_namespace *ns;
        uint32_t n;
        const char *next;
        (void)fl_rest_namespaces_parse(buf, len, &a, &ns, &n, &next, &err);
        break;
    }
    case 3: {
        const char **names;
        uint32_t n;
        const char *next;
        (void)fl_rest_tables_parse(buf, len, &a, &names, &n, &next, &err);
        break;
    }
    case 4: {
        fl_ice_map m;
        (void)fl_rest_namespace_parse(buf, len, &a, &m, &err);
        break;
    }
    case 5: {
        const char *t, *m;
        (void)fl_rest_error_parse(buf, len, &a, &t, &m);
        break;
    }
    case 6: {
        fl_rest_token t;
        (void)fl_rest_token_parse(buf, len, &a, &t, &err);
        break;
    }
    default: check_commit(buf, len, &a); break;
    }
    fl_arena_free(&a);
    return 0;
}
