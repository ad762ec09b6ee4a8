/*
 * view.c - Iceberg view metadata JSON <-> fl_ice_view_metadata
 * (format/view-spec.md "View Metadata", "Versions", "Representations",
 * "Version log").
 *
 * Parsing reuses the path-aware jansson accessors of the table metadata
 * parser (ice_internal.h) and its schema reader; messages are re-prefixed
 * "view metadata: ...". Required: view-uuid, format-version (must be 1),
 * location, schemas, current-version-id (must name a version), versions,
 * version-log; each version: version-id, schema-id (must name a schema),
 * timestamp-ms, summary, representations, default-namespace. A
 * representation of a type other than "sql" is kept as raw JSON and
 * written back unchanged.
 *
 * Writing follows Java's ViewMetadataParser key order: view-uuid,
 * format-version, location, properties, schemas, current-version-id,
 * versions, version-log.
 */
#include <stdlib.h>
#include <string.h>

#include "floe/ice_view.h"
#include "iceberg/ice_internal.h"

static fl_status reprefix(fl_status rc, fl_error *err)
{
    const char *p = "table metadata: ";
    size_t n = strlen(p);
    if (rc != FL_OK && err && !strncmp(err->msg, p, n)) {
        char tmp[FL_ERROR_MSG_MAX];
        snprintf(tmp, sizeof tmp, "view metadata: %s", err->msg + n);
        snprintf(err->msg, sizeof err->msg, "%s", tmp);
    }
    return rc;
}

static fl_status parse_repr(ice_ctx *c, json_t *o, const char *p, fl_ice_view_representation *r)
{
    FL_TRY(ice_get_str(c, o, p, "type", true, &r->type));
    if (!strcmp(r->type, "sql")) {
        FL_TRY(ice_get_str(c, o, p, "sql", true, &r->sql));
        return ice_get_str(c, o, p, "dialect", true, &r->dialect);
    }
    char *raw = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (!raw)
        return fl_errorf(c->err, FL_ENOMEM, "view metadata: out of memory");
    r->raw = fl_arena_strdup(c->a, raw);
    free(raw);
    return r->raw ? FL_OK : fl_errorf(c->err, FL_ENOMEM, "view metadata: out of memory");
}

fl_status ice_parse_view_version(ice_ctx *c, json_t *o, const char *p, fl_ice_view_version *v)
{
    bool present;
    FL_TRY(ice_get_i32(c, o, p, "version-id", true, NULL, &v->version_id));
    FL_TRY(ice_get_i32(c, o, p, "schema-id", true, NULL, &v->schema_id));
    FL_TRY(ice_get_i64(c, o, p, "timestamp-ms", true, NULL, &v->timestamp_ms));
    FL_TRY(ice_get_map(c, o, p, "summary", true, &present, &v->summary));
    FL_TRY(ice_get_str(c, o, p, "default-catalog", false, &v->default_catalog));
    json_t *reps, *ns;
    FL_TRY(ice_get_array(c, o, p, "representations", true, &reps));
    FL_TRY(ice_get_array(c, o, p, "default-namespace", true, &ns));
    size_t n = json_array_size(reps);
    v->representations = ice_alloc_array(c, n, sizeof *v->representations);
    if (!v->representations)
        return FL_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        json_t *ro;
        FL_TRY(ice_array_object(c, reps, i, p, "representations", &ro));
        const char *rp = ice_path_idx(c, p, "representations", i);
        if (!rp)
            return FL_ENOMEM;
        FL_TRY(parse_repr(c, ro, rp, &v->representations[i]));
        for (size_t k = 0; k < i; k++) {
            const fl_ice_view_representation *a = &v->representations[k], *b = &v->representations[i];
            if (a->dialect && b->dialect && !strcasecmp(a->dialect, b->dialect))
                return ice_fail(c, rp, "dialect", "Invalid view version: Cannot add multiple queries for dialect %s",
                                b->dialect);
        }
    }
    v->nrepresentations = (uint32_t)n;
    size_t nn = json_array_size(ns);
    v->default_namespace = ice_alloc_array(c, nn, sizeof *v->default_namespace);
    if (!v->default_namespace)
        return FL_ENOMEM;
    for (size_t i = 0; i < nn; i++) {
        json_t *e = json_array_get(ns, i);
        if (!json_is_string(e))
            return ice_fail(c, p, "default-namespace", "element %zu is not a string", i);
        v->default_namespace[i] = fl_arena_strdup(c->a, json_string_value(e));
        if (!v->default_namespace[i])
            return FL_ENOMEM;
    }
    v->ndefault_namespace = (uint32_t)nn;
    return FL_OK;
}

