/*
 * schema.c - Avro schema JSON <-> fl_avro_schema tree, Parsing Canonical
 * Form and the CRC-64-AVRO fingerprint.
 *
 * Spec: Avro 1.11 specification, "Schema Declaration", "Names", "Logical
 * Types", "Parsing Canonical Form for Schemas", "Schema Fingerprints".
 *
 * The JSON is parsed with jansson (which keeps object key order). Every key
 * of every schema or field object is recorded as an fl_avro_prop holding the
 * value's compact JSON text, except the keys whose content is itself a
 * schema ("fields" of a record, "items", "values", and a field's "type"):
 * those are recorded with json == NULL and regenerated from the tree by
 * fl_avro_schema_to_json(), in their original position. So custom
 * attributes (field-id, element-id, key-id, value-id, adjust-to-utc, doc,
 * anything) survive a round trip.
 *
 * Names: a named type's full name is its "name" when that contains a dot,
 * else namespace + "." + name, where namespace is its "namespace" attribute
 * or the enclosing one. A reference by bare name is looked up in the
 * enclosing namespace first, then in the null namespace. Every reference
 * points at the single definition node, so recursive types form cycles.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avro/avro_internal.h"

#define SCHEMA_MAX_DEPTH 256

typedef struct named_entry {
    fl_avro_schema *s;
    struct named_entry *next;
} named_entry;

typedef struct parse_ctx {
    fl_arena *a;
    fl_error *err;
    named_entry *names;
    size_t nnamed;
} parse_ctx;

static const char *const type_names[] = {"null",   "boolean", "int",    "long",   "float",
                                         "double", "bytes",   "string", "record", "enum",
                                         "array",  "map",     "union",  "fixed"};

const char *fl_avro_type_name(fl_avro_type t)
{
    return (unsigned)t < sizeof type_names / sizeof type_names[0] ? type_names[t] : "?";
}

int fl_avro_union_null_branch(const fl_avro_schema *s)
{
    if (s->type != FL_AVRO_UNION)
        return -1;
    for (uint32_t i = 0; i < s->nbranches; i++)
        if (s->branches[i]->type == FL_AVRO_NULL)
            return (int)i;
    return -1;
}

static int primitive_type(const char *s)
{
    for (int i = FL_AVRO_NULL; i <= FL_AVRO_STRING; i++)
        if (!strcmp(s, type_names[i]))
            return i;
    return -1;
}

static fl_status oom(parse_ctx *c)
{
    return fl_errorf(c->err, FL_ENOMEM, "out of memory");
}

static char *json_text(parse_ctx *c, const json_t *v)
{
    char *t = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    if (!t)
        return NULL;
    char *r = fl_arena_strdup(c->a, t);
    free(t);
    return r;
}

static fl_avro_schema *lookup_name(parse_ctx *c, const char *name, const char *space)
{
    char buf[1024];
    const char *full = name;
    if (!strchr(name, '.') && space && *space) {
        snprintf(buf, sizeof buf, "%s.%s", space, name);
        full = buf;
    }
    for (named_entry *e = c->names; e; e = e->next)
        if (!strcmp(e->s->fullname, full))
            return e->s;
    if (full != name) /* fall back to the null namespace */
        for (named_entry *e = c->names; e; e = e->next)
            if (!strcmp(e->s->fullname, name))
                return e->s;
    return NULL;
}

static fl_status parse_node(parse_ctx *c, json_t *j, const char *space, int depth,
                            fl_avro_schema **out, const char **ref);

/* Adds context to an error on the way out, except for limit errors, whose
 * cause would be pushed out of the message by hundreds of prefixes. */
static fl_status ctx_prefix(parse_ctx *c, fl_status rc, const char *what, const char *name)
{
    if (rc == FL_ELIMIT || !c->err)
        return rc;
    if (name)
        fl_error_prefix(c->err, "%s '%s'", what, name);
    else
        fl_error_prefix(c->err, "%s", what);
    return rc;
}

