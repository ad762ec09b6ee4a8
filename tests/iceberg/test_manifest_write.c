/*
 * test_manifest_write.c - manifests and manifest lists written with
 * fl_ice_manifest_writer_* / fl_ice_manifest_list_write read back equal, for
 * format v1, v2 and v3, with a spec partitioned by every transform result
 * type (int, string, date, decimal, fixed, uuid, double incl. NaN, boolean,
 * timestamptz, binary, and a sanitized field name), null partition values,
 * ADDED/EXISTING/DELETED entries (sequence-number and first-row-id
 * inheritance), delete manifests (position, equality, deletion vectors), the
 * Avro schema shape Java writes (record names, field ids, named-type reuse,
 * header keys), and rejected inputs.
 */
#include <errno.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "floe/avro.h"
#include "floe/ice_manifest.h"
#include "floe_test.h"
#include "iceberg/manifest_test_util.h"

static const char *k_meta =
    "{\"format-version\":2,\"table-uuid\":\"9c12d441-03fe-4693-9a96-a0705ddf69c1\","
    "\"location\":\"/tmp/"
    "t\",\"last-sequence-number\":9,\"last-updated-ms\":1,\"last-column-id\":11,"
    "\"current-schema-id\":0,\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":true,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"s\",\"required\":false,\"type\":\"string\"},"
    "{\"id\":3,\"name\":\"d\",\"required\":false,\"type\":\"date\"},"
    "{\"id\":4,\"name\":\"ts\",\"required\":false,\"type\":\"timestamp\"},"
    "{\"id\":5,\"name\":\"dec\",\"required\":false,\"type\":\"decimal(9, 2)\"},"
    "{\"id\":6,\"name\":\"fx\",\"required\":false,\"type\":\"fixed[3]\"},"
    "{\"id\":7,\"name\":\"u\",\"required\":false,\"type\":\"uuid\"},"
    "{\"id\":8,\"name\":\"f\",\"required\":false,\"type\":\"double\"},"
    "{\"id\":9,\"name\":\"b\",\"required\":false,\"type\":\"boolean\"},"
    "{\"id\":10,\"name\":\"tstz\",\"required\":false,\"type\":\"timestamptz\"},"
    "{\"id\":11,\"name\":\"bin\",\"required\":false,\"type\":\"binary\"}]}],"
    "\"default-spec-id\":1,\"partition-specs\":[{\"spec-id\":0,\"fields\":[]},{\"spec-id\":1,"
    "\"fields\":["
    "{\"name\":\"id_bucket\",\"transform\":\"bucket[8]\",\"source-id\":1,\"field-id\":1000},"
    "{\"name\":\"s\",\"transform\":\"identity\",\"source-id\":2,\"field-id\":1001},"
    "{\"name\":\"s_trunc\",\"transform\":\"truncate[4]\",\"source-id\":2,\"field-id\":1002},"
    "{\"name\":\"d_year\",\"transform\":\"year\",\"source-id\":3,\"field-id\":1003},"
    "{\"name\":\"ts_day\",\"transform\":\"day\",\"source-id\":4,\"field-id\":1004},"
    "{\"name\":\"dec\",\"transform\":\"identity\",\"source-id\":5,\"field-id\":1005},"
    "{\"name\":\"fx\",\"transform\":\"identity\",\"source-id\":6,\"field-id\":1006},"
    "{\"name\":\"u\",\"transform\":\"identity\",\"source-id\":7,\"field-id\":1007},"
    "{\"name\":\"f\",\"transform\":\"identity\",\"source-id\":8,\"field-id\":1008},"
    "{\"name\":\"b\",\"transform\":\"identity\",\"source-id\":9,\"field-id\":1009},"
    "{\"name\":\"tstz\",\"transform\":\"identity\",\"source-id\":10,\"field-id\":1010},"
    "{\"name\":\"weird name!\",\"transform\":\"identity\",\"source-id\":11,\"field-id\":1011},"
    "{\"name\":\"ts_hour\",\"transform\":\"hour\",\"source-id\":4,\"field-id\":1012},"
    "{\"name\":\"dec2\",\"transform\":\"identity\",\"source-id\":5,\"field-id\":1013}]}],"
    "\"last-partition-id\":1013,\"default-sort-order-id\":0,\"sort-orders\":[{\"order-id\":0,"
    "\"fields\":[]}],"
    "\"properties\":{},\"current-snapshot-id\":-1,\"refs\":{},\"snapshots\":[],\"snapshot-log\":[],"
    "\"metadata-log\":[]}";

