/*
 * pgfunc.c - PostgreSQL system information and catalog functions that
 * client introspection queries call: format_type, pg_get_userbyid,
 * pg_*_is_visible, has_*_privilege, obj/col/shobj_description,
 * pg_get_expr/indexdef/constraintdef/viewdef/..., pg_encoding_to_char,
 * pg_is_in_recovery, pg_backend_pid, pg_postmaster_start_time,
 * txid_current, quote_ident, version.
 *
 * Semantics in floe (see src/sql/pgcat/README.md):
 *   - there is one role, "floe" (OID 10), superuser: privilege checks are
 *     true, pg_get_userbyid(10) is "floe";
 *   - every relation, type and function is visible (floe resolves names in
 *     pg_catalog and the session's namespace);
 *   - floe stores no comments, defaults, indexes, constraints or triggers,
 *     so the functions describing them return NULL, as PostgreSQL does for
 *     an OID that names no such object;
 *   - session-dependent ones (current_user, current_database,
 *     current_schema(s), current_setting) are bound to constants by
 *     src/sql/pgcat/pgcat_expr.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "floe/pgtypes.h"
#include "sql/func/pgfunc.h"
#include "sql/func/func_internal.h"

/* ---- resolution ---- */

static bool to_int64(const fl_type *a, fl_type *at)
{
    if (!(fl_is_integer(a) || fl_is_unknown(a)))
        return false;
    *at = fl_mk(FL_TYPE_INT64);
    return true;
}

/* format_type(oid, int4) -> text */
static bool r_format_type(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 2 || !to_int64(&a[0], &at[0]))
        return false;
    if (!(fl_is_integer(&a[1]) || fl_is_unknown(&a[1])))
        return false;
    at[1] = fl_mk(FL_TYPE_INT32);
    *r = fl_mk(FL_TYPE_STRING);
    return true;
}

/* f(oid) -> text */
static bool r_oid_text(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1 || !to_int64(&a[0], &at[0]))
        return false;
    *r = fl_mk(FL_TYPE_STRING);
    return true;
}

/* f(oid) -> bool */
static bool r_oid_bool(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1 || !to_int64(&a[0], &at[0]))
        return false;
    *r = fl_mk(FL_TYPE_BOOLEAN);
    return true;
}

/* f(any, ...) -> text NULL (1 to 3 arguments of any scalar type) */
static bool r_any_text(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n < 1 || n > 3)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        if (fl_type_is_nested(&a[i]))
            return false;
        at[i] = fl_is_unknown(&a[i]) ? fl_mk(FL_TYPE_STRING) : a[i];
    }
    *r = fl_mk(FL_TYPE_STRING);
    return true;
}

/* has_*_privilege([user,] object, privilege) -> bool */
static bool r_privilege(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n < 2 || n > 4)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        if (fl_type_is_nested(&a[i]))
            return false;
        at[i] = fl_is_unknown(&a[i]) ? fl_mk(FL_TYPE_STRING) : a[i];
    }
    *r = fl_mk(FL_TYPE_BOOLEAN);
    return true;
}

static bool r_int_text(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1 || !(fl_is_integer(&a[0]) || fl_is_unknown(&a[0])))
        return false;
    at[0] = fl_mk(FL_TYPE_INT32);
    *r = fl_mk(FL_TYPE_STRING);
    return true;
}

static bool r_text_text(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1 || !fl_is_string(&a[0]))
        return false;
    at[0] = fl_mk(FL_TYPE_STRING);
    *r = fl_mk(FL_TYPE_STRING);
    return true;
}

/* f() -> T: one resolver per result type (resolve has no context argument) */
static bool r_none(uint32_t n, fl_type *r, fl_type_id id)
{
    if (n)
        return false;
    *r = fl_mk(id);
    return true;
}
#define R_NONE(fn, id)                                                                             \
    static bool fn(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)                          \
    {                                                                                              \
        (void)a;                                                                                   \
        (void)at;                                                                                  \
        return r_none(n, r, id);                                                                   \
    }
