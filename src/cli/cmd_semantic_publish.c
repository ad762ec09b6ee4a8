/*
 * cmd_semantic_publish.c - `floe semantic publish`: the semantic model as
 * SQL views, for BI tools that speak SQL and know nothing of metrics
 * (Superset, Tableau, Metabase over the Postgres wire port).
 *
 * Into one namespace (default "semantic") it writes, with CREATE OR REPLACE
 * VIEW through the engine (so the views are Iceberg views every engine of
 * the catalog can read):
 *   - one view per saved query (saved_queries:), named after it;
 *   - one view per metric at the month grain, <metric>_by_month, with the
 *     columns metric_time__month and the metric, where the metric has a
 *     time dimension (a metric that cannot be grouped by month is skipped
 *     and said so).
 * Each view's SQL is the model's compiled SQL, so a BI tool's
 * SUM(net_revenue) per month over a view is the certified number. The views
 * resolve table names in the session's namespace (-n, default "default").
 * Re-running replaces the views with the model's current SQL.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd_semantic.h"
#include "cli/cmd_table_write.h"
#include "floe/sql.h"

static fl_status exec_sql(fl_sql_session *s, const char *sql, fl_error *err)
{
    fl_sql_result *r = NULL;
    fl_status rc = fl_sql_execute(s, sql, &r, err);
    fl_sql_result_close(r);
    return rc;
}

/* CREATE OR REPLACE VIEW into.name AS sql */
static fl_status create_view(fl_sql_session *s, const char *into, const char *name, const char *sql,
                             fl_error *err)
{
    char *ddl = NULL;
    if (asprintf(&ddl, "CREATE OR REPLACE VIEW \"%s\".\"%s\" AS %s", into, name, sql) < 0)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_status rc = exec_sql(s, ddl, err);
    free(ddl);
    if (rc != FL_OK)
        fl_error_prefix(err, "view %s.%s", into, name);
    return rc;
}

static fl_status publish_saved(fl_sql_session *s, const fl_sem_model *m, const char *into,
                               const char *name, fl_error *err)
{
    fl_sem_query q;
    char *sql = NULL;
    FL_TRY(fl_sem_saved_query(m, name, &q, err));
    FL_TRY(fl_sem_compile(m, &q, NULL, 0, &sql, err));
    fl_status rc = create_view(s, into, name, sql, err);
    free(sql);
    if (rc == FL_OK)
        printf("view %s.%s: saved query\n", into, name);
    return rc;
}

/* <metric>_by_month; *skipped when the metric has no month grain */
static fl_status publish_metric(fl_sql_session *s, const fl_sem_model *m, const char *into,
                                const char *metric, bool *skipped, fl_error *err)
{
    const char *metrics[1] = {metric}, *group_by[1] = {"metric_time__month"},
               *order_by[1] = {"metric_time__month"};
    fl_sem_query q = {.metrics = metrics,
                      .nmetrics = 1,
                      .group_by = group_by,
                      .ngroup_by = 1,
                      .order_by = order_by,
                      .norder_by = 1,
                      .limit = -1};
    char *sql = NULL, name[256];
    fl_error cerr = {0};
    *skipped = false;
    if (fl_sem_compile(m, &q, NULL, 0, &sql, &cerr) != FL_OK) {
        printf("skipped %s: %s\n", metric, cerr.msg);
        *skipped = true;
        return FL_OK;
    }
    snprintf(name, sizeof name, "%s_by_month", metric);
    fl_status rc = create_view(s, into, name, sql, err);
    free(sql);
    if (rc == FL_OK)
        printf("view %s.%s: %s by metric_time__month\n", into, name, metric);
    return rc;
}

static fl_status publish_all(fl_sql_session *s, const fl_sem_model *m, const char *into,
                             uint32_t *nviews, fl_error *err)
{
    char *ddl = NULL;
    if (asprintf(&ddl, "CREATE SCHEMA IF NOT EXISTS \"%s\"", into) < 0)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_status rc = exec_sql(s, ddl, err);
    free(ddl);
    for (uint32_t i = 0; rc == FL_OK && i < fl_sem_model_nmembers(m); i++) {
        const fl_sem_member_info *mi = fl_sem_model_member(m, i);
        bool skipped = false;
        if (mi->kind == FL_SEM_SAVED_QUERY)
            rc = publish_saved(s, m, into, mi->name, err);
        else if (mi->kind == FL_SEM_METRIC)
            rc = publish_metric(s, m, into, mi->name, &skipped, err);
        else
            continue;
        if (rc == FL_OK && !skipped)
            (*nviews)++;
    }
    return rc;
}

int fl_cli_semantic_publish(const fl_sem_model *m, const char *catalog, const char *warehouse,
                            const char *ns, const char *into)
{
    fl_error err = {0};
    fl_cli_catalog cat = {0};
    fl_sql_session *s = NULL;
    uint32_t nviews = 0;
    fl_status rc = fl_cli_catalog_open(catalog, warehouse, &cat, &err);
    if (rc == FL_OK) {
        fl_sql_options opt = {
            .catalog = cat.cat, .io = cat.io, .warehouse = cat.warehouse, .default_namespace = ns};
        rc = fl_sql_session_open(&opt, &s, &err);
    }
    if (rc == FL_OK)
        rc = publish_all(s, m, into ? into : "semantic", &nviews, &err);
    fl_sql_session_close(s);
    if (cat.cat || cat.io)
        fl_cli_catalog_close(&cat);
    if (rc != FL_OK) {
        fprintf(stderr, "floe semantic publish: %s\n", err.msg);
        return 1;
    }
    printf("%u views in %s (model %s)\n", nviews, into ? into : "semantic",
           fl_sem_model_version(m));
    return 0;
}
