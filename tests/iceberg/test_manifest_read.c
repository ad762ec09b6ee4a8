/*
 * test_manifest_read.c - reads every manifest list and manifest under
 * $FLOE_SHARED/fixtures/iceberg (Java/Spark, PyIceberg, DuckDB, BigQuery,
 * iceberg-rust, iceberg-go writers; v1, v2, v3) with fl_ice_manifest_list_read
 * / fl_ice_manifest_read and compares every decoded field with our earlier
 * JSON decode in fixtures/iceberg/avro-expected/<path>.expected.jsonl.
 *
 * The expected JSON is keyed by each writer's field names, so names are
 * looked up from the file's Avro schema by field id. Lists are read first;
 * a manifest is then read with the manifest-list entry that references it
 * (matched by file name in the same directory), so inheritance uses real
 * values. Then table-level reads with metadata (typed partitions via
 * fl_ice_snapshot_manifests) and error cases.
 */
#include <dirent.h>
#include <ftw.h>
#include <jansson.h>
#include <unistd.h>

#include "floe/avro.h"
#include "floe/ice_manifest.h"
#include "iceberg/manifest_test_util.h"
#include "test.h"

static char g_root[4096];

/* ------------------------------------------------------------ file list */

static char **g_files;
static size_t g_nfiles;

static int collect(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    size_t n = strlen(path);
    if (flag == FTW_F && n > 5 && !strcmp(path + n - 5, ".avro") &&
        !strstr(path, "/avro-expected/")) {
        g_files = realloc(g_files, (g_nfiles + 1) * sizeof *g_files);
        g_files[g_nfiles++] = strdup(path);
    }
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ------------------------------------------------------------ schema names */

static const fl_avro_schema *unwrap(const fl_avro_schema *s)
{
    if (s && s->type == FL_AVRO_UNION)
        for (uint32_t i = 0; i < s->nbranches; i++)
            if (s->branches[i]->type != FL_AVRO_NULL)
                return s->branches[i];
    return s;
}

static const fl_avro_field *fld(const fl_avro_schema *rec, int32_t id)
{
    rec = unwrap(rec);
    if (!rec || rec->type != FL_AVRO_RECORD)
        return NULL;
    for (uint32_t i = 0; i < rec->nfields; i++)
        if (rec->fields[i].has_field_id && rec->fields[i].field_id == id)
            return &rec->fields[i];
    return NULL;
}

/* The JSON value of field id in obj (per the writer schema rec): NULL when
 * the schema has no such field, json null when null. */
static json_t *jf(json_t *obj, const fl_avro_schema *rec, int32_t id)
{
    const fl_avro_field *f = fld(rec, id);
    if (!f || !obj)
        return NULL;
    json_t *v = json_object_get(obj, f->name);
    return v ? v : json_null();
}

static const char *g_ctx; /* file being checked, for messages */
static int g_line;

#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: %s line %d: ", __FILE__, __LINE__, g_ctx, g_line);             \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            test_case_failed_ = 1;                                                                 \
        }                                                                                          \
    } while (0)

/* Expected long: absent or null -> dflt. */
static void exp_long(json_t *j, int64_t got, int64_t dflt, const char *what)
{
    int64_t want = (!j || json_is_null(j)) ? dflt : (int64_t)json_integer_value(j);
    EXPECT(want == got, "%s: want %lld got %lld", what, (long long)want, (long long)got);
}

static void exp_bytes(json_t *j, bool has, const uint8_t *p, uint32_t len, const char *what)
{
    if (!j || json_is_null(j)) {
        EXPECT(!has, "%s: want absent", what);
        return;
    }
    EXPECT(has, "%s: want present", what);
    const char *hex = json_string_value(json_object_get(j, "$bytes"));
    if (!hex) /* strings (file paths) */
        hex = NULL;
    unsigned char *b = NULL;
    long n = hex ? hex_decode(hex, &b) : -1;
    EXPECT(n >= 0 && (uint32_t)n == len && (!n || (p && !memcmp(b, p, (size_t)n))),
           "%s: bytes differ", what);
    free(b);
}

static void exp_str(json_t *j, const char *got, const char *what)
{
    if (!j || json_is_null(j)) {
        EXPECT(got == NULL, "%s: want null got '%s'", what, got);
        return;
    }
    EXPECT(got && !strcmp(json_string_value(j), got), "%s: want '%s' got '%s'", what,
           json_string_value(j), got ? got : "(null)");
}

