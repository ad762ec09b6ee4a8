/*
 * sql_catalog.c - catalog operations over Iceberg's JDBC table layout
 * (see sql_catalog.h), shared by the SQLite and PostgreSQL drivers.
 *
 * Semantics follow Java's JdbcCatalog:
 *   - namespaces are dot-joined strings; a namespace exists when it or a
 *     descendant has a row in iceberg_namespace_properties or
 *     iceberg_tables; create_namespace stores its properties plus
 *     "exists"="true" (hidden again by load_namespace);
 *   - the commit is one UPDATE ... WHERE metadata_location = expected; one
 *     changed row = success, none = FL_ECONFLICT (or FL_ENOTFOUND when the
 *     row is gone); previous_metadata_location gets the expected location.
 * Multi-statement operations run in one write transaction (SQLite BEGIN
 * IMMEDIATE, PostgreSQL SERIALIZABLE) and are retried when the driver flags
 * a serialization failure. LIKE is only a coarse filter (SQLite's is
 * case-insensitive); prefixes are re-checked here byte for byte.
 * Errors carry the table or namespace name, prefixed to the driver message.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "catalog/sql_catalog.h"
#include "floe/ice_table.h"

#define TYPE_FILTER " AND (iceberg_type = 'TABLE' OR iceberg_type IS NULL)"
#define VIEW_FILTER " AND iceberg_type = 'VIEW'"
/* V0 databases (no iceberg_type column) hold no views; the view ops refuse
 * before running this placeholder. */
#define NO_VIEWS "SELECT 1 WHERE 1 = 0"
#define KEY3 "catalog_name = ? AND table_namespace = ? AND table_name = ?"
#define MAX_TXN_ATTEMPTS 100
#define EXISTS_PROP "exists"

const char *sql_text(sql_stmt q, bool v1)
{
    switch (q) {
    case Q_GET_TABLE:
        return v1 ? "SELECT metadata_location, previous_metadata_location FROM iceberg_tables "
                    "WHERE " KEY3 TYPE_FILTER
                  : "SELECT metadata_location, previous_metadata_location FROM iceberg_tables "
                    "WHERE " KEY3;
    case Q_LIST_TABLES:
        return v1 ? "SELECT table_name FROM iceberg_tables WHERE catalog_name = ? AND "
                    "table_namespace = ?" TYPE_FILTER " ORDER BY table_name"
                  : "SELECT table_name FROM iceberg_tables WHERE catalog_name = ? AND "
                    "table_namespace = ? ORDER BY table_name";
    case Q_INSERT_TABLE:
        return v1 ? "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, "
                    "metadata_location, previous_metadata_location, iceberg_type) VALUES "
                    "(?,?,?,?,null,'TABLE')"
                  : "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, "
                    "metadata_location, previous_metadata_location) VALUES (?,?,?,?,null)";
    case Q_COMMIT:
        return v1 ? "UPDATE iceberg_tables SET metadata_location = ? , previous_metadata_location "
                    "= ? WHERE " KEY3 " AND metadata_location = ?" TYPE_FILTER
                  : "UPDATE iceberg_tables SET metadata_location = ? , previous_metadata_location "
                    "= ? WHERE " KEY3 " AND metadata_location = ?";
    case Q_DROP_TABLE:
        return v1 ? "DELETE FROM iceberg_tables WHERE " KEY3 TYPE_FILTER
                  : "DELETE FROM iceberg_tables WHERE " KEY3;
    case Q_RENAME:
        return v1 ? "UPDATE iceberg_tables SET table_namespace = ?, table_name = ? WHERE " KEY3
                        TYPE_FILTER
                  : "UPDATE iceberg_tables SET table_namespace = ?, table_name = ? WHERE " KEY3;
    case Q_LIST_TABLE_NS:
        return "SELECT DISTINCT table_namespace FROM iceberg_tables WHERE catalog_name = ? AND "
               "table_namespace LIKE ? ESCAPE '!'";
    case Q_LIST_PROP_NS:
        return "SELECT DISTINCT namespace FROM iceberg_namespace_properties WHERE catalog_name = "
               "? AND namespace LIKE ? ESCAPE '!'";
    case Q_GET_PROPS:
        return "SELECT property_key, property_value FROM iceberg_namespace_properties WHERE "
               "catalog_name = ? AND namespace = ? ORDER BY property_key";
    case Q_UPSERT_PROP:
        return "INSERT INTO iceberg_namespace_properties (catalog_name, namespace, property_key, "
               "property_value) VALUES (?,?,?,?) ON CONFLICT (catalog_name, namespace, "
               "property_key) DO UPDATE SET property_value = excluded.property_value";
    case Q_DELETE_PROP:
        return "DELETE FROM iceberg_namespace_properties WHERE catalog_name = ? AND namespace = ? "
               "AND property_key = ?";
    case Q_DELETE_PROPS:
        return "DELETE FROM iceberg_namespace_properties WHERE catalog_name = ? AND namespace = ?";
    case Q_GET_VIEW:
        return v1 ? "SELECT metadata_location, previous_metadata_location FROM iceberg_tables "
                    "WHERE " KEY3 VIEW_FILTER
                  : NO_VIEWS;
    case Q_LIST_VIEWS:
        return v1 ? "SELECT table_name FROM iceberg_tables WHERE catalog_name = ? AND "
                    "table_namespace = ?" VIEW_FILTER " ORDER BY table_name"
                  : NO_VIEWS;
    case Q_INSERT_VIEW:
        return v1 ? "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, "
                    "metadata_location, previous_metadata_location, iceberg_type) VALUES "
                    "(?,?,?,?,null,'VIEW')"
                  : NO_VIEWS;
    case Q_COMMIT_VIEW:
        return v1 ? "UPDATE iceberg_tables SET metadata_location = ? , previous_metadata_location "
                    "= ? WHERE " KEY3 " AND metadata_location = ?" VIEW_FILTER
                  : NO_VIEWS;
    case Q_DROP_VIEW:
        return v1 ? "DELETE FROM iceberg_tables WHERE " KEY3 VIEW_FILTER : NO_VIEWS;
    case Q_RENAME_VIEW:
        return v1 ? "UPDATE iceberg_tables SET table_namespace = ?, table_name = ? WHERE " KEY3
                        VIEW_FILTER
                  : NO_VIEWS;
    case Q_COUNT: break;
    }
    return NULL;
}

