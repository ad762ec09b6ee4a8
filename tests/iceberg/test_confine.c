/*
 * test_confine.c - storage confinement of tables (src/iceberg/confine.c):
 * creates, property changes and registers are refused outside the
 * warehouse, at its root, over the catalog database and over another
 * table; identifiers map to distinct folders; purge, expiry and orphan
 * removal over a warehouse seeded with foreign files (outside the
 * warehouse, at its root, in another table's folder, next to catalog.db,
 * inside a table nested in this one by an old catalog) delete none of them.
 *
 * Layout as the CLI makes it: <dir>/wh/catalog.db with warehouse <dir>/wh.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "floe/ice_manifest.h"
#include "iceberg/txn_testcat.h"
#include "iceberg/txn_testdata.h"
#include "test.h"

typedef struct env {
    char *dir;
    char wh[512], db[600];
    fl_fileio *io;
    fl_catalog *cat;
    fl_arena a;
} env;

static int env_open(env *e)
{
    memset(e, 0, sizeof *e);
    fl_arena_init(&e->a, 0);
    e->dir = scratch_dir("confine");
    e->io = fl_fileio_local();
    if (!e->dir || !e->io)
        return -1;
    snprintf(e->wh, sizeof e->wh, "%s/wh", e->dir);
    snprintf(e->db, sizeof e->db, "%s/catalog.db", e->wh);
    fl_error err = {0};
    if (mkdir(e->wh, 0700) != 0 ||
        fl_catalog_sqlite_open(e->db, "floe", e->wh, e->io, &e->cat, &err) != FL_OK) {
        fprintf(stderr, "setup: %s\n", err.msg);
        return -1;
    }
    const char *lv[] = {"db"};
    fl_namespace ns = {1, lv};
    return e->cat->ops->create_namespace(e->cat, &ns, NULL, &err) == FL_OK ? 0 : -1;
}

static void env_close(env *e)
{
    fl_catalog_close(e->cat);
    fl_fileio_destroy(e->io);
    fl_arena_free(&e->a);
    if (e->dir)
        rm_rf(e->dir);
    free(e->dir);
}

static fl_table_ident ident(env *e, const char *ns, const char *name)
{
    fl_table_ident id;
    char buf[256];
    snprintf(buf, sizeof buf, "%s%s%s", ns ? ns : "", ns ? "." : "", name);
    fl_error err = {0};
    CHECK_OK(fl_table_ident_parse(buf, &e->a, &id, &err), &err);
    return id;
}

/* Creates ns.name at location (NULL = default) with optional one property. */
static fl_status create(env *e, const char *ns, const char *name, const char *location,
                        const char *pk, const char *pv, bool staged, fl_ice_table **out,
                        fl_error *err)
{
    fl_table_ident id = ident(e, ns, name);
    fl_ice_kv kv = {pk, pv};
    fl_ice_map props = {pk ? 1 : 0, &kv};
    fl_ice_create_options o = {
        .schema = &TD_SCHEMA, .properties = &props, .location = location, .stage_only = staged};
    fl_ice_table *t = NULL;
    fl_status rc = fl_ice_table_create(e->cat, &id, &o, &t, err);
    if (out)
        *out = t;
    else
        fl_ice_table_free(t);
    return rc;
}

static const char *path(env *e, const char *rel)
{
    return fl_arena_sprintf(&e->a, "%s/%s", e->dir, rel);
}

