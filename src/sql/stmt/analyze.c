/*
 * analyze.c - ANALYZE [t] and VACUUM (libpg_query's VacuumStmt).
 *
 * Iceberg keeps column NDV in Puffin statistics files
 * (apache-datasketches-theta-v1 blobs) registered in the table metadata's
 * "statistics"; floe reads Puffin files (deletion vectors) but writes no
 * theta sketches yet, and its join order uses manifest row counts. Rather
 * than answer "ANALYZE" having computed nothing, both statements are
 * refused with a message that says so (0A000); src/sql/stmt/README.md lists
 * it under "Not done". VACUUM's work is ALTER TABLE t EXECUTE
 * expire_snapshots / remove_orphan_files / optimize.
 */
#include "sql/stmt/stmt_int.h"

fl_status stmt_analyze(fl_stmt_ctx *c, const PgQuery__VacuumStmt *s, fl_stmt_result *out,
                       fl_error *err)
{
    (void)c;
    (void)out;
    if (s->is_vacuumcmd)
        return fl_error_state(err, FL_EUNSUPPORTED, "0A000",
                              "VACUUM is not supported: use ALTER TABLE t EXECUTE "
                              "expire_snapshots, remove_orphan_files or optimize");
    return fl_error_state(err, FL_EUNSUPPORTED, "0A000",
                          "ANALYZE is not supported yet: floe does not write Puffin column "
                          "statistics (theta sketches); the planner uses the row counts in "
                          "each table's manifests");
}
