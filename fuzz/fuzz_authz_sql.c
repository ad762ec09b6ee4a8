/*
 * fuzz_authz_sql.c - random SQL through the engine's authorization as a
 * principal holding only READ on namespace pub: the input bytes drive the
 * generator of tests/sql/authz_world.h (fuzz_sql_grammar.c's sqlgen.h
 * queries with FROM items drawn from the real tables of every namespace -
 * secret, secret.deep, the prefix trap pubx, sandbox - time travel,
 * metadata tables, views with definer and invoker rights, table functions
 * over secret's files, pg_catalog - and templates of every other statement
 * kind), and each statement runs on one session opened with options.auth.
 *
 * The world (a SQLite catalog and auth store in a temporary warehouse) is
 * built once per process and removed at exit. Properties (abort on
 * violation; authz_world.h's (a), (b), (c)): the access records of a
 * statement that succeeded stay inside pub with READ or listings (checked
 * against the reference model of the grants), no result cell or error
 * message shows secret's data or names, a refusal is 42501 (never "does
 * not exist" for something outside pub), and nothing in the catalog or the
 * warehouse changed. Byte 0 picks the search_path the input starts with.
 * FUZZ_SQL_PRINT=1 prints every statement.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tests/sql/authz_world.h"

static aw_world g_world;
static aw_run g_run;
static bool g_open;

static void cleanup(void)
{
    aw_run_close(&g_run);
    aw_close(&g_world);
}

static void setup(void)
{
    if (aw_open(&g_world) != FL_OK ||
        aw_run_open(&g_run, &g_world, &AW_READER, &g_world.reader, true) != FL_OK) {
        fprintf(stderr, "fuzz_authz_sql setup: %s\n", g_world.err);
        abort();
    }
    aw_exec(&g_world, g_run.s, "SET statement_timeout = '5s'");
    g_run.label = "fuzz input";
    atexit(cleanup);
    g_open = true;
}

/* Back to a known session state, so that inputs do not depend on each other. */
static void settle(const aw_stmt *st)
{
    if (g_run.in_block) {
        aw_exec(&g_world, g_run.s, "ROLLBACK");
        g_run.in_block = g_run.block_failed = false;
        g_run.ag.in_block = g_run.ag.block_failed = false;
    }
    if (!strcmp(st->kind, "temp")) {
        aw_exec(&g_world, g_run.s, "DROP TABLE IF EXISTS tmp_0");
        aw_exec(&g_world, g_run.s, "DROP TABLE IF EXISTS tmp_1");
    }
    if (!strncmp(st->sql, "PREPARE", 7))
        aw_exec(&g_world, g_run.s, "DEALLOCATE ALL");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 4096)
        return 0;
    if (!g_open)
        setup();
    static const char *const paths[] = {"secret", "pub", "pubx", "sandbox"};
    const char *path = paths[data[0] % 4];
    fl_error err;
    if (fl_sql_set(g_run.s, "search_path", path, &err) != FL_OK)
        abort();
    g_run.ag.search = path;
    static char sql[65536];
    aw_stmt st = {.sql = sql, .cap = sizeof sql};
    memset(&g_run.ag.g, 0, sizeof g_run.ag.g);
    g_run.ag.g.data = data + 1;
    g_run.ag.g.len = size - 1;
    aw_statement(&g_run.ag, &st);
    if (getenv("FUZZ_SQL_PRINT"))
        fprintf(stderr, "%s\n", sql);
    aw_run_stmt(&g_run, &st);
    if (g_run.violations)
        abort(); /* reported on stderr by aw_report */
    settle(&st);
    return 0;
}
