/*
 * cmd_admin.c - `floe admin`: principals, roles and grants in the auth
 * store (include/floe/auth.h), which lives in the catalog's database.
 *
 *   floe admin bootstrap [--name NAME]           first admin principal
 *   floe admin principal create NAME [--admin]   prints id + secret once
 *   floe admin principal drop|rotate NAME
 *   floe admin principal list
 *   floe admin role create|drop ROLE
 *   floe admin role assign|unassign PRINCIPAL ROLE
 *   floe admin grant|revoke ROLE PRIV[,PRIV...] [catalog | namespace NS | table NS.T]
 *   floe admin grants
 *   floe admin limits [ROLE [--memory-limit SIZE] [--statement-timeout T]
 *                     [--max-statement-timeout T] [--max-statements N] | ROLE --clear]
 *                                                 per-role ceilings (replaced as a whole)
 *   floe admin token PRINCIPAL [--ttl SECONDS]   a bearer token (debugging, tests)
 *
 * Options anywhere: --catalog URI (default $FLOE_CATALOG, else
 * sqlite:./warehouse/catalog.db, as the other commands) and --audit-log FILE
 * (default $FLOE_AUDIT_LOG): each mutation is then recorded with principal
 * "cli:<user>". Secrets go to stdout as "client_id: X" / "client_secret: Y";
 * they are never stored in clear and cannot be shown again (rotate instead).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/opts.h"
#include "cli/units.h"
#include "floe/auth.h"
#include "floe/catalog.h"

#define MAXPOS 8

typedef struct admin_args {
    const char *catalog, *audit, *name, *ttl;
    const char *mem, *timeout, *max_timeout, *max_statements; /* limits */
    bool admin, clear;
    const char *pos[MAXPOS];
    int npos;
} admin_args;

enum {
    O_CATALOG,
    O_AUDIT_LOG,
    O_NAME,
    O_ADMIN,
    O_MEMORY_LIMIT,
    O_STATEMENT_TIMEOUT,
    O_MAX_STATEMENT_TIMEOUT,
    O_MAX_STATEMENTS,
    O_CLEAR,
    O_TTL
};
static const cli_opt options[] = {
    [O_CATALOG] = {"catalog", 0, "URI", false,
                   "the catalog whose database holds the auth store\n"
                   "(default $FLOE_CATALOG, else sqlite:./warehouse/catalog.db)"},
    [O_AUDIT_LOG] = {"audit-log", 0, "FILE", false,
                     "audit each mutation as principal cli:$USER (default $FLOE_AUDIT_LOG)"},
    [O_NAME] = {"name", 0, "NAME", false, "bootstrap: the admin principal's name (default admin)"},
    [O_ADMIN] = {"admin", 0, NULL, false, "principal create: an admin principal"},
    [O_MEMORY_LIMIT] = {"memory-limit", 0, "SIZE", false,
                        "limits: the largest memory_limit a session may SET (e.g. 1GB)"},
    [O_STATEMENT_TIMEOUT] = {"statement-timeout", 0, "T", false,
                             "limits: the sessions' default statement timeout (30s, 5m)"},
    [O_MAX_STATEMENT_TIMEOUT] = {"max-statement-timeout", 0, "T", false,
                                 "limits: the largest statement timeout they may SET"},
    [O_MAX_STATEMENTS] = {"max-statements", 0, "N", false,
                          "limits: statements one principal runs at once over pgwire\n"
                          "and /v1/sql together (0 = no limit)"},
    [O_CLEAR] = {"clear", 0, NULL, false, "limits: remove the role's limits"},
    [O_TTL] = {"ttl", 0, "SECONDS", false, "token: its lifetime (default 3600; negative: expired)"},
};
static const cli_command admin_cmd = {
    .name = "admin",
    .synopsis = "admin <command> [--catalog URI] [--audit-log FILE]",
    .about = "  bootstrap [--name NAME]                    create the first admin principal\n"
             "  principal create NAME [--admin]            prints client id and secret once\n"
             "  principal drop NAME | rotate NAME | list\n"
             "  role create ROLE | drop ROLE\n"
             "  role assign PRINCIPAL ROLE | unassign PRINCIPAL ROLE\n"
             "  grant ROLE PRIV[,PRIV] [catalog | namespace NS | table NS.T]\n"
             "  revoke ROLE PRIV[,PRIV] [catalog | namespace NS | table NS.T]\n"
             "  grants                                     list every grant\n"
             "  policy row-filter ROLE NS.T EXPR           rows ROLE's principals see\n"
             "  policy mask ROLE NS.T COLUMN EXPR          the values they see in COLUMN\n"
             "  policy drop row-filter ROLE NS.T | drop mask ROLE NS.T COLUMN\n"
             "  policies                                   list every row filter and mask\n"
             "  limits                                     list every role's limits\n"
             "  limits ROLE [--memory-limit SIZE] [--statement-timeout T]\n"
             "              [--max-statement-timeout T] [--max-statements N]\n"
             "                                             set a role's limits (all of them)\n"
             "  limits ROLE --clear                        remove a role's limits\n"
             "  token PRINCIPAL [--ttl SECONDS]            mint a bearer token",
    .opts = options,
    .nopts = CLI_NOPTS(options),
    .max_args = MAXPOS,
    .notes = "privileges: read, write, create, drop, manage-grants (the built-in role 'admin'\n"
             "holds all of them everywhere). A grant on a namespace covers its child\n"
             "namespaces and all their tables and views.\n"
             "limits: a principal gets the largest value among its roles; admins get none.\n",
};

