/*
 * fuzz_s3_remote_sign.c - libFuzzer target for what remote signing reads
 * from a client (floe/s3.h): the request URL (fl_s3_url_parse, both
 * addressing styles), the headers to sign (fl_s3_sign_headers) and a
 * DeleteObjects body (fl_s3_delete_request_keys). Input: URL \n header
 * lines "name: value" \n\n body. Properties besides "no crash/leak/UB":
 * every failure explains itself; a parsed URL has a non-empty bucket; a
 * signature carries exactly one Authorization header.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "floe/s3.h"

static void explained(fl_status rc, const fl_error *err)
{
    if (rc != FL_OK && !err->msg[0])
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *in = malloc(size + 1);
    if (!in)
        return 0;
    memcpy(in, data, size);
    in[size] = '\0';
    char *body = strstr(in, "\n\n");
    if (body) {
        *body = '\0';
        body += 2;
    }
    char *hdrs = strchr(in, '\n');
    if (hdrs)
        *hdrs++ = '\0';
    fl_s3_header hs[8];
    size_t nh = 0;
    for (char *line = hdrs; line && *line && nh < 8;) {
        char *next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        char *colon = strchr(line, ':');
        if (colon) {
            *colon = '\0';
            hs[nh++] = (fl_s3_header){line, colon + 1};
        }
        line = next;
    }
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err = {0};
    fl_s3_config cfgs[2] = {{.endpoint = "http://127.0.0.1:9000",
                             .path_style = true,
                             .access_key_id = "K",
                             .secret_access_key = "S"},
                            {.endpoint = "https://s3.amazonaws.com",
                             .access_key_id = "K",
                             .secret_access_key = "S",
                             .session_token = "T"}};
    for (int i = 0; i < 2; i++) {
        fl_s3_url u;
        fl_status rc = fl_s3_url_parse(&cfgs[i], in, &a, &u, &err);
        explained(rc, &err);
        if (rc == FL_OK && (!u.bucket || !*u.bucket))
            abort();
        fl_s3_header *out = NULL;
        size_t n = 0;
        rc = fl_s3_sign_headers(&cfgs[i], NULL, "GET", in, hs, nh, 1369353600, &a, &out, &n, &err);
        explained(rc, &err);
        if (rc == FL_OK) {
            int auths = 0;
            for (size_t k = 0; k < n; k++)
                auths += !strcasecmp(out[k].name, "authorization");
            if (auths != 1)
                abort();
        }
    }
    if (body) {
        const char **keys = NULL;
        size_t n = 0;
        explained(fl_s3_delete_request_keys(body, strlen(body), &a, &keys, &n, &err), &err);
    }
    fl_arena_free(&a);
    free(in);
    return 0;
}
