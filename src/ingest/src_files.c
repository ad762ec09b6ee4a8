/*
 * src_files.c - the landing-files source (include/floe/ingest.h): a local
 * folder polled for CSV, JSON lines and Parquet files, each ingested once.
 *
 * Identity. A file is "file:<absolute path>" in the sink's positions ('%',
 * control bytes and, in names that are not UTF-8, bytes >= 0x80 as %XX), valued
 * "<size>:<mtime_ns>:done:<rows>" or "<size>:<mtime_ns>:error:<message>".
 * A listed file whose "<size>:<mtime_ns>" matches its position is skipped,
 * so a file listed twice (two polls, a restart) is ingested once; a file
 * rewritten in place (new size or mtime) is ingested again. Position and
 * rows commit in one snapshot, so a crash never separates them.
 *
 * Stability. A file is taken only once a poll sees the same size and mtime
 * as the previous poll: a writer still appending is waited for. Writers
 * that rename into place (the recommended way) can use ".tmp" names or
 * names starting with '.', which are never taken.
 *
 * Bad files do not stall the pipeline: every file is read twice, a first
 * pass that parses and converts everything (required columns checked for
 * nulls) without writing, and only then the pass that writes. A file whose
 * first pass fails on its content (syntax, types, shape, corruption) is
 * logged to stderr and marked done-with-error; its rows never reach the
 * sink. Other first-pass failures (the file vanished, I/O, memory) leave it
 * for the next poll. A second-pass failure ends the poll with an error:
 * rows already in the sink cannot be taken back, so the caller must drop
 * the uncommitted checkpoint (close the sink) and restart. (Cost: twice the parsing of each file; a
 * dead-letter table with the raw payload is not done yet, see README.md.)
 *
 * Ownership: the source owns its copy of the folder name and the listing of
 * the previous poll; the sink is borrowed per call.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "floe/parquet.h"
#include "floe/text.h"
#include "ingest/ingest_int.h"

typedef enum file_kind { FK_NONE, FK_CSV, FK_JSONL, FK_PARQUET } file_kind;

typedef struct listed {
    char *path;
    uint64_t size;
    int64_t mtime_ns;
} listed;

typedef struct listing {
    listed *v;
    uint32_t n, cap;
} listing;

struct fl_ingest_files {
    char *folder;
    fl_ingest_sink *dlq; /* borrowed, may be NULL */
    listing prev;        /* the previous poll, sorted by path */
};

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcasecmp(s + n - m, suffix);
}

static file_kind kind_of(const char *name)
{
    if (name[0] == '.' || ends_with(name, ".tmp"))
        return FK_NONE;
    if (ends_with(name, ".csv") || ends_with(name, ".tsv"))
        return FK_CSV;
    if (ends_with(name, ".jsonl") || ends_with(name, ".ndjson") || ends_with(name, ".json"))
        return FK_JSONL;
    if (ends_with(name, ".parquet") || ends_with(name, ".pq"))
        return FK_PARQUET;
    return FK_NONE;
}

static void listing_free(listing *l)
{
    for (uint32_t i = 0; i < l->n; i++)
        free(l->v[i].path);
    free(l->v);
    memset(l, 0, sizeof *l);
}

static int cmp_listed(const void *a, const void *b)
{
    return strcmp(((const listed *)a)->path, ((const listed *)b)->path);
}

static const listed *listing_find(const listing *l, const char *path)
{
    listed key = {.path = (char *)path};
    return l->n ? bsearch(&key, l->v, l->n, sizeof *l->v, cmp_listed) : NULL;
}

static fl_status list_folder(const char *folder, listing *out, fl_error *err)
{
    memset(out, 0, sizeof *out);
    DIR *d = opendir(folder);
    if (!d)
        return fl_errorf(err, FL_EIO, "%s: %s", folder, strerror(errno));
    struct dirent *de;
    fl_status rc = FL_OK;
    while (rc == FL_OK && (de = readdir(d))) {
        if (kind_of(de->d_name) == FK_NONE)
            continue;
        size_t n = strlen(folder) + strlen(de->d_name) + 2;
        char *path = malloc(n);
        if (!path) {
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
            break;
        }
        snprintf(path, n, "%s/%s", folder, de->d_name);
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) { /* gone, or not a file */
            free(path);
            continue;
        }
        if (out->n == out->cap) {
            uint32_t cap = out->cap ? out->cap * 2 : 64;
            listed *nv = realloc(out->v, cap * sizeof *nv);
            if (!nv) {
                free(path);
                rc = fl_errorf(err, FL_ENOMEM, "out of memory");
                break;
            }
            out->v = nv;
            out->cap = cap;
        }
        out->v[out->n++] =
            (listed){.path = path,
                     .size = (uint64_t)st.st_size,
                     .mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec};
    }
    closedir(d);
    if (rc != FL_OK) {
        listing_free(out);
        return rc;
    }
    if (out->n)
        qsort(out->v, out->n, sizeof *out->v, cmp_listed);
    return FL_OK;
}