/* Records all keys of object j as props; keys listed in structural get NULL json. */
static fl_status record_props(parse_ctx *c, json_t *j, const char *const *structural,
                              fl_avro_prop **props, uint32_t *nprops)
{
    size_t n = json_object_size(j);
    fl_avro_prop *p = fl_arena_calloc(c->a, n ? n : 1, sizeof *p);
    if (!p)
        return oom(c);
    size_t i = 0;
    const char *key;
    json_t *val;
    json_object_foreach(j, key, val)
    {
        p[i].key = fl_arena_strdup(c->a, key);
        bool st = false;
        for (const char *const *k = structural; *k; k++)
            if (!strcmp(*k, key))
                st = true;
        p[i].json = st ? NULL : json_text(c, val);
        if (!p[i].key || (!st && !p[i].json))
            return oom(c);
        i++;
    }
    *props = p;
    *nprops = (uint32_t)n;
    return FL_OK;
}

static fl_status parse_aliases(parse_ctx *c, json_t *j, const char ***out, uint32_t *n)
{
    json_t *al = json_object_get(j, "aliases");
    *out = NULL;
    *n = 0;
    if (!al)
        return FL_OK;
    if (!json_is_array(al))
        return fl_errorf(c->err, FL_ECORRUPT, "\"aliases\" must be an array of strings");
    size_t k = json_array_size(al);
    const char **v = fl_arena_calloc(c->a, k ? k : 1, sizeof *v);
    if (!v)
        return oom(c);
    for (size_t i = 0; i < k; i++) {
        json_t *e = json_array_get(al, i);
        if (!json_is_string(e))
            return fl_errorf(c->err, FL_ECORRUPT, "\"aliases\" must be an array of strings");
        if (!(v[i] = fl_arena_strdup(c->a, json_string_value(e))))
            return oom(c);
    }
    *out = v;
    *n = (uint32_t)k;
    return FL_OK;
}

static bool get_int_attr(json_t *j, const char *key, int32_t *out)
{
    json_t *v = json_object_get(j, key);
    if (json_is_integer(v) && json_integer_value(v) >= INT32_MIN &&
        json_integer_value(v) <= INT32_MAX) {
        *out = (int32_t)json_integer_value(v);
        return true;
    }
    if (json_is_string(v)) { /* some writers quote ids */
        char *end;
        long long x = strtoll(json_string_value(v), &end, 10);
        if (*json_string_value(v) && !*end && x >= INT32_MIN && x <= INT32_MAX) {
            *out = (int32_t)x;
            return true;
        }
    }
    return false;
}

static void parse_logical(json_t *j, fl_avro_schema *s, parse_ctx *c)
{
    json_t *lt = json_object_get(j, "logicalType");
    if (!json_is_string(lt))
        return;
    const char *n = json_string_value(lt);
    s->logical_name = fl_arena_strdup(c->a, n);
    static const struct {
        const char *name;
        fl_avro_logical l;
        int type; /* required physical type, -1 = bytes or fixed */
    } tab[] = {
        {"decimal", FL_AVRO_LOGICAL_DECIMAL, -1},
        {"uuid", FL_AVRO_LOGICAL_UUID, -2},
        {"date", FL_AVRO_LOGICAL_DATE, FL_AVRO_INT},
        {"time-millis", FL_AVRO_LOGICAL_TIME_MILLIS, FL_AVRO_INT},
        {"time-micros", FL_AVRO_LOGICAL_TIME_MICROS, FL_AVRO_LONG},
        {"timestamp-millis", FL_AVRO_LOGICAL_TIMESTAMP_MILLIS, FL_AVRO_LONG},
        {"timestamp-micros", FL_AVRO_LOGICAL_TIMESTAMP_MICROS, FL_AVRO_LONG},
        {"timestamp-nanos", FL_AVRO_LOGICAL_TIMESTAMP_NANOS, FL_AVRO_LONG},
        {"local-timestamp-millis", FL_AVRO_LOGICAL_LOCAL_TIMESTAMP_MILLIS, FL_AVRO_LONG},
        {"local-timestamp-micros", FL_AVRO_LOGICAL_LOCAL_TIMESTAMP_MICROS, FL_AVRO_LONG},
        {"local-timestamp-nanos", FL_AVRO_LOGICAL_LOCAL_TIMESTAMP_NANOS, FL_AVRO_LONG},
        {"duration", FL_AVRO_LOGICAL_DURATION, FL_AVRO_FIXED},
    };
    s->logical = FL_AVRO_LOGICAL_OTHER;
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++) {
        if (strcmp(n, tab[i].name))
            continue;
        bool ok;
        if (tab[i].type == -1)
            ok = s->type == FL_AVRO_BYTES || s->type == FL_AVRO_FIXED;
        else if (tab[i].type == -2)
            ok = s->type == FL_AVRO_STRING || (s->type == FL_AVRO_FIXED && s->size == 16);
        else
            ok = (int)s->type == tab[i].type;
        if (tab[i].l == FL_AVRO_LOGICAL_DURATION)
            ok = ok && s->size == 12;
        if (tab[i].l == FL_AVRO_LOGICAL_DECIMAL) {
            int32_t p = 0, sc = 0;
            ok = ok && get_int_attr(j, "precision", &p) && p > 0;
            if (json_object_get(j, "scale"))
                ok = ok && get_int_attr(j, "scale", &sc) && sc >= 0 && sc <= p;
            s->precision = p;
            s->scale = sc;
        }
        /* Spec: an invalid logical type is ignored (the physical type stands). */
        s->logical = ok ? tab[i].l : FL_AVRO_LOGICAL_OTHER;
        return;
    }
}

