/* Unit tests for base/arrow.c: walks exported ArrowSchema/ArrowArray trees,
 * checking formats, names, flags, metadata, buffers, null counts, children,
 * selection compaction, and that release frees everything (run under ASan). */
#include "floe/arrow.h"
#include "test.h"

static fl_field elem[1] = {
    {.name = "element", .field_id = 7, .nullable = true, .type = {.id = FL_TYPE_STRING}}};
static fl_field kv[2] = {
    {.name = "key", .field_id = 8, .type = {.id = FL_TYPE_STRING}},
    {.name = "value", .field_id = 9, .nullable = true, .type = {.id = FL_TYPE_INT64}}};
static fl_field xy[2] = {{.name = "x", .field_id = 10, .type = {.id = FL_TYPE_FLOAT64}},
                         {.name = "y", .field_id = 11, .type = {.id = FL_TYPE_FLOAT64}}};
static fl_field fields[9] = {
    {.name = "id", .field_id = 1, .type = {.id = FL_TYPE_INT32}},
    {.name = "flag", .field_id = 2, .nullable = true, .type = {.id = FL_TYPE_BOOLEAN}},
    {.name = "name", .field_id = 3, .nullable = true, .type = {.id = FL_TYPE_STRING}},
    {.name = "price",
     .field_id = 4,
     .nullable = true,
     .type = {.id = FL_TYPE_DECIMAL, .precision = 10, .scale = 2}},
    {.name = "uid", .field_id = 5, .nullable = true, .type = {.id = FL_TYPE_UUID, .fixed_len = 16}},
    {.name = "tags",
     .field_id = 6,
     .nullable = true,
     .type = {.id = FL_TYPE_LIST, .nchildren = 1, .children = elem}},
    {.name = "attrs",
     .field_id = 12,
     .nullable = true,
     .type = {.id = FL_TYPE_MAP, .nchildren = 2, .children = kv}},
    {.name = "point",
     .field_id = 13,
     .nullable = true,
     .type = {.id = FL_TYPE_STRUCT, .nchildren = 2, .children = xy}},
    {.name = "ts", .field_id = 14, .nullable = true, .type = {.id = FL_TYPE_TIMESTAMPTZ}},
};
static const fl_schema schema = {.nfields = 9, .fields = fields};

/* Value of key in Arrow C metadata, copied into buf; NULL if absent. */
static const char *meta_get(const char *md, const char *key, char *buf, size_t cap)
{
    if (!md)
        return NULL;
    int32_t n, kl, vl;
    memcpy(&n, md, 4);
    const char *p = md + 4;
    for (int32_t i = 0; i < n; i++) {
        memcpy(&kl, p, 4);
        const char *k = p + 4;
        p += 4 + kl;
        memcpy(&vl, p, 4);
        const char *v = p + 4;
        p += 4 + vl;
        if ((size_t)kl == strlen(key) && memcmp(k, key, (size_t)kl) == 0) {
            snprintf(buf, cap, "%.*s", vl, v);
            return buf;
        }
    }
    return NULL;
}

