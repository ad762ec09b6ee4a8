/*
 * schema_write.c - floe schema (types.h) -> Parquet SchemaElements, plus one
 * fl_pqw_leaf per primitive column describing how to reach its vector and
 * how to store its values.
 *
 * Layout (parquet-format LogicalTypes.md, "Nested Types"), depth first:
 *
 *   <root>                         group, num_children = top-level fields
 *     <struct> (opt|req)           group, field_id
 *       <child> ...                field_id on every child
 *     <list> (opt|req) LIST        group, logical LIST + converted LIST, field_id
 *       list (repeated)            group, no field id (not an Iceberg field)
 *         element (opt|req)        field_id = the element id
 *     <map> (opt|req) MAP          group, logical MAP + converted MAP, field_id
 *       key_value (repeated)       group
 *         key (required)           field_id = key id
 *         value (opt|req)          field_id = value id
 *
 * Primitive mapping (Iceberg spec "Parquet" appendix; legacy converted types
 * written where one exists so that old readers understand the column):
 *   boolean BOOLEAN; int INT32; long INT64; float FLOAT; double DOUBLE;
 *   decimal(P,S) INT32 (P<=9) / INT64 (P<=18) / FLBA(minimal bytes) + DECIMAL;
 *   date INT32 DATE; time INT64 TIME(MICROS, local) + TIME_MICROS;
 *   timestamp[tz] INT64 TIMESTAMP(MICROS, adjusted=tz) + TIMESTAMP_MICROS;
 *   timestamp[tz]_ns INT64 TIMESTAMP(NANOS) (no converted type exists);
 *   string BYTE_ARRAY STRING + UTF8; uuid FLBA(16) UUID; fixed[L] FLBA(L);
 *   binary BYTE_ARRAY; geometry/geography BYTE_ARRAY GEOMETRY/GEOGRAPHY;
 *   variant: a VARIANT group {metadata, value} of BYTE_ARRAYs (the writer
 *   hands this file a STRUCT with ext FL_EXT_VARIANT, variant_write.c).
 *
 * Definition levels: +1 for every OPTIONAL field and every repeated group;
 * repetition levels: +1 for every repeated group.
 */
#include <stdio.h>
#include <string.h>

#include "parquet/writer_int.h"

#define MAX_DEPTH 64

typedef struct sbuild {
    fl_arena *a;
    fl_error *err;
    fl_pq_schema_element *elems;
    uint32_t ne;
    fl_pqw_leaf *leaves;
    uint32_t nl;
    uint32_t top;
    fl_pqw_step steps[MAX_DEPTH];
    const char *parts[MAX_DEPTH * 2];
    const char *fparts[MAX_DEPTH];
} sbuild;

int32_t fl_pqw_decimal_bytes(int32_t precision)
{
    /* Smallest n with 10^P - 1 <= 2^(8n-1) - 1, i.e. P <= floor((8n-1) log10 2). */
    for (int32_t n = 1; n <= 16; n++) {
        int32_t digits = (int32_t)((double)(8 * n - 1) * 0.30102999566398120);
        if (precision <= digits)
            return n;
    }
    return 16;
}

/* Counts schema elements and leaves below (and including) a field. */
static void count_field(const fl_field *f, uint32_t *ne, uint32_t *nl)
{
    const fl_type *t = &f->type;
    (*ne)++;
    switch (t->id) {
    case FL_TYPE_STRUCT:
        for (uint32_t i = 0; i < t->nchildren; i++)
            count_field(&t->children[i], ne, nl);
        break;
    case FL_TYPE_LIST:
    case FL_TYPE_MAP:
        (*ne)++; /* the repeated group */
        for (uint32_t i = 0; i < t->nchildren; i++)
            count_field(&t->children[i], ne, nl);
        break;
    default: (*nl)++;
    }
}

static fl_pq_schema_element *new_elem(sbuild *b, const char *name, fl_pq_repetition rep)
{
    fl_pq_schema_element *e = &b->elems[b->ne++];
    memset(e, 0, sizeof *e);
    e->name = name;
    e->repetition = rep;
    e->num_children = -1;
    e->converted_type = FL_PQ_CT_NONE;
    e->scale = -1;
    e->precision = -1;
    e->logical.kind = FL_PQ_LT_NONE;
    return e;
}

