/*
 * test_read_scan.c - scan behaviour: projection by name and by (nested) field
 * id, proof through fl_file.bytes_read that unprojected chunks are never
 * read, batching, row-group selection, footer errors, and robustness against
 * truncated and bit-flipped files (every outcome must be a clean status).
 *
 * test_read_ids.parquet (next to this file) was written by DuckDB 1.5:
 *   id INT (field id 1), s STRUCT(a INT (3), b VARCHAR (4)) (2),
 *   l LIST<INT> (5, element 6): null when id%5==0, [] when id%5==1, else
 *     [id, null, id+1]; m MAP<INT,VARCHAR> (7, key 8, value 9) = {id%7: 'x'||id%3};
 *   5000 rows in row groups of 2048, 2048, 904; ZSTD.
 */
#include "floe/parquet_meta.h"
#include "floe_test.h"
#include "parquet/test_read_util.h"

static const char *ids_path(void)
{
    static char buf[4096];
    const char *src = getenv("FLOE_SRC");
    snprintf(buf, sizeof buf, "%s/tests/parquet/test_read_ids.parquet", src ? src : ".");
    return buf;
}

static void test_schema(void)
{
    fl_fileio *io;
    fl_file *f;
    fl_parquet_reader *r;
    fl_error e = {0};
    CHECK_OK(tr_open(ids_path(), NULL, &io, &f, &r, &e), &e);
    if (!r) {
        tr_close(io, f, r);
        return;
    }
    const fl_schema *s = fl_parquet_schema(r);
    CHECK_EQ_INT(s->nfields, 4);
    CHECK_EQ_INT(fl_parquet_num_rows(r), 5000);
    CHECK_EQ_INT(fl_parquet_num_row_groups(r), 3);
    char buf[256];
    fl_type_format(&s->fields[1].type, buf, sizeof buf);
    fprintf(stderr, "  s: %s\n", buf);
    CHECK_EQ_INT(s->fields[0].field_id, 1);
    CHECK_EQ_INT(s->fields[0].type.id, FL_TYPE_INT32);
    CHECK_EQ_INT(s->fields[1].field_id, 2);
    CHECK_EQ_INT(s->fields[1].type.id, FL_TYPE_STRUCT);
    CHECK_EQ_INT(s->fields[1].type.children[0].field_id, 3);
    CHECK_EQ_INT(s->fields[1].type.children[1].field_id, 4);
    CHECK_EQ_INT(s->fields[1].type.children[1].type.id, FL_TYPE_STRING);
    CHECK_EQ_INT(s->fields[2].type.id, FL_TYPE_LIST);
    CHECK_EQ_INT(s->fields[2].field_id, 5);
    CHECK_EQ_INT(s->fields[2].type.children[0].field_id, 6);
    CHECK_EQ_STR(s->fields[2].type.children[0].name, "element");
    CHECK_EQ_INT(s->fields[3].type.id, FL_TYPE_MAP);
    CHECK_EQ_INT(s->fields[3].type.children[0].field_id, 8);
    CHECK_EQ_INT(s->fields[3].type.children[1].field_id, 9);
    CHECK(!s->fields[3].type.children[0].nullable);
    tr_close(io, f, r);
}

static void test_full_values(void)
{
    tr_table t;
    fl_error e = {0};
    CHECK_OK(tr_read_file(ids_path(), NULL, NULL, &t, &e), &e);
    CHECK_EQ_INT(t.nrows, 5000);
    CHECK_EQ_INT(t.ncols, 4);
    int bad = 0;
    for (uint64_t i = 0; i < t.nrows && t.ncols == 4; i++) {
        char want[4][128];
        snprintf(want[0], 128, "%llu", (unsigned long long)i);
        snprintf(want[1], 128, "{a:%llu,b:\"v%llu\"}", (unsigned long long)i,
                 (unsigned long long)(i % 10));
        if (i % 5 == 0)
            snprintf(want[2], 128, "null");
        else if (i % 5 == 1)
            snprintf(want[2], 128, "[]");
        else
            snprintf(want[2], 128, "[%llu,null,%llu]", (unsigned long long)i,
                     (unsigned long long)i + 1);
        snprintf(want[3], 128, "<%llu=\"x%llu\">", (unsigned long long)(i % 7),
                 (unsigned long long)(i % 3));
        for (int c = 0; c < 4; c++)
            if (strcmp(t.cells[c][i], want[c]) != 0 && bad++ < 5)
                fprintf(stderr, "row %llu col %d: %s want %s\n", (unsigned long long)i, c,
                        t.cells[c][i], want[c]);
    }
    CHECK_EQ_INT(bad, 0);
    tr_free(&t);
}

