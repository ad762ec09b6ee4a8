/*
 * test_rest_json.c - the REST catalog protocol JSON (include/floe/rest.h):
 * every TableUpdate and TableRequirement of the spec to JSON and back (text
 * equal after a round trip, exact text for the shapes the spec fixes, int64
 * exact), the unsupported spec updates and malformed input refused with the
 * JSON path in the message, commit/create request bodies, and the responses
 * (LoadTableResult, CatalogConfig, list pages, errors, OAuth tokens).
 *
 * `test_rest_json --dump FILE` writes one CommitTableRequest holding every
 * update and requirement; test_rest_client.sh validates it against the
 * OpenAPI schema with Ajv.
 */
#include <stdlib.h>
#include <string.h>

#include "floe/rest.h"
#include "test.h"

static const char SCHEMA_JSON[] =
    "{\"type\":\"struct\",\"schema-id\":1,\"identifier-field-ids\":[1],\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"tags\",\"required\":false,\"type\":{\"type\":\"list\",\"element-id\":3,"
    "\"element\":\"string\",\"element-required\":false}},"
    "{\"id\":4,\"name\":\"price\",\"required\":false,\"type\":\"decimal(9, 2)\"}]}";

static int32_t src_ids[2] = {1, 4};
static fl_ice_partition_field PFIELDS[] = {
    {.name = "id_bucket", .transform = "bucket[16]", .source_id = 1, .nsource_ids = 1,
     .source_ids = src_ids, .field_id = 1000},
    {.name = "p", .transform = "identity", .source_id = 4, .nsource_ids = 1, .source_ids = src_ids + 1,
     .field_id = 0}};
static fl_ice_partition_spec SPEC = {.spec_id = -1, .nfields = 2, .fields = PFIELDS};
static fl_ice_sort_field SFIELDS[] = {
    {.transform = "identity", .source_id = 1, .nsource_ids = 1, .source_ids = src_ids,
     .descending = true, .nulls_first = false},
    {.transform = "truncate[4]", .source_id = 4, .nsource_ids = 1, .source_ids = src_ids + 1,
     .descending = false, .nulls_first = true}};
static fl_ice_sort_order ORDER = {.order_id = 1, .nfields = 2, .fields = SFIELDS};
static fl_ice_kv SUMMARY[] = {{"added-data-files", "1"}, {"added-records", "3"}};
static fl_ice_snapshot SNAP = {.snapshot_id = 9007199254740993LL,
                               .has_parent = true,
                               .parent_snapshot_id = 4611686018427387904LL,
                               .sequence_number = 7,
                               .timestamp_ms = 1700000000123LL,
                               .manifest_list = "s3://b/t/metadata/snap-1.avro",
                               .operation = "append",
                               .has_summary = true,
                               .summary = {2, SUMMARY},
                               .has_schema_id = true,
                               .schema_id = 1,
                               .has_first_row_id = true,
                               .first_row_id = 100,
                               .has_added_rows = true,
                               .added_rows = 3};
static fl_ice_ref REF = {.name = "audit",
                         .snapshot_id = 9007199254740993LL,
                         .has_min_snapshots_to_keep = true,
                         .min_snapshots_to_keep = 2,
                         .has_max_snapshot_age_ms = true,
                         .max_snapshot_age_ms = 86400000,
                         .has_max_ref_age_ms = true,
                         .max_ref_age_ms = 604800000};
static fl_ice_ref TAG = {.name = "v1", .snapshot_id = 5, .is_tag = true};
static int32_t BLOB_FIELDS[] = {1, 4};
static fl_ice_kv BLOB_PROPS[] = {{"ndv", "3"}};
static fl_ice_blob_metadata BLOBS[] = {{.type = "apache-datasketches-theta-v1",
                                        .snapshot_id = 9007199254740993LL,
                                        .sequence_number = 7,
                                        .nfields = 2,
                                        .fields = BLOB_FIELDS,
                                        .has_properties = true,
                                        .properties = {1, BLOB_PROPS}}};
