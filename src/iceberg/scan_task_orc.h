/*
 * scan_task_orc.h - the ORC side of a scan task reader (scan_task.c): an
 * ORC data file opened, projected as the task's Parquet scan options name
 * the columns (field ids or top-level names) and scanned stripe by stripe.
 * Stripes stand where Parquet has row groups: a slice is a stripe range and
 * its positions start at the rows of the stripes before it.
 *
 * Ownership: the source borrows its fl_file; its reader, scan and the scan
 * schema (which the task's batch borrows) live until ice_orc_src_close or
 * the next ice_orc_src_scan.
 */
#ifndef FLOE_ICEBERG_SCAN_TASK_ORC_H
#define FLOE_ICEBERG_SCAN_TASK_ORC_H

#include "floe/orc.h"
#include "floe/parquet.h"

typedef struct ice_orc_src {
    fl_orc_reader *reader;
    fl_orc_scan *scan;
    uint32_t *fields, *stripes; /* malloc'd projection and stripe list */
} ice_orc_src;

fl_status ice_orc_src_open(ice_orc_src *o, fl_file *f, fl_error *err);
const fl_schema *ice_orc_src_schema(const ice_orc_src *o);
/* (Re)opens the scan of stripes [first, first + n) (n = 0: every stripe),
 * projected and pruned as so says; *first_row gets the slice's first row. */
fl_status ice_orc_src_scan(ice_orc_src *o, const fl_parquet_scan_options *so, uint32_t first,
                           uint32_t n, int64_t *first_row, fl_error *err);
const fl_schema *ice_orc_src_scan_schema(const ice_orc_src *o);
fl_status ice_orc_src_next(ice_orc_src *o, fl_batch *b, bool *eof, fl_error *err);
void ice_orc_src_close(ice_orc_src *o);

#endif
