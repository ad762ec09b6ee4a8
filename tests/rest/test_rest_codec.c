/*
 * test_rest_codec.c - the REST codec's server-side readers (floe/rest.h) and
 * iceberg's one fresh-id assignment (fl_ice_fresh_table_ids): every table
 * requirement and update kind through a CommitTableRequest both ways (strict
 * and server modes), every view update kind both ways, CreateTableRequest
 * with fresh ids, CommitViewRequest, CreateViewRequest, the namespace,
 * register and rename requests (client writer -> server reader), the
 * server's responses (server writer -> client reader), and malformed input
 * answered with an error that names the field. test_rest_json.c covers the
 * exact shapes of each table update.
 */
#include <stdlib.h>
#include <string.h>

#include "floe/rest.h"
#include "test.h"

static json_t *load(const char *text)
{
    json_error_t je;
    json_t *j = json_loads(text, 0, &je);
    if (!j)
        fprintf(stderr, "bad test JSON: %s\n", je.text);
    return j;
}

static char *dump_sorted(json_t *j)
{
    return j ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
}

/* One request with every requirement kind and every table update kind. */
static const char COMMIT[] =
    "{\"identifier\":{\"namespace\":[\"db\"],\"name\":\"t\"},"
    "\"requirements\":["
    "{\"type\":\"assert-create\"},"
    "{\"type\":\"assert-table-uuid\",\"uuid\":\"9c12d441-03fe-4693-9a96-a0705ddf69c1\"},"
    "{\"type\":\"assert-ref-snapshot-id\",\"ref\":\"main\",\"snapshot-id\":null},"
    "{\"type\":\"assert-ref-snapshot-id\",\"ref\":\"b\",\"snapshot-id\":9007199254740993},"
    "{\"type\":\"assert-last-assigned-field-id\",\"last-assigned-field-id\":3},"
    "{\"type\":\"assert-current-schema-id\",\"current-schema-id\":0},"
    "{\"type\":\"assert-last-assigned-partition-id\",\"last-assigned-partition-id\":1000},"
    "{\"type\":\"assert-default-spec-id\",\"default-spec-id\":0},"
    "{\"type\":\"assert-default-sort-order-id\",\"default-sort-order-id\":1}],"
    "\"updates\":["
    "{\"action\":\"assign-uuid\",\"uuid\":\"9c12d441-03fe-4693-9a96-a0705ddf69c1\"},"
    "{\"action\":\"upgrade-format-version\",\"format-version\":2},"
    "{\"action\":\"add-schema\",\"schema\":{\"type\":\"struct\",\"schema-id\":1,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"}]},\"last-column-id\":1},"
    "{\"action\":\"set-current-schema\",\"schema-id\":-1},"
    "{\"action\":\"add-spec\",\"spec\":{\"spec-id\":1,\"fields\":[{\"name\":\"id_b\","
    "\"transform\":\"bucket[4]\",\"source-id\":1,\"field-id\":1000}]}},"
    "{\"action\":\"set-default-spec\",\"spec-id\":-1},"
    "{\"action\":\"add-sort-order\",\"sort-order\":{\"order-id\":1,\"fields\":[{\"transform\":"
    "\"identity\",\"source-id\":1,\"direction\":\"desc\",\"null-order\":\"nulls-last\"}]}},"
    "{\"action\":\"set-default-sort-order\",\"sort-order-id\":-1},"
    "{\"action\":\"add-snapshot\",\"snapshot\":{\"snapshot-id\":7,\"sequence-number\":1,"
    "\"timestamp-ms\":1700000000000,\"manifest-list\":\"s3://b/m.avro\",\"summary\":"
    "{\"operation\":\"append\"},\"schema-id\":1}},"
    "{\"action\":\"set-snapshot-ref\",\"ref-name\":\"main\",\"snapshot-id\":7,\"type\":\"branch\"},"
    "{\"action\":\"remove-snapshots\",\"snapshot-ids\":[1,2]},"
    "{\"action\":\"remove-snapshot-ref\",\"ref-name\":\"old\"},"
    "{\"action\":\"set-location\",\"location\":\"s3://b/t\"},"
    "{\"action\":\"set-properties\",\"updates\":{\"k\":\"v\"}},"
    "{\"action\":\"remove-properties\",\"removals\":[\"x\"]},"
    "{\"action\":\"set-statistics\",\"snapshot-id\":7,\"statistics\":{\"snapshot-id\":7,"
    "\"statistics-path\":\"s3://b/s.puffin\",\"file-size-in-bytes\":10,"
    "\"file-footer-size-in-bytes\":4,\"blob-metadata\":[]}},"
    "{\"action\":\"remove-statistics\",\"snapshot-id\":7},"
    "{\"action\":\"remove-partition-specs\",\"spec-ids\":[3]},"
    "{\"action\":\"remove-schemas\",\"schema-ids\":[4]}]}";

