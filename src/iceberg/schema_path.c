/*
 * schema_path.c - dotted column paths over fl_schema trees, used by table
 * creation (partition/sort sources, identifier fields) and evolution.
 *
 * A path is names joined by '.': "a", "s.x", "l.element.y", "m.value.z".
 * Inside lists and maps the "element" / "key" / "value" step may be omitted
 * when the next name is a field of the struct below it ("l.y"), as Java's
 * Schema.findField accepts. Names match exactly first; when no exact match
 * exists, a case-insensitive match is used if it is unique (Trino lowercases
 * identifiers). No memory is allocated except by ice_path_of (arena).
 */
#include <string.h>
#include <strings.h>

#include "iceberg/write_internal.h"

/* Finds name (n bytes) among fields; exact first, then unique case-insensitive. */
static fl_field *find_in(fl_field *f, uint32_t nf, const char *name, size_t n)
{
    fl_field *ci = NULL;
    uint32_t nci = 0;
    for (uint32_t i = 0; i < nf; i++) {
        if (!f[i].name || strlen(f[i].name) != n)
            continue;
        if (!memcmp(f[i].name, name, n))
            return &f[i];
        if (!strncasecmp(f[i].name, name, n)) {
            ci = &f[i];
            nci++;
        }
    }
    return nci == 1 ? ci : NULL;
}

/* Steps into t for the name: a struct's field, or a list/map slot (explicit
 * or skipped when the slot holds a struct). *holder gets the struct type the
 * field was found in. */
static fl_field *step(fl_type *t, const char *name, size_t n, fl_type **holder)
{
    if (t->id == FL_TYPE_STRUCT) {
        *holder = t;
        return find_in(t->children, t->nchildren, name, n);
    }
    if (t->id == FL_TYPE_LIST || t->id == FL_TYPE_MAP) {
        for (uint32_t i = 0; i < t->nchildren; i++)
            if (strlen(t->children[i].name) == n && !memcmp(t->children[i].name, name, n)) {
                *holder = t;
                return &t->children[i];
            }
        /* implicit element / value */
        fl_field *slot = &t->children[t->nchildren - 1];
        if (slot->type.id == FL_TYPE_STRUCT)
            return step(&slot->type, name, n, holder);
    }
    return NULL;
}

fl_field *ice_find_path(fl_schema *s, const char *p, fl_type **parent)
{
    if (!p || !*p)
        return NULL;
    /* a whole name containing dots (top-level field "a.b") wins */
    fl_field *whole = find_in(s->fields, s->nfields, p, strlen(p));
    if (whole) {
        if (parent)
            *parent = NULL;
        return whole;
    }
    const char *dot = strchr(p, '.');
    size_t n = dot ? (size_t)(dot - p) : strlen(p);
    fl_field *f = find_in(s->fields, s->nfields, p, n);
    fl_type *holder = NULL;
    while (f && dot) {
        p = dot + 1;
        dot = strchr(p, '.');
        n = dot ? (size_t)(dot - p) : strlen(p);
        f = step(&f->type, p, n, &holder);
    }
    if (f && parent)
        *parent = holder;
    return f;
}

const fl_field *ice_find_path_c(const fl_schema *s, const char *p)
{
    return ice_find_path((fl_schema *)s, p, NULL);
}

static bool path_rec(const fl_field *f, uint32_t nf, int32_t id, char *buf, size_t cap, size_t len,
                     bool is_struct)
{
    for (uint32_t i = 0; i < nf; i++) {
        size_t need = strlen(f[i].name) + (len ? 1 : 0);
        if (len + need + 1 > cap)
            continue;
        size_t l = len;
        if (l)
            buf[l++] = '.';
        strcpy(buf + l, f[i].name);
        l += strlen(f[i].name);
        if (f[i].field_id == id)
            return true;
        if (fl_type_is_nested(&f[i].type) && path_rec(f[i].type.children, f[i].type.nchildren, id,
                                                      buf, cap, l, f[i].type.id == FL_TYPE_STRUCT))
            return true;
        buf[len] = '\0';
    }
    (void)is_struct;
    return false;
}

const char *ice_path_of(const fl_schema *s, int32_t field_id, fl_arena *a)
{
    char buf[1024];
    buf[0] = '\0';
    if (!path_rec(s->fields, s->nfields, field_id, buf, sizeof buf, 0, true))
        return NULL;
    return fl_arena_strdup(a, buf);
}

static int32_t max_id(const fl_field *f, uint32_t n)
{
    int32_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (f[i].field_id > m)
            m = f[i].field_id;
        if (fl_type_is_nested(&f[i].type)) {
            int32_t c = max_id(f[i].type.children, f[i].type.nchildren);
            if (c > m)
                m = c;
        }
    }
    return m;
}

int32_t ice_max_field_id(const fl_schema *s)
{
    return max_id(s->fields, s->nfields);
}
