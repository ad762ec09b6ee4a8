/*
 * bench_exec.c - runs a command and reports its wall time and peak RSS
 * (wait4 rusage), so bench/run.sh needs no /usr/bin/time.
 *
 *   bench_exec CMD [ARGS...]
 *
 * The command's stdout goes to /dev/null, its stderr is kept. Prints one JSON
 * line: {"seconds":S,"maxrss_kb":K,"status":N}; exits with the command's status.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_exec CMD [ARGS...]\n");
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 2;
    }
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0)
            dup2(fd, 1);
        execvp(argv[1], argv + 1);
        perror(argv[1]);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) < 0) {
        perror("wait4");
        return 2;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    printf("{\"seconds\":%.4f,\"maxrss_kb\":%ld,\"status\":%d}\n", secs, ru.ru_maxrss, code);
    return code;
}
