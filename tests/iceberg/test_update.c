/*
 * test_update.c - fl_ice_metadata_apply() and fl_ice_requirements_check():
 * the Java TableMetadata.Builder semantics (id reuse, -1 = last added,
 * snapshot/metadata logs, sequence numbers, v1->v2->v3 upgrades, removals)
 * and every requirement kind.
 */
#include <string.h>

#include "floe/ice_table.h"
#include "test.h"

static const char *BASE_V2 =
    "{\"format-version\":2,\"table-uuid\":\"9c12d441-03fe-4693-9a96-a0705ddf69c1\","
    "\"location\":\"/tmp/t\",\"last-sequence-number\":1,\"last-updated-ms\":1000,"
    "\"last-column-id\":2,\"current-schema-id\":0,"
    "\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"s\",\"required\":false,\"type\":\"string\"}]}],"
    "\"default-spec-id\":0,\"partition-specs\":[{\"spec-id\":0,\"fields\":[]}],"
    "\"last-partition-id\":999,\"default-sort-order-id\":0,"
    "\"sort-orders\":[{\"order-id\":0,\"fields\":[]}],\"properties\":{\"a\":\"1\"},"
    "\"current-snapshot-id\":10,\"refs\":{\"main\":{\"snapshot-id\":10,\"type\":\"branch\"}},"
    "\"snapshots\":[{\"snapshot-id\":10,\"sequence-number\":1,\"timestamp-ms\":1000,"
    "\"manifest-list\":\"/tmp/t/metadata/snap-10.avro\",\"summary\":{\"operation\":\"append\"},"
    "\"schema-id\":0}],"
    "\"snapshot-log\":[{\"timestamp-ms\":1000,\"snapshot-id\":10}],\"metadata-log\":[]}";

static void parse(const char *json, fl_arena *a, fl_ice_metadata *m)
{
    fl_error err = {0};
    CHECK_OK(fl_ice_metadata_parse((const uint8_t *)json, strlen(json), "base", a, m, &err), &err);
}

/* Writes m and parses it back: the result must be valid metadata. */
static void roundtrip(const fl_ice_metadata *m, fl_arena *a)
{
    fl_error err = {0};
    char *json = NULL;
    size_t len = 0;
    CHECK_OK(fl_ice_metadata_write(m, 0, &json, &len, &err), &err);
    fl_ice_metadata back;
    CHECK_OK(fl_ice_metadata_parse((const uint8_t *)json, len, "out", a, &back, &err), &err);
    CHECK(fl_ice_metadata_equal(m, &back));
    free(json);
}

static fl_ice_snapshot snap(int64_t id, int64_t parent, int64_t seq, int64_t ts)
{
    fl_ice_snapshot s = {.snapshot_id = id,
                         .has_parent = parent >= 0,
                         .parent_snapshot_id = parent,
                         .sequence_number = seq,
                         .timestamp_ms = ts,
                         .manifest_list = "/tmp/t/metadata/snap.avro",
                         .operation = "append",
                         .has_summary = true};
    return s;
}

