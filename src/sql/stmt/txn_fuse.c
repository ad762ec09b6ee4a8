/*
 * txn_fuse.c - UPDATE and MERGE as ONE Iceberg snapshot: the deletes of the
 * old rows and the new rows land in a single row delta ("overwrite"), as
 * Java's RowDelta does for Spark's UPDATE/MERGE.
 *
 * The work is fl_ice_delete_positions_append (ice_table.h): the collected
 * row ids become position deletes (or copy-on-write rewrites) and the new
 * data files join the same row delta; with no row ids the files are a plain
 * append. The files come from the txn's own data writer, so they live in
 * the txn arena and match its spec.
 */
#include "sql/stmt/stmt_int.h"

fl_status stmt_delete_and_append(fl_ice_txn *x, stmt_rowids *ids, bool for_update,
                                 fl_ice_data_file *files, uint32_t nfiles, fl_error *err)
{
    return fl_ice_delete_positions_append(x, ids->files, ids->nfiles, for_update, files, nfiles,
                                          err);
}
