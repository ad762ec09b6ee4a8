/*
 * pgcat_keys.c - primary keys in pg_catalog and information_schema.
 *
 * DESIGN
 *   An Iceberg table whose current schema has identifier-field-ids (CREATE
 *   TABLE ... PRIMARY KEY sets them) shows the primary key PostgreSQL 15
 *   would show for the same DDL (checked against a PG 15 server):
 *     pg_constraint  oid, conname "<table>_pkey", connamespace, contype 'p',
 *                    convalidated, conrelid, conindid, conislocal,
 *                    connoinherit, conkey {attnum,...} (key order)
 *     pg_index       indexrelid, indrelid, indnatts = indnkeyatts = n,
 *                    indisunique, indisprimary, indimmediate, indisvalid,
 *                    indisready, indislive, indkey "2 1" (int2vector),
 *                    indcollation "100 0" (text keys: default collation),
 *                    indclass (the type's default btree operator class),
 *                    indoption "0 0"
 *     pg_class       a relkind 'i' row for the index (relam 403 btree; made
 *                    by pgcat_snap.c) and relhasindex on the table
 *     pg_attribute   the index's key columns (attnum 1..n)
 *     information_schema table_constraints (PRIMARY KEY, and PostgreSQL's
 *                    "<nspoid>_<reloid>_<attnum>_not_null" CHECK rows for
 *                    required columns), key_column_usage,
 *                    constraint_column_usage, check_constraints.
 *   pg_get_constraintdef gives "PRIMARY KEY (a, b)" and pg_get_indexdef
 *   "CREATE UNIQUE INDEX t_pkey ON ns.t USING btree (a, b)" (pgcat_fn.c).
 *   OIDs: the index is 16384 + FNV-1a("i:" ns "." name), the constraint
 *   FNV-1a("c:" ns "." name), probing past used values (pgcat_snap.c).
 *   Ownership: rows and strings in the planner arena.
 */
#include <stdio.h>
#include <string.h>

#include "sql/pgcat/pgcat.h"

static bool is(const fl_pgcat_def *d, const char *name)
{
    return strcmp(d->name, name) == 0;
}

/* PostgreSQL's reserved key words (those quote_ident quotes), sorted. */
static const char *const reserved[] = {
    "all", "analyse", "analyze", "and", "any", "array", "as", "asc", "asymmetric", "authorization",
    "binary", "both", "case", "cast", "check", "collate", "collation", "column", "concurrently",
    "constraint", "create", "cross", "current_catalog", "current_date", "current_role",
    "current_schema", "current_time", "current_timestamp", "current_user", "default", "deferrable",
    "desc", "distinct", "do", "else", "end", "except", "false", "fetch", "for", "foreign", "freeze",
    "from", "full", "grant", "group", "having", "ilike", "in", "initially", "inner", "intersect",
    "into", "is", "isnull", "join", "lateral", "leading", "left", "like", "limit", "localtime",
    "localtimestamp", "natural", "not", "notnull", "null", "offset", "on", "only", "or", "order",
    "outer", "overlaps", "placing", "primary", "references", "returning", "right", "select",
    "session_user", "similar", "some", "symmetric", "system_user", "table", "tablesample", "then",
    "to", "trailing", "true", "union", "unique", "user", "using", "variadic", "verbose", "when",
    "where", "window", "with"};

static bool is_reserved(const char *s)
{
    size_t lo = 0, hi = sizeof reserved / sizeof reserved[0];
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(s, reserved[mid]);
        if (c == 0)
            return true;
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return false;
}

