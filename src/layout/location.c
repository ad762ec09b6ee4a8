/*
 * location.c - storage confinement on location strings (catalog.h,
 * "Storage confinement"; docs/security.md).
 *
 * Every table and view location must be inside the warehouse or a root the
 * operator allowed, must not be such a root itself (a table there would own
 * every other table's files, and orphan removal would list them), and must
 * neither contain nor lie inside the catalog's database file or another
 * protected file (a purge or orphan removal of such a table deleted the
 * catalog). These are pure string rules: nothing is read here. The overlap
 * with other tables, which needs their metadata, is fl_ice_location_check
 * (src/iceberg/confine.c); the REST server, the SQL engine and the CLI all
 * come through these two functions.
 *
 * Comparison form: "file://" / "file:" dropped, "s3a://" and "s3n://" as
 * "s3://", trailing '/' ignored. A location with '.', '..' or empty segments
 * is refused rather than normalized: object stores treat "a//b" and "a/./b"
 * as distinct keys, so no normal form would be faithful on every store.
 *
 * fl_catalog_private_file: secrets at rest. The SQLite catalog database
 * holds the token-signing key in clear; it is created 0600 (open() with that
 * mode, so the umask can only narrow it), and an existing file and its
 * -wal/-shm/-journal siblings lose group/other bits. SQLite creates its
 * journal files with the database file's mode, so new siblings follow.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "floe/catalog.h"

/* The scheme class and the path part of loc. */
typedef struct loc_parts {
    const char *scheme; /* "" for local paths */
    size_t scheme_len;
    const char *path;
    size_t len; /* without trailing '/' (a lone "/" stays) */
} loc_parts;

static loc_parts split(const char *s)
{
    loc_parts p = {"", 0, s, 0};
    if (!strncmp(s, "file://", 7))
        p.path = s + 7;
    else if (!strncmp(s, "file:", 5))
        p.path = s + 5;
    else if (!strncmp(s, "s3a://", 6) || !strncmp(s, "s3n://", 6))
        p = (loc_parts){"s3", 2, s + 6, 0};
    else if (strstr(s, "://")) {
        const char *e = strstr(s, "://");
        p = (loc_parts){s, (size_t)(e - s), e + 3, 0};
    }
    p.len = strlen(p.path);
    while (p.len > 1 && p.path[p.len - 1] == '/')
        p.len--;
    return p;
}

/* Relative local paths are relative to the working directory, as the local
 * FileIO opens them: "./warehouse" and "." compare as their absolute forms. */
static loc_parts absolute(loc_parts p, char *buf, size_t cap)
{
    if (p.scheme_len || p.path[0] == '/')
        return p;
    const char *rel = p.path;
    size_t len = p.len;
    while (len >= 2 && rel[0] == '.' && rel[1] == '/') {
        rel += 2, len -= 2;
        while (len && rel[0] == '/')
            rel++, len--;
    }
    if (len == 1 && rel[0] == '.')
        len = 0;
    if (!getcwd(buf, cap))
        return p;
    size_t n = strlen(buf);
    if (len && n + 1 + len < cap) {
        buf[n++] = '/';
        memcpy(buf + n, rel, len);
        n += len;
    } else if (len) {
        return p;
    }
    buf[n] = '\0';
    p.path = buf;
    p.len = n;
    return p;
}

bool fl_location_within(const char *loc, const char *root)
{
    if (!loc || !root || !*root)
        return false;
    char lb[4096], rb[4096];
    loc_parts l = absolute(split(loc), lb, sizeof lb), r = absolute(split(root), rb, sizeof rb);
    if (l.scheme_len != r.scheme_len || strncmp(l.scheme, r.scheme, r.scheme_len) != 0)
        return false;
    if (r.len == 1 && r.path[0] == '/') /* the local root holds every absolute path */
        return l.path[0] == '/';
    if (l.len < r.len || strncmp(l.path, r.path, r.len) != 0)
        return false;
    return l.len == r.len || l.path[r.len] == '/';
}

static bool same(const char *a, const char *b)
{
    return fl_location_within(a, b) && fl_location_within(b, a);
}

static bool overlap(const char *a, const char *b)
{
    return fl_location_within(a, b) || fl_location_within(b, a);
}

