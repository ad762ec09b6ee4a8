/*
 * test_metadata.c - Iceberg table metadata: every fixture table metadata file
 * under $FLOE_SHARED/fixtures/iceberg parses (or is rejected, for the negative
 * fixtures), round-trips through the writer, and spot values match the files.
 * Inline cases cover the v1 inference rules, v2 required fields, error
 * messages that name the field, 64-bit ids and gzip input.
 */
#include <dirent.h>
#include <sys/stat.h>
#include <zlib.h>

#include "floe/iceberg.h"
#include "test.h"

static char g_root[4096];
static int g_nfiles;

static fl_status parse_str(const char *json, fl_arena *a, fl_ice_metadata *m, fl_error *err)
{
    return fl_ice_metadata_parse((const uint8_t *)json, strlen(json), NULL, a, m, err);
}

static fl_status parse_path(const char *rel, fl_arena *a, fl_ice_metadata *m, fl_error *err)
{
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", g_root, rel);
    fl_fileio *io = fl_fileio_local();
    fl_status rc = fl_ice_metadata_read(io, path, a, m, err);
    fl_fileio_destroy(io);
    return rc;
}

/* Negative fixtures: file name, expected status, substring of the message. */
static const struct {
    const char *name;
    fl_status code;
    const char *msg;
} k_rejects[] = {
    /* Written when v3 was unsupported: v1's single "schema" in a v3 file. */
    {"TableMetadataUnsupportedVersion.json", FL_ECORRUPT, "schemas: missing"},
    /* BigQuery's placeholder v0: only properties and current-snapshot-id. */
    {"v0.metadata.json", FL_ECORRUPT, "format-version: missing"},
    {"TableMetadataV2CurrentSchemaNotFound.json", FL_ECORRUPT, "current-schema-id"},
    {"TableMetadataV2MissingLastPartitionId.json", FL_ECORRUPT, "last-partition-id: missing"},
    {"TableMetadataV2MissingSchemas.json", FL_ECORRUPT, "schemas: missing"},
    {"TableMetadataV2MissingSortOrder.json", FL_ECORRUPT, "sort-orders: missing"},
};

