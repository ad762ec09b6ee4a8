/*
 * scram.c - the server side of SCRAM-SHA-256 (RFC 5802, RFC 7677) as
 * PostgreSQL speaks it (SASL mechanism "SCRAM-SHA-256", no channel
 * binding: "-PLUS" is not offered, so a client asking for it ('p=') is
 * refused).
 *
 *   client-first  = gs2-header client-first-bare
 *   gs2-header    = ("n" / "y") "," [authzid] ","
 *   client-first-bare = "n=" user ",r=" c-nonce ["," extensions]
 *   server-first  = "r=" c-nonce s-nonce ",s=" base64(salt) ",i=" iterations
 *   client-final  = "c=" base64(gs2-header) ",r=" nonce ",p=" base64(proof)
 *   AuthMessage   = client-first-bare "," server-first "," client-final-without-proof
 *   ClientSignature = HMAC(StoredKey, AuthMessage)
 *   ClientKey     = proof XOR ClientSignature; valid iff SHA256(ClientKey) == StoredKey
 *   server-final  = "v=" base64(HMAC(ServerKey, AuthMessage))
 *
 * The user name inside the SCRAM message is ignored (PostgreSQL uses the
 * startup packet's user; libpq sends "n=,"). The verifier (salt, iterations,
 * StoredKey, ServerKey) comes from fl_auth_scram_lookup.
 */
#include <stdio.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include "pgwire/pgw.h"

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t pgw_b64_encode(const uint8_t *in, size_t n, char *out, size_t cap)
{
    size_t need = (n + 2) / 3 * 4;
    if (need + 1 > cap)
        return 0;
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)in[i + 1] << 8;
        if (i + 2 < n)
            v |= in[i + 2];
        out[o++] = B64[(v >> 18) & 63];
        out[o++] = B64[(v >> 12) & 63];
        out[o++] = i + 1 < n ? B64[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < n ? B64[v & 63] : '=';
    }
    out[o] = '\0';
    return o;
}

static int b64_val(char ch)
{
    const char *p = ch ? strchr(B64, ch) : NULL;
    return p ? (int)(p - B64) : -1;
}

long pgw_b64_decode(const char *in, size_t n, uint8_t *out, size_t cap)
{
    if (n % 4)
        return -1;
    size_t o = 0;
    for (size_t i = 0; i < n; i += 4) {
        int v[4];
        for (int k = 0; k < 4; k++) {
            v[k] = in[i + k] == '=' && i + 4 == n && k >= 2 ? -2 : b64_val(in[i + k]);
            if (v[k] == -1)
                return -1;
        }
        if (v[2] == -2 && v[3] != -2)
            return -1;
        uint32_t x = ((uint32_t)v[0] << 18) | ((uint32_t)v[1] << 12) |
                     ((uint32_t)(v[2] < 0 ? 0 : v[2]) << 6) | (uint32_t)(v[3] < 0 ? 0 : v[3]);
        int bytes = v[2] == -2 ? 1 : v[3] == -2 ? 2 : 3;
        if (o + (size_t)bytes > cap)
            return -1;
        out[o++] = (uint8_t)(x >> 16);
        if (bytes > 1)
            out[o++] = (uint8_t)(x >> 8);
        if (bytes > 2)
            out[o++] = (uint8_t)x;
    }
    return (long)o;
}

/* Finds attribute "k=" in a comma-separated SCRAM message; returns value start and length. */
static const char *attr(const char *msg, size_t len, char k, size_t *vlen)
{
    size_t i = 0;
    while (i < len) {
        size_t j = i;
        while (j < len && msg[j] != ',')
            j++;
        if (j - i >= 2 && msg[i] == k && msg[i + 1] == '=') {
            *vlen = j - i - 2;
            return msg + i + 2;
        }
        i = j + 1;
    }
    return NULL;
}

