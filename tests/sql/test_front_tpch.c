/*
 * test_front_tpch.c - the planner over the 22 TPC-H queries: a temporary
 * SQLite catalog with the eight TPC-H tables (empty, created through the C
 * API), each query from ../shared/fixtures/bench/tpch-sf0.01/QUERIES.md
 * parsed, bound, decorrelated and planned; every plan is checked for
 * well-formedness (each column reference within its node's input) and for
 * the expected shapes: decorrelated subqueries as SEMI/ANTI/MARK/LEFT joins,
 * uncorrelated scalar subqueries as FL_EXPR_SUBQUERY, no cross joins,
 * pushed-down pruning terms and projected scans. Also binding errors name the
 * position.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "floe/catalog.h"
#include "floe/ice_table.h"
#include "floe/sql.h"
#include "floe_test.h"
#include "sql/planner.h"

static char tmpdir[256];
static fl_catalog *cat;
static fl_fileio *io;

typedef struct col {
    const char *name, *type;
} col;

static void make_table(const char *name, const col *cols, uint32_t n)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_field *f = fl_arena_calloc(&a, n, sizeof(fl_field));
    for (uint32_t i = 0; i < n; i++) {
        f[i].name = cols[i].name;
        f[i].field_id = (int32_t)i + 1;
        f[i].nullable = false;
        CHECK(fl_type_parse_primitive(cols[i].type, &f[i].type));
    }
    fl_schema s = {.nfields = n, .fields = f};
    fl_ice_create_options o;
    memset(&o, 0, sizeof o);
    o.schema = &s;
    fl_table_ident id;
    CHECK_OK(fl_table_ident_parse(name, &a, &id, &err), &err);
    fl_ice_table *t = NULL;
    CHECK_OK(fl_ice_table_create(cat, &id, &o, &t, &err), &err);
    fl_ice_table_free(t);
    fl_arena_free(&a);
}

#define T(name, ...)                                                                               \
    do {                                                                                           \
        static const col c_[] = {__VA_ARGS__};                                                     \
        make_table(name, c_, sizeof c_ / sizeof c_[0]);                                            \
    } while (0)

static int setup(void)
{
    if (!ft_tmpdir(tmpdir, sizeof tmpdir, "floe_front_tpch"))
        return -1;
    io = fl_fileio_local();
    fl_error err;
    char db[512], wh[512];
    snprintf(db, sizeof db, "%s/cat.db", tmpdir);
    snprintf(wh, sizeof wh, "%s/wh", tmpdir);
    if (fl_catalog_sqlite_open(db, "floe", wh, io, &cat, &err) != FL_OK) {
        fprintf(stderr, "catalog: %s\n", err.msg);
        return -1;
    }
    fl_namespace ns = {.nlevels = 1, .levels = (const char *const[]){"default"}};
    if (cat->ops->create_namespace(cat, &ns, NULL, &err) != FL_OK) {
        fprintf(stderr, "namespace: %s\n", err.msg);
        return -1;
    }
    T("default.nation", {"n_nationkey", "int"}, {"n_name", "string"}, {"n_regionkey", "int"},
      {"n_comment", "string"});
    T("default.region", {"r_regionkey", "int"}, {"r_name", "string"}, {"r_comment", "string"});
    T("default.part", {"p_partkey", "int"}, {"p_name", "string"}, {"p_mfgr", "string"},
      {"p_brand", "string"}, {"p_type", "string"}, {"p_size", "int"}, {"p_container", "string"},
      {"p_retailprice", "decimal(15,2)"}, {"p_comment", "string"});
    T("default.supplier", {"s_suppkey", "int"}, {"s_name", "string"}, {"s_address", "string"},
      {"s_nationkey", "int"}, {"s_phone", "string"}, {"s_acctbal", "decimal(15,2)"},
      {"s_comment", "string"});
    T("default.partsupp", {"ps_partkey", "int"}, {"ps_suppkey", "int"}, {"ps_availqty", "int"},
      {"ps_supplycost", "decimal(15,2)"}, {"ps_comment", "string"});
    T("default.customer", {"c_custkey", "int"}, {"c_name", "string"}, {"c_address", "string"},
      {"c_nationkey", "int"}, {"c_phone", "string"}, {"c_acctbal", "decimal(15,2)"},
      {"c_mktsegment", "string"}, {"c_comment", "string"});
    T("default.orders", {"o_orderkey", "int"}, {"o_custkey", "int"}, {"o_orderstatus", "string"},
      {"o_totalprice", "decimal(15,2)"}, {"o_orderdate", "date"}, {"o_orderpriority", "string"},
      {"o_clerk", "string"}, {"o_shippriority", "int"}, {"o_comment", "string"});
    T("default.lineitem", {"l_orderkey", "int"}, {"l_partkey", "int"}, {"l_suppkey", "int"},
      {"l_linenumber", "int"}, {"l_quantity", "decimal(15,2)"},
      {"l_extendedprice", "decimal(15,2)"}, {"l_discount", "decimal(15,2)"},
      {"l_tax", "decimal(15,2)"}, {"l_returnflag", "string"}, {"l_linestatus", "string"},
      {"l_shipdate", "date"}, {"l_commitdate", "date"}, {"l_receiptdate", "date"},
      {"l_shipinstruct", "string"}, {"l_shipmode", "string"}, {"l_comment", "string"});
    return 0;
}

static void teardown(void)
{
    fl_catalog_close(cat);
    fl_fileio_destroy(io);
    ft_rmtree(tmpdir);
}

/* ---- plan checks ---- */

