/*
 * pipeline_stats.c - the figures of a table's ingestion pipelines, as the
 * table records them, for every reader that reports on pipelines (SHOW
 * PIPELINES in src/sql/, floe_pipeline_* in the server's /metrics):
 *
 *   the pipelines   table properties floe.pipeline.<name>.epoch
 *   their state     fl_ingest_state_read (epoch, newest checkpoint, lag,
 *                   positions)
 *   commits, rows   the snapshots whose summary floe.pipeline names the
 *                   pipeline (all still in the metadata, as SHOW PIPELINES
 *                   has always counted them) and their added-records
 *
 * Only the metadata is read (and a positions side file for a pipeline with
 * more than FL_INGEST_INLINE_POSITIONS positions): no manifest, no data.
 */
#include <stdlib.h>
#include <string.h>

#include "ingest/ingest_int.h"

#define PIPELINE_PREFIX "floe.pipeline."
#define EPOCH_SUFFIX ".epoch"

/* Length of the pipeline name a property key names
 * ("floe.pipeline.<name>.epoch"), 0 when it names none. */
static size_t pipeline_len(const char *k)
{
    size_t kl = strlen(k), pl = strlen(PIPELINE_PREFIX), sl = strlen(EPOCH_SUFFIX);
    if (kl <= pl + sl || strncmp(k, PIPELINE_PREFIX, pl) || strcmp(k + kl - sl, EPOCH_SUFFIX))
        return 0;
    return kl - pl - sl;
}

static void count_commits(const fl_ice_metadata *m, int64_t now_ms, fl_ingest_pipeline_stats *p)
{
    for (uint32_t i = 0; i < m->nsnapshots; i++) {
        const fl_ice_snapshot *s = &m->snapshots[i];
        const char *name = fl_ice_map_get(&s->summary, FL_INGEST_SUM_PIPELINE);
        if (!name || strcmp(name, p->pipeline))
            continue;
        const char *added = fl_ice_map_get(&s->summary, "added-records");
        int64_t n = added ? strtoll(added, NULL, 10) : 0;
        p->commits++;
        p->rows += n;
        if (s->timestamp_ms > now_ms - 3600 * 1000)
            p->rows_last_hour += n;
    }
}

fl_status fl_ingest_pipelines(fl_fileio *io, const fl_ice_metadata *m, int64_t now_ms, fl_arena *a,
                              fl_ingest_pipeline_stats **out, uint32_t *n, fl_error *err)
{
    *out = NULL;
    *n = 0;
    const fl_ice_map *props = &m->properties;
    uint32_t cap = 0;
    for (uint32_t i = 0; i < props->n; i++)
        cap += pipeline_len(props->items[i].key) > 0;
    if (!cap)
        return FL_OK;
    fl_ingest_pipeline_stats *v = fl_arena_calloc(a, cap, sizeof *v);
    if (!v)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    *out = v; /* filled up to *n even when a pipeline fails */
    for (uint32_t i = 0; i < props->n; i++) {
        const char *k = props->items[i].key;
        size_t len = pipeline_len(k);
        if (!len)
            continue;
        const char *name = fl_arena_strndup(a, k + strlen(PIPELINE_PREFIX), len);
        if (!name)
            return fl_errorf(err, FL_ENOMEM, "out of memory");
        fl_ingest_pipeline_stats *p = &v[(*n)++];
        p->pipeline = name;
        FL_TRY(fl_ingest_state_read(io, m, name, a, &p->state, err));
        count_commits(m, now_ms, p);
    }
    return FL_OK;
}
