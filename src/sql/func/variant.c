/*
 * variant.c - the variant functions, with Spark's and Snowflake's names:
 *   parse_json(text) / try_parse_json(text)      JSON text -> variant
 *   variant_get(v, path [, type]) / try_variant_get(...)
 *                                                 the value at a path
 *                                                 ('$.a.b[0]'), as type
 *                                                 (default variant)
 *   is_variant_null(v)                            a JSON null (not SQL NULL)
 *   schema_of_variant(v)                          'OBJECT<a: BIGINT, ...>'
 *   variant_typeof(v)                             'int8', 'object', ...
 * to_json(v) is the generic to_json (nested.c), which prints a variant's
 * JSON. A missing path gives NULL; a value that does not convert to the
 * type is an error (22P02, 22003), NULL with the try_ forms. The type is a
 * constant string in Spark's spelling: 'int', 'bigint', 'double', 'float'
 * (4 bytes), 'decimal(10,2)', 'string', 'boolean', 'date', 'timestamp'
 * (with time zone, as Spark's), 'timestamp_ntz', 'binary', 'variant', or a
 * PostgreSQL type name. A constant path is parsed once, at bind time.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "floe/variant.h"
#include "sql/func/func_internal.h"

static fl_type mk_variant(void)
{
    fl_type t = fl_mk(FL_TYPE_BINARY);
    t.ext = FL_EXT_VARIANT;
    return t;
}

/* A variant argument: a variant as it is, a text literal parsed as JSON. */
static bool variant_arg(const fl_type *a, fl_type *at)
{
    if (fl_type_is_variant(a) || fl_is_unknown(a)) {
        *at = mk_variant();
        return true;
    }
    return false;
}

/* ---- resolution ---- */

static bool r_parse_json(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1 || !fl_is_string(&a[0]))
        return false;
    at[0] = fl_mk(FL_TYPE_STRING);
    *r = mk_variant();
    return true;
}

static bool r_get(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if ((n != 2 && n != 3) || !variant_arg(&a[0], &at[0]))
        return false;
    for (uint32_t k = 1; k < n; k++) {
        if (!fl_is_string(&a[k]))
            return false;
        at[k] = fl_mk(FL_TYPE_STRING);
    }
    *r = mk_variant();
    return true;
}

static bool r_is_null(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    *r = fl_mk(FL_TYPE_BOOLEAN);
    return n == 1 && variant_arg(&a[0], &at[0]);
}

static bool r_text_of(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    *r = fl_mk(FL_TYPE_STRING);
    return n == 1 && variant_arg(&a[0], &at[0]);
}

