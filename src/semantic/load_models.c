/*
 * load_models.c - `semantic_models:` entries of dbt's YAML into sem_smodel:
 * the relation (model: ref('t'), node_relation, or floe's sql:), defaults,
 * entities, dimensions and measures, each with its file and line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "semantic/load.h"

bool sem_name_ok(const char *s)
{
    if (!s || !(*s >= 'a' && *s <= 'z'))
        return false;
    for (const char *p = s; *p; p++) {
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
            return false;
        if (p[0] == '_' && p[1] == '_')
            return false;
    }
    return true;
}

fl_status sem_read_name(sem_doc *d, const yaml_node_t *map, const char *kind, const char **out,
                        fl_error *err)
{
    FL_TRY(sem_str(d, map, "name", true, kind, out, err));
    if (!sem_name_ok(*out))
        return sem_doc_error(d, sem_map_get(d, map, "name"), err, kind,
                             "bad name '%s' (lowercase letters, digits and '_', starting with a "
                             "letter, no '__')",
                             *out);
    return FL_OK;
}

fl_status sem_read_about(sem_doc *d, const yaml_node_t *map, const char *what, sem_about *a,
                         fl_error *err)
{
    a->description = a->ai_context = a->meta = "";
    const char *s = NULL;
    FL_TRY(sem_str(d, map, "description", false, what, &s, err));
    if (s)
        a->description = s;
    yaml_node_t *meta = sem_map_get(d, map, "meta");
    if (!meta)
        meta = sem_map_get(d, sem_map_get(d, map, "config"), "meta");
    if (meta)
        FL_TRY(sem_doc_json(d, meta, &a->meta, err));
    FL_TRY(sem_str(d, map, "ai_context", false, what, &s, err));
    if (!s && meta && meta->type == YAML_MAPPING_NODE)
        FL_TRY(sem_str(d, meta, "ai_context", false, what, &s, err));
    if (s)
        a->ai_context = s;
    return FL_OK;
}

/* "ref('orders')", "{{ ref('orders') }}", "ref('pkg', 'orders')" -> orders;
 * anything else is taken as a table name as it is. */
static const char *relation_of_ref(fl_arena *a, const char *s)
{
    const char *r = strstr(s, "ref(");
    if (!r)
        return s;
    const char *close = strchr(r, ')');
    if (!close)
        return NULL;
    const char *q = close;
    while (q > r && *q != '\'' && *q != '"')
        q--; /* last quote before ')' */
    if (q <= r)
        return NULL;
    const char *open = q - 1;
    while (open > r && *open != *q)
        open--;
    if (open <= r + 3 || q - open < 2)
        return NULL;
    return fl_arena_strndup(a, open + 1, (size_t)(q - open - 1));
}

static fl_status read_relation(sem_doc *d, const yaml_node_t *map, sem_smodel *sm, fl_error *err)
{
    char what[160];
    snprintf(what, sizeof what, "semantic model '%s'", sm->name);
    const char *model = NULL;
    FL_TRY(sem_str(d, map, "model", false, what, &model, err));
    FL_TRY(sem_str(d, map, "sql", false, what, &sm->sql, err));
    yaml_node_t *nr = sem_map_get(d, map, "node_relation");
    if (model) {
        sm->table = relation_of_ref(d->arena, model);
        if (!sm->table || !*sm->table)
            return sem_doc_error(d, sem_map_get(d, map, "model"), err, what,
                                 "cannot read the table name in model '%s' (ref('name') or a "
                                 "table name)",
                                 model);
    } else if (nr) {
        const char *alias = NULL, *schema = NULL, *rel = NULL;
        FL_TRY(sem_str(d, nr, "alias", false, what, &alias, err));
        FL_TRY(sem_str(d, nr, "schema_name", false, what, &schema, err));
        FL_TRY(sem_str(d, nr, "relation_name", false, what, &rel, err));
        if (alias)
            sm->table = schema ? fl_arena_sprintf(d->arena, "%s.%s", schema, alias) : alias;
        else
            sm->table = rel;
        if (!sm->table)
            return sem_doc_error(d, nr, err, what, "node_relation needs alias or relation_name");
    }
    if (!sm->table && !sm->sql)
        return sem_doc_error(d, map, err, what, "needs model: ref('table'), node_relation or sql");
    if (sm->table && sm->sql)
        return sem_doc_error(d, map, err, what, "has both a table and sql; give one");
    return FL_OK;
}

