/*
 * page_read.c - walks the pages of one column chunk: chunk bytes, page
 * headers, CRC checks and decompression.
 *
 * A column chunk occupies [chunk_start, chunk_start + total_compressed_size)
 * of the file, where chunk_start is the dictionary page offset when it is set
 * and precedes the first data page, else data_page_offset (some writers store
 * dictionary_page_offset = 0 and put the dictionary at data_page_offset: we
 * start at the first page either way and recognise the dictionary by its
 * page type). The chunk is read with one ranged read when it is at most
 * FL_PQ_CHUNK_READ_MAX bytes, else through a window of that size, so memory
 * stays bounded by one row group's projected chunks.
 *
 * Each page is: PageHeader (Thrift compact, parquet.thrift) then
 * compressed_page_size bytes. DATA_PAGE (v1) compresses levels and values
 * together; DATA_PAGE_V2 stores repetition then definition levels
 * uncompressed, followed by the values, compressed only when is_compressed
 * (an empty values section is never handed to the codec). The optional page
 * CRC is CRC-32 of the compressed_page_size bytes after the header.
 * INDEX_PAGEs and unknown page types are skipped. A dictionary page is
 * only noted when met; it is decoded when the first dictionary-encoded data
 * page of the chunk arrives (a chunk that fell back to PLAIN after its first
 * pages, read through the page index, never decodes it).
 *
 * ZSTD pages are decompressed here with a context the column reader keeps
 * (ZSTD_decompressDCtx) instead of fl_decompress: the one-shot
 * ZSTD_decompress allocates a fresh ~160 KiB context per page, which glibc
 * serves by mmap, and the page faults of that (~17 us each on the benchmark
 * VM) cost more than small TPC-H queries' decoding.
 */
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "floe/compress.h"
#include "parquet/reader_int.h"

/* Declared in column_reader.c. */
fl_status fl_pq_col_decode_dict(fl_pq_col *c, const fl_pq_page_header *h, const uint8_t *data,
                                size_t len, fl_error *err);
fl_status fl_pq_col_decode_v1(fl_pq_col *c, const fl_pq_page_header *h, const uint8_t *data,
                              size_t len, fl_error *err);
fl_status fl_pq_col_decode_v2(fl_pq_col *c, const fl_pq_page_header *h, const uint8_t *levels,
                              const uint8_t *vals, size_t vlen, fl_error *err);

fl_status fl_pq_col_error(const fl_pq_col *c, fl_error *err)
{
    return fl_error_prefix(err, "column '%s': page at offset %llu", c->leaf->path,
                           (unsigned long long)c->page_off);
}

static bool valid_offset_index(const fl_pq_offset_index *oi, uint64_t start, uint64_t end,
                               int64_t rows)
{
    if (!oi || oi->npages == 0)
        return false;
    for (uint32_t i = 0; i < oi->npages; i++) {
        const fl_pq_page_location *l = &oi->page_locations[i];
        if (l->offset < (int64_t)start || l->compressed_page_size <= 0 ||
            (uint64_t)l->offset + (uint64_t)l->compressed_page_size > end)
            return false;
        if (l->first_row_index < 0 || l->first_row_index > rows)
            return false;
        if (i == 0 ? l->first_row_index != 0
                   : (l->first_row_index < oi->page_locations[i - 1].first_row_index ||
                      l->offset < oi->page_locations[i - 1].offset +
                                      oi->page_locations[i - 1].compressed_page_size))
            return false;
    }
    return true;
}

fl_status fl_pq_col_init(fl_pq_col *c, fl_parquet_reader *r, fl_error *err)
{
    memset(c, 0, sizeof *c);
    c->r = r;
    fl_arena_init(&c->hdr_arena, 4096);
    c->bin_type.id = FL_TYPE_BINARY;
    FL_TRY(fl_vector_init(&c->dict_var, &c->bin_type, err));
    FL_TRY(fl_vector_init(&c->var, &c->bin_type, err));
    FL_TRY(fl_vector_init(&c->tmp_var, &c->bin_type, err));
    return FL_OK;
}

