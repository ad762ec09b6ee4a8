/*
 * receipt.c - answers with receipts. fl_sem_execute compiles and runs a
 * query and records what the answer depends on: the model version, the
 * compiled SQL, the snapshot of every table the engine read
 * (fl_sql_result_read), the time, and the query compiled again with each of
 * those tables pinned FOR VERSION AS OF its snapshot (the replay SQL).
 * fl_sem_replay runs the replay SQL, so a receipt returns the same numbers
 * after new data landed (as long as the snapshots are not expired).
 *
 * Semantic models over `sql:` are not pinned (their SQL is opaque here);
 * tables they name are read at their current snapshots on replay.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "semantic/model.h"

struct fl_sem_receipt {
    char *version, *sql, *replay_sql, *time;
    json_t *query; /* the semantic query, as asked */
    fl_sem_pin *pins;
    uint32_t npins;
};

void fl_sem_receipt_free(fl_sem_receipt *r)
{
    if (!r)
        return;
    free(r->version);
    free(r->sql);
    free(r->replay_sql);
    free(r->time);
    json_decref(r->query);
    for (uint32_t i = 0; i < r->npins; i++) {
        free((char *)r->pins[i].table);
        free((char *)r->pins[i].committed_at);
    }
    free(r->pins);
    free(r);
}

static char *now_iso(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char buf[96];
    snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
             tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
             (int)(ts.tv_nsec / 1000000) % 1000);
    return strdup(buf);
}

static json_t *str_array(const char *const *v, uint32_t n)
{
    json_t *a = json_array();
    for (uint32_t i = 0; a && i < n; i++)
        json_array_append_new(a, json_string(v[i]));
    return a;
}

static json_t *query_json(const fl_sem_query *q)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    json_object_set_new(o, "metrics", str_array(q->metrics, q->nmetrics));
    json_object_set_new(o, "group_by", str_array(q->group_by, q->ngroup_by));
    json_object_set_new(o, "where", str_array(q->where, q->nwhere));
    json_object_set_new(o, "order_by", str_array(q->order_by, q->norder_by));
    json_object_set_new(o, "limit", q->limit >= 0 ? json_integer(q->limit) : json_null());
    json_object_set_new(o, "as_of", q->as_of ? json_string(q->as_of) : json_null());
    json_t *pins = json_object();
    for (uint32_t i = 0; pins && i < q->npins; i++)
        json_object_set_new(pins, q->pins[i].table, json_integer(q->pins[i].snapshot_id));
    json_object_set_new(o, "pins", pins);
    return o;
}

/* The result's reads (tables only, each once) as pins. */
static fl_status pins_of(const fl_sql_result *res, fl_sem_receipt *r, fl_error *err)
{
    uint32_t n = fl_sql_result_nreads(res);
    r->pins = calloc(n + 1, sizeof *r->pins);
    if (!r->pins)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        const fl_sql_table_read *rd = fl_sql_result_read(res, i);
        bool seen = false;
        for (uint32_t k = 0; k < r->npins && !seen; k++)
            seen = !strcmp(r->pins[k].table, rd->table);
        if (seen || rd->written)
            continue;
        r->pins[r->npins].table = strdup(rd->table);
        r->pins[r->npins].snapshot_id = rd->snapshot_id;
        if (!r->pins[r->npins++].table)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    return FL_OK;
}

/* "a.b.t" -> "a"."b"."t$snapshots" (malloc'd); NULL for a path or an odd name */
static char *snapshots_table(const char *table)
{
    const char *dot = strrchr(table, '.');
    if (!dot || strchr(table, '"') || strchr(table, '/'))
        return NULL;
    size_t n = strlen(table);
    char *q = malloc(3 * n + 32), *w = q;
    if (!q)
        return NULL;
    *w++ = '"';
    for (const char *p = table; p < dot; p++) {
        if (*p == '.') {
            memcpy(w, "\".\"", 3);
            w += 3;
        } else {
            *w++ = *p;
        }
    }
    sprintf(w, "\".\"%s$snapshots\"", dot + 1);
    return q;
}

/* When each pinned snapshot was committed (the data's freshness); a table
 * whose history cannot be read keeps NULL. */
