/*
 * tool_defs.c - the tools' definitions as tools/list returns them: name,
 * title, description, inputSchema, outputSchema and annotations. Kept as
 * JSON text so that what clients validate against reads as a schema. Every
 * output has a receipt: the principal and the table snapshots read.
 */
#include <stdio.h>

#include "mcp/mcp_internal.h"

#define RECEIPT                                                                                    \
    "\"receipt\":{\"type\":\"object\",\"description\":\"who asked and which table snapshots the "  \
    "answer read\",\"properties\":{\"principal\":{\"type\":\"string\"},\"authorized\":{\"type\":"  \
    "\"boolean\"},\"tables\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"  \
    "\"table\":{\"type\":\"string\"},\"snapshot_id\":{\"type\":\"integer\"}},\"required\":["       \
    "\"table\",\"snapshot_id\"]}}},\"required\":[\"principal\",\"tables\"]}"
#define RO                                                                                         \
    "\"annotations\":{\"readOnlyHint\":true,\"destructiveHint\":false,\"idempotentHint\":true,"    \
    "\"openWorldHint\":false}"
#define TABLE_ARG                                                                                  \
    "\"table\":{\"type\":\"string\",\"description\":\"namespace.table, e.g. sales.orders\"}"
#define COLUMNS                                                                                    \
    "\"columns\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"name\":{"    \
    "\"type\":\"string\"},\"type\":{\"type\":\"string\"}},\"required\":[\"name\",\"type\"]}}"

