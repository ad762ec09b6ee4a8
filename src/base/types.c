/*
 * types.c - logical types, schemas and scalar values (see floe/types.h).
 *
 * Type names follow the Iceberg spec (format/spec.md, "Primitive Types"):
 * boolean int long float double decimal(P,S) date time timestamp timestamptz
 * timestamp_ns timestamptz_ns string uuid fixed[L] binary; nested types are
 * formatted as struct<name: type, ...>, list<type> and map<key, value>, with
 * " not null" after a required struct field.
 *
 * Nothing here allocates except the deep copies, which go into an arena.
 */
#include "floe/types.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t fl_type_width(const fl_type *t)
{
    switch (t->id) {
    case FL_TYPE_BOOLEAN: return 1;
    case FL_TYPE_INT32:
    case FL_TYPE_FLOAT32:
    case FL_TYPE_DATE: return 4;
    case FL_TYPE_INT64:
    case FL_TYPE_FLOAT64:
    case FL_TYPE_TIME:
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ:
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS: return 8;
    case FL_TYPE_DECIMAL:
    case FL_TYPE_UUID: return 16;
    case FL_TYPE_FIXED: return t->fixed_len > 0 ? (size_t)t->fixed_len : 0;
    default: return 0;
    }
}

static const char *const primitive_names[FL_TYPE__COUNT] = {
    [FL_TYPE_BOOLEAN] = "boolean",
    [FL_TYPE_INT32] = "int",
    [FL_TYPE_INT64] = "long",
    [FL_TYPE_FLOAT32] = "float",
    [FL_TYPE_FLOAT64] = "double",
    [FL_TYPE_DATE] = "date",
    [FL_TYPE_TIME] = "time",
    [FL_TYPE_TIMESTAMP] = "timestamp",
    [FL_TYPE_TIMESTAMPTZ] = "timestamptz",
    [FL_TYPE_TIMESTAMP_NS] = "timestamp_ns",
    [FL_TYPE_TIMESTAMPTZ_NS] = "timestamptz_ns",
    [FL_TYPE_STRING] = "string",
    [FL_TYPE_UUID] = "uuid",
    [FL_TYPE_BINARY] = "binary",
};

/* snprintf that appends at *len, tracking the length needed even when the
 * buffer is full. */
typedef struct fmtbuf {
    char *buf;
    size_t cap;
    size_t len;
} fmtbuf;