static char *commit_text(const fl_rest_commit_request *q)
{
    char *out = NULL;
    fl_error err;
    CHECK_OK(fl_rest_commit_request_json(q->has_identifier ? &q->identifier : NULL, q->requirements,
                                         q->nrequirements, q->updates, q->nupdates, &out, &err),
             &err);
    return out;
}

static void test_commit_both_modes(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_rest_commit_request q, q2, q3;
    CHECK_OK(fl_rest_commit_request_parse(COMMIT, strlen(COMMIT), &a, &q, &err), &err);
    CHECK_EQ_INT(q.nrequirements, 9);
    CHECK_EQ_INT(q.nupdates, 19);
    CHECK(q.has_identifier);
    char *t1 = commit_text(&q);
    CHECK_OK(fl_rest_commit_request_parse(t1, strlen(t1), &a, &q2, &err), &err);
    char *t2 = commit_text(&q2);
    CHECK(t1 && t2 && !strcmp(t1, t2));
    /* the server's reading gives the same requirements and updates */
    json_t *j = load(COMMIT);
    CHECK_OK(fl_rest_commit_request_from_json(j, false, &a, &q3, &err), &err);
    CHECK(!q3.has_identifier); /* the route names the table */
    q3.has_identifier = true;
    q3.identifier = q.identifier;
    char *t3 = commit_text(&q3);
    CHECK(t1 && t3 && !strcmp(t1, t3));
    json_decref(j);
    free(t1);
    free(t2);
    free(t3);
    fl_arena_free(&a);
}

static fl_status commit_json(const char *text, bool strict, fl_arena *a, fl_error *err)
{
    json_t *j = load(text);
    fl_rest_commit_request q;
    fl_status rc = fl_rest_commit_request_from_json(j, strict, a, &q, err);
    json_decref(j);
    return rc;
}

static void expect_error(fl_status got, fl_status want, const fl_error *err, const char *needle)
{
    CHECK_EQ_INT(got, want);
    if (!strstr(err->msg, needle))
        fprintf(stderr, "  message '%s' lacks '%s'\n", err->msg, needle);
    CHECK(strstr(err->msg, needle) != NULL);
}

static void test_commit_malformed(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    /* server mode: requirements optional, updates required */
    CHECK_OK(commit_json("{\"updates\":[]}", false, &a, &err), &err);
    expect_error(commit_json("{\"updates\":[]}", true, &a, &err), FL_EINVAL, &err, "requirements");
    expect_error(commit_json("{}", false, &a, &err), FL_EINVAL, &err, "updates: missing");
    expect_error(commit_json("{\"requirements\":{},\"updates\":[]}", false, &a, &err), FL_EINVAL,
                 &err, "requirements: must be an array");
    expect_error(commit_json("{\"updates\":[{\"action\":\"add-snapshot\",\"snapshot\":{"
                             "\"snapshot-id\":1,\"timestamp-ms\":1,\"summary\":{\"operation\":"
                             "\"append\"}}}]}",
                             false, &a, &err),
                 FL_EINVAL, &err, "updates[0].snapshot.manifest-list");
    expect_error(commit_json("{\"updates\":[{\"action\":\"set-location\",\"location\":7}]}", false,
                             &a, &err),
                 FL_EINVAL, &err, "updates[0].location");
    expect_error(commit_json("{\"requirements\":[{\"type\":\"assert-current-schema-id\"}],"
                             "\"updates\":[]}",
                             false, &a, &err),
                 FL_EINVAL, &err, "requirements[0].current-schema-id");
    expect_error(commit_json("{\"updates\":[{\"action\":\"frobnicate\"}]}", false, &a, &err),
                 FL_EINVAL, &err, "frobnicate");
    /* a view action: unsupported for a client, bad input for the server */
    expect_error(
        commit_json("{\"requirements\":[],\"updates\":[{\"action\":\"add-view-version\"}]}", true,
                    &a, &err),
        FL_EUNSUPPORTED, &err, "add-view-version");
    expect_error(commit_json("{\"updates\":[{\"action\":\"add-view-version\"}]}", false, &a, &err),
                 FL_EINVAL, &err, "updates[0]: not a table update");
    fl_rest_commit_request q;
    expect_error(fl_rest_commit_request_parse("{\"updates\":[", 12, &a, &q, &err), FL_ESYNTAX, &err,
                 "commit request");
    fl_arena_free(&a);
}

