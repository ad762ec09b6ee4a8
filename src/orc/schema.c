/*
 * schema.c - the ORC type list (a pre-order flattening of the type tree,
 * column 0 the root struct) mapped to a floe schema; the table is in
 * include/floe/orc.h.
 *
 * Invariants checked here, relied on by the scan: column 0 is the root (a
 * STRUCT, or any other type: then the schema is one field "_col0");
 * every subtype id is greater than its parent's and below the type count;
 * no column is reached twice; nesting is at most ORC_MAX_DEPTH deep; LIST
 * has one subtype, MAP two, primitives none; decimal precision <= 38.
 */
#include <stdlib.h>
#include <string.h>

#include "orc/orc_int.h"

#define ORC_MAX_DEPTH 64

typedef struct map_ctx {
    fl_orc_reader *r;
    uint8_t *seen;
    bool iceberg; /* some type carries iceberg.id */
} map_ctx;

static const char *attr(const fl_orc_type *t, const char *key)
{
    for (uint32_t i = 0; i < t->nattrs; i++)
        if (strcmp(t->attrs[i].key, key) == 0)
            return t->attrs[i].value;
    return NULL;
}

static int32_t field_id(const fl_orc_type *t)
{
    const char *v = attr(t, "iceberg.id");
    if (!v || !*v)
        return 0;
    char *end;
    long x = strtol(v, &end, 10);
    return *end || x <= 0 || x > INT32_MAX ? 0 : (int32_t)x;
}

static fl_status map_type(map_ctx *m, uint32_t col, uint32_t depth, fl_field *out, fl_error *err);

static fl_status map_children(map_ctx *m, uint32_t col, uint32_t depth, fl_type *ft, fl_error *err)
{
    const fl_orc_type *t = &m->r->types[col];
    ft->nchildren = t->nsubtypes;
    ft->children = fl_arena_calloc(&m->r->arena, t->nsubtypes + 1, sizeof(fl_field));
    if (!ft->children)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < t->nsubtypes; i++) {
        fl_field *c = &ft->children[i];
        FL_TRY(map_type(m, t->subtypes[i], depth + 1, c, err));
        c->name = t->kind == FL_ORC_STRUCT ? t->field_names[i]
                  : t->kind == FL_ORC_LIST ? "element"
                  : i == 0                 ? "key"
                                           : "value";
        if (t->kind == FL_ORC_MAP && i == 0)
            c->nullable = false;
    }
    return FL_OK;
}

static fl_status map_primitive(map_ctx *m, const fl_orc_type *t, uint32_t col, fl_type *ft,
                               fl_error *err)
{
    const char *unit = attr(t, "iceberg.timestamp-unit");
    bool micros = unit ? strcmp(unit, "MICROS") == 0 : m->iceberg;
    switch (t->kind) {
    case FL_ORC_BOOLEAN: ft->id = FL_TYPE_BOOLEAN; break;
    case FL_ORC_BYTE:
    case FL_ORC_SHORT:
    case FL_ORC_INT: ft->id = FL_TYPE_INT32; break;
    case FL_ORC_LONG: {
        const char *lt = attr(t, "iceberg.long-type");
        ft->id = lt && strcmp(lt, "TIME") == 0 ? FL_TYPE_TIME : FL_TYPE_INT64;
        break;
    }
    case FL_ORC_FLOAT: ft->id = FL_TYPE_FLOAT32; break;
    case FL_ORC_DOUBLE: ft->id = FL_TYPE_FLOAT64; break;
    case FL_ORC_STRING:
    case FL_ORC_VARCHAR:
    case FL_ORC_CHAR: ft->id = FL_TYPE_STRING; break;
    case FL_ORC_BINARY: {
        const char *bt = attr(t, "iceberg.binary-type");
        const char *len = attr(t, "iceberg.length");
        ft->id = FL_TYPE_BINARY;
        if (bt && strcmp(bt, "UUID") == 0) {
            ft->id = FL_TYPE_UUID;
            ft->fixed_len = 16;
        } else if (bt && strcmp(bt, "FIXED") == 0 && len) {
            long l = strtol(len, NULL, 10);
            if (l > 0 && l <= (1 << 20)) {
                ft->id = FL_TYPE_FIXED;
                ft->fixed_len = (int32_t)l;
            }
        }
        break;
    }
    case FL_ORC_TIMESTAMP: ft->id = micros ? FL_TYPE_TIMESTAMP : FL_TYPE_TIMESTAMP_NS; break;
    case FL_ORC_TIMESTAMP_INSTANT:
        ft->id = micros ? FL_TYPE_TIMESTAMPTZ : FL_TYPE_TIMESTAMPTZ_NS;
        break;
    case FL_ORC_DATE: ft->id = FL_TYPE_DATE; break;
    case FL_ORC_DECIMAL:
        ft->id = FL_TYPE_DECIMAL;
        ft->precision = t->precision ? (int32_t)t->precision : 38;
        ft->scale = (int32_t)t->scale;
        if (ft->precision > 38 || ft->scale > ft->precision)
            return fl_errorf(err, FL_EUNSUPPORTED, "column %u: decimal(%u,%u) is not supported",
                             col, t->precision, t->scale);
        break;
    case FL_ORC_UNION:
        return fl_errorf(err, FL_EUNSUPPORTED, "column %u: ORC uniontype is not supported", col);
    default: return fl_errorf(err, FL_ECORRUPT, "column %u: unexpected type kind", col);
    }
    if (t->nsubtypes)
        return fl_errorf(err, FL_ECORRUPT, "column %u: %s type with %u subtypes", col,
                         fl_orc_kind_name(t->kind), t->nsubtypes);
    return FL_OK;
}