fl_status fl_ingest_files_open(const char *folder, fl_ingest_files **out, fl_error *err)
{
    struct stat st;
    if (stat(folder, &st) != 0 || !S_ISDIR(st.st_mode))
        return fl_errorf(err, FL_ENOTFOUND, "%s: not a folder", folder);
    fl_ingest_files *f = calloc(1, sizeof *f);
    /* absolute: positions name files the same from any working directory */
    if (!f || !(f->folder = realpath(folder, NULL))) {
        free(f);
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    }
    size_t n = strlen(f->folder);
    while (n > 1 && f->folder[n - 1] == '/')
        f->folder[--n] = '\0';
    *out = f;
    return FL_OK;
}

void fl_ingest_files_set_dead_letter(fl_ingest_files *f, fl_ingest_sink *dlq)
{
    f->dlq = dlq;
}

void fl_ingest_files_close(fl_ingest_files *f)
{
    if (!f)
        return;
    listing_free(&f->prev);
    free(f->folder);
    free(f);
}

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- reading one file ---- */

/* A Parquet file as an fl_source (the CLI's pq_source, in the library). */
typedef struct pq_src {
    fl_source base;
    fl_fileio *io;
    fl_file *file;
    fl_parquet_reader *reader;
    fl_parquet_scan *scan;
} pq_src;

static fl_status pq_next(fl_source *base, fl_batch *b, bool *eof, fl_error *err)
{
    return fl_parquet_scan_next(((pq_src *)base)->scan, b, eof, err);
}

static void pq_close(fl_source *base)
{
    pq_src *s = (pq_src *)base;
    fl_parquet_scan_close(s->scan);
    fl_parquet_close(s->reader);
    fl_file_close(s->file);
    fl_fileio_destroy(s->io);
    free(s);
}

static const fl_source_ops PQ_OPS = {pq_next, pq_close};

static fl_status pq_open(const char *path, fl_source **out, fl_error *err)
{
    pq_src *s = calloc(1, sizeof *s);
    if (!s)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    s->base.ops = &PQ_OPS;
    fl_status rc = (s->io = fl_fileio_local()) ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
    if (rc == FL_OK)
        rc = fl_fileio_open(s->io, path, &s->file, err);
    fl_parquet_read_options ro = {0};
    if (rc == FL_OK)
        rc = fl_parquet_open(s->file, &ro, &s->reader, err);
    fl_parquet_scan_options so = {0};
    if (rc == FL_OK)
        rc = fl_parquet_scan_open(s->reader, &so, &s->scan, err);
    if (rc != FL_OK) {
        pq_close(&s->base);
        return rc;
    }
    s->base.schema = fl_parquet_scan_schema(s->scan);
    s->base.parquet = s->reader;
    *out = &s->base;
    return FL_OK;
}

/* One pass over the file: converts every batch; writes them to s when
 * write (else only checks). *sink_failed tells a sink error from a file error. */
static fl_status read_pass(const char *path, file_kind k, fl_ingest_sink *s, bool write,
                           uint64_t *rows, bool *sink_failed, fl_error *err)
{
    const fl_schema *table = fl_ingest_sink_schema(s);
    fl_arena a;
    fl_arena_init(&a, 0);
    fl_source *src = NULL;
    *rows = 0;
    fl_status rc = k == FK_PARQUET ? pq_open(path, &src, err)
                                   : ing_open_text(NULL, path, k == FK_CSV, table, &a, &src, err);
    if (rc == FL_OK)
        rc = ing_pump(src, table, fl_ingest_sink_ice_schema(s), path, false, write ? s : NULL, rows,
                      sink_failed, err);
    fl_source_close(src);
    fl_arena_free(&a);
    return rc;
}

/* Errors that are the file's content (taking it again gives the same). */
static bool bad_content(fl_status rc)
{
    return rc == FL_ESYNTAX || rc == FL_ETYPE || rc == FL_EINVAL || rc == FL_ECORRUPT ||
           rc == FL_EOVERFLOW || rc == FL_EUNSUPPORTED || rc == FL_ELIMIT || rc == FL_ECHECKSUM;
}

/* msg as printable ASCII (other bytes '?'): it goes into a position. */
static void ascii_only(char *msg)
{
    for (unsigned char *p = (unsigned char *)msg; *p; p++)
        if (*p < 0x20 || *p >= 0x7f)
            *p = '?';
}

/* The first FL_INGEST_DEAD_LETTER_MAX_PAYLOAD bytes of path (malloc'd), or NULL. */
static void *slurp_head(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    void *buf = fp ? malloc(FL_INGEST_DEAD_LETTER_MAX_PAYLOAD) : NULL;
    *len = buf ? fread(buf, 1, FL_INGEST_DEAD_LETTER_MAX_PAYLOAD, fp) : 0;
    if (fp)
        fclose(fp);
    return buf;
}

/* A failed file into the dead-letter sink, once per content identity. */
static fl_status dead_letter(fl_ingest_sink *dlq, fl_ingest_sink *s, const listed *l,
                             const char *key, const char *val, const char *msg, fl_error *err)
{
    const char *had = fl_ingest_sink_position(dlq, key);
    if (had && !strcmp(had, val))
        return FL_OK; /* recorded before a restart */
    size_t len = 0;
    void *payload = slurp_head(l->path, &len);
    fl_status rc = fl_ingest_dead_letter_write(dlq, fl_ingest_sink_name(s), l->path, msg, payload,
                                               len, key, val, err);
    free(payload);
    return rc;
}