/* ------------------------------------------------------------ manifest lists */

typedef struct listed {
    char *dir_and_name; /* local path of the manifest this entry references */
    fl_ice_manifest_file mf;
} listed;

static listed *g_listed;
static size_t g_nlisted;
static fl_arena g_arena; /* lives for the whole run: g_listed points into it */
static int g_nlists, g_nmanifests, g_nentries;

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static void check_list(const char *path, const fl_avro_schema *sch, char **lines, size_t nlines)
{
    fl_error err;
    fl_fileio *io = fl_fileio_local();
    fl_ice_manifest_file *mfs = NULL;
    uint32_t n = 0;
    CHECK_OK(fl_ice_manifest_list_read(io, path, 2, &g_arena, &mfs, &n, &err), &err);
    fl_fileio_destroy(io);
    EXPECT(n == nlines, "entries: want %zu got %u", nlines, n);
    for (size_t i = 0; i < nlines && i < n; i++) {
        g_line = (int)i + 2;
        json_t *o = json_loads(lines[i], 0, NULL);
        const fl_ice_manifest_file *mf = &mfs[i];
        exp_str(jf(o, sch, 500), mf->manifest_path, "manifest_path");
        exp_long(jf(o, sch, 501), mf->manifest_length, -99, "manifest_length");
        exp_long(jf(o, sch, 502), mf->partition_spec_id, -99, "partition_spec_id");
        exp_long(jf(o, sch, 517), mf->content, 0, "content");
        exp_long(jf(o, sch, 515), mf->sequence_number, 0, "sequence_number");
        exp_long(jf(o, sch, 516), mf->min_sequence_number, 0, "min_sequence_number");
        exp_long(jf(o, sch, 503), mf->added_snapshot_id, -1, "added_snapshot_id");
        exp_long(jf(o, sch, 504), mf->added_files_count, -1, "added_files_count");
        exp_long(jf(o, sch, 505), mf->existing_files_count, -1, "existing_files_count");
        exp_long(jf(o, sch, 506), mf->deleted_files_count, -1, "deleted_files_count");
        exp_long(jf(o, sch, 512), mf->added_rows_count, -1, "added_rows_count");
        exp_long(jf(o, sch, 513), mf->existing_rows_count, -1, "existing_rows_count");
        exp_long(jf(o, sch, 514), mf->deleted_rows_count, -1, "deleted_rows_count");
        exp_bytes(jf(o, sch, 519), mf->key_metadata != NULL, mf->key_metadata, mf->key_metadata_len,
                  "key_metadata");
        json_t *fr = jf(o, sch, 520);
        EXPECT((fr && !json_is_null(fr)) == mf->has_first_row_id, "first_row_id presence");
        if (mf->has_first_row_id)
            exp_long(fr, mf->first_row_id, -1, "first_row_id");
        json_t *parts = jf(o, sch, 507);
        const fl_avro_schema *ss = unwrap(fld(sch, 507) ? fld(sch, 507)->type : NULL);
        ss = ss ? unwrap(ss->items) : NULL;
        if (!parts || json_is_null(parts)) {
            EXPECT(mf->npartitions == 0, "partitions: want none");
        } else {
            EXPECT(json_array_size(parts) == mf->npartitions, "partitions count");
            for (size_t k = 0; k < json_array_size(parts) && k < mf->npartitions; k++) {
                json_t *s = json_array_get(parts, k);
                const fl_ice_field_summary *fs = &mf->partitions[k];
                EXPECT(json_is_true(jf(s, ss, 509)) == fs->contains_null, "contains_null");
                json_t *nan = jf(s, ss, 518);
                EXPECT((nan && !json_is_null(nan)) == fs->has_contains_nan, "has contains_nan");
                if (fs->has_contains_nan)
                    EXPECT(json_is_true(nan) == fs->contains_nan, "contains_nan");
                exp_bytes(jf(s, ss, 510), fs->has_lower, fs->lower, fs->lower_len, "lower_bound");
                exp_bytes(jf(s, ss, 511), fs->has_upper, fs->upper, fs->upper_len, "upper_bound");
            }
        }
        /* remember the entry for the manifest it references (same directory) */
        char local[8192];
        char dir[4096];
        snprintf(dir, sizeof dir, "%s", path);
        *strrchr(dir, '/') = 0;
        snprintf(local, sizeof local, "%s/%s", dir, base_name(mf->manifest_path));
        g_listed = realloc(g_listed, (g_nlisted + 1) * sizeof *g_listed);
        g_listed[g_nlisted].dir_and_name = strdup(local);
        g_listed[g_nlisted].mf = *mf;
        g_nlisted++;
        json_decref(o);
    }
    g_nlists++;
}

