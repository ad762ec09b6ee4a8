/*
 * fuzz_puffin_stats.c - libFuzzer target for reading NDV statistics:
 * arbitrary bytes parsed as a Puffin file (footer framing, JSON payload,
 * blob bounds) and the NDV extraction the planner runs on statistics
 * files (stats_file.c). Properties: every NDV found is >= 0 and comes from
 * a single-column theta blob; writing those blobs' metadata back as a
 * footer (puffin_write.c) and parsing it again yields the same NDV list.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iceberg/stats_internal.h"

static void round_trip(const ice_puffin_footer *ft, const fl_ice_column_ndv *v, uint32_t n)
{
    ice_puffin_blob_in in[16];
    int64_t off[16];
    fl_ice_kv kv[16];
    fl_ice_map props[16];
    char ndv[16][24];
    uint32_t m = 0;
    for (uint32_t i = 0; i < ft->nblobs && m < 16; i++) {
        const ice_puffin_blob *b = &ft->blobs[i];
        if (strcmp(b->type, FL_ICE_BLOB_THETA) != 0 || b->nfields != 1 || !b->ndv)
            continue;
        snprintf(ndv[m], sizeof ndv[m], "%s", b->ndv);
        kv[m] = (fl_ice_kv){"ndv", ndv[m]};
        props[m] = (fl_ice_map){1, &kv[m]};
        in[m] = (ice_puffin_blob_in){
            b->type, b->fields, 1, b->snapshot_id, b->sequence_number, NULL, 0, &props[m]};
        off[m++] = 4;
    }
    uint8_t *buf = NULL;
    size_t len = 0;
    fl_error err;
    if (ice_puffin_footer_bytes(in, off, m, "fuzz", &buf, &len, &err) != FL_OK)
        return;
    uint8_t *file = malloc(len + 4);
    if (!file) {
        free(buf);
        return;
    }
    memcpy(file, "PFA1", 4);
    memcpy(file + 4, buf, len);
    free(buf);
    fl_arena a;
    fl_arena_init(&a, 0);
    ice_puffin_footer ft2;
    fl_ice_column_ndv *v2 = NULL;
    uint32_t n2 = 0;
    if (ice_puffin_parse(file, len + 4, &a, &ft2, &err) != FL_OK ||
        ice_stats_ndv_of_footer(&ft2, &a, &v2, &n2, &err) != FL_OK)
        abort();
    if (ft->nblobs <= 16 && (n2 != n || (n && memcmp(v, v2, n * sizeof *v) != 0)))
        abort();
    fl_arena_free(&a);
    free(file);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fl_error err;
    fl_arena a;
    fl_arena_init(&a, 0);
    ice_puffin_footer ft;
    fl_ice_column_ndv *v = NULL;
    uint32_t n = 0;
    if (ice_puffin_parse(data, size, &a, &ft, &err) == FL_OK &&
        ice_stats_ndv_of_footer(&ft, &a, &v, &n, &err) == FL_OK) {
        for (uint32_t i = 0; i < n; i++)
            if (v[i].ndv < 0)
                abort();
        round_trip(&ft, v, n);
    }
    fl_arena_free(&a);
    return 0;
}