static void test_schema(void)
{
    fl_error err;
    struct ArrowSchema s;
    CHECK_OK(fl_arrow_export_schema(&schema, &s, &err), &err);
    CHECK_EQ_STR(s.format, "+s");
    CHECK_EQ_INT(s.n_children, 9);
    const char *formats[9] = {"i", "b", "U", "d:10,2", "w:16", "+L", "+m", "+s", "tsu:UTC"};
    char buf[64];
    for (int i = 0; i < 9; i++) {
        struct ArrowSchema *c = s.children[i];
        CHECK_EQ_STR(c->format, formats[i]);
        CHECK_EQ_STR(c->name, fields[i].name);
        CHECK_EQ_INT(c->flags & ARROW_FLAG_NULLABLE, fields[i].nullable ? ARROW_FLAG_NULLABLE : 0);
        char want[16];
        snprintf(want, sizeof want, "%d", fields[i].field_id);
        CHECK_EQ_STR(meta_get(c->metadata, "PARQUET:field_id", buf, sizeof buf), want);
        CHECK(c->release != NULL);
    }
    CHECK_EQ_STR(meta_get(s.children[4]->metadata, "ARROW:extension:name", buf, sizeof buf),
                 "arrow.uuid");
    CHECK(meta_get(s.children[0]->metadata, "ARROW:extension:name", buf, sizeof buf) == NULL);
    struct ArrowSchema *tags = s.children[5];
    CHECK_EQ_INT(tags->n_children, 1);
    CHECK_EQ_STR(tags->children[0]->format, "U");
    CHECK_EQ_STR(tags->children[0]->name, "element");
    CHECK_EQ_STR(meta_get(tags->children[0]->metadata, "PARQUET:field_id", buf, sizeof buf), "7");
    struct ArrowSchema *map = s.children[6];
    CHECK_EQ_INT(map->n_children, 1);
    struct ArrowSchema *entries = map->children[0];
    CHECK_EQ_STR(entries->format, "+s");
    CHECK_EQ_STR(entries->name, "entries");
    CHECK_EQ_INT(entries->flags, 0);
    CHECK_EQ_INT(entries->n_children, 2);
    CHECK_EQ_STR(entries->children[0]->format, "U");
    CHECK_EQ_INT(entries->children[0]->flags, 0);
    CHECK_EQ_STR(entries->children[1]->format, "l");
    CHECK_EQ_STR(meta_get(entries->children[1]->metadata, "PARQUET:field_id", buf, sizeof buf),
                 "9");
    CHECK_EQ_STR(s.children[7]->children[1]->name, "y");
    /* a consumer may move a child out and release it separately */
    struct ArrowSchema moved = *s.children[8];
    s.children[8]->release = NULL;
    s.release(&s);
    CHECK(s.release == NULL);
    moved.release(&moved);
    CHECK(moved.release == NULL);
}

/* Fills 5 rows; row 1 has nulls in every nullable column. */
static void fill_batch(fl_batch *b, fl_error *err)
{
    for (int32_t r = 0; r < 5; r++) {
        bool null = r == 1;
        CHECK_OK(fl_vector_append_fixed(&b->cols[0], &r, err), err);
        uint8_t flag = (uint8_t)(r % 2 == 0);
        if (null) {
            for (int c = 1; c < 9; c++)
                if (c != 5 && c != 6 && c != 7)
                    CHECK_OK(fl_vector_append_null(&b->cols[c], err), err);
        } else {
            char name[8];
            int n = snprintf(name, sizeof name, "n%d", r);
            CHECK_OK(fl_vector_append_fixed(&b->cols[1], &flag, err), err);
            CHECK_OK(fl_vector_append_bytes(&b->cols[2], name, (size_t)n, err), err);
            fl_i128 price = (fl_i128)r * 100 + 5;
            CHECK_OK(fl_vector_append_fixed(&b->cols[3], &price, err), err);
            uint8_t uid[16];
            memset(uid, r, 16);
            CHECK_OK(fl_vector_append_fixed(&b->cols[4], uid, err), err);
            int64_t ts = 1700000000000000LL + r;
            CHECK_OK(fl_vector_append_fixed(&b->cols[8], &ts, err), err);
        }
        /* tags: r elements "t0".."t{r-1}", null at row 1 */
        fl_vector *tags = &b->cols[5];
        if (null) {
            CHECK_OK(fl_vector_append_null(tags, err), err);
        } else {
            for (int k = 0; k < r; k++) {
                char t[8];
                int n = snprintf(t, sizeof t, "t%d", k);
                CHECK_OK(fl_vector_append_bytes(&tags->children[0], t, (size_t)n, err), err);
            }
            CHECK_OK(fl_vector_append_nested(tags, tags->children[0].len, err), err);
        }
        /* attrs: {"k": r} except row 1 null */
        fl_vector *m = &b->cols[6];
        if (null) {
            CHECK_OK(fl_vector_append_null(m, err), err);
        } else {
            int64_t val = r;
            CHECK_OK(fl_vector_append_bytes(&m->children[0], "k", 1, err), err);
            CHECK_OK(fl_vector_append_fixed(&m->children[1], &val, err), err);
            CHECK_OK(fl_vector_append_nested(m, m->children[0].len, err), err);
        }
        fl_vector *pt = &b->cols[7];
        if (null) {
            CHECK_OK(fl_vector_append_null(pt, err), err);
        } else {
            double x = r, y = -r;
            CHECK_OK(fl_vector_append_fixed(&pt->children[0], &x, err), err);
            CHECK_OK(fl_vector_append_fixed(&pt->children[1], &y, err), err);
            CHECK_OK(fl_vector_append_nested(pt, 0, err), err);
        }
    }
    b->nrows = 5;
}

static bool bit(const void *bits, int64_t i)
{
    return bits == NULL || ((((const uint8_t *)bits)[i >> 3] >> (i & 7)) & 1);
}

