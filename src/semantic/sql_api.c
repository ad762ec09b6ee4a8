/*
 * sql_api.c - the SQL API's statement (sem_sql.h): a SELECT whose one
 * relation is semantic.metrics becomes a semantic query plus a wrapper.
 *
 *   SELECT region, MEASURE(rev) / MEASURE(n) AS per_order
 *   FROM semantic.metrics WHERE metric_time__year = DATE '2024-01-01'
 *   GROUP BY 1 HAVING MEASURE(rev) > 10 ORDER BY 2 DESC LIMIT 5
 * ->
 *   SELECT q."region" AS "region", (q."rev" / q."n") AS "per_order"
 *   FROM (<fl_sem_compile of metrics rev, n by region where ...>) AS q
 *   WHERE (q."rev" > 10) ORDER BY 2 DESC LIMIT 5
 *
 * Group-by members are the bare dimensions of the select list and the
 * GROUP BY items (ordinals, output names, members); with GROUP BY, every
 * dimension selected must be in it, as PostgreSQL requires. WHERE's
 * top-level conjuncts become separate filters (each pushed down by the
 * compiler). The statement is parsed with PostgreSQL's grammar
 * (fl_sql_pg_parse_json); text that does not parse, or does not name
 * semantic.metrics, is left to the engine.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "semantic/sql_api.h"

struct fl_sem_sql {
    const fl_sem_model *m;
    fl_arena a;
    fl_schema cols;
    fl_sql_virtual_rel rel;
    fl_sql_extension ext;
};

typedef struct out_col {
    json_t *val;
    const char *member; /* a bare member (dimension or metric), else NULL */
    bool metric;
    const char *name; /* output column name */
} out_col;

static json_t *node(json_t *n, const char *kind)
{
    return json_is_object(n) ? json_object_get(n, kind) : NULL;
}

static bool is_the_relation(json_t *rv)
{
    const char *s = json_string_value(json_object_get(rv, "schemaname"));
    const char *r = json_string_value(json_object_get(rv, "relname"));
    return s && r && !strcmp(s, FL_SEM_SQL_SCHEMA) && !strcmp(r, FL_SEM_SQL_TABLE) &&
           !json_object_get(rv, "catalogname");
}

/* How many times the tree names semantic.metrics. */
static int count_refs(json_t *n, int depth)
{
    if (depth > 200)
        return 0;
    int k = 0;
    if (json_is_array(n)) {
        for (size_t i = 0; i < json_array_size(n); i++)
            k += count_refs(json_array_get(n, i), depth + 1);
        return k;
    }
    if (!json_is_object(n))
        return 0;
    json_t *rv = json_object_get(n, "RangeVar");
    if (rv && is_the_relation(rv))
        k++;
    const char *key;
    json_t *v;
    json_object_foreach(n, key, v) k += count_refs(v, depth + 1);
    return k;
}

/* EXPLAIN [(options)] over the relation: "EXPLAIN (analyze, format json) "
 * in front of the rewritten query (option names and word arguments only). */
static fl_status explain_prefix(sq_ctx *c, json_t *ex, fl_buf *out)
{
    json_t *opts = json_object_get(ex, "options");
    FL_TRY(fl_buf_puts(out, "EXPLAIN ", c->err));
    for (size_t i = 0; i < json_array_size(opts); i++) {
        json_t *d = node(json_array_get(opts, i), "DefElem");
        const char *name = json_string_value(json_object_get(d, "defname"));
        json_t *arg = json_object_get(d, "arg");
        const char *word = json_string_value(json_object_get(node(arg, "String"), "sval"));
        bool ok = name && (!arg || word);
        for (const char *p = name; ok && *p; p++)
            ok = isalnum((unsigned char)*p) || *p == '_';
        for (const char *p = word; ok && p && *p; p++)
            ok = isalnum((unsigned char)*p) || *p == '_';
        if (!ok)
            return sq_fail(c, json_array_get(opts, i), "0A000",
                           "this EXPLAIN option is not taken here");
        FL_TRY(fl_buf_appendf(out, c->err, "%s%s%s%s", i ? ", " : "(", name, word ? " " : "",
                              word ? word : ""));
    }
    return json_array_size(opts) ? fl_buf_puts(out, ") ", c->err) : FL_OK;
}