fl_status fl_pq_col_open(fl_pq_col *c, uint32_t rg, const fl_pq_leaf *leaf, int16_t slot_def,
                         const fl_pq_offset_index *oi, int64_t start_row, int64_t end_row,
                         fl_error *err)
{
    /* per-chunk state; buffers stay allocated across row groups */
    fl_parquet_reader *r = c->r;
    c->leaf = leaf;
    c->slot_def = slot_def;
    c->win_len = 0;
    c->win_off = 0;
    c->next_page = 0;
    c->pages_read = c->pages_skipped = 0;
    c->in_row = false;
    /* the same chunk again (the next row range of a split row group): its
     * decoded dictionary stays */
    c->dict_kept = c->has_dict && c->dict_leaf == leaf && c->dict_rg == rg;
    c->has_dict = c->dict_kept;
    c->dict_pending = false;
    if (!c->dict_kept)
        c->dict_n = 0;
    c->rg = rg;
    c->page_off = 0;
    c->pn = c->pp = c->vn = c->vp = 0;
    c->dict_page = false;
    c->fixed = NULL;
    if (!c->dict_kept)
        fl_vector_reset(&c->dict_var);
    fl_vector_reset(&c->var);
    fl_vector_reset(&c->tmp_var);
    c->cc = NULL;
    const fl_pq_row_group *g = &r->meta.row_groups[rg];
    c->cc = &g->columns[leaf->index];
    const fl_pq_column_meta *m = &c->cc->meta_data;
    FL_CHECK(!g->columns[leaf->index].encrypted, err, FL_EUNSUPPORTED,
             "column '%s': encrypted column chunks are not supported", leaf->path);
    FL_CHECK(c->cc->meta_data_set, err, FL_ECORRUPT,
             "column '%s': row group %u: column metadata missing", leaf->path, rg);
    FL_CHECK(m->type == leaf->physical, err, FL_ECORRUPT,
             "column '%s': row group %u: chunk type %d differs from schema type %d", leaf->path, rg,
             (int)m->type, (int)leaf->physical);
    int64_t start = m->data_page_offset;
    if (m->dictionary_page_offset > 0 && m->dictionary_page_offset < start)
        start = m->dictionary_page_offset;
    FL_CHECK(start >= 4 && m->total_compressed_size >= 0 && (uint64_t)start <= r->footer_start &&
                 (uint64_t)m->total_compressed_size <= r->footer_start - (uint64_t)start,
             err, FL_ECORRUPT,
             "column '%s': row group %u: chunk at offset %lld of %lld bytes lies outside the data "
             "(%llu bytes)",
             leaf->path, rg, (long long)start, (long long)m->total_compressed_size,
             (unsigned long long)r->footer_start);
    FL_CHECK(m->num_values >= 0, err, FL_ECORRUPT, "column '%s': negative value count", leaf->path);
    c->chunk_start = (uint64_t)start;
    c->chunk_end = (uint64_t)start + (uint64_t)m->total_compressed_size;
    c->pos = c->chunk_start;
    c->values_left = m->num_values;
    c->rg_rows = g->num_rows;
    c->oi = valid_offset_index(oi, c->chunk_start, c->chunk_end, g->num_rows) ? oi : NULL;
    c->read_end = c->chunk_end;
    c->lead_end = 0;
    if (c->oi && start_row > 0 && (uint64_t)c->oi->page_locations[0].offset > c->chunk_start)
        c->lead_end = (uint64_t)c->oi->page_locations[0].offset;
    if (c->oi && end_row >= 0 && end_row < g->num_rows) {
        /* pages starting at or after end_row are never needed */
        uint32_t k = 0;
        while (k < c->oi->npages && c->oi->page_locations[k].first_row_index < end_row)
            k++;
        if (k > 0 && k < c->oi->npages)
            c->read_end = (uint64_t)c->oi->page_locations[k - 1].offset +
                          (uint64_t)c->oi->page_locations[k - 1].compressed_page_size;
    }
    return FL_OK;
}

void fl_pq_col_free(fl_pq_col *c)
{
    if (!c || !c->r)
        return;
    free(c->win);
    free(c->page);
    ZSTD_freeDCtx(c->zstd);
    free(c->dict_fixed);
    free(c->def);
    free(c->rep);
    free(c->idx);
    free(c->fixed_buf);
    free(c->raw_buf);
    fl_vector_destroy(&c->dict_var);
    fl_vector_destroy(&c->var);
    fl_vector_destroy(&c->tmp_var);
    fl_arena_free(&c->hdr_arena);
    memset(c, 0, sizeof *c);
}

