/*
 * auth_internal.h - the pieces of the auth subsystem (include/floe/auth.h)
 * and how they fit together. See src/auth/README.md for the design.
 *
 *   b64.c        base64 (standard, for SCRAM verifiers) and base64url (JWT)
 *   secret.c     random secrets, PBKDF2-HMAC-SHA256 verifiers in the
 *                PostgreSQL SCRAM-SHA-256 format, constant-time checks
 *   jwt.c        HS256 JSON Web Tokens: sign, verify, claims
 *   store*.c     the database: a two-driver (SQLite / PostgreSQL) text-row
 *                interface, the floe_auth_* schema, the version counter
 *   snapshot.c   an in-memory copy of principals, roles and grants, reloaded
 *                when the store's version counter moves; grant resolution
 *   admin.c      principal / role / grant mutations and listings
 *   limits.c     per-role resource ceilings (floe_auth_role_limits)
 *   throttle.c   failed-login / token-request rate limiting (memory only)
 *   statics.c    static bearer tokens
 *   audit.c      the JSON-lines audit log
 *   auth.c       fl_auth itself: open/close, token issue, authenticate,
 *                check_secret, authorize
 */
#ifndef FLOE_AUTH_INTERNAL_H
#define FLOE_AUTH_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "floe/auth.h"

/* ---- base64 (b64.c) ---- */

/* Encodes n bytes; url = base64url without padding, else standard with
 * padding. Writes a NUL-terminated string; returns its length, or 0 when
 * cap is too small. */
size_t auth_b64_encode(const uint8_t *in, size_t n, bool url, char *out, size_t cap);
/* Strict decoding (canonical: no stray characters, unused bits zero; url:
 * no padding; standard: padding required). Returns bytes written, or -1. */
long auth_b64_decode(const char *in, size_t n, bool url, uint8_t *out, size_t cap);
void auth_hex(const uint8_t *in, size_t n, char *out); /* out: 2n+1 bytes */

/* ---- secrets (secret.c) ---- */

#define AUTH_SALT_LEN 16
#define AUTH_KEY_LEN 32      /* SHA-256 output */
#define AUTH_ITERATIONS 4096 /* PBKDF2 rounds (PostgreSQL's SCRAM default) */
#define AUTH_SECRET_LEN 43   /* 32 random bytes in base64url */
#define AUTH_VERIFIER_MAX 160

fl_status auth_random(uint8_t *buf, size_t n, fl_error *err);
/* A fresh secret (AUTH_SECRET_LEN chars + NUL; cap >= 64). */
fl_status auth_secret_new(char *out, size_t cap, fl_error *err);
/* "SCRAM-SHA-256$<iter>:<salt b64>$<StoredKey b64>:<ServerKey b64>". */
fl_status auth_verifier_make(const char *secret, char *out, size_t cap, fl_error *err);
/* Parses a verifier (FL_ECORRUPT naming the field). */
fl_status auth_verifier_parse(const char *v, fl_auth_scram *out, fl_error *err);
/* Does secret match the verifier? Constant time in the secret's content.
 * A malformed verifier never matches. */
bool auth_verifier_check(const char *verifier, const char *secret);

/* ---- JWT (jwt.c) ---- */

#define AUTH_TOKEN_MAX 4096 /* longest bearer token accepted */
#define AUTH_AUD_MAX 256    /* longest audience (a resource URI) */
#define AUTH_CLOCK_SKEW 30  /* seconds of leeway on exp and iat */

typedef struct auth_claims {
    char sub[FL_PRINCIPAL_NAME_MAX];
    int64_t iat, exp;
    int64_t gen; /* the principal's token generation (floe claim "gen") */
    char jti[33];
    char aud[AUTH_AUD_MAX]; /* RFC 8707 resource the token is for ("" = none) */
} auth_claims;

