/*
 * cache.h - how the SQL engine reaches the process-wide read cache
 * (fl_sql_shared_cache, sql.h; implemented in cache.c).
 *
 * A session wraps its FileIO in a "cache FileIO" (fl_sql_cache_wrap_io) that
 * forwards every call to the real FileIO and carries the cache, so every
 * layer that already receives the session's FileIO (planner, binder, scan
 * operators, table functions) finds the cache with fl_sql_cache_of_io()
 * without another parameter.
 */
#ifndef FLOE_SQL_CACHE_H
#define FLOE_SQL_CACHE_H

#include "floe/ice_scan.h"
#include "floe/sql.h"

/* Default bound of a session's private cache (options.cache NULL). */
#define FL_SQL_PRIVATE_CACHE_BYTES (128u << 20)

/* *out forwards to inner (destroyed with *out when own_inner) and carries
 * shared, or when shared is NULL a private cache of
 * FL_SQL_PRIVATE_CACHE_BYTES that *out owns. Free with fl_fileio_destroy. */
fl_status fl_sql_cache_wrap_io(fl_sql_shared_cache *shared, fl_fileio *inner, bool own_inner,
                               fl_fileio **out, fl_error *err);

/* The read cache behind io when io is a cache FileIO, else NULL. */
fl_ice_manifest_cache *fl_sql_cache_of_io(const fl_fileio *io);

/* The cache's Iceberg store (never NULL for a live cache). */
fl_ice_manifest_cache *fl_sql_shared_cache_ice(fl_sql_shared_cache *c);

#endif