fl_status fl_pq_col_bytes(fl_pq_col *c, uint64_t off, size_t len, const uint8_t **p, fl_error *err)
{
    FL_CHECK(off >= c->chunk_start && off <= c->chunk_end && len <= c->chunk_end - off, err,
             FL_ECORRUPT, "%zu bytes at offset %llu run past the column chunk end %llu", len,
             (unsigned long long)off, (unsigned long long)c->chunk_end);
    if (c->win && off >= c->win_off && off - c->win_off <= c->win_len &&
        len <= c->win_len - (off - c->win_off)) {
        *p = c->win + (off - c->win_off);
        return FL_OK;
    }
    uint64_t from, to;
    if (off < c->lead_end && len <= c->lead_end - off) {
        /* the dictionary of a scan that starts past page 0: not the pages between */
        from = off;
        to = c->lead_end;
    } else if (c->chunk_end - c->chunk_start <= FL_PQ_CHUNK_READ_MAX) {
        /* one read from here to the last page the scan needs (the chunk end
         * unless page pruning bounded it); skipped leading pages are not read */
        from = off;
        to = c->read_end > off + len ? c->read_end : c->chunk_end;
    } else {
        from = off;
        to = off + (len > FL_PQ_CHUNK_READ_MAX ? len : FL_PQ_CHUNK_READ_MAX);
        if (to > c->chunk_end)
            to = c->chunk_end;
    }
    size_t n = (size_t)(to - from);
    if (n > c->win_cap) {
        uint8_t *nb = realloc(c->win, n ? n : 1);
        if (!nb)
            return fl_errorf(err, FL_ENOMEM, "out of memory reading %zu bytes", n);
        c->win = nb;
        c->win_cap = n;
    }
    c->win_len = 0;
    FL_TRY(fl_file_read_at(c->r->file, from, c->win, n, err));
    c->win_off = from;
    c->win_len = n;
    *p = c->win + (off - from);
    return FL_OK;
}

static fl_status codec_of(fl_pq_codec pc, fl_codec *out, fl_error *err)
{
    switch (pc) {
    case FL_PQ_UNCOMPRESSED: *out = FL_CODEC_NONE; return FL_OK;
    case FL_PQ_SNAPPY: *out = FL_CODEC_SNAPPY; return FL_OK;
    case FL_PQ_GZIP: *out = FL_CODEC_GZIP; return FL_OK;
    case FL_PQ_BROTLI: *out = FL_CODEC_BROTLI; return FL_OK;
    case FL_PQ_LZ4: *out = FL_CODEC_LZ4_HADOOP; return FL_OK;
    case FL_PQ_ZSTD: *out = FL_CODEC_ZSTD; return FL_OK;
    case FL_PQ_LZ4_RAW: *out = FL_CODEC_LZ4_RAW; return FL_OK;
    case FL_PQ_LZO: return fl_errorf(err, FL_EUNSUPPORTED, "LZO compression is not supported");
    default: return fl_errorf(err, FL_EUNSUPPORTED, "unknown compression codec %d", (int)pc);
    }
}

/* ZSTD frames in src into dst (exactly dst_len bytes) with c's reused context;
 * the same checks and messages as fl_decompress's. */
static fl_status zstd_page(fl_pq_col *c, const uint8_t *src, size_t src_len, uint8_t *dst,
                           size_t dst_len, fl_error *err)
{
    if (!c->zstd) {
        c->zstd = ZSTD_createDCtx();
        if (!c->zstd)
            return fl_errorf(err, FL_ENOMEM, "zstd: cannot create a decompression context");
    }
    size_t r = ZSTD_decompressDCtx(c->zstd, dst, dst_len, src, src_len);
    if (ZSTD_isError(r)) {
        if (ZSTD_getErrorCode(r) == ZSTD_error_dstSize_tooSmall)
            return fl_errorf(err, FL_ECORRUPT, "zstd: output exceeds the expected %zu bytes",
                             dst_len);
        return fl_errorf(err, FL_ECORRUPT, "zstd: %s", ZSTD_getErrorName(r));
    }
    FL_CHECK(r == dst_len, err, FL_ECORRUPT, "zstd: decompressed to %zu bytes, expected %zu", r,
             dst_len);
    return FL_OK;
}

/* Decompresses src into c->page (exactly dst_len bytes); *out points at the result. */
static fl_status decompress(fl_pq_col *c, const uint8_t *src, size_t src_len, size_t dst_len,
                            const uint8_t **out, fl_error *err)
{
    fl_codec codec;
    FL_TRY(codec_of(c->cc->meta_data.codec, &codec, err));
    if (codec == FL_CODEC_NONE) {
        FL_CHECK(src_len == dst_len, err, FL_ECORRUPT,
                 "uncompressed page holds %zu bytes, header says %zu", src_len, dst_len);
        *out = src;
        return FL_OK;
    }
    if (dst_len > c->page_cap) {
        uint8_t *nb = realloc(c->page, dst_len);
        if (!nb)
            return fl_errorf(err, FL_ENOMEM, "out of memory for a %zu-byte page", dst_len);
        c->page = nb;
        c->page_cap = dst_len;
    }
    if (dst_len == 0) {
        FL_CHECK(src_len == 0 || codec != FL_CODEC_NONE, err, FL_ECORRUPT, "empty page with data");
        *out = c->page;
        return FL_OK;
    }
    if (codec == FL_CODEC_ZSTD)
        FL_TRY(zstd_page(c, src, src_len, c->page, dst_len, err));
    else
        FL_TRY(fl_decompress(codec, src, src_len, c->page, dst_len, err));
    *out = c->page;
    return FL_OK;
}

