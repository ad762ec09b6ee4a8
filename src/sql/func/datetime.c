/*
 * datetime.c - date/time operators and functions (PostgreSQL semantics):
 *   date + integer, date - date (integer days), date/timestamp[tz] +/-
 *   interval, timestamp - timestamp (interval), interval arithmetic;
 *   extract/date_part, date_trunc, date_diff/datediff, age, make_date,
 *   make_timestamp, to_timestamp(double), current_date,
 *   current_timestamp/now(), localtimestamp, timezone() (AT TIME ZONE) and
 *   to_char for dates and timestamps.
 *
 * Intervals are FIXED(16) {months, days, micros} (func.h). Adding an
 * interval adds months first (clamping the day to the month's length),
 * then days, then microseconds; for timestamptz the month/day steps happen
 * in the session time zone's local time (DST-correct), as PostgreSQL does.
 *
 * extract() returns bigint for integral fields and numeric(38,6) for
 * second/epoch (numeric(38,3) for milliseconds) - the same text PostgreSQL
 * 14+ prints; date_part() returns double precision.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sql/func/func_internal.h"

static bool is_ts(fl_type_id id)
{
    return id == FL_TYPE_TIMESTAMP || id == FL_TYPE_TIMESTAMPTZ || id == FL_TYPE_TIMESTAMP_NS ||
           id == FL_TYPE_TIMESTAMPTZ_NS;
}
static bool is_tz(fl_type_id id)
{
    return id == FL_TYPE_TIMESTAMPTZ || id == FL_TYPE_TIMESTAMPTZ_NS;
}

/* micros of row i of a date/time/timestamp vector (UTC for tz types) */
static inline int64_t get_us(const fl_unified *u, uint32_t i)
{
    uint32_t r = fl_unified_row(u, i);
    switch (u->base->type->id) {
    case FL_TYPE_DATE: return (int64_t)((const int32_t *)(const void *)u->base->data)[r] * US_PER_DAY;
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS: return floordiv64(((const int64_t *)(const void *)u->base->data)[r], 1000);
    default: return ((const int64_t *)(const void *)u->base->data)[r];
    }
}
/* the nanoseconds below get_us's microsecond (0..999; 0 for micro types) */
static inline int64_t get_sub_us(const fl_unified *u, uint32_t i)
{
    fl_type_id id = u->base->type->id;
    if (id != FL_TYPE_TIMESTAMP_NS && id != FL_TYPE_TIMESTAMPTZ_NS)
        return 0;
    return floormod64(((const int64_t *)(const void *)u->base->data)[fl_unified_row(u, i)], 1000);
}
static inline fl_interval get_iv(const fl_unified *u, uint32_t i)
{
    fl_interval iv;
    memcpy(&iv, u->base->data + (size_t)fl_unified_row(u, i) * 16, 16);
    return iv;
}
static inline void put_us(fl_vector *out, uint32_t i, int64_t us)
{
    if (out->type->id == FL_TYPE_TIMESTAMP_NS || out->type->id == FL_TYPE_TIMESTAMPTZ_NS)
        us *= 1000;
    ((int64_t *)(void *)out->data)[i] = us;
}

static const fl_tz *session_tz(fl_fn_call *c, fl_error *err)
{
    return fl_eval_state_tz(c->state, c->env ? c->env->time_zone : NULL, err);
}

static bool add_months(int64_t us, int32_t months, int64_t *out)
{
    int64_t days = floordiv64(us, US_PER_DAY), t = floormod64(us, US_PER_DAY);
    int64_t y;
    unsigned m, d;
    fl_civil_from_days(days, &y, &m, &d);
    int64_t mm = (int64_t)y * 12 + (m - 1) + months;
    y = floordiv64(mm, 12);
    m = (unsigned)floormod64(mm, 12) + 1;
    if (y < -4713 || y > 294276)
        return false;
    unsigned dim = fl_days_in_month(y, m);
    if (d > dim)
        d = dim;
    *out = fl_days_from_civil(y, m, d) * US_PER_DAY + t;
    return true;
}

/* local (or zone-less) timestamp + interval * sign */
static bool ts_add(int64_t us, fl_interval iv, int sign, const fl_tz *tz, int64_t *out)
{
    int64_t local = us;
    if (tz)
        local += (int64_t)fl_tz_offset_utc(tz, floordiv64(us, US_PER_SEC)) * US_PER_SEC;
    if (iv.months && !add_months(local, sign * iv.months, &local))
        return false;
    if (iv.days && __builtin_add_overflow(local, (int64_t)sign * iv.days * US_PER_DAY, &local))
        return false;
    if (tz && (iv.months || iv.days))
        us = local - (int64_t)fl_tz_offset_local(tz, floordiv64(local, US_PER_SEC)) * US_PER_SEC;
    else if (!tz)
        us = local;
    if (__builtin_add_overflow(us, (int64_t)sign * iv.micros, &us))
        return false;
    *out = us;
    return true;
}

static fl_status ts_range(fl_fn_call *c, fl_error *err)
{
    return fl_fn_error_state(c, err, FL_EOVERFLOW, "22003", "timestamp out of range");
}

/* ---- + and - ---- */

enum { V_DATE_INT = 1, V_INT_DATE, V_TS_IV, V_IV_TS, V_IV_IV, V_DATE_TIME, V_TIME_IV, V_DATE_DATE, V_TS_TS,
       V_TIME_TIME, V_IV_NUM, V_NUM_IV };

static bool unknown_or(const fl_type *t, bool (*pred)(const fl_type *))
{
    return fl_is_unknown(t) || pred(t);
}
static bool p_int(const fl_type *t) { return fl_is_integer(t); }
static bool p_iv(const fl_type *t) { return fl_type_is_interval(t); }

static int classify(const fl_type *a, const fl_type *b, bool minus, fl_type *ra, fl_type *rb, fl_type *res)
{
    fl_type iv = fl_mk_interval();
    if (a->id == FL_TYPE_DATE && unknown_or(b, p_int) && !fl_is_unknown(b)) {
        *ra = *a, *rb = fl_mk(FL_TYPE_INT32), *res = fl_mk(FL_TYPE_DATE);
        return V_DATE_INT;
    }
    if (!minus && fl_is_integer(a) && b->id == FL_TYPE_DATE) {
        *ra = fl_mk(FL_TYPE_INT32), *rb = *b, *res = fl_mk(FL_TYPE_DATE);
        return V_INT_DATE;
    }
    if ((a->id == FL_TYPE_DATE || is_ts(a->id)) && unknown_or(b, p_iv)) {
        *ra = a->id == FL_TYPE_DATE ? fl_mk(FL_TYPE_TIMESTAMP) : *a;
        *rb = iv;
        *res = *ra;
        return V_TS_IV;
    }
    if (!minus && fl_type_is_interval(a) && (b->id == FL_TYPE_DATE || is_ts(b->id))) {
        *ra = iv;
        *rb = b->id == FL_TYPE_DATE ? fl_mk(FL_TYPE_TIMESTAMP) : *b;
        *res = *rb;
        return V_IV_TS;
    }
    if (fl_type_is_interval(a) && unknown_or(b, p_iv)) {
        *ra = *rb = *res = iv;
        return V_IV_IV;
    }
    if (!minus && a->id == FL_TYPE_DATE && b->id == FL_TYPE_TIME) {
        *ra = *a, *rb = *b, *res = fl_mk(FL_TYPE_TIMESTAMP);
        return V_DATE_TIME;
    }
    if (a->id == FL_TYPE_TIME && unknown_or(b, p_iv)) {
        *ra = *a, *rb = iv, *res = *a;
        return V_TIME_IV;
    }
    if (minus && a->id == FL_TYPE_DATE && b->id == FL_TYPE_DATE) {
        *ra = *a, *rb = *b, *res = fl_mk(FL_TYPE_INT32);
        return V_DATE_DATE;
    }
    if (minus && (is_ts(a->id) || a->id == FL_TYPE_DATE) && (is_ts(b->id) || b->id == FL_TYPE_DATE) &&
        !(a->id == FL_TYPE_DATE && b->id == FL_TYPE_DATE)) {
        fl_type t;
        if (!fl_type_common(a, b, &t))
            return 0;
        *ra = *rb = t;
        *res = iv;
        return V_TS_TS;
    }
    if (minus && a->id == FL_TYPE_TIME && b->id == FL_TYPE_TIME) {
        *ra = *a, *rb = *b, *res = iv;
        return V_TIME_TIME;
    }
    return 0;
}

