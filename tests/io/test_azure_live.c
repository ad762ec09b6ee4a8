/*
 * test_azure_live.c - the Azure Blob FileIO against Azurite.
 *
 * Run by tests/interop/test_azure.sh, which starts Azurite (Shared Key and
 * SAS verified by Azurite itself) and a local OAuth2 token server. Bare
 * (ctest without the environment) it exits 77. Environment:
 * FLOE_TEST_AZURE_ENDPOINT ("http://127.0.0.1:<port>/devstoreaccount1"),
 * FLOE_TEST_AZURE_CONTAINER, AZURE_STORAGE_ACCOUNT / AZURE_STORAGE_KEY,
 * FLOE_TEST_AZURE_SAS (a valid account SAS), FLOE_TEST_AZURE_SAS_EXPIRED,
 * FLOE_TEST_AZURE_TOKEN_URL (the token server; optional).
 *
 * With arguments "create-container NAME" it creates a container, with
 * "count PREFIX" it prints how many blobs a prefix lists, and exits (the
 * shell test uses them around the table suite).
 *
 * Covers: put/get, ranged reads, past-the-end reads, empty blobs, a blob
 * replaced after open (FL_ECONFLICT), exclusive create and the two-writer
 * race (one wins, the other FL_EEXIST), abort leaves nothing (single and
 * multi-block), a 100 MB upload in 4 MiB blocks read back byte-equal and an
 * exclusive multi-block create onto an existing blob, listing 1100 blobs
 * written by 4 threads with a page size of 100 (marker continuation) and
 * object-store prefix semantics, remove (missing = success), missing blobs
 * and containers, a wrong key and a bad / expired SAS token (clear 403s),
 * odd names, every location form (abfss, abfs, wasbs, wasb) through the
 * routing FileIO, the OAuth2 client-credentials token (form, caching, a
 * refused secret), and a dead endpoint.
 */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "fileio_live.h"
#include "floe/azure.h"
#include "io/azure_internal.h"
#include "test.h"

static const char *container, *endpoint;
static fl_azure_config base_cfg;
static char cfg_storage[FL_AZURE_CONFIG_STORAGE];

static char *path_of(const char *name)
{
    static __thread char buf[2048];
    snprintf(buf, sizeof buf, "abfss://%s@devstoreaccount1.dfs.core.windows.net/%s", container,
             name);
    return buf;
}

static fl_fileio *open_cfg(const fl_azure_config *c)
{
    fl_fileio *io = NULL;
    fl_error err;
    if (fl_fileio_azure(c, &io, &err) != FL_OK)
        fprintf(stderr, "fl_fileio_azure: %s\n", err.msg);
    return io;
}

static fl_fileio *open_io(uint64_t block_size)
{
    fl_azure_config c = base_cfg;
    c.block_size = block_size;
    return open_cfg(&c);
}

static void test_put_get_ranges(void)
{
    fl_fileio *io = open_io(0);
    fl_error err;
    const char *data = "0123456789abcdefghij";
    CHECK_OK(live_put(io, path_of("basic/a.bin"), data, 20, FL_CREATE_OVERWRITE, &err), &err);
    fl_file *f = NULL;
    CHECK_OK(fl_fileio_open(io, path_of("basic/a.bin"), &f, &err), &err);
    if (f) {
        CHECK_EQ_INT(f->size, 20);
        char b[21] = {0};
        CHECK_OK(fl_file_read_at(f, 2, b, 4, &err), &err);
        CHECK_EQ_STR(b, "2345");
        memset(b, 0, sizeof b);
        CHECK_OK(fl_file_read_at(f, 17, b, 3, &err), &err);
        CHECK_EQ_STR(b, "hij");
        memset(b, 0, sizeof b);
        CHECK_OK(fl_file_read_at(f, 0, b, 20, &err), &err);
        CHECK_EQ_STR(b, data);
        CHECK_OK(fl_file_read_at(f, 20, b, 0, &err), &err);
        CHECK_EQ_INT(fl_file_read_at(f, 15, b, 6, &err), FL_ECORRUPT);
        CHECK(strstr(err.msg, "a.bin") != NULL && strstr(err.msg, "past the end") != NULL);
        CHECK_EQ_INT(f->bytes_read, 27);
        CHECK_EQ_INT(f->reads, 3);
        fl_file_close(f);
    }
    CHECK_OK(live_put(io, path_of("basic/empty"), "", 0, FL_CREATE_OVERWRITE, &err), &err);
    CHECK_OK(fl_fileio_open(io, path_of("basic/empty"), &f, &err), &err);
    if (f) {
        CHECK_EQ_INT(f->size, 0);
        CHECK_OK(fl_file_read_at(f, 0, NULL, 0, &err), &err);
        fl_file_close(f);
    }
    fl_fileio_destroy(io);
}

