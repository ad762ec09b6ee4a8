/*
 * manifest_cache.h - internal interface of the Iceberg read cache
 * (manifest_cache.c). One refcounted LRU holds every kind of decoded,
 * immutable file: manifests, manifest lists, table metadata files and Parquet
 * footers. Callers acquire an entry (from the cache, or by decoding it) and
 * release it when done; an entry evicted while held lives until its last
 * holder releases it.
 */
#ifndef FLOE_ICEBERG_MANIFEST_CACHE_H
#define FLOE_ICEBERG_MANIFEST_CACHE_H

#include "floe/ice_scan.h"
#include "floe/parquet.h"

typedef enum ice_cache_kind {
    ICE_CACHE_MANIFEST = 1, /* key: manifest path + manifest length */
    ICE_CACHE_LIST = 2,     /* key: manifest-list path (length -1) */
    ICE_CACHE_METADATA = 3, /* key: metadata-file location (length -1) */
    ICE_CACHE_FOOTER = 4,   /* key: Parquet file path + file size */
} ice_cache_kind;

/* fl_ice_cache_entry, fl_ice_cache_release, fl_ice_cache_open_parquet: floe/ice_scan.h */
typedef fl_ice_cache_entry ice_cached_manifest;

/* Acquires the entries of mf: c may be NULL (then always reads). Release
 * with fl_ice_cache_release(e, c) (the same c). */
fl_status ice_cache_get(fl_ice_manifest_cache *c, fl_fileio *io, const fl_ice_metadata *m,
                        const fl_ice_manifest_file *mf, ice_cached_manifest **out, fl_error *err);
const fl_ice_manifest_entry *ice_cached_entries(const ice_cached_manifest *e, uint32_t *n);

/* The manifests of snapshot s (fl_ice_snapshot_manifests), cached by
 * manifest-list path when s has one. *files points into the entry. */
fl_status ice_cache_get_list(fl_ice_manifest_cache *c, fl_fileio *io, const fl_ice_metadata *m,
                             const fl_ice_snapshot *s, fl_ice_cache_entry **out,
                             const fl_ice_manifest_file **files, uint32_t *n, fl_error *err);

/* Parsed table metadata at location (fl_ice_metadata_read); *meta points
 * into the entry. */
fl_status ice_cache_get_metadata(fl_ice_manifest_cache *c, fl_fileio *io, const char *location,
                                 fl_ice_cache_entry **out, const fl_ice_metadata **meta,
                                 fl_error *err);


#endif
