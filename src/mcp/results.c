/*
 * results.c - full run_sql results kept for resources/read as
 * floe://results/<id>: CSV text (RFC 4180, header row), owned by the
 * principal that ran the statement (nobody else may read it, whatever
 * their grants: a result may hold rows another principal's row filters
 * hide). Bounded by options.max_results_bytes; the oldest results go
 * first. Ids are 128 random bits in hex. Everything under m->mu.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "mcp/mcp_internal.h"

static void drop_oldest(fl_mcp_server *m)
{
    mcp_result **old = NULL;
    for (mcp_result **pp = &m->results; *pp; pp = &(*pp)->next)
        if (!old || (*pp)->seq < (*old)->seq)
            old = pp;
    if (!old)
        return;
    mcp_result *r = *old;
    *old = r->next;
    m->results_bytes -= r->csv_len + r->arrow_len;
    free(r->csv);
    free(r->arrow);
    free(r);
}

fl_status mcp_results_put(fl_mcp_server *m, const char *owner, char *csv, size_t csv_len,
                          uint8_t *arrow, size_t arrow_len, uint64_t rows, char id[33],
                          fl_error *err)
{
    if (arrow && csv_len + arrow_len > m->opt.max_results_bytes) {
        free(arrow); /* no room for both: the CSV alone */
        arrow = NULL;
        arrow_len = 0;
    }
    size_t len = csv_len + arrow_len;
    if (len > m->opt.max_results_bytes) {
        free(csv);
        free(arrow);
        return fl_errorf(err, FL_ELIMIT,
                         "result of %zu bytes is larger than the result store (%zu)", len,
                         m->opt.max_results_bytes);
    }
    mcp_result *r = calloc(1, sizeof *r);
    uint8_t b[16];
    if (!r || getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) {
        free(r);
        free(csv);
        free(arrow);
        return fl_errorf(err, FL_ENOMEM, "cannot store the result");
    }
    for (int i = 0; i < 16; i++)
        snprintf(r->id + 2 * i, 3, "%02x", b[i]);
    snprintf(r->owner, sizeof r->owner, "%s", owner);
    r->csv = csv;
    r->csv_len = csv_len;
    r->arrow = arrow;
    r->arrow_len = arrow_len;
    r->rows = rows;
    pthread_mutex_lock(&m->mu);
    while (m->results && m->results_bytes + len > m->opt.max_results_bytes)
        drop_oldest(m);
    r->seq = ++m->results_seq;
    r->next = m->results;
    m->results = r;
    m->results_bytes += len;
    memcpy(id, r->id, 33);
    pthread_mutex_unlock(&m->mu);
    return FL_OK;
}

fl_status mcp_results_get(fl_mcp_server *m, const fl_principal *who, const char *id, bool arrow,
                          char **data, size_t *len, fl_error *err)
{
    *data = NULL;
    fl_status rc =
        fl_errorf(err, FL_ENOTFOUND, "no result %s (results are kept while there is room)", id);
    pthread_mutex_lock(&m->mu);
    for (mcp_result *r = m->results; r; r = r->next) {
        if (strcmp(r->id, id) || strcmp(r->owner, who->name))
            continue; /* someone else's result is "not found" too */
        const void *src = arrow ? (const void *)r->arrow : r->csv;
        size_t n = arrow ? r->arrow_len : r->csv_len;
        if (!src) {
            rc = fl_errorf(err, FL_ENOTFOUND, "result %s has no Arrow form", id);
            break;
        }
        *data = malloc(n + 1);
        if (!*data) {
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
            break;
        }
        memcpy(*data, src, n);
        (*data)[n] = '\0';
        *len = n;
        fl_error_clear(err);
        rc = FL_OK;
        break;
    }
    pthread_mutex_unlock(&m->mu);
    return rc;
}

json_t *mcp_results_list(fl_mcp_server *m, const fl_principal *who)
{
    json_t *arr = json_array();
    pthread_mutex_lock(&m->mu);
    for (mcp_result *r = m->results; arr && r; r = r->next) {
        if (strcmp(r->owner, who->name))
            continue;
        char uri[64], desc[96];
        snprintf(uri, sizeof uri, "floe://results/%s", r->id);
        snprintf(desc, sizeof desc, "run_sql result, %llu rows (CSV)", (unsigned long long)r->rows);
        json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:s, s:I}", "uri", uri, "name", r->id,
                                             "description", desc, "mimeType", "text/csv", "size",
                                             (json_int_t)r->csv_len));
        if (r->arrow) {
            snprintf(uri, sizeof uri, "floe://results/%s.arrow", r->id);
            json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:s, s:I}", "uri", uri, "name",
                                                 r->id, "description", desc, "mimeType",
                                                 "application/vnd.apache.arrow.stream", "size",
                                                 (json_int_t)r->arrow_len));
        }
    }
    pthread_mutex_unlock(&m->mu);
    return arr;
}

void mcp_results_free(fl_mcp_server *m)
{
    while (m->results) {
        mcp_result *r = m->results;
        m->results = r->next;
        free(r->csv);
        free(r->arrow);
        free(r);
    }
    m->results_bytes = 0;
}
