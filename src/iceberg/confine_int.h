/*
 * confine_int.h - the deleters' side of storage confinement (confine.c).
 *
 * Purge (table_drop.c), expire (expire.c) and orphan removal (orphans.c)
 * delete a file only when ice_owned_has() says it is the table's: under the
 * table's own location, not under the location of another table or view
 * nested inside it (tables made before overlaps were refused), and not a
 * file the catalog protects (its database). Whatever a manifest or a
 * metadata log names elsewhere is left and counted.
 */
#ifndef FLOE_ICEBERG_CONFINE_INT_H
#define FLOE_ICEBERG_CONFINE_INT_H

#include "floe/ice_table.h"

typedef struct ice_owned {
    const char *location;      /* the table's prefix */
    const fl_catalog *catalog; /* protected files; NULL = none known */
    const char **foreign;      /* locations of other objects inside location */
    uint32_t nforeign;
} ice_owned;

/* Computes t's scope. Lists the catalog (as fl_ice_location_check) to find
 * nested objects; catalogs whose server owns the metadata (REST) and tables
 * opened by path get only the prefix rule. Strings live in a. */
fl_status ice_owned_init(const fl_ice_table *t, fl_arena *a, ice_owned *o, fl_error *err);
bool ice_owned_has(const ice_owned *o, const char *path);

#endif