#define NPART 14
static char g_dir[256];

static fl_value val(fl_type_id id)
{
    fl_value v;
    memset(&v, 0, sizeof v);
    v.type.id = id;
    return v;
}

static const uint8_t k_uuid[16] = {0xf7, 0x9c, 0x3e, 0x09, 0x67, 0x7c, 0x4b, 0xbd,
                                   0xa4, 0x79, 0x3f, 0x34, 0x9c, 0xb7, 0x85, 0xe7};

/* Partition tuple number k (k = 0 all nulls; NaN double for k = 2). */
static void make_partition(fl_value *p, int k)
{
    static const char *strs[] = {"", "apple", "zebra"};
    p[0] = val(FL_TYPE_INT32), p[0].v.i32 = 3 + k;
    p[1] = val(FL_TYPE_STRING), p[1].v.bytes.ptr = (const uint8_t *)strs[k % 3],
    p[1].v.bytes.len = strlen(strs[k % 3]);
    p[2] = p[1], p[2].v.bytes.len = p[1].v.bytes.len > 4 ? 4 : p[1].v.bytes.len;
    p[3] = val(FL_TYPE_INT32), p[3].v.i32 = 50 + k;
    p[4] = val(FL_TYPE_DATE), p[4].v.i32 = -1 + 100 * k;
    p[5] = val(FL_TYPE_DECIMAL), p[5].type.precision = 9, p[5].type.scale = 2,
    p[5].v.dec = k == 1 ? -500 : 99999999;
    p[6] = val(FL_TYPE_FIXED), p[6].type.fixed_len = 3,
    p[6].v.bytes.ptr = (const uint8_t *)(k == 1 ? "\x00\x01\xff" : "abc"), p[6].v.bytes.len = 3;
    p[7] = val(FL_TYPE_UUID), p[7].type.fixed_len = 16, p[7].v.bytes.ptr = k_uuid,
    p[7].v.bytes.len = 16;
    p[8] = val(FL_TYPE_FLOAT64), p[8].v.f64 = k == 2 ? NAN : -0.5 * k;
    p[9] = val(FL_TYPE_BOOLEAN), p[9].v.b = k == 1;
    p[10] = val(FL_TYPE_TIMESTAMPTZ), p[10].v.i64 = 1700000000000000LL * k;
    p[11] = val(FL_TYPE_BINARY), p[11].v.bytes.ptr = (const uint8_t *)"\x01\x02",
    p[11].v.bytes.len = 2;
    p[12] = val(FL_TYPE_INT32), p[12].v.i32 = 472222 + k;
    p[13] = p[5], p[13].v.dec = 12345;
    if (k == 0)
        for (int i = 0; i < NPART; i++)
            p[i].is_null = true;
}

static fl_ice_column_metrics g_metrics[2];
static int64_t g_splits[2] = {4, 1000};
static int32_t g_eq_ids[1] = {1};