static void test_changed_object(void)
{
    fl_fileio *io = open_io(0);
    fl_error err;
    CHECK_OK(live_put(io, path_of("changed/x"), "abc", 3, FL_CREATE_OVERWRITE, &err), &err);
    fl_file *f = NULL;
    CHECK_OK(fl_fileio_open(io, path_of("changed/x"), &f, &err), &err);
    CHECK_OK(live_put(io, path_of("changed/x"), "abcdef", 6, FL_CREATE_OVERWRITE, &err), &err);
    if (f) {
        char b[3];
        CHECK_EQ_INT(fl_file_read_at(f, 0, b, 3, &err), FL_ECONFLICT);
        CHECK(strstr(err.msg, "changed since it was opened") != NULL);
        fl_file_close(f);
    }
    fl_fileio_destroy(io);
}

static void test_exclusive_create(void)
{
    fl_fileio *io = open_io(0);
    fl_error err;
    char key[128];
    snprintf(key, sizeof key, "excl/%ld.json", (long)getpid());
    CHECK_OK(live_put(io, path_of(key), "v1", 2, 0, &err), &err);
    CHECK_EQ_INT(live_put(io, path_of(key), "v2", 2, 0, &err), FL_EEXIST);
    fprintf(stderr, "  exists: %s\n", err.msg);
    CHECK(strstr(err.msg, path_of(key)) != NULL && strstr(err.msg, "already exists") != NULL);
    size_t n = 0;
    uint8_t *b = live_get(io, path_of(key), &n, &err);
    CHECK(b && n == 2 && memcmp(b, "v1", 2) == 0);
    free(b);
    CHECK_OK(live_put(io, path_of(key), "v3!", 3, FL_CREATE_OVERWRITE, &err), &err);
    b = live_get(io, path_of(key), &n, &err);
    CHECK(b && n == 3 && memcmp(b, "v3!", 3) == 0);
    free(b);

    /* the race: both writers open before either commits; exactly one wins */
    snprintf(key, sizeof key, "excl/race-%ld", (long)getpid());
    fl_output *o1 = NULL, *o2 = NULL;
    CHECK_OK(fl_fileio_create(io, path_of(key), 0, &o1, &err), &err);
    CHECK_OK(fl_fileio_create(io, path_of(key), 0, &o2, &err), &err);
    if (o1 && o2) {
        CHECK_OK(fl_output_write(o1, "first", 5, &err), &err);
        CHECK_OK(fl_output_write(o2, "second", 6, &err), &err);
        CHECK_OK(fl_output_close(o1, &err), &err);
        CHECK_EQ_INT(fl_output_close(o2, &err), FL_EEXIST);
    }
    b = live_get(io, path_of(key), &n, &err);
    CHECK(b && n == 5 && memcmp(b, "first", 5) == 0);
    free(b);
    /* an aborted output leaves nothing */
    snprintf(key, sizeof key, "excl/aborted-%ld", (long)getpid());
    CHECK_OK(fl_fileio_create(io, path_of(key), 0, &o1, &err), &err);
    if (o1) {
        CHECK_OK(fl_output_write(o1, "x", 1, &err), &err);
        fl_output_abort(o1);
    }
    fl_file *f = NULL;
    CHECK_EQ_INT(fl_fileio_open(io, path_of(key), &f, &err), FL_ENOTFOUND);
    fl_fileio_destroy(io);
}

