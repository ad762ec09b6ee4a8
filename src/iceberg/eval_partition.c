/*
 * eval_partition.c - inclusive projection of a row filter onto partition
 * values (spec "Scan Planning"; digest 3.6), used to skip manifests by their
 * partition summaries and data files by their partition tuples.
 *
 * For a term `col op v` and a partition field f = T(col):
 *   identity                 same op and literal
 *   bucket[N]                = -> = b(v); in -> in {b(v)}; else none
 *   truncate (int/long/dec),
 *   year/month/day/hour      < v -> <= T(v-1); <= v -> <= T(v); > v -> >= T(v+1);
 *                            >= v -> >= T(v); = -> = T(v); in -> in T(vs); != none
 *   truncate (string/binary) < / <= -> <= T(v); > / >= -> >= T(v); = -> = T(v)
 *   void / unknown           none
 * Null tests pass through every transform except void/unknown (T(null) is
 * null). "none" means the term cannot prune with this field.
 * v-1 / v+1 are one unit of the source type: 1 (ints, unscaled decimals),
 * one day (date), one micro/nanosecond (timestamps). When the +-1 overflows,
 * the term is not projected.
 */
#include <string.h>

#include "iceberg/scan_internal.h"

typedef struct proj {
    bool ok;
    fl_cmp_op op;
    fl_value v; /* transformed literal */
    fl_value in[64];
    uint32_t nin;
} proj;

static bool step(const fl_value *in, int dir, fl_value *out)
{
    *out = *in;
    switch (in->type.id) {
    case FL_TYPE_INT32:
    case FL_TYPE_DATE:
        if ((dir < 0 && in->v.i32 == INT32_MIN) || (dir > 0 && in->v.i32 == INT32_MAX))
            return false;
        out->v.i32 += dir;
        return true;
    case FL_TYPE_INT64:
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ:
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS:
        if ((dir < 0 && in->v.i64 == INT64_MIN) || (dir > 0 && in->v.i64 == INT64_MAX))
            return false;
        out->v.i64 += dir;
        return true;
    case FL_TYPE_DECIMAL: out->v.dec += dir; return true;
    default: return false;
    }
}

static bool apply(const fl_ice_transform *t, const fl_value *in, fl_value *out)
{
    fl_error err;
    return fl_ice_transform_apply(t, in, out, &err) == FL_OK;
}

/* Projects term tm through transform t (source type = tm's field type). */
static void project(const ice_term *tm, const fl_ice_transform *t, proj *p)
{
    memset(p, 0, sizeof *p);
    if (t->kind == FL_ICE_TRANSFORM_VOID || t->kind == FL_ICE_TRANSFORM_UNKNOWN)
        return;
    if (tm->op == FL_CMP_IS_NULL || tm->op == FL_CMP_NOT_NULL) {
        p->ok = true;
        p->op = tm->op;
        return;
    }
    if (tm->op == FL_CMP_IN) {
        if (tm->nin > 64)
            return;
        for (uint32_t i = 0; i < tm->nin; i++)
            if (!apply(t, &tm->in_values[i], &p->in[i]))
                return;
        p->nin = tm->nin;
        p->ok = true;
        p->op = FL_CMP_IN;
        return;
    }
    if (tm->op == FL_CMP_NE)
        return;
    if (t->kind == FL_ICE_TRANSFORM_IDENTITY) {
        p->ok = true;
        p->op = tm->op;
        p->v = tm->value;
        return;
    }
    if (t->kind == FL_ICE_TRANSFORM_BUCKET) {
        if (tm->op != FL_CMP_EQ)
            return;
        p->ok = apply(t, &tm->value, &p->v);
        p->op = FL_CMP_EQ;
        return;
    }
    bool bytes = fl_type_is_varlen(&tm->value.type) || tm->value.type.id == FL_TYPE_FIXED;
    fl_value lit = tm->value;
    switch (tm->op) {
    case FL_CMP_EQ: p->op = FL_CMP_EQ; break;
    case FL_CMP_LE: p->op = FL_CMP_LE; break;
    case FL_CMP_GE: p->op = FL_CMP_GE; break;
    case FL_CMP_LT:
        p->op = FL_CMP_LE;
        if (!bytes && !step(&tm->value, -1, &lit))
            return;
        break;
    case FL_CMP_GT:
        p->op = FL_CMP_GE;
        if (!bytes && !step(&tm->value, +1, &lit))
            return;
        break;
    default: return;
    }
    p->ok = apply(t, &lit, &p->v);
}

static const fl_type *source_type(const fl_ice_metadata *m, int32_t id)
{
    for (uint32_t i = 0; i < m->nschemas; i++) {
        const fl_field *f = fl_schema_find_id(&m->schemas[i].schema, id);
        if (f)
            return &f->type;
    }
    return NULL;
}

