/*
 * evolve_schema.c - schema evolution as pure functions: the table's current
 * schema plus one change gives a new schema (schema-id = highest + 1) and
 * the new last-column-id. The rules are the spec's "Schema Evolution" and
 * Java's SchemaUpdate:
 *
 *   add      new id = last-column-id + 1, nested ids after it (fresh-id
 *            order); the name must be new in its struct and free of dots;
 *            a required column needs an initial default (format v3), and
 *            defaults need v3; the default becomes initial and write default.
 *   drop     not an identifier field, not a source of the default partition
 *            spec (non-void) or sort order, not the last column.
 *   rename   the new name must be unused in the same struct.
 *   type     primitive promotions only (ice_type_promotion_ok); date ->
 *            timestamp only when no bucket/truncate/identity partition field
 *            uses the column (its partition values would change).
 *   optional identifier fields stay required.
 *   default  write-default of a column (v3; JSON text validated).
 *   move     first, or after a sibling in the same struct.
 *
 * The working copy is a deep copy in the caller's arena; the inputs are not
 * touched. Field ids are never reused: dropped ids stay retired.
 */
#include <jansson.h>
#include <string.h>

#include "iceberg/write_internal.h"

typedef struct slot {
    fl_field **fields;
    uint32_t *n;
} slot;

static int32_t next_schema_id(const fl_ice_metadata *m)
{
    int32_t id = -1;
    for (uint32_t i = 0; i < m->nschemas; i++)
        if (m->schemas[i].schema_id > id)
            id = m->schemas[i].schema_id;
    return id + 1;
}

/* Deep copy of the current schema into out->schema with a new schema id. */
static fl_status clone_current(const fl_ice_metadata *m, fl_arena *a, ice_schema_change *out,
                               fl_error *err)
{
    const fl_ice_schema *cur = fl_ice_metadata_current_schema(m);
    if (!cur)
        return fl_errorf(err, FL_ECORRUPT, "table metadata: no current schema");
    fl_ice_schema *s = &out->schema;
    memset(out, 0, sizeof *out);
    if (fl_schema_copy(a, &cur->schema, &s->schema) != FL_OK)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    s->identifier_field_ids = fl_arena_calloc(a, cur->nidentifier + 1, sizeof(int32_t));
    s->extras = fl_arena_calloc(a, cur->nextras + 1, sizeof *s->extras);
    if (!s->identifier_field_ids || !s->extras)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    if (cur->nidentifier)
        memcpy(s->identifier_field_ids, cur->identifier_field_ids,
               cur->nidentifier * sizeof(int32_t));
    s->nidentifier = cur->nidentifier;
    if (cur->nextras)
        memcpy(s->extras, cur->extras, cur->nextras * sizeof *s->extras);
    s->nextras = cur->nextras;
    s->schema_id = next_schema_id(m);
    s->schema.schema_id = s->schema_id;
    out->last_column_id = m->last_column_id;
    int32_t mx = ice_max_field_id(&s->schema);
    if (mx > out->last_column_id)
        out->last_column_id = mx;
    return FL_OK;
}

/* The field at path in the clone and the children slot holding it. */
static fl_status locate(ice_schema_change *c, const char *path, fl_field **f, slot *sl,
                        fl_error *err)
{
    fl_type *holder = NULL;
    *f = ice_find_path(&c->schema.schema, path, &holder);
    if (!*f)
        return fl_errorf(err, FL_ENOTFOUND, "no column '%s'", path ? path : "");
    if (holder && holder->id != FL_TYPE_STRUCT)
        return fl_errorf(err, FL_EINVAL, "'%s' is a list element or map key/value", path);
    if (holder) {
        sl->fields = &holder->children;
        sl->n = &holder->nchildren;
    } else {
        sl->fields = &c->schema.schema.fields;
        sl->n = &c->schema.schema.nfields;
    }
    return FL_OK;
}

static bool type_has_id(const fl_type *t, int32_t id)
{
    for (uint32_t i = 0; i < t->nchildren; i++)
        if (t->children[i].field_id == id || type_has_id(&t->children[i].type, id))
            return true;
    return false;
}

static bool field_has_id(const fl_field *f, int32_t id)
{
    return f->field_id == id || type_has_id(&f->type, id);
}