R_NONE(r_none_bool, FL_TYPE_BOOLEAN)
R_NONE(r_none_int32, FL_TYPE_INT32)
R_NONE(r_none_int64, FL_TYPE_INT64)
R_NONE(r_none_tstz, FL_TYPE_TIMESTAMPTZ)
R_NONE(r_none_text, FL_TYPE_STRING)

/* ---- kernels ---- */

static fl_status put_const_str(fl_fn_call *c, const char *s, fl_error *err)
{
    strout so;
    strout_init_call(&so, c);
    size_t l = strlen(s);
    FOR_ROWS(c->sel, c->nrows, i, { FL_TRY(strout_put(&so, i, s, l, err)); });
    strout_finish(&so, c->nrows);
    return FL_OK;
}

static fl_status put_const_bool(fl_fn_call *c, bool b)
{
    FOR_ROWS(c->sel, c->nrows, i, { c->out->data[i] = b; });
    return FL_OK;
}

static fl_status k_format_type(fl_fn_call *c, fl_error *err)
{
    fl_unified o, m;
    fl_vector_unify(c->args[0], &o);
    fl_vector_unify(c->args[1], &m);
    strout so;
    strout_init_call(&so, c);
    FOR_ROWS(c->sel, c->nrows, i, {
        char buf[128];
        if (!uvalid(&o, i)) {
            FL_TRY(fl_out_null(c->out, i, err));
            strout_fill(&so, i + 1);
            so.v->offsets[i + 1] = (int64_t)so.v->heap_len;
            continue;
        }
        int64_t oid = UV(o, int64_t, i);
        int32_t mod = uvalid(&m, i) ? UV(m, int32_t, i) : -1;
        size_t l;
        if (oid == 0)
            l = (size_t)snprintf(buf, sizeof buf, "-");
        else
            l = fl_pg_type_format((uint32_t)oid, mod, buf, sizeof buf);
        if (l >= sizeof buf)
            l = sizeof buf - 1;
        FL_TRY(strout_put(&so, i, buf, l, err));
    });
    strout_finish(&so, c->nrows);
    return FL_OK;
}

static fl_status k_userbyid(fl_fn_call *c, fl_error *err)
{
    fl_unified o;
    fl_vector_unify(c->args[0], &o);
    strout so;
    strout_init_call(&so, c);
    FOR_ROWS(c->sel, c->nrows, i, {
        char buf[64];
        int64_t oid = UV(o, int64_t, i);
        size_t l = oid == 10 ? (size_t)snprintf(buf, sizeof buf, "floe")
                             : (size_t)snprintf(buf, sizeof buf, "unknown (OID=%lld)",
                                                (long long)oid);
        FL_TRY(strout_put(&so, i, buf, l, err));
    });
    strout_finish(&so, c->nrows);
    return FL_OK;
}

static fl_status k_true(fl_fn_call *c, fl_error *err)
{
    (void)err;
    return put_const_bool(c, true);
}
static fl_status k_false(fl_fn_call *c, fl_error *err)
{
    (void)err;
    return put_const_bool(c, false);
}

/* NULL for every row: describes objects floe never has (comments,
 * defaults, indexes, constraints). */
static fl_status k_null(fl_fn_call *c, fl_error *err)
{
    strout so; /* every function using k_null returns text */
    strout_init_call(&so, c);
    FOR_ROWS(c->sel, c->nrows, i, { FL_TRY(fl_out_null(c->out, i, err)); });
    strout_finish(&so, c->nrows);
    return FL_OK;
}

static fl_status k_encoding(fl_fn_call *c, fl_error *err)
{
    fl_unified e;
    fl_vector_unify(c->args[0], &e);
    strout so;
    strout_init_call(&so, c);
    FOR_ROWS(c->sel, c->nrows, i, {
        int32_t v = UV(e, int32_t, i);
        const char *s = v == 6 ? "UTF8" : v == 0 ? "SQL_ASCII" : "";
        FL_TRY(strout_put(&so, i, s, strlen(s), err));
    });
    strout_finish(&so, c->nrows);
    return FL_OK;
}