static fl_status set_name(parse_ctx *c, json_t *j, const char *space, fl_avro_schema *s)
{
    json_t *n = json_object_get(j, "name");
    if (!json_is_string(n) || !*json_string_value(n))
        return fl_errorf(c->err, FL_ECORRUPT, "%s schema without a \"name\"",
                         fl_avro_type_name(s->type));
    const char *name = json_string_value(n);
    const char *dot = strrchr(name, '.');
    if (dot) {
        s->space = fl_arena_strndup(c->a, name, (size_t)(dot - name));
        s->name = fl_arena_strdup(c->a, dot + 1);
    } else {
        json_t *ns = json_object_get(j, "namespace");
        s->space = fl_arena_strdup(c->a, json_is_string(ns)         ? json_string_value(ns)
                                         : (ns && json_is_null(ns)) ? ""
                                                                    : (space ? space : ""));
        s->name = fl_arena_strdup(c->a, name);
    }
    if (!s->space || !s->name)
        return oom(c);
    s->fullname = *s->space ? fl_arena_sprintf(c->a, "%s.%s", s->space, s->name) : s->name;
    if (!s->fullname)
        return oom(c);
    /* every dot-separated part must be non-empty ("a..b", ".x", "x." are not names) */
    for (const char *p = s->fullname, *part = p;; p++) {
        if (*p == '.' || *p == '\0') {
            if (p == part)
                return fl_errorf(c->err, FL_ECORRUPT, "invalid type name '%s'", s->fullname);
            if (*p == '\0')
                break;
            part = p + 1;
        }
    }
    if (primitive_type(s->fullname) >= 0)
        return fl_errorf(c->err, FL_ECORRUPT, "named type may not be called '%s'", s->fullname);
    for (named_entry *e = c->names; e; e = e->next)
        if (!strcmp(e->s->fullname, s->fullname))
            return fl_errorf(c->err, FL_ECORRUPT, "type '%s' defined twice", s->fullname);
    named_entry *e = fl_arena_alloc(c->a, sizeof *e);
    if (!e)
        return oom(c);
    e->s = s;
    e->next = c->names;
    c->names = e;
    c->nnamed++;
    return parse_aliases(c, j, &s->aliases, &s->naliases);
}

static fl_status parse_field(parse_ctx *c, json_t *fj, const char *space, int depth,
                             fl_avro_field *f)
{
    static const char *const st[] = {"type", NULL};
    if (!json_is_object(fj))
        return fl_errorf(c->err, FL_ECORRUPT, "record field must be a JSON object");
    json_t *n = json_object_get(fj, "name");
    if (!json_is_string(n))
        return fl_errorf(c->err, FL_ECORRUPT, "record field without a \"name\"");
    if (!(f->name = fl_arena_strdup(c->a, json_string_value(n))))
        return oom(c);
    json_t *t = json_object_get(fj, "type");
    if (!t)
        return fl_errorf(c->err, FL_ECORRUPT, "field '%s': no \"type\"", f->name);
    fl_status rc = parse_node(c, t, space, depth + 1, &f->type, &f->type_ref);
    if (rc)
        return ctx_prefix(c, rc, "field", f->name);
    json_t *d = json_object_get(fj, "default");
    if (d && !(f->default_json = json_text(c, d)))
        return oom(c);
    f->has_field_id = get_int_attr(fj, "field-id", &f->field_id);
    FL_TRY(parse_aliases(c, fj, &f->aliases, &f->naliases));
    return record_props(c, fj, st, &f->props, &f->nprops);
}