static const char VIEW_VERSION[] =
    "{\"version-id\":2,\"timestamp-ms\":1700000000000,\"schema-id\":0,"
    "\"summary\":{\"engine-name\":\"floe\"},\"representations\":[{\"type\":\"sql\","
    "\"sql\":\"SELECT 1\",\"dialect\":\"spark\"}],\"default-namespace\":[\"db\"]}";

static void test_view_updates_round_trip(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    char add_version[512];
    snprintf(add_version, sizeof add_version,
             "{\"action\":\"add-view-version\",\"view-version\":%s}", VIEW_VERSION);
    const char *const updates[] = {
        "{\"action\":\"assign-uuid\",\"uuid\":\"9c12d441-03fe-4693-9a96-a0705ddf69c1\"}",
        "{\"action\":\"upgrade-format-version\",\"format-version\":1}",
        "{\"action\":\"add-schema\",\"schema\":{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
        "{\"id\":1,\"name\":\"x\",\"required\":false,\"type\":\"int\"}]}}",
        "{\"action\":\"set-location\",\"location\":\"s3://b/v\"}",
        "{\"action\":\"set-properties\",\"updates\":{\"comment\":\"hi\"}}",
        "{\"action\":\"remove-properties\",\"removals\":[\"comment\"]}",
        add_version,
        "{\"action\":\"set-current-view-version\",\"view-version-id\":-1}",
    };
    bool kinds[FL_ICE_VIEW_UPD_SET_CURRENT_VERSION + 1] = {0};
    for (size_t i = 0; i < sizeof updates / sizeof updates[0]; i++) {
        json_t *j = load(updates[i]);
        fl_ice_view_update u, back;
        fl_ice_view_version *added;
        CHECK_OK(fl_rest_view_update_from_json(j, "updates[0]", &a, &u, &added, &err), &err);
        CHECK_EQ_INT(added != NULL, u.kind == FL_ICE_VIEW_UPD_ADD_VERSION);
        kinds[u.kind] = true;
        json_t *o = NULL, *o2 = NULL;
        CHECK_OK(fl_rest_view_update_to_json(&u, &o, &err), &err);
        CHECK_OK(fl_rest_view_update_from_json(o, "updates[0]", &a, &back, NULL, &err), &err);
        CHECK_EQ_INT(back.kind, u.kind);
        CHECK_OK(fl_rest_view_update_to_json(&back, &o2, &err), &err);
        char *t1 = dump_sorted(o), *t2 = dump_sorted(o2);
        CHECK(t1 && t2 && !strcmp(t1, t2));
        if (u.kind != FL_ICE_VIEW_UPD_ADD_SCHEMA) { /* schemas gain default keys */
            char *t0 = dump_sorted(j);
            CHECK(t0 && t1 && !strcmp(t0, t1));
            if (t0 && t1 && strcmp(t0, t1))
                fprintf(stderr, "  %s\n  %s\n", t0, t1);
            free(t0);
        }
        free(t1);
        free(t2);
        json_decref(o);
        json_decref(o2);
        json_decref(j);
    }
    for (int k = FL_ICE_VIEW_UPD_ASSIGN_UUID; k <= FL_ICE_VIEW_UPD_SET_CURRENT_VERSION; k++)
        CHECK(kinds[k]);
    fl_arena_free(&a);
}

static fl_status view_update(const char *text, fl_arena *a, fl_error *err)
{
    json_t *j = load(text);
    fl_ice_view_update u;
    fl_status rc = fl_rest_view_update_from_json(j, "updates[1]", a, &u, NULL, err);
    json_decref(j);
    return rc;
}

