/*
 * test_eq_delete_random.c - equality deletes against a brute-force
 * reference. Random tables (id bigint, k string, g int; nulls in k and g)
 * get interleaved commits: data appends, equality delete files written by
 * fl_ice_write_equality_deletes with random equality_ids ({k}, {id, k},
 * {k, g}, {g}), extra columns, NULL keys and rows that hit or miss, scoped
 * globally (unpartitioned spec) or to one partition of the evolved spec
 * (identity(g), null partition included), across a column rename. After
 * every commit the table scan must return exactly the rows the reference
 * keeps: a row is gone when a delete file of higher sequence number, in
 * scope for the row's data file, equals it on every equality column (NULL
 * equals NULL).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "floe/catalog.h"
#include "floe/ice_scan.h"
#include "floe/ice_table.h"
#include "floe_test.h"
#include "iceberg/write_internal.h"

#define MAXROWS 4096
#define MAXDELS 64
#define MAXDROWS 12

typedef struct row {
    int64_t id;
    int k; /* -1 = NULL, else "k<k>" */
    int g; /* -1 = NULL */
    int64_t seq;
    int spec; /* spec of its data file */
} row;

typedef struct del {
    int64_t seq;
    int spec; /* 0 = unpartitioned (global) */
    int part; /* spec 1: g value, -1 = NULL */
    int ids;  /* bit 0 id, bit 1 k, bit 2 g */
    int n;
    row r[MAXDROWS];
} del;

typedef struct model {
    row rows[MAXROWS];
    int nrows;
    del dels[MAXDELS];
    int ndels;
    int spec;
    int64_t next_id;
} model;

static uint64_t g_rng;

static uint64_t rnd(uint64_t n)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return g_rng % n;
}

static int32_t g_fid[3]; /* field ids of id, k, g */
static const char *g_names[3] = {"id", "k", "g"};

static bool same_key(const row *a, const row *b, int ids)
{
    return (!(ids & 1) || a->id == b->id) && (!(ids & 2) || a->k == b->k) &&
           (!(ids & 4) || a->g == b->g);
}

/* How often each rule decided, over all rounds: the test must exercise
 * global and partition-scoped hits, keys with NULL, and rows kept only
 * because their sequence number is not lower than the delete's. */
static struct {
    int global_hits, partition_hits, null_key_hits, kept_by_seq, kept_by_scope;
} g_seen;

static bool key_has_null(const row *r, int ids)
{
    return ((ids & 2) && r->k < 0) || ((ids & 4) && r->g < 0);
}

static bool visible(const model *m, const row *r, bool count)
{
    for (int i = 0; i < m->ndels; i++) {
        const del *d = &m->dels[i];
        for (int k = 0; k < d->n; k++) {
            if (!same_key(&d->r[k], r, d->ids))
                continue;
            if (d->seq <= r->seq) {
                g_seen.kept_by_seq += count;
                continue;
            }
            if (d->spec != 0 && (r->spec != d->spec || r->g != d->part)) {
                g_seen.kept_by_scope += count;
                continue;
            }
            if (count) {
                g_seen.global_hits += d->spec == 0;
                g_seen.partition_hits += d->spec != 0;
                g_seen.null_key_hits += key_has_null(r, d->ids);
            }
            return false;
        }
    }
    return true;
}

static fl_status put_row(fl_batch *b, const int *cols, int ncols, const row *r, fl_error *err)
{
    char ks[16];
    for (int c = 0; c < ncols; c++) {
        fl_vector *v = &b->cols[c];
        fl_status rc;
        if (cols[c] == 0)
            rc = fl_vector_append_fixed(v, &r->id, err);
        else if (cols[c] == 1 && r->k >= 0) {
            int n = snprintf(ks, sizeof ks, "k%d", r->k);
            rc = fl_vector_append_bytes(v, ks, (size_t)n, err);
        } else if (cols[c] == 2 && r->g >= 0) {
            int32_t g = r->g;
            rc = fl_vector_append_fixed(v, &g, err);
        } else
            rc = fl_vector_append_null(v, err);
        if (rc)
            return rc;
    }
    b->nrows++;
    return FL_OK;
}

