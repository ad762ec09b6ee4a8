/*
 * catalog_suite.h - the catalog test cases shared by the SQLite, PostgreSQL
 * and filesystem catalog tests. Each test file defines suite_open() (a fresh
 * connection to the catalog under test, same database every call) and
 * runs the cases it supports.
 */
#ifndef FLOE_TEST_CATALOG_SUITE_H
#define FLOE_TEST_CATALOG_SUITE_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "floe/catalog.h"
#include "floe/io.h"
#include "test.h"

/* Defined by the including test file. */
static fl_catalog *suite_open(void);
/* Whether next_metadata writes the files: the filesystem catalog's swap is
 * their exclusive creation; SQL catalogs only record the strings. */
static bool suite_write_files;

static fl_namespace NS(fl_arena *a, const char *s)
{
    fl_namespace ns;
    fl_error err;
    if (fl_namespace_parse(s, a, &ns, &err) != FL_OK) {
        fprintf(stderr, "bad namespace %s: %s\n", s, err.msg);
        ns.nlevels = 0;
    }
    return ns;
}

static fl_table_ident ID(fl_arena *a, const char *s)
{
    fl_table_ident id;
    fl_error err;
    if (fl_table_ident_parse(s, a, &id, &err) != FL_OK)
        fprintf(stderr, "bad ident %s: %s\n", s, err.msg);
    return id;
}

/* "x,y,z" of the namespaces' last levels. */
static const char *ns_names(const fl_namespace *v, uint32_t n, fl_arena *a)
{
    char buf[1024] = "";
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            strcat(buf, ",");
        strncat(buf, v[i].levels[v[i].nlevels - 1], 100);
    }
    return fl_arena_strdup(a, buf);
}

static const char *str_list(const char **v, uint32_t n, fl_arena *a)
{
    char buf[1024] = "";
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            strcat(buf, ",");
        strncat(buf, v[i], 100);
    }
    return fl_arena_strdup(a, buf);
}

static void suite_namespaces(void)
{
    fl_catalog *c = suite_open();
    CHECK(c != NULL);
    if (!c)
        return;
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_ice_kv kv[2] = {{"owner", "alice"}, {"comment", "first"}};
    fl_ice_map props = {2, kv};
    fl_namespace nsa = NS(&a, "a"), nsab = NS(&a, "a.b"), nsac = NS(&a, "a.c"), nsd = NS(&a, "d");
    CHECK_OK(c->ops->create_namespace(c, &nsa, &props, &err), &err);
    CHECK_OK(c->ops->create_namespace(c, &nsab, NULL, &err), &err);
    CHECK_OK(c->ops->create_namespace(c, &nsac, NULL, &err), &err);
    CHECK_OK(c->ops->create_namespace(c, &nsd, NULL, &err), &err);
    CHECK_EQ_INT(c->ops->create_namespace(c, &nsa, NULL, &err), FL_EEXIST);

    fl_namespace *list;
    uint32_t n;
    CHECK_OK(c->ops->list_namespaces(c, NULL, &a, &list, &n, &err), &err);
    CHECK_EQ_STR(ns_names(list, n, &a), "a,d");
    CHECK_OK(c->ops->list_namespaces(c, &nsa, &a, &list, &n, &err), &err);
    CHECK_EQ_STR(ns_names(list, n, &a), "b,c");
    if (n == 2)
        CHECK_EQ_STR(fl_namespace_str(&list[0], &a), "a.b");
    CHECK_OK(c->ops->list_namespaces(c, &nsab, &a, &list, &n, &err), &err);
    CHECK_EQ_INT(n, 0);
    fl_namespace nsx = NS(&a, "x");
    CHECK_EQ_INT(c->ops->list_namespaces(c, &nsx, &a, &list, &n, &err), FL_ENOTFOUND);

    fl_ice_map got;
    CHECK_OK(c->ops->load_namespace(c, &nsa, &a, &got, &err), &err);
    CHECK_EQ_INT(got.n, 2);
    CHECK_EQ_STR(fl_ice_map_get(&got, "owner"), "alice");
    CHECK_EQ_STR(fl_ice_map_get(&got, "comment"), "first");
    fl_ice_kv up[2] = {{"owner", "bob"}, {"new", "x"}};
    fl_ice_map set = {2, up};
    const char *rm[] = {"comment"};
    CHECK_OK(c->ops->update_namespace(c, &nsa, &set, rm, 1, &err), &err);
    CHECK_OK(c->ops->load_namespace(c, &nsa, &a, &got, &err), &err);
    CHECK_EQ_INT(got.n, 2);
    CHECK_EQ_STR(fl_ice_map_get(&got, "owner"), "bob");
    CHECK_EQ_STR(fl_ice_map_get(&got, "new"), "x");
    CHECK(fl_ice_map_get(&got, "comment") == NULL);
    CHECK_EQ_INT(c->ops->load_namespace(c, &nsx, &a, &got, &err), FL_ENOTFOUND);
    CHECK_EQ_INT(c->ops->update_namespace(c, &nsx, &set, NULL, 0, &err), FL_ENOTFOUND);

    CHECK_EQ_INT(c->ops->drop_namespace(c, &nsa, &err), FL_ECONFLICT);
    CHECK_OK(c->ops->drop_namespace(c, &nsab, &err), &err);
    CHECK_EQ_INT(c->ops->drop_namespace(c, &nsab, &err), FL_ENOTFOUND);
    CHECK_OK(c->ops->list_namespaces(c, &nsa, &a, &list, &n, &err), &err);
    CHECK_EQ_STR(ns_names(list, n, &a), "c");
    fl_catalog_close(c);
    fl_arena_free(&a);
}

