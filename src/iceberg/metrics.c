/*
 * metrics.c - data-file column metrics from what the Parquet writer reported
 * (spec "Manifests": column_sizes, value_counts, null_value_counts,
 * nan_value_counts, lower_bounds, upper_bounds), with Java's metrics
 * configuration (MetricsConfig + ParquetMetrics):
 *
 * - Modes: none | counts | truncate(N) | full (case-insensitive; an invalid
 *   value falls back to the default, as Java logs and ignores it).
 * - write.metadata.metrics.default sets the default for every column. When it
 *   is absent the default is truncate(16), unless the schema has more than
 *   write.metadata.metrics.max-inferred-column-defaults (100) fields: then
 *   only the first 100 primitive fields, breadth-first by struct level, get
 *   truncate(16) and all others none.
 * - write.metadata.metrics.column.<dotted column name> overrides one column
 *   (list elements are "<list>.element", map entries "<map>.key"/".value").
 * - none: nothing, not even the column size. counts: column size, value,
 *   null and NaN counts. truncate(N): plus bounds, strings and binary
 *   truncated (truncate.c). full: untruncated bounds.
 * - Columns inside lists or maps only get their column size (Java keeps no
 *   counts or bounds for repeated fields). NaN counts exist for float and
 *   double columns; NaN is never a bound.
 * - Bounds use the single-value serialization (spec Appendix D).
 *
 * Not applied (the signature has no sort order): Java's promotion of
 * sort-order columns to at least truncate(16).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "floe/iceberg.h"
#include "iceberg/manifest_int.h"

typedef enum { M_NONE, M_COUNTS, M_TRUNCATE, M_FULL } mode_kind;

typedef struct mode {
    mode_kind kind;
    uint32_t width;
} mode;

static bool parse_mode(const char *s, mode *out)
{
    if (!strcasecmp(s, "none"))
        *out = (mode){M_NONE, 0};
    else if (!strcasecmp(s, "counts"))
        *out = (mode){M_COUNTS, 0};
    else if (!strcasecmp(s, "full"))
        *out = (mode){M_FULL, 0};
    else if (!strncasecmp(s, "truncate(", 9)) {
        const char *p = s + 9;
        uint64_t n = 0;
        if (*p < '0' || *p > '9')
            return false;
        while (*p >= '0' && *p <= '9') {
            n = n * 10 + (uint64_t)(*p++ - '0');
            if (n > INT32_MAX)
                return false;
        }
        if (p[0] != ')' || p[1] || n == 0)
            return false;
        *out = (mode){M_TRUNCATE, (uint32_t)n};
    } else
        return false;
    return true;
}

/* One field of the table schema (every level). */
typedef struct node {
    int32_t id;
    const char *name; /* dotted, arena */
    const fl_type *type;
    int depth;     /* struct nesting level, for the breadth-first limit */
    bool repeated; /* inside a list or map */
    bool primitive;
    bool inferred; /* in the first max-inferred primitive fields */
} node;

typedef struct walk {
    fl_arena *a;
    node *nodes;
    uint32_t n, cap;
    bool oom;
} walk;

static void add_node(walk *w, int32_t id, const char *name, const fl_type *t, int depth, bool rep)
{
    if (w->n == w->cap) {
        uint32_t nc = w->cap ? w->cap * 2 : 64;
        node *nn = realloc(w->nodes, nc * sizeof *nn);
        if (!nn) {
            w->oom = true;
            return;
        }
        w->nodes = nn;
        w->cap = nc;
    }
    w->nodes[w->n++] = (node){id, name, t, depth, rep, !fl_type_is_nested(t), false};
}

static void walk_type(walk *w, const fl_type *t, const char *prefix, int depth, bool rep);

static void walk_field(walk *w, const fl_field *f, const char *prefix, int depth, bool rep)
{
    const char *name = prefix ? fl_arena_sprintf(w->a, "%s.%s", prefix, f->name ? f->name : "")
                              : fl_arena_strdup(w->a, f->name ? f->name : "");
    if (!name) {
        w->oom = true;
        return;
    }
    add_node(w, f->field_id, name, &f->type, depth, rep);
    walk_type(w, &f->type, name, depth + 1, rep);
}

static void walk_type(walk *w, const fl_type *t, const char *prefix, int depth, bool rep)
{
    if (depth > 64) /* schemas are parsed with a depth limit; stay safe anyway */
        return;
    bool r = rep || t->id == FL_TYPE_LIST || t->id == FL_TYPE_MAP;
    for (uint32_t i = 0; i < t->nchildren; i++)
        walk_field(w, &t->children[i], prefix, depth, r);
}

static node *find_node(walk *w, int32_t id)
{
    for (uint32_t i = 0; i < w->n; i++)
        if (w->nodes[i].id == id)
            return &w->nodes[i];
    return NULL;
}

/* Java's limitFieldIds: the primitive fields of each struct level first,
 * then its children, until `limit` ids are taken. Approximated here by
 * taking primitive fields in order of nesting depth, then schema order. */
static void mark_inferred(walk *w, uint32_t limit)
{
    uint32_t taken = 0;
    for (int depth = 0; taken < limit && depth <= 64; depth++)
        for (uint32_t i = 0; i < w->n && taken < limit; i++)
            if (w->nodes[i].depth == depth && w->nodes[i].primitive) {
                w->nodes[i].inferred = true;
                taken++;
            }
}

#define PROP_DEFAULT "write.metadata.metrics.default"
#define PROP_COLUMN "write.metadata.metrics.column."
#define PROP_MAX_INFERRED "write.metadata.metrics.max-inferred-column-defaults"

