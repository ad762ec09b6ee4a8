/*
 * create_json.c - CreateTableRequest -> the metadata of a new table, built
 * as Java's TableMetadata.newTableMetadata does:
 *
 *   - the request is read by the REST codec (fl_rest_create_request_from_json,
 *     include/floe/rest.h) with the requester's ids;
 *   - ids are assigned by iceberg's one fresh-id assignment
 *     (fl_ice_fresh_table_ids, include/floe/ice_table.h: fresh field ids,
 *     schema 0, spec 0 with field ids 1000.., sort order 1 or 0, source and
 *     identifier ids remapped), the one fl_ice_table_create uses too;
 *   - "format-version" in properties selects v1/v2/v3 (default 2) and is not
 *     stored as a property;
 *   - location = the request's (checked against the warehouse by the caller)
 *     or the catalog's default location.
 *
 * The metadata is assembled by fl_ice_metadata_apply() on an empty base.
 */
#include <string.h>

#include "floe/rest.h"
#include "server/server_internal.h"

static fl_status assemble(const fl_rest_create_request *q, fl_ice_fresh_table *f, const char *loc,
                          fl_arena *a, fl_ice_metadata *out, fl_error *err)
{
    char uuid[37];
    fl_ice_uuid4(uuid);
    fl_ice_update u[10];
    memset(u, 0, sizeof u);
    uint32_t n = 0;
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_ASSIGN_UUID, .uuid = fl_arena_strdup(a, uuid)};
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_UPGRADE_FORMAT_VERSION,
                             .format_version = q->format_version};
    u[n++] = (fl_ice_update){
        .kind = FL_ICE_UPD_ADD_SCHEMA, .schema = &f->schema, .last_column_id = f->last_column_id};
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_SET_CURRENT_SCHEMA, .id = -1};
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_ADD_SPEC, .spec = &f->spec};
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_SET_DEFAULT_SPEC, .id = -1};
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_ADD_SORT_ORDER, .order = &f->order};
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_SET_DEFAULT_SORT_ORDER, .id = -1};
    u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_SET_LOCATION, .location = loc};
    if (q->properties.n)
        u[n++] = (fl_ice_update){.kind = FL_ICE_UPD_SET_PROPERTIES, .properties = q->properties};
    return fl_ice_metadata_apply(NULL, NULL, u, n, srv_now_ms(), a, out, err);
}

fl_status srv_new_table_metadata(fl_server *s, const fl_table_ident *id, const char *ns_location,
                                 json_t *body, fl_arena *a, fl_ice_metadata *out, fl_error *err)
{
    fl_rest_create_request q;
    FL_TRY(fl_rest_create_request_from_json(body, a, &q, err));
    fl_ice_fresh_table f;
    FL_TRY(fl_ice_fresh_table_ids(&q.schema, q.has_spec ? &q.spec : NULL,
                                  q.has_order ? &q.order : NULL, a, &f, err));
    const char *loc = q.location;
    if (!loc) {
        fl_catalog tmp = {.warehouse = s->warehouse};
        loc = fl_catalog_table_location(&tmp, id, ns_location, a);
    }
    return assemble(&q, &f, loc, a, out, err);
}
