/*
 * test_read_values.c - known values of the parquet-testing fixtures: flat
 * types, INT96, delta encodings against their expected CSVs, byte stream
 * split twins, FLOAT16, nested lists/maps/structs with every null/empty
 * combination, v2 empty pages, dictionary_page_offset 0, page CRCs (valid and
 * corrupted in memory), LZ4 framings.
 * Expected values were taken from the fixture README and cross-checked with
 * DuckDB / arrow-rs (the shared oracle).
 */
#include "floe/parquet_meta.h"
#include "floe_test.h"
#include "parquet/test_read_util.h"

#define FIX(rel)                                                                                   \
    const char *path = tr_fixture("parquet-testing/data/" rel);                                    \
    if (!path)                                                                                     \
        return;

static void expect_col(const tr_table *t, const char *name, const char *const *want, uint64_t n)
{
    int c = tr_col(t, name);
    if (c < 0)
        fprintf(stderr, "column %s missing\n", name);
    CHECK(c >= 0);
    if (c < 0)
        return;
    CHECK_EQ_INT(t->nrows, n);
    for (uint64_t r = 0; r < n && r < t->nrows; r++) {
        if (strcmp(t->cells[c][r], want[r]) != 0)
            fprintf(stderr, "%s row %llu: got %s want %s\n", name, (unsigned long long)r,
                    t->cells[c][r], want[r]);
        CHECK_EQ_STR(t->cells[c][r], want[r]);
    }
}

static void read_ok(const char *path, tr_table *t)
{
    fl_error e = {0};
    fl_parquet_read_options o = {.verify_crc = true};
    fl_status st = tr_read_file(path, &o, NULL, t, &e);
    CHECK_OK(st, &e);
}

static void test_alltypes_plain(void)
{
    FIX("alltypes_plain.parquet");
    tr_table t;
    read_ok(path, &t);
    const char *id[] = {"4", "5", "6", "7", "2", "3", "0", "1"};
    const char *b[] = {"true", "false", "true", "false", "true", "false", "true", "false"};
    const char *big[] = {"0", "10", "0", "10", "0", "10", "0", "10"};
    const char *fl[] = {"0", "1.10000002", "0", "1.10000002", "0", "1.10000002", "0", "1.10000002"};
    const char *ds[] = {"x30332f30312f3039", "x30332f30312f3039", "x30342f30312f3039",
                        "x30342f30312f3039", "x30322f30312f3039", "x30322f30312f3039",
                        "x30312f30312f3039", "x30312f30312f3039"};
    /* INT96: 2009-03-01 00:00:00 and 00:01:00 UTC, in ns */
    const char *ts[] = {"1235865600000000000", "1235865660000000000", "1238544000000000000",
                        "1238544060000000000", "1233446400000000000", "1233446460000000000",
                        "1230768000000000000", "1230768060000000000"};
    expect_col(&t, "id", id, 8);
    expect_col(&t, "bool_col", b, 8);
    expect_col(&t, "bigint_col", big, 8);
    expect_col(&t, "float_col", fl, 8);
    expect_col(&t, "date_string_col", ds, 8);
    expect_col(&t, "timestamp_col", ts, 8);
    tr_free(&t);
}

/* Compares every column of a file with a CSV of expected values (header line
 * with names; integers, quoted strings, empty = null). */
static void check_csv(const char *path, const char *csv)
{
    tr_table t;
    read_ok(path, &t);
    FILE *f = fopen(csv, "r");
    CHECK(f != NULL);
    if (!f) {
        tr_free(&t);
        return;
    }
    static char line[1 << 16];
    char *names[256];
    int ncol = 0;
    if (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        for (char *tok = strtok(line, ","); tok && ncol < 256; tok = strtok(NULL, ",")) {
            while (*tok == '"' || *tok == ' ')
                tok++;
            size_t l = strlen(tok);
            if (l && tok[l - 1] == '"')
                tok[l - 1] = 0;
            names[ncol++] = strdup(tok);
        }
    }
    int cols[256];
    for (int c = 0; c < ncol; c++) {
        cols[c] = tr_col(&t, names[c]);
        if (cols[c] < 0) { /* the CSV header may carry a leading space the schema trimmed */
            for (uint32_t k = 0; k < t.ncols; k++) {
                const char *a = t.names[k];
                while (*a == ' ')
                    a++;
                if (strcmp(a, names[c]) == 0)
                    cols[c] = (int)k;
            }
        }
        CHECK(cols[c] >= 0);
    }
    uint64_t row = 0;
    int bad = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        char *p = line;
        for (int c = 0; c < ncol; c++) {
            char val[4096];
            size_t vl = 0;
            bool quoted = *p == '"';
            if (quoted) {
                p++;
                while (*p && *p != '"' && vl < sizeof val - 1)
                    val[vl++] = *p++;
                if (*p == '"')
                    p++;
            } else {
                while (*p && *p != ',' && vl < sizeof val - 1)
                    val[vl++] = *p++;
            }
            val[vl] = 0;
            if (*p == ',')
                p++;
            if (cols[c] < 0 || row >= t.nrows)
                continue;
            const char *got = t.cells[cols[c]][row];
            char want[4200];
            if (vl == 0 && !quoted)
                snprintf(want, sizeof want, "null");
            else if (got[0] == '"')
                snprintf(want, sizeof want, "\"%s\"", val);
            else
                snprintf(want, sizeof want, "%s", val);
            if (strcmp(got, want) != 0 && bad++ < 5)
                fprintf(stderr, "%s row %llu: got %s want %s\n", names[c], (unsigned long long)row,
                        got, want);
        }
        row++;
    }
    fclose(f);
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(row, t.nrows);
    for (int c = 0; c < ncol; c++)
        free(names[c]);
    tr_free(&t);
}

