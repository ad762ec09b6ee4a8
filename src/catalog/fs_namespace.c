/*
 * fs_namespace.c - namespaces of the filesystem catalog: directories. A
 * namespace exists when its directory holds any object or the
 * .floe-namespace.json marker that create_namespace writes; the marker holds
 * the properties as a JSON object of strings. Property updates rewrite it
 * (last writer wins; no compare-and-swap). Dropping requires no tables and
 * no child namespaces (FL_ECONFLICT) and removes the marker.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "catalog/fs_internal.h"

static fl_status props_to_json(const fl_ice_map *m, char **out, fl_error *err)
{
    json_t *o = json_object();
    for (uint32_t i = 0; o && m && i < m->n; i++)
        json_object_set_new(o, m->items[i].key, json_string(m->items[i].value));
    *out = o ? json_dumps(o, JSON_SORT_KEYS | JSON_INDENT(2)) : NULL;
    json_decref(o);
    return *out ? FL_OK : fs_oom(err);
}

static fl_status write_marker(fs_catalog *c, const char *dir, const fl_ice_map *m, int flags,
                              fl_arena *a, fl_error *err)
{
    const char *p = fl_arena_sprintf(a, "%s/" NS_MARKER, dir);
    char *js;
    if (!p)
        return fs_oom(err);
    FL_TRY(props_to_json(m, &js, err));
    fl_status rc = fs_write_all(c->base.io, p, flags, js, strlen(js), err);
    free(js);
    return rc;
}

/* Properties from the marker (none when it is absent). */
static fl_status read_marker(fs_catalog *c, const char *dir, fl_arena *a, fl_ice_map *m,
                             fl_error *err)
{
    const char *p = fl_arena_sprintf(a, "%s/" NS_MARKER, dir);
    char *buf;
    size_t len;
    m->n = 0;
    m->items = NULL;
    if (!p)
        return fs_oom(err);
    fl_status rc = fs_read_all(c->base.io, p, MAX_SMALL_FILE, a, &buf, &len, err);
    if (rc == FL_ENOTFOUND) {
        fl_error_clear(err);
        return FL_OK;
    }
    FL_TRY(rc);
    json_error_t je;
    json_t *o = json_loadb(buf, len, 0, &je);
    if (!json_is_object(o)) {
        json_decref(o);
        return fl_errorf(err, FL_ECORRUPT, "%s: not a JSON object of strings", p);
    }
    m->items = fl_arena_alloc(a, (json_object_size(o) + 1) * sizeof *m->items);
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v)
    {
        if (!m->items || !json_is_string(v))
            continue;
        m->items[m->n].key = fl_arena_strdup(a, k);
        m->items[m->n++].value = fl_arena_strdup(a, json_string_value(v));
    }
    json_decref(o);
    return m->items ? FL_OK : fs_oom(err);
}

fl_status fs_create_namespace(fl_catalog *cat, const fl_namespace *ns, const fl_ice_map *props,
                              fl_error *err)
{
    fs_catalog *c = FS(cat);
    if (ns->nlevels == 0)
        return fl_errorf(err, FL_EINVAL, "create namespace: empty namespace");
    fl_arena a;
    fl_arena_init(&a, 0);
    const char *dir;
    fl_status rc = fs_ns_dir_checked(c, ns, false, &a, &dir, err);
    if (rc == FL_OK) {
        rc = write_marker(c, dir, props, 0, &a, err);
        if (rc == FL_EEXIST)
            rc = fl_errorf(err, FL_EEXIST, "namespace %s already exists", dir);
    }
    fl_arena_free(&a);
    return rc;
}

fl_status fs_list_namespaces(fl_catalog *cat, const fl_namespace *parent, fl_arena *a,
                             fl_namespace **out, uint32_t *n, fl_error *err)
{
    fs_catalog *c = FS(cat);
    fl_namespace root = {0, NULL};
    if (!parent)
        parent = &root;
    const char *dir;
    FL_TRY(fs_ns_dir_checked(c, parent, true, a, &dir, err));
    rel_list l;
    FL_TRY(fs_list_under(c, dir, false, a, &l, err));
    const char **names;
    uint32_t k;
    FL_TRY(fs_first_components(&l, false, a, &names, &k, err));
    fl_namespace *res = fl_arena_alloc(a, (k + 1) * sizeof *res);
    if (!res)
        return fs_oom(err);
    for (uint32_t i = 0; i < k; i++) {
        const char **lv = fl_arena_alloc(a, (parent->nlevels + 1) * sizeof *lv);
        if (!lv)
            return fs_oom(err);
        for (uint32_t j = 0; j < parent->nlevels; j++)
            lv[j] = parent->levels[j];
        lv[parent->nlevels] = names[i];
        res[i] = (fl_namespace){parent->nlevels + 1, lv};
    }
    *out = res;
    *n = k;
    return FL_OK;
}

