/*
 * sigv4.c - AWS Signature Version 4, header authorization, as S3 uses it
 * (docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html).
 *
 *   CanonicalRequest = Method \n CanonicalURI \n CanonicalQuery \n
 *                      (lowercase-name:trimmed-value \n)* \n SignedHeaders \n PayloadHash
 *   StringToSign     = "AWS4-HMAC-SHA256" \n amz-date \n date/region/service/aws4_request \n
 *                      hex(SHA256(CanonicalRequest))
 *   key              = HMAC(HMAC(HMAC(HMAC("AWS4"+secret, date), region), service), "aws4_request")
 *   Authorization    = AWS4-HMAC-SHA256 Credential=id/scope, SignedHeaders=a;b, Signature=hex
 *
 * S3 takes the canonical URI as sent (each segment URI-encoded once by the
 * caller, never twice). Query names and values are encoded here and sorted by
 * encoded name, then value; a bare name gets "=". Header values are trimmed
 * and inner runs of spaces collapsed; names are sorted. Nothing here knows
 * about HTTP: s3_http.c sends exactly the path, query and headers signed.
 */
#include <stdlib.h>
#include <string.h>

#include "io/s3_internal.h"

#define MAX_SIGNED 16

typedef struct enc_pair {
    char *k, *v;
} enc_pair;

static int cmp_pair(const void *a, const void *b)
{
    const enc_pair *x = a, *y = b;
    int c = strcmp(x->k, y->k);
    return c ? c : strcmp(x->v, y->v);
}

static char *encode_dup(const char *s)
{
    io_sb sb = {0};
    io_uri_encode(&sb, s, strlen(s), false);
    io_sb_putn(&sb, "", 0);
    if (sb.oom) {
        io_sb_free(&sb);
        return NULL;
    }
    return sb.buf.data;
}

void s3_canonical_query(io_sb *out, const io_kv *q, size_t n)
{
    if (n == 0)
        return;
    enc_pair *pairs = calloc(n, sizeof *pairs);
    if (!pairs) {
        out->oom = true;
        return;
    }
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        pairs[i].k = encode_dup(q[i].k);
        pairs[i].v = encode_dup(q[i].v ? q[i].v : "");
        ok = pairs[i].k && pairs[i].v;
    }
    if (ok) {
        qsort(pairs, n, sizeof *pairs, cmp_pair);
        for (size_t i = 0; i < n; i++) {
            if (i)
                io_sb_putn(out, "&", 1);
            io_sb_puts(out, pairs[i].k);
            io_sb_putn(out, "=", 1);
            io_sb_puts(out, pairs[i].v);
        }
    } else {
        out->oom = true;
    }
    for (size_t i = 0; i < n; i++) {
        free(pairs[i].k);
        free(pairs[i].v);
    }
    free(pairs);
}

static int cmp_kv(const void *a, const void *b)
{
    return strcmp(((const io_kv *)a)->k, ((const io_kv *)b)->k);
}

/* Value trimmed, inner whitespace runs collapsed to one space. */
static void put_header_value(io_sb *s, const char *v)
{
    while (*v == ' ' || *v == '\t')
        v++;
    bool space = false;
    for (; *v; v++) {
        if (*v == ' ' || *v == '\t') {
            space = true;
            continue;
        }
        if (space)
            io_sb_putn(s, " ", 1);
        space = false;
        io_sb_putn(s, v, 1);
    }
}

