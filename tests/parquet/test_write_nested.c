/*
 * test_write_nested.c - nested struct/list/map columns: the standard 3-level
 * LIST/MAP layout with field ids on every field, element, key and value,
 * repetition from nullability, and levels with nulls at every depth (null
 * list vs empty list vs null element, null struct vs null child), checked
 * through each leaf's value and null counts and the selection vector. The
 * decoded values are compared by test_write_roundtrip.c.
 */
#include "test_write_util.h"

/* id long; st struct<a int, b string not null>; lst list<int>; mp map<string, long>;
 * ll list<struct<x list<string>>> */
static fl_field st_children[2], lst_child[1], mp_children[2], ll_x_child[1], ll_struct_children[1],
    ll_child[1];
static fl_field fields[5];
static fl_schema schema;

static void make_schema(void)
{
    fields[0] = tw_field("id", 1, false, FL_TYPE_INT64);
    st_children[0] = tw_field("a", 3, true, FL_TYPE_INT32);
    st_children[1] = tw_field("b", 4, false, FL_TYPE_STRING);
    fields[1] = tw_field("st", 2, true, FL_TYPE_STRUCT);
    fields[1].type.nchildren = 2;
    fields[1].type.children = st_children;
    lst_child[0] = tw_field("element", 6, true, FL_TYPE_INT32);
    fields[2] = tw_field("lst", 5, true, FL_TYPE_LIST);
    fields[2].type.nchildren = 1;
    fields[2].type.children = lst_child;
    mp_children[0] = tw_field("key", 8, false, FL_TYPE_STRING);
    mp_children[1] = tw_field("value", 9, true, FL_TYPE_INT64);
    fields[3] = tw_field("mp", 7, true, FL_TYPE_MAP);
    fields[3].type.nchildren = 2;
    fields[3].type.children = mp_children;
    ll_x_child[0] = tw_field("element", 13, true, FL_TYPE_STRING);
    ll_struct_children[0] = tw_field("x", 12, true, FL_TYPE_LIST);
    ll_struct_children[0].type.nchildren = 1;
    ll_struct_children[0].type.children = ll_x_child;
    ll_child[0] = tw_field("element", 11, true, FL_TYPE_STRUCT);
    ll_child[0].type.nchildren = 1;
    ll_child[0].type.children = ll_struct_children;
    fields[4] = tw_field("ll", 10, true, FL_TYPE_LIST);
    fields[4].type.nchildren = 1;
    fields[4].type.children = ll_child;
    schema.nfields = 5;
    schema.fields = fields;
}

/* expected per-leaf levels and nulls, accumulated while generating live rows */
enum { L_ID, L_A, L_B, L_LST, L_KEY, L_VAL, L_X, NLEAVES };
typedef struct expect {
    int64_t values[NLEAVES], nulls[NLEAVES];
    uint32_t rows_per_batch;
    bool select_odd; /* batch selection: only odd rows are live */
} expect;

static void count(expect *e, int leaf, bool null, bool live)
{
    if (!live)
        return;
    e->values[leaf]++;
    e->nulls[leaf] += null;
}

