/*
 * metrics.c - Prometheus text exposition (format 0.0.4) of the server's
 * counters: requests by route and status class, a request latency
 * histogram, commits, commit conflicts (409s), server-side rebases, commits
 * whose outcome was an error, metrics reports received, in-flight requests,
 * the maintenance service's counts; then the ingestion pipelines' figures
 * (pipeline_metrics.c). Counters are relaxed atomics: handlers never take a
 * lock to count.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/sql_queue.h"
#include "server/server_internal.h"

/* Upper bounds of the latency buckets, microseconds. */
static const uint64_t LAT_US[SRV_LAT_BUCKETS] = {100,   250,    500,    1000,   2500,
                                                 5000,  10000,  25000,  50000,  100000,
                                                 250000, 500000, 1000000, 5000000};

void srv_metrics_observe(srv_metrics *m, uint32_t slot, int status, uint64_t us)
{
    if (slot > SRV_MAX_ROUTES)
        slot = SRV_MAX_ROUTES;
    int cls = status / 100;
    if (cls < 0 || cls > 5)
        cls = 0;
    atomic_fetch_add_explicit(&m->requests[slot][cls], 1, memory_order_relaxed);
    uint32_t b = 0;
    while (b < SRV_LAT_BUCKETS && us > LAT_US[b])
        b++;
    atomic_fetch_add_explicit(&m->lat_bucket[b], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&m->lat_count, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&m->lat_sum_us, us, memory_order_relaxed);
}

void srv_put(srv_sbuf *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->oom = true;
            return;
        }
        if ((size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = b->cap * 2 + (size_t)n;
        char *np = realloc(b->p, cap);
        if (!np) {
            b->oom = true;
            return;
        }
        b->p = np;
        b->cap = cap;
    }
}

/* The exposition below is a long list of these; the short name keeps it readable. */
#define put srv_put

/* The execution slots both SQL front ends share (floe/sql_queue.h). */
static void queue_metrics_put(fl_sql_queue *q, srv_sbuf *b)
{
    fl_sql_queue_stats st;
    fl_sql_queue_stats_get(q, &st);
    put(b, "# HELP floe_sql_statements_running Statements holding an execution slot.\n"
           "# TYPE floe_sql_statements_running gauge\nfloe_sql_statements_running %u\n",
        st.running);
    put(b, "# HELP floe_sql_statements_queued Statements waiting for an execution slot.\n"
           "# TYPE floe_sql_statements_queued gauge\nfloe_sql_statements_queued %u\n",
        st.queued);
    put(b, "# HELP floe_sql_slots Execution slots (max-running-statements).\n"
           "# TYPE floe_sql_slots gauge\nfloe_sql_slots %u\n",
        st.max_running);
    put(b, "# HELP floe_sql_memory_reserved_bytes Operator memory the running statements reserved.\n"
           "# TYPE floe_sql_memory_reserved_bytes gauge\nfloe_sql_memory_reserved_bytes %" PRIu64
           "\n",
        st.memory_reserved);
    put(b, "# HELP floe_sql_memory_budget_bytes Operator memory all running statements may reserve.\n"
           "# TYPE floe_sql_memory_budget_bytes gauge\nfloe_sql_memory_budget_bytes %" PRIu64 "\n",
        st.memory_budget);
    put(b, "# HELP floe_sql_statements_admitted_total Statements that took an execution slot.\n"
           "# TYPE floe_sql_statements_admitted_total counter\n"
           "floe_sql_statements_admitted_total %" PRIu64 "\n",
        st.admitted);
    put(b, "# HELP floe_sql_statements_waited_total Of those, statements that waited first.\n"
           "# TYPE floe_sql_statements_waited_total counter\n"
           "floe_sql_statements_waited_total %" PRIu64 "\n",
        st.waited);
    put(b, "# HELP floe_sql_queue_refused_total Statements refused with the queue full (53000).\n"
           "# TYPE floe_sql_queue_refused_total counter\nfloe_sql_queue_refused_total %" PRIu64
           "\n",
        st.refused);
    put(b, "# HELP floe_sql_queue_canceled_total Waits ended by a cancel or statement_timeout.\n"
           "# TYPE floe_sql_queue_canceled_total counter\nfloe_sql_queue_canceled_total %" PRIu64
           "\n",
        st.canceled);
    put(b, "# HELP floe_sql_queue_wait_seconds_total Time statements spent waiting for a slot.\n"
           "# TYPE floe_sql_queue_wait_seconds_total counter\n"
           "floe_sql_queue_wait_seconds_total %.6f\n",
        (double)st.wait_us_total / 1e6);
}

