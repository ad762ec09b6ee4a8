/*
 * cmd_sql_pager.c - the pager of the interactive `floe sql` (cmd_sql.h,
 * "Pager"), as psql's: a result taller or wider than the terminal is shown
 * through $FLOE_PAGER, else $PAGER, else "less -FSX" (or "more" without
 * less); a smaller one is written straight to the terminal.
 *
 * The shell prints a result into memory (open_memstream) when the pager may
 * apply, then hands the text here, which measures it against the terminal
 * (TIOCGWINSZ) and decides. Like psql, the whole result is held in memory
 * before it is shown; \pset pager off streams it instead. SIGPIPE is
 * ignored while writing to the pager, so quitting the pager early only cuts
 * the output short.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli/cmd_sql.h"

/* Whether text needs more than rows lines or cols columns. */
static bool too_big(const char *text, size_t len, unsigned rows, unsigned cols)
{
    size_t lines = 0, width = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\n') {
            if (++lines >= rows)
                return true;
            width = 0;
        } else if (((unsigned char)text[i] & 0xC0) != 0x80 && ++width > cols) {
            return true; /* UTF-8 continuation bytes take no column */
        }
    }
    return false;
}

static const char *pager_command(void)
{
    const char *p = getenv("FLOE_PAGER");
    if (!p || !*p)
        p = getenv("PAGER");
    if (p && *p)
        return p;
    return system("command -v less >/dev/null 2>&1") == 0 ? "less -FSX" : "more";
}

void fl_sqlpager_show(const char *text, size_t len, fl_sqlpager_mode mode)
{
    struct winsize ws = {0};
    bool tty = isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row;
    bool page = mode == FL_SQLPAGER_ALWAYS ||
                (mode == FL_SQLPAGER_ON && tty && too_big(text, len, ws.ws_row - 1u, ws.ws_col));
    FILE *p = NULL;
    if (page) {
        fflush(stdout);
        p = popen(pager_command(), "w");
    }
    if (!p) {
        fwrite(text, 1, len, stdout);
        fflush(stdout);
        return;
    }
    struct sigaction ign = {0}, old;
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGPIPE, &ign, &old);
    fwrite(text, 1, len, p);
    pclose(p);
    sigaction(SIGPIPE, &old, NULL);
}

bool fl_sqlpager_mode_parse(const char *s, fl_sqlpager_mode *out)
{
    if (!s || !*s || !strcmp(s, "on") || !strcmp(s, "1") || !strcmp(s, "true"))
        *out = FL_SQLPAGER_ON;
    else if (!strcmp(s, "off") || !strcmp(s, "0") || !strcmp(s, "false"))
        *out = FL_SQLPAGER_OFF;
    else if (!strcmp(s, "always"))
        *out = FL_SQLPAGER_ALWAYS;
    else
        return false;
    return true;
}