static int reject_index(const char *name)
{
    for (size_t i = 0; i < sizeof k_rejects / sizeof k_rejects[0]; i++)
        if (strcmp(k_rejects[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* Table metadata files: *.metadata.json (and .gz), plus the iceberg-rust /
 * iceberg-go metadata-only JSON that are table metadata. The icebird
 * "-m0.metadata.json" is an Avro header dump, and avro_schema_* are Avro schemas. */
static bool is_table_metadata(const char *name)
{
    size_t n = strlen(name);
    if (strstr(name, "-m0.metadata.json") || strncmp(name, "avro_schema", 11) == 0)
        return false;
    if (n > 14 && strcmp(name + n - 14, ".metadata.json") == 0)
        return true;
    if (n > 17 && strcmp(name + n - 17, ".metadata.json.gz") == 0)
        return true;
    return strncmp(name, "TableMetadata", 13) == 0 ||
           strncmp(name, "example_table_metadata", 22) == 0;
}

static void roundtrip(const char *path, const fl_ice_metadata *m)
{
    fl_error err;
    char *json = NULL;
    size_t len = 0;
    fl_status rc = fl_ice_metadata_write(m, 0, &json, &len, &err);
    if (rc != FL_OK) {
        fprintf(stderr, "%s: write: %s\n", path, err.msg);
        CHECK(0);
        return;
    }
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_ice_metadata back;
    rc = fl_ice_metadata_parse((const uint8_t *)json, len, path, &a, &back, &err);
    if (rc != FL_OK) {
        fprintf(stderr, "%s: reparse: %s\n", path, err.msg);
        CHECK(0);
    } else if (!fl_ice_metadata_equal(m, &back)) {
        fprintf(stderr, "%s: round trip differs\n", path);
        CHECK(0);
    }
    /* Writing again from the reparsed structs gives the same bytes. */
    char *json2 = NULL;
    size_t len2 = 0;
    if (rc == FL_OK && fl_ice_metadata_write(&back, 0, &json2, &len2, &err) == FL_OK) {
        CHECK(len2 == len && memcmp(json, json2, len) == 0);
        free(json2);
    }
    /* v2+ tables can be written as v3 and read back. */
    if (m->format_version >= 2) {
        char *v3 = NULL;
        size_t v3len = 0;
        CHECK_OK(fl_ice_metadata_write(m, 3, &v3, &v3len, &err), &err);
        fl_ice_metadata m3;
        if (v3) {
            CHECK_OK(fl_ice_metadata_parse((const uint8_t *)v3, v3len, path, &a, &m3, &err), &err);
            CHECK_EQ_INT(m3.format_version, 3);
            CHECK_EQ_INT(m3.nsnapshots, m->nsnapshots);
        }
        free(v3);
    }
    fl_arena_free(&a);
    free(json);
}

static void check_file(const char *path, const char *name)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_ice_metadata m;
    fl_fileio *io = fl_fileio_local();
    fl_status rc = fl_ice_metadata_read(io, path, &a, &m, &err);
    fl_fileio_destroy(io);
    int ri = reject_index(name);
    g_nfiles++;
    if (ri >= 0) {
        if (rc != k_rejects[ri].code || !strstr(err.msg, k_rejects[ri].msg)) {
            fprintf(stderr, "%s: expected rejection '%s', got %d: %s\n", path, k_rejects[ri].msg,
                    rc, rc ? err.msg : "(accepted)");
            CHECK(0);
        }
    } else if (rc != FL_OK) {
        fprintf(stderr, "%s: %s\n", path, err.msg);
        CHECK(0);
    } else {
        const fl_ice_schema *cur = fl_ice_metadata_current_schema(&m);
        CHECK(cur != NULL);
        CHECK(fl_ice_metadata_spec(&m, m.default_spec_id) != NULL);
        if (m.current_snapshot_id != FL_ICE_NO_SNAPSHOT) {
            const fl_ice_ref *main_ref = fl_ice_metadata_ref(&m, "main");
            CHECK(main_ref && main_ref->snapshot_id == m.current_snapshot_id);
        }
        roundtrip(path, &m);
    }
    fl_arena_free(&a);
}

static void walk(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            if (strcmp(e->d_name, "avro-expected") != 0)
                walk(path);
        } else if (is_table_metadata(e->d_name)) {
            check_file(path, e->d_name);
        }
    }
    closedir(d);
}

static void test_all_fixtures(void)
{
    g_nfiles = 0;
    walk(g_root);
    fprintf(stderr, "  %d metadata files checked\n", g_nfiles);
    CHECK(g_nfiles >= 60);
}

static void test_rename_column(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_ice_metadata m;
    CHECK_OK(parse_path("icebird/spark/rename_column/metadata/v3.metadata.json", &a, &m, &err),
             &err);
    CHECK_EQ_INT(m.format_version, 2);
    CHECK(m.current_snapshot_id == 5276958600260276572LL);
    CHECK_EQ_INT(m.nschemas, 2);
    const fl_ice_schema *s = fl_ice_metadata_current_schema(&m);
    CHECK(s && s->schema_id == 1 && s->schema.nfields == 5);
    if (s && s->schema.nfields == 5) {
        CHECK_EQ_STR(s->schema.fields[2].name, "event_date");
        CHECK_EQ_INT(s->schema.fields[2].field_id, 3);
        CHECK_EQ_INT(s->schema.fields[2].type.id, FL_TYPE_DATE);
        CHECK_EQ_INT(s->schema.fields[3].type.id, FL_TYPE_DECIMAL);
        CHECK_EQ_INT(s->schema.fields[3].type.precision, 10);
        CHECK_EQ_INT(s->schema.fields[3].type.scale, 2);
        CHECK(s->schema.fields[0].nullable);
    }
    const fl_ice_partition_spec *spec = fl_ice_metadata_spec(&m, 0);
    CHECK(spec && spec->nfields == 2);
    if (spec && spec->nfields == 2) {
        CHECK_EQ_STR(spec->fields[0].transform, "bucket[4]");
        CHECK_EQ_INT(spec->fields[0].source_id, 1);
        CHECK_EQ_INT(spec->fields[0].field_id, 1000);
        CHECK_EQ_STR(spec->fields[1].name, "date");
        CHECK_EQ_INT(spec->fields[1].field_id, 1001);
    }
    CHECK_EQ_INT(m.last_partition_id, 1001);
    const fl_ice_ref *r = fl_ice_metadata_ref(&m, "main");
    CHECK(r && !r->is_tag && r->snapshot_id == 5276958600260276572LL);
    const fl_ice_snapshot *snap = fl_ice_metadata_current_snapshot(&m);
    CHECK(snap && strcmp(snap->operation, "append") == 0);
    fl_schema fs;
    CHECK_OK(fl_ice_schema_to_fl(s, &a, &fs, &err), &err);
    CHECK_EQ_INT(fs.nfields, 5);
    CHECK_EQ_INT(fs.schema_id, 1);
    fl_arena_free(&a);
}

static void test_bunnies_snapshots(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_ice_metadata m;
    CHECK_OK(parse_path("icebird/java/bunnies/metadata/v5.metadata.json", &a, &m, &err), &err);
    CHECK_EQ_INT(m.nsnapshots, 3);
    if (m.nsnapshots == 3) {
        CHECK(m.snapshots[0].snapshot_id == 4951213507629824583LL);
        CHECK(m.snapshots[1].snapshot_id == 6458828015811002920LL);
        CHECK(m.snapshots[2].snapshot_id == (int64_t)9158179788527662767LL);
        CHECK(m.snapshots[1].has_parent &&
              m.snapshots[1].parent_snapshot_id == 4951213507629824583LL);
        CHECK(!m.snapshots[0].has_parent);
        CHECK(m.snapshots[2].manifest_list != NULL);
    }
    /* Java's key order: sequence-number leads a snapshot (Java writes it first). */
    char *json = NULL;
    size_t len;
    CHECK_OK(fl_ice_metadata_write(&m, 0, &json, &len, &err), &err);
    CHECK(json && strstr(json, "\"snapshots\":[{\"sequence-number\":1,\"snapshot-id\":"
                               "4951213507629824583,\"timestamp-ms\":"));
    CHECK(json && strstr(json, "\"current-snapshot-id\":9158179788527662767,\"refs\":{\"main\":"
                               "{\"snapshot-id\":9158179788527662767,\"type\":\"branch\"}}"));
    free(json);
    const fl_ice_schema *s = fl_ice_metadata_current_schema(&m);
    CHECK(s && s->schema.nfields == 9);
    if (s && s->schema.nfields == 9) {
        CHECK_EQ_STR(s->schema.fields[8].name, "__happy__");
        CHECK_EQ_INT(s->schema.fields[8].type.id, FL_TYPE_BOOLEAN);
    }
    fl_arena_free(&a);
}

static void test_defaults_and_gzip(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_ice_metadata m;
    CHECK_OK(parse_path("duckdb-iceberg/data/persistent/add_columns_with_defaults/default.db/"
                        "add_columns_with_defaults/metadata/"
                        "00003-3f1801a5-7dfb-4072-b14a-39cd12f9279b.metadata.json",
                        &a, &m, &err),
             &err);
    const fl_ice_schema *s = fl_ice_metadata_current_schema(&m);
    CHECK(s != NULL);
    if (s) {
        const fl_ice_field_extra *e = fl_ice_schema_extra(s, 4);
        CHECK(e && e->initial_default && strcmp(e->initial_default, "-9223372036854775808") == 0);
        e = fl_ice_schema_extra(s, 7);
        CHECK(e && e->write_default && strcmp(e->write_default, "\"12345.00\"") == 0);
        CHECK(fl_ice_schema_extra(s, 1) == NULL);
    }
    fl_ice_metadata g;
    CHECK_OK(parse_path("duckdb-iceberg/data/persistent/iceberg/lineitem_iceberg_gz/metadata/"
                        "v2.gz.metadata.json",
                        &a, &g, &err),
             &err);
    CHECK_EQ_INT(g.format_version, 1);
    CHECK_EQ_INT(g.nsnapshots, 1);
    fl_arena_free(&a);
}

static void test_v1_inference(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_ice_metadata m;
    CHECK_OK(parse_path("metadata-only/iceberg-rust/table_metadata/"
                        "TableMetadataV1PartitionSpecsWithoutDefaultId.json",
                        &a, &m, &err),
             &err);
    CHECK_EQ_INT(m.default_spec_id, 2);
    CHECK_EQ_INT(m.last_partition_id, 1001);
    CHECK_EQ_INT(m.nsort_orders, 1);
    CHECK_EQ_INT(m.default_sort_order_id, 0);
    CHECK_EQ_INT(m.current_snapshot_id, FL_ICE_NO_SNAPSHOT);
    CHECK_EQ_INT(m.nrefs, 0);
    CHECK_OK(parse_path("metadata-only/iceberg-rust/table_metadata/"
                        "TableMetadataV1SchemasWithoutCurrentId.json",
                        &a, &m, &err),
             &err);
    CHECK_EQ_INT(m.current_schema_id, 0);
    CHECK_EQ_INT(m.nspecs, 1);
    if (m.nspecs == 1 && m.specs[0].nfields == 1)
        CHECK_EQ_INT(m.specs[0].fields[0].field_id, 1000);
    /* v1 spec without field ids: 1000 + position; no refs -> main synthesized. */
    const char *v1 =
        "{\"format-version\":1,\"location\":\"s3://b/t\",\"last-updated-ms\":1,"
        "\"last-column-id\":2,\"schema\":{\"type\":\"struct\",\"fields\":["
        "{\"id\":1,\"name\":\"a\",\"required\":true,\"type\":\"int\"},"
        "{\"id\":2,\"name\":\"b\",\"required\":false,\"type\":\"string\"}]},"
        "\"partition-spec\":[{\"name\":\"a_b\",\"transform\":\"bucket[8]\",\"source-id\":1},"
        "{\"name\":\"b_t\",\"transform\":\"truncate[3]\",\"source-id\":2}],"
        "\"current-snapshot-id\":7,\"snapshots\":[{\"snapshot-id\":7,\"timestamp-ms\":5,"
        "\"manifests\":[\"m1.avro\",\"m2.avro\"]}]}";
    CHECK_OK(parse_str(v1, &a, &m, &err), &err);
    CHECK_EQ_INT(m.nspecs, 1);
    CHECK_EQ_INT(m.specs[0].fields[1].field_id, 1001);
    CHECK_EQ_INT(m.last_partition_id, 1001);
    CHECK(m.table_uuid == NULL);
    CHECK_EQ_INT(m.last_sequence_number, 0);
    CHECK_EQ_INT(m.snapshots[0].nmanifests, 2);
    CHECK(m.snapshots[0].manifest_list == NULL);
    CHECK_EQ_STR(m.snapshots[0].operation, "overwrite");
    const fl_ice_ref *r = fl_ice_metadata_ref(&m, "main");
    CHECK(r && r->snapshot_id == 7 && !r->is_tag);
    roundtrip("inline-v1", &m);
    /* v1 written as v1 keeps the deprecated keys. */
    char *json = NULL;
    size_t len;
    CHECK_OK(fl_ice_metadata_write(&m, 1, &json, &len, &err), &err);
    CHECK(json && strstr(json, "\"partition-spec\":[") && strstr(json, "\"schema\":{"));
    CHECK(json && strstr(json, "\"manifests\":[\"m1.avro\",\"m2.avro\"]"));
    free(json);
    fl_arena_free(&a);
}

static const char *k_v2_head =
    "{\"format-version\":2,\"table-uuid\":\"u\",\"location\":\"s3://b/t\","
    "\"last-sequence-number\":3,\"last-updated-ms\":1,\"last-column-id\":1,"
    "\"current-schema-id\":0,\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"a\",\"required\":true,\"type\":\"long\"}]}],"
    "\"default-spec-id\":0,\"partition-specs\":[{\"spec-id\":0,\"fields\":[]}],"
    "\"last-partition-id\":999,\"default-sort-order-id\":0,"
    "\"sort-orders\":[{\"order-id\":0,\"fields\":[]}]";

/* Parses k_v2_head + tail; returns the status, fills err. */
static fl_status parse_v2(const char *tail, fl_arena *a, fl_ice_metadata *m, fl_error *err)
{
    char buf[8192];
    snprintf(buf, sizeof buf, "%s%s", k_v2_head, tail);
    return parse_str(buf, a, m, err);
}

static void expect_error(const char *tail, const char *msg)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_ice_metadata m;
    fl_status rc = parse_v2(tail, &a, &m, &err);
    if (rc == FL_OK || !strstr(err.msg, msg)) {
        fprintf(stderr, "expected error containing '%s', got %d: %s\n", msg, rc,
                rc ? err.msg : "(ok)");
        CHECK(0);
    }
    fl_arena_free(&a);
}