static void test_new_table(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err = {0};
    fl_ice_metadata tmpl;
    parse(BASE_V2, &a, &tmpl);
    fl_ice_partition_field pf = {.name = "id_bucket",
                                 .transform = "bucket[4]",
                                 .source_id = 1,
                                 .nsource_ids = 1,
                                 .source_ids = (int32_t[]){1},
                                 .field_id = -1};
    fl_ice_partition_spec spec = {.spec_id = -1, .nfields = 1, .fields = &pf};
    fl_ice_sort_field sf = {
        .transform = "identity", .source_id = 2, .nsource_ids = 1, .source_ids = (int32_t[]){2}};
    fl_ice_sort_order order = {.order_id = -1, .nfields = 1, .fields = &sf};
    fl_ice_kv kv[] = {{"owner", "me"}};
    fl_ice_update u[] = {
        {.kind = FL_ICE_UPD_ASSIGN_UUID, .uuid = "11111111-2222-4333-8444-555555555555"},
        {.kind = FL_ICE_UPD_UPGRADE_FORMAT_VERSION, .format_version = 2},
        {.kind = FL_ICE_UPD_ADD_SCHEMA, .schema = &tmpl.schemas[0]},
        {.kind = FL_ICE_UPD_SET_CURRENT_SCHEMA, .id = -1},
        {.kind = FL_ICE_UPD_ADD_SPEC, .spec = &spec},
        {.kind = FL_ICE_UPD_SET_DEFAULT_SPEC, .id = -1},
        {.kind = FL_ICE_UPD_ADD_SORT_ORDER, .order = &order},
        {.kind = FL_ICE_UPD_SET_DEFAULT_SORT_ORDER, .id = -1},
        {.kind = FL_ICE_UPD_SET_LOCATION, .location = "/w/db/t"},
        {.kind = FL_ICE_UPD_SET_PROPERTIES, .properties = {1, kv}},
    };
    fl_ice_metadata m;
    CHECK_OK(fl_ice_metadata_apply(NULL, NULL, u, 10, 5000, &a, &m, &err), &err);
    CHECK_EQ_INT(m.format_version, 2);
    CHECK_EQ_STR(m.table_uuid, "11111111-2222-4333-8444-555555555555");
    CHECK_EQ_STR(m.location, "/w/db/t");
    CHECK_EQ_INT(m.nschemas, 1);
    CHECK_EQ_INT(m.current_schema_id, 0);
    CHECK_EQ_INT(m.last_column_id, 2);
    CHECK_EQ_INT(m.nspecs, 1);
    CHECK_EQ_INT(m.default_spec_id, 0);
    CHECK_EQ_INT(m.specs[0].fields[0].field_id, 1000);
    CHECK_EQ_INT(m.last_partition_id, 1000);
    CHECK_EQ_INT(m.nsort_orders, 1);
    CHECK_EQ_INT(m.default_sort_order_id, 1);
    CHECK_EQ_INT(m.current_snapshot_id, FL_ICE_NO_SNAPSHOT);
    CHECK_EQ_INT(m.last_updated_ms, 5000);
    CHECK_EQ_STR(fl_ice_map_get(&m.properties, "owner"), "me");
    CHECK_EQ_INT(m.nmetadata_log, 0);
    roundtrip(&m, &a);

    /* missing location / schema are rejected; v3 starts next-row-id */
    CHECK(fl_ice_metadata_apply(NULL, NULL, u + 1, 3, 5000, &a, &m, &err) == FL_EINVAL);
    CHECK(strstr(err.msg, "location") != NULL);
    fl_ice_update v3[] = {{.kind = FL_ICE_UPD_UPGRADE_FORMAT_VERSION, .format_version = 3},
                          {.kind = FL_ICE_UPD_ADD_SCHEMA, .schema = &tmpl.schemas[0]},
                          {.kind = FL_ICE_UPD_SET_LOCATION, .location = "/w/x"}};
    CHECK_OK(fl_ice_metadata_apply(NULL, NULL, v3, 3, 7, &a, &m, &err), &err);
    CHECK_EQ_INT(m.format_version, 3);
    CHECK(m.has_next_row_id && m.next_row_id == 0);
    CHECK(m.table_uuid != NULL && strlen(m.table_uuid) == 36);
    CHECK_EQ_INT(m.nspecs, 1);
    CHECK_EQ_INT(m.nsort_orders, 1);
    roundtrip(&m, &a);
    fl_arena_free(&a);
}