static void check_full_array(struct ArrowArray *a)
{
    CHECK_EQ_INT(a->length, 5);
    CHECK_EQ_INT(a->n_children, 9);
    CHECK_EQ_INT(a->n_buffers, 1);
    CHECK(a->buffers[0] == NULL);
    struct ArrowArray *id = a->children[0];
    CHECK_EQ_INT(id->null_count, 0);
    CHECK_EQ_INT(id->n_buffers, 2);
    CHECK(id->buffers[0] == NULL);
    CHECK_EQ_INT(((const int32_t *)id->buffers[1])[4], 4);
    struct ArrowArray *flag = a->children[1];
    CHECK_EQ_INT(flag->null_count, 1);
    CHECK(!bit(flag->buffers[0], 1) && bit(flag->buffers[0], 0));
    CHECK(bit(flag->buffers[1], 0) && !bit(flag->buffers[1], 3) && bit(flag->buffers[1], 4));
    struct ArrowArray *name = a->children[2];
    CHECK_EQ_INT(name->n_buffers, 3);
    CHECK_EQ_INT(name->null_count, 1);
    const int64_t *no = name->buffers[1];
    CHECK(no[0] == 0 && no[1] == 2 && no[2] == 2 && no[5] == 8);
    CHECK(memcmp((const char *)name->buffers[2] + no[4], "n4", 2) == 0);
    struct ArrowArray *price = a->children[3];
    fl_i128 p3;
    memcpy(&p3, (const uint8_t *)price->buffers[1] + 3 * 16, 16);
    CHECK(p3 == 305);
    struct ArrowArray *uid = a->children[4];
    CHECK_EQ_INT(((const uint8_t *)uid->buffers[1])[2 * 16 + 15], 2);
    struct ArrowArray *tags = a->children[5];
    CHECK_EQ_INT(tags->null_count, 1);
    CHECK_EQ_INT(tags->n_children, 1);
    const int64_t *to = tags->buffers[1];
    CHECK(to[0] == 0 && to[1] == 0 && to[2] == 0 && to[3] == 2 && to[5] == 9);
    CHECK_EQ_INT(tags->children[0]->length, 9);
    struct ArrowArray *map = a->children[6];
    CHECK_EQ_INT(map->null_count, 1);
    const int32_t *mo = map->buffers[1];
    CHECK(mo[0] == 0 && mo[1] == 1 && mo[2] == 1 && mo[5] == 4);
    CHECK_EQ_INT(map->n_children, 1);
    struct ArrowArray *entries = map->children[0];
    CHECK_EQ_INT(entries->length, 4);
    CHECK_EQ_INT(entries->n_children, 2);
    CHECK_EQ_INT(entries->null_count, 0);
    CHECK_EQ_INT(((const int64_t *)entries->children[1]->buffers[1])[3], 4);
    struct ArrowArray *pt = a->children[7];
    CHECK_EQ_INT(pt->n_buffers, 1);
    CHECK_EQ_INT(pt->null_count, 1);
    CHECK_EQ_INT(pt->children[0]->length, 5);
    CHECK(((const double *)pt->children[1]->buffers[1])[2] == -2.0);
    struct ArrowArray *ts = a->children[8];
    CHECK_EQ_INT(((const int64_t *)ts->buffers[1])[4], 1700000000000004LL);
}

static void test_batch_export(void)
{
    fl_error err;
    fl_batch b;
    CHECK_OK(fl_batch_init(&b, &schema, &err), &err);
    for (int round = 0; round < 2; round++) { /* the batch is reusable after export */
        fill_batch(&b, &err);
        struct ArrowArray a;
        CHECK_OK(fl_arrow_export_batch(&b, &a, &err), &err);
        CHECK_EQ_INT(b.nrows, 0);
        CHECK(b.cols[2].heap == NULL && b.cols[2].len == 0);
        check_full_array(&a);
        a.release(&a);
        CHECK(a.release == NULL);
    }
    fl_batch_destroy(&b);
}