static void test_errors_name_fields(void)
{
    expect_error(",\"snapshots\":[{\"snapshot-id\":1,\"timestamp-ms\":1,\"manifest-list\":\"x\","
                 "\"summary\":{\"operation\":\"append\"}},{\"snapshot-id\":2,\"timestamp-ms\":1,"
                 "\"summary\":{\"operation\":\"append\"}}]}",
                 "table metadata: snapshots[1].manifest-list: missing");
    expect_error(",\"snapshots\":[{\"snapshot-id\":1.5,\"timestamp-ms\":1}]}",
                 "snapshots[0].snapshot-id: expected an integer, got real number");
    expect_error(",\"refs\":{\"main\":{\"snapshot-id\":1,\"type\":\"trunk\"}}}",
                 "refs.main.type: expected branch or tag");
    expect_error(",\"refs\":{\"main\":{\"snapshot-id\":1,\"type\":\"tag\"}}}",
                 "main must be a branch");
    expect_error(",\"properties\":{\"k\":1}}", "properties.k: expected a string");
    expect_error(",\"snapshot-log\":[{\"timestamp-ms\":1}]}",
                 "snapshot-log[0].snapshot-id: missing");
    expect_error(",\"statistics\":[{\"snapshot-id\":1,\"statistics-path\":\"p\","
                 "\"file-size-in-bytes\":1,\"file-footer-size-in-bytes\":1,\"blob-metadata\":"
                 "[{\"type\":\"t\",\"snapshot-id\":1,\"sequence-number\":1}]}]}",
                 "statistics[0].blob-metadata[0].fields: missing");
    expect_error(",\"encryption-keys\":[{\"key-id\":\"k\"}]}",
                 "encryption-keys[0].encrypted-key-metadata: missing");
    expect_error("}x", "JSON error");
    expect_error(",\"current-snapshot-id\":5}", "current-snapshot-id: snapshot 5 not found");
    expect_error(",\"snapshots\":[{\"snapshot-id\":9,\"timestamp-ms\":1,\"manifest-list\":\"m\","
                 "\"summary\":{\"operation\":\"append\"}},{\"snapshot-id\":9,\"timestamp-ms\":2,"
                 "\"manifest-list\":\"n\",\"summary\":{\"operation\":\"append\"}}]}",
                 "snapshots: duplicate snapshot id 9");
    expect_error(",\"current-snapshot-id\":1,\"snapshots\":[{\"snapshot-id\":1,\"timestamp-ms\":1,"
                 "\"manifest-list\":\"m\",\"summary\":{\"operation\":\"append\"}}],"
                 "\"refs\":{\"main\":{\"snapshot-id\":2,\"type\":\"branch\"}}}",
                 "refs.main: snapshot 2 does not match current-snapshot-id 1");
    expect_error(",\"partition-specs\":[]}", "duplicate object key");
    {
        fl_arena a2;
        fl_arena_init(&a2, 0);
        fl_ice_metadata m2;
        fl_error e2;
        char buf[4096];
        const char *dup = strstr(k_v2_head, "{\"spec-id\":0,\"fields\":[]}");
        size_t off = (size_t)(dup - k_v2_head);
        snprintf(buf, sizeof buf, "%.*s{\"spec-id\":0,\"fields\":[]},%s}", (int)off, k_v2_head,
                 k_v2_head + off);
        CHECK(parse_str(buf, &a2, &m2, &e2) == FL_ECORRUPT);
        CHECK(strstr(e2.msg, "partition-specs[1].spec-id: duplicate spec id 0") != NULL);
        fl_arena_free(&a2);
    }
    /* format-version as a string or too-large ids */
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_ice_metadata m;
    CHECK(parse_str("{\"format-version\":\"2\"}", &a, &m, &err) == FL_ECORRUPT);
    CHECK(strstr(err.msg, "format-version: expected an integer") != NULL);
    CHECK(parse_str("[]", &a, &m, &err) == FL_ECORRUPT);
    CHECK(parse_str("{\"format-version\":4}", &a, &m, &err) == FL_EUNSUPPORTED);
    /* bad schema types name the field path */
    const char *bad_type =
        "{\"format-version\":2,\"table-uuid\":\"u\",\"location\":\"l\",\"last-sequence-number\":0,"
        "\"last-updated-ms\":1,\"last-column-id\":1,\"current-schema-id\":0,\"schemas\":[{"
        "\"type\":\"struct\",\"schema-id\":0,\"fields\":[{\"id\":1,\"name\":\"a\",\"required\":"
        "true,"
        "\"type\":{\"type\":\"list\",\"element-id\":2,\"element\":\"decimal(99,2)\","
        "\"element-required\":true}}]}]}";
    CHECK(parse_str(bad_type, &a, &m, &err) == FL_ECORRUPT);
    CHECK(strstr(err.msg, "schemas[0].fields[0].element.type: unknown type 'decimal(99,2)'") !=
          NULL);
    fl_arena_free(&a);
}