static fl_status k_backend_pid(fl_fn_call *c, fl_error *err)
{
    (void)err;
    int32_t pid = (int32_t)getpid();
    FOR_ROWS(c->sel, c->nrows, i, { OUTV(c->out, int32_t)[i] = pid; });
    return FL_OK;
}

/* Process start time: /proc/self/stat field 22 (clock ticks after boot) plus
 * the boot time (btime in /proc/stat). */
static int64_t start_time_us(void)
{
    FILE *f = fopen("/proc/self/stat", "r");
    unsigned long long ticks = 0, btime = 0;
    if (f) {
        char buf[1024];
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = 0;
        fclose(f);
        char *p = strrchr(buf, ')'); /* the command name may contain spaces */
        for (int field = 2; p && field < 22; field++)
            p = strchr(p + 1, ' ');
        if (p)
            ticks = strtoull(p + 1, NULL, 10);
    }
    f = fopen("/proc/stat", "r");
    if (f) {
        char line[256];
        while (fgets(line, sizeof line, f))
            if (strncmp(line, "btime ", 6) == 0)
                btime = strtoull(line + 6, NULL, 10);
        fclose(f);
    }
    long hz = sysconf(_SC_CLK_TCK);
    if (!btime || hz <= 0)
        return 0;
    return (int64_t)btime * 1000000 + (int64_t)(ticks * 1000000ull / (unsigned long)hz);
}

static fl_status k_start_time(fl_fn_call *c, fl_error *err)
{
    (void)err;
    int64_t t = start_time_us(); /* Unix microseconds, as floe's timestamptz */
    FOR_ROWS(c->sel, c->nrows, i, { OUTV(c->out, int64_t)[i] = t; });
    return FL_OK;
}

static fl_status k_txid(fl_fn_call *c, fl_error *err)
{
    (void)err;
    /* floe has no transaction ids: the statement's start time in
     * microseconds, which increases from statement to statement */
    int64_t t = c->env ? c->env->statement_time_us : 0;
    FOR_ROWS(c->sel, c->nrows, i, { OUTV(c->out, int64_t)[i] = t; });
    return FL_OK;
}

static bool needs_quotes(const uint8_t *p, size_t l)
{
    if (!l || !((p[0] >= 'a' && p[0] <= 'z') || p[0] == '_'))
        return true;
    for (size_t k = 0; k < l; k++)
        if (!((p[k] >= 'a' && p[k] <= 'z') || (p[k] >= '0' && p[k] <= '9') || p[k] == '_' ||
              p[k] >= 0x80))
            return true;
    return false;
}

static fl_status k_quote_ident(fl_fn_call *c, fl_error *err)
{
    fl_unified u;
    fl_vector_unify(c->args[0], &u);
    strout so;
    strout_init_call(&so, c);
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t l;
        const uint8_t *p = ubytes(&u, i, &l);
        if (!needs_quotes(p, l)) {
            FL_TRY(strout_put(&so, i, p, l, err));
        } else {
            uint8_t *dst;
            FL_TRY(strout_reserve(&so, 2 * l + 2, &dst, err));
            size_t o = 0;
            dst[o++] = '"';
            for (size_t k = 0; k < l; k++) {
                if (p[k] == '"')
                    dst[o++] = '"';
                dst[o++] = p[k];
            }
            dst[o++] = '"';
            strout_commit(&so, i, o);
        }
    });
    strout_finish(&so, c->nrows);
    return FL_OK;
}

static fl_status k_version(fl_fn_call *c, fl_error *err)
{
    return put_const_str(c,
                         "PostgreSQL 15.0 (floe) on x86_64-pc-linux-gnu, compiled by floe, 64-bit",
                         err);
}

static fl_status k_function_result(fl_fn_call *c, fl_error *err)
{
    return put_const_str(c, "anyelement", err); /* floe's functions resolve per call */
}

static fl_status k_empty(fl_fn_call *c, fl_error *err)
{
    return put_const_str(c, "", err);
}