/* Split by whether the session zone matters, so zone-free date arithmetic
 * folds at plan time (uses_env false) and timestamptz arithmetic does not. */
static bool zoned(const fl_type *at, const fl_type *r)
{
    return is_tz(at[0].id) || is_tz(at[1].id) || is_tz(r->id);
}
static bool r_dt_add(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    return n == 2 && classify(&a[0], &a[1], false, &at[0], &at[1], r) != 0 && !zoned(at, r);
}
static bool r_dt_sub(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    return n == 2 && classify(&a[0], &a[1], true, &at[0], &at[1], r) != 0 && !zoned(at, r);
}
static bool r_dt_add_tz(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    return n == 2 && classify(&a[0], &a[1], false, &at[0], &at[1], r) != 0 && zoned(at, r);
}
static bool r_dt_sub_tz(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    return n == 2 && classify(&a[0], &a[1], true, &at[0], &at[1], r) != 0 && zoned(at, r);
}

static fl_status dt_arith(fl_fn_call *c, bool minus, fl_error *err)
{
    fl_type ra, rb, res;
    int v = classify(c->args[0]->type, c->args[1]->type, minus, &ra, &rb, &res);
    fl_unified a, b;
    fl_vector_unify(c->args[0], &a);
    fl_vector_unify(c->args[1], &b);
    fl_vector *out = c->out;
    int sign = minus ? -1 : 1;
    switch (v) {
    case V_DATE_INT:
    case V_INT_DATE:
        FOR_ROWS(c->sel, c->nrows, i, {
            int64_t d = (int64_t)UV(a, int32_t, i) + sign * (int64_t)UV(b, int32_t, i);
            if (d > 2147483647LL - 1 || d < -2147483647LL)
                return fl_fn_error_state(c, err, FL_EOVERFLOW, "22003", "date out of range");
            OUTV(out, int32_t)[i] = (int32_t)d;
        });
        return FL_OK;
    case V_TS_IV:
    case V_IV_TS: {
        const fl_unified *tsu = v == V_TS_IV ? &a : &b, *ivu = v == V_TS_IV ? &b : &a;
        const fl_tz *tz = NULL;
        if (is_tz(out->type->id) && !(tz = session_tz(c, err)))
            return err->code;
        FOR_ROWS(c->sel, c->nrows, i, {
            int64_t r;
            if (!ts_add(get_us(tsu, i), get_iv(ivu, i), sign, tz, &r))
                return ts_range(c, err);
            put_us(out, i, r);
            if (out->type->id == FL_TYPE_TIMESTAMP_NS || out->type->id == FL_TYPE_TIMESTAMPTZ_NS)
                ((int64_t *)(void *)out->data)[i] += get_sub_us(tsu, i);
        });
        return FL_OK;
    }
    case V_IV_IV:
        FOR_ROWS(c->sel, c->nrows, i, {
            fl_interval x = get_iv(&a, i), y = get_iv(&b, i), r;
            if (__builtin_add_overflow(x.months, sign * y.months, &r.months) ||
                __builtin_add_overflow(x.days, sign * y.days, &r.days) ||
                __builtin_add_overflow(x.micros, sign * y.micros, &r.micros))
                return fl_fn_error_state(c, err, FL_EOVERFLOW, "22003", "interval out of range");
            memcpy(out->data + (size_t)i * 16, &r, 16);
        });
        return FL_OK;
    case V_DATE_TIME:
        FOR_ROWS(c->sel, c->nrows, i, { OUTV(out, int64_t)[i] = get_us(&a, i) + UV(b, int64_t, i); });
        return FL_OK;
    case V_TIME_IV:
        FOR_ROWS(c->sel, c->nrows, i, {
            fl_interval iv = get_iv(&b, i);
            OUTV(out, int64_t)[i] = floormod64(UV(a, int64_t, i) + sign * floormod64(iv.micros, US_PER_DAY), US_PER_DAY);
        });
        return FL_OK;
    case V_DATE_DATE:
        FOR_ROWS(c->sel, c->nrows, i, {
            int64_t d = (int64_t)UV(a, int32_t, i) - UV(b, int32_t, i);
            if (d > INT32_MAX || d < INT32_MIN)
                return fl_fn_error_state(c, err, FL_EOVERFLOW, "22003", "integer out of range");
            OUTV(out, int32_t)[i] = (int32_t)d;
        });
        return FL_OK;
    case V_TS_TS:
    case V_TIME_TIME:
        FOR_ROWS(c->sel, c->nrows, i, {
            int64_t x = v == V_TIME_TIME ? UV(a, int64_t, i) : get_us(&a, i);
            int64_t y = v == V_TIME_TIME ? UV(b, int64_t, i) : get_us(&b, i);
            int64_t d;
            if (__builtin_sub_overflow(x, y, &d))
                return fl_fn_error_state(c, err, FL_EOVERFLOW, "22003", "interval out of range");
            /* PostgreSQL: whole days go to the day field, the rest to micros */
            fl_interval r = {0, 0, 0};
            if (v == V_TS_TS) {
                int64_t days = d / US_PER_DAY;
                r.days = (int32_t)days;
                r.micros = d - days * US_PER_DAY;
            } else
                r.micros = d;
            memcpy(out->data + (size_t)i * 16, &r, 16);
        });
        return FL_OK;
    default: return fl_fn_error(c, err, FL_ETYPE, "unexpected date/time operand types");
    }
}
static fl_status k_dt_add(fl_fn_call *c, fl_error *e) { return dt_arith(c, false, e); }
static fl_status k_dt_sub(fl_fn_call *c, fl_error *e) { return dt_arith(c, true, e); }