static void test_int64_and_null_snapshot(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_ice_metadata m;
    /* 2^62 and INT64_MAX survive exactly. */
    CHECK_OK(parse_v2(",\"current-snapshot-id\":4611686018427387904,\"snapshots\":[{"
                      "\"snapshot-id\":4611686018427387904,\"parent-snapshot-id\":"
                      "9223372036854775807,\"sequence-number\":3,\"timestamp-ms\":1,"
                      "\"manifest-list\":\"ml\",\"summary\":{\"operation\":\"append\","
                      "\"added-records\":\"5\"}}]}",
                      &a, &m, &err),
             &err);
    CHECK(m.current_snapshot_id == 4611686018427387904LL);
    CHECK(m.snapshots[0].parent_snapshot_id == INT64_MAX);
    CHECK_EQ_STR(fl_ice_map_get(&m.snapshots[0].summary, "added-records"), "5");
    CHECK(fl_ice_metadata_ref(&m, "main") != NULL);
    char *json = NULL;
    size_t len;
    CHECK_OK(fl_ice_metadata_write(&m, 0, &json, &len, &err), &err);
    CHECK(json && strstr(json, "\"snapshot-id\":4611686018427387904"));
    CHECK(json && strstr(json, "\"summary\":{\"operation\":\"append\",\"added-records\":\"5\"}"));
    free(json);
    /* null current-snapshot-id = none; v3 writes null. */
    CHECK_OK(parse_v2(",\"current-snapshot-id\":null}", &a, &m, &err), &err);
    CHECK_EQ_INT(m.current_snapshot_id, FL_ICE_NO_SNAPSHOT);
    CHECK_OK(fl_ice_metadata_write(&m, 3, &json, &len, &err), &err);
    CHECK(json && strstr(json, "\"current-snapshot-id\":null,\"next-row-id\":0"));
    free(json);
    CHECK_OK(fl_ice_metadata_write(&m, 2, &json, &len, &err), &err);
    CHECK(json && strstr(json, "\"current-snapshot-id\":-1,\"refs\":{}"));
    /* Java's key order at the start of the file. */
    CHECK(json &&
          strncmp(json, "{\"format-version\":2,\"table-uuid\":\"u\",\"location\":", 48) == 0);
    free(json);
    /* Ids above INT64_MAX that fit 64 unsigned bits (hand-written fixtures use
     * them) wrap to their two's complement, except UINT64_MAX, which would wrap
     * to -1 ("no snapshot") and is refused; beyond 64 bits is a JSON error. */
    CHECK_OK(parse_v2(",\"current-snapshot-id\":9223372036854775808,\"refs\":{\"b\":{"
                      "\"snapshot-id\":9223372036854775808,\"type\":\"branch\"}},"
                      "\"snapshots\":[{\"snapshot-id\":9223372036854775808,\"timestamp-ms\":1,"
                      "\"manifest-list\":\"m\",\"summary\":{\"operation\":\"append\"}}],"
                      "\"properties\":{\"k\":\"18446744073709551615\"}}",
                      &a, &m, &err),
             &err);
    CHECK(m.current_snapshot_id == INT64_MIN);
    CHECK(fl_ice_metadata_current_snapshot(&m) != NULL);
    CHECK(fl_ice_metadata_ref(&m, "b") && fl_ice_metadata_ref(&m, "b")->snapshot_id == INT64_MIN);
    CHECK_EQ_STR(fl_ice_map_get(&m.properties, "k"), "18446744073709551615");
    CHECK(parse_v2(",\"current-snapshot-id\":18446744073709551615}", &a, &m, &err) ==
          FL_ECORRUPT);
    CHECK(strstr(err.msg, "would wrap to -1") != NULL);
    CHECK(parse_v2(",\"current-snapshot-id\":18446744073709551616}", &a, &m, &err) == FL_ESYNTAX);
    CHECK(parse_v2(",\"current-snapshot-id\":-9223372036854775809}", &a, &m, &err) == FL_ESYNTAX);
    /* ints that do not fit 32 bits */
    CHECK(parse_v2(",\"snapshots\":[{\"snapshot-id\":1,\"timestamp-ms\":1,\"manifest-list\":\"m\","
                   "\"summary\":{\"operation\":\"append\"},\"schema-id\":4294967296}]}",
                   &a, &m, &err) == FL_ECORRUPT);
    CHECK(strstr(err.msg, "snapshots[0].schema-id") != NULL);
    fl_arena_free(&a);
}