static void test_view_malformed(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    expect_error(view_update("{}", &a, &err), FL_EINVAL, &err, "updates[1].action: missing");
    expect_error(view_update("{\"action\":\"add-spec\",\"spec\":{\"fields\":[]}}", &a, &err),
                 FL_EINVAL, &err, "'add-spec' is not a view update");
    expect_error(view_update("{\"action\":\"set-current-view-version\"}", &a, &err), FL_EINVAL,
                 &err, "updates[1].view-version-id");
    expect_error(view_update("{\"action\":\"add-view-version\"}", &a, &err), FL_EINVAL, &err,
                 "updates[1].view-version: missing");
    expect_error(view_update("{\"action\":\"add-view-version\",\"view-version\":{\"schema-id\":0}}",
                             &a, &err),
                 FL_EINVAL, &err, "updates[1].view-version");
    json_t *j = load("{\"requirements\":[{\"type\":\"assert-table-uuid\",\"uuid\":\"u\"}],"
                     "\"updates\":[]}");
    fl_rest_view_commit_request q;
    expect_error(fl_rest_view_commit_request_from_json(j, &a, &q, &err), FL_EINVAL, &err,
                 "requirements[0]: unknown view requirement 'assert-table-uuid'");
    json_decref(j);
    fl_arena_free(&a);
}

static void test_view_requests(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    char text[1024];
    snprintf(text, sizeof text,
             "{\"requirements\":[{\"type\":\"assert-view-uuid\",\"uuid\":\"u-1\"}],\"updates\":["
             "{\"action\":\"add-view-version\",\"view-version\":%s},"
             "{\"action\":\"set-current-view-version\",\"view-version-id\":-1}]}",
             VIEW_VERSION);
    json_t *j = load(text);
    fl_rest_view_commit_request q;
    CHECK_OK(fl_rest_view_commit_request_from_json(j, &a, &q, &err), &err);
    CHECK_EQ_STR(q.assert_uuid, "u-1");
    CHECK_EQ_INT(q.nupdates, 2);
    CHECK(q.added[0] != NULL && q.added[1] == NULL);
    CHECK_EQ_INT(q.added[0]->version_id, 2);
    json_decref(j);
    snprintf(text, sizeof text,
             "{\"name\":\"v\",\"schema\":{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"x\","
             "\"required\":false,\"type\":\"int\"}]},\"view-version\":%s,"
             "\"properties\":{\"comment\":\"c\"}}",
             VIEW_VERSION);
    j = load(text);
    fl_rest_create_view_request c;
    CHECK_OK(fl_rest_create_view_request_from_json(j, &a, &c, &err), &err);
    CHECK_EQ_STR(c.name, "v");
    CHECK(c.location == NULL);
    CHECK_EQ_INT(c.schema.schema.nfields, 1);
    CHECK_EQ_INT(c.properties.n, 1);
    CHECK(c.version && c.version->nrepresentations == 1);
    json_decref(j);
    j = load("{\"name\":\"v\"}");
    expect_error(fl_rest_create_view_request_from_json(j, &a, &c, &err), FL_EINVAL, &err,
                 "schema: missing");
    json_decref(j);
    j = load("{\"schema\":{}}");
    expect_error(fl_rest_create_view_request_from_json(j, &a, &c, &err), FL_EINVAL, &err,
                 "name: missing");
    json_decref(j);
    fl_arena_free(&a);
}

/* Ids 10.. in the request; fresh ones as Java assigns: top-level 1..3, then
 * the struct's fields 4, 5, the list element 6, the map key/value 7, 8. */
static const char CREATE[] =
    "{\"name\":\"t\",\"location\":\"s3://b/t//\",\"stage-create\":true,"
    "\"schema\":{\"type\":\"struct\",\"identifier-field-ids\":[10],\"fields\":["
    "{\"id\":10,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":11,\"name\":\"s\",\"required\":false,\"type\":{\"type\":\"struct\",\"fields\":["
    "{\"id\":20,\"name\":\"a\",\"required\":false,\"type\":\"string\"},"
    "{\"id\":21,\"name\":\"l\",\"required\":false,\"type\":{\"type\":\"list\",\"element-id\":30,"
    "\"element\":\"int\",\"element-required\":false}}]}},"
    "{\"id\":12,\"name\":\"m\",\"required\":false,\"type\":{\"type\":\"map\",\"key-id\":40,"
    "\"key\":\"string\",\"value-id\":41,\"value\":\"double\",\"value-required\":false}}]},"
    "\"partition-spec\":{\"spec-id\":7,\"fields\":[{\"name\":\"id_bucket\",\"transform\":"
    "\"bucket[8]\",\"source-id\":10,\"field-id\":1234},{\"name\":\"a\",\"transform\":\"identity\","
    "\"source-id\":20}]},"
    "\"write-order\":{\"order-id\":5,\"fields\":[{\"transform\":\"identity\",\"source-id\":12,"
    "\"direction\":\"asc\",\"null-order\":\"nulls-first\"}]},"
    "\"properties\":{\"format-version\":\"3\",\"owner\":\"ann\"}}";