/* interval * number, interval / number, -interval */
static bool r_iv_mul(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 2)
        return false;
    if (fl_type_is_interval(&a[0]) && fl_is_numeric(&a[1])) {
        at[0] = a[0], at[1] = fl_mk(FL_TYPE_FLOAT64);
    } else if (fl_is_numeric(&a[0]) && fl_type_is_interval(&a[1])) {
        at[0] = fl_mk(FL_TYPE_FLOAT64), at[1] = a[1];
    } else
        return false;
    *r = fl_mk_interval();
    return true;
}
static bool r_iv_div(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 2 || !fl_type_is_interval(&a[0]) || !fl_is_numeric(&a[1]))
        return false;
    at[0] = a[0], at[1] = fl_mk(FL_TYPE_FLOAT64);
    *r = fl_mk_interval();
    return true;
}
static bool iv_scale(fl_interval x, double f, fl_interval *out)
{
    /* PostgreSQL interval_mul: fractional months cascade to days (30), days to micros */
    double m = x.months * f, d = x.days * f;
    double wm = trunc(m);
    d += (m - wm) * 30;
    double wd = trunc(d);
    double us = x.micros * f + (d - wd) * (double)US_PER_DAY;
    if (fabs(wm) > 2147483647.0 || fabs(wd) > 2147483647.0 || fabs(us) > 9.2e18 || isnan(us))
        return false;
    out->months = (int32_t)wm;
    out->days = (int32_t)wd;
    out->micros = (int64_t)llround(us);
    return true;
}
static fl_status k_iv_mul(fl_fn_call *c, fl_error *err)
{
    bool first = fl_type_is_interval(c->args[0]->type);
    fl_unified iv, f;
    fl_vector_unify(c->args[first ? 0 : 1], &iv);
    fl_vector_unify(c->args[first ? 1 : 0], &f);
    FOR_ROWS(c->sel, c->nrows, i, {
        fl_interval r;
        if (!iv_scale(get_iv(&iv, i), UV(f, double, i), &r))
            return fl_fn_error_state(c, err, FL_EOVERFLOW, "22003", "interval out of range");
        memcpy(c->out->data + (size_t)i * 16, &r, 16);
    });
    return FL_OK;
}
static fl_status k_iv_div(fl_fn_call *c, fl_error *err)
{
    fl_unified iv, f;
    fl_vector_unify(c->args[0], &iv);
    fl_vector_unify(c->args[1], &f);
    FOR_ROWS(c->sel, c->nrows, i, {
        double d = UV(f, double, i);
        if (d == 0)
            return fl_fn_error_state(c, err, FL_EINVAL, "22012", "division by zero");
        fl_interval r;
        if (!iv_scale(get_iv(&iv, i), 1.0 / d, &r))
            return fl_fn_error_state(c, err, FL_EOVERFLOW, "22003", "interval out of range");
        memcpy(c->out->data + (size_t)i * 16, &r, 16);
    });
    return FL_OK;
}
static bool r_iv_neg(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1 || !fl_type_is_interval(&a[0]))
        return false;
    *r = at[0] = a[0];
    return true;
}
static fl_status k_iv_neg(fl_fn_call *c, fl_error *err)
{
    (void)err;
    fl_unified u;
    fl_vector_unify(c->args[0], &u);
    FOR_ROWS(c->sel, c->nrows, i, {
        fl_interval x = get_iv(&u, i);
        x.months = -x.months, x.days = -x.days, x.micros = -x.micros;
        memcpy(c->out->data + (size_t)i * 16, &x, 16);
    });
    return FL_OK;
}

/* ---- fields ---- */

typedef enum { F_NONE, F_MICROSECONDS, F_MILLISECONDS, F_SECOND, F_MINUTE, F_HOUR, F_DAY, F_WEEK, F_MONTH,
               F_QUARTER, F_YEAR, F_DECADE, F_CENTURY, F_MILLENNIUM, F_DOW, F_ISODOW, F_DOY, F_EPOCH,
               F_ISOYEAR, F_TIMEZONE, F_TZ_HOUR, F_TZ_MINUTE, F_JULIAN } field_t;

static field_t parse_field(const uint8_t *p, size_t n)
{
    char b[24];
    if (n == 0 || n >= sizeof b)
        return F_NONE;
    for (size_t i = 0; i < n; i++)
        b[i] = (char)tolower(p[i]);
    b[n] = 0;
    static const struct {
        const char *s;
        field_t f;
    } m[] = {
        {"microsecond", F_MICROSECONDS}, {"microseconds", F_MICROSECONDS}, {"us", F_MICROSECONDS},
        {"usec", F_MICROSECONDS},        {"millisecond", F_MILLISECONDS}, {"milliseconds", F_MILLISECONDS},
        {"ms", F_MILLISECONDS},          {"msec", F_MILLISECONDS},         {"second", F_SECOND},
        {"seconds", F_SECOND},           {"sec", F_SECOND},                {"s", F_SECOND},
        {"minute", F_MINUTE},            {"minutes", F_MINUTE},            {"min", F_MINUTE},
        {"hour", F_HOUR},                {"hours", F_HOUR},                {"h", F_HOUR},
        {"day", F_DAY},                  {"days", F_DAY},                  {"d", F_DAY},
        {"week", F_WEEK},                {"weeks", F_WEEK},                {"w", F_WEEK},
        {"month", F_MONTH},              {"months", F_MONTH},              {"mon", F_MONTH},
        {"quarter", F_QUARTER},          {"year", F_YEAR},                 {"years", F_YEAR},
        {"y", F_YEAR},                   {"decade", F_DECADE},             {"decades", F_DECADE},
        {"century", F_CENTURY},          {"centuries", F_CENTURY},         {"millennium", F_MILLENNIUM},
        {"millennia", F_MILLENNIUM},     {"dow", F_DOW},                   {"dayofweek", F_DOW},
        {"isodow", F_ISODOW},            {"doy", F_DOY},                   {"dayofyear", F_DOY},
        {"epoch", F_EPOCH},              {"isoyear", F_ISOYEAR},           {"timezone", F_TIMEZONE},
        {"timezone_hour", F_TZ_HOUR},    {"timezone_minute", F_TZ_MINUTE}, {"julian", F_JULIAN},
    };
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        if (!strcmp(b, m[i].s))
            return m[i].f;
    return F_NONE;
}

/* parse_field for a unit argument, which is nearly always one constant:
 * parsed again only when the row's bytes differ from the last row's (a
 * constant's rows share one pointer), not once per row. */
typedef struct field_memo {
    const uint8_t *p;
    size_t n;
    field_t f;
    bool set;
} field_memo;

static field_t memo_field(field_memo *m, const uint8_t *p, size_t n)
{
    if (!m->set || n != m->n || (p != m->p && memcmp(p, m->p, n) != 0)) {
        m->f = parse_field(p, n);
        m->p = p;
        m->n = n;
        m->set = true;
    }
    return m->f;
}

static field_t const_field(const fl_expr *e)
{
    if (e->kind != FL_EXPR_CONST || e->value.is_null || e->type.id != FL_TYPE_STRING)
        return F_NONE;
    return parse_field(e->value.v.bytes.ptr, e->value.v.bytes.len);
}

static int64_t iso_week(int64_t days, int64_t *iso_year)
{
    int64_t y;
    unsigned m, d;
    fl_civil_from_days(days, &y, &m, &d);
    int dow = (int)floormod64(days + 3, 7); /* Monday = 0 */
    int64_t thursday = days - dow + 3;
    int64_t ty;
    unsigned tm, td;
    fl_civil_from_days(thursday, &ty, &tm, &td);
    *iso_year = ty;
    return (thursday - fl_days_from_civil(ty, 1, 1)) / 7 + 1;
}