static fl_status parse_root(ice_ctx *c, json_t *root, fl_ice_view_metadata *m)
{
    if (!json_is_object(root))
        return ice_fail(c, "", NULL, "expected a JSON object");
    FL_TRY(ice_get_str(c, root, "", "view-uuid", true, &m->view_uuid));
    FL_TRY(ice_get_i32(c, root, "", "format-version", true, NULL, &m->format_version));
    if (m->format_version != 1)
        return fl_errorf(c->err, FL_EUNSUPPORTED, "view metadata: format-version %d (only 1)",
                         (int)m->format_version);
    FL_TRY(ice_get_str(c, root, "", "location", true, &m->location));
    bool present;
    FL_TRY(ice_get_map(c, root, "", "properties", false, &present, &m->properties));
    FL_TRY(ice_get_i32(c, root, "", "current-version-id", true, NULL, &m->current_version_id));
    json_t *schemas, *versions, *log;
    FL_TRY(ice_get_array(c, root, "", "schemas", true, &schemas));
    FL_TRY(ice_get_array(c, root, "", "versions", true, &versions));
    FL_TRY(ice_get_array(c, root, "", "version-log", true, &log));
    size_t ns = json_array_size(schemas), nv = json_array_size(versions),
           nl = json_array_size(log);
    m->schemas = ice_alloc_array(c, ns, sizeof *m->schemas);
    m->versions = ice_alloc_array(c, nv, sizeof *m->versions);
    m->version_log = ice_alloc_array(c, nl, sizeof *m->version_log);
    if (!m->schemas || !m->versions || !m->version_log)
        return FL_ENOMEM;
    for (size_t i = 0; i < ns; i++) {
        json_t *o;
        FL_TRY(ice_array_object(c, schemas, i, "", "schemas", &o));
        const char *p = ice_path_idx(c, "", "schemas", i);
        if (!p)
            return FL_ENOMEM;
        c->nextras = c->cap_extras = 0;
        c->extras = NULL;
        FL_TRY(ice_parse_schema(c, o, p, true, &m->schemas[i]));
    }
    m->nschemas = (uint32_t)ns;
    for (size_t i = 0; i < nv; i++) {
        json_t *o;
        FL_TRY(ice_array_object(c, versions, i, "", "versions", &o));
        const char *p = ice_path_idx(c, "", "versions", i);
        if (!p)
            return FL_ENOMEM;
        FL_TRY(ice_parse_view_version(c, o, p, &m->versions[i]));
        bool found = false;
        for (uint32_t k = 0; k < m->nschemas; k++)
            found |= m->schemas[k].schema_id == m->versions[i].schema_id;
        if (!found)
            return ice_fail(c, p, "schema-id", "schema %d does not exist",
                            (int)m->versions[i].schema_id);
    }
    m->nversions = (uint32_t)nv;
    for (size_t i = 0; i < nl; i++) {
        json_t *o;
        FL_TRY(ice_array_object(c, log, i, "", "version-log", &o));
        const char *p = ice_path_idx(c, "", "version-log", i);
        if (!p)
            return FL_ENOMEM;
        FL_TRY(ice_get_i64(c, o, p, "timestamp-ms", true, NULL, &m->version_log[i].timestamp_ms));
        FL_TRY(ice_get_i32(c, o, p, "version-id", true, NULL, &m->version_log[i].version_id));
    }
    m->nversion_log = (uint32_t)nl;
    if (!fl_ice_view_current_version(m))
        return ice_fail(c, "", "current-version-id", "version %d does not exist",
                        (int)m->current_version_id);
    return FL_OK;
}

fl_status fl_ice_view_metadata_parse(const uint8_t *buf, size_t len, const char *name, fl_arena *a,
                                     fl_ice_view_metadata *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    json_error_t je;
    json_t *root = json_loadb((const char *)buf, len, 0, &je);
    if (!root)
        return fl_errorf(err, FL_ESYNTAX, "%s%sview metadata: line %d column %d: %s",
                         name ? name : "", name ? ": " : "", je.line, je.column, je.text);
    ice_ctx c = {.a = a, .err = err, .format_version = 2};
    fl_status rc = reprefix(parse_root(&c, root, out), err);
    json_decref(root);
    if (rc != FL_OK && name)
        fl_error_prefix(err, "%s", name);
    return rc;
}