/* Racing threads: of 8 creators of one name exactly one wins. */
typedef struct racer {
    fl_fileio *io;
    const char *path;
    int id;
    fl_status rc;
} racer;

static void *race_thread(void *p)
{
    racer *r = p;
    char body[32];
    int n = snprintf(body, sizeof body, "writer-%d", r->id);
    fl_error err;
    r->rc = live_put(r->io, r->path, body, (size_t)n, 0, &err);
    return NULL;
}

static void test_threaded_race(void)
{
    fl_fileio *io = open_io(0);
    char key[128];
    snprintf(key, sizeof key, "excl/threads-%ld", (long)getpid());
    racer rs[8];
    pthread_t th[8];
    for (int i = 0; i < 8; i++) {
        rs[i] = (racer){io, path_of(key), i, FL_OK};
        pthread_create(&th[i], NULL, race_thread, &rs[i]);
    }
    int wins = 0, exists = 0, winner = -1;
    for (int i = 0; i < 8; i++) {
        pthread_join(th[i], NULL);
        if (rs[i].rc == FL_OK)
            wins++, winner = i;
        else if (rs[i].rc == FL_EEXIST)
            exists++;
    }
    CHECK_EQ_INT(wins, 1);
    CHECK_EQ_INT(exists, 7);
    fl_error err;
    size_t n = 0;
    uint8_t *b = live_get(io, path_of(key), &n, &err);
    char want[32];
    snprintf(want, sizeof want, "writer-%d", winner);
    CHECK(b && n == strlen(want) && memcmp(b, want, n) == 0);
    free(b);
    fl_fileio_destroy(io);
}

#define BLOCK ((uint64_t)4 << 20)
#define BIG ((size_t)100 * 1000 * 1000)

static void test_blocks(void)
{
    fl_fileio *io = open_io(BLOCK);
    fl_error err;
    uint8_t *data = malloc(BIG);
    for (size_t i = 0; i < BIG; i++)
        data[i] = live_gen(i);
    fl_output *o = NULL;
    CHECK_OK(fl_fileio_create(io, path_of("big/100mb.bin"), FL_CREATE_OVERWRITE, &o, &err), &err);
    /* odd write sizes, so blocks are cut across writes */
    for (size_t off = 0; o && off < BIG;) {
        size_t n = BIG - off < 777777 ? BIG - off : 777777;
        CHECK_OK(fl_output_write(o, data + off, n, &err), &err);
        off += n;
    }
    /* invisible until close */
    fl_file *f = NULL;
    CHECK_EQ_INT(fl_fileio_open(io, path_of("big/100mb.bin"), &f, &err), FL_ENOTFOUND);
    if (o)
        CHECK_OK(fl_output_close(o, &err), &err);
    CHECK_OK(fl_fileio_open(io, path_of("big/100mb.bin"), &f, &err), &err);
    if (f) {
        CHECK_EQ_INT(f->size, BIG);
        uint8_t *back = malloc(BIG);
        size_t chunk = (size_t)9 << 20; /* crosses block boundaries */
        for (size_t off = 0; off < BIG; off += chunk) {
            size_t n = BIG - off < chunk ? BIG - off : chunk;
            CHECK_OK(fl_file_read_at(f, off, back + off, n, &err), &err);
        }
        CHECK(memcmp(back, data, BIG) == 0);
        free(back);
        fl_file_close(f);
    }
    /* an exclusive multi-block create onto an existing blob loses */
    CHECK_EQ_INT(live_put(io, path_of("big/100mb.bin"), data, 10 << 20, 0, &err), FL_EEXIST);
    CHECK(strstr(err.msg, "Put Block List") != NULL);
    /* an aborted multi-block upload leaves nothing */
    CHECK_OK(fl_fileio_create(io, path_of("big/aborted.bin"), 0, &o, &err), &err);
    if (o) {
        CHECK_OK(fl_output_write(o, data, 10 << 20, &err), &err);
        fl_output_abort(o);
    }
    CHECK_EQ_INT(fl_fileio_open(io, path_of("big/aborted.bin"), &f, &err), FL_ENOTFOUND);
    live_collect c = {0};
    CHECK_OK(io->ops->list(io, path_of("big/"), live_collect_fn, &c, &err), &err);
    CHECK_EQ_INT(c.n, 1);
    live_collect_free(&c);
    CHECK_OK(fl_fileio_remove(io, path_of("big/100mb.bin"), &err), &err);
    free(data);
    fl_fileio_destroy(io);
}