/* Spark's type names for variant_get, else PostgreSQL's. */
static bool parse_type_name(const uint8_t *p, size_t n, fl_type *t)
{
    char name[64];
    int32_t mods[2];
    uint32_t nmods = 0;
    size_t k = 0, i = 0;
    while (i < n && isspace(p[i]))
        i++;
    while (i < n && k + 1 < sizeof name && (isalnum(p[i]) || p[i] == '_'))
        name[k++] = (char)tolower(p[i++]);
    name[k] = 0;
    while (i < n && isspace(p[i]))
        i++;
    if (i < n && p[i] == '(') {
        i++;
        while (nmods < 2) {
            char *end;
            char num[16];
            size_t m = 0;
            while (i < n && isspace(p[i]))
                i++;
            while (i < n && m + 1 < sizeof num && isdigit(p[i]))
                num[m++] = (char)p[i++];
            num[m] = 0;
            if (!m)
                return false;
            mods[nmods++] = (int32_t)strtol(num, &end, 10);
            while (i < n && isspace(p[i]))
                i++;
            if (i < n && p[i] == ',') {
                i++;
                continue;
            }
            break;
        }
        if (i >= n || p[i] != ')')
            return false;
        i++;
    }
    while (i < n && isspace(p[i]))
        i++;
    if (i != n || !k)
        return false;
    static const struct {
        const char *name;
        fl_type_id id;
    } spark[] = {
        {"tinyint", FL_TYPE_INT32},
        {"byte", FL_TYPE_INT32},
        {"smallint", FL_TYPE_INT32},
        {"short", FL_TYPE_INT32},
        {"int", FL_TYPE_INT32},
        {"integer", FL_TYPE_INT32},
        {"bigint", FL_TYPE_INT64},
        {"long", FL_TYPE_INT64},
        {"float", FL_TYPE_FLOAT32},
        {"double", FL_TYPE_FLOAT64},
        {"string", FL_TYPE_STRING},
        {"boolean", FL_TYPE_BOOLEAN},
        {"binary", FL_TYPE_BINARY},
        {"date", FL_TYPE_DATE},
        {"timestamp", FL_TYPE_TIMESTAMPTZ},
        {"timestamp_ntz", FL_TYPE_TIMESTAMP},
    };
    if (!nmods)
        for (size_t s = 0; s < sizeof spark / sizeof spark[0]; s++)
            if (!strcmp(name, spark[s].name)) {
                *t = fl_mk(spark[s].id);
                return true;
            }
    fl_error e = {0};
    return fl_sql_type_parse(name, mods, nmods, t, &e) == FL_OK && !fl_type_is_nested(t) &&
           !fl_type_is_geo(t);
}

/* variant_get's result type comes from its constant third argument. */
static void refine_get(fl_expr *e)
{
    if (e->nargs != 3)
        return;
    const fl_expr *a = e->args[2];
    fl_type t;
    if (a->kind == FL_EXPR_CONST && !a->value.is_null && a->type.id == FL_TYPE_STRING &&
        parse_type_name(a->value.v.bytes.ptr, a->value.v.bytes.len, &t))
        e->type = t;
}

/* ---- bind: a constant path, parsed once ---- */

static fl_status b_get(const fl_expr *e, fl_arena *a, void **bd, fl_error *err)
{
    const fl_expr *p = e->args[1];
    *bd = NULL;
    if (e->nargs == 3 && fl_type_is_variant(&e->type)) {
        const fl_expr *t = e->args[2];
        fl_type parsed;
        bool is_const = t->kind == FL_EXPR_CONST && !t->value.is_null;
        if (!is_const)
            return fl_error_state(err, FL_ETYPE, "42804",
                                  "variant_get: the type argument must be a constant string");
        if (!parse_type_name(t->value.v.bytes.ptr, t->value.v.bytes.len, &parsed) ||
            !fl_type_is_variant(&parsed))
            return fl_error_state(err, FL_ETYPE, "42704", "variant_get: unknown type '%.*s'",
                                  (int)t->value.v.bytes.len, (const char *)t->value.v.bytes.ptr);
    }
    if (p->kind != FL_EXPR_CONST || p->value.is_null)
        return FL_OK;
    fl_variant_path *path = fl_arena_calloc(a, 1, sizeof *path);
    if (!path)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_status st = fl_variant_path_parse(a, (const char *)p->value.v.bytes.ptr,
                                         p->value.v.bytes.len, path, err);
    if (st != FL_OK)
        return fl_error_state(err, FL_ESYNTAX, "22P02", "variant_get: invalid path: %s", err->msg);
    *bd = path;
    return FL_OK;
}

/* ---- kernels ---- */

static fl_status bad_variant(const fl_fn_call *c, fl_error *err, const fl_error *why)
{
    if (why->code == FL_ENOMEM)
        return fl_errorf(err, FL_ENOMEM, "%s", why->msg);
    return fl_fn_error_state(c, err, FL_ECORRUPT, "22P02", "invalid variant: %s", why->msg);
}

static fl_status step_parse_json(const uint8_t *p, size_t n, fl_buf *out, fl_error *e)
{
    return fl_variant_from_json((const char *)p, n, out, e);
}