typedef struct shape {
    int joins[FL_JOIN_CROSS + 1];
    int subquery_exprs;
    int agg_under_left;
    int bad_refs;
    int scans;
} shape;

static void check_expr(const fl_expr *e, uint32_t width, shape *sh);

static void walk(const fl_plan *p, shape *sh);

static void check_expr(const fl_expr *e, uint32_t width, shape *sh)
{
    if (!e)
        return;
    if (e->kind == FL_EXPR_COLUMN && e->column >= width) {
        fprintf(stderr, "  bad column reference #%u (input has %u columns)\n", e->column, width);
        sh->bad_refs++;
    }
    if (e->kind == FL_EXPR_SUBQUERY) {
        sh->subquery_exprs++;
        if (e->subplan)
            walk(e->subplan, sh);
    }
    for (uint32_t i = 0; i < e->nargs; i++)
        check_expr(e->args[i], width, sh);
}

static void walk(const fl_plan *p, shape *sh)
{
    uint32_t w = p->nchildren ? p->children[0]->schema.nfields : p->schema.nfields;
    switch (p->kind) {
    case FL_PLAN_SCAN:
        sh->scans++;
        check_expr(p->u.scan.filter, p->schema.nfields, sh);
        break;
    case FL_PLAN_FILTER:
        check_expr(p->u.filter.filter, w, sh);
        break;
    case FL_PLAN_PROJECT:
        for (uint32_t i = 0; i < p->schema.nfields; i++)
            check_expr(p->u.project.exprs[i], w, sh);
        break;
    case FL_PLAN_AGG:
        for (uint32_t i = 0; i < p->u.agg.nkeys; i++)
            check_expr(p->u.agg.keys[i], w, sh);
        for (uint32_t i = 0; i < p->u.agg.naggs; i++)
            for (uint32_t k = 0; k < p->u.agg.aggs[i].nargs; k++)
                check_expr(p->u.agg.aggs[i].args[k], w, sh);
        break;
    case FL_PLAN_JOIN: {
        uint32_t rw = p->children[1]->schema.nfields;
        sh->joins[p->u.join.type]++;
        for (uint32_t i = 0; i < p->u.join.nkeys; i++) {
            check_expr(p->u.join.left_keys[i], w, sh);
            check_expr(p->u.join.right_keys[i], rw, sh);
            CHECK(fl_type_equal(&p->u.join.left_keys[i]->type, &p->u.join.right_keys[i]->type));
        }
        check_expr(p->u.join.residual, w + rw, sh);
        if (p->u.join.type == FL_JOIN_LEFT) {
            const fl_plan *r = p->children[1];
            while (r->kind == FL_PLAN_PROJECT || r->kind == FL_PLAN_FILTER)
                r = r->children[0];
            if (r->kind == FL_PLAN_AGG)
                sh->agg_under_left++;
        }
        break;
    }
    case FL_PLAN_SORT:
        for (uint32_t i = 0; i < p->u.sort.nkeys; i++)
            check_expr(p->u.sort.keys[i].expr, w, sh);
        break;
    default:
        break;
    }
    for (uint32_t i = 0; i < p->nchildren; i++)
        walk(p->children[i], sh);
}

