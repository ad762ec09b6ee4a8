/*
 * create.c - fl_ice_table_create: a new empty table recorded in a catalog.
 *
 * The metadata is built by ice_new_table_metadata (create_meta.c), written
 * to the path the catalog names for a new table (new_metadata_path with no
 * base: <location>/metadata/00000-<uuid>.metadata.json, or v1.metadata.json
 * for filesystem catalogs), and then recorded with the catalog's
 * create_table. If recording fails (name taken by a concurrent creator,
 * namespace missing) the metadata file is deleted again, so a failed create
 * leaves nothing behind.
 *
 * Staged create (opt->stage_only, for CREATE TABLE AS SELECT): nothing is
 * written or recorded; the returned table has staged = true and no
 * metadata_location, and the first transaction commit on it writes the
 * metadata and calls create_table (fl_ice_txn_commit's job). The name is
 * checked to be free now, and again by create_table at commit.
 *
 * Catalogs whose server writes the metadata (REST: create_table_metadata
 * set) get a CreateTableRequest instead (server_create): the server assigns
 * ids and the location and returns the metadata; a staged create is the
 * server's stage-create, recorded by the first commit (assert-create).
 *
 * Confinement: before anything is written (or staged), the location must
 * pass fl_ice_location_check (inside the warehouse, not a root, not over the
 * catalog database, no overlap with another table or view) and the
 * write.*.path properties must lie inside it; opt->private_location (a
 * session's temporary table) skips the location rule only. REST catalogs
 * leave both to their server.
 *
 * Ownership: *out is freed with fl_ice_table_free (its arena holds everything).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "floe/catalog.h"
#include "floe/ice_table.h"
#include "iceberg/write_internal.h"

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static fl_status copy_ident(fl_arena *a, const fl_table_ident *in, fl_table_ident *out,
                            fl_error *err)
{
    const char **levels = fl_arena_calloc(a, in->ns.nlevels + 1, sizeof *levels);
    out->name = fl_arena_strdup(a, in->name);
    if (!levels || !out->name)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < in->ns.nlevels; i++)
        if (!(levels[i] = fl_arena_strdup(a, in->ns.levels[i])))
            return fl_errorf(err, FL_ENOMEM, "out of memory");
    out->ns.levels = levels;
    out->ns.nlevels = in->ns.nlevels;
    return FL_OK;
}

/* Writes the metadata JSON at path (must not exist). */
static fl_status write_metadata_file(fl_fileio *io, const char *path, const fl_ice_metadata *m,
                                     fl_error *err)
{
    char *json = NULL;
    size_t len = 0;
    FL_TRY(fl_ice_metadata_write(m, 0, &json, &len, err));
    fl_output *o = NULL;
    fl_status rc = fl_fileio_create(io, path, 0, &o, err);
    if (rc == FL_OK)
        rc = fl_output_write(o, json, len, err);
    if (rc == FL_OK) {
        fl_output *oc = o;
        o = NULL;
        rc = fl_output_close(oc, err);
    }
    fl_output_abort(o);
    free(json);
    if (rc != FL_OK)
        fl_error_prefix(err, "%s", path);
    return rc;
}

static fl_status check_absent(fl_catalog *c, const fl_table_ident *id, fl_arena *a, fl_error *err)
{
    const char *loc = NULL;
    fl_error e2;
    fl_error_clear(&e2);
    fl_status rc = c->ops->load_table(c, id, a, &loc, &e2);
    if (rc == FL_OK)
        return fl_errorf(err, FL_EEXIST, "table %s already exists", fl_table_ident_str(id, a));
    if (rc != FL_ENOTFOUND) {
        if (err)
            *err = e2;
        return rc;
    }
    return FL_OK;
}

/* Where a new table goes when the caller names no location: under its
 * namespace's "location" property when set, else the warehouse layout
 * (fl_catalog_table_location). A namespace that cannot be loaded has no
 * say here (creating the table reports it). */