static fl_ice_field_extra *extra_slot(fl_ice_schema *s, int32_t id, fl_arena *a)
{
    for (uint32_t i = 0; i < s->nextras; i++)
        if (s->extras[i].field_id == id)
            return &s->extras[i];
    fl_ice_field_extra *n = fl_arena_calloc(a, s->nextras + 1, sizeof *n);
    if (!n)
        return NULL;
    if (s->nextras)
        memcpy(n, s->extras, s->nextras * sizeof *n);
    s->extras = n;
    n[s->nextras].field_id = id;
    return &n[s->nextras++];
}

static fl_status check_json(const char *txt, const char *what, fl_error *err)
{
    json_error_t je;
    json_t *j = json_loads(txt, JSON_DECODE_ANY, &je);
    if (!j)
        return fl_errorf(err, FL_ESYNTAX, "%s '%s': not JSON: %s", what, txt, je.text);
    json_decref(j);
    return FL_OK;
}

static bool has_name(const fl_field *f, uint32_t n, const char *name)
{
    for (uint32_t i = 0; i < n; i++)
        if (!strcmp(f[i].name, name))
            return true;
    return false;
}

fl_status ice_evolve_add_column(const fl_ice_metadata *m, const char *parent, const char *name,
                                const fl_type *type, bool nullable, const char *doc,
                                const char *initial_default, fl_arena *a, ice_schema_change *out,
                                fl_error *err)
{
    if (!name || !*name || strchr(name, '.'))
        return fl_errorf(err, FL_EINVAL, "add column: bad name '%s' (empty or dotted)",
                         name ? name : "");
    FL_TRY(clone_current(m, a, out, err));
    slot sl = {&out->schema.schema.fields, &out->schema.schema.nfields};
    if (parent && *parent) {
        fl_field *p = ice_find_path(&out->schema.schema, parent, NULL);
        if (!p)
            return fl_errorf(err, FL_ENOTFOUND, "add column: no parent column '%s'", parent);
        fl_type *t = &p->type;
        if (t->id == FL_TYPE_LIST || t->id == FL_TYPE_MAP)
            t = &t->children[t->nchildren - 1].type;
        if (t->id != FL_TYPE_STRUCT)
            return fl_errorf(err, FL_EINVAL, "add column: parent '%s' is not a struct", parent);
        sl.fields = &t->children;
        sl.n = &t->nchildren;
    }
    if (has_name(*sl.fields, *sl.n, name))
        return fl_errorf(err, FL_EEXIST, "add column: '%s' already exists", name);
    if (initial_default && m->format_version < 3)
        return fl_errorf(err, FL_EINVAL, "add column '%s': default values need format version 3",
                         name);
    if (!nullable && !initial_default)
        return fl_errorf(err, FL_EINVAL, "add column '%s': a required column needs a default value",
                         name);
    if (initial_default)
        FL_TRY(check_json(initial_default, "default", err));
    if (type->id == 0)
        return fl_errorf(err, FL_EINVAL, "add column '%s': no type", name);
    fl_field nf = {0};
    nf.name = fl_arena_strdup(a, name);
    nf.doc = doc ? fl_arena_strdup(a, doc) : NULL;
    nf.nullable = nullable;
    nf.field_id = ++out->last_column_id;
    if (!nf.name || (doc && !nf.doc))
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    FL_TRY(ice_assign_fresh_type_ids(type, &out->last_column_id, a, &nf.type, err));
    fl_field *arr = fl_arena_calloc(a, *sl.n + 1, sizeof *arr);
    if (!arr)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    if (*sl.n)
        memcpy(arr, *sl.fields, *sl.n * sizeof *arr);
    arr[*sl.n] = nf;
    *sl.fields = arr;
    (*sl.n)++;
    if (initial_default) {
        fl_ice_field_extra *e = extra_slot(&out->schema, nf.field_id, a);
        if (!e)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        e->initial_default = fl_arena_strdup(a, initial_default);
        e->write_default = e->initial_default;
    }
    return FL_OK;
}

/* The default spec's / sort order's use of any id inside f. */
static const char *used_by(const fl_ice_metadata *m, const fl_field *f)
{
    const fl_ice_partition_spec *spec = fl_ice_metadata_spec(m, m->default_spec_id);
    for (uint32_t i = 0; spec && i < spec->nfields; i++)
        for (uint32_t k = 0; k < spec->fields[i].nsource_ids; k++)
            if (field_has_id(f, spec->fields[i].source_ids[k]) &&
                strcmp(spec->fields[i].transform, "void") != 0)
                return "the partition spec";
    for (uint32_t o = 0; o < m->nsort_orders; o++) {
        const fl_ice_sort_order *so = &m->sort_orders[o];
        if (so->order_id != m->default_sort_order_id)
            continue;
        for (uint32_t i = 0; i < so->nfields; i++)
            for (uint32_t k = 0; k < so->fields[i].nsource_ids; k++)
                if (field_has_id(f, so->fields[i].source_ids[k]))
                    return "the sort order";
    }
    return NULL;
}

