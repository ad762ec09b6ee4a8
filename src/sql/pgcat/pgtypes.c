/*
 * pgtypes.c - floe types as PostgreSQL types (OIDs, typmods, names), for the
 * wire protocol and the pg_catalog tables. See include/floe/pgtypes.h.
 *
 * The table lists the built-in types clients ask about (pgJDBC's and
 * psqlODBC's type maps, SQLAlchemy reflection): the ones floe produces and
 * the usual catalog types (name, oid, regproc, int2...), with their array
 * types. OIDs and names are PostgreSQL 15's pg_type.dat.
 */
#include <stdio.h>
#include <string.h>

#include "floe/pgtypes.h"
#include "sql/func.h"

static const fl_pg_type_info pg_types[] = {
    {16, "bool", 1, 1000, 0, 'B'},
    {17, "bytea", -1, 1001, 0, 'U'},
    {18, "char", 1, 1002, 0, 'Z'},
    {19, "name", 64, 1003, 0, 'S'},
    {20, "int8", 8, 1016, 0, 'N'},
    {21, "int2", 2, 1005, 0, 'N'},
    {22, "int2vector", -1, 1006, 21, 'A'},
    {23, "int4", 4, 1007, 0, 'N'},
    {24, "regproc", 4, 1008, 0, 'N'},
    {25, "text", -1, 1009, 0, 'S'},
    {26, "oid", 4, 1028, 0, 'N'},
    {28, "xid", 4, 1011, 0, 'U'},
    {30, "oidvector", -1, 1013, 26, 'A'},
    {114, "json", -1, 199, 0, 'U'},
    {194, "pg_node_tree", -1, 0, 0, 'Z'},
    {199, "_json", -1, 0, 114, 'A'},
    {700, "float4", 4, 1021, 0, 'N'},
    {701, "float8", 8, 1022, 0, 'N'},
    {705, "unknown", -2, 0, 0, 'X'},
    {1000, "_bool", -1, 0, 16, 'A'},
    {1001, "_bytea", -1, 0, 17, 'A'},
    {1002, "_char", -1, 0, 18, 'A'},
    {1003, "_name", -1, 0, 19, 'A'},
    {1005, "_int2", -1, 0, 21, 'A'},
    {1006, "_int2vector", -1, 0, 22, 'A'},
    {1007, "_int4", -1, 0, 23, 'A'},
    {1008, "_regproc", -1, 0, 24, 'A'},
    {1009, "_text", -1, 0, 25, 'A'},
    {1011, "_xid", -1, 0, 28, 'A'},
    {1013, "_oidvector", -1, 0, 30, 'A'},
    {1014, "_bpchar", -1, 0, 1042, 'A'},
    {1015, "_varchar", -1, 0, 1043, 'A'},
    {1016, "_int8", -1, 0, 20, 'A'},
    {1021, "_float4", -1, 0, 700, 'A'},
    {1022, "_float8", -1, 0, 701, 'A'},
    {1028, "_oid", -1, 0, 26, 'A'},
    {1033, "aclitem", 12, 1034, 0, 'U'},
    {1034, "_aclitem", -1, 0, 1033, 'A'},
    {1042, "bpchar", -1, 1014, 0, 'S'},
    {1043, "varchar", -1, 1015, 0, 'S'},
    {1082, "date", 4, 1182, 0, 'D'},
    {1083, "time", 8, 1183, 0, 'D'},
    {1114, "timestamp", 8, 1115, 0, 'D'},
    {1115, "_timestamp", -1, 0, 1114, 'A'},
    {1182, "_date", -1, 0, 1082, 'A'},
    {1183, "_time", -1, 0, 1083, 'A'},
    {1184, "timestamptz", 8, 1185, 0, 'D'},
    {1185, "_timestamptz", -1, 0, 1184, 'A'},
    {1186, "interval", 16, 1187, 0, 'T'},
    {1187, "_interval", -1, 0, 1186, 'A'},
    {1231, "_numeric", -1, 0, 1700, 'A'},
    {1700, "numeric", -1, 1231, 0, 'N'},
    {2202, "regprocedure", 4, 2207, 0, 'N'},
    {2205, "regclass", 4, 2210, 0, 'N'},
    {2206, "regtype", 4, 2211, 0, 'N'},
    {2207, "_regprocedure", -1, 0, 2202, 'A'},
    {2210, "_regclass", -1, 0, 2205, 'A'},
    {2211, "_regtype", -1, 0, 2206, 'A'},
    {2249, "record", -1, 2287, 0, 'P'},
    {2275, "cstring", -2, 0, 0, 'P'},
    {2276, "any", 4, 0, 0, 'P'},
    {2277, "anyarray", -1, 0, 0, 'P'},
    {2278, "void", 4, 0, 0, 'P'},
    {2281, "internal", 8, 0, 0, 'P'},
    {2283, "anyelement", 4, 0, 0, 'P'},
    {2287, "_record", -1, 0, 2249, 'P'},
    {2950, "uuid", 16, 2951, 0, 'U'},
    {2951, "_uuid", -1, 0, 2950, 'A'},
    {3802, "jsonb", -1, 3807, 0, 'U'},
    {3807, "_jsonb", -1, 0, 3802, 'A'},
    {4089, "regnamespace", 4, 4090, 0, 'N'},
    {4090, "_regnamespace", -1, 0, 4089, 'A'},
    {4096, "regrole", 4, 4097, 0, 'N'},
    {4097, "_regrole", -1, 0, 4096, 'A'},
};
#define NTYPES (sizeof pg_types / sizeof pg_types[0])

