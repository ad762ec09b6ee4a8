/*
 * pgtypes.h - how floe's SQL types appear to PostgreSQL clients: the type
 * OIDs, lengths and typmods that the wire protocol's RowDescription and the
 * pg_catalog tables (pg_type, pg_attribute, format_type) report.
 *
 * DESIGN
 *   OIDs are PostgreSQL's built-in ones (src/include/catalog/pg_type.dat), so
 *   drivers that hard-code them (pgJDBC, psqlODBC, node pg, psycopg2) decode
 *   floe's values with their stock codecs. The mapping is a pure function of
 *   the fl_type; the wire server and the pg_catalog tables both call it, so
 *   they can never disagree.
 *
 *   | floe type                     | PostgreSQL type        | OID  |
 *   |-------------------------------|------------------------|------|
 *   | BOOLEAN                       | boolean                | 16   |
 *   | INT32                         | integer                | 23   |
 *   | INT64                         | bigint                 | 20   |
 *   | FLOAT32 / FLOAT64             | real / double precision| 700 / 701 |
 *   | DECIMAL(p,s)                  | numeric(p,s)           | 1700 |
 *   | DATE / TIME                   | date / time            | 1082 / 1083 |
 *   | TIMESTAMP(_NS)                | timestamp              | 1114 |
 *   | TIMESTAMPTZ(_NS)              | timestamptz            | 1184 |
 *   | STRING                        | text                   | 25   |
 *   | UUID                          | uuid                   | 2950 |
 *   | BINARY, FIXED(L)              | bytea                  | 17   |
 *   | interval (SQL layer's FIXED)  | interval               | 1186 |
 *   | LIST<x>                       | x[] (array OID of x)   | e.g. 1007 |
 *   | STRUCT, MAP                   | json (text rendering)  | 114  |
 *
 * Ownership: everything returned is static, read-only data.
 */
#ifndef FLOE_PGTYPES_H
#define FLOE_PGTYPES_H

#include "floe/export.h"

#include <stdint.h>

#include "floe/types.h"

#ifdef __cplusplus
extern "C" {
#endif

enum {
    FL_PG_OID_BOOL = 16,
    FL_PG_OID_BYTEA = 17,
    FL_PG_OID_NAME = 19,
    FL_PG_OID_INT8 = 20,
    FL_PG_OID_INT2 = 21,
    FL_PG_OID_INT4 = 23,
    FL_PG_OID_REGPROC = 24,
    FL_PG_OID_TEXT = 25,
    FL_PG_OID_OID = 26,
    FL_PG_OID_JSON = 114,
    FL_PG_OID_FLOAT4 = 700,
    FL_PG_OID_FLOAT8 = 701,
    FL_PG_OID_UNKNOWN = 705,
    FL_PG_OID_BPCHAR = 1042,
    FL_PG_OID_VARCHAR = 1043,
    FL_PG_OID_DATE = 1082,
    FL_PG_OID_TIME = 1083,
    FL_PG_OID_TIMESTAMP = 1114,
    FL_PG_OID_TIMESTAMPTZ = 1184,
    FL_PG_OID_INTERVAL = 1186,
    FL_PG_OID_NUMERIC = 1700,
    FL_PG_OID_UUID = 2950,
};

/* One PostgreSQL type as a client sees it. */
typedef struct fl_pg_type_info {
    uint32_t oid;
    const char *name;   /* pg_type.typname: "int4", "numeric", "_int4" */
    int16_t typlen;     /* pg_type.typlen: 4, 8, -1 (varlena) */
    uint32_t array_oid; /* pg_type.typarray (0 for array types) */
    uint32_t elem_oid;  /* pg_type.typelem for arrays, else 0 */
    char category;      /* pg_type.typcategory: 'N', 'S', 'D', 'B', 'A', 'U'... */
} fl_pg_type_info;

/* The PostgreSQL type for a floe type (see the table above). */
FL_API uint32_t fl_pg_type_oid(const fl_type *t);
/* atttypmod / RowDescription typmod: numeric (p<<16 | s) + 4; else -1. */
FL_API int32_t fl_pg_type_typmod(const fl_type *t);
/* RowDescription "data type size": typlen of the OID. */
FL_API int16_t fl_pg_type_len(const fl_type *t);
/* format_type(oid, typmod) spelling: "integer", "numeric(10,2)",
 * "timestamp with time zone", "text[]". Writes at most cap bytes (NUL
 * included); returns the length needed. */
FL_API size_t fl_pg_type_format(uint32_t oid, int32_t typmod, char *buf, size_t cap);

/* The built-in types floe reports in pg_type, in OID order; *n gets the count. */
FL_API const fl_pg_type_info *fl_pg_types(uint32_t *n);
/* Lookup by OID or by typname; NULL when unknown. */
FL_API const fl_pg_type_info *fl_pg_type_by_oid(uint32_t oid);
FL_API const fl_pg_type_info *fl_pg_type_by_name(const char *typname);

#ifdef __cplusplus
}
#endif
#endif