/* ------------------------------------------------------------ manifests */

static void exp_partition_value(json_t *j, const fl_value *v, const char *name)
{
    if (!j || json_is_null(j)) {
        EXPECT(v->is_null, "partition %s: want null", name);
        return;
    }
    EXPECT(!v->is_null, "partition %s: want non-null", name);
    if (v->is_null)
        return;
    switch (v->type.id) {
    case FL_TYPE_INT32:
    case FL_TYPE_DATE: EXPECT(json_integer_value(j) == v->v.i32, "partition %s: int", name); break;
    case FL_TYPE_INT64:
    case FL_TYPE_TIME:
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMPTZ:
    case FL_TYPE_TIMESTAMP_NS:
    case FL_TYPE_TIMESTAMPTZ_NS:
        EXPECT(json_integer_value(j) == v->v.i64, "partition %s: long", name);
        break;
    case FL_TYPE_BOOLEAN: EXPECT(json_is_true(j) == v->v.b, "partition %s: bool", name); break;
    case FL_TYPE_FLOAT32:
        EXPECT(json_number_value(j) == v->v.f32, "partition %s: float", name);
        break;
    case FL_TYPE_FLOAT64:
        EXPECT(json_number_value(j) == v->v.f64, "partition %s: double", name);
        break;
    case FL_TYPE_STRING:
        EXPECT(json_string_length(j) == v->v.bytes.len &&
                   !memcmp(json_string_value(j), v->v.bytes.ptr, v->v.bytes.len),
               "partition %s: string", name);
        break;
    case FL_TYPE_DECIMAL: {
        unsigned char *b = NULL;
        long n = hex_decode(json_string_value(json_object_get(j, "$bytes")), &b);
        EXPECT(n > 0, "partition %s: decimal bytes", name);
        fl_i128 want = (n > 0 && (b[0] & 0x80)) ? -1 : 0;
        for (long k = 0; k < n; k++)
            want = (fl_i128)(((unsigned __int128)want << 8) | b[k]);
        EXPECT(want == v->v.dec, "partition %s: decimal value", name);
        free(b);
        break;
    }
    default: exp_bytes(j, true, v->v.bytes.ptr, (uint32_t)v->v.bytes.len, name); break;
    }
}

static const int32_t k_map_ids[6] = {108, 109, 110, 137, 125, 128};

static void check_metrics(json_t *df, const fl_avro_schema *dfs, const fl_ice_data_file *f)
{
    int32_t seen[4096];
    size_t nseen = 0;
    for (int k = 0; k < 6; k++) {
        json_t *m = jf(df, dfs, k_map_ids[k]);
        if (!m || !json_is_array(m))
            continue;
        for (size_t i = 0; i < json_array_size(m); i++) {
            json_t *kv = json_array_get(m, i);
            if (json_is_null(kv))
                continue;
            int32_t key = (int32_t)json_integer_value(json_object_get(kv, "key"));
            json_t *val = json_object_get(kv, "value");
            const fl_ice_column_metrics *cm = fl_ice_data_file_metrics(f, key);
            EXPECT(cm != NULL, "metrics for field %d missing", key);
            if (!cm)
                continue;
            size_t s = 0;
            while (s < nseen && seen[s] != key)
                s++;
            if (s == nseen && nseen < 4096)
                seen[nseen++] = key;
            if (json_is_null(val))
                continue;
            switch (k) {
            case 0: exp_long(val, cm->column_size, -1, "column_size"); break;
            case 1: exp_long(val, cm->value_count, -1, "value_count"); break;
            case 2: exp_long(val, cm->null_value_count, -1, "null_value_count"); break;
            case 3: exp_long(val, cm->nan_value_count, -1, "nan_value_count"); break;
            case 4: exp_bytes(val, cm->has_lower, cm->lower, cm->lower_len, "lower_bound"); break;
            default: exp_bytes(val, cm->has_upper, cm->upper, cm->upper_len, "upper_bound"); break;
            }
        }
    }
    EXPECT(nseen == f->nmetrics, "metrics: %zu distinct field ids expected, %u decoded", nseen,
           f->nmetrics);
    for (uint32_t i = 1; i < f->nmetrics; i++)
        EXPECT(f->metrics[i - 1].field_id < f->metrics[i].field_id, "metrics not sorted");
}

