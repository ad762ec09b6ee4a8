/*
 * tool_tables.c - list_tables, describe_table and table_history.
 *
 * What the caller may see is decided by the engine: the listing is
 * information_schema.tables (filtered to what the principal may see),
 * describe_table first counts the table's rows through SQL (READ on the
 * table, row filters applied, the snapshot recorded) and table_history
 * reads the table's $snapshots metadata table (READ, and refused under row
 * policies as the engine refuses metadata tables there). Only after the
 * engine allowed the table does describe_table load its metadata for the
 * schema's field ids, the partition spec and the properties.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "floe/ice_table.h"
#include "floe/iceberg.h"
#include "mcp/mcp_internal.h"

static int64_t int_arg(json_t *args, const char *name, int64_t def)
{
    json_t *v = json_object_get(args, name);
    return json_is_integer(v) ? json_integer_value(v) : def;
}

static const char *str_arg(json_t *args, const char *name)
{
    return json_string_value(json_object_get(args, name));
}

/* Runs sql as c's principal: rows or an isError result in *fail. */
static json_t *query(mcp_call *c, const char *ns, const char *sql, uint64_t max_rows, bool *more,
                     json_t *reads, json_t **fail)
{
    *fail = NULL;
    fl_sql_session *s = NULL;
    fl_error err = {0};
    json_t *cols = NULL, *rows = NULL;
    fl_status rc = mcp_sql_open(c, ns, &s, &err);
    if (rc == FL_OK)
        rc = mcp_sql_rows(s, sql, max_rows, &cols, &rows, more, reads, &err);
    if (rc != FL_OK) {
        char m[1100];
        mcp_sql_error_text(s, &err, m, sizeof m);
        *fail = mcp_tool_fail("%s", m);
    }
    fl_sql_session_close(s);
    json_decref(cols);
    return rows;
}

static bool matches(const char *ns, const char *name, const char *want_ns, const char *search)
{
    if (want_ns && strcmp(ns, want_ns))
        return false;
    if (!search || !*search)
        return true;
    char full[1024];
    snprintf(full, sizeof full, "%s.%s", ns, name);
    return strcasestr(full, search) != NULL;
}

json_t *mcp_tool_list_tables(mcp_call *c, json_t *args)
{
    if (!c->cat)
        return mcp_tool_fail("list_tables: the server has no catalog");
    const char *want_ns = str_arg(args, "namespace"), *search = str_arg(args, "search");
    int64_t max_items = int_arg(args, "max_items", 200),
            max_bytes = int_arg(args, "max_bytes", 16000);
    json_t *fail = NULL, *reads = json_array();
    bool more = false;
    json_t *rows =
        query(c, NULL,
              "SELECT table_schema, table_name, table_type FROM information_schema.tables "
              "WHERE table_schema NOT IN ('information_schema', 'pg_catalog') "
              "ORDER BY 1, 2",
              1000000, &more, reads, &fail);
    if (!rows) {
        json_decref(reads);
        return fail;
    }
    json_t *out = json_array();
    int64_t matched = 0, bytes = 2;
    bool truncated = false;
    size_t i;
    json_t *row;
    json_array_foreach(rows, i, row)
    {
        const char *ns = json_string_value(json_array_get(row, 0));
        const char *name = json_string_value(json_array_get(row, 1));
        const char *kind = json_string_value(json_array_get(row, 2));
        if (!ns || !name || !matches(ns, name, want_ns, search))
            continue;
        matched++;
        json_t *e = json_pack("{s:s, s:s, s:s}", "namespace", ns, "name", name, "kind",
                              kind && !strcmp(kind, "VIEW") ? "view" : "table");
        int64_t sz = (int64_t)(strlen(ns) + strlen(name) + 48);
        if ((int64_t)json_array_size(out) >= max_items || bytes + sz > max_bytes) {
            truncated = true;
            json_decref(e);
            continue;
        }
        bytes += sz;
        json_array_append_new(out, e);
    }
    json_decref(rows);
    size_t n = json_array_size(out);
    json_t *sc =
        json_pack("{s:o, s:I, s:I, s:b, s:o}", "tables", out, "count", (json_int_t)n, "matched",
                  (json_int_t)matched, "truncated", truncated, "receipt", mcp_receipt(c, reads));
    json_decref(reads);
    return mcp_tool_ok(sc, NULL);
}

/* The metadata of a table the engine already allowed, as Java's JSON. */
static json_t *metadata_json(mcp_call *c, const char *dotted, char *msg, size_t cap)
{
    fl_arena a;
    fl_arena_init(&a, 4096);
    fl_table_ident id;
    fl_error err = {0};
    fl_ice_table *t = NULL;
    char *text = NULL;
    size_t len = 0;
    json_t *j = NULL;
    if (fl_table_ident_parse(dotted, &a, &id, &err) == FL_OK &&
        fl_ice_table_load(c->cat, &id, &t, &err) == FL_OK &&
        fl_ice_metadata_write(&t->meta, 0, &text, &len, &err) == FL_OK)
        j = json_loadb(text, len, 0, NULL);
    if (!j)
        snprintf(msg, cap, "%.200s: %.800s", dotted,
                 err.msg[0] ? err.msg : "metadata not readable");
    free(text);
    fl_ice_table_free(t);
    fl_arena_free(&a);
    return j;
}

