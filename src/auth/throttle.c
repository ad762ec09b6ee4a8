/*
 * throttle.c - failed-login throttling and the login audit line (auth.h,
 * "logins"; docs/security.md, "Login audit and throttling").
 *
 * Why: a token request costs the server a PBKDF2 run (~2 ms) and a pgwire
 * SCRAM exchange a round trip; without a bound, one client can guess
 * secrets as fast as the server answers, and burn its CPU doing so. Secrets
 * are 256-bit random strings, so guessing is hopeless; the throttle is
 * about the cost, and about making an attack visible in the audit log.
 *
 * Model: one entry per key ("i:" client id, "a:" client address) with the
 * failures of the current window, the window's start, how many lockouts
 * it has earned (strikes) and the time it is blocked until. A failure past
 * the threshold blocks the key for 2^(strikes-1) seconds, at most 300. An
 * attempt is refused while any of its keys is blocked, before any secret is
 * looked at. Refused attempts are not failures (they would let an
 * attacker keep a victim locked out forever without trying anything); an
 * attacker can still keep a client id locked by failing once per lockout,
 * which the audit log shows. The table holds at most MAX_ENTRIES keys:
 * idle ones (window over, not blocked) are dropped first, then the oldest,
 * so a flood of made-up client ids costs bounded memory (and their address
 * is counted, and blocked, all the same).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auth/auth_internal.h"

#define MAX_ENTRIES 4096
#define KEY_MAX 160
#define LOCKOUT_MAX_S 300

typedef struct thr_entry {
    char key[KEY_MAX];
    uint32_t failures, strikes;
    int64_t window_start_ms, blocked_until_ms;
} thr_entry;

struct auth_throttle {
    pthread_mutex_t mu;
    uint32_t max_failures, window_ms;
    thr_entry *e;
    uint32_t n;
};

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

fl_status auth_throttle_new(fl_auth *a, uint32_t max_failures, uint32_t window_s, fl_error *err)
{
    struct auth_throttle *t = calloc(1, sizeof *t);
    if (t)
        t->e = calloc(MAX_ENTRIES, sizeof *t->e);
    if (!t || !t->e) {
        free(t);
        return fl_errorf(err, FL_ENOMEM, "auth: out of memory");
    }
    pthread_mutex_init(&t->mu, NULL);
    t->max_failures = max_failures ? max_failures : 5;
    t->window_ms = (window_s ? window_s : 60) * 1000u;
    a->throttle = t;
    return FL_OK;
}

void auth_throttle_free(fl_auth *a)
{
    struct auth_throttle *t = a->throttle;
    if (!t)
        return;
    pthread_mutex_destroy(&t->mu);
    free(t->e);
    free(t);
    a->throttle = NULL;
}

static void make_key(char *out, char kind, const char *s)
{
    snprintf(out, KEY_MAX, "%c:%s", kind, s);
}

static thr_entry *lookup(struct auth_throttle *t, const char *key)
{
    for (uint32_t i = 0; i < t->n; i++)
        if (!strcmp(t->e[i].key, key))
            return &t->e[i];
    return NULL;
}

static bool idle(const struct auth_throttle *t, const thr_entry *e, int64_t now)
{
    return e->blocked_until_ms <= now && now - e->window_start_ms > (int64_t)t->window_ms;
}

/* Makes room for one more entry. */
static void make_room(struct auth_throttle *t, int64_t now)
{
    uint32_t o = 0;
    for (uint32_t i = 0; i < t->n; i++)
        if (!idle(t, &t->e[i], now))
            t->e[o++] = t->e[i];
    t->n = o;
    if (t->n < MAX_ENTRIES)
        return;
    uint32_t oldest = 0;
    for (uint32_t i = 1; i < t->n; i++)
        if (t->e[i].window_start_ms < t->e[oldest].window_start_ms)
            oldest = i;
    t->e[oldest] = t->e[--t->n];
}

static thr_entry *get(struct auth_throttle *t, const char *key, int64_t now)
{
    thr_entry *e = lookup(t, key);
    if (e)
        return e;
    if (t->n == MAX_ENTRIES)
        make_room(t, now);
    e = &t->e[t->n++];
    memset(e, 0, sizeof *e);
    snprintf(e->key, sizeof e->key, "%s", key);
    e->window_start_ms = now;
    return e;
}

fl_status fl_auth_login_allowed(fl_auth *a, const char *client_id, const char *client_addr,
                                int *retry_after_s, fl_error *err)
{
    if (retry_after_s)
        *retry_after_s = 0;
    struct auth_throttle *t = a ? a->throttle : NULL;
    if (!t)
        return FL_OK;
    char keys[2][KEY_MAX];
    int nk = 0;
    if (client_id)
        make_key(keys[nk++], 'i', client_id);
    if (client_addr)
        make_key(keys[nk++], 'a', client_addr);
    int64_t now = now_ms(), until = 0;
    pthread_mutex_lock(&t->mu);
    for (int k = 0; k < nk; k++) {
        const thr_entry *e = lookup(t, keys[k]);
        if (e && e->blocked_until_ms > now && e->blocked_until_ms > until)
            until = e->blocked_until_ms;
    }
    pthread_mutex_unlock(&t->mu);
    if (!until)
        return FL_OK;
    int secs = (int)((until - now + 999) / 1000);
    if (retry_after_s)
        *retry_after_s = secs;
    return fl_errorf(err, FL_ELIMIT,
                     "too many failed login attempts from this client; try again in %d s", secs);
}

static void fail_key(struct auth_throttle *t, const char *key, uint32_t threshold, int64_t now)
{
    thr_entry *e = get(t, key, now);
    if (now - e->window_start_ms > (int64_t)t->window_ms) {
        e->window_start_ms = now;
        e->failures = 0;
        if (e->blocked_until_ms <= now)
            e->strikes = 0;
    }
    if (++e->failures < threshold)
        return;
    e->strikes++;
    int64_t secs = e->strikes >= 10 ? LOCKOUT_MAX_S : (int64_t)1 << (e->strikes - 1);
    if (secs > LOCKOUT_MAX_S)
        secs = LOCKOUT_MAX_S;
    e->blocked_until_ms = now + secs * 1000;
}

void fl_auth_login_record(fl_auth *a, const char *client_id, const char *client_addr, bool ok)
{
    struct auth_throttle *t = a ? a->throttle : NULL;
    if (!t)
        return;
    char key[KEY_MAX];
    int64_t now = now_ms();
    pthread_mutex_lock(&t->mu);
    if (ok && client_id) {
        make_key(key, 'i', client_id);
        thr_entry *e = lookup(t, key);
        if (e)
            *e = t->e[--t->n];
    } else if (!ok) {
        if (client_id) {
            make_key(key, 'i', client_id);
            fail_key(t, key, t->max_failures, now);
        }
        if (client_addr) {
            make_key(key, 'a', client_addr);
            fail_key(t, key, t->max_failures * 4, now);
        }
    }
    pthread_mutex_unlock(&t->mu);
}

void fl_auth_audit_login(fl_auth *a, const char *action, const char *client_id,
                         const char *endpoint, const char *client_addr, const char *outcome,
                         const char *why)
{
    if (!a)
        return;
    fl_principal who;
    memset(&who, 0, sizeof who);
    snprintf(who.name, sizeof who.name, "%s", client_id ? client_id : "");
    char detail[512];
    snprintf(detail, sizeof detail, "client=%s%s%s", client_addr ? client_addr : "unknown",
             why ? "; " : "", why ? why : "");
    fl_auth_audit(a, client_id ? &who : NULL, action, endpoint, outcome, NULL, detail);
}