static const char *join(fl_arena *a, const char *const *parts, uint32_t n)
{
    size_t len = 0;
    for (uint32_t i = 0; i < n; i++)
        len += strlen(parts[i]) + 1;
    char *s = fl_arena_alloc(a, len + 1);
    if (!s)
        return NULL;
    char *p = s;
    for (uint32_t i = 0; i < n; i++) {
        size_t l = strlen(parts[i]);
        if (i)
            *p++ = '.';
        memcpy(p, parts[i], l);
        p += l;
    }
    *p = '\0';
    return s;
}

/* Physical type, logical/converted annotations and value kind of a primitive. */
static fl_status map_primitive(const fl_type *t, fl_pq_schema_element *e, fl_pqw_leaf *l,
                               const char *path, fl_error *err)
{
    e->type_set = true;
    l->src_width = (uint32_t)fl_type_width(t);
    switch (t->id) {
    case FL_TYPE_BOOLEAN: e->type = FL_PQ_BOOLEAN, l->vkind = FL_PQW_V_BOOL, l->width = 1; break;
    case FL_TYPE_INT32: e->type = FL_PQ_INT32, l->vkind = FL_PQW_V_I32, l->width = 4; break;
    case FL_TYPE_INT64: e->type = FL_PQ_INT64, l->vkind = FL_PQW_V_I64, l->width = 8; break;
    case FL_TYPE_FLOAT32: e->type = FL_PQ_FLOAT, l->vkind = FL_PQW_V_F32, l->width = 4; break;
    case FL_TYPE_FLOAT64: e->type = FL_PQ_DOUBLE, l->vkind = FL_PQW_V_F64, l->width = 8; break;
    case FL_TYPE_DECIMAL:
        if (t->precision < 1 || t->precision > 38 || t->scale < 0 || t->scale > t->precision)
            return fl_errorf(err, FL_EINVAL, "column '%s': invalid decimal(%d,%d)", path,
                             t->precision, t->scale);
        if (t->precision <= 9)
            e->type = FL_PQ_INT32, l->vkind = FL_PQW_V_DEC32, l->width = 4;
        else if (t->precision <= 18)
            e->type = FL_PQ_INT64, l->vkind = FL_PQW_V_DEC64, l->width = 8;
        else {
            e->type = FL_PQ_FIXED_LEN_BYTE_ARRAY, l->vkind = FL_PQW_V_DECFLBA;
            e->type_length = fl_pqw_decimal_bytes(t->precision);
            l->width = (uint32_t)e->type_length;
        }
        e->converted_type = FL_PQ_CT_DECIMAL;
        e->scale = t->scale;
        e->precision = t->precision;
        e->logical.kind = FL_PQ_LT_DECIMAL;
        e->logical.decimal_scale = t->scale;
        e->logical.decimal_precision = t->precision;
        break;
    case FL_TYPE_DATE:
        e->type = FL_PQ_INT32, l->vkind = FL_PQW_V_I32, l->width = 4;
        e->converted_type = FL_PQ_CT_DATE;
        e->logical.kind = FL_PQ_LT_DATE;
        break;
    case FL_TYPE_TIME:
        e->type = FL_PQ_INT64, l->vkind = FL_PQW_V_I64, l->width = 8;
        e->converted_type = FL_PQ_CT_TIME_MICROS;
        e->logical.kind = FL_PQ_LT_TIME;
        e->logical.is_adjusted_to_utc = false;
        e->logical.unit = FL_PQ_MICROS;
        break;
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ:
        e->type = FL_PQ_INT64, l->vkind = FL_PQW_V_I64, l->width = 8;
        e->converted_type = FL_PQ_CT_TIMESTAMP_MICROS;
        e->logical.kind = FL_PQ_LT_TIMESTAMP;
        e->logical.is_adjusted_to_utc = t->id == FL_TYPE_TIMESTAMPTZ;
        e->logical.unit = FL_PQ_MICROS;
        break;
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS:
        e->type = FL_PQ_INT64, l->vkind = FL_PQW_V_I64, l->width = 8;
        e->logical.kind = FL_PQ_LT_TIMESTAMP;
        e->logical.is_adjusted_to_utc = t->id == FL_TYPE_TIMESTAMPTZ_NS;
        e->logical.unit = FL_PQ_NANOS;
        break;
    case FL_TYPE_STRING:
        e->type = FL_PQ_BYTE_ARRAY, l->vkind = FL_PQW_V_BYTES, l->width = 0;
        e->converted_type = FL_PQ_CT_UTF8;
        e->logical.kind = FL_PQ_LT_STRING;
        break;
    case FL_TYPE_BINARY:
        e->type = FL_PQ_BYTE_ARRAY, l->vkind = FL_PQW_V_BYTES, l->width = 0;
        if (fl_type_is_geo(t)) {
            e->logical.kind = t->ext == FL_EXT_GEOMETRY ? FL_PQ_LT_GEOMETRY : FL_PQ_LT_GEOGRAPHY;
            e->logical.crs = t->crs;
            e->logical.algorithm = t->ext == FL_EXT_GEOGRAPHY && t->edges ? t->edges : -1;
        }
        break;
    case FL_TYPE_UUID:
        e->type = FL_PQ_FIXED_LEN_BYTE_ARRAY, l->vkind = FL_PQW_V_FLBA, l->width = 16;
        e->type_length = 16;
        e->logical.kind = FL_PQ_LT_UUID;
        break;
    case FL_TYPE_FIXED:
        if (t->fixed_len <= 0)
            return fl_errorf(err, FL_EINVAL, "column '%s': fixed length %d", path, t->fixed_len);
        e->type = FL_PQ_FIXED_LEN_BYTE_ARRAY, l->vkind = FL_PQW_V_FLBA;
        e->type_length = t->fixed_len;
        l->width = (uint32_t)t->fixed_len;
        break;
    default: return fl_errorf(err, FL_EINVAL, "column '%s': unknown type id %d", path, (int)t->id);
    }
    l->physical = e->type;
    l->logical = e->logical;
    l->converted = e->converted_type;
    l->scale = e->scale;
    l->precision = e->precision;
    return FL_OK;
}