/* ---- plumbing ---- */

static sql_catalog *SC(fl_catalog *c)
{
    return (sql_catalog *)c;
}

static fl_status run(sql_catalog *c, sql_stmt q, const char *const *p, uint32_t np, fl_arena *a,
                     sql_rows *rows, uint64_t *changes, fl_error *err)
{
    return c->drv->exec(c, q, p, np, a, rows, changes, err);
}

typedef fl_status (*txn_body)(sql_catalog *c, void *arg, fl_arena *a, fl_error *err);

static void backoff(int attempt)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    long cap_us = 1000L << (attempt < 6 ? attempt : 6); /* 1..64 ms */
    long us = 200 + (long)((unsigned long)ts.tv_nsec % (unsigned long)cap_us);
    struct timespec d = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&d, NULL);
}

/* Runs body in a write transaction, again while the driver says retryable.
 * The arena is reset between attempts (by rewinding to a fresh arena). */
static fl_status in_txn(sql_catalog *c, txn_body body, void *arg, fl_error *err)
{
    for (int attempt = 0;; attempt++) {
        fl_arena a;
        fl_arena_init(&a, 0);
        c->retryable = false;
        fl_status rc = c->drv->begin(c, err);
        if (rc == FL_OK) {
            rc = body(c, arg, &a, err);
            if (rc == FL_OK)
                rc = c->drv->commit(c, err);
            if (rc != FL_OK)
                c->drv->rollback(c);
        }
        fl_arena_free(&a);
        if (rc == FL_OK || !c->retryable || attempt + 1 >= MAX_TXN_ATTEMPTS)
            return rc;
        backoff(attempt);
    }
}

/* LIKE pattern matching ns itself and everything below it: "<ns escaped>%". */
static const char *like_prefix(const char *ns, fl_arena *a)
{
    char *p = fl_arena_alloc(a, 2 * strlen(ns) + 2);
    if (!p)
        return NULL;
    size_t o = 0;
    for (const char *s = ns; *s; s++) {
        if (*s == '%' || *s == '_' || *s == '!')
            p[o++] = '!';
        p[o++] = *s;
    }
    p[o++] = '%';
    p[o] = '\0';
    return p;
}

/* Is s == ns or below it ("ns.x...")? With ns "" everything is below. */
static bool at_or_below(const char *s, const char *ns)
{
    size_t n = strlen(ns);
    if (n == 0)
        return true;
    return strncmp(s, ns, n) == 0 && (s[n] == '\0' || s[n] == '.');
}

/* Both namespace columns whose value is ns or below it. */
static fl_status ns_rows(sql_catalog *c, const char *ns, fl_arena *a, sql_rows *t, sql_rows *p,
                         fl_error *err)
{
    const char *pat = like_prefix(ns, a);
    if (!pat)
        return fl_errorf(err, FL_ENOMEM, "catalog: out of memory");
    const char *params[2] = {c->base.name, pat};
    FL_TRY(run(c, Q_LIST_TABLE_NS, params, 2, a, t, NULL, err));
    return run(c, Q_LIST_PROP_NS, params, 2, a, p, NULL, err);
}

