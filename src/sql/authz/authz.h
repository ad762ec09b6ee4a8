/*
 * authz.h - the engine's one authorization point (docs/security.md).
 *
 * DESIGN
 *   Every object a statement touches is resolved by the binder or a
 *   statement handler, which asks fl_sql_authz_require() for the privilege
 *   that use needs before anything is read or changed: READ for tables and
 *   views read (and metadata tables, time-travel targets, CTAS and MERGE
 *   sources), WRITE for DML targets, ALTER and procedures, CREATE on the
 *   namespace for CREATE TABLE/VIEW/SCHEMA, DROP for DROP and the source of
 *   a rename; files named by table functions need the admin role. Each
 *   answer is recorded (the statement's access record, fl_sql_result_access).
 *
 *   Second line: the session's catalog is wrapped by a guard (guard.c) that
 *   lets an operation through only when the record holds a decision
 *   covering it (a load needs any decision on the table, a commit a WRITE,
 *   a create a CREATE on the namespace...). A path that forgot to ask is
 *   refused at the catalog, never served: the engine fails closed.
 *
 *   Whose rights: the invoker's, except inside a definer view, whose query
 *   is checked as the view's definer (fl_sql_authz_push_definer). Row
 *   filters and column masks (policy.c) are the effective principal's.
 *
 *   Without an fl_auth (an embedded, single-user session) every request is
 *   allowed and still recorded, so the record and the guard behave the
 *   same in every build.
 *
 * LIFETIME AND THREADS
 *   One fl_sql_authz per session, used by the session's thread only. The
 *   record is cleared when a statement starts outside a transaction block;
 *   inside a block it accumulates until the block ends, because COMMIT
 *   publishes what earlier statements of the block were allowed to write.
 */
#ifndef FLOE_SQL_AUTHZ_H
#define FLOE_SQL_AUTHZ_H

#include <stdbool.h>
#include <stdint.h>

#include "floe/auth.h"
#include "floe/catalog.h"
#include "floe/error.h"
#include "floe/sql.h"
#include "sql/planner.h"

typedef struct fl_sql_authz fl_sql_authz;
struct fl_session_temp;

/* priv 0 in a record: the object was only listed (pg_catalog, SHOW). */
#define FL_SQL_PRIV_LISTED 0u

/* auth NULL: no checks. who is copied. temp (may be NULL) answers the
 * session's temporary namespace, which is private and never reaches the
 * shared catalog. */
fl_status fl_sql_authz_new(fl_auth *auth, const fl_principal *who,
                           const struct fl_session_temp *temp, fl_sql_authz **out, fl_error *err);
void fl_sql_authz_free(fl_sql_authz *z); /* NULL allowed */
/* The temporary-table overlay, made after the guard it wraps. */
void fl_sql_authz_set_temp(fl_sql_authz *z, const struct fl_session_temp *temp);

/* A statement starts (in_block: inside BEGIN ... COMMIT). Returns the
 * record's length at the start, for fl_sql_authz_copy. */
uint32_t fl_sql_authz_begin(fl_sql_authz *z, bool in_block);
/* A transaction block ended: its decisions are forgotten. */
void fl_sql_authz_end_block(fl_sql_authz *z);
/* The records since mark, copied into a. */
fl_status fl_sql_authz_copy(const fl_sql_authz *z, uint32_t mark, fl_arena *a,
                            fl_sql_access **out, uint32_t *n, fl_error *err);

/* Audit (auth.h's log) of a statement that succeeded: one record when it
 * changed something (a decision for WRITE, CREATE or DROP), with the
 * command tag, the objects changed and the statement text. */
void fl_sql_authz_audit(const fl_sql_authz *z, const fl_sql_access *acc, uint32_t n,
                        const char *tag, const char *sql);

bool fl_sql_authz_enabled(const fl_sql_authz *z);
/* Name of the invoker ("floe" without auth). */
const char *fl_sql_authz_invoker(const fl_sql_authz *z);
/* The principal checks run as now (invoker or a definer); NULL without auth. */
const fl_principal *fl_sql_authz_effective(const fl_sql_authz *z);
/* Does the effective principal hold the admin role (true without auth)? */
bool fl_sql_authz_is_admin(const fl_sql_authz *z);

