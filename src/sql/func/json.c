/*
 * json.c - JSON extraction from text values (jansson):
 *   json -> key|index (json text), json ->> key|index (text),
 *   json_extract_path(json, k1, k2, ...) / json_extract_path_text(...),
 *   json_extract(json, '$.a.b[0]') / json_extract_scalar(json, path)
 *   (Trino; a JSONPath subset: $, .name, ["name"], [index]),
 *   json_array_length(json), json_typeof(json).
 * Invalid JSON input is an error naming the function (22P02), except that
 * a missing key or index gives NULL. JSON results are compact text with
 * keys in document order.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "sql/func/func_internal.h"

static bool r_arrow(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 2 || !fl_is_string(&a[0]))
        return false;
    at[0] = fl_mk(FL_TYPE_STRING);
    if (fl_is_integer(&a[1]))
        at[1] = fl_mk(FL_TYPE_INT32);
    else if (fl_is_string(&a[1]))
        at[1] = fl_mk(FL_TYPE_STRING);
    else
        return false;
    *r = fl_mk(FL_TYPE_STRING);
    return true;
}
static bool r_path(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n < 1)
        return false;
    for (uint32_t k = 0; k < n; k++) {
        if (!fl_is_string(&a[k]))
            return false;
        at[k] = fl_mk(FL_TYPE_STRING);
    }
    *r = fl_mk(FL_TYPE_STRING);
    return true;
}
static bool r_jpath(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    return n == 2 && r_path(a, n, r, at);
}
static bool r_jlen(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1 || !fl_is_string(&a[0]))
        return false;
    at[0] = fl_mk(FL_TYPE_STRING);
    *r = fl_mk(FL_TYPE_INT32);
    return true;
}
static bool r_jtype(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1 || !fl_is_string(&a[0]))
        return false;
    at[0] = *r = fl_mk(FL_TYPE_STRING);
    return true;
}

static fl_status parse_json(fl_fn_call *c, const uint8_t *s, size_t n, json_t **out, fl_error *err)
{
    json_error_t je;
    *out = json_loadb((const char *)s, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
    if (!*out)
        return fl_fn_error_state(c, err, FL_ETYPE, "22P02",
                                 "invalid input syntax for type json: %s at position %d", je.text,
                                 je.position);
    return FL_OK;
}

static json_t *step_key(json_t *j, const uint8_t *k, size_t kn)
{
    if (json_is_object(j))
        return json_object_getn(j, (const char *)k, kn);
    if (json_is_array(j)) {
        /* a path element that is an integer string indexes arrays (PostgreSQL #> semantics) */
        char b[24];
        if (kn == 0 || kn >= sizeof b)
            return NULL;
        memcpy(b, k, kn);
        b[kn] = 0;
        char *e;
        long idx = strtol(b, &e, 10);
        if (*e)
            return NULL;
        if (idx < 0)
            idx += (long)json_array_size(j);
        return idx >= 0 ? json_array_get(j, (size_t)idx) : NULL;
    }
    return NULL;
}
static json_t *step_idx(json_t *j, long idx)
{
    if (!json_is_array(j))
        return NULL;
    if (idx < 0)
        idx += (long)json_array_size(j);
    return idx >= 0 ? json_array_get(j, (size_t)idx) : NULL;
}

/* Writes j as text (as_text: strings unquoted, null -> SQL NULL). */
static fl_status emit(fl_fn_call *c, strout *so, uint32_t i, json_t *j, bool as_text, fl_error *err)
{
    if (!j || (as_text && json_is_null(j)))
        return fl_out_null(c->out, i, err);
    if (as_text && json_is_string(j))
        return strout_put(so, i, json_string_value(j), json_string_length(j), err);
    char *t = json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (!t)
        return fl_errorf(err, FL_ENOMEM, "out of memory rendering JSON");
    fl_status rc = strout_put(so, i, t, strlen(t), err);
    free(t);
    return rc;
}

