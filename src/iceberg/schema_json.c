/*
 * schema_json.c - Iceberg schema JSON <-> fl_ice_schema (spec "Schemas and
 * Data Types", Appendix C "JSON serialization").
 *
 * A type is a JSON string for primitives ("long", "decimal(10, 2)",
 * "fixed[16]"; case-insensitive, spaces inside parameters allowed) or an
 * object for nested types:
 *   {"type":"struct","fields":[{"id","name","required","type","doc"?,
 *                               "initial-default"?,"write-default"?}]}
 *   {"type":"list","element-id","element","element-required"}
 *   {"type":"map","key-id","key","value-id","value","value-required"}
 * A schema is a struct plus "schema-id" and "identifier-field-ids".
 *
 * geometry and geography are BINARY columns of WKB with the type's ext, CRS
 * and edge algorithm, variant a BINARY column of variants (types.h). The v3
 * types floe has no vector representation for (unknown, and a geometry
 * spelling it cannot parse) parse to type.id == 0 with the original string kept in
 * the field's fl_ice_field_extra, so they survive a write. Defaults are kept
 * as compact JSON text. All memory comes from the parse arena.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iceberg/ice_internal.h"

static fl_ice_field_extra *extra_for(ice_ctx *c, int32_t field_id)
{
    for (uint32_t i = 0; i < c->nextras; i++)
        if (c->extras[i].field_id == field_id)
            return &c->extras[i];
    if (c->nextras == c->cap_extras) {
        uint32_t cap = c->cap_extras ? c->cap_extras * 2 : 8;
        fl_ice_field_extra *n = fl_arena_calloc(c->a, cap, sizeof *n);
        if (!n) {
            fl_errorf(c->err, FL_ENOMEM, "table metadata: out of memory");
            return NULL;
        }
        if (c->nextras)
            memcpy(n, c->extras, c->nextras * sizeof *n);
        c->extras = n;
        c->cap_extras = cap;
    }
    fl_ice_field_extra *e = &c->extras[c->nextras++];
    memset(e, 0, sizeof *e);
    e->field_id = field_id;
    return e;
}

static bool is_preserved_type(const char *norm)
{
    return strcmp(norm, "unknown") == 0 || strcmp(norm, "variant") == 0 ||
           strcmp(norm, "geometry") == 0 || strcmp(norm, "geography") == 0 ||
           strncmp(norm, "geometry(", 9) == 0 || strncmp(norm, "geography(", 10) == 0;
}

static fl_status parse_type(ice_ctx *c, json_t *j, const char *path, fl_field *f, int depth);

static fl_status parse_primitive(ice_ctx *c, json_t *j, const char *path, fl_field *f)
{
    char norm[128];
    const char *s = json_string_value(j);
    if (!ice_normalize_name(s, norm, sizeof norm) || !*norm)
        return ice_fail(c, path, "type", "unknown type '%.60s'", s);
    if (fl_type_parse_primitive(norm, &f->type))
        return FL_OK;
    /* geometry(C) / geography(C, A): the CRS as written (normalizing would fold its case) */
    if ((!strncmp(norm, "geometry", 8) || !strncmp(norm, "geography", 9)) &&
        fl_type_parse_primitive_in(c->a, s, &f->type))
        return FL_OK;
    if (!is_preserved_type(norm))
        return ice_fail(c, path, "type", "unknown type '%.60s'", s);
    if (f->field_id <= 0)
        return ice_fail(c, path, "type", "type '%.60s' needs a field id", s);
    fl_ice_field_extra *e = extra_for(c, f->field_id);
    if (!e)
        return FL_ENOMEM;
    e->type_str = fl_arena_strdup(c->a, s);
    if (!e->type_str)
        return fl_errorf(c->err, FL_ENOMEM, "table metadata: out of memory");
    memset(&f->type, 0, sizeof f->type);
    return FL_OK;
}

static fl_status keep_default(ice_ctx *c, json_t *obj, const char *key, const char **slot_out,
                              bool *present)
{
    json_t *v = json_object_get(obj, key);
    *present = v != NULL;
    if (!v)
        return FL_OK;
    char *txt = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    if (!txt)
        return fl_errorf(c->err, FL_ENOMEM, "table metadata: out of memory");
    *slot_out = fl_arena_strdup(c->a, txt);
    free(txt);
    return *slot_out ? FL_OK : fl_errorf(c->err, FL_ENOMEM, "table metadata: out of memory");
}