static void check_long_list(json_t *j, const void *arr, uint32_t n, bool is32, const char *what)
{
    if (!j || json_is_null(j)) {
        EXPECT(n == 0 && arr == NULL, "%s: want null", what);
        return;
    }
    EXPECT(json_array_size(j) == n, "%s: count", what);
    for (uint32_t i = 0; i < n && i < json_array_size(j); i++) {
        int64_t got = is32 ? ((const int32_t *)arr)[i] : ((const int64_t *)arr)[i];
        EXPECT(json_integer_value(json_array_get(j, i)) == got, "%s[%u]", what, i);
    }
}

static void check_entry(json_t *o, const fl_avro_schema *sch, const fl_ice_manifest_file *mf,
                        const fl_ice_manifest_entry *e)
{
    exp_long(jf(o, sch, 0), e->status, -99, "status");
    exp_long(jf(o, sch, 1), e->snapshot_id, mf->added_snapshot_id, "snapshot_id");
    exp_long(jf(o, sch, 3), e->sequence_number, mf->sequence_number, "sequence_number");
    exp_long(jf(o, sch, 4), e->file_sequence_number, mf->sequence_number, "file_sequence_number");
    const fl_avro_schema *dfs = unwrap(fld(sch, 2)->type);
    json_t *df = jf(o, sch, 2);
    const fl_ice_data_file *f = &e->file;
    exp_long(jf(df, dfs, 134), f->content, 0, "content");
    exp_str(jf(df, dfs, 100), f->file_path, "file_path");
    exp_str(jf(df, dfs, 101), f->file_format, "file_format");
    exp_long(jf(df, dfs, 103), f->record_count, -99, "record_count");
    exp_long(jf(df, dfs, 104), f->file_size_in_bytes, -99, "file_size_in_bytes");
    exp_bytes(jf(df, dfs, 131), f->key_metadata != NULL, f->key_metadata, f->key_metadata_len,
              "key_metadata");
    check_long_list(jf(df, dfs, 132), f->split_offsets, f->nsplit_offsets, false, "split_offsets");
    check_long_list(jf(df, dfs, 135), f->equality_ids, f->nequality_ids, true, "equality_ids");
    json_t *so = jf(df, dfs, 140);
    EXPECT((so && !json_is_null(so)) == f->has_sort_order_id, "sort_order_id presence");
    if (f->has_sort_order_id)
        exp_long(so, f->sort_order_id, -1, "sort_order_id");
    json_t *fr = jf(df, dfs, 142);
    if (fr && !json_is_null(fr))
        exp_long(fr, f->first_row_id, -1, "first_row_id");
    exp_str(jf(df, dfs, 143), f->referenced_data_file, "referenced_data_file");
    json_t *co = jf(df, dfs, 144);
    EXPECT((co && !json_is_null(co)) == f->has_content_offset, "content_offset presence");
    if (f->has_content_offset) {
        exp_long(co, f->content_offset, -1, "content_offset");
        exp_long(jf(df, dfs, 145), f->content_size_in_bytes, -1, "content_size_in_bytes");
    }
    check_metrics(df, dfs, f);
    /* partition values, in the Avro record's order (m == NULL) */
    const fl_avro_schema *ps = unwrap(fld(dfs, 102)->type);
    json_t *pj = jf(df, dfs, 102);
    EXPECT(f->npartition == ps->nfields, "partition arity");
    for (uint32_t i = 0; i < ps->nfields && i < f->npartition; i++)
        exp_partition_value(json_is_null(pj) ? NULL : json_object_get(pj, ps->fields[i].name),
                            &f->partition[i], ps->fields[i].name);
}

