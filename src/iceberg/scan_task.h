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

/* Number of row groups of task's data file (1 without reading the footer
 * when the manifest lists one split offset, or for non-Parquet files). */
fl_status ice_task_row_groups(fl_fileio *io, const fl_ice_scan_plan *p, uint32_t task,
                              uint32_t *nrg, fl_error *err);

/* Opens a reader of row groups [rg_first, rg_first + rg_count) of the task's
 * file; rg_count 0 = the whole file (fl_ice_task_reader_open). */
fl_status ice_task_reader_open_slice(fl_fileio *io, const fl_ice_scan_plan *p, uint32_t task,
                                    uint32_t rg_first, uint32_t rg_count,
                                    fl_ice_task_reader **out, fl_error *err);

/* Moves an open reader to another slice of the same task (keeps the file,
 * footer and decoded deletes; restarts positions at the slice's first row).
 * fl_ice_task_reader_stats keeps counting over every slice read. */
fl_status ice_task_reader_seek(fl_ice_task_reader *r, uint32_t rg_first, uint32_t rg_count,
                               fl_error *err);

/* The task the reader reads. */
const fl_ice_scan_task *ice_task_reader_task(const fl_ice_task_reader *r);

#endif