static void test_delta_binary_packed(void)
{
    FIX("delta_binary_packed.parquet");
    check_csv(path, tr_fixture("parquet-testing/data/delta_binary_packed_expect.csv"));
}

static void test_delta_optional(void)
{
    FIX("delta_encoding_optional_column.parquet");
    check_csv(path, tr_fixture("parquet-testing/data/delta_encoding_optional_column_expect.csv"));
}

static void test_byte_stream_split_extended(void)
{
    FIX("byte_stream_split_extended.gzip.parquet");
    tr_table t;
    read_ok(path, &t);
    CHECK_EQ_INT(t.nrows, 200);
    int pairs = 0;
    for (uint32_t c = 0; c < t.ncols; c++) {
        const char *n = t.names[c];
        const char *suf = strstr(n, "_byte_stream_split");
        if (!suf)
            continue;
        char twin[256];
        snprintf(twin, sizeof twin, "%.*s_plain", (int)(suf - n), n);
        int p = tr_col(&t, twin);
        CHECK(p >= 0);
        if (p < 0)
            continue;
        pairs++;
        for (uint64_t r = 0; r < t.nrows; r++)
            CHECK_EQ_STR(t.cells[c][r], t.cells[p][r]);
    }
    CHECK(pairs >= 7);
    tr_free(&t);
}

static void test_float16(void)
{
    FIX("float16_nonzeros_and_nans.parquet");
    tr_table t;
    read_ok(path, &t);
    const char *x[] = {"null", "1", "-2", "nan", "0", "-1", "-0", "2"};
    expect_col(&t, "x", x, 8);
    tr_free(&t);
}

static void test_list_columns(void)
{
    FIX("list_columns.parquet");
    tr_table t;
    read_ok(path, &t);
    const char *a[] = {"[1,2,3]", "[null,1]", "[4]"};
    const char *b[] = {"[\"abc\",\"efg\",\"hij\"]", "null", "[\"efg\",null,\"hij\",\"xyz\"]"};
    expect_col(&t, "int64_list", a, 3);
    expect_col(&t, "utf8_list", b, 3);
    tr_free(&t);
}

static void test_nested_lists(void)
{
    FIX("nested_lists.snappy.parquet");
    tr_table t;
    read_ok(path, &t);
    const char *a[] = {"[[[\"a\",\"b\"],[\"c\"]],[null,[\"d\"]]]",
                       "[[[\"a\",\"b\"],[\"c\",\"d\"]],[null,[\"e\"]]]",
                       "[[[\"a\",\"b\"],[\"c\",\"d\"],[\"e\"]],[null,[\"f\"]]]"};
    const char *b[] = {"1", "1", "1"};
    expect_col(&t, "a", a, 3);
    expect_col(&t, "b", b, 3);
    tr_free(&t);
}

static void test_map_no_value(void)
{
    FIX("map_no_value.parquet");
    tr_table t;
    read_ok(path, &t);
    const char *m[] = {"<1=null,2=null,3=null>", "<4=null,5=null,6=null>",
                       "<7=null,8=null,9=null>"};
    const char *k[] = {"[1,2,3]", "[4,5,6]", "[7,8,9]"};
    expect_col(&t, "my_map", m, 3);
    expect_col(&t, "my_map_no_v", k, 3);
    expect_col(&t, "my_list", k, 3);
    tr_free(&t);
}

