/*
 * local.c - the local-filesystem FileIO (see floe/io.h).
 *
 * Paths are plain paths or file: URIs ("file:///abs/path", "file:/abs/path",
 * "file://localhost/abs/path"); the URI prefix is stripped for system calls
 * and kept in the paths handed to list() callbacks, so a caller can reopen
 * what it listed.
 *
 * Reading: open() + fstat() once, then pread() per read_at (positionless, so
 * one fl_file may serve several threads). Counters are updated atomically.
 *
 * Writing is atomic: bytes go to a hidden temp file ".<name>.floe-tmp-<rand>"
 * in the destination directory (created with mkdir -p as object stores have
 * no directories), buffered in 256 KiB. Close = flush, fsync, rename onto the
 * final path, fsync the directory. Without FL_CREATE_OVERWRITE the rename is
 * renameat2(RENAME_NOREPLACE) (or link()+unlink() where the filesystem lacks
 * it), so two racing writers cannot both win: the loser gets FL_EEXIST.
 * Abort, or any failure during close, unlinks the temp file. list() skips
 * temp files. An existing device or FIFO (/dev/stdout, a named pipe) is
 * written directly instead, since it cannot be replaced by a rename.
 *
 * Every error message names the path and the OS error (strerror).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "floe/io.h"

#define OUT_BUF_SIZE ((size_t)256 * 1024)
#define TMP_TAG ".floe-tmp-"

/* Length of the URI prefix to strip from path (0 for plain paths). */
static size_t uri_prefix_len(const char *path)
{
    if (strncmp(path, "file://localhost/", 17) == 0)
        return 16;
    if (strncmp(path, "file://", 7) == 0)
        return 7;
    if (strncmp(path, "file:/", 6) == 0)
        return 5;
    return 0;
}

static const char *local_path(const char *path)
{
    return path + uri_prefix_len(path);
}

static fl_status os_error(fl_error *err, const char *what, const char *path, int e)
{
    fl_status code = e == ENOENT                                        ? FL_ENOTFOUND
                     : e == EEXIST                                      ? FL_EEXIST
                     : e == ENOMEM                                      ? FL_ENOMEM
                     : e == ENAMETOOLONG || e == EISDIR || e == ENOTDIR ? FL_EINVAL
                                                                        : FL_EIO;
    return fl_errorf(err, code, "%s: %s: %s", path, what, strerror(e));
}

/* ---- reading ---- */

typedef struct local_file {
    fl_file base;
    int fd;
} local_file;

static fl_status local_read_at(fl_file *f, uint64_t off, void *buf, size_t len, fl_error *err)
{
    local_file *lf = (local_file *)f;
    if (off > f->size || len > f->size - off)
        return fl_errorf(
            err, FL_ECORRUPT,
            "%s: read of %zu bytes at offset %llu is past the end of the %llu-byte file", f->path,
            len, (unsigned long long)off, (unsigned long long)f->size);
    size_t done = 0;
    while (done < len) {
        ssize_t r = pread(lf->fd, (char *)buf + done, len - done, (off_t)(off + done));
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return os_error(err, "read failed", f->path, errno);
        }
        if (r == 0)
            return fl_errorf(err, FL_EIO, "%s: file shrank: read at offset %llu hit end of file",
                             f->path, (unsigned long long)(off + done));
        done += (size_t)r;
    }
    __atomic_fetch_add(&f->bytes_read, (uint64_t)len, __ATOMIC_RELAXED);
    __atomic_fetch_add(&f->reads, 1, __ATOMIC_RELAXED);
    return FL_OK;
}

static void local_file_close(fl_file *f)
{
    local_file *lf = (local_file *)f;
    close(lf->fd);
    free(f->path);
    free(lf);
}

static const fl_file_ops local_file_ops = {local_read_at, local_file_close};

