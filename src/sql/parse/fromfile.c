/*
 * fromfile.c - FROM 'file.parquet' as DuckDB reads it: a string literal
 * where a table belongs means the file table function chosen by the
 * path's extension (.parquet -> read_parquet, .orc -> read_orc, .csv/.tsv -> read_csv,
 * .json/.jsonl/.ndjson -> read_json; globs allowed, as those functions
 * take them), aliased by the file's stem (orders.parquet -> orders).
 *
 * Why after libpg_query and not before: FROM 'x' is a syntax error in
 * PostgreSQL's grammar, so a statement libpg_query accepts has none, and
 * FROM inside function calls (substring(s FROM 'x'), extract(day FROM
 * '...')) is never touched. Only when the first parse fails does
 * fl_sql_parse call fl_sql_from_files_find: each '...' literal right after
 * FROM or JOIN is overwritten by a "____" quoted identifier of the same
 * length (newlines kept, so every byte offset and line stays right), the
 * text is parsed again, and fl_sql_from_files_apply replaces each RangeVar
 * found at a literal's offset by a RangeFunction calling the table
 * function. If the second parse fails too, the first parse's error is the
 * one reported. COPY statements are left alone (COPY t FROM 'file' is
 * COPY's own syntax).
 *
 * The nodes made here are malloc'd with protobuf-c's default allocator and
 * hung in the tree, so pg_query__parse_result__free_unpacked frees them
 * with the rest.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sql/parse/parse_tree.h"

static bool ends_with(const char *s, size_t n, const char *suf)
{
    size_t k = strlen(suf);
    return n >= k && strncasecmp(s + n - k, suf, k) == 0;
}

/* The table function for path, by extension; NULL when it cannot tell. */
static const char *function_for(const char *path)
{
    size_t n = strlen(path);
    if (ends_with(path, n, ".gz"))
        n -= 3;
    if (ends_with(path, n, ".parquet"))
        return "read_parquet";
    if (ends_with(path, n, ".orc"))
        return "read_orc";
    if (ends_with(path, n, ".csv") || ends_with(path, n, ".tsv"))
        return "read_csv";
    if (ends_with(path, n, ".json") || ends_with(path, n, ".jsonl") ||
        ends_with(path, n, ".ndjson"))
        return "read_json";
    return NULL;
}

fl_status fl_sql_from_files_find(const char *orig, char *text, const fl_tok *tk, uint32_t ntok,
                                 fl_arena *a, fl_from_file **out, uint32_t *nfound, fl_error *err)
{
    *out = NULL;
    *nfound = 0;
    if (ntok < 3 || fl_tok_is(orig, &tk[0], "copy"))
        return FL_OK;
    fl_from_file *f = NULL;
    for (uint32_t i = 1; i < ntok; i++) {
        const fl_tok *t = &tk[i];
        if (t->kind != FL_TOK_STRING || orig[t->start] != '\'' || t->len < 3)
            continue;
        if (!fl_tok_is(orig, &tk[i - 1], "from") && !fl_tok_is(orig, &tk[i - 1], "join"))
            continue;
        if (!f && !(f = fl_arena_calloc(a, ntok, sizeof *f)))
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        f[*nfound].location = (int32_t)t->start;
        f[*nfound].path = fl_front_tok_text(a, orig, t);
        if (!f[*nfound].path)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        (*nfound)++;
        text[t->start] = '"';
        text[t->start + t->len - 1] = '"';
        for (uint32_t k = t->start + 1; k + 1 < t->start + t->len; k++)
            if (text[k] != '\n')
                text[k] = '_';
    }
    *out = f;
    return FL_OK;
}

/* ---- building the RangeFunction ---- */

static PgQuery__Node *node_new(void)
{
    PgQuery__Node *n = malloc(sizeof *n);
    if (n)
        pg_query__node__init(n);
    return n;
}

static PgQuery__Node *string_node(const char *v)
{
    PgQuery__Node *n = node_new();
    PgQuery__String *s = malloc(sizeof *s);
    char *d = strdup(v);
    if (!n || !s || !d) {
        free(n);
        free(s);
        free(d);
        return NULL;
    }
    pg_query__string__init(s);
    s->sval = d;
    n->node_case = PG_QUERY__NODE__NODE_STRING;
    n->string = s;
    return n;
}

static PgQuery__Node *string_const(const char *v, int32_t loc)
{
    PgQuery__Node *n = node_new();
    PgQuery__AConst *k = malloc(sizeof *k);
    PgQuery__String *s = malloc(sizeof *s);
    char *d = strdup(v);
    if (!n || !k || !s || !d) {
        free(n);
        free(k);
        free(s);
        free(d);
        return NULL;
    }
    pg_query__a__const__init(k);
    pg_query__string__init(s);
    s->sval = d;
    k->val_case = PG_QUERY__A__CONST__VAL_SVAL;
    k->sval = s;
    k->location = loc;
    n->node_case = PG_QUERY__NODE__NODE_A_CONST;
    n->a_const = k;
    return n;
}