static void build_canonical(const s3_sign_req *r, const io_kv *hs, io_sb *cr, io_sb *signed_names)
{
    io_sb_puts(cr, r->method);
    io_sb_putn(cr, "\n", 1);
    io_sb_puts(cr, r->canonical_uri && *r->canonical_uri ? r->canonical_uri : "/");
    io_sb_putn(cr, "\n", 1);
    s3_canonical_query(cr, r->query, r->nquery);
    io_sb_putn(cr, "\n", 1);
    for (size_t i = 0; i < r->nheaders; i++) {
        io_sb_puts(cr, hs[i].k);
        io_sb_putn(cr, ":", 1);
        put_header_value(cr, hs[i].v);
        io_sb_putn(cr, "\n", 1);
        if (i)
            io_sb_putn(signed_names, ";", 1);
        io_sb_puts(signed_names, hs[i].k);
    }
    io_sb_putn(cr, "\n", 1);
    io_sb_puts(cr, signed_names->buf.data ? signed_names->buf.data : "");
    io_sb_putn(cr, "\n", 1);
    io_sb_puts(cr, r->payload_hash);
}

static void signature_hex(const s3_sign_req *r, const char *sts, size_t sts_len, char out[65])
{
    uint8_t k[32];
    size_t slen = strlen(r->secret_access_key);
    char *seed = malloc(slen + 5);
    if (!seed) {
        out[0] = '\0';
        return;
    }
    memcpy(seed, "AWS4", 4);
    memcpy(seed + 4, r->secret_access_key, slen + 1);
    io_hmac_sha256(seed, slen + 4, r->amz_date, 8, k);
    free(seed);
    io_hmac_sha256(k, 32, r->region, strlen(r->region), k);
    io_hmac_sha256(k, 32, r->service, strlen(r->service), k);
    io_hmac_sha256(k, 32, "aws4_request", 12, k);
    uint8_t sig[32];
    io_hmac_sha256(k, 32, sts, sts_len, sig);
    io_hex(sig, 32, out);
}

fl_status s3_sigv4_sign(const s3_sign_req *r, io_sb *canonical, io_sb *string_to_sign,
                        char **authorization, fl_error *err)
{
    if (r->nheaders > MAX_SIGNED)
        return fl_errorf(err, FL_EINVAL, "sigv4: %zu headers to sign (at most %d)", r->nheaders,
                         MAX_SIGNED);
    if (strlen(r->amz_date) != 16)
        return fl_errorf(err, FL_EINVAL, "sigv4: bad x-amz-date '%s'", r->amz_date);
    io_kv hs[MAX_SIGNED];
    if (r->nheaders)
        memcpy(hs, r->headers, r->nheaders * sizeof *hs);
    qsort(hs, r->nheaders, sizeof *hs, cmp_kv);

    io_sb cr = {0}, names = {0}, sts = {0}, auth = {0};
    build_canonical(r, hs, &cr, &names);
    char cr_hash[65];
    io_sha256_hex(cr.buf.data ? cr.buf.data : "", cr.buf.len, cr_hash);
    io_sb_printf(&sts, "AWS4-HMAC-SHA256\n%s\n%.8s/%s/%s/aws4_request\n%s", r->amz_date,
                 r->amz_date, r->region, r->service, cr_hash);
    char sig[65] = "";
    if (!sts.oom)
        signature_hex(r, sts.buf.data, sts.buf.len, sig);
    io_sb_printf(&auth,
                 "AWS4-HMAC-SHA256 Credential=%s/%.8s/%s/%s/aws4_request, SignedHeaders=%s, "
                 "Signature=%s",
                 r->access_key_id, r->amz_date, r->region, r->service,
                 names.buf.data ? names.buf.data : "", sig);
    bool oom = cr.oom || names.oom || sts.oom || auth.oom || !sig[0];
    if (!oom && canonical)
        io_sb_putn(canonical, cr.buf.data, cr.buf.len);
    if (!oom && string_to_sign)
        io_sb_putn(string_to_sign, sts.buf.data, sts.buf.len);
    io_sb_free(&cr);
    io_sb_free(&names);
    io_sb_free(&sts);
    if (oom) {
        io_sb_free(&auth);
        return fl_errorf(err, FL_ENOMEM, "sigv4: out of memory");
    }
    *authorization = auth.buf.data;
    return FL_OK;
}