static fl_status ingest_one(fl_ingest_files *f, const listed *l, file_kind k, fl_ingest_sink *s,
                            const char *key, fl_ingest_files_stats *st, fl_error *err)
{
    uint64_t rows = 0;
    bool sink_failed = false;
    fl_error ferr = {0};
    char val[512];
    fl_status rc = read_pass(l->path, k, s, false, &rows, &sink_failed, &ferr);
    if (rc == FL_OK) {
        /* rows reach the sink now and cannot be taken back: any failure
         * (the sink's, or the file changing under us) ends the poll, and
         * the uncommitted checkpoint dies with the caller */
        rc = read_pass(l->path, k, s, true, &rows, &sink_failed, err);
        if (rc != FL_OK)
            return fl_error_prefix(err, "%s", l->path);
    }
    if (rc != FL_OK && !bad_content(rc)) { /* vanished, I/O, memory: try again next poll */
        fprintf(stderr, "floe ingest: will retry: %s\n", ferr.msg);
        st->files_waiting++;
        return FL_OK;
    }
    if (rc != FL_OK) { /* the file is bad: recorded, not retried until it changes */
        fprintf(stderr, "floe ingest: skipped (recorded as failed): %s\n", ferr.msg);
        ascii_only(ferr.msg);
        snprintf(val, sizeof val, "%" PRIu64 ":%" PRId64 ":error:%.400s", l->size, l->mtime_ns,
                 ferr.msg);
        st->files_failed++;
        if (f->dlq)
            FL_TRY(dead_letter(f->dlq, s, l, key, val, ferr.msg, err));
        return fl_ingest_sink_set_position(s, key, val, err);
    }
    snprintf(val, sizeof val, "%" PRIu64 ":%" PRId64 ":done:%" PRIu64, l->size, l->mtime_ns, rows);
    fl_ingest_sink_note_source_time(s, l->mtime_ns / 1000000); /* lag: since the file landed */
    st->files_ingested++;
    st->rows += rows;
    return fl_ingest_sink_set_position(s, key, val, err);
}

/* "file:<path>" (malloc'd) with '%', control bytes and, when path is not
 * UTF-8, bytes >= 0x80 as %XX: positions must be UTF-8 without control
 * characters, and any byte but '/' and NUL may be in a file name. */
static char *position_key(const char *path)
{
    bool utf8 = ing_utf8_valid(path);
    size_t n = strlen(path);
    char *k = malloc(5 + 3 * n + 1);
    if (!k)
        return NULL;
    memcpy(k, "file:", 5);
    size_t o = 5;
    for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
        if (*p < 0x20 || *p == 0x7f || *p == '%' || (*p >= 0x80 && !utf8)) {
            static const char hex[] = "0123456789ABCDEF";
            k[o++] = '%';
            k[o++] = hex[*p >> 4];
            k[o++] = hex[*p & 15];
        } else {
            k[o++] = (char)*p;
        }
    }
    k[o] = '\0';
    return k;
}

/* The position says this exact content was taken (or failed) already. */
static bool already_done(const char *pos, const listed *l)
{
    if (!pos)
        return false;
    char id[64];
    int n = snprintf(id, sizeof id, "%" PRIu64 ":%" PRId64 ":", l->size, l->mtime_ns);
    return !strncmp(pos, id, (size_t)n);
}

fl_status fl_ingest_files_poll(fl_ingest_files *f, fl_ingest_sink *s, fl_ingest_files_stats *st,
                               fl_error *err)
{
    fl_ingest_files_stats local = {0};
    if (!st)
        st = &local;
    memset(st, 0, sizeof *st);
    listing now;
    FL_TRY(list_folder(f->folder, &now, err));
    fl_status rc = FL_OK;
    for (uint32_t i = 0; rc == FL_OK && i < now.n; i++) {
        const listed *l = &now.v[i];
        char *key = position_key(l->path);
        if (!key) {
            rc = fl_errorf(err, FL_ENOMEM, "out of memory");
            break;
        }
        const listed *p = listing_find(&f->prev, l->path);
        if (already_done(fl_ingest_sink_position(s, key), l)) {
        } else if (!p || p->size != l->size || p->mtime_ns != l->mtime_ns) {
            st->files_waiting++; /* new or still changing: wait for the next poll */
        } else {
            const char *slash = strrchr(l->path, '/');
            rc = ingest_one(f, l, kind_of(slash ? slash + 1 : l->path), s, key, st, err);
            /* a checkpoint is due (rows, bytes or time): hand back to the
             * loop; the files not looked at stay stable for the next poll */
            if (rc == FL_OK && i + 1 < now.n && fl_ingest_sink_due(s, wall_ms())) {
                st->more = true;
                free(key);
                break;
            }
        }
        free(key);
    }
    listing_free(&f->prev);
    f->prev = now;
    return rc;
}