static fl_status check_shape(sq_ctx *c, json_t *stmts, json_t **sel_out)
{
    json_t *first = json_array_get(stmts, 0);
    json_t *stmt = json_object_get(first, "stmt");
    json_t *ex = node(stmt, "ExplainStmt");
    if (ex) {
        FL_TRY(explain_prefix(c, ex, &c->explain));
        stmt = json_object_get(ex, "query");
    }
    json_t *sel = node(stmt, "SelectStmt");
    json_t *from = json_object_get(sel, "fromClause");
    json_t *rv = node(json_array_get(from, 0), "RangeVar");
    const char *op = json_string_value(json_object_get(sel, "op"));
    if (json_array_size(stmts) != 1 || !sel || json_array_size(from) != 1 || !rv ||
        !is_the_relation(rv) || (op && strcmp(op, "SETOP_NONE")) || count_refs(stmt, 0) != 1)
        return sq_fail(c, stmt, "0A000",
                       "it is read by one SELECT of which it is the only relation (no joins, "
                       "subqueries, CTEs or set operations around it yet)");
    static const char *const refused[][2] = {
        {"withClause", "WITH"},          {"distinctClause", "DISTINCT"}, {"windowClause", "WINDOW"},
        {"lockingClause", "FOR UPDATE"}, {"intoClause", "INTO"},         {"valuesLists", "VALUES"}};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        if (json_object_get(sel, refused[i][0]))
            return sq_fail(c, stmt, "0A000", "%s is not taken here yet", refused[i][1]);
    c->alias = json_string_value(json_object_get(json_object_get(rv, "alias"), "aliasname"));
    *sel_out = sel;
    return FL_OK;
}

/* The name of an unqualified column reference ("x"), else NULL: GROUP BY
 * and ORDER BY look it up among the output names first. */
static const char *bare_name(json_t *n)
{
    json_t *f = json_object_get(node(n, "ColumnRef"), "fields");
    if (json_array_size(f) != 1)
        return NULL;
    return json_string_value(
        json_object_get(json_object_get(json_array_get(f, 0), "String"), "sval"));
}

static const char *res_name(json_t *rt)
{
    return json_string_value(json_object_get(rt, "name"));
}

/* Pass 1: the select list's bare members. */
static fl_status select_members(sq_ctx *c, json_t *targets, out_col *cols, uint32_t *ncols)
{
    if (json_array_size(targets) > SQ_MAX)
        return sq_fail(c, NULL, "54000", "more than %d output columns", SQ_MAX);
    for (size_t i = 0; i < json_array_size(targets); i++) {
        json_t *rt = node(json_array_get(targets, i), "ResTarget");
        out_col *oc = &cols[(*ncols)++];
        memset(oc, 0, sizeof *oc);
        oc->val = json_object_get(rt, "val");
        json_t *ref = node(oc->val, "ColumnRef");
        json_t *f = json_array_get(json_object_get(ref, "fields"), 0);
        if (ref && node(f, "A_Star"))
            return sq_fail(c, oc->val, "0A000",
                           "SELECT * is not taken: name dimensions and MEASURE(metric)s "
                           "(information_schema.columns lists them)");
        FL_TRY(sq_member(c, oc->val, &oc->member, &oc->metric));
        oc->name = res_name(rt) ? res_name(rt) : oc->member ? oc->member : "?column?";
        if (oc->member && oc->metric)
            FL_TRY(sq_add_metric(c, oc->val, oc->member));
    }
    return FL_OK;
}

static fl_status group_item(sq_ctx *c, json_t *g, const out_col *cols, uint32_t ncols)
{
    json_t *k = node(g, "A_Const");
    json_t *iv = json_object_get(k, "ival");
    if (iv) {
        json_int_t pos = json_integer_value(json_object_get(iv, "ival"));
        if (pos < 1 || pos > (json_int_t)ncols)
            return sq_fail(c, g, "42P10", "GROUP BY position %lld is not in select list",
                           (long long)pos);
        const out_col *oc = &cols[pos - 1];
        if (!oc->member || oc->metric)
            return sq_fail(c, g, "42803", "GROUP BY %lld: output column \"%s\" is not a dimension",
                           (long long)pos, oc->name);
        return sq_add_group(c, g, oc->member);
    }
    const char *want = bare_name(g);
    for (uint32_t i = 0; want && i < ncols; i++) /* an output column's name first */
        if (!strcmp(cols[i].name, want) && cols[i].member && !cols[i].metric)
            return sq_add_group(c, g, cols[i].member);
    const char *name = NULL;
    bool metric = false;
    fl_status rc = sq_member(c, g, &name, &metric);
    FL_TRY(rc);
    if (!name || metric)
        return sq_fail(c, g, "42803", "GROUP BY takes dimensions (or their positions) only");
    return sq_add_group(c, g, name);
}