static void test_schema_reuse(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err = {0};
    fl_ice_metadata base, m;
    parse(BASE_V2, &a, &base);
    /* identical schema: reuses id 0, nothing added */
    fl_ice_update u[] = {{.kind = FL_ICE_UPD_ADD_SCHEMA, .schema = &base.schemas[0]},
                         {.kind = FL_ICE_UPD_SET_CURRENT_SCHEMA, .id = -1}};
    CHECK_OK(fl_ice_metadata_apply(&base, NULL, u, 2, 2000, &a, &m, &err), &err);
    CHECK_EQ_INT(m.nschemas, 1);
    CHECK_EQ_INT(m.current_schema_id, 0);
    /* a new column: new id 1, last-column-id derived */
    fl_field fields[3];
    memcpy(fields, base.schemas[0].schema.fields, 2 * sizeof fields[0]);
    fields[2] =
        (fl_field){.name = "x", .field_id = 3, .nullable = true, .type = {.id = FL_TYPE_INT32}};
    fl_ice_schema s2 = {.schema_id = 77, .schema = {.nfields = 3, .fields = fields}};
    u[0].schema = &s2;
    CHECK_OK(fl_ice_metadata_apply(&base, NULL, u, 2, 2000, &a, &m, &err), &err);
    CHECK_EQ_INT(m.nschemas, 2);
    CHECK_EQ_INT(m.schemas[1].schema_id, 1);
    CHECK_EQ_INT(m.current_schema_id, 1);
    CHECK_EQ_INT(m.last_column_id, 3);
    CHECK_EQ_INT(base.nschemas, 1); /* base untouched */
    roundtrip(&m, &a);
    /* the request's last-column-id is deprecated: a lower one (Java sends the schema's
     * highest id after a drop) never lowers the table's; a higher one is kept */
    fl_ice_update low = {.kind = FL_ICE_UPD_ADD_SCHEMA, .schema = &s2, .last_column_id = 1};
    CHECK_OK(fl_ice_metadata_apply(&base, NULL, &low, 1, 2000, &a, &m, &err), &err);
    CHECK_EQ_INT(m.last_column_id, 3);
    fl_ice_update high = {.kind = FL_ICE_UPD_ADD_SCHEMA, .schema = &s2, .last_column_id = 9};
    CHECK_OK(fl_ice_metadata_apply(&base, NULL, &high, 1, 2000, &a, &m, &err), &err);
    CHECK_EQ_INT(m.last_column_id, 9);
    /* -1 without an added schema; unknown id */
    fl_ice_update cur = {.kind = FL_ICE_UPD_SET_CURRENT_SCHEMA, .id = -1};
    CHECK(fl_ice_metadata_apply(&base, NULL, &cur, 1, 2000, &a, &m, &err) == FL_EINVAL);
    cur.id = 9;
    CHECK(fl_ice_metadata_apply(&base, NULL, &cur, 1, 2000, &a, &m, &err) == FL_EINVAL);
    CHECK(strstr(err.msg, "unknown schema id 9") != NULL);
    /* remove-schemas: not the current one */
    int64_t ids[] = {0};
    fl_ice_update rm = {.kind = FL_ICE_UPD_REMOVE_SCHEMAS, .ids = ids, .nids = 1};
    CHECK(fl_ice_metadata_apply(&base, NULL, &rm, 1, 2000, &a, &m, &err) == FL_EINVAL);
    fl_arena_free(&a);
}

static void test_spec_and_order(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err = {0};
    fl_ice_metadata base, m, m2;
    parse(BASE_V2, &a, &base);
    fl_ice_partition_field pf = {.name = "s",
                                 .transform = "identity",
                                 .source_id = 2,
                                 .nsource_ids = 1,
                                 .source_ids = (int32_t[]){2},
                                 .field_id = 0};
    fl_ice_partition_spec spec = {.spec_id = -1, .nfields = 1, .fields = &pf};
    fl_ice_update u[] = {{.kind = FL_ICE_UPD_ADD_SPEC, .spec = &spec},
                         {.kind = FL_ICE_UPD_SET_DEFAULT_SPEC, .id = -1}};
    CHECK_OK(fl_ice_metadata_apply(&base, NULL, u, 2, 1, &a, &m, &err), &err);
    CHECK_EQ_INT(m.nspecs, 2);
    CHECK_EQ_INT(m.default_spec_id, 1);
    CHECK_EQ_INT(m.last_partition_id, 1000);
    CHECK_EQ_INT(m.specs[1].fields[0].field_id, 1000);
    /* the same spec again reuses id 1 */
    CHECK_OK(fl_ice_metadata_apply(&m, NULL, u, 2, 1, &a, &m2, &err), &err);
    CHECK_EQ_INT(m2.nspecs, 2);
    CHECK_EQ_INT(m2.default_spec_id, 1);
    /* the default spec cannot be removed; another can */
    int64_t ids[] = {1};
    fl_ice_update rm = {.kind = FL_ICE_UPD_REMOVE_PARTITION_SPECS, .ids = ids, .nids = 1};
    CHECK(fl_ice_metadata_apply(&m, NULL, &rm, 1, 1, &a, &m2, &err) == FL_EINVAL);
    ids[0] = 0;
    CHECK_OK(fl_ice_metadata_apply(&m, NULL, &rm, 1, 1, &a, &m2, &err), &err);
    CHECK_EQ_INT(m2.nspecs, 1);
    /* unsorted order is id 0 (exists); a new one is 1 */
    fl_ice_sort_order uns = {.order_id = 5};
    fl_ice_update o[] = {{.kind = FL_ICE_UPD_ADD_SORT_ORDER, .order = &uns},
                         {.kind = FL_ICE_UPD_SET_DEFAULT_SORT_ORDER, .id = -1}};
    CHECK_OK(fl_ice_metadata_apply(&base, NULL, o, 2, 1, &a, &m, &err), &err);
    CHECK_EQ_INT(m.nsort_orders, 1);
    CHECK_EQ_INT(m.default_sort_order_id, 0);
    fl_ice_sort_field sf = {.transform = "identity",
                            .source_id = 1,
                            .nsource_ids = 1,
                            .source_ids = (int32_t[]){1},
                            .descending = true};
    fl_ice_sort_order sorted = {.order_id = -1, .nfields = 1, .fields = &sf};
    o[0].order = &sorted;
    CHECK_OK(fl_ice_metadata_apply(&base, NULL, o, 2, 1, &a, &m, &err), &err);
    CHECK_EQ_INT(m.nsort_orders, 2);
    CHECK_EQ_INT(m.default_sort_order_id, 1);
    roundtrip(&m, &a);
    fl_arena_free(&a);
}

