/*
 * stdin_file.c - spools stdin to a temporary file for commands given `-`
 * (stdin_file.h).
 */
#include "cli/stdin_file.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *suffix_for(const unsigned char *b, size_t n)
{
    if (n >= 4 && !memcmp(b, "PAR1", 4))
        return ".parquet";
    if (n >= 4 && !memcmp(b, "Obj\1", 4))
        return ".avro";
    size_t i = 0;
    while (i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n'))
        i++;
    if (i < n && (b[i] == '{' || b[i] == '['))
        return ".jsonl";
    return ".csv";
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

char *cli_stdin_spool(const char *cmd)
{
    static const size_t cap = 1 << 16;
    unsigned char *buf = malloc(cap);
    if (!buf) {
        fprintf(stderr, "floe %s: stdin: out of memory\n", cmd);
        return NULL;
    }
    size_t n = fread(buf, 1, cap, stdin); /* the first block picks the suffix */
    const char *dir = getenv("TMPDIR");
    const char *suf = suffix_for(buf, n);
    size_t pl = strlen(dir && *dir ? dir : "/tmp") + 32;
    char *path = malloc(pl);
    int fd = -1;
    if (path) {
        snprintf(path, pl, "%s/floe-stdin-XXXXXX%s", dir && *dir ? dir : "/tmp", suf);
        fd = mkstemps(path, (int)strlen(suf));
    }
    int bad = fd < 0;
    while (!bad && n > 0) {
        bad = write_all(fd, buf, n) != 0;
        n = fread(buf, 1, cap, stdin);
    }
    bad |= ferror(stdin) != 0;
    int why = errno;
    if (fd >= 0 && close(fd) != 0)
        bad = 1;
    free(buf);
    if (bad) {
        fprintf(stderr, "floe %s: stdin: cannot copy to a temporary file: %s\n", cmd,
                strerror(why));
        if (fd >= 0)
            unlink(path);
        free(path);
        return NULL;
    }
    return path;
}

void cli_stdin_release(char *path)
{
    if (path)
        unlink(path);
    free(path);
}

int cli_stdin_arg(int argc, char **argv, int from, const char *cmd, char **spooled)
{
    *spooled = NULL;
    int i = from;
    while (i < argc && strcmp(argv[i], "-"))
        i++;
    if (i >= argc)
        return 0;
    *spooled = cli_stdin_spool(cmd);
    if (!*spooled)
        return -1;
    argv[i] = *spooled;
    return 1;
}

static bool path_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-' || c == '/';
}

void cli_stdin_scrub(char *msg)
{
    char *hit;
    while ((hit = strstr(msg, "floe-stdin-")) != NULL) {
        char *start = hit, *end = hit;
        while (start > msg && path_char(start[-1]))
            start--;
        while (path_char(*end))
            end++;
        memcpy(start, "stdin", 5); /* a spooled path is always longer than "stdin" */
        memmove(start + 5, end, strlen(end) + 1);
    }
}
