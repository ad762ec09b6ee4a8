/*
 * test_stmt_ddl.c - DDL through the SQL API (src/sql/stmt/): schemas,
 * CREATE TABLE with Trino's WITH options, ALTER TABLE (columns, types,
 * properties, partitioning), RENAME, DROP, SET/SHOW, transaction control,
 * and the errors of each. Every result is checked against the Iceberg
 * metadata the catalog holds afterwards.
 */
#include "floe/ice_view.h"
#include "sql/stmt_test_util.h"

static stmt_env E;

static const fl_field *field(const fl_ice_table *t, const char *name)
{
    const fl_ice_schema *s = fl_ice_metadata_current_schema(&t->meta);
    return s ? fl_schema_find_name(&s->schema, name) : NULL;
}

static uint32_t spec_fields(const fl_ice_table *t, char *names, size_t cap)
{
    const fl_ice_partition_spec *sp = fl_ice_metadata_spec(&t->meta, t->meta.default_spec_id);
    names[0] = '\0';
    uint32_t n = 0;
    for (uint32_t i = 0; sp && i < sp->nfields; i++) {
        if (!strcmp(sp->fields[i].transform, "void"))
            continue;
        size_t l = strlen(names);
        snprintf(names + l, cap - l, "%s%s:%s", n ? "," : "", sp->fields[i].name,
                 sp->fields[i].transform);
        n++;
    }
    return n;
}

static void test_schemas(void)
{
    RUN_OK(&E, "CREATE SCHEMA sales");
    CHECK_EQ_STR(E.tag, "CREATE SCHEMA");
    RUN_ERR(&E, "CREATE SCHEMA sales", FL_EEXIST, "already exists");
    RUN_OK(&E, "CREATE SCHEMA IF NOT EXISTS sales");
    RUN_OK(&E, "CREATE SCHEMA \"lake.raw\""); /* nested: lake is created too */
    RUN_OK(&E, "DROP SCHEMA \"lake.raw\"");
    RUN_OK(&E, "DROP SCHEMA lake");
    RUN_ERR(&E, "DROP SCHEMA lake", FL_ENOTFOUND, "does not exist");
    RUN_OK(&E, "DROP SCHEMA IF EXISTS lake");
    CHECK_EQ_STR(E.tag, "DROP SCHEMA");
}

static void test_create_table(void)
{
    RUN_OK(&E, "CREATE TABLE sales.orders (id bigint NOT NULL, customer varchar, "
               "price decimal(10,2), qty integer, ts timestamptz, day date, ok boolean, "
               "tags text[]) WITH (partitioning = ARRAY['day(ts)', 'bucket(4, id)'], "
               "sorted_by = ARRAY['id'], format_version = 2, "
               "\"write.delete.mode\" = 'copy-on-write')");
    CHECK_EQ_STR(E.tag, "CREATE TABLE");
    fl_ice_table *t = stmt_load(&E, "sales.orders");
    CHECK(t != NULL);
    if (!t)
        return;
    CHECK_EQ_INT(t->meta.format_version, 2);
    const fl_field *f = field(t, "id");
    CHECK(f && f->type.id == FL_TYPE_INT64 && !f->nullable);
    f = field(t, "price");
    CHECK(f && f->type.id == FL_TYPE_DECIMAL && f->type.precision == 10 && f->type.scale == 2 &&
          f->nullable);
    f = field(t, "qty");
    CHECK(f && f->type.id == FL_TYPE_INT32);
    f = field(t, "ts");
    CHECK(f && f->type.id == FL_TYPE_TIMESTAMPTZ);
    f = field(t, "customer");
    CHECK(f && f->type.id == FL_TYPE_STRING);
    f = field(t, "day");
    CHECK(f && f->type.id == FL_TYPE_DATE);
    f = field(t, "ok");
    CHECK(f && f->type.id == FL_TYPE_BOOLEAN);
    f = field(t, "tags");
    CHECK(f && f->type.id == FL_TYPE_LIST && f->type.children[0].type.id == FL_TYPE_STRING);
    char names[256];
    CHECK_EQ_INT(spec_fields(t, names, sizeof names), 2);
    CHECK_EQ_STR(names, "ts_day:day,id_bucket:bucket[4]");
    CHECK_EQ_STR(fl_ice_map_get(&t->meta.properties, "write.delete.mode"), "copy-on-write");
    const fl_ice_sort_order *so = NULL;
    for (uint32_t i = 0; i < t->meta.nsort_orders; i++)
        if (t->meta.sort_orders[i].order_id == t->meta.default_sort_order_id)
            so = &t->meta.sort_orders[i];
    CHECK(so && so->nfields == 1);
    fl_ice_table_free(t);

    RUN_ERR(&E, "CREATE TABLE sales.orders (id int)", FL_EEXIST, "already exists");
    RUN_OK(&E, "CREATE TABLE IF NOT EXISTS sales.orders (id int)");
    RUN_ERR(&E, "CREATE TABLE nosuch.t (id int)", FL_ENOTFOUND, "nosuch");
    RUN_ERR(&E, "CREATE TABLE sales.bad (id int, id bigint)", FL_EINVAL, "more than once");
    /* column defaults are Iceberg v3 (test_stmt_defaults.c); the default format is 2 */
    RUN_ERR(&E, "CREATE TABLE sales.bad (id int DEFAULT 3)", FL_EINVAL, "format version 3");
    RUN_ERR(&E, "CREATE TABLE sales.bad (id int GENERATED ALWAYS AS IDENTITY)", FL_EUNSUPPORTED,
            "IDENTITY");
    RUN_ERR(&E, "CREATE TABLE sales.bad (id int) WITH (format = 'orc')", FL_EUNSUPPORTED,
            "PARQUET");
    RUN_ERR(&E, "CREATE TABLE sales.bad (id int) WITH (partitioning = ARRAY['day(nope)'])",
            FL_ENOTFOUND, "nope");
    /* unqualified: the session's default namespace, created on demand */
    RUN_OK(&E, "CREATE TABLE plain (a int, b varchar) WITH (format_version = 1)");
    t = stmt_load(&E, "test.plain");
    CHECK(t && t->meta.format_version == 1);
    fl_ice_table_free(t);
    /* string form of partitioning */
    RUN_OK(&E, "CREATE TABLE sales.p2 (id int, ts timestamp) WITH (partitioning = "
               "'month(ts), truncate(id, 10)')");
    t = stmt_load(&E, "sales.p2");
    CHECK(t != NULL);
    if (t) {
        CHECK_EQ_INT(spec_fields(t, names, sizeof names), 2);
        CHECK_EQ_STR(names, "ts_month:month,id_trunc:truncate[10]");
    }
    fl_ice_table_free(t);
}