const fl_pg_type_info *fl_pg_types(uint32_t *n)
{
    *n = (uint32_t)NTYPES;
    return pg_types;
}

const fl_pg_type_info *fl_pg_type_by_oid(uint32_t oid)
{
    size_t lo = 0, hi = NTYPES;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (pg_types[mid].oid == oid)
            return &pg_types[mid];
        if (pg_types[mid].oid < oid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

const fl_pg_type_info *fl_pg_type_by_name(const char *typname)
{
    for (size_t i = 0; i < NTYPES; i++)
        if (strcmp(pg_types[i].name, typname) == 0)
            return &pg_types[i];
    return NULL;
}

uint32_t fl_pg_type_oid(const fl_type *t)
{
    /* catalog arrays in text form (src/sql/pgcat/pgcat.h: precision 'ARRY', scale = element OID) */
    if (t->id == FL_TYPE_STRING && t->precision == 0x41525259) {
        const fl_pg_type_info *e = fl_pg_type_by_oid((uint32_t)t->scale);
        if (e && e->array_oid)
            return e->array_oid;
        if (t->scale == 21)
            return 22; /* int2vector */
        if (t->scale == 26)
            return 30; /* oidvector */
        return FL_PG_OID_TEXT;
    }
    switch (t->id) {
    case FL_TYPE_BOOLEAN: return FL_PG_OID_BOOL;
    case FL_TYPE_INT32: return FL_PG_OID_INT4;
    case FL_TYPE_INT64: return FL_PG_OID_INT8;
    case FL_TYPE_FLOAT32: return FL_PG_OID_FLOAT4;
    case FL_TYPE_FLOAT64: return FL_PG_OID_FLOAT8;
    case FL_TYPE_DECIMAL: return FL_PG_OID_NUMERIC;
    case FL_TYPE_DATE: return FL_PG_OID_DATE;
    case FL_TYPE_TIME: return FL_PG_OID_TIME;
    case FL_TYPE_TIMESTAMP:
    case FL_TYPE_TIMESTAMP_NS: return FL_PG_OID_TIMESTAMP;
    case FL_TYPE_TIMESTAMPTZ:
    case FL_TYPE_TIMESTAMPTZ_NS: return FL_PG_OID_TIMESTAMPTZ;
    case FL_TYPE_STRING: return FL_PG_OID_TEXT;
    case FL_TYPE_UUID: return FL_PG_OID_UUID;
    case FL_TYPE_FIXED:
        return fl_type_is_interval(t) ? FL_PG_OID_INTERVAL : FL_PG_OID_BYTEA;
    case FL_TYPE_BINARY: return fl_type_is_variant(t) ? FL_PG_OID_JSON : FL_PG_OID_BYTEA;
    case FL_TYPE_LIST: {
        if (t->nchildren != 1)
            return FL_PG_OID_JSON;
        const fl_pg_type_info *e = fl_pg_type_by_oid(fl_pg_type_oid(&t->children[0].type));
        return e && e->array_oid ? e->array_oid : FL_PG_OID_JSON;
    }
    default: return FL_PG_OID_JSON;
    }
}

int32_t fl_pg_type_typmod(const fl_type *t)
{
    if (t->id == FL_TYPE_DECIMAL)
        return (int32_t)(((uint32_t)t->precision << 16) | (uint32_t)t->scale) + 4;
    return -1;
}

int16_t fl_pg_type_len(const fl_type *t)
{
    const fl_pg_type_info *i = fl_pg_type_by_oid(fl_pg_type_oid(t));
    return i ? i->typlen : -1;
}

/* SQL-standard spellings format_type() uses instead of typname. */
static const char *sql_name(uint32_t oid)
{
    switch (oid) {
    case 16: return "boolean";
    case 18: return "\"char\"";
    case 20: return "bigint";
    case 21: return "smallint";
    case 23: return "integer";
    case 700: return "real";
    case 701: return "double precision";
    case 1042: return "character";
    case 1043: return "character varying";
    case 1083: return "time without time zone";
    case 1114: return "timestamp without time zone";
    case 1184: return "timestamp with time zone";
    case 2276: return "\"any\"";
    default: return NULL;
    }
}

size_t fl_pg_type_format(uint32_t oid, int32_t typmod, char *buf, size_t cap)
{
    const fl_pg_type_info *i = fl_pg_type_by_oid(oid);
    if (!i)
        return (size_t)snprintf(buf, cap, "???");
    if (i->elem_oid && i->category == 'A' && oid != 22 && oid != 30) {
        char inner[96];
        fl_pg_type_format(i->elem_oid, typmod, inner, sizeof inner);
        return (size_t)snprintf(buf, cap, "%s[]", inner);
    }
    const char *n = sql_name(oid);
    if (oid == FL_PG_OID_NUMERIC && typmod >= 4) {
        uint32_t m = (uint32_t)(typmod - 4);
        return (size_t)snprintf(buf, cap, "numeric(%u,%u)", m >> 16, m & 0xffff);
    }
    if ((oid == 1042 || oid == 1043) && typmod >= 4)
        return (size_t)snprintf(buf, cap, "%s(%d)", n, typmod - 4);
    return (size_t)snprintf(buf, cap, "%s", n ? n : i->name);
}
