/*
 * tools.c - tools/list and tools/call: argument checks against the tool's
 * inputSchema essentials (an object; unknown names refused with -32602),
 * the call, and the shape of every result: structuredContent plus one text
 * block holding the same JSON (for clients that read only text), extra
 * blocks (resource_link) after it. A tool that fails answers isError with
 * one text block saying why; protocol errors are kept for a bad request.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/mcp_internal.h"

typedef json_t *(*tool_fn)(mcp_call *c, json_t *args);
static const struct {
    const char *name;
    tool_fn fn;
    int needs; /* 1: a metric tool (absent without options.model); 2: also models_dir */
} tools[] = {
    {"list_tables", mcp_tool_list_tables, 0},
    {"describe_table", mcp_tool_describe_table, 0},
    {"table_history", mcp_tool_table_history, 0},
    {"run_sql", mcp_tool_run_sql, 0},
    {"estimate_cost", mcp_tool_estimate_cost, 0},
    {"list_metrics", mcp_tool_list_metrics, 1},
    {"get_dimensions", mcp_tool_get_dimensions, 1},
    {"get_entities", mcp_tool_get_entities, 1},
    {"get_dimension_values", mcp_tool_get_dimension_values, 1},
    {"query_metrics", mcp_tool_query_metrics, 1},
    {"compile_sql", mcp_tool_compile_sql, 1},
    {"propose_metric", mcp_tool_propose_metric, 2},
};

/* Is tool i offered by this server? */
static bool offered(const fl_mcp_server *m, size_t i)
{
    return tools[i].needs == 0 || (m->opt.model && (tools[i].needs == 1 || m->opt.models_dir));
}

json_t *mcp_tools_list(const mcp_call *c)
{
    json_t *defs = mcp_tool_defs(c->m->opt.model != NULL, c->m->opt.model && c->m->opt.models_dir);
    return defs ? json_pack("{s:o}", "tools", defs) : NULL;
}

json_t *mcp_tool_ok(json_t *structured, json_t *extra)
{
    char *text = json_dumps(structured, JSON_COMPACT);
    json_t *content = json_array();
    json_array_append_new(content,
                          json_pack("{s:s, s:s}", "type", "text", "text", text ? text : "{}"));
    free(text);
    size_t i;
    json_t *e;
    json_array_foreach(extra, i, e) json_array_append(content, e);
    json_decref(extra);
    return json_pack("{s:o, s:o, s:b}", "content", content, "structuredContent", structured,
                     "isError", 0);
}

json_t *mcp_tool_fail(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    mcp_utf8_clean(msg); /* a message cut at its size may end inside a character */
    return json_pack("{s:[{s:s, s:s}], s:b}", "content", "type", "text", "text", msg, "isError", 1);
}

/* The property names a tool's inputSchema declares; anything else is -32602. */
static bool args_known(const char *tool, json_t *args, char *msg, size_t cap)
{
    json_t *defs = mcp_tool_defs(true, true);
    size_t i;
    json_t *d;
    json_t *props = NULL;
    json_array_foreach(defs, i, d)
    {
        if (!strcmp(json_string_value(json_object_get(d, "name")), tool))
            props = json_object_get(json_object_get(d, "inputSchema"), "properties");
    }
    const char *k;
    json_t *v;
    bool ok = true;
    json_object_foreach(args, k, v)
    {
        json_t *p = json_object_get(props, k);
        const char *want = json_string_value(json_object_get(p, "type"));
        if (!p) {
            snprintf(msg, cap, "%s: unknown argument \"%s\"", tool, k);
            ok = false;
        } else if (want && !strcmp(want, "string") && !json_is_string(v)) {
            snprintf(msg, cap, "%s: argument \"%s\" must be a string", tool, k);
            ok = false;
        } else if (want && !strcmp(want, "integer") && !json_is_integer(v)) {
            snprintf(msg, cap, "%s: argument \"%s\" must be an integer", tool, k);
            ok = false;
        } else if (want && !strcmp(want, "array") && !json_is_array(v)) {
            snprintf(msg, cap, "%s: argument \"%s\" must be an array", tool, k);
            ok = false;
        }
        if (!ok)
            break;
    }
    json_decref(defs);
    return ok;
}

json_t *mcp_tools_call(mcp_call *c, json_t *params, int *code, char *msg, size_t cap)
{
    *code = MCP_INVALID_PARAMS;
    json_t *name = json_object_get(params, "name");
    json_t *args = json_object_get(params, "arguments");
    if (!json_is_string(name)) {
        snprintf(msg, cap, "tools/call: params.name must be a string");
        return NULL;
    }
    if (args && !json_is_object(args)) {
        snprintf(msg, cap, "tools/call: params.arguments must be an object");
        return NULL;
    }
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++) {
        if (strcmp(tools[i].name, json_string_value(name)) || !offered(c->m, i))
            continue;
        json_t *empty = args ? NULL : json_object();
        if (!args_known(tools[i].name, args ? args : empty, msg, cap)) {
            json_decref(empty);
            return NULL;
        }
        json_t *r = tools[i].fn(c, args ? args : empty);
        json_decref(empty);
        if (!r) {
            *code = MCP_INTERNAL_ERROR;
            snprintf(msg, cap, "%s: out of memory", tools[i].name);
        }
        return r;
    }
    snprintf(msg, cap, "unknown tool: %s", json_string_value(name));
    return NULL;
}