static void test_selection(void)
{
    fl_error err;
    fl_batch b;
    CHECK_OK(fl_batch_init(&b, &schema, &err), &err);
    fill_batch(&b, &err);
    uint32_t idx[3] = {1, 3, 4};
    fl_sel sel = {idx, 3, 3};
    b.sel = &sel;
    struct ArrowArray a;
    CHECK_OK(fl_arrow_export_batch(&b, &a, &err), &err);
    CHECK_EQ_INT(a.length, 3);
    CHECK_EQ_INT(((const int32_t *)a.children[0]->buffers[1])[1], 3);
    struct ArrowArray *name = a.children[2];
    CHECK_EQ_INT(name->null_count, 1);
    const int64_t *no = name->buffers[1];
    CHECK(no[0] == 0 && no[1] == 0 && no[2] == 2 && no[3] == 4);
    CHECK(memcmp(name->buffers[2], "n3n4", 4) == 0);
    struct ArrowArray *flag = a.children[1];
    CHECK(!bit(flag->buffers[0], 0) && !bit(flag->buffers[1], 1) && bit(flag->buffers[1], 2));
    struct ArrowArray *tags = a.children[5];
    const int64_t *to = tags->buffers[1];
    CHECK(to[0] == 0 && to[1] == 0 && to[2] == 3 && to[3] == 7);
    CHECK_EQ_INT(tags->null_count, 1);
    struct ArrowArray *map = a.children[6];
    CHECK_EQ_INT(map->children[0]->length, 2);
    CHECK_EQ_INT(((const int64_t *)map->children[0]->children[1]->buffers[1])[1], 4);
    a.release(&a);
    /* a bad selection is rejected and nothing leaks */
    fill_batch(&b, &err);
    uint32_t bad[2] = {3, 2};
    fl_sel bsel = {bad, 2, 2};
    b.sel = &bsel;
    CHECK_EQ_INT(fl_arrow_export_batch(&b, &a, &err), FL_EINVAL);
    CHECK(a.release == NULL);
    fl_batch_destroy(&b);
}

static void test_encodings_and_empty(void)
{
    fl_error err;
    fl_field f[2] = {{.name = "s", .nullable = true, .type = {.id = FL_TYPE_STRING}},
                     {.name = "c", .type = {.id = FL_TYPE_INT64}}};
    fl_schema s2 = {.nfields = 2, .fields = f};
    fl_batch b;
    CHECK_OK(fl_batch_init(&b, &s2, &err), &err);
    /* empty batch */
    struct ArrowArray a;
    CHECK_OK(fl_arrow_export_batch(&b, &a, &err), &err);
    CHECK_EQ_INT(a.length, 0);
    CHECK(a.children[0]->buffers[1] != NULL && a.children[0]->buffers[2] != NULL);
    CHECK_EQ_INT(((const int64_t *)a.children[0]->buffers[1])[0], 0);
    CHECK(a.children[1]->buffers[1] != NULL);
    a.release(&a);
    /* DICT strings with an owned dict + CONSTANT ints */
    fl_vector *d = malloc(sizeof *d);
    CHECK_OK(fl_vector_init(d, &f[0].type, &err), &err);
    CHECK_OK(fl_vector_append_bytes(d, "red", 3, &err), &err);
    CHECK_OK(fl_vector_append_bytes(d, "green", 5, &err), &err);
    fl_vector *sv = &b.cols[0];
    CHECK_OK(fl_vector_reserve(sv, 4, &err), &err);
    uint32_t *ix = (uint32_t *)(void *)sv->data;
    ix[0] = 1, ix[1] = 0, ix[2] = 1, ix[3] = 1;
    sv->len = 4;
    sv->encoding = FL_VEC_DICT;
    sv->dict = d;
    sv->owns_dict = true;
    int64_t k = 99;
    CHECK_OK(fl_vector_append_fixed(&b.cols[1], &k, &err), &err);
    b.cols[1].encoding = FL_VEC_CONSTANT;
    b.cols[1].len = 4;
    b.nrows = 4;
    CHECK_OK(fl_arrow_export_batch(&b, &a, &err), &err);
    const int64_t *o = a.children[0]->buffers[1];
    CHECK(o[4] == 18);
    CHECK(memcmp(a.children[0]->buffers[2], "greenredgreengreen", 18) == 0);
    CHECK_EQ_INT(((const int64_t *)a.children[1]->buffers[1])[3], 99);
    a.release(&a);
    /* column length mismatch is an error */
    CHECK_OK(fl_vector_append_fixed(&b.cols[1], &k, &err), &err);
    b.nrows = 1;
    CHECK_EQ_INT(fl_arrow_export_batch(&b, &a, &err), FL_EINVAL);
    CHECK(strstr(err.msg, "'s'") != NULL);
    fl_batch_destroy(&b);
}

