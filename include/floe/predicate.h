/*
 * predicate.h - a conjunction of column comparisons, the form of filter that
 * file formats and table metadata can prune with (min/max statistics, null
 * counts, page indexes, partition values, bloom filters).
 *
 * fl_predicate is AND(terms). Each term compares one column, named by its
 * dotted path ("a", "s.x") or by field id (field_id > 0 wins), with a literal.
 * Richer expressions stay in the SQL engine, which passes down the terms it
 * can and keeps the rest as a residual filter.
 *
 * Pruning answers "might any row match?"; a false "yes" only costs reading,
 * a false "no" loses rows, so every pruning rule must be conservative.
 * Ownership: all pointers are borrowed from the caller.
 */
#ifndef FLOE_PREDICATE_H
#define FLOE_PREDICATE_H

#include <stdint.h>

#include "floe/types.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fl_cmp_op {
    FL_CMP_EQ = 1,
    FL_CMP_NE,
    FL_CMP_LT,
    FL_CMP_LE,
    FL_CMP_GT,
    FL_CMP_GE,
    FL_CMP_IS_NULL,
    FL_CMP_NOT_NULL,
    FL_CMP_IN, /* value in in_values[0..nin) */
} fl_cmp_op;

typedef struct fl_col_pred {
    const char *column; /* dotted path; used when field_id <= 0 */
    int32_t field_id;
    fl_cmp_op op;
    fl_value value;            /* literal, of the column's type (unused for null tests) */
    const fl_value *in_values; /* FL_CMP_IN */
    uint32_t nin;
} fl_col_pred;

typedef struct fl_predicate {
    uint32_t nterms;
    const fl_col_pred *terms; /* AND of all terms; nterms == 0 is TRUE */
} fl_predicate;

#ifdef __cplusplus
}
#endif
#endif
