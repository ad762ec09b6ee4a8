/*
 * rest_table.c - table operations over the REST protocol.
 *
 *   load     GET    /v1/{p}/namespaces/{ns}/tables/{t}          -> LoadTableResult
 *   create   POST   /v1/{p}/namespaces/{ns}/tables              CreateTableRequest
 *                   (stage-create: the server returns metadata but records nothing)
 *   commit   POST   /v1/{p}/namespaces/{ns}/tables/{t}          CommitTableRequest
 *   register POST   /v1/{p}/namespaces/{ns}/register            {"name","metadata-location"}
 *   drop     DELETE /v1/{p}/namespaces/{ns}/tables/{t}?purgeRequested=true|false
 *   rename   POST   /v1/{p}/tables/rename                       {"source":ID,"destination":ID}
 *
 * Commit outcomes (the contract of fl_catalog_ops.commit_updates):
 *   200             landed; the answer's metadata and location are returned
 *   409             FL_ECONFLICT (CommitFailedException: a requirement failed;
 *                   nothing changed, the transaction refreshes and retries)
 *   404             FL_ENOTFOUND (the table is gone)
 *   400/401/403/422 refused before anything changed (FL_EINVAL/...)
 *   5xx, timeouts, a dropped connection, an unreadable 200
 *                   FL_EIO "commit state unknown": the server may have
 *                   applied it, so nothing is cleaned up and nothing is
 *                   re-sent (unless the server honours Idempotency-Key: then
 *                   the transport re-sends with the same key, rest.c)
 */
#include <stdlib.h>
#include <string.h>

#include "catalog/rest_internal.h"

static rest_catalog *RC(fl_catalog *c)
{
    return (rest_catalog *)c;
}

static const char *id_name(const fl_table_ident *id, fl_arena *a)
{
    const char *s = fl_table_ident_str(id, a);
    return s ? s : "?";
}

static fl_status fetch(rest_catalog *c, const fl_table_ident *id, fl_arena *tmp, rest_response *r,
                       const char **what, fl_error *err)
{
    *what = fl_arena_sprintf(tmp, "load table %s", id_name(id, tmp));
    FL_TRY(rest_call(c, "GET", rest_url_table(c, tmp, id, NULL), NULL, r, err));
    if (r->status == 200)
        return FL_OK;
    fl_status rc = rest_error(r, *what, FL_ECONFLICT, false, err);
    rest_response_free(r);
    return rc;
}

fl_status rest_load_table(fl_catalog *cat, const fl_table_ident *id, fl_arena *a,
                          const char **metadata_location, fl_error *err)
{
    rest_catalog *c = RC(cat);
    fl_arena tmp;
    fl_arena_init(&tmp, 0);
    rest_response r;
    const char *what;
    fl_status rc = fetch(c, id, &tmp, &r, &what, err);
    if (rc == FL_OK) {
        json_t *root;
        rc = fl_rest_json_load(r.body, r.len, what, &root, err);
        if (rc == FL_OK) {
            json_t *l = json_object_get(root, "metadata-location");
            if (!json_is_string(l))
                rc = fl_errorf(err, FL_ECORRUPT, "%s: metadata-location: expected a string", what);
            else if (!(*metadata_location = fl_arena_strdup(a, json_string_value(l))))
                rc = fl_errorf(err, FL_ENOMEM, "out of memory");
            json_decref(root);
        }
        rest_response_free(&r);
    }
    fl_arena_free(&tmp);
    return rc;
}

fl_status rest_load_table_metadata(fl_catalog *cat, const fl_table_ident *id, fl_arena *a,
                                   const char **metadata_location, fl_ice_metadata *meta,
                                   fl_error *err)
{
    rest_catalog *c = RC(cat);
    fl_arena tmp;
    fl_arena_init(&tmp, 0);
    rest_response r;
    const char *what;
    fl_status rc = fetch(c, id, &tmp, &r, &what, err);
    if (rc == FL_OK) {
        fl_rest_load_result lr;
        rc = fl_rest_load_result_parse(r.body, r.len, a, &lr, err);
        if (rc == FL_OK && !lr.metadata_location)
            rc = fl_errorf(err, FL_ECORRUPT, "%s: the answer has no metadata-location", what);
        if (rc == FL_OK) {
            *metadata_location = lr.metadata_location;
            *meta = lr.metadata;
        } else {
            fl_error_prefix(err, "%s", what);
        }
        rest_response_free(&r);
    }
    fl_arena_free(&tmp);
    return rc;
}

fl_status rest_commit_updates(fl_catalog *cat, const fl_table_ident *id,
                              const struct fl_ice_requirement *req, uint32_t nreq,
                              const struct fl_ice_update *upd, uint32_t nupd, fl_arena *a,
                              const char **new_location, fl_ice_metadata *new_meta, fl_error *err)
{
    rest_catalog *c = RC(cat);
    fl_arena tmp;
    fl_arena_init(&tmp, 0);
    const char *what = fl_arena_sprintf(&tmp, "commit to table %s", id_name(id, &tmp));
    char *body = NULL;
    fl_status rc = fl_rest_commit_request_json(id, req, nreq, upd, nupd, &body, err);
    if (rc != FL_OK) {
        fl_arena_free(&tmp);
        return fl_error_prefix(err, "%s", what);
    }
    rest_response r;
    rc = rest_call(c, "POST", rest_url_table(c, &tmp, id, NULL), body, &r, err);
    free(body);
    if (rc != FL_OK) {
        fl_error_prefix(err, "%s: commit state unknown (no answer)", what);
        fl_arena_free(&tmp);
        return rc == FL_ENOMEM ? FL_ENOMEM : FL_EIO;
    }
    if (r.status != 200) {
        rc = rest_error(&r, what, FL_ECONFLICT, true, err);
        if (rc == FL_ECONFLICT && nreq && req[0].kind == FL_ICE_REQ_ASSERT_CREATE) {
            fl_error_prefix(err, "table already exists");
            rc = FL_EEXIST; /* create transaction: the name was taken meanwhile */
            if (err)
                err->code = FL_EEXIST;
        }
    } else {
        fl_rest_load_result lr;
        rc = fl_rest_load_result_parse(r.body, r.len, a, &lr, err);
        if (rc == FL_OK && !lr.metadata_location)
            rc = fl_errorf(err, FL_ECORRUPT, "the answer has no metadata-location");
        if (rc == FL_OK) {
            *new_location = lr.metadata_location;
            *new_meta = lr.metadata;
        } else {
            fl_error_prefix(err, "%s: commit state unknown (HTTP 200 with an unreadable answer)",
                            what);
            rc = FL_EIO;
        }
    }
    rest_response_free(&r);
    fl_arena_free(&tmp);
    return rc;
}

