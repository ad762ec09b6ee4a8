/*
 * scan.c - reading the rows of an ORC file: for each chosen stripe, the
 * stripe footer (after the index and data regions) lists the streams in
 * file order and the column encodings; the streams of the projected columns
 * are read with one ranged read each, decompressed, and decoded batch by
 * batch (column.c). Streams of other columns and the row index are skipped.
 *
 * Invariants: every stream lies inside its stripe's index + data region;
 * a column has at most one stream of each kind; the encoding list covers
 * every projected column. Buffers of a stripe are freed when the next one
 * starts or the scan closes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orc/column.h"

struct fl_orc_scan {
    fl_orc_reader *r;
    fl_schema schema;
    orc_col *cols;   /* schema.nfields top-level readers */
    orc_col **by_id; /* ntypes: the reader of each ORC column, NULL if not projected */
    uint32_t *stripes;
    uint32_t nstripes, next_stripe;
    uint32_t asked, pruned; /* stripes asked for; skipped by the predicate */
    uint64_t rows_left;
    bool in_stripe;
    char tzname[128]; /* the current stripe footer's writerTimezone ("" = none) */
    orc_tz tz;        /* loaded for tzname when a TIMESTAMP column is projected */
};

static const char *stream_name(uint64_t kind)
{
    static const char *const n[] = {"PRESENT",          "DATA",      "LENGTH",    "DICTIONARY_DATA",
                                    "DICTIONARY_COUNT", "SECONDARY", "ROW_INDEX", "BLOOM_FILTER",
                                    "BLOOM_FILTER_UTF8"};
    return kind < sizeof n / sizeof *n ? n[kind] : "stream";
}

static fl_status build(fl_orc_scan *s, uint32_t col, const fl_type *ft, orc_col *c, fl_error *err)
{
    const fl_orc_type *t = &s->r->types[col];
    c->id = col;
    c->ot = t;
    c->ft = ft;
    c->decimal_as_long = t->kind == FL_ORC_DECIMAL && t->precision && t->precision <= 18 &&
                         s->r->info.version_major == 1 && s->r->info.version_minor == 9999;
    s->by_id[col] = c;
    if (!fl_type_is_nested(ft))
        return FL_OK;
    c->nchildren = t->nsubtypes;
    c->children = calloc(t->nsubtypes + 1, sizeof *c->children);
    if (!c->children)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < t->nsubtypes; i++)
        FL_TRY(build(s, t->subtypes[i], &ft->children[i].type, &c->children[i], err));
    return FL_OK;
}

static void free_col(orc_col *c)
{
    orc_col_clear(c);
    for (uint32_t i = 0; i < c->nchildren; i++)
        free_col(&c->children[i]);
    free(c->children);
    free(c->ints);
    free(c->lens);
    free(c->secs);
    free(c->pres);
}

static void clear_stripe(fl_orc_scan *s)
{
    for (uint32_t i = 0; i < s->r->ntypes; i++)
        if (s->by_id[i])
            orc_col_clear(s->by_id[i]);
}

static fl_status encoding(fl_orc_scan *s, orc_col *c, const uint8_t *p, size_t len, fl_error *err)
{
    (void)s;
    orc_pb pb;
    orc_pbf f;
    int k = 0;
    orc_pb_init(&pb, p, len, "ColumnEncoding");
    c->enc = 0;
    c->dict_size = 0;
    while ((k = orc_pb_next(&pb, &f, err)) == 1) {
        if (f.num == 1)
            c->enc = f.v > 3 ? 99 : (uint32_t)f.v;
        else if (f.num == 2)
            c->dict_size = f.v > UINT32_MAX ? UINT32_MAX : (uint32_t)f.v;
    }
    if (k < 0)
        return (fl_status)k;
    if (c->enc > 3)
        return fl_errorf(err, FL_EUNSUPPORTED, "column %u: unknown column encoding", c->id);
    return FL_OK;
}