static void make_entry(fl_ice_manifest_entry *e, fl_value *part, int k, fl_ice_entry_status st,
                       int64_t seq, fl_ice_content content)
{
    static char paths[8][64];
    memset(e, 0, sizeof *e);
    e->status = st;
    e->snapshot_id = 77;
    e->sequence_number = e->file_sequence_number = seq;
    fl_ice_data_file *f = &e->file;
    f->content = content;
    snprintf(paths[k], sizeof paths[k], "s3://b/t/data/%05d-%d.parquet", k, (int)content);
    f->file_path = paths[k];
    f->file_format = content == FL_ICE_CONTENT_POSITION_DELETES && k == 6 ? "PUFFIN" : "PARQUET";
    f->npartition = NPART;
    make_partition(part, k % 3);
    f->partition = part;
    f->record_count = 10 + k;
    f->file_size_in_bytes = 1000 + k;
    if (content == FL_ICE_CONTENT_DATA) {
        memset(g_metrics, 0, sizeof g_metrics);
        g_metrics[0] = (fl_ice_column_metrics){.field_id = 1,
                                               .column_size = 40,
                                               .value_count = 10,
                                               .null_value_count = 0,
                                               .nan_value_count = -1,
                                               .has_lower = true,
                                               .lower = (const uint8_t *)"\x01\0\0\0\0\0\0\0",
                                               .lower_len = 8,
                                               .has_upper = true,
                                               .upper = (const uint8_t *)"\x09\0\0\0\0\0\0\0",
                                               .upper_len = 8};
        g_metrics[1] = (fl_ice_column_metrics){.field_id = 8,
                                               .column_size = -1,
                                               .value_count = 10,
                                               .null_value_count = 2,
                                               .nan_value_count = 1};
        f->nmetrics = 2;
        f->metrics = g_metrics;
        f->nsplit_offsets = 2;
        f->split_offsets = g_splits;
        f->has_sort_order_id = true;
        f->sort_order_id = 0;
    }
    if (content == FL_ICE_CONTENT_EQUALITY_DELETES) {
        f->nequality_ids = 1;
        f->equality_ids = g_eq_ids;
    }
    if (content == FL_ICE_CONTENT_POSITION_DELETES) {
        f->referenced_data_file = "s3://b/t/data/00001-0.parquet";
        if (k == 6) { /* a deletion vector */
            f->has_content_offset = true;
            f->content_offset = 4;
            f->content_size_in_bytes = 42;
        }
    }
    if (k == 4) {
        f->key_metadata = (const uint8_t *)"\x00\xaa";
        f->key_metadata_len = 2;
    }
}

static bool values_equal(const fl_value *a, const fl_value *b)
{
    if (a->is_null || b->is_null)
        return a->is_null == b->is_null;
    return fl_type_equal(&a->type, &b->type) && fl_value_compare(a, b) == 0;
}

static void check_same_file(const fl_ice_data_file *want, const fl_ice_data_file *got, int fv)
{
    CHECK_EQ_INT(got->content, want->content);
    CHECK_EQ_STR(got->file_path, want->file_path);
    CHECK_EQ_STR(got->file_format, want->file_format);
    CHECK_EQ_INT(got->spec_id, 1);
    CHECK_EQ_INT(got->npartition, want->npartition);
    for (uint32_t i = 0; i < want->npartition && i < got->npartition; i++) {
        if (!values_equal(&want->partition[i], &got->partition[i]))
            fprintf(stderr, "  partition field %u differs (v%d)\n", i, fv);
        CHECK(values_equal(&want->partition[i], &got->partition[i]));
    }
    CHECK_EQ_INT(got->record_count, want->record_count);
    CHECK_EQ_INT(got->file_size_in_bytes, want->file_size_in_bytes);
    CHECK_EQ_INT(got->nmetrics, want->nmetrics);
    for (uint32_t i = 0; i < want->nmetrics && i < got->nmetrics; i++) {
        const fl_ice_column_metrics *a = &want->metrics[i], *b = &got->metrics[i];
        CHECK_EQ_INT(a->field_id, b->field_id);
        CHECK_EQ_INT(a->column_size, b->column_size);
        CHECK_EQ_INT(a->value_count, b->value_count);
        CHECK_EQ_INT(a->null_value_count, b->null_value_count);
        CHECK_EQ_INT(a->nan_value_count, b->nan_value_count);
        CHECK_EQ_INT(a->has_lower, b->has_lower);
        CHECK_EQ_INT(a->has_upper, b->has_upper);
        CHECK(!a->has_lower ||
              (a->lower_len == b->lower_len && !memcmp(a->lower, b->lower, a->lower_len)));
        CHECK(!a->has_upper ||
              (a->upper_len == b->upper_len && !memcmp(a->upper, b->upper, a->upper_len)));
    }
    CHECK_EQ_INT(got->key_metadata_len, want->key_metadata_len);
    CHECK_EQ_INT(got->key_metadata != NULL, want->key_metadata != NULL);
    CHECK_EQ_INT(got->nsplit_offsets, want->nsplit_offsets);
    for (uint32_t i = 0; i < want->nsplit_offsets && i < got->nsplit_offsets; i++)
        CHECK_EQ_INT(got->split_offsets[i], want->split_offsets[i]);
    CHECK_EQ_INT(got->has_sort_order_id, want->has_sort_order_id);
    if (fv >= 2) {
        CHECK_EQ_INT(got->nequality_ids, want->nequality_ids);
        CHECK_EQ_INT(got->referenced_data_file != NULL, want->referenced_data_file != NULL);
    }
    if (fv >= 3) {
        CHECK_EQ_INT(got->has_content_offset, want->has_content_offset);
        CHECK_EQ_INT(got->content_offset, want->content_offset);
        CHECK_EQ_INT(got->content_size_in_bytes, want->content_size_in_bytes);
    }
}