/* The file's stem: "data/orders.parquet" -> "orders"; NULL for a glob. */
static char *stem_of(const char *path)
{
    if (strpbrk(path, "*?["))
        return NULL;
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strcspn(b, ".");
    if (!n)
        return NULL;
    char *s = malloc(n + 1);
    if (s) {
        memcpy(s, b, n);
        s[n] = '\0';
    }
    return s;
}

/* n (a RangeVar node) becomes RangeFunction fn(path), keeping the alias. */
static fl_status replace(PgQuery__Node *n, const char *fn, const char *path, fl_error *err)
{
    PgQuery__RangeVar *rv = n->range_var;
    PgQuery__RangeFunction *rf = malloc(sizeof *rf);
    PgQuery__FuncCall *fc = malloc(sizeof *fc);
    PgQuery__List *l = malloc(sizeof *l);
    PgQuery__Node *fcn = node_new(), *ln = node_new();
    PgQuery__Node **fname = malloc(sizeof *fname), **args = malloc(sizeof *args);
    PgQuery__Node **items = malloc(sizeof *items), **fns = malloc(sizeof *fns);
    PgQuery__Node *name = string_node(fn), *arg = string_const(path, rv->location);
    if (!rf || !fc || !l || !fcn || !ln || !fname || !args || !items || !fns || !name || !arg) {
        free(rf);
        free(fc);
        free(l);
        free(fcn);
        free(ln);
        free(fname);
        free(args);
        free(items);
        free(fns);
        if (name)
            pg_query__node__free_unpacked(name, NULL);
        if (arg)
            pg_query__node__free_unpacked(arg, NULL);
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    pg_query__func_call__init(fc);
    fname[0] = name;
    args[0] = arg;
    fc->funcname = fname;
    fc->n_funcname = 1;
    fc->args = args;
    fc->n_args = 1;
    fc->funcformat = PG_QUERY__COERCION_FORM__COERCE_EXPLICIT_CALL;
    fc->location = rv->location;
    fcn->node_case = PG_QUERY__NODE__NODE_FUNC_CALL;
    fcn->func_call = fc;
    pg_query__list__init(l);
    items[0] = fcn;
    l->items = items;
    l->n_items = 1;
    ln->node_case = PG_QUERY__NODE__NODE_LIST;
    ln->list = l;
    pg_query__range_function__init(rf);
    fns[0] = ln;
    rf->functions = fns;
    rf->n_functions = 1;
    rf->alias = rv->alias; /* moved: FROM 'x.csv' AS t */
    rv->alias = NULL;
    if (!rf->alias) {
        char *stem = stem_of(path);
        PgQuery__Alias *al = stem ? malloc(sizeof *al) : NULL;
        if (al) {
            pg_query__alias__init(al);
            al->aliasname = stem;
            rf->alias = al;
        } else {
            free(stem);
        }
    }
    pg_query__range_var__free_unpacked(rv, NULL);
    n->node_case = PG_QUERY__NODE__NODE_RANGE_FUNCTION;
    n->range_function = rf;
    return FL_OK;
}

typedef struct apply_walk {
    const fl_from_file *f;
    uint32_t n;
    PgQuery__Node *hits[64];
    const char *paths[64];
    uint32_t nhits;
    uint32_t rangevars; /* RangeVar messages at a literal's offset */
} apply_walk;

static void on_node(const ProtobufCMessage *m, void *ud)
{
    apply_walk *w = ud;
    if (m->descriptor == &pg_query__range_var__descriptor)
        for (uint32_t i = 0; i < w->n; i++)
            w->rangevars += ((const PgQuery__RangeVar *)m)->location == w->f[i].location;
    if (m->descriptor != &pg_query__node__descriptor)
        return;
    PgQuery__Node *n = (PgQuery__Node *)m;
    if (n->node_case != PG_QUERY__NODE__NODE_RANGE_VAR || w->nhits == 64)
        return;
    for (uint32_t i = 0; i < w->n; i++)
        if (n->range_var->location == w->f[i].location) {
            w->hits[w->nhits] = n;
            w->paths[w->nhits++] = w->f[i].path;
        }
}

fl_status fl_sql_from_files_apply(PgQuery__Node *stmt, const fl_from_file *f, uint32_t n,
                                  int32_t *bad_location, fl_error *err)
{
    *bad_location = -1;
    apply_walk w = {.f = f, .n = n};
    /* collect first: replacing while walking would walk the new nodes */
    fl_front_walk((const ProtobufCMessage *)stmt, on_node, &w);
    /* every literal must be a FROM item (a RangeVar in a list or join); one
     * that landed elsewhere (DELETE FROM 'x', a relation field) is no file */
    if (w.nhits != n || w.rangevars != n)
        return fl_errorf(err, FL_ESYNTAX, "not a FROM item");
    for (uint32_t i = 0; i < w.nhits; i++) {
        const char *fn = function_for(w.paths[i]);
        if (!fn) {
            *bad_location = w.hits[i]->range_var->location;
            return fl_error_state(err, FL_EINVAL, "22023",
                                  "cannot tell the format of '%s' from its extension: use "
                                  "read_parquet(), read_orc(), read_csv() or read_json()",
                                  w.paths[i]);
        }
        FL_TRY(replace(w.hits[i], fn, w.paths[i], err));
    }
    return FL_OK;
}