static const fl_plan *find_scan(const fl_plan *p, const char *name)
{
    if (p->kind == FL_PLAN_SCAN && p->u.scan.name && strstr(p->u.scan.name, name))
        return p;
    for (uint32_t i = 0; i < p->nchildren; i++) {
        const fl_plan *s = find_scan(p->children[i], name);
        if (s)
            return s;
    }
    return NULL;
}

static bool has_term(const fl_plan *scan, const char *col, fl_cmp_op op)
{
    for (uint32_t i = 0; scan && i < scan->u.scan.prune.nterms; i++)
        if (strcmp(scan->u.scan.prune.terms[i].column, col) == 0 &&
            scan->u.scan.prune.terms[i].op == op && scan->u.scan.prune.terms[i].field_id > 0)
            return true;
    return false;
}

typedef struct planned {
    fl_arena arena;
    fl_sql_parsed *parsed;
    fl_planner_ctx pc;
    fl_plan *plan;
    fl_error err;
    fl_status rc;
} planned;

static void plan_sql(planned *p, const char *sql)
{
    memset(p, 0, sizeof *p);
    fl_arena_init(&p->arena, 0);
    p->rc = fl_sql_parse(sql, &p->arena, &p->parsed, NULL, &p->err);
    if (p->rc != FL_OK)
        return;
    p->pc.arena = &p->arena;
    p->pc.catalog = cat;
    p->pc.io = io;
    p->pc.default_namespace = "default";
    p->pc.time_zone = "UTC";
    p->pc.parsed = p->parsed;
    p->rc = fl_planner_plan_query(&p->pc, p->parsed->stmt, &p->plan, &p->err);
}

static void plan_free(planned *p)
{
    fl_planner_ctx_release(&p->pc);
    fl_sql_parsed_free(p->parsed);
    fl_arena_free(&p->arena);
}

/* ---- the 22 queries ---- */

static char *queries[23];

static int load_queries(void)
{
    const char *sh = test_shared_dir();
    if (!sh)
        return -1;
    char path[1024];
    snprintf(path, sizeof path, "%s/fixtures/bench/tpch-sf0.01/QUERIES.md", sh);
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    static char buf[1 << 17];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = buf;
    for (int q = 1; q <= 22; q++) {
        char *s = strstr(p, "```sql\n");
        if (!s)
            return -1;
        s += 7;
        char *e = strstr(s, "```");
        if (!e)
            return -1;
        *e = 0;
        queries[q] = s;
        p = e + 3;
    }
    return 0;
}