static fl_status local_open(fl_fileio *io, const char *path, fl_file **out, fl_error *err)
{
    const char *lp = local_path(path);
    int fd = open(lp, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return os_error(err, "cannot open", path, errno);
    struct stat st;
    if (fstat(fd, &st) != 0) {
        fl_status rc = os_error(err, "cannot stat", path, errno);
        close(fd);
        return rc;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return fl_errorf(err, FL_EINVAL, "%s: not a regular file", path);
    }
    local_file *lf = calloc(1, sizeof *lf);
    char *p = strdup(path);
    if (!lf || !p) {
        free(lf);
        free(p);
        close(fd);
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory", path);
    }
    lf->base.ops = &local_file_ops;
    lf->base.path = p;
    lf->base.size = (uint64_t)st.st_size;
    lf->base.has_mtime = true; /* "$file_modified_time" */
    lf->base.mtime_us = (int64_t)st.st_mtim.tv_sec * 1000000 + st.st_mtim.tv_nsec / 1000;
    lf->fd = fd;
    *out = &lf->base;
    return FL_OK;
}

/* ---- writing ---- */

typedef struct local_output {
    fl_output base;
    int fd;
    int flags;
    char *tmp;   /* temp file path (local) */
    char *final; /* final path (local) */
    uint8_t *buf;
    size_t buf_len;
    bool direct; /* writing straight to a device or FIFO: no temp file */
} local_output;

static fl_status write_all(local_output *lo, const uint8_t *p, size_t len, fl_error *err)
{
    while (len) {
        ssize_t w = write(lo->fd, p, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return os_error(err, "write failed", lo->base.path, errno);
        }
        p += w;
        len -= (size_t)w;
    }
    return FL_OK;
}

static fl_status flush_buf(local_output *lo, fl_error *err)
{
    if (lo->buf_len == 0)
        return FL_OK;
    fl_status rc = write_all(lo, lo->buf, lo->buf_len, err);
    lo->buf_len = 0;
    return rc;
}

static fl_status local_write(fl_output *o, const void *buf, size_t len, fl_error *err)
{
    local_output *lo = (local_output *)o;
    if (len <= OUT_BUF_SIZE - lo->buf_len) {
        memcpy(lo->buf + lo->buf_len, buf, len);
        lo->buf_len += len;
    } else {
        FL_TRY(flush_buf(lo, err));
        if (len < OUT_BUF_SIZE) {
            memcpy(lo->buf, buf, len);
            lo->buf_len = len;
        } else {
            FL_TRY(write_all(lo, buf, len, err));
        }
    }
    o->written += len;
    return FL_OK;
}

static void output_free(local_output *lo)
{
    if (lo->fd >= 0)
        close(lo->fd);
    if (lo->tmp)
        unlink(lo->tmp);
    free(lo->tmp);
    free(lo->final);
    free(lo->buf);
    free(lo->base.path);
    free(lo);
}

static void local_abort(fl_output *o)
{
    output_free((local_output *)o);
}

/* Directory part of a local path ("." when there is none). */
static char *dir_of(const char *p)
{
    const char *slash = strrchr(p, '/');
    if (!slash)
        return strdup(".");
    if (slash == p)
        return strdup("/");
    return strndup(p, (size_t)(slash - p));
}

static fl_status fsync_dir(const char *file, const char *shown, fl_error *err)
{
    char *dir = dir_of(file);
    if (!dir)
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory", shown);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    fl_status rc = FL_OK;
    if (fd < 0) {
        rc = os_error(err, "cannot open directory for fsync", shown, errno);
    } else {
        if (fsync(fd) != 0 && errno != EINVAL && errno != EROFS)
            rc = os_error(err, "directory fsync failed", shown, errno);
        close(fd);
    }
    free(dir);
    return rc;
}

/* Moves tmp onto final without replacing an existing file. */
static int rename_noreplace(const char *tmp, const char *final)
{
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, final, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP)
        return -1;
    if (link(tmp, final) != 0)
        return -1;
    unlink(tmp);
    return 0;
}

static fl_status local_close(fl_output *o, fl_error *err)
{
    local_output *lo = (local_output *)o;
    fl_status rc = flush_buf(lo, err);
    if (lo->direct) {
        output_free(lo); /* nothing to commit */
        return rc;
    }
    if (rc == FL_OK && fsync(lo->fd) != 0)
        rc = os_error(err, "fsync failed", o->path, errno);
    if (rc == FL_OK) {
        int fd = lo->fd;
        lo->fd = -1;
        if (close(fd) != 0)
            rc = os_error(err, "close failed", o->path, errno);
    }
    if (rc == FL_OK) {
        int r = (lo->flags & FL_CREATE_OVERWRITE) ? rename(lo->tmp, lo->final)
                                                  : rename_noreplace(lo->tmp, lo->final);
        if (r != 0)
            rc = os_error(err, "cannot move the written file into place", o->path, errno);
    }
    if (rc == FL_OK) {
        free(lo->tmp); /* renamed: nothing left to unlink */
        lo->tmp = NULL;
        rc = fsync_dir(lo->final, o->path, err);
    }
    output_free(lo);
    return rc;
}