/* Signs a token with claims (jti is generated when empty). *out malloc'd. */
fl_status auth_jwt_sign(const uint8_t key[AUTH_KEY_LEN], auth_claims *c, char **out, fl_error *err);
/* Verifies signature, header (alg HS256 only) and time claims against now.
 * FL_EUNAUTHENTICATED with a reason on any failure. */
fl_status auth_jwt_verify(const uint8_t key[AUTH_KEY_LEN], const char *tok, size_t len, int64_t now,
                          auth_claims *out, fl_error *err);

/* ---- store (store*.c) ---- */

typedef struct auth_rows {
    uint32_t nrows, ncols;
    const char **cells; /* row-major, arena strings, NULL = SQL NULL */
} auth_rows;

typedef struct auth_store auth_store;
struct auth_store {
    /* Runs sql ('?' placeholders, text parameters). rows/changes may be NULL.
     * Unique-key violations are FL_EEXIST. */
    fl_status (*exec)(auth_store *s, const char *sql, const char *const *params, uint32_t n,
                      fl_arena *a, auth_rows *rows, uint64_t *changes, fl_error *err);
    fl_status (*begin)(auth_store *s, bool write, fl_error *err);
    fl_status (*commit)(auth_store *s, fl_error *err);
    void (*rollback)(auth_store *s);
    void (*close)(auth_store *s);
    bool postgres;
    const char *what; /* "sqlite auth store PATH" for messages */
};

fl_status auth_store_sqlite_open(const char *path, auth_store **out, fl_error *err);
fl_status auth_store_pg_open(const char *conninfo, auth_store **out, fl_error *err);
/* Opens by URI ("sqlite:PATH", "postgresql://", "postgres://"), creates the
 * schema when absent and reads (creating if needed) the signing key. */
fl_status auth_store_open(const char *uri, auth_store **out, uint8_t key[AUTH_KEY_LEN],
                          fl_error *err);
/* The version counter (bumped by every mutation). */
fl_status auth_store_version(auth_store *s, int64_t *v, fl_error *err);
/* In a write transaction: bumps the counter and returns the new value. */
fl_status auth_store_bump(auth_store *s, int64_t *v, fl_error *err);
/* One statement with no result inside its own write transaction helper. */
fl_status auth_store_exec1(auth_store *s, const char *sql, const char *const *p, uint32_t n,
                           uint64_t *changes, fl_error *err);

/* ---- mutations (admin.c) ---- */

/* Runs fn in one write transaction that first bumps the version counter. */
typedef fl_status (*auth_mut_fn)(auth_store *s, void *ctx, int64_t version, fl_error *err);
fl_status auth_mutate(fl_auth *a, auth_mut_fn fn, void *ctx, fl_error *err);

/* ---- snapshot (snapshot.c) ---- */

typedef struct auth_grant {
    const char *role;
    fl_privilege priv;
    int kind; /* AUTH_SEC_* */
    uint32_t nlevels;
    const char **levels;
    const char *object; /* table/view name, or NULL */
} auth_grant;

enum { AUTH_SEC_CATALOG = 0, AUTH_SEC_NAMESPACE = 1, AUTH_SEC_TABLE = 2 };

typedef struct auth_pr {
    const char *name;
    const char *verifier;
    int64_t gen;
    bool admin;
    uint32_t nroles;
    const char **roles;
} auth_pr;

/* A row filter or column mask of a role on one table (policy.c). */
typedef struct auth_policy {
    const char *role;
    int kind;           /* FL_POLICY_* */
    const char *ns;     /* levels joined by 0x1F */
    const char *object; /* table name */
    const char *column; /* masks; "" for filters */
    const char *expression;
} auth_policy;
typedef struct auth_role_limits {
    const char *role;
    fl_auth_limits l;
} auth_role_limits;

