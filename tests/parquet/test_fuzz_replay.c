/*
 * test_fuzz_replay.c - replays the Parquet fuzz targets without libFuzzer,
 * so `make test` (both builds, ASan+UBSan in one) exercises them:
 *   - every fixture file's footer, page headers, column/offset indexes and
 *     bloom filters through pq_fuzz_footer_one(), whole, truncated and with
 *     deterministic bit flips;
 *   - every data page of the uncompressed fixtures through
 *     pq_fuzz_encodings_one() with the matching decoder selector, whole,
 *     truncated and bit-flipped;
 *   - every input checked in under fuzz/regress/{footer,encodings}/.
 * With FLOE_FUZZ_SEED_DIR set it also writes these inputs (whole ones only)
 * as seed corpora: $FLOE_FUZZ_SEED_DIR/{footer,encodings}/ (scripts/fuzz.sh).
 */
#define PQ_FUZZ_NO_MAIN 1
#include "../../fuzz/fuzz_parquet_encodings.c"
#include "../../fuzz/fuzz_parquet_footer.c"

#include <dirent.h>
#include <sys/stat.h>

#include "parquet/pqcodec_walk.h"
#include "test.h"

static const char *seed_dir;
static long replayed_footer, replayed_enc, seeds_written;

static void write_seed(const char *kind, const uint8_t *data, size_t len)
{
    if (!seed_dir)
        return;
    char path[4096];
    uint64_t h = 1469598103934665603ULL; /* FNV-1a names dedupe identical inputs */
    for (size_t i = 0; i < len; i++)
        h = (h ^ data[i]) * 1099511628211ULL;
    snprintf(path, sizeof path, "%s/%s/%016llx", seed_dir, kind, (unsigned long long)h);
    FILE *f = fopen(path, "wb");
    if (!f)
        return;
    if (fwrite(data, 1, len, f) == len)
        seeds_written++;
    fclose(f);
}

/* Whole input, ~32 truncations, ~64 single bit flips. */
static void replay(int (*one)(const uint8_t *, size_t), const char *kind, const uint8_t *data,
                   size_t len, size_t keep_prefix)
{
    write_seed(kind, data, len);
    uint8_t *copy = malloc(len ? len : 1);
    memcpy(copy, data, len);
    one(copy, len);
    size_t step = len / 32 + 1;
    for (size_t cut = keep_prefix; cut < len; cut += step) {
        uint8_t *t = malloc(cut ? cut : 1); /* exact size: ASan sees overreads */
        memcpy(t, data, cut);
        one(t, cut);
        free(t);
    }
    size_t fstep = len / 64 + 1;
    for (size_t i = keep_prefix; i < len; i += fstep) {
        copy[i] ^= (uint8_t)(1u << (i % 8));
        one(copy, len);
        copy[i] ^= (uint8_t)(1u << (i % 8));
    }
    free(copy);
    if (one == pq_fuzz_footer_one)
        replayed_footer++;
    else
        replayed_enc++;
}

static void replay_slice(const uint8_t *file, size_t flen, int64_t off, int64_t n)
{
    if (off < 0 || n <= 0 || off > (int64_t)flen || n > (int64_t)flen - off)
        return;
    replay(pq_fuzz_footer_one, "footer", file + off, (size_t)n, 0);
}

/* Encodings input: selector, param, n (LE16), then the page values. */
static void replay_values(uint8_t which, uint8_t param, uint32_t n, const uint8_t *p, size_t len)
{
    if (n > PQ_FUZZ_MAX_N || len > (1u << 20))
        return;
    uint8_t *in = malloc(len + 4);
    in[0] = which;
    in[1] = param;
    in[2] = (uint8_t)n;
    in[3] = (uint8_t)(n >> 8);
    memcpy(in + 4, p, len);
    replay(pq_fuzz_encodings_one, "encodings", in, len + 4, 4);
    free(in);
}

