/*
 * faulty.h - a fault-injecting FileIO for tests: wraps another fl_fileio and
 * fails chosen operations, so tests can prove that readers report errors
 * cleanly and that writers never leave partial files or half commits.
 *
 * Operations are counted per kind across every file and output of the
 * wrapper, starting at 1. A plan field N > 0 fails the Nth operation of that
 * kind (0 = never). The usual pattern: run once with an empty plan, read the
 * counts, then rerun with fail_X_n = 1..count to hit every failure point.
 *
 * Ownership: the wrapper borrows inner (which must outlive it) and must
 * itself outlive every file and output it returned. Counters are atomic, so
 * files may be read from several threads.
 */
#ifndef FLOE_IO_FAULTY_H
#define FLOE_IO_FAULTY_H

#include <stdint.h>

#include "floe/io.h"

typedef struct fl_fault_plan {
    uint64_t fail_open_n;   /* Nth open fails (FL_EIO) */
    uint64_t fail_create_n; /* Nth create fails */
    uint64_t fail_read_n;   /* Nth read_at fails without touching the buffer */
    uint64_t short_read_n;  /* Nth read_at fills only the first half, then fails */
    uint64_t fail_write_n;  /* Nth output write fails (the output stays open: caller aborts) */
    uint64_t fail_close_n;  /* Nth output close fails before commit: nothing becomes visible */
    uint64_t fail_rename_n; /* same as fail_close_n, but counted over commits that reach the
                               final rename (closes whose writes all succeeded) */
    uint64_t lost_ack_n;    /* Nth output close commits, then reports FL_EIO anyway (a lost
                               acknowledgement: the object IS visible) */
    uint64_t fail_remove_n; /* Nth remove fails and removes nothing */
    uint64_t truncate_to;   /* 0 = off; else every opened file appears at most this long */
    fl_status code;         /* status to inject; 0 = FL_EIO */
} fl_fault_plan;

typedef struct fl_fault_counts {
    uint64_t opens, creates, reads, writes, closes, renames, removes;
    uint64_t injected; /* faults injected so far */
} fl_fault_counts;

/* Wraps inner with plan (copied; NULL = no faults). NULL only when out of
 * memory. Free with fl_fileio_destroy(), which leaves inner alone. */
fl_fileio *fl_fileio_faulty(fl_fileio *inner, const fl_fault_plan *plan);

/* Replaces the plan and zeroes the counters. */
void fl_faulty_set_plan(fl_fileio *faulty, const fl_fault_plan *plan);

/* Operation counts so far. */
void fl_faulty_counts(fl_fileio *faulty, fl_fault_counts *out);

#endif
