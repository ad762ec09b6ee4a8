/*
 * test_orc_apache.c - reads example files of apache/orc (examples/, Apache
 * License 2.0; see tests/orc/data/apache-orc/README.md): files written by
 * the Java and C++ writers of ORC 0.11, 0.12 and 1.9999 (UNSTABLE-PRE-2.0),
 * RLE v1 and v2, dictionaries, a bare (non-struct) root, a PostScript
 * without magic, and the corrupt ones, which must fail with a message
 * naming the file. Expected values come from examples/expected/ (gzipped JSON) and
 * pyarrow's reading of the same files.
 */
#include "orc/orc_test_util.h"

static bool open_read(const char *name, ot_file *f, ot_table *t)
{
    fl_error e = {0};
    char n[256];
    snprintf(n, sizeof n, "apache-orc/%s", name);
    memset(t, 0, sizeof *t);
    CHECK_OK(ot_open(f, n, &e), &e);
    if (!f->r)
        return false;
    CHECK_OK(ot_read(f, NULL, t, &e), &e);
    return true;
}

static void done(ot_file *f, ot_table *t)
{
    ot_table_free(t);
    ot_close(f);
}

static double f64_at(const fl_vector *v, uint32_t r)
{
    double d;
    memcpy(&d, v->data + (size_t)r * 8, 8);
    return d;
}
static float f32_at(const fl_vector *v, uint32_t r)
{
    float d;
    memcpy(&d, v->data + (size_t)r * 4, 4);
    return d;
}
#define STR_EQ(v, r, s) ot_str_eq(v, r, s, strlen(s))

static void test_test1(void)
{
    ot_file f;
    ot_table t;
    if (!open_read("TestOrcFile.test1.orc", &f, &t))
        return;
    CHECK_EQ_INT(t.nrows, 2);
    CHECK_EQ_INT(t.ncols, 12);
    if (t.nrows != 2 || t.ncols != 12)
        return done(&f, &t);
    CHECK_EQ_INT(t.cols[0].data[0], 0);
    CHECK_EQ_INT(t.cols[0].data[1], 1);
    CHECK_EQ_INT(ot_i32(&t.cols[1], 1), 100);
    CHECK_EQ_INT(ot_i32(&t.cols[2], 0), 1024);
    CHECK_EQ_INT(ot_i32(&t.cols[3], 1), 65536);
    CHECK_EQ_INT(ot_i64(&t.cols[4], 0), INT64_MAX);
    CHECK(f32_at(&t.cols[5], 1) == 2.0f);
    CHECK(f64_at(&t.cols[6], 0) == -15.0);
    CHECK(ot_str_eq(&t.cols[7], 0, "\0\1\2\3\4", 5));
    CHECK(ot_str_eq(&t.cols[7], 1, "", 0));
    CHECK(STR_EQ(&t.cols[8], 0, "hi"));
    CHECK(STR_EQ(&t.cols[8], 1, "bye"));
    /* middle: struct<list: list<struct<int1, string1>>>, [{1,bye},{2,sigh}] in both rows */
    const fl_vector *ml = &t.cols[9].children[0];
    CHECK_EQ_INT(ml->offsets[2], 4);
    CHECK(STR_EQ(&ml->children[0].children[1], 3, "sigh"));
    /* list: row 1 = [{100000000,cat},{-100000,in},{1234,hat}] */
    const fl_vector *l = &t.cols[10];
    CHECK_EQ_INT(l->offsets[1], 2);
    CHECK_EQ_INT(l->offsets[2], 5);
    CHECK_EQ_INT(ot_i32(&l->children[0].children[0], 3), -100000);
    CHECK(STR_EQ(&l->children[0].children[1], 4, "hat"));
    /* map<string, struct>: row 0 empty, row 1 {chani: {5, chani}, mauddib: {1, mauddib}} */
    const fl_vector *m = &t.cols[11];
    CHECK(m->type->id == FL_TYPE_MAP);
    CHECK_EQ_INT(m->offsets[1], 0);
    CHECK_EQ_INT(m->offsets[2], 2);
    CHECK(STR_EQ(&m->children[0], 1, "mauddib"));
    CHECK_EQ_INT(ot_i32(&m->children[1].children[0], 0), 5);
    done(&f, &t);
}