static void make_schema(fl_field *f, fl_schema *s, const int *cols, int ncols)
{
    static const fl_type_id types[3] = {FL_TYPE_INT64, FL_TYPE_STRING, FL_TYPE_INT32};
    for (int c = 0; c < ncols; c++) {
        memset(&f[c], 0, sizeof f[c]);
        f[c].name = g_names[cols[c]];
        f[c].field_id = g_fid[cols[c]];
        f[c].nullable = cols[c] != 0;
        f[c].type.id = types[cols[c]];
    }
    s->nfields = (uint32_t)ncols;
    s->fields = f;
    s->schema_id = 0;
}

static row random_row(model *m)
{
    row r = {m->next_id++, rnd(5) ? (int)rnd(6) : -1, rnd(5) ? (int)rnd(4) : -1, 0, m->spec};
    return r;
}

static void append(fl_ice_table *t, model *m, fl_error *err)
{
    int n = 20 + (int)rnd(60);
    if (m->nrows + n > MAXROWS)
        return;
    fl_ice_txn *x = NULL;
    fl_ice_data_writer *w = NULL;
    CHECK_OK(fl_ice_txn_begin(t, &x, err), err);
    CHECK_OK(fl_ice_data_writer_open(x, &w, err), err);
    fl_field f[3];
    fl_schema s;
    int cols[3] = {0, 1, 2};
    make_schema(f, &s, cols, 3);
    fl_batch b;
    CHECK_OK(fl_batch_init(&b, &s, err), err);
    int first = m->nrows;
    for (int i = 0; i < n; i++) {
        m->rows[m->nrows] = random_row(m);
        CHECK_OK(put_row(&b, cols, 3, &m->rows[m->nrows], err), err);
        m->nrows++;
    }
    CHECK_OK(fl_ice_data_writer_write(w, &b, err), err);
    fl_batch_destroy(&b);
    fl_ice_data_file *files;
    uint32_t nf;
    CHECK_OK(fl_ice_data_writer_close(w, &files, &nf, err), err);
    CHECK_OK(fl_ice_txn_append(x, files, nf, err), err);
    CHECK_OK(fl_ice_txn_commit(x, NULL, err), err);
    for (int i = first; i < m->nrows; i++)
        m->rows[i].seq = t->meta.last_sequence_number;
}

