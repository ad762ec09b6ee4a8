/*
 * mcp_internal.h - the pieces of the MCP server shared by src/mcp files.
 *
 * A message goes jsonrpc.c (envelope, limits) -> dispatch.c (method table,
 * sessions) -> one method handler (lifecycle in dispatch.c, tools in
 * tools.c and tool_*.c, resources.c, prompts.c). Tools reach data only
 * through sqlrun.c, which opens a SQL session as the caller's principal.
 */
#ifndef MCP_MCP_INTERNAL_H
#define MCP_MCP_INTERNAL_H

#include <jansson.h>
#include <pthread.h>

#include "floe/mcp.h"
#include "floe/predicate.h"
#include "floe/semantic.h"
#include "floe/sql.h"

/* JSON-RPC error codes */
#define MCP_PARSE_ERROR (-32700)
#define MCP_INVALID_REQUEST (-32600)
#define MCP_METHOD_NOT_FOUND (-32601)
#define MCP_INVALID_PARAMS (-32602)
#define MCP_INTERNAL_ERROR (-32603)
#define MCP_UNAUTHORIZED (-32001) /* the principal cannot be determined */
#define MCP_RESOURCE_NOT_FOUND (-32002)
#define MCP_HEADER_MISMATCH (-32020)     /* 2026-07-28: HTTP headers and body disagree */
#define MCP_UNSUPPORTED_VERSION (-32022) /* 2026-07-28: a version not spoken */

/* ---- sessions (session.c) ---- */
typedef struct mcp_session {
    char id[FL_MCP_SESSION_ID_MAX];
    char version[16];
    char owner[FL_PRINCIPAL_NAME_MAX];
    bool initialized; /* notifications/initialized seen */
    struct mcp_session *next;
} mcp_session;

/* ---- stored results (results.c) ---- */
typedef struct mcp_result {
    char id[33];
    char owner[FL_PRINCIPAL_NAME_MAX];
    char *csv; /* malloc'd */
    size_t csv_len;
    uint8_t *arrow; /* malloc'd Arrow IPC stream; NULL when it could not be written */
    size_t arrow_len;
    uint64_t rows;
    uint64_t seq; /* insertion order, for eviction */
    struct mcp_result *next;
} mcp_result;

struct fl_mcp_server {
    fl_mcp_options opt;
    pthread_mutex_t mu;     /* sessions, results */
    pthread_mutex_t cat_mu; /* calls over the shared options.catalog */
    mcp_session *sessions;
    uint32_t nsessions;
    mcp_session implicit; /* without options.sessions */
    mcp_result *results;
    size_t results_bytes;
    uint64_t results_seq;
    struct mcp_rate *rates; /* budget.c: run_sql calls per principal and minute */
    uint32_t nrates;
};

/* One call's context: who, over which catalog, in which session. */
typedef struct mcp_call {
    fl_mcp_server *m;
    fl_principal who;
    fl_catalog *cat; /* NULL = no catalog */
    const char *version;
    bool modern; /* a 2026-07-28 request: stateless, no initialize */
    bool can_elicit;         /* modern, and the client declared elicitation in _meta */
    json_t *input_responses; /* modern: params.inputResponses of a retry (borrowed), or NULL */
} mcp_call;

