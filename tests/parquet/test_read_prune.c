/*
 * test_read_prune.c - predicate pushdown: row-group pruning by chunk
 * statistics (test_read_ids.parquet: ids 0..4999 in row groups of 2048, 2048,
 * 904), page pruning by column + offset index (alltypes_tiny_pages.parquet:
 * 7300 rows in tiny pages), per-row filtering, and above all that pruned
 * scans return exactly the matching rows with every column still aligned
 * (each surviving row is compared, all columns, with the same row of a full
 * scan).
 */
#include "floe/parquet_meta.h"
#include "parquet/test_read_util.h"

static const char *ids_path(void)
{
    static char buf[4096];
    const char *src = getenv("FLOE_SRC");
    snprintf(buf, sizeof buf, "%s/tests/parquet/test_read_ids.parquet", src ? src : ".");
    return buf;
}

static fl_col_pred int_term(const char *col, int32_t id, fl_cmp_op op, int32_t v)
{
    fl_col_pred t;
    memset(&t, 0, sizeof t);
    t.column = col;
    t.field_id = id;
    t.op = op;
    t.value.type.id = FL_TYPE_INT32;
    t.value.v.i32 = v;
    return t;
}

/* Every row of `got` must equal the row of `all` whose first column (the id,
 * unique) is the same. */
static void check_aligned(const tr_table *all, const tr_table *got)
{
    CHECK_EQ_INT(all->ncols, got->ncols);
    int bad = 0;
    for (uint64_t r = 0; r < got->nrows; r++) {
        uint64_t k = 0;
        while (k < all->nrows && strcmp(all->cells[0][k], got->cells[0][r]) != 0)
            k++;
        CHECK(k < all->nrows);
        if (k == all->nrows)
            continue;
        for (uint32_t c = 0; c < got->ncols && c < all->ncols; c++)
            if (strcmp(all->cells[c][k], got->cells[c][r]) != 0 && bad++ < 5)
                fprintf(stderr, "row id %s col %s: %s vs full scan %s\n", got->cells[0][r],
                        got->names[c], got->cells[c][r], all->cells[c][k]);
    }
    CHECK_EQ_INT(bad, 0);
}

static void test_row_group_pruning(void)
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
    tr_table all, t;
    CHECK_OK(tr_scan(r, NULL, &all, &e), &e);
    uint64_t full_bytes = all.stats.bytes_read;

    /* by path, no row filtering: the matching row group comes back whole */
    fl_col_pred t1 = int_term("id", 0, FL_CMP_GE, 4500);
    fl_predicate p = {.nterms = 1, .terms = &t1};
    fl_parquet_scan_options o = {.predicate = &p};
    CHECK_OK(tr_scan(r, &o, &t, &e), &e);
    CHECK_EQ_INT(t.stats.row_groups_total, 3);
    CHECK_EQ_INT(t.stats.row_groups_pruned, 2);
    CHECK_EQ_INT(t.nrows, 904);
    CHECK(t.stats.bytes_read < full_bytes / 2);
    check_aligned(&all, &t);
    tr_free(&t);

    /* by field id, with row filtering: exactly the matching rows */
    fl_col_pred t2 = int_term(NULL, 1, FL_CMP_LT, 100);
    fl_predicate p2 = {.nterms = 1, .terms = &t2};
    fl_parquet_scan_options o2 = {.predicate = &p2, .filter_rows = true};
    CHECK_OK(tr_scan(r, &o2, &t, &e), &e);
    CHECK_EQ_INT(t.stats.row_groups_pruned, 2);
    CHECK_EQ_INT(t.nrows, 100);
    check_aligned(&all, &t);
    tr_free(&t);

    /* a nested struct field prunes too; two terms AND together */
    fl_col_pred t3[2] = {int_term("s.a", 0, FL_CMP_GE, 2048), int_term("id", 0, FL_CMP_LE, 2050)};
    fl_predicate p3 = {.nterms = 2, .terms = t3};
    fl_parquet_scan_options o3 = {.predicate = &p3, .filter_rows = true};
    CHECK_OK(tr_scan(r, &o3, &t, &e), &e);
    CHECK_EQ_INT(t.stats.row_groups_pruned, 2);
    CHECK_EQ_INT(t.nrows, 3); /* 2048..2050 (s.a is not top-level: it only prunes) */
    check_aligned(&all, &t);
    tr_free(&t);

    /* an INT64 literal is cast to the INT32 column for pruning; one that does
     * not fit cannot prune but still filters right */
    fl_col_pred t5 = int_term("id", 0, FL_CMP_GE, 0);
    t5.value.type.id = FL_TYPE_INT64;
    t5.value.v.i64 = 4500;
    fl_predicate p5 = {.nterms = 1, .terms = &t5};
    fl_parquet_scan_options o5 = {.predicate = &p5, .filter_rows = true};
    CHECK_OK(tr_scan(r, &o5, &t, &e), &e);
    CHECK_EQ_INT(t.stats.row_groups_pruned, 2);
    CHECK_EQ_INT(t.nrows, 500);
    tr_free(&t);
    t5.op = FL_CMP_LT;
    t5.value.v.i64 = (int64_t)1 << 40;
    CHECK_OK(tr_scan(r, &o5, &t, &e), &e);
    CHECK_EQ_INT(t.stats.row_groups_pruned, 0);
    CHECK_EQ_INT(t.nrows, 5000);
    tr_free(&t);

    /* nothing matches: no row group is read */
    fl_col_pred t4 = int_term("id", 0, FL_CMP_EQ, 123456);
    fl_predicate p4 = {.nterms = 1, .terms = &t4};
    fl_parquet_scan_options o4 = {.predicate = &p4};
    uint64_t before = f->bytes_read;
    CHECK_OK(tr_scan(r, &o4, &t, &e), &e);
    CHECK_EQ_INT(t.nrows, 0);
    CHECK_EQ_INT(t.stats.row_groups_pruned, 3);
    CHECK_EQ_INT(f->bytes_read - before, 0);
    tr_free(&t);
    tr_free(&all);
    tr_close(io, f, r);
}