/* Checks the written manifest's Avro schema and header. */
static void check_avro_shape(const char *path, int fv)
{
    fl_error err;
    fl_fileio *io = fl_fileio_local();
    fl_file *f = NULL;
    fl_avro_reader *r = NULL;
    CHECK_OK(fl_fileio_open(io, path, &f, &err), &err);
    fl_fileio_destroy(io);
    if (!f)
        return;
    CHECK_OK(fl_avro_reader_open(f, NULL, &r, &err), &err);
    if (r) {
        const fl_avro_schema *s = fl_avro_reader_schema(r);
        CHECK_EQ_STR(s->name, "manifest_entry");
        CHECK_EQ_STR(fl_avro_reader_codec(r), "deflate");
        const fl_avro_schema *df = s->fields[fv == 1 ? 2 : 4].type;
        CHECK_EQ_STR(df->name, "r2");
        CHECK_EQ_INT(s->fields[fv == 1 ? 2 : 4].field_id, 2);
        const fl_avro_schema *part = NULL;
        for (uint32_t i = 0; i < df->nfields; i++)
            if (df->fields[i].field_id == 102)
                part = df->fields[i].type;
        CHECK(part && !strcmp(part->name, "r102") && part->nfields == NPART);
        if (part && part->nfields == NPART) {
            CHECK_EQ_STR(part->fields[11].name, "weird_x20name_x21");
            CHECK_EQ_INT(part->fields[11].field_id, 1011);
            const fl_avro_schema *dec = part->fields[5].type->branches[1];
            CHECK_EQ_INT(dec->type, FL_AVRO_FIXED);
            CHECK_EQ_INT(dec->size, 4);
            CHECK_EQ_INT(dec->logical, FL_AVRO_LOGICAL_DECIMAL);
            CHECK(part->fields[13].type->branches[1] == dec); /* decimal_9_2 reused by name */
            CHECK_EQ_INT(part->fields[4].type->branches[1]->logical, FL_AVRO_LOGICAL_DATE);
        }
        const char *keys[] = {"schema", "partition-spec", "partition-spec-id", "format-version"};
        for (int i = 0; i < 4; i++)
            CHECK(fl_avro_reader_meta_find(r, keys[i]) != NULL);
        const fl_avro_meta *fvm = fl_avro_reader_meta_find(r, "format-version");
        CHECK(fvm && atoi((const char *)fvm->value) == fv);
        CHECK_EQ_INT(fl_avro_reader_meta_find(r, "content") != NULL, fv >= 2);
        const fl_avro_meta *ps = fl_avro_reader_meta_find(r, "partition-spec");
        CHECK(ps && ps->value[0] == '[' && strstr((const char *)ps->value, "\"field-id\":1013"));
    }
    fl_avro_reader_close(r);
    fl_file_close(f);
}