static fl_status parse_record(parse_ctx *c, json_t *j, fl_avro_schema *s, int depth)
{
    json_t *fields = json_object_get(j, "fields");
    if (!json_is_array(fields))
        return fl_errorf(c->err, FL_ECORRUPT, "record '%s': \"fields\" must be an array",
                         s->fullname);
    size_t n = json_array_size(fields);
    s->fields = fl_arena_calloc(c->a, n ? n : 1, sizeof *s->fields);
    if (!s->fields)
        return oom(c);
    s->nfields = (uint32_t)n;
    for (size_t i = 0; i < n; i++) {
        fl_status rc = parse_field(c, json_array_get(fields, i), s->space, depth, &s->fields[i]);
        if (rc)
            return ctx_prefix(c, rc, "record", s->fullname);
        for (size_t k = 0; k < i; k++)
            if (!strcmp(s->fields[k].name, s->fields[i].name))
                return fl_errorf(c->err, FL_ECORRUPT, "record '%s': duplicate field '%s'",
                                 s->fullname, s->fields[i].name);
    }
    return FL_OK;
}

static fl_status parse_enum(parse_ctx *c, json_t *j, fl_avro_schema *s)
{
    json_t *sy = json_object_get(j, "symbols");
    if (!json_is_array(sy))
        return fl_errorf(c->err, FL_ECORRUPT, "enum '%s': \"symbols\" must be an array",
                         s->fullname);
    size_t n = json_array_size(sy);
    s->symbols = fl_arena_calloc(c->a, n ? n : 1, sizeof *s->symbols);
    if (!s->symbols)
        return oom(c);
    s->nsymbols = (uint32_t)n;
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(sy, i);
        if (!json_is_string(e))
            return fl_errorf(c->err, FL_ECORRUPT, "enum '%s': symbols must be strings",
                             s->fullname);
        if (!(s->symbols[i] = fl_arena_strdup(c->a, json_string_value(e))))
            return oom(c);
        for (size_t k = 0; k < i; k++)
            if (!strcmp(s->symbols[k], s->symbols[i]))
                return fl_errorf(c->err, FL_ECORRUPT, "enum '%s': duplicate symbol '%s'",
                                 s->fullname, s->symbols[i]);
    }
    s->enum_default = -1;
    json_t *d = json_object_get(j, "default");
    if (json_is_string(d))
        for (size_t i = 0; i < n; i++)
            if (!strcmp(s->symbols[i], json_string_value(d)))
                s->enum_default = (int32_t)i;
    return FL_OK;
}

static fl_avro_schema *new_node(parse_ctx *c, fl_avro_type t)
{
    fl_avro_schema *s = fl_arena_calloc(c->a, 1, sizeof *s);
    if (!s)
        return NULL;
    s->type = t;
    s->space = "";
    s->enum_default = -1;
    s->element_id = s->key_id = s->value_id = -1;
    return s;
}

static fl_status parse_union(parse_ctx *c, json_t *j, const char *space, int depth,
                             fl_avro_schema **out)
{
    fl_avro_schema *s = new_node(c, FL_AVRO_UNION);
    if (!s)
        return oom(c);
    size_t n = json_array_size(j);
    s->branches = fl_arena_calloc(c->a, n ? n : 1, sizeof *s->branches);
    s->branch_refs = fl_arena_calloc(c->a, n ? n : 1, sizeof *s->branch_refs);
    if (!s->branches || !s->branch_refs)
        return oom(c);
    s->nbranches = (uint32_t)n;
    for (size_t i = 0; i < n; i++) {
        fl_status rc = parse_node(c, json_array_get(j, i), space, depth + 1, &s->branches[i],
                                  &s->branch_refs[i]);
        if (rc) {
            if (rc != FL_ELIMIT)
                fl_error_prefix(c->err, "union branch %zu", i);
            return rc;
        }
        fl_avro_schema *b = s->branches[i];
        if (b->type == FL_AVRO_UNION)
            return fl_errorf(c->err, FL_ECORRUPT, "union branch %zu is itself a union", i);
        for (size_t k = 0; k < i; k++) {
            fl_avro_schema *o = s->branches[k];
            if (o->type == b->type && (!fl_avro_schema_is_named(b) || o == b))
                return fl_errorf(c->err, FL_ECORRUPT, "union has two branches of type %s",
                                 fl_avro_schema_is_named(b) ? b->fullname
                                                            : fl_avro_type_name(b->type));
        }
    }
    *out = s;
    return FL_OK;
}

