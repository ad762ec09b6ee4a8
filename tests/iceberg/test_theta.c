/*
 * test_theta.c - theta sketches and Puffin statistics files (ice_stats.h):
 * MurmurHash3_x64_128 and the seed hash, exactness below the rebuild
 * point, accuracy at 1M distinct values, the compact serialization's bytes
 * (empty as Java's EmptyCompactSketch; single-item and exact forms as the
 * DataSketches 5.2 Python/C++ library writes them for the same strings), the
 * estimating form's preamble, Puffin write -> read round trip, NDV from the
 * footer and the statistics entry of a snapshot or its ancestor.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/ice_stats.h"
#include "floe/s3.h"
#include "floe_test.h"
#include "iceberg/scan_internal.h"
#include "iceberg/stats_internal.h"

static fl_theta_sketch *new_sketch(void)
{
    fl_theta_sketch *s = NULL;
    fl_error err;
    CHECK_OK(fl_theta_new(FL_THETA_DEFAULT_LG_K, FL_THETA_DEFAULT_SEED, &s, &err), &err);
    return s;
}

static void update_long(fl_theta_sketch *s, int64_t v)
{
    uint8_t b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)((uint64_t)v >> (8 * i));
    fl_theta_update(s, b, 8);
}

static void hex_of(const uint8_t *b, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", b[i]);
}

static void check_bytes(fl_theta_sketch *s, const char *want)
{
    uint8_t *b = NULL;
    size_t n = 0;
    fl_error err;
    CHECK_OK(fl_theta_serialize(s, &b, &n, &err), &err);
    char *hex = malloc(2 * n + 1);
    hex[0] = 0;
    hex_of(b, n, hex);
    CHECK_EQ_STR(hex, want);
    free(hex);
    free(b);
}

static void test_murmur(void)
{
    CHECK_EQ_INT(fl_theta_seed_hash(9001), 0x93CC);
    /* the reference implementation's x64_128 of "hello" with seed 0 */
    uint64_t h[2];
    fl_murmur3_x64_128("hello", 5, 0, h);
    CHECK(h[0] == 0xcbd8a7b341bd9b02ULL && h[1] == 0x5b1e906a48ae1d19ULL);
}

static void test_layout(void)
{
    fl_theta_sketch *s = new_sketch();
    check_bytes(s, "01030300001e0000");
    fl_theta_update(s, "", 0); /* empty arrays are ignored, as in DataSketches */
    CHECK(fl_theta_is_empty(s));
    fl_theta_update(s, "v1", 2);
    check_bytes(s, "01030300001acc9308a06c56d6aba515");
    fl_theta_free(s);
    s = new_sketch();
    for (int i = 0; i < 10; i++) {
        char v[8];
        snprintf(v, sizeof v, "v%d", i);
        fl_theta_update(s, v, strlen(v));
        fl_theta_update(s, v, strlen(v));
    }
    check_bytes(s, "02030300001acc930a0000000000000008a06c56d6aba515a334e9a5c3916d2027db6f4f4bd4"
                   "432198df78e9b1075c3b9ad1a87cc67b344501b099d106ef184bf1d2083f5cf8fc52ad50444f"
                   "08f3f1635d0f549b3204e166afbf58cae00fdd6f");
    CHECK(fl_theta_estimate(s) == 10.0);
    fl_theta_free(s);
}

static void test_exact_and_estimating(void)
{
    fl_theta_sketch *s = new_sketch();
    for (int64_t i = 0; i < 4000; i++) {
        update_long(s, i * 7919);
        update_long(s, i * 7919);
    }
    CHECK(fl_theta_theta(s) == FL_THETA_MAX);
    CHECK(fl_theta_estimate(s) == 4000.0);
    for (int64_t i = 4000; i < 1000000; i++)
        update_long(s, i * 7919);
    double est = fl_theta_estimate(s);
    CHECK(est > 950000.0 && est < 1050000.0);
    CHECK(fl_theta_theta(s) < FL_THETA_MAX);
    uint32_t n = fl_theta_retained(s);
    CHECK(n >= 4096 && n <= 7680);
    uint8_t *b = NULL;
    size_t len = 0;
    fl_error err;
    CHECK_OK(fl_theta_serialize(s, &b, &len, &err), &err);
    CHECK_EQ_INT(len, 24 + 8 * (size_t)n);
    CHECK(b[0] == 3 && b[1] == 3 && b[2] == 3 && b[3] == 0 && b[4] == 0 && b[5] == 0x1A);
    CHECK(b[6] == 0xCC && b[7] == 0x93);
    uint64_t cnt = 0, theta = 0, prev = 0;
    for (int i = 3; i >= 0; i--)
        cnt = (cnt << 8) | b[8 + i];
    for (int i = 7; i >= 0; i--)
        theta = (theta << 8) | b[16 + i];
    CHECK(cnt == n && theta == fl_theta_theta(s));
    bool sorted = true;
    for (uint32_t k = 0; k < n; k++) {
        uint64_t h = 0;
        for (int i = 7; i >= 0; i--)
            h = (h << 8) | b[24 + 8 * k + i];
        sorted &= h > prev && h < theta;
        prev = h;
    }
    CHECK(sorted);
    free(b);
    fl_theta_free(s);
}