static void roundtrip(int fv)
{
    fl_error err;
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_ice_metadata m;
    CHECK_OK(fl_ice_metadata_parse((const uint8_t *)k_meta, strlen(k_meta), "meta", &a, &m, &err),
             &err);
    fl_fileio *io = fl_fileio_local();
    char mpath[512], dpath[512], lpath[512];
    snprintf(mpath, sizeof mpath, "%s/v%d-m0.avro", g_dir, fv);
    snprintf(dpath, sizeof dpath, "%s/v%d-m1.avro", g_dir, fv);
    snprintf(lpath, sizeof lpath, "%s/snap-v%d.avro", g_dir, fv);
    const int64_t snap = 5555;

    /* data manifest: ADDED (new), EXISTING (seq 3), DELETED (seq 2), ADDED all-null */
    fl_value parts[4][NPART];
    fl_ice_manifest_entry es[4];
    make_entry(&es[0], parts[0], 1, FL_ICE_STATUS_ADDED, FL_ICE_UNASSIGNED_SEQ,
               FL_ICE_CONTENT_DATA);
    fl_ice_column_metrics m0[2];
    memcpy(m0, g_metrics, sizeof m0);
    es[0].file.metrics = m0;
    make_entry(&es[1], parts[1], 2, FL_ICE_STATUS_EXISTING, 3, FL_ICE_CONTENT_DATA);
    fl_ice_column_metrics m1[2];
    memcpy(m1, g_metrics, sizeof m1);
    es[1].file.metrics = m1;
    make_entry(&es[2], parts[2], 3, FL_ICE_STATUS_DELETED, 2, FL_ICE_CONTENT_DATA);
    fl_ice_column_metrics m2[2];
    memcpy(m2, g_metrics, sizeof m2);
    es[2].file.metrics = m2;
    make_entry(&es[3], parts[3], 4, FL_ICE_STATUS_ADDED, FL_ICE_UNASSIGNED_SEQ,
               FL_ICE_CONTENT_DATA);
    es[3].file.metrics = m2;
    if (fv >= 3)
        es[1].file.has_first_row_id = true, es[1].file.first_row_id = 7; /* already assigned */

    fl_ice_manifest_writer *w = NULL;
    CHECK_OK(
        fl_ice_manifest_writer_open(io, mpath, &m, 1, FL_ICE_MANIFEST_DATA, fv, snap, &w, &err),
        &err);
    if (!w)
        goto out;
    for (int i = 0; i < 4; i++)
        CHECK_OK(fl_ice_manifest_writer_add(w, &es[i], &err), &err);
    /* rejected entries leave the writer usable */
    fl_ice_manifest_entry bad = es[0];
    bad.file.npartition = 2;
    CHECK(fl_ice_manifest_writer_add(w, &bad, &err) == FL_EINVAL);
    CHECK(strstr(err.msg, "partition tuple has 2 values") != NULL);
    bad = es[0];
    bad.file.content = FL_ICE_CONTENT_EQUALITY_DELETES;
    CHECK(fl_ice_manifest_writer_add(w, &bad, &err) == FL_EINVAL);
    if (fv >= 2) {
        bad = es[1];
        bad.sequence_number = FL_ICE_UNASSIGNED_SEQ;
        CHECK(fl_ice_manifest_writer_add(w, &bad, &err) == FL_EINVAL);
        CHECK(strstr(err.msg, "EXISTING entries need explicit sequence numbers") != NULL);
    }
    fl_ice_manifest_file mfs[2];
    CHECK_OK(fl_ice_manifest_writer_close(w, &a, &mfs[0], &err), &err);
    CHECK_EQ_INT(mfs[0].added_files_count, 2);
    CHECK_EQ_INT(mfs[0].existing_files_count, 1);
    CHECK_EQ_INT(mfs[0].deleted_files_count, 1);
    CHECK_EQ_INT(mfs[0].added_rows_count, 11 + 14);
    CHECK_EQ_INT(mfs[0].existing_rows_count, 12);
    CHECK_EQ_INT(mfs[0].deleted_rows_count, 13);
    CHECK_EQ_INT(mfs[0].sequence_number, FL_ICE_UNASSIGNED_SEQ);
    CHECK_EQ_INT(mfs[0].min_sequence_number, 3); /* EXISTING; DELETED excluded */
    CHECK_EQ_INT(mfs[0].added_snapshot_id, snap);
    CHECK_EQ_INT(mfs[0].npartitions, NPART);
    struct stat st;
    CHECK(stat(mpath, &st) == 0 && st.st_size == mfs[0].manifest_length);
    /* summaries: nulls everywhere (entry k%3 == 0), NaN in f, bounds */
    if (mfs[0].npartitions == NPART) {
        const fl_ice_field_summary *s = mfs[0].partitions;
        CHECK(s[0].contains_null && s[0].has_lower && s[0].lower_len == 4);
        CHECK_EQ_INT(s[0].lower[0], 4); /* bucket values 4, 5, 6 (k = 1, 2) */
        CHECK_EQ_INT(s[0].upper[0], 5);
        CHECK(s[8].contains_nan && s[8].has_lower);
        CHECK(s[1].lower_len == 5 && !memcmp(s[1].lower, "apple", 5));
        CHECK(s[1].upper_len == 5 && !memcmp(s[1].upper, "zebra", 5));
        CHECK(s[5].lower_len == 2 && s[5].lower[0] == 0xfe && s[5].lower[1] == 0x0c); /* -5.00 */
        CHECK(s[9].lower_len == 1 && s[9].lower[0] == 0 && s[9].upper[0] == 1);
    }
    uint32_t nmf = 1;
    if (fv >= 2) { /* delete manifest: position, equality, (v3) DV */
        fl_value dparts[3][NPART];
        fl_ice_manifest_entry ds[3];
        make_entry(&ds[0], dparts[0], 5, FL_ICE_STATUS_ADDED, FL_ICE_UNASSIGNED_SEQ,
                   FL_ICE_CONTENT_POSITION_DELETES);
        make_entry(&ds[1], dparts[1], 7, FL_ICE_STATUS_ADDED, FL_ICE_UNASSIGNED_SEQ,
                   FL_ICE_CONTENT_EQUALITY_DELETES);
        make_entry(&ds[2], dparts[2], 6, FL_ICE_STATUS_ADDED, FL_ICE_UNASSIGNED_SEQ,
                   FL_ICE_CONTENT_POSITION_DELETES);
        CHECK_OK(fl_ice_manifest_writer_open(io, dpath, &m, 1, FL_ICE_MANIFEST_DELETES, fv, snap,
                                             &w, &err),
                 &err);
        if (w) {
            for (int i = 0; i < (fv >= 3 ? 3 : 2); i++)
                CHECK_OK(fl_ice_manifest_writer_add(w, &ds[i], &err), &err);
            CHECK_OK(fl_ice_manifest_writer_close(w, &a, &mfs[1], &err), &err);
            CHECK_EQ_INT(mfs[1].content, FL_ICE_MANIFEST_DELETES);
            CHECK_EQ_INT(mfs[1].min_sequence_number, FL_ICE_UNASSIGNED_SEQ);
            nmf = 2;
        }
        fl_ice_manifest_file rd;
        memset(&rd, 0, sizeof rd);
        rd = mfs[1];
        rd.manifest_path = dpath;
        rd.sequence_number = 10;
        fl_ice_manifest_entry *got;
        uint32_t n;
        CHECK_OK(fl_ice_manifest_read(io, &m, &rd, &a, &got, &n, &err), &err);
        CHECK_EQ_INT(n, fv >= 3 ? 3 : 2);
        for (uint32_t i = 0; i < n; i++) {
            check_same_file(&ds[i].file, &got[i].file, fv);
            CHECK_EQ_INT(got[i].sequence_number, 10);
            CHECK(!got[i].file.has_first_row_id);
        }
    }

    /* the list */
    fl_ice_manifest_list_info info = {.format_version = fv,
                                      .snapshot_id = snap,
                                      .has_parent = true,
                                      .parent_snapshot_id = 77,
                                      .sequence_number = 10,
                                      .first_row_id = 100};
    int64_t next = -1;
    CHECK_OK(fl_ice_manifest_list_write(io, lpath, &info, mfs, nmf, &next, &err), &err);
    if (fv >= 3)
        CHECK_EQ_INT(next, 100 + 25 + 12);
    fl_ice_manifest_file *lst = NULL;
    uint32_t nl = 0;
    CHECK_OK(fl_ice_manifest_list_read(io, lpath, fv, &a, &lst, &nl, &err), &err);
    CHECK_EQ_INT(nl, nmf);
    if (nl < 1)
        goto out;
    CHECK_EQ_STR(lst[0].manifest_path, mpath);
    CHECK_EQ_INT(lst[0].manifest_length, mfs[0].manifest_length);
    CHECK_EQ_INT(lst[0].partition_spec_id, 1);
    CHECK_EQ_INT(lst[0].added_snapshot_id, snap);
    CHECK_EQ_INT(lst[0].sequence_number, fv >= 2 ? 10 : 0);
    CHECK_EQ_INT(lst[0].min_sequence_number, fv >= 2 ? 3 : 0);
    CHECK_EQ_INT(lst[0].added_files_count, 2);
    CHECK_EQ_INT(lst[0].existing_rows_count, 12);
    CHECK_EQ_INT(lst[0].deleted_rows_count, 13);
    CHECK_EQ_INT(lst[0].npartitions, NPART);
    for (uint32_t i = 0; i < lst[0].npartitions && i < NPART; i++) {
        const fl_ice_field_summary *x = &lst[0].partitions[i], *y = &mfs[0].partitions[i];
        CHECK_EQ_INT(x->contains_null, y->contains_null);
        CHECK_EQ_INT(x->contains_nan, y->contains_nan);
        CHECK(x->lower_len == y->lower_len && !memcmp(x->lower, y->lower, x->lower_len));
        CHECK(x->upper_len == y->upper_len && !memcmp(x->upper, y->upper, x->upper_len));
    }
    CHECK_EQ_INT(lst[0].has_first_row_id, fv >= 3);
    if (fv >= 3) {
        CHECK_EQ_INT(lst[0].first_row_id, 100);
        CHECK(!lst[1].has_first_row_id); /* delete manifest */
        CHECK_EQ_INT(lst[1].sequence_number, 10);
        CHECK_EQ_INT(lst[1].min_sequence_number, 10);
    }

    /* the data manifest through the list entry: inheritance */
    fl_ice_manifest_entry *got;
    uint32_t n;
    CHECK_OK(fl_ice_manifest_read(io, &m, &lst[0], &a, &got, &n, &err), &err);
    CHECK_EQ_INT(n, 4);
    for (uint32_t i = 0; i < n && i < 4; i++) {
        check_same_file(&es[i].file, &got[i].file, fv);
        CHECK_EQ_INT(got[i].status, es[i].status);
        int64_t want_snap = es[i].status == FL_ICE_STATUS_EXISTING ? 77 : snap;
        CHECK_EQ_INT(got[i].snapshot_id, want_snap);
        int64_t want_seq = fv == 1                                          ? 0
                           : es[i].sequence_number == FL_ICE_UNASSIGNED_SEQ ? 10
                                                                            : es[i].sequence_number;
        CHECK_EQ_INT(got[i].sequence_number, want_seq);
        CHECK_EQ_INT(got[i].file_sequence_number, want_seq);
    }
    if (fv >= 3 &&
        n == 4) { /* first_row_id: ADDED 100, EXISTING keeps 7, DELETED none, ADDED 100+11 */
        CHECK(got[0].file.has_first_row_id && got[0].file.first_row_id == 100);
        CHECK(got[1].file.has_first_row_id && got[1].file.first_row_id == 7);
        CHECK(!got[2].file.has_first_row_id);
        CHECK(got[3].file.has_first_row_id && got[3].file.first_row_id == 111);
    }
    /* typed reading without metadata gives the same values (types from Avro) */
    fl_ice_manifest_entry *got2;
    CHECK_OK(fl_ice_manifest_read(io, NULL, &lst[0], &a, &got2, &n, &err), &err);
    for (uint32_t i = 0; i < n && i < 4; i++)
        for (int k = 0; k < NPART; k++) {
            fl_value x = got2[i].file.partition[k], y = got[i].file.partition[k];
            if (k == 0 || k == 3 || k == 12) { /* int results are plain ints in Avro */
                CHECK(values_equal(&x, &y));
            } else {
                CHECK(values_equal(&x, &y));
            }
        }
    check_avro_shape(mpath, fv);
    /* the list cannot be overwritten (FileIO create without overwrite) */
    CHECK(fl_ice_manifest_list_write(io, lpath, &info, mfs, nmf, NULL, &err) == FL_EEXIST ||
          strstr(err.msg, "exist") != NULL);
out:
    fl_fileio_destroy(io);
    fl_arena_free(&a);
}

