/*
 * propose_file.c - where propose_metric files a proposal: one YAML file
 * per proposal in <models_dir>/.pending/ (the model loader skips folders
 * whose names start with a dot, so a pending file never joins the live
 * model). A file appears whole or not at all: it is written under a
 * temporary name and link()ed to its final name, which fails rather than
 * replaces when the name is taken.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "mcp/mcp_internal.h"

fl_status mcp_pending_id(const char *name, char id[128], fl_error *err)
{
    unsigned char b[4];
    if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b)
        return fl_errorf(err, FL_EIO, "propose_metric: no random bytes for the proposal's id");
    time_t now = time(NULL);
    struct tm tm;
    char when[32];
    gmtime_r(&now, &tm);
    strftime(when, sizeof when, "%Y%m%dT%H%M%SZ", &tm);
    snprintf(id, 128, "%.64s-%s-%02x%02x%02x%02x", name, when, b[0], b[1], b[2], b[3]);
    return FL_OK;
}

fl_status mcp_pending_write(const char *models_dir, const char *id, const char *yaml,
                            char path[1024], fl_error *err)
{
    char dir[1024], tmp[1100];
    if ((size_t)snprintf(dir, sizeof dir, "%s/.pending", models_dir) >= sizeof dir ||
        (size_t)snprintf(path, 1024, "%s/%s.yaml", dir, id) >= 1024)
        return fl_errorf(err, FL_EINVAL, "propose_metric: the models folder's path is too long");
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return fl_errorf(err, FL_EIO, "propose_metric: cannot make %s: %s", dir, strerror(errno));
    snprintf(tmp, sizeof tmp, "%s/.%s.tmp", dir, id);
    FILE *f = fopen(tmp, "wx");
    if (!f)
        return fl_errorf(err, FL_EIO, "propose_metric: cannot write %s: %s", tmp, strerror(errno));
    size_t n = strlen(yaml);
    bool ok = fwrite(yaml, 1, n, f) == n;
    ok = (fflush(f) == 0) && ok;
    ok = (fsync(fileno(f)) == 0) && ok;
    ok = (fclose(f) == 0) && ok;
    if (ok && link(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return fl_errorf(err, FL_EIO, "propose_metric: cannot file %s: %s", path, strerror(e));
    }
    unlink(tmp);
    if (!ok)
        return fl_errorf(err, FL_EIO, "propose_metric: cannot write %s", tmp);
    return FL_OK;
}
