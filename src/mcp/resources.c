/*
 * resources.c - resources/list, resources/templates/list, resources/read.
 *
 *   floe://results/{id}   a run_sql result as CSV (the caller's own only)
 *   floe://tables/{table} describe_table's answer as JSON (the engine
 *                         authorizes it as the tool does)
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
    return r ? json_pack("{s:o}", "resources", r) : NULL;
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
        char *csv = NULL;
        size_t len = 0;
        fl_error err = {0};
        if (mcp_results_get(c->m, &c->who, uri + 15, &csv, &len, &err) != FL_OK) {
            snprintf(msg, cap, "resource not found: %s (%s)", uri, err.msg);
            return NULL;
        }
        json_t *r = contents(uri, "text/csv", csv);
        free(csv);
        return r;
    }
    if (!strncmp(uri, "floe://tables/", 14) && uri[14]) {
        json_t *args = json_pack("{s:s}", "table", uri + 14);
        json_t *res = mcp_tool_describe_table(c, args);
        json_decref(args);
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
        json_t *r = text ? contents(uri, "application/json", text) : NULL;
        free(text);
        return r;
    }
    snprintf(msg, cap, "resource not found: %s (floe://results/{id} or floe://tables/{table})",
             uri);
    return NULL;
}