static void check_manifest(const char *path, const fl_avro_schema *sch, const fl_avro_reader *ar,
                           char **lines, size_t nlines)
{
    fl_ice_manifest_file mf;
    memset(&mf, 0, sizeof mf);
    bool found = false;
    for (size_t i = 0; i < g_nlisted && !found; i++)
        if (!strcmp(g_listed[i].dir_and_name, path)) {
            mf = g_listed[i].mf;
            found = true;
        }
    if (!found) { /* not referenced by any list: the header gives spec and content */
        const fl_avro_meta *c = fl_avro_reader_meta_find(ar, "content");
        mf.content = c && !strcmp((const char *)c->value, "deletes") ? FL_ICE_MANIFEST_DELETES
                                                                     : FL_ICE_MANIFEST_DATA;
        mf.added_snapshot_id = 4242;
        mf.sequence_number = 7;
    }
    mf.manifest_path = path;
    fl_error err;
    fl_fileio *io = fl_fileio_local();
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_ice_manifest_entry *es = NULL;
    uint32_t n = 0;
    CHECK_OK(fl_ice_manifest_read(io, NULL, &mf, &a, &es, &n, &err), &err);
    fl_fileio_destroy(io);
    EXPECT(n == nlines, "entries: want %zu got %u", nlines, n);
    for (size_t i = 0; i < nlines && i < n; i++) {
        g_line = (int)i + 2;
        json_t *o = json_loads(lines[i], 0, NULL);
        EXPECT(o != NULL, "bad expected JSON");
        if (o)
            check_entry(o, sch, &mf, &es[i]);
        json_decref(o);
    }
    g_nentries += (int)n;
    g_nmanifests++;
    fl_arena_free(&a);
}