static fl_status add_row(fl_batch *b, uint32_t r, expect *e, bool live, fl_error *err)
{
    char s[32];
    int64_t id = r;
    FL_TRY(fl_vector_append_fixed(&b->cols[0], &id, err));
    count(e, L_ID, false, live);

    /* st */
    fl_vector *st = &b->cols[1];
    if (r % 5 == 1) {
        FL_TRY(fl_vector_append_null(st, err));
        count(e, L_A, true, live);
        count(e, L_B, true, live);
    } else {
        int32_t a = (int32_t)r;
        if (r % 3 == 0)
            FL_TRY(fl_vector_append_null(&st->children[0], err));
        else
            FL_TRY(fl_vector_append_fixed(&st->children[0], &a, err));
        int n = snprintf(s, sizeof s, "b%u", r);
        FL_TRY(fl_vector_append_bytes(&st->children[1], s, (size_t)n, err));
        FL_TRY(fl_vector_append_nested(st, 0, err));
        count(e, L_A, r % 3 == 0, live);
        count(e, L_B, false, live);
    }

    /* lst */
    fl_vector *lst = &b->cols[2];
    if (r % 6 == 2) {
        FL_TRY(fl_vector_append_null(lst, err));
        count(e, L_LST, true, live);
    } else if (r % 6 == 3) {
        FL_TRY(fl_vector_append_nested(lst, lst->children[0].len, err));
        count(e, L_LST, true, live);
    } else {
        for (uint32_t j = 0; j < r % 4 + 1; j++) {
            int32_t x = (int32_t)(r * 10 + j);
            bool null = (r + j) % 4 == 1;
            if (null)
                FL_TRY(fl_vector_append_null(&lst->children[0], err));
            else
                FL_TRY(fl_vector_append_fixed(&lst->children[0], &x, err));
            count(e, L_LST, null, live);
        }
        FL_TRY(fl_vector_append_nested(lst, lst->children[0].len, err));
    }

    /* mp */
    fl_vector *mp = &b->cols[3];
    if (r % 7 == 4) {
        FL_TRY(fl_vector_append_null(mp, err));
        count(e, L_KEY, true, live);
        count(e, L_VAL, true, live);
    } else if (r % 7 == 5) {
        FL_TRY(fl_vector_append_nested(mp, mp->children[0].len, err));
        count(e, L_KEY, true, live);
        count(e, L_VAL, true, live);
    } else {
        for (uint32_t j = 0; j < r % 3 + 1; j++) {
            int n = snprintf(s, sizeof s, "k%u", j);
            FL_TRY(fl_vector_append_bytes(&mp->children[0], s, (size_t)n, err));
            int64_t v = (int64_t)r * 100 + j;
            if (j == 1)
                FL_TRY(fl_vector_append_null(&mp->children[1], err));
            else
                FL_TRY(fl_vector_append_fixed(&mp->children[1], &v, err));
            count(e, L_KEY, false, live);
            count(e, L_VAL, j == 1, live);
        }
        FL_TRY(fl_vector_append_nested(mp, mp->children[0].len, err));
    }

    /* ll: list<struct<x: list<string>>> */
    fl_vector *ll = &b->cols[4];
    fl_vector *lls = &ll->children[0];
    fl_vector *x = &lls->children[0];
    fl_vector *xs = &x->children[0];
    if (r % 8 == 0) {
        FL_TRY(fl_vector_append_null(ll, err));
        count(e, L_X, true, live);
    } else if (r % 8 == 1) {
        FL_TRY(fl_vector_append_nested(ll, lls->len, err));
        count(e, L_X, true, live);
    } else {
        /* element 0: null struct, or struct with x null / x = ["s<r>", null] */
        if (r % 3 == 0) {
            FL_TRY(fl_vector_append_null(lls, err));
            count(e, L_X, true, live);
        } else if (r % 2) {
            FL_TRY(fl_vector_append_null(x, err));
            FL_TRY(fl_vector_append_nested(lls, 0, err));
            count(e, L_X, true, live);
        } else {
            int n = snprintf(s, sizeof s, "s%u", r);
            FL_TRY(fl_vector_append_bytes(xs, s, (size_t)n, err));
            FL_TRY(fl_vector_append_null(xs, err));
            FL_TRY(fl_vector_append_nested(x, xs->len, err));
            FL_TRY(fl_vector_append_nested(lls, 0, err));
            count(e, L_X, false, live);
            count(e, L_X, true, live);
        }
        /* element 1: struct with x = [] */
        FL_TRY(fl_vector_append_nested(x, xs->len, err));
        FL_TRY(fl_vector_append_nested(lls, 0, err));
        count(e, L_X, true, live);
        FL_TRY(fl_vector_append_nested(ll, lls->len, err));
    }
    return FL_OK;
}