/* Field of a local timestamp, scaled by 10^6 (micro-units). ok=false when the field is unsupported. */
static fl_i128 ts_field(field_t f, int64_t us, int32_t tz_off, bool *ok)
{
    int64_t days = floordiv64(us, US_PER_DAY), t = floormod64(us, US_PER_DAY);
    int64_t y;
    unsigned m, d;
    fl_civil_from_days(days, &y, &m, &d);
    const fl_i128 M = 1000000;
    *ok = true;
    switch (f) {
    case F_MICROSECONDS: return (fl_i128)(t % (60 * US_PER_SEC)) * M;
    case F_MILLISECONDS: return (fl_i128)(t % (60 * US_PER_SEC)) * 1000;
    case F_SECOND: return (fl_i128)(t % (60 * US_PER_SEC));
    case F_MINUTE: return (fl_i128)(t / (60 * US_PER_SEC) % 60) * M;
    case F_HOUR: return (fl_i128)(t / (3600 * US_PER_SEC)) * M;
    case F_DAY: return (fl_i128)d * M;
    case F_MONTH: return (fl_i128)m * M;
    case F_QUARTER: return (fl_i128)((m - 1) / 3 + 1) * M;
    case F_YEAR: return (fl_i128)(y <= 0 ? y - 1 : y) * M;
    case F_DECADE: return (fl_i128)floordiv64(y, 10) * M;
    case F_CENTURY: return (fl_i128)(y > 0 ? (y + 99) / 100 : -((99 - (y - 1)) / 100)) * M;
    case F_MILLENNIUM: return (fl_i128)(y > 0 ? (y + 999) / 1000 : -((999 - (y - 1)) / 1000)) * M;
    case F_DOW: return (fl_i128)floormod64(days + 4, 7) * M;
    case F_ISODOW: return (fl_i128)(floormod64(days + 3, 7) + 1) * M;
    case F_DOY: return (fl_i128)(days - fl_days_from_civil(y, 1, 1) + 1) * M;
    case F_WEEK: {
        int64_t iy;
        return (fl_i128)iso_week(days, &iy) * M;
    }
    case F_ISOYEAR: {
        int64_t iy;
        iso_week(days, &iy);
        return (fl_i128)iy * M;
    }
    case F_EPOCH: return (fl_i128)(us - (int64_t)tz_off * US_PER_SEC);
    case F_TIMEZONE: return (fl_i128)tz_off * M;
    case F_TZ_HOUR: return (fl_i128)(tz_off / 3600) * M;
    case F_TZ_MINUTE: return (fl_i128)(tz_off / 60 % 60) * M;
    case F_JULIAN: return (fl_i128)(days + 2440588) * M + (fl_i128)t * M / US_PER_DAY;
    default: *ok = false; return 0;
    }
}

static fl_i128 iv_field(field_t f, fl_interval iv, bool *ok)
{
    const fl_i128 M = 1000000;
    *ok = true;
    switch (f) {
    case F_MICROSECONDS: return (fl_i128)(iv.micros % (60 * US_PER_SEC)) * M;
    case F_MILLISECONDS: return (fl_i128)(iv.micros % (60 * US_PER_SEC)) * 1000;
    case F_SECOND: return (fl_i128)(iv.micros % (60 * US_PER_SEC));
    case F_MINUTE: return (fl_i128)(iv.micros / (60 * US_PER_SEC) % 60) * M;
    case F_HOUR: return (fl_i128)(iv.micros / (3600 * US_PER_SEC)) * M;
    case F_DAY: return (fl_i128)iv.days * M;
    case F_MONTH: return (fl_i128)(iv.months % 12) * M;
    case F_QUARTER: return (fl_i128)((iv.months % 12) / 3 + 1) * M;
    case F_YEAR: return (fl_i128)(iv.months / 12) * M;
    case F_DECADE: return (fl_i128)(iv.months / 120) * M;
    case F_CENTURY: return (fl_i128)(iv.months / 1200) * M;
    case F_MILLENNIUM: return (fl_i128)(iv.months / 12000) * M;
    case F_EPOCH:
        return (fl_i128)(iv.months / 12) * 31557600 * M + (fl_i128)(iv.months % 12) * 2592000 * M +
               (fl_i128)iv.days * 86400 * M + iv.micros;
    default: *ok = false; return 0;
    }
}

static fl_type extract_type(field_t f)
{
    switch (f) {
    case F_SECOND:
    case F_EPOCH:
    case F_JULIAN: return fl_mk_dec(38, 6);
    case F_MILLISECONDS: return fl_mk_dec(38, 3);
    default: return fl_mk(FL_TYPE_INT64);
    }
}

static bool r_extract(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 2 || !fl_is_string(&a[0]))
        return false;
    if (!(fl_is_temporal(&a[1]) || fl_type_is_interval(&a[1]) || fl_is_unknown(&a[1])))
        return false;
    at[0] = fl_mk(FL_TYPE_STRING);
    at[1] = fl_is_unknown(&a[1]) ? fl_mk(FL_TYPE_TIMESTAMPTZ) : a[1];
    *r = fl_mk_dec(38, 6);
    return true;
}
static bool r_date_part(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (!r_extract(a, n, r, at))
        return false;
    *r = fl_mk(FL_TYPE_FLOAT64);
    return true;
}
static void refine_extract(fl_expr *e)
{
    field_t f = const_field(e->args[0]);
    if (f != F_NONE)
        e->type = extract_type(f);
    if (f == F_EPOCH && e->args[1]->type.id == FL_TYPE_DATE)
        e->type = fl_mk(FL_TYPE_INT64); /* PostgreSQL: extract(epoch from date) is integral */
}

static fl_status k_extract(fl_fn_call *c, fl_error *err)
{
    fl_unified fu, xu;
    fl_vector_unify(c->args[0], &fu);
    fl_vector_unify(c->args[1], &xu);
    const fl_type *xt = c->args[1]->type;
    const fl_tz *tz = NULL;
    if (is_tz(xt->id) && !(tz = session_tz(c, err)))
        return err->code;
    fl_vector *out = c->out;
    field_memo memo = {0};
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t fl;
        const uint8_t *fp = ubytes(&fu, i, &fl);
        field_t f = memo_field(&memo, fp, fl);
        bool ok = f != F_NONE;
        fl_i128 v = 0;
        if (ok) {
            if (fl_type_is_interval(xt))
                v = iv_field(f, get_iv(&xu, i), &ok);
            else if (xt->id == FL_TYPE_TIME) {
                if (f == F_MICROSECONDS || f == F_MILLISECONDS || f == F_SECOND || f == F_MINUTE || f == F_HOUR ||
                    f == F_EPOCH)
                    v = ts_field(f, UV(xu, int64_t, i), 0, &ok);
                else
                    ok = false;
            } else {
                int64_t us = get_us(&xu, i);
                int32_t off = 0;
                if (tz) {
                    off = fl_tz_offset_utc(tz, floordiv64(us, US_PER_SEC));
                    us += (int64_t)off * US_PER_SEC;
                } else if (f == F_TIMEZONE || f == F_TZ_HOUR || f == F_TZ_MINUTE)
                    ok = false;
                if (ok)
                    v = ts_field(f, us, off, &ok);
            }
        }
        if (!ok) {
            char tn[64];
            return fl_fn_error(c, err, FL_EINVAL, "unit \"%.*s\" not supported for type %s", (int)(fl > 30 ? 30 : fl),
                               (const char *)fp, fl_sql_type_name(xt, tn, sizeof tn));
        }
        switch (out->type->id) {
        case FL_TYPE_INT64: OUTV(out, int64_t)[i] = (int64_t)(v / 1000000); break;
        case FL_TYPE_FLOAT64: OUTV(out, double)[i] = (double)v / 1e6; break;
        default: {
            fl_i128 r;
            dec_rescale(v, out->type->scale - 6, &r);
            memcpy(out->data + (size_t)i * 16, &r, 16);
        }
        }
    });
    return FL_OK;
}

/* ---- date_trunc ---- */

