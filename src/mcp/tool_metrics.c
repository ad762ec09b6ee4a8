/*
 * tool_metrics.c - list_metrics and the metric names every metric tool
 * takes: exact names are used as given; a name that is not exact but
 * matches metrics (name, description or ai_context contain it, case
 * insensitive, spaces matching underscores) is answered with the
 * candidates and their descriptions (isError false, ambiguous true),
 * never a guess; a name that matches nothing is a tool error naming it.
 *
 * The model is options.model (borrowed, read-only); the strings returned
 * point into it.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/mcp_internal.h"

/* hay contains needle, ignoring case; ' ' in needle also matches '_'. */
static bool contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    if (!n)
        return true;
    for (const char *h = hay; h && *h; h++) {
        size_t k = 0;
        while (k < n && h[k]) {
            char a = (char)tolower((unsigned char)h[k]),
                 b = (char)tolower((unsigned char)needle[k]);
            if (a != b && !(b == ' ' && a == '_'))
                break;
            k++;
        }
        if (k == n)
            return true;
    }
    return false;
}

static bool metric_matches(const fl_sem_member_info *mi, const char *term)
{
    return contains_ci(mi->name, term) || contains_ci(mi->description, term) ||
           contains_ci(mi->ai_context, term);
}

json_t *mcp_member_json(const fl_sem_member_info *mi)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:s}", "name", mi->name, "type",
                     mi->type ? mi->type : "", "description",
                     mi->description ? mi->description : "", "ai_context",
                     mi->ai_context ? mi->ai_context : "", "file", mi->file ? mi->file : "");
}

json_t *mcp_model_receipt(const mcp_call *c)
{
    json_t *none = json_array();
    json_t *r = mcp_receipt(c, none);
    json_decref(none);
    if (r)
        json_object_set_new(r, "model_version", json_string(fl_sem_model_version(c->m->opt.model)));
    return r;
}

bool mcp_string_list(const char *tool, const char *arg, json_t *list, const char ***out,
                     uint32_t *n, json_t **answer)
{
    *out = NULL;
    *n = 0;
    size_t len = json_array_size(list);
    *out = calloc(len ? len : 1, sizeof **out);
    if (!*out) {
        *answer = NULL;
        return false;
    }
    for (size_t i = 0; i < len; i++) {
        const char *v = json_string_value(json_array_get(list, i));
        if (!v) {
            free(*out);
            *out = NULL;
            *answer = mcp_tool_fail("%s: %s[%zu] must be a string", tool, arg, i);
            return false;
        }
        (*out)[(*n)++] = v;
    }
    return true;
}

static const fl_sem_member_info *metric_exact(const fl_sem_model *m, const char *name)
{
    uint32_t n = fl_sem_model_nmembers(m);
    for (uint32_t i = 0; i < n; i++) {
        const fl_sem_member_info *mi = fl_sem_model_member(m, i);
        if (mi->kind == FL_SEM_METRIC && !strcmp(mi->name, name))
            return mi;
    }
    return NULL;
}

static json_t *matches_of(const fl_sem_model *m, const char *term)
{
    json_t *arr = json_array();
    uint32_t n = fl_sem_model_nmembers(m);
    for (uint32_t i = 0; arr && i < n; i++) {
        const fl_sem_member_info *mi = fl_sem_model_member(m, i);
        if (mi->kind == FL_SEM_METRIC && metric_matches(mi, term))
            json_array_append_new(arr, mcp_member_json(mi));
    }
    return arr;
}