static fl_status arrow(fl_fn_call *c, bool as_text, fl_error *err)
{
    fl_unified ju, ku;
    fl_vector_unify(c->args[0], &ju);
    fl_vector_unify(c->args[1], &ku);
    bool by_index = c->args[1]->type->id == FL_TYPE_INT32;
    strout so;
    strout_init_call(&so, c);
    fl_status rc = FL_OK;
    FOR_ROWS(c->sel, c->nrows, i, {
        if (rc != FL_OK)
            continue;
        size_t n;
        const uint8_t *s = ubytes(&ju, i, &n);
        json_t *root;
        rc = parse_json(c, s, n, &root, err);
        if (rc != FL_OK)
            continue;
        json_t *v;
        if (by_index)
            v = step_idx(root, UV(ku, int32_t, i));
        else {
            size_t kn;
            const uint8_t *k = ubytes(&ku, i, &kn);
            v = json_is_object(root) ? json_object_getn(root, (const char *)k, kn) : NULL;
        }
        rc = emit(c, &so, i, v, as_text, err);
        json_decref(root);
    });
    strout_finish(&so, c->nrows);
    return rc;
}
static fl_status k_arrow(fl_fn_call *c, fl_error *e) { return arrow(c, false, e); }
static fl_status k_arrow_text(fl_fn_call *c, fl_error *e) { return arrow(c, true, e); }

static fl_status path_kernel(fl_fn_call *c, bool as_text, fl_error *err)
{
    fl_unified u[32];
    if (c->nargs > 32)
        return fl_fn_error(c, err, FL_ELIMIT, "JSON path too long");
    for (uint32_t k = 0; k < c->nargs; k++)
        fl_vector_unify(c->args[k], &u[k]);
    strout so;
    strout_init_call(&so, c);
    fl_status rc = FL_OK;
    FOR_ROWS(c->sel, c->nrows, i, {
        if (rc != FL_OK)
            continue;
        size_t n;
        const uint8_t *s = ubytes(&u[0], i, &n);
        json_t *root;
        rc = parse_json(c, s, n, &root, err);
        if (rc != FL_OK)
            continue;
        json_t *v = root;
        for (uint32_t k = 1; k < c->nargs && v; k++) {
            size_t kn;
            const uint8_t *key = ubytes(&u[k], i, &kn);
            v = step_key(v, key, kn);
        }
        rc = emit(c, &so, i, v, as_text, err);
        json_decref(root);
    });
    strout_finish(&so, c->nrows);
    return rc;
}
static fl_status k_path(fl_fn_call *c, fl_error *e) { return path_kernel(c, false, e); }
static fl_status k_path_text(fl_fn_call *c, fl_error *e) { return path_kernel(c, true, e); }

/* JSONPath subset: $ then .name | ["name"] | [n] */
static bool jsonpath_eval(json_t *root, const uint8_t *p, size_t n, json_t **out)
{
    size_t i = 0;
    json_t *v = root;
    while (i < n && p[i] == ' ')
        i++;
    if (i >= n || p[i] != '$')
        return false;
    i++;
    while (i < n && v) {
        if (p[i] == '.') {
            size_t b = ++i;
            while (i < n && p[i] != '.' && p[i] != '[')
                i++;
            if (i == b)
                return false;
            v = json_is_object(v) ? json_object_getn(v, (const char *)p + b, i - b) : NULL;
        } else if (p[i] == '[') {
            i++;
            if (i < n && (p[i] == '"' || p[i] == '\'')) {
                uint8_t q = p[i++];
                size_t b = i;
                while (i < n && p[i] != q)
                    i++;
                if (i >= n)
                    return false;
                v = json_is_object(v) ? json_object_getn(v, (const char *)p + b, i - b) : NULL;
                i++;
            } else {
                long idx = 0;
                bool neg = false, any = false;
                if (i < n && p[i] == '-')
                    neg = true, i++;
                while (i < n && p[i] >= '0' && p[i] <= '9') {
                    idx = idx * 10 + (p[i++] - '0');
                    any = true;
                    if (idx > 1000000000)
                        return false;
                }
                if (!any)
                    return false;
                v = step_idx(v, neg ? -idx : idx);
            }
            if (i >= n || p[i] != ']')
                return false;
            i++;
        } else
            return false;
    }
    *out = v;
    return true;
}

