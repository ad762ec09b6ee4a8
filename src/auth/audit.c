/*
 * audit.c - the audit log: one JSON object per line, appended.
 *
 *   {"time":"2026-11-30T01:02:03.456Z","principal":"etl","action":"commitTable",
 *    "target":"db.events","outcome":"ok","request_id":"r-17","detail":null}
 *
 * The file is opened once (O_APPEND | O_CREAT, mode 0600) at fl_auth_open
 * and each record is built in memory and written with one write() under a
 * mutex, so lines from concurrent threads never interleave, and with
 * O_APPEND lines from several processes sharing the file do not either
 * (a single write of an ordinary file is appended atomically on Linux).
 * No fsync: the log records what the server did, it is not a commit log;
 * a crash may lose the last records but never corrupts earlier ones.
 * Strings are made valid UTF-8 (invalid bytes become U+FFFD) and cut to
 * 1 KiB each, so a hostile table name cannot break the line structure.
 * Errors never fail the caller: the first one is reported on stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "auth/auth_internal.h"

#define FIELD_MAX 1024

/* Length of the valid UTF-8 sequence at s (n bytes left), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    size_t l = s[0] < 0x80             ? 1
               : (s[0] & 0xE0) == 0xC0 ? 2
               : (s[0] & 0xF0) == 0xE0 ? 3
               : (s[0] & 0xF8) == 0xF0 ? 4
                                       : 0;
    if (l == 0 || l > n || (l == 2 && s[0] < 0xC2) || (l == 4 && s[0] > 0xF4))
        return 0;
    for (size_t i = 1; i < l; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if (l == 3 && ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] >= 0xA0)))
        return 0; /* overlong, surrogate */
    if (l == 4 && ((s[0] == 0xF0 && s[1] < 0x90) || (s[0] == 0xF4 && s[1] >= 0x90)))
        return 0;
    return l;
}

static json_t *safe_str(const char *s)
{
    if (!s)
        return json_null();
    char buf[FIELD_MAX * 3 + 4];
    size_t o = 0, n = strlen(s);
    for (size_t i = 0; i < n && o < FIELD_MAX;) {
        size_t l = utf8_len((const unsigned char *)s + i, n - i);
        if (l == 0) {
            memcpy(buf + o, "\xEF\xBF\xBD", 3);
            o += 3;
            i++;
        } else {
            memcpy(buf + o, s + i, l);
            o += l;
            i += l;
        }
    }
    return json_stringn(buf, o);
}

fl_status auth_audit_open(fl_auth *a, const char *path, fl_error *err)
{
    a->audit_fd = -1;
    if (!path)
        return FL_OK;
    a->audit_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (a->audit_fd < 0)
        return fl_errorf(err, FL_EIO, "audit log %s: %s", path, strerror(errno));
    a->audit_path = strdup(path);
    if (!a->audit_path)
        return fl_errorf(err, FL_ENOMEM, "out of memory");
    return FL_OK;
}

static void report(fl_auth *a, const char *what)
{
    if (!a->audit_reported)
        fprintf(stderr, "floe: audit log %s: %s (further errors not reported)\n",
                a->audit_path ? a->audit_path : "?", what);
    a->audit_reported = true;
}

void fl_auth_audit(fl_auth *a, const fl_principal *p, const char *action, const char *target,
                   const char *outcome, const char *request_id, const char *detail)
{
    if (!a || a->audit_fd < 0)
        return;
    struct timespec ts;
    struct tm tm;
    char when[40];
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    size_t wl = strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(when + wl, sizeof when - wl, ".%03ldZ", ts.tv_nsec / 1000000);
    const char *who = p ? (p->anonymous ? "(anonymous)" : p->name) : NULL;
    json_t *o = json_object();
    if (o) {
        json_object_set_new(o, "time", json_string(when));
        json_object_set_new(o, "principal", safe_str(who));
        json_object_set_new(o, "action", safe_str(action));
        json_object_set_new(o, "target", safe_str(target));
        json_object_set_new(o, "outcome", safe_str(outcome));
        json_object_set_new(o, "request_id", safe_str(request_id));
        json_object_set_new(o, "detail", safe_str(detail));
    }
    char *line = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(o);
    pthread_mutex_lock(&a->audit_lock);
    if (!line) {
        report(a, "out of memory building a record");
    } else {
        size_t n = strlen(line);
        line[n] = '\n'; /* replaces the NUL; written with its length */
        ssize_t w = write(a->audit_fd, line, n + 1);
        if (w != (ssize_t)(n + 1))
            report(a, w < 0 ? strerror(errno) : "short write");
    }
    pthread_mutex_unlock(&a->audit_lock);
    free(line);
}