static bool trunc_us(field_t f, int64_t us, int64_t *out)
{
    int64_t days = floordiv64(us, US_PER_DAY), t = floormod64(us, US_PER_DAY);
    int64_t y = 0;
    unsigned m = 1, d = 1;
    if (f >= F_MONTH && f <= F_MILLENNIUM) /* the calendar only where a unit needs it (a hot path) */
        fl_civil_from_days(days, &y, &m, &d);
    switch (f) {
    case F_MICROSECONDS: *out = us; return true;
    case F_MILLISECONDS: *out = us - floormod64(us, 1000); return true;
    case F_SECOND: *out = us - floormod64(us, US_PER_SEC); return true;
    case F_MINUTE: *out = us - floormod64(us, 60 * US_PER_SEC); return true;
    case F_HOUR: *out = us - floormod64(us, 3600 * US_PER_SEC); return true;
    case F_DAY: *out = us - t; return true;
    case F_WEEK: *out = (days - floormod64(days + 3, 7)) * US_PER_DAY; return true;
    case F_MONTH: *out = fl_days_from_civil(y, m, 1) * US_PER_DAY; return true;
    case F_QUARTER: *out = fl_days_from_civil(y, (m - 1) / 3 * 3 + 1, 1) * US_PER_DAY; return true;
    case F_YEAR: *out = fl_days_from_civil(y, 1, 1) * US_PER_DAY; return true;
    case F_DECADE:
        *out = fl_days_from_civil(floordiv64(y, 10) * 10, 1, 1) * US_PER_DAY;
        return true;
    case F_CENTURY:
        *out =
            fl_days_from_civil(y > 0 ? (y - 1) / 100 * 100 + 1 : -(((-y) / 100) * 100) - 99, 1, 1) *
            US_PER_DAY;
        return true;
    case F_MILLENNIUM:
        *out = fl_days_from_civil(y > 0 ? (y - 1) / 1000 * 1000 + 1 : -(((-y) / 1000) * 1000) - 999,
                                  1, 1) *
               US_PER_DAY;
        return true;
    default: return false;
    }
}

static bool r_date_trunc(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 2 || !fl_is_string(&a[0]))
        return false;
    at[0] = fl_mk(FL_TYPE_STRING);
    if (a[1].id == FL_TYPE_DATE || fl_is_unknown(&a[1]))
        at[1] = fl_mk(FL_TYPE_TIMESTAMPTZ); /* PostgreSQL: date -> timestamptz */
    else if (is_ts(a[1].id) || fl_type_is_interval(&a[1]))
        at[1] = a[1];
    else
        return false;
    *r = at[1];
    return true;
}

static fl_status k_date_trunc(fl_fn_call *c, fl_error *err)
{
    fl_unified fu, xu;
    fl_vector_unify(c->args[0], &fu);
    fl_vector_unify(c->args[1], &xu);
    const fl_type *xt = c->args[1]->type;
    const fl_tz *tz = NULL;
    if (is_tz(xt->id) && !(tz = session_tz(c, err)))
        return err->code;
    field_memo memo = {0};
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t fl;
        const uint8_t *fp = ubytes(&fu, i, &fl);
        field_t f = memo_field(&memo, fp, fl);
        if (fl_type_is_interval(xt)) {
            fl_interval iv = get_iv(&xu, i);
            switch (f) {
            case F_MILLENNIUM: iv.months -= iv.months % 12000; iv.days = 0; iv.micros = 0; break;
            case F_CENTURY: iv.months -= iv.months % 1200; iv.days = 0; iv.micros = 0; break;
            case F_DECADE: iv.months -= iv.months % 120; iv.days = 0; iv.micros = 0; break;
            case F_YEAR: iv.months -= iv.months % 12; iv.days = 0; iv.micros = 0; break;
            case F_QUARTER: iv.months -= iv.months % 3; iv.days = 0; iv.micros = 0; break;
            case F_MONTH: iv.days = 0; iv.micros = 0; break;
            case F_DAY: iv.micros = 0; break;
            case F_HOUR: iv.micros -= iv.micros % (3600 * US_PER_SEC); break;
            case F_MINUTE: iv.micros -= iv.micros % (60 * US_PER_SEC); break;
            case F_SECOND: iv.micros -= iv.micros % US_PER_SEC; break;
            case F_MILLISECONDS: iv.micros -= iv.micros % 1000; break;
            case F_MICROSECONDS: break;
            default: return fl_fn_error(c, err, FL_EINVAL, "unit \"%.*s\" not supported for type interval", (int)(fl > 30 ? 30 : fl), (const char *)fp);
            }
            memcpy(c->out->data + (size_t)i * 16, &iv, 16);
            continue;
        }
        int64_t us = get_us(&xu, i), r;
        if (tz)
            us += (int64_t)fl_tz_offset_utc(tz, floordiv64(us, US_PER_SEC)) * US_PER_SEC;
        if (!trunc_us(f, us, &r))
            return fl_fn_error(c, err, FL_EINVAL, "unit \"%.*s\" not recognized", (int)(fl > 30 ? 30 : fl), (const char *)fp);
        if (tz)
            r -= (int64_t)fl_tz_offset_local(tz, floordiv64(r, US_PER_SEC)) * US_PER_SEC;
        if (xt->id == FL_TYPE_TIMESTAMP_NS || xt->id == FL_TYPE_TIMESTAMPTZ_NS) {
            int64_t ns = ((const int64_t *)(const void *)xu.base->data)[fl_unified_row(&xu, i)];
            OUTV(c->out, int64_t)[i] = f == F_MICROSECONDS ? ns - floormod64(ns, 1000) : r * 1000;
        } else
            OUTV(c->out, int64_t)[i] = r;
    });
    return FL_OK;
}

/* ---- date_diff(part, start, end) (DuckDB/Snowflake: boundaries crossed) ---- */
static bool r_date_diff(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 3 || !fl_is_string(&a[0]))
        return false;
    fl_type t;
    if (!fl_type_common(&a[1], &a[2], &t) || !(t.id == FL_TYPE_DATE || is_ts(t.id) || t.id == FL_TYPE_TIME))
        return false;
    at[0] = fl_mk(FL_TYPE_STRING);
    at[1] = at[2] = t;
    *r = fl_mk(FL_TYPE_INT64);
    return true;
}
static fl_status k_date_diff(fl_fn_call *c, fl_error *err)
{
    fl_unified fu, au, bu;
    fl_vector_unify(c->args[0], &fu);
    fl_vector_unify(c->args[1], &au);
    fl_vector_unify(c->args[2], &bu);
    bool time = c->args[1]->type->id == FL_TYPE_TIME;
    const fl_tz *tz = NULL;
    if (is_tz(c->args[1]->type->id) && !(tz = session_tz(c, err)))
        return err->code;
    field_memo memo = {0};
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t fl;
        const uint8_t *fp = ubytes(&fu, i, &fl);
        field_t f = memo_field(&memo, fp, fl);
        int64_t x = time ? UV(au, int64_t, i) : get_us(&au, i), y = time ? UV(bu, int64_t, i) : get_us(&bu, i);
        if (tz) {
            x += (int64_t)fl_tz_offset_utc(tz, floordiv64(x, US_PER_SEC)) * US_PER_SEC;
            y += (int64_t)fl_tz_offset_utc(tz, floordiv64(y, US_PER_SEC)) * US_PER_SEC;
        }
        int64_t r;
        int64_t yx, yy;
        unsigned mx, my, dx, dy;
        fl_civil_from_days(floordiv64(x, US_PER_DAY), &yx, &mx, &dx);
        fl_civil_from_days(floordiv64(y, US_PER_DAY), &yy, &my, &dy);
        switch (f) {
        case F_YEAR: r = yy - yx; break;
        case F_QUARTER: r = (yy * 4 + (my - 1) / 3) - (yx * 4 + (mx - 1) / 3); break;
        case F_MONTH: r = (yy * 12 + my) - (yx * 12 + mx); break;
        case F_DECADE: r = floordiv64(yy, 10) - floordiv64(yx, 10); break;
        case F_CENTURY: r = floordiv64(yy, 100) - floordiv64(yx, 100); break;
        case F_MILLENNIUM: r = floordiv64(yy, 1000) - floordiv64(yx, 1000); break;
        case F_WEEK: r = (floordiv64(y, US_PER_DAY) - floordiv64(x, US_PER_DAY)) / 7; break;
        case F_DAY:
        case F_DOY:
        case F_DOW:
        case F_ISODOW: r = floordiv64(y, US_PER_DAY) - floordiv64(x, US_PER_DAY); break;
        case F_HOUR: r = floordiv64(y, 3600 * US_PER_SEC) - floordiv64(x, 3600 * US_PER_SEC); break;
        case F_MINUTE: r = floordiv64(y, 60 * US_PER_SEC) - floordiv64(x, 60 * US_PER_SEC); break;
        case F_SECOND:
        case F_EPOCH: r = floordiv64(y, US_PER_SEC) - floordiv64(x, US_PER_SEC); break;
        case F_MILLISECONDS: r = floordiv64(y, 1000) - floordiv64(x, 1000); break;
        case F_MICROSECONDS: r = y - x; break;
        default: return fl_fn_error(c, err, FL_EINVAL, "unit \"%.*s\" not recognized", (int)(fl > 30 ? 30 : fl), (const char *)fp);
        }
        OUTV(c->out, int64_t)[i] = r;
    });
    return FL_OK;
}