static void add_deletes(fl_ice_table *t, model *m, fl_error *err)
{
    static const int id_sets[4] = {2, 3, 6, 4};
    if (m->ndels == MAXDELS)
        return;
    del *d = &m->dels[m->ndels];
    memset(d, 0, sizeof *d);
    d->ids = id_sets[rnd(4)];
    d->spec = m->spec == 1 && rnd(2) ? 1 : 0;
    d->part = rnd(4) ? (int)rnd(4) : -1;
    d->n = 1 + (int)rnd(MAXDROWS);
    for (int i = 0; i < d->n; i++) {
        if (m->nrows && rnd(3)) /* a key that exists */
            d->r[i] = m->rows[rnd((uint64_t)m->nrows)];
        else
            d->r[i] = random_row(m);
        if (d->spec == 1 && (d->ids & 4)) /* a partition file's g column is its partition */
            d->r[i].g = d->part;
    }
    int cols[3], ncols = 0;
    for (int c = 0; c < 3; c++)
        if ((d->ids >> c) & 1 || rnd(3) == 0) /* equality columns plus random extras */
            cols[ncols++] = c;
    fl_field f[3];
    fl_schema s;
    make_schema(f, &s, cols, ncols);
    fl_batch b;
    CHECK_OK(fl_batch_init(&b, &s, err), err);
    for (int i = 0; i < d->n; i++)
        CHECK_OK(put_row(&b, cols, ncols, &d->r[i], err), err);
    int32_t ids[3];
    uint32_t nids = 0;
    for (int c = 0; c < 3; c++)
        if ((d->ids >> c) & 1)
            ids[nids++] = g_fid[c];
    fl_value part = {.type = {.id = FL_TYPE_INT32}, .is_null = d->part < 0, .v.i32 = d->part};
    fl_ice_eq_delete_spec spec = {.spec_id = d->spec,
                                  .partition = d->spec ? &part : NULL,
                                  .npartition = d->spec ? 1 : 0,
                                  .equality_ids = ids,
                                  .nequality_ids = nids};
    fl_ice_txn *x = NULL;
    CHECK_OK(fl_ice_txn_begin(t, &x, err), err);
    fl_ice_data_file df;
    CHECK_OK(
        fl_ice_write_equality_deletes(t->io, &t->meta, &spec, &b, fl_ice_txn_arena(x), &df, err),
        err);
    fl_batch_destroy(&b);
    CHECK_EQ_INT(df.record_count, d->n);
    fl_ice_row_delta rd = {.operation = "delete", .add_deletes = &df, .nadd_deletes = 1};
    CHECK_OK(fl_ice_txn_row_delta(x, &rd, err), err);
    CHECK_OK(fl_ice_txn_commit(x, NULL, err), err);
    d->seq = t->meta.last_sequence_number;
    m->ndels++;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* The scan's ids must be exactly the reference's. */
static void compare(fl_ice_table *t, const model *m, fl_error *err, int round, int step)
{
    int64_t *want = malloc(MAXROWS * sizeof *want), *got = malloc(MAXROWS * sizeof *got);
    int nw = 0, ng = 0;
    for (int i = 0; i < m->nrows; i++)
        if (visible(m, &m->rows[i], false))
            want[nw++] = m->rows[i].id;
    fl_ice_scan *s = NULL;
    fl_ice_scan_options o = {0};
    CHECK_OK(fl_ice_scan_open(t->io, &t->meta, &o, &s, err), err);
    fl_batch b;
    if (s)
        fl_batch_init(&b, fl_ice_scan_schema(s), err);
    for (bool eof = !s; !eof;) {
        CHECK_OK(fl_ice_scan_next(s, &b, &eof, err), err);
        if (eof || test_case_failed_)
            break;
        uint32_t n = fl_batch_live_rows(&b);
        for (uint32_t k = 0; k < n && ng < MAXROWS; k++) {
            fl_value v;
            ice_vector_value(&b.cols[0], b.sel ? b.sel->idx[k] : k, &v);
            got[ng++] = v.v.i64;
        }
    }
    if (s) {
        fl_batch_destroy(&b);
        fl_ice_scan_close(s);
    }
    qsort(got, (size_t)ng, sizeof *got, cmp_i64);
    qsort(want, (size_t)nw, sizeof *want, cmp_i64);
    bool same = ng == nw && !memcmp(got, want, (size_t)nw * sizeof *got);
    if (!same)
        fprintf(stderr, "  round %d step %d: scan has %d rows, reference %d (%d delete files)\n",
                round, step, ng, nw, m->ndels);
    CHECK(same);
    free(want);
    free(got);
}

/* A SQLite catalog in a new temp folder dir with namespace "db". */
static fl_catalog *open_catalog(char dir[64], fl_fileio *io, fl_error *err)
{
    fl_catalog *cat = NULL;
    char db[128];
    CHECK(ft_tmpdir(dir, 64, "floe_eqr"));
    snprintf(db, sizeof db, "%s/cat.db", dir);
    CHECK_OK(fl_catalog_sqlite_open(db, NULL, dir, io, &cat, err), err);
    fl_namespace ns = {1, (const char *[]){"db"}};
    if (cat)
        CHECK_OK(cat->ops->create_namespace(cat, &ns, NULL, err), err);
    return cat;
}

static void one_round(int round)
{
    char dir[64];
    fl_error err = {0};
    fl_fileio *io = fl_fileio_local();
    fl_catalog *cat = open_catalog(dir, io, &err);
    fl_field f[3];
    fl_schema s;
    int cols[3] = {0, 1, 2};
    make_schema(f, &s, cols, 3);
    fl_table_ident id = {{1, (const char *[]){"db"}}, "t"};
    fl_ice_kv kv[1] = {{"format-version", "2"}};
    fl_ice_map props = {1, kv};
    fl_ice_create_options o = {.schema = &s, .properties = &props};
    fl_ice_table *t = NULL;
    CHECK_OK(fl_ice_table_create(cat, &id, &o, &t, &err), &err);
    model *m = calloc(1, sizeof *m);
    for (int c = 0; t && c < 3; c++)
        g_fid[c] = fl_ice_metadata_current_schema(&t->meta)->schema.fields[c].field_id;
    for (int step = 0; t && step < 24 && !test_case_failed_; step++) {
        if (step == 6) { /* evolve: identity(g), and rename k (ids, not names, match) */
            fl_ice_txn *x = NULL;
            CHECK_OK(fl_ice_txn_begin(t, &x, &err), &err);
            CHECK_OK(fl_ice_txn_add_partition_field(x, "g", &err), &err);
            CHECK_OK(fl_ice_txn_rename_column(x, "k", "kk", &err), &err);
            CHECK_OK(fl_ice_txn_commit(x, NULL, &err), &err);
            m->spec = 1;
            g_names[1] = "kk";
        }
        if (step < 2 || rnd(2))
            append(t, m, &err);
        else
            add_deletes(t, m, &err);
        compare(t, m, &err, round, step);
    }
    for (int i = 0; i < m->nrows; i++)
        (void)visible(m, &m->rows[i], true);
    g_names[1] = "k";
    free(m);
    fl_ice_table_free(t);
    fl_catalog_close(cat);
    fl_fileio_destroy(io);
    ft_rmtree(dir);
}

static void test_random_rounds(void)
{
    for (int round = 0; round < 8 && !test_case_failed_; round++) {
        g_rng = 0x9E3779B97F4A7C15ull * (uint64_t)(round + 1);
        one_round(round);
    }
    fprintf(stderr,
            "  decided: %d global hits, %d partition hits, %d NULL-key hits, %d kept by "
            "sequence number, %d kept by scope\n",
            g_seen.global_hits, g_seen.partition_hits, g_seen.null_key_hits, g_seen.kept_by_seq,
            g_seen.kept_by_scope);
    CHECK(g_seen.global_hits > 0 && g_seen.partition_hits > 0 && g_seen.null_key_hits > 0);
    CHECK(g_seen.kept_by_seq > 0 && g_seen.kept_by_scope > 0);
}

/* Bad arguments fail with a message naming the problem. */
static void test_errors(void)
{
    char dir[64];
    fl_error err = {0};
    fl_fileio *io = fl_fileio_local();
    fl_catalog *cat = open_catalog(dir, io, &err);
    fl_field f[3];
    fl_schema s;
    int cols[3] = {0, 1, 2};
    make_schema(f, &s, cols, 3);
    fl_table_ident id = {{1, (const char *[]){"db"}}, "e"};
    fl_ice_create_options o = {.schema = &s};
    fl_ice_table *t = NULL;
    CHECK_OK(fl_ice_table_create(cat, &id, &o, &t, &err), &err);
    if (t) {
        int32_t fid0 = fl_ice_metadata_current_schema(&t->meta)->schema.fields[0].field_id;
        g_fid[0] = fid0;
        g_fid[1] = fid0 + 1;
        g_fid[2] = fid0 + 2;
        make_schema(f, &s, cols, 3);
        fl_batch b;
        CHECK_OK(fl_batch_init(&b, &s, &err), &err);
        fl_arena a;
        fl_arena_init(&a, 0);
        fl_ice_data_file df;
        int32_t bad = 999;
        fl_ice_eq_delete_spec sp = {.spec_id = 0, .equality_ids = &bad, .nequality_ids = 1};
        CHECK(fl_ice_write_equality_deletes(t->io, &t->meta, &sp, &b, &a, &df, &err) == FL_EINVAL);
        CHECK(strstr(err.msg, "field id 999") != NULL);
        sp.nequality_ids = 0;
        CHECK(fl_ice_write_equality_deletes(t->io, &t->meta, &sp, &b, &a, &df, &err) == FL_EINVAL);
        CHECK(strstr(err.msg, "no equality_ids") != NULL);
        sp.spec_id = 7;
        sp.equality_ids = &fid0;
        sp.nequality_ids = 1;
        CHECK(fl_ice_write_equality_deletes(t->io, &t->meta, &sp, &b, &a, &df, &err) == FL_EINVAL);
        CHECK(strstr(err.msg, "no partition spec 7") != NULL);
        fl_arena_free(&a);
        fl_batch_destroy(&b);
        fl_ice_table_free(t);
    }
    fl_catalog_close(cat);
    fl_fileio_destroy(io);
    ft_rmtree(dir);
}

int main(void)
{
    TEST_RUN(test_errors);
    TEST_RUN(test_random_rounds);
    return TEST_EXIT();
}
