/*
 * test_write_roundtrip.c - writes random tables (every primitive type,
 * nested struct/list/map with nulls at every level, empty lists, long and
 * repeated strings) with many option sets (every codec, v1/v2 pages, tiny
 * pages, small row groups, dictionary fallback, no dictionary, selection
 * vectors), reads them back with floe's reader and compares every row
 * through a canonical text rendering of each value.
 */
#include <inttypes.h>
#include <stdarg.h>

#include "test_write_util.h"

/* ---- canonical rendering of one row of a vector (any encoding) ---- */

typedef struct sbuf {
    char *p;
    size_t len, cap;
} sbuf;

static void sb_add(sbuf *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(sbuf *s, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(s->p ? s->p + s->len : NULL, s->p ? s->cap - s->len : 0, fmt, ap);
        va_end(ap);
        if (n >= 0 && s->p && (size_t)n < s->cap - s->len) {
            s->len += (size_t)n;
            return;
        }
        size_t cap = s->cap ? s->cap * 2 : 256;
        while (cap < s->len + (size_t)n + 1)
            cap *= 2;
        s->p = realloc(s->p, cap);
        s->cap = cap;
    }
}

static void render(sbuf *s, const fl_vector *v, uint32_t row)
{
    fl_unified u;
    fl_vector_unify(v, &u);
    if (!fl_unified_is_valid(&u, row)) {
        sb_add(s, "null");
        return;
    }
    const fl_vector *b = u.base;
    uint32_t r = fl_unified_row(&u, row);
    const fl_type *t = v->type;
    switch (t->id) {
    case FL_TYPE_BOOLEAN: sb_add(s, "%s", b->data[r] ? "true" : "false"); break;
    case FL_TYPE_INT32:
    case FL_TYPE_DATE: {
        int32_t x;
        memcpy(&x, b->data + (size_t)r * 4, 4);
        sb_add(s, "%d", x);
        break;
    }
    case FL_TYPE_FLOAT32: {
        float x;
        memcpy(&x, b->data + (size_t)r * 4, 4);
        sb_add(s, "%.9g", (double)x);
        break;
    }
    case FL_TYPE_FLOAT64: {
        double x;
        memcpy(&x, b->data + (size_t)r * 8, 8);
        sb_add(s, "%.17g", x);
        break;
    }
    case FL_TYPE_DECIMAL: {
        fl_i128 x;
        memcpy(&x, b->data + (size_t)r * 16, 16);
        sb_add(s, "%016" PRIx64 "%016" PRIx64, (uint64_t)((unsigned __int128)x >> 64), (uint64_t)x);
        break;
    }
    case FL_TYPE_UUID:
    case FL_TYPE_FIXED: {
        size_t w = fl_type_width(t);
        for (size_t i = 0; i < w; i++)
            sb_add(s, "%02x", b->data[(size_t)r * w + i]);
        break;
    }
    case FL_TYPE_STRING:
    case FL_TYPE_BINARY: {
        size_t len;
        const uint8_t *p = fl_vector_bytes(b, r, &len);
        sb_add(s, "'");
        for (size_t i = 0; i < len; i++)
            sb_add(s, "%02x", p[i]);
        sb_add(s, "'");
        break;
    }
    case FL_TYPE_STRUCT:
        sb_add(s, "{");
        for (uint32_t c = 0; c < b->nchildren; c++) {
            if (c)
                sb_add(s, ",");
            render(s, &b->children[c], r);
        }
        sb_add(s, "}");
        break;
    case FL_TYPE_LIST:
    case FL_TYPE_MAP:
        sb_add(s, "[");
        for (int64_t i = b->offsets[r]; i < b->offsets[r + 1]; i++) {
            if (i > b->offsets[r])
                sb_add(s, ",");
            render(s, &b->children[0], (uint32_t)i);
            if (t->id == FL_TYPE_MAP) {
                sb_add(s, ":");
                render(s, &b->children[1], (uint32_t)i);
            }
        }
        sb_add(s, "]");
        break;
    default: {
        int64_t x;
        memcpy(&x, b->data + (size_t)r * 8, 8);
        sb_add(s, "%" PRId64, x);
    }
    }
}