/* Sum of the compressed sizes of the chunks of the given leaf indexes. */
static uint64_t chunk_bytes(const fl_parquet_reader *r, const uint32_t *leaves, uint32_t n)
{
    const fl_pq_file_meta *m = fl_parquet_footer(r);
    uint64_t sum = 0;
    for (uint32_t g = 0; g < m->nrow_groups; g++)
        for (uint32_t i = 0; i < n; i++)
            sum += (uint64_t)m->row_groups[g].columns[leaves[i]].meta_data.total_compressed_size;
    return sum;
}

static void test_projection_by_name(void)
{
    fl_fileio *io;
    fl_file *f;
    fl_parquet_reader *r;
    fl_error e = {0};
    CHECK_OK(tr_open(ids_path(), NULL, &io, &f, &r, &e), &e);
    if (!r) {
        tr_close(io, f, r);
        return;
    }
    const char *cols[] = {"l", "id"};
    fl_parquet_scan_options o = {.columns = cols, .ncolumns = 2};
    uint64_t before = f->bytes_read;
    tr_table t;
    CHECK_OK(tr_scan(r, &o, &t, &e), &e);
    CHECK_EQ_INT(t.ncols, 2);
    CHECK_EQ_STR(t.names[0], "l");
    CHECK_EQ_STR(t.names[1], "id");
    CHECK_EQ_INT(t.nrows, 5000);
    CHECK_EQ_STR(t.cells[0][2], "[2,null,3]");
    CHECK_EQ_STR(t.cells[1][4999], "4999");
    /* leaves: 0 id, 1 s.a, 2 s.b, 3 l.element, 4 m.key, 5 m.value */
    uint32_t leaves[] = {0, 3};
    uint64_t want = chunk_bytes(r, leaves, 2);
    CHECK_EQ_INT(f->bytes_read - before, want);
    CHECK_EQ_INT(t.stats.bytes_read, want);
    CHECK_EQ_INT(t.stats.rows_produced, 5000);
    CHECK_EQ_INT(t.stats.row_groups_total, 3);
    tr_free(&t);

    const char *bad[] = {"nope"};
    fl_parquet_scan_options o2 = {.columns = bad, .ncolumns = 1};
    fl_parquet_scan *s = NULL;
    CHECK_EQ_INT(fl_parquet_scan_open(r, &o2, &s, &e), FL_ENOTFOUND);
    CHECK(strstr(e.msg, "nope") != NULL);
    CHECK(s == NULL);
    tr_close(io, f, r);
}

static void test_projection_by_id(void)
{
    fl_fileio *io;
    fl_file *f;
    fl_parquet_reader *r;
    fl_error e = {0};
    CHECK_OK(tr_open(ids_path(), NULL, &io, &f, &r, &e), &e);
    if (!r) {
        tr_close(io, f, r);
        return;
    }
    /* s.b only: the struct keeps one field; only its chunk is read */
    int32_t ids[] = {4};
    fl_parquet_scan_options o = {.field_ids = ids, .nfield_ids = 1};
    uint64_t before = f->bytes_read;
    tr_table t;
    CHECK_OK(tr_scan(r, &o, &t, &e), &e);
    CHECK_EQ_INT(t.ncols, 1);
    CHECK_EQ_STR(t.names[0], "s");
    CHECK_EQ_STR(t.cells[0][13], "{b:\"v3\"}");
    uint32_t leaves[] = {2};
    CHECK_EQ_INT(f->bytes_read - before, chunk_bytes(r, leaves, 1));
    tr_free(&t);

    /* a map key selects the whole map; ids keep their order of mention */
    int32_t ids2[] = {8, 1, 6};
    fl_parquet_scan_options o2 = {.field_ids = ids2, .nfield_ids = 3};
    CHECK_OK(tr_scan(r, &o2, &t, &e), &e);
    CHECK_EQ_INT(t.ncols, 3);
    if (t.ncols == 3) {
        CHECK_EQ_STR(t.names[0], "m");
        CHECK_EQ_STR(t.names[1], "id");
        CHECK_EQ_STR(t.names[2], "l");
        CHECK_EQ_STR(t.cells[0][10], "<3=\"x1\">");
        CHECK_EQ_STR(t.cells[1][10], "10");
        CHECK_EQ_STR(t.cells[2][10], "null");
        CHECK_EQ_STR(t.cells[2][11], "[]");
    }
    tr_free(&t);

    int32_t missing[] = {99};
    fl_parquet_scan_options o3 = {.field_ids = missing, .nfield_ids = 1};
    fl_parquet_scan *s = NULL;
    CHECK_EQ_INT(fl_parquet_scan_open(r, &o3, &s, &e), FL_ENOTFOUND);
    tr_close(io, f, r);
}