bool pgw_scram_client_first(pgw_scram *x, const char *msg, size_t len, const char *server_nonce)
{
    if (len < 3 || memchr(msg, 0, len))
        return false;
    if (msg[0] != 'n' && msg[0] != 'y')
        return false; /* 'p' = channel binding, not offered */
    if (msg[1] != ',')
        return false;
    const char *c2 = memchr(msg + 2, ',', len - 2);
    if (!c2)
        return false;
    size_t gl = (size_t)(c2 - msg) + 1;
    if (gl >= sizeof x->gs2)
        return false;
    memcpy(x->gs2, msg, gl);
    x->gs2[gl] = '\0';
    const char *bare = msg + gl;
    size_t bl = len - gl;
    if (bl >= sizeof x->client_first_bare || bl < 2 || bare[0] != 'n' || bare[1] != '=')
        return false;
    memcpy(x->client_first_bare, bare, bl);
    x->client_first_bare[bl] = '\0';
    size_t nl;
    const char *cn = attr(bare, bl, 'r', &nl);
    size_t sl = strlen(server_nonce);
    if (!cn || nl == 0 || nl + sl >= sizeof x->nonce)
        return false;
    for (size_t i = 0; i < nl; i++)
        if (cn[i] < 0x21 || cn[i] > 0x7e || cn[i] == ',')
            return false;
    memcpy(x->nonce, cn, nl);
    memcpy(x->nonce + nl, server_nonce, sl + 1);
    char salt[100];
    if (!pgw_b64_encode(x->v.salt, x->v.salt_len, salt, sizeof salt))
        return false;
    int w = snprintf(x->server_first, sizeof x->server_first, "r=%s,s=%s,i=%u", x->nonce, salt,
                     x->v.iterations);
    return w > 0 && (size_t)w < sizeof x->server_first;
}

static bool hmac(const uint8_t key[32], const char *a, const char *b, const char *c, size_t cl,
                 uint8_t out[32])
{
    /* HMAC(key, a "," b "," c[0..cl)) without building the string twice */
    char buf[2048];
    int n = snprintf(buf, sizeof buf, "%s,%s,%.*s", a, b, (int)cl, c);
    if (n < 0 || (size_t)n >= sizeof buf)
        return false;
    unsigned int ol = 32;
    return HMAC(EVP_sha256(), key, 32, (const uint8_t *)buf, (size_t)n, out, &ol) != NULL;
}

bool pgw_scram_client_final(pgw_scram *x, const char *msg, size_t len, char *out, size_t cap)
{
    if (memchr(msg, 0, len))
        return false;
    size_t cl = 0, rl = 0, pl = 0;
    const char *cb = attr(msg, len, 'c', &cl);
    const char *r = attr(msg, len, 'r', &rl);
    const char *p = attr(msg, len, 'p', &pl);
    if (!cb || !r || !p || cb != msg + 2)
        return false;
    /* channel binding: base64 of the gs2 header we saw */
    char want[100];
    if (!pgw_b64_encode((const uint8_t *)x->gs2, strlen(x->gs2), want, sizeof want) ||
        strlen(want) != cl || memcmp(want, cb, cl) != 0)
        return false;
    if (rl != strlen(x->nonce) || memcmp(r, x->nonce, rl) != 0)
        return false;
    if (p - msg < 4)
        return false;
    size_t without = (size_t)(p - 3 - msg); /* up to ",p=" */
    if (msg[without] != ',')
        return false;
    uint8_t proof[64];
    if (pgw_b64_decode(p, pl, proof, sizeof proof) != 32)
        return false;
    uint8_t sig[32], key[32], h[32];
    if (!hmac(x->v.stored_key, x->client_first_bare, x->server_first, msg, without, sig))
        return false;
    for (int i = 0; i < 32; i++)
        key[i] = proof[i] ^ sig[i];
    SHA256(key, 32, h);
    if (CRYPTO_memcmp(h, x->v.stored_key, 32) != 0)
        return false;
    uint8_t ss[32];
    if (!hmac(x->v.server_key, x->client_first_bare, x->server_first, msg, without, ss))
        return false;
    char b[64];
    pgw_b64_encode(ss, 32, b, sizeof b);
    int w = snprintf(out, cap, "v=%s", b);
    return w > 0 && (size_t)w < cap;
}