/* list<list<int>> and a list<string> whose child is DICT-encoded. */
static void test_deep_nesting(void)
{
    fl_error err;
    fl_field inner_e[1] = {{.name = "element", .field_id = 3, .type = {.id = FL_TYPE_INT32}}};
    fl_field outer_e[1] = {{.name = "element",
                            .field_id = 2,
                            .nullable = true,
                            .type = {.id = FL_TYPE_LIST, .nchildren = 1, .children = inner_e}}};
    fl_field str_e[1] = {{.name = "element", .field_id = 5, .type = {.id = FL_TYPE_STRING}}};
    fl_field f[2] = {{.name = "ll",
                      .field_id = 1,
                      .type = {.id = FL_TYPE_LIST, .nchildren = 1, .children = outer_e}},
                     {.name = "ls",
                      .field_id = 4,
                      .type = {.id = FL_TYPE_LIST, .nchildren = 1, .children = str_e}}};
    fl_schema sc = {.nfields = 2, .fields = f};
    struct ArrowSchema s;
    CHECK_OK(fl_arrow_export_schema(&sc, &s, &err), &err);
    CHECK_EQ_STR(s.children[0]->children[0]->children[0]->format, "i");
    s.release(&s);

    fl_batch b;
    CHECK_OK(fl_batch_init(&b, &sc, &err), &err);
    /* ll row 0: [[1, 2], null, []]; row 1: [[3]] */
    fl_vector *ll = &b.cols[0], *mid = &ll->children[0], *leaf = &mid->children[0];
    for (int32_t x = 1; x <= 2; x++)
        CHECK_OK(fl_vector_append_fixed(leaf, &x, &err), &err);
    CHECK_OK(fl_vector_append_nested(mid, leaf->len, &err), &err);
    CHECK_OK(fl_vector_append_null(mid, &err), &err);
    CHECK_OK(fl_vector_append_nested(mid, leaf->len, &err), &err);
    CHECK_OK(fl_vector_append_nested(ll, mid->len, &err), &err);
    int32_t three = 3;
    CHECK_OK(fl_vector_append_fixed(leaf, &three, &err), &err);
    CHECK_OK(fl_vector_append_nested(mid, leaf->len, &err), &err);
    CHECK_OK(fl_vector_append_nested(ll, mid->len, &err), &err);
    /* ls: child is DICT over {"p", "q"}: row 0 = [q, p, q], row 1 = [] */
    fl_vector *ls = &b.cols[1], *sv = &ls->children[0];
    fl_vector *d = malloc(sizeof *d);
    CHECK_OK(fl_vector_init(d, &str_e[0].type, &err), &err);
    CHECK_OK(fl_vector_append_bytes(d, "p", 1, &err), &err);
    CHECK_OK(fl_vector_append_bytes(d, "q", 1, &err), &err);
    CHECK_OK(fl_vector_reserve(sv, 3, &err), &err);
    uint32_t *ix = (uint32_t *)(void *)sv->data;
    ix[0] = 1, ix[1] = 0, ix[2] = 1;
    sv->len = 3;
    sv->encoding = FL_VEC_DICT;
    sv->dict = d;
    sv->owns_dict = true;
    CHECK_OK(fl_vector_append_nested(ls, 3, &err), &err);
    CHECK_OK(fl_vector_append_nested(ls, 3, &err), &err);
    b.nrows = 2;
    struct ArrowArray a;
    CHECK_OK(fl_arrow_export_batch(&b, &a, &err), &err);
    struct ArrowArray *mida = a.children[0]->children[0];
    CHECK_EQ_INT(mida->length, 4);
    CHECK_EQ_INT(mida->null_count, 1);
    const int64_t *mo = mida->buffers[1];
    CHECK(mo[0] == 0 && mo[1] == 2 && mo[2] == 2 && mo[3] == 2 && mo[4] == 3);
    CHECK_EQ_INT(((const int32_t *)mida->children[0]->buffers[1])[2], 3);
    struct ArrowArray *lsa = a.children[1]->children[0];
    CHECK_EQ_INT(lsa->length, 3);
    CHECK(memcmp(lsa->buffers[2], "qpq", 3) == 0);
    a.release(&a);
    fl_batch_destroy(&b);
}

int main(void)
{
    TEST_RUN(test_schema);
    TEST_RUN(test_batch_export);
    TEST_RUN(test_selection);
    TEST_RUN(test_encodings_and_empty);
    TEST_RUN(test_deep_nesting);
    return TEST_EXIT();
}
