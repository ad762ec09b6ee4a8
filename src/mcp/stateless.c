/*
 * stateless.c - the stateless protocol revision 2026-07-28 ("modern"),
 * served next to the 2025-06-18 and 2025-11-25 sessions ("legacy") on the
 * same endpoint: a dual-era server (MCP versioning, "Backward
 * Compatibility"). A request whose params._meta carries
 * io.modelcontextprotocol/protocolVersion (or a server/discover) is served
 * on its own: no initialize, no session, its version checked per request.
 *
 *   - A version the server does not speak: -32022 with data {supported,
 *     requested} (HTTP 400).
 *   - Streamable HTTP (options.sessions): the MCP-Protocol-Version header
 *     must equal the _meta version, Mcp-Method the method and, for
 *     tools/call, resources/read and prompts/get, Mcp-Name params.name or
 *     params.uri (plain, or =?base64?...?= compared with the body's value
 *     encoded, so no header is decoded): else -32020 HeaderMismatch (400).
 *   - server/discover: supportedVersions (modern and legacy), capabilities,
 *     serverInfo in _meta, instructions, ttlMs and cacheScope.
 *   - Every result gets resultType "complete"; list and read results get
 *     ttlMs 0 (live data: always stale) and cacheScope "private" (answers
 *     depend on the caller's grants).
 *   - initialize and ping do not exist in the modern revision: -32601
 *     (HTTP 404), as any unknown method.
 * The principal is resolved per request as for legacy messages, so
 * authorization is unchanged.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/mcp_internal.h"

#define META_VERSION "io.modelcontextprotocol/protocolVersion"
static const char *const modern[] = {"2026-07-28", NULL};

const char *mcp_modern_version(json_t *params)
{
    return json_string_value(json_object_get(json_object_get(params, "_meta"), META_VERSION));
}

static bool modern_known(const char *v)
{
    for (int i = 0; modern[i]; i++)
        if (!strcmp(v, modern[i]))
            return true;
    return false;
}

static json_t *supported_versions(void)
{
    json_t *arr = json_array();
    for (int i = 0; modern[i]; i++)
        json_array_append_new(arr, json_string(modern[i]));
    for (const char *const *v = fl_mcp_protocol_versions(); *v; v++)
        json_array_append_new(arr, json_string(*v));
    return arr;
}

static char *base64(const char *s)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = strlen(s), o = 0;
    char *out = malloc(4 * ((n + 2) / 3) + 1);
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; out && i < n; i += 3) {
        unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) |
                     (i + 2 < n ? p[i + 2] : 0);
        out[o++] = tab[v >> 18 & 63];
        out[o++] = tab[v >> 12 & 63];
        out[o++] = i + 1 < n ? tab[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? tab[v & 63] : '=';
    }
    if (out)
        out[o] = '\0';
    return out;
}

/* Does the Mcp-Name header name the body's value? */
static bool name_matches(const char *header, const char *body)
{
    size_t n = strlen(header);
    if (n < 12 || strncmp(header, "=?base64?", 9) || strcmp(header + n - 2, "?="))
        return !strcmp(header, body);
    char *enc = base64(body);
    bool ok = enc && strlen(enc) == n - 11 && !strncmp(header + 9, enc, n - 11);
    free(enc);
    return ok;
}

static json_t *mismatch(fl_mcp_exchange *x, json_t *id, const char *what, const char *header,
                        const char *body)
{
    x->outcome = FL_MCP_HEADER_MISMATCH;
    return mcp_error(id, MCP_HEADER_MISMATCH, "%s header %s%s%s does not match the body's %s", what,
                     header ? "'" : "", header ? header : "missing", header ? "'" : "",
                     body ? body : "(none)");
}

json_t *mcp_modern_check(fl_mcp_server *m, fl_mcp_exchange *x, const char *method,
                         const char *version, json_t *params, json_t *id)
{
    if (version && !modern_known(version)) {
        x->outcome = FL_MCP_BAD_VERSION;
        json_t *e = mcp_error(id, MCP_UNSUPPORTED_VERSION, "Unsupported protocol version");
        json_object_set_new(
            json_object_get(e, "error"), "data",
            json_pack("{s:o, s:s}", "supported", supported_versions(), "requested", version));
        return e;
    }
    const char *v = version ? version : modern[0];
    snprintf(x->negotiated_version, sizeof x->negotiated_version, "%s", v);
    if (!m->opt.sessions) /* stdio: no headers */
        return NULL;
    if (!x->protocol_version || strcmp(x->protocol_version, v))
        return mismatch(x, id, "MCP-Protocol-Version", x->protocol_version, v);
    if (!x->mcp_method || strcmp(x->mcp_method, method))
        return mismatch(x, id, "Mcp-Method", x->mcp_method, method);
    const char *name = NULL;
    if (!strcmp(method, "tools/call") || !strcmp(method, "prompts/get"))
        name = json_string_value(json_object_get(params, "name"));
    else if (!strcmp(method, "resources/read"))
        name = json_string_value(json_object_get(params, "uri"));
    if (name && (!x->mcp_name || !name_matches(x->mcp_name, name)))
        return mismatch(x, id, "Mcp-Name", x->mcp_name, name);
    return NULL;
}

json_t *mcp_discover(const mcp_call *c)
{
    return json_pack(
        "{s:s, s:o, s:{s:{}, s:{}, s:{}}, s:{s:{s:s, s:s, s:s}}, s:s, s:i, s:s}", "resultType",
        "complete", "supportedVersions", supported_versions(), "capabilities", "tools", "resources",
        "prompts", "_meta", "io.modelcontextprotocol/serverInfo", "name", "floe", "title",
        "Floe lakehouse", "version", FLOE_VERSION, "instructions",
        c->m->opt.model
            ? "Floe is an Iceberg lakehouse with a semantic model: list_metrics and "
              "query_metrics answer in certified metrics; run_sql answers read-only SQL. Every "
              "answer carries a receipt of the table snapshots it read."
            : "Floe is an Iceberg lakehouse: list_tables, describe_table, estimate_cost, then "
              "run_sql (read-only SQL). Every answer carries a receipt of the table snapshots it "
              "read.",
        "ttlMs", 60000, "cacheScope", "private");
}

void mcp_modern_decorate(json_t *msg, const char *method)
{
    json_t *r = json_object_get(msg, "result");
    if (!json_is_object(r))
        return;
    if (!json_object_get(r, "resultType")) /* input_required (elicit.c) stays */
        json_object_set_new(r, "resultType", json_string("complete"));
    if (!strcmp(method, "tools/list") || !strcmp(method, "resources/list") ||
        !strcmp(method, "resources/templates/list") || !strcmp(method, "resources/read") ||
        !strcmp(method, "prompts/list")) {
        json_object_set_new(r, "ttlMs", json_integer(0));
        json_object_set_new(r, "cacheScope", json_string("private"));
    }
}