static void test_date1900(void)
{
    ot_file f;
    ot_table t;
    if (!open_read("TestOrcFile.testDate1900.orc", &f, &t))
        return;
    CHECK_EQ_INT(t.nrows, 70000);
    CHECK_EQ_INT(fl_orc_num_stripes(f.r), 8);
    if (t.nrows == 70000) {
        /* 1900-05-05 12:34:56.1, 1900-12-25; last 1969-05-05 12:34:56.1999, 1969-12-25 */
        CHECK_EQ_INT(ot_i64(&t.cols[0], 0), -2198229903900000000LL);
        CHECK_EQ_INT(ot_i64(&t.cols[0], 1), -2198229903899900000LL);
        CHECK_EQ_INT(ot_i32(&t.cols[1], 0), -25209);
        /* 1969-05-05 is summer time in the writer's America/Los_Angeles: the writer zone
         * applies (the seconds count from 2015-01-01 00:00 PST) */
        CHECK_EQ_INT(ot_i64(&t.cols[0], 69999), -20777103800100000LL);
        CHECK_EQ_INT(ot_i32(&t.cols[1], 69999), -7);
    }
    done(&f, &t);
}

static void test_timestamp_bare_root(void)
{
    ot_file f;
    ot_table t;
    if (!open_read("TestOrcFile.testTimestamp.orc", &f, &t))
        return;
    CHECK_EQ_INT(t.ncols, 1);
    CHECK_EQ_STR(t.schema.fields[0].name, "_col0");
    CHECK_EQ_INT(t.nrows, 12);
    if (t.nrows == 12) {
        CHECK_EQ_INT(ot_i64(&t.cols[0], 0), 2114380800000999000LL); /* 2037-01-01 00:00:00.000999 */
        CHECK_EQ_INT(ot_i64(&t.cols[0], 1),
                     1041379200000000222LL); /* 2003-01-01 00:00:00.000000222 */
        CHECK_EQ_INT(ot_i64(&t.cols[0], 2),
                     915148800999999999LL); /* 1999-01-01 00:00:00.999999999 */
    }
    done(&f, &t);
    if (!open_read("TestOrcFile.testWithoutCompressionBlockSize.orc", &f, &t))
        return;
    CHECK_EQ_INT(t.nrows, 100); /* the footer has no numberOfRows: counted from the stripes */
    for (uint32_t i = 0; i < t.nrows; i++)
        CHECK_EQ_INT(ot_i64(&t.cols[0], i), i + 1);
    done(&f, &t);
}

static void test_decimals(void)
{
    ot_file f;
    ot_table t;
    if (!open_read("decimal.orc", &f, &t))
        return;
    CHECK_EQ_INT(t.nrows, 6000);
    CHECK(t.cols[0].type->precision == 10 && t.cols[0].type->scale == 5);
    if (t.nrows == 6000) {
        CHECK(ot_i128(&t.cols[0], 0) == -100050000); /* -1000.50000 */
        CHECK(ot_i128(&t.cols[0], 1) == -99960000);  /* -999.60000 */
    }
    done(&f, &t);
    /* version 1.9999: decimal(p <= 18) as RLE v2 longs, Java and C++ writers */
    if (!open_read("decimal64_v2.orc", &f, &t))
        return;
    CHECK_EQ_INT(t.nrows, 10);
    if (t.nrows == 10 && t.ncols == 5) {
        CHECK_EQ_INT(ot_i64(&t.cols[0], 0), 17292380420LL);
        CHECK(ot_i128(&t.cols[1], 0) == 24);      /* decimal(12,0) 24 */
        CHECK(ot_i128(&t.cols[2], 0) == 3616416); /* decimal(20,2) 36164.16: varints */
        CHECK(ot_i128(&t.cols[3], 1) == 8);       /* decimal(12,2) 0.08 */
        CHECK(ot_i128(&t.cols[4], 0) == 1);       /* decimal(2,2) 0.01 */
    }
    done(&f, &t);
    if (!open_read("decimal64_v2_cplusplus.orc", &f, &t))
        return;
    if (t.nrows == 10 && t.ncols == 5) {
        CHECK(ot_i128(&t.cols[1], 0) == 16416); /* decimal(10,2) 164.16 */
        CHECK(ot_i128(&t.cols[1], 1) == 32832);
        CHECK(ot_i128(&t.cols[4], 1) == 9);
    }
    done(&f, &t);
}