static char *render_row(const fl_batch *b, uint32_t row)
{
    sbuf s = {0};
    for (uint32_t c = 0; c < b->ncols; c++) {
        if (c)
            sb_add(&s, "|");
        render(&s, &b->cols[c], row);
    }
    return s.p;
}

/* ---- random data ---- */

typedef struct gen {
    uint64_t rng;
    uint32_t rows;
    bool select; /* selection vector: rows with i % 3 != 1 */
    bool long_strings;
    char **expect; /* rendered live rows, in order */
    size_t nexpect, cap;
} gen;

static fl_status gen_value(fl_vector *v, const fl_field *f, gen *g, int depth, fl_error *err)
{
    const fl_type *t = &f->type;
    uint32_t r = tw_rng(&g->rng);
    if (f->nullable && r % 9 == 0)
        return fl_vector_append_null(v, err);
    uint8_t buf[256];
    switch (t->id) {
    case FL_TYPE_BOOLEAN:
        buf[0] = (uint8_t)((r >> 8) & 1);
        return fl_vector_append_fixed(v, buf, err);
    case FL_TYPE_INT32:
    case FL_TYPE_DATE: {
        int32_t x = (int32_t)(tw_rng(&g->rng) % 1000) - 500;
        if (r % 5 == 0) /* dates stay within what JavaScript readers can show */
            x = t->id == FL_TYPE_DATE ? (int32_t)(tw_rng(&g->rng) % 200000) - 100000
                                      : (int32_t)tw_rng(&g->rng);
        return fl_vector_append_fixed(v, &x, err);
    }
    case FL_TYPE_FLOAT32: {
        float x = (float)((int32_t)(tw_rng(&g->rng) % 20000) - 10000) / 8.0f;
        if (r % 97 == 0)
            x = NAN;
        return fl_vector_append_fixed(v, &x, err);
    }
    case FL_TYPE_FLOAT64: {
        double x = (double)(int32_t)tw_rng(&g->rng) / 3.0;
        if (r % 89 == 0)
            x = -0.0;
        return fl_vector_append_fixed(v, &x, err);
    }
    case FL_TYPE_DECIMAL: {
        /* within the precision: up to 9 / 18 / 38 digits */
        fl_i128 x = (fl_i128)(int32_t)tw_rng(&g->rng) % 100000000;
        if (t->precision > 9)
            x = x * 1000000000 + tw_rng(&g->rng) % 1000000000;
        if (t->precision > 18) {
            fl_i128 scale = 1;
            for (int k = 0; k < t->precision - 19; k++)
                scale *= 10;
            x = x * scale +
                (fl_i128)(tw_rng(&g->rng) % (uint64_t)(scale > 1000000000 ? 1000000000 : scale));
        }
        if (r % 3 == 0)
            x = -x;
        return fl_vector_append_fixed(v, &x, err);
    }
    case FL_TYPE_UUID:
    case FL_TYPE_FIXED: {
        size_t w = fl_type_width(t);
        for (size_t i = 0; i < w; i++)
            buf[i] = (uint8_t)(i < 2 ? tw_rng(&g->rng) % 4 : tw_rng(&g->rng));
        return fl_vector_append_fixed(v, buf, err);
    }
    case FL_TYPE_STRING:
    case FL_TYPE_BINARY: {
        size_t len = tw_rng(&g->rng) % 12;
        if (g->long_strings && r % 7 == 0)
            len = 100 + tw_rng(&g->rng) % 150;
        uint32_t alphabet = r % 2 ? 4 : 26;
        for (size_t i = 0; i < len; i++)
            buf[i] = (uint8_t)(t->id == FL_TYPE_STRING ? 'a' + tw_rng(&g->rng) % alphabet
                                                       : tw_rng(&g->rng));
        return fl_vector_append_bytes(v, buf, len, err);
    }
    case FL_TYPE_STRUCT:
        for (uint32_t c = 0; c < t->nchildren; c++)
            FL_TRY(gen_value(&v->children[c], &t->children[c], g, depth + 1, err));
        return fl_vector_append_nested(v, 0, err);
    case FL_TYPE_LIST:
    case FL_TYPE_MAP: {
        uint32_t n = tw_rng(&g->rng) % (depth > 1 ? 3 : 5);
        for (uint32_t i = 0; i < n; i++) {
            if (t->id == FL_TYPE_MAP) {
                int len = snprintf((char *)buf, sizeof buf, "k%u", i);
                FL_TRY(fl_vector_append_bytes(&v->children[0], buf, (size_t)len, err));
                FL_TRY(gen_value(&v->children[1], &t->children[1], g, depth + 1, err));
            } else {
                FL_TRY(gen_value(&v->children[0], &t->children[0], g, depth + 1, err));
            }
        }
        return fl_vector_append_nested(v, v->children[0].len, err);
    }
    default: {
        int64_t x = (int64_t)tw_rng(&g->rng) * 1000 + (int64_t)(r % 1000);
        if (r % 4 == 0)
            x = r % 50;
        return fl_vector_append_fixed(v, &x, err);
    }
    }
}