static void test_alter(void)
{
    RUN_OK(&E, "CREATE TABLE sales.items (id int NOT NULL, name varchar, qty int, "
               "amount real)");
    fl_ice_table *t0 = stmt_load(&E, "sales.items");
    uint32_t log0 = t0 ? t0->meta.nmetadata_log : 0;
    fl_ice_table_free(t0);
    /* several actions, one commit */
    RUN_OK(&E, "ALTER TABLE sales.items ADD COLUMN note varchar, ALTER COLUMN qty TYPE bigint, "
               "ALTER COLUMN amount TYPE double precision");
    CHECK_EQ_STR(E.tag, "ALTER TABLE");
    fl_ice_table *t = stmt_load(&E, "sales.items");
    CHECK(t != NULL);
    if (t) {
        CHECK_EQ_INT(t->meta.nmetadata_log, log0 + 1);
        CHECK(field(t, "note") && field(t, "note")->type.id == FL_TYPE_STRING);
        CHECK(field(t, "qty") && field(t, "qty")->type.id == FL_TYPE_INT64);
        CHECK(field(t, "amount") && field(t, "amount")->type.id == FL_TYPE_FLOAT64);
    }
    fl_ice_table_free(t);
    RUN_ERR(&E, "ALTER TABLE sales.items ALTER COLUMN qty TYPE integer", FL_ETYPE, "widening");
    RUN_OK(&E, "ALTER TABLE sales.items ADD COLUMN IF NOT EXISTS note varchar");
    RUN_OK(&E, "ALTER TABLE sales.items RENAME COLUMN note TO remark");
    RUN_OK(&E, "ALTER TABLE sales.items DROP COLUMN name");
    RUN_ERR(&E, "ALTER TABLE sales.items DROP COLUMN name", FL_ENOTFOUND, "does not exist");
    RUN_OK(&E, "ALTER TABLE sales.items DROP COLUMN IF EXISTS name");
    RUN_OK(&E, "ALTER TABLE sales.items ALTER COLUMN id DROP NOT NULL");
    RUN_OK(&E, "ALTER TABLE sales.items SET (\"commit.retry.num-retries\" = '7', owner = 'bi')");
    t = stmt_load(&E, "sales.items");
    CHECK(t != NULL);
    if (t) {
        CHECK(field(t, "remark") && !field(t, "note") && !field(t, "name"));
        CHECK(field(t, "id") && field(t, "id")->nullable);
        CHECK_EQ_STR(fl_ice_map_get(&t->meta.properties, "commit.retry.num-retries"), "7");
        CHECK_EQ_STR(fl_ice_map_get(&t->meta.properties, "owner"), "bi");
    }
    fl_ice_table_free(t);
    RUN_OK(&E, "ALTER TABLE sales.items SET PROPERTIES owner = 'data'"); /* Trino's spelling */
    t = stmt_load(&E, "sales.items");
    CHECK(t && !strcmp(fl_ice_map_get(&t->meta.properties, "owner"), "data"));
    fl_ice_table_free(t);
    RUN_OK(&E, "ALTER TABLE sales.items RESET (owner)");
    /* partition evolution: add two fields, then keep one */
    RUN_OK(&E, "ALTER TABLE sales.items SET (partitioning = 'bucket(8, id), truncate(remark, 2)')");
    char names[256];
    t = stmt_load(&E, "sales.items");
    CHECK(t != NULL);
    if (t) {
        CHECK(!fl_ice_map_get(&t->meta.properties, "owner"));
        CHECK_EQ_INT(spec_fields(t, names, sizeof names), 2);
        CHECK_EQ_STR(names, "id_bucket:bucket[8],remark_trunc:truncate[2]");
    }
    fl_ice_table_free(t);
    RUN_OK(&E, "ALTER TABLE sales.items SET (partitioning = ARRAY['bucket(id, 8)'])");
    t = stmt_load(&E, "sales.items");
    CHECK(t && spec_fields(t, names, sizeof names) == 1);
    CHECK_EQ_STR(names, "id_bucket:bucket[8]");
    fl_ice_table_free(t);
    RUN_OK(&E, "ALTER TABLE sales.items RESET (partitioning)");
    t = stmt_load(&E, "sales.items");
    CHECK(t && spec_fields(t, names, sizeof names) == 0);
    fl_ice_table_free(t);
    /* rename the table, then drop it */
    RUN_OK(&E, "ALTER TABLE sales.items RENAME TO goods");
    t = stmt_load(&E, "sales.goods");
    CHECK(t != NULL);
    fl_ice_table_free(t);
    RUN_ERR(&E, "ALTER TABLE sales.items ADD COLUMN x int", FL_ENOTFOUND, "does not exist");
    RUN_OK(&E, "ALTER TABLE IF EXISTS sales.items ADD COLUMN x int");
    RUN_OK(&E, "DROP TABLE sales.goods");
    CHECK_EQ_STR(E.tag, "DROP TABLE");
    CHECK(stmt_load(&E, "sales.goods") == NULL);
    RUN_ERR(&E, "DROP TABLE sales.goods", FL_ENOTFOUND, "does not exist");
    RUN_OK(&E, "DROP TABLE IF EXISTS sales.goods");
}

