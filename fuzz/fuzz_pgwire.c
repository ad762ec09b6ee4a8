/*
 * fuzz_pgwire.c - libFuzzer target for the PostgreSQL wire server's message
 * parser and state machine (src/pgwire): the input is the byte stream a
 * client sends, run through a whole connection over the in-memory transport
 * (fl_pgwire_run_memory; trust mode, no catalog, so statements run on
 * VALUES/constants only).
 *
 * Byte 0 bit 0 = 0: a valid startup packet (user "fuzz") is prepended so the
 * fuzzer spends its time after authentication (simple and extended query
 * messages, COPY sub-protocol, cursors, SET/SHOW); = 1: the rest is the raw
 * stream from the first byte (startup packet, SSLRequest, CancelRequest
 * parsing). Properties: no crash, leak or UB, every length checked; the
 * server output is a well-formed sequence of messages.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "floe/pgwire.h"

static fl_pgwire *srv;

typedef struct out_check {
    uint8_t hdr[5];
    size_t have;    /* header bytes collected */
    uint64_t left;  /* body bytes still to skip */
    int first;      /* the 'N'/'S' answer to SSLRequest has no length */
} out_check;

static void sink(void *ctx, const uint8_t *b, size_t n)
{
    out_check *o = ctx;
    for (size_t i = 0; i < n;) {
        if (o->left) {
            size_t k = n - i < o->left ? n - i : (size_t)o->left;
            o->left -= k;
            i += k;
            continue;
        }
        if (o->have == 0 && (b[i] == 'N' || b[i] == 'S') && o->first) {
            i++; /* single-byte SSL/GSS answer */
            continue;
        }
        o->hdr[o->have++] = b[i++];
        if (o->have == 5) {
            uint32_t len = ((uint32_t)o->hdr[1] << 24) | ((uint32_t)o->hdr[2] << 16) |
                           ((uint32_t)o->hdr[3] << 8) | o->hdr[4];
            if (len < 4)
                abort(); /* the server never writes a malformed length */
            o->left = len - 4;
            o->have = 0;
            o->first = 0;
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!srv) {
        fl_pgwire_options o;
        memset(&o, 0, sizeof o);
        o.trust = true;
        o.session_threads = 1;
        o.max_message_bytes = 1 << 16;
        o.output_buffer_bytes = 4096;
        fl_error err;
        if (fl_pgwire_create(&o, &srv, &err) != FL_OK)
            abort();
    }
    if (size == 0)
        return 0;
    static const uint8_t startup[] = {0, 0, 0, 19, 0, 3, 0, 0, 'u', 's', 'e', 'r', 0,
                                      'f', 'u', 'z', 'z', 0, 0};
    uint8_t *buf = malloc(sizeof startup + size);
    if (!buf)
        return 0;
    size_t n = 0;
    if (!(data[0] & 1)) {
        memcpy(buf, startup, sizeof startup);
        n = sizeof startup;
    }
    memcpy(buf + n, data + 1, size - 1);
    n += size - 1;
    out_check oc = {.first = data[0] & 1};
    fl_pgwire_run_memory(srv, buf, n, sink, &oc);
    free(buf);
    return 0;
}