static void test_create_fresh_ids(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    json_t *j = load(CREATE);
    fl_rest_create_request q;
    CHECK_OK(fl_rest_create_request_from_json(j, &a, &q, &err), &err);
    json_decref(j);
    CHECK_EQ_STR(q.name, "t");
    CHECK_EQ_STR(q.location, "s3://b/t");
    CHECK(q.stage_create && q.has_spec && q.has_order);
    CHECK_EQ_INT(q.format_version, 3);
    CHECK_EQ_INT(q.properties.n, 1);
    CHECK_EQ_STR(q.properties.items[0].key, "owner");
    fl_ice_fresh_table f;
    CHECK_OK(fl_ice_fresh_table_ids(&q.schema, &q.spec, &q.order, &a, &f, &err), &err);
    CHECK_EQ_INT(f.last_column_id, 8);
    CHECK_EQ_INT(f.schema.schema_id, 0);
    const fl_field *top = f.schema.schema.fields;
    CHECK_EQ_INT(top[0].field_id, 1);
    CHECK_EQ_INT(top[1].field_id, 2);
    CHECK_EQ_INT(top[2].field_id, 3);
    CHECK_EQ_INT(top[1].type.children[0].field_id, 4);
    CHECK_EQ_INT(top[1].type.children[1].field_id, 5);
    CHECK_EQ_INT(top[1].type.children[1].type.children[0].field_id, 6);
    CHECK_EQ_INT(top[2].type.children[0].field_id, 7);
    CHECK_EQ_INT(top[2].type.children[1].field_id, 8);
    CHECK_EQ_INT(f.schema.nidentifier, 1);
    CHECK_EQ_INT(f.schema.identifier_field_ids[0], 1);
    CHECK_EQ_INT(f.spec.spec_id, 0);
    CHECK_EQ_INT(f.spec.nfields, 2);
    CHECK_EQ_INT(f.spec.fields[0].source_id, 1);
    CHECK_EQ_INT(f.spec.fields[0].field_id, 1000);
    CHECK_EQ_INT(f.spec.fields[1].source_id, 4);
    CHECK_EQ_INT(f.spec.fields[1].field_id, 1001);
    CHECK_EQ_INT(f.order.order_id, 1);
    CHECK_EQ_INT(f.order.fields[0].source_id, 3);
    /* the request is left as it was */
    CHECK_EQ_INT(q.schema.schema.fields[0].field_id, 10);
    CHECK_EQ_INT(q.spec.fields[0].source_id, 10);
    /* no spec, no order: unpartitioned, unsorted */
    CHECK_OK(fl_ice_fresh_table_ids(&q.schema, NULL, NULL, &a, &f, &err), &err);
    CHECK_EQ_INT(f.spec.nfields, 0);
    CHECK_EQ_INT(f.order.order_id, 0);
    /* a source id that is not a field */
    q.spec.fields[1].source_id = 99;
    q.spec.fields[1].source_ids[0] = 99;
    expect_error(fl_ice_fresh_table_ids(&q.schema, &q.spec, NULL, &a, &f, &err), FL_EINVAL, &err,
                 "partition-spec.fields[1]: source-id 99 is not a schema field");
    fl_arena_free(&a);
}

/* Flink's CreateTableRequest (FlinkSchemaUtil) numbers top-level fields from
 * 0, so a primary key on the first column is identifier-field-ids [0]; the
 * identifier and the partition source follow their fields to fresh ids. */
