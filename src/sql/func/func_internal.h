/*
 * func_internal.h - helpers shared by the function kernels (src/sql/func/)
 * and the evaluator (src/sql/eval/): row loops over selections, typed
 * access to unified vectors, string output, 128-bit decimal arithmetic,
 * civil-date math, time zones, and the per-file registry tables.
 *
 * Kernel contract (see func.h): the evaluator has already reserved
 * call->nrows rows in call->out, set len, and (for strict functions) marked
 * the rows with a NULL argument invalid and removed them from call->sel. A
 * kernel writes values for the selected rows only; it may clear validity
 * bits of selected rows (fl_vector_ensure_validity first). Kernels with a
 * STRING/BINARY result must define offsets for every row 0..nrows-1
 * (strout_* below does that).
 */
#ifndef FLOE_SQL_FUNC_INTERNAL_H
#define FLOE_SQL_FUNC_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "floe/calendar.h"
#include "floe/error.h"
#include "floe/types.h"
#include "floe/variant.h"
#include "floe/vector.h"
#include "sql/expr.h"
#include "sql/func.h"

/* Loops body over the selected rows (ascending), binding row index i. */
#define FOR_ROWS(sel, n, i, ...)                                                                   \
    do {                                                                                           \
        if (sel) {                                                                                 \
            for (uint32_t k_ = 0; k_ < (sel)->count; k_++) {                                       \
                uint32_t i = (sel)->idx[k_];                                                       \
                __VA_ARGS__                                                                        \
            }                                                                                      \
        } else {                                                                                   \
            for (uint32_t i = 0; i < (n); i++) {                                                   \
                __VA_ARGS__                                                                        \
            }                                                                                      \
        }                                                                                          \
    } while (0)

/* Typed value of row i of a unified vector. */
#define UV(u, T, i) (((const T *)(const void *)(u).base->data)[fl_unified_row(&(u), (i))])
#define OUTV(v, T) ((T *)(void *)(v)->data)

static inline const uint8_t *ubytes(const fl_unified *u, uint32_t i, size_t *len)
{
    return fl_vector_bytes(u->base, fl_unified_row(u, i), len);
}

static inline bool uvalid(const fl_unified *u, uint32_t i)
{
    return fl_unified_is_valid(u, i);
}

/* ---- string output: offsets for every row, values for selected rows ---- */
typedef struct strout {
    fl_vector *v;
    uint32_t next; /* first row whose offset[row+1] is not yet written */
    size_t limit;  /* bytes the heap may reach: memory_limit left, at most 1 GB */
} strout;

static inline void strout_init(strout *s, fl_vector *v)
{
    s->v = v;
    s->next = 0;
    s->limit = FL_SQL_MAX_VALUE_BYTES;
    v->offsets[0] = 0;
    v->heap_len = 0;
}
/* A kernel's output (c->out), bounded by what the statement's memory_limit
 * has left, so a batch of results cannot outgrow it before it is charged. */
static inline void strout_init_call(strout *s, const fl_fn_call *c)
{
    strout_init(s, c->out);
    if (c->out_budget && c->out_budget < s->limit)
        s->limit = c->out_budget;
}
static inline void strout_fill(strout *s, uint32_t upto)
{
    int64_t cur = (int64_t)s->v->heap_len;
    while (s->next < upto)
        s->v->offsets[++s->next] = cur;
}
/* Reserves len bytes for row; returns where to write them (commit with strout_commit). */
fl_status strout_reserve(strout *s, size_t len, uint8_t **dst, fl_error *err);
static inline void strout_commit(strout *s, uint32_t row, size_t len)
{
    strout_fill(s, row);
    s->v->heap_len += len;
    s->v->offsets[row + 1] = (int64_t)s->v->heap_len;
    s->next = row + 1;
}
fl_status strout_put(strout *s, uint32_t row, const void *p, size_t len, fl_error *err);
static inline void strout_finish(strout *s, uint32_t nrows)
{
    strout_fill(s, nrows);
}

/* One bytes -> bytes step per row (WKT -> WKB, JSON -> variant, ...); *out
 * is appended to, e carries the reason of a failure. */
typedef fl_status (*fl_bytes_step)(const uint8_t *p, size_t n, fl_buf *out, fl_error *e);
/* Runs step over the selected rows of argument 0 into the string result. A
 * failing row is NULL when lenient, else the error "<what>: <reason>" with
 * SQLSTATE 22P02 (code: the status to raise); out of memory stays that. */
fl_status fl_fn_map_bytes(fl_fn_call *c, fl_bytes_step step, bool lenient, fl_status code,
                          const char *what, fl_error *err);

/* Marks row i of out NULL (allocates the bitmap if needed). */
fl_status fl_out_null(fl_vector *out, uint32_t i, fl_error *err);

