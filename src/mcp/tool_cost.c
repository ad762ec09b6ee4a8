/*
 * tool_cost.c - estimate_cost.
 *
 * estimate_cost: EXPLAIN of the statement as the caller (authorized,
 * planned, nothing read but metadata), then, for every Iceberg table the
 * plan scans at the snapshot it names, the files Iceberg planning keeps
 * with the scan's prune terms (read back from the plan by prune.c), their
 * bytes, record counts and distinct partitions. An upper bound: row
 * groups, pages and residual filters prune further at run time.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/ice_scan.h"
#include "floe/ice_table.h"
#include "floe/iceberg.h"
#include "mcp/mcp_internal.h"

typedef struct scan_ref {
    char table[512];
    int64_t snapshot_id;
    const char *line; /* the EXPLAIN line (in the plan text) */
    size_t len;
} scan_ref;

/* "Scan iceberg NAME snapshot=ID ..." lines of an EXPLAIN text. */
static uint32_t plan_scans(const char *plan, scan_ref *out, uint32_t cap)
{
    uint32_t n = 0;
    for (const char *p = plan; (p = strstr(p, "Scan iceberg ")) && n < cap; p++) {
        long long id = -1;
        if (sscanf(p, "Scan iceberg %511s snapshot=%lld", out[n].table, &id) != 2)
            continue;
        const char *e = strchr(p, '\n');
        out[n].snapshot_id = id;
        out[n].line = p;
        out[n].len = e ? (size_t)(e - p) : strlen(p);
        n++;
    }
    return n;
}

