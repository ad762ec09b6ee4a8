/*
 * adapt.c - a file's columns as the table's columns, matched by name
 * (floe/ingest.h): the rules of the ingestion sources and of `floe load`
 * into an existing table (src/cli/cmd_load.c). Columns are matched exactly, else
 * case-insensitively; CSV and JSON lines are re-read with the table's types
 * (fl_ingest_text_schema); Parquet columns widen where Iceberg promotion allows
 * (int -> long, float -> double, int/long -> double, date -> timestamp);
 * a file column not in the table, or a required table column missing, is
 * an error naming both. Table columns absent from a file get their
 * write-default (v3), else null. Added for ingestion: required columns are
 * checked for nulls here, so that a bad file fails before its rows reach
 * the sink (whose writer cannot take rows back).
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "floe/text.h"
#include "ingest/ingest_int.h"

struct fl_ingest_adapter {
    const fl_schema *table; /* borrowed: the writer's schema */
    int32_t *src_col;       /* per table column: source column or -1 */
    bool *cast;             /* per table column: convert values */
    fl_vector *scratch;     /* per table column: nulls / defaults / converted values */
    fl_value *dflt;         /* per table column: its write-default (is_null when none) */
    fl_arena arena;         /* default values' bytes */
    fl_vector *cols;        /* the view handed to the writer */
};

static void adapter_clear(fl_ingest_adapter *ad)
{
    if (ad->scratch)
        for (uint32_t i = 0; i < ad->table->nfields; i++)
            fl_vector_destroy(&ad->scratch[i]);
    free(ad->src_col);
    free(ad->dflt);
    fl_arena_free(&ad->arena);
    free(ad->cast);
    free(ad->scratch);
    free(ad->cols);
    memset(ad, 0, sizeof *ad);
}

static int32_t find_col(const fl_schema *s, const char *name)
{
    for (uint32_t i = 0; i < s->nfields; i++)
        if (!strcmp(s->fields[i].name, name))
            return (int32_t)i;
    int32_t found = -1;
    for (uint32_t i = 0; i < s->nfields; i++)
        if (!strcasecmp(s->fields[i].name, name)) {
            if (found >= 0)
                return -1;
            found = (int32_t)i;
        }
    return found;
}

static bool is_ts(fl_type_id t)
{
    return t == FL_TYPE_TIMESTAMP || t == FL_TYPE_TIMESTAMPTZ;
}
static bool is_ts_ns(fl_type_id t)
{
    return t == FL_TYPE_TIMESTAMP_NS || t == FL_TYPE_TIMESTAMPTZ_NS;
}

/* Same bytes under another name (no conversion needed). */
static bool retype_ok(const fl_type *from, const fl_type *to)
{
    return (is_ts(from->id) && is_ts(to->id)) || (is_ts_ns(from->id) && is_ts_ns(to->id)) ||
           ((from->id == FL_TYPE_STRING || from->id == FL_TYPE_BINARY) &&
            (to->id == FL_TYPE_STRING || to->id == FL_TYPE_BINARY));
}

static bool cast_ok(const fl_type *from, const fl_type *to)
{
    switch (from->id) {
    case FL_TYPE_INT32: return to->id == FL_TYPE_INT64 || to->id == FL_TYPE_FLOAT64;
    case FL_TYPE_INT64: return to->id == FL_TYPE_FLOAT64;
    case FL_TYPE_FLOAT32: return to->id == FL_TYPE_FLOAT64;
    case FL_TYPE_DATE: return is_ts(to->id);
    default: return false;
    }
}

static fl_status cast_vector(const fl_vector *src, fl_vector *dst, uint32_t n, fl_error *err)
{
    fl_vector_reset(dst);
    fl_unified u;
    fl_vector_unify(src, &u);
    for (uint32_t i = 0; i < n; i++) {
        if (!fl_unified_is_valid(&u, i)) {
            FL_TRY(fl_vector_append_null(dst, err));
            continue;
        }
        const uint8_t *p = u.base->data + (size_t)fl_unified_row(&u, i) * fl_type_width(src->type);
        int32_t i32;
        int64_t i64;
        float f32;
        double f64;
        switch (src->type->id) {
        case FL_TYPE_INT32:
            memcpy(&i32, p, 4);
            i64 = i32;
            f64 = i32;
            FL_TRY(fl_vector_append_fixed(
                dst, dst->type->id == FL_TYPE_INT64 ? (void *)&i64 : (void *)&f64, err));
            break;
        case FL_TYPE_INT64:
            memcpy(&i64, p, 8);
            f64 = (double)i64;
            FL_TRY(fl_vector_append_fixed(dst, &f64, err));
            break;
        case FL_TYPE_FLOAT32:
            memcpy(&f32, p, 4);
            f64 = f32;
            FL_TRY(fl_vector_append_fixed(dst, &f64, err));
            break;
        case FL_TYPE_DATE:
            memcpy(&i32, p, 4);
            i64 = (int64_t)i32 * 86400000000LL;
            FL_TRY(fl_vector_append_fixed(dst, &i64, err));
            break;
        default: return fl_errorf(err, FL_ETYPE, "unsupported conversion");
        }
    }
    return FL_OK;
}

