/*
 * eval_metrics.c - file-level evaluation of a filter from column metrics
 * (value/null/NaN counts, lower/upper bounds in single-value serialization),
 * and fl_ice_file_match, which combines it with the partition test.
 *
 * Inclusive (may any row match?):
 *   is null      no when null_value_count == 0
 *   not null     no when null_value_count == value_count
 *   < <= > >= =  no when every value is null, or the bounds exclude v
 *   in           no when every literal is outside [lower, upper]
 * Strict (do all rows match?):
 *   is null      null_value_count == value_count
 *   not null     null_value_count == 0
 *   comparisons  null_value_count == 0, no NaN, and the bounds imply the
 *                comparison (e.g. x < v when upper < v)
 * Bounds are read with the *table's* type of the column, so promoted
 * columns whose old files carry int/float bounds compare correctly
 * (fl_ice_value_from_bytes accepts the short encodings). String and binary
 * bounds may be truncated (prefix lower, incremented-prefix upper): both
 * remain valid bounds, so every rule above stays conservative. A bound that
 * is NaN, or that fails to decode, makes the term undecidable (SOME).
 */
#include <math.h>
#include <string.h>

#include "iceberg/scan_internal.h"

static bool is_float(fl_type_id t)
{
    return t == FL_TYPE_FLOAT32 || t == FL_TYPE_FLOAT64;
}

static bool is_nan(const fl_value *v)
{
    return (v->type.id == FL_TYPE_FLOAT32 && isnan(v->v.f32)) ||
           (v->type.id == FL_TYPE_FLOAT64 && isnan(v->v.f64));
}

/* "$file_modified_time" of df, read by opening it (the stores tell it at
 * open). false when there is no FileIO or the open fails: the term then
 * decides nothing. A store that cannot tell gives NULL, as the column. */
static bool file_mtime(const ice_filter *f, const fl_ice_data_file *df, fl_value *v)
{
    fl_file *fh = NULL;
    fl_error e2;
    if (!f->io || fl_fileio_open(f->io, df->file_path, &fh, &e2) != FL_OK)
        return false;
    v->is_null = !fh->has_mtime;
    v->v.i64 = fh->mtime_us;
    fl_file_close(fh);
    return true;
}

/* A term on a metadata column that is one value per file (_file, "$path",
 * _spec_id, "$file_size", "$partition", "$file_modified_time", a field of
 * _partition) decides the whole file; -1 for other columns. */
static int file_constant_term(const ice_filter *f, const ice_term *t, const fl_ice_data_file *df)
{
    fl_value v;
    memset(&v, 0, sizeof v);
    v.type.id = t->field->type.id;
    fl_arena a;
    fl_arena_init(&a, 256);
    const char *pp = NULL;
    switch (t->field_id) {
    case FL_ICE_FIELD_ID_FILE_PATH:
    case FL_ICE_FIELD_ID_TRINO_PATH: pp = df->file_path; break;
    case FL_ICE_FIELD_ID_TRINO_PARTITION:
        pp = f->meta ? ice_partition_text(f->meta, df, &a) : NULL;
        if (!pp) {
            fl_arena_free(&a);
            return -1;
        }
        break;
    case FL_ICE_FIELD_ID_TRINO_FILE_MTIME:
        if (!file_mtime(f, df, &v)) {
            fl_arena_free(&a);
            return -1;
        }
        break;
    case FL_ICE_FIELD_ID_SPEC_ID: v.v.i32 = df->spec_id; break;
    case FL_ICE_FIELD_ID_TRINO_FILE_SIZE: v.v.i64 = df->file_size_in_bytes; break;
    case FL_ICE_FIELD_ID_PARTITION: /* _partition.x: the file's tuple */
        if (!f->meta || t->part_field_id <= 0) {
            fl_arena_free(&a);
            return -1;
        }
        ice_partition_value(f->meta, df, t->part_field_id, &t->field->type, &v);
        break;
    default: fl_arena_free(&a); return -1;
    }
    if (pp) {
        v.v.bytes.ptr = (const uint8_t *)pp;
        v.v.bytes.len = strlen(pp);
    }
    int r = ice_term_holds(t, &v);
    fl_arena_free(&a);
    return r;
}

