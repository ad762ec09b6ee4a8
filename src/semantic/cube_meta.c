/*
 * cube_meta.c - /cubejs-api/v1/meta for a model (sem_cube.h): one view
 * "metrics" whose measures are the model's metrics and whose dimensions are
 * its dimensions plus metric_time, with Cube's titles and types; and the
 * member lookups cube_query.c shares.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "semantic/cube.h"

const fl_sem_member_info *sem_cube_member(const fl_sem_model *m, fl_sem_member_kind kind,
                                          const char *name)
{
    for (uint32_t i = 0; i < fl_sem_model_nmembers(m); i++) {
        const fl_sem_member_info *mi = fl_sem_model_member(m, i);
        if (mi->kind == kind && !strcmp(mi->name, name))
            return mi;
    }
    return NULL;
}

void sem_cube_title(const char *name, char *buf, size_t cap)
{
    size_t o = 0;
    bool word_start = true;
    for (const char *p = name; *p && o + 2 < cap; p++) {
        if (*p == '_') {
            if (o && buf[o - 1] != ' ')
                buf[o++] = ' ';
            word_start = true;
            continue;
        }
        buf[o++] = word_start ? (char)toupper((unsigned char)*p) : *p;
        word_start = false;
    }
    while (o && buf[o - 1] == ' ')
        o--;
    buf[o] = 0;
}

bool sem_cube_is_time(const fl_sem_model *m, const char *name)
{
    if (!strcmp(name, "metric_time"))
        return true;
    const fl_sem_member_info *d = sem_cube_member(m, FL_SEM_DIMENSION, name);
    return d && d->type && !strcmp(d->type, "time");
}

static json_t *member_json(const char *name, const char *type, const char *description)
{
    char key[512], title[256], full[300];
    snprintf(key, sizeof key, "%s.%s", FL_SEM_CUBE_NAME, name);
    sem_cube_title(name, title, sizeof title);
    snprintf(full, sizeof full, "Metrics %s", title);
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:b}", "name", key, "title", full, "shortTitle",
                     title, "type", type, "description", description ? description : "",
                     "isVisible", 1);
}

static bool add_members(const fl_sem_model *m, json_t *measures, json_t *dims)
{
    json_t *t = member_json("metric_time", "time",
                            "The metrics' time axis (each metric's own "
                            "aggregation time dimension)");
    if (!t || json_array_append_new(dims, t))
        return false;
    for (uint32_t i = 0; i < fl_sem_model_nmembers(m); i++) {
        const fl_sem_member_info *mi = fl_sem_model_member(m, i);
        json_t *j = NULL;
        if (mi->kind == FL_SEM_METRIC) {
            j = member_json(mi->name, "number", mi->description);
            if (j) {
                json_object_set_new(j, "aggType", json_string("number"));
                json_object_set_new(j, "cumulative",
                                    json_boolean(mi->type && !strcmp(mi->type, "cumulative")));
            }
            if (!j || json_array_append_new(measures, j))
                return false;
        } else if (mi->kind == FL_SEM_DIMENSION) {
            bool time = mi->type && !strcmp(mi->type, "time");
            j = member_json(mi->name, time ? "time" : "string", mi->description);
            if (!j || json_array_append_new(dims, j))
                return false;
        }
    }
    return true;
}

fl_status fl_sem_cube_meta_json(const fl_sem_model *m, char **json, fl_error *err)
{
    *json = NULL;
    json_t *measures = json_array(), *dims = json_array();
    json_t *view = json_pack("{s:s, s:s, s:s, s:o, s:o, s:[], s:b, s:s}", "name", FL_SEM_CUBE_NAME,
                             "title", "Metrics", "type", "view", "measures", measures, "dimensions",
                             dims, "segments", "public", 1, "description", fl_sem_model_version(m));
    json_t *root = view ? json_pack("{s:[o]}", "cubes", view) : NULL;
    bool ok = root && add_members(m, measures, dims);
    if (ok)
        *json = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(root); /* json_pack's "o" stole view (also on failure) */
    if (!*json)
        return fl_errorf(err, FL_ENOMEM, "cube meta: out of memory");
    return FL_OK;
}
