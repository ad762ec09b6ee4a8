/*
 * scan_task.h - row-group slices of Iceberg scan tasks (scan_task.c).
 *
 * Split planning: a task is a whole data file, and one big file (floe load
 * writes a table as one file of many row groups) would keep a single thread
 * busy. The SQL scan (src/sql/exec/op_scan.c) therefore reads a task as
 * slices of consecutive row groups, one morsel each, like Iceberg's split
 * planning by split_offsets (here: the footer's row groups, read through the
 * plan's cache so the readers reuse the decoded footer). A slice keeps the
 * task's semantics: position deletes, deletion vectors and _pos use the
 * file positions of the slice's rows (its first row group's start row),
 * equality deletes and the residual filter apply per row as for the whole
 * file, and row-group/page pruning by statistics applies inside the slice.
 */
#ifndef FLOE_ICEBERG_SCAN_TASK_H
#define FLOE_ICEBERG_SCAN_TASK_H

#include "floe/ice_scan.h"

/* The slice API (fl_ice_task_row_groups, fl_ice_task_reader_open_slice,
 * fl_ice_task_reader_seek, fl_ice_task_reader_task) is public: floe/ice_scan.h. */

#endif