/* ---- decimals ---- */
extern const fl_i128 fl_pow10_i128[39];
/* 10^p - 1 bound check: |v| < 10^p. */
static inline bool dec_fits(fl_i128 v, int32_t p)
{
    if (p >= 39)
        return true;
    fl_i128 lim = fl_pow10_i128[p];
    return v < lim && v > -lim;
}
/* v * 10^k (k >= 0) with overflow detection; k < 0 divides with half-away rounding. */
bool dec_rescale(fl_i128 v, int32_t k, fl_i128 *out);
/* a / b rounded half away from zero (b != 0). */
fl_i128 dec_div_round(fl_i128 a, fl_i128 b);
/* Decimal text: unscaled v with scale s -> buf (no NUL needed beyond cap). Returns length. */
size_t dec_format(fl_i128 v, int32_t s, char *buf, size_t cap);
/* Parses [+-]digits[.digits][e[+-]n] into unscaled at scale s, rounding half away;
 * false on syntax error; *ovf when it does not fit precision p. */
bool dec_parse(const char *s, size_t len, int32_t p, int32_t scale, fl_i128 *out, bool *ovf);
double dec_to_double(fl_i128 v, int32_t s);

/* ---- dates and times ---- */
/* civil calendar: fl_days_from_civil, fl_civil_from_days, ... (floe/calendar.h) */
#define US_PER_DAY 86400000000LL
#define US_PER_SEC 1000000LL
static inline int64_t floordiv64(int64_t a, int64_t b)
{
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        q--;
    return q;
}
static inline int64_t floormod64(int64_t a, int64_t b)
{
    return a - floordiv64(a, b) * b;
}

/* Intervals: FIXED(16) with precision == FL_SQL_INTERVAL_MARK, bytes =
 * int32 months, int32 days, int64 micros (native endian). */
typedef struct fl_interval {
    int32_t months;
    int32_t days;
    int64_t micros;
} fl_interval;

/* Text parsing (PostgreSQL input formats). Return false on syntax error. */
bool fl_pg_parse_date(const char *s, size_t n, int32_t *days);
bool fl_pg_parse_time(const char *s, size_t n, int64_t *us);
/* has_zone/offset_s: explicit zone in the text (numeric offset); zone_name when a named zone. */
typedef struct ts_parsed {
    int64_t local_us; /* wall-clock micros since epoch */
    bool has_offset;
    int32_t offset_s; /* east of UTC */
    char zone[64];    /* named zone (empty when none) */
    int32_t ns_adjust; /* exact nanoseconds - local_us * 1000 (9 fraction digits; -999..999) */
} ts_parsed;
bool fl_pg_parse_timestamp(const char *s, size_t n, ts_parsed *out);
bool fl_pg_parse_interval(const char *s, size_t n, int32_t fields_mask, fl_interval *out);
bool fl_pg_parse_uuid(const char *s, size_t n, uint8_t out[16]);
bool fl_pg_parse_bool(const char *s, size_t n, bool *out);

size_t fl_pg_format_date(int32_t days, char *buf, size_t cap);
size_t fl_pg_format_time(int64_t us, char *buf, size_t cap);
size_t fl_pg_format_timestamp(int64_t us, char *buf, size_t cap); /* no zone */
size_t fl_pg_format_offset(int32_t off_s, char *buf, size_t cap); /* "+00", "+05:30" */
size_t fl_pg_format_interval(const fl_interval *iv, char *buf, size_t cap);
size_t fl_pg_format_double(double d, char *buf, size_t cap);
size_t fl_pg_format_float(float f, char *buf, size_t cap);

/* ---- time zones (tz.c): TZif files from /usr/share/zoneinfo ---- */
typedef struct fl_tz fl_tz;
/* name: IANA name, "UTC", or a numeric offset "+05:30". NULL/"" = UTC. */
fl_status fl_tz_load(const char *name, fl_tz **out, fl_error *err);
void fl_tz_free(fl_tz *z);

/* ---- variants (variant_cast.c) ---- */
/* Where variant values convert to: rows of out (type to), strings through
 * so; lenient = NULL instead of an error; tmp is scratch. */
typedef struct fl_vconv {
    const fl_type *to;
    bool lenient;
    const fl_tz *tz;
    fl_vector *out;
    strout *so;
    fl_buf tmp;
    fl_error *err;
} fl_vconv;
/* Row `row` of c->out from variant x (Spark's variant_get conversion). */
fl_status fl_variant_put(fl_vconv *c, uint32_t row, const fl_variant *x);
/* Casts into variant (text parsed as JSON, bytea checked, scalars by kind)
 * and out of it; out is reserved with its null rows marked (cast.c). */
fl_status fl_variant_cast_in(const fl_unified *u, const fl_sel *sel, uint32_t nrows, bool lenient,
                             fl_vector *out, fl_error *err);
fl_status fl_variant_cast_out(const fl_unified *u, const fl_sel *sel, uint32_t nrows,
                              const fl_type *to, bool lenient, const fl_tz *tz, fl_vector *out,
                              fl_error *err);