static void test_create_rules(void)
{
    env e;
    CHECK(env_open(&e) == 0);
    fl_error err = {0};
    CHECK_OK(create(&e, "db", "t", NULL, NULL, NULL, false, NULL, &err), &err);
    /* outside the warehouse (the '/some/dir' escape), its root, '..' */
    CHECK_EQ_INT(create(&e, "db", "x", path(&e, "outside"), NULL, NULL, false, NULL, &err),
                 FL_EFORBIDDEN);
    CHECK(strstr(err.msg, "outside the warehouse") != NULL);
    CHECK_EQ_INT(create(&e, "db", "x", e.wh, NULL, NULL, false, NULL, &err), FL_EFORBIDDEN);
    CHECK(strstr(err.msg, "warehouse root") != NULL);
    const char *up = fl_arena_sprintf(&e.a, "%s/db/../..", e.wh);
    CHECK_EQ_INT(create(&e, "db", "x", up, NULL, NULL, false, NULL, &err), FL_EFORBIDDEN);
    /* over another table: inside it, containing it, equal to it */
    const char *tloc = fl_arena_sprintf(&e.a, "%s/db/t", e.wh);
    const char *inside = fl_arena_sprintf(&e.a, "%s/db/t/data/x", e.wh);
    const char *above = fl_arena_sprintf(&e.a, "%s/db", e.wh);
    CHECK_EQ_INT(create(&e, "db", "x", inside, NULL, NULL, false, NULL, &err), FL_EFORBIDDEN);
    CHECK(strstr(err.msg, "another table or view") != NULL);
    CHECK(strstr(err.msg, "db.t") == NULL); /* the caller may not know it exists */
    CHECK_EQ_INT(create(&e, "db", "x", above, NULL, NULL, false, NULL, &err), FL_EFORBIDDEN);
    CHECK_EQ_INT(create(&e, "db", "x", tloc, NULL, NULL, true, NULL, &err), FL_EFORBIDDEN);
    /* write.*.path must lie inside the table's own location */
    CHECK_EQ_INT(
        create(&e, "db", "x", NULL, "write.data.path", path(&e, "outside"), false, NULL, &err),
        FL_EFORBIDDEN);
    CHECK(strstr(err.msg, "write.data.path") != NULL);
    CHECK_EQ_INT(create(&e, "db", "x", NULL, "write.object-storage.path", tloc, false, NULL, &err),
                 FL_EFORBIDDEN);
    const char *own = fl_arena_sprintf(&e.a, "%s/db/x/files", e.wh);
    CHECK_OK(create(&e, "db", "x", NULL, "write.data.path", own, false, NULL, &err), &err);
    /* nothing of the refused creates was recorded */
    const char **names = NULL;
    uint32_t n = 0;
    const char *lv[] = {"db"};
    fl_namespace ns = {1, lv};
    CHECK_OK(e.cat->ops->list_tables(e.cat, &ns, &e.a, &names, &n, &err), &err);
    CHECK_EQ_INT(n, 2);
    /* a property change through a transaction */
    fl_table_ident tid = ident(&e, "db", "t");
    fl_ice_table *t = NULL;
    CHECK_OK(fl_ice_table_load(e.cat, &tid, &t, &err), &err);
    fl_ice_kv kv = {"write.metadata.path", path(&e, "outside/meta")};
    fl_ice_map set = {1, &kv};
    fl_ice_txn *x = NULL;
    CHECK_OK(fl_ice_txn_begin(t, &x, &err), &err);
    CHECK_OK(fl_ice_txn_set_properties(x, &set, NULL, 0, &err), &err);
    CHECK_EQ_INT(fl_ice_txn_commit(x, NULL, &err), FL_EFORBIDDEN);
    CHECK(strstr(err.msg, "write.metadata.path") != NULL);
    CHECK_OK(fl_ice_table_refresh(t, &err), &err);
    CHECK(fl_ice_map_get(&t->meta.properties, "write.metadata.path") == NULL);
    /* register: another table's metadata, or a file outside its location */
    fl_table_ident t3 = ident(&e, "db", "t3");
    CHECK_EQ_INT(fl_ice_table_register(e.cat, &t3, t->metadata_location, NULL, &err),
                 FL_EFORBIDDEN);
    CHECK(strstr(err.msg, "overlaps") != NULL);
    const char *copy = fl_arena_sprintf(&e.a, "%s/db/copy.metadata.json", e.wh);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", t->metadata_location, copy);
    CHECK(system(cmd) == 0);
    CHECK_EQ_INT(fl_ice_table_register(e.cat, &t3, copy, NULL, &err), FL_EFORBIDDEN);
    CHECK(strstr(err.msg, "not inside the table location") != NULL);
    fl_ice_table_free(t);
    env_close(&e);
}

