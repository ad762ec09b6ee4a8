/*
 * test_sql_complete.c - the candidates of TAB in `floe sql`
 * (src/cli/cmd_sql_complete.c) over a SQLite catalog with shop.orders,
 * shop.items and a nested namespace shop.archive: keywords in the typed
 * case, namespaces with their dot, qualified and default-namespace tables,
 * columns of a named table and of the tables the line mentions.
 */
#include "cli/cmd_sql_complete.c"

#include "floe_test.h"

static fl_catalog *g_cat;
static fl_arena g_a;

/* The candidates joined with ','. */
static const char *cands_of(const char *ns, const char *line, const char *word)
{
    uint32_t n = 0;
    const char **v = fl_sqlcomplete(g_cat, ns, line, word, &g_a, &n);
    char buf[4096] = "";
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            strcat(buf, ",");
        strncat(buf, v[i], 200);
    }
    return fl_arena_strdup(&g_a, buf);
}

static void test_keywords(void)
{
    CHECK_EQ_STR(cands_of(NULL, "sel", "sel"), "select");
    CHECK_EQ_STR(cands_of(NULL, "SEL", "SEL"), "SELECT");
    CHECK_EQ_STR(cands_of(NULL, "select * fr", "fr"), "from");
}

static void test_namespaces_and_tables(void)
{
    CHECK_EQ_STR(cands_of(NULL, "select * from sh", "sh"), "shop.,show");
    CHECK_EQ_STR(cands_of(NULL, "select * from shop.", "shop."),
                 "shop.archive.,shop.items,shop.orders");
    CHECK_EQ_STR(cands_of(NULL, "select * from shop.or", "shop.or"), "shop.orders");
    CHECK_EQ_STR(cands_of("shop", "select * from or", "or"), "or,order,orders");
    CHECK_EQ_STR(cands_of(NULL, "select * from nosuch.", "nosuch."), "");
}

static void test_columns(void)
{
    CHECK_EQ_STR(cands_of(NULL, "select shop.orders.", "shop.orders."),
                 "shop.orders.customer_name,shop.orders.order_id");
    CHECK_EQ_STR(cands_of("shop", "select orders.cu", "orders.cu"), "orders.customer_name");
    CHECK_EQ_STR(cands_of(NULL, "select * from shop.orders o join shop.items i where cu", "cu"),
                 "current_date,current_timestamp,customer_name");
    CHECK_EQ_STR(cands_of(NULL, "select * from shop.orders, shop.items where item_", "item_"),
                 "item_id");
    CHECK_EQ_STR(cands_of("shop", "update items set pr", "pr"), "price");
    /* without a catalog: keywords only */
    uint32_t n = 0;
    fl_sqlcomplete(NULL, NULL, "select * from sh", "sh", &g_a, &n);
    CHECK_EQ_INT(n, 1);
}

int main(void)
{
    char dir[256];
    if (!ft_tmpdir(dir, sizeof dir, "floe_complete"))
        return 1;
    fl_sql_session *s = ft_open_sqlite(dir, NULL, NULL);
    if (!s)
        return 1;
    ft_expect(s, "CREATE SCHEMA shop", "\n", "");
    ft_expect(s, "CREATE TABLE shop.orders (order_id bigint, customer_name varchar)", "\n", "");
    ft_expect(s, "CREATE TABLE shop.items (item_id bigint, price double)", "\n", "");
    char uri[600], wh[600];
    snprintf(uri, sizeof uri, "sqlite:%s/cat.db", dir);
    snprintf(wh, sizeof wh, "%s/wh", dir);
    fl_error err = {0};
    fl_fileio *io = fl_fileio_local();
    CHECK_OK(fl_catalog_open_uri(uri, NULL, wh, io, &g_cat, &err), &err);
    const char *levels[] = {"shop", "archive"};
    fl_namespace nested = {2, levels};
    CHECK_OK(g_cat->ops->create_namespace(g_cat, &nested, NULL, &err), &err);
    fl_arena_init(&g_a, 0);
    TEST_RUN(test_keywords);
    TEST_RUN(test_namespaces_and_tables);
    TEST_RUN(test_columns);
    fl_arena_free(&g_a);
    fl_catalog_close(g_cat);
    fl_fileio_destroy(io);
    fl_sql_session_close(s);
    ft_rmtree(dir);
    return TEST_EXIT();
}