/* A key for one file's partition tuple (spec id + values). */
static void partition_key(const fl_ice_data_file *f, char *buf, size_t cap)
{
    size_t o = (size_t)snprintf(buf, cap, "%d", f->spec_id);
    for (uint32_t i = 0; i < f->npartition && o + 40 < cap; i++) {
        const fl_value *v = &f->partition[i];
        if (v->is_null)
            o += (size_t)snprintf(buf + o, cap - o, "|N");
        else if (fl_type_is_varlen(&v->type) || v->type.id == FL_TYPE_UUID ||
                 v->type.id == FL_TYPE_FIXED)
            o += (size_t)snprintf(buf + o, cap - o, "|%.*s",
                                  (int)(v->v.bytes.len > 200 ? 200 : v->v.bytes.len),
                                  (const char *)v->v.bytes.ptr);
        else
            o += (size_t)snprintf(buf + o, cap - o, "|%" PRId64, v->v.i64);
    }
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct plan_counts {
    int64_t files, bytes, rows, partitions, delete_files;
} plan_counts;

static void count_plan(const fl_ice_scan_plan *p, plan_counts *c)
{
    memset(c, 0, sizeof *c);
    uint32_t nt = p ? p->ntasks : 0;
    char **keys = calloc(nt ? nt : 1, sizeof *keys);
    for (uint32_t i = 0; keys && i < nt; i++) {
        c->bytes += p->tasks[i].file->file_size_in_bytes;
        c->rows += p->tasks[i].file->record_count;
        char k[1024];
        partition_key(p->tasks[i].file, k, sizeof k);
        keys[i] = strdup(k);
    }
    if (keys && nt) {
        qsort(keys, nt, sizeof *keys, cmp_str);
        for (uint32_t i = 0; i < nt; i++)
            c->partitions += !i || !keys[i] || !keys[i - 1] || strcmp(keys[i], keys[i - 1]);
    }
    for (uint32_t i = 0; keys && i < nt; i++)
        free(keys[i]);
    free(keys);
    c->files = nt;
    c->delete_files = p ? (int64_t)p->metrics.delete_files : 0;
}

/* The default partition spec as "transform(column)" strings ("identity"
 * as the bare column): what a filter should name to prune. */
static json_t *partition_by(const fl_ice_metadata *m)
{
    const fl_ice_schema *sch = fl_ice_metadata_current_schema(m);
    json_t *arr = json_array();
    for (uint32_t i = 0; arr && sch && i < m->nspecs; i++) {
        const fl_ice_partition_spec *sp = &m->specs[i];
        if (sp->spec_id != m->default_spec_id)
            continue;
        for (uint32_t k = 0; k < sp->nfields; k++) {
            const fl_field *f = fl_schema_find_id(&sch->schema, sp->fields[k].source_id);
            const char *tr = sp->fields[k].transform ? sp->fields[k].transform : "?";
            char buf[300];
            if (!strcmp(tr, "identity"))
                snprintf(buf, sizeof buf, "%s", f && f->name ? f->name : "?");
            else
                snprintf(buf, sizeof buf, "%s(%s)", tr, f && f->name ? f->name : "?");
            json_array_append_new(arr, json_string(buf));
        }
    }
    return arr;
}

/* Plans the scan sr at its snapshot twice (all files; the files its prune
 * terms keep). NULL + msg on failure. *left_out: prune terms not used. */
static json_t *table_cost(mcp_call *c, fl_sql_session *s, const scan_ref *sr, uint32_t *left_out,
                          char *msg, size_t cap)
{
    fl_arena a;
    fl_arena_init(&a, 4096);
    fl_table_ident id;
    fl_error err = {0};
    fl_ice_table *t = NULL;
    fl_ice_scan_plan *all = NULL, *kept = NULL;
    json_t *out = NULL;
    fl_ice_scan_options so;
    memset(&so, 0, sizeof so);
    so.select = FL_ICE_SNAP_ID;
    so.prune_nested = true; /* the cost of the query, whose scan filters the rows */
    so.snapshot_id = sr->snapshot_id;
    fl_predicate pred = {0, NULL};
    *left_out = 0;
    bool ok = fl_table_ident_parse(sr->table, &a, &id, &err) == FL_OK &&
              fl_ice_table_load(c->cat, &id, &t, &err) == FL_OK;
    if (ok && sr->snapshot_id != FL_ICE_NO_SNAPSHOT) {
        const fl_ice_schema *sch = fl_ice_metadata_current_schema(&t->meta);
        ok = fl_ice_scan_plan_files(c->m->opt.io, &t->meta, &so, &all, &err) == FL_OK;
        if (ok && sch &&
            mcp_prune_predicate(s, sr->line, sr->len, &sch->schema, &a, &pred, left_out) == FL_OK &&
            pred.nterms) {
            so.filter = &pred;
            if (fl_ice_scan_plan_files(c->m->opt.io, &t->meta, &so, &kept, &err) != FL_OK) {
                fl_error_clear(&err); /* a filter planning cannot use: count every file */
                (*left_out) += pred.nterms;
            }
        }
    }
    json_t *parts = ok ? partition_by(&t->meta) : NULL;
    if (ok) {
        plan_counts ca, ck;
        count_plan(all, &ca);
        count_plan(kept ? kept : all, &ck);
        out = json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "table", sr->table,
                        "snapshot_id", (json_int_t)sr->snapshot_id, "files", (json_int_t)ck.files,
                        "bytes", (json_int_t)ck.bytes, "rows", (json_int_t)ck.rows, "partitions",
                        (json_int_t)ck.partitions, "delete_files", (json_int_t)ck.delete_files,
                        "files_before_pruning", (json_int_t)ca.files);
        if (out && parts)
            json_object_set(out, "partition_by", parts);
    } else {
        snprintf(msg, cap, "%.200s: %.800s", sr->table, err.msg);
    }
    json_decref(parts);
    fl_ice_scan_plan_free(kept);
    fl_ice_scan_plan_free(all);
    fl_ice_table_free(t);
    fl_arena_free(&a);
    return out;
}

/* The statement to estimate: args.sql, or SELECT * FROM table [WHERE filter]. */
static char *cost_sql(json_t *args, char *msg, size_t cap)
{
    const char *sql = json_string_value(json_object_get(args, "sql"));
    const char *table = json_string_value(json_object_get(args, "table"));
    const char *filter = json_string_value(json_object_get(args, "filter"));
    if ((sql != NULL) == (table != NULL) || (sql && filter)) {
        snprintf(msg, cap, "give either \"sql\" or \"table\" (with an optional \"filter\")");
        return NULL;
    }
    if (sql)
        return strdup(sql);
    fl_error err = {0};
    char *q = mcp_quote_table(table, &err);
    if (!q) {
        snprintf(msg, cap, "%s", err.msg);
        return NULL;
    }
    char *out = NULL;
    if (asprintf(&out, "SELECT * FROM %s%s%s", q, filter ? " WHERE " : "", filter ? filter : "") <
        0)
        out = NULL;
    free(q);
    return out;
}

