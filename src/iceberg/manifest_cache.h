/*
 * manifest_cache.h - internal interface of the manifest cache
 * (manifest_cache.c): acquire a manifest's decoded entries (from the cache
 * or by reading), release them when done.
 */
#ifndef FLOE_ICEBERG_MANIFEST_CACHE_H
#define FLOE_ICEBERG_MANIFEST_CACHE_H

#include "floe/ice_scan.h"

typedef struct ice_cached_manifest ice_cached_manifest;

/* Acquires the entries of mf: c may be NULL (then always reads). Release
 * with ice_cache_release(e, c) (the same c). */
fl_status ice_cache_get(fl_ice_manifest_cache *c, fl_fileio *io, const fl_ice_metadata *m,
                        const fl_ice_manifest_file *mf, ice_cached_manifest **out, fl_error *err);
const fl_ice_manifest_entry *ice_cached_entries(const ice_cached_manifest *e, uint32_t *n);
void ice_cache_release(ice_cached_manifest *e, fl_ice_manifest_cache *c);

#endif
