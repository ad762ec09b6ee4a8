/*
 * cmd_sql_complete.c - what the TAB key offers in the interactive `floe sql`
 * (cmd_sql.h, "Tab completion").
 *
 * The candidates for the word under the cursor, in psql's spirit:
 *   - "ns." or "ns.ta": the tables and child namespaces of ns, or, when the
 *     prefix names a table, its columns ("ns.t.co");
 *   - a bare word: SQL keywords (in the case the word was typed in),
 *     namespaces (completed with a '.'), the tables of the default
 *     namespace, and the columns of every table the line names after FROM,
 *     JOIN, UPDATE, INTO, TABLE or DESCRIBE.
 * Everything is read from the catalog and table metadata when TAB is
 * pressed (catalog.h, ice_table.h), so new tables show without a restart; a
 * catalog error only means fewer candidates. The list is sorted and unique.
 *
 * Ownership: candidates live in the caller's arena.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/cmd_sql.h"
#include "floe/arena.h"
#include "floe/ice_table.h"
#include "floe/sql_lex.h"

static const char *const keywords[] = {
    "ALL",
    "ALTER",
    "ANALYZE",
    "AND",
    "ANY",
    "ARRAY",
    "AS",
    "ASC",
    "BEGIN",
    "BETWEEN",
    "BY",
    "CASE",
    "CAST",
    "COMMIT",
    "COPY",
    "CREATE",
    "CROSS",
    "CURRENT_DATE",
    "CURRENT_TIMESTAMP",
    "DELETE",
    "DESC",
    "DESCRIBE",
    "DISTINCT",
    "DROP",
    "ELSE",
    "END",
    "EXCEPT",
    "EXECUTE",
    "EXISTS",
    "EXPLAIN",
    "FALSE",
    "FETCH",
    "FIRST",
    "FOR",
    "FORMAT",
    "FROM",
    "FULL",
    "GRANT",
    "GROUP",
    "HAVING",
    "HEADER",
    "ILIKE",
    "IN",
    "INNER",
    "INSERT",
    "INTERSECT",
    "INTERVAL",
    "INTO",
    "IS",
    "JOIN",
    "LAST",
    "LATERAL",
    "LEFT",
    "LIKE",
    "LIMIT",
    "MATCHED",
    "MERGE",
    "NOT",
    "NULL",
    "NULLS",
    "OF",
    "OFFSET",
    "ON",
    "OR",
    "ORDER",
    "OUTER",
    "OVER",
    "PARTITION",
    "PARTITIONING",
    "RECURSIVE",
    "RENAME",
    "REPLACE",
    "REVOKE",
    "RIGHT",
    "ROLLBACK",
    "SCHEMA",
    "SCHEMAS",
    "SELECT",
    "SET",
    "SHOW",
    "TABLE",
    "TABLES",
    "THEN",
    "TIMESTAMP",
    "TO",
    "TRUE",
    "UNION",
    "UNNEST",
    "UPDATE",
    "USE",
    "USING",
    "VALUES",
    "VERSION",
    "VIEW",
    "WHEN",
    "WHERE",
    "WINDOW",
    "WITH",
};

typedef struct cands {
    fl_arena *a;
    const char **v;
    uint32_t n, cap;
    const char *prefix; /* what the word typed so far is */
    size_t plen;
} cands;

static bool starts_with(const char *s, const char *prefix, size_t n, bool fold)
{
    return fold ? strncasecmp(s, prefix, n) == 0 : strncmp(s, prefix, n) == 0;
}

/* Adds s (allocated in the arena) when it extends the prefix. */
static void add(cands *c, const char *s, bool fold)
{
    if (!s || !starts_with(s, c->prefix, c->plen, fold))
        return;
    for (uint32_t i = 0; i < c->n; i++)
        if (!strcmp(c->v[i], s))
            return;
    if (c->n == c->cap) {
        uint32_t cap = c->cap ? c->cap * 2 : 32;
        const char **v = fl_arena_alloc(c->a, cap * sizeof *v);
        if (!v)
            return;
        if (c->n)
            memcpy(v, c->v, c->n * sizeof *v);
        c->v = v;
        c->cap = cap;
    }
    c->v[c->n++] = s;
}

/* The keyword in the case of the typed word: lower case unless the word's
 * first letter is upper case. */
static void add_keywords(cands *c)
{
    bool upper = c->plen && isupper((unsigned char)c->prefix[0]);
    for (size_t k = 0; k < sizeof keywords / sizeof *keywords; k++) {
        char *w = fl_arena_strdup(c->a, keywords[k]);
        if (!w)
            return;
        if (!upper)
            for (char *p = w; *p; p++)
                *p = (char)tolower((unsigned char)*p);
        add(c, w, true);
    }
}

static void add_columns_of(cands *c, fl_catalog *cat, const fl_table_ident *id, const char *qual)
{
    fl_ice_table *t = NULL;
    fl_error err;
    if (fl_ice_table_load(cat, id, &t, &err) != FL_OK)
        return;
    const fl_ice_schema *is = fl_ice_metadata_current_schema(&t->meta);
    for (uint32_t i = 0; is && i < is->schema.nfields; i++) {
        const char *name = is->schema.fields[i].name;
        add(c, qual ? fl_arena_sprintf(c->a, "%s.%s", qual, name) : fl_arena_strdup(c->a, name),
            false);
    }
    fl_ice_table_free(t);
}

