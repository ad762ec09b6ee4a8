/*
 * stats_internal.h - Puffin writing (puffin_write.c) for statistics files
 * (stats_file.c). The reader is puffin.c (scan_internal.h).
 */
#ifndef FLOE_ICE_STATS_INTERNAL_H
#define FLOE_ICE_STATS_INTERNAL_H

#include <jansson.h>

#include "floe/ice_stats.h"
#include "iceberg/scan_internal.h"

typedef struct ice_puffin_blob_in {
    const char *type;
    const int32_t *fields;
    uint32_t nfields;
    int64_t snapshot_id, sequence_number;
    const uint8_t *data; /* written uncompressed */
    size_t len;
    const fl_ice_map *properties; /* or NULL */
} ice_puffin_blob_in;

typedef struct ice_puffin_written {
    uint64_t file_size, footer_size; /* footer: magic .. trailing magic */
    int64_t *offsets;                /* per blob, in the arena */
} ice_puffin_written;

/* Writes a Puffin file at path (exclusive create): magic, the blobs, the
 * footer (uncompressed JSON, flags 0, "created-by" created_by). Removed
 * again when anything fails. */
fl_status ice_puffin_write(fl_fileio *io, const char *path, const ice_puffin_blob_in *blobs,
                           uint32_t n, const char *created_by, fl_arena *a, ice_puffin_written *out,
                           fl_error *err);
/* The footer bytes alone (magic + payload + size + flags + magic), malloc'd. */
fl_status ice_puffin_footer_bytes(const ice_puffin_blob_in *blobs, const int64_t *offsets,
                                  uint32_t n, const char *created_by, uint8_t **out, size_t *len,
                                  fl_error *err);

/* The NDV of the single-column theta blobs of a parsed footer whose "ndv"
 * property is a non-negative integer (fl_ice_stats_read_ndv). Arena array. */
fl_status ice_stats_ndv_of_footer(const ice_puffin_footer *ft, fl_arena *a, fl_ice_column_ndv **out,
                                  uint32_t *n, fl_error *err);

#endif