static fl_status gen_fill(fl_batch *b, uint32_t batch_no, void *ctx, fl_error *err)
{
    (void)batch_no;
    gen *g = ctx;
    for (uint32_t i = 0; i < g->rows; i++)
        for (uint32_t c = 0; c < b->ncols; c++)
            FL_TRY(gen_value(&b->cols[c], &b->schema->fields[c], g, 0, err));
    b->nrows = g->rows;
    if (g->select) {
        b->owned_sel.idx = realloc(b->owned_sel.idx, sizeof(uint32_t) * g->rows);
        b->owned_sel.cap = g->rows;
        b->owned_sel.count = 0;
        for (uint32_t i = 0; i < g->rows; i++)
            if (i % 3 != 1)
                b->owned_sel.idx[b->owned_sel.count++] = i;
        b->sel = &b->owned_sel;
    }
    uint32_t live = fl_batch_live_rows(b);
    if (g->nexpect + live > g->cap) {
        g->cap = (g->nexpect + live) * 2;
        g->expect = realloc(g->expect, g->cap * sizeof *g->expect);
    }
    for (uint32_t i = 0; i < live; i++)
        g->expect[g->nexpect++] = render_row(b, b->sel ? b->sel->idx[i] : i);
    return FL_OK;
}

/* ---- the schema ---- */

static fl_field prim[18], st_kids[3], lst_kid[1], mp_kids[2], deep_x[1], deep_s[2], deep_l[1];
static fl_field all[23];
static fl_schema schema;

