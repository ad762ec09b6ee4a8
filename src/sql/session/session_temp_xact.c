/*
 * session_temp_xact.c - ON COMMIT actions of temporary tables when a
 * transaction ends (session_temp.h): after every statement outside a
 * transaction block, and when a block ends.
 *
 *   ON COMMIT DROP          the table is dropped (files removed)
 *   ON COMMIT DELETE ROWS   the table is emptied with a delete of every row
 *                           (one Iceberg commit on the private table), only
 *                           when it changed since it was last emptied, as
 *                           PostgreSQL truncates only tables the
 *                           transaction touched
 *   ON COMMIT PRESERVE ROWS nothing (the default)
 *   ROLLBACK of a block     also drops the temporary tables the block
 *                           created (their creation is rolled back in PG)
 */
#include <stdlib.h>
#include <string.h>

#include "floe/ice_table.h"
#include "floe/predicate.h"
#include "sql/session/session_temp.h"

static fl_status empty_table(fl_session_temp *t, fl_temp_table *e, fl_error *err)
{
    const char *levels[1] = {fl_session_temp_nsname(t)};
    fl_table_ident id = {{1, levels}, e->name};
    fl_ice_table *tab = NULL;
    fl_ice_txn *x = NULL;
    fl_predicate all = {0, NULL};
    int64_t deleted = 0, snap = 0;
    fl_status rc = fl_ice_table_load(fl_session_temp_catalog(t), &id, &tab, err);
    if (rc == FL_OK)
        rc = fl_ice_txn_begin(tab, &x, err);
    if (rc == FL_OK)
        rc = fl_ice_delete_where(x, &all, &deleted, err);
    if (rc == FL_OK) {
        fl_ice_txn *xx = x;
        x = NULL;
        rc = fl_ice_txn_commit(xx, &snap, err);
    }
    fl_ice_txn_abort(x);
    fl_ice_table_free(tab);
    if (rc != FL_OK)
        return fl_error_prefix(err, "ON COMMIT DELETE ROWS of temporary table %s", e->name);
    char *d = strdup(e->loc);
    if (!d)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    free(e->emptied);
    e->emptied = d;
    return FL_OK;
}

fl_status fl_session_temp_end_xact(fl_session_temp *t, bool rolled_back, fl_error *err)
{
    if (!t)
        return FL_OK;
    fl_status first = FL_OK;
    uint32_t n;
    fl_temp_table *v = fl_session_temp_tables(t, &n);
    for (uint32_t i = n; i-- > 0;) {
        v = fl_session_temp_tables(t, &n);
        fl_temp_table *e = &v[i];
        fl_error e2;
        fl_error_clear(&e2);
        fl_status rc = FL_OK;
        if (e->on_commit == FL_TEMP_DROP || (rolled_back && e->in_block)) {
            rc = fl_session_temp_drop(t, e->name, &e2);
            continue; /* the slot was refilled from the end, already seen */
        }
        e->in_block = false;
        if (e->on_commit == FL_TEMP_DELETE_ROWS && (!e->emptied || strcmp(e->emptied, e->loc)))
            rc = empty_table(t, e, &e2);
        if (rc != FL_OK && first == FL_OK) {
            first = rc;
            if (err)
                *err = e2;
        }
    }
    return first;
}