/* Creates table id whose first metadata file is written through new_metadata_path. */
static const char *suite_create_table(fl_catalog *c, const fl_table_ident *id, fl_arena *a,
                                      fl_status *rc, fl_error *err)
{
    const char *loc = fl_catalog_default_location(c, id, a), *path = NULL;
    *rc = c->ops->new_metadata_path(c, id, loc, NULL, 0, a, &path, err);
    if (*rc != FL_OK)
        return NULL;
    fl_output *o;
    *rc = fl_fileio_create(c->io, path, 0, &o, err);
    if (*rc == FL_OK) {
        fl_output_write(o, "{}", 2, err);
        *rc = fl_output_close(o, err);
    }
    if (*rc == FL_OK)
        *rc = c->ops->create_table(c, id, path, err);
    return path;
}

/* The next metadata file after base, written exclusively (FL_EEXIST = lost race). */
static fl_status next_metadata(fl_catalog *c, const fl_table_ident *id, const char *base,
                               fl_arena *a, const char **out, fl_error *err)
{
    const char *loc = fl_catalog_default_location(c, id, a);
    FL_TRY(c->ops->new_metadata_path(c, id, loc, base, 1, a, out, err));
    if (!suite_write_files)
        return FL_OK;
    fl_output *o;
    FL_TRY(fl_fileio_create(c->io, *out, 0, &o, err));
    fl_status rc = fl_output_write(o, base, strlen(base), err);
    if (rc != FL_OK) {
        fl_output_abort(o);
        return rc;
    }
    return fl_output_close(o, err);
}

