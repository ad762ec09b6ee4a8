/*
 * manifest_values.c - typed access to decoded Avro values of manifests and
 * manifest lists, partition values between their Avro form and fl_value,
 * partition types, and the merge of the six per-column metric maps.
 *
 * Why: manifests are read by Iceberg field id, and writers differ in the
 * physical types they pick (BigQuery wraps everything in ["null", T] unions,
 * old writers use int where the spec says long). Both int and long are zigzag
 * varints in Avro, so every integer field accepts either; string and bytes
 * share a layout, so both are accepted where the spec names one.
 *
 * Partition values (spec "Partitioning", Avro mapping in "Appendix A"): the
 * Avro type of the partition record's field i is the Avro form of the
 * transform result type: date = int days, time/timestamp* = long micros or
 * nanos, decimal = fixed/bytes two's complement big-endian, uuid = fixed[16]
 * (or a 36-character uuid string), fixed/binary = fixed/bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "floe/iceberg.h"
#include "iceberg/manifest_int.h"

static const char *avro_tn(const fl_avro_value *v)
{
    return fl_avro_type_name(v->type);
}

fl_status mv_long(const fl_avro_value *v, const char *what, int64_t *out, fl_error *err)
{
    if (v->type == FL_AVRO_INT) {
        *out = v->u.i;
        return FL_OK;
    }
    if (v->type == FL_AVRO_LONG) {
        *out = v->u.l;
        return FL_OK;
    }
    return fl_errorf(err, FL_ETYPE, "field '%s': expected long, found %s", what, avro_tn(v));
}

fl_status mv_int(const fl_avro_value *v, const char *what, int32_t *out, fl_error *err)
{
    int64_t x = 0;
    FL_TRY(mv_long(v, what, &x, err));
    if (x < INT32_MIN || x > INT32_MAX)
        return fl_errorf(err, FL_ECORRUPT, "field '%s': value %lld out of int range", what,
                         (long long)x);
    *out = (int32_t)x;
    return FL_OK;
}

fl_status mv_bool(const fl_avro_value *v, const char *what, bool *out, fl_error *err)
{
    if (v->type != FL_AVRO_BOOLEAN)
        return fl_errorf(err, FL_ETYPE, "field '%s': expected boolean, found %s", what, avro_tn(v));
    *out = v->u.b;
    return FL_OK;
}

static bool is_byteish(const fl_avro_value *v)
{
    return v->type == FL_AVRO_STRING || v->type == FL_AVRO_BYTES || v->type == FL_AVRO_FIXED;
}

fl_status mv_str(const fl_avro_value *v, const char *what, fl_arena *a, const char **out,
                 fl_error *err)
{
    if (!is_byteish(v))
        return fl_errorf(err, FL_ETYPE, "field '%s': expected string, found %s", what, avro_tn(v));
    char *s = fl_arena_strndup(a, (const char *)v->u.bytes.ptr, v->u.bytes.len);
    if (!s)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    *out = s;
    return FL_OK;
}

fl_status mv_bytes(const fl_avro_value *v, const char *what, fl_arena *a, const uint8_t **out,
                   uint32_t *len, fl_error *err)
{
    if (!is_byteish(v))
        return fl_errorf(err, FL_ETYPE, "field '%s': expected bytes, found %s", what, avro_tn(v));
    if (v->u.bytes.len > UINT32_MAX)
        return fl_errorf(err, FL_ELIMIT, "field '%s': %zu bytes is too long", what, v->u.bytes.len);
    uint8_t *p = fl_arena_alloc(a, v->u.bytes.len ? v->u.bytes.len : 1);
    if (!p)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    if (v->u.bytes.len)
        memcpy(p, v->u.bytes.ptr, v->u.bytes.len);
    *out = p;
    *len = (uint32_t)v->u.bytes.len;
    return FL_OK;
}

/* ---------------------------------------------------------------- types */