static void test_create_ids_from_zero(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    json_t *j = load("{\"name\":\"up\",\"schema\":{\"type\":\"struct\",\"schema-id\":0,"
                     "\"identifier-field-ids\":[0],\"fields\":["
                     "{\"id\":0,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
                     "{\"id\":1,\"name\":\"s\",\"required\":false,\"type\":\"string\"}]},"
                     "\"partition-spec\":{\"spec-id\":0,\"fields\":[{\"name\":\"id_bucket\","
                     "\"transform\":\"bucket[4]\",\"source-id\":0,\"field-id\":1000}]},"
                     "\"properties\":{\"format-version\":\"2\"}}");
    fl_rest_create_request q;
    CHECK_OK(fl_rest_create_request_from_json(j, &a, &q, &err), &err);
    json_decref(j);
    fl_ice_fresh_table f;
    CHECK_OK(fl_ice_fresh_table_ids(&q.schema, &q.spec, NULL, &a, &f, &err), &err);
    CHECK_EQ_INT(f.schema.schema.fields[0].field_id, 1);
    CHECK_EQ_INT(f.schema.schema.fields[1].field_id, 2);
    CHECK_EQ_INT(f.schema.nidentifier, 1);
    CHECK_EQ_INT(f.schema.identifier_field_ids[0], 1);
    CHECK_EQ_INT(f.spec.fields[0].source_id, 1);
    /* an identifier that names no field is still refused */
    j = load("{\"name\":\"up\",\"schema\":{\"type\":\"struct\",\"identifier-field-ids\":[2],"
             "\"fields\":[{\"id\":0,\"name\":\"id\",\"required\":true,\"type\":\"long\"}]}}");
    expect_error(fl_rest_create_request_from_json(j, &a, &q, &err), FL_EINVAL, &err,
                 "field id 2 not in the schema");
    json_decref(j);
    fl_arena_free(&a);
}

static fl_status create(const char *text, fl_arena *a, fl_error *err)
{
    json_t *j = load(text);
    fl_rest_create_request q;
    fl_status rc = fl_rest_create_request_from_json(j, a, &q, err);
    json_decref(j);
    return rc;
}

static void test_create_malformed(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    expect_error(create("{\"name\":\"t\"}", &a, &err), FL_EINVAL, &err, "schema: missing");
    expect_error(create("{\"schema\":[]}", &a, &err), FL_EINVAL, &err, "schema: must be an object");
    expect_error(create("{\"schema\":{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"x\","
                        "\"required\":true}]}}",
                        &a, &err),
                 FL_EINVAL, &err, "schema.fields[0]");
    const char *ok_schema = "\"schema\":{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"x\","
                            "\"required\":true,\"type\":\"int\"}]}";
    char buf[512];
    snprintf(buf, sizeof buf, "{%s,\"properties\":{\"format-version\":\"9\"}}", ok_schema);
    expect_error(create(buf, &a, &err), FL_EINVAL, &err, "properties.format-version");
    snprintf(buf, sizeof buf, "{%s,\"properties\":{\"k\":1}}", ok_schema);
    expect_error(create(buf, &a, &err), FL_EINVAL, &err, "properties.k: must be a string");
    snprintf(buf, sizeof buf, "{%s,\"partition-spec\":{\"fields\":[{\"name\":\"p\"}]}}", ok_schema);
    expect_error(create(buf, &a, &err), FL_EINVAL, &err, "partition-spec.fields[0]");
    snprintf(buf, sizeof buf,
             "{%s,\"write-order\":{\"fields\":[{\"transform\":\"identity\",\"source-id\":1,"
             "\"direction\":\"up\",\"null-order\":\"nulls-first\"}]}}",
             ok_schema);
    expect_error(create(buf, &a, &err), FL_EINVAL, &err, "write-order.fields[0]");
    fl_arena_free(&a);
}

static json_t *load_owned(char *text)
{
    json_t *j = text ? load(text) : NULL;
    free(text);
    return j;
}