static const fl_output_ops local_output_ops = {local_write, local_close, local_abort};

/* mkdir -p for the directory holding p. */
static fl_status make_parents(const char *p, const char *shown, fl_error *err)
{
    char *dir = dir_of(p);
    if (!dir)
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory", shown);
    fl_status rc = FL_OK;
    struct stat st;
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode))
            rc = fl_errorf(err, FL_EINVAL, "%s: parent %s is not a directory", shown, dir);
        free(dir);
        return rc;
    }
    for (char *s = dir + 1;; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char c = *s;
        *s = '\0';
        if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
            rc = os_error(err, "cannot create directory", shown, errno);
            break;
        }
        *s = c;
        if (c == '\0')
            break;
    }
    free(dir);
    return rc;
}

static int open_temp(local_output *lo)
{
    const char *slash = strrchr(lo->final, '/');
    size_t dlen = slash ? (size_t)(slash - lo->final) + 1 : 0;
    const char *base = lo->final + dlen;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t seed = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ (uint64_t)(uintptr_t)lo ^
                    ((uint64_t)getpid() << 16);
    for (int attempt = 0; attempt < 64; attempt++) {
        seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
        free(lo->tmp);
        size_t n = dlen + 1 + strlen(base) + sizeof TMP_TAG + 17;
        lo->tmp = malloc(n);
        if (!lo->tmp) {
            errno = ENOMEM;
            return -1;
        }
        snprintf(lo->tmp, n, "%.*s.%s" TMP_TAG "%016llx", (int)dlen, lo->final, base,
                 (unsigned long long)(seed >> 1));
        int fd = open(lo->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0)
            return fd;
        if (errno != EEXIST)
            break;
    }
    free(lo->tmp);
    lo->tmp = NULL;
    return -1;
}

/* Devices, FIFOs and sockets (/dev/stdout, a named pipe) cannot be replaced
 * by a rename: write to them directly, without atomicity. */
static fl_status create_direct(const char *path, const char *lp, int flags, fl_output **out,
                               fl_error *err)
{
    local_output *lo = calloc(1, sizeof *lo);
    if (!lo)
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory", path);
    lo->fd = -1;
    lo->flags = flags;
    lo->direct = true;
    lo->base.ops = &local_output_ops;
    lo->base.path = strdup(path);
    lo->final = strdup(lp);
    lo->buf = malloc(OUT_BUF_SIZE);
    if (!lo->base.path || !lo->final || !lo->buf) {
        output_free(lo);
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory", path);
    }
    lo->fd = open(lp, O_WRONLY | O_CLOEXEC);
    if (lo->fd < 0) {
        fl_status rc = os_error(err, "cannot open for writing", path, errno);
        output_free(lo);
        return rc;
    }
    *out = &lo->base;
    return FL_OK;
}