/* v3 metadata without next-row-id (some writers omit it; Java refuses it) is
 * read, and the value is rebuilt from the snapshots' row-id ranges. */
static void test_v3_missing_next_row_id(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_ice_metadata m;
    char buf[8192];
    const char *v3 = strstr(k_v2_head, ",\"table-uuid\"");
    snprintf(buf, sizeof buf,
             "{\"format-version\":3%s,\"current-snapshot-id\":2,\"snapshots\":["
             "{\"snapshot-id\":1,\"sequence-number\":1,\"timestamp-ms\":1,\"manifest-list\":\"a\","
             "\"summary\":{\"operation\":\"append\"},\"first-row-id\":0,\"added-rows\":40},"
             "{\"snapshot-id\":2,\"parent-snapshot-id\":1,\"sequence-number\":2,"
             "\"timestamp-ms\":2,\"manifest-list\":\"b\",\"summary\":{\"operation\":\"append\"},"
             "\"first-row-id\":40,\"added-rows\":2}]}",
             v3);
    CHECK_OK(parse_str(buf, &a, &m, &err), &err);
    CHECK(m.has_next_row_id);
    CHECK_EQ_INT(m.next_row_id, 42);
    char *json = NULL;
    size_t len;
    CHECK_OK(fl_ice_metadata_write(&m, 3, &json, &len, &err), &err);
    CHECK(json && strstr(json, "\"next-row-id\":42"));
    free(json);
    /* no snapshots: 0 */
    snprintf(buf, sizeof buf, "{\"format-version\":3%s}", v3);
    CHECK_OK(parse_str(buf, &a, &m, &err), &err);
    CHECK(m.has_next_row_id && m.next_row_id == 0);
    fl_arena_free(&a);
}