static fl_status parse_json_rows(fl_fn_call *c, bool lenient, fl_error *err)
{
    return fl_fn_map_bytes(c, step_parse_json, lenient, FL_ETYPE,
                           "invalid input syntax for type json", err);
}

static fl_status k_parse_json(fl_fn_call *c, fl_error *err)
{
    return parse_json_rows(c, false, err);
}

static fl_status k_try_parse_json(fl_fn_call *c, fl_error *err)
{
    return parse_json_rows(c, true, err);
}

/* Opens row i of a variant argument; errors name the function. */
static fl_status open_row(const fl_fn_call *c, const fl_unified *u, uint32_t i, fl_variant_meta *m,
                          fl_variant *v, fl_error *err)
{
    size_t n;
    const uint8_t *p = ubytes(u, i, &n);
    fl_error e = {0};
    if (fl_variant_open(p, n, m, v, &e) != FL_OK)
        return bad_variant(c, err, &e);
    return FL_OK;
}

static bool needs_tz(const fl_type *t)
{
    return t->id == FL_TYPE_STRING || t->id == FL_TYPE_DATE || t->id == FL_TYPE_TIMESTAMP ||
           t->id == FL_TYPE_TIMESTAMPTZ || t->id == FL_TYPE_TIMESTAMP_NS ||
           t->id == FL_TYPE_TIMESTAMPTZ_NS || t->id == FL_TYPE_TIME;
}

static fl_status get_rows(fl_fn_call *c, bool lenient, fl_error *err)
{
    const fl_type *to = c->out->type;
    fl_unified uv, up;
    fl_vector_unify(c->args[0], &uv);
    fl_vector_unify(c->args[1], &up);
    const fl_variant_path *bound = c->expr->bind_data;
    fl_tz *tz = NULL;
    if (needs_tz(to))
        FL_TRY(fl_tz_load(c->env ? c->env->time_zone : NULL, &tz, err));
    strout so;
    if (fl_type_is_varlen(to))
        strout_init_call(&so, c);
    fl_vconv conv = {.to = to, .lenient = lenient, .tz = tz, .out = c->out, .so = &so, .err = err};
    fl_buf_init(&conv.tmp, 0);
    fl_arena pa;
    fl_arena_init(&pa, 0);
    fl_status rc = FL_OK;
    FOR_ROWS(c->sel, c->nrows, i, {
        if (rc != FL_OK)
            continue;
        fl_variant_meta m;
        fl_variant v, at;
        fl_variant_path rowpath;
        const fl_variant_path *path = bound;
        bool found = false;
        rc = open_row(c, &uv, i, &m, &v, err);
        if (rc == FL_OK && !path) {
            size_t pn;
            const uint8_t *pp = ubytes(&up, i, &pn);
            fl_arena_reset(&pa);
            rc = fl_variant_path_parse(&pa, (const char *)pp, pn, &rowpath, err);
            if (rc != FL_OK)
                rc = fl_fn_error_state(c, err, FL_ESYNTAX, "22P02", "invalid path: %s", err->msg);
            path = &rowpath;
        }
        if (rc == FL_OK) {
            fl_error e = {0};
            if (fl_variant_path_get(&v, path, &found, &at, &e) != FL_OK)
                rc = bad_variant(c, err, &e);
        }
        if (rc == FL_OK)
            rc = found ? fl_variant_put(&conv, i, &at) : fl_out_null(c->out, i, err);
    });
    if (fl_type_is_varlen(to))
        strout_finish(&so, c->nrows);
    fl_arena_free(&pa);
    fl_buf_free(&conv.tmp);
    fl_tz_free(tz);
    return rc;
}

static fl_status k_get(fl_fn_call *c, fl_error *err)
{
    return get_rows(c, false, err);
}

static fl_status k_try_get(fl_fn_call *c, fl_error *err)
{
    return get_rows(c, true, err);
}