/* A write-default (the spec's JSON single-value form) as a value of f's type. */
static fl_status parse_default(const fl_field *f, const char *json, fl_arena *a, fl_value *out,
                               fl_error *err)
{
    memset(out, 0, sizeof *out);
    out->type = f->type;
    out->is_null = true;
    json_error_t je;
    json_t *j = json_loads(json, JSON_DECODE_ANY, &je);
    if (!j)
        return fl_errorf(err, FL_ECORRUPT, "column '%s': write-default '%s' is not JSON", f->name,
                         json);
    char buf[64];
    const char *txt = NULL;
    if (json_is_true(j) || json_is_false(j))
        txt = json_is_true(j) ? "true" : "false";
    else if (json_is_integer(j)) {
        snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(j));
        txt = buf;
    } else if (json_is_real(j)) {
        snprintf(buf, sizeof buf, "%.17g", json_real_value(j));
        txt = buf;
    } else if (json_is_string(j)) {
        bool hex = f->type.id == FL_TYPE_BINARY || f->type.id == FL_TYPE_FIXED;
        txt = fl_arena_sprintf(a, "%s%s", hex ? "\\x" : "", json_string_value(j));
    }
    fl_status rc = FL_OK;
    if (txt && !fl_type_is_nested(&f->type)) {
        rc = fl_parse_value(&f->type, txt, strlen(txt), a, out, err);
        if (rc != FL_OK)
            fl_error_prefix(err, "column '%s': write-default", f->name);
    }
    json_decref(j);
    return rc;
}

/* Appends value v n times to the FLAT vector dst. */
static fl_status append_repeat(fl_vector *dst, const fl_value *v, uint32_t n, fl_error *err)
{
    if (v->is_null)
        return fl_vector_append_nulls(dst, n, err);
    uint8_t b = v->v.b;
    const void *p;
    switch (v->type.id) {
    case FL_TYPE_BOOLEAN: p = &b; break;
    case FL_TYPE_INT32:
    case FL_TYPE_DATE: p = &v->v.i32; break;
    case FL_TYPE_FLOAT32: p = &v->v.f32; break;
    case FL_TYPE_FLOAT64: p = &v->v.f64; break;
    case FL_TYPE_DECIMAL: p = &v->v.dec; break;
    case FL_TYPE_UUID:
    case FL_TYPE_FIXED: p = v->v.bytes.ptr; break;
    case FL_TYPE_STRING:
    case FL_TYPE_BINARY:
        for (uint32_t i = 0; i < n; i++)
            FL_TRY(fl_vector_append_bytes(dst, v->v.bytes.ptr, v->v.bytes.len, err));
        return FL_OK;
    default: p = &v->v.i64; break;
    }
    for (uint32_t i = 0; i < n; i++)
        FL_TRY(fl_vector_append_fixed(dst, p, err));
    return FL_OK;
}

static fl_status adapter_init(fl_ingest_adapter *ad, const fl_schema *table,
                              const fl_ice_schema *ice, const fl_schema *src, const char *file,
                              fl_error *err)
{
    memset(ad, 0, sizeof *ad);
    fl_arena_init(&ad->arena, 0);
    uint32_t n = table->nfields;
    ad->dflt = calloc(n + 1, sizeof *ad->dflt);
    if (!ad->dflt)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    ad->table = table;
    ad->src_col = malloc((n + 1) * sizeof *ad->src_col);
    ad->cast = calloc(n + 1, sizeof *ad->cast);
    ad->scratch = calloc(n + 1, sizeof *ad->scratch);
    ad->cols = calloc(n + 1, sizeof *ad->cols);
    if (!ad->src_col || !ad->cast || !ad->scratch || !ad->cols)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < n; i++)
        FL_TRY(fl_vector_init(&ad->scratch[i], &table->fields[i].type, err));
    for (uint32_t s = 0; s < src->nfields; s++)
        if (find_col(table, src->fields[s].name) < 0)
            return fl_errorf(err, FL_EINVAL, "%s: column '%s' is not in the table", file,
                             src->fields[s].name);
    for (uint32_t i = 0; i < n; i++) {
        const fl_field *tf = &table->fields[i];
        int32_t s = find_col(src, tf->name);
        ad->src_col[i] = s;
        ad->dflt[i].is_null = true;
        const fl_ice_field_extra *ex = ice ? fl_ice_schema_extra(ice, tf->field_id) : NULL;
        if (s < 0 && ex && ex->write_default) {
            FL_TRY(parse_default(tf, ex->write_default, &ad->arena, &ad->dflt[i], err));
            if (!ad->dflt[i].is_null)
                continue;
        }
        if (s < 0) {
            if (!tf->nullable)
                return fl_errorf(err, FL_EINVAL, "%s: required column '%s' is missing", file,
                                 tf->name);
            continue;
        }
        const fl_type *st = &src->fields[s].type;
        if (fl_type_same_shape(st, &tf->type) || retype_ok(st, &tf->type))
            continue;
        if (!cast_ok(st, &tf->type)) {
            char a[64], b[64];
            fl_type_format(st, a, sizeof a);
            fl_type_format(&tf->type, b, sizeof b);
            return fl_errorf(err, FL_ETYPE, "%s: column '%s' is %s, the table has %s", file,
                             tf->name, a, b);
        }
        ad->cast[i] = true;
    }
    return FL_OK;
}