/* One Stream message: places it and, when projected, loads it. */
static fl_status stream(fl_orc_scan *s, uint32_t si, const fl_orc_stripe *st, const orc_pbf *f,
                        uint64_t *pos, fl_error *err)
{
    orc_pb pb;
    orc_pbf g;
    int k = 0;
    uint64_t kind = 0, column = 0, length = 0;
    orc_pb_init(&pb, f->ptr, f->len, "Stream");
    while ((k = orc_pb_next(&pb, &g, err)) == 1) {
        if (g.num == 1)
            kind = g.v;
        else if (g.num == 2)
            column = g.v;
        else if (g.num == 3)
            length = g.v;
    }
    if (k < 0)
        return (fl_status)k;
    uint64_t region = st->index_length + st->data_length;
    if (length > region - *pos)
        return fl_errorf(err, FL_ECORRUPT,
                         "stripe %u: %s stream of column %llu (%llu bytes at stripe offset %llu) "
                         "runs past the stripe's %llu bytes of index and data",
                         si, stream_name(kind), (unsigned long long)column,
                         (unsigned long long)length, (unsigned long long)*pos,
                         (unsigned long long)region);
    uint64_t off = st->offset + *pos;
    *pos += length;
    int slot = kind == 0   ? ORC_S_PRESENT
               : kind == 1 ? ORC_S_DATA
               : kind == 2 ? ORC_S_LENGTH
               : kind == 3 ? ORC_S_DICT
               : kind == 5 ? ORC_S_SECONDARY
                           : -1;
    if (slot < 0 || column >= s->r->ntypes || !s->by_id[column])
        return FL_OK;
    orc_col *c = s->by_id[column];
    if (c->buf[slot])
        return fl_errorf(err, FL_ECORRUPT, "stripe %u: column %llu has two %s streams", si,
                         (unsigned long long)column, stream_name(kind));
    uint8_t *raw = malloc(length ? length : 1);
    if (!raw)
        return fl_errorf(err, FL_ENOMEM, "out of memory for a %llu-byte stream",
                         (unsigned long long)length);
    fl_status rc = fl_file_read_at(s->r->file, off, raw, length, err);
    if (rc == FL_OK)
        rc = orc_decompress(s->r, raw, length, &c->buf[slot], &c->buf_len[slot], c->label[slot],
                            err);
    free(raw);
    return rc;
}

static fl_status parse_footer(fl_orc_scan *s, uint32_t si, const uint8_t *p, size_t len,
                              fl_error *err)
{
    const fl_orc_stripe *st = &s->r->stripes[si];
    orc_pb pb;
    orc_pbf f;
    int k = 0;
    uint64_t pos = 0;
    uint32_t col = 0;
    orc_pb_init(&pb, p, len, "StripeFooter");
    while ((k = orc_pb_next(&pb, &f, err)) == 1) {
        if ((f.num == 1 || f.num == 2) && f.wt != 2)
            return fl_errorf(err, FL_ECORRUPT, "StripeFooter: field %u has wire type %u", f.num,
                             f.wt);
        if (f.num == 3 && f.wt == 2) {
            snprintf(s->tzname, sizeof s->tzname, "%.*s", (int)(f.len < 127 ? f.len : 127),
                     (const char *)f.ptr);
        } else if (f.num == 1) {
            FL_TRY(stream(s, si, st, &f, &pos, err));
        } else if (f.num == 2) {
            if (col < s->r->ntypes && s->by_id[col])
                FL_TRY(encoding(s, s->by_id[col], f.ptr, f.len, err));
            col++;
        }
    }
    if (k < 0)
        return (fl_status)k;
    for (uint32_t i = 0; i < s->r->ntypes; i++)
        if (s->by_id[i] && i >= col)
            return fl_errorf(err, FL_ECORRUPT, "stripe %u: no column encoding for column %u", si,
                             i);
    return FL_OK;
}

/* Points the TIMESTAMP columns at the stripe's writer zone, loading it
 * when it differs from the previous stripe's. */
static fl_status writer_zone(fl_orc_scan *s, uint32_t si, fl_error *err)
{
    for (uint32_t i = 0; i < s->r->ntypes; i++) {
        orc_col *c = s->by_id[i];
        if (!c || c->ot->kind != FL_ORC_TIMESTAMP)
            continue;
        if (!s->tz.loaded || strcmp(s->tz.name, s->tzname) != 0) {
            fl_status rc = orc_tz_load(s->tzname, &s->tz, err);
            if (rc != FL_OK) {
                orc_tz_free(&s->tz);
                return fl_error_prefix(err, "stripe %u", si);
            }
        }
        c->tz = &s->tz;
    }
    return FL_OK;
}