/* pg_partition_ancestors(regclass): floe has no partition inheritance, so a
 * relation's only "ancestor" is itself (one row, as PostgreSQL returns for
 * a non-partition). */
static bool r_oid_oid(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1 || !to_int64(&a[0], &at[0]))
        return false;
    *r = fl_mk(FL_TYPE_INT64);
    return true;
}
static fl_status k_identity_oid(fl_fn_call *c, fl_error *err)
{
    (void)err;
    fl_unified u;
    fl_vector_unify(c->args[0], &u);
    FOR_ROWS(c->sel, c->nrows, i, { OUTV(c->out, int64_t)[i] = UV(u, int64_t, i); });
    return FL_OK;
}

/* Integer bitwise operators & and | (pgJDBC: indoption[i] & 1). */
static bool r_bitop(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 2)
        return false;
    for (uint32_t i = 0; i < 2; i++)
        if (!(fl_is_integer(&a[i]) || fl_is_unknown(&a[i])))
            return false;
    bool big = a[0].id == FL_TYPE_INT64 || a[1].id == FL_TYPE_INT64;
    *r = fl_mk(big ? FL_TYPE_INT64 : FL_TYPE_INT32);
    at[0] = at[1] = *r;
    return true;
}
static fl_status bitop(fl_fn_call *c, bool and_op)
{
    fl_unified x, y;
    fl_vector_unify(c->args[0], &x);
    fl_vector_unify(c->args[1], &y);
    if (c->out->type->id == FL_TYPE_INT64)
        FOR_ROWS(c->sel, c->nrows, i, {
            int64_t p = UV(x, int64_t, i), q = UV(y, int64_t, i);
            OUTV(c->out, int64_t)[i] = and_op ? (p & q) : (p | q);
        });
    else
        FOR_ROWS(c->sel, c->nrows, i, {
            int32_t p = UV(x, int32_t, i), q = UV(y, int32_t, i);
            OUTV(c->out, int32_t)[i] = and_op ? (p & q) : (p | q);
        });
    return FL_OK;
}
static fl_status k_bitand(fl_fn_call *c, fl_error *err)
{
    (void)err;
    return bitop(c, true);
}
static fl_status k_bitor(fl_fn_call *c, fl_error *err)
{
    (void)err;
    return bitop(c, false);
}

/* text -> regclass for non-constant names: bind_data is the statement's
 * relation table (pgcat_expr.c fills it). */
static bool r_regclass(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1 || !fl_is_string(&a[0]))
        return false;
    at[0] = fl_mk(FL_TYPE_STRING);
    *r = fl_mk(FL_TYPE_INT64);
    return true;
}
static fl_status k_regclass(fl_fn_call *c, fl_error *err)
{
    const fl_pg_name_table *t = c->expr->bind_data;
    fl_unified u;
    fl_vector_unify(c->args[0], &u);
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t l;
        const uint8_t *p = ubytes(&u, i, &l);
        int64_t oid = -1;
        for (uint32_t k = 0; t && k < t->n && oid < 0; k++)
            if (strlen(t->names[k]) == l && memcmp(t->names[k], p, l) == 0)
                oid = t->oids[k];
        if (oid < 0)
            return fl_fn_error(c, err, FL_ENOTFOUND, "relation \"%.*s\" does not exist",
                               (int)(l > 128 ? 128 : l), (const char *)p);
        OUTV(c->out, int64_t)[i] = oid;
    });
    return FL_OK;
}

/* json_build_object(k1, v1, ...): keys as text, values as JSON (numbers and
 * booleans bare, NULL as null, everything else as a JSON string of its text). */
static bool r_json_build_object(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n % 2 || n > 64)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        if (fl_type_is_nested(&a[i])) { /* values: JSON arrays/objects (fl_sql_json_value) */
            if (i % 2 == 0)
                return false;
            at[i] = a[i];
            continue;
        }
        fl_type_id id = a[i].id;
        bool keep = i % 2 && (id == FL_TYPE_BOOLEAN || id == FL_TYPE_INT32 ||
                              id == FL_TYPE_INT64 || id == FL_TYPE_FLOAT64 ||
                              id == FL_TYPE_DECIMAL);
        at[i] = keep ? a[i] : fl_mk(FL_TYPE_STRING);
    }
    *r = fl_mk(FL_TYPE_STRING);
    return true;
}