static fl_status parse_object(parse_ctx *c, json_t *j, const char *space, int depth,
                              fl_avro_schema **out)
{
    static const char *const st_record[] = {"fields", NULL};
    static const char *const st_array[] = {"items", NULL};
    static const char *const st_map[] = {"values", NULL};
    static const char *const st_none[] = {NULL};
    json_t *tj = json_object_get(j, "type");
    if (!tj)
        return fl_errorf(c->err, FL_ECORRUPT, "schema object without \"type\"");
    if (!json_is_string(tj)) /* {"type": {...}} or {"type": [...]}: the inner schema */
        return parse_node(c, tj, space, depth + 1, out, NULL);
    const char *t = json_string_value(tj);
    int prim = primitive_type(t);
    fl_avro_type type;
    const char *const *st = st_none;
    if (prim >= 0)
        type = (fl_avro_type)prim;
    else if (!strcmp(t, "record") || !strcmp(t, "error"))
        type = FL_AVRO_RECORD, st = st_record;
    else if (!strcmp(t, "enum"))
        type = FL_AVRO_ENUM;
    else if (!strcmp(t, "array"))
        type = FL_AVRO_ARRAY, st = st_array;
    else if (!strcmp(t, "map"))
        type = FL_AVRO_MAP, st = st_map;
    else if (!strcmp(t, "fixed"))
        type = FL_AVRO_FIXED;
    else {
        fl_avro_schema *ref = lookup_name(c, t, space);
        if (!ref)
            return fl_errorf(c->err, FL_ECORRUPT, "unknown type '%s'", t);
        *out = ref;
        return FL_OK;
    }
    fl_avro_schema *s = new_node(c, type);
    if (!s)
        return oom(c);
    s->is_object = true;
    *out = s;
    FL_TRY(record_props(c, j, st, &s->props, &s->nprops));
    switch (type) {
    case FL_AVRO_RECORD:
        FL_TRY(set_name(c, j, space, s));
        FL_TRY(parse_record(c, j, s, depth));
        break;
    case FL_AVRO_ENUM:
        FL_TRY(set_name(c, j, space, s));
        FL_TRY(parse_enum(c, j, s));
        break;
    case FL_AVRO_FIXED: {
        FL_TRY(set_name(c, j, space, s));
        json_t *sz = json_object_get(j, "size");
        if (!json_is_integer(sz) || json_integer_value(sz) < 0 ||
            json_integer_value(sz) > INT32_MAX)
            return fl_errorf(c->err, FL_ECORRUPT, "fixed '%s': bad \"size\"", s->fullname);
        s->size = (int32_t)json_integer_value(sz);
        break;
    }
    case FL_AVRO_ARRAY: {
        json_t *it = json_object_get(j, "items");
        if (!it)
            return fl_errorf(c->err, FL_ECORRUPT, "array schema without \"items\"");
        fl_status rc = parse_node(c, it, space, depth + 1, &s->items, &s->items_ref);
        if (rc)
            return ctx_prefix(c, rc, "array items", NULL);
        get_int_attr(j, "element-id", &s->element_id);
        break;
    }
    case FL_AVRO_MAP: {
        json_t *v = json_object_get(j, "values");
        if (!v)
            return fl_errorf(c->err, FL_ECORRUPT, "map schema without \"values\"");
        fl_status rc = parse_node(c, v, space, depth + 1, &s->values, &s->values_ref);
        if (rc)
            return ctx_prefix(c, rc, "map values", NULL);
        get_int_attr(j, "key-id", &s->key_id);
        get_int_attr(j, "value-id", &s->value_id);
        break;
    }
    default: break;
    }
    parse_logical(j, s, c);
    return FL_OK;
}

