/*
 * types.c - SQL type rules: names (PostgreSQL spelling), parsing of type
 * names as libpg_query gives them, common supertypes, and the small
 * predicates overload resolution uses.
 *
 * Unknown literals are STRING with fixed_len == -1 (func.h).
 */
#include <stdio.h>
#include <ctype.h>
#include <strings.h>

#include "sql/func/func_internal.h"

fl_type fl_mk(fl_type_id id)
{
    fl_type t;
    memset(&t, 0, sizeof t);
    t.id = id;
    if (id == FL_TYPE_UUID)
        t.fixed_len = 16;
    return t;
}

fl_type fl_mk_dec(int32_t p, int32_t s)
{
    fl_type t = fl_mk(FL_TYPE_DECIMAL);
    if (p > 38)
        p = 38;
    if (s > p)
        s = p;
    if (p < 1)
        p = 1;
    t.precision = p;
    t.scale = s;
    return t;
}

fl_type fl_mk_interval(void)
{
    fl_type t = fl_mk(FL_TYPE_FIXED);
    t.fixed_len = 16;
    t.precision = FL_SQL_INTERVAL_MARK;
    return t;
}

fl_type fl_int_as_dec(const fl_type *t)
{
    return fl_mk_dec(t->id == FL_TYPE_INT32 ? 10 : 19, 0);
}

bool fl_is_unknown(const fl_type *t)
{
    return t->id == FL_TYPE_STRING && t->fixed_len == -1;
}
bool fl_is_integer(const fl_type *t)
{
    return t->id == FL_TYPE_INT32 || t->id == FL_TYPE_INT64;
}
bool fl_is_numeric(const fl_type *t)
{
    return fl_is_integer(t) || t->id == FL_TYPE_DECIMAL || t->id == FL_TYPE_FLOAT32 ||
           t->id == FL_TYPE_FLOAT64;
}
bool fl_is_temporal(const fl_type *t)
{
    return t->id == FL_TYPE_DATE || t->id == FL_TYPE_TIME || t->id == FL_TYPE_TIMESTAMP ||
           t->id == FL_TYPE_TIMESTAMPTZ || t->id == FL_TYPE_TIMESTAMP_NS ||
           t->id == FL_TYPE_TIMESTAMPTZ_NS;
}
bool fl_is_string(const fl_type *t)
{
    return t->id == FL_TYPE_STRING;
}

static int num_rank(fl_type_id id)
{
    switch (id) {
    case FL_TYPE_INT32: return 1;
    case FL_TYPE_INT64: return 2;
    case FL_TYPE_DECIMAL: return 3;
    case FL_TYPE_FLOAT32: return 4;
    case FL_TYPE_FLOAT64: return 5;
    default: return 0;
    }
}

static fl_type as_dec(const fl_type *t)
{
    return t->id == FL_TYPE_DECIMAL ? *t : fl_int_as_dec(t);
}