/* Data pages of an uncompressed flat file: values section -> matching decoder. */
static void replay_pages(const uint8_t *file, size_t flen, const fl_pq_file_meta *m, fl_arena *a)
{
    for (uint32_t g = 0; g < m->nrow_groups; g++) {
        for (uint32_t c = 0; c < m->row_groups[g].ncolumns; c++) {
            const fl_pq_column_chunk *cc = &m->row_groups[g].columns[c];
            if (!cc->meta_data_set || cc->file_path)
                continue;
            const fl_pq_column_meta *cm = &cc->meta_data;
            int64_t pos =
                cm->dictionary_page_offset > 0 && cm->dictionary_page_offset < cm->data_page_offset
                    ? cm->dictionary_page_offset
                    : cm->data_page_offset;
            int64_t end = pos + cm->total_compressed_size;
            if (pos < 4 || end > (int64_t)flen || end < pos)
                continue;
            replay_slice(file, flen, pos, end - pos < 512 ? end - pos : 512);
            int npages = 0;
            while (pos < end && npages < 8) {
                fl_pq_page_header h;
                size_t used = 0;
                fl_error err;
                if (fl_pq_decode_page_header(file + pos, (size_t)(end - pos), a, &h, &used, &err) !=
                    FL_OK)
                    break;
                const uint8_t *body = file + pos + used;
                int64_t blen = h.compressed_page_size;
                pos += (int64_t)used + blen;
                if (pos > end)
                    break;
                if (cm->codec != FL_PQ_UNCOMPRESSED ||
                    (h.type != FL_PQ_DATA_PAGE && h.type != FL_PQ_DATA_PAGE_V2))
                    continue;
                npages++;
                /* levels: v2 lengths are given; v1 guess: skip 4-byte-prefixed runs
                 * while they fit (fuzz inputs need not be exact) */
                size_t skip = 0;
                if (h.type == FL_PQ_DATA_PAGE_V2) {
                    skip = (size_t)h.definition_levels_byte_length +
                           (size_t)h.repetition_levels_byte_length;
                    if (skip && skip <= (size_t)blen)
                        replay_values(1, 1, (uint32_t)h.num_values, body, skip);
                } else if (blen >= 4 && h.definition_level_encoding == FL_PQ_ENC_RLE) {
                    uint32_t l4 = (uint32_t)body[0] | (uint32_t)body[1] << 8 |
                                  (uint32_t)body[2] << 16 | (uint32_t)body[3] << 24;
                    if (l4 + 4 <= (uint64_t)blen) {
                        replay_values(1, 1, (uint32_t)h.num_values, body + 4, l4);
                        skip = 4 + l4;
                    }
                }
                if (skip > (size_t)blen)
                    continue;
                const uint8_t *v = body + skip;
                size_t vlen = (size_t)blen - skip;
                uint32_t n = (uint32_t)h.num_values;
                switch (h.encoding) {
                case FL_PQ_ENC_DELTA_BINARY_PACKED:
                    replay_values(cm->type == FL_PQ_INT32 ? 4 : 5, 0, n, v, vlen);
                    break;
                case FL_PQ_ENC_DELTA_LENGTH_BYTE_ARRAY: replay_values(6, 1, n, v, vlen); break;
                case FL_PQ_ENC_DELTA_BYTE_ARRAY: replay_values(7, 0, n, v, vlen); break;
                case FL_PQ_ENC_BYTE_STREAM_SPLIT: {
                    uint8_t w = cm->type == FL_PQ_FLOAT || cm->type == FL_PQ_INT32 ? 4 : 8;
                    replay_values(8, w, (uint32_t)(vlen / w), v, vlen);
                    break;
                }
                case FL_PQ_ENC_RLE_DICTIONARY:
                case FL_PQ_ENC_PLAIN_DICTIONARY:
                    if (vlen >= 1)
                        replay_values(0, v[0], n, v + 1, vlen - 1);
                    break;
                case FL_PQ_ENC_PLAIN:
                    if (cm->type == FL_PQ_BYTE_ARRAY)
                        replay_values(6, 0, n, v, vlen);
                    else if (cm->type == FL_PQ_BOOLEAN)
                        replay_values(9, 0, n, v, vlen);
                    else
                        replay_values(10, (uint8_t)(npages * 4 + 1), 0, v, vlen); /* round trips */
                    break;
                default: break;
                }
            }
        }
    }
}