static fl_ice_statistics_file STATS = {.snapshot_id = 9007199254740993LL,
                                       .statistics_path = "s3://b/t/metadata/stats.puffin",
                                       .file_size_in_bytes = 4096,
                                       .file_footer_size_in_bytes = 512,
                                       .nblobs = 1,
                                       .blobs = BLOBS};
static int64_t SNAP_IDS[] = {1, 9007199254740993LL};
static int64_t SMALL_IDS[] = {0, 3};
static fl_ice_kv PROPS[] = {{"commit.retry.num-retries", "10"}, {"owner", "ann"}};
static const char *REMOVALS[] = {"a", "b.c"};

/* Every update kind (schema filled in at run time). */
static const fl_ice_partition_statistics_file PSTATS = {
    .snapshot_id = 9007199254740993LL,
    .statistics_path = "s3://b/t/metadata/partition-stats-1.parquet",
    .file_size_in_bytes = 4321,
};
static fl_ice_kv KEY_PROPS[] = {{"kms", "local"}};
static const fl_ice_encryption_key KEY = {
    .key_id = "k1",
    .encrypted_key_metadata = "AAECAw==",
    .encrypted_by_id = "master",
    .has_properties = true,
    .properties = {1, KEY_PROPS},
};

static uint32_t all_updates(fl_ice_update *u, const fl_ice_schema *schema)
{
    uint32_t n = 0;
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_ASSIGN_UUID,
                             .uuid = "9c12d441-03fe-4693-9a96-a0705ddf69c1"};
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_UPGRADE_FORMAT_VERSION, .format_version = 3};
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_ADD_SCHEMA, .schema = schema, .last_column_id = 4};
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_SET_CURRENT_SCHEMA, .id = -1};
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_ADD_SPEC, .spec = &SPEC};
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_SET_DEFAULT_SPEC, .id = 2};
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_ADD_SORT_ORDER, .order = &ORDER};
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_SET_DEFAULT_SORT_ORDER, .id = -1};
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_ADD_SNAPSHOT, .snapshot = &SNAP};
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_SET_SNAPSHOT_REF, .ref = &REF};
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_SET_SNAPSHOT_REF, .ref = &TAG};
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_REMOVE_SNAPSHOTS, .ids = SNAP_IDS, .nids = 2};
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_REMOVE_SNAPSHOT_REF, .ref_name = "audit"};
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_SET_LOCATION, .location = "s3://b/new"};
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_SET_PROPERTIES, .properties = {2, PROPS}};
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_REMOVE_PROPERTIES, .removals = REMOVALS,
                             .nremovals = 2};
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_SET_STATISTICS, .statistics = &STATS};
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_REMOVE_STATISTICS,
                             .snapshot_id = 9007199254740993LL};
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_REMOVE_PARTITION_SPECS, .ids = SMALL_IDS, .nids = 2};
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_REMOVE_SCHEMAS, .ids = SMALL_IDS, .nids = 2};
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_SET_PARTITION_STATISTICS,
                             .partition_statistics = &PSTATS};
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_REMOVE_PARTITION_STATISTICS,
                             .snapshot_id = 9007199254740993LL};
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_ADD_ENCRYPTION_KEY, .encryption_key = &KEY};
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_REMOVE_ENCRYPTION_KEY, .key_id = "k1"};
    return n;
}

static const fl_ice_requirement REQS[] = {
    {.kind = FL_ICE_REQ_ASSERT_CREATE},
    {.kind = FL_ICE_REQ_ASSERT_TABLE_UUID, .uuid = "9c12d441-03fe-4693-9a96-a0705ddf69c1"},
    {.kind = FL_ICE_REQ_ASSERT_REF_SNAPSHOT_ID, .ref = "main", .has_snapshot_id = true,
     .snapshot_id = 9007199254740993LL},
    {.kind = FL_ICE_REQ_ASSERT_REF_SNAPSHOT_ID, .ref = "new-branch", .has_snapshot_id = false},
    {.kind = FL_ICE_REQ_ASSERT_LAST_ASSIGNED_FIELD_ID, .id = 4},
    {.kind = FL_ICE_REQ_ASSERT_CURRENT_SCHEMA_ID, .id = 1},
    {.kind = FL_ICE_REQ_ASSERT_LAST_ASSIGNED_PARTITION_ID, .id = 1001},
    {.kind = FL_ICE_REQ_ASSERT_DEFAULT_SPEC_ID, .id = 0},
    {.kind = FL_ICE_REQ_ASSERT_DEFAULT_SORT_ORDER_ID, .id = 1},
};
#define NREQS (sizeof REQS / sizeof REQS[0])