fl_status rest_create_table_metadata(fl_catalog *cat, const fl_table_ident *id,
                                     const fl_ice_metadata *tmpl, const char *location, bool stage,
                                     fl_arena *a, const char **metadata_location,
                                     fl_ice_metadata *meta, fl_error *err)
{
    rest_catalog *c = RC(cat);
    fl_arena tmp;
    fl_arena_init(&tmp, 0);
    const char *what =
        fl_arena_sprintf(&tmp, "%s table %s", stage ? "stage-create" : "create", id_name(id, &tmp));
    char *body = NULL;
    fl_status rc = fl_rest_create_request_json(id->name, tmpl, location, stage, &body, err);
    rest_response r = {0};
    if (rc == FL_OK)
        rc = rest_call(c, "POST", rest_url_ns(c, &tmp, &id->ns, "/tables"), body, &r, err);
    free(body);
    if (rc == FL_OK && r.status != 200) {
        rc = rest_error(&r, what, FL_EEXIST, !stage, err);
    } else if (rc == FL_OK) {
        fl_rest_load_result lr;
        rc = fl_rest_load_result_parse(r.body, r.len, a, &lr, err);
        if (rc == FL_OK && !stage && !lr.metadata_location)
            rc = fl_errorf(err, FL_ECORRUPT, "the answer has no metadata-location");
        if (rc == FL_OK) {
            *metadata_location = stage ? NULL : lr.metadata_location;
            *meta = lr.metadata;
        } else {
            fl_error_prefix(err, "%s", what);
        }
    } else {
        fl_error_prefix(err, "%s", what);
    }
    rest_response_free(&r);
    fl_arena_free(&tmp);
    return rc;
}

/* One call with an optional body (text, freed here). */
static fl_status simple(rest_catalog *c, const char *method, const char *url, char *text,
                        const char *what, fl_status conflict409, fl_error *err)
{
    rest_response r;
    fl_status rc = rest_call(c, method, url, text, &r, err);
    free(text);
    if (rc != FL_OK)
        return fl_error_prefix(err, "%s", what);
    if (r.status < 200 || r.status >= 300)
        rc = rest_error(&r, what, conflict409, true, err);
    rest_response_free(&r);
    return rc;
}

fl_status rest_register_table(fl_catalog *cat, const fl_table_ident *id,
                              const char *metadata_location, fl_error *err)
{
    rest_catalog *c = RC(cat);
    fl_arena tmp;
    fl_arena_init(&tmp, 0);
    char *o = NULL;
    if (fl_rest_register_request_json(id->name, metadata_location, &o, err) != FL_OK) {
        fl_arena_free(&tmp);
        return err->code;
    }
    fl_status rc =
        simple(c, "POST", rest_url_ns(c, &tmp, &id->ns, "/register"), o,
               fl_arena_sprintf(&tmp, "register table %s", id_name(id, &tmp)), FL_EEXIST, err);
    fl_arena_free(&tmp);
    return rc;
}

fl_status rest_drop_table_purge(fl_catalog *cat, const fl_table_ident *id, bool purge,
                                fl_error *err)
{
    rest_catalog *c = RC(cat);
    fl_arena tmp;
    fl_arena_init(&tmp, 0);
    fl_status rc = simple(
        c, "DELETE",
        rest_url_table(c, &tmp, id, purge ? "?purgeRequested=true" : "?purgeRequested=false"), NULL,
        fl_arena_sprintf(&tmp, "drop table %s", id_name(id, &tmp)), FL_ECONFLICT, err);
    fl_arena_free(&tmp);
    return rc;
}

fl_status rest_drop_table(fl_catalog *cat, const fl_table_ident *id, fl_error *err)
{
    return rest_drop_table_purge(cat, id, false, err);
}

fl_status rest_rename_table(fl_catalog *cat, const fl_table_ident *from, const fl_table_ident *to,
                            fl_error *err)
{
    rest_catalog *c = RC(cat);
    fl_arena tmp;
    fl_arena_init(&tmp, 0);
    char *o = NULL;
    if (fl_rest_rename_request_json(from, to, &o, err) != FL_OK) {
        fl_arena_free(&tmp);
        return err->code;
    }
    const char *what =
        fl_arena_sprintf(&tmp, "rename table %s to %s", id_name(from, &tmp), id_name(to, &tmp));
    fl_status rc = simple(c, "POST", fl_arena_sprintf(&tmp, "%s/tables/rename", c->root), o, what,
                          FL_EEXIST, err);
    fl_arena_free(&tmp);
    return rc;
}