/* EXPLAIN sql as c's principal: the plan text (malloc'd) or NULL + msg. */
static char *explain(mcp_call *c, fl_sql_session *s, const char *sql, json_t *reads, char *msg,
                     size_t cap)
{
    (void)c;
    char *stmt = NULL;
    if (asprintf(&stmt, "EXPLAIN %s", sql) < 0)
        return NULL;
    json_t *cols = NULL, *rows = NULL;
    bool more = false;
    fl_error err = {0};
    fl_status rc = mcp_sql_rows(s, stmt, 100000, &cols, &rows, &more, reads, &err);
    free(stmt);
    if (rc != FL_OK) {
        mcp_sql_error_text(s, &err, msg, cap);
        return NULL;
    }
    json_decref(cols);
    char *plan = NULL;
    size_t plen = 0, pcap = 0;
    size_t i;
    json_t *row;
    mcp_buf_put(&plan, &plen, &pcap, "", 0);
    json_array_foreach(rows, i, row)
    {
        const char *line = json_string_value(json_array_get(row, 0));
        mcp_buf_put(&plan, &plen, &pcap, line ? line : "", line ? strlen(line) : 0);
        mcp_buf_put(&plan, &plen, &pcap, "\n", 1);
    }
    json_decref(rows);
    return plan;
}

static void add_read(json_t *reads, const scan_ref *r)
{
    size_t i;
    json_t *e;
    json_array_foreach(reads, i, e)
    {
        if (!strcmp(json_string_value(json_object_get(e, "table")), r->table))
            return;
    }
    json_array_append_new(reads, json_pack("{s:s, s:I}", "table", r->table, "snapshot_id",
                                           (json_int_t)r->snapshot_id));
}

json_t *mcp_estimate(mcp_call *c, fl_sql_session *s, const char *sql, json_t *reads)
{
    char msg[1100] = "";
    char *plan = explain(c, s, sql, reads, msg, sizeof msg);
    if (!plan)
        return mcp_tool_fail("estimate_cost: %s", msg[0] ? msg : "out of memory");
    scan_ref refs[64];
    uint32_t n = plan_scans(plan, refs, 64), left_out = 0;
    json_t *tables = json_array();
    json_int_t tf = 0, tb = 0, tr = 0, tp = 0;
    for (uint32_t k = 0; k < n && c->cat; k++) {
        uint32_t lo = 0;
        json_t *t = table_cost(c, s, &refs[k], &lo, msg, sizeof msg);
        if (!t) {
            json_decref(tables);
            free(plan);
            return mcp_tool_fail("estimate_cost: %s", msg);
        }
        left_out += lo;
        tf += json_integer_value(json_object_get(t, "files"));
        tb += json_integer_value(json_object_get(t, "bytes"));
        tr += json_integer_value(json_object_get(t, "rows"));
        tp += json_integer_value(json_object_get(t, "partitions"));
        add_read(reads, &refs[k]);
        json_array_append_new(tables, t);
    }
    const char *bound =
        left_out ? "upper: the files Iceberg planning keeps with the prune terms floe could read "
                   "back; some terms of the plan were left out, so this may count more"
                 : "upper: the data files Iceberg planning keeps with the engine's prune terms "
                   "(partition values and column metrics); rows are the files' record counts "
                   "before row filters";
    json_t *sc =
        json_pack("{s:s, s:o, s:{s:I, s:I, s:I, s:I}, s:s, s:s, s:o}", "sql", sql, "tables", tables,
                  "total", "files", tf, "bytes", tb, "rows", tr, "partitions", tp, "bound", bound,
                  "plan", plan, "receipt", mcp_receipt(c, reads));
    free(plan);
    return mcp_tool_ok(sc, NULL);
}

json_t *mcp_tool_estimate_cost(mcp_call *c, json_t *args)
{
    char msg[1100] = "";
    char *sql = cost_sql(args, msg, sizeof msg);
    if (!sql)
        return mcp_tool_fail("estimate_cost: %s", msg);
    bool wrappable = false;
    fl_error err = {0};
    if (mcp_sql_read_only(sql, &wrappable, &err) != FL_OK || !wrappable) {
        free(sql);
        return mcp_tool_fail("estimate_cost: %s",
                             err.msg[0] ? err.msg : "only queries have a cost");
    }
    fl_sql_session *s = NULL;
    json_t *out = NULL, *reads = json_array();
    if (mcp_sql_open(c, json_string_value(json_object_get(args, "namespace")), &s, &err) == FL_OK) {
        out = mcp_estimate(c, s, sql, reads);
    } else {
        mcp_sql_error_text(NULL, &err, msg, sizeof msg);
        out = mcp_tool_fail("estimate_cost: %s", msg);
    }
    fl_sql_session_close(s);
    json_decref(reads);
    free(sql);
    return out;
}