static bool prop_true(const fl_avro_schema *s, const char *key)
{
    for (uint32_t i = 0; i < s->nprops; i++)
        if (s->props[i].json && !strcmp(s->props[i].key, key))
            return !strcmp(s->props[i].json, "true");
    return false;
}

fl_status ice_type_from_avro(const fl_avro_schema *s, fl_type *out, fl_error *err)
{
    if (s->type == FL_AVRO_UNION) {
        const fl_avro_schema *b = NULL;
        for (uint32_t i = 0; i < s->nbranches; i++)
            if (s->branches[i]->type != FL_AVRO_NULL) {
                if (b)
                    return fl_errorf(err, FL_EUNSUPPORTED, "union with two non-null branches");
                b = s->branches[i];
            }
        if (!b)
            return fl_errorf(err, FL_EUNSUPPORTED, "union without a non-null branch");
        s = b;
    }
    memset(out, 0, sizeof *out);
    switch (s->type) {
    case FL_AVRO_BOOLEAN: out->id = FL_TYPE_BOOLEAN; break;
    case FL_AVRO_INT:
        out->id = s->logical == FL_AVRO_LOGICAL_DATE ? FL_TYPE_DATE : FL_TYPE_INT32;
        break;
    case FL_AVRO_LONG: {
        bool utc = prop_true(s, "adjust-to-utc");
        switch (s->logical) {
        case FL_AVRO_LOGICAL_TIME_MICROS: out->id = FL_TYPE_TIME; break;
        case FL_AVRO_LOGICAL_TIMESTAMP_MICROS:
        case FL_AVRO_LOGICAL_TIMESTAMP_MILLIS:
            out->id = utc ? FL_TYPE_TIMESTAMPTZ : FL_TYPE_TIMESTAMP;
            break;
        case FL_AVRO_LOGICAL_LOCAL_TIMESTAMP_MICROS: out->id = FL_TYPE_TIMESTAMP; break;
        case FL_AVRO_LOGICAL_TIMESTAMP_NANOS:
            out->id = utc ? FL_TYPE_TIMESTAMPTZ_NS : FL_TYPE_TIMESTAMP_NS;
            break;
        case FL_AVRO_LOGICAL_LOCAL_TIMESTAMP_NANOS: out->id = FL_TYPE_TIMESTAMP_NS; break;
        default: out->id = FL_TYPE_INT64; break;
        }
        break;
    }
    case FL_AVRO_FLOAT: out->id = FL_TYPE_FLOAT32; break;
    case FL_AVRO_DOUBLE: out->id = FL_TYPE_FLOAT64; break;
    case FL_AVRO_STRING:
        out->id = s->logical == FL_AVRO_LOGICAL_UUID ? FL_TYPE_UUID : FL_TYPE_STRING;
        break;
    case FL_AVRO_BYTES:
    case FL_AVRO_FIXED:
        if (s->logical == FL_AVRO_LOGICAL_DECIMAL) {
            if (s->precision < 1 || s->precision > 38 || s->scale < 0 || s->scale > s->precision)
                return fl_errorf(err, FL_EUNSUPPORTED, "decimal(%d, %d) is not supported",
                                 (int)s->precision, (int)s->scale);
            out->id = FL_TYPE_DECIMAL;
            out->precision = s->precision;
            out->scale = s->scale;
        } else if (s->type == FL_AVRO_FIXED && s->logical == FL_AVRO_LOGICAL_UUID) {
            out->id = FL_TYPE_UUID;
            out->fixed_len = 16;
        } else if (s->type == FL_AVRO_FIXED) {
            out->id = FL_TYPE_FIXED;
            out->fixed_len = s->size;
        } else {
            out->id = FL_TYPE_BINARY;
        }
        break;
    default:
        return fl_errorf(err, FL_EUNSUPPORTED, "Avro type %s cannot be a partition value",
                         fl_avro_type_name(s->type));
    }
    return FL_OK;
}

