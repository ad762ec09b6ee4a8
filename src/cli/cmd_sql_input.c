/*
 * cmd_sql_input.c - the terminal line reader of `floe sql`: prompts, Ctrl-C,
 * history (cmd_sql.h, "Interactive input").
 *
 * Why libedit's callback interface rather than readline(): a Ctrl-C at the
 * prompt must clear the line and show a fresh prompt (psql), not end the
 * shell. readline() blocks inside libedit, which restarts its read after the
 * signal; the callback interface leaves the wait to us (select()), so a
 * SIGINT handler installed without SA_RESTART interrupts the wait, and
 * removing and reinstalling the handler resets libedit's line buffer and
 * prints the new prompt. Without libedit (or when stdin is not a terminal)
 * lines come from getline(), which the same handler interrupts.
 *
 * History goes to $FLOE_HISTFILE, else ~/.floe_history, in libedit's format;
 * it is loaded at start and rewritten after every entry (not only at exit),
 * so a killed or crashed shell keeps what was typed.
 *
 * TAB completes keywords, namespaces, tables and columns (candidates from
 * cmd_sql_complete.c, read from the catalog at each TAB); '.' does not
 * break a word, so "demo.or<TAB>" completes within demo, and a namespace
 * completes with its '.' and no blank.
 *
 * The statics below are the exception to "no mutable globals": libedit's
 * line callback, its completion callbacks and a signal handler take no
 * user pointer.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <unistd.h>

#ifdef FLOE_HAVE_LIBEDIT
#include <editline/readline.h>
#endif

#include "cli/cmd_sql.h"
#include "floe/arena.h"

static volatile sig_atomic_t got_sigint;

static void on_prompt_sigint(int sig)
{
    (void)sig;
    got_sigint = 1;
}

static char *history_path(void)
{
    const char *env = getenv("FLOE_HISTFILE");
    if (env && *env)
        return strdup(env);
    const char *home = getenv("HOME");
    if (!home || !*home)
        return NULL;
    size_t n = strlen(home) + 32;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/.floe_history", home);
    return p;
}

void fl_sqlin_open(fl_sqlin *in, bool tty)
{
    memset(in, 0, sizeof *in);
    in->tty = tty;
    if (!tty)
        return;
    in->hist = history_path();
#ifdef FLOE_HAVE_LIBEDIT
    using_history();
    stifle_history(2000);
    if (in->hist)
        read_history(in->hist);
#endif
}

#ifdef FLOE_HAVE_LIBEDIT
/* What TAB completes against, and the candidates of the current TAB. */
static fl_catalog *complete_cat;
static fl_sql_session *complete_session;
static const char *complete_ns;
static fl_arena complete_arena;
static const char **complete_list;
static uint32_t complete_n, complete_next;

static char *complete_entry(const char *text, int state)
{
    (void)text;
    if (state == 0)
        complete_next = 0;
    return complete_next < complete_n ? strdup(complete_list[complete_next++]) : NULL;
}

static char **complete_word(const char *text, int start, int end)
{
    (void)start;
    (void)end;
    rl_attempted_completion_over = 1; /* never file names */
    fl_arena_free(&complete_arena);
    fl_arena_init(&complete_arena, 0);
    const char *ns = complete_session ? fl_sql_get(complete_session, "search_path") : NULL;
    complete_list = fl_sqlcomplete(complete_cat, ns && *ns ? ns : complete_ns, rl_line_buffer,
                                   text, &complete_arena, &complete_n);
    size_t last = complete_n == 1 ? strlen(complete_list[0]) : 0;
    rl_completion_append_character = last && complete_list[0][last - 1] == '.' ? '\0' : ' ';
    return complete_n ? rl_completion_matches(text, complete_entry) : NULL;
}
#endif

void fl_sqlin_set_completion(fl_sqlin *in, fl_catalog *cat, fl_sql_session *s,
                             const char *default_ns)
{
#ifdef FLOE_HAVE_LIBEDIT
    if (!in->tty)
        return;
    complete_cat = cat;
    complete_session = s;
    complete_ns = default_ns;
    static char breaks[] = " \t\n\"\\'`@$><=;|&{(),";
    rl_basic_word_break_characters = breaks;
    rl_completer_word_break_characters = breaks;
    rl_attempted_completion_function = complete_word;
#else
    (void)in;
    (void)cat;
    (void)s;
    (void)default_ns;
#endif
}

