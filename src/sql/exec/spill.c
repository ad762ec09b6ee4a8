/*
 * spill.c - spill files: batches written to a temporary file and read back,
 * for operators whose state outgrows memory_limit (external sort runs).
 *
 * The file is created in spill_dir ($TMPDIR or /tmp by default) with
 * mkstemp and unlinked at once, so it disappears when closed - on success,
 * error, cancel or a crash alike; nothing is left to clean up.
 *
 * Byte layout (native endianness; the file never outlives the process), per
 * batch:
 *   u32 nrows, then per column (FLAT vectors only):
 *     u8 has_validity; [(nrows + 7) / 8 validity bytes]
 *     fixed width:  nrows * width data bytes
 *     STRING/BINARY: (nrows + 1) int64 offsets, then offsets[nrows] heap bytes
 * Nested columns are not spillable (FL_EUNSUPPORTED).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sql/exec/exec_internal.h"

fl_status ex_spill_open(fl_exec *x, ex_spill *s, fl_error *err)
{
    memset(s, 0, sizeof *s);
    const char *dir = x->opt.spill_dir;
    if (!dir || !*dir)
        dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    char path[4096];
    int n = snprintf(path, sizeof path, "%s/floe-spill-XXXXXX", dir);
    if (n < 0 || (size_t)n >= sizeof path)
        return fl_errorf(err, FL_EINVAL, "spill directory path too long");
    int fd = mkstemp(path);
    if (fd < 0)
        return fl_errorf(err, FL_EIO, "cannot create a spill file in %s", dir);
    unlink(path);
    s->f = fdopen(fd, "w+b");
    if (!s->f) {
        close(fd);
        return fl_errorf(err, FL_EIO, "cannot open a spill file in %s", dir);
    }
    return FL_OK;
}

void ex_spill_close(ex_spill *s)
{
    if (s->f)
        fclose(s->f);
    memset(s, 0, sizeof *s);
}

static fl_status wr(ex_spill *s, const void *p, size_t n, fl_error *err)
{
    if (n && fwrite(p, 1, n, s->f) != n)
        return fl_errorf(err, FL_EIO, "writing a spill file failed (disk full?)");
    s->bytes += n;
    return FL_OK;
}

static fl_status rd(ex_spill *s, void *p, size_t n, fl_error *err)
{
    if (n && fread(p, 1, n, s->f) != n)
        return fl_errorf(err, FL_ECORRUPT, "spill file truncated");
    return FL_OK;
}

fl_status ex_spill_write(ex_spill *s, const fl_batch *b, fl_error *err)
{
    uint32_t n = b->nrows;
    FL_TRY(wr(s, &n, 4, err));
    for (uint32_t c = 0; c < b->ncols; c++) {
        const fl_vector *v = &b->cols[c];
        if (fl_type_is_nested(v->type))
            return fl_errorf(err, FL_EUNSUPPORTED, "spilling nested columns");
        if (v->encoding != FL_VEC_FLAT)
            return fl_errorf(err, FL_EINVAL, "spilling a non-flat vector");
        uint8_t hv = v->validity != NULL;
        FL_TRY(wr(s, &hv, 1, err));
        if (hv)
            FL_TRY(wr(s, v->validity, ((size_t)n + 7) / 8, err));
        if (fl_type_is_varlen(v->type)) {
            if (n == 0) {
                int64_t z = 0;
                FL_TRY(wr(s, &z, 8, err));
                continue;
            }
            FL_TRY(wr(s, v->offsets, ((size_t)n + 1) * 8, err));
            FL_TRY(wr(s, v->heap, (size_t)v->offsets[n], err));
        } else {
            FL_TRY(wr(s, v->data, (size_t)n * fl_type_width(v->type), err));
        }
    }
    return FL_OK;
}

fl_status ex_spill_rewind(ex_spill *s, fl_error *err)
{
    if (fflush(s->f) != 0 || fseek(s->f, 0, SEEK_SET) != 0)
        return fl_errorf(err, FL_EIO, "rewinding a spill file failed");
    return FL_OK;
}

fl_status ex_spill_read(ex_spill *s, fl_batch *b, bool *eof, fl_error *err)
{
    fl_batch_reset(b);
    *eof = false;
    uint32_t n;
    size_t got = fread(&n, 1, 4, s->f);
    if (got == 0 && feof(s->f)) {
        *eof = true;
        return FL_OK;
    }
    if (got != 4)
        return fl_errorf(err, FL_ECORRUPT, "spill file truncated");
    if (n > FL_BATCH_CAP)
        return fl_errorf(err, FL_ECORRUPT, "spill file batch of %u rows", n);
    for (uint32_t c = 0; c < b->ncols; c++) {
        fl_vector *v = &b->cols[c];
        FL_TRY(fl_vector_reserve(v, n ? n : 1, err));
        uint8_t hv;
        FL_TRY(rd(s, &hv, 1, err));
        if (hv) {
            FL_TRY(fl_vector_ensure_validity(v, err));
            FL_TRY(rd(s, v->validity, ((size_t)n + 7) / 8, err));
        }
        if (fl_type_is_varlen(v->type)) {
            FL_TRY(rd(s, v->offsets, ((size_t)n + 1) * 8, err));
            int64_t hl = v->offsets[n];
            if (hl < 0 || (n && v->offsets[0] != 0))
                return fl_errorf(err, FL_ECORRUPT, "spill file offsets");
            for (uint32_t i = 0; i < n; i++)
                if (v->offsets[i + 1] < v->offsets[i] || v->offsets[i + 1] > hl)
                    return fl_errorf(err, FL_ECORRUPT, "spill file offsets");
            FL_TRY(fl_vector_reserve_heap(v, (size_t)hl, err));
            FL_TRY(rd(s, v->heap, (size_t)hl, err));
            v->heap_len = (size_t)hl;
        } else {
            FL_TRY(rd(s, v->data, (size_t)n * fl_type_width(v->type), err));
        }
        v->len = n;
    }
    b->nrows = n;
    return FL_OK;
}

/* Whether an operator holding `own` accounted bytes should spill now: past
 * its own budget, or (holding at least 256 KiB) when the statement as a
 * whole uses more than 3/4 of memory_limit - several breakers can be alive
 * at once (an aggregate streaming into a sort), and each must give way
 * before the shared limit turns into an error. */
bool ex_spill_wanted(fl_exec *x, uint64_t own, uint64_t budget)
{
    if (own > budget)
        return true;
    long long used = atomic_load(&x->mem_used);
    return own >= ((uint64_t)256 << 10) && used > 0 &&
           (uint64_t)used > x->memory_limit / 4 * 3;
}
