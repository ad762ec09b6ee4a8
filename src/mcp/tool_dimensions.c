/*
 * tool_dimensions.c - get_dimensions and get_entities: the members every
 * one of the given metrics can be grouped by.
 *
 * Reachability is asked of the semantic layer itself, through its public
 * API: a member is listed when fl_sem_compile accepts the metrics grouped
 * by it, so the answer follows the entity graph (many-to-one edges only)
 * exactly as query_metrics will. A dimension of another semantic model is
 * tried as named ("country__continent") and then one entity further
 * ("customer__country__continent"); metric_time is listed when every
 * metric has an aggregation time. Nothing runs; nothing is read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/mcp_internal.h"

static const char *const grains[] = {"day", "week", "month", "quarter", "year"};

/* The metrics compile grouped by member. */
static bool reachable(const fl_sem_model *m, const char *const *metrics, uint32_t n,
                      const char *member)
{
    fl_sem_query q;
    memset(&q, 0, sizeof q);
    q.metrics = metrics;
    q.nmetrics = n;
    q.group_by = &member;
    q.ngroup_by = 1;
    q.limit = -1;
    char *sql = NULL;
    fl_error err = {0};
    bool ok = fl_sem_compile(m, &q, NULL, 0, &sql, &err) == FL_OK;
    free(sql);
    return ok;
}

static bool listed(json_t *arr, const char *name)
{
    size_t i;
    json_t *e;
    json_array_foreach(
        arr, i, e) if (!strcmp(json_string_value(json_object_get(e, "name")), name)) return true;
    return false;
}

static json_t *grains_json(void)
{
    json_t *g = json_array();
    for (size_t i = 0; i < sizeof grains / sizeof grains[0]; i++)
        json_array_append_new(g, json_string(grains[i]));
    return g;
}

/* The name by which the metrics reach dimension mi ("" when they do not). */
static void dimension_path(const fl_sem_model *m, const char *const *metrics, uint32_t n,
                           const fl_sem_member_info *mi, char *out, size_t cap)
{
    snprintf(out, cap, "%s", mi->name);
    if (reachable(m, metrics, n, out))
        return;
    uint32_t nm = fl_sem_model_nmembers(m);
    for (uint32_t i = 0; i < nm; i++) {
        const fl_sem_member_info *e = fl_sem_model_member(m, i);
        if (e->kind != FL_SEM_ENTITY)
            continue;
        snprintf(out, cap, "%s__%s", e->name, mi->name);
        if (reachable(m, metrics, n, out))
            return;
    }
    out[0] = '\0';
}

static json_t *dimensions_of(const fl_sem_model *m, const char *const *metrics, uint32_t n)
{
    json_t *dims = json_array();
    char mt[32];
    snprintf(mt, sizeof mt, "metric_time__%s", grains[0]);
    if (reachable(m, metrics, n, mt))
        json_array_append_new(dims, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:o}", "name",
                                              "metric_time", "type", "time", "description",
                                              "each metric's aggregation time (agg_time_dimension)",
                                              "ai_context", "", "file", "", "semantic_model", "",
                                              "grains", grains_json()));
    uint32_t nm = fl_sem_model_nmembers(m);
    for (uint32_t i = 0; dims && i < nm; i++) {
        const fl_sem_member_info *mi = fl_sem_model_member(m, i);
        char path[512];
        if (mi->kind != FL_SEM_DIMENSION)
            continue;
        dimension_path(m, metrics, n, mi, path, sizeof path);
        if (!path[0] || listed(dims, path))
            continue;
        json_t *d = mcp_member_json(mi);
        json_object_set_new(d, "name", json_string(path));
        json_object_set_new(d, "semantic_model", json_string(mi->model ? mi->model : ""));
        if (mi->type && !strcmp(mi->type, "time"))
            json_object_set_new(d, "grains", grains_json());
        json_array_append_new(dims, d);
    }
    return dims;
}

static json_t *entities_of(const fl_sem_model *m, const char *const *metrics, uint32_t n)
{
    json_t *ents = json_array();
    uint32_t nm = fl_sem_model_nmembers(m);
    for (uint32_t i = 0; ents && i < nm; i++) {
        const fl_sem_member_info *mi = fl_sem_model_member(m, i);
        if (mi->kind != FL_SEM_ENTITY)
            continue;
        json_t *seen = NULL;
        size_t k;
        json_t *e;
        json_array_foreach(ents, k, e) if (!strcmp(json_string_value(json_object_get(e, "name")),
                                                   mi->name)) seen = e;
        if (seen) { /* the same entity in another semantic model */
            json_array_append_new(json_object_get(seen, "semantic_models"),
                                  json_string(mi->model ? mi->model : ""));
            if (!strcmp(mi->type, "primary")) { /* the primary key's definition wins */
                json_object_set_new(seen, "type", json_string(mi->type));
                json_object_set_new(seen, "file", json_string(mi->file ? mi->file : ""));
            }
            continue;
        }
        if (!reachable(m, metrics, n, mi->name))
            continue;
        json_array_append_new(ents, json_pack("{s:s, s:s, s:s, s:[s], s:s}", "name", mi->name,
                                              "type", mi->type, "description",
                                              mi->description ? mi->description : "",
                                              "semantic_models", mi->model ? mi->model : "", "file",
                                              mi->file ? mi->file : ""));
    }
    return ents;
}

static json_t *members_tool(mcp_call *c, json_t *args, const char *tool, bool entities)
{
    const char **names = NULL;
    uint32_t n = 0;
    json_t *answer = NULL;
    if (!mcp_metrics_resolve(c, tool, json_object_get(args, "metrics"), true, &names, &n, &answer))
        return answer;
    const fl_sem_model *m = c->m->opt.model;
    json_t *list = entities ? entities_of(m, names, n) : dimensions_of(m, names, n);
    json_t *mlist = json_array();
    for (uint32_t i = 0; i < n; i++)
        json_array_append_new(mlist, json_string(names[i]));
    free(names);
    if (!list || !mlist) {
        json_decref(list), json_decref(mlist);
        return NULL;
    }
    return mcp_tool_ok(json_pack("{s:b, s:o, s:o, s:o}", "ambiguous", 0, "metrics", mlist,
                                 entities ? "entities" : "dimensions", list, "receipt",
                                 mcp_model_receipt(c)),
                       NULL);
}

json_t *mcp_tool_get_dimensions(mcp_call *c, json_t *args)
{
    return members_tool(c, args, "get_dimensions", false);
}

json_t *mcp_tool_get_entities(mcp_call *c, json_t *args)
{
    return members_tool(c, args, "get_entities", true);
}
