/*
 * store.c - the auth store's schema, opening by URI, the version counter
 * and the signing key, common to the SQLite and PostgreSQL drivers.
 *
 * Tables (portable SQL; created when absent, in one write transaction that
 * on PostgreSQL also holds an advisory lock, so concurrent first opens
 * create them once):
 *   floe_auth_meta(name PK, value)       'version' -> decimal counter,
 *                                        'signing_key' -> 64 hex chars
 *   floe_auth_principals(name PK, secret_hash, token_gen, created_at)
 *   floe_auth_roles(name PK)             'admin' always present
 *   floe_auth_principal_roles(principal, role)  PK both
 *   floe_auth_grants(role, privilege, kind, namespace, object)  PK all five
 *   floe_auth_role_limits(role PK, max_memory_limit, max_statement_timeout_ms,
 *                         statement_timeout_ms, max_statements)  0 = unset
 *
 * Every mutation bumps 'version' first thing in its write transaction
 * (auth_store_bump): the row lock serializes mutations across servers on
 * PostgreSQL, and readers compare the counter with their cached snapshot's
 * (snapshot.c) to see any change made by any process. The signing key is
 * created once per store (INSERT ... ON CONFLICT DO NOTHING, then read), so
 * every server sharing the store signs and verifies with the same key.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/crypto.h>

#include "auth/auth_internal.h"

static const char *const DDL[] = {
    "CREATE TABLE IF NOT EXISTS floe_auth_meta(name VARCHAR(64) NOT NULL PRIMARY KEY, "
    "value VARCHAR(1000) NOT NULL)",
    "CREATE TABLE IF NOT EXISTS floe_auth_principals(name VARCHAR(128) NOT NULL PRIMARY KEY, "
    "secret_hash VARCHAR(512) NOT NULL, token_gen BIGINT NOT NULL, created_at BIGINT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS floe_auth_roles(name VARCHAR(128) NOT NULL PRIMARY KEY)",
    "CREATE TABLE IF NOT EXISTS floe_auth_principal_roles(principal VARCHAR(128) NOT NULL, "
    "role VARCHAR(128) NOT NULL, PRIMARY KEY (principal, role))",
    "CREATE TABLE IF NOT EXISTS floe_auth_grants(role VARCHAR(128) NOT NULL, privilege "
    "VARCHAR(16) NOT NULL, kind VARCHAR(10) NOT NULL, namespace VARCHAR(1000) NOT NULL, "
    "object VARCHAR(255) NOT NULL, PRIMARY KEY (role, privilege, kind, namespace, object))",
    "CREATE TABLE IF NOT EXISTS floe_auth_policies(role VARCHAR(128) NOT NULL, kind VARCHAR(16) "
    "NOT NULL, namespace VARCHAR(1000) NOT NULL, object VARCHAR(255) NOT NULL, column_name "
    "VARCHAR(255) NOT NULL, expression VARCHAR(4000) NOT NULL, PRIMARY KEY (role, kind, "
    "namespace, object, column_name))",
    "CREATE TABLE IF NOT EXISTS floe_auth_role_limits(role VARCHAR(128) NOT NULL PRIMARY KEY, "
    "max_memory_limit BIGINT NOT NULL, max_statement_timeout_ms BIGINT NOT NULL, "
    "statement_timeout_ms BIGINT NOT NULL, max_statements BIGINT NOT NULL)",
};

#define Q_META_INS "INSERT INTO floe_auth_meta(name, value) VALUES (?, ?) ON CONFLICT DO NOTHING"
#define Q_META_GET "SELECT value FROM floe_auth_meta WHERE name = ?"
#define Q_BUMP                                                                                     \
    "UPDATE floe_auth_meta SET value = CAST(CAST(value AS BIGINT) + 1 AS VARCHAR(1000)) WHERE "    \
    "name = 'version'"

fl_status auth_store_exec1(auth_store *s, const char *sql, const char *const *p, uint32_t n,
                           uint64_t *changes, fl_error *err)
{
    return s->exec(s, sql, p, n, NULL, NULL, changes, err);
}

static fl_status get_meta(auth_store *s, const char *name, fl_arena *a, const char **v,
                          fl_error *err)
{
    auth_rows r;
    const char *p[1] = {name};
    FL_TRY(s->exec(s, Q_META_GET, p, 1, a, &r, NULL, err));
    if (r.nrows != 1 || !r.cells[0])
        return fl_errorf(err, FL_ECORRUPT, "%s: floe_auth_meta has no '%s' row", s->what, name);
    *v = r.cells[0];
    return FL_OK;
}

static fl_status parse_version(auth_store *s, const char *v, int64_t *out, fl_error *err)
{
    char *end = NULL;
    long long x = strtoll(v, &end, 10);
    if (end == v || *end)
        return fl_errorf(err, FL_ECORRUPT, "%s: floe_auth_meta version '%.40s' is not a number",
                         s->what, v);
    *out = x;
    return FL_OK;
}

fl_status auth_store_version(auth_store *s, int64_t *v, fl_error *err)
{
    fl_arena a;
    fl_arena_init(&a, 512);
    const char *t = NULL;
    fl_status rc = get_meta(s, "version", &a, &t, err);
    if (rc == FL_OK)
        rc = parse_version(s, t, v, err);
    fl_arena_free(&a);
    return rc;
}

fl_status auth_store_bump(auth_store *s, int64_t *v, fl_error *err)
{
    FL_TRY(auth_store_exec1(s, Q_BUMP, NULL, 0, NULL, err));
    return auth_store_version(s, v, err);
}

static fl_status init_schema(auth_store *s, fl_error *err)
{
    if (s->postgres)
        FL_TRY(
            auth_store_exec1(s, "SELECT pg_advisory_xact_lock(7316203554124)", NULL, 0, NULL, err));
    for (size_t i = 0; i < sizeof DDL / sizeof DDL[0]; i++)
        FL_TRY(auth_store_exec1(s, DDL[i], NULL, 0, NULL, err));
    uint8_t key[AUTH_KEY_LEN];
    char hex[2 * AUTH_KEY_LEN + 1];
    FL_TRY(auth_random(key, sizeof key, err));
    auth_hex(key, sizeof key, hex);
    OPENSSL_cleanse(key, sizeof key);
    const char *pv[2] = {"version", "1"}, *pk[2] = {"signing_key", hex}, *admin[1] = {"admin"};
    fl_status rc = auth_store_exec1(s, Q_META_INS, pv, 2, NULL, err);
    if (rc == FL_OK)
        rc = auth_store_exec1(s, Q_META_INS, pk, 2, NULL, err);
    if (rc == FL_OK)
        rc = auth_store_exec1(s,
                              "INSERT INTO floe_auth_roles(name) VALUES (?) ON CONFLICT DO NOTHING",
                              admin, 1, NULL, err);
    OPENSSL_cleanse(hex, sizeof hex);
    return rc;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static fl_status read_key(auth_store *s, uint8_t key[AUTH_KEY_LEN], fl_error *err)
{
    fl_arena a;
    fl_arena_init(&a, 512);
    const char *hex = NULL;
    fl_status rc = get_meta(s, "signing_key", &a, &hex, err);
    if (rc == FL_OK && strlen(hex) != 2 * AUTH_KEY_LEN)
        rc = fl_errorf(err, FL_ECORRUPT, "%s: signing_key is not %d hex digits", s->what,
                       2 * AUTH_KEY_LEN);
    for (int i = 0; rc == FL_OK && i < AUTH_KEY_LEN; i++) {
        int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            rc = fl_errorf(err, FL_ECORRUPT, "%s: signing_key is not hex", s->what);
        else
            key[i] = (uint8_t)(hi << 4 | lo);
    }
    fl_arena_free(&a);
    return rc;
}

fl_status auth_store_open(const char *uri, auth_store **out, uint8_t key[AUTH_KEY_LEN],
                          fl_error *err)
{
    *out = NULL;
    auth_store *s = NULL;
    if (!strncmp(uri, "sqlite:", 7))
        FL_TRY(auth_store_sqlite_open(uri + 7, &s, err));
    else if (!strncmp(uri, "postgresql://", 13) || !strncmp(uri, "postgres://", 11))
        FL_TRY(auth_store_pg_open(uri, &s, err));
    else
        return fl_errorf(err, FL_EINVAL,
                         "auth store '%.200s': expected sqlite:PATH or postgresql://...", uri);
    fl_status rc = s->begin(s, true, err);
    if (rc == FL_OK)
        rc = init_schema(s, err);
    if (rc == FL_OK)
        rc = s->commit(s, err);
    if (rc != FL_OK)
        s->rollback(s);
    if (rc == FL_OK)
        rc = read_key(s, key, err);
    if (rc != FL_OK) {
        s->close(s);
        return rc;
    }
    *out = s;
    return FL_OK;
}