static char *sorted_text(json_t *j)
{
    return json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
}

static void test_updates_round_trip(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_ice_schema schema;
    CHECK_OK(fl_ice_schema_parse_json(SCHEMA_JSON, strlen(SCHEMA_JSON), &a, &schema, &err), &err);
    fl_ice_update u[32];
    uint32_t n = all_updates(u, &schema);
    CHECK_EQ_INT(n, 24); /* 23 kinds, set-snapshot-ref twice (branch, tag) */
    bool kinds[FL_ICE_UPD_REMOVE_ENCRYPTION_KEY + 1] = {0};
    for (uint32_t i = 0; i < n; i++) {
        kinds[u[i].kind] = true;
        json_t *j = NULL;
        CHECK_OK(fl_rest_update_to_json(&u[i], &j, &err), &err);
        if (!j)
            continue;
        CHECK_EQ_STR(json_string_value(json_object_get(j, "action")),
                     fl_rest_update_action(u[i].kind));
        char *t1 = sorted_text(j);
        fl_ice_update back;
        CHECK_OK(fl_rest_update_from_json(j, "updates[0]", &a, &back, &err), &err);
        CHECK_EQ_INT(back.kind, u[i].kind);
        json_t *j2 = NULL;
        CHECK_OK(fl_rest_update_to_json(&back, &j2, &err), &err);
        char *t2 = j2 ? sorted_text(j2) : NULL;
        CHECK(t1 && t2);
        if (t1 && t2 && strcmp(t1, t2) != 0) {
            fprintf(stderr, "round trip differs:\n  %s\n  %s\n", t1, t2);
            CHECK(false);
        }
        free(t1);
        free(t2);
        json_decref(j);
        json_decref(j2);
    }
    for (int k = FL_ICE_UPD_ASSIGN_UUID; k <= FL_ICE_UPD_REMOVE_ENCRYPTION_KEY; k++)
        CHECK(kinds[k]);
    fl_arena_free(&a);
}

/* Exact JSON text of one update / requirement. */
static void expect_update(const fl_ice_update *u, const char *want)
{
    fl_error err;
    json_t *j = NULL;
    CHECK_OK(fl_rest_update_to_json(u, &j, &err), &err);
    char *t = j ? sorted_text(j) : NULL;
    CHECK_EQ_STR(t, want);
    free(t);
    json_decref(j);
}

static void expect_req(const fl_ice_requirement *r, const char *want)
{
    fl_error err;
    json_t *j = NULL;
    CHECK_OK(fl_rest_requirement_to_json(r, &j, &err), &err);
    char *t = j ? sorted_text(j) : NULL;
    CHECK_EQ_STR(t, want);
    free(t);
    json_decref(j);
}