void fl_sqlin_close(fl_sqlin *in)
{
#ifdef FLOE_HAVE_LIBEDIT
    if (in->tty) {
        rl_attempted_completion_function = NULL;
        complete_cat = NULL;
        complete_session = NULL;
        fl_arena_free(&complete_arena);
        complete_list = NULL;
        complete_n = 0;
    }
#endif
    free(in->hist);
    in->hist = NULL;
}

void fl_sqlin_remember(fl_sqlin *in, const char *entry)
{
#ifdef FLOE_HAVE_LIBEDIT
    if (!in->tty || !entry || !*entry)
        return;
    add_history(entry);
    if (in->hist && write_history(in->hist) != 0 && !in->hist_warned) {
        fprintf(stderr, "floe sql: cannot write history file %s\n", in->hist);
        in->hist_warned = true;
    }
#else
    (void)in;
    (void)entry;
#endif
}

#ifdef FLOE_HAVE_LIBEDIT
static char *cb_line;
static bool cb_done;

static void on_line(char *line)
{
    cb_line = line;
    cb_done = true;
}

/* One line through libedit's callback interface; see the top. SIGINT stays
 * blocked except inside pselect(), so a Ctrl-C that lands while libedit is
 * handling a key is still seen: it stays pending until the next wait. */
static fl_sqlin_status read_edit(const char *prompt, char **line)
{
    cb_line = NULL;
    cb_done = false;
    sigset_t block, waitmask;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigprocmask(SIG_BLOCK, &block, &waitmask);
    sigdelset(&waitmask, SIGINT);
    rl_callback_handler_install(prompt, on_line);
    fl_sqlin_status st = FL_SQLIN_LINE;
    while (!cb_done) {
        if (got_sigint) {
            st = FL_SQLIN_INTERRUPT;
            break;
        }
        fd_set fds;
        FD_ZERO(&fds);
        FD_SET(STDIN_FILENO, &fds);
        int n = pselect(STDIN_FILENO + 1, &fds, NULL, NULL, NULL, &waitmask);
        if (n < 0 && errno == EINTR)
            continue;
        int avail = 0;
        /* readable with nothing to read: the terminal hung up (libedit's
         * callback would just return and we would spin) */
        if (n < 0 || ioctl(STDIN_FILENO, FIONREAD, &avail) != 0 || avail == 0) {
            st = FL_SQLIN_EOF;
            break;
        }
        rl_callback_read_char();
    }
    rl_callback_handler_remove();
    sigprocmask(SIG_UNBLOCK, &block, NULL);
    if (st == FL_SQLIN_INTERRUPT)
        fputs("^C\n", stdout);
    else if (st == FL_SQLIN_EOF || !cb_line)
        st = FL_SQLIN_EOF;
    *line = st == FL_SQLIN_LINE ? cb_line : NULL;
    if (st != FL_SQLIN_LINE)
        free(cb_line);
    cb_line = NULL;
    fflush(stdout);
    return st;
}
#endif

static fl_sqlin_status read_plain(const char *prompt, bool tty, char **line)
{
    if (tty) {
        fputs(prompt, stdout);
        fflush(stdout);
    }
    size_t cap = 0;
    char *l = NULL;
    errno = 0;
    ssize_t got = getline(&l, &cap, stdin);
    if (got < 0) {
        free(l);
        if (errno == EINTR && got_sigint) {
            clearerr(stdin);
            fputs("\n", stdout);
            return FL_SQLIN_INTERRUPT;
        }
        return FL_SQLIN_EOF;
    }
    if (got > 0 && l[got - 1] == '\n')
        l[got - 1] = '\0';
    *line = l;
    return FL_SQLIN_LINE;
}

fl_sqlin_status fl_sqlin_read(fl_sqlin *in, const char *prompt, char **line)
{
    *line = NULL;
    if (!in->tty)
        return read_plain(prompt, false, line);
    struct sigaction sa = {0}, old;
    sa.sa_handler = on_prompt_sigint;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: the wait must see EINTR */
    got_sigint = 0;
    sigaction(SIGINT, &sa, &old);
#ifdef FLOE_HAVE_LIBEDIT
    fl_sqlin_status st = read_edit(prompt, line);
#else
    fl_sqlin_status st = read_plain(prompt, true, line);
#endif
    sigaction(SIGINT, &old, NULL);
    return st;
}
