/*
 * joins.c - the entity graph. A measure's semantic model is the root; the
 * other semantic models are joined to it along many-to-one edges only: from
 * a model with entity e (any type) to another model where e identifies a
 * row (primary, unique, natural). A dimension is reached by the shortest
 * such path (breadth first, several hops allowed); two shortest paths, or
 * two candidate models at the same distance, are ambiguous and refused; a
 * dimension reachable only through an edge into a foreign entity would
 * multiply the measure's rows (fan-out) and is refused with that reason.
 *
 * Each joined model is a projected subquery that exposes exactly the
 * expressions the query uses as c0, c1 ... so an expression of the model
 * (`expr:` in the YAML) is evaluated over that model's own columns only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "semantic/compile.h"

void sem_joins_init(sem_joins *j, sem_ctx *c, const sem_smodel *root, const char *why)
{
    memset(j, 0, sizeof *j);
    j->c = c;
    j->why = why;
    j->nodes[0].sm = root;
    j->nodes[0].parent = -1;
    j->n = 1;
}

fl_status sem_node_col(sem_joins *j, uint32_t k, const char *expr, const char **ref)
{
    sem_node *n = &j->nodes[k];
    uint32_t i = 0;
    while (i < n->ncols && strcmp(n->cols[i].expr, expr))
        i++;
    if (i == n->ncols) {
        if (n->ncols == n->capcols) {
            uint32_t nc = n->capcols ? n->capcols * 2 : 8;
            sem_col *p = fl_arena_calloc(&j->c->a, nc, sizeof *p);
            if (!p)
                return fl_errorf(j->c->err, FL_ENOMEM, "out of memory");
            if (n->ncols)
                memcpy(p, n->cols, n->ncols * sizeof *p);
            n->cols = p;
            n->capcols = nc;
        }
        n->cols[n->ncols++].expr = expr;
    }
    *ref = fl_arena_sprintf(&j->c->a, "s%u.c%u", k, i);
    return FL_OK;
}

static uint32_t model_index(const fl_sem_model *m, const sem_smodel *sm)
{
    return (uint32_t)(sm - m->models);
}

/* The node for `to` joined to node `from` on entity e (added when new). */
static fl_status join_node(sem_joins *j, uint32_t from, const char *e, const sem_smodel *to,
                           uint32_t *out)
{
    for (uint32_t k = 1; k < j->n; k++)
        if (j->nodes[k].parent == (int)from && j->nodes[k].sm == to &&
            !strcmp(j->nodes[k].entity, e)) {
            *out = k;
            return FL_OK;
        }
    if (j->n == SEM_MAX_JOINS)
        return fl_errorf(j->c->err, FL_ELIMIT, "%s: more than %d joins", j->why, SEM_MAX_JOINS);
    uint32_t k = j->n++;
    j->nodes[k].sm = to;
    j->nodes[k].parent = (int)from;
    j->nodes[k].entity = e;
    const char *ref = NULL;
    /* expose both sides' entity columns now, so the ON clause can use them */
    FL_TRY(sem_node_col(j, from, sem_model_entity(j->nodes[from].sm, e)->expr, &ref));
    FL_TRY(sem_node_col(j, k, sem_model_entity(to, e)->expr, &ref));
    *out = k;
    return FL_OK;
}

static bool has_member(const sem_smodel *sm, const char *member, bool entity)
{
    return entity ? sem_model_entity(sm, member) != NULL : sem_model_dim(sm, member) != NULL;
}

/* Whether sm is a candidate for member asked through entity e (NULL = any). */
static bool candidate(const sem_smodel *sm, bool is_start, const char *e, const char *member,
                      bool entity)
{
    if (!has_member(sm, member, entity))
        return false;
    if (!e)
        return true;
    const sem_entity *en = sem_model_entity(sm, e);
    return en && (is_start || sem_entity_identifies(en));
}

typedef struct bfs {
    int32_t *dist, *prev;
    uint32_t *paths;
    const char **via;
} bfs;

static void run_bfs(const fl_sem_model *m, uint32_t start, bool fanout, bfs *b, uint32_t *queue)
{
    for (uint32_t i = 0; i < m->nmodels; i++) {
        b->dist[i] = -1;
        b->paths[i] = 0;
    }
    uint32_t head = 0, tail = 0;
    b->dist[start] = 0;
    b->paths[start] = 1;
    queue[tail++] = start;
    while (head < tail) {
        uint32_t u = queue[head++];
        const sem_smodel *su = &m->models[u];
        for (uint32_t ei = 0; ei < su->nentities; ei++) {
            const char *e = su->entities[ei].name;
            for (uint32_t v = 0; v < m->nmodels; v++) {
                const sem_entity *ev = sem_model_entity(&m->models[v], e);
                if (v == u || !ev || (!fanout && !sem_entity_identifies(ev)))
                    continue;
                if (b->dist[v] < 0) {
                    b->dist[v] = b->dist[u] + 1;
                    b->prev[v] = (int32_t)u;
                    b->via[v] = e;
                    b->paths[v] = b->paths[u];
                    queue[tail++] = v;
                } else if (b->dist[v] == b->dist[u] + 1) {
                    b->paths[v] = b->paths[v] + b->paths[u] > 2 ? 2 : b->paths[v] + b->paths[u];
                }
            }
        }
    }
}

