/*
 * ingest_int.h - what the files of src/ingest/ share: the position map
 * (positions.c), the committed-state reader (state.c) and the by-name
 * column adapter of the landing-files source (adapt.c).
 */
#ifndef FLOE_INGEST_INT_H
#define FLOE_INGEST_INT_H

#include "floe/ice_table.h"
#include "floe/ingest.h"
#include "floe/text.h"

/* ---- positions.c: a sorted key -> value map (malloc'd strings) ---- */

typedef struct ing_pos {
    char *key;
    char *value;
    bool dirty; /* set since the last checkpoint */
} ing_pos;

typedef struct ing_posmap {
    ing_pos *v;
    uint32_t n, cap;
    uint32_t ndirty;
} ing_posmap;

/* Sets key to value (copied); marks it dirty when dirty. FL_ENOMEM. */
fl_status ing_posmap_set(ing_posmap *m, const char *key, const char *value, bool dirty,
                         fl_error *err);
const ing_pos *ing_posmap_find(const ing_posmap *m, const char *key);
void ing_posmap_clear_dirty(ing_posmap *m);
void ing_posmap_free(ing_posmap *m);
/* Well-formed UTF-8 (summaries and side files are JSON, which needs it). */
bool ing_utf8_valid(const char *s);

/* ---- state.c: the pipeline's traces in table metadata ---- */

/* "floe.pipeline.<name>.<what>" into buf (cap >= 256). */
const char *ing_prop_key(char *buf, size_t cap, const char *pipeline, const char *what);
/* The integer table property "floe.pipeline.<name>.<what>", 0 when absent. */
int64_t ing_prop_i64(const fl_ice_metadata *m, const char *pipeline, const char *what);
/* The newest snapshot on main's ancestry whose summary names pipeline, or NULL. */
const fl_ice_snapshot *ing_newest_checkpoint(const fl_ice_metadata *m, const char *pipeline);
/* Integer summary entry, dflt when absent or malformed. */
int64_t ing_summary_i64(const fl_ice_snapshot *s, const char *key, int64_t dflt);
/* Writes the side file of positions (every entry of m) at path. */
fl_status ing_positions_file_write(fl_fileio *io, const char *path, const char *pipeline,
                                   int64_t epoch, int64_t checkpoint, const ing_posmap *m,
                                   fl_error *err);

/* ---- deltas.c: what a checkpoint removes (equality-delete keys, truncation) ---- */

typedef struct ing_deltas {
    fl_arena arena;  /* schema copy, column map, ids */
    fl_schema schema; /* the identifier columns, with the table's field ids */
    uint32_t *cols;  /* their positions in the sink's schema */
    int32_t *ids;
    uint32_t nids;
    fl_batch keys; /* buffered key rows */
    bool has_batch;
    uint64_t nkeys;
    bool truncate; /* the checkpoint removes every row committed before it */
} ing_deltas;

typedef struct ing_file_list {
    const char **paths;
    uint32_t n;
} ing_file_list;

/* Copies the identifier columns of b's live rows (b has the table's schema);
 * the first call checks the table (v2+, identifier fields, unpartitioned). */
fl_status ing_deltas_add_keys(ing_deltas *d, const char *pipeline, const fl_ice_metadata *m,
                              const fl_batch *b, fl_error *err);
/* The buffered keys as one global equality delete file; *out in a. */
fl_status ing_deltas_write_keys(ing_deltas *d, fl_fileio *io, const fl_ice_metadata *m,
                                fl_arena *a, fl_ice_data_file *out, fl_error *err);
/* The live data files and the delete files other than DVs of m's current
 * snapshot (paths in a). */
fl_status ing_deltas_live_files(fl_fileio *io, const fl_ice_metadata *m, fl_arena *a,
                                ing_file_list *data, ing_file_list *deletes, fl_error *err);
void ing_deltas_reset(ing_deltas *d); /* after a checkpoint: no keys, no truncation */
void ing_deltas_free(ing_deltas *d);

/* ---- pump.c: one pass of a source into the sink ---- */

/* path (CSV or JSON lines, through io; NULL = local files) opened so its
 * columns carry table's types (fl_ingest_text_schema). Scratch in a. */
fl_status ing_open_text(fl_fileio *io, const char *path, bool csv, const fl_schema *table,
                        fl_arena *a, fl_source **out, fl_error *err);
/* Every batch of src adapted to table and written to s (NULL = only
 * checked); *rows = rows converted. A conversion error is prefixed with
 * name (name_records: "name: records a-b"); *sink_failed tells an error of
 * the sink from one of the input. src stays the caller's. */
fl_status ing_pump(fl_source *src, const fl_schema *table, const fl_ice_schema *ice,
                   const char *name, bool name_records, fl_ingest_sink *s, uint64_t *rows,
                   bool *sink_failed, fl_error *err);

#endif
