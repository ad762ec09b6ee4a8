/*
 * cmd_table_ns.c - catalog-level subcommands of `floe table` (any catalog:
 * SQLite, PostgreSQL, filesystem, REST):
 *
 *   namespaces [PARENT]                      list child namespaces (stdout, one a line)
 *   create-namespace NS [--property K=V]...  create (parents first)
 *   namespace NS                             print its properties (K=V lines)
 *   drop-namespace NS                        drop an empty namespace
 *   tables NS                                list its tables (stdout, ns.name lines)
 *   rename TABLE NEW_TABLE                   rename (across namespaces if the catalog can)
 *
 * Each takes --catalog URI and --warehouse DIR like the writing commands.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd_table_ns.h"
#include "cli/cmd_table_write.h"
#include "cli/opts.h"

#define MAX_PROPS 64

typedef struct nsargs {
    const char *cmd;
    const char *pos[4];
    int npos;
    const char *catalog, *warehouse;
    fl_ice_kv props[MAX_PROPS];
    uint32_t nprops;
} nsargs;

enum { NS_CATALOG, NS_WAREHOUSE, NS_PROPERTY };
static const cli_opt ns_options[] = {
    [NS_CATALOG] = {"catalog", 0, "URI", false,
                    "the catalog (default $FLOE_CATALOG, else sqlite:./warehouse/catalog.db)"},
    [NS_WAREHOUSE] = {"warehouse", 0, "DIR", false,
                      "its warehouse (default $FLOE_WAREHOUSE, else ./warehouse)"},
    [NS_PROPERTY] = {"property", 0, "K=V", true, "a namespace property"},
};

/* --property K=V... into a->props; 0 or 2. */
static int property_options(const cli_command *cmd, const cli_args *p, nsargs *a, fl_arena *ar)
{
    int n;
    const char *const *v = cli_values(p, NS_PROPERTY, &n);
    for (int i = 0; i < n; i++) {
        const char *e = strchr(v[i], '=');
        if (!e || a->nprops == MAX_PROPS)
            return cli_usage_error(cmd, "--property takes KEY=VALUE");
        a->props[a->nprops].key = fl_arena_strndup(ar, v[i], (size_t)(e - v[i]));
        a->props[a->nprops++].value = e + 1;
    }
    return 0;
}

/* npos positionals (0: at most one, optional); --property only when props.
 * 0 = ok, -1 = help printed, else the exit status (message printed). */
static int parse(int argc, char **argv, nsargs *a, int npos, const char *usage, bool props,
                 fl_arena *ar)
{
    memset(a, 0, sizeof *a);
    a->cmd = argv[0];
    char name[64], synopsis[128];
    snprintf(name, sizeof name, "table %s", a->cmd);
    snprintf(synopsis, sizeof synopsis, "table %s %s", a->cmd, usage);
    const cli_command cmd = {.name = name,
                             .synopsis = synopsis,
                             .opts = ns_options,
                             .nopts = props ? 3 : 2,
                             .min_args = npos,
                             .max_args = npos ? npos : 1};
    cli_args p;
    int st;
    if (!cli_parse(&cmd, argc, argv, &p, &st))
        return st ? st : -1;
    for (int i = 0; i < p.npos; i++)
        a->pos[a->npos++] = p.pos[i];
    a->catalog = cli_value(&p, NS_CATALOG);
    a->warehouse = cli_value(&p, NS_WAREHOUSE);
    st = property_options(&cmd, &p, a, ar);
    cli_args_free(&p);
    return st;
}

typedef struct nsctx {
    nsargs a;
    fl_arena arena;
    fl_cli_catalog c;
    fl_error err;
} nsctx;

static int done(nsctx *x, fl_status rc, const char *what)
{
    if (rc != FL_OK)
        fprintf(stderr, "floe table %s: %s\n", x->a.cmd, x->err.msg);
    else if (what)
        fprintf(stderr, "floe table %s: %s %s\n", x->a.cmd, x->a.pos[0], what);
    fl_cli_catalog_close(&x->c);
    fl_arena_free(&x->arena);
    return rc == FL_OK ? 0 : 1;
}

#define OPEN_AS(npos, usage, props, open)                                                          \
    nsctx x;                                                                                       \
    memset(&x, 0, sizeof x);                                                                       \
    fl_arena_init(&x.arena, 0);                                                                    \
    {                                                                                              \
        int u_ = parse(argc, argv, &x.a, npos, usage, props, &x.arena);                            \
        if (u_) {                                                                                  \
            fl_arena_free(&x.arena);                                                               \
            return u_ < 0 ? 0 : u_;                                                                \
        }                                                                                          \
    }                                                                                              \
    fl_status rc = open(x.a.catalog, x.a.warehouse, &x.c, &x.err);                                 \
    if (rc != FL_OK)                                                                               \
        return done(&x, rc, NULL);
