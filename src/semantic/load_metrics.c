/*
 * load_metrics.c - `metrics:` entries of dbt's YAML into sem_metric, in both
 * specs: the older one nests parameters under type_params (measure:,
 * metrics:, cumulative_type_params:, conversion_type_params:), the newer one
 * puts them on the metric (input_metric:, input_metrics:, window: ...).
 * Filters are kept as text (a string, or a list ANDed together); they are
 * resolved by the compiler (filter.c).
 */
#include <stdio.h>
#include <string.h>

#include "semantic/load.h"

fl_status sem_read_filter(sem_doc *d, const yaml_node_t *map, const char *what, const char **out,
                          fl_error *err)
{
    *out = NULL;
    yaml_node_t *f = sem_map_get(d, map, "filter");
    if (!f)
        return FL_OK;
    if (f->type == YAML_SCALAR_NODE) {
        *out = sem_scalar(d, f);
        return FL_OK;
    }
    if (f->type != YAML_SEQUENCE_NODE)
        return sem_doc_error(d, f, err, what, "filter must be text or a list of texts");
    const char *acc = NULL;
    for (uint32_t i = 0; i < sem_seq_len(f); i++) {
        const char *s = sem_scalar(d, sem_seq_item(d, f, i));
        if (!s)
            return sem_doc_error(d, f, err, what, "filter items must be text");
        acc = acc ? fl_arena_sprintf(d->arena, "%s) AND (%s", acc, s) : s;
    }
    *out = acc;
    return FL_OK;
}

/* An input given as a name or as {name, alias, filter, offset_window, offset_to_grain}. */
static fl_status read_input(sem_doc *d, const yaml_node_t *n, const char *what, sem_input *in,
                            fl_error *err)
{
    memset(in, 0, sizeof *in);
    in->at = (sem_where){d->file, sem_line(n)};
    if (n->type == YAML_SCALAR_NODE) {
        in->name = sem_scalar(d, n);
        return FL_OK;
    }
    if (n->type != YAML_MAPPING_NODE)
        return sem_doc_error(d, n, err, what, "an input is a name or a mapping with name:");
    FL_TRY(sem_str(d, n, "name", true, what, &in->name, err));
    FL_TRY(sem_str(d, n, "alias", false, what, &in->alias, err));
    FL_TRY(sem_str(d, n, "offset_window", false, what, &in->offset_window, err));
    FL_TRY(sem_str(d, n, "offset_to_grain", false, what, &in->offset_to_grain, err));
    if (in->offset_window && in->offset_to_grain)
        return sem_doc_error(d, n, err, what,
                             "input '%s' has both offset_window and "
                             "offset_to_grain; give one",
                             in->name);
    return sem_read_filter(d, n, what, &in->filter, err);
}

static fl_status read_input_key(sem_doc *d, const yaml_node_t *p, const char *key, bool required,
                                const char *what, sem_input *in, fl_error *err)
{
    yaml_node_t *n = sem_map_get(d, p, key);
    if (!n) {
        if (required)
            return sem_doc_error(d, p, err, what, "missing '%s'", key);
        memset(in, 0, sizeof *in);
        return FL_OK;
    }
    return read_input(d, n, what, in, err);
}

static fl_status read_type(sem_doc *d, const yaml_node_t *n, sem_metric *mt, const char *what,
                           fl_error *err)
{
    static const struct {
        const char *name;
        sem_metric_type type;
    } types[] = {{"simple", SEM_SIMPLE},
                 {"ratio", SEM_RATIO},
                 {"derived", SEM_DERIVED},
                 {"cumulative", SEM_CUMULATIVE},
                 {"conversion", SEM_CONVERSION}};
    FL_TRY(sem_str(d, n, "type", true, what, &mt->type_name, err));
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (!strcmp(mt->type_name, types[i].name))
            mt->type = types[i].type;
    if (!mt->type)
        return sem_doc_error(d, sem_map_get(d, n, "type"), err, what,
                             "unknown type '%s' (simple, ratio, derived, cumulative, conversion)",
                             mt->type_name);
    return FL_OK;
}

static fl_status read_derived(sem_doc *d, const yaml_node_t *p, sem_metric *mt, const char *what,
                              fl_error *err)
{
    FL_TRY(sem_str(d, p, "expr", true, what, &mt->expr, err));
    yaml_node_t *seq = sem_map_get(d, p, "metrics");
    if (!seq)
        seq = sem_map_get(d, p, "input_metrics");
    if (!seq || seq->type != YAML_SEQUENCE_NODE || !sem_seq_len(seq))
        return sem_doc_error(d, seq ? seq : p, err, what,
                             "a derived metric needs a list of metrics (input_metrics:)");
    mt->ninputs = sem_seq_len(seq);
    mt->inputs = fl_arena_calloc(d->arena, mt->ninputs, sizeof *mt->inputs);
    for (uint32_t i = 0; i < mt->ninputs; i++)
        FL_TRY(read_input(d, sem_seq_item(d, seq, i), what, &mt->inputs[i], err));
    return FL_OK;
}