static void test_tpch_plans(void)
{
    for (int q = 1; q <= 22; q++) {
        planned p;
        plan_sql(&p, queries[q]);
        if (p.rc != FL_OK) {
            fprintf(stderr, "Q%02d: %s\n", q, p.err.msg);
            CHECK_OK(p.rc, &p.err);
            plan_free(&p);
            continue;
        }
        shape sh;
        memset(&sh, 0, sizeof sh);
        walk(p.plan, &sh);
        if (sh.bad_refs || getenv("FLOE_TEST_VERBOSE")) {
            fprintf(stderr, "Q%02d plan:\n%s", q, fl_plan_explain(p.plan, false, &p.arena));
        }
        CHECK_EQ_INT(sh.bad_refs, 0);
        CHECK_EQ_INT(sh.joins[FL_JOIN_CROSS], 0);
        /* the decorrelated shapes */
        switch (q) {
        case 2:
        case 17:
        case 20:
            CHECK(sh.agg_under_left >= 1);
            break;
        case 4:
        case 18:
            CHECK(sh.joins[FL_JOIN_SEMI] == 1);
            break;
        case 11:
            CHECK(sh.subquery_exprs == 1);
            break;
        case 15: /* the view's max: a WINDOW over the one view (subquery_reuse.c) */
            CHECK(sh.subquery_exprs == 0);
            break;
        case 13:
            CHECK(sh.joins[FL_JOIN_LEFT] == 1);
            break;
        case 16:
            CHECK(sh.joins[FL_JOIN_MARK] == 1);
            break;
        case 21:
            CHECK(sh.joins[FL_JOIN_SEMI] == 1 && sh.joins[FL_JOIN_ANTI] == 1);
            break;
        case 22:
            CHECK(sh.joins[FL_JOIN_ANTI] == 1 && sh.subquery_exprs == 1);
            break;
        default:
            break;
        }
        if (q == 20)
            CHECK(sh.joins[FL_JOIN_SEMI] == 2);
        /* pushdown into scans */
        if (q == 1) {
            const fl_plan *l = find_scan(p.plan, "lineitem");
            CHECK(has_term(l, "l_shipdate", FL_CMP_LE));
            CHECK(l && l->schema.nfields == 7);
        }
        if (q == 6) {
            const fl_plan *l = find_scan(p.plan, "lineitem");
            CHECK(l && l->schema.nfields == 4); /* projection pushdown */
            CHECK(has_term(l, "l_shipdate", FL_CMP_GE) && has_term(l, "l_shipdate", FL_CMP_LT));
            CHECK(has_term(l, "l_discount", FL_CMP_GE) && has_term(l, "l_quantity", FL_CMP_LT));
            CHECK(l && l->u.scan.filter != NULL);
        }
        if (q == 3) {
            const fl_plan *c = find_scan(p.plan, "customer");
            CHECK(has_term(c, "c_mktsegment", FL_CMP_EQ));
        }
        if (q == 19) {
            /* the OR of three conjunctions stays whole: a join residual or filter */
            CHECK(sh.joins[FL_JOIN_INNER] == 1);
        }
        if (q == 14) {
            const fl_plan *l = find_scan(p.plan, "lineitem");
            CHECK(has_term(l, "l_shipdate", FL_CMP_GE));
        }
        plan_free(&p);
    }
}

static void expect_error(const char *sql, fl_status code, const char *msg_part, int32_t pos)
{
    planned p;
    plan_sql(&p, sql);
    CHECK_EQ_INT(p.rc, code);
    if (!strstr(p.err.msg, msg_part)) {
        fprintf(stderr, "expected \"%s\" in \"%s\"\n", msg_part, p.err.msg);
        CHECK(0);
    }
    if (pos)
        CHECK_EQ_INT(p.pc.error_position, pos);
    plan_free(&p);
}

static void test_bind_errors(void)
{
    expect_error("SELECT n_nam FROM nation", FL_ENOTFOUND,
                 "line 1, column 8: column \"n_nam\" does not exist", 8);
    expect_error("SELECT 1\nFROM nation, region\nWHERE n_name = r_nme", FL_ENOTFOUND,
                 "line 3, column 16: column \"r_nme\" does not exist", 0);
    expect_error("SELECT * FROM nope", FL_ENOTFOUND,
                 "line 1, column 15: relation \"default.nope\" does not exist", 15);
    expect_error("SELECT n_name, count(*) FROM nation", FL_EINVAL,
                 "column \"nation.n_name\" must appear in the GROUP BY clause", 8);
    expect_error("SELECT n_nationkey FROM nation, supplier WHERE n_nationkey = s_nationkey "
                 "AND n_nationkey = n_regionkey AND n_regionkey = 1 AND n_nationkey = "
                 "n_nationkey ORDER BY 3",
                 FL_EINVAL, "ORDER BY position 3 is not in select list", 0);
    expect_error("SELECT n_name FROM nation WHERE n_nationkey", FL_ETYPE,
                 "argument of WHERE must be type boolean", 0);
    expect_error("SELECT count(sum(n_nationkey)) FROM nation", FL_EINVAL,
                 "aggregate function calls cannot be nested", 14);
    expect_error("SELECT n_name FROM nation, region r WHERE r_regionkey = n_nationkey "
                 "AND regionkey = 1",
                 FL_ENOTFOUND, "column \"regionkey\" does not exist", 0);
}