static void test_snapshots(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err = {0};
    fl_ice_metadata base, m;
    parse(BASE_V2, &a, &base);
    fl_ice_snapshot s = snap(11, 10, 2, 3000);
    fl_ice_ref main_ref = {.name = "main", .snapshot_id = 11};
    fl_ice_update u[] = {{.kind = FL_ICE_UPD_ADD_SNAPSHOT, .snapshot = &s},
                         {.kind = FL_ICE_UPD_SET_SNAPSHOT_REF, .ref = &main_ref}};
    CHECK_OK(fl_ice_metadata_apply(&base, "/tmp/t/metadata/v1.json", u, 2, 9999, &a, &m, &err),
             &err);
    CHECK_EQ_INT(m.current_snapshot_id, 11);
    CHECK_EQ_INT(m.last_sequence_number, 2);
    CHECK_EQ_INT(m.last_updated_ms, 3000);
    CHECK_EQ_INT(m.nsnapshots, 2);
    CHECK_EQ_INT(m.nsnapshot_log, 2);
    CHECK_EQ_INT(m.snapshot_log[1].snapshot_id, 11);
    CHECK_EQ_INT(m.snapshot_log[1].timestamp_ms, 3000);
    CHECK_EQ_INT(m.nmetadata_log, 1);
    CHECK_EQ_STR(m.metadata_log[0].metadata_file, "/tmp/t/metadata/v1.json");
    CHECK_EQ_INT(m.metadata_log[0].timestamp_ms, 1000);
    CHECK_EQ_INT(fl_ice_metadata_ref(&m, "main")->snapshot_id, 11);
    roundtrip(&m, &a);

    /* sequence number must grow; duplicate ids rejected; unknown ref target */
    s.sequence_number = 1;
    CHECK(fl_ice_metadata_apply(&base, NULL, u, 2, 1, &a, &m, &err) == FL_EINVAL);
    CHECK(strstr(err.msg, "sequence number") != NULL);
    fl_ice_snapshot dup = snap(10, 10, 5, 1);
    fl_ice_update d = {.kind = FL_ICE_UPD_ADD_SNAPSHOT, .snapshot = &dup};
    CHECK(fl_ice_metadata_apply(&base, NULL, &d, 1, 1, &a, &m, &err) == FL_EINVAL);
    CHECK(strstr(err.msg, "already exists") != NULL);
    fl_ice_ref bad = {.name = "b", .snapshot_id = 42};
    fl_ice_update r = {.kind = FL_ICE_UPD_SET_SNAPSHOT_REF, .ref = &bad};
    CHECK(fl_ice_metadata_apply(&base, NULL, &r, 1, 1, &a, &m, &err) == FL_EINVAL);
    CHECK(strstr(err.msg, "unknown snapshot 42") != NULL);

    /* two snapshots in one list: the first is intermediate, not in the log */
    fl_ice_snapshot s1 = snap(11, 10, 2, 3000), s2 = snap(12, 11, 3, 3001);
    fl_ice_ref r1 = {.name = "main", .snapshot_id = 11}, r2 = {.name = "main", .snapshot_id = 12};
    fl_ice_update two[] = {{.kind = FL_ICE_UPD_ADD_SNAPSHOT, .snapshot = &s1},
                           {.kind = FL_ICE_UPD_SET_SNAPSHOT_REF, .ref = &r1},
                           {.kind = FL_ICE_UPD_ADD_SNAPSHOT, .snapshot = &s2},
                           {.kind = FL_ICE_UPD_SET_SNAPSHOT_REF, .ref = &r2}};
    CHECK_OK(fl_ice_metadata_apply(&base, NULL, two, 4, 1, &a, &m, &err), &err);
    CHECK_EQ_INT(m.current_snapshot_id, 12);
    CHECK_EQ_INT(m.last_sequence_number, 3);
    CHECK_EQ_INT(m.nsnapshot_log, 2);
    CHECK_EQ_INT(m.snapshot_log[0].snapshot_id, 10);
    CHECK_EQ_INT(m.snapshot_log[1].snapshot_id, 12);

    /* a tag and a branch; removing snapshot 10 drops the tag and the log head */
    fl_ice_metadata m2, m3;
    fl_ice_ref tag = {.name = "t1", .snapshot_id = 10, .is_tag = true};
    fl_ice_update t = {.kind = FL_ICE_UPD_SET_SNAPSHOT_REF, .ref = &tag};
    CHECK_OK(fl_ice_metadata_apply(&m, NULL, &t, 1, 1, &a, &m2, &err), &err);
    CHECK_EQ_INT(m2.nrefs, 2);
    int64_t ids[] = {10};
    fl_ice_update rm = {.kind = FL_ICE_UPD_REMOVE_SNAPSHOTS, .ids = ids, .nids = 1};
    CHECK_OK(fl_ice_metadata_apply(&m2, NULL, &rm, 1, 1, &a, &m3, &err), &err);
    CHECK_EQ_INT(m3.nsnapshots, 2);
    CHECK_EQ_INT(m3.nrefs, 1);
    CHECK(fl_ice_metadata_ref(&m3, "t1") == NULL);
    CHECK_EQ_INT(m3.nsnapshot_log, 1);
    CHECK_EQ_INT(m3.snapshot_log[0].snapshot_id, 12);
    roundtrip(&m3, &a);
    /* removing main's ref leaves no current snapshot */
    fl_ice_update rr = {.kind = FL_ICE_UPD_REMOVE_SNAPSHOT_REF, .ref_name = "main"};
    CHECK_OK(fl_ice_metadata_apply(&m3, NULL, &rr, 1, 1, &a, &m2, &err), &err);
    CHECK_EQ_INT(m2.current_snapshot_id, FL_ICE_NO_SNAPSHOT);
    CHECK_EQ_INT(m2.nrefs, 0);
    fl_arena_free(&a);
}