/* What the client emits, the server reads back. */
static void test_catalog_requests_round_trip(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    const char *lv[] = {"db", "sub"};
    fl_namespace ns = {2, lv};
    fl_ice_kv kv[] = {{"owner", "ann"}};
    fl_ice_map props = {1, kv};
    char *text = NULL;
    CHECK_OK(fl_rest_create_namespace_request_json(&ns, &props, &text, &err), &err);
    json_t *j = load_owned(text);
    fl_namespace ns2;
    fl_ice_map props2;
    CHECK_OK(fl_rest_create_namespace_request_from_json(j, &a, &ns2, &props2, &err), &err);
    CHECK_EQ_INT(ns2.nlevels, 2);
    CHECK_EQ_STR(ns2.levels[1], "sub");
    CHECK_EQ_STR(fl_ice_map_get(&props2, "owner"), "ann");
    json_decref(j);
    const char *rem[] = {"comment"};
    CHECK_OK(fl_rest_update_namespace_request_json(&props, rem, 1, &text, &err), &err);
    j = load_owned(text);
    fl_rest_namespace_update nu;
    CHECK_OK(fl_rest_update_namespace_request_from_json(j, &a, &nu, &err), &err);
    CHECK_EQ_INT(nu.nremovals, 1);
    CHECK_EQ_STR(nu.removals[0], "comment");
    CHECK_EQ_INT(nu.updates.n, 1);
    json_decref(j);
    CHECK_OK(fl_rest_register_request_json("t", "s3://b/t/metadata/v1.metadata.json", &text, &err),
             &err);
    j = load_owned(text);
    fl_rest_register_request rr;
    CHECK_OK(fl_rest_register_request_from_json(j, &a, &rr, &err), &err);
    CHECK_EQ_STR(rr.name, "t");
    CHECK_EQ_STR(rr.metadata_location, "s3://b/t/metadata/v1.metadata.json");
    CHECK(!rr.overwrite);
    json_decref(j);
    fl_table_ident from = {ns, "a"}, to = {{1, lv}, "b"}, f2, t2;
    CHECK_OK(fl_rest_rename_request_json(&from, &to, &text, &err), &err);
    j = load_owned(text);
    CHECK_OK(fl_rest_rename_request_from_json(j, &a, &f2, &t2, &err), &err);
    CHECK_EQ_STR(f2.name, "a");
    CHECK_EQ_INT(f2.ns.nlevels, 2);
    CHECK_EQ_STR(t2.name, "b");
    CHECK_EQ_INT(t2.ns.nlevels, 1);
    json_decref(j);
    /* malformed */
    j = load("{\"source\":{\"namespace\":[\"db\"],\"name\":\"a\"},\"destination\":{\"namespace\":"
             "[\"db\"]}}");
    expect_error(fl_rest_rename_request_from_json(j, &a, &f2, &t2, &err), FL_EINVAL, &err,
                 "destination.name: missing");
    json_decref(j);
    j = load("{\"namespace\":[\"db\",\"\"]}");
    expect_error(fl_rest_create_namespace_request_from_json(j, &a, &ns2, &props2, &err), FL_EINVAL,
                 &err, "namespace[1] must be a non-empty string");
    json_decref(j);
    j = load("{\"namespace\":[\"db\"],\"properties\":{\"k\":2}}");
    expect_error(fl_rest_create_namespace_request_from_json(j, &a, &ns2, &props2, &err), FL_EINVAL,
                 &err, "properties.k must be a string");
    json_decref(j);
    j = load("{\"removals\":[1]}");
    expect_error(fl_rest_update_namespace_request_from_json(j, &a, &nu, &err), FL_EINVAL, &err,
                 "removals[0] must be a string");
    json_decref(j);
    j = load("{\"name\":\"t\"}");
    expect_error(fl_rest_register_request_from_json(j, &a, &rr, &err), FL_EINVAL, &err,
                 "metadata-location");
    json_decref(j);
    fl_arena_free(&a);
}

static char *dump_text(json_t *j)
{
    char *t = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    return t;
}