static void usage(FILE *out)
{
    cli_usage(&admin_cmd, out);
}

static int fail(fl_error *err)
{
    fprintf(stderr, "floe admin: %s\n", err->msg);
    return 1;
}

/* 0 = run, -1 = help printed, else the exit status (message printed). */
static int parse_args(int argc, char **argv, admin_args *a)
{
    memset(a, 0, sizeof *a);
    cli_args p;
    int st;
    if (!cli_parse(&admin_cmd, argc, argv, &p, &st))
        return st ? st : -1;
    for (int i = 0; i < p.npos; i++)
        a->pos[a->npos++] = p.pos[i];
    a->catalog = cli_value(&p, O_CATALOG);
    a->audit = cli_value(&p, O_AUDIT_LOG);
    a->name = cli_value(&p, O_NAME);
    a->ttl = cli_value(&p, O_TTL);
    a->mem = cli_value(&p, O_MEMORY_LIMIT);
    a->timeout = cli_value(&p, O_STATEMENT_TIMEOUT);
    a->max_timeout = cli_value(&p, O_MAX_STATEMENT_TIMEOUT);
    a->max_statements = cli_value(&p, O_MAX_STATEMENTS);
    a->admin = cli_has(&p, O_ADMIN);
    a->clear = cli_has(&p, O_CLEAR);
    cli_args_free(&p);
    if (!a->catalog)
        a->catalog = getenv("FLOE_CATALOG");
    if (!a->catalog || !*a->catalog)
        a->catalog = "sqlite:./warehouse/catalog.db";
    if (!a->audit)
        a->audit = getenv("FLOE_AUDIT_LOG");
    if (a->audit && !*a->audit)
        a->audit = NULL;
    return 0;
}

/* The directory of a sqlite: store must exist (as for the other commands). */
static void make_parent(const char *uri)
{
    if (strncmp(uri, "sqlite:", 7) != 0)
        return;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", uri + 7);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return;
    *slash = '\0';
    for (char *p = dir + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(dir, 0755);
            *p = '/';
        }
    mkdir(dir, 0755);
}

typedef struct admin_ctx {
    admin_args args;
    fl_auth *auth;
    fl_principal me; /* "cli:<user>" for the audit log */
    fl_arena arena;
    fl_error err;
} admin_ctx;

static void audit(admin_ctx *c, const char *action, const char *target, fl_status rc)
{
    fl_auth_audit(c->auth, &c->me, action, target,
                  rc == FL_OK                             ? "ok"
                  : rc == FL_ENOTFOUND || rc == FL_EEXIST ? "rejected"
                                                          : "error",
                  NULL, rc == FL_OK ? NULL : c->err.msg);
}

static void print_secret(const char *name, const char *secret)
{
    printf("client_id: %s\nclient_secret: %s\n", name, secret);
    fflush(stdout);
    fprintf(stderr, "floe admin: the secret is shown once; store it now (rotate to replace it)\n");
}

static int create_principal(admin_ctx *c, const char *name, bool admin, const char *action)
{
    char secret[128];
    fl_status rc = fl_auth_principal_create(c->auth, name, admin, secret, sizeof secret, &c->err);
    audit(c, action, name, rc);
    if (rc != FL_OK)
        return fail(&c->err);
    print_secret(name, secret);
    return 0;
}

static int cmd_bootstrap(admin_ctx *c)
{
    const char *name = c->args.name ? c->args.name : "admin";
    const char **names = NULL;
    uint32_t n = 0;
    if (fl_auth_principal_list(c->auth, &c->arena, &names, &n, &c->err) != FL_OK)
        return fail(&c->err);
    for (uint32_t i = 0; i < n; i++) {
        fl_principal p;
        if (fl_auth_principal_get(c->auth, names[i], &p, &c->err) == FL_OK && p.admin) {
            fprintf(stderr,
                    "floe admin: the store already has an admin principal ('%s'); use "
                    "'principal create NAME --admin' or 'principal rotate %s'\n",
                    p.name, p.name);
            return 1;
        }
    }
    return create_principal(c, name, true, "admin.bootstrap");
}