static void test_catalog_db_inside(void)
{
    /* a catalog database deeper in the warehouse: no table may contain it */
    env e;
    CHECK(env_open(&e) == 0);
    fl_error err = {0};
    char sub[700], db2[800];
    snprintf(sub, sizeof sub, "%s/meta", e.wh);
    snprintf(db2, sizeof db2, "%s/catalog.db", sub);
    CHECK(mkdir(sub, 0700) == 0);
    fl_catalog *c2 = NULL;
    CHECK_OK(fl_catalog_sqlite_open(db2, "floe", e.wh, e.io, &c2, &err), &err);
    const char *lv[] = {"db"};
    fl_namespace ns = {1, lv};
    CHECK_OK(c2->ops->create_namespace(c2, &ns, NULL, &err), &err);
    fl_table_ident id = ident(&e, "db", "m");
    fl_ice_create_options o = {.schema = &TD_SCHEMA, .location = sub};
    fl_ice_table *t = NULL;
    CHECK_EQ_INT(fl_ice_table_create(c2, &id, &o, &t, &err), FL_EFORBIDDEN);
    CHECK(strstr(err.msg, "catalog.db") != NULL);
    struct stat st;
    CHECK(stat(db2, &st) == 0 && (st.st_mode & 077) == 0);
    fl_catalog_close(c2);
    env_close(&e);
}

static void test_names(void)
{
    env e;
    CHECK(env_open(&e) == 0);
    fl_error err = {0};
    const char *nss[] = {"a", "a.b", "\"a/b\""};
    for (int i = 0; i < 3; i++) {
        fl_namespace ns;
        CHECK_OK(fl_namespace_parse(nss[i], &e.a, &ns, &err), &err);
        CHECK_OK(e.cat->ops->create_namespace(e.cat, &ns, NULL, &err), &err);
    }
    fl_ice_table *t1 = NULL, *t2 = NULL, *t3 = NULL, *t4 = NULL, *t5 = NULL;
    /* ["a","b"].zz and ["a/b"].zz, table a.b and table a.b.c, a name with '/' */
    CHECK_OK(create(&e, "a.b", "zz", NULL, NULL, NULL, false, &t1, &err), &err);
    CHECK_OK(create(&e, "\"a/b\"", "zz", NULL, NULL, NULL, false, &t2, &err), &err);
    CHECK_OK(create(&e, "a", "b", NULL, NULL, NULL, false, &t3, &err), &err);
    CHECK_OK(create(&e, "a.b", "c", NULL, NULL, NULL, false, &t4, &err), &err);
    CHECK_OK(create(&e, "db", "\"x/../y\"", NULL, NULL, NULL, false, &t5, &err), &err);
    if (t1 && t2 && t3 && t4 && t5) {
        CHECK(strcmp(t1->meta.location, t2->meta.location) != 0);
        CHECK(!fl_location_within(t4->meta.location, t3->meta.location));
        CHECK(!fl_location_within(t1->meta.location, t3->meta.location));
        CHECK(strstr(t5->meta.location, "/db/x%2F..%2Fy") != NULL);
        CHECK(fl_location_within(t5->meta.location, e.wh));
    }
    fl_ice_table_free(t1), fl_ice_table_free(t2), fl_ice_table_free(t3);
    fl_ice_table_free(t4), fl_ice_table_free(t5);
    env_close(&e);
}

/* ---- deleters over foreign files ---- */

typedef struct foreign {
    const char *path;
    char sum[80];
} foreign;

static void fingerprint(foreign *f)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "sha256sum '%s' 2>/dev/null | cut -c1-64", f->path);
    FILE *p = popen(cmd, "r");
    f->sum[0] = '\0';
    if (p) {
        if (!fgets(f->sum, sizeof f->sum, p))
            f->sum[0] = '\0';
        pclose(p);
    }
}

static void check_intact(foreign *f, int n)
{
    for (int i = 0; i < n; i++) {
        foreign now = {f[i].path, {0}};
        fingerprint(&now);
        if (strcmp(now.sum, f[i].sum) != 0 || !now.sum[0]) {
            fprintf(stderr, "foreign file changed or deleted: %s\n", f[i].path);
            CHECK(0);
        }
    }
}