static void test_exact_shapes(void)
{
    expect_update(&(fl_ice_update){.kind = FL_ICE_UPD_SET_CURRENT_SCHEMA, .id = -1},
                  "{\"action\":\"set-current-schema\",\"schema-id\":-1}");
    expect_update(&(fl_ice_update){.kind = FL_ICE_UPD_ADD_SNAPSHOT, .snapshot = &SNAP},
                  "{\"action\":\"add-snapshot\",\"snapshot\":{\"added-rows\":3,\"first-row-id\":100,"
                  "\"manifest-list\":\"s3://b/t/metadata/snap-1.avro\",\"parent-snapshot-id\":"
                  "4611686018427387904,\"schema-id\":1,\"sequence-number\":7,\"snapshot-id\":"
                  "9007199254740993,\"summary\":{\"added-data-files\":\"1\",\"added-records\":\"3\","
                  "\"operation\":\"append\"},\"timestamp-ms\":1700000000123}}");
    expect_update(&(fl_ice_update){.kind = FL_ICE_UPD_SET_SNAPSHOT_REF, .ref = &TAG},
                  "{\"action\":\"set-snapshot-ref\",\"ref-name\":\"v1\",\"snapshot-id\":5,"
                  "\"type\":\"tag\"}");
    expect_update(&(fl_ice_update){.kind = FL_ICE_UPD_ADD_SPEC, .spec = &SPEC},
                  "{\"action\":\"add-spec\",\"spec\":{\"fields\":[{\"field-id\":1000,\"name\":"
                  "\"id_bucket\",\"source-id\":1,\"transform\":\"bucket[16]\"},{\"name\":\"p\","
                  "\"source-id\":4,\"transform\":\"identity\"}]}}");
    expect_update(&(fl_ice_update){.kind = FL_ICE_UPD_ADD_SORT_ORDER, .order = &ORDER},
                  "{\"action\":\"add-sort-order\",\"sort-order\":{\"fields\":[{\"direction\":"
                  "\"desc\",\"null-order\":\"nulls-last\",\"source-id\":1,\"transform\":"
                  "\"identity\"},{\"direction\":\"asc\",\"null-order\":\"nulls-first\","
                  "\"source-id\":4,\"transform\":\"truncate[4]\"}],\"order-id\":1}}");
    expect_update(&(fl_ice_update){.kind = FL_ICE_UPD_REMOVE_PROPERTIES, .removals = REMOVALS,
                                   .nremovals = 2},
                  "{\"action\":\"remove-properties\",\"removals\":[\"a\",\"b.c\"]}");
    expect_req(&REQS[0], "{\"type\":\"assert-create\"}");
    expect_req(&REQS[2], "{\"ref\":\"main\",\"snapshot-id\":9007199254740993,\"type\":"
                         "\"assert-ref-snapshot-id\"}");
    expect_req(&REQS[3],
               "{\"ref\":\"new-branch\",\"snapshot-id\":null,\"type\":\"assert-ref-snapshot-id\"}");
    expect_req(&REQS[6], "{\"last-assigned-partition-id\":1001,\"type\":"
                         "\"assert-last-assigned-partition-id\"}");
    expect_req(&REQS[8],
               "{\"default-sort-order-id\":1,\"type\":\"assert-default-sort-order-id\"}");
}

static void test_requirements_round_trip(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    for (size_t i = 0; i < NREQS; i++) {
        json_t *j = NULL;
        CHECK_OK(fl_rest_requirement_to_json(&REQS[i], &j, &err), &err);
        fl_ice_requirement back;
        CHECK_OK(fl_rest_requirement_from_json(j, "requirements[0]", &a, &back, &err), &err);
        CHECK_EQ_INT(back.kind, REQS[i].kind);
        CHECK_EQ_INT(back.has_snapshot_id, REQS[i].has_snapshot_id);
        CHECK(back.snapshot_id == REQS[i].snapshot_id);
        CHECK_EQ_INT(back.id, REQS[i].id);
        CHECK_EQ_STR(back.uuid ? back.uuid : "", REQS[i].uuid ? REQS[i].uuid : "");
        CHECK_EQ_STR(back.ref ? back.ref : "", REQS[i].ref ? REQS[i].ref : "");
        json_decref(j);
    }
    fl_arena_free(&a);
}

static fl_status parse_update_text(const char *text, fl_arena *a, fl_error *err)
{
    json_t *j = json_loads(text, 0, NULL);
    if (!j)
        return FL_ESYNTAX;
    fl_ice_update u;
    fl_status rc = fl_rest_update_from_json(j, "updates[3]", a, &u, err);
    json_decref(j);
    return rc;
}