bool fl_type_common(const fl_type *a, const fl_type *b, fl_type *out)
{
    if (fl_is_unknown(a) && fl_is_unknown(b)) {
        *out = fl_mk(FL_TYPE_STRING);
        return true;
    }
    if (fl_is_unknown(a)) {
        *out = *b;
        return true;
    }
    if (fl_is_unknown(b)) {
        *out = *a;
        return true;
    }
    int ra = num_rank(a->id), rb = num_rank(b->id);
    if (ra && rb) {
        if (a->id == FL_TYPE_DECIMAL || b->id == FL_TYPE_DECIMAL) {
            if (ra > 3 || rb > 3) {
                *out = fl_mk(FL_TYPE_FLOAT64);
                return true;
            }
            fl_type x = as_dec(a), y = as_dec(b);
            int32_t s = x.scale > y.scale ? x.scale : y.scale;
            int32_t ip = x.precision - x.scale > y.precision - y.scale ? x.precision - x.scale
                                                                       : y.precision - y.scale;
            *out = fl_mk_dec(ip + s, s);
            if (ip + s > 38)
                *out = fl_mk_dec(38, s > 38 - ip ? (38 - ip > 0 ? 38 - ip : 0) : s);
            return true;
        }
        if (a->id == FL_TYPE_FLOAT32 && b->id == FL_TYPE_FLOAT32) {
            *out = *a;
            return true;
        }
        *out = fl_mk(ra >= rb ? a->id : b->id);
        if (out->id == FL_TYPE_FLOAT32)
            out->id = FL_TYPE_FLOAT64;
        return true;
    }
    if (fl_type_equal(a, b)) {
        *out = *a; /* nested: the children are a's (borrowed) */
        if (a->id == FL_TYPE_STRING)
            out->fixed_len = 0;
        return true;
    }
    /* a list and text (ARRAY[...] is PostgreSQL array text): the list
     * (text -> list casts parse the array syntax, cast_list.c) */
    /* NULL (an unknown literal) beside a struct or map: the nested type */
    if (fl_type_is_nested(a) && fl_is_unknown(b)) {
        *out = *a;
        return true;
    }
    if (fl_type_is_nested(b) && fl_is_unknown(a)) {
        *out = *b;
        return true;
    }
    if (a->id == FL_TYPE_LIST && b->id == FL_TYPE_STRING &&
        fl_cast_allowed(b, a, false)) {
        *out = *a;
        return true;
    }
    if (b->id == FL_TYPE_LIST && a->id == FL_TYPE_STRING &&
        fl_cast_allowed(a, b, false)) {
        *out = *b;
        return true;
    }
    if (fl_is_temporal(a) && fl_is_temporal(b) && a->id != FL_TYPE_TIME && b->id != FL_TYPE_TIME) {
        /* DATE < TIMESTAMP < TIMESTAMPTZ; nanosecond variants win over micro */
        bool tz = a->id == FL_TYPE_TIMESTAMPTZ || b->id == FL_TYPE_TIMESTAMPTZ ||
                  a->id == FL_TYPE_TIMESTAMPTZ_NS || b->id == FL_TYPE_TIMESTAMPTZ_NS;
        bool ns = a->id == FL_TYPE_TIMESTAMP_NS || b->id == FL_TYPE_TIMESTAMP_NS ||
                  a->id == FL_TYPE_TIMESTAMPTZ_NS || b->id == FL_TYPE_TIMESTAMPTZ_NS;
        *out = fl_mk(ns ? (tz ? FL_TYPE_TIMESTAMPTZ_NS : FL_TYPE_TIMESTAMP_NS)
                        : (tz ? FL_TYPE_TIMESTAMPTZ : FL_TYPE_TIMESTAMP));
        return true;
    }
    if (a->id == FL_TYPE_STRING && b->id == FL_TYPE_STRING) {
        *out = fl_mk(FL_TYPE_STRING);
        return true;
    }
    if ((a->id == FL_TYPE_BINARY || a->id == FL_TYPE_FIXED) && (b->id == FL_TYPE_BINARY || b->id == FL_TYPE_FIXED) &&
        !fl_type_is_interval(a) && !fl_type_is_interval(b)) {
        *out = fl_mk(FL_TYPE_BINARY);
        if (a->id == FL_TYPE_BINARY && fl_type_equal(a, b)) /* geometry with geometry stays geometry */
            *out = *a;
        return true;
    }
    return false;
}

/* Nested types of the same shape (struct of as many fields, list, map) meet
 * child by child: ROW(1, NULL) and ROW(NULL, 'b') make ROW(integer, text), as
 * a row type's fields do in PostgreSQL's VALUES. Field names and ids are the
 * first type's; the children are new in a. */
static bool common_children(fl_arena *a, const fl_type *x, const fl_type *y, fl_type *out)
{
    fl_field *kids = fl_arena_calloc(a, x->nchildren, sizeof *kids);
    if (!kids)
        return false;
    for (uint32_t i = 0; i < x->nchildren; i++) {
        kids[i] = x->children[i];
        if (!fl_type_common_in(a, &x->children[i].type, &y->children[i].type, &kids[i].type))
            return false;
        kids[i].nullable = x->children[i].nullable || y->children[i].nullable;
    }
    *out = *x;
    out->children = kids;
    return true;
}

