/*
 * tool_defs_values.c - the third answer of query_metrics' outputSchema: a
 * filter value that does not exist (value_check.c), answered with the
 * closest existing values of its dimension instead of numbers. Added to
 * the oneOf of the definition in tool_defs_metrics.c.
 */
#include <stdio.h>

#include "mcp/mcp_internal.h"

static const char branch[] =
    "{\"type\":\"object\",\"description\":\"a filter compares a dimension to a value it does "
    "not have: the closest existing values, nothing was computed\",\"properties\":{"
    "\"ambiguous\":{\"const\":true},"
    "\"value_candidates\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
    "\"dimension\":{\"type\":\"string\"},\"asked\":{\"type\":\"string\"},"
    "\"matches\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
    "\"values\":{\"type\":\"integer\",\"description\":\"distinct values the dimension has\"}},"
    "\"required\":[\"dimension\",\"asked\",\"matches\",\"values\"]}},"
    "\"message\":{\"type\":\"string\"},"
    "\"receipt\":{\"type\":\"object\",\"properties\":{\"principal\":{\"type\":\"string\"},"
    "\"authorized\":{\"type\":\"boolean\"},\"model_version\":{\"type\":\"string\"},"
    "\"tables\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
    "\"table\":{\"type\":\"string\"},\"snapshot_id\":{\"type\":\"integer\"}},"
    "\"required\":[\"table\",\"snapshot_id\"]}}},"
    "\"required\":[\"principal\",\"tables\",\"model_version\"]}},"
    "\"required\":[\"ambiguous\",\"value_candidates\",\"message\",\"receipt\"]}";

json_t *mcp_value_candidates_schema(void)
{
    json_error_t je;
    json_t *d = json_loads(branch, 0, &je);
    if (!d) /* a broken definition is a bug: say where */
        fprintf(stderr, "mcp: value candidates schema: %s at column %d\n", je.text, je.column);
    return d;
}