void fl_pq_col_skip_page(fl_pq_col *c)
{
    const fl_pq_page_location *l = &c->oi->page_locations[c->next_page];
    c->pos = (uint64_t)l->offset + (uint64_t)l->compressed_page_size;
    c->next_page++;
    c->pages_skipped++;
    c->pn = c->pp = 0;
    c->vn = c->vp = 0;
}

/* Decodes the pending dictionary page (c->dict_hdr at c->dict_body_off). */
static fl_status load_dict(fl_pq_col *c, fl_error *err)
{
    const fl_pq_page_header *h = &c->dict_hdr;
    const uint8_t *body, *data;
    c->dict_pending = false;
    FL_TRY(fl_pq_col_bytes(c, c->dict_body_off, (size_t)h->compressed_page_size, &body, err));
    FL_TRY(decompress(c, body, (size_t)h->compressed_page_size, (size_t)h->uncompressed_page_size,
                      &data, err));
    return fl_pq_col_decode_dict(c, h, data, (size_t)h->uncompressed_page_size, err);
}

static fl_status load_page(fl_pq_col *c, bool *is_data, fl_error *err)
{
    *is_data = false;
    uint64_t max_page = c->r->opt.max_page_size ? c->r->opt.max_page_size : (1ull << 30);
    c->page_off = c->pos;
    size_t avail = (size_t)(c->chunk_end - c->pos);
    size_t want = avail < (1u << 20) ? avail : (1u << 20);
    /* a needed page lies wholly before read_end: do not make the header read
     * pull in pages the scan will skip */
    if (c->pos < c->read_end && c->read_end - c->pos < want)
        want = (size_t)(c->read_end - c->pos);
    if (c->pos < c->lead_end && c->lead_end - c->pos < want)
        want = (size_t)(c->lead_end - c->pos);
    const uint8_t *p = NULL;
    FL_TRY(fl_pq_col_bytes(c, c->pos, want, &p, err));
    fl_arena_reset(&c->hdr_arena);
    fl_pq_page_header h;
    size_t hl = 0;
    memset(&h, 0, sizeof h);
    FL_TRY(fl_pq_decode_page_header(p, want, &c->hdr_arena, &h, &hl, err));
    FL_CHECK(h.compressed_page_size >= 0 && h.uncompressed_page_size >= 0, err, FL_ECORRUPT,
             "negative page size");
    FL_CHECK((uint64_t)h.uncompressed_page_size <= max_page &&
                 (uint64_t)h.compressed_page_size <= max_page,
             err, FL_ELIMIT, "page of %d bytes exceeds the %llu-byte page size limit",
             h.uncompressed_page_size, (unsigned long long)max_page);
    FL_CHECK(hl <= avail && (size_t)h.compressed_page_size <= avail - hl, err, FL_ECORRUPT,
             "page of %d bytes runs past the column chunk end", h.compressed_page_size);
    if (c->dict_pending && (h.type == FL_PQ_DATA_PAGE || h.type == FL_PQ_DATA_PAGE_V2) &&
        (h.encoding == FL_PQ_ENC_PLAIN_DICTIONARY || h.encoding == FL_PQ_ENC_RLE_DICTIONARY))
        FL_TRY(load_dict(c, err)); /* before this page's bytes: it may move the window */
    const uint8_t *body;
    FL_TRY(fl_pq_col_bytes(c, c->pos + hl, (size_t)h.compressed_page_size, &body, err));
    c->pos += hl + (uint64_t)h.compressed_page_size;
    if (c->r->opt.verify_crc && h.crc_set &&
        (h.type == FL_PQ_DATA_PAGE || h.type == FL_PQ_DATA_PAGE_V2 ||
         h.type == FL_PQ_DICTIONARY_PAGE)) {
        uint32_t crc = fl_crc32(0, body, (size_t)h.compressed_page_size);
        FL_CHECK(crc == h.crc, err, FL_ECHECKSUM, "page CRC mismatch (stored %08x, computed %08x)",
                 h.crc, crc);
    }
    if (h.type == FL_PQ_DICTIONARY_PAGE && c->dict_kept) {
        c->dict_kept = false; /* decoded when this chunk was read before */
        return FL_OK;
    }
    if (h.type == FL_PQ_DICTIONARY_PAGE) {
        FL_CHECK(!c->has_dict && !c->dict_pending, err, FL_ECORRUPT,
                 "second dictionary page in a column chunk");
        c->dict_pending = true; /* decoded by load_dict when a page needs it */
        c->dict_body_off = c->pos - (uint64_t)h.compressed_page_size;
        c->dict_hdr = h;
        c->dict_hdr.statistics_set = false; /* its statistics live in hdr_arena */
        return FL_OK;
    }
    if (h.type != FL_PQ_DATA_PAGE && h.type != FL_PQ_DATA_PAGE_V2)
        return FL_OK; /* INDEX_PAGE or unknown: skip */
    *is_data = true;
    if (c->oi)
        c->next_page++;
    c->pages_read++;
    FL_CHECK(h.num_values >= 0 && h.num_values <= c->values_left && h.num_values <= (1 << 24), err,
             FL_ECORRUPT, "page claims %d values, %lld left in the chunk", h.num_values,
             (long long)c->values_left);
    c->values_left -= h.num_values;
    if (h.type == FL_PQ_DATA_PAGE) {
        const uint8_t *data;
        FL_TRY(decompress(c, body, (size_t)h.compressed_page_size, (size_t)h.uncompressed_page_size,
                          &data, err));
        return fl_pq_col_decode_v1(c, &h, data, (size_t)h.uncompressed_page_size, err);
    }
    /* v2: levels stay uncompressed in front of the (maybe compressed) values */
    int32_t rl = h.repetition_levels_byte_length, dl = h.definition_levels_byte_length;
    FL_CHECK(rl >= 0 && dl >= 0 && (int64_t)rl + dl <= h.compressed_page_size &&
                 (int64_t)rl + dl <= h.uncompressed_page_size,
             err, FL_ECORRUPT, "v2 page level lengths %d + %d exceed the page size", rl, dl);
    size_t lev = (size_t)rl + (size_t)dl;
    size_t csz = (size_t)h.compressed_page_size - lev;
    size_t usz = (size_t)h.uncompressed_page_size - lev;
    const uint8_t *vals = body + lev;
    fl_codec codec;
    FL_TRY(codec_of(c->cc->meta_data.codec, &codec, err));
    size_t vlen = csz;
    if (h.is_compressed && codec != FL_CODEC_NONE && csz > 0) {
        FL_TRY(decompress(c, vals, csz, usz, &vals, err));
        vlen = usz;
    } else if (h.is_compressed && codec != FL_CODEC_NONE) {
        FL_CHECK(usz == 0, err, FL_ECORRUPT, "empty compressed values of %zu bytes", usz);
    }
    return fl_pq_col_decode_v2(c, &h, body, vals, vlen, err);
}

