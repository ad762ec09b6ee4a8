/*
 * filter.c - dbt's Jinja filter templates in `filter:` and query `where`:
 * "{{ Dimension('customer__region') }} = 'EU'" becomes SQL over the joined
 * columns. Understood: Dimension('x') with an optional .grain('g'),
 * TimeDimension('x', 'g'), Entity('x'). Text outside {{ }} is SQL passed to
 * the engine as it is (the caller's own query: it runs with the caller's
 * rights); each filter is parenthesized.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "semantic/compile.h"

typedef struct jref {
    char fn[32];
    const char *args[2];
    uint32_t nargs;
    const char *grain; /* .grain('g') */
} jref;

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

/* 'text' or "text" at *p; advances past it. */
static const char *quoted(sem_ctx *c, const char **p)
{
    char q = **p;
    if (q != '\'' && q != '"')
        return NULL;
    const char *end = strchr(*p + 1, q);
    if (!end)
        return NULL;
    const char *s = fl_arena_strndup(&c->a, *p + 1, (size_t)(end - *p - 1));
    *p = end + 1;
    return s;
}

static fl_status parse_ref(sem_ctx *c, const char *inner, const char *filter, jref *r)
{
    memset(r, 0, sizeof *r);
    const char *p = skip_ws(inner);
    size_t n = 0;
    while (isalpha((unsigned char)p[n]) && n < sizeof r->fn - 1)
        n++;
    memcpy(r->fn, p, n);
    p = skip_ws(p + n);
    if (!n || *p != '(')
        return fl_errorf(c->err, FL_ESYNTAX,
                         "filter \"%s\": expected Dimension('...'), "
                         "TimeDimension('...', 'grain') or Entity('...') inside {{ }}",
                         filter);
    p = skip_ws(p + 1);
    while (*p != ')') {
        if (r->nargs == 2)
            return fl_errorf(c->err, FL_ESYNTAX, "filter \"%s\": %s() takes at most 2 arguments",
                             filter, r->fn);
        r->args[r->nargs] = quoted(c, &p);
        if (!r->args[r->nargs])
            return fl_errorf(c->err, FL_EUNSUPPORTED,
                             "filter \"%s\": %s() arguments must be "
                             "quoted names (entity_path= and other keyword arguments are not "
                             "supported)",
                             filter, r->fn);
        r->nargs++;
        p = skip_ws(p);
        if (*p == ',')
            p = skip_ws(p + 1);
        else if (*p != ')')
            return fl_errorf(c->err, FL_ESYNTAX, "filter \"%s\": expected ',' or ')'", filter);
    }
    p = skip_ws(p + 1);
    if (!strncmp(p, ".grain(", 7)) {
        p = skip_ws(p + 7);
        r->grain = quoted(c, &p);
        p = skip_ws(p);
        if (!r->grain || *p != ')')
            return fl_errorf(c->err, FL_ESYNTAX, "filter \"%s\": .grain('month') expected", filter);
        p = skip_ws(p + 1);
    }
    if (*p)
        return fl_errorf(c->err, FL_ESYNTAX, "filter \"%s\": unexpected text '%s' inside {{ }}",
                         filter, p);
    if (!r->nargs)
        return fl_errorf(c->err, FL_ESYNTAX, "filter \"%s\": %s() needs a name", filter, r->fn);
    return FL_OK;
}

static fl_status ref_sql(sem_joins *j, const jref *r, const char *filter, const char *atd,
                         const char **sql)
{
    sem_ctx *c = j->c;
    sem_gb gb;
    bool is_date = false;
    const char *grain = r->grain;
    if (!strcmp(r->fn, "TimeDimension")) {
        if (r->nargs == 2)
            grain = r->args[1];
    } else if (r->nargs != 1) {
        return fl_errorf(c->err, FL_ESYNTAX, "filter \"%s\": %s() takes one name", filter, r->fn);
    } else if (!strcmp(r->fn, "Metric")) {
        return fl_errorf(c->err, FL_EUNSUPPORTED,
                         "filter \"%s\": Metric() filters are not supported yet", filter);
    } else if (strcmp(r->fn, "Dimension") && strcmp(r->fn, "Entity")) {
        return fl_errorf(c->err, FL_EINVAL,
                         "filter \"%s\": unknown function '%s' (Dimension, "
                         "TimeDimension, Entity)",
                         filter, r->fn);
    }
    const char *name = grain ? fl_arena_sprintf(&c->a, "%s__%s", r->args[0], grain) : r->args[0];
    if (grain && !sem_grain_rank(grain))
        return fl_errorf(c->err, FL_EINVAL, "filter \"%s\": unknown time grain '%s' (%s)", filter,
                         grain, SEM_GRAINS);
    FL_TRY(sem_parse_gb(c, name, &gb));
    gb.entity = !strcmp(r->fn, "Entity");
    fl_status rc = sem_member_sql(j, &gb, atd, sql, &is_date);
    if (rc != FL_OK)
        return fl_error_prefix(c->err, "filter \"%s\"", filter);
    return FL_OK;
}

fl_status sem_filter_sql(sem_joins *j, const char *filter, const char *agg_time_dim,
                         const char **sql)
{
    sem_ctx *c = j->c;
    fl_buf b;
    fl_buf_init(&b, 1u << 20);
    fl_status rc = fl_buf_putc(&b, '(', c->err);
    const char *p = filter;
    while (rc == FL_OK && *p) {
        const char *open = strstr(p, "{{");
        if (!open) {
            rc = fl_buf_puts(&b, p, c->err);
            break;
        }
        const char *close = strstr(open + 2, "}}");
        if (!close) {
            rc = fl_errorf(c->err, FL_ESYNTAX, "filter \"%s\": '{{' without '}}'", filter);
            break;
        }
        rc = fl_buf_append(&b, p, (size_t)(open - p), c->err);
        jref r;
        const char *inner = fl_arena_strndup(&c->a, open + 2, (size_t)(close - open - 2));
        const char *ref = NULL;
        if (rc == FL_OK)
            rc = parse_ref(c, inner, filter, &r);
        if (rc == FL_OK)
            rc = ref_sql(j, &r, filter, agg_time_dim, &ref);
        if (rc == FL_OK)
            rc = fl_buf_puts(&b, ref, c->err);
        p = close + 2;
    }
    if (rc == FL_OK)
        rc = fl_buf_putc(&b, ')', c->err);
    if (rc == FL_OK)
        *sql = fl_arena_strndup(&c->a, b.data, b.len);
    fl_buf_free(&b);
    return rc;
}
