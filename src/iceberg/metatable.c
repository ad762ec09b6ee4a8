/*
 * metatable.c - Iceberg metadata tables (ice_scan.h): snapshots, history,
 * refs, manifests, all_manifests, files, data_files, delete_files, entries,
 * partitions, with the column names and types of Java's metadata tables.
 *
 * Deviation from Java: `partition` is a string holding the partition tuple
 * as JSON ({"event_date": "2024-01-01"}, values in Iceberg's human form),
 * because a table's specs may differ and floe has no unified partition
 * struct yet; readable_metrics is not produced.
 *
 * Rows are materialized at open into FLAT vectors (metadata is small next to
 * data: one row per snapshot / manifest / file); next() copies slices of up
 * to FL_BATCH_CAP rows into the caller's batch.
 *
 * Ownership: the table owns its arena (schema, strings), vectors and the
 * manifests it read; io and m are borrowed for the duration of open only.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/format.h"
#include "iceberg/metatable_int.h"

struct fl_ice_metatable {
    fl_arena arena;
    fl_schema schema;
    fl_vector *cols;
    uint32_t ncols;
    uint32_t nrows, pos;
};

/* ---- schema building ---- */

static fl_field *fields(mt_builder *b, uint32_t n)
{
    return fl_arena_calloc(b->a, n ? n : 1, sizeof(fl_field));
}

fl_type mt_prim(fl_type_id id)
{
    fl_type t;
    memset(&t, 0, sizeof t);
    t.id = id;
    return t;
}

static void setf(mt_builder *b, fl_field *f, const char *name, fl_type t, bool nullable)
{
    f->name = name;
    f->field_id = ++b->next_id;
    f->nullable = nullable;
    f->type = t;
}

fl_type mt_list(mt_builder *b, fl_type elem)
{
    fl_type t = mt_prim(FL_TYPE_LIST);
    t.children = fields(b, 1);
    t.nchildren = t.children ? 1 : 0;
    if (t.children)
        setf(b, &t.children[0], "element", elem, true);
    return t;
}

fl_type mt_map(mt_builder *b, fl_type k, fl_type v)
{
    fl_type t = mt_prim(FL_TYPE_MAP);
    t.children = fields(b, 2);
    t.nchildren = t.children ? 2 : 0;
    if (t.children) {
        setf(b, &t.children[0], "key", k, false);
        setf(b, &t.children[1], "value", v, true);
    }
    return t;
}

fl_type mt_struct(mt_builder *b, const mt_col *cols, uint32_t n)
{
    fl_type t = mt_prim(FL_TYPE_STRUCT);
    t.children = fields(b, n);
    t.nchildren = t.children ? n : 0;
    for (uint32_t i = 0; t.children && i < n; i++)
        setf(b, &t.children[i], cols[i].name, cols[i].type, true);
    return t;
}

fl_status mt_begin(mt_builder *b, const mt_col *cols, uint32_t n, fl_error *err)
{
    fl_ice_metatable *t = b->t;
    t->schema.fields = fields(b, n);
    t->cols = calloc(n ? n : 1, sizeof *t->cols);
    if (!t->schema.fields || !t->cols)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    t->schema.nfields = n;
    t->ncols = n;
    for (uint32_t i = 0; i < n; i++) {
        setf(b, &t->schema.fields[i], cols[i].name, cols[i].type, true);
        FL_TRY(fl_vector_init(&t->cols[i], &t->schema.fields[i].type, err));
    }
    b->cols = t->cols;
    return FL_OK;
}

void mt_row_done(mt_builder *b)
{
    b->t->nrows++;
}

/* ---- value appenders ---- */

fl_status mt_null(fl_vector *v, fl_error *err)
{
    return fl_vector_append_null(v, err);
}

fl_status mt_i32(fl_vector *v, int32_t x, fl_error *err)
{
    return fl_vector_append_fixed(v, &x, err);
}
fl_status mt_i64(fl_vector *v, int64_t x, fl_error *err)
{
    return fl_vector_append_fixed(v, &x, err);
}
fl_status mt_bool(fl_vector *v, bool x, fl_error *err)
{
    uint8_t b = x;
    return fl_vector_append_fixed(v, &b, err);
}
fl_status mt_str(fl_vector *v, const char *s, fl_error *err)
{
    if (!s)
        return fl_vector_append_null(v, err);
    return fl_vector_append_bytes(v, s, strlen(s), err);
}
fl_status mt_bin(fl_vector *v, const uint8_t *p, size_t n, fl_error *err)
{
    if (!p)
        return fl_vector_append_null(v, err);
    return fl_vector_append_bytes(v, p, n, err);
}

/* ---- human strings (Java's Transform.toHumanString) ---- */

