/*
 * catalog.h - where a table's current metadata file is recorded, and the one
 * place where commits become atomic.
 *
 * A catalog maps a table identifier (namespace levels + name) to the location
 * of its current metadata JSON file and swaps that pointer with compare-and-
 * swap: commit_table succeeds only if the pointer still equals the location
 * the writer started from, otherwise FL_ECONFLICT and nothing changes. Data,
 * manifests and the new metadata file are written before the swap, so a
 * failed or crashed commit leaves only unreferenced files (orphans).
 *
 * Implementations:
 *   - SQLite (the embedded default), using the table layout of Iceberg's
 *     JDBC catalog, so Java/PyIceberg SQL catalogs open the same database:
 *       iceberg_tables(catalog_name, table_namespace, table_name,
 *                      metadata_location, previous_metadata_location
 *                      [, iceberg_type])
 *       iceberg_namespace_properties(catalog_name, namespace,
 *                      property_key, property_value)
 *     Namespaces are stored dot-joined ("a.b"), as the JDBC catalog does.
 *   - PostgreSQL through libpq, same tables, for catalogs shared by several
 *     floe processes or servers.
 *   - A filesystem ("hadoop") catalog: warehouse/<ns levels>/<table>/metadata/
 *     v<N>.metadata.json plus version-hint.text; the swap is the exclusive
 *     creation of v<N+1>.metadata.json.
 *   - An Iceberg REST catalog client (http:// / https://): the server writes
 *     the metadata; commits send requirements + updates (commit_updates and
 *     the other optional operations at the end of fl_catalog_ops).
 *
 * A catalog also names new metadata files (new_metadata_path), because
 * filesystem tables need v<N> names and the others use
 * <location>/metadata/<NNNNN>-<uuid>.metadata.json.
 *
 * Ownership: strings returned through an fl_arena belong to that arena.
 * A catalog is used by one thread at a time; open one per thread/connection.
 * fl_catalog_close() frees it (its FileIO is borrowed unless stated).
 */
#ifndef FLOE_CATALOG_H
#define FLOE_CATALOG_H

#include "floe/export.h"

#include <stdbool.h>
#include <stdint.h>

#include "floe/arena.h"
#include "floe/error.h"
#include "floe/iceberg.h"
#include "floe/io.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fl_namespace {
    uint32_t nlevels;
    const char *const *levels;
} fl_namespace;

typedef struct fl_table_ident {
    fl_namespace ns;
    const char *name;
} fl_table_ident;

/* Parses "a.b.t" into namespace [a, b] and name t (levels in a). Quoting:
 * a level may be written "x.y" in double quotes to contain dots. */
FL_API fl_status fl_table_ident_parse(const char *s, fl_arena *a, fl_table_ident *out,
                                      fl_error *err);
FL_API fl_status fl_namespace_parse(const char *s, fl_arena *a, fl_namespace *out, fl_error *err);
/* "a.b.t" / "a.b" (arena string). */
FL_API const char *fl_table_ident_str(const fl_table_ident *id, fl_arena *a);
FL_API const char *fl_namespace_str(const fl_namespace *ns, fl_arena *a);

typedef struct fl_catalog fl_catalog;
struct fl_ice_requirement; /* ice_table.h */
struct fl_ice_update;

/* One table's pointer swap in a multi-table commit (commit_tables). */
typedef struct fl_catalog_commit {
    fl_table_ident id;
    const char *expected_location;
    const char *new_location;
} fl_catalog_commit;