static fl_status local_create(fl_fileio *io, const char *path, int flags, fl_output **out,
                              fl_error *err)
{
    const char *lp = local_path(path);
    size_t n = strlen(lp);
    if (n == 0 || lp[n - 1] == '/')
        return fl_errorf(err, FL_EINVAL, "%s: not a file path", path);
    struct stat st;
    if (!(flags & FL_CREATE_OVERWRITE) && lstat(lp, &st) == 0)
        return fl_errorf(err, FL_EEXIST, "%s: already exists", path);
    if (stat(lp, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
        return create_direct(path, lp, flags, out, err);
    FL_TRY(make_parents(lp, path, err));
    local_output *lo = calloc(1, sizeof *lo);
    if (!lo)
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory", path);
    lo->fd = -1;
    lo->flags = flags;
    lo->base.ops = &local_output_ops;
    lo->base.path = strdup(path);
    lo->final = strdup(lp);
    lo->buf = malloc(OUT_BUF_SIZE);
    if (!lo->base.path || !lo->final || !lo->buf) {
        output_free(lo);
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory", path);
    }
    lo->fd = open_temp(lo);
    if (lo->fd < 0) {
        fl_status rc = os_error(err, "cannot create a temporary file", path, errno);
        output_free(lo);
        return rc;
    }
    *out = &lo->base;
    return FL_OK;
}

/* ---- remove, list ---- */

static fl_status local_remove(fl_fileio *io, const char *path, fl_error *err)
{
    if (unlink(local_path(path)) != 0)
        return os_error(err, "cannot remove", path, errno);
    return FL_OK;
}

typedef struct list_ctx {
    const char *scheme; /* URI prefix to put back, e.g. "file://" */
    size_t scheme_len;
    const char *prefix; /* local prefix */
    fl_status (*fn)(void *ctx, const char *path, uint64_t size);
    void *ctx;
    fl_error *err;
} list_ctx;

static bool starts_with(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* Reads the sorted entry names of dir (without . and ..). A missing
 * directory yields no names. */
static fl_status read_names(const char *dir, char ***out, size_t *count, fl_error *err)
{
    *out = NULL;
    *count = 0;
    DIR *d = opendir(*dir ? dir : ".");
    if (!d) {
        if (errno == ENOENT || errno == ENOTDIR)
            return FL_OK;
        return os_error(err, "cannot list directory", *dir ? dir : ".", errno);
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    fl_status rc = FL_OK;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (e->d_name[0] == '.' && strstr(e->d_name, TMP_TAG))
            continue; /* an in-flight or crashed write */
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 32;
            char **nn = realloc(names, nc * sizeof *nn);
            if (!nn) {
                rc = fl_errorf(err, FL_ENOMEM, "%s: out of memory", dir);
                break;
            }
            names = nn;
            cap = nc;
        }
        if (!(names[n] = strdup(e->d_name))) {
            rc = fl_errorf(err, FL_ENOMEM, "%s: out of memory", dir);
            break;
        }
        n++;
    }
    closedir(d);
    if (rc) {
        free_names(names, n);
        return rc;
    }
    if (n)
        qsort(names, n, sizeof *names, cmp_names);
    *out = names;
    *count = n;
    return FL_OK;
}

/* Walks dir ("" = current directory, else ending in '/'). */
static fl_status walk(list_ctx *lc, const char *dir)
{
    char **names;
    size_t n;
    FL_TRY(read_names(dir, &names, &n, lc->err));
    fl_status rc = FL_OK;
    size_t dlen = strlen(dir);
    for (size_t i = 0; i < n && rc == FL_OK; i++) {
        size_t nlen = strlen(names[i]);
        char *full = malloc(lc->scheme_len + dlen + nlen + 2);
        if (!full) {
            rc = fl_errorf(lc->err, FL_ENOMEM, "%s: out of memory", dir);
            break;
        }
        memcpy(full, lc->scheme, lc->scheme_len);
        char *lp = full + lc->scheme_len;
        memcpy(lp, dir, dlen);
        memcpy(lp + dlen, names[i], nlen + 1);
        struct stat st, lst;
        if (stat(lp, &st) != 0) {
            if (errno != ENOENT) /* vanished or dangling symlink: skip */
                rc = os_error(lc->err, "cannot stat", lp, errno);
        } else if (S_ISDIR(st.st_mode)) {
            /* descend when the directory can hold matches; never follow dir symlinks */
            lp[dlen + nlen] = '/';
            lp[dlen + nlen + 1] = '\0';
            bool real = lstat(lp, &lst) == 0 && S_ISDIR(lst.st_mode);
            if (real && (starts_with(lp, lc->prefix) || starts_with(lc->prefix, lp)))
                rc = walk(lc, lp);
        } else if (S_ISREG(st.st_mode) && starts_with(lp, lc->prefix)) {
            rc = lc->fn(lc->ctx, full, (uint64_t)st.st_size);
        }
        free(full);
    }
    free_names(names, n);
    return rc;
}

static fl_status local_list(fl_fileio *io, const char *prefix,
                            fl_status (*fn)(void *ctx, const char *path, uint64_t size), void *ctx,
                            fl_error *err)
{
    size_t sl = uri_prefix_len(prefix);
    list_ctx lc = {prefix, sl, prefix + sl, fn, ctx, err};
    const char *slash = strrchr(lc.prefix, '/');
    char *dir = slash ? strndup(lc.prefix, (size_t)(slash - lc.prefix) + 1) : strdup("");
    if (!dir)
        return fl_errorf(err, FL_ENOMEM, "%s: out of memory", prefix);
    fl_status rc = walk(&lc, dir);
    free(dir);
    return rc;
}

static void local_destroy(fl_fileio *io)
{
    free(io);
}

static const fl_fileio_ops local_ops = {local_open, local_create, local_remove, local_list,
                                        local_destroy};

fl_fileio *fl_fileio_local(void)
{
    fl_fileio *io = malloc(sizeof *io);
    if (io)
        io->ops = &local_ops;
    return io;
}