static void test_v3_types_preserved(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_ice_metadata m;
    const char *js =
        "{\"format-version\":3,\"table-uuid\":\"u\",\"location\":\"l\",\"last-sequence-number\":0,"
        "\"last-updated-ms\":1,\"last-column-id\":9,\"current-schema-id\":0,\"schemas\":[{"
        "\"type\":\"struct\",\"schema-id\":0,\"identifier-field-ids\":[1],\"fields\":["
        "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"LONG\",\"doc\":\"key\"},"
        "{\"id\":2,\"name\":\"v\",\"required\":false,\"type\":\"variant\"},"
        "{\"id\":3,\"name\":\"g\",\"required\":false,\"type\":\"geometry(srid:4326)\"},"
        "{\"id\":4,\"name\":\"ts\",\"required\":false,\"type\":\"timestamptz_ns\","
        "\"initial-default\":\"2017-11-16T22:31:08.000000001+00:00\"},"
        "{\"id\":5,\"name\":\"m\",\"required\":false,\"type\":{\"type\":\"map\",\"key-id\":6,"
        "\"key\":\"string\",\"value-id\":7,\"value\":{\"type\":\"list\",\"element-id\":8,"
        "\"element\":\"fixed[3]\",\"element-required\":false},\"value-required\":true}},"
        "{\"id\":9,\"name\":\"d\",\"required\":false,\"type\":\"decimal( 38 , 10 )\"}]}],"
        "\"default-spec-id\":0,\"partition-specs\":[{\"spec-id\":0,\"fields\":[{\"name\":\"x\","
        "\"transform\":\"bucket[4]\",\"source-ids\":[1,4],\"field-id\":1000}]}],"
        "\"last-partition-id\":1000,\"default-sort-order-id\":1,\"sort-orders\":[{\"order-id\":1,"
        "\"fields\":[{\"transform\":\"identity\",\"source-id\":1,\"direction\":\"desc\","
        "\"null-order\":\"nulls-first\"}]}],\"next-row-id\":42,\"current-snapshot-id\":null,"
        "\"refs\":{\"t1\":{\"snapshot-id\":5,\"type\":\"tag\",\"max-ref-age-ms\":1000}},"
        "\"partition-statistics\":[{\"snapshot-id\":5,\"statistics-path\":\"p\","
        "\"file-size-in-bytes\":10}]}";
    CHECK_OK(parse_str(js, &a, &m, &err), &err);
    const fl_ice_schema *s = fl_ice_metadata_current_schema(&m);
    CHECK(s && s->schema.nfields == 6);
    if (s && s->schema.nfields == 6) {
        CHECK_EQ_INT(s->schema.fields[0].type.id, FL_TYPE_INT64);
        CHECK_EQ_STR(s->schema.fields[0].doc, "key");
        /* variant is a type of its own too: BINARY of variants (floe/variant.h) */
        CHECK(fl_type_is_variant(&s->schema.fields[1].type));
        CHECK(fl_ice_schema_extra(s, 2) == NULL || fl_ice_schema_extra(s, 2)->type_str == NULL);
        /* geometry is a type of its own now: BINARY of WKB with its CRS */
        CHECK(fl_type_is_geo(&s->schema.fields[2].type));
        CHECK_EQ_STR(s->schema.fields[2].type.crs, "srid:4326");
        CHECK_EQ_INT(s->schema.fields[3].type.id, FL_TYPE_TIMESTAMPTZ_NS);
        const fl_type *mt = &s->schema.fields[4].type;
        CHECK_EQ_INT(mt->id, FL_TYPE_MAP);
        CHECK_EQ_INT(mt->children[0].field_id, 6);
        CHECK(!mt->children[0].nullable && !mt->children[1].nullable);
        CHECK_EQ_INT(mt->children[1].type.id, FL_TYPE_LIST);
        CHECK_EQ_INT(mt->children[1].type.children[0].field_id, 8);
        CHECK(mt->children[1].type.children[0].nullable);
        CHECK_EQ_INT(mt->children[1].type.children[0].type.fixed_len, 3);
        CHECK_EQ_INT(s->schema.fields[5].type.precision, 38);
        CHECK_EQ_INT(s->nidentifier, 1);
        fl_schema fs;
        CHECK_OK(fl_ice_schema_to_fl(s, &a, &fs, &err), &err);
    }
    CHECK(m.specs[0].fields[0].multi_arg && m.specs[0].fields[0].nsource_ids == 2);
    CHECK(m.sort_orders[0].fields[0].descending && m.sort_orders[0].fields[0].nulls_first);
    CHECK(m.has_next_row_id && m.next_row_id == 42);
    const fl_ice_ref *t = fl_ice_metadata_ref(&m, "t1");
    CHECK(t && t->is_tag && t->has_max_ref_age_ms && t->max_ref_age_ms == 1000);
    CHECK_EQ_INT(m.npartition_statistics, 1);
    roundtrip("inline-v3", &m);
    char *json = NULL;
    size_t len;
    CHECK_OK(fl_ice_metadata_write(&m, 0, &json, &len, &err), &err);
    CHECK(json && strstr(json, "\"type\":\"decimal(38, 10)\""));
    CHECK(json && strstr(json, "\"source-ids\":[1,4]"));
    CHECK(json && strstr(json, "\"type\":\"geometry(srid:4326)\""));
    free(json);
    /* a v2 table missing table-uuid cannot be written */
    m.table_uuid = NULL;
    CHECK(fl_ice_metadata_write(&m, 2, &json, &len, &err) == FL_EINVAL);
    fl_arena_free(&a);
}

