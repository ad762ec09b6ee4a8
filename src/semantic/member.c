/*
 * member.c - query members: a group-by name ("customer__region",
 * "metric_time__month", "order__ordered_at__week", "customer") parsed into
 * an entity path, a member and a grain, and resolved against the measure's
 * semantic model into column SQL (joins added through joins.c). Time
 * members are truncated with date_trunc; grains of a day and coarser are
 * cast to date so every engine prints them alike.
 */
#include <stdio.h>
#include <string.h>

#include "semantic/compile.h"

static bool any_dim(const fl_sem_model *m, const char *name, bool time_only)
{
    for (uint32_t i = 0; i < m->nmodels; i++) {
        const sem_dimension *d = sem_model_dim(&m->models[i], name);
        if (d && (!time_only || !strcmp(d->type, "time")))
            return true;
    }
    return false;
}

static bool any_entity(const fl_sem_model *m, const char *name)
{
    for (uint32_t i = 0; i < m->nmodels; i++)
        if (sem_model_entity(&m->models[i], name))
            return true;
    return false;
}

fl_status sem_parse_gb(sem_ctx *c, const char *text, sem_gb *out)
{
    memset(out, 0, sizeof *out);
    out->name = text;
    const char *parts[16];
    uint32_t n = 0;
    for (const char *p = text;;) {
        const char *sep = strstr(p, "__");
        size_t len = sep ? (size_t)(sep - p) : strlen(p);
        if (n == 16)
            return fl_errorf(c->err, FL_EINVAL, "'%s': more than 16 parts", text);
        parts[n++] = fl_arena_strndup(&c->a, p, len);
        if (!len)
            return fl_errorf(c->err, FL_EINVAL, "'%s': empty name part", text);
        for (size_t i = 0; i < len; i++)
            if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= '0' && p[i] <= '9') || p[i] == '_'))
                return fl_errorf(c->err, FL_EINVAL,
                                 "'%s': names are lowercase letters, digits "
                                 "and '_' joined by '__'",
                                 text);
        if (!sep)
            break;
        p = sep + 2;
    }
    if (n >= 2 && sem_grain_rank(parts[n - 1])) {
        out->grain = parts[--n];
    } else if (n >= 2 &&
               (!strcmp(parts[n - 2], "metric_time") || any_dim(c->m, parts[n - 2], true)) &&
               !any_dim(c->m, parts[n - 1], false)) {
        return fl_errorf(c->err, FL_EINVAL, "'%s': unknown time grain '%s' (%s)", text,
                         parts[n - 1], SEM_GRAINS);
    }
    if (!strcmp(parts[0], "metric_time")) {
        if (n != 1)
            return fl_errorf(c->err, FL_EINVAL,
                             "'%s': metric_time takes only a grain "
                             "(metric_time__month)",
                             text);
        out->metric_time = true;
        return FL_OK;
    }
    out->member = parts[n - 1];
    out->npath = n - 1;
    out->path = fl_arena_calloc(&c->a, n, sizeof(char *));
    for (uint32_t i = 0; i + 1 < n; i++)
        out->path[i] = parts[i];
    return FL_OK;
}

static fl_status time_sql(sem_joins *j, const sem_gb *gb, const sem_dimension *d, uint32_t k,
                          const char **sql, bool *is_date)
{
    sem_ctx *c = j->c;
    char at[512];
    const char *grain = gb->grain ? gb->grain : d->granularity;
    if (sem_grain_rank(grain) < sem_grain_rank(d->granularity))
        return fl_errorf(c->err, FL_EINVAL,
                         "%s%s: '%s': dimension '%s' has granularity %s, so it "
                         "cannot be grouped by the finer grain '%s'",
                         sem_at(&d->at, at, sizeof at), j->why, gb->name, d->name, d->granularity,
                         grain);
    const char *ref = NULL;
    FL_TRY(sem_node_col(j, k, d->expr, &ref));
    *is_date = sem_grain_rank(grain) >= 2;
    if (*is_date)
        *sql = fl_arena_sprintf(&c->a, "CAST(date_trunc('%s', %s) AS date)", grain, ref);
    else
        *sql = fl_arena_sprintf(&c->a, "date_trunc('%s', %s)", grain, ref);
    return FL_OK;
}

fl_status sem_member_sql(sem_joins *j, const sem_gb *gb, const char *agg_time_dim, const char **sql,
                         bool *is_date)
{
    sem_ctx *c = j->c;
    char at[512];
    *is_date = false;
    if (gb->metric_time) {
        const sem_dimension *d = sem_model_dim(j->nodes[0].sm, agg_time_dim);
        return time_sql(j, gb, d, 0, sql, is_date);
    }
    bool entity = gb->entity || (!gb->npath && !gb->grain && !any_dim(c->m, gb->member, false) &&
                                 any_entity(c->m, gb->member));
    uint32_t k = 0;
    FL_TRY(sem_join_to(j, gb->path, gb->npath, gb->member, entity, gb->name, &k));
    const sem_smodel *sm = j->nodes[k].sm;
    if (entity)
        return sem_node_col(j, k, sem_model_entity(sm, gb->member)->expr, sql);
    const sem_dimension *d = sem_model_dim(sm, gb->member);
    if (!strcmp(d->type, "time"))
        return time_sql(j, gb, d, k, sql, is_date);
    if (gb->grain)
        return fl_errorf(c->err, FL_EINVAL,
                         "%s%s: '%s': '%s' is a categorical dimension; it has "
                         "no grain '%s'",
                         sem_at(&d->at, at, sizeof at), j->why, gb->name, d->name, gb->grain);
    return sem_node_col(j, k, d->expr, sql);
}