static fl_status fill(fl_batch *b, uint32_t batch_no, void *ctx, fl_error *err)
{
    expect *e = ctx;
    for (uint32_t i = 0; i < e->rows_per_batch; i++) {
        uint32_t r = batch_no * e->rows_per_batch + i;
        FL_TRY(add_row(b, r, e, !e->select_odd || (i & 1), err));
    }
    b->nrows = e->rows_per_batch;
    if (e->select_odd) {
        b->owned_sel.idx = realloc(b->owned_sel.idx, sizeof(uint32_t) * e->rows_per_batch);
        if (!b->owned_sel.idx)
            return fl_errorf(err, FL_ENOMEM, "oom");
        b->owned_sel.cap = e->rows_per_batch;
        b->owned_sel.count = 0;
        for (uint32_t i = 1; i < e->rows_per_batch; i += 2)
            b->owned_sel.idx[b->owned_sel.count++] = i;
        b->sel = &b->owned_sel;
    }
    return FL_OK;
}

static void check_file(const tw_file *f, const expect *e, int64_t rows)
{
    const fl_pq_file_meta *m = &f->meta;
    CHECK_EQ_INT(m->num_rows, rows);
    /* schema: root, id, st, a, b, lst, list, element, mp, key_value, key, value,
     * ll, list, element, x, list, element */
    static const struct {
        const char *name;
        fl_pq_repetition rep;
        int32_t children;
        int32_t field_id; /* 0 = none */
        fl_pq_converted ct;
    } want[] = {
        {"schema", FL_PQ_REP_NONE, 5, 0, FL_PQ_CT_NONE},
        {"id", FL_PQ_REQUIRED, -1, 1, FL_PQ_CT_NONE},
        {"st", FL_PQ_OPTIONAL, 2, 2, FL_PQ_CT_NONE},
        {"a", FL_PQ_OPTIONAL, -1, 3, FL_PQ_CT_NONE},
        {"b", FL_PQ_REQUIRED, -1, 4, FL_PQ_CT_UTF8},
        {"lst", FL_PQ_OPTIONAL, 1, 5, FL_PQ_CT_LIST},
        {"list", FL_PQ_REPEATED, 1, 0, FL_PQ_CT_NONE},
        {"element", FL_PQ_OPTIONAL, -1, 6, FL_PQ_CT_NONE},
        {"mp", FL_PQ_OPTIONAL, 1, 7, FL_PQ_CT_MAP},
        {"key_value", FL_PQ_REPEATED, 2, 0, FL_PQ_CT_NONE},
        {"key", FL_PQ_REQUIRED, -1, 8, FL_PQ_CT_UTF8},
        {"value", FL_PQ_OPTIONAL, -1, 9, FL_PQ_CT_NONE},
        {"ll", FL_PQ_OPTIONAL, 1, 10, FL_PQ_CT_LIST},
        {"list", FL_PQ_REPEATED, 1, 0, FL_PQ_CT_NONE},
        {"element", FL_PQ_OPTIONAL, 1, 11, FL_PQ_CT_NONE},
        {"x", FL_PQ_OPTIONAL, 1, 12, FL_PQ_CT_LIST},
        {"list", FL_PQ_REPEATED, 1, 0, FL_PQ_CT_NONE},
        {"element", FL_PQ_OPTIONAL, -1, 13, FL_PQ_CT_UTF8},
    };
    uint32_t nw = sizeof want / sizeof want[0];
    CHECK_EQ_INT(m->nschema, nw);
    for (uint32_t i = 0; i < nw && i < m->nschema; i++) {
        const fl_pq_schema_element *el = &m->schema[i];
        CHECK_EQ_STR(el->name, want[i].name);
        CHECK_EQ_INT(el->repetition, want[i].rep);
        if (want[i].children > 0)
            CHECK_EQ_INT(el->num_children, want[i].children);
        else
            CHECK(el->num_children <= 0);
        CHECK_EQ_INT(el->field_id_set, want[i].field_id != 0);
        if (want[i].field_id)
            CHECK_EQ_INT(el->field_id, want[i].field_id);
        CHECK_EQ_INT(el->converted_type, want[i].ct);
    }
    CHECK_EQ_INT(m->schema[5].logical.kind, FL_PQ_LT_LIST);
    CHECK_EQ_INT(m->schema[8].logical.kind, FL_PQ_LT_MAP);

    static const char *paths[NLEAVES] = {"id",
                                         "st.a",
                                         "st.b",
                                         "lst.list.element",
                                         "mp.key_value.key",
                                         "mp.key_value.value",
                                         "ll.list.element.x.list.element"};
    CHECK(m->nrow_groups >= 1);
    for (int l = 0; l < NLEAVES; l++) {
        int64_t values = 0, nulls = 0;
        for (uint32_t g = 0; g < m->nrow_groups; g++) {
            const fl_pq_column_meta *cm = &m->row_groups[g].columns[l].meta_data;
            values += cm->num_values;
            nulls += cm->statistics.null_count;
            char path[256] = "";
            for (uint32_t k = 0; k < cm->npath; k++) {
                if (k)
                    strcat(path, ".");
                strcat(path, cm->path_in_schema[k]);
            }
            CHECK_EQ_STR(path, paths[l]);
        }
        if (values != e->values[l] || nulls != e->nulls[l])
            fprintf(stderr, "leaf %s: values %lld/%lld nulls %lld/%lld\n", paths[l],
                    (long long)values, (long long)e->values[l], (long long)nulls,
                    (long long)e->nulls[l]);
        CHECK_EQ_INT(values, e->values[l]);
        CHECK_EQ_INT(nulls, e->nulls[l]);
    }
}