static void pins_commit_times(fl_sql_session *s, fl_sem_receipt *r)
{
    for (uint32_t i = 0; i < r->npins; i++) {
        fl_sem_pin *p = &r->pins[i];
        char *mt = p->snapshot_id != FL_ICE_NO_SNAPSHOT ? snapshots_table(p->table) : NULL;
        char *sql = NULL;
        if (!mt || asprintf(&sql,
                            "SELECT CAST(committed_at AS varchar) FROM %s WHERE snapshot_id "
                            "= %lld",
                            mt, (long long)p->snapshot_id) < 0)
            sql = NULL;
        free(mt);
        fl_sql_result *res = NULL;
        fl_error err = {0};
        const fl_batch *b = NULL;
        bool eof = false;
        if (sql && fl_sql_execute(s, sql, &res, &err) == FL_OK &&
            fl_sql_result_next(res, &b, &eof, &err) == FL_OK && !eof && b &&
            fl_batch_live_rows(b) > 0) {
            char buf[64];
            fl_sql_format_value(&b->cols[0], b->sel ? b->sel->idx[0] : 0, "UTC", buf, sizeof buf);
            p->committed_at = strdup(buf);
        }
        fl_sql_result_close(res);
        free(sql);
    }
}

static fl_status new_receipt(const char *version, const char *sql, fl_sem_receipt **out,
                             fl_error *err)
{
    fl_sem_receipt *r = calloc(1, sizeof *r);
    if (r) {
        r->version = strdup(version);
        r->sql = strdup(sql);
        r->time = now_iso();
    }
    if (!r || !r->version || !r->sql || !r->time) {
        fl_sem_receipt_free(r);
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    *out = r;
    return FL_OK;
}

fl_status fl_sem_execute(fl_sql_session *s, const fl_sem_model *m, const fl_sem_query *q,
                         fl_sql_result **result, fl_sem_receipt **receipt, fl_error *err)
{
    *result = NULL;
    *receipt = NULL;
    char *sql = NULL;
    if (q->dialect != FL_SEM_DIALECT_FLOE)
        return fl_errorf(err, FL_EINVAL,
                         "a query runs on floe's engine: compile other dialects "
                         "with fl_sem_compile");
    FL_TRY(fl_sem_compile(m, q, NULL, 0, &sql, err));
    fl_sem_receipt *r = NULL;
    fl_status rc = new_receipt(m->version, sql, &r, err);
    free(sql);
    if (rc == FL_OK)
        rc = fl_sql_execute(s, r->sql, result, err);
    if (rc == FL_OK)
        rc = pins_of(*result, r, err);
    if (rc == FL_OK)
        pins_commit_times(s, r);
    if (rc == FL_OK)
        rc = fl_sem_compile(m, q, r->pins, r->npins, &r->replay_sql, err);
    if (rc == FL_OK && !(r->query = query_json(q)))
        rc = fl_errorf(err, FL_ENOMEM, "out of memory");
    if (rc != FL_OK) {
        fl_sql_result_close(*result);
        *result = NULL;
        fl_sem_receipt_free(r);
        return rc;
    }
    *receipt = r;
    return FL_OK;
}

fl_status fl_sem_replay(fl_sql_session *s, const fl_sem_model *m, const fl_sem_receipt *r,
                        fl_sql_result **result, fl_sem_receipt **replayed, fl_error *err)
{
    *result = NULL;
    if (replayed)
        *replayed = NULL;
    if (m && strcmp(m->version, r->version))
        return fl_errorf(err, FL_ECONFLICT,
                         "the model changed since the receipt: receipt %s, "
                         "model %s (replay without the model to run the receipt's SQL)",
                         r->version, m->version);
    FL_TRY(fl_sql_execute(s, r->replay_sql, result, err));
    if (!replayed)
        return FL_OK;
    fl_sem_receipt *n = NULL;
    fl_status rc = new_receipt(r->version, r->sql, &n, err);
    if (rc == FL_OK && !(n->replay_sql = strdup(r->replay_sql)))
        rc = fl_errorf(err, FL_ENOMEM, "out of memory");
    if (rc == FL_OK)
        rc = pins_of(*result, n, err);
    if (rc == FL_OK)
        pins_commit_times(s, n);
    if (rc == FL_OK)
        n->query = json_incref(r->query);
    if (rc != FL_OK) {
        fl_sem_receipt_free(n);
        fl_sql_result_close(*result);
        *result = NULL;
        return rc;
    }
    *replayed = n;
    return FL_OK;
}

const char *fl_sem_receipt_version(const fl_sem_receipt *r)
{
    return r->version;
}
const char *fl_sem_receipt_sql(const fl_sem_receipt *r)
{
    return r->sql;
}
const char *fl_sem_receipt_replay_sql(const fl_sem_receipt *r)
{
    return r->replay_sql;
}
const char *fl_sem_receipt_time(const fl_sem_receipt *r)
{
    return r->time;
}
uint32_t fl_sem_receipt_npins(const fl_sem_receipt *r)
{
    return r->npins;
}

const fl_sem_pin *fl_sem_receipt_pin(const fl_sem_receipt *r, uint32_t i)
{
    return i < r->npins ? &r->pins[i] : NULL;
}

fl_status fl_sem_receipt_to_json(const fl_sem_receipt *r, char **json, fl_error *err)
{
    json_t *o = json_object(), *tables = json_array();
    if (!o || !tables) {
        json_decref(o);
        json_decref(tables);
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    json_object_set_new(o, "floe_receipt", json_integer(1));
    json_object_set_new(o, "model_version", json_string(r->version));
    json_object_set_new(o, "time", json_string(r->time));
    json_object_set(o, "query", r->query ? r->query : json_null());
    for (uint32_t i = 0; i < r->npins; i++) {
        json_t *t = json_object();
        json_object_set_new(t, "table", json_string(r->pins[i].table));
        json_object_set_new(t, "snapshot_id", json_integer(r->pins[i].snapshot_id));
        json_object_set_new(t, "committed_at",
                            r->pins[i].committed_at ? json_string(r->pins[i].committed_at)
                                                    : json_null());
        json_array_append_new(tables, t);
    }
    json_object_set_new(o, "tables", tables);
    json_object_set_new(o, "sql", json_string(r->sql));
    json_object_set_new(o, "replay_sql", json_string(r->replay_sql ? r->replay_sql : ""));
    *json = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(o);
    return *json ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
}

static fl_status take_str(json_t *o, const char *key, char **out, fl_error *err)
{
    const char *s = json_string_value(json_object_get(o, key));
    if (!s)
        return fl_errorf(err, FL_ECORRUPT, "receipt: '%s' is missing or not a string", key);
    *out = strdup(s);
    return *out ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
}

static fl_status take_pins(json_t *o, fl_sem_receipt *r, fl_error *err)
{
    json_t *t = json_object_get(o, "tables");
    if (!json_is_array(t))
        return fl_errorf(err, FL_ECORRUPT, "receipt: 'tables' is missing or not a list");
    r->pins = calloc(json_array_size(t) + 1, sizeof *r->pins);
    if (!r->pins)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (size_t i = 0; i < json_array_size(t); i++) {
        json_t *e = json_array_get(t, i);
        const char *name = json_string_value(json_object_get(e, "table"));
        json_t *sid = json_object_get(e, "snapshot_id");
        if (!name || !json_is_integer(sid))
            return fl_errorf(err, FL_ECORRUPT,
                             "receipt: tables[%zu] needs 'table' and an integer "
                             "'snapshot_id'",
                             i);
        r->pins[r->npins].snapshot_id = json_integer_value(sid);
        const char *at = json_string_value(json_object_get(e, "committed_at"));
        if (at && !(r->pins[r->npins].committed_at = strdup(at)))
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        if (!(r->pins[r->npins++].table = strdup(name)))
            return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    return FL_OK;
}

fl_status fl_sem_receipt_from_json(const char *json, fl_sem_receipt **out, fl_error *err)
{
    *out = NULL;
    json_error_t je;
    json_t *o = json_loads(json, JSON_REJECT_DUPLICATES, &je);
    if (!o)
        return fl_errorf(err, FL_ECORRUPT, "receipt: line %d, column %d: %s", je.line, je.column,
                         je.text);
    fl_sem_receipt *r = calloc(1, sizeof *r);
    fl_status rc = r ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
    if (rc == FL_OK && json_integer_value(json_object_get(o, "floe_receipt")) != 1)
        rc = fl_errorf(err, FL_ECORRUPT, "receipt: not a floe receipt (floe_receipt: 1 missing)");
    if (rc == FL_OK)
        rc = take_str(o, "model_version", &r->version, err);
    if (rc == FL_OK)
        rc = take_str(o, "time", &r->time, err);
    if (rc == FL_OK)
        rc = take_str(o, "sql", &r->sql, err);
    if (rc == FL_OK)
        rc = take_str(o, "replay_sql", &r->replay_sql, err);
    if (rc == FL_OK)
        rc = take_pins(o, r, err);
    if (rc == FL_OK && *r->replay_sql == 0)
        rc = fl_errorf(err, FL_ECORRUPT, "receipt: 'replay_sql' is empty");
    if (rc == FL_OK)
        r->query = json_incref(json_object_get(o, "query"));
    json_decref(o);
    if (rc != FL_OK) {
        fl_sem_receipt_free(r);
        return rc;
    }
    *out = r;
    return FL_OK;
}
