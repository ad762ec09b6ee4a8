/*
 * op_apply.h - the APPLY, RECURSE and SRF operators (op_apply.c, lateral);
 * private to src/sql/exec/ (exec.c's operator factory calls these).
 */
#ifndef FLOE_SQL_EXEC_OP_APPLY_H
#define FLOE_SQL_EXEC_OP_APPLY_H

#include "sql/exec/exec_internal.h"

fl_status ex_apply_node(ex_node *n, fl_error *err);
fl_status ex_recurse_node(ex_node *n, fl_error *err);
fl_status ex_srf_node(ex_node *n, fl_error *err);

#endif
