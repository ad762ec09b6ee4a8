/*
 * pgwire_cursor.c - benchmark driver: streams a large result through a
 * server-side cursor over libpq and reports rows/s and the server's peak RSS.
 *
 *   pgwire_cursor CONNINFO SQL FETCH_ROWS SERVER_PID
 *
 * Runs BEGIN; DECLARE pgwbench NO SCROLL CURSOR FOR <SQL>; then FETCH
 * FETCH_ROWS FROM pgwbench until a FETCH returns no row; COMMIT. Every value
 * of column 1 is parsed (and summed) so the client really reads the rows.
 * SERVER_PID: the process whose /proc/PID/status VmHWM is the server's peak
 * RSS (floe serve); 0 = the backend of this connection (pg_backend_pid(),
 * PostgreSQL's process-per-connection model). VmHWM is read before the
 * connection closes.
 *
 * Output, one line: rows=N secs=S rows_per_s=R sum=X vmhwm_kb=K
 * Built by bench/pgwire_bench.sh with `cc -O2 pgwire_cursor.c -lpq`; not
 * part of libfloe. Exit 1 on any error (message on stderr).
 */
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static long vmhwm_kb(long pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%ld/status", pid);
    FILE *f = fopen(path, "r");
    long kb = -1;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "VmHWM:", 6)) {
            kb = strtol(line + 6, NULL, 10);
            break;
        }
    fclose(f);
    return kb;
}

static int run(PGconn *c, const char *sql, ExecStatusType want)
{
    PGresult *r = PQexec(c, sql);
    int ok = PQresultStatus(r) == want;
    if (!ok)
        fprintf(stderr, "pgwire_cursor: %s: %s", sql, PQerrorMessage(c));
    PQclear(r);
    return ok;
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: pgwire_cursor CONNINFO SQL FETCH_ROWS SERVER_PID\n");
        return 2;
    }
    long fetch = strtol(argv[3], NULL, 10), pid = strtol(argv[4], NULL, 10);
    PGconn *c = PQconnectdb(argv[1]);
    if (PQstatus(c) != CONNECTION_OK) {
        fprintf(stderr, "pgwire_cursor: connect: %s", PQerrorMessage(c));
        return 1;
    }
    if (pid == 0) {
        PGresult *r = PQexec(c, "SELECT pg_backend_pid()");
        if (PQresultStatus(r) == PGRES_TUPLES_OK)
            pid = strtol(PQgetvalue(r, 0, 0), NULL, 10);
        PQclear(r);
    }
    char *decl = malloc(strlen(argv[2]) + 64), fq[64];
    sprintf(decl, "DECLARE pgwbench NO SCROLL CURSOR FOR %s", argv[2]);
    snprintf(fq, sizeof fq, "FETCH %ld FROM pgwbench", fetch);
    double t0 = now_s();
    long long rows = 0, sum = 0;
    if (!run(c, "BEGIN", PGRES_COMMAND_OK) || !run(c, decl, PGRES_COMMAND_OK))
        return 1;
    for (;;) {
        PGresult *r = PQexec(c, fq);
        if (PQresultStatus(r) != PGRES_TUPLES_OK) {
            fprintf(stderr, "pgwire_cursor: FETCH: %s", PQerrorMessage(c));
            return 1;
        }
        int n = PQntuples(r);
        for (int i = 0; i < n; i++)
            sum += strtoll(PQgetvalue(r, i, 0), NULL, 10);
        rows += n;
        PQclear(r);
        if (n == 0)
            break;
    }
    run(c, "CLOSE pgwbench", PGRES_COMMAND_OK);
    run(c, "COMMIT", PGRES_COMMAND_OK);
    double secs = now_s() - t0;
    long kb = pid > 0 ? vmhwm_kb(pid) : -1;
    printf("rows=%lld secs=%.3f rows_per_s=%.0f sum=%lld vmhwm_kb=%ld\n", rows, secs, rows / secs, sum, kb);
    PQfinish(c);
    free(decl);
    return 0;
}