static int cmd_principal(admin_ctx *c)
{
    const char **pos = c->args.pos;
    int np = c->args.npos;
    if (np == 2 && !strcmp(pos[1], "list")) {
        const char **names = NULL;
        uint32_t n = 0;
        if (fl_auth_principal_list(c->auth, &c->arena, &names, &n, &c->err) != FL_OK)
            return fail(&c->err);
        for (uint32_t i = 0; i < n; i++) {
            fl_principal p;
            bool admin = fl_auth_principal_get(c->auth, names[i], &p, &c->err) == FL_OK && p.admin;
            printf("%s%s\n", names[i], admin ? " (admin)" : "");
        }
        return 0;
    }
    if (np != 3) {
        usage(stderr);
        return 2;
    }
    const char *verb = pos[1], *name = pos[2];
    if (!strcmp(verb, "create"))
        return create_principal(c, name, c->args.admin, "admin.principal.create");
    fl_status rc;
    if (!strcmp(verb, "drop")) {
        rc = fl_auth_principal_drop(c->auth, name, &c->err);
        audit(c, "admin.principal.drop", name, rc);
        return rc == FL_OK ? 0 : fail(&c->err);
    }
    if (!strcmp(verb, "rotate")) {
        char secret[128];
        rc = fl_auth_principal_rotate(c->auth, name, secret, sizeof secret, &c->err);
        audit(c, "admin.principal.rotate", name, rc);
        if (rc != FL_OK)
            return fail(&c->err);
        print_secret(name, secret);
        return 0;
    }
    usage(stderr);
    return 2;
}

static int cmd_role(admin_ctx *c)
{
    const char **pos = c->args.pos;
    int np = c->args.npos;
    fl_status rc;
    const char *verb = np > 1 ? pos[1] : "";
    if (np == 3 && (!strcmp(verb, "create") || !strcmp(verb, "drop"))) {
        bool create = !strcmp(verb, "create");
        rc = create ? fl_auth_role_create(c->auth, pos[2], &c->err)
                    : fl_auth_role_drop(c->auth, pos[2], &c->err);
        audit(c, create ? "admin.role.create" : "admin.role.drop", pos[2], rc);
        return rc == FL_OK ? 0 : fail(&c->err);
    }
    if (np == 4 && (!strcmp(verb, "assign") || !strcmp(verb, "unassign"))) {
        bool assign = !strcmp(verb, "assign");
        rc = fl_auth_role_assign(c->auth, pos[2], pos[3], assign, &c->err);
        const char *target = fl_arena_sprintf(&c->arena, "%s %s", pos[2], pos[3]);
        audit(c, assign ? "admin.role.assign" : "admin.role.unassign", target, rc);
        return rc == FL_OK ? 0 : fail(&c->err);
    }
    usage(stderr);
    return 2;
}

/* [catalog | namespace NS | table NS.T] from pos[3..]. */
static int parse_securable(admin_ctx *c, fl_namespace *ns, const char **object)
{
    const char **pos = c->args.pos;
    int np = c->args.npos;
    *ns = (fl_namespace){0, NULL};
    *object = NULL;
    if (np == 3 || (np == 4 && !strcmp(pos[3], "catalog")))
        return 0;
    if (np == 5 && !strcmp(pos[3], "namespace"))
        return fl_namespace_parse(pos[4], &c->arena, ns, &c->err) == FL_OK ? 0 : fail(&c->err);
    if (np == 5 && (!strcmp(pos[3], "table") || !strcmp(pos[3], "view"))) {
        fl_table_ident id;
        if (fl_table_ident_parse(pos[4], &c->arena, &id, &c->err) != FL_OK)
            return fail(&c->err);
        if (id.ns.nlevels == 0) {
            fprintf(stderr, "floe admin: table '%s' needs a namespace (NS.TABLE)\n", pos[4]);
            return 2;
        }
        *ns = id.ns;
        *object = id.name;
        return 0;
    }
    usage(stderr);
    return 2;
}