static fl_status open_stripe(fl_orc_scan *s, uint32_t si, fl_error *err)
{
    clear_stripe(s);
    const fl_orc_stripe *st = &s->r->stripes[si];
    for (uint32_t i = 0; i < s->r->ntypes; i++) {
        orc_col *c = s->by_id[i];
        if (!c)
            continue;
        c->stripe = si;
        for (uint32_t k = 0; k < ORC_S__COUNT; k++)
            snprintf(c->label[k], sizeof c->label[k], "stripe %u column %u (%s) %s stream", si, i,
                     fl_orc_kind_name(c->ot->kind),
                     stream_name(k == ORC_S_SECONDARY ? 5
                                 : k == ORC_S_DICT    ? 3
                                                      : k));
    }
    uint64_t foff = st->offset + st->index_length + st->data_length;
    uint8_t *raw = malloc(st->footer_length ? st->footer_length : 1), *foot = NULL;
    size_t flen = 0;
    if (!raw)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    char what[48];
    snprintf(what, sizeof what, "stripe %u footer", si);
    fl_status rc = fl_file_read_at(s->r->file, foff, raw, st->footer_length, err);
    if (rc == FL_OK)
        rc = orc_decompress(s->r, raw, st->footer_length, &foot, &flen, what, err);
    free(raw);
    s->tzname[0] = 0;
    if (rc == FL_OK)
        rc = parse_footer(s, si, foot, flen, err);
    free(foot);
    if (rc == FL_OK)
        rc = writer_zone(s, si, err);
    for (uint32_t i = 0; i < s->r->ntypes && rc == FL_OK; i++)
        if (s->by_id[i])
            rc = orc_col_start(s->by_id[i], err);
    return rc;
}

/* ---- stripe pruning by statistics (conservative: unknown = may match) ---- */

static int cmp_bytes(const char *a, size_t alen, const fl_value *v)
{
    size_t n = alen < v->v.bytes.len ? alen : v->v.bytes.len;
    int c = n ? memcmp(a, v->v.bytes.ptr, n) : 0;
    return c ? c : (alen > v->v.bytes.len) - (alen < v->v.bytes.len);
}

/* Compares the literal v with min (which = 0) or max (1) of st: <0, 0, >0
 * for min/max below, equal, above v; 2 = not comparable. String statistics
 * of writers before HIVE-8732 (writer version < 2) can be wrong: unused. */
static int cmp_bound(const fl_orc_stats *st, const fl_type *t, const fl_value *v, int which,
                     bool old_strings)
{
    if (v->is_null || v->type.id != t->id)
        return 2;
    switch (t->id) {
    case FL_TYPE_INT32:
    case FL_TYPE_DATE:
    case FL_TYPE_INT64: {
        if (!st->has_int)
            return 2;
        int64_t lit = t->id == FL_TYPE_INT64 ? v->v.i64 : v->v.i32;
        int64_t b = which ? st->imax : st->imin;
        return (b > lit) - (b < lit);
    }
    case FL_TYPE_STRING:
        if (!st->has_string || !st->smin || !st->smax || old_strings)
            return 2;
        return which ? cmp_bytes(st->smax, st->smax_len, v) : cmp_bytes(st->smin, st->smin_len, v);
    default: return 2;
    }
}

static bool value_may_match(const fl_orc_stats *st, const fl_type *t, fl_cmp_op op,
                            const fl_value *v, bool old)
{
    int lo = cmp_bound(st, t, v, 0, old), hi = cmp_bound(st, t, v, 1, old);
    if (lo == 2 || hi == 2)
        return true;
    switch (op) {
    case FL_CMP_EQ: return lo <= 0 && hi >= 0;
    case FL_CMP_NE: return !(lo == 0 && hi == 0);
    case FL_CMP_LT: return lo < 0;
    case FL_CMP_LE: return lo <= 0;
    case FL_CMP_GT: return hi > 0;
    case FL_CMP_GE: return hi >= 0;
    default: return true;
    }
}

static bool term_may_match(const fl_orc_reader *r, uint32_t stripe, const fl_col_pred *t)
{
    const fl_schema *fs = &r->schema;
    int fi = -1;
    for (uint32_t i = 0; i < fs->nfields && fi < 0; i++)
        if (t->field_id > 0 ? fs->fields[i].field_id == t->field_id
                            : t->column && strcmp(fs->fields[i].name, t->column) == 0)
            fi = (int)i;
    if (fi < 0)
        return true;
    const fl_orc_stats *st = fl_orc_column_stats(r, (int32_t)stripe, r->field_columns[fi]);
    if (!st || !st->has_null_known) /* old writers: counts of unknown meaning */
        return true;
    bool all_null = st->num_values == 0 && r->stripes[stripe].rows > 0;
    if (t->op == FL_CMP_IS_NULL)
        return st->has_null;
    if (all_null)
        return false; /* NOT NULL and every comparison are false on nulls */
    if (t->op == FL_CMP_NOT_NULL)
        return true;
    const fl_type *ty = &fs->fields[fi].type;
    bool old = r->info.writer_version < 2;
    if (t->op != FL_CMP_IN)
        return value_may_match(st, ty, t->op, &t->value, old);
    for (uint32_t k = 0; k < t->nin; k++)
        if (value_may_match(st, ty, FL_CMP_EQ, &t->in_values[k], old))
            return true;
    return false; /* no listed value can be in the range */
}