static void replay_file(const char *path)
{
    size_t flen;
    uint8_t *file = ft_slurp(path, &flen);
    if (!file || flen < 12) {
        free(file);
        return;
    }
    fl_error err;
    uint32_t footer_len;
    replay(pq_fuzz_footer_one, "footer", file + flen - 8, 8, 0);
    if (fl_pq_parse_tail(file + flen - 8, flen, &footer_len, &err) != FL_OK) {
        free(file);
        return;
    }
    const uint8_t *footer = file + flen - 8 - footer_len;
    replay(pq_fuzz_footer_one, "footer", footer, footer_len, 0);
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_pq_file_meta m;
    if (fl_pq_decode_file_meta(footer, footer_len, &a, &m, &err) == FL_OK) {
        for (uint32_t g = 0; g < m.nrow_groups; g++)
            for (uint32_t c = 0; c < m.row_groups[g].ncolumns; c++) {
                const fl_pq_column_chunk *cc = &m.row_groups[g].columns[c];
                if (g < 2 && c < 16) {
                    replay_slice(file, flen, cc->column_index_offset, cc->column_index_length);
                    replay_slice(file, flen, cc->offset_index_offset, cc->offset_index_length);
                }
                if (cc->meta_data_set && cc->meta_data.bloom_filter_offset > 0) {
                    int64_t bo = cc->meta_data.bloom_filter_offset;
                    int64_t bl = cc->meta_data.bloom_filter_length > 0
                                     ? cc->meta_data.bloom_filter_length
                                     : (int64_t)flen - bo;
                    replay_slice(file, flen, bo, bl);
                }
            }
        if (!strstr(path, "bad_data") && !strstr(path, "malformed"))
            replay_pages(file, flen, &m, &a);
    }
    fl_arena_free(&a);
    free(file);
}

static void walk(const char *dir, const char *suffix, void (*fn)(const char *))
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (stat(path, &sb) != 0)
            continue;
        if (S_ISDIR(sb.st_mode))
            walk(path, suffix, fn);
        else if (!suffix || strstr(e->d_name, suffix))
            fn(path);
    }
    closedir(d);
}

static void test_replay_fixtures(void)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/fixtures", test_shared_dir());
    walk(dir, ".parquet", replay_file);
    /* the standalone bloom filter */
    snprintf(dir, sizeof dir, "%s/fixtures/parquet-testing/data/bloom_filter.bin",
             test_shared_dir());
    size_t len;
    uint8_t *bf = ft_slurp(dir, &len);
    if (bf)
        replay(pq_fuzz_footer_one, "footer", bf, len, 0);
    free(bf);
    fprintf(stderr,
            "replayed %ld footer inputs, %ld encoding inputs (each whole, truncated, "
            "bit-flipped); %ld seeds written\n",
            replayed_footer, replayed_enc, seeds_written);
    CHECK(replayed_footer > 500);
    CHECK(replayed_enc > 100);
}

static const char *regress_kind;

static void replay_regress(const char *path)
{
    size_t len;
    uint8_t *data = ft_slurp(path, &len);
    if (!data)
        return;
    if (strcmp(regress_kind, "footer") == 0)
        pq_fuzz_footer_one(data, len);
    else
        pq_fuzz_encodings_one(data, len);
    free(data);
}

static void test_replay_regressions(void)
{
    const char *src = getenv("FLOE_SRC");
    if (!src)
        src = ".";
    char dir[4096];
    regress_kind = "footer";
    snprintf(dir, sizeof dir, "%s/fuzz/regress/footer", src);
    walk(dir, NULL, replay_regress);
    regress_kind = "encodings";
    snprintf(dir, sizeof dir, "%s/fuzz/regress/encodings", src);
    walk(dir, NULL, replay_regress);
    /* synthetic inputs for every encodings selector, so this runs without fixtures too */
    uint8_t in[300];
    for (int which = 0; which < 11; which++)
        for (int k = 0; k < 40; k++) {
            for (size_t i = 0; i < sizeof in; i++)
                in[i] = (uint8_t)(i * 131 + (size_t)k * 17 + (size_t)which);
            in[0] = (uint8_t)which;
            in[1] = (uint8_t)(k * 7);
            in[2] = (uint8_t)(k * 13);
            in[3] = 0;
            pq_fuzz_encodings_one(in, 4 + (size_t)k * 7);
            pq_fuzz_footer_one(in + 4, (size_t)k * 7);
        }
    CHECK(1);
}

int main(void)
{
    seed_dir = getenv("FLOE_FUZZ_SEED_DIR");
    if (seed_dir && *seed_dir) {
        char d[4096];
        snprintf(d, sizeof d, "%s/footer", seed_dir);
        mkdir(seed_dir, 0755);
        mkdir(d, 0755);
        snprintf(d, sizeof d, "%s/encodings", seed_dir);
        mkdir(d, 0755);
    } else {
        seed_dir = NULL;
    }
    TEST_RUN(test_replay_regressions);
    if (test_shared_dir())
        TEST_RUN(test_replay_fixtures);
    else
        fprintf(stderr, "FLOE_SHARED fixtures absent: fixture replay skipped\n");
    return TEST_EXIT();
}