static fl_status k_is_null(fl_fn_call *c, fl_error *err)
{
    fl_unified u;
    fl_vector_unify(c->args[0], &u);
    FOR_ROWS(c->sel, c->nrows, i, {
        fl_variant_meta m;
        fl_variant v;
        fl_variant_kind k;
        fl_error e = {0};
        FL_TRY(open_row(c, &u, i, &m, &v, err));
        if (fl_variant_kind_of(&v, &k, &e) != FL_OK)
            return bad_variant(c, err, &e);
        c->out->data[i] = k == FL_VK_NULL;
    });
    return FL_OK;
}

/* ---- schema_of_variant: Spark's type names, objects' fields in key order,
 * an array's element types merged (numbers widen, else VARIANT) ---- */

static fl_status schema_of(const fl_variant *v, fl_buf *out, int depth, fl_error *err);

static const char *scalar_schema(const fl_variant_scalar *s, char *buf, size_t cap)
{
    switch (s->kind) {
    case FL_VK_NULL: return "VOID";
    case FL_VK_TRUE:
    case FL_VK_FALSE: return "BOOLEAN";
    case FL_VK_INT8:
    case FL_VK_INT16:
    case FL_VK_INT32:
    case FL_VK_INT64: return "BIGINT";
    case FL_VK_DOUBLE: return "DOUBLE";
    case FL_VK_FLOAT: return "FLOAT";
    case FL_VK_DECIMAL4:
    case FL_VK_DECIMAL8:
    case FL_VK_DECIMAL16: {
        /* the digits the value needs, as Spark reports them */
        char digits[48];
        fl_i128 x = s->v.dec < 0 ? -s->v.dec : s->v.dec;
        int n = (int)dec_format(x, 0, digits, sizeof digits);
        int p = n > s->scale ? n : s->scale;
        snprintf(buf, cap, "DECIMAL(%d,%d)", p, (int)s->scale);
        return buf;
    }
    case FL_VK_DATE: return "DATE";
    case FL_VK_TIMESTAMP:
    case FL_VK_TIMESTAMP_NS: return "TIMESTAMP";
    case FL_VK_TIMESTAMP_NTZ:
    case FL_VK_TIMESTAMP_NTZ_NS: return "TIMESTAMP_NTZ";
    case FL_VK_TIME: return "TIME";
    case FL_VK_BINARY: return "BINARY";
    case FL_VK_STRING: return "STRING";
    case FL_VK_UUID: return "UUID";
    default: return "VARIANT";
    }
}

static fl_status schema_object(const fl_variant *v, fl_buf *out, int depth, fl_error *err)
{
    uint32_t n;
    FL_TRY(fl_variant_count(v, &n, err));
    FL_TRY(fl_buf_puts(out, "OBJECT<", err));
    for (uint32_t i = 0; i < n; i++) {
        const char *key;
        size_t klen;
        fl_variant f;
        FL_TRY(fl_variant_object_at(v, i, &key, &klen, &f, err));
        if (i)
            FL_TRY(fl_buf_puts(out, ", ", err));
        FL_TRY(fl_buf_append(out, key, klen, err));
        FL_TRY(fl_buf_puts(out, ": ", err));
        FL_TRY(schema_of(&f, out, depth + 1, err));
    }
    return fl_buf_putc(out, '>', err);
}

/* The element type of an array: one type if all elements agree (VOID
 * elements aside), else VARIANT. */
