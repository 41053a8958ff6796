/*
 * bench_clock.h - what the C benchmarks (bench_core.c, bench_batch.c,
 * bench_builds.c) share: a monotonic clock and the thread's CPU time in
 * seconds, and a qsort comparison of doubles (for medians).  Define
 * _POSIX_C_SOURCE (199309L or later) before any include, for
 * clock_gettime.
 */
#ifndef PYFATHOM_BENCH_CLOCK_H
#define PYFATHOM_BENCH_CLOCK_H

#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Seconds this thread has run: time the machine gave another tenant is
 * not counted (on a shared machine the closer figure to a quiet one's). */
static inline double thread_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif /* PYFATHOM_BENCH_CLOCK_H */