/* ---- age ---- */
static fl_interval age_of(int64_t a, int64_t b)
{
    /* PostgreSQL timestamp_age: field-wise difference with borrows */
    bool neg = a < b;
    if (neg) {
        int64_t t = a;
        a = b;
        b = t;
    }
    int64_t ya, yb;
    unsigned ma, mb, da, db;
    fl_civil_from_days(floordiv64(a, US_PER_DAY), &ya, &ma, &da);
    fl_civil_from_days(floordiv64(b, US_PER_DAY), &yb, &mb, &db);
    int64_t ta = floormod64(a, US_PER_DAY), tb = floormod64(b, US_PER_DAY);
    int64_t us = ta - tb, days = (int64_t)da - db, months = (int64_t)ma - mb, years = ya - yb;
    if (us < 0) {
        us += US_PER_DAY;
        days--;
    }
    if (days < 0) {
        /* borrow the length of the earlier date's month (PostgreSQL timestamp_age) */
        days += fl_days_in_month(yb, mb);
        months--;
    }
    if (months < 0) {
        months += 12;
        years--;
    }
    fl_interval r = {(int32_t)(years * 12 + months), (int32_t)days, us};
    if (neg)
        r.months = -r.months, r.days = -r.days, r.micros = -r.micros;
    return r;
}
static bool r_age(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n < 1 || n > 2)
        return false;
    fl_type t = a[0];
    if (n == 2 && !fl_type_common(&a[0], &a[1], &t))
        return false;
    if (t.id == FL_TYPE_DATE || fl_is_unknown(&t))
        t = fl_mk(FL_TYPE_TIMESTAMP);
    if (!is_ts(t.id))
        return false;
    at[0] = t;
    if (n == 2)
        at[1] = t;
    *r = fl_mk_interval();
    return true;
}
static fl_status k_age(fl_fn_call *c, fl_error *err)
{
    fl_unified a, b;
    fl_vector_unify(c->args[0], &a);
    if (c->nargs == 2)
        fl_vector_unify(c->args[1], &b);
    const fl_tz *tz = NULL;
    if ((is_tz(c->args[0]->type->id) || c->nargs == 1) && !(tz = session_tz(c, err)))
        return err->code;
    int64_t today = 0;
    if (c->nargs == 1) {
        int64_t now = c->env ? c->env->statement_time_us : 0;
        now += (int64_t)fl_tz_offset_utc(tz, floordiv64(now, US_PER_SEC)) * US_PER_SEC;
        today = now - floormod64(now, US_PER_DAY);
    }
    FOR_ROWS(c->sel, c->nrows, i, {
        int64_t x = c->nargs == 2 ? get_us(&a, i) : today, y = c->nargs == 2 ? get_us(&b, i) : get_us(&a, i);
        if (tz && is_tz(c->args[0]->type->id)) {
            if (c->nargs == 2)
                x += (int64_t)fl_tz_offset_utc(tz, floordiv64(x, US_PER_SEC)) * US_PER_SEC;
            y += (int64_t)fl_tz_offset_utc(tz, floordiv64(y, US_PER_SEC)) * US_PER_SEC;
        }
        fl_interval r = age_of(x, y);
        memcpy(c->out->data + (size_t)i * 16, &r, 16);
    });
    return FL_OK;
}

/* ---- current time ---- */
static bool r_now(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    (void)a, (void)at;
    if (n)
        return false;
    *r = fl_mk(FL_TYPE_TIMESTAMPTZ);
    return true;
}
static bool r_today(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    (void)a, (void)at;
    if (n)
        return false;
    *r = fl_mk(FL_TYPE_DATE);
    return true;
}
static bool r_localts(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    (void)a, (void)at;
    if (n)
        return false;
    *r = fl_mk(FL_TYPE_TIMESTAMP);
    return true;
}
static fl_status k_now(fl_fn_call *c, fl_error *err)
{
    int64_t now = c->env ? c->env->statement_time_us : 0;
    if (c->out->type->id != FL_TYPE_TIMESTAMPTZ) {
        const fl_tz *tz = session_tz(c, err);
        if (!tz)
            return err->code;
        now += (int64_t)fl_tz_offset_utc(tz, floordiv64(now, US_PER_SEC)) * US_PER_SEC;
    }
    FOR_ROWS(c->sel, c->nrows, i, {
        if (c->out->type->id == FL_TYPE_DATE)
            OUTV(c->out, int32_t)[i] = (int32_t)floordiv64(now, US_PER_DAY);
        else
            OUTV(c->out, int64_t)[i] = now;
    });
    return FL_OK;
}

/* ---- constructors ---- */
static bool r_make_date(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 3)
        return false;
    for (int k = 0; k < 3; k++) {
        if (!(fl_is_integer(&a[k]) || fl_is_unknown(&a[k])))
            return false;
        at[k] = fl_mk(FL_TYPE_INT32);
    }
    *r = fl_mk(FL_TYPE_DATE);
    return true;
}
static fl_status k_make_date(fl_fn_call *c, fl_error *err)
{
    fl_unified y, m, d;
    fl_vector_unify(c->args[0], &y);
    fl_vector_unify(c->args[1], &m);
    fl_vector_unify(c->args[2], &d);
    FOR_ROWS(c->sel, c->nrows, i, {
        int32_t yy = UV(y, int32_t, i), mm = UV(m, int32_t, i), dd = UV(d, int32_t, i);
        if (yy == 0 || mm < 1 || mm > 12 || dd < 1 || yy < -4713 || yy > 5874897 ||
            dd > (int32_t)fl_days_in_month(yy < 0 ? yy + 1 : yy, (unsigned)mm))
            return fl_fn_error_state(c, err, FL_EINVAL, "22003",
                                     "date field value out of range: %d-%02d-%02d", yy, mm, dd);
        OUTV(c->out, int32_t)
        [i] = (int32_t)fl_days_from_civil(yy < 0 ? yy + 1 : yy, (unsigned)mm, (unsigned)dd);
    });
    return FL_OK;
}
static bool r_make_ts(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 6)
        return false;
    for (int k = 0; k < 5; k++) {
        if (!(fl_is_integer(&a[k]) || fl_is_unknown(&a[k])))
            return false;
        at[k] = fl_mk(FL_TYPE_INT32);
    }
    if (!(fl_is_numeric(&a[5]) || fl_is_unknown(&a[5])))
        return false;
    at[5] = fl_mk(FL_TYPE_FLOAT64);
    *r = fl_mk(FL_TYPE_TIMESTAMP);
    return true;
}
static fl_status k_make_ts(fl_fn_call *c, fl_error *err)
{
    fl_unified u[6];
    for (int k = 0; k < 6; k++)
        fl_vector_unify(c->args[k], &u[k]);
    FOR_ROWS(c->sel, c->nrows, i, {
        int32_t yy = UV(u[0], int32_t, i), mm = UV(u[1], int32_t, i), dd = UV(u[2], int32_t, i);
        int32_t hh = UV(u[3], int32_t, i), mi = UV(u[4], int32_t, i);
        double ss = UV(u[5], double, i);
        if (yy == 0 || mm < 1 || mm > 12 || dd < 1 ||
            dd > (int32_t)fl_days_in_month(yy, (unsigned)mm) || hh < 0 || hh > 24 || mi < 0 ||
            mi > 59 || !(ss >= 0 && ss <= 60))
            return fl_fn_error_state(c, err, FL_EINVAL, "22008", "date/time field value out of range");
        int64_t us =
            fl_days_from_civil(yy < 0 ? yy + 1 : yy, (unsigned)mm, (unsigned)dd) * US_PER_DAY +
            ((int64_t)hh * 3600 + mi * 60) * US_PER_SEC + llround(ss * 1e6);
        OUTV(c->out, int64_t)[i] = us;
    });
    return FL_OK;
}
static bool r_to_ts(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 1 || !(fl_is_numeric(&a[0])))
        return false;
    at[0] = fl_mk(FL_TYPE_FLOAT64);
    *r = fl_mk(FL_TYPE_TIMESTAMPTZ);
    return true;
}
static fl_status k_to_ts(fl_fn_call *c, fl_error *err)
{
    fl_unified u;
    fl_vector_unify(c->args[0], &u);
    FOR_ROWS(c->sel, c->nrows, i, {
        double s = UV(u, double, i);
        if (!(fabs(s) < 9.2e12))
            return ts_range(c, err);
        OUTV(c->out, int64_t)[i] = llround(s * 1e6);
    });
    return FL_OK;
}

