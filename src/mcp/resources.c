/*
 * resources.c - resources/list, resources/templates/list, resources/read.
 *
 *   floe://results/{id}   a run_sql result as CSV (the caller's own only);
 *                         {id}.arrow the same rows as an Arrow IPC stream
 *                         (base64 "blob")
 *   floe://tables/{table} describe_table's answer as JSON (the engine
 *                         authorizes it as the tool does)
 *   floe://metrics        with a semantic model: list_metrics' answer for
 *                         every metric and saved query, as JSON
 *
 * resources/list shows the caller's stored results; tables are reached
 * through the template (listing every table as a resource would copy
 * list_tables).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/mcp_internal.h"

json_t *mcp_resources_list(mcp_call *c)
{
    json_t *r = mcp_results_list(c->m, &c->who);
    if (r && c->m->opt.model)
        json_array_append_new(r, json_pack("{s:s, s:s, s:s, s:s}", "uri", "floe://metrics", "name",
                                           "metrics", "description",
                                           "the semantic model's metrics and saved queries",
                                           "mimeType", "application/json"));
    return r ? json_pack("{s:o}", "resources", r) : NULL;
}

/* A tool's structuredContent as a resource, or NULL with msg (its error). */
static json_t *tool_resource(const char *uri, json_t *res, char *msg, size_t cap)
{
    if (!res)
        return NULL;
    if (json_is_true(json_object_get(res, "isError"))) {
        const char *why = json_string_value(
            json_object_get(json_array_get(json_object_get(res, "content"), 0), "text"));
        snprintf(msg, cap, "%s: %s", uri, why ? why : "cannot be read");
        json_decref(res);
        return NULL;
    }
    char *text = json_dumps(json_object_get(res, "structuredContent"), JSON_COMPACT);
    json_decref(res);
    json_t *r = text ? json_pack("{s:[{s:s, s:s, s:s}]}", "contents", "uri", uri, "mimeType",
                                 "application/json", "text", text)
                     : NULL;
    free(text);
    return r;
}

json_t *mcp_resources_templates(void)
{
    return json_pack("{s:[{s:s, s:s, s:s, s:s}, {s:s, s:s, s:s, s:s}]}", "resourceTemplates",
                     "uriTemplate", "floe://results/{id}", "name", "run_sql result", "description",
                     "a run_sql result (the resource_link it returned) as CSV", "mimeType",
                     "text/csv", "uriTemplate", "floe://tables/{table}", "name",
                     "table description", "description",
                     "describe_table's answer for namespace.table", "mimeType", "application/json");
}

/* RFC 4648 base64 of n bytes (malloc'd). */
static char *base64(const uint8_t *p, size_t n)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *out = malloc((n + 2) / 3 * 4 + 1), *o = out;
    for (size_t i = 0; out && i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
                     (i + 2 < n ? p[i + 2] : 0);
        *o++ = tab[v >> 18 & 63];
        *o++ = tab[v >> 12 & 63];
        *o++ = i + 1 < n ? tab[v >> 6 & 63] : '=';
        *o++ = i + 2 < n ? tab[v & 63] : '=';
    }
    if (out)
        *o = '\0';
    return out;
}

static json_t *contents(const char *uri, const char *mime, const char *text)
{
    return json_pack("{s:[{s:s, s:s, s:s}]}", "contents", "uri", uri, "mimeType", mime, "text",
                     text);
}

json_t *mcp_resources_read(mcp_call *c, json_t *params, int *code, char *msg, size_t cap)
{
    *code = MCP_INVALID_PARAMS;
    const char *uri = json_string_value(json_object_get(params, "uri"));
    if (!uri) {
        snprintf(msg, cap, "resources/read: params.uri must be a string");
        return NULL;
    }
    *code = MCP_RESOURCE_NOT_FOUND;
    if (!strncmp(uri, "floe://results/", 15)) {
        char id[40];
        snprintf(id, sizeof id, "%s", uri + 15);
        size_t n = strlen(id);
        bool arrow = n > 6 && !strcmp(id + n - 6, ".arrow");
        if (arrow)
            id[n - 6] = '\0';
        char *data = NULL;
        size_t len = 0;
        fl_error err = {0};
        if (strlen(uri + 15) >= sizeof id ||
            mcp_results_get(c->m, &c->who, id, arrow, &data, &len, &err) != FL_OK) {
            snprintf(msg, cap, "resource not found: %.200s (%.300s)", uri,
                     err.msg[0] ? err.msg : "no such result");
            return NULL;
        }
        json_t *r = NULL;
        if (!arrow) {
            r = contents(uri, "text/csv", data);
        } else {
            char *b64 = base64((const uint8_t *)data, len);
            r = b64 ? json_pack("{s:[{s:s, s:s, s:s}]}", "contents", "uri", uri, "mimeType",
                                "application/vnd.apache.arrow.stream", "blob", b64)
                    : NULL;
            free(b64);
        }
        free(data);
        return r;
    }
    if (!strncmp(uri, "floe://tables/", 14) && uri[14]) {
        json_t *args = json_pack("{s:s}", "table", uri + 14);
        json_t *res = mcp_tool_describe_table(c, args);
        json_decref(args);
        return tool_resource(uri, res, msg, cap);
    }
    if (!strcmp(uri, "floe://metrics") && c->m->opt.model) {
        json_t *args =
            json_pack("{s:i, s:I}", "max_items", 10000, "max_bytes", (json_int_t)1 << 40);
        json_t *res = mcp_tool_list_metrics(c, args);
        json_decref(args);
        return tool_resource(uri, res, msg, cap);
    }
    snprintf(msg, cap, "resource not found: %s (floe://results/{id}, floe://tables/{table}%s)", uri,
             c->m->opt.model ? " or floe://metrics" : "");
    return NULL;
}