static json_t *schema_fields(json_t *meta)
{
    json_t *cur = json_object_get(meta, "current-schema-id"), *schema = NULL;
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(meta, "schemas"), i, s)
    {
        if (json_equal(json_object_get(s, "schema-id"), cur))
            schema = s;
    }
    json_t *fields = json_array();
    json_array_foreach(json_object_get(schema, "fields"), i, s)
    {
        json_t *f = json_pack("{s:O, s:O, s:O, s:b}", "id", json_object_get(s, "id"), "name",
                              json_object_get(s, "name"), "type", json_object_get(s, "type"),
                              "required", json_is_true(json_object_get(s, "required")));
        if (f && json_object_get(s, "doc"))
            json_object_set(f, "doc", json_object_get(s, "doc"));
        if (f)
            json_array_append_new(fields, f);
    }
    return json_pack("{s:O?, s:o}", "schema_id", cur, "fields", fields);
}

static json_t *current_snapshot(json_t *meta)
{
    json_t *cur = json_object_get(meta, "current-snapshot-id");
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(meta, "snapshots"), i, s)
    {
        if (json_equal(json_object_get(s, "snapshot-id"), cur)) {
            json_t *sum = json_object_get(s, "summary");
            return json_pack("{s:O, s:O, s:O?, s:O?}", "snapshot_id", cur, "timestamp_ms",
                             json_object_get(s, "timestamp-ms"), "operation",
                             json_object_get(sum, "operation"), "summary", sum);
        }
    }
    return json_null();
}

static json_t *partition_spec(json_t *meta)
{
    json_t *def = json_object_get(meta, "default-spec-id");
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(meta, "partition-specs"), i, s)
    {
        if (json_equal(json_object_get(s, "spec-id"), def))
            return json_incref(json_object_get(s, "fields"));
    }
    return json_array();
}

json_t *mcp_tool_describe_table(mcp_call *c, json_t *args)
{
    if (!c->cat)
        return mcp_tool_fail("describe_table: the server has no catalog");
    const char *table = str_arg(args, "table");
    if (!table)
        return mcp_tool_fail("describe_table: argument \"table\" is required");
    fl_error err = {0};
    char *q = mcp_quote_table(table, &err);
    if (!q)
        return mcp_tool_fail("describe_table: %s", err.msg);
    char *sql = NULL;
    if (asprintf(&sql, "SELECT count(*) FROM %s", q) < 0)
        sql = NULL;
    free(q);
    if (!sql)
        return NULL;
    json_t *fail = NULL, *reads = json_array();
    bool more = false;
    json_t *rows = query(c, NULL, sql, 1, &more, reads, &fail);
    free(sql);
    if (!rows) {
        json_decref(reads);
        return fail;
    }
    json_int_t count = json_integer_value(json_array_get(json_array_get(rows, 0), 0));
    json_decref(rows);
    char msg[1100];
    json_t *meta = metadata_json(c, table, msg, sizeof msg);
    if (!meta) {
        json_decref(reads);
        return mcp_tool_fail("describe_table: %s", msg);
    }
    json_t *props = json_object_get(meta, "properties");
    json_t *sc = json_pack(
        "{s:s, s:O, s:O, s:o, s:o, s:O, s:o, s:I, s:o}", "table", table, "format_version",
        json_object_get(meta, "format-version"), "location", json_object_get(meta, "location"),
        "schema", schema_fields(meta), "partition_spec", partition_spec(meta), "properties",
        props ? props : json_object(), "current_snapshot", current_snapshot(meta), "row_count",
        count, "receipt", mcp_receipt(c, reads));
    json_decref(meta);
    json_decref(reads);
    return sc ? mcp_tool_ok(sc, NULL)
              : mcp_tool_fail("describe_table: %s has unexpected metadata", table);
}

json_t *mcp_tool_table_history(mcp_call *c, json_t *args)
{
    if (!c->cat)
        return mcp_tool_fail("table_history: the server has no catalog");
    const char *table = str_arg(args, "table");
    if (!table)
        return mcp_tool_fail("table_history: argument \"table\" is required");
    int64_t max_items = int_arg(args, "max_items", 100);
    char *with_suffix = NULL;
    if (asprintf(&with_suffix, "%s$snapshots", table) < 0)
        return NULL;
    fl_error err = {0};
    char *q = mcp_quote_table(with_suffix, &err);
    free(with_suffix);
    if (!q)
        return mcp_tool_fail("table_history: %s", err.msg);
    char *sql = NULL;
    if (asprintf(&sql,
                 "SELECT snapshot_id, parent_id, CAST(committed_at AS text), operation, "
                 "CAST(summary AS text) FROM %s ORDER BY committed_at DESC, snapshot_id",
                 q) < 0)
        sql = NULL;
    free(q);
    if (!sql)
        return NULL;
    json_t *fail = NULL, *reads = json_array();
    bool more = false;
    json_t *rows = query(c, NULL, sql, (uint64_t)max_items, &more, reads, &fail);
    free(sql);
    if (!rows) {
        json_decref(reads);
        return fail;
    }
    json_t *snaps = json_array();
    size_t i;
    json_t *row;
    json_array_foreach(rows, i, row)
    {
        const char *sum = json_string_value(json_array_get(row, 4));
        json_t *summary = sum ? json_loads(sum, 0, NULL) : NULL;
        json_array_append_new(
            snaps, json_pack("{s:O, s:O, s:O, s:O, s:o}", "snapshot_id", json_array_get(row, 0),
                             "parent_id", json_array_get(row, 1), "committed_at",
                             json_array_get(row, 2), "operation", json_array_get(row, 3), "summary",
                             json_is_object(summary) ? summary : json_null()));
        if (summary && !json_is_object(summary))
            json_decref(summary);
    }
    json_decref(rows);
    json_t *sc = json_pack("{s:s, s:o, s:I, s:b, s:o}", "table", table, "snapshots", snaps, "count",
                           (json_int_t)json_array_size(snaps), "truncated", more, "receipt",
                           mcp_receipt(c, reads));
    json_decref(reads);
    return mcp_tool_ok(sc, NULL);
}