typedef struct fl_catalog_ops {
    fl_status (*create_namespace)(fl_catalog *c, const fl_namespace *ns, const fl_ice_map *props,
                                  fl_error *err); /* FL_EEXIST */
    /* Direct children of parent (NULL or 0 levels = top level). */
    fl_status (*list_namespaces)(fl_catalog *c, const fl_namespace *parent, fl_arena *a,
                                 fl_namespace **out, uint32_t *n, fl_error *err);
    fl_status (*load_namespace)(fl_catalog *c, const fl_namespace *ns, fl_arena *a,
                                fl_ice_map *props, fl_error *err); /* FL_ENOTFOUND */
    fl_status (*update_namespace)(fl_catalog *c, const fl_namespace *ns, const fl_ice_map *set,
                                  const char *const *remove, uint32_t nremove, fl_error *err);
    fl_status (*drop_namespace)(fl_catalog *c, const fl_namespace *ns,
                                fl_error *err); /* FL_ENOTFOUND; FL_ECONFLICT when not empty */
    fl_status (*list_tables)(fl_catalog *c, const fl_namespace *ns, fl_arena *a,
                             const char ***names, uint32_t *n, fl_error *err);
    /* Current metadata location (FL_ENOTFOUND when no such table). */
    fl_status (*load_table)(fl_catalog *c, const fl_table_ident *id, fl_arena *a,
                            const char **metadata_location, fl_error *err);
    /* Records a new table (or registers an existing one) whose metadata file
     * is already written. FL_EEXIST when the name is taken, FL_ENOTFOUND when
     * the namespace does not exist. */
    fl_status (*create_table)(fl_catalog *c, const fl_table_ident *id,
                              const char *metadata_location, fl_error *err);
    /* Compare-and-swap of the pointer: FL_ECONFLICT when the current location
     * is not expected_location. FL_ENOTFOUND when the table is gone. */
    fl_status (*commit_table)(fl_catalog *c, const fl_table_ident *id,
                              const char *expected_location, const char *new_location,
                              fl_error *err);
    fl_status (*drop_table)(fl_catalog *c, const fl_table_ident *id, fl_error *err);
    fl_status (*rename_table)(fl_catalog *c, const fl_table_ident *from, const fl_table_ident *to,
                              fl_error *err);
    /* Path for the metadata file that will follow base_location (NULL for a
     * new table) in table location `table_location`; version is the new
     * metadata's sequence in the log (0 for a new table). Arena string. */
    fl_status (*new_metadata_path)(fl_catalog *c, const fl_table_ident *id,
                                   const char *table_location, const char *base_location,
                                   int64_t version, fl_arena *a, const char **out, fl_error *err);
    void (*close)(fl_catalog *c);
    /* ---- optional entries (NULL when the catalog cannot do it) ---- */
    /* Swaps every pointer in one database transaction, or none: FL_ECONFLICT
     * (nothing changed) when any table's location is not its expected one,
     * FL_ENOTFOUND when a table is gone. (REST /transactions/commit.) */
    fl_status (*commit_tables)(fl_catalog *c, const fl_catalog_commit *commits, uint32_t n,
                               fl_error *err);
    /* Views (Iceberg view metadata files), stored like tables with
     * iceberg_type = 'VIEW' as Java's JDBC catalog does. Same contracts as
     * the table entries; names are shared with tables (FL_EEXIST). */
    fl_status (*list_views)(fl_catalog *c, const fl_namespace *ns, fl_arena *a, const char ***names,
                            uint32_t *n, fl_error *err);
    fl_status (*load_view)(fl_catalog *c, const fl_table_ident *id, fl_arena *a,
                           const char **metadata_location, fl_error *err);
    fl_status (*create_view)(fl_catalog *c, const fl_table_ident *id, const char *metadata_location,
                             fl_error *err);
    fl_status (*commit_view)(fl_catalog *c, const fl_table_ident *id, const char *expected_location,
                             const char *new_location, fl_error *err);
    fl_status (*drop_view)(fl_catalog *c, const fl_table_ident *id, fl_error *err);
    fl_status (*rename_view)(fl_catalog *c, const fl_table_ident *from, const fl_table_ident *to,
                             fl_error *err);

    /* ---- optional operations (NULL when a catalog has none) -------------
     * A catalog whose server writes the metadata files (the REST catalog)
     * provides these; table and transaction code use them when non-NULL and
     * the pointer operations above otherwise. */

    /* load_table that also returns the parsed metadata (in a), as the server
     * sent it: no metadata file is read. */
    fl_status (*load_table_metadata)(fl_catalog *c, const fl_table_ident *id, fl_arena *a,
                                     const char **metadata_location, fl_ice_metadata *meta,
                                     fl_error *err);
    /* Server-side commit: the server checks the requirements, applies the
     * updates and writes the new metadata file, returned (in a) with its
     * location. FL_ECONFLICT when a requirement failed (the transaction
     * refreshes and retries); FL_ENOTFOUND when the table is gone; any other
     * error means the outcome is unknown (the commit may have landed). A
     * requirement ASSERT_CREATE creates the table from the updates. */
    fl_status (*commit_updates)(fl_catalog *c, const fl_table_ident *id,
                                const struct fl_ice_requirement *req, uint32_t nreq,
                                const struct fl_ice_update *upd, uint32_t nupd, fl_arena *a,
                                const char **new_location, fl_ice_metadata *new_meta,
                                fl_error *err);
    /* Server-side create from tmpl's current schema, default spec, default
     * sort order, properties and format version; location NULL lets the
     * server choose. stage: nothing is recorded (*metadata_location NULL);
     * the first commit_updates with ASSERT_CREATE records it. */
    fl_status (*create_table_metadata)(fl_catalog *c, const fl_table_ident *id,
                                       const fl_ice_metadata *tmpl, const char *location,
                                       bool stage, fl_arena *a, const char **metadata_location,
                                       fl_ice_metadata *meta, fl_error *err);
    /* drop_table that hands the purge to the server (it deletes the files). */
    fl_status (*drop_table_purge)(fl_catalog *c, const fl_table_ident *id, bool purge,
                                  fl_error *err);
} fl_catalog_ops;