/* The table-schema view of src batch b. */
static fl_status adapt_view(fl_ingest_adapter *ad, const fl_batch *b, fl_batch *view, fl_error *err)
{
    for (uint32_t i = 0; i < ad->table->nfields; i++) {
        int32_t s = ad->src_col[i];
        if (s < 0) {
            fl_vector_reset(&ad->scratch[i]);
            FL_TRY(append_repeat(&ad->scratch[i], &ad->dflt[i], b->nrows, err));
            ad->cols[i] = ad->scratch[i];
        } else if (ad->cast[i]) {
            FL_TRY(cast_vector(&b->cols[s], &ad->scratch[i], b->nrows, err));
            ad->cols[i] = ad->scratch[i];
        } else {
            ad->cols[i] = b->cols[s]; /* shallow: b keeps ownership */
            ad->cols[i].type = &ad->table->fields[i].type;
        }
    }
    memset(view, 0, sizeof *view);
    view->schema = ad->table;
    view->ncols = ad->table->nfields;
    view->cols = ad->cols;
    view->nrows = b->nrows;
    view->sel = b->sel;
    return FL_OK;
}

static fl_status check_required(const fl_ingest_adapter *ad, const fl_batch *view, fl_error *err)
{
    for (uint32_t i = 0; i < view->ncols; i++) {
        if (ad->table->fields[i].nullable)
            continue;
        fl_unified u;
        fl_vector_unify(&view->cols[i], &u);
        uint32_t n = view->sel ? view->sel->count : view->nrows;
        for (uint32_t r = 0; r < n; r++) {
            uint32_t row = view->sel ? view->sel->idx[r] : r;
            if (!fl_unified_is_valid(&u, row))
                return fl_errorf(err, FL_EINVAL, "required column '%s' has a null (batch row %u)",
                                 ad->table->fields[i].name, row);
        }
    }
    return FL_OK;
}

fl_status fl_ingest_adapter_open(const fl_schema *table, const fl_ice_schema *ice,
                                 const fl_schema *src, const char *file, fl_ingest_adapter **out,
                                 fl_error *err)
{
    fl_ingest_adapter *ad = calloc(1, sizeof *ad);
    if (!ad)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_status rc = adapter_init(ad, table, ice, src, file, err);
    if (rc != FL_OK) {
        fl_ingest_adapter_free(ad);
        return rc;
    }
    *out = ad;
    return FL_OK;
}

fl_status fl_ingest_adapt(fl_ingest_adapter *ad, const fl_batch *b, fl_batch *view, fl_error *err)
{
    FL_TRY(adapt_view(ad, b, view, err));
    return check_required(ad, view, err);
}

void fl_ingest_adapter_free(fl_ingest_adapter *ad)
{
    if (!ad)
        return;
    if (ad->table)
        adapter_clear(ad);
    free(ad);
}

fl_status fl_ingest_text_schema(const fl_schema *table, const fl_schema *ss, bool csv,
                                const char *path, fl_arena *ar, const fl_schema **out,
                                fl_error *err)
{
    *out = NULL;
    bool differs = false;
    for (uint32_t i = 0; i < ss->nfields; i++) {
        int32_t t = find_col(table, ss->fields[i].name);
        if (t >= 0 && !fl_type_same_shape(&ss->fields[i].type, &table->fields[t].type))
            differs = true;
    }
    if (!differs)
        return FL_OK;
    fl_schema *want = fl_arena_calloc(ar, 1, sizeof *want);
    if (!want)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    if (csv) {
        /* CSV schemas are positional: the header's names with the table's types */
        want->nfields = ss->nfields;
        want->fields = fl_arena_calloc(ar, ss->nfields + 1, sizeof *want->fields);
        if (!want->fields)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (uint32_t i = 0; i < ss->nfields; i++) {
            int32_t t = find_col(table, ss->fields[i].name);
            if (t < 0)
                return fl_errorf(err, FL_EINVAL, "%s: column '%s' is not in the table", path,
                                 ss->fields[i].name);
            want->fields[i] = table->fields[t];
            want->fields[i].name = fl_arena_strdup(ar, ss->fields[i].name);
        }
    } else {
        *want = *table; /* JSON lines: keys by name */
    }
    *out = want;
    return FL_OK;
}