static fl_status ns_exists(sql_catalog *c, const char *ns, fl_arena *a, bool *exists, fl_error *err)
{
    *exists = true;
    if (!*ns)
        return FL_OK;
    sql_rows t, p;
    FL_TRY(ns_rows(c, ns, a, &t, &p, err));
    for (uint32_t i = 0; i < t.nrows; i++)
        if (t.cells[i] && at_or_below(t.cells[i], ns))
            return FL_OK;
    for (uint32_t i = 0; i < p.nrows; i++)
        if (p.cells[i] && at_or_below(p.cells[i], ns))
            return FL_OK;
    *exists = false;
    return FL_OK;
}

static fl_status ns_must_exist(sql_catalog *c, const char *ns, fl_arena *a, fl_error *err)
{
    bool ok;
    FL_TRY(ns_exists(c, ns, a, &ok, err));
    return ok ? FL_OK
              : fl_errorf(err, FL_ENOTFOUND, "namespace '%s' does not exist in catalog '%s'", ns,
                          c->base.name);
}

static fl_status oom(fl_error *err)
{
    return fl_errorf(err, FL_ENOMEM, "catalog: out of memory");
}

/* ---- namespaces ---- */

typedef struct ns_arg {
    const fl_namespace *ns;
    const fl_ice_map *set;
    const char *const *remove;
    uint32_t nremove;
    bool create;
} ns_arg;

static fl_status upsert_props(sql_catalog *c, const char *ns, const fl_ice_map *m, fl_error *err)
{
    for (uint32_t i = 0; m && i < m->n; i++) {
        const char *p[4] = {c->base.name, ns, m->items[i].key, m->items[i].value};
        FL_TRY(run(c, Q_UPSERT_PROP, p, 4, NULL, NULL, NULL, err));
    }
    return FL_OK;
}

static fl_status ns_change_body(sql_catalog *c, void *arg, fl_arena *a, fl_error *err)
{
    ns_arg *x = arg;
    const char *ns;
    FL_TRY(fl_cat_ns_join(x->ns, a, &ns, err));
    if (x->ns->nlevels == 0)
        return fl_errorf(err, FL_EINVAL, "namespace: the root namespace has no properties");
    bool exists;
    FL_TRY(ns_exists(c, ns, a, &exists, err));
    if (x->create && exists)
        return fl_errorf(err, FL_EEXIST, "namespace '%s' already exists", ns);
    if (!x->create && !exists)
        return fl_errorf(err, FL_ENOTFOUND, "namespace '%s' does not exist", ns);
    for (uint32_t i = 0; i < x->nremove; i++) {
        const char *p[3] = {c->base.name, ns, x->remove[i]};
        FL_TRY(run(c, Q_DELETE_PROP, p, 3, NULL, NULL, NULL, err));
    }
    FL_TRY(upsert_props(c, ns, x->set, err));
    if (x->create) {
        fl_ice_kv kv = {EXISTS_PROP, "true"};
        fl_ice_map m = {1, &kv};
        FL_TRY(upsert_props(c, ns, &m, err));
    }
    return FL_OK;
}

static fl_status sql_create_namespace(fl_catalog *cat, const fl_namespace *ns,
                                      const fl_ice_map *props, fl_error *err)
{
    ns_arg x = {ns, props, NULL, 0, true};
    return in_txn(SC(cat), ns_change_body, &x, err);
}

static fl_status sql_update_namespace(fl_catalog *cat, const fl_namespace *ns,
                                      const fl_ice_map *set, const char *const *remove,
                                      uint32_t nremove, fl_error *err)
{
    ns_arg x = {ns, set, remove, nremove, false};
    return in_txn(SC(cat), ns_change_body, &x, err);
}

/* Adds the level after prefix ns of s to the sorted unique list out[*n]. */
static fl_status add_child(const char *s, const char *ns, fl_arena *a, const char **out,
                           uint32_t *n, fl_error *err)
{
    if (!s || !at_or_below(s, ns))
        return FL_OK;
    size_t nl = strlen(ns);
    if (nl && s[nl] == '\0')
        return FL_OK; /* ns itself */
    const char *start = nl ? s + nl + 1 : s;
    const char *dot = strchr(start, '.');
    size_t len = dot ? (size_t)(dot - start) : strlen(start);
    if (len == 0)
        return FL_OK;
    const char *level = fl_cat_ns_level_decode(start, len, a);
    if (!level)
        return oom(err);
    uint32_t i = 0;
    while (i < *n) {
        int cmp = strcmp(out[i], level);
        if (cmp == 0)
            return FL_OK;
        if (cmp > 0)
            break;
        i++;
    }
    memmove(out + i + 1, out + i, (*n - i) * sizeof *out);
    out[i] = level;
    (*n)++;
    return FL_OK;
}

