/* The parquet-testing shredded_variant cases (../shared/fixtures/
 * parquet-testing/shredded_variant, cases.json): every file's variant column
 * reads to the expected variant of each row (compared as variants:
 * fl_variant_equal), the error cases fail naming the column, and what was
 * read, written back by floe's writer (unshredded VARIANT groups), reads
 * back equal and keeps the VARIANT annotation. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/io.h"
#include "floe/parquet.h"
#include "floe/parquet_meta.h"
#include "floe/variant.h"
#include "test.h"

typedef struct rows {
    uint32_t n;
    uint8_t **bytes; /* NULL = SQL NULL */
    size_t *len;
} rows;

static void rows_free(rows *r)
{
    for (uint32_t i = 0; i < r->n; i++)
        free(r->bytes[i]);
    free(r->bytes);
    free(r->len);
    memset(r, 0, sizeof *r);
}

static void rows_add(rows *r, const uint8_t *p, size_t n, bool valid)
{
    r->bytes = realloc(r->bytes, (r->n + 1) * sizeof *r->bytes);
    r->len = realloc(r->len, (r->n + 1) * sizeof *r->len);
    r->bytes[r->n] = valid ? malloc(n ? n : 1) : NULL;
    if (valid && n)
        memcpy(r->bytes[r->n], p, n);
    r->len[r->n++] = n;
}

/* Reads the one variant column of a file (from memory) into out. */
static fl_status read_variants(const uint8_t *data, size_t size, const char *name, rows *out,
                               bool *annotated, fl_error *e)
{
    fl_file *f = NULL;
    fl_parquet_reader *r = NULL;
    fl_parquet_scan *s = NULL;
    fl_batch b;
    bool have_batch = false;
    memset(out, 0, sizeof *out);
    fl_status st = fl_file_from_memory(data, size, name, &f, e);
    if (st == FL_OK)
        st = fl_parquet_open(f, NULL, &r, e);
    int col = -1;
    if (st == FL_OK) {
        const fl_schema *sc = fl_parquet_schema(r);
        for (uint32_t c = 0; c < sc->nfields; c++)
            if (fl_type_is_variant(&sc->fields[c].type))
                col = (int)c;
        if (annotated) {
            const fl_pq_file_meta *m = fl_parquet_footer(r);
            *annotated = false;
            for (uint32_t k = 0; k < m->nschema; k++)
                *annotated |= m->schema[k].logical.kind == FL_PQ_LT_VARIANT;
        }
        if (col < 0)
            st = fl_errorf(e, FL_ENOTFOUND, "%s: no variant column", name);
    }
    if (st == FL_OK)
        st = fl_parquet_scan_open(r, NULL, &s, e);
    if (st == FL_OK) {
        st = fl_batch_init(&b, fl_parquet_scan_schema(s), e);
        have_batch = st == FL_OK;
    }
    while (st == FL_OK) {
        bool eof = false;
        st = fl_parquet_scan_next(s, &b, &eof, e);
        if (st != FL_OK || eof)
            break;
        const fl_vector *v = &b.cols[col];
        for (uint32_t i = 0; i < b.nrows; i++) {
            size_t n = 0;
            const uint8_t *p = fl_vector_is_valid(v, i) ? fl_vector_bytes(v, i, &n) : NULL;
            rows_add(out, p, n, p != NULL);
        }
    }
    if (have_batch)
        fl_batch_destroy(&b);
    fl_parquet_scan_close(s);
    fl_parquet_close(r);
    fl_file_close(f);
    return st;
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *p = malloc(n > 0 ? (size_t)n : 1);
    *len = fread(p, 1, (size_t)n, f);
    fclose(f);
    return p;
}

static bool same_variant(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    fl_variant_meta ma, mb;
    fl_variant va, vb;
    fl_error e = {0};
    bool eq = false;
    if (fl_variant_open(a, an, &ma, &va, &e) != FL_OK ||
        fl_variant_open(b, bn, &mb, &vb, &e) != FL_OK ||
        fl_variant_equal(&va, &vb, &eq, &e) != FL_OK) {
        fprintf(stderr, "  compare: %s\n", e.msg);
        return false;
    }
    return eq;
}

static void print_json(const char *label, const uint8_t *p, size_t n)
{
    fl_variant_meta m;
    fl_variant v;
    fl_buf out;
    fl_error e = {0};
    fl_buf_init(&out, 0);
    if (fl_variant_open(p, n, &m, &v, &e) == FL_OK && fl_variant_to_json(&v, &out, &e) == FL_OK)
        fprintf(stderr, "  %s: %s\n", label, out.data ? out.data : "");
    else
        fprintf(stderr, "  %s: (%s)\n", label, e.msg);
    fl_buf_free(&out);
}