static void test_v1(void)
{
    roundtrip(1);
}
static void test_v2(void)
{
    roundtrip(2);
}
static void test_v3(void)
{
    roundtrip(3);
}

/* List-writer rules: unassigned sequence numbers only for this snapshot's
 * manifests, counts required in v2+. */
static void test_list_rules(void)
{
    fl_error err;
    fl_fileio *io = fl_fileio_local();
    char p[512];
    snprintf(p, sizeof p, "%s/rules.avro", g_dir);
    fl_ice_manifest_file mf;
    memset(&mf, 0, sizeof mf);
    mf.manifest_path = "x-m0.avro";
    mf.sequence_number = mf.min_sequence_number = FL_ICE_UNASSIGNED_SEQ;
    mf.added_snapshot_id = 1;
    fl_ice_manifest_list_info info = {.format_version = 2, .snapshot_id = 2, .sequence_number = 5};
    CHECK(fl_ice_manifest_list_write(io, p, &info, &mf, 1, NULL, &err) == FL_EINVAL);
    CHECK(strstr(err.msg, "unassigned sequence number") != NULL);
    mf.added_snapshot_id = 2;
    mf.added_files_count = -1;
    CHECK(fl_ice_manifest_list_write(io, p, &info, &mf, 1, NULL, &err) == FL_EINVAL);
    CHECK(strstr(err.msg, "unknown file or row counts") != NULL);
    CHECK(access(p, F_OK) != 0); /* nothing left behind */
    info.format_version = 1;     /* v1 keeps unknown counts as null */
    CHECK_OK(fl_ice_manifest_list_write(io, p, &info, &mf, 1, NULL, &err), &err);
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_ice_manifest_file *got;
    uint32_t n;
    CHECK_OK(fl_ice_manifest_list_read(io, p, 1, &a, &got, &n, &err), &err);
    CHECK(n == 1 && got[0].added_files_count == -1 && got[0].existing_files_count == 0);
    fl_arena_free(&a);
    fl_fileio_destroy(io);
}