fl_status ice_evolve_drop_column(const fl_ice_metadata *m, const char *path, fl_arena *a,
                                 ice_schema_change *out, fl_error *err)
{
    FL_TRY(clone_current(m, a, out, err));
    fl_field *f;
    slot sl = {0};
    FL_TRY(locate(out, path, &f, &sl, err));
    for (uint32_t i = 0; i < out->schema.nidentifier; i++)
        if (field_has_id(f, out->schema.identifier_field_ids[i]))
            return fl_errorf(err, FL_EINVAL, "drop column '%s': it is an identifier field", path);
    const char *user = used_by(m, f);
    if (user)
        return fl_errorf(err, FL_EINVAL, "drop column '%s': it is used by %s", path, user);
    if (sl.fields == &out->schema.schema.fields && *sl.n == 1)
        return fl_errorf(err, FL_EINVAL, "drop column '%s': a table needs a column", path);
    uint32_t idx = (uint32_t)(f - *sl.fields);
    memmove(&(*sl.fields)[idx], &(*sl.fields)[idx + 1], (*sl.n - idx - 1) * sizeof(fl_field));
    (*sl.n)--;
    return FL_OK;
}

fl_status ice_evolve_rename_column(const fl_ice_metadata *m, const char *path, const char *new_name,
                                   fl_arena *a, ice_schema_change *out, fl_error *err)
{
    if (!new_name || !*new_name || strchr(new_name, '.'))
        return fl_errorf(err, FL_EINVAL, "rename column '%s': bad new name '%s'", path,
                         new_name ? new_name : "");
    FL_TRY(clone_current(m, a, out, err));
    fl_field *f;
    slot sl = {0};
    FL_TRY(locate(out, path, &f, &sl, err));
    if (!strcmp(f->name, new_name))
        return FL_OK;
    if (has_name(*sl.fields, *sl.n, new_name))
        return fl_errorf(err, FL_EEXIST, "rename column '%s': '%s' already exists", path, new_name);
    if (!(f->name = fl_arena_strdup(a, new_name)))
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    return FL_OK;
}

bool ice_type_promotion_ok(const fl_type *from, const fl_type *to, int format_version)
{
    if (fl_type_equal(from, to))
        return true;
    switch (from->id) {
    case FL_TYPE_INT32: return to->id == FL_TYPE_INT64;
    case FL_TYPE_FLOAT32: return to->id == FL_TYPE_FLOAT64;
    case FL_TYPE_DECIMAL:
        return to->id == FL_TYPE_DECIMAL && to->scale == from->scale &&
               to->precision >= from->precision;
    case FL_TYPE_DATE:
        return format_version >= 3 &&
               (to->id == FL_TYPE_TIMESTAMP || to->id == FL_TYPE_TIMESTAMP_NS);
    default: return false;
    }
}

fl_status ice_evolve_update_type(const fl_ice_metadata *m, const char *path, const fl_type *type,
                                 fl_arena *a, ice_schema_change *out, fl_error *err)
{
    FL_TRY(clone_current(m, a, out, err));
    fl_field *f;
    slot sl = {0};
    FL_TRY(locate(out, path, &f, &sl, err));
    char from[64], to[64];
    fl_type_format(&f->type, from, sizeof from);
    fl_type_format(type, to, sizeof to);
    if (fl_type_is_nested(&f->type) || fl_type_is_nested(type) || f->type.id == 0)
        return fl_errorf(err, FL_EINVAL, "column '%s': only primitive types can change", path);
    if (!ice_type_promotion_ok(&f->type, type, m->format_version))
        return fl_errorf(err, FL_ETYPE, "column '%s': cannot change %s to %s", path, from, to);
    if (f->type.id == FL_TYPE_DATE && type->id != FL_TYPE_DATE) {
        for (uint32_t s = 0; s < m->nspecs; s++)
            for (uint32_t i = 0; i < m->specs[s].nfields; i++) {
                const fl_ice_partition_field *pf = &m->specs[s].fields[i];
                fl_ice_transform t;
                if (pf->source_id != f->field_id ||
                    fl_ice_transform_parse(pf->transform, &t, NULL) != FL_OK)
                    continue;
                if (t.kind == FL_ICE_TRANSFORM_BUCKET || t.kind == FL_ICE_TRANSFORM_TRUNCATE ||
                    t.kind == FL_ICE_TRANSFORM_IDENTITY)
                    return fl_errorf(err, FL_EINVAL,
                                     "column '%s': partition field '%s' would change its values",
                                     path, pf->name);
            }
    }
    f->type = *type;
    f->type.nchildren = 0;
    f->type.children = NULL;
    return FL_OK;
}