static void make_schema(void)
{
    int id = 1;
    prim[0] = tw_field("b", id++, true, FL_TYPE_BOOLEAN);
    prim[1] = tw_field("i", id++, true, FL_TYPE_INT32);
    prim[2] = tw_field("l", id++, false, FL_TYPE_INT64);
    prim[3] = tw_field("f", id++, true, FL_TYPE_FLOAT32);
    prim[4] = tw_field("d", id++, true, FL_TYPE_FLOAT64);
    prim[5] = tw_decimal("dec9", id++, true, 9, 2);
    prim[6] = tw_decimal("dec18", id++, true, 18, 4);
    prim[7] = tw_decimal("dec38", id++, true, 38, 10);
    prim[8] = tw_field("dt", id++, true, FL_TYPE_DATE);
    prim[9] = tw_field("tm", id++, true, FL_TYPE_TIME);
    prim[10] = tw_field("ts", id++, true, FL_TYPE_TIMESTAMP);
    prim[11] = tw_field("tstz", id++, true, FL_TYPE_TIMESTAMPTZ);
    prim[12] = tw_field("tsns", id++, true, FL_TYPE_TIMESTAMP_NS);
    prim[13] = tw_field("s", id++, true, FL_TYPE_STRING);
    prim[14] = tw_field("u", id++, true, FL_TYPE_UUID);
    prim[15] = tw_field("fx", id++, false, FL_TYPE_FIXED);
    prim[15].type.fixed_len = 5;
    prim[16] = tw_field("bin", id++, true, FL_TYPE_BINARY);
    prim[17] = tw_decimal("dec25", id++, true, 25, 3);
    for (int i = 0; i < 18; i++)
        all[i] = prim[i];
    /* st struct<a int, s string not null, n struct-free double> */
    st_kids[0] = tw_field("a", id++, true, FL_TYPE_INT32);
    st_kids[1] = tw_field("s", id++, false, FL_TYPE_STRING);
    st_kids[2] = tw_field("d", id++, true, FL_TYPE_FLOAT64);
    all[18] = tw_field("st", id++, true, FL_TYPE_STRUCT);
    all[18].type.nchildren = 3;
    all[18].type.children = st_kids;
    lst_kid[0] = tw_field("element", id++, true, FL_TYPE_STRING);
    all[19] = tw_field("lst", id++, true, FL_TYPE_LIST);
    all[19].type.nchildren = 1;
    all[19].type.children = lst_kid;
    mp_kids[0] = tw_field("key", id++, false, FL_TYPE_STRING);
    mp_kids[1] = tw_decimal("value", id++, true, 12, 2);
    all[20] = tw_field("mp", id++, true, FL_TYPE_MAP);
    all[20].type.nchildren = 2;
    all[20].type.children = mp_kids;
    /* deep: list<struct<x list<long>, y date>> */
    deep_x[0] = tw_field("element", id++, true, FL_TYPE_INT64);
    deep_s[0] = tw_field("x", id++, true, FL_TYPE_LIST);
    deep_s[0].type.nchildren = 1;
    deep_s[0].type.children = deep_x;
    deep_s[1] = tw_field("y", id++, true, FL_TYPE_DATE);
    deep_l[0] = tw_field("element", id++, true, FL_TYPE_STRUCT);
    deep_l[0].type.nchildren = 2;
    deep_l[0].type.children = deep_s;
    all[21] = tw_field("deep", id++, true, FL_TYPE_LIST);
    all[21].type.nchildren = 1;
    all[21].type.children = deep_l;
    /* required list of required ints */
    static fl_field req_el[1];
    req_el[0] = tw_field("element", id++, false, FL_TYPE_INT32);
    all[22] = tw_field("rl", id++, false, FL_TYPE_LIST);
    all[22].type.nchildren = 1;
    all[22].type.children = req_el;
    schema.nfields = 23;
    schema.fields = all;
}

/* ---- reading back ---- */