static fl_status child_names(sql_catalog *c, const char *ns, fl_arena *a, const char ***names,
                             uint32_t *n, fl_error *err)
{
    sql_rows t, p;
    FL_TRY(ns_rows(c, ns, a, &t, &p, err));
    const char **out = fl_arena_alloc(a, (t.nrows + p.nrows + 1) * sizeof *out);
    if (!out)
        return oom(err);
    *n = 0;
    for (uint32_t i = 0; i < t.nrows; i++)
        FL_TRY(add_child(t.cells[i], ns, a, out, n, err));
    for (uint32_t i = 0; i < p.nrows; i++)
        FL_TRY(add_child(p.cells[i], ns, a, out, n, err));
    *names = out;
    return FL_OK;
}

static fl_status sql_list_namespaces(fl_catalog *cat, const fl_namespace *parent, fl_arena *a,
                                     fl_namespace **out, uint32_t *n, fl_error *err)
{
    sql_catalog *c = SC(cat);
    fl_namespace root = {0, NULL};
    if (!parent)
        parent = &root;
    const char *ns;
    FL_TRY(fl_cat_ns_join(parent, a, &ns, err));
    FL_TRY(ns_must_exist(c, ns, a, err));
    const char **names;
    uint32_t k;
    FL_TRY(child_names(c, ns, a, &names, &k, err));
    fl_namespace *res = fl_arena_alloc(a, (k + 1) * sizeof *res);
    if (!res)
        return oom(err);
    for (uint32_t i = 0; i < k; i++) {
        const char **lv = fl_arena_alloc(a, (parent->nlevels + 1) * sizeof *lv);
        if (!lv)
            return oom(err);
        for (uint32_t j = 0; j < parent->nlevels; j++)
            lv[j] = parent->levels[j];
        lv[parent->nlevels] = names[i];
        res[i].levels = lv;
        res[i].nlevels = parent->nlevels + 1;
    }
    *out = res;
    *n = k;
    return FL_OK;
}

static fl_status sql_load_namespace(fl_catalog *cat, const fl_namespace *nsp, fl_arena *a,
                                    fl_ice_map *props, fl_error *err)
{
    sql_catalog *c = SC(cat);
    const char *ns;
    FL_TRY(fl_cat_ns_join(nsp, a, &ns, err));
    FL_TRY(ns_must_exist(c, ns, a, err));
    const char *p[2] = {c->base.name, ns};
    sql_rows r;
    FL_TRY(run(c, Q_GET_PROPS, p, 2, a, &r, NULL, err));
    props->items = fl_arena_alloc(a, (r.nrows + 1) * sizeof *props->items);
    if (!props->items)
        return oom(err);
    props->n = 0;
    for (uint32_t i = 0; i < r.nrows; i++) {
        const char *k = r.cells[2 * i], *v = r.cells[2 * i + 1];
        if (!k || strcmp(k, EXISTS_PROP) == 0)
            continue;
        props->items[props->n].key = k;
        props->items[props->n++].value = v ? v : "";
    }
    return FL_OK;
}

static fl_status drop_ns_body(sql_catalog *c, void *arg, fl_arena *a, fl_error *err)
{
    const fl_namespace *nsp = arg;
    const char *ns;
    FL_TRY(fl_cat_ns_join(nsp, a, &ns, err));
    if (!*ns)
        return fl_errorf(err, FL_EINVAL, "drop namespace: the root namespace cannot be dropped");
    FL_TRY(ns_must_exist(c, ns, a, err));
    const char **names;
    uint32_t k;
    FL_TRY(child_names(c, ns, a, &names, &k, err));
    if (k > 0)
        return fl_errorf(err, FL_ECONFLICT, "namespace '%s' is not empty: %u child namespace(s)",
                         ns, k);
    const char *p[2] = {c->base.name, ns};
    sql_rows r;
    FL_TRY(run(c, Q_LIST_TABLES, p, 2, a, &r, NULL, err));
    if (r.nrows > 0)
        return fl_errorf(err, FL_ECONFLICT, "namespace '%s' is not empty: %u table(s)", ns,
                         r.nrows);
    FL_TRY(run(c, Q_LIST_VIEWS, p, 2, a, &r, NULL, err));
    if (r.nrows > 0)
        return fl_errorf(err, FL_ECONFLICT, "namespace '%s' is not empty: %u view(s)", ns,
                         r.nrows);
    return run(c, Q_DELETE_PROPS, p, 2, NULL, NULL, NULL, err);
}

static fl_status sql_drop_namespace(fl_catalog *cat, const fl_namespace *ns, fl_error *err)
{
    return in_txn(SC(cat), drop_ns_body, (void *)ns, err);
}