static void suite_tables(bool can_rename)
{
    fl_catalog *c = suite_open();
    CHECK(c != NULL);
    if (!c)
        return;
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_status rc;
    fl_namespace n1 = NS(&a, "t1"), n2 = NS(&a, "t2");
    CHECK_OK(c->ops->create_namespace(c, &n1, NULL, &err), &err);
    CHECK_OK(c->ops->create_namespace(c, &n2, NULL, &err), &err);
    fl_table_ident ta = ID(&a, "t1.alpha"), tb = ID(&a, "t1.beta"), tmissing = ID(&a, "nons.x");
    const char *la = suite_create_table(c, &ta, &a, &rc, &err);
    CHECK_OK(rc, &err);
    suite_create_table(c, &tb, &a, &rc, &err);
    CHECK_OK(rc, &err);
    CHECK_EQ_INT(c->ops->create_table(c, &ta, la, &err), FL_EEXIST);
    CHECK_EQ_INT(c->ops->create_table(c, &tmissing, la, &err), FL_ENOTFOUND);

    const char **names;
    uint32_t n;
    CHECK_OK(c->ops->list_tables(c, &n1, &a, &names, &n, &err), &err);
    CHECK_EQ_STR(str_list(names, n, &a), "alpha,beta");
    CHECK_OK(c->ops->list_tables(c, &n2, &a, &names, &n, &err), &err);
    CHECK_EQ_INT(n, 0);
    fl_namespace *nss;
    CHECK_OK(c->ops->list_namespaces(c, &n1, &a, &nss, &n, &err), &err);
    CHECK_EQ_INT(n, 0); /* tables are not namespaces */

    const char *cur = NULL;
    CHECK_OK(c->ops->load_table(c, &ta, &a, &cur, &err), &err);
    CHECK_EQ_STR(cur, la);
    const char *l2 = NULL;
    CHECK_OK(next_metadata(c, &ta, la, &a, &l2, &err), &err);
    CHECK_OK(c->ops->commit_table(c, &ta, la, l2, &err), &err);
    CHECK_OK(c->ops->load_table(c, &ta, &a, &cur, &err), &err);
    CHECK_EQ_STR(cur, l2);
    /* a stale writer based on la: loses at the exclusive create of the next
     * file (filesystem) or at the pointer swap (SQL catalogs) */
    const char *l3 = NULL;
    rc = next_metadata(c, &ta, la, &a, &l3, &err);
    if (rc != FL_EEXIST) {
        CHECK_OK(rc, &err);
        CHECK_EQ_INT(c->ops->commit_table(c, &ta, la, l3, &err), FL_ECONFLICT);
    }
    CHECK_OK(c->ops->load_table(c, &ta, &a, &cur, &err), &err);
    CHECK_EQ_STR(cur, l2);
    CHECK_EQ_INT(c->ops->load_table(c, &tmissing, &a, &cur, &err), FL_ENOTFOUND);

    CHECK_EQ_INT(c->ops->drop_namespace(c, &n1, &err), FL_ECONFLICT);
    if (can_rename) {
        fl_table_ident tc = ID(&a, "t2.gamma");
        CHECK_OK(c->ops->rename_table(c, &ta, &tc, &err), &err);
        CHECK_EQ_INT(c->ops->load_table(c, &ta, &a, &cur, &err), FL_ENOTFOUND);
        CHECK_OK(c->ops->load_table(c, &tc, &a, &cur, &err), &err);
        CHECK_EQ_STR(cur, l2);
        CHECK_EQ_INT(c->ops->rename_table(c, &tb, &tc, &err), FL_EEXIST);
        CHECK_EQ_INT(c->ops->rename_table(c, &ta, &tb, &err), FL_ENOTFOUND);
        CHECK_EQ_INT(c->ops->rename_table(c, &tb, &tmissing, &err), FL_ENOTFOUND);
        CHECK_OK(c->ops->drop_table(c, &tc, &err), &err);
    } else {
        CHECK_EQ_INT(c->ops->rename_table(c, &ta, &tb, &err), FL_EUNSUPPORTED);
        CHECK_OK(c->ops->drop_table(c, &ta, &err), &err);
    }
    CHECK_OK(c->ops->drop_table(c, &tb, &err), &err);
    CHECK_EQ_INT(c->ops->drop_table(c, &tb, &err), FL_ENOTFOUND);
    CHECK_OK(c->ops->list_tables(c, &n1, &a, &names, &n, &err), &err);
    CHECK_EQ_INT(n, 0);
    CHECK_OK(c->ops->drop_namespace(c, &n1, &err), &err);
    CHECK_OK(c->ops->drop_namespace(c, &n2, &err), &err);
    fl_catalog_close(c);
    fl_arena_free(&a);
}

/* ---- concurrency: 8 processes x 50 CAS increments ---- */

#define SUITE_PROCS 8
#define SUITE_INCS 50

