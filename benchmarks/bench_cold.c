/*
 * bench_cold.c - one way of probing, timed in a process of its own, for
 * bench_cold.py (which drops the tables' pages before a cold run and
 * runs each way in a fresh process, so that nothing is mapped or cached
 * from the run before).
 *
 *   bench_cold TABLES POSITIONS WAY KIND THREADS READ_AHEAD ANSWERS
 *   bench_cold --device FILE DEPTH READS
 *
 * WAY: "loop" (fathom_probe_wdl / fathom_probe_dtz per row, one thread)
 * or "batch" (fathom_probe_batch with THREADS threads, 0: one per core);
 * KIND: wdl or dtz; READ_AHEAD: off, auto or always; ANSWERS: a file the
 * rows' values (int16) and statuses (uint8) are written to, for the
 * driver's row-by-row comparison.  Prints "key value" lines: seconds,
 * positions_per_s, major_faults, minor_faults, read_bytes (/proc/self/io;
 * -1 where there is none).
 *
 * --device: READS random 4 KiB reads of FILE with O_DIRECT (past the page
 * cache) from DEPTH threads, each one read at a time: the device's rate
 * at that queue depth, where fio is not installed.  Linux only.
 */
#define _GNU_SOURCE 1
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench_positions.h"
#include "fathom.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static long long read_bytes(void)
{
    FILE *f = fopen("/proc/self/io", "r");
    char line[256];
    long long v = -1;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "read_bytes: %lld", &v) == 1)
            break;
    fclose(f);
    return v;
}

typedef struct rows {
    size_t n;
    uint64_t *bb[8];
    uint8_t *ep, *turn;
} rows;

static int read_rows(const char *path, rows *r)
{
    FILE *f = fopen(path, "r");
    char line[512];
    size_t cap = 1024;
    if (!f)
        return 0;
    r->n = 0;
    for (int i = 0; i < 8; i++)
        r->bb[i] = (uint64_t *)malloc(cap * sizeof(uint64_t));
    r->ep = (uint8_t *)malloc(cap);
    r->turn = (uint8_t *)malloc(cap);
    while (fgets(line, sizeof line, f)) {
        unsigned long long bb[8];
        unsigned ep;
        int turn;
        if (!bench_parse_position(line, bb, &ep, &turn))
            continue;
        if (r->n == cap) {
            cap *= 2;
            for (int i = 0; i < 8; i++)
                r->bb[i] = (uint64_t *)realloc(r->bb[i], cap * sizeof(uint64_t));
            r->ep = (uint8_t *)realloc(r->ep, cap);
            r->turn = (uint8_t *)realloc(r->turn, cap);
        }
        for (int i = 0; i < 8; i++)
            r->bb[i][r->n] = bb[i];
        r->ep[r->n] = (uint8_t)ep;
        r->turn[r->n] = (uint8_t)turn;
        r->n++;
    }
    fclose(f);
    return r->n > 0;
}

typedef struct device_job {
    int fd;
    uint64_t pages;
    long reads;
    unsigned seed;
} device_job;

static void *device_reader(void *arg)
{
    device_job *j = (device_job *)arg;
    void *buf = NULL;
    if (posix_memalign(&buf, 4096, 4096) != 0)
        return NULL;
    for (long i = 0; i < j->reads; i++) {
        j->seed = j->seed * 1103515245u + 12345u;
        uint64_t page = ((uint64_t)j->seed << 16 ^ (uint64_t)rand_r(&j->seed)) % j->pages;
        if (pread(j->fd, buf, 4096, (off_t)(page * 4096)) != 4096)
            break;
    }
    free(buf);
    return NULL;
}

