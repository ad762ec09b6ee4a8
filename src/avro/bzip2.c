/*
 * bzip2.c - the Avro "bzip2" codec through libbz2.so.1.0 loaded at run time
 * with dlopen, so libfloe has no link-time dependency on libbz2 (it is not
 * in the project's dependency list). When the library cannot be loaded,
 * the codec is reported as unsupported with a clear message.
 *
 * The bz_stream layout and constants below are libbz2 1.0's stable ABI
 * (bzlib.h); declaring them here avoids needing libbz2-dev to build.
 * Each call dlopens/dlcloses (reference counted by the loader): no global
 * state.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "avro/avro_internal.h"

typedef struct bz_stream_abi {
    char *next_in;
    unsigned int avail_in;
    unsigned int total_in_lo32;
    unsigned int total_in_hi32;
    char *next_out;
    unsigned int avail_out;
    unsigned int total_out_lo32;
    unsigned int total_out_hi32;
    void *state;
    void *(*bzalloc)(void *, int, int);
    void (*bzfree)(void *, void *);
    void *opaque;
} bz_stream_abi;

enum { BZ_OK_ = 0, BZ_RUN_ = 0, BZ_FINISH_ = 2, BZ_FINISH_OK_ = 3, BZ_STREAM_END_ = 4 };

typedef struct bz_api {
    void *lib;
    int (*decompress_init)(bz_stream_abi *, int, int);
    int (*decompress)(bz_stream_abi *);
    int (*decompress_end)(bz_stream_abi *);
    int (*compress_init)(bz_stream_abi *, int, int, int);
    int (*compress)(bz_stream_abi *, int);
    int (*compress_end)(bz_stream_abi *);
} bz_api;

static bool bz_load(bz_api *api)
{
    memset(api, 0, sizeof *api);
    api->lib = dlopen("libbz2.so.1.0", RTLD_NOW | RTLD_LOCAL);
    if (!api->lib)
        api->lib = dlopen("libbz2.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!api->lib)
        return false;
    /* POSIX guarantees object <-> function pointer conversion for dlsym */
    *(void **)&api->decompress_init = dlsym(api->lib, "BZ2_bzDecompressInit");
    *(void **)&api->decompress = dlsym(api->lib, "BZ2_bzDecompress");
    *(void **)&api->decompress_end = dlsym(api->lib, "BZ2_bzDecompressEnd");
    *(void **)&api->compress_init = dlsym(api->lib, "BZ2_bzCompressInit");
    *(void **)&api->compress = dlsym(api->lib, "BZ2_bzCompress");
    *(void **)&api->compress_end = dlsym(api->lib, "BZ2_bzCompressEnd");
    if (!api->decompress_init || !api->decompress || !api->decompress_end || !api->compress_init ||
        !api->compress || !api->compress_end) {
        dlclose(api->lib);
        api->lib = NULL;
        return false;
    }
    return true;
}

bool avro_bzip2_available(void)
{
    bz_api api;
    if (!bz_load(&api))
        return false;
    dlclose(api.lib);
    return true;
}

static fl_status unavailable(fl_error *err)
{
    return fl_errorf(err, FL_EUNSUPPORTED,
                     "codec bzip2 needs libbz2.so.1.0, which could not be loaded");
}

fl_status avro_bzip2_decompress(const uint8_t *src, size_t src_len, uint8_t **dst,
                                size_t *dst_cap, size_t *dst_len, size_t max_len, fl_error *err)
{
    bz_api api;
    if (!bz_load(&api))
        return unavailable(err);
    if (src_len > UINT32_MAX) {
        dlclose(api.lib);
        return fl_errorf(err, FL_ELIMIT, "bzip2 block too large");
    }
    bz_stream_abi st;
    memset(&st, 0, sizeof st);
    fl_status rc = FL_OK;
    if (api.decompress_init(&st, 0, 0) != BZ_OK_) {
        dlclose(api.lib);
        return fl_errorf(err, FL_ENOMEM, "bzip2: cannot initialize");
    }
    st.next_in = (char *)src;
    st.avail_in = (unsigned)src_len;
    size_t out = 0;
    for (;;) {
        if (out == *dst_cap) {
            if (*dst_cap >= max_len) {
                rc = fl_errorf(err, FL_ELIMIT, "bzip2 block decompresses beyond %zu bytes", max_len);
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
        int r = api.decompress(&st);
        out += room - st.avail_out;
        if (r == BZ_STREAM_END_)
            break;
        if (r != BZ_OK_) {
            rc = fl_errorf(err, FL_ECORRUPT, "bzip2: corrupt data (code %d)", r);
            break;
        }
        if (st.avail_in == 0 && st.avail_out != 0) {
            rc = fl_errorf(err, FL_ECORRUPT, "bzip2: truncated stream");
            break;
        }
    }
    api.decompress_end(&st);
    dlclose(api.lib);
    *dst_len = out;
    return rc;
}

fl_status avro_bzip2_compress(const uint8_t *src, size_t src_len, fl_avro_buf *out, fl_error *err)
{
    bz_api api;
    if (!bz_load(&api))
        return unavailable(err);
    if (src_len > UINT32_MAX / 2) {
        dlclose(api.lib);
        return fl_errorf(err, FL_ELIMIT, "bzip2 block too large");
    }
    bz_stream_abi st;
    memset(&st, 0, sizeof st);
    if (api.compress_init(&st, 9, 0, 0) != BZ_OK_) {
        dlclose(api.lib);
        return fl_errorf(err, FL_ENOMEM, "bzip2: cannot initialize");
    }
    size_t cap = src_len + src_len / 100 + 600, start = out->len;
    fl_status rc = FL_OK;
    if (!avro_buf_put(out, NULL, 0) || cap > SIZE_MAX - out->len) {
        rc = fl_errorf(err, FL_ENOMEM, "out of memory");
    } else {
        /* reserve cap bytes */
        uint8_t *nd = out->cap - out->len >= cap ? out->data : realloc(out->data, out->len + cap);
        if (!nd) {
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
        } else {
            if (nd != out->data || out->cap - out->len < cap) {
                out->data = nd;
                out->cap = out->len + cap;
            }
            st.next_in = (char *)src;
            st.avail_in = (unsigned)src_len;
            st.next_out = (char *)out->data + start;
            st.avail_out = (unsigned)cap;
            int r = api.compress(&st, BZ_FINISH_);
            if (r != BZ_STREAM_END_)
                rc = fl_errorf(err, FL_EIO, "bzip2: compression failed (code %d)", r);
            else
                out->len = start + (cap - st.avail_out);
        }
    }
    api.compress_end(&st);
    dlclose(api.lib);
    return rc;
}