static fl_status map_type(map_ctx *m, uint32_t col, uint32_t depth, fl_field *out, fl_error *err)
{
    fl_orc_reader *r = m->r;
    if (col >= r->ntypes)
        return fl_errorf(err, FL_ECORRUPT, "subtype %u beyond the %u types", col, r->ntypes);
    if (m->seen[col])
        return fl_errorf(err, FL_ECORRUPT, "type %u is used twice in the type tree", col);
    if (depth > ORC_MAX_DEPTH)
        return fl_errorf(err, FL_ELIMIT, "types nest deeper than %d", ORC_MAX_DEPTH);
    m->seen[col] = 1;
    const fl_orc_type *t = &r->types[col];
    for (uint32_t i = 0; i < t->nsubtypes; i++)
        if (t->subtypes[i] <= col)
            return fl_errorf(err, FL_ECORRUPT, "type %u has subtype %u (not after it)", col,
                             t->subtypes[i]);
    memset(out, 0, sizeof *out);
    out->field_id = field_id(t);
    const char *req = attr(t, "iceberg.required");
    out->nullable = !(req && strcmp(req, "true") == 0);
    switch (t->kind) {
    case FL_ORC_STRUCT: out->type.id = FL_TYPE_STRUCT; break;
    case FL_ORC_LIST:
        out->type.id = FL_TYPE_LIST;
        if (t->nsubtypes != 1)
            return fl_errorf(err, FL_ECORRUPT, "list type %u has %u subtypes", col, t->nsubtypes);
        break;
    case FL_ORC_MAP:
        out->type.id = FL_TYPE_MAP;
        if (t->nsubtypes != 2)
            return fl_errorf(err, FL_ECORRUPT, "map type %u has %u subtypes", col, t->nsubtypes);
        break;
    default: return map_primitive(m, t, col, &out->type, err);
    }
    return map_children(m, col, depth, &out->type, err);
}

fl_status orc_build_schema(fl_orc_reader *r, fl_error *err)
{
    if (r->ntypes == 0)
        return fl_errorf(err, FL_ECORRUPT, "the footer has no types");
    map_ctx m = {.r = r, .seen = calloc(r->ntypes, 1)};
    if (!m.seen)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < r->ntypes && !m.iceberg; i++)
        m.iceberg = attr(&r->types[i], "iceberg.id") != NULL;
    fl_field root;
    fl_status rc = map_type(&m, 0, 0, &root, err);
    free(m.seen);
    if (rc != FL_OK)
        return rc;
    bool wrap = r->types[0].kind != FL_ORC_STRUCT; /* a bare root: one column "_col0" */
    r->schema.nfields = wrap ? 1 : root.type.nchildren;
    r->schema.fields = root.type.children;
    r->field_columns = fl_arena_calloc(&r->arena, r->schema.nfields + 1, sizeof(uint32_t));
    if (wrap && r->field_columns) {
        r->schema.fields = fl_arena_calloc(&r->arena, 1, sizeof(fl_field));
        if (!r->schema.fields)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        r->schema.fields[0] = root;
        r->schema.fields[0].name = "_col0";
        return FL_OK; /* field_columns[0] = 0, the root */
    }
    if (!r->field_columns)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < r->schema.nfields; i++)
        r->field_columns[i] = r->types[0].subtypes[i];
    return FL_OK;
}