static size_t json_str(const uint8_t *p, size_t l, char *dst)
{
    size_t o = 0;
    dst[o++] = '"';
    for (size_t k = 0; k < l; k++) {
        uint8_t ch = p[k];
        if (ch == '"' || ch == '\\') {
            dst[o++] = '\\';
            dst[o++] = (char)ch;
        } else if (ch < 0x20) {
            o += (size_t)sprintf(dst + o, "\\u%04x", ch);
        } else {
            dst[o++] = (char)ch;
        }
    }
    dst[o++] = '"';
    return o;
}

static fl_status k_json_build_object(fl_fn_call *c, fl_error *err)
{
    fl_unified u[64];
    for (uint32_t k = 0; k < c->nargs; k++)
        fl_vector_unify(c->args[k], &u[k]);
    strout so;
    strout_init_call(&so, c);
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t cap = 3;
        for (uint32_t k = 0; k < c->nargs; k++) {
            size_t l = 0;
            if (uvalid(&u[k], i) && fl_type_is_varlen(c->args[k]->type))
                (void)ubytes(&u[k], i, &l);
            if (fl_type_is_nested(c->args[k]->type))
                l = fl_sql_json_value(c->args[k], i, NULL, NULL, 0);
            cap += 6 * l + 64;
        }
        uint8_t *dst;
        FL_TRY(strout_reserve(&so, cap, &dst, err));
        char *o = (char *)dst;
        size_t pos = 0;
        o[pos++] = '{';
        for (uint32_t k = 0; k + 1 < c->nargs; k += 2) {
            if (!uvalid(&u[k], i))
                return fl_fn_error(c, err, FL_EINVAL, "argument %u cannot be null", k + 1);
            size_t kl;
            const uint8_t *kp = ubytes(&u[k], i, &kl);
            if (k)
                pos += (size_t)sprintf(o + pos, ", ");
            pos += json_str(kp, kl, o + pos);
            pos += (size_t)sprintf(o + pos, " : ");
            const fl_unified *v = &u[k + 1];
            const fl_type *vt = c->args[k + 1]->type;
            if (!uvalid(v, i)) {
                pos += (size_t)sprintf(o + pos, "null");
            } else if (fl_type_is_nested(vt)) {
                pos += fl_sql_json_value(c->args[k + 1], i, NULL, o + pos, cap - pos);
            } else if (vt->id == FL_TYPE_BOOLEAN) {
                pos += (size_t)sprintf(o + pos, "%s", UV(*v, uint8_t, i) ? "true" : "false");
            } else if (vt->id == FL_TYPE_INT32) {
                pos += (size_t)sprintf(o + pos, "%d", UV(*v, int32_t, i));
            } else if (vt->id == FL_TYPE_INT64) {
                pos += (size_t)sprintf(o + pos, "%lld", (long long)UV(*v, int64_t, i));
            } else if (vt->id == FL_TYPE_FLOAT64) {
                pos += fl_pg_format_double(UV(*v, double, i), o + pos, 40);
            } else if (vt->id == FL_TYPE_DECIMAL) {
                pos += dec_format(UV(*v, fl_i128, i), vt->scale, o + pos, 48);
            } else {
                size_t vl;
                const uint8_t *vp = ubytes(v, i, &vl);
                pos += json_str(vp, vl, o + pos);
            }
        }
        o[pos++] = '}';
        strout_commit(&so, i, pos);
    });
    strout_finish(&so, c->nrows);
    return FL_OK;
}

/* format(fmt, args...): %s (NULL -> empty), %I (quote_ident; NULL is an
 * error), %L (quote_literal; NULL -> NULL), %% ; arguments as text. */