static fl_ice_match eval_term(const ice_filter *f, const ice_term *t, const fl_ice_data_file *df)
{
    int fc = file_constant_term(f, t, df);
    if (fc >= 0)
        return fc ? FL_ICE_MATCH_ALL : FL_ICE_MATCH_NONE;
    const fl_ice_column_metrics *m = fl_ice_data_file_metrics(df, t->field_id);
    if (!m)
        return FL_ICE_MATCH_SOME;
    int64_t vc = m->value_count, nc = m->null_value_count, nan = m->nan_value_count;
    bool all_null = vc >= 0 && nc >= 0 && vc == nc;
    bool no_null = nc == 0;
    switch (t->op) {
    case FL_CMP_IS_NULL:
        if (no_null)
            return FL_ICE_MATCH_NONE;
        return all_null ? FL_ICE_MATCH_ALL : FL_ICE_MATCH_SOME;
    case FL_CMP_NOT_NULL:
        if (all_null)
            return FL_ICE_MATCH_NONE;
        return no_null ? FL_ICE_MATCH_ALL : FL_ICE_MATCH_SOME;
    default: break;
    }
    if (all_null && vc > 0)
        return FL_ICE_MATCH_NONE;
    fl_value lo, hi;
    fl_error err;
    const fl_type *ty = &t->field->type;
    bool has_lo = m->has_lower &&
                  fl_ice_value_from_bytes(ty, m->lower, m->lower_len, &lo, &err) == FL_OK &&
                  !is_nan(&lo);
    bool has_hi = m->has_upper &&
                  fl_ice_value_from_bytes(ty, m->upper, m->upper_len, &hi, &err) == FL_OK &&
                  !is_nan(&hi);
    bool clean = no_null && (!is_float(ty->id) || nan == 0);
    if (t->op == FL_CMP_IN) {
        if (!has_lo || !has_hi)
            return FL_ICE_MATCH_SOME;
        for (uint32_t i = 0; i < t->nin; i++) {
            const fl_value *v = &t->in_values[i];
            if (v->is_null || is_nan(v))
                continue;
            if (ice_value_cmp(v, &lo) >= 0 && ice_value_cmp(v, &hi) <= 0) {
                if (clean && ice_value_cmp(&lo, &hi) == 0 && ice_value_cmp(v, &lo) == 0)
                    return FL_ICE_MATCH_ALL;
                return FL_ICE_MATCH_SOME;
            }
        }
        return FL_ICE_MATCH_NONE;
    }
    const fl_value *v = &t->value;
    if (v->is_null || is_nan(v))
        return t->op == FL_CMP_NE ? FL_ICE_MATCH_SOME : FL_ICE_MATCH_NONE;
    int cl = has_lo ? ice_value_cmp(v, &lo) : -2; /* v vs lower */
    int ch = has_hi ? ice_value_cmp(v, &hi) : -2; /* v vs upper */
    bool kl = cl != -2, kh = ch != -2;
    switch (t->op) {
    case FL_CMP_EQ:
        if ((kl && cl < 0) || (kh && ch > 0))
            return FL_ICE_MATCH_NONE;
        if (clean && kl && kh && cl == 0 && ch == 0)
            return FL_ICE_MATCH_ALL;
        return FL_ICE_MATCH_SOME;
    case FL_CMP_NE:
        if ((kl && cl < 0) || (kh && ch > 0))
            return clean ? FL_ICE_MATCH_ALL : FL_ICE_MATCH_SOME;
        return FL_ICE_MATCH_SOME;
    case FL_CMP_LT: /* x < v */
        if (kl && cl <= 0)
            return FL_ICE_MATCH_NONE;
        return clean && kh && ch > 0 ? FL_ICE_MATCH_ALL : FL_ICE_MATCH_SOME;
    case FL_CMP_LE:
        if (kl && cl < 0)
            return FL_ICE_MATCH_NONE;
        return clean && kh && ch >= 0 ? FL_ICE_MATCH_ALL : FL_ICE_MATCH_SOME;
    case FL_CMP_GT: /* x > v */
        if (kh && ch >= 0)
            return FL_ICE_MATCH_NONE;
        return clean && kl && cl < 0 ? FL_ICE_MATCH_ALL : FL_ICE_MATCH_SOME;
    case FL_CMP_GE:
        if (kh && ch > 0)
            return FL_ICE_MATCH_NONE;
        return clean && kl && cl <= 0 ? FL_ICE_MATCH_ALL : FL_ICE_MATCH_SOME;
    default: return FL_ICE_MATCH_SOME;
    }
}

fl_ice_match ice_eval_metrics(const ice_filter *f, const fl_ice_data_file *df)
{
    if (!f || f->nterms == 0)
        return FL_ICE_MATCH_ALL;
    fl_ice_match r = FL_ICE_MATCH_ALL;
    for (uint32_t t = 0; t < f->nterms; t++) {
        fl_ice_match m = eval_term(f, &f->terms[t], df);
        if (m == FL_ICE_MATCH_NONE)
            return FL_ICE_MATCH_NONE;
        if (m == FL_ICE_MATCH_SOME)
            r = FL_ICE_MATCH_SOME;
    }
    return r;
}

fl_ice_match ice_file_match(const fl_ice_metadata *m, const ice_filter *f,
                            const fl_ice_data_file *df)
{
    if (!f || f->nterms == 0)
        return FL_ICE_MATCH_ALL;
    const fl_ice_partition_spec *spec = fl_ice_metadata_spec(m, df->spec_id);
    fl_ice_match pm = ice_eval_partition(m, spec, f, df->partition, df->npartition);
    if (pm == FL_ICE_MATCH_NONE)
        return FL_ICE_MATCH_NONE;
    /* per term: ALL from either source */
    bool all = true;
    for (uint32_t t = 0; t < f->nterms; t++) {
        ice_filter one = {.nterms = 1, .terms = &f->terms[t], .meta = f->meta, .io = f->io};
        fl_ice_match mm = eval_term(f, &f->terms[t], df);
        if (mm == FL_ICE_MATCH_NONE)
            return FL_ICE_MATCH_NONE;
        if (mm != FL_ICE_MATCH_ALL &&
            ice_eval_partition(m, spec, &one, df->partition, df->npartition) != FL_ICE_MATCH_ALL)
            all = false;
    }
    return all ? FL_ICE_MATCH_ALL : FL_ICE_MATCH_SOME;
}

fl_ice_match fl_ice_file_match(const fl_ice_metadata *m, const fl_ice_schema *s,
                               const fl_predicate *filter, const fl_ice_data_file *f)
{
    fl_arena a;
    fl_arena_init(&a, 4096);
    ice_filter rf;
    fl_error err;
    fl_ice_match r = FL_ICE_MATCH_SOME;
    if (ice_filter_resolve(filter, &s->schema, false, m, &a, &rf, &err) == FL_OK) {
        rf.meta = m; /* "$partition" decides files; no FileIO for mtimes here */
        r = ice_file_match(m, &rf, f);
    }
    fl_arena_free(&a);
    return r;
}