/* One child: 50 successful commits, each logged as "expected new\n" to log. */
static int suite_child(const char *ident, const char *log_path)
{
    fl_catalog *c = suite_open();
    if (!c)
        return 2;
    FILE *log = fopen(log_path, "w");
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_table_ident id = ID(&a, ident);
    fl_error err;
    int done = 0, fails = 0;
    while (done < SUITE_INCS && fails < 100000) {
        fl_arena_reset(&a);
        id = ID(&a, ident);
        const char *cur, *next;
        fl_status rc = c->ops->load_table(c, &id, &a, &cur, &err);
        if (rc == FL_OK)
            rc = next_metadata(c, &id, cur, &a, &next, &err);
        if (rc == FL_OK)
            rc = c->ops->commit_table(c, &id, cur, next, &err);
        if (rc == FL_OK) {
            fprintf(log, "%s %s\n", cur, next);
            done++;
        } else if (rc == FL_ECONFLICT || rc == FL_EEXIST) {
            fails++;
        } else {
            fprintf(stderr, "child %d: %s\n", (int)getpid(), err.msg);
            break;
        }
    }
    fclose(log);
    fl_arena_free(&a);
    fl_catalog_close(c);
    return done == SUITE_INCS ? 0 : 1;
}

typedef struct suite_edge {
    char from[512], to[512];
} suite_edge;

/* Checks the logged commits form one chain of length total from first to last. */
static void suite_check_chain(suite_edge *e, int n, const char *first, const char *last)
{
    CHECK_EQ_INT(n, SUITE_PROCS * SUITE_INCS);
    const char *at = first;
    int steps = 0;
    for (; steps < n; steps++) {
        int found = -1;
        for (int i = 0; i < n; i++)
            if (strcmp(e[i].from, at) == 0) {
                CHECK(found < 0); /* two commits from the same base = a lost update */
                if (found < 0)
                    found = i;
            }
        if (found < 0)
            break;
        at = e[found].to;
    }
    CHECK_EQ_INT(steps, n);
    CHECK_EQ_STR(at, last);
}

/* Returns the final location; *prev_of_last gets the chain's last 'from'. */
static void suite_concurrency(const char *tmpdir, const char *nsname)
{
    fl_catalog *c = suite_open();
    CHECK(c != NULL);
    if (!c)
        return;
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_error err;
    fl_status rc;
    fl_namespace ns = NS(&a, nsname);
    CHECK_OK(c->ops->create_namespace(c, &ns, NULL, &err), &err);
    char ident[256];
    snprintf(ident, sizeof ident, "%s.counter", nsname);
    fl_table_ident id = ID(&a, ident);
    const char *first = suite_create_table(c, &id, &a, &rc, &err);
    CHECK_OK(rc, &err);
    fflush(NULL);
    pid_t pids[SUITE_PROCS];
    for (int i = 0; i < SUITE_PROCS; i++) {
        char log[600];
        snprintf(log, sizeof log, "%s/commits-%d.log", tmpdir, i);
        pids[i] = fork();
        if (pids[i] == 0)
            _exit(suite_child(ident, log));
    }
    for (int i = 0; i < SUITE_PROCS; i++) {
        int st = 0;
        waitpid(pids[i], &st, 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    suite_edge *e = calloc(SUITE_PROCS * SUITE_INCS + 1, sizeof *e);
    int n = 0;
    for (int i = 0; i < SUITE_PROCS; i++) {
        char log[600];
        snprintf(log, sizeof log, "%s/commits-%d.log", tmpdir, i);
        FILE *f = fopen(log, "r");
        CHECK(f != NULL);
        while (f && n <= SUITE_PROCS * SUITE_INCS &&
               fscanf(f, "%511s %511s", e[n].from, e[n].to) == 2)
            n++;
        if (f)
            fclose(f);
    }
    const char *last = NULL;
    CHECK_OK(c->ops->load_table(c, &id, &a, &last, &err), &err);
    if (last && first)
        suite_check_chain(e, n, first, last);
    free(e);
    fl_catalog_close(c);
    fl_arena_free(&a);
}

#endif
