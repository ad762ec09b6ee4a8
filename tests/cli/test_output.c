/*
 * test_output.c - value formatting of the CLI (src/cli/output.c): every type
 * in JSON and text form, encodings (FLAT/CONSTANT/DICT), nested values, CSV
 * quoting and the table layout. Vectors are assembled by hand so the test
 * exercises only the formatter.
 */
#include "cli/output.c"

#include "test.h"

static char *fmt_json(const fl_vector *v, uint32_t row)
{
    static fl_buf sb;
    static fl_error err;
    fl_buf_reset(&sb);
    if (fl_format_json(&sb, v, row, &err) != FL_OK)
        return err.msg;
    return sb.data;
}

static void test_scalars(void)
{
    char b[96];
    fl_format_double(0.1, b, sizeof b);
    CHECK_EQ_STR(b, "0.1");
    fl_format_double(1e20, b, sizeof b);
    CHECK_EQ_STR(b, "100000000000000000000");
    fl_format_double(-0.0, b, sizeof b);
    CHECK_EQ_STR(b, "-0");
    fl_format_double(1.0 / 3, b, sizeof b);
    CHECK_EQ_STR(b, "0.3333333333333333");
    fl_format_double(123456789012.5, b, sizeof b);
    CHECK_EQ_STR(b, "123456789012.5");
    fl_format_float(0.1f, b, sizeof b);
    CHECK_EQ_STR(b, "0.1");
    fl_format_float(16777217.0f, b, sizeof b);
    CHECK_EQ_STR(b, "16777216");
    fl_format_float(-250.0f, b, sizeof b);
    CHECK_EQ_STR(b, "-250");
    fl_format_double(1e21, b, sizeof b);
    CHECK_EQ_STR(b, "1e+21");
    fl_format_double(123e-20, b, sizeof b);
    CHECK_EQ_STR(b, "1.23e-18");
    fl_format_double(0.000001, b, sizeof b);
    CHECK_EQ_STR(b, "0.000001");
    fl_format_double(1e-7, b, sizeof b);
    CHECK_EQ_STR(b, "1e-7");
    fl_format_double(5e-324, b, sizeof b);
    CHECK_EQ_STR(b, "5e-324");
    fl_format_double(1.7976931348623157e308, b, sizeof b);
    CHECK_EQ_STR(b, "1.7976931348623157e+308");
    fl_format_double(100, b, sizeof b);
    CHECK_EQ_STR(b, "100");
    fl_format_double(NAN, b, sizeof b);
    CHECK_EQ_STR(b, "NaN");
    fl_format_double(-INFINITY, b, sizeof b);
    CHECK_EQ_STR(b, "-Infinity");

    fl_format_decimal(12345, 2, b, sizeof b);
    CHECK_EQ_STR(b, "123.45");
    fl_format_decimal(-5, 2, b, sizeof b);
    CHECK_EQ_STR(b, "-0.05");
    fl_format_decimal(7, 0, b, sizeof b);
    CHECK_EQ_STR(b, "7");
    fl_i128 big = (fl_i128)1234567890123456789LL * 10000000000LL + 1234567890LL;
    fl_format_decimal(big, 2, b, sizeof b);
    CHECK_EQ_STR(b, "123456789012345678912345678.90");
    fl_i128 minv = (fl_i128)((unsigned __int128)1 << 127); /* most negative 128-bit value */
    fl_format_decimal(minv, 0, b, sizeof b);
    CHECK_EQ_STR(b, "-170141183460469231731687303715884105728");

    fl_format_date(0, b, sizeof b);
    CHECK_EQ_STR(b, "1970-01-01");
    fl_format_date(19723, b, sizeof b);
    CHECK_EQ_STR(b, "2024-01-01");
    fl_format_date(-1, b, sizeof b);
    CHECK_EQ_STR(b, "1969-12-31");
    fl_format_date(fl_days_from_civil(0, 1, 1), b, sizeof b);
    CHECK_EQ_STR(b, "0000-01-01");
    fl_format_date(fl_days_from_civil(-44, 3, 15), b, sizeof b);
    CHECK_EQ_STR(b, "-0044-03-15");
    CHECK_EQ_INT(fl_days_from_civil(2000, 2, 29), 11016);

    fl_format_time(3723000001LL, b, sizeof b);
    CHECK_EQ_STR(b, "01:02:03.000001");
    fl_format_timestamp(1704067200000000LL + 1000001, 6, false, b, sizeof b);
    CHECK_EQ_STR(b, "2024-01-01 00:00:01.000001");
    fl_format_timestamp(-1, 6, true, b, sizeof b);
    CHECK_EQ_STR(b, "1969-12-31 23:59:59.999999+00");
    fl_format_timestamp(1704067200123456789LL, 9, false, b, sizeof b);
    CHECK_EQ_STR(b, "2024-01-01 00:00:00.123456789");

    uint8_t u[16] = {0x12, 0x34, 0x56, 0x78, 0x12, 0x34, 0x56, 0x78,
                     0x12, 0x34, 0x56, 0x78, 0x12, 0x34, 0x56, 0x78};
    fl_format_uuid(u, b, sizeof b);
    CHECK_EQ_STR(b, "12345678-1234-5678-1234-567812345678");
}

