/*
 * bzip2.c - the Avro "bzip2" codec through Debian's libbz2 (bzlib.h).
 *
 * Avro frames each block as one complete bzip2 stream. Decompression grows
 * the caller's buffer geometrically and never beyond max_len, so a hostile
 * block cannot allocate without bound.
 */
#include <bzlib.h>
#include <stdlib.h>
#include <string.h>

#include "avro/avro_internal.h"

bool avro_bzip2_available(void)
{
    return true;
}

fl_status avro_bzip2_decompress(const uint8_t *src, size_t src_len, uint8_t **dst, size_t *dst_cap,
                                size_t *dst_len, size_t max_len, fl_error *err)
{
    if (src_len > UINT32_MAX) {
        return fl_errorf(err, FL_ELIMIT, "bzip2 block too large");
    }
    bz_stream st;
    memset(&st, 0, sizeof st);
    fl_status rc = FL_OK;
    if (BZ2_bzDecompressInit(&st, 0, 0) != BZ_OK) {
        return fl_errorf(err, FL_ENOMEM, "bzip2: cannot initialize");
    }
    st.next_in = (char *)src;
    st.avail_in = (unsigned)src_len;
    size_t out = 0;
    for (;;) {
        if (out == *dst_cap) {
            if (*dst_cap >= max_len) {
                rc =
                    fl_errorf(err, FL_ELIMIT, "bzip2 block decompresses beyond %zu bytes", max_len);
                break;
            }
            size_t nc = *dst_cap ? *dst_cap * 2 : 65536;
            if (nc > max_len)
                nc = max_len;
            uint8_t *nd = realloc(*dst, nc);
            if (!nd) {
                rc = fl_errorf(err, FL_ENOMEM, "out of memory");
                break;
            }
            *dst = nd;
            *dst_cap = nc;
        }
        size_t room = *dst_cap - out;
        if (room > UINT32_MAX)
            room = UINT32_MAX;
        st.next_out = (char *)*dst + out;
        st.avail_out = (unsigned)room;
        int r = BZ2_bzDecompress(&st);
        out += room - st.avail_out;
        if (r == BZ_STREAM_END)
            break;
        if (r != BZ_OK) {
            rc = fl_errorf(err, FL_ECORRUPT, "bzip2: corrupt data (code %d)", r);
            break;
        }
        if (st.avail_in == 0 && st.avail_out != 0) {
            rc = fl_errorf(err, FL_ECORRUPT, "bzip2: truncated stream");
            break;
        }
    }
    BZ2_bzDecompressEnd(&st);
    *dst_len = out;
    return rc;
}

fl_status avro_bzip2_compress(const uint8_t *src, size_t src_len, fl_avro_buf *out, fl_error *err)
{
    if (src_len > UINT32_MAX / 2) {
        return fl_errorf(err, FL_ELIMIT, "bzip2 block too large");
    }
    bz_stream st;
    memset(&st, 0, sizeof st);
    if (BZ2_bzCompressInit(&st, 9, 0, 0) != BZ_OK) {
        return fl_errorf(err, FL_ENOMEM, "bzip2: cannot initialize");
    }
    size_t cap = src_len + src_len / 100 + 600, start = out->len;
    fl_status rc = FL_OK;
    if ((rc = fl_buf_reserve(out, cap, err)) == FL_OK) {
        st.next_in = (char *)src;
        st.avail_in = (unsigned)src_len;
        st.next_out = out->data + start;
        st.avail_out = (unsigned)cap;
        int r = BZ2_bzCompress(&st, BZ_FINISH);
        if (r != BZ_STREAM_END)
            rc = fl_errorf(err, FL_EIO, "bzip2: compression failed (code %d)", r);
        else
            out->len = start + (cap - st.avail_out);
    }
    BZ2_bzCompressEnd(&st);
    return rc;
}
