/*
 * data_writer_txn.c - fl_ice_data_writer_open: the data writer of
 * data_writer.c bound to a transaction. It writes through the table's
 * FileIO, for the metadata as the transaction sees it (so a column added
 * earlier in the same transaction is written), puts the data-file structs
 * in the transaction's arena, computes metrics with
 * fl_ice_metrics_from_parquet (write.metadata.metrics.* properties), and
 * registers every file with fl_ice_txn_own_file so an aborted or failed
 * transaction deletes it.
 */
#include <string.h>

#include "floe/ice_table.h"
#include "iceberg/txn_internal.h"
#include "iceberg/write_internal.h"

static fl_status own(void *ctx, const char *path, fl_error *err)
{
    return fl_ice_txn_own_file((fl_ice_txn *)ctx, path, err);
}

void ice_writer_config_for_txn(fl_ice_txn *x, ice_writer_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->io = x->t->io;
    cfg->meta = fl_ice_txn_metadata(x);
    cfg->out_arena = fl_ice_txn_arena(x);
    cfg->metrics = fl_ice_metrics_from_parquet;
    cfg->own_file = own;
    cfg->own_ctx = x;
}

fl_status fl_ice_data_writer_open(fl_ice_txn *x, fl_ice_data_writer **out, fl_error *err)
{
    ice_writer_config cfg;
    ice_writer_config_for_txn(x, &cfg);
    return ice_data_writer_open_cfg(&cfg, out, err);
}
