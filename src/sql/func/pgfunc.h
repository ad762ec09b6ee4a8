/*
 * pgfunc.h - data shared between the PostgreSQL compatibility functions
 * (pgfunc.c) and the binder hooks that build their calls (src/sql/pgcat).
 */
#ifndef FLOE_SQL_FUNC_PGFUNC_H
#define FLOE_SQL_FUNC_PGFUNC_H

#include <stdint.h>

/* bind_data of __pg_regclass(text): relation names ("t" for the session
 * schema's tables, "ns.t" for all) and their OIDs; arena memory. */
typedef struct fl_pg_name_table {
    const char **names;
    int64_t *oids;
    uint32_t n;
} fl_pg_name_table;

#endif
