/*
 * budget.c - run_sql's budgets (options.max_scan_bytes and
 * max_queries_per_minute; 0 = none), the same for every principal.
 *
 * Scan budget: before a query runs, its estimate_cost (tool_cost.c: the
 * files Iceberg planning would keep, as the caller) is compared with the
 * budget; over it, run_sql refuses and says what would be scanned and how
 * to narrow the query: filters on the partition columns of the tables it
 * reads. Statements that are not queries (SHOW, EXPLAIN) scan no table.
 *
 * Rate: a fixed one-minute window per principal (calls counted when they
 * are admitted), in a table under m->mu bounded at 4096 principals (the
 * oldest window goes first).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcp/mcp_internal.h"

#define MAX_RATES 4096

typedef struct mcp_rate {
    char who[FL_PRINCIPAL_NAME_MAX];
    int64_t window_start_ms;
    uint32_t count;
} mcp_rate;

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* true = admitted; else *retry_s is when the window ends. */
static bool rate_admit(fl_mcp_server *m, const char *who, int64_t *retry_s)
{
    int64_t now = now_ms();
    bool ok = true;
    pthread_mutex_lock(&m->mu);
    mcp_rate *r = NULL, *oldest = NULL;
    for (uint32_t i = 0; i < m->nrates; i++) {
        if (!strcmp(m->rates[i].who, who))
            r = &m->rates[i];
        if (!oldest || m->rates[i].window_start_ms < oldest->window_start_ms)
            oldest = &m->rates[i];
    }
    if (!r && m->nrates < MAX_RATES) {
        mcp_rate *n = realloc(m->rates, (m->nrates + 1) * sizeof *n);
        if (n) {
            m->rates = n;
            r = &m->rates[m->nrates++];
            memset(r, 0, sizeof *r);
        }
    } else if (!r) {
        r = oldest;
        memset(r, 0, sizeof *r);
    }
    if (r) {
        if (!r->who[0] || now - r->window_start_ms >= 60000) {
            snprintf(r->who, sizeof r->who, "%s", who);
            r->window_start_ms = now;
            r->count = 0;
        }
        ok = r->count < m->opt.max_queries_per_minute;
        if (ok)
            r->count++;
        else
            *retry_s = (60000 - (now - r->window_start_ms) + 999) / 1000;
    }
    pthread_mutex_unlock(&m->mu);
    return ok;
}

void mcp_rates_free(fl_mcp_server *m)
{
    free(m->rates);
    m->rates = NULL;
    m->nrates = 0;
}

/* "sales.orders by country, day(ts)" for each scanned table with a spec. */
static void narrower(json_t *tables, char *buf, size_t cap)
{
    size_t o = 0;
    buf[0] = '\0';
    size_t i;
    json_t *t;
    json_array_foreach(tables, i, t)
    {
        json_t *parts = json_object_get(t, "partition_by");
        if (!json_array_size(parts) || o + 2 >= cap)
            continue;
        o += (size_t)snprintf(buf + o, cap - o, "%s%s (partitioned by ", o ? "; " : "",
                              json_string_value(json_object_get(t, "table")));
        size_t k;
        json_t *p;
        json_array_foreach(parts, k, p)
        {
            if (o + 2 < cap)
                o +=
                    (size_t)snprintf(buf + o, cap - o, "%s%s", k ? ", " : "", json_string_value(p));
        }
        if (o + 2 < cap)
            o += (size_t)snprintf(buf + o, cap - o, ")");
    }
}

json_t *mcp_budget_refusal(mcp_call *c, fl_sql_session *s, const char *sql, bool is_query)
{
    const fl_mcp_options *o = &c->m->opt;
    int64_t retry = 0;
    if (o->max_queries_per_minute && !rate_admit(c->m, c->who.name, &retry))
        return mcp_tool_fail(
            "run_sql: %s ran %u statements this minute (the limit); retry in %" PRId64 " s",
            c->who.name, o->max_queries_per_minute, retry);
    if (!o->max_scan_bytes || !is_query)
        return NULL;
    json_t *reads = json_array();
    json_t *est = mcp_estimate(c, s, sql, reads);
    json_decref(reads);
    if (!est || json_is_true(json_object_get(est, "isError")))
        return est; /* the statement cannot be planned: say why */
    json_t *sc = json_object_get(est, "structuredContent");
    json_t *total = json_object_get(sc, "total");
    json_int_t bytes = json_integer_value(json_object_get(total, "bytes"));
    if (bytes <= (json_int_t)o->max_scan_bytes) {
        json_decref(est);
        return NULL;
    }
    char hint[600];
    narrower(json_object_get(sc, "tables"), hint, sizeof hint);
    json_t *out = mcp_tool_fail(
        "run_sql: over budget: the query would scan %" JSON_INTEGER_FORMAT
        " bytes in %" JSON_INTEGER_FORMAT " files (%" JSON_INTEGER_FORMAT
        " partitions), over this server's budget of %" PRIu64
        " bytes per query. Narrow it with filters on partition columns so fewer files are "
        "read%s%s, "
        "or aggregate over a smaller time range; estimate_cost shows what a query would scan.",
        bytes, json_integer_value(json_object_get(total, "files")),
        json_integer_value(json_object_get(total, "partitions")), o->max_scan_bytes,
        hint[0] ? ": " : "", hint);
    json_decref(est);
    return out;
}