/* Storage confinement beyond the warehouse (see "Storage confinement" below):
 * more roots an operator allows table locations under (another bucket), and
 * files no location may contain or lie inside (an auth store, an audit log).
 * Borrowed by the catalogs it is attached to; must outlive them. */
typedef struct fl_location_policy {
    const char *const *allowed;
    uint32_t nallowed;
    const char *const *protected_paths;
    uint32_t nprotected;
} fl_location_policy;

struct fl_catalog {
    const fl_catalog_ops *ops;
    const char *name;      /* catalog_name column; "floe" by default */
    const char *warehouse; /* root under which default table locations go */
    fl_fileio *io;         /* FileIO for metadata and data under the warehouse (borrowed) */
    /* The catalog's own database file (absolute; SQLite), which no table may
     * contain, or NULL. Set by the implementation. */
    const char *db_file;
    /* Extra roots and protected files (borrowed, NULL = the warehouse only).
     * Set by whoever opened the catalog (floe serve: allowed-location). */
    const fl_location_policy *confine;
    /* The same catalog without the per-session wrappers that restrict what
     * may be listed or loaded (the SQL engine's authorization guard): the
     * location overlap check (fl_ice_location_check) walks every table and
     * view through it, the ones the principal may not see included, and
     * names none of them in its errors. NULL = this catalog. */
    fl_catalog *unrestricted;
};

/* SQLite catalog in db_path (created with the JDBC layout if absent; busy
 * timeout set so concurrent processes wait rather than fail). */
FL_API fl_status fl_catalog_sqlite_open(const char *db_path, const char *catalog_name,
                                        const char *warehouse, fl_fileio *io, fl_catalog **out,
                                        fl_error *err);
/* Changes how long a SQLite catalog waits for another process's write lock
 * before failing with FL_EIO (default 30000 ms). FL_EINVAL for other catalogs. */
FL_API fl_status fl_catalog_sqlite_set_busy_timeout(fl_catalog *c, int timeout_ms, fl_error *err);
/* PostgreSQL catalog; conninfo is a libpq connection string or URI. */
FL_API fl_status fl_catalog_postgres_open(const char *conninfo, const char *catalog_name,
                                          const char *warehouse, fl_fileio *io, fl_catalog **out,
                                          fl_error *err);
/* Filesystem catalog rooted at warehouse. */
FL_API fl_status fl_catalog_fs_open(const char *warehouse, fl_fileio *io, fl_catalog **out,
                                    fl_error *err);

/* Iceberg REST catalog client (src/catalog/rest*.c; README there).
 * Every string is copied; NULL/0 fields take the defaults. */
typedef struct fl_rest_options {
    const char *uri;               /* "http(s)://host:port[/base-path]"; /v1/... is appended */
    const char *warehouse;         /* sent as GET /v1/config?warehouse=W (REST meaning) */
    const char *credential;        /* "client_id:client_secret" for OAuth2 client credentials */
    const char *token;             /* static bearer token (used as is, never refreshed) */
    const char *oauth2_server_uri; /* token endpoint; default <uri>/v1/oauth/tokens */
    const char *scope;             /* OAuth2 scope; default "catalog" */
    const char *prefix;            /* client prefix (the config response may override it) */
    /* Root for locations of new tables chosen by the client (<root>/<ns
     * levels>/<name>); NULL = the server chooses (as Java's client does). */
    const char *location_root;
    const fl_ice_map *properties; /* more client properties: "header.NAME" adds a header */
    uint32_t timeout_ms;          /* per request; 0 = 60000 */
    uint32_t connect_timeout_ms;  /* 0 = 10000 */
    uint32_t max_retries;         /* GET/HEAD (and idempotent-key mutations); 0 = 3 */
} fl_rest_options;

/* Connects (GET /v1/config, and the OAuth2 token when a credential is
 * given). io is borrowed; when the config names S3 settings (s3.endpoint,
 * s3.access-key-id, s3.secret-access-key, s3.session-token,
 * s3.path-style-access, client.region) the catalog makes its own S3-routing
 * FileIO from them and c->io is that one (owned by the catalog). */
FL_API fl_status fl_catalog_rest_open(const fl_rest_options *opt, const char *catalog_name,
                                      fl_fileio *io, fl_catalog **out, fl_error *err);

