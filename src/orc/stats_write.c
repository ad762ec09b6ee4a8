/*
 * stats_write.c - column statistics of the ORC writer: accumulated per
 * stripe (orc_colw.stripe), merged into the file's (orc_colw.file), and
 * encoded as ORC ColumnStatistics messages (field numbers of
 * orc_proto.proto, as the reader's stream.c decodes them):
 *   1 numberOfValues (non-null), 10 hasNull, and by kind
 *   2 IntegerStatistics {min, max, sum}   (sum left out when it overflows)
 *   3 DoubleStatistics {min, max, sum}    (all left out when a NaN was seen)
 *   4 StringStatistics {min, max, sum = total length}
 *   5 BucketStatistics {count = [true values]}
 *   6 DecimalStatistics {min, max} as decimal strings
 *   7 DateStatistics {min, max}
 *   8 BinaryStatistics {sum = total length}
 *   9 TimestampStatistics {min, max (local = UTC: the writer zone is UTC),
 *     minimumUtc, maximumUtc in milliseconds; minimumNanos, maximumNanos =
 *     the nanoseconds within the millisecond + 1, only when not zero}
 * Strings compare as unsigned bytes, as Iceberg and ORC order them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/format.h"
#include "orc/orc_write.h"

void orc_wstats_reset(orc_wstats *s)
{
    free(s->smin);
    free(s->smax);
    memset(s, 0, sizeof *s);
    s->sum_ok = true;
}

static int bytes_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    size_t n = an < bn ? an : bn;
    int c = n ? memcmp(a, b, n) : 0;
    return c ? c : (an > bn) - (an < bn);
}

static fl_status set_bytes(uint8_t **dst, size_t *dlen, const uint8_t *p, size_t n, fl_error *err)
{
    uint8_t *c = malloc(n ? n : 1);
    if (!c)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    if (n)
        memcpy(c, p, n);
    free(*dst);
    *dst = c;
    *dlen = n;
    return FL_OK;
}

/* min/max of bytes; the caller counts values and total_len. */
fl_status orc_wstats_string(orc_wstats *s, const uint8_t *p, size_t n, fl_error *err)
{
    if (!s->smin || bytes_cmp(p, n, s->smin, s->smin_len) < 0)
        FL_TRY(set_bytes(&s->smin, &s->smin_len, p, n, err));
    if (!s->smax || bytes_cmp(p, n, s->smax, s->smax_len) > 0)
        FL_TRY(set_bytes(&s->smax, &s->smax_len, p, n, err));
    s->has_minmax = true;
    return FL_OK;
}

fl_status orc_wstats_merge(orc_wstats *f, const orc_wstats *s, fl_error *err)
{
    bool first = !f->has_minmax;
    if (s->has_minmax) {
        if (first || s->imin < f->imin)
            f->imin = s->imin;
        if (first || s->imax > f->imax)
            f->imax = s->imax;
        if (first || s->dmin < f->dmin)
            f->dmin = s->dmin;
        if (first || s->dmax > f->dmax)
            f->dmax = s->dmax;
        if (first || s->decmin < f->decmin)
            f->decmin = s->decmin;
        if (first || s->decmax > f->decmax)
            f->decmax = s->decmax;
        if (s->smin)
            FL_TRY(orc_wstats_string(f, s->smin, s->smin_len, err));
        if (s->smax)
            FL_TRY(orc_wstats_string(f, s->smax, s->smax_len, err));
        f->has_minmax = true;
    }
    f->values += s->values;
    f->has_null = f->has_null || s->has_null;
    f->isum += s->isum;
    f->sum_ok = f->sum_ok && s->sum_ok && f->isum <= INT64_MAX && f->isum >= INT64_MIN;
    f->dsum += s->dsum;
    f->total_len += s->total_len;
    f->true_count += s->true_count;
    f->nan_count += s->nan_count;
    return FL_OK;
}

static fl_status decimal_string(fl_i128 v, int32_t scale, orc_buf *out, fl_error *err)
{
    char s[64];
    fl_format_decimal(v, scale, s, sizeof s);
    return orc_buf_put(out, s, strlen(s), err);
}

static void ts_millis(int64_t v, bool nanos, int64_t *ms, int32_t *sub_ns)
{
    int64_t per = nanos ? 1000000 : 1000;
    int64_t q = v / per, r = v % per;
    if (r < 0) {
        q--;
        r += per;
    }
    *ms = q;
    *sub_ns = (int32_t)(nanos ? r : r * 1000);
}