static void test_bad_updates(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    /* view updates are not table updates */
    static const char *const unsupported[] = {"add-view-version", "set-current-view-version"};
    for (size_t i = 0; i < 2; i++) {
        char buf[128];
        snprintf(buf, sizeof buf, "{\"action\":\"%s\",\"snapshot-id\":1}", unsupported[i]);
        CHECK_EQ_INT(parse_update_text(buf, &a, &err), FL_EUNSUPPORTED);
        CHECK(strstr(err.msg, unsupported[i]) != NULL);
    }
    CHECK_OK(parse_update_text("{\"action\":\"remove-partition-statistics\",\"snapshot-id\":1}",
                               &a, &err),
             &err);
    CHECK(parse_update_text("{\"action\":\"set-partition-statistics\",\"snapshot-id\":1}", &a,
                            &err) != FL_OK);
    CHECK(strstr(err.msg, "partition-statistics") != NULL);
    CHECK(parse_update_text("{\"action\":\"add-encryption-key\",\"encryption-key\":{\"key-id\":\"k\"}}",
                            &a, &err) != FL_OK);
    CHECK(strstr(err.msg, "encrypted-key-metadata") != NULL);
    CHECK_EQ_INT(parse_update_text("{\"action\":\"frobnicate\"}", &a, &err), FL_EINVAL);
    CHECK(strstr(err.msg, "updates[3].action") != NULL);
    CHECK_EQ_INT(parse_update_text("{\"schema-id\":1}", &a, &err), FL_EINVAL);
    CHECK(strstr(err.msg, "action") != NULL);
    CHECK_EQ_INT(parse_update_text("{\"action\":\"add-snapshot\",\"snapshot\":{\"snapshot-id\":"
                                   "\"1\",\"timestamp-ms\":1,\"manifest-list\":\"x\",\"summary\":"
                                   "{\"operation\":\"append\"}}}",
                                   &a, &err),
                 FL_EINVAL);
    CHECK(strstr(err.msg, "updates[3].snapshot.snapshot-id") != NULL);
    CHECK_EQ_INT(parse_update_text("{\"action\":\"add-snapshot\",\"snapshot\":{\"snapshot-id\":1,"
                                   "\"timestamp-ms\":1,\"manifest-list\":\"x\",\"summary\":{}}}",
                                   &a, &err),
                 FL_EINVAL);
    CHECK(strstr(err.msg, "operation") != NULL);
    CHECK_EQ_INT(parse_update_text("{\"action\":\"add-sort-order\",\"sort-order\":{\"order-id\":1,"
                                   "\"fields\":[{\"transform\":\"identity\",\"source-id\":1,"
                                   "\"direction\":\"up\",\"null-order\":\"nulls-last\"}]}}",
                                   &a, &err),
                 FL_EINVAL);
    CHECK(strstr(err.msg, "sort-order.fields[0].direction") != NULL);
    CHECK_EQ_INT(parse_update_text("{\"action\":\"remove-schemas\",\"schema-ids\":[1,"
                                   "99999999999]}",
                                   &a, &err),
                 FL_EINVAL);
    CHECK_EQ_INT(parse_update_text("{\"action\":\"set-snapshot-ref\",\"ref-name\":\"x\","
                                   "\"snapshot-id\":1,\"type\":\"leaf\"}",
                                   &a, &err),
                 FL_EINVAL);
    CHECK_EQ_INT(parse_update_text("[1]", &a, &err), FL_EINVAL);
    /* deprecated aliases Java still reads */
    CHECK_OK(parse_update_text("{\"action\":\"set-properties\",\"updated\":{\"k\":\"v\"}}", &a, &err),
             &err);
    CHECK_OK(parse_update_text("{\"action\":\"remove-properties\",\"removed\":[\"k\"]}", &a, &err),
             &err);
    /* requirements */
    json_t *j = json_loads("{\"type\":\"assert-ref-snapshot-id\",\"ref\":\"main\"}", strlen("{\"type\":\"assert-ref-snapshot-id\",\"ref\":\"main\"}"), NULL);
    fl_ice_requirement r;
    CHECK_EQ_INT(fl_rest_requirement_from_json(j, "requirements[1]", &a, &r, &err), FL_EINVAL);
    CHECK(strstr(err.msg, "requirements[1].snapshot-id") != NULL);
    json_decref(j);
    j = json_loads("{\"type\":\"assert-nothing\"}", strlen("{\"type\":\"assert-nothing\"}"), NULL);
    CHECK_EQ_INT(fl_rest_requirement_from_json(j, "requirements[0]", &a, &r, &err), FL_EINVAL);
    json_decref(j);
    fl_arena_free(&a);
}

