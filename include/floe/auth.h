/*
 * auth.h - who is calling (authentication) and what they may do
 * (authorization), shared by the REST catalog server, the Postgres wire
 * server and the `floe admin` commands.
 *
 * MODEL
 *   A principal is a named client with a hashed secret (OAuth2 client
 *   credentials: client_id = principal name). Principals hold roles; roles
 *   hold grants. A grant is (role, privilege, securable), where the securable
 *   is the whole catalog, a namespace (which covers its child namespaces and
 *   every table and view in them) or one table/view. The built-in role
 *   "admin" holds every privilege everywhere, including managing principals.
 *
 *   Privileges: READ (load/list/scan), WRITE (commit to an existing table or
 *   view), CREATE (create tables, views, child namespaces in a namespace),
 *   DROP (drop/rename), MANAGE_GRANTS (grant/revoke on the securable).
 *   Listing a namespace's tables needs READ on the namespace.
 *
 * TOKENS
 *   fl_auth_token_issue() exchanges client credentials for a short-lived
 *   bearer token: an HMAC-SHA256-signed JWT (header.payload.signature,
 *   base64url) carrying sub, iat, exp and jti, signed with a key kept in
 *   the store so that several servers sharing one store accept each other's
 *   tokens. Static bearer tokens (configured strings mapped to a principal)
 *   are accepted too. Secrets are stored as salted PBKDF2-HMAC-SHA256 hashes
 *   and compared in constant time.
 *
 * STORE
 *   Principals, roles, grants and the signing key live in the catalog's own
 *   database ("sqlite:PATH" or a postgresql:// URI), in tables prefixed
 *   floe_auth_, created on open when absent.
 *
 * AUDIT
 *   fl_auth_audit() appends one JSON object per line to the audit log file
 *   (every mutation, allowed or denied): time, principal, action, target,
 *   outcome, request id.
 *
 * THREADS AND OWNERSHIP
 *   One fl_auth is shared by every server thread: all functions are
 *   thread-safe. Strings in results are copied into caller memory (fixed
 *   buffers) or into a caller's arena; the fl_auth owns nothing of the caller.
 */
#ifndef FLOE_AUTH_H
#define FLOE_AUTH_H

#include "floe/export.h"

#include <stdbool.h>
#include <stdint.h>

#include "floe/arena.h"
#include "floe/catalog.h"
#include "floe/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fl_privilege {
    FL_PRIV_READ = 1,
    FL_PRIV_WRITE = 2,
    FL_PRIV_CREATE = 4,
    FL_PRIV_DROP = 8,
    FL_PRIV_MANAGE_GRANTS = 16,
} fl_privilege;

/* "read", "write", "create", "drop", "manage-grants"; parse returns 0 if unknown. */
FL_API const char *fl_privilege_name(fl_privilege p);
FL_API fl_privilege fl_privilege_parse(const char *s);

#define FL_PRINCIPAL_NAME_MAX 128

typedef struct fl_principal {
    char name[FL_PRINCIPAL_NAME_MAX];
    bool admin;     /* holds the admin role */
    bool anonymous; /* auth disabled (development mode): every check passes */
    /* Monotonic ms at which fl_auth_authenticate / check_secret validated
     * the principal against the store (0 = never). fl_auth_authorize within
     * FL_AUTH_RECHECK_MS of it answers from the grants cached at that point
     * or newer (the request is linearized at authentication) instead of
     * re-reading the store's version: one store read per request. */
    int64_t checked_ms;
} fl_principal;
#define FL_AUTH_RECHECK_MS 1000

typedef struct fl_auth_options {
    const char *store_uri;      /* "sqlite:PATH" or "postgresql://..."; required unless
                                 * allow_anonymous is set and no admin commands are used */
    int token_ttl_seconds;      /* default 3600 */
    const char *audit_log_path; /* NULL = no audit file (records go nowhere) */
    /* Static bearer tokens, "TOKEN=PRINCIPAL" each; the principal must exist. */
    const char *const *static_tokens;
    uint32_t nstatic_tokens;
    /* Development mode: no credentials needed, every request runs as an
     * anonymous principal with every privilege. Must be asked for
     * explicitly (floe serve --insecure-no-auth). */
    bool allow_anonymous;
    /* Failed-login throttling (fl_auth_login_allowed): failures per client
     * id within login_window_s before it is locked out; 0 = 5 and 60 s.
     * A client address gets four times as many. */
    uint32_t login_max_failures;
    uint32_t login_window_s;
} fl_auth_options;