static bool stripe_may_match(const fl_orc_reader *r, uint32_t stripe, const fl_predicate *p)
{
    for (uint32_t i = 0; p && i < p->nterms; i++)
        if (!term_may_match(r, stripe, &p->terms[i]))
            return false;
    return true;
}

fl_status fl_orc_scan_open(fl_orc_reader *r, const fl_orc_scan_options *opt, fl_orc_scan **out,
                           fl_error *err)
{
    *out = NULL;
    fl_orc_scan_options none = {0};
    if (!opt)
        opt = &none;
    const fl_schema *fs = &r->schema;
    uint32_t nf = opt->fields ? opt->nfields : fs->nfields;
    fl_orc_scan *s = calloc(1, sizeof *s);
    if (!s)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    s->r = r;
    s->schema.fields = calloc(nf + 1, sizeof *s->schema.fields);
    s->cols = calloc(nf + 1, sizeof *s->cols);
    s->by_id = calloc(r->ntypes + 1, sizeof *s->by_id);
    uint32_t ns = opt->stripes ? opt->nstripes : r->nstripes;
    s->stripes = calloc(ns + 1, sizeof *s->stripes);
    fl_status rc = s->schema.fields && s->cols && s->by_id && s->stripes
                       ? FL_OK
                       : fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < nf && rc == FL_OK; i++) {
        uint32_t fi = opt->fields ? opt->fields[i] : i;
        if (fi >= fs->nfields) {
            rc = fl_errorf(err, FL_EINVAL, "field %u out of range (%u fields)", fi, fs->nfields);
            break;
        }
        if (s->by_id[r->field_columns[fi]]) {
            rc = fl_errorf(err, FL_EINVAL, "field %u projected twice", fi);
            break;
        }
        s->schema.fields[i] = fs->fields[fi];
        s->schema.nfields++;
        rc = build(s, r->field_columns[fi], &fs->fields[fi].type, &s->cols[i], err);
    }
    uint32_t prev = 0;
    for (uint32_t i = 0; i < ns && rc == FL_OK; i++) {
        uint32_t si = opt->stripes ? opt->stripes[i] : i;
        if (si >= r->nstripes || (i && si <= prev))
            rc = fl_errorf(err, FL_EINVAL, "stripe list must be ascending stripe numbers < %u",
                           r->nstripes);
        prev = si;
        if (rc == FL_OK && !stripe_may_match(r, si, opt->predicate))
            s->pruned++;
        else
            s->stripes[s->nstripes++] = si;
    }
    s->asked = ns;
    if (rc != FL_OK) {
        fl_orc_scan_close(s);
        return rc;
    }
    *out = s;
    return FL_OK;
}

const fl_schema *fl_orc_scan_schema(const fl_orc_scan *s)
{
    return &s->schema;
}

fl_status fl_orc_scan_next(fl_orc_scan *s, fl_batch *b, bool *eof, fl_error *err)
{
    fl_batch_reset(b);
    *eof = false;
    while (!s->in_stripe || s->rows_left == 0) {
        if (s->next_stripe >= s->nstripes) {
            clear_stripe(s);
            *eof = true;
            return FL_OK;
        }
        uint32_t si = s->stripes[s->next_stripe++];
        fl_status rc = open_stripe(s, si, err);
        if (rc != FL_OK)
            return fl_error_prefix(err, "%s", s->r->file->path);
        s->in_stripe = true;
        s->rows_left = s->r->stripes[si].rows;
    }
    uint32_t n = s->rows_left < FL_BATCH_CAP ? (uint32_t)s->rows_left : FL_BATCH_CAP;
    for (uint32_t k = 0; k < s->schema.nfields; k++) {
        fl_status rc = orc_col_read(&s->cols[k], &b->cols[k], n, NULL, err);
        if (rc != FL_OK)
            return fl_error_prefix(err, "%s", s->r->file->path);
    }
    b->nrows = n;
    s->rows_left -= n;
    return FL_OK;
}

void fl_orc_scan_counts(const fl_orc_scan *s, uint32_t *stripes, uint32_t *pruned)
{
    *stripes = s->asked;
    *pruned = s->pruned;
}

void fl_orc_scan_close(fl_orc_scan *s)
{
    if (!s)
        return;
    if (s->cols)
        for (uint32_t i = 0; i < s->schema.nfields; i++)
            free_col(&s->cols[i]);
    free(s->cols);
    free(s->by_id);
    free(s->stripes);
    free(s->schema.fields);
    orc_tz_free(&s->tz);
    free(s);
}