static fl_status grouping(sq_ctx *c, json_t *sel, out_col *cols, uint32_t ncols)
{
    json_t *groups = json_object_get(sel, "groupClause");
    c->grouped = json_array_size(groups) > 0;
    for (size_t i = 0; i < json_array_size(groups); i++)
        FL_TRY(group_item(c, json_array_get(groups, i), cols, ncols));
    uint32_t explicit_n = c->ngroup_by;
    for (uint32_t i = 0; i < ncols; i++) {
        if (!cols[i].member || cols[i].metric)
            continue;
        bool in = false;
        for (uint32_t k = 0; k < explicit_n; k++)
            in |= !strcmp(c->group_by[k], cols[i].member);
        if (c->grouped && !in)
            return sq_fail(c, cols[i].val, "42803",
                           "column \"%s\" must appear in the GROUP BY clause or be used in an "
                           "aggregate function",
                           cols[i].member);
        FL_TRY(sq_add_group(c, cols[i].val, cols[i].member));
    }
    return FL_OK;
}

static fl_status filters(sq_ctx *c, json_t *w)
{
    if (!w)
        return FL_OK;
    json_t *b = node(w, "BoolExpr");
    const char *op = json_string_value(json_object_get(b, "boolop"));
    if (op && !strcmp(op, "AND_EXPR")) {
        json_t *args = json_object_get(b, "args");
        for (size_t i = 0; i < json_array_size(args); i++)
            FL_TRY(filters(c, json_array_get(args, i)));
        return FL_OK;
    }
    if (c->nwhere == SQ_MAX)
        return sq_fail(c, w, "54000", "more than %d filters", SQ_MAX);
    fl_buf f;
    fl_buf_init(&f, 1u << 20);
    fl_status rc = sq_expr(c, w, SQ_FILTER, &f);
    if (rc == FL_OK && !(c->where[c->nwhere++] = fl_arena_strndup(c->a, f.data, f.len)))
        rc = fl_errorf(c->err, FL_ENOMEM, "out of memory");
    fl_buf_free(&f);
    return rc;
}

static fl_status order_item(sq_ctx *c, json_t *sb, const out_col *cols, uint32_t ncols, fl_buf *w)
{
    json_t *n = json_object_get(sb, "node");
    const char *want = bare_name(n);
    bool done = false;
    for (uint32_t i = 0; want && !done && i < ncols; i++)
        if (!strcmp(cols[i].name, want)) {
            FL_TRY(sq_ident(c, want, w));
            done = true;
        }
    if (!done)
        FL_TRY(sq_expr(c, n, SQ_OUTER, w));
    const char *dir = json_string_value(json_object_get(sb, "sortby_dir"));
    const char *nulls = json_string_value(json_object_get(sb, "sortby_nulls"));
    if (dir && !strcmp(dir, "SORTBY_DESC"))
        FL_TRY(fl_buf_puts(w, " DESC", c->err));
    if (dir && !strcmp(dir, "SORTBY_USING"))
        return sq_fail(c, n, "0A000", "ORDER BY ... USING is not taken here");
    if (nulls && strcmp(nulls, "SORTBY_NULLS_DEFAULT"))
        FL_TRY(fl_buf_puts(w, strcmp(nulls, "SORTBY_NULLS_FIRST") ? " NULLS LAST" : " NULLS FIRST",
                           c->err));
    return FL_OK;
}

/* Pass 2: the wrapper's select list, HAVING, ORDER BY, LIMIT, OFFSET
 * (they may add metrics: HAVING MEASURE(x) > 0). */
static fl_status wrapper(sq_ctx *c, json_t *sel, const out_col *cols, uint32_t ncols, fl_buf *w)
{
    FL_TRY(fl_buf_puts(w, "SELECT ", c->err));
    for (uint32_t i = 0; i < ncols; i++) {
        if (i)
            FL_TRY(fl_buf_puts(w, ", ", c->err));
        FL_TRY(sq_expr(c, cols[i].val, SQ_OUTER, w));
        FL_TRY(fl_buf_puts(w, " AS ", c->err));
        FL_TRY(sq_ident(c, cols[i].name, w));
    }
    FL_TRY(fl_buf_puts(w, " FROM (\n", c->err));
    c->hole = w->len; /* where the compiled query goes */
    FL_TRY(fl_buf_puts(w, "\n) AS q", c->err));
    json_t *having = json_object_get(sel, "havingClause");
    if (having) {
        FL_TRY(fl_buf_puts(w, " WHERE ", c->err));
        FL_TRY(sq_expr(c, having, SQ_OUTER, w));
    }
    json_t *sorts = json_object_get(sel, "sortClause");
    for (size_t i = 0; i < json_array_size(sorts); i++) {
        FL_TRY(fl_buf_puts(w, i ? ", " : " ORDER BY ", c->err));
        FL_TRY(order_item(c, node(json_array_get(sorts, i), "SortBy"), cols, ncols, w));
    }
    static const char *const lim[][2] = {{"limitCount", " LIMIT "}, {"limitOffset", " OFFSET "}};
    for (size_t i = 0; i < 2; i++) {
        json_t *n = json_object_get(sel, lim[i][0]);
        if (!n)
            continue;
        if (!node(n, "A_Const"))
            return sq_fail(c, n, "0A000", "LIMIT and OFFSET take constants here");
        FL_TRY(fl_buf_puts(w, lim[i][1], c->err));
        FL_TRY(sq_expr(c, n, SQ_OUTER, w));
    }
    return FL_OK;
}