static void test_null_list(void)
{
    FIX("null_list.parquet");
    tr_table t;
    read_ok(path, &t);
    const char *a[] = {"[]"};
    expect_col(&t, "emptylist", a, 1);
    tr_free(&t);
}

static void test_nonnullable_impala(void)
{
    FIX("nonnullable.impala.parquet");
    tr_table t;
    read_ok(path, &t);
    const char *id[] = {"8"};
    const char *ia[] = {"[-1]"};
    const char *iaa[] = {"[[-1,-2],[]]"};
    const char *im[] = {"<\"k1\"=-1>"};
    const char *ima[] = {"[<>,<\"k1\"=1>,<>,<>]"};
    const char *ns[] = {"{a:-1,B:[-1],c:{D:[[{e:-1,f:\"nonnullable\"}]]},G:<>}"};
    expect_col(&t, "ID", id, 1);
    expect_col(&t, "Int_Array", ia, 1);
    expect_col(&t, "int_array_array", iaa, 1);
    expect_col(&t, "Int_Map", im, 1);
    expect_col(&t, "int_map_array", ima, 1);
    expect_col(&t, "nested_Struct", ns, 1);
    tr_free(&t);
}

static void test_repeated_no_annotation(void)
{
    FIX("repeated_no_annotation.parquet");
    tr_table t;
    read_ok(path, &t);
    const char *ph[] = {"null",
                        "null",
                        "{phone:[]}",
                        "{phone:[{number:5555555555,kind:null}]}",
                        "{phone:[{number:1111111111,kind:\"home\"}]}",
                        ("{phone:[{number:1111111111,kind:\"home\"},{number:2222222222,kind:null},"
                         "{number:3333333333,kind:\"mobile\"}]}")};
    expect_col(&t, "phoneNumbers", ph, 6);
    tr_free(&t);
}

static void test_repeated_primitive_no_list(void)
{
    FIX("repeated_primitive_no_list.parquet");
    tr_table t;
    read_ok(path, &t);
    const char *a[] = {"[0,1,2,3]", "[]", "[4]", "[5,6,7,8]"};
    const char *s[] = {"[\"foo\",\"zero\",\"one\",\"two\"]", "[\"three\"]", "[\"four\"]",
                       "[\"five\",\"six\",\"seven\",\"eight\"]"};
    const char *g[] = {
        "{Int32_list_in_group:[0,1,2,3],String_list_in_group:[\"foo\",\"zero\",\"one\",\"two\"]}",
        "{Int32_list_in_group:[],String_list_in_group:[\"three\"]}",
        "{Int32_list_in_group:[4],String_list_in_group:[\"four\"]}",
        ("{Int32_list_in_group:[5,6,7,8],"
         "String_list_in_group:[\"five\",\"six\",\"seven\",\"eight\"]}")};
    expect_col(&t, "Int32_list", a, 4);
    expect_col(&t, "String_list", s, 4);
    expect_col(&t, "group_of_lists", g, 4);
    tr_free(&t);
}

static void test_v2_empty_page(void)
{
    FIX("datapage_v2_empty_datapage.snappy.parquet");
    tr_table t;
    read_ok(path, &t);
    const char *v[] = {"null"};
    expect_col(&t, "value", v, 1);
    tr_free(&t);
}

static void test_dict_page_offset_zero(void)
{
    FIX("dict-page-offset-zero.parquet");
    tr_table t;
    read_ok(path, &t);
    CHECK_EQ_INT(t.nrows, 39);
    int c = tr_col(&t, "l_partkey");
    CHECK(c >= 0);
    for (uint64_t r = 0; c >= 0 && r < t.nrows; r++)
        CHECK_EQ_STR(t.cells[c][r], "1552");
    tr_free(&t);
}

static void test_lz4(void)
{
    const char *files[] = {"hadoop_lz4_compressed.parquet", "non_hadoop_lz4_compressed.parquet"};
    for (int i = 0; i < 2; i++) {
        char rel[256];
        snprintf(rel, sizeof rel, "parquet-testing/data/%s", files[i]);
        const char *path = tr_fixture(rel);
        if (!path)
            return;
        tr_table t;
        read_ok(path, &t);
        const char *c1[] = {"x616263", "x646566", "x616263", "x646566"};
        const char *v11[] = {"42", "7.7000000000000002", "42.125", "7.7000000000000002"};
        expect_col(&t, "c1", c1, 4);
        expect_col(&t, "v11", v11, 4);
        tr_free(&t);
    }
    const char *big[] = {"hadoop_lz4_compressed_larger.parquet",
                         "lz4_raw_compressed_larger.parquet"};
    for (int i = 0; i < 2; i++) {
        char rel[256];
        snprintf(rel, sizeof rel, "parquet-testing/data/%s", big[i]);
        const char *path = tr_fixture(rel);
        tr_table t;
        read_ok(path, &t);
        CHECK_EQ_INT(t.nrows, 10000);
        int c = tr_col(&t, "a");
        CHECK(c >= 0);
        if (c >= 0 && i == 0) {
            CHECK_EQ_STR(t.cells[c][0], "\"c7ce6bef-d5b0-4863-b199-8ea8c7fb117b\"");
            CHECK_EQ_STR(t.cells[c][1], "\"e8fb9197-cb9f-4118-b67f-fbfa65f61843\"");
        }
        tr_free(&t);
    }
}