typedef struct fl_auth fl_auth;

FL_API fl_status fl_auth_open(const fl_auth_options *opt, fl_auth **out, fl_error *err);
FL_API void fl_auth_close(fl_auth *a); /* NULL allowed */

/* OAuth2 client_credentials grant. On success *token is a malloc'd string
 * (caller frees) valid for *expires_in seconds. Bad id or secret:
 * FL_EUNAUTHENTICATED (the message never says which one was wrong). */
FL_API fl_status fl_auth_token_issue(fl_auth *a, const char *client_id, const char *client_secret,
                                     char **token, int *expires_in, fl_error *err);
/* The same for an RFC 8707 resource indicator (NULL = none): the token
 * names resource as its audience (aud) and only fl_auth_authenticate_for
 * that resource accepts it. FL_EINVAL unless resource is an absolute
 * http(s) URI without a fragment. */
FL_API fl_status fl_auth_token_issue_for(fl_auth *a, const char *client_id,
                                         const char *client_secret, const char *resource,
                                         char **token, int *expires_in, fl_error *err);

/* Checks an HTTP Authorization header value ("Bearer ..."; NULL when the
 * request had none). FL_EUNAUTHENTICATED when missing (unless anonymous mode),
 * malformed, expired, badly signed or naming a deleted principal. */
FL_API fl_status fl_auth_authenticate(fl_auth *a, const char *authorization, fl_principal *out,
                                      fl_error *err);
/* fl_auth_authenticate at resource (an RFC 9728 protected resource, e.g.
 * <base>/mcp): a token that carries an audience is accepted only where it
 * names resource; fl_auth_authenticate (resource NULL) refuses every token
 * with an audience. Tokens without one are accepted by both. */
FL_API fl_status fl_auth_authenticate_for(fl_auth *a, const char *authorization,
                                          const char *resource, fl_principal *out,
                                          fl_error *err);

/* Checks a password-style credential (Postgres wire: principal name and
 * secret). FL_EUNAUTHENTICATED on mismatch. */
FL_API fl_status fl_auth_check_secret(fl_auth *a, const char *principal, const char *secret,
                                      fl_principal *out, fl_error *err);

/* Does p hold priv on the securable? ns NULL (or 0 levels) and object NULL =
 * the catalog; object NULL = the namespace ns; else the table/view ns.object.
 * A grant on an enclosing namespace or on the catalog covers it.
 * FL_EFORBIDDEN with a message naming the privilege and the securable. */
FL_API fl_status fl_auth_authorize(fl_auth *a, const fl_principal *p, fl_privilege priv,
                                   const fl_namespace *ns, const char *object, fl_error *err);

/* May p see the securable in listings (information_schema, pg_catalog,
 * REST listings)? A table: p holds any privilege on it. A namespace: any
 * privilege on it or an enclosing one, or on anything inside it (so the
 * path to a granted table is visible). The catalog (ns NULL or 0 levels):
 * any grant at all. A principal that no longer exists sees nothing. */
FL_API fl_status fl_auth_visible(fl_auth *a, const fl_principal *p, const fl_namespace *ns,
                                 const char *object, bool *visible, fl_error *err);

/* SCRAM-SHA-256 (RFC 5802/7677) verifier of a principal, for the Postgres
 * wire server: the stored secret hash is PBKDF2-HMAC-SHA256 in exactly the
 * form SCRAM needs (SaltedPassword -> StoredKey, ServerKey), as PostgreSQL
 * stores it. FL_EUNAUTHENTICATED when there is no such principal (callers
 * should then run a mock exchange so the name's existence does not leak). */