/* Splits the expected file into record lines (skipping the $header line). */
static char **expected_lines(const char *avro_path, size_t *n, char **buf)
{
    char ep[8192];
    const char *rel = avro_path + strlen(g_root) + 1; /* after ".../iceberg/" */
    snprintf(ep, sizeof ep, "%s/avro-expected/%.*s.expected.jsonl", g_root, (int)(strlen(rel) - 5),
             rel);
    *buf = ft_slurp(ep, NULL);
    *n = 0;
    if (!*buf)
        return NULL;
    char **lines = NULL;
    char *save = NULL;
    for (char *l = strtok_r(*buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        if (!strncmp(l, "{\"$header\"", 10))
            continue;
        lines = realloc(lines, (*n + 1) * sizeof *lines);
        lines[(*n)++] = l;
    }
    return lines;
}

static void test_fixtures(int pass_lists)
{
    for (size_t i = 0; i < g_nfiles; i++) {
        const char *path = g_files[i];
        fl_error err;
        fl_file *f = NULL;
        fl_avro_reader *ar = NULL;
        fl_fileio *io = fl_fileio_local();
        CHECK_OK(fl_fileio_open(io, path, &f, &err), &err);
        fl_fileio_destroy(io);
        if (!f)
            continue;
        CHECK_OK(fl_avro_reader_open(f, NULL, &ar, &err), &err);
        if (!ar) {
            fl_file_close(f);
            continue;
        }
        const fl_avro_schema *sch = fl_avro_reader_schema(ar);
        bool is_list = fld(sch, 500) != NULL, is_manifest = fld(sch, 2) != NULL;
        g_ctx = path + strlen(g_root) + 1;
        g_line = 0;
        EXPECT(is_list != is_manifest, "neither a manifest nor a manifest list");
        if (is_list == (pass_lists != 0) && is_list != is_manifest) {
            char *buf = NULL;
            size_t nl = 0;
            char **lines = expected_lines(path, &nl, &buf);
            EXPECT(buf != NULL, "no expected JSON");
            if (buf) {
                if (is_list)
                    check_list(path, sch, lines, nl);
                else
                    check_manifest(path, sch, ar, lines, nl);
            }
            free(lines);
            free(buf);
        }
        fl_avro_reader_close(ar);
        fl_file_close(f);
    }
}

static void test_lists(void)
{
    test_fixtures(1);
}
static void test_manifests(void)
{
    test_fixtures(0);
    fprintf(stderr, "  %d manifest lists, %d manifests, %d entries checked\n", g_nlists,
            g_nmanifests, g_nentries);
    CHECK(g_nlists >= 25);
    CHECK(g_nmanifests >= 30);
}

/* ------------------------------------------------------------ with metadata */

typedef struct table_case {
    const char *dir;      /* under iceberg/ */
    const char *metadata; /* under dir */
    const char *prefix;   /* location prefix to remap to dir */
} table_case;

static fl_status open_table(const table_case *t, remap_io *rio, fl_fileio *local, char *to,
                            size_t cap, fl_arena *a, fl_ice_metadata *m, fl_error *err)
{
    if (snprintf(to, cap, "%s/%s", g_root, t->dir) >= (int)cap)
        return fl_errorf(err, FL_EINVAL, "path too long");
    remap_init(rio, local, t->prefix, to);
    char mp[8192];
    snprintf(mp, sizeof mp, "%s/%s", to, t->metadata);
    return fl_ice_metadata_read(local, mp, a, m, err);
}

/* Reads the current snapshot's manifests and entries with metadata. */
static void read_current(const table_case *t, fl_arena *a, fl_ice_metadata *m,
                         fl_ice_manifest_entry **all, uint32_t *nall)
{
    fl_error err;
    remap_io rio;
    char to[4096];
    fl_fileio *local = fl_fileio_local();
    *nall = 0;
    CHECK_OK(open_table(t, &rio, local, to, sizeof to, a, m, &err), &err);
    const fl_ice_snapshot *s = fl_ice_metadata_current_snapshot(m);
    CHECK(s != NULL);
    fl_ice_manifest_file *mfs = NULL;
    uint32_t nmf = 0;
    if (s)
        CHECK_OK(fl_ice_snapshot_manifests(&rio.base, m, s, a, &mfs, &nmf, &err), &err);
    fl_ice_manifest_entry *acc = NULL;
    for (uint32_t i = 0; i < nmf; i++) {
        fl_ice_manifest_entry *es;
        uint32_t n;
        fl_status rc = fl_ice_manifest_read(&rio.base, m, &mfs[i], a, &es, &n, &err);
        CHECK_OK(rc, &err);
        if (rc)
            break;
        acc = realloc(acc, (*nall + n + 1) * sizeof *acc);
        memcpy(acc + *nall, es, n * sizeof *es);
        *nall += n;
    }
    *all = acc;
    fl_fileio_destroy(local);
}

static void test_typed_partitions(void)
{
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_ice_metadata m;
    fl_ice_manifest_entry *es;
    uint32_t n;
    table_case rc = {"icebird/spark/rename_column", "metadata/v3.metadata.json",
                     "s3a://hyperparam-iceberg/spark/rename_column"};
    read_current(&rc, &a, &m, &es, &n);
    CHECK_EQ_INT(n, 3);
    int nulls = 0;
    for (uint32_t i = 0; i < n; i++) {
        CHECK_EQ_INT(es[i].file.npartition, 2);
        CHECK_EQ_INT(es[i].file.partition[0].type.id, FL_TYPE_INT32); /* bucket[4] */
        CHECK_EQ_INT(es[i].file.partition[1].type.id, FL_TYPE_DATE);  /* identity(date) */
        CHECK(es[i].file.partition[0].v.i32 >= 0 && es[i].file.partition[0].v.i32 < 4);
        nulls += es[i].file.partition[1].is_null;
        CHECK_EQ_INT(es[i].sequence_number, 1);
        CHECK_EQ_INT(es[i].file_sequence_number, 1);
        CHECK_EQ_INT(es[i].file.spec_id, 0);
    }
    CHECK_EQ_INT(nulls, 1);
    free(es);

    table_case dec = {"duckdb-iceberg/data/persistent/partition_decimal_hugeint",
                      "metadata/v2.metadata.json", "data/persistent/partition_decimal_hugeint"};
    read_current(&dec, &a, &m, &es, &n);
    CHECK_EQ_INT(n, 15);
    for (uint32_t i = 0; i < n; i++) {
        CHECK_EQ_INT(es[i].file.partition[0].type.id, FL_TYPE_DECIMAL);
        CHECK_EQ_INT(es[i].file.partition[0].type.precision, 36); /* decimal(36, 23) */
    }
    free(es);

    table_case day = {"duckdb-iceberg/data/persistent/map_stats/default.db/map_stats", NULL,
                      "file://data/persistent/map_stats/default.db/map_stats"};
    /* latest metadata file: the one sorting last */
    char dir[8192];
    snprintf(dir, sizeof dir, "%s/%s/metadata", g_root, day.dir);
    struct dirent **nl;
    int k = scandir(dir, &nl, NULL, alphasort);
    char last[1024] = "";
    for (int i = 0; i < k; i++) {
        size_t l = strlen(nl[i]->d_name);
        if (l > 14 && !strcmp(nl[i]->d_name + l - 14, ".metadata.json"))
            snprintf(last, sizeof last, "metadata/%s", nl[i]->d_name);
        free(nl[i]);
    }
    free(nl);
    day.metadata = last;
    read_current(&day, &a, &m, &es, &n);
    CHECK_EQ_INT(n, 2);
    for (uint32_t i = 0; i < n; i++)
        CHECK_EQ_INT(es[i].file.partition[0].type.id, FL_TYPE_DATE); /* day(ts) */
    free(es);

    /* v1 table (gzip metadata): sequence numbers 0 */
    table_case v1 = {"duckdb-iceberg/data/persistent/iceberg/lineitem_iceberg_gz",
                     "metadata/v2.gz.metadata.json", "lineitem_iceberg_gz"};
    read_current(&v1, &a, &m, &es, &n);
    CHECK_EQ_INT(m.format_version, 1);
    CHECK_EQ_INT(n, 1);
    if (n) {
        CHECK_EQ_INT(es[0].sequence_number, 0);
        CHECK_EQ_INT(es[0].file.record_count, 111968);
        CHECK(fl_ice_data_file_metrics(&es[0].file, 16) != NULL);
        CHECK(fl_ice_data_file_metrics(&es[0].file, 17) == NULL);
    }
    free(es);

    /* position + equality deletes with schema evolution (Java 1.8.1) */
    table_case bun = {"icebird/java/bunnies", "metadata/v5.metadata.json",
                      "s3a://hyperparam-iceberg/java/bunnies"};
    read_current(&bun, &a, &m, &es, &n);
    int pos = 0, eq = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (es[i].file.content == FL_ICE_CONTENT_POSITION_DELETES)
            pos++;
        if (es[i].file.content == FL_ICE_CONTENT_EQUALITY_DELETES) {
            eq++;
            CHECK(es[i].file.nequality_ids >= 1);
        }
    }
    CHECK_EQ_INT(pos, 1);
    CHECK_EQ_INT(eq, 1);
    free(es);

    /* 5000 entries */
    table_case gb = {"duckdb-iceberg/data/persistent/generated_bounds", "metadata/v1.metadata.json",
                     "data/persistent/generated_bounds"};
    read_current(&gb, &a, &m, &es, &n);
    CHECK_EQ_INT(n, 5000);
    free(es);
    fl_arena_free(&a);
}