static fl_status schema_array(const fl_variant *v, fl_buf *out, int depth, fl_error *err)
{
    uint32_t n;
    FL_TRY(fl_variant_count(v, &n, err));
    fl_buf first, cur;
    fl_buf_init(&first, 0);
    fl_buf_init(&cur, 0);
    bool mixed = false, have = false;
    fl_status st = FL_OK;
    for (uint32_t i = 0; st == FL_OK && i < n; i++) {
        fl_variant e;
        cur.len = 0;
        st = fl_variant_array_at(v, i, &e, err);
        if (st == FL_OK)
            st = schema_of(&e, &cur, depth + 1, err);
        if (st != FL_OK || (cur.len == 4 && !memcmp(cur.data, "VOID", 4)))
            continue;
        if (!have)
            st = fl_buf_append(&first, cur.data, cur.len, err);
        else if (first.len != cur.len || memcmp(first.data, cur.data, cur.len))
            mixed = true;
        have = true;
    }
    if (st == FL_OK) {
        st = fl_buf_puts(out, "ARRAY<", err);
        if (st == FL_OK)
            st = mixed || !have ? fl_buf_puts(out, have ? "VARIANT" : "VOID", err)
                                : fl_buf_append(out, first.data, first.len, err);
        if (st == FL_OK)
            st = fl_buf_putc(out, '>', err);
    }
    fl_buf_free(&first);
    fl_buf_free(&cur);
    return st;
}

static fl_status schema_of(const fl_variant *v, fl_buf *out, int depth, fl_error *err)
{
    FL_CHECK(depth < FL_VARIANT_MAX_DEPTH, err, FL_ELIMIT, "variant nested deeper than %d levels",
             FL_VARIANT_MAX_DEPTH);
    fl_variant_kind k;
    FL_TRY(fl_variant_kind_of(v, &k, err));
    if (k == FL_VK_OBJECT)
        return schema_object(v, out, depth, err);
    if (k == FL_VK_ARRAY)
        return schema_array(v, out, depth, err);
    fl_variant_scalar s;
    char buf[48];
    FL_TRY(fl_variant_scalar_of(v, &s, err));
    return fl_buf_puts(out, scalar_schema(&s, buf, sizeof buf), err);
}

static fl_status step_schema(const uint8_t *p, size_t n, fl_buf *out, fl_error *e)
{
    fl_variant_meta m;
    fl_variant v;
    FL_TRY(fl_variant_open(p, n, &m, &v, e));
    return schema_of(&v, out, 0, e);
}

static fl_status step_typeof(const uint8_t *p, size_t n, fl_buf *out, fl_error *e)
{
    fl_variant_meta m;
    fl_variant v;
    fl_variant_kind k;
    FL_TRY(fl_variant_open(p, n, &m, &v, e));
    FL_TRY(fl_variant_kind_of(&v, &k, e));
    return fl_buf_puts(out, fl_variant_kind_name(k), e);
}

static fl_status k_schema_of(fl_fn_call *c, fl_error *err)
{
    return fl_fn_map_bytes(c, step_schema, false, FL_ECORRUPT, "invalid variant", err);
}

static fl_status k_typeof(fl_fn_call *c, fl_error *err)
{
    return fl_fn_map_bytes(c, step_typeof, false, FL_ECORRUPT, "invalid variant", err);
}

#define VF(nm, r, k)                                                                               \
    {                                                                                              \
        .name = nm, .kind = FL_FUNC_SCALAR, .deterministic = true, .resolve = r, .kernel = k       \
    }
#define VG(nm, k)                                                                                  \
    {                                                                                              \
        .name = nm, .kind = FL_FUNC_SCALAR, .deterministic = true, .resolve = r_get, .kernel = k,  \
        .bind = b_get, .refine = refine_get                                                        \
    }
static const fl_func funcs[] = {
    VF("parse_json", r_parse_json, k_parse_json),
    VF("try_parse_json", r_parse_json, k_try_parse_json),
    VG("variant_get", k_get),
    VG("try_variant_get", k_try_get),
    VF("is_variant_null", r_is_null, k_is_null),
    VF("schema_of_variant", r_text_of, k_schema_of),
    VF("variant_typeof", r_text_of, k_typeof),
};
const fl_func_table fl_funcs_variant = {funcs, sizeof funcs / sizeof funcs[0]};
