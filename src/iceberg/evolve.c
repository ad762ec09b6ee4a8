/*
 * evolve.c - schema, partition and sort evolution recorded in a transaction
 * (ice_table.h "schema, partition and sort evolution"). Each call computes
 * the new schema / spec / order from the metadata as the transaction sees it
 * (fl_ice_txn_metadata, so several changes in one transaction stack) with
 * the pure functions of evolve_schema.c / evolve_spec.c, then records:
 *
 *   schema: ADD_SCHEMA (with the new last-column-id) + SET_CURRENT_SCHEMA -1,
 *           or only SET_CURRENT_SCHEMA when an identical schema exists
 *           (Java reuses schema ids the same way);
 *   spec:   ADD_SPEC + SET_DEFAULT_SPEC -1, or SET_DEFAULT_SPEC <id>;
 *   order:  ADD_SORT_ORDER + SET_DEFAULT_SORT_ORDER -1, or SET_DEFAULT_SORT_ORDER <id>.
 *
 * New structs live in the transaction's arena (the updates point at them).
 */
#include <string.h>

#include "floe/ice_table.h"
#include "iceberg/ice_internal.h"
#include "iceberg/write_internal.h"

static fl_status record_schema(fl_ice_txn *x, ice_schema_change *c, fl_error *err)
{
    const fl_ice_metadata *m = fl_ice_txn_metadata(x);
    for (uint32_t i = 0; i < m->nschemas; i++) {
        fl_ice_schema tmp = c->schema;
        tmp.schema_id = m->schemas[i].schema_id;
        tmp.schema.schema_id = m->schemas[i].schema.schema_id;
        if (!ice_schema_equal(&tmp, &m->schemas[i]))
            continue;
        if (tmp.schema_id == m->current_schema_id)
            return FL_OK; /* no change */
        fl_ice_update u = {.kind = FL_ICE_UPD_SET_CURRENT_SCHEMA, .id = tmp.schema_id};
        return fl_ice_txn_add_updates(x, &u, 1, err);
    }
    fl_ice_update u[2] = {
        {.kind = FL_ICE_UPD_ADD_SCHEMA, .schema = &c->schema, .last_column_id = c->last_column_id},
        {.kind = FL_ICE_UPD_SET_CURRENT_SCHEMA, .id = -1},
    };
    return fl_ice_txn_add_updates(x, u, 2, err);
}

/* The change struct must outlive the txn call: allocate it in the txn arena. */
static ice_schema_change *new_change(fl_ice_txn *x, fl_error *err)
{
    ice_schema_change *c = fl_arena_calloc(fl_ice_txn_arena(x), 1, sizeof *c);
    if (!c)
        fl_errorf(err, FL_ENOMEM, "out of memory");
    return c;
}

#define SCHEMA_OP(call)                                                                            \
    do {                                                                                           \
        ice_schema_change *c = new_change(x, err);                                                 \
        if (!c)                                                                                    \
            return FL_ENOMEM;                                                                      \
        fl_arena *a = fl_ice_txn_arena(x);                                                         \
        const fl_ice_metadata *m = fl_ice_txn_metadata(x);                                         \
        FL_TRY(call);                                                                              \
        return record_schema(x, c, err);                                                           \
    } while (0)

fl_status fl_ice_txn_add_column(fl_ice_txn *x, const char *parent, const char *name,
                                const fl_type *type, bool nullable, const char *doc,
                                const char *initial_default, fl_error *err)
{
    SCHEMA_OP(
        ice_evolve_add_column(m, parent, name, type, nullable, doc, initial_default, a, c, err));
}

fl_status fl_ice_txn_drop_column(fl_ice_txn *x, const char *path, fl_error *err)
{
    SCHEMA_OP(ice_evolve_drop_column(m, path, a, c, err));
}

fl_status fl_ice_txn_rename_column(fl_ice_txn *x, const char *path, const char *new_name,
                                   fl_error *err)
{
    SCHEMA_OP(ice_evolve_rename_column(m, path, new_name, a, c, err));
}