static fl_status build(sq_ctx *c, json_t *sel, char **out)
{
    out_col cols[SQ_MAX];
    uint32_t ncols = 0;
    FL_TRY(select_members(c, json_object_get(sel, "targetList"), cols, &ncols));
    FL_TRY(grouping(c, sel, cols, ncols));
    FL_TRY(filters(c, json_object_get(sel, "whereClause")));
    fl_buf w;
    fl_buf_init(&w, 1u << 20);
    fl_status rc =
        fl_buf_append(&w, c->explain.data ? c->explain.data : "", c->explain.len, c->err);
    if (rc == FL_OK)
        rc = wrapper(c, sel, cols, ncols, &w);
    if (rc == FL_OK && !c->nmetrics)
        rc = sq_fail(c, NULL, "42803",
                     "a query of it reads at least one metric: SELECT <dimensions>, "
                     "MEASURE(<metric>) ... GROUP BY <dimensions>");
    fl_sem_query q;
    memset(&q, 0, sizeof q);
    q.metrics = c->metrics;
    q.nmetrics = c->nmetrics;
    q.group_by = c->group_by;
    q.ngroup_by = c->ngroup_by;
    q.where = c->where;
    q.nwhere = c->nwhere;
    q.limit = -1;
    char *compiled = NULL;
    if (rc == FL_OK && (rc = fl_sem_compile(c->m, &q, NULL, 0, &compiled, c->err)) != FL_OK)
        fl_error_prefix(c->err, "%s.%s", FL_SEM_SQL_SCHEMA, FL_SEM_SQL_TABLE);
    if (rc == FL_OK) {
        size_t nc = strlen(compiled), len = w.len + nc;
        *out = malloc(len + 1);
        if (!*out) {
            rc = fl_errorf(c->err, FL_ENOMEM, "out of memory");
        } else {
            memcpy(*out, w.data, c->hole);
            memcpy(*out + c->hole, compiled, nc);
            memcpy(*out + c->hole + nc, w.data + c->hole, w.len - c->hole);
            (*out)[len] = 0;
        }
    }
    free(compiled);
    fl_buf_free(&w);
    return rc;
}

fl_status fl_sem_sql_rewrite(const fl_sem_sql *h, const char *sql, char **out, int32_t *position,
                             fl_error *err)
{
    *out = NULL;
    if (position)
        *position = 0;
    if (!sql || !strcasestr(sql, FL_SEM_SQL_TABLE) || !strcasestr(sql, FL_SEM_SQL_SCHEMA))
        return FL_OK;
    char *text = NULL;
    fl_error pe;
    fl_error_clear(&pe);
    if (fl_sql_pg_parse_json(sql, &text, &pe) != FL_OK)
        return FL_OK; /* the engine reports it, with its position */
    json_t *root = json_loads(text, 0, NULL);
    free(text);
    if (!root)
        return fl_errorf(err, FL_ENOMEM, "%s.%s: cannot read the parse tree", FL_SEM_SQL_SCHEMA,
                         FL_SEM_SQL_TABLE);
    fl_status rc = FL_OK;
    if (count_refs(root, 0) > 0) {
        fl_arena a;
        fl_arena_init(&a, 0);
        sq_ctx c = {.m = h->m, .a = &a, .err = err};
        fl_buf_init(&c.explain, 4096);
        json_t *sel = NULL;
        rc = check_shape(&c, json_object_get(root, "stmts"), &sel);
        if (rc == FL_OK)
            rc = build(&c, sel, out);
        if (position)
            *position = c.pos;
        fl_buf_free(&c.explain);
        fl_arena_free(&a);
    }
    json_decref(root);
    return rc;
}

static fl_status rewrite_cb(void *ctx, const char *sql, char **out, int32_t *position,
                            fl_error *err)
{
    return fl_sem_sql_rewrite(ctx, sql, out, position, err);
}