typedef struct writer_arg {
    fl_fileio *io;
    int from, to, failures;
} writer_arg;

static void *writer(void *p)
{
    writer_arg *a = p;
    for (int i = a->from; i < a->to; i++) {
        char key[64], body[32];
        snprintf(key, sizeof key, "many/k%05d", i);
        int n = snprintf(body, sizeof body, "%d", i);
        fl_error err;
        if (live_put(a->io, path_of(key), body, (size_t)n, FL_CREATE_OVERWRITE, &err) != FL_OK) {
            fprintf(stderr, "writer: %s\n", err.msg);
            a->failures++;
        }
    }
    return NULL;
}

#define MANY 1100

static void test_list_paging_and_remove(void)
{
    fl_azure_config cfg = base_cfg;
    cfg.list_page_size = 100;
    fl_fileio *io = open_cfg(&cfg);
    writer_arg w[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        w[i] = (writer_arg){io, i * MANY / 4, (i + 1) * MANY / 4, 0};
        pthread_create(&th[i], NULL, writer, &w[i]);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        CHECK_EQ_INT(w[i].failures, 0);
    }
    fl_error err;
    CHECK_OK(live_put(io, path_of("many2/x"), "x", 1, FL_CREATE_OVERWRITE, &err), &err);
    live_collect c = {0};
    CHECK_OK(io->ops->list(io, path_of("many/"), live_collect_fn, &c, &err), &err);
    CHECK_EQ_INT(c.n, MANY);
    uint64_t want = 0;
    for (int i = 0; i < MANY; i++) {
        char b[16];
        want += (uint64_t)snprintf(b, sizeof b, "%d", i);
    }
    CHECK_EQ_INT(c.total, want);
    CHECK(c.n && strcmp(c.paths[0], path_of("many/k00000")) == 0);
    live_collect_free(&c);
    /* object-store prefix semantics: "many" matches many/ and many2/ */
    CHECK_OK(io->ops->list(io, path_of("many"), live_collect_fn, &c, &err), &err);
    CHECK_EQ_INT(c.n, MANY + 1);
    /* wasbs:// prefixes give wasbs:// paths */
    live_collect_free(&c);
    char wp[256];
    snprintf(wp, sizeof wp, "wasbs://%s@devstoreaccount1.blob.core.windows.net/many2", container);
    CHECK_OK(io->ops->list(io, wp, live_collect_fn, &c, &err), &err);
    CHECK(c.n == 1 && strstr(c.paths[0], "wasbs://") == c.paths[0]);
    live_collect_free(&c);
    /* remove them all (fl_s3_delete_many removes non-S3 paths one by one) */
    CHECK_OK(io->ops->list(io, path_of("many"), live_collect_fn, &c, &err), &err);
    for (size_t i = 0; i < c.n; i++)
        CHECK_OK(fl_fileio_remove(io, c.paths[i], &err), &err);
    live_collect_free(&c);
    CHECK_OK(io->ops->list(io, path_of("many"), live_collect_fn, &c, &err), &err);
    CHECK_EQ_INT(c.n, 0);
    live_collect_free(&c);
    fl_fileio_destroy(io);
}

