/*
 * progress.c - the CLI's progress line (progress.h).
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

void cli_progress_update(cli_progress *p, uint32_t item, const char *name, uint64_t done,
                         uint64_t total, uint64_t rows)
{
    if (!p->on)
        return;
    double t = now_s();
    if (!p->always && (t - p->t0 < 0.5 || t - p->last < 0.1))
        return;
    p->last = t;
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
    fprintf(stderr, "%s%s: %s%s%s %s rows, %.0f rows/s%s", p->always ? "" : "\r\033[K", p->cmd,
            base, of, pct, grouped(rows, rb, sizeof rb), rate, p->always ? "\n" : "");
    fflush(stderr);
    p->drawn = true;
}

void cli_progress_end(cli_progress *p)
{
    if (p->on && p->drawn && !p->always) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    p->drawn = false;
}