typedef struct fl_auth_scram {
    uint8_t salt[64];
    uint32_t salt_len;
    uint32_t iterations;
    uint8_t stored_key[32];
    uint8_t server_key[32];
} fl_auth_scram;
FL_API fl_status fl_auth_scram_lookup(fl_auth *a, const char *principal, fl_auth_scram *out,
                                      fl_principal *p, fl_error *err);

/* ---- administration (floe admin; callers check MANAGE_GRANTS/admin first) ---- */

/* Creates a principal with a fresh random secret, returned once in
 * secret_out (NUL-terminated, at least 64 bytes of room). FL_EEXIST. */
FL_API fl_status fl_auth_principal_create(fl_auth *a, const char *name, bool admin,
                                          char *secret_out, size_t secret_cap, fl_error *err);
/* Replaces the secret with a fresh random one (returned as above). */
FL_API fl_status fl_auth_principal_rotate(fl_auth *a, const char *name, char *secret_out,
                                          size_t secret_cap, fl_error *err);
FL_API fl_status fl_auth_principal_drop(fl_auth *a, const char *name, fl_error *err);
FL_API fl_status fl_auth_principal_list(fl_auth *a, fl_arena *ar, const char ***names, uint32_t *n,
                                        fl_error *err);
/* Looks a principal up (admin flag filled). FL_ENOTFOUND. */
FL_API fl_status fl_auth_principal_get(fl_auth *a, const char *name, fl_principal *out,
                                       fl_error *err);
FL_API fl_status fl_auth_role_create(fl_auth *a, const char *role, fl_error *err);
FL_API fl_status fl_auth_role_drop(fl_auth *a, const char *role, fl_error *err);
FL_API fl_status fl_auth_role_assign(fl_auth *a, const char *principal, const char *role,
                                     bool assign,
                                     fl_error *err); /* assign=false revokes the role */
/* Grants (or revokes, grant=false) priv on a securable to a role; ns/object
 * as in fl_auth_authorize. */
FL_API fl_status fl_auth_grant(fl_auth *a, const char *role, fl_privilege priv,
                               const fl_namespace *ns, const char *object, bool grant,
                               fl_error *err);

/* Issues a token for an existing principal without its secret (for
 * `floe admin token`: whoever can write the store is already all-powerful).
 * ttl_seconds may be negative (an already expired token, for tests). */
FL_API fl_status fl_auth_token_mint(fl_auth *a, const char *principal, int ttl_seconds,
                                    char **token, fl_error *err);

/* One line per grant, "role privilege securable", for `floe admin grants`. */
FL_API fl_status fl_auth_grant_list(fl_auth *a, fl_arena *ar, const char ***lines, uint32_t *n,
                                    fl_error *err);

/* ---- row filters and column masks (floe admin policy; docs/security.md) ----
 * A policy belongs to a role and one table. A row filter is a boolean SQL
 * expression over the table's columns: the principals holding the role see
 * only rows where it is true (the filters of all their roles together, as
 * AND). A column mask is an SQL expression over the table's columns that
 * replaces one column's values (for example left(email, 2) || '...'). The
 * engine applies them wherever the table is read (views, time travel,
 * subqueries, CTAS and DML sources) and refuses what it cannot apply:
 * metadata tables of such a table, changes other than INSERT under masks
 * only, and a column masked by two roles of one principal. Admins have
 * no policies. */
typedef enum fl_auth_policy_kind {
    FL_POLICY_ROW_FILTER = 1,
    FL_POLICY_COLUMN_MASK = 2,
} fl_auth_policy_kind;
typedef struct fl_auth_policy {
    fl_auth_policy_kind kind;
    const char *role;
    const char *column;     /* masks; NULL for filters */
    const char *expression; /* SQL text */
} fl_auth_policy;
/* Sets (replaces) or, expression NULL, removes a role's policy on table
 * ns.object (column: masks only). FL_ENOTFOUND for an unknown role or a
 * policy to remove that is not there. */
FL_API fl_status fl_auth_policy_set(fl_auth *a, const char *role, fl_auth_policy_kind kind,
                                    const fl_namespace *ns, const char *object, const char *column,
                                    const char *expression, fl_error *err);