static fl_status timestamp_stats(const orc_wstats *s, const fl_type *t, orc_buf *m, fl_error *err)
{
    bool ns = t->id == FL_TYPE_TIMESTAMP_NS || t->id == FL_TYPE_TIMESTAMPTZ_NS;
    int64_t lo, hi;
    int32_t lo_ns, hi_ns;
    ts_millis(s->imin, ns, &lo, &lo_ns);
    ts_millis(s->imax, ns, &hi, &hi_ns);
    FL_TRY(orc_pbw_sint(m, 1, lo, err));
    FL_TRY(orc_pbw_sint(m, 2, hi, err));
    FL_TRY(orc_pbw_sint(m, 3, lo, err));
    FL_TRY(orc_pbw_sint(m, 4, hi, err));
    if (lo_ns)
        FL_TRY(orc_pbw_varint(m, 5, (uint64_t)lo_ns + 1, err));
    if (hi_ns)
        FL_TRY(orc_pbw_varint(m, 6, (uint64_t)hi_ns + 1, err));
    return FL_OK;
}

/* The kind-specific sub-message into m; *field its number (0 = none). */
static fl_status typed_stats(const orc_wstats *s, const fl_type *t, fl_orc_kind kind, orc_buf *m,
                             uint32_t *field, fl_error *err)
{
    bool mm = s->has_minmax && s->values > 0;
    *field = 0;
    switch (kind) {
    case FL_ORC_BYTE:
    case FL_ORC_SHORT:
    case FL_ORC_INT:
    case FL_ORC_LONG:
        *field = 2;
        if (mm) {
            FL_TRY(orc_pbw_sint(m, 1, s->imin, err));
            FL_TRY(orc_pbw_sint(m, 2, s->imax, err));
        }
        if (s->sum_ok && s->isum <= INT64_MAX && s->isum >= INT64_MIN)
            FL_TRY(orc_pbw_sint(m, 3, (int64_t)s->isum, err));
        return FL_OK;
    case FL_ORC_FLOAT:
    case FL_ORC_DOUBLE:
        *field = 3;
        if (mm && s->nan_count == 0) {
            FL_TRY(orc_pbw_double(m, 1, s->dmin, err));
            FL_TRY(orc_pbw_double(m, 2, s->dmax, err));
            FL_TRY(orc_pbw_double(m, 3, s->dsum, err));
        }
        return FL_OK;
    case FL_ORC_STRING:
        *field = 4;
        if (mm) {
            FL_TRY(orc_pbw_bytes(m, 1, s->smin, s->smin_len, err));
            FL_TRY(orc_pbw_bytes(m, 2, s->smax, s->smax_len, err));
        }
        return orc_pbw_sint(m, 3, (int64_t)s->total_len, err);
    case FL_ORC_BOOLEAN: {
        *field = 5;
        orc_buf packed = {0};
        fl_status rc = orc_buf_uvarint(&packed, s->true_count, err);
        if (rc == FL_OK)
            rc = orc_pbw_msg(m, 1, &packed, err);
        orc_buf_free(&packed);
        return rc;
    }
    case FL_ORC_DECIMAL:
        *field = 6;
        if (mm) {
            orc_buf d = {0};
            fl_status rc = decimal_string(s->decmin, t->scale, &d, err);
            if (rc == FL_OK)
                rc = orc_pbw_msg(m, 1, &d, err);
            d.len = 0;
            if (rc == FL_OK)
                rc = decimal_string(s->decmax, t->scale, &d, err);
            if (rc == FL_OK)
                rc = orc_pbw_msg(m, 2, &d, err);
            orc_buf_free(&d);
            return rc;
        }
        return FL_OK;
    case FL_ORC_DATE:
        *field = 7;
        if (mm) {
            FL_TRY(orc_pbw_sint(m, 1, s->imin, err));
            FL_TRY(orc_pbw_sint(m, 2, s->imax, err));
        }
        return FL_OK;
    case FL_ORC_BINARY: *field = 8; return orc_pbw_sint(m, 1, (int64_t)s->total_len, err);
    case FL_ORC_TIMESTAMP:
    case FL_ORC_TIMESTAMP_INSTANT: *field = 9; return mm ? timestamp_stats(s, t, m, err) : FL_OK;
    default: return FL_OK; /* struct, list, map: counts only */
    }
}

fl_status orc_wstats_encode(const orc_wstats *s, const fl_type *t, fl_orc_kind kind, orc_buf *out,
                            fl_error *err)
{
    orc_buf m = {0};
    uint32_t field = 0;
    fl_status rc = orc_pbw_varint(out, 1, s->values, err);
    if (rc == FL_OK && t)
        rc = typed_stats(s, t, kind, &m, &field, err);
    if (rc == FL_OK && field)
        rc = orc_pbw_msg(out, field, &m, err);
    if (rc == FL_OK)
        rc = orc_pbw_varint(out, 10, s->has_null ? 1 : 0, err);
    orc_buf_free(&m);
    return rc;
}
