/*
 * cmd_sql_meta.c - the catalog-reading backslash commands of `floe sql`:
 *   \dn        namespaces (every level, depth first)
 *   \dt [NS]   tables of NS, or of every namespace
 *   \d TABLE   columns (SQL type, nullability, field id), partition spec,
 *              sort order, current snapshot, location and properties
 * They read the catalog and table metadata directly (catalog.h,
 * ice_table.h), so they work on any catalog floe opens, whatever the SQL
 * engine supports. Output is psql-like text on the given FILE.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmd_sql.h"
#include "floe/arena.h"
#include "floe/ice_table.h"

static fl_status no_catalog(fl_error *err)
{
    return fl_errorf(err, FL_EINVAL, "no catalog is open (use --catalog)");
}

/* Depth-first walk of the namespace tree; fn per namespace. */
typedef fl_status (*ns_fn)(void *ctx, fl_catalog *cat, const fl_namespace *ns, fl_arena *a,
                           fl_error *err);

static fl_status walk(fl_catalog *cat, const fl_namespace *parent, fl_arena *a, ns_fn fn, void *ctx,
                      int depth, fl_error *err)
{
    if (depth > 32)
        return FL_OK;
    fl_namespace *kids = NULL;
    uint32_t n = 0;
    FL_TRY(cat->ops->list_namespaces(cat, parent, a, &kids, &n, err));
    for (uint32_t i = 0; i < n; i++) {
        FL_TRY(fn(ctx, cat, &kids[i], a, err));
        FL_TRY(walk(cat, &kids[i], a, fn, ctx, depth + 1, err));
    }
    return FL_OK;
}

static fl_status print_ns(void *ctx, fl_catalog *cat, const fl_namespace *ns, fl_arena *a,
                          fl_error *err)
{
    (void)cat;
    (void)err;
    fprintf((FILE *)ctx, " %s\n", fl_namespace_str(ns, a));
    return FL_OK;
}

fl_status fl_sqlmeta_list_namespaces(fl_catalog *cat, FILE *out, fl_error *err)
{
    if (!cat)
        return no_catalog(err);
    fl_arena a;
    fl_arena_init(&a, 0);
    fprintf(out, " namespace\n-----------\n");
    fl_status rc = walk(cat, NULL, &a, print_ns, out, 0, err);
    fl_arena_free(&a);
    return rc;
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static fl_status print_tables(void *ctx, fl_catalog *cat, const fl_namespace *ns, fl_arena *a,
                              fl_error *err)
{
    const char **names = NULL;
    uint32_t n = 0;
    FL_TRY(cat->ops->list_tables(cat, ns, a, &names, &n, err));
    if (n > 1)
        qsort(names, n, sizeof *names, cmp_str);
    const char *nss = fl_namespace_str(ns, a);
    for (uint32_t i = 0; i < n; i++)
        fprintf((FILE *)ctx, " %-20s | %s\n", nss, names[i]);
    return FL_OK;
}

fl_status fl_sqlmeta_list_tables(fl_catalog *cat, const char *ns, FILE *out, fl_error *err)
{
    if (!cat)
        return no_catalog(err);
    fl_arena a;
    fl_arena_init(&a, 0);
    fprintf(out, " %-20s | %s\n%s\n", "namespace", "table",
            "----------------------+----------------------");
    fl_status rc;
    if (ns && *ns) {
        fl_namespace n;
        rc = fl_namespace_parse(ns, &a, &n, err);
        if (rc == FL_OK)
            rc = print_tables(out, cat, &n, &a, err);
    } else {
        rc = walk(cat, NULL, &a, print_tables, out, 0, err);
    }
    fl_arena_free(&a);
    return rc;
}

static const char *column_name(const fl_schema *s, int32_t id)
{
    for (uint32_t i = 0; i < s->nfields; i++)
        if (s->fields[i].field_id == id)
            return s->fields[i].name;
    return "?";
}

static void describe_meta(const fl_ice_table *t, const fl_schema *s, FILE *out)
{
    const fl_ice_metadata *m = &t->meta;
    const fl_ice_partition_spec *spec = fl_ice_metadata_spec(m, m->default_spec_id);
    if (spec && spec->nfields) {
        fprintf(out, "Partitioned by:");
        for (uint32_t i = 0; i < spec->nfields; i++)
            fprintf(out, "%s %s(%s)", i ? "," : "", spec->fields[i].transform,
                    column_name(s, spec->fields[i].source_id));
        fputc('\n', out);
    }
    for (uint32_t o = 0; o < m->nsort_orders; o++) {
        const fl_ice_sort_order *so = &m->sort_orders[o];
        if (so->order_id != m->default_sort_order_id || so->nfields == 0)
            continue;
        fprintf(out, "Sorted by:");
        for (uint32_t i = 0; i < so->nfields; i++)
            fprintf(out, "%s %s(%s) %s", i ? "," : "", so->fields[i].transform,
                    column_name(s, so->fields[i].source_id),
                    so->fields[i].descending ? "DESC" : "ASC");
        fputc('\n', out);
    }
    const fl_ice_snapshot *snap = fl_ice_metadata_current_snapshot(m);
    if (snap)
        fprintf(out, "Current snapshot: %" PRId64 "\n", snap->snapshot_id);
    else
        fprintf(out, "Current snapshot: none (empty table)\n");
    fprintf(out, "Format version: %d\nLocation: %s\n", (int)m->format_version,
            m->location ? m->location : "");
    for (uint32_t i = 0; i < m->properties.n; i++)
        fprintf(out, "Property: %s=%s\n", m->properties.items[i].key, m->properties.items[i].value);
}

fl_status fl_sqlmeta_describe(fl_catalog *cat, const char *table, const char *default_ns, FILE *out,
                              fl_error *err)
{
    if (!cat)
        return no_catalog(err);
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_table_ident id;
    fl_ice_table *t = NULL;
    const char *full = table;
    if (!strchr(table, '.') && default_ns)
        full = fl_arena_sprintf(&a, "%s.%s", default_ns, table);
    fl_status rc = full ? fl_table_ident_parse(full, &a, &id, err)
                        : fl_errorf(err, FL_ENOMEM, "out of memory");
    if (rc == FL_OK)
        rc = fl_ice_table_load(cat, &id, &t, err);
    const fl_ice_schema *is = rc == FL_OK ? fl_ice_metadata_current_schema(&t->meta) : NULL;
    if (rc == FL_OK && !is)
        rc = fl_errorf(err, FL_ECORRUPT, "table %s has no current schema", full);
    if (rc == FL_OK) {
        const fl_schema *s = &is->schema;
        fprintf(out, "Table \"%s\"\n", fl_table_ident_str(&id, &a));
        fprintf(out, " %-24s | %-28s | %-8s | %s\n", "Column", "Type", "Nullable", "Id");
        fprintf(out,
                "--------------------------+------------------------------+----------+-----\n");
        for (uint32_t i = 0; i < s->nfields; i++) {
            char tb[128];
            fprintf(out, " %-24s | %-28s | %-8s | %d\n", s->fields[i].name,
                    fl_sqlout_type_name(&s->fields[i].type, tb, sizeof tb),
                    s->fields[i].nullable ? "yes" : "not null", (int)s->fields[i].field_id);
        }
        describe_meta(t, s, out);
    }
    fl_ice_table_free(t);
    fl_arena_free(&a);
    return rc;
}