static char *commit_all(fl_arena *a, const fl_table_ident *id)
{
    fl_error err;
    fl_ice_schema *schema = fl_arena_alloc(a, sizeof *schema);
    if (fl_ice_schema_parse_json(SCHEMA_JSON, strlen(SCHEMA_JSON), a, schema, &err) != FL_OK)
        return NULL;
    fl_ice_update u[32];
    uint32_t n = all_updates(u, schema);
    char *out = NULL;
    if (fl_rest_commit_request_json(id, REQS, NREQS, u, n, &out, &err) != FL_OK)
        fprintf(stderr, "commit request: %s\n", err.msg);
    return out;
}

static void test_commit_request(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    const char *levels[] = {"db", "x\x1fy"};
    fl_table_ident id = {{2, levels}, "t"};
    char *text = commit_all(&a, &id);
    CHECK(text != NULL);
    if (!text) {
        fl_arena_free(&a);
        return;
    }
    CHECK(strstr(text, "9007199254740993") != NULL); /* int64 exact */
    fl_rest_commit_request req;
    CHECK_OK(fl_rest_commit_request_parse(text, strlen(text), &a, &req, &err), &err);
    CHECK(req.has_identifier);
    CHECK_EQ_INT(req.identifier.ns.nlevels, 2);
    CHECK_EQ_STR(req.identifier.ns.levels[1], "x\x1fy");
    CHECK_EQ_STR(req.identifier.name, "t");
    CHECK_EQ_INT(req.nrequirements, NREQS);
    CHECK_EQ_INT(req.nupdates, 24);
    char *again = NULL;
    CHECK_OK(fl_rest_commit_request_json(&req.identifier, req.requirements, req.nrequirements,
                                         req.updates, req.nupdates, &again, &err),
             &err);
    CHECK_EQ_STR(again, text);
    free(again);
    free(text);
    /* malformed bodies name where */
    CHECK_EQ_INT(fl_rest_commit_request_parse("{\"requirements\":[],\"updates\":[{\"action\":7}]}", strlen("{\"requirements\":[],\"updates\":[{\"action\":7}]}"), &a, &req, &err),
                 FL_EINVAL);
    CHECK(strstr(err.msg, "updates[0].action") != NULL);
    CHECK_EQ_INT(fl_rest_commit_request_parse("{\"updates\":[]}", strlen("{\"updates\":[]}"), &a, &req, &err), FL_EINVAL);
    CHECK_EQ_INT(fl_rest_commit_request_parse("{\"updates\":[", strlen("{\"updates\":["), &a, &req, &err), FL_ESYNTAX);
    CHECK(strstr(err.msg, "column") != NULL);
    fl_arena_free(&a);
}

static const char META[] =
    "{\"format-version\":2,\"table-uuid\":\"9c12d441-03fe-4693-9a96-a0705ddf69c1\",\"location\":"
    "\"s3://b/t\",\"last-sequence-number\":1,\"last-updated-ms\":1700000000000,\"last-column-id\":1,"
    "\"current-schema-id\":0,\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,\"fields\":[{\"id\":"
    "1,\"name\":\"id\",\"required\":false,\"type\":\"long\"}]}],\"default-spec-id\":0,"
    "\"partition-specs\":[{\"spec-id\":0,\"fields\":[]}],\"last-partition-id\":999,"
    "\"default-sort-order-id\":0,\"sort-orders\":[{\"order-id\":0,\"fields\":[]}],\"properties\":{},"
    "\"current-snapshot-id\":9007199254740993,\"refs\":{\"main\":{\"snapshot-id\":9007199254740993,"
    "\"type\":\"branch\"}},\"snapshots\":[{\"snapshot-id\":9007199254740993,\"sequence-number\":1,"
    "\"timestamp-ms\":1700000000000,\"manifest-list\":\"s3://b/t/m.avro\",\"summary\":"
    "{\"operation\":\"append\"}}],\"snapshot-log\":[],\"metadata-log\":[]}";