/* ---- the checks (42501 with the SQL position on refusal) ----
 * location: byte offset in the statement for the error (-1 = none). */
fl_status fl_sql_authz_table(fl_planner_ctx *pc, fl_privilege priv, const fl_table_ident *id,
                             int32_t location, fl_error *err);
/* ns NULL or 0 levels: the catalog. */
fl_status fl_sql_authz_namespace(fl_planner_ctx *pc, fl_privilege priv, const fl_namespace *ns,
                                 int32_t location, fl_error *err);
/* A table function reading path (or glob): the admin role, or the one
 * file the front end allowed (fl_sql_session_allow_file). */
fl_status fl_sql_authz_allow_file(fl_sql_authz *z, const char *path, fl_error *err);
fl_status fl_sql_authz_files(fl_planner_ctx *pc, const char *path, int32_t location,
                             fl_error *err);
/* Does the effective principal hold priv on (ns, table)? Asked without a
 * record (has_table_privilege and friends answer questions, they touch
 * nothing); true without auth; false when it cannot be decided. */
bool fl_sql_authz_holds(fl_planner_ctx *pc, fl_privilege priv, const fl_namespace *ns,
                        const char *table);
/* For listings (pg_catalog, information_schema, SHOW): may the effective
 * principal see this namespace (a grant on it, above it or inside it) or
 * table (any grant covering it)? Visible objects are recorded as listed,
 * which lets the guard list namespaces and load the table's metadata. */
bool fl_sql_authz_visible(fl_planner_ctx *pc, const fl_namespace *ns, const char *table);

/* Definer rights: checks run as principal `definer` until pop. *saved
 * receives what pop restores. A definer that no longer exists is 42501. */
fl_status fl_sql_authz_push_definer(fl_planner_ctx *pc, const char *definer, int32_t location,
                                    const fl_principal **saved, fl_error *err);
void fl_sql_authz_pop(fl_planner_ctx *pc, const fl_principal *saved);

/* The fl_auth (NULL without checks); is ns the session's temporary namespace? */
fl_auth *fl_sql_authz_auth(const fl_sql_authz *z);
bool fl_sql_authz_is_temp(const fl_sql_authz *z, const fl_namespace *ns);

/* ---- row filters and column masks (policy.c) ---- */

/* The effective principal's policies on table id, in pc's arena (none
 * without auth, for admins and for temporary tables). A store that cannot
 * answer is 42501. */
fl_status fl_sql_authz_policies(fl_planner_ctx *pc, const fl_table_ident *id, int32_t location,
                                fl_auth_policy **out, uint32_t *n, fl_error *err);
/* The query that reads table id (columns cols, at snapshot_id; -1 = an
 * empty table) through the policies; 42501 for masks that cannot apply. */
fl_status fl_sql_policy_query(fl_planner_ctx *pc, const fl_table_ident *id, const fl_schema *cols,
                              int64_t snapshot_id, const fl_auth_policy *pol, uint32_t npol,
                              int32_t location, const char **sql, fl_error *err);
bool fl_sql_policy_has(const fl_auth_policy *pol, uint32_t npol, fl_auth_policy_kind kind);

/* ---- the guard (guard.c) ----
 * Wraps inner (borrowed) so that every operation needs a covering record
 * in z. Free with fl_sql_authz_guard_free; inner is not closed. */
fl_status fl_sql_authz_guard_new(fl_catalog *inner, fl_sql_authz *z, fl_catalog **out,
                                 fl_error *err);
void fl_sql_authz_guard_free(fl_catalog *guard);

/* For the guard: is there a decision covering (kind, priv, ns, table)?
 * any_priv: any recorded privilege will do (loads); listing: records of
 * listed objects count too. */
bool fl_sql_authz_covered(const fl_sql_authz *z, fl_privilege priv, bool any_priv, bool listing,
                          const fl_namespace *ns, const char *table);

#endif