static int cmd_grant(admin_ctx *c, bool grant)
{
    if (c->args.npos < 3) {
        usage(stderr);
        return 2;
    }
    fl_namespace ns;
    const char *object;
    int r = parse_securable(c, &ns, &object);
    if (r)
        return r;
    const char *role = c->args.pos[1];
    char privs[256];
    snprintf(privs, sizeof privs, "%s", c->args.pos[2]);
    const char *where =
        ns.nlevels == 0 ? "catalog"
        : object
            ? fl_arena_sprintf(&c->arena, "table %s.%s", fl_namespace_str(&ns, &c->arena), object)
            : fl_arena_sprintf(&c->arena, "namespace %s", fl_namespace_str(&ns, &c->arena));
    char *save = NULL;
    for (char *p = strtok_r(privs, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
        fl_privilege pv = fl_privilege_parse(p);
        if (!pv) {
            fprintf(stderr,
                    "floe admin: unknown privilege '%s' (read, write, create, drop, "
                    "manage-grants)\n",
                    p);
            return 2;
        }
        fl_status rc = fl_auth_grant(c->auth, role, pv, &ns, object, grant, &c->err);
        const char *target = fl_arena_sprintf(&c->arena, "%s %s %s", role, p, where);
        audit(c, grant ? "admin.grant" : "admin.revoke", target, rc);
        if (rc != FL_OK)
            return fail(&c->err);
    }
    return 0;
}

static int cmd_grants(admin_ctx *c)
{
    const char **lines = NULL;
    uint32_t n = 0;
    if (fl_auth_grant_list(c->auth, &c->arena, &lines, &n, &c->err) != FL_OK)
        return fail(&c->err);
    for (uint32_t i = 0; i < n; i++)
        printf("%s\n", lines[i]);
    return 0;
}

/* policy row-filter ROLE NS.T EXPR | policy mask ROLE NS.T COLUMN EXPR |
 * policy drop row-filter ROLE NS.T | policy drop mask ROLE NS.T COLUMN */
static int cmd_policy(admin_ctx *c)
{
    const char **pos = c->args.pos;
    int np = c->args.npos;
    bool drop = np >= 2 && !strcmp(pos[1], "drop");
    int k = drop ? 2 : 1; /* the kind word */
    if (np <= k + 2) {
        usage(stderr);
        return 2;
    }
    bool mask = !strcmp(pos[k], "mask");
    if (!mask && strcmp(pos[k], "row-filter") != 0) {
        usage(stderr);
        return 2;
    }
    int want = k + 3 + (mask ? 1 : 0) + (drop ? 0 : 1);
    if (np != want) {
        usage(stderr);
        return 2;
    }
    fl_table_ident id;
    if (fl_table_ident_parse(pos[k + 2], &c->arena, &id, &c->err) != FL_OK)
        return fail(&c->err);
    if (id.ns.nlevels == 0) {
        fprintf(stderr, "floe admin: table '%s' needs a namespace (NS.TABLE)\n", pos[k + 2]);
        return 2;
    }
    const char *column = mask ? pos[k + 3] : NULL;
    const char *expr = drop ? NULL : pos[np - 1];
    fl_status rc =
        fl_auth_policy_set(c->auth, pos[k + 1], mask ? FL_POLICY_COLUMN_MASK : FL_POLICY_ROW_FILTER,
                           &id.ns, id.name, column, expr, &c->err);
    const char *target = fl_arena_sprintf(&c->arena, "%s %s %s%s%s", pos[k + 1], pos[k], pos[k + 2],
                                          column ? " " : "", column ? column : "");
    audit(c, drop ? "admin.policy.drop" : "admin.policy.set", target, rc);
    return rc == FL_OK ? 0 : fail(&c->err);
}

static int cmd_policies(admin_ctx *c)
{
    const char **lines = NULL;
    uint32_t n = 0;
    if (fl_auth_policy_list(c->auth, &c->arena, &lines, &n, &c->err) != FL_OK)
        return fail(&c->err);
    for (uint32_t i = 0; i < n; i++)
        printf("%s\n", lines[i]);
    return 0;
}

static int list_limits(admin_ctx *c, const char *only)
{
    const char **lines = NULL;
    uint32_t n = 0;
    if (fl_auth_role_limits_list(c->auth, &c->arena, &lines, &n, &c->err) != FL_OK)
        return fail(&c->err);
    size_t ol = only ? strlen(only) : 0;
    for (uint32_t i = 0; i < n; i++)
        if (!only || (!strncmp(lines[i], only, ol) && (lines[i][ol] == ' ' || !lines[i][ol])))
            printf("%s\n", lines[i]);
    return 0;
}

/* The four limit options into l; 2 on a bad value. */
static int parse_limits(const admin_args *a, fl_auth_limits *l, bool *any)
{
    memset(l, 0, sizeof *l);
    *any = a->mem || a->timeout || a->max_timeout || a->max_statements;
    if (a->mem && !cli_parse_size(a->mem, &l->max_memory_limit)) {
        fprintf(stderr, "floe admin: --memory-limit takes a size such as 512MB or 2GB\n");
        return 2;
    }
    if ((a->timeout && !cli_parse_ms(a->timeout, &l->statement_timeout_ms)) ||
        (a->max_timeout && !cli_parse_ms(a->max_timeout, &l->max_statement_timeout_ms))) {
        fprintf(stderr, "floe admin: timeouts take a duration such as 30s, 10m or 500ms\n");
        return 2;
    }
    if (a->max_statements) {
        char *end = NULL;
        long v = strtol(a->max_statements, &end, 10);
        if (end == a->max_statements || *end || v < 0 || v > 100000) {
            fprintf(stderr, "floe admin: --max-statements takes a count (0 = no limit)\n");
            return 2;
        }
        l->max_statements = (uint32_t)v;
    }
    return 0;
}

static int cmd_limits(admin_ctx *c)
{
    if (c->args.npos == 1)
        return list_limits(c, NULL);
    if (c->args.npos != 2) {
        usage(stderr);
        return 2;
    }
    const char *role = c->args.pos[1];
    fl_auth_limits l;
    bool any;
    int r = parse_limits(&c->args, &l, &any);
    if (r)
        return r;
    if (!any && !c->args.clear)
        return list_limits(c, role);
    if (any && c->args.clear) {
        fprintf(stderr, "floe admin: --clear takes no limit options\n");
        return 2;
    }
    fl_status rc = fl_auth_role_limits_set(c->auth, role, &l, &c->err);
    audit(c, c->args.clear ? "admin.limits.clear" : "admin.limits", role, rc);
    if (rc != FL_OK)
        return fail(&c->err);
    return c->args.clear ? 0 : list_limits(c, role);
}

static int cmd_token(admin_ctx *c)
{
    if (c->args.npos != 2) {
        usage(stderr);
        return 2;
    }
    int ttl = 3600;
    if (c->args.ttl) {
        char *end = NULL;
        long v = strtol(c->args.ttl, &end, 10);
        if (end == c->args.ttl || *end || v == 0 || v > 604800 || v < -604800) {
            fprintf(stderr, "floe admin: --ttl wants non-zero seconds within a week\n");
            return 2;
        }
        ttl = (int)v;
    }
    char *tok = NULL;
    fl_status rc = fl_auth_token_mint(c->auth, c->args.pos[1], ttl, &tok, &c->err);
    audit(c, "admin.token", c->args.pos[1], rc);
    if (rc != FL_OK)
        return fail(&c->err);
    printf("%s\n", tok);
    free(tok);
    return 0;
}

static int dispatch(admin_ctx *c)
{
    const char *cmd = c->args.pos[0];
    int np = c->args.npos;
    if (!strcmp(cmd, "bootstrap") && np == 1)
        return cmd_bootstrap(c);
    if (!strcmp(cmd, "principal"))
        return cmd_principal(c);
    if (!strcmp(cmd, "role"))
        return cmd_role(c);
    if (!strcmp(cmd, "grant") || !strcmp(cmd, "revoke"))
        return cmd_grant(c, !strcmp(cmd, "grant"));
    if (!strcmp(cmd, "grants") && np == 1)
        return cmd_grants(c);
    if (!strcmp(cmd, "token"))
        return cmd_token(c);
    if (!strcmp(cmd, "policy"))
        return cmd_policy(c);
    if (!strcmp(cmd, "policies") && np == 1)
        return cmd_policies(c);
    if (!strcmp(cmd, "limits"))
        return cmd_limits(c);
    fprintf(stderr, "floe admin: unknown command '%s'\n", cmd);
    usage(stderr);
    return 2;
}

int fl_cmd_admin(int argc, char **argv)
{
    admin_ctx c;
    memset(&c, 0, sizeof c);
    int r = parse_args(argc, argv, &c.args);
    if (r)
        return r < 0 ? 0 : r;
    if (c.args.npos == 0) {
        usage(stderr);
        return 2;
    }
    make_parent(c.args.catalog);
    fl_auth_options o = {.store_uri = c.args.catalog, .audit_log_path = c.args.audit};
    if (fl_auth_open(&o, &c.auth, &c.err) != FL_OK)
        return fail(&c.err);
    const char *user = getenv("USER");
    snprintf(c.me.name, sizeof c.me.name, "cli:%s", user && *user ? user : "unknown");
    fl_arena_init(&c.arena, 0);
    r = dispatch(&c);
    fl_arena_free(&c.arena);
    fl_auth_close(c.auth);
    return r;
}