static void test_drop_schema_cascade(void)
{
    RUN_OK(&E, "CREATE SCHEMA tmp");
    RUN_OK(&E, "CREATE TABLE tmp.a (x int)");
    RUN_OK(&E, "CREATE TABLE tmp.b (x int)");
    RUN_ERR(&E, "DROP SCHEMA tmp", FL_ECONFLICT, "not empty");
    RUN_OK(&E, "DROP SCHEMA tmp CASCADE");
    CHECK(stmt_load(&E, "tmp.a") == NULL);
    RUN_ERR(&E, "CREATE TABLE tmp.c (x int)", FL_ENOTFOUND, "tmp");
}

static void test_session_statements(void)
{
    RUN_OK(&E, "SET threads = 1");
    CHECK_EQ_STR(E.tag, "SET");
    RUN_OK(&E, "SHOW threads");
    CHECK_EQ_STR(E.rows, "1\n");
    RUN_OK(&E, "SET TIME ZONE 'Europe/Paris'");
    RUN_OK(&E, "SHOW time_zone");
    CHECK_EQ_STR(E.rows, "Europe/Paris\n");
    RUN_OK(&E, "RESET time_zone");
    CHECK_EQ_STR(E.tag, "RESET");
    RUN_OK(&E, "SHOW time_zone");
    CHECK_EQ_STR(E.rows, "UTC\n");
    RUN_ERR(&E, "SHOW no_such_setting", FL_ENOTFOUND, "no_such_setting");
    RUN_OK(&E, "BEGIN");
    CHECK_EQ_STR(E.tag, "BEGIN");
    RUN_OK(&E, "COMMIT");
    CHECK_EQ_STR(E.tag, "COMMIT");
    RUN_OK(&E, "ROLLBACK");
    CHECK_EQ_STR(E.tag, "ROLLBACK");
    RUN_ERR(&E, "SAVEPOINT a", FL_EINVAL, "transaction blocks"); /* outside a block: 25P01 */
    RUN_ERR(&E, "PREPARE TRANSACTION 'x'", FL_EUNSUPPORTED, "two-phase");
    RUN_ERR(&E, "GRANT SELECT ON sales.orders TO bob", FL_EUNSUPPORTED, "not supported");
}