static bool clean_segments(const char *loc)
{
    const char *p = split(loc).path;
    if (*p == '/')
        p++;
    while (*p) {
        const char *e = strchr(p, '/');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == 0 && e && e[1] != '\0')
            return false;
        if ((len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
            return false;
        if (!e)
            break;
        p = e + 1;
    }
    return true;
}

fl_status fl_location_check_roots(const char *warehouse, const char *const *allowed,
                                  uint32_t nallowed, const char *loc, fl_error *err)
{
    if (!loc || !*loc)
        return fl_errorf(err, FL_EINVAL, "empty location");
    for (const char *c = loc; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == '\\')
            return fl_errorf(err, FL_EFORBIDDEN,
                             "location '%.200s' contains a control character or backslash", loc);
    if (!clean_segments(loc))
        return fl_errorf(err, FL_EFORBIDDEN,
                         "location '%.200s' has a '.', '..' or empty path segment", loc);
    bool has_wh = warehouse && *warehouse;
    if (!has_wh && nallowed == 0)
        return FL_OK;
    if (has_wh && fl_location_within(loc, warehouse))
        return FL_OK;
    for (uint32_t i = 0; i < nallowed; i++)
        if (fl_location_within(loc, allowed[i]))
            return FL_OK;
    return fl_errorf(
        err, FL_EFORBIDDEN,
        "location '%.200s' is outside the warehouse '%.200s' and the allowed locations", loc,
        has_wh ? warehouse : "");
}

static const char *const SIBLINGS[] = {"", "-wal", "-shm", "-journal"};

/* The protected file that loc overlaps, or NULL (buf holds db_file+sibling). */
static const char *protected_overlap(const fl_catalog *c, const char *loc, char *buf, size_t cap)
{
    if (c->db_file)
        for (size_t i = 0; i < sizeof SIBLINGS / sizeof *SIBLINGS; i++) {
            snprintf(buf, cap, "%s%s", c->db_file, SIBLINGS[i]);
            if (overlap(loc, buf))
                return buf;
        }
    const fl_location_policy *p = c->confine;
    for (uint32_t i = 0; p && i < p->nprotected; i++)
        if (p->protected_paths[i] && *p->protected_paths[i] && overlap(loc, p->protected_paths[i]))
            return p->protected_paths[i];
    return NULL;
}

fl_status fl_catalog_location_check(const fl_catalog *c, const char *loc, fl_error *err)
{
    const fl_location_policy *p = c->confine;
    const char *const *allowed = p ? p->allowed : NULL;
    uint32_t nallowed = p ? p->nallowed : 0;
    FL_TRY(fl_location_check_roots(c->warehouse, allowed, nallowed, loc, err));
    if (c->warehouse && *c->warehouse && same(loc, c->warehouse))
        return fl_errorf(err, FL_EFORBIDDEN,
                         "location '%.200s' is the warehouse root; a table needs its own folder "
                         "inside it",
                         loc);
    for (uint32_t i = 0; i < nallowed; i++)
        if (same(loc, allowed[i]))
            return fl_errorf(err, FL_EFORBIDDEN,
                             "location '%.200s' is the allowed root '%.200s'; a table needs its "
                             "own folder inside it",
                             loc, allowed[i]);
    char buf[4096];
    const char *hit = protected_overlap(c, loc, buf, sizeof buf);
    if (hit)
        return fl_errorf(err, FL_EFORBIDDEN,
                         "location '%.200s' overlaps the protected file '%.200s' (the catalog "
                         "database or another file floe keeps secrets in)",
                         loc, hit);
    return FL_OK;
}

bool fl_catalog_path_protected(const fl_catalog *c, const char *path)
{
    char buf[4096];
    return c && path && protected_overlap(c, path, buf, sizeof buf) != NULL;
}

/* Removes group/other bits from path when it exists. */
static fl_status tighten(const char *path, fl_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return errno == ENOENT ? FL_OK : fl_errorf(err, FL_EIO, "%s: %s", path, strerror(errno));
    if ((st.st_mode & 077) == 0 || !S_ISREG(st.st_mode))
        return FL_OK;
    if (chmod(path, st.st_mode & 0700) != 0 && errno != EPERM) /* EPERM: not ours */
        return fl_errorf(err, FL_EIO, "%s: cannot make it private (chmod 0600): %s", path,
                         strerror(errno));
    return FL_OK;
}

fl_status fl_catalog_private_file(const char *path, fl_error *err)
{
    if (!path || !*path || !strcmp(path, ":memory:"))
        return FL_OK;
    /* exclusive create, so an existing (perhaps read-only) file is not opened
     * for writing here; a concurrent creator's EEXIST is fine */
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd >= 0)
        close(fd);
    else if (errno != EEXIST)
        return fl_errorf(err, FL_EIO, "%s: cannot create: %s", path, strerror(errno));
    char buf[4096];
    for (size_t i = 0; i < sizeof SIBLINGS / sizeof *SIBLINGS; i++) {
        snprintf(buf, sizeof buf, "%s%s", path, SIBLINGS[i]);
        FL_TRY(tighten(buf, err));
    }
    return FL_OK;
}