/* Tables and child namespaces of ns, each written after "qual.". */
static void add_children(cands *c, fl_catalog *cat, const fl_namespace *ns, const char *qual)
{
    fl_error err;
    const char **names = NULL;
    uint32_t n = 0;
    if (cat->ops->list_tables(cat, ns, c->a, &names, &n, &err) == FL_OK)
        for (uint32_t i = 0; i < n; i++)
            add(c, qual ? fl_arena_sprintf(c->a, "%s.%s", qual, names[i]) : names[i], false);
    fl_namespace *kids = NULL;
    if (cat->ops->list_namespaces(cat, ns, c->a, &kids, &n, &err) == FL_OK)
        for (uint32_t i = 0; i < n; i++) {
            const char *last = kids[i].levels[kids[i].nlevels - 1];
            add(c,
                qual ? fl_arena_sprintf(c->a, "%s.%s.", qual, last)
                     : fl_arena_sprintf(c->a, "%s.", last),
                false);
        }
}

/* The table a name denotes: "ns.t" as written, "t" in the default namespace. */
static bool table_ident(const char *name, const char *default_ns, fl_arena *a, fl_table_ident *id)
{
    fl_error err;
    const char *full = name;
    if (!strchr(name, '.')) {
        if (!default_ns || !*default_ns)
            return false;
        full = fl_arena_sprintf(a, "%s.%s", default_ns, name);
    }
    return full && fl_table_ident_parse(full, a, id, &err) == FL_OK;
}

/* The word has a dot: complete after its last one. */
static void complete_qualified(cands *c, fl_catalog *cat, const char *default_ns)
{
    const char *dot = strrchr(c->prefix, '.');
    char *qual = fl_arena_strndup(c->a, c->prefix, (size_t)(dot - c->prefix));
    fl_namespace ns;
    fl_error err;
    if (!qual || !*qual)
        return;
    if (fl_namespace_parse(qual, c->a, &ns, &err) == FL_OK)
        add_children(c, cat, &ns, qual);
    fl_table_ident id;
    if (table_ident(qual, default_ns, c->a, &id))
        add_columns_of(c, cat, &id, qual);
}

/* Where a table name ends: dotted words joined ("a.b.c"), from start. */
static size_t dotted_end(const char *line, size_t n, size_t end)
{
    while (end + 1 < n && line[end] == '.' &&
           (isalnum((unsigned char)line[end + 1]) || line[end + 1] == '_')) {
        end++;
        while (end < n && (isalnum((unsigned char)line[end]) || line[end] == '_'))
            end++;
    }
    return end;
}

static bool is_one_of(const char *line, const fl_tok *t, const char *const *words, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (fl_tok_is(line, t, words[k]))
            return true;
    return false;
}

/* Columns of the tables the line names after FROM, JOIN, UPDATE, INTO,
 * TABLE or DESCRIBE, and after the commas of a FROM list ("from a x, b");
 * a dotted name is one table. */
static void add_line_columns(cands *c, fl_catalog *cat, const char *line, const char *default_ns)
{
    static const char *const before_table[] = {"from", "join",  "update",
                                               "into", "table", "describe"};
    static const char *const list_ends[] = {"where", "on",    "using",   "group",  "order",
                                            "limit", "set",   "values",  "select", "having",
                                            "union", "join",  "left",    "right",  "inner",
                                            "full",  "cross", "natural", "window", "offset"};
    size_t n = strlen(line), pos = 0;
    bool want = false, in_list = false;
    for (int guard = 0; guard < 4096; guard++) {
        fl_tok t = fl_lex_next(line, n, &pos);
        if (t.kind == FL_TOK_EOF || t.kind == FL_TOK_ERROR)
            return;
        if (want && t.kind == FL_TOK_IDENT) {
            pos = dotted_end(line, n, t.start + t.len);
            char *name = fl_arena_strndup(c->a, line + t.start, pos - t.start);
            fl_table_ident id;
            if (name && table_ident(name, default_ns, c->a, &id))
                add_columns_of(c, cat, &id, NULL);
            want = false;
            in_list = true;
            continue;
        }
        want = t.kind == FL_TOK_IDENT &&
               is_one_of(line, &t, before_table, sizeof before_table / sizeof *before_table);
        if (fl_tok_punct(line, &t, ','))
            want = in_list;
        else if (t.kind != FL_TOK_IDENT ||
                 is_one_of(line, &t, list_ends, sizeof list_ends / sizeof *list_ends))
            in_list = false;
    }
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

const char **fl_sqlcomplete(fl_catalog *cat, const char *default_ns, const char *line,
                            const char *word, fl_arena *a, uint32_t *n)
{
    cands c = {.a = a, .prefix = word ? word : "", .plen = word ? strlen(word) : 0};
    if (strchr(c.prefix, '.')) {
        if (cat)
            complete_qualified(&c, cat, default_ns);
    } else {
        add_keywords(&c);
        if (cat) {
            fl_namespace root = {0, NULL};
            add_children(&c, cat, &root, NULL);
            fl_namespace ns;
            fl_error err;
            if (default_ns && *default_ns && fl_namespace_parse(default_ns, a, &ns, &err) == FL_OK)
                add_children(&c, cat, &ns, NULL);
            add_line_columns(&c, cat, line ? line : "", default_ns);
        }
    }
    if (c.n > 1)
        qsort(c.v, c.n, sizeof *c.v, cmp_str);
    *n = c.n;
    return c.v;
}