fl_status fl_ice_view_metadata_read(fl_fileio *io, const char *path, fl_arena *a,
                                    fl_ice_view_metadata *out, fl_error *err)
{
    fl_file *f = NULL;
    FL_TRY(fl_fileio_open(io, path, &f, err));
    if (f->size > FL_ICE_METADATA_MAX_BYTES) {
        fl_file_close(f);
        return fl_errorf(err, FL_ELIMIT, "%s: view metadata file too large", path);
    }
    uint8_t *buf = malloc(f->size ? f->size : 1);
    if (!buf) {
        fl_file_close(f);
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory", path);
    }
    fl_status rc = fl_file_read_at(f, 0, buf, f->size, err);
    size_t size = f->size;
    fl_file_close(f);
    if (rc == FL_OK)
        rc = fl_ice_view_metadata_parse(buf, size, path, a, out, err);
    free(buf);
    return rc;
}

const fl_ice_view_version *fl_ice_view_current_version(const fl_ice_view_metadata *m)
{
    for (uint32_t i = 0; i < m->nversions; i++)
        if (m->versions[i].version_id == m->current_version_id)
            return &m->versions[i];
    return NULL;
}

/* ---- writing ---- */

json_t *ice_view_version_json(const fl_ice_view_version *v)
{
    json_t *o = json_object(), *reps = json_array(), *ns = json_array();
    bool ok = o && reps && ns && ice_set(o, "version-id", json_integer(v->version_id)) &&
              ice_set(o, "timestamp-ms", json_integer(v->timestamp_ms)) &&
              ice_set(o, "schema-id", json_integer(v->schema_id)) &&
              ice_set(o, "summary", ice_map_to_json(&v->summary));
    for (uint32_t i = 0; ok && i < v->nrepresentations; i++) {
        const fl_ice_view_representation *r = &v->representations[i];
        json_t *ro = r->raw ? json_loads(r->raw, 0, NULL)
                            : json_pack("{s:s,s:s,s:s}", "type", r->type, "sql", r->sql,
                                        "dialect", r->dialect);
        ok = ro && json_array_append_new(reps, ro) == 0;
    }
    ok = ok && ice_set(o, "representations", reps);
    reps = NULL;
    if (ok && v->default_catalog)
        ok = ice_set(o, "default-catalog", json_string(v->default_catalog));
    for (uint32_t i = 0; ok && i < v->ndefault_namespace; i++)
        ok = json_array_append_new(ns, json_string(v->default_namespace[i])) == 0;
    ok = ok && ice_set(o, "default-namespace", ns);
    ns = NULL;
    json_decref(reps);
    json_decref(ns);
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

fl_status fl_ice_view_metadata_write(const fl_ice_view_metadata *m, char **out, size_t *out_len,
                                     fl_error *err)
{
    json_t *o = json_object(), *schemas = json_array(), *versions = json_array(),
           *log = json_array();
    bool ok = o && schemas && versions && log && ice_set(o, "view-uuid", json_string(m->view_uuid)) &&
              ice_set(o, "format-version", json_integer(m->format_version)) &&
              ice_set(o, "location", json_string(m->location)) &&
              ice_set(o, "properties", ice_map_to_json(&m->properties));
    for (uint32_t i = 0; ok && i < m->nschemas; i++) {
        json_t *s = ice_schema_to_json(&m->schemas[i]);
        ok = s && json_array_append_new(schemas, s) == 0;
    }
    ok = ok && ice_set(o, "schemas", schemas) &&
         ice_set(o, "current-version-id", json_integer(m->current_version_id));
    schemas = NULL;
    for (uint32_t i = 0; ok && i < m->nversions; i++) {
        json_t *v = ice_view_version_json(&m->versions[i]);
        ok = v && json_array_append_new(versions, v) == 0;
    }
    ok = ok && ice_set(o, "versions", versions);
    versions = NULL;
    for (uint32_t i = 0; ok && i < m->nversion_log; i++)
        ok = json_array_append_new(log, json_pack("{s:I,s:i}", "timestamp-ms",
                                                  (json_int_t)m->version_log[i].timestamp_ms,
                                                  "version-id", m->version_log[i].version_id)) == 0;
    ok = ok && ice_set(o, "version-log", log);
    log = NULL;
    json_decref(schemas), json_decref(versions), json_decref(log);
    char *s = ok ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(o);
    if (!s)
        return fl_errorf(err, FL_ENOMEM, "view metadata: out of memory");
    *out = s;
    *out_len = strlen(s);
    return FL_OK;
}