static const char *new_location(fl_catalog *c, const fl_table_ident *id, fl_arena *a)
{
    fl_ice_map props = {0};
    fl_error e = {0};
    const char *ns_loc = NULL;
    if (id->ns.nlevels && c->ops->load_namespace &&
        c->ops->load_namespace(c, &id->ns, a, &props, &e) == FL_OK)
        ns_loc = fl_ice_map_get(&props, "location");
    return fl_catalog_table_location(c, id, ns_loc, a);
}

/* A catalog whose server writes metadata (REST): the template built here
 * gives the schema, spec, order and properties; the server assigns ids and
 * the location (unless the caller or the catalog's warehouse names one) and
 * returns the metadata. stage_only uses the server's stage-create. */
static fl_status server_create(fl_catalog *c, const fl_table_ident *id,
                               const fl_ice_create_options *opt, fl_ice_table *t, fl_error *err)
{
    const char *location = opt->location;
    if (!location && c->warehouse && *c->warehouse && !(location = new_location(c, id, &t->arena)))
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    char uuid[37];
    fl_ice_uuid4(uuid);
    fl_ice_metadata tmpl;
    FL_TRY(ice_new_table_metadata(opt, location ? location : "server-chosen-location", uuid,
                                  now_ms(), &t->arena, &tmpl, err));
    const char *loc = NULL;
    FL_TRY(c->ops->create_table_metadata(c, id, &tmpl, location, opt->stage_only, &t->arena, &loc,
                                         &t->meta, err));
    t->metadata_location = loc;
    t->staged = opt->stage_only;
    return FL_OK;
}

fl_status fl_ice_table_create(fl_catalog *c, const fl_table_ident *id,
                              const fl_ice_create_options *opt, fl_ice_table **out, fl_error *err)
{
    *out = NULL;
    if (!c || !id || !opt)
        return fl_errorf(err, FL_EINVAL, "create table: missing catalog, name or options");
    fl_ice_table *t = calloc(1, sizeof *t);
    if (!t)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    fl_arena_init(&t->arena, 0);
    t->catalog = c;
    t->io = c->io;
    fl_status rc = copy_ident(&t->arena, id, &t->ident, err);
    if (rc == FL_OK)
        rc = check_absent(c, id, &t->arena, err);
    if (rc == FL_OK && c->ops->create_table_metadata) {
        rc = server_create(c, id, opt, t, err);
        if (rc != FL_OK) {
            fl_arena_free(&t->arena);
            free(t);
            return fl_error_prefix(err, "create table %s", id->name);
        }
        *out = t;
        return FL_OK;
    }
    const char *location = opt->location;
    if (rc == FL_OK && !location) {
        location = new_location(c, id, &t->arena);
        if (!location)
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    char uuid[37];
    fl_ice_uuid4(uuid);
    if (rc == FL_OK)
        rc = ice_new_table_metadata(opt, location, uuid, now_ms(), &t->arena, &t->meta, err);
    if (rc == FL_OK && !opt->private_location)
        rc = fl_ice_location_check(c, id, t->meta.location, err);
    if (rc == FL_OK)
        rc = fl_ice_write_paths_check(&t->meta, err);
    if (rc == FL_OK && opt->stage_only) {
        t->staged = true;
        *out = t;
        return FL_OK;
    }
    const char *path = NULL;
    if (rc == FL_OK)
        rc = c->ops->new_metadata_path(c, id, t->meta.location, NULL, 0, &t->arena, &path, err);
    if (rc == FL_OK)
        rc = write_metadata_file(t->io, path, &t->meta, err);
    if (rc == FL_OK) {
        rc = c->ops->create_table(c, id, path, err);
        if (rc != FL_OK)
            fl_fileio_remove(t->io, path, NULL);
    }
    if (rc != FL_OK) {
        fl_arena_free(&t->arena);
        free(t);
        return fl_error_prefix(err, "create table %s", id->name);
    }
    t->metadata_location = path;
    *out = t;
    return FL_OK;
}