bool fl_type_common_in(fl_arena *a, const fl_type *x, const fl_type *y, fl_type *out)
{
    bool same_shape = x->id == y->id && fl_type_is_nested(x) && x->nchildren == y->nchildren &&
                      x->nchildren > 0;
    if (same_shape && !fl_type_equal(x, y))
        return common_children(a, x, y, out);
    return fl_type_common(x, y, out);
}

const char *fl_sql_type_name(const fl_type *t, char *buf, size_t cap)
{
    const char *s = NULL;
    char tmp[256];
    switch (t->id) {
    case FL_TYPE_BOOLEAN: s = "boolean"; break;
    case FL_TYPE_INT32: s = "integer"; break;
    case FL_TYPE_INT64: s = "bigint"; break;
    case FL_TYPE_FLOAT32: s = "real"; break;
    case FL_TYPE_FLOAT64: s = "double precision"; break;
    case FL_TYPE_DECIMAL:
        snprintf(tmp, sizeof tmp, "numeric(%d,%d)", t->precision, t->scale);
        s = tmp;
        break;
    case FL_TYPE_DATE: s = "date"; break;
    case FL_TYPE_TIME: s = "time without time zone"; break;
    case FL_TYPE_TIMESTAMP: s = "timestamp without time zone"; break;
    case FL_TYPE_TIMESTAMPTZ: s = "timestamp with time zone"; break;
    case FL_TYPE_TIMESTAMP_NS: s = "timestamp(9) without time zone"; break;
    case FL_TYPE_TIMESTAMPTZ_NS: s = "timestamp(9) with time zone"; break;
    case FL_TYPE_STRING: s = t->fixed_len == -1 ? "unknown" : "text"; break;
    case FL_TYPE_UUID: s = "uuid"; break;
    case FL_TYPE_FIXED:
        if (fl_type_is_interval(t))
            s = "interval";
        else {
            snprintf(tmp, sizeof tmp, "fixed(%d)", t->fixed_len);
            s = tmp;
        }
        break;
    case FL_TYPE_BINARY:
        s = t->ext == FL_EXT_GEOMETRY    ? "geometry"
            : t->ext == FL_EXT_GEOGRAPHY ? "geography"
            : t->ext == FL_EXT_VARIANT   ? "variant"
                                         : "bytea";
        break;
    case FL_TYPE_LIST: {
        char inner[200];
        if (t->nchildren >= 1 && t->children) {
            fl_sql_type_name(&t->children[0].type, inner, sizeof inner);
            snprintf(tmp, sizeof tmp, "%s[]", inner);
        } else
            snprintf(tmp, sizeof tmp, "anyarray");
        s = tmp;
        break;
    }
    case FL_TYPE_STRUCT: s = "record"; break;
    case FL_TYPE_MAP: s = "map"; break;
    default: s = "unknown"; break;
    }
    if (cap) {
        size_t n = strlen(s);
        if (n >= cap)
            n = cap - 1;
        memmove(buf, s, n);
        buf[n] = 0;
    }
    return buf;
}