static void test_over1k_bloom(void)
{
    ot_file f;
    ot_table t;
    if (!open_read("over1k_bloom.orc", &f, &t))
        return;
    CHECK_EQ_INT(t.nrows, 2098);
    CHECK_EQ_INT(t.ncols, 11);
    if (t.nrows == 2098 && t.ncols == 11) {
        CHECK_EQ_INT(ot_i32(&t.cols[0], 0), 124);
        CHECK_EQ_INT(ot_i32(&t.cols[1], 0), 336);
        CHECK_EQ_INT(ot_i32(&t.cols[2], 0), 65664);
        CHECK_EQ_INT(ot_i64(&t.cols[3], 0), 4294967435LL);
        CHECK(f32_at(&t.cols[4], 0) == 74.72f);
        CHECK(f64_at(&t.cols[5], 0) == 42.47);
        CHECK_EQ_INT(t.cols[6].data[0], 1);
        CHECK(STR_EQ(&t.cols[7], 0, "bob davidson"));
        CHECK_EQ_INT(ot_i64(&t.cols[8], 0), 1362129118703302000LL); /* 2013-03-01 09:11:58.703302 */
        CHECK(ot_i128(&t.cols[9], 0) == 4540);
        CHECK(STR_EQ(&t.cols[10], 0, "\1yard duty\2"));
        CHECK_EQ_INT(ot_i32(&t.cols[0], 2097), -100);
        CHECK_EQ_INT(ot_i64(&t.cols[3], 2097), -1000000);
        CHECK(!ot_valid(&t.cols[7], 2097) && !ot_valid(&t.cols[8], 2097));
        CHECK(!ot_valid(&t.cols[9], 2097) && !ot_valid(&t.cols[10], 2097));
    }
    done(&f, &t);
}

static void test_demo12(void)
{
    ot_file f;
    ot_table t;
    if (!open_read("demo-12-zlib.orc", &f, &t))
        return;
    CHECK_EQ_INT(t.nrows, 1920800);
    if (t.nrows == 1920800 && t.ncols == 9) {
        CHECK_EQ_INT(ot_i32(&t.cols[0], 0), 1);
        CHECK(STR_EQ(&t.cols[3], 0, "Primary"));
        CHECK_EQ_INT(ot_i32(&t.cols[4], 0), 500);
        CHECK_EQ_INT(ot_i32(&t.cols[0], 1920799), 1920800);
        CHECK(STR_EQ(&t.cols[1], 1920799, "F"));
        CHECK(STR_EQ(&t.cols[5], 1920799, "Unknown"));
        CHECK_EQ_INT(ot_i32(&t.cols[8], 1920799), 6);
        for (uint32_t i = 0; i < t.nrows; i += 9973)
            CHECK_EQ_INT(ot_i32(&t.cols[0], i), i + 1);
    }
    done(&f, &t);
}

static void test_iceberg_ids(void)
{
    ot_file f;
    ot_table t;
    if (!open_read("complextypes_iceberg.orc", &f, &t))
        return;
    const fl_schema *s = fl_orc_schema(f.r);
    CHECK_EQ_INT(t.nrows, 1);
    CHECK(s->nfields >= 2);
    if (s->nfields >= 2 && t.nrows == 1) {
        CHECK_EQ_STR(s->fields[0].name, "id");
        CHECK_EQ_INT(s->fields[0].field_id, 1);
        CHECK_EQ_INT(s->fields[1].field_id, 2);
        CHECK_EQ_INT(s->fields[1].type.children[0].field_id, 7);
        CHECK_EQ_INT(ot_i64(&t.cols[0], 0), 8);
        CHECK_EQ_INT(t.cols[1].offsets[1], 1);
        CHECK_EQ_INT(ot_i32(&t.cols[1].children[0], 0), -1);
    }
    done(&f, &t);
}