static void write_text(const char *p, const char *text)
{
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* Makes the table of id a legacy table at location loc (raw catalog swap,
 * as an older floe allowed), with one data file of its own. */
static void legacy_move(env *e, const fl_table_ident *id, const char *loc)
{
    fl_error err = {0};
    fl_ice_table *t = NULL;
    CHECK_OK(fl_ice_table_load(e->cat, id, &t, &err), &err);
    if (!t)
        return;
    fl_ice_metadata m = t->meta;
    m.location = loc;
    char *js = NULL;
    size_t len = 0;
    CHECK_OK(fl_ice_metadata_write(&m, 0, &js, &len, &err), &err);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/metadata' '%s/data'", loc, loc);
    CHECK(system(cmd) == 0);
    const char *mp = fl_arena_sprintf(&e->a, "%s/metadata/00009-legacy.metadata.json", loc);
    FILE *f = fopen(mp, "w");
    CHECK(f && fwrite(js, 1, len, f) == len);
    if (f)
        fclose(f);
    free(js);
    CHECK_OK(e->cat->ops->commit_table(e->cat, id, t->metadata_location, mp, &err), &err);
    fl_ice_table_free(t);
}

static void test_deleters(void)
{
    env e;
    CHECK(env_open(&e) == 0);
    fl_error err = {0};
    fl_ice_table *t = NULL, *o = NULL;
    CHECK_OK(create(&e, "db", "t", NULL, NULL, NULL, false, &t, &err), &err);
    CHECK_OK(create(&e, "db", "other", NULL, NULL, NULL, false, &o, &err), &err);
    CHECK_OK(create(&e, "db", "nested", NULL, NULL, NULL, false, NULL, &err), &err);
    if (!t || !o)
        goto out;
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/outside' '%s/db/t/data' '%s/db/other/data'", e.dir,
             e.wh, e.wh);
    CHECK(system(cmd) == 0);
    /* the other table's own data file */
    fl_ice_data_file of;
    const char *op = fl_arena_sprintf(&e.a, "%s/db/other/data/o.parquet", e.wh);
    CHECK_OK(td_write_file(e.io, op, 1, 5, 1, &e.a, &of, &err), &err);
    fl_ice_txn *x = NULL;
    CHECK_OK(fl_ice_txn_begin(o, &x, &err), &err);
    CHECK_OK(fl_ice_txn_append(x, &of, 1, &err), &err);
    CHECK_OK(fl_ice_txn_commit(x, NULL, &err), &err);
    /* a table nested in t's data folder by an old catalog */
    fl_table_ident nid = ident(&e, "db", "nested");
    const char *nloc = fl_arena_sprintf(&e.a, "%s/db/t/data/nested", e.wh);
    legacy_move(&e, &nid, nloc);
    /* foreign files: outside the warehouse, at its root, in the other
     * table, next to catalog.db, in the nested table, and files in t's own
     * folder that no writer made */
    fl_ice_data_file ff[3];
    const char *fp[3] = {path(&e, "outside/evil.parquet"),
                         fl_arena_sprintf(&e.a, "%s/root.parquet", e.wh), op};
    for (int i = 0; i < 2; i++)
        CHECK_OK(td_write_file(e.io, fp[i], 100 + 10 * i, 3, 1, &e.a, &ff[i], &err), &err);
    ff[2] = of;
    const char *np = fl_arena_sprintf(&e.a, "%s/data/n.parquet", nloc);
    fl_ice_data_file nf;
    CHECK_OK(td_write_file(e.io, np, 7, 2, 1, &e.a, &nf, &err), &err);
    const char *side = fl_arena_sprintf(&e.a, "%s/catalog.db.parquet", e.wh);
    write_text(side, "next to the catalog");
    const char *notes = fl_arena_sprintf(&e.a, "%s/db/t/data/notes.txt", e.wh);
    const char *loose = fl_arena_sprintf(&e.a, "%s/db/t/loose.parquet", e.wh);
    write_text(notes, "operator notes");
    write_text(loose, "not in data/ or metadata/");
    foreign fs[] = {{fp[0], {0}}, {fp[1], {0}}, {fp[2], {0}}, {np, {0}},
                    {side, {0}},  {notes, {0}}, {loose, {0}}, {e.db, {0}}};
    int nfs = (int)(sizeof fs / sizeof *fs);
    /* t commits a snapshot naming its own file and the three foreign ones
     * (as a crafted client manifest would), then removes them again */
    fl_ice_data_file mine;
    const char *mp = fl_arena_sprintf(&e.a, "%s/db/t/data/mine.parquet", e.wh);
    CHECK_OK(td_write_file(e.io, mp, 1, 4, 1, &e.a, &mine, &err), &err);
    fl_ice_data_file all[4] = {mine, ff[0], ff[1], ff[2]};
    CHECK_OK(fl_ice_txn_begin(t, &x, &err), &err);
    CHECK_OK(fl_ice_txn_append(x, all, 4, &err), &err);
    CHECK_OK(fl_ice_txn_commit(x, NULL, &err), &err);
    for (int i = 0; i < nfs; i++)
        fingerprint(&fs[i]);
    /* the crafted snapshot is refused by the commit check the server runs */
    CHECK_EQ_INT(fl_ice_new_files_check(e.io, NULL, &t->meta, &err), FL_EFORBIDDEN);
    CHECK(strstr(err.msg, "outside the table location") != NULL);
    const char *rm[] = {fp[0], fp[1], fp[2]};
    fl_ice_row_delta d = {.operation = "delete", .remove_data = rm, .nremove_data = 3};
    CHECK_OK(fl_ice_txn_begin(t, &x, &err), &err);
    CHECK_OK(fl_ice_txn_row_delta(x, &d, &err), &err);
    CHECK_OK(fl_ice_txn_commit(x, NULL, &err), &err);
    /* expiry: the foreign files are unreachable now, but not t's */
    fl_ice_expire_result r;
    CHECK_OK(fl_ice_txn_begin(t, &x, &err), &err);
    CHECK_OK(fl_ice_txn_expire_snapshots(x, txn_now_ms_test() + 1000, 1, &r, &err), &err);
    CHECK_OK(fl_ice_txn_commit(x, NULL, &err), &err);
    CHECK_EQ_INT(r.snapshots_expired, 1);
    CHECK_EQ_INT(r.files_outside, 3);
    CHECK_EQ_INT(r.data_files_deleted, 0);
    check_intact(fs, nfs);
    CHECK(access(mp, F_OK) == 0);
    /* orphan removal: a real orphan goes, nothing foreign does */
    const char *orphan = fl_arena_sprintf(&e.a, "%s/db/t/data/orphan.parquet", e.wh);
    write_text(orphan, "left by a killed writer");
    uint64_t count = 0;
    CHECK_OK(
        fl_ice_remove_orphan_files(t, txn_now_ms_test() + 60000, false, NULL, NULL, &count, &err),
        &err);
    CHECK(access(orphan, F_OK) != 0);
    check_intact(fs, nfs);
    CHECK(access(mp, F_OK) == 0);
    /* purge: t's files go, the foreign ones named again by a new snapshot stay */
    CHECK_OK(fl_ice_txn_begin(t, &x, &err), &err);
    CHECK_OK(fl_ice_txn_append(x, ff, 3, &err), &err);
    CHECK_OK(fl_ice_txn_commit(x, NULL, &err), &err);
    fl_table_ident tid = ident(&e, "db", "t");
    fl_ice_drop_result dr;
    CHECK_OK(fl_ice_table_drop_ex(e.cat, &tid, true, &dr, &err), &err);
    CHECK_EQ_INT(dr.files_outside, 3);
    CHECK(dr.files_deleted > 0);
    CHECK(access(mp, F_OK) != 0);
    check_intact(fs, nfs);
    /* the other table still reads its rows */
    CHECK_OK(fl_ice_table_refresh(o, &err), &err);
    int64_t rows = -1, sum = -1;
    CHECK_OK(td_scan(e.io, &o->meta, &rows, &sum, &err), &err);
    CHECK_EQ_INT(rows, 5);
out:
    fl_ice_table_free(t);
    fl_ice_table_free(o);
    env_close(&e);
}