static bool r_format(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n < 1 || n > 64 || !fl_is_string(&a[0]))
        return false;
    for (uint32_t i = 0; i < n; i++) {
        if (fl_type_is_nested(&a[i]))
            return false;
        at[i] = fl_mk(FL_TYPE_STRING);
    }
    *r = fl_mk(FL_TYPE_STRING);
    return true;
}

static fl_status k_format(fl_fn_call *c, fl_error *err)
{
    fl_unified u[64];
    for (uint32_t k = 0; k < c->nargs; k++)
        fl_vector_unify(c->args[k], &u[k]);
    strout so;
    strout_init_call(&so, c);
    FOR_ROWS(c->sel, c->nrows, i, {
        if (!uvalid(&u[0], i)) {
            FL_TRY(fl_out_null(c->out, i, err));
            continue;
        }
        size_t fl, cap = 1;
        const uint8_t *f = ubytes(&u[0], i, &fl);
        cap += 2 * fl;
        for (uint32_t k = 1; k < c->nargs; k++) {
            size_t l = 0;
            if (uvalid(&u[k], i))
                (void)ubytes(&u[k], i, &l);
            cap += 2 * l + 8;
        }
        uint8_t *dst;
        FL_TRY(strout_reserve(&so, cap, &dst, err));
        size_t o = 0;
        uint32_t next = 1;
        for (size_t j = 0; j < fl; j++) {
            if (f[j] != '%') {
                dst[o++] = f[j];
                continue;
            }
            if (++j >= fl)
                return fl_fn_error(c, err, FL_EINVAL, "unterminated format() type specifier");
            char spec = (char)f[j];
            if (spec == '%') {
                dst[o++] = '%';
                continue;
            }
            if (spec != 's' && spec != 'I' && spec != 'L')
                return fl_fn_error(c, err, FL_EINVAL, "unrecognized format() type specifier \"%c\"",
                                   spec);
            if (next >= c->nargs)
                return fl_fn_error(c, err, FL_EINVAL, "too few arguments for format()");
            const fl_unified *v = &u[next++];
            if (!uvalid(v, i)) {
                if (spec == 'I')
                    return fl_fn_error(c, err, FL_EINVAL,
                                       "null values cannot be formatted as an SQL identifier");
                if (spec == 'L') {
                    memcpy(dst + o, "NULL", 4);
                    o += 4;
                }
                continue;
            }
            size_t l;
            const uint8_t *p = ubytes(v, i, &l);
            bool quote = spec == 'L' || (spec == 'I' && needs_quotes(p, l));
            char qc = spec == 'L' ? '\'' : '"';
            if (quote)
                dst[o++] = (uint8_t)qc;
            for (size_t k = 0; k < l; k++) {
                if (quote && p[k] == (uint8_t)qc)
                    dst[o++] = (uint8_t)qc;
                dst[o++] = p[k];
            }
            if (quote)
                dst[o++] = (uint8_t)qc;
        }
        strout_commit(&so, i, o);
    });
    strout_finish(&so, c->nrows);
    return FL_OK;
}

#define PG(nm, r, k) {.name = nm, .kind = FL_FUNC_SCALAR, .deterministic = true, .resolve = r, .kernel = k}
#define PG_N(nm, r, k)                                                                             \
    {.name = nm, .kind = FL_FUNC_SCALAR, .deterministic = true, .resolve = r, .kernel = k,         \
     .handles_nulls = true}
#define PG_V(nm, r, k)                                                                             \
    {.name = nm, .kind = FL_FUNC_SCALAR, .deterministic = false, .resolve = r, .kernel = k,        \
     .uses_env = true}