static void test_json_strings(void)
{
    fl_buf sb = {0};
    fl_error err;
    const char in[] = "a\"b\\c\n\x01\xc3\xa9\xff";
    CHECK_OK(fl_json_string(&sb, (const uint8_t *)in, sizeof in - 1, &err), &err);
    CHECK_EQ_STR(sb.data, "\"a\\\"b\\\\c\\n\\u0001\xc3\xa9\xef\xbf\xbd\"");
    fl_buf_free(&sb);
}

static void test_vectors_json(void)
{
    /* int64 column, 3 rows, row 1 null */
    fl_type ti64 = {.id = FL_TYPE_INT64};
    int64_t vals[3] = {1, 0, -9000000000000000000LL};
    uint8_t valid = 0x5;
    fl_vector v = {.type = &ti64, .len = 3, .cap = 3, .validity = &valid, .data = (uint8_t *)vals};
    CHECK_EQ_STR(fmt_json(&v, 0), "\"1\"");
    CHECK_EQ_STR(fmt_json(&v, 1), "null");
    CHECK_EQ_STR(fmt_json(&v, 2), "\"-9000000000000000000\"");

    /* dictionary-encoded strings */
    fl_type tstr = {.id = FL_TYPE_STRING};
    int64_t offs[3] = {0, 2, 5};
    uint8_t heap[] = "hiabc";
    fl_vector dict = {.type = &tstr, .len = 2, .cap = 2, .offsets = offs, .heap = heap};
    uint32_t idx[4] = {1, 0, 1, 7};
    fl_vector dv = {.type = &tstr,
                    .encoding = FL_VEC_DICT,
                    .len = 4,
                    .cap = 4,
                    .data = (uint8_t *)idx,
                    .dict = &dict};
    CHECK_EQ_STR(fmt_json(&dv, 0), "\"abc\"");
    CHECK_EQ_STR(fmt_json(&dv, 1), "\"hi\"");
    CHECK(strstr(fmt_json(&dv, 3), "out of range") != NULL);

    /* constant double */
    fl_type tf = {.id = FL_TYPE_FLOAT64};
    double dd = NAN;
    fl_vector cv = {
        .type = &tf, .encoding = FL_VEC_CONSTANT, .len = 10, .cap = 1, .data = (uint8_t *)&dd};
    CHECK_EQ_STR(fmt_json(&cv, 7), "\"NaN\"");

    /* binary, fixed, uuid, decimal, bool */
    fl_type tbin = {.id = FL_TYPE_BINARY};
    uint8_t bheap[] = {0x00, 0xab, 0xff};
    int64_t boffs[2] = {0, 3};
    fl_vector bv = {.type = &tbin, .len = 1, .cap = 1, .offsets = boffs, .heap = bheap};
    CHECK_EQ_STR(fmt_json(&bv, 0), "\"\\\\x00abff\"");
    fl_type tfix = {.id = FL_TYPE_FIXED, .fixed_len = 3};
    fl_vector fv = {.type = &tfix, .len = 1, .cap = 1, .data = bheap};
    CHECK_EQ_STR(fmt_json(&fv, 0), "\"\\\\x00abff\"");
    fl_type tdec = {.id = FL_TYPE_DECIMAL, .precision = 9, .scale = 2};
    fl_i128 d = -12345;
    fl_vector decv = {.type = &tdec, .len = 1, .cap = 1, .data = (uint8_t *)&d};
    CHECK_EQ_STR(fmt_json(&decv, 0), "\"-123.45\"");
    fl_type tb = {.id = FL_TYPE_BOOLEAN};
    uint8_t bools[2] = {1, 0};
    fl_vector boolv = {.type = &tb, .len = 2, .cap = 2, .data = bools};
    CHECK_EQ_STR(fmt_json(&boolv, 1), "false");
    fl_type tf32 = {.id = FL_TYPE_FLOAT32};
    float f = 0.1f;
    fl_vector f32v = {.type = &tf32, .len = 1, .cap = 1, .data = (uint8_t *)&f};
    CHECK_EQ_STR(fmt_json(&f32v, 0), "0.1");
    fl_type ttz = {.id = FL_TYPE_TIMESTAMPTZ};
    int64_t ts = 1704067200000000LL;
    fl_vector tsv = {.type = &ttz, .len = 1, .cap = 1, .data = (uint8_t *)&ts};
    CHECK_EQ_STR(fmt_json(&tsv, 0), "\"2024-01-01 00:00:00.000000+00\"");
}