static fl_status parse_struct_field(ice_ctx *c, json_t *o, const char *path, fl_field *f, int depth)
{
    bool required = false;
    FL_TRY(ice_get_i32(c, o, path, "id", true, NULL, &f->field_id));
    FL_TRY(ice_get_str(c, o, path, "name", true, &f->name));
    FL_TRY(ice_get_bool(c, o, path, "required", true, NULL, &required));
    FL_TRY(ice_get_str(c, o, path, "doc", false, &f->doc));
    f->nullable = !required;
    json_t *t = json_object_get(o, "type");
    if (!t || json_is_null(t))
        return ice_fail(c, path, "type", "missing");
    FL_TRY(parse_type(c, t, path, f, depth + 1));
    const char *idef = NULL, *wdef = NULL;
    bool has_i = false, has_w = false;
    FL_TRY(keep_default(c, o, "initial-default", &idef, &has_i));
    FL_TRY(keep_default(c, o, "write-default", &wdef, &has_w));
    if (has_i || has_w) {
        fl_ice_field_extra *e = extra_for(c, f->field_id);
        if (!e)
            return FL_ENOMEM;
        e->initial_default = idef;
        e->write_default = wdef;
    }
    return FL_OK;
}

static fl_status parse_struct(ice_ctx *c, json_t *o, const char *path, fl_type *t, int depth)
{
    json_t *fields;
    FL_TRY(ice_get_array(c, o, path, "fields", true, &fields));
    size_t n = json_array_size(fields);
    t->id = FL_TYPE_STRUCT;
    t->children = ice_alloc_array(c, n, sizeof *t->children);
    if (!t->children)
        return FL_ENOMEM;
    t->nchildren = (uint32_t)n;
    for (size_t i = 0; i < n; i++) {
        json_t *fo;
        FL_TRY(ice_array_object(c, fields, i, path, "fields", &fo));
        const char *fp = ice_path_idx(c, path, "fields", i);
        if (!fp)
            return FL_ENOMEM;
        FL_TRY(parse_struct_field(c, fo, fp, &t->children[i], depth));
    }
    return FL_OK;
}

/* One list element / map key / map value slot. */
static fl_status parse_slot(ice_ctx *c, json_t *o, const char *path, const char *id_key,
                            const char *type_key, const char *req_key, const char *name,
                            fl_field *f, int depth)
{
    bool required = true;
    FL_TRY(ice_get_i32(c, o, path, id_key, true, NULL, &f->field_id));
    if (req_key)
        FL_TRY(ice_get_bool(c, o, path, req_key, true, NULL, &required));
    f->name = name;
    f->nullable = !required;
    json_t *t = json_object_get(o, type_key);
    if (!t || json_is_null(t))
        return ice_fail(c, path, type_key, "missing");
    const char *tp = ice_path(c, path, type_key);
    return tp ? parse_type(c, t, tp, f, depth + 1) : FL_ENOMEM;
}

static fl_status parse_type(ice_ctx *c, json_t *j, const char *path, fl_field *f, int depth)
{
    memset(&f->type, 0, sizeof f->type);
    if (depth > ICE_MAX_TYPE_DEPTH)
        return ice_fail(c, path, "type", "nested deeper than %d levels", ICE_MAX_TYPE_DEPTH);
    if (json_is_string(j))
        return parse_primitive(c, j, path, f);
    if (!json_is_object(j))
        return ice_fail(c, path, "type", "expected a type name or object");
    const char *kind;
    FL_TRY(ice_get_str(c, j, path, "type", true, &kind));
    fl_type *t = &f->type;
    if (strcmp(kind, "struct") == 0)
        return parse_struct(c, j, path, t, depth);
    if (strcmp(kind, "list") == 0) {
        t->id = FL_TYPE_LIST;
        t->nchildren = 1;
        t->children = ice_alloc_array(c, 1, sizeof *t->children);
        if (!t->children)
            return FL_ENOMEM;
        return parse_slot(c, j, path, "element-id", "element", "element-required", "element",
                          &t->children[0], depth);
    }
    if (strcmp(kind, "map") == 0) {
        t->id = FL_TYPE_MAP;
        t->nchildren = 2;
        t->children = ice_alloc_array(c, 2, sizeof *t->children);
        if (!t->children)
            return FL_ENOMEM;
        FL_TRY(parse_slot(c, j, path, "key-id", "key", NULL, "key", &t->children[0], depth));
        return parse_slot(c, j, path, "value-id", "value", "value-required", "value",
                          &t->children[1], depth);
    }
    return ice_fail(c, path, "type", "unknown nested type '%.40s'", kind);
}