static void test_misc(void)
{
    ot_file f;
    ot_table t;
    if (open_read("orc_no_format.orc", &f, &t)) { /* 0.11 PostScript without magic */
        CHECK_EQ_INT(t.nrows, 5);
        if (t.nrows == 5 && t.ncols == 3) {
            CHECK(STR_EQ(&t.cols[0].children[0], 0, "Java/C++/Linux,4306:Bob/4307:Jack,Bob/90"));
            CHECK(!ot_valid(&t.cols[1], 0) && !ot_valid(&t.cols[2], 0));
        }
        done(&f, &t);
    }
    if (open_read("TestOrcFile.emptyFile.orc", &f, &t)) {
        CHECK_EQ_INT(t.nrows, 0);
        CHECK_EQ_INT(t.ncols, 12);
        done(&f, &t);
    }
    if (open_read("TestOrcFile.testStripeLevelStats.orc", &f, &t)) {
        CHECK_EQ_INT(t.nrows, 11000);
        CHECK_EQ_INT(fl_orc_num_stripes(f.r), 3);
        const fl_orc_stats *st = fl_orc_column_stats(f.r, 0, 1);
        CHECK(st && st->has_int);
        if (t.nrows == 11000) {
            CHECK_EQ_INT(ot_i32(&t.cols[0], 0), 1);
            CHECK(STR_EQ(&t.cols[1], 10999, "three"));
        }
        done(&f, &t);
    }
    static const char *const more[] = {"orc_split_elim_new.orc",
                                       "orc_split_elim_cpp.orc",
                                       "orc_index_int_string.orc",
                                       "TestOrcFile.testPredicatePushdown.orc",
                                       "TestOrcFile.testMemoryManagementV12.orc",
                                       "TestOrcFile.testStringAndBinaryStatistics.orc",
                                       "TestOrcFile.testSargSkipPickupGroupWithoutIndexJava.orc"};
    static const uint64_t rows[] = {25000, 25000, 6000, 3500, 2500, 4, 10000};
    for (size_t i = 0; i < sizeof more / sizeof *more; i++)
        if (open_read(more[i], &f, &t)) {
            CHECK_EQ_INT(t.nrows, rows[i]);
            CHECK_EQ_INT(fl_orc_num_rows(f.r), rows[i]);
            done(&f, &t);
        }
}

/* Unions are refused; corrupt files fail with FL_ECORRUPT naming the file. */
static void test_refused(void)
{
    static const char *const bad[] = {"TestOrcFile.testUnionAndTimestamp.orc",
                                      "corrupt_stripe_footer_bad_column_encodings.orc",
                                      "corrupt_missing_length_stream_in_string_dict.orc",
                                      "corrupt_negative_dict_entry_lengths.orc"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        ot_file f;
        ot_table t = {0};
        fl_error e = {0};
        char n[256];
        snprintf(n, sizeof n, "apache-orc/%s", bad[i]);
        fl_status rc = ot_open(&f, n, &e);
        if (rc == FL_OK)
            rc = ot_read(&f, NULL, &t, &e);
        CHECK(rc == (i == 0 ? FL_EUNSUPPORTED : FL_ECORRUPT));
        CHECK(strstr(e.msg, bad[i]) != NULL);
        fprintf(stderr, "  %s: %s\n", bad[i], e.msg);
        done(&f, &t);
    }
}

int main(void)
{
    TEST_RUN(test_test1);
    TEST_RUN(test_date1900);
    TEST_RUN(test_timestamp_bare_root);
    TEST_RUN(test_decimals);
    TEST_RUN(test_over1k_bloom);
    TEST_RUN(test_demo12);
    TEST_RUN(test_iceberg_ids);
    TEST_RUN(test_misc);
    TEST_RUN(test_refused);
    return TEST_EXIT();
}