/* What the server answers, the client reads back. */
static void test_responses_round_trip(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    const char *lv[] = {"db"}, *lv2[] = {"db", "x"};
    fl_namespace ns = {1, lv}, ns2 = {2, lv2};
    const char *names[] = {"t1", "t2"};
    char *t = dump_text(fl_rest_identifiers_json(&ns, names, 2, "p2"));
    const char **got;
    uint32_t n;
    const char *next;
    CHECK(t != NULL);
    CHECK_OK(fl_rest_tables_parse(t, strlen(t), &a, &got, &n, &next, &err), &err);
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_STR(got[1], "t2");
    CHECK_EQ_STR(next, "p2");
    free(t);
    const fl_namespace *list[] = {&ns, &ns2};
    t = dump_text(fl_rest_namespaces_json(list, 2, NULL));
    fl_namespace *nss;
    CHECK(t != NULL);
    CHECK_OK(fl_rest_namespaces_parse(t, strlen(t), &a, &nss, &n, &next, &err), &err);
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_INT(nss[1].nlevels, 2);
    CHECK(next == NULL);
    free(t);
    fl_ice_kv kv[] = {{"location", "s3://b/db"}};
    fl_ice_map props = {1, kv}, back;
    t = dump_text(fl_rest_namespace_json(&ns, &props));
    CHECK(t != NULL);
    CHECK_OK(fl_rest_namespace_parse(t, strlen(t), &a, &back, &err), &err);
    CHECK_EQ_STR(fl_ice_map_get(&back, "location"), "s3://b/db");
    free(t);
    t = dump_text(fl_rest_error_json("Table does not exist: db.t", "NoSuchTableException", 404));
    const char *type = NULL, *msg = NULL;
    CHECK(t && fl_rest_error_parse(t, strlen(t), &a, &type, &msg));
    CHECK_EQ_STR(type, "NoSuchTableException");
    CHECK_EQ_STR(msg, "Table does not exist: db.t");
    free(t);
    /* LoadTableResult of a new table's metadata */
    json_t *j = load(CREATE);
    fl_rest_create_request q;
    CHECK_OK(fl_rest_create_request_from_json(j, &a, &q, &err), &err);
    json_decref(j);
    fl_ice_fresh_table f;
    CHECK_OK(fl_ice_fresh_table_ids(&q.schema, &q.spec, &q.order, &a, &f, &err), &err);
    fl_ice_update u[] = {
        {.kind = FL_ICE_UPD_ASSIGN_UUID, .uuid = "9c12d441-03fe-4693-9a96-a0705ddf69c1"},
        {.kind = FL_ICE_UPD_UPGRADE_FORMAT_VERSION, .format_version = 2},
        {.kind = FL_ICE_UPD_ADD_SCHEMA, .schema = &f.schema, .last_column_id = f.last_column_id},
        {.kind = FL_ICE_UPD_SET_CURRENT_SCHEMA, .id = -1},
        {.kind = FL_ICE_UPD_ADD_SPEC, .spec = &f.spec},
        {.kind = FL_ICE_UPD_SET_DEFAULT_SPEC, .id = -1},
        {.kind = FL_ICE_UPD_ADD_SORT_ORDER, .order = &f.order},
        {.kind = FL_ICE_UPD_SET_DEFAULT_SORT_ORDER, .id = -1},
        {.kind = FL_ICE_UPD_SET_LOCATION, .location = "s3://b/t"},
    };
    fl_ice_metadata m;
    CHECK_OK(fl_ice_metadata_apply(NULL, NULL, u, 9, 1700000000000, &a, &m, &err), &err);
    size_t len = 0;
    CHECK_OK(fl_rest_load_result_json("s3://b/t/metadata/v1.metadata.json", &m, &t, &len, &err),
             &err);
    fl_rest_load_result lr;
    CHECK(t && strlen(t) == len);
    CHECK_OK(fl_rest_load_result_parse(t, len, &a, &lr, &err), &err);
    CHECK_EQ_STR(lr.metadata_location, "s3://b/t/metadata/v1.metadata.json");
    CHECK_EQ_INT(lr.metadata.last_column_id, 8);
    CHECK_EQ_INT(lr.metadata.nspecs, 1);
    CHECK_EQ_INT(lr.metadata.specs[0].fields[1].source_id, 4);
    free(t);
    CHECK_OK(fl_rest_load_result_json(NULL, &m, &t, &len, &err), &err); /* staged */
    CHECK_OK(fl_rest_load_result_parse(t, len, &a, &lr, &err), &err);
    CHECK(lr.metadata_location == NULL);
    free(t);
    fl_arena_free(&a);
}

int main(void)
{
    TEST_RUN(test_commit_both_modes);
    TEST_RUN(test_commit_malformed);
    TEST_RUN(test_view_updates_round_trip);
    TEST_RUN(test_view_malformed);
    TEST_RUN(test_view_requests);
    TEST_RUN(test_create_fresh_ids);
    TEST_RUN(test_create_ids_from_zero);
    TEST_RUN(test_create_malformed);
    TEST_RUN(test_catalog_requests_round_trip);
    TEST_RUN(test_responses_round_trip);
    return TEST_EXIT();
}
