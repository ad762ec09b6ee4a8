/*
 * catalog_internal.h - helpers shared by the catalog implementations (the
 * files in src/catalog). Metadata file names and their versions are
 * Iceberg's rule: fl_ice_metadata_version_of() in floe/iceberg.h.
 */
#ifndef FLOE_CATALOG_INTERNAL_H
#define FLOE_CATALOG_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/catalog.h"

/* The last path component of path (after the last '/'). */
const char *fl_cat_basename(const char *path);

/* Joins namespace levels with '.' (JDBC layout). A '.' inside a level is
 * stored as "%2E" and a '%' as "%25", so the level "new.db" stays one level
 * (Java's JdbcCatalog, which splits on '.', shows such a level escaped;
 * names without '.' or '%' are stored as they are). FL_EINVAL when a level
 * is empty. */
fl_status fl_cat_ns_join(const fl_namespace *ns, fl_arena *a, const char **out, fl_error *err);
/* One stored level [s, s+len) decoded ("%2E" -> '.', "%25" -> '%'); NULL
 * when out of memory. */
const char *fl_cat_ns_level_decode(const char *s, size_t len, fl_arena *a);
/* Splits a dot-joined namespace (JDBC layout) into decoded levels. "" = 0 levels. */
fl_namespace fl_cat_ns_split(const char *s, fl_arena *a);

/* Parses a non-negative decimal int64 from [s, s+len); false when not one. */
bool fl_cat_parse_i64(const char *s, size_t len, int64_t *out);

#endif
