/*
 * h_cube_load.c - /cubejs-api/v1/load: a Cube query run as the token's
 * principal (h_cube.c has the API's rules). The query compiles and runs in
 * one engine session opened with the principal's grants and limits, on the
 * server's confined catalog, while the principal's statement slot is held;
 * rows become Cube's data objects, the receipt is appended.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "floe/admission.h"
#include "floe/catalog.h"
#include "server/h_cube.h"

typedef struct cube_run {
    fl_server_request *r;
    fl_sem_cube_query *q;
    fl_catalog *cat;
    fl_sql_session *sess;
    fl_sql_result *res;
    fl_sem_receipt *receipt;
    fl_sql_formatter *fmt;
    bool multi; /* answer queryType=multi's shape */
    fl_error err;
} cube_run;

static int status_of(const cube_run *c)
{
    if (!strcmp(c->err.sqlstate, "42501"))
        return 403;
    switch (c->err.code) {
    case FL_ENOMEM:
    case FL_EIO: return 500;
    case FL_ECANCELED: return 409;
    default: return 400;
    }
}

/* lim: the principal's session limits (srv_sql_limits) */
static fl_status open_session(cube_run *c, const fl_principal *who, const fl_sql_options *lim)
{
    fl_server *s = c->r->srv;
    FL_TRY(fl_catalog_open_uri(s->catalog_uri, s->catalog_name, s->warehouse, s->io, &c->cat,
                               &c->err));
    srv_confine(s, c->cat); /* the semantic layer's SQL is confined as /v1/sql is */
    fl_sql_options o = *lim;
    o.catalog = c->cat;
    o.io = s->io;
    o.cache = s->opt.sql_cache;
    o.queue = s->opt.sql_queue;
    o.user = who->name;
    o.auth = who->anonymous ? NULL : s->auth; /* --insecure-no-auth: development only */
    o.principal = who;
    FL_TRY(fl_sql_session_open(&o, &c->sess, &c->err));
    /* SET TimeZone checks the name (an unknown zone is an error, 22023) */
    return fl_sql_set(c->sess, "TimeZone", fl_sem_cube_timezone(c->q), &c->err);
}

/* "2024-01-01" -> "2024-01-01T00:00:00.000"; "2024-01-01 10:11:12.5" -> "...T10:11:12.500". */
static void cube_time(const char *v, char *out, size_t cap)
{
    char frac[4] = "000";
    const char *dot = strchr(v, '.');
    for (int i = 0; dot && i < 3 && dot[1 + i] >= '0' && dot[1 + i] <= '9'; i++)
        frac[i] = dot[1 + i];
    if (strlen(v) >= 19)
        snprintf(out, cap, "%.10sT%.8s.%s", v, v + 11, frac);
    else
        snprintf(out, cap, "%.10sT00:00:00.000", v);
}

static fl_status add_rows(cube_run *c, const fl_batch *b, const int32_t *idx, int64_t *skip,
                          json_t *data)
{
    uint32_t ncols = fl_sem_cube_ncolumns(c->q);
    for (uint32_t row = 0; row < b->nrows; row++) {
        if (*skip > 0) {
            (*skip)--;
            continue;
        }
        json_t *obj = json_object();
        if (!obj || json_array_append_new(data, obj))
            return fl_errorf(&c->err, FL_ENOMEM, "out of memory");
        for (uint32_t k = 0; k < ncols; k++) {
            const fl_sem_cube_column *col = fl_sem_cube_column_at(c->q, k);
            const fl_vector *v = &b->cols[idx[k]];
            fl_unified u;
            fl_vector_unify(v, &u);
            json_t *val = json_null();
            if (fl_unified_is_valid(&u, row)) {
                char text[512], t[64];
                fl_sql_formatter_value(c->fmt, v, row, text, sizeof text);
                if (col->kind == FL_SEM_CUBE_TIME)
                    cube_time(text, t, sizeof t);
                val = json_string(col->kind == FL_SEM_CUBE_TIME ? t : text);
            }
            json_object_set(obj, col->key, val);
            if (col->alias)
                json_object_set(obj, col->alias, val);
            json_decref(val);
        }
    }
    return FL_OK;
}

