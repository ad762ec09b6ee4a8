/*
 * progress.c - the CLI's progress line (progress.h). One gate (due: the
 * terminal's half-second and ten-a-second rules, or FLOE_PROGRESS=always)
 * and one drawing (draw) serve every line format, so the rules hold for
 * every command alike.
 */
#include "cli/progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void cli_progress_init(cli_progress *p, const char *cmd, uint32_t items)
{
    memset(p, 0, sizeof *p);
    const char *env = getenv("FLOE_PROGRESS");
    p->always = env && !strcmp(env, "always");
    p->on = p->always || (isatty(STDERR_FILENO) && !(env && !strcmp(env, "never")));
    p->cmd = cmd;
    p->items = items;
    p->t0 = p->last = now_s();
}

/* 1234567 -> "1,234,567" */
static const char *grouped(uint64_t v, char *buf, size_t cap)
{
    char digits[32];
    int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)v);
    size_t o = 0;
    for (int i = 0; i < n && o + 2 < cap; i++) {
        if (i && (n - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

/* Whether to draw now: always, or on a terminal once the work ran half a
 * second and the last draw is a tenth of a second old (*t: now). */
static bool due(cli_progress *p, double *t)
{
    if (!p->on)
        return false;
    *t = now_s();
    if (!p->always && (*t - p->t0 < 0.5 || *t - p->last < 0.1))
        return false;
    p->last = *t;
    return true;
}

/* Draws the line "<cmd>: <text>": over the previous one on a terminal, on
 * its own line with FLOE_PROGRESS=always. */
static void draw(cli_progress *p, const char *text)
{
    fprintf(stderr, "%s%s: %s%s", p->always ? "" : "\r\033[K", p->cmd, text, p->always ? "\n" : "");
    fflush(stderr);
    p->drawn = true;
}

void cli_progress_update(cli_progress *p, uint32_t item, const char *name, uint64_t done,
                         uint64_t total, uint64_t rows)
{
    double t;
    if (!due(p, &t))
        return;
    p->item = item;
    p->rows = rows;
    const char *base = name ? strrchr(name, '/') : NULL;
    base = base ? base + 1 : name ? name : "";
    char of[32] = "", pct[16] = "", rb[32];
    if (p->items > 1)
        snprintf(of, sizeof of, " (%u/%u)", item, p->items);
    if (total)
        snprintf(pct, sizeof pct, " %3.0f%%",
                 100.0 * (double)(done > total ? total : done) / (double)total);
    double rate = t > p->t0 ? (double)rows / (t - p->t0) : 0;
    char text[512];
    snprintf(text, sizeof text, "%s%s%s %s rows, %.0f rows/s", base, of, pct,
             grouped(rows, rb, sizeof rb), rate);
    draw(p, text);
}

/* 43,000,000 -> "41 MB" (1024-based, as the CLI's size options read "MB") */
static const char *human_bytes(uint64_t v, char *buf, size_t cap)
{
    static const char *const unit[] = {"B", "kB", "MB", "GB", "TB"};
    double x = (double)v;
    unsigned u = 0;
    while (x >= 1024 && u + 1 < sizeof unit / sizeof unit[0]) {
        x /= 1024;
        u++;
    }
    snprintf(buf, cap, u && x < 10 ? "%.1f %s" : "%.0f %s", x, unit[u]);
    return buf;
}

static bool same_files_state(const cli_progress *p, uint64_t done, uint64_t total, uint64_t rows,
                             uint64_t bytes)
{
    return p->drawn && p->files_done == done && p->files_total == total && p->rows == rows &&
           p->bytes == bytes;
}

void cli_progress_files(cli_progress *p, uint64_t done, uint64_t total, uint64_t rows,
                        uint64_t bytes)
{
    double t;
    if (!p->on || same_files_state(p, done, total, rows, bytes) || !due(p, &t))
        return;
    p->files_done = done;
    p->files_total = total;
    p->rows = rows;
    p->bytes = bytes;
    char text[160], rb[32], bb[32];
    int n = snprintf(text, sizeof text, "%llu/%llu files", (unsigned long long)done,
                     (unsigned long long)total);
    if (rows && n > 0 && (size_t)n < sizeof text)
        n += snprintf(text + n, sizeof text - (size_t)n, "  %s rows", grouped(rows, rb, sizeof rb));
    if (bytes && n > 0 && (size_t)n < sizeof text)
        snprintf(text + n, sizeof text - (size_t)n, "  %s", human_bytes(bytes, bb, sizeof bb));
    draw(p, text);
}

void cli_progress_end(cli_progress *p)
{
    if (p->on && p->drawn && !p->always) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    p->drawn = false;
}