static void test_gzip_memory(void)
{
    const char *js = "{\"format-version\":1,\"location\":\"l\",\"last-updated-ms\":1,"
                     "\"last-column-id\":1,\"schema\":{\"type\":\"struct\",\"fields\":[]},"
                     "\"partition-spec\":[]}";
    uint8_t gz[512];
    z_stream z;
    memset(&z, 0, sizeof z);
    CHECK(deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) == Z_OK);
    z.next_in = (Bytef *)js;
    z.avail_in = (uInt)strlen(js);
    z.next_out = gz;
    z.avail_out = sizeof gz;
    CHECK(deflate(&z, Z_FINISH) == Z_STREAM_END);
    size_t n = z.total_out;
    deflateEnd(&z);
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_ice_metadata m;
    CHECK_OK(fl_ice_metadata_parse(gz, n, "t.gz.metadata.json", &a, &m, &err), &err);
    CHECK_EQ_INT(m.last_partition_id, 999);
    CHECK_EQ_INT(m.nsort_orders, 1);
    /* truncated gzip: an error naming the file */
    CHECK(fl_ice_metadata_parse(gz, n / 2, "t.gz.metadata.json", &a, &m, &err) != FL_OK);
    CHECK(strncmp(err.msg, "t.gz.metadata.json: table metadata: gzip", 40) == 0);
    fl_arena_free(&a);
}