static void fmt_i128(fl_i128 v, int32_t scale, char *buf, size_t cap)
{
    char tmp[64];
    int n = 0;
    bool neg = v < 0;
    unsigned __int128 u = neg ? -(unsigned __int128)v : (unsigned __int128)v;
    do {
        tmp[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u || n <= scale);
    size_t o = 0;
    if (neg && o + 1 < cap)
        buf[o++] = '-';
    for (int i = n - 1; i >= 0 && o + 2 < cap; i--) {
        buf[o++] = tmp[i];
        if (i == scale && scale > 0)
            buf[o++] = '.';
    }
    buf[o] = 0;
}

void mt_human(const fl_value *v, char *buf, size_t cap)
{
    if (v->is_null) {
        snprintf(buf, cap, "null");
        return;
    }
    int64_t x, unit;
    switch (v->type.id) {
    case FL_TYPE_BOOLEAN: snprintf(buf, cap, "%s", v->v.b ? "true" : "false"); break;
    case FL_TYPE_INT32: snprintf(buf, cap, "%" PRId32, v->v.i32); break;
    case FL_TYPE_INT64: snprintf(buf, cap, "%" PRId64, v->v.i64); break;
    case FL_TYPE_FLOAT32: snprintf(buf, cap, "%.9g", (double)v->v.f32); break;
    case FL_TYPE_FLOAT64: snprintf(buf, cap, "%.17g", v->v.f64); break;
    case FL_TYPE_DECIMAL: fmt_i128(v->v.dec, v->type.scale, buf, cap); break;
    case FL_TYPE_DATE: fl_format_iso_date(v->v.i32, buf, cap); break;
    case FL_TYPE_TIME:
        x = v->v.i64;
        snprintf(buf, cap, "%02" PRId64 ":%02" PRId64 ":%02" PRId64 ".%06" PRId64, x / 3600000000,
                 x / 60000000 % 60, x / 1000000 % 60, x % 1000000);
        break;
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ:
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS: {
        bool ns = v->type.id == FL_TYPE_TIMESTAMP_NS || v->type.id == FL_TYPE_TIMESTAMPTZ_NS;
        unit = ns ? 1000000000LL : 1000000LL;
        x = v->v.i64;
        int64_t days = x / (86400 * unit) - (x % (86400 * unit) < 0);
        int64_t rem = x - days * 86400 * unit;
        int n = fl_format_iso_date(days, buf, cap);
        if (n > 0 && (size_t)n < cap)
            snprintf(
                buf + n, cap - (size_t)n,
                "T%02" PRId64 ":%02" PRId64 ":%02" PRId64 ".%0*" PRId64 "%s", rem / (3600 * unit),
                rem / (60 * unit) % 60, rem / unit % 60, ns ? 9 : 6, rem % unit,
                v->type.id == FL_TYPE_TIMESTAMPTZ || v->type.id == FL_TYPE_TIMESTAMPTZ_NS ? "+00:00"
                                                                                          : "");
        break;
    }
    case FL_TYPE_STRING:
        snprintf(buf, cap, "%.*s", (int)(v->v.bytes.len < cap ? v->v.bytes.len : cap - 1),
                 (const char *)v->v.bytes.ptr);
        break;
    case FL_TYPE_UUID: {
        const uint8_t *b = v->v.bytes.ptr;
        snprintf(buf, cap, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12],
                 b[13], b[14], b[15]);
        break;
    }
    default: { /* binary, fixed: upper-case hex as Java's BaseEncoding */
        size_t o = 0;
        for (size_t i = 0; i < v->v.bytes.len && o + 3 < cap; i++)
            o += (size_t)snprintf(buf + o, cap - o, "%02X", v->v.bytes.ptr[i]);
        buf[o] = 0;
    }
    }
}

/* ---- open / next ---- */

fl_status fl_ice_metatable_open(fl_fileio *io, const fl_ice_metadata *m, const char *name,
                                const fl_ice_scan_options *opt, fl_ice_metatable **out,
                                fl_error *err)
{
    *out = NULL;
    fl_ice_metatable *t = calloc(1, sizeof *t);
    if (!t)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_arena_init(&t->arena, 0);
    mt_builder b = {.t = t, .a = &t->arena, .io = io, .m = m, .opt = opt};
    fl_status rc;
    if (!strcmp(name, "snapshots"))
        rc = mt_snapshots(&b, err);
    else if (!strcmp(name, "history"))
        rc = mt_history(&b, err);
    else if (!strcmp(name, "refs"))
        rc = mt_refs(&b, err);
    else if (!strcmp(name, "manifests"))
        rc = mt_manifests(&b, false, err);
    else if (!strcmp(name, "all_manifests"))
        rc = mt_manifests(&b, true, err);
    else if (!strcmp(name, "files"))
        rc = mt_files(&b, MT_FILES_ALL, false, err);
    else if (!strcmp(name, "data_files"))
        rc = mt_files(&b, MT_FILES_DATA, false, err);
    else if (!strcmp(name, "delete_files"))
        rc = mt_files(&b, MT_FILES_DELETES, false, err);
    else if (!strcmp(name, "entries"))
        rc = mt_files(&b, MT_FILES_ALL, true, err);
    else if (!strcmp(name, "partitions"))
        rc = mt_partitions(&b, err);
    else
        rc = fl_errorf(err, FL_ENOTFOUND, "no metadata table '%s'", name);
    if (rc != FL_OK) {
        fl_error_prefix(err, "metadata table %s", name);
        fl_ice_metatable_close(t);
        return rc;
    }
    *out = t;
    return FL_OK;
}

const fl_schema *fl_ice_metatable_schema(const fl_ice_metatable *t)
{
    return &t->schema;
}

fl_status fl_ice_metatable_next(fl_ice_metatable *t, fl_batch *b, bool *eof, fl_error *err)
{
    fl_batch_reset(b);
    *eof = t->pos >= t->nrows;
    if (*eof)
        return FL_OK;
    uint32_t n = t->nrows - t->pos;
    if (n > FL_BATCH_CAP)
        n = FL_BATCH_CAP;
    for (uint32_t c = 0; c < t->ncols && c < b->ncols; c++)
        for (uint32_t r = 0; r < n; r++)
            FL_TRY(fl_vector_append_from(&b->cols[c], &t->cols[c], t->pos + r, err));
    b->nrows = n;
    t->pos += n;
    return FL_OK;
}

void fl_ice_metatable_close(fl_ice_metatable *t)
{
    if (!t)
        return;
    for (uint32_t i = 0; t->cols && i < t->ncols; i++)
        fl_vector_destroy(&t->cols[i]);
    free(t->cols);
    fl_arena_free(&t->arena);
    free(t);
}