static void test_remove_and_missing(void)
{
    fl_fileio *io = open_io(0);
    fl_error err;
    CHECK_OK(fl_fileio_remove(io, path_of("never/was"), &err), &err);
    fl_file *f = NULL;
    CHECK_EQ_INT(fl_fileio_open(io, path_of("never/was"), &f, &err), FL_ENOTFOUND);
    CHECK(strstr(err.msg, "never/was") != NULL && strstr(err.msg, "HTTP 404") != NULL);
    const char *nc = "abfss://no-such-container@devstoreaccount1.dfs.core.windows.net/x";
    CHECK_EQ_INT(fl_fileio_open(io, nc, &f, &err), FL_ENOTFOUND);
    live_collect c = {0};
    CHECK_OK(io->ops->list(io, nc, live_collect_fn, &c, &err), &err);
    CHECK_EQ_INT(c.n, 0);
    CHECK_EQ_INT(fl_fileio_open(io, "abfss://Bad_Name@acct.dfs.core.windows.net/x", &f, &err),
                 FL_EINVAL);
    CHECK(strstr(err.msg, "invalid container name") != NULL);
    CHECK_EQ_INT(fl_fileio_open(io, "abfss://container/x", &f, &err), FL_EINVAL);
    fl_fileio_destroy(io);
}

static void test_wrong_key(void)
{
    fl_azure_config cfg = base_cfg;
    cfg.account_key = "d3Jvbmcta2V5LXdyb25nLWtleS13cm9uZy1rZXk=";
    fl_fileio *io = open_cfg(&cfg);
    fl_error err;
    CHECK_EQ_INT(live_put(io, path_of("denied/x"), "x", 1, FL_CREATE_OVERWRITE, &err), FL_EIO);
    fprintf(stderr, "  wrong key: %s\n", err.msg);
    CHECK(strstr(err.msg, path_of("denied/x")) != NULL);
    CHECK(strstr(err.msg, "Put Blob: HTTP 403 Authori") != NULL);
    CHECK(strstr(err.msg, "check the account key") != NULL);
    fl_file *f = NULL;
    CHECK_EQ_INT(fl_fileio_open(io, path_of("basic/a.bin"), &f, &err), FL_EIO);
    CHECK(strstr(err.msg, "HTTP 403 Authori") != NULL);
    live_collect c = {0};
    CHECK_EQ_INT(io->ops->list(io, path_of("basic/"), live_collect_fn, &c, &err), FL_EIO);
    CHECK(strstr(err.msg, "List Blobs: HTTP 403") != NULL);
    fl_fileio_destroy(io);
    /* a key that is not base64 is refused at creation */
    cfg.account_key = "not base64!";
    CHECK_EQ_INT(fl_fileio_azure(&cfg, &io, &err), FL_EINVAL);
    CHECK(strstr(err.msg, "base64") != NULL);
}

static void test_sas(void)
{
    const char *sas = getenv("FLOE_TEST_AZURE_SAS"), *old = getenv("FLOE_TEST_AZURE_SAS_EXPIRED");
    if (!sas || !old) {
        fprintf(stderr, "  (no SAS tokens given)\n");
        CHECK(false);
        return;
    }
    fl_azure_config cfg = base_cfg;
    cfg.account_key = NULL;
    cfg.sas_token = sas;
    fl_fileio *io = open_cfg(&cfg);
    fl_error err;
    CHECK_OK(live_put(io, path_of("sas/one"), "sas!", 4, FL_CREATE_OVERWRITE, &err), &err);
    size_t n = 0;
    uint8_t *b = live_get(io, path_of("sas/one"), &n, &err);
    CHECK(b && n == 4 && memcmp(b, "sas!", 4) == 0);
    free(b);
    live_collect c = {0};
    CHECK_OK(io->ops->list(io, path_of("sas/"), live_collect_fn, &c, &err), &err);
    CHECK_EQ_INT(c.n, 1);
    live_collect_free(&c);
    CHECK_OK(fl_fileio_remove(io, path_of("sas/one"), &err), &err);
    fl_fileio_destroy(io);

    cfg.sas_token = old;
    io = open_cfg(&cfg);
    fl_file *f = NULL;
    CHECK_EQ_INT(fl_fileio_open(io, path_of("basic/a.bin"), &f, &err), FL_EIO);
    fprintf(stderr, "  expired SAS: %s\n", err.msg);
    CHECK(strstr(err.msg, "HTTP 403") != NULL && strstr(err.msg, "SAS token expired at") != NULL);
    CHECK(strstr(err.msg, "sig=") == NULL);
    fl_fileio_destroy(io);

    /* a tampered signature */
    char bad[2048];
    snprintf(bad, sizeof bad, "%s", sas);
    char *sig = strstr(bad, "sig=");
    if (sig && sig[4])
        sig[4] = sig[4] == 'A' ? 'B' : 'A';
    cfg.sas_token = bad;
    io = open_cfg(&cfg);
    CHECK_EQ_INT(live_put(io, path_of("sas/two"), "x", 1, 0, &err), FL_EIO);
    fprintf(stderr, "  bad SAS: %s\n", err.msg);
    CHECK(strstr(err.msg, "HTTP 403 Authori") != NULL &&
          strstr(err.msg, "SAS token was refused") != NULL);
    fl_fileio_destroy(io);
}

