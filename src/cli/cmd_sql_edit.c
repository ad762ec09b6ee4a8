/*
 * cmd_sql_edit.c - \e of the interactive `floe sql` (cmd_sql.h, "Editor"):
 * the statement being typed (or the last one run) goes to a temporary file,
 * the user's editor ($FLOE_EDITOR, $VISUAL, $EDITOR, else vi) edits it, and
 * the file's text comes back as the new statement buffer; with a FILE
 * argument that file is edited in place instead (psql's \e).
 *
 * The editor runs through /bin/sh, so "code --wait" style values work; the
 * temporary file's name is mkstemps()'s (no shell metacharacters), and a
 * FILE argument is passed single-quoted.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cmd_sql.h"

static const char *editor_command(void)
{
    const char *names[] = {"FLOE_EDITOR", "VISUAL", "EDITOR"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const char *v = getenv(names[i]);
        if (v && *v)
            return v;
    }
    return "vi";
}

/* The editor's command line for path, shell-quoted. */
static char *command_for(const char *path)
{
    const char *ed = editor_command();
    size_t cap = strlen(ed) + 4 * strlen(path) + 8;
    char *cmd = malloc(cap);
    if (!cmd)
        return NULL;
    size_t o = (size_t)snprintf(cmd, cap, "%s '", ed);
    for (const char *p = path; *p; p++) {
        if (*p == '\'') {
            memcpy(cmd + o, "'\\''", 4);
            o += 4;
        } else {
            cmd[o++] = *p;
        }
    }
    cmd[o++] = '\'';
    cmd[o] = '\0';
    return cmd;
}

static fl_status read_back(const char *path, char **out, fl_error *err)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return fl_errorf(err, FL_EIO, "%s: %s", path, strerror(errno));
    fl_buf b;
    fl_buf_init(&b, 0);
    char chunk[4096];
    size_t got;
    fl_status rc = FL_OK;
    while (rc == FL_OK && (got = fread(chunk, 1, sizeof chunk, f)) > 0)
        rc = fl_buf_append(&b, chunk, got, err);
    fclose(f);
    if (rc == FL_OK)
        rc = fl_buf_reserve(&b, 1, err); /* an empty file is an empty text, not NULL */
    if (rc == FL_OK) {
        while (b.len && (b.data[b.len - 1] == '\n' || b.data[b.len - 1] == '\r'))
            b.len--;
        b.data[b.len] = '\0';
    }
    if (rc != FL_OK) {
        fl_buf_free(&b);
        return rc;
    }
    *out = b.data; /* the buffer's memory becomes the caller's */
    return FL_OK;
}

fl_status fl_sqledit(const char *text, const char *file, char **out, fl_error *err)
{
    *out = NULL;
    char tmp[] = "/tmp/floe-edit-XXXXXX.sql";
    const char *path = file;
    if (!file) {
        int fd = mkstemps(tmp, 4);
        if (fd < 0)
            return fl_errorf(err, FL_EIO, "\\e: cannot create a temporary file: %s",
                             strerror(errno));
        size_t n = text ? strlen(text) : 0;
        bool ok = (n == 0 || write(fd, text, n) == (ssize_t)n) && write(fd, "\n", n ? 1 : 0) >= 0;
        close(fd);
        if (!ok) {
            unlink(tmp);
            return fl_errorf(err, FL_EIO, "\\e: %s: %s", tmp, strerror(errno));
        }
        path = tmp;
    }
    char *cmd = command_for(path);
    fl_status rc = cmd ? FL_OK : fl_errorf(err, FL_ENOMEM, "out of memory");
    if (rc == FL_OK) {
        fflush(stdout);
        int st = system(cmd);
        if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            rc = fl_errorf(err, FL_EIO, "\\e: the editor (%s) failed (status %d); nothing changed",
                           editor_command(),
                           st == -1        ? -1
                           : WIFEXITED(st) ? WEXITSTATUS(st)
                                           : -1);
    }
    free(cmd);
    if (rc == FL_OK)
        rc = read_back(path, out, err);
    if (!file)
        unlink(tmp);
    return rc;
}