static void test_metadata_log_trim(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err = {0};
    fl_ice_metadata m;
    parse(BASE_V2, &a, &m);
    fl_ice_kv kv[] = {{"write.metadata.previous-versions-max", "3"}};
    fl_ice_update u = {.kind = FL_ICE_UPD_SET_PROPERTIES, .properties = {1, kv}};
    for (int i = 0; i < 6; i++) {
        fl_ice_metadata next;
        const char *loc = fl_arena_sprintf(&a, "/tmp/t/metadata/v%d.json", i);
        CHECK_OK(fl_ice_metadata_apply(&m, loc, &u, 1, 2000 + i, &a, &next, &err), &err);
        m = next;
    }
    CHECK_EQ_INT(m.nmetadata_log, 3);
    CHECK_EQ_STR(m.metadata_log[0].metadata_file, "/tmp/t/metadata/v3.json");
    CHECK_EQ_STR(m.metadata_log[2].metadata_file, "/tmp/t/metadata/v5.json");
    CHECK_EQ_INT(m.metadata_log[2].timestamp_ms, 2004);
    CHECK_EQ_INT(m.last_updated_ms, 2005);
    roundtrip(&m, &a);
    fl_arena_free(&a);
}

static void test_properties_location_stats(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err = {0};
    fl_ice_metadata base, m;
    parse(BASE_V2, &a, &base);
    fl_ice_kv kv[] = {{"a", "2"}, {"b", "3"}};
    const char *rmk[] = {"a"};
    fl_ice_statistics_file st = {.snapshot_id = 10,
                                 .statistics_path = "/tmp/t/stats.puffin",
                                 .file_size_in_bytes = 10,
                                 .file_footer_size_in_bytes = 5};
    fl_ice_update u[] = {{.kind = FL_ICE_UPD_SET_PROPERTIES, .properties = {2, kv}},
                         {.kind = FL_ICE_UPD_SET_LOCATION, .location = "/tmp/t2"},
                         {.kind = FL_ICE_UPD_SET_STATISTICS, .statistics = &st}};
    CHECK_OK(fl_ice_metadata_apply(&base, NULL, u, 3, 1, &a, &m, &err), &err);
    CHECK_EQ_INT(m.properties.n, 2);
    CHECK_EQ_STR(fl_ice_map_get(&m.properties, "a"), "2");
    CHECK_EQ_STR(fl_ice_map_get(&m.properties, "b"), "3");
    CHECK_EQ_STR(fl_ice_map_get(&base.properties, "a"), "1");
    CHECK_EQ_STR(m.location, "/tmp/t2");
    CHECK_EQ_INT(m.nstatistics, 1);
    roundtrip(&m, &a);
    fl_ice_metadata m2;
    fl_ice_update r[] = {{.kind = FL_ICE_UPD_REMOVE_PROPERTIES, .removals = rmk, .nremovals = 1},
                         {.kind = FL_ICE_UPD_REMOVE_STATISTICS, .snapshot_id = 10}};
    CHECK_OK(fl_ice_metadata_apply(&m, NULL, r, 2, 1, &a, &m2, &err), &err);
    CHECK_EQ_INT(m2.properties.n, 1);
    CHECK(fl_ice_map_get(&m2.properties, "a") == NULL);
    CHECK_EQ_INT(m2.nstatistics, 0);
    /* uuid cannot change */
    fl_ice_update uu = {.kind = FL_ICE_UPD_ASSIGN_UUID,
                        .uuid = "00000000-0000-4000-8000-000000000000"};
    CHECK(fl_ice_metadata_apply(&base, NULL, &uu, 1, 1, &a, &m2, &err) == FL_EINVAL);
    uu.uuid = base.table_uuid;
    CHECK_OK(fl_ice_metadata_apply(&base, NULL, &uu, 1, 1, &a, &m2, &err), &err);
    fl_arena_free(&a);
}