static fl_status add_field(sbuild *b, const fl_field *f, const char *name, bool force_required,
                           uint32_t nsteps, uint32_t nparts, uint32_t nfparts, int16_t def,
                           int16_t rep)
{
    if (nsteps >= MAX_DEPTH)
        return fl_errorf(b->err, FL_ELIMIT, "field '%s': nesting deeper than %d", f->name,
                         MAX_DEPTH);
    const fl_type *t = &f->type;
    bool nullable = f->nullable && !force_required;
    fl_pq_schema_element *e = new_elem(b, name, nullable ? FL_PQ_OPTIONAL : FL_PQ_REQUIRED);
    if (f->field_id > 0) {
        e->field_id_set = true;
        e->field_id = f->field_id;
    }
    if (nullable)
        def++;
    fl_pqw_step *st = &b->steps[nsteps];
    memset(st, 0, sizeof *st);
    st->nullable = nullable;
    st->name = f->name;
    b->parts[nparts++] = name;
    b->fparts[nfparts++] = name;

    switch (t->id) {
    case FL_TYPE_STRUCT:
        if (t->nchildren == 0)
            return fl_errorf(b->err, FL_EINVAL, "field '%s': Parquet cannot store an empty struct",
                             f->name);
        e->num_children = (int32_t)t->nchildren;
        if (t->ext == FL_EXT_VARIANT) /* variant_write.c's {metadata, value} group */
            e->logical.kind = FL_PQ_LT_VARIANT;
        st->kind = FL_PQW_STEP_STRUCT;
        for (uint32_t i = 0; i < t->nchildren; i++) {
            b->steps[nsteps].child = i;
            FL_TRY(add_field(b, &t->children[i], t->children[i].name, false, nsteps + 1, nparts,
                             nfparts, def, rep));
        }
        return FL_OK;
    case FL_TYPE_LIST:
    case FL_TYPE_MAP: {
        bool is_map = t->id == FL_TYPE_MAP;
        if (t->nchildren != (is_map ? 2u : 1u))
            return fl_errorf(b->err, FL_EINVAL, "field '%s': malformed %s type", f->name,
                             is_map ? "map" : "list");
        e->num_children = 1;
        e->converted_type = is_map ? FL_PQ_CT_MAP : FL_PQ_CT_LIST;
        e->logical.kind = is_map ? FL_PQ_LT_MAP : FL_PQ_LT_LIST;
        const char *gname = is_map ? "key_value" : "list";
        fl_pq_schema_element *g = new_elem(b, gname, FL_PQ_REPEATED);
        g->num_children = is_map ? 2 : 1;
        b->parts[nparts++] = gname;
        def++;
        rep++;
        st->kind = is_map ? FL_PQW_STEP_MAP : FL_PQW_STEP_LIST;
        st->rep_level = rep;
        for (uint32_t i = 0; i < t->nchildren; i++) {
            b->steps[nsteps].child = i;
            const char *cname = is_map ? (i == 0 ? "key" : "value") : "element";
            FL_TRY(add_field(b, &t->children[i], cname, is_map && i == 0, nsteps + 1, nparts,
                             nfparts, def, rep));
        }
        return FL_OK;
    }
    default: break;
    }

    /* a primitive leaf */
    fl_pqw_leaf *l = &b->leaves[b->nl++];
    memset(l, 0, sizeof *l);
    st->kind = FL_PQW_STEP_LEAF;
    l->parts = fl_arena_alloc(b->a, sizeof(char *) * nparts);
    l->steps = fl_arena_alloc(b->a, sizeof(fl_pqw_step) * (nsteps + 1));
    l->path = join(b->a, b->parts, nparts);
    l->fpath = join(b->a, b->fparts, nfparts);
    if (!l->parts || !l->steps || !l->path || !l->fpath)
        return fl_errorf(b->err, FL_ENOMEM, "out of memory building the Parquet schema");
    memcpy(l->parts, b->parts, sizeof(char *) * nparts);
    memcpy(l->steps, b->steps, sizeof(fl_pqw_step) * (nsteps + 1));
    l->nparts = nparts;
    l->nsteps = nsteps + 1;
    l->field_id = f->field_id;
    l->type = t;
    l->top = b->top;
    l->max_def = def;
    l->max_rep = rep;
    e->num_children = -1;
    FL_TRY(map_primitive(t, e, l, l->path, b->err));
    l->info.physical = l->physical;
    l->info.type_length = e->type_length;
    l->info.logical = &l->logical;
    l->info.converted = l->converted;
    l->info.scale = l->scale;
    l->info.precision = l->precision;
    l->info.order = FL_PQ_ORDER_TYPE_DEFINED;
    l->info.type = l->type;
    return FL_OK;
}