static void fmt_add(fmtbuf *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void fmt_add(fmtbuf *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *dst = f->len < f->cap ? f->buf + f->len : NULL;
    size_t room = f->len < f->cap ? f->cap - f->len : 0;
    int n = vsnprintf(dst, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        f->len += (size_t)n;
}

static const char *const edge_names[] = {"spherical", "vincenty", "thomas", "andoyer",
                                         "karney"};

const char *fl_geo_edges_name(int edges)
{
    return edges >= 0 && edges < 5 ? edge_names[edges] : edge_names[0];
}

/* geometry, geometry(C), geography, geography(C), geography(C, A): the
 * defaults (OGC:CRS84, spherical) are left out as Iceberg's writers do. */
static void fmt_geo(fmtbuf *f, const fl_type *t)
{
    bool geog = t->ext == FL_EXT_GEOGRAPHY;
    const char *edges = fl_geo_edges_name(t->edges);
    fmt_add(f, "%s", geog ? "geography" : "geometry");
    if (geog && t->edges != FL_EDGES_SPHERICAL)
        fmt_add(f, "(%s, %s)", t->crs ? t->crs : "OGC:CRS84", edges);
    else if (t->crs)
        fmt_add(f, "(%s)", t->crs);
}

static void fmt_type(fmtbuf *f, const fl_type *t)
{
    if (fl_type_is_geo(t)) {
        fmt_geo(f, t);
        return;
    }
    if (fl_type_is_variant(t)) {
        fmt_add(f, "variant");
        return;
    }
    switch (t->id) {
    case FL_TYPE_DECIMAL: fmt_add(f, "decimal(%d, %d)", t->precision, t->scale); return;
    case FL_TYPE_FIXED: fmt_add(f, "fixed[%d]", t->fixed_len); return;
    case FL_TYPE_STRUCT:
        fmt_add(f, "struct<");
        for (uint32_t i = 0; i < t->nchildren; i++) {
            const fl_field *c = &t->children[i];
            fmt_add(f, "%s%s: ", i ? ", " : "", c->name ? c->name : "");
            fmt_type(f, &c->type);
            if (!c->nullable)
                fmt_add(f, " not null");
        }
        fmt_add(f, ">");
        return;
    case FL_TYPE_LIST:
        fmt_add(f, "list<");
        if (t->nchildren >= 1)
            fmt_type(f, &t->children[0].type);
        fmt_add(f, ">");
        return;
    case FL_TYPE_MAP:
        fmt_add(f, "map<");
        if (t->nchildren >= 2) {
            fmt_type(f, &t->children[0].type);
            fmt_add(f, ", ");
            fmt_type(f, &t->children[1].type);
        }
        fmt_add(f, ">");
        return;
    default:
        if (t->id > 0 && t->id < FL_TYPE__COUNT && primitive_names[t->id])
            fmt_add(f, "%s", primitive_names[t->id]);
        else
            fmt_add(f, "unknown(%d)", (int)t->id);
    }
}

size_t fl_type_format(const fl_type *t, char *buf, size_t cap)
{
    fmtbuf f = {buf, cap, 0};
    if (buf && cap)
        buf[0] = '\0';
    fmt_type(&f, t);
    return f.len;
}

/* Parses "<int>" with optional surrounding blanks; advances *p. */
static bool parse_int(const char **p, int32_t *out)
{
    const char *s = *p;
    while (*s == ' ')
        s++;
    if (!isdigit((unsigned char)*s))
        return false;
    long v = 0;
    while (isdigit((unsigned char)*s)) {
        v = v * 10 + (*s - '0');
        if (v > INT32_MAX)
            return false;
        s++;
    }
    while (*s == ' ')
        s++;
    *out = (int32_t)v;
    *p = s;
    return true;
}

/* geometry[(C)] and geography[(C[, A])]; C is copied into a (NULL: only the
 * forms without parameters parse). */
static bool parse_geo(fl_arena *a, const char *s, size_t n, fl_type *out)
{
    fl_type t;
    memset(&t, 0, sizeof t);
    t.id = FL_TYPE_BINARY;
    size_t kw;
    if (n >= 8 && strncmp(s, "geometry", 8) == 0)
        t.ext = FL_EXT_GEOMETRY, kw = 8;
    else if (n >= 9 && strncmp(s, "geography", 9) == 0)
        t.ext = FL_EXT_GEOGRAPHY, kw = 9;
    else
        return false;
    if (n == kw) {
        *out = t;
        return true;
    }
    if (!a || s[kw] != '(' || s[n - 1] != ')')
        return false;
    const char *p = s + kw + 1, *end = s + n - 1;
    const char *comma = memchr(p, ',', (size_t)(end - p));
    const char *crs_end = comma ? comma : end;
    while (p < crs_end && *p == ' ')
        p++;
    while (crs_end > p && crs_end[-1] == ' ')
        crs_end--;
    if (crs_end == p)
        return false;
    if (comma) {
        if (t.ext != FL_EXT_GEOGRAPHY)
            return false;
        const char *q = comma + 1;
        while (q < end && *q == ' ')
            q++;
        size_t qn = (size_t)(end - q);
        while (qn && q[qn - 1] == ' ')
            qn--;
        bool found = false;
        for (uint8_t i = 0; i < 5; i++)
            if (strlen(edge_names[i]) == qn && strncmp(edge_names[i], q, qn) == 0)
                t.edges = i, found = true;
        if (!found)
            return false;
    }
    size_t cn = (size_t)(crs_end - p);
    if (!(cn == 9 && strncmp(p, "OGC:CRS84", 9) == 0)) {
        char *crs = fl_arena_alloc(a, cn + 1);
        if (!crs)
            return false;
        memcpy(crs, p, cn);
        crs[cn] = '\0';
        t.crs = crs;
    }
    *out = t;
    return true;
}

bool fl_type_parse_primitive(const char *s, fl_type *out)
{
    return fl_type_parse_primitive_in(NULL, s, out);
}

bool fl_type_parse_primitive_in(fl_arena *a, const char *s, fl_type *out)
{
    fl_type t;
    memset(&t, 0, sizeof t);
    while (*s == ' ')
        s++;
    size_t n = strlen(s);
    while (n && s[n - 1] == ' ')
        n--;
    if (n > 8 && strncmp(s, "decimal(", 8) == 0 && s[n - 1] == ')') {
        const char *p = s + 8;
        if (!parse_int(&p, &t.precision) || *p++ != ',' || !parse_int(&p, &t.scale) ||
            p != s + n - 1)
            return false;
        if (t.precision < 1 || t.precision > 38 || t.scale < 0 || t.scale > t.precision)
            return false;
        t.id = FL_TYPE_DECIMAL;
        *out = t;
        return true;
    }
    if (n > 6 && strncmp(s, "fixed[", 6) == 0 && s[n - 1] == ']') {
        const char *p = s + 6;
        if (!parse_int(&p, &t.fixed_len) || p != s + n - 1 || t.fixed_len < 1)
            return false;
        t.id = FL_TYPE_FIXED;
        *out = t;
        return true;
    }
    if (parse_geo(a, s, n, out))
        return true;
    if (n == 7 && strncmp(s, "variant", 7) == 0) {
        t.id = FL_TYPE_BINARY;
        t.ext = FL_EXT_VARIANT;
        *out = t;
        return true;
    }
    for (int id = 1; id < FL_TYPE__COUNT; id++) {
        const char *name = primitive_names[id];
        if (name && strlen(name) == n && strncmp(name, s, n) == 0) {
            t.id = (fl_type_id)id;
            if (id == FL_TYPE_UUID)
                t.fixed_len = 16;
            *out = t;
            return true;
        }
    }
    return false;
}

static bool str_eq(const char *a, const char *b)
{
    if (!a || !b)
        return a == b || (!a && b && !*b) || (!b && a && !*a);
    return strcmp(a, b) == 0;
}

bool fl_type_equal(const fl_type *a, const fl_type *b)
{
    if (a->id != b->id)
        return false;
    switch (a->id) {
    case FL_TYPE_DECIMAL: return a->precision == b->precision && a->scale == b->scale;
    case FL_TYPE_FIXED: return a->fixed_len == b->fixed_len;
    case FL_TYPE_BINARY:
        return a->ext == b->ext && (a->ext != FL_EXT_GEOGRAPHY || a->edges == b->edges) &&
               (a->ext == FL_EXT_NONE || str_eq(a->crs, b->crs));
    case FL_TYPE_STRUCT:
    case FL_TYPE_LIST:
    case FL_TYPE_MAP:
        if (a->nchildren != b->nchildren)
            return false;
        for (uint32_t i = 0; i < a->nchildren; i++) {
            const fl_field *x = &a->children[i], *y = &b->children[i];
            if (x->field_id != y->field_id || x->nullable != y->nullable ||
                !str_eq(x->name, y->name) || !fl_type_equal(&x->type, &y->type))
                return false;
        }
        return true;
    default: return true;
    }
}

static fl_status copy_field(fl_arena *a, const fl_field *src, fl_field *dst);

fl_status fl_type_copy(fl_arena *a, const fl_type *src, fl_type *dst)
{
    *dst = *src;
    dst->children = NULL;
    if (src->crs && !(dst->crs = fl_arena_strdup(a, src->crs)))
        return FL_ENOMEM;
    if (src->nchildren == 0 || !src->children) {
        dst->nchildren = 0;
        return FL_OK;
    }
    dst->children = fl_arena_calloc(a, src->nchildren, sizeof *dst->children);
    if (!dst->children)
        return FL_ENOMEM;
    for (uint32_t i = 0; i < src->nchildren; i++)
        FL_TRY(copy_field(a, &src->children[i], &dst->children[i]));
    return FL_OK;
}

static fl_status copy_field(fl_arena *a, const fl_field *src, fl_field *dst)
{
    *dst = *src;
    if (src->name && !(dst->name = fl_arena_strdup(a, src->name)))
        return FL_ENOMEM;
    if (src->doc && !(dst->doc = fl_arena_strdup(a, src->doc)))
        return FL_ENOMEM;
    return fl_type_copy(a, &src->type, &dst->type);
}

fl_status fl_schema_copy(fl_arena *a, const fl_schema *src, fl_schema *dst)
{
    *dst = *src;
    dst->fields = NULL;
    if (src->nfields == 0)
        return FL_OK;
    dst->fields = fl_arena_calloc(a, src->nfields, sizeof *dst->fields);
    if (!dst->fields)
        return FL_ENOMEM;
    for (uint32_t i = 0; i < src->nfields; i++)
        FL_TRY(copy_field(a, &src->fields[i], &dst->fields[i]));
    return FL_OK;
}

const fl_field *fl_schema_find_name(const fl_schema *s, const char *name)
{
    for (uint32_t i = 0; i < s->nfields; i++)
        if (s->fields[i].name && strcmp(s->fields[i].name, name) == 0)
            return &s->fields[i];
    return NULL;
}

static const fl_field *find_id(const fl_field *fields, uint32_t n, int32_t id)
{
    for (uint32_t i = 0; i < n; i++) {
        if (fields[i].field_id == id)
            return &fields[i];
        const fl_type *t = &fields[i].type;
        if (t->nchildren && t->children) {
            const fl_field *f = find_id(t->children, t->nchildren, id);
            if (f)
                return f;
        }
    }
    return NULL;
}

const fl_field *fl_schema_find_id(const fl_schema *s, int32_t field_id)
{
    if (field_id <= 0)
        return NULL;
    return find_id(s->fields, s->nfields, field_id);
}

/* Java's Double.compare order: -0.0 < +0.0, NaN above +inf, NaN == NaN. */
static int cmp_double(double a, double b)
{
    bool na = a != a, nb = b != b;
    if (na || nb)
        return na && nb ? 0 : (na ? 1 : -1);
    if (a < b)
        return -1;
    if (a > b)
        return 1;
    bool sa = signbit(a) != 0, sb = signbit(b) != 0;
    return sa == sb ? 0 : (sa ? -1 : 1);
}

#define CMP3(x, y) ((x) < (y) ? -1 : (x) > (y) ? 1 : 0)

int fl_value_compare(const fl_value *a, const fl_value *b)
{
    switch (a->type.id) {
    case FL_TYPE_BOOLEAN: return CMP3((int)a->v.b, (int)b->v.b);
    case FL_TYPE_INT32:
    case FL_TYPE_DATE: return CMP3(a->v.i32, b->v.i32);
    case FL_TYPE_INT64:
    case FL_TYPE_TIME:
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ:
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS: return CMP3(a->v.i64, b->v.i64);
    case FL_TYPE_FLOAT32: return cmp_double(a->v.f32, b->v.f32);
    case FL_TYPE_FLOAT64: return cmp_double(a->v.f64, b->v.f64);
    case FL_TYPE_DECIMAL: return CMP3(a->v.dec, b->v.dec);
    case FL_TYPE_STRING:
    case FL_TYPE_BINARY:
    case FL_TYPE_FIXED:
    case FL_TYPE_UUID: {
        size_t la = a->v.bytes.len, lb = b->v.bytes.len;
        size_t n = la < lb ? la : lb;
        int c = n ? memcmp(a->v.bytes.ptr, b->v.bytes.ptr, n) : 0;
        if (c)
            return c < 0 ? -1 : 1;
        return CMP3(la, lb);
    }
    default: return 0;
    }
}

bool fl_type_same_shape(const fl_type *a, const fl_type *b)
{
    if (a->id != b->id)
        return false;
    if (a->id == FL_TYPE_DECIMAL)
        return a->precision == b->precision && a->scale == b->scale;
    if (a->id == FL_TYPE_FIXED)
        return a->fixed_len == b->fixed_len;
    if (a->nchildren != b->nchildren)
        return false;
    for (uint32_t i = 0; i < a->nchildren; i++)
        if (!fl_type_same_shape(&a->children[i].type, &b->children[i].type))
            return false;
    return true;
}