static fl_status add_col(fl_sem_sql *h, const char *name, fl_type_id type, fl_error *err)
{
    fl_field *f = &h->cols.fields[h->cols.nfields];
    memset(f, 0, sizeof *f);
    f->name = name;
    f->field_id = (int32_t)h->cols.nfields + 1;
    f->nullable = true;
    f->type.id = type;
    h->cols.nfields++;
    (void)err;
    return FL_OK;
}

fl_status fl_sem_sql_new(const fl_sem_model *m, fl_sem_sql **out, fl_error *err)
{
    *out = NULL;
    fl_sem_sql *h = calloc(1, sizeof *h);
    if (!h)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    h->m = m;
    fl_arena_init(&h->a, 0);
    uint32_t n = fl_sem_model_nmembers(m);
    h->cols.fields = fl_arena_calloc(&h->a, n + 1, sizeof(fl_field));
    char *def = fl_arena_sprintf(&h->a,
                                 "-- floe's semantic layer, model %s: SELECT <dimensions>, "
                                 "MEASURE(<metric>) FROM %s.%s GROUP BY <dimensions>",
                                 fl_sem_model_version(m), FL_SEM_SQL_SCHEMA, FL_SEM_SQL_TABLE);
    if (!h->cols.fields || !def) {
        fl_sem_sql_free(h);
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    add_col(h, "metric_time", FL_TYPE_TIMESTAMP, err);
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < n; i++) {
            const fl_sem_member_info *mi = fl_sem_model_member(m, i);
            if (pass == 0 && mi->kind == FL_SEM_DIMENSION)
                add_col(h, mi->name,
                        mi->type && !strcmp(mi->type, "time") ? FL_TYPE_TIMESTAMP : FL_TYPE_STRING,
                        err);
            else if (pass == 1 && mi->kind == FL_SEM_METRIC)
                add_col(h, mi->name, FL_TYPE_FLOAT64, err);
        }
    h->rel = (fl_sql_virtual_rel){FL_SEM_SQL_SCHEMA, FL_SEM_SQL_TABLE, &h->cols, def};
    h->ext = (fl_sql_extension){rewrite_cb, h, &h->rel, 1};
    *out = h;
    return FL_OK;
}

/* The type of column `name` of q compiled and planned on s; false when it
 * does not compile or plan (a missing table, a dimension out of reach). */
static bool planned_type(fl_sem_sql *h, fl_sql_session *s, const fl_sem_query *q, const char *name,
                         fl_type *out)
{
    char *sql = NULL;
    fl_error e;
    fl_error_clear(&e);
    bool ok = false;
    fl_sql_stmt *st = NULL;
    if (fl_sem_compile(h->m, q, NULL, 0, &sql, &e) == FL_OK &&
        fl_sql_prepare(s, sql, &st, &e) == FL_OK) {
        const fl_field *f = fl_schema_find_name(fl_sql_stmt_schema(st), name);
        ok = f && fl_type_copy(&h->a, &f->type, out) == FL_OK;
    }
    fl_sql_stmt_close(st);
    free(sql);
    return ok;
}

fl_status fl_sem_sql_resolve_types(fl_sem_sql *h, fl_sql_session *s, fl_error *err)
{
    const char *metrics[64];
    uint32_t nm = 0;
    for (uint32_t i = 0; i < fl_sem_model_nmembers(h->m) && nm < 64; i++)
        if (fl_sem_model_member(h->m, i)->kind == FL_SEM_METRIC)
            metrics[nm++] = fl_sem_model_member(h->m, i)->name;
    for (uint32_t c = 0; c < h->cols.nfields; c++) {
        fl_field *f = &h->cols.fields[c];
        fl_sem_query q;
        memset(&q, 0, sizeof q);
        q.limit = -1;
        fl_type t;
        if (sem_find_metric(h->m, f->name)) {
            q.metrics = &f->name;
            q.nmetrics = 1;
            if (planned_type(h, s, &q, f->name, &t))
                f->type = t;
            continue;
        }
        q.group_by = &f->name;
        q.ngroup_by = 1;
        q.nmetrics = 1;
        for (uint32_t k = 0; k < nm && k < 8; k++) { /* a metric that reaches the dimension */
            q.metrics = &metrics[k];
            if (planned_type(h, s, &q, f->name, &t)) {
                f->type = t;
                break;
            }
        }
    }
    (void)err;
    return FL_OK;
}

void fl_sem_sql_free(fl_sem_sql *h)
{
    if (!h)
        return;
    fl_arena_free(&h->a);
    free(h);
}

const fl_sql_extension *fl_sem_sql_extension(const fl_sem_sql *h)
{
    return &h->ext;
}