static void test_misc_plans(void)
{
    const char *ok[] = {
        "SELECT * FROM (VALUES (1, 'a'), (2, NULL)) v(x, y) WHERE x > 1",
        "SELECT n_name AS n, count(*) FROM nation GROUP BY 1 HAVING count(*) > 1 ORDER BY n",
        "SELECT DISTINCT n_regionkey FROM nation ORDER BY 1 LIMIT 3 OFFSET 1",
        "SELECT n_name, rank() OVER (PARTITION BY n_regionkey ORDER BY n_nationkey) FROM nation",
        "SELECT n_name FROM nation UNION ALL SELECT r_name FROM region ORDER BY 1",
        "WITH x AS (SELECT r_regionkey k FROM region) SELECT * FROM x a JOIN x b ON a.k = b.k",
        ("SELECT a.* FROM nation a LEFT JOIN nation b USING (n_regionkey) WHERE a.n_nationkey "
         "BETWEEN 1 AND 5"),
        ("SELECT CASE WHEN n_nationkey IN (1, 2) THEN 'x' ELSE 'y' END, "
         "coalesce(n_comment, '-') FROM nation WHERE n_name LIKE 'A%' AND n_comment IS NOT NULL"),
        "SELECT 1 + 2 * 3, CAST('2024-01-02' AS date), DATE '1998-12-01' - INTERVAL '90' DAY",
        ("SELECT n_name FROM nation WHERE EXISTS (SELECT 1 FROM region WHERE r_regionkey = "
         "n_regionkey) OR n_nationkey = 0"),
        ("SELECT n_name, (SELECT max(r_name) FROM region WHERE r_regionkey = n_regionkey) FROM "
         "nation"),
        "SELECT extract(year FROM o_orderdate), substring(o_comment FROM 1 FOR 3) FROM orders",
        "SELECT count(*) FROM lineitem",
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        planned p;
        plan_sql(&p, ok[i]);
        if (p.rc != FL_OK)
            fprintf(stderr, "%s\n  -> %s\n", ok[i], p.err.msg);
        CHECK_OK(p.rc, &p.err);
        if (p.rc == FL_OK) {
            shape sh;
            memset(&sh, 0, sizeof sh);
            walk(p.plan, &sh);
            CHECK_EQ_INT(sh.bad_refs, 0);
        }
        plan_free(&p);
    }
    /* constant folding: the whole select list folds to constants */
    planned p;
    plan_sql(&p, "SELECT 1 + 2 * 3 AS x");
    CHECK_OK(p.rc, &p.err);
    if (p.rc == FL_OK) {
        CHECK(p.plan->kind == FL_PLAN_PROJECT);
        const fl_expr *e = p.plan->u.project.exprs[0];
        CHECK(e->kind == FL_EXPR_CONST && e->value.v.i32 == 7);
        CHECK_EQ_STR(p.plan->schema.fields[0].name, "x");
    }
    plan_free(&p);
    /* count(*) of an empty table comes from metadata */
    plan_sql(&p, "SELECT count(*) FROM lineitem");
    CHECK_OK(p.rc, &p.err);
    if (p.rc == FL_OK) {
        const fl_plan *c = p.plan->children ? p.plan->children[0] : NULL;
        CHECK(c && c->kind == FL_PLAN_VALUES);
    }
    plan_free(&p);
    /* parameters take their type from context */
    plan_sql(&p, "SELECT n_name FROM nation WHERE n_nationkey = $1 AND n_name <> $2");
    CHECK_OK(p.rc, &p.err);
    CHECK_EQ_INT(p.pc.nparams, 2);
    if (p.pc.nparams == 2) {
        CHECK_EQ_INT(p.pc.param_types[0].id, FL_TYPE_INT32);
        CHECK_EQ_INT(p.pc.param_types[1].id, FL_TYPE_STRING);
    }
    plan_free(&p);
}

int main(void)
{
    if (load_queries() != 0) {
        fprintf(stderr, "skipped: ../shared TPC-H queries not found (FLOE_SHARED)\n");
        return 77;
    }
    if (setup() != 0)
        return 1;
    TEST_RUN(test_tpch_plans);
    TEST_RUN(test_bind_errors);
    TEST_RUN(test_misc_plans);
    teardown();
    return TEST_EXIT();
}
