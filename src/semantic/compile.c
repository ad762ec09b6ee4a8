/*
 * compile.c - a semantic query to one SQL statement: the group-by parsed,
 * each metric compiled to its own CTE (compile_metric.c), the metrics'
 * CTEs full joined on the group-by columns (aggregated first, so combining
 * metrics of different semantic models never fans out), then ORDER BY
 * (the group-by columns when none is asked, so answers are deterministic)
 * and LIMIT.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "semantic/compile.h"

#define MAX_QUERY_MEMBERS 256

/* as_of goes into the SQL as a literal: only the characters of a timestamp */
static bool as_of_ok(const char *s)
{
    if (!*s || strlen(s) > 40)
        return false;
    for (const char *p = s; *p; p++)
        if (!strchr("0123456789-: T.+Z", *p))
            return false;
    return true;
}

static fl_status check_query(sem_ctx *c, const fl_sem_query *q)
{
    if (q->as_of && !as_of_ok(q->as_of))
        return fl_errorf(c->err, FL_EINVAL, "as of '%s': not a timestamp (2024-05-01 12:00:00)",
                         q->as_of);
    if (!q->nmetrics)
        return fl_errorf(c->err, FL_EINVAL, "a query needs at least one metric");
    if (q->nmetrics > MAX_QUERY_MEMBERS || q->ngroup_by > MAX_QUERY_MEMBERS || q->nwhere > 64 ||
        q->norder_by > MAX_QUERY_MEMBERS)
        return fl_errorf(c->err, FL_ELIMIT,
                         "a query takes at most %d metrics, group-by members "
                         "and order-by items, and 64 filters",
                         MAX_QUERY_MEMBERS);
    for (uint32_t i = 0; i < q->nmetrics; i++) {
        if (!sem_find_metric(c->m, q->metrics[i]))
            return fl_errorf(c->err, FL_ENOTFOUND,
                             "unknown metric '%s' (floe semantic list shows "
                             "the metrics)",
                             q->metrics[i]);
        for (uint32_t k = 0; k < i; k++)
            if (!strcmp(q->metrics[i], q->metrics[k]))
                return fl_errorf(c->err, FL_EINVAL, "metric '%s' is asked twice", q->metrics[i]);
    }
    c->gbs = fl_arena_calloc(&c->a, q->ngroup_by + 1, sizeof *c->gbs);
    for (uint32_t i = 0; i < q->ngroup_by; i++) {
        FL_TRY(sem_parse_gb(c, q->group_by[i], &c->gbs[i]));
        for (uint32_t k = 0; k < i; k++)
            if (!strcmp(q->group_by[i], q->group_by[k]))
                return fl_errorf(c->err, FL_EINVAL, "group-by '%s' is asked twice", q->group_by[i]);
        for (uint32_t k = 0; k < q->nmetrics; k++)
            if (!strcmp(q->group_by[i], q->metrics[k]))
                return fl_errorf(c->err, FL_EINVAL, "'%s' is both a metric and a group-by",
                                 q->group_by[i]);
    }
    c->ngbs = q->ngroup_by;
    return FL_OK;
}

static bool in_query(const fl_sem_query *q, const char *name)
{
    for (uint32_t i = 0; i < q->nmetrics; i++)
        if (!strcmp(q->metrics[i], name))
            return true;
    for (uint32_t i = 0; i < q->ngroup_by; i++)
        if (!strcmp(q->group_by[i], name))
            return true;
    return false;
}

static fl_status order_limit(sem_ctx *c, const fl_sem_query *q, fl_buf *b)
{
    const char *ord = "";
    for (uint32_t i = 0; i < q->norder_by; i++) {
        const char *o = q->order_by[i];
        bool desc = o[0] == '-';
        const char *name = desc ? o + 1 : o;
        if (!in_query(q, name))
            return fl_errorf(c->err, FL_EINVAL,
                             "order by '%s': not a metric or group-by of this "
                             "query",
                             name);
        ord = fl_arena_sprintf(&c->a, "%s%s%s%s", ord, *ord ? ", " : "", sem_ident(c, name),
                               desc ? " DESC" : "");
    }
    if (!q->norder_by)
        for (uint32_t i = 0; i < q->ngroup_by; i++)
            ord = fl_arena_sprintf(&c->a, "%s%s%s", ord, *ord ? ", " : "",
                                   sem_ident(c, q->group_by[i]));
    if (*ord)
        FL_TRY(fl_buf_appendf(b, c->err, "\nORDER BY %s", ord));
    if (q->limit >= 0)
        FL_TRY(fl_buf_appendf(b, c->err, "\nLIMIT %lld", (long long)q->limit));
    return FL_OK;
}