static void compare(const tw_file *f, gen *g)
{
    fl_error err = {0};
    fl_file *file = NULL;
    CHECK_OK(fl_file_from_memory(f->data, f->len, "written.parquet", &file, &err), &err);
    fl_parquet_reader *r = NULL;
    CHECK_OK(fl_parquet_open(file, NULL, &r, &err), &err);
    if (!r) {
        fl_file_close(file);
        return;
    }
    CHECK_EQ_INT(fl_parquet_num_rows(r), (int64_t)g->nexpect);
    const fl_schema *rs = fl_parquet_schema(r);
    CHECK_EQ_INT(rs->nfields, schema.nfields);
    for (uint32_t i = 0; i < rs->nfields && i < schema.nfields; i++) {
        CHECK_EQ_STR(rs->fields[i].name, schema.fields[i].name);
        CHECK_EQ_INT(rs->fields[i].field_id, schema.fields[i].field_id);
        CHECK(fl_type_equal(&rs->fields[i].type, &schema.fields[i].type));
    }
    fl_parquet_scan *scan = NULL;
    fl_parquet_scan_options so = {0};
    CHECK_OK(fl_parquet_scan_open(r, &so, &scan, &err), &err);
    size_t row = 0, mismatches = 0;
    if (scan) {
        fl_batch b;
        CHECK_OK(fl_batch_init(&b, fl_parquet_scan_schema(scan), &err), &err);
        for (;;) {
            bool eof = false;
            fl_status rc = fl_parquet_scan_next(scan, &b, &eof, &err);
            CHECK_OK(rc, &err);
            if (rc != FL_OK || eof)
                break;
            uint32_t live = fl_batch_live_rows(&b);
            for (uint32_t i = 0; i < live; i++, row++) {
                char *got = render_row(&b, b.sel ? b.sel->idx[i] : i);
                if (row < g->nexpect && strcmp(got, g->expect[row]) != 0 && mismatches++ < 3)
                    fprintf(stderr, "row %zu:\n  wrote %s\n  read  %s\n", row, g->expect[row], got);
                free(got);
            }
        }
        fl_batch_destroy(&b);
        fl_parquet_scan_close(scan);
    }
    CHECK_EQ_INT(row, g->nexpect);
    CHECK_EQ_INT(mismatches, 0);
    fl_parquet_close(r);
    fl_file_close(file);
}

static void run(const char *name, fl_parquet_write_options *o, uint32_t rows, uint32_t nbatches,
                bool select, bool long_strings, uint64_t seed)
{
    make_schema();
    fl_error err = {0};
    gen g = {0};
    g.rng = seed;
    g.rows = rows;
    g.select = select;
    g.long_strings = long_strings;
    tw_file f;
    fl_status rc = tw_write(&schema, o, nbatches, gen_fill, &g, &f, NULL, &err);
    if (rc != FL_OK)
        fprintf(stderr, "%s: %s\n", name, err.msg);
    CHECK_OK(rc, &err);
    if (rc == FL_OK && f.ok)
        compare(&f, &g);
    tw_file_free(&f);
    for (size_t i = 0; i < g.nexpect; i++)
        free(g.expect[i]);
    free(g.expect);
}

static void test_defaults(void)
{
    fl_parquet_write_options o = {0};
    run("defaults", &o, 700, 3, false, false, 1);
}

static void test_every_codec_v1_v2(void)
{
    static const fl_parquet_codec codecs[] = {FL_PARQUET_UNCOMPRESSED, FL_PARQUET_SNAPPY,
                                              FL_PARQUET_GZIP,         FL_PARQUET_LZ4_RAW,
                                              FL_PARQUET_ZSTD,         FL_PARQUET_BROTLI};
    for (uint32_t c = 0; c < sizeof codecs / sizeof codecs[0]; c++)
        for (int v = 1; v <= 2; v++) {
            fl_parquet_write_options o = {0};
            o.codec_set = true;
            o.codec = codecs[c];
            o.data_page_version = v;
            o.page_rows = 97;
            o.write_crc = true;
            run("codec", &o, 200, 2, false, false, 100 + c * 2 + (uint64_t)v);
        }
}

static void test_small_pages_row_groups_fallback(void)
{
    fl_parquet_write_options o = {0};
    o.page_bytes = 512;
    o.row_group_rows = 333;
    o.dictionary_max_bytes = 300;
    run("small", &o, 500, 3, false, true, 7);
    o.data_page_version = 2;
    run("small v2", &o, 500, 3, true, true, 8);
}

static void test_no_dictionary_selection(void)
{
    fl_parquet_write_options o = {0};
    o.no_dictionary = true;
    o.no_statistics = true;
    o.row_group_bytes = 20000;
    run("nodict", &o, 1000, 2, true, true, 9);
}

int main(void)
{
    TEST_RUN(test_defaults);
    TEST_RUN(test_every_codec_v1_v2);
    TEST_RUN(test_small_pages_row_groups_fallback);
    TEST_RUN(test_no_dictionary_selection);
    return TEST_EXIT();
}