/* Appends every field id of t (nested levels included) to ids. */
static void collect_ids(const fl_type *t, int32_t *ids, size_t *n)
{
    for (uint32_t i = 0; i < t->nchildren; i++) {
        ids[(*n)++] = t->children[i].field_id;
        collect_ids(&t->children[i].type, ids, n);
    }
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Field ids must be unique over the whole schema (nested levels included);
 * sorted, so wide schemas stay O(n log n). ids has room for every field. */
static fl_status check_ids(ice_ctx *c, const char *path, const fl_type *t, int32_t *ids,
                           size_t *nseen)
{
    *nseen = 0;
    collect_ids(t, ids, nseen);
    qsort(ids, *nseen, sizeof *ids, cmp_i32);
    for (size_t i = 1; i < *nseen; i++)
        if (ids[i] == ids[i - 1])
            return ice_fail(c, path, NULL, "duplicate field id %d", (int)ids[i]);
    return FL_OK;
}

static size_t count_fields(const fl_type *t)
{
    size_t n = t->nchildren;
    for (uint32_t i = 0; i < t->nchildren; i++)
        n += count_fields(&t->children[i].type);
    return n;
}

fl_status ice_parse_schema(ice_ctx *c, json_t *obj, const char *path, bool require_id,
                           fl_ice_schema *out)
{
    memset(out, 0, sizeof *out);
    c->extras = NULL;
    c->nextras = c->cap_extras = 0;
    const char *kind;
    FL_TRY(ice_get_str(c, obj, path, "type", false, &kind));
    if (kind && strcmp(kind, "struct") != 0)
        return ice_fail(c, path, "type", "a schema must be a struct, got '%.40s'", kind);
    FL_TRY(ice_get_i32(c, obj, path, "schema-id", require_id, NULL, &out->schema_id));
    FL_TRY(ice_get_i32_array(c, obj, path, "identifier-field-ids", false, NULL,
                             &out->identifier_field_ids, &out->nidentifier));
    fl_type st;
    memset(&st, 0, sizeof st);
    FL_TRY(parse_struct(c, obj, path, &st, 0));
    out->schema.nfields = st.nchildren;
    out->schema.fields = st.children;
    out->schema.schema_id = out->schema_id;
    out->extras = c->extras;
    out->nextras = c->nextras;
    size_t n = count_fields(&st);
    int32_t *seen = ice_alloc_array(c, n, sizeof *seen);
    if (!seen)
        return FL_ENOMEM;
    size_t nseen = 0;
    FL_TRY(check_ids(c, path, &st, seen, &nseen));
    /* looked up among the ids the schema has (sorted by check_ids), not with
     * fl_schema_find_id: 0 is a field id too (Flink's CreateTableRequest
     * numbers fields from 0; the fresh-id assignment renumbers them) */
    for (uint32_t i = 0; i < out->nidentifier; i++)
        if (!bsearch(&out->identifier_field_ids[i], seen, nseen, sizeof *seen, cmp_i32))
            return ice_fail(c, path, "identifier-field-ids", "field id %d not in the schema",
                            (int)out->identifier_field_ids[i]);
    return FL_OK;
}

fl_status fl_ice_schema_parse_json(const char *json, size_t len, fl_arena *a, fl_ice_schema *out,
                                   fl_error *err)
{
    json_error_t jerr;
    json_t *root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        return fl_errorf(err, FL_ESYNTAX, "schema: JSON error at line %d column %d: %s", jerr.line,
                         jerr.column, jerr.text);
    ice_ctx c = {.a = a, .err = err, .format_version = 2};
    fl_status rc = json_is_object(root) ? ice_parse_schema(&c, root, "schema", false, out)
                                        : ice_fail(&c, "schema", NULL, "expected an object");
    json_decref(root);
    return rc;
}

const fl_ice_field_extra *fl_ice_schema_extra(const fl_ice_schema *s, int32_t field_id)
{
    for (uint32_t i = 0; i < s->nextras; i++)
        if (s->extras[i].field_id == field_id)
            return &s->extras[i];
    return NULL;
}

/* ---- writing ------------------------------------------------------------- */

/* Java's spelling: "decimal(10, 2)", "fixed[16]", lower-case names. */
static json_t *primitive_to_json(const fl_type *t)
{
    char buf[64];
    if (t->id == FL_TYPE_DECIMAL) {
        snprintf(buf, sizeof buf, "decimal(%d, %d)", (int)t->precision, (int)t->scale);
        return json_string(buf);
    }
    fl_type_format(t, buf, sizeof buf);
    return json_string(buf);
}

static json_t *type_to_json(const fl_ice_schema *s, const fl_field *f);

static json_t *default_to_json(const char *txt)
{
    json_error_t jerr;
    return json_loads(txt, JSON_DECODE_ANY, &jerr);
}

static json_t *field_to_json(const fl_ice_schema *s, const fl_field *f)
{
    json_t *o = json_object();
    const fl_ice_field_extra *e = fl_ice_schema_extra(s, f->field_id);
    bool ok = o && ice_set(o, "id", json_integer(f->field_id)) &&
              ice_set(o, "name", json_string(f->name)) &&
              ice_set(o, "required", json_boolean(!f->nullable)) &&
              ice_set(o, "type", type_to_json(s, f));
    if (ok && f->doc)
        ok = ice_set(o, "doc", json_string(f->doc));
    if (ok && e && e->initial_default)
        ok = ice_set(o, "initial-default", default_to_json(e->initial_default));
    if (ok && e && e->write_default)
        ok = ice_set(o, "write-default", default_to_json(e->write_default));
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *fields_to_json(const fl_ice_schema *s, const fl_field *fields, uint32_t n)
{
    json_t *arr = json_array();
    if (!arr)
        return NULL;
    for (uint32_t i = 0; i < n; i++) {
        json_t *fo = field_to_json(s, &fields[i]);
        if (!fo || json_array_append_new(arr, fo) != 0) {
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}

static json_t *type_to_json(const fl_ice_schema *s, const fl_field *f)
{
    const fl_type *t = &f->type;
    if (t->id == 0) {
        const fl_ice_field_extra *e = fl_ice_schema_extra(s, f->field_id);
        return json_string(e && e->type_str ? e->type_str : "unknown");
    }
    if (!fl_type_is_nested(t))
        return primitive_to_json(t);
    json_t *o = json_object();
    bool ok = o != NULL;
    if (t->id == FL_TYPE_STRUCT) {
        ok = ok && ice_set(o, "type", json_string("struct")) &&
             ice_set(o, "fields", fields_to_json(s, t->children, t->nchildren));
    } else if (t->id == FL_TYPE_LIST) {
        const fl_field *el = &t->children[0];
        ok = ok && ice_set(o, "type", json_string("list")) &&
             ice_set(o, "element-id", json_integer(el->field_id)) &&
             ice_set(o, "element", type_to_json(s, el)) &&
             ice_set(o, "element-required", json_boolean(!el->nullable));
    } else {
        const fl_field *k = &t->children[0], *v = &t->children[1];
        ok = ok && ice_set(o, "type", json_string("map")) &&
             ice_set(o, "key-id", json_integer(k->field_id)) &&
             ice_set(o, "key", type_to_json(s, k)) &&
             ice_set(o, "value-id", json_integer(v->field_id)) &&
             ice_set(o, "value", type_to_json(s, v)) &&
             ice_set(o, "value-required", json_boolean(!v->nullable));
    }
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

json_t *ice_schema_to_json(const fl_ice_schema *s)
{
    json_t *o = json_object();
    bool ok = o && ice_set(o, "type", json_string("struct")) &&
              ice_set(o, "schema-id", json_integer(s->schema_id));
    if (ok && s->nidentifier)
        ok = ice_set(o, "identifier-field-ids",
                     ice_i32_array_to_json(s->identifier_field_ids, s->nidentifier));
    ok = ok && ice_set(o, "fields", fields_to_json(s, s->schema.fields, s->schema.nfields));
    if (!ok) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* ---- equality and conversion --------------------------------------------- */

static bool str_eq(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool fields_equal(const fl_field *a, const fl_field *b, uint32_t n);

static bool type_equal(const fl_type *a, const fl_type *b)
{
    if (a->id != b->id || a->precision != b->precision || a->scale != b->scale ||
        a->fixed_len != b->fixed_len || a->nchildren != b->nchildren)
        return false;
    return fields_equal(a->children, b->children, a->nchildren);
}

static bool fields_equal(const fl_field *a, const fl_field *b, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        if (!str_eq(a[i].name, b[i].name) || a[i].field_id != b[i].field_id ||
            a[i].nullable != b[i].nullable || !str_eq(a[i].doc, b[i].doc) ||
            !type_equal(&a[i].type, &b[i].type))
            return false;
    }
    return true;
}

bool ice_schema_equal(const fl_ice_schema *a, const fl_ice_schema *b)
{
    if (a->schema_id != b->schema_id || a->nidentifier != b->nidentifier ||
        a->nextras != b->nextras || a->schema.nfields != b->schema.nfields)
        return false;
    for (uint32_t i = 0; i < a->nidentifier; i++)
        if (a->identifier_field_ids[i] != b->identifier_field_ids[i])
            return false;
    for (uint32_t i = 0; i < a->nextras; i++) {
        const fl_ice_field_extra *x = &a->extras[i];
        const fl_ice_field_extra *y = fl_ice_schema_extra(b, x->field_id);
        if (!y || !str_eq(x->initial_default, y->initial_default) ||
            !str_eq(x->write_default, y->write_default) || !str_eq(x->type_str, y->type_str))
            return false;
    }
    return fields_equal(a->schema.fields, b->schema.fields, a->schema.nfields);
}

static fl_status check_supported(const fl_ice_schema *s, const fl_type *t, fl_error *err)
{
    for (uint32_t i = 0; i < t->nchildren; i++) {
        const fl_field *f = &t->children[i];
        if (f->type.id == 0) {
            const fl_ice_field_extra *e = fl_ice_schema_extra(s, f->field_id);
            return fl_errorf(err, FL_EUNSUPPORTED,
                             "column '%s' (id %d): type '%s' is not supported", f->name,
                             (int)f->field_id, e && e->type_str ? e->type_str : "?");
        }
        FL_TRY(check_supported(s, &f->type, err));
    }
    return FL_OK;
}

fl_status fl_ice_schema_to_fl(const fl_ice_schema *s, fl_arena *a, fl_schema *out, fl_error *err)
{
    fl_type root = {
        .id = FL_TYPE_STRUCT, .nchildren = s->schema.nfields, .children = s->schema.fields};
    FL_TRY(check_supported(s, &root, err));
    if (fl_schema_copy(a, &s->schema, out) != FL_OK)
        return fl_errorf(err, FL_ENOMEM, "schema: out of memory");
    out->schema_id = s->schema_id;
    return FL_OK;
}

fl_status fl_ice_schema_from_fl(const fl_schema *s, int32_t schema_id, fl_arena *a,
                                fl_ice_schema *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    if (fl_schema_copy(a, s, &out->schema) != FL_OK)
        return fl_errorf(err, FL_ENOMEM, "schema: out of memory");
    out->schema_id = schema_id;
    out->schema.schema_id = schema_id;
    fl_type root = {.id = FL_TYPE_STRUCT, .nchildren = s->nfields, .children = s->fields};
    ice_ctx c = {.a = a, .err = err};
    size_t n = count_fields(&root);
    int32_t *seen = ice_alloc_array(&c, n, sizeof *seen);
    if (!seen)
        return FL_ENOMEM;
    size_t nseen = 0;
    if (check_ids(&c, "schema", &root, seen, &nseen) != FL_OK) {
        char msg[FL_ERROR_MSG_MAX];
        snprintf(msg, sizeof msg, "%s", err ? err->msg : "");
        return fl_errorf(err, FL_EINVAL, "%s", msg);
    }
    return FL_OK;
}