/* Errors name the manifest and the entry. */
static void test_errors(void)
{
    fl_error err;
    fl_fileio *io = fl_fileio_local();
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_ice_manifest_file mf;
    memset(&mf, 0, sizeof mf);
    char p[8192];
    /* a manifest list is not a manifest */
    snprintf(p, sizeof p,
             "%s/icebird/spark/rename_column/metadata/"
             "snap-5276958600260276572-1-abf62b15-903b-40b6-9e6b-26bcdceac9b3.avro",
             g_root);
    mf.manifest_path = p;
    fl_ice_manifest_entry *es;
    uint32_t n;
    CHECK(fl_ice_manifest_read(io, NULL, &mf, &a, &es, &n, &err) == FL_ECORRUPT);
    CHECK(strstr(err.msg, "manifest ") && strstr(err.msg, "no field id 2"));
    /* and a manifest is not a list */
    snprintf(p, sizeof p,
             "%s/icebird/spark/rename_column/metadata/abf62b15-903b-40b6-9e6b-26bcdceac9b3-m0.avro",
             g_root);
    fl_ice_manifest_file *mfs;
    CHECK(fl_ice_manifest_list_read(io, p, 2, &a, &mfs, &n, &err) == FL_ECORRUPT);
    CHECK(strstr(err.msg, "no field id 500") != NULL);
    /* EXISTING entries must carry sequence numbers: the bunnies delete
     * manifest's entries are ADDED, so claim a nonzero sequence number and
     * check that a DELETED/EXISTING null would be rejected by reading a
     * manifest whose entries are ADDED with null numbers as if they were
     * inherited (positive case) */
    mf.manifest_path = p;
    mf.sequence_number = 5;
    mf.added_snapshot_id = 9;
    CHECK_OK(fl_ice_manifest_read(io, NULL, &mf, &a, &es, &n, &err), &err);
    for (uint32_t i = 0; i < n; i++) {
        CHECK_EQ_INT(es[i].sequence_number, 5);
        CHECK_EQ_INT(es[i].snapshot_id, 5276958600260276572LL); /* explicit in the file */
    }
    /* missing file */
    mf.manifest_path = "/nonexistent/x-m0.avro";
    CHECK(fl_ice_manifest_read(io, NULL, &mf, &a, &es, &n, &err) != FL_OK);
    CHECK(strstr(err.msg, "/nonexistent/x-m0.avro") != NULL);
    fl_arena_free(&a);
    fl_fileio_destroy(io);
}

