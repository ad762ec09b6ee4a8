/*
 * delete_eq.c - equality delete files (spec "Equality Delete Files"): a row
 * of a data file is deleted when it equals some row of the delete file on
 * every column of equality_ids; NULL equals NULL.
 *
 * One ice_eqset holds the rows of every applicable delete file with the same
 * (sorted) equality_ids. Rows are stored as normalized key bytes so that a
 * delete file written before a type promotion (int) matches data read as the
 * promoted type (long):
 *   per column: 0x00 (null) | 0x01 + value, where
 *     boolean            1 byte
 *     int, long, date, time, timestamp*   int64 LE
 *     float, double      double LE (not allowed by the spec; compared anyway)
 *     decimal            fl_i128 LE (unscaled; scale is the column's)
 *     string, binary, fixed, uuid   u32 length + bytes
 * The keys live in one growing byte buffer; an open-addressing table of
 * (hash, offset, length) indexes them (XXH3, load factor <= 1/2).
 *
 * Ownership: ice_eqset_free frees everything.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <xxhash.h>

#include "floe/parquet.h"
#include "iceberg/scan_internal.h"

typedef struct slot {
    uint64_t hash;
    uint64_t off; /* offset + 1 into keys; 0 = empty */
    uint32_t len;
} slot;

struct ice_eqset {
    uint32_t nids;
    int32_t *ids;
    uint8_t *keys;
    size_t keys_len, keys_cap;
    slot *slots;
    uint64_t nslots, count;
    uint8_t *scratch;
    size_t scratch_cap;
};

