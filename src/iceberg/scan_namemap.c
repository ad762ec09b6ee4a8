/*
 * scan_namemap.c - the table property schema.name-mapping.default (spec
 * "Column Projection" / "Name Mapping Serialization"): how to find field ids
 * for the columns of data files written without them (imported Parquet).
 *
 * The value is a JSON list of {"field-id": N, "names": [..], "fields": [..]};
 * some writers wrap it as {"type": "struct", "fields": [..]} (accepted too).
 * A dot in a name is literal. An empty "names" list means the field is not in
 * any file; an entry without "field-id" names a file column that is not in
 * the table. Only the top level is used: the reader projects whole
 * top-level columns of id-less files by name (nested children then match by
 * position and shape).
 */
#include <jansson.h>
#include <string.h>

#include "iceberg/scan_internal.h"

typedef struct nm_entry {
    const char *name;
    int32_t field_id;
} nm_entry;

struct ice_name_mapping {
    uint32_t n;
    nm_entry *e;
};

fl_status ice_name_mapping_parse(const char *json, fl_arena *a, ice_name_mapping **out,
                                 fl_error *err)
{
    *out = NULL;
    json_error_t je;
    json_t *root = json_loads(json, 0, &je);
    if (!root)
        return fl_errorf(err, FL_ECORRUPT, "schema.name-mapping.default: %s (line %d)", je.text,
                         je.line);
    json_t *list = root;
    if (json_is_object(root))
        list = json_object_get(root, "fields");
    fl_status rc = FL_OK;
    if (!json_is_array(list)) {
        rc = fl_errorf(err, FL_ECORRUPT, "schema.name-mapping.default: not a list of fields");
        goto done;
    }
    size_t total = 0;
    for (size_t i = 0; i < json_array_size(list); i++)
        total += json_array_size(json_object_get(json_array_get(list, i), "names"));
    ice_name_mapping *m = fl_arena_calloc(a, 1, sizeof *m);
    if (!m || !(m->e = fl_arena_calloc(a, total + 1, sizeof *m->e))) {
        rc = fl_errorf(err, FL_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < json_array_size(list); i++) {
        json_t *f = json_array_get(list, i);
        json_t *id = json_object_get(f, "field-id"), *names = json_object_get(f, "names");
        if (!json_is_object(f) || (names && !json_is_array(names))) {
            rc = fl_errorf(err, FL_ECORRUPT, "schema.name-mapping.default: [%zu]: malformed", i);
            goto done;
        }
        if (!json_is_integer(id))
            continue; /* a file column that is not in the table */
        for (size_t k = 0; k < json_array_size(names); k++) {
            json_t *nm = json_array_get(names, k);
            if (!json_is_string(nm)) {
                rc = fl_errorf(err, FL_ECORRUPT,
                               "schema.name-mapping.default: [%zu].names[%zu]: not a string", i, k);
                goto done;
            }
            m->e[m->n].name = fl_arena_strdup(a, json_string_value(nm));
            m->e[m->n].field_id = (int32_t)json_integer_value(id);
            if (!m->e[m->n].name) {
                rc = fl_errorf(err, FL_ENOMEM, "out of memory");
                goto done;
            }
            m->n++;
        }
    }
    *out = m;
done:
    json_decref(root);
    return rc;
}

int32_t ice_name_mapping_lookup(const ice_name_mapping *m, const char *name)
{
    for (uint32_t i = 0; m && i < m->n; i++)
        if (!strcmp(m->e[i].name, name))
            return m->e[i].field_id;
    return -1;
}