static fl_status sql_list_tables(fl_catalog *cat, const fl_namespace *nsp, fl_arena *a,
                                 const char ***names, uint32_t *n, fl_error *err)
{
    sql_catalog *c = SC(cat);
    const char *ns;
    FL_TRY(fl_cat_ns_join(nsp, a, &ns, err));
    FL_TRY(ns_must_exist(c, ns, a, err));
    const char *p[2] = {c->base.name, ns};
    sql_rows r;
    FL_TRY(run(c, Q_LIST_TABLES, p, 2, a, &r, NULL, err));
    *names = r.cells;
    *n = r.nrows;
    return FL_OK;
}

/* ---- tables ---- */

/* Current row of id: *found false when absent; loc/prev may be NULL. */
static fl_status get_table(sql_catalog *c, const char *ns, const char *name, fl_arena *a,
                           bool *found, const char **loc, const char **prev, fl_error *err)
{
    const char *p[3] = {c->base.name, ns, name};
    sql_rows r;
    FL_TRY(run(c, Q_GET_TABLE, p, 3, a, &r, NULL, err));
    *found = r.nrows > 0;
    if (loc)
        *loc = *found ? r.cells[0] : NULL;
    if (prev)
        *prev = *found ? r.cells[1] : NULL;
    return FL_OK;
}

static fl_status sql_load_table(fl_catalog *cat, const fl_table_ident *id, fl_arena *a,
                                const char **metadata_location, fl_error *err)
{
    sql_catalog *c = SC(cat);
    const char *ns;
    FL_TRY(fl_cat_ns_join(&id->ns, a, &ns, err));
    bool found;
    const char *loc;
    fl_status rc = get_table(c, ns, id->name, a, &found, &loc, NULL, err);
    if (rc != FL_OK)
        return fl_error_prefix(err, "load table %s.%s", ns, id->name);
    if (!found)
        return fl_errorf(err, FL_ENOTFOUND, "table %s.%s does not exist in catalog '%s'", ns,
                         id->name, c->base.name);
    if (!loc)
        return fl_errorf(err, FL_ECORRUPT, "table %s.%s: metadata_location is NULL", ns, id->name);
    *metadata_location = loc;
    return FL_OK;
}

typedef struct tbl_arg {
    const fl_table_ident *id, *to;
    const char *loc, *expected;
} tbl_arg;

static fl_status create_body(sql_catalog *c, void *arg, fl_arena *a, fl_error *err)
{
    tbl_arg *x = arg;
    const char *ns;
    FL_TRY(fl_cat_ns_join(&x->id->ns, a, &ns, err));
    FL_TRY(ns_must_exist(c, ns, a, err));
    const char *p[4] = {c->base.name, ns, x->id->name, x->loc};
    fl_status rc = run(c, Q_INSERT_TABLE, p, 4, NULL, NULL, NULL, err);
    if (rc == FL_EEXIST)
        return fl_errorf(err, FL_EEXIST, "table %s.%s already exists", ns, x->id->name);
    return rc;
}

static fl_status sql_create_table(fl_catalog *cat, const fl_table_ident *id,
                                  const char *metadata_location, fl_error *err)
{
    if (!metadata_location || !*metadata_location)
        return fl_errorf(err, FL_EINVAL, "create table %s: empty metadata location", id->name);
    tbl_arg x = {id, NULL, metadata_location, NULL};
    return in_txn(SC(cat), create_body, &x, err);
}

static fl_status commit_body(sql_catalog *c, void *arg, fl_arena *a, fl_error *err)
{
    tbl_arg *x = arg;
    const char *ns;
    FL_TRY(fl_cat_ns_join(&x->id->ns, a, &ns, err));
    const char *p[6] = {x->loc, x->expected, c->base.name, ns, x->id->name, x->expected};
    uint64_t changed = 0;
    FL_TRY(run(c, Q_COMMIT, p, 6, NULL, NULL, &changed, err));
    if (changed == 1)
        return FL_OK;
    bool found;
    const char *cur;
    FL_TRY(get_table(c, ns, x->id->name, a, &found, &cur, NULL, err));
    if (!found)
        return fl_errorf(err, FL_ENOTFOUND, "commit to table %s.%s: the table no longer exists", ns,
                         x->id->name);
    return fl_errorf(err, FL_ECONFLICT,
                     "commit to table %s.%s: metadata location is %s, expected %s", ns, x->id->name,
                     cur ? cur : "NULL", x->expected);
}