static void test_odd_names(void)
{
    fl_fileio *io = open_io(0);
    const char *names[] = {"odd/with space.txt", "odd/plus+equals=.txt", "odd/percent%41.txt",
                           "odd/utf8-\xc3\xa9\xe2\x82\xac.txt", "odd/~tilde(paren)!*'&;,:@$"};
    fl_error err;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        CHECK_OK(
            live_put(io, path_of(names[i]), names[i], strlen(names[i]), FL_CREATE_OVERWRITE, &err),
            &err);
        size_t n = 0;
        uint8_t *b = live_get(io, path_of(names[i]), &n, &err);
        CHECK(b && n == strlen(names[i]) && memcmp(b, names[i], n) == 0);
        free(b);
    }
    live_collect c = {0};
    CHECK_OK(io->ops->list(io, path_of("odd/"), live_collect_fn, &c, &err), &err);
    CHECK_EQ_INT(c.n, sizeof names / sizeof *names);
    for (size_t i = 0; i < c.n; i++) {
        bool found = false;
        for (size_t j = 0; j < sizeof names / sizeof *names; j++)
            found |= strcmp(c.paths[i], path_of(names[j])) == 0;
        CHECK(found);
    }
    live_collect_free(&c);
    fl_fileio_destroy(io);
}

static void test_routing_and_schemes(void)
{
    fl_fileio *io = NULL;
    fl_error err;
    CHECK_OK(fl_fileio_routing(NULL, &base_cfg, &io, &err), &err);
    if (!io)
        return;
    char p[4][256];
    snprintf(p[0], 256, "abfss://%s@devstoreaccount1.dfs.core.windows.net/route/x", container);
    snprintf(p[1], 256, "abfs://%s@devstoreaccount1.dfs.core.windows.net/route/x", container);
    snprintf(p[2], 256, "wasbs://%s@devstoreaccount1.blob.core.windows.net/route/x", container);
    snprintf(p[3], 256, "wasb://%s@devstoreaccount1.blob.core.windows.net/route/x", container);
    CHECK_OK(live_put(io, p[0], "routed", 6, FL_CREATE_OVERWRITE, &err), &err);
    for (int i = 0; i < 4; i++) {
        size_t n = 0;
        uint8_t *b = live_get(io, p[i], &n, &err);
        CHECK(b && n == 6 && memcmp(b, "routed", 6) == 0);
        free(b);
    }
    /* local paths still go to disk */
    char local[64];
    snprintf(local, sizeof local, "/tmp/floe-azure-route-%ld", (long)getpid());
    CHECK_OK(live_put(io, local, "disk", 4, FL_CREATE_OVERWRITE, &err), &err);
    CHECK(access(local, F_OK) == 0);
    unlink(local);
    fl_fileio_destroy(io);
}