fl_status fl_pq_col_pass_leading(fl_pq_col *c, fl_error *err)
{
    if (c->dict_kept && c->oi && c->next_page == 0 && c->pn == 0 &&
        c->pos < (uint64_t)c->oi->page_locations[0].offset) {
        /* the dictionary is decoded already: nothing before page 0 to read */
        c->pos = (uint64_t)c->oi->page_locations[0].offset;
        c->dict_kept = false;
        return FL_OK;
    }
    while (c->oi && c->next_page == 0 && c->pn == 0 &&
           c->pos < (uint64_t)c->oi->page_locations[0].offset) {
        bool is_data;
        if (load_page(c, &is_data, err) != FL_OK)
            return fl_pq_col_error(c, err);
        if (is_data) /* a data page before page 0's offset: read on from it */
            return FL_OK;
    }
    return FL_OK;
}

fl_status fl_pq_col_next_page(fl_pq_col *c, bool *eof, fl_error *err)
{
    *eof = false;
    for (;;) {
        bool done = c->oi ? c->next_page >= c->oi->npages : c->values_left <= 0;
        if (done || c->pos >= c->chunk_end) {
            /* a dictionary page may still sit in front of nothing: fine */
            *eof = true;
            return FL_OK;
        }
        bool is_data;
        fl_status st = load_page(c, &is_data, err);
        if (st != FL_OK)
            return fl_pq_col_error(c, err);
        if (is_data)
            return FL_OK;
    }
}