static const fl_func funcs[] = {
    PG_N("format_type", r_format_type, k_format_type), /* typmod NULL = -1 */
    PG("pg_get_userbyid", r_oid_text, k_userbyid),
    PG("pg_table_is_visible", r_oid_bool, k_true),
    PG("pg_type_is_visible", r_oid_bool, k_true),
    PG("pg_function_is_visible", r_oid_bool, k_true),
    PG("pg_collation_is_visible", r_oid_bool, k_true),
    PG("pg_is_other_temp_schema", r_oid_bool, k_false),
    PG("pg_relation_is_publishable", r_oid_bool, k_false), /* floe has no logical replication */
    PG("has_table_privilege", r_privilege, k_true),
    PG("has_schema_privilege", r_privilege, k_true),
    PG("has_database_privilege", r_privilege, k_true),
    PG("has_column_privilege", r_privilege, k_true),
    PG("has_function_privilege", r_privilege, k_true),
    PG("has_any_column_privilege", r_privilege, k_true),
    PG("has_sequence_privilege", r_privilege, k_true),
    PG_N("obj_description", r_any_text, k_null),
    PG_N("col_description", r_any_text, k_null),
    PG_N("shobj_description", r_any_text, k_null),
    PG_N("pg_get_expr", r_any_text, k_null),
    PG_N("pg_get_indexdef", r_any_text, k_null),
    PG_N("pg_get_constraintdef", r_any_text, k_null),
    PG_N("pg_get_triggerdef", r_any_text, k_null),
    PG_N("pg_get_ruledef", r_any_text, k_null),
    PG_N("pg_get_partkeydef", r_any_text, k_null),
    PG_N("pg_get_serial_sequence", r_any_text, k_null),
    PG_N("pg_get_statisticsobjdef_columns", r_any_text, k_null),
    PG("pg_get_function_result", r_oid_text, k_function_result),
    PG("pg_get_function_arguments", r_oid_text, k_empty),
    PG("pg_get_function_identity_arguments", r_oid_text, k_empty),
    PG("pg_encoding_to_char", r_int_text, k_encoding),
    PG("pg_is_in_recovery", r_none_bool, k_false),
    PG_V("pg_backend_pid", r_none_int32, k_backend_pid),
    PG_V("pg_postmaster_start_time", r_none_tstz, k_start_time),
    PG_V("txid_current", r_none_int64, k_txid),
    PG("quote_ident", r_text_text, k_quote_ident),
    PG("version", r_none_text, k_version),
    PG("&", r_bitop, k_bitand),
    PG("|", r_bitop, k_bitor),
    PG("__pg_regclass", r_regclass, k_regclass),
    PG_N("json_build_object", r_json_build_object, k_json_build_object),
    PG_N("format", r_format, k_format),
    PG("pg_partition_ancestors", r_oid_oid, k_identity_oid),
    PG("pg_partition_root", r_oid_oid, k_identity_oid),
    PG("__pg_oid_text", fl_pg_r_oid_text, fl_pg_k_oid_text), /* pgrelinfo.c */
    PG("__pg_oid_int", fl_pg_r_oid_int, fl_pg_k_oid_int),
    PG("pg_size_pretty", fl_pg_r_size_pretty, fl_pg_k_size_pretty), /* pgstat.c */
    PG("pg_tablespace_location", fl_pg_r_oid_text1, fl_pg_k_tablespace_location),
    PG("pg_stat_get_numscans", fl_pg_r_oid_int64, fl_pg_k_zero_counter),
    PG("pg_stat_get_tuples_returned", fl_pg_r_oid_int64, fl_pg_k_zero_counter),
    PG("pg_stat_get_tuples_fetched", fl_pg_r_oid_int64, fl_pg_k_zero_counter),
    PG("pg_stat_get_tuples_inserted", fl_pg_r_oid_int64, fl_pg_k_zero_counter),
    PG("pg_stat_get_tuples_updated", fl_pg_r_oid_int64, fl_pg_k_zero_counter),
    PG("pg_stat_get_tuples_deleted", fl_pg_r_oid_int64, fl_pg_k_zero_counter),
    PG("pg_stat_get_blocks_fetched", fl_pg_r_oid_int64, fl_pg_k_zero_counter),
    PG("pg_stat_get_blocks_hit", fl_pg_r_oid_int64, fl_pg_k_zero_counter),
};
const fl_func_table fl_funcs_pg = {funcs, sizeof funcs / sizeof funcs[0]};