/* v1 snapshots listing manifests inline */
static void test_inline_manifests(void)
{
    fl_error err;
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_ice_metadata m;
    CHECK_OK(fl_ice_metadata_parse((const uint8_t *)k_meta, strlen(k_meta), "meta", &a, &m, &err),
             &err);
    fl_fileio *io = fl_fileio_local();
    char path[512];
    snprintf(path, sizeof path, "%s/v1-inline-m0.avro", g_dir);
    fl_ice_manifest_writer *w = NULL;
    CHECK_OK(fl_ice_manifest_writer_open(io, path, &m, 1, FL_ICE_MANIFEST_DATA, 1, 42, &w, &err),
             &err);
    fl_value parts[NPART];
    fl_ice_manifest_entry e;
    make_entry(&e, parts, 1, FL_ICE_STATUS_ADDED, FL_ICE_UNASSIGNED_SEQ, FL_ICE_CONTENT_DATA);
    if (w) {
        CHECK_OK(fl_ice_manifest_writer_add(w, &e, &err), &err);
        fl_ice_manifest_file mf;
        CHECK_OK(fl_ice_manifest_writer_close(w, &a, &mf, &err), &err);
    }
    const char *paths[1] = {path};
    fl_ice_snapshot s;
    memset(&s, 0, sizeof s);
    s.snapshot_id = 42;
    s.has_manifests = true;
    s.nmanifests = 1;
    s.manifests = paths;
    fl_ice_manifest_file *mfs;
    uint32_t n;
    CHECK_OK(fl_ice_snapshot_manifests(io, &m, &s, &a, &mfs, &n, &err), &err);
    CHECK_EQ_INT(n, 1);
    if (n == 1) {
        CHECK_EQ_INT(mfs[0].partition_spec_id, 1);
        CHECK_EQ_INT(mfs[0].added_files_count, 1);
        CHECK_EQ_INT(mfs[0].added_rows_count, 11);
        fl_ice_manifest_entry *es;
        uint32_t ne;
        CHECK_OK(fl_ice_manifest_read(io, &m, &mfs[0], &a, &es, &ne, &err), &err);
        CHECK(ne == 1 && es[0].snapshot_id == 42 && es[0].sequence_number == 0);
    }
    fl_fileio_destroy(io);
    fl_arena_free(&a);
}

int main(void)
{
    /* FLOE_MANIFEST_OUT=DIR keeps the written files there (the interop test
     * reads them with avsc and python3-avro) */
    const char *keep = getenv("FLOE_MANIFEST_OUT");
    if (keep && *keep) {
        snprintf(g_dir, sizeof g_dir, "%s", keep);
        if (mkdir(g_dir, 0755) != 0 && errno != EEXIST) {
            perror(g_dir);
            return 1;
        }
    } else {
        if (!ft_tmpdir(g_dir, sizeof g_dir, "floe-manifest")) {
            perror("mkdtemp");
            return 1;
        }
    }
    TEST_RUN(test_v1);
    TEST_RUN(test_v2);
    TEST_RUN(test_v3);
    TEST_RUN(test_list_rules);
    TEST_RUN(test_inline_manifests);
    if (keep && *keep)
        fprintf(stderr, "kept %s\n", g_dir);
    else
        ft_rmtree(g_dir);
    return TEST_EXIT();
}
