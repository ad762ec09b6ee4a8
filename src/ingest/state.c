/*
 * state.c - a pipeline's committed state as the table records it.
 *
 *   table property  floe.pipeline.<name>.epoch       newest claimed epoch
 *   table property  floe.pipeline.<name>.checkpoint  newest committed checkpoint
 *   snapshot summary (the newest snapshot on main whose floe.pipeline is
 *   <name>): floe.pipeline.epoch, floe.pipeline.checkpoint and either every
 *   position inline as floe.pos.<key>, or floe.pipeline.positions-file
 *   naming a JSON side file {"pipeline","epoch","checkpoint","positions":{}}
 *   that holds all of them (then the inline floe.pos.* entries are only the
 *   keys that checkpoint changed).
 *
 * The walk follows main's parents from its head, so a checkpoint on another
 * branch, or one rolled back off main, does not count.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/ingest_int.h"

const char *ing_prop_key(char *buf, size_t cap, const char *pipeline, const char *what)
{
    snprintf(buf, cap, "floe.pipeline.%s.%s", pipeline, what);
    return buf;
}

static int64_t parse_i64(const char *v, int64_t dflt)
{
    if (!v || !*v)
        return dflt;
    char *end;
    long long x = strtoll(v, &end, 10);
    return *end ? dflt : (int64_t)x;
}

int64_t ing_prop_i64(const fl_ice_metadata *m, const char *pipeline, const char *what)
{
    char k[256];
    return parse_i64(fl_ice_map_get(&m->properties, ing_prop_key(k, sizeof k, pipeline, what)), 0);
}

int64_t ing_summary_i64(const fl_ice_snapshot *s, const char *key, int64_t dflt)
{
    return parse_i64(fl_ice_map_get(&s->summary, key), dflt);
}

const fl_ice_snapshot *ing_newest_checkpoint(const fl_ice_metadata *m, const char *pipeline)
{
    const fl_ice_ref *main = fl_ice_metadata_ref(m, "main");
    const fl_ice_snapshot *s = main ? fl_ice_metadata_snapshot(m, main->snapshot_id) : NULL;
    for (uint32_t steps = 0; s && steps <= m->nsnapshots; steps++) {
        const char *p = fl_ice_map_get(&s->summary, FL_INGEST_SUM_PIPELINE);
        if (p && !strcmp(p, pipeline))
            return s;
        s = s->has_parent ? fl_ice_metadata_snapshot(m, s->parent_snapshot_id) : NULL;
    }
    return NULL;
}

/* ---- the side file ---- */

fl_status ing_positions_file_write(fl_fileio *io, const char *path, const char *pipeline,
                                   int64_t epoch, int64_t checkpoint, const ing_posmap *m,
                                   fl_error *err)
{
    json_t *pos = json_object();
    json_t *root = json_pack("{s:s, s:I, s:I}", "pipeline", pipeline, "epoch", (json_int_t)epoch,
                             "checkpoint", (json_int_t)checkpoint);
    bool ok = pos && root;
    for (uint32_t i = 0; ok && i < m->n; i++)
        ok = json_object_set_new(pos, m->v[i].key, json_string(m->v[i].value)) == 0;
    if (ok) {
        ok = json_object_set(root, "positions", pos) == 0;
    }
    char *text = ok ? json_dumps(root, JSON_COMPACT) : NULL;
    json_decref(pos);
    json_decref(root);
    if (!text)
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory", path);
    fl_output *o = NULL;
    fl_status rc = fl_fileio_create(io, path, 0, &o, err);
    if (rc == FL_OK) {
        rc = fl_output_write(o, text, strlen(text), err);
        if (rc == FL_OK)
            rc = fl_output_close(o, err);
        else
            fl_output_abort(o);
    }
    free(text);
    return rc;
}

static fl_status read_all(fl_fileio *io, const char *path, char **out, fl_error *err)
{
    fl_file *f = NULL;
    FL_TRY(fl_fileio_open(io, path, &f, err));
    fl_status rc = FL_OK;
    char *buf = f->size < (64u << 20) ? malloc(f->size + 1) : NULL;
    if (!buf)
        rc = fl_errorf(err, f->size < (64u << 20) ? FL_ENOMEM : FL_ELIMIT,
                       "%s: %llu bytes (over 64 MiB or out of memory)", path,
                       (unsigned long long)f->size);
    else
        rc = fl_file_read_at(f, 0, buf, f->size, err);
    if (rc == FL_OK) {
        buf[f->size] = '\0';
        *out = buf;
    } else {
        free(buf);
    }
    fl_file_close(f);
    return rc;
}