fl_status ice_decimal_from_be(const uint8_t *p, size_t n, fl_i128 *out, fl_error *err)
{
    if (n == 0)
        return fl_errorf(err, FL_ECORRUPT, "empty decimal");
    uint8_t sign = (p[0] & 0x80) ? 0xFF : 0x00;
    while (n > 16) {
        if (p[0] != sign)
            return fl_errorf(err, FL_EOVERFLOW, "decimal of %zu bytes overflows 128 bits", n);
        p++;
        n--;
    }
    unsigned __int128 u = sign ? ~(unsigned __int128)0 : 0;
    for (size_t i = 0; i < n; i++)
        u = (u << 8) | p[i];
    *out = (fl_i128)u;
    return FL_OK;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* "8-4-4-4-12" hex text -> 16 bytes. */
static bool parse_uuid(const uint8_t *s, size_t n, uint8_t out[16])
{
    if (n != 36)
        return false;
    size_t k = 0;
    for (size_t i = 0; i < 36;) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (s[i] != '-')
                return false;
            i++;
            continue;
        }
        int hi = hexval(s[i]), lo = hexval(s[i + 1]);
        if (hi < 0 || lo < 0)
            return false;
        out[k++] = (uint8_t)(hi << 4 | lo);
        i += 2;
    }
    return k == 16;
}

static fl_status want(const fl_avro_value *v, bool ok, const fl_type *t, fl_error *err)
{
    if (ok)
        return FL_OK;
    char tn[64];
    fl_type_format(t, tn, sizeof tn);
    return fl_errorf(err, FL_ETYPE, "partition value of Avro type %s cannot be %s",
                     fl_avro_type_name(v->type), tn);
}

fl_status ice_partition_from_avro(const fl_avro_value *v, const fl_type *t, fl_arena *a,
                                  fl_value *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    out->type = *t;
    out->type.nchildren = 0;
    out->type.children = NULL;
    if (mv_null(v)) {
        out->is_null = true;
        return FL_OK;
    }
    bool isint = v->type == FL_AVRO_INT || v->type == FL_AVRO_LONG;
    bool isbytes = v->type == FL_AVRO_BYTES || v->type == FL_AVRO_FIXED;
    switch (t->id) {
    case FL_TYPE_BOOLEAN:
        FL_TRY(want(v, v->type == FL_AVRO_BOOLEAN, t, err));
        out->v.b = v->u.b;
        return FL_OK;
    case FL_TYPE_INT32:
    case FL_TYPE_DATE:
        FL_TRY(want(v, isint, t, err));
        return mv_int(v, "partition", &out->v.i32, err);
    case FL_TYPE_INT64:
    case FL_TYPE_TIME:
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ:
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS:
        FL_TRY(want(v, isint, t, err));
        return mv_long(v, "partition", &out->v.i64, err);
    case FL_TYPE_FLOAT32:
        FL_TRY(want(v, v->type == FL_AVRO_FLOAT, t, err));
        out->v.f32 = v->u.f;
        return FL_OK;
    case FL_TYPE_FLOAT64:
        FL_TRY(want(v, v->type == FL_AVRO_FLOAT || v->type == FL_AVRO_DOUBLE, t, err));
        out->v.f64 = v->type == FL_AVRO_FLOAT ? (double)v->u.f : v->u.d;
        return FL_OK;
    case FL_TYPE_DECIMAL:
        if (isint) {
            out->v.dec = v->type == FL_AVRO_INT ? v->u.i : v->u.l;
            return FL_OK;
        }
        FL_TRY(want(v, isbytes, t, err));
        return ice_decimal_from_be(v->u.bytes.ptr, v->u.bytes.len, &out->v.dec, err);
    case FL_TYPE_UUID: {
        uint8_t *p = fl_arena_alloc(a, 16);
        if (!p)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        if (v->type == FL_AVRO_STRING) {
            if (!parse_uuid(v->u.bytes.ptr, v->u.bytes.len, p))
                return fl_errorf(err, FL_ECORRUPT, "partition value is not a uuid string");
        } else {
            FL_TRY(want(v, isbytes, t, err));
            if (v->u.bytes.len != 16)
                return fl_errorf(err, FL_ECORRUPT, "uuid partition value has %zu bytes, not 16",
                                 v->u.bytes.len);
            memcpy(p, v->u.bytes.ptr, 16);
        }
        out->v.bytes.ptr = p;
        out->v.bytes.len = 16;
        return FL_OK;
    }
    case FL_TYPE_FIXED:
        FL_TRY(want(v, isbytes, t, err));
        if (v->u.bytes.len != (size_t)t->fixed_len)
            return fl_errorf(err, FL_ECORRUPT, "fixed[%d] partition value has %zu bytes",
                             (int)t->fixed_len, v->u.bytes.len);
        break;
    case FL_TYPE_STRING:
    case FL_TYPE_BINARY: FL_TRY(want(v, isbytes || v->type == FL_AVRO_STRING, t, err)); break;
    default: return want(v, false, t, err);
    }
    /* byte payloads: copy out of the decode arena (NUL-terminated for strings) */
    char *p = fl_arena_strndup(a, (const char *)v->u.bytes.ptr, v->u.bytes.len);
    if (!p)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    out->v.bytes.ptr = (const uint8_t *)p;
    out->v.bytes.len = v->u.bytes.len;
    return FL_OK;
}