/* May a partition value x satisfy projected p? */
static bool holds(const proj *p, const fl_value *x)
{
    if (p->op == FL_CMP_IS_NULL)
        return x->is_null;
    if (p->op == FL_CMP_NOT_NULL)
        return !x->is_null;
    if (x->is_null)
        return false;
    if (p->op == FL_CMP_IN) {
        for (uint32_t i = 0; i < p->nin; i++)
            if (!p->in[i].is_null && ice_value_cmp(x, &p->in[i]) == 0)
                return true;
        return false;
    }
    if (p->v.is_null)
        return false;
    int c = ice_value_cmp(x, &p->v);
    if (c == -2)
        return true;
    switch (p->op) {
    case FL_CMP_EQ: return c == 0;
    case FL_CMP_LT: return c < 0;
    case FL_CMP_LE: return c <= 0;
    case FL_CMP_GT: return c > 0;
    case FL_CMP_GE: return c >= 0;
    default: return true;
    }
}

fl_ice_match ice_eval_partition(const fl_ice_metadata *m, const fl_ice_partition_spec *spec,
                                const ice_filter *f, const fl_value *partition, uint32_t npartition)
{
    if (!spec || !f)
        return FL_ICE_MATCH_SOME;
    bool all = f->nterms > 0;
    for (uint32_t t = 0; t < f->nterms; t++) {
        const ice_term *tm = &f->terms[t];
        bool term_all = false;
        for (uint32_t k = 0; k < spec->nfields && k < npartition; k++) {
            const fl_ice_partition_field *pf = &spec->fields[k];
            if (pf->nsource_ids > 1 || pf->source_id != tm->field_id)
                continue;
            fl_ice_transform tr;
            fl_error err;
            if (fl_ice_transform_parse(pf->transform, &tr, &err) != FL_OK)
                continue;
            proj p;
            project(tm, &tr, &p);
            if (p.ok && !holds(&p, &partition[k]))
                return FL_ICE_MATCH_NONE;
            /* identity: the partition value is every row's value */
            if (tr.kind == FL_ICE_TRANSFORM_IDENTITY && partition[k].type.id == tm->field->type.id)
                term_all |= ice_term_holds(tm, &partition[k]);
        }
        all &= term_all;
    }
    return all ? FL_ICE_MATCH_ALL : FL_ICE_MATCH_SOME;
}

/* Can any partition in [lower, upper] (with contains_null) satisfy p? */
static bool summary_may(const proj *p, const fl_ice_field_summary *s, const fl_type *rt)
{
    bool nulls_only = s->contains_null && !s->has_lower && !s->has_upper &&
                      !(s->has_contains_nan && s->contains_nan);
    if (p->op == FL_CMP_IS_NULL)
        return s->contains_null;
    if (p->op == FL_CMP_NOT_NULL)
        return !nulls_only;
    if (nulls_only)
        return false;
    if (!s->has_lower || !s->has_upper)
        return true;
    fl_value lo, hi;
    fl_error err;
    if (fl_ice_value_from_bytes(rt, s->lower, s->lower_len, &lo, &err) != FL_OK ||
        fl_ice_value_from_bytes(rt, s->upper, s->upper_len, &hi, &err) != FL_OK)
        return true;
    if (p->op == FL_CMP_IN) {
        for (uint32_t i = 0; i < p->nin; i++) {
            int a = ice_value_cmp(&p->in[i], &lo), b = ice_value_cmp(&p->in[i], &hi);
            if (a == -2 || b == -2 || (a >= 0 && b <= 0))
                return true;
        }
        return false;
    }
    if (p->v.is_null)
        return false;
    int cl = ice_value_cmp(&p->v, &lo), ch = ice_value_cmp(&p->v, &hi);
    if (cl == -2 || ch == -2)
        return true;
    switch (p->op) {
    case FL_CMP_EQ: return cl >= 0 && ch <= 0;
    case FL_CMP_LT: return cl > 0;  /* some x < v: lo < v */
    case FL_CMP_LE: return cl >= 0; /* lo <= v */
    case FL_CMP_GT: return ch < 0;  /* hi > v */
    case FL_CMP_GE: return ch <= 0; /* hi >= v */
    default: return true;
    }
}

bool ice_eval_manifest(const fl_ice_metadata *m, const fl_ice_partition_spec *spec,
                       const ice_filter *f, const fl_ice_manifest_file *mf)
{
    if (!spec || !f || f->nterms == 0 || mf->npartitions == 0)
        return true;
    for (uint32_t t = 0; t < f->nterms; t++) {
        const ice_term *tm = &f->terms[t];
        for (uint32_t k = 0; k < spec->nfields && k < mf->npartitions; k++) {
            const fl_ice_partition_field *pf = &spec->fields[k];
            if (pf->nsource_ids > 1 || pf->source_id != tm->field_id)
                continue;
            fl_ice_transform tr;
            fl_error err;
            if (fl_ice_transform_parse(pf->transform, &tr, &err) != FL_OK)
                continue;
            const fl_type *st = source_type(m, pf->source_id);
            fl_type rt;
            if (!st || fl_ice_transform_result_type(&tr, st, &rt, &err) != FL_OK)
                continue;
            proj p;
            project(tm, &tr, &p);
            if (p.ok && !summary_may(&p, &mf->partitions[k], &rt))
                return false;
        }
    }
    return true;
}