static fl_status put(fl_arena *a, fl_ice_kv *kv, const char *k, const char *v, fl_error *err)
{
    kv->key = fl_arena_strdup(a, k);
    kv->value = fl_arena_strdup(a, v);
    return kv->key && kv->value ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
}

static fl_status read_side_file(fl_fileio *io, const char *path, const char *pipeline, fl_arena *a,
                                fl_ice_map *out, fl_error *err)
{
    char *text = NULL;
    FL_TRY(read_all(io, path, &text, err));
    json_error_t je;
    json_t *root = json_loads(text, 0, &je);
    free(text);
    json_t *pos = root ? json_object_get(root, "positions") : NULL;
    const char *name = root ? json_string_value(json_object_get(root, "pipeline")) : NULL;
    fl_status rc = FL_OK;
    if (!root)
        rc = fl_errorf(err, FL_ECORRUPT, "%s: line %d: %s", path, je.line, je.text);
    else if (!json_is_object(pos) || !name || strcmp(name, pipeline) != 0)
        rc = fl_errorf(err, FL_ECORRUPT, "%s: not the positions of pipeline %s", path, pipeline);
    size_t n = rc == FL_OK ? json_object_size(pos) : 0;
    fl_ice_kv *kv = n ? fl_arena_alloc(a, n * sizeof *kv) : NULL;
    if (n && !kv)
        rc = fl_errorf(err, FL_ENOMEM, "out of memory");
    uint32_t k = 0;
    const char *key;
    json_t *v;
    if (rc == FL_OK)
        json_object_foreach(pos, key, v)
        {
            if (!json_is_string(v)) {
                rc = fl_errorf(err, FL_ECORRUPT, "%s: position '%s' is not a string", path, key);
                break;
            }
            if ((rc = put(a, &kv[k++], key, json_string_value(v), err)) != FL_OK)
                break;
        }
    json_decref(root);
    *out = (fl_ice_map){.n = k, .items = kv};
    return rc;
}

static fl_status inline_positions(const fl_ice_snapshot *s, fl_arena *a, fl_ice_map *out,
                                  fl_error *err)
{
    size_t pl = strlen(FL_INGEST_SUM_POS_PREFIX);
    fl_ice_kv *kv = s->summary.n ? fl_arena_alloc(a, s->summary.n * sizeof *kv) : NULL;
    if (s->summary.n && !kv)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    uint32_t k = 0;
    for (uint32_t i = 0; i < s->summary.n; i++) {
        const fl_ice_kv *e = &s->summary.items[i];
        if (!strncmp(e->key, FL_INGEST_SUM_POS_PREFIX, pl))
            FL_TRY(put(a, &kv[k++], e->key + pl, e->value, err));
    }
    *out = (fl_ice_map){.n = k, .items = kv};
    return FL_OK;
}

fl_status fl_ingest_state_read(fl_fileio *io, const fl_ice_metadata *m, const char *pipeline,
                               fl_arena *a, fl_ingest_state *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    out->source_lag_ms = -1;
    out->epoch = ing_prop_i64(m, pipeline, "epoch");
    const fl_ice_snapshot *s = ing_newest_checkpoint(m, pipeline);
    if (!s) {
        if (ing_prop_i64(m, pipeline, "checkpoint") > 0)
            return fl_errorf(err, FL_ECORRUPT,
                             "pipeline %s: the table records checkpoint %lld, but no snapshot of "
                             "the pipeline is left on main (expired or rolled back): its "
                             "positions are lost; resuming would ingest again",
                             pipeline, (long long)ing_prop_i64(m, pipeline, "checkpoint"));
        return FL_OK;
    }
    out->has_checkpoint = true;
    out->snapshot_id = s->snapshot_id;
    out->timestamp_ms = s->timestamp_ms;
    out->checkpoint = ing_summary_i64(s, FL_INGEST_SUM_CHECKPOINT, 0);
    out->commit_epoch = ing_summary_i64(s, FL_INGEST_SUM_EPOCH, 0);
    out->source_lag_ms = ing_summary_i64(s, FL_INGEST_SUM_SOURCE_LAG_MS, -1);
    const char *file = fl_ice_map_get(&s->summary, FL_INGEST_SUM_POS_FILE);
    fl_status rc = file ? read_side_file(io, file, pipeline, a, &out->positions, err)
                        : inline_positions(s, a, &out->positions, err);
    if (rc != FL_OK)
        fl_error_prefix(err, "pipeline %s: snapshot %lld", pipeline, (long long)s->snapshot_id);
    return rc;
}