/* Text of a non-null row of a FLAT vector (format.c); returns the length needed. */
/* Row row (any encoding) of v as JSON (format.c): objects for structs and
 * maps, arrays for lists, null for NULL. Writes at most cap bytes, no NUL;
 * returns the length needed. */
size_t fl_sql_json_value(const fl_vector *v, uint32_t row, const fl_tz *tz, char *buf, size_t cap);
size_t fl_format_flat_row(const fl_vector *v, uint32_t row, const fl_tz *tz, char *buf, size_t cap);
/* Offset (seconds east of UTC) in effect at UTC instant utc_s. */
int32_t fl_tz_offset_utc(const fl_tz *z, int64_t utc_s);
/* Offset for a local wall-clock time (PostgreSQL picks the later offset in
 * gaps and the earlier one in folds... standard resolution). */
int32_t fl_tz_offset_local(const fl_tz *z, int64_t local_s);
/* Per-thread cache in the eval state (eval/). */
const fl_tz *fl_eval_state_tz(fl_eval_state *st, const char *name, fl_error *err);

/* One-row conversions (value.c) and the zone-aware cast (cast.c). */
fl_status fl_value_to_vector(const fl_value *v, fl_vector *out, fl_error *err);
fl_status fl_vector_to_value(const fl_vector *v, uint32_t row, fl_arena *a, fl_value *out, fl_error *err);
fl_status fl_cast_vector_tz(const fl_vector *in, const fl_sel *sel, uint32_t nrows, const fl_type *to,
                            bool lenient, const fl_tz *tz, fl_vector *out, fl_error *err);

/* Three-way comparison of row i of a and row j of b (same type, both valid). */
int fl_cmp_rows(const fl_unified *a, uint32_t i, const fl_unified *b, uint32_t j);

/* UTF-8: case mapping into dst (room for 4 * n bytes), returns bytes written;
 * character count (continuation bytes not counted). */
size_t fl_utf8_case(const uint8_t *s, size_t n, uint8_t *dst, bool upper);
size_t fl_utf8_len(const uint8_t *s, size_t n);
static inline size_t utf8_clen(uint8_t c)
{
    return c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
}

/* ---- errors ---- */
/* Records "msg in <expr>" for a kernel failure. */
fl_status fl_fn_error(const fl_fn_call *c, fl_error *err, fl_status code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The same, raised with a SQLSTATE (floe/errcodes.h), e.g. "22012". */
fl_status fl_fn_error_state(const fl_fn_call *c, fl_error *err, fl_status code,
                            const char *sqlstate, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* ---- registry tables (one per file) ---- */
typedef struct fl_func_table {
    const fl_func *funcs;
    uint32_t n;
} fl_func_table;
extern const fl_func_table fl_funcs_arith, fl_funcs_compare, fl_funcs_string, fl_funcs_like,
    fl_funcs_datetime, fl_funcs_misc, fl_funcs_agg, fl_funcs_window, fl_funcs_json,
    fl_funcs_math, fl_funcs_agg2, fl_funcs_geo, fl_funcs_variant;

/* fl_func_resolve, keeping every argument's target type (arg_types has nargs). */
fl_status fl_func_resolve_all(const char *name, fl_func_kind kind, const fl_type *args, uint32_t nargs,
                              fl_func_binding *out, fl_type *arg_types, fl_error *err);

/* Resolution helpers shared by tables. */
bool fl_is_unknown(const fl_type *t);
bool fl_is_numeric(const fl_type *t);
bool fl_is_integer(const fl_type *t);
bool fl_is_temporal(const fl_type *t);
bool fl_is_string(const fl_type *t); /* STRING incl. unknown */
fl_type fl_mk(fl_type_id id);
fl_type fl_mk_dec(int32_t p, int32_t s);
fl_type fl_mk_interval(void);
/* Decimal type a value of integer type t casts to (INT32: (10,0), INT64: (19,0)). */
fl_type fl_int_as_dec(const fl_type *t);

/* Scratch allocation keyed per call node in the eval state (regex match data...). */
void *fl_eval_state_aux(fl_eval_state *st, const void *key, size_t size, void (*cleanup)(void *),
                        fl_error *err);

/* text (PostgreSQL array syntax) -> LIST of a scalar type (cast_list.c) */
fl_status fl_cast_text_to_list(const fl_vector *in, const fl_sel *sel, uint32_t nrows,
                               const fl_type *to, bool lenient, const fl_tz *tz, fl_vector *out,
                               fl_error *err);

/* nested -> nested of the same kind whose parts convert (cast_nested.c) */
bool fl_cast_nested_allowed(const fl_type *from, const fl_type *to);
fl_status fl_cast_nested(const fl_vector *in, uint32_t nrows, const fl_type *to, bool lenient,
                         const fl_tz *tz, fl_vector *out, fl_error *err);

#endif
