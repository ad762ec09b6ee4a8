/*
 * load_saved.c - dbt's saved_queries: entries: a name, a description and
 * query_params {metrics, group_by, where, order_by, limit}. Group-by and
 * order-by items in dbt's object syntax are turned into floe's member names
 * here: TimeDimension('metric_time', 'month') -> metric_time__month,
 * Dimension('customer__country') -> customer__country,
 * Dimension('metric_time').grain('week') -> metric_time__week,
 * Entity('order') -> order; a leading '-' or .descending(True) orders
 * descending. Where items stay Jinja filter text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/semantic.h"
#include "semantic/load.h"

/* the first quoted text at or after p (NULL when none), *after past it */
static const char *quoted_after(sem_doc *d, const char *p, const char **after)
{
    const char *q = strpbrk(p, "'\"");
    if (!q)
        return NULL;
    const char *e = strchr(q + 1, *q);
    if (!e)
        return NULL;
    *after = e + 1;
    return fl_arena_strndup(d->arena, q + 1, (size_t)(e - q - 1));
}

/* dbt's object syntax -> floe's member name (NULL when it cannot be read) */
static const char *member_name(sem_doc *d, const char *s)
{
    while (*s == ' ')
        s++;
    bool desc = *s == '-';
    if (desc)
        s++;
    if (strstr(s, ".descending(True)") || strstr(s, ".descending(true)"))
        desc = true;
    const char *name = s, *rest = s;
    if (strchr(s, '(')) {
        name = quoted_after(d, s, &rest);
        if (!name)
            return NULL;
        const char *grain = NULL, *r2 = rest;
        if (!strncmp(s, "TimeDimension", 13)) {
            const char *comma = strchr(rest, ',');
            const char *close = strchr(rest, ')');
            if (comma && (!close || comma < close))
                grain = quoted_after(d, comma, &r2);
        }
        const char *g = strstr(rest, ".grain(");
        if (g)
            grain = quoted_after(d, g, &r2);
        if (grain)
            name = fl_arena_sprintf(d->arena, "%s__%s", name, grain);
    } else {
        size_t n = strcspn(s, " ");
        name = fl_arena_strndup(d->arena, s, n);
    }
    return desc ? fl_arena_sprintf(d->arena, "-%s", name) : name;
}

static fl_status read_list(sem_doc *d, const yaml_node_t *params, const char *key, const char *what,
                           bool members, const char ***out, uint32_t *n, fl_error *err)
{
    yaml_node_t *seq = sem_map_get(d, params, key);
    *n = 0;
    *out = NULL;
    if (!seq)
        return FL_OK;
    if (seq->type == YAML_SCALAR_NODE) { /* a single item */
        *out = fl_arena_calloc(d->arena, 1, sizeof(char *));
        (*out)[(*n)++] = members ? member_name(d, sem_scalar(d, seq)) : sem_scalar(d, seq);
        if (!(*out)[0])
            return sem_doc_error(d, seq, err, what, "cannot read %s item", key);
        return FL_OK;
    }
    if (seq->type != YAML_SEQUENCE_NODE)
        return sem_doc_error(d, seq, err, what, "'%s' must be a list", key);
    *out = fl_arena_calloc(d->arena, sem_seq_len(seq) + 1, sizeof(char *));
    for (uint32_t i = 0; i < sem_seq_len(seq); i++) {
        yaml_node_t *it = sem_seq_item(d, seq, i);
        const char *s = sem_scalar(d, it);
        const char *v = s && members ? member_name(d, s) : s;
        if (!v)
            return sem_doc_error(d, it, err, what, "cannot read %s item %u", key, i + 1);
        (*out)[(*n)++] = v;
    }
    return FL_OK;
}

fl_status sem_read_saved(sem_doc *d, const yaml_node_t *n, sem_saved *sq, fl_error *err)
{
    if (n->type != YAML_MAPPING_NODE)
        return sem_doc_error(d, n, err, NULL, "a saved query must be a mapping");
    FL_TRY(sem_read_name(d, n, "saved query", &sq->name, err));
    sq->at = (sem_where){d->file, sem_line(n)};
    char what[160];
    snprintf(what, sizeof what, "saved query '%s'", sq->name);
    FL_TRY(sem_read_about(d, n, what, &sq->about, err));
    yaml_node_t *p = sem_map_get(d, n, "query_params");
    if (!p)
        return sem_doc_error(d, n, err, what, "missing 'query_params'");
    FL_TRY(read_list(d, p, "metrics", what, false, &sq->metrics, &sq->nmetrics, err));
    FL_TRY(read_list(d, p, "group_by", what, true, &sq->group_by, &sq->ngroup_by, err));
    FL_TRY(read_list(d, p, "where", what, false, &sq->where, &sq->nwhere, err));
    FL_TRY(read_list(d, p, "order_by", what, true, &sq->order_by, &sq->norder_by, err));
    const char *limit = NULL;
    FL_TRY(sem_str(d, p, "limit", false, what, &limit, err));
    sq->limit = -1;
    if (limit) {
        char *end = NULL;
        long long v = strtoll(limit, &end, 10);
        if (*end || v < 0)
            return sem_doc_error(d, sem_map_get(d, p, "limit"), err, what,
                                 "limit must be a number of rows, not '%s'", limit);
        sq->limit = v;
    }
    if (!sq->nmetrics)
        return sem_doc_error(d, p, err, what, "needs metrics");
    return FL_OK;
}

fl_status fl_sem_saved_query(const fl_sem_model *m, const char *name, fl_sem_query *out,
                             fl_error *err)
{
    for (uint32_t i = 0; i < m->nsaved; i++) {
        const sem_saved *sq = &m->saved[i];
        if (strcmp(sq->name, name))
            continue;
        *out = (fl_sem_query){.metrics = sq->metrics,
                              .nmetrics = sq->nmetrics,
                              .group_by = sq->group_by,
                              .ngroup_by = sq->ngroup_by,
                              .where = sq->where,
                              .nwhere = sq->nwhere,
                              .order_by = sq->order_by,
                              .norder_by = sq->norder_by,
                              .limit = sq->limit};
        return FL_OK;
    }
    return fl_errorf(err, FL_ENOTFOUND, "unknown saved query '%s' (floe semantic list shows them)",
                     name);
}