/* The next part of the answer, cte's values rvals (see sem_full_join),
 * joined onto base; the first part (base NULL) is cte itself. */
static const char *join_part(sem_ctx *c, const char *cols, const char *base,
                             const char *const *names, uint32_t nnames, const char *cte,
                             const char *rvals)
{
    if (base)
        return sem_full_join(c, base, names, nnames, cte, rvals);
    return fl_arena_sprintf(&c->a, "SELECT %s%s%s FROM %s r", cols, *cols ? ", " : "", rvals, cte);
}

static fl_status compile_query(sem_ctx *c, const fl_sem_query *q, fl_buf *out)
{
    FL_TRY(check_query(c, q));
    sem_filters f = {.n = 0};
    for (uint32_t i = 0; i < q->nwhere; i++)
        f.items[f.n++] = q->where[i];
    const char *cols = "";
    for (uint32_t i = 0; i < c->ngbs; i++)
        cols = fl_arena_sprintf(&c->a, "%s%s%s", cols, i ? ", " : "", sem_ident(c, c->gbs[i].name));
    if (q->nmetrics > 64)
        return fl_errorf(c->err, FL_ELIMIT, "a query takes at most 64 metrics");
    const char *base = NULL, *names = "";
    const char *joined[64];
    uint32_t njoined = 0;
    bool done[64] = {false};
    for (uint32_t i = 0; i < q->nmetrics; i++) {
        if (done[i])
            continue;
        /* simple metrics of one model with the same filters: one pass (compile_fuse.c) */
        sem_input ins[64];
        const char *refs[64];
        uint32_t idx[64], k = 0;
        for (uint32_t j = i; j < q->nmetrics; j++) {
            sem_input in = {.name = q->metrics[j]};
            bool yes = j == i;
            if (j > i && !done[j])
                FL_TRY(sem_fusable(c, &ins[0], &in, &f, &yes));
            if (yes) {
                idx[k] = j;
                ins[k] = in;
                refs[k++] = q->metrics[j];
            }
        }
        const char *cte = NULL, *rvals = "";
        if (k > 1)
            FL_TRY(sem_fuse_inputs(c, ins, refs, k, &f, &cte));
        if (cte) {
            for (uint32_t r = 0; r < k; r++)
                rvals = fl_arena_sprintf(&c->a, "%s%sr.%s", rvals, r ? ", " : "",
                                         sem_ident(c, refs[r]));
        } else {
            k = 1;
            FL_TRY(sem_compile_metric(c, sem_find_metric(c->m, q->metrics[i]), &f, 0, &cte));
            rvals = fl_arena_sprintf(&c->a, "r.v AS %s", sem_ident(c, q->metrics[i]));
        }
        const char *sql = join_part(c, cols, base, joined, njoined, cte, rvals);
        for (uint32_t r = 0; r < k; r++) {
            done[idx[r]] = true;
            joined[njoined++] = refs[r];
        }
        FL_TRY(sem_add_cte(c, sql, &base));
    }
    for (uint32_t i = 0; i < q->nmetrics; i++)
        names = fl_arena_sprintf(&c->a, "%s%s%s", names, *names ? ", " : "",
                                 sem_ident(c, q->metrics[i]));
    FL_TRY(fl_buf_appendf(out, c->err, "WITH %s\nSELECT %s%s%s FROM %s", c->ctes.data, cols,
                          *cols ? ", " : "", names, base));
    return order_limit(c, q, out);
}

fl_status fl_sem_compile(const fl_sem_model *m, const fl_sem_query *q, const fl_sem_pin *pins,
                         uint32_t npins, char **sql, fl_error *err)
{
    *sql = NULL;
    sem_ctx c = {.m = m,
                 .q = q,
                 .pins = pins,
                 .npins = npins,
                 .qpins = q->pins,
                 .nqpins = q->npins,
                 .as_of = q->as_of,
                 .trino = q->dialect == FL_SEM_DIALECT_TRINO,
                 .err = err};
    fl_arena_init(&c.a, 0);
    fl_buf_init(&c.ctes, 0);
    fl_buf out;
    fl_buf_init(&out, 0);
    fl_status rc = compile_query(&c, q, &out);
    if (rc == FL_OK)
        *sql = fl_buf_detach(&out, NULL);
    fl_buf_free(&out);
    fl_buf_free(&c.ctes);
    fl_arena_free(&c.a);
    return rc;
}