fl_status fs_load_namespace(fl_catalog *cat, const fl_namespace *ns, fl_arena *a, fl_ice_map *props,
                            fl_error *err)
{
    fs_catalog *c = FS(cat);
    const char *dir;
    FL_TRY(fs_ns_dir_checked(c, ns, true, a, &dir, err));
    return read_marker(c, dir, a, props, err);
}

static fl_status update_marker(fs_catalog *c, const fl_namespace *ns, const fl_ice_map *set,
                               const char *const *remove, uint32_t nremove, fl_arena *a,
                               fl_error *err)
{
    const char *dir;
    FL_TRY(fs_ns_dir_checked(c, ns, true, a, &dir, err));
    fl_ice_map m;
    FL_TRY(read_marker(c, dir, a, &m, err));
    uint32_t cap = m.n + (set ? set->n : 0) + 1;
    fl_ice_kv *items = fl_arena_alloc(a, cap * sizeof *items);
    if (!items)
        return fs_oom(err);
    uint32_t n = 0;
    for (uint32_t i = 0; i < m.n; i++) {
        bool drop = fl_ice_map_get(set, m.items[i].key) != NULL;
        for (uint32_t j = 0; j < nremove && !drop; j++)
            drop = strcmp(remove[j], m.items[i].key) == 0;
        if (!drop)
            items[n++] = m.items[i];
    }
    for (uint32_t i = 0; set && i < set->n; i++)
        items[n++] = set->items[i];
    fl_ice_map out = {n, items};
    return write_marker(c, dir, &out, FL_CREATE_OVERWRITE, a, err);
}

fl_status fs_update_namespace(fl_catalog *cat, const fl_namespace *ns, const fl_ice_map *set,
                              const char *const *remove, uint32_t nremove, fl_error *err)
{
    if (ns->nlevels == 0)
        return fl_errorf(err, FL_EINVAL, "update namespace: the root has no properties");
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_status rc = update_marker(FS(cat), ns, set, remove, nremove, &a, err);
    fl_arena_free(&a);
    return rc;
}

static fl_status drop_ns(fs_catalog *c, const fl_namespace *ns, fl_arena *a, fl_error *err)
{
    const char *dir;
    FL_TRY(fs_ns_dir_checked(c, ns, true, a, &dir, err));
    rel_list l;
    FL_TRY(fs_list_under(c, dir, false, a, &l, err));
    const char **names;
    uint32_t k;
    FL_TRY(fs_first_components(&l, true, a, &names, &k, err));
    if (k)
        return fl_errorf(err, FL_ECONFLICT, "namespace %s is not empty: %u table(s)", dir, k);
    FL_TRY(fs_first_components(&l, false, a, &names, &k, err));
    if (k)
        return fl_errorf(err, FL_ECONFLICT, "namespace %s is not empty: %u child namespace(s)", dir,
                         k);
    const char *p = fl_arena_sprintf(a, "%s/" NS_MARKER, dir);
    if (!p)
        return fs_oom(err);
    fl_status rc = fl_fileio_remove(c->base.io, p, err);
    if (rc == FL_ENOTFOUND) {
        fl_error_clear(err);
        return FL_OK;
    }
    return rc;
}

fl_status fs_drop_namespace(fl_catalog *cat, const fl_namespace *ns, fl_error *err)
{
    if (ns->nlevels == 0)
        return fl_errorf(err, FL_EINVAL, "drop namespace: the root cannot be dropped");
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_status rc = drop_ns(FS(cat), ns, &a, err);
    fl_arena_free(&a);
    return rc;
}

fl_status fs_list_tables(fl_catalog *cat, const fl_namespace *ns, fl_arena *a, const char ***names,
                         uint32_t *n, fl_error *err)
{
    fs_catalog *c = FS(cat);
    const char *dir;
    FL_TRY(fs_ns_dir_checked(c, ns, true, a, &dir, err));
    rel_list l;
    FL_TRY(fs_list_under(c, dir, false, a, &l, err));
    return fs_first_components(&l, true, a, names, n, err);
}