bool mcp_metrics_resolve(mcp_call *c, const char *tool, json_t *list, bool required,
                         const char ***names, uint32_t *n, json_t **answer)
{
    const fl_sem_model *m = c->m->opt.model;
    *answer = NULL;
    if (!mcp_string_list(tool, "metrics", list, names, n, answer))
        return false;
    if (required && !*n) {
        free(*names);
        *names = NULL;
        *answer = mcp_tool_fail("%s: argument \"metrics\" needs at least one metric (list_metrics "
                                "lists them)",
                                tool);
        return false;
    }
    json_t *cands = json_array();
    for (uint32_t i = 0; i < *n; i++) {
        if (metric_exact(m, (*names)[i]))
            continue;
        json_t *found = matches_of(m, (*names)[i]);
        const char *chosen = mcp_elicited_metric(c, (*names)[i], found);
        if (chosen) { /* the user chose one of the candidates (2026-07-28 elicitation) */
            (*names)[i] = chosen;
            json_decref(found);
            continue;
        }
        if (!json_array_size(found)) {
            json_decref(found);
            json_decref(cands);
            *answer = mcp_tool_fail("%s: unknown metric '%s' (list_metrics lists the %s)", tool,
                                    (*names)[i], "metrics of the model");
            free(*names);
            *names = NULL;
            return false;
        }
        json_array_append_new(cands,
                              json_pack("{s:s, s:o}", "asked", (*names)[i], "matches", found));
    }
    if (!json_array_size(cands)) {
        json_decref(cands);
        return true;
    }
    if (c->can_elicit) { /* ask the user instead (elicit.c) */
        *answer = mcp_elicit_metrics(c, cands);
        json_decref(cands);
        free(*names);
        *names = NULL;
        return false;
    }
    char msg[512];
    snprintf(msg, sizeof msg,
             "'%s' is not a metric's name but matches %zu metrics: choose one and ask again",
             json_string_value(json_object_get(json_array_get(cands, 0), "asked")),
             json_array_size(json_object_get(json_array_get(cands, 0), "matches")));
    *answer = mcp_tool_ok(json_pack("{s:b, s:o, s:s, s:o}", "ambiguous", 1, "candidates", cands,
                                    "message", msg, "receipt", mcp_model_receipt(c)),
                          NULL);
    free(*names);
    *names = NULL;
    return false;
}

json_t *mcp_tool_list_metrics(mcp_call *c, json_t *args)
{
    const fl_sem_model *m = c->m->opt.model;
    const char *search = json_string_value(json_object_get(args, "search"));
    json_t *mi_arg = json_object_get(args, "max_items"), *mb = json_object_get(args, "max_bytes");
    size_t max_items = mi_arg ? (size_t)json_integer_value(mi_arg) : 1000;
    size_t max_bytes = mb ? (size_t)json_integer_value(mb) : 16000;
    json_t *list = json_array();
    size_t bytes = 0, matched = 0;
    bool truncated = false;
    uint32_t n = fl_sem_model_nmembers(m);
    for (uint32_t i = 0; list && i < n; i++) {
        const fl_sem_member_info *mi = fl_sem_model_member(m, i);
        if (mi->kind != FL_SEM_METRIC || (search && !metric_matches(mi, search)))
            continue;
        matched++;
        if (truncated)
            continue;
        json_t *e = mcp_member_json(mi);
        char *t = json_dumps(e, JSON_COMPACT);
        size_t sz = t ? strlen(t) + 1 : 0;
        free(t);
        if (json_array_size(list) >= max_items || bytes + sz > max_bytes) {
            truncated = true;
            json_decref(e);
            continue;
        }
        bytes += sz;
        json_array_append_new(list, e);
    }
    if (!list)
        return NULL;
    json_t *saved = json_array();
    for (uint32_t i = 0; saved && i < n; i++) {
        const fl_sem_member_info *mi = fl_sem_model_member(m, i);
        if (mi->kind == FL_SEM_SAVED_QUERY)
            json_array_append_new(saved,
                                  json_pack("{s:s, s:s, s:s}", "name", mi->name, "description",
                                            mi->description ? mi->description : "", "file",
                                            mi->file ? mi->file : ""));
    }
    size_t count = json_array_size(list);
    return mcp_tool_ok(json_pack("{s:o, s:o, s:I, s:I, s:b, s:s, s:o}", "metrics", list,
                                 "saved_queries", saved, "count", (json_int_t)count, "matched",
                                 (json_int_t)matched, "truncated", truncated, "model_version",
                                 fl_sem_model_version(m), "receipt", mcp_model_receipt(c)),
                       NULL);
}