static fl_status sql_commit_table(fl_catalog *cat, const fl_table_ident *id, const char *expected,
                                  const char *new_location, fl_error *err)
{
    if (!expected || !new_location)
        return fl_errorf(err, FL_EINVAL, "commit to table %s: NULL metadata location", id->name);
    tbl_arg x = {id, NULL, new_location, expected};
    fl_status rc = in_txn(SC(cat), commit_body, &x, err);
    if (rc != FL_OK && rc != FL_ECONFLICT && rc != FL_ENOTFOUND)
        return fl_error_prefix(err, "commit to table %s", id->name);
    return rc;
}

static fl_status sql_drop_table(fl_catalog *cat, const fl_table_ident *id, fl_error *err)
{
    sql_catalog *c = SC(cat);
    fl_arena a;
    fl_arena_init(&a, 1024);
    const char *ns;
    fl_status rc = fl_cat_ns_join(&id->ns, &a, &ns, err);
    uint64_t changed = 0;
    if (rc == FL_OK) {
        const char *p[3] = {c->base.name, ns, id->name};
        rc = run(c, Q_DROP_TABLE, p, 3, NULL, NULL, &changed, err);
        if (rc != FL_OK)
            fl_error_prefix(err, "drop table %s.%s", ns, id->name);
        else if (changed == 0)
            rc = fl_errorf(err, FL_ENOTFOUND, "drop table %s.%s: no such table", ns, id->name);
    }
    fl_arena_free(&a);
    return rc;
}

static fl_status rename_body(sql_catalog *c, void *arg, fl_arena *a, fl_error *err)
{
    tbl_arg *x = arg;
    const char *ns, *tns;
    FL_TRY(fl_cat_ns_join(&x->id->ns, a, &ns, err));
    FL_TRY(fl_cat_ns_join(&x->to->ns, a, &tns, err));
    bool found;
    FL_TRY(get_table(c, ns, x->id->name, a, &found, NULL, NULL, err));
    if (!found)
        return fl_errorf(err, FL_ENOTFOUND, "rename table %s.%s: no such table", ns, x->id->name);
    FL_TRY(ns_must_exist(c, tns, a, err));
    FL_TRY(get_table(c, tns, x->to->name, a, &found, NULL, NULL, err));
    if (found)
        return fl_errorf(err, FL_EEXIST, "rename table %s.%s: %s.%s already exists", ns,
                         x->id->name, tns, x->to->name);
    const char *p[5] = {tns, x->to->name, c->base.name, ns, x->id->name};
    uint64_t changed = 0;
    fl_status rc = run(c, Q_RENAME, p, 5, NULL, NULL, &changed, err);
    if (rc == FL_EEXIST)
        return fl_errorf(err, FL_EEXIST, "rename table %s.%s: %s.%s already exists (a view?)", ns,
                         x->id->name, tns, x->to->name);
    if (rc == FL_OK && changed != 1)
        return fl_errorf(err, FL_ENOTFOUND, "rename table %s.%s: no such table", ns, x->id->name);
    return rc;
}

static fl_status sql_rename_table(fl_catalog *cat, const fl_table_ident *from,
                                  const fl_table_ident *to, fl_error *err)
{
    tbl_arg x = {from, to, NULL, NULL};
    return in_txn(SC(cat), rename_body, &x, err);
}

/* <location>/metadata/<NNNNN>-<uuid>.metadata.json, NNNNN = base's version + 1
 * (Java's BaseMetastoreTableOperations naming), else `version`. */
static fl_status sql_new_metadata_path(fl_catalog *cat, const fl_table_ident *id,
                                       const char *table_location, const char *base_location,
                                       int64_t version, fl_arena *a, const char **out,
                                       fl_error *err)
{
    if (!table_location || !*table_location)
        return fl_errorf(err, FL_EINVAL, "table %s: no table location", id->name);
    int64_t v = version > 0 ? version : 0;
    if (base_location) {
        const char *b = fl_cat_basename(base_location);
        const char *dash = strchr(b, '-');
        int64_t parsed;
        if (dash && fl_cat_parse_i64(b, (size_t)(dash - b), &parsed))
            v = parsed + 1;
    }
    char uuid[37];
    fl_ice_uuid4(uuid);
    size_t tl = strlen(table_location);
    while (tl > 1 && table_location[tl - 1] == '/')
        tl--;
    *out = fl_arena_sprintf(a, "%.*s/metadata/%05lld-%s.metadata.json", (int)tl, table_location,
                            (long long)v, uuid);
    return *out ? FL_OK : oom(err);
}

/* ---- multi-table commit ---- */

typedef struct multi_arg {
    const fl_catalog_commit *commits;
    uint32_t n;
} multi_arg;