static fl_status read_entity(sem_doc *d, const yaml_node_t *n, const char *smname, void *out,
                             fl_error *err)
{
    sem_entity *e = out;
    FL_TRY(sem_read_name(d, n, "entity", &e->name, err));
    char what[200];
    snprintf(what, sizeof what, "semantic model '%s': entity '%s'", smname, e->name);
    FL_TRY(sem_str(d, n, "type", true, what, &e->type, err));
    if (strcmp(e->type, "primary") && strcmp(e->type, "foreign") && strcmp(e->type, "unique") &&
        strcmp(e->type, "natural"))
        return sem_doc_error(d, sem_map_get(d, n, "type"), err, what,
                             "unknown type '%s' (primary, unique, foreign, natural)", e->type);
    FL_TRY(sem_str(d, n, "expr", false, what, &e->expr, err));
    if (!e->expr)
        e->expr = e->name;
    e->at = (sem_where){d->file, sem_line(n)};
    return sem_read_about(d, n, what, &e->about, err);
}

static bool grain_known(const char *g)
{
    static const char *const grains[] = {"hour", "day", "week", "month", "quarter", "year"};
    for (size_t i = 0; i < sizeof grains / sizeof grains[0]; i++)
        if (!strcmp(g, grains[i]))
            return true;
    return false;
}

static fl_status read_dimension(sem_doc *d, const yaml_node_t *n, const char *smname, void *out,
                                fl_error *err)
{
    sem_dimension *dim = out;
    FL_TRY(sem_read_name(d, n, "dimension", &dim->name, err));
    char what[200];
    snprintf(what, sizeof what, "semantic model '%s': dimension '%s'", smname, dim->name);
    FL_TRY(sem_str(d, n, "type", true, what, &dim->type, err));
    if (strcmp(dim->type, "categorical") && strcmp(dim->type, "time"))
        return sem_doc_error(d, sem_map_get(d, n, "type"), err, what,
                             "unknown type '%s' (categorical, time)", dim->type);
    FL_TRY(sem_str(d, n, "expr", false, what, &dim->expr, err));
    if (!dim->expr)
        dim->expr = dim->name;
    if (!strcmp(dim->type, "time")) {
        yaml_node_t *tp = sem_map_get(d, n, "type_params");
        FL_TRY(sem_str(d, tp ? tp : n, tp ? "time_granularity" : "granularity", false, what,
                       &dim->granularity, err));
        if (!dim->granularity)
            dim->granularity = "day";
        if (!grain_known(dim->granularity))
            return sem_doc_error(d, n, err, what,
                                 "unknown time_granularity '%s' (hour, day, week, month, quarter, "
                                 "year)",
                                 dim->granularity);
    }
    dim->at = (sem_where){d->file, sem_line(n)};
    return sem_read_about(d, n, what, &dim->about, err);
}

static bool agg_known(const char *a)
{
    static const char *const aggs[] = {"sum", "count", "count_distinct", "avg",    "average",
                                       "min", "max",   "sum_boolean",    "median", "percentile"};
    for (size_t i = 0; i < sizeof aggs / sizeof aggs[0]; i++)
        if (!strcmp(a, aggs[i]))
            return true;
    return false;
}

static fl_status read_nad(sem_doc *d, const yaml_node_t *n, const char *what, sem_measure *ms,
                          fl_error *err)
{
    yaml_node_t *nad = sem_map_get(d, n, "non_additive_dimension");
    if (!nad)
        return FL_OK;
    FL_TRY(sem_str(d, nad, "name", true, what, &ms->nad_name, err));
    FL_TRY(sem_str(d, nad, "window_choice", false, what, &ms->nad_window_choice, err));
    if (!ms->nad_window_choice)
        FL_TRY(sem_str(d, nad, "window_agg", false, what, &ms->nad_window_choice, err));
    if (!ms->nad_window_choice)
        ms->nad_window_choice = "max";
    if (strcmp(ms->nad_window_choice, "max") && strcmp(ms->nad_window_choice, "min"))
        return sem_doc_error(d, nad, err, what, "window_choice must be min or max, not '%s'",
                             ms->nad_window_choice);
    yaml_node_t *g = sem_map_get(d, nad, "window_groupings");
    if (!g)
        g = sem_map_get(d, nad, "group_by");
    ms->nnad_groupings = sem_seq_len(g);
    ms->nad_groupings = fl_arena_calloc(d->arena, ms->nnad_groupings + 1, sizeof(char *));
    for (uint32_t i = 0; i < ms->nnad_groupings; i++) {
        ms->nad_groupings[i] = sem_scalar(d, sem_seq_item(d, g, i));
        if (!ms->nad_groupings[i])
            return sem_doc_error(d, g, err, what, "window_groupings are entity names");
    }
    return FL_OK;
}