static fl_status parse_node(parse_ctx *c, json_t *j, const char *space, int depth,
                            fl_avro_schema **out, const char **ref)
{
    if (ref)
        *ref = NULL;
    if (depth > SCHEMA_MAX_DEPTH)
        return fl_errorf(c->err, FL_ELIMIT, "schema nested deeper than %d", SCHEMA_MAX_DEPTH);
    if (json_is_string(j)) {
        const char *t = json_string_value(j);
        int prim = primitive_type(t);
        if (prim >= 0) {
            if (!(*out = new_node(c, (fl_avro_type)prim)))
                return oom(c);
            return FL_OK;
        }
        fl_avro_schema *named = lookup_name(c, t, space);
        if (!named)
            return fl_errorf(c->err, FL_ECORRUPT, "unknown type '%s'", t);
        *out = named;
        if (ref && !(*ref = fl_arena_strdup(c->a, t)))
            return oom(c);
        return FL_OK;
    }
    if (json_is_array(j))
        return parse_union(c, j, space, depth, out);
    if (json_is_object(j))
        return parse_object(c, j, space, depth, out);
    return fl_errorf(c->err, FL_ECORRUPT, "schema must be a string, object or array");
}

fl_status fl_avro_schema_parse(fl_arena *a, const char *json, size_t len, fl_avro_schema **out,
                               fl_error *err)
{
    json_error_t je;
    json_t *root = json_loadb(json, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
    if (!root)
        return fl_errorf(err, FL_ECORRUPT, "schema JSON: %s at line %d column %d", je.text, je.line,
                         je.column);
    parse_ctx c = {.a = a, .err = err};
    fl_status rc = parse_node(&c, root, "", 0, out, NULL);
    json_decref(root);
    return rc;
}

/* ------------------------------------------------------------ writing */

typedef struct write_ctx {
    fl_avro_buf b;
    bool ok;
    const fl_avro_schema **done; /* named types already written */
    size_t ndone, cap;
} write_ctx;

static bool was_written(write_ctx *w, const fl_avro_schema *s)
{
    for (size_t i = 0; i < w->ndone; i++)
        if (w->done[i] == s)
            return true;
    return false;
}

static void mark_written(write_ctx *w, const fl_avro_schema *s)
{
    if (w->ndone == w->cap) {
        size_t nc = w->cap ? w->cap * 2 : 16;
        const fl_avro_schema **d = realloc(w->done, nc * sizeof *d);
        if (!d) {
            w->ok = false;
            return;
        }
        w->done = d;
        w->cap = nc;
    }
    w->done[w->ndone++] = s;
}

static void put(write_ctx *w, const char *s)
{
    if (w->ok && !avro_buf_puts(&w->b, s))
        w->ok = false;
}

static void put_str(write_ctx *w, const char *s)
{
    if (w->ok && !avro_buf_json_str(&w->b, s, strlen(s)))
        w->ok = false;
}

static void write_node(write_ctx *w, const fl_avro_schema *s, const char *space, const char *ref);

static void write_field(write_ctx *w, const fl_avro_field *f, const char *space)
{
    put(w, "{");
    for (uint32_t i = 0; i < f->nprops; i++) {
        if (i)
            put(w, ",");
        put_str(w, f->props[i].key);
        put(w, ":");
        if (f->props[i].json)
            put(w, f->props[i].json);
        else
            write_node(w, f->type, space, f->type_ref);
    }
    put(w, "}");
}

static void write_ref(write_ctx *w, const fl_avro_schema *s, const char *space)
{
    put_str(w, strcmp(s->space, space ? space : "") == 0 ? s->name : s->fullname);
}

/* ref: how the original spelled this position when it was a reference. */
static void write_node(write_ctx *w, const fl_avro_schema *s, const char *space, const char *ref)
{
    if (s->type == FL_AVRO_UNION) {
        put(w, "[");
        for (uint32_t i = 0; i < s->nbranches; i++) {
            if (i)
                put(w, ",");
            write_node(w, s->branches[i], space, s->branch_refs ? s->branch_refs[i] : NULL);
        }
        put(w, "]");
        return;
    }
    if (fl_avro_schema_is_named(s)) {
        if (was_written(w, s)) {
            if (ref)
                put_str(w, ref);
            else
                write_ref(w, s, space);
            return;
        }
        mark_written(w, s);
        space = s->space;
    }
    if (!s->is_object) {
        put_str(w, fl_avro_type_name(s->type));
        return;
    }
    put(w, "{");
    for (uint32_t i = 0; i < s->nprops; i++) {
        const fl_avro_prop *p = &s->props[i];
        if (i)
            put(w, ",");
        put_str(w, p->key);
        put(w, ":");
        if (p->json) {
            put(w, p->json);
        } else if (s->type == FL_AVRO_RECORD) {
            put(w, "[");
            for (uint32_t k = 0; k < s->nfields; k++) {
                if (k)
                    put(w, ",");
                write_field(w, &s->fields[k], space);
            }
            put(w, "]");
        } else if (s->type == FL_AVRO_ARRAY) {
            write_node(w, s->items, space, s->items_ref);
        } else if (s->type == FL_AVRO_MAP) {
            write_node(w, s->values, space, s->values_ref);
        }
    }
    put(w, "}");
}

static char *finish(fl_arena *a, write_ctx *w)
{
    char *r = NULL;
    if (w->ok)
        r = fl_arena_strndup(a, (const char *)w->b.data ? (const char *)w->b.data : "", w->b.len);
    fl_avro_buf_free(&w->b);
    free(w->done);
    return r;
}

char *fl_avro_schema_to_json(fl_arena *a, const fl_avro_schema *s)
{
    write_ctx w = {.ok = true};
    write_node(&w, s, "", NULL);
    return finish(a, &w);
}

/* Parsing Canonical Form: [PRIMITIVES] [FULLNAMES] [STRIP] [ORDER] [STRINGS]
 * [INTEGERS] [WHITESPACE]. Named types appear in full once, then by full name. */
static void canon_node(write_ctx *w, const fl_avro_schema *s)
{
    char num[32];
    switch (s->type) {
    case FL_AVRO_UNION:
        put(w, "[");
        for (uint32_t i = 0; i < s->nbranches; i++) {
            if (i)
                put(w, ",");
            canon_node(w, s->branches[i]);
        }
        put(w, "]");
        return;
    case FL_AVRO_RECORD:
    case FL_AVRO_ENUM:
    case FL_AVRO_FIXED:
        if (was_written(w, s)) {
            put_str(w, s->fullname);
            return;
        }
        mark_written(w, s);
        put(w, "{\"name\":");
        put_str(w, s->fullname);
        put(w, ",\"type\":");
        put_str(w, fl_avro_type_name(s->type));
        if (s->type == FL_AVRO_RECORD) {
            put(w, ",\"fields\":[");
            for (uint32_t i = 0; i < s->nfields; i++) {
                put(w, i ? ",{\"name\":" : "{\"name\":");
                put_str(w, s->fields[i].name);
                put(w, ",\"type\":");
                canon_node(w, s->fields[i].type);
                put(w, "}");
            }
            put(w, "]");
        } else if (s->type == FL_AVRO_ENUM) {
            put(w, ",\"symbols\":[");
            for (uint32_t i = 0; i < s->nsymbols; i++) {
                if (i)
                    put(w, ",");
                put_str(w, s->symbols[i]);
            }
            put(w, "]");
        } else {
            snprintf(num, sizeof num, ",\"size\":%d", s->size);
            put(w, num);
        }
        put(w, "}");
        return;
    case FL_AVRO_ARRAY:
        put(w, "{\"type\":\"array\",\"items\":");
        canon_node(w, s->items);
        put(w, "}");
        return;
    case FL_AVRO_MAP:
        put(w, "{\"type\":\"map\",\"values\":");
        canon_node(w, s->values);
        put(w, "}");
        return;
    default: put_str(w, fl_avro_type_name(s->type)); return;
    }
}

char *fl_avro_schema_canonical(fl_arena *a, const fl_avro_schema *s)
{
    write_ctx w = {.ok = true};
    canon_node(&w, s);
    return finish(a, &w);
}

uint64_t fl_avro_crc64(const void *buf, size_t len)
{
    const uint64_t empty = 0xc15d213aa4d7a795ULL;
    uint64_t table[256];
    for (int i = 0; i < 256; i++) {
        uint64_t fp = (uint64_t)i;
        for (int j = 0; j < 8; j++)
            fp = (fp >> 1) ^ (empty & (0 - (fp & 1)));
        table[i] = fp;
    }
    uint64_t fp = empty;
    const uint8_t *p = buf;
    for (size_t i = 0; i < len; i++)
        fp = (fp >> 8) ^ table[(fp ^ p[i]) & 0xff];
    return fp;
}