/* ---- AT TIME ZONE: timezone(zone, ts) ---- */
static bool r_timezone(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 2 || !fl_is_string(&a[0]))
        return false;
    at[0] = fl_mk(FL_TYPE_STRING);
    if (a[1].id == FL_TYPE_TIMESTAMPTZ || fl_is_unknown(&a[1]) || a[1].id == FL_TYPE_DATE) {
        at[1] = fl_mk(FL_TYPE_TIMESTAMPTZ);
        *r = fl_mk(FL_TYPE_TIMESTAMP);
    } else if (a[1].id == FL_TYPE_TIMESTAMP) {
        at[1] = a[1];
        *r = fl_mk(FL_TYPE_TIMESTAMPTZ);
    } else
        return false;
    return true;
}
typedef struct tz_cache {
    char name[128];
    fl_tz *tz;
} tz_cache;
static void tz_cache_free(void *p)
{
    fl_tz_free(((tz_cache *)p)->tz);
}
static fl_status k_timezone(fl_fn_call *c, fl_error *err)
{
    tz_cache *tc = fl_eval_state_aux(c->state, c->expr, sizeof(tz_cache), tz_cache_free, err);
    if (!tc)
        return err->code;
    fl_unified zu, xu;
    fl_vector_unify(c->args[0], &zu);
    fl_vector_unify(c->args[1], &xu);
    bool to_local = c->args[1]->type->id == FL_TYPE_TIMESTAMPTZ;
    FOR_ROWS(c->sel, c->nrows, i, {
        size_t zl;
        const uint8_t *zp = ubytes(&zu, i, &zl);
        if (zl >= sizeof tc->name)
            return fl_fn_error_state(c, err, FL_EINVAL, "22023",
                                     "time zone \"%.*s\" not recognized", 60, (const char *)zp);
        if (!tc->tz || strlen(tc->name) != zl || memcmp(tc->name, zp, zl) != 0) {
            char nm[128];
            memcpy(nm, zp, zl);
            nm[zl] = 0;
            fl_tz *z;
            if (fl_tz_load(nm, &z, err) != FL_OK)
                return fl_fn_error_state(c, err, FL_EINVAL, "22023",
                                         "time zone \"%s\" not recognized", nm);
            fl_tz_free(tc->tz);
            tc->tz = z;
            memcpy(tc->name, nm, zl + 1);
        }
        int64_t us = UV(xu, int64_t, i);
        if (to_local)
            us += (int64_t)fl_tz_offset_utc(tc->tz, floordiv64(us, US_PER_SEC)) * US_PER_SEC;
        else
            us -= (int64_t)fl_tz_offset_local(tc->tz, floordiv64(us, US_PER_SEC)) * US_PER_SEC;
        OUTV(c->out, int64_t)[i] = us;
    });
    return FL_OK;
}

/* ---- to_char(timestamp|date, format) ---- */
static bool r_to_char(const fl_type *a, uint32_t n, fl_type *r, fl_type *at)
{
    if (n != 2 || !fl_is_string(&a[1]))
        return false;
    if (a[0].id == FL_TYPE_DATE)
        at[0] = fl_mk(FL_TYPE_TIMESTAMP);
    else if (is_ts(a[0].id) || fl_type_is_interval(&a[0]))
        at[0] = a[0];
    else
        return false;
    at[1] = fl_mk(FL_TYPE_STRING);
    *r = fl_mk(FL_TYPE_STRING);
    return true;
}

static const char *const MONTHS[12] = {"January", "February", "March",     "April",   "May",      "June",
                                       "July",    "August",   "September", "October", "November", "December"};
static const char *const DAYS[7] = {"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"};

static size_t put_name(char *o, const char *name, int caps, size_t maxlen, bool pad, size_t padw)
{
    size_t n = strlen(name);
    if (n > maxlen)
        n = maxlen;
    for (size_t k = 0; k < n; k++)
        o[k] = caps == 2 ? (char)toupper((unsigned char)name[k])
               : caps == 0 ? (char)tolower((unsigned char)name[k])
                           : name[k];
    while (pad && n < padw)
        o[n++] = ' ';
    return n;
}