#define OPEN(npos, usage, props) OPEN_AS(npos, usage, props, fl_cli_catalog_open)
/* listing commands never create the catalog (fl_cli_catalog_open_ro) */
#define OPEN_RO(npos, usage, props) OPEN_AS(npos, usage, props, fl_cli_catalog_open_ro)

int fl_cmd_table_namespaces(int argc, char **argv)
{
    OPEN_RO(0, "[PARENT]", false);
    fl_namespace parent = {0, NULL}, *v = NULL;
    uint32_t n = 0;
    if (x.a.npos)
        rc = fl_namespace_parse(x.a.pos[0], &x.arena, &parent, &x.err);
    if (rc == FL_OK)
        rc = x.c.cat->ops->list_namespaces(x.c.cat, &parent, &x.arena, &v, &n, &x.err);
    for (uint32_t i = 0; rc == FL_OK && i < n; i++)
        printf("%s\n", fl_namespace_str(&v[i], &x.arena));
    return done(&x, rc, NULL);
}

int fl_cmd_table_create_namespace(int argc, char **argv)
{
    OPEN(1, "NS [--property K=V]...", true);
    fl_namespace ns;
    rc = fl_namespace_parse(x.a.pos[0], &x.arena, &ns, &x.err);
    for (uint32_t k = 1; rc == FL_OK && k < ns.nlevels; k++) { /* parents first */
        fl_namespace p = {k, ns.levels};
        fl_error e2;
        fl_status r2 = x.c.cat->ops->create_namespace(x.c.cat, &p, NULL, &e2);
        if (r2 != FL_OK && r2 != FL_EEXIST) {
            x.err = e2;
            rc = r2;
        }
    }
    fl_ice_map m = {x.a.nprops, x.a.props};
    if (rc == FL_OK)
        rc = x.c.cat->ops->create_namespace(x.c.cat, &ns, &m, &x.err);
    return done(&x, rc, "created");
}

int fl_cmd_table_namespace(int argc, char **argv)
{
    OPEN_RO(1, "NS", false);
    fl_namespace ns;
    fl_ice_map m = {0};
    rc = fl_namespace_parse(x.a.pos[0], &x.arena, &ns, &x.err);
    if (rc == FL_OK)
        rc = x.c.cat->ops->load_namespace(x.c.cat, &ns, &x.arena, &m, &x.err);
    for (uint32_t i = 0; rc == FL_OK && i < m.n; i++)
        printf("%s=%s\n", m.items[i].key, m.items[i].value);
    return done(&x, rc, NULL);
}

int fl_cmd_table_drop_namespace(int argc, char **argv)
{
    OPEN(1, "NS", false);
    fl_namespace ns;
    rc = fl_namespace_parse(x.a.pos[0], &x.arena, &ns, &x.err);
    if (rc == FL_OK)
        rc = x.c.cat->ops->drop_namespace(x.c.cat, &ns, &x.err);
    return done(&x, rc, "dropped");
}

int fl_cmd_table_tables(int argc, char **argv)
{
    OPEN_RO(1, "NS", false);
    fl_namespace ns;
    const char **names = NULL;
    uint32_t n = 0;
    rc = fl_namespace_parse(x.a.pos[0], &x.arena, &ns, &x.err);
    if (rc == FL_OK)
        rc = x.c.cat->ops->list_tables(x.c.cat, &ns, &x.arena, &names, &n, &x.err);
    for (uint32_t i = 0; rc == FL_OK && i < n; i++) {
        fl_table_ident id = {ns, names[i]};
        printf("%s\n", fl_table_ident_str(&id, &x.arena));
    }
    return done(&x, rc, NULL);
}

int fl_cmd_table_rename(int argc, char **argv)
{
    OPEN(2, "TABLE NEW_TABLE", false);
    fl_table_ident from, to;
    rc = fl_table_ident_parse(x.a.pos[0], &x.arena, &from, &x.err);
    if (rc == FL_OK)
        rc = fl_table_ident_parse(x.a.pos[1], &x.arena, &to, &x.err);
    if (rc == FL_OK)
        rc = x.c.cat->ops->rename_table(x.c.cat, &from, &to, &x.err);
    return done(&x, rc, "renamed");
}