static const char *const defs[] = {
    "{\"name\":\"list_tables\",\"title\":\"List tables\",\"description\":\"Tables and views you "
    "may "
    "see, optionally in one namespace or matching a search string; the list is cut to max_items "
    "and "
    "max_bytes (truncated says so).\",\"inputSchema\":{\"type\":\"object\",\"properties\":{"
    "\"namespace\":{\"type\":\"string\"},\"search\":{\"type\":\"string\",\"description\":\"case-"
    "insensitive substring of namespace.table\"},\"max_items\":{\"type\":\"integer\",\"minimum\":1,"
    "\"maximum\":10000},\"max_bytes\":{\"type\":\"integer\",\"minimum\":64}},"
    "\"additionalProperties\""
    ":false},\"outputSchema\":{\"type\":\"object\",\"properties\":{\"tables\":{\"type\":\"array\","
    "\"items\":{\"type\":\"object\",\"properties\":{\"namespace\":{\"type\":\"string\"},\"name\":{"
    "\"type\":\"string\"},\"kind\":{\"type\":\"string\"}},\"required\":[\"namespace\",\"name\","
    "\"kind\"]}},\"count\":{\"type\":\"integer\"},\"matched\":{\"type\":\"integer\"},\"truncated\":"
    "{"
    "\"type\":\"boolean\"}," RECEIPT
    "},\"required\":[\"tables\",\"count\",\"matched\",\"truncated\","
    "\"receipt\"]}," RO "}",

    "{\"name\":\"describe_table\",\"title\":\"Describe a table\",\"description\":\"Schema (field "
    "ids, Iceberg types), partition spec, properties, current snapshot and row count (as you may "
    "see it: row filters apply) of one "
    "table.\",\"inputSchema\":{\"type\":\"object\",\"properties\":"
    "{" TABLE_ARG "},\"required\":[\"table\"],\"additionalProperties\":false},\"outputSchema\":{"
    "\"type\":\"object\",\"properties\":{\"table\":{\"type\":\"string\"},\"format_version\":{"
    "\"type\""
    ":\"integer\"},\"location\":{\"type\":\"string\"},\"schema\":{\"type\":\"object\","
    "\"properties\":"
    "{\"schema_id\":{\"type\":\"integer\"},\"fields\":{\"type\":\"array\",\"items\":{\"type\":"
    "\"object\",\"properties\":{\"id\":{\"type\":\"integer\"},\"name\":{\"type\":\"string\"},"
    "\"type\":{},\"required\":{\"type\":\"boolean\"}},\"required\":[\"id\",\"name\",\"type\","
    "\"required\"]}}},\"required\":[\"fields\"]},\"partition_spec\":{\"type\":\"array\",\"items\":{"
    "\"type\":\"object\"}},\"properties\":{\"type\":\"object\"},\"current_snapshot\":{\"type\":["
    "\"object\",\"null\"]},\"row_count\":{\"type\":\"integer\"}," RECEIPT "},\"required\":["
    "\"table\",\"schema\",\"partition_spec\",\"properties\",\"current_snapshot\",\"row_count\","
    "\"receipt\"]}," RO "}",

    "{\"name\":\"table_history\",\"title\":\"Table history\",\"description\":\"The table's "
    "snapshots, newest first: id, parent, commit time, operation and summary.\",\"inputSchema\":{"
    "\"type\":\"object\",\"properties\":{" TABLE_ARG ",\"max_items\":{\"type\":\"integer\","
    "\"minimum\":1,\"maximum\":10000}},\"required\":[\"table\"],\"additionalProperties\":false},"
    "\"outputSchema\":{\"type\":\"object\",\"properties\":{\"table\":{\"type\":\"string\"},"
    "\"snapshots\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
    "\"snapshot_id\":{\"type\":\"integer\"},\"parent_id\":{\"type\":[\"integer\",\"null\"]},"
    "\"committed_at\":{\"type\":\"string\"},\"operation\":{\"type\":[\"string\",\"null\"]},"
    "\"summary\":{\"type\":[\"object\",\"null\"]}},\"required\":[\"snapshot_id\",\"parent_id\","
    "\"committed_at\",\"operation\",\"summary\"]}},\"count\":{\"type\":\"integer\"},\"truncated\":{"
    "\"type\":\"boolean\"}," RECEIPT "},\"required\":[\"table\",\"snapshots\",\"count\","
    "\"truncated\",\"receipt\"]}," RO "}",

    "{\"name\":\"run_sql\",\"title\":\"Run read-only SQL\",\"description\":\"Runs one read-only "
    "statement (SELECT, WITH, VALUES, TABLE, SHOW, DESCRIBE, EXPLAIN; PostgreSQL dialect with "
    "Iceberg time travel) and returns a preview that fits max_rows and max_bytes, per-column "
    "statistics of the whole result and a resource_link to the full result as CSV. DDL and DML are "
    "refused.\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"sql\":{\"type\":\"string\"},"
    "\"namespace\":{\"type\":\"string\",\"description\":\"namespace of unqualified table names\"},"
    "\"max_rows\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":10000},\"max_bytes\":{\"type\":"
    "\"integer\",\"minimum\":64}},\"required\":[\"sql\"],\"additionalProperties\":false},"
    "\"outputSchema\":{\"type\":\"object\",\"properties\":{" COLUMNS
    ",\"rows\":{\"type\":\"array\","
    "\"items\":{\"type\":\"array\"}},\"row_count\":{\"type\":\"integer\"},\"complete\":{\"type\":"
    "\"boolean\",\"description\":\"false when the result was cut at the server's row cap\"},"
    "\"truncated\":{\"type\":\"boolean\",\"description\":\"the preview holds fewer rows than the "
    "result\"},\"column_stats\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
    "\"name\":{\"type\":\"string\"},\"nulls\":{\"type\":\"integer\"},\"min\":{},\"max\":{}},"
    "\"required\":[\"name\",\"nulls\",\"min\",\"max\"]}},\"result_uri\":{\"type\":\"string\"},"
    "\"result_arrow_uri\":{\"type\":\"string\"},"
    "\"tag\":{\"type\":\"string\"}," RECEIPT "},\"required\":[\"columns\",\"rows\",\"row_count\","
    "\"complete\",\"truncated\",\"column_stats\",\"result_uri\",\"receipt\"]}," RO "}",

    "{\"name\":\"estimate_cost\",\"title\":\"Estimate a query's cost\",\"description\":\"Before "
    "anything runs: the files, bytes, rows and partitions of every table a read-only statement (or "
    "a table with an optional filter) would scan, from Iceberg metadata at the snapshot it would "
    "read, and the engine's plan with the pruning it would apply.\",\"inputSchema\":{\"type\":"
    "\"object\",\"properties\":{\"sql\":{\"type\":\"string\"}," TABLE_ARG ",\"filter\":{\"type\":"
    "\"string\",\"description\":\"SQL boolean expression over the table's columns\"},\"namespace\":"
    "{\"type\":\"string\"}},\"additionalProperties\":false},\"outputSchema\":{\"type\":\"object\","
    "\"properties\":{\"sql\":{\"type\":\"string\"},\"tables\":{\"type\":\"array\",\"items\":{"
    "\"type\""
    ":\"object\",\"properties\":{\"table\":{\"type\":\"string\"},\"snapshot_id\":{\"type\":"
    "\"integer\"},\"files\":{\"type\":\"integer\"},\"files_before_pruning\":{\"type\":\"integer\"},"
    "\"partition_by\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
    "\"bytes\":{\"type\":\"integer\"},\"rows\":{"
    "\"type\":\"integer\"},\"partitions\":{\"type\":\"integer\"},\"delete_files\":{\"type\":"
    "\"integer\"}},\"required\":[\"table\",\"snapshot_id\",\"files\",\"bytes\",\"rows\","
    "\"partitions\"]}},\"total\":{\"type\":\"object\",\"properties\":{\"files\":{\"type\":"
    "\"integer\"},\"bytes\":{\"type\":\"integer\"},\"rows\":{\"type\":\"integer\"},\"partitions\":{"
    "\"type\":\"integer\"}},\"required\":[\"files\",\"bytes\",\"rows\",\"partitions\"]},\"bound\":{"
    "\"type\":\"string\"},\"plan\":{\"type\":\"string\"}," RECEIPT "},\"required\":[\"sql\","
    "\"tables\",\"total\",\"bound\",\"plan\",\"receipt\"]}," RO "}",
};

json_t *mcp_tool_defs(bool with_metrics, bool with_propose)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < sizeof defs / sizeof defs[0]; i++) {
        json_error_t je;
        json_t *d = json_loads(defs[i], 0, &je);
        if (!d) { /* a broken definition is a bug: say which */
            json_decref(arr);
            fprintf(stderr, "mcp: tool definition %zu: %s at column %d\n", i, je.text, je.column);
            return NULL;
        }
        json_array_append_new(arr, d);
    }
    if (arr && with_metrics && !mcp_metric_tool_defs(arr)) {
        json_decref(arr);
        return NULL;
    }
    if (arr && with_propose && json_array_append_new(arr, mcp_propose_tool_def()) != 0) {
        json_decref(arr);
        return NULL;
    }
    return arr;
}