static fl_status multi_body(sql_catalog *c, void *arg, fl_arena *a, fl_error *err)
{
    multi_arg *m = arg;
    for (uint32_t i = 0; i < m->n; i++) {
        tbl_arg x = {&m->commits[i].id, NULL, m->commits[i].new_location,
                     m->commits[i].expected_location};
        FL_TRY(commit_body(c, &x, a, err)); /* any failure rolls back all */
    }
    return FL_OK;
}

static fl_status sql_commit_tables(fl_catalog *cat, const fl_catalog_commit *commits, uint32_t n,
                                   fl_error *err)
{
    for (uint32_t i = 0; i < n; i++)
        if (!commits[i].expected_location || !commits[i].new_location)
            return fl_errorf(err, FL_EINVAL, "commit to table %s: NULL metadata location",
                             commits[i].id.name);
    multi_arg m = {commits, n};
    return in_txn(SC(cat), multi_body, &m, err);
}

/* ---- views (iceberg_type = 'VIEW', as Java's JdbcCatalog stores them) ---- */

static fl_status need_v1(sql_catalog *c, fl_error *err)
{
    if (c->v1)
        return FL_OK;
    return fl_errorf(err, FL_EUNSUPPORTED,
                     "catalog '%s': this database has the V0 JDBC schema (no iceberg_type "
                     "column) and cannot hold views",
                     c->base.name);
}

static fl_status sql_list_views(fl_catalog *cat, const fl_namespace *nsp, fl_arena *a,
                                const char ***names, uint32_t *n, fl_error *err)
{
    sql_catalog *c = SC(cat);
    *names = NULL;
    *n = 0;
    if (!c->v1)
        return FL_OK;
    const char *ns;
    FL_TRY(fl_cat_ns_join(nsp, a, &ns, err));
    const char *p[2] = {c->base.name, ns};
    sql_rows r;
    FL_TRY(run(c, Q_LIST_VIEWS, p, 2, a, &r, NULL, err));
    *names = fl_arena_calloc(a, r.nrows + 1, sizeof **names);
    if (!*names)
        return oom(err);
    for (uint32_t i = 0; i < r.nrows; i++)
        (*names)[i] = r.cells[i];
    *n = r.nrows;
    return FL_OK;
}

static fl_status sql_load_view(fl_catalog *cat, const fl_table_ident *id, fl_arena *a,
                               const char **metadata_location, fl_error *err)
{
    sql_catalog *c = SC(cat);
    const char *ns;
    FL_TRY(fl_cat_ns_join(&id->ns, a, &ns, err));
    if (!c->v1)
        return fl_errorf(err, FL_ENOTFOUND, "view %s.%s does not exist", ns, id->name);
    const char *p[3] = {c->base.name, ns, id->name};
    sql_rows r;
    FL_TRY(run(c, Q_GET_VIEW, p, 3, a, &r, NULL, err));
    if (r.nrows == 0 || !r.cells[0])
        return fl_errorf(err, FL_ENOTFOUND, "view %s.%s does not exist in catalog '%s'", ns,
                         id->name, c->base.name);
    *metadata_location = r.cells[0];
    return FL_OK;
}

static fl_status create_view_body(sql_catalog *c, void *arg, fl_arena *a, fl_error *err)
{
    tbl_arg *x = arg;
    const char *ns;
    FL_TRY(fl_cat_ns_join(&x->id->ns, a, &ns, err));
    FL_TRY(ns_must_exist(c, ns, a, err));
    const char *p[4] = {c->base.name, ns, x->id->name, x->loc};
    fl_status rc = run(c, Q_INSERT_VIEW, p, 4, NULL, NULL, NULL, err);
    if (rc == FL_EEXIST)
        return fl_errorf(err, FL_EEXIST, "a table or view %s.%s already exists", ns, x->id->name);
    return rc;
}

static fl_status sql_create_view(fl_catalog *cat, const fl_table_ident *id,
                                 const char *metadata_location, fl_error *err)
{
    FL_TRY(need_v1(SC(cat), err));
    tbl_arg x = {id, NULL, metadata_location, NULL};
    return in_txn(SC(cat), create_view_body, &x, err);
}

static fl_status commit_view_body(sql_catalog *c, void *arg, fl_arena *a, fl_error *err)
{
    tbl_arg *x = arg;
    const char *ns;
    FL_TRY(fl_cat_ns_join(&x->id->ns, a, &ns, err));
    const char *p[6] = {x->loc, x->expected, c->base.name, ns, x->id->name, x->expected};
    uint64_t changed = 0;
    FL_TRY(run(c, Q_COMMIT_VIEW, p, 6, NULL, NULL, &changed, err));
    if (changed == 1)
        return FL_OK;
    const char *q[3] = {c->base.name, ns, x->id->name};
    sql_rows r;
    FL_TRY(run(c, Q_GET_VIEW, q, 3, a, &r, NULL, err));
    if (r.nrows == 0)
        return fl_errorf(err, FL_ENOTFOUND, "commit to view %s.%s: the view no longer exists",
                         ns, x->id->name);
    return fl_errorf(err, FL_ECONFLICT, "commit to view %s.%s: metadata location is %s, expected %s",
                     ns, x->id->name, r.cells[0] ? r.cells[0] : "NULL", x->expected);
}