/* Properties as Iceberg's ADLSFileIO names them. */
static void test_properties(void)
{
    fl_azure_config cfg;
    char storage[FL_AZURE_CONFIG_STORAGE] = {0};
    memset(&cfg, 0, sizeof cfg);
    fl_error err;
    char cs[512];
    snprintf(cs, sizeof cs,
             "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=%s;"
             "BlobEndpoint=%s;",
             base_cfg.account_key, endpoint);
    CHECK_OK(fl_azure_config_set(&cfg, storage,
                                 "adls.connection-string.devstoreaccount1.dfs.core.windows.net", cs,
                                 &err),
             &err);
    CHECK_EQ_INT(cfg.naccounts, 1);
    fl_fileio *io = open_cfg(&cfg);
    size_t n = 0;
    uint8_t *b = io ? live_get(io, path_of("route/x"), &n, &err) : NULL;
    CHECK(b && n == 6);
    free(b);
    fl_fileio_destroy(io);
    /* a per-account SAS wins over the shared key */
    const char *old = getenv("FLOE_TEST_AZURE_SAS_EXPIRED");
    CHECK_OK(fl_azure_config_set(&cfg, storage, "adls.sas-token.devstoreaccount1", old, &err),
             &err);
    io = open_cfg(&cfg);
    fl_file *f = NULL;
    CHECK_EQ_INT(fl_fileio_open(io, path_of("route/x"), &f, &err), FL_EIO);
    CHECK(strstr(err.msg, "expired") != NULL);
    fl_fileio_destroy(io);
    /* shared-key properties */
    memset(&cfg, 0, sizeof cfg);
    CHECK_OK(fl_azure_config_set(&cfg, storage, "adls.auth.shared-key.account.name",
                                 "devstoreaccount1", &err),
             &err);
    CHECK_OK(fl_azure_config_set(&cfg, storage, "adls.auth.shared-key.account.key",
                                 base_cfg.account_key, &err),
             &err);
    CHECK_OK(fl_azure_config_set(&cfg, storage, "adls.endpoint", endpoint, &err), &err);
    CHECK_EQ_INT(fl_azure_config_set(&cfg, storage, "adls.write.block-size-bytes", "zero", &err),
                 FL_EINVAL);
    io = open_cfg(&cfg);
    b = io ? live_get(io, path_of("route/x"), &n, &err) : NULL;
    CHECK(b && n == 6);
    free(b);
    fl_fileio_destroy(io);
}

static void test_oauth_token(void)
{
    const char *url = getenv("FLOE_TEST_AZURE_TOKEN_URL");
    if (!url) {
        fprintf(stderr, "  (no token server)\n");
        CHECK(false);
        return;
    }
    io_http_config hc = {2, 2000, NULL, "Azure"};
    io_http *http = NULL;
    fl_error err;
    CHECK_OK(io_http_new(&hc, &http, &err), &err);
    azure_token *t = NULL;
    CHECK_OK(azure_token_new(url, "tenant-1", "client-1", "secret one&two", http, &t, &err), &err);
    char tok[4096];
    for (int i = 0; t && i < 3; i++) {
        CHECK_OK(azure_token_get(t, tok, sizeof tok, &err), &err);
        CHECK(strncmp(tok, "token-for-client-1-", 19) == 0);
    }
    if (t)
        CHECK_EQ_INT(azure_token_fetches(t), 1); /* cached */
    azure_token_free(t);
    CHECK_OK(azure_token_new(url, "tenant-1", "client-1", "wrong", http, &t, &err), &err);
    if (t) {
        CHECK_EQ_INT(azure_token_get(t, tok, sizeof tok, &err), FL_EIO);
        fprintf(stderr, "  refused secret: %s\n", err.msg);
        CHECK(strstr(err.msg, "HTTP 401 invalid_client") != NULL &&
              strstr(err.msg, "AADSTS7000215") != NULL);
    }
    azure_token_free(t);
    /* a short-lived token is refreshed */
    CHECK_OK(azure_token_new(url, "tenant-1", "short-lived", "secret one&two", http, &t, &err),
             &err);
    if (t) {
        CHECK_OK(azure_token_get(t, tok, sizeof tok, &err), &err);
        sleep(2);
        CHECK_OK(azure_token_get(t, tok, sizeof tok, &err), &err);
        CHECK_EQ_INT(azure_token_fetches(t), 2);
    }
    azure_token_free(t);
    io_http_free(http);
    /* the FileIO sends the bearer token: Azurite over plain http refuses
     * OAuth, so the request reaches it and is answered 403, not sent
     * unauthenticated */
    fl_azure_config cfg = base_cfg;
    cfg.account_key = NULL;
    cfg.tenant_id = "tenant-1";
    cfg.client_id = "client-1";
    cfg.client_secret = "secret one&two";
    cfg.token_endpoint = url;
    fl_fileio *io = open_cfg(&cfg);
    fl_file *f = NULL;
    CHECK(io && fl_fileio_open(io, path_of("basic/a.bin"), &f, &err) != FL_OK);
    fprintf(stderr, "  bearer over http: %s\n", err.msg);
    fl_fileio_destroy(io);
}