static fl_status scan_memory(const uint8_t *data, size_t len, bool crc, fl_error *e)
{
    fl_file *f = NULL;
    fl_parquet_reader *r = NULL;
    fl_parquet_read_options o = {.verify_crc = crc};
    fl_status st = fl_file_from_memory(data, len, "mem.parquet", &f, e);
    if (st == FL_OK)
        st = fl_parquet_open(f, &o, &r, e);
    tr_table t;
    memset(&t, 0, sizeof t);
    if (st == FL_OK)
        st = tr_scan(r, NULL, &t, e);
    tr_free(&t);
    fl_parquet_close(r);
    fl_file_close(f);
    return st;
}

static void test_crc(void)
{
    const char *files[] = {"datapage_v1-snappy-compressed-checksum.parquet",
                           "datapage_v1-uncompressed-checksum.parquet",
                           "plain-dict-uncompressed-checksum.parquet",
                           "rle-dict-snappy-checksum.parquet"};
    for (int i = 0; i < 4; i++) {
        char rel[256];
        snprintf(rel, sizeof rel, "parquet-testing/data/%s", files[i]);
        const char *path = tr_fixture(rel);
        if (!path)
            return;
        size_t len;
        uint8_t *data = ft_slurp(path, &len);
        CHECK(data != NULL);
        if (!data)
            continue;
        fl_error e = {0};
        CHECK_OK(scan_memory(data, len, true, &e), &e);
        /* flip the last byte of the first column chunk: its last page's CRC breaks */
        fl_file *f = NULL;
        fl_parquet_reader *r = NULL;
        CHECK_OK(fl_file_from_memory(data, len, "mem.parquet", &f, &e), &e);
        CHECK_OK(fl_parquet_open(f, NULL, &r, &e), &e);
        const fl_pq_column_meta *m = &fl_parquet_footer(r)->row_groups[0].columns[0].meta_data;
        int64_t start =
            m->dictionary_page_offset > 0 && m->dictionary_page_offset < m->data_page_offset
                ? m->dictionary_page_offset
                : m->data_page_offset;
        /* last byte of the dictionary page when there is one (some writers put
         * CRCs on dictionary pages only), else of the chunk's last page */
        size_t at = start < m->data_page_offset ? (size_t)(m->data_page_offset - 1)
                                                : (size_t)(start + m->total_compressed_size - 1);
        fl_parquet_close(r);
        fl_file_close(f);
        data[at] ^= 0x5a;
        fl_status st = scan_memory(data, len, true, &e);
        CHECK_EQ_INT(st, FL_ECHECKSUM);
        CHECK(strstr(e.msg, "mem.parquet: column '") != NULL);
        CHECK(strstr(e.msg, "page at offset") != NULL);
        fprintf(stderr, "  corrupted %s: %s\n", files[i], e.msg);
        free(data);
    }
}

int main(void)
{
    if (!test_shared_dir()) {
        fprintf(stderr, "skipped: FLOE_SHARED fixtures absent\n");
        return 77;
    }
    TEST_RUN(test_alltypes_plain);
    TEST_RUN(test_delta_binary_packed);
    TEST_RUN(test_delta_optional);
    TEST_RUN(test_byte_stream_split_extended);
    TEST_RUN(test_float16);
    TEST_RUN(test_list_columns);
    TEST_RUN(test_nested_lists);
    TEST_RUN(test_map_no_value);
    TEST_RUN(test_null_list);
    TEST_RUN(test_nonnullable_impala);
    TEST_RUN(test_repeated_no_annotation);
    TEST_RUN(test_repeated_primitive_no_list);
    TEST_RUN(test_v2_empty_page);
    TEST_RUN(test_dict_page_offset_zero);
    TEST_RUN(test_lz4);
    TEST_RUN(test_crc);
    return TEST_EXIT();
}
