/*
 * txn_fuse.c - UPDATE and MERGE as ONE Iceberg snapshot: the deletes of the
 * old rows and the new rows land in a single row delta ("overwrite"), as
 * Java's RowDelta does for Spark's UPDATE/MERGE.
 *
 * ice_table.h offers fl_ice_delete_positions (which records a row delta
 * with the delete files, or with the rewritten files for copy-on-write)
 * and fl_ice_txn_append (a second snapshot). To get one snapshot this file
 * records the delete through fl_ice_delete_positions, then adds the new
 * data files to that same row-delta operation's state before anything is
 * built (iceberg/produce_internal.h: every producing state starts with
 * prod_state; the files come from the txn's own data writer, so they are
 * already in the txn arena and valid for its spec). When the delete
 * recorded nothing (no rows matched) the files are a plain append.
 * (A public fl_ice_delete_positions variant taking added files would make
 * this unnecessary; see the report to the lead.)
 */
#include <string.h>

#include "iceberg/produce_internal.h"
#include "sql/stmt/stmt_int.h"

fl_status stmt_delete_and_append(fl_ice_txn *x, stmt_rowids *ids, bool for_update,
                                 fl_ice_data_file *files, uint32_t nfiles, fl_error *err)
{
    uint32_t before = x->nops;
    FL_TRY(stmt_apply_deletes(x, ids, for_update, err));
    if (!nfiles)
        return FL_OK;
    if (x->nops != before + 1 || strcmp(x->ops[before].vt->name, "row delta") != 0)
        return fl_ice_txn_append(x, files, nfiles, err);
    prod_state *ps = x->ops[before].state;
    uint32_t n = ps->nadd_data + nfiles;
    fl_ice_data_file *all = fl_arena_alloc(&x->arena, n * sizeof *all);
    if (!all)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    if (ps->nadd_data)
        memcpy(all, ps->add_data, ps->nadd_data * sizeof *all);
    memcpy(all + ps->nadd_data, files, nfiles * sizeof *all);
    ps->add_data = all;
    ps->nadd_data = n;
    ps->operation = "overwrite";
    return FL_OK;
}