fl_status sem_read_measure(sem_doc *d, const yaml_node_t *n, const char *smname, void *out,
                           fl_error *err)
{
    sem_measure *ms = out;
    FL_TRY(sem_read_name(d, n, "measure", &ms->name, err));
    char what[200];
    snprintf(what, sizeof what, "semantic model '%s': measure '%s'", smname, ms->name);
    FL_TRY(sem_str(d, n, "agg", true, what, &ms->agg, err));
    if (!agg_known(ms->agg))
        return sem_doc_error(d, sem_map_get(d, n, "agg"), err, what,
                             "unknown agg '%s' (sum, count, count_distinct, avg, min, max, "
                             "sum_boolean, median, percentile)",
                             ms->agg);
    if (!strcmp(ms->agg, "average"))
        ms->agg = "avg";
    FL_TRY(sem_str(d, n, "expr", false, what, &ms->expr, err));
    if (!ms->expr)
        ms->expr = ms->name;
    FL_TRY(sem_str(d, n, "agg_time_dimension", false, what, &ms->agg_time_dimension, err));
    yaml_node_t *ap = sem_map_get(d, n, "agg_params");
    if (!strcmp(ms->agg, "percentile")) {
        const char *p = NULL, *disc = NULL;
        FL_TRY(sem_str(d, ap ? ap : n, "percentile", true, what, &p, err));
        char *end = NULL;
        ms->percentile = strtod(p, &end);
        if (*end || !(ms->percentile >= 0 && ms->percentile <= 1))
            return sem_doc_error(d, ap ? ap : n, err, what,
                                 "percentile must be a number from 0 to 1, not '%s'", p);
        FL_TRY(sem_str(d, ap ? ap : n, "use_discrete_percentile", false, what, &disc, err));
        ms->discrete = disc && !strcmp(disc, "true");
    }
    ms->at = (sem_where){d->file, sem_line(n)};
    FL_TRY(read_nad(d, n, what, ms, err));
    return sem_read_about(d, n, what, &ms->about, err);
}

typedef fl_status (*item_reader)(sem_doc *, const yaml_node_t *, const char *, void *, fl_error *);

static fl_status read_list(sem_doc *d, const yaml_node_t *map, const char *key, const char *smname,
                           size_t size, item_reader rd, void **items, uint32_t *n, fl_error *err)
{
    yaml_node_t *seq = sem_map_get(d, map, key);
    if (seq && seq->type != YAML_SEQUENCE_NODE)
        return sem_doc_error(d, seq, err, NULL, "semantic model '%s': '%s' must be a list", smname,
                             key);
    *n = sem_seq_len(seq);
    *items = fl_arena_calloc(d->arena, *n + 1, size);
    for (uint32_t i = 0; i < *n; i++) {
        yaml_node_t *it = sem_seq_item(d, seq, i);
        if (!it || it->type != YAML_MAPPING_NODE)
            return sem_doc_error(d, it, err, NULL,
                                 "semantic model '%s': %s item %u must be a "
                                 "mapping",
                                 smname, key, i + 1);
        FL_TRY(rd(d, it, smname, (char *)*items + i * size, err));
    }
    return FL_OK;
}

fl_status sem_read_smodel(sem_doc *d, const yaml_node_t *n, sem_smodel *sm, fl_error *err)
{
    if (n->type != YAML_MAPPING_NODE)
        return sem_doc_error(d, n, err, NULL, "a semantic model must be a mapping");
    FL_TRY(sem_read_name(d, n, "semantic model", &sm->name, err));
    sm->at = (sem_where){d->file, sem_line(n)};
    char what[160];
    snprintf(what, sizeof what, "semantic model '%s'", sm->name);
    FL_TRY(read_relation(d, n, sm, err));
    FL_TRY(sem_read_about(d, n, what, &sm->about, err));
    FL_TRY(sem_str(d, sem_map_get(d, n, "defaults"), "agg_time_dimension", false, what,
                   &sm->agg_time_dimension, err));
    if (!sm->agg_time_dimension)
        FL_TRY(sem_str(d, n, "agg_time_dimension", false, what, &sm->agg_time_dimension, err));
    FL_TRY(read_list(d, n, "entities", sm->name, sizeof(sem_entity), read_entity,
                     (void **)&sm->entities, &sm->nentities, err));
    FL_TRY(read_list(d, n, "dimensions", sm->name, sizeof(sem_dimension), read_dimension,
                     (void **)&sm->dims, &sm->ndims, err));
    FL_TRY(read_list(d, n, "measures", sm->name, sizeof(sem_measure), sem_read_measure,
                     (void **)&sm->measures, &sm->nmeasures, err));
    return FL_OK;
}
