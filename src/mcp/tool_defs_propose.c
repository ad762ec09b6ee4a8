/*
 * tool_defs_propose.c - propose_metric's definition, listed only when the
 * server has a model and the folder it came from. It is the one tool not
 * annotated read-only: it writes a pending proposal (never the model), so
 * readOnlyHint is false, destructiveHint false (nothing is replaced) and
 * idempotentHint false (each call files a new proposal).
 */
#include <stdio.h>

#include "mcp/mcp_internal.h"

#define STR "{\"type\":\"string\"}"
#define NUMLIKE "{\"type\":[\"number\",\"string\",\"null\"]}"

static const char def[] =
    "{\"name\":\"propose_metric\",\"title\":\"Propose a metric\","
    "\"description\":\"Drafts a new metric (simple over a measure, ratio of two metrics, or "
    "derived from metrics with an expression), compiles it against the semantic model, runs it "
    "as you next to the related certified metrics (those over the same measure or semantic "
    "model) and files it, with the comparison, as a pending model change for an owner to "
    "approve. The live model is not changed.\","
    "\"inputSchema\":{\"type\":\"object\",\"properties\":{"
    "\"name\":{\"type\":\"string\",\"description\":\"lower-case letters, digits and _\"},"
    "\"description\":{\"type\":\"string\"},"
    "\"label\":{\"type\":\"string\"},"
    "\"type\":{\"type\":\"string\",\"enum\":[\"simple\",\"ratio\",\"derived\"]},"
    "\"measure\":{\"type\":\"string\",\"description\":\"simple: the measure aggregated\"},"
    "\"numerator\":{\"type\":\"string\",\"description\":\"ratio: a metric\"},"
    "\"denominator\":{\"type\":\"string\",\"description\":\"ratio: a metric\"},"
    "\"expr\":{\"type\":\"string\",\"description\":\"derived: SQL over the metrics' names\"},"
    "\"metrics\":{\"type\":\"array\",\"items\":" STR ",\"description\":\"derived: its inputs\"},"
    "\"filter\":{\"type\":\"string\",\"description\":\"the model's Jinja, e.g. {{ "
    "Dimension('customer__region') }} = 'EU'\"}},"
    "\"required\":[\"name\",\"description\",\"type\"],\"additionalProperties\":false},"
    "\"outputSchema\":{\"type\":\"object\",\"properties\":{"
    "\"status\":{\"const\":\"pending\"},\"id\":" STR ",\"file\":" STR ",\"name\":" STR
    ",\"proposed_by\":" STR ",\"proposed_at\":" STR ",\"yaml\":" STR ","
    "\"comparison\":{\"type\":\"object\",\"properties\":{"
    "\"draft\":{\"type\":\"object\",\"properties\":{\"name\":" STR ",\"value\":" NUMLIKE
    "},\"required\":[\"name\",\"value\"]},"
    "\"related\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
    "\"name\":" STR ",\"type\":" STR ",\"description\":" STR ",\"shares\":" STR
    ",\"value\":" NUMLIKE ",\"ratio\":{\"type\":[\"number\",\"null\"]}},"
    "\"required\":[\"name\",\"type\",\"shares\",\"value\",\"ratio\"]}}},"
    "\"required\":[\"draft\",\"related\"]},"
    "\"receipt\":{\"type\":\"object\",\"properties\":{\"principal\":" STR
    ",\"authorized\":{\"type\":\"boolean\"},\"model_version\":" STR ",\"sql\":" STR
    ",\"tables\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
    "\"table\":" STR ",\"snapshot_id\":{\"type\":\"integer\"}},"
    "\"required\":[\"table\",\"snapshot_id\"]}}},"
    "\"required\":[\"principal\",\"tables\",\"model_version\"]}},"
    "\"required\":[\"status\",\"id\",\"file\",\"name\",\"proposed_by\",\"proposed_at\","
    "\"comparison\",\"yaml\",\"receipt\"]},"
    "\"annotations\":{\"readOnlyHint\":false,\"destructiveHint\":false,\"idempotentHint\":false,"
    "\"openWorldHint\":false}}";

json_t *mcp_propose_tool_def(void)
{
    json_error_t je;
    json_t *d = json_loads(def, 0, &je);
    if (!d) /* a broken definition is a bug: say where */
        fprintf(stderr, "mcp: propose_metric definition: %s at column %d\n", je.text, je.column);
    return d;
}