static void test_page_pruning(void)
{
    const char *path = tr_fixture("parquet-testing/data/alltypes_tiny_pages.parquet");
    if (!path)
        return;
    fl_fileio *io;
    fl_file *f;
    fl_parquet_reader *r;
    fl_error e = {0};
    CHECK_OK(tr_open(path, NULL, &io, &f, &r, &e), &e);
    if (!r) {
        tr_close(io, f, r);
        return;
    }
    tr_table all, t;
    CHECK_OK(tr_scan(r, NULL, &all, &e), &e);
    CHECK_EQ_INT(all.nrows, 7300);
    CHECK_EQ_INT(all.stats.pages_pruned, 0);

    fl_col_pred t1 = int_term("id", 0, FL_CMP_GE, 7000);
    fl_predicate p = {.nterms = 1, .terms = &t1};
    fl_parquet_scan_options o = {.predicate = &p, .filter_rows = true, .batch_rows = 64};
    CHECK_OK(tr_scan(r, &o, &t, &e), &e);
    CHECK_EQ_INT(t.nrows, 300);
    CHECK(t.stats.pages_pruned > 0);
    CHECK(t.stats.pages_pruned < t.stats.pages_total);
    fprintf(stderr, "  id >= 7000: %llu of %llu pages pruned, %llu rows produced, %llu bytes\n",
            (unsigned long long)t.stats.pages_pruned, (unsigned long long)t.stats.pages_total,
            (unsigned long long)t.stats.rows_produced, (unsigned long long)t.stats.bytes_read);
    CHECK(t.stats.rows_produced < 7300);
    check_aligned(&all, &t);
    tr_free(&t);

    /* the same without the page index: same rows, nothing pruned */
    fl_parquet_scan_options o2 = {.predicate = &p, .filter_rows = true, .no_page_index = true};
    CHECK_OK(tr_scan(r, &o2, &t, &e), &e);
    CHECK_EQ_INT(t.nrows, 300);
    CHECK_EQ_INT(t.stats.pages_pruned, 0);
    CHECK_EQ_INT(t.stats.rows_produced, 7300);
    tr_free(&t);

    /* a narrow range on a projected subset: the other projected columns skip
     * and trim pages by row ranges, staying aligned with id */
    const char *cols[] = {"id", "string_col", "timestamp_col", "double_col"};
    fl_col_pred t3[2] = {int_term("id", 0, FL_CMP_GE, 3000), int_term("id", 0, FL_CMP_LT, 3010)};
    fl_predicate p3 = {.nterms = 2, .terms = t3};
    fl_parquet_scan_options o3 = {
        .columns = cols, .ncolumns = 4, .predicate = &p3, .filter_rows = true, .batch_rows = 5};
    CHECK_OK(tr_scan(r, &o3, &t, &e), &e);
    CHECK_EQ_INT(t.nrows, 10);
    CHECK(t.stats.pages_pruned > 0);
    fl_parquet_scan_options o4 = {.columns = cols, .ncolumns = 4};
    tr_table sub;
    CHECK_OK(tr_scan(r, &o4, &sub, &e), &e);
    check_aligned(&sub, &t);
    tr_free(&sub);
    tr_free(&t);
    tr_free(&all);
    tr_close(io, f, r);
}