fl_status fl_ice_txn_update_column_type(fl_ice_txn *x, const char *path, const fl_type *type,
                                        fl_error *err)
{
    SCHEMA_OP(ice_evolve_update_type(m, path, type, a, c, err));
}

fl_status fl_ice_txn_make_column_optional(fl_ice_txn *x, const char *path, fl_error *err)
{
    SCHEMA_OP(ice_evolve_make_optional(m, path, a, c, err));
}

fl_status fl_ice_txn_set_column_default(fl_ice_txn *x, const char *path, const char *write_default,
                                        fl_error *err)
{
    SCHEMA_OP(ice_evolve_set_default(m, path, write_default, a, c, err));
}

fl_status fl_ice_txn_move_column(fl_ice_txn *x, const char *path, const char *after, bool first,
                                 fl_error *err)
{
    SCHEMA_OP(ice_evolve_move_column(m, path, after, first, a, c, err));
}

fl_status fl_ice_txn_set_identifier_fields(fl_ice_txn *x, const char *const *paths, uint32_t n,
                                           fl_error *err)
{
    SCHEMA_OP(ice_evolve_set_identifier(m, paths, n, a, c, err));
}

static fl_status record_spec(fl_ice_txn *x, fl_ice_partition_spec *spec, int32_t existing,
                             fl_error *err)
{
    const fl_ice_metadata *m = fl_ice_txn_metadata(x);
    if (existing >= 0) {
        if (existing == m->default_spec_id)
            return FL_OK;
        fl_ice_update u = {.kind = FL_ICE_UPD_SET_DEFAULT_SPEC, .id = existing};
        return fl_ice_txn_add_updates(x, &u, 1, err);
    }
    fl_ice_update u[2] = {{.kind = FL_ICE_UPD_ADD_SPEC, .spec = spec},
                          {.kind = FL_ICE_UPD_SET_DEFAULT_SPEC, .id = -1}};
    return fl_ice_txn_add_updates(x, u, 2, err);
}

fl_status fl_ice_txn_add_partition_field(fl_ice_txn *x, const char *text, fl_error *err)
{
    fl_arena *a = fl_ice_txn_arena(x);
    fl_ice_partition_spec *spec = fl_arena_calloc(a, 1, sizeof *spec);
    if (!spec)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    int32_t existing;
    FL_TRY(ice_evolve_add_partition(fl_ice_txn_metadata(x), text, a, spec, &existing, err));
    return record_spec(x, spec, existing, err);
}

fl_status fl_ice_txn_remove_partition_field(fl_ice_txn *x, const char *name_or_text, fl_error *err)
{
    fl_arena *a = fl_ice_txn_arena(x);
    fl_ice_partition_spec *spec = fl_arena_calloc(a, 1, sizeof *spec);
    if (!spec)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    int32_t existing;
    FL_TRY(
        ice_evolve_remove_partition(fl_ice_txn_metadata(x), name_or_text, a, spec, &existing, err));
    return record_spec(x, spec, existing, err);
}

fl_status fl_ice_txn_set_sort_order(fl_ice_txn *x, const char *const *sort_by, uint32_t n,
                                    fl_error *err)
{
    fl_arena *a = fl_ice_txn_arena(x);
    fl_ice_sort_order *o = fl_arena_calloc(a, 1, sizeof *o);
    if (!o)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    int32_t existing;
    const fl_ice_metadata *m = fl_ice_txn_metadata(x);
    FL_TRY(ice_evolve_sort_order(m, sort_by, n, a, o, &existing, err));
    if (existing >= 0) {
        if (existing == m->default_sort_order_id)
            return FL_OK;
        fl_ice_update u = {.kind = FL_ICE_UPD_SET_DEFAULT_SORT_ORDER, .id = existing};
        return fl_ice_txn_add_updates(x, &u, 1, err);
    }
    fl_ice_update u[2] = {{.kind = FL_ICE_UPD_ADD_SORT_ORDER, .order = o},
                          {.kind = FL_ICE_UPD_SET_DEFAULT_SORT_ORDER, .id = -1}};
    return fl_ice_txn_add_updates(x, u, 2, err);
}