static const fl_field *find_source(const fl_ice_metadata *m, int32_t id)
{
    const fl_ice_schema *cur = fl_ice_metadata_current_schema(m);
    const fl_field *f = cur ? fl_schema_find_id(&cur->schema, id) : NULL;
    for (uint32_t i = m->nschemas; !f && i-- > 0;)
        f = fl_schema_find_id(&m->schemas[i].schema, id);
    return f;
}

fl_status ice_partition_field_type(const fl_ice_metadata *m, const fl_ice_partition_field *pf,
                                   fl_type *out, fl_error *err)
{
    fl_ice_transform t;
    FL_TRY(fl_ice_transform_parse(pf->transform, &t, err));
    if (t.kind == FL_ICE_TRANSFORM_UNKNOWN)
        return fl_errorf(err, FL_EUNSUPPORTED, "partition field '%s': unknown transform '%s'",
                         pf->name, pf->transform);
    if (pf->nsource_ids > 1)
        return fl_errorf(err, FL_EUNSUPPORTED,
                         "partition field '%s': multi-argument transform '%s'", pf->name,
                         pf->transform);
    const fl_field *src = find_source(m, pf->source_id);
    if (!src) {
        if (t.kind == FL_ICE_TRANSFORM_VOID) { /* Java: void of an unknown source is int */
            memset(out, 0, sizeof *out);
            out->id = FL_TYPE_INT32;
            return FL_OK;
        }
        return fl_errorf(err, FL_ENOTFOUND,
                         "partition field '%s': source column %d is in no schema", pf->name,
                         (int)pf->source_id);
    }
    if (src->type.id == 0)
        return fl_errorf(err, FL_EUNSUPPORTED,
                         "partition field '%s': source column of an unsupported type", pf->name);
    fl_status rc = fl_ice_transform_result_type(&t, &src->type, out, err);
    if (rc)
        return fl_error_prefix(err, "partition field '%s'", pf->name);
    return FL_OK;
}

fl_status fl_ice_partition_type(const fl_ice_metadata *m, const fl_ice_partition_spec *spec,
                                fl_arena *a, fl_type *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    out->id = FL_TYPE_STRUCT;
    if (spec->nfields == 0)
        return FL_OK;
    fl_field *fs = fl_arena_calloc(a, spec->nfields, sizeof *fs);
    if (!fs)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < spec->nfields; i++) {
        const fl_ice_partition_field *pf = &spec->fields[i];
        fs[i].name = fl_arena_strdup(a, pf->name ? pf->name : "");
        if (!fs[i].name)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        fs[i].field_id = pf->field_id;
        fs[i].nullable = true;
        FL_TRY(ice_partition_field_type(m, pf, &fs[i].type, err));
    }
    out->nchildren = spec->nfields;
    out->children = fs;
    return FL_OK;
}