static void test_dead_endpoint(void)
{
    fl_azure_config c = base_cfg;
    c.endpoint = "http://127.0.0.1:9/devstoreaccount1";
    c.max_retries = 2;
    c.connect_timeout_ms = 1000;
    fl_fileio *io = open_cfg(&c);
    fl_error err;
    fl_file *f = NULL;
    if (io)
        CHECK_EQ_INT(fl_fileio_open(io, path_of("x"), &f, &err), FL_EIO);
    fprintf(stderr, "  dead endpoint: %s\n", err.msg);
    CHECK(strstr(err.msg, path_of("x")) != NULL && strstr(err.msg, "127.0.0.1:9") != NULL &&
          strstr(err.msg, "3 attempts") != NULL);
    fl_fileio_destroy(io);
}

static int create_container(const char *name)
{
    fl_fileio *io = open_io(0);
    azure_client *c = NULL;
    fl_error err;
    if (azure_client_new(&base_cfg, &c, &err) != FL_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    io_kv q[1] = {{"restype", "container"}};
    azure_request rq = {
        .method = "PUT", .account = "devstoreaccount1", .container = name, .query = q, .nquery = 1};
    io_http_response r;
    fl_status rc = azure_send(c, &rq, name, &r, &err);
    if (rc == FL_OK && r.status != 201 && r.status != 409)
        rc = azure_http_error(c, &r, "devstoreaccount1", name, "Create Container", &err);
    io_http_response_free(&r);
    if (rc != FL_OK)
        fprintf(stderr, "%s\n", err.msg);
    azure_client_free(c);
    fl_fileio_destroy(io);
    return rc == FL_OK ? 0 : 1;
}

int main(int argc, char **argv)
{
    endpoint = getenv("FLOE_TEST_AZURE_ENDPOINT");
    container = getenv("FLOE_TEST_AZURE_CONTAINER");
    if (!endpoint || !*endpoint || !container || !*container) {
        printf("skipped: FLOE_TEST_AZURE_ENDPOINT not set (run tests/interop/test_azure.sh)\n");
        return 77;
    }
    fl_error err;
    if (fl_azure_config_from_env(&base_cfg, cfg_storage, &err) != FL_OK) {
        fprintf(stderr, "config: %s\n", err.msg);
        return 1;
    }
    base_cfg.endpoint = endpoint;
    if (argc == 3 && strcmp(argv[1], "create-container") == 0)
        return create_container(argv[2]);
    if (argc == 3 && strcmp(argv[1], "count") == 0) { /* blobs under a prefix */
        fl_fileio *io = open_io(0);
        live_collect c = {0};
        fl_status rc = io ? io->ops->list(io, argv[2], live_collect_fn, &c, &err) : FL_EIO;
        if (rc == FL_OK)
            printf("%zu\n", c.n);
        else
            fprintf(stderr, "%s\n", io ? err.msg : "no FileIO");
        live_collect_free(&c);
        fl_fileio_destroy(io);
        return rc == FL_OK ? 0 : 1;
    }
    if (create_container(container) != 0)
        return 1;
    TEST_RUN(test_put_get_ranges);
    TEST_RUN(test_changed_object);
    TEST_RUN(test_exclusive_create);
    TEST_RUN(test_threaded_race);
    TEST_RUN(test_blocks);
    TEST_RUN(test_list_paging_and_remove);
    TEST_RUN(test_remove_and_missing);
    TEST_RUN(test_wrong_key);
    TEST_RUN(test_sas);
    TEST_RUN(test_odd_names);
    TEST_RUN(test_routing_and_schemes);
    TEST_RUN(test_properties);
    TEST_RUN(test_oauth_token);
    TEST_RUN(test_dead_endpoint);
    return TEST_EXIT();
}
