/*
 * prompts.c - prompts/list and prompts/get: short, parameterized starting
 * points for common analyses over the tools (explore a table, explain a
 * table's recent changes, check a query's cost before running it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/mcp_internal.h"

static const struct {
    const char *name, *title, *description, *arg, *arg_desc, *text;
} prompts[] = {
    {"explore_table", "Explore a table", "Describe a table and summarize what it holds", "table",
     "namespace.table",
     "Call describe_table for %s. Then use run_sql with small max_rows to look at a sample and "
     "at the distribution of the most important columns (count, min, max, distinct values). "
     "Summarize what the table holds, its grain, and cite the snapshot ids from the receipts."},
    {"recent_changes", "Recent changes of a table", "What changed in a table lately", "table",
     "namespace.table",
     "Call table_history for %s and explain the recent snapshots: which operations ran, how many "
     "rows and files each added or removed (from the summaries), and when."},
    {"cost_first", "Check cost before running", "Estimate a query's scan, then run it if cheap",
     "sql", "a read-only SQL statement",
     "First call estimate_cost with sql = %s and report the files, bytes and partitions it would "
     "scan. Only if that is reasonable, call run_sql with it and summarize the preview and the "
     "column statistics; point to the resource_link for the full result."},
};

json_t *mcp_prompts_list(void)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < sizeof prompts / sizeof prompts[0]; i++)
        json_array_append_new(arr,
                              json_pack("{s:s, s:s, s:s, s:[{s:s, s:s, s:b}]}", "name",
                                        prompts[i].name, "title", prompts[i].title, "description",
                                        prompts[i].description, "arguments", "name", prompts[i].arg,
                                        "description", prompts[i].arg_desc, "required", 1));
    return arr ? json_pack("{s:o}", "prompts", arr) : NULL;
}

json_t *mcp_prompts_get(json_t *params, int *code, char *msg, size_t cap)
{
    *code = MCP_INVALID_PARAMS;
    const char *name = json_string_value(json_object_get(params, "name"));
    json_t *args = json_object_get(params, "arguments");
    if (!name) {
        snprintf(msg, cap, "prompts/get: params.name must be a string");
        return NULL;
    }
    for (size_t i = 0; i < sizeof prompts / sizeof prompts[0]; i++) {
        if (strcmp(prompts[i].name, name))
            continue;
        const char *v = json_string_value(json_object_get(args, prompts[i].arg));
        if (!v) {
            snprintf(msg, cap, "prompts/get %s: argument \"%s\" (a string) is required", name,
                     prompts[i].arg);
            return NULL;
        }
        char *text = NULL;
        if (asprintf(&text, prompts[i].text, v) < 0)
            return NULL;
        json_t *r =
            json_pack("{s:s, s:[{s:s, s:{s:s, s:s}}]}", "description", prompts[i].description,
                      "messages", "role", "user", "content", "type", "text", "text", text);
        free(text);
        return r;
    }
    snprintf(msg, cap, "unknown prompt: %s", name);
    return NULL;
}