static void run(uint32_t rows_per_batch, uint32_t nbatches, bool select_odd, int page_version)
{
    make_schema();
    fl_error err = {0};
    tw_file f;
    expect e;
    memset(&e, 0, sizeof e);
    e.rows_per_batch = rows_per_batch;
    e.select_odd = select_odd;
    fl_parquet_write_options opt = {0};
    opt.page_rows = 100; /* several pages per chunk */
    opt.data_page_version = page_version;
    opt.row_group_rows = 700;
    CHECK_OK(tw_write(&schema, &opt, nbatches, fill, &e, &f, NULL, &err), &err);
    if (f.ok) {
        int64_t rows = select_odd ? (int64_t)nbatches * (rows_per_batch / 2)
                                  : (int64_t)nbatches * rows_per_batch;
        check_file(&f, &e, rows);
        CHECK_EQ_INT(f.meta.nrow_groups, (rows + 699) / 700);
    }
    tw_file_free(&f);
}

static void test_nested_v1(void)
{
    run(500, 3, false, 1);
}
static void test_nested_v2(void)
{
    run(500, 3, false, 2);
}
static void test_nested_selection(void)
{
    run(400, 3, true, 1);
}

static void test_null_map_key_is_an_error(void)
{
    make_schema();
    fl_error err = {0};
    uint8_t *data = NULL;
    size_t len = 0;
    fl_output *out = NULL;
    CHECK_OK(fl_output_memory("m", &data, &len, &out, &err), &err);
    fl_parquet_writer *w = NULL;
    CHECK_OK(fl_parquet_writer_open(out, &schema, NULL, &w, &err), &err);
    fl_batch b;
    CHECK_OK(fl_batch_init(&b, &schema, &err), &err);
    expect e;
    memset(&e, 0, sizeof e);
    CHECK_OK(add_row(&b, 2, &e, true, &err), &err); /* row 2 has a non-empty map */
    b.nrows = 1;
    /* make the first key null */
    CHECK_OK(fl_vector_ensure_validity(&b.cols[3].children[0], &err), &err);
    fl_bitmap_set(b.cols[3].children[0].validity, 0, false);
    CHECK_EQ_INT(fl_parquet_writer_write(w, &b, &err), FL_EINVAL);
    CHECK(strstr(err.msg, "mp.key_value.key") != NULL);
    fl_parquet_writer_abort(w);
    fl_output_abort(out);
    fl_batch_destroy(&b);
    free(data);
}

int main(void)
{
    TEST_RUN(test_nested_v1);
    TEST_RUN(test_nested_v2);
    TEST_RUN(test_nested_selection);
    TEST_RUN(test_null_map_key_is_an_error);
    return TEST_EXIT();
}
