/*
 * fuzz_parquet_footer.c - libFuzzer target: the Thrift decoders of
 * parquet_meta.h (FileMetaData, PageHeader, ColumnIndex, OffsetIndex), the
 * bloom filter header, and the footer tail, on arbitrary bytes.
 *
 * Besides "no crash, no leak, no UB" (ASan+UBSan), it checks one property:
 * whatever decodes must re-encode, and the re-encoding must decode again to
 * the same bytes (decode . encode is a fixed point); a violation traps.
 *
 * tests/parquet/test_fuzz_replay.c includes this file with
 * PQ_FUZZ_NO_MAIN defined to replay fixtures and regression inputs through
 * pq_fuzz_footer_one() in `make test`, without libFuzzer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "floe/parquet_meta.h"
#include "parquet/stats.h"

#define PQ_FUZZ_ARENA_LIMIT (512u << 20)

static void pq_fuzz_check(int cond)
{
    if (!cond)
        __builtin_trap();
}

/* encode(x) decodes, and encode(decode(encode(x))) == encode(x). */
static void pq_fuzz_meta_fixpoint(const fl_pq_file_meta *m)
{
    fl_pq_buf a = {0}, b = {0};
    fl_error err;
    if (fl_pq_encode_file_meta(m, &a, &err) == FL_OK) {
        fl_arena ar;
        fl_arena_init(&ar, 0);
        fl_pq_file_meta m2;
        pq_fuzz_check(fl_pq_decode_file_meta(a.data, a.len, &ar, &m2, &err) == FL_OK);
        pq_fuzz_check(fl_pq_encode_file_meta(&m2, &b, &err) == FL_OK);
        pq_fuzz_check(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
        fl_arena_free(&ar);
    }
    fl_pq_buf_free(&a);
    fl_pq_buf_free(&b);
}

static void pq_fuzz_header_fixpoint(const fl_pq_page_header *h)
{
    fl_pq_buf a = {0}, b = {0};
    fl_error err;
    if (fl_pq_encode_page_header(h, &a, &err) == FL_OK) {
        fl_arena ar;
        fl_arena_init(&ar, 0);
        fl_pq_page_header h2;
        size_t used = 0;
        pq_fuzz_check(fl_pq_decode_page_header(a.data, a.len, &ar, &h2, &used, &err) == FL_OK);
        pq_fuzz_check(used == a.len);
        pq_fuzz_check(fl_pq_encode_page_header(&h2, &b, &err) == FL_OK);
        pq_fuzz_check(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
        fl_arena_free(&ar);
    }
    fl_pq_buf_free(&a);
    fl_pq_buf_free(&b);
}

static int pq_fuzz_footer_one(const uint8_t *data, size_t size)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    a.limit = PQ_FUZZ_ARENA_LIMIT;
    fl_error err;

    fl_pq_file_meta m;
    if (fl_pq_decode_file_meta(data, size, &a, &m, &err) == FL_OK)
        pq_fuzz_meta_fixpoint(&m);
    fl_arena_reset(&a);

    /* page headers back to back, as in a column chunk */
    size_t pos = 0;
    for (int i = 0; i < 16 && pos < size; i++) {
        fl_pq_page_header h;
        size_t used = 0;
        if (fl_pq_decode_page_header(data + pos, size - pos, &a, &h, &used, &err) != FL_OK)
            break;
        pq_fuzz_check(used > 0 && used <= size - pos);
        pq_fuzz_header_fixpoint(&h);
        pos += used;
    }
    fl_arena_reset(&a);

    fl_pq_column_index ci;
    if (fl_pq_decode_column_index(data, size, &a, &ci, &err) == FL_OK) {
        fl_pq_buf b = {0};
        pq_fuzz_check(fl_pq_encode_column_index(&ci, &b, &err) == FL_OK);
        fl_pq_column_index ci2;
        pq_fuzz_check(fl_pq_decode_column_index(b.data, b.len, &a, &ci2, &err) == FL_OK);
        pq_fuzz_check(ci2.npages == ci.npages);
        fl_pq_buf_free(&b);
    }
    fl_pq_offset_index oi;
    if (fl_pq_decode_offset_index(data, size, &a, &oi, &err) == FL_OK) {
        fl_pq_buf b = {0};
        pq_fuzz_check(fl_pq_encode_offset_index(&oi, &b, &err) == FL_OK);
        fl_pq_offset_index oi2;
        pq_fuzz_check(fl_pq_decode_offset_index(b.data, b.len, &a, &oi2, &err) == FL_OK);
        pq_fuzz_check(oi2.npages == oi.npages);
        fl_pq_buf_free(&b);
    }
    fl_arena_free(&a);

    fl_pq_bloom bf;
    size_t used = 0;
    if (fl_pq_bloom_parse(data, size, &bf, &used, &err) == FL_OK) {
        pq_fuzz_check(used <= size);
        (void)fl_pq_bloom_check(&bf, 0x0123456789abcdefULL);
        fl_pq_bloom_free(&bf);
    }

    if (size >= 8) {
        uint32_t flen;
        if (fl_pq_parse_tail(data + size - 8, size, &flen, &err) == FL_OK)
            pq_fuzz_check((uint64_t)flen + 12 <= size);
    }
    return 0;
}

#ifndef PQ_FUZZ_NO_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return pq_fuzz_footer_one(data, size);
}
#endif