static fl_status jextract(fl_fn_call *c, bool scalar, fl_error *err)
{
    fl_unified ju, pu;
    fl_vector_unify(c->args[0], &ju);
    fl_vector_unify(c->args[1], &pu);
    strout so;
    strout_init_call(&so, c);
    fl_status rc = FL_OK;
    FOR_ROWS(c->sel, c->nrows, i, {
        if (rc != FL_OK)
            continue;
        size_t n, pn;
        const uint8_t *s = ubytes(&ju, i, &n), *p = ubytes(&pu, i, &pn);
        json_t *root;
        rc = parse_json(c, s, n, &root, err);
        if (rc != FL_OK)
            continue;
        json_t *v = NULL;
        if (!jsonpath_eval(root, p, pn, &v)) {
            json_decref(root);
            rc = fl_fn_error_state(c, err, FL_EINVAL, "22P02", "invalid JSON path: \"%.*s\"",
                                   (int)(pn > 60 ? 60 : pn), (const char *)p);
            continue;
        }
        if (scalar && v && (json_is_object(v) || json_is_array(v)))
            v = NULL; /* Trino: json_extract_scalar of a non-scalar is NULL */
        rc = emit(c, &so, i, v, scalar, err);
        json_decref(root);
    });
    strout_finish(&so, c->nrows);
    return rc;
}
static fl_status k_jextract(fl_fn_call *c, fl_error *e) { return jextract(c, false, e); }
static fl_status k_jextract_scalar(fl_fn_call *c, fl_error *e) { return jextract(c, true, e); }

static fl_status k_jlen(fl_fn_call *c, fl_error *err)
{
    fl_unified ju;
    fl_vector_unify(c->args[0], &ju);
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t n;
        const uint8_t *s = ubytes(&ju, i, &n);
        json_t *root;
        FL_TRY(parse_json(c, s, n, &root, err));
        if (!json_is_array(root)) {
            json_decref(root);
            return fl_fn_error(c, err, FL_EINVAL, "cannot get array length of a non-array");
        }
        OUTV(c->out, int32_t)[i] = (int32_t)json_array_size(root);
        json_decref(root);
    });
    return FL_OK;
}
static fl_status k_jtype(fl_fn_call *c, fl_error *err)
{
    fl_unified ju;
    fl_vector_unify(c->args[0], &ju);
    strout so;
    strout_init_call(&so, c);
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t n;
        const uint8_t *s = ubytes(&ju, i, &n);
        json_t *root;
        FL_TRY(parse_json(c, s, n, &root, err));
        const char *t = json_is_object(root) ? "object" : json_is_array(root) ? "array" : json_is_string(root) ? "string"
                        : json_is_number(root) ? "number" : json_is_boolean(root) ? "boolean" : "null";
        json_decref(root);
        FL_TRY(strout_put(&so, i, t, strlen(t), err));
    });
    strout_finish(&so, c->nrows);
    return FL_OK;
}

#define SCALAR(nm, r, k) {.name = nm, .kind = FL_FUNC_SCALAR, .deterministic = true, .resolve = r, .kernel = k}
static const fl_func funcs[] = {
    SCALAR("->", r_arrow, k_arrow),
    SCALAR("->>", r_arrow, k_arrow_text),
    SCALAR("json_extract_path", r_path, k_path),
    SCALAR("json_extract_path_text", r_path, k_path_text),
    SCALAR("jsonb_extract_path", r_path, k_path),
    SCALAR("jsonb_extract_path_text", r_path, k_path_text),
    SCALAR("json_extract", r_jpath, k_jextract),
    SCALAR("json_extract_scalar", r_jpath, k_jextract_scalar),
    SCALAR("json_value", r_jpath, k_jextract_scalar),
    SCALAR("json_query", r_jpath, k_jextract),
    SCALAR("json_array_length", r_jlen, k_jlen),
    SCALAR("json_typeof", r_jtype, k_jtype),
};
const fl_func_table fl_funcs_json = {funcs, sizeof funcs / sizeof funcs[0]};