fl_status fl_pqw_schema_build(fl_arena *a, const fl_schema *schema, const char *root_name,
                              fl_pqw_schema *out, fl_error *err)
{
    if (!schema || schema->nfields == 0)
        return fl_errorf(err, FL_EINVAL, "Parquet writer: the schema has no columns");
    uint32_t ne = 1, nl = 0;
    for (uint32_t i = 0; i < schema->nfields; i++)
        count_field(&schema->fields[i], &ne, &nl);
    sbuild b;
    memset(&b, 0, sizeof b);
    b.a = a;
    b.err = err;
    b.elems = fl_arena_calloc(a, ne, sizeof *b.elems);
    b.leaves = fl_arena_calloc(a, nl ? nl : 1, sizeof *b.leaves);
    if (!b.elems || !b.leaves)
        return fl_errorf(err, FL_ENOMEM, "out of memory building the Parquet schema");
    fl_pq_schema_element *root = new_elem(&b, root_name ? root_name : "schema", FL_PQ_REP_NONE);
    root->num_children = (int32_t)schema->nfields;
    for (uint32_t i = 0; i < schema->nfields; i++) {
        const fl_field *f = &schema->fields[i];
        if (!f->name || !*f->name)
            return fl_errorf(err, FL_EINVAL, "Parquet writer: column %u has no name", i);
        b.top = i;
        FL_TRY(add_field(&b, f, f->name, false, 0, 0, 0, 0, 0));
    }
    out->elems = b.elems;
    out->nelems = b.ne;
    out->leaves = b.leaves;
    out->nleaves = b.nl;
    return FL_OK;
}