/* The nearest candidate; -2 when ambiguous, -1 when none. */
static int32_t nearest(const fl_sem_model *m, uint32_t start, const bfs *b, const char *e,
                       const char *member, bool entity, int32_t *other)
{
    int32_t best = -1;
    *other = -1;
    for (uint32_t v = 0; v < m->nmodels; v++) {
        if (b->dist[v] < 0 || !candidate(&m->models[v], v == start, e, member, entity))
            continue;
        if (best < 0 || b->dist[v] < b->dist[best]) {
            best = (int32_t)v;
            *other = -1;
        } else if (b->dist[v] == b->dist[best]) {
            *other = (int32_t)v;
        }
    }
    if (best >= 0 && (*other >= 0 || b->paths[best] > 1))
        return -2;
    return best;
}

static fl_status no_path(sem_joins *j, uint32_t start, bfs *b, uint32_t *queue, const char *e,
                         const char *member, bool entity, const char *asked)
{
    const fl_sem_model *m = j->c->m;
    const sem_smodel *from = &m->models[start];
    char at[512];
    const char *kind = entity ? "entity" : "dimension";
    run_bfs(m, start, true, b, queue);
    int32_t t = -1;
    for (uint32_t i = 0; i < m->nmodels && t < 0; i++)
        if (b->dist[i] > 0 && candidate(&m->models[i], false, e, member, entity))
            t = (int32_t)i;
    if (t >= 0) {
        /* the first edge on the way that enters a foreign entity */
        uint32_t hops[SEM_MAX_JOINS], nh = 0, w = (uint32_t)t;
        for (int32_t v = t; v != (int32_t)start && nh < SEM_MAX_JOINS; v = b->prev[v])
            hops[nh++] = (uint32_t)v;
        for (uint32_t i = nh; i-- > 0;) {
            w = hops[i];
            if (!sem_entity_identifies(sem_model_entity(&m->models[w], b->via[w])))
                break;
        }
        return fl_errorf(j->c->err, FL_EINVAL,
                         "%s%s: '%s': joining semantic model '%s' to '%s' on entity '%s' would fan "
                         "out ('%s' is foreign in '%s': many rows each), so %s '%s' of '%s' is "
                         "refused; define the metric on '%s' instead",
                         sem_at(&m->models[t].at, at, sizeof at), j->why, asked,
                         m->models[b->prev[w]].name, m->models[w].name, b->via[w], b->via[w],
                         m->models[w].name, kind, member, m->models[t].name, m->models[t].name);
    }
    for (uint32_t i = 0; i < m->nmodels; i++)
        if (has_member(&m->models[i], member, entity))
            return fl_errorf(
                j->c->err, FL_EINVAL,
                "%s: '%s': no join path from semantic model '%s' (%s:%u) to %s '%s'%s%s"
                " (semantic model '%s', %s:%u)",
                j->why, asked, from->name, from->at.file, from->at.line, kind, member,
                e ? " through entity " : "", e ? e : "", m->models[i].name, m->models[i].at.file,
                m->models[i].at.line);
    return fl_errorf(j->c->err, FL_ENOTFOUND,
                     "%s: '%s': unknown %s '%s' (no semantic model has it)", j->why, asked, kind,
                     member);
}

static fl_status hop(sem_joins *j, uint32_t *k, const char *e, const char *asked)
{
    const fl_sem_model *m = j->c->m;
    const sem_smodel *cur = j->nodes[*k].sm;
    if (!sem_model_entity(cur, e))
        return fl_errorf(j->c->err, FL_EINVAL,
                         "%s: '%s': semantic model '%s' (%s:%u) has no "
                         "entity '%s'",
                         j->why, asked, cur->name, cur->at.file, cur->at.line, e);
    if (sem_entity_identifies(sem_model_entity(cur, e)))
        return FL_OK; /* e is this model's own key: the path goes on from here */
    const sem_smodel *to = NULL;
    for (uint32_t v = 0; v < m->nmodels; v++) {
        const sem_entity *ev = sem_model_entity(&m->models[v], e);
        if (&m->models[v] == cur || !ev || !sem_entity_identifies(ev))
            continue;
        if (to)
            return fl_errorf(j->c->err, FL_EINVAL,
                             "%s: '%s': entity '%s' identifies rows of both "
                             "'%s' and '%s'; ambiguous join",
                             j->why, asked, e, to->name, m->models[v].name);
        to = &m->models[v];
    }
    if (!to)
        return fl_errorf(j->c->err, FL_EINVAL,
                         "%s: '%s': no semantic model has '%s' as a primary "
                         "or unique entity, so '%s' cannot join on it",
                         j->why, asked, e, cur->name);
    return join_node(j, *k, e, to, k);
}

