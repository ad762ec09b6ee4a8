/*
 * load_latest.c - dbt's latest spec (dbt Core 1.12, Fusion): semantic models
 * declared on `models:` entries with `semantic_model:`, entities and
 * dimensions on their `columns:`, and the model's own `metrics:`; a simple
 * metric there (agg, expr, ...) becomes a measure and a simple metric of
 * the same name, the other types are read as top-level metrics are.
 *
 *   models:
 *     - name: fct_orders                    # the floe table; semantic_model.name renames
 *       semantic_model: {enabled: true}
 *       agg_time_dimension: ordered_at
 *       columns:
 *         - {name: order_id, entity: {type: primary, name: order}}
 *         - {name: ordered_at, granularity: day, dimension: {type: time}}
 *       metrics:
 *         - {name: gross_amount, type: simple, agg: sum}
 */
#include <stdio.h>
#include <string.h>

#include "semantic/load.h"

static bool enabled(sem_doc *d, const yaml_node_t *sm)
{
    if (!sm)
        return false;
    if (sm->type == YAML_SCALAR_NODE) {
        const char *v = sem_scalar(d, sm);
        return v && strcmp(v, "false") && strcmp(v, "no");
    }
    const char *v = sem_scalar(d, sem_map_get(d, sm, "enabled"));
    return !v || (strcmp(v, "false") && strcmp(v, "no"));
}

/* entity: {type, name, expr} or entity: primary */
static fl_status column_entity(sem_doc *d, const yaml_node_t *col, const char *colname,
                               const char *what, sem_entity *e, fl_error *err)
{
    yaml_node_t *en = sem_map_get(d, col, "entity");
    e->name = colname;
    e->expr = colname;
    e->at = (sem_where){d->file, sem_line(en)};
    e->about = (sem_about){"", "", ""};
    if (en->type == YAML_SCALAR_NODE) {
        e->type = sem_scalar(d, en);
    } else {
        const char *n = NULL, *x = NULL;
        FL_TRY(sem_str(d, en, "type", true, what, &e->type, err));
        FL_TRY(sem_str(d, en, "name", false, what, &n, err));
        FL_TRY(sem_str(d, en, "expr", false, what, &x, err));
        e->name = n ? n : e->name;
        e->expr = x ? x : e->expr;
    }
    if (strcmp(e->type, "primary") && strcmp(e->type, "foreign") && strcmp(e->type, "unique") &&
        strcmp(e->type, "natural"))
        return sem_doc_error(d, en, err, what,
                             "unknown entity type '%s' (primary, unique, "
                             "foreign, natural)",
                             e->type);
    if (!sem_name_ok(e->name))
        return sem_doc_error(d, en, err, what, "bad entity name '%s'", e->name);
    return FL_OK;
}

/* dimension: {type, name, expr} or dimension: categorical; granularity on the column */
static fl_status column_dim(sem_doc *d, const yaml_node_t *col, const char *colname,
                            const char *what, sem_dimension *dim, fl_error *err)
{
    yaml_node_t *dn = sem_map_get(d, col, "dimension");
    dim->name = colname;
    dim->expr = colname;
    dim->at = (sem_where){d->file, sem_line(dn)};
    FL_TRY(sem_read_about(d, col, what, &dim->about, err));
    if (dn->type == YAML_SCALAR_NODE) {
        dim->type = sem_scalar(d, dn);
    } else {
        const char *n = NULL, *x = NULL;
        FL_TRY(sem_str(d, dn, "type", true, what, &dim->type, err));
        FL_TRY(sem_str(d, dn, "name", false, what, &n, err));
        FL_TRY(sem_str(d, dn, "expr", false, what, &x, err));
        dim->name = n ? n : dim->name;
        dim->expr = x ? x : dim->expr;
    }
    if (strcmp(dim->type, "categorical") && strcmp(dim->type, "time"))
        return sem_doc_error(d, dn, err, what, "unknown dimension type '%s' (categorical, time)",
                             dim->type);
    if (!sem_name_ok(dim->name))
        return sem_doc_error(d, dn, err, what, "bad dimension name '%s'", dim->name);
    if (!strcmp(dim->type, "time")) {
        FL_TRY(sem_str(d, col, "granularity", false, what, &dim->granularity, err));
        if (!dim->granularity)
            dim->granularity = "day";
        static const char *const grains[] = {"hour", "day", "week", "month", "quarter", "year"};
        bool ok = false;
        for (size_t i = 0; i < 6; i++)
            ok |= !strcmp(dim->granularity, grains[i]);
        if (!ok)
            return sem_doc_error(d, col, err, what, "unknown granularity '%s'", dim->granularity);
    }
    return FL_OK;
}

