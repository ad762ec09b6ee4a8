/*
 * catalog_internal.h - helpers shared by the catalog implementations
 * (the files in src/catalog) and the table handle (src/iceberg/table.c).
 *
 * Metadata file names and their versions:
 *   Java metastore catalogs (JDBC, Hive, Glue): <NNNNN>-<uuid>.metadata.json,
 *     version = the digits before the first '-'.
 *   Hadoop/filesystem tables: v<N>.metadata.json (also v<N>.gz.metadata.json,
 *     v<N>.metadata.json.gz); DuckDB fixtures add v3.1 / v3.2 sub-versions,
 *     BigQuery writes v<epoch seconds>.
 * fl_cat_name_version() turns such a file name into comparable numbers.
 */
#ifndef FLOE_CATALOG_INTERNAL_H
#define FLOE_CATALOG_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/catalog.h"

#define FL_CAT_MAX_VERSION_PARTS 4

/* A metadata file's version: parts compared left to right (v3.2 = {3, 2}). */
typedef struct fl_cat_version {
    uint32_t nparts; /* 0 = the name carries no version */
    int64_t parts[FL_CAT_MAX_VERSION_PARTS];
} fl_cat_version;

/* True when name (the last path component) looks like a table metadata file:
 * *.metadata.json, *.metadata.json.gz or *.gz.metadata.json. */
bool fl_cat_is_metadata_name(const char *name);

/* Version of a metadata file name ("v7.metadata.json", "00003-<uuid>.metadata.json",
 * "v3.2.metadata.json"); nparts 0 when it has none ("vfinal.metadata.json"). */
fl_cat_version fl_cat_name_version(const char *name);
int fl_cat_version_cmp(const fl_cat_version *a, const fl_cat_version *b);

/* The last path component of path (after the last '/'). */
const char *fl_cat_basename(const char *path);

/* Joins namespace levels with '.' (JDBC layout). FL_EINVAL when a level is
 * empty or contains '.', which that layout cannot represent. */
fl_status fl_cat_ns_join(const fl_namespace *ns, fl_arena *a, const char **out, fl_error *err);
/* Splits a dot-joined namespace (JDBC layout) into levels. "" = 0 levels. */
fl_namespace fl_cat_ns_split(const char *s, fl_arena *a);

/* Parses a non-negative decimal int64 from [s, s+len); false when not one. */
bool fl_cat_parse_i64(const char *s, size_t len, int64_t *out);

#endif