static void test_batches_and_row_groups(void)
{
    fl_fileio *io;
    fl_file *f;
    fl_parquet_reader *r;
    fl_error e = {0};
    CHECK_OK(tr_open(ids_path(), NULL, &io, &f, &r, &e), &e);
    if (!r) {
        tr_close(io, f, r);
        return;
    }
    uint32_t rgs[] = {2, 1};
    fl_parquet_scan_options o = {.batch_rows = 300, .row_groups = rgs, .nrow_groups = 2};
    fl_parquet_scan *s = NULL;
    CHECK_OK(fl_parquet_scan_open(r, &o, &s, &e), &e);
    fl_batch b;
    CHECK_OK(fl_batch_init(&b, fl_parquet_scan_schema(s), &e), &e);
    uint64_t total = 0;
    int64_t first = -1;
    int batches = 0;
    for (;;) {
        bool eof;
        fl_status st = fl_parquet_scan_next(s, &b, &eof, &e);
        CHECK_OK(st, &e);
        if (st || eof)
            break;
        CHECK(b.nrows <= 300 && b.nrows > 0);
        if (first < 0) {
            int32_t v0;
            memcpy(&v0, b.cols[0].data, 4);
            first = v0;
        }
        total += b.nrows;
        batches++;
    }
    CHECK_EQ_INT(total, 904 + 2048);
    CHECK_EQ_INT(first, 4096);
    CHECK_EQ_INT(batches, 4 + 7);
    fl_batch_destroy(&b);
    fl_parquet_scan_close(s);

    uint32_t bad_rg[] = {3};
    fl_parquet_scan_options o2 = {.row_groups = bad_rg, .nrow_groups = 1};
    CHECK_EQ_INT(fl_parquet_scan_open(r, &o2, &s, &e), FL_EINVAL);
    tr_close(io, f, r);
}

static fl_status scan_bytes(const uint8_t *data, size_t len, fl_error *e)
{
    fl_file *f = NULL;
    fl_parquet_reader *r = NULL;
    fl_parquet_read_options o = {.verify_crc = true};
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

static void test_footer_errors(void)
{
    fl_error e = {0};
    const char junk[] = "this is definitely not a parquet file";
    CHECK_EQ_INT(scan_bytes((const uint8_t *)junk, sizeof junk, &e), FL_ECORRUPT);
    CHECK(strstr(e.msg, "mem.parquet: not a Parquet file (bad magic)") != NULL);
    CHECK_EQ_INT(scan_bytes((const uint8_t *)"PAR1", 4, &e), FL_ECORRUPT);
    uint8_t big[32] = "PAR1";
    memcpy(big + 24, "\xff\xff\x00\x00PAR1", 8);
    CHECK_EQ_INT(scan_bytes(big, sizeof big, &e), FL_ECORRUPT);
    CHECK(strstr(e.msg, "footer length") != NULL);
    memcpy(big + 28, "PARE", 4);
    CHECK_EQ_INT(scan_bytes(big, sizeof big, &e), FL_EUNSUPPORTED);
}

/* Cuts the file at many lengths and flips bytes all over it: every outcome
 * must be a status (ASan/UBSan builds prove no crash or overflow). */
static void test_truncation_and_bit_flips(void)
{
    size_t len;
    uint8_t *orig = ft_slurp(ids_path(), &len);
    CHECK(orig != NULL);
    if (!orig)
        return;
    uint8_t *d = malloc(len);
    fl_error e;
    int errors = 0;
    for (size_t cut = 0; cut < len; cut += len / 97 + 1) {
        memcpy(d, orig, len);
        memcpy(d + cut - (cut >= 8 ? 8 : cut), orig + len - 8, cut >= 8 ? 8 : 0); /* keep a tail */
        errors += scan_bytes(d, cut, &e) != FL_OK;
    }
    CHECK(errors > 0);
    uint32_t seed = 12345;
    for (int i = 0; i < 300; i++) {
        memcpy(d, orig, len);
        for (int k = 0; k < 1 + i % 4; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = (seed >> 8) % len;
            d[at] ^= (uint8_t)(1u << ((seed >> 4) & 7));
        }
        fl_status st = scan_bytes(d, len, &e);
        if (st != FL_OK)
            CHECK(e.msg[0] != 0);
    }
    free(d);
    free(orig);
}

int main(void)
{
    FILE *f = fopen(ids_path(), "rb");
    if (!f) {
        fprintf(stderr, "skipped: %s absent (set FLOE_SRC)\n", ids_path());
        return 77;
    }
    fclose(f);
    TEST_RUN(test_schema);
    TEST_RUN(test_full_values);
    TEST_RUN(test_projection_by_name);
    TEST_RUN(test_projection_by_id);
    TEST_RUN(test_batches_and_row_groups);
    TEST_RUN(test_footer_errors);
    TEST_RUN(test_truncation_and_bit_flips);
    return TEST_EXIT();
}