static void test_schema_from_fl(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_ice_schema s;
    const char *js = "{\"type\":\"struct\",\"schema-id\":3,\"fields\":[{\"id\":1,\"name\":\"a\","
                     "\"required\":true,\"type\":\"int\"},{\"id\":2,\"name\":\"b\",\"required\":"
                     "false,\"type\":{\"type\":\"struct\",\"fields\":[{\"id\":3,\"name\":\"c\","
                     "\"required\":false,\"type\":\"uuid\"}]}}]}";
    CHECK_OK(fl_ice_schema_parse_json(js, strlen(js), &a, &s, &err), &err);
    fl_schema fs;
    CHECK_OK(fl_ice_schema_to_fl(&s, &a, &fs, &err), &err);
    CHECK(fl_schema_find_id(&fs, 3) != NULL);
    fl_ice_schema back;
    CHECK_OK(fl_ice_schema_from_fl(&fs, 3, &a, &back, &err), &err);
    CHECK_EQ_INT(back.schema_id, 3);
    CHECK_EQ_INT(back.schema.nfields, 2);
    CHECK_EQ_INT(back.schema.fields[1].type.children[0].type.id, FL_TYPE_UUID);
    /* duplicate ids are rejected */
    const char *dup = "{\"type\":\"struct\",\"fields\":[{\"id\":1,\"name\":\"a\",\"required\":"
                      "true,\"type\":\"int\"},{\"id\":1,\"name\":\"b\",\"required\":true,"
                      "\"type\":\"int\"}]}";
    CHECK(fl_ice_schema_parse_json(dup, strlen(dup), &a, &s, &err) == FL_ECORRUPT);
    CHECK(strstr(err.msg, "duplicate field id 1") != NULL);
    /* an fl_schema with repeated ids is the caller's mistake */
    fs.fields[1].field_id = 1;
    CHECK(fl_ice_schema_from_fl(&fs, 0, &a, &back, &err) == FL_EINVAL);
    CHECK(strstr(err.msg, "duplicate field id 1") != NULL);
    fl_arena_free(&a);
}

int main(void)
{
    const char *shared = test_shared_dir();
    TEST_RUN(test_errors_name_fields);
    TEST_RUN(test_int64_and_null_snapshot);
    TEST_RUN(test_v3_types_preserved);
    TEST_RUN(test_v3_missing_next_row_id);
    TEST_RUN(test_gzip_memory);
    TEST_RUN(test_schema_from_fl);
    if (!shared) {
        fprintf(stderr, "skipped fixture tests: FLOE_SHARED fixtures are absent\n");
        int rc = TEST_EXIT();
        return rc ? rc : 77;
    }
    snprintf(g_root, sizeof g_root, "%s/fixtures/iceberg", shared);
    TEST_RUN(test_all_fixtures);
    TEST_RUN(test_rename_column);
    TEST_RUN(test_bunnies_snapshots);
    TEST_RUN(test_defaults_and_gzip);
    TEST_RUN(test_v1_inference);
    return TEST_EXIT();
}
