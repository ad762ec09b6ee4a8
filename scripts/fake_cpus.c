/*
 * fake_cpus.c - LD_PRELOAD shim for scripts/tsan.sh: makes
 * sysconf(_SC_NPROCESSORS_ONLN) (and _SC_NPROCESSORS_CONF) return
 * $FLOE_FAKE_CPUS, so tests whose executor sizes its worker pool from the
 * CPU count run with CI's 4 (or 8) threads on a 2-core machine. Every other
 * sysconf name goes to the real function. Not part of libfloe (scripts/ is
 * not globbed by CMake); built by scripts/tsan.sh:
 *   cc -shared -fPIC -O1 -o fake_cpus.so scripts/fake_cpus.c -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

long sysconf(int name)
{
    static long (*real)(int);
    if (name == _SC_NPROCESSORS_ONLN || name == _SC_NPROCESSORS_CONF) {
        const char *v = getenv("FLOE_FAKE_CPUS");
        long n = v ? strtol(v, NULL, 10) : 0;
        if (n > 0 && n <= 256)
            return n;
    }
    if (!real)
        real = (long (*)(int))dlsym(RTLD_NEXT, "sysconf");
    return real ? real(name) : -1;
}