/* set/remove-partition-statistics and add/remove-encryption-key (spec
 * update actions added for the REST catalog); the result survives a
 * write/parse round trip. */
static void test_partition_stats_and_keys(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err = {0};
    fl_ice_metadata base, m, m2;
    parse(BASE_V2, &a, &base);
    fl_ice_partition_statistics_file ps = {
        .snapshot_id = 7, .statistics_path = "/t/metadata/ps-7.parquet", .file_size_in_bytes = 99};
    fl_ice_partition_statistics_file ps2 = ps;
    ps2.file_size_in_bytes = 100; /* replaces the file of the same snapshot */
    fl_ice_encryption_key k1 = {.key_id = "k1", .encrypted_key_metadata = "AAEC"};
    fl_ice_encryption_key k2 = {.key_id = "k2", .encrypted_key_metadata = "AwQF",
                                .encrypted_by_id = "k1"};
    fl_ice_update u[] = {{.kind = FL_ICE_UPD_SET_PARTITION_STATISTICS, .partition_statistics = &ps},
                         {.kind = FL_ICE_UPD_SET_PARTITION_STATISTICS, .partition_statistics = &ps2},
                         {.kind = FL_ICE_UPD_ADD_ENCRYPTION_KEY, .encryption_key = &k1},
                         {.kind = FL_ICE_UPD_ADD_ENCRYPTION_KEY, .encryption_key = &k2}};
    CHECK_OK(fl_ice_metadata_apply(&base, NULL, u, 4, 1, &a, &m, &err), &err);
    CHECK_EQ_INT(m.npartition_statistics, 1);
    CHECK_EQ_INT(m.partition_statistics[0].file_size_in_bytes, 100);
    CHECK_EQ_INT(m.nencryption_keys, 2);
    CHECK_EQ_STR(m.encryption_keys[1].encrypted_by_id, "k1");
    roundtrip(&m, &a);
    fl_ice_update rm[] = {{.kind = FL_ICE_UPD_REMOVE_PARTITION_STATISTICS, .snapshot_id = 7},
                          {.kind = FL_ICE_UPD_REMOVE_ENCRYPTION_KEY, .key_id = "k1"}};
    CHECK_OK(fl_ice_metadata_apply(&m, NULL, rm, 2, 2, &a, &m2, &err), &err);
    CHECK_EQ_INT(m2.npartition_statistics, 0);
    CHECK_EQ_INT(m2.nencryption_keys, 1);
    CHECK_EQ_STR(m2.encryption_keys[0].key_id, "k2");
    CHECK_EQ_INT(m.nencryption_keys, 2); /* the input metadata is untouched */
    fl_ice_encryption_key bad = {.key_id = "k3"};
    fl_ice_update ub = {.kind = FL_ICE_UPD_ADD_ENCRYPTION_KEY, .encryption_key = &bad};
    CHECK(fl_ice_metadata_apply(&m, NULL, &ub, 1, 2, &a, &m2, &err) == FL_EINVAL);
    fl_arena_free(&a);
}

