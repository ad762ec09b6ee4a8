/*
 * txn_testcat.h - helpers shared by the transaction tests: a one-table
 * in-memory catalog (compare-and-swap on a string, with injectable
 * failures), a scratch directory, and building an fl_ice_table by hand from
 * a metadata JSON string, so commit logic is tested on its own.
 */
#ifndef FLOE_TXN_TESTCAT_H
#define FLOE_TXN_TESTCAT_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "floe/catalog.h"
#include "floe/ice_table.h"

typedef struct memcat {
    fl_catalog base;
    char location[4096]; /* current metadata location of the one table */
    int force_conflicts; /* > 0: that many commit_table calls fail with FL_ECONFLICT */
    int fail_io;         /* commit_table fails with FL_EIO (unknown state) */
    int commits, cas_calls;
    unsigned seq;
} memcat;

static __attribute__((unused)) fl_status memcat_load(fl_catalog *c, const fl_table_ident *id,
                                                     fl_arena *a, const char **loc, fl_error *err)
{
    memcat *m = (memcat *)c;
    (void)id;
    if (!m->location[0])
        return fl_errorf(err, FL_ENOTFOUND, "no table");
    *loc = fl_arena_strdup(a, m->location);
    return FL_OK;
}

static __attribute__((unused)) fl_status memcat_create(fl_catalog *c, const fl_table_ident *id,
                                                       const char *loc, fl_error *err)
{
    memcat *m = (memcat *)c;
    (void)id;
    if (m->location[0])
        return fl_errorf(err, FL_EEXIST, "table exists");
    snprintf(m->location, sizeof m->location, "%s", loc);
    return FL_OK;
}

static __attribute__((unused)) fl_status memcat_commit(fl_catalog *c, const fl_table_ident *id,
                                                       const char *expected, const char *loc,
                                                       fl_error *err)
{
    memcat *m = (memcat *)c;
    (void)id;
    m->cas_calls++;
    if (m->fail_io)
        return fl_errorf(err, FL_EIO, "injected catalog failure");
    if (m->force_conflicts > 0) {
        m->force_conflicts--;
        return fl_errorf(err, FL_ECONFLICT, "injected conflict");
    }
    if (strcmp(m->location, expected) != 0)
        return fl_errorf(err, FL_ECONFLICT, "table changed: %s != %s", m->location, expected);
    snprintf(m->location, sizeof m->location, "%s", loc);
    m->commits++;
    return FL_OK;
}

static __attribute__((unused)) fl_status memcat_new_path(fl_catalog *c, const fl_table_ident *id,
                                                         const char *table_loc, const char *base,
                                                         int64_t version, fl_arena *a,
                                                         const char **out, fl_error *err)
{
    memcat *m = (memcat *)c;
    (void)id;
    (void)base;
    (void)err;
    *out = fl_arena_sprintf(a, "%s/metadata/%05lld-%d-%u.metadata.json", table_loc,
                            (long long)version, (int)getpid(), m->seq++);
    return FL_OK;
}

static const fl_catalog_ops MEMCAT_OPS = {.load_table = memcat_load,
                                          .create_table = memcat_create,
                                          .commit_table = memcat_commit,
                                          .new_metadata_path = memcat_new_path};

/* True in sanitizer builds (tests scale their workloads down there). */
#if defined(__SANITIZE_ADDRESS__)
#define TXN_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TXN_TEST_SANITIZED 1
#endif
#endif
#ifndef TXN_TEST_SANITIZED
#define TXN_TEST_SANITIZED 0
#endif

static __attribute__((unused)) int64_t txn_now_ms_test(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A fresh scratch directory path (malloc'd): under $FLOE_TEST_TMP, else
 * /dev/shm when writable (commit tests fsync a lot; process crashes do not
 * need a disk to survive), else /tmp. This and rm_rf stay local rather than
 * floe_test.h's ft_tmpdir/ft_rmtree: bench/bench_commit.c includes this
 * header without the test harness, and the commit tests want /dev/shm. */
static __attribute__((unused)) char *scratch_dir(const char *tag)
{
    const char *base = getenv("FLOE_TEST_TMP");
    if (!base || !*base)
        base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    char tmpl[512];
    snprintf(tmpl, sizeof tmpl, "%s/floe-%s-XXXXXX", base, tag);
    char *d = mkdtemp(tmpl);
    return d ? strdup(d) : NULL;
}

static __attribute__((unused)) void rm_rf(const char *path)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    if (system(cmd) != 0)
        fprintf(stderr, "warning: could not remove %s\n", path);
}

/* Number of regular files directly in dir whose name contains needle. */
static __attribute__((unused)) int count_files(const char *dir, const char *needle)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.' && (!needle || strstr(e->d_name, needle)))
            n++;
    closedir(d);
    return n;
}

/* A table object over metadata location loc (read through io). */
static __attribute__((unused)) fl_ice_table *table_at(fl_catalog *c, fl_fileio *io, const char *loc,
                                                      fl_error *err)
{
    fl_ice_table *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    fl_arena_init(&t->arena, 0);
    t->catalog = c;
    t->io = io;
    t->ident.name = "t";
    t->metadata_location = fl_arena_strdup(&t->arena, loc);
    if (fl_ice_metadata_read(io, loc, &t->arena, &t->meta, err) != FL_OK) {
        fl_arena_free(&t->arena);
        free(t);
        return NULL;
    }
    return t;
}

static __attribute__((unused)) void table_close(fl_ice_table *t)
{
    if (!t)
        return;
    fl_arena_free(&t->arena);
    free(t);
}

/* Writes json to <dir>/metadata/00000-init.metadata.json and returns that path. */
static __attribute__((unused)) char *write_initial(fl_fileio *io, const char *dir, const char *json,
                                                   fl_error *err)
{
    char *path = malloc(strlen(dir) + 64);
    sprintf(path, "%s/metadata/00000-init.metadata.json", dir);
    fl_output *o = NULL;
    if (fl_fileio_create(io, path, 0, &o, err) != FL_OK ||
        fl_output_write(o, json, strlen(json), err) != FL_OK || fl_output_close(o, err) != FL_OK) {
        free(path);
        return NULL;
    }
    return path;
}

#endif
