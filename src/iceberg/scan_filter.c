/*
 * scan_filter.c - resolving a filter (predicate.h) against the scan schema
 * and evaluating its terms on single values (the residual filter).
 *
 * Terms name a top-level or nested column by dotted path or by field id
 * (field_id > 0 wins). Literals are cast to the column's type once here
 * (int -> long, long -> decimal, date -> timestamp, ...), so evaluation
 * compares values of one type. A literal that cannot be cast is FL_ETYPE
 * naming the column. NaN: comparisons with NaN are false except != (SQL).
 */
#include <math.h>
#include <string.h>
#include <strings.h>

#include "iceberg/scan_internal.h"

/* Finds a field by dotted path (exact or case-insensitive). */
static const fl_field *find_path(const fl_schema *s, const char *path, bool ci)
{
    const fl_field *fields = s->fields;
    uint32_t n = s->nfields;
    /* whole-name match first: names may contain dots */
    for (uint32_t i = 0; i < n; i++)
        if (ci ? !strcasecmp(fields[i].name, path) : !strcmp(fields[i].name, path))
            return &fields[i];
    const char *p = path;
    const fl_field *f = NULL;
    while (*p) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        f = NULL;
        for (uint32_t i = 0; i < n && !f; i++) {
            const char *nm = fields[i].name;
            if (strlen(nm) == len && (ci ? !strncasecmp(nm, p, len) : !strncmp(nm, p, len)))
                f = &fields[i];
        }
        if (!f)
            return NULL;
        if (!dot)
            return f;
        if (f->type.id != FL_TYPE_STRUCT)
            return NULL;
        fields = f->type.children;
        n = f->type.nchildren;
        p = dot + 1;
    }
    return NULL;
}

/* "_partition.x" (when the table has no column _partition): field x of the
 * _partition metadata column, built for m in a; NULL when there is none. */
static const fl_field *partition_field(const fl_ice_metadata *m, const char *path, bool ci,
                                       fl_arena *a)
{
    static const char prefix[] = "_partition.";
    size_t n = sizeof prefix - 1;
    if (!m || !path || (ci ? strncasecmp(path, prefix, n) : strncmp(path, prefix, n)) != 0)
        return NULL;
    fl_field pc;
    fl_error e2;
    if (fl_ice_partition_column(m, a, &pc, &e2) != FL_OK)
        return NULL;
    fl_schema one = {.nfields = pc.type.nchildren, .fields = pc.type.children};
    return find_path(&one, path + n, ci);
}

fl_status ice_filter_resolve(const fl_predicate *p, const fl_schema *s, bool ci,
                             const fl_ice_metadata *m, fl_arena *a, ice_filter *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    if (!p || p->nterms == 0)
        return FL_OK;
    out->terms = fl_arena_calloc(a, p->nterms, sizeof *out->terms);
    FL_CHECK(out->terms != NULL, err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < p->nterms; i++) {
        const fl_col_pred *cp = &p->terms[i];
        const fl_field *f = cp->field_id > 0 ? fl_schema_find_id(s, cp->field_id)
                                             : find_path(s, cp->column ? cp->column : "", ci);
        if (!f && cp->field_id > 0)
            f = fl_ice_metadata_column(NULL, cp->field_id); /* _file = '...': prunes files */
        const fl_field *pf = f || cp->field_id > 0 ? NULL : partition_field(m, cp->column, ci, a);
        f = pf ? pf : f; /* _partition.x = v: prunes files by their tuples */
        if (!f) {
            if (cp->field_id > 0)
                return fl_errorf(err, FL_ENOTFOUND, "filter: no column with field id %d",
                                 cp->field_id);
            return fl_errorf(err, FL_ENOTFOUND, "filter: no column '%s'",
                             cp->column ? cp->column : "");
        }
        if (fl_type_is_nested(&f->type))
            return fl_errorf(err, FL_EUNSUPPORTED, "filter: column '%s' is nested", f->name);
        ice_term *t = &out->terms[out->nterms++];
        t->field_id = pf ? FL_ICE_FIELD_ID_PARTITION : f->field_id;
        t->part_field_id = pf ? pf->field_id : 0;
        t->field = f;
        t->op = cp->op;
        if (cp->op == FL_CMP_IS_NULL || cp->op == FL_CMP_NOT_NULL)
            continue;
        if (cp->op == FL_CMP_IN) {
            fl_value *vals = fl_arena_calloc(a, cp->nin ? cp->nin : 1, sizeof *vals);
            FL_CHECK(vals != NULL, err, FL_ENOMEM, "out of memory");
            uint32_t k = 0;
            for (uint32_t j = 0; j < cp->nin; j++)
                if (ice_literal_cast(&cp->in_values[j], &f->type, &vals[k]))
                    k++; /* a literal of another type can never equal */
            t->in_values = vals;
            t->nin = k;
            continue;
        }
        if (!ice_literal_cast(&cp->value, &f->type, &t->value)) {
            char tn[64];
            fl_type_format(&f->type, tn, sizeof tn);
            return fl_errorf(err, FL_ETYPE, "filter: literal does not fit column '%s' (%s)",
                             f->name, tn);
        }
    }
    return FL_OK;
}

static bool is_nan(const fl_value *v)
{
    return (v->type.id == FL_TYPE_FLOAT32 && isnan(v->v.f32)) ||
           (v->type.id == FL_TYPE_FLOAT64 && isnan(v->v.f64));
}

bool ice_term_holds(const ice_term *t, const fl_value *v)
{
    switch (t->op) {
    case FL_CMP_IS_NULL: return v->is_null;
    case FL_CMP_NOT_NULL: return !v->is_null;
    default: break;
    }
    if (v->is_null)
        return false;
    if (t->op == FL_CMP_IN) {
        if (is_nan(v))
            return false;
        for (uint32_t i = 0; i < t->nin; i++)
            if (!t->in_values[i].is_null && fl_value_compare(v, &t->in_values[i]) == 0)
                return true;
        return false;
    }
    if (t->value.is_null)
        return false;
    if (is_nan(v) || is_nan(&t->value))
        return t->op == FL_CMP_NE;
    int c = fl_value_compare(v, &t->value);
    switch (t->op) {
    case FL_CMP_EQ: return c == 0;
    case FL_CMP_NE: return c != 0;
    case FL_CMP_LT: return c < 0;
    case FL_CMP_LE: return c <= 0;
    case FL_CMP_GT: return c > 0;
    case FL_CMP_GE: return c >= 0;
    default: return false;
    }
}
