/*
 * jsonrpc.c - the JSON-RPC 2.0 envelope: parsing a message under the
 * server's limits (size, nesting depth) and building responses.
 *
 * The depth is measured on the text before jansson parses it, so a deeply
 * nested message never reaches the recursive parser. Duplicate keys are
 * refused (JSON_REJECT_DUPLICATES), as is a NUL inside the text.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "floe/json_depth.h"
#include "mcp/mcp_internal.h"

/* Length of the valid UTF-8 sequence at s (0 = invalid). */
static size_t utf8_seq(const unsigned char *s)
{
    if (s[0] < 0x80)
        return 1;
    size_t n = (s[0] & 0xe0) == 0xc0   ? 2
               : (s[0] & 0xf0) == 0xe0 ? 3
               : (s[0] & 0xf8) == 0xf0 ? 4
                                       : 0;
    if (!n || (n == 2 && s[0] < 0xc2) || (n == 4 && s[0] > 0xf4))
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80)
            return 0;
    uint32_t cp = n == 2   ? ((s[0] & 0x1fu) << 6) | (s[1] & 0x3fu)
                  : n == 3 ? ((s[0] & 0x0fu) << 12) | ((s[1] & 0x3fu) << 6) | (s[2] & 0x3fu)
                           : ((s[0] & 0x07u) << 18) | ((s[1] & 0x3fu) << 12) |
                                 ((s[2] & 0x3fu) << 6) | (s[3] & 0x3fu);
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

void mcp_utf8_clean(char *s)
{
    for (unsigned char *p = (unsigned char *)s; *p;) {
        size_t n = utf8_seq(p);
        if (n) {
            p += n;
        } else {
            *p++ = '?'; /* an invalid byte, or a sequence cut by a length limit */
        }
    }
}

json_t *mcp_error(json_t *id, int code, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    mcp_utf8_clean(msg); /* messages quote the input, which may not be UTF-8 */
    json_t *e = json_pack("{s:i, s:s}", "code", code, "message", msg);
    json_t *r =
        json_pack("{s:s, s:O?, s:o}", "jsonrpc", "2.0", "id", id ? id : json_null(), "error", e);
    return r;
}

json_t *mcp_result_msg(json_t *id, json_t *result)
{
    return json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id, "result",
                     result ? result : json_object());
}

json_t *mcp_parse(const fl_mcp_server *m, const char *msg, size_t len, json_t **error_out)
{
    *error_out = NULL;
    if (len > m->opt.max_message_bytes) {
        *error_out =
            mcp_error(NULL, MCP_INVALID_REQUEST, "message of %zu bytes exceeds the limit of %zu",
                      len, m->opt.max_message_bytes);
        return NULL;
    }
    unsigned d = fl_json_depth(msg, len);
    if (d > m->opt.max_depth) {
        *error_out =
            mcp_error(NULL, MCP_INVALID_REQUEST,
                      "message nested %u levels deep exceeds the limit of %u", d, m->opt.max_depth);
        return NULL;
    }
    json_error_t je;
    json_t *j = json_loadb(msg, len, JSON_REJECT_DUPLICATES, &je);
    if (!j) {
        *error_out = mcp_error(NULL, MCP_PARSE_ERROR, "parse error at line %d, column %d: %s",
                               je.line, je.column, je.text);
        return NULL;
    }
    return j;
}