static void test_nested_json(void)
{
    /* list<int32>: rows [1,2], [], null, [null] */
    fl_field elem = {
        .name = "element", .field_id = 3, .nullable = true, .type = {.id = FL_TYPE_INT32}};
    fl_type tl = {.id = FL_TYPE_LIST, .nchildren = 1, .children = &elem};
    int32_t ev[3] = {1, 2, 0};
    uint8_t evalid = 0x3;
    fl_vector child = {
        .type = &elem.type, .len = 3, .cap = 3, .validity = &evalid, .data = (uint8_t *)ev};
    int64_t loffs[5] = {0, 2, 2, 2, 3};
    uint8_t lvalid = 0xB; /* rows 0,1,3 valid */
    fl_vector lv = {.type = &tl,
                    .len = 4,
                    .cap = 4,
                    .validity = &lvalid,
                    .offsets = loffs,
                    .nchildren = 1,
                    .children = &child};
    CHECK_EQ_STR(fmt_json(&lv, 0), "[1,2]");
    CHECK_EQ_STR(fmt_json(&lv, 1), "[]");
    CHECK_EQ_STR(fmt_json(&lv, 2), "null");
    CHECK_EQ_STR(fmt_json(&lv, 3), "[null]");

    /* struct<a: int32, b: string> */
    fl_field sf[2] = {{.name = "a", .type = {.id = FL_TYPE_INT32}},
                      {.name = "b", .type = {.id = FL_TYPE_STRING}}};
    fl_type ts = {.id = FL_TYPE_STRUCT, .nchildren = 2, .children = sf};
    int32_t av = 7;
    int64_t soffs[2] = {0, 1};
    uint8_t sheap[] = "x";
    fl_vector sc[2] = {{.type = &sf[0].type, .len = 1, .cap = 1, .data = (uint8_t *)&av},
                       {.type = &sf[1].type, .len = 1, .cap = 1, .offsets = soffs, .heap = sheap}};
    fl_vector sv = {.type = &ts, .len = 1, .cap = 1, .nchildren = 2, .children = sc};
    CHECK_EQ_STR(fmt_json(&sv, 0), "{\"a\":7,\"b\":\"x\"}");

    /* map<string,int32>: one row {"x": 7} */
    fl_field mf[2] = {{.name = "key", .type = {.id = FL_TYPE_STRING}},
                      {.name = "value", .nullable = true, .type = {.id = FL_TYPE_INT32}}};
    fl_type tm = {.id = FL_TYPE_MAP, .nchildren = 2, .children = mf};
    fl_vector mc[2] = {{.type = &mf[0].type, .len = 1, .cap = 1, .offsets = soffs, .heap = sheap},
                       {.type = &mf[1].type, .len = 1, .cap = 1, .data = (uint8_t *)&av}};
    int64_t moffs[2] = {0, 1};
    fl_vector mv = {
        .type = &tm, .len = 1, .cap = 1, .offsets = moffs, .nchildren = 2, .children = mc};
    CHECK_EQ_STR(fmt_json(&mv, 0), "[{\"key\":\"x\",\"value\":7}]");

    /* corrupt offsets are reported, not followed */
    int64_t bad[2] = {0, 99};
    fl_vector badv = {
        .type = &tl, .len = 1, .cap = 1, .offsets = bad, .nchildren = 1, .children = &child};
    CHECK(strstr(fmt_json(&badv, 0), "outside the child vector") != NULL);
}