char *srv_metrics_render(const srv_metrics *m, const srv_router *r, fl_server_request *req,
                         size_t *len)
{
    srv_sbuf b = {malloc(8192), 0, 8192, false};
    if (!b.p)
        return NULL;
    b.p[0] = '\0';
    put(&b, "# HELP floe_http_requests_total HTTP requests by route and status class.\n"
            "# TYPE floe_http_requests_total counter\n");
    for (uint32_t i = 0; i <= r->n && i <= SRV_MAX_ROUTES; i++) {
        for (int c = 1; c <= 5; c++) {
            uint64_t v = atomic_load_explicit(&m->requests[i < r->n ? i : SRV_MAX_ROUTES][c],
                                              memory_order_relaxed);
            if (!v)
                continue;
            put(&b, "floe_http_requests_total{method=\"%s\",route=\"%s\",code=\"%dxx\"} %" PRIu64 "\n",
                i < r->n ? r->routes[i].method : "", i < r->n ? r->routes[i].pattern : "unrouted",
                c, v);
        }
    }
    put(&b, "# HELP floe_http_request_duration_seconds Request latency.\n"
            "# TYPE floe_http_request_duration_seconds histogram\n");
    uint64_t cum = 0;
    for (int i = 0; i < SRV_LAT_BUCKETS; i++) {
        cum += atomic_load_explicit(&m->lat_bucket[i], memory_order_relaxed);
        put(&b, "floe_http_request_duration_seconds_bucket{le=\"%g\"} %" PRIu64 "\n",
            (double)LAT_US[i] / 1e6, cum);
    }
    cum += atomic_load_explicit(&m->lat_bucket[SRV_LAT_BUCKETS], memory_order_relaxed);
    put(&b, "floe_http_request_duration_seconds_bucket{le=\"+Inf\"} %" PRIu64 "\n", cum);
    put(&b, "floe_http_request_duration_seconds_sum %.6f\n",
        (double)atomic_load(&m->lat_sum_us) / 1e6);
    put(&b, "floe_http_request_duration_seconds_count %" PRIu64 "\n", atomic_load(&m->lat_count));
    put(&b, "# HELP floe_commits_total Table commits that landed.\n# TYPE floe_commits_total counter\n"
            "floe_commits_total %" PRIu64 "\n", atomic_load(&m->commits));
    put(&b, "# HELP floe_commit_conflicts_total Commits refused with 409 (stale requirements).\n"
            "# TYPE floe_commit_conflicts_total counter\nfloe_commit_conflicts_total %" PRIu64 "\n",
        atomic_load(&m->conflicts));
    put(&b, "# HELP floe_commit_rebases_total Append commits rebased on the server after losing a race.\n"
            "# TYPE floe_commit_rebases_total counter\nfloe_commit_rebases_total %" PRIu64 "\n",
        atomic_load(&m->rebases));
    put(&b, "# HELP floe_commit_errors_total Commits that failed with a 5xx.\n"
            "# TYPE floe_commit_errors_total counter\nfloe_commit_errors_total %" PRIu64 "\n",
        atomic_load(&m->commit_errors));
    static const struct {
        const char *name, *help;
        size_t off;
    } maint[] = {
        {"floe_maintenance_passes_total", "Passes of the maintenance service over the catalog.",
         offsetof(srv_metrics, maint_passes)},
        {"floe_maintenance_tables_total", "Tables a maintenance pass looked at.",
         offsetof(srv_metrics, maint_tables)},
        {"floe_maintenance_compactions_total", "Compactions the maintenance service committed.",
         offsetof(srv_metrics, maint_compactions)},
        {"floe_maintenance_files_rewritten_total", "Data files those compactions rewrote.",
         offsetof(srv_metrics, maint_files_rewritten)},
        {"floe_maintenance_snapshots_expired_total", "Snapshots the maintenance service expired.",
         offsetof(srv_metrics, maint_snapshots_expired)},
        {"floe_maintenance_orphans_removed_total", "Orphan files it deleted.",
         offsetof(srv_metrics, maint_orphans_removed)},
        {"floe_maintenance_conflicts_total", "Steps that lost a race to a writer (retried).",
         offsetof(srv_metrics, maint_conflicts)},
        {"floe_maintenance_errors_total", "Tables (or passes) that failed.",
         offsetof(srv_metrics, maint_errors)},
    };
    for (size_t i = 0; i < sizeof maint / sizeof maint[0]; i++)
        put(&b, "# HELP %s %s\n# TYPE %s counter\n%s %" PRIu64 "\n", maint[i].name, maint[i].help,
            maint[i].name, maint[i].name,
            atomic_load((const _Atomic uint64_t *)((const char *)m + maint[i].off)));
    put(&b, "# HELP floe_metrics_reports_total Scan and commit reports received.\n"
            "# TYPE floe_metrics_reports_total counter\nfloe_metrics_reports_total %" PRIu64 "\n",
        atomic_load(&m->reports));
    put(&b, "# HELP floe_http_inflight_requests Requests being handled.\n"
            "# TYPE floe_http_inflight_requests gauge\nfloe_http_inflight_requests %" PRIu64 "\n",
        atomic_load(&m->inflight));
    if (req && req->srv->opt.sql_queue)
        queue_metrics_put(req->srv->opt.sql_queue, &b);
    srv_pipe_metrics_put(req, &b);
    if (b.oom) {
        free(b.p);
        return NULL;
    }
    *len = b.len;
    return b.p;
}