static const struct {
    const char *name;
    fl_type_id id;
} type_names[] = {
    {"bool", FL_TYPE_BOOLEAN},
    {"boolean", FL_TYPE_BOOLEAN},
    {"int2", FL_TYPE_INT32},
    {"smallint", FL_TYPE_INT32},
    {"int4", FL_TYPE_INT32},
    {"int", FL_TYPE_INT32},
    {"integer", FL_TYPE_INT32},
    {"tinyint", FL_TYPE_INT32},
    {"int8", FL_TYPE_INT64},
    {"bigint", FL_TYPE_INT64},
    {"long", FL_TYPE_INT64},
    {"float4", FL_TYPE_FLOAT32},
    {"real", FL_TYPE_FLOAT32},
    {"float", FL_TYPE_FLOAT64},
    {"float8", FL_TYPE_FLOAT64},
    {"double", FL_TYPE_FLOAT64},
    {"double precision", FL_TYPE_FLOAT64},
    {"numeric", FL_TYPE_DECIMAL},
    {"decimal", FL_TYPE_DECIMAL},
    {"date", FL_TYPE_DATE},
    {"time", FL_TYPE_TIME},
    {"time without time zone", FL_TYPE_TIME},
    {"timestamp", FL_TYPE_TIMESTAMP},
    {"timestamp without time zone", FL_TYPE_TIMESTAMP},
    {"timestamptz", FL_TYPE_TIMESTAMPTZ},
    {"timestamp with time zone", FL_TYPE_TIMESTAMPTZ},
    {"timestamp_ns", FL_TYPE_TIMESTAMP_NS},
    {"timestamptz_ns", FL_TYPE_TIMESTAMPTZ_NS},
    {"text", FL_TYPE_STRING},
    {"varchar", FL_TYPE_STRING},
    {"character varying", FL_TYPE_STRING},
    {"bpchar", FL_TYPE_STRING},
    {"char", FL_TYPE_STRING},
    {"character", FL_TYPE_STRING},
    {"string", FL_TYPE_STRING},
    {"name", FL_TYPE_STRING},
    {"json", FL_TYPE_STRING},
    {"jsonb", FL_TYPE_STRING},
    {"uuid", FL_TYPE_UUID},
    {"bytea", FL_TYPE_BINARY},
    {"binary", FL_TYPE_BINARY},
    {"varbinary", FL_TYPE_BINARY},
    {"blob", FL_TYPE_BINARY},
};

fl_status fl_sql_type_parse(const char *name, const int32_t *typmods, uint32_t ntypmods, fl_type *t,
                            fl_error *err)
{
    const char *n = name;
    if (!strncasecmp(n, "pg_catalog.", 11))
        n += 11;
    memset(t, 0, sizeof *t);
    if (!strcasecmp(n, "geometry") || !strcasecmp(n, "geography")) {
        /* WKB in the default CRS (OGC:CRS84); a table's own CRS comes from its schema */
        *t = fl_mk(FL_TYPE_BINARY);
        t->ext = tolower((unsigned char)n[3]) == 'm' ? FL_EXT_GEOMETRY : FL_EXT_GEOGRAPHY;
        return FL_OK;
    }
    if (!strcasecmp(n, "variant")) {
        *t = fl_mk(FL_TYPE_BINARY);
        t->ext = FL_EXT_VARIANT;
        return FL_OK;
    }
    if (!strcasecmp(n, "interval")) {
        *t = fl_mk_interval();
        if (ntypmods >= 1 && typmods[0] > 0 && typmods[0] != 0x7FFF)
            t->scale = typmods[0];
        return FL_OK;
    }
    for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++) {
        if (strcasecmp(n, type_names[i].name) != 0)
            continue;
        *t = fl_mk(type_names[i].id);
        if (t->id == FL_TYPE_DECIMAL) {
            int32_t p = ntypmods >= 1 ? typmods[0] : 38;
            int32_t s = ntypmods >= 2 ? typmods[1] : (ntypmods >= 1 ? 0 : 9);
            if (p < 1 || p > 38)
                return fl_errorf(err, FL_ETYPE, "NUMERIC precision %d must be between 1 and 38", p);
            if (s < 0 || s > p)
                return fl_errorf(err, FL_ETYPE, "NUMERIC scale %d must be between 0 and precision %d", s, p);
            *t = fl_mk_dec(p, s);
        } else if ((t->id == FL_TYPE_TIMESTAMP || t->id == FL_TYPE_TIMESTAMPTZ) && ntypmods >= 1 &&
                   typmods[0] > 6) {
            t->id = t->id == FL_TYPE_TIMESTAMP ? FL_TYPE_TIMESTAMP_NS : FL_TYPE_TIMESTAMPTZ_NS;
        }
        return FL_OK;
    }
    return fl_errorf(err, FL_ENOTFOUND, "type \"%s\" does not exist", name);
}