static char *print_batch(fl_out_format fmt, const fl_schema *s, fl_batch *b)
{
    static char buf[4096];
    memset(buf, 0, sizeof buf);
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    fl_row_printer *p;
    fl_error err;
    CHECK_OK(fl_row_printer_open(f, fmt, s, true, &p, &err), &err);
    CHECK_OK(fl_row_printer_batch(p, b, NULL, &err), &err);
    CHECK_OK(fl_row_printer_close(p, &err), &err);
    fclose(f);
    return buf;
}

static void test_printers(void)
{
    fl_field fields[2] = {{.name = "id", .type = {.id = FL_TYPE_INT32}},
                          {.name = "s", .nullable = true, .type = {.id = FL_TYPE_STRING}}};
    fl_schema schema = {.nfields = 2, .fields = fields};
    int32_t ids[3] = {1, 22, 333};
    int64_t offs[4] = {0, 5, 5, 5};
    uint8_t heap[] = "a,\"b\"";
    uint8_t valid = 0x3; /* row 2 null, row 1 empty string */
    fl_vector cols[2] = {{.type = &fields[0].type, .len = 3, .cap = 3, .data = (uint8_t *)ids},
                         {.type = &fields[1].type,
                          .len = 3,
                          .cap = 3,
                          .validity = &valid,
                          .offsets = offs,
                          .heap = heap}};
    fl_batch b = {.schema = &schema, .ncols = 2, .cols = cols, .nrows = 3};
    CHECK_EQ_STR(print_batch(FL_OUT_CSV, &schema, &b), "id,s\n1,\"a,\"\"b\"\"\"\n22,\"\"\n333,\n");
    CHECK_EQ_STR(
        print_batch(FL_OUT_JSONL, &schema, &b),
        "{\"id\":1,\"s\":\"a,\\\"b\\\"\"}\n{\"id\":22,\"s\":\"\"}\n{\"id\":333,\"s\":null}\n");
    CHECK_EQ_STR(print_batch(FL_OUT_TABLE, &schema, &b), "id  | s\n"
                                                         "----+------\n"
                                                         "  1 | a,\"b\"\n"
                                                         " 22 | \n"
                                                         "333 | NULL\n"
                                                         "(3 rows)\n");
    /* selection vector: only row 2 */
    uint32_t sel_idx[1] = {2};
    fl_sel sel = {.idx = sel_idx, .count = 1, .cap = 1};
    b.sel = &sel;
    CHECK_EQ_STR(print_batch(FL_OUT_JSONL, &schema, &b), "{\"id\":333,\"s\":null}\n");
}

int main(void)
{
    TEST_RUN(test_scalars);
    TEST_RUN(test_json_strings);
    TEST_RUN(test_vectors_json);
    TEST_RUN(test_nested_json);
    TEST_RUN(test_printers);
    return TEST_EXIT();
}
