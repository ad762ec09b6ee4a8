/*
 * bench_scan_plan.c - scan planning speed over a large table.
 *
 *   bench_scan_plan [DIR] [--manifests N] [--files-per-manifest K]
 *
 * Builds (once, under DIR, default /tmp/floe-bench-plan) a v2 table with
 * N x K data files (default 1,000 manifests x 100 = 100,000 files; no data
 * files are written, only manifests and the manifest list) partitioned by
 * identity(part) with part = file index / 10 (10,000 partitions, each
 * manifest covering 10 consecutive ones) and id bounds per file. Then times:
 *   full   plan without a filter (every manifest read)
 *   cold   plan with `part >= P AND part < P + 1%` and an empty manifest cache
 *   warm   the same plan again with the cache filled (best of 5)
 *   full_plan_warm  the unfiltered plan with every manifest cached (the
 *          planner's own cost without Avro decoding)
 * and prints one JSON line with the figures, the tasks and manifests pruned.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "floe/ice_manifest.h"
#include "floe/ice_scan.h"
#include "floe/iceberg.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *SCHEMA =
    "\"schemas\":[{\"type\":\"struct\",\"schema-id\":0,\"fields\":["
    "{\"id\":1,\"name\":\"id\",\"required\":false,\"type\":\"long\"},"
    "{\"id\":2,\"name\":\"part\",\"required\":false,\"type\":\"int\"}]}],"
    "\"default-spec-id\":0,\"partition-specs\":[{\"spec-id\":0,\"fields\":["
    "{\"name\":\"part\",\"transform\":\"identity\",\"source-id\":2,\"field-id\":1000}]}],"
    "\"last-partition-id\":1000,\"default-sort-order-id\":0,"
    "\"sort-orders\":[{\"order-id\":0,\"fields\":[]}],\"properties\":{}";

static int die(const char *what, const fl_error *err)
{
    fprintf(stderr, "bench_scan_plan: %s: %s\n", what, err->msg);
    return 1;
}

static char *metadata_json(const char *dir, const char *list, int64_t snap)
{
    char *buf = malloc(8192);
    if (!buf)
        return NULL;
    if (!list)
        snprintf(buf, 8192,
                 "{\"format-version\":2,\"table-uuid\":\"5c0e6d8a-2d7c-4d0e-9a55-000000000001\","
                 "\"location\":\"%s\",\"last-sequence-number\":0,\"last-updated-ms\":1,"
                 "\"last-column-id\":2,\"current-schema-id\":0,%s,\"current-snapshot-id\":-1,"
                 "\"snapshots\":[],\"snapshot-log\":[],\"metadata-log\":[]}",
                 dir, SCHEMA);
    else
        snprintf(
            buf, 8192,
            "{\"format-version\":2,\"table-uuid\":\"5c0e6d8a-2d7c-4d0e-9a55-000000000001\","
            "\"location\":\"%s\",\"last-sequence-number\":1,\"last-updated-ms\":1,"
            "\"last-column-id\":2,\"current-schema-id\":0,%s,\"current-snapshot-id\":%" PRId64 ","
            "\"snapshots\":[{\"snapshot-id\":%" PRId64 ",\"sequence-number\":1,\"timestamp-ms\":1,"
            "\"manifest-list\":\"%s\",\"summary\":{\"operation\":\"append\"},\"schema-id\":0}],"
            "\"snapshot-log\":[{\"timestamp-ms\":1,\"snapshot-id\":%" PRId64
            "}],\"metadata-log\":[]}",
            dir, SCHEMA, snap, snap, list, snap);
    return buf;
}

static int build(fl_fileio *io, const char *dir, uint32_t nman, uint32_t per, const char *list)
{
    fl_error err;
    fl_arena a;
    fl_arena_init(&a, 0);
    char *js = metadata_json(dir, NULL, 0);
    fl_ice_metadata m;
    if (!js ||
        fl_ice_metadata_parse((const uint8_t *)js, strlen(js), "bench", &a, &m, &err) != FL_OK)
        return die("metadata", &err);
    free(js);
    int64_t snap = 42;
    fl_ice_manifest_file *mfs = fl_arena_calloc(&a, nman, sizeof *mfs);
    char path[4096], fpath[4096];
    for (uint32_t i = 0; i < nman; i++) {
        snprintf(path, sizeof path, "%s/metadata/m%05u.avro", dir, i);
        fl_ice_manifest_writer *w;
        if (fl_ice_manifest_writer_open(io, path, &m, 0, FL_ICE_MANIFEST_DATA, 2, snap, &w, &err))
            return die(path, &err);
        for (uint32_t k = 0; k < per; k++) {
            uint64_t idx = (uint64_t)i * per + k;
            fl_ice_manifest_entry e;
            memset(&e, 0, sizeof e);
            e.status = FL_ICE_STATUS_ADDED;
            e.snapshot_id = snap;
            e.sequence_number = e.file_sequence_number = FL_ICE_UNASSIGNED_SEQ;
            snprintf(fpath, sizeof fpath, "%s/data/part=%" PRIu64 "/f%07" PRIu64 ".parquet", dir,
                     idx / 10, idx);
            fl_value pv = {.type = {.id = FL_TYPE_INT32}};
            pv.v.i32 = (int32_t)(idx / 10);
            int64_t lo = (int64_t)idx * 1000, hi = lo + 999;
            uint8_t lob[8], hib[8];
            memcpy(lob, &lo, 8);
            memcpy(hib, &hi, 8);
            fl_ice_column_metrics cm[2] = {
                {.field_id = 1,
                 .column_size = 4000,
                 .value_count = 1000,
                 .null_value_count = 0,
                 .nan_value_count = -1,
                 .has_lower = true,
                 .has_upper = true,
                 .lower = lob,
                 .lower_len = 8,
                 .upper = hib,
                 .upper_len = 8},
                {.field_id = 2,
                 .column_size = 10,
                 .value_count = 1000,
                 .null_value_count = 0,
                 .nan_value_count = -1},
            };
            e.file = (fl_ice_data_file){.content = FL_ICE_CONTENT_DATA,
                                        .file_path = fpath,
                                        .file_format = "PARQUET",
                                        .spec_id = 0,
                                        .npartition = 1,
                                        .partition = &pv,
                                        .record_count = 1000,
                                        .file_size_in_bytes = 100000,
                                        .nmetrics = 2,
                                        .metrics = cm};
            if (fl_ice_manifest_writer_add(w, &e, &err) != FL_OK) {
                fl_ice_manifest_writer_abort(w);
                return die(path, &err);
            }
        }
        if (fl_ice_manifest_writer_close(w, &a, &mfs[i], &err) != FL_OK)
            return die(path, &err);
    }
    fl_ice_manifest_list_info info = {
        .format_version = 2, .snapshot_id = snap, .sequence_number = 1};
    if (fl_ice_manifest_list_write(io, list, &info, mfs, nman, NULL, &err) != FL_OK)
        return die(list, &err);
    fl_arena_free(&a);
    return 0;
}

static int plan(fl_fileio *io, const fl_ice_metadata *m, const fl_predicate *f,
                fl_ice_manifest_cache *c, double *secs, fl_ice_scan_metrics *met, uint32_t *ntasks)
{
    fl_error err;
    fl_ice_scan_options o = {.filter = f, .cache = c};
    fl_ice_scan_plan *p;
    double t0 = now();
    if (fl_ice_scan_plan_files(io, m, &o, &p, &err) != FL_OK)
        return die("plan", &err);
    *secs = now() - t0;
    *met = p->metrics;
    *ntasks = p->ntasks;
    fl_ice_scan_plan_free(p);
    return 0;
}

int main(int argc, char **argv)
{
    const char *dir = "/tmp/floe-bench-plan";
    uint32_t nman = 1000, per = 100;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--manifests") && i + 1 < argc)
            nman = (uint32_t)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--files-per-manifest") && i + 1 < argc)
            per = (uint32_t)atoi(argv[++i]);
        else
            dir = argv[i];
    }
    char sub[4200], list[4300], marker[4400];
    snprintf(sub, sizeof sub, "%s/metadata", dir);
    mkdir(dir, 0755);
    mkdir(sub, 0755);
    snprintf(list, sizeof list, "%s/metadata/snap-%u-%u.avro", dir, nman, per);
    snprintf(marker, sizeof marker, "%s.done", list);
    fl_fileio *io = fl_fileio_local();
    struct stat st;
    double tb = now();
    bool built = false;
    if (stat(marker, &st) != 0) {
        if (build(io, dir, nman, per, list))
            return 1;
        FILE *mk = fopen(marker, "w");
        if (mk)
            fclose(mk);
        built = true;
    }
    double build_s = now() - tb;
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    char *js = metadata_json(dir, list, 42);
    fl_ice_metadata m;
    if (!js || fl_ice_metadata_parse((const uint8_t *)js, strlen(js), "bench", &a, &m, &err))
        return die("metadata", &err);
    free(js);
    uint32_t nparts = (uint32_t)((uint64_t)nman * per / 10);
    int32_t lo = (int32_t)(nparts / 2) + 5, hi = lo + (int32_t)(nparts / 100);
    fl_col_pred terms[2] = {{.column = "part", .op = FL_CMP_GE},
                            {.column = "part", .op = FL_CMP_LT}};
    terms[0].value.type.id = terms[1].value.type.id = FL_TYPE_INT32;
    terms[0].value.v.i32 = lo;
    terms[1].value.v.i32 = hi;
    fl_predicate f = {2, terms};
    double full, cold, warm = 1e9, w;
    fl_ice_scan_metrics mf, mc, mw;
    uint32_t tf, tc, tw;
    if (plan(io, &m, NULL, NULL, &full, &mf, &tf))
        return 1;
    fl_ice_manifest_cache *c;
    if (fl_ice_manifest_cache_new((size_t)1 << 30, &c, &err))
        return die("cache", &err);
    if (plan(io, &m, &f, c, &cold, &mc, &tc))
        return 1;
    for (int i = 0; i < 5; i++) {
        if (plan(io, &m, &f, c, &w, &mw, &tw))
            return 1;
        if (w < warm)
            warm = w;
    }
    /* the planner's own cost: full plan with every manifest already decoded */
    double full_warm = 1e9;
    fl_ice_scan_metrics mfw;
    uint32_t tfw;
    for (int i = 0; i < 3; i++) {
        if (plan(io, &m, NULL, c, &w, &mfw, &tfw))
            return 1;
        if (i > 0 && w < full_warm)
            full_warm = w;
    }
    fl_ice_cache_stats cs;
    fl_ice_manifest_cache_stats(c, &cs);
    printf("{\"manifests\":%u,\"files\":%" PRIu64 ",\"built\":%s,\"build_s\":%.3f,"
           "\"full_plan_s\":%.4f,\"full_plan_warm_s\":%.4f,\"full_tasks\":%u,"
           "\"filtered_cold_s\":%.4f,\"filtered_warm_s\":%.5f,\"tasks\":%u,"
           "\"manifests_pruned\":%u,\"files_pruned_partition\":%" PRIu64 ","
           "\"cache_hits\":%" PRIu64 ",\"cache_bytes\":%" PRIu64 "}\n",
           nman, mf.files_total, built ? "true" : "false", build_s, full, full_warm, tf, cold, warm,
           tc, mc.manifests_pruned, mc.files_pruned_partition, cs.hits, cs.bytes);
    (void)mw;
    (void)tw;
    fl_ice_manifest_cache_free(c);
    fl_arena_free(&a);
    fl_fileio_destroy(io);
    return 0;
}