/* Formats local timestamp us with PostgreSQL template fmt into o (>= 8*flen+64). */
static size_t to_char_ts(int64_t us, int32_t off, const uint8_t *fmt, size_t fl, char *o)
{
    int64_t days = floordiv64(us, US_PER_DAY), t = floormod64(us, US_PER_DAY);
    int64_t y;
    unsigned m, d;
    fl_civil_from_days(days, &y, &m, &d);
    int hh = (int)(t / (3600 * US_PER_SEC)), mi = (int)(t / (60 * US_PER_SEC) % 60), ss = (int)(t / US_PER_SEC % 60);
    int frac = (int)(t % US_PER_SEC);
    int dow = (int)floormod64(days + 4, 7);
    size_t n = 0, i = 0;
    while (i < fl) {
        const char *s = (const char *)fmt + i;
        size_t rem = fl - i;
        bool fm = false;
        if (rem >= 2 && !strncasecmp(s, "FM", 2)) {
            fm = true;
            s += 2, rem -= 2, i += 2;
        }
#define IS(lit) (rem >= strlen(lit) && !strncmp(s, lit, strlen(lit)))
#define ISC(lit) (rem >= strlen(lit) && !strncasecmp(s, lit, strlen(lit)))
        int caps = rem >= 2 ? (isupper((unsigned char)s[0]) ? (isupper((unsigned char)s[1]) ? 2 : 1) : 0) : 1;
        if (s[0] == '"') {
            size_t k = 1;
            while (k < rem && s[k] != '"') {
                if (s[k] == '\\' && k + 1 < rem)
                    k++;
                o[n++] = s[k++];
            }
            i += k + (k < rem);
            continue;
        }
        if (ISC("YYYY")) {
            n += (size_t)sprintf(o + n, fm ? "%lld" : "%04lld", (long long)(y <= 0 ? 1 - y : y));
            i += 4;
        } else if (ISC("YYY")) {
            n += (size_t)sprintf(o + n, "%03lld", (long long)(floormod64(y, 1000)));
            i += 3;
        } else if (ISC("YY")) {
            n += (size_t)sprintf(o + n, "%02lld", (long long)(floormod64(y, 100)));
            i += 2;
        } else if (ISC("HH24")) {
            n += (size_t)sprintf(o + n, fm ? "%d" : "%02d", hh);
            i += 4;
        } else if (ISC("HH12")) {
            n += (size_t)sprintf(o + n, fm ? "%d" : "%02d", hh % 12 == 0 ? 12 : hh % 12);
            i += 4;
        } else if (ISC("HH")) {
            n += (size_t)sprintf(o + n, fm ? "%d" : "%02d", hh % 12 == 0 ? 12 : hh % 12);
            i += 2;
        } else if (ISC("MI")) {
            n += (size_t)sprintf(o + n, fm ? "%d" : "%02d", mi);
            i += 2;
        } else if (ISC("SS")) {
            n += (size_t)sprintf(o + n, fm ? "%d" : "%02d", ss);
            i += 2;
        } else if (ISC("MS")) {
            n += (size_t)sprintf(o + n, "%03d", frac / 1000);
            i += 2;
        } else if (ISC("US")) {
            n += (size_t)sprintf(o + n, "%06d", frac);
            i += 2;
        } else if (ISC("AM") || ISC("PM")) {
            n += (size_t)sprintf(o + n, "%s", caps ? (hh < 12 ? "AM" : "PM") : (hh < 12 ? "am" : "pm"));
            i += 2;
        } else if (ISC("A.M.") || ISC("P.M.")) {
            n += (size_t)sprintf(o + n, "%s", caps ? (hh < 12 ? "A.M." : "P.M.") : (hh < 12 ? "a.m." : "p.m."));
            i += 4;
        } else if (ISC("MONTH")) {
            n += put_name(o + n, MONTHS[m - 1], caps, 9, !fm, 9);
            i += 5;
        } else if (ISC("MON")) {
            n += put_name(o + n, MONTHS[m - 1], caps, 3, false, 0);
            i += 3;
        } else if (ISC("MM")) {
            n += (size_t)sprintf(o + n, fm ? "%u" : "%02u", m);
            i += 2;
        } else if (ISC("DAY")) {
            n += put_name(o + n, DAYS[dow], caps, 9, !fm, 9);
            i += 3;
        } else if (ISC("DY")) {
            n += put_name(o + n, DAYS[dow], caps, 3, false, 0);
            i += 2;
        } else if (ISC("DDD")) {
            n += (size_t)sprintf(o + n, fm ? "%lld" : "%03lld",
                                 (long long)(days - fl_days_from_civil(y, 1, 1) + 1));
            i += 3;
        } else if (ISC("DD")) {
            n += (size_t)sprintf(o + n, fm ? "%u" : "%02u", d);
            i += 2;
        } else if (ISC("ID")) {
            n += (size_t)sprintf(o + n, "%d", (int)floormod64(days + 3, 7) + 1);
            i += 2;
        } else if (ISC("IW")) {
            int64_t iy;
            n += (size_t)sprintf(o + n, fm ? "%lld" : "%02lld", (long long)iso_week(days, &iy));
            i += 2;
        } else if (ISC("WW")) {
            n += (size_t)sprintf(o + n, fm ? "%lld" : "%02lld",
                                 (long long)((days - fl_days_from_civil(y, 1, 1)) / 7 + 1));
            i += 2;
        } else if (ISC("D")) {
            n += (size_t)sprintf(o + n, "%d", dow + 1);
            i += 1;
        } else if (ISC("Q")) {
            n += (size_t)sprintf(o + n, "%u", (m - 1) / 3 + 1);
            i += 1;
        } else if (IS("TZH")) {
            n += (size_t)sprintf(o + n, "%c%02d", off < 0 ? '-' : '+', abs(off) / 3600);
            i += 3;
        } else if (IS("TZM")) {
            n += (size_t)sprintf(o + n, "%02d", abs(off) / 60 % 60);
            i += 3;
        } else if (IS("OF")) {
            n += fl_pg_format_offset(off, o + n, 16);
            i += 2;
        } else {
            o[n++] = s[0];
            i += 1;
        }
#undef IS
#undef ISC
    }
    return n;
}

static fl_status k_to_char(fl_fn_call *c, fl_error *err)
{
    fl_unified xu, fu;
    fl_vector_unify(c->args[0], &xu);
    fl_vector_unify(c->args[1], &fu);
    const fl_type *xt = c->args[0]->type;
    const fl_tz *tz = NULL;
    if (is_tz(xt->id) && !(tz = session_tz(c, err)))
        return err->code;
    if (fl_type_is_interval(xt))
        return fl_fn_error(c, err, FL_EUNSUPPORTED, "to_char(interval, text) is not supported");
    strout so;
    strout_init_call(&so, c);
    fl_status rc = FL_OK;
    FOR_ROWS(c->sel, c->nrows, i, {
        if (rc != FL_OK)
            continue;
        size_t fl;
        const uint8_t *fp = ubytes(&fu, i, &fl);
        int64_t us = get_us(&xu, i);
        int32_t off = 0;
        if (tz) {
            off = fl_tz_offset_utc(tz, floordiv64(us, US_PER_SEC));
            us += (int64_t)off * US_PER_SEC;
        }
        uint8_t *dst;
        rc = strout_reserve(&so, fl * 12 + 64, &dst, err);
        if (rc == FL_OK)
            strout_commit(&so, i, to_char_ts(us, off, fp, fl, (char *)dst));
    });
    strout_finish(&so, c->nrows);
    return rc;
}

#define SCALAR(nm, r, k) {.name = nm, .kind = FL_FUNC_SCALAR, .deterministic = true, .resolve = r, .kernel = k}
#define SCALAR_ENV(nm, r, k)                                                                       \
    {.name = nm, .kind = FL_FUNC_SCALAR, .deterministic = true, .resolve = r, .kernel = k, .uses_env = true}
static const fl_func funcs[] = {
    SCALAR("+", r_dt_add, k_dt_add),
    SCALAR("-", r_dt_sub, k_dt_sub),
    SCALAR_ENV("+", r_dt_add_tz, k_dt_add),
    SCALAR_ENV("-", r_dt_sub_tz, k_dt_sub),
    SCALAR("*", r_iv_mul, k_iv_mul),
    SCALAR("/", r_iv_div, k_iv_div),
    SCALAR("-", r_iv_neg, k_iv_neg),
    {.name = "extract", .kind = FL_FUNC_SCALAR, .deterministic = true, .resolve = r_extract, .kernel = k_extract,
     .uses_env = true, .refine = refine_extract},
    SCALAR_ENV("date_part", r_date_part, k_extract),
    SCALAR_ENV("date_trunc", r_date_trunc, k_date_trunc),
    SCALAR_ENV("date_diff", r_date_diff, k_date_diff),
    SCALAR_ENV("datediff", r_date_diff, k_date_diff),
    SCALAR_ENV("age", r_age, k_age),
    SCALAR_ENV("now", r_now, k_now),
    SCALAR_ENV("current_timestamp", r_now, k_now),
    SCALAR_ENV("transaction_timestamp", r_now, k_now),
    SCALAR_ENV("statement_timestamp", r_now, k_now),
    SCALAR_ENV("current_date", r_today, k_now),
    SCALAR_ENV("localtimestamp", r_localts, k_now),
    SCALAR("make_date", r_make_date, k_make_date),
    SCALAR("make_timestamp", r_make_ts, k_make_ts),
    SCALAR("to_timestamp", r_to_ts, k_to_ts),
    SCALAR("timezone", r_timezone, k_timezone),
    SCALAR_ENV("to_char", r_to_char, k_to_char),
};
const fl_func_table fl_funcs_datetime = {funcs, sizeof funcs / sizeof funcs[0]};