static fl_col_pred str_term(const char *col, fl_cmp_op op, const char *v)
{
    fl_col_pred t;
    memset(&t, 0, sizeof t);
    t.column = col;
    t.op = op;
    t.value.type.id = FL_TYPE_STRING;
    t.value.v.bytes.ptr = (const uint8_t *)v;
    t.value.v.bytes.len = strlen(v);
    return t;
}

/* data_index_bloom_encoding_stats.parquet: one row group, column "String"
 * with min "Hello", max "today" and a bloom filter (length unset). */
static void test_bloom_pruning(void)
{
    const char *path = tr_fixture("parquet-testing/data/data_index_bloom_encoding_stats.parquet");
    if (!path)
        return;
    fl_fileio *io;
    fl_file *f;
    fl_parquet_reader *r;
    fl_error e = {0};
    CHECK_OK(tr_open(path, NULL, &io, &f, &r, &e), &e);
    if (!r) {
        tr_close(io, f, r);
        return;
    }
    tr_table t;
    /* present: the filter keeps the row group, row filtering finds the row */
    fl_col_pred t1 = str_term("String", FL_CMP_EQ, "jumps");
    fl_predicate p = {.nterms = 1, .terms = &t1};
    fl_parquet_scan_options o = {.predicate = &p, .filter_rows = true};
    CHECK_OK(tr_scan(r, &o, &t, &e), &e);
    CHECK_EQ_INT(t.stats.row_groups_pruned, 0);
    CHECK_EQ_INT(t.nrows, 1);
    if (t.nrows == 1)
        CHECK_EQ_STR(t.cells[0][0], "\"jumps\"");
    tr_free(&t);
    /* absent but inside [min, max]: only the bloom filter can prune it */
    fl_col_pred t2 = str_term("String", FL_CMP_EQ, "Hellp");
    fl_predicate p2 = {.nterms = 1, .terms = &t2};
    fl_parquet_scan_options o2 = {.predicate = &p2};
    CHECK_OK(tr_scan(r, &o2, &t, &e), &e);
    CHECK_EQ_INT(t.stats.row_groups_pruned, 1);
    CHECK_EQ_INT(t.nrows, 0);
    tr_free(&t);
    /* IN with one present value keeps it */
    fl_value in[2];
    in[0] = t2.value;
    in[1] = t1.value;
    fl_col_pred t3 = str_term("String", FL_CMP_IN, "");
    t3.in_values = in;
    t3.nin = 2;
    fl_predicate p3 = {.nterms = 1, .terms = &t3};
    fl_parquet_scan_options o3 = {.predicate = &p3, .filter_rows = true};
    CHECK_OK(tr_scan(r, &o3, &t, &e), &e);
    CHECK_EQ_INT(t.stats.row_groups_pruned, 0);
    CHECK_EQ_INT(t.nrows, 1);
    tr_free(&t);
    tr_close(io, f, r);
}

int main(void)
{
    FILE *f = fopen(ids_path(), "rb");
    if (!f) {
        fprintf(stderr, "skipped: %s absent (set FLOE_SRC)\n", ids_path());
        return 77;
    }
    fclose(f);
    TEST_RUN(test_row_group_pruning);
    if (test_shared_dir()) {
        TEST_RUN(test_page_pruning);
        TEST_RUN(test_bloom_pruning);
    } else
        fprintf(stderr, "page pruning test skipped: FLOE_SHARED fixtures absent\n");
    return TEST_EXIT();
}