typedef struct auth_snapshot {
    fl_arena arena; /* owns everything below */
    int64_t version;
    uint32_t nprincipals, nroles, ngrants, npolicies;
    auth_pr *principals; /* sorted by name */
    const char **roles;
    auth_grant *grants;
    auth_policy *policies;
    auth_role_limits *limits; /* limits.c */
    uint32_t nlimits;
} auth_snapshot;

/* Reads the policies into sn (policy.c; inside auth_snapshot_load's transaction). */
fl_status auth_policies_load(auth_store *s, auth_snapshot *sn, fl_error *err);

/* limits.c: reads floe_auth_role_limits into sn (inside the load's read
 * transaction). */
fl_status auth_limits_load(auth_store *s, auth_snapshot *sn, fl_error *err);

/* Loads everything in one read transaction. */
fl_status auth_snapshot_load(auth_store *s, auth_snapshot *out, fl_error *err);
void auth_snapshot_free(auth_snapshot *sn);
const auth_pr *auth_snapshot_find(const auth_snapshot *sn, const char *name);
bool auth_snapshot_role_exists(const auth_snapshot *sn, const char *role);
bool auth_holds_role(const auth_pr *pr, const char *role);
/* Does pr hold priv on (ns, object)? (Admin is checked by the caller.) */
bool auth_snapshot_allows(const auth_snapshot *sn, const auth_pr *pr, fl_privilege priv,
                          const fl_namespace *ns, const char *object);

/* May pr see (ns, object) in listings: a grant of any privilege covering
 * it, or, for a namespace, a grant on anything inside it? */
bool auth_snapshot_visible(const auth_snapshot *sn, const auth_pr *pr, const fl_namespace *ns,
                           const char *object);

/* Securable encoding in the store: kind "catalog" | "namespace" | "table";
 * namespace levels joined by 0x1F ('' for the catalog); object '' if none. */
#define AUTH_LEVEL_SEP '\x1f'
const char *auth_sec_kind_name(int kind);
/* Validates and encodes (ns, object) into an arena string. */
fl_status auth_sec_encode(const fl_namespace *ns, const char *object, fl_arena *a, int *kind,
                          const char **ns_joined, fl_error *err);
/* Valid principal / role name: 1..127 bytes of [A-Za-z0-9._@+-]. */
bool auth_name_valid(const char *s);

/* ---- static tokens (statics.c) ---- */

typedef struct auth_static {
    uint8_t hash[AUTH_KEY_LEN]; /* SHA-256 of the token */
    char principal[FL_PRINCIPAL_NAME_MAX];
} auth_static;

fl_status auth_statics_parse(const char *const *specs, uint32_t n, auth_static **out,
                             fl_error *err);
/* Principal of a static token, or NULL. Compares every entry, in constant
 * time each. */
const char *auth_statics_match(const auth_static *st, uint32_t n, const char *tok, size_t len);

/* ---- audit (audit.c) ---- */

/* Opens the log (path NULL: none; a->audit_fd = -1). */
fl_status auth_audit_open(fl_auth *a, const char *path, fl_error *err);

/* ---- the object ---- */

struct fl_auth {
    auth_store *store; /* NULL in anonymous mode without a store */
    uint8_t key[AUTH_KEY_LEN];
    int ttl;
    bool anonymous;
    auth_static *statics;
    uint32_t nstatics;
    pthread_mutex_t lock; /* guards store and snap */
    auth_snapshot snap;
    bool have_snap;
    /* audit */
    pthread_mutex_t audit_lock;
    int audit_fd; /* -1 = none */
    char *audit_path;
    bool audit_reported;
    /* failed-login throttling (throttle.c) */
    struct auth_throttle *throttle;
};

/* throttle.c: created at open, freed at close */
fl_status auth_throttle_new(fl_auth *a, uint32_t max_failures, uint32_t window_s, fl_error *err);
void auth_throttle_free(fl_auth *a);

/* With a->lock held: reloads a->snap when the store's version moved. */
fl_status auth_refresh_locked(fl_auth *a, fl_error *err);

#endif