/* The policies of p's roles on table ns.object, into ar (none for admins
 * and anonymous principals). A principal that no longer exists:
 * FL_EFORBIDDEN. */
FL_API fl_status fl_auth_policies_for(fl_auth *a, const fl_principal *p, const fl_namespace *ns,
                                      const char *object, fl_arena *ar, fl_auth_policy **out,
                                      uint32_t *n, fl_error *err);
/* One line per policy, "role row-filter|column-mask ns.table [column] expression". */
FL_API fl_status fl_auth_policy_list(fl_auth *a, fl_arena *ar, const char ***lines, uint32_t *n,
                                     fl_error *err);

/* ---- per-role resource ceilings (floe admin limits; docs/security.md) ----
 * A role may set ceilings for the sessions of the principals holding it.
 * For a principal, each field is the largest value among its roles that set
 * it (0 = none of its roles sets it: the server's default applies). The
 * admin role has none. */
typedef struct fl_auth_limits {
    uint64_t max_memory_limit;         /* bytes: SET memory_limit may not exceed it */
    uint64_t max_statement_timeout_ms; /* SET statement_timeout may not exceed it (nor be 0) */
    uint64_t statement_timeout_ms;     /* the sessions' default statement_timeout */
    uint32_t max_statements;           /* statements one principal runs at once, all front ends */
} fl_auth_limits;
/* Sets (replaces) a role's ceilings; an all-zero l removes them. FL_ENOTFOUND. */
FL_API fl_status fl_auth_role_limits_set(fl_auth *a, const char *role, const fl_auth_limits *l,
                                         fl_error *err);
FL_API fl_status fl_auth_limits_for(fl_auth *a, const fl_principal *p, fl_auth_limits *out,
                                    fl_error *err);
/* One line per role with ceilings, "role max_memory_limit=1GB
 * statement_timeout=30s max_statement_timeout=10min max_statements=4"
 * (unset fields left out), sorted, for `floe admin limits`. */
FL_API fl_status fl_auth_role_limits_list(fl_auth *a, fl_arena *ar, const char ***lines,
                                          uint32_t *n, fl_error *err);

/* ---- logins: throttling and audit (throttle.c; docs/security.md, "Login
 * audit and throttling") ----
 * Every login attempt (a pgwire password exchange, a /v1/oauth/tokens
 * request) asks fl_auth_login_allowed first and reports its outcome with
 * fl_auth_login_record. Failures are counted per client id and per client
 * address (memory only, per fl_auth; share one fl_auth between front ends
 * to share the counts); after login_max_failures failures of a client id
 * within login_window_s (an address: 4x as many) further attempts are
 * refused for a lockout that doubles with every further failure (1 s, 2 s,
 * 4 s ... at most 300 s), without checking any secret (no PBKDF2 is run):
 * FL_ELIMIT with *retry_after_s. A success clears the client id's count.
 * NULL id or address: that key is not counted. */
FL_API fl_status fl_auth_login_allowed(fl_auth *a, const char *client_id, const char *client_addr,
                                       int *retry_after_s, fl_error *err);
FL_API void fl_auth_login_record(fl_auth *a, const char *client_id, const char *client_addr,
                                 bool ok);
/* One audit record per login attempt: principal = the client id presented
 * (also when it does not exist), action = action ("pg.login",
 * "oauth.token"), target = the endpoint, outcome "ok" / "denied" /
 * "throttled", detail "client=<address>[; <why>]". */
FL_API void fl_auth_audit_login(fl_auth *a, const char *action, const char *client_id,
                                const char *endpoint, const char *client_addr, const char *outcome,
                                const char *why);

/* Appends an audit record. outcome is e.g. "ok", "denied", "conflict",
 * "error"; detail may be NULL. Never fails the caller: I/O errors are
 * reported once on stderr. */
FL_API void fl_auth_audit(fl_auth *a, const fl_principal *p, const char *action, const char *target,
                          const char *outcome, const char *request_id, const char *detail);

#ifdef __cplusplus
}
#endif
#endif