fl_status ice_evolve_make_optional(const fl_ice_metadata *m, const char *path, fl_arena *a,
                                   ice_schema_change *out, fl_error *err)
{
    FL_TRY(clone_current(m, a, out, err));
    fl_field *f;
    slot sl = {0};
    FL_TRY(locate(out, path, &f, &sl, err));
    for (uint32_t i = 0; i < out->schema.nidentifier; i++)
        if (out->schema.identifier_field_ids[i] == f->field_id)
            return fl_errorf(err, FL_EINVAL,
                             "column '%s' is an identifier field: it stays required", path);
    f->nullable = true;
    return FL_OK;
}

fl_status ice_evolve_set_default(const fl_ice_metadata *m, const char *path,
                                 const char *write_default, fl_arena *a, ice_schema_change *out,
                                 fl_error *err)
{
    if (m->format_version < 3)
        return fl_errorf(err, FL_EINVAL, "column '%s': default values need format version 3", path);
    FL_TRY(clone_current(m, a, out, err));
    fl_field *f;
    slot sl = {0};
    FL_TRY(locate(out, path, &f, &sl, err));
    if (fl_type_is_nested(&f->type) && write_default && strcmp(write_default, "null") != 0)
        return fl_errorf(err, FL_EINVAL, "column '%s': nested columns take no default", path);
    if (write_default)
        FL_TRY(check_json(write_default, "default", err));
    fl_ice_field_extra *e = extra_slot(&out->schema, f->field_id, a);
    if (!e)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    e->write_default = write_default ? fl_arena_strdup(a, write_default) : NULL;
    return FL_OK;
}

fl_status ice_evolve_move_column(const fl_ice_metadata *m, const char *path, const char *after,
                                 bool first, fl_arena *a, ice_schema_change *out, fl_error *err)
{
    FL_TRY(clone_current(m, a, out, err));
    fl_field *f;
    slot sl = {0};
    FL_TRY(locate(out, path, &f, &sl, err));
    if (!first && after) {
        const fl_field *self = ice_find_path(&out->schema.schema, after, NULL);
        if (self == f)
            return fl_errorf(err, FL_EINVAL, "move column '%s': cannot move after itself", path);
    }
    uint32_t from = (uint32_t)(f - *sl.fields);
    fl_field moved = *f;
    fl_field *arr = *sl.fields;
    uint32_t n = *sl.n;
    memmove(&arr[from], &arr[from + 1], (n - from - 1) * sizeof *arr);
    uint32_t to = 0;
    if (!first) {
        if (!after)
            return fl_errorf(err, FL_EINVAL, "move column '%s': first or after a column", path);
        fl_field *ref;
        slot rs = {0};
        *sl.n = n - 1; /* search the live entries only */
        fl_status rc = locate(out, after, &ref, &rs, err);
        *sl.n = n;
        if (rc != FL_OK)
            return rc;
        if (rs.fields != sl.fields)
            return fl_errorf(err, FL_EINVAL, "move column '%s': '%s' is in another struct", path,
                             after);
        if (ref->field_id == moved.field_id)
            return fl_errorf(err, FL_EINVAL, "move column '%s': cannot move after itself", path);
        /* ref was found in the shifted array of n-1 live entries */
        to = (uint32_t)(ref - arr) + 1;
    }
    memmove(&arr[to + 1], &arr[to], (n - 1 - to) * sizeof *arr);
    arr[to] = moved;
    return FL_OK;
}

fl_status ice_evolve_set_identifier(const fl_ice_metadata *m, const char *const *paths, uint32_t n,
                                    fl_arena *a, ice_schema_change *out, fl_error *err)
{
    FL_TRY(clone_current(m, a, out, err));
    int32_t *ids;
    FL_TRY(ice_identifier_ids(&out->schema, paths, n, a, &ids, err));
    out->schema.identifier_field_ids = ids;
    out->schema.nidentifier = n;
    return FL_OK;
}