static void test_format_upgrade(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err = {0};
    const char *v1 = "{\"format-version\":1,\"location\":\"/tmp/v1\",\"last-updated-ms\":5,"
                     "\"last-column-id\":1,\"schema\":{\"type\":\"struct\",\"fields\":[{\"id\":1,"
                     "\"name\":\"x\",\"required\":false,\"type\":\"int\"}]},"
                     "\"partition-spec\":[],\"properties\":{},\"snapshots\":[]}";
    fl_ice_metadata base, m, m3;
    parse(v1, &a, &base);
    fl_ice_update up = {.kind = FL_ICE_UPD_UPGRADE_FORMAT_VERSION, .format_version = 2};
    CHECK_OK(fl_ice_metadata_apply(&base, NULL, &up, 1, 9, &a, &m, &err), &err);
    CHECK_EQ_INT(m.format_version, 2);
    CHECK(m.table_uuid != NULL);
    CHECK_EQ_INT(m.last_sequence_number, 0);
    roundtrip(&m, &a);
    up.format_version = 3;
    CHECK_OK(fl_ice_metadata_apply(&m, NULL, &up, 1, 9, &a, &m3, &err), &err);
    CHECK(m3.has_next_row_id && m3.next_row_id == 0);
    roundtrip(&m3, &a);
    /* v3 snapshots advance next-row-id; a first-row-id behind it is rejected */
    fl_ice_snapshot s = snap(1, -1, 1, 100);
    s.has_first_row_id = true;
    s.first_row_id = 0;
    s.has_added_rows = true;
    s.added_rows = 25;
    fl_ice_ref main_ref = {.name = "main", .snapshot_id = 1};
    fl_ice_update add[] = {{.kind = FL_ICE_UPD_ADD_SNAPSHOT, .snapshot = &s},
                           {.kind = FL_ICE_UPD_SET_SNAPSHOT_REF, .ref = &main_ref}};
    fl_ice_metadata m4, m5;
    CHECK_OK(fl_ice_metadata_apply(&m3, NULL, add, 2, 9, &a, &m4, &err), &err);
    CHECK_EQ_INT(m4.next_row_id, 25);
    CHECK_EQ_INT(m4.last_sequence_number, 1);
    roundtrip(&m4, &a);
    fl_ice_snapshot s2 = snap(2, 1, 2, 200);
    s2.has_first_row_id = true;
    s2.first_row_id = 10;
    s2.has_added_rows = true;
    s2.added_rows = 1;
    fl_ice_update add2 = {.kind = FL_ICE_UPD_ADD_SNAPSHOT, .snapshot = &s2};
    CHECK(fl_ice_metadata_apply(&m4, NULL, &add2, 1, 9, &a, &m5, &err) == FL_EINVAL);
    CHECK(strstr(err.msg, "next-row-id") != NULL);
    s2.has_first_row_id = false;
    CHECK(fl_ice_metadata_apply(&m4, NULL, &add2, 1, 9, &a, &m5, &err) == FL_EINVAL);
    /* downgrade */
    up.format_version = 2;
    CHECK(fl_ice_metadata_apply(&m3, NULL, &up, 1, 9, &a, &m, &err) == FL_EINVAL);
    CHECK(strstr(err.msg, "downgrade") != NULL);
    up.format_version = 4;
    CHECK(fl_ice_metadata_apply(&m3, NULL, &up, 1, 9, &a, &m, &err) == FL_EINVAL);
    fl_arena_free(&a);
}