/* ---------------------------------------------------------------- metrics */

static int item_cmp(const void *x, const void *y)
{
    const ice_metric_item *a = x, *b = y;
    if (a->field_id != b->field_id)
        return a->field_id < b->field_id ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

static void metric_init(fl_ice_column_metrics *m, int32_t field_id)
{
    memset(m, 0, sizeof *m);
    m->field_id = field_id;
    m->column_size = m->value_count = m->null_value_count = m->nan_value_count = -1;
}

static void metric_apply(fl_ice_column_metrics *m, const ice_metric_item *it)
{
    switch (it->kind) {
    case 0: m->column_size = it->n; break;
    case 1: m->value_count = it->n; break;
    case 2: m->null_value_count = it->n; break;
    case 3: m->nan_value_count = it->n; break;
    case 4:
        m->has_lower = true;
        m->lower = it->ptr;
        m->lower_len = it->len;
        break;
    default:
        m->has_upper = true;
        m->upper = it->ptr;
        m->upper_len = it->len;
        break;
    }
}

#define SLOT_SPAN 2048 /* field-id spans up to this use a slot table instead of a sort */

fl_status ice_metrics_merge(ice_metric_item *items, uint32_t n, fl_arena *a,
                            fl_ice_column_metrics **out, uint32_t *nout, fl_error *err)
{
    *out = NULL;
    *nout = 0;
    if (n == 0)
        return FL_OK;
    int32_t lo = items[0].field_id, hi = lo;
    for (uint32_t i = 1; i < n; i++) {
        lo = items[i].field_id < lo ? items[i].field_id : lo;
        hi = items[i].field_id > hi ? items[i].field_id : hi;
    }
    if ((int64_t)hi - lo < SLOT_SPAN) {
        /* the usual case: every map lists the same few ids; items are applied
         * in insertion order, so a later duplicate wins */
        int32_t slot[SLOT_SPAN];
        uint32_t span = (uint32_t)(hi - lo) + 1;
        memset(slot, 0xff, span * sizeof *slot);
        for (uint32_t i = 0; i < n; i++)
            slot[items[i].field_id - lo] = 0;
        uint32_t distinct = 0;
        for (uint32_t k = 0; k < span; k++)
            if (slot[k] == 0)
                slot[k] = (int32_t)distinct++;
        fl_ice_column_metrics *ms = fl_arena_alloc(a, (size_t)distinct * sizeof *ms);
        if (!ms)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        for (uint32_t k = 0; k < span; k++)
            if (slot[k] >= 0)
                metric_init(&ms[slot[k]], lo + (int32_t)k);
        for (uint32_t i = 0; i < n; i++)
            metric_apply(&ms[slot[items[i].field_id - lo]], &items[i]);
        *out = ms;
        *nout = distinct;
        return FL_OK;
    }
    qsort(items, n, sizeof *items, item_cmp);
    uint32_t distinct = 1;
    for (uint32_t i = 1; i < n; i++)
        distinct += items[i].field_id != items[i - 1].field_id;
    fl_ice_column_metrics *ms = fl_arena_alloc(a, (size_t)distinct * sizeof *ms);
    if (!ms)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (i == 0 || items[i].field_id != items[i - 1].field_id)
            metric_init(&ms[k++], items[i].field_id);
        metric_apply(&ms[k - 1], &items[i]);
    }
    *out = ms;
    *nout = k;
    return FL_OK;
}

const fl_ice_column_metrics *fl_ice_data_file_metrics(const fl_ice_data_file *f, int32_t field_id)
{
    uint32_t lo = 0, hi = f->nmetrics;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int32_t id = f->metrics[mid].field_id;
        if (id == field_id)
            return &f->metrics[mid];
        if (id < field_id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}