static void test_values(void)
{
    fl_theta_sketch *s = new_sketch();
    fl_error err;
    fl_value v = {.type = {.id = FL_TYPE_INT32}, .v.i32 = 5};
    CHECK_OK(fl_theta_update_value(s, &v, &err), &err);
    v.is_null = true;
    CHECK_OK(fl_theta_update_value(s, &v, &err), &err);
    CHECK(fl_theta_estimate(s) == 1.0);
    /* same bytes as a 4-byte little-endian int */
    fl_theta_sketch *t = new_sketch();
    uint8_t b[4] = {5, 0, 0, 0};
    fl_theta_update(t, b, 4);
    uint8_t *x = NULL, *y = NULL;
    size_t nx, ny;
    CHECK_OK(fl_theta_serialize(s, &x, &nx, &err), &err);
    CHECK_OK(fl_theta_serialize(t, &y, &ny, &err), &err);
    CHECK(nx == ny && !memcmp(x, y, nx));
    free(x);
    free(y);
    fl_theta_free(s);
    fl_theta_free(t);
}

static void test_puffin_round_trip(void)
{
    char dir[256];
    if (!ft_tmpdir(dir, sizeof dir, "floe_theta"))
        return;
    fl_fileio *io = NULL;
    fl_error err;
    CHECK_OK(fl_fileio_default(NULL, &io, &err), &err);
    fl_arena a;
    fl_arena_init(&a, 0);
    char path[320];
    snprintf(path, sizeof path, "%s/x.stats", dir);
    fl_ice_kv kv[2] = {{"ndv", "12"}, {"ndv", "notanumber"}};
    fl_ice_map p0 = {1, &kv[0]}, p1 = {1, &kv[1]};
    int32_t f0 = 3, f1[2] = {4, 5};
    ice_puffin_blob_in in[3] = {
        {FL_ICE_BLOB_THETA, &f0, 1, 77, 2, (const uint8_t *)"abcdef", 6, &p0},
        {FL_ICE_BLOB_THETA, f1, 2, 77, 2, (const uint8_t *)"xy", 2, &p0},
        {FL_ICE_BLOB_THETA, &f0, 1, 77, 2, (const uint8_t *)"z", 1, &p1}};
    ice_puffin_written w;
    CHECK_OK(ice_puffin_write(io, path, in, 3, "floe test", &a, &w, &err), &err);
    CHECK(w.offsets[0] == 4 && w.offsets[1] == 10 && w.offsets[2] == 12);
    size_t len = 0;
    uint8_t *buf = ft_slurp(path, &len);
    CHECK(buf && len == w.file_size && !memcmp(buf, "PFA1", 4) &&
          !memcmp(buf + len - 4, "PFA1", 4));
    ice_puffin_footer ft;
    CHECK_OK(ice_puffin_parse(buf, len, &a, &ft, &err), &err);
    CHECK_EQ_INT(ft.nblobs, 3);
    CHECK_EQ_STR(ft.created_by, "floe test");
    CHECK(ft.blobs[0].offset == 4 && ft.blobs[0].length == 6 && ft.blobs[0].nfields == 1);
    CHECK(ft.blobs[0].fields[0] == 3 && ft.blobs[0].snapshot_id == 77);
    CHECK(ft.blobs[0].sequence_number == 2 && !ft.blobs[0].codec);
    CHECK(!memcmp(buf + ft.blobs[0].offset, "abcdef", 6));
    CHECK_EQ_STR(ft.blobs[0].ndv, "12");
    CHECK(ft.blobs[1].nfields == 2 && ft.blobs[1].fields[1] == 5);
    /* footer size = magic + payload + 12 */
    uint32_t plen = buf[len - 12] | (uint32_t)buf[len - 11] << 8;
    CHECK(w.footer_size == plen + 16);
    free(buf);
    /* NDV from the footer: single-column blobs with a numeric ndv only */
    fl_ice_statistics_file sf = {.snapshot_id = 77, .statistics_path = path};
    fl_ice_column_ndv *v = NULL;
    uint32_t n = 0;
    CHECK_OK(fl_ice_stats_read_ndv(io, &sf, &a, &v, &n, &err), &err);
    CHECK(n == 1 && v[0].field_id == 3 && v[0].ndv == 12);
    /* a missing file is an error the planner ignores */
    sf.statistics_path = "/nonexistent/floe.stats";
    CHECK(fl_ice_stats_read_ndv(io, &sf, &a, &v, &n, &err) != FL_OK);
    fl_arena_free(&a);
    fl_fileio_destroy(io);
    ft_rmtree(dir);
}

static void test_find(void)
{
    fl_ice_snapshot sn[3] = {{.snapshot_id = 1},
                             {.snapshot_id = 2, .has_parent = true, .parent_snapshot_id = 1},
                             {.snapshot_id = 3, .has_parent = true, .parent_snapshot_id = 2}};
    fl_ice_statistics_file st[1] = {{.snapshot_id = 1, .statistics_path = "s1"}};
    fl_ice_metadata m;
    memset(&m, 0, sizeof m);
    m.nsnapshots = 3;
    m.snapshots = sn;
    CHECK(fl_ice_stats_find(&m, 3) == NULL);
    m.nstatistics = 1;
    m.statistics = st;
    CHECK(fl_ice_stats_find(&m, 3) == &st[0]);
    CHECK(fl_ice_stats_find(&m, 1) == &st[0]);
    CHECK(fl_ice_stats_find(&m, 9) == NULL);
    sn[0].has_parent = true; /* a cycle ends */
    sn[0].parent_snapshot_id = 3;
    st[0].snapshot_id = 42;
    CHECK(fl_ice_stats_find(&m, 3) == NULL);
}

int main(void)
{
    TEST_RUN(test_murmur);
    TEST_RUN(test_layout);
    TEST_RUN(test_exact_and_estimating);
    TEST_RUN(test_values);
    TEST_RUN(test_puffin_round_trip);
    TEST_RUN(test_find);
    return TEST_EXIT();
}