static fl_status sql_commit_view(fl_catalog *cat, const fl_table_ident *id, const char *expected,
                                 const char *new_location, fl_error *err)
{
    FL_TRY(need_v1(SC(cat), err));
    tbl_arg x = {id, NULL, new_location, expected};
    return in_txn(SC(cat), commit_view_body, &x, err);
}

static fl_status sql_drop_view(fl_catalog *cat, const fl_table_ident *id, fl_error *err)
{
    sql_catalog *c = SC(cat);
    FL_TRY(need_v1(c, err));
    fl_arena a;
    fl_arena_init(&a, 1024);
    const char *ns;
    fl_status rc = fl_cat_ns_join(&id->ns, &a, &ns, err);
    uint64_t changed = 0;
    if (rc == FL_OK) {
        const char *p[3] = {c->base.name, ns, id->name};
        rc = run(c, Q_DROP_VIEW, p, 3, NULL, NULL, &changed, err);
        if (rc == FL_OK && changed == 0)
            rc = fl_errorf(err, FL_ENOTFOUND, "drop view %s.%s: no such view", ns, id->name);
    }
    fl_arena_free(&a);
    return rc;
}

static fl_status rename_view_body(sql_catalog *c, void *arg, fl_arena *a, fl_error *err)
{
    tbl_arg *x = arg;
    const char *ns, *tns;
    FL_TRY(fl_cat_ns_join(&x->id->ns, a, &ns, err));
    FL_TRY(fl_cat_ns_join(&x->to->ns, a, &tns, err));
    FL_TRY(ns_must_exist(c, tns, a, err));
    const char *p[5] = {tns, x->to->name, c->base.name, ns, x->id->name};
    uint64_t changed = 0;
    fl_status rc = run(c, Q_RENAME_VIEW, p, 5, NULL, NULL, &changed, err);
    if (rc == FL_EEXIST)
        return fl_errorf(err, FL_EEXIST, "rename view %s.%s: %s.%s already exists", ns,
                         x->id->name, tns, x->to->name);
    if (rc == FL_OK && changed != 1)
        return fl_errorf(err, FL_ENOTFOUND, "rename view %s.%s: no such view", ns, x->id->name);
    return rc;
}

static fl_status sql_rename_view(fl_catalog *cat, const fl_table_ident *from,
                                 const fl_table_ident *to, fl_error *err)
{
    FL_TRY(need_v1(SC(cat), err));
    tbl_arg x = {from, to, NULL, NULL};
    return in_txn(SC(cat), rename_view_body, &x, err);
}

static void sql_close(fl_catalog *cat)
{
    sql_catalog *c = SC(cat);
    if (c->drv)
        c->drv->close(c);
    free(c->name_copy);
    free(c->warehouse_copy);
    free(c);
}

static const fl_catalog_ops SQL_OPS = {
    .create_namespace = sql_create_namespace,
    .list_namespaces = sql_list_namespaces,
    .load_namespace = sql_load_namespace,
    .update_namespace = sql_update_namespace,
    .drop_namespace = sql_drop_namespace,
    .list_tables = sql_list_tables,
    .load_table = sql_load_table,
    .create_table = sql_create_table,
    .commit_table = sql_commit_table,
    .drop_table = sql_drop_table,
    .rename_table = sql_rename_table,
    .new_metadata_path = sql_new_metadata_path,
    .close = sql_close,
    .commit_tables = sql_commit_tables,
    .list_views = sql_list_views,
    .load_view = sql_load_view,
    .create_view = sql_create_view,
    .commit_view = sql_commit_view,
    .drop_view = sql_drop_view,
    .rename_view = sql_rename_view,
};

bool sql_catalog_is(const fl_catalog *c)
{
    return c && c->ops == &SQL_OPS;
}

fl_status sql_catalog_init(sql_catalog *c, const char *catalog_name, const char *warehouse,
                           fl_fileio *io, fl_error *err)
{
    c->base.ops = &SQL_OPS;
    c->name_copy = strdup(catalog_name && *catalog_name ? catalog_name : "floe");
    c->warehouse_copy = warehouse ? strdup(warehouse) : NULL;
    if (!c->name_copy || (warehouse && !c->warehouse_copy))
        return oom(err);
    c->base.name = c->name_copy;
    c->base.warehouse = c->warehouse_copy;
    c->base.io = io;
    return FL_OK;
}