static void test_responses(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    char buf[4096];
    snprintf(buf, sizeof buf,
             "{\"metadata-location\":\"s3://b/t/metadata/00001-x.metadata.json\",\"metadata\":%s,"
             "\"config\":{\"s3.endpoint\":\"http://h\"}}",
             META);
    fl_rest_load_result lr;
    CHECK_OK(fl_rest_load_result_parse(buf, strlen(buf), &a, &lr, &err), &err);
    CHECK_EQ_STR(lr.metadata_location, "s3://b/t/metadata/00001-x.metadata.json");
    CHECK(lr.metadata.current_snapshot_id == 9007199254740993LL);
    CHECK_EQ_INT(lr.metadata.nsnapshots, 1);
    CHECK_EQ_STR(fl_ice_map_get(&lr.config, "s3.endpoint"), "http://h");
    snprintf(buf, sizeof buf, "{\"metadata-location\":null,\"metadata\":%s}", META);
    CHECK_OK(fl_rest_load_result_parse(buf, strlen(buf), &a, &lr, &err), &err);
    CHECK(lr.metadata_location == NULL);
    CHECK_EQ_INT(fl_rest_load_result_parse("{\"metadata-location\":\"x\"}", strlen("{\"metadata-location\":\"x\"}"), &a, &lr, &err),
                 FL_ECORRUPT);
    CHECK(strstr(err.msg, "metadata") != NULL);
    CHECK_EQ_INT(fl_rest_load_result_parse("{\"metadata\":{\"format-version\":2}}", strlen("{\"metadata\":{\"format-version\":2}}"), &a, &lr,
                                           &err),
                 FL_ECORRUPT);
    CHECK(strstr(err.msg, "LoadTableResult.metadata") != NULL);

    fl_rest_config cfg;
    const char *c1 = "{\"defaults\":{\"rest-page-size\":\"2\"},\"overrides\":{\"prefix\":\"wh\"},"
                     "\"endpoints\":[\"GET /v1/{prefix}/namespaces\"],"
                     "\"idempotency-key-lifetime\":\"PT30M\"}";
    CHECK_OK(fl_rest_config_parse(c1, strlen(c1), &a, &cfg, &err), &err);
    CHECK_EQ_STR(fl_ice_map_get(&cfg.overrides, "prefix"), "wh");
    CHECK_EQ_INT(cfg.nendpoints, 1);
    CHECK(cfg.has_endpoints);
    CHECK_EQ_STR(cfg.idempotency_key_lifetime, "PT30M");
    CHECK_EQ_INT(fl_rest_config_parse("{\"defaults\":{\"a\":1}}", strlen("{\"defaults\":{\"a\":1}}"), &a, &cfg, &err), FL_ECORRUPT);
    CHECK(strstr(err.msg, "defaults.a") != NULL);
    CHECK_EQ_INT(fl_rest_config_parse("{\"defaults\":{},\"overrides\":{},\"endpoints\":[\"GET\"]}", strlen("{\"defaults\":{},\"overrides\":{},\"endpoints\":[\"GET\"]}"), &a, &cfg, &err),
                 FL_ECORRUPT);

    fl_namespace *ns;
    uint32_t n;
    const char *next;
    const char *l1 = "{\"namespaces\":[[\"a\"],[\"a\",\"b\"]],\"next-page-token\":\"t2\"}";
    CHECK_OK(fl_rest_namespaces_parse(l1, strlen(l1), &a, &ns, &n, &next, &err), &err);
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_INT(ns[1].nlevels, 2);
    CHECK_EQ_STR(ns[1].levels[1], "b");
    CHECK_EQ_STR(next, "t2");
    const char *l2 = "{\"namespaces\":[]}";
    CHECK_OK(fl_rest_namespaces_parse(l2, strlen(l2), &a, &ns, &n, &next, &err), &err);
    CHECK(next == NULL && n == 0);
    CHECK_EQ_INT(fl_rest_namespaces_parse("{\"namespaces\":[[1]]}", strlen("{\"namespaces\":[[1]]}"), &a, &ns, &n, &next, &err),
                 FL_ECORRUPT);
    CHECK(strstr(err.msg, "namespaces[0][0]") != NULL);
    const char **names;
    const char *t1 = "{\"identifiers\":[{\"namespace\":[\"a\"],\"name\":\"t\"}],"
                     "\"next-page-token\":null}";
    CHECK_OK(fl_rest_tables_parse(t1, strlen(t1), &a, &names, &n, &next, &err), &err);
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_STR(names[0], "t");
    CHECK(next == NULL);
    CHECK_EQ_INT(fl_rest_tables_parse("{\"identifiers\":[{}]}", strlen("{\"identifiers\":[{}]}"), &a, &names, &n, &next, &err),
                 FL_ECORRUPT);

    const char *type, *msg;
    const char *e1 = "{\"error\":{\"message\":\"Table does not exist\",\"type\":"
                     "\"NoSuchTableException\",\"code\":404}}";
    CHECK(fl_rest_error_parse(e1, strlen(e1), &a, &type, &msg));
    CHECK_EQ_STR(type, "NoSuchTableException");
    CHECK_EQ_STR(msg, "Table does not exist");
    const char *e2 = "{\"error\":\"invalid_client\",\"error_description\":\"bad secret\"}";
    CHECK(fl_rest_error_parse(e2, strlen(e2), &a, &type, &msg));
    CHECK_EQ_STR(type, "invalid_client");
    CHECK(!fl_rest_error_parse("<html>", strlen("<html>"), &a, &type, &msg));

    fl_rest_token tok;
    const char *k1 = "{\"access_token\":\"abc\",\"token_type\":\"Bearer\",\"expires_in\":3600}";
    CHECK_OK(fl_rest_token_parse(k1, strlen(k1), &a, &tok, &err), &err);
    CHECK_EQ_STR(tok.access_token, "abc");
    CHECK(tok.expires_in == 3600);
    CHECK_EQ_INT(fl_rest_token_parse("{\"access_token\":\"abc\",\"token_type\":\"mac\"}", strlen("{\"access_token\":\"abc\",\"token_type\":\"mac\"}"), &a,
                                     &tok, &err),
                 FL_EUNSUPPORTED);
    CHECK_EQ_INT(fl_rest_token_parse("{\"token_type\":\"bearer\"}", strlen("{\"token_type\":\"bearer\"}"), &a, &tok, &err), FL_ECORRUPT);
    CHECK_EQ_INT(fl_rest_token_parse("{\"access_token\":\"a\\nb\",\"token_type\":\"bearer\"}", strlen("{\"access_token\":\"a\\nb\",\"token_type\":\"bearer\"}"),
                                     &a, &tok, &err),
                 FL_ECORRUPT);
    fl_arena_free(&a);
}