static void test_orphans_refused(void)
{
    /* a table that an old catalog let sit at the warehouse root or outside
     * it: orphan removal refuses instead of emptying the folder */
    env e;
    CHECK(env_open(&e) == 0);
    fl_error err = {0};
    CHECK_OK(create(&e, "db", "w", NULL, NULL, NULL, false, NULL, &err), &err);
    fl_table_ident id = ident(&e, "db", "w");
    legacy_move(&e, &id, e.wh);
    fl_ice_table *t = NULL;
    CHECK_OK(fl_ice_table_load(e.cat, &id, &t, &err), &err);
    uint64_t count = 0;
    CHECK_EQ_INT(
        fl_ice_remove_orphan_files(t, txn_now_ms_test() + 60000, false, NULL, NULL, &count, &err),
        FL_EFORBIDDEN);
    CHECK(strstr(err.msg, "warehouse root") != NULL);
    CHECK(access(e.db, F_OK) == 0);
    fl_ice_table_free(t);
    env_close(&e);
}

int main(void)
{
    TEST_RUN(test_create_rules);
    TEST_RUN(test_catalog_db_inside);
    TEST_RUN(test_names);
    TEST_RUN(test_deleters);
    TEST_RUN(test_orphans_refused);
    return TEST_EXIT();
}
