/*
 * fuzz_rest_codec.c - libFuzzer target for the REST codec's parsers of
 * single protocol objects and the server's requests (include/floe/rest.h).
 * Byte 0 picks the parser, the rest is the JSON:
 *   0 TableUpdate          3 CreateTableRequest (+ fl_ice_fresh_table_ids)
 *   1 TableRequirement     4 ViewUpdate
 *   2 CommitTableRequest,  5 CommitViewRequest
 *     server mode          6 CreateViewRequest
 * Properties besides "no crash/leak/UB": every failure carries a message;
 * a parsed update, requirement or view update serializes, re-parses and
 * serializes to the same text; a parsed create request gets fresh ids
 * (1..last-column-id, spec fields 1000..) or a clean error.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "floe/rest.h"

static void explained(fl_status rc, const fl_error *err)
{
    if (rc != FL_OK && !err->msg[0])
        abort(); /* every failure explains itself */
}

typedef fl_status (*to_json_fn)(const void *obj, json_t **out, fl_error *err);
typedef fl_status (*from_json_fn)(json_t *j, fl_arena *a, void *obj, fl_error *err);

static fl_status upd_to(const void *o, json_t **out, fl_error *err)
{
    return fl_rest_update_to_json(o, out, err);
}
static fl_status upd_from(json_t *j, fl_arena *a, void *o, fl_error *err)
{
    return fl_rest_update_from_json(j, "u", a, o, err);
}
static fl_status req_to(const void *o, json_t **out, fl_error *err)
{
    return fl_rest_requirement_to_json(o, out, err);
}
static fl_status req_from(json_t *j, fl_arena *a, void *o, fl_error *err)
{
    return fl_rest_requirement_from_json(j, "r", a, o, err);
}
static fl_status view_to(const void *o, json_t **out, fl_error *err)
{
    return fl_rest_view_update_to_json(o, out, err);
}
static fl_status view_from(json_t *j, fl_arena *a, void *o, fl_error *err)
{
    return fl_rest_view_update_from_json(j, "v", a, o, NULL, err);
}

/* parse -> emit -> parse -> emit: the two texts are equal. */
static void round_trip(json_t *j, fl_arena *a, to_json_fn to, from_json_fn from)
{
    union {
        fl_ice_update u;
        fl_ice_requirement r;
        fl_ice_view_update v;
    } x, y;
    fl_error err = {0};
    fl_status rc = from(j, a, &x, &err);
    explained(rc, &err);
    json_t *o1 = NULL, *o2 = NULL;
    if (rc != FL_OK || to(&x, &o1, &err) != FL_OK)
        return;
    char *t1 = json_dumps(o1, JSON_COMPACT | JSON_SORT_KEYS), *t2 = NULL;
    if (!t1) { /* e.g. a string that is not valid UTF-8 for jansson */
        json_decref(o1);
        return;
    }
    if (from(o1, a, &y, &err) != FL_OK || to(&y, &o2, &err) != FL_OK)
        abort();
    t2 = json_dumps(o2, JSON_COMPACT | JSON_SORT_KEYS);
    if (!t2 || strcmp(t1, t2) != 0)
        abort();
    free(t1);
    free(t2);
    json_decref(o1);
    json_decref(o2);
}

static void create_table(json_t *j, fl_arena *a)
{
    fl_error err = {0};
    fl_rest_create_request q;
    fl_status rc = fl_rest_create_request_from_json(j, a, &q, &err);
    explained(rc, &err);
    if (rc != FL_OK)
        return;
    fl_ice_fresh_table f;
    rc = fl_ice_fresh_table_ids(&q.schema, q.has_spec ? &q.spec : NULL,
                                q.has_order ? &q.order : NULL, a, &f, &err);
    explained(rc, &err);
    if (rc != FL_OK)
        return;
    for (uint32_t i = 0; i < f.schema.schema.nfields; i++)
        if (f.schema.schema.fields[i].field_id != (int32_t)i + 1)
            abort();
    for (uint32_t i = 0; i < f.spec.nfields; i++)
        if (f.spec.fields[i].field_id != 1000 + (int32_t)i)
            abort();
    if (f.spec.spec_id != 0 || f.order.order_id != (f.order.nfields ? 1 : 0))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err = {0};
    json_t *j = NULL;
    fl_status rc = fl_rest_json_load((const char *)data + 1, size - 1, "fuzz", &j, &err);
    explained(rc, &err);
    if (rc == FL_OK) {
        switch (data[0] % 7) {
        case 0: round_trip(j, &a, upd_to, upd_from); break;
        case 1: round_trip(j, &a, req_to, req_from); break;
        case 2: {
            fl_rest_commit_request q;
            explained(fl_rest_commit_request_from_json(j, false, &a, &q, &err), &err);
            break;
        }
        case 3: create_table(j, &a); break;
        case 4: round_trip(j, &a, view_to, view_from); break;
        case 5: {
            fl_rest_view_commit_request q;
            explained(fl_rest_view_commit_request_from_json(j, &a, &q, &err), &err);
            break;
        }
        default: {
            fl_rest_create_view_request q;
            explained(fl_rest_create_view_request_from_json(j, &a, &q, &err), &err);
            break;
        }
        }
        json_decref(j);
    }
    fl_arena_free(&a);
    return 0;
}