/* Truncated and bit-flipped copies of real manifests and lists: reading
 * must fail cleanly (or succeed), never crash; errors name the file. */
static void test_corrupt(void)
{
    const char *rels[] = {
        "icebird/spark/rename_column/metadata/abf62b15-903b-40b6-9e6b-26bcdceac9b3-m0.avro",
        "icebird/java/bunnies/metadata/a01399a1-e864-4562-b921-c8cb56e6e4a9-m1.avro",
        "duckdb-iceberg/data/persistent/big_query_error/metadata/"
        "24f5f399-c7ec-488d-a9d3-f0aceb454be2-4830b289af0338e2-f-00000-of-00001.avro",
        "icebird/java/bunnies/metadata/"
        "snap-9158179788527662767-1-a01399a1-e864-4562-b921-c8cb56e6e4a9.avro",
    };
    char tmp[] = "/tmp/floe-corrupt-XXXXXX";
    int fd = mkstemp(tmp);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    close(fd);
    fl_fileio *io = fl_fileio_local();
    int failures = 0, runs = 0;
    for (size_t k = 0; k < sizeof rels / sizeof rels[0]; k++) {
        char p[8192];
        snprintf(p, sizeof p, "%s/%s", g_root, rels[k]);
        size_t len = 0;
        char *orig = ft_slurp(p, &len);
        CHECK(orig != NULL);
        if (!orig)
            continue;
        uint32_t seed = 12345u + (uint32_t)k;
        for (int it = 0; it < 60; it++) {
            char *buf = malloc(len);
            memcpy(buf, orig, len);
            size_t n = len;
            if (it < 20) {
                n = len * (size_t)(it + 1) / 21; /* truncations */
            } else {
                for (int f = 0; f < 1 + it % 4; f++) { /* bit flips, mostly after the header */
                    seed = seed * 1103515245u + 12345u;
                    size_t at = len / 2 + (seed >> 8) % (len - len / 2);
                    buf[at] ^= (char)(1u << (seed % 8));
                }
            }
            FILE *w = fopen(tmp, "wb");
            fwrite(buf, 1, n, w);
            fclose(w);
            free(buf);
            fl_arena a;
            fl_arena_init(&a, 0);
            fl_error err = {0};
            fl_ice_manifest_file mf;
            memset(&mf, 0, sizeof mf);
            mf.manifest_path = tmp;
            mf.sequence_number = 1;
            mf.added_snapshot_id = 1;
            fl_ice_manifest_entry *es;
            uint32_t ne;
            fl_ice_manifest_file *mfs;
            fl_status rc = k < 3 ? fl_ice_manifest_read(io, NULL, &mf, &a, &es, &ne, &err)
                                 : fl_ice_manifest_list_read(io, tmp, 2, &a, &mfs, &ne, &err);
            runs++;
            if (rc != FL_OK) {
                failures++;
                CHECK(strstr(err.msg, tmp) != NULL);
            }
            fl_arena_free(&a);
        }
        free(orig);
    }
    fprintf(stderr, "  %d corrupted reads, %d rejected\n", runs, failures);
    CHECK(failures >= runs / 3);
    fl_fileio_destroy(io);
    unlink(tmp);
}

int main(void)
{
    const char *sh = test_shared_dir();
    if (!sh) {
        fprintf(stderr, "skipped: FLOE_SHARED fixtures are absent\n");
        return 77;
    }
    snprintf(g_root, sizeof g_root, "%s/fixtures/iceberg", sh);
    if (nftw(g_root, collect, 16, FTW_PHYS) != 0 || g_nfiles == 0) {
        fprintf(stderr, "skipped: no Avro files under %s\n", g_root);
        return 77;
    }
    qsort(g_files, g_nfiles, sizeof *g_files, cmp_str);
    fl_arena_init(&g_arena, 0);
    TEST_RUN(test_lists);
    TEST_RUN(test_manifests);
    TEST_RUN(test_typed_partitions);
    TEST_RUN(test_errors);
    TEST_RUN(test_corrupt);
    for (size_t i = 0; i < g_nlisted; i++)
        free(g_listed[i].dir_and_name);
    free(g_listed);
    for (size_t i = 0; i < g_nfiles; i++)
        free(g_files[i]);
    free(g_files);
    fl_arena_free(&g_arena);
    return TEST_EXIT();
}