fl_status sem_join_to(sem_joins *j, const char *const *path, uint32_t npath, const char *member,
                      bool entity, const char *asked, uint32_t *node)
{
    const fl_sem_model *m = j->c->m;
    uint32_t k = 0;
    for (uint32_t i = 0; i + 1 < npath; i++)
        FL_TRY(hop(j, &k, path[i], asked));
    const char *e = npath ? path[npath - 1] : NULL;
    uint32_t nm = m->nmodels;
    bfs b = {calloc(nm, sizeof(int32_t)), calloc(nm, sizeof(int32_t)), calloc(nm, sizeof(uint32_t)),
             calloc(nm, sizeof(char *))};
    uint32_t *queue = calloc(nm, sizeof *queue);
    fl_status rc = FL_OK;
    if (!b.dist || !b.prev || !b.paths || !b.via || !queue) {
        rc = fl_errorf(j->c->err, FL_ENOMEM, "out of memory");
        goto done;
    }
    uint32_t start = model_index(m, j->nodes[k].sm);
    run_bfs(m, start, false, &b, queue);
    int32_t other = -1;
    int32_t t = nearest(m, start, &b, e, member, entity, &other);
    if (t == -1) {
        rc = no_path(j, start, &b, queue, e, member, entity, asked);
        goto done;
    }
    if (t == -2) {
        rc = fl_errorf(j->c->err, FL_EINVAL,
                       "%s: '%s' is ambiguous: %s '%s' is reachable from "
                       "semantic model '%s' along more than one shortest join path; name the "
                       "entity path (entity__...__%s)",
                       j->why, asked, entity ? "entity" : "dimension", member,
                       m->models[start].name, member);
        goto done;
    }
    /* walk back from t to start, then join forward */
    uint32_t hops[SEM_MAX_JOINS], nh = 0;
    for (int32_t v = t; v != (int32_t)start && nh < SEM_MAX_JOINS; v = b.prev[v])
        hops[nh++] = (uint32_t)v;
    for (uint32_t i = nh; rc == FL_OK && i-- > 0;)
        rc = join_node(j, k, b.via[hops[i]], &m->models[hops[i]], &k);
    *node = k;
done:
    free(b.dist);
    free(b.prev);
    free(b.paths);
    free(b.via);
    free(queue);
    return rc;
}

static bool same_table(const char *pinned, const char *table)
{
    size_t lp = strlen(pinned), lt = strlen(table);
    return !strcmp(pinned, table) ||
           (lp > lt && pinned[lp - lt - 1] == '.' && !strcmp(pinned + lp - lt, table));
}

static const fl_sem_pin *find_pin(const fl_sem_pin *pins, uint32_t n, const char *table)
{
    for (uint32_t i = 0; i < n; i++)
        if (same_table(pins[i].table, table))
            return &pins[i];
    return NULL;
}

static const char *relation(sem_joins *j, const sem_smodel *sm)
{
    sem_ctx *c = j->c;
    if (sm->sql)
        return fl_arena_sprintf(&c->a, "(%s) AS src", sm->sql);
    const fl_sem_pin *p = find_pin(c->pins, c->npins, sm->table);
    if (!p)
        p = find_pin(c->qpins, c->nqpins, sm->table);
    if (p && p->snapshot_id == FL_ICE_NO_SNAPSHOT)
        return fl_arena_sprintf(&c->a, "%s WHERE false", sm->table);
    if (p)
        return fl_arena_sprintf(&c->a, "%s FOR VERSION AS OF %lld", sm->table,
                                (long long)p->snapshot_id);
    if (c->as_of)
        return fl_arena_sprintf(&c->a, "%s FOR TIMESTAMP AS OF TIMESTAMP '%s%s'", sm->table,
                                c->as_of, c->trino ? " UTC" : "");
    return sm->table;
}

static fl_status node_sql(sem_joins *j, uint32_t k, fl_buf *b)
{
    fl_error *err = j->c->err;
    const sem_node *n = &j->nodes[k];
    FL_TRY(fl_buf_puts(b, "(SELECT ", err));
    if (!n->ncols)
        FL_TRY(fl_buf_puts(b, "1 AS c0", err));
    for (uint32_t i = 0; i < n->ncols; i++)
        FL_TRY(fl_buf_appendf(b, err, "%s(%s) AS c%u", i ? ", " : "", n->cols[i].expr, i));
    return fl_buf_appendf(b, err, " FROM %s) s%u", relation(j, n->sm), k);
}

fl_status sem_joins_from(sem_joins *j, fl_buf *b)
{
    fl_error *err = j->c->err;
    FL_TRY(fl_buf_puts(b, " FROM ", err));
    FL_TRY(node_sql(j, 0, b));
    for (uint32_t k = 1; k < j->n; k++) {
        const sem_node *n = &j->nodes[k];
        const char *l = NULL, *r = NULL;
        FL_TRY(sem_node_col(j, (uint32_t)n->parent,
                            sem_model_entity(j->nodes[n->parent].sm, n->entity)->expr, &l));
        FL_TRY(sem_node_col(j, k, sem_model_entity(n->sm, n->entity)->expr, &r));
        FL_TRY(fl_buf_puts(b, " LEFT JOIN ", err));
        FL_TRY(node_sql(j, k, b));
        FL_TRY(fl_buf_appendf(b, err, " ON %s = %s", r, l));
    }
    return FL_OK;
}