/* Writes rows as a one-column variant file (floe's writer) into memory. */
static fl_status write_back(const rows *r, uint8_t **file, size_t *flen, fl_error *e)
{
    fl_field fld = {.name = "var", .field_id = 1, .nullable = true};
    fld.type.id = FL_TYPE_BINARY;
    fld.type.ext = FL_EXT_VARIANT;
    fl_schema sc = {.nfields = 1, .fields = &fld};
    fl_output *out = NULL;
    fl_parquet_writer *w = NULL;
    fl_batch b;
    FL_TRY(fl_output_memory("write-back.parquet", file, flen, &out, e));
    fl_status st = fl_batch_init(&b, &sc, e);
    for (uint32_t i = 0; st == FL_OK && i < r->n; i++)
        st = r->bytes[i] ? fl_vector_append_bytes(&b.cols[0], r->bytes[i], r->len[i], e)
                         : fl_vector_append_null(&b.cols[0], e);
    b.nrows = r->n;
    if (st == FL_OK)
        st = fl_parquet_writer_open(out, &sc, NULL, &w, e);
    if (st == FL_OK)
        st = fl_parquet_writer_write(w, &b, e);
    if (st == FL_OK) {
        st = fl_parquet_writer_close(w, NULL, e);
        w = NULL;
    }
    if (w)
        fl_parquet_writer_abort(w);
    fl_batch_destroy(&b);
    if (st == FL_OK)
        st = fl_output_close(out, e);
    else
        fl_output_abort(out);
    return st;
}

static int ncases, nerrors, nwritten;

static void check_write_back(const char *name, const rows *got)
{
    uint8_t *file = NULL;
    size_t flen = 0;
    fl_error e = {0};
    fl_status st = write_back(got, &file, &flen, &e);
    if (st != FL_OK)
        fprintf(stderr, "%s: write back: %s\n", name, e.msg);
    CHECK_OK(st, &e);
    rows again;
    bool annotated = false;
    st = read_variants(file, flen, "write-back.parquet", &again, &annotated, &e);
    CHECK_OK(st, &e);
    CHECK(annotated);
    CHECK_EQ_INT(again.n, got->n);
    for (uint32_t i = 0; st == FL_OK && i < again.n && i < got->n; i++) {
        CHECK_EQ_INT(again.bytes[i] != NULL, got->bytes[i] != NULL);
        if (again.bytes[i] && got->bytes[i])
            CHECK(same_variant(again.bytes[i], again.len[i], got->bytes[i], got->len[i]));
    }
    nwritten++;
    rows_free(&again);
    free(file);
}

static void run_case(const char *dir, json_t *c)
{
    const char *pq = json_string_value(json_object_get(c, "parquet_file"));
    json_t *errmsg = json_object_get(c, "error_message");
    json_t *one = json_object_get(c, "variant_file");
    json_t *many = json_object_get(c, "variant_files");
    bool invalid = json_object_get(c, "notes") != NULL; /* error or read, both allowed */
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", dir, pq);
    size_t size = 0;
    uint8_t *data = slurp(path, &size);
    CHECK(data != NULL);
    if (!data)
        return;
    rows got;
    fl_error e = {0};
    fl_status st = read_variants(data, size, path, &got, NULL, &e);
    ncases++;
    if (errmsg) {
        if (st == FL_OK)
            fprintf(stderr, "%s: read, expected \"%s\"\n", pq, json_string_value(errmsg));
        CHECK(st != FL_OK);
        CHECK(strstr(e.msg, "typed_value") != NULL || strstr(e.msg, "var") != NULL);
        nerrors++;
    } else if (!(invalid && st != FL_OK)) {
        if (st != FL_OK)
            fprintf(stderr, "%s: %s\n", pq, e.msg);
        CHECK_OK(st, &e);
        uint32_t want_rows = many ? (uint32_t)json_array_size(many) : 1;
        CHECK_EQ_INT(got.n, want_rows);
        for (uint32_t i = 0; st == FL_OK && i < want_rows && i < got.n; i++) {
            json_t *vf = many ? json_array_get(many, i) : one;
            if (json_is_null(vf)) {
                CHECK(got.bytes[i] == NULL);
                continue;
            }
            snprintf(path, sizeof path, "%s/%s", dir, json_string_value(vf));
            size_t wn = 0;
            uint8_t *want = slurp(path, &wn);
            CHECK(want != NULL && got.bytes[i] != NULL);
            if (want && got.bytes[i] && !same_variant(got.bytes[i], got.len[i], want, wn)) {
                fprintf(stderr, "%s row %u differs\n", pq, i);
                print_json("got ", got.bytes[i], got.len[i]);
                print_json("want", want, wn);
                CHECK(false);
            }
            free(want);
        }
        if (st == FL_OK)
            check_write_back(pq, &got);
    }
    rows_free(&got);
    free(data);
}

static void test_cases(void)
{
    const char *shared = test_shared_dir();
    if (!shared)
        return;
    char dir[4096], idx[8192];
    snprintf(dir, sizeof dir, "%s/fixtures/parquet-testing/shredded_variant", shared);
    snprintf(idx, sizeof idx, "%s/cases.json", dir);
    json_error_t je;
    json_t *cases = json_load_file(idx, 0, &je);
    CHECK(cases != NULL && json_is_array(cases));
    if (!cases)
        return;
    size_t i;
    json_t *c;
    json_array_foreach(cases, i, c) run_case(dir, c);
    json_decref(cases);
    fprintf(stderr, "%d cases, %d expected errors, %d written back\n", ncases, nerrors, nwritten);
    CHECK_EQ_INT(ncases, 92);
    CHECK_EQ_INT(nerrors, 4);
    CHECK(nwritten >= 86);
}

int main(void)
{
    TEST_RUN(test_cases);
    return TEST_EXIT();
}