static fl_status read_columns(sem_doc *d, const yaml_node_t *cols, sem_smodel *sm, fl_error *err)
{
    uint32_t n = sem_seq_len(cols), ne = 0, nd = 0;
    for (uint32_t i = 0; i < n; i++) {
        yaml_node_t *c = sem_seq_item(d, cols, i);
        ne += sem_map_get(d, c, "entity") != NULL;
        nd += sem_map_get(d, c, "dimension") != NULL;
    }
    sm->entities = fl_arena_calloc(d->arena, ne + 1, sizeof *sm->entities);
    sm->dims = fl_arena_calloc(d->arena, nd + 1, sizeof *sm->dims);
    for (uint32_t i = 0; i < n; i++) {
        yaml_node_t *c = sem_seq_item(d, cols, i);
        const char *name = NULL;
        char what[200];
        snprintf(what, sizeof what, "semantic model '%s': column %u", sm->name, i + 1);
        FL_TRY(sem_str(d, c, "name", true, what, &name, err));
        snprintf(what, sizeof what, "semantic model '%s': column '%s'", sm->name, name);
        if (sem_map_get(d, c, "entity"))
            FL_TRY(column_entity(d, c, name, what, &sm->entities[sm->nentities++], err));
        if (sem_map_get(d, c, "dimension"))
            FL_TRY(column_dim(d, c, name, what, &sm->dims[sm->ndims++], err));
    }
    return FL_OK;
}

/* The model's metrics: simple ones are measures too. */
static fl_status read_model_metrics(sem_doc *d, const yaml_node_t *seq, sem_smodel *sm,
                                    const sem_sink *sink, fl_error *err)
{
    uint32_t n = sem_seq_len(seq), nsimple = 0;
    for (uint32_t i = 0; i < n; i++) {
        const char *t = sem_scalar(d, sem_map_get(d, sem_seq_item(d, seq, i), "type"));
        nsimple += !t || !strcmp(t, "simple");
    }
    sm->measures = fl_arena_calloc(d->arena, nsimple + 1, sizeof *sm->measures);
    for (uint32_t i = 0; i < n; i++) {
        yaml_node_t *it = sem_seq_item(d, seq, i);
        if (!it || it->type != YAML_MAPPING_NODE)
            return sem_doc_error(d, it, err, NULL,
                                 "semantic model '%s': a metric must be a "
                                 "mapping",
                                 sm->name);
        const char *t = sem_scalar(d, sem_map_get(d, it, "type"));
        sem_metric *mt = sink->new_metric(sink->ctx, err);
        if (!mt)
            return err->code;
        if (t && strcmp(t, "simple")) {
            FL_TRY(sem_read_metric(d, it, mt, err));
            continue;
        }
        sem_measure *ms = &sm->measures[sm->nmeasures++];
        FL_TRY(sem_read_measure(d, it, sm->name, ms, err));
        char what[160];
        snprintf(what, sizeof what, "metric '%s'", ms->name);
        mt->name = ms->name;
        mt->type_name = "simple";
        mt->type = SEM_SIMPLE;
        mt->at = ms->at;
        mt->measure = (sem_input){.name = ms->name, .at = ms->at};
        mt->about = ms->about;
        FL_TRY(sem_read_filter(d, it, what, &mt->filter, err));
    }
    return FL_OK;
}

fl_status sem_read_latest_models(sem_doc *d, const yaml_node_t *seq, const sem_sink *sink,
                                 fl_error *err)
{
    for (uint32_t i = 0; i < sem_seq_len(seq); i++) {
        yaml_node_t *it = sem_seq_item(d, seq, i);
        yaml_node_t *smn = sem_map_get(d, it, "semantic_model");
        if (!enabled(d, smn))
            continue; /* a plain dbt model (or a time spine): not ours */
        sem_smodel *sm = sink->new_model(sink->ctx, err);
        if (!sm)
            return err->code;
        const char *table = NULL, *rename = NULL;
        FL_TRY(sem_read_name(d, it, "model", &table, err));
        if (smn->type == YAML_MAPPING_NODE)
            FL_TRY(sem_str(d, smn, "name", false, "model", &rename, err));
        sm->name = rename ? rename : table;
        sm->table = table;
        sm->at = (sem_where){d->file, sem_line(it)};
        char what[160];
        snprintf(what, sizeof what, "semantic model '%s'", sm->name);
        FL_TRY(sem_read_about(d, it, what, &sm->about, err));
        FL_TRY(sem_str(d, it, "agg_time_dimension", false, what, &sm->agg_time_dimension, err));
        FL_TRY(read_columns(d, sem_map_get(d, it, "columns"), sm, err));
        FL_TRY(read_model_metrics(d, sem_map_get(d, it, "metrics"), sm, sink, err));
    }
    return FL_OK;
}