static void test_views(void)
{
    RUN_OK(&E, "CREATE VIEW sales.v1 (a, b) AS SELECT 1 AS x, 'two' AS y");
    CHECK_EQ_STR(E.tag, "CREATE VIEW");
    RUN_ERR(&E, "CREATE VIEW sales.v1 AS SELECT 1", FL_EEXIST, "already exists");
    RUN_OK(&E, "CREATE OR REPLACE VIEW sales.v1 AS SELECT 2 AS z");
    const char *loc = NULL;
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_table_ident id;
    CHECK_OK(fl_table_ident_parse("sales.v1", &a, &id, &E.err), &E.err);
    CHECK_OK(E.cat->ops->load_view(E.cat, &id, &a, &loc, &E.err), &E.err);
    fl_ice_view_metadata m;
    if (loc) {
        CHECK_OK(fl_ice_view_metadata_read(E.io, loc, &a, &m, &E.err), &E.err);
        const fl_ice_view_version *v = fl_ice_view_current_version(&m);
        CHECK(v && v->nrepresentations == 1);
        if (v && v->nrepresentations == 1)
            CHECK_EQ_STR(v->representations[0].sql, "SELECT 2 AS z");
        CHECK_EQ_INT(m.nversions, 2);
    }
    fl_arena_free(&a);
    RUN_OK(&E, "DROP VIEW sales.v1");
    CHECK_EQ_STR(E.tag, "DROP VIEW");
    RUN_ERR(&E, "DROP VIEW sales.v1", FL_ENOTFOUND, "does not exist");
    RUN_OK(&E, "DROP VIEW IF EXISTS sales.v1");
}

/* A view Spark created through floe's REST catalog (the metadata as Spark
 * 4.1 + Iceberg 1.11 write it): its SQL names tables as catalog.ns.table
 * with Spark's catalog name, which floe resolves in the catalog holding the
 * view. In floe's own SQL the same three parts are a nested namespace. */
static void test_foreign_view(void)
{
    RUN_OK(&E, "CREATE SCHEMA ext");
    RUN_OK(&E, "CREATE TABLE ext.base (k integer, name varchar)");
    RUN_OK(&E, "INSERT INTO ext.base VALUES (1, 'one'), (2, 'two'), (3, 'three')");
    static const char json[] =
        "{\"view-uuid\":\"88143c0c-3e66-4afe-83f1-7a52a5c0f4ec\",\"format-version\":1,"
        "\"location\":\"%s/wh/ext/sv\",\"properties\":{},\"schemas\":[{\"type\":\"struct\","
        "\"schema-id\":0,\"fields\":[{\"id\":0,\"name\":\"k\",\"required\":false,\"type\":"
        "\"int\"},{\"id\":1,\"name\":\"name\",\"required\":false,\"type\":\"string\"}]}],"
        "\"current-version-id\":1,\"versions\":[{\"version-id\":1,\"timestamp-ms\":1796239797628,"
        "\"schema-id\":0,\"summary\":{\"engine-name\":\"spark\"},\"representations\":[{"
        "\"type\":\"sql\",\"sql\":\"SELECT k, name FROM spark_cat.ext.base WHERE k > 1\","
        "\"dialect\":\"spark\"}],\"default-catalog\":\"spark_catalog\","
        "\"default-namespace\":[\"default\"]}],\"version-log\":[{\"timestamp-ms\":"
        "1796239797645,\"version-id\":1}]}";
    char path[400], text[2048];
    snprintf(path, sizeof path, "%s/sv.metadata.json", E.dir);
    int len = snprintf(text, sizeof text, json, E.dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f)
        return;
    CHECK(fwrite(text, 1, (size_t)len, f) == (size_t)len);
    fclose(f);
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_table_ident id;
    CHECK_OK(fl_table_ident_parse("ext.sv", &a, &id, &E.err), &E.err);
    CHECK_OK(E.cat->ops->create_view(E.cat, &id, path, &E.err), &E.err);
    fl_arena_free(&a);
    RUN_OK(&E, "SELECT k, name FROM ext.sv ORDER BY k");
    CHECK_EQ_STR(E.rows, "2|two\n3|three\n");
    RUN_OK(&E, "SELECT count(*) FROM ext.sv v JOIN ext.base b ON b.k = v.k");
    CHECK_EQ_STR(E.rows, "2\n");
    RUN_ERR(&E, "SELECT k FROM spark_cat.ext.base", FL_ENOTFOUND, "spark_cat.ext.base");
}

int main(void)
{
    if (stmt_env_open(&E) != 0) {
        fprintf(stderr, "setup failed: %s\n", E.err.msg);
        return 1;
    }
    TEST_RUN(test_schemas);
    TEST_RUN(test_create_table);
    TEST_RUN(test_alter);
    TEST_RUN(test_drop_schema_cascade);
    TEST_RUN(test_session_statements);
    TEST_RUN(test_views);
    TEST_RUN(test_foreign_view);
    stmt_env_close(&E);
    return TEST_EXIT();
}