static fl_status read_rows(cube_run *c, json_t *data)
{
    const fl_schema *sc = fl_sql_result_schema(c->res);
    uint32_t ncols = fl_sem_cube_ncolumns(c->q);
    int32_t idx[128];
    for (uint32_t k = 0; k < ncols && k < 128; k++) {
        idx[k] = -1;
        for (uint32_t f = 0; f < sc->nfields; f++)
            if (!strcmp(sc->fields[f].name, fl_sem_cube_column_at(c->q, k)->column))
                idx[k] = (int32_t)f;
        if (idx[k] < 0)
            return fl_errorf(&c->err, FL_EINVAL, "the answer has no column '%s'",
                             fl_sem_cube_column_at(c->q, k)->column);
    }
    FL_TRY(fl_sql_formatter_new("UTC", &c->fmt, &c->err));
    int64_t skip = fl_sem_cube_offset(c->q);
    for (;;) {
        const fl_batch *b = NULL;
        bool eof = false;
        FL_TRY(fl_sql_result_next(c->res, &b, &eof, &c->err));
        if (eof)
            return FL_OK;
        FL_TRY(add_rows(c, b, idx, &skip, data));
    }
}

/* queryType=multi: {"queryType", "results": [answer], "pivotQuery"}, what
 * Cube's clients read. */
static json_t *multi(const cube_run *c, json_t *one)
{
    json_t *pivot = json_loads(fl_sem_cube_query_json(c->q), 0, NULL);
    if (pivot)
        json_object_set_new(pivot, "queryType", json_string("regularQuery"));
    return json_pack("{s:s, s:[o], s:o?, s:b}", "queryType", "regularQuery", "results", one,
                     "pivotQuery", pivot, "slowQuery", 0);
}

static json_t *answer(cube_run *c, json_t *data)
{
    char *receipt = NULL;
    fl_error rerr = {0};
    fl_sem_receipt_to_json(c->receipt, &receipt, &rerr);
    json_t *j = json_pack("{s:o?, s:o, s:o?, s:s, s:s, s:o?}", "query",
                          json_loads(fl_sem_cube_query_json(c->q), 0, NULL), "data", data,
                          "annotation", json_loads(fl_sem_cube_annotation_json(c->q), 0, NULL),
                          "lastRefreshTime", fl_sem_receipt_time(c->receipt), "dbType", "floe",
                          "receipt", receipt ? json_loads(receipt, 0, NULL) : NULL);
    free(receipt);
    if (j && fl_sem_cube_wants_total(c->q))
        json_object_set_new(j, "total", json_integer((json_int_t)json_array_size(data)));
    return j;
}

static void run(cube_run *c)
{
    const fl_principal *who = &c->r->principal;
    fl_server *s = c->r->srv;
    uint32_t max = 0;
    fl_sql_options lim = {0};
    if (srv_sql_limits(s, who, &lim, &max, &c->err) != FL_OK ||
        fl_admission_enter(s->admission, FL_ADMIT_STATEMENT, who->name, max, &c->err) != FL_OK) {
        fl_server_response_header(c->r, "Retry-After", "1");
        srv_cube_error(c->r, 429, c->err.msg);
        return;
    }
    json_t *data = json_array();
    fl_status rc =
        data ? open_session(c, who, &lim) : fl_errorf(&c->err, FL_ENOMEM, "out of memory");
    if (rc == FL_OK)
        rc = fl_sem_execute(c->sess, s->opt.mcp_model, fl_sem_cube_query_sem(c->q), &c->res,
                            &c->receipt, &c->err);
    if (rc == FL_OK)
        rc = read_rows(c, data);
    fl_admission_leave(s->admission, FL_ADMIT_STATEMENT, who->name);
    if (rc != FL_OK) {
        json_decref(data);
        srv_cube_error(c->r, status_of(c), c->err.msg);
        return;
    }
    json_t *one = answer(c, data);
    srv_respond_json(c->r, 200, one && c->multi ? multi(c, one) : one);
}

void srv_cube_load(fl_server_request *r, void *ctx)
{
    (void)ctx;
    if (!srv_cube_auth(r))
        return;
    cube_run c = {.r = r};
    c.q = srv_cube_parse(r, &c.multi);
    if (!c.q)
        return;
    run(&c);
    fl_sql_formatter_free(c.fmt);
    fl_sql_result_close(c.res);
    fl_sem_receipt_free(c.receipt);
    fl_sql_session_close(c.sess);
    fl_catalog_close(c.cat);
    fl_sem_cube_free(c.q);
}