static int device(const char *path, int depth, long reads)
{
    int fd = open(path, O_RDONLY | O_DIRECT);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || depth < 1 || depth > 256) {
        fprintf(stderr, "bench_cold: cannot read %s with O_DIRECT\n", path);
        return 2;
    }
    device_job jobs[256];
    pthread_t ids[256];
    double t0 = now();
    for (int t = 0; t < depth; t++) {
        jobs[t] = (device_job){fd, (uint64_t)st.st_size / 4096, reads / depth, 17u + (unsigned)t};
        pthread_create(&ids[t], NULL, device_reader, &jobs[t]);
    }
    for (int t = 0; t < depth; t++)
        pthread_join(ids[t], NULL);
    double dt = now() - t0;
    printf("reads_per_s %.0f\n", (double)(reads / depth * depth) / dt);
    close(fd);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 5 && !strcmp(argv[1], "--device"))
        return device(argv[2], atoi(argv[3]), atol(argv[4]));
    if (argc != 8) {
        fprintf(stderr, "usage: %s TABLES POSITIONS loop|batch wdl|dtz THREADS "
                        "off|auto|always ANSWERS\n", argv[0]);
        return 2;
    }
    int dtz = !strcmp(argv[4], "dtz");
    int loop = !strcmp(argv[3], "loop");
    int mode = !strcmp(argv[6], "off") ? FATHOM_READ_AHEAD_OFF
               : !strcmp(argv[6], "always") ? FATHOM_READ_AHEAD_ALWAYS
                                            : FATHOM_READ_AHEAD_AUTO;
    rows r;
    fathom_tb *tb = NULL;
    unsigned found = 0;
    if (!read_rows(argv[2], &r) || fathom_open(&tb) != FATHOM_OK ||
        fathom_add_path_list(tb, argv[1], ':', &found) != FATHOM_OK || !found ||
        fathom_set_read_ahead(tb, mode) != FATHOM_OK) {
        fprintf(stderr, "bench_cold: no positions or no tables\n");
        return 2;
    }
    int16_t *value = (int16_t *)calloc(r.n, sizeof *value);
    int8_t *wdl = (int8_t *)calloc(r.n, 1);
    uint8_t *status = (uint8_t *)calloc(r.n, 1);
    struct rusage u0, u1;
    long long b0 = read_bytes();
    getrusage(RUSAGE_SELF, &u0);
    double t0 = now();
    if (loop) {
        for (size_t i = 0; i < r.n; i++) {
            unsigned long long bb[8];
            for (int k = 0; k < 8; k++)
                bb[k] = r.bb[k][i];
            fathom_board board = bench_board(bb, r.ep[i], r.turn[i]);
            fathom_result res = dtz ? fathom_probe_dtz(tb, &board, NULL)
                                    : fathom_probe_wdl(tb, &board, NULL);
            status[i] = (uint8_t)FATHOM_RESULT_STATUS(res);
            value[i] = status[i] == FATHOM_OK ? (int16_t)FATHOM_RESULT_VALUE(res)
                                              : (int16_t)(dtz ? FATHOM_BATCH_DTZ_FAILED
                                                              : FATHOM_BATCH_WDL_FAILED);
        }
    } else {
        const uint64_t *const bb[8] = {r.bb[0], r.bb[1], r.bb[2], r.bb[3],
                                       r.bb[4], r.bb[5], r.bb[6], r.bb[7]};
        fathom_probe_batch(tb, r.n, bb, r.ep, r.turn, dtz ? NULL : wdl, dtz ? value : NULL,
                           NULL, status, (unsigned)atoi(argv[5]), 0);
        if (!dtz)
            for (size_t i = 0; i < r.n; i++)
                value[i] = wdl[i];
    }
    double dt = now() - t0;
    getrusage(RUSAGE_SELF, &u1);
    long long b1 = read_bytes();
    FILE *out = fopen(argv[7], "wb");
    if (!out || fwrite(value, sizeof *value, r.n, out) != r.n ||
        fwrite(status, 1, r.n, out) != r.n || fclose(out) != 0) {
        fprintf(stderr, "bench_cold: cannot write %s\n", argv[7]);
        return 2;
    }
    printf("positions %zu\nseconds %.6f\npositions_per_s %.1f\n", r.n, dt, (double)r.n / dt);
    printf("major_faults %ld\nminor_faults %ld\n", u1.ru_majflt - u0.ru_majflt,
           u1.ru_minflt - u0.ru_minflt);
    printf("read_bytes %lld\n", b0 < 0 || b1 < 0 ? -1LL : b1 - b0);
    fathom_close(tb);
    return 0;
}