fl_status ice_eqset_new(const int32_t *ids, uint32_t nids, ice_eqset **out, fl_error *err)
{
    *out = NULL;
    ice_eqset *s = calloc(1, sizeof *s);
    if (!s || !(s->ids = malloc((nids ? nids : 1) * sizeof *s->ids))) {
        free(s);
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    memcpy(s->ids, ids, nids * sizeof *ids);
    s->nids = nids;
    *out = s;
    return FL_OK;
}

void ice_eqset_free(ice_eqset *s)
{
    if (!s)
        return;
    free(s->ids);
    free(s->keys);
    free(s->slots);
    free(s->scratch);
    free(s);
}

const int32_t *ice_eqset_ids(const ice_eqset *s, uint32_t *n)
{
    *n = s->nids;
    return s->ids;
}

uint64_t ice_eqset_size(const ice_eqset *s)
{
    return s->count;
}

/* Serializes vals into s->scratch; returns the length, or 0 on OOM. */
static size_t encode(ice_eqset *s, const fl_value *vals)
{
    size_t need = 0;
    for (uint32_t i = 0; i < s->nids; i++) {
        const fl_value *v = &vals[i];
        need += 1 + 16;
        if (!v->is_null && (fl_type_is_varlen(&v->type) || v->type.id == FL_TYPE_FIXED ||
                            v->type.id == FL_TYPE_UUID))
            need += 4 + v->v.bytes.len;
    }
    if (need > s->scratch_cap) {
        uint8_t *p = realloc(s->scratch, need * 2);
        if (!p)
            return 0;
        s->scratch = p;
        s->scratch_cap = need * 2;
    }
    uint8_t *o = s->scratch;
    for (uint32_t i = 0; i < s->nids; i++) {
        const fl_value *v = &vals[i];
        if (v->is_null) {
            *o++ = 0;
            continue;
        }
        *o++ = 1;
        int64_t x;
        double d;
        uint32_t l;
        switch (v->type.id) {
        case FL_TYPE_BOOLEAN: *o++ = v->v.b; break;
        case FL_TYPE_INT32:
        case FL_TYPE_DATE:
            x = v->v.i32;
            memcpy(o, &x, 8), o += 8;
            break;
        case FL_TYPE_FLOAT32:
            d = v->v.f32;
            memcpy(o, &d, 8), o += 8;
            break;
        case FL_TYPE_FLOAT64: memcpy(o, &v->v.f64, 8), o += 8; break;
        case FL_TYPE_DECIMAL: memcpy(o, &v->v.dec, 16), o += 16; break;
        case FL_TYPE_STRING:
        case FL_TYPE_BINARY:
        case FL_TYPE_FIXED:
        case FL_TYPE_UUID:
            l = (uint32_t)v->v.bytes.len;
            memcpy(o, &l, 4), o += 4;
            if (l)
                memcpy(o, v->v.bytes.ptr, l);
            o += l;
            break;
        default: memcpy(o, &v->v.i64, 8), o += 8; break;
        }
    }
    return (size_t)(o - s->scratch);
}

static slot *find(ice_eqset *s, uint64_t h, const uint8_t *k, size_t len)
{
    uint64_t mask = s->nslots - 1;
    for (uint64_t i = h & mask;; i = (i + 1) & mask) {
        slot *sl = &s->slots[i];
        if (!sl->off)
            return sl;
        if (sl->hash == h && sl->len == len && !memcmp(s->keys + sl->off - 1, k, len))
            return sl;
    }
}

static fl_status grow(ice_eqset *s, fl_error *err)
{
    uint64_t nn = s->nslots ? s->nslots * 2 : 1024;
    slot *old = s->slots;
    uint64_t on = s->nslots;
    s->slots = calloc(nn, sizeof *s->slots);
    if (!s->slots) {
        s->slots = old;
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    s->nslots = nn;
    for (uint64_t i = 0; i < on; i++)
        if (old[i].off)
            *find(s, old[i].hash, s->keys + old[i].off - 1, old[i].len) = old[i];
    free(old);
    return FL_OK;
}

static fl_status insert(ice_eqset *s, size_t len, fl_error *err)
{
    if ((s->count + 1) * 2 > s->nslots)
        FL_TRY(grow(s, err));
    uint64_t h = XXH3_64bits(s->scratch, len);
    slot *sl = find(s, h, s->scratch, len);
    if (sl->off)
        return FL_OK;
    if (s->keys_len + len > s->keys_cap) {
        size_t nc = (s->keys_cap + len) * 2;
        uint8_t *p = realloc(s->keys, nc);
        if (!p)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        s->keys = p;
        s->keys_cap = nc;
    }
    memcpy(s->keys + s->keys_len, s->scratch, len);
    sl->hash = h;
    sl->off = s->keys_len + 1;
    sl->len = (uint32_t)len;
    s->keys_len += len;
    s->count++;
    return FL_OK;
}

bool ice_eqset_contains(ice_eqset *s, const fl_value *vals)
{
    if (s->count == 0)
        return false;
    size_t len = encode(s, vals);
    if (len == 0)
        return false;
    uint64_t h = XXH3_64bits(s->scratch, len);
    return find(s, h, s->scratch, len)->off != 0;
}

fl_status ice_eqset_load(ice_eqset *s, fl_fileio *io, const fl_ice_data_file *del, fl_error *err)
{
    if (strcasecmp(del->file_format, "PARQUET") != 0)
        return fl_errorf(err, FL_EUNSUPPORTED, "%s: equality delete file format %s", del->file_path,
                         del->file_format);
    fl_file *f = NULL;
    fl_parquet_reader *r = NULL;
    fl_parquet_scan *sc = NULL;
    fl_batch b;
    bool binit = false;
    int *col = calloc(s->nids ? s->nids : 1, sizeof *col);
    fl_value *vals = calloc(s->nids ? s->nids : 1, sizeof *vals);
    fl_status rc = col && vals ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
    if (rc == FL_OK)
        rc = fl_fileio_open(io, del->file_path, &f, err);
    if (rc == FL_OK)
        rc = fl_parquet_open(f, NULL, &r, err);
    fl_parquet_scan_options so = {.field_ids = s->ids, .nfield_ids = s->nids};
    if (rc == FL_OK)
        rc = fl_parquet_scan_open(r, &so, &sc, err);
    const fl_schema *ss = rc == FL_OK ? fl_parquet_scan_schema(sc) : NULL;
    for (uint32_t k = 0; rc == FL_OK && k < s->nids; k++) {
        col[k] = -1;
        for (uint32_t i = 0; i < ss->nfields; i++)
            if (ss->fields[i].field_id == s->ids[k])
                col[k] = (int)i;
        if (col[k] < 0 || fl_type_is_nested(&ss->fields[col[k]].type))
            rc = fl_errorf(err, FL_ECORRUPT, "equality column with field id %d missing or nested",
                           s->ids[k]);
    }
    if (rc == FL_OK) {
        rc = fl_batch_init(&b, ss, err);
        binit = rc == FL_OK;
    }
    while (rc == FL_OK) {
        bool eof = false;
        rc = fl_parquet_scan_next(sc, &b, &eof, err);
        if (rc != FL_OK || eof)
            break;
        for (uint32_t i = 0; i < b.nrows && rc == FL_OK; i++) {
            for (uint32_t k = 0; k < s->nids; k++)
                ice_vec_value(&b.cols[col[k]], i, &vals[k]);
            size_t len = encode(s, vals);
            rc = len ? insert(s, len, err) : fl_errorf(err, FL_ENOMEM, "out of memory");
        }
    }
    if (binit)
        fl_batch_destroy(&b);
    fl_parquet_scan_close(sc);
    fl_parquet_close(r);
    fl_file_close(f);
    free(col);
    free(vals);
    if (rc != FL_OK)
        return fl_error_prefix(err, "equality deletes %s", del->file_path);
    return FL_OK;
}