/* Opens a catalog from a URI: "sqlite:PATH", "postgresql://..." / "postgres://...",
 * "fs:PATH", or a REST catalog "http(s)://host:port[/base-path][?k=v&...]" with
 * query options credential, token, scope, oauth2-server-uri, prefix, warehouse
 * (fl_rest_options; percent-encoded) and the environment FLOE_REST_CREDENTIAL /
 * FLOE_REST_TOKEN when the URI has none. For REST the warehouse argument is
 * the location root of new tables (NULL = the server chooses). */
FL_API fl_status fl_catalog_open_uri(const char *uri, const char *catalog_name,
                                     const char *warehouse, fl_fileio *io, fl_catalog **out,
                                     fl_error *err);

FL_API void fl_catalog_close(fl_catalog *c); /* NULL allowed */

/* The default location of a new table or view: <warehouse>/<folders>, one
 * folder per namespace level and one for the name, each level
 * percent-encoded so that distinct identifiers get distinct folders:
 * ASCII letters, digits, '-', '_', '.' (except as the first character) and
 * non-ASCII UTF-8 bytes are kept, every other byte is %XX ('/', '%', '~',
 * a leading '.'). Tables and child namespaces share their parent's folder,
 * so one of the two is marked: the first namespace level and tables inside
 * a namespace are plain ("wh/db/orders", Java's JDBC layout), nested
 * namespace levels and tables without a namespace start with '~'
 * ("wh/a/~b/t" for a.b.t, "wh/~t" for t), which the encoding never emits.
 * So a table folder never equals or contains another identifier's folder.
 * Tables keep the location stored in their metadata; only new ones use this. */
FL_API const char *fl_catalog_default_location(const fl_catalog *c, const fl_table_ident *id,
                                               fl_arena *a);
/* The location of a new table for which none was asked: under its
 * namespace's "location" property when that is set (ns_location, as Java's
 * catalogs do: "<ns_location>/<name folder>"), else
 * fl_catalog_default_location. */
FL_API const char *fl_catalog_table_location(const fl_catalog *c, const fl_table_ident *id,
                                             const char *ns_location, fl_arena *a);
/* The default location of a namespace (at least one level): the folder its
 * tables' default locations are in, "<warehouse>/db" for db, "<warehouse>/a/~b"
 * for a.b. The REST server returns it as the namespace's "location" property
 * when none was set: engines that place tables themselves (Trino's CREATE
 * TABLE AS) put them there. NULL for the root or on allocation failure. */
FL_API const char *fl_catalog_namespace_location(const fl_catalog *c, const fl_namespace *ns,
                                                 fl_arena *a);

/* ---- Storage confinement (src/catalog/location.c) -------------------------
 * Locations are compared in a normal form: "file://" and "file:" dropped,
 * "s3a://" and "s3n://" read as "s3://", trailing '/' ignored.
 *
 * fl_location_within: loc equals root or lies under it ("/w/t" is within
 * "/w" and "/w/t", not within "/wx"). */
FL_API bool fl_location_within(const char *loc, const char *root);
/* Syntax and roots: no control character or backslash, no '.', '..' or
 * empty segment, and within the warehouse or one of the allowed roots
 * (equal to a root is fine here). FL_EFORBIDDEN naming loc otherwise,
 * FL_EINVAL when empty. warehouse NULL or "" and no allowed root: only the
 * syntax is checked. */
FL_API fl_status fl_location_check_roots(const char *warehouse, const char *const *allowed,
                                         uint32_t nallowed, const char *loc, fl_error *err);
/* A table or view location of catalog c: fl_location_check_roots with the
 * catalog's warehouse and c->confine's roots, and not a root itself, and
 * neither containing nor inside c->db_file (with its -wal, -shm and
 * -journal files) or a protected path. The overlap with other tables needs
 * their metadata: fl_ice_location_check (ice_table.h) adds it. */
FL_API fl_status fl_catalog_location_check(const fl_catalog *c, const char *loc, fl_error *err);
/* True when path is one of the files fl_catalog_location_check protects
 * (deleters never remove these, whatever a manifest says). */
FL_API bool fl_catalog_path_protected(const fl_catalog *c, const char *path);

/* Creates path (if absent) readable by its owner only (0600) and removes
 * group/other permissions from it and from its -wal, -shm and -journal
 * siblings when they exist: database files that hold secrets (the catalog
 * database holds the token-signing key). */
FL_API fl_status fl_catalog_private_file(const char *path, fl_error *err);

#ifdef __cplusplus
}
#endif
#endif