static void test_create_request(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_ice_metadata m;
    CHECK_OK(fl_ice_metadata_parse((const uint8_t *)META, strlen(META), NULL, &a, &m, &err), &err);
    char *out = NULL;
    CHECK_OK(fl_rest_create_request_json("t", &m, NULL, true, &out, &err), &err);
    json_t *j = out ? json_loads(out, 0, NULL) : NULL;
    CHECK(j != NULL);
    CHECK_EQ_STR(json_string_value(json_object_get(j, "name")), "t");
    CHECK(json_object_get(j, "location") == NULL);
    CHECK(json_is_true(json_object_get(j, "stage-create")));
    CHECK_EQ_STR(json_string_value(json_object_get(json_object_get(j, "properties"), "format-version")),
                 "2");
    CHECK(json_is_object(json_object_get(j, "schema")));
    CHECK(json_is_object(json_object_get(j, "partition-spec")));
    CHECK(json_is_object(json_object_get(j, "write-order")));
    json_decref(j);
    free(out);
    fl_arena_free(&a);
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--dump")) {
        fl_arena a;
        fl_arena_init(&a, 0);
        const char *levels[] = {"db"};
        fl_table_ident id = {{1, levels}, "t"};
        char *text = commit_all(&a, &id);
        FILE *f = text ? fopen(argv[2], "w") : NULL;
        int rc = f && fputs(text, f) >= 0 ? 0 : 1;
        if (f)
            fclose(f);
        free(text);
        fl_arena_free(&a);
        return rc;
    }
    TEST_RUN(test_updates_round_trip);
    TEST_RUN(test_exact_shapes);
    TEST_RUN(test_requirements_round_trip);
    TEST_RUN(test_bad_updates);
    TEST_RUN(test_commit_request);
    TEST_RUN(test_responses);
    TEST_RUN(test_create_request);
    return TEST_EXIT();
}