/* ---- JSON-RPC (jsonrpc.c) ---- */
json_t *mcp_error(json_t *id, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
json_t *mcp_result_msg(json_t *id, json_t *result); /* steals result */
/* Parses text with the limits; NULL + *error_out (a ready response) on failure. */
json_t *mcp_parse(const fl_mcp_server *m, const char *msg, size_t len, json_t **error_out);
/* Replaces bytes that are not valid UTF-8 (in place) with '?'. */
void mcp_utf8_clean(char *s);

/* ---- dispatch (dispatch.c) ---- */
/* The response to one request (or NULL for a notification). */
json_t *mcp_dispatch(fl_mcp_server *m, fl_mcp_exchange *x, json_t *msg);

/* ---- version negotiation (version.c) ---- */
const char *mcp_version_negotiate(const char *asked);
bool mcp_version_known(const char *v);

/* ---- the stateless revision 2026-07-28 (stateless.c) ---- */
/* params._meta's io.modelcontextprotocol/protocolVersion, or NULL (legacy). */
const char *mcp_modern_version(json_t *params);
/* NULL when a modern request may run (x->negotiated_version set); else the
 * error response (-32022 unsupported version, -32020 header mismatch). */
json_t *mcp_modern_check(fl_mcp_server *m, fl_mcp_exchange *x, const char *method,
                         const char *version, json_t *params, json_t *id);
json_t *mcp_discover(const mcp_call *c);
/* elicit.c: the metric a retry's inputResponses chose for asked (one of
 * matches, the candidates' member JSON), or NULL; and the InputRequiredResult
 * asking to choose for each of cands ([{asked, matches}]). */
const char *mcp_elicited_metric(const mcp_call *c, const char *asked, json_t *matches);
json_t *mcp_elicit_metrics(const mcp_call *c, json_t *cands);
/* resultType, and ttlMs/cacheScope on list and read results, of a response. */
void mcp_modern_decorate(json_t *msg, const char *method);

/* ---- sessions (session.c) ---- */
/* Creates a session (options.sessions) or resets the implicit one. */
mcp_session *mcp_session_create(fl_mcp_server *m, const char *version, const char *owner);
/* The session named id (NULL when none), under m->mu held by the caller. */
mcp_session *mcp_session_find(fl_mcp_server *m, const char *id);
void mcp_sessions_free(fl_mcp_server *m);

/* ---- tools (tools.c, tool_defs.c, tool_tables.c, tool_sql.c, tool_cost.c) ---- */
json_t *mcp_tools_list(const mcp_call *c);
/* tools/call: a CallToolResult, or NULL with code and msg set (-32602). */
json_t *mcp_tools_call(mcp_call *c, json_t *params, int *code, char *msg, size_t cap);
/* A successful result: structuredContent + a text block with the same JSON
 * (+ extra content blocks, stolen, may be NULL). Steals structured. */
json_t *mcp_tool_ok(json_t *structured, json_t *extra_content);
json_t *mcp_tool_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

json_t *mcp_tool_list_tables(mcp_call *c, json_t *args);
json_t *mcp_tool_describe_table(mcp_call *c, json_t *args);
json_t *mcp_tool_table_history(mcp_call *c, json_t *args);
json_t *mcp_tool_run_sql(mcp_call *c, json_t *args);
json_t *mcp_tool_estimate_cost(mcp_call *c, json_t *args);
/* The tool definitions (name, description, inputSchema, outputSchema,
 * annotations); the metric tools' too when with_metrics (a model is set),
 * propose_metric's when with_propose (and the model's folder). */
json_t *mcp_tool_defs(bool with_metrics, bool with_propose);
/* Appends the metric tools' definitions (tool_defs_metrics.c) to arr. */
bool mcp_metric_tool_defs(json_t *arr);
/* Drains r (a query's cursor on s) into a preview that fits max_rows and
 * max_bytes, per-column statistics and a stored result (CSV, Arrow): the
 * tool's result with a resource_link (tool_sql.c, shared by run_sql and
 * query_metrics). extra (stolen, may be NULL) is merged into
 * structuredContent; its "receipt" replaces the one made from r's reads. */
json_t *mcp_result_preview(mcp_call *c, fl_sql_session *s, fl_sql_result *r, uint64_t max_rows,
                           uint64_t max_bytes, const char *tool, json_t *extra);

/* ---- metric tools (tool_metrics.c, tool_dimensions.c, tool_dim_values.c,
 * tool_query_metrics.c) over options.model ---- */
json_t *mcp_tool_list_metrics(mcp_call *c, json_t *args);
json_t *mcp_tool_get_dimensions(mcp_call *c, json_t *args);
json_t *mcp_tool_get_entities(mcp_call *c, json_t *args);
json_t *mcp_tool_get_dimension_values(mcp_call *c, json_t *args);
json_t *mcp_tool_query_metrics(mcp_call *c, json_t *args);
json_t *mcp_tool_compile_sql(mcp_call *c, json_t *args);
/* Metric names of args.metrics (an array of strings) checked against the
 * model: FL_OK with *names (malloc'd array of borrowed strings; free the
 * array) and *n; else *answer is the tool's answer: the candidates when a
 * name is not exact but matches metrics (isError false), an error naming
 * an unknown metric. required: an empty list is an error. */
bool mcp_metrics_resolve(mcp_call *c, const char *tool, json_t *list, bool required,
                         const char ***names, uint32_t *n, json_t **answer);
/* The strings of a JSON array (malloc'd array of borrowed strings), or a
 * tool error naming arg when an item is not a string. */
bool mcp_string_list(const char *tool, const char *arg, json_t *list, const char ***out,
                     uint32_t *n, json_t **answer);
/* {name, type, description, ai_context, file} of a model member. */
json_t *mcp_member_json(const fl_sem_member_info *mi);
/* The receipt of an answer that read no table (list_metrics, compile_sql):
 * principal, tables [] and the model version. */
json_t *mcp_model_receipt(const mcp_call *c);

/* ---- propose_metric (propose_draft.c, propose_file.c, tool_propose.c) ---- */
/* A draft metric's fields, borrowed from the tool's arguments. */
typedef struct mcp_draft {
    const char *name, *description, *label, *type, *filter;
    const char *measure;                /* simple */
    const char *numerator, *denominator; /* ratio */
    const char *expr;                   /* derived, with metrics */
    json_t *metrics;                    /* derived: array of metric names */
} mcp_draft;
/* NULL when args make a draft (*d filled), else the isError result naming
 * the field. */
json_t *mcp_draft_parse(json_t *args, mcp_draft *d);
bool mcp_draft_name_ok(const char *s);
/* The draft as a metrics YAML file (malloc'd); pending_json (may be NULL)
 * is put under meta.pending. */
char *mcp_draft_yaml(const mcp_draft *d, const char *pending_json);
/* A new proposal's id: <name>-<UTC time>-<8 random hex>. */
fl_status mcp_pending_id(const char *name, char id[128], fl_error *err);
/* Writes yaml as <models_dir>/.pending/<id>.yaml (made if missing): a new
 * file, written whole under a temporary name then linked into place. */
fl_status mcp_pending_write(const char *models_dir, const char *id, const char *yaml,
                            char path[1024], fl_error *err);
json_t *mcp_tool_propose_metric(mcp_call *c, json_t *args);
/* propose_metric's definition (tool_defs_propose.c). */
json_t *mcp_propose_tool_def(void);

/* ---- filter values (filter_values.c, value_check.c) ---- */
typedef struct mcp_filter_lit {
    char dim[256];
    char value[1024];
} mcp_filter_lit;
/* The (dimension, string literal) pairs a filter compares for equality
 * ({{ Dimension('d') }} = 'v', ... IN ('v', ...)); at most cap. */
uint32_t mcp_filter_literals(const char *text, mcp_filter_lit *out, uint32_t cap);
/* Appends to out (array) at most cap strings of values closest to asked. */
void mcp_closest_values(const char *asked, json_t *values, uint32_t cap, json_t *out);
/* NULL when every literal q's filters compare a categorical dimension to
 * exists among the values the caller sees (session s); else the answer:
 * ambiguous with value_candidates, or an error. reads collects tables. */
json_t *mcp_filter_values_check(mcp_call *c, fl_sql_session *s, const char *tool,
                                const fl_sem_query *q);
/* The value-candidates branch of query_metrics' outputSchema. */
json_t *mcp_value_candidates_schema(void);

/* ---- SQL access (sqlrun.c) ---- */
/* A SQL session as c's principal over c's catalog. ns may be NULL. */
fl_status mcp_sql_open(const mcp_call *c, const char *ns, fl_sql_session **out, fl_error *err);
/* Runs sql and collects at most max_rows rows as arrays of JSON values
 * (*rows), and column descriptions (*cols: [{name, type}]). *more: rows
 * were left. Receipt reads are appended to reads (array). */
fl_status mcp_sql_rows(fl_sql_session *s, const char *sql, uint64_t max_rows, json_t **cols,
                       json_t **rows, bool *more, json_t *reads, fl_error *err);
/* The receipt object {principal, tables: [...]} of reads (borrowed). */
json_t *mcp_receipt(const mcp_call *c, json_t *reads);
/* Appends the result's reads to arr ([{table, snapshot_id}]). */
void mcp_reads_append(const fl_sql_result *r, json_t *arr);
/* [{name, type}] of a result schema. */
json_t *mcp_columns_json(const fl_schema *sch);
/* A SQL string literal / identifier quoted (malloc'd). */
char *mcp_quote_ident(const char *s);
/* "a.b.t" -> "a"."b"."t" (quoted identifiers; malloc'd); NULL when invalid. */
char *mcp_quote_table(const char *dotted, fl_error *err);
/* An error message with the SQLSTATE of the session's last failure. */
void mcp_sql_error_text(fl_sql_session *s, const fl_error *e, char *buf, size_t cap);

/* ---- values (values.c) ---- */
json_t *mcp_value_json(const fl_sql_formatter *f, const fl_vector *v, uint32_t row);
/* Appends n bytes to a growing NUL-terminated buffer. */
bool mcp_buf_put(char **buf, size_t *len, size_t *cap, const char *s, size_t n);
/* Appends the CSV field of the value (RFC 4180), NULL as an empty field. */
bool mcp_csv_field(char **buf, size_t *len, size_t *cap, const char *text, bool is_null);

/* ---- read-only statements (readonly.c) ---- */
/* FL_OK when sql is one statement of a reading kind; else FL_EFORBIDDEN
 * with the reason. *wrappable: a query whose rows may be capped by
 * wrapping it in SELECT * FROM (...) LIMIT n. */
fl_status mcp_sql_read_only(const char *sql, bool *wrappable, fl_error *err);

/* ---- estimate and budgets (tool_cost.c, budget.c) ---- */
/* estimate_cost's answer (a tool result) for sql in session s. */
json_t *mcp_estimate(mcp_call *c, fl_sql_session *s, const char *sql, json_t *reads);
/* NULL when run_sql may run sql now; else the isError result saying why
 * (queries per minute, or the scan budget with a narrower query to try). */
json_t *mcp_budget_refusal(mcp_call *c, fl_sql_session *s, const char *sql, bool is_query);
void mcp_rates_free(fl_mcp_server *m);

/* ---- pruning (prune.c) ---- */
/* The prune=[...] terms of one EXPLAIN scan line as a predicate over sch,
 * literals evaluated by session s, into arena a; *left_out counts terms that
 * could not be read (left out: the predicate then keeps more files). */
fl_status mcp_prune_predicate(fl_sql_session *s, const char *line, size_t len, const fl_schema *sch,
                              fl_arena *a, fl_predicate *out, uint32_t *left_out);

/* ---- results (results.c) ---- */
/* Stores a result for owner (steals csv and arrow, which may be NULL); fills id. */
fl_status mcp_results_put(fl_mcp_server *m, const char *owner, char *csv, size_t csv_len,
                          uint8_t *arrow, size_t arrow_len, uint64_t rows, char id[33],
                          fl_error *err);
/* A copy of a stored result's CSV (or Arrow stream) if who may read it
 * (malloc'd, NUL after the bytes). */
fl_status mcp_results_get(fl_mcp_server *m, const fl_principal *who, const char *id, bool arrow,
                          char **data, size_t *len, fl_error *err);
json_t *mcp_results_list(fl_mcp_server *m, const fl_principal *who);
void mcp_results_free(fl_mcp_server *m);

/* ---- resources and prompts (resources.c, prompts.c) ---- */
json_t *mcp_resources_list(mcp_call *c);
json_t *mcp_resources_templates(void);
json_t *mcp_resources_read(mcp_call *c, json_t *params, int *code, char *msg, size_t cap);
json_t *mcp_prompts_list(void);
json_t *mcp_prompts_get(json_t *params, int *code, char *msg, size_t cap);

#endif