static void test_requirements(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err = {0};
    fl_ice_metadata m;
    parse(BASE_V2, &a, &m);
    fl_ice_requirement ok[] = {
        {.kind = FL_ICE_REQ_ASSERT_TABLE_UUID, .uuid = "9C12D441-03FE-4693-9A96-A0705DDF69C1"},
        {.kind = FL_ICE_REQ_ASSERT_REF_SNAPSHOT_ID,
         .ref = "main",
         .has_snapshot_id = true,
         .snapshot_id = 10},
        {.kind = FL_ICE_REQ_ASSERT_REF_SNAPSHOT_ID, .ref = "dev", .has_snapshot_id = false},
        {.kind = FL_ICE_REQ_ASSERT_LAST_ASSIGNED_FIELD_ID, .id = 2},
        {.kind = FL_ICE_REQ_ASSERT_CURRENT_SCHEMA_ID, .id = 0},
        {.kind = FL_ICE_REQ_ASSERT_LAST_ASSIGNED_PARTITION_ID, .id = 999},
        {.kind = FL_ICE_REQ_ASSERT_DEFAULT_SPEC_ID, .id = 0},
        {.kind = FL_ICE_REQ_ASSERT_DEFAULT_SORT_ORDER_ID, .id = 0},
    };
    CHECK_OK(fl_ice_requirements_check(&m, ok, 8, &err), &err);
    fl_ice_requirement create = {.kind = FL_ICE_REQ_ASSERT_CREATE};
    CHECK_OK(fl_ice_requirements_check(NULL, &create, 1, &err), &err);
    CHECK(fl_ice_requirements_check(&m, &create, 1, &err) == FL_ECONFLICT);
    CHECK(strstr(err.msg, "already exists") != NULL);
    CHECK(fl_ice_requirements_check(NULL, ok, 1, &err) == FL_ECONFLICT);
    for (int i = 0; i < 8; i++) {
        fl_ice_requirement r = ok[i];
        if (r.kind == FL_ICE_REQ_ASSERT_TABLE_UUID)
            r.uuid = "00000000-0000-4000-8000-000000000000";
        else if (r.kind == FL_ICE_REQ_ASSERT_REF_SNAPSHOT_ID && r.has_snapshot_id)
            r.snapshot_id = 9;
        else if (r.kind == FL_ICE_REQ_ASSERT_REF_SNAPSHOT_ID)
            r.ref = "main"; /* expected absent but exists */
        else
            r.id += 1;
        CHECK(fl_ice_requirements_check(&m, &r, 1, &err) == FL_ECONFLICT);
        CHECK(strstr(err.msg, "Requirement failed") != NULL);
    }
    fl_ice_requirement missing = {.kind = FL_ICE_REQ_ASSERT_REF_SNAPSHOT_ID,
                                  .ref = "dev",
                                  .has_snapshot_id = true,
                                  .snapshot_id = 10};
    CHECK(fl_ice_requirements_check(&m, &missing, 1, &err) == FL_ECONFLICT);
    CHECK(strstr(err.msg, "dev is missing") != NULL);
    fl_arena_free(&a);
}

int main(void)
{
    TEST_RUN(test_new_table);
    TEST_RUN(test_schema_reuse);
    TEST_RUN(test_spec_and_order);
    TEST_RUN(test_snapshots);
    TEST_RUN(test_metadata_log_trim);
    TEST_RUN(test_properties_location_stats);
    TEST_RUN(test_partition_stats_and_keys);
    TEST_RUN(test_format_upgrade);
    TEST_RUN(test_requirements);
    return TEST_EXIT();
}