static fl_status read_cumulative(sem_doc *d, const yaml_node_t *p, sem_metric *mt, const char *what,
                                 fl_error *err)
{
    FL_TRY(read_input_key(d, p, "measure", false, what, &mt->measure, err));
    FL_TRY(read_input_key(d, p, "input_metric", false, what, &mt->input_metric, err));
    if (!mt->measure.name && !mt->input_metric.name)
        return sem_doc_error(d, p, err, what,
                             "a cumulative metric needs measure: or input_metric:");
    yaml_node_t *c = sem_map_get(d, p, "cumulative_type_params");
    for (int pass = 0; pass < 2; pass++) {
        const yaml_node_t *src = pass ? c : p;
        const char *w = NULL, *g = NULL, *pa = NULL;
        FL_TRY(sem_str(d, src, "window", false, what, &w, err));
        FL_TRY(sem_str(d, src, "grain_to_date", false, what, &g, err));
        FL_TRY(sem_str(d, src, "period_agg", false, what, &pa, err));
        mt->window = w ? w : mt->window;
        mt->grain_to_date = g ? g : mt->grain_to_date;
        mt->period_agg = pa ? pa : mt->period_agg;
    }
    if (!mt->period_agg)
        mt->period_agg = "first"; /* MetricFlow's default */
    if (strcmp(mt->period_agg, "first") && strcmp(mt->period_agg, "last") &&
        strcmp(mt->period_agg, "average"))
        return sem_doc_error(d, p, err, what, "period_agg must be first, last or average, not '%s'",
                             mt->period_agg);
    if (mt->window && mt->grain_to_date)
        return sem_doc_error(d, p, err, what, "give window or grain_to_date, not both");
    return FL_OK;
}

static fl_status read_conversion(sem_doc *d, const yaml_node_t *p, sem_metric *mt, const char *what,
                                 fl_error *err)
{
    yaml_node_t *c = sem_map_get(d, p, "conversion_type_params");
    const yaml_node_t *src = c ? c : p;
    FL_TRY(sem_str(d, src, "entity", true, what, &mt->conv_entity, err));
    FL_TRY(sem_str(d, src, "calculation", false, what, &mt->conv_calc, err));
    FL_TRY(sem_str(d, src, "window", false, what, &mt->window, err));
    FL_TRY(read_input_key(d, src, c ? "base_measure" : "base_metric", true, what, &mt->numerator,
                          err));
    return read_input_key(d, src, c ? "conversion_measure" : "conversion_metric", true, what,
                          &mt->denominator, err);
}

fl_status sem_read_metric(sem_doc *d, const yaml_node_t *n, sem_metric *mt, fl_error *err)
{
    if (n->type != YAML_MAPPING_NODE)
        return sem_doc_error(d, n, err, NULL, "a metric must be a mapping");
    FL_TRY(sem_read_name(d, n, "metric", &mt->name, err));
    mt->at = (sem_where){d->file, sem_line(n)};
    char what[160];
    snprintf(what, sizeof what, "metric '%s'", mt->name);
    FL_TRY(read_type(d, n, mt, what, err));
    FL_TRY(sem_read_about(d, n, what, &mt->about, err));
    FL_TRY(sem_read_filter(d, n, what, &mt->filter, err));
    yaml_node_t *tp = sem_map_get(d, n, "type_params");
    const yaml_node_t *p = tp ? tp : n; /* older spec : newer spec */
    switch (mt->type) {
    case SEM_SIMPLE:
        if (!sem_map_get(d, p, "measure") && sem_map_get(d, p, "agg"))
            return sem_doc_error(d, p, err, what,
                                 "a simple metric with agg: belongs to a model's metrics: in the "
                                 "latest spec, which floe does not read yet; use a measure");
        return read_input_key(d, p, "measure", true, what, &mt->measure, err);
    case SEM_RATIO:
        FL_TRY(read_input_key(d, p, "numerator", true, what, &mt->numerator, err));
        return read_input_key(d, p, "denominator", true, what, &mt->denominator, err);
    case SEM_DERIVED: return read_derived(d, p, mt, what, err);
    case SEM_CUMULATIVE: return read_cumulative(d, p, mt, what, err);
    case SEM_CONVERSION: return read_conversion(d, p, mt, what, err);
    }
    return FL_OK;
}
