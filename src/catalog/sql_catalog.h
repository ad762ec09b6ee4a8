/*
 * sql_catalog.h - the JDBC-layout catalog logic shared by the SQLite and
 * PostgreSQL back ends.
 *
 * sql_catalog.c implements every fl_catalog_ops entry in terms of a small
 * driver: run one of the prepared statements below with text parameters and
 * collect the rows (strings; NULL = SQL NULL), and begin/commit/rollback a
 * write transaction. The drivers prepare each statement once per catalog
 * (sql_text() gives its text with '?' placeholders; PostgreSQL numbers them)
 * and map errors: a unique-key violation is FL_EEXIST, a lock wait beyond
 * the timeout is FL_EIO with the database's message, and a serialization
 * failure / deadlock sets `retryable` so the transaction is run again.
 *
 * Schema (Iceberg JdbcUtil, created exactly as Java creates it: V0 table,
 * then ALTER TABLE ... ADD COLUMN iceberg_type VARCHAR(5) for schema V1):
 *   iceberg_tables(catalog_name VARCHAR(255) NOT NULL, table_namespace
 *     VARCHAR(255) NOT NULL, table_name VARCHAR(255) NOT NULL,
 *     metadata_location VARCHAR(1000), previous_metadata_location
 *     VARCHAR(1000), PRIMARY KEY (catalog_name, table_namespace, table_name),
 *     iceberg_type VARCHAR(5))
 *   iceberg_namespace_properties(catalog_name VARCHAR(255) NOT NULL,
 *     namespace VARCHAR(255) NOT NULL, property_key VARCHAR(255),
 *     property_value VARCHAR(1000),
 *     PRIMARY KEY (catalog_name, namespace, property_key))
 * An existing database without iceberg_type (V0, e.g. made by PyIceberg) is
 * used as is with the V0 statements; floe never alters someone else's schema.
 */
#ifndef FLOE_SQL_CATALOG_H
#define FLOE_SQL_CATALOG_H

#include <stdbool.h>
#include <stdint.h>

#include "catalog/catalog_internal.h"

typedef enum sql_stmt {
    Q_GET_TABLE,     /* (cat, ns, name) -> metadata_location, previous_metadata_location */
    Q_LIST_TABLES,   /* (cat, ns) -> table_name */
    Q_INSERT_TABLE,  /* (cat, ns, name, metadata_location) */
    Q_COMMIT,        /* (new, expected, cat, ns, name, expected) */
    Q_DROP_TABLE,    /* (cat, ns, name) */
    Q_RENAME,        /* (new ns, new name, cat, ns, name) */
    Q_LIST_TABLE_NS, /* (cat, like pattern) -> DISTINCT table_namespace */
    Q_LIST_PROP_NS,  /* (cat, like pattern) -> DISTINCT namespace */
    Q_GET_PROPS,     /* (cat, ns) -> property_key, property_value */
    Q_UPSERT_PROP,   /* (cat, ns, key, value) */
    Q_DELETE_PROP,   /* (cat, ns, key) */
    Q_DELETE_PROPS,  /* (cat, ns) */
    /* views: rows with iceberg_type = 'VIEW' (V1 schema only) */
    Q_GET_VIEW,      /* (cat, ns, name) -> metadata_location, previous_metadata_location */
    Q_LIST_VIEWS,    /* (cat, ns) -> table_name */
    Q_INSERT_VIEW,   /* (cat, ns, name, metadata_location) */
    Q_COMMIT_VIEW,   /* (new, expected, cat, ns, name, expected) */
    Q_DROP_VIEW,     /* (cat, ns, name) */
    Q_RENAME_VIEW,   /* (new ns, new name, cat, ns, name) */
    Q_COUNT
} sql_stmt;

/* DDL, exactly as Java's JdbcUtil spells it. */
#define SQL_CREATE_TABLES                                                                          \
    "CREATE TABLE iceberg_tables(catalog_name VARCHAR(255) NOT NULL,table_namespace VARCHAR(255) " \
    "NOT NULL,table_name VARCHAR(255) NOT NULL,metadata_location VARCHAR(1000),"                   \
    "previous_metadata_location VARCHAR(1000),PRIMARY KEY (catalog_name, table_namespace, "        \
    "table_name))"
#define SQL_ADD_TYPE_COLUMN "ALTER TABLE iceberg_tables ADD COLUMN iceberg_type VARCHAR(5)"
#define SQL_CREATE_PROPS                                                                           \
    "CREATE TABLE iceberg_namespace_properties(catalog_name VARCHAR(255) NOT NULL,namespace "      \
    "VARCHAR(255) NOT NULL,property_key VARCHAR(255),property_value VARCHAR(1000),PRIMARY KEY "    \
    "(catalog_name, namespace, property_key))"

/* Statement text with '?' placeholders; v1 = iceberg_type column present. */
const char *sql_text(sql_stmt q, bool v1);

typedef struct sql_rows {
    uint32_t nrows, ncols;
    const char **cells; /* row-major; NULL for SQL NULL; strings in the caller's arena */
} sql_rows;

typedef struct sql_catalog sql_catalog;

typedef struct sql_driver {
    /* Runs statement q; rows (may be NULL) get the result in arena a,
     * *changes (may be NULL) the number of rows modified. */
    fl_status (*exec)(sql_catalog *c, sql_stmt q, const char *const *params, uint32_t nparams,
                      fl_arena *a, sql_rows *rows, uint64_t *changes, fl_error *err);
    fl_status (*begin)(sql_catalog *c, fl_error *err); /* a write transaction */
    fl_status (*commit)(sql_catalog *c, fl_error *err);
    void (*rollback)(sql_catalog *c);
    void (*close)(sql_catalog *c); /* frees the driver state, not c */
} sql_driver;

struct sql_catalog {
    fl_catalog base;
    const sql_driver *drv;
    void *conn;      /* driver state */
    bool v1;         /* iceberg_type column present */
    bool retryable;  /* set by the driver when the failed transaction may be retried */
    char *name_copy; /* owned copies behind base.name / base.warehouse */
    char *warehouse_copy;
};

/* True when c is a SQL catalog (SQLite or PostgreSQL). */
bool sql_catalog_is(const fl_catalog *c);

/* Fills c->base (ops, owned name/warehouse copies); the driver fills the rest. */
fl_status sql_catalog_init(sql_catalog *c, const char *catalog_name, const char *warehouse,
                           fl_fileio *io, fl_error *err);

#endif
