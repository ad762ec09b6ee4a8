/*
 * ids.c - random identifiers for Iceberg metadata: table/metadata-file UUIDs
 * (RFC 4122 version 4) and snapshot ids.
 *
 * Randomness comes from getrandom(2) (the kernel CSPRNG; no global state, so
 * forked processes and threads never repeat each other's ids). If getrandom
 * is unavailable (ENOSYS in an old sandbox) /dev/urandom is read instead; only
 * when both fail are bytes mixed from the clock, pid and a stack address.
 *
 * Snapshot ids are positive 63-bit numbers, as Java's
 * SnapshotIdGeneratorUtil produces (it xors the UUID halves and clears the
 * sign bit); 0 is avoided because some readers treat it as "no snapshot".
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "floe/ice_table.h"

static int urandom_fill(uint8_t *buf, size_t len)
{
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t got = 0;
    while (got < len) {
        ssize_t r = read(fd, buf + got, len - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    return got == len ? 0 : -1;
}

/* splitmix64 step over clock/pid/address: the last resort, never expected. */
static void weak_fill(uint8_t *buf, size_t len)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)getpid() << 16) ^
                 (uint64_t)(uintptr_t)&ts;
    for (size_t i = 0; i < len; i++) {
        x += 0x9E3779B97F4A7C15ull;
        uint64_t z = x;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        buf[i] = (uint8_t)(z ^ (z >> 31));
    }
}

static void random_fill(uint8_t *buf, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t r = getrandom(buf + got, len - got, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    if (got == len)
        return;
    if (urandom_fill(buf, len) == 0)
        return;
    weak_fill(buf, len);
}

void fl_ice_uuid4(char buf[37])
{
    uint8_t b[16];
    random_fill(b, sizeof b);
    b[6] = (uint8_t)((b[6] & 0x0F) | 0x40); /* version 4 */
    b[8] = (uint8_t)((b[8] & 0x3F) | 0x80); /* variant 10 */
    static const char hex[] = "0123456789abcdef";
    size_t o = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            buf[o++] = '-';
        buf[o++] = hex[b[i] >> 4];
        buf[o++] = hex[b[i] & 15];
    }
    buf[o] = '\0';
}

int64_t fl_ice_new_snapshot_id(void)
{
    for (;;) {
        uint64_t v;
        random_fill((uint8_t *)&v, sizeof v);
        v &= INT64_MAX;
        if (v != 0)
            return (int64_t)v;
    }
}