const char *fl_pgcat_quote_ident(fl_arena *a, const char *name)
{
    const unsigned char *p = (const unsigned char *)name;
    bool plain = (*p >= 'a' && *p <= 'z') || *p == '_';
    for (; plain && *p; p++)
        plain = (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' || *p >= 0x80;
    if (plain && !is_reserved(name))
        return name;
    size_t n = strlen(name);
    char *out = fl_arena_alloc(a, 2 * n + 3);
    if (!out)
        return NULL;
    size_t o = 0;
    out[o++] = '"';
    for (size_t i = 0; i < n; i++) {
        if (name[i] == '"')
            out[o++] = '"';
        out[o++] = name[i];
    }
    out[o++] = '"';
    out[o] = 0;
    return out;
}

/* "a, b" (quoted where needed) or NULL on out of memory. */
static const char *key_columns(fl_arena *a, const fl_pgcat_rel *rel)
{
    const fl_pgcat_key *k = rel->pk;
    size_t cap = 1;
    for (uint32_t i = 0; i < k->ncols; i++)
        cap += 2 * strlen(rel->cols->fields[k->attnums[i] - 1].name) + 4;
    char *out = fl_arena_alloc(a, cap);
    if (!out)
        return NULL;
    size_t o = 0;
    for (uint32_t i = 0; i < k->ncols; i++) {
        const char *q = fl_pgcat_quote_ident(a, rel->cols->fields[k->attnums[i] - 1].name);
        if (!q)
            return NULL;
        o += (size_t)snprintf(out + o, cap - o, "%s%s", i ? ", " : "", q);
    }
    out[o] = 0;
    return out;
}

const char *fl_pgcat_pk_condef(fl_arena *a, const fl_pgcat_rel *rel)
{
    const char *cols = key_columns(a, rel);
    return cols ? fl_arena_sprintf(a, "PRIMARY KEY (%s)", cols) : NULL;
}

/* Is nsp on the search path (pg_catalog, the session schema)? */
static bool visible(const fl_pgcat_snap *s, const char *nsp)
{
    return strcmp(nsp, "pg_catalog") == 0 || strcmp(nsp, s->schema) == 0;
}

const char *fl_pgcat_pk_indexdef(fl_arena *a, const fl_pgcat_snap *s, const fl_pgcat_rel *rel,
                                 bool pretty)
{
    const char *cols = key_columns(a, rel);
    const char *nm = fl_pgcat_quote_ident(a, rel->pk->name);
    const char *tn = fl_pgcat_quote_ident(a, rel->name);
    const char *ns = fl_pgcat_quote_ident(a, rel->nsp);
    if (!cols || !nm || !tn || !ns)
        return NULL;
    if (pretty && visible(s, rel->nsp))
        return fl_arena_sprintf(a, "CREATE UNIQUE INDEX %s ON %s USING btree (%s)", nm, tn, cols);
    return fl_arena_sprintf(a, "CREATE UNIQUE INDEX %s ON %s.%s USING btree (%s)", nm, ns, tn,
                            cols);
}

/* "{1,2}" (int2[]) or "1 2" (int2vector/oidvector) from n numbers. */
static const char *num_list(fl_arena *a, const int64_t *v, uint32_t n, bool braces)
{
    char *out = fl_arena_alloc(a, (size_t)n * 21 + 3);
    if (!out)
        return NULL;
    size_t o = 0;
    if (braces)
        out[o++] = '{';
    for (uint32_t i = 0; i < n; i++)
        o += (size_t)sprintf(out + o, "%s%lld", i ? (braces ? "," : " ") : "", (long long)v[i]);
    if (braces)
        out[o++] = '}';
    out[o] = 0;
    return out;
}

/* The default btree operator class of a PostgreSQL type (pg_opclass of PG 15). */
static int64_t btree_opclass(uint32_t type_oid)
{
    static const uint32_t map[][2] = {
        {16, 10003},   {17, 10006},   {20, 3124},    {21, 1979},   {23, 1978},  {25, 3126},
        {26, 1981},    {700, 10012},  {701, 3123},   {1042, 10004}, {1043, 3126}, {1082, 3122},
        {1083, 10038}, {1114, 3128},  {1184, 3127},  {1186, 10022}, {1700, 3125}, {2950, 10065},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (map[i][0] == type_oid)
            return map[i][1];
    return 0;
}

static fl_status fill_constraint(fl_pgcat_snap *s, fl_pgcat_rows *r, fl_error *err)
{
    for (uint32_t i = 0; i < s->nrels; i++) {
        const fl_pgcat_rel *rel = &s->rels[i];
        const fl_pgcat_key *k = rel->pk;
        if (!k)
            continue;
        int64_t nums[32];
        for (uint32_t c = 0; c < k->ncols; c++)
            nums[c] = k->attnums[c];
        FL_TRY(fl_pgcat_rows_add(r, err));
        fl_pgcat_set_int(r, "oid", k->con_oid);
        fl_pgcat_set_str(r, "conname", k->name);
        fl_pgcat_set_int(r, "connamespace", rel->nsp_oid);
        fl_pgcat_set_str(r, "contype", "p");
        fl_pgcat_set_bool(r, "convalidated", true);
        fl_pgcat_set_int(r, "conrelid", rel->oid);
        fl_pgcat_set_int(r, "conindid", s->rels[k->index_rel].oid);
        fl_pgcat_set_str(r, "confupdtype", " ");
        fl_pgcat_set_str(r, "confdeltype", " ");
        fl_pgcat_set_str(r, "confmatchtype", " ");
        fl_pgcat_set_bool(r, "conislocal", true);
        fl_pgcat_set_bool(r, "connoinherit", true);
        fl_pgcat_set_str(r, "conkey", num_list(r->a, nums, k->ncols, true));
    }
    return FL_OK;
}

static fl_status fill_index(fl_pgcat_snap *s, fl_pgcat_rows *r, fl_error *err)
{
    for (uint32_t i = 0; i < s->nrels; i++) {
        const fl_pgcat_rel *rel = &s->rels[i];
        const fl_pgcat_key *k = rel->pk;
        if (!k)
            continue;
        int64_t keys[32], coll[32], cls[32], opt[32];
        for (uint32_t c = 0; c < k->ncols; c++) {
            uint32_t toid = fl_pg_type_oid(&rel->cols->fields[k->attnums[c] - 1].type);
            keys[c] = k->attnums[c];
            coll[c] = toid == FL_PG_OID_TEXT || toid == FL_PG_OID_VARCHAR ? 100 : 0;
            cls[c] = btree_opclass(toid);
            opt[c] = 0;
        }
        FL_TRY(fl_pgcat_rows_add(r, err));
        fl_pgcat_set_int(r, "indexrelid", s->rels[k->index_rel].oid);
        fl_pgcat_set_int(r, "indrelid", rel->oid);
        fl_pgcat_set_int(r, "indnatts", k->ncols);
        fl_pgcat_set_int(r, "indnkeyatts", k->ncols);
        fl_pgcat_set_bool(r, "indisunique", true);
        fl_pgcat_set_bool(r, "indisprimary", true);
        fl_pgcat_set_bool(r, "indimmediate", true);
        fl_pgcat_set_bool(r, "indisvalid", true);
        fl_pgcat_set_bool(r, "indisready", true);
        fl_pgcat_set_bool(r, "indislive", true);
        fl_pgcat_set_str(r, "indkey", num_list(r->a, keys, k->ncols, false));
        fl_pgcat_set_str(r, "indcollation", num_list(r->a, coll, k->ncols, false));
        fl_pgcat_set_str(r, "indclass", num_list(r->a, cls, k->ncols, false));
        fl_pgcat_set_str(r, "indoption", num_list(r->a, opt, k->ncols, false));
    }
    return FL_OK;
}

fl_status fl_pgcat_fill_keys_pg(fl_planner_ctx *pc, fl_pgcat_snap *s, const fl_pgcat_def *d,
                                fl_pgcat_rows *r, bool *done, fl_error *err)
{
    *done = is(d, "pg_constraint") || is(d, "pg_index");
    if (!*done)
        return FL_OK;
    FL_TRY(fl_pgcat_snap_columns(pc, s, err));
    return is(d, "pg_index") ? fill_index(s, r, err) : fill_constraint(s, r, err);
}

/* ---- information_schema ---- */

static void con_names(fl_pgcat_snap *s, fl_pgcat_rows *r, const fl_pgcat_rel *rel,
                      const char *conname)
{
    fl_pgcat_set_str(r, "constraint_catalog", s->database);
    fl_pgcat_set_str(r, "constraint_schema", rel->nsp);
    fl_pgcat_set_str(r, "constraint_name", conname);
    fl_pgcat_set_str(r, "table_catalog", s->database);
    fl_pgcat_set_str(r, "table_schema", rel->nsp);
    fl_pgcat_set_str(r, "table_name", rel->name);
}

/* PostgreSQL's name of the CHECK constraint a NOT NULL column shows as. */
static const char *notnull_name(fl_arena *a, const fl_pgcat_rel *rel, uint32_t attnum)
{
    return fl_arena_sprintf(a, "%u_%u_%u_not_null", rel->nsp_oid, rel->oid, attnum);
}

static bool user_table(const fl_pgcat_rel *rel)
{
    return rel->kind == 'r' && !rel->builtin && rel->cols;
}

static fl_status fill_table_constraints(fl_pgcat_snap *s, fl_pgcat_rows *r, fl_error *err)
{
    for (uint32_t pass = 0; pass < 2; pass++) /* keys first, then NOT NULL checks, as PG 15 */
        for (uint32_t i = 0; i < s->nrels; i++) {
            const fl_pgcat_rel *rel = &s->rels[i];
            if (!user_table(rel))
                continue;
            for (uint32_t c = 0; c < (pass ? rel->cols->nfields : rel->pk != NULL); c++) {
                if (pass && rel->cols->fields[c].nullable)
                    continue;
                FL_TRY(fl_pgcat_rows_add(r, err));
                con_names(s, r, rel, pass ? notnull_name(r->a, rel, c + 1) : rel->pk->name);
                fl_pgcat_set_str(r, "constraint_type", pass ? "CHECK" : "PRIMARY KEY");
                fl_pgcat_set_str(r, "is_deferrable", "NO");
                fl_pgcat_set_str(r, "initially_deferred", "NO");
                fl_pgcat_set_str(r, "enforced", "YES");
            }
        }
    return FL_OK;
}

static fl_status fill_check_constraints(fl_pgcat_snap *s, fl_pgcat_rows *r, fl_error *err)
{
    for (uint32_t i = 0; i < s->nrels; i++) {
        const fl_pgcat_rel *rel = &s->rels[i];
        if (!user_table(rel))
            continue;
        for (uint32_t c = 0; c < rel->cols->nfields; c++) {
            const fl_field *f = &rel->cols->fields[c];
            if (f->nullable)
                continue;
            FL_TRY(fl_pgcat_rows_add(r, err));
            fl_pgcat_set_str(r, "constraint_catalog", s->database);
            fl_pgcat_set_str(r, "constraint_schema", rel->nsp);
            fl_pgcat_set_str(r, "constraint_name", notnull_name(r->a, rel, c + 1));
            const char *q = fl_pgcat_quote_ident(r->a, f->name);
            fl_pgcat_set_str(r, "check_clause", q ? fl_arena_sprintf(r->a, "%s IS NOT NULL", q) : NULL);
        }
    }
    return FL_OK;
}

/* key_column_usage (key order) and constraint_column_usage (column order). */
static fl_status fill_key_columns(fl_pgcat_snap *s, bool usage, fl_pgcat_rows *r, fl_error *err)
{
    for (uint32_t i = 0; i < s->nrels; i++) {
        const fl_pgcat_rel *rel = &s->rels[i];
        const fl_pgcat_key *k = rel->pk;
        if (!k || !user_table(rel))
            continue;
        for (uint32_t c = 0; c < rel->cols->nfields; c++) {
            uint32_t pos = 0; /* 1-based position of column c (or the c-th key) in the key */
            const char *col = NULL;
            if (usage) {
                for (uint32_t j = 0; j < k->ncols && !pos; j++)
                    if ((uint32_t)k->attnums[j] == c + 1)
                        pos = j + 1;
                col = rel->cols->fields[c].name;
            } else if (c < k->ncols) {
                pos = c + 1;
                col = rel->cols->fields[k->attnums[c] - 1].name;
            }
            if (!pos)
                continue;
            FL_TRY(fl_pgcat_rows_add(r, err));
            con_names(s, r, rel, k->name);
            fl_pgcat_set_str(r, "column_name", col);
            if (!usage)
                fl_pgcat_set_int(r, "ordinal_position", pos);
        }
    }
    return FL_OK;
}

fl_status fl_pgcat_fill_keys_info(fl_planner_ctx *pc, fl_pgcat_snap *s, const fl_pgcat_def *d,
                                  fl_pgcat_rows *r, bool *done, fl_error *err)
{
    *done = is(d, "table_constraints") || is(d, "check_constraints") ||
            is(d, "key_column_usage") || is(d, "constraint_column_usage");
    if (!*done)
        return FL_OK;
    FL_TRY(fl_pgcat_snap_columns(pc, s, err));
    if (is(d, "table_constraints"))
        return fill_table_constraints(s, r, err);
    if (is(d, "check_constraints"))
        return fill_check_constraints(s, r, err);
    return fill_key_columns(s, is(d, "constraint_column_usage"), r, err);
}