static mode column_mode(const fl_ice_map *props, const node *nd, mode dflt, bool limited)
{
    static const mode k_default = {M_TRUNCATE, 16};
    size_t plen = strlen(PROP_COLUMN);
    for (uint32_t i = 0; props && i < props->n; i++) {
        const char *k = props->items[i].key;
        if (!strncmp(k, PROP_COLUMN, plen) && !strcmp(k + plen, nd->name)) {
            mode m;
            return parse_mode(props->items[i].value, &m) ? m : dflt;
        }
    }
    if (limited && nd->inferred)
        return k_default;
    return dflt;
}

static bool is_nan(const fl_value *v)
{
    return (v->type.id == FL_TYPE_FLOAT32 && isnan(v->v.f32)) ||
           (v->type.id == FL_TYPE_FLOAT64 && isnan(v->v.f64));
}

static fl_status bound(const fl_value *v, const fl_type *t, mode md, bool upper, fl_arena *a,
                       bool *has, const uint8_t **out, uint32_t *out_len, fl_error *err)
{
    *has = false;
    if (v->is_null || is_nan(v))
        return FL_OK;
    uint8_t tmp[16];
    const uint8_t *p;
    size_t n;
    FL_TRY(fl_ice_value_to_bytes(v, tmp, sizeof tmp, &p, &n, err));
    if (n > UINT32_MAX)
        return fl_errorf(err, FL_ELIMIT, "bound too long");
    bool ok;
    uint32_t width = md.kind == M_TRUNCATE ? md.width : UINT32_MAX;
    if (upper)
        ok = fl_ice_truncate_upper(t, p, (uint32_t)n, width, a, out, out_len);
    else
        ok = fl_ice_truncate_lower(t, p, (uint32_t)n, width, a, out, out_len);
    *has = ok; /* an upper bound that cannot be incremented is dropped */
    return FL_OK;
}

static int cmp_metrics(const void *x, const void *y)
{
    const fl_ice_column_metrics *a = x, *b = y;
    return a->field_id < b->field_id ? -1 : a->field_id > b->field_id;
}

fl_status fl_ice_metrics_from_parquet(const fl_parquet_file_result *r, const fl_schema *s,
                                      const fl_ice_map *table_properties, fl_arena *a,
                                      fl_ice_column_metrics **out, uint32_t *n, fl_error *err)
{
    *out = NULL;
    *n = 0;
    walk w = {.a = a};
    for (uint32_t i = 0; i < s->nfields; i++)
        walk_field(&w, &s->fields[i], NULL, 0, false);
    if (w.oom) {
        free(w.nodes);
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    mode dflt = {M_TRUNCATE, 16};
    bool limited = false;
    const char *dv = table_properties ? fl_ice_map_get(table_properties, PROP_DEFAULT) : NULL;
    if (dv) {
        if (!parse_mode(dv, &dflt))
            dflt = (mode){M_TRUNCATE, 16};
    } else {
        long max = 100;
        const char *mv =
            table_properties ? fl_ice_map_get(table_properties, PROP_MAX_INFERRED) : NULL;
        if (mv) {
            char *end;
            long v = strtol(mv, &end, 10);
            if (*mv && !*end && v >= 0)
                max = v;
        }
        uint32_t counted = 0; /* primitive and struct fields, as Java's getProjectedIds */
        for (uint32_t i = 0; i < w.n; i++)
            counted += w.nodes[i].primitive || w.nodes[i].type->id == FL_TYPE_STRUCT;
        if (counted > (uint64_t)max) {
            limited = true;
            dflt = (mode){M_NONE, 0};
            mark_inferred(&w, (uint32_t)max);
        }
    }
    fl_ice_column_metrics *ms = fl_arena_calloc(a, r->ncolumns ? r->ncolumns : 1, sizeof *ms);
    if (!ms) {
        free(w.nodes);
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    uint32_t k = 0;
    fl_status rc = FL_OK;
    for (uint32_t i = 0; i < r->ncolumns && rc == FL_OK; i++) {
        const fl_parquet_column_result *c = &r->columns[i];
        const node *nd = c->field_id > 0 ? find_node(&w, c->field_id) : NULL;
        if (!nd)
            continue; /* columns without an id (or not in the schema) get no metrics */
        mode md = column_mode(table_properties, nd, dflt, limited);
        if (md.kind == M_NONE)
            continue;
        fl_ice_column_metrics *m = &ms[k++];
        m->field_id = c->field_id;
        m->column_size = c->compressed_size;
        m->value_count = m->null_value_count = m->nan_value_count = -1;
        if (nd->repeated)
            continue;
        m->value_count = c->value_count;
        m->null_value_count = c->null_count;
        bool fp = nd->type->id == FL_TYPE_FLOAT32 || nd->type->id == FL_TYPE_FLOAT64;
        m->nan_value_count = fp ? (c->nan_count >= 0 ? c->nan_count : -1) : -1;
        if (md.kind == M_COUNTS || !c->has_bounds)
            continue;
        rc = bound(&c->lower, nd->type, md, false, a, &m->has_lower, &m->lower, &m->lower_len, err);
        if (rc == FL_OK)
            rc = bound(&c->upper, nd->type, md, true, a, &m->has_upper, &m->upper, &m->upper_len,
                       err);
        if (rc)
            fl_error_prefix(err, "column '%s'", nd->name);
    }
    free(w.nodes);
    if (rc)
        return rc;
    qsort(ms, k, sizeof *ms, cmp_metrics);
    *out = ms;
    *n = k;
    return FL_OK;
}
