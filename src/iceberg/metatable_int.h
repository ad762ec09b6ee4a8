/*
 * metatable_int.h - shared pieces of the metadata-table builders
 * (metatable.c: schema and value helpers; metatable_snap.c: snapshots,
 * history, refs; metatable_files.c: manifests, files, entries, partitions).
 */
#ifndef FLOE_ICEBERG_METATABLE_INT_H
#define FLOE_ICEBERG_METATABLE_INT_H

#include "iceberg/scan_internal.h"

typedef struct mt_col {
    const char *name;
    fl_type type;
} mt_col;

typedef struct mt_builder {
    fl_ice_metatable *t;
    fl_arena *a; /* the table's arena */
    fl_fileio *io;
    const fl_ice_metadata *m;
    const fl_ice_scan_options *opt;
    fl_vector *cols; /* after mt_begin */
    int32_t next_id;
} mt_builder;

enum { MT_FILES_ALL, MT_FILES_DATA, MT_FILES_DELETES };

fl_type mt_prim(fl_type_id id);
fl_type mt_list(mt_builder *b, fl_type elem);
fl_type mt_map(mt_builder *b, fl_type k, fl_type v);
fl_type mt_struct(mt_builder *b, const mt_col *cols, uint32_t n);
/* Creates the table's schema and column vectors. */
fl_status mt_begin(mt_builder *b, const mt_col *cols, uint32_t n, fl_error *err);
void mt_row_done(mt_builder *b);

fl_status mt_null(fl_vector *v, fl_error *err);
fl_status mt_i32(fl_vector *v, int32_t x, fl_error *err);
fl_status mt_i64(fl_vector *v, int64_t x, fl_error *err);
fl_status mt_bool(fl_vector *v, bool x, fl_error *err);
fl_status mt_str(fl_vector *v, const char *s, fl_error *err); /* NULL -> null */
fl_status mt_bin(fl_vector *v, const uint8_t *p, size_t n, fl_error *err);
/* Java's human-readable form of a value (dates, timestamps, decimals, hex). */
void mt_human(const fl_value *v, char *buf, size_t cap);

fl_status mt_snapshots(mt_builder *b, fl_error *err);
fl_status mt_history(mt_builder *b, fl_error *err);
fl_status mt_refs(mt_builder *b, fl_error *err);
fl_status mt_manifests(mt_builder *b, bool all, fl_error *err);
fl_status mt_files(mt_builder *b, int which, bool entries, fl_error *err);
fl_status mt_partitions(mt_builder *b, fl_error *err);

#endif
